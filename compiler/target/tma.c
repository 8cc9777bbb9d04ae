/* tma.c - the tensor-descriptor choices of tma.h. */
#include "tma.h"

#include <string.h>

#include "compiler/ir/ir_layout.h"
#include "target.h"

bool gpu_tma_plan(IrType desc, TmaPlan *out) {
    memset(out, 0, sizeof *out);
    /* rank 2 and up: the swizzle XORs 16-byte chunks with smem address bits 7.. (the row
     * within a 1024-byte aligned tile), which a 1-D tile's boxes would meet at other
     * offsets than the shared layout's rows */
    if (desc.dt != DT_TDESC || desc.rank < 2 || desc.rank > NR_MAX_DESC_RANK) return false;
    int esize = dt_bytes(desc.pointee), r = desc.rank;
    int inner_bytes = desc.shape[r - 1] * esize;
    /* rows of at least 32 bytes: a swizzled layout (TMA wants 128-byte aligned buffers
     * and 16-byte multiples; a swizzle keeps the reads of the rows conflict free) */
    if (inner_bytes < 32 || inner_bytes % 16) return false;
    out->swizzle = inner_bytes >= 128 ? 128 : inner_bytes;
    out->nboxes = inner_bytes / out->swizzle;
    out->box_bytes = out->swizzle;
    for (int k = 0; k < r; k++) {
        out->box[k] = k == r - 1 ? out->swizzle / esize : desc.shape[k];
        if (out->box[k] > 256) return false; /* TMA's limit on a box dim */
        if (k < r - 1) out->box_bytes *= out->box[k];
    }
    /* several boxes: each must start on a swizzle period (1024 bytes), where the shared
     * layout's panels start their row count again */
    if (out->nboxes > 1 && out->box_bytes % 1024) return false;
    return ty_numel(desc) * esize < (1 << 20); /* an mbarrier's transaction count */
}

bool gpu_tdesc_uses_tma(IrType desc, int arch, int fact) {
    TmaPlan p;
    return arch == GPU_SM90A && fact == SPEC_DIV16 && gpu_tma_plan(desc, &p);
}

IrLayout gpu_tma_shared_layout(IrType desc, const TmaPlan *p) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_SHARED;
    l.rank = desc.rank;
    for (int k = 0; k < desc.rank; k++) l.order[k] = (uint8_t)(desc.rank - 1 - k);
    /* the hardware swizzle: 16-byte chunk bits 4.. XORed with address bits 7..: a row of
     * 128 bytes by the row's 3 low bits, of 64 bytes by bits 1-2, of 32 bytes by bit 2 */
    l.vec = (uint8_t)(16 / dt_bytes(desc.pointee));
    l.per_phase = (uint8_t)(128 / p->swizzle);
    l.max_phase = (uint8_t)(p->swizzle / 16);
    l.atom = (uint16_t)(p->nboxes > 1 ? p->box[desc.rank - 1] : 0);
    return l;
}

bool gpu_tma_buffer_layout(IrType desc, IrType buf, IrLayout *out) {
    TmaPlan plan;
    if (buf.rank < 2 || !ty_same_but_unit_dims(desc, buf) || !gpu_tma_plan(desc, &plan))
        return false;
    *out = gpu_tma_shared_layout(desc, &plan);
    out->rank = (uint8_t)buf.rank;
    memset(out->order, 0, sizeof out->order);
    for (int k = 0; k < buf.rank; k++) out->order[k] = (uint8_t)(buf.rank - 1 - k);
    return true;
}

int64_t gpu_tma_tile_bytes(IrType desc) { return ty_numel(desc) * dt_bytes(desc.pointee); }

uint32_t gpu_mbarrier_layout(IrModule *m) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_SHARED;
    l.rank = 1;
    l.vec = 1, l.per_phase = 1, l.max_phase = 1;
    return ir_layout_intern(m, &l);
}

enum { TMAP_BYTES = 128 };

int gpu_tdesc_param_bytes(IrType desc, bool tma) {
    return (tma ? TMAP_BYTES : 0) + 8 * (2 + 2 * desc.rank);
}
int gpu_tdesc_param_align(bool tma) { return tma ? 64 : 8; }
int gpu_tdesc_part_offset(bool tma, int part) { return (tma ? TMAP_BYTES : 0) + 8 * part; }
