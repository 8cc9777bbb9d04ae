/* test_lang2.c - the language's builtins run end to end on the CPU interpreter:
 * reductions (sum / max / min / argmax / argmin along each axis, axis=None, keep_dims,
 * methods, return_indices, small-int promotion), elementwise math against C's libm,
 * where / minimum / maximum / Python min, max, abs with blocks and runtime scalars, the
 * standard library (cdiv, sigmoid, softmax), tl.dot (fp16, bf16, fp32, i8; with and
 * without acc; with trans), and shape builtins (trans, permute, reshape, broadcast_to,
 * expand_dims, zeros, full, zeros_like). Each result is checked against C. Triton 3.x is
 * the specification. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nereid.h"

#include "lang_harness.h"

/* ---- helpers of this file ---- */

static int32_t wrap32_l(int64_t x) { return (int32_t)(uint32_t)(uint64_t)x; }

static uint32_t rng_state = 12345;
static int rnd(int lo, int hi) { /* inclusive */
    rng_state = rng_state * 1664525u + 1013904223u;
    return lo + (int)((rng_state >> 8) % (uint32_t)(hi - lo + 1));
}

static bool close_to(double got, double want, double rel) {
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    return fabs(got - want) <= rel * (fabs(want) + 1e-30) + 1e-37;
}

/* ---- reductions ---- */

static void test_reductions(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp32, out: *fp32, outi: *i32):\n"
                      "    i = tl.arange(0, 4)\n"
                      "    j = tl.arange(0, 8)\n"
                      "    a = tl.load(x + i[:, None] * 8 + j[None, :])\n"
                      "    tl.store(out + j, tl.sum(a, axis=0))\n"
                      "    tl.store(out + 8 + i, tl.sum(a, axis=1))\n"
                      "    tl.store(out + 12, tl.sum(a))\n"
                      "    tl.store(out + 13, tl.max(a))\n"
                      "    tl.store(out + 14, tl.min(a, axis=None))\n"
                      "    tl.store(out + 16 + j, tl.max(a, 0))\n"
                      "    tl.store(out + 24 + i, tl.min(a, axis=1))\n"
                      "    tl.store(out + 28 + i, a.sum(axis=1))\n"
                      "    kd = tl.sum(a, axis=1, keep_dims=True)\n"
                      "    tl.static_assert(kd.shape == (4, 1))\n"
                      "    tl.store(out + 32 + i[:, None], kd)\n"
                      "    kn = tl.sum(a, keep_dims=True)\n"
                      "    tl.static_assert(kn.shape == (1, 1))\n"
                      "    tl.store(out + 36 + tl.zeros([1, 1], tl.int32), kn)\n"
                      "    k0 = tl.max(a, 0, keep_dims=True)\n"
                      "    tl.static_assert(k0.shape == (1, 8))\n"
                      "    tl.store(out + 40 + j[None, :], k0)\n"
                      "    tl.store(outi + j, tl.argmax(a, axis=0))\n"
                      "    tl.store(outi + 8 + i, tl.argmin(a, axis=1))\n"
                      "    m, idx = tl.max(a, axis=1, return_indices=True)\n"
                      "    tl.store(out + 48 + i, m)\n"
                      "    tl.store(outi + 12 + i, idx)\n"
                      "    mn, idn = tl.min(a, 0, return_indices=True)\n"
                      "    tl.store(out + 56 + j, mn)\n"
                      "    tl.store(outi + 16 + j, idn)\n"
                      "    tl.store(outi + 24 + j, a.argmax(0))\n"
                      "    tl.store(out + 64 + j, tl.sum(a, -2))\n"
                      "    tl.store(out + 72, tl.sum(tl.sum(a, 1), 0))\n"
                      "    tl.store(outi + 32, tl.argmax(tl.sum(a, 0), 0))\n"
                      "    tl.store(outi + 33, tl.argmin(tl.sum(a, 0), axis=0))\n"
                      "    tl.store(out + 73, a.max())\n"
                      "    tl.store(out + 76 + i, tl.max(a, 1, keep_dims=True).reshape(4))\n"
                      "    tl.store(out + 80 + i, tl.max(tl.abs(a), 1) + tl.min(-a, axis=1))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    float x[32];
    for (int n = 0; n < 32; n++) x[n] = (float)((n * 37) % 17 - 8) * 0.5f;
    x[5] = x[2] = 9; /* a tie for the row-0 maximum: argmax takes the first */
    x[24 + 3] = x[24 + 6] = -9;
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 84 * 4),
              douti = dev_from(NULL, 34 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_ptr(douti));
    float out[84];
    int32_t oi[34];
    dev_to(out, dout, sizeof out);
    dev_to(oi, douti, sizeof oi);
#define A(i, j) x[(i)*8 + (j)]
    float total = 0, gmax = -INFINITY, gmin = INFINITY;
    float colsum[8];
    for (int j = 0; j < 8; j++) {
        float s = 0, mx = -INFINITY, mn = INFINITY;
        int am = 0, an = 0;
        for (int i = 0; i < 4; i++) {
            s += A(i, j);
            if (A(i, j) > mx) mx = A(i, j), am = i;
            if (A(i, j) < mn) mn = A(i, j), an = i;
        }
        colsum[j] = s;
        CHECK(out[j] == s, "sum axis 0 col %d: %g, want %g", j, out[j], s);
        CHECK(out[64 + j] == s, "sum axis -2 col %d: %g", j, out[64 + j]);
        CHECK(out[16 + j] == mx, "max axis 0 col %d: %g", j, out[16 + j]);
        CHECK(out[40 + j] == mx, "max keep_dims col %d: %g", j, out[40 + j]);
        CHECK(oi[j] == am && oi[24 + j] == am, "argmax axis 0 col %d: %d %d, want %d", j, oi[j],
              oi[24 + j], am);
        CHECK(out[56 + j] == mn && oi[16 + j] == an,
              "min return_indices col %d: %g @%d, want %g @%d", j, out[56 + j], oi[16 + j], mn, an);
    }
    for (int i = 0; i < 4; i++) {
        float s = 0, mx = -INFINITY, mn = INFINITY, amx = -INFINITY, mneg = INFINITY;
        int am = 0, an = 0;
        for (int j = 0; j < 8; j++) {
            s += A(i, j);
            if (A(i, j) > mx) mx = A(i, j), am = j;
            if (A(i, j) < mn) mn = A(i, j), an = j;
            if (fabsf(A(i, j)) > amx) amx = fabsf(A(i, j));
            if (-A(i, j) < mneg) mneg = -A(i, j);
        }
        total += s;
        if (mx > gmax) gmax = mx;
        if (mn < gmin) gmin = mn;
        CHECK(out[8 + i] == s && out[28 + i] == s && out[32 + i] == s,
              "sum axis 1 row %d: %g %g %g, want %g", i, out[8 + i], out[28 + i], out[32 + i], s);
        CHECK(out[24 + i] == mn, "min axis 1 row %d: %g", i, out[24 + i]);
        CHECK(oi[8 + i] == an, "argmin axis 1 row %d: %d, want %d", i, oi[8 + i], an);
        CHECK(out[48 + i] == mx && oi[12 + i] == am,
              "max return_indices row %d: %g @%d, want %g @%d", i, out[48 + i], oi[12 + i], mx, am);
        CHECK(out[76 + i] == mx, "max keep_dims reshaped row %d: %g", i, out[76 + i]);
        CHECK(out[80 + i] == amx + mneg, "max(abs) + min(-a) row %d: %g, want %g", i, out[80 + i],
              amx + mneg);
    }
    CHECK(oi[12] == 2, "argmax picks the first of tied maxima: %d", oi[12]);
    CHECK(oi[11] == 3, "argmin picks the first of tied minima: %d", oi[11]);
    CHECK(out[12] == total && out[36] == total && out[72] == total, "sum of all: %g %g %g, want %g",
          out[12], out[36], out[72], total);
    CHECK(out[13] == gmax && out[73] == gmax, "max of all: %g %g, want %g", out[13], out[73], gmax);
    CHECK(out[14] == gmin, "min of all: %g, want %g", out[14], gmin);
    int am = 0, an = 0;
    for (int j = 1; j < 8; j++) {
        if (colsum[j] > colsum[am]) am = j;
        if (colsum[j] < colsum[an]) an = j;
    }
    CHECK(oi[32] == am && oi[33] == an, "argmax/argmin of a 1-D block: %d %d, want %d %d", oi[32],
          oi[33], am, an);
