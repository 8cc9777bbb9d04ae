/* sjlt.c - the seed tutorial's third exercise: a sparse Johnson-Lindenstrauss transform.
 *
 * y = S x for a batch of vectors, S of size k x d with s non-zeros per column, each
 * +-1/sqrt(s), drawn from Philox with a seed (examples/sjlt.nr says how), so S is never
 * stored. The reference below builds the same S column by column with the plain-C Philox
 * (tests/unit/philox_ref.h, the generator tl.randint computes) and applies it; the kernel
 * adds its contributions atomically in another order, so the results agree to rounding:
 * each element within 1e-5 of the sum of the magnitudes it adds up. The transform keeps
 * lengths on average, E ||Sx||^2 = ||x||^2: the mean ratio over a batch is printed (and
 * checked loosely for batches of 16 or more).
 *
 *   build/examples/sjlt [--quiet] [BATCH D K S...]   (default: three shapes) */
#include "common.h"

enum { BLOCK_B = 4, BLOCK_D = 128, SEED = 1234 };

typedef struct Shape {
    long batch, d, k, s;
} Shape;

/* The row and sign of the t-th non-zero of column j, as sjlt.nr draws them. */
static void nonzero(long j, long t, long s, long k, float scale, long *row, float *sign) {
    uint32_t c[4] = {(uint32_t)(j * s + t), 0, 0, 0};
    philox_ref(SEED, c);
    long per_block = k / s;
    *row = t * per_block + (long)(c[0] >> 1) % per_block;
    *sign = (c[0] & 1) ? -scale : scale;
}

static int run_case(nr_context *ctx, Shape sh, ex_rng *rng, int quiet, double *ratio) {
    long B = sh.batch, d = sh.d, k = sh.k, s = sh.s;
    float scale = 1.0f / sqrtf((float)s);
    float *x = ex_xmalloc(sizeof(float) * (size_t)(B * d)),
          *y = ex_xmalloc(sizeof(float) * (size_t)(B * k));
    double *ref = calloc((size_t)(B * k), sizeof(double)),
           *mag = calloc((size_t)(B * k), sizeof(double));
    if (!ref || !mag) ex_fail(ctx, NR_ERR_OUT_OF_MEMORY, "host memory");
    ex_fill(rng, x, B * d, -1.0f, 1.0f);
    for (long j = 0; j < d; j++)
        for (long t = 0; t < s; t++) {
            long row;
            float sign;
            nonzero(j, t, s, k, scale, &row, &sign);
            for (long b = 0; b < B; b++) {
                float term = x[b * d + j] * sign; /* the kernel's fp32 product */
                ref[b * k + row] += term;
                mag[b * k + row] += fabsf(term);
            }
        }

    ex_defines defs = {0};
    ex_define(&defs, "S", "%ld", s);
    ex_define(&defs, "BLOCK_B", "%d", BLOCK_B);
    ex_define(&defs, "BLOCK_D", "%d", BLOCK_D);
    nr_module *mod = ex_compile(ctx, "sjlt.nr", &defs); /* S is a constexpr: one module per shape */
    nr_kernel *kern = ex_kernel(ctx, mod, "sjlt_kernel");
    nr_devptr dx = ex_upload(ctx, x, sizeof(float) * (size_t)(B * d));
    nr_devptr dy = ex_alloc(ctx, sizeof(float) * (size_t)(B * k));
    EX_CHECK(ctx, nr_memset(ctx, dy, 0, sizeof(float) * (size_t)(B * k)));
    nr_arg args[] = {nr_arg_ptr(dx),         nr_arg_ptr(dy),         nr_arg_i32((int32_t)B),
                     nr_arg_i32((int32_t)d), nr_arg_i32((int32_t)k), nr_arg_i32(SEED),
                     nr_arg_i32((int32_t)d), nr_arg_i32((int32_t)k), nr_arg_f32(scale)};
    double ms = ex_launch(ctx, kern, (unsigned)ex_cdiv(B, BLOCK_B), (unsigned)ex_cdiv(d, BLOCK_D),
                          args, EX_COUNT(args));
    ex_download(ctx, y, dy, sizeof(float) * (size_t)(B * k));

    long bad = 0, worst = 0;
    double worst_err = 0, sum_ratio = 0;
    for (long i = 0; i < B * k; i++) {
        double err = fabs((double)y[i] - ref[i]);
        if (err > 1e-5 * mag[i] + 1e-6) bad++;
        if (err > worst_err) worst_err = err, worst = i;
    }
    for (long b = 0; b < B; b++) {
        double nx = 0, ny = 0;
        for (long j = 0; j < d; j++) nx += (double)x[b * d + j] * x[b * d + j];
        for (long r = 0; r < k; r++) ny += (double)y[b * k + r] * y[b * k + r];
        sum_ratio += ny / nx;
    }
    *ratio = sum_ratio / (double)B;
    if (!quiet)
        printf("%6ld %7ld %6ld %3ld %10.3f %12.2e %10.3f   %s\n", B, d, k, s, ms, worst_err, *ratio,
               bad ? "FAILED" : "ok");
    if (bad)
        printf("  %ld elements differ; the worst, y[%ld][%ld] = %.7g, reference %.7g\n", bad,
               worst / k, worst % k, (double)y[worst], ref[worst]);
    ex_free(ctx, dx), ex_free(ctx, dy);
    nr_module_destroy(mod);
    free(x), free(y), free(ref), free(mag);
    return bad == 0;
}

