// Batched single-precision GEMM for Node on a CBLAS (OpenBLAS): the matmul kernel behind the tfjs
// cpu and wasm backends when built (see ../scripts/build-native.mjs). N-API only, so one build
// serves every Node version of the same ABI line.
#include <node_api.h>
#include <cblas.h>
#include <stdint.h>

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
  napi_create_function(env, "setThreads", NAPI_AUTO_LENGTH, SetThreads, NULL, &fn);
  napi_set_named_property(env, exports, "setThreads", fn);
  return exports;
}
