/**
 * Postgres `text` and `jsonb` cannot hold U+0000, but an untrained policy can emit it (and model
 * output is data we must keep). We store each NUL as U+2400 "␀", which renders visibly in the
 * dashboard; every other character is stored unchanged.
 */
export const NUL_REPLACEMENT = '\u2400';

export function pgText(s: string): string {
  return s.includes('\u0000') ? s.replaceAll('\u0000', NUL_REPLACEMENT) : s;
}

/** A `\u0000` escape in JSON text that is not itself an escaped backslash followed by "u0000". */
const JSON_NUL = /(?<!\\)((?:\\\\)*)\\u0000/g;
/** A lone surrogate's escape (JSON.stringify writes a paired one as the character itself). */
const JSON_LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/**
 * JSON text of a value for a `json` or `jsonb` column, with {@link pgText} applied to every string (keys
 * included), and a lone surrogate stored as U+FFFD as a `text` column stores it (jsonb refuses its
 * escape; json would keep both escapes, so every column reads back alike only with them swapped):
 * stringified once, then escapes swapped only when there are any, so the common case costs one scan.
 */
export function pgJsonText(value: unknown): string | undefined {
  const text = JSON.stringify(value) as string | undefined;
  return text !== undefined && text.includes('\\u')
    ? text.replace(JSON_NUL, `$1${NUL_REPLACEMENT}`).replace(JSON_LONE_SURROGATE, '$1\ufffd')
    : text;
}
