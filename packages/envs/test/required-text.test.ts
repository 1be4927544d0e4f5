import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Rewrite, requiredText } from '../src/diagnostics/required-text.js';

describe('requiredText', () => {
  it('reads the fixed text a match must contain', () => {
    expect(requiredText(/\btwice\b/g)).toEqual(['twice']);
    expect(requiredText(/\b(up|down|left|right) once\b/g)).toEqual([' once']);
    expect(requiredText(/\bcan ?not\b|\bcan't\b/g)).toEqual(['can', "can't"]);
    expect(requiredText(/\b(?:the )?(?:boxes|crates)\b/g)).toEqual(['boxes', 'crates']);
    expect(requiredText(/(?<![@\w])\b(?:the )?walls\b/g)).toEqual(['walls']);
    expect(requiredText(/x+yz/g)).toEqual(['yz']);
    expect(requiredText(/(ab){2}c/g)).toEqual(['ab']);
  });

  it('knows none when a match can do without fixed text', () => {
    expect(requiredText(/[’‘]/g)).toBeNull();
    expect(requiredText(/\d+|up/g)).toBeNull();
    expect(requiredText(/(?:north)?\s*/g)).toBeNull();
    expect(requiredText(/(up|)/g)).toBeNull();
    expect(requiredText(/(a)\1/g)).toEqual(['a']);
    // case-insensitive rules are not filtered
    expect(requiredText(/\btwice\b/gi)).toBeNull();
  });
});

describe('Rewrite', () => {
  // rules of every shape the normaliser uses: alternations, optional parts, lookarounds, classes, back-references, functions
  const rules: Rewrite[] = [
    new Rewrite(/\b(up|down|left|right)\s*(?:-|→|->|=>|\/)\s*(?=(?:up|down|left|right)\b)/g, '$1, '),
    new Rewrite(/\bcan ?not\b|\bcan't\b/g, 'can not'),
    new Rewrite(/n't\b/g, ' not'),
    new Rewrite(/\b(?:the )?(\d+)(?:st|nd|rd|th) (box|crate|target|goal|hole)\b/g, ' $2 $1 '),
    new Rewrite(/\(\s*row\s*(\d+)\s*,?\s*(?:and\s+)?col(?:umn)?\s*(\d+)\s*\)/g, ' <$1_$2> '),
    new Rewrite(/\brow (\d+)\b(?!\s*,?\s*(?:and\s+)?col)/g, ' <$1_x> '),
    new Rewrite(/(?<!@)\b(?:my (?:current )?(?:position|location)|the player|me)\b/g, ' @player '),
    new Rewrite(/(?<![@\w])\b(?:the |a |another |one )?(?:box|crate)\s*(?:#|no\.?\s*)?(\d)\b/g, ' @box#$1 '),
    new Rewrite(/\b(\w+) \1\b/g, '$1'),
    new Rewrite(/\b[UDLR](?:\s*[,\s]\s*[UDLR]\b)+/g, (run) => run.toLowerCase()),
  ];
  const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
  const thinks = readdirSync(fixtures)
    .filter((f) => f.startsWith('reasoning-'))
    .flatMap((f) => (JSON.parse(readFileSync(fixtures + f, 'utf8')) as { think: string }[]).map((e) => e.think));

  it('gives what replace gives, on every labelled think text in both cases', () => {
    expect(thinks.length).toBeGreaterThan(1000);
    let changed = 0;
    for (const think of thinks)
      for (const text of [think, think.toLowerCase()])
        for (const r of rules) {
          const want = text.replace(r.re, r.to as string);
          if (want !== text) changed++;
          expect(r.apply(text)).toBe(want);
        }
    // the rules do match the texts (the comparison is not all no-ops)
    expect(changed).toBeGreaterThan(500);
  });
});
