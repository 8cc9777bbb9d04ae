/* gpu_passes.h - the GPU back end's passes over a specialised, inlined kernel, in the
 * order gpu_compile.c runs them: layout assignment (with coalescing and the choice of
 * tensor cores), dot operand lowering, software pipelining, shared-memory allocation,
 * barrier and fence placement. Each opens its file with its contract; driver/pass_registry.c
 * lists them by name for `nereid opt`. */
#ifndef NEREID_GPU_PASSES_H
#define NEREID_GPU_PASSES_H

#include "compiler/analysis/axis_info.h"
#include "compiler/ir/ir.h"
#include "compiler/target/target.h"
#include "compiler/target/tma.h"

/* Pointer loads feeding dots in pipelined loops whose addresses a tensor map can describe
 * become desc_loads of new tdesc parameters (sm_90a; tma_pointers.c); *plan says how the
 * launcher builds each from the arguments. facts: one per parameter. Returns whether it
 * changed f. */
bool gpu_tma_pointers(IrFunc *f, const ParamFact *facts, const GpuOptions *o, TmaPtrPlan *plan);
/* Versions each top-level op whose memory accesses are wider when some top-level
 * scalars are >= 0 than the proven facts allow (axis_info.h's speculation): if they are,
 * a copy in which assumes prove it; if not, the original (its loops not pipelined).
 * Only accesses whose threads would hold the wider vector (o->num_warps) count. Returns
 * whether it versioned anything (else f is unchanged and s->proven still describes it). */
bool gpu_speculate(IrFunc *f, const AxisSpeculation *s, const GpuOptions *o);
/* The roots (bits of s->roots) gpu_speculate would version some op of f on: those a
 * launcher must check for every program before it runs the kernel made with
 * gpu_speculate_assume. 0: nothing would be versioned. */
uint32_t gpu_speculate_roots(IrFunc *f, const AxisSpeculation *s, const GpuOptions *o);
/* Instead of versioning: every use of each root in `roots` reads it promised >= 0
 * (multiple_of {1} and an assume right after its definition), so the whole kernel gets
 * the speculative facts. Only for a launch whose every program has those roots >= 0
 * (the launcher checks them on the host: runtime/launch_cuda.c). */
void gpu_speculate_assume(IrFunc *f, const AxisSpeculation *s, uint32_t roots);
/* Makes kernel f its own guard: only the top-level ops that compute the roots in `roots`
 * stay, then assert(every one >= 0). Run by the CPU interpreter over a launch's grid, it
 * fails exactly when some program has a negative root. False (f unchanged) when a root
 * needs what the host cannot compute as the GPU does: memory, a descriptor, a region, a
 * float or a block. */
bool gpu_speculate_guard(IrFunc *f, const AxisSpeculation *s, uint32_t roots);
/* tf32 dots whose B runs along N (and A along K) compute the transposed product, so that
 * B reaches wgmma through registers instead of being restaged K-major (sm_90a;
 * transpose_dots.c). info: the alignment facts of f. Returns whether it changed f. */
bool gpu_transpose_dots(IrFunc *f, const AxisInfo *info, const GpuOptions *o);
/* Gives every block value a distributed layout; memory ops get the widest vector access
 * the alignment facts prove (info from axis_info_analyze on f); a dot's result a
 * tensor-core layout where the target allows; inserts convert_layout where a value must
 * change layout. Sets the module's gpu<> facts. */
void gpu_assign_layouts(IrFunc *f, const AxisInfo *info, const GpuOptions *o);
/* desc_load and desc_store of the descriptors left after the expansion (the TMA ones,
 * tma.h) become TMA copies through a swizzled buffer, completed on an mbarrier. */
void gpu_lower_tma(IrFunc *f);
/* Puts each dot's operands where its lowering reads them (dot_op layouts, buffers). */
void gpu_lower_dot_operands(IrFunc *f);
/* Turns the loads that feed dots in loops into cp.async copies into rings of
 * num_stages buffers, issued num_stages - 1 iterations ahead; wgmma dots become
 * asynchronous across iterations. info: the alignment facts of f. */
void gpu_pipeline(IrFunc *f, const AxisInfo *info, const GpuOptions *o);
/* A synchronous wgmma dot whose operands are buffers becomes a dot_async with its wait
 * after the pure ops that follow it and do not need its result (overlap_dots.c). */
void gpu_overlap_dots(IrFunc *f);
/* Sets each buffer's and scratch op's smem_offset/smem_size by lifetime, and
 * f->shared_bytes. */
void gpu_alloc_shared(IrFunc *f);
/* Inserts barrier and fence_async ops where shared-memory accesses could race. */
void gpu_insert_barriers(IrFunc *f);

#endif
