/**
 * Postgres `text` and `jsonb` cannot hold U+0000, but an untrained policy can emit it (and model
 * output is data we must keep). We store each NUL as U+2400 "␀", which renders visibly in the
 * dashboard; every other character is stored unchanged.
 */
export const NUL_REPLACEMENT = '\u2400';

export function pgText(s: string): string {
  return s.includes('\u0000') ? s.replaceAll('\u0000', NUL_REPLACEMENT) : s;
}

/** Apply {@link pgText} to every string (keys included) inside a JSON-like value. */
export function pgJson<T>(value: T): T {
  if (typeof value === 'string') return pgText(value) as T;
  if (Array.isArray(value)) return value.map((v) => pgJson(v)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [pgText(k), pgJson(v)])) as T;
  }
  return value;
}
