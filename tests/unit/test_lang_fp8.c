/* test_lang_fp8.c - kernels of the five fp8 types (fp8e4nv, fp8e5, fp8e4b15, fp8e4b8,
 * fp8e5b16) end to end on the CPU interpreter (the reference semantics): loads and stores
 * move every byte unchanged (NaNs included), widening to fp16/bf16/fp32/fp64 is exact,
 * narrowing from each float type rounds once (to nearest even; fp8e4b15 ties away) and
 * saturates (infinities too, but to NaN in the FNUZ types) with NaN giving the format's
 * NaN byte, integers go through fp32 both ways, arithmetic and comparisons promote as
 * Triton's rules say and compute in fp32, tl.where, tl.full and load's `other`, tl.dot of
 * fp8 blocks (fp8e4b15 and FNUZ widened to fp16), and the C API's view of fp8 pointers
 * and arguments. Expected bytes come from compiler/support/fp8.h, which test_fp8 checks against an
 * independent reference. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compiler/support/fp8.h"
#include "nereid.h"

#include "lang_harness.h"

enum { NF = NR_FP8_FORMATS };
static const char *const fmt_name[NF] = {"fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16"};
static const char *const fmt_dtype[NF] = {"tl.float8e4nv", "tl.float8e5", "tl.float8e4b15",
                                          "tl.float8e4b8", "tl.float8e5b16"};
static const nr_type fmt_tag[NF] = {NR_TYPE_FP8E4NV, NR_TYPE_FP8E5, NR_TYPE_FP8E4B15,
                                    NR_TYPE_FP8E4B8, NR_TYPE_FP8E5B16};

static double dec(int f, uint8_t b) { return fp8_to_double((NrFp8Format)f, b); }
static uint8_t enc(int f, double x) { return fp8_from_double((NrFp8Format)f, x); }

/* a value equal to want, NaN to NaN (any payload), zeros with their signs */
static bool same_value(double got, double want) {
    if (isnan(want)) return isnan(got);
    return got == want && signbit(got) == signbit(want);
}

static char *subst(const char *text, const char *key, const char *val) {
    size_t kl = strlen(key), vl = strlen(val), n = 0;
    for (const char *p = strstr(text, key); p; p = strstr(p + kl, key)) n++;
    char *out = malloc(strlen(text) + n * vl + 1), *w = out;
    if (!out) abort();
    for (const char *p = text; *p;) {
        if (!strncmp(p, key, kl)) memcpy(w, val, vl), w += vl, p += kl;
        else *w++ = *p++;
    }
    *w = 0;
    return out;
}

/* src with @T@ the signature name and @DT@ the dtype of format f */
static nr_kernel *build_fmt(int line, const char *src, int f) {
    char *a = subst(src, "@T@", fmt_name[f]), *b = subst(a, "@DT@", fmt_dtype[f]);
    nr_kernel *k = build_at(line, b, NULL);
    free(a), free(b);
    return k;
}

/* ---- every byte: copies, widening, bitcasts ---- */

static const char *K_BYTES =
    "@triton.jit\n"
    "def k(x: *@T@, cx: *@T@, w: *@T@, f: *fp32, h: *fp16, b: *bf16, d: *fp64, u: *u8, n: i32):\n"
    "    o = tl.arange(0, 256)\n"
    "    m = o < n\n"
    "    a = tl.load(x + o, mask=m)\n"
    "    tl.store(cx + o, a, mask=m)\n"
    "    tl.store(w + o, tl.where(o % 2 == 0, a, tl.load(x + 255 - o, mask=m)), mask=m)\n"
    "    tl.store(f + o, a.to(tl.float32), mask=m)\n"
    "    tl.store(h + o, a, mask=m)\n" /* the store converts */
    "    tl.store(b + o, a.to(tl.bfloat16), mask=m)\n"
    "    tl.store(d + o, a.to(tl.float64), mask=m)\n"
    "    tl.store(u + o, a.to(tl.uint8, bitcast=True), mask=m)\n";

