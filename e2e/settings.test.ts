import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC, settingsSection, withSection } from '../scripts/settings-table.mjs';

describe('docs/deployment.md lists every environment variable as the settings schemas define it', () => {
  it('has the tables the schemas print now (node scripts/settings-table.mjs --write updates them)', () => {
    const doc = readFileSync(DOC, 'utf8');
    expect(doc).toContain(settingsSection());
    expect(withSection(doc)).toBe(doc);
    // one table a process, each naming the variables that process reads
    for (const name of ['WORKER_STALE_MS', 'API_PORT', 'PUBLIC_API_URL', 'STARPO_BACKEND', 'STARPO_PG_PORT'])
      expect(doc).toContain(`| \`${name}\` |`);
  });

  it('`--check` passes now, and a table that drifted is told apart', () => {
    const r = spawnSync(process.execPath, ['scripts/settings-table.mjs', '--check'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const drifted = withSection(readFileSync(DOC, 'utf8')).replace('| `WORKER_STALE_MS` | `60000` |', '| `WORKER_STALE_MS` | `30000` |');
    expect(withSection(drifted)).not.toBe(drifted);
  });
});

describe('npm start checks the variables of every process it starts before it starts anything', () => {
  it('stops at once with exit code 2 and a line naming each bad variable, its own or a child’s', () => {
    const r = spawnSync(process.execPath, ['scripts/start.mjs'], {
      env: { PATH: process.env.PATH, STARPO_PG_PORT: '70000' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('npm start: invalid environment: STARPO_PG_PORT: expected a port number from 0 to 65535, got "70000"');
    const child = spawnSync(process.execPath, ['scripts/start.mjs'], {
      env: { PATH: process.env.PATH, WORKER_STALE_MS: 'abc', WORKER_POLL_MS: '-5', PUBLIC_API_URL: 'api' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.status).toBe(2);
    expect(child.stderr.trim()).toBe(
      'npm start: invalid environment: WORKER_STALE_MS: expected a whole number of milliseconds ≥ 1, got "abc"; ' +
        'WORKER_POLL_MS: expected a whole number of milliseconds ≥ 1, got "-5"; PUBLIC_API_URL: expected an http(s) URL, got "api"',
    );
    expect(child.stdout).not.toContain('postgres'); // nothing was started
  });
});
