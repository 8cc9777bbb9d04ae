/* test_aot.c - the ahead-of-time C output (`nereid compile --emit=c`) against the JIT.
 *
 * The build generates BUILD/aot/{aot_add,aot_mm,aot_misc}.{h,c} with the CLI (vector add,
 * matmul with unit strides specialised by --one, and tests/gpu/aot_kernels.nr) for sm_80
 * and sm_90a, compiles them with `cc -std=c11 -Wall -Wextra -Werror -c` and links them
 * here. On a GPU each launcher runs on memory from nr_malloc (the C API's context is the
 * device's primary context, the one the launchers use), and its results must equal the
 * JIT's launch of the same kernel through the C API: vector add on aligned and misaligned
 * pointers and lengths (every specialisation is taken), matmul fp16 on several shapes with
 * and without unit strides, every scalar type. Also: a grid with a zero dimension is
 * refused, the modules unload and reload. Without a GPU the launchers must report
 * CUDA_ERROR_NO_DEVICE (100), and the test prints SKIP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_add.h"
#include "aot_misc.h"
#include "aot_mm.h"
#include "check.h"
#include "nereid.h"

static CheckState st;

static uint16_t f2h(float f) { /* fp16 bits (test data are exact in fp16) */
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t e = (x >> 23) & 0xff, m = x & 0x7fffff;
    if (!e) return (uint16_t)((x >> 16) & 0x8000);
    return (uint16_t)(((x >> 16) & 0x8000) | ((e - 112) << 10) | (m >> 13));
}

static float h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
    if (e == 0) { /* zero or subnormal */
        float f = (float)m / 16777216.0f;
        return sign ? -f : f;
    }
    x = e == 31 ? sign | 0x7f800000u | (m << 13) : sign | ((e + 112) << 23) | (m << 13);
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static nr_module *jit_module(nr_context *ctx, const char *path, const nr_define *d, int nd) {
    nr_compile_options o = {.defines = d, .num_defines = nd};
    nr_module *m = NULL;
    if (nr_compile_file(ctx, path, &o, &m)) printf("compile %s: %s\n", path, nr_last_error(ctx));
    return m;
}

static void vector_add(nr_context *ctx) {
    nr_define d = {"BLOCK_SIZE", "256"};
    nr_module *m = jit_module(ctx, "examples/vector_add.nr", &d, 1);
    nr_kernel *k;
    if (!m || nr_module_get_kernel(m, "add_kernel", &k)) return;
    enum { N = 5000 };
    float x[N + 4], y[N + 4], a[N + 4], b[N + 4];
    for (int i = 0; i < N + 4; i++) x[i] = (float)i * 0.5f, y[i] = 1.0f / (float)(i + 1);
    nr_devptr dx, dy, da, db;
    size_t bytes = sizeof x;
    nr_malloc(ctx, bytes, &dx), nr_malloc(ctx, bytes, &dy), nr_malloc(ctx, bytes, &da),
        nr_malloc(ctx, bytes, &db);
    nr_memcpy_htod(ctx, dx, x, bytes), nr_memcpy_htod(ctx, dy, y, bytes);
    /* aligned and 16-multiple (variant 0), aligned (1), a pointer 4 bytes in (2) */
    const int ns[] = {4096, 4999, 4096};
    const int offs[] = {0, 0, 1};
    for (int c = 0; c < 3; c++) {
        int n = ns[c];
        uint64_t o = (uint64_t)offs[c] * 4;
        nr_memset(ctx, da, 0, bytes), nr_memset(ctx, db, 0, bytes);
        unsigned grid[3] = {(unsigned)((n + 255) / 256), 1, 1};
        int rc = add_kernel(NULL, grid, dx + o, dy + o, da + o, n);
        CHECK_AT(&st, rc == 0, "add_kernel (AOT) case %d: CUresult %d", c, rc);
        nr_arg args[4] = {nr_arg_ptr(dx + o), nr_arg_ptr(dy + o), nr_arg_ptr(db + o),
                          nr_arg_i32(n)};
        CHECK_AT(&st, nr_launch(k, grid, args, 4, NULL) == NR_OK, "%s", nr_last_error(ctx));
        CHECK_AT(&st, nr_synchronize(ctx) == NR_OK, "%s", nr_last_error(ctx));
        nr_memcpy_dtoh(ctx, a, da, bytes), nr_memcpy_dtoh(ctx, b, db, bytes);
        CHECK_AT(&st, !memcmp(a, b, bytes), "vector add case %d: AOT and JIT differ", c);
        CHECK_AT(&st, a[offs[c] + n - 1] == x[offs[c] + n - 1] + y[offs[c] + n - 1],
                 "vector add case %d: wrong sum", c);
    }
    unsigned zero[3] = {0, 1, 1};
    CHECK_AT(&st, add_kernel(NULL, zero, dx, dy, da, 1) == 1,
             "a zero grid is CUDA_ERROR_INVALID_VALUE");
    CHECK_AT(&st, aot_add_unload() == 0, "unload");
    unsigned one[3] = {1, 1, 1};
    CHECK_AT(&st, add_kernel(NULL, one, dx, dy, da, 16) == 0 && nr_synchronize(ctx) == NR_OK,
             "reloads after unload");
    nr_module_destroy(m);
}

