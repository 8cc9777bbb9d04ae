/* test_lang_tdesc.c - tensor descriptors passed by the host ("tensordesc<fp16[BM, BN]>"
 * parameters, nr_arg_tensor_desc) on the CPU interpreter against plain C: tiles of
 * odd-sized matrices loaded (zero and NaN padding past the bounds) and stored (nothing
 * written past them) in several programs, a row-padded source (stride > width), 1-D and
 * 3-D descriptors, desc.shape / desc.strides / block_shape / dtype read in the kernel, a
 * descriptor handed to a helper, and the launch's and the compiler's errors. */
#include "lang_harness.h"

/* Each program scales one BM x BN tile of x (M x N, row stride sx) into y (M x N, dense)
 * and writes the tile as loaded (padding visible) to t, tile after tile. */
static const char *K_TILE =
    "@triton.jit\n"
    "def load_tile(d, i, j):\n"
    "    return d.load([i, j])\n"
    "\n"
    "@triton.jit\n"
    "def k(x: \"tensordesc<fp32[BM, BN]>\", y: \"tensordesc<fp32[BM, BN]>\", t: *fp32, info: "
    "*i64,\n"
    "      BM: tl.constexpr, BN: tl.constexpr):\n"
    "    pm = tl.program_id(0)\n"
    "    pn = tl.program_id(1)\n"
    "    v = load_tile(x, pm * BM, pn * BN)\n"
    "    y.store([pm * BM, pn * BN], v * 2.0)\n"
    "    tile = (pm * tl.num_programs(1) + pn) * BM * BN\n"
    "    at = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]\n"
    "    tl.store(t + tile + at, v)\n"
    "    if pm + pn == 0:\n"
    "        tl.store(info + 0, x.shape[0].to(tl.int64))\n"
    "        tl.store(info + 1, x.shape[1].to(tl.int64))\n"
    "        tl.store(info + 2, x.strides[0].to(tl.int64))\n"
    "        tl.store(info + 3, x.strides[1])\n"
    "        tl.store(info + 4, x.block_shape[0] * 1000 + x.block_shape[1])\n"
    "        tl.static_assert(x.dtype == tl.float32)\n";

static void test_tile(int M, int N, int pad_cols, int BM, int BN, int padding) {
    char defs[64];
    snprintf(defs, sizeof defs, "BM=%d BN=%d", BM, BN);
    nr_kernel *k = BUILD(K_TILE, defs);
    if (!k) return;
    int sx = N + pad_cols, gm = (M + BM - 1) / BM, gn = (N + BN - 1) / BN,
        ntile = gm * gn * BM * BN;
    float *x = malloc(4 * (size_t)M * sx), *y = malloc(4 * (size_t)M * N),
          *t = malloc(4 * (size_t)ntile);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < sx; j++) x[i * sx + j] = j < N ? (float)(i * 1000 + j) : -1.0f;
    for (int i = 0; i < M * N; i++) y[i] = -7.0f;
    nr_devptr dx = dev_from(x, 4 * (size_t)M * sx), dy = dev_from(y, 4 * (size_t)M * N),
              dt = dev_from(NULL, 4 * (size_t)ntile);
    nr_devptr dinfo = dev_from(NULL, 8 * 5);
    nr_tensor_desc xd = {dx, 2, padding, {M, N}, {sx, 1}},
                   yd = {dy, 2, NR_PAD_ZERO, {M, N}, {N, 1}};
    RUN(k, (unsigned)gm, (unsigned)gn, 1, nr_arg_tensor_desc(&xd), nr_arg_tensor_desc(&yd),
        nr_arg_ptr(dt), nr_arg_ptr(dinfo));
    int64_t info[5];
    dev_to(y, dy, 4 * (size_t)M * N), dev_to(t, dt, 4 * (size_t)ntile),
        dev_to(info, dinfo, sizeof info);
    int bad_t = 0, bad_y = 0;
    for (int pm = 0; pm < gm; pm++)
        for (int pn = 0; pn < gn; pn++)
            for (int a = 0; a < BM; a++)
                for (int b = 0; b < BN; b++) {
                    int i = pm * BM + a, j = pn * BN + b,
                        at = (pm * gn + pn) * BM * BN + a * BN + b;
                    bool in = i < M && j < N;
                    float v = t[at];
                    bad_t += in                      ? v != (float)(i * 1000 + j)
                             : padding == NR_PAD_NAN ? !isnan(v)
                                                     : v != 0.0f;
                }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) bad_y += y[i * N + j] != 2.0f * (float)(i * 1000 + j);
    CHECK(bad_t == 0, "tile %dx%d (+%d) BM=%d BN=%d %s padding: %d wrong as loaded", M, N, pad_cols,
          BM, BN, padding ? "NaN" : "zero", bad_t);
    CHECK(bad_y == 0, "tile %dx%d BM=%d BN=%d: stored: %d wrong", M, N, BM, BN, bad_y);
    CHECK(info[0] == M && info[1] == N && info[2] == sx && info[3] == 1 &&
              info[4] == BM * 1000 + BN,
          "shape/strides/block_shape read in the kernel: %lld %lld %lld %lld %lld",
          (long long)info[0], (long long)info[1], (long long)info[2], (long long)info[3],
          (long long)info[4]);
    nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, dt), nr_free(ctx, dinfo);
    free(x), free(y), free(t);
}

