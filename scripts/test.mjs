#!/usr/bin/env node
// `npm test`: build, run every workspace's tests and the end-to-end tests, then print one
// closing line with the totals ("N passed, N failed").
import { spawn } from 'node:child_process';

const steps = [
  ['npx', ['turbo', 'run', 'build', '--output-logs=errors-only']],
  ['npx', ['turbo', 'run', 'test', '--concurrency=1']],
  ['npx', ['vitest', 'run', '-c', 'e2e/vitest.config.ts']],
];
const totals = { passed: 0, failed: 0, skipped: 0 };
// a suite whose setup throws has no failed test, only a failed file: count those too
let failedFiles = 0;
// eslint-disable-next-line no-control-regex -- strips ANSI colour codes
const strip = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

function run(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    const onData = (d) => {
      process.stdout.write(d);
      for (const line of strip(d.toString()).split('\n')) {
        const files = /^\s*(?:\S+:\s+)?Test Files\s+(\d+) failed/.exec(line);
        if (files) failedFiles += Number(files[1]);
        const m = /^\s*(?:\S+:\s+)?Tests\s+(.*)$/.exec(line);
        if (!m) continue;
        for (const [, n, kind] of m[1].matchAll(/(\d+) (passed|failed|skipped)/g)) totals[kind] += Number(n);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => process.stderr.write(d));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

let code = 0;
for (const [cmd, args] of steps) {
  code = await run(cmd, args);
  if (code !== 0) break;
}
console.log(
  `\ntotal: ${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}${failedFiles ? `, ${failedFiles} test files failed` : ''}`,
);
process.exit(code !== 0 ? code : totals.failed > 0 || failedFiles > 0 ? 1 : 0);
