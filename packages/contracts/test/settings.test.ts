import { describe, expect, it } from 'vitest';
import { defineSettings, describedDefault, envVar, SettingsError, settingsTable } from '../src/settings.js';

const spec = defineSettings({
  STALE_MS: envVar.ms({ default: 60_000, description: 'stale after' }),
  SWEEP_MS: describedDefault(envVar.ms({ description: 'sweep every' }), 'STALE_MS / 4'),
  PORT: envVar.port({ default: 3001, description: 'port' }),
  SECURE: envVar.flag({ description: 'secure cookies' }),
  MODE: envVar.oneOf(['blas', 'tfjs'], { default: 'blas', description: 'engine' }),
  THREADS: envVar.countOrAuto({ default: '1', description: 'threads' }),
  URL: envVar.postgresUrl({ required: true, description: 'database' }),
  ORIGIN: envVar.url({ default: 'http://127.0.0.1:3000', description: 'origin | with a bar' }),
});
const URL = 'postgresql://u:secret@db:5432/starpo';

/** The problems a parse reports, as {name, message}. */
function problems(env: Record<string, string>): { name: string; message: string }[] {
  try {
    spec.parse({ URL, ...env });
  } catch (e) {
    expect(e).toBeInstanceOf(SettingsError);
    return (e as SettingsError).problems;
  }
  throw new Error('parsed without a problem');
}

describe('environment settings', () => {
  it('fills defaults for unset and empty variables and returns a frozen object', () => {
    const s = spec.parse({ URL, STALE_MS: '', PORT: ' ' });
    expect(s).toEqual({
      STALE_MS: 60_000,
      SWEEP_MS: undefined,
      PORT: 3001,
      SECURE: false,
      MODE: 'blas',
      THREADS: '1',
      URL,
      ORIGIN: 'http://127.0.0.1:3000',
    });
    expect(Object.isFrozen(s)).toBe(true);
  });

  it('reads set values', () => {
    const s = spec.parse({ URL, STALE_MS: '8000', SWEEP_MS: '500', PORT: '65535', SECURE: '1', MODE: 'tfjs', THREADS: 'auto' });
    expect(s).toMatchObject({ STALE_MS: 8000, SWEEP_MS: 500, PORT: 65535, SECURE: true, MODE: 'tfjs', THREADS: 'auto' });
  });

  it('names each bad variable with what it expects and what it got', () => {
    expect(problems({ STALE_MS: 'abc' })).toEqual([
      { name: 'STALE_MS', message: 'expected a whole number of milliseconds ≥ 1, got "abc"' },
    ]);
    expect(problems({ PORT: '-1', SECURE: 'yes', MODE: 'gpu', THREADS: '0', SWEEP_MS: '1.5' })).toEqual([
      { name: 'SWEEP_MS', message: 'expected a whole number of milliseconds ≥ 1, got "1.5"' },
      { name: 'PORT', message: 'expected a port number from 1 to 65535, got "-1"' },
      { name: 'SECURE', message: 'expected 1 or 0 (true or false), got "yes"' },
      { name: 'MODE', message: 'expected one of blas, tfjs, got "gpu"' },
      { name: 'THREADS', message: 'expected a whole number ≥ 1 or auto, got "0"' },
    ]);
    expect(problems({ PORT: '70000' })[0]!.name).toBe('PORT');
    expect(problems({ ORIGIN: 'not a url' })).toEqual([{ name: 'ORIGIN', message: 'expected an http(s) URL, got "not a url"' }]);
  });

  it('requires a required variable, and never quotes a secret one back', () => {
    expect(() => spec.parse({})).toThrow('invalid environment: URL: required, a postgresql:// connection URL');
    const bad = problems({ URL: 'mysql://u:secret@db/starpo' });
    expect(bad).toEqual([{ name: 'URL', message: 'expected a postgresql:// connection URL' }]);
    expect(JSON.stringify(bad)).not.toContain('secret');
  });

  it('prints the markdown table the docs show, sorted by name', () => {
    expect(settingsTable(spec.vars).split('\n')).toEqual([
      '| Variable | Default | Meaning |',
      '| --- | --- | --- |',
      '| `MODE` | `blas` | engine |',
      '| `ORIGIN` | `http://127.0.0.1:3000` | origin \\| with a bar |',
      '| `PORT` | `3001` | port |',
      '| `SECURE` | `off` | secure cookies |',
      '| `STALE_MS` | `60000` | stale after |',
      '| `SWEEP_MS` | STALE_MS / 4 | sweep every |',
      '| `THREADS` | `1` | threads |',
      '| `URL` | — | database |',
    ]);
  });
});
