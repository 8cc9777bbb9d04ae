/* test_lang3.c - control flow and helper functions run end to end on the CPU
 * interpreter: for loops (carried scalars and blocks, negative constant steps, one
 * argument, zero trips, nesting, tl.range), static_range unrolling with the index in
 * shapes, while loops, if / elif / else on runtime scalars (values merged), if on
 * constexprs (strings from -D; the untaken branch is not checked), conditional
 * expressions, and / or / not, helpers (tuples, early returns, specialisation by type,
 * defaults and keywords, constexpr-only calls giving shapes), swaps, augmented
 * assignment on pointers, names rebound to other types. Triton 3.x is the
 * specification. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nereid.h"

#include "lang_harness.h"

/* ---- helpers of this file ---- */

/* Run kernel k (params: out: *i32, then i32 scalars) with up to 3 scalars; return out. */
static bool run_ints(int line, nr_kernel *k, int nout, int32_t *out, int nargs, int32_t a0,
                     int32_t a1, int32_t a2) {
    nr_devptr d = dev_from(NULL, (size_t)nout * 4);
    nr_arg args[4] = {nr_arg_ptr(d), nr_arg_i32(a0), nr_arg_i32(a1), nr_arg_i32(a2)};
    unsigned grid[3] = {1, 1, 1};
    nr_status s = nr_launch(k, grid, args, 1 + nargs, NULL);
    if (s != NR_OK) {
        st.failed++;
        printf("%s:%d: check failed: launch: %s: %s\n", __FILE__, line, nr_status_string(s),
               nr_last_error(ctx));
        return false;
    }
    st.passed++;
    dev_to(out, d, (size_t)nout * 4);
    nr_free(ctx, d);
    return true;
}
#define RUN_INTS(k, nout, out, nargs, a0, a1, a2) \
    run_ints(__LINE__, k, nout, out, nargs, a0, a1, a2)

/* ---- for loops ---- */

static void test_for(void) {
    const char *src = "@triton.jit\n"
                      "def k(out: *i32, n: i32, m: i32):\n"
                      "    acc = tl.zeros([4], dtype=tl.int32)\n"
                      "    s = 0\n"
                      "    for i in range(n):\n"
                      "        acc += i\n"
                      "        s = s + i * 2\n"
                      "    tl.store(out + tl.arange(0, 4), acc + tl.arange(0, 4))\n"
                      "    tl.store(out + 4, s)\n"
                      "    t = 0\n"
                      "    cnt = 0\n"
                      "    order = 0\n"
                      "    last = -1\n"
                      "    for i in range(10, 0, -2):\n"
                      "        t += i\n"
                      "        cnt += 1\n"
                      "        order = order * 10 + i // 2\n"
                      "        last = i\n"
                      "    tl.store(out + 5, t)\n"
                      "    tl.store(out + 6, cnt)\n"
                      "    tl.store(out + 7, order)\n"
                      "    tl.store(out + 8, last)\n"
                      "    u = 0\n"
                      "    for i in range(10, 1, -3):\n"
                      "        u = u * 100 + i\n"
                      "    tl.store(out + 9, u)\n"
                      "    z = 7\n"
                      "    for i in range(5, 5):\n"
                      "        z = 100\n"
                      "    for i in range(m, 2):\n"
                      "        z += 1\n"
                      "    for i in range(10, 0):\n"
                      "        z = -1\n"
                      "    tl.store(out + 10, z)\n"
                      "    nest = 0\n"
                      "    for i in range(3):\n"
                      "        for j in range(i, 4):\n"
                      "            nest += i * 10 + j\n"
                      "    tl.store(out + 11, nest)\n"
                      "    f = 0.0\n"
                      "    for i in range(1, n, 3):\n"
                      "        f += i * 0.5\n"
                      "    tl.store(out + 12, (f * 2).to(tl.int32))\n"
                      "    w = 0\n"
                      "    for i in tl.range(m, n, 2, num_stages=2):\n"
                      "        w += i\n"
                      "    tl.store(out + 13, w)\n"
                      "    x = 1\n"
                      "    for i in range(0, n):\n"
                      "        x = x * 3 % 1000\n"
                      "    tl.store(out + 14, x)\n"
                      "    p = 0\n"
                      "    for i in range(-3, 3):\n"
                      "        p = p * 2 + (i < 0)\n"
                      "    tl.store(out + 15, p)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    static const int32_t cases[][2] = {{10, 0}, {0, 5}, {1, -2}, {7, 3}};
    for (int c = 0; c < 4; c++) {
        int32_t n = cases[c][0], m = cases[c][1], out[16];
        if (!RUN_INTS(k, 16, out, 2, n, m, 0)) continue;
        int32_t acc = 0, s = 0;
        for (int i = 0; i < n; i++) acc += i, s += i * 2;
        for (int i = 0; i < 4; i++)
            CHECK(out[i] == acc + i, "n=%d: carried block at %d: %d, want %d", n, i, out[i],
                  acc + i);
        CHECK(out[4] == s, "n=%d: carried scalar: %d, want %d", n, out[4], s);
        CHECK(out[5] == 30 && out[6] == 5, "range(10, 0, -2): sum %d count %d, want 30 5", out[5],
              out[6]);
        CHECK(out[7] == 54321 && out[8] == 2, "range(10, 0, -2) order %d last %d, want 54321 2",
              out[7], out[8]);
        CHECK(out[9] == 100704, "range(10, 1, -3): %d, want 100704", out[9]);
        int z = 7;
        for (int i = m; i < 2; i++) z++;
        CHECK(out[10] == z, "n=%d m=%d: zero-trip loops: %d, want %d", n, m, out[10], z);
        int nest = 0;
        for (int i = 0; i < 3; i++)
            for (int j = i; j < 4; j++) nest += i * 10 + j;
        CHECK(out[11] == nest, "nested loops: %d, want %d", out[11], nest);
        double f = 0;
        for (int i = 1; i < n; i += 3) f += i * 0.5;
        CHECK(out[12] == (int)(f * 2), "n=%d: float carried: %d, want %d", n, out[12],
              (int)(f * 2));
        int w = 0;
        for (int i = m; i < n; i += 2) w += i;
        CHECK(out[13] == w, "n=%d m=%d: tl.range: %d, want %d", n, m, out[13], w);
        int x = 1;
        for (int i = 0; i < n; i++) x = x * 3 % 1000;
        CHECK(out[14] == x, "n=%d: x*3%%1000: %d, want %d", n, out[14], x);
        CHECK(out[15] == 0x38, "range(-3, 3): %d, want 56", out[15]);
    }
}

