import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningTestApi, runCommand, signupOwner, type ListeningTestApi, type TestUser } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const CLIENT = path.join(ROOT, 'clients/python');
/** The documents whose examples a reader copies: their curl and Python blocks run here. */
const DOCS = ['README.md', 'docs/api.md', 'docs/python-client.md'];

interface Example {
  lang: 'bash' | 'python';
  code: string;
  /** `docs/api.md:67`, where the block starts. */
  where: string;
}

/**
 * A document's ```bash blocks that call curl and its ```python blocks, in order. A block right after
 * `<!-- not run: reason -->` is left out (it needs what a test cannot give it, such as RAGEN).
 */
function examples(doc: string): Example[] {
  const text = readFileSync(path.join(ROOT, doc), 'utf8');
  const out: Example[] = [];
  for (const m of text.matchAll(/(<!-- not run: \S[^>]*-->\s*)?```(bash|python)\n([\s\S]*?)```/g)) {
    const [, skipped, lang, code] = m as unknown as [string, string | undefined, 'bash' | 'python', string];
    if (skipped || (lang === 'bash' && !/\bcurl\b/.test(code))) continue;
    out.push({ lang, code, where: `${doc}:${text.slice(0, m.index).split('\n').length}` });
  }
  return out;
}

/**
 * The substitutions, and only these, each for a placeholder the documents name:
 * - shell: a line `API=…` gets the test API's URL, a line `TOKEN=stp_…` the test's token;
 * - Python: `STARPO_URL` and `STARPO_TOKEN` in the environment (what the docs export), and the
 *   repository's client on PYTHONPATH in place of `pip install ./clients/python`.
 * Besides, curl fails on an HTTP error (--fail-with-body) instead of printing it and exiting 0, so
 * a refused request fails its block.
 */
async function runExamples(doc: string, url: string, token: string, cwd: string): Promise<string> {
  const all = examples(doc);
  const shell = all.filter((e) => e.lang === 'bash');
  let output = '';
  if (shell.length) {
    // one shell for the whole document, as a reader keeps their terminal: a block may use the last one's $RUN
    const script = [
      'set -euo pipefail',
      'exec 2>&1', // errors in order with the output, after the line naming their block
      'curl() { command curl --fail-with-body "$@"; echo; }',
      ...shell.flatMap((e) => [
        `echo '--- ${e.where}'`,
        e.code.replace(/^API=\S+/gm, `API=${url}`).replace(/^TOKEN=stp_\S*/gm, `TOKEN=${token}`),
      ]),
    ].join('\n');
    const { code, output: out } = await runCommand('bash', ['-c', script], { cwd, env: {} });
    expect(code, out).toBe(0);
    output += out;
  }
  for (const e of all.filter((x) => x.lang === 'python')) {
    const { code, output: out } = await runCommand('python3', ['-c', e.code], {
      cwd,
      env: { STARPO_URL: url, STARPO_TOKEN: token, PYTHONPATH: CLIENT },
    });
    expect(code, `${e.where}\n${out}`).toBe(0);
    output += out;
  }
  return output;
}

describe('the examples of the README, docs/api.md and docs/python-client.md, run as written against the real API', () => {
  let t: ListeningTestApi;
  let owner: TestUser;
  let dir: string;
  beforeAll(async () => {
    t = await listeningTestApi();
    // as after `npm start`: the team made in the browser, a token from Settings → API tokens
    owner = await signupOwner(t);
    dir = mkdtempSync(path.join(tmpdir(), 'doc-examples-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the examples: the shell ones of docs/api.md and the Python one of docs/python-client.md', () => {
    const count = (doc: string, lang: Example['lang']) => examples(doc).filter((e) => e.lang === lang).length;
    expect(count('docs/api.md', 'bash')).toBeGreaterThanOrEqual(3);
    expect(count('docs/python-client.md', 'python')).toBeGreaterThanOrEqual(1);
  });

  const outputs = new Map<string, string>();
  it.each(DOCS)('%s: every example exits 0', async (doc) => {
    outputs.set(doc, await runExamples(doc, t.url, owner.token, dir));
  });

  it('docs/api.md did what it says: a queued run, an external run with metrics, a trajectory and its end, a prune dry run', async () => {
    // the dry run names what would go and the trajectory is still there (checked below)
    const json = outputs
      .get('docs/api.md')!
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(JSON.parse(json.at(-1)!)).toMatchObject({ dryRun: true, trajectories: { deleted: 0 } });

    const queued = await t.db.run.findFirstOrThrow({ where: { kind: 'train' } });
    expect(queued).toMatchObject({ status: 'queued', environment: 'sokoban', totalSteps: 20, ownerId: owner.userId });
    const external = await t.db.run.findFirstOrThrow({ where: { name: 'ragen-qwen0.5b' } });
    expect(external).toMatchObject({
      kind: 'external',
      status: 'succeeded',
      environment: 'sokoban',
      algorithm: 'external',
      totalSteps: 0,
      currentStep: 10,
      config: { env: { name: 'sokoban' } },
    });
    const keys = (await t.db.metricPoint.findMany({ where: { runId: external.id }, select: { key: true } })).map((p) => p.key);
    // the two points sent, and the step's diagnostics metrics computed at ingestion
    expect(keys).toEqual(expect.arrayContaining(['val/success', 'train/entropy', 'val/diag/hallucination_rate']));
    const traj = await t.db.trajectory.findFirstOrThrow({ where: { runId: external.id }, include: { turns: true } });
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

  it('docs/python-client.md did what it says: a run with a metric and an episode, finished, and its page printed', async () => {
    const run = await t.db.run.findFirstOrThrow({ where: { name: 'qwen0.5b-sokoban' } });
    expect(outputs.get('docs/python-client.md')).toContain(`/runs/${run.id}`);
    expect(run).toMatchObject({ kind: 'external', status: 'succeeded', environment: 'sokoban', totalSteps: 200, tags: ['ragen'] });
    expect(await t.db.metricPoint.count({ where: { runId: run.id, key: 'train/success', step: 10 } })).toBe(1);
    expect(await t.db.trajectory.count({ where: { runId: run.id, step: 10, split: 'val' } })).toBe(1);
  });
});
