/* test_lang_gaps2.c - front-end features Triton's tutorials use, run on the CPU interpreter
 * against plain C: a helper's tl.constexpr parameter given a block (Triton 3.0's fused
 * attention) and tensor.type on a scalar; integers and pointers converted into each other with
 * .to() (Triton 3.0's grouped GEMM loads its matrices' addresses as int64); tl.dot_scaled. */
#include "lang_harness.h"

/* ---- 1. a helper's annotations are not checked: a block passed to 'offs: tl.constexpr' ---- */

static const char *K_HELPER_CONSTEXPR_BLOCK =
    "@triton.jit\n"
    "def inner(acc, offs: tl.constexpr, STAGE: tl.constexpr, N: tl.constexpr):\n"
    "    if STAGE == 2:\n"
    "        acc = acc + tl.where(offs >= N // 2, offs, 0).to(tl.float32)\n"
    "    else:\n"
    "        acc = acc + offs.to(tl.float32) * 10.0\n"
    "    return acc\n"
    "\n"
    "@triton.jit\n"
    "def k(x: *fp32, Out: *fp16, base: i32, N: tl.constexpr):\n"
    "    offs = base + tl.arange(0, N)\n"
    "    acc = tl.zeros([N], dtype=tl.float32)\n"
    "    acc = inner(acc, offs, 1, N)\n"
    "    acc = inner(acc, offs, 2, N)\n"
    "    tl.store(x + tl.arange(0, N), acc)\n"
    "    tl.store(Out + tl.arange(0, N), acc.to(Out.type.element_ty))\n"
    "    tl.store(x + N, base.to(base.type).to(tl.float32))\n";

static void test_helper_constexpr_block(void) {
    nr_kernel *k = BUILD(K_HELPER_CONSTEXPR_BLOCK, "N=16");
    if (!k) return;
    nr_devptr dx = dev_from(NULL, 17 * 4), dout = dev_from(NULL, 16 * 2);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_i32(3));
    float x[17];
    uint16_t out[16];
    dev_to(x, dx, sizeof x), dev_to(out, dout, sizeof out);
    int bad = 0;
    for (int i = 0; i < 16; i++) {
        int o = 3 + i;
        float want = (float)o * 10.0f + (o >= 8 ? (float)o : 0.0f);
        bad += x[i] != want || out[i] != h16(want);
    }
    CHECK(bad == 0, "block through a tl.constexpr parameter: %d wrong", bad);
    CHECK(x[16] == 3.0f, "base.to(base.type): %g", x[16]);
    nr_free(ctx, dx), nr_free(ctx, dout);
    /* a block's .type is Triton's block_type: .scalar and .shape read it, .to() takes its
     * element type (Triton's cast reads .scalar), and its dtype predicates are false */
    nr_kernel *k2 =
        BUILD("@triton.jit\n"
              "def k(x: *fp32):\n"
              "    v = tl.load(x + tl.arange(0, 4))\n"
              "    tl.static_assert(v.type.scalar == tl.float32 and v.type.shape == [4])\n"
              "    tl.static_assert(v.type.is_block() and not v.type.is_floating())\n"
              "    tl.store(x + tl.arange(0, 4), v.to(v.type) * 2)\n",
              NULL);
    if (!k2) return;
    float h[4] = {1, 2, 3, 4.5f};
    nr_devptr dh = dev_from(h, sizeof h);
    RUN(k2, 1, 1, 1, nr_arg_ptr(dh));
    dev_to(h, dh, sizeof h);
    CHECK(h[0] == 2 && h[1] == 4 && h[2] == 6 && h[3] == 9, "v.to(v.type) * 2: %g %g %g %g", h[0],
          h[1], h[2], h[3]);
    nr_free(ctx, dh);
}

/* ---- 2. integers and pointers: .to() with Triton's cast rules ---- */

static const char *K_INT_PTR =
    "@triton.jit\n"
    "def k(addrs: *i64, out: *i64, G: tl.constexpr, N: tl.constexpr):\n"
    "    for g in range(G):\n"
    "        p = tl.load(addrs + g).to(tl.pointer_type(tl.float32))\n"
    "        offs = tl.arange(0, N)\n"
    "        v = tl.load(p + offs)\n"
    "        tl.store(p + offs, v * (g + 1))\n"
    "        q = (p + 1).to(tl.int64)\n"
    "        tl.store(out + 4 * g, q - tl.load(addrs + g))\n"
    "        tl.store(out + 4 * g + 1, p.to(tl.uint64).to(tl.int64) - p.to(tl.int64, "
    "bitcast=True))\n"
    "        tl.store(out + 4 * g + 2, p.to(tl.int1).to(tl.int64))\n"
    "        r = p.to(tl.pointer_type(tl.int32), bitcast=True)\n"
    "        tl.store(out + 4 * g + 3, r.to(tl.int64) - p.to(tl.int64))\n"
    "    ps = tl.load(addrs + tl.arange(0, G)).to(tl.pointer_type(tl.float32))\n"
    "    tl.store(ps + 1, tl.load(ps + 1) + 100.0)\n";

