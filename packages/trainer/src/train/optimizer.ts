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
 * AdamW: tfjs's Adam plus decoupled weight decay, global-norm clipping (the pre-clip norm is
 * reported) and a skipped step when the gradient is not finite.
 */
export class AdamW {
  private readonly adam: tf.AdamOptimizer;

  constructor(
    readonly settings: AdamWSettings,
    private readonly variables: tf.Variable[],
  ) {
    this.adam = tf.train.adam(settings.lr, settings.betas[0], settings.betas[1], settings.eps ?? 1e-8);
  }

  setLearningRate(lr: number): void {
    this.settings.lr = lr;
    (this.adam as unknown as { learningRate: number }).learningRate = lr;
  }

  /** Apply summed gradients (by variable name). Disposes the gradients. */
  async step(grads: Map<string, tf.Tensor>): Promise<StepReport> {
    const names = this.variables.map((v) => v.name).filter((n) => grads.has(n));
    const sq = tf.tidy(() => tf.addN(names.map((n) => grads.get(n)!.square().sum())) as tf.Scalar);
    const gradNorm = Math.sqrt((await sq.data())[0]!);
    sq.dispose();
    if (!Number.isFinite(gradNorm)) {
      for (const g of grads.values()) g.dispose();
      return { gradNorm, applied: false };
    }
    const scale = this.settings.maxGradNorm > 0 && gradNorm > this.settings.maxGradNorm ? this.settings.maxGradNorm / (gradNorm + 1e-6) : 1;
    const decay = 1 - this.settings.lr * this.settings.weightDecay;
    tf.tidy(() => {
      const named: Record<string, tf.Tensor> = {};
      for (const n of names) named[n] = scale === 1 ? grads.get(n)! : grads.get(n)!.mul(scale);
      if (decay !== 1) for (const v of this.variables) if (names.includes(v.name)) v.assign(v.mul(decay));
      this.adam.applyGradients(named as unknown as Parameters<tf.AdamOptimizer['applyGradients']>[0]);
    });
    for (const g of grads.values()) g.dispose();
    return { gradNorm, applied: true };
  }

  async getState(): Promise<{ name: string; shape: number[]; data: Float32Array }[]> {
    const weights = await this.adam.getWeights();
    return Promise.all(weights.map(async (w) => ({ name: w.name, shape: w.tensor.shape, data: (await w.tensor.data()) as Float32Array })));
  }

  async setState(state: { name: string; shape: number[]; data: Float32Array }[]): Promise<void> {
    await this.adam.setWeights(state.map((s) => ({ name: s.name, tensor: tf.tensor(s.data, s.shape) })));
  }

  dispose(): void {
    this.adam.dispose();
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
  for (const [name, g] of Object.entries(grads)) {
    const prev = into.get(name);
    if (prev) {
      into.set(name, prev.add(g));
      prev.dispose();
      g.dispose();
    } else {
      into.set(name, g);
    }
  }
  const loss = (await value.data())[0]!;
  value.dispose();
  return loss;
}
