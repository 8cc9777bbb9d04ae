/* matmul.c - Triton's matrix multiplication tutorial: C = A x B in fp16, accumulated in fp32.
 *
 * matmul_kernel (examples/matmul.nr) computes one BLOCK_SIZE_M x BLOCK_SIZE_N block of C
 * per program, walking K in steps of BLOCK_SIZE_K with masks for the tail, and orders the
 * programs in groups of GROUP_SIZE_M block rows (for L2 reuse on a GPU). The grid is 1-D:
 * cdiv(M, BM) * cdiv(N, BN) programs. ACTIVATION is a string constexpr: "leaky_relu" fuses
 * the activation while the accumulator is still fp32, "" leaves it out; each value is its
 * own compiled kernel.
 *
 * The reference multiplies the same fp16-rounded inputs in double, applies the activation
 * in fp32 and rounds to fp16. The kernel accumulates in fp32 in another order, so the two
 * may round to neighbouring fp16 values: the tolerance is |got - ref| <= 1e-2 * (1 + |ref|)
 * (fp16 has 11 significant bits: one ulp is <= 1e-3 relative; a wrong term of the sum, as
 * a broken K mask would add, is ~0.1-1).
 *
 *   build/examples/matmul [--quiet] [M N K ...]   (default: 257x129x77, 64x64x64, 100x300x33) */
#include "common.h"

typedef struct Shape {
    long m, n, k;
    int bm, bn;     /* BLOCK_SIZE_M, BLOCK_SIZE_N; BLOCK_SIZE_K is 32, GROUP_SIZE_M 8 */
    int b_colmajor; /* B stored column-major: the kernel takes any strides */
} Shape;

enum { BLOCK_SIZE_K = 32, GROUP_SIZE_M = 8 };

static float activation(float x, const char *act) {
    return strcmp(act, "leaky_relu") == 0 && !(x >= 0.0f) ? 0.01f * x : x;
}

/* a[i*sam + p*sak], b[p*sbk + j*sbn]; C row-major */
static void reference(const uint16_t *a, const uint16_t *b, Shape s, long sbk, long sbn,
                      const char *act, float *c) {
    for (long i = 0; i < s.m; i++)
        for (long j = 0; j < s.n; j++) {
            double acc = 0.0;
            for (long p = 0; p < s.k; p++)
                acc += (double)ex_h2f(a[i * s.k + p]) * ex_h2f(b[p * sbk + j * sbn]);
            c[i * s.n + j] = ex_h2f(ex_f2h(activation((float)acc, act)));
        }
}