static void test_bytes(int f) {
    nr_kernel *k = build_fmt(__LINE__, K_BYTES, f);
    if (!k) return;
    CHECK(nr_kernel_param_type(k, 0) == NR_TYPE_PTR && nr_kernel_param_pointee(k, 0) == fmt_tag[f],
          "%s: the pointee of x is reported", fmt_name[f]);
    uint8_t x[256];
    for (int i = 0; i < 256; i++) x[i] = (uint8_t)i;
    nr_devptr dx = dev_from(x, 256), dc = dev_from(NULL, 256), dw = dev_from(NULL, 256),
              df = dev_from(NULL, 1024);
    nr_devptr dh = dev_from(NULL, 512), db = dev_from(NULL, 512), dd = dev_from(NULL, 2048),
              du = dev_from(NULL, 256);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dc), nr_arg_ptr(dw), nr_arg_ptr(df), nr_arg_ptr(dh),
        nr_arg_ptr(db), nr_arg_ptr(dd), nr_arg_ptr(du), nr_arg_i32(256));
    uint8_t c[256], w[256], u[256];
    float fl[256];
    uint16_t h[256], b[256];
    double d[256];
    dev_to(c, dc, 256), dev_to(w, dw, 256), dev_to(fl, df, 1024), dev_to(h, dh, 512),
        dev_to(b, db, 512);
    dev_to(d, dd, 2048), dev_to(u, du, 256);
    int bad_copy = 0, bad_where = 0, bad_f = 0, bad_h = 0, bad_b = 0, bad_d = 0, bad_u = 0;
    for (int i = 0; i < 256; i++) {
        double v = dec(f, (uint8_t)i);
        bad_copy += c[i] != i;
        bad_where += w[i] != (i % 2 == 0 ? i : 255 - i);
        bad_f += !same_value(fl[i], v);
        bad_h += !same_value(f16(h[i]), v);
        bad_b += !same_value(fbf(b[i]), v);
        bad_d += !same_value(d[i], v);
        bad_u += u[i] != i;
    }
    CHECK(bad_copy == 0, "%s: %d bytes changed by a load and a store", fmt_name[f], bad_copy);
    CHECK(bad_where == 0, "%s: %d bytes changed by tl.where", fmt_name[f], bad_where);
    CHECK(bad_f == 0 && bad_h == 0 && bad_b == 0 && bad_d == 0,
          "%s: widening wrong: fp32 %d, fp16 %d, bf16 %d, fp64 %d", fmt_name[f], bad_f, bad_h,
          bad_b, bad_d);
    CHECK(bad_u == 0, "%s: %d bytes changed by a bitcast", fmt_name[f], bad_u);
    nr_free(ctx, dx), nr_free(ctx, dc), nr_free(ctx, dw), nr_free(ctx, df), nr_free(ctx, dh),
        nr_free(ctx, db);
    nr_free(ctx, dd), nr_free(ctx, du);
}

/* ---- narrowing from every float type ---- */

static const char *K_NARROW = "@triton.jit\n"
                              "def k(f: *fp32, h: *fp16, b: *bf16, d: *fp64, of: *@T@, oh: *@T@, "
                              "ob: *@T@, od: *@T@, n: i32):\n"
                              "    o = tl.arange(0, 2048)\n"
                              "    m = o < n\n"
                              "    tl.store(of + o, tl.load(f + o, mask=m), mask=m)\n"
                              "    tl.store(oh + o, tl.load(h + o, mask=m).to(@DT@), mask=m)\n"
                              "    tl.store(ob + o, tl.load(b + o, mask=m).to(@DT@), mask=m)\n"
                              "    tl.store(od + o, tl.load(d + o, mask=m).to(@DT@), mask=m)\n";

/* Inputs: every value, the midpoint between each pair of neighbours and just either side
 * of it (both signs), saturation, infinities, NaNs, zeros, tiny values. */
