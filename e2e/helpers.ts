import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Debian's chromium (installed by .ci/run), or CHROMIUM_PATH. */
export function chromiumPath(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean) as string[];
  return candidates.find((p) => existsSync(p)) ?? null;
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  apiUrl: string;
  webUrl: string;
  exited: Promise<number | null>;
}

/** Run `node scripts/start.mjs` (what `npm start` runs after building) and wait until it prints its URLs. */
export async function startSystem(env: Record<string, string>, timeoutMs = 120_000): Promise<Started> {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  while (!/\[starpo\] Dashboard\s+(\S+)/.test(out)) {
    if (child.exitCode !== null) throw new Error(`start exited early (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`start timed out:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    output: () => out,
    apiUrl: /\[starpo\] API\s+(\S+)/.exec(out)![1]!,
    webUrl: /\[starpo\] Dashboard\s+(\S+)/.exec(out)![1]!,
    exited,
  };
}

/** Close the browser, stop the system (Ctrl-C, as a person would) and remove its temporary folder. */
export async function stopSystem(sys: Started | undefined, browser: { close(): Promise<void> } | undefined, tmp: string): Promise<void> {
  await browser?.close();
  if (sys) {
    sys.child.kill('SIGINT');
    await sys.exited;
  }
  rmSync(tmp, { recursive: true, force: true });
}
