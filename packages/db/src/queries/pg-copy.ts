import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { pgText } from './pg-text.js';
import type { Queryable } from './step-counts.js';

/**
 * One field of a row for `COPY … FROM STDIN` (text format): SQL NULL, a boolean, a number, a text or a
 * text array. JSON goes in as its text (`pgJsonText`). COPY is the bulk path Postgres parses fastest;
 * unnested array parameters made both node (escaping every element) and Postgres (parsing the array
 * literals) do the work twice.
 */
export type CopyField = null | undefined | boolean | number | string | readonly string[];

/** Characters COPY's text format escapes. */
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const copyEscape = (s: string): string => (COPY_SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : s);

/** A text array's literal (`{"a","b\"c"}`); elements are never NULL. */
const arrayLiteral = (xs: readonly string[]): string => `{${xs.map((x) => `"${pgText(x).replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

/** A field as COPY's text format writes it. Non-finite numbers go in as float8 reads them (NaN, Infinity). */
export function copyField(v: CopyField): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'string') return copyEscape(pgText(v));
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') return String(v);
  return copyEscape(arrayLiteral(v));
}

/**
 * Rows per chunk handed to the socket: a large write neither builds one huge buffer nor makes many
 * tiny writes, and Postgres parses one chunk while the next is built.
 */
const CHUNK_ROWS = 100;

/**
 * `COPY table (columns) FROM STDIN` with one row per item (`row` gives its fields, one per column),
 * on the caller's connection (not a pool) inside its transaction. Rows are built chunk by chunk as
 * the socket takes them (building them all first left Postgres idle meanwhile, then node).
 */
export async function copyRows<T>(
  client: Queryable,
  table: string,
  columns: readonly string[],
  items: readonly T[],
  row: (item: T, index: number) => CopyField[],
): Promise<void> {
  if (!items.length) return;
  // each line is encoded on its own: UTF-8 encoding of one long concatenated string cost 3-5× as much
  function* chunks() {
    for (let i = 0; i < items.length; i += CHUNK_ROWS) {
      const lines: Buffer[] = [];
      for (let k = i; k < Math.min(i + CHUNK_ROWS, items.length); k++)
        lines.push(Buffer.from(`${row(items[k]!, k).map(copyField).join('\t')}\n`));
      yield Buffer.concat(lines);
    }
  }
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(chunks()), stream);
}
