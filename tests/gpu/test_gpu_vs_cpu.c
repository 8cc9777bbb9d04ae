/* test_gpu_vs_cpu.c - every example kernel and a set of extra kernels, run on the CPU
 * interpreter (the reference semantics) and on a CUDA GPU with identical inputs, every
 * output compared (harness: gpu_test.h; extra kernels: gpu_kernels.h).
 *
 * What must match bit for bit (NaN payloads aside): data movement, integer arithmetic
 * (//, %, shifts past the width, umulhi, wrap-around), conversions, masks and `other`,
 * atomics whose result does not depend on the order (integer adds and integer-valued
 * float adds, max/min, and/or/xor; a ticket counter compared as a sorted set), control
 * flow, Philox (tl.randint/rand and the dropout masks), fp16 and bf16 elementwise
 * arithmetic without division (each op correctly rounded on both), int8 dot (exact in
 * i32), sqrt, tl.math.div_rn, fp64 division, float % (fmod), fma,
 * floor, ceil, abs, min/max (NaN and signed zeros included), every reduction of
 * integer-valued floats (sums exact in any order), and fp8 (all five formats: fp8e4nv,
 * fp8e5, fp8e4b15, fp8e4b8, fp8e5b16): bytes through loads, stores, selects, bitcasts and
 * transposes, widening to every float type, narrowing from every float type (every
 * midpoint, saturation, infinities, NaN, subnormals), fp8 arithmetic computed in fp32 and
 * rounded back. tools/gpu-run.sh runs the fp8 cases a second time as sm_80 code
 * (NEREID_ARCH=sm_80), whose conversions are integer sequences instead of the sm_90 cvt
 * instructions (fp8e4b15 and the FNUZ formats get integer sequences on every target).
 *
 * What is compared within a tolerance, |gpu - cpu| <= atol + rtol * |cpu|:
 *   x / y        rtol 2.4e-7 fp32 `/` is Triton's div.full.f32 on the GPU (2 ulp); dropout
 *                            outputs x / (1 - p) likewise: with atol 0 a dropped element
 *                            (0) still matches only 0, so the keep masks stay bit-exact
 *   exp          rtol 3e-6   ex2.approx.f32 of x * log2(e): the rounding of x * log2(e)
 *                            costs |x| * 2^-24 in the exponent (|x| <= 20 here)
 *   exp2         rtol 1e-6   ex2.approx.f32 (about 2 ulp)
 *   log, log2    5e-7 + 2e-6 a polynomial on the mantissa (was lg2.approx: ~2^-22 near 1)
 *   sin, cos     atol 2e-6   Cody-Waite reduction + polynomials, on [-pi, pi] and
 *                            [-100, 100] (sin/cos.approx.f32 would be ~2^-20.9 on [-pi, pi]
 *                            only)
 *   rsqrt        rtol 3e-7   rsqrt.approx.f32 (~2^-23 relative)
 *   sigmoid      rtol 2e-6   1 / (1 + exp(-x))
 *   exp on fp16  rtol 2e-3   the fp32 approximation rounded to fp16: one fp16 ulp
 *   randn        1e-3 + 1e-5 sqrt(-2 log u) amplifies log's absolute error where u -> 1
 *   softmax      1e-7 + 5e-5 exp as above, and the row sum added in another order
 *   layer norm   2e-5 + 2e-5 mean and variance summed in another order (Rstd: rtol 2e-5)
 *   dot          per element (gt_dot_bound): (4 K 2^-24 + r) * sum_k |a b|. The products
 *                            are exact in fp32 for fp16/bf16 (and nearly so on the CUDA
 *                            cores' FMAs for fp32); the interpreter adds them in k order,
 *                            the tensor cores in blocks with truncation: each within
 *                            2 K 2^-24 sum|a b| of the exact sum. r = 2^-10 for tf32 (10
 *                            mantissa bits kept, rounded to nearest), else 0. A dot whose
 *                            result is stored as fp16 adds one fp16 ulp (rtol 2^-10)
 *   fp32 sums    5e-5 + 1e-5 random values in [-1, 1), up to 128 of them, in another order
 *   fp16 sums    rtol 4e-3   both add in fp32 and round once, in different orders; the
 *                            bound is loose (it dates from when the GPU added in fp16);
 *                            bf16 sums: rtol 3e-2 likewise
 *
 * Sizes are not multiples of the block; layouts are exercised with num_warps 1 to 32,
 * blocks smaller than a CTA (replicated), misaligned pointers, launch-time num_warps,
 * 2-D to 6-D blocks. One kernel needs more than 48 KB of shared memory. fp64 math goes
 * through libdevice (fp8 tl.dot: test_gpu_dot).
 *
 * Prints a table (kernel, size, max abs err, max rel err, bit-exact?, PASS/FAIL) and ends
 * with "test_gpu_vs_cpu: N passed, M failed" (exit 1 on failures). Without a CUDA device:
 * "SKIP: no CUDA device (...)", exit 0. Options: see gpu_test.h (--cpu-vs-cpu, --dump,
 * --filter, -v). Run from the repository root (or set NEREID_ROOT). */
#include "gpu_kernels.h"
#include "gpu_test.h"
#include "tests/unit/philox_ref.h"

/* fp32 `/` on the GPU: Triton's div.full.f32, within 2 ulp (2 * 2^-23 relative) */
#define DIV_RTOL 2.4e-7

/* ---- the examples, with the defines and grids their hosts use ---- */

static void vector_add(long n, int block, int warps, int launch_warps, int misalign) {
    GtRng r = {42 + (uint64_t)n};
    long pad = misalign ? 3 : 0;
    float *x = gt_fill(GT_F32, (size_t)(n + pad), &r, -100, 100),
          *y = gt_fill(GT_F32, (size_t)(n + pad), &r, -100, 100);
    char name[96];
    snprintf(name, sizeof name, "vector_add B%d w%d%s%s", block, warps,
             launch_warps ? " launched w" : "", misalign ? " misaligned" : "");
    if (launch_warps) snprintf(name + strlen(name), sizeof name - strlen(name), "%d", launch_warps);
    GtCase *c = gt_case(name, "n=%ld", n);
    gt_file(c, "examples/vector_add.nr", "add_kernel");
    gt_define(c, "BLOCK_SIZE", "%d", block);
    gt_warps(c, warps);
    c->launch_warps = launch_warps;
    int bx = gt_in(c, "x", GT_F32, (size_t)(n + pad), x),
        by = gt_in(c, "y", GT_F32, (size_t)(n + pad), y);
    int bz = gt_out(c, "z", GT_F32, (size_t)(n + pad), gt_exact(), NULL);
    /* misaligned: x, y, z start 1, 2 and 3 elements into their buffers (not 16-byte aligned) */
    gt_arg_buf_off(c, bx, misalign ? 1 : 0);
    gt_arg_buf_off(c, by, misalign ? 2 : 0);
    gt_arg_buf_off(c, bz, misalign ? 3 : 0);
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(x), free(y);
}

static void dropout(long n, float p) {
    GtRng r = {7 + (uint64_t)n};
    float *x = gt_fill(GT_F32, (size_t)n, &r, -2, 2);
    int32_t *keep = malloc(4 * (size_t)n);
    for (long i = 0; i < n; i++) keep[i] = gt_uniform(&r, 0, 1) > p;
    GtCase *c = gt_case("dropout (_dropout, stored mask)", "n=%ld p=%.1f", n, p);
    gt_file(c, "examples/dropout.nr", "_dropout");
    gt_define(c, "BLOCK_SIZE", "%d", 1024);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, (size_t)n, x));
    gt_arg_buf(c, gt_in(c, "keep", GT_I32, (size_t)n, keep));
    gt_arg_buf(c, gt_out(c, "out", GT_F32, (size_t)n, gt_tol(0, DIV_RTOL), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_arg(c, nr_arg_f32(p));
    gt_grid(c, (unsigned)gt_cdiv(n, 1024), 1, 1);
    gt_run(c);
    free(x), free(keep);
}

static void seeded_dropout(long n, float p, int32_t seed) {
    GtRng r = {2024 + (uint64_t)n};
    float *x = gt_fill(GT_F32, (size_t)n, &r, 0.25, 2);
    GtCase *c = gt_case("seeded_dropout (tl.rand)", "n=%ld p=%.1f s=%d", n, p, seed);
    gt_file(c, "examples/dropout.nr", "_seeded_dropout");
    gt_define(c, "BLOCK_SIZE", "%d", 1024);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, (size_t)n, x));
    gt_arg_buf(c, gt_out(c, "out", GT_F32, (size_t)n, gt_tol(0, DIV_RTOL), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_arg(c, nr_arg_f32(p));
    gt_arg(c, nr_arg_i32(seed));
    gt_grid(c, (unsigned)gt_cdiv(n, 1024), 1, 1);
    gt_run(c);
    free(x);
}

static void matrix_dropout(long rows, long cols, int layout) {
    /* layout 0: x column-major -> out padded rows; 1: x column stride 2 -> out column-major */
    long xrs = layout ? 2 * cols + 1 : 1, xcs = layout ? 2 : rows, ors = layout ? 1 : cols + 3,
         ocs = layout ? rows : 1;
    long nx = (rows - 1) * xrs + (cols - 1) * xcs + 1,
         nout = (rows - 1) * ors + (cols - 1) * ocs + 1;
    GtRng r = {99 + (uint64_t)(rows * cols)};
    float *x = gt_fill(GT_F32, (size_t)nx, &r, 0.25, 2);
    int32_t *seeds = malloc(4 * (size_t)rows);
    for (long i = 0; i < rows; i++) seeds[i] = i % 3 == 0 ? 42 : (int32_t)(gt_u64(&r) >> 33);
    GtCase *c = gt_case(layout ? "matrix_dropout (col stride 2 -> col-major)"
                               : "matrix_dropout (col-major -> padded)",
                        "%ldx%ld", rows, cols);
    gt_file(c, "examples/matrix_dropout.nr", "_matrix_seeded_dropout");
    gt_define(c, "BLOCK_SIZE", "%d", 256);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, (size_t)nx, x));
    gt_arg_buf(c, gt_out(c, "out", GT_F32, (size_t)nout, gt_tol(0, DIV_RTOL), NULL));
    gt_arg_buf(c, gt_in(c, "seeds", GT_I32, (size_t)rows, seeds));
    long v[] = {rows, cols, xrs, xcs, ors, ocs};
    for (int i = 0; i < 6; i++) gt_arg(c, nr_arg_i32((int32_t)v[i]));
    gt_arg(c, nr_arg_f32(0.5f));
    gt_grid(c, (unsigned)rows, (unsigned)gt_cdiv(cols, 256), 1);
    gt_run(c);
    free(x), free(seeds);
}

static void softmax(long rows, long cols, int warps) {
    long block = gt_next_pow2(cols), stride = cols + 5, programs = rows < 48 ? rows : 48;
    GtRng r = {5 + (uint64_t)(rows * cols)};
    float *x = gt_fill(GT_F32, (size_t)(rows * stride), &r, -5, 5);
    for (long i = 0; i < rows * stride; i++)
        if (i % stride >= cols) x[i] = 1e30f; /* padding a stray lane would pick up */
    GtCase *c = gt_case("softmax (softmax_kernel)", "%ldx%ld w%d", rows, cols, warps);
    gt_file(c, "examples/softmax.nr", "softmax_kernel");
    gt_define(c, "BLOCK_SIZE", "%ld", block);
    gt_define(c, "num_stages", "%d", 1);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_out(c, "out", GT_F32, (size_t)(rows * cols), gt_tol(1e-7, 5e-5), NULL));
    gt_arg_buf(c, gt_in(c, "in", GT_F32, (size_t)(rows * stride), x));
    long v[] = {stride, cols, rows, cols};
    for (int i = 0; i < 4; i++) gt_arg(c, nr_arg_i32((int32_t)v[i]));
    gt_grid(c, (unsigned)programs, 1, 1);
    gt_run(c);
    free(x);
}

