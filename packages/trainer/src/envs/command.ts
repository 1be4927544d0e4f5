import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { EnvProtocolError } from '@starpo/envs';

export interface StartedEnvServer {
  url: string;
  stop(): void;
}

/** A port free on the loopback interface right now (the child binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts an environment server: `command` in `cwd`, told its port in STARPO_ENV_PORT. Resolves once
 * `GET /describe` answers; rejects with the program's last output when it exits first or is not
 * up within `startMs`. The caller checks that `cwd` is one it may run in.
 */
export async function startEnvServer(command: readonly string[], cwd: string, startMs = 30_000): Promise<StartedEnvServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    env: { ...process.env, STARPO_ENV_PORT: String(port), STARPO_ENV_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (b: Buffer) => (output = (output + b.toString()).slice(-2000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited: string | null = null;
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? `code ${code}`}`));
  child.once('error', (e) => (exited = `could not start: ${e.message}`));
  const stop = () => {
    if (child.exitCode === null && !child.killed) child.kill('SIGTERM');
  };
  const deadline = Date.now() + startMs;
  for (;;) {
    if (exited) throw new EnvProtocolError(`environment command ${JSON.stringify(command)} ${exited}${output ? `: ${output.trim()}` : ''}`);
    try {
      const res = await fetch(`${url}/describe`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return { url, stop };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      stop();
      throw new EnvProtocolError(`environment command ${JSON.stringify(command)} did not answer GET /describe within ${startMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
