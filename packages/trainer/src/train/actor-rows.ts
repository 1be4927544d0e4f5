import type { RunConfig } from '@starpo/contracts';
import type { Sample } from './batch.js';

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** A row an actor step trains on: `at` is its index in the mini-batch, `fullTokens` its untrimmed token count. */
export type TrainRow = Sample & { fullTokens: number; at: number };

/**
 * When only the PPO term carries gradient (no entropy bonus, no KL in the loss), a token with zero
 * advantage contributes nothing, and in a causal model neither do the tokens after a row's last
 * credited one: cut them off, and skip rows with no credit at all. The gradient is unchanged (the
 * denominators still count every masked token); the work drops with the uncredited share.
 */
export function trimToCredit(s: Sample): Omit<TrainRow, 'at'> | null {
  let last = -1;
  for (let t = 0; t < s.mask.length; t++) if (s.mask[t] && s.advantages[t] !== 0) last = t;
  if (last < 0) return null;
  const n = last + 1;
  return {
    ...s,
    ids: s.ids.slice(0, n + 1),
    mask: s.mask.slice(0, n),
    oldLogProbs: s.oldLogProbs.slice(0, n),
    advantages: s.advantages.slice(0, n),
    refLogProbs: s.refLogProbs?.slice(0, n) ?? null,
    fullTokens: sum(s.mask),
  };
}

/** What the actor loss needs besides the rows: its settings and the mini-batch's denominators. */
export interface ActorLossSettings {
  lossAggMode: RunConfig['ppo']['lossAggMode'];
  clipLow: number;
  clipHigh: number;
  dualClip: number | null;
  entropyCoef: number;
  kl: { type: RunConfig['ppo']['kl']['type']; coef: number } | null;
  temperature: number;
  /**
   * The policy still has the weights the rows were sampled with (the first optimizer step of a
   * step): the forward pass's own log-probs, without gradient, stand for the old ones (ratio 1, as
   * verl's on-policy update), and each row's are handed back for the later epochs.
   */
  onPolicy: boolean;
  tokenCount: number;
  seqCount: number;
  scale: number;
  /** Denominator of the diagnostics: the tokens actually scored. */
  scoredTokens: number;
}

/** Sums over micro-batches of the loss and its diagnostics (each already divided by its denominator). */
export interface ActorPartials {
  loss: number;
  pg: number;
  clip: number;
  clipLow: number;
  kl: number;
  klRef: number;
  ent: number;
}

/** What one participant of an actor step sends back: its loss sums and, when on-policy, each row's log-probs. */
export interface ActorShare {
  partials: ActorPartials;
  /** Per row of the share, in its order (target space of the row as trained); null unless `onPolicy`. */
  logProbs: number[][] | null;
  /** The entropies at those rows' trained positions, row after row; null unless `onPolicy`. */
  entropy: number[] | null;
}

export const zeroPartials = (): ActorPartials => ({ loss: 0, pg: 0, clip: 0, clipLow: 0, kl: 0, klRef: 0, ent: 0 });

export function addPartials(into: ActorPartials, x: ActorPartials): void {
  for (const k of Object.keys(into) as (keyof ActorPartials)[]) into[k] += x[k];
}

const klInLoss = (c: RunConfig) => c.ppo.kl.coef > 0 && c.ppo.kl.in === 'loss';

/** Only the PPO term carries gradient (no entropy bonus, no KL in the loss): rows are trimmed to their credit. */
export function creditOnly(c: RunConfig): boolean {
  return c.ppo.entropyCoef === 0 && !klInLoss(c);
}

/** The rows an actor step trains on, and the loss settings shared by every share of them. */
export function actorRows(mini: Sample[], c: RunConfig, onPolicy = false): { rows: TrainRow[]; settings: ActorLossSettings } {
  const p = c.ppo;
  const trim = creditOnly(c);
  const rows = mini.flatMap((s, at): TrainRow[] => {
    const r = trim ? trimToCredit(s) : { ...s, fullTokens: sum(s.mask) };
    return r ? [{ ...r, at }] : [];
  });
  return {
    rows,
    settings: {
      lossAggMode: p.lossAggMode,
      clipLow: p.clipRatioLow,
      clipHigh: p.clipRatioHigh,
      dualClip: p.dualClip,
      entropyCoef: p.entropyCoef,
      kl: klInLoss(c) ? { type: p.kl.type, coef: p.kl.coef } : null,
      temperature: c.rollout.temperature,
      onPolicy,
      tokenCount: Math.max(1, sum(mini.map((s) => sum(s.mask)))),
      seqCount: Math.max(1, mini.filter((s) => s.mask.some(Boolean)).length),
      scale: Math.max(...mini.map((s) => s.mask.length)),
      scoredTokens: Math.max(1, sum(rows.map((r) => sum(r.mask)))),
    },
  };
}
