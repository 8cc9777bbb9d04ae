/* test_lang_gaps2.c - front-end features Triton's tutorials use, run on the CPU interpreter
 * against plain C: a helper's tl.constexpr parameter given a block (Triton 3.0's fused
 * attention) and tensor.type on a scalar. */
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

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    test_helper_constexpr_block();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_gaps2", &st);
}
