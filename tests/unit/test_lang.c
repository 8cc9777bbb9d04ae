/* test_lang.c - the language's semantics run end to end (parse, sema, lowering, passes,
 * CPU interpreter): Triton's type promotion (weak Python scalars, computation types,
 * true division, casts), integer division at run time (C) and at compile time (Python),
 * broadcasting, memory (masks, scalar accesses, every pointer element type, atomics,
 * out-of-bounds accesses, device_assert, hints), grids and module-level constants.
 * Each kernel runs on small data and is checked against values computed here in C.
 * Triton 3.x is the specification. Reductions, math, dot and shapes are in
 * test_lang2.c; control flow and helpers in test_lang3.c. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nereid.h"

#include "lang_harness.h"

/* ---- helpers of this file ---- */

static int32_t wrap32(int64_t x) { return (int32_t)(uint32_t)(uint64_t)x; }

/* ---- type promotion ---- */

/* An i32 block with a Python int stays i32 (it wraps in 32 bits). */
static void test_weak_int(void) {
    const char *src = "import triton.language as tl\n"
                      "@triton.jit\n"
                      "def k(x: *i32, out: *i64):\n"
                      "    offs = tl.arange(0, 4)\n"
                      "    v = tl.load(x + offs)\n"
                      "    y = v + 1\n"
                      "    tl.static_assert(y.dtype == tl.int32)\n"
                      "    z = 3 * v\n"
                      "    tl.static_assert(z.dtype == tl.int32)\n"
                      "    tl.store(out + offs, y)\n"
                      "    tl.store(out + 4 + offs, z)\n"
                      "    tl.store(out + 8 + offs, v - 2147483647)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    int32_t x[4] = {INT32_MAX, -5, 0, 1000000000};
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 12 * 8);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout));
    int64_t out[12];
    dev_to(out, dout, sizeof out);
    for (int i = 0; i < 4; i++) {
        CHECK(out[i] == wrap32((int64_t)x[i] + 1), "i32 + 1 at %d: %lld", i, (long long)out[i]);
        CHECK(out[4 + i] == wrap32(3 * (int64_t)x[i]), "3 * i32 at %d: %lld", i,
              (long long)out[4 + i]);
        CHECK(out[8 + i] == wrap32((int64_t)x[i] - 2147483647), "i32 - 2147483647 at %d: %lld", i,
              (long long)out[8 + i]);
    }
}

/* fp16 blocks with Python floats stay fp16; with an fp32 runtime scalar they become fp32. */
static void test_weak_float(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp16, out: *fp32, s: fp32):\n"
                      "    offs = tl.arange(0, 4)\n"
                      "    v = tl.load(x + offs)\n"
                      "    y = v * 2.5\n"
                      "    tl.static_assert(y.dtype == tl.float16)\n"
                      "    tl.store(out + offs, y)\n"
                      "    w = v + 1\n"
                      "    tl.static_assert(w.dtype == tl.float16)\n"
                      "    tl.store(out + 4 + offs, w)\n"
                      "    r = v * s\n"
                      "    tl.static_assert(r.dtype == tl.float32)\n"
                      "    tl.store(out + 8 + offs, r)\n"
                      "    i = offs * 0.5\n"
                      "    tl.static_assert(i.dtype == tl.float32)\n"
                      "    tl.store(out + 12 + offs, i)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    double xs[4] = {1.0009765625, 3.0, 1000.5, 0.1};
    uint16_t x[4];
    for (int i = 0; i < 4; i++) x[i] = h16(xs[i]);
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 16 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_f32(2.5f));
    float out[16];
    dev_to(out, dout, sizeof out);
    for (int i = 0; i < 4; i++) {
        double v = f16(x[i]);
        CHECK(out[i] == (float)r16(v * 2.5), "fp16 * 2.5 at %d: %.9g, want %.9g", i, out[i],
              r16(v * 2.5));
        CHECK(out[4 + i] == (float)r16(v + 1), "fp16 + 1 at %d: %.9g, want %.9g", i, out[4 + i],
              r16(v + 1));
        CHECK(out[8 + i] == (float)v * 2.5f, "fp16 * fp32 scalar at %d: %.9g, want %.9g", i,
              out[8 + i], (float)v * 2.5f);
        CHECK(out[12 + i] == 0.5f * (float)i, "i32 block * 0.5 at %d: %.9g", i, out[12 + i]);
    }
}

/* i8 arithmetic with a Python int wraps in 8 bits; a Python int that does not fit in i8
 * is an error in Triton 3.x ("Scalar 300 is out of range for type int8"). */
static void test_small_ints(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *i8, u: *u8, out: *i32):\n"
                      "    offs = tl.arange(0, 4)\n"
                      "    v = tl.load(x + offs)\n"
                      "    y = v + 100\n"
                      "    tl.static_assert(y.dtype == tl.int8)\n"
                      "    tl.store(out + offs, y)\n"
                      "    z = v * 2\n"
                      "    tl.store(out + 4 + offs, z.to(tl.int32))\n"
                      "    w = tl.load(u + offs)\n"
                      "    tl.store(out + 8 + offs, (w + 1).to(tl.int32))\n"
                      "    tl.store(out + 12 + offs, (w * 2).to(tl.int32))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (k) {
        int8_t x[4] = {100, -100, 27, 28};
        uint8_t u[4] = {255, 0, 7, 128};
        nr_devptr dx = dev_from(x, sizeof x), du = dev_from(u, sizeof u),
                  dout = dev_from(NULL, 16 * 4);
        RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(du), nr_arg_ptr(dout));
        int32_t out[16];
        dev_to(out, dout, sizeof out);
        for (int i = 0; i < 4; i++) {
            CHECK(out[i] == (int8_t)(uint8_t)(x[i] + 100), "i8 + 100 at %d: %d", i, out[i]);
            CHECK(out[4 + i] == (int8_t)(uint8_t)(x[i] * 2), "i8 * 2 at %d: %d", i, out[4 + i]);
            /* Triton 3.x: kinds are bool < int < float, so a Python int does not widen a u8 block
             */
            CHECK(out[8 + i] == (uint8_t)(u[i] + 1), "u8 + 1 stays u8 at %d: %d, want %d", i,
                  out[8 + i], (uint8_t)(u[i] + 1));
            CHECK(out[12 + i] == (uint8_t)(u[i] * 2), "u8 * 2 stays u8 at %d: %d, want %d", i,
                  out[12 + i], (uint8_t)(u[i] * 2));
        }
    }
    const char *dt_src = "@triton.jit\n"
                         "def k(u: *u8, out: *i32):\n"
                         "    w = tl.load(u + tl.arange(0, 4)) + 1\n"
                         "    tl.static_assert(w.dtype == tl.uint8)\n"
                         "    tl.store(out + tl.arange(0, 4), w)\n";
    BUILD(dt_src, NULL);
    const char *bad = "@triton.jit\n"
                      "def k(x: *i8):\n"
                      "    v = tl.load(x + tl.arange(0, 4))\n"
                      "    tl.store(x + tl.arange(0, 4), v + 300)\n";
    COMPILE_ERROR(bad, NULL, "300");
    const char *bad2 = "@triton.jit\n"
                       "def k(x: *i32):\n"
                       "    v = tl.load(x + tl.arange(0, 4))\n"
                       "    tl.store(x + tl.arange(0, 4), v + 2**40)\n";
    COMPILE_ERROR(bad2, NULL, NULL);
}

/* / is true division: fp16 / fp16 and int / int give fp32; % on fp16 gives fp32 (fmod). */
static void test_true_div(void) {
    const char *src = "@triton.jit\n"
                      "def k(a: *fp16, b: *fp16, ia: *i32, ib: *i32, out: *fp32):\n"
                      "    offs = tl.arange(0, 4)\n"
                      "    x = tl.load(a + offs)\n"
                      "    y = tl.load(b + offs)\n"
                      "    q = x / y\n"
                      "    tl.static_assert(q.dtype == tl.float32)\n"
                      "    tl.store(out + offs, q)\n"
                      "    i = tl.load(ia + offs)\n"
                      "    j = tl.load(ib + offs)\n"
                      "    r = i / j\n"
                      "    tl.static_assert(r.dtype == tl.float32)\n"
                      "    tl.store(out + 4 + offs, r)\n"
                      "    tl.store(out + 8 + offs, i / 2)\n"
                      "    h = x / 2.0\n"
                      "    tl.static_assert(h.dtype == tl.float32)\n"
                      "    tl.store(out + 12 + offs, h)\n"
                      "    m = x % y\n"
                      "    tl.static_assert(m.dtype == tl.float32)\n"
                      "    tl.store(out + 16 + offs, m)\n"
                      "    tl.store(out + 20 + offs, 1 / x)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    uint16_t a[4] = {h16(1.0), h16(-7.0), h16(1000.0), h16(5.5)},
             b[4] = {h16(3.0), h16(2.0), h16(7.0), h16(-2.0)};
    int32_t ia[4] = {7, -7, 16777217, 1}, ib[4] = {2, 2, 1, 3};
    nr_devptr da = dev_from(a, sizeof a), db = dev_from(b, sizeof b), dia = dev_from(ia, sizeof ia),
              dib = dev_from(ib, sizeof ib), dout = dev_from(NULL, 24 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(da), nr_arg_ptr(db), nr_arg_ptr(dia), nr_arg_ptr(dib),
        nr_arg_ptr(dout));
    float out[24];
    dev_to(out, dout, sizeof out);
    for (int i = 0; i < 4; i++) {
        float x = (float)f16(a[i]), y = (float)f16(b[i]);
        CHECK(out[i] == x / y, "fp16 / fp16 at %d: %.9g, want %.9g", i, out[i], x / y);
        CHECK(out[4 + i] == (float)ia[i] / (float)ib[i], "i32 / i32 at %d: %.9g", i, out[4 + i]);
        CHECK(out[8 + i] == (float)ia[i] / 2.0f, "i32 / 2 at %d: %.9g", i, out[8 + i]);
        CHECK(out[12 + i] == x / 2.0f, "fp16 / 2.0 at %d: %.9g", i, out[12 + i]);
        CHECK(out[16 + i] == fmodf(x, y), "fp16 %% fp16 at %d: %.9g, want %.9g", i, out[16 + i],
              fmodf(x, y));
        CHECK(out[20 + i] == 1.0f / x, "1 / fp16 at %d: %.9g, want %.9g", i, out[20 + i], 1.0f / x);
    }
}

