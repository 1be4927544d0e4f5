// bench:api — ingestion throughput, live latency and query latency of the API on a real Postgres.
// Uses DATABASE_URL's server when set (a scratch database is created there), else an embedded one.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createApp } from '@starpo/api/bootstrap';
import { benchDatabase, postgresCpuSeconds } from './bench-database.mjs';
import { createDb, migrate, refreshStepCounts, upsertMetricPoints } from '@starpo/db';
import { DbSink } from '../apps/worker/dist/db-sink.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 1_000_000);
/** Turns stored in all at each measurement of the trajectory queries (BENCH_SCALES=1000000,10000000). */
const SCALES = (process.env.BENCH_SCALES ?? String(TURNS)).split(',').map(Number);
/** Live clients per measurement (BENCH_CLIENTS=20,1000). */
const CLIENT_COUNTS = (process.env.BENCH_CLIENTS ?? '20').split(',').map(Number);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
/** Batch-endpoint requests of 1,000 points (BENCH_REQUESTS=1000: a longer window, less of it the API's first, unoptimised requests). */
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
/** Metric points stored in all at each measurement of the metric queries (BENCH_POINT_SCALES=1000000,100000000). */
const POINT_SCALES = (process.env.BENCH_POINT_SCALES ?? '1000000,10000000').split(',').map(Number);
/** Sections to run (BENCH_ONLY=ingest,live,trajectories,metrics,runs; all by default). */
const ONLY = new Set((process.env.BENCH_ONLY ?? 'ingest,live,trajectories,metrics,runs').split(','));
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const log = (s) => process.stdout.write(`${s}\n`);

/**
 * BENCH_EXPLAIN=1: the SQL the API sends for one call of each main query is caught at the driver
 * (node-postgres' Pool, under Prisma too) and shown with its EXPLAIN ANALYZE plan at the largest scale.
 */
