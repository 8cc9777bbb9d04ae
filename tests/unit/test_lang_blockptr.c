/* test_lang_blockptr.c - block pointers (tl.make_block_ptr, tl.advance, tl.load/tl.store
 * with boundary_check and padding_option) and tensor descriptors (tl.make_tensor_descriptor,
 * desc.load/desc.store) on the CPU interpreter against plain C: tiles of odd-sized
 * matrices in several programs, a transposed (non-contiguous) source, bounds checked on
 * one dim or both, zero and NaN padding, stores that must not write outside the tensor,
 * negative offsets, a block pointer advanced in a loop and through a helper function, a
 * block-pointer matmul, and 1-D and 3-D descriptors. */
#include "lang_harness.h"

/* x: M x N with strides (sxm, sxn); each program copies one BM x BN tile: the tile as
 * loaded (padding visible) to t (dense, tile after tile), and 2x to y (M x N, row-major)
 * through a block pointer whose bounds are checked on both dims. Row tiles start at
 * pm * BM - SHIFT, so the first is partly above the tensor. */
static const char *K_TILE = "@triton.jit\n"
                            "def k(x: *fp32, t: *fp32, y: *fp32, tz: *fp32, M: i32, N: i32, sxm: "
                            "i32, sxn: i32, BM: tl.constexpr, BN: tl.constexpr,\n"
                            "      SHIFT: tl.constexpr):\n"
                            "    pm = tl.program_id(0)\n"
                            "    pn = tl.program_id(1)\n"
                            "    src = tl.make_block_ptr(x, (M, N), (sxm, sxn), (pm * BM - SHIFT, "
                            "pn * BN), (BM, BN), (1, 0))\n"
                            "    dst = tl.make_block_ptr(base=y, shape=(M, N), strides=(N, 1), "
                            "offsets=(pm * BM - SHIFT, pn * BN),\n"
                            "                            block_shape=(BM, BN), order=(1, 0))\n"
                            "    v = tl.load(src, boundary_check=(0, 1), padding_option=\"nan\")\n"
                            "    tile = (pm * tl.num_programs(1) + pn) * BM * BN\n"
                            "    at = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]\n"
                            "    tl.store(t + tile + at, v)\n"
                            "    tl.store(tz + tile + at, tl.load(src, boundary_check=(1, 0)))\n"
                            "    tl.store(dst, v * 2.0, boundary_check=(0, 1))\n";

static void test_tile(int M, int N, bool transposed, int BM, int BN, int SHIFT) {
    char defs[64];
    snprintf(defs, sizeof defs, "BM=%d BN=%d SHIFT=%d", BM, BN, SHIFT);
    nr_kernel *k = BUILD(K_TILE, defs);
    if (!k) return;
    int gm = (M + SHIFT + BM - 1) / BM, gn = (N + BN - 1) / BN, ntile = gm * gn * BM * BN;
    int sxm = transposed ? 1 : N, sxn = transposed ? M : 1;
    float *x = malloc(4 * (size_t)M * N), *y = malloc(4 * (size_t)M * N),
          *t = malloc(4 * (size_t)ntile);
    float *tz = malloc(4 * (size_t)ntile);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) x[i * sxm + j * sxn] = (float)(i * 1000 + j);
    for (int i = 0; i < M * N; i++) y[i] = -7.0f; /* every element is written once */
    nr_devptr dx = dev_from(x, 4 * (size_t)M * N), dy = dev_from(y, 4 * (size_t)M * N),
              dt = dev_from(NULL, 4 * (size_t)ntile);
    nr_devptr dtz = dev_from(NULL, 4 * (size_t)ntile);
    RUN(k, (unsigned)gm, (unsigned)gn, 1, nr_arg_ptr(dx), nr_arg_ptr(dt), nr_arg_ptr(dy),
        nr_arg_ptr(dtz), nr_arg_i32(M), nr_arg_i32(N), nr_arg_i32(sxm), nr_arg_i32(sxn));
    dev_to(y, dy, 4 * (size_t)M * N), dev_to(t, dt, 4 * (size_t)ntile),
        dev_to(tz, dtz, 4 * (size_t)ntile);
    int bad_t = 0, bad_z = 0, bad_y = 0;
    for (int pm = 0; pm < gm; pm++)
        for (int pn = 0; pn < gn; pn++)
            for (int a = 0; a < BM; a++)
                for (int b = 0; b < BN; b++) {
                    int i = pm * BM - SHIFT + a, j = pn * BN + b,
                        at = (pm * gn + pn) * BM * BN + a * BN + b;
                    bool in = i >= 0 && i < M && j < N;
                    float want = (float)(i * 1000 + j);
                    bad_t += in ? t[at] != want : !isnan(t[at]);
                    bad_z += in ? tz[at] != want : tz[at] != 0.0f;
                }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) bad_y += y[i * N + j] != 2.0f * (float)(i * 1000 + j);
    CHECK(bad_t == 0, "tile %dx%d%s BM=%d BN=%d shift %d: NaN-padded load: %d wrong", M, N,
          transposed ? " (transposed)" : "", BM, BN, SHIFT, bad_t);
    CHECK(bad_z == 0, "tile %dx%d%s: default (zero) padding: %d wrong", M, N,
          transposed ? " (transposed)" : "", bad_z);
    CHECK(bad_y == 0, "tile %dx%d%s: checked store: %d wrong", M, N,
          transposed ? " (transposed)" : "", bad_y);
    nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, dt), nr_free(ctx, dtz);
    free(x), free(y), free(t), free(tz);
}

