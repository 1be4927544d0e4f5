// Builds the GPU check: a folder (and a .tar of it, under 64 MiB) that runs on a Linux x86-64 machine
// with an NVIDIA GPU and no network: the runner and benchmarks bundled by esbuild, Node itself
// xz-compressed, the `webgpu` package's Dawn library, Debian's libvulkan1 loader, tfjs's wasm
// files (the CPU fallback) and, when there is one, a pretrained tiny base for the training steps.
//   node scripts/gpu-check.mjs [--out DIR] [--base DIR] [--js-only]
// --js-only bundles the scripts alone (what the dry run needs: `node DIR/gpu-run.js --dry-run`).
// On the GPU machine: tar -xf gpu-check.tar && gpu-check/run.sh   (OUT=<folder> keeps a log)
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LIMIT = 64 * 1024 * 1024;
const pkg = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const repo = path.join(pkg, '..', '..');
const require = createRequire(path.join(pkg, 'package.json'));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const out = path.resolve(arg('--out', path.join(repo, '.data', 'gpu-check', 'gpu-check')));
const jsOnly = process.argv.includes('--js-only');
const baseDir = arg('--base', path.join(repo, '.data', 'bases', 'sokoban-coord-tiny'));
const step = (msg) => console.log(`gpu-check: ${msg}`);

if (!existsSync(path.join(pkg, 'dist', 'backend.js'))) throw new Error('build @starpo/trainer first (npm run build -w @starpo/trainer)');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// 1. the scripts: one ESM bundle per entry, shared code split out; native and GPU packages stay outside
const esbuild = await import('esbuild');
await esbuild.build({
  // the compute pool's worker is an entry of its own: the pool starts it from beside its own module
  entryPoints: [
    ...['gpu-run', 'policy.bench', 'step.bench'].map((e) => path.join(pkg, 'bench', `${e}.mjs`)),
    path.join(pkg, 'dist', 'parallel', 'worker.js'),
  ],
  outdir: out,
  entryNames: '[name]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  external: ['webgpu', '@tensorflow/tfjs-node', '@tensorflow/tfjs-node-gpu'],
  // bundled CommonJS calls require() and reads __dirname: give the ESM output those
  banner: {
    js: [
      "import { createRequire as __starpoCreateRequire } from 'node:module';",
      "import { fileURLToPath as __starpoPath } from 'node:url';",
      'const require = __starpoCreateRequire(import.meta.url);',
      'const __filename = __starpoPath(import.meta.url);',
      "const __dirname = __filename.replace(/[\\\\/][^\\\\/]*$/, '');",
    ].join(' '),
  },
  logLevel: 'warning',
});
writeFileSync(path.join(out, 'package.json'), JSON.stringify({ type: 'module', private: true }));
step('scripts bundled');

// 2. tfjs's wasm binaries, where the wasm backend resolves them (node_modules beside the bundle)
const wasmDist = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
const wasmOut = path.join(out, 'node_modules', '@tensorflow', 'tfjs-backend-wasm');
mkdirSync(path.join(wasmOut, 'dist'), { recursive: true });
writeFileSync(path.join(wasmOut, 'package.json'), JSON.stringify({ name: '@tensorflow/tfjs-backend-wasm', version: 'bundled' }));
for (const f of readdirSync(wasmDist).filter((f) => f.endsWith('.wasm')))
  copyFileSync(path.join(wasmDist, f), path.join(wasmOut, 'dist', f));

// 3. a pretrained base when one exists (the steps otherwise use a random starpo-tiny)
if (existsSync(path.join(baseDir, 'config.json'))) {
  cpSync(baseDir, path.join(out, 'base'), { recursive: true, filter: (src) => !/checkpoints|trajectories/.test(src) });
  step(`base model from ${path.relative(repo, baseDir)}`);
} else step(`no base in ${path.relative(repo, baseDir)}: the steps will use a random starpo-tiny`);

