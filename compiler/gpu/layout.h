/* layout.h - the arithmetic of distributed layouts (IrLayout in ir.h), shared by the
 * layout assignment pass, the shared-memory sizing and the LLVM lowering.
 *
 * For a block of shape S in a blocked layout, along each dim d a thread holds
 * n[d] = max(min(spt[d], S[d]), S[d] / (tpw[d] * wpc[d])) elements. Register i_d (0 <=
 * i_d < n[d]) of the thread with lane coordinate l_d and warp coordinate w_d sits at the
 * unwrapped position
 *     u_d = (i_d / e_d) * (spt[d] * tpw[d] * wpc[d]) + w_d * spt[d] * tpw[d] + l_d * spt[d] + i_d % e_d
 * where e_d = min(spt[d], S[d]); the element is u_d mod S[d], and the thread holds a
 * duplicate (replication, when the block is smaller than the layout's tile) unless
 * u_d < S[d] on every dim. A thread's registers are numbered with order[0] fastest, so
 * each spt chunk along the fastest dim is consecutive: one vector access.
 * Lane and warp ids split into per-dim coordinates in `order` (fastest dim first).
 * A slice layout holds the parent's registers with the sliced dim's index fixed at 0. */
#ifndef NEREID_LAYOUT_H
#define NEREID_LAYOUT_H

#include "../ir_layout.h"

/* Triton's default blocked layout for a shape on num_warps warps, with vec consecutive
 * elements per thread along the fastest dim (clamped to what the shape allows). */
IrLayout layout_default(IrType shape, int num_warps, int vec);

/* The layout of a dot's MxN result on the CUDA cores: each thread accumulates an
 * m_t x n_t tile (as square as the per-thread count allows), in chunks of up to 4
 * consecutive rows and columns, so one k step loads m_t + n_t operand values (in
 * vectors of a chunk) for m_t * n_t FMAs. Returns false (out untouched) when the block
 * has fewer elements than threads; the caller then uses the default layout. */
bool layout_dot(IrType shape, int num_warps, IrLayout *out);

/* Where dot stages its operands in shared memory: A (MxK) transposed, k-major, with
 * each k row padded by one row chunk (a_pitch bytes, a multiple of the result's row-chunk
 * bytes, so a chunk of rows is one aligned vector load, and consecutive k rows start in
 * different banks, which spreads the staging stores over more of them); B (KxN)
 * row-major at b_offset. */
typedef struct DotSmem {
    int a_pitch, b_offset, b_pitch, bytes;
} DotSmem;
void layout_dot_smem(const IrModule *m, uint32_t result_layout, IrType a, IrType b, DotSmem *out);

/* The blocked layout under a layout (itself, or a slice's root parent). */
const IrLayout *layout_root(const IrModule *m, uint32_t id);

/* Per-dim facts of layout `id` applied to shape ty (blocked or slice). */
typedef struct LayoutDims {
    int rank;
    int n[NR_MAX_RANK];        /* registers along each dim */
    int e[NR_MAX_RANK];        /* min(spt, S) */
    int stride[NR_MAX_RANK];   /* register-index stride of each dim */
    int tile[NR_MAX_RANK];     /* spt * tpw * wpc */
    int nregs;
    /* for each dim of the block: the dim of the root blocked layout it is */
    int root_dim[NR_MAX_RANK];
} LayoutDims;
void layout_dims(const IrModule *m, uint32_t id, IrType ty, LayoutDims *out);

/* The constant part of register r's unwrapped position along each block dim, and the
 * per-dim register index. */
void layout_reg_offsets(const LayoutDims *ld, const IrModule *m, uint32_t id, int r, int64_t *pos, int *idx);

/* Does a block of this type in this layout have elements held by several threads
 * (a slice, or a blocked layout whose tile is larger than the block along some dim)? */
bool layout_replicates(const IrModule *m, uint32_t id, IrType ty);

/* Human-readable form used by the IR printer: blocked<spt=[..], tpw=[..], wpc=[..], order=[..]>
 * or slice<dim=N, parent=#LK>. */
void layout_print(StrBuf *out, const IrLayout *l);

#endif
