/* test_lang_scan.c - scans and reductions with a combine function on the CPU interpreter
 * against plain C: tl.cumsum and tl.cumprod (dtype rules, reverse, along each axis of
 * 2-D and 3-D blocks), tl.associative_scan with a user function on a tuple (a linear
 * recurrence h = a h + b, whose combine is associative but not commutative, so the order
 * of application shows), tl.reduce with a user function (argmax by value then index; the
 * same recurrence), tl.xor_sum and tl.reduce_or (axis None, keep_dims), and the scan and
 * reduce_fn ops' text form read back. */
#include "lang_harness.h"

/* ---- cumsum / cumprod along each axis of a 2-D block ---- */

static const char *K_CUM2D =
    "@triton.jit\n"
    "def k(x: *i32, f: *fp32, o: *i32, p: *fp32, R: tl.constexpr, C: tl.constexpr):\n"
    "    r = tl.arange(0, R)[:, None]\n"
    "    c = tl.arange(0, C)[None, :]\n"
    "    v = tl.load(x + r * C + c)\n"
    "    w = tl.load(f + r * C + c)\n"
    "    n = R * C\n"
    "    tl.store(o + r * C + c, tl.cumsum(v, axis=0))\n"
    "    tl.store(o + n + r * C + c, tl.cumsum(v, 1))\n"
    "    tl.store(o + 2 * n + r * C + c, v.cumsum(1, reverse=True))\n"
    "    tl.store(o + 3 * n + r * C + c, tl.cumprod(v, 0, reverse=True))\n"
    "    tl.store(p + r * C + c, tl.cumprod(w, axis=-1))\n"
    "    tl.store(p + n + r * C + c, tl.cumsum(w.to(tl.bfloat16), 0).to(tl.float32))\n";

static void test_cum2d(int R, int C) {
    char defs[64];
    snprintf(defs, sizeof defs, "R=%d C=%d", R, C);
    nr_kernel *k = BUILD(K_CUM2D, defs);
    if (!k) return;
    int n = R * C;
    int32_t *x = malloc(4 * (size_t)n), *o = malloc(16 * (size_t)n);
    float *f = malloc(4 * (size_t)n), *p = malloc(8 * (size_t)n);
    for (int i = 0; i < n; i++) x[i] = (i * 7919) % 23 - 11, f[i] = (float)(0.5 + (i % 5) * 0.25);
    nr_devptr dx = dev_from(x, 4 * (size_t)n), df = dev_from(f, 4 * (size_t)n);
    nr_devptr dout = dev_from(NULL, 16 * (size_t)n), dp = dev_from(NULL, 8 * (size_t)n);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(df), nr_arg_ptr(dout), nr_arg_ptr(dp));
    dev_to(o, dout, 16 * (size_t)n), dev_to(p, dp, 8 * (size_t)n);
    int bad[6] = {0};
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            int32_t s0 = 0, s1 = 0, s2 = 0;
            uint32_t pr = 1;
            float q = 1;
            for (int i = 0; i <= r; i++) s0 += x[i * C + c];
            for (int j = 0; j <= c; j++) s1 += x[r * C + j];
            for (int j = c; j < C; j++) s2 += x[r * C + j];
            for (int i = R - 1; i >= r; i--) pr *= (uint32_t)x[i * C + c];
            for (int j = 0; j <= c; j++) q *= f[r * C + j];
            int at = r * C + c;
            bad[0] += o[at] != s0, bad[1] += o[n + at] != s1, bad[2] += o[2 * n + at] != s2;
            bad[3] += (uint32_t)o[3 * n + at] != pr, bad[4] += p[at] != q;
        }
    /* bf16 cumsum computes in fp32 (Triton's promotion): each sum rounded to fp32 */
    for (int c = 0; c < C; c++) {
        float s = 0;
        for (int r = 0; r < R; r++) {
            s += (float)rbf(f[r * C + c]);
            bad[5] += p[n + r * C + c] != s;
        }
    }
    static const char *const what[6] = {"cumsum axis 0",        "cumsum axis 1",
                                        "cumsum reverse",       "cumprod reverse axis 0",
                                        "cumprod fp32 axis -1", "cumsum bf16 (fp32)"};
    for (int j = 0; j < 6; j++) CHECK(bad[j] == 0, "%dx%d %s: %d wrong", R, C, what[j], bad[j]);
    nr_free(ctx, dx), nr_free(ctx, df), nr_free(ctx, dout), nr_free(ctx, dp);
    free(x), free(o), free(f), free(p);
}

