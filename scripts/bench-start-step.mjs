#!/usr/bin/env node
// One quick-cpu step on Sokoban from the shipped base, measured two ways on the same base and seeds:
// the stack `npm start` runs (API, dashboard and worker, run launched over the API) against the CLI's
// `starpo train --workers auto`. Prints the step and phase times side by side and their ratio (goal ≤ 1.3×).
// Both are timed by the trainer itself (timing_s/*); on a machine shared with other work the figures are noisy.
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isFinishedStatus } from '@starpo/contracts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-bench-start-'));
chmodSync(tmp, 0o755); // embedded Postgres runs as another user
// one step, no validation: the step alone is compared
const SET = ['training.steps=1', 'training.checkpointEvery=0', 'rollout.validation.every=0', 'rollout.validation.beforeTraining=false'];
const KEYS = ['timing_s/step', 'timing_s/gen', 'timing_s/old_log_prob', 'timing_s/update_actor'];

function cliStep() {
  const out = path.join(tmp, 'cli');
  execFileSync(
    process.execPath,
    [
      'packages/trainer/dist/cli/main.js',
      'train',
      '--preset',
      'quick-cpu',
      '--env',
      'sokoban',
      '--workers',
      'auto',
      '--out',
      out,
      '--set',
      ...SET,
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const lines = readFileSync(path.join(out, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return Object.assign({}, ...lines.filter((l) => l.step === 1).map((l) => l.metrics ?? l));
}

async function startStep() {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: '',
      STARPO_DATA_DIR: path.join(tmp, 'pg'),
      STARPO_PG_PORT: '0',
      API_PORT: '0',
      WEB_PORT: '0',
      STARPO_QUIET: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  try {
    while (!/\[starpo\] API\s+(\S+)/.test(log) || !/Dashboard/.test(log)) {
      if (child.exitCode !== null) throw new Error(`npm start exited:\n${log}`);
      await new Promise((r) => setTimeout(r, 300));
    }
    const api = /\[starpo\] API\s+(\S+)/.exec(log)[1];
    const signup = await fetch(`${api}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@lab.test', password: 'correct horse', name: 'Bench', teamName: 'bench' }),
    });
    const cookie = String(signup.headers.get('set-cookie')).split(';')[0];
    const tok = await (
      await fetch(`${api}/api/tokens`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: '{"name":"bench"}',
      })
    ).json();
    const auth = { authorization: `Bearer ${tok.token}`, 'content-type': 'application/json' };
    const config = {};
    for (const s of SET) {
      const [k, v] = s.split('=');
      const keys = k.split('.');
      let n = config;
      for (const key of keys.slice(0, -1)) n = n[key] ??= {};
      n[keys.at(-1)] = JSON.parse(v);
    }
    config.env = { name: 'sokoban' };
    const run = await (
      await fetch(`${api}/api/runs`, { method: 'POST', headers: auth, body: JSON.stringify({ preset: 'quick-cpu', config }) })
    ).json();
    for (;;) {
      const r = await (await fetch(`${api}/api/runs/${run.id}`, { headers: auth })).json();
      if (isFinishedStatus(r.status)) {
        if (r.status !== 'succeeded') throw new Error(`run ${r.status}: ${r.error ?? r.stopReason}`);
        break;
      }
      await new Promise((res) => setTimeout(res, 2000));
    }
    const series = await (await fetch(`${api}/api/runs/${run.id}/metrics?keys=${KEYS.join(',')}`, { headers: auth })).json();
    return Object.fromEntries(series.map((s) => [s.key, s.points.find((p) => p.step === 1)?.value]));
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    }
  }
}

try {
  console.log(
    `quick-cpu, Sokoban, one step from the shipped base (${os.availableParallelism()} cores, load ${os.loadavg()[0].toFixed(1)})`,
  );
  const start = await startStep();
  const cli = cliStep();
  console.log(`${'seconds'.padEnd(24)}${'npm start'.padStart(12)}${'CLI --workers auto'.padStart(20)}${'ratio'.padStart(8)}`);
  for (const k of KEYS) {
    const a = start[k];
    const b = cli[k];
    console.log(
      `${k.padEnd(24)}${a?.toFixed(1).padStart(12) ?? '–'}${b?.toFixed(1).padStart(20) ?? '–'}${a && b ? `${(a / b).toFixed(2)}×`.padStart(8) : ''}`,
    );
  }
  const ratio = start['timing_s/step'] / cli['timing_s/step'];
  console.log(`npm start / CLI: ${ratio.toFixed(2)}× (goal ≤ 1.3×); load after: ${os.loadavg()[0].toFixed(1)}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
