import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath } from '../scripts/chromium.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export { chromiumPath };

/** Headless Chromium with the project's launch flags (scripts/chromium.mjs). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath()!, headless: true, args: CHROMIUM_ARGS });
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  apiUrl: string;
  webUrl: string;
  exited: Promise<number | null>;
}

/** Run `node scripts/start.mjs` (what `npm start` runs after building) and wait until it prints its URLs. */
export async function startSystem(env: Record<string, string>, timeoutMs = 120_000, opts: { ownGroup?: boolean } = {}): Promise<Started> {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  delete childEnv.DATABASE_URL;
  // ownGroup: the supervisor leads a process group of its own, as `npm start` in a terminal does (for a group signal)
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.ownGroup ?? false,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  while (!/\[starpo\] Dashboard\s+(\S+)/.test(out)) {
    if (child.exitCode !== null) throw new Error(`start exited early (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`start timed out:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    output: () => out,
    apiUrl: /\[starpo\] API\s+(\S+)/.exec(out)![1]!,
    webUrl: /\[starpo\] Dashboard\s+(\S+)/.exec(out)![1]!,
    exited,
  };
}

/**
 * Brings every chart of the page near the screen in turn (a chart is drawn when it comes near it) and
 * waits for its canvas, then scrolls back to the top: for full-page screenshots and checks of every chart.
 */
export async function drawAllCharts(page: Page): Promise<void> {
  const charts = page.getByTestId('chart');
  for (let i = 0, n = await charts.count(); i < n; i++) {
    await charts.nth(i).scrollIntoViewIfNeeded();
    await charts.nth(i).locator('canvas').first().waitFor();
  }
  await page.evaluate(() => window.scrollTo(0, 0));
}

/** axe-core's serious and critical violations on the page as it is now, as `rule: first targets` lines. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  // evaluated by the browser's DevTools, not as a <script>: the page's policy runs no inline script without its nonce
  await page.evaluate(readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (o: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const r = await axe.run({ resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id}: ${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 3)
            .join(', ')}`,
      );
  });
}

/** `npm start`'s environment for a fresh embedded Postgres in `dataDir`, every service on a free port. */
export function freshSystemEnv(dataDir: string, quiet = true): Record<string, string> {
  return { STARPO_DATA_DIR: dataDir, STARPO_PG_PORT: '0', API_PORT: '0', WEB_PORT: '0', STARPO_QUIET: quiet ? '1' : '0' };
}

/** A worker that polls, beats and sweeps often, so that faults are noticed within seconds (run on wasm). */
export const FAST_WORKER_ENV = { STARPO_BACKEND: 'wasm', WORKER_POLL_MS: '200', WORKER_HEARTBEAT_MS: '500', WORKER_SWEEP_MS: '1000' };

/** The whole system on a fresh embedded Postgres under `tmp`, on free ports, with headless Chromium. */
export async function startStackAndBrowser(tmp: string, env: Record<string, string> = {}): Promise<{ sys: Started; browser: Browser }> {
  const sys = await startSystem({ ...freshSystemEnv(path.join(tmp, 'pg')), ...env });
  const browser = await launchChromium();
  return { sys, browser };
}

/** Closes the browser, stops the system (its Postgres included) and removes `tmp`. */
export async function stopStackAndBrowser(sys: Started | undefined, browser: Browser | undefined, tmp: string): Promise<void> {
  await browser?.close();
  if (sys) {
    sys.child.kill('SIGINT');
    await sys.exited;
  }
  rmSync(tmp, { recursive: true, force: true });
}

/** A JSON call made by the page itself, so its session cookie goes along: `{ status, body }` (body null on 204). */
export function pageFetch(page: Page, method: string, url: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  return page.evaluate(
    async ([m, u, b]) => {
      const r = await fetch(u as string, {
        method: m as string,
        credentials: 'include',
        headers: { 'content-type': 'application/json' },
        body: b === undefined ? undefined : JSON.stringify(b),
      });
      return { status: r.status, body: r.status === 204 ? null : ((await r.json()) as unknown) };
    },
    [method, url, body] as const,
  );
}

/** The whole stack and a browser page on its dashboard, signed in as the owner of a new team; `api` calls the API as that page. */
export async function signedInStack(
  tmp: string,
  env: Record<string, string>,
  email: string,
): Promise<{ sys: Started; browser: Browser; page: Page; api: (method: string, p: string, body?: unknown) => Promise<never> }> {
  const { sys, browser } = await startStackAndBrowser(tmp, env);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const api = async (method: string, p: string, body?: unknown) => (await pageFetch(page, method, sys.apiUrl + p, body)).body as never;
  await page.goto(sys.webUrl);
  await api('POST', '/api/auth/signup', { email, password: 'correct horse', name: 'Owner', teamName: 'lab' });
  return { sys, browser, page, api };
}
