import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium, startSystem, stopStackAndBrowser, type Started } from './helpers.js';

const exe = chromiumPath();

describe.skipIf(!exe)('the dashboard under its Content Security Policy, in a real browser', { timeout: 300_000 }, () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-csp-'));
  chmodSync(tmp, 0o755);
  let sys: Started;
  let browser: Browser;

  beforeAll(async () => {
    if (!exe) console.warn('SKIPPED CSP browser check: no Chromium found (install Debian chromium or set CHROMIUM_PATH)');
    sys = await startSystem({
      STARPO_DATA_DIR: path.join(tmp, 'pg'),
      STARPO_PG_PORT: '0',
      API_PORT: '0',
      WEB_PORT: '0',
      STARPO_QUIET: '1',
    });
    browser = await launchChromium();
  });
  afterAll(() => stopStackAndBrowser(sys, browser, tmp));

  it("lets scripts run only by a nonce of the response: no 'unsafe-inline', a fresh nonce per request, on every script of the page", async () => {
    const ids = [randomUUID(), randomUUID()].join(',');
    const nonces: string[] = [];
    for (const page of ['/login', '/login', `/compare?runs=${ids}`]) {
      const res = await fetch(`${sys.webUrl}${page}`);
      const csp = res.headers.get('content-security-policy') ?? '';
      const scriptSrc = /(?:^|;)\s*script-src ([^;]*)/.exec(csp)?.[1] ?? '';
      expect(scriptSrc, csp).toMatch(/^'self' 'nonce-[A-Za-z0-9+/]+={0,2}'$/);
      const nonce = /'nonce-([^']+)'/.exec(scriptSrc)![1]!;
      // every script tag of the HTML, Next's own and the compare page's prefetch, carries this response's nonce
      const tags = (await res.text()).match(/<script\b[^>]*>/g) ?? [];
      expect(tags.length, page).toBeGreaterThan(page.startsWith('/compare') ? 1 : 0);
      for (const tag of tags) expect(tag, page).toContain(`nonce="${nonce}"`);
      nonces.push(nonce);
    }
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  it('sends CSP and frame headers, and the pages still hydrate, call the API and go live with no violation', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (e) =>
        console.error(`Content Security Policy: ${e.violatedDirective} ${e.blockedURI}`),
      ),
    );

    const res = await page.goto(sys.webUrl);
    const headers = res!.headers();
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(headers['x-frame-options']).toBe('DENY');

    // signing up needs React to have hydrated (client-side form) and a credentialed fetch to the API
    await page.waitForURL(/\/login/);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Create your team');
    await page.fill('input[name=name]', 'Ada');
    await page.fill('input[name=email]', 'ada@lab.test');
    await page.fill('input[name=password]', 'correct horse');
    await page.fill('input[name=teamName]', 'lab');
    await page.click('button[type=submit]');
    await page.waitForURL(`${sys.webUrl}/`);
    await expect.poll(() => page.getByTestId('who').textContent()).toContain('owner');
    // a write from the dashboard's origin passes the API's CSRF rule; the live socket connects
    /** An external run created by the page itself (a credentialed POST from the dashboard's origin). */
    const createRun = (name: string) =>
      page.evaluate(
        async ([api, name]) => {
          const r = await fetch(`${api}/api/runs`, {
            method: 'POST',
            credentials: 'include',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name, external: true, config: {} }),
          });
          return { status: r.status, id: ((await r.json()) as { id: string }).id };
        },
        [sys.apiUrl, name] as const,
      );
    const created = await createRun('csp');
    expect(created.status).toBe(201);
    await page.goto(`${sys.webUrl}/runs/${created.id}`);
    await expect.poll(() => page.getByTestId('run-name').textContent()).toBe('csp');
    await page.waitForTimeout(1500); // the socket connects and subscribes
    expect(violations).toEqual([]);

    // the compare page starts its API requests from the HTML and the app takes them over: one request
    // each; a run id that tries to close the prefetch script runs nothing
    const other = (await createRun('csp-2')).id;
    const requested: string[] = [];
    page.on('request', (r) => r.url().startsWith(sys.apiUrl) && requested.push(new URL(r.url()).pathname));
    await page.goto(`${sys.webUrl}/compare?runs=${created.id},${other}`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Compare 2 runs');
    await expect.poll(() => page.getByText('Same config.').count()).toBe(1);
    expect(requested.filter((p) => p === '/api/metrics')).toHaveLength(1);
    expect(requested.filter((p) => p === `/api/runs/${created.id}`)).toHaveLength(1);
    expect(requested.filter((p) => p === '/api/auth/session')).toHaveLength(1);
    const hostile = encodeURIComponent(`${created.id},</script><script>window.injected=1</script>`);
    await page.goto(`${sys.webUrl}/compare?runs=${hostile}`);
    await expect.poll(() => page.locator('.error').count()).toBeGreaterThan(0); // the API refuses the id
    expect(await page.evaluate(() => (window as unknown as { injected?: number }).injected)).toBeUndefined();
    // the pages that validate in the browser (environment boards, the run form) do it without eval
    await page.goto(`${sys.webUrl}/envs`);
    await page.getByTestId('board-sokoban').waitFor();
    await page.goto(`${sys.webUrl}/runs/new`);
    await page.locator('input[name="training.steps"]').waitFor();
    await page.fill('input[name="training.steps"]', '0');
    await expect.poll(() => page.locator('.field.invalid').count()).toBeGreaterThan(0);
    expect(violations).toEqual([]);

    // a page of another origin cannot frame the dashboard
    const framer = await browser.newPage();
    const blocked: string[] = [];
    framer.on('console', (m) => blocked.push(m.text()));
    await framer.setContent(`<iframe src="${sys.webUrl}/login"></iframe>`);
    await expect.poll(() => blocked.join('\n'), { timeout: 10_000 }).toMatch(/frame-ancestors|X-Frame-Options|Refused to display/i);
  });
});