/* for loops whose bounds are i64, u32 or mixed; the iv's type follows the bounds */
static void test_for_types(void) {
    const char *src = "@triton.jit\n"
                      "def k(out: *i64, n: i64, big: i64):\n"
                      "    s = big - big\n"
                      "    for i in range(big, big + n):\n"
                      "        s += i\n"
                      "    tl.store(out, s)\n"
                      "    t = tl.zeros([2], dtype=tl.int64)\n"
                      "    for i in range(n):\n"
                      "        t += i * 4294967296\n"
                      "    tl.store(out + 1 + tl.arange(0, 2), t)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    nr_devptr d = dev_from(NULL, 3 * 8);
    int64_t big = 5000000000LL, n = 4;
    RUN(k, 1, 1, 1, nr_arg_ptr(d), nr_arg_i64(n), nr_arg_i64(big));
    int64_t out[3];
    dev_to(out, d, sizeof out);
    int64_t s = 0, t = 0;
    for (int64_t i = big; i < big + n; i++) s += i;
    for (int64_t i = 0; i < n; i++) t += i * 4294967296LL;
    CHECK(out[0] == s, "i64 loop: %lld, want %lld", (long long)out[0], (long long)s);
    CHECK(out[1] == t && out[2] == t, "i64 carried block: %lld, want %lld", (long long)out[1],
          (long long)t);
}

/* static_range unrolls: the index is a constexpr usable in shapes */
static void test_static_range(void) {
    const char *src = "@triton.jit\n"
                      "def k(out: *i32, n: i32):\n"
                      "    total = 0\n"
                      "    for i in tl.static_range(0, 4):\n"
                      "        v = tl.arange(0, 2 ** i)\n"
                      "        total += tl.sum(v) * 10 ** i\n"
                      "    tl.store(out, total)\n"
                      "    acc = tl.zeros([8], dtype=tl.int32)\n"
                      "    for j in tl.static_range(3):\n"
                      "        acc += tl.arange(0, 8) * j + n\n"
                      "    tl.store(out + 1 + tl.arange(0, 8), acc)\n"
                      "    c = 0\n"
                      "    for j in tl.static_range(10, 0, -3):\n"
                      "        tl.static_assert(j % 3 == 1)\n"
                      "        c = c * 100 + j\n"
                      "    tl.store(out + 9, c)\n"
                      "    for j in tl.static_range(2):\n"
                      "        if j == 0:\n"
                      "            w = tl.full([4], n, tl.int32)\n"
                      "        else:\n"
                      "            w = w * 2\n"
                      "    tl.store(out + 10 + tl.arange(0, 4), w)\n"
                      "    tot = 0\n"
                      "    for q in (1, 2, 4):\n"
                      "        tot += tl.sum(tl.full([q], q, tl.int32))\n"
                      "    tl.store(out + 14, tot)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    int32_t out[15];
    if (!RUN_INTS(k, 15, out, 1, 5, 0, 0)) return;
    /* sums of arange(0, 1), (0, 2), (0, 4), (0, 8): 0, 1, 6, 28 */
    CHECK(out[0] == 0 + 10 + 600 + 28000, "static_range shapes: %d, want 28610", out[0]);
    for (int i = 0; i < 8; i++)
        CHECK(out[1 + i] == 3 * i + 15, "static_range carried block at %d: %d", i, out[1 + i]);
    CHECK(out[9] == 10070401, "static_range(10, 0, -3): %d, want 10070401", out[9]);
    for (int i = 0; i < 4; i++)
        CHECK(out[10 + i] == 10, "name defined in the first unrolled iteration: %d", out[10 + i]);
    CHECK(out[14] == 1 + 4 + 16, "for over a constant tuple: %d, want 21", out[14]);
}

/* while loops with carried scalars and blocks; zero trips */
static void test_while(void) {
    const char *src = "@triton.jit\n"
                      "def k(out: *i32, n: i32):\n"
                      "    i = 0\n"
                      "    x = 1\n"
                      "    while x < n:\n"
                      "        x = x * 3\n"
                      "        i += 1\n"
                      "    tl.store(out, i)\n"
                      "    tl.store(out + 1, x)\n"
                      "    acc = tl.zeros([4], dtype=tl.int32)\n"
                      "    j = n\n"
                      "    while j > 0:\n"
                      "        acc = acc + j * tl.arange(0, 4)\n"
                      "        j -= 7\n"
                      "    tl.store(out + 2 + tl.arange(0, 4), acc)\n"
                      "    tl.store(out + 6, j)\n"
                      "    a = 0\n"
                      "    b = 1\n"
                      "    c = 0\n"
                      "    while c < n and b < 1000:\n"
                      "        a, b = b, a + b\n"
                      "        c += 1\n"
                      "    tl.store(out + 7, a)\n"
                      "    tl.store(out + 8, c)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    static const int32_t ns[] = {100, 1, 0, 20};
    for (int c = 0; c < 4; c++) {
        int32_t n = ns[c], out[9];
        if (!RUN_INTS(k, 9, out, 1, n, 0, 0)) continue;
        int i = 0, x = 1;
        while (x < n) x *= 3, i++;
        CHECK(out[0] == i && out[1] == x, "n=%d: while: i %d x %d, want %d %d", n, out[0], out[1],
              i, x);
        int acc = 0, j = n;
        while (j > 0) acc += j, j -= 7;
        for (int q = 0; q < 4; q++)
            CHECK(out[2 + q] == acc * q, "n=%d: while block at %d: %d", n, q, out[2 + q]);
        CHECK(out[6] == j, "n=%d: while j: %d, want %d", n, out[6], j);
        int fa = 0, fb = 1, fc = 0;
        while (fc < n && fb < 1000) {
            int t = fa + fb;
            fa = fb, fb = t, fc++;
        }
        CHECK(out[7] == fa && out[8] == fc, "n=%d: fibonacci with swap: %d %d, want %d %d", n,
              out[7], out[8], fa, fc);
    }
}

