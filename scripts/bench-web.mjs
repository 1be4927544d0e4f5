/* global document, window */
// bench:web — time until the first screen of a page with 20 charts × 5 runs × 10,000 points is drawn
// (1280×900: every chart on it has its data and its canvas; the charts below are drawn as they come
// near the screen), and, beside it, until all 20 are drawn in a window tall enough to show them all.
// Starts the whole system (scripts/start.mjs on a temporary embedded Postgres), feeds 5 external
// runs through the batch ingestion endpoint, then opens the compare page in Debian's chromium; then
// times the first run's page (its first charts drawn) and an episode replay (its board drawn) the same way.
//
// Before/after in one run: BEFORE=<checkout with its own build> measures that tree first, or
// BEFORE_REF=<git ref> exports the ref to a temporary directory and builds it there (minutes);
// the two arms are then printed side by side with their ratio. BENCH_PROFILE=<file> writes the cold
// load's CPU profile; BENCH_HOLD=1 keeps the last arm's system up (with its data) until Ctrl-C;
// BENCH_BROWSER_UI=1 starts Chromium without the flags of scripts/chromium.mjs (each new window then
// also starts the browser's omnibox WebUI beside the page).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SokobanEnv } from '@starpo/envs';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath, HEADLESS_ARGS } from './chromium.mjs';

const RUNS = 5;
const CHARTS = 20;
const POINTS = Number(process.env.BENCH_POINTS ?? 10_000);
const TARGET_MS = 1500;
const exe = chromiumPath();
if (!exe) {
  console.error('bench:web needs Chromium (apt-get install chromium, or CHROMIUM_PATH)');
  process.exit(2);
}
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** A git ref exported next to this checkout's node_modules (hard links) and built: the "before" tree. */
function buildRef(ref) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'starpo-bench-before-'));
  chmodSync(dir, 0o755); // the embedded Postgres runs as the postgres user when we are root
  console.log(`building ${ref} in ${dir} …`);
  execFileSync('sh', ['-c', `git -C "${root}" archive "${ref}" | tar -x -C "${dir}"`], { stdio: 'inherit' });
  // hard links (cp -al: a copy of 1.4 GB would take minutes); the workspace links in node_modules are
  // relative, so they point into the exported tree
  for (const nm of [
    'node_modules',
    ...['apps', 'packages'].flatMap((d) => readdirSync(path.join(root, d)).map((w) => `${d}/${w}/node_modules`)),
  ])
    if (existsSync(path.join(root, nm)) && existsSync(path.dirname(path.join(dir, nm))))
      execFileSync('cp', ['-al', path.join(root, nm), path.join(dir, nm)]);
  execFileSync('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: dir, stdio: 'inherit' });
  return dir;
}

