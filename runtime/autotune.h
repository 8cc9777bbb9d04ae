/* autotune.h - tuned kernels in the C API (@triton.autotune, @triton.heuristics): the
 * runtime side of lang/tune.h. A module's tuned kernels are left out of its compile; each
 * becomes an nr_kernel whose launches go through tune_launch, which compiles the kernel
 * once per config (and per heuristic values) as a module of its own, times the configs at
 * the first launch per key value, and keeps the choice in memory and on disk. Internal to
 * the runtime. */
#ifndef NEREID_AUTOTUNE_H
#define NEREID_AUTOTUNE_H

#include "api_internal.h"

struct nr_config {
    int n;
    const char **names;
    const char **values;
    int num_warps, num_stages; /* 0: the module's */
};

/* Before a module's compile: find its tuned kernels, read their decorators, and name
 * them in o->skip_kernels. Errors (diagnostics in diag): NR_ERR_COMPILE. */
nr_status tune_module_prepare(nr_module *m, const nr_compile_options *opts, NrCompileOptions *o, Diag *diag);
/* How many kernels the module's tuning adds (room the caller makes in m->kernels). */
int tune_module_count(const nr_module *m);
/* After the compile: the tuned kernels join m->kernels; configs without heuristics are
 * compiled now, so that their errors are compile errors. */
nr_status tune_module_add_kernels(nr_module *m, Diag *diag);
void tune_module_free(nr_module *m);

/* A tuned kernel's launch: a fixed grid, or grid_fn. */
nr_status tune_launch(nr_kernel *k, const unsigned grid[3], nr_grid_fn grid_fn, void *user, const nr_arg *args,
                      int num_args, const size_t *arg_bytes, const nr_launch_options *o);

/* api.c: compile source into a module of its own that the context does not own (a tuned
 * kernel's per-config module), with tuning off. */
nr_status api_compile_inner(nr_context *ctx, const char *text, size_t len, const char *filename,
                            const nr_compile_options *opts, nr_module **out);

#endif
