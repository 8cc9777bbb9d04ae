/* matrix_dropout.c - the low-memory dropout tutorial's exercises: dropout over a matrix with
 * one seed per row, and any row and column strides for the input and the output.
 *
 * _matrix_seeded_dropout (examples/matrix_dropout.nr) runs on a 2-D grid: axis 0 is the
 * row, axis 1 the block of BLOCK_SIZE columns. Row r keeps column c when
 * tl.rand(seeds[r], c) > p, so a row's mask depends on its seed alone: rows that share a
 * seed share a mask, whatever their data. Checked:
 *   - the output equals a plain-C Philox reference exactly, on two layouts: a column-major
 *     input into a row-major output with padded rows, and an input with column stride 2
 *     into a column-major output;
 *   - output elements outside the matrix (the padding) are left alone;
 *   - rows with the same seed (every third row has seed 42) have the same mask.
 *
 *   build/examples/matrix_dropout [--quiet] [ROWS COLS ...]   (default: 37x1000, 5x3, 64x257) */
#include "common.h"

enum { BLOCK_SIZE = 256 };
static const float P = 0.5f;
static const float UNTOUCHED = -777.0f; /* what the output buffer holds before the launch */

typedef struct Layout {
    const char *name;
    long x_rs, x_cs, out_rs, out_cs; /* strides in elements */
} Layout;

static Layout layouts(int which, long rows, long cols) {
    if (which == 0) return (Layout){"x col-major -> out padded rows", 1, rows, cols + 3, 1};
    return (Layout){"x col stride 2 -> out col-major", 2 * cols + 1, 2, 1, rows};
}

/* how many elements a strided rows x cols matrix spans */
static long extent(long rows, long cols, long rs, long cs) {
    return (rows - 1) * rs + (cols - 1) * cs + 1;
}

static void reference(const float *x, const int32_t *seeds, long rows, long cols, Layout l,
                      float *out) {
    for (long r = 0; r < rows; r++)
        for (long c = 0; c < cols; c++) {
            uint32_t ctr[4] = {(uint32_t)c, 0, 0, 0};
            philox_ref((uint64_t)(int64_t)seeds[r], ctr);
            float v = x[r * l.x_rs + c * l.x_cs];
            out[r * l.out_rs + c * l.out_cs] = philox_uniform(ctr[0]) > P ? v / (1.0f - P) : 0.0f;
        }
}

/* Row 0's first values: input, keep mask, output; then the first rows' seeds and masks
 * (rows with seed 42 show the same pattern). */
static void show_masks(const float *x, const float *out, const int32_t *seeds, long rows, long cols,
                       Layout l) {
    float in[10], keep[10], o[10];
    int n = cols < 10 ? (int)cols : 10;
    for (int c = 0; c < n; c++) {
        in[c] = x[c * l.x_cs], o[c] = out[c * l.out_cs];
        keep[c] = o[c] != 0.0f; /* no input is 0 */
    }
    printf("row 0 (seed %d), first %d columns:\n", seeds[0], n);
    ex_print_row("input", in, n);
    ex_print_row("keep mask", keep, n);
    ex_print_row("output", o, n);
    printf("\n");
    printf("%4s %11s   keep mask of the first 48 columns\n", "row", "seed");
    for (long r = 0; r < rows && r < 7; r++) {
        printf("%4ld %11d   ", r, seeds[r]);
        for (long c = 0; c < cols && c < 48; c++)
            putchar(out[r * l.out_rs + c * l.out_cs] != 0.0f ? '1' : '.');
        putchar('\n');
    }
}

