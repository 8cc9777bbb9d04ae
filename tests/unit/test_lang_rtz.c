/* test_lang_rtz.c - x.to(dtype, fp_downcast_rounding='rtz') on the CPU interpreter (the
 * reference semantics: ir_ops.def's cvt {rtz = 1}) against an independent model written
 * on the bits: fp32 -> fp16, bf16 and fp8e5 on every fp16 pattern's neighbourhood and a
 * million scattered fp32 patterns (subnormals, overflow, infinities, NaNs included), fp16
 * and bf16 -> fp8e5 on all 65536 patterns, fp64 -> fp32, fp16, bf16 and fp8e5 on values
 * just off each representable one; constants; and the located errors Triton gives (a
 * rounding mode on a conversion that is not a float narrowing, 'rtz' to fp8e4nv). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nereid.h"

#include "lang_harness.h"

/* The model: x (exact, not NaN) truncated toward zero to the IEEE-like format with E
 * exponent bits and M fraction bits, from the bits of the double. A finite magnitude
 * beyond the largest finite value gives it; infinities stay; NaN gives nan_bits. */
static uint32_t rz_model(double x, int E, int M, uint32_t nan_bits) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    uint32_t sign = (uint32_t)(u >> 63) << (E + M);
    int exp = (int)((u >> 52) & 0x7FF);
    uint64_t man = u & ((UINT64_C(1) << 52) - 1);
    uint32_t inf = ((1u << E) - 1) << M, maxf = inf - 1;
    if (exp == 0x7FF) return man ? nan_bits : sign | inf;
    /* the value is full * 2^(e - 52) */
    uint64_t full = exp ? man | (UINT64_C(1) << 52) : man;
    int e = exp ? exp - 1023 : -1022;
    if (!full) return sign;
    int msb = 63;
    while (!(full >> msb)) msb--;
    int L = e - 52 + msb; /* floor(log2 |x|) */
    int bias = (1 << (E - 1)) - 1, emin = 1 - bias;
    if (L > bias) return sign | maxf;
    int q = (L > emin ? L : emin) - M; /* the exponent of the last kept bit */
    int shift = q - (e - 52);
    uint64_t t = shift >= 64 ? 0 : full >> shift;
    return sign | (uint32_t)(((uint64_t)(q + M - emin) << M) + t);
}
static uint32_t m16(double x) { return rz_model(x, 5, 10, 0x7FFF); }
static uint32_t mbf(double x) { return rz_model(x, 8, 7, 0x7FFF); }
static uint32_t me5(double x) { return rz_model(x, 5, 2, 0x7F); }
static uint32_t m32(double x) { return rz_model(x, 8, 23, 0x7FFFFFFF); }

static double from_f32_bits(uint32_t b) {
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static const char *K_F32 =
    "@triton.jit\n"
    "def k(x: *fp32, h: *fp16, b: *bf16, e: *fp8e5, BLOCK: tl.constexpr):\n"
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    a = tl.load(x + o)\n"
    "    tl.store(h + o, a.to(tl.float16, fp_downcast_rounding='rtz'))\n"
    "    tl.store(b + o, a.to(tl.bfloat16, fp_downcast_rounding='rtz'))\n"
    "    tl.store(e + o, tl.cast(a, tl.float8e5, fp_downcast_rounding='rtz'))\n";

/* every fp16 pattern moved to fp32 with -2..+2 ulps of fp32 around it, then scattered
 * patterns (an odd multiplier walks all 2^32 residues), then edge cases */
static int f32_inputs(uint32_t *v, int cap) {
    int n = 0;
    static const uint32_t edge[] = {0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x7F7FFFFF,
                                    0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001,
                                    0x7F800001, 0x477FE000, 0x477FEFFF, 0x477FF000, 0x47800000,
                                    0x33800000, 0x337FFFFF, 0x387FC000, 0x38800000, 0x7F7F0000,
                                    0x7F7FFFFF, 0x47600000, 0x476FFFFF, 0x47700000, 0x38000000};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) v[n++] = edge[i];
    for (uint32_t h = 0; h < 65536; h++) {
        double d = f16((uint16_t)h);
        float f = isnan(d) ? 1.0f : (float)d;
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        for (int k = -2; k <= 2; k++) v[n++] = b + (uint32_t)k;
    }
    for (uint32_t i = 0; n < cap; i++) v[n++] = i * 2654435761u + 0x9E3779B9u * (i >> 20);
    return n;
}

