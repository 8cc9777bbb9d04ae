/* tma.h - how a tensor-descriptor parameter (tdesc) reaches a kernel, shared by the GPU
 * back end and the runtime so that both make the same choice:
 * - which descriptors go through the tensor memory accelerator: sm_90a, tiles TMA can
 *   copy (gpu_tma_plan), and arguments the launch found fit (the parameter's
 *   specialisation fact SPEC_DIV16: base 16-byte aligned, strides but the last multiples
 *   of 16 bytes, sizes within TMA's range, NaN padding only for float types TMA fills);
 * - the box and swizzle of its tensor map, and the shared layout the copies write
 *   (128-byte, 64-byte or 32-byte swizzled rows, wgmma's canonical layouts; a tile whose
 *   rows are longer than 128 bytes takes one box per 128-byte panel);
 * - the parameter's bytes: [the 128-byte tensor map, when TMA] then the parts desc_part
 *   reads, 8 bytes each: base, sizes, strides, padding. */
#ifndef NEREID_GPU_TMA_H
#define NEREID_GPU_TMA_H

#include "compiler/ir/ir.h"

typedef struct TmaPlan {
    int swizzle; /* bytes: 32, 64 or 128 */
    int32_t
        box[NR_MAX_DESC_RANK]; /* the box, in the tile's dim order (the last dim cut to a panel) */
    int nboxes;                /* copies per tile, panel after panel along the last dim */
    int box_bytes;             /* bytes of one box */
} TmaPlan;

/* Can TMA copy tiles of this descriptor (false: the descriptor's accesses are expanded
 * into ordinary loads and stores)? Rank 2 to 5, rows of at least 32 bytes (a multiple of
 * 16), box dims up to 256, and, when a row takes several boxes, boxes of whole 1024-byte
 * swizzle periods. */
bool gpu_tma_plan(IrType desc, TmaPlan *out);
/* Does a kernel for arch (GpuArch) access this descriptor parameter through TMA, given
 * its specialisation fact? */
bool gpu_tdesc_uses_tma(IrType desc, int arch, int fact);
/* The shared layout of a plan's buffers (the caller interns it). */
IrLayout gpu_tma_shared_layout(IrType desc, const TmaPlan *p);
/* The shared layout a buffer of type buf must have for TMA copies of desc's tiles to land
 * in it or leave it: the plan's, at the buffer's rank, where the buffer holds the
 * descriptor's tile but for unit dims (rank 2 or more: a [1, M, K] box lands as an [M, K]
 * tile, byte for byte, and the swizzle follows the shared addresses); false where it does
 * not, or TMA cannot copy the tile. */
bool gpu_tma_buffer_layout(IrType desc, IrType buf, IrLayout *out);
/* The bytes of one tile of the descriptor (what an mbarrier_expect of its copy counts). */
int64_t gpu_tma_tile_bytes(IrType desc);
/* The shared layout of an mbarrier buffer (smem<1xi64>, one per stage), interned in m. */
uint32_t gpu_mbarrier_layout(IrModule *m);
/* The parameter's size and alignment, and the byte offset of desc_part's part. */
int gpu_tdesc_param_bytes(IrType desc, bool tma);
int gpu_tdesc_param_align(bool tma);
int gpu_tdesc_part_offset(bool tma, int part);

/* Tensor maps for pointer loads (compiler/gpu/tma_pointers.c): the pass appends a tdesc
 * parameter per map to the kernel, and the launcher fills it from the other arguments.
 * A value of the arguments: arg(param) * mul + add, or the constant add where param < 0
 * (integer parameters; a size without a bound is TMA_PTR_UNBOUNDED). */
typedef struct TmaArgValue {
    int16_t param;
    int64_t mul, add;
} TmaArgValue;
typedef struct TmaPtrMap {
    uint16_t param; /* the appended tdesc parameter */
    uint16_t base;  /* the pointer parameter: the map's base */
    IrType type;    /* the tdesc's type: element, rank, tile (unit dims first) */
    TmaArgValue size[NR_MAX_DESC_RANK], stride[NR_MAX_DESC_RANK]; /* in elements; last stride 1 */
} TmaPtrMap;
enum { TMA_PTR_MAX_MAPS = 8, TMA_PTR_MAX_CHECKS = 8 };
#define TMA_PTR_UNBOUNDED ((int64_t)INT32_MAX)
typedef struct TmaPtrPlan {
    int nmaps;
    TmaPtrMap maps[TMA_PTR_MAX_MAPS];
    int nnonneg;
    uint16_t nonneg[TMA_PTR_MAX_CHECKS]; /* integer parameters the coordinates need >= 0 */
} TmaPtrPlan;

#endif