#undef A

    /* small integers are summed in 32 bits, as Triton does; max stays in the type */
    const char *isrc = "@triton.jit\n"
                       "def k(x: *i8, u: *u8, h: *i16, out: *i32, ou: *u32):\n"
                       "    offs = tl.arange(0, 64)\n"
                       "    v = tl.load(x + offs)\n"
                       "    s = tl.sum(v)\n"
                       "    tl.static_assert(s.dtype == tl.int32)\n"
                       "    tl.store(out, s)\n"
                       "    tl.store(out + 1, tl.sum(v, axis=0))\n"
                       "    mx = tl.max(v)\n"
                       "    tl.static_assert(mx.dtype == tl.int8)\n"
                       "    tl.store(out + 2, mx)\n"
                       "    tl.store(out + 3, tl.sum(v > 0))\n"
                       "    tl.store(out + 4, tl.sum(tl.load(h + offs)))\n"
                       "    tl.store(out + 5, tl.sum(v, dtype=tl.int8))\n"
                       "    w = tl.load(u + offs)\n"
                       "    su = tl.sum(w)\n"
                       "    tl.static_assert(su.dtype == tl.uint32)\n"
                       "    tl.store(ou, su)\n"
                       "    tl.store(ou + 1, tl.max(w))\n"
                       "    tl.store(ou + 2, tl.argmax(w, 0))\n"
                       "    tl.store(out + 6, tl.min(v.to(tl.int64) * 100000000000).to(tl.int32))\n"
                       "    tl.store(out + 8 + tl.arange(0, 8), tl.sum(tl.reshape(v, (8, 8)), "
                       "1).to(tl.int8).to(tl.int32))\n";
    k = BUILD(isrc, NULL);
    if (!k) return;
    int8_t x8[64];
    uint8_t u8[64];
    int16_t h16v[64];
    for (int i = 0; i < 64; i++) {
        x8[i] = (int8_t)((i * 37) % 256 - 128);
        u8[i] = (uint8_t)(200 + i % 50);
        h16v[i] = (int16_t)(30000 - i * 7);
    }
    nr_devptr dx8 = dev_from(x8, 64), du8 = dev_from(u8, 64), dh = dev_from(h16v, 128),
              dio = dev_from(NULL, 16 * 4), duo = dev_from(NULL, 3 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx8), nr_arg_ptr(du8), nr_arg_ptr(dh), nr_arg_ptr(dio),
        nr_arg_ptr(duo));
    int32_t io[16];
    uint32_t uo[3];
    dev_to(io, dio, sizeof io);
    dev_to(uo, duo, sizeof uo);
    int32_t s = 0, pos = 0, s16 = 0, mx = -128;
    int64_t mn64 = INT64_MAX;
    uint32_t su = 0, umx = 0, uam = 0;
    uint8_t s8 = 0;
    for (int i = 0; i < 64; i++) {
        s += x8[i], pos += x8[i] > 0, s16 += h16v[i], s8 = (uint8_t)(s8 + (uint8_t)x8[i]);
        if (x8[i] > mx) mx = x8[i];
        if (x8[i] * 100000000000LL < mn64) mn64 = x8[i] * 100000000000LL;
        su += u8[i];
        if (u8[i] > umx) umx = u8[i], uam = (uint32_t)i;
    }
    CHECK(io[0] == s && io[1] == s, "sum of i8 in i32: %d %d, want %d", io[0], io[1], s);
    CHECK(io[2] == mx, "max of i8: %d, want %d", io[2], mx);
    CHECK(io[3] == pos, "sum of i1: %d, want %d", io[3], pos);
    CHECK(io[4] == s16, "sum of i16 in i32: %d, want %d", io[4], s16);
    CHECK(io[5] == (int8_t)s8, "sum with dtype=int8 wraps: %d, want %d", io[5], (int8_t)s8);
    CHECK(io[6] == (int32_t)(uint32_t)(uint64_t)mn64, "min of i64: %d", io[6]);
    for (int r = 0; r < 8; r++) {
        int32_t row = 0;
        for (int j = 0; j < 8; j++) row += x8[r * 8 + j];
        CHECK(io[8 + r] == (int8_t)(uint8_t)row, "row %d sum of i8 then to i8: %d, want %d", r,
              io[8 + r], (int8_t)(uint8_t)row);
    }
    CHECK(uo[0] == su, "sum of u8 in u32: %u, want %u", uo[0], su);
    CHECK(uo[1] == umx && uo[2] == uam, "max/argmax of u8: %u @%u, want %u @%u", uo[1], uo[2], umx,
          uam);
}

/* ---- elementwise math ---- */

