import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { starpoTinyConfig } from '../src/model/config.js';
import { Qwen2Model } from '../src/model/qwen2.js';
import { PRETRAIN_DEFAULTS, pretrain } from '../src/pretrain/pretrain.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pretrain-det-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('pretraining is deterministic', () => {
  it.each(['cpu', 'wasm'] as const)(
    'on %s: the same seed gives the same weights, loss and validation score',
    async (backend) => {
      await initBackend(backend);
      const run = async (i: number) => {
        const out = path.join(dir, `${backend}-${i}`);
        const r = await pretrain({ ...PRETRAIN_DEFAULTS, env: 'sokoban', size: 'nano', dialogues: 4, epochs: 1, valSize: 2, seed: 0, out });
        return { weights: sha(path.join(out, 'model.safetensors')), loss: r.finalLoss, success: r.success, formatRate: r.formatRate };
      };
      const first = await run(1);
      expect(await run(2)).toEqual(first);
    },
    240_000,
  );

  it('with an on-policy round from an --init base: the same seed gives the same weights, and the round changed them', async () => {
    await initBackend('wasm');
    const init = path.join(dir, 'wasm-1');
    const run = async (i: number) => {
      const out = path.join(dir, `dagger-${i}`);
      const o = { ...PRETRAIN_DEFAULTS, env: 'sokoban' as const, size: 'nano' as const, dialogues: 2, epochs: 1, valSize: 2, seed: 3, out };
      const r = await pretrain({ ...o, init, daggerRounds: 1, daggerEpisodes: 3 });
      return { weights: sha(path.join(out, 'model.safetensors')), loss: r.finalLoss };
    };
    const first = await run(1);
    expect(Number.isFinite(first.loss)).toBe(true);
    expect(await run(2)).toEqual(first);
    expect(first.weights).not.toBe(sha(path.join(init, 'model.safetensors')));
  }, 240_000);

  it('a model seed draws the same weights each time, and different seeds share no weight', async () => {
    await initBackend('cpu');
    const weights = (seed: number) => {
      const m = Qwen2Model.init(starpoTinyConfig('nano', 40), { seed });
      const out = new Map([...m.weights].map(([name, v]) => [name, Array.from(v.dataSync().slice(0, 64))]));
      m.dispose();
      return out;
    };
    // seed 0 is what tfjs reads as "no seed"
    const a = weights(0);
    expect(weights(0)).toEqual(a);
    const b = weights(1);
    const random = [...a].filter(([name]) => !/norm\.weight$|\.bias$/.test(name));
    for (const [, x] of random) for (const [, y] of b) expect(y).not.toEqual(x);
  });
});