/* One shape in one layout; returns 1 if every check passed. */
static int run_case(nr_context *ctx, nr_kernel *k, long rows, long cols, Layout l, ex_rng *rng,
                    int quiet, int show) {
    long nx = extent(rows, cols, l.x_rs, l.x_cs), nout = extent(rows, cols, l.out_rs, l.out_cs);
    float *x = ex_xmalloc(sizeof(float) * (size_t)nx),
          *out = ex_xmalloc(sizeof(float) * (size_t)nout);
    float *ref = ex_xmalloc(sizeof(float) * (size_t)nout);
    int32_t *seeds = ex_xmalloc(sizeof(int32_t) * (size_t)rows);
    for (long i = 0; i < nx; i++)
        x[i] = ex_rng_float(rng, 0.25f, 2.0f); /* never 0: 0 out means dropped */
    for (long r = 0; r < rows; r++) seeds[r] = r % 3 == 0 ? 42 : (int32_t)(ex_rng_u64(rng) >> 33);
    for (long i = 0; i < nout; i++) out[i] = ref[i] = UNTOUCHED;
    reference(x, seeds, rows, cols, l, ref);

    nr_devptr dx = ex_upload(ctx, x, sizeof(float) * (size_t)nx),
              dout = ex_upload(ctx, out, sizeof(float) * (size_t)nout);
    nr_devptr dseeds = ex_upload(ctx, seeds, sizeof(int32_t) * (size_t)rows);
    nr_arg args[] = {nr_arg_ptr(dx),
                     nr_arg_ptr(dout),
                     nr_arg_ptr(dseeds),
                     nr_arg_i32((int32_t)rows),
                     nr_arg_i32((int32_t)cols),
                     nr_arg_i32((int32_t)l.x_rs),
                     nr_arg_i32((int32_t)l.x_cs),
                     nr_arg_i32((int32_t)l.out_rs),
                     nr_arg_i32((int32_t)l.out_cs),
                     nr_arg_f32(P)};
    /* grid: (rows, column blocks) */
    double ms = ex_launch(ctx, k, (unsigned)rows, (unsigned)ex_cdiv(cols, BLOCK_SIZE), args,
                          EX_COUNT(args));
    ex_download(ctx, out, dout, sizeof(float) * (size_t)nout);

    /* the whole output buffer, padding included (there both hold UNTOUCHED) */
    ex_diff d = ex_compare(out, ref, nout, 0.0, ex_div_rtol(ctx));
    long same_seed_rows = 0, mask_differs = 0; /* rows 3, 6, ... against row 0, all seed 42 */
    for (long r = 3; r < rows; r += 3, same_seed_rows++)
        for (long c = 0; c < cols; c++)
            mask_differs +=
                (out[r * l.out_rs + c * l.out_cs] != 0.0f) != (out[c * l.out_cs] != 0.0f);
    int ok = d.bad == 0 && mask_differs == 0;
    if (show) {
        show_masks(x, out, seeds, rows, cols, l);
        printf("\n%13s %-32s %9s %10s %12s   %s\n", "shape", "layout", "time (ms)", "mismatches",
               "seed-42 rows", "result");
    }
    if (!quiet)
        printf("%5ld x %-5ld %-32s %9.3f %10ld %12ld   %s\n", rows, cols, l.name, ms, d.bad,
               same_seed_rows + (rows > 0), ok ? "ok" : "FAILED");
    ex_check_diff(&d, "output buffer (element index)", 0);
    if (mask_differs) printf("  rows with seed 42 differ in %ld mask elements\n", mask_differs);
    ex_free(ctx, dx), ex_free(ctx, dout), ex_free(ctx, dseeds);
    free(x), free(out), free(ref), free(seeds);
    return ok;
}

int main(int argc, char **argv) {
    ex_args a = ex_parse_args(argc, argv, "[--quiet] [ROWS COLS ...]");
    static const long default_shapes[] = {37, 1000, 5, 3, 64, 257};
    const long *shapes = a.nsizes ? a.sizes : default_shapes;
    int nshapes = (a.nsizes ? a.nsizes : EX_COUNT(default_shapes)) / 2;
    if (a.nsizes % 2) return ex_finish(0, "sizes come in pairs: ROWS COLS");

    nr_context *ctx = ex_context(&a);
    const char *dev = ex_device_name(ctx);
    ex_defines defs = {0};
    ex_define(&defs, "BLOCK_SIZE", "%d", BLOCK_SIZE);
    nr_module *m = ex_compile(ctx, "matrix_dropout.nr", &defs);
    nr_kernel *k = ex_kernel(ctx, m, "_matrix_seeded_dropout");

    if (!a.quiet)
        printf("matrix dropout, one seed per row, p = %.1f, on %s, BLOCK_SIZE = %d\n", P, dev,
               BLOCK_SIZE);
    ex_rng rng = {99};
    int ok = 1;
    for (int s = 0; s < nshapes; s++)
        for (int l = 0; l < 2; l++) {
            long rows = shapes[2 * s], cols = shapes[2 * s + 1];
            ok &= run_case(ctx, k, rows, cols, layouts(l, rows, cols), &rng, a.quiet,
                           !a.quiet && s == 0 && l == 0);
        }
    nr_module_destroy(m);
    nr_context_destroy(ctx);
    return ex_finish(ok, "%s, %d shapes x 2 layouts, mask bit-exact with C Philox", dev, nshapes);
}
