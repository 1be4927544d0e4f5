import * as tf from '@tensorflow/tfjs';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { PRETRAIN_DEFAULTS, pretrain } from '../src/pretrain/pretrain.js';
import { StopRequested } from '../src/util/stop.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pretrain-stop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a stop request inside a pretrain', () => {
  it.each(['teacher dialogues', 'supervised training', 'validation'])(
    'during its %s: StopRequested with the reason, nothing saved, the model freed',
    async (phase) => {
      await initBackend('wasm');
      const out = path.join(dir, phase.replace(' ', '-'));
      const abort = new AbortController();
      const tensors = tf.memory().numTensors;
      const o = {
        ...PRETRAIN_DEFAULTS,
        env: 'bandit' as const,
        size: 'nano' as const,
        dialogues: 300,
        valSize: 8,
        out,
        signal: abort.signal,
      };
      let current = '';
      const stopped = pretrain(o, {
        phase: (name) => (current = name),
        // the phase's first progress: one rollout chunk or optimizer step into it, or (validation) its episodes played
        progress: () => current === phase && abort.abort('cancelled by Tess'),
      });
      await expect(stopped).rejects.toEqual(new StopRequested('cancelled by Tess'));
      expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
      expect(tf.memory().numTensors).toBe(tensors);
    },
    120_000,
  );
});