static int narrow_inputs(int f, double *v) {
    int n = 0, max = fp8_max_bits((NrFp8Format)f);
    for (int c = 0; c < max; c++) {
        double lo = dec(f, (uint8_t)c), hi = dec(f, (uint8_t)(c + 1)), mid = (lo + hi) / 2;
        double xs[4] = {lo, mid, nextafter(mid, 0), nextafter(mid, INFINITY)};
        for (int j = 0; j < 4; j++) v[n++] = xs[j], v[n++] = -xs[j];
    }
    double max_v = fp8_max((NrFp8Format)f);
    double extra[] = {max_v,     max_v * 1.03, max_v * 1.0714, max_v * 2, 1e30, INFINITY,
                      -INFINITY, NAN,          -NAN,           0.0,       -0.0, 1e-30,
                      -1e-30,    -max_v * 1.5};
    for (size_t j = 0; j < sizeof extra / sizeof *extra; j++) v[n++] = extra[j];
    return n;
}

static void test_narrow(int f) {
    nr_kernel *k = build_fmt(__LINE__, K_NARROW, f);
    if (!k) return;
    static double v[2048];
    int n = narrow_inputs(f, v);
    static float fv[2048];
    static uint16_t hv[2048], bv[2048];
    static double dv[2048];
    for (int i = 0; i < n; i++) {
        fv[i] = (float)v[i], hv[i] = h16(v[i]), bv[i] = hbf(v[i]);
        /* fp64: just past a midpoint (i % 8 == 6: above it; 7: below it, in magnitude) by
         * less than fp32 can see (fp32 would round onto the midpoint and a second rounding
         * would tie, to even or away) */
        dv[i] = i % 8 == 6 || i % 8 == 7 ? v[i] + ldexp(fabs(v[i]), -40) : v[i];
    }
    nr_devptr df = dev_from(fv, 4 * (size_t)n), dh = dev_from(hv, 2 * (size_t)n),
              db = dev_from(bv, 2 * (size_t)n);
    nr_devptr dd = dev_from(dv, 8 * (size_t)n), o[4];
    for (int j = 0; j < 4; j++) o[j] = dev_from(NULL, (size_t)n);
    RUN(k, 1, 1, 1, nr_arg_ptr(df), nr_arg_ptr(dh), nr_arg_ptr(db), nr_arg_ptr(dd),
        nr_arg_ptr(o[0]), nr_arg_ptr(o[1]), nr_arg_ptr(o[2]), nr_arg_ptr(o[3]), nr_arg_i32(n));
    static uint8_t r[4][2048];
    for (int j = 0; j < 4; j++) dev_to(r[j], o[j], (size_t)n);
    int bad[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        uint8_t want[4] = {enc(f, fv[i]), enc(f, f16(hv[i])), enc(f, fbf(bv[i])), enc(f, dv[i])};
        for (int j = 0; j < 4; j++)
            if (r[j][i] != want[j] && bad[j]++ < 2)
                printf("  %s from %s: %.17g gave 0x%02x, want 0x%02x\n", fmt_name[f],
                       (const char *[]){"fp32", "fp16", "bf16", "fp64"}[j],
                       j == 0   ? (double)fv[i]
                       : j == 1 ? f16(hv[i])
                       : j == 2 ? fbf(bv[i])
                                : dv[i],
                       r[j][i], want[j]);
    }
    CHECK(!bad[0] && !bad[1] && !bad[2] && !bad[3],
          "%s: narrowing wrong: from fp32 %d, fp16 %d, bf16 %d, fp64 %d of %d", fmt_name[f], bad[0],
          bad[1], bad[2], bad[3], n);
    /* the fp64 inputs that fp32 would double-round are rounded once */
    int once = 0;
    for (int i = 0; i < n; i++)
        once += (i % 8 == 6 || i % 8 == 7) && enc(f, dv[i]) != enc(f, (float)dv[i]);
    CHECK(once > 0, "%s: the fp64 inputs include cases where rounding through fp32 would differ",
          fmt_name[f]);
    nr_free(ctx, df), nr_free(ctx, dh), nr_free(ctx, db), nr_free(ctx, dd);
    for (int j = 0; j < 4; j++) nr_free(ctx, o[j]);
}