static void test_math(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp32, out: *fp32):\n"
                      "    o = tl.arange(0, 16)\n"
                      "    v = tl.load(x + o)\n"
                      "    tl.store(out + 0 * 16 + o, tl.exp(v))\n"
                      "    tl.store(out + 1 * 16 + o, tl.log(v))\n"
                      "    tl.store(out + 2 * 16 + o, tl.sqrt(v))\n"
                      "    tl.store(out + 3 * 16 + o, tl.rsqrt(v))\n"
                      "    tl.store(out + 4 * 16 + o, tl.sin(v))\n"
                      "    tl.store(out + 5 * 16 + o, tl.cos(v))\n"
                      "    tl.store(out + 6 * 16 + o, tl.exp2(v))\n"
                      "    tl.store(out + 7 * 16 + o, tl.log2(v))\n"
                      "    tl.store(out + 8 * 16 + o, tl.abs(v - 4))\n"
                      "    tl.store(out + 9 * 16 + o, tl.fma(v, v, -1.0))\n"
                      "    tl.store(out + 10 * 16 + o, tl.sigmoid(v - 4))\n"
                      "    tl.store(out + 11 * 16 + o, tl.floor(v - 4))\n"
                      "    tl.store(out + 12 * 16 + o, tl.ceil(v - 4))\n"
                      "    tl.store(out + 13 * 16 + o, v.exp() + tl.math.log(v))\n"
                      "    tl.store(out + 14 * 16 + o, abs(v - 4))\n"
                      "    tl.store(out + 15 * 16 + o, tl.sqrt_rn(v) + (v - 4).abs())\n"
                      "    tl.store(out + 16 * 16 + o, (v - 4).sigmoid())\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    float x[16];
    for (int i = 0; i < 16; i++) x[i] = 0.05f + 0.5f * (float)i;
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 17 * 16 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout));
    float out[17 * 16];
    dev_to(out, dout, sizeof out);
    static const char *names[] = {"exp",         "log",           "sqrt", "rsqrt",   "sin",
                                  "cos",         "exp2",          "log2", "abs",     "fma",
                                  "sigmoid",     "floor",         "ceil", "exp+log", "python abs",
                                  "sqrt_rn+abs", "sigmoid method"};
    int bad[17] = {0};
    for (int i = 0; i < 16; i++) {
        double v = x[i];
        double want[17] = {exp(v),
                           log(v),
                           sqrt(v),
                           1 / sqrt(v),
                           sin(v),
                           cos(v),
                           exp2(v),
                           log2(v),
                           fabs((double)(x[i] - 4)),
                           fma(v, v, -1.0),
                           1 / (1 + exp(-(double)(x[i] - 4))),
                           floor((double)(x[i] - 4)),
                           ceil((double)(x[i] - 4)),
                           exp(v) + log(v),
                           fabs((double)(x[i] - 4)),
                           sqrt(v) + fabs((double)(x[i] - 4)),
                           1 / (1 + exp(-(double)(x[i] - 4)))};
        for (int f = 0; f < 17; f++) {
            double tol = (f == 4 || f == 5) ? 1e-5 : 2e-6;
            bool ok = (f == 4 || f == 5) ? fabs(out[f * 16 + i] - want[f]) <= tol
                                         : close_to(out[f * 16 + i], want[f], tol);
            if (!ok) {
                if (!bad[f])
                    printf("  %s(%g) = %.9g, want %.9g\n", names[f], v, out[f * 16 + i], want[f]);
                bad[f]++;
            }
        }
    }
    for (int f = 0; f < 17; f++) CHECK(bad[f] == 0, "tl.%s: %d of 16 wrong", names[f], bad[f]);

    /* exact cases: fma is fused (one rounding), abs of ints, -0.0 */
    const char *src2 = "@triton.jit\n"
                       "def k(x: *fp32, y: *i32, out: *fp32, oi: *i32):\n"
                       "    o = tl.arange(0, 4)\n"
                       "    v = tl.load(x + o)\n"
                       "    tl.store(out + o, tl.fma(v, v, -1.0))\n"
                       "    tl.store(out + 4 + o, tl.abs(-v * 0.0))\n"
                       "    w = tl.load(y + o)\n"
                       "    tl.store(oi + o, tl.abs(w))\n"
                       "    tl.store(oi + 4 + o, abs(w - 1))\n";
    k = BUILD(src2, NULL);
    if (!k) return;
    float xf[4] = {1.0f + 0x1p-12f, 3.0f, -1.0f - 0x1p-13f, 0.1f};
    int32_t yi[4] = {-5, INT32_MIN, 7, 0};
    nr_devptr dxf = dev_from(xf, sizeof xf), dyi = dev_from(yi, sizeof yi),
              do2 = dev_from(NULL, 32), doi = dev_from(NULL, 32);
    RUN(k, 1, 1, 1, nr_arg_ptr(dxf), nr_arg_ptr(dyi), nr_arg_ptr(do2), nr_arg_ptr(doi));
    float o2[8];
    int32_t oi2[8];
    dev_to(o2, do2, sizeof o2);
    dev_to(oi2, doi, sizeof oi2);
    for (int i = 0; i < 4; i++) {
        CHECK(o2[i] == fmaf(xf[i], xf[i], -1.0f), "fma is fused at %d: %.9g, want %.9g", i, o2[i],
              fmaf(xf[i], xf[i], -1.0f));
        CHECK(o2[4 + i] == 0.0f && !signbit(o2[4 + i]), "abs(-0.0) at %d: %g", i, o2[4 + i]);
        int32_t a = yi[i] == INT32_MIN ? INT32_MIN : (yi[i] < 0 ? -yi[i] : yi[i]);
        int32_t b = wrap32_l((int64_t)yi[i] - 1);
        int32_t bw = wrap32_l(b < 0 ? -(int64_t)b : b);
        CHECK(oi2[i] == a, "abs of i32 at %d: %d, want %d", i, oi2[i], a);
        CHECK(oi2[4 + i] == bw, "python abs of i32 block at %d: %d, want %d", i, oi2[4 + i], bw);
    }
}

/* where / minimum / maximum with blocks, Python scalars and runtime scalars; Python
 * min / max / abs of runtime scalars; cdiv at run time and at compile time. */
static void test_select_minmax(void) {
    const char *src =
        "@triton.jit\n"
        "def k(x: *fp32, out: *fp32, oi: *i32, a: i32, b: i32, f: fp32):\n"
        "    o = tl.arange(0, 8)\n"
        "    v = tl.load(x + o)\n"
        "    tl.store(out + o, tl.where(v > 0, v, 0.0))\n"
        "    tl.store(out + 8 + o, tl.where(a > b, v, -v))\n"
        "    tl.store(out + 16 + o, tl.where(v > 1, 1.0, f))\n"
        "    tl.store(out + 24 + o, tl.minimum(v, 0.5))\n"
        "    tl.store(out + 32 + o, tl.maximum(v, f))\n"
        "    tl.store(out + 40 + o, tl.maximum(v, tl.full([8], float('nan'), tl.float32)))\n"
        "    tl.store(out + 48 + o, tl.minimum(tl.full([8], float('nan'), tl.float32), v))\n"
        "    tl.store(out + 56, tl.where(a > 0, 1.5, 2.5))\n"
        "    tl.store(out + 57, tl.where(a < 0, f, 2.5))\n"
        "    tl.store(out + 58 + o, tl.where(o < 4, v, o))\n"
        "    tl.store(oi + 0, min(a, b))\n"
        "    tl.store(oi + 1, max(a, b))\n"
        "    tl.store(oi + 2, max(a, 3))\n"
        "    tl.store(oi + 3, min(a, b, -100))\n"
        "    tl.store(oi + 4, abs(a))\n"
        "    tl.store(oi + 5, max(3, 5) + min(2, 9) * 10)\n"
        "    tl.store(oi + 6, tl.cdiv(a, 4))\n"
        "    tl.store(oi + 7 + tl.arange(0, tl.cdiv(13, 4)), tl.arange(0, tl.cdiv(13, 4)))\n"
        "    tl.store(oi + 11, tl.cdiv(b, 3))\n"
        "    tl.store(oi + 12, tl.minimum(a, b))\n"
        "    tl.store(oi + 13, tl.maximum(a, 0))\n"
        "    tl.store(oi + 14, max(min(a, b), -5))\n"
        "    tl.store(oi + 15 + o, tl.where(o % 3 == 0, o * 10, -o))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    float x[8] = {-2, -0.5f, 0, 0.25f, 1, 1.5f, 3, NAN};
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 66 * 4),
              doi = dev_from(NULL, 23 * 4);
    const int32_t a = -9, b = 4;
    const float f = 0.75f;
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_ptr(doi), nr_arg_i32(a), nr_arg_i32(b),
        nr_arg_f32(f));
    float out[66];
    int32_t oi[23];
    dev_to(out, dout, sizeof out);
    dev_to(oi, doi, sizeof oi);
    for (int i = 0; i < 8; i++) {
        float v = x[i];
        CHECK(out[i] == (v > 0 ? v : 0.0f), "where relu at %d: %g", i, out[i]);
        CHECK(memcmp(&out[8 + i], &(float){a > b ? v : -v}, 4) == 0, "where(scalar cond) at %d: %g",
              i, out[8 + i]);
        CHECK(out[16 + i] == (v > 1 ? 1.0f : f), "where(block, 1.0, fp32 scalar) at %d: %g", i,
              out[16 + i]);
        float mn = isnan(v) ? 0.5f : (v < 0.5f ? v : 0.5f), mx = isnan(v) ? f : (v > f ? v : f);
        CHECK(out[24 + i] == mn, "minimum(v, 0.5) at %d: %g, want %g", i, out[24 + i], mn);
        CHECK(out[32 + i] == mx, "maximum(v, fp32 scalar) at %d: %g, want %g", i, out[32 + i], mx);
        if (isnan(v))
            CHECK(isnan(out[40 + i]) && isnan(out[48 + i]), "min/max of NaN, NaN at %d", i);
        else
            CHECK(out[40 + i] == v && out[48 + i] == v,
                  "max/min with NaN return the number at %d: %g %g", i, out[40 + i], out[48 + i]);
        float w = i < 4 ? v : (float)i;
        CHECK(memcmp(&out[58 + i], &w, 4) == 0 || (isnan(w) && isnan(out[58 + i])),
              "where(fp32 block, i32 block) at %d: %g", i, out[58 + i]);
        CHECK(oi[15 + i] == (i % 3 == 0 ? i * 10 : -i), "where of i32 blocks at %d: %d", i,
              oi[15 + i]);
    }
    CHECK(out[56] == 2.5f && out[57] == f, "scalar where: %g %g", out[56], out[57]);
    CHECK(oi[0] == -9 && oi[1] == 4 && oi[2] == 3 && oi[3] == -100,
          "min/max of runtime scalars: %d %d %d %d", oi[0], oi[1], oi[2], oi[3]);
    CHECK(oi[4] == 9, "abs of a runtime scalar: %d", oi[4]);
    CHECK(oi[5] == 25, "min/max of constants: %d", oi[5]);
    /* tl.cdiv is (x + div - 1) // div with C division at run time: cdiv(-9, 4) = -6 // 4 = -1 */
    CHECK(oi[6] == (a + 3) / 4, "cdiv(-9, 4) at run time: %d, want %d", oi[6], (a + 3) / 4);
    CHECK(oi[11] == 2, "cdiv(4, 3): %d", oi[11]);
    for (int i = 0; i < 4; i++)
        CHECK(oi[7 + i] == i, "arange(0, cdiv(13, 4)) at %d: %d", i, oi[7 + i]);
    CHECK(oi[12] == -9 && oi[13] == 0 && oi[14] == -5, "tl.minimum / maximum of scalars: %d %d %d",
          oi[12], oi[13], oi[14]);
}

