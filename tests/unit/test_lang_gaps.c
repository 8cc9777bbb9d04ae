/* test_lang_gaps.c - front-end features Triton's own tests use, run on the CPU
 * interpreter against plain C: defines that are dtypes and tuples, .to() on compile-time
 * numbers, tl.cat, kernels without run-time parameters, descriptors with a run-time last
 * stride, descriptor atomics, expand_dims at the end, getattr/isinstance, conditions on
 * one-element blocks, range keywords, combine functions with control flow, noinline
 * helpers. */
#include "lang_harness.h"

/* Compile src with the defines d[0..n) (values may hold spaces: tuples) and return its
 * kernel kname (NULL and a failed check on an error). */
static nr_kernel *build_named(int line, const char *src, const nr_define *d, int n,
                              const char *kname) {
    nr_compile_options o = {.defines = d, .num_defines = n};
    nr_module *m = NULL;
    nr_status s = nr_compile_source(ctx, src, strlen(src), "test.nr", &o, &m);
    if (s != NR_OK) {
        st.failed++;
        printf("%s:%d: check failed: compile: %s\n%s\n", __FILE__, line, nr_status_string(s),
               nr_last_error(ctx));
        return NULL;
    }
    st.passed++;
    if (nmods < 256) mods[nmods++] = m;
    nr_kernel *k = NULL;
    if (nr_module_get_kernel(m, kname, &k) != NR_OK) {
        st.failed++;
        printf("%s:%d: check failed: no kernel '%s': %s\n", __FILE__, line, kname,
               nr_last_error(ctx));
        return NULL;
    }
    return k;
}
#define BUILD_D(src, d, n) build_named(__LINE__, src, d, n, "k")

/* ---- 1. defines holding dtypes and tuples ---- */

static const char *K_DEFINES =
    "@triton.jit\n"
    "def k(x: *DT, y: *fp32, DT: tl.constexpr, SHAPE: tl.constexpr, PERM: tl.constexpr,\n"
    "      OUT: tl.constexpr):\n"
    "    n: tl.constexpr = SHAPE[0] * SHAPE[1]\n"
    "    v = tl.reshape(tl.load(x + tl.arange(0, n)), SHAPE)\n"
    "    v = tl.permute(v, PERM) + tl.full(SHAPE[::-1] if PERM == (1, 0) else SHAPE, 1, DT)\n"
    "    if DT.is_fp16():\n"
    "        v = v * 2\n"
    "    o = tl.reshape(v, (n,) + ())\n"
    "    tl.store(y + tl.arange(0, n), o.to(OUT[0]).to(tl.float32))\n";

static void test_defines(void) {
    const char *dts[] = {"tl.float16", "tl.bfloat16", "tl.float32"};
    for (int t = 0; t < 3; t++) {
        nr_define d[] = {{"DT", dts[t]},
                         {"SHAPE", "(4, 8)"},
                         {"PERM", "(1, 0)"},
                         {"OUT", "(tl.float32, 'unused')"}};
        nr_kernel *k = BUILD_D(K_DEFINES, d, 4);
        if (!k) continue;
        int esz = t == 2 ? 4 : 2;
        unsigned char xb[32 * 4];
        for (int i = 0; i < 32; i++) {
            if (t == 2) {
                float f = (float)i;
                memcpy(xb + 4 * i, &f, 4);
            } else {
                uint16_t h = t == 0 ? enc_fmt(i, 10, 5) : enc_fmt(i, 7, 8);
                memcpy(xb + 2 * i, &h, 2);
            }
        }
        nr_devptr dx = dev_from(xb, (size_t)(32 * esz)), dy = dev_from(NULL, 32 * 4);
        RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dy));
        float y[32];
        dev_to(y, dy, sizeof y);
        int bad = 0;
        for (int r = 0; r < 8; r++) /* y is x (4x8) transposed to 8x4, plus 1, doubled in fp16 */
            for (int c = 0; c < 4; c++) {
                float want = (float)(c * 8 + r) + 1.0f;
                if (t == 0) want *= 2.0f;
                bad += y[r * 4 + c] != want;
            }
        CHECK(bad == 0, "defines DT=%s: %d wrong", dts[t], bad);
        nr_free(ctx, dx), nr_free(ctx, dy);
    }
}