/* ---- if ---- */

static void test_if(void) {
    const char *src = "@triton.jit\n"
                      "def k(out: *i32, n: i32, m: i32):\n"
                      "    if n > 10:\n"
                      "        v = 1\n"
                      "        w = tl.full([4], 1, tl.int32)\n"
                      "    elif n > 5:\n"
                      "        v = 2\n"
                      "        w = tl.arange(0, 4)\n"
                      "    else:\n"
                      "        v = n * 3\n"
                      "        w = tl.arange(0, 4) * n\n"
                      "    tl.store(out, v)\n"
                      "    tl.store(out + 1 + tl.arange(0, 4), w)\n"
                      "    x = 5\n"
                      "    if n == 7:\n"
                      "        x = 6\n"
                      "    tl.store(out + 5, x)\n"
                      "    y = 0\n"
                      "    if n < 0:\n"
                      "        pass\n"
                      "    else:\n"
                      "        y = n + 1\n"
                      "    tl.store(out + 6, y)\n"
                      "    if n > 0:\n"
                      "        if m > 0:\n"
                      "            z = 11\n"
                      "        else:\n"
                      "            z = 12\n"
                      "    else:\n"
                      "        z = 13\n"
                      "    tl.store(out + 7, z)\n"
                      "    f = 1.5\n"
                      "    if m > 2:\n"
                      "        f = 2.5\n"
                      "    tl.store(out + 8, (f * 2).to(tl.int32))\n"
                      "    cnt = 0\n"
                      "    for i in range(n):\n"
                      "        if i % 3 == 0:\n"
                      "            cnt += 1\n"
                      "        elif i % 3 == 1:\n"
                      "            cnt += 10\n"
                      "    tl.store(out + 9, cnt)\n"
                      "    flag = 0\n"
                      "    for i in range(n):\n"
                      "        if i == m:\n"
                      "            flag = 1\n"
                      "    tl.store(out + 10, flag)\n"
                      "    g = n\n"
                      "    if n > 0:\n"
                      "        g = g.to(tl.int64) * 4294967296 // 4294967296\n"
                      "        g = g.to(tl.int32)\n"
                      "    tl.store(out + 11, g)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    static const int32_t cases[][2] = {{20, 1}, {7, -1}, {0, 3}, {-4, 5}, {6, 2}};
    for (int c = 0; c < 5; c++) {
        int32_t n = cases[c][0], m = cases[c][1], out[12];
        if (!RUN_INTS(k, 12, out, 2, n, m, 0)) continue;
        int v = n > 10 ? 1 : n > 5 ? 2 : n * 3;
        CHECK(out[0] == v, "n=%d: if/elif/else value %d, want %d", n, out[0], v);
        for (int i = 0; i < 4; i++) {
            int w = n > 10 ? 1 : n > 5 ? i : i * n;
            CHECK(out[1 + i] == w, "n=%d: if/elif/else block at %d: %d, want %d", n, i, out[1 + i],
                  w);
        }
        CHECK(out[5] == (n == 7 ? 6 : 5), "n=%d: if without else: %d", n, out[5]);
        CHECK(out[6] == (n < 0 ? 0 : n + 1), "n=%d: pass branch: %d", n, out[6]);
        CHECK(out[7] == (n > 0 ? (m > 0 ? 11 : 12) : 13), "n=%d m=%d: nested if: %d", n, m, out[7]);
        CHECK(out[8] == (m > 2 ? 5 : 3), "m=%d: float merged: %d", m, out[8]);
        int cnt = 0;
        for (int i = 0; i < n; i++) cnt += i % 3 == 0 ? 1 : i % 3 == 1 ? 10 : 0;
        CHECK(out[9] == cnt, "n=%d: if/elif in a loop: %d, want %d", n, out[9], cnt);
        CHECK(out[10] == (m >= 0 && m < n), "n=%d m=%d: flag set in a loop: %d", n, m, out[10]);
        CHECK(out[11] == n, "n=%d: retyped inside a branch then back: %d", n, out[11]);
    }
}