static void test_f32(void) {
    enum { BLOCK = 4096, N = 1 << 20 };
    nr_kernel *k = build_at(__LINE__, K_F32, "BLOCK=4096");
    if (!k) return;
    uint32_t *v = malloc(N * sizeof *v);
    uint16_t *h = malloc(N * 2), *b = malloc(N * 2);
    uint8_t *e = malloc(N);
    if (!v || !h || !b || !e) abort();
    int n = f32_inputs(v, N);
    nr_devptr dx = dev_from(v, 4 * (size_t)n), dh = dev_from(NULL, 2 * (size_t)n),
              db = dev_from(NULL, 2 * (size_t)n), de = dev_from(NULL, (size_t)n);
    RUN(k, (unsigned)(n / BLOCK), 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dh), nr_arg_ptr(db),
        nr_arg_ptr(de));
    dev_to(h, dh, 2 * (size_t)n), dev_to(b, db, 2 * (size_t)n), dev_to(e, de, (size_t)n);
    int bad[3] = {0, 0, 0}, sub = 0, over = 0;
    for (int i = 0; i < n; i++) {
        double x = from_f32_bits(v[i]);
        uint32_t w[3] = {m16(x), mbf(x), me5(x)}, got[3] = {h[i], b[i], e[i]};
        sub += fabs(x) > 0 && fabs(x) < ldexp(1, -14) && w[0] != 0 && w[0] != 0x8000;
        over += fabs(x) > 65504 && !isinf(x) && (w[0] & 0x7FFF) == 0x7BFF;
        for (int j = 0; j < 3; j++)
            if (got[j] != w[j] && bad[j]++ < 3)
                printf("  fp32 0x%08x (%.9g) to %s: got 0x%x, want 0x%x\n", v[i], x,
                       (const char *[]){"fp16", "bf16", "fp8e5"}[j], got[j], w[j]);
    }
    CHECK(!bad[0] && !bad[1] && !bad[2], "fp32 rtz of %d values: fp16 %d, bf16 %d, fp8e5 %d wrong",
          n, bad[0], bad[1], bad[2]);
    CHECK(sub > 1000 && over > 1000, "the inputs reach fp16's subnormals (%d) and overflow (%d)",
          sub, over);
    /* round toward zero differs from to nearest: 1 + 2^-11 + 2^-12 and its negation */
    CHECK(m16(1.0 + ldexp(1, -11) + ldexp(1, -12)) == 0x3C00 &&
              m16(-(1.0 + ldexp(1, -11) + ldexp(1, -12))) == 0xBC00,
          "the model truncates");
    nr_free(ctx, dx), nr_free(ctx, dh), nr_free(ctx, db), nr_free(ctx, de);
    free(v), free(h), free(b), free(e);
}

static const char *K_16 = "@triton.jit\n"
                          "def k(h: *fp16, b: *bf16, eh: *fp8e5, eb: *fp8e5):\n"
                          "    o = tl.program_id(0) * 4096 + tl.arange(0, 4096)\n"
                          "    tl.store(eh + o, tl.load(h + o).to(tl.float8e5, "
                          "fp_downcast_rounding='rtz'))\n"
                          "    tl.store(eb + o, tl.load(b + o).to(tl.float8e5, "
                          "fp_downcast_rounding='rtz'))\n";