/* Mixed signedness: u32 with i32 is u32 (C's usual conversions); i64 with u32 is i64. */
static void test_signedness(void) {
    const char *src =
        "@triton.jit\n"
        "def k(u: *u32, i: *i32, out: *i32):\n"
        "    offs = tl.arange(0, 4)\n"
        "    a = tl.load(u + offs)\n"
        "    b = tl.load(i + offs)\n"
        "    s = a + b\n"
        "    tl.static_assert(s.dtype == tl.uint32)\n"
        "    tl.store(out + offs, (s > 5).to(tl.int32))\n"
        "    tl.store(out + 4 + offs, (a < b).to(tl.int32))\n"
        "    tl.store(out + 8 + offs, (s >> 1).to(tl.int32, bitcast=True))\n"
        "    c = b.to(tl.int64) + a\n"
        "    tl.static_assert(c.dtype == tl.int64)\n"
        "    tl.store(out + 12 + offs, (c < 0).to(tl.int32))\n"
        "    three = tl.full([4], 3, tl.uint32)\n"
        "    tl.store(out + 16 + offs, (a // three).to(tl.int32, bitcast=True))\n"
        "    tl.store(out + 20 + offs, (a % (three + 7)).to(tl.int32, bitcast=True))\n"
        "    tl.store(out + 24 + offs, b >> 1)\n"
        "    tl.store(out + 28 + offs, (a.to(tl.float32) / 4294967296.0 > 0.5).to(tl.int32))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    uint32_t u[4] = {0, 1, 0xFFFFFFFFu, 7};
    int32_t iv[4] = {-1, -1, 1, -10};
    nr_devptr du = dev_from(u, sizeof u), di = dev_from(iv, sizeof iv),
              dout = dev_from(NULL, 32 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(du), nr_arg_ptr(di), nr_arg_ptr(dout));
    int32_t out[32];
    dev_to(out, dout, sizeof out);
    for (int i = 0; i < 4; i++) {
        uint32_t s = u[i] + (uint32_t)iv[i];
        CHECK(out[i] == (s > 5u), "u32 + i32 > 5 at %d: %d", i, out[i]);
        CHECK(out[4 + i] == (u[i] < (uint32_t)iv[i]), "u32 < i32 (unsigned) at %d: %d", i,
              out[4 + i]);
        CHECK(out[8 + i] == (int32_t)(s >> 1), "u32 >> 1 (logical) at %d: %d", i, out[8 + i]);
        CHECK(out[12 + i] == ((int64_t)iv[i] + (int64_t)u[i] < 0), "i64 + u32 at %d: %d", i,
              out[12 + i]);
        CHECK(out[16 + i] == (int32_t)(u[i] / 3u), "u32 // 3 at %d: %d", i, out[16 + i]);
        CHECK(out[20 + i] == (int32_t)(u[i] % 10u), "u32 %% 10 at %d: %d", i, out[20 + i]);
        CHECK(out[24 + i] == iv[i] >> 1, "i32 >> 1 (arithmetic) at %d: %d", i, out[24 + i]);
        CHECK(out[28 + i] == ((double)u[i] / 4294967296.0 > 0.5), "u32 -> fp32 unsigned at %d: %d",
              i, out[28 + i]);
    }
    /* a Python int is weak against a u32 block (Triton 3.x: same kind), so u32 // 3 is
     * u32 // u32, not a mixed-signedness error */
    const char *src2 = "@triton.jit\n"
                       "def k(u: *u32, out: *u32):\n"
                       "    offs = tl.arange(0, 4)\n"
                       "    a = tl.load(u + offs)\n"
                       "    tl.store(out + offs, a // 3)\n"
                       "    tl.store(out + 4 + offs, a % 10)\n";
    k = BUILD(src2, NULL);
    if (!k) return;
    nr_devptr dout2 = dev_from(NULL, 8 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(du), nr_arg_ptr(dout2));
    uint32_t out2[8];
    dev_to(out2, dout2, sizeof out2);
    for (int i = 0; i < 4; i++) {
        CHECK(out2[i] == u[i] / 3u, "u32 // 3 at %d: %u", i, out2[i]);
        CHECK(out2[4 + i] == u[i] % 10u, "u32 %% 10 at %d: %u", i, out2[4 + i]);
    }
}

/* Comparisons give i1; &, |, ^, ~ on i1 stay i1; i1 with i32 promotes to i32. */
static void test_bool_ops(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *i32, out: *i32):\n"
                      "    offs = tl.arange(0, 8)\n"
                      "    v = tl.load(x + offs)\n"
                      "    a = v > 2\n"
                      "    b = v < 6\n"
                      "    tl.static_assert(a.dtype == tl.int1)\n"
                      "    c = a & b\n"
                      "    tl.static_assert(c.dtype == tl.int1)\n"
                      "    tl.store(out + offs, c)\n"
                      "    tl.store(out + 8 + offs, (a | b).to(tl.int32))\n"
                      "    tl.store(out + 16 + offs, (a ^ b).to(tl.int32))\n"
                      "    tl.store(out + 24 + offs, (~a).to(tl.int32))\n"
                      "    d = a + v\n"
                      "    tl.static_assert(d.dtype == tl.int32)\n"
                      "    tl.store(out + 32 + offs, d)\n"
                      "    tl.store(out + 40 + offs, (a == b).to(tl.int32))\n"
                      "    tl.store(out + 48 + offs, tl.where(a != b, 1, 0))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    int32_t x[8] = {0, 1, 2, 3, 5, 6, 7, -4};
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 56 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout));
    int32_t out[56];
    dev_to(out, dout, sizeof out);
    for (int i = 0; i < 8; i++) {
        int a = x[i] > 2, b = x[i] < 6;
        CHECK(out[i] == (a & b), "and at %d: %d", i, out[i]);
        CHECK(out[8 + i] == (a | b), "or at %d: %d", i, out[8 + i]);
        CHECK(out[16 + i] == (a ^ b), "xor at %d: %d", i, out[16 + i]);
        CHECK(out[24 + i] == !a, "~i1 at %d: %d", i, out[24 + i]);
        CHECK(out[32 + i] == a + x[i], "i1 + i32 at %d: %d", i, out[32 + i]);
        CHECK(out[40 + i] == (a == b), "i1 == i1 at %d: %d", i, out[40 + i]);
        CHECK(out[48 + i] == (a != b), "where(i1 != i1) at %d: %d", i, out[48 + i]);
    }
}

/* .to(): fp32 -> fp16 / bf16 round to nearest even; -> int32 / int8 truncate and
 * saturate (NaN -> 0); bitcast reinterprets; int -> float; fp16 -> i16. */
