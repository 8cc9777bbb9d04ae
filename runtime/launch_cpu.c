/* launch_cpu.c - launches on the CPU device: the kernel's IR run by the interpreter over
 * host memory, every access checked against the context's allocations and registered
 * host buffers (an out-of-bounds access is an error naming the op, not a crash). */
#include "launch_cpu.h"

#include <stdlib.h>

#include "args.h"
#include "status.h"

/* the while-loop iterations after which a cooperative launch's program is taken to wait
 * for one that has not run (InterpOptions.coop_spin_limit) */
enum { COOP_SPIN_LIMIT = 1 << 20 };

nr_status cpu_launch_kernel(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int np,
                            bool cooperative) {
    nr_context *ctx = k->mod->ctx;
    enum { PARTS = 2 + 2 * NR_MAX_DESC_RANK };
    InterpScalar *vals = calloc((size_t)(np ? np : 1), sizeof *vals);
    int64_t *parts = calloc((size_t)(np ? np : 1) * PARTS, sizeof *parts);
    if (!vals || !parts)
        return free(vals), free(parts), api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < np; i++) {
        IrType t = args_param_type(k, i);
        nr_status s = t.dt == DT_TDESC
                          ? args_check_desc(k, i, &args[i], t, parts + (size_t)i * PARTS)
                          : args_convert(k, i, &args[i], &vals[i]);
        if (t.dt == DT_TDESC) vals[i].desc = parts + (size_t)i * PARTS;
        if (s) return free(vals), free(parts), s;
    }
    int nbufs = ctx->nallocs + ctx->nhost;
    InterpBuffer *bufs = calloc((size_t)(nbufs ? nbufs : 1), sizeof *bufs);
    if (!bufs) return free(vals), free(parts), api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < ctx->nallocs; i++)
        bufs[i] = (InterpBuffer){(uint64_t)(uintptr_t)ctx->allocs[i].ptr, ctx->allocs[i].size};
    for (int i = 0; i < ctx->nhost; i++)
        bufs[ctx->nallocs + i] =
            (InterpBuffer){(uint64_t)(uintptr_t)ctx->host[i].ptr, ctx->host[i].size};
    InterpOptions io = {bufs, nbufs, true, NULL, /* every access checked */
                        cooperative ? COOP_SPIN_LIMIT : 0};
    StrBuf err;
    sb_init(&err);
    int rc = interp_run(k->f, vals, grid, &io, &err);
    nr_status s = NR_OK;
    if (rc) s = api_fail(ctx, NR_ERR_LAUNCH, "%s", sb_cstr(&err));
    sb_free(&err);
    free(bufs);
    free(vals);
    free(parts);
    return s;
}
