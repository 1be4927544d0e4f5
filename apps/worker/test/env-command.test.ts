import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildRunConfig } from '@starpo/contracts';
import { describe, expect, it } from 'vitest';
import { commandUnderEnvRoots } from '../src/env-command.js';

const withCommand = (cwd: string) =>
  buildRunConfig(undefined, { env: { name: 'my-env', config: {}, remote: { command: ['python3', 'server.py'], cwd } } });

describe('env.remote.command on a worker', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'env-roots-'));
  const inside = path.join(root, 'lake');
  mkdirSync(inside);
  const outside = mkdtempSync(path.join(tmpdir(), 'env-outside-'));
  const link = path.join(root, 'escape');
  symlinkSync(outside, link);

  it('runs only from a folder under ENV_ROOTS, links followed', () => {
    expect(commandUnderEnvRoots(withCommand(inside), [root]).env.remote?.cwd).toBe(inside);
    for (const cwd of [outside, link, path.join(root, '..', path.basename(outside)), path.join(root, 'missing')])
      expect(() => commandUnderEnvRoots(withCommand(cwd), [root]), cwd).toThrow(/is not a folder under ENV_ROOTS once links are followed/);
  });

  it('runs nowhere while no root is set, and leaves a URL or a built-in environment alone', () => {
    expect(() => commandUnderEnvRoots(withCommand(inside), [])).toThrow(/ENV_ROOTS/);
    const url = buildRunConfig(undefined, { env: { name: 'my-env', config: {}, remote: { url: 'http://127.0.0.1:8765' } } });
    expect(commandUnderEnvRoots(url, [])).toBe(url);
  });
});
