/* llvm_wgmma_desc.c - wgmma's 64-bit shared-memory matrix descriptors.
 *
 * A descriptor names a sub-tile in one of the canonical layouts the tensor cores read
 * (PTX ISA, "Matrix Descriptor Format"): bits 0-13 the start address >> 4, bits 16-29
 * the leading-dimension byte offset >> 4, bits 32-45 the stride-dimension byte offset
 * >> 4, bits 62-63 the swizzle (1: 128 bytes, 2: 64, 3: 32). The hardware applies the
 * swizzle to address bits, which is why swizzled buffers start at multiples of 1024
 * bytes (ir_smem_align). Nereid's swizzled shared layouts (ir_layout.h: rows of W = 32,
 * 64 or 128 bytes, 16-byte chunks XORed with the row's phase, longer rows in W-byte
 * panels) are those canonical layouts:
 * - K-major (K contiguous): rows of W bytes along M (N); the stride offset is the bytes
 *   between groups of 8 rows (8 W); the leading offset is unused (one instruction's K,
 *   32 bytes, lies within a row).
 * - MN-major (M or N contiguous): rows of W bytes along K; the stride offset is the bytes
 *   between groups of 8 k-rows, the leading offset the bytes between W-byte panels along
 *   M (N).
 * Both offsets, and a sub-tile's start, are read off the buffer's shared layout through
 * the inverse of its linear map, so the descriptor and the code that filled the buffer
 * agree by construction. */
#include "llvm_wgmma.h"

#include <string.h>

static uint32_t offset_of(const uint32_t *inv, uint32_t flat) {
    uint32_t o = 0;
    for (int k = 0; flat; k++, flat >>= 1)
        if (flat & 1) o ^= inv[k];
    return o;
}

/* The element offset of coordinate c along dim d (the other 0). */
static uint32_t along(const WgmmaOperand *o, int d, int c) {
    int32_t xy[2] = {0, 0};
    xy[d] = c;
    return offset_of(o->inv, ll_flat(&o->shape, xy));
}

/* The swizzle width W (bytes) of a canonical layout's rows, else 0. */
static int canonical_width(const IrLayout *l, IrType t) {
    int eb = dt_bytes(t.pointee), w = l->max_phase * 16,
        row = (l->atom ? l->atom : t.shape[l->order[0]]) * eb;
    return l->vec * eb == 16 && l->per_phase * w == 128 && row == w &&
                   (w == 32 || w == 64 || w == 128)
               ? w
               : 0;
}

bool wgmma_buffer_ok(const IrModule *m, uint32_t shared, IrType t) {
    return t.rank == 2 && canonical_width(&m->layouts[shared], t);
}

void wgmma_operand(Gen *g, WgmmaOperand *o, ValId buf, int idx) {
    IrType t = ir_type(g->f, buf);
    uint32_t sl = g->f->vals[buf].layout;
    const IrLayout *l = &g->m->layouts[sl];
    memset(o, 0, sizeof *o);
    o->base = gen_vals(g, buf, NULL)[0];
    gen_shared_inverse(g, sl, t, o->inv);
    ll_init(&o->shape, 2, t.shape);
    o->eb = dt_bytes(t.pointee);
    o->kdim = idx == 0 ? 1 : 0, o->odim = 1 - o->kdim;
    o->mn_major = l->order[0] == o->odim;
    int w = canonical_width(l, t);
    if (!w)
        NR_DIE("wgmma: shared layout #L%u is not a swizzled canonical layout",
               sl); /* llvm_check.c */
    uint64_t mode = w == 128 ? 1 : w == 64 ? 2 : 3;
    int rows = o->mn_major ? o->kdim : o->odim; /* the dim the W-byte rows are stacked along */
    uint64_t sbo = (uint64_t)along(o, rows, 8) * (uint64_t)o->eb, lbo = 16;
    if (o->mn_major && t.shape[o->odim] * o->eb > w)
        lbo = (uint64_t)along(o, o->odim, w / o->eb) * (uint64_t)o->eb;
    o->fixed = ((lbo >> 4) & 0x3fff) << 16 | ((sbo >> 4) & 0x3fff) << 32 | mode << 62;
}

static LLVMValueRef desc_at(Gen *g, const WgmmaOperand *o, int k0, LLVMValueRef o0) {
    uint32_t ob[LL_MAX_BITS];
    int lo = o->shape.log2shape[o->odim];
    for (int j = 0; j < lo; j++) ob[j] = along(o, o->odim, 1 << j);
    bool x = false;
    LLVMValueRef off = gen_thread_bits(g, o0, ob, lo, 0, LL_MAX_BITS, &x);
    uint32_t kc = along(o, o->kdim, k0);
    if (kc) off = LLVMBuildXor(g->B, off, gen_i32(g, kc), "");
    LLVMValueRef addr = LLVMBuildAdd(g->B, LLVMBuildPtrToInt(g->B, o->base, g->i32, ""),
                                     gen_mul_const(g, off, o->eb), "");
    LLVMValueRef start =
        LLVMBuildAnd(g->B, LLVMBuildLShr(g->B, addr, gen_i32(g, 4), ""), gen_i32(g, 0x3fff), "");
    return LLVMBuildOr(g->B, LLVMBuildZExt(g->B, start, g->i64, ""),
                       LLVMConstInt(g->i64, o->fixed, 0), "");
}

LLVMValueRef wgmma_desc(Gen *g, WgmmaOperand *o, LLVMValueRef o_wg, uint32_t wg_mask, int o_const,
                        int k0) {
    /* the offsets are XORs of per-bit offsets (a linear map); where the constant part's
     * bits and the warpgroup's can never meet, XOR is addition, and so is it for the
     * start address field: shared addresses are below 2^18, so (addr >> 4) fits its 14
     * bits without wrapping */
    uint32_t wg_bits = 0;
    for (int j = 0; j < 32; j++)
        if (wg_mask >> j & 1) wg_bits |= along(o, o->odim, 1 << j);
    uint32_t c = along(o, o->odim, o_const) ^ along(o, o->kdim, k0);
    uint64_t cb = (uint64_t)c * (uint64_t)o->eb;
    if ((c & wg_bits) || cb % 16)
        return desc_at(g, o, k0,
                       o_const ? LLVMBuildAdd(g->B, o_wg, gen_i32(g, o_const), "") : o_wg);
    if (!o->desc0) o->desc0 = desc_at(g, o, 0, o_wg);
    return cb ? LLVMBuildAdd(g->B, o->desc0, LLVMConstInt(g->i64, cb >> 4, 0), "") : o->desc0;
}
