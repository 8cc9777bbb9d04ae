/* test_lang_ops.c - language operations on the CPU interpreter, the reference semantics:
 * tl.atomic_cas on float elements (bit patterns compared), bitwise operators with Python
 * scalars (weak, Triton's typing: u16 & 0x8000 stays u16), tl.dot_scaled with an e2m1
 * operand against bf16, e4m3 and e5m2 ones and the bit-level e2m1 decoding Triton's tests
 * use as their reference, tl.extra.cuda.smid/globaltimer/num_threads/num_warps, and
 * batched (3-D and 4-D) tl.dot, and nr_compile_options.debug's checks (asserts, integer
 * overflow). */
#include "lang_harness.h"

/* ---- 1. atomic_cas on fp16, bf16, fp32 and fp64: the compare is on bit patterns ---- */

static const char *K_CAS =
    "@triton.jit\n"
    "def k(x: *DT, old: *DT, DT: tl.constexpr):\n"
    "    offs = tl.arange(0, 8)\n"
    "    o = tl.atomic_cas(x + offs, tl.full((8,), 0, DT), tl.full((8,), 2.5, DT), sem='relaxed')\n"
    "    tl.store(old + offs, o)\n";

static void test_cas_floats(void) {
    /* +0, -0, 1, +0, NaN, +0, 7, -0: only the +0 bit patterns match */
    static const double in[8] = {0.0, -0.0, 1.0, 0.0, NAN, 0.0, 7.0, -0.0};
    static const char *const dts[4] = {"tl.float16", "tl.bfloat16", "tl.float32", "tl.float64"};
    for (int t = 0; t < 4; t++) {
        char defs[64];
        snprintf(defs, sizeof defs, "DT=%s", dts[t]);
        nr_kernel *k = BUILD(K_CAS, defs);
        if (!k) continue;
        size_t es = t < 2 ? 2 : t == 2 ? 4 : 8;
        unsigned char buf[64], before[64], after[64], old[64];
        for (int i = 0; i < 8; i++) {
            if (t == 0) {
                uint16_t h = h16(in[i]);
                memcpy(buf + 2 * i, &h, 2);
            } else if (t == 1) {
                uint16_t h = hbf(in[i]);
                memcpy(buf + 2 * i, &h, 2);
            } else if (t == 2) {
                float f = (float)in[i];
                memcpy(buf + 4 * i, &f, 4);
            } else {
                memcpy(buf + 8 * i, &in[i], 8);
            }
        }
        memcpy(before, buf, 8 * es);
        nr_devptr dx = dev_from(buf, 8 * es), dold = dev_from(NULL, 8 * es);
        RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dold));
        dev_to(after, dx, 8 * es), dev_to(old, dold, 8 * es);
        int bad = memcmp(old, before, 8 * es) != 0;
        for (int i = 0; i < 8; i++) {
            bool hit = in[i] == 0.0 && !signbit(in[i]);
            double v;
            if (t == 0 || t == 1) {
                uint16_t h;
                memcpy(&h, after + 2 * i, 2);
                v = t == 0 ? f16(h) : fbf(h);
            } else if (t == 2) {
                float f;
                memcpy(&f, after + 4 * i, 4);
                v = f;
            } else {
                memcpy(&v, after + 8 * i, 8);
            }
            if (hit) bad += v != 2.5;
            else bad += memcmp(after + es * i, before + es * i, es) != 0;
        }
        CHECK(bad == 0, "atomic_cas on %s: %d wrong", dts[t], bad);
        nr_free(ctx, dx), nr_free(ctx, dold);
    }
    COMPILE_ERROR("@triton.jit\n"
                  "def k(x: *i16):\n"
                  "    tl.atomic_add(x, 1)\n",
                  NULL, "atomic_add: atomics on i16 are not supported (as in Triton)");
    COMPILE_ERROR("@triton.jit\n"
                  "def k(x: *u8):\n"
                  "    tl.atomic_cas(x, 0, 1)\n",
                  NULL, "tl.atomic_cas needs 16, 32 or 64-bit elements, got u8");
}

