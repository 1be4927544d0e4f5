import type { FieldError } from './errors.js';

/** Largest value of a Postgres `integer` (steps, groups, seeds, indexes). */
export const INT32_MAX = 2_147_483_647;
export const INT32_MIN = -2_147_483_648;
/** Largest value of a Postgres `bigint` (log line ids). */
export const INT64_MAX = 9_223_372_036_854_775_807n;
/** Wall times are unix seconds up to the end of year 9999 (a JS Date and a Postgres timestamptz both hold that). */
export const MAX_UNIX_SECONDS = 253_402_300_799;
/**
 * Deepest nesting accepted in a request body: run configs and state snapshots are a few levels
 * deep, and a bound keeps every recursive consumer (zod, Prisma, jsonb) far from its stack limit.
 */
export const MAX_INPUT_DEPTH = 32;

/** A UTF-16 surrogate without its pair: not a character, so it has no UTF-8 form (jsonb refuses it, text would mangle it). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Any surrogate: most strings have none, and this scan is far cheaper than LONE_SURROGATE's lookarounds. */
const SURROGATE = /[\ud800-\udfff]/;

/** Why Postgres cannot store the string `s` as it is, or null. */
function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character (U+0000), which cannot be stored';
  if (SURROGATE.test(s) && LONE_SURROGATE.test(s)) return 'contains an unpaired UTF-16 surrogate (not valid Unicode)';
  return null;
}

/** Where a value sits in the document, as a chain to its parent (a path is only spelled out for an issue). */
interface Place {
  parent: Place | null;
  key: string;
}

/**
 * What Postgres cannot store, anywhere in a parsed JSON body or query: a NUL (U+0000) or an
 * unpaired surrogate in a string or a key (text and jsonb reject them), and nesting deeper than
 * `maxDepth`. Walks with an explicit stack, so a hostile 100,000-level document cannot overflow
 * the call stack here either.
 */
export function storableIssues(value: unknown, maxDepth = MAX_INPUT_DEPTH, limit = 20): FieldError[] {
  const issues: FieldError[] = [];
  const stack: { v: unknown; at: Place | null; depth: number }[] = [{ v: value, at: null, depth: 0 }];
  while (stack.length && issues.length < limit) {
    const { v, at, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) issues.push({ path: spelled(at), message: problem });
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) {
      issues.push({ path: spelled(at), message: `nested deeper than ${maxDepth} levels` });
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const child: unknown = v[i];
        // numbers, booleans and null need no look (most of a metrics batch's leaves)
        if (child !== null && (typeof child === 'object' || typeof child === 'string'))
          stack.push({ v: child, at: { parent: at, key: String(i) }, depth: depth + 1 });
      }
      continue;
    }
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      const problem = textProblem(k);
      if (problem) issues.push({ path: spelled({ parent: at, key: printable(k) }), message: `the key ${problem}` });
      else {
        const child: unknown = (v as Record<string, unknown>)[k];
        if (child !== null && (typeof child === 'object' || typeof child === 'string'))
          stack.push({ v: child, at: { parent: at, key: k }, depth: depth + 1 });
      }
    }
  }
  return issues;
}

/** A place as a dotted path (`points.3.key`), or `(root)`. */
function spelled(at: Place | null): string {
  const keys: string[] = [];
  for (let p = at; p; p = p.parent) keys.push(p.key);
  return keys.length ? keys.reverse().join('.') : '(root)';
}

/** A key as an error can show it: NUL as `\0`, a lone surrogate as `\uXXXX`. */
function printable(k: string): string {
  return k.replaceAll('\u0000', '\\0').replace(new RegExp(LONE_SURROGATE.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}
