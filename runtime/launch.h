/* launch.h - a launch of a kernel that is not tuned (nr_launch's, and each config's
 * launch of a tuned kernel). */
#ifndef NEREID_LAUNCH_H
#define NEREID_LAUNCH_H

#include "objects.h"

nr_status launch_plain(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int num_args,
                       const nr_launch_options *opts);
/* The same, cooperative (nr_launch_cooperative) when asked. */
nr_status launch_plain_ex(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int num_args,
                          const nr_launch_options *opts, bool cooperative);

/* What a launch with these arguments would run, compiled (on CUDA: the variant loaded)
 * and made the last launch's, without running it: Triton's warmup, and a launch whose
 * grid has a zero dimension. */
nr_status launch_prepare(nr_kernel *k, const nr_arg *args, int num_args,
                         const nr_launch_options *opts);

/* launch_prepare of every job (kernels of one context), the compiles at once on up to
 * option_compile_threads threads (on CUDA: the GPU back end and the driver's JIT; on the
 * CPU device there is nothing left to compile). Returns NR_OK, or the first failing job's
 * status with its message as the context's error. */
nr_status launch_prepare_many(PrepareJob *jobs, int n);

#endif
