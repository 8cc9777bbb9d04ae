/* test_host_memory.c - nr_host_register on the CPU device: kernels read and write memory
 * the caller owns, accesses are checked against the registered extent, unregistering
 * forgets it (without freeing it), overlapping extents work, and a CUDA context refuses
 * (NR_ERR_UNSUPPORTED, when one opens at all). */
#include <stdlib.h>

#include "check.h"
#include "nereid.h"

static const char *src =
    "@triton.jit\n"
    "def scale(x_ptr: *fp32, y_ptr: *fp32, n: i32, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)\n";

int main(void) {
    CheckState st = {0, 0};
    nr_context *ctx;
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx)) return 1;
    nr_define d = {"BLOCK", "16"};
    nr_compile_options o = {.defines = &d, .num_defines = 1};
    nr_module *m;
    nr_kernel *k;
    if (nr_compile_source(ctx, src, strlen(src), "scale.nr", &o, &m) ||
        nr_module_get_kernel(m, "scale", &k)) {
        printf("%s\n", nr_last_error(ctx));
        return 1;
    }
    enum { N = 40 };
    float *x = malloc(N * sizeof(float)), *y = calloc(N, sizeof(float));
    for (int i = 0; i < N; i++) x[i] = (float)i;
    nr_arg args[3] = {nr_arg_ptr((nr_devptr)(uintptr_t)x), nr_arg_ptr((nr_devptr)(uintptr_t)y),
                      nr_arg_i32(N)};
    unsigned grid[3] = {3, 1, 1};

    nr_status s = nr_launch(k, grid, args, 3, NULL);
    CHECK_AT(&st, s == NR_ERR_LAUNCH, "unregistered host memory is refused: %s",
             nr_status_string(s));

    CHECK_AT(&st, nr_host_register(ctx, x, N * sizeof(float)) == NR_OK, "%s", nr_last_error(ctx));
    CHECK_AT(&st, nr_host_register(ctx, y, N * sizeof(float)) == NR_OK, "%s", nr_last_error(ctx));
    CHECK_AT(&st, nr_host_register(ctx, y, 8) == NR_OK, "overlapping extents: %s",
             nr_last_error(ctx));
    s = nr_launch(k, grid, args, 3, NULL);
    CHECK_AT(&st, s == NR_OK, "%s", nr_last_error(ctx));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += y[i] != 2.0f * (float)i;
    CHECK_AT(&st, bad == 0, "%d wrong elements", bad);

    nr_arg past[3] = {args[0], args[1], nr_arg_i32(N + 4)}; /* reads past the extent */
    s = nr_launch(k, grid, past, 3, NULL);
    CHECK_AT(&st, s == NR_ERR_LAUNCH && strstr(nr_last_error(ctx), "out-of-bounds"), "%s",
             nr_last_error(ctx));

    CHECK_AT(&st, nr_host_unregister(ctx, y) == NR_OK, "%s", nr_last_error(ctx));
    CHECK_AT(&st, nr_host_unregister(ctx, y) == NR_OK, "both registrations of y go, one at a time");
    CHECK_AT(&st, nr_host_unregister(ctx, y) == NR_ERR_INVALID_ARG, "a third time: not registered");
    s = nr_launch(k, grid, args, 3, NULL);
    CHECK_AT(&st, s == NR_ERR_LAUNCH, "after unregistering, y is refused again: %s",
             nr_status_string(s));
    CHECK_AT(&st, nr_host_register(ctx, NULL, 4) == NR_ERR_INVALID_ARG, "NULL");
    CHECK_AT(&st, nr_host_register(NULL, x, 4) == NR_ERR_INVALID_ARG, "no context");
    y[0] = 7.0f;             /* still the caller's memory */
    nr_context_destroy(ctx); /* forgets x, frees nothing of it */
    CHECK_AT(&st, x[3] == 3.0f && y[0] == 7.0f, "the memory is intact after the context");

    nr_context *gpu;
    if (nr_context_create(NR_DEVICE_CUDA, 0, &gpu) == NR_OK) {
        CHECK_AT(&st, nr_host_register(gpu, x, 4) == NR_ERR_UNSUPPORTED,
                 "CUDA refuses host registration");
        nr_context_destroy(gpu);
    }
    free(x), free(y);
    return check_done("test_host_memory", &st);
}
