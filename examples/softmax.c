/* softmax.c - Triton's fused softmax tutorial: a row-wise softmax, one row per block.
 *
 * softmax_kernel (examples/softmax.nr) loads a whole row into one block, so BLOCK_SIZE is
 * the next power of two >= n_cols and is compiled in: one compile per distinct BLOCK_SIZE.
 * The grid has fewer programs than there are rows (at most NUM_PROGRAMS), and each program
 * strides over rows row_start, row_start + num_programs, ..., as a persistent kernel does
 * on a GPU with one program per SM. The input rows are padded (row stride n_cols + 5) with
 * huge values: a lane that escaped the column mask would spoil its row's result.
 *
 * Checked against a double-precision softmax: max |error| <= 1e-6 per element, and every
 * row sums to 1 within 1e-5.
 *
 *   build/examples/softmax [--quiet] [ROWS COLS ...]   (default: 1823x781, 5x1, 64x1000) */
#include "common.h"

enum { NUM_PROGRAMS = 48, PAD = 5 };

static void reference(const float *x, long rows, long cols, long stride, float *out) {
    for (long r = 0; r < rows; r++) {
        const float *row = x + r * stride;
        double max = row[0], sum = 0.0;
        for (long c = 1; c < cols; c++) max = row[c] > max ? row[c] : max;
        for (long c = 0; c < cols; c++) sum += exp(row[c] - max);
        for (long c = 0; c < cols; c++) out[r * cols + c] = (float)(exp(row[c] - max) / sum);
    }
}

/* Softmax of a random rows x cols matrix; returns 1 if within tolerance. */
static int run_shape(nr_context *ctx, long rows, long cols, ex_rng *rng, int quiet) {
    long block = ex_next_pow2(cols), stride = cols + PAD,
         programs = rows < NUM_PROGRAMS ? rows : NUM_PROGRAMS;
    ex_defines defs = {0};
    ex_define(&defs, "BLOCK_SIZE", "%ld", block);
    ex_define(&defs, "num_stages", "%d", 1);
    nr_module *m = ex_compile(ctx, "softmax.nr", &defs);
    nr_kernel *k = ex_kernel(ctx, m, "softmax_kernel");

    size_t in_bytes = sizeof(float) * (size_t)(rows * stride),
           out_bytes = sizeof(float) * (size_t)(rows * cols);
    float *x = ex_xmalloc(in_bytes), *y = ex_xmalloc(out_bytes), *ref = ex_xmalloc(out_bytes);
    for (long i = 0; i < rows * stride; i++)
        x[i] = i % stride < cols ? ex_rng_float(rng, -5.0f, 5.0f) : 1e30f;
    reference(x, rows, cols, stride, ref);

    nr_devptr dx = ex_upload(ctx, x, in_bytes), dy = ex_alloc(ctx, out_bytes);
    nr_arg args[] = {nr_arg_ptr(dy),
                     nr_arg_ptr(dx),
                     nr_arg_i32((int32_t)stride),
                     nr_arg_i32((int32_t)cols),
                     nr_arg_i32((int32_t)rows),
                     nr_arg_i32((int32_t)cols)};
    double ms = ex_launch(ctx, k, (unsigned)programs, 1, args, EX_COUNT(args));
    ex_download(ctx, y, dy, out_bytes);

    ex_diff d = ex_compare(y, ref, rows * cols, 1e-6, 0.0);
    double worst_sum = 0.0;
    for (long r = 0; r < rows; r++) {
        double sum = 0.0;
        for (long c = 0; c < cols; c++) sum += y[r * cols + c];
        if (!(fabs(sum - 1.0) <= worst_sum)) worst_sum = fabs(sum - 1.0); /* NaN sticks */
    }
    int ok = d.bad == 0 && worst_sum <= 1e-5;
    if (!quiet)
        printf("%5ld x %-5ld %6ld %9ld %10.3f %11.2e %11.2e   %s\n", rows, cols, block, programs,
               ms, d.max_abs, worst_sum, ok ? "ok" : "FAILED");
    ex_check_diff(&d, "softmax", cols);
    if (!(worst_sum <= 1e-5)) printf("  a row sums to 1 %+.3g\n", worst_sum);
    ex_free(ctx, dx), ex_free(ctx, dy);
    free(x), free(y), free(ref);
    nr_module_destroy(m);
    return ok;
}

int main(int argc, char **argv) {
    ex_args a = ex_parse_args(argc, argv, "[--quiet] [ROWS COLS ...]");
    static const long default_shapes[] = {1823, 781, 5, 1, 64, 1000};
    const long *shapes = a.nsizes ? a.sizes : default_shapes;
    int nshapes = (a.nsizes ? a.nsizes : EX_COUNT(default_shapes)) / 2;
    if (a.nsizes % 2) return ex_finish(0, "sizes come in pairs: ROWS COLS");

    nr_context *ctx = ex_context(&a);
    const char *dev = ex_device_name(ctx);
    if (!a.quiet) {
        printf(
            "fused softmax on %s, at most %d programs striding over rows, vs a double reference\n",
            dev, NUM_PROGRAMS);
        printf("%13s %6s %9s %10s %11s %11s   %s\n", "shape", "BLOCK", "programs", "time (ms)",
               "max |err|", "|rowsum-1|", "result");
    }
    ex_rng rng = {5};
    int ok = 1;
    for (int s = 0; s < nshapes; s++)
        ok &= run_shape(ctx, shapes[2 * s], shapes[2 * s + 1], &rng, a.quiet);
    nr_context_destroy(ctx);
    return ex_finish(ok, "%s, %d shapes, max |err| <= 1e-6", dev, nshapes);
}
