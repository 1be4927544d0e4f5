// Kernels for Node on a CBLAS (OpenBLAS) behind the tfjs cpu and wasm backends when built (see
// ../scripts/build-native.mjs): a batched GEMM, and grouped-query attention forward and backward
// (scores, mask, softmax and the value product in one call, instead of a dozen tfjs ops each
// writing a [L, T] tensor per head). N-API only, so one build serves every Node version of the
// same ABI line.
#include <math.h>
#include <node_api.h>
#include <cblas.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern void openblas_set_num_threads(int);

#define CHECK(call)                                                                                    \
  if ((call) != napi_ok) {                                                                             \
    napi_throw_error(env, NULL, "sgemm: bad arguments");                                               \
    return NULL;                                                                                       \
  }

static float *f32(napi_env env, napi_value v, size_t *len) {
  napi_typedarray_type type;
  void *data;
  napi_value ab;
  size_t off;
  if (napi_get_typedarray_info(env, v, &type, len, &data, &ab, &off) != napi_ok || type != napi_float32_array)
    return NULL;
  return (float *)data;
}

// sgemm(a, b, c, batch, m, n, k, transA, transB, strideA, strideB): c[i] = op(a[i]) · op(b[i]) for
// i < batch, row-major; a stride of 0 broadcasts that operand over the batch.
static napi_value Sgemm(napi_env env, napi_callback_info info) {
  size_t argc = 11;
  napi_value argv[11];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 11) {
    napi_throw_error(env, NULL, "sgemm: expected 11 arguments");
    return NULL;
  }
  size_t la, lb, lc;
  float *a = f32(env, argv[0], &la), *b = f32(env, argv[1], &lb), *c = f32(env, argv[2], &lc);
  if (!a || !b || !c) {
    napi_throw_type_error(env, NULL, "sgemm: a, b and c must be Float32Arrays");
    return NULL;
  }
  int64_t d[5];
  for (int i = 0; i < 4; i++) CHECK(napi_get_value_int64(env, argv[3 + i], &d[i]));
  bool ta, tb;
  CHECK(napi_get_value_bool(env, argv[7], &ta));
  CHECK(napi_get_value_bool(env, argv[8], &tb));
  int64_t sa, sb;
  CHECK(napi_get_value_int64(env, argv[9], &sa));
  CHECK(napi_get_value_int64(env, argv[10], &sb));
  int64_t batch = d[0], m = d[1], n = d[2], k = d[3];
  if (batch < 0 || m < 0 || n < 0 || k < 0 || (uint64_t)((batch - 1) * sa + m * k) > la ||
      (uint64_t)((batch - 1) * sb + k * n) > lb || (uint64_t)(batch * m * n) > lc) {
    napi_throw_range_error(env, NULL, "sgemm: sizes exceed the arrays");
    return NULL;
  }
  for (int64_t i = 0; i < batch; i++)
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k,
                1.0f, a + i * sa, ta ? (int)m : (int)k, b + i * sb, tb ? (int)k : (int)n, 0.0f, c + i * m * n, (int)n);
  return NULL;
}

// Dimensions of an attention call: q [B, nH, L, hd] (already scaled), k and v [B, nKv, T, hd],
// bias [B, 1, L, T] (0 where a query may see a key, a large negative number elsewhere).
typedef struct {
  int64_t b, nh, nkv, l, t, hd;
} Dims;

static int read_dims(napi_env env, napi_value v, Dims *d) {
  int64_t x[6];
  for (uint32_t i = 0; i < 6; i++) {
    napi_value e;
    if (napi_get_element(env, v, i, &e) != napi_ok || napi_get_value_int64(env, e, &x[i]) != napi_ok || x[i] < 1) return 0;
  }
  *d = (Dims){x[0], x[1], x[2], x[3], x[4], x[5]};
  return d->nh % d->nkv == 0;
}

// The layouts an attention argument can have: q-like [B, nH, L, hd], k-like [B, nKv, T, hd],
// the bias [B, 1, L, T] and the probabilities [B, nH, L, T].
enum Layout { Q, KV, BIAS, P };

static int64_t floats(const Dims *d, enum Layout x) {
  switch (x) {
  case Q: return d->b * d->nh * d->l * d->hd;
  case KV: return d->b * d->nkv * d->t * d->hd;
  case BIAS: return d->b * d->l * d->t;
  default: return d->b * d->nh * d->l * d->t;
  }
}

// Reads `n` Float32Array arguments of the given layouts followed by dims; throws and returns 0 when
// the count, the dims or a size is wrong.
static int attention_args(napi_env env, napi_callback_info info, const char *name, size_t n, const enum Layout *layouts, float **a,
                          Dims *d) {
  napi_value argv[12];
  size_t argc = 12;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != n + 1 || !read_dims(env, argv[n], d)) {
    napi_throw_error(env, NULL, name);
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    size_t len;
    a[i] = f32(env, argv[i], &len);
    if (!a[i] || (int64_t)len < floats(d, layouts[i])) {
      napi_throw_range_error(env, NULL, name);
      return 0;
    }
  }
  return 1;
}