/* ---- 2. bitwise operators with a Python int: the block's type, the int must fit ---- */

/* Triton's test_scaled_dot reference decodes e2m1 nibbles to bf16 bits in u16 arithmetic:
 * each & and | with a Python int must stay u16 for the final bitcast to bf16. */
static const char *K_E2M1_BITS =
    "@triton.jit\n"
    "def k(x_ptr: *u8, out: *bf16, types: *i32):\n"
    "    x = tl.load(x_ptr + tl.arange(0, 128))\n"
    "    to_m_bits: tl.constexpr = 7\n"
    "    to_bias: tl.constexpr = 127\n"
    "    to_point5: tl.constexpr = 16128\n"
    "    em0 = x & 0x7\n"
    "    em1 = x & 0x70\n"
    "    x0 = (em0.to(tl.uint16) << (to_m_bits - 1)) | ((x & 0x8).to(tl.uint16) << 12)\n"
    "    x1 = (em1.to(tl.uint16) << (to_m_bits - 1 - 4)) | ((x & 0x80).to(tl.uint16) << 8)\n"
    "    x0 = tl.where((em0 & 0x6) != 0, x0 + ((to_bias - 1) << to_m_bits), x0)\n"
    "    x1 = tl.where((em1 & 0x60) != 0, x1 + ((to_bias - 1) << to_m_bits), x1)\n"
    "    x0 = tl.where(em0 == 0x1, to_point5 | (x0 & 0x8000), x0)\n"
    "    x1 = tl.where(em1 == 0x10, to_point5 | (x1 & 0x8000), x1)\n"
    "    y = tl.interleave(x0, x1).to(tl.bfloat16, bitcast=True)\n"
    "    tl.store(out + tl.arange(0, 256), y)\n"
    "    tl.static_assert((x0 & 0x8000).dtype == tl.uint16)\n"
    "    tl.static_assert((0x7 ^ em0).dtype == tl.uint8)\n"
    "    i = tl.load(types + tl.arange(0, 4))\n"
    "    tl.static_assert((i | 1).dtype == tl.int32)\n"
    "    tl.static_assert((i.to(tl.int64) & 1).dtype == tl.int64)\n"
    "    tl.static_assert(((x < 3) & True).dtype == tl.int1)\n"
    "    tl.store(types + tl.arange(0, 4), i | 0x10)\n";

static double dec_e2m1(int n) {
    int e = (n >> 1) & 3, m = n & 1;
    double v = e ? ldexp(1.0 + m / 2.0, e - 1) : m * 0.5;
    return n & 8 ? -v : v;
}

static void test_bitwise_weak(void) {
    nr_kernel *k = BUILD(K_E2M1_BITS, NULL);
    if (k) {
        uint8_t x[128];
        for (int i = 0; i < 128; i++) x[i] = (uint8_t)(i * 37 + 11);
        x[0] = 0x00, x[1] = 0x88, x[2] = 0x19, x[3] = 0xF7;
        int32_t types[4] = {0, 1, 2, 0x10};
        nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, 512),
                  dt = dev_from(types, sizeof types);
        RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout), nr_arg_ptr(dt));
        uint16_t out[256];
        dev_to(out, dout, sizeof out), dev_to(types, dt, sizeof types);
        int bad = 0;
        for (int i = 0; i < 128; i++)
            for (int h = 0; h < 2; h++) {
                double want = dec_e2m1(h ? x[i] >> 4 : x[i] & 15);
                double got = fbf(out[2 * i + h]);
                bad += got != want || signbit(got) != signbit(want);
            }
        CHECK(bad == 0, "e2m1 decoded in u16 bit arithmetic: %d wrong", bad);
        CHECK(types[0] == 0x10 && types[1] == 0x11 && types[3] == 0x10, "i32 | 0x10: %d %d %d",
              types[0], types[1], types[3]);
        nr_free(ctx, dx), nr_free(ctx, dout), nr_free(ctx, dt);
    }
    /* the Python int must fit the block's type, as for + and * */
    COMPILE_ERROR("@triton.jit\n"
                  "def k(x: *u8):\n"
                  "    v = tl.load(x + tl.arange(0, 4))\n"
                  "    tl.store(x + tl.arange(0, 4), v & 0x100)\n",
                  NULL, "Scalar 256 is out of range for type uint8");
}

