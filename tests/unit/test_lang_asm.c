/* test_lang_asm.c - tl.inline_asm_elementwise on the CPU device: a kernel with inline
 * assembly compiles (its IR keeps the assembly for the GPU), and its launch is refused
 * with a message that names the kernel and the call's location, before anything runs. */
#include "lang_harness.h"

static const char *K_ASM = "@triton.jit\n"
                           "def k(x: *i32, y: *i32):\n"
                           "    i = tl.arange(0, 128)\n"
                           "    v = tl.load(x + i)\n"
                           "    tl.store(y + i, 7)\n"
                           "    w = tl.inline_asm_elementwise(\"shf.l.wrap.b32 $0, $1, $1, 3;\", "
                           "\"=r,r\", [v], dtype=tl.int32,\n"
                           "                                  is_pure=True, pack=1)\n"
                           "    tl.store(y + i, w)\n";

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    nr_kernel *k = BUILD(K_ASM, NULL);
    if (k) {
        int32_t x[128] = {0}, y[128];
        nr_devptr dx = dev_from(x, sizeof x), dy = dev_from(NULL, sizeof y);
        nr_status s = RUN_STATUS(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dy));
        const char *msg = nr_last_error(ctx);
        CHECK(s == NR_ERR_LAUNCH, "the launch gives %s", nr_status_string(s));
        CHECK(strstr(msg, "kernel 'k' (test.nr:6:9): tl.inline_asm_elementwise runs GPU assembly, "
                          "which the CPU interpreter "
                          "cannot run: launch this kernel on a CUDA device") != NULL,
              "message: %s", msg);
        dev_to(y, dy, sizeof y);
        CHECK(y[0] == 0 && y[127] == 0, "nothing ran before the refusal (y[0] = %d)", y[0]);
        nr_free(ctx, dx), nr_free(ctx, dy);
    }
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_asm", &st);
}
