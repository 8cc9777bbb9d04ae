/* test_batched_dot.c - the GPU back end's split of batched dots (compiler/passes/
 * batched_dot.c) checked on the CPU: each kernel is compiled by the driver, run by the
 * interpreter as it is (a batched dot op) and again after ir_split_batched_dots (one 2-D
 * dot per batch, the batches sliced by bit-exact integer sums and put back by selects);
 * the outputs must be equal bit for bit (each batch's products are summed in the same
 * order either way). 3-D and 4-D blocks, fp16, bf16, fp32, fp64, i8 and fp8e5 inputs, a
 * constant and a loaded accumulator, one batch, transposed operands, NaN and -0.0
 * inputs. */
#include "compiler/passes/passes.h"
#include "driver/driver.h"
#include "runtime/interp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int npass, nfail;

#define CHECK(cond, ...)                                \
    do {                                                \
        if (cond) {                                     \
            npass++;                                    \
        } else {                                        \
            nfail++;                                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                        \
            printf("\n");                               \
        }                                               \
    } while (0)

/* a[B.., M, K] x b[B.., K, N] + acc, the blocks loaded flat and reshaped; ACC 0: a constant
 * accumulator, 1: the one loaded from c */
static const char *K_SRC =
    "@triton.jit\n"
    "def k(x: *DT, y: *DT, c: *ACCT, z: *ACCT, SA: tl.constexpr, SB: tl.constexpr,\n"
    "      SC: tl.constexpr, NA: tl.constexpr, NB: tl.constexpr, NC: tl.constexpr,\n"
    "      TB: tl.constexpr, ACC: tl.constexpr, DT: tl.constexpr, ACCT: tl.constexpr):\n"
    "    a = tl.load(x + tl.arange(0, NA)).reshape(SA)\n"
    "    b = tl.load(y + tl.arange(0, NB)).reshape(SB)\n"
    "    if TB:\n"
    "        b = tl.trans(b, (0, 2, 1))\n"
    "    if ACC:\n"
    "        r = tl.dot(a, b, tl.load(c + tl.arange(0, NC)).reshape(SC))\n"
    "    else:\n"
    "        r = tl.dot(a, b)\n"
    "    tl.store(z + tl.arange(0, NC), r.reshape(NC))\n";

