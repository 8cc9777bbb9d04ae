/* vector_add.c - Triton's first tutorial, vector addition, from C.
 *
 * add_kernel (examples/vector_add.nr) adds two fp32 vectors, BLOCK_SIZE elements per
 * program. The sizes below are not multiples of the block, so the last program's mask
 * does real work; the buffers are exactly n elements long, so an unmasked access past the
 * end would be reported by the CPU interpreter as an error. One fp32 add per element is
 * the same on every device: the result must match plain C exactly.
 *
 *   build/examples/vector_add [--quiet] [N...]   (default sizes: 1, 1000, 98439) */
#include "common.h"

enum { BLOCK_SIZE = 1024 };

/* Add two random vectors of n elements on the device and compare; returns 1 if equal. */
static int run_size(nr_context *ctx, nr_kernel *k, long n, ex_rng *rng, int quiet) {
    size_t bytes = sizeof(float) * (size_t)n;
    float *x = ex_xmalloc(bytes), *y = ex_xmalloc(bytes), *z = ex_xmalloc(bytes),
          *ref = ex_xmalloc(bytes);
    ex_fill(rng, x, n, -100.0f, 100.0f);
    ex_fill(rng, y, n, -100.0f, 100.0f);
    for (long i = 0; i < n; i++) ref[i] = x[i] + y[i];

    nr_devptr dx = ex_upload(ctx, x, bytes), dy = ex_upload(ctx, y, bytes),
              dz = ex_alloc(ctx, bytes);
    nr_arg args[] = {nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dz), nr_arg_i32((int32_t)n)};
    /* one program per block, rounded up: the grid is cdiv(n, BLOCK_SIZE) */
    long programs = ex_cdiv(n, BLOCK_SIZE);
    double ms = ex_launch(ctx, k, (unsigned)programs, 1, args, EX_COUNT(args));
    ex_download(ctx, z, dz, bytes);

    ex_diff d = ex_compare(z, ref, n, 0.0, 0.0);
    if (!quiet)
        printf("%10ld %9ld %10.3f %10ld   %s\n", n, programs, ms, d.bad, d.bad ? "FAILED" : "ok");
    int ok = ex_check_diff(&d, "z = x + y", 0);
    ex_free(ctx, dx), ex_free(ctx, dy), ex_free(ctx, dz);
    free(x), free(y), free(z), free(ref);
    return ok;
}

int main(int argc, char **argv) {
    ex_args a = ex_parse_args(argc, argv, "[--quiet] [N...]");
    static const long default_sizes[] = {1, 1000, 98432 + 7};
    const long *sizes = a.nsizes ? a.sizes : default_sizes;
    int nsizes = a.nsizes ? a.nsizes : EX_COUNT(default_sizes);

    nr_context *ctx = ex_context(&a);
    const char *dev = ex_device_name(ctx);
    ex_defines defs = {0};
    ex_define(&defs, "BLOCK_SIZE", "%d", BLOCK_SIZE);
    nr_module *m = ex_compile(ctx, "vector_add.nr", &defs);
    nr_kernel *k = ex_kernel(ctx, m, "add_kernel");

    if (!a.quiet) {
        printf("vector-add on %s, BLOCK_SIZE = %d: z = x + y, exact match with C\n", dev,
               BLOCK_SIZE);
        printf("%10s %9s %10s %10s   %s\n", "size", "programs", "time (ms)", "mismatches",
               "result");
    }
    ex_rng rng = {42};
    int ok = 1;
    for (int i = 0; i < nsizes; i++) ok &= run_size(ctx, k, sizes[i], &rng, a.quiet);

    nr_module_destroy(m);
    nr_context_destroy(ctx);
    return ex_finish(ok, "%s, %d sizes, exact", dev, nsizes);
}
