import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const pkg = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(path.join(tmpdir(), 'gpu-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the GPU check', () => {
  it('bundles its runner, which in a dry run (wasm, tiny sizes) reports the backend, policy throughput and a step’s phase times', () => {
    const bundle = path.join(dir, 'gpu-check');
    execFileSync(process.execPath, [path.join(pkg, 'scripts', 'gpu-check.mjs'), '--js-only', '--out', bundle], { stdio: 'pipe' });
    // from another folder, as on the GPU machine: nothing may resolve through the repository
    const out = path.join(dir, 'out');
    const r = spawnSync(process.execPath, [path.join(bundle, 'gpu-run.js'), '--dry-run'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 400_000,
      env: { ...process.env, OUT: out },
    });
    const text = `${r.stdout}${r.stderr}`;
    expect(r.status, text).toBe(0);
    expect(text).toMatch(/tensor backend: wasm/);
    expect(text).toMatch(/generate tok\/s/);
    expect(text).toMatch(/│ 0\s+│ 'nano'/);
    for (const phase of ['gen', 'old_log_prob', 'update_actor', 'step']) expect(text).toMatch(new RegExp(`\\n${phase}\\s+\\d+\\.\\d+`));
    expect(text).toMatch(/GPU check done in \d+ s: 2 of 2 parts ran/);
    expect(readFileSync(path.join(out, 'gpu-check.log'), 'utf8')).toContain('GPU check done');
  }, 420_000);
});