/* if on constexprs: only the taken branch is lowered, so the other may not type-check */
static void test_constexpr_if(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp32, out: *fp32, ACT: tl.constexpr, N: tl.constexpr):\n"
                      "    o = tl.arange(0, 8)\n"
                      "    v = tl.load(x + o)\n"
                      "    if ACT == 'relu':\n"
                      "        v = tl.maximum(v, 0.0)\n"
                      "    elif ACT == 'broken':\n"
                      "        v = v + undefined_name\n"
                      "        v = tl.dot(v, v)\n"
                      "    elif ACT == 'leaky':\n"
                      "        v = tl.where(v >= 0, v, 0.01 * v)\n"
                      "    else:\n"
                      "        tl.static_assert(ACT == 'none', 'unknown activation')\n"
                      "    if N > 4:\n"
                      "        v = v * 2\n"
                      "    else:\n"
                      "        v = 'a string'\n"
                      "        v = tl.zeros([8], tl.float32) + N\n"
                      "    if ACT != 'none' and N == 8:\n"
                      "        v = v + 100\n"
                      "    if not (ACT == 'none' or N < 0):\n"
                      "        v = v + 1000\n"
                      "    tl.store(out + o, v)\n";
    float x[8] = {-2, -1, -0.5f, 0, 0.5f, 1, 2, 3};
    static const char *acts[] = {"relu", "leaky", "none"};
    for (int a = 0; a < 3; a++)
        for (int nv = 0; nv < 2; nv++) {
            int N = nv ? 8 : 2;
            char defs[64];
            snprintf(defs, sizeof defs, "ACT=%s N=%d", acts[a], N);
            nr_kernel *k = BUILD(src, defs);
            if (!k) continue;
            nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, sizeof x);
            RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout));
            float out[8];
            dev_to(out, dout, sizeof out);
            int bad = 0;
            for (int i = 0; i < 8; i++) {
                float v = x[i];
                if (a == 0) v = v > 0 ? v : 0.0f;
                else if (a == 1) v = v >= 0 ? v : 0.01f * v;
                v = N > 4 ? v * 2 : (float)N;
                if (a != 2 && N == 8) v += 100;
                if (a != 2) v += 1000;
                bad += out[i] != v;
            }
            CHECK(bad == 0, "%s: %d wrong", defs, bad);
        }
    COMPILE_ERROR(src, "ACT=bogus N=8", "unknown activation");
    COMPILE_ERROR(src, "ACT=broken N=8", "undefined_name");
}

/* conditional expressions and and / or / not on runtime scalars */
static void test_bool_scalars(void) {
    const char *src = "@triton.jit\n"
                      "def k(out: *i32, n: i32, m: i32):\n"
                      "    r = n if n > m else m\n"
                      "    tl.store(out, r)\n"
                      "    tl.store(out + 1, 1 if n > 0 else -1)\n"
                      "    c = (n > 0) and (m > 0)\n"
                      "    d = (n > 0) or (m > 0)\n"
                      "    e = not (n > 0)\n"
                      "    tl.store(out + 2, c.to(tl.int32))\n"
                      "    tl.store(out + 3, d.to(tl.int32))\n"
                      "    tl.store(out + 4, e.to(tl.int32))\n"
                      "    if n > 0 and m > 0:\n"
                      "        x = 1\n"
                      "    elif n > 0 or m > 0:\n"
                      "        x = 2\n"
                      "    else:\n"
                      "        x = 3\n"
                      "    tl.store(out + 5, x)\n"
                      "    if not n > 0:\n"
                      "        y = 7\n"
                      "    else:\n"
                      "        y = 8\n"
                      "    tl.store(out + 6, y)\n"
                      "    f = 2.5 if n > m else 0.5\n"
                      "    tl.store(out + 7, (f * 2).to(tl.int32))\n"
                      "    b = tl.arange(0, 4) * n if m > 0 else tl.arange(0, 4) - m\n"
                      "    tl.store(out + 8 + tl.arange(0, 4), b)\n"
                      "    tl.store(out + 12, (n > 0 and True).to(tl.int32))\n"
                      "    tl.store(out + 13, (False or m > 0).to(tl.int32))\n"
                      "    tl.store(out + 14, (0 < n < 10).to(tl.int32))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    static const int32_t cases[][2] = {{3, 5}, {3, -5}, {-3, 5}, {-3, -5}, {20, 0}};
    for (int c = 0; c < 5; c++) {
        int32_t n = cases[c][0], m = cases[c][1], out[15];
        if (!RUN_INTS(k, 15, out, 2, n, m, 0)) continue;
        CHECK(out[0] == (n > m ? n : m), "n=%d m=%d: x if c else y: %d", n, m, out[0]);
        CHECK(out[1] == (n > 0 ? 1 : -1), "n=%d: 1 if c else -1: %d", n, out[1]);
        CHECK(out[2] == (n > 0 && m > 0) && out[3] == (n > 0 || m > 0) && out[4] == !(n > 0),
              "n=%d m=%d: and/or/not: %d %d %d", n, m, out[2], out[3], out[4]);
        CHECK(out[5] == (n > 0 && m > 0   ? 1
                         : n > 0 || m > 0 ? 2
                                          : 3),
              "n=%d m=%d: if with and/or: %d", n, m, out[5]);
        CHECK(out[6] == (!(n > 0) ? 7 : 8), "n=%d: if not: %d", n, out[6]);
        CHECK(out[7] == (n > m ? 5 : 1), "n=%d m=%d: float conditional expression: %d", n, m,
              out[7]);
        for (int i = 0; i < 4; i++)
            CHECK(out[8 + i] == (m > 0 ? i * n : i - m), "block conditional expression at %d: %d",
                  i, out[8 + i]);
        CHECK(out[12] == (n > 0) && out[13] == (m > 0), "and True / False or: %d %d", out[12],
              out[13]);
        CHECK(out[14] == (0 < n && n < 10), "n=%d: chained comparison: %d", n, out[14]);
    }
}

/* A conditional expression on a runtime condition evaluates only the chosen side
 * (Triton lowers it to scf.if), so a load that is out of bounds on the other side is
 * never executed. */
static void test_lazy_ifexp(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp32, out: *fp32, n: i32):\n"
                      "    v = tl.load(x + n) if n < 4 else -1.0\n"
                      "    tl.store(out, v)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    float x[4] = {1, 2, 3, 4};
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 4);
    float out = 0;
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_i32(2));
    dev_to(&out, dout, 4);
    CHECK(out == 3, "taken side: %g", out);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_i32(1000));
    dev_to(&out, dout, 4);
    CHECK(out == -1, "untaken side with an out-of-bounds load: %g", out);
}

/* ---- helpers ---- */

