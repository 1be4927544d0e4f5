// bench:api — ingestion throughput, live latency and query latency of the API on a real Postgres.
// Uses DATABASE_URL's server when set (a scratch database is created there), else an embedded one.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { io } from 'socket.io-client';
import { createApp } from '@starpo/api/bootstrap';
import { benchDatabase } from './bench-database.mjs';
import { createDb, migrate } from '@starpo/db';
import { DbSink } from '../apps/worker/dist/db-sink.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 1_000_000);
const CLIENTS = 20;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
/** Sections to run (BENCH_ONLY=ingest,live,trajectories,runs; all by default). */
const ONLY = new Set((process.env.BENCH_ONLY ?? 'ingest,live,trajectories,runs').split(','));
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const log = (s) => process.stdout.write(`${s}\n`);

const database = await benchDatabase();
const url = database.url;
await migrate(url);
const db = createDb(url, { max: 8 });
const app = await createApp({ databaseUrl: url, webOrigin: 'http://localhost:3000' }, { logger: false });
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

// 2. metric points through the batch endpoint (1,000 points a request, 4 in flight)
if (ONLY.has('ingest')) {
  const run = await newRun({ external: true });
  const requests = 200;
  const body = (r) => ({
    points: Array.from({ length: 1000 }, (_, i) => ({ key: `bench/key_${i % 50}`, step: r * 20 + Math.floor(i / 50), value: i })),
  });
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests) await api('POST', `/api/runs/${run.id}/ingest/metrics`, body(next++), token);
    }),
  );
  const sec = (performance.now() - t0) / 1000;
  log(
    `ingest via batch endpoint: ${fmt((requests * 1000) / sec)} points/s (${requests} requests × 1,000 points, ${CONCURRENCY} concurrent)`,
  );
}

// 3. live latency: worker write → socket client, 20 subscribed clients
if (ONLY.has('live')) {
  const run = await newRun();
  const sink = new DbSink(db, run.id);
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const s = io(base, { auth: { token }, transports: ['websocket'], reconnection: false });
      await new Promise((r, j) => (s.once('connect', r), s.once('connect_error', j)));
      await s.emitWithAck('subscribe', { runId: run.id });
      return s;
    }),
  );
  const lat = [];
  for (let step = 1; step <= 100; step++) {
    const t0 = performance.now();
    const got = clients.map((c) => new Promise((r) => c.once('metrics', () => r(performance.now() - t0))));
    await sink.metrics(step, { 'train/reward/mean': step, 'train/success': step / 100 });
    lat.push(...(await Promise.all(got)));
  }
  for (const c of clients) c.disconnect();
  log(`live latency (write → ${CLIENTS} socket clients, 100 steps): p50 ${pct(lat, 50).toFixed(1)} ms, p95 ${pct(lat, 95).toFixed(1)} ms`);
}

