import { mkdtempSync, existsSync, readFileSync, chmodSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SokobanEnv } from '@starpo/envs';
import { chromiumPath, launchChromium, startSystem } from './helpers.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start on the embedded default', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-start-'));
  chmodSync(tmp, 0o755);
  const dataDir = path.join(tmp, 'postgres');
  const env = { STARPO_DATA_DIR: dataDir, STARPO_PG_PORT: '0', API_PORT: '0', WEB_PORT: '0', STARPO_QUIET: '1' };
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('boots Postgres, API, worker and dashboard; /health is 200; the map page renders; Ctrl-C stops everything', async () => {
    const sys = await startSystem(env);
    try {
      const health = await fetch(`${sys.apiUrl}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', database: 'up' });
      const page = await fetch(`${sys.webUrl}/envs`);
      expect(page.status).toBe(200);

      const exe = chromiumPath();
      if (!exe) {
        console.warn('SKIPPED browser check: no Chromium found (install Debian chromium or set CHROMIUM_PATH)');
      } else {
        const browser = await launchChromium();
        try {
          const p = await browser.newPage();
          await p.goto(`${sys.webUrl}/envs`);
          await p.getByTestId('seed').fill('7');
          const env7 = new SokobanEnv();
          await expect.poll(() => p.getByTestId('board-sokoban-text').textContent()).toBe(env7.reset(7));
          expect(await p.getByTestId('board-sokoban').locator('.cell').count()).toBe(36);
          expect(await p.getByTestId('board-frozenlake').locator('.cell').count()).toBe(16);
        } finally {
          await browser.close();
        }
      }
    } finally {
      const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(alive(pid)).toBe(true);
      sys.child.kill('SIGINT');
      expect(await sys.exited).toBe(0);
      expect(alive(pid)).toBe(false);
      expect(existsSync(path.join(dataDir, 'postmaster.pid'))).toBe(false);
    }
  });

  it('keeps its data across restarts, and starts quietly: no route lists, one line naming the tensor backend', async () => {
    const sys = await startSystem({ ...env, STARPO_QUIET: '0' });
    try {
      expect(sys.output()).toMatch(/migrations current/);
      const health = await fetch(`${sys.apiUrl}/health`);
      expect(health.status).toBe(200);
      await expect.poll(() => sys.output(), { timeout: 60_000 }).toMatch(/\[worker\] tensor backend: \w+ \(.*\); /);
      const out = sys.output();
      expect(out.match(/tensor backend:/g)).toHaveLength(1);
      expect(out).not.toMatch(/RouterExplorer|RoutesResolver|InstanceLoader|Mapped \{/);
      expect(out).not.toMatch(/Couldn't load Vulkan/);
    } finally {
      sys.child.kill('SIGTERM');
      expect(await sys.exited).toBe(0);
    }
  });
});