/* minimum / maximum convert Python scalars to tensors (Triton 3.x: not weak), so
 * maximum(fp16 block, 0.0) is fp32 and bf16 operands are promoted to fp32. */
static void test_minmax_types(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp16, out: *fp32):\n"
                      "    o = tl.arange(0, 4)\n"
                      "    v = tl.load(x + o)\n"
                      "    m = tl.maximum(v, 0.0)\n"
                      "    tl.store(out + o, m * 1.0009765625)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    uint16_t x[4] = {h16(1.0), h16(3.0), h16(-2.0), h16(1000.5)};
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 16);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout));
    float out[4];
    dev_to(out, dout, sizeof out);
    for (int i = 0; i < 4; i++) {
        float m = (float)f16(x[i]) > 0 ? (float)f16(x[i]) : 0.0f;
        CHECK(out[i] == m * 1.0009765625f, "maximum(fp16, 0.0) * c in fp32 at %d: %.9g, want %.9g",
              i, out[i], m * 1.0009765625f);
    }
    static const struct {
        const char *expr, *want;
    } cases[] = {
        {"tl.maximum(h, 0.0)", "float32"}, {"tl.minimum(b, b)", "float32"},
        {"tl.maximum(c, 0)", "int32"},     {"max(c, 0)", "int32"},
        {"tl.minimum(h, h)", "float16"},   {"tl.maximum(c, c)", "int8"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char s2[512];
        snprintf(s2, sizeof s2,
                 "@triton.jit\n"
                 "def k(ph: *fp16, pb: *bf16, pc: *i8):\n"
                 "    o = tl.arange(0, 4)\n"
                 "    h = tl.load(ph + o)\n"
                 "    b = tl.load(pb + o)\n"
                 "    c = tl.load(pc + o)\n"
                 "    tl.static_assert((%s).dtype == tl.%s, 'wrong dtype')\n",
                 cases[c].expr, cases[c].want);
        nr_module *m = NULL;
        nr_compile_options o = {0};
        nr_status st2 = nr_compile_source(ctx, s2, strlen(s2), "test.nr", &o, &m);
        if (st2 == NR_OK) nr_module_destroy(m);
        CHECK(st2 == NR_OK, "%s should be %s: %s", cases[c].expr, cases[c].want,
              nr_last_error(ctx));
    }
}

/* the standard library: softmax and sigmoid on blocks, cdiv on constexprs */
static void test_stdlib(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp32, out: *fp32):\n"
                      "    o = tl.arange(0, 16)\n"
                      "    v = tl.load(x + o)\n"
                      "    tl.store(out + o, tl.softmax(v))\n"
                      "    tl.store(out + 16 + o, tl.sigmoid(v))\n"
                      "    tl.store(out + 32 + o, tl.ravel(tl.reshape(v, (4, 4))))\n"
                      "    N: tl.constexpr = tl.cdiv(100, 16)\n"
                      "    tl.static_assert(N == 7)\n"
                      "    tl.store(out + 48, N)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    float x[16];
    for (int i = 0; i < 16; i++) x[i] = (float)(i % 5) * 0.75f - 1;
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 49 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout));
    float out[49];
    dev_to(out, dout, sizeof out);
    double mx = -INFINITY, den = 0;
    for (int i = 0; i < 16; i++) mx = fmax(mx, x[i]);
    for (int i = 0; i < 16; i++) den += exp(x[i] - mx);
    int bad = 0, bad2 = 0, bad3 = 0;
    for (int i = 0; i < 16; i++) {
        bad += !close_to(out[i], exp(x[i] - mx) / den, 1e-5);
        bad2 += !close_to(out[16 + i], 1 / (1 + exp(-(double)x[i])), 1e-5);
        bad3 += out[32 + i] != x[i];
    }
    CHECK(bad == 0, "softmax: %d wrong", bad);
    CHECK(bad2 == 0, "sigmoid: %d wrong", bad2);
    CHECK(bad3 == 0, "ravel: %d wrong", bad3);
    CHECK(out[48] == 7, "constexpr cdiv: %g", out[48]);
}

/* ---- dot ---- */