/** One arm: the system of checkout `tree`, its ingestion, the metrics API and the compare page's render times. */
async function measure(tree) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-bench-web-'));
  chmodSync(tmp, 0o755);
  const env = {
    ...process.env,
    INGEST_RATE_LIMIT: '100000',
    STARPO_DATA_DIR: path.join(tmp, 'pg'),
    STARPO_PG_PORT: '0',
    API_PORT: '0',
    WEB_PORT: '0',
    STARPO_QUIET: '1',
  };
  delete env.DATABASE_URL;
  const sys = spawn(process.execPath, ['scripts/start.mjs'], { cwd: tree, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  sys.stdout.on('data', (d) => (out += d));
  sys.stderr.on('data', (d) => (out += d));
  try {
    const t0 = Date.now();
    while (!/\[starpo\] Dashboard\s+(\S+)/.test(out)) {
      if (sys.exitCode !== null || Date.now() - t0 > 120_000) throw new Error(`start failed:\n${out}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const api = /\[starpo\] API\s+(\S+)/.exec(out)[1];
    const web = /\[starpo\] Dashboard\s+(\S+)/.exec(out)[1];
    const signup = await fetch(`${api}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@lab.test', password: 'correct horse', name: 'Bench' }),
    });
    const session = signup.headers.get('set-cookie').split(';')[0];
    const call = async (p, body) => {
      const r = await fetch(api + p, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: session },
        body: JSON.stringify(body),
      });
      if (!r.ok) throw new Error(`${p}: ${r.status} ${await r.text()}`);
      return r.json();
    };
    const ids = [];
    const tIngest = performance.now();
    for (let r = 0; r < RUNS; r++) {
      const run = await call('/api/runs', { name: `bench-${r}`, external: true, config: { env: { name: 'sokoban' } } });
      ids.push(run.id);
      const batches = [];
      for (let k = 0; k < CHARTS; k++)
        for (let s = 0; s < POINTS; s += 1000)
          batches.push(
            Array.from({ length: Math.min(1000, POINTS - s) }, (_, i) => ({
              key: `bench/metric_${String(k).padStart(2, '0')}`,
              step: s + i,
              value: Math.sin((s + i) / 300 + r + k) + Math.random() * 0.2,
            })),
          );
      let next = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (next < batches.length) await call(`/api/runs/${run.id}/ingest/metrics`, { points: batches[next++] });
        }),
      );
    }
    const ingestS = (performance.now() - tIngest) / 1000;
    console.log(`  ingested ${RUNS} runs × ${CHARTS} metrics × ${POINTS.toLocaleString('en-US')} points in ${ingestS.toFixed(1)} s`);

    const apiTimes = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const r = await fetch(`${api}/api/metrics?runs=${ids.join(',')}&maxPoints=600`, { headers: { cookie: session } });
      await r.json();
      apiTimes.push(performance.now() - t);
    }
    console.log(`  GET /api/metrics (${RUNS} runs, all keys, maxPoints 600): ${apiTimes.map((x) => x.toFixed(0)).join(', ')} ms`);

    // BENCH_BROWSER_UI=1: without the flag that keeps the per-window omnibox WebUI off (scripts/chromium.mjs)
    const args = process.env.BENCH_BROWSER_UI ? HEADLESS_ARGS : CHROMIUM_ARGS;
    const browser = await chromium.launch({ executablePath: exe, headless: true, args });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const [name, value] = session.split('=');
    await context.addCookies([{ name, value, url: api }]);
    const url = `${web}/compare?runs=${ids.join(',')}`;
    // the first screen (1280×900): four loads, the first cold; every chart it shows drawn
    const screen = await loads(context, url, 4, 900, !!process.env.BENCH_PROFILE);
    // the whole page: a window tall enough to show all 20 charts, so every one of them is drawn
    // (the measure of this benchmark before charts were drawn as they come near the screen)
    const whole = await loads(context, url, 3, 8000, false);
    // the run page and the replay of one of its episodes: cold, then the warm median of 3
    const env = new SokobanEnv();
    const observation = env.reset(3);
    await call(`/api/runs/${ids[0]}/ingest/trajectories`, {
      trajectories: [
        {
          step: 1,
          success: false,
          turns: [
            {
              observation,
              snapshot: env.snapshot(),
              rawReply: '<think>go</think><answer>Right</answer>',
              think: 'go',
              answer: 'Right',
              actions: ['Right'],
              reward: -0.1,
            },
          ],
        },
      ],
    });
    const trajs = await (await fetch(`${api}/api/runs/${ids[0]}/trajectories`, { headers: { cookie: session } })).json();
    const runPage = await timedLoads(context, `${web}/runs/${ids[0]}`, 4, '[data-testid=chart][data-points]:not([data-points="0"]) canvas');
    const replay = await timedLoads(context, `${web}/trajectories/${trajs.items[0].id}`, 4, '[data-testid=replay-board]');
    await browser.close();
    const [cold, ...warm] = screen.times;
    const result = {
      ingestS,
      apiMs: median(apiTimes),
      cold,
      warm: median(warm),
      whole: median(whole.times),
      runCold: runPage[0],
      runWarm: median(runPage.slice(1)),
      replayCold: replay[0],
      replayWarm: median(replay.slice(1)),
    };
    console.log(`  first screen drawn: cold ${cold.toFixed(0)} ms, warm median ${result.warm.toFixed(0)} ms (of ${warm.length})`);
    console.log(`  every chart drawn (a window 8,000 px tall), warm median of ${whole.times.length}: ${result.whole.toFixed(0)} ms`);
    console.log(`  run page, first charts drawn: cold ${result.runCold.toFixed(0)} ms, warm median ${result.runWarm.toFixed(0)} ms`);
    console.log(`  episode replay, board drawn: cold ${result.replayCold.toFixed(0)} ms, warm median ${result.replayWarm.toFixed(0)} ms`);
    for (const [i, ph] of screen.phases.entries()) console.log(`  load ${i + 1} (ms from navigation): ${ph}`);
    if (process.env.BENCH_HOLD) {
      // BENCH_HOLD=1: keep the system up with its data for manual profiling, until Ctrl-C
      console.log(`  holding: API ${api}, dashboard ${web}/compare?runs=${ids.join(',')}, ${session}`);
      await new Promise((r) => process.once('SIGINT', r));
    }
    return result;
  } finally {
    sys.kill('SIGINT');
    await new Promise((r) => (sys.exitCode !== null ? r() : sys.once('exit', r)));
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * `n` loads of the compare page in a window `height` px tall, each timed until every chart it lists
 * has its data and every chart on the screen is drawn (has its canvas); with `profile`, the first
 * load's main-thread CPU profile goes to BENCH_PROFILE (open it in Chrome's DevTools).
 */
