import { describe, expect, it } from 'vitest';
import { MAX_INPUT_DEPTH, storableIssues } from '../src/storable.js';

describe('storableIssues', () => {
  it('passes what Postgres can store, emoji and other paired surrogates included', () => {
    expect(storableIssues({ points: [{ key: 'train/😀', step: 1, value: 0.5, ok: true, none: null }], q: 'ä' })).toEqual([]);
  });

  it('names each NUL, lone surrogate and bad key by its path, array items in order', () => {
    const body = { points: [{ key: 'a\u0000' }, { key: 'fine' }, { key: 'b\ud800' }], meta: { ['k\u0000']: 1 } };
    expect(storableIssues(body)).toEqual(
      expect.arrayContaining([
        { path: 'points.0.key', message: expect.stringContaining('NUL') },
        { path: 'points.2.key', message: expect.stringContaining('surrogate') },
        { path: 'meta.k\\0', message: expect.stringContaining('the key contains a NUL') },
      ]),
    );
    const paths = storableIssues(body).map((i) => i.path);
    expect(paths).toHaveLength(3);
    expect(paths.indexOf('points.0.key')).toBeLessThan(paths.indexOf('points.2.key'));
    expect(storableIssues('\u0000')).toEqual([{ path: '(root)', message: expect.stringContaining('NUL') }]);
  });

  it('refuses nesting past the bound without recursing, and stops at the issue limit', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const [issue] = storableIssues(deep);
    expect(issue).toEqual({ path: Array(MAX_INPUT_DEPTH).fill('0').join('.'), message: `nested deeper than ${MAX_INPUT_DEPTH} levels` });
    expect(storableIssues(Array.from({ length: 50 }, () => '\u0000'))).toHaveLength(20);
  });
});
