/* launch_cuda.h - a kernel on the CUDA device: its variants (one per specialisation of
 * the arguments, warp count and pipelining depth), compiled at their first launch or
 * loaded from the disk cache, and the launch itself. */
#ifndef NEREID_LAUNCH_CUDA_H
#define NEREID_LAUNCH_CUDA_H

#include "objects.h"

/* Launch k (on a CUDA context) with np checked-count arguments: each argument checked
 * against its parameter, its specialisation fact found and its bytes packed, then the
 * variant of those facts and options launched on opts' stream. */
nr_status cuda_launch_kernel(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int np,
                             const nr_launch_options *opts);
/* Unloads the module's variants (after the kernels in flight end). */
void cuda_module_free(nr_module *m);

#endif