/* Row sums of an M x N i32 matrix, BN columns at a time: a block pointer advanced in the
 * loop (the column bound checked, the rows not: BM divides M), and one moved by a helper
 * that takes and returns a block pointer, walking the row backwards from its end. */
static const char *K_ROWSUM =
    "@triton.jit\n"
    "def step_back(p, n: tl.constexpr):\n"
    "    return tl.advance(p, [0, -n])\n"
    "\n"
    "@triton.jit\n"
    "def k(x: *i32, s: *i32, r: *i32, M: i32, N: i32, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    pm = tl.program_id(0)\n"
    "    p = tl.make_block_ptr(x, (M, N), (N, 1), (pm * BM, 0), (BM, BN), (1, 0))\n"
    "    acc = tl.zeros((BM, BN), tl.int32)\n"
    "    for _ in range(0, tl.cdiv(N, BN)):\n"
    "        acc += tl.load(p, boundary_check=(1,))\n"
    "        p = tl.advance(p, (0, BN))\n"
    "    q = tl.make_block_ptr(x, (M, N), (N, 1), (pm * BM, tl.cdiv(N, BN) * BN - BN), (BM, BN), "
    "(1, 0))\n"
    "    back = tl.zeros((BM, BN), tl.int32)\n"
    "    i = 0\n"
    "    while i < tl.cdiv(N, BN) + 1:\n"
    "        back += tl.load(q, boundary_check=(0, 1), padding_option=\"zero\") * (i + 1)\n"
    "        q = step_back(q, BN)\n"
    "        i += 1\n"
    "    out = tl.make_block_ptr(s, (M,), (1,), (pm * BM,), (BM,), (0,))\n"
    "    tl.store(out, tl.sum(acc, 1))\n"
    "    tl.store(tl.make_block_ptr(r, (M,), (1,), (pm * BM,), (BM,), (0,)), tl.sum(back, axis=1), "
    "boundary_check=(0,))\n";