/* ---- 2. methods of compile-time numbers ---- */

static const char *K_CONST_TO =
    "@triton.jit\n"
    "def k(x: *i64, y: *fp32, n: i32):\n"
    "    acc = 0\n"
    "    acc = acc.to(tl.int64)\n"
    "    for i in range(n):\n"
    "        acc += 1 << 40\n"
    "        acc += i\n"
    "    tl.store(x, acc)\n"
    "    tl.store(x + 1, (3.75).to(tl.int64))\n"
    "    tl.store(x + 2, (1.0).to(tl.int32, bitcast=True).to(tl.int64))\n"
    "    f = 2.0\n"
    "    tl.store(y, f.exp() + (7).cdiv(2) + (0.0).sigmoid())\n";

static void test_const_methods(void) {
    nr_kernel *k = BUILD_D(K_CONST_TO, NULL, 0);
    if (!k) return;
    nr_devptr dx = dev_from(NULL, 3 * 8), dy = dev_from(NULL, 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_i32(5));
    int64_t x[3];
    float y;
    dev_to(x, dx, sizeof x), dev_to(&y, dy, 4);
    CHECK(x[0] == 5 * (INT64_C(1) << 40) + 10, "acc.to(tl.int64) accumulates in i64: %lld",
          (long long)x[0]);
    CHECK(x[1] == 3 && x[2] == 0x3F800000, "(3.75).to(i64) %lld, bitcast %llx", (long long)x[1],
          (long long)x[2]);
    CHECK(fabsf(y - (expf(2.0f) + 4.0f + 0.5f)) < 1e-5f, "methods on constants: %g", y);
    nr_free(ctx, dx), nr_free(ctx, dy);
}

/* ---- 3. tl.cat ---- */

static const char *K_CAT =
    "@triton.jit\n"
    "def k(X: *DT, Y: *DT, Z: *DT, N: tl.constexpr, DT: tl.constexpr):\n"
    "    offs = tl.arange(0, N)\n"
    "    z = tl.cat(tl.load(X + offs), tl.load(Y + offs), can_reorder=True)\n"
    "    tl.store(Z + tl.arange(0, 2 * N), z)\n";

static void test_cat(void) {
    const char *dts[] = {"tl.int8", "tl.int32", "tl.int64", "tl.float32"};
    const int sizes[] = {1, 8, 128};
    for (int t = 0; t < 4; t++)
        for (int si = 0; si < 3; si++) {
            int n = sizes[si], esz = t == 0 ? 1 : t == 2 ? 8 : 4;
            char nb[16];
            snprintf(nb, sizeof nb, "%d", n);
            nr_define d[] = {{"N", nb}, {"DT", dts[t]}};
            nr_kernel *k = BUILD_D(K_CAT, d, 2);
            if (!k) continue;
            unsigned char x[128 * 8], y[128 * 8], z[256 * 8];
            for (int i = 0; i < n * esz; i++)
                x[i] = (unsigned char)(i * 7 + 1), y[i] = (unsigned char)(i * 5 + 3);
            nr_devptr dx = dev_from(x, (size_t)(n * esz)), dy = dev_from(y, (size_t)(n * esz)),
                      dz = dev_from(NULL, (size_t)(2 * n * esz));
            RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dz));
            dev_to(z, dz, (size_t)(2 * n * esz));
            CHECK(!memcmp(z, x, (size_t)(n * esz)) && !memcmp(z + n * esz, y, (size_t)(n * esz)),
                  "tl.cat of two <%dx%s>: not x then y", n, dts[t]);
            nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, dz);
        }
}

/* ---- 5. kernels without run-time parameters ---- */

static const char *K_NO_ARGS = "@triton.jit\n"
                               "def k0():\n"
                               "    tl.device_assert(tl.program_id(0) < 4, 'pid')\n"
                               "\n"
                               "@triton.jit\n"
                               "def k1(N: tl.constexpr = 2):\n"
                               "    tl.device_assert(tl.program_id(0) < N, 'pid < N')\n";

