// Whether the trainer's OpenBLAS addon (the fast CPU engine) is built, building it when it can. turbo's
// cache restores a trainer build made before libopenblas-dev was installed, without the addon; building
// it here makes "install libopenblas-dev, then npm start again" enough.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** { fast: true } or { fast: false, why }: why the addon is missing, as packages/trainer/scripts/build-native.mjs says it. */
export function ensureFastEngine(root) {
  const addon = path.join(root, 'packages/trainer/native/build/kernels.node');
  if (existsSync(addon)) return { fast: true };
  let out;
  try {
    out = execFileSync(process.execPath, [path.join(root, 'packages/trainer/scripts/build-native.mjs')], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    out = String(e.stdout || e.message);
  }
  if (existsSync(addon)) return { fast: true };
  return { fast: false, why: /not built \((.*)\)/.exec(out)?.[1] ?? out.trim() };
}
