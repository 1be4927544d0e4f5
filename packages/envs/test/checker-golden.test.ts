import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { diagnoseTurn, type EnvSnapshot } from '../src/index.js';

/**
 * The checker's whole output on every labelled example, as a digest per example: a change that is
 * meant to be only faster (the normaliser, the claim reader) must leave every digest as it was.
 * A deliberate change of what the checker finds is recorded with UPDATE_GOLDEN=1, and the
 * examples it changed are listed by the failing run before that.
 */
interface Example {
  id: string;
  env: EnvSnapshot['env'];
  state: EnvSnapshot;
  think: string;
  answer?: string;
}
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const file = fileURLToPath(new URL('./golden/checker.json', import.meta.url));
const moves = (a: string | undefined) =>
  String(a ?? '')
    .split('||')
    .map((m) => m.trim())
    .filter(Boolean);

function digests(): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const name of readdirSync(fixtures)
    .filter((f) => f.startsWith('reasoning-'))
    .sort()) {
    const examples = JSON.parse(readFileSync(fixtures + name, 'utf8')) as Example[];
    out[name] = {};
    for (const e of examples) {
      const input = {
        env: e.env,
        think: e.think,
        formatOk: true,
        answerActions: moves(e.answer),
        executed: [],
        effectiveCount: 0,
        before: e.state,
        after: null,
      };
      const both = [diagnoseTurn(input), diagnoseTurn(input, { ruleGate: false })];
      out[name][e.id] = createHash('sha256').update(JSON.stringify(both)).digest('hex').slice(0, 16);
    }
  }
  return out;
}

describe('the checker on every labelled example', () => {
  const now = digests();
  if (process.env.UPDATE_GOLDEN) writeFileSync(file, JSON.stringify(now, null, 1) + '\n');
  const golden = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  it('finds what it found when the digests were recorded', () => {
    const changed = Object.entries(now).flatMap(([name, ds]) =>
      Object.entries(ds)
        .filter(([id, d]) => golden[name]?.[id] !== d)
        .map(([id]) => `${name} ${id}`),
    );
    expect(changed).toEqual([]);
    expect(Object.keys(now).sort()).toEqual(Object.keys(golden).sort());
  });
});