static void test_int_ptr(void) {
    nr_kernel *k = BUILD(K_INT_PTR, "G=2 N=8");
    if (!k) return;
    float a[8], b[8];
    for (int i = 0; i < 8; i++) a[i] = (float)i, b[i] = (float)(10 + i);
    nr_devptr da = dev_from(a, sizeof a), db = dev_from(b, sizeof b);
    int64_t addrs[2] = {(int64_t)da, (int64_t)db};
    nr_devptr dadd = dev_from(addrs, sizeof addrs), dout = dev_from(NULL, 8 * 8);
    RUN(k, 1, 1, 1, nr_arg_ptr(dadd), nr_arg_ptr(dout));
    float ra[8], rb[8];
    int64_t out[8];
    dev_to(ra, da, sizeof ra), dev_to(rb, db, sizeof rb), dev_to(out, dout, sizeof out);
    int bad = 0;
    for (int i = 0; i < 8; i++)
        bad += ra[i] != a[i] + (i == 1 ? 100.0f : 0.0f) ||
               rb[i] != 2.0f * b[i] + (i == 1 ? 100.0f : 0.0f);
    CHECK(bad == 0, "loads and stores through int64 addresses made pointers: %d wrong", bad);
    for (int g = 0; g < 2; g++)
        CHECK(out[4 * g] == 4 && out[4 * g + 1] == 0 && out[4 * g + 2] == 1 && out[4 * g + 3] == 0,
              "pointer %d as integers: %lld %lld %lld %lld", g, (long long)out[4 * g],
              (long long)out[4 * g + 1], (long long)out[4 * g + 2], (long long)out[4 * g + 3]);
    nr_free(ctx, da), nr_free(ctx, db), nr_free(ctx, dadd), nr_free(ctx, dout);
    /* Triton's other cases are errors: only 64-bit integers become pointers, pointers
     * become only 64-bit integers, i1 or pointers */
    COMPILE_ERROR("@triton.jit\n"
                  "def k(x: *i32):\n"
                  "    p = tl.load(x).to(tl.pointer_type(tl.float32))\n",
                  NULL,
                  "test.nr:3:9: error: cannot cast i32 to ptr<fp32>: only a 64-bit integer "
                  "converts to a pointer");
    COMPILE_ERROR("@triton.jit\n"
                  "def k(x: *i32):\n"
                  "    tl.store(x, x.to(tl.int32))\n",
                  NULL, "cannot cast ptr<i32> to i32: a pointer converts to a 64-bit integer");
    COMPILE_ERROR("@triton.jit\n"
                  "def k(x: *fp64):\n"
                  "    tl.store(x, x.to(tl.float64, bitcast=True))\n",
                  NULL, "cannot cast ptr<fp64> to fp64");
    COMPILE_ERROR("@triton.jit\n"
                  "def k(x: *fp64):\n"
                  "    tl.load(x).to(tl.pointer_type(tl.float64))\n",
                  NULL, "cannot cast fp64 to ptr<fp64>");
}

/* ---- 3. tl.dot_scaled: the operands decoded to bf16/fp16, scaled, then a dot ---- */

static const char *K_DOT_SCALED =
    "@triton.jit\n"
    "def k(a_ptr: *u8, sa_ptr: *u8, b_ptr: *u8, sb_ptr: *u8, h_ptr: *bf16, c_ptr: *fp32,\n"
    "      d_ptr: *fp32):\n"
    "    r16 = tl.arange(0, 16)\n"
    "    a = tl.load(a_ptr + r16[:, None] * 64 + tl.arange(0, 64)[None, :])\n"
    "    sa = tl.load(sa_ptr + r16[:, None] * 2 + tl.arange(0, 2)[None, :])\n"
    "    b = tl.load(b_ptr + tl.arange(0, 32)[:, None] * 16 + r16[None, :])\n"
    "    sb = tl.load(sb_ptr + r16[:, None] * 2 + tl.arange(0, 2)[None, :])\n"
    "    c = tl.dot_scaled(a, sa, 'e4m3', b, sb, 'e2m1')\n"
    "    tl.store(c_ptr + r16[:, None] * 16 + r16[None, :], c)\n"
    "    h = tl.load(h_ptr + r16[:, None] * 64 + tl.arange(0, 64)[None, :])\n"
    "    e = tl.load(a_ptr + tl.arange(0, 64)[:, None] * 16 + r16[None, :])\n"
    "    acc = tl.full((16, 16), 1.0, tl.float32)\n"
    "    d = tl.dot_scaled(h, None, 'bf16', e, sb, 'e5m2', acc=acc, fast_math=True)\n"
    "    tl.store(d_ptr + r16[:, None] * 16 + r16[None, :], d)\n";