static void test_helpers(void) {
    const char *src =
        "@triton.jit\n"
        "def two(x):\n"
        "    return x + 1, x * 2\n"
        "@triton.jit\n"
        "def pick(x, a, b):\n"
        "    if x > 0:\n"
        "        return a\n"
        "    return b\n"
        "@triton.jit\n"
        "def sign(x):\n"
        "    if x > 0:\n"
        "        return 1\n"
        "    elif x < 0:\n"
        "        return -1\n"
        "    else:\n"
        "        return 0\n"
        "@triton.jit\n"
        "def nested(x, y):\n"
        "    if x > 0:\n"
        "        if y > 0:\n"
        "            return x + y\n"
        "        t = x * 100\n"
        "        return t\n"
        "    return -x\n"
        "@triton.jit\n"
        "def add1(x):\n"
        "    return x + 1\n"
        "@triton.jit\n"
        "def lin(x, a=2, b=3):\n"
        "    return x * a + b\n"
        "@triton.jit\n"
        "def dbl(n):\n"
        "    return n * 2\n"
        "@triton.jit\n"
        "def store_it(p, v):\n"
        "    tl.store(p, v)\n"
        "@triton.jit\n"
        "def uses_helper(x):\n"
        "    a, b = two(x)\n"
        "    return add1(a) * b\n"
        "@triton.jit\n"
        "def k(out: *i32, outf: *fp32, n: i32, m: i32):\n"
        "    o = tl.arange(0, 4)\n"
        "    a, b = two(o + n)\n"
        "    tl.store(out + o, a)\n"
        "    tl.store(out + 4 + o, b)\n"
        "    t = two(n)\n"
        "    tl.store(out + 8, t[0] + t[1] * 100)\n"
        "    tl.store(out + 9, pick(n, m, 7))\n"
        "    tl.store(out + 10, sign(n) * 10 + sign(m))\n"
        "    tl.store(out + 11, nested(n, m))\n"
        "    tl.store(out + 12 + o, add1(o))\n"
        "    tl.store(outf + o, add1(o * 0.5))\n"
        "    tl.store(outf + 4, add1(2.5))\n"
        "    tl.store(out + 16, lin(n))\n"
        "    tl.store(out + 17, lin(n, b=10))\n"
        "    tl.store(out + 18, lin(n, 4))\n"
        "    tl.store(out + 19, lin(b=1, x=n))\n"
        "    tl.store(out + 20 + tl.arange(0, dbl(4)), tl.arange(0, dbl(4)) + dbl(n))\n"
        "    store_it(out + 28, n * m)\n"
        "    tl.store(out + 29, uses_helper(n))\n"
        "    tl.store(out + 30, add1(add1(m)))\n"
        "    tl.store(outf + 5, pick(n, 1.5, 2.5))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    static const int32_t cases[][2] = {{3, 5}, {3, -5}, {-3, 5}, {0, 0}};
    for (int c = 0; c < 4; c++) {
        int32_t n = cases[c][0], m = cases[c][1], out[31];
        float outf[6];
        nr_devptr d = dev_from(NULL, sizeof out), df = dev_from(NULL, sizeof outf);
        RUN(k, 1, 1, 1, nr_arg_ptr(d), nr_arg_ptr(df), nr_arg_i32(n), nr_arg_i32(m));
        dev_to(out, d, sizeof out);
        dev_to(outf, df, sizeof outf);
        for (int i = 0; i < 4; i++) {
            CHECK(out[i] == i + n + 1 && out[4 + i] == (i + n) * 2, "tuple return at %d: %d %d", i,
                  out[i], out[4 + i]);
            CHECK(out[12 + i] == i + 1, "add1(i32 block) at %d: %d", i, out[12 + i]);
            CHECK(outf[i] == i * 0.5f + 1, "add1(fp32 block) at %d: %g", i, outf[i]);
        }
        CHECK(out[8] == (n + 1) + n * 2 * 100, "tuple indexing: %d", out[8]);
        CHECK(out[9] == (n > 0 ? m : 7), "n=%d m=%d: early return: %d", n, m, out[9]);
        int sg = (n > 0) - (n < 0), sm = (m > 0) - (m < 0);
        CHECK(out[10] == sg * 10 + sm, "n=%d m=%d: if/elif/else returns: %d, want %d", n, m,
              out[10], sg * 10 + sm);
        int nv = n > 0 ? (m > 0 ? n + m : n * 100) : -n;
        CHECK(out[11] == nv, "n=%d m=%d: nested early returns: %d, want %d", n, m, out[11], nv);
        CHECK(outf[4] == 3.5f, "add1(2.5): %g", outf[4]);
        CHECK(out[16] == n * 2 + 3 && out[17] == n * 2 + 10 && out[18] == n * 4 + 3 &&
                  out[19] == n * 2 + 1,
              "defaults and keywords: %d %d %d %d", out[16], out[17], out[18], out[19]);
        for (int i = 0; i < 8; i++)
            CHECK(out[20 + i] == i + 2 * n, "arange(0, dbl(4)) at %d: %d", i, out[20 + i]);
        CHECK(out[28] == n * m, "helper with a side effect only: %d", out[28]);
        CHECK(out[29] == (n + 2) * (n * 2), "helper calling helpers: %d", out[29]);
        CHECK(out[30] == m + 2, "nested calls: %d", out[30]);
        CHECK(outf[5] == (n > 0 ? 1.5f : 2.5f), "early return of floats: %g", outf[5]);
    }
}

/* A helper whose parameters are all annotated (here tl.constexpr) is still a helper when
 * called from a kernel. */