/* ---- a linear recurrence by associative_scan, forward and reverse; tl.reduce ---- */

static const char *K_REC =
    "@triton.jit\n"
    "def compose(a1, b1, a2, b2):\n"
    "    # h -> a2 (a1 h + b1) + b2: apply (a1, b1) first\n"
    "    return a1 * a2, b1 * a2 + b2\n"
    "\n"
    "@triton.jit\n"
    "def argmax_combine(v1, i1, v2, i2):\n"
    "    pick = (v1 > v2) | ((v1 == v2) & (i1 < i2))\n"
    "    return tl.where(pick, v1, v2), tl.where(pick, i1, i2)\n"
    "\n"
    "@triton.jit\n"
    "def k(a_ptr: *i32, b_ptr: *i32, v_ptr: *fp32, o: *i32, w: *fp32, N: tl.constexpr):\n"
    "    i = tl.arange(0, N)\n"
    "    a = tl.load(a_ptr + i)\n"
    "    b = tl.load(b_ptr + i)\n"
    "    v = tl.load(v_ptr + i)\n"
    "    _, h = tl.associative_scan((a, b), 0, compose)\n"
    "    _, g = tl.associative_scan((a, b), 0, compose, reverse=True)\n"
    "    ra, rb = tl.reduce((a, b), 0, compose)\n"
    "    mv, mi = tl.reduce((v, i), 0, argmax_combine)\n"
    "    tl.store(o + i, h)\n"
    "    tl.store(o + N + i, g)\n"
    "    tl.store(o + 2 * N, ra)\n"
    "    tl.store(o + 2 * N + 1, rb)\n"
    "    tl.store(o + 2 * N + 2, mi)\n"
    "    tl.store(w, mv)\n"
    "    tl.store(o + 2 * N + 3, tl.xor_sum(b, axis=0))\n"
    "    tl.store(o + 2 * N + 4, tl.xor_sum(b))\n"
    "    tl.store(o + 2 * N + 5, tl.reduce_or(b, None))\n"
    "    tl.store(o + 2 * N + 6 + tl.arange(0, 1), tl.xor_sum(b, 0, keep_dims=True))\n";