static void test_casts(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp32, o16: *fp16, oi: *i32, ou: *u32, oi8: *i8, obf: *bf16, ou8: "
                      "*u8, of: *fp32):\n"
                      "    offs = tl.arange(0, 8)\n"
                      "    v = tl.load(x + offs)\n"
                      "    tl.store(o16 + offs, v.to(tl.float16))\n"
                      "    tl.store(oi + offs, v.to(tl.int32))\n"
                      "    tl.store(ou + offs, v.to(tl.uint32, bitcast=True))\n"
                      "    tl.store(oi8 + offs, v.to(tl.int8))\n"
                      "    tl.store(obf + offs, tl.cast(v, tl.bfloat16))\n"
                      "    tl.store(ou8 + offs, v.to(tl.uint8))\n"
                      "    back = v.to(tl.int32, bitcast=True).to(tl.float32, bitcast=True)\n"
                      "    tl.store(of + offs, back)\n"
                      "    tl.store(of + 8 + offs, v.to(tl.float16).to(tl.float32) - v)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    float x[8] = {1.00048828125f, 1.00146484375f, -2.7f, 3e9f, -3e9f, NAN, 65519.0f, 70000.0f};
    nr_devptr dx = dev_from(x, sizeof x), d16 = dev_from(NULL, 16), di = dev_from(NULL, 32),
              du = dev_from(NULL, 32), di8 = dev_from(NULL, 8), dbf = dev_from(NULL, 16),
              du8 = dev_from(NULL, 8), df = dev_from(NULL, 64);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(d16), nr_arg_ptr(di), nr_arg_ptr(du),
        nr_arg_ptr(di8), nr_arg_ptr(dbf), nr_arg_ptr(du8), nr_arg_ptr(df));
    uint16_t o16[8], obf[8];
    int32_t oi[8];
    uint32_t ou[8];
    int8_t oi8[8];
    uint8_t ou8[8];
    float of[16];
    dev_to(o16, d16, sizeof o16);
    dev_to(oi, di, sizeof oi);
    dev_to(ou, du, sizeof ou);
    dev_to(oi8, di8, sizeof oi8);
    dev_to(obf, dbf, sizeof obf);
    dev_to(ou8, du8, sizeof ou8);
    dev_to(of, df, sizeof of);
    for (int i = 0; i < 8; i++) {
        double v = x[i];
        if (isnan(v)) {
            CHECK(isnan(f16(o16[i])) && isnan(fbf(obf[i])), "NaN to fp16/bf16: %04x %04x", o16[i],
                  obf[i]);
            CHECK(oi[i] == 0 && oi8[i] == 0 && ou8[i] == 0, "NaN to ints: %d %d %d", oi[i], oi8[i],
                  ou8[i]);
        } else {
            CHECK(o16[i] == h16(v), "fp32 %.9g to fp16: %04x, want %04x", v, o16[i], h16(v));
            CHECK(obf[i] == hbf(v), "fp32 %.9g to bf16: %04x, want %04x", v, obf[i], hbf(v));
            double t = trunc(v);
            int32_t wi = t >= 2147483647.0    ? INT32_MAX
                         : t <= -2147483648.0 ? INT32_MIN
                                              : (int32_t)t;
            int8_t w8 = t >= 127 ? 127 : t <= -128 ? -128 : (int8_t)t;
            uint8_t wu8 = t >= 255 ? 255 : t <= 0 ? 0 : (uint8_t)t;
            CHECK(oi[i] == wi, "fp32 %.9g to i32: %d, want %d", v, oi[i], wi);
            CHECK(oi8[i] == w8, "fp32 %.9g to i8: %d, want %d", v, oi8[i], w8);
            CHECK(ou8[i] == wu8, "fp32 %.9g to u8: %d, want %d", v, ou8[i], wu8);
            float d = (float)(r16(v) - v);
            if (isinf(r16(v))) CHECK(isinf(of[8 + i]), "fp16 overflow %.9g", of[8 + i]);
            else
                CHECK(of[8 + i] == d, "fp16 round trip error of %.9g: %.9g, want %.9g", v,
                      of[8 + i], d);
        }
        uint32_t bits;
        memcpy(&bits, &x[i], 4);
        CHECK(ou[i] == bits, "bitcast fp32 -> u32 at %d: %08x, want %08x", i, ou[i], bits);
        CHECK(memcmp(&of[i], &x[i], 4) == 0, "bitcast round trip at %d", i);
    }
    /* specific ties: 1 + 2^-11 -> 1.0, 1 + 3*2^-11 -> 1 + 2^-9 */
    CHECK(o16[0] == 0x3C00 && o16[1] == 0x3C02, "fp16 ties to even: %04x %04x", o16[0], o16[1]);
    CHECK(o16[6] == 0x7BFF && o16[7] == 0x7C00, "fp16 65519 -> 65504, 70000 -> inf: %04x %04x",
          o16[6], o16[7]);

    const char *src2 = "@triton.jit\n"
                       "def k(x: *i32, y: *fp16, of: *fp32, oi: *i32):\n"
                       "    offs = tl.arange(0, 4)\n"
                       "    v = tl.load(x + offs)\n"
                       "    tl.store(of + offs, v.to(tl.float32))\n"
                       "    tl.store(of + 4 + offs, v.to(tl.float16).to(tl.float32))\n"
                       "    tl.store(of + 8 + offs, v.to(tl.uint32).to(tl.float32))\n"
                       "    h = tl.load(y + offs)\n"
                       "    tl.store(oi + offs, h.to(tl.int16).to(tl.int32))\n"
                       "    tl.store(oi + 4 + offs, h.to(tl.int16, bitcast=True).to(tl.int32))\n"
                       "    tl.store(oi + 8 + offs, v.to(tl.int8).to(tl.int32))\n"
                       "    tl.store(oi + 12 + offs, v.to(tl.uint8).to(tl.int32))\n"
                       "    tl.store(oi + 16 + offs, v.to(tl.int1).to(tl.int32))\n"
                       "    tl.store(oi + 20 + offs, h.to(tl.int1).to(tl.int32))\n";
    k = BUILD(src2, NULL);
    if (!k) return;
    int32_t xi[4] = {16777217, -300, 2049, -1};
    uint16_t yh[4] = {h16(-2.75), h16(1000.5), h16(0.0), h16(-0.5)};
    nr_devptr dxi = dev_from(xi, sizeof xi), dyh = dev_from(yh, sizeof yh),
              dof = dev_from(NULL, 12 * 4), doi = dev_from(NULL, 24 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dxi), nr_arg_ptr(dyh), nr_arg_ptr(dof), nr_arg_ptr(doi));
    float off[12];
    int32_t oii[24];
    dev_to(off, dof, sizeof off);
    dev_to(oii, doi, sizeof oii);
    for (int i = 0; i < 4; i++) {
        CHECK(off[i] == (float)xi[i], "i32 -> fp32 at %d: %.9g", i, off[i]);
        CHECK(off[4 + i] == (float)r16((double)xi[i]), "i32 -> fp16 at %d: %.9g, want %.9g", i,
              off[4 + i], r16(xi[i]));
        CHECK(off[8 + i] == (float)(uint32_t)xi[i], "i32 -> u32 -> fp32 at %d: %.9g", i,
              off[8 + i]);
        CHECK(oii[i] == (int32_t)trunc(f16(yh[i])), "fp16 -> i16 at %d: %d", i, oii[i]);
        CHECK(oii[4 + i] == (int16_t)yh[i], "fp16 bitcast i16 at %d: %d, want %d", i, oii[4 + i],
              (int16_t)yh[i]);
        CHECK(oii[8 + i] == (int8_t)(uint8_t)xi[i], "i32 -> i8 at %d: %d", i, oii[8 + i]);
        CHECK(oii[12 + i] == (uint8_t)xi[i], "i32 -> u8 at %d: %d", i, oii[12 + i]);
        CHECK(oii[16 + i] == (xi[i] != 0), "i32 -> i1 at %d: %d", i, oii[16 + i]);
        CHECK(oii[20 + i] == (f16(yh[i]) != 0), "fp16 -> i1 at %d: %d", i, oii[20 + i]);
    }
}

/* // and % on blocks and runtime scalars truncate (C); on constexprs they floor (Python). */
static void test_div_mod(void) {
    const char *src =
        "@triton.jit\n"
        "def k(a: *i32, b: *i32, out: *i32, s: i32, C1: tl.constexpr, C2: tl.constexpr):\n"
        "    offs = tl.arange(0, 8)\n"
        "    x = tl.load(a + offs)\n"
        "    y = tl.load(b + offs)\n"
        "    tl.store(out + offs, x // y)\n"
        "    tl.store(out + 8 + offs, x % y)\n"
        "    tl.store(out + 16 + offs, x // 2)\n"
        "    tl.store(out + 24 + offs, x % -3)\n"
        "    tl.store(out + 32, s // 2)\n"
        "    tl.store(out + 33, s % 2)\n"
        "    tl.store(out + 34, C1 // C2)\n"
        "    tl.store(out + 35, C1 % C2)\n"
        "    tl.store(out + 36, -7 // 2)\n"
        "    tl.store(out + 37, -7 % 2)\n"
        "    tl.store(out + 38, 7 // -2)\n"
        "    tl.store(out + 39, 7 % -2)\n"
        "    M: tl.constexpr = C1 // C2\n"
        "    tl.store(out + 40, M)\n"
        "    tl.store(out + 41, (C1 * 3) // 4)\n"
        "    tl.store(out + 42, s // C2)\n"
        "    tl.store(out + 43, s % C2)\n"
        "    tl.store(out + 44, C1 // s)\n"
        "    tl.store(out + 45, 2 ** 10 + (1 << 4) + (C1 >> 1))\n"
        "    tl.store(out + 46, (-C1) % 5 - abs(C1))\n"
        "    tl.store(out + 47, int(7.9) + int(-7.9) * 10)\n";
    nr_kernel *k = BUILD(src, "C1=-7 C2=2");
    if (!k) return;
    int32_t a[8] = {-7, 7, -7, 7, 0, 100, -100, 5}, b[8] = {2, 2, -2, -2, 3, 7, 7, 1};
    nr_devptr da = dev_from(a, sizeof a), db = dev_from(b, sizeof b), dout = dev_from(NULL, 48 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(da), nr_arg_ptr(db), nr_arg_ptr(dout), nr_arg_i32(-7));
    int32_t out[48];
    dev_to(out, dout, sizeof out);
    for (int i = 0; i < 8; i++) {
        CHECK(out[i] == a[i] / b[i], "%d // %d: %d, want %d (C truncation)", a[i], b[i], out[i],
              a[i] / b[i]);
        CHECK(out[8 + i] == a[i] % b[i], "%d %% %d: %d, want %d (C)", a[i], b[i], out[8 + i],
              a[i] % b[i]);
        CHECK(out[16 + i] == a[i] / 2, "%d // 2: %d", a[i], out[16 + i]);
        CHECK(out[24 + i] == a[i] % -3, "%d %% -3: %d, want %d", a[i], out[24 + i], a[i] % -3);
    }
    CHECK(out[32] == -3 && out[33] == -1, "runtime -7 // 2, -7 %% 2: %d %d, want -3 -1", out[32],
          out[33]);
    CHECK(out[34] == -4 && out[35] == 1, "constexpr -7 // 2, -7 %% 2: %d %d, want -4 1 (Python)",
          out[34], out[35]);
    CHECK(out[36] == -4 && out[37] == 1, "literal -7 // 2, -7 %% 2: %d %d", out[36], out[37]);
    CHECK(out[38] == -4 && out[39] == -1, "literal 7 // -2, 7 %% -2: %d %d, want -4 -1", out[38],
          out[39]);
    CHECK(out[40] == -4, "annotated constexpr: %d", out[40]);
    CHECK(out[41] == -6, "(-21) // 4: %d, want -6", out[41]);
    CHECK(out[42] == -3 && out[43] == -1, "runtime // constexpr: %d %d, want -3 -1", out[42],
          out[43]);
    CHECK(out[44] == 1, "constexpr // runtime (-7 // -7): %d", out[44]);
    CHECK(out[45] == 1024 + 16 + (-4), "2**10 + (1<<4) + (-7 >> 1): %d, want 1036", out[45]);
    CHECK(out[46] == 7 % 5 - 7, "(7) %% 5 - abs(-7): %d, want -5", out[46]);
    CHECK(out[47] == 7 - 70, "int(7.9) + int(-7.9)*10: %d, want -63", out[47]);
}