static void test_dot(void) {
    enum { M = 16, N = 32, K = 16 };
    const char *src = "@triton.jit\n"
                      "def k(a: *fp16, b: *fp16, c: *fp32, out: *fp32, M: tl.constexpr, N: "
                      "tl.constexpr, K: tl.constexpr):\n"
                      "    i = tl.arange(0, M)\n"
                      "    j = tl.arange(0, N)\n"
                      "    kk = tl.arange(0, K)\n"
                      "    A = tl.load(a + i[:, None] * K + kk[None, :])\n"
                      "    B = tl.load(b + kk[:, None] * N + j[None, :])\n"
                      "    C = tl.load(c + i[:, None] * N + j[None, :])\n"
                      "    o = i[:, None] * N + j[None, :]\n"
                      "    D = tl.dot(A, B, C)\n"
                      "    tl.static_assert(D.dtype == tl.float32)\n"
                      "    tl.store(out + o, D)\n"
                      "    tl.store(out + M * N + o, tl.dot(A, B))\n"
                      "    tl.store(out + 2 * M * N + o, tl.dot(A, B, acc=C) - C)\n"
                      "    Bt = tl.load(b + kk[None, :] * N + j[:, None])\n"
                      "    tl.store(out + 3 * M * N + o, tl.dot(A, tl.trans(Bt)))\n"
                      "    tl.store(out + 4 * M * N + o, A @ B)\n"
                      "    acc = tl.zeros((M, N), dtype=tl.float32)\n"
                      "    for s in range(2):\n"
                      "        acc += tl.dot(A, B)\n"
                      "    tl.store(out + 5 * M * N + o, acc)\n"
                      "    tl.store(out + 6 * M * N + o, tl.dot(A, B, C, input_precision='ieee', "
                      "out_dtype=tl.float32))\n";
    nr_kernel *k = BUILD(src, "M=16 N=32 K=16");
    if (!k) return;
    static uint16_t a[M * K], b[K * N];
    static float av[M * K], bv[K * N], c[M * N], out[7 * M * N];
    for (int i = 0; i < M * K; i++) av[i] = (float)rnd(-8, 8) / 4, a[i] = h16(av[i]);
    for (int i = 0; i < K * N; i++) bv[i] = (float)rnd(-8, 8) / 4, b[i] = h16(bv[i]);
    for (int i = 0; i < M * N; i++) c[i] = (float)rnd(-64, 64) / 8;
    nr_devptr da = dev_from(a, sizeof a), db = dev_from(b, sizeof b), dc = dev_from(c, sizeof c),
              dout = dev_from(NULL, sizeof out);
    RUN(k, 1, 1, 1, nr_arg_ptr(da), nr_arg_ptr(db), nr_arg_ptr(dc), nr_arg_ptr(dout));
    dev_to(out, dout, sizeof out);
    int bad[7] = {0};
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0; /* products of quarters are exact and so are these sums */
            for (int kk = 0; kk < K; kk++) s += av[i * K + kk] * bv[kk * N + j];
            int o = i * N + j;
            bad[0] += out[o] != c[o] + s;
            bad[1] += out[M * N + o] != s;
            bad[2] += out[2 * M * N + o] != (c[o] + s) - c[o];
            bad[3] += out[3 * M * N + o] != s;
            bad[4] += out[4 * M * N + o] != s;
            bad[5] += out[5 * M * N + o] != s + s;
            bad[6] += out[6 * M * N + o] != c[o] + s;
        }
    static const char *what[] = {"dot(A, B, C)",
                                 "dot(A, B)",
                                 "dot(acc=C) - C",
                                 "dot(A, trans(Bt))",
                                 "A @ B",
                                 "acc += dot in a loop",
                                 "dot with input_precision/out_dtype"};
    for (int t = 0; t < 7; t++) CHECK(bad[t] == 0, "%s: %d of %d wrong", what[t], bad[t], M * N);

    /* inexact values: fp32 accumulation within a small tolerance of a double reference */
    const char *src2 = "@triton.jit\n"
                       "def k(a: *bf16, b: *bf16, x: *fp32, y: *fp32, i8a: *i8, i8b: *i8, out: "
                       "*fp32, oi: *i32, I8: tl.constexpr):\n"
                       "    i = tl.arange(0, 32)\n"
                       "    j = tl.arange(0, 16)\n"
                       "    A = tl.load(a + i[:, None] * 32 + i[None, :])\n"
                       "    B = tl.load(b + i[:, None] * 16 + j[None, :])\n"
                       "    o = i[:, None] * 16 + j[None, :]\n"
                       "    tl.store(out + o, tl.dot(A, B))\n"
                       "    X = tl.load(x + i[:, None] * 32 + i[None, :])\n"
                       "    Y = tl.load(y + i[:, None] * 16 + j[None, :])\n"
                       "    tl.store(out + 512 + o, tl.dot(X, Y, input_precision='ieee'))\n"
                       "    if I8:\n"
                       "        P = tl.load(i8a + i[:, None] * 32 + i[None, :])\n"
                       "        Q = tl.load(i8b + i[:, None] * 16 + j[None, :])\n"
                       "        R = tl.dot(P, Q)\n"
                       "        tl.static_assert(R.dtype == tl.int32)\n"
                       "        tl.store(oi + o, R)\n";
    k = BUILD(src2, "I8=False");
    nr_kernel *k8 =
        BUILD(src2, "I8=True"); /* bug: sema accepts an i8 dot that the IR verifier rejects */
    if (!k) return;
    static uint16_t ab[32 * 32], bb[32 * 16];
    static float xa[32 * 32], yb[32 * 16], out2[1024];
    static int8_t pa[32 * 32], qb[32 * 16];
    static int32_t oi[512];
    for (int i = 0; i < 32 * 32; i++) {
        ab[i] = hbf((double)rnd(-1000, 1000) / 337.0);
        xa[i] = (float)rnd(-1000, 1000) / 337.0f;
        pa[i] = (int8_t)rnd(-128, 127);
    }
    for (int i = 0; i < 32 * 16; i++) {
        bb[i] = hbf((double)rnd(-1000, 1000) / 291.0);
        yb[i] = (float)rnd(-1000, 1000) / 291.0f;
        qb[i] = (int8_t)rnd(-128, 127);
    }
    nr_devptr dab = dev_from(ab, sizeof ab), dbb = dev_from(bb, sizeof bb),
              dxa = dev_from(xa, sizeof xa), dyb = dev_from(yb, sizeof yb),
              dpa = dev_from(pa, sizeof pa), dqb = dev_from(qb, sizeof qb),
              do2 = dev_from(NULL, sizeof out2), doi = dev_from(NULL, sizeof oi);
    RUN(k, 1, 1, 1, nr_arg_ptr(dab), nr_arg_ptr(dbb), nr_arg_ptr(dxa), nr_arg_ptr(dyb),
        nr_arg_ptr(dpa), nr_arg_ptr(dqb), nr_arg_ptr(do2), nr_arg_ptr(doi));
    dev_to(out2, do2, sizeof out2);
    if (k8) {
        RUN(k8, 1, 1, 1, nr_arg_ptr(dab), nr_arg_ptr(dbb), nr_arg_ptr(dxa), nr_arg_ptr(dyb),
            nr_arg_ptr(dpa), nr_arg_ptr(dqb), nr_arg_ptr(do2), nr_arg_ptr(doi));
        dev_to(oi, doi, sizeof oi);
    }
    int bbad = 0, fbad = 0, ibad = 0;
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 16; j++) {
            double s = 0, t = 0, mag = 0, tmag = 0;
            int64_t is = 0;
            for (int kk = 0; kk < 32; kk++) {
                double p = fbf(ab[i * 32 + kk]) * fbf(bb[kk * 16 + j]);
                s += p, mag += fabs(p);
                double q = (double)xa[i * 32 + kk] * yb[kk * 16 + j];
                t += q, tmag += fabs(q);
                is += pa[i * 32 + kk] * qb[kk * 16 + j];
            }
            bbad += fabs(out2[i * 16 + j] - s) > 1e-5 * mag + 1e-6;
            fbad += fabs(out2[512 + i * 16 + j] - t) > 1e-5 * tmag + 1e-6;
            ibad += oi[i * 16 + j] != is;
        }
    CHECK(bbad == 0, "bf16 dot: %d of 512 wrong", bbad);
    CHECK(fbad == 0, "fp32 dot (ieee): %d of 512 wrong", fbad);
    if (k8) CHECK(ibad == 0, "i8 dot in i32: %d of 512 wrong", ibad);
}

/* ---- shapes ---- */

