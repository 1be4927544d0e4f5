/**
 * One plain sentence for a validator message (zod's "Too small: expected number to be >0" becomes
 * "Must be more than 0."); messages already written for people pass through, capitalised.
 */
export function humanError(message: string): string {
  const m = message.replace(/^Invalid input: /, '');
  const bound = /^Too (small|big): expected (number|int|bigint) to be ([<>]=?)(-?[\d.e+-]+)/.exec(m);
  if (bound) {
    const [, , , op, n] = bound;
    const words = { '>': 'more than', '>=': 'at least', '<': 'less than', '<=': 'at most' }[op!];
    return `Must be ${words} ${n}.`;
  }
  const length = /^Too (small|big): expected (string|array) to have ([<>]=?)(\d+) (characters|items)/.exec(m);
  if (length) {
    const [, , kind, op, n, unit] = length;
    if (kind === 'string' && op === '>=' && n === '1') return 'Must not be empty.';
    return `Must have ${op === '>=' || op === '>' ? 'at least' : 'at most'} ${n} ${unit}.`;
  }
  if (/^expected int, received number/.test(m)) return 'Must be a whole number.';
  if (/^expected number, received/.test(m)) return 'Must be a number.';
  if (/^expected boolean, received/.test(m)) return 'Must be true or false.';
  if (/^expected string, received/.test(m)) return 'Must be text.';
  const option = /^Invalid option: expected one of (.+)$/.exec(m);
  if (option) return `Must be one of ${option[1]!.replace(/"/g, '').split('|').join(', ')}.`;
  const key = /^Unrecognized keys?: (.+)$/.exec(m);
  if (key) return `Not a setting: ${key[1]!.replace(/"/g, '')}.`;
  const s = m.charAt(0).toUpperCase() + m.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

/** One field error of react-hook-form's nested errors; `type` 'server' marks one the API gave. */
interface FlatError {
  message: string;
  type: string;
}

/**
 * react-hook-form's nested errors (a zod issue at `training.steps` sits at errors.training.steps) as
 * `path → error`, for forms whose errors may name any path (the New run form's overrides).
 */
export function flatErrors(errors: object, prefix = ''): Record<string, FlatError> {
  const out: Record<string, FlatError> = {};
  for (const [k, v] of Object.entries(errors)) {
    if (k === 'ref' || !v || typeof v !== 'object') continue; // `ref` is the field's element
    const e = v as { message?: unknown; type?: unknown };
    if (typeof e.message === 'string') out[prefix + k] = { message: e.message, type: String(e.type) };
    else Object.assign(out, flatErrors(v as object, `${prefix}${k}.`));
  }
  return out;
}

/**
 * The message for a field: its own error, or the first under it (a tag's error, tags.3, is the Tags
 * field's). The schema's messages are put in plain words; the API's (type 'server') are shown as sent.
 */
export function errorFor(errors: object, name: string): string | undefined {
  const flat = flatErrors(errors);
  const hit = flat[name] ?? Object.entries(flat).find(([p]) => p.startsWith(`${name}.`))?.[1];
  if (!hit) return undefined;
  return hit.type === 'server' ? hit.message : humanError(hit.message);
}

/** The API's `details` put on the fields they name (`rename` maps an API path to the form's field). */
export function serverErrors(
  details: { path: string; message: string }[] | undefined,
  setError: (name: never, error: { type: string; message: string }) => void,
  rename: (path: string) => string = (p) => p,
): void {
  const seen = new Set<string>();
  for (const d of details ?? []) {
    const name = rename(d.path);
    if (seen.has(name)) continue; // the first message a path
    seen.add(name);
    setError(name as never, { type: 'server', message: d.message });
  }
}