/* ---- broadcasting ---- */

static void test_broadcast(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp32, y: *fp32, out: *fp32, s: fp32):\n"
                      "    i = tl.arange(0, 4)\n"
                      "    j = tl.arange(0, 8)\n"
                      "    a = tl.load(x + i)\n"
                      "    b = tl.load(y + j)\n"
                      "    m = a[:, None] + b[None, :]\n"
                      "    tl.static_assert(m.shape == (4, 8))\n"
                      "    tl.store(out + i[:, None] * 8 + j[None, :], m)\n"
                      "    n = s * m - b\n"
                      "    tl.store(out + 32 + i[:, None] * 8 + j[None, :], n)\n"
                      "    o = a[:, None] * 2 + 1.5\n"
                      "    tl.store(out + 64 + i[:, None], o)\n"
                      "    p = tl.load(x + i[:, None] + j[None, :] * 0)\n"
                      "    tl.store(out + 68 + j[None, :] + i[:, None] * 8, p - b[None, :])\n"
                      "    q = b - a[:, None]\n"
                      "    tl.store(out + 100 + i[:, None] * 8 + j, q)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    float x[4] = {1, -2, 3.5f, 100}, y[8] = {0.25f, 1, 2, 3, 4, 5, 6, -7};
    nr_devptr dx = dev_from(x, sizeof x), dy = dev_from(y, sizeof y),
              dout = dev_from(NULL, 132 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dout), nr_arg_f32(3.0f));
    float out[132];
    dev_to(out, dout, sizeof out);
    int bad = 0, bad2 = 0, bad3 = 0, bad4 = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) {
            float m = x[i] + y[j];
            bad += out[i * 8 + j] != m;
            float t = 3.0f * m;
            bad2 += out[32 + i * 8 + j] != t - y[j];
            bad3 += out[68 + i * 8 + j] != x[i] - y[j];
            bad4 += out[100 + i * 8 + j] != y[j] - x[i];
        }
    CHECK(bad == 0, "x[:, None] + y[None, :]: %d wrong", bad);
    CHECK(bad2 == 0, "scalar * 2-D - 1-D: %d wrong", bad2);
    CHECK(bad3 == 0, "2-D - 1-D[None, :]: %d wrong", bad3);
    CHECK(bad4 == 0, "1-D - 2-D: %d wrong", bad4);
    for (int i = 0; i < 4; i++)
        CHECK(out[64 + i] == x[i] * 2 + 1.5f, "4x1 * 2 + 1.5 at %d: %g", i, out[64 + i]);
}

/* ---- memory ---- */

static void test_masked(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp32, out: *fp32, n: i32):\n"
                      "    offs = tl.arange(0, 16)\n"
                      "    m = offs < n\n"
                      "    v = tl.load(x + offs, mask=m, other=-1.5)\n"
                      "    tl.store(out + offs, v)\n"
                      "    tl.store(out + 16 + offs, v * 2, mask=offs % 2 == 0)\n"
                      "    s = tl.load(x + 3)\n"
                      "    tl.store(out + 40, s + 1)\n"
                      "    w = tl.load(x + offs, m, 0.0)\n"
                      "    tl.store(out + 32 + offs // 2, w, mask=(offs < 16) & (offs % 2 == 1))\n"
                      "    tl.store(out + 41, tl.load(x + n - 1, mask=n > 0, other=5.0))\n"
                      "    tl.store(out + 42 + offs, 9.0, mask=offs < 2)\n"
                      "    tl.store(out + 44, tl.load(x + 100, mask=False, other=3.0))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    enum { N = 10 };
    float x[N];
    for (int i = 0; i < N; i++) x[i] = (float)i * 1.25f - 2;
    float init[48];
    for (int i = 0; i < 48; i++) init[i] = 777.0f;
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(init, sizeof init);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_i32(N));
    float out[48];
    dev_to(out, dout, sizeof out);
    for (int i = 0; i < 16; i++) {
        float v = i < N ? x[i] : -1.5f;
        CHECK(out[i] == v, "masked load with other at %d: %g, want %g", i, out[i], v);
        float w = i % 2 == 0 ? v * 2 : 777.0f;
        CHECK(out[16 + i] == w, "masked store at %d: %g, want %g", i, out[16 + i], w);
    }
    for (int i = 0; i < 8; i++) {
        int src_i = 2 * i + 1;
        float w = src_i < N ? x[src_i] : 0.0f;
        CHECK(out[32 + i] == w, "positional mask/other at %d: %g, want %g", i, out[32 + i], w);
    }
    CHECK(out[40] == x[3] + 1, "scalar load: %g", out[40]);
    CHECK(out[41] == x[N - 1], "scalar masked load: %g", out[41]);
    CHECK(out[42] == 9.0f && out[43] == 9.0f && out[44] == 3.0f,
          "scalar store broadcast / mask=False: %g %g %g", out[42], out[43], out[44]);
    CHECK(out[45] == 777.0f, "untouched: %g", out[45]);
}

