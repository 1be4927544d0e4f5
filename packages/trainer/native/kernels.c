// Kernels for Node on a CBLAS (OpenBLAS) behind the tfjs cpu and wasm backends when built (see
// ../scripts/build-native.mjs): a batched GEMM, and grouped-query attention forward and backward
// (scores, mask, softmax and the value product in one call, instead of a dozen tfjs ops each
// writing a [L, T] tensor per head). N-API only, so one build serves every Node version of the
// same ABI line.
#include <float.h>
#include <math.h>
#include <node_api.h>
#include <cblas.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern void openblas_set_num_threads(int);
extern char *openblas_get_corename(void);

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

// Dimensions of an attention call: q [B, nH, L, hd] (already scaled), k and v [B, nKv, C, hd] of
// which the first T positions are filled (C = T unless a decoding cache keeps room to grow in place),
// keys [B, T] (1 for a real key, 0 for padding). Query i sits at position T − L + i and sees the real
// keys at or before it (causal with a cache of T − L positions).
// With listed queries (`pos` set), q is [L, nH, hd] instead: L queries of all sequences in one list,
// each sequence's queries in a run (start[b] … start[b + 1] − 1) ordered by position, query n seeing
// the keys up to pos[n]. A training pass lists only the positions whose outputs it needs.
typedef struct {
  int64_t b, nh, nkv, l, t, hd, c;
  const float *pos, *start;
} Dims;

// [B, nH, nKv, L, T, hd] or, with a capacity, [B, nH, nKv, L, T, hd, C]
static int read_dims(napi_env env, napi_value v, Dims *d, int capacity, int listed) {
  int64_t x[7];
  uint32_t n;
  if (napi_get_array_length(env, v, &n) != napi_ok || (n != 6 && !(capacity && n == 7))) return 0;
  for (uint32_t i = 0; i < n; i++) {
    napi_value e;
    if (napi_get_element(env, v, i, &e) != napi_ok || napi_get_value_int64(env, e, &x[i]) != napi_ok || x[i] < 1) return 0;
  }
  *d = (Dims){x[0], x[1], x[2], x[3], x[4], x[5], n == 7 ? x[6] : x[4], NULL, NULL};
  return d->nh % d->nkv == 0 && (listed || d->l <= d->t) && d->t <= d->c;
}

// The layouts an attention argument can have: q-like [B, nH, L, hd] (listed: [L, nH, hd]), k-like
// [B, nKv, T, hd], the key mask [B, T] and the probabilities [B, nH, L, T] (listed: [nH, L, T]).
enum Layout { Q, KV, KEYS, P, P_OR_NULL };

static int64_t floats(const Dims *d, enum Layout x) {
  const int64_t seqs = d->pos ? 1 : d->b; // listed queries are counted across sequences in L
  switch (x) {
  case Q: return seqs * d->nh * d->l * d->hd;
  case KV: return d->b * d->nkv * d->c * d->hd;
  case KEYS: return d->b * d->t;
  default: return seqs * d->nh * d->l * d->t;
  }
}

// Takes the listed queries' positions [L] and sequence starts [B + 1]: whole numbers, each run
// ascending within the keys, the runs covering the list in order.
static int listed_queries(napi_env env, napi_value pos_v, napi_value start_v, Dims *d) {
  size_t np, ns;
  const float *pos = f32(env, pos_v, &np), *start = f32(env, start_v, &ns);
  if (!pos || !start || (int64_t)np < d->l || (int64_t)ns < d->b + 1 || start[0] != 0 || start[d->b] != (float)d->l) return 0;
  for (int64_t b = 0; b < d->b; b++) {
    if (!(start[b + 1] >= start[b]) || start[b + 1] != floorf(start[b + 1])) return 0;
    for (int64_t n = (int64_t)start[b]; n < (int64_t)start[b + 1]; n++)
      if (!(pos[n] >= 0 && pos[n] < (float)d->t) || pos[n] != floorf(pos[n]) || (n > start[b] && pos[n] < pos[n - 1])) return 0;
  }
  d->pos = pos;
  d->start = start;
  return 1;
}