/* ---- integers, through fp32 both ways ---- */

static const char *K_INTS =
    "@triton.jit\n"
    "def k(i: *i32, x: *@T@, o: *@T@, back: *i32, ub: *u8, xi: *i32, xb: *i1, n: i32):\n"
    "    q = tl.arange(0, 512)\n"
    "    m = q < n\n"
    "    a = tl.load(i + q, mask=m).to(@DT@)\n"
    "    tl.store(o + q, a, mask=m)\n"
    "    tl.store(back + q, a.to(tl.int32), mask=m)\n"
    "    tl.store(ub + q, a.to(tl.uint8), mask=m)\n"
    "    b = tl.load(x + q, mask=q < 256)\n"
    "    tl.store(xi + q, b.to(tl.int32), mask=q < 256)\n"
    "    tl.store(xb + q, b.to(tl.int1), mask=q < 256)\n";

static int64_t trunc_sat(double v, double lo, double hi) {
    if (isnan(v)) return 0;
    if (v <= lo) return (int64_t)lo;
    if (v >= hi) return (int64_t)hi;
    return (int64_t)trunc(v);
}

static void test_ints(int f) {
    nr_kernel *k = build_fmt(__LINE__, K_INTS, f);
    if (!k) return;
    int32_t iv[512];
    int n = 0;
    for (int v = -600; v <= 600; v += 3) iv[n++] = v;
    int32_t more[] = {INT32_MIN, INT32_MAX, 17, 19, 1000000, -70000, 57343, 57344, 61440, 65536};
    for (size_t j = 0; j < sizeof more / sizeof *more; j++) iv[n++] = more[j];
    uint8_t x[256];
    for (int b = 0; b < 256; b++) x[b] = (uint8_t)b;
    nr_devptr di = dev_from(iv, 4 * (size_t)n), dx = dev_from(x, 256),
              doo = dev_from(NULL, (size_t)n);
    nr_devptr dback = dev_from(NULL, 4 * (size_t)n), dub = dev_from(NULL, (size_t)n),
              dxi = dev_from(NULL, 1024);
    nr_devptr dxb = dev_from(NULL, 256);
    RUN(k, 1, 1, 1, nr_arg_ptr(di), nr_arg_ptr(dx), nr_arg_ptr(doo), nr_arg_ptr(dback),
        nr_arg_ptr(dub), nr_arg_ptr(dxi), nr_arg_ptr(dxb), nr_arg_i32(n));
    uint8_t o[512], ub[512], xb[256];
    int32_t back[512], xi[256];
    dev_to(o, doo, (size_t)n), dev_to(back, dback, 4 * (size_t)n), dev_to(ub, dub, (size_t)n);
    dev_to(xi, dxi, 1024), dev_to(xb, dxb, 256);
    int bad = 0;
    for (int j = 0; j < n; j++) {
        uint8_t want = enc(f, (float)iv[j]);
        double v = dec(f, want);
        if (o[j] != want || back[j] != trunc_sat(v, INT32_MIN, INT32_MAX) ||
            ub[j] != trunc_sat(v, 0, 255)) {
            if (bad++ < 3)
                printf("  %s: int %d gave 0x%02x %d %d, want 0x%02x\n", fmt_name[f], iv[j], o[j],
                       back[j], ub[j], want);
        }
    }
    CHECK(bad == 0, "%s: %d integer conversions wrong", fmt_name[f], bad);
    int bad2 = 0;
    for (int b = 0; b < 256; b++) {
        double v = dec(f, (uint8_t)b);
        bad2 += xi[b] != trunc_sat(v, INT32_MIN, INT32_MAX);
        bad2 += xb[b] != (v != 0 || isnan(v)); /* x != 0, NaN included, as for other floats */
    }
    CHECK(bad2 == 0, "%s: %d conversions of fp8 bytes to i32 or i1 wrong", fmt_name[f], bad2);
    CHECK(o[0] == enc(f, -600.0), "%s: -600", fmt_name[f]);
    nr_free(ctx, di), nr_free(ctx, dx), nr_free(ctx, doo), nr_free(ctx, dback), nr_free(ctx, dub),
        nr_free(ctx, dxi);
    nr_free(ctx, dxb);
}

