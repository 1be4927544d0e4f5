import { buildRunConfig } from '@starpo/contracts';
import { createDb, upsertMetricPoints } from '@starpo/db';
import { chmodSync, existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbSink } from '../apps/worker/dist/db-sink.js';
import { LearningWatch } from '../packages/trainer/dist/train/warnings.js';
import { chromiumPath, pageFetch, ROOT, startStackAndBrowser, stopStackAndBrowser, type Started } from './helpers.js';

const exe = chromiumPath();

/**
 * The contrast ratio (WCAG) of an element's text on what is behind it: its colour, faded by its and its
 * ancestors' opacity, over the first opaque background up the tree, with the translucent ones between.
 */
function textContrast(el: Element): number {
  const rgba = (c: string) => {
    const [r = 0, g = 0, b = 0, a = 1] = (c.match(/[\d.]+/g) ?? []).map(Number);
    return { r, g, b, a };
  };
  const over = (top: ReturnType<typeof rgba>, under: ReturnType<typeof rgba>) => ({
    r: top.r * top.a + under.r * (1 - top.a),
    g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a),
    a: 1,
  });
  const layers: ReturnType<typeof rgba>[] = [];
  let opacity = 1;
  for (let n: Element | null = el; n; n = n.parentElement) {
    const s = getComputedStyle(n);
    opacity *= Number(s.opacity);
    const bg = rgba(s.backgroundColor);
    if (bg.a > 0) layers.push(bg);
    if (bg.a >= 1) break;
  }
  let bg = { r: 255, g: 255, b: 255, a: 1 }; // the canvas, if no element paints one
  for (const layer of layers.reverse()) bg = over(layer, bg);
  const ink = rgba(getComputedStyle(el).color);
  const text = over({ ...ink, a: ink.a * opacity }, bg);
  const lum = (c: typeof bg) =>
    [c.r, c.g, c.b]
      .map((v) => v / 255)
      .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
      .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i]!, 0);
  const [hi, lo] = [lum(text), lum(bg)].sort((a, b) => b - a);
  return (hi! + 0.05) / (lo! + 0.05);
}

const contrast = (l: Locator) => l.evaluate(textContrast);

/** The character before each place where an element's text goes on to a new line. */
function charsBeforeBreaks(el: Element): string[] {
  const range = document.createRange();
  const chars: { c: string; top: number }[] = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode())
    for (let i = 0; i < n.textContent!.length; i++) {
      range.setStart(n, i);
      range.setEnd(n, i + 1);
      chars.push({ c: n.textContent![i]!, top: range.getBoundingClientRect().top });
    }
  return chars.flatMap((x, i) => (i > 0 && x.top > chars[i - 1]!.top ? [chars[i - 1]!.c] : []));
}

