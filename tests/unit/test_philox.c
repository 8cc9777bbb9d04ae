/* test_philox.c - the standard library's Philox (tl.randint, tl.rand, tl.randint4x,
 * tl.rand4x, tl.randn) against the known answers read off Triton 3.6 and a plain-C
 * reference, run through the compiler and the CPU interpreter. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "nereid.h"
#include "philox_ref.h"

static const char *src = "import triton.language as tl\n"
                         "@triton.jit\n"
                         "def rng(out_i: *u32, out_f: *fp32, out4: *u32, out4f: *fp32, out_n: "
                         "*fp32, seed: i64, base: i32,\n"
                         "        BLOCK: tl.constexpr):\n"
                         "    idx = tl.arange(0, BLOCK)\n"
                         "    offs = base + idx\n"
                         "    tl.store(out_i + idx, tl.randint(seed, offs))\n"
                         "    tl.store(out_f + idx, tl.rand(seed, offs))\n"
                         "    a, b, c, d = tl.randint4x(seed, offs)\n"
                         "    tl.store(out4 + idx * 4, a)\n"
                         "    tl.store(out4 + idx * 4 + 1, b)\n"
                         "    tl.store(out4 + idx * 4 + 2, c)\n"
                         "    tl.store(out4 + idx * 4 + 3, d)\n"
                         "    u1, u2, u3, u4 = tl.rand4x(seed, offs)\n"
                         "    tl.store(out4f + idx * 4, u1)\n"
                         "    tl.store(out4f + idx * 4 + 3, u4)\n"
                         "    tl.store(out_n + idx, tl.randn(seed, offs))\n";

/* 64-bit offsets (Triton 3.6: Philox4x32 with the offset's halves as the counter's first
 * two words), and tl.philox on 64-bit counters (Philox4x64) */
static const char *src64 =
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def rng64(out4: *u32, out_f: *fp32, out64: *u64, seed: i64, base: i64, BLOCK: tl.constexpr):\n"
    "    idx = tl.arange(0, BLOCK)\n"
    "    offs = base + idx\n"
    "    a, b, c, d = tl.randint4x(seed, offs)\n"
    "    tl.static_assert(a.dtype == tl.uint32)\n"
    "    tl.store(out4 + idx * 4, tl.randint(seed, offs))\n"
    "    tl.store(out4 + idx * 4 + 1, b)\n"
    "    tl.store(out4 + idx * 4 + 2, c)\n"
    "    tl.store(out4 + idx * 4 + 3, d)\n"
    "    tl.store(out_f + idx, tl.rand(seed, offs))\n"
    "    ctr = offs.to(tl.uint64, bitcast=True)\n"
    "    w0, w1, w2, w3 = tl.philox(seed, ctr, ctr * 0, ctr * 0, ctr * 0)\n"
    "    tl.store(out64 + idx * 4, w0)\n"
    "    tl.store(out64 + idx * 4 + 1, w1)\n"
    "    tl.store(out64 + idx * 4 + 2, w2)\n"
    "    tl.store(out64 + idx * 4 + 3, w3)\n";

enum { BLOCK = 64 };

typedef struct {
    nr_context *ctx;
    nr_kernel *k;
    nr_devptr bi, bf, b4, b4f, bn;
} Rig;

static void run(Rig *r, int64_t seed, int32_t base, uint32_t *ints, float *fl, uint32_t *w4,
                float *f4, float *nrm) {
    nr_arg args[7] = {nr_arg_ptr(r->bi), nr_arg_ptr(r->bf), nr_arg_ptr(r->b4), nr_arg_ptr(r->b4f),
                      nr_arg_ptr(r->bn), nr_arg_i64(seed),  nr_arg_i32(base)};
    unsigned grid[3] = {1, 1, 1};
    if (nr_launch(r->k, grid, args, 7, NULL)) {
        printf("launch failed: %s\n", nr_last_error(r->ctx));
        exit(1);
    }
    nr_memcpy_dtoh(r->ctx, ints, r->bi, BLOCK * 4);
    nr_memcpy_dtoh(r->ctx, fl, r->bf, BLOCK * 4);
    nr_memcpy_dtoh(r->ctx, w4, r->b4, BLOCK * 16);
    nr_memcpy_dtoh(r->ctx, f4, r->b4f, BLOCK * 16);
    nr_memcpy_dtoh(r->ctx, nrm, r->bn, BLOCK * 4);
}