static void matmul(nr_context *ctx) {
    nr_define d[] = {{"BLOCK_SIZE_M", "64"},
                     {"BLOCK_SIZE_N", "64"},
                     {"BLOCK_SIZE_K", "32"},
                     {"GROUP_SIZE_M", "8"},
                     {"ACTIVATION", "leaky_relu"}};
    nr_module *m = jit_module(ctx, "examples/matmul.nr", d, 5);
    nr_kernel *k;
    if (!m || nr_module_get_kernel(m, "matmul_kernel", &k)) return;
    const int shapes[][3] = {{128, 128, 64}, {100, 72, 40}, {64, 48, 96}};
    for (int c = 0; c < 3; c++) {
        int M = shapes[c][0], N = shapes[c][1], K = shapes[c][2];
        bool transposed = c == 2; /* B read through strides (N, 1) swapped: no unit stride in n */
        size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
        uint16_t *ha = malloc(na * 2), *hb = malloc(nb * 2), *c1 = malloc(nc * 2),
                 *c2 = malloc(nc * 2);
        for (size_t i = 0; i < na; i++) ha[i] = f2h((float)((int)(i * 7 % 13) - 6) / 8.0f);
        for (size_t i = 0; i < nb; i++) hb[i] = f2h((float)((int)(i * 5 % 11) - 5) / 4.0f);
        nr_devptr da, db, dc1, dc2;
        nr_malloc(ctx, na * 2, &da), nr_malloc(ctx, nb * 2, &db), nr_malloc(ctx, nc * 2, &dc1),
            nr_malloc(ctx, nc * 2, &dc2);
        nr_memcpy_htod(ctx, da, ha, na * 2), nr_memcpy_htod(ctx, db, hb, nb * 2);
        int sbk = transposed ? 1 : N, sbn = transposed ? K : 1;
        unsigned grid[3] = {(unsigned)(((M + 63) / 64) * ((N + 63) / 64)), 1, 1};
        int rc = matmul_kernel(NULL, grid, da, db, dc1, M, N, K, K, 1, sbk, sbn, N, 1);
        CHECK_AT(&st, rc == 0, "matmul_kernel (AOT) shape %d: CUresult %d", c, rc);
        nr_arg args[12] = {nr_arg_ptr(da),  nr_arg_ptr(db),  nr_arg_ptr(dc2), nr_arg_i32(M),
                           nr_arg_i32(N),   nr_arg_i32(K),   nr_arg_i32(K),   nr_arg_i32(1),
                           nr_arg_i32(sbk), nr_arg_i32(sbn), nr_arg_i32(N),   nr_arg_i32(1)};
        CHECK_AT(&st, nr_launch(k, grid, args, 12, NULL) == NR_OK, "%s", nr_last_error(ctx));
        CHECK_AT(&st, nr_synchronize(ctx) == NR_OK, "%s", nr_last_error(ctx));
        nr_memcpy_dtoh(ctx, c1, dc1, nc * 2), nr_memcpy_dtoh(ctx, c2, dc2, nc * 2);
        /* the same specialisation gives the same code (cases 0 and 1: bit for bit); case 2
         * takes the AOT's pointers-only variant, the JIT a more specialised one */
        size_t bad = 0;
        for (size_t i = 0; i < nc; i++)
            bad += c == 2 ? fabsf(h2f(c1[i]) - h2f(c2[i])) > 1e-2f * (1 + fabsf(h2f(c2[i])))
                          : c1[i] != c2[i];
        CHECK_AT(&st, bad == 0, "matmul shape %d (%dx%dx%d): AOT and JIT differ in %zu elements", c,
                 M, N, K, bad);
        nr_free(ctx, da), nr_free(ctx, db), nr_free(ctx, dc1), nr_free(ctx, dc2);
        free(ha), free(hb), free(c1), free(c2);
    }
    nr_module_destroy(m);
}