static void test_no_args(void) {
    for (int i = 0; i < 3; i++) {
        nr_define d[] = {{"N", "3"}};
        nr_compile_options o = {.defines = d, .num_defines = i == 2, .kernel = i ? "k1" : "k0"};
        nr_module *m = NULL;
        nr_status s = nr_compile_source(ctx, K_NO_ARGS, strlen(K_NO_ARGS), "test.nr", &o, &m);
        CHECK(s == NR_OK, "a kernel without run-time parameters (%d): %s", i, nr_last_error(ctx));
        if (s != NR_OK) continue;
        if (nmods < 256) mods[nmods++] = m;
        nr_kernel *k = NULL;
        if (nr_module_get_kernel(m, i ? "k1" : "k0", &k) != NR_OK) continue;
        int limit = i == 0 ? 4 : i == 1 ? 2 : 3;
        unsigned grid[3] = {(unsigned)limit, 1, 1};
        CHECK(nr_launch(k, grid, NULL, 0, NULL) == NR_OK, "launch of %d programs: %s", limit,
              nr_last_error(ctx));
        grid[0] = (unsigned)limit + 1;
        CHECK(nr_launch(k, grid, NULL, 0, NULL) == NR_ERR_LAUNCH &&
                  strstr(nr_last_error(ctx), "device_assert failed"),
              "launch of %d programs: the assertion must fail: %s", limit + 1, nr_last_error(ctx));
    }
    /* compiling the whole file: they are helpers, and there is no kernel */
    nr_compile_options o = {0};
    nr_module *m = NULL;
    nr_status s = nr_compile_source(ctx, K_NO_ARGS, strlen(K_NO_ARGS), "test.nr", &o, &m);
    CHECK(s == NR_ERR_COMPILE && strstr(nr_last_error(ctx), "no kernels found"),
          "the whole file: %s", nr_last_error(ctx));
    if (s == NR_OK) nr_module_destroy(m);
}

/* ---- 8. device descriptors with a run-time last stride ---- */

static const char *K_DESC_STRIDE =
    "@triton.jit\n"
    "def k(x: *fp32, y: *fp32, M: i32, N: i32, sm: i32, sn: i32, info: *i64):\n"
    "    d = tl.make_tensor_descriptor(x, [M, N], [sm, sn], [4, 8])\n"
    "    e = tl.make_tensor_descriptor(y, [M, N], [N, 1], [4, 8])\n"
    "    pm = tl.program_id(0)\n"
    "    pn = tl.program_id(1)\n"
    "    v = d.load([pm * 4, pn * 8])\n"
    "    e.store([pm * 4, pn * 8], v + 1.0)\n"
    "    d.store([pm * 4, pn * 8], v * 2.0)\n"
    "    tl.store(info, d.strides[1])\n";

static void test_desc_stride(void) {
    nr_kernel *k = BUILD_D(K_DESC_STRIDE, NULL, 0);
    if (!k) return;
    for (int sn = 1; sn <= 3; sn++) {
        int M = 7, N = 13, sm = N * sn + 2, total = M * sm;
        float *x = malloc(4 * (size_t)total), *y = malloc(4 * (size_t)M * N);
        for (int i = 0; i < total; i++) x[i] = (float)i;
        nr_devptr dx = dev_from(x, 4 * (size_t)total), dy = dev_from(NULL, 4 * (size_t)M * N),
                  di = dev_from(NULL, 8);
        RUN(k, 2, 2, 1, nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_i32(M), nr_arg_i32(N),
            nr_arg_i32(sm), nr_arg_i32(sn), nr_arg_ptr(di));
        float *x2 = malloc(4 * (size_t)total);
        int64_t info = 0;
        dev_to(x2, dx, 4 * (size_t)total), dev_to(y, dy, 4 * (size_t)M * N), dev_to(&info, di, 8);
        int bad = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int at = i * sm + j * sn;
                bad += y[i * N + j] != (float)at + 1.0f;
            }
        for (int a = 0; a < total; a++) { /* the tile's elements doubled, the others kept */
            int i = a / sm, r = a % sm;
            bool in = r % sn == 0 && r / sn < N && i < M;
            bad += x2[a] != (in ? 2.0f * (float)a : (float)a);
        }
        CHECK(bad == 0 && info == sn,
              "make_tensor_descriptor with last stride %d at run time: %d "
              "wrong, strides[1] %lld",
              sn, bad, (long long)info);
        nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, di);
        free(x), free(x2), free(y);
    }
}

