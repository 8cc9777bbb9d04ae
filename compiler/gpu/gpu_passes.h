/* gpu_passes.h - the GPU back end's passes over a specialised, inlined kernel:
 * layout assignment (with coalescing), shared-memory allocation and barrier placement.
 * Each opens its file with its contract. */
#ifndef NEREID_GPU_PASSES_H
#define NEREID_GPU_PASSES_H

#include "../ir.h"
#include "axis_info.h"

typedef struct GpuOptions {
    int num_warps; /* threads per program = 32 * num_warps */
} GpuOptions;

/* Gives every block value a distributed layout; memory ops get the widest vector access
 * the alignment facts prove (info from axis_info_analyze on f); inserts
 * convert_layout where a value must change layout. */
void gpu_assign_layouts(IrFunc *f, const AxisInfo *info, const GpuOptions *o);
/* Scratch bytes one op needs in shared memory (0 if none), given assigned layouts. */
int gpu_scratch_bytes(const IrFunc *f, OpId op);
/* Sets each op's smem_offset/smem_size by liveness, and f->shared_bytes. */
void gpu_alloc_shared(IrFunc *f);
/* Inserts barrier ops where a shared-memory access could race with an earlier one. */
void gpu_insert_barriers(IrFunc *f);

#endif