static void test_rowsum(int M, int N, int BM, int BN) {
    char defs[48];
    snprintf(defs, sizeof defs, "BM=%d BN=%d", BM, BN);
    nr_kernel *k = BUILD(K_ROWSUM, defs);
    if (!k) return;
    int32_t *x = malloc(4 * (size_t)M * N), *s = malloc(4 * (size_t)M), *r = malloc(4 * (size_t)M);
    for (int i = 0; i < M * N; i++) x[i] = (i * 7919) % 101 - 50;
    nr_devptr dx = dev_from(x, 4 * (size_t)M * N), ds = dev_from(NULL, 4 * (size_t)M),
              dr = dev_from(NULL, 4 * (size_t)M);
    RUN(k, (unsigned)(M / BM), 1, 1, nr_arg_ptr(dx), nr_arg_ptr(ds), nr_arg_ptr(dr), nr_arg_i32(M),
        nr_arg_i32(N));
    dev_to(s, ds, 4 * (size_t)M), dev_to(r, dr, 4 * (size_t)M);
    int bad_s = 0, bad_r = 0, tiles = (N + BN - 1) / BN;
    for (int i = 0; i < M; i++) {
        int32_t want = 0, wr = 0;
        for (int j = 0; j < N; j++)
            want += x[i * N + j],
                wr += x[i * N + j] * (tiles - j / BN); /* tile t read at step tiles-t */
        bad_s += s[i] != want, bad_r += r[i] != wr;
    }
    CHECK(bad_s == 0, "rowsum %dx%d BN=%d: advanced in a loop: %d wrong", M, N, BN, bad_s);
    CHECK(bad_r == 0, "rowsum %dx%d BN=%d: moved back by a helper (past the start too): %d wrong",
          M, N, BN, bad_r);
    nr_free(ctx, dx), nr_free(ctx, ds), nr_free(ctx, dr);
    free(x), free(s), free(r);
}

/* C = A @ B with block pointers, K stepped by BK; every bound checked. */
static const char *K_MATMUL =
    "@triton.jit\n"
    "def k(a_ptr: *fp32, b_ptr: *fp32, c_ptr: *fp32, M: i32, N: i32, K: i32, BM: tl.constexpr, BN: "
    "tl.constexpr,\n"
    "      BK: tl.constexpr):\n"
    "    pm = tl.program_id(0)\n"
    "    pn = tl.program_id(1)\n"
    "    a = tl.make_block_ptr(a_ptr, (M, K), (K, 1), (pm * BM, 0), (BM, BK), (1, 0))\n"
    "    b = tl.make_block_ptr(b_ptr, (K, N), (1, K), (0, pn * BN), (BK, BN), (0, 1))\n"
    "    acc = tl.zeros((BM, BN), tl.float32)\n"
    "    for kk in range(0, K, BK):\n"
    "        acc = tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1)), "
    "acc, input_precision=\"ieee\")\n"
    "        a = tl.advance(a, (0, BK))\n"
    "        b = tl.advance(b, (BK, 0))\n"
    "    c = tl.make_block_ptr(c_ptr, (M, N), (N, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))\n"
    "    tl.store(c, acc, boundary_check=(0, 1))\n";

static void test_matmul(int M, int N, int K) {
    nr_kernel *k = BUILD(K_MATMUL, "BM=16 BN=16 BK=16");
    if (!k) return;
    float *a = malloc(4 * (size_t)M * K), *b = malloc(4 * (size_t)K * N),
          *c = malloc(4 * (size_t)M * N);
    for (int i = 0; i < M * K; i++) a[i] = (float)((i * 37) % 17 - 8);
    for (int i = 0; i < K * N; i++)
        b[i] = (float)((i * 11) % 13 - 6); /* b is N x K row-major: B transposed */
    nr_devptr da = dev_from(a, 4 * (size_t)M * K), db = dev_from(b, 4 * (size_t)K * N),
              dc = dev_from(NULL, 4 * (size_t)M * N);
    RUN(k, (unsigned)((M + 15) / 16), (unsigned)((N + 15) / 16), 1, nr_arg_ptr(da), nr_arg_ptr(db),
        nr_arg_ptr(dc), nr_arg_i32(M), nr_arg_i32(N), nr_arg_i32(K));
    dev_to(c, dc, 4 * (size_t)M * N);
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float want = 0;
            for (int q = 0; q < K; q++)
                want += a[i * K + q] * b[j * K + q]; /* small integers: exact */
            bad += c[i * N + j] != want;
        }
    CHECK(bad == 0, "block-pointer matmul %dx%dx%d: %d wrong", M, N, K, bad);
    nr_free(ctx, da), nr_free(ctx, db), nr_free(ctx, dc);
    free(a), free(b), free(c);
}