// Reads `n` Float32Array arguments of the given layouts followed by dims and, for listed queries,
// their positions and sequence starts; throws and returns 0 when the count, the dims or a size is wrong.
static int attention_args(napi_env env, napi_callback_info info, const char *name, size_t n, const enum Layout *layouts, float **a,
                          Dims *d, int capacity) {
  napi_value argv[14];
  size_t argc = 14;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || (argc != n + 1 && argc != n + 3) ||
      !read_dims(env, argv[n], d, capacity, argc == n + 3)) {
    napi_throw_error(env, NULL, name);
    return 0;
  }
  if (argc == n + 3 && (d->c != d->t || !listed_queries(env, argv[n + 1], argv[n + 2], d))) {
    napi_throw_range_error(env, NULL, name);
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    size_t len;
    napi_valuetype type;
    // the forward pass's probabilities may be null: nothing is kept for a backward pass
    if (layouts[i] == P_OR_NULL && napi_typeof(env, argv[i], &type) == napi_ok && type == napi_null) {
      a[i] = NULL;
      continue;
    }
    a[i] = f32(env, argv[i], &len);
    if (!a[i] || (int64_t)len < floats(d, layouts[i])) {
      napi_throw_range_error(env, NULL, name);
      return 0;
    }
  }
  return 1;
}

// The queries of sequence b for head h: n rows `ld` floats apart from offset q0 (of q, out and their
// gradients), their probabilities T floats apart from p0, query i seeing the keys up to last_key(i).
typedef struct {
  int64_t n, q0, ld, p0, t;
  const float *pos;
} QRows;

static QRows query_rows(const Dims *d, int64_t b, int64_t h) {
  if (!d->pos) return (QRows){d->l, (b * d->nh + h) * d->l * d->hd, d->hd, (b * d->nh + h) * d->l * d->t, d->t, NULL};
  const int64_t s = (int64_t)d->start[b];
  return (QRows){(int64_t)d->start[b + 1] - s, (s * d->nh + h) * d->hd, d->nh * d->hd, (h * d->l + s) * d->t, d->t, d->pos + s};
}

static inline int64_t last_key(const QRows *r, int64_t i) { return r->pos ? (int64_t)r->pos[i] : r->t - r->n + i; }

static void zero_rows(float *x, int64_t rows, int64_t ld, int64_t hd) {
  for (int64_t r = 0; r < rows; r++) memset(x + r * ld, 0, sizeof(float) * hd);
}

