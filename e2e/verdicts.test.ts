import { chmodSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, pageFetch, seriousAxeViolations, startStackAndBrowser, stopStackAndBrowser, type Started } from './helpers.js';

const exe = chromiumPath();
// player (1, 1), box (2, 2), target (1, 3)
const board = '######\n#P_O_#\n#_X__#\n######';

describe.skipIf(!exe)("a team's verdicts on the checker's flags, in a real browser against the real stack", { timeout: 300_000 }, () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-verdicts-'));
  chmodSync(tmp, 0o755);
  let sys: Started;
  let browser: Browser;
  let page: Page;
  const api = async (method: string, p: string, body?: unknown) => (await pageFetch(page, method, sys.apiUrl + p, body)).body as never;

  beforeAll(async () => {
    ({ sys, browser } = await startStackAndBrowser(tmp));
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });
  afterAll(() => stopStackAndBrowser(sys, browser, tmp));

  it('marks a flag right in the replay; the Diagnostics tab shows the precision on the verdicts and exports them', async () => {
    await page.goto(sys.webUrl);
    await api('POST', '/api/auth/signup', { email: 'ada@lab.test', password: 'correct horse', name: 'Ada', teamName: 'lab' });
    const run = (await api('POST', '/api/runs', { name: 'judged', external: true, config: { env: 'CoordSokoban' } })) as { id: string };
    const think = 'The box is at (1, 3). I will go right.';
    await api('POST', `/api/runs/${run.id}/ingest/trajectories`, {
      trajectories: [
        {
          step: 1,
          success: false,
          turns: [
            {
              observation: `Turn 1:\nState:\n${board}`,
              rawReply: `<think>${think}</think><answer>Right</answer>`,
              think,
              answer: 'Right',
              actions: ['Right'],
              reward: -0.1,
            },
          ],
        },
      ],
    });
    const list = (await api('GET', `/api/runs/${run.id}/trajectories`)) as { items: { id: string }[] };

    await page.goto(`${sys.webUrl}/trajectories/${list.items[0]!.id}`);
    const row = page.getByTestId('verdict-row').first();
    await expect.poll(() => row.textContent()).toContain('flagged by rule coordinate');
    expect(await page.getByTestId('claim-truth').first().textContent()).toMatch(
      /rule coordinate: right on \d+% of its flags on the labelled development texts/,
    );
    await page.getByRole('textbox', { name: /note/i }).fill('the box is at (2, 2)');
    await row.getByRole('button', { name: 'flag right' }).click();
    await expect.poll(() => row.getByTestId('verdict').textContent()).toContain('flag right · ada@lab.test');
    await expect.poll(() => row.textContent()).toContain("your team's verdicts: 1 of 1 right");
    expect(await row.getByTestId('verdict').textContent()).toContain('the box is at (2, 2)');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.goto(`${sys.webUrl}/runs/${run.id}`);
    await page.getByRole('tab', { name: 'diagnostics' }).click();
    await expect.poll(() => page.getByTestId('team-precision').textContent()).toMatch(/100%\s*\(1 of 1 flags right\)/);
    expect(await page.getByTestId('team-precision-rule').first().textContent()).toMatch(/rule coordinate 100%/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    const exported = await page.evaluate(
      async (url) => (await fetch(`${url}/api/verdicts.jsonl`, { credentials: 'include' })).text(),
      sys.apiUrl,
    );
    expect(JSON.parse(exported.trim())).toMatchObject({
      think,
      contradicted: true,
      claims: [{ text: 'The box is at (1, 3)', verdict: 'false' }],
    });
  });
});
