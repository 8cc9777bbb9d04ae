/* seeded_dropout.c - the low-memory dropout tutorial: dropout whose whole state is a seed.
 *
 * _seeded_dropout (examples/dropout.nr) takes no mask: each element draws
 * tl.rand(seed, offset) and is kept when the draw is > p. The mask is never stored; the
 * backward pass regenerates it from the same seed. tl.rand is Triton's Philox4x32-10, so
 * the same seed gives the mask Triton gives, and a plain-C Philox (tests/unit/philox_ref.h)
 * gives the reference bit for bit. Checked on each size:
 *   (a) the output equals the C reference exactly;
 *   (b) the same seed twice gives the same output;
 *   (c) another seed gives another mask;
 *   (d) on ~100k elements, the share of kept elements is within 0.02 of 1 - p;
 *   (e) kept elements are x / (1 - p), dropped ones are 0 (inputs are never 0, so an
 *       output of 0 means dropped).
 *
 *   build/examples/seeded_dropout [--quiet] [N...]   (default sizes: 10, 1003, 100003) */
#include "common.h"

enum { BLOCK_SIZE = 1024 };

typedef struct Case {
    float p;
    int32_t seed;
} Case;

/* seeds 123 and 512 as in the tutorial; a negative seed is widened to 64 bits with its sign */
static const Case cases[] = {{0.5f, 123}, {0.5f, 512}, {0.3f, 123}, {0.3f, -12345}};

typedef struct Input {
    long n;
    float *x;
    nr_devptr dx, dout;
} Input;

static double seeded_dropout(nr_context *ctx, nr_kernel *k, const Input *in, Case c, float *out) {
    nr_arg args[] = {nr_arg_ptr(in->dx), nr_arg_ptr(in->dout), nr_arg_i32((int32_t)in->n),
                     nr_arg_f32(c.p), nr_arg_i32(c.seed)};
    double ms = ex_launch(ctx, k, (unsigned)ex_cdiv(in->n, BLOCK_SIZE), 1, args, EX_COUNT(args));
    ex_download(ctx, out, in->dout, sizeof(float) * (size_t)in->n);
    return ms;
}

/* Element i keeps x[i] when the uniform of Philox word 0 for key = seed, counter = (i, 0,
 * 0, 0) is > p: what tl.rand(seed, offsets) > p computes. */
static void reference(const float *x, long n, Case c, float *out) {
    for (long i = 0; i < n; i++) {
        uint32_t ctr[4] = {(uint32_t)i, 0, 0, 0};
        philox_ref((uint64_t)(int64_t)c.seed, ctr);
        out[i] = philox_uniform(ctr[0]) > c.p ? x[i] / (1.0f - c.p) : 0.0f;
    }
}

static Input make_input(nr_context *ctx, long n, ex_rng *rng) {
    Input in = {n, ex_xmalloc(sizeof(float) * (size_t)n), 0, 0};
    for (long i = 0; i < n; i++) /* |x| in [0.25, 2): never 0 */
        in.x[i] = ex_rng_float(rng, 0.25f, 2.0f) * (ex_rng_u64(rng) & 1 ? -1.0f : 1.0f);
    in.dx = ex_upload(ctx, in.x, sizeof(float) * (size_t)n);
    in.dout = ex_alloc(ctx, sizeof(float) * (size_t)n);
    return in;
}

static void free_input(nr_context *ctx, Input *in) {
    ex_free(ctx, in->dx), ex_free(ctx, in->dout);
    free(in->x);
}

/* The tutorial's table: 10 inputs, then the outputs for seeds 123, 123 and 512. */
static void show_table(nr_context *ctx, nr_kernel *k, ex_rng *rng) {
    Input in = make_input(ctx, 10, rng);
    float out[3][10];
    seeded_dropout(ctx, k, &in, cases[0], out[0]);
    seeded_dropout(ctx, k, &in, cases[0], out[1]);
    seeded_dropout(ctx, k, &in, cases[1], out[2]);
    float keep[2][10]; /* read off the outputs (no input is 0): the kernel never stores it */
    for (int i = 0; i < 10; i++) keep[0][i] = out[0][i] != 0.0f, keep[1][i] = out[2][i] != 0.0f;
    printf("p = 0.5; the keep mask is never stored (the kernel has no mask argument):\n");
    ex_print_row("input", in.x, 10);
    ex_print_row("keep mask (seed 123)", keep[0], 10);
    ex_print_row("output (seed = 123)", out[0], 10);
    ex_print_row("output (seed = 123)", out[1], 10);
    ex_print_row("keep mask (seed 512)", keep[1], 10);
    ex_print_row("output (seed = 512)", out[2], 10);
    free_input(ctx, &in);
}