/* ---- 3. tl.dot_scaled: e2m1 against bf16, e4m3 and e5m2 (Triton's test_scaled_dot) ---- */

/* As Triton's test writes it: a [M, K/2] of packed e2m1 (or [M, K] of another format), b
 * [K, N] (or [K/2, N]), one e8m0 scale per 32 elements along K for the e2m1 operand. */
static const char *K_SCALED =
    "@triton.jit\n"
    "def k(a_base: *TA, stride_a0: i32, stride_a1: i32, a_scale: *u8, b_base: *TB,\n"
    "      stride_b0: i32, stride_b1: i32, b_scale: *u8, out: *fp32, BLOCK_M: tl.constexpr,\n"
    "      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, type_a: tl.constexpr,\n"
    "      type_b: tl.constexpr, TA: tl.constexpr, TB: tl.constexpr):\n"
    "    DIV_A: tl.constexpr = 2 if type_a == 'e2m1' else 1\n"
    "    DIV_B: tl.constexpr = 2 if type_b == 'e2m1' else 1\n"
    "    a_ptr = a_base + tl.arange(0, BLOCK_M)[:, None] * stride_a0 + "
    "tl.arange(0, BLOCK_K // DIV_A)[None, :] * stride_a1\n"
    "    b_ptr = b_base + tl.arange(0, BLOCK_K // DIV_B)[:, None] * stride_b0 + "
    "tl.arange(0, BLOCK_N)[None, :] * stride_b1\n"
    "    a = tl.load(a_ptr)\n"
    "    b = tl.load(b_ptr)\n"
    "    SK: tl.constexpr = BLOCK_K // 32\n"
    "    sa = None\n"
    "    sb = None\n"
    "    if type_a == 'e2m1':\n"
    "        sa = tl.load(a_scale + tl.arange(0, BLOCK_M)[:, None] * SK + "
    "tl.arange(0, SK)[None, :])\n"
    "    if type_b == 'e2m1':\n"
    "        sb = tl.load(b_scale + tl.arange(0, BLOCK_N)[:, None] * SK + "
    "tl.arange(0, SK)[None, :])\n"
    "    c = tl.dot_scaled(a, sa, type_a, b, sb, type_b)\n"
    "    tl.store(out + tl.arange(0, BLOCK_M)[:, None] * BLOCK_N + "
    "tl.arange(0, BLOCK_N)[None, :], c)\n";

static double dec_fp8(uint8_t x, int ebits) {
    int mbits = 7 - ebits, bias = (1 << (ebits - 1)) - 1;
    int e = (x >> mbits) & ((1 << ebits) - 1), m = x & ((1 << mbits) - 1);
    double v = e ? ldexp(1.0 + (double)m / (1 << mbits), e - bias)
                 : ldexp((double)m / (1 << mbits), 1 - bias);
    return x & 0x80 ? -v : v;
}