/* ---- arithmetic through the promotion rules ---- */

static const char *K_ARITH = "@triton.jit\n"
                             "def k(x: *fp8e4nv, y: *fp8e4nv, z: *fp8e5, i: *i32, g: *fp32, out8: "
                             "*fp8e4nv, out5: *fp8e5, out16: *fp16,\n"
                             "      out32: *fp32, lt: *i1):\n"
                             "    o = tl.arange(0, 256)\n"
                             "    a = tl.load(x + o)\n"
                             "    b = tl.load(y + o)\n"
                             "    c = tl.load(z + o)\n"
                             "    v = tl.load(i + o)\n"
                             "    tl.static_assert((a + b).dtype == tl.float8e4nv)\n"
                             "    tl.static_assert((a + c).dtype == tl.float16)\n"
                             "    tl.static_assert((a + v).dtype == tl.float8e4nv)\n"
                             "    tl.static_assert((c * 2.5).dtype == tl.float8e5)\n"
                             "    tl.static_assert((a + tl.load(g + o)).dtype == tl.float32)\n"
                             "    tl.static_assert((a + a.to(tl.bfloat16)).dtype == tl.float32)\n"
                             "    tl.static_assert((a + a.to(tl.float16)).dtype == tl.float16)\n"
                             "    tl.static_assert((a + a.to(tl.float64)).dtype == tl.float64)\n"
                             "    tl.store(out8 + o, a + b)\n"
                             "    tl.store(out8 + 256 + o, a * b)\n"
                             "    tl.store(out8 + 512 + o, a - b)\n"
                             "    tl.store(out8 + 768 + o, a + 1.3)\n"
                             "    tl.store(out8 + 1024 + o, a + v)\n"
                             "    tl.store(out8 + 1280 + o, -a)\n"
                             "    tl.store(out8 + 1536 + o, tl.where(a < b, a, b))\n"
                             "    tl.store(out8 + 1792 + o, tl.maximum(a, b))\n"
                             "    tl.store(out8 + 2048 + o, tl.abs(a))\n"
                             "    tl.store(out5 + o, c * 2.5)\n"
                             "    tl.store(out16 + o, a + c)\n"
                             "    tl.store(out32 + o, a + tl.load(g + o))\n"
                             "    tl.store(lt + o, a < b)\n";

static double fp8e4(double x) { return dec(0, enc(0, x)); }

