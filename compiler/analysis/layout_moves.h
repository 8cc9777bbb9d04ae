/* layout_moves.h - what moving a block between layouts costs, computed once for the
 * shared-memory allocator (compiler/gpu) and the lowering (compiler/codegen), which must
 * agree on it.
 *
 * Ops that change where elements are (convert_layout, broadcast, expand_dims, reshape,
 * trans) map each element of the result to one of the operand: as row-major indices of
 * blocks whose dims are powers of two, a linear map over GF(2) (reshape and expand_dims
 * keep the index, trans permutes its bits, broadcast drops the bits of the stretched
 * dims). With both layouts linear too, the change is register-local - every thread
 * already holds each element it needs - exactly when the map carries each lane and warp
 * basis of the result onto the operand's, and every register's element is in the span
 * of the operand's registers. Otherwise it goes through shared memory: the whole operand
 * block, one slot of its element size per element.
 *
 * Reductions need scratch when several warps share the axis: one partial per output
 * element per such warp (8 bytes each, twice for argmax/argmin's indices); scans,
 * reduce_fn, sorts and flips then exchange whole blocks (each operand's element size per
 * element); a gather looks its source block up there, a histogram counts in num_bins i32
 * slots. Atomics in a
 * replicated layout pass the owner's old value to its copies through 8-byte slots. */
#ifndef NEREID_LAYOUT_MOVES_H
#define NEREID_LAYOUT_MOVES_H

#include "compiler/ir/ir_layout.h"

/* For a layout-changing op: map[i] is the operand's row-major index of the result's
 * row-major index 1 << i (0 for a stretched dim). */
void moves_index_map(const IrFunc *f, const IrOp *op, uint32_t *map);
uint32_t moves_apply(const uint32_t *map, uint32_t flat);

/* Does the layout-changing op keep every element in the thread that holds it? */
bool moves_is_local(const IrFunc *f, OpId op);
/* Would a convert_layout of a block of t from one layout to another? */
bool moves_convert_is_local(const IrModule *m, uint32_t from, uint32_t to, IrType t);

/* Registers of a block in `layout` that land at consecutive element offsets of a
 * buffer laid out by `shared` (a power of two, at most max_bytes / elem_bytes): the run
 * of low register bits whose offsets are 1, 2, 4, ... and that no lane or warp basis
 * touches, every other register's offset a multiple of the run's length, so the run's
 * first offset is aligned to it. The pieces a cp.async moves (consecutive registers,
 * which the global side needs too): the pipeliner's check and the lowering's copies. */
int moves_smem_run(const IrModule *m, uint32_t layout, uint32_t shared, IrType t, int elem_bytes,
                   int max_bytes);

/* The same for a move between registers and a buffer alone (local_alloc, local_store,
 * local_load): the register bits (any of them, in reg_bits[0..k)) whose offsets are
 * 1, 2, 4, ..., 2^(k-1), no lane or warp basis touching those bits and every other
 * register's offset a multiple of 2^k, so the registers that differ only in those bits
 * make one aligned vector of 2^k elements. Returns k. A tile moved between a row-major
 * and a column-major buffer holds its vectors along one dim in consecutive registers and
 * along the other in strided ones. */
int moves_smem_vector(const IrModule *m, uint32_t layout, uint32_t shared, IrType t, int elem_bytes,
                      int max_bytes, int *reg_bits);

/* Shared-memory wavefronts of moving a block in `layout` to or from a buffer laid out by
 * `shared` one element per access (each register of each thread its own ld/st.shared of
 * elem_bytes <= 4): per register, over one warp's lanes, the most distinct 4-byte words
 * that fall in one of the 32 banks (lanes reading one word share it), summed over the
 * registers. The number of registers is the minimum; above it, bank conflicts. Warps
 * other than the first differ from it by a fixed offset (a linear layout XORs their
 * bases in), which permutes the banks alike. -1 if the buffer's layout does not invert or
 * the block has more than 4096 registers a thread. */
int moves_smem_wavefronts(const IrModule *m, uint32_t layout, const IrLayout *shared, IrType t,
                          int elem_bytes);

/* The scratch an op needs in shared memory, in bytes (0: none). */
int moves_scratch_bytes(const IrFunc *f, OpId op);
/* All the shared memory an op needs, in bytes (0: none), and the alignment of its start
 * (*align): a local_alloc's ring of tiles (each aligned as its swizzle needs), else its
 * scratch (16 bytes, the widest access). What gpu-alloc-shared places and the code
 * generator checks before it reads an op's smem. */
int moves_smem_bytes(const IrFunc *f, OpId op, int *align);

#endif