// exp for x ≤ 0 (softmax after subtracting the row's max), branch-free so that the loops below
// vectorise: 2^n by the exponent bits, e^y on |y| ≤ ln2/2 by its Taylor series to y^7 (relative error
// about 2e-7, the float rounding of the argument's own error). glibc's expf is scalar, and the
// softmax around it was two thirds of the attention kernel's time.
static inline float exp_neg(float x) {
  x = fminf(fmaxf(x, -87.0f), 0.0f); // a masked key's score may exceed the row's max: its term is then multiplied by 0
  const int32_t n = (int32_t)(x * 1.44269504f - 0.5f); // rounds to nearest for x ≤ 0
  const float y = (x - (float)n * 0.693359375f) + (float)n * 2.12194440e-4f; // Cody–Waite: x − n·ln2
  const float p =
      1.0f + y * (1.0f + y * (0.5f + y * (1.0f / 6 + y * (1.0f / 24 + y * (1.0f / 120 + y * (1.0f / 720 + y * (1.0f / 5040)))))));
  const int32_t bits = (n + 127) * (1 << 23);
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// WIDE_CLONES for long streaming passes (a softmax row, an elementwise pass), which AVX-512 speeds up
// where the CPU has it; VECTOR_CLONES for loops over a head's few floats, which 16-float vectors slow
// down (measurements: docs/results/2026-12-03-ten-times-data.md §6).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#define WIDE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define VECTOR_CLONES
#define WIDE_CLONES
#endif

#define MASKED -1e30f

// row[0 … n) = softmax over the entries whose key is real (keys[c] = 1, else 0), 0 elsewhere; returns
// 0 (row all 0) when no key is real. Each loop is a plain pass the compiler vectorises.
WIDE_CLONES static int softmax_span(float *restrict row, const float *restrict keys, int64_t n) {
  float mx = MASKED;
#pragma omp simd reduction(max : mx)
  for (int64_t c = 0; c < n; c++) {
    const float x = row[c] + (keys[c] - 1.0f) * -MASKED; // keys are 1 or 0: arithmetic, not a branch
    mx = x > mx ? x : mx;
  }
  if (mx <= MASKED / 2) {
    memset(row, 0, sizeof(float) * n);
    return 0;
  }
  float z = 0;
#pragma omp simd reduction(+ : z)
  for (int64_t c = 0; c < n; c++) {
    const float e = exp_neg(row[c] - mx) * keys[c];
    row[c] = e;
    z += e;
  }
  const float inv = 1.0f / z;
#pragma omp simd
  for (int64_t c = 0; c < n; c++) row[c] *= inv;
  return 1;
}

// dS = P ⊙ (dP − dot) over one row of a block, dP given in `row` and overwritten.
WIDE_CLONES static void softmax_grad_span(float *restrict row, const float *restrict p, float dot, int64_t n) {
#pragma omp simd
  for (int64_t c = 0; c < n; c++) row[c] = p[c] * (row[c] - dot);
}

// Queries are taken in blocks of QB rows: a block's keys run from the sequence's first real key to
// the last one its last query may see, so the masked upper triangle and the left padding are never
// multiplied (about half of a prefill's or an update's products).
#define QB 64

typedef struct {
  int64_t lo, n; // keys lo … lo + n − 1; n = 0 when no query of the block sees a real key
} Span;

// The keys of a block of queries whose last one sees keys up to `hi`.
static Span block_span(int64_t first_real, int64_t hi) {
  if (first_real < 0 || hi < first_real) return (Span){0, 0};
  return (Span){first_real, hi - first_real + 1};
}

static int64_t first_real_key(const float *keys, int64_t t) {
  for (int64_t j = 0; j < t; j++)
    if (keys[j] > 0) return j;
  return -1;
}

// Queries per sequence up to which a call without a backward pass (a decode step, a short prefill)
// goes through attend_group instead of two BLAS products per head.
#define FEW_QUERIES 16

// The g query heads that share KV head `kv` of one sequence (g·L rows of q and out, head-major, which
// is how they lie in [B, nH, L, hd]) against its keys: each key and value row is read once for all of
// them, and no BLAS call is made (a decode step made two per head, each costing more than its
// arithmetic). `s` is scratch of g·L·T floats. `k` and `v` are the sequence's rows for this KV head.
static inline __attribute__((always_inline)) void attend_group_hd(const float *restrict q, const float *restrict k, const float *restrict v,
                                       const float *restrict kmask, int64_t rows, int64_t L, int64_t T, const int64_t hd, int64_t first,
                                       float *restrict s, float *restrict out) {
  memset(out, 0, sizeof(float) * rows * hd);
  // queries that all sit at masked positions (a finished row's decode step, left padding) are never
  // read: their outputs stay 0 and the row's keys and values are not touched
  int real = 0;
  for (int64_t i = T - L; i < T; i++) real |= kmask[i] > 0;
  if (first < 0 || !real) return;
  for (int64_t c = first; c < T; c++) {
    const float *kc = k + c * hd;
    for (int64_t r = 0; r < rows; r++) {
      const float *qr = q + r * hd;
      float acc = 0;
#pragma omp simd reduction(+ : acc)
      for (int64_t e = 0; e < hd; e++) acc += qr[e] * kc[e];
      s[r * T + c] = acc;
    }
  }
  for (int64_t r = 0; r < rows; r++) {
    float *row = s + r * T;
    const int64_t last = T - L + r % L; // the last key this query may see
    // the keys past it, and every key of a query that sees no real one, take no part in the sum below
    if (last < first || !softmax_span(row + first, kmask + first, last + 1 - first))
      memset(row + first, 0, sizeof(float) * (T - first));
    else if (last + 1 < T)
      memset(row + last + 1, 0, sizeof(float) * (T - last - 1));
  }
  // one row at a time, its sum in registers (the values are read once per query head, from the cache)
  for (int64_t r = 0; r < rows; r++) {
    const float *p = s + r * T;
    float acc[hd];
    for (int64_t e = 0; e < hd; e++) acc[e] = 0;
    for (int64_t c = first; c < T; c++) {
      const float pc = p[c], *vc = v + c * hd;
#pragma omp simd
      for (int64_t e = 0; e < hd; e++) acc[e] += pc * vc[e];
    }
    memcpy(out + r * hd, acc, sizeof acc);
  }
}

// attend_group_hd with the head size a constant for the common sizes: the compiler then keeps a
// query's or an output row's floats in registers across the keys instead of a loop of unknown length.
VECTOR_CLONES static void attend_group(const float *restrict q, const float *restrict k, const float *restrict v,
                                       const float *restrict kmask, int64_t rows, int64_t L, int64_t T, int64_t hd, int64_t first,
                                       float *restrict s, float *restrict out) {
  switch (hd) {
  case 24: attend_group_hd(q, k, v, kmask, rows, L, T, 24, first, s, out); break;
  case 32: attend_group_hd(q, k, v, kmask, rows, L, T, 32, first, s, out); break;
  case 64: attend_group_hd(q, k, v, kmask, rows, L, T, 64, first, s, out); break;
  case 128: attend_group_hd(q, k, v, kmask, rows, L, T, 128, first, s, out); break;
  default: attend_group_hd(q, k, v, kmask, rows, L, T, hd, first, s, out);
  }
}

// attentionForward(q, k, v, keys, out, probs, dims[, pos, start]): out = softmax(q·kᵀ, over the keys
// each query sees)·v, probs kept for the backward pass. Only what that pass reads is written: each
// query block's key span, with 0 past a query's last key inside it (the rest of a row is never read;
// zeroing it was about half of the writes). A query that sees no key (left padding) gets 0.
// With probs null (no backward pass), each block's probabilities stay in a scratch block that fits the
// cache instead of going out to a [B, nH, L, T] array and back.
static napi_value AttentionForward(napi_env env, napi_callback_info info) {
  static const enum Layout layouts[6] = {Q, KV, KV, KEYS, Q, P_OR_NULL};
  float *a[6];
  Dims d;
  if (!attention_args(env, info, "attentionForward(q, k, v, keys, out, probs, [B, nH, nKv, L, T, hd(, C)][, pos, start]): wrong arguments or sizes", 6,
                      layouts, a, &d, 1))
    return NULL;
  const int64_t g = d.nh / d.nkv, hd = d.hd, T = d.t, L = d.l, C = d.c;
  float *q = a[0], *k = a[1], *v = a[2], *keys = a[3], *out = a[4], *probs = a[5];
  const int few = !probs && !d.pos && L <= FEW_QUERIES;
  float *scratch = probs ? NULL : malloc(sizeof(float) * (few ? g * L : QB) * T);
  if (!probs && !scratch) {
    napi_throw_error(env, NULL, "attentionForward: out of memory");
    return NULL;
  }
  if (few) {
    for (int64_t b = 0; b < d.b; b++) {
      const float *kmask = keys + b * T;
      const int64_t first = first_real_key(kmask, T);
      for (int64_t j = 0; j < d.nkv; j++) {
        const int64_t row0 = (b * d.nh + j * g) * L, kv = b * d.nkv + j;
        attend_group(q + row0 * hd, k + kv * C * hd, v + kv * C * hd, kmask, g * L, L, T, hd, first, scratch, out + row0 * hd);
      }
    }
    free(scratch);
    return NULL;
  }
  for (int64_t b = 0; b < d.b; b++) {
    const float *kmask = keys + b * T;
    const int64_t first = first_real_key(kmask, T);
    for (int64_t h = 0; h < d.nh; h++) {
      const int64_t kv = b * d.nkv + h / g;
      const QRows qr = query_rows(&d, b, h);
      for (int64_t i0 = 0; i0 < qr.n; i0 += QB) {
        const int64_t i1 = i0 + QB < qr.n ? i0 + QB : qr.n, m = i1 - i0;
        const Span s = block_span(first, last_key(&qr, i1 - 1));
        float *pb = probs ? probs + qr.p0 + i0 * T : scratch, *ob = out + qr.q0 + i0 * qr.ld;
        if (s.n == 0) {
          zero_rows(ob, m, qr.ld, hd);
          continue;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)s.n, (int)hd, 1.0f, q + qr.q0 + i0 * qr.ld, (int)qr.ld,
                    k + (kv * C + s.lo) * hd, (int)hd, 0.0f, pb + s.lo, (int)T);
        for (int64_t r = 0; r < m; r++) {
          float *row = pb + r * T;
          const int64_t last = last_key(&qr, i0 + r); // the last key this query may see
          // past it, within the block's span: read by the value product and the backward pass
          const int64_t end = s.lo + s.n;
          if (last + 1 < end) memset(row + last + 1, 0, sizeof(float) * (end - last - 1));
          if (last >= s.lo) softmax_span(row + s.lo, kmask + s.lo, last + 1 - s.lo);
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)hd, (int)s.n, 1.0f, pb + s.lo, (int)T,
                    v + (kv * C + s.lo) * hd, (int)hd, 0.0f, ob, (int)qr.ld);
      }
    }
  }
  free(scratch);
  return NULL;
}

