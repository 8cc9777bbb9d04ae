/* test_lang_gaps2.c - front-end features Triton's tutorials use, run on the CPU interpreter
 * against plain C: a helper's tl.constexpr parameter given a block (Triton 3.0's fused
 * attention) and tensor.type on a scalar; integers and pointers converted into each other with
 * .to() (Triton 3.0's grouped GEMM loads its matrices' addresses as int64). */
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
    /* a block has no scalar type: a located error, not a crash */
    COMPILE_ERROR("@triton.jit\n"
                  "def k(x: *fp32):\n"
                  "    v = tl.load(x + tl.arange(0, 4))\n"
                  "    tl.store(x + tl.arange(0, 4), v.to(v.type))\n",
                  NULL, "test.nr:4:42: error: 'type' of a block (Triton's block_type)");
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

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    test_helper_constexpr_block();
    test_int_ptr();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_gaps2", &st);
}