static void run_case(const char *dt, const char *acct, int esize, const int *sa, const int *sb,
                     int rank, bool tb, bool acc) {
    int sc[4], na = 1, nb = 1, nc = 1;
    for (int d = 0; d < rank; d++) {
        sc[d] = d < rank - 1 ? sa[d] : tb ? sb[rank - 2] : sb[rank - 1];
        na *= sa[d], nb *= sb[d], nc *= sc[d];
    }
    char shp[3][64];
    int *sh[3] = {(int *)sa, (int *)sb, sc};
    for (int s = 0; s < 3; s++) {
        int n = snprintf(shp[s], sizeof shp[s], "(");
        for (int d = 0; d < rank; d++)
            n += snprintf(shp[s] + n, sizeof shp[s] - (size_t)n, "%d,", sh[s][d]);
        snprintf(shp[s] + n, sizeof shp[s] - (size_t)n, ")");
    }
    char vals[14][64];
    snprintf(vals[0], 64, "%s", shp[0]), snprintf(vals[1], 64, "%s", shp[1]);
    snprintf(vals[2], 64, "%s", shp[2]), snprintf(vals[3], 64, "%d", na);
    snprintf(vals[4], 64, "%d", nb), snprintf(vals[5], 64, "%d", nc);
    snprintf(vals[6], 64, "%s", tb ? "True" : "False"), snprintf(vals[7], 64, "%d", acc);
    snprintf(vals[8], 64, "%s", dt), snprintf(vals[9], 64, "%s", acct);
    static const char *const names[10] = {"SA", "SB", "SC",  "NA", "NB",
                                          "NC", "TB", "ACC", "DT", "ACCT"};
    SemaDefine defs[10];
    for (int i = 0; i < 10; i++) defs[i] = (SemaDefine){names[i], vals[i]};
    Source src = {"batched.nr", K_SRC, strlen(K_SRC)};
    NrCompileOptions o = {.defines = defs, .ndefines = 10, .stop_after = NR_STAGE_IR_OPT};
    Diag diag;
    diag_init(&diag);
    NrProgram p;
    bool ok = driver_compile(&src, &o, &diag, NULL, &p);
    CHECK(ok, "compile %s %s: %s", dt, shp[0], sb_cstr(&diag.out));
    diag_free(&diag);
    if (!ok) return;
    IrFunc *f = p.ir->funcs[0];
    int csize = esize == 8 ? 8 : 4; /* fp64's accumulator is fp64 */
    size_t bytes_a = (size_t)na * esize, bytes_b = (size_t)nb * esize,
           bytes_c = (size_t)nc * (size_t)csize;
    unsigned char *x = malloc(bytes_a), *y = malloc(bytes_b);
    unsigned char *c = malloc(bytes_c), *z[2] = {calloc(1, bytes_c), calloc(1, bytes_c)};
    unsigned seed = 12345u + (unsigned)na + (unsigned)esize * 77u;
    for (size_t i = 0; i < bytes_a; i++)
        x[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
    for (size_t i = 0; i < bytes_b; i++)
        y[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
    for (size_t i = 0; i < (size_t)nc; i++) {
        float v = (float)((int)((seed = seed * 1103515245u + 12345u) >> 20) % 17 - 8);
        double d = v;
        if (csize == 8) memcpy(c + 8 * i, &d, 8);
        else memcpy(c + 4 * i, &v, 4); /* an i32 accumulator reads the float's bits: any values */
    }
    /* floats from random bytes: keep them finite but for a few NaNs and -0.0 */
    if (!strcmp(dt, "tl.float32"))
        for (size_t i = 0; i < (size_t)na + nb; i++) {
            float *v = (float *)(i < (size_t)na ? x + 4 * i : y + 4 * (i - na));
            *v = i % 97 == 5 ? NAN : i % 89 == 3 ? -0.0f : (float)((int)(i * 7 % 13) - 6) * 0.25f;
        }
    if (!strcmp(dt, "tl.float64"))
        for (size_t i = 0; i < (size_t)na + nb; i++) {
            double *v = (double *)(i < (size_t)na ? x + 8 * i : y + 8 * (i - na));
            *v = i % 97 == 5 ? NAN : i % 89 == 3 ? -0.0 : (double)((int)(i * 7 % 13) - 6) * 0.1;
        }
    if (!strcmp(dt, "tl.float16") || !strcmp(dt, "tl.bfloat16"))
        for (size_t i = 0; i < (size_t)na + nb; i++) {
            unsigned char *v = i < (size_t)na ? x + 2 * i : y + 2 * (i - na);
            v[1] &= 0xBF;                           /* exponent below the top: no inf or NaN */
            if (i % 91 == 4) v[1] = 0x80, v[0] = 0; /* -0.0 */
        }
    InterpScalar args[4] = {{.u = (uint64_t)(uintptr_t)x},
                            {.u = (uint64_t)(uintptr_t)y},
                            {.u = (uint64_t)(uintptr_t)c},
                            {.u = 0}};
    InterpOptions io = {.buffers = NULL};
    unsigned grid[3] = {1, 1, 1};
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            ir_split_batched_dots(f);
            StrBuf err;
            sb_init(&err);
            bool valid = ir_verify_module(p.ir, &err);
            CHECK(valid, "split %s %s: invalid IR: %s", dt, shp[0], sb_cstr(&err));
            sb_free(&err);
            if (!valid) break;
        }
        args[3].u = (uint64_t)(uintptr_t)z[pass];
        StrBuf err;
        sb_init(&err);
        int rc = interp_run(f, args, grid, &io, &err);
        CHECK(rc == 0, "run %s %s (%s): %s", dt, shp[0], pass ? "split" : "batched", sb_cstr(&err));
        sb_free(&err);
    }
    CHECK(!memcmp(z[0], z[1], bytes_c), "%s %s x %s%s%s: split differs from batched", dt, shp[0],
          shp[1], tb ? " (b transposed)" : "", acc ? " + acc" : "");
    free(x), free(y), free(c), free(z[0]), free(z[1]);
    driver_program_free(&p);
}

int main(void) {
    static const int a3[3] = {4, 16, 32}, b3[3] = {4, 32, 16}, b3t[3] = {4, 16, 32};
    static const int a4[4] = {2, 2, 16, 16}, b4[4] = {2, 2, 16, 32};
    static const int a1[3] = {1, 32, 16}, b1[3] = {1, 16, 16};
    static const struct {
        const char *dt, *acct;
        int esize;
    } types[] = {{"tl.float16", "tl.float32", 2}, {"tl.bfloat16", "tl.float32", 2},
                 {"tl.float32", "tl.float32", 4}, {"tl.float64", "tl.float64", 8},
                 {"tl.int8", "tl.int32", 1},      {"tl.float8e5", "tl.float32", 1}};
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        run_case(types[t].dt, types[t].acct, types[t].esize, a3, b3, 3, false, false);
        run_case(types[t].dt, types[t].acct, types[t].esize, a3, b3, 3, false, true);
        run_case(types[t].dt, types[t].acct, types[t].esize, a1, b1, 3, false, true);
    }
    run_case("tl.float16", "tl.float32", 2, a3, b3t, 3, true, false);
    run_case("tl.float32", "tl.float32", 4, a4, b4, 4, false, true);
    run_case("tl.int8", "tl.int32", 1, a4, b4, 4, false, false);
    run_case("tl.float64", "tl.float64", 8, a4, b4, 4, false, true);
    printf("test_batched_dot: %d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