// attentionBackward(q, k, v, keys, probs, out, dOut, dq, dk, dv, dims[, pos, start]): gradients of attentionForward,
// over the same key spans. dP = dOut·vᵀ, dS = P ⊙ (dP − rowsum(dOut ⊙ out)), dq = dS·k, dk = dSᵀ·q,
// dv = Pᵀ·dOut.
static napi_value AttentionBackward(napi_env env, napi_callback_info info) {
  static const enum Layout layouts[10] = {Q, KV, KV, KEYS, P, Q, Q, Q, KV, KV};
  float *a[10];
  Dims d;
  if (!attention_args(env, info,
                      "attentionBackward(q, k, v, keys, probs, out, dOut, dq, dk, dv, [B, nH, nKv, L, T, hd][, pos, start]): wrong arguments or sizes", 10,
                      layouts, a, &d, 0))
    return NULL;
  const int64_t g = d.nh / d.nkv, hd = d.hd, T = d.t;
  float *q = a[0], *k = a[1], *v = a[2], *keys = a[3], *probs = a[4], *out = a[5], *dout = a[6], *dq = a[7], *dk = a[8], *dv = a[9];
  float *ds = malloc(sizeof(float) * QB * T);
  if (!ds) {
    napi_throw_error(env, NULL, "attentionBackward: out of memory");
    return NULL;
  }
  memset(dk, 0, sizeof(float) * floats(&d, KV));
  memset(dv, 0, sizeof(float) * floats(&d, KV));
  for (int64_t b = 0; b < d.b; b++) {
    const int64_t first = first_real_key(keys + b * T, T);
    for (int64_t h = 0; h < d.nh; h++) {
      const int64_t kv = b * d.nkv + h / g;
      const QRows qr = query_rows(&d, b, h);
      const int64_t ld = qr.ld;
      for (int64_t i0 = 0; i0 < qr.n; i0 += QB) {
        const int64_t i1 = i0 + QB < qr.n ? i0 + QB : qr.n, m = i1 - i0;
        const Span s = block_span(first, last_key(&qr, i1 - 1));
        const int64_t at = qr.q0 + i0 * ld;
        const float *qb = q + at, *pb = probs + qr.p0 + i0 * T + s.lo, *ob = out + at, *dob = dout + at;
        float *kb = k + (kv * T + s.lo) * hd, *vb = v + (kv * T + s.lo) * hd;
        if (s.n == 0) {
          zero_rows(dq + at, m, ld, hd);
          continue;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)s.n, (int)hd, 1.0f, dob, (int)ld, vb, (int)hd, 0.0f, ds,
                    (int)s.n);
        for (int64_t r = 0; r < m; r++) {
          float dot = 0;
          for (int64_t c = 0; c < hd; c++) dot += dob[r * ld + c] * ob[r * ld + c];
          softmax_grad_span(ds + r * s.n, pb + r * T, dot, s.n);
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)hd, (int)s.n, 1.0f, ds, (int)s.n, kb, (int)hd, 0.0f,
                    dq + at, (int)ld);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)s.n, (int)hd, (int)m, 1.0f, ds, (int)s.n, qb, (int)ld, 1.0f,
                    dk + (kv * T + s.lo) * hd, (int)hd);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)s.n, (int)hd, (int)m, 1.0f, pb, (int)T, dob, (int)ld, 1.0f,
                    dv + (kv * T + s.lo) * hd, (int)hd);
      }
    }
  }
  free(ds);
  return NULL;
}