static void layer_norm(long m, long n) {
    long stride = n + 7;
    GtRng r = {31337 + (uint64_t)(m * n)};
    float *x = malloc(4 * (size_t)(m * stride)), *w = gt_fill(GT_F32, (size_t)n, &r, 0, 1);
    float *b = gt_fill(GT_F32, (size_t)n, &r, -0.5, 0.5);
    for (long i = 0; i < m * stride; i++)
        x[i] = i % stride < n ? (float)(-2.3 + gt_uniform(&r, -0.85, 0.85)) : 1e30f;
    GtCase *c = gt_case("layer_norm (_layer_norm_fwd_fused)", "%ldx%ld", m, n);
    gt_file(c, "examples/layer_norm.nr", "_layer_norm_fwd_fused");
    gt_define(c, "BLOCK_SIZE", "%d", 256);
    gt_arg_buf(c, gt_in(c, "X", GT_F32, (size_t)(m * stride), x));
    gt_arg_buf(c, gt_out(c, "Y", GT_F32, (size_t)(m * stride), gt_tol(2e-5, 2e-5), NULL));
    gt_arg_buf(c, gt_in(c, "W", GT_F32, (size_t)n, w));
    gt_arg_buf(c, gt_in(c, "B", GT_F32, (size_t)n, b));
    gt_arg_buf(c, gt_out(c, "Mean", GT_F32, (size_t)m, gt_tol(2e-5, 2e-5), NULL));
    gt_arg_buf(c, gt_out(c, "Rstd", GT_F32, (size_t)m, gt_tol(0, 2e-5), NULL));
    gt_arg(c, nr_arg_i32((int32_t)stride));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_arg(c, nr_arg_f32(1e-5f));
    gt_grid(c, (unsigned)m, 1, 1);
    gt_run(c);
    free(x), free(w), free(b);
}

static void matmul(long m, long n, long k, int bm, int bn, int b_colmajor, const char *act) {
    GtRng r = {1234 + (uint64_t)(m * n * k)};
    uint16_t *a = gt_fill(GT_F16, (size_t)(m * k), &r, -1, 1),
             *b = gt_fill(GT_F16, (size_t)(k * n), &r, -1, 1);
    long sbk = b_colmajor ? 1 : n, sbn = b_colmajor ? k : 1;
    GtCase *c =
        gt_case(*act ? "matmul fp16 (matmul_kernel) leaky_relu" : "matmul fp16 (matmul_kernel)",
                "%ldx%ldx%ld%s", m, n, k, b_colmajor ? " Bcol" : "");
    gt_file(c, "examples/matmul.nr", "matmul_kernel");
    gt_define(c, "BLOCK_SIZE_M", "%d", bm);
    gt_define(c, "BLOCK_SIZE_N", "%d", bn);
    gt_define(c, "BLOCK_SIZE_K", "%d", 32);
    gt_define(c, "GROUP_SIZE_M", "%d", 8);
    gt_define(c, "ACTIVATION", "%s", act);
    gt_arg_buf(c, gt_in(c, "a", GT_F16, (size_t)(m * k), a));
    gt_arg_buf(c, gt_in(c, "b", GT_F16, (size_t)(k * n), b));
    int out = gt_out(c, "c", GT_F16, (size_t)(m * n), gt_tol(0, 0x1p-10), NULL);
    gt_dot_bound(c, out, GT_F16, a, k, 1, b, sbk, sbn, m, n, k, n, 0);
    gt_arg_buf(c, out);
    long v[] = {m, n, k, k, 1, sbk, sbn, n, 1};
    for (int i = 0; i < 9; i++) gt_arg(c, nr_arg_i32((int32_t)v[i]));
    gt_grid(c, (unsigned)(gt_cdiv(m, bm) * gt_cdiv(n, bn)), 1, 1);
    gt_run(c);
    free(a), free(b);
}

/* dropout4x: also checked against a plain-C Philox on the CPU's result */
typedef struct D4 {
    long n;
    int block;
    float p;
    int32_t seed;
    const float *x;
} D4;

static int dropout4x_ref(GtCase *c) {
    const D4 *d = c->user;
    const float *out = gt_result(c, 1, 0);
    long bad = 0;
    for (long e = 0; e < d->n; e++) {
        long pid = e / (4L * d->block), w = (e % (4L * d->block)) / d->block, j = e % d->block;
        uint32_t ctr[4] = {(uint32_t)(pid * d->block + j), 0, 0, 0};
        philox_ref((uint64_t)(int64_t)d->seed, ctr);
        float want = philox_uniform(ctr[w]) > d->p ? d->x[e] / (1.0f - d->p) : 0.0f;
        if (memcmp(&want, &out[e], 4) && bad++ < 3)
            printf("    dropout4x: [%ld] = %g, the C Philox reference says %g\n", e, (double)out[e],
                   (double)want);
    }
    if (bad) printf("    dropout4x: %ld elements differ from the C Philox reference\n", bad);
    return bad == 0;
}

static void dropout4x(long n, int block, float p, int32_t seed) {
    GtRng r = {77 + (uint64_t)n};
    float *x = gt_fill(GT_F32, (size_t)n, &r, 0.25, 2);
    D4 d = {n, block, p, seed, x};
    GtCase *c =
        gt_case("dropout4x (bench/dropout4x.nr, tl.rand4x)", "n=%ld B%d s=%d", n, block, seed);
    gt_file(c, "bench/dropout4x.nr", "_seeded_dropout4x");
    gt_define(c, "BLOCK", "%d", block);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, (size_t)n, x));
    gt_arg_buf(c, gt_out(c, "out", GT_F32, (size_t)n, gt_tol(0, DIV_RTOL), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_arg(c, nr_arg_f32(p));
    gt_arg(c, nr_arg_i32(seed));
    gt_grid(c, (unsigned)gt_cdiv(n, 4L * block), 1, 1);
    c->check = dropout4x_ref, c->user = &d;
    gt_run(c);
    free(x);
}

/* ---- extra kernels ---- */

static void typed_binop(GtType t, long n, int block, int warps) {
    GtRng r = {11 + (uint64_t)t};
    void *x, *y;
    if (gt_is_float(t)) x = gt_fill(t, (size_t)n, &r, -4, 4), y = gt_fill(t, (size_t)n, &r, -4, 4);
    else
        x = gt_fill_int(t, (size_t)n, &r, -100000, 100000),
        y = gt_fill_int(t, (size_t)n, &r, -100000, 100000);
    char name[64];
    snprintf(name, sizeof name, "elementwise %s: x+y, x*y-x", gt_type_name(t));
    GtCase *c = gt_case(name, "n=%ld B%d w%d", n, block, warps);
    gt_source(c, K_TYPED_BINOP, "typed_binop", "T", gt_type_name(t), NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "x", t, (size_t)n, x));
    gt_arg_buf(c, gt_in(c, "y", t, (size_t)n, y));
    gt_arg_buf(c, gt_out(c, "sum", t, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "prod", t, (size_t)n, gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(x), free(y);
}

static void softmax_fp16(long rows, long cols, int warps) {
    long block = gt_next_pow2(cols), stride = cols + 3;
    GtRng r = {55 + (uint64_t)cols};
    uint16_t *x = gt_fill(GT_F16, (size_t)(rows * stride), &r, -6, 6);
    GtCase *c = gt_case("softmax fp16 in/out, fp32 inside", "%ldx%ld w%d", rows, cols, warps);
    gt_source(c, K_SOFTMAX16, "softmax_fp16", NULL);
    gt_define(c, "BLOCK", "%ld", block);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_out(c, "out", GT_F16, (size_t)(rows * cols), gt_tol(2e-7, 2e-3), NULL));
    gt_arg_buf(c, gt_in(c, "in", GT_F16, (size_t)(rows * stride), x));
    gt_arg(c, nr_arg_i32((int32_t)stride));
    gt_arg(c, nr_arg_i32((int32_t)cols));
    gt_grid(c, (unsigned)rows, 1, 1);
    gt_run(c);
    free(x);
}

/* prec: "" (fp32: TF32 permitted), "ieee" */
static void dot(GtType t, long m, long n, long k, int bm, int bn, int bk, int trans_b, int warps,
                const char *prec) {
    GtRng r = {808 + (uint64_t)(m * n * k)};
    void *a, *b;
    if (t == GT_I8)
        a = gt_fill_int(t, (size_t)(m * k), &r, -128, 128),
        b = gt_fill_int(t, (size_t)(k * n), &r, -128, 128);
    else a = gt_fill(t, (size_t)(m * k), &r, -1, 1), b = gt_fill(t, (size_t)(k * n), &r, -1, 1);
    char name[96], p[64] = "";
    snprintf(name, sizeof name, "tl.dot %s%s%s%s", gt_type_name(t), trans_b ? " trans(B)" : "",
             *prec ? " " : "", prec);
    if (*prec) snprintf(p, sizeof p, ", input_precision=\"%s\"", prec);
    GtCase *c = gt_case(name, "%ldx%ldx%ld %dx%dx%d w%d", m, n, k, bm, bn, bk, warps);
    int i8 = t == GT_I8; /* i8 x i8 accumulates exactly in i32 */
    gt_source(c, K_DOT, "dot_kernel", "T", gt_type_name(t), "PREC", p, "ACC",
              i8 ? "tl.int32" : "tl.float32", "C", i8 ? "i32" : "fp32", NULL);
    gt_define(c, "BM", "%d", bm);
    gt_define(c, "BN", "%d", bn);
    gt_define(c, "BK", "%d", bk);
    gt_define(c, "TRANS_B", "%s", trans_b ? "True" : "False");
    gt_warps(c, warps);
    /* i8: exact; the others within the summation bound (tf32 adds its rounded inputs) */
    gt_arg_buf(c, gt_in(c, "a", t, (size_t)(m * k), a));
    gt_arg_buf(c, gt_in(c, "b", t, (size_t)(k * n), b)); /* [K, N], or [N, K] with TRANS_B */
    int out =
        gt_out(c, "c", i8 ? GT_I32 : GT_F32, (size_t)(m * n), i8 ? gt_exact() : gt_tol(0, 0), NULL);
    if (!i8)
        gt_dot_bound(c, out, t, a, k, 1, b, trans_b ? 1 : n, trans_b ? k : 1, m, n, k, n,
                     t == GT_F32 && strcmp(prec, "ieee") ? 0x1p-10 : 0);
    gt_arg_buf(c, out);
    gt_arg(c, nr_arg_i32((int32_t)m));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_arg(c, nr_arg_i32((int32_t)k));
    gt_grid(c, (unsigned)gt_cdiv(m, bm), (unsigned)gt_cdiv(n, bn), 1);
    gt_run(c);
    free(a), free(b);
}

/* more than 48 KB of dynamic shared memory: the opt-in attribute must be set */
static void big_dot(GtType t) {
    enum { B = 128 };
    GtRng r = {4242 + (uint64_t)t};
    void *a = gt_fill(t, B * B, &r, -1, 1), *b = gt_fill(t, B * B, &r, -1, 1);
    char name[96];
    snprintf(name, sizeof name, "tl.dot %s, %d KB of shared memory", gt_type_name(t),
             (int)(2 * B * B * gt_size(t) / 1024));
    GtCase *c = gt_case(name, "%dx%dx%d w8", B, B, B);
    gt_source(c, K_BIGDOT, "big_dot", "T", gt_type_name(t), "PREC", ", input_precision=\"ieee\"",
              NULL);
    gt_define(c, "B", "%d", B);
    gt_warps(c, 8);
    gt_arg_buf(c, gt_in(c, "a", t, B * B, a));
    gt_arg_buf(c, gt_in(c, "b", t, B * B, b));
    int out = gt_out(c, "c", GT_F32, B * B, gt_tol(0, 0), NULL);
    gt_dot_bound(c, out, t, a, B, 1, b, B, 1, B, B, B, B, 0);
    gt_arg_buf(c, out);
    gt_run(c);
    free(a), free(b);
}

/* data: 0 integers (i32), 1 quarters (fp32, exact sums), 2 random fp32 with NaNs */
static void reduce2d(int data, int br, int bc, int rows, int cols, int warps) {
    GtType t = data == 0 ? GT_I32 : GT_F32;
    GtRng r = {300 + (uint64_t)(br * 1000 + bc + data)};
    size_t n = (size_t)(rows * cols);
    void *x;
    if (data == 0) x = gt_fill_int(t, n, &r, -50, 50); /* many ties: the first index must win */
    else if (data == 1) x = gt_fill_quarters(t, n, &r, -4, 4);
    else {
        x = gt_fill(t, n, &r, -1, 1);
        for (size_t i = 0; i < n; i += 37) ((float *)x)[i] = NAN;
    }
    char name[96];
    snprintf(name, sizeof name, "reduce 2-D %s",
             data == 0   ? "i32"
             : data == 1 ? "fp32 quarters"
                         : "fp32+NaN");
    GtCase *c = gt_case(name, "%dx%d in %dx%d w%d", rows, cols, br, bc, warps);
    gt_source(c, K_REDUCE2D, "reduce2d", "T", gt_type_name(t), NULL);
    gt_define(c, "BR", "%d", br);
    gt_define(c, "BC", "%d", bc);
    gt_define(c, "LO", "%s", t == GT_I32 ? "-2147483648" : "-inf");
    gt_define(c, "HI", "%s", t == GT_I32 ? "2147483647" : "inf");
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "x", t, n, x));
    gt_arg_buf(c, gt_out(c, "sums", t, (size_t)(br + bc + 1),
                         data == 2 ? gt_tol(5e-5, 1e-5) : gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "max/min", t, (size_t)(2 * (br + bc)), gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "argmax/argmin", GT_I32, (size_t)(2 * (br + bc)), gt_exact(), NULL));
    gt_arg(c, nr_arg_i32(rows));
    gt_arg(c, nr_arg_i32(cols));
    gt_run(c);
    free(x);
}