static void test_shapes(void) {
    const char *src =
        "@triton.jit\n"
        "def k(x: *i32, out: *i32, s: i32):\n"
        "    i = tl.arange(0, 4)\n"
        "    j = tl.arange(0, 8)\n"
        "    a = tl.load(x + i[:, None] * 8 + j[None, :])\n"
        "    t = tl.trans(a)\n"
        "    tl.static_assert(t.shape == (8, 4))\n"
        "    tl.store(out + j[:, None] * 4 + i[None, :], t)\n"
        "    r = tl.reshape(a, (32,))\n"
        "    tl.store(out + 32 + tl.arange(0, 32), r)\n"
        "    r2 = tl.reshape(a, 8, 4)\n"
        "    tl.store(out + 64 + j[:, None] * 4 + i[None, :], r2)\n"
        "    b = tl.broadcast_to(tl.load(x + j)[None, :], (4, 8))\n"
        "    tl.store(out + 96 + i[:, None] * 8 + j[None, :], b)\n"
        "    e = tl.expand_dims(tl.load(x + j), 0)\n"
        "    tl.static_assert(e.shape == (1, 8))\n"
        "    e1 = tl.expand_dims(tl.load(x + j), 1)\n"
        "    tl.store(out + 128 + j[:, None], e1 * 2)\n"
        "    z = tl.zeros([4, 8], dtype=tl.int32) + e\n"
        "    tl.store(out + 136 + i[:, None] * 8 + j[None, :], z)\n"
        "    f = tl.full((4,), 7, tl.int32)\n"
        "    tl.store(out + 168 + i, f)\n"
        "    zl = tl.zeros_like(a) + 3\n"
        "    tl.static_assert(zl.dtype == tl.int32)\n"
        "    tl.store(out + 172 + i[:, None] * 8 + j[None, :], zl)\n"
        "    a3 = tl.reshape(a, (2, 2, 8))\n"
        "    p = tl.permute(a3, (2, 0, 1))\n"
        "    tl.static_assert(p.shape == (8, 2, 2))\n"
        "    tl.store(out + 204 + tl.reshape(tl.arange(0, 32), (8, 2, 2)), p)\n"
        "    tl.store(out + 236 + i, tl.full([4], s, tl.int32))\n"
        "    bb, cc = tl.broadcast(e1, e)\n"
        "    tl.static_assert(bb.shape == (8, 8))\n"
        "    tl.store(out + 240 + j[:, None] * 8 + j[None, :], bb * 100 + cc)\n"
        "    tl.store(out + 304 + j[:, None] * 4 + i[None, :], a.T)\n"
        "    ed = tl.expand_dims(a, (0, 3))\n"
        "    tl.static_assert(ed.shape == (1, 4, 8, 1))\n"
        "    tl.store(out + 336 + tl.arange(0, 32), tl.reshape(ed, 32))\n"
        "    tl.store(out + 368 + tl.arange(0, 32), a.reshape(32) * a.numel + len(a.shape))\n"
        "    tl.store(out + 400 + i, tl.full([4], 2.9, tl.int32) + tl.zeros([4], tl.int32))\n"
        "    tl.store(out + 404 + j[:, None] * 4 + i[None, :], tl.view(a, (8, 4)))\n"
        "    tl.store(out + 436 + j[:, None] + i[None, :] * 8, tl.trans(a, (1, 0)))\n"
        "    sc = tl.reshape(tl.full([1], s, tl.int32), (1, 1))\n"
        "    tl.store(out + 468 + tl.zeros([1, 1], tl.int32), sc)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    int32_t x[32];
    for (int n = 0; n < 32; n++) x[n] = n * 3 + 1;
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 469 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_i32(-42));
    static int32_t out[469];
    dev_to(out, dout, sizeof out);
    int bad[16] = {0};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) {
            bad[0] += out[j * 4 + i] != x[i * 8 + j];        /* trans */
            bad[3] += out[96 + i * 8 + j] != x[j];           /* broadcast_to */
            bad[4] += out[136 + i * 8 + j] != x[j];          /* zeros + expand_dims */
            bad[5] += out[172 + i * 8 + j] != 3;             /* zeros_like */
            bad[8] += out[304 + j * 4 + i] != x[i * 8 + j];  /* .T */
            bad[12] += out[436 + j + i * 8] != x[i * 8 + j]; /* trans with dims */
        }
    for (int n = 0; n < 32; n++) {
        bad[1] += out[32 + n] != x[n];  /* reshape to 1-D */
        bad[2] += out[64 + n] != x[n];  /* reshape to 8x4 is row-major */
        bad[9] += out[336 + n] != x[n]; /* expand_dims twice then reshape */
        bad[10] += out[368 + n] != x[n] * 32 + 2;
        bad[11] += out[404 + n] != x[n];
    }
    for (int j = 0; j < 8; j++) {
        bad[6] += out[128 + j] != 2 * x[j];
        for (int u = 0; u < 2; u++)
            for (int v = 0; v < 2; v++)
                bad[7] += out[204 + j * 4 + u * 2 + v] != x[(u * 2 + v) * 8 + j];
        for (int q = 0; q < 8; q++) bad[13] += out[240 + j * 8 + q] != x[j] * 100 + x[q];
    }
    for (int i = 0; i < 4; i++) {
        bad[14] += out[168 + i] != 7 || out[236 + i] != -42;
        bad[15] += out[400 + i] != 2;
    }
    static const char *what[] = {"trans",
                                 "reshape (32,)",
                                 "reshape 8x4",
                                 "broadcast_to",
                                 "zeros + expand_dims(0)",
                                 "zeros_like",
                                 "expand_dims(1)",
                                 "permute (2, 0, 1)",
                                 ".T",
                                 "expand_dims((0, 3))",
                                 "numel / len(shape)",
                                 "view",
                                 "trans((1, 0))",
                                 "broadcast",
                                 "full",
                                 "full(2.9, int32)"};
    for (int t = 0; t < 16; t++) CHECK(bad[t] == 0, "%s: %d wrong", what[t], bad[t]);
    CHECK(out[468] == -42, "reshape of a full scalar block: %d", out[468]);
}

/* rank-3 blocks: reductions along each axis, keep_dims, trans with varargs, indexing with
 * None in several places; i1 blocks from full / zeros; other=-inf for fp16 loads */