// attentionForward(q, k, v, bias, out, probs, dims): out = softmax(q·kᵀ + bias)·v, probs kept for
// the backward pass. The g query heads of a KV head are one [g·L, hd] block: one GEMM each way.
static napi_value AttentionForward(napi_env env, napi_callback_info info) {
  static const enum Layout layouts[6] = {Q, KV, KV, BIAS, Q, P};
  float *a[6];
  Dims d;
  if (!attention_args(env, info, "attentionForward(q, k, v, bias, out, probs, [B, nH, nKv, L, T, hd]): wrong arguments or sizes", 6,
                      layouts, a, &d))
    return NULL;
  const int64_t gl = d.nh / d.nkv * d.l;
  float *q = a[0], *k = a[1], *v = a[2], *bias = a[3], *out = a[4], *probs = a[5];
  for (int64_t b = 0; b < d.b; b++)
    for (int64_t j = 0; j < d.nkv; j++) {
      const int64_t blk = (b * d.nkv + j);
      float *qb = q + blk * gl * d.hd, *kb = k + blk * d.t * d.hd, *vb = v + blk * d.t * d.hd;
      float *pb = probs + blk * gl * d.t, *ob = out + blk * gl * d.hd;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)gl, (int)d.t, (int)d.hd, 1.0f, qb, (int)d.hd, kb, (int)d.hd, 0.0f,
                  pb, (int)d.t);
      for (int64_t r = 0; r < gl; r++) {
        float *row = pb + r * d.t;
        const float *mrow = bias + (b * d.l + r % d.l) * d.t;
        float mx = -INFINITY;
        for (int64_t c = 0; c < d.t; c++) {
          row[c] += mrow[c];
          if (row[c] > mx) mx = row[c];
        }
        float z = 0;
        for (int64_t c = 0; c < d.t; c++) z += (row[c] = expf(row[c] - mx));
        const float inv = 1.0f / z;
        for (int64_t c = 0; c < d.t; c++) row[c] *= inv;
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)gl, (int)d.hd, (int)d.t, 1.0f, pb, (int)d.t, vb, (int)d.hd, 0.0f,
                  ob, (int)d.hd);
    }
  return NULL;
}

// attentionBackward(q, k, v, probs, out, dOut, dq, dk, dv, dims): gradients of attentionForward.
// dP = dOut·vᵀ, dS = P ⊙ (dP − rowsum(dOut ⊙ out)), dq = dS·k, dk = dSᵀ·q, dv = Pᵀ·dOut.
static napi_value AttentionBackward(napi_env env, napi_callback_info info) {
  static const enum Layout layouts[9] = {Q, KV, KV, P, Q, Q, Q, KV, KV};
  float *a[9];
  Dims d;
  if (!attention_args(env, info, "attentionBackward(q, k, v, probs, out, dOut, dq, dk, dv, [B, nH, nKv, L, T, hd]): wrong arguments or sizes",
                      9, layouts, a, &d))
    return NULL;
  const int64_t gl = d.nh / d.nkv * d.l;
  float *q = a[0], *k = a[1], *v = a[2], *probs = a[3], *out = a[4], *dout = a[5], *dq = a[6], *dk = a[7], *dv = a[8];
  float *ds = malloc(sizeof(float) * gl * d.t);
  if (!ds) {
    napi_throw_error(env, NULL, "attentionBackward: out of memory");
    return NULL;
  }
  for (int64_t b = 0; b < d.b; b++)
    for (int64_t j = 0; j < d.nkv; j++) {
      const int64_t blk = (b * d.nkv + j);
      const float *qb = q + blk * gl * d.hd, *kb = k + blk * d.t * d.hd, *vb = v + blk * d.t * d.hd;
      const float *pb = probs + blk * gl * d.t, *ob = out + blk * gl * d.hd, *dob = dout + blk * gl * d.hd;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)gl, (int)d.t, (int)d.hd, 1.0f, dob, (int)d.hd, vb, (int)d.hd, 0.0f,
                  ds, (int)d.t);
      for (int64_t r = 0; r < gl; r++) {
        float dot = 0;
        for (int64_t c = 0; c < d.hd; c++) dot += dob[r * d.hd + c] * ob[r * d.hd + c];
        float *row = ds + r * d.t;
        const float *prow = pb + r * d.t;
        for (int64_t c = 0; c < d.t; c++) row[c] = prow[c] * (row[c] - dot);
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)gl, (int)d.hd, (int)d.t, 1.0f, ds, (int)d.t, kb, (int)d.hd, 0.0f,
                  dq + blk * gl * d.hd, (int)d.hd);
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)d.t, (int)d.hd, (int)gl, 1.0f, ds, (int)d.t, qb, (int)d.hd, 0.0f,
                  dk + blk * d.t * d.hd, (int)d.hd);
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)d.t, (int)d.hd, (int)gl, 1.0f, pb, (int)d.t, dob, (int)d.hd, 0.0f,
                  dv + blk * d.t * d.hd, (int)d.hd);
    }
  free(ds);
  return NULL;
}

static napi_value SetThreads(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t n;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  CHECK(napi_get_value_int32(env, argv[0], &n));
  openblas_set_num_threads(n < 1 ? 1 : n);
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "sgemm", NAPI_AUTO_LENGTH, Sgemm, NULL, &fn);
  napi_set_named_property(env, exports, "sgemm", fn);
  napi_create_function(env, "attentionForward", NAPI_AUTO_LENGTH, AttentionForward, NULL, &fn);
  napi_set_named_property(env, exports, "attentionForward", fn);
  napi_create_function(env, "attentionBackward", NAPI_AUTO_LENGTH, AttentionBackward, NULL, &fn);
  napi_set_named_property(env, exports, "attentionBackward", fn);
  napi_create_function(env, "setThreads", NAPI_AUTO_LENGTH, SetThreads, NULL, &fn);
  napi_set_named_property(env, exports, "setThreads", fn);
  return exports;
}