static void test_16(void) {
    nr_kernel *k = BUILD(K_16, NULL);
    if (!k) return;
    static uint16_t v[65536];
    static uint8_t eh[65536], eb[65536];
    for (int i = 0; i < 65536; i++) v[i] = (uint16_t)i;
    nr_devptr dh = dev_from(v, sizeof v), db = dev_from(v, sizeof v), deh = dev_from(NULL, 65536),
              deb = dev_from(NULL, 65536);
    RUN(k, 16, 1, 1, nr_arg_ptr(dh), nr_arg_ptr(db), nr_arg_ptr(deh), nr_arg_ptr(deb));
    dev_to(eh, deh, 65536), dev_to(eb, deb, 65536);
    int bad = 0;
    for (int i = 0; i < 65536; i++) {
        uint32_t wh = me5(f16(v[i])), wb = me5(fbf(v[i]));
        if ((eh[i] != wh || eb[i] != wb) && bad++ < 3)
            printf("  0x%04x: fp16 -> 0x%02x (want 0x%02x), bf16 -> 0x%02x (want 0x%02x)\n", i,
                   eh[i], wh, eb[i], wb);
    }
    CHECK(!bad, "fp16 and bf16 rtz to fp8e5, all 65536 patterns: %d wrong", bad);
    nr_free(ctx, dh), nr_free(ctx, db), nr_free(ctx, deh), nr_free(ctx, deb);
}

static const char *K_64 = "@triton.jit\n"
                          "def k(x: *fp64, f: *fp32, h: *fp16, b: *bf16, e: *fp8e5):\n"
                          "    o = tl.program_id(0) * 4096 + tl.arange(0, 4096)\n"
                          "    a = tl.load(x + o)\n"
                          "    tl.store(f + o, a.to(tl.float32, fp_downcast_rounding='rtz'))\n"
                          "    tl.store(h + o, a.to(tl.float16, fp_downcast_rounding='rtz'))\n"
                          "    tl.store(b + o, a.to(tl.bfloat16, fp_downcast_rounding='rtz'))\n"
                          "    tl.store(e + o, a.to(tl.float8e5, fp_downcast_rounding='rtz'))\n";

static void test_f64(void) {
    enum { N = 1 << 18 };
    nr_kernel *k = BUILD(K_64, NULL);
    if (!k) return;
    double *x = malloc(N * sizeof *x);
    uint32_t *f = malloc(N * 4);
    uint16_t *h = malloc(N * 2), *b = malloc(N * 2);
    uint8_t *e = malloc(N);
    if (!x || !f || !h || !b || !e) abort();
    uint64_t s = 12345;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint64_t u = s;
        if (i % 4 == 0) { /* an fp32 value just above or below in magnitude */
            float fv = (float)((double)(int32_t)(s >> 32) * ldexp(1, (int)(s >> 8 & 255) - 150));
            double d = fv;
            x[i] = d + ldexp(fabs(d), -30) * ((s >> 3 & 1) ? 1 : -1);
            continue;
        }
        memcpy(&x[i], &u, sizeof u); /* any pattern: most are far out of range */
        if (i % 4 == 1)
            x[i] = ldexp(x[i] / ldexp(1, ilogb(x[i]) > -1000 ? ilogb(x[i]) : 0),
                         (int)(s >> 40 & 63) - 40);
    }
    x[0] = INFINITY, x[1] = -INFINITY, x[2] = NAN, x[3] = 1e300, x[5] = -1e-300, x[6] = 0x1p-149;
    x[7] = 0x1.fffffffffp-150, x[9] = 3.4028235677973366e38;
    nr_devptr dx = dev_from(x, 8 * (size_t)N), df = dev_from(NULL, 4 * (size_t)N),
              dh = dev_from(NULL, 2 * (size_t)N), db = dev_from(NULL, 2 * (size_t)N),
              de = dev_from(NULL, N);
    RUN(k, N / 4096, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(df), nr_arg_ptr(dh), nr_arg_ptr(db),
        nr_arg_ptr(de));
    dev_to(f, df, 4 * (size_t)N), dev_to(h, dh, 2 * (size_t)N), dev_to(b, db, 2 * (size_t)N);
    dev_to(e, de, N);
    int bad[4] = {0, 0, 0, 0};
    for (int i = 0; i < N; i++) {
        uint32_t w[4] = {m32(x[i]), m16(x[i]), mbf(x[i]), me5(x[i])},
                 got[4] = {f[i], h[i], b[i], e[i]};
        for (int j = 0; j < 4; j++)
            if (got[j] != w[j] && bad[j]++ < 3)
                printf("  fp64 %.17g to %s: got 0x%x, want 0x%x\n", x[i],
                       (const char *[]){"fp32", "fp16", "bf16", "fp8e5"}[j], got[j], w[j]);
    }
    CHECK(!bad[0] && !bad[1] && !bad[2] && !bad[3],
          "fp64 rtz: fp32 %d, fp16 %d, bf16 %d, fp8e5 %d wrong of %d", bad[0], bad[1], bad[2],
          bad[3], N);
    nr_free(ctx, dx), nr_free(ctx, df), nr_free(ctx, dh), nr_free(ctx, db), nr_free(ctx, de);
    free(x), free(f), free(h), free(b), free(e);
}