/* Loads and stores through every element type; *i1 is a byte per element (as Triton). */
static void test_pointer_types(void) {
    const char *src = "@triton.jit\n"
                      "def k(pb: *i1, p8: *i8, pu8: *u8, p16: *i16, p64: *i64, ph: *fp16, pbf: "
                      "*bf16, pd: *fp64,\n"
                      "      out: *i64, outf: *fp64, ob: *i1, pu16: *u16, pu64: *u64):\n"
                      "    offs = tl.arange(0, 4)\n"
                      "    b = tl.load(pb + offs)\n"
                      "    tl.static_assert(b.dtype == tl.int1)\n"
                      "    tl.store(out + offs, b.to(tl.int64))\n"
                      "    tl.store(out + 4 + offs, tl.load(p8 + offs))\n"
                      "    tl.store(out + 8 + offs, tl.load(pu8 + offs))\n"
                      "    tl.store(out + 12 + offs, tl.load(p16 + offs))\n"
                      "    t = tl.load(p64 + offs) * 3\n"
                      "    tl.static_assert(t.dtype == tl.int64)\n"
                      "    tl.store(out + 16 + offs, t)\n"
                      "    tl.store(out + 20 + offs, tl.load(pu16 + offs))\n"
                      "    tl.store(out + 24 + offs, (tl.load(pu64 + offs) >> 60).to(tl.int64))\n"
                      "    tl.store(outf + offs, tl.load(ph + offs))\n"
                      "    tl.store(outf + 4 + offs, tl.load(pbf + offs))\n"
                      "    d = tl.load(pd + offs) * 3.0\n"
                      "    tl.static_assert(d.dtype == tl.float64)\n"
                      "    tl.store(outf + 8 + offs, d)\n"
                      "    tl.store(ob + offs, tl.load(p8 + offs) > 0)\n"
                      "    tl.store(ph + offs, tl.load(pd + offs))\n"
                      "    tl.store(pbf + offs, tl.load(pd + offs))\n"
                      "    tl.store(p8 + offs, tl.load(p16 + offs))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    uint8_t pb[4] = {0, 1, 2, 255};
    int8_t p8[4] = {-128, 127, -1, 5};
    uint8_t pu8[4] = {200, 0, 255, 17};
    int16_t p16[4] = {-32768, 32767, -300, 1000};
    int64_t p64[4] = {1LL << 40, -(1LL << 40) - 3, INT64_MAX / 3, 5};
    uint16_t ph[4] = {h16(-0.5), h16(65504.0), h16(1e-7), h16(3.14159)};
    uint16_t pbf[4] = {hbf(3.14159), hbf(-1e30), hbf(1.0 / 3.0), hbf(256.5)};
    double pd[4] = {1.0 / 3.0, -1e300, 1.00048828125, 70000.0};
    uint16_t pu16[4] = {65535, 0, 40000, 1};
    uint64_t pu64[4] = {UINT64_MAX, 1ULL << 63, 7ULL << 60, 3};
    nr_devptr dpb = dev_from(pb, 4), dp8 = dev_from(p8, 4), dpu8 = dev_from(pu8, 4),
              dp16 = dev_from(p16, 8), dp64 = dev_from(p64, 32), dph = dev_from(ph, 8),
              dpbf = dev_from(pbf, 8), dpd = dev_from(pd, 32), dout = dev_from(NULL, 28 * 8),
              doutf = dev_from(NULL, 12 * 8), dob = dev_from(NULL, 4), dpu16 = dev_from(pu16, 8),
              dpu64 = dev_from(pu64, 32);
    RUN(k, 1, 1, 1, nr_arg_ptr(dpb), nr_arg_ptr(dp8), nr_arg_ptr(dpu8), nr_arg_ptr(dp16),
        nr_arg_ptr(dp64), nr_arg_ptr(dph), nr_arg_ptr(dpbf), nr_arg_ptr(dpd), nr_arg_ptr(dout),
        nr_arg_ptr(doutf), nr_arg_ptr(dob), nr_arg_ptr(dpu16), nr_arg_ptr(dpu64));
    int64_t out[28];
    double outf[12];
    uint8_t ob[4];
    uint16_t ph2[4], pbf2[4];
    int8_t p82[4];
    dev_to(out, dout, sizeof out);
    dev_to(outf, doutf, sizeof outf);
    dev_to(ob, dob, sizeof ob);
    dev_to(ph2, dph, sizeof ph2);
    dev_to(pbf2, dpbf, sizeof pbf2);
    dev_to(p82, dp8, sizeof p82);
    for (int i = 0; i < 4; i++) {
        CHECK(out[i] == (pb[i] != 0), "*i1 load at %d: %lld", i, (long long)out[i]);
        CHECK(out[4 + i] == p8[i], "*i8 load at %d: %lld", i, (long long)out[4 + i]);
        CHECK(out[8 + i] == pu8[i], "*u8 load at %d: %lld", i, (long long)out[8 + i]);
        CHECK(out[12 + i] == p16[i], "*i16 load at %d: %lld", i, (long long)out[12 + i]);
        CHECK(out[16 + i] == (int64_t)((uint64_t)p64[i] * 3u), "*i64 load * 3 at %d: %lld", i,
              (long long)out[16 + i]);
        CHECK(out[20 + i] == pu16[i], "*u16 load at %d: %lld", i, (long long)out[20 + i]);
        CHECK(out[24 + i] == (int64_t)(pu64[i] >> 60), "*u64 load >> 60 (logical) at %d: %lld", i,
              (long long)out[24 + i]);
        CHECK(outf[i] == f16(ph[i]), "*fp16 load at %d: %.17g", i, outf[i]);
        CHECK(outf[4 + i] == fbf(pbf[i]), "*bf16 load at %d: %.17g", i, outf[4 + i]);
        CHECK(outf[8 + i] == pd[i] * 3.0, "*fp64 load * 3.0 at %d: %.17g", i, outf[8 + i]);
        CHECK(ob[i] == (p8[i] > 0), "*i1 store at %d: %d", i, ob[i]);
        CHECK(ph2[i] == h16(pd[i]), "fp64 stored to *fp16 at %d: %04x, want %04x", i, ph2[i],
              h16(pd[i]));
        CHECK(pbf2[i] == hbf(pd[i]), "fp64 stored to *bf16 at %d: %04x, want %04x", i, pbf2[i],
              hbf(pd[i]));
        CHECK(p82[i] == (int8_t)(uint8_t)(uint16_t)p16[i], "i16 stored to *i8 at %d: %d", i,
              p82[i]);
    }
}

/* Pointer arithmetic: p += n on blocks of pointers, p - n, n + p, pointers of pointers
 * compared, int64 offsets. */
static void test_pointer_arith(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *i32, out: *i32, big: i64):\n"
                      "    offs = tl.arange(0, 4)\n"
                      "    p = x + offs\n"
                      "    p += 4\n"
                      "    tl.store(out + offs, tl.load(p))\n"
                      "    q = 8 + x\n"
                      "    q = q - 2 + offs * 2\n"
                      "    tl.store(out + 4 + offs, tl.load(q))\n"
                      "    r = x + big\n"
                      "    tl.store(out + 8 + offs, tl.load(r + offs))\n"
                      "    tl.store(out + 12 + offs, (p > x + 5).to(tl.int32))\n"
                      "    o = out\n"
                      "    o += 16\n"
                      "    tl.store(o, tl.load(x))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    int32_t x[16];
    for (int i = 0; i < 16; i++) x[i] = 100 + i;
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 17 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_i64(3));
    int32_t out[17];
    dev_to(out, dout, sizeof out);
    for (int i = 0; i < 4; i++) {
        CHECK(out[i] == x[4 + i], "p += 4 at %d: %d", i, out[i]);
        CHECK(out[4 + i] == x[6 + 2 * i], "8 + x - 2 + 2i at %d: %d", i, out[4 + i]);
        CHECK(out[8 + i] == x[3 + i], "x + i64 at %d: %d", i, out[8 + i]);
        CHECK(out[12 + i] == (4 + i > 5), "pointer compare at %d: %d", i, out[12 + i]);
    }
    CHECK(out[16] == x[0], "o += 16 on a scalar pointer: %d", out[16]);
}

/* Atomics: colliding adds sum right and return each old value once; max/min/xchg/cas
 * return the old values; u32 max compares unsigned; fp32 max orders negatives. */
