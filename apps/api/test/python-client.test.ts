import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ROUTES, type RouteContract } from '@starpo/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

const CLIENT = path.resolve(import.meta.dirname, '../../../clients/python');

/** The contract whose path template matches a concrete path. */
function contractOf(method: string, url: string): RouteContract | undefined {
  return (Object.values(ROUTES) as RouteContract[]).find(
    (r) => r.method === method && new RegExp(`^${r.path.replace(/:\w+/g, '[^/]+')}$`).test(url),
  );
}

describe('the Python client (clients/python) against the real API and Postgres', () => {
  let t: TestApi;
  let owner: TestUser;
  let url: string;
  const traffic = path.join(mkdtempSync(path.join(os.tmpdir(), 'starpo-traffic-')), 'traffic.jsonl');
  beforeAll(async () => {
    t = await startTestApi({ ingestRateLimit: 100_000 });
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    owner = await signupOwner(t);
  });
  afterAll(async () => t?.close());

  it('passes its unittest suite: batching, retry after 503, idempotent replay, field errors, finish, exit, RAGEN and verl', async () => {
    const { code, output } = await runCommand('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-v'], {
      cwd: CLIENT,
      env: { STARPO_URL: url, STARPO_TOKEN: owner.token, STARPO_TRAFFIC_LOG: traffic },
    });
    console.log(output);
    expect(output).not.toMatch(/skipped '/);
    expect(code).toBe(0);
  }, 300_000);

  it("sends bodies and reads answers of the shapes the API's contracts declare", () => {
    // every request the suite above got an answer to, as the client logged it (STARPO_TRAFFIC_LOG)
    const lines = readFileSync(traffic, 'utf8').split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(10);
    const seen = new Set<string>();
    for (const line of lines) {
      const { method, path: url, status, body, response } = JSON.parse(line) as Record<string, unknown>;
      const r = contractOf(String(method), String(url).split('?')[0]!);
      expect(r, `${method} ${url}`).toBeDefined();
      seen.add(`${r!.method} ${r!.path}`);
      const problems = [
        r!.body && !r!.body.safeParse(body).success ? 'body' : null,
        r!.response && status !== 204 && !r!.response.safeParse(response).success ? 'response' : null,
      ].filter(Boolean);
      expect(problems, `${method} ${url}`).toEqual([]);
    }
    // the client's whole surface: create, ingest metrics and trajectories, finish
    expect([...seen]).toEqual(
      expect.arrayContaining([
        'POST /api/runs',
        'POST /api/runs/:id/ingest/metrics',
        'POST /api/runs/:id/ingest/trajectories',
        'POST /api/runs/:id/ingest/finish',
      ]),
    );
  });
});
