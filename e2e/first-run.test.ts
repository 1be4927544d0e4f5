import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium, ROOT, startSystem, type Started } from './helpers.js';

const exe = chromiumPath();
const SHOTS = path.join(ROOT, 'docs/screenshots');
/** The first validation (64 episodes) and step of quick-cpu: minutes on 2 idle cores, more on a busy machine. */
const FIRST_STEP_MS = 20 * 60_000;

/**
 * A newcomer's first run, as the README tells it: a fresh stack, sign up, New run with the form's defaults
 * (quick-cpu, Sokoban, the shipped base), Launch; the page shows what the worker does and the run learns.
 */
describe.skipIf(!exe)('first contact: a run launched from the form with its defaults', { timeout: FIRST_STEP_MS + 300_000 }, () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-first-'));
  chmodSync(tmp, 0o755);
  let sys: Started;
  let browser: Browser;
  let page: Page;
  const api = <T>(p: string) =>
    page.evaluate(async (url) => (await fetch(url, { credentials: 'include' })).json(), sys.apiUrl + p) as Promise<T>;
  const metric = async (id: string, key: string, step: number) => {
    const series = await api<{ key: string; points: { step: number; value: number }[] }[]>(`/api/runs/${id}/metrics?keys=${key}`);
    return series[0]?.points.find((p) => p.step === step)?.value ?? null;
  };

  beforeAll(async () => {
    sys = await startSystem({
      STARPO_DATA_DIR: path.join(tmp, 'pg'),
      STARPO_PG_PORT: '0',
      API_PORT: '0',
      WEB_PORT: '0',
      STARPO_QUIET: '1',
      WORKER_POLL_MS: '300',
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    if (sys) {
      sys.child.kill('SIGINT');
      await sys.exited;
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it('shows phase progress within 10 s, streams log lines, and learns from the first step', async () => {
    await page.goto(sys.webUrl);
    await page.waitForURL(/\/login/);
    await page.fill('input[name=name]', 'Newcomer');
    await page.fill('input[name=email]', 'new@lab.test');
    await page.fill('input[name=password]', 'correct horse');
    await page.fill('input[name=teamName]', 'lab');
    await page.click('button[type=submit]');
    await page.waitForURL(`${sys.webUrl}/`);

    await page.goto(`${sys.webUrl}/runs/new`);
    // the defaults: quick-cpu on Sokoban from the shipped base, and from scratch offered with what to expect
    expect(await page.getByRole('main').locator('select[name=preset]').inputValue()).toBe('quick-cpu');
    expect(await page.getByRole('main').locator('select[name=env]').inputValue()).toBe('sokoban');
    await expect
      .poll(() => page.getByRole('main').locator('select[name=base] option').first().textContent())
      .toContain('starpo-base/sokoban-tiny');
    await expect
      .poll(() => page.getByRole('main').locator('select[name=base] option', { hasText: 'from scratch' }).count())
      .toBeGreaterThan(0);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    const launched = Date.now();
    const id = page.url().split('/').pop()!;

    // what the worker does, within 10 s of the launch
    await expect.poll(() => page.getByTestId('phase-progress').count(), { timeout: 10_000 }).toBe(1);
    const within = Date.now() - launched;
    expect(within).toBeLessThan(10_000);
    await expect.poll(() => page.getByTestId('phase-label').textContent(), { timeout: 120_000 }).toMatch(/^validation \d+\/64 episodes$/);

    await page.getByRole('tab', { name: 'logs' }).click();
    await expect
      .poll(() => page.getByTestId('logs').textContent(), { timeout: 30_000 })
      .toMatch(/run started on worker .* base starpo-base\/sokoban-tiny sha256 [0-9a-f]{64}/);
    await expect
      .poll(() => page.getByTestId('logs').textContent(), { timeout: 10_000 })
      .toContain('step 0: validation started (64 episodes)');
    const logs = await api<{ message: string }[]>(`/api/runs/${id}/logs`);
    expect(logs[0]!.message).toMatch(/^run started on worker/);

    // the first validation: above from scratch, whose replies all break the format (nothing runs, success 0)
    await expect.poll(() => metric(id, 'val/success', 0), { timeout: FIRST_STEP_MS, interval: 5000 }).not.toBeNull();
    expect(await metric(id, 'val/success', 0)).toBeGreaterThan(0);
    // the first step: the base writes the format
    await expect.poll(() => metric(id, 'train/well_formed_rate', 1), { timeout: FIRST_STEP_MS, interval: 5000 }).not.toBeNull();
    const wellFormed = (await metric(id, 'train/well_formed_rate', 1))!;
    expect(wellFormed).toBeGreaterThan(0.9);
    console.log(
      `first run: validation success ${await metric(id, 'val/success', 0)} before training, well-formed rate ${wellFormed} at step 1`,
    );
    await page.getByRole('tab', { name: 'logs' }).click();
    await expect.poll(() => page.getByTestId('logs').textContent(), { timeout: 30_000 }).toMatch(/step 1\/\d+ · success/);
    await expect.poll(() => page.getByTestId('eta').textContent(), { timeout: 60_000 }).toMatch(/ETA \d/);
    // the README's picture of a run in progress: a phase of step 2, the ETA, the first points on the charts
    await page.getByRole('tab', { name: 'charts' }).click();
    await expect.poll(() => page.getByTestId('chart').count(), { timeout: 30_000 }).toBeGreaterThan(3);
    await page.screenshot({ path: path.join(SHOTS, 'run-in-progress.png'), fullPage: false });

    // cancel: the button turns into a disabled "cancelling…" at once
    await page.getByTestId('cancel').click();
    await expect.poll(() => page.getByTestId('cancel').textContent(), { timeout: 1000 }).toBe('cancelling…');
    expect(await page.getByTestId('cancel').isDisabled()).toBe(true);
  });
});
