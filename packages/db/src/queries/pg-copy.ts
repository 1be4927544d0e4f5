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

/** Rows per chunk handed to the socket, so a large write neither builds one huge buffer nor many tiny writes. */
const CHUNK_ROWS = 500;

/** `COPY table (columns) FROM STDIN` with `rows` (one field per column), on the caller's connection (not a pool) inside its transaction. */
export async function copyRows(client: Queryable, table: string, columns: readonly string[], rows: CopyField[][]): Promise<void> {
  if (!rows.length) return;
  // each line is encoded on its own: UTF-8 encoding of one long concatenated string cost 3-5× as much
  function* chunks() {
    for (let i = 0; i < rows.length; i += CHUNK_ROWS)
      yield Buffer.concat(rows.slice(i, i + CHUNK_ROWS).map((row) => Buffer.from(`${row.map(copyField).join('\t')}\n`)));
  }
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(chunks()), stream);
}