static void test_atomics(void) {
    const char *src = "@triton.jit\n"
                      "def k(p: *i32, q: *fp32, olds: *i32, cnt: *i32, pids: *i32):\n"
                      "    offs = tl.arange(0, 64)\n"
                      "    o = tl.atomic_add(p + offs % 4, 1)\n"
                      "    tl.store(olds + tl.program_id(0) * 64 + offs, o)\n"
                      "    tl.atomic_add(q + offs % 2, 0.5)\n"
                      "    tl.atomic_add(p + 4 + offs % 2, 10, mask=offs < 6)\n"
                      "    c = tl.atomic_add(cnt, 1)\n"
                      "    tl.store(pids + tl.program_id(0), c)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (k) {
        enum { G = 4 };
        nr_devptr dp = dev_from(NULL, 6 * 4), dq = dev_from(NULL, 2 * 4),
                  dolds = dev_from(NULL, G * 64 * 4), dcnt = dev_from(NULL, 4),
                  dpids = dev_from(NULL, G * 4);
        RUN(k, G, 1, 1, nr_arg_ptr(dp), nr_arg_ptr(dq), nr_arg_ptr(dolds), nr_arg_ptr(dcnt),
            nr_arg_ptr(dpids));
        int32_t p[6], olds[G * 64], cnt, pids[G];
        float q[2];
        dev_to(p, dp, sizeof p);
        dev_to(q, dq, sizeof q);
        dev_to(olds, dolds, sizeof olds);
        dev_to(&cnt, dcnt, 4);
        dev_to(pids, dpids, sizeof pids);
        for (int i = 0; i < 4; i++)
            CHECK(p[i] == 16 * G, "colliding atomic_add slot %d: %d, want %d", i, p[i], 16 * G);
        CHECK(p[4] == 30 * G && p[5] == 30 * G, "masked atomic_add: %d %d, want %d", p[4], p[5],
              30 * G);
        CHECK(q[0] == 16.0f * G && q[1] == 16.0f * G, "fp32 atomic_add: %g %g", q[0], q[1]);
        /* each slot's old values are 0 .. 16G-1, each once */
        for (int s = 0; s < 4; s++) {
            int seen[16 * G] = {0}, bad = 0;
            for (int i = 0; i < G * 64; i++)
                if (i % 4 == s) {
                    int v = olds[i];
                    if (v < 0 || v >= 16 * G || seen[v]++) bad++;
                }
            CHECK(bad == 0, "atomic_add old values of slot %d are not a permutation (%d bad)", s,
                  bad);
        }
        int seen[G] = {0}, bad = 0;
        for (int i = 0; i < G; i++) bad += pids[i] < 0 || pids[i] >= G || seen[pids[i]]++;
        CHECK(cnt == G && bad == 0, "scalar atomic counter %d, %d bad old values", cnt, bad);
    }

    const char *src2 =
        "@triton.jit\n"
        "def k(r: *i32, v: *i32, cmp: *i32, old: *i32, u: *u32, f: *fp32, i64p: *i64):\n"
        "    i = tl.arange(0, 4)\n"
        "    val = tl.load(v + i)\n"
        "    tl.store(old + i, tl.atomic_max(r + i, val))\n"
        "    tl.store(old + 4 + i, tl.atomic_min(r + 4 + i, val))\n"
        "    tl.store(old + 8 + i, tl.atomic_xchg(r + 8 + i, val))\n"
        "    tl.store(old + 12 + i, tl.atomic_cas(r + 12 + i, tl.load(cmp + i), val))\n"
        "    tl.store(old + 16 + i, tl.atomic_and(r + 16 + i, val))\n"
        "    tl.store(old + 20 + i, tl.atomic_or(r + 20 + i, val))\n"
        "    tl.store(old + 24 + i, tl.atomic_xor(r + 24 + i, val))\n"
        "    tl.atomic_max(u + i, val.to(tl.uint32, bitcast=True))\n"
        "    tl.atomic_min(u + 4 + i, val.to(tl.uint32, bitcast=True))\n"
        "    tl.atomic_max(f + i, val.to(tl.float32))\n"
        "    tl.atomic_min(f + 4 + i, val.to(tl.float32))\n"
        "    tl.atomic_add(i64p + i, val.to(tl.int64) << 33)\n";
    k = BUILD(src2, NULL);
    if (!k) return;
    int32_t r[28] = {5, -3, 10,   0,    5,  -3, 10,   0,    5,  -3, 10,   0,    1,  2,
                     3, 4,  0xF0, 0xF0, -1, 0,  0xF0, 0xF0, -1, 0,  0xF0, 0xF0, -1, 0};
    int32_t v[4] = {7, -5, 10, -1}, cmp[4] = {1, 0, 3, 0};
    uint32_t u[8] = {1, 1, 0x80000000u, 5, 1, 1, 0x80000000u, 5};
    float f[8] = {-2, -6, 10, -0.5f, -2, -6, 10, -0.5f};
    int64_t i64[4] = {1, 2, 3, 4};
    nr_devptr dr = dev_from(r, sizeof r), dv = dev_from(v, sizeof v),
              dc = dev_from(cmp, sizeof cmp), dold = dev_from(NULL, 28 * 4),
              du = dev_from(u, sizeof u), df = dev_from(f, sizeof f),
              di = dev_from(i64, sizeof i64);
    RUN(k, 1, 1, 1, nr_arg_ptr(dr), nr_arg_ptr(dv), nr_arg_ptr(dc), nr_arg_ptr(dold),
        nr_arg_ptr(du), nr_arg_ptr(df), nr_arg_ptr(di));
    int32_t r2[28], old[28];
    uint32_t u2[8];
    float f2[8];
    int64_t i642[4];
    dev_to(r2, dr, sizeof r2);
    dev_to(old, dold, sizeof old);
    dev_to(u2, du, sizeof u2);
    dev_to(f2, df, sizeof f2);
    dev_to(i642, di, sizeof i642);
    for (int i = 0; i < 28; i++)
        CHECK(old[i] == r[i], "atomic old value %d: %d, want %d", i, old[i], r[i]);
    for (int i = 0; i < 4; i++) {
        CHECK(r2[i] == (r[i] > v[i] ? r[i] : v[i]), "atomic_max %d: %d", i, r2[i]);
        CHECK(r2[4 + i] == (r[4 + i] < v[i] ? r[4 + i] : v[i]), "atomic_min %d: %d", i, r2[4 + i]);
        CHECK(r2[8 + i] == v[i], "atomic_xchg %d: %d", i, r2[8 + i]);
        CHECK(r2[12 + i] == (r[12 + i] == cmp[i] ? v[i] : r[12 + i]), "atomic_cas %d: %d", i,
              r2[12 + i]);
        CHECK(r2[16 + i] == (r[16 + i] & v[i]), "atomic_and %d: %d", i, r2[16 + i]);
        CHECK(r2[20 + i] == (r[20 + i] | v[i]), "atomic_or %d: %d", i, r2[20 + i]);
        CHECK(r2[24 + i] == (r[24 + i] ^ v[i]), "atomic_xor %d: %d", i, r2[24 + i]);
        uint32_t uv = (uint32_t)v[i];
        CHECK(u2[i] == (u[i] > uv ? u[i] : uv), "u32 atomic_max (unsigned) %d: %08x", i, u2[i]);
        CHECK(u2[4 + i] == (u[4 + i] < uv ? u[4 + i] : uv), "u32 atomic_min (unsigned) %d: %08x", i,
              u2[4 + i]);
        CHECK(f2[i] == fmaxf(f[i], (float)v[i]), "fp32 atomic_max %d: %g, want %g", i, f2[i],
              fmaxf(f[i], (float)v[i]));
        CHECK(f2[4 + i] == fminf(f[4 + i], (float)v[i]), "fp32 atomic_min %d: %g, want %g", i,
              f2[4 + i], fminf(f[4 + i], (float)v[i]));
        CHECK(i642[i] == i64[i] + (int64_t)((uint64_t)(int64_t)v[i] << 33),
              "i64 atomic_add %d: %lld", i, (long long)i642[i]);
    }
}

/* Out-of-bounds accesses fail the launch; device_assert and assert fail it with their
 * message; hints do not change results. */
static void test_errors_and_hints(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp32, n: i32, MODE: tl.constexpr):\n"
                      "    offs = tl.arange(0, 16)\n"
                      "    if MODE == 0:\n"
                      "        v = tl.load(x + offs + n)\n"
                      "        tl.store(x + offs, v)\n"
                      "    elif MODE == 1:\n"
                      "        tl.store(x + n, 1.0)\n"
                      "    elif MODE == 2:\n"
                      "        tl.store(x + offs - n, 1.0)\n"
                      "    else:\n"
                      "        tl.atomic_add(x + n, 1.0)\n";
    for (int mode = 0; mode < 4; mode++) {
        char defs[32];
        snprintf(defs, sizeof defs, "MODE=%d", mode);
        nr_kernel *k = BUILD(src, defs);
        if (!k) continue;
        nr_devptr dx = dev_from(NULL, 16 * 4);
        nr_status s = RUN_STATUS(k, 1, 1, 1, nr_arg_ptr(dx),
                                 nr_arg_i32(mode == 2   ? 1
                                            : mode == 0 ? 1
                                                        : 16));
        CHECK(s == NR_ERR_LAUNCH && strstr(nr_last_error(ctx), "out-of-bounds"),
              "mode %d: out-of-bounds: %s: %s", mode, nr_status_string(s), nr_last_error(ctx));
        s = RUN_STATUS(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_i32(0));
        CHECK(s == NR_OK, "mode %d: in bounds: %s", mode, nr_last_error(ctx));
    }

    const char *asrc = "@triton.jit\n"
                       "def k(x: *i32, n: i32):\n"
                       "    v = tl.load(x + tl.arange(0, 8))\n"
                       "    tl.device_assert(v < n, 'value too big')\n"
                       "    assert n > 0, 'n must be positive'\n"
                       "    tl.device_assert(v > -100, 'masked', mask=v != 0)\n";
    nr_kernel *k = BUILD(asrc, NULL);
    if (k) {
        int32_t x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        nr_devptr dx = dev_from(x, sizeof x);
        CHECK(RUN_STATUS(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_i32(8)) == NR_OK, "assert holds: %s",
              nr_last_error(ctx));
        nr_status s = RUN_STATUS(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_i32(5));
        CHECK(s == NR_ERR_LAUNCH && strstr(nr_last_error(ctx), "value too big"),
              "device_assert: %s: %s", nr_status_string(s), nr_last_error(ctx));
        s = RUN_STATUS(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_i32(-1));
        CHECK(s == NR_ERR_LAUNCH && strstr(nr_last_error(ctx), "value too big"),
              "first failing assert wins: %s", nr_last_error(ctx));
        int32_t y[8] = {-1000, 1, 2, 3, 4, 5, 6, 0};
        nr_devptr dy = dev_from(y, sizeof y);
        s = RUN_STATUS(k, 1, 1, 1, nr_arg_ptr(dy), nr_arg_i32(8));
        CHECK(s == NR_ERR_LAUNCH && strstr(nr_last_error(ctx), "masked"),
              "device_assert with mask: %s", nr_last_error(ctx));
        y[0] = 0;
        nr_memcpy_htod(ctx, dy, y, sizeof y);
        CHECK(RUN_STATUS(k, 1, 1, 1, nr_arg_ptr(dy), nr_arg_i32(8)) == NR_OK, "masked-off lane: %s",
              nr_last_error(ctx));
    }
    const char *asrc2 = "@triton.jit\n"
                        "def k(n: i32):\n"
                        "    assert n > 0, 'n must be positive'\n";
    k = BUILD(asrc2, NULL);
    if (k) {
        nr_status s = RUN_STATUS(k, 1, 1, 1, nr_arg_i32(0));
        CHECK(s == NR_ERR_LAUNCH && strstr(nr_last_error(ctx), "n must be positive"),
              "python assert: %s", nr_last_error(ctx));
    }

    const char *lsrc = "@triton.jit\n"
                       "def k(n: i32):\n"
                       "    for i in range(n):\n"
                       "        if i > 1:\n"
                       "            tl.device_assert(i < 3, 'loop assert')\n";
    k = BUILD(lsrc, NULL);
    if (k) {
        CHECK(RUN_STATUS(k, 1, 1, 1, nr_arg_i32(3)) == NR_OK, "assert in a loop holds: %s",
              nr_last_error(ctx));
        nr_status s = RUN_STATUS(k, 2, 1, 1, nr_arg_i32(5));
        CHECK(s == NR_ERR_LAUNCH && strstr(nr_last_error(ctx), "loop assert"),
              "assert in a loop and an if: %s", nr_last_error(ctx));
    }

    const char *hsrc = "@triton.jit\n"
                       "def k(x: *fp32, out: *fp32, BLOCK: tl.constexpr):\n"
                       "    start = tl.multiple_of(tl.program_id(0) * BLOCK, BLOCK)\n"
                       "    offs = start + tl.max_contiguous(tl.arange(0, BLOCK), BLOCK)\n"
                       "    offs = tl.max_contiguous(tl.multiple_of(offs, [BLOCK]), [BLOCK])\n"
                       "    tl.assume(start >= 0)\n"
                       "    tl.store(out + offs, tl.load(x + offs) + 1)\n";
    k = BUILD(hsrc, "BLOCK=16");
    if (k) {
        float x[64], out[64];
        for (int i = 0; i < 64; i++) x[i] = (float)i * 0.5f;
        nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, sizeof out);
        RUN(k, 4, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout));
        dev_to(out, dout, sizeof out);
        int bad = 0;
        for (int i = 0; i < 64; i++) bad += out[i] != x[i] + 1;
        CHECK(bad == 0, "hints changed results: %d wrong", bad);
    }
}

