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
