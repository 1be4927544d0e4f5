import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadTrainerSettings } from '../src/settings.js';

const bin = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

describe('trainer settings', () => {
  it('default to the blas engine, one OpenBLAS thread and the backend the run or CLI asks for', () => {
    expect(loadTrainerSettings({})).toMatchObject({ STARPO_BACKEND: undefined, STARPO_MATMUL: 'blas', OPENBLAS_NUM_THREADS: 1 });
    expect(loadTrainerSettings({ STARPO_BACKEND: 'wasm', STARPO_MATMUL: 'tfjs' })).toMatchObject({
      STARPO_BACKEND: 'wasm',
      STARPO_MATMUL: 'tfjs',
    });
  });

  it('a bad value stops the starpo command at start with a line naming it', () => {
    const r = spawnSync(process.execPath, [bin, 'env', 'list'], {
      env: { PATH: process.env.PATH, STARPO_BACKEND: 'cuda' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      'starpo: invalid environment: STARPO_BACKEND: expected one of auto, tensorflow, webgpu, wasm, cpu, got "cuda"',
    );
  });
});