/* fmt of the other operand: 0 bf16, 1 e4m3, 2 e5m2; rhs: the e2m1 operand is b */
static void scaled_case(int fmt, bool rhs) {
    enum { M = 16, N = 16, K = 64 };
    static const char *const names[3] = {"bf16", "e4m3", "e5m2"};
    char defs[256];
    const char *other_ty = fmt ? "tl.uint8" : "tl.bfloat16";
    snprintf(defs, sizeof defs, "BLOCK_M=%d BLOCK_N=%d BLOCK_K=%d type_a=%s type_b=%s TA=%s TB=%s",
             M, N, K, rhs ? names[fmt] : "e2m1", rhs ? "e2m1" : names[fmt],
             rhs ? other_ty : "tl.uint8", rhs ? "tl.uint8" : other_ty);
    nr_kernel *k = BUILD(K_SCALED, defs);
    if (!k) return;
    /* the e2m1 operand, K-packed: a [M, K/2] row-major, or b [K/2, N] column-major (as
     * Triton's col_b: stride (1, K/2)); the other operand [M, K] or [K, N] row-major */
    uint8_t packed[M * K / 2], scale[M * K / 32], other8[M * K];
    uint16_t other16[M * K];
    unsigned seed = 99u + (unsigned)fmt * 7u + (rhs ? 1000u : 0u);
    for (int i = 0; i < M * K / 2; i++) {
        seed = seed * 1103515245u + 12345u;
        packed[i] = (uint8_t)(seed >> 16);
    }
    for (int i = 0; i < M * K / 32; i++) {
        seed = seed * 1103515245u + 12345u;
        scale[i] = (uint8_t)(120 + (seed >> 16) % 14);
    }
    for (int i = 0; i < M * K; i++) {
        seed = seed * 1103515245u + 12345u;
        uint8_t b = (uint8_t)(seed >> 16);
        if (fmt == 1 && (b & 0x7F) == 0x7F) b ^= 1;           /* no e4m3 NaN */
        if (fmt == 2 && (b & 0x7C) == 0x7C) b &= (uint8_t)~4; /* no e5m2 inf or NaN */
        other8[i] = b;
        other16[i] = hbf((double)((int)((seed >> 8) % 17) - 8) * 0.125);
    }
    nr_devptr dp = dev_from(packed, sizeof packed), ds = dev_from(scale, sizeof scale),
              dother = fmt ? dev_from(other8, sizeof other8) : dev_from(other16, sizeof other16),
              dout = dev_from(NULL, M * N * 4);
    /* the e2m1 operand's element (row r of a or column r of b, position q along K) */
#define E2M1(r, q)                                                           \
    (dec_e2m1((packed[(r) * (K / 2) + (q) / 2] >> ((q) % 2 ? 4 : 0)) & 15) * \
     ldexp(1.0, scale[(r) * (K / 32) + (q) / 32] - 127))
#define OTHER(i) (fmt ? dec_fp8(other8[i], fmt == 1 ? 4 : 5) : fbf(other16[i]))
    if (!rhs) /* a e2m1 [M, K/2] (strides K/2, 1), b other [K, N] (N, 1) */
        RUN(k, 1, 1, 1, nr_arg_ptr(dp), nr_arg_i32(K / 2), nr_arg_i32(1), nr_arg_ptr(ds),
            nr_arg_ptr(dother), nr_arg_i32(N), nr_arg_i32(1), nr_arg_ptr(ds), nr_arg_ptr(dout));
    else /* a other [M, K] (K, 1), b e2m1 [K/2, N] column-major: (1, K/2) */
        RUN(k, 1, 1, 1, nr_arg_ptr(dother), nr_arg_i32(K), nr_arg_i32(1), nr_arg_ptr(ds),
            nr_arg_ptr(dp), nr_arg_i32(1), nr_arg_i32(K / 2), nr_arg_ptr(ds), nr_arg_ptr(dout));
    float c[M * N];
    dev_to(c, dout, sizeof c);
    int bad = 0;
    double worst = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double want = 0, sabs = 0;
            for (int q = 0; q < K; q++) {
                /* every operand is decoded to bf16 first (the compute type): e2m1, bf16 and
                 * the fp8 values times a power of two are exact in bf16 but for e4m3/e5m2
                 * with 3 or 2 mantissa bits: exact too */
                double x = rhs ? OTHER(m * K + q) : rbf(E2M1(m, q));
                double y = rhs ? rbf(E2M1(n, q)) : OTHER(q * N + n);
                want += x * y;
                sabs += fabs(x * y);
            }
            double err = fabs(c[m * N + n] - want);
            worst = err > worst ? err : worst;
            bad += err > 4e-6 * sabs; /* fp32 sums in k order: within 64 * 2^-24 */
        }
#undef E2M1
#undef OTHER
    CHECK(bad == 0, "dot_scaled %s x %s: %d wrong (worst %g)", rhs ? names[fmt] : "e2m1",
          rhs ? "e2m1" : names[fmt], bad, worst);
    nr_free(ctx, dp), nr_free(ctx, ds), nr_free(ctx, dother), nr_free(ctx, dout);
}

