import { SokobanEnv } from '@starpo/envs';
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
/** Pages on a busy 2-core machine can take seconds to settle: poll longer than expect.poll's 1 s default. */
const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 20_000 });

/** Settings (tokens, invites, roles), what each role is offered, run metadata and the board's tiles, in a real browser. */
describe.skipIf(!exe)('team settings, roles and run metadata in a real browser', { timeout: 400_000 }, () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-team-'));
  chmodSync(tmp, 0o755);
  let sys: Started;
  let browser: Browser;
  let owner: Page;
  let runId = '';

  /** A same-origin-credentialed JSON call from a page (the session cookie goes along). */
  const api = (page: Page, method: string, p: string, body?: unknown) => pageFetch(page, method, sys.apiUrl + p, body);

  beforeAll(async () => {
    if (!exe) console.warn('SKIPPED team browser tests: no Chromium found (install Debian chromium or set CHROMIUM_PATH)');
    ({ sys, browser } = await startStackAndBrowser(tmp));
    owner = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    mkdirSync(SHOTS, { recursive: true });
    await owner.goto(sys.webUrl);
    await owner.waitForURL(/\/login/);
    await owner.locator('h1', { hasText: 'Create your team' }).waitFor();
    await owner.fill('input[name=name]', 'Ada');
    await owner.fill('input[name=email]', 'ada@lab.test');
    await owner.fill('input[name=password]', 'correct horse');
    await owner.fill('input[name=teamName]', 'lab');
    await owner.click('button[type=submit]');
    await owner.waitForURL(`${sys.webUrl}/`);
    await owner.getByTestId('who').filter({ hasText: 'owner' }).waitFor();
  });
  afterAll(() => stopStackAndBrowser(sys, browser, tmp));

  it('creates an API token shown once, a script calls the API with it, and revoking it shuts the script out', async () => {
    await owner.goto(`${sys.webUrl}/settings/tokens`);
    await owner.fill('input[name=tokenName]', 'laptop');
    await owner.getByRole('button', { name: 'Create token' }).click();
    const secret = await owner.getByTestId('token-secret').inputValue();
    expect(secret).toMatch(/^stp_/);
    await poll(() => owner.getByTestId('token-row').count()).toBe(1);
    expect(await owner.getByTestId('token-last-used').textContent()).toBe('never');
    expect(await owner.getByTestId('tokens').textContent()).not.toContain(secret); // the list has only the prefix

    // a script outside the browser, as docs/api.md shows
    const bearer = { authorization: `Bearer ${secret}` };
    const ok = await fetch(`${sys.apiUrl}/api/auth/me`, { headers: bearer });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { role: string }).role).toBe('owner');
    // the page links the API's reference: Swagger UI, served by the API
    const reference = await owner.getByTestId('api-docs-link').getAttribute('href');
    expect(reference).toBe(`${sys.apiUrl}/api/docs`);
    expect(await (await fetch(reference!)).text()).toContain('swagger-ui-bundle.js');
    await owner.screenshot({ path: path.join(SHOTS, 'settings-tokens.png'), fullPage: true });

    await owner.reload();
    await poll(() => owner.getByTestId('token-last-used').textContent()).not.toBe('never');
    expect(await owner.getByTestId('token-secret').count()).toBe(0); // shown once: gone after a reload
    owner.once('dialog', (d) => void d.accept());
    await owner.getByRole('button', { name: 'revoke laptop' }).click();
    await poll(() => owner.getByTestId('token-state').textContent()).toMatch(/^revoked/);
    expect((await fetch(`${sys.apiUrl}/api/auth/me`, { headers: bearer })).status).toBe(401);
  });

  it('invites a teammate who joins by the link; the owner makes them a viewer and the dashboard stops offering writes', async () => {
    const run = await api(owner, 'POST', '/api/runs', { name: 'owned by ada', external: true, config: { env: { name: 'sokoban' } } });
    expect(run.status).toBe(201);
    runId = (run.body as { id: string }).id;

    await owner.goto(`${sys.webUrl}/settings`);
    await owner.locator('[data-testid=invite-form] select[name=role]').selectOption('member');
    await owner.locator('[data-testid=invite-form] select[name=hours]').selectOption('24');
    await owner.getByRole('button', { name: 'Create invite link' }).click();
    const link = await owner.getByTestId('invite-link').inputValue();
    expect(link).toMatch(new RegExp(`^${sys.webUrl}/login\\?invite=inv_`));
    await poll(() => owner.getByTestId('invite-row').count()).toBe(1);
    expect(await owner.getByTestId('invite-row').textContent()).toContain('member');

    // a second invite, revoked: it leaves the list and its link no longer works
    await owner.getByRole('button', { name: 'Create invite link' }).click();
    await poll(() => owner.getByTestId('invite-row').count()).toBe(2);
    const revokedLink = await owner.getByTestId('invite-link').inputValue();
    await owner.getByTestId('invite-row').first().getByRole('button', { name: 'Revoke' }).click();
    await poll(() => owner.getByTestId('invite-row').count()).toBe(1);
    await owner.screenshot({ path: path.join(SHOTS, 'settings-team.png'), fullPage: true });

    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const bob = await ctx.newPage();
    await bob.goto(revokedLink);
    await poll(() => bob.locator('h1').textContent()).toBe('Join with an invite');
    await bob.fill('input[name=name]', 'Bob');
    await bob.fill('input[name=email]', 'bob@lab.test');
    await bob.fill('input[name=password]', 'correct horse');
    await bob.click('button[type=submit]');
    await poll(() => bob.locator('.field.invalid').textContent()).toContain('invalid invite');

    await bob.goto(link);
    await poll(() => bob.locator('input[name=invite]').inputValue()).toMatch(/^inv_/);
    await bob.fill('input[name=name]', 'Bob');
    await bob.fill('input[name=email]', 'bob@lab.test');
    await bob.fill('input[name=password]', 'correct horse');
    await bob.click('button[type=submit]');
    await bob.waitForURL(`${sys.webUrl}/`);
    await poll(() => bob.getByTestId('who').textContent()).toContain('member');
    // a member may not edit, cancel or delete the owner's run: disabled, with the reason as tooltip, and the API refuses too
    await bob.goto(`${sys.webUrl}/runs/${runId}`);
    await poll(() => bob.getByTestId('run-name').textContent()).toBe('owned by ada');
    await poll(() => bob.getByTestId('who').textContent()).toContain('member');
    for (const [id, verb] of [
      ['edit-meta', 'edit'],
      ['cancel', 'cancel'],
      ['delete', 'delete'],
    ]) {
      await poll(() => bob.getByTestId(id!).locator('..').getAttribute('title')).toBe(
        `only the run's creator, a team owner or an administrator may ${verb} this run`,
      );
      expect(await bob.getByTestId(id!).isDisabled(), id).toBe(true);
    }
    const refused = await api(bob, 'PATCH', `/api/runs/${runId}`, { notes: 'bob was here' });
    expect(refused).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect((await api(bob, 'POST', `/api/runs/${runId}/cancel`)).status).toBe(403);
    // on his own run the same controls are his; the owner (Ada) may act on it as well
    const bobs = (await api(bob, 'POST', '/api/runs', { name: 'owned by bob', external: true, config: { env: { name: 'sokoban' } } }))
      .body as { id: string };
    await bob.goto(`${sys.webUrl}/runs/${bobs.id}`);
    await poll(() => bob.getByTestId('run-name').textContent()).toBe('owned by bob');
    for (const id of ['edit-meta', 'cancel', 'delete']) await poll(() => bob.getByTestId(id).isEnabled()).toBe(true);
    await owner.goto(`${sys.webUrl}/runs/${bobs.id}`);
    await poll(() => owner.getByTestId('run-name').textContent()).toBe('owned by bob');
    for (const id of ['edit-meta', 'cancel', 'delete']) await poll(() => owner.getByTestId(id).isEnabled()).toBe(true);
    await owner.getByTestId('cancel').click();
    await poll(() => owner.getByTestId('stop-reason').textContent()).toContain('cancelled by Ada');
    expect((await api(owner, 'DELETE', `/api/runs/${bobs.id}`)).status).toBe(204); // the later tests count the runs
    await owner.goto(`${sys.webUrl}/settings`);
    await bob.goto(`${sys.webUrl}/settings`);
    await poll(() => bob.getByTestId('member-row').count()).toBe(2);
    expect(await bob.getByTestId('invite-form').count()).toBe(0);
    expect(await bob.getByRole('combobox', { name: /role of/ }).count()).toBe(0);

    // the owner sees Bob joined (invite used up) and makes him a viewer
    await owner.reload();
    await poll(() => owner.getByTestId('member-row').count()).toBe(2);
    expect(await owner.getByTestId('invite-row').count()).toBe(0);
    await owner.getByRole('combobox', { name: 'role of bob@lab.test' }).selectOption('viewer');
    await expect
      .poll(
        async () =>
          ((await api(owner, 'GET', '/api/team/members')).body as { email: string; role: string }[]).find((m) => m.email === 'bob@lab.test')
            ?.role,
      )
      .toBe('viewer');
    // the last owner cannot demote themself: the API's 409 is shown
    await owner.getByRole('combobox', { name: 'role of ada@lab.test' }).selectOption('viewer');
    await poll(() => owner.getByTestId('members-error').textContent()).toContain('at least one owner');

    await bob.goto(`${sys.webUrl}/runs/${runId}`);
    await poll(() => bob.getByTestId('who').textContent()).toContain('viewer');
    await poll(() => bob.getByTestId('run-name').textContent()).toBe('owned by ada');
    for (const id of ['cancel', 'delete', 'edit-meta']) {
      expect(await bob.getByTestId(id).isDisabled(), id).toBe(true);
      expect(await bob.getByTestId(id).locator('..').getAttribute('title'), id).toBe('needs the member role; you are viewer');
    }
    expect(await bob.getByTestId('clone').getAttribute('href')).toBeNull();
    await bob.goto(`${sys.webUrl}/`);
    const newRun = bob.locator('main').getByText('New run');
    await poll(() => newRun.getAttribute('aria-disabled')).toBe('true');
    expect(await newRun.getAttribute('href')).toBeNull();
    await bob.goto(`${sys.webUrl}/runs/new`);
    await poll(() => bob.getByTestId('launch-blocked').textContent()).toBe('needs the member role; you are viewer');
    expect(await bob.getByRole('button', { name: 'Launch' }).isDisabled()).toBe(true);
    await bob.screenshot({ path: path.join(SHOTS, 'viewer-form.png'), fullPage: true });
    await ctx.close();
  });

  it('edits a run’s name, tags and Markdown notes on its page; the notes render sanitised and survive a reload', async () => {
    await owner.goto(`${sys.webUrl}/runs/${runId}`);
    await owner.getByTestId('edit-meta').click();
    await owner.fill('input[name=meta-name]', '');
    await owner.getByRole('button', { name: 'Save' }).click();
    await poll(() => owner.locator('[data-testid=meta-form] .field.invalid').textContent()).toContain('Name');
    await owner.fill('input[name=meta-name]', 'renamed run');
    await owner.fill('input[name=meta-tags]', 'baseline, sokoban-6x6 ,');
    await owner.fill(
      'textarea[name=meta-notes]',
      '**Why**: a baseline.\n\n- lr 1e-4\n- see [the paper](https://arxiv.org/abs/2504.20073)\n\n<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>',
    );
    await owner.getByRole('button', { name: 'Save' }).click();
    await poll(() => owner.getByTestId('run-name').textContent()).toBe('renamed run');
    await owner.reload();
    await poll(() => owner.getByTestId('run-name').textContent()).toBe('renamed run');
    expect(await owner.getByTestId('run-tags').locator('a.tag').allTextContents()).toEqual(['baseline', 'sokoban-6x6']);
    const notes = owner.getByTestId('run-notes');
    expect(await notes.locator('strong').textContent()).toBe('Why');
    expect(await notes.locator('li').count()).toBe(2);
    expect(await notes.locator('a').getAttribute('href')).toBe('https://arxiv.org/abs/2504.20073');
    expect(await notes.locator('script').count()).toBe(0);
    expect(await notes.locator('img').getAttribute('onerror')).toBeNull();
    expect(await owner.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await owner.screenshot({ path: path.join(SHOTS, 'run-meta.png'), fullPage: false });

    // a tag links to the runs list filtered by it
    expect((await api(owner, 'POST', '/api/runs', { name: 'untagged', external: true, config: { env: { name: 'bandit' } } })).status).toBe(
      201,
    );
    await owner.getByTestId('run-tags').getByText('baseline').click();
    await owner.waitForURL(/\/\?tag=baseline/);
    await poll(() => owner.getByTestId('run-row').count()).toBe(1);
    expect(await owner.getByRole('textbox', { name: 'tag', exact: true }).inputValue()).toBe('baseline');
    const stored = (await api(owner, 'GET', `/api/runs/${runId}`)).body as { tags: string[]; notes: string };
    expect(stored.tags).toEqual(['baseline', 'sokoban-6x6']);
    expect(stored.notes).toContain('**Why**');
  });

  it('draws the boards with SVG tiles, not emoji, with a legend', async () => {
    await owner.goto(`${sys.webUrl}/envs`);
    const board = owner.getByTestId('board-sokoban');
    await board.waitFor();
    expect((await board.textContent())!.trim()).toBe(''); // no glyphs: every tile is a drawing
    expect(await board.locator('svg[data-sprite=player], svg[data-sprite=player-on-target]').count()).toBe(1);
    expect(await board.locator('svg[data-sprite=box]').count()).toBeGreaterThan(0);
    expect(await board.locator('svg[data-sprite=wall]').count()).toBeGreaterThan(0);
    expect(await owner.getByTestId('board-sokoban-legend').textContent()).toContain('box on target');
    // the player tile really paints its colour (rasterised by the browser, not a missing-glyph box)
    const bluish = await board.locator('svg[data-sprite=player]').evaluate(async (svg) => {
      const src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
      const img = new Image(40, 40);
      img.src = src;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = c.height = 40;
      const g = c.getContext('2d')!;
      g.drawImage(img, 0, 0, 40, 40);
      const d = g.getImageData(0, 0, 40, 40).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i + 2]! > 200 && d[i]! < 140) n++;
      return n;
    });
    expect(bluish).toBeGreaterThan(100);
    const lake = owner.getByTestId('board-frozenlake');
    expect(await lake.locator('svg[data-sprite=goal]').count()).toBe(1);
    expect(await lake.locator('svg[data-sprite=hole]').count()).toBeGreaterThan(0);
    await board.screenshot({ path: path.join(SHOTS, 'board.png') });
  });

  it('clones a run keeping its preset with only the differences as overrides; switching the environment leaves a valid form that launches', async () => {
    const src = await api(owner, 'POST', '/api/runs', {
      name: 'clone source',
      preset: 'quick-cpu',
      external: true,
      config: {
        env: { name: 'sokoban', config: { rows: 7 } },
        model: { base: 'starpo-tiny/nano' },
        rollout: { envGroups: 2, groupSize: 4, maxNewTokens: 8, validation: { size: 4, every: 2 } },
        ppo: { miniBatchSize: 4, microBatchSize: 4 },
        training: { steps: 2 },
        earlyStopping: { enabled: false },
      },
    });
    expect(src.status).toBe(201);
    const srcId = (src.body as { id: string }).id;
    await owner.goto(`${sys.webUrl}/runs/new?from=${srcId}`);
    await poll(() => owner.locator('input[name=name]').inputValue()).toBe('clone source (clone)');
    expect(await owner.locator('select[name=preset]').inputValue()).toBe('quick-cpu');
    expect(await owner.locator('select[name=env]').inputValue()).toBe('sokoban');
    expect(await owner.locator('input[name="training.steps"]').inputValue()).toBe('2');
    expect(await owner.locator('input[name="rollout.envGroups"]').inputValue()).toBe('2');
    await owner.locator('details summary').click();
    const overrides = () =>
      owner
        .locator('textarea[name=overrides]')
        .inputValue()
        .then((t) => JSON.parse(t) as Record<string, unknown>);
    await poll(overrides).toMatchObject({ env: { config: { rows: 7 } }, earlyStopping: { enabled: false } });
    expect(Object.keys(await overrides()).sort()).toEqual(['earlyStopping', 'env', 'ppo', 'rollout']); // not the whole config
    expect(await owner.getByTestId('preview-board').locator('svg[data-sprite=wall]').count()).toBeGreaterThan(0);

    await owner.selectOption('select[name=env]', 'frozenlake');
    await poll(overrides).not.toHaveProperty('env');
    expect(await overrides()).toMatchObject({ earlyStopping: { enabled: false } }); // the rest stays
    expect(await owner.getByTestId('form-errors').count()).toBe(0);
    await poll(() => owner.getByTestId('preview-board').locator('svg[data-sprite=goal]').count()).toBe(1);

    // a bad value: the error names the field, the other hints keep their defaults, Launch waits
    await owner.fill('input[name="ppo.actorLr"]', '-1');
    await poll(() => owner.locator('.field.invalid', { hasText: 'Actor learning rate' }).locator('small.error').textContent()).toBe(
      'Must be more than 0.',
    );
    expect(await owner.getByRole('button', { name: 'Launch' }).isDisabled()).toBe(true);
    expect(await owner.getByTestId('launch-blocked').textContent()).toContain('the field above is fixed');
    expect(await owner.locator('.field', { hasText: 'Sampling temperature' }).locator('small').textContent()).toMatch(/^default \d/);
    // a bad environment setting: the preview says so in words, not as a raw error dump
    const good = await owner.locator('textarea[name=overrides]').inputValue();
    await owner.fill('textarea[name=overrides]', JSON.stringify({ ...(await overrides()), env: { config: { size: 99 } } }));
    await poll(() => owner.getByTestId('preview-error').textContent()).toContain('env.config');
    expect(await owner.getByTestId('preview-error').textContent()).not.toMatch(/[[{]\s*"/);
    await owner.screenshot({ path: path.join(SHOTS, 'form-errors.png'), fullPage: true });
    await owner.fill('textarea[name=overrides]', good);
    await owner.fill('input[name="ppo.actorLr"]', '0.0001');
    await poll(() => owner.getByTestId('form-errors').count()).toBe(0);
    expect(await owner.getByTestId('launch-blocked').count()).toBe(0);
    expect(await owner.getByTestId('submit-error').count()).toBe(0);
    expect(await owner.getByTestId('preview-error').count()).toBe(0);

    await owner.getByRole('button', { name: 'Launch' }).click();
    await owner.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    const id = owner.url().split('/').pop()!;
    const made = (await api(owner, 'GET', `/api/runs/${id}`)).body as {
      preset: string;
      environment: string;
      config: Record<string, never>;
    };
    await api(owner, 'POST', `/api/runs/${id}/cancel`); // the launch is what was under test, not the training
    expect(made).toMatchObject({ preset: 'quick-cpu', environment: 'frozenlake' });
    expect(made.config).toMatchObject({
      training: { steps: 2 },
      ppo: { actorLr: 0.0001 },
      earlyStopping: { enabled: false },
      model: { base: 'starpo-tiny/nano' },
      rollout: { validation: { size: 4, every: 2 } },
    });
  });

  it('charts: a metric added with "+ chart" stays after a reload and in the URL; Compare keeps one colour per run, validation dashed', async () => {
    const other = ((await api(owner, 'GET', '/api/runs?limit=20')).body as { items: { id: string; name: string }[] }).items.find(
      (r) => r.name === 'untagged',
    )!;
    for (const [id, scale] of [
      [runId, 1],
      [other.id, 0.5],
    ] as const) {
      const points = [1, 2, 3, 4, 5].flatMap((step) => [
        { key: 'train/success', step, value: (scale * step) / 10 },
        { key: 'val/success', step, value: (scale * step) / 12 },
        { key: 'actor/lr', step, value: 1e-4 / step },
        { key: 'train/reward/std', step, value: 0 },
      ]);
      expect((await api(owner, 'POST', `/api/runs/${id}/ingest/metrics`, { points })).status).toBeLessThan(300);
    }
    await owner.goto(`${sys.webUrl}/runs/${runId}`);
    await owner.getByTestId('chart').first().waitFor();
    expect(await owner.locator('[data-testid=chart][data-title="actor/lr"]').count()).toBe(0); // logged but not charted by default
    await owner.getByLabel('metric to chart').fill('actor/lr');
    await owner.getByTestId('add-chart').click();
    await owner.locator('[data-testid=chart][data-title="actor/lr"]').waitFor();
    await poll(() => decodeURIComponent(owner.url())).toContain('charts=actor/lr');
    await owner.reload();
    const added = owner.locator('[data-testid=chart][data-title="actor/lr"]');
    await added.waitFor();
    // drawn once it comes near the screen, and then it fills its panel: the canvas is as wide as the panel less its padding
    await added.scrollIntoViewIfNeeded();
    await added.locator('canvas').first().waitFor();
    const [panel, canvas] = await added.evaluate((el) => [el.clientWidth, el.querySelector('canvas')!.getBoundingClientRect().width]);
    expect(canvas).toBeGreaterThan(panel! - 20);

    await owner.goto(`${sys.webUrl}/compare?runs=${runId},${other.id}`);
    const success = owner.locator('[data-testid=chart][data-title="Success"]');
    await success.waitFor();
    await poll(() => success.locator('.u-legend .u-label', { hasText: 'untagged: train/success' }).count()).toBeGreaterThan(0);
    const legend = await success.locator('.u-legend tr.u-series:not(.raw-series)').evaluateAll((rows) =>
      rows.slice(1).map((r) => {
        const m = r.querySelector('.u-marker') as HTMLElement;
        return { label: r.querySelector('.u-label')!.textContent!, color: m.style.borderColor, dash: m.style.borderStyle };
      }),
    );
    const of = (run: string, key: string) => legend.find((l) => l.label === `${run}: ${key}`)!;
    expect(of('renamed run', 'train/success').color).toBe(of('renamed run', 'val/success').color);
    expect(of('untagged', 'train/success').color).toBe(of('untagged', 'val/success').color);
    expect(of('renamed run', 'train/success').color).not.toBe(of('untagged', 'train/success').color);
    expect(of('renamed run', 'train/success').dash).toBe('solid');
    expect(of('renamed run', 'val/success').dash).toBe('dashed');
    await drawAllCharts(owner);
    await owner.screenshot({ path: path.join(SHOTS, 'compare.png'), fullPage: true });

    // a run trained elsewhere, with nested sections the other lacks: dotted keys with plain values, every column in view
    const verl = (
      await api(owner, 'POST', '/api/runs', {
        name: 'from verl',
        external: true,
        config: {
          env: { name: 'sokoban' },
          trainer: { name: 'verl', ppo: { clip: [0.2, 0.28], kl: { coef: 0.001 } } },
          notes: 'x'.repeat(300),
        },
      })
    ).body as { id: string };
    await owner.goto(`${sys.webUrl}/compare?runs=${runId},${verl.id}`);
    const diff = owner.getByTestId('config-diff');
    await poll(() => diff.locator('tbody tr').count()).toBeGreaterThan(2);
    const rows = await diff
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows.map((r) => r[0])).toEqual(expect.arrayContaining(['trainer.name', 'trainer.ppo.clip', 'trainer.ppo.kl.coef', 'notes']));
    expect(rows.find((r) => r[0] === 'trainer.ppo.kl.coef')).toEqual(['trainer.ppo.kl.coef', 'not set', '0.001']);
    expect(rows.flat().some((cell) => cell!.startsWith('{'))).toBe(false); // no whole objects
    const fits = await diff.evaluate((t) => t.getBoundingClientRect().right <= t.parentElement!.getBoundingClientRect().right + 1);
    expect(fits).toBe(true);
    expect((await api(owner, 'DELETE', `/api/runs/${verl.id}`)).status).toBe(204); // the later tests count the runs
  });

  it('charts: a series hidden from the legend and the layout stay after a reload, per user and in the URL', async () => {
    await owner.goto(`${sys.webUrl}/runs/${runId}`);
    const success = owner.locator('[data-testid=chart][data-title="Success"]');
    await success.waitFor();
    const row = (label: string) => success.locator('.u-legend tr.u-series:not(.raw-series)', { hasText: label });
    const hiddenNow = async () => ({
      val: await row('val/success').evaluate((r) => r.classList.contains('u-off')),
      train: await row('train/success').evaluate((r) => r.classList.contains('u-off')),
    });
    const columns = () =>
      owner.getByTestId('charts').evaluate((el) => getComputedStyle(el).gridTemplateColumns.split(' ').filter(Boolean).length);
    await row('val/success').locator('th').click();
    await poll(hiddenNow).toEqual({ val: true, train: false });
    await owner.getByLabel('layout').selectOption('2');
    await poll(columns).toBe(2);
    await poll(() => decodeURIComponent(owner.url())).toContain('hide=val/success');
    expect(owner.url()).toContain('columns=2');

    await owner.reload(); // the URL
    await success.waitFor();
    await poll(hiddenNow).toEqual({ val: true, train: false });
    await poll(columns).toBe(2);
    await owner.goto(`${sys.webUrl}/runs/${runId}`); // no settings in the URL: the user's saved ones
    await success.waitFor();
    await poll(hiddenNow).toEqual({ val: true, train: false });
    await poll(columns).toBe(2);
    // a shared link's settings win over the saved ones
    await owner.goto(`${sys.webUrl}/runs/${runId}?smoothing=0.6&x=step&log=0&hide=train%2Fsuccess&columns=3`);
    await success.waitFor();
    await poll(hiddenNow).toEqual({ val: false, train: true });
    await poll(columns).toBe(3);

    await owner.getByTestId('show-all-series').click();
    await poll(hiddenNow).toEqual({ val: false, train: false });
    await owner.getByLabel('layout').selectOption('0');
    await poll(() => owner.url()).not.toContain('columns=');
    expect(owner.url()).not.toContain('hide=');
  });

  it('the group view draws each group as a small multiple, several to a row', async () => {
    const trajectories = Array.from({ length: 8 }, (_, group) =>
      Array.from({ length: 4 }, (_, indexInGroup) => ({
        step: 2,
        group,
        indexInGroup,
        seed: 100 + group,
        success: indexInGroup === 0,
        turns: [
          { observation: 'a board', rawReply: '<answer>Up</answer>', answer: 'Up', actions: ['Up'], reward: indexInGroup === 0 ? 1 : 0 },
        ],
      })),
    ).flat();
    expect((await api(owner, 'POST', `/api/runs/${runId}/ingest/trajectories`, { trajectories })).status).toBeLessThan(300);
    await owner.goto(`${sys.webUrl}/runs/${runId}`);
    await owner.getByRole('tab', { name: 'trajectories' }).click();
    await owner.getByRole('button', { name: 'Groups' }).click();
    const panels = owner.getByTestId('groups').locator('.group');
    await poll(() => panels.count()).toBeGreaterThanOrEqual(8);
    // each group's start drawn small from its seed: tiles, no legend
    await poll(() => owner.getByTestId('groups').locator('.board-wrap.compact').count()).toBeGreaterThanOrEqual(8);
    const boxes = await panels.evaluateAll((els) =>
      els.map((e) => e.getBoundingClientRect()).map((r) => ({ top: Math.round(r.top), w: r.width })),
    );
    const perRow = boxes.filter((b) => b.top === boxes[0]!.top).length;
    expect(perRow).toBeGreaterThanOrEqual(4); // 1280 px wide: a grid, not one full-width panel a group
    expect(Math.max(...boxes.map((b) => b.w))).toBeLessThan(320);
    await owner.getByTestId('groups').screenshot({ path: path.join(SHOTS, 'groups.png') });
  });

  it('runs list: sorts by a metric, shows chosen columns, groups by environment, and keeps the view in the URL', async () => {
    await owner.goto(`${sys.webUrl}/?sort=-m:train/success&cols=owner,m:train/success&group=environment`);
    const names = () => owner.getByTestId('run-row').locator('td:nth-child(2) a').allTextContents();
    await poll(() => owner.getByTestId('run-group').allTextContents()).toEqual(['bandit (1)', 'frozenlake (1)', 'sokoban (2)']);
    await poll(() => owner.locator('thead th').allTextContents()).toEqual(['', 'Name', 'Status', 'Owner', 'train/success']);
    await poll(() => owner.getByTestId('run-row').first().locator('td').nth(3).textContent()).toBe('Ada');
    // ungrouped, the metric sort puts the higher last value first; runs without it go last
    await owner.getByLabel('group by').selectOption('');
    await poll(async () => ((n) => n.includes('renamed run') && n.includes('untagged'))(await names())).toBe(true);
    const order = await names();
    expect(order.indexOf('renamed run')).toBeLessThan(order.indexOf('untagged'));
    expect(order.at(-1)).not.toBe('renamed run');
    await owner.getByLabel('sort').selectOption('m:train/success');
    await poll(async () => {
      const n = await names();
      return n.indexOf('untagged') < n.indexOf('renamed run');
    }).toBe(true);
    await poll(() => decodeURIComponent(owner.url())).toContain('sort=m:train/success');
    expect(owner.url()).not.toContain('group=');
    await owner.reload();
    await poll(() => owner.getByLabel('sort').inputValue()).toBe('m:train/success');
    await poll(() => owner.locator('thead th').allTextContents()).toContain('train/success');
    await owner.screenshot({ path: path.join(SHOTS, 'runs.png'), fullPage: true });
  });

  it('at 420 px the nav folds behind Menu and no page scrolls sideways; the favicon is served', async () => {
    const ctx = await browser.newContext({ viewport: { width: 420, height: 860 }, storageState: await owner.context().storageState() });
    const narrow = await ctx.newPage();
    const missing: string[] = [];
    narrow.on('response', (r) => r.status() === 404 && r.url().startsWith(sys.webUrl) && missing.push(r.url()));
    for (const url of ['/', `/runs/${runId}`, '/runs/new', '/settings', '/settings/tokens', '/envs', '/workers']) {
      await narrow.goto(sys.webUrl + url);
      await narrow.getByTestId('who').waitFor();
      await narrow.waitForLoadState('networkidle');
      const width = await narrow.evaluate(() => document.documentElement.scrollWidth);
      expect(width, url).toBeLessThanOrEqual(420);
    }
    await narrow.goto(sys.webUrl);
    await narrow.getByTestId('run-row').first().waitFor();
    expect(await narrow.getByRole('link', { name: 'Workers' }).isVisible()).toBe(false);
    await narrow.getByRole('button', { name: 'Menu' }).click();
    expect(await narrow.getByRole('link', { name: 'Workers' }).isVisible()).toBe(true);
    await narrow.screenshot({ path: path.join(SHOTS, 'narrow-runs.png'), fullPage: true });
    expect(await narrow.locator('link[rel=icon]').count()).toBeGreaterThan(0);
    const icon = await narrow.locator('link[rel=icon]').first().getAttribute('href');
    expect((await fetch(new URL(icon!, sys.webUrl))).status).toBe(200);
    expect(missing).toEqual([]);
    await ctx.close();
  });

  it('has no serious or critical axe-core violation on any page, in the dark and the light theme', async () => {
    const env = new SokobanEnv();
    const observation = env.reset(3);
    const snapshot = env.snapshot();
    const ingest = await api(owner, 'POST', `/api/runs/${runId}/ingest/trajectories`, {
      trajectories: [
        {
          step: 1,
          success: false,
          turns: [
            {
              observation,
              snapshot,
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
    expect(ingest.status).toBeLessThan(300);
    const runs = (await api(owner, 'GET', '/api/runs?limit=10')).body as { items: { id: string }[] };
    const traj = (await api(owner, 'GET', `/api/runs/${runId}/trajectories`)).body as { items: { id: string }[] };
    const pages = [
      '/',
      '/runs/new',
      `/runs/${runId}`,
      `/trajectories/${traj.items[0]!.id}`,
      `/compare?runs=${runs.items.map((r) => r.id).join(',')}`,
      '/workers',
      '/envs',
      '/settings',
      '/settings/tokens',
    ];
    const found: string[] = [];
    for (const scheme of ['dark', 'light'] as const) {
      await owner.emulateMedia({ colorScheme: scheme });
      for (const url of pages) {
        await owner.goto(sys.webUrl + url);
        await owner
          .getByTestId('who')
          .waitFor()
          .catch(async () => {
            throw new Error(`${url} did not render: ${await owner.locator('body').textContent()}`);
          });
        await owner.waitForLoadState('networkidle');
        const violations = await seriousAxeViolations(owner);
        found.push(...violations.map((v) => `${scheme} ${url} ${v}`));
      }
      if (scheme === 'light') await owner.screenshot({ path: path.join(SHOTS, 'tokens-light.png'), fullPage: true });
    }
    await owner.emulateMedia({ colorScheme: 'dark' });
    expect(found).toEqual([]);
  });
});