/* ---- 9. descriptor atomics, desc.store converting ---- */

static const char *K_DESC_ATOMIC =
    "@triton.jit\n"
    "def k(hd: \"tensordesc<DT[2, 16]>\", out: *DT, a: *DT, M: i32, N: i32, DT: tl.constexpr,\n"
    "      KIND: tl.constexpr, HOST: tl.constexpr):\n"
    "    mo = tl.program_id(0) * 2\n"
    "    no = tl.program_id(1) * 16\n"
    "    mi = mo + tl.arange(0, 2)[:, None]\n"
    "    ni = no + tl.arange(0, 16)[None, :]\n"
    "    v = tl.load(a + mi * N + ni, mask=(mi < M) & (ni < N), other=0)\n"
    "    if HOST:\n"
    "        d = hd\n"
    "    else:\n"
    "        d = tl.make_tensor_descriptor(out, [M, N], [N, 1], [2, 16])\n"
    "    if KIND == 'add':\n"
    "        d.atomic_add([mo, no], v)\n"
    "    elif KIND == 'min':\n"
    "        d.atomic_min([mo, no], v)\n"
    "    elif KIND == 'max':\n"
    "        d.atomic_max([mo, no], v)\n"
    "    elif KIND == 'and':\n"
    "        d.atomic_and([mo, no], v)\n"
    "    elif KIND == 'or':\n"
    "        d.atomic_or([mo, no], v)\n"
    "    else:\n"
    "        d.atomic_xor([mo, no], v)\n";

static int64_t ref_op(const char *kind, int64_t x, int64_t y, bool is_unsigned) {
    if (!strcmp(kind, "add")) return x + y;
    if (!strcmp(kind, "min"))
        return is_unsigned ? ((uint64_t)x < (uint64_t)y ? x : y) : (x < y ? x : y);
    if (!strcmp(kind, "max"))
        return is_unsigned ? ((uint64_t)x > (uint64_t)y ? x : y) : (x > y ? x : y);
    if (!strcmp(kind, "and")) return x & y;
    if (!strcmp(kind, "or")) return x | y;
    return x ^ y;
}