static void test_dot_scaled_e2m1(void) {
    for (int fmt = 0; fmt < 3; fmt++) {
        scaled_case(fmt, false);
        scaled_case(fmt, true);
    }
}

/* ---- 4. tl.extra.cuda: smid 0, globaltimer monotonic, num_threads of the warps ---- */

static const char *K_CUDA_EXTRA =
    "@triton.jit\n"
    "def k(out: *i32, t: *i64):\n"
    "    num_threads: tl.constexpr = tl.extra.cuda.num_threads()\n"
    "    tl.store(out + tl.arange(0, num_threads), 1)\n"
    "    start = tl.extra.cuda.globaltimer()\n"
    "    for i in range(100):\n"
    "        tl.store(out + tl.arange(0, num_threads), tl.load(out + tl.arange(0, num_threads)) + "
    "1)\n"
    "    end = tl.extra.cuda.globaltimer()\n"
    "    tl.store(out + num_threads + tl.program_id(0), tl.extra.cuda.smid() + 5)\n"
    "    tl.store(t + 2 * tl.program_id(0), start)\n"
    "    tl.store(t + 2 * tl.program_id(0) + 1, end)\n"
    "    tl.static_assert(tl.extra.cuda.num_warps() * 32 == num_threads)\n";

static void test_cuda_extra(void) {
    nr_compile_options o = {.num_warps = 8};
    nr_module *m = NULL;
    nr_status s = nr_compile_source(ctx, K_CUDA_EXTRA, strlen(K_CUDA_EXTRA), "test.nr", &o, &m);
    CHECK(s == NR_OK, "compile with num_warps=8: %s", nr_last_error(ctx));
    if (s) return;
    mods[nmods++] = m;
    nr_kernel *k = NULL;
    nr_module_get_kernel(m, "k", &k);
    nr_devptr dout = dev_from(NULL, (256 + 3) * 4), dt = dev_from(NULL, 6 * 8);
    RUN(k, 3, 1, 1, nr_arg_ptr(dout), nr_arg_ptr(dt));
    int32_t out[259];
    int64_t t[6];
    dev_to(out, dout, sizeof out), dev_to(t, dt, sizeof t);
    int bad = 0;
    for (int i = 0; i < 256; i++) bad += out[i] != 101;
    CHECK(bad == 0, "num_threads() == 256 with 8 warps: %d wrong", bad);
    CHECK(out[256] == 5 && out[257] == 5 && out[258] == 5, "smid() is 0: %d %d %d", out[256] - 5,
          out[257] - 5, out[258] - 5);
    CHECK(t[0] > 0 && t[1] >= t[0] && t[2] >= t[1] && t[3] >= t[2] && t[5] >= t[4],
          "globaltimer() never decreases: %lld %lld %lld %lld", (long long)t[0], (long long)t[1],
          (long long)t[2], (long long)t[3]);
    /* Triton's num_warps is a compile option: a launch with another count runs the kernel
     * compiled for it (Triton's test_num_threads), the same count the module's own */
    unsigned grid[3] = {1, 1, 1};
    nr_arg args[2] = {nr_arg_ptr(dout), nr_arg_ptr(dt)};
    for (int w = 4; w <= 8; w *= 2)
        for (int again = 0; again < 2; again++) {
            nr_launch_options lo = {.num_warps = w};
            nr_memset(ctx, dout, 0, sizeof out);
            s = nr_launch(k, grid, args, 2, &lo);
            CHECK(s == NR_OK, "launch with num_warps=%d: %s", w, nr_last_error(ctx));
            dev_to(out, dout, sizeof out);
            int n = 32 * w < 256 ? 32 * w : 256, wrong = 0;
            for (int i = 0; i < n; i++) wrong += out[i] != 101;
            for (int i = n + 1; i < 256; i++) wrong += out[i] != 0;
            CHECK(!wrong && (n == 256 || out[n] == 5),
                  "num_warps=%d at the launch: num_threads() is %d: %d wrong", w, 32 * w, wrong);
        }
    nr_free(ctx, dout), nr_free(ctx, dt);
}

