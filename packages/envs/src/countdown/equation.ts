/** An arithmetic expression over integers with + − × ÷ and parentheses, read without `eval`. */
export interface Equation {
  value: number;
  /** The numbers it uses, in order of appearance. */
  numbers: number[];
}

const TOKEN = /\s*(\d+|[-+*/()×÷−])/y;
const OPERATOR: Record<string, string> = { '×': '*', '÷': '/', '−': '-' };

/** The expression's value and numbers, or null when it is not one (an answer's trailing "= 24" is dropped). */
export function readEquation(text: string): Equation | null {
  const source = text.replace(/=\s*-?\d+(\.\d+)?\s*$/, '').trim();
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    const m = TOKEN.exec(source);
    if (!m) return null;
    tokens.push(OPERATOR[m[1]!] ?? m[1]!);
  }
  if (tokens.length === 0 || tokens.length > 64) return null;
  const numbers: number[] = [];
  let i = 0;
  // expr := term (('+'|'-') term)* ; term := factor (('*'|'/') factor)* ; factor := number | '(' expr ')'
  const factor = (): number => {
    const t = tokens[i++];
    if (t === '(') {
      const v = expr();
      if (tokens[i++] !== ')') throw new Error('unclosed parenthesis');
      return v;
    }
    if (t === undefined || !/^\d+$/.test(t)) throw new Error('expected a number');
    numbers.push(Number(t));
    return Number(t);
  };
  const term = (): number => {
    let v = factor();
    while (tokens[i] === '*' || tokens[i] === '/') v = tokens[i++] === '*' ? v * factor() : v / factor();
    return v;
  };
  const expr = (): number => {
    let v = term();
    while (tokens[i] === '+' || tokens[i] === '-') v = tokens[i++] === '+' ? v + term() : v - term();
    return v;
  };
  try {
    const value = expr();
    return i === tokens.length && Number.isFinite(value) ? { value, numbers } : null;
  } catch {
    return null;
  }
}

/** The same numbers, each used exactly once. */
export function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  const sorted = (x: readonly number[]) => [...x].sort((p, q) => p - q).join(',');
  return sorted(a) === sorted(b);
}

/** Every way to combine `numbers` (all of them, each once) with + − × ÷, as [value, text] pairs. */
function* combinations(items: [number, string][]): Generator<[number, string]> {
  if (items.length === 1) {
    yield items[0]!;
    return;
  }
  for (let a = 0; a < items.length; a++)
    for (let b = 0; b < items.length; b++) {
      if (a === b) continue;
      const [x, xs] = items[a]!;
      const [y, ys] = items[b]!;
      const rest = items.filter((_, k) => k !== a && k !== b);
      // the last combination stands bare, inner ones in parentheses
      const wrap = (s: string) => (rest.length ? `(${s})` : s);
      const next: [number, string][] = [
        [x + y, wrap(`${xs} + ${ys}`)],
        [x - y, wrap(`${xs} - ${ys}`)],
        [x * y, wrap(`${xs} * ${ys}`)],
      ];
      if (y !== 0) next.push([x / y, wrap(`${xs} / ${ys}`)]);
      for (const n of next) yield* combinations([...rest, n]);
    }
}

/** An equation over all of `numbers` that equals `target`; null when none exists. */
export function solveCountdown(numbers: readonly number[], target: number): string | null {
  for (const [value, text] of combinations(numbers.map((n) => [n, String(n)]))) {
    if (Math.abs(value - target) < 1e-9) return text;
  }
  return null;
}
