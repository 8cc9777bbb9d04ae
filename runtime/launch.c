/* launch.c - a launch of a kernel that is not tuned: what every device checks (the
 * pipelining depth, the grid against CUDA's limits, the argument count), then the
 * device's own path. */
#include "launch.h"

#include "args.h"
#include "compiler/support/options.h"
#include "fault.h"
#include "launch_cpu.h"
#include "launch_cuda.h"
#include "module.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

/* The launch options every device checks: the pipelining depth and the code generator's
 * options (which the interpreter ignores, but a launch that is wrong on a GPU is wrong on
 * the CPU too). */
static nr_status check_options(nr_kernel *k, const nr_launch_options *opts) {
    nr_context *ctx = k->mod->ctx;
    if (!opts) return NR_OK;
    if (opts->num_stages && !option_valid(OPT_NUM_STAGES, opts->num_stages))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': num_stages must be 0 or %s, got %d",
                        k->f->name, option_info(OPT_NUM_STAGES)->range, opts->num_stages);
    if (opts->maxnreg && opts->maxnreg != -1 && !option_valid(OPT_MAXNREG, opts->maxnreg))
        return api_fail(ctx, NR_ERR_INVALID_ARG,
                        "kernel '%s': maxnreg must be 0 (as compiled), -1 (no limit) or %s, got %d",
                        k->f->name, option_info(OPT_MAXNREG)->range, opts->maxnreg);
    if (opts->enable_fp_fusion < -1 || opts->enable_fp_fusion > 1 ||
        opts->enable_reflect_ftz < -1 || opts->enable_reflect_ftz > 1)
        return api_fail(ctx, NR_ERR_INVALID_ARG,
                        "kernel '%s': enable_fp_fusion and enable_reflect_ftz must be 0 (as "
                        "compiled), 1 (on) or -1 (off), got %d and %d",
                        k->f->name, opts->enable_fp_fusion, opts->enable_reflect_ftz);
    return NR_OK;
}

/* A launch with num_warps= other than the count a program read as a constant
 * (tl.extra.cuda.num_threads() or num_warps(), which the front end evaluates) runs the
 * kernel compiled for that count, as Triton's num_warps is a compile option: a variant of
 * its module built at the first such launch and kept with the module. Otherwise k. */
static nr_status warps_variant(nr_kernel *k, const nr_launch_options *opts, nr_kernel **out) {
    *out = k;
    const IrModule *ir = k->mod->prog.ir;
    if (!opts || opts->num_warps <= 0 || !ir || !ir->warps_read ||
        opts->num_warps == ir->warps_read)
        return NR_OK;
    if (!option_valid(OPT_NUM_WARPS, opts->num_warps))
        return api_fail(k->mod->ctx, NR_ERR_INVALID_ARG,
                        "kernel '%s': num_warps must be %s, got %d", k->f->name,
                        option_info(OPT_NUM_WARPS)->range, opts->num_warps);
    nr_module *m = k->mod, *v = NULL;
    for (int i = 0; i < m->nwarp_variants && !v; i++)
        if (m->warp_variants[i]->num_warps == opts->num_warps) v = m->warp_variants[i];
    if (!v) {
        nr_module **grown =
            realloc(m->warp_variants, sizeof *grown * (size_t)(m->nwarp_variants + 1));
        if (!grown) return api_fail(m->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        m->warp_variants = grown;
        nr_define defs[64];
        int nd = m->ndefines < 64 ? m->ndefines : 64;
        for (int i = 0; i < nd; i++) defs[i] = (nr_define){m->defines[i].name, m->defines[i].value};
        nr_status s = module_variant(m, k->f->name, defs, nd, opts->num_warps, m->num_stages, &v);
        if (s) return s;
        m->warp_variants[m->nwarp_variants++] = v;
    }
    for (int i = 0; i < v->nkernels; i++)
        if (!strcmp(v->kernels[i].f->name, k->f->name)) *out = &v->kernels[i];
    return *out != k ? NR_OK
                     : api_fail(m->ctx, NR_ERR_NOT_FOUND, "no kernel named '%s' in the module",
                                k->f->name);
}

nr_status launch_plain(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int num_args,
                       const nr_launch_options *opts) {
    return launch_plain_ex(k, grid, args, num_args, opts, false);
}

nr_status launch_plain_ex(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int num_args,
                          const nr_launch_options *opts, bool cooperative) {
    nr_context *ctx = k->mod->ctx;
    nr_status s = warps_variant(k, opts, &k);
    if (s) return s;
    s = check_options(k, opts);
    if (s) return s;
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
    nr_status s = warps_variant(k, opts, &k);
    if (s) return s;
    s = check_options(k, opts);
    if (s) return s;
    int np = k->nparams;
    if (num_args != np || (np && !args))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s' takes %d argument%s, got %d",
                        k->f->name, np, np == 1 ? "" : "s", num_args);
    if (ctx->kind == NR_DEVICE_CUDA) {
        FAULT_GUARD(ctx);
        s = cuda_launch_kernel(k, NULL, args, np, opts, false);
    } else {
        for (int i = 0; i < np && !s; i++) {
            InterpScalar v;
            int64_t parts[2 + 2 * NR_MAX_DESC_RANK];
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