/* one program per BLOCK elements, many warps: partials through shared memory */
static void reduce1d(GtType t, int block, int warps, long n) {
    GtRng r = {900 + (uint64_t)(block + warps)};
    void *x =
        t == GT_F32 ? gt_fill_quarters(t, (size_t)n, &r, -8, 8) : gt_fill(t, (size_t)n, &r, 0, 1);
    long programs = gt_cdiv(n, block);
    char name[96];
    snprintf(name, sizeof name, "reduce 1-D %s%s", gt_type_name(t), t == GT_F32 ? " quarters" : "");
    GtCase *c = gt_case(name, "n=%ld B%d w%d", n, block, warps);
    gt_source(c, K_REDUCE1D, "reduce1d", "T", gt_type_name(t), NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_warps(c, warps);
    c->rows_per_output = t != GT_F32;
    GtTol sum_tol = t == GT_F32 ? gt_exact() : t == GT_F16 ? gt_tol(0, 4e-3) : gt_tol(0, 3e-2);
    gt_arg_buf(c, gt_in(c, "x", t, (size_t)n, x));
    gt_arg_buf(c, gt_out(c, "sum", t, (size_t)programs, sum_tol, NULL));
    gt_arg_buf(c, gt_out(c, "max,min", t, (size_t)(2 * programs), gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "argmax,argmin", GT_I32, (size_t)(2 * programs), gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)programs, 1, 1);
    gt_run(c);
    free(x);
}

static void minmax_special(void) {
    static const float vals[8] = {NAN, -INFINITY, -1.0f, -0.0f, 0.0f, 1.0f, INFINITY, 2.5f};
    float x[64], y[64];
    for (int i = 0; i < 64; i++) x[i] = vals[i / 8], y[i] = vals[i % 8];
    GtCase *c = gt_case("min/max of NaN +-inf +-0 pairs", "8x8 pairs");
    gt_source(c, K_MINMAX_SPECIAL, "minmax_special", NULL);
    gt_define(c, "BLOCK", "%d", 64);
    c->rows_per_output = 1;
    gt_arg_buf(c, gt_in(c, "x", GT_F32, 64, x));
    gt_arg_buf(c, gt_in(c, "y", GT_F32, 64, y));
    gt_arg_buf(c, gt_out(c, "tl.minimum", GT_F32, 64, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "tl.maximum", GT_F32, 64, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "tl.min(axis)", GT_F32, 64, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "tl.max(axis)", GT_F32, 64, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "tl.argmin", GT_I32, 64, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "tl.argmax", GT_I32, 64, gt_exact(), NULL));
    gt_run(c);
}

static void where_mask(long n, int block) {
    GtRng r = {17 + (uint64_t)n};
    float *x = gt_fill(GT_F32, (size_t)n, &r, -3, 3), *y = gt_fill(GT_F32, (size_t)n, &r, -3, 3);
    GtCase *c = gt_case("tl.where, masks, other", "n=%ld B%d", n, block);
    gt_source(c, K_WHERE_MASK, "where_mask", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, (size_t)n, x));
    gt_arg_buf(c, gt_in(c, "y", GT_F32, (size_t)n, y));
    gt_arg_buf(c, gt_out(c, "out", GT_F32, (size_t)(3 * n + 1), gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(x), free(y);
}

/* a random integer of type t, a fifth of them special (0, +-1, the extremes) */
static void int_value(GtType t, void *p, size_t i, GtRng *r, int shift_amount) {
    int bits = (int)gt_size(t) * 8;
    int sgn = t == GT_I8 || t == GT_I16 || t == GT_I32 || t == GT_I64;
    uint64_t v;
    if (shift_amount) {
        v = (uint64_t)(int64_t)gt_int(r, sgn ? -3 : 0, bits + 6); /* past the width, negative */
        if (gt_int(r, 0, 20) == 0) v = (uint64_t)1 << (bits - 1); /* huge (or the most negative) */
    } else {
        v = gt_u64(r);
        switch (gt_int(r, 0, 10)) {
        case 0: v = 0; break;
        case 1: v = 1; break;
        case 2: v = ~(uint64_t)0; break;              /* -1 */
        case 3: v = (uint64_t)1 << (bits - 1); break; /* INT_MIN / 2^(w-1) */
        case 4: v = bits == 64 ? ~((uint64_t)1 << 63) : ((uint64_t)1 << (bits - 1)) - 1; break;
        case 5: v = (uint64_t)gt_int(r, -20, 20); break;
        default: break;
        }
    }
    memcpy((char *)p + i * gt_size(t), &v, gt_size(t)); /* the low bytes (little-endian) */
}

static void int_ops(GtType t, long n, int block) {
    GtRng r = {123 + (uint64_t)t};
    void *a = calloc((size_t)n, gt_size(t)), *b = calloc((size_t)n, gt_size(t)),
         *s = calloc((size_t)n, gt_size(t));
    for (long i = 0; i < n; i++) {
        int_value(t, a, (size_t)i, &r, 0);
        int_value(t, b, (size_t)i, &r, 0);
        int_value(t, s, (size_t)i, &r, 1);
        if (i % 7 == 0)
            memset((char *)b + (size_t)i * gt_size(t), 0, gt_size(t)); /* division by zero: 0 */
        if (i % 11 == 0 && t != GT_U32 && t != GT_U64) {               /* INT_MIN // -1 */
            int_value(t, a, (size_t)i, &r, 0);
            uint64_t mn = (uint64_t)1 << (gt_size(t) * 8 - 1), m1 = ~(uint64_t)0;
            memcpy((char *)a + (size_t)i * gt_size(t), &mn, gt_size(t));
            memcpy((char *)b + (size_t)i * gt_size(t), &m1, gt_size(t));
        }
    }
    int mulhi = gt_size(t) >= 4;
    char name[96];
    snprintf(name, sizeof name, "int ops %s (// %% << >> bitwise min max abs%s)", gt_type_name(t),
             mulhi ? " umulhi" : "");
    GtCase *c = gt_case(name, "n=%ld B%d", n, block);
    gt_source(c, K_INT_OPS, "int_ops", "T", gt_type_name(t), NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_define(c, "HAS_MULHI", "%s", mulhi ? "True" : "False");
    gt_arg_buf(c, gt_in(c, "a", t, (size_t)n, a));
    gt_arg_buf(c, gt_in(c, "b", t, (size_t)n, b));
    gt_arg_buf(c, gt_in(c, "s", t, (size_t)n, s));
    gt_arg_buf(c, gt_out(c, "out", t, (size_t)(11 * n), gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(a), free(b), free(s);
}

static void conversions(long n, int block) {
    GtRng r = {31 + (uint64_t)n};
    float *f = malloc(4 * (size_t)n);
    int64_t *l = malloc(8 * (size_t)n);
    int32_t *ii = malloc(4 * (size_t)n);
    static const float fs[] = {
        NAN,           INFINITY, -INFINITY, 0.0f,        -0.0f,         0.5f,          -0.5f,
        1.5f,          2.5f,     -2.5f,     255.5f,      256.0f,        300.7f,        -0.7f,
        -1.0f,         127.9f,   -128.9f,   -129.0f,     2147483520.0f, 3e9f,          -3e9f,
        4294967040.0f, 5e9f,     1e20f,     -1e20f,      65504.0f,      65520.0f,      70000.0f,
        1e-6f,         6e-8f,    3e-8f,     1.00390625f, 1.01171875f,   3.3895314e38f, 1e-40f};
    /* i64 values where rounding to bf16 through fp64 rounds twice: 2^62 + 2^54 + 1 lies
     * just above a bf16 midpoint, 2^62 + 2^54 on it */
    static const int64_t ls[] = {0,
                                 1,
                                 -1,
                                 INT64_MAX,
                                 INT64_MIN,
                                 (1LL << 62) + (1LL << 54) + 1,
                                 (1LL << 62) + (1LL << 54),
                                 -((1LL << 62) + (1LL << 54) + 1),
                                 (1LL << 53) + 1,
                                 (1LL << 40) + (1LL << 32) + 1,
                                 (1LL << 24) + 1,
                                 16777217,
                                 0x7fffff7fffffffffLL,
                                 33554435};
    /* i32 values rounding to bf16 twice through fp32 would go wrong: just above a midpoint */
    static const int32_t is[] = {(1 << 30) + (1 << 22) + 1,
                                 -((1 << 30) + (1 << 22) + 1),
                                 (1 << 24) + 1,
                                 INT32_MAX,
                                 INT32_MIN,
                                 (1 << 26) + (1 << 18) + 3};
    for (long i = 0; i < n; i++) {
        long k = i % 64;
        f[i] = k < GT_COUNT(fs) ? fs[k]
                                : (float)gt_uniform(&r, -70000, 70000) * (k % 2 ? 1.0f : 1e-3f);
        l[i] = k < GT_COUNT(ls) ? ls[k] : (int64_t)gt_u64(&r) >> (gt_int(&r, 0, 63));
        ii[i] = k < 8 ? (int32_t)(k < 4 ? 65519 + k * 8 : 2049 + k)
                      : (int32_t)(gt_u64(&r) >> (gt_int(&r, 32, 63)));
        if (gt_int(&r, 0, 2)) ii[i] = -ii[i];
        if (k >= 8 && k < 8 + GT_COUNT(is)) ii[i] = is[k - 8];
    }
    GtCase *c = gt_case("conversions", "n=%ld", n);
    gt_source(c, K_CONVERSIONS, "conversions", NULL);
    gt_define(c, "BLOCK", "%d", block);
    c->rows_per_output = 1;
    gt_arg_buf(c, gt_in(c, "f", GT_F32, (size_t)n, f));
    gt_arg_buf(c, gt_in(c, "l", GT_I64, (size_t)n, l));
    gt_arg_buf(c, gt_in(c, "i", GT_I32, (size_t)n, ii));
    static const struct {
        const char *name;
        GtType t;
    } outs[] = {{"fp32->i32", GT_I32},   {"fp32->u8", GT_U8},    {"fp32->i8", GT_I8},
                {"fp32->u32", GT_U32},   {"fp32->i64", GT_I64},  {"fp32->fp16", GT_F16},
                {"fp32->bf16", GT_BF16}, {"i32->fp16", GT_F16},  {"i32->fp32", GT_F32},
                {"i64->fp32", GT_F32},   {"i64->bf16", GT_BF16}, {"fp32->fp16->bf16", GT_BF16},
                {"bitcast", GT_I32},     {"i32->bf16", GT_BF16}};
    for (int k = 0; k < GT_COUNT(outs); k++)
        gt_arg_buf(c, gt_out(c, outs[k].name, outs[k].t, (size_t)n, gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(f), free(l), free(ii);
}

static void math(long n, int block) {
    GtRng r = {271828 + (uint64_t)n};
    float *x = gt_fill(GT_F32, (size_t)n, &r, -20, 20),
          *y = gt_fill(GT_F32, (size_t)n, &r, 0.25, 8);
    float *p = gt_fill(GT_F32, (size_t)n, &r, 1e-3, 1000),
          *a = gt_fill(GT_F32, (size_t)n, &r, -3.14159265, 3.14159265);
    float *wide = gt_fill(GT_F32, (size_t)n, &r, -100, 100);
    static const float xs[] = {0.0f,  -0.0f,    1.0f,      -1.0f, 0.5f, -0.5f, 2.5f,
                               -2.5f, INFINITY, -INFINITY, NAN,   7.0f, 1e-30f};
    static const float ps[] = {1.0f,   0.5f,       2.0f,        0.0f, INFINITY,
                               1e-30f, 1.0000001f, 0.99999994f, NAN,  1000.0f};
    for (long i = 0; i < n; i++) {
        if (i % 50 < GT_COUNT(xs)) x[i] = xs[i % 50];
        if (i % 50 < GT_COUNT(ps)) p[i] = ps[i % 50];
        if (i % 3 == 0) y[i] = -y[i];
        if (i % 97 == 5) p[i] = (float)gt_uniform(&r, 1e5, 1e7); /* large quotients for % */
    }
    GtCase *c = gt_case("math", "n=%ld", n);
    gt_source(c, K_MATH, "math_ops", NULL);
    gt_define(c, "BLOCK", "%d", block);
    c->rows_per_output = 1;
    gt_arg_buf(c, gt_in(c, "x", GT_F32, (size_t)n, x));
    gt_arg_buf(c, gt_in(c, "y", GT_F32, (size_t)n, y));
    gt_arg_buf(c, gt_in(c, "pos", GT_F32, (size_t)n, p));
    gt_arg_buf(c, gt_in(c, "ang", GT_F32, (size_t)n, a));
    gt_arg_buf(c, gt_in(c, "wide", GT_F32, (size_t)n, wide));
    static const struct {
        const char *name;
        double atol, rtol;
        int exact;
    } outs[] = {{"exp [-20,20] (approx)", 0, 3e-6, 0},
                {"exp2 [-20,20] (approx)", 0, 1e-6, 0},
                {"log", 5e-7, 2e-6, 0},
                {"log2", 5e-7, 2e-6, 0},
                {"sin [-pi,pi]", 2e-6, 0, 0},
                {"cos [-pi,pi]", 2e-6, 0, 0},
                {"sqrt (IEEE)", 0, 0, 1},
                {"rsqrt (approx)", 0, 3e-7, 0},
                {"floor", 0, 0, 1},
                {"ceil", 0, 0, 1},
                {"abs", 0, 0, 1},
                {"fma", 0, 0, 1},
                {"x / y (div.full: 2 ulp)", 0, DIV_RTOL, 0},
                {"x % y (fmod)", 0, 0, 1},
                {"sigmoid (approx exp)", 0, 2e-6, 0},
                {"exp fp16 (approx)", 0, 2e-3, 0},
                {"tl.math.div_rn (IEEE)", 0, 0, 1},
                {"sin [-100,100]", 2e-6, 0, 0},
                {"cos [-100,100]", 2e-6, 0, 0}};
    for (int k = 0; k < GT_COUNT(outs); k++)
        gt_arg_buf(
            c, gt_out(c, outs[k].name, strstr(outs[k].name, "fp16") ? GT_F16 : GT_F32, (size_t)n,
                      outs[k].exact ? gt_exact() : gt_tol(outs[k].atol, outs[k].rtol), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(x), free(y), free(p), free(a), free(wide);
}

/* libdevice's math functions: CUDA's bounds are a few ulps (docs/language.md section
 * 13): rtol 6e-7 (5 ulp) on the GPU; the exact ones (trunc, rint, round, copysign),
 * clamp and minimum/maximum bit for bit; fp16 through fp32 within an fp16 ulp. */
static void libdevice_math(long n, int block, int warps) {
    GtRng r = {16180 + (uint64_t)(n + warps)};
    float *x = gt_fill(GT_F32, (size_t)n, &r, -4, 4), *y = gt_fill(GT_F32, (size_t)n, &r, -4, 4);
    float *p = gt_fill(GT_F32, (size_t)n, &r, 1e-3, 10);
    uint16_t *h = gt_fill(GT_F16, (size_t)n, &r, -3, 3);
    static const float xs[] = {0.0f,  -0.0f,    1.0f,      -1.0f, 0.5f,   -0.5f, 2.5f,
                               -2.5f, INFINITY, -INFINITY, NAN,   1e-30f, 1.5f,  -3.5f};
    for (long i = 0; i < n; i++) {
        if (i % 40 < GT_COUNT(xs)) x[i] = xs[i % 40];
        if (i % 53 == 7) y[i] = NAN;
    }
    GtCase *c = gt_case("libdevice math, clamp, PropagateNan", "n=%ld B%d w%d", n, block, warps);
    gt_source(c, K_LIBDEVICE, "libdevice_math", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_warps(c, warps);
    c->rows_per_output = 1;
    gt_arg_buf(c, gt_in(c, "x", GT_F32, (size_t)n, x));
    gt_arg_buf(c, gt_in(c, "y", GT_F32, (size_t)n, y));
    gt_arg_buf(c, gt_in(c, "p", GT_F32, (size_t)n, p));
    gt_arg_buf(c, gt_in(c, "h", GT_F16, (size_t)n, h));
    static const char *const names[] = {
        "erf",   "erfc",  "tanh",  "sinh",  "cosh",      "tan",   "asin",    "acos", "atan",
        "asinh", "acosh", "atanh", "log10", "log1p",     "expm1", "exp10",   "cbrt", "pow",
        "atan2", "hypot", "trunc", "rint",  "nearbyint", "round", "copysign"};
    for (int k = 0; k < GT_COUNT(names); k++)
        gt_arg_buf(c, gt_out(c, names[k], GT_F32, (size_t)n,
                             k >= 20 ? gt_exact() : gt_tol(1e-37, 6e-7), NULL));
    static const char *const exact[] = {"clamp", "clamp ALL", "minimum ALL", "maximum ALL"};
    for (int k = 0; k < GT_COUNT(exact); k++)
        gt_arg_buf(c, gt_out(c, exact[k], GT_F32, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "erf fp16", GT_F16, (size_t)n, gt_tol(1e-7, 1e-3), NULL));
    gt_arg_buf(c, gt_out(c, "pow fp16", GT_F16, (size_t)n, gt_tol(1e-7, 1e-3), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(x), free(y), free(p), free(h);
}

/* tl.cumsum, cumprod, associative_scan, reduce and xor_sum along each axis of R x C
 * blocks (masked corners, 1-8 warps): integers bit for bit (the recurrence's combine is
 * not commutative: the order must be kept); fp32 sums of quarters exact; fp32 products
 * within a few ulps (another order of rounding). */
static void scans_case(int R, int C, int rows, int cols, int warps) {
    GtRng r = {424242 + (uint64_t)(R * 1000 + C + warps)};
    size_t n = (size_t)(rows * cols);
    int32_t *a = gt_fill_int(GT_I32, n, &r, -2, 3), *b = gt_fill_int(GT_I32, n, &r, -1000, 1000);
    float *f = gt_fill_quarters(GT_F32, n, &r, -4, 4);
    GtCase *c = gt_case("scans: cumsum, associative_scan, reduce", "%dx%d in %dx%d w%d", rows, cols,
                        R, C, warps);
    gt_source(c, K_SCANS, "scans", NULL);
    gt_define(c, "R", "%d", R);
    gt_define(c, "C", "%d", C);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "a", GT_I32, n, a));
    gt_arg_buf(c, gt_in(c, "b", GT_I32, n, b));
    gt_arg_buf(c, gt_in(c, "f", GT_F32, n, f));
    gt_arg_buf(c, gt_out(c, "cumsum, reverse cumsum, recurrences", GT_I32, (size_t)(4 * R * C),
                         gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "fp32 cumsum (exact), cumprod", GT_F32, (size_t)(2 * R * C),
                         gt_tol(1e-30, 2e-6), NULL));
    gt_arg_buf(c,
               gt_out(c, "reduce, xor_sum", GT_I32, (size_t)(2 * C + 2 * R + 2), gt_exact(), NULL));
    gt_arg(c, nr_arg_i32(rows));
    gt_arg(c, nr_arg_i32(cols));
    gt_run(c);
    free(a), free(b), free(f);
}

/* sort, flip, topk, gather, histogram: all bit for bit (a total order for floats, NaNs
 * and signed zeros included; the histogram's shared-memory atomics count exactly). */
static void perm_case(int R, int C, int warps) {
    GtRng r = {8675309 + (uint64_t)(R * 1000 + C + warps)};
    size_t n = (size_t)(R * C);
    float *x = gt_fill(GT_F32, n, &r, -4, 4);
    int32_t *z = gt_fill_int(GT_I32, n, &r, -100, 100), *ix = gt_fill_int(GT_I32, n, &r, -300, 300);
    static const float sp[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f};
    for (size_t i = 0; i < n; i += 11) x[i] = sp[(i / 11) % 6];
    GtCase *c = gt_case("sort, flip, topk, gather, histogram", "%dx%d w%d", R, C, warps);
    gt_source(c, K_PERM, "perm", NULL);
    gt_define(c, "R", "%d", R);
    gt_define(c, "C", "%d", C);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, n, x));
    gt_arg_buf(c, gt_in(c, "z", GT_I32, n, z));
    gt_arg_buf(c, gt_in(c, "ix", GT_I32, n, ix));
    gt_arg_buf(c, gt_out(c, "sort, flip (fp32)", GT_F32, 4 * n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "gather, sort, topk (i32)", GT_I32, 4 * n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "histogram", GT_I32, 64, gt_exact(), NULL));
    gt_run(c);
    free(x), free(z), free(ix);
}

/* blocks of 5 dims and more: shape d (5 dims), its permute perm and the 3 summed axes, a
 * shape of 6 to 16 dims of as many elements and its permute; n of the elements inside the mask.
 * Quarters in [-8, 8]: the sums are exact in any order. */
static void rank5_case(const int *d, const char *perm, const char *axes, const char *six,
                       const char *perm6, long n, int warps) {
    size_t N = (size_t)d[0] * d[1] * d[2] * d[3] * d[4];
    GtRng r = {5150 + N + (uint64_t)warps};
    float *x = gt_fill_quarters(GT_F32, N, &r, -8, 8);
    void *h = gt_fill_quarters(GT_F16, 16, &r, -8, 8);
    GtCase *c = gt_case("5-D to 16-D blocks (sums, permutes, cumsum)", "%dx%dx%dx%dx%d n=%ld w%d",
                        d[0], d[1], d[2], d[3], d[4], n, warps);
    gt_source(c, K_RANK5, "rank5", NULL);
    static const char *const dn[5] = {"D0", "D1", "D2", "D3", "D4"};
    for (int k = 0; k < 5; k++) gt_define(c, dn[k], "%d", d[k]);
    gt_define(c, "PERM", "%s", perm), gt_define(c, "AXES", "%s", axes);
    gt_define(c, "SIX", "%s", six), gt_define(c, "PERM6", "%s", perm6);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, N, x));
    gt_arg_buf(c, gt_in(c, "h", GT_F16, 16, h));
    gt_arg_buf(c, gt_out(c, "chained sums", GT_F32, 2048, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "6-D round trip", GT_F32, N, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "cumsum along dim 3", GT_F32, N, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "fp16 broadcast to rank 5", GT_F16, 1024, gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_run(c);
    free(x), free(h);
}

/* Block pointers and tensor descriptors: lowered to masked loads and stores by the front
 * end, so these check the GPU on the pointer blocks and masks they become: tiles starting
 * above the tensor (negative offsets), NaN and zero padding, a transposed source, checked
 * stores, a descriptor store, block pointers advanced in loops along each axis. */
static const char K_BLOCKPTR[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def blockptr(x: *fp32, t: *fp32, tz: *fp32, y: *fp32, y2: *fp32, s: *fp32, cs: *fp32, M: i32, "
    "N: i32, sxm: i32, sxn: i32,\n"
    "             BM: tl.constexpr, BN: tl.constexpr):\n"
    "    pm = tl.program_id(0)\n"
    "    pn = tl.program_id(1)\n"
    "    src = tl.make_block_ptr(x, (M, N), (sxm, sxn), (pm * BM - 3, pn * BN), (BM, BN), (1, 0))\n"
    "    v = tl.load(src, boundary_check=(0, 1), padding_option=\"nan\")\n"
    "    tile = (pm * tl.num_programs(1) + pn) * BM * BN\n"
    "    at = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]\n"
    "    tl.store(t + tile + at, v)\n"
    "    tl.store(tz + tile + at, tl.load(src, boundary_check=(1, 0)))\n"
    "    dst = tl.make_block_ptr(y, (M, N), (N, 1), (pm * BM - 3, pn * BN), (BM, BN), (1, 0))\n"
    "    tl.store(dst, v * 2.0, boundary_check=(0, 1))\n"
    "    e = tl.make_tensor_descriptor(y2, [M, N], [N, 1], [BM, BN])\n"
    "    e.store([pm * BM - 3, pn * BN], v + 1.0)\n"
    "    rows = tl.make_block_ptr(x, (M, N), (sxm, sxn), (pm * BM, 0), (BM, BN), (1, 0))\n"
    "    racc = tl.zeros((BM, BN), tl.float32)\n"
    "    for _ in range(0, tl.cdiv(N, BN)):\n"
    "        racc += tl.load(rows, boundary_check=(0, 1))\n"
    "        rows = tl.advance(rows, (0, BN))\n"
    "    tl.store(tl.make_block_ptr(s, (M,), (1,), (pm * BM,), (BM,), (0,)), tl.sum(racc, 1), "
    "boundary_check=(0,))\n"
    "    cols = tl.make_block_ptr(x, (M, N), (sxm, sxn), (0, pn * BN), (BM, BN), (0, 1))\n"
    "    cacc = tl.zeros((BM, BN), tl.float32)\n"
    "    for _ in range(0, tl.cdiv(M, BM)):\n"
    "        cacc += tl.load(cols, boundary_check=(0, 1))\n"
    "        cols = tl.advance(cols, (BM, 0))\n"
    "    tl.store(tl.make_block_ptr(cs, (N,), (1,), (pn * BN,), (BN,), (0,)), tl.sum(cacc, 0), "
    "boundary_check=(0,))\n";

static void blockptr_case(int M, int N, int BM, int BN, bool transposed, int warps) {
    GtRng r = {31337 + (uint64_t)(M * 1000 + N + warps)};
    size_t n = (size_t)(M * N);
    int gm = (M + 3 + BM - 1) / BM, gn = (N + BN - 1) / BN;
    size_t nt = (size_t)(gm * gn * BM * BN);
    float *x = gt_fill_quarters(GT_F32, n, &r, -4, 4); /* sums of quarters: exact in any order */
    GtCase *c = gt_case("block pointers, tensor descriptor stores", "%dx%d%s in %dx%d w%d", M, N,
                        transposed ? " T" : "", BM, BN, warps);
    gt_source(c, K_BLOCKPTR, "blockptr", NULL);
    gt_define(c, "BM", "%d", BM);
    gt_define(c, "BN", "%d", BN);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, n, x));
    gt_arg_buf(c, gt_out(c, "tiles (NaN padding)", GT_F32, nt, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "tiles (zero padding)", GT_F32, nt, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "checked store", GT_F32, n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "descriptor store", GT_F32, n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "row sums (advance along 1)", GT_F32, (size_t)M, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "column sums (advance along 0)", GT_F32, (size_t)N, gt_exact(), NULL));
    gt_arg(c, nr_arg_i32(M));
    gt_arg(c, nr_arg_i32(N));
    gt_arg(c, nr_arg_i32(transposed ? 1 : N));
    gt_arg(c, nr_arg_i32(transposed ? M : 1));
    gt_grid(c, (unsigned)gm, (unsigned)gn, 1);
    gt_run(c);
    free(x);
}

/* A matmul through block pointers, B given transposed ([N, K] as a (K, N) block pointer
 * with strides (1, K), order (0, 1)): the tensor cores and the cp.async pipeline on the
 * loads the block pointers become. */
static const char K_BLOCKPTR_DOT[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def blockptr_dot(a_ptr: *@T@, b_ptr: *@T@, c_ptr: *fp32, M: i32, N: i32, K: i32, BM: "
    "tl.constexpr, BN: tl.constexpr,\n"
    "                 BK: tl.constexpr):\n"
    "    a = tl.make_block_ptr(a_ptr, (M, K), (K, 1), (tl.program_id(0) * BM, 0), (BM, BK), (1, "
    "0))\n"
    "    b = tl.make_block_ptr(b_ptr, (K, N), (1, K), (0, tl.program_id(1) * BN), (BK, BN), (0, "
    "1))\n"
    "    acc = tl.zeros((BM, BN), tl.float32)\n"
    "    for k in range(0, K, BK):\n"
    "        acc = tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1)), "
    "acc)\n"
    "        a = tl.advance(a, (0, BK))\n"
    "        b = tl.advance(b, (BK, 0))\n"
    "    c = tl.make_block_ptr(c_ptr, (M, N), (N, 1), (tl.program_id(0) * BM, tl.program_id(1) * "
    "BN), (BM, BN), (1, 0))\n"
    "    tl.store(c, acc, boundary_check=(0, 1))\n";

static void blockptr_dot(GtType t, long m, long n, long k, int bm, int bn, int bk, int warps) {
    GtRng r = {909 + (uint64_t)(m * n * k)};
    void *a = gt_fill(t, (size_t)(m * k), &r, -1, 1), *b = gt_fill(t, (size_t)(k * n), &r, -1, 1);
    char name[64];
    snprintf(name, sizeof name, "block-pointer tl.dot %s trans(B)", gt_type_name(t));
    GtCase *c = gt_case(name, "%ldx%ldx%ld %dx%dx%d w%d", m, n, k, bm, bn, bk, warps);
    gt_source(c, K_BLOCKPTR_DOT, "blockptr_dot", "T", gt_type_name(t), NULL);
    gt_define(c, "BM", "%d", bm);
    gt_define(c, "BN", "%d", bn);
    gt_define(c, "BK", "%d", bk);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "a", t, (size_t)(m * k), a));
    gt_arg_buf(c, gt_in(c, "b", t, (size_t)(k * n), b));
    int out = gt_out(c, "c", GT_F32, (size_t)(m * n), gt_tol(0, 0), NULL);
    gt_dot_bound(c, out, t, a, k, 1, b, 1, k, m, n, k, n, 0);
    gt_arg_buf(c, out);
    gt_arg(c, nr_arg_i32((int32_t)m));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_arg(c, nr_arg_i32((int32_t)k));
    gt_grid(c, (unsigned)gt_cdiv(m, bm), (unsigned)gt_cdiv(n, bn), 1);
    gt_run(c);
    free(a), free(b);
}

/* An atomic on a block smaller than the CTA (32 elements, 128 threads: replicated) whose
 * old values then move between threads (a reshape through shared memory): every copy of
 * an element must hold the owner's old value. */
static const char *K_ATOMIC_OLD =
    "@triton.jit\n"
    "def atomic_old(x_ptr: *i32, out_ptr: *i32, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    old = tl.atomic_add(x_ptr + offs, offs + 1)\n"
    "    t = tl.reshape(old, (4, BLOCK // 4))\n"
    "    r = tl.arange(0, 4)[:, None] * (BLOCK // 4) + tl.arange(0, BLOCK // 4)[None, :]\n"
    "    tl.store(out_ptr + r, t)\n";

static void atomic_old_values(int block) {
    GtRng r = {777 + (uint64_t)block};
    int32_t *x = gt_fill_int(GT_I32, (size_t)block, &r, -1000, 1000);
    GtCase *c = gt_case("atomic old values, replicated layout", "BLOCK=%d w4", block);
    gt_source(c, K_ATOMIC_OLD, "atomic_old", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_out(c, "x after", GT_I32, (size_t)block, gt_exact(), x);
    gt_out(c, "old values", GT_I32, (size_t)block, gt_exact(), NULL);
    gt_arg_all_bufs(c);
    gt_grid(c, 1, 1, 1);
    gt_run(c);
    free(x);
}

/* fp32 atomic adds of contiguous rows, as an embedding's backward does (out[idx[row], :]
 * += x[row, :]): on sm_90 four elements an instruction (atom.add.v4.f32) where the rows
 * let a thread's run be aligned and under one mask value (n divisible by 16), one at a
 * time otherwise, and replicated elements (a 32-wide block on 128 threads) added once.
 * The values are small integers, so every order of the adds gives the same sums; a
 * second atomic on distinct addresses checks the old values it returns. */
static const char *K_SCATTER_ADD =
    "@triton.jit\n"
    "def scatter_add(out_ptr: *fp32, acc_ptr: *fp32, prev_ptr: *fp32, x_ptr: *fp32,\n"
    "                idx_ptr: *i32, n: i32, BLOCK: tl.constexpr):\n"
    "    row = tl.program_id(0)\n"
    "    o = tl.arange(0, BLOCK)\n"
    "    m = o < n\n"
    "    j = tl.load(idx_ptr + row)\n"
    "    v = tl.load(x_ptr + row * n + o, mask=m, other=0.0)\n"
    "    tl.atomic_add(out_ptr + j * n + o, v, mask=m, sem='relaxed')\n"
    "    prev = tl.atomic_add(acc_ptr + row * n + o, v, mask=m)\n"
    "    tl.store(prev_ptr + row * n + o, prev, mask=m)\n";

static void scatter_add(int rows, int n, int nslots, int block) {
    GtRng r = {991 + (uint64_t)n};
    size_t len = (size_t)rows * (size_t)n;
    int32_t *idx = gt_fill_int(GT_I32, (size_t)rows, &r, 0, nslots);
    float *x = gt_fill_int(GT_F32, len, &r, -8, 8), *acc = gt_fill_int(GT_F32, len, &r, -99, 99);
    void *zero = calloc((size_t)nslots * (size_t)n, 4);
    if (!zero) abort();
    GtCase *c = gt_case("fp32 atomic add of rows (vector atomics on sm_90)",
                        "rows=%d n=%d BLOCK=%d", rows, n, block);
    gt_source(c, K_SCATTER_ADD, "scatter_add", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_arg_buf(c, gt_out(c, "out", GT_F32, (size_t)nslots * (size_t)n, gt_exact(), zero));
    gt_arg_buf(c, gt_out(c, "acc", GT_F32, len, gt_exact(), acc));
    gt_arg_buf(c, gt_out(c, "old values", GT_F32, len, gt_exact(), NULL));
    gt_arg_buf(c, gt_in(c, "x", GT_F32, len, x));
    gt_arg_buf(c, gt_in(c, "idx", GT_I32, (size_t)rows, idx));
    gt_arg(c, nr_arg_i32(n));
    gt_grid(c, (unsigned)rows, 1, 1);
    gt_run(c);
    free(idx), free(x), free(acc), free(zero);
}

/* Float atomic max and min on every pair of special values (memory, value): -0.0 below
 * +0.0, NaN values ignored, NaN in memory kept or replaced by its sign (ir_ops.def); the
 * GPU's two integer atomics on the bits against the interpreter, bit for bit. */
static void atomic_minmax(GtType t) {
    static const double sp[] = {0.0, -0.0, 1.0, -1.0, 2.5, -2.5, INFINITY, -INFINITY, NAN, -NAN};
    enum { S = 10, N = S * S };
    double mem[N], val[N];
    for (int i = 0; i < N; i++) mem[i] = sp[i / S], val[i] = sp[i % S];
    size_t eb = gt_size(t);
    char *m = malloc(N * eb), *v = malloc(N * eb);
    if (!m || !v) abort();
    for (int i = 0; i < N; i++) gt_put(t, m, (size_t)i, mem[i]), gt_put(t, v, (size_t)i, val[i]);
    GtCase *c = gt_case("atomic max/min: signs, zeros, NaN", "%s, %d pairs", gt_type_name(t), N);
    gt_source(c, K_ATOMIC_MINMAX, "atomic_minmax", "T", gt_type_name(t), NULL);
    gt_define(c, "BLOCK", "%d", 64);
    gt_arg_buf(c, gt_out(c, "max memory", t, N, gt_exact(), m));
    gt_arg_buf(c, gt_out(c, "min memory", t, N, gt_exact(), m));
    gt_arg_buf(c, gt_in(c, "v", t, N, v));
    gt_arg_buf(c, gt_out(c, "max old", t, N, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "min old", t, N, gt_exact(), NULL));
    gt_arg(c, nr_arg_i32(N));
    gt_grid(c, (unsigned)gt_cdiv(N, 64), 1, 1);
    gt_run(c);
    free(m), free(v);
}

static void atomics(long n, int block, int nslots) {
    GtRng r = {555 + (uint64_t)n};
    long programs = gt_cdiv(n, block), npad = programs * block;
    int32_t *slot = gt_fill_int(GT_I32, (size_t)n, &r, 0, nslots),
            *v = gt_fill_int(GT_I32, (size_t)n, &r, -1000, 1000);
    float *f = gt_fill_int(GT_F32, (size_t)n, &r, -8, 8);
    int32_t *uniq = gt_fill_int(GT_I32, (size_t)n, &r, -5, 5),
            *cas = gt_fill_int(GT_I32, (size_t)npad, &r, 0, 4);
    int32_t *imax = malloc(4 * (size_t)nslots), *imin = malloc(4 * (size_t)nslots),
            *ones = malloc(4 * (size_t)nslots);
    float *fmax = malloc(4 * (size_t)nslots), *fmin = malloc(4 * (size_t)nslots);
    for (int i = 0; i < nslots; i++)
        imax[i] = INT32_MIN, imin[i] = INT32_MAX, ones[i] = -1, fmax[i] = -INFINITY,
        fmin[i] = INFINITY;
    void *zero = calloc((size_t)npad, 8);
    GtCase *c = gt_case("atomics", "n=%ld slots=%d", n, nslots);
    gt_source(c, K_ATOMICS, "atomics", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_in(c, "slot", GT_I32, (size_t)n, slot);
    gt_in(c, "v", GT_I32, (size_t)n, v);
    gt_in(c, "f", GT_F32, (size_t)n, f);
    gt_out(c, "add i32", GT_I32, (size_t)nslots, gt_exact(), zero);
    gt_out(c, "add i64", GT_I64, (size_t)nslots, gt_exact(), zero);
    gt_out(c, "add fp32", GT_F32, (size_t)nslots, gt_exact(), zero);
    gt_out(c, "add fp16", GT_F16, (size_t)nslots, gt_exact(), zero);
    gt_out(c, "add bf16", GT_BF16, (size_t)nslots, gt_exact(), zero);
    gt_out(c, "max i32", GT_I32, (size_t)nslots, gt_exact(), imax);
    gt_out(c, "min i32", GT_I32, (size_t)nslots, gt_exact(), imin);
    gt_out(c, "max fp32", GT_F32, (size_t)nslots, gt_exact(), fmax);
    gt_out(c, "min fp32", GT_F32, (size_t)nslots, gt_exact(), fmin);
    gt_out(c, "or", GT_I32, (size_t)nslots, gt_exact(), zero);
    gt_out(c, "and", GT_I32, (size_t)nslots, gt_exact(), ones);
    gt_out(c, "xor", GT_I32, (size_t)nslots, gt_exact(), zero);
    gt_out(c, "unique addresses", GT_I32, (size_t)n, gt_exact(), uniq);
    gt_out(c, "old values", GT_I32, (size_t)n, gt_exact(), NULL);
    gt_out(c, "cas", GT_I32, (size_t)npad, gt_exact(), cas);
    gt_out(c, "cas old values", GT_I32, (size_t)npad, gt_exact(), NULL);
    gt_out(c, "ticket counter", GT_I32, 1, gt_exact(), zero);
    int tickets = gt_out(c, "tickets (sorted)", GT_I32, (size_t)programs, gt_exact(), NULL);
    gt_sorted(c, tickets);
    gt_arg_all_bufs(c);
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)programs, 1, 1);
    c->rows_per_output = 1;
    gt_run(c);
    free(slot), free(v), free(f), free(uniq), free(cas), free(imax), free(imin), free(ones),
        free(fmax), free(fmin);
    free(zero);
}

static void control(long n, int block, int flag) {
    enum { MAXIT = 9 };
    long programs = gt_cdiv(n, block);
    GtRng r = {4711 + (uint64_t)flag};
    float *x = gt_fill_quarters(GT_F32, (size_t)(n + 7 * MAXIT), &r, -4, 4);
    int32_t *iters = malloc(4 * (size_t)programs);
    static const int32_t its[] = {0, 1, 2, 5, MAXIT, 3, 7, 4};
    for (long i = 0; i < programs; i++) iters[i] = its[i % 8];
    GtCase *c = gt_case(flag ? "control flow (for, while, if) flag=1"
                             : "control flow (for, while, if) flag=0",
                        "n=%ld B%d", n, block);
    gt_source(c, K_CONTROL, "control", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, (size_t)(n + 7 * MAXIT), x));
    gt_arg_buf(c, gt_in(c, "iters", GT_I32, (size_t)programs, iters));
    gt_arg_buf(c, gt_out(c, "out", GT_F32, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "counts", GT_I32, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "misc", GT_I32, (size_t)(2 * programs), gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_arg(c, nr_arg_i32(flag));
    gt_grid(c, (unsigned)programs, 1, 1);
    gt_run(c);
    free(x), free(iters);
}

static void shapes(int bm, int bn, int warps) {
    GtRng r = {606 + (uint64_t)(bm * bn + warps)};
    float *x = gt_fill_quarters(GT_F32, (size_t)(bm * bn), &r, -8, 8),
          *v = gt_fill_quarters(GT_F32, (size_t)(bm + bn), &r, -8, 8);
    GtCase *c = gt_case("trans reshape broadcast expand_dims permute", "%dx%d w%d", bm, bn, warps);
    gt_source(c, K_SHAPES, "shapes", NULL);
    gt_define(c, "BM", "%d", bm);
    gt_define(c, "BN", "%d", bn);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, (size_t)(bm * bn), x));
    gt_arg_buf(c, gt_in(c, "v", GT_F32, (size_t)(bm + bn), v));
    const char *outs[] = {"trans", "reshape", "broadcast", "permute", "x.T, keep_dims sum, ravel"};
    for (int k = 0; k < 5; k++)
        gt_arg_buf(c, gt_out(c, outs[k], GT_F32, (size_t)(bm * bn), gt_exact(), NULL));
    gt_run(c);
    free(x), free(v);
}

static void join_split(int bm, int bn, int warps) {
    GtRng r = {808 + (uint64_t)(bm * bn + warps)};
    float *x = gt_fill_quarters(GT_F32, (size_t)(bm * bn), &r, -8, 8);
    void *y = gt_fill_int(GT_I32, (size_t)(bm * bn), &r, -1000, 1000);
    GtCase *c = gt_case("join split interleave (and a word spread)", "%dx%d w%d", bm, bn, warps);
    gt_source(c, K_JOIN, "join_split", NULL);
    gt_define(c, "BM", "%d", bm);
    gt_define(c, "BN", "%d", bn);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, (size_t)(bm * bn), x));
    gt_arg_buf(c, gt_in(c, "y", GT_I32, (size_t)(bm * bn), y));
    gt_arg_buf(c, gt_out(c, "interleave", GT_F32, (size_t)(2 * bm * bn), gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "split fp32", GT_F32, (size_t)(bm * bn), gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "split i32", GT_I32, (size_t)(bm * bn), gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "words spread", GT_I32, (size_t)(bm * bn), gt_exact(), NULL));
    gt_run(c);
    free(x), free(y);
}

static void layouts(int b, int warps) {
    GtRng r = {707 + (uint64_t)(b + warps)};
    float *x = gt_fill_quarters(GT_F32, (size_t)(b * b), &r, -8, 8);
    GtCase *c = gt_case("2-D layouts (row/col access, slices, trans)", "%dx%d w%d", b, b, warps);
    gt_source(c, K_LAYOUTS, "layouts", NULL);
    gt_define(c, "B", "%d", b);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "x", GT_F32, (size_t)(b * b), x));
    gt_arg_buf(c, gt_out(c, "x + 2 x^T", GT_F32, (size_t)(b * b), gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "row sums + 3 col max", GT_F32, (size_t)b, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "(x - x^T / 2)^T", GT_F32, (size_t)(b * b), gt_exact(), NULL));
    gt_run(c);
    free(x);
}

static void philox(long n, int block, int64_t seed, int seed64) {
    GtCase *c =
        gt_case(seed64 ? "philox (i64 seed)" : "philox", "n=%ld s=%lld", n, (long long)seed);
    gt_source(c, K_PHILOX, "philox", "T", seed64 ? "i64" : "i32", NULL);
    gt_define(c, "BLOCK", "%d", block);
    c->rows_per_output = 1;
    gt_arg_buf(c, gt_out(c, "randint4x", GT_U32, (size_t)(4 * n), gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "rand", GT_F32, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "rand4x", GT_F32, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(
        c, gt_out(c, "randn (approx log, sin, cos)", GT_F32, (size_t)n, gt_tol(1e-3, 1e-5), NULL));
    gt_arg_buf(c, gt_out(c, "randint 7 rounds", GT_U32, (size_t)n, gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_arg(c, seed64 ? nr_arg_i64(seed) : nr_arg_i32((int32_t)seed));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
}

static void philox64(long n, int block, int64_t seed, int64_t base) {
    GtCase *c = gt_case("philox, 64-bit offsets", "n=%ld s=%lld from %lld", n, (long long)seed,
                        (long long)base);
    gt_source(c, K_PHILOX64, "philox64", NULL);
    gt_define(c, "BLOCK", "%d", block);
    c->rows_per_output = 1;
    gt_arg_buf(c, gt_out(c, "randint4x", GT_U32, (size_t)(4 * n), gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "rand", GT_F32, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(
        c, gt_out(c, "randn (approx log, sin, cos)", GT_F32, (size_t)n, gt_tol(1e-3, 1e-5), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_arg(c, nr_arg_i64(seed));
    gt_arg(c, nr_arg_i64(base));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    c = gt_case("tl.philox, 64-bit counters", "n=%ld s=%lld from %lld", n, (long long)seed,
                (long long)base);
    gt_source(c, K_PHILOX64, "philox4x64", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_arg_buf(c, gt_out(c, "words", GT_U64, (size_t)(4 * n), gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_arg(c, nr_arg_i64(seed));
    gt_arg(c, nr_arg_i64(base));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
}

static void grid3d(unsigned gx, unsigned gy, unsigned gz) {
    enum { B = 4 };
    GtCase *c = gt_case("3-D grid: program_id, num_programs", "%ux%ux%u", gx, gy, gz);
    gt_source(c, K_GRID3D, "grid3d", NULL);
    gt_define(c, "BLOCK", "%d", B);
    gt_arg_buf(c, gt_out(c, "out", GT_I32, (size_t)gx * gy * gz * B, gt_exact(), NULL));
    gt_grid(c, gx, gy, gz);
    gt_run(c);
}

static void bytes_kernel(long n, int block) {
    GtRng r = {31 + (uint64_t)n};
    uint8_t *flag = gt_fill_int(GT_I1, (size_t)n, &r, 0, 2),
            *u8 = gt_fill_int(GT_U8, (size_t)n, &r, 0, 256);
    int16_t *h = gt_fill_int(GT_I16, (size_t)n, &r, -32768, 32768);
    GtCase *c = gt_case("i1, u8, i16 memory", "n=%ld B%d", n, block);
    gt_source(c, K_BYTES, "bytes_kernel", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_arg_buf(c, gt_in(c, "flag", GT_I1, (size_t)n, flag));
    gt_arg_buf(c, gt_in(c, "u8", GT_U8, (size_t)n, u8));
    gt_arg_buf(c, gt_in(c, "i16", GT_I16, (size_t)n, h));
    gt_arg_buf(c, gt_out(c, "i1 out", GT_I1, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "u8 out", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "i16 out", GT_I16, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "fp16 out", GT_F16, (size_t)n, gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(flag), free(u8), free(h);
}

static void fp64_ops(long n, int block) {
    GtRng r = {64 + (uint64_t)n};
    double *x = gt_fill(GT_F64, (size_t)n, &r, -1e3, 1e3),
           *y = gt_fill(GT_F64, (size_t)n, &r, 0.5, 100);
    for (long i = 0; i < n; i++) x[i] += gt_uniform(&r, 0, 1) * 1e-9, y[i] *= (i % 2 ? 1 : -1);
    GtCase *c = gt_case("fp64 (* / + fma sqrt max floor, ->fp32)", "n=%ld", n);
    gt_source(c, K_FP64, "fp64_ops", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_arg_buf(c, gt_in(c, "x", GT_F64, (size_t)n, x));
    gt_arg_buf(c, gt_in(c, "y", GT_F64, (size_t)n, y));
    gt_arg_buf(c, gt_out(c, "out", GT_F64, (size_t)(3 * n), gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "out32", GT_F32, (size_t)n, gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(x), free(y);
}

/* ---- fp8 ---- */

/* The fp8 formats, f: 0 fp8e4nv (OCP E4M3FN), 1 fp8e5 (E5M2), 2 fp8e4b15 (Triton's E4M3,
 * bias 15, no NaN), 3 fp8e4b8 (E4M3 FNUZ), 4 fp8e5b16 (E5M2 FNUZ); the largest finite
 * value's byte. */
static const struct F8 {
    const char *name, *dtype;
    int mbits, bias, max;
} f8[5] = {{"fp8e4nv", "tl.float8e4nv", 3, 7, 0x7e},
           {"fp8e5", "tl.float8e5", 2, 15, 0x7b},
           {"fp8e4b15", "tl.float8e4b15", 3, 15, 0x7f},
           {"fp8e4b8", "tl.float8e4b8", 3, 8, 0x7f},
           {"fp8e5b16", "tl.float8e5b16", 2, 16, 0x7f}};

/* The value of fp8 byte b of format f from its fields. */
static double f8_value(int f, int b) {
    int mbits = f8[f].mbits, bias = f8[f].bias, e = (b & 0x7f) >> mbits,
        mant = b & ((1 << mbits) - 1);
    double v;
    if (f == 0 && (b & 0x7f) == 0x7f) return NAN;
    if (f >= 3 && b == 0x80) return NAN;
    if (f == 1 && e == 31) v = mant ? NAN : INFINITY;
    else if (e == 0) v = ldexp(mant, 1 - bias - mbits);
    else v = ldexp(mant + (1 << mbits), e - bias - mbits);
    return b & 0x80 ? -v : v;
}

/* Inputs for narrowing to format f: each finite value, the midpoint between each pair of
 * neighbours and just either side of it (both signs; fp64 nudged by 2^-40 past what fp32
 * can hold), saturation, infinities, NaNs, zeros, tiny values; n of them, cycling. */
static void f8_narrow_inputs(int f, long n, float *x, uint16_t *h, uint16_t *bf, double *d) {
    static double v[2048];
    int nv = 0, max = f8[f].max;
    for (int c = 0; c < max; c++) {
        double lo = f8_value(f, c), hi = f8_value(f, c + 1), mid = (lo + hi) / 2;
        double xs[4] = {lo, mid, nextafter(mid, 0), nextafter(mid, INFINITY)};
        for (int j = 0; j < 4; j++) v[nv++] = xs[j], v[nv++] = -xs[j];
    }
    double top = f8_value(f, max);
    double extra[] = {top,       top * 1.03, top * 1.0714, top * 2, 1e30, INFINITY,
                      -INFINITY, NAN,        -NAN,         0.0,     -0.0, 1e-30,
                      -1e-30,    -top * 1.5, 65504.0,      70000.0, 3e-8, -6e-8};
    for (size_t j = 0; j < sizeof extra / sizeof *extra; j++) v[nv++] = extra[j];
    for (long i = 0; i < n; i++) {
        double a = v[i % nv];
        x[i] = (float)a, h[i] = gt_f2h((float)a), bf[i] = gt_f2bf((float)a);
        d[i] = i % 3 == 1 ? a + ldexp(fabs(a), -40) : i % 3 == 2 ? a - ldexp(fabs(a), -40) : a;
    }
}

static void fp8_conv(int f, long n, int block, int warps, int misalign) {
    long pad = misalign ? 1 : 0;
    uint8_t *b = malloc((size_t)(n + pad));
    float *x = malloc(4 * (size_t)n);
    uint16_t *h = malloc(2 * (size_t)n), *bf = malloc(2 * (size_t)n);
    double *d = malloc(8 * (size_t)n);
    for (long i = 0; i < n + pad; i++) b[i] = (uint8_t)((i - pad) & 0xff);
    f8_narrow_inputs(f, n, x, h, bf, d);
    const char *tn = f8[f].name;
    char name[96];
    snprintf(name, sizeof name, "%s conversions%s", tn, misalign ? " (misaligned)" : "");
    GtCase *c = gt_case(name, "n=%ld B%d w%d", n, block, warps);
    gt_source(c, K_FP8_CONV, "fp8_conv", "T", tn, "DT", f8[f].dtype, NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_warps(c, warps);
    c->rows_per_output = 1;
    /* fp8 buffers are bytes (GT_U8): compared bit for bit */
    gt_arg_buf_off(c, gt_in(c, "bytes", GT_U8, (size_t)(n + pad), b), pad);
    gt_arg_buf(c, gt_in(c, "fp32", GT_F32, (size_t)n, x));
    gt_arg_buf(c, gt_in(c, "fp16", GT_F16, (size_t)n, h));
    gt_arg_buf(c, gt_in(c, "bf16", GT_BF16, (size_t)n, bf));
    gt_arg_buf(c, gt_in(c, "fp64", GT_F64, (size_t)n, d));
    gt_arg_buf_off(c, gt_out(c, "copy", GT_U8, (size_t)(n + pad), gt_exact(), NULL), pad);
    gt_arg_buf(c, gt_out(c, "to fp32", GT_F32, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "to fp16", GT_F16, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "to bf16", GT_BF16, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "to fp64", GT_F64, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "from fp32", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "from fp16", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "from bf16", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "from fp64", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "where", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "bitcast ^ 0x5a", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "other, full", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(b), free(x), free(h), free(bf), free(d);
}

static void fp8_arith(long n, int block, int warps) {
    GtRng r = {8080 + (uint64_t)n};
    uint8_t *x = malloc((size_t)n), *y = malloc((size_t)n), *z = malloc((size_t)n);
    int32_t *v = gt_fill_int(GT_I32, (size_t)n, &r, -600, 600);
    for (long i = 0; i < n; i++) {
        x[i] = (uint8_t)gt_int(&r, 0, 256), y[i] = (uint8_t)gt_int(&r, 0, 256),
        z[i] = (uint8_t)gt_int(&r, 0, 256);
        /* no -0: the GPU leaves the sign of max(-0, +0) open */
        if (x[i] == 0x80) x[i] = 0;
        if (y[i] == 0x80) y[i] = 0;
    }
    GtCase *c = gt_case("fp8 arithmetic", "n=%ld B%d w%d", n, block, warps);
    gt_source(c, K_FP8_ARITH, "fp8_arith", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_warps(c, warps);
    c->rows_per_output = 1;
    gt_arg_buf(c, gt_in(c, "x", GT_U8, (size_t)n, x));
    gt_arg_buf(c, gt_in(c, "y", GT_U8, (size_t)n, y));
    gt_arg_buf(c, gt_in(c, "z", GT_U8, (size_t)n, z));
    gt_arg_buf(c, gt_in(c, "i", GT_I32, (size_t)n, v));
    static const char *const outs[] = {"x + y", "x * y - y", "abs(-x)", "maximum",
                                       "where", "x + 1.3",   "x + i32"};
    for (int k = 0; k < 7; k++)
        gt_arg_buf(c, gt_out(c, outs[k], GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "e5: z * 2.5 + z", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "e4 + e5 (fp16)", GT_F16, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "e4 < e5", GT_I1, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "to i32 + to i16", GT_I32, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "to fp32 * 3", GT_F32, (size_t)n, gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(x), free(y), free(z), free(v);
}

/* fp8e4b15, fp8e4b8 and fp8e5b16 through the promotion rules (K_FP8_ARITH_MORE) */
static void fp8_arith_more(long n, int block, int warps) {
    GtRng r = {8181 + (uint64_t)n};
    uint8_t *x = malloc((size_t)n), *y = malloc((size_t)n), *z = malloc((size_t)n);
    for (long i = 0; i < n; i++) {
        x[i] = (uint8_t)gt_int(&r, 0, 256), y[i] = (uint8_t)gt_int(&r, 0, 256),
        z[i] = (uint8_t)gt_int(&r, 0, 256);
        if (x[i] == 0x80)
            x[i] = 0; /* no -0 (fp8e4b15 has one): the GPU leaves max(-0, +0)'s sign open */
    }
    GtCase *c = gt_case("fp8 arithmetic (e4b15, e4b8, e5b16)", "n=%ld B%d w%d", n, block, warps);
    gt_source(c, K_FP8_ARITH_MORE, "fp8_arith_more", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_warps(c, warps);
    c->rows_per_output = 1;
    gt_arg_buf(c, gt_in(c, "x", GT_U8, (size_t)n, x));
    gt_arg_buf(c, gt_in(c, "y", GT_U8, (size_t)n, y));
    gt_arg_buf(c, gt_in(c, "z", GT_U8, (size_t)n, z));
    gt_arg_buf(c, gt_out(c, "e4b15: x * x - 0.3", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "e4b15: maximum(x, 0.5)", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "e4b8: y + y", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "e4b8: where", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "e5b16: z * 3 + 1e5", GT_U8, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "e4b15 + e4b8 (fp16)", GT_F16, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "e4b8 + e5b16 (fp16)", GT_F16, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "e4b8 < e5b16", GT_I1, (size_t)n, gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "to i32", GT_I32, (size_t)n, gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(x), free(y), free(z);
}

static void fp8_shapes(int f, int bm, int bn, int warps) {
    uint8_t *x = malloc((size_t)(bm * bn));
    for (int i = 0; i < bm * bn; i++) x[i] = (uint8_t)(i * 7 + 3);
    const char *tn = f8[f].name;
    char name[96];
    snprintf(name, sizeof name, "%s tl.trans (bytes through shared memory)", tn);
    GtCase *c = gt_case(name, "%dx%d w%d", bm, bn, warps);
    gt_source(c, K_FP8_SHAPES, "fp8_shapes", "T", tn, NULL);
    gt_define(c, "BM", "%d", bm);
    gt_define(c, "BN", "%d", bn);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "x", GT_U8, (size_t)(bm * bn), x));
    gt_arg_buf(c, gt_out(c, "x^T", GT_U8, (size_t)(bm * bn), gt_exact(), NULL));
    gt_arg_buf(c, gt_out(c, "x^T as fp32", GT_F32, (size_t)(bm * bn), gt_exact(), NULL));
    gt_run(c);
    free(x);
}

/* fp64 math through libdevice (CUDA's fp64 bounds: 1-2 ulps) against libm on the
 * interpreter: rtol 1e-15 (4.5 ulps); x in [-30, 30] with zeros, infinities, NaN, tiny and
 * huge values (sin and cos of 1e300: the slow argument reduction). fp32 math would miss by
 * 1e-8 and fail. */
static void fp64_math(long n, int block, int warps) {
    GtRng r = {6464 + (uint64_t)(n + block)};
    double *x = gt_fill(GT_F64, (size_t)n, &r, -30, 30);
    static const double xs[] = {0.0, -0.0,   1.0,   -1.0,   0.5,   INFINITY,
                                NAN, 1e-310, 1e300, -1e300, 709.0, -745.0};
    for (long i = 0; i < n; i++)
        if (i % 50 < GT_COUNT(xs)) x[i] = xs[i % 50];
    GtCase *c = gt_case("fp64 math (libdevice)", "n=%ld B%d w%d", n, block, warps);
    gt_source(c, K_FP64_MATH, "fp64_math", NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "x", GT_F64, (size_t)n, x));
    gt_arg_buf(c, gt_out(c, "exp exp2 log log2 rsqrt sin cos erf", GT_F64, (size_t)(8 * n),
                         gt_tol(1e-300, 1e-15), NULL));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_grid(c, (unsigned)gt_cdiv(n, block), 1, 1);
    gt_run(c);
    free(x);
}

int main(int argc, char **argv) {
    gt_init(argc, argv, "test_gpu_vs_cpu");
    printf("GPU vs CPU interpreter%s; tolerances: see the top of tests/gpu/test_gpu_vs_cpu.c\n\n",
           gt.cpu_vs_cpu ? " (--cpu-vs-cpu: a second CPU context plays the GPU)" : "");
    gt_line();

    /* the examples */
    vector_add(1, 1024, 4, 0, 0);
    vector_add(1000, 1024, 4, 0, 0);
    vector_add(98439, 1024, 4, 0, 0);
    vector_add(3 * 4096, 1024, 4, 0, 0); /* n divisible by 16: vectorised masks */
    vector_add(10007, 16, 4, 0, 0);      /* a block smaller than the CTA: replicated lanes */
    vector_add(10007, 32, 1, 0, 0);
    vector_add(10007, 128, 2, 0, 0);
    vector_add(98439, 4096, 16, 0, 0);
    vector_add(98439, 2048, 32, 0, 0);
    vector_add(98439, 1024, 4, 8, 0); /* num_warps given at launch */
    vector_add(98439, 1024, 4, 0, 1); /* pointers not 16-byte aligned */
    for (int p = 0; p < 2; p++) {
        dropout(10, p ? 0.3f : 0.5f);
        dropout(1003, p ? 0.3f : 0.5f);
        dropout(98439, p ? 0.3f : 0.5f);
    }
    seeded_dropout(10, 0.5f, 123);
    seeded_dropout(1003, 0.5f, 512);
    seeded_dropout(100003, 0.5f, 123);
    seeded_dropout(100003, 0.3f, -12345);
    matrix_dropout(37, 1000, 0);
    matrix_dropout(37, 1000, 1);
    matrix_dropout(5, 3, 0);
    matrix_dropout(64, 257, 1);
    softmax(1823, 781, 4);
    softmax(5, 1, 4);
    softmax(64, 1000, 4);
    softmax(300, 4000, 8);
    layer_norm(151, 1031);
    layer_norm(1, 1);
    layer_norm(33, 255);
    matmul(257, 129, 77, 64, 32, 0, "");
    matmul(257, 129, 77, 64, 32, 0, "leaky_relu");
    matmul(64, 64, 64, 64, 64, 0, "");
    matmul(100, 300, 33, 32, 64, 1, "leaky_relu");
    dropout4x(100003, 1024, 0.5f, 123);
    dropout4x(3 * 4 * 1024, 1024, 0.3f, -7);
    dropout4x(1001, 256, 0.5f, 42);

    /* fp16, bf16 and the other element types */
    static const GtType binop_types[] = {GT_F16, GT_BF16, GT_F32, GT_F64,
                                         GT_I8,  GT_I16,  GT_I64, GT_U8};
    for (int i = 0; i < GT_COUNT(binop_types); i++) typed_binop(binop_types[i], 10007, 256, 4);
    softmax_fp16(129, 1000, 4);
    softmax_fp16(64, 3000, 8);
    dot(GT_F32, 100, 72, 50, 32, 32, 16, 0, 4, "ieee");
    dot(GT_F32, 100, 72, 50, 32, 32, 16, 0, 4, "");
    dot(GT_F16, 100, 72, 50, 32, 32, 16, 0, 4, "");
    dot(GT_F16, 100, 72, 50, 32, 32, 16, 1, 4, "");
    dot(GT_F16, 130, 70, 97, 64, 32, 32, 0, 8, "");
    dot(GT_BF16, 100, 72, 50, 32, 32, 16, 0, 4, "");
    dot(GT_BF16, 37, 21, 40, 16, 16, 16, 1, 1, "");
    dot(GT_F32, 37, 21, 40, 16, 16, 16, 1, 2, "ieee");
    /* the per-thread result tiles of other shapes: int8, non-square tiles, 1 to 16 warps */
    dot(GT_I8, 100, 72, 70, 32, 32, 32, 0, 4, "");
    dot(GT_I8, 65, 130, 33, 64, 128, 32, 1, 8, "");
    dot(GT_F16, 50, 300, 64, 16, 128, 32, 0, 4, "");
    dot(GT_BF16, 300, 40, 48, 128, 16, 16, 0, 2, "");
    dot(GT_F16, 200, 190, 80, 128, 128, 32, 0, 16, "");
    dot(GT_F32, 70, 33, 64, 64, 32, 16, 1, 1, "ieee");
    big_dot(GT_F16);
    big_dot(GT_F32);

    /* reductions */
    static const int shapes2d[][4] = {
        {16, 128, 13, 100}, {64, 32, 50, 29}, {32, 64, 32, 64}, {128, 16, 100, 9}};
    static const int warps[] = {1, 4, 8};
    for (int data = 0; data < 2; data++)
        for (int s = 0; s < GT_COUNT(shapes2d); s++)
            for (int w = 0; w < GT_COUNT(warps); w++)
                reduce2d(data, shapes2d[s][0], shapes2d[s][1], shapes2d[s][2], shapes2d[s][3],
                         warps[w]);
    reduce2d(2, 16, 128, 13, 100, 4);
    reduce2d(2, 64, 32, 50, 29, 8);
    reduce1d(GT_F32, 4096, 8, 3 * 4096 - 77);
    reduce1d(GT_F32, 8192, 16, 2 * 8192 - 5);
    reduce1d(GT_F32, 1024, 32, 5 * 1024 - 1);
    reduce1d(GT_F32, 256, 1, 3 * 256 - 100);
    reduce1d(GT_F16, 1024, 4, 4 * 1024 - 3);
    reduce1d(GT_BF16, 1024, 4, 4 * 1024 - 3);
    minmax_special();
    scans_case(16, 32, 13, 29, 1);
    scans_case(32, 64, 32, 61, 4);
    scans_case(64, 16, 50, 16, 8);
    scans_case(128, 8, 127, 7, 4);
    scans_case(8, 256, 5, 200, 2);
    scans_case(2, 16, 2, 9, 4); /* smaller than the CTA: lanes and warps hold copies */
    perm_case(16, 32, 1);
    perm_case(32, 64, 4);
    perm_case(128, 8, 8);
    perm_case(4, 8, 4); /* smaller than the CTA */
    perm_case(8, 256, 2);
    /* Triton's test_chained_reductions shapes, and a small one in one warp */
    rank5_case((int[]){4, 32, 32, 4, 2}, "(2, 1, 0, 3, 4)", "(3, 1, 0)", "(4, 8, 4, 32, 4, 2)",
               "(5, 3, 1, 0, 4, 2)", 32768 - 1000, 4);
    rank5_case((int[]){8, 2, 32, 4, 16}, "(4, 0, 1, 3, 2)", "(0, 2, 0)", "(8, 2, 4, 8, 4, 16)",
               "(1, 0, 3, 2, 5, 4)", 32768, 8);
    rank5_case((int[]){2, 2, 2, 4, 8}, "(4, 3, 2, 1, 0)", "(0, 0, 0)", "(2, 2, 2, 2, 2, 8)",
               "(5, 4, 3, 2, 1, 0)", 250, 1);
    /* the round trip through 9 dims (Triton's test_reshape) and through 16 (Nereid's limit) */
    rank5_case((int[]){4, 32, 32, 4, 2}, "(2, 1, 0, 3, 4)", "(3, 1, 0)",
               "(2, 4, 2, 4, 2, 8, 4, 2, 4)", "(8, 0, 7, 1, 6, 2, 5, 3, 4)", 32768 - 77, 4);
    rank5_case((int[]){4, 32, 32, 4, 2}, "(4, 3, 2, 1, 0)", "(0, 0, 0)",
               "(2, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2)",
               "(15, 13, 14, 11, 12, 9, 10, 7, 8, 5, 6, 3, 4, 1, 2, 0)", 32768, 8);
    blockptr_case(37, 45, 16, 8, false, 1);
    blockptr_case(37, 45, 8, 16, true, 4);
    blockptr_case(100, 130, 32, 64, false, 8);
    blockptr_case(5, 3, 4, 4, true, 2); /* a block smaller than the CTA */
    blockptr_case(64, 64, 64, 64, false, 4);
    blockptr_dot(GT_F16, 100, 72, 50, 32, 32, 16, 4);
    blockptr_dot(GT_BF16, 130, 70, 97, 64, 32, 32, 8);
    blockptr_dot(GT_F16, 37, 21, 40, 16, 16, 16, 1);

    /* masks, integers, conversions, math, atomics, control flow, shapes, layouts, Philox */
    where_mask(1000, 128);
    where_mask(77, 64);
    static const GtType int_types[] = {GT_I32, GT_I64, GT_U32, GT_U64, GT_I8, GT_I16};
    for (int i = 0; i < GT_COUNT(int_types); i++) int_ops(int_types[i], 3001, 512);
    conversions(4099, 256);
    math(5003, 256);
    libdevice_math(5003, 256, 4);
    libdevice_math(77, 128, 1);
    libdevice_math(2049, 512, 8);
    atomics(3001, 128, 37);
    atomic_minmax(GT_F32);
    atomic_minmax(GT_F64);
    atomic_old_values(32);
    atomic_old_values(16);
    scatter_add(300, 768, 37, 1024);
    scatter_add(100, 770, 13, 1024);
    scatter_add(64, 32, 5, 32);
    atomics(20000, 1024, 64);
    control(1000, 128, 1);
    control(1000, 128, 0);
    shapes(32, 64, 4);
    shapes(16, 8, 1);
    shapes(64, 64, 8);
    join_split(16, 64, 1);
    join_split(64, 128, 4);
    join_split(128, 64, 8);
    shapes(2, 16, 2);
    layouts(16, 2);
    layouts(32, 4);
    layouts(64, 8);
    layouts(128, 4);
    philox(5000, 256, 0, 0);
    philox(5000, 256, -12345, 0);
    philox(4099, 128, 0x7fffffff, 0);
    philox64(3001, 256, 123, 1LL << 40);
    philox64(1000, 128, -7, -500);
    philox(5000, 256, 0x123456789abLL, 1);
    grid3d(5, 3, 2);
    grid3d(1, 1000, 2);
    grid3d(40000, 1, 1);
    bytes_kernel(1001, 256);
    fp64_ops(1000, 128);
    fp64_math(3001, 256, 4);
    fp64_math(100, 128, 1);

    /* fp8 (run with NEREID_ARCH=sm_80 too: the integer sequences instead of the cvt
     * instructions) */
    for (int f = 0; f < 5; f++) {
        fp8_conv(f, 4099, 256, 4, 0);
        fp8_conv(f, 1001, 1024, 8, 0);
        fp8_conv(f, 77, 16, 1, 0);    /* a block smaller than the CTA: replicated lanes */
        fp8_conv(f, 1000, 128, 2, 1); /* one byte off alignment: no vectors for the bytes */
        fp8_shapes(f, 64, 32, 4);
        fp8_shapes(f, 16, 128, 2);
    }
    fp8_arith(10007, 256, 4);
    fp8_arith(37, 64, 1);
    fp8_arith_more(10007, 256, 4);
    fp8_arith_more(37, 64, 1);

    printf("\n");
    return gt_finish();
}
