import { FrozenLakeEnv, SokobanEnv, renderSnapshot } from '@starpo/envs';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumPath,
  drawAllCharts,
  ROOT,
  pageFetch,
  seriousAxeViolations,
  startStackAndBrowser,
  stopStackAndBrowser,
  type Started,
} from './helpers.js';

const exe = chromiumPath();
const SHOTS = path.join(ROOT, 'docs/screenshots');

/** A quick-cpu run shrunk to seconds a step: FrozenLake, the nano model, small groups. */
const SMALL = {
  model: { base: 'starpo-tiny/nano' },
  rollout: { envGroups: 2, groupSize: 4, maxNewTokens: 8, validation: { size: 4, every: 2 } },
  ppo: { miniBatchSize: 4, microBatchSize: 4 },
  training: { checkpointEvery: 2 },
  earlyStopping: { enabled: false },
};

describe.skipIf(!exe)('the dashboard in a real browser against the real stack', { timeout: 400_000 }, () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-web-'));
  chmodSync(tmp, 0o755);
  let sys: Started;
  let browser: Browser;
  let page: Page;
  const api = async (method: string, p: string, body?: unknown) => (await pageFetch(page, method, sys.apiUrl + p, body)).body as never;

  /** The think text as written, without the checker's "✗ the truth" notes. */
  const thinkText = () =>
    page.getByTestId('think').evaluate((el) => {
      const copy = el.cloneNode(true) as HTMLElement;
      copy.querySelectorAll('[data-testid=claim-truth]').forEach((n) => n.remove());
      return copy.textContent;
    });

  /** Signs up when the first test did not run (these tests can run alone with -t). */
  const signedIn = async () => {
    if (page.url().startsWith(sys.webUrl)) return;
    await page.goto(sys.webUrl);
    const me = await page.evaluate(async (url) => (await fetch(`${url}/api/auth/me`, { credentials: 'include' })).status, sys.apiUrl);
    if (me === 200) return;
    await api('POST', '/api/auth/signup', { email: 'py@lab.test', password: 'correct horse', name: 'Py', teamName: 'lab' });
  };

  beforeAll(async () => {
    if (!exe) console.warn('SKIPPED dashboard browser tests: no Chromium found (install Debian chromium or set CHROMIUM_PATH)');
    ({ sys, browser } = await startStackAndBrowser(tmp, { WORKER_POLL_MS: '300' }));
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(() => stopStackAndBrowser(sys, browser, tmp));

  it('create an account, launch a run from the form (field errors first), watch it live, replay a trajectory', async () => {
    await page.goto(sys.webUrl);
    await page.waitForURL(/\/login/);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Create your team');
    await page.fill('input[name=name]', 'Ada');
    await page.fill('input[name=email]', 'ada@lab.test');
    await page.fill('input[name=password]', 'correct horse');
    await page.fill('input[name=teamName]', 'lab');
    await page.click('button[type=submit]');
    await page.waitForURL(`${sys.webUrl}/`);
    await expect.poll(() => page.getByTestId('who').textContent()).toContain('owner');

    await page.goto(`${sys.webUrl}/runs/new`);
    await expect.poll(() => page.title(), { timeout: 20_000 }).toBe('New run · StarPO Studio');
    await page.selectOption('select[name=env]', 'frozenlake');
    const baseLabel = () => page.locator('select[name=base] option[value=""]').textContent();
    await expect.poll(baseLabel).toContain('starpo-base/frozenlake-tiny');
    const stableBase = await baseLabel();
    // each control is named by its label alone
    expect(await page.getByRole('combobox', { name: 'Preset', exact: true }).count()).toBe(1);
    expect(await page.getByLabel('Seed', { exact: true }).count()).toBe(1);
    await page.fill('input[name="training.steps"]', '-3');
    await page.fill('input[name="rollout.temperature"]', '0.5.1');
    await page.fill('input[name=name]', '   ');
    await page.locator('details summary').click();
    expect(await page.getByRole('textbox', { name: 'JSON overrides', exact: true }).count()).toBe(1);
    await page.fill('textarea[name=overrides]', JSON.stringify(SMALL));
    // one plain sentence per field, at the field, and nowhere else
    const fieldError = (label: string) =>
      page.locator('.field.invalid', { has: page.getByText(label, { exact: true }) }).locator('small.error');
    await expect.poll(() => fieldError('Training steps').textContent()).toBe('Must be at least 1.');
    expect(await fieldError('Sampling temperature').textContent()).toBe('Must be a number.');
    expect(await fieldError('Name').textContent()).toBe('Must contain more than spaces; leave it empty for a generated name.');
    expect(await page.getByTestId('form-errors').count()).toBe(0); // every error has its field
    expect(await page.locator('form').textContent()).not.toMatch(/expected|Too small|received/);
    expect(await baseLabel()).toBe(stableBase); // another field's error leaves the base model's label alone
    // Launch stays off, with the reason, while the browser already knows the form is invalid
    await expect.poll(() => page.getByTestId('launch-blocked').textContent()).toContain('3 fields');
    expect(await page.getByRole('button', { name: 'Launch' }).isDisabled()).toBe(true);
    expect(page.url()).toContain('/runs/new');
    await page.fill('input[name="rollout.temperature"]', '');
    await page.fill('input[name=name]', '');

    // a long run says how long before Launch
    await page.fill('input[name="training.steps"]', '100000');
    await expect.poll(() => page.getByTestId('duration-estimate').textContent()).toMatch(/about \d+ hours \(100000 steps\), rough guess/); // SMALL's short replies: hours, not minutes
    await page.fill('input[name="training.steps"]', '5');
    await expect.poll(() => page.getByTestId('duration-estimate').textContent()).toMatch(/about \d+ min/);
    await page.fill('input[name=name]', 'lake-live');
    await expect
      .poll(async () => ((await page.getByTestId('form-errors').count()) ? await page.getByTestId('form-errors').textContent() : 'none'))
      .toBe('none');
    await page.click('button[type=submit]');
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByTestId('run-name').textContent()).toBe('lake-live');

    // live: the status turns running and the charts receive points without a reload
    await expect.poll(() => page.getByTestId('status').textContent(), { timeout: 60_000 }).toMatch(/running|succeeded/);
    await expect.poll(() => page.getByTestId('chart').count(), { timeout: 60_000 }).toBeGreaterThan(3);
    const points = async () => Number(await page.getByTestId('chart').first().getAttribute('data-points'));
    const early = await points();
    expect(await page.getByTestId('status').textContent()).toBe('running'); // so what follows arrives live
    await expect.poll(() => page.getByTestId('status').textContent(), { timeout: 240_000 }).toBe('succeeded');
    await expect.poll(points, { timeout: 15_000 }).toBeGreaterThan(early);

    // warnings: each code once, advice worded against this run's config, and the tabs still in view
    const lake = (await api('GET', `/api/runs/${page.url().split('/').pop()}`)) as { warnings: string[] };
    const warnings = page.getByTestId('run-warning');
    await expect.poll(() => warnings.count(), { timeout: 15_000 }).toBe(lake.warnings.length);
    const flat = (await warnings.allTextContents()).find((t) => t.startsWith('No reward variance'));
    // every reply of the from-scratch nano breaks the format, so every group scores alike
    expect(flat).toContain('more rollouts per group (rollout.groupSize, now 4)');
    expect(flat).not.toContain('shaped reward'); // quick-cpu already shapes FrozenLake's reward (goal_distance)
    await page.evaluate(() => window.scrollTo(0, 0));
    const tabs = (await page.getByRole('tab', { name: 'charts' }).boundingBox())!;
    expect(tabs.y + tabs.height).toBeLessThan(900);
    await drawAllCharts(page);
    await page.screenshot({ path: path.join(SHOTS, 'run-charts.png'), fullPage: true });

    await page.getByRole('tab', { name: 'trajectories' }).click();
    await page.getByTestId('trajectory-link').first().click();
    await page.waitForURL(/\/trajectories\//);
    const id = page.url().split('/').pop()!;
    const traj = (await api('GET', `/api/trajectories/${id}`)) as { turns: { think: string; stateSnapshot: never }[] };
    await expect.poll(() => page.getByTestId('replay-board-text').textContent()).toBe(renderSnapshot(traj.turns[0]!.stateSnapshot));
    expect(await thinkText()).toBe(traj.turns[0]!.think || '(empty)');
    if (traj.turns.length > 1) {
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => page.getByTestId('turn-label').textContent()).toBe(`turn 2 / ${traj.turns.length}`);
      expect(await page.getByTestId('replay-board-text').textContent()).toBe(renderSnapshot(traj.turns[1]!.stateSnapshot));
      expect(await thinkText()).toBe(traj.turns[1]!.think || '(empty)');
    }
  });

  it('replays an episode turn by turn: the board and the think/answer text follow the slider and the keys', async () => {
    // a known Sokoban episode, ingested as an external run, so the board must change between turns
    const env = new SokobanEnv();
    const obs0 = env.reset(3);
    const s0 = env.snapshot();
    const move = env.actions.find((a) => {
      const e = new SokobanEnv();
      e.reset(3);
      return e.step(a).actionEffective;
    })!;
    env.step(move);
    const s1 = env.snapshot();
    const run = (await api('POST', '/api/runs', { name: 'known episode', external: true, config: { env: { name: 'sokoban' } } })) as {
      id: string;
    };
    await api('POST', `/api/runs/${run.id}/ingest/trajectories`, {
      trajectories: [
        {
          step: 1,
          success: false,
          turns: [
            {
              observation: obs0,
              rawReply: `<think>first I go ${move}</think><answer>${move}</answer>`,
              think: `first I go ${move}`,
              answer: move,
              actions: [move],
              reward: -0.1,
              snapshot: s0,
            },
            {
              observation: '',
              rawReply: 'no tags at all',
              think: '',
              answer: '',
              actions: [],
              reward: -0.1,
              formatOk: false,
              snapshot: s1,
            },
          ],
        },
      ],
    });
    const list = (await api('GET', `/api/runs/${run.id}/trajectories`)) as { items: { id: string }[] };
    await page.goto(`${sys.webUrl}/trajectories/${list.items[0]!.id}`);
    await expect.poll(() => page.getByTestId('replay-board-text').textContent()).toBe(renderSnapshot(s0));
    expect(await page.getByTestId('think').textContent()).toBe(`first I go ${move}`);
    await page.screenshot({ path: path.join(SHOTS, 'replay.png'), fullPage: true });
    await page.getByTestId('next-turn').click();
    await expect.poll(() => page.getByTestId('replay-board-text').textContent()).toBe(renderSnapshot(s1));
    expect(renderSnapshot(s1)).not.toBe(renderSnapshot(s0));
    expect(await page.getByTestId('turn-detail').textContent()).toContain('format penalty');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.getByTestId('turn-label').textContent()).toBe('turn 1 / 2');
    // a FrozenLake snapshot draws too
    const lake = new FrozenLakeEnv();
    lake.reset(5);
    expect(renderSnapshot(lake.snapshot())).toContain('P');
  });

  it('diagnoses reasoning: a false claim is highlighted with the truth, counted in the diagnostics tab and found by the flag filter', async () => {
    await signedIn();
    // Sokoban seed 3: a think that puts the box on the player's cell, and one that decides up but answers left
    const env = new SokobanEnv();
    const obs = env.reset(3);
    const s0 = env.snapshot();
    env.step('Left');
    const turn = (think: string, answer: string) => ({
      observation: obs,
      rawReply: `<think>${think}</think><answer>${answer}</answer>`,
      think,
      answer,
      actions: [answer],
      reward: -0.1,
      snapshot: s0,
    });
    const run = (await api('POST', '/api/runs', { name: 'diagnosed', external: true, config: { env: { name: 'sokoban' } } })) as {
      id: string;
    };
    await api('POST', `/api/runs/${run.id}/ingest/trajectories`, {
      trajectories: [
        // the teacher's sentence form, which the checker flags (free text it reads less surely is shown as uncertain)
        { step: 1, success: false, turns: [turn(`Box at (${s0.player[0]}, ${s0.player[1]}). Plan: Left.`, 'Left')] },
        { step: 1, indexInGroup: 1, success: false, turns: [turn('The box is right above me. So I go up.', 'Left')] },
      ],
    });
    // ingestion diagnoses; the command re-computes them (as after a checker upgrade)
    const port = /embedded PostgreSQL on port (\d+)/.exec(sys.output())![1];
    const out = execFileSync(process.execPath, ['apps/worker/dist/diagnose-cli.js', run.id], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: `postgresql://postgres:postgres@127.0.0.1:${port}/starpo` },
    }).toString();
    expect(out).toContain('2 trajectories in 1 step batches; 1 hallucinated');

    await page.goto(`${sys.webUrl}/runs/${run.id}`);
    await page.getByRole('tab', { name: 'diagnostics' }).click();
    await expect.poll(() => page.getByTestId('contradicted-claims').textContent()).toContain('box position');
    expect(await page.getByTestId('flag-counts').textContent()).toMatch(/hallucinated.*1 \(50%\)/);
    await page.screenshot({ path: path.join(SHOTS, 'diagnostics.png'), fullPage: true });

    // the flag links to the filtered trajectory list
    await page.getByRole('button', { name: /think–answer mismatch/ }).click();
    await expect.poll(() => page.getByTestId('trajectories-table').locator('tbody tr').count()).toBe(1);
    expect(await page.getByRole('combobox', { name: 'flag' }).inputValue()).toBe('think_answer_mismatch');
    await page.getByRole('combobox', { name: 'flag' }).selectOption('hallucinated');
    await expect.poll(() => page.getByTestId('trajectories-table').textContent()).toContain('hallucinated');

    // an example turn opens the replay with the false sentence marked and the truth beside it
    await page.getByRole('tab', { name: 'diagnostics' }).click();
    await page.getByTestId('claim-example').first().click();
    await page.waitForURL(/\/trajectories\/.+\?turn=0/);
    await expect.poll(() => page.getByTestId('contradicted-claim').first().textContent()).toBe('Box at (4, 2)');
    expect(await page.getByTestId('claim-truth').first().textContent()).toMatch(/box .*\(3, 2\).*right on \d+% of \d+ held-out flags/);
    expect(await thinkText()).toBe('Box at (4, 2). Plan: Left.');
    await page.screenshot({ path: path.join(SHOTS, 'replay-diagnostics.png'), fullPage: true });
    const list = (await api('GET', `/api/runs/${run.id}/trajectories?flag=think_answer_mismatch`)) as { items: { id: string }[] };
    await page.goto(`${sys.webUrl}/trajectories/${list.items[0]!.id}`);
    await expect.poll(() => page.getByTestId('think-answer-mismatch').textContent()).toContain('think decides up; the answer is left');
  });

  it('has no serious or critical accessibility violations (axe-core) on the main pages, and works from the keyboard', async () => {
    const runs = (await api('GET', '/api/runs?limit=10')) as { items: { id: string; name: string }[] };
    const lake = runs.items.find((r) => r.name === 'lake-live')!;
    const diagnosed = runs.items.find((r) => r.name === 'diagnosed')!;
    const traj = (await api('GET', `/api/runs/${diagnosed.id}/trajectories`)) as { items: { id: string }[] };
    const pages: [string, () => Promise<unknown>][] = [
      ['/', () => page.getByTestId('run-row').first().waitFor()],
      ['/runs/new', () => page.locator('select[name=env]').waitFor()],
      // the form filled in, with errors shown at their fields
      [
        '/runs/new',
        async () => {
          await page.fill('input[name=name]', 'axe check');
          await page.fill('input[name="training.steps"]', '-1');
          await page.fill('input[name="rollout.groupSize"]', '2.5');
          await page.fill('input[name="sample-seed"]', '7');
          await page.locator('details summary').click();
          await page.fill('textarea[name=overrides]', '{"rollout": {"validation": {"size": 0}}}');
          await page.getByTestId('form-errors').waitFor(); // validation.size has no field of its own
          await page.locator('.field.invalid').nth(1).waitFor();
        },
      ],
      [`/runs/${lake.id}`, () => page.getByTestId('chart').first().waitFor()],
      [`/trajectories/${traj.items[0]!.id}`, () => page.getByTestId('replay-board').waitFor()],
      ['/compare?runs=' + runs.items.map((r) => r.id).join(','), () => page.getByTestId('config-diff').waitFor()],
      ['/workers', () => page.locator('h1').waitFor()],
      ['/envs', () => page.locator('h1').waitFor()],
    ];
    const found: string[] = [];
    for (const [url, ready] of pages) {
      await page.goto(sys.webUrl + url);
      await ready();
      const violations = await seriousAxeViolations(page);
      found.push(...violations.map((v) => `${url} ${v}`));
    }
    expect(found).toEqual([]);

    // keyboard: tab to the run page's tabs and switch with Enter
    await page.goto(`${sys.webUrl}/runs/${diagnosed.id}`);
    await page.getByRole('tab', { name: 'diagnostics' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('diagnostics').count()).toBe(1);
  });

  it('compares two runs and cancels a run from its page', async () => {
    const long = (await api('POST', '/api/runs', {
      name: 'long one',
      preset: 'quick-cpu',
      config: { ...SMALL, env: { name: 'bandit' }, training: { steps: 500 } },
    })) as { id: string };
    await page.goto(`${sys.webUrl}/`);
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(4); // lake-live, known episode, diagnosed, long one
    // the from-scratch lake-live learns nothing measurable: the list says so
    const lakeRow = page.getByTestId('run-row').filter({ hasText: 'lake-live' });
    expect(await lakeRow.getByTestId('val-verdict').textContent()).toMatch(/ · no clear change$/);
    await page.screenshot({ path: path.join(SHOTS, 'runs.png'), fullPage: true });
    await page.getByLabel('select lake-live').check();
    await page.getByLabel('select long one').check();
    await page.getByTestId('compare-selected').click();
    await page.waitForURL(/\/compare\?runs=/);
    await expect.poll(() => page.getByTestId('config-diff').textContent()).toContain('env.name');
    await expect.poll(() => page.getByTestId('chart').count(), { timeout: 60_000 }).toBeGreaterThan(0);
    await drawAllCharts(page);
    await page.screenshot({ path: path.join(SHOTS, 'compare.png'), fullPage: true });

    await page.goto(`${sys.webUrl}/runs/${long.id}`);
    await expect.poll(() => page.getByTestId('status').textContent(), { timeout: 120_000 }).toBe('running');
    // the Logs box follows new lines: on a short screen it overflows, and the newest line stays in view
    await page.setViewportSize({ width: 1280, height: 480 });
    await page.getByRole('tab', { name: 'logs' }).click();
    const logs = page.getByTestId('logs');
    const shown = () => logs.locator('div').count();
    const before = await shown();
    await expect.poll(shown, { timeout: 60_000 }).toBeGreaterThan(Math.max(before, 25) + 3);
    const box = () =>
      logs.evaluate((el) => ({ overflow: el.scrollHeight > el.clientHeight, gap: el.scrollHeight - el.scrollTop - el.clientHeight }));
    expect((await box()).overflow).toBe(true);
    await expect.poll(async () => (await box()).gap).toBeLessThan(24);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByTestId('cancel').click();
    await expect.poll(() => page.getByTestId('status').textContent(), { timeout: 60_000 }).toBe('cancelled');
    await expect.poll(() => page.getByTestId('stop-reason').textContent()).toContain('cancelled by Ada');
  });
  it('tracks the Python example: listed, boards rebuilt from its text, flagged at ingestion', async () => {
    await signedIn();
    const { token } = (await api('POST', '/api/tokens', { name: 'python example' })) as { token: string };
    const { stdout } = await promisify(execFile)(
      'python3',
      ['clients/python/examples/scripted_sokoban.py', '--url', sys.apiUrl, '--token', token],
      {
        cwd: ROOT,
      },
    );
    const [, id, url] = /run (\S+): (\S+)/.exec(stdout)!;
    expect(url).toBe(`${sys.webUrl}/runs/${id}`);

    await page.goto(`${sys.webUrl}/`);
    const row = page.getByTestId('run-row').filter({ hasText: 'scripted-sokoban' });
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    expect(await row.textContent()).toContain('external');

    // the client sent only observation text: the replay draws the board the server read from it
    const { items } = (await api('GET', `/api/runs/${id}/trajectories?from=1&to=1&limit=10`)) as { items: { id: string }[] };
    const replay = (await api('GET', `/api/trajectories/${items[0]!.id}`)) as { turns: { observation: string }[] };
    await page.goto(`${sys.webUrl}/trajectories/${items[0]!.id}`);
    await expect
      .poll(() => page.getByTestId('replay-board').getAttribute('aria-label'), { timeout: 30_000 })
      .toBe(replay.turns[0]!.observation);
    expect(await page.getByTestId('no-board-note').count()).toBe(0);

    await page.goto(url);
    await page.getByRole('tab', { name: 'diagnostics' }).click();
    await expect.poll(() => page.getByTestId('flag-counts').textContent(), { timeout: 30_000 }).toMatch(/hallucinated.*[1-9]/);
    await page.getByRole('tab', { name: 'config' }).click();
    expect(await page.getByTestId('sent-config').textContent()).toContain('bfs-scripted');
  });
  it('replays stored turns that have no board: no snapshot, empty text, unknown environment, a huge think', async () => {
    await signedIn();
    const reply = (think: string) => ({
      rawReply: `<think>${think}</think><answer>Up</answer>`,
      think,
      answer: 'Up',
      actions: ['Up'],
      reward: 0,
    });
    const odd = (await api('POST', '/api/runs', { name: 'odd turns', external: true, config: { env: { name: 'sokoban' } } })) as {
      id: string;
    };
    await api('POST', `/api/runs/${odd.id}/ingest/trajectories`, {
      trajectories: [
        {
          step: 0,
          success: false,
          turns: [
            { observation: 'a corridor, no grid', ...reply('hmm') },
            { observation: '', ...reply('') },
            { observation: '#####\n#P_O#\n#####', ...reply('The box is left of me. '.repeat(2000)) },
          ],
        },
      ],
    });
    const shop = (await api('POST', '/api/runs', { name: 'shop', external: true, config: { env: 'webshop' } })) as { id: string };
    await api('POST', `/api/runs/${shop.id}/ingest/trajectories`, {
      trajectories: [{ step: 0, success: true, turns: [{ observation: 'search[red shoes]', ...reply('buy') }] }],
    });
    for (const [runId, notes] of [
      [odd.id, ['no Sokoban grid', 'the observation is empty', 'the grid has no box']],
      [shop.id, ['unknown environment "webshop"']],
    ] as const) {
      const { items } = (await api('GET', `/api/runs/${runId}/trajectories`)) as { items: { id: string }[] };
      await page.goto(`${sys.webUrl}/trajectories/${items[0]!.id}`);
      for (const [i, note] of notes.entries()) {
        if (i) await page.getByTestId('next-turn').click();
        await expect.poll(() => page.getByTestId('no-board-note').textContent(), { timeout: 30_000 }).toContain(note);
        expect(await page.getByTestId('replay-observation').count()).toBe(1);
      }
    }
    expect(await page.getByTestId('think').textContent()).toContain('buy');
  });
});