static void misc(nr_context *ctx) {
    nr_define d = {"BLOCK", "128"};
    nr_module *m = jit_module(ctx, "tests/gpu/aot_kernels.nr", &d, 1);
    nr_kernel *ks, *kf;
    if (!m || nr_module_get_kernel(m, "scalars", &ks) || nr_module_get_kernel(m, "fill", &kf))
        return;
    nr_devptr o1, o2;
    nr_malloc(ctx, 64, &o1), nr_malloc(ctx, 64, &o2);
    unsigned one[3] = {1, 1, 1};
    const float hs[] = {1.5f, -0.333333f, 65519.0f, 3e-6f},
                bs[] = {2.5f, 1e30f, -7.1f, 1.00390625f};
    for (int c = 0; c < 4; c++) {
        int64_t big = (int64_t)(c + 3) << 32;
        CHECK_AT(&st,
                 scalars(NULL, one, o1, hs[c], bs[c], c & 1, big, (uint8_t)(200 + c), 0.125 * c) ==
                     0,
                 "scalars");
        nr_arg args[7] = {nr_arg_ptr(o2),       nr_arg_f16(hs[c]), nr_arg_bf16(bs[c]),
                          nr_arg_i1(c & 1),     nr_arg_i64(big),   nr_arg_u8((uint8_t)(200 + c)),
                          nr_arg_f64(0.125 * c)};
        CHECK_AT(&st, nr_launch(ks, one, args, 7, NULL) == NR_OK, "%s", nr_last_error(ctx));
        float a[6], b[6];
        nr_synchronize(ctx);
        nr_memcpy_dtoh(ctx, a, o1, sizeof a), nr_memcpy_dtoh(ctx, b, o2, sizeof b);
        CHECK_AT(&st, !memcmp(a, b, sizeof a),
                 "scalars case %d: AOT (%g %g %g %g %g %g) and JIT (%g %g %g %g %g %g) differ", c,
                 a[0], a[1], a[2], a[3], a[4], a[5], b[0], b[1], b[2], b[3], b[4], b[5]);
    }
    nr_devptr f1, f2;
    nr_malloc(ctx, 4000 * 4, &f1), nr_malloc(ctx, 4000 * 4, &f2);
    unsigned grid[3] = {32, 1, 1};
    CHECK_AT(&st, fill(NULL, grid, f1, 3999, -5) == 0, "fill");
    nr_arg args[3] = {nr_arg_ptr(f2), nr_arg_i32(3999), nr_arg_i32(-5)};
    CHECK_AT(&st, nr_launch(kf, grid, args, 3, NULL) == NR_OK, "%s", nr_last_error(ctx));
    int32_t *a = malloc(16000), *b = malloc(16000);
    nr_synchronize(ctx);
    nr_memcpy_dtoh(ctx, a, f1, 16000), nr_memcpy_dtoh(ctx, b, f2, 16000);
    CHECK_AT(&st, !memcmp(a, b, 3999 * 4) && a[3998] == 3993, "fill: AOT and JIT differ");
    free(a), free(b);
    nr_module_destroy(m);
}

int main(void) {
    nr_context *ctx;
    char why[256];
    if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &ctx, why, sizeof why) != NR_OK) {
        unsigned one[3] = {1, 1, 1};
        int rc = add_kernel(NULL, one, 0, 0, 0, 0);
        CHECK_AT(&st, rc == 100, "without a GPU the launcher reports CUDA_ERROR_NO_DEVICE, got %d",
                 rc);
        CHECK_AT(&st, aot_add_unload() == 0 && aot_mm_unload() == 0 && aot_misc_unload() == 0,
                 "unload with nothing loaded");
        printf("SKIP: no CUDA device (%s); the generated launchers compiled and report no device\n",
               why);
        return check_done("test_aot", &st);
    }
    vector_add(ctx);
    matmul(ctx);
    misc(ctx);
    nr_context_destroy(ctx);
    return check_done("test_aot", &st);
}