/* Tensor descriptors: a 3-D one (D0 x D1 x D2, padding NaN) copied tile by tile into a
 * dense buffer and, plus 1, back into y through a second descriptor (every bound checked);
 * a 1-D fp16 one loaded at a negative offset; desc.shape, desc.strides and
 * desc.block_shape in use. */
static const char *K_DESC =
    "@triton.jit\n"
    "def k(x: *fp32, y: *fp32, t: *fp32, h: *fp16, th: *fp16, D0: i32, D1: i32, D2: i32, L: i32, "
    "B0: tl.constexpr,\n"
    "      B1: tl.constexpr, B2: tl.constexpr):\n"
    "    d = tl.make_tensor_descriptor(x, shape=[D0, D1, D2], strides=[D1 * D2, D2, 1], "
    "block_shape=[B0, B1, B2],\n"
    "                                  padding_option=\"nan\")\n"
    "    e = tl.make_tensor_descriptor(y, d.shape, d.strides, d.block_shape)\n"
    "    p0 = tl.program_id(0)\n"
    "    p1 = tl.program_id(1)\n"
    "    p2 = tl.program_id(2)\n"
    "    v = d.load([p0 * B0, p1 * B1, p2 * B2])\n"
    "    tl.static_assert(d.block_shape[2] == B2)\n"
    "    e.store([p0 * B0, p1 * B1, p2 * B2], v + 1.0)\n"
    "    tile = ((p0 * tl.num_programs(1) + p1) * tl.num_programs(2) + p2) * B0 * B1 * B2\n"
    "    at = (tl.arange(0, B0)[:, None, None] * B1 + tl.arange(0, B1)[None, :, None]) * B2 + "
    "tl.arange(0, B2)[None, None, :]\n"
    "    tl.store(t + tile + at, v)\n"
    "    hd = tl.make_tensor_descriptor(h, [L], [1], [16])\n"
    "    tl.store_tensor_descriptor(tl.make_tensor_descriptor(th, [32], [1], [16]), [p0 * 16], "
    "tl.load_tensor_descriptor(hd, [L - 20]))\n";

static void test_desc(int D0, int D1, int D2, int B0, int B1, int B2, int L) {
    char defs[48];
    snprintf(defs, sizeof defs, "B0=%d B1=%d B2=%d", B0, B1, B2);
    nr_kernel *k = BUILD(K_DESC, defs);
    if (!k) return;
    int n = D0 * D1 * D2, g0 = (D0 + B0 - 1) / B0, g1 = (D1 + B1 - 1) / B1, g2 = (D2 + B2 - 1) / B2;
    int nt = g0 * g1 * g2 * B0 * B1 * B2;
    float *x = malloc(4 * (size_t)n), *y = malloc(4 * (size_t)n), *t = malloc(4 * (size_t)nt);
    uint16_t *h = malloc(2 * (size_t)L), th[32];
    for (int i = 0; i < n; i++) x[i] = (float)i;
    for (int i = 0; i < L; i++) h[i] = h16(i + 1);
    nr_devptr dx = dev_from(x, 4 * (size_t)n), dy = dev_from(NULL, 4 * (size_t)n),
              dt = dev_from(NULL, 4 * (size_t)nt);
    nr_devptr dh = dev_from(h, 2 * (size_t)L), dth = dev_from(NULL, sizeof th);
    RUN(k, (unsigned)g0, (unsigned)g1, (unsigned)g2, nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dt),
        nr_arg_ptr(dh), nr_arg_ptr(dth), nr_arg_i32(D0), nr_arg_i32(D1), nr_arg_i32(D2),
        nr_arg_i32(L));
    dev_to(y, dy, 4 * (size_t)n), dev_to(t, dt, 4 * (size_t)nt), dev_to(th, dth, sizeof th);
    int bad_y = 0, bad_t = 0, bad_h = 0;
    for (int i = 0; i < n; i++) bad_y += y[i] != x[i] + 1.0f;
    for (int p0 = 0; p0 < g0; p0++)
        for (int p1 = 0; p1 < g1; p1++)
            for (int p2 = 0; p2 < g2; p2++)
                for (int a = 0; a < B0 * B1 * B2; a++) {
                    int i = p0 * B0 + a / (B1 * B2), j = p1 * B1 + a / B2 % B1,
                        l = p2 * B2 + a % B2;
                    float got = t[((p0 * g1 + p1) * g2 + p2) * B0 * B1 * B2 + a];
                    bad_t +=
                        i < D0 && j < D1 && l < D2 ? got != x[(i * D1 + j) * D2 + l] : !isnan(got);
                }
    for (int p0 = 0; p0 < 2 && p0 < g0; p0++)
        for (int i = 0; i < 16; i++) {
            int at = L - 20 + i; /* negative when L < 20: zero padding */
            bad_h += th[p0 * 16 + i] != (at >= 0 && at < L ? h[at] : 0);
        }
    CHECK(bad_y == 0, "descriptor %dx%dx%d blocks %dx%dx%d: store: %d wrong", D0, D1, D2, B0, B1,
          B2, bad_y);
    CHECK(bad_t == 0, "descriptor %dx%dx%d: NaN-padded load: %d wrong", D0, D1, D2, bad_t);
    CHECK(bad_h == 0, "1-D fp16 descriptor, L=%d: %d wrong", L, bad_h);
    nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, dt), nr_free(ctx, dh), nr_free(ctx, dth);
    free(x), free(y), free(t), free(h);
}