static void test_rank3(void) {
    const char *src =
        "@triton.jit\n"
        "def k(x: *i32, out: *i32, ob: *i1, oh: *fp16):\n"
        "    i = tl.arange(0, 2)\n"
        "    j = tl.arange(0, 4)\n"
        "    q = tl.arange(0, 8)\n"
        "    a = tl.load(x + i[:, None, None] * 32 + j[None, :, None] * 8 + q[None, None, :])\n"
        "    tl.store(out + j[:, None] * 8 + q[None, :], tl.sum(a, axis=0))\n"
        "    tl.store(out + 32 + i[:, None] * 8 + q[None, :], tl.max(a, axis=1))\n"
        "    tl.store(out + 48 + i[:, None] * 4 + j[None, :], tl.argmin(a, axis=2))\n"
        "    s = tl.sum(a, 1, keep_dims=True)\n"
        "    tl.static_assert(s.shape == (2, 1, 8))\n"
        "    tl.store(out + 56 + i[:, None, None] * 8 + q[None, None, :], s)\n"
        "    e = tl.expand_dims(q, -1)\n"
        "    tl.static_assert(e.shape == (8, 1))\n"
        "    n = q[None]\n"
        "    tl.static_assert(n.shape == (1, 8))\n"
        "    t = tl.trans(a, 2, 0, 1)\n"
        "    tl.static_assert(t.shape == (8, 2, 4))\n"
        "    tl.store(out + 72 + q[:, None, None] * 8 + i[None, :, None] * 4 + j[None, None, :], "
        "t)\n"
        "    b = tl.full([4], True, tl.int1)\n"
        "    z = tl.zeros([4], dtype=tl.int1)\n"
        "    tl.store(ob + j, b & ~z & (j != 2))\n"
        "    h = tl.load(oh + j, mask=j < 2, other=float('-inf'))\n"
        "    tl.store(oh + 4 + j, h)\n"
        "    tl.store(out + 136, tl.max(q > 3).to(tl.int32))\n"
        "    tl.store(out + 137, tl.sum(tl.broadcast_to(q[None, :], (4, 8))))\n"
        "    tl.store(out + 138 + e * 0 + n, e + n * 10)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    int32_t x[64];
    for (int n = 0; n < 64; n++) x[n] = (n * 29) % 23 - 11;
    uint16_t h[8] = {h16(1.5), h16(-2.0), h16(7.0), h16(8.0), 0, 0, 0, 0};
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 146 * 4), dob = dev_from(NULL, 4),
              doh = dev_from(h, sizeof h);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_ptr(dob), nr_arg_ptr(doh));
    int32_t out[146];
    uint8_t ob[4];
    uint16_t oh[8];
    dev_to(out, dout, sizeof out);
    dev_to(ob, dob, sizeof ob);
    dev_to(oh, doh, sizeof oh);
#define X3(i, j, q) x[(i)*32 + (j)*8 + (q)]
    int bad[6] = {0};
    for (int j = 0; j < 4; j++)
        for (int q = 0; q < 8; q++) bad[0] += out[j * 8 + q] != X3(0, j, q) + X3(1, j, q);
    for (int i = 0; i < 2; i++)
        for (int q = 0; q < 8; q++) {
            int mx = X3(i, 0, q), s = 0;
            for (int j = 0; j < 4; j++) mx = X3(i, j, q) > mx ? X3(i, j, q) : mx, s += X3(i, j, q);
            bad[1] += out[32 + i * 8 + q] != mx;
            bad[3] += out[56 + i * 8 + q] != s;
        }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            int am = 0;
            for (int q = 1; q < 8; q++)
                if (X3(i, j, q) < X3(i, j, am)) am = q;
            bad[2] += out[48 + i * 4 + j] != am;
            for (int q = 0; q < 8; q++) bad[4] += out[72 + q * 8 + i * 4 + j] != X3(i, j, q);
        }
#undef X3
    for (int q = 0; q < 8; q++) bad[5] += out[138 + q] != 7 + q * 10;
    static const char *what[] = {"sum axis 0 of rank 3",    "max axis 1 of rank 3",
                                 "argmin axis 2 of rank 3", "sum keep_dims of rank 3",
                                 "trans(a, 2, 0, 1)",       "expand_dims(-1) + x[None]"};
    for (int t = 0; t < 6; t++) CHECK(bad[t] == 0, "%s: %d wrong", what[t], bad[t]);
    CHECK(ob[0] == 1 && ob[1] == 1 && ob[2] == 0 && ob[3] == 1, "i1 full/zeros: %d %d %d %d", ob[0],
          ob[1], ob[2], ob[3]);
    CHECK(oh[4] == h[0] && oh[5] == h[1] && oh[6] == 0xFC00 && oh[7] == 0xFC00,
          "fp16 load with other=-inf: %04x %04x %04x %04x", oh[4], oh[5], oh[6], oh[7]);
    CHECK(out[136] == 1, "max of an i1 block: %d", out[136]);
    CHECK(out[137] == 4 * 28, "sum of a broadcast block: %d", out[137]);
}

/* Special values, fp16 / bf16 arithmetic rounded after every op, umulhi (unsigned high
 * half, for i32 too), integer shifts. */
static void test_arith_details(void) {
    const char *src = "@triton.jit\n"
                      "def k(h: *fp16, b: *bf16, x: *fp32, u: *u32, s: *i32, out: *fp32, oh: "
                      "*fp16, obf: *bf16, oi: *i32):\n"
                      "    o = tl.arange(0, 4)\n"
                      "    hv = tl.load(h + o)\n"
                      "    tl.store(oh + o, hv + hv * 0.5 + 0.0009765625)\n"
                      "    tl.store(oh + 4 + o, (hv * hv - 1) * 3)\n"
                      "    bv = tl.load(b + o)\n"
                      "    tl.store(obf + o, bv + bv * 0.5 + 0.0078125)\n"
                      "    tl.store(obf + 4 + o, bv * bv)\n"
                      "    v = tl.load(x + o)\n"
                      "    tl.store(out + o, tl.log(v))\n"
                      "    tl.store(out + 4 + o, tl.sqrt(v))\n"
                      "    tl.store(out + 8 + o, tl.exp(v * 100))\n"
                      "    tl.store(out + 12 + o, 1.0 / v)\n"
                      "    uv = tl.load(u + o)\n"
                      "    sv = tl.load(s + o)\n"
                      "    tl.store(oi + o, tl.umulhi(uv, uv + 7).to(tl.int32, bitcast=True))\n"
                      "    tl.store(oi + 4 + o, tl.umulhi(sv, sv * 3 + 1))\n"
                      "    tl.store(oi + 8 + o, sv << 3)\n"
                      "    tl.store(oi + 12 + o, sv >> 2)\n"
                      "    tl.store(oi + 16 + o, (uv >> 28).to(tl.int32))\n"
                      "    tl.store(oi + 20 + o, -sv)\n"
                      "    tl.store(oi + 24 + o, ~sv)\n"
                      "    tl.store(oi + 28 + o, (-uv).to(tl.int32, bitcast=True))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    double hs[4] = {1.0009765625, 3.1416015625, -1000.5, 65000.0},
           bs[4] = {1.0078125, 3.140625, -1000.0, 3e38};
    uint16_t h[4], b[4];
    for (int i = 0; i < 4; i++) h[i] = h16(hs[i]), b[i] = hbf(bs[i]);
    float x[4] = {0.0f, -1.0f, 2.0f, INFINITY};
    uint32_t u[4] = {0xFFFFFFFFu, 0x80000000u, 12345678u, 0};
    int32_t sv[4] = {-1, INT32_MIN, 123456789, -7};
    nr_devptr dh = dev_from(h, sizeof h), db = dev_from(b, sizeof b), dx = dev_from(x, sizeof x),
              du = dev_from(u, sizeof u), ds = dev_from(sv, sizeof sv),
              dout = dev_from(NULL, 16 * 4), doh = dev_from(NULL, 16), dobf = dev_from(NULL, 16),
              doi = dev_from(NULL, 32 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dh), nr_arg_ptr(db), nr_arg_ptr(dx), nr_arg_ptr(du), nr_arg_ptr(ds),
        nr_arg_ptr(dout), nr_arg_ptr(doh), nr_arg_ptr(dobf), nr_arg_ptr(doi));
    float out[16];
    uint16_t oh[8], obf[8];
    int32_t oi[32];
    dev_to(out, dout, sizeof out);
    dev_to(oh, doh, sizeof oh);
    dev_to(obf, dobf, sizeof obf);
    dev_to(oi, doi, sizeof oi);
    for (int i = 0; i < 4; i++) {
        double hv = f16(h[i]), bv = fbf(b[i]);
        double e1 = r16(r16(hv + r16(hv * 0.5)) + 0.0009765625),
               e2 = r16(r16(r16(hv * hv) - 1) * 3);
        CHECK(oh[i] == h16(e1) || (isinf(e1) && oh[i] == h16(e1)),
              "fp16 chain at %d: %04x, want %04x", i, oh[i], h16(e1));
        CHECK(oh[4 + i] == h16(e2), "fp16 (h*h-1)*3 at %d: %04x, want %04x", i, oh[4 + i], h16(e2));
        double b1 = rbf(rbf(bv + rbf(bv * 0.5)) + 0.0078125), b2 = rbf(bv * bv);
        CHECK(obf[i] == hbf(b1), "bf16 chain at %d: %04x, want %04x", i, obf[i], hbf(b1));
        CHECK(obf[4 + i] == hbf(b2), "bf16 b*b at %d: %04x, want %04x", i, obf[4 + i], hbf(b2));
        uint32_t uu = u[i] + 7u;
        CHECK((uint32_t)oi[i] == (uint32_t)(((uint64_t)u[i] * uu) >> 32), "umulhi u32 at %d: %08x",
              i, (uint32_t)oi[i]);
        uint32_t s3 = (uint32_t)sv[i] * 3u + 1u;
        CHECK((uint32_t)oi[4 + i] == (uint32_t)(((uint64_t)(uint32_t)sv[i] * s3) >> 32),
              "umulhi i32 (unsigned) at %d: %08x", i, (uint32_t)oi[4 + i]);
        CHECK(oi[8 + i] == (int32_t)((uint32_t)sv[i] << 3), "i32 << 3 at %d: %d", i, oi[8 + i]);
        CHECK(oi[12 + i] == (sv[i] < 0 ? ~(~sv[i] >> 2) : sv[i] >> 2), "i32 >> 2 at %d: %d", i,
              oi[12 + i]);
        CHECK(oi[16 + i] == (int32_t)(u[i] >> 28), "u32 >> 28 at %d: %d", i, oi[16 + i]);
        CHECK(oi[20 + i] == (int32_t)(0u - (uint32_t)sv[i]), "-i32 at %d: %d", i, oi[20 + i]);
        CHECK(oi[24 + i] == ~sv[i], "~i32 at %d: %d", i, oi[24 + i]);
        CHECK((uint32_t)oi[28 + i] == 0u - u[i], "-u32 at %d: %u", i, (uint32_t)oi[28 + i]);
    }
    CHECK(isinf(out[0]) && out[0] < 0 && isnan(out[1]) && out[3] == INFINITY,
          "log(0), log(-1), log(inf): %g %g %g", out[0], out[1], out[3]);
    CHECK(out[4] == 0 && isnan(out[5]) && out[7] == INFINITY,
          "sqrt(0), sqrt(-1), sqrt(inf): %g %g %g", out[4], out[5], out[7]);
    CHECK(out[8] == 1 && out[10] == INFINITY && isnan(out[11]) == 0, "exp(0), exp(200): %g %g %g",
          out[8], out[10], out[11]);
    CHECK(out[12] == INFINITY && out[13] == -1 && out[15] == 0, "1 / 0, 1 / -1, 1 / inf: %g %g %g",
          out[12], out[13], out[15]);
}

