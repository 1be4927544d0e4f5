/** How work is dealt out between the main thread and the compute workers. */

/** Attention makes a row's cost grow with the square of its length; the constant weighs the per-token work. */
const rowCost = (r: { ids: number[] }) => r.ids.length * (r.ids.length + 1024);

/** Deal items into `n` shares of about equal cost (largest first, each to the lightest share). */
export function shareByCost<T extends { ids: number[] }>(items: T[], n: number): T[][] {
  const shares: T[][] = Array.from({ length: n }, () => []);
  const load = new Array<number>(n).fill(0);
  for (const it of [...items].sort((a, b) => rowCost(b) - rowCost(a))) {
    const k = load.indexOf(Math.min(...load));
    shares[k]!.push(it);
    load[k]! += rowCost(it);
  }
  return shares;
}

/** Split a list into `n` contiguous parts whose lengths differ by at most one. */
export function splitEvenly<T>(items: T[], n: number): T[][] {
  const out: T[][] = [];
  let at = 0;
  for (let k = 0; k < n; k++) {
    const len = Math.floor(items.length / n) + (k < items.length % n ? 1 : 0);
    out.push(items.slice(at, at + len));
    at += len;
  }
  return out;
}