static void test_recurrence(int N) {
    char defs[32];
    snprintf(defs, sizeof defs, "N=%d", N);
    nr_kernel *k = BUILD(K_REC, defs);
    if (!k) return;
    int32_t *a = malloc(4 * (size_t)N), *b = malloc(4 * (size_t)N),
            *o = malloc(4 * (size_t)(2 * N + 7));
    float *v = malloc(4 * (size_t)N), mv;
    for (int i = 0; i < N; i++)
        a[i] = i % 3 - 1 + (i % 7 == 0) * 2, b[i] = (i * 31) % 17 - 8, v[i] = (float)((i * 13) % 9);
    nr_devptr da = dev_from(a, 4 * (size_t)N), db = dev_from(b, 4 * (size_t)N),
              dv = dev_from(v, 4 * (size_t)N);
    nr_devptr dout = dev_from(NULL, 4 * (size_t)(2 * N + 7)), dw = dev_from(NULL, 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(da), nr_arg_ptr(db), nr_arg_ptr(dv), nr_arg_ptr(dout),
        nr_arg_ptr(dw));
    dev_to(o, dout, 4 * (size_t)(2 * N + 7)), dev_to(&mv, dw, 4);
    /* forward: h_k = a_k h_{k-1} + b_k from h = b_0; reverse: g_k = a_k g_{k+1} + b_k? no:
     * the reverse scan combines (acc, x) with acc from the later elements, so g_k is the
     * composition applying (a_{L-1}, b_{L-1}) first, then ..., then (a_k, b_k) */
    int bad_f = 0, bad_r = 0;
    uint32_t h = (uint32_t)b[0], A = (uint32_t)a[0], Bc = (uint32_t)b[0];
    for (int i = 0; i < N; i++) {
        if (i) {
            h = (uint32_t)a[i] * h + (uint32_t)b[i];
            A *= (uint32_t)a[i], Bc = Bc * (uint32_t)a[i] + (uint32_t)b[i];
        }
        bad_f += (uint32_t)o[i] != h;
    }
    uint32_t g = (uint32_t)b[N - 1];
    for (int i = N - 1; i >= 0; i--) {
        if (i < N - 1) g = g * (uint32_t)a[i] + (uint32_t)b[i];
        bad_r += (uint32_t)o[N + i] != g;
    }
    CHECK(bad_f == 0, "N=%d: forward recurrence scan: %d wrong", N, bad_f);
    CHECK(bad_r == 0, "N=%d: reverse recurrence scan: %d wrong", N, bad_r);
    CHECK((uint32_t)o[2 * N] == A && (uint32_t)o[2 * N + 1] == Bc,
          "N=%d: reduce of the recurrence (%d, %d), want (%u, %u)", N, o[2 * N], o[2 * N + 1], A,
          Bc);
    int best = 0;
    for (int i = 1; i < N; i++)
        if (v[i] > v[best]) best = i;
    CHECK(o[2 * N + 2] == best && mv == v[best], "N=%d: argmax by tl.reduce: %d (%g), want %d", N,
          o[2 * N + 2], mv, best);
    int32_t x = 0, or = 0;
    for (int i = 0; i < N; i++) x ^= b[i], or |= b[i];
    CHECK(o[2 * N + 3] == x && o[2 * N + 4] == x && o[2 * N + 6] == x,
          "N=%d: xor_sum %d %d %d, want %d", N, o[2 * N + 3], o[2 * N + 4], o[2 * N + 6], x);
    CHECK(o[2 * N + 5] == or, "N=%d: reduce_or %d, want %d", N, o[2 * N + 5], or);
    nr_free(ctx, da), nr_free(ctx, db), nr_free(ctx, dv), nr_free(ctx, dout), nr_free(ctx, dw);
    free(a), free(b), free(o), free(v);
}

/* ---- 3-D: along the middle axis; small integers are summed in 32 bits ---- */

static const char *K_3D = "@triton.jit\n"
                          "def k(x: *i8, o: *i32, q: *i8):\n"
                          "    i = tl.arange(0, 4)[:, None, None] * 32 + tl.arange(0, 8)[None, :, "
                          "None] * 4 + tl.arange(0, 4)[None, None, :]\n"
                          "    v = tl.load(x + i)\n"
                          "    c = tl.cumsum(v, 1)\n"
                          "    tl.static_assert(c.dtype == tl.int32)\n"
                          "    tl.store(o + i, c)\n"
                          "    tl.store(q + i, tl.cumsum(v, 1, dtype=tl.int8))\n";

static void test_3d(void) {
    nr_kernel *k = BUILD(K_3D, NULL);
    if (!k) return;
    int8_t x[128], q[128];
    int32_t o[128];
    for (int i = 0; i < 128; i++) x[i] = (int8_t)(i * 37 + 100);
    nr_devptr dx = dev_from(x, 128), dout = dev_from(NULL, 512), dq = dev_from(NULL, 128);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_ptr(dq));
    dev_to(o, dout, 512), dev_to(q, dq, 128);
    int bad = 0, badq = 0;
    for (int a = 0; a < 4; a++)
        for (int c = 0; c < 4; c++) {
            int32_t s = 0;
            int8_t s8 = 0;
            for (int b = 0; b < 8; b++) {
                s += x[a * 32 + b * 4 + c];
                s8 = (int8_t)(s8 + x[a * 32 + b * 4 + c]);
                bad += o[a * 32 + b * 4 + c] != s;
                badq += q[a * 32 + b * 4 + c] != s8;
            }
        }
    CHECK(bad == 0, "3-D cumsum of i8 in i32: %d wrong", bad);
    CHECK(badq == 0, "3-D cumsum with dtype=tl.int8 (wrapping): %d wrong", badq);
    nr_free(ctx, dx), nr_free(ctx, dout), nr_free(ctx, dq);
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    test_cum2d(4, 8);
    test_cum2d(16, 2);
    test_cum2d(1, 32);
    test_recurrence(1);
    test_recurrence(2);
    test_recurrence(64);
    test_recurrence(1024);
    test_3d();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_scan", &st);
}
