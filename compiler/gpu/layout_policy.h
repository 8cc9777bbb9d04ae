/* layout_policy.h - the GPU back end's layout choices: which layout a block, a dot's
 * result or a dot operand's buffer gets. The layouts themselves (their meaning and
 * arithmetic) are the IR core's (compiler/ir/ir_layout.h); these are decisions. */
#ifndef NEREID_LAYOUT_POLICY_H
#define NEREID_LAYOUT_POLICY_H

#include "compiler/ir/ir_layout.h"

/* Triton's default blocked layout for a shape on num_warps warps, with vec consecutive
 * elements per thread along the fastest dim (clamped to what the shape allows). */
IrLayout policy_default(IrType shape, int num_warps, int vec);
/* The same with dim `fast` fastest (the others after it, last dim first): the coalesced
 * layout of a memory access whose addresses run along `fast` (a column-major tile). */
IrLayout policy_blocked(IrType shape, int num_warps, int vec, int fast);

/* The layout of a dot's MxN result on the CUDA cores: each thread accumulates an
 * m_t x n_t tile (as square as the per-thread count allows), in chunks of up to 4
 * consecutive rows and columns. False when the block has fewer elements than threads. */
bool policy_fma_tile(IrType shape, int num_warps, IrLayout *out);

/* The tensor-core layout of a dot's result, if the target and the dot allow one:
 * wgmma (mma version 3) on sm_90a for a block of at least 64 rows with whole
 * warpgroups, else mma.sync (version 2) on sm_80 and up. a_dt is the inputs' dtype,
 * ieee an fp32 dot that must stay exact (no tf32), along_m that every warp must take
 * whole rows (a dot whose result feeds another dot's A: its rows then stay in one warp,
 * so reductions over them and the change into the next dot's operand need no shared
 * memory). False: the CUDA cores. */
bool policy_mma(int arch, int a_dt, bool ieee, IrType acc, int k, int num_warps, bool along_m,
                IrLayout *out);

/* k_width of a dot operand of this dtype: the elements of k in one 32-bit register. */
int policy_k_width(int dt);

/* The register layout of a 2-D tile moved from a buffer with dim `from` contiguous into
 * one with the other dim contiguous: each thread holds 16 bytes along `from` (one vector
 * read) by up to 16 bytes along the other dim (vector writes), lanes first along `from`.
 * False when the tile is too small for every thread to hold such a piece. */
bool policy_transpose_tile(IrType t, int num_warps, int from, IrLayout *out);

/* A swizzled shared layout for a tile of t (rank 2) whose contiguous dim is `fast`:
 * rows of at most 128 bytes swizzled in 16-byte chunks (the swizzle that wgmma's
 * descriptors, TMA and conflict-free ldmatrix want), longer rows cut into 128-byte
 * panels. Plain rows for tiles whose rows are under 16 bytes. */
IrLayout policy_shared(IrType t, int fast);
/* A plain (unswizzled) shared layout with dim `fast` contiguous. */
IrLayout policy_shared_plain(int rank, int fast);

#endif