// Reads `n` Float32Array arguments, then `nd` int64 dims (≥ 1) and, when `temp` is not NULL, one more
// number; checks each array holds at least sizes[i] floats as computed by `size_of` from the dims.
static int flat_args(napi_env env, napi_callback_info info, const char *name, size_t n, size_t nd, float **a, int64_t *dims, double *temp,
                     int64_t (*size_of)(size_t i, const int64_t *dims)) {
  napi_value argv[10];
  size_t argc = 10;
  const size_t want = n + nd + (temp ? 1 : 0);
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != want) goto bad;
  for (size_t i = 0; i < nd; i++)
    if (napi_get_value_int64(env, argv[n + i], &dims[i]) != napi_ok || dims[i] < 1) goto bad;
  if (temp && (napi_get_value_double(env, argv[n + nd], temp) != napi_ok || !(*temp > 0))) goto bad;
  for (size_t i = 0; i < n; i++) {
    size_t len;
    a[i] = f32(env, argv[i], &len);
    if (!a[i] || (int64_t)len < size_of(i, dims)) goto bad;
  }
  return 1;
bad:
  napi_throw_error(env, NULL, name);
  return 0;
}

// Token log-probs: logits [B, L, V], targets [B, L − 1] (token ids as floats), out [2, B, L − 1];
// gradients: dOut [2, B, L − 1], dLogits [B, L, V].
static int64_t lp_size(size_t i, const int64_t *d) {
  switch (i) {
  case 0: return d[0] * d[1] * d[2];
  case 1: return d[0] * (d[1] - 1);
  default: return 2 * d[0] * (d[1] - 1);
  }
}
static int64_t lp_grad_size(size_t i, const int64_t *d) { return i == 3 ? lp_size(0, d) : lp_size(i, d); }