/* C = act(A x B) for one shape and activation; returns 1 if within tolerance. */
static int run_case(nr_context *ctx, Shape s, const char *act, ex_rng *rng, int quiet) {
    ex_defines defs = {0};
    ex_define(&defs, "BLOCK_SIZE_M", "%d", s.bm);
    ex_define(&defs, "BLOCK_SIZE_N", "%d", s.bn);
    ex_define(&defs, "BLOCK_SIZE_K", "%d", BLOCK_SIZE_K);
    ex_define(&defs, "GROUP_SIZE_M", "%d", GROUP_SIZE_M);
    ex_define(&defs, "ACTIVATION", "%s", act);
    nr_module *mod = ex_compile(ctx, "matmul.nr", &defs);
    nr_kernel *k = ex_kernel(ctx, mod, "matmul_kernel");

    long sbk = s.b_colmajor ? 1 : s.n, sbn = s.b_colmajor ? s.k : 1;
    uint16_t *a = ex_xmalloc(2 * (size_t)(s.m * s.k)), *b = ex_xmalloc(2 * (size_t)(s.k * s.n));
    uint16_t *c16 = ex_xmalloc(2 * (size_t)(s.m * s.n));
    float *c = ex_xmalloc(sizeof(float) * (size_t)(s.m * s.n)),
          *ref = ex_xmalloc(sizeof(float) * (size_t)(s.m * s.n));
    for (long i = 0; i < s.m * s.k; i++) a[i] = ex_f2h(ex_rng_float(rng, -1.0f, 1.0f));
    for (long i = 0; i < s.k * s.n; i++) b[i] = ex_f2h(ex_rng_float(rng, -1.0f, 1.0f));
    reference(a, b, s, sbk, sbn, act, ref);

    nr_devptr da = ex_upload(ctx, a, 2 * (size_t)(s.m * s.k)),
              db = ex_upload(ctx, b, 2 * (size_t)(s.k * s.n));
    nr_devptr dc = ex_alloc(ctx, 2 * (size_t)(s.m * s.n));
    nr_arg args[] = {nr_arg_ptr(da),           nr_arg_ptr(db),
                     nr_arg_ptr(dc),           nr_arg_i32((int32_t)s.m),
                     nr_arg_i32((int32_t)s.n), nr_arg_i32((int32_t)s.k),
                     nr_arg_i32((int32_t)s.k), nr_arg_i32(1),            /* A: row-major */
                     nr_arg_i32((int32_t)sbk), nr_arg_i32((int32_t)sbn), /* B */
                     nr_arg_i32((int32_t)s.n), nr_arg_i32(1)};           /* C: row-major */
    long programs = ex_cdiv(s.m, s.bm) * ex_cdiv(s.n, s.bn);
    double ms = ex_launch(ctx, k, (unsigned)programs, 1, args, EX_COUNT(args));
    ex_download(ctx, c16, dc, 2 * (size_t)(s.m * s.n));
    for (long i = 0; i < s.m * s.n; i++) c[i] = ex_h2f(c16[i]);

    ex_diff d = ex_compare(c, ref, s.m * s.n, 1e-2, 1e-2);
    if (!quiet)
        printf("%4ld x %4ld x %4ld  %2dx%2dx%2d  %-4s %-10s %8ld %10.3f %10.2e   %s\n", s.m, s.n,
               s.k, s.bm, s.bn, BLOCK_SIZE_K, s.b_colmajor ? "col" : "row", *act ? act : "none",
               programs, ms, d.max_abs, d.bad ? "FAILED" : "ok");
    int ok = ex_check_diff(&d, "C", s.n);
    ex_free(ctx, da), ex_free(ctx, db), ex_free(ctx, dc);
    free(a), free(b), free(c16), free(c), free(ref);
    nr_module_destroy(mod);
    return ok;
}

int main(int argc, char **argv) {
    ex_args a = ex_parse_args(argc, argv, "[--quiet] [M N K ...]");
    static const Shape defaults[] = {
        {257, 129, 77, 64, 32, 0}, {64, 64, 64, 64, 64, 0}, {100, 300, 33, 32, 64, 1}};
    Shape shapes[EX_MAX_SIZES / 3];
    int nshapes = 0;
    if (a.nsizes % 3) return ex_finish(0, "sizes come in triples: M N K");
    for (int i = 0; i + 2 < a.nsizes; i += 3)
        shapes[nshapes++] = (Shape){a.sizes[i], a.sizes[i + 1], a.sizes[i + 2], 64, 64, 0};
    if (!nshapes)
        for (int i = 0; i < EX_COUNT(defaults); i++) shapes[nshapes++] = defaults[i];

    nr_context *ctx = ex_context(&a);
    const char *dev = ex_device_name(ctx);
    if (!a.quiet) {
        printf("matmul, fp16 inputs, fp32 accumulation, fp16 output, GROUP_SIZE_M = %d, on %s\n",
               GROUP_SIZE_M, dev);
        printf("tolerance |got - ref| <= 1e-2 * (1 + |ref|), ref from the fp16 inputs in double\n");
        printf("%18s  %8s  %-4s %-10s %8s %10s %10s   %s\n", "M x N x K", "blocks", "B",
               "activation", "programs", "time (ms)", "max |err|", "result");
    }
    ex_rng rng = {1234};
    int ok = 1;
    for (int i = 0; i < nshapes; i++) {
        ok &= run_case(ctx, shapes[i], "", &rng, a.quiet);
        ok &= run_case(ctx, shapes[i], "leaky_relu", &rng, a.quiet);
    }
    nr_context_destroy(ctx);
    return ex_finish(ok, "%s, %d shapes x 2 activations, |err| <= 1e-2 * (1 + |ref|)", dev,
                     nshapes);
}
