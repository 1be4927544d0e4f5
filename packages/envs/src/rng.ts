import { xoroshiro128plus, xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import type { JumpableRandomGenerator } from 'pure-rand/types/JumpableRandomGenerator';

/**
 * Seedable PRNG (xoroshiro128+ from pure-rand). Same seed → same sequence on every
 * machine and in the browser, unlike Math.random. State can be saved and restored.
 */
export class Rng {
  private gen: JumpableRandomGenerator;

  constructor(seed: number | readonly number[] = 0) {
    // Small consecutive seeds give correlated first outputs in xoroshiro128+; mix them first.
    this.gen = typeof seed === 'number' ? xoroshiro128plus(mix32(seed | 0)) : xoroshiro128plusFromState(seed);
  }

  /** Integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number {
    return uniformInt(this.gen, lo, hi);
  }

  /** Float in [0, 1). */
  float(): number {
    return uniformFloat64(this.gen);
  }

  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('choice from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** Fisher–Yates shuffle of a copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  getState(): number[] {
    return [...this.gen.getState()];
  }
}

/** murmur3's 32-bit finaliser: a bijective avalanche of the seed bits. */
function mix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h | 0;
}

/** Mix a seed with a salt into a new 32-bit seed (for derived, independent streams). */
export function deriveSeed(seed: number, salt: number): number {
  return mix32(Math.imul((seed ^ 0x9e3779b9) >>> 0, 31) + mix32(salt + 0x7f4a7c15));
}

/** The seed of an episode's chance events: the seed's own draw for stream 0, an independent one for each other stream. */
export function chanceSeed(seed: number, salt: number, stream = 0): number {
  const base = deriveSeed(seed, salt);
  return stream === 0 ? base : deriveSeed(base, stream);
}
