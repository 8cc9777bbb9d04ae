/* tdesc_matmul.c - the matmul tutorial's kernel two ways on the GPU, side by side: with
 * pointer blocks (examples/matmul.nr: cp.async rings + wgmma on sm_90a) and with host
 * tensor descriptors (bench/matmul_tdesc.nr: TMA rings with mbarriers + wgmma), fp16
 * inputs, fp32 accumulation, the same tiles, warps and stages; TFLOP/s of the median of
 * 15 timed launches (after 3 warm-up ones), and the largest difference between the two
 * results. Usage: tdesc_matmul [SIZE ...] (default 4096 8192). Run from the repository
 * root, on a CUDA device (NEREID_DEVICE=cuda:N picks one). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/common.h"

typedef struct Config {
    int bm, bn, bk, warps, stages;
} Config;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median ms of `reps` launches (each synchronised) */
static double time_ms(nr_context *ctx, nr_kernel *k, unsigned programs, const nr_arg *args,
                      int nargs) {
    enum { WARM = 3, REPS = 15 };
    double t[REPS];
    unsigned grid[3] = {programs, 1, 1};
    for (int i = 0; i < WARM + REPS; i++) {
        double t0 = ex_now_ms();
        EX_CHECK(ctx, nr_launch(k, grid, args, nargs, NULL));
        EX_CHECK(ctx, nr_synchronize(ctx));
        if (i >= WARM) t[i - WARM] = ex_now_ms() - t0;
    }
    qsort(t, REPS, sizeof *t, cmp_double);
    return t[REPS / 2];
}

static nr_kernel *build(nr_context *ctx, const char *file, const char *name, Config c) {
    ex_defines d = {0};
    ex_define(&d, "BLOCK_SIZE_M", "%d", c.bm);
    ex_define(&d, "BLOCK_SIZE_N", "%d", c.bn);
    ex_define(&d, "BLOCK_SIZE_K", "%d", c.bk);
    ex_define(&d, "GROUP_SIZE_M", "%d", 8);
    if (strstr(file, "examples/")) ex_define(&d, "ACTIVATION", "%s", "");
    nr_compile_options o = {.defines = d.d,
                            .num_defines = d.n,
                            .kernel = name,
                            .num_warps = c.warps,
                            .num_stages = c.stages};
    nr_module *m = NULL;
    EX_CHECK(ctx, nr_compile_file(ctx, file, &o, &m));
    return ex_kernel(ctx, m, name);
}

int main(int argc, char **argv) {
    ex_args a = ex_parse_args(argc, argv, "[SIZE ...]");
    nr_context *ctx = ex_context(&a);
    if (strcmp(ex_device_name(ctx), "cpu") == 0) {
        printf("SKIP: tdesc_matmul times the GPU (no CUDA device)\n");
        return 0;
    }
    static const Config configs[] = {
        {128, 256, 64, 8, 3}, {128, 128, 64, 4, 4}, {128, 128, 64, 8, 3}};
    int sizes[8] = {4096, 8192}, nsizes = 2;
    if (a.nsizes) {
        nsizes = a.nsizes;
        for (int i = 0; i < nsizes; i++) sizes[i] = (int)a.sizes[i];
    }
    printf("%-6s %-16s %12s %12s %8s %10s\n", "size", "tile (w, s)", "pointers", "descriptors",
           "desc/ptr", "max diff");
    for (int si = 0; si < nsizes; si++) {
        int n = sizes[si];
        size_t elems = (size_t)n * n;
        uint16_t *ha = ex_xmalloc(2 * elems), *hb = ex_xmalloc(2 * elems),
                 *c1 = ex_xmalloc(2 * elems), *c2 = ex_xmalloc(2 * elems);
        ex_rng r = {12345};
        for (size_t i = 0; i < elems; i++)
            ha[i] = ex_f2h(ex_rng_float(&r, -1, 1)), hb[i] = ex_f2h(ex_rng_float(&r, -1, 1));
        nr_devptr da = ex_upload(ctx, ha, 2 * elems), db = ex_upload(ctx, hb, 2 * elems);
        nr_devptr dc1 = ex_alloc(ctx, 2 * elems), dc2 = ex_alloc(ctx, 2 * elems);
        for (int ci = 0; ci < EX_COUNT(configs); ci++) {
            Config c = configs[ci];
            unsigned programs = (unsigned)(ex_cdiv(n, c.bm) * ex_cdiv(n, c.bn));
            nr_kernel *kp = build(ctx, "examples/matmul.nr", "matmul_kernel", c);
            nr_kernel *kd = build(ctx, "bench/matmul_tdesc.nr", "matmul_tdesc_kernel", c);
            nr_arg pa[] = {nr_arg_ptr(da), nr_arg_ptr(db), nr_arg_ptr(dc1), nr_arg_i32(n),
                           nr_arg_i32(n),  nr_arg_i32(n),  nr_arg_i32(n),   nr_arg_i32(1),
                           nr_arg_i32(n),  nr_arg_i32(1),  nr_arg_i32(n),   nr_arg_i32(1)};
            nr_tensor_desc ta = {da, 2, NR_PAD_ZERO, {n, n}, {n, 1}},
                           tb = {db, 2, NR_PAD_ZERO, {n, n}, {n, 1}},
                           tc = {dc2, 2, NR_PAD_ZERO, {n, n}, {n, 1}};
            nr_arg qa[] = {nr_arg_tensor_desc(&ta), nr_arg_tensor_desc(&tb),
                           nr_arg_tensor_desc(&tc), nr_arg_i32(n),
                           nr_arg_i32(n),           nr_arg_i32(n)};
            double mp = time_ms(ctx, kp, programs, pa, EX_COUNT(pa)),
                   md = time_ms(ctx, kd, programs, qa, EX_COUNT(qa));
            ex_download(ctx, c1, dc1, 2 * elems);
            ex_download(ctx, c2, dc2, 2 * elems);
            double diff = 0;
            for (size_t i = 0; i < elems; i++)
                diff = fmax(diff, fabs((double)ex_h2f(c1[i]) - ex_h2f(c2[i])));
            double flop = 2.0 * n * (double)n * n;
            char tile[32];
            snprintf(tile, sizeof tile, "%dx%dx%d (%d, %d)", c.bm, c.bn, c.bk, c.warps, c.stages);
            printf("%-6d %-16s %9.1f TF %9.1f TF %8.3f %10.3g\n", n, tile, flop / mp / 1e9,
                   flop / md / 1e9, mp / md, diff);
        }
        ex_free(ctx, da), ex_free(ctx, db), ex_free(ctx, dc1), ex_free(ctx, dc2);
        free(ha), free(hb), free(c1), free(c2);
    }
    nr_context_destroy(ctx);
    return 0;
}