static void test_philox64(CheckState *st, nr_context *ctx) {
    /* the C reference against Random123's known answers for Philox4x64-10 */
    uint64_t z[4] = {0, 0, 0, 0}, f[4] = {~0ull, ~0ull, ~0ull, ~0ull};
    philox64_ref(0, 0, z);
    philox64_ref(~0ull, ~0ull, f);
    CHECK_AT(st,
             z[0] == 0x16554d9eca36314cull && z[1] == 0xdb20fe9d672d0fdcull &&
                 z[2] == 0xd7e772cee186176bull && z[3] == 0x7e68b68aec7ba23bull,
             "Philox4x64 known answer (zeros): %016llx", (unsigned long long)z[0]);
    CHECK_AT(st,
             f[0] == 0x87b092c3013fe90bull && f[1] == 0x438c3c67be8d0224ull &&
                 f[2] == 0x9cc7d7c69cd777b6ull && f[3] == 0xa09caebf594f0ba0ull,
             "Philox4x64 known answer (ones): %016llx", (unsigned long long)f[0]);
    nr_define defs[] = {{"BLOCK", "64"}};
    nr_compile_options o = {.defines = defs, .num_defines = 1};
    nr_module *m;
    nr_kernel *k;
    if (nr_compile_source(ctx, src64, strlen(src64), "rng64.nr", &o, &m) ||
        nr_module_get_kernel(m, "rng64", &k)) {
        CHECK_AT(st, 0, "compile rng64: %s", nr_last_error(ctx));
        return;
    }
    nr_devptr b4, bf, b64;
    nr_malloc(ctx, BLOCK * 16, &b4);
    nr_malloc(ctx, BLOCK * 4, &bf);
    nr_malloc(ctx, BLOCK * 32, &b64);
    static const int64_t seeds[] = {0, 123, -1, 0x123456789abcdefLL};
    static const int64_t bases[] = {0, 1LL << 40, -5, INT64_MAX - BLOCK};
    for (int s = 0; s < 4; s++) {
        uint32_t w[BLOCK * 4];
        uint64_t w64[BLOCK * 4];
        float u[BLOCK];
        nr_arg args[5] = {nr_arg_ptr(b4), nr_arg_ptr(bf), nr_arg_ptr(b64), nr_arg_i64(seeds[s]),
                          nr_arg_i64(bases[s])};
        unsigned grid[3] = {1, 1, 1};
        CHECK_AT(st, nr_launch(k, grid, args, 5, NULL) == NR_OK, "rng64: %s", nr_last_error(ctx));
        nr_memcpy_dtoh(ctx, w, b4, sizeof w);
        nr_memcpy_dtoh(ctx, u, bf, sizeof u);
        nr_memcpy_dtoh(ctx, w64, b64, sizeof w64);
        int bad = 0, badf = 0, bad64 = 0;
        for (int i = 0; i < BLOCK; i++) {
            uint64_t off = (uint64_t)(bases[s] + i);
            uint32_t c[4] = {(uint32_t)off, (uint32_t)(off >> 32), 0, 0};
            philox_ref((uint64_t)seeds[s], c);
            for (int j = 0; j < 4; j++) bad += w[i * 4 + j] != c[j];
            badf += u[i] != philox_uniform(c[0]);
            uint64_t c64[4] = {off, 0, 0, 0};
            philox64_ref((uint64_t)seeds[s], 0, c64);
            for (int j = 0; j < 4; j++) bad64 += w64[i * 4 + j] != c64[j];
        }
        CHECK_AT(st, bad == 0,
                 "seed %lld, 64-bit offsets from %lld: %d words differ from Philox4x32 on (lo, hi, "
                 "0, 0)",
                 (long long)seeds[s], (long long)bases[s], bad);
        CHECK_AT(st, badf == 0, "seed %lld, 64-bit offsets: %d uniforms differ",
                 (long long)seeds[s], badf);
        CHECK_AT(st, bad64 == 0,
                 "seed %lld: tl.philox on 64-bit counters: %d words differ from Philox4x64",
                 (long long)seeds[s], bad64);
        if (s == 0) /* seed 0, counter 0: the kernel itself gives Random123's known answer */
            CHECK_AT(st, w64[0] == 0x16554d9eca36314cull && w64[3] == 0x7e68b68aec7ba23bull,
                     "seed 0 counter 0: %016llx", (unsigned long long)w64[0]);
        if (s == 0) /* a 64-bit offset below 2^32 gives the 32-bit offset's numbers (Triton's known
                       answer) */
            CHECK_AT(st, w[0] == 1713891541u,
                     "seed 0, 64-bit offset 0: randint %u, want 1713891541", w[0]);
    }
    nr_module_destroy(m);
}