// One row's log-sum-exp of x/temp and Σ p·x/temp (for the entropy, lse − Σ p·x/temp).
WIDE_CLONES static void row_stats(const float *restrict row, int64_t v, float inv_t, float *lse, float *mean_x) {
  float mx = -FLT_MAX;
#pragma omp simd reduction(max : mx)
  for (int64_t c = 0; c < v; c++) mx = row[c] > mx ? row[c] : mx;
  float z = 0, zx = 0;
#pragma omp simd reduction(+ : z, zx)
  for (int64_t c = 0; c < v; c++) {
    const float x = (row[c] - mx) * inv_t, e = exp_neg(x);
    z += e;
    zx += e * x;
  }
  *lse = mx * inv_t + logf(z);
  *mean_x = mx * inv_t + zx / z;
}

// d logits of one row (see below), vectorised.
WIDE_CLONES static void row_grad(const float *restrict row, float *restrict g, int64_t v, float inv_t, float lse, float h, float dlp,
                                   float dh) {
#pragma omp simd
  for (int64_t c = 0; c < v; c++) {
    const float logp = row[c] * inv_t - lse, p = exp_neg(logp);
    g[c] = (-dlp * p - dh * p * (logp + h)) * inv_t;
  }
}

// tokenLogProbs(logits, targets, out, B, L, V, temperature): out[0] = log softmax(logits/T)[target]
// of each position but the last (it scores the next token), out[1] = the entropy of that softmax.
// One pass over the [B, L, V] logits instead of tfjs's slice, divide, log-softmax, one-hot, product
// and sum, and the entropy's exp, product and sum, each writing a [B, L, V] tensor.
static napi_value TokenLogProbs(napi_env env, napi_callback_info info) {
  float *a[3];
  int64_t d[3];
  double temp;
  if (!flat_args(env, info, "tokenLogProbs(logits, targets, out, B, L, V, temperature): wrong arguments or sizes", 3, 3, a, d, &temp,
                 lp_size))
    return NULL;
  const int64_t b = d[0], l = d[1], v = d[2], rows = b * (l - 1);
  const float inv_t = (float)(1.0 / temp);
  for (int64_t r = 0; r < rows; r++) {
    const float *row = a[0] + ((r / (l - 1)) * l + r % (l - 1)) * v;
    const int64_t target = (int64_t)a[1][r];
    float lse, mean_x;
    row_stats(row, v, inv_t, &lse, &mean_x);
    a[2][r] = target >= 0 && target < v ? row[target] * inv_t - lse : 0.0f; // as a one-hot pick of no class
    a[2][rows + r] = lse - mean_x;
  }
  return NULL;
}