/* fp16 3-D: y[b] = x[b] + 1 over B x R x C in tiles of 2 x BR x BC; and a 1-D int32
 * descriptor with a negative offset (the first elements padding). */
static const char *K_3D =
    "@triton.jit\n"
    "def k(x: \"tensordesc<fp16[2, BR, BC]>\", y: \"tensordesc<fp16[2, BR, BC]>\", h: "
    "\"tensordesc<i32[16]>\", o: *i32,\n"
    "      BR: tl.constexpr, BC: tl.constexpr):\n"
    "    pb = tl.program_id(0)\n"
    "    pr = tl.program_id(1)\n"
    "    pc = tl.program_id(2)\n"
    "    v = x.load([pb * 2, pr * BR, pc * BC])\n"
    "    tl.store_tensor_descriptor(y, [pb * 2, pr * BR, pc * BC], v + 1.0)\n"
    "    if pb + pr + pc == 0:\n"
    "        tl.store(o + tl.arange(0, 16), tl.load_tensor_descriptor(h, [-5]))\n";

static void test_3d(int B, int R, int C, int BR, int BC) {
    char defs[64];
    snprintf(defs, sizeof defs, "BR=%d BC=%d", BR, BC);
    nr_kernel *k = BUILD(K_3D, defs);
    if (!k) return;
    size_t n = (size_t)B * R * C;
    uint16_t *x = malloc(2 * n), *y = malloc(2 * n);
    for (size_t i = 0; i < n; i++) x[i] = h16((double)(i % 1000)), y[i] = h16(-3.0);
    int32_t hv[12], o[16];
    for (int i = 0; i < 12; i++) hv[i] = 100 + i;
    nr_devptr dx = dev_from(x, 2 * n), dy = dev_from(y, 2 * n), dh = dev_from(hv, sizeof hv),
              doo = dev_from(NULL, sizeof o);
    nr_tensor_desc xd = {dx, 3, 0, {B, R, C}, {(int64_t)R * C, C, 1}}, yd = xd,
                   hd = {dh, 1, 0, {12}, {1}};
    yd.base = dy;
    RUN(k, (unsigned)((B + 1) / 2), (unsigned)((R + BR - 1) / BR), (unsigned)((C + BC - 1) / BC),
        nr_arg_tensor_desc(&xd), nr_arg_tensor_desc(&yd), nr_arg_tensor_desc(&hd), nr_arg_ptr(doo));
    dev_to(y, dy, 2 * n), dev_to(o, doo, sizeof o);
    int bad = 0, bad_h = 0;
    for (size_t i = 0; i < n; i++) bad += f16(y[i]) != f16(h16((double)(i % 1000) + 1.0));
    for (int i = 0; i < 16; i++) bad_h += o[i] != (i < 5 ? 0 : 100 + i - 5);
    CHECK(bad == 0, "3-D %dx%dx%d tiles 2x%dx%d: %d wrong", B, R, C, BR, BC, bad);
    CHECK(bad_h == 0, "1-D descriptor at a negative offset: %d wrong", bad_h);
    nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, dh), nr_free(ctx, doo);
    free(x), free(y);
}