static double dec_e4m3(uint8_t x) {
    int e = (x >> 3) & 15, m = x & 7;
    double v = e ? ldexp(1.0 + m / 8.0, e - 7) : ldexp(m / 8.0, -6);
    return x & 0x80 ? -v : v;
}
static double dec_e5m2(uint8_t x) {
    int e = (x >> 2) & 31, m = x & 3;
    double v = e ? ldexp(1.0 + m / 4.0, e - 15) : ldexp(m / 4.0, -14);
    return x & 0x80 ? -v : v;
}
static double dec_e2m1(int n) {
    int e = (n >> 1) & 3, m = n & 1;
    double v = e ? ldexp(1.0 + m / 2.0, e - 1) : m * 0.5;
    return n & 8 ? -v : v;
}

static void test_dot_scaled(void) {
    nr_kernel *k = BUILD(K_DOT_SCALED, NULL);
    if (!k) return;
    uint8_t a[16 * 64], sa[16 * 2], b[32 * 16], sb[16 * 2];
    uint16_t h[16 * 64];
    unsigned seed = 12345;
    for (int i = 0; i < 16 * 64; i++) { /* e4m3 (and e5m2) magnitudes in [0.5, 4) */
        seed = seed * 1103515245u + 12345u;
        a[i] = (uint8_t)(((seed >> 16) & 0x80) | ((6 + (seed >> 8) % 3) << 3) | ((seed >> 4) & 7));
        h[i] = hbf((double)((int)((seed >> 20) % 9) - 4) * 0.25);
    }
    for (int i = 0; i < 32 * 16; i++) {
        seed = seed * 1103515245u + 12345u;
        b[i] = (uint8_t)(seed >> 16);
    }
    for (int i = 0; i < 32; i++) {
        seed = seed * 1103515245u + 12345u;
        sa[i] = (uint8_t)(125 + (seed >> 16) % 5), sb[i] = (uint8_t)(125 + (seed >> 20) % 5);
    }
    sa[2 * 3 + 1] = 0xFF; /* row 3's second block of K: NaN */
    nr_devptr da = dev_from(a, sizeof a), dsa = dev_from(sa, sizeof sa), db = dev_from(b, sizeof b),
              dsb = dev_from(sb, sizeof sb), dh = dev_from(h, sizeof h),
              dc = dev_from(NULL, 256 * 4), dd = dev_from(NULL, 256 * 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(da), nr_arg_ptr(dsa), nr_arg_ptr(db), nr_arg_ptr(dsb),
        nr_arg_ptr(dh), nr_arg_ptr(dc), nr_arg_ptr(dd));
    float c[256], d[256];
    dev_to(c, dc, sizeof c), dev_to(d, dd, sizeof d);
    int bad = 0, badd = 0;
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 16; n++) {
            double want = 0, wantd = 1;
            for (int q = 0; q < 64; q++) {
                double x = dec_e4m3(a[m * 64 + q]) * ldexp(1.0, sa[m * 2 + q / 32] - 127);
                int nib = (b[(q / 2) * 16 + n] >> (q % 2 ? 4 : 0)) & 15;
                double y = dec_e2m1(nib) * ldexp(1.0, sb[n * 2 + q / 32] - 127);
                want += x * y;
                wantd += fbf(h[m * 64 + q]) *
                         (dec_e5m2(a[q * 16 + n]) * ldexp(1.0, sb[n * 2 + q / 32] - 127));
            }
            bad += m == 3 ? !isnan(c[m * 16 + n]) : c[m * 16 + n] != (float)want;
            badd += d[m * 16 + n] != (float)wantd;
        }
    CHECK(bad == 0, "dot_scaled e4m3 x e2m1: %d wrong (c[0] %g)", bad, c[0]);
    CHECK(badd == 0, "dot_scaled bf16 x e5m2 with acc: %d wrong (d[0] %g)", badd, d[0]);
    nr_free(ctx, da), nr_free(ctx, dsa), nr_free(ctx, db), nr_free(ctx, dsb);
    nr_free(ctx, dh), nr_free(ctx, dc), nr_free(ctx, dd);
    COMPILE_ERROR(
        "@triton.jit\n"
        "def k(a: *u8, c: *fp32):\n"
        "    x = tl.load(a + tl.arange(0, 16)[:, None] * 64 + tl.arange(0, 64)[None, :])\n"
        "    y = tl.load(a + tl.arange(0, 64)[:, None] * 16 + tl.arange(0, 16)[None, :])\n"
        "    tl.store(c + tl.arange(0, 16), tl.sum(tl.dot_scaled(x, None, 'e3m2', y, None, "
        "'e4m3'), 1))\n",
        NULL, "dot_scaled: lhs_format must be one of e2m1, e4m3, e5m2, bf16, fp16");
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    test_helper_constexpr_block();
    test_int_ptr();
    test_dot_scaled();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_gaps2", &st);
}