/* a constant is an fp32 scalar first (Triton's to_tensor), then truncated; 'rtne' (and
 * None) round to nearest */
static const char *K_CONST =
    "@triton.jit\n"
    "def k(h: *fp16):\n"
    "    tl.store(h, tl.cast(1.0009765625 + 0.000732421875, tl.float16, "
    "fp_downcast_rounding='rtz'))\n"
    "    tl.store(h + 1, tl.cast(1.0009765625 + 0.000732421875, tl.float16, "
    "fp_downcast_rounding='rtne'))\n"
    "    x = tl.full((4,), -1e6, tl.float32)\n"
    "    tl.store(h + 2 + tl.arange(0, 4), x.to(tl.float16, fp_downcast_rounding='rtz'))\n";

static void test_const(void) {
    nr_kernel *k = BUILD(K_CONST, NULL);
    if (!k) return;
    nr_devptr d = dev_from(NULL, 12);
    RUN(k, 1, 1, 1, nr_arg_ptr(d));
    uint16_t r[6];
    dev_to(r, d, 12);
    CHECK(r[0] == 0x3C01 && r[1] == 0x3C02, "constants: rtz 0x%04x, rtne 0x%04x", r[0], r[1]);
    CHECK(r[2] == 0xFBFF && r[5] == 0xFBFF, "-1e6 truncates to -65504: 0x%04x", r[2]);
}

static void err_case(int line, const char *src, const char *dst, const char *dt, const char *mode,
                     const char *want) {
    char text[512];
    snprintf(text, sizeof text,
             "@triton.jit\n"
             "def k(x: *%s, y: *%s):\n"
             "    tl.store(y, tl.load(x).to(tl.%s, fp_downcast_rounding=%s))\n",
             src, dst, dt, mode);
    if (want) compile_error_at(line, text, NULL, want);
    else CHECK(build_at(line, text, NULL) != NULL, "%s to %s with %s compiles", src, dst, mode);
}

static void test_errors(void) {
    const char *trunc = "fp_downcast_rounding should be set only for truncating fp conversions";
    err_case(__LINE__, "fp16", "fp32", "float32", "'rtz'", trunc);
    err_case(__LINE__, "fp32", "i32", "int32", "'rtne'", trunc);
    err_case(__LINE__, "i32", "fp16", "float16", "'rtz'", trunc);
    err_case(__LINE__, "fp16", "bf16", "bfloat16", "'rtz'",
             "the source type is fp16 and the destination type is bf16");
    err_case(__LINE__, "fp32", "fp8e4nv", "float8e4nv", "'rtz'",
             "fp_downcast_rounding='rtz' to fp8e4nv is not supported");
    err_case(__LINE__, "fp32", "fp16", "float16", "'up'",
             "fp_downcast_rounding must be 'rtne' or 'rtz', got 'up'");
    err_case(__LINE__, "fp32", "fp16", "float16", "1",
             "fp_downcast_rounding must be 'rtne' or 'rtz'");
    /* the same type: Triton returns the operand before looking at the mode */
    err_case(__LINE__, "fp32", "fp32", "float32", "'rtz'", NULL);
    err_case(__LINE__, "fp32", "fp8e4nv", "float8e4nv", "'rtne'", NULL);
    err_case(__LINE__, "fp32", "fp16", "float16", "None", NULL);
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) {
        printf("no CPU context\n");
        return 1;
    }
    test_f32();
    test_16();
    test_f64();
    test_const();
    test_errors();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_rtz", &st);
}