// 4. trajectory list and replay with TURNS turns stored (generated in SQL: 20 turns a trajectory)
if (ONLY.has('trajectories')) {
  const run = await newRun();
  const trajectories = Math.ceil(TURNS / 20);
  const steps = Math.ceil(trajectories / 128);
  const t0 = performance.now();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(
    `INSERT INTO trajectories (id, run_id, step, split, group_index, index_in_group, seed, environment, success, total_reward, num_turns, num_actions, kept_by_filter, flags)
     SELECT gen_random_uuid(), $1, 1 + (i / 128), 'train', (i % 128) / 16, i % 16, i, 'sokoban', i % 7 = 0, (i % 23) - 5.0, 20, 40, i % 2 = 0,
            CASE WHEN i % 11 = 0 THEN ARRAY['think-answer-mismatch'] WHEN i % 5 = 0 THEN ARRAY['hallucinated'] ELSE ARRAY[]::text[] END
     FROM generate_series(0, $2 - 1) AS i`,
    [run.id, trajectories],
  );
  await c.query(
    `INSERT INTO turns (trajectory_id, index, observation, state_snapshot, raw_reply, think, answer, parsed_actions, valid_actions, format_ok, actions_valid, effective_count, reward, done, prompt_tokens, response_tokens)
     SELECT t.id, k, '######\n#_P__#\n#_X__#\n#__O_#\n#____#\n######', '{"env":"sokoban","player":[1,2]}'::jsonb,
            '<think>the box is below me, push it down</think><answer>Down</answer>', 'the box is below me, push it down', 'Down',
            ARRAY['Down'], ARRAY['Down'], true, true, 1, -0.1, k = 19, 60, 20
     FROM trajectories t CROSS JOIN generate_series(0, 19) AS k WHERE t.run_id = $1`,
    [run.id],
  );
  // every fifth trajectory is hallucinated: its turns carry a contradicted claim of one of 8 kinds
  await c.query(`UPDATE trajectories SET hallucinated = true WHERE run_id = $1 AND 'hallucinated' = ANY(flags)`, [run.id]);
  await c.query(
    `UPDATE turns u SET diagnostics = jsonb_build_object('v', 1, 'contradicted', 1, 'claims', jsonb_build_array(jsonb_build_object(
       'kind', 'position', 'pattern', 'kind ' || (t.seed % 8), 'text', 'the box is at (2, 2)', 'span', jsonb_build_array(0, 19),
       'negated', false, 'verdict', 'contradicted', 'evidence', 'box is at (3, 2), not (2, 2)')))
     FROM trajectories t WHERE t.id = u.trajectory_id AND t.run_id = $1 AND t.hallucinated`,
    [run.id],
  );
  await c.query('ANALYZE trajectories; ANALYZE turns;');
  const stored = (await c.query('SELECT count(*)::int AS n FROM turns')).rows[0].n;
  // tables with their indexes and TOAST: what retention (POST /api/runs/:id/prune) frees per million turns
  const bytes = Number((await c.query(`SELECT pg_total_relation_size('turns') + pg_total_relation_size('trajectories') AS b`)).rows[0].b);
  await c.end();
  log(
    `stored ${fmt(stored)} turns in ${fmt(trajectories)} trajectories over ${steps} steps (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  log(`disk: ${fmt(bytes / 2 ** 20 / (stored / 1e6))} MiB per 1M turns (turns + trajectories with indexes)`);

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
    const page = await api('GET', `/api/runs/${run.id}/trajectories${queries[i % queries.length](s)}`, undefined, token);
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
  log(`trajectory list (200 filtered pages): p50 ${pct(listLat, 50).toFixed(1)} ms, p95 ${pct(listLat, 95).toFixed(1)} ms`);
  const hallLat = [];
  const diagLat = [];
  for (let i = 0; i < 100; i++) {
    const s = 1 + ((i * 7919) % steps);
    let t1 = performance.now();
    await api('GET', `/api/runs/${run.id}/trajectories?hallucinated=true&from=${s}&to=${s + 10}&limit=100`, undefined, token);
    hallLat.push(performance.now() - t1);
    t1 = performance.now();
    const d = await api('GET', `/api/runs/${run.id}/diagnostics?from=${s}&to=${s + 10}`, undefined, token);
    diagLat.push(performance.now() - t1);
    if (s + 10 <= steps && d.contradicted.length !== 8) throw new Error('diagnostics summary is missing claim kinds');
  }
  log(`hallucinated trajectories of a run in 10 steps (100): p50 ${pct(hallLat, 50).toFixed(1)} ms, p95 ${pct(hallLat, 95).toFixed(1)} ms`);
  log(`diagnostics summary of 10 steps (100): p50 ${pct(diagLat, 50).toFixed(1)} ms, p95 ${pct(diagLat, 95).toFixed(1)} ms`);
  log(`trajectory replay (200, 20 turns each): p50 ${pct(replayLat, 50).toFixed(1)} ms, p95 ${pct(replayLat, 95).toFixed(1)} ms`);
}

// 5. the runs list with 10,000 runs in the team (filters, search, sort, cursor pages)
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
}

await app.close();
await db.$disconnect();
await database.close();
process.exit(0);