static void test_desc_atomics(void) {
    const char *kinds[] = {"add", "min", "max", "and", "or", "xor"};
    const int M = 5, N = 20, pad = 3; /* the output's rows are N + pad apart (host) */
    for (int kd = 0; kd < 6; kd++)
        for (int t = 0; t < 5; t++) /* i32, u64, fp32 (add only), bf16, fp16 (min, max) */
            for (int host = 0; host < 2; host++) {
                if (t == 2 && kd) continue;
                if (t >= 3 && kd != 1 && kd != 2) continue;
                const char *dt = (const char *[]){"i32", "u64", "fp32", "bf16", "fp16"}[t];
                char kq[16];
                snprintf(kq, sizeof kq, "'%s'", kinds[kd]);
                nr_define d[] = {{"DT", dt}, {"KIND", kq}, {"HOST", host ? "True" : "False"}};
                nr_kernel *k = BUILD_D(K_DESC_ATOMIC, d, 3);
                if (!k) continue;
                int esz = t == 1 ? 8 : t >= 3 ? 2 : 4, ld = host ? N + pad : N, total = M * ld;
                int64_t av[5 * 20], ov[5 * 23];
                unsigned char abuf[5 * 20 * 8], obuf[5 * 23 * 8];
                bool sg = t == 0 || t >= 3;
                for (int i = 0; i < M * N; i++) av[i] = (i * 37 + 11) % 23 - (sg ? 9 : 0);
                for (int i = 0; i < total; i++) ov[i] = (i * 53 + 5) % 19 - (sg ? 7 : 0);
                for (int i = 0; i < M * N; i++) {
                    if (t >= 3) {
                        uint16_t h = t == 3 ? hbf((double)av[i]) : h16((double)av[i]);
                        memcpy(abuf + 2 * i, &h, 2);
                    } else if (t == 2) {
                        float f = (float)av[i];
                        memcpy(abuf + 4 * i, &f, 4);
                    } else if (t == 0) {
                        int32_t x = (int32_t)av[i];
                        memcpy(abuf + 4 * i, &x, 4);
                    } else memcpy(abuf + 8 * i, &av[i], 8);
                }
                for (int i = 0; i < total; i++) {
                    if (t >= 3) {
                        uint16_t h = t == 3 ? hbf((double)ov[i]) : h16((double)ov[i]);
                        memcpy(obuf + 2 * i, &h, 2);
                    } else if (t == 2) {
                        float f = (float)ov[i];
                        memcpy(obuf + 4 * i, &f, 4);
                    } else if (t == 0) {
                        int32_t x = (int32_t)ov[i];
                        memcpy(obuf + 4 * i, &x, 4);
                    } else memcpy(obuf + 8 * i, &ov[i], 8);
                }
                nr_devptr da = dev_from(abuf, (size_t)(M * N * esz)),
                          dout = dev_from(obuf, (size_t)(total * esz));
                nr_tensor_desc hd = {dout, 2, NR_PAD_ZERO, {M, N}, {ld, 1}};
                RUN(k, 3, 2, 1, nr_arg_tensor_desc(&hd), nr_arg_ptr(dout), nr_arg_ptr(da),
                    nr_arg_i32(M), nr_arg_i32(N));
                dev_to(obuf, dout, (size_t)(total * esz));
                int bad = 0;
                for (int i = 0; i < M; i++)
                    for (int j = 0; j < ld; j++) {
                        int at = i * ld + j;
                        int64_t want =
                            j < N ? ref_op(kinds[kd], ov[at], av[i * N + j], t == 1) : ov[at];
                        int64_t got;
                        if (t >= 3) {
                            uint16_t h;
                            memcpy(&h, obuf + 2 * at, 2);
                            got = (int64_t)(t == 3 ? fbf(h) : f16(h));
                        } else if (t == 2) {
                            float f;
                            memcpy(&f, obuf + 4 * at, 4);
                            got = (int64_t)f;
                        } else if (t == 0) {
                            int32_t x;
                            memcpy(&x, obuf + 4 * at, 4);
                            got = x;
                        } else memcpy(&got, obuf + 8 * at, 8);
                        bad += got != want;
                    }
                CHECK(bad == 0, "desc.atomic_%s on %s (%s descriptor): %d wrong", kinds[kd], dt,
                      host ? "host" : "device", bad);
                nr_free(ctx, da), nr_free(ctx, dout);
            }
}

static const char *K_DESC_STORE_CVT =
    "@triton.jit\n"
    "def k(hd: \"tensordesc<fp16[4, 8]>\", y: *i32):\n"
    "    v = tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]\n"
    "    hd.store([0, 0], v)\n"
    "    d = tl.make_tensor_descriptor(y, [4, 8], [8, 1], [4, 8])\n"
    "    d.store([0, 0], v.to(tl.float32) * 1.5)\n";

static void test_desc_store_convert(void) {
    nr_kernel *k = BUILD_D(K_DESC_STORE_CVT, NULL, 0);
    if (!k) return;
    nr_devptr dh = dev_from(NULL, 32 * 2), dy = dev_from(NULL, 32 * 4);
    nr_tensor_desc hd = {dh, 2, NR_PAD_ZERO, {4, 8}, {8, 1}};
    RUN(k, 1, 1, 1, nr_arg_tensor_desc(&hd), nr_arg_ptr(dy));
    uint16_t h[32];
    int32_t y[32];
    dev_to(h, dh, sizeof h), dev_to(y, dy, sizeof y);
    int bad = 0;
    for (int i = 0; i < 32; i++) bad += f16(h[i]) != i || y[i] != (int32_t)(i * 1.5);
    CHECK(bad == 0, "desc.store converts the value to the element type: %d wrong", bad);
    nr_free(ctx, dh), nr_free(ctx, dy);
}

