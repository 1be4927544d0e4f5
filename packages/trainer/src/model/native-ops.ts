import * as tf from '@tensorflow/tfjs';
import { size, storageOf, type NativeKernels, type TensorInfo } from './native-addon.js';

// Element-wise and per-row work that tfjs spreads over many kernels, each writing a full-size
// tensor, done in one native pass each way (native/kernels.c): the scored tokens' log-probs and
// entropies over the vocabulary, SwiGLU and RMSNorm. Registered beside the OpenBLAS matMul; callers
// use them only when blasActive().

const LOG_PROBS = 'StarpoTokenLogProbs';
const LOG_PROBS_GRAD = 'StarpoTokenLogProbsGrad';
const SWIGLU = 'StarpoSwiglu';
const SWIGLU_GRAD = 'StarpoSwigluGrad';
const RMS_NORM = 'StarpoRmsNorm';
const RMS_NORM_GRAD = 'StarpoRmsNormGrad';

type Backend = 'cpu' | 'wasm';

/** Register the kernels on `backendName` once. */
export function registerNativeOps(s: NativeKernels, backendName: Backend): void {
  if (tf.getKernel(LOG_PROBS, backendName)) return;
  const kernel = (
    kernelName: string,
    run: (inputs: Record<string, TensorInfo>, backend: unknown, attrs: unknown) => TensorInfo | TensorInfo[],
  ) =>
    tf.registerKernel({
      kernelName,
      backendName,
      kernelFunc: ({ inputs, backend, attrs }) => run(inputs as Record<string, TensorInfo>, backend, attrs),
    });
  kernel(LOG_PROBS, ({ logits, targets }, backend, attrs) => {
    const store = storageOf(backendName, backend);
    const [b, l, v] = logits!.shape as [number, number, number];
    const out = store.alloc([2, b, l - 1]);
    const r = (t: TensorInfo) => store.read(t);
    s.tokenLogProbs(r(logits!), r(targets!), r(out.info), b, l, v, (attrs as { temperature: number }).temperature);
    return out.info;
  });
  kernel(LOG_PROBS_GRAD, ({ logits, targets, dy }, backend, attrs) => {
    const store = storageOf(backendName, backend);
    const [b, l, v] = logits!.shape as [number, number, number];
    const d = store.alloc(logits!.shape);
    const r = (t: TensorInfo) => store.read(t);
    s.tokenLogProbsBackward(r(logits!), r(targets!), r(dy!), r(d.info), b, l, v, (attrs as { temperature: number }).temperature);
    return d.info;
  });
  kernel(SWIGLU, ({ gate, up }, backend) => {
    const store = storageOf(backendName, backend);
    const out = store.alloc(gate!.shape);
    if (size(gate!.shape) > 0) s.swiglu(store.read(gate!), store.read(up!), store.read(out.info), size(gate!.shape));
    return out.info;
  });
  kernel(SWIGLU_GRAD, ({ gate, up, dy }, backend) => {
    const store = storageOf(backendName, backend);
    const dg = store.alloc(gate!.shape);
    // the second allocation may grow the wasm heap, which detaches views taken before it: read after
    const du = store.alloc(gate!.shape);
    const r = (t: TensorInfo) => store.read(t);
    if (size(gate!.shape) > 0) s.swigluBackward(r(gate!), r(up!), r(dy!), r(dg.info), r(du.info), size(gate!.shape));
    return [dg.info, du.info];
  });
  const rows = (x: TensorInfo) => size(x.shape) / x.shape[x.shape.length - 1]!;
  kernel(RMS_NORM, ({ x, w }, backend, attrs) => {
    const store = storageOf(backendName, backend);
    const out = store.alloc(x!.shape);
    if (size(x!.shape) > 0)
      s.rmsNorm(store.read(x!), store.read(w!), store.read(out.info), rows(x!), w!.shape[0]!, (attrs as { eps: number }).eps);
    return out.info;
  });
  kernel(RMS_NORM_GRAD, ({ x, w, dy }, backend, attrs) => {
    const store = storageOf(backendName, backend);
    const dx = store.alloc(x!.shape);
    // as for SwiGLU: read every view after the last allocation
    const dw = store.alloc(w!.shape);
    const r = (t: TensorInfo) => store.read(t);
    if (size(x!.shape) > 0)
      s.rmsNormBackward(r(x!), r(w!), r(dy!), r(dx.info), r(dw.info), rows(x!), w!.shape[0]!, (attrs as { eps: number }).eps);
    else r(dw.info).fill(0);
    return [dx.info, dw.info];
  });
}

type CustomFn = Parameters<typeof tf.customGrad>[0];

/**
 * Per position but the last of `logits` [B, L, V] divided by `temperature`: the log-probability of the
 * next token of `ids` [B, L] and the entropy, as [B, L − 1] each; differentiable.
 */
export function nativeTokenLogProbs(
  logits: tf.Tensor3D,
  ids: tf.Tensor2D,
  temperature: number,
): { logProbs: tf.Tensor2D; entropy: tf.Tensor2D } {
  const [b, l] = ids.shape;
  // token ids as floats: exact below 2^24, and one array type for the addon
  const targets = ids.slice([0, 1], [b, l - 1]).toFloat();
  const attrs = { temperature };
  const f = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const out = tf.engine().runKernel(LOG_PROBS, { logits: x, targets }, attrs) as tf.Tensor;
    save([x, targets]);
    return {
      value: out,
      gradFunc: (dy: tf.Tensor, [sx, st]: tf.Tensor[]) =>
        tf.engine().runKernel(LOG_PROBS_GRAD, { logits: sx!, targets: st!, dy }, attrs) as tf.Tensor,
    };
  }) as unknown as CustomFn);
  const both = f(logits) as tf.Tensor3D;
  const [logProbs, entropy] = tf.unstack(both) as [tf.Tensor2D, tf.Tensor2D];
  return { logProbs, entropy };
}

/** x / sqrt(mean(x²) + eps) · w over the last axis of x (w: [width]), differentiable in both. */
export function nativeRmsNorm(x: tf.Tensor, w: tf.Tensor, eps: number): tf.Tensor {
  const attrs = { eps };
  const f = tf.customGrad(((xx: tf.Tensor, ww: tf.Tensor, save: tf.GradSaveFunc) => {
    save([xx, ww]);
    return {
      value: tf.engine().runKernel(RMS_NORM, { x: xx, w: ww }, attrs) as tf.Tensor,
      gradFunc: (dy: tf.Tensor, [sx, sw]: tf.Tensor[]) =>
        tf.engine().runKernel(RMS_NORM_GRAD, { x: sx!, w: sw!, dy }, attrs) as tf.Tensor[],
    };
  }) as unknown as CustomFn);
  return f(x, w);
}

/** gate · sigmoid(gate) · up, differentiable. */
export function nativeSwiglu(gate: tf.Tensor, up: tf.Tensor): tf.Tensor {
  const f = tf.customGrad(((g: tf.Tensor, u: tf.Tensor, save: tf.GradSaveFunc) => {
    save([g, u]);
    return {
      value: tf.engine().runKernel(SWIGLU, { gate: g, up: u }) as tf.Tensor,
      gradFunc: (dy: tf.Tensor, [sg, su]: tf.Tensor[]) => tf.engine().runKernel(SWIGLU_GRAD, { gate: sg!, up: su!, dy }) as tf.Tensor[],
    };
  }) as unknown as CustomFn);
  return f(gate, up);
}
