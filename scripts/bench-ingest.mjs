// bench:ingest — 1,000 external trajectories of 5 turns through POST /api/runs/:id/ingest/trajectories,
// observation text only (the server rebuilds each board and diagnoses each step batch in the request),
// beside the same rows stored without either and stored with states and diagnostics checked beforehand,
// on a real Postgres (DATABASE_URL's server, else embedded).
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { benchApi, postgresCpuSeconds } from './bench-database.mjs';
import { insertTrajectories, rediagnoseStep } from '@starpo/db';
import { SokobanEnv, diagnoseStoredRows, renderSokoban } from '@starpo/envs';

const TRAJECTORIES = Number(process.env.BENCH_TRAJECTORIES ?? 1000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
const TURNS = 5;
const PER_STEP = 125; // a RAGEN-sized step batch (8 prompts × 16 rollouts = 128)
/** BENCH_PER_REQUEST=n: at most n trajectories a request (a client that posts each episode as it ends: 1). */
const PER_REQUEST = Math.min(1000, Number(process.env.BENCH_PER_REQUEST ?? 1000));
const MAX_BYTES = 1_000_000;
const log = (s) => process.stdout.write(`${s}\n`);

// The episodes first: an idle keep-alive connection would be closed under a long generation.
// Real Sokoban episodes (random moves), with think texts that make position claims, some false.
const env = new SokobanEnv({ observationFormat: 'grid_coord' });
const trajectories = [];
/** The states each trajectory saw (not posted: the server reads them from the text), for the stored-with-diagnostics row. */
const states = [];
for (let i = 0; i < TRAJECTORIES; i++) {
  env.reset(10_000 + i);
  const turns = [];
  for (let k = 0; k < TURNS; k++) {
    const s = env.snapshot();
    const [br, bc] = s.boxes[0];
    const action = env.actions[(i + k * 3) % 4];
    const think = `I am at (${s.player[0]}, ${s.player[1]}). The box is at (${br + (i % 4 === 0 ? 1 : 0)}, ${bc}). I will go ${action.toLowerCase()}.`;
    const observation = renderSokoban(s, 'grid_coord');
    (states[i] ??= []).push(s);
    const reward = env.step(action).reward;
    turns.push({
      observation,
      rawReply: `<think>${think}</think><answer>${action}</answer>`,
      think,
      answer: action,
      actions: [action],
      reward,
    });
  }
  trajectories.push({
    step: 1 + Math.floor(i / PER_STEP),
    split: 'train',
    group: Math.floor((i % PER_STEP) / 16),
    indexInGroup: (i % PER_STEP) % 16,
    seed: 10_000 + i,
    success: env.success,
    turns,
  });
  states[i].push(env.snapshot());
}
/** Requests as the Python client makes them: in order, at most 1,000 items (or BENCH_PER_REQUEST) and 1 MB each. */
const batches = [];
for (const t of trajectories) {
  const size = JSON.stringify(t).length + 1;
  const last = batches.at(-1);
  if (last && last.bytes + size < MAX_BYTES - 64 && last.items.length < PER_REQUEST) {
    last.items.push(t);
    last.bytes += size;
  } else batches.push({ items: [t], bytes: size + 20 });
}

const { database, db, base, cookie, close } = await benchApi({ ingestRateLimit: 100_000 }, { logger: ['error', 'warn'] });
const { token } = await (
  await fetch(`${base}/api/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: '{"name":"bench"}' })
).json();
const post = async (p, body) => {
  const res = await fetch(base + p, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
  return res.json();
};

log(
  `bench:ingest — ${TRAJECTORIES} trajectories × ${TURNS} turns (Sokoban grid_coord text, no snapshots), ${batches.length} requests ≤ 1 MB, Postgres ${database.embedded ? 'embedded' : 'from DATABASE_URL'}, ${os.cpus().length} cores`,
);

// 1. through the API: parse boards + store + diagnose each touched step batch, in the request. The
// requests are posted one at a time, in order, by a child process (as a Python client posts them).
// BENCH_ROUNDS=n repeats this into n fresh runs and prints the median: the machine drifts between minutes.
const bodiesFile = join(mkdtempSync(join(os.tmpdir(), 'bench-ingest-')), 'bodies.jsonl');
writeFileSync(bodiesFile, batches.map((b) => JSON.stringify({ trajectories: b.items })).join('\n'));
async function ingestRound() {
  const run = await post('/api/runs', { name: 'bench-ingest', external: true, config: { env: { name: 'sokoban' } } });
  const client = fork(fileURLToPath(new URL('./bench-ingest-client.mjs', import.meta.url)), [
    JSON.stringify({ url: base, token, path: `/api/runs/${run.id}/ingest/trajectories`, bodiesFile, concurrency: 1 }),
  ]);
  // how long the API's event loop is held at a time while it ingests (every other request waits that long)
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu0 = { node: process.cpuUsage(), pg: postgresCpuSeconds() };
  const {
    seconds: api,
    clientCpu,
    times,
    replies,
  } = await new Promise((resolve, reject) => (client.once('message', resolve), client.once('exit', reject)));
  const nodeCpu = process.cpuUsage(cpu0.node);
  const pgCpu = postgresCpuSeconds() - cpu0.pg;
  loop.disable();
  const diagnosed = replies.reduce((n, r) => n + r.diagnosed, 0);
  log(
    `CPU in ${api.toFixed(2)} s: API (with its diagnosis threads) ${((nodeCpu.user + nodeCpu.system) / 1e6).toFixed(2)} s, Postgres ${pgCpu.toFixed(2)} s, client ${clientCpu.toFixed(2)} s`,
  );
  if (process.env.BENCH_VERBOSE) log(`request times (ms): ${times.map((t) => t.toFixed(0)).join(' ')}`);
  if (PER_REQUEST === 1) {
    // each request re-reads and re-checks the step batch it joins: its time by its place in that batch
    const at = (lo, hi) => times.filter((_, k) => k % PER_STEP >= lo && k % PER_STEP < hi);
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    log(
      `one trajectory a request: mean ${mean(at(0, 16)).toFixed(1)} ms as one of the first 16 of its step batch, ${mean(at(PER_STEP - 16, PER_STEP)).toFixed(1)} ms as one of the last 16 (of ${PER_STEP})`,
    );
  }
  const flagged = await db.trajectory.count({ where: { runId: run.id, hallucinated: true } });
  log(
    `API ingestion + boards + diagnostics: ${api.toFixed(2)} s (${(TRAJECTORIES / api).toFixed(0)} trajectories/s, ${((TRAJECTORIES * TURNS) / api).toFixed(0)} turns/s; slowest request ${(Math.max(...times) / 1000).toFixed(2)} s; ${diagnosed} trajectory diagnoses, ${flagged} flagged hallucinated; event loop held up to ${(loop.max / 1e6).toFixed(0)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms)`,
  );
  return { run, seconds: api };
}
const rounds = [];
for (let r = 0; r < ROUNDS; r++) rounds.push(await ingestRound());
rmSync(dirname(bodiesFile), { recursive: true });
const { run, seconds: api } = rounds.at(-1);
if (ROUNDS > 1) {
  const rates = rounds.map((r) => (TRAJECTORIES * TURNS) / r.seconds).sort((a, b) => a - b);
  log(
    `API ingestion over ${ROUNDS} rounds: median ${((rates[Math.floor((ROUNDS - 1) / 2)] + rates[Math.floor(ROUNDS / 2)]) / 2).toFixed(0)} turns/s (${rates.map((x) => x.toFixed(0)).join(', ')})`,
  );
}

// 2. the same rows stored directly, without board parsing or diagnostics (the cost of storage alone),
// then with the states and the checker's diagnostics computed beforehand (the cost of storing them)
const rows = trajectories.map((t) => ({
  ...t,
  env: 'sokoban',
  totalReward: 0,
  numActions: TURNS,
  keptByFilter: null,
  turns: t.turns.map((u, index) => ({
    ...u,
    index,
    snapshot: {},
    parsedActions: u.actions,
    validActions: u.actions,
    formatOk: true,
    effectiveCount: 1,
    done: false,
    promptTokens: 0,
    responseTokens: 0,
    meanLogProb: null,
    meanEntropy: null,
  })),
}));
/** Stores `items` request by request into a new run: seconds, and the CPU of this process and of Postgres. */
async function storeDirectly(name, items) {
  const run = await post('/api/runs', { name, external: true, config: { env: { name: 'sokoban' } } });
  const cpu = { node: process.cpuUsage(), pg: postgresCpuSeconds() };
  const t = performance.now();
  let at = 0;
  for (const b of batches) {
    await insertTrajectories(db, run.id, items.slice(at, at + b.items.length));
    at += b.items.length;
  }
  const node = process.cpuUsage(cpu.node);
  return { seconds: (performance.now() - t) / 1000, node: (node.user + node.system) / 1e6, pg: postgresCpuSeconds() - cpu.pg };
}
const plain = await storeDirectly('bench-plain', rows);
const store = plain.seconds;
log(`store only (no boards, no diagnostics):  ${store.toFixed(2)} s`);
const diagnosedRows = rows.map((t, i) => ({
  ...t,
  finalSnapshot: states[i].at(-1),
  turns: t.turns.map((u, k) => ({ ...u, snapshot: states[i][k] })),
}));
for (let from = 0; from < diagnosedRows.length; from += PER_STEP) {
  const batch = diagnosedRows.slice(from, from + PER_STEP);
  const { results } = diagnoseStoredRows(
    batch.map((t) => ({ ...t, turns: t.turns.map((u) => ({ ...u, executed: u.validActions })) })),
    'train',
  );
  batch.forEach((t, k) => {
    t.flags = results[k].flags;
    t.hallucinated = t.flags.includes('hallucinated');
    t.turns.forEach((u, n) => (u.diagnostics = results[k].turns[n]));
  });
}
const withDiagnostics = await storeDirectly('bench-stored-diagnostics', diagnosedRows);
log(
  `store with states and diagnostics (checked beforehand, as the worker's sink writes them): ${withDiagnostics.seconds.toFixed(2)} s (${((TRAJECTORIES * TURNS) / withDiagnostics.seconds).toFixed(0)} turns/s; CPU: node ${withDiagnostics.node.toFixed(2)} s, Postgres ${withDiagnostics.pg.toFixed(2)} s)`,
);

// 3. re-computing the diagnostics of the ingested run (what npm run diagnose does)
const t2 = performance.now();
for (let step = 1; step <= Math.ceil(TRAJECTORIES / PER_STEP); step++) await rediagnoseStep(db, run.id, step, 'train', diagnoseStoredRows);
const rediag = (performance.now() - t2) / 1000;
log(`re-diagnosing the run (npm run diagnose): ${rediag.toFixed(2)} s`);
log(`ratio: ingestion with boards + diagnostics / store only = ${(api / store).toFixed(2)}×`);

await close();
