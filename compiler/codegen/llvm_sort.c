/* llvm_sort.c - sort and flip along one axis, from the axis's digits (llvm_axis.c).
 *
 * flip: the element at index i takes the one at i with every axis digit inverted, which
 * one exchange with the partner across all the digits at once brings (registers in place,
 * one shuffle, or the scratch when warps share the axis).
 *
 * sort: a bitonic network over the digits. For stage k = 1 .. log2 L (blocks of 2^k
 * sorted) and j = k-1 .. 0, every element meets its partner across digit j: the pair is
 * in ascending order where digit k of the index is 0 (for k = log2 L: always), descending
 * where it is 1, every direction reversed for a descending sort; the element whose digit j
 * is 0 keeps the smaller of the two in an ascending pair, the larger in a descending one.
 * "Smaller" is ir_ops.def's total order: unsigned comparison of keys made from the bits
 * (floats: IEEE totalOrder, negatives inverted and positives' sign set; signed integers:
 * sign bit flipped), so the result is the interpreter's bit for bit. log2 L (log2 L + 1)
 * / 2 exchanges, each a register pair, a shuffle per register, or a trip through shared
 * memory for a warp digit. */
#include <string.h>

#include "gen_internal.h"

/* a < b in the total order */
static LLVMValueRef less(Gen *g, int dt, LLVMValueRef a, LLVMValueRef b) {
    if (!dt_is_float(dt)) {
        LLVMIntPredicate p = dt_is_signed(dt) ? LLVMIntSLT : LLVMIntULT;
        return LLVMBuildICmp(g->B, p, a, b, "");
    }
    int w = dt_bits(dt);
    LLVMTypeRef it = LLVMIntTypeInContext(g->C, (unsigned)w);
    LLVMValueRef k[2], v[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        LLVMValueRef x = LLVMBuildBitCast(g->B, v[i], it, "");
        LLVMValueRef sign = LLVMConstInt(it, 1ull << (w - 1), 0);
        LLVMValueRef m = LLVMBuildOr(
            g->B, LLVMBuildAShr(g->B, x, LLVMConstInt(it, (unsigned)(w - 1), 0), ""), sign, "");
        k[i] = LLVMBuildXor(g->B, x, m, "");
    }
    return LLVMBuildICmp(g->B, LLVMIntULT, k[0], k[1], "");
}

void gen_sort(Gen *g, OpId id) {
    const IrOp *op = &g->f->ops[id];
    ValId x = op->operands[0];
    int dt = ir_type(g->f, x).dt, nregs = gen_nregs(g, x);
    GenDigits d;
    gen_axis_digits(g, op, x, (int)op->attr[0], &d);
    uint32_t live = (uint32_t)(nregs - 1) & ~gen_layout(g, x)->reg_copies;
    LLVMValueRef *cur = gen_alloc_regs(g, nregs), *other = gen_alloc_regs(g, nregs);
    memcpy(cur, gen_vals(g, x, NULL), sizeof(LLVMValueRef) * (size_t)nregs);
    if (op->code == OP_FLIP) {
        uint32_t all = 0;
        for (int k = 0; k < d.n; k++) all |= d.basis[k];
        gen_partner(g, op, x, &d, all, 1, &dt, &cur, &other, 0);
    } else {
        LLVMValueRef desc = LLVMConstInt(g->i1, op->attr[1] != 0, 0);
        for (int k = 1; k <= d.n; k++)
            for (int j = k - 1; j >= 0; j--) {
                gen_partner(g, op, x, &d, d.basis[j], 1, &dt, &cur, &other, 0);
                for (int r = 0; r < nregs; r++) {
                    if ((uint32_t)r & ~live) continue;
                    LLVMValueRef up =
                        k < d.n ? gen_digit_set(g, &d, k, r) : LLVMConstInt(g->i1, 0, 0);
                    LLVMValueRef asc = LLVMBuildXor(g->B, LLVMBuildXor(g->B, up, desc, ""),
                                                    LLVMConstInt(g->i1, 1, 0), "");
                    LLVMValueRef lower = LLVMBuildNot(g->B, gen_digit_set(g, &d, j, r), "");
                    LLVMValueRef take_min = LLVMBuildICmp(g->B, LLVMIntEQ, lower, asc, "");
                    LLVMValueRef lt = less(g, dt, other[r], cur[r]); /* the partner is smaller */
                    LLVMValueRef take_other =
                        LLVMBuildSelect(g->B, take_min, lt, less(g, dt, cur[r], other[r]), "");
                    other[r] = LLVMBuildSelect(g->B, take_other, other[r], cur[r], "");
                }
                LLVMValueRef *t = cur;
                cur = other, other = t;
            }
        LLVMValueRef *t = other;
        other = cur, cur = t;
    }
    LLVMValueRef *out = gen_alloc_regs(g, nregs);
    for (int r = 0; r < nregs; r++) out[r] = other[(uint32_t)r & live];
    gen_set(g, op->results[0], out, nregs);
}
