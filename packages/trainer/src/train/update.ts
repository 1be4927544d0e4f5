import * as tf from '@tensorflow/tfjs';
import type { RunConfig } from '@starpo/contracts';
import { aggLoss, klEstimate, policyLossPerToken, valueLossPerToken } from '../algo/losses.js';
import type { Qwen2Model } from '../model/qwen2.js';
import { packSequences, tokenLogProbs } from '../policy/score.js';
import { AdamW, accumulateGradients } from './optimizer.js';
import { chunkByTokens, padRows, unpackRows, type Sample } from './batch.js';
import { yieldToEventLoop } from '../util/yield.js';
import { toLength } from './old-log-probs.js';
import type { ComputePool } from '../parallel/pool.js';
import { shareByCost } from '../parallel/shares.js';
import { actorRows, addPartials, zeroPartials, type ActorLossSettings, type ActorShare, type TrainRow } from './actor-rows.js';
import { accumulateCrossEntropy, type SftExample } from '../pretrain/sft.js';

export interface UpdateStats {
  loss: number;
  gradNorm: number;
  skipped: number;
  extra: Record<string, number>;
  /** A stop request came between micro-batches: the gradients so far were dropped and no optimizer step was taken. */
  stopped?: boolean;
  /**
   * With `onPolicy`: each mini-batch row's log-probs under the weights before this step (target
   * space, its full length; 0 past the credited positions the step scored, and for a row it skipped).
   */
  logProbs?: number[][];
  /** With `onPolicy`: the entropies at the trained positions the step scored. */
  entropy?: number[];
}

/** What an update step returns when a stop request cut it short: nothing applied, nothing to report. */
const STOPPED: UpdateStats = { loss: 0, gradNorm: 0, skipped: 1, extra: {}, stopped: true };

function disposeGradients(grads: Map<string, tf.Tensor>): UpdateStats {
  tf.dispose([...grads.values()]);
  grads.clear();
  return STOPPED;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** `x` with no gradient flowing back through it (tfjs has no stopGradient). */
const detached = tf.customGrad(((x: tf.Tensor) => ({ value: x.clone(), gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy) })) as never) as (
  x: tf.Tensor2D,
) => tf.Tensor2D;

/** A micro-batch's token ids packed for the model (its trained positions listed), and per-token rows (mask, advantages, …) padded to the scored width. */
function packMicroBatch(micro: Sample[], padId: number, ...rowsOf: ((s: Sample) => number[])[]) {
  const packed = packSequences(
    micro.map((s) => ({ ids: s.ids, lossMask: [0, ...s.mask] })),
    padId,
  );
  const width = packed.ids.shape[1] - 1;
  return { packed, width, rows: rowsOf.map((get) => padRows(micro.map(get), width)) };
}

/**
 * Gradients of the actor loss on `rows`, summed into `grads` micro-batch by micro-batch. Null when
 * `signal` was aborted between two micro-batches (the sums are then partial). With `s.onPolicy`
 * the rows' `oldLogProbs` are not read: the pass's own log-probs stand for them and are returned.
 */