int main(int argc, char **argv) {
    ex_args a = ex_parse_args(argc, argv, "[--quiet] [BATCH D K S...]");
    Shape shapes[EX_MAX_SIZES / 4 + 3] = {{16, 1000, 64, 4}, {3, 4097, 256, 8}, {32, 300, 30, 3}};
    int nshapes = 3;
    if (a.nsizes) {
        if (a.nsizes % 4) {
            fprintf(stderr, "usage: %s [--quiet] [BATCH D K S...] (four numbers per shape)\n",
                    ex_name);
            return 2;
        }
        nshapes = a.nsizes / 4;
        for (int i = 0; i < nshapes; i++)
            shapes[i] =
                (Shape){a.sizes[4 * i], a.sizes[4 * i + 1], a.sizes[4 * i + 2], a.sizes[4 * i + 3]};
    }
    for (int i = 0; i < nshapes; i++)
        if (shapes[i].k % shapes[i].s) {
            printf("%s: FAILED (k = %ld is not a multiple of s = %ld)\n", ex_name, shapes[i].k,
                   shapes[i].s);
            return 1;
        }
    nr_context *ctx = ex_context(&a);
    const char *dev = ex_device_name(ctx);
    if (!a.quiet) {
        printf("sparse JL transform y = S x on %s, S (k x d) with s non-zeros per column from "
               "Philox (seed %d)\n",
               dev, SEED);
        printf("%6s %7s %6s %3s %10s %12s %10s   %s\n", "batch", "d", "k", "s", "time (ms)",
               "max |err|", "|Sx|^2/|x|^2", "result");
    }
    ex_rng rng = {11};
    int ok = 1;
    double ratio = 0;
    for (int i = 0; i < nshapes; i++) {
        ok &= run_case(ctx, shapes[i], &rng, a.quiet, &ratio);
        if (shapes[i].batch >= 16 && (ratio < 0.6 || ratio > 1.4)) {
            printf("  mean |Sx|^2/|x|^2 = %.3f: a sparse JL transform keeps it near 1\n", ratio);
            ok = 0;
        }
    }
    nr_context_destroy(ctx);
    return ex_finish(
        ok, "%s, %d shapes, within 1e-5 of the plain-C transform with the same Philox hash", dev,
        nshapes);
}
