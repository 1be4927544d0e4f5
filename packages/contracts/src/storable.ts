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

/** Why Postgres cannot store the string `s` as it is, or null. */
function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character (U+0000), which cannot be stored';
  if (LONE_SURROGATE.test(s)) return 'contains an unpaired UTF-16 surrogate (not valid Unicode)';
  return null;
}

/**
 * What Postgres cannot store, anywhere in a parsed JSON body or query: a NUL (U+0000) or an
 * unpaired surrogate in a string or a key (text and jsonb reject them), and nesting deeper than
 * `maxDepth`. Walks with an explicit stack, so a hostile 100,000-level document cannot overflow
 * the call stack here either.
 */
export function storableIssues(value: unknown, maxDepth = MAX_INPUT_DEPTH, limit = 20): FieldError[] {
  const issues: FieldError[] = [];
  const stack: { v: unknown; path: string[]; depth: number }[] = [{ v: value, path: [], depth: 0 }];
  const at = (path: string[]) => (path.length ? path.join('.') : '(root)');
  while (stack.length && issues.length < limit) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) issues.push({ path: at(path), message: problem });
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) {
      issues.push({ path: at(path), message: `nested deeper than ${maxDepth} levels` });
      continue;
    }
    for (const [k, child] of Object.entries(v)) {
      const problem = textProblem(k);
      if (problem) issues.push({ path: at([...path, printable(k)]), message: `the key ${problem}` });
      else stack.push({ v: child, path: [...path, k], depth: depth + 1 });
    }
  }
  return issues;
}

/** A key as an error can show it: NUL as `\0`, a lone surrogate as `\uXXXX`. */
function printable(k: string): string {
  return k.replaceAll('\u0000', '\\0').replace(new RegExp(LONE_SURROGATE.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}