/* Triton's test_num_threads: compiled with the default count (4 warps), launched with
 * num_warps=8, the kernel sees 256 threads */
static void test_num_threads_launch(void) {
    static const char *src = "@triton.jit\n"
                             "def k(out: *i32):\n"
                             "    num_threads: tl.constexpr = tl.extra.cuda.num_threads()\n"
                             "    tl.store(out + tl.arange(0, num_threads), 1)\n";
    nr_kernel *k = BUILD(src, NULL);
    if (!k) return;
    nr_devptr d = dev_from(NULL, 256 * 4);
    nr_launch_options lo = {.num_warps = 8};
    unsigned grid[3] = {1, 1, 1};
    nr_arg args[1] = {nr_arg_ptr(d)};
    nr_status s = nr_launch(k, grid, args, 1, &lo);
    int32_t out[256];
    dev_to(out, d, sizeof out);
    int sum = 0;
    for (int i = 0; i < 256; i++) sum += out[i];
    CHECK(s == NR_OK && sum == 256, "num_warps=8 on a kernel compiled for 4: %s, sum %d",
          nr_last_error(ctx), sum);
    nr_free(ctx, d);
}

/* ---- 5. the GPU code generator's options through the C API: checked on every device ---- */

static void test_codegen_options(void) {
    static const char *src =
        "@triton.jit\n"
        "def k(x: *fp32):\n"
        "    tl.store(x + tl.arange(0, 4), tl.load(x + tl.arange(0, 4)) * 2.0 + 1.0)\n";
    nr_module *m = NULL;
    nr_compile_options o = {.maxnreg = 8};
    nr_status s = nr_compile_source(ctx, src, strlen(src), "t.nr", &o, &m);
    CHECK(s == NR_ERR_INVALID_ARG &&
              strstr(nr_last_error(ctx), "maxnreg must be 0 (no limit) or from 16 to 255, got 8"),
          "compile with maxnreg=8: %s: %s", nr_status_string(s), nr_last_error(ctx));
    o = (nr_compile_options){.enable_fp_fusion = 2};
    s = nr_compile_source(ctx, src, strlen(src), "t.nr", &o, &m);
    CHECK(s == NR_ERR_INVALID_ARG, "compile with enable_fp_fusion=2: %s", nr_status_string(s));
    o = (nr_compile_options){.maxnreg = 64, .enable_fp_fusion = 1, .enable_reflect_ftz = -1};
    s = nr_compile_source(ctx, src, strlen(src), "t.nr", &o, &m);
    CHECK(s == NR_OK, "compile with maxnreg=64, fusion on, ftz off: %s", nr_last_error(ctx));
    if (s) return;
    mods[nmods++] = m;
    nr_kernel *k = NULL;
    nr_module_get_kernel(m, "k", &k);
    float x[4] = {1, 2, 3, 4};
    nr_devptr dx = dev_from(x, sizeof x);
    unsigned grid[3] = {1, 1, 1};
    nr_arg args[1] = {nr_arg_ptr(dx)};
    nr_launch_options lo = {.maxnreg = -1, .enable_fp_fusion = -1, .enable_reflect_ftz = 1};
    CHECK(nr_launch(k, grid, args, 1, &lo) == NR_OK, "launch overriding the options: %s",
          nr_last_error(ctx));
    dev_to(x, dx, sizeof x);
    CHECK(x[0] == 3 && x[3] == 9, "x * 2 + 1: %g %g", x[0], x[3]);
    lo = (nr_launch_options){.maxnreg = 256};
    s = nr_launch(k, grid, args, 1, &lo);
    CHECK(s == NR_ERR_INVALID_ARG &&
              strstr(nr_last_error(ctx),
                     "maxnreg must be 0 (as compiled), -1 (no limit) or from 16 to 255, got 256"),
          "launch with maxnreg=256: %s: %s", nr_status_string(s), nr_last_error(ctx));
    lo = (nr_launch_options){.enable_reflect_ftz = -2};
    s = nr_launch(k, grid, args, 1, &lo);
    CHECK(s == NR_ERR_INVALID_ARG, "launch with enable_reflect_ftz=-2: %s", nr_status_string(s));
    int def = -1, lo_ = 0, hi = 0, p2 = 1;
    CHECK(nr_option_info("maxnreg", &def, &lo_, &hi, &p2) == NR_OK && def == 0 && lo_ == 16 &&
              hi == 255 && !p2,
          "nr_option_info(maxnreg): %d %d %d %d", def, lo_, hi, p2);
    nr_free(ctx, dx);
}

