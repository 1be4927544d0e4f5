// Which texts a regular expression cannot match: most of the normaliser's rules match nothing in a
// given think text, and a substring search rules that out several times faster than the regex scan.
import { RegExpParser } from '@eslint-community/regexpp';
import type { Alternative, Element } from '@eslint-community/regexpp/ast';

/**
 * Strings of which every match of `re` contains at least one, or null when no such set is known
 * (a case-insensitive rule, or one that can match without any fixed text). Lookarounds,
 * classes and optional parts are treated as contributing nothing, so the answer errs towards null.
 */
export function requiredText(re: RegExp): string[] | null {
  if (re.flags.includes('i')) return null;
  const pattern = new RegExpParser({ ecmaVersion: 2025 }).parsePattern(re.source, 0, re.source.length, {
    unicode: re.flags.includes('u'),
    unicodeSets: re.flags.includes('v'),
  });
  return anyOf(pattern.alternatives);
}

/** One of the alternatives matches: each must require some text, and any of those will do. */
function anyOf(alternatives: Alternative[]): string[] | null {
  const out: string[] = [];
  for (const a of alternatives) {
    const need = sequence(a.elements);
    if (!need) return null;
    out.push(...need);
  }
  return [...new Set(out)];
}

/**
 * A sequence requires each of its parts: the runs of literal characters, and each group or
 * repeated part that requires something. The most selective one stands for the sequence.
 */
function sequence(elements: Element[]): string[] | null {
  const options: string[][] = [];
  let run = '';
  const endRun = () => {
    if (run) options.push([run]);
    run = '';
  };
  for (const e of elements) {
    if (e.type === 'Character') {
      run += String.fromCodePoint(e.value);
      continue;
    }
    // zero-width: no text of the match, and the characters around it stay one run
    if (e.type === 'Assertion' && (e.kind === 'word' || e.kind === 'start' || e.kind === 'end')) continue;
    endRun();
    const need = element(e);
    if (need) options.push(need);
  }
  endRun();
  if (!options.length) return null;
  // the set whose shortest member is longest: a rarer substring rejects more texts
  const shortest = (xs: string[]) => Math.min(...xs.map((x) => x.length));
  return options.reduce((best, o) => (shortest(o) > shortest(best) ? o : best));
}

function element(e: Element): string[] | null {
  switch (e.type) {
    case 'Character':
      return [String.fromCodePoint(e.value)];
    case 'Group':
    case 'CapturingGroup':
      return anyOf(e.alternatives);
    case 'Quantifier':
      return e.min >= 1 ? element(e.element) : null;
    default:
      return null;
  }
}

/**
 * `s.replace(re, to)`, skipped when `s` holds none of the rule's required texts (it could not
 * match): the result is the same string either way.
 */
export class Rewrite {
  /** Read on first use: parsing every rule at import would cost each process (and page) tens of milliseconds. */
  private need: string[] | null | undefined;
  constructor(
    readonly re: RegExp,
    readonly to: string | ((match: string, ...groups: string[]) => string),
  ) {}

  apply(s: string): string {
    return this.mayMatch(s) ? s.replace(this.re, this.to as string) : s;
  }

  private mayMatch(s: string): boolean {
    if (this.need === undefined) this.need = requiredText(this.re);
    if (!this.need) return true;
    for (const t of this.need) if (s.includes(t)) return true;
    return false;
  }
}