if (!jsOnly) {
  // 4. Dawn for Node (the webgpu package: its loader and the linux-x64 library)
  const webgpu = path.dirname(require.resolve('webgpu/package.json'));
  const webgpuOut = path.join(out, 'node_modules', 'webgpu');
  mkdirSync(path.join(webgpuOut, 'dist', 'linux-x64'), { recursive: true });
  for (const f of ['package.json', 'index.js']) copyFileSync(path.join(webgpu, f), path.join(webgpuOut, f));
  copyFileSync(path.join(webgpu, 'dist', 'linux-x64', 'dawn.node'), path.join(webgpuOut, 'dist', 'linux-x64', 'dawn.node'));
  step('Dawn (webgpu) copied');

  // 5. the Vulkan loader: this machine's, or Debian's libvulkan1 package unpacked
  mkdirSync(path.join(out, 'vulkan'), { recursive: true });
  let loader = ['/usr/lib/x86_64-linux-gnu/libvulkan.so.1', '/usr/lib64/libvulkan.so.1'].find(existsSync);
  if (!loader) {
    const tmp = mkdtempSync(path.join(tmpdir(), 'libvulkan-'));
    execFileSync('apt-get', ['download', 'libvulkan1'], { cwd: tmp, stdio: 'inherit' });
    const deb = readdirSync(tmp).find((f) => f.endsWith('.deb'));
    execFileSync('dpkg-deb', ['-x', path.join(tmp, deb), path.join(tmp, 'x')]);
    loader = path.join(tmp, 'x', 'usr', 'lib', 'x86_64-linux-gnu', 'libvulkan.so.1');
  }
  copyFileSync(realpathSync(loader), path.join(out, 'vulkan', 'libvulkan.so.1'));
  step(`Vulkan loader from ${loader}`);

  // 6. Node itself, xz-compressed (the GPU machine may have none, or an older one)
  // compressed once per Node version (minutes on a busy 2-core machine), then reused
  const cached = path.join(path.dirname(out), `node-${process.version}-${process.platform}-${process.arch}.xz`);
  if (!existsSync(cached))
    execFileSync('sh', ['-c', `xz -T0 -6 -c "${process.execPath}" > "${cached}.part" && mv "${cached}.part" "${cached}"`]);
  copyFileSync(cached, path.join(out, 'node.xz'));
  step(`Node ${process.version} compressed`);
}

writeFileSync(
  path.join(out, 'run.sh'),
  `#!/bin/sh
# Runs the GPU check with the bundled Node, Dawn and Vulkan loader. OUT=<folder> keeps a log there.
set -e
cd "$(dirname "$0")"
if [ ! -x node ]; then
  if command -v xz >/dev/null; then xz -dc node.xz > node
  else python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open("node.xz").read())' > node; fi
  chmod +x node
fi
export LD_LIBRARY_PATH="$PWD/vulkan\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# NVIDIA's Vulkan driver: the driver's ICD file, or one written for its library when only that is there
if [ -z "$VK_ICD_FILENAMES" ]; then
  for f in /usr/share/vulkan/icd.d/nvidia_icd*.json /etc/vulkan/icd.d/nvidia_icd*.json; do
    [ -f "$f" ] && export VK_ICD_FILENAMES="$f" && break
  done
fi
if [ -z "$VK_ICD_FILENAMES" ] && { ldconfig -p 2>/dev/null | grep -q libGLX_nvidia.so.0 || ls /usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.0 >/dev/null 2>&1; }; then
  printf '{"file_format_version":"1.0.0","ICD":{"library_path":"libGLX_nvidia.so.0","api_version":"1.3.0"}}' > vulkan/nvidia_icd.json
  export VK_ICD_FILENAMES="$PWD/vulkan/nvidia_icd.json"
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L || true
exec ./node gpu-run.js "$@"
`,
);
chmodSync(path.join(out, 'run.sh'), 0o755);

const du = (p) => (statSync(p).isDirectory() ? readdirSync(p).reduce((s, f) => s + du(path.join(p, f)), 0) : statSync(p).size);
const tar = `${out}.tar`;
execFileSync('tar', ['-cf', tar, '-C', path.dirname(out), path.basename(out)]);
const mib = (n) => `${(n / 1048576).toFixed(1)} MiB`;
step(`${out} (${mib(du(out))}), ${tar} (${mib(statSync(tar).size)}; limit ${mib(LIMIT)})`);
if (statSync(tar).size > LIMIT) {
  console.error(`gpu-check: the bundle is over ${mib(LIMIT)}`);
  process.exit(1);
}