async function loads(context, url, n, height, profile) {
  const times = [];
  const phases = [];
  for (let i = 0; i < n; i++) {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height });
    const cdp = i === 0 && profile ? await context.newCDPSession(page) : null;
    if (cdp) await cdp.send('Profiler.enable').then(() => cdp.send('Profiler.start'));
    const t = performance.now();
    await page.goto(url);
    await page
      .waitForFunction(
        (count) => {
          const charts = [...document.querySelectorAll('[data-testid=chart]')];
          const seen = charts.filter((c) => {
            const r = c.getBoundingClientRect();
            return r.bottom > 0 && r.top < window.innerHeight;
          });
          return (
            charts.length >= count &&
            charts.every((c) => Number(c.getAttribute('data-points')) > 0) &&
            seen.length > 0 &&
            seen.every((c) => c.querySelector('canvas'))
          );
        },
        CHARTS,
        { timeout: 60_000, polling: 16 },
      )
      .catch(async (e) => {
        const shot = path.join(os.tmpdir(), 'bench-web-failure.png');
        await page.screenshot({ path: shot });
        console.error(`no render; screenshot in ${shot}; charts: ${await page.locator('[data-testid=chart]').count()}`);
        throw e;
      });
    times.push(performance.now() - t);
    if (cdp) writeFileSync(process.env.BENCH_PROFILE, JSON.stringify((await cdp.send('Profiler.stop')).profile));
    phases.push(await page.evaluate(pagePhases));
    await page.close();
  }
  return { times, phases };
}

/** `n` loads of `url` (1280×900), each timed until `selector` is in the page; the first is cold. */
async function timedLoads(context, url, n, selector) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const page = await context.newPage();
    const t = performance.now();
    await page.goto(url);
    await page.locator(selector).first().waitFor({ timeout: 60_000 });
    times.push(performance.now() - t);
    await page.close();
  }
  return times;
}

/** In the page: when the document, the scripts and each API request ended, and when the charts were all drawn. */
function pagePhases() {
  const nav = performance.getEntriesByType('navigation')[0];
  const api = performance
    .getEntriesByType('resource')
    .filter((e) => e.initiatorType !== 'script')
    .map((e) => {
      const u = new URL(e.name);
      return `${u.pathname.replace(/[0-9a-f-]{36}/g, ':id')}${u.search.includes('_rsc') ? '?_rsc' : ''} ${e.startTime.toFixed(0)}–${e.responseEnd.toFixed(0)}`;
    });
  const marks = performance.getEntriesByType('mark').map((m) => `${m.name} ${m.startTime.toFixed(0)}`);
  const js = performance.getEntriesByType('resource').filter((e) => e.initiatorType === 'script');
  const scripts = js.length ? Math.max(...js.map((e) => e.responseEnd)).toFixed(0) : '–';
  return `html ${nav.responseEnd.toFixed(0)}, scripts ${scripts}, DOMContentLoaded ${nav.domContentLoadedEventEnd.toFixed(0)}, ${[...api, ...marks].join(', ')}, drawn ${performance.now().toFixed(0)}`;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const beforeTree = process.env.BEFORE ? path.resolve(process.env.BEFORE) : process.env.BEFORE_REF ? buildRef(process.env.BEFORE_REF) : null;
const arms = [...(beforeTree ? [['before', beforeTree]] : []), ['now', root]];
const results = [];
for (const [label, tree] of arms) {
  // a shared machine: the load says how far the times are from an idle one's
  console.log(`${label}: ${tree} (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`);
  results.push(await measure(tree));
}
console.log(
  `\ncompare page, ${CHARTS} charts × ${RUNS} runs × ${POINTS.toLocaleString('en-US')} points (server-side downsampled to ≤ 600 a series):`,
);
const rows = [
  ['ingestion (s)', (r) => r.ingestS.toFixed(1)],
  ['GET /api/metrics, median of 3 (ms)', (r) => r.apiMs.toFixed(0)],
  ['first screen drawn, cold (ms)', (r) => r.cold.toFixed(0)],
  ['first screen drawn, warm median of 3 (ms)', (r) => r.warm.toFixed(0)],
  ['every chart drawn (8,000 px window), warm median of 3 (ms)', (r) => r.whole.toFixed(0)],
  ['run page, first charts drawn, cold (ms)', (r) => r.runCold.toFixed(0)],
  ['run page, first charts drawn, warm median of 3 (ms)', (r) => r.runWarm.toFixed(0)],
  ['episode replay, board drawn, cold (ms)', (r) => r.replayCold.toFixed(0)],
  ['episode replay, board drawn, warm median of 3 (ms)', (r) => r.replayWarm.toFixed(0)],
];
const head = arms.map(([label]) => label);
console.log(`| | ${head.join(' | ')} |${results.length > 1 ? ' now/before |' : ''}`);
console.log(`|---|${head.map(() => '---|').join('')}${results.length > 1 ? '---|' : ''}`);
for (const [name, fmt] of rows) {
  const ratio = results.length > 1 ? ` ${(Number(fmt(results[1])) / Number(fmt(results[0]))).toFixed(2)} |` : '';
  console.log(`| ${name} | ${results.map(fmt).join(' | ')} |${ratio}`);
}
const now = results.at(-1);
console.log(
  `target: first screen drawn ≤ ${TARGET_MS} ms: ${Math.max(now.cold, now.warm) <= TARGET_MS ? 'met' : 'NOT met'} (cold ${now.cold.toFixed(0)} ms, warm ${now.warm.toFixed(0)} ms; every chart in a tall window: ${now.whole.toFixed(0)} ms)`,
);