/* the IR's max: a NaN operand gives the other; max(-0, +0) is +0 */
static float ir_fmax(float a, float b) {
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static void test_arith(void) {
    nr_kernel *k = BUILD(K_ARITH, NULL);
    if (!k) return;
    uint8_t x[256], y[256], z[256];
    int32_t iv[256];
    float g[256];
    for (int i = 0; i < 256; i++) {
        x[i] = (uint8_t)i, y[i] = (uint8_t)(i * 37 + 11), z[i] = (uint8_t)(255 - i);
        iv[i] = i - 128, g[i] = (float)(i * 0.37 - 20);
    }
    nr_devptr dx = dev_from(x, 256), dy = dev_from(y, 256), dz = dev_from(z, 256),
              di = dev_from(iv, 1024), dg = dev_from(g, 1024);
    nr_devptr d8 = dev_from(NULL, 9 * 256), d5 = dev_from(NULL, 256), d16 = dev_from(NULL, 512),
              d32 = dev_from(NULL, 1024);
    nr_devptr dlt = dev_from(NULL, 256);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dz), nr_arg_ptr(di), nr_arg_ptr(dg),
        nr_arg_ptr(d8), nr_arg_ptr(d5), nr_arg_ptr(d16), nr_arg_ptr(d32), nr_arg_ptr(dlt));
    uint8_t o8[9 * 256], o5[256], lt[256];
    uint16_t o16[256];
    float o32[256];
    dev_to(o8, d8, sizeof o8), dev_to(o5, d5, 256), dev_to(o16, d16, 512), dev_to(o32, d32, 1024),
        dev_to(lt, dlt, 256);
    int bad[13] = {0};
    for (int i = 0; i < 256; i++) {
        float a = (float)dec(0, x[i]), b = (float)dec(0, y[i]), c = (float)dec(1, z[i]);
        /* fp8 arithmetic: each operand in fp32 (exact), the op in fp32, the result rounded to fp8
         */
        uint8_t want8[9] = {enc(0, a + b),
                            enc(0, a * b),
                            enc(0, a - b),
                            enc(0, a + (float)fp8e4(1.3)),
                            enc(0, a + (float)fp8e4(iv[i])),
                            enc(0, -a),
                            a < b ? x[i] : y[i],
                            enc(0, ir_fmax(a, b)),
                            enc(0, fabsf(a))};
        for (int j = 0; j < 9; j++) bad[j] += o8[j * 256 + i] != want8[j];
        bad[9] += o5[i] != enc(1, c * (float)dec(1, enc(1, 2.5)));
        bad[10] += !same_value(f16(o16[i]), r16((double)a + (double)c)); /* both exact in fp16 */
        bad[11] += !same_value(o32[i], (double)(a + g[i]));
        bad[12] += lt[i] != (a < b);
    }
    static const char *const what[13] = {
        "a + b",   "a * b", "a - b",    "a + 1.3",        "a + i32",   "-a",   "where",
        "maximum", "abs",   "e5 * 2.5", "e4 + e5 (fp16)", "e4 + fp32", "a < b"};
    for (int j = 0; j < 13; j++)
        CHECK(bad[j] == 0, "fp8 arithmetic %s: %d of 256 wrong", what[j], bad[j]);
    nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, dz), nr_free(ctx, di), nr_free(ctx, dg),
        nr_free(ctx, d8);
    nr_free(ctx, d5), nr_free(ctx, d16), nr_free(ctx, d32), nr_free(ctx, dlt);
}

/* fp8e4b15, fp8e4b8 and fp8e5b16 by the same rules: one type stays, two give fp16 */
static const char *K_ARITH_MORE = "@triton.jit\n"
                                  "def k(x: *fp8e4b15, y: *fp8e4b8, z: *fp8e5b16, o15: *fp8e4b15, "
                                  "o8: *fp8e4b8, o16: *fp8e5b16, oh: *fp16, lt: *i1):\n"
                                  "    o = tl.arange(0, 256)\n"
                                  "    a = tl.load(x + o)\n"
                                  "    b = tl.load(y + o)\n"
                                  "    c = tl.load(z + o)\n"
                                  "    tl.static_assert((a * a).dtype == tl.float8e4b15)\n"
                                  "    tl.static_assert((a + b).dtype == tl.float16)\n"
                                  "    tl.static_assert((b + 1).dtype == tl.float8e4b8)\n"
                                  "    tl.store(o15 + o, a * a - 0.3)\n"
                                  "    tl.store(o8 + o, b + b)\n"
                                  "    tl.store(o8 + 256 + o, tl.where(b < 0, -b, b * 0.5))\n"
                                  "    tl.store(o16 + o, c * 3)\n"
                                  "    tl.store(oh + o, a + b)\n"
                                  "    tl.store(oh + 256 + o, b + c)\n"
                                  "    tl.store(lt + o, b < c)\n";

