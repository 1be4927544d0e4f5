// bench:load — the dashboard's reads under many concurrent clients (a wall screen and a room of
// laptops on one tracking server): the runs list, a run's metric charts and a trajectory page, each
// by one client and then by BENCH_LOAD_CLIENTS (200) at once, side by side, on a real Postgres
// (DATABASE_URL's server, else embedded). The clients sign in as the dashboard does (session cookie)
// and run in a child process (autocannon), so their HTTP work does not share the API's event loop.
import { fork } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { insertTrajectories, upsertMetricPoints } from '@starpo/db';
import { benchApi, postgresCpuSeconds } from './bench-database.mjs';

const CLIENTS = Number(process.env.BENCH_LOAD_CLIENTS ?? 200);
/** Seconds each measurement lasts (BENCH_LOAD_SECONDS=20 for steadier figures). */
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
/** Only the routes whose label contains this (BENCH_LOAD_ONLY=charts), for measuring one change. */
const ONLY = process.env.BENCH_LOAD_ONLY ?? '';
const KEYS = 30;
/** What a browser sends: the charts' answers then come gzipped (one row asks for the plain bytes, beside it). */
const ACCEPT_ENCODING = 'gzip, deflate, br';
const STEPS = 2_000;
const log = (s) => process.stdout.write(`${s}\n`);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const { database, db, base, cookie, close } = await benchApi({}, { dbMax: 4 });