// tokenLogProbsBackward(logits, targets, dOut, dLogits, B, L, V, temperature): with p = softmax(x),
// x = logits/T: d logp/dx = onehot − p, d entropy/dx = −p ⊙ (log p + H); the last position gets 0.
static napi_value TokenLogProbsBackward(napi_env env, napi_callback_info info) {
  float *a[4];
  int64_t d[3];
  double temp;
  if (!flat_args(env, info, "tokenLogProbsBackward(logits, targets, dOut, dLogits, B, L, V, temperature): wrong arguments or sizes", 4, 3,
                 a, d, &temp, lp_grad_size))
    return NULL;
  const int64_t b = d[0], l = d[1], v = d[2], rows = b * (l - 1);
  const float inv_t = (float)(1.0 / temp);
  for (int64_t i = 0; i < b; i++) memset(a[3] + (i * l + l - 1) * v, 0, sizeof(float) * v);
  for (int64_t r = 0; r < rows; r++) {
    const int64_t off = ((r / (l - 1)) * l + r % (l - 1)) * v;
    const float *row = a[0] + off;
    float *g = a[3] + off;
    const int64_t target = (int64_t)a[1][r];
    const float dlp = a[2][r], dh = a[2][rows + r];
    float lse, mean_x;
    row_stats(row, v, inv_t, &lse, &mean_x);
    const float h = lse - mean_x;
    row_grad(row, g, v, inv_t, lse, h, dlp, dh);
    if (target >= 0 && target < v) g[target] += dlp * inv_t;
  }
  return NULL;
}

// SwiGLU: out = gate · sigmoid(gate) · up over n floats; gradients dGate, dUp from dOut.
static int64_t n_size(size_t i, const int64_t *d) {
  (void)i;
  return d[0];
}

// sigmoid(g) from exp(−|g|), which exp_neg covers.
static inline float sigmoid(float g) {
  const float e = exp_neg(-fabsf(g));
  return (g >= 0 ? 1.0f : e) / (1.0f + e);
}

WIDE_CLONES static void swiglu_loop(const float *restrict gate, const float *restrict up, float *restrict out, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; i++) out[i] = gate[i] * sigmoid(gate[i]) * up[i];
}

WIDE_CLONES static void swiglu_grad_loop(const float *restrict gate, const float *restrict up, const float *restrict dy,
                                           float *restrict dg, float *restrict du, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; i++) {
    const float g = gate[i], s = sigmoid(g);
    dg[i] = dy[i] * up[i] * s * (1.0f + g * (1.0f - s));
    du[i] = dy[i] * g * s;
  }
}

static napi_value Swiglu(napi_env env, napi_callback_info info) {
  float *a[3];
  int64_t n;
  if (!flat_args(env, info, "swiglu(gate, up, out, n): wrong arguments or sizes", 3, 1, a, &n, NULL, n_size)) return NULL;
  swiglu_loop(a[0], a[1], a[2], n);
  return NULL;
}

static napi_value SwigluBackward(napi_env env, napi_callback_info info) {
  float *a[5];
  int64_t n;
  if (!flat_args(env, info, "swigluBackward(gate, up, dOut, dGate, dUp, n): wrong arguments or sizes", 5, 1, a, &n, NULL, n_size))
    return NULL;
  swiglu_grad_loop(a[0], a[1], a[2], a[3], a[4], n);
  return NULL;
}

// RMSNorm over the last axis: out = x / sqrt(mean(x²) + eps) · w for n rows of d; the gradients in one
// pass each way instead of tfjs's square, mean, add, rsqrt and two products, each a full-size tensor.
static int64_t norm_size(size_t i, const int64_t *d) { return i == 1 ? d[1] : d[0] * d[1]; }
static int64_t norm_grad_size(size_t i, const int64_t *d) { return i == 1 || i == 4 ? d[1] : d[0] * d[1]; }