static void test_annotated_helper(void) {
    const char *src = "@triton.jit\n"
                      "def width(n: tl.constexpr):\n"
                      "    return n * 2\n"
                      "@triton.jit\n"
                      "def k(out: *i32):\n"
                      "    tl.store(out + tl.arange(0, width(4)), tl.arange(0, width(4)))\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    nr_devptr d = dev_from(NULL, 32);
    RUN(k, 1, 1, 1, nr_arg_ptr(d));
    int32_t out[8];
    dev_to(out, d, sizeof out);
    int bad = 0;
    for (int i = 0; i < 8; i++) bad += out[i] != i;
    CHECK(bad == 0, "annotated helper: %d wrong", bad);
}

/* Names: swaps, augmented assignment on pointer blocks, rebinding to another type */
static void test_names(void) {
    const char *src = "@triton.jit\n"
                      "def k(x: *fp32, out: *fp32, n: i32):\n"
                      "    a = n\n"
                      "    b = n * 10\n"
                      "    a, b = b, a\n"
                      "    tl.store(out, a.to(tl.float32))\n"
                      "    tl.store(out + 1, b.to(tl.float32))\n"
                      "    o = tl.arange(0, 4)\n"
                      "    p = x + o\n"
                      "    p += 4\n"
                      "    tl.store(out + 2 + o, tl.load(p))\n"
                      "    v = 1\n"
                      "    v = tl.load(x + o)\n"
                      "    v = v.to(tl.int32)\n"
                      "    v = v * 2\n"
                      "    tl.store(out + 6 + o, v)\n"
                      "    q = out + 10\n"
                      "    for i in range(3):\n"
                      "        tl.store(q, i * 1.0)\n"
                      "        q += 1\n"
                      "    c, d, e = 1, 2.5, n\n"
                      "    tl.store(out + 13, c + d + e)\n"
                      "    s = x\n"
                      "    t = out\n"
                      "    s, t = t, s\n"
                      "    tl.store(s + 14, tl.load(t + 1))\n"
                      "    w = z = n + 1\n"
                      "    tl.store(out + 15, (w * z).to(tl.float32))\n"
                      "    y = tl.arange(0, 4)\n"
                      "    y -= 1\n"
                      "    y *= 3\n"
                      "    y //= 2\n"
                      "    y <<= 1\n"
                      "    y |= 1\n"
                      "    tl.store(out + 16 + o, y)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    float x[8] = {1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f, 8.5f};
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 20 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_i32(3));
    float out[20];
    dev_to(out, dout, sizeof out);
    CHECK(out[0] == 30 && out[1] == 3, "swap: %g %g", out[0], out[1]);
    for (int i = 0; i < 4; i++) {
        CHECK(out[2 + i] == x[4 + i], "p += 4 at %d: %g", i, out[2 + i]);
        CHECK(out[6 + i] == (float)((int)x[i] * 2), "rebound to another type at %d: %g", i,
              out[6 + i]);
        int y = i - 1;
        y *= 3;
        y = y / 2; /* C truncation, as // at run time */
        y = (int)((unsigned)y << 1) | 1;
        CHECK(out[16 + i] == (float)y, "augmented operators at %d: %g, want %d", i, out[16 + i], y);
    }
    CHECK(out[10] == 0 && out[11] == 1 && out[12] == 2, "pointer carried through a loop: %g %g %g",
          out[10], out[11], out[12]);
    CHECK(out[13] == 6.5f, "tuple assignment: %g", out[13]);
    CHECK(out[14] == x[1], "pointer swap: %g", out[14]);
    CHECK(out[15] == 16, "chained assignment: %g", out[15]);
}

/* A kernel that returns early (if pid >= n: return) runs the rest only in the other
 * programs; while loops whose condition loads; helpers with early returns called in
 * loops; tuples carried through loops and merged by ifs; loops inside helpers. */
static void test_more_control(void) {
    const char *src = "@triton.jit\n"
                      "def pick(x, a, b):\n"
                      "    if x > 0:\n"
                      "        return a\n"
                      "    return b\n"
                      "@triton.jit\n"
                      "def dbl_n(x, n):\n"
                      "    for i in range(n):\n"
                      "        x = x * 2\n"
                      "    return x\n"
                      "@triton.jit\n"
                      "def k(out: *i32, s: *i32, n: i32):\n"
                      "    pid = tl.program_id(0)\n"
                      "    if pid >= n:\n"
                      "        return\n"
                      "    tl.store(out + pid, pid * 10)\n"
                      "    i = 0\n"
                      "    while tl.load(s + i) != 0:\n"
                      "        i += 1\n"
                      "    tl.store(out + 8 + pid, i)\n"
                      "    acc = 0\n"
                      "    for j in range(5):\n"
                      "        acc += pick(j - 2, 1, 10)\n"
                      "    tl.store(out + 16 + pid, acc)\n"
                      "    t = (n, n + 1)\n"
                      "    for j in range(3):\n"
                      "        t = (t[1], t[0] + t[1])\n"
                      "    tl.store(out + 24 + pid, t[0] * 1000 + t[1])\n"
                      "    tl.store(out + 32 + pid, dbl_n(pid + 1, 3))\n"
                      "    if n > 2:\n"
                      "        u = (1, n)\n"
                      "    else:\n"
                      "        u = (2, -n)\n"
                      "    tl.store(out + 40 + pid, u[0] * 100 + u[1])\n"
                      "    if pid == 1:\n"
                      "        tl.store(out + 48, 7)\n"
                      "        return\n"
                      "    elif pid == 2:\n"
                      "        tl.store(out + 49, 8)\n"
                      "    else:\n"
                      "        return\n"
                      "    tl.store(out + 50, 9)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    int32_t sv[8] = {5, 4, 3, 2, 1, 0, 9, 9};
    for (int n = 1; n <= 3; n += 2) {
        int32_t init[51];
        for (int i = 0; i < 51; i++) init[i] = -1;
        nr_devptr d = dev_from(init, sizeof init), ds = dev_from(sv, sizeof sv);
        RUN(k, 8, 1, 1, nr_arg_ptr(d), nr_arg_ptr(ds), nr_arg_i32(n));
        int32_t out[51];
        dev_to(out, d, sizeof out);
        int a = n, b = n + 1;
        for (int j = 0; j < 3; j++) {
            int t = a + b;
            a = b, b = t;
        }
        for (int pid = 0; pid < 8; pid++) {
            bool ran = pid < n;
            CHECK(out[pid] == (ran ? pid * 10 : -1), "n=%d pid %d: early return: %d", n, pid,
                  out[pid]);
            CHECK(out[8 + pid] == (ran ? 5 : -1),
                  "n=%d pid %d: while with a load in its condition: %d", n, pid, out[8 + pid]);
            CHECK(out[16 + pid] == (ran ? 10 + 10 + 10 + 1 + 1 : -1),
                  "n=%d: early-return helper in a loop: %d", n, out[16 + pid]);
            CHECK(out[24 + pid] == (ran ? a * 1000 + b : -1), "n=%d: tuple carried: %d, want %d", n,
                  out[24 + pid], a * 1000 + b);
            CHECK(out[32 + pid] == (ran ? (pid + 1) * 8 : -1), "n=%d: loop in a helper: %d", n,
                  out[32 + pid]);
            CHECK(out[40 + pid] == (ran ? (n > 2 ? 100 + n : 200 - n) : -1),
                  "n=%d: tuple merged by if: %d", n, out[40 + pid]);
        }
        CHECK(out[48] == (n > 1 ? 7 : -1) && out[49] == (n > 2 ? 8 : -1) &&
                  out[50] == (n > 2 ? 9 : -1),
              "n=%d: returns in if/elif/else: %d %d %d", n, out[48], out[49], out[50]);
    }
}