/* ---- 10. combine functions with if/else ---- */

static const char *K_COMBINE_IF =
    "@triton.jit\n"
    "def pick_max(a, ia, b, ib):\n"
    "    if a > b:\n"
    "        return a, ia\n"
    "    elif a == b:\n"
    "        if ia < ib:\n"
    "            return a, ia\n"
    "        else:\n"
    "            return b, ib\n"
    "    else:\n"
    "        return b, ib\n"
    "\n"
    "@triton.jit\n"
    "def capped_add(a, b):\n"
    "    s = a + b\n"
    "    if s > CAP:\n"
    "        s = CAP\n"
    "    return s\n"
    "\n"
    "CAP = 100\n"
    "\n"
    "@triton.jit\n"
    "def k(x: *fp32, xi: *i32, out: *fp32, outi: *i32, sc: *i32, R: tl.constexpr):\n"
    "    rows = tl.arange(0, 4)[:, None]\n"
    "    cols = tl.arange(0, 32)[None, :]\n"
    "    v = tl.load(x + rows * 32 + cols)\n"
    "    m, im = tl.reduce((v, cols + rows * 0), 1, pick_max)\n"
    "    tl.store(out + tl.arange(0, 4), m)\n"
    "    tl.store(outi + tl.arange(0, 4), im)\n"
    "    s = tl.associative_scan(tl.load(xi + rows * 32 + cols), 1, capped_add, reverse=R)\n"
    "    tl.store(sc + rows * 32 + cols, s)\n";

static void test_combine_if(void) {
    for (int rev = 0; rev < 2; rev++) {
        nr_define d[] = {{"R", rev ? "True" : "False"}};
        nr_kernel *k = BUILD_D(K_COMBINE_IF, d, 1);
        if (!k) continue;
        float x[128];
        int32_t xi[128], sc[128], outi[4];
        float out[4];
        for (int i = 0; i < 128; i++) x[i] = (float)((i * 37) % 11), xi[i] = (i * 13) % 9;
        nr_devptr dx = dev_from(x, sizeof x), dxi = dev_from(xi, sizeof xi),
                  dout = dev_from(NULL, sizeof out), douti = dev_from(NULL, sizeof outi),
                  dsc = dev_from(NULL, sizeof sc);
        RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dxi), nr_arg_ptr(dout), nr_arg_ptr(douti),
            nr_arg_ptr(dsc));
        dev_to(out, dout, sizeof out), dev_to(outi, douti, sizeof outi), dev_to(sc, dsc, sizeof sc);
        int bad = 0;
        for (int r = 0; r < 4; r++) {
            int best = 0; /* the first index of the largest value, as the combine ties */
            for (int c = 1; c < 32; c++)
                if (x[r * 32 + c] > x[r * 32 + best]) best = c;
            bad += out[r] != x[r * 32 + best] || outi[r] != best;
            int acc = 0;
            for (int c = 0; c < 32; c++) {
                int cc = rev ? 31 - c : c;
                acc = acc + xi[r * 32 + cc] > 100 ? 100 : acc + xi[r * 32 + cc];
                bad += sc[r * 32 + cc] != acc;
            }
        }
        CHECK(bad == 0, "combine functions with if/else (reverse=%d): %d wrong", rev, bad);
        nr_free(ctx, dx), nr_free(ctx, dxi), nr_free(ctx, dout), nr_free(ctx, douti);
        nr_free(ctx, dsc);
    }
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    test_defines();
    test_const_methods();
    test_cat();
    test_no_args();
    test_desc_stride();
    test_desc_atomics();
    test_desc_store_convert();
    test_combine_if();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_gaps", &st);
}
