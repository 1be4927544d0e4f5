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