/* An online-softmax attention kernel (as in Triton's fused attention tutorial): blocks
 * carried through the loop (max, sum, accumulator), dot with trans, exp2, rescaling,
 * fp16 probabilities into a second dot. Checked against a double reference. */
static void test_attention(void) {
    enum { M = 16, D = 16, N = 64, BN = 16 };
    const char *src =
        "@triton.jit\n"
        "def k(q: *fp16, kp: *fp16, v: *fp16, out: *fp32, sm_scale: fp32, n_ctx: i32,\n"
        "      M: tl.constexpr, D: tl.constexpr, BN: tl.constexpr):\n"
        "    offs_m = tl.arange(0, M)\n"
        "    offs_d = tl.arange(0, D)\n"
        "    offs_n = tl.arange(0, BN)\n"
        "    Q = tl.load(q + offs_m[:, None] * D + offs_d[None, :])\n"
        "    m_i = tl.zeros([M], dtype=tl.float32) - float('inf')\n"
        "    l_i = tl.zeros([M], dtype=tl.float32) + 1.0\n"
        "    acc = tl.zeros([M, D], dtype=tl.float32)\n"
        "    qk_scale = sm_scale * 1.44269504\n"
        "    for start in range(0, n_ctx, BN):\n"
        "        K = tl.load(kp + (start + offs_n)[:, None] * D + offs_d[None, :])\n"
        "        qk = tl.dot(Q, tl.trans(K))\n"
        "        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)\n"
        "        qk = qk * qk_scale - m_ij[:, None]\n"
        "        p = tl.math.exp2(qk)\n"
        "        l_ij = tl.sum(p, 1)\n"
        "        alpha = tl.math.exp2(m_i - m_ij)\n"
        "        l_i = l_i * alpha + l_ij\n"
        "        acc = acc * alpha[:, None]\n"
        "        V = tl.load(v + (start + offs_n)[:, None] * D + offs_d[None, :])\n"
        "        acc = tl.dot(p.to(tl.float16), V, acc)\n"
        "        m_i = m_ij\n"
        "    acc = acc / l_i[:, None]\n"
        "    tl.store(out + offs_m[:, None] * D + offs_d[None, :], acc)\n";
    nr_kernel *k = BUILD(src, "M=16 D=16 BN=16");
    if (!k) return;
    static uint16_t qh[M * D], kh[N * D], vh[N * D];
    static float out[M * D];
    for (int i = 0; i < M * D; i++) qh[i] = h16(rnd(-100, 100) / 100.0);
    for (int i = 0; i < N * D; i++)
        kh[i] = h16(rnd(-100, 100) / 100.0), vh[i] = h16(rnd(-100, 100) / 50.0);
    nr_devptr dq = dev_from(qh, sizeof qh), dk = dev_from(kh, sizeof kh),
              dv = dev_from(vh, sizeof vh), dout = dev_from(NULL, sizeof out);
    const float scale = 0.25f;
    RUN(k, 1, 1, 1, nr_arg_ptr(dq), nr_arg_ptr(dk), nr_arg_ptr(dv), nr_arg_ptr(dout),
        nr_arg_f32(scale), nr_arg_i32(N));
    dev_to(out, dout, sizeof out);
    int bad = 0;
    double worst = 0;
    for (int i = 0; i < M; i++) {
        double s[N], mx = -INFINITY, den = 0;
        for (int j = 0; j < N; j++) {
            s[j] = 0;
            for (int d = 0; d < D; d++) s[j] += f16(qh[i * D + d]) * f16(kh[j * D + d]);
            s[j] *= scale;
            mx = fmax(mx, s[j]);
        }
        for (int j = 0; j < N; j++) den += exp(s[j] - mx);
        for (int d = 0; d < D; d++) {
            double o = 0;
            for (int j = 0; j < N; j++) o += exp(s[j] - mx) / den * f16(vh[j * D + d]);
            double err = fabs(out[i * D + d] - o);
            worst = fmax(worst, err);
            bad += !(err <=
                     2e-3 * 2.0 + 1e-3 * fabs(o)); /* p is rounded to fp16 before the second dot */
        }
    }
    CHECK(bad == 0, "online-softmax attention: %d of %d beyond tolerance (worst %g)", bad, M * D,
          worst);
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) {
        printf("no CPU context\n");
        return 1;
    }
    test_reductions();
    test_math();
    test_select_minmax();
    test_minmax_types();
    test_stdlib();
    test_dot();
    test_shapes();
    test_rank3();
    test_arith_details();
    test_attention();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang2", &st);
}