VECTOR_CLONES static float inv_rms(const float *restrict x, int64_t d, float eps) {
  float ss = 0;
#pragma omp simd reduction(+ : ss)
  for (int64_t c = 0; c < d; c++) ss += x[c] * x[c];
  return 1.0f / sqrtf(ss / (float)d + eps);
}

VECTOR_CLONES static void norm_rows(const float *restrict x, const float *restrict w, float *restrict out, int64_t n, int64_t d, float eps) {
  for (int64_t r = 0; r < n; r++) {
    const float *xr = x + r * d;
    const float inv = inv_rms(xr, d, eps);
    float *o = out + r * d;
#pragma omp simd
    for (int64_t c = 0; c < d; c++) o[c] = xr[c] * inv * w[c];
  }
}

// With g = dy ⊙ w and r = 1/rms: dx = r·g − (r³/d)·x·Σ(g ⊙ x), dw = Σ over rows of dy ⊙ x·r.
VECTOR_CLONES static void norm_grad_rows(const float *restrict x, const float *restrict w, const float *restrict dy, float *restrict dx,
                                         float *restrict dw, int64_t n, int64_t d, float eps) {
  memset(dw, 0, sizeof(float) * d);
  for (int64_t r = 0; r < n; r++) {
    const float *xr = x + r * d, *dyr = dy + r * d;
    const float inv = inv_rms(xr, d, eps);
    float gx = 0;
#pragma omp simd reduction(+ : gx)
    for (int64_t c = 0; c < d; c++) gx += dyr[c] * w[c] * xr[c];
    const float k = inv * inv * inv * gx / (float)d;
    float *dxr = dx + r * d;
#pragma omp simd
    for (int64_t c = 0; c < d; c++) {
      dxr[c] = inv * dyr[c] * w[c] - k * xr[c];
      dw[c] += dyr[c] * xr[c] * inv;
    }
  }
}

static napi_value RmsNorm(napi_env env, napi_callback_info info) {
  float *a[3];
  int64_t d[2];
  double eps;
  if (!flat_args(env, info, "rmsNorm(x, w, out, rows, width, eps): wrong arguments or sizes", 3, 2, a, d, &eps, norm_size)) return NULL;
  norm_rows(a[0], a[1], a[2], d[0], d[1], (float)eps);
  return NULL;
}

static napi_value RmsNormBackward(napi_env env, napi_callback_info info) {
  float *a[5];
  int64_t d[2];
  double eps;
  if (!flat_args(env, info, "rmsNormBackward(x, w, dOut, dx, dw, rows, width, eps): wrong arguments or sizes", 5, 2, a, d, &eps,
                 norm_grad_size))
    return NULL;
  norm_grad_rows(a[0], a[1], a[2], a[3], a[4], d[0], d[1], (float)eps);
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

// The kernels OpenBLAS picked for this CPU (OPENBLAS_CORETYPE overrides): their blocking decides the
// order of a GEMM's sums, so two machines agree bit for bit only with the same ones.
static napi_value CoreName(napi_env env, napi_callback_info info) {
  napi_value name;
  (void)info;
  CHECK(napi_create_string_utf8(env, openblas_get_corename(), NAPI_AUTO_LENGTH, &name));
  return name;
}

NAPI_MODULE_INIT() {
  static const struct {
    const char *name;
    napi_callback fn;
  } fns[] = {{"sgemm", Sgemm},
             {"attentionForward", AttentionForward},
             {"attentionBackward", AttentionBackward},
             {"tokenLogProbs", TokenLogProbs},
             {"tokenLogProbsBackward", TokenLogProbsBackward},
             {"swiglu", Swiglu},
             {"swigluBackward", SwigluBackward},
             {"rmsNorm", RmsNorm},
             {"rmsNormBackward", RmsNormBackward},
             {"setThreads", SetThreads},
             {"coreName", CoreName}};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    napi_value fn;
    napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &fn);
    napi_set_named_property(env, exports, fns[i].name, fn);
  }
  return exports;
}