export async function accumulateActorGradients(
  policy: Qwen2Model,
  rows: TrainRow[],
  s: ActorLossSettings,
  padId: number,
  maxTokens: number,
  microBatchSize: number,
  grads: Map<string, tf.Tensor>,
  signal?: AbortSignal,
): Promise<ActorShare | null> {
  const acc = zeroPartials();
  const scored = s.onPolicy ? new Map<TrainRow, { logProbs: number[]; entropy: number[] }>() : null;
  for (const micro of chunkByTokens(rows, maxTokens, microBatchSize, policy.config.num_attention_heads)) {
    await yieldToEventLoop();
    if (signal?.aborted) return null;
    const rowTokens = micro.map((r) => r.fullTokens);
    const agg = (l: tf.Tensor2D, m: tf.Tensor2D) =>
      aggLoss(l, m, s.lossAggMode, { tokenCount: s.tokenCount, seqCount: s.seqCount, scale: s.scale, rowTokens });
    const packedRows = packMicroBatch(
      micro,
      padId,
      (r) => r.mask,
      (r) => r.oldLogProbs,
      (r) => r.advantages,
      ...(s.kl ? [(r: Sample) => r.refLogProbs!] : []),
    );
    const { packed } = packedRows;
    const [mask, oldLp, adv] = packedRows.rows as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];
    const ref = packedRows.rows[3] ?? null;
    const parts: tf.Scalar[] = [];
    const kept: { logProbs?: tf.Tensor2D; entropy?: tf.Tensor2D } = {};
    acc.loss += await accumulateGradients(
      () =>
        tf.tidy(() => {
          const { logProbs, entropy } = tokenLogProbs(policy, packed.ids, packed.mask, {
            entropy: true,
            temperature: s.temperature,
            only: packed.scored,
          });
          if (scored) [kept.logProbs, kept.entropy] = [tf.keep(logProbs), tf.keep(entropy!)];
          const old = scored ? detached(logProbs) : oldLp;
          const pl = policyLossPerToken(logProbs, old, adv, { clipLow: s.clipLow, clipHigh: s.clipHigh, dualClip: s.dualClip });
          const pg = agg(pl.loss, mask);
          const ent = agg(entropy!, mask);
          let total = pg.sub(ent.mul(s.entropyCoef));
          let klTerm = tf.scalar(0);
          if (ref && s.kl) {
            klTerm = agg(klEstimate(logProbs, ref, s.kl.type) as tf.Tensor2D, mask);
            total = total.add(klTerm.mul(s.kl.coef));
          }
          const tm = (x: tf.Tensor) => x.mul(mask).sum().div(s.scoredTokens);
          parts.push(
            ...[pg, tm(pl.clipped), tm(pl.dualClipped), tm(old.sub(logProbs)), klTerm, tm(entropy!)].map((x) => tf.keep(x as tf.Scalar)),
          );
          return total as tf.Scalar;
        }),
      policy.trainableVariables(),
      grads,
    );
    const vals = await Promise.all(parts.map((x) => x.data().then((d) => d[0]!)));
    acc.pg += vals[0]!;
    acc.clip += vals[1]!;
    acc.clipLow += vals[2]!;
    acc.kl += vals[3]!;
    acc.klRef += vals[4]!;
    acc.ent += vals[5]!;
    if (scored && kept.logProbs && kept.entropy) {
      const lp = unpackRows((await kept.logProbs.data()) as Float32Array, micro, packedRows.width);
      const ent = unpackRows((await kept.entropy.data()) as Float32Array, micro, packedRows.width);
      micro.forEach((r, i) => scored.set(r, { logProbs: lp[i]!, entropy: ent[i]!.filter((_, t) => r.mask[t]) }));
    }
    tf.dispose([...parts, packed.ids, packed.mask, packed.targetMask, ...packedRows.rows, ...Object.values(kept)]);
  }
  return {
    partials: acc,
    logProbs: scored && rows.map((r) => scored.get(r)!.logProbs),
    entropy: scored && rows.flatMap((r) => scored.get(r)!.entropy),
  };
}

/**
 * One optimizer step of the actor on a mini-batch of whole trajectories (micro-batches accumulate).
 * With a compute pool, the rows are shared out by cost and the workers' gradients summed in.
 * `signal` is checked between micro-batches, by every participant: once aborted, the step is
 * dropped (`stopped`), so a cancel waits for one micro-batch, not for the whole update.
 * `onPolicy`: the mini-batch's old log-probs were not scored; the step takes them from its own
 * forward pass (the weights are those the rows were sampled with) and returns them (`logProbs`).
 */
