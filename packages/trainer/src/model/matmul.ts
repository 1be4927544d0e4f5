import * as tf from '@tensorflow/tfjs';

// tfjs-backend-wasm runs plain 2-D matMul through XNNPACK (~18 GFLOP/s here) but any transposed or
// batched matMul through a slow generic path (~2 GFLOP/s). These helpers keep every product, in the
// forward pass and in the gradients, a plain 2-D one on wasm; other backends use tf.matMul directly.

const isWasm = () => tf.getBackend() === 'wasm';

function plain2d(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  return tf.matMul(a, b);
}

/** [B, M, K] × [B, K, N] as B plain 2-D products (wasm) or one batched product. */
function plainBatched(a: tf.Tensor3D, b: tf.Tensor3D): tf.Tensor3D {
  const [n, m, k] = a.shape;
  const cols = b.shape[2];
  // Small products (e.g. one decoding step) lose more to per-op overhead than to the slow path.
  if (!isWasm() || n === 1 || m * k * cols < 1 << 16) return tf.matMul(a, b);
  const out: tf.Tensor3D[] = [];
  for (let i = 0; i < n; i++) out.push(tf.matMul(a.slice([i, 0, 0], [1, m, k]), b.slice([i, 0, 0], [1, k, cols])));
  return tf.concat(out, 0);
}

const t2 = (x: tf.Tensor2D) => x.transpose() as tf.Tensor2D;
const t3 = (x: tf.Tensor3D) => x.transpose([0, 2, 1]) as tf.Tensor3D;

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

const mm3 = tf.customGrad(((a: tf.Tensor3D, b: tf.Tensor3D, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: plainBatched(a, b),
    gradFunc: (dy: tf.Tensor, [sa, sb]: tf.Tensor[]) => [
      plainBatched(dy as tf.Tensor3D, t3(sb as tf.Tensor3D)),
      plainBatched(t3(sa as tf.Tensor3D), dy as tf.Tensor3D),
    ],
  };
}) as unknown as Grad2 as unknown as Parameters<typeof tf.customGrad>[0]);

/** a [M, K] × b [K, N], differentiable, fast on every backend. */
export function matMul2d(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  return isWasm() ? (mm2(a, b) as tf.Tensor2D) : tf.matMul(a, b);
}

/** a [B, M, K] × b [B, K, N], differentiable, fast on every backend. */
export function matMul3d(a: tf.Tensor3D, b: tf.Tensor3D): tf.Tensor3D {
  return isWasm() ? (mm3(a, b) as tf.Tensor3D) : tf.matMul(a, b);
}

/** x [..., in] · Wᵀ with W in Hugging Face layout [out, in], plus an optional bias. */
export function linear(x: tf.Tensor, w: tf.Tensor, b?: tf.Tensor): tf.Tensor {
  const shape = x.shape;
  const x2 = x.reshape([-1, shape[shape.length - 1]!]) as tf.Tensor2D;
  let y: tf.Tensor = matMul2d(x2, (w as tf.Tensor2D).transpose() as tf.Tensor2D);
  if (b) y = y.add(b);
  return y.reshape([...shape.slice(0, -1), w.shape[0]!]);
}