/* Every case on n elements; returns 1 if all checks passed. */
static int run_size(nr_context *ctx, nr_kernel *k, long n, ex_rng *rng, int quiet) {
    enum { NCASES = EX_COUNT(cases) };
    Input in = make_input(ctx, n, rng);
    float *out[NCASES], *again = ex_xmalloc(sizeof(float) * (size_t)n),
                        *ref = ex_xmalloc(sizeof(float) * (size_t)n);
    int ok = 1;
    for (int c = 0; c < NCASES; c++) {
        out[c] = ex_xmalloc(sizeof(float) * (size_t)n);
        double ms = seeded_dropout(ctx, k, &in, cases[c], out[c]);
        seeded_dropout(ctx, k, &in, cases[c], again);
        reference(in.x, n, cases[c], ref);

        double rtol = ex_div_rtol(ctx);
        ex_diff d = ex_compare(out[c], ref, n, 0.0, rtol);                /* (a) */
        int same = memcmp(out[c], again, sizeof(float) * (size_t)n) == 0; /* (b) */
        long kept = 0, wrong_value = 0;
        for (long i = 0; i < n; i++) {
            kept += out[c][i] != 0.0f;
            double want = in.x[i] / (1.0f - cases[c].p);
            wrong_value +=
                out[c][i] != 0.0f && fabs(out[c][i] - want) > rtol * fabs(want); /* (e) */
        }
        double rate = (double)kept / (double)n;
        int rate_ok = n < 50000 || fabs(rate - (1.0 - cases[c].p)) <= 0.02; /* (d) */
        int row_ok = d.bad == 0 && same && wrong_value == 0 && rate_ok;
        if (!quiet)
            printf("%8ld %5.2f %7d %10.3f %10ld %7s %9.4f   %s\n", n, cases[c].p, cases[c].seed, ms,
                   d.bad, same ? "yes" : "NO", rate, row_ok ? "ok" : "FAILED");
        ex_check_diff(&d, "output vs C Philox reference", 0);
        if (!same) printf("  seed %d: a second run gave another output\n", cases[c].seed);
        if (wrong_value) printf("  %ld kept elements are not x / (1 - p)\n", wrong_value);
        if (!rate_ok)
            printf("  keep rate %.4f is not within 0.02 of %.2f\n", rate, 1.0 - cases[c].p);
        ok &= row_ok;
    }
    /* (c): seeds 123 and 512 (cases 0 and 1, both p = 0.5) drop different elements */
    long differ = 0;
    for (long i = 0; i < n; i++) differ += (out[0][i] != 0.0f) != (out[1][i] != 0.0f);
    if (n >= 100 && differ == 0) {
        printf("  seeds 123 and 512 gave the same mask on %ld elements\n", n);
        ok = 0;
    }
    if (!quiet && n >= 100)
        printf("%8s seeds 123 and 512 (p = 0.5) differ on %.1f%% of the mask\n", "",
               100.0 * (double)differ / (double)n);
    for (int c = 0; c < NCASES; c++) free(out[c]);
    free(again), free(ref);
    free_input(ctx, &in);
    return ok;
}

int main(int argc, char **argv) {
    ex_args a = ex_parse_args(argc, argv, "[--quiet] [N...]");
    static const long default_sizes[] = {10, 1003, 100003};
    const long *sizes = a.nsizes ? a.sizes : default_sizes;
    int nsizes = a.nsizes ? a.nsizes : EX_COUNT(default_sizes);

    nr_context *ctx = ex_context(&a);
    const char *dev = ex_device_name(ctx);
    ex_defines defs = {0};
    ex_define(&defs, "BLOCK_SIZE", "%d", BLOCK_SIZE);
    nr_module *m = ex_compile(ctx, "dropout.nr", &defs);
    nr_kernel *k = ex_kernel(ctx, m, "_seeded_dropout");
    ex_rng rng = {2024};

    if (!a.quiet) {
        printf("seeded dropout (tl.rand, Philox4x32-10) on %s, BLOCK_SIZE = %d\n", dev, BLOCK_SIZE);
        show_table(ctx, k, &rng);
        printf("\n%8s %5s %7s %10s %10s %7s %9s   %s\n", "size", "p", "seed", "time (ms)",
               "mismatches", "repeat", "keep rate", "result");
    }
    int ok = 1;
    for (int i = 0; i < nsizes; i++) ok &= run_size(ctx, k, sizes[i], &rng, a.quiet);

    nr_module_destroy(m);
    nr_context_destroy(ctx);
    return ex_finish(ok, "%s, %d sizes x %d (p, seed) cases, mask bit-exact with C Philox", dev,
                     nsizes, EX_COUNT(cases));
}
