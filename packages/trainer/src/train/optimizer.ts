import * as tf from '@tensorflow/tfjs';

export interface AdamWSettings {
  lr: number;
  betas: [number, number];
  weightDecay: number;
  /** Clip the global gradient norm to this (0 = no clipping). */
  maxGradNorm: number;
  eps?: number;
}

export interface StepReport {
  /** Global gradient norm before clipping. */
  gradNorm: number;
  /** False when the gradient was not finite and the step was skipped. */
  applied: boolean;
}

/**
 * AdamW (decoupled weight decay) with global-norm clipping (the pre-clip norm is reported) and a
 * skipped step when the gradient is not finite. Written out rather than wrapping tf.train.adam:
 * tfjs's Adam has no weight decay and keeps its bias-correction powers as float32 products, which
 * a restored optimizer recomputes differently, breaking exact resume. Here the step count is an
 * integer and the corrections are computed from it.
 */
export class AdamW {
  private readonly m: tf.Variable[];
  private readonly v: tf.Variable[];
  private t = 0;

  constructor(
    readonly settings: AdamWSettings,
    private readonly variables: tf.Variable[],
  ) {
    this.m = variables.map((x) => tf.tidy(() => tf.variable(tf.zerosLike(x), false)));
    this.v = variables.map((x) => tf.tidy(() => tf.variable(tf.zerosLike(x), false)));
  }

  setLearningRate(lr: number): void {
    this.settings.lr = lr;
  }

  /** Apply summed gradients (by variable name). Disposes the gradients. */
  async step(grads: Map<string, tf.Tensor>): Promise<StepReport> {
    const present = this.variables.map((x, i) => ({ x, i, g: grads.get(x.name) })).filter((e) => e.g !== undefined);
    const sq = tf.tidy(() => tf.addN(present.map((e) => e.g!.square().sum())) as tf.Scalar);
    const gradNorm = Math.sqrt((await sq.data())[0]!);
    sq.dispose();
    if (!Number.isFinite(gradNorm)) {
      for (const g of grads.values()) g.dispose();
      return { gradNorm, applied: false };
    }
    const { lr, betas, weightDecay, maxGradNorm } = this.settings;
    const eps = this.settings.eps ?? 1e-8;
    const scale = maxGradNorm > 0 && gradNorm > maxGradNorm ? maxGradNorm / (gradNorm + 1e-6) : 1;
    this.t += 1;
    const c1 = 1 - betas[0] ** this.t;
    const c2 = 1 - betas[1] ** this.t;
    tf.tidy(() => {
      for (const { x, i, g } of present) {
        const grad = scale === 1 ? g! : g!.mul(scale);
        const m = this.m[i]!.mul(betas[0]).add(grad.mul(1 - betas[0]));
        const v = this.v[i]!.mul(betas[1]).add(grad.square().mul(1 - betas[1]));
        this.m[i]!.assign(m);
        this.v[i]!.assign(v);
        const update = m.div(c1).div(v.div(c2).sqrt().add(eps));
        x.assign(x.mul(1 - lr * weightDecay).sub(update.mul(lr)));
      }
    });
    for (const g of grads.values()) g.dispose();
    return { gradNorm, applied: true };
  }

  async getState(): Promise<{ name: string; shape: number[]; data: Float32Array }[]> {
    const out = [{ name: 'step', shape: [1], data: new Float32Array([this.t]) }];
    for (const [kind, list] of [
      ['m', this.m],
      ['v', this.v],
    ] as const) {
      for (let i = 0; i < list.length; i++)
        out.push({ name: `${kind}/${i}`, shape: list[i]!.shape, data: new Float32Array(await list[i]!.data()) });
    }
    return out;
  }

  async setState(state: { name: string; shape: number[]; data: Float32Array }[]): Promise<void> {
    for (const s of state) {
      if (s.name === 'step') {
        this.t = s.data[0]!;
        continue;
      }
      const [kind, idx] = s.name.split('/');
      const target = (kind === 'm' ? this.m : this.v)[Number(idx)];
      if (!target) throw new Error(`optimizer state ${s.name} does not match the model`);
      tf.tidy(() => target.assign(tf.tensor(s.data, s.shape)));
    }
  }

  dispose(): void {
    tf.dispose([...this.m, ...this.v]);
  }
}

/**
 * Gradients of `lossFn` w.r.t. `variables`, accumulated into `into` (summed by variable name).
 * Returns the loss value.
 */
export async function accumulateGradients(
  lossFn: () => tf.Scalar,
  variables: tf.Variable[],
  into: Map<string, tf.Tensor>,
): Promise<number> {
  const { value, grads } = tf.variableGrads(lossFn, variables);
  for (const [name, g] of Object.entries(grads)) addGradient(into, name, g);
  const loss = (await value.data())[0]!;
  value.dispose();
  return loss;
}

/** Add `g` to the gradient summed so far for `name` (takes ownership of `g`). */
export function addGradient(into: Map<string, tf.Tensor>, name: string, g: tf.Tensor): void {
  const prev = into.get(name);
  if (!prev) {
    into.set(name, g);
    return;
  }
  into.set(name, prev.add(g));
  prev.dispose();
  g.dispose();
}
