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
    await page.goto(sys.webUrl);
    await api('POST', '/api/auth/signup', { email: 'ada@lab.test', password: 'correct horse', name: 'Ada', teamName: 'lab' });
  });
  afterAll(() => stopStackAndBrowser(sys, browser, tmp));

  /** An external CoordSokoban run with one trajectory of one turn thinking `think` on `board`. */
  const judgedTrajectory = async (name: string, think: string): Promise<{ runId: string; trajectoryId: string }> => {
    const run = (await api('POST', '/api/runs', { name, external: true, config: { env: 'CoordSokoban' } })) as { id: string };
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
    return { runId: run.id, trajectoryId: list.items[0]!.id };
  };
  const exportedVerdicts = async () =>
    (await page.evaluate(async (url) => (await fetch(`${url}/api/verdicts.jsonl`, { credentials: 'include' })).text(), sys.apiUrl))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { think: string; verdicts: { flagged: boolean; note: string | null }[] });

  it('marks a flag right in the replay; the Diagnostics tab shows the precision on the verdicts and exports them', async () => {
    const think = 'Box at (1, 3). Plan: Right.';
    const { runId, trajectoryId } = await judgedTrajectory('judged', think);
    await page.goto(`${sys.webUrl}/trajectories/${trajectoryId}`);
    const row = page.getByTestId('verdict-row').first();
    await expect.poll(() => row.textContent()).toContain('flagged by rule coordinate');
    expect(await page.getByTestId('claim-truth').first().textContent()).toMatch(/rule coordinate: right on \d+% of \d+ held-out flags/);
    await page.getByRole('textbox', { name: /note/i }).fill('the box is at (2, 2)');
    await row.getByRole('button', { name: 'flag right' }).click();
    await expect.poll(() => row.getByTestId('verdict').textContent()).toContain('flag right · ada@lab.test');
    await expect.poll(() => row.textContent()).toContain("your team's verdicts: 1 of 1 right");
    expect(await row.getByTestId('verdict').textContent()).toContain('the box is at (2, 2)');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.goto(`${sys.webUrl}/runs/${runId}`);
    await page.getByRole('tab', { name: 'diagnostics' }).click();
    await expect.poll(() => page.getByTestId('team-precision').textContent()).toMatch(/100%\s*\(1 of 1 flags right\)/);
    expect(await page.getByTestId('team-precision-rule').first().textContent()).toMatch(/rule coordinate 100%/);
    // beside the team's own verdicts, each rule's precision on held-out text with its sample
    expect(await page.getByTestId('heldout-flagging').textContent()).toMatch(/coordinate on fixed sentences \d+% of \d+/);
    expect(await page.getByTestId('heldout-uncertain').textContent()).toMatch(/relation on free text \d+% of \d+/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect((await exportedVerdicts()).find((l) => l.think === think)).toMatchObject({
      think,
      contradicted: true,
      claims: [{ text: 'Box at (1, 3)', verdict: 'false' }],
    });
  });

  it('shows a garbled sentence as not checkable and a reading the checker is unsure of as uncertain, neither as a flag', async () => {
    // the player is at (1, 1) and the box at (2, 2): "to my left" is false, but free text is read less surely than the teacher's sentences
    const think = 'Player at (1, 1). Target at (1, 3 left. The box is to my left.';
    const { trajectoryId } = await judgedTrajectory('garbled', think);
    await page.goto(`${sys.webUrl}/trajectories/${trajectoryId}`);
    const garbled = page.getByTestId('uncheckable-claim').filter({ hasText: 'Target at (1, 3 left' });
    await expect.poll(() => garbled.count()).toBe(1);
    expect(await garbled.getAttribute('title')).toMatch(/not checkable: a bracket that is never closed/);
    const unsure = page.getByTestId('uncertain-claim');
    expect(await unsure.textContent()).toBe('The box is to my left');
    expect(await unsure.getAttribute('title')).toMatch(
      /^uncertain: the reading rule "relation" was right on \d+ of its \d+ contradictions on free text/,
    );
    expect(await page.getByTestId('contradicted-claim').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('asks before marking an unflagged sentence missed, and a note goes with one verdict only', async () => {
    const think = 'Box at (1, 3). Player at (1, 1).';
    const { trajectoryId } = await judgedTrajectory('noted', think);
    await page.goto(`${sys.webUrl}/trajectories/${trajectoryId}`);
    const rows = page.getByTestId('verdict-row');
    const flagged = rows.filter({ hasText: 'Box at (1, 3)' });
    const unflagged = rows.filter({ hasText: 'Player at (1, 1)' });
    await expect.poll(() => unflagged.textContent()).toContain('not flagged');
    const verdicts = async () =>
      (await api('GET', `/api/trajectories/${trajectoryId}/verdicts`)) as { flagged: boolean; note: string | null }[];

    // "missed" is a quiet link (no filled button) that records nothing until it is confirmed
    const missed = unflagged.getByRole('button', { name: 'missed: this is false…' });
    expect(await missed.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgba(0, 0, 0, 0)');
    await missed.click();
    await unflagged.getByRole('button', { name: 'cancel' }).click();
    expect(await unflagged.getByTestId('confirm-missed').count()).toBe(0);
    expect(await verdicts()).toEqual([]);

    // the note goes with the next verdict only: the box is cleared once it is recorded
    const note = page.getByRole('textbox', { name: /note/i });
    await note.fill('the box is at (2, 2)');
    await flagged.getByRole('button', { name: 'flag right' }).click();
    await expect.poll(() => flagged.getByTestId('verdict').textContent()).toContain('the box is at (2, 2)');
    expect(await note.inputValue()).toBe('');
    await missed.click();
    await unflagged.getByRole('button', { name: 'yes, mark missed' }).click();
    await expect.poll(() => unflagged.getByTestId('verdict').textContent()).toContain('missed · ada@lab.test');
    expect(await unflagged.getByTestId('verdict').textContent()).not.toContain('the box is at (2, 2)');
    expect((await verdicts()).map((v) => [v.flagged, v.note])).toEqual([
      [true, 'the box is at (2, 2)'],
      [false, null],
    ]);
    const line = (await exportedVerdicts()).find((l) => l.think === think)!;
    expect(line.verdicts.map((v) => v.note)).toEqual(['the box is at (2, 2)', null]);
  });
});