static void test_errors(void) {
    COMPILE_ERROR("@triton.jit\ndef k(x: *fp32):\n"
                  "    p = tl.make_block_ptr(x, (4,), (1,), (0,), (4,), (0,))\n"
                  "    tl.store(x + tl.arange(0, 4), tl.load(p, mask=tl.arange(0, 4) < 2))\n",
                  NULL, "a block pointer's load takes no 'mask'");
    COMPILE_ERROR("@triton.jit\ndef k(x: *fp32):\n"
                  "    p = tl.make_block_ptr(x, (4,), (1,), (0,), (4,), (0,))\n"
                  "    tl.store(x + tl.arange(0, 4), tl.load(p + 1))\n",
                  NULL, "move a block pointer with tl.advance");
    COMPILE_ERROR("@triton.jit\ndef k(x: *i32):\n"
                  "    p = tl.make_block_ptr(x, (4,), (1,), (0,), (4,), (0,))\n"
                  "    tl.store(x + tl.arange(0, 4), tl.load(p, boundary_check=(0,), "
                  "padding_option=\"nan\"))\n",
                  NULL, "padding_option \"nan\" needs a float element type");
    COMPILE_ERROR("@triton.jit\ndef k(x: *fp32):\n"
                  "    p = tl.make_block_ptr(x, (4, 4), (4, 1), (0, 0), (4, 4), (1, 0))\n"
                  "    tl.store(p, tl.zeros((4, 2), tl.float32))\n",
                  NULL, "not of the block's shape");
    COMPILE_ERROR("@triton.jit\ndef k(x: *fp32):\n"
                  "    d = tl.make_tensor_descriptor(x, [4, 4], [1, 4], [4, 4])\n",
                  NULL,
                  "the last stride must be 1 (as in Triton: the last dim is contiguous), got 4");
    COMPILE_ERROR("@triton.jit\ndef k(x: *fp32):\n"
                  "    tl.load(x + tl.arange(0, 4), boundary_check=(0,))\n",
                  NULL, "boundary_check applies to block pointers");
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    test_tile(37, 45, false, 16, 8, 0);
    test_tile(37, 45, true, 8, 16, 3);
    test_tile(16, 32, false, 16, 32, 0);
    test_tile(5, 3, true, 4, 4, 1);
    test_rowsum(32, 77, 8, 16);
    test_rowsum(16, 16, 16, 16);
    test_rowsum(8, 5, 4, 8);
    test_matmul(37, 29, 45);
    test_matmul(16, 16, 16);
    test_desc(5, 9, 33, 2, 4, 16, 20);
    test_desc(4, 8, 16, 4, 8, 16, 7);
    test_errors();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_blockptr", &st);
}