int main(void) {
    CheckState st = {0, 0};
    Rig r;
    if (nr_context_create(NR_DEVICE_CPU, 0, &r.ctx)) return 1;
    nr_define defs[] = {{"BLOCK", "64"}};
    nr_compile_options o = {.defines = defs, .num_defines = 1};
    nr_module *m;
    if (nr_compile_source(r.ctx, src, strlen(src), "rng.nr", &o, &m)) {
        printf("compile failed:\n%s\n", nr_last_error(r.ctx));
        return 1;
    }
    nr_module_get_kernel(m, "rng", &r.k);
    nr_malloc(r.ctx, BLOCK * 4, &r.bi);
    nr_malloc(r.ctx, BLOCK * 4, &r.bf);
    nr_malloc(r.ctx, BLOCK * 16, &r.b4);
    nr_malloc(r.ctx, BLOCK * 16, &r.b4f);
    nr_malloc(r.ctx, BLOCK * 4, &r.bn);
    uint32_t ints[BLOCK], w4[BLOCK * 4];
    float fl[BLOCK], f4[BLOCK * 4], nrm[BLOCK];

    /* known answers from Triton 3.6 (shared/design/philox.md) */
    static const struct {
        int64_t seed;
        int32_t off;
        uint32_t word;
        float u;
    } known[] = {
        {123, 0, 287538396u, 0.13389549f},         {0, 0, 1713891541u, 0.79809290f},
        {1, 0, 3823634032u, 0.21948163f},          {512, 1048576, 1436211289u, 0.66878796f},
        {2147483647, 0, 1474427545u, 0.68658376f},
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        run(&r, known[i].seed, known[i].off, ints, fl, w4, f4, nrm);
        CHECK_AT(&st, ints[0] == known[i].word, "seed %lld offset %d: randint %u, want %u",
                 (long long)known[i].seed, known[i].off, ints[0], known[i].word);
        CHECK_AT(&st, fabsf(fl[0] - known[i].u) < 1e-7f, "seed %lld: rand %.8f, want %.8f",
                 (long long)known[i].seed, fl[0], known[i].u);
    }

    /* every word and lane against the C reference, negative and 64-bit seeds too */
    static const int64_t seeds[] = {7, -1, 0x123456789abLL, -987654321};
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++) {
        run(&r, seeds[s], 1000 * (int32_t)s - 17, ints, fl, w4, f4, nrm);
        int bad = 0, badf = 0, badn = 0;
        for (int i = 0; i < BLOCK; i++) {
            uint32_t c[4] = {(uint32_t)(1000 * (int32_t)s - 17 + i), 0, 0, 0};
            philox_ref((uint64_t)seeds[s], c);
            bad += ints[i] != c[0];
            for (int w = 0; w < 4; w++) bad += w4[i * 4 + w] != c[w];
            badf += fl[i] != philox_uniform(c[0]) || f4[i * 4] != philox_uniform(c[0]) ||
                    f4[i * 4 + 3] != philox_uniform(c[3]);
            float u1 = philox_uniform(c[0]), u2 = philox_uniform(c[1]);
            if (u1 < 1e-7f) u1 = 1e-7f;
            double n = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
            badn += fabs(nrm[i] - n) > 1e-4 * (1 + fabs(n));
        }
        CHECK_AT(&st, bad == 0, "seed %lld: %d words differ from the C Philox", (long long)seeds[s],
                 bad);
        CHECK_AT(&st, badf == 0, "seed %lld: %d uniforms differ from the C reference",
                 (long long)seeds[s], badf);
        CHECK_AT(&st, badn == 0, "seed %lld: %d normals differ from Box-Muller",
                 (long long)seeds[s], badn);
    }
    test_philox64(&st, r.ctx);
    nr_module_destroy(m);
    nr_context_destroy(r.ctx);
    return check_done("test_philox", &st);
}
