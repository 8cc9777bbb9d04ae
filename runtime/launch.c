/* launch.c - a launch of a kernel that is not tuned: what every device checks (the
 * pipelining depth, the grid against CUDA's limits, the argument count), then the
 * device's own path. */
#include "launch.h"

#include "compiler/support/options.h"
#include "fault.h"
#include "launch_cpu.h"
#include "launch_cuda.h"
#include "status.h"

nr_status launch_plain(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int num_args,
                       const nr_launch_options *opts) {
    nr_context *ctx = k->mod->ctx;
    if (opts && opts->num_stages && !option_valid(OPT_NUM_STAGES, opts->num_stages))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': num_stages must be 0 or %s, got %d",
                        k->f->name, option_info(OPT_NUM_STAGES)->range, opts->num_stages);
    int np = k->nparams;
    if (!grid)
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': the grid must not be NULL",
                        k->f->name);
    /* CUDA's limits, on every device, so that a grid the CPU accepts runs on a GPU too */
    static const unsigned grid_max[3] = {0x7fffffffu, 65535u, 65535u};
    for (int d = 0; d < 3; d++)
        if (grid[d] == 0 || grid[d] > grid_max[d])
            return api_fail(ctx, NR_ERR_INVALID_ARG,
                            "kernel '%s': grid dimension %d is %u (must be 1 to %u)", k->f->name, d,
                            grid[d], grid_max[d]);
    if (num_args != np || (np && !args))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s' takes %d argument%s, got %d",
                        k->f->name, np, np == 1 ? "" : "s", num_args);
    if (ctx->kind == NR_DEVICE_CUDA) { /* the hot path: no allocation */
        FAULT_GUARD(ctx);
        return cuda_launch_kernel(k, grid, args, np, opts);
    }
    return cpu_launch_kernel(k, grid, args, np);
}
