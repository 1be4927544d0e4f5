import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { trainerSettings } from '../src/settings.js';

/** The wasm module's current heap (its views are replaced whenever the heap grows). */
const heapBytes = () => (tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } }).wasm.HEAPU8.length;

describe('wasm heap', () => {
  it('is grown once at start-up to STARPO_WASM_HEAP_MB: tensors that fit in it grow it no further', async () => {
    await initBackend('wasm');
    const reserved = trainerSettings().STARPO_WASM_HEAP_MB * 2 ** 20;
    expect(reserved).toBeGreaterThan(0);
    const start = heapBytes();
    expect(start).toBeGreaterThanOrEqual(reserved);
    // three quarters of the reservation in 16 tensors, as a training step fills it piece by piece
    const tensors = Array.from({ length: 16 }, () => tf.fill([Math.floor((0.75 * reserved) / 16 / 4)], 1));
    expect(heapBytes()).toBe(start);
    expect((await tensors[15]!.data())[0]).toBe(1);
    tf.dispose(tensors);
  });
});