/* When two paths give a name (or a helper's result) different types, Triton rejects the
 * program ("Inconsistent return types", "Mismatched type", loop-carried type change).
 * Nereid may instead promote, but must never silently convert 2.5 to an integer. */
static void check_no_truncation(int line, const char *src, int32_t n, float want) {
    nr_module *m = NULL;
    nr_compile_options o = {0};
    nr_status s = nr_compile_source(ctx, src, strlen(src), "test.nr", &o, &m);
    if (s == NR_ERR_COMPILE) {
        st.passed++;
        return;
    }
    nr_kernel *k = NULL;
    float got = NAN;
    if (s == NR_OK && nr_module_get_kernel(m, "k", &k) == NR_OK) {
        nr_devptr d = dev_from(NULL, 4);
        nr_arg args[2] = {nr_arg_ptr(d), nr_arg_i32(n)};
        unsigned grid[3] = {1, 1, 1};
        if (nr_launch(k, grid, args, 2, NULL) == NR_OK) dev_to(&got, d, 4);
    }
    if (m) nr_module_destroy(m);
    if (got == want) st.passed++;
    else {
        st.failed++;
        printf(
            "%s:%d: check failed: mixed int/float paths: neither a compile error nor %g, got %g\n",
            __FILE__, line, want, got);
    }
}

static void test_type_merges(void) {
    check_no_truncation(__LINE__,
                        "@triton.jit\n"
                        "def f(x):\n"
                        "    if x > 0:\n"
                        "        return 1\n"
                        "    return 2.5\n"
                        "@triton.jit\n"
                        "def k(out: *fp32, n: i32):\n"
                        "    tl.store(out, f(n))\n",
                        0, 2.5f);
    check_no_truncation(__LINE__,
                        "@triton.jit\n"
                        "def k(out: *fp32, n: i32):\n"
                        "    if n > 0:\n"
                        "        v = n\n"
                        "    else:\n"
                        "        v = 0.5\n"
                        "    tl.store(out, v)\n",
                        0, 0.5f);
    check_no_truncation(__LINE__,
                        "@triton.jit\n"
                        "def k(out: *fp32, n: i32):\n"
                        "    w = 0\n"
                        "    for i in range(n):\n"
                        "        w = 1.5\n"
                        "    tl.store(out, w)\n",
                        3, 1.5f);
    /* integer constants do take the other side's integer type */
    const char *src = "@triton.jit\n"
                      "def k(out: *i64, n: i64):\n"
                      "    if n > 0:\n"
                      "        v = n\n"
                      "    else:\n"
                      "        v = 0\n"
                      "    w = n - n\n"
                      "    for i in range(3):\n"
                      "        w = w * 2 + 1\n"
                      "    tl.store(out, v)\n"
                      "    tl.store(out + 1, w)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    nr_devptr d = dev_from(NULL, 16);
    RUN(k, 1, 1, 1, nr_arg_ptr(d), nr_arg_i64(5000000000LL));
    int64_t out[2];
    dev_to(out, d, sizeof out);
    CHECK(out[0] == 5000000000LL, "i64 merged with 0: %lld", (long long)out[0]);
    CHECK(out[1] == 7, "i64 carried with Python ints: %lld", (long long)out[1]);
}

/* Python syntax kernels use: continuation lines, one-line compound statements,
 * semicolons, docstrings, comments, lists and tuple slices of constants, unary +,
 * ** on constexprs, nested conditional expressions. */
