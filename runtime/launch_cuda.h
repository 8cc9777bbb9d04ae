/* launch_cuda.h - a kernel on the CUDA device: its variants (one per specialisation of
 * the arguments, warp count and pipelining depth), compiled at their first launch or
 * loaded from the disk cache, and the launch itself. */
#ifndef NEREID_LAUNCH_CUDA_H
#define NEREID_LAUNCH_CUDA_H

#include "objects.h"

/* Launch k (on a CUDA context) with np checked-count arguments: each argument checked
 * against its parameter, its specialisation fact found and its bytes packed, then the
 * variant of those facts and options launched on opts' stream; grid NULL: the variant
 * compiled and loaded (it becomes the last launch's), not run. */
nr_status cuda_launch_kernel(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int np,
                             const nr_launch_options *opts, bool cooperative);
/* launch_prepare_many on CUDA (launch.h): jobs checked as launch_prepare checks them; the new
 * variants' GPU back end and driver JIT on several threads at once, loaded on this one. */
nr_status cuda_prepare_many(PrepareJob *jobs, int n);
/* The variant k's last launch ran, with its resources; its code compiled again
 * ("ptx", "llvm", "gpu-ir") into out. NR_ERR_NOT_FOUND before a launch. */
nr_status cuda_variant_info(nr_kernel *k, nr_kernel_info *out);
nr_status cuda_variant_code(nr_kernel *k, const char *what, StrBuf *out);
/* Unloads the module's variants (after the kernels in flight end). */
void cuda_module_free(nr_module *m);

#endif
