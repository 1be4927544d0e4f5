export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/** Unbiased (n − 1) standard deviation, as torch.std; 0 for fewer than two values. */
export function std(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** Indices grouped by key, in first-seen order. */
export function groupBy<K>(keys: readonly K[]): Map<K, number[]> {
  const out = new Map<K, number[]>();
  keys.forEach((k, i) => {
    const list = out.get(k);
    if (list) list.push(i);
    else out.set(k, [i]);
  });
  return out;
}

/**
 * VERL's masked_whiten over a whole batch: (x − mean) / sqrt(var + 1e-8) with the masked mean and
 * the unbiased masked variance, applied to every position. With at most one valid token it returns
 * x unchanged (ROLL HEAD's choice; VERL raises).
 */
export function maskedWhiten(x: number[][], mask: number[][]): number[][] {
  let sum = 0;
  let count = 0;
  x.forEach((row, i) => row.forEach((v, t) => mask[i]![t] && ((sum += v), count++)));
  if (count <= 1) return x.map((r) => [...r]);
  const m = sum / (count + 1e-8);
  let sq = 0;
  x.forEach((row, i) => row.forEach((v, t) => mask[i]![t] && (sq += (v - m) ** 2)));
  const variance = (sq / (count + 1e-8)) * (count / (count - 1));
  const scale = 1 / Math.sqrt(variance + 1e-8);
  return x.map((row) => row.map((v) => (v - m) * scale));
}