static void test_arith_more(void) {
    nr_kernel *k = BUILD(K_ARITH_MORE, NULL);
    if (!k) return;
    uint8_t x[256], y[256], z[256];
    for (int i = 0; i < 256; i++)
        x[i] = (uint8_t)i, y[i] = (uint8_t)(i * 37 + 11), z[i] = (uint8_t)(255 - i);
    nr_devptr dx = dev_from(x, 256), dy = dev_from(y, 256), dz = dev_from(z, 256),
              d15 = dev_from(NULL, 256);
    nr_devptr d8 = dev_from(NULL, 512), d16 = dev_from(NULL, 256), dh = dev_from(NULL, 1024),
              dlt = dev_from(NULL, 256);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dz), nr_arg_ptr(d15), nr_arg_ptr(d8),
        nr_arg_ptr(d16), nr_arg_ptr(dh), nr_arg_ptr(dlt));
    uint8_t o15[256], o8[512], o16[256], lt[256];
    uint16_t oh[512];
    dev_to(o15, d15, 256), dev_to(o8, d8, 512), dev_to(o16, d16, 256), dev_to(oh, dh, 1024),
        dev_to(lt, dlt, 256);
    int bad[7] = {0};
    for (int i = 0; i < 256; i++) {
        float a = (float)dec(2, x[i]), b = (float)dec(3, y[i]), c = (float)dec(4, z[i]);
        /* each operand in fp32 (exact), the op in fp32, rounded to the fp8 type */
        bad[0] += o15[i] != enc(2, (float)dec(2, enc(2, a * a)) - (float)dec(2, enc(2, 0.3)));
        bad[1] += o8[i] != enc(3, b + b);
        bad[2] += o8[256 + i] != (b < 0 ? enc(3, -b) : enc(3, b * (float)dec(3, enc(3, 0.5))));
        bad[3] += o16[i] != enc(4, c * (float)dec(4, enc(4, 3.0)));
        bad[4] +=
            !same_value(f16(oh[i]), r16((double)a + (double)b)); /* fp16, as two fp8 types meet */
        bad[5] += !same_value(f16(oh[256 + i]), r16((double)b + (double)c));
        bad[6] += lt[i] != (b < c);
    }
    static const char *const what[7] = {
        "e4b15 a * a - 0.3",   "e4b8 b + b",          "e4b8 where",  "e5b16 c * 3",
        "e4b15 + e4b8 (fp16)", "e4b8 + e5b16 (fp16)", "e4b8 < e5b16"};
    for (int j = 0; j < 7; j++)
        CHECK(bad[j] == 0, "fp8 arithmetic %s: %d of 256 wrong", what[j], bad[j]);
    nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, dz), nr_free(ctx, d15), nr_free(ctx, d8),
        nr_free(ctx, d16);
    nr_free(ctx, dh), nr_free(ctx, dlt);
}

/* ---- tl.full, tl.zeros, load's other, constants ---- */

static const char *K_FILL = "@triton.jit\n"
                            "def k(x: *@T@, o: *@T@):\n"
                            "    q = tl.arange(0, 16)\n"
                            "    tl.store(o + q, tl.full((16,), 1.3, @DT@))\n"
                            "    tl.store(o + 16 + q, tl.zeros((16,), @DT@))\n"
                            "    tl.store(o + 32 + q, tl.load(x + q, mask=q < 4, other=-3.7))\n"
                            "    tl.store(o + 48 + q, tl.full((16,), 1e9, @DT@))\n"
                            "    tl.store(o + 64 + q, tl.full((16,), float('nan'), @DT@))\n"
                            "    tl.store(o + 80 + q, 2.75)\n";

static void test_fill(int f) {
    nr_kernel *k = build_fmt(__LINE__, K_FILL, f);
    if (!k) return;
    uint8_t x[16] = {0x11, 0x22, 0x33, 0x44};
    nr_devptr dx = dev_from(x, 16), doo = dev_from(NULL, 96);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(doo));
    uint8_t o[96];
    dev_to(o, doo, 96);
    int bad = 0;
    for (int i = 0; i < 16; i++) {
        bad += o[i] != enc(f, 1.3);
        bad += o[16 + i] != 0;
        bad += o[32 + i] != (i < 4 ? x[i] : enc(f, -3.7));
        bad += o[48 + i] != fp8_desc((NrFp8Format)f)->sat_code;
        bad += o[64 + i] != fp8_desc((NrFp8Format)f)->nan_code;
        bad += o[80 + i] != enc(f, 2.75);
    }
    CHECK(bad == 0, "%s: %d filled elements wrong", fmt_name[f], bad);
    nr_free(ctx, dx), nr_free(ctx, doo);
}

