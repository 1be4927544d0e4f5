import * as tf from '@tensorflow/tfjs';
import { blasActive } from './blas-kernel.js';

// tfjs-backend-wasm runs plain 2-D matMul through XNNPACK (~18 GFLOP/s here) but any transposed or
// batched matMul through a slow generic path (~2 GFLOP/s). matMul2d keeps a product and its gradients
// plain 2-D ones on wasm (attention.ts builds the long attention products from it); other backends
// use tf.matMul directly, as does wasm when its matMul runs on OpenBLAS (blas-kernel.ts), which takes
// transposed operands without copying them.

const isWasm = () => tf.getBackend() === 'wasm' && !blasActive();

function plain2d(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  return tf.matMul(a, b);
}

const t2 = (x: tf.Tensor2D) => x.transpose() as tf.Tensor2D;

type Grad2 = (
  a: tf.Tensor,
  b: tf.Tensor,
  save: tf.GradSaveFunc,
) => { value: tf.Tensor; gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.Tensor[] };

const mm2 = tf.customGrad(((a: tf.Tensor2D, b: tf.Tensor2D, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: plain2d(a, b),
    gradFunc: (dy: tf.Tensor, [sa, sb]: tf.Tensor[]) => [
      plain2d(dy as tf.Tensor2D, t2(sb as tf.Tensor2D)),
      plain2d(t2(sa as tf.Tensor2D), dy as tf.Tensor2D),
    ],
  };
}) as unknown as Grad2 as unknown as Parameters<typeof tf.customGrad>[0]);

/** a [M, K] × b [K, N], differentiable, fast on every backend. */
export function matMul2d(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  return isWasm() ? (mm2(a, b) as tf.Tensor2D) : tf.matMul(a, b);
}

/** x [..., in] · Wᵀ with W in Hugging Face layout [out, in], plus an optional bias. */
export function linear(x: tf.Tensor, w: tf.Tensor, b?: tf.Tensor): tf.Tensor {
  const shape = x.shape;
  const x2 = x.reshape([-1, shape[shape.length - 1]!]) as tf.Tensor2D;
  let y: tf.Tensor = isWasm() ? matMul2d(x2, (w as tf.Tensor2D).transpose() as tf.Tensor2D) : tf.matMul(x2, w as tf.Tensor2D, false, true);
  if (b) y = y.add(b);
  return y.reshape([...shape.slice(0, -1), w.shape[0]!]);
}