static void test_errors(void) {
    nr_kernel *k = BUILD(K_TILE, "BM=4 BN=4");
    if (k) {
        CHECK(nr_kernel_param_type(k, 0) == NR_TYPE_TENSOR_DESC, "param type tag");
        CHECK(nr_kernel_param_pointee(k, 0) == NR_TYPE_FP32, "param pointee");
        int64_t shape[NR_TENSOR_DESC_MAX_RANK];
        CHECK(nr_kernel_param_block_shape(k, 0, shape) == 2 && shape[0] == 4 && shape[1] == 4,
              "block shape");
        CHECK(nr_kernel_param_block_shape(k, 2, shape) == 0, "a pointer has no block shape");
        nr_devptr p = dev_from(NULL, 64);
        nr_tensor_desc good = {p, 2, 0, {4, 4}, {4, 1}}, bad = good;
        bad.strides[1] = 2;
        nr_status s = RUN_STATUS(k, 1, 1, 1, nr_arg_tensor_desc(&bad), nr_arg_tensor_desc(&good),
                                 nr_arg_ptr(p), nr_arg_ptr(p));
        CHECK(s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "the last stride must be 1"),
              "last stride: %s", nr_last_error(ctx));
        bad = good, bad.rank = 3;
        s = RUN_STATUS(k, 1, 1, 1, nr_arg_tensor_desc(&bad), nr_arg_tensor_desc(&good),
                       nr_arg_ptr(p), nr_arg_ptr(p));
        CHECK(s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "rank 3"), "rank: %s",
              nr_last_error(ctx));
        s = RUN_STATUS(k, 1, 1, 1, nr_arg_ptr(p), nr_arg_tensor_desc(&good), nr_arg_ptr(p),
                       nr_arg_ptr(p));
        CHECK(s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "is a tensor descriptor"),
              "pointer for desc: %s", nr_last_error(ctx));
        bad = good, bad.shape[0] = 100; /* reads past the buffer: the interpreter's bounds check */
        s = RUN_STATUS(k, 2, 1, 1, nr_arg_tensor_desc(&bad), nr_arg_tensor_desc(&good),
                       nr_arg_ptr(p), nr_arg_ptr(p));
        CHECK(s == NR_ERR_LAUNCH, "a descriptor larger than its buffer is caught: %s",
              nr_status_string(s));
        nr_free(ctx, p);
    }
    nr_kernel *ki = BUILD(
        "@triton.jit\ndef k(x: \"tensordesc<i32[4]>\"):\n    x.store([0], x.load([0]))\n", NULL);
    if (ki) {
        nr_devptr p = dev_from(NULL, 16);
        nr_tensor_desc d = {p, 1, NR_PAD_NAN, {4}, {1}};
        nr_status s = RUN_STATUS(ki, 1, 1, 1, nr_arg_tensor_desc(&d));
        CHECK(s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "NaN padding needs a float"),
              "int NaN padding: %s", nr_last_error(ctx));
        nr_free(ctx, p);
    }
    COMPILE_ERROR("@triton.jit\ndef k(x: \"tensordesc<fp16[BM, 8]>\"):\n    pass\n", NULL,
                  "the block dim 'BM' must be");
    COMPILE_ERROR("@triton.jit\ndef k(x: \"tensordesc<fp16[3, 8]>\"):\n    pass\n", NULL,
                  "powers of two");
    COMPILE_ERROR("@triton.jit\ndef k(x: \"tensordesc<foo[8]>\"):\n    pass\n", NULL, "foo");
    COMPILE_ERROR("@triton.jit\ndef k(x: \"tensordesc<fp16[8, 8]\"):\n    pass\n", NULL,
                  "expected '>'");
    COMPILE_ERROR("@triton.jit\ndef k(x: \"tensordesc<fp16[8]>\"):\n    y = x + 1\n", NULL,
                  "a tensor descriptor");
    COMPILE_ERROR("@triton.jit\ndef k(x: \"tensordesc<fp16[8]>\"):\n    x.load([0, 0])\n", NULL,
                  "offsets has 2 entries");
    COMPILE_ERROR("@triton.jit\ndef k(x: \"tensordesc<fp16[8]>\"):\n    x.store([0], "
                  "tl.zeros((4,), tl.float16))\n",
                  NULL, "not of the block's shape");
    COMPILE_ERROR("@triton.jit\ndef k(x: \"tensordesc<fp16[8]>\"):\n    x.gather([0], 1)\n", NULL,
                  "not supported");
}

/* an autotuned kernel whose descriptor's block dims are tuned meta-parameters */
static const char *K_TUNED =
    "import triton\n"
    "@triton.autotune(configs=[triton.Config({'BM': 4}, num_warps=1), triton.Config({'BM': 8}, "
    "num_warps=2)], key=['n'])\n"
    "@triton.jit\n"
    "def k(x: \"tensordesc<fp32[BM, 8]>\", y: *fp32, n: i32, BM: tl.constexpr):\n"
    "    p = tl.program_id(0)\n"
    "    rows = p * BM + tl.arange(0, BM)\n"
    "    v = x.load([p * BM, 0])\n"
    "    tl.store(y + rows[:, None] * 8 + tl.arange(0, 8)[None, :], v + 1.0, mask=rows[:, None] < "
    "n)\n";

static void test_tuned(void) {
    nr_kernel *k = BUILD(K_TUNED, NULL);
    if (!k) return;
    enum { N = 16 };
    float x[N * 8], y[N * 8];
    for (int i = 0; i < N * 8; i++) x[i] = (float)i, y[i] = 0;
    nr_devptr dx = dev_from(x, sizeof x), dy = dev_from(y, sizeof y);
    nr_tensor_desc d = {dx, 2, NR_PAD_ZERO, {N, 8}, {8, 1}};
    unsigned grid_for_4 = N / 4; /* enough programs for the smallest BM; bigger ones mask */
    RUN(k, grid_for_4, 1, 1, nr_arg_tensor_desc(&d), nr_arg_ptr(dy), nr_arg_i32(N));
    dev_to(y, dy, sizeof y);
    int bad = 0;
    for (int i = 0; i < N * 8; i++) bad += y[i] != x[i] + 1.0f;
    CHECK(bad == 0, "autotuned descriptor kernel: %d wrong", bad);
    nr_free(ctx, dx), nr_free(ctx, dy);
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    test_tile(37, 45, 0, 16, 8, NR_PAD_ZERO);
    test_tile(37, 45, 3, 8, 16, NR_PAD_NAN);
    test_tile(16, 32, 0, 16, 32, NR_PAD_NAN);
    test_tile(5, 3, 11, 4, 4, NR_PAD_ZERO);
    test_3d(3, 10, 40, 4, 16);
    test_3d(2, 8, 32, 8, 32);
    test_errors();
    test_tuned();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_tdesc", &st);
}
