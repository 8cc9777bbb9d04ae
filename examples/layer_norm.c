/* layer_norm.c - Triton's layer norm tutorial, forward pass.
 *
 * _layer_norm_fwd_fused (examples/layer_norm.nr) normalises one row per program:
 * Y = (X - mean) * rstd * W + B with rstd = 1 / sqrt(var + eps), and stores each row's
 * mean and rstd for the backward pass. A row is longer than BLOCK_SIZE, so the kernel walks
 * it in blocks three times (mean, variance, output); N is not a multiple of the block, so
 * the last block of each walk is masked. Rows are padded (stride N + 7): the input padding
 * holds huge values that would spoil the statistics if read, and the output padding must
 * stay untouched.
 *
 * Checked against a double-precision reference: |err| <= 1e-5 * (1 + |ref|) for Y and
 * Mean, <= 1e-5 * |ref| for Rstd. The inputs are -2.3 + U(-0.85, 0.85) as in the tutorial
 * (an offset mean makes x - mean lose bits, which the tolerance has to allow for).
 *
 *   build/examples/layer_norm [--quiet] [M N ...]   (default: 151x1031, 1x1, 33x255) */
#include "common.h"

enum { BLOCK_SIZE = 256, PAD = 7 };
static const float EPS = 1e-5f;
static const float UNTOUCHED = -777.0f;

static void reference(const float *x, const float *w, const float *b, long m, long n, long stride,
                      float *y, float *mean, float *rstd) {
    for (long r = 0; r < m; r++) {
        const float *row = x + r * stride;
        double mu = 0.0, var = 0.0;
        for (long c = 0; c < n; c++) mu += row[c];
        mu /= (double)n;
        for (long c = 0; c < n; c++) var += (row[c] - mu) * (row[c] - mu);
        double rs = 1.0 / sqrt(var / (double)n + EPS);
        for (long c = 0; c < n; c++) y[r * stride + c] = (float)((row[c] - mu) * rs * w[c] + b[c]);
        mean[r] = (float)mu, rstd[r] = (float)rs;
    }
}

/* Layer norm of an m x n matrix; returns 1 if Y, Mean and Rstd are within tolerance. */
static int run_shape(nr_context *ctx, nr_kernel *k, long m, long n, ex_rng *rng, int quiet) {
    long stride = n + PAD;
    size_t mat = sizeof(float) * (size_t)(m * stride), row = sizeof(float) * (size_t)n,
           col = sizeof(float) * (size_t)m;
    float *x = ex_xmalloc(mat), *y = ex_xmalloc(mat), *y_ref = ex_xmalloc(mat),
          *w = ex_xmalloc(row), *b = ex_xmalloc(row);
    float *mean = ex_xmalloc(col), *rstd = ex_xmalloc(col), *mean_ref = ex_xmalloc(col),
          *rstd_ref = ex_xmalloc(col);
    for (long i = 0; i < m * stride; i++) {
        x[i] = i % stride < n ? -2.3f + ex_rng_float(rng, -0.85f, 0.85f) : 1e30f;
        y[i] = y_ref[i] = UNTOUCHED;
    }
    ex_fill(rng, w, n, 0.0f, 1.0f);
    ex_fill(rng, b, n, -0.5f, 0.5f);
    reference(x, w, b, m, n, stride, y_ref, mean_ref, rstd_ref);

    nr_devptr dx = ex_upload(ctx, x, mat), dy = ex_upload(ctx, y, mat), dw = ex_upload(ctx, w, row);
    nr_devptr db = ex_upload(ctx, b, row), dmean = ex_alloc(ctx, col), drstd = ex_alloc(ctx, col);
    nr_arg args[] = {nr_arg_ptr(dx),
                     nr_arg_ptr(dy),
                     nr_arg_ptr(dw),
                     nr_arg_ptr(db),
                     nr_arg_ptr(dmean),
                     nr_arg_ptr(drstd),
                     nr_arg_i32((int32_t)stride),
                     nr_arg_i32((int32_t)n),
                     nr_arg_f32(EPS)};
    double ms = ex_launch(ctx, k, (unsigned)m, 1, args, EX_COUNT(args)); /* one program per row */
    ex_download(ctx, y, dy, mat);
    ex_download(ctx, mean, dmean, col);
    ex_download(ctx, rstd, drstd, col);

    ex_diff dy_ = ex_compare(y, y_ref, m * stride, 1e-5, 1e-5); /* padding included */
    ex_diff dm = ex_compare(mean, mean_ref, m, 1e-5, 1e-5),
            dr = ex_compare(rstd, rstd_ref, m, 0.0, 1e-5);
    int ok = dy_.bad == 0 && dm.bad == 0 && dr.bad == 0;
    double rstd_rel = 0.0;
    for (long r = 0; r < m; r++)
        rstd_rel = fmax(rstd_rel, fabs((double)rstd[r] - rstd_ref[r]) / rstd_ref[r]);
    if (!quiet)
        printf("%5ld x %-5ld %7ld %10.3f %10.2e %10.2e %10.2e   %s\n", m, n, ex_cdiv(n, BLOCK_SIZE),
               ms, dy_.max_abs, dm.max_abs, rstd_rel, ok ? "ok" : "FAILED");
    ex_check_diff(&dy_, "Y (row, col in the padded layout)", stride);
    ex_check_diff(&dm, "Mean", 0);
    ex_check_diff(&dr, "Rstd", 0);
    ex_free(ctx, dx), ex_free(ctx, dy), ex_free(ctx, dw), ex_free(ctx, db), ex_free(ctx, dmean),
        ex_free(ctx, drstd);
    free(x), free(y), free(y_ref), free(w), free(b), free(mean), free(rstd), free(mean_ref),
        free(rstd_ref);
    return ok;
}

int main(int argc, char **argv) {
    ex_args a = ex_parse_args(argc, argv, "[--quiet] [M N ...]");
    static const long default_shapes[] = {151, 1031, 1, 1, 33, 255};
    const long *shapes = a.nsizes ? a.sizes : default_shapes;
    int nshapes = (a.nsizes ? a.nsizes : EX_COUNT(default_shapes)) / 2;
    if (a.nsizes % 2) return ex_finish(0, "sizes come in pairs: M N");

    nr_context *ctx = ex_context(&a);
    const char *dev = ex_device_name(ctx);
    ex_defines defs = {0};
    ex_define(&defs, "BLOCK_SIZE", "%d", BLOCK_SIZE);
    nr_module *mod = ex_compile(ctx, "layer_norm.nr", &defs);
    nr_kernel *k = ex_kernel(ctx, mod, "_layer_norm_fwd_fused");

    if (!a.quiet) {
        printf("layer norm forward on %s, BLOCK_SIZE = %d, eps = %g, vs a double reference\n", dev,
               BLOCK_SIZE, EPS);
        printf("%13s %7s %10s %10s %10s %10s   %s\n", "M x N", "blocks", "time (ms)", "Y |err|",
               "Mean |err|", "Rstd rel", "result");
    }
    ex_rng rng = {31337};
    int ok = 1;
    for (int s = 0; s < nshapes; s++)
        ok &= run_shape(ctx, k, shapes[2 * s], shapes[2 * s + 1], &rng, a.quiet);
    nr_module_destroy(mod);
    nr_context_destroy(ctx);
    return ex_finish(ok, "%s, %d shapes, Y/Mean/Rstd within 1e-5", dev, nshapes);
}