/* ---- grids ---- */

static void test_grids(void) {
    const char *src = "@triton.jit\n"
                      "def k(out: *i32):\n"
                      "    pid0 = tl.program_id(0)\n"
                      "    pid1 = tl.program_id(1)\n"
                      "    pid2 = tl.program_id(axis=2)\n"
                      "    n0 = tl.num_programs(0)\n"
                      "    n1 = tl.num_programs(1)\n"
                      "    n2 = tl.num_programs(axis=2)\n"
                      "    idx = (pid2 * n1 + pid1) * n0 + pid0\n"
                      "    base = out + idx * 4\n"
                      "    tl.store(base, pid0)\n"
                      "    tl.store(base + 1, pid1)\n"
                      "    tl.store(base + 2, pid2)\n"
                      "    tl.store(base + 3 + tl.arange(0, 1), n0 * 100 + n1 * 10 + n2)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    static const unsigned grids[3][3] = {{3, 2, 4}, {5, 3, 1}, {1, 1, 7}};
    for (int g = 0; g < 3; g++) {
        unsigned a = grids[g][0], b = grids[g][1], c = grids[g][2], n = a * b * c;
        nr_devptr dout = dev_from(NULL, n * 16);
        RUN(k, a, b, c, nr_arg_ptr(dout));
        int32_t *out = malloc(n * 16);
        dev_to(out, dout, n * 16);
        int bad = 0;
        for (unsigned z = 0; z < c; z++)
            for (unsigned y = 0; y < b; y++)
                for (unsigned x = 0; x < a; x++) {
                    int32_t *o = out + ((z * b + y) * a + x) * 4;
                    bad += o[0] != (int)x || o[1] != (int)y || o[2] != (int)z ||
                           o[3] != (int)(a * 100 + b * 10 + c);
                }
        CHECK(bad == 0, "grid %ux%ux%u: %d programs wrong", a, b, c, bad);
        free(out);
    }
}

/* ---- module-level constants and constexpr parameters ---- */

static void test_module_constants(void) {
    const char *src = "import triton\n"
                      "import triton.language as tl\n"
                      "SCALE: tl.constexpr = 3\n"
                      "OFFSET = 10\n"
                      "HALF = 0.5\n"
                      "NAME = 'relu'\n"
                      "BIG = SCALE * OFFSET + 2\n"
                      "@triton.jit\n"
                      "def k(out: *fp32, F: tl.constexpr, B: tl.constexpr, N: tl.constexpr = 4):\n"
                      "    offs = tl.arange(0, SCALE + 1)\n"
                      "    v = offs * SCALE + OFFSET\n"
                      "    tl.store(out + offs, v.to(tl.float32) * HALF)\n"
                      "    tl.store(out + 4, BIG)\n"
                      "    tl.store(out + 5, F * 2)\n"
                      "    if B:\n"
                      "        tl.store(out + 6, 1.0)\n"
                      "    else:\n"
                      "        tl.store(out + 6, 2.0)\n"
                      "    if NAME == 'relu':\n"
                      "        tl.store(out + 7, N)\n"
                      "    tl.store(out + 8, F / 2 if B else -1.0)\n"
                      "    tl.store(out + 9, float(True) + (B is True) + (F is not None))\n";
    nr_kernel *k = BUILD(src, "F=1.25 B=True");
    if (!k) return;
    nr_devptr dout = dev_from(NULL, 10 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dout));
    float out[10];
    dev_to(out, dout, sizeof out);
    for (int i = 0; i < 4; i++)
        CHECK(out[i] == (float)(i * 3 + 10) * 0.5f, "module constants at %d: %g", i, out[i]);
    CHECK(out[4] == 32, "BIG: %g", out[4]);
    CHECK(out[5] == 2.5f, "float constexpr: %g", out[5]);
    CHECK(out[6] == 1.0f, "bool constexpr: %g", out[6]);
    CHECK(out[7] == 4, "default constexpr and string constant: %g", out[7]);
    CHECK(out[8] == 0.625f, "constexpr conditional expression: %g", out[8]);
    CHECK(out[9] == 3.0f, "float(True) + is: %g", out[9]);
}

/* Scalar parameters of every type: fp16 / bf16 values are rounded to their type at
 * launch; i1 drives an if; u8, i16, u64 and fp64 keep their ranges. */
static void test_scalar_params(void) {
    const char *src = "@triton.jit\n"
                      "def k(out: *fp64, oi: *i64, h: fp16, b: bf16, t: i1, c: u8, s: i16, d: "
                      "fp64, u: u64, i8v: i8, f: fp32):\n"
                      "    tl.store(out, h)\n"
                      "    tl.store(out + 1, b)\n"
                      "    tl.store(out + 2, d * 3.0)\n"
                      "    tl.store(out + 3, h * 2)\n"
                      "    tl.static_assert((h * 2).dtype == tl.float16)\n"
                      "    tl.static_assert((h + b).dtype == tl.float16)\n"
                      "    tl.store(out + 4, h + b)\n"
                      "    tl.store(out + 5, f + h)\n"
                      "    if t:\n"
                      "        tl.store(oi, 1)\n"
                      "    else:\n"
                      "        tl.store(oi, 2)\n"
                      "    tl.store(oi + 1, c + 1)\n"
                      "    tl.store(oi + 2, s * 2)\n"
                      "    tl.store(oi + 3, (u >> 1).to(tl.int64, bitcast=True))\n"
                      "    tl.store(oi + 4, i8v - 1)\n"
                      "    tl.store(oi + 5, c + s)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    CHECK(nr_kernel_num_params(k) == 11 && nr_kernel_param_type(k, 2) == NR_TYPE_FP16 &&
              nr_kernel_param_type(k, 3) == NR_TYPE_BF16 &&
              nr_kernel_param_type(k, 4) == NR_TYPE_I1 && nr_kernel_param_type(k, 8) == NR_TYPE_U64,
          "parameter types");
    for (int tv = 0; tv < 2; tv++) {
        nr_devptr d = dev_from(NULL, 6 * 8), di = dev_from(NULL, 6 * 8);
        nr_arg args[11];
        args[0] = nr_arg_ptr(d);
        args[1] = nr_arg_ptr(di);
        args[2].type = NR_TYPE_FP16, args[2].v.f = 0.1;
        args[3].type = NR_TYPE_BF16, args[3].v.f = 1.0 / 3.0;
        args[4].type = NR_TYPE_I1, args[4].v.i = tv;
        args[5].type = NR_TYPE_U8, args[5].v.u = 255;
        args[6].type = NR_TYPE_I16, args[6].v.i = -20000;
        args[7] = nr_arg_f64(1.0 / 3.0);
        args[8] = nr_arg_u64(UINT64_MAX - 6);
        args[9].type = NR_TYPE_I8, args[9].v.i = -128;
        args[10] = nr_arg_f32(0.25f);
        unsigned grid[3] = {1, 1, 1};
        nr_status s = nr_launch(k, grid, args, 11, NULL);
        CHECK(s == NR_OK, "launch: %s", nr_last_error(ctx));
        if (s) return;
        double out[6];
        int64_t oi[6];
        dev_to(out, d, sizeof out);
        dev_to(oi, di, sizeof oi);
        double h = r16(0.1), b = rbf(1.0 / 3.0);
        CHECK(out[0] == h, "fp16 parameter: %.17g, want %.17g", out[0], h);
        CHECK(out[1] == b, "bf16 parameter: %.17g, want %.17g", out[1], b);
        CHECK(out[2] == (1.0 / 3.0) * 3.0, "fp64 parameter: %.17g", out[2]);
        CHECK(out[3] == r16(h * 2), "fp16 * 2: %.17g", out[3]);
        CHECK(out[4] == r16(h + b), "fp16 + bf16 is fp16: %.17g, want %.17g", out[4], r16(h + b));
        CHECK(out[5] == (double)(0.25f + (float)h), "fp32 + fp16: %.17g", out[5]);
        CHECK(oi[0] == (tv ? 1 : 2), "i1 parameter as a condition: %lld", (long long)oi[0]);
        CHECK(oi[1] == 0, "u8 parameter + 1 wraps in u8: %lld", (long long)oi[1]);
        CHECK(oi[2] == (int16_t)(uint16_t)(-40000 & 0xFFFF), "i16 parameter * 2 wraps: %lld",
              (long long)oi[2]);
        CHECK(oi[3] == (int64_t)((UINT64_MAX - 6) >> 1), "u64 parameter >> 1: %lld",
              (long long)oi[3]);
        CHECK(oi[4] == 127, "i8 parameter - 1 wraps: %lld", (long long)oi[4]);
        CHECK(oi[5] == 255 - 20000, "u8 + i16 is i16: %lld", (long long)oi[5]);
    }
}

