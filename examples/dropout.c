/* dropout.c - the low-memory dropout tutorial's baseline: dropout with a stored keep mask.
 *
 * _dropout (examples/dropout.nr) reads x and a mask of int32 0s and 1s made on the host,
 * and writes x / (1 - p) where the mask is 1 and 0 where it is 0. The reference does the
 * same fp32 operations (1 - p, then one division), so on the CPU the output matches exactly;
 * on the GPU `/` is Triton's div.full.f32, within 2 ulp (the keep mask still exactly). The
 * mask costs a read of 4 bytes per element and has to be kept for the backward pass:
 * seeded_dropout.c shows the variant that needs neither.
 *
 *   build/examples/dropout [--quiet] [N...]   (default sizes: 10, 1003, 98439) */
#include "common.h"

enum { BLOCK_SIZE = 1024 };

/* Dropout of n random elements with a random keep mask; returns 1 if it matched. */
static int run_case(nr_context *ctx, nr_kernel *k, long n, float p, ex_rng *rng, int quiet,
                    int show) {
    float *x = ex_xmalloc(sizeof(float) * (size_t)n), *out = ex_xmalloc(sizeof(float) * (size_t)n);
    float *ref = ex_xmalloc(sizeof(float) * (size_t)n);
    int32_t *keep = ex_xmalloc(sizeof(int32_t) * (size_t)n);
    ex_fill(rng, x, n, -2.0f, 2.0f);
    for (long i = 0; i < n; i++) keep[i] = ex_rng_float(rng, 0.0f, 1.0f) > p;
    for (long i = 0; i < n; i++) ref[i] = keep[i] ? x[i] / (1.0f - p) : 0.0f;

    nr_devptr dx = ex_upload(ctx, x, sizeof(float) * (size_t)n);
    nr_devptr dkeep = ex_upload(ctx, keep, sizeof(int32_t) * (size_t)n);
    nr_devptr dout = ex_alloc(ctx, sizeof(float) * (size_t)n);
    nr_arg args[] = {nr_arg_ptr(dx), nr_arg_ptr(dkeep), nr_arg_ptr(dout), nr_arg_i32((int32_t)n),
                     nr_arg_f32(p)};
    double ms = ex_launch(ctx, k, (unsigned)ex_cdiv(n, BLOCK_SIZE), 1, args, EX_COUNT(args));
    ex_download(ctx, out, dout, sizeof(float) * (size_t)n);

    if (show) { /* the tutorial's table: the first 10 elements */
        int shown = n < 10 ? (int)n : 10;
        float mask[10];
        for (int i = 0; i < shown; i++) mask[i] = (float)keep[i];
        printf("first %d elements, p = %.2f:\n", shown, p);
        ex_print_row("input", x, shown);
        ex_print_row("keep mask", mask, shown);
        ex_print_row("output", out, shown);
        printf("\n%10s %6s %10s %10s   %s\n", "size", "p", "time (ms)", "mismatches", "result");
    }
    ex_diff d = ex_compare(out, ref, n, 0.0, ex_div_rtol(ctx));
    if (!quiet) printf("%10ld %6.2f %10.3f %10ld   %s\n", n, p, ms, d.bad, d.bad ? "FAILED" : "ok");
    int ok = ex_check_diff(&d, "output", 0);
    ex_free(ctx, dx), ex_free(ctx, dkeep), ex_free(ctx, dout);
    free(x), free(out), free(ref), free(keep);
    return ok;
}

int main(int argc, char **argv) {
    ex_args a = ex_parse_args(argc, argv, "[--quiet] [N...]");
    static const long default_sizes[] = {10, 1003, 98432 + 7};
    const long *sizes = a.nsizes ? a.sizes : default_sizes;
    int nsizes = a.nsizes ? a.nsizes : EX_COUNT(default_sizes);

    nr_context *ctx = ex_context(&a);
    const char *dev = ex_device_name(ctx);
    ex_defines defs = {0};
    ex_define(&defs, "BLOCK_SIZE", "%d", BLOCK_SIZE);
    nr_module *m = ex_compile(ctx, "dropout.nr", &defs);
    nr_kernel *k = ex_kernel(ctx, m, "_dropout");

    if (!a.quiet)
        printf("dropout with a stored int32 keep mask on %s, BLOCK_SIZE = %d\n", dev, BLOCK_SIZE);
    ex_rng rng = {7};
    int ok = 1;
    /* p = 0.5 as in the tutorial; p = 0.3 too, where x / (1 - p) is not a power-of-two scaling */
    for (int i = 0; i < nsizes; i++)
        ok &= run_case(ctx, k, sizes[i], 0.5f, &rng, a.quiet, !a.quiet && i == 0);
    for (int i = 0; i < nsizes; i++) ok &= run_case(ctx, k, sizes[i], 0.3f, &rng, a.quiet, 0);

    nr_module_destroy(m);
    nr_context_destroy(ctx);
    return ex_finish(ok,
                     "%s, %d sizes x p = 0.5, 0.3, keep mask exact, values exact (CPU) or within 2 "
                     "ulp (GPU division)",
                     dev, nsizes);
}