/** Small dashboard behaviours (pagers, form errors, titles, legends, warnings) in a real browser against the real stack. */
describe.skipIf(!exe)('dashboard details in a real browser', { timeout: 300_000 }, () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-details-'));
  chmodSync(tmp, 0o755);
  let sys: Started;
  let browser: Browser;
  let page: Page;
  const api = async (method: string, p: string, body?: unknown) => (await pageFetch(page, method, sys.apiUrl + p, body)).body as never;

  beforeAll(async () => {
    ({ sys, browser } = await startStackAndBrowser(tmp));
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(sys.webUrl);
    await api('POST', '/api/auth/signup', { email: 'ada@lab.test', password: 'correct horse', name: 'Ada', teamName: 'lab' });
  });
  afterAll(() => stopStackAndBrowser(sys, browser, tmp));

  it('shows the runs pager readable, enabled or not, in both themes at 1280 and 390 px, and pages with it', async () => {
    // one more run than a page of the list holds (25)
    for (let i = 1; i <= 26; i++) await api('POST', '/api/runs', { name: `run ${String(i).padStart(2, '0')}`, external: true, config: {} });
    for (const colorScheme of ['light', 'dark'] as const) {
      const ctx = await browser.newContext({ colorScheme, storageState: await page.context().storageState() });
      const p = await ctx.newPage();
      for (const width of [1280, 390]) {
        await p.setViewportSize({ width, height: 900 });
        await p.goto(`${sys.webUrl}/`);
        await expect.poll(() => p.getByTestId('run-row').count()).toBe(25);
        const previous = p.getByRole('button', { name: '← Previous' });
        const next = p.getByRole('button', { name: 'Next →' });
        expect(await previous.isDisabled()).toBe(true);
        expect(await next.isEnabled()).toBe(true);
        for (const button of [previous, next]) {
          expect(await button.isVisible()).toBe(true);
          expect(await contrast(button), `${colorScheme} ${width} px ${await button.textContent()}`).toBeGreaterThanOrEqual(4.5);
        }
        await next.click();
        await expect.poll(() => p.getByTestId('run-row').count()).toBe(1);
        expect(await p.getByTestId('run-row').textContent()).toContain('run 01'); // newest first: the oldest is on page 2
        expect(await next.isDisabled()).toBe(true);
        expect(await contrast(next), `${colorScheme} ${width} px disabled Next`).toBeGreaterThanOrEqual(4.5);
        expect(await contrast(previous), `${colorScheme} ${width} px enabled Previous`).toBeGreaterThanOrEqual(4.5);
        await previous.click();
        await expect.poll(() => p.getByTestId('run-row').count()).toBe(25);
      }
      await ctx.close();
    }
  });

  it('says once, with the JSON overrides, that a base they name is unknown, and the Base model list shows that base', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${sys.webUrl}/runs/new`);
    await page.locator('details summary').click();
    await page.fill('textarea[name=overrides]', '{"model": {"base": "nope"}}');
    const base = page.locator('select[name=base]');
    const chosen = () => base.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent);
    await expect.poll(chosen).toBe('nope (from the JSON overrides)');
    expect(await page.locator('.field', { has: base }).textContent()).toContain('JSON overrides, which win');

    await page.getByRole('button', { name: 'Launch' }).click();
    const overrides = page.locator('.field', { has: page.locator('textarea[name=overrides]') });
    await expect.poll(() => overrides.locator('small.error').textContent()).toMatch(/^model\.base: "nope" is not a shipped base/);
    // once: neither at the Base model list nor again under the form
    expect(await page.locator('.field.invalid').count()).toBe(1);
    expect(await page.getByTestId('submit-error').count()).toBe(0);
    expect(await page.getByTestId('form-errors').count()).toBe(0);
    expect((await page.locator('form').textContent())!.split('is not a shipped base').length).toBe(2);
    expect(page.url()).toContain('/runs/new');

    // a base picked from the list is written into the overrides, which keep winning
    await base.selectOption('starpo-base/sokoban-tiny');
    await expect.poll(() => page.locator('textarea[name=overrides]').inputValue()).toContain('"base": "starpo-base/sokoban-tiny"');
    expect(await chosen()).toContain('starpo-base/sokoban-tiny');
    await expect.poll(() => page.locator('.field.invalid').count()).toBe(0);
  });

  /** An external run with a few points of `keys` (steps 1–3); its id. */
  const runWithMetrics = async (name: string, keys: Record<string, number[]>, config: object = {}): Promise<string> => {
    const { id } = (await api('POST', '/api/runs', { name, external: true, config })) as { id: string };
    const points = Object.entries(keys).flatMap(([key, values]) => values.map((value, i) => ({ key, step: i + 1, value })));
    await api('POST', `/api/runs/${id}/ingest/metrics`, { points });
    return id;
  };

  it('cuts a long run name short in the chart legends, with the whole label as the tooltip', async () => {
    const long = 'a run whose name goes on and on '.repeat(4).trim();
    const ids = [
      await runWithMetrics(long, { 'train/success': [0.1, 0.2, 0.3] }),
      await runWithMetrics('short', { 'train/success': [0.2, 0.2, 0.4] }),
    ];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${sys.webUrl}/compare?runs=${ids.join(',')}`);
      const chart = page.getByTestId('chart').first();
      await chart.locator('canvas').first().waitFor();
      const label = (name: string) => chart.locator('.u-legend .u-series:not(.raw-series) .u-label', { hasText: `${name}: train/success` });
      const cut = (name: string) => label(name).evaluate((el) => el.scrollWidth > el.clientWidth);
      expect(await cut(long), `${width} px`).toBe(true);
      expect(await label(long).evaluate((el) => getComputedStyle(el).textOverflow)).toBe('ellipsis');
      expect(await label(long).getAttribute('title')).toBe(`${long}: train/success`);
      expect(await cut('short')).toBe(false);
      // every entry of the legend stays inside its chart (wrapped, not scrolled out of view)
      const right = await chart.evaluate((el) => el.getBoundingClientRect().right);
      const entries = await chart
        .locator('.u-legend .u-series:not(.raw-series)')
        .evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().right));
      expect(entries).toHaveLength(3); // the x value and the two runs
      for (const r of entries) expect(r, `${width} px`).toBeLessThanOrEqual(right);
    }
  });

  it("wraps the compare table's setting paths at their dots on a 390 px screen", async () => {
    const ids: string[] = [];
    for (const steps of [10, 20, 30])
      ids.push(
        (
          (await api('POST', '/api/runs', {
            name: `steps ${steps}`,
            external: true,
            config: { training: { steps }, earlyStopping: { rewardStdFraction: steps / 100 } },
          })) as { id: string }
        ).id,
      );
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${sys.webUrl}/compare?runs=${ids.join(',')}`);
    const paths = page.getByTestId('config-diff').locator('code.path');
    await expect.poll(() => paths.allTextContents()).toEqual(['earlyStopping.rewardStdFraction', 'training.steps']);
    // the text wraps at a dot in a path, at a space in a run's name, not inside a word
    const wraps = async (l: Locator) => (await Promise.all((await l.all()).map((x) => x.evaluate(charsBeforeBreaks)))).flat();
    const inPaths = await wraps(paths);
    expect(inPaths.length).toBeGreaterThan(0); // the narrow columns do wrap them
    expect(new Set(inPaths)).toEqual(new Set(['.']));
    expect((await wraps(page.getByTestId('config-diff').locator('th a'))).filter((c) => c !== ' ')).toEqual([]);
  });

  it('titles the empty Compare page and the 404 page like every other page', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${sys.webUrl}/compare`);
    await expect.poll(() => page.title()).toBe('Compare runs · StarPO Studio');
    expect(await page.locator('h1').textContent()).toBe('Compare runs');
    expect(await page.locator('main').textContent()).toContain('Tick two or more runs');
    const missing = await page.goto(`${sys.webUrl}/no/such/page`);
    expect(missing!.status()).toBe(404);
    await expect.poll(() => page.title()).toBe('Page not found · StarPO Studio');
    expect(await page.locator('h1').textContent()).toBe('Page not found');
  });

  it('logs no console error on the pages a signed-out visitor opens', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const visitor = await ctx.newPage();
    const errors: string[] = [];
    visitor.on('console', (m) => m.type() === 'error' && errors.push(`${visitor.url()}: ${m.text()}`));
    visitor.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
    const session = visitor.waitForResponse((r) => r.url().endsWith('/api/auth/session'));
    await visitor.goto(`${sys.webUrl}/`);
    await visitor.waitForURL(/\/login/);
    expect(await (await session).json()).toEqual({ me: null });
    await visitor.locator('h1').waitFor();
    await visitor.goto(`${sys.webUrl}/envs`);
    await visitor.getByTestId('board-sokoban').waitFor();
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it('serves a favicon at /favicon.ico and links the SVG icon', async () => {
    const ico = await fetch(`${sys.webUrl}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect([...new Uint8Array(await ico.arrayBuffer()).slice(0, 4)]).toEqual([0, 0, 1, 0]); // an ICO file's header
    await page.goto(`${sys.webUrl}/envs`);
    const icons = await page.locator('link[rel=icon]').evaluateAll((ls) => ls.map((l) => new URL((l as HTMLLinkElement).href).pathname));
    expect(icons).toEqual(expect.arrayContaining(['/favicon.ico', '/icon.svg']));
  });

  /** A Prisma client on the stack's embedded Postgres (disconnect it after use). */
  const stackDb = () =>
    createDb(`postgresql://postgres:postgres@127.0.0.1:${/embedded PostgreSQL on port (\d+)/.exec(sys.output())![1]}/starpo`);

  it('says what the duration estimate rests on, which engine each worker runs, and "slow engine" at the ETA', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${sys.webUrl}/runs/new`); // quick-cpu, Sokoban
    const source = page.getByTestId('estimate-source');
    await expect
      .poll(() => source.textContent())
      .toBe('rough guess: no quick-cpu run measured yet (a fixed figure for two idle CPU cores)');

    // a finished quick-cpu run with timed steps, and a worker on tfjs's kernels
    const db = stackDb();
    const teamId = ((await api('GET', '/api/auth/me')) as { team: { id: string } }).team.id;
    const config = buildRunConfig('quick-cpu', { env: { name: 'sokoban' } });
    const common = { teamId, preset: 'quick-cpu', config, environment: 'sokoban', algorithm: 'gae', totalSteps: 80 };
    const done = await db.run.create({ data: { ...common, name: 'timed', status: 'succeeded', currentStep: 3, finishedAt: new Date() } });
    await upsertMetricPoints(
      db,
      done.id,
      [30, 31, 29].map((value, i) => ({ key: 'timing_s/step', step: i + 1, value })),
    );
    const slow = await db.worker.create({ data: { name: 'no-blas', host: 'elsewhere', backend: 'wasm', engine: 'tfjs', device: 'cpu' } });

    await page.reload();
    await expect.poll(() => source.textContent()).toBe('from the last quick-cpu run on this deployment (3 steps)');
    expect(await page.getByTestId('duration-estimate').textContent()).toMatch(/^Estimated duration: about \d+ min \(80 steps\), from/);
    expect(await page.getByTestId('estimate-slow-engine').textContent()).toContain('no-blas runs the slow engine');

    await page.goto(`${sys.webUrl}/workers`);
    const engineOf = (name: string) => page.locator('tr', { hasText: name }).getByTestId('worker-engine');
    await expect.poll(() => engineOf('no-blas').textContent()).toBe('slow engine tfjs kernels');
    const fast = existsSync(path.join(ROOT, 'packages/trainer/native/build/kernels.node'));
    // the stack's own worker: its name is the host's
    expect(await engineOf(`(${os.hostname()})`).first().textContent()).toBe(fast ? 'OpenBLAS kernels' : 'slow engine tfjs kernels');
    expect(await page.getByTestId('slow-engine-hint').textContent()).toContain('apt-get install libopenblas-dev');
    // npm start's summary says the same of its own worker
    expect(sys.output()).toMatch(
      fast ? /\[starpo\] Engine +OpenBLAS kernels/ : /\[starpo\] Engine +SLOW: .*apt-get install libopenblas-dev/,
    );

    // a run the slow worker is training: its ETA says so (deleted before the sweep could requeue it)
    const running = await db.run.create({
      data: {
        ...common,
        name: 'on tfjs',
        status: 'running',
        workerId: slow.id,
        heartbeatAt: new Date(),
        currentStep: 2,
        startedAt: new Date(),
        progress: {
          phase: 'rollout',
          step: 3,
          done: 10,
          total: 64,
          unit: 'episodes',
          startedAt: Date.now(),
          at: Date.now(),
          stepStartedAt: Date.now(),
          stepSeconds: 30,
          validationSeconds: 20,
          engine: 'tfjs',
        },
      },
    });
    try {
      await page.goto(`${sys.webUrl}/runs/${running.id}`);
      await expect.poll(() => page.getByTestId('eta').textContent()).toMatch(/ETA .*\(30 s a step, 20 s a validation\) slow engine$/);
    } finally {
      await db.run.delete({ where: { id: running.id } });
      await db.$disconnect();
    }
  });

  it('names the metric a warning read and opens the chart that plots it (entropy collapse: actor/entropy)', async () => {
    // the run's steps: actor/entropy falls to a tenth while the rollouts' train/entropy holds
    const metrics = { 'actor/entropy': [0.15, 0.14, 0.14, 0.02, 0.02, 0.02], 'train/entropy': [0.5, 0.5, 0.5, 0.5, 0.5, 0.5] };
    const id = await runWithMetrics('cooling', metrics, { env: { name: 'sokoban' } });
    // its warnings as a worker raises and stores them: the trainer's watch over these steps, written by the worker's sink
    const watch = new LearningWatch(buildRunConfig('quick-cpu', { env: { name: 'sokoban' } }));
    const warnings = metrics['actor/entropy'].flatMap((_, i) =>
      watch.onStep(i + 1, Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, v[i]!]))),
    );
    expect(warnings.map((w) => w.code)).toEqual(['entropy_collapse']);
    const port = /embedded PostgreSQL on port (\d+)/.exec(sys.output())![1];
    const db = createDb(`postgresql://postgres:postgres@127.0.0.1:${port}/starpo`);
    for (const w of warnings) await new DbSink(db, id).warning(w);
    await db.$disconnect();

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${sys.webUrl}/runs/${id}`);
    const warning = page.getByTestId('run-warning');
    await expect.poll(() => warning.textContent()).toContain('Entropy collapsing');
    expect(await warning.textContent()).toContain("The policy's entropy (actor/entropy)");
    expect(await warning.textContent()).not.toContain('ppo.clipRatioHigh 0.28'); // quick-cpu has it already
    await page.getByRole('tab', { name: 'logs' }).click(); // the link opens the charts from any tab
    await warning.getByRole('button', { name: 'show actor/entropy' }).click();
    const chart = page.locator('[data-testid=chart][data-focused]');
    await expect.poll(() => chart.getAttribute('data-title')).toBe('Entropy');
    await chart.locator('canvas').first().waitFor();
    const plotted = await chart.locator('.u-legend .u-series:not(.raw-series) .u-label').allTextContents();
    expect(plotted).toEqual(expect.arrayContaining(['actor/entropy', 'train/entropy']));
    expect(await chart.evaluate((el) => el.getBoundingClientRect().top < window.innerHeight)).toBe(true); // scrolled to
  });

  it("says in a finished run's header and in the runs list whether validation success changed beyond its noise", async () => {
    /** A finished run trained elsewhere, validated over 64 episodes at steps 0, 10, 20, … */
    const finished = async (name: string, vals: number[]): Promise<string> => {
      const { id } = (await api('POST', '/api/runs', { name, external: true, config: { rollout: { validation: { size: 64 } } } })) as {
        id: string;
      };
      await api('POST', `/api/runs/${id}/ingest/metrics`, {
        points: vals.map((value, i) => ({ key: 'val/success', step: 10 * i, value })),
      });
      await api('POST', `/api/runs/${id}/ingest/finish`, { status: 'succeeded' });
      return id;
    };
    const learned = await finished('verdict: learned', [9 / 64, 20 / 64, 30 / 64]);
    // the default run's numbers: +6.25 points against ±13.6, with a best (25%) the verdict leaves aside
    const flat = await finished('verdict: flat', [9 / 64, 16 / 64, 13 / 64]);

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${sys.webUrl}/runs/${learned}`);
    const header = page.getByTestId('val-summary');
    await expect.poll(() => header.textContent()).toContain('14.1% → 46.9%');
    expect(await header.getByTestId('val-verdict').textContent()).toBe('improved');
    expect(await header.getByTestId('val-verdict').getAttribute('title')).toMatch(/^\+32\.8 points, noise ±15\.4 .*two-proportion test/);

    await page.goto(`${sys.webUrl}/runs/${flat}`);
    await expect.poll(() => header.textContent()).toContain('14.1% → 20.3%');
    expect(await header.getByTestId('val-verdict').textContent()).toBe('no clear change');
    expect(await header.getByTestId('val-verdict-detail').textContent()).toBe('±13.6 points is noise (64 episodes each)');
    expect(await header.getByTestId('val-best').textContent()).toBe('· best 25.0%');
    expect(await header.getByTestId('val-best').getAttribute('title')).toContain('Not used for the verdict');

    await page.goto(`${sys.webUrl}/`);
    const verdictIn = (name: string) => page.getByTestId('run-row').filter({ hasText: name }).getByTestId('val-verdict');
    await expect.poll(() => verdictIn('verdict: learned').textContent()).toBe('14% → 47% · improved');
    expect(await verdictIn('verdict: flat').textContent()).toBe('14% → 20% · no clear change');
  });
});