/* ---- 6. nr_compile_options.debug: which run-time checks a compile makes ---- */

static nr_status run_checked(int debug, int32_t x, int32_t y, int32_t *sum) {
    static const char *src = "@triton.jit\n"
                             "def k(x: *i32, y: *i32, out: *i32):\n"
                             "    a = tl.load(x)\n"
                             "    tl.device_assert(a != 7, 'not seven')\n"
                             "    tl.store(out, a + tl.load(y))\n";
    nr_module *m = NULL;
    nr_compile_options o = {.debug = debug};
    nr_status s = nr_compile_source(ctx, src, strlen(src), "t.nr", &o, &m);
    if (s) return s;
    mods[nmods++] = m;
    nr_kernel *k = NULL;
    nr_module_get_kernel(m, "k", &k);
    nr_devptr dx = dev_from(&x, 4), dy = dev_from(&y, 4), dz = dev_from(NULL, 4);
    unsigned grid[3] = {1, 1, 1};
    nr_arg args[3] = {nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dz)};
    s = nr_launch(k, grid, args, 3, NULL);
    if (!s) dev_to(sum, dz, 4);
    nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, dz);
    return s;
}

static void test_debug_option(void) {
    int32_t sum = 0;
    nr_module *m = NULL;
    nr_compile_options o = {.debug = 2};
    nr_status s = nr_compile_source(ctx, "", 0, "t.nr", &o, &m);
    CHECK(s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "debug must be 0"),
          "compile with debug=2: %s: %s", nr_status_string(s), nr_last_error(ctx));
    /* 0: the assert, no overflow check (the sum wraps) */
    s = run_checked(0, 7, 1, &sum);
    CHECK(s == NR_ERR_LAUNCH && strstr(nr_last_error(ctx), "not seven"),
          "debug=0, a failing assert: %s: %s", nr_status_string(s), nr_last_error(ctx));
    s = run_checked(0, INT32_MAX, 1, &sum);
    CHECK(s == NR_OK && sum == INT32_MIN, "debug=0, an overflowing sum: %s, %d", nr_last_error(ctx),
          sum);
    /* -1: nothing checked */
    s = run_checked(-1, 7, 1, &sum);
    CHECK(s == NR_OK && sum == 8, "debug=-1, the assert left out: %s, %d", nr_last_error(ctx), sum);
    /* 1: the assert and the overflow */
    s = run_checked(1, INT32_MAX, 1, &sum);
    CHECK(s == NR_ERR_LAUNCH &&
              strstr(nr_last_error(ctx), "int32 overflow detected for operation add"),
          "debug=1, an overflowing sum: %s: %s", nr_status_string(s), nr_last_error(ctx));
    s = run_checked(1, INT32_MIN, -1, &sum);
    CHECK(s == NR_ERR_LAUNCH, "debug=1, INT32_MIN + -1: %s", nr_status_string(s));
    s = run_checked(1, INT32_MAX, -1, &sum);
    CHECK(s == NR_OK && sum == INT32_MAX - 1, "debug=1, a sum that fits: %s, %d",
          nr_last_error(ctx), sum);
    s = run_checked(1, 7, 0, &sum);
    CHECK(s == NR_ERR_LAUNCH && strstr(nr_last_error(ctx), "not seven"),
          "debug=1, a failing assert: %s: %s", nr_status_string(s), nr_last_error(ctx));
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    test_cas_floats();
    test_bitwise_weak();
    test_dot_scaled_e2m1();
    test_cuda_extra();
    test_num_threads_launch();
    test_codegen_options();
    test_debug_option();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_ops", &st);
}
