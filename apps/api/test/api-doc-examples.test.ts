import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './helpers.js';

const API_DOC = path.resolve(import.meta.dirname, '../../../docs/api.md');

/** docs/api.md's shell examples, in order (the ```bash blocks that call `$API/api/…`). */
function apiDocExamples(): string[] {
  const blocks = [...readFileSync(API_DOC, 'utf8').matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.filter((b) => b.includes('$API/api/'));
}

describe('the docs/api.md examples, run as written with curl and jq against the real API', () => {
  let t: TestApi;
  let url: string;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApi();
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    dir = mkdtempSync(path.join(tmpdir(), 'api-doc-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the team, a token, a run, and an external run with its metrics, a trajectory and its end, then a prune dry run', async () => {
    const blocks = apiDocExamples();
    expect(blocks.length).toBe(3);
    // Only the address changes; every curl fails the script on an HTTP error instead of printing it.
    const script = [
      'set -euo pipefail',
      'curl() { command curl --fail-with-body "$@"; echo; }',
      ...blocks.map((b) => b.replace(/^API=.*$/m, `API=${url}`)),
    ].join('\n');
    // asynchronous: the API answers from this same process
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd: dir, encoding: 'utf8' });
    console.log(stdout);
    // the dry run names what would go and the trajectory is still there (checked below)
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ dryRun: true, trajectories: { deleted: 0 } });

    const [queued, external] = await t.db.run.findMany({ orderBy: { createdAt: 'asc' } });
    expect(queued).toMatchObject({ kind: 'train', status: 'queued', environment: 'sokoban', totalSteps: 20 });
    expect(external).toMatchObject({
      kind: 'external',
      name: 'ragen-qwen0.5b',
      status: 'succeeded',
      environment: 'sokoban',
      algorithm: 'external',
      totalSteps: 0,
      currentStep: 10,
      config: { env: { name: 'sokoban' } },
    });
    const keys = (await t.db.metricPoint.findMany({ where: { runId: external!.id }, select: { key: true } })).map((p) => p.key);
    // the two points sent, and the step's diagnostics metrics computed at ingestion
    expect(keys).toEqual(expect.arrayContaining(['val/success', 'train/entropy', 'val/diag/hallucination_rate']));
    const traj = await t.db.trajectory.findFirstOrThrow({ where: { runId: external!.id }, include: { turns: true } });
    expect(traj).toMatchObject({ step: 10, split: 'val', groupIndex: 0, indexInGroup: 0 });
    // the board is rebuilt from the text, and the think is checked against it at ingestion
    expect(traj.turns[0]!.stateSnapshot).toEqual({
      env: 'sokoban',
      fixed: ['######', '#__O_#', '#____#', '######'],
      boxes: [[2, 2]],
      player: [1, 1],
      steps: 0,
      done: false,
      success: false,
    });
    expect(traj.turns[0]!.diagnostics).toMatchObject({ contradicted: 0 });
    expect((traj.turns[0]!.diagnostics as { claims: unknown[] }).claims.length).toBeGreaterThan(0);
  });
});
