/* launch.c - a launch of a kernel that is not tuned: what every device checks (the
 * pipelining depth, the grid against CUDA's limits, the argument count), then the
 * device's own path. */
#include "launch.h"

#include "args.h"
#include "compiler/support/options.h"
#include "fault.h"
#include "launch_cpu.h"
#include "launch_cuda.h"
#include "status.h"

nr_status launch_plain(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int num_args,
                       const nr_launch_options *opts) {
    return launch_plain_ex(k, grid, args, num_args, opts, false);
}

nr_status launch_plain_ex(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int num_args,
                          const nr_launch_options *opts, bool cooperative) {
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
    nr_status s;
    if (ctx->kind == NR_DEVICE_CUDA) { /* the hot path: no allocation */
        FAULT_GUARD(ctx);
        s = cuda_launch_kernel(k, grid, args, np, opts, cooperative);
    } else {
        s = cpu_launch_kernel(k, grid, args, np, cooperative);
    }
    k->launched |= s == NR_OK;
    return s;
}

nr_status launch_prepare(nr_kernel *k, const nr_arg *args, int num_args,
                         const nr_launch_options *opts) {
    nr_context *ctx = k->mod->ctx;
    if (opts && opts->num_stages && !option_valid(OPT_NUM_STAGES, opts->num_stages))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': num_stages must be 0 or %s, got %d",
                        k->f->name, option_info(OPT_NUM_STAGES)->range, opts->num_stages);
    int np = k->nparams;
    if (num_args != np || (np && !args))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s' takes %d argument%s, got %d",
                        k->f->name, np, np == 1 ? "" : "s", num_args);
    nr_status s = NR_OK;
    if (ctx->kind == NR_DEVICE_CUDA) {
        FAULT_GUARD(ctx);
        s = cuda_launch_kernel(k, NULL, args, np, opts, false);
    } else {
        for (int i = 0; i < np && !s; i++) {
            InterpScalar v;
            int64_t parts[2 + 2 * NR_MAX_RANK];
            IrType t = args_param_type(k, i);
            s = t.dt == DT_TDESC ? args_check_desc(k, i, &args[i], t, parts)
                                 : args_convert(k, i, &args[i], &v);
        }
    }
    k->launched |= s == NR_OK;
    return s;
}

nr_status launch_prepare_many(PrepareJob *jobs, int n) {
    if (n < 1) return NR_OK;
    nr_context *ctx = jobs[0].k->mod->ctx;
    if (ctx->kind != NR_DEVICE_CUDA) { /* the front end was the compile: checks only */
        nr_status first = NR_OK;
        for (int i = 0; i < n; i++)
            if ((jobs[i].status =
                     launch_prepare(jobs[i].k, jobs[i].args, jobs[i].nargs, &jobs[i].opts)) &&
                !first)
                first = jobs[i].status;
        return first;
    }
    FAULT_GUARD(ctx);
    return cuda_prepare_many(jobs, n);
}
