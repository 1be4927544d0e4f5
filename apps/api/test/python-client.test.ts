import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

const CLIENT = path.resolve(import.meta.dirname, '../../../clients/python');

/** Runs a command without blocking this process (the API under test answers from it). */
function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: CLIENT, env: { ...process.env, ...env }, maxBuffer: 16 << 20, timeout: 300_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

describe('the Python client (clients/python) against the real API and Postgres', () => {
  let t: TestApi;
  let owner: TestUser;
  let url: string;
  beforeAll(async () => {
    t = await startTestApi({ ingestRateLimit: 100_000 });
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    owner = await signupOwner(t);
  });
  afterAll(async () => t?.close());

  it('passes its unittest suite: batching, retry after 503, idempotent replay, field errors, finish, exit, RAGEN and verl', async () => {
    const { code, output } = await run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-v'], {
      STARPO_URL: url,
      STARPO_TOKEN: owner.token,
    });
    console.log(output);
    expect(output).not.toMatch(/skipped '/);
    expect(code).toBe(0);
  }, 300_000);
});
