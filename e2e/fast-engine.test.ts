import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ensureFastEngine } from '../scripts/fast-engine.mjs';
import { ROOT } from './helpers.js';

/** A checkout holding only the trainer's addon build script (and the addon, when `built`). */
function checkout(built: boolean): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'starpo-engine-'));
  mkdirSync(path.join(dir, 'packages/trainer/scripts'), { recursive: true });
  copyFileSync(path.join(ROOT, 'packages/trainer/scripts/build-native.mjs'), path.join(dir, 'packages/trainer/scripts/build-native.mjs'));
  if (built) {
    mkdirSync(path.join(dir, 'packages/trainer/native/build'), { recursive: true });
    writeFileSync(path.join(dir, 'packages/trainer/native/build/kernels.node'), '');
  }
  return dir;
}

describe('npm start’s engine check', () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.unstubAllEnvs();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('keeps a built addon as it is', () => {
    dirs.push(checkout(true));
    expect(ensureFastEngine(dirs[0]!)).toEqual({ fast: true });
  });

  it('tries to build a missing addon and, when it cannot, says why in the build script’s words', () => {
    dirs.push(checkout(false));
    vi.stubEnv('STARPO_NO_NATIVE', '1');
    expect(ensureFastEngine(dirs[0]!)).toEqual({ fast: false, why: 'STARPO_NO_NATIVE is set' });
    vi.unstubAllEnvs();
    // the script runs: here its C source is missing, so the compiler's complaint is the reason
    expect((ensureFastEngine(dirs[0]!) as { why: string }).why).toMatch(
      /^(compile failed: .*kernels\.c|no cblas\.h: apt-get install libopenblas-dev|no Node headers)/,
    );
  });
});
