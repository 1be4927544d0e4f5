// Builds the optional OpenBLAS matmul addon (native/kernels.c → native/build/kernels.node) with the C
// compiler and the headers installed with Node: no network, no node-gyp download. When a compiler,
// Node's headers or a CBLAS (Debian: libopenblas-dev) is missing it says so and exits 0: the trainer
// then keeps the tfjs kernels.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'native');
const out = path.join(root, 'build', 'kernels.node');
const nodeInclude = path.join(path.dirname(path.dirname(process.execPath)), 'include', 'node');
const cblas = ['/usr/include/x86_64-linux-gnu', '/usr/include/aarch64-linux-gnu', '/usr/include/openblas', '/usr/include'].find((d) =>
  existsSync(path.join(d, 'cblas.h')),
);
const skip = (why) => {
  console.log(`native matmul not built (${why}); the tfjs kernels stay in use`);
  process.exit(0);
};
if (process.env.STARPO_NO_NATIVE) skip('STARPO_NO_NATIVE is set');
if (!existsSync(path.join(nodeInclude, 'node_api.h'))) skip(`no Node headers in ${nodeInclude}`);
if (!cblas) skip('no cblas.h: apt-get install libopenblas-dev');
mkdirSync(path.dirname(out), { recursive: true });
try {
  const cc = process.env.CC ?? 'cc';
  execFileSync(
    cc,
    [
      '-O3',
      '-fopenmp-simd',
      '-fno-trapping-math',
      '-fno-math-errno',
      '-ffinite-math-only',
      '-fno-signed-zeros',
      '-shared',
      '-fPIC',
      `-I${nodeInclude}`,
      `-I${cblas}`,
      path.join(root, 'kernels.c'),
      '-lopenblas',
      '-lm',
      '-o',
      out,
    ],
    {
      stdio: ['ignore', 'inherit', 'pipe'],
    },
  );
  console.log(`native matmul built: ${path.relative(process.cwd(), out)}`);
} catch (e) {
  skip(
    `compile failed: ${String(e.stderr ?? e.message)
      .trim()
      .split('\n')
      .slice(-3)
      .join(' | ')}`,
  );
}