export async function actorStep(
  policy: Qwen2Model,
  opt: AdamW,
  mini: Sample[],
  c: RunConfig,
  padId: number,
  maxTokens: number,
  pool: ComputePool | null = null,
  signal?: AbortSignal,
  { onPolicy = false, distill }: { onPolicy?: boolean; distill?: { examples: SftExample[]; coef: number } | null } = {},
): Promise<UpdateStats> {
  if (signal?.aborted) return STOPPED;
  const { rows, settings } = actorRows(mini, c, onPolicy);
  const grads = new Map<string, tf.Tensor>();
  const shares = pool ? shareByCost(rows, pool.size + 1) : [rows];
  const remote = pool ? pool.actorGradients(policy, shares.slice(1), settings, padId, maxTokens, c.ppo.microBatchSize, signal) : null;
  const own = await accumulateActorGradients(policy, shares[0]!, settings, padId, maxTokens, c.ppo.microBatchSize, grads, signal);
  // the workers' gradients are awaited even after a stop: they stop too, and must be free for the next request
  const parts = remote ? await remote.into(grads) : [];
  if (!own || parts.includes(null)) return disposeGradients(grads);
  const acc = own.partials;
  for (const part of parts) addPartials(acc, part!.partials);
  // the solver-distillation term joins the RL loss in the same optimizer step (on this thread)
  const distillLoss =
    distill && distill.examples.length
      ? await accumulateCrossEntropy(policy, distill.examples, padId, maxTokens, distill.coef, grads)
      : null;
  // a mini-batch without credit still steps (momentum and weight decay move on, as with zero gradients)
  if (!grads.size) for (const v of policy.trainableVariables()) grads.set(v.name, tf.zerosLike(v));
  const step = await opt.step(grads);
  return {
    loss: acc.loss,
    gradNorm: step.gradNorm,
    skipped: step.applied ? 0 : 1,
    extra: {
      pg_loss: acc.pg,
      pg_clipfrac: acc.clip,
      pg_clipfrac_lower: acc.clipLow,
      ppo_kl: acc.kl,
      kl_loss: acc.klRef,
      entropy: acc.ent,
      ...(distillLoss !== null ? { distill_loss: distillLoss / distill!.coef } : {}),
    },
    ...(onPolicy ? onPolicyAnswers(mini, shares, [own, ...parts.map((p) => p!)]) : {}),
  };
}

/** Each mini-batch row's log-probs from the shares' answers, at full length (0 past what was scored), and their entropies. */
function onPolicyAnswers(mini: Sample[], shares: TrainRow[][], answers: ActorShare[]): { logProbs: number[][]; entropy: number[] } {
  const logProbs = mini.map((s) => toLength(s.mask.length, []));
  shares.forEach((share, k) => share.forEach((r, i) => (logProbs[r.at] = toLength(mini[r.at]!.mask.length, answers[k]!.logProbs![i]!))));
  return { logProbs, entropy: answers.flatMap((a) => a.entropy!) };
}

/** One optimizer step of the critic (clipped value loss, token mean); `signal` as for the actor. */
export async function criticStep(
  critic: Qwen2Model,
  opt: AdamW,
  mini: Sample[],
  c: RunConfig,
  padId: number,
  maxTokens: number,
  signal?: AbortSignal,
): Promise<UpdateStats> {
  const tokenCount = Math.max(1, sum(mini.map((s) => sum(s.mask))));
  const grads = new Map<string, tf.Tensor>();
  let loss = 0;
  let clipfrac = 0;
  for (const micro of chunkByTokens(mini, maxTokens, c.ppo.microBatchSize, critic.config.num_attention_heads)) {
    await yieldToEventLoop();
    if (signal?.aborted) return disposeGradients(grads);
    const { packed, width, rows } = packMicroBatch(
      micro,
      padId,
      (s) => s.mask,
      (s) => s.values!,
      (s) => s.returns,
    );
    const [mask, oldV, ret] = rows as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];
    let clipT: tf.Scalar | null = null;
    loss += await accumulateGradients(
      () =>
        tf.tidy(() => {
          const all = critic.values(critic.hidden(packed.ids, packed.mask).hidden);
          const v = all.slice([0, 0], [all.shape[0], width]) as tf.Tensor2D;
          const vl = valueLossPerToken(v, oldV, ret, c.ppo.valueClip);
          clipT = tf.keep(vl.clipped.mul(mask).sum().div(tokenCount) as tf.Scalar);
          return aggLoss(vl.loss, mask, 'token-mean', { tokenCount });
        }),
      critic.trainableVariables(),
      grads,
    );
    clipfrac += (await clipT!.data())[0]!;
    tf.dispose([clipT!, packed.ids, packed.mask, packed.targetMask, ...rows]);
  }
  const step = await opt.step(grads);
  return { loss, gradNorm: step.gradNorm, skipped: step.applied ? 0 : 1, extra: { vf_clipfrac: clipfrac } };
}
