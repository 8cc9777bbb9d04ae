/* llvm_wgmma.h - wgmma's shared-memory matrix descriptors, built from a buffer's shared
 * layout (llvm_wgmma_desc.c). */
#ifndef NEREID_LLVM_WGMMA_H
#define NEREID_LLVM_WGMMA_H

#include "gen_internal.h"

/* A wgmma operand in shared memory: A (idx 0, MxK) or B (idx 1, KxN). */
typedef struct WgmmaOperand {
    LLVMValueRef base;         /* the tile's address (ptr addrspace(3)) */
    uint32_t inv[LL_MAX_BITS]; /* its shared layout's inverse: row-major bit -> offset */
    LinearLayout shape;        /* the tile's shape */
    int eb;                    /* element bytes */
    int kdim, odim;            /* the tile's K dim and its M (A) or N (B) dim */
    bool mn_major;             /* M (N) contiguous: the instruction's transpose flag */
    uint64_t fixed;            /* the descriptor's offsets and swizzle mode */
    LLVMValueRef desc0;        /* the warpgroup's sub-tile at k = 0 (built on first use) */
} WgmmaOperand;

/* Is a buffer of t (rank 2) in this shared layout one wgmma reads: rows of 32, 64 or 128
 * bytes swizzled in 16-byte chunks, longer rows in 128-byte panels? (llvm_check.c refuses
 * any other before the lowering.) */
bool wgmma_buffer_ok(const IrModule *m, uint32_t shared, IrType t);
/* The operand's layout facts (its layout one wgmma_buffer_ok accepts). */
void wgmma_operand(Gen *g, WgmmaOperand *o, ValId buf, int idx);
/* The 64-bit descriptor of the operand's sub-tile starting at k = k0 and row (A) or column
 * (B) o_wg + o_const: o_wg the warpgroup's part (an i32 value whose set bits lie within
 * wg_mask, multiples of 8), o_const and k0 constants. Where the constant part's offset
 * shares no bit with the warpgroup's, the descriptor is the warpgroup's k = 0 one plus a
 * constant (one 64-bit add, as the hardware's own k loop does). */
LLVMValueRef wgmma_desc(Gen *g, WgmmaOperand *o, LLVMValueRef o_wg, uint32_t wg_mask, int o_const,
                        int k0);

#endif