static void test_syntax(void) {
    const char *src = "import triton\n"
                      "import triton.language as tl\n"
                      "\n"
                      "@triton.jit\n"
                      "def k(out: *i32, n: i32,\n"
                      "      M: tl.constexpr):\n"
                      "    \"\"\"docstring\"\"\"\n"
                      "    a = (n +\n"
                      "         1)\n"
                      "    b = n * \\\n"
                      "        2\n"
                      "    if n > 0: tl.store(out, a)\n"
                      "    for i in range(3): b += i\n"
                      "    c = 1; d = 2\n"
                      "    tl.store(out + 1, b); tl.store(out + 2, c + d)\n"
                      "    tl.store(out + 3, +n)\n"
                      "    tl.store(out + 4, 2 ** M + (1 if not M == 3 else 0))\n"
                      "    x = tl.arange(0, 4)\n"
                      "    tl.store(out + 5 + x, x)  # comment\n"
                      "    tl.store(out + 9, (n > 0) + (not n > 0) * 10)\n"
                      "    e = [1, 2, 3]\n"
                      "    tl.store(out + 10, e[1] + e[-1] + len(e))\n"
                      "    f = (1, 2, 3, 4)[1:3]\n"
                      "    tl.store(out + 11, f[0] * 10 + f[1])\n"
                      "    tl.store(out + 12, n if n > 5 else -n if n < 0 else 100)\n"
                      "    tl.store(out + 13, 2 ** -1 * 4 + M // 2 * 10)\n";
    nr_kernel *k = BUILD(src, "M=3");
    if (!k) return;
    static const int32_t ns[] = {7, -4, 2};
    for (int c = 0; c < 3; c++) {
        int32_t n = ns[c], init[14], out[14];
        for (int i = 0; i < 14; i++) init[i] = -99;
        nr_devptr d = dev_from(init, sizeof init);
        RUN(k, 1, 1, 1, nr_arg_ptr(d), nr_arg_i32(n));
        dev_to(out, d, sizeof out);
        CHECK(out[0] == (n > 0 ? n + 1 : -99), "n=%d: one-line if: %d", n, out[0]);
        CHECK(out[1] == n * 2 + 3 && out[2] == 3 && out[3] == n,
              "n=%d: continuations, one-line for, semicolons: %d %d %d", n, out[1], out[2], out[3]);
        CHECK(out[4] == 8, "2 ** M + ...: %d", out[4]);
        for (int i = 0; i < 4; i++) CHECK(out[5 + i] == i, "arange store at %d: %d", i, out[5 + i]);
        CHECK(out[9] == (n > 0 ? 1 : 10), "n=%d: i1 + (not c) * 10: %d", n, out[9]);
        CHECK(out[10] == 8 && out[11] == 23, "list / tuple slice of constants: %d %d", out[10],
              out[11]);
        CHECK(out[12] == (n > 5   ? n
                          : n < 0 ? -n
                                  : 100),
              "n=%d: nested conditional expression: %d", n, out[12]);
        CHECK(out[13] == 12, "2 ** -1 * 4 + M // 2 * 10: %d", out[13]);
    }
}

/* Helpers that branch on their argument's dtype (a compile-time test per
 * specialisation), dtype attributes, a -D value overriding a constexpr default, and two
 * kernels of one module sharing a helper. */
static void test_dtype_dispatch(void) {
    const char *src = "@triton.jit\n"
                      "def up(x):\n"
                      "    if x.dtype == tl.float16:\n"
                      "        return x.to(tl.float32) * 2\n"
                      "    elif x.dtype.is_int():\n"
                      "        return (x * 3).to(tl.float32)\n"
                      "    return x\n"
                      "@triton.jit\n"
                      "def k(h: *fp16, out: *fp32, BLOCK: tl.constexpr = 32):\n"
                      "    o = tl.arange(0, 4)\n"
                      "    v = tl.load(h + o)\n"
                      "    tl.store(out + o, up(v))\n"
                      "    tl.store(out + 4 + o, up(o))\n"
                      "    tl.store(out + 8 + o, up(o * 1.5))\n"
                      "    tl.store(out + 12, BLOCK + v.dtype.primitive_bitwidth + "
                      "h.dtype.element_ty.primitive_bitwidth * 100)\n"
                      "    tl.store(out + 13, v.dtype.is_floating() + v.dtype.is_fp16() * 10 + "
                      "o.dtype.is_int_signed() * 100)\n"
                      "@triton.jit\n"
                      "def k2(h: *fp16, out: *fp32):\n"
                      "    o = tl.arange(0, 4)\n"
                      "    tl.store(out + 16 + o, up(tl.load(h + o)) + 1)\n";
    nr_kernel *k = BUILD(src, "BLOCK=64");
    if (!k) return;
    nr_kernel *k2 = NULL;
    CHECK(nr_module_get_kernel(mods[nmods - 1], "k2", &k2) == NR_OK, "second kernel: %s",
          nr_last_error(ctx));
    if (!k2) return;
    uint16_t h[4] = {h16(1.5), h16(-2.0), h16(0.1), h16(1000.0)};
    nr_devptr dh = dev_from(h, sizeof h), dout = dev_from(NULL, 20 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dh), nr_arg_ptr(dout));
    RUN(k2, 1, 1, 1, nr_arg_ptr(dh), nr_arg_ptr(dout));
    float out[20];
    dev_to(out, dout, sizeof out);
    for (int i = 0; i < 4; i++) {
        float hv = (float)f16(h[i]);
        CHECK(out[i] == hv * 2, "up(fp16) at %d: %g", i, out[i]);
        CHECK(out[4 + i] == (float)(i * 3), "up(i32) at %d: %g", i, out[4 + i]);
        CHECK(out[8 + i] == (float)i * 1.5f, "up(fp32) at %d: %g", i, out[8 + i]);
        CHECK(out[16 + i] == hv * 2 + 1, "k2: up(fp16) + 1 at %d: %g", i, out[16 + i]);
    }
    CHECK(out[12] == 64 + 16 + 1600, "-D overriding a default, primitive_bitwidth, element_ty: %g",
          out[12]);
    CHECK(out[13] == 111, "dtype predicates: %g", out[13]);
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) {
        printf("no CPU context\n");
        return 1;
    }
    test_for();
    test_for_types();
    test_static_range();
    test_while();
    test_if();
    test_constexpr_if();
    test_bool_scalars();
    test_lazy_ifexp();
    test_helpers();
    test_annotated_helper();
    test_names();
    test_more_control();
    test_syntax();
    test_dtype_dispatch();
    test_type_merges();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang3", &st);
}