/* ---- tl.dot on fp8: products exact in fp32, summed in fp32 in k order ---- */

static const char *K_DOT = "@triton.jit\n"
                           "def k(a: *@T@, b: *@T@, c: *fp32, M: tl.constexpr = 16, N: "
                           "tl.constexpr = 32, K: tl.constexpr = 64):\n"
                           "    rm = tl.arange(0, M)\n"
                           "    rn = tl.arange(0, N)\n"
                           "    rk = tl.arange(0, K)\n"
                           "    x = tl.load(a + rm[:, None] * K + rk[None, :])\n"
                           "    y = tl.load(b + rk[:, None] * N + rn[None, :])\n"
                           "    acc = tl.full((M, N), 0.5, tl.float32)\n"
                           "    acc = tl.dot(x, y, acc)\n"
                           "    tl.store(c + rm[:, None] * N + rn[None, :], acc + x @ y)\n";

static void test_dot(int f) {
    enum { M = 16, N = 32, K = 64 };
    nr_kernel *k = build_fmt(__LINE__, K_DOT, f);
    if (!k) return;
    uint8_t a[M * K], b[K * N];
    for (int i = 0; i < M * K; i++) a[i] = enc(f, ((i * 7) % 23 - 11) * 0.37);
    for (int i = 0; i < K * N; i++) b[i] = enc(f, ((i * 5) % 19 - 9) * 1.9);
    nr_devptr da = dev_from(a, sizeof a), db = dev_from(b, sizeof b),
              dc = dev_from(NULL, 4 * M * N);
    RUN(k, 1, 1, 1, nr_arg_ptr(da), nr_arg_ptr(db), nr_arg_ptr(dc));
    static float c[M * N];
    dev_to(c, dc, sizeof c);
    int bad = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            float acc = 0.5f, s = 0.0f;
            for (int q = 0; q < K; q++) {
                float p = (float)dec(f, a[m * K + q]) * (float)dec(f, b[q * N + n]);
                acc += p, s += p;
            }
            bad += c[m * N + n] != acc + s;
        }
    CHECK(bad == 0, "%s: tl.dot: %d of %d wrong", fmt_name[f], bad, M * N);
    nr_free(ctx, da), nr_free(ctx, db), nr_free(ctx, dc);
}

/* ---- the C API: fp8 arguments are refused ---- */

static void test_api(void) {
    nr_kernel *k = BUILD("@triton.jit\ndef k(x: *fp8e5, s: fp32):\n    tl.store(x, s)\n", NULL);
    if (!k) return;
    nr_devptr d = dev_from(NULL, 16);
    nr_arg bad = {NR_TYPE_FP8E5, {.f = 1.0}};
    nr_status s = RUN_STATUS(k, 1, 1, 1, nr_arg_ptr(d), bad);
    CHECK(s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "fp32, got fp8e5"),
          "an fp8 scalar argument: %s: %s", nr_status_string(s), nr_last_error(ctx));
    bad.type = NR_TYPE_FP8E4NV;
    s = RUN_STATUS(k, 1, 1, 1, bad, nr_arg_f32(1.0f));
    CHECK(s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "got fp8e4nv"),
          "an fp8 argument for a pointer: %s", nr_last_error(ctx));
    RUN(k, 1, 1, 1, nr_arg_ptr(d), nr_arg_f32(1000.0f));
    uint8_t v;
    dev_to(&v, d, 1);
    CHECK(v == enc(1, 1000.0), "storing an fp32 scalar into fp8e5: 0x%02x", v);
    nr_free(ctx, d);
    CHECK(nr_kernel_param_pointee(k, 1) == NR_TYPE_INVALID, "a scalar has no pointee");
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) {
        printf("no CPU context\n");
        return 1;
    }
    for (int f = 0; f < NF; f++) {
        test_bytes(f);
        test_narrow(f);
        test_ints(f);
        test_fill(f);
        test_dot(f);
    }
    test_arith();
    test_arith_more();
    test_api();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_fp8", &st);
}