/* The result dtype of binary operators, one kernel per case (Triton 3.x
 * computation_type_impl): blocks with blocks, blocks with Python scalars (weak: kinds
 * are bool < int < float), blocks with runtime scalars (not weak). */
static void test_promotion_table(void) {
    static const struct {
        const char *a, *b, *op,
            *want; /* b: a pointer dtype for a loaded block, or "py:EXPR" / "rt:DTYPE" */
    } cases[] = {
        {"i8", "i16", "+", "int16"},         {"i8", "u8", "+", "uint8"},
        {"u8", "i16", "+", "int16"},         {"u16", "i32", "*", "int32"},
        {"u32", "i32", "+", "uint32"},       {"u32", "i64", "-", "int64"},
        {"u64", "i64", "+", "uint64"},       {"i1", "i1", "+", "int1"},
        {"i1", "i8", "+", "int8"},           {"fp16", "fp16", "+", "float16"},
        {"fp16", "bf16", "*", "float16"},    {"bf16", "bf16", "+", "bfloat16"},
        {"bf16", "fp32", "+", "float32"},    {"bf16", "i32", "+", "float32"},
        {"fp16", "i32", "+", "float16"},     {"fp16", "i64", "*", "float16"},
        {"fp32", "i64", "+", "float32"},     {"fp64", "fp16", "+", "float64"},
        {"fp64", "i8", "*", "float64"},      {"fp16", "fp16", "/", "float32"},
        {"bf16", "bf16", "/", "float32"},    {"fp16", "i32", "/", "float32"},
        {"i32", "i32", "/", "float32"},      {"i8", "i8", "/", "float32"},
        {"i64", "i64", "/", "float32"},      {"fp64", "i32", "/", "float64"},
        {"fp16", "fp16", "%", "float32"},    {"i8", "i16", "//", "int16"},
        {"u8", "u16", "%", "uint16"},        {"i32", "i32", "<<", "int32"},
        {"i8", "py:1", "+", "int8"},         {"u8", "py:1", "+", "uint8"},
        {"u16", "py:3", "%", "uint16"},      {"u32", "py:3", "//", "uint32"},
        {"i8", "py:1.0", "+", "float32"},    {"fp16", "py:1", "+", "float16"},
        {"fp16", "py:1.0", "-", "float16"},  {"bf16", "py:2.0", "*", "bfloat16"},
        {"fp16", "py:2", "/", "float32"},    {"i1", "py:1", "+", "int32"},
        {"i1", "py:True", "&", "int1"},      {"i64", "py:1", "+", "int64"},
        {"fp64", "py:1.5", "*", "float64"},  {"i16", "py:2", "//", "int16"},
        {"i32", "py:2", "/", "float32"},     {"i8", "rt:i32", "+", "int32"},
        {"fp16", "rt:fp32", "*", "float32"}, {"u8", "rt:i8", "+", "uint8"},
        {"i32", "rt:i64", "+", "int64"},     {"fp16", "rt:fp16", "/", "float32"},
        {"bf16", "rt:fp16", "+", "float16"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char src[1024], rhs[128], params[128];
        const char *b = cases[c].b;
        if (!strncmp(b, "py:", 3))
            snprintf(rhs, sizeof rhs, "%s", b + 3),
                snprintf(params, sizeof params, "pa: *%s", cases[c].a);
        else if (!strncmp(b, "rt:", 3))
            snprintf(rhs, sizeof rhs, "s"),
                snprintf(params, sizeof params, "pa: *%s, s: %s", cases[c].a, b + 3);
        else
            snprintf(rhs, sizeof rhs, "tl.load(pb + o)"),
                snprintf(params, sizeof params, "pa: *%s, pb: *%s", cases[c].a, b);
        const char *want = cases[c].want;
        snprintf(src, sizeof src,
                 "@triton.jit\n"
                 "def k(%s):\n"
                 "    o = tl.arange(0, 4)\n"
                 "    r = tl.load(pa + o) %s %s\n"
                 "    tl.static_assert(r.dtype == tl.%s, 'wrong dtype')\n",
                 params, cases[c].op, rhs, want);
        nr_module *m = NULL;
        nr_compile_options o = {0};
        nr_status s = nr_compile_source(ctx, src, strlen(src), "test.nr", &o, &m);
        if (s == NR_OK) nr_module_destroy(m);
        CHECK(s == NR_OK, "%s block %s %s: want %s: %s", cases[c].a, cases[c].op, b, want,
              strstr(nr_last_error(ctx), "wrong dtype") ? "another dtype" : nr_last_error(ctx));
    }
}

/* Masked-off lanes may hold any address (before the buffer, far past it): they are never
 * accessed. A spin lock built from atomic_cas in a while condition and atomic_xchg;
 * fp16 atomic_add rounds in fp16; load/store options are accepted. */
static void test_masked_addresses_and_locks(void) {
    const char *src =
        "@triton.jit\n"
        "def k(x: *fp32, out: *fp32, lock: *i32, cnt: *i32, h: *fp16):\n"
        "    offs = tl.arange(0, 16)\n"
        "    v = tl.load(x + offs - 100, mask=offs >= 100, other=2.0)\n"
        "    tl.store(out + offs, v)\n"
        "    tl.store(out + offs + 1000000, v, mask=offs < 0)\n"
        "    w = tl.load(x + offs * 1000000000, mask=offs == 0, other=3.0)\n"
        "    tl.store(out + 16 + offs, w)\n"
        "    tl.atomic_add(out + offs - 50, 1.0, mask=offs > 100)\n"
        "    while tl.atomic_cas(lock, 0, 1) == 1:\n"
        "        pass\n"
        "    c = tl.load(cnt, volatile=True)\n"
        "    tl.store(cnt, c + 1, cache_modifier='.wb', eviction_policy='evict_last')\n"
        "    tl.atomic_xchg(lock, 0)\n"
        "    tl.atomic_add(h + offs % 2, 0.00048828125)\n"
        "    u = tl.load(x + offs, mask=offs < 4, other=0.0, cache_modifier='.cg', "
        "eviction_policy='evict_first')\n"
        "    tl.store(out + 32 + offs, u)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    float x[4] = {1, 2, 3, 4};
    uint16_t h[2] = {h16(1.0), h16(0.0)};
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 48 * 4), dlock = dev_from(NULL, 4),
              dcnt = dev_from(NULL, 4), dh = dev_from(h, sizeof h);
    enum { G = 5 };
    RUN(k, G, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_ptr(dlock), nr_arg_ptr(dcnt),
        nr_arg_ptr(dh));
    float out[48];
    int32_t lock, cnt;
    uint16_t h2[2];
    dev_to(out, dout, sizeof out);
    dev_to(&lock, dlock, 4);
    dev_to(&cnt, dcnt, 4);
    dev_to(h2, dh, sizeof h2);
    int bad = 0;
    for (int i = 0; i < 16; i++)
        bad += out[i] != 2.0f || out[16 + i] != (i == 0 ? x[0] : 3.0f) ||
               out[32 + i] != (i < 4 ? x[i] : 0.0f);
    CHECK(bad == 0, "masked-off lanes with wild addresses: %d wrong", bad);
    CHECK(lock == 0 && cnt == G, "spin lock: lock %d count %d, want 0 %d", lock, cnt, G);
    /* 1 + 8 * 2^-11 in fp16 steps: each add of 2^-11 to 1.0 is a tie that rounds back to 1.0 */
    double acc0 = 1.0, acc1 = 0.0;
    for (int i = 0; i < 8 * G; i++)
        acc0 = r16(acc0 + 0.00048828125), acc1 = r16(acc1 + 0.00048828125);
    CHECK(f16(h2[0]) == acc0 && f16(h2[1]) == acc1,
          "fp16 atomic_add rounds in fp16: %.9g %.9g, want %.9g %.9g", f16(h2[0]), f16(h2[1]), acc0,
          acc1);
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) {
        printf("no CPU context\n");
        return 1;
    }
    test_weak_int();
    test_weak_float();
    test_small_ints();
    test_true_div();
    test_signedness();
    test_bool_ops();
    test_casts();
    test_div_mod();
    test_broadcast();
    test_masked();
    test_pointer_types();
    test_pointer_arith();
    test_atomics();
    test_errors_and_hints();
    test_grids();
    test_module_constants();
    test_scalar_params();
    test_promotion_table();
    test_masked_addresses_and_locks();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang", &st);
}
