import * as tf from '@tensorflow/tfjs';

// Row gathers and scatters whose gradients are each other: gather's own gradient needs
// UnsortedSegmentSum, which the wasm backend lacks. The indices are saved with each op, because the
// forward pass's scope disposes them before the backward pass runs.

type CustomFn = Parameters<typeof tf.customGrad>[0];

/** Rows `at` of x [R, …] as [N, …]; the gradient scatter-adds back (a row taken twice gets both). */
export function takeRows<T extends tf.Tensor>(x: T, at: tf.Tensor1D): T {
  const f = tf.customGrad(((xx: tf.Tensor, save: tf.GradSaveFunc) => {
    save([at]);
    return {
      value: tf.gather(xx, at),
      gradFunc: (dy: tf.Tensor, [i]: tf.Tensor[]) => tf.scatterND(i!.expandDims(1), dy, xx.shape),
    };
  }) as unknown as CustomFn);
  return f(x) as T;
}

/** v [N] placed at `at` of a zero vector of `size`; the gradient gathers them back. */
export function placeAt(v: tf.Tensor1D, at: tf.Tensor1D, size: number): tf.Tensor1D {
  const f = tf.customGrad(((vv: tf.Tensor, save: tf.GradSaveFunc) => {
    save([at]);
    return {
      value: tf.scatterND(at.expandDims(1), vv, [size]),
      gradFunc: (dy: tf.Tensor, [i]: tf.Tensor[]) => tf.gather(dy, i!),
    };
  }) as unknown as CustomFn);
  return f(v) as tf.Tensor1D;
}
