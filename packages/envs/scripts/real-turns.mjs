// Real agent turns as a labelled set for the reasoning checker.
//   node real-turns.mjs packets --out DIR --size N --prefix ID  a.jsonl b.jsonl …
//     turns written by `starpo eval --turns`, shuffled together (seeded), cut into packets of N for labellers
//     who see the observation and the reply, never the checker
//   node real-turns.mjs merge --out FIXTURE.json --turns TURNS.json  labels-1.json labels-2.json …
//     the labels joined with each turn's state into the held-out format bench-diagnostics.mjs scores
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string' },
    turns: { type: 'string' },
    size: { type: 'string', default: '100' },
    prefix: { type: 'string', default: 'real' },
    seed: { type: 'string', default: '1' },
  },
});
const [command, ...files] = positionals;

/** mulberry32: a small seeded generator, so the packets are the same on every machine. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const readTurns = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ ...JSON.parse(l), source: path.basename(file, '.jsonl') }));

if (command === 'packets') {
  const turns = files.flatMap(readTurns);
  const random = rng(Number(values.seed));
  for (let i = turns.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [turns[i], turns[j]] = [turns[j], turns[i]];
  }
  const size = Number(values.size);
  mkdirSync(values.out, { recursive: true });
  const all = turns.map((t, i) => ({ id: `${values.prefix}-${String(i + 1).padStart(3, '0')}`, ...t }));
  // the full records (the checker's own verdicts included) stay with the set's maker, outside the packets' folder;
  // labellers get the text and the observation only
  writeFileSync(values.turns ?? path.join(values.out, '..', `${values.prefix}-turns.json`), JSON.stringify(all, null, 1));
  for (let p = 0; p * size < all.length; p++) {
    const packet = all.slice(p * size, (p + 1) * size).map((t) => ({ id: t.id, env: t.env, observation: t.observation, reply: t.reply }));
    writeFileSync(path.join(values.out, `packet-${p + 1}.json`), JSON.stringify(packet, null, 1));
  }
  console.log(`${all.length} turns in ${Math.ceil(all.length / size)} packets under ${values.out}`);
} else if (command === 'merge') {
  const byId = new Map(JSON.parse(readFileSync(values.turns, 'utf8')).map((t) => [t.id, t]));
  const labelled = files.flatMap((f) => JSON.parse(readFileSync(f, 'utf8')));
  const set = labelled.map((l) => {
    const t = byId.get(l.id);
    if (!t) throw new Error(`${l.id}: no such turn`);
    return {
      id: l.id,
      env: t.env,
      source: t.source,
      state: t.state,
      think: t.think,
      answer: t.answer,
      // a reply that breaks the format is checked as the product checks it: no claims are read from it
      formatOk: t.formatOk,
      claims: l.sentences.map((s) => ({ text: s.text, verdict: s.verdict })),
      contradicted: l.sentences.some((s) => s.verdict === 'false'),
      decided: l.decided,
      mismatch: l.mismatch,
      kinds: [t.source.replace(/^(heldout|dev)-/, '')],
    };
  });
  writeFileSync(values.out, `${JSON.stringify(set, null, 1)}\n`);
  console.log(`${set.length} labelled turns → ${values.out}`);
} else {
  console.error('usage: real-turns.mjs packets|merge …');
  process.exit(2);
}