const EXPLAIN = Boolean(process.env.BENCH_EXPLAIN);
const captured = [];
let capturing = false;
if (EXPLAIN) {
  const query = pg.Pool.prototype.query;
  pg.Pool.prototype.query = function (config, values, cb) {
    if (capturing)
      captured.push(typeof config === 'string' ? { text: config, values } : { text: config.text, values: config.values ?? values });
    return query.call(this, config, values, cb);
  };
}
/** Call `call` once and print the plan of each statement it sent to the big tables. */
async function explain(label, call) {
  if (!EXPLAIN) return;
  captured.length = 0;
  capturing = true;
  await call();
  capturing = false;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  for (const { text, values } of captured.filter(
    (q) => /^\s*(SELECT|WITH)/i.test(q.text) && /trajectories|turns|runs|contradicted_claims|step_diagnostic_counts|metric_/.test(q.text),
  )) {
    const plan = (await c.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${text}`, values)).rows.map((r) => r['QUERY PLAN']);
    log(`\n#### ${label}\n\n\`\`\`sql\n${text.trim()}\n\`\`\`\n\n\`\`\`text\n${plan.join('\n')}\n\`\`\``);
  }
  await c.end();
}

const database = await benchDatabase();
const url = database.url;
await migrate(url);
const db = createDb(url, { max: 8 });
const app = await createApp({ databaseUrl: url, webOrigin: 'http://localhost:3000', ingestRateLimit: 100_000 }, { logger: false });
await app.listen(0, '127.0.0.1');
const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;
const api = async (method, p, body, token) => {
  const res = await fetch(base + p, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : res.json();
};
const signup = await fetch(`${base}/api/auth/signup`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: 'bench@lab.test', password: 'correct horse', name: 'Bench' }),
});
const cookie = signup.headers.get('set-cookie').split(';')[0];
const token = (
  await (
    await fetch(`${base}/api/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: '{"name":"bench"}' })
  ).json()
).token;
const newRun = (extra = {}) => api('POST', '/api/runs', { preset: 'quick-cpu', ...extra }, token);

log(`bench:api — Postgres ${database.embedded ? 'embedded' : 'from DATABASE_URL'}, ${os.cpus().length} cores`);

// 1. metric points through the worker's database sink (one call per training step, 100 keys a step)
if (ONLY.has('ingest')) {
  const run = await newRun();
  const sink = new DbSink(db, run.id);
  const keys = Array.from({ length: 100 }, (_, i) => `bench/key_${i}`);
  const steps = 2000;
  const t0 = performance.now();
  for (let s = 1; s <= steps; s++) await sink.metrics(s, Object.fromEntries(keys.map((k, i) => [k, Math.sin(s + i)])));
  await sink.flush();
  const sec = (performance.now() - t0) / 1000;
  log(
    `ingest via worker sink:   ${fmt((steps * keys.length) / sec)} points/s (${steps} steps × ${keys.length} keys, batched by the sink's flusher)`,
  );
}

// 2. metric points through the batch endpoint (1,000 points a request, 4 in flight), posted by a child process
if (ONLY.has('ingest')) {
  const run = await newRun({ external: true });
  const requests = REQUESTS;
  const child = fork(fileURLToPath(new URL('./bench-ingest-client.mjs', import.meta.url)), [
    JSON.stringify({ url: base, token, path: `/api/runs/${run.id}/ingest/metrics`, requests, concurrency: CONCURRENCY }),
  ]);
  const apiCpu = process.cpuUsage();
  const pgCpu = postgresCpuSeconds();
  const { seconds, clientCpu } = await new Promise((resolve, reject) => (child.once('message', resolve), child.once('exit', reject)));
  const { user, system } = process.cpuUsage(apiCpu);
  const stored = (await db.$queryRawUnsafe(`SELECT count(*)::int AS n FROM metric_points WHERE run_id = $1::uuid`, run.id))[0].n;
  if (stored !== requests * 1000) throw new Error(`the batch endpoint stored ${stored} of ${requests * 1000} points`);
  log(
    `ingest via batch endpoint: ${fmt((requests * 1000) / seconds)} points/s (${requests} requests × 1,000 points, ${CONCURRENCY} concurrent, from a child process)`,
  );
  // where the two cores went: the API process (this one), Postgres, and the posting client
  const pgSeconds = pgCpu === null ? null : postgresCpuSeconds() - pgCpu;
  log(
    `  CPU in ${seconds.toFixed(2)} s: API ${((user + system) / 1e6).toFixed(2)} s, Postgres ${pgSeconds === null ? '?' : pgSeconds.toFixed(2)} s, client ${clientCpu.toFixed(2)} s`,
  );
}

// 3. live latency: worker write → socket clients, for each client count (BENCH_CLIENTS, comma-separated); the
// clients live in a child process, so their decoding does not share the API's event loop
if (ONLY.has('live'))
  for (const clients of CLIENT_COUNTS) {
    const run = await newRun();
    const sink = new DbSink(db, run.id);
    const child = fork(fileURLToPath(new URL('./bench-live-clients.mjs', import.meta.url)), [
      JSON.stringify({ url: base, token, runId: run.id, clients }),
    ]);
    const message = (type) => new Promise((r, j) => (child.on('message', (m) => m.type === type && r(m)), child.once('exit', j)));
    await message('ready');
    const written = new Map();
    for (let step = 1; step <= 100; step++) {
      written.set(step, performance.timeOrigin + performance.now());
      await sink.metrics(step, { 'train/reward/mean': step, 'train/success': step / 100 });
      await sink.flush();
      await new Promise((r) => setTimeout(r, 20)); // a trainer's steps are seconds apart, not back to back
    }
    await new Promise((r) => setTimeout(r, 2000)); // the last events reach every client
    const answer = message('arrivals');
    child.send({ type: 'done' });
    const { arrivals } = await answer;
    const lat = Object.entries(arrivals).flatMap(([step, ts]) => ts.map((t) => t - written.get(Number(step))));
    const missing = clients * 100 - lat.length;
    log(
      `live latency (write → ${fmt(clients)} socket clients, 100 steps): p50 ${pct(lat, 50).toFixed(1)} ms, p95 ${pct(lat, 95).toFixed(1)} ms${missing ? `, ${fmt(missing)} events MISSING` : ''}`,
    );
  }

// 4. trajectory queries as the turn tables grow (BENCH_SCALES turns in all, e.g. 1000000,10000000): the
// queried run holds BENCH_TURNS turns (a paper-size run is about 160,000); filler runs make up the rest
/** Store `turns` turns (20 a trajectory, 128 trajectories a step) in run `runId`, generated in SQL. */
async function storeTurns(runId, turns) {
  const t0 = performance.now();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const trajectories = Math.ceil(turns / 20);
  const steps = Math.ceil(trajectories / 128);
  await c.query(
    `INSERT INTO trajectories (id, run_id, step, split, group_index, index_in_group, seed, environment, success, total_reward, num_turns, num_actions, kept_by_filter, flags)
     SELECT gen_random_uuid(), $1, 1 + (i / 128), 'train', (i % 128) / 16, i % 16, i, 'sokoban', i % 7 = 0, (i % 23) - 5.0, 20, 40, i % 2 = 0,
            CASE WHEN i % 11 = 0 THEN ARRAY['think-answer-mismatch'] WHEN i % 5 = 0 THEN ARRAY['hallucinated'] ELSE ARRAY[]::text[] END
     FROM generate_series(0, $2 - 1) AS i`,
    [runId, trajectories],
  );
  await c.query(
    `INSERT INTO turns (trajectory_id, index, observation, state_snapshot, raw_reply, think, answer, parsed_actions, valid_actions, format_ok, actions_valid, effective_count, reward, done, prompt_tokens, response_tokens)
     SELECT t.id, k, '######\n#_P__#\n#_X__#\n#__O_#\n#____#\n######', '{"env":"sokoban","player":[1,2]}'::jsonb,
            '<think>the box is below me, push it down</think><answer>Down</answer>', 'the box is below me, push it down', 'Down',
            ARRAY['Down'], ARRAY['Down'], true, true, 1, -0.1, k = 19, 60, 20
     FROM trajectories t CROSS JOIN generate_series(0, 19) AS k WHERE t.run_id = $1`,
    [runId],
  );
  // every fifth trajectory is hallucinated: its turns carry a contradicted claim of one of 8 kinds
  await c.query(`UPDATE trajectories SET hallucinated = true WHERE run_id = $1 AND 'hallucinated' = ANY(flags)`, [runId]);
  const claim = { pattern: `'kind ' || (t.seed % 8)`, text: 'the box is at (2, 2)', evidence: 'box is at (3, 2), not (2, 2)' };
  await c.query(
    `UPDATE turns u SET diagnostics = json_build_object('v', 1, 'contradicted', 1, 'claims', json_build_array(json_build_object(
       'kind', 'position', 'pattern', ${claim.pattern}, 'text', '${claim.text}', 'span', json_build_array(0, 19),
       'negated', false, 'verdict', 'contradicted', 'evidence', '${claim.evidence}')))
     FROM trajectories t WHERE t.id = u.trajectory_id AND t.run_id = $1 AND t.hallucinated`,
    [runId],
  );
  // as every writer of diagnostics does, index the contradicted claims
  await c.query(
    `INSERT INTO contradicted_claims (trajectory_id, turn, pattern, run_id, step, split, claims, text, evidence)
     SELECT t.id, k, ${claim.pattern}, t.run_id, t.step, t.split, 1, '${claim.text}', '${claim.evidence}'
     FROM trajectories t CROSS JOIN generate_series(0, 19) AS k WHERE t.run_id = $1 AND t.hallucinated`,
    [runId],
  );
  // and recount the steps they wrote
  const written = Array.from({ length: steps }, (_, i) => i + 1);
  await refreshStepCounts(
    c,
    written.map(() => runId),
    written,
  );
  await c.end();
  return { steps, seconds: (performance.now() - t0) / 1000 };
}

/** p50/p95 of each trajectory query on run `runId` (`steps` steps of trajectories). */
async function trajectoryQueries(runId, steps) {
  const ids = [];
  const listLat = [];
  const queries = [
    (s) => `?from=${s}&to=${s}&limit=100`,
    (s) => `?from=${s}&to=${s + 20}&success=true&limit=100`,
    (s) => `?from=${s}&flag=think-answer-mismatch&limit=50`,
    (s) => `?from=${s}&to=${s + 5}&minReward=10&split=train&group=3&limit=100`,
  ];
  for (let i = 0; i < 200; i++) {
    const s = 1 + ((i * 7919) % steps);
    const t1 = performance.now();
    const page = await api('GET', `/api/runs/${runId}/trajectories${queries[i % queries.length](s)}`, undefined, token);
    listLat.push(performance.now() - t1);
    if (page.items[0]) ids.push(page.items[0].id);
  }
  const replayLat = [];
  for (let i = 0; i < 200; i++) {
    const t1 = performance.now();
    const t = await api('GET', `/api/trajectories/${ids[i % ids.length]}`, undefined, token);
    replayLat.push(performance.now() - t1);
    if (t.turns.length !== 20) throw new Error('replay returned a partial trajectory');
  }
  const hallLat = [];
  const diagLat = [];
  for (let i = 0; i < 100; i++) {
    const s = 1 + ((i * 7919) % steps);
    let t1 = performance.now();
    await api('GET', `/api/runs/${runId}/trajectories?hallucinated=true&from=${s}&to=${s + 10}&limit=100`, undefined, token);
    hallLat.push(performance.now() - t1);
    t1 = performance.now();
    const d = await api('GET', `/api/runs/${runId}/diagnostics?from=${s}&to=${s + 10}`, undefined, token);
    diagLat.push(performance.now() - t1);
    if (s + 10 <= steps && d.contradicted.length !== 8) throw new Error('diagnostics summary is missing claim kinds');
  }
  // no step range: what the Diagnostics tab asks first; it reads all of the run's claim rows
  const wholeLat = [];
  for (let i = 0; i < 20; i++) {
    const t1 = performance.now();
    await api('GET', `/api/runs/${runId}/diagnostics`, undefined, token);
    wholeLat.push(performance.now() - t1);
  }
  const p = (xs) => ({ p50: pct(xs, 50), p95: pct(xs, 95) });
  return {
    'trajectory list (200 filtered pages)': p(listLat),
    'hallucinated trajectories in 10 steps (100)': p(hallLat),
    'diagnostics summary of 10 steps (100)': p(diagLat),
    'diagnostics summary of the whole run (20)': p(wholeLat),
    'trajectory replay (200, 20 turns each)': p(replayLat),
  };
}

if (ONLY.has('trajectories')) {
  const target = await newRun();
  const { steps } = await storeTurns(target.id, TURNS);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const columns = [];
  let total = TURNS;
  for (const scale of SCALES) {
    const t0 = performance.now();
    while (total < scale) {
      const filler = Math.min(2_000_000, scale - total);
      await storeTurns((await newRun()).id, filler);
      total += filler;
    }
    await c.query('ANALYZE trajectories; ANALYZE turns;');
    const stored = (await c.query('SELECT count(*)::int AS n FROM turns')).rows[0].n;
    // tables with their indexes and TOAST: what retention (POST /api/runs/:id/prune) frees per million turns
    const bytes = Number((await c.query(`SELECT pg_total_relation_size('turns') + pg_total_relation_size('trajectories') AS b`)).rows[0].b);
    log(
      `stored ${fmt(stored)} turns (${((performance.now() - t0) / 1000).toFixed(0)} s to add); disk ${fmt(bytes / 2 ** 20 / (stored / 1e6))} MiB per 1M turns`,
    );
    columns.push({ stored, results: await trajectoryQueries(target.id, steps) });
  }
  const mid = Math.floor(steps / 2);
  const page = await api('GET', `/api/runs/${target.id}/trajectories?from=${mid}&to=${mid + 20}&success=true&limit=20`, undefined, token);
  await explain('trajectory list, 20 steps, successes', () =>
    api('GET', `/api/runs/${target.id}/trajectories?from=${mid}&to=${mid + 20}&success=true&limit=100`, undefined, token),
  );
  await explain('trajectory list, next page (cursor)', () =>
    api(
      'GET',
      `/api/runs/${target.id}/trajectories?from=${mid}&to=${mid + 20}&success=true&limit=20&cursor=${page.nextCursor}`,
      undefined,
      token,
    ),
  );
  await explain('hallucinated trajectories of 10 steps', () =>
    api('GET', `/api/runs/${target.id}/trajectories?hallucinated=true&from=${mid}&to=${mid + 10}&limit=100`, undefined, token),
  );
  await explain('diagnostics summary of 10 steps', () =>
    api('GET', `/api/runs/${target.id}/diagnostics?from=${mid}&to=${mid + 10}`, undefined, token),
  );
  await explain('diagnostics summary of the whole run', () => api('GET', `/api/runs/${target.id}/diagnostics`, undefined, token));
  await explain('trajectory replay', () => api('GET', `/api/trajectories/${page.items[0].id}`, undefined, token));
  await c.end();
  log(`\nqueries on a run of ${fmt(TURNS)} turns, p50 / p95 ms, by turns stored in all:`);
  log(`| query | ${columns.map((col) => `${fmt(col.stored)} turns`).join(' | ')} |`);
  log(`|---|${columns.map(() => '---|').join('')}`);
  for (const q of Object.keys(columns[0].results))
    log(`| ${q} | ${columns.map((col) => `${col.results[q].p50.toFixed(1)} / ${col.results[q].p95.toFixed(1)}`).join(' | ')} |`);
  log('');
}

// 5. metric queries as the stored points grow (BENCH_POINT_SCALES points in all): the queried run holds
// 100 keys × 10,000 steps (1,000,000 points, a long run); filler runs of the same shape make up the rest.
// Every run is written through upsertMetricPoints, 64 steps × 100 keys a call (whole blocks).
async function storePoints(runId, steps) {
  const keys = Array.from({ length: 100 }, (_, k) => `train/metric_${k}`);
  for (let s0 = 0; s0 < steps; s0 += 64) {
    const points = [];
    for (let s = s0; s < Math.min(steps, s0 + 64); s++)
      for (const [k, key] of keys.entries()) points.push({ key, step: s, value: Math.sin(s / 100 + k) });
    await upsertMetricPoints(db, runId, points);
  }
}

/** p50/p95 of the metric queries of run `runId` (10,000 steps); each whole-history read asks a point budget not asked before, past the cache. */
async function metricQueries(runId, other, round) {
  const time = async (n, fn) => {
    const lat = [];
    for (let i = 0; i < n; i++) {
      const t1 = performance.now();
      await fn(i);
      lat.push(performance.now() - t1);
    }
    return { p50: pct(lat, 50), p95: pct(lat, 95) };
  };
  const keys = (i) => [0, 1, 2, 3].map((k) => `train/metric_${(i * 4 + k) % 100}`).join(',');
  return {
    'whole-history chart, 4 keys, ~1,000 points each (100)': await time(100, (i) =>
      api('GET', `/api/runs/${runId}/metrics?keys=${keys(i)}&maxPoints=${1000 + round * 100 + i}`, undefined, token),
    ),
    'step range 2,000 steps downsampled, 4 keys (100)': await time(100, (i) =>
      api(
        'GET',
        `/api/runs/${runId}/metrics?keys=${keys(i)}&from=${(i * 79) % 8000}&to=${((i * 79) % 8000) + 2000}&maxPoints=500`,
        undefined,
        token,
      ),
    ),
    'step range 200 steps, every point, 4 keys (100)': await time(100, (i) =>
      api('GET', `/api/runs/${runId}/metrics?keys=${keys(i)}&from=${(i * 97) % 9800}&to=${((i * 97) % 9800) + 199}`, undefined, token),
    ),
    'compare 2 runs, whole history, 4 keys (100)': await time(100, (i) =>
      api('GET', `/api/metrics?runs=${runId},${other}&keys=${keys(i)}&maxPoints=${1000 + round * 100 + i}`, undefined, token),
    ),
    'export a whole series, 1 key, 10,000 points (20)': await time(20, (i) =>
      api('GET', `/api/runs/${runId}/metrics?keys=train/metric_${i}`, undefined, token),
    ),
  };
}

if (ONLY.has('metrics')) {
  const t0 = performance.now();
  const target = await newRun();
  const other = await newRun();
  await storePoints(target.id, 10_000);
  await storePoints(other.id, 10_000);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const columns = [];
  let total = 2_000_000;
  for (const scale of POINT_SCALES) {
    while (total < scale) {
      await storePoints((await newRun()).id, 10_000);
      total += 1_000_000;
    }
    await c.query('ANALYZE metric_blocks; ANALYZE metric_summaries;');
    const stored = Number((await c.query('SELECT sum(n) AS n FROM metric_blocks')).rows[0].n);
    const bytes = Number((await c.query(`SELECT pg_total_relation_size('metric_blocks') AS b`)).rows[0].b);
    log(
      `stored ${fmt(stored)} metric points (${((performance.now() - t0) / 1000).toFixed(0)} s so far); disk ${fmt(bytes / 2 ** 20 / (stored / 1e6))} MiB per 1M points`,
    );
    columns.push({ stored, results: await metricQueries(target.id, other.id, columns.length) });
  }
  await c.end();
  await explain('metric whole-history chart, 4 keys', () =>
    api(
      'GET',
      `/api/runs/${target.id}/metrics?keys=train/metric_1,train/metric_2,train/metric_3,train/metric_4&maxPoints=999`,
      undefined,
      token,
    ),
  );
  await explain('metric step range, every point', () =>
    api('GET', `/api/runs/${target.id}/metrics?keys=train/metric_1&from=5000&to=5199`, undefined, token),
  );
  log(`\nmetric queries on a run of 1,000,000 points (100 keys × 10,000 steps), p50 / p95 ms, by points stored in all:`);
  log(`| query | ${columns.map((col) => `${fmt(col.stored)} points`).join(' | ')} |`);
  log(`|---|${columns.map(() => '---|').join('')}`);
  for (const q of Object.keys(columns[0].results))
    log(`| ${q} | ${columns.map((col) => `${col.results[q].p50.toFixed(1)} / ${col.results[q].p95.toFixed(1)}`).join(' | ')} |`);
  log('');
}

// 6. the runs list with 10,000 runs in the team (filters, search, sort, cursor pages)
if (ONLY.has('runs')) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { team_id: team, user_id: owner } = (
    await c.query(`SELECT m.team_id, m.user_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = 'bench@lab.test'`)
  ).rows[0];
  await c.query(
    `INSERT INTO runs (id, team_id, owner_id, name, tags, preset, config, environment, algorithm, status, current_step, total_steps, created_at)
     SELECT gen_random_uuid(), $1, $2, 'run ' || i, ARRAY['sweep-' || (i % 10)], 'quick-cpu', '{}'::jsonb,
            (ARRAY['sokoban', 'frozenlake', 'bandit'])[1 + i % 3], 'grpo',
            (ARRAY['queued', 'running', 'succeeded', 'failed', 'cancelled'])[1 + i % 5]::"RunStatus", i % 40, 40, now() - i * interval '1 minute'
     FROM generate_series(1, 10000) AS i`,
    [team, owner],
  );
  await c.query(
    `INSERT INTO metric_summaries (run_id, key, step, value, max_value, min_value, updated_at)
     SELECT id, 'val/success', current_step, random(), 1, 0, now() FROM runs WHERE team_id = $1`,
    [team],
  );
  await c.query('ANALYZE runs; ANALYZE metric_summaries;');
  const total = (await c.query('SELECT count(*)::int AS n FROM runs WHERE team_id = $1', [team])).rows[0].n;
  await c.end();
  const lists = [
    '',
    '?status=running,failed',
    '?q=run 12',
    '?sort=name',
    '?environment=bandit&tag=sweep-3',
    '?sort=-name&status=succeeded',
  ];
  const lat = [];
  let cursor = null;
  for (let i = 0; i < 200; i++) {
    const q = i % 7 === 6 && cursor ? `?cursor=${cursor}` : lists[i % lists.length];
    const t1 = performance.now();
    const page = await api('GET', `/api/runs${q}`, undefined, token);
    lat.push(performance.now() - t1);
    cursor = page.nextCursor ?? null;
  }
  log(
    `runs list, ${fmt(total)} runs in the team (200 pages: filters, search, sort, cursors): p50 ${pct(lat, 50).toFixed(1)} ms, p95 ${pct(lat, 95).toFixed(1)} ms`,
  );
  await explain('runs list, first page, two statuses', () => api('GET', '/api/runs?status=running,failed', undefined, token));
  await explain('runs list, search', () => api('GET', '/api/runs?q=run 12', undefined, token));
}

await app.close();
await db.$disconnect();
await database.close();
process.exit(0);
