import type { Rng } from '@starpo/envs';

export interface SampleResult {
  token: number;
  /** log p(token) under the model (temperature 1). */
  logProb: number;
  /** Entropy of the model's next-token distribution (temperature 1), nats. */
  entropy: number;
}

/**
 * Sample one token from logits with temperature and nucleus (top-p) truncation; temperature 0
 * is greedy. Log-prob and entropy are reported for the untempered distribution.
 */
export function sampleToken(logits: Float32Array | number[], temperature: number, topP: number, rng: Rng): SampleResult {
  const n = logits.length;
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (logits[i]! > max) max = logits[i]!;
  // one exponential per logit for both: with d = l − max, z = Σ e^d and p = e^d / z, H = log z − Σ p·d
  let z = 0;
  let weighted = 0;
  let argmax = 0;
  for (let i = 0; i < n; i++) {
    const d = logits[i]! - max;
    const e = Math.exp(d);
    z += e;
    if (e > 0) weighted += e * d;
    if (logits[i]! > logits[argmax]!) argmax = i;
  }
  const logSum = Math.log(z);
  const logZ = max + logSum;
  const entropy = logSum - weighted / z;
  if (temperature <= 0) return { token: argmax, logProb: logits[argmax]! - logZ, entropy };

  const scaled = scratch(n);
  let zs = 0;
  for (let i = 0; i < n; i++) {
    scaled[i] = Math.exp((logits[i]! - max) / temperature);
    zs += scaled[i]!;
  }
  let token = n - 1;
  if (topP < 1) {
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scaled[b]! - scaled[a]!);
    const candidates: number[] = [];
    let mass = 0;
    for (const i of order) {
      candidates.push(i);
      mass += scaled[i]! / zs;
      if (mass >= topP) break;
    }
    let total = 0;
    for (const i of candidates) total += scaled[i]!;
    let u = rng.float() * total;
    token = candidates[candidates.length - 1]!;
    for (const i of candidates) {
      u -= scaled[i]!;
      if (u <= 0) {
        token = i;
        break;
      }
    }
  } else {
    // every token is a candidate, in index order: the same walk without building the list
    let total = 0;
    for (let i = 0; i < n; i++) total += scaled[i]!;
    let u = rng.float() * total;
    for (let i = 0; i < n; i++) {
      u -= scaled[i]!;
      if (u <= 0) {
        token = i;
        break;
      }
    }
  }
  return { token, logProb: logits[token]! - logZ, entropy };
}

let buffer = new Float64Array(0);
/** A reused buffer of at least n values: sampling runs once per token and row, and a fresh array each time was a tenth of its cost. */
function scratch(n: number): Float64Array {
  if (buffer.length < n) buffer = new Float64Array(n);
  return buffer;
}
