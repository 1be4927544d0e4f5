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

/**
 * What Postgres cannot store, anywhere in a parsed JSON body or query: a NUL (U+0000) in a
 * string or a key (text and jsonb reject it), and nesting deeper than `maxDepth`. Walks with an
 * explicit stack, so a hostile 100,000-level document cannot overflow the call stack here either.
 */
export function storableIssues(value: unknown, maxDepth = MAX_INPUT_DEPTH, limit = 20): FieldError[] {
  const issues: FieldError[] = [];
  const stack: { v: unknown; path: string[]; depth: number }[] = [{ v: value, path: [], depth: 0 }];
  const at = (path: string[]) => (path.length ? path.join('.') : '(root)');
  while (stack.length && issues.length < limit) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) issues.push({ path: at(path), message: 'contains a NUL character (U+0000), which cannot be stored' });
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) {
      issues.push({ path: at(path), message: `nested deeper than ${maxDepth} levels` });
      continue;
    }
    for (const [k, child] of Object.entries(v)) {
      if (k.includes('\u0000'))
        issues.push({ path: at([...path, k.replaceAll('\u0000', '\\0')]), message: 'a key contains a NUL character' });
      else stack.push({ v: child, path: [...path, k], depth: depth + 1 });
    }
  }
  return issues;
}
