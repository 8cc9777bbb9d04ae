/* autotune.h - tuned kernels in the C API (@triton.autotune, @triton.heuristics): the
 * runtime side of what the front end reads (lang/tune.h, NrProgram.tuned). Each tuned
 * kernel is an nr_kernel whose launches go through tune_launch, which compiles the kernel
 * once per config (and per heuristic values) from the module's syntax tree, the configs
 * at once on several threads before timing, chooses by the tuner's rules (tuner.c) and
 * keeps the choice in memory and on disk. */
#ifndef NEREID_AUTOTUNE_H
#define NEREID_AUTOTUNE_H

#include "objects.h"

struct nr_config {
    int n;
    const char **names;
    const char **values;
    int num_warps, num_stages; /* 0: the module's */
};

/* After the module's compile: its tuned kernels (m->prog.tuned) join m->kernels; configs
 * without heuristics are compiled now, so that their errors are compile errors
 * (diagnostics into diag). */
nr_status tune_module_attach(nr_module *m, Diag *diag);
void tune_module_free(nr_module *m);

/* The variant's kernel the last launch of tuned kernel k ran; NULL before one. */
nr_kernel *tune_last_kernel(const nr_kernel *k);
/* A tuned kernel's launch: a fixed grid, or grid_fn. */
nr_status tune_launch(nr_kernel *k, const unsigned grid[3], nr_grid_fn grid_fn, void *user,
                      const nr_arg *args, int num_args, const size_t *arg_bytes,
                      const nr_launch_options *o);

/* Every config of tuned kernel k compiled for these arguments (and on CUDA, loaded), at
 * once on several threads, without running any (nr_prepare_many). The arguments' count
 * and kinds are checked; a config that fails to compile is not an error here (its
 * launch reports it). */
nr_status tune_prepare_all(nr_kernel *k, const nr_arg *args, int num_args,
                           const nr_launch_options *o);

#endif