// a team of three runs, as a small lab has: one finished with its charts and trajectories, one
// running, one queued
const newRun = async (name) => {
  const res = await fetch(`${base}/api/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ preset: 'quick-cpu', name }),
  });
  if (!res.ok) throw new Error(`POST /api/runs: ${res.status} ${await res.text()}`);
  return (await res.json()).id;
};
const finished = await newRun('finished');
const running = await newRun('running');
await newRun('queued');
const keys = Array.from({ length: KEYS }, (_, k) => (k === 0 ? 'train/success' : k === 1 ? 'val/success' : `train/metric_${k}`));
for (const run of [finished, running])
  for (let s0 = 0; s0 < STEPS; s0 += 64) {
    const points = [];
    for (let s = s0; s < Math.min(STEPS, s0 + 64); s++)
      for (const [k, key] of keys.entries()) points.push({ key, step: s, value: Math.sin(s / 50 + k) });
    await upsertMetricPoints(db, run, points);
  }
const trajectories = [];
for (let step = 1; step <= 40; step++)
  for (let i = 0; i < 64; i++)
    trajectories.push({
      step,
      split: 'train',
      group: Math.floor(i / 8),
      indexInGroup: i % 8,
      seed: step * 100 + i,
      env: 'sokoban',
      success: i % 3 === 0,
      totalReward: (i % 7) - 2,
      numActions: 5,
      keptByFilter: true,
      turns: Array.from({ length: 5 }, (_, index) => ({
        index,
        observation: '######\n#_P__#\n#_X__#\n#__O_#\n#____#\n######',
        snapshot: { env: 'sokoban', player: [1, 2] },
        rawReply: '<think>the box is below me, push it down</think><answer>Down</answer>',
        think: 'the box is below me, push it down',
        answer: 'Down',
        parsedActions: ['Down'],
        validActions: ['Down'],
        formatOk: true,
        effectiveCount: 1,
        reward: -0.1,
        done: index === 4,
        promptTokens: 60,
        responseTokens: 20,
        meanLogProb: null,
        meanEntropy: null,
      })),
    });
await insertTrajectories(db, finished, trajectories);
await db.$executeRawUnsafe(
  `UPDATE runs SET status = CASE WHEN id = $1::uuid THEN 'succeeded' ELSE 'running' END::"RunStatus", current_step = ${STEPS},
     started_at = now(), finished_at = CASE WHEN id = $1::uuid THEN now() END, heartbeat_at = now() WHERE id IN ($1::uuid, $2::uuid)`,
  finished,
  running,
);

const routes = [
  { label: 'runs list', path: '/api/runs?limit=50' },
  { label: "a finished run's charts", path: `/api/runs/${finished}/metrics?maxPoints=600&format=columns` },
  {
    label: "a finished run's charts, uncompressed (Accept-Encoding: identity)",
    path: `/api/runs/${finished}/metrics?maxPoints=600&format=columns`,
    encoding: 'identity',
  },
  { label: 'a trajectory page', path: `/api/runs/${finished}/trajectories?limit=50` },
  {
    label: "a finished run's charts, revalidated (If-None-Match)",
    path: `/api/runs/${finished}/metrics?maxPoints=600&format=columns`,
    revalidate: true,
  },
];

/** `connections` clients on `route` for SECONDS: requests/s, latency percentiles, 5xx answers. */
async function load(route, connections, seconds = SECONDS) {
  const child = fork(fileURLToPath(new URL('./bench-load-client.mjs', import.meta.url)), [
    JSON.stringify({
      url: base + route.path,
      headers: { cookie, 'accept-encoding': route.encoding ?? ACCEPT_ENCODING },
      connections,
      seconds,
      revalidate: route.revalidate ?? false,
    }),
  ]);
  const pg0 = postgresCpuSeconds();
  const cpu0 = process.cpuUsage();
  const r = await new Promise((resolve, reject) => (child.once('message', resolve), child.once('exit', reject)));
  const cpu = process.cpuUsage(cpu0);
  const sorted = r.latencies.sort((a, b) => a - b);
  const count = (lo, hi) => Object.entries(r.status).reduce((n, [s, c]) => (Number(s) >= lo && Number(s) < hi ? n + c : n), 0);
  return {
    rps: r.requests / r.seconds,
    p50: pct(sorted, 50),
    p95: pct(sorted, 95),
    p99: pct(sorted, 99),
    s5xx: count(500, 600),
    s304: count(304, 305),
    other: count(0, 200) + count(300, 304) + count(305, 500) + r.errors + r.timeouts,
    apiCpu: (cpu.user + cpu.system) / 1e6 / r.seconds,
    clientCpu: r.cpu / r.seconds,
    pgCpu: pg0 === null ? null : (postgresCpuSeconds() - pg0) / r.seconds,
  };
}

log(
  `bench:load — ${CLIENTS} concurrent clients vs 1, ${SECONDS} s each, Postgres ${database.embedded ? 'embedded' : 'from DATABASE_URL'}, ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
// the bytes a chart's answer puts on the wire, plain and as a browser gets it (node:http does not decompress)
const wireBytes = (encoding) =>
  new Promise((resolve, reject) => {
    const url = new URL(`${base}/api/runs/${finished}/metrics?maxPoints=600&format=columns`);
    http
      .get(url, { headers: { cookie, 'accept-encoding': encoding } }, (res) => {
        let n = 0;
        res.on('data', (c) => (n += c.length)).on('end', () => resolve(n));
      })
      .on('error', reject);
  });
log(`  a chart's answer: ${fmt(await wireBytes('identity'))} bytes plain, ${fmt(await wireBytes(ACCEPT_ENCODING))} gzipped`);
const rows = [];
for (const route of routes.filter((r) => r.label.includes(ONLY))) {
  await load(route, 8, 2); // warm the JIT, the pool and the caches first
  const one = await load(route, 1);
  const many = await load(route, CLIENTS);
  rows.push({ route, one, many });
  log(`  ${route.label}: ${fmt(one.rps)} → ${fmt(many.rps)} requests/s`);
}
const ms = (x) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 1 : 0) : '–');
const cell = (m) => `${fmt(m.rps)} | ${ms(m.p50)} / ${ms(m.p95)} / ${ms(m.p99)} | ${m.s5xx}`;
log('');
log(
  `| route | 1 client: req/s | p50 / p95 / p99 ms | 5xx | ${CLIENTS} clients: req/s | p50 / p95 / p99 ms | 5xx | 304 | other | CPU s/s: API, Postgres, clients |`,
);
log('|---|---|---|---|---|---|---|---|---|---|');
for (const { route, one, many } of rows)
  log(
    `| ${route.label} | ${cell(one)} | ${cell(many)} | ${many.s304} | ${many.other} | ${many.apiCpu.toFixed(2)}, ${many.pgCpu === null ? '?' : many.pgCpu.toFixed(2)}, ${many.clientCpu.toFixed(2)} |`,
  );
log('');
log(
  `goal (${CLIENTS} clients): 0 × 5xx, p95 < 300 ms, ≥ 1,000 requests/s — ${rows
    .filter(({ route }) => !route.encoding && !route.revalidate)
    .map(({ route, many }) => `${route.label}: ${many.s5xx === 0 && many.p95 < 300 && many.rps >= 1000 ? 'met' : 'NOT met'}`)
    .join('; ')}`,
);

await close();
process.exit(0);
