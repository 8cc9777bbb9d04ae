/* llvm_axis.c - an axis of a block as its layout spreads it: which register, lane or
 * warp bit carries each of the axis's index bits (its digits), and exchanges with the
 * thread or register that holds the element whose index differs in some of those
 * digits. What scans (llvm_scan.c), sorts and flips (llvm_sort.c) are made of.
 *
 * The layout must give each digit one input bit (ir_layout_axis_separable). Then the
 * element at row-major index i ^ b (b an XOR of digits' bases) is held by register
 * r ^ R, lane ^ L, warp ^ W, where R, L and W gather the register, lane and warp bits
 * of those digits: a register is read in place, a lane difference is one shfl.sync.bfly
 * per value (a value several registers share is shuffled once), and a warp difference
 * goes through the op's scratch in shared memory: each element written at its index by
 * the thread that owns it, a barrier, each thread reading index i ^ b, a barrier before
 * anything rewrites the scratch. */
#include "gen_internal.h"

void gen_axis_digits(Gen *g, const IrOp *op, ValId x, int axis, GenDigits *d) {
    const GenLayout *xl = gen_layout(g, x);
    const LinearLayout *l = &xl->ll;
    if (!ir_layout_axis_separable(g->m, xl->id, ir_type(g->f, x), axis))
        gen_error(g, op->loc,
                  "internal error: '%s' over a layout that mixes the axis with other dims",
                  ir_op_info[op->code].name);
    int shift = ll_dim_shift(l, axis);
    d->n = l->log2shape[axis];
    for (int k = 0; k < d->n; k++) {
        d->kind[k] = -1;
        d->basis[k] = 1u << (shift + k);
        for (int in = 0; in < LL_NIN; in++)
            for (int i = 0; i < l->nbits[in]; i++)
                if (l->basis[in][i] == d->basis[k]) d->kind[k] = in, d->bit[k] = i;
        if (d->kind[k] < 0)
            gen_error(g, op->loc, "internal error: axis bit %d is in no register, lane or warp", k);
    }
}

LLVMValueRef gen_digit_set(Gen *g, const GenDigits *d, int k, int r) {
    if (d->kind[k] == LL_REG) return LLVMConstInt(g->i1, (unsigned)(r >> d->bit[k]) & 1, 0);
    LLVMValueRef id = d->kind[k] == LL_LANE ? g->lane : g->warp;
    return LLVMBuildICmp(g->B, LLVMIntNE, LLVMBuildAnd(g->B, id, gen_i32(g, 1 << d->bit[k]), ""),
                         gen_i32(g, 0), "");
}

/* The bits of c (a constant) or id (an i32) that are set in keep, packed down to the low
 * end. */
static uint32_t compact_bits_const(uint32_t c, uint32_t keep) {
    uint32_t v = 0;
    for (int i = 0, k = 0; i < 32; i++)
        if (keep >> i & 1) v |= (c >> i & 1u) << k++;
    return v;
}

static LLVMValueRef compact_bits(Gen *g, LLVMValueRef id, uint32_t keep) {
    if (!(keep & (keep + 1))) return LLVMBuildAnd(g->B, id, gen_i32(g, keep), ""); /* low run */
    LLVMValueRef v = gen_i32(g, 0);
    for (int i = 0, k = 0; i < 32; i++) {
        if (!(keep >> i & 1)) continue;
        LLVMValueRef bit =
            LLVMBuildAnd(g->B, LLVMBuildLShr(g->B, id, gen_i32(g, i), ""), gen_i32(g, 1), "");
        v = LLVMBuildOr(g->B, v, k ? LLVMBuildShl(g->B, bit, gen_i32(g, k), "") : bit, "");
        k++;
    }
    return v;
}

static uint32_t held_bits(const LinearLayout *l, int in) {
    uint32_t m = 0;
    for (int i = 0; i < l->nbits[in]; i++)
        if (l->basis[in][i]) m |= 1u << i;
    return m;
}

/* The scratch word of the element that register r ^ rx of the thread whose lane and warp
 * ids are this thread's XOR lx and wx holds: the holder's lane bits lowest, then its warp
 * bits, then its register bits, the bits whose basis is 0 (copies) left out, so the words
 * are the block's elements once each. Any thread finds its partner's element by the XOR
 * (the layout is linear), and for one register the lanes of a warp touch consecutive
 * words: no bank conflicts, where the element's row-major index put lanes a row apart
 * when they ran along another dim than the last (a [64, 8] Welford over 4 warps: 16-way
 * conflicts). */
static LLVMValueRef exchange_word(Gen *g, const GenLayout *xl, int r, uint32_t rx, uint32_t lx,
                                  uint32_t wx) {
    const LinearLayout *l = &xl->ll;
    uint32_t lk = held_bits(l, LL_LANE), wk = held_bits(l, LL_WARP), rk = held_bits(l, LL_REG);
    int nl = __builtin_popcount(lk), nw = __builtin_popcount(wk);
    LLVMValueRef lane = lx ? LLVMBuildXor(g->B, g->lane, gen_i32(g, lx), "") : g->lane;
    LLVMValueRef warp = wx ? LLVMBuildXor(g->B, g->warp, gen_i32(g, wx), "") : g->warp;
    LLVMValueRef w = compact_bits(g, lane, lk);
    if (wk)
        w = LLVMBuildOr(g->B, w, LLVMBuildShl(g->B, compact_bits(g, warp, wk), gen_i32(g, nl), ""),
                        "");
    uint32_t rr = compact_bits_const((uint32_t)r ^ rx, rk);
    return rr ? LLVMBuildOr(g->B, w, gen_i32(g, (int64_t)rr << (nl + nw)), "") : w;
}

/* The first live register holding the same LLVM value as register r. */
static int first_holder(LLVMValueRef *const v, uint32_t live, int r) {
    for (int q = 0; q < r; q++)
        if (!((uint32_t)q & ~live) && v[q] == v[r]) return q;
    return r;
}

void gen_partner(Gen *g, const IrOp *op, ValId x, const GenDigits *d, uint32_t flip, int n,
                 const int *dts, LLVMValueRef *const *vals, LLVMValueRef **out, uint32_t skip) {
    const GenLayout *xl = gen_layout(g, x);
    int nregs = 1 << xl->ll.nbits[LL_REG];
    uint32_t live = (uint32_t)(nregs - 1) & ~xl->reg_copies & ~skip, rx = 0, lx = 0, wx = 0;
    for (int k = 0; k < d->n; k++) {
        if (!(flip & d->basis[k])) continue;
        if (d->kind[k] == LL_REG) rx |= 1u << d->bit[k];
        else if (d->kind[k] == LL_LANE) lx |= 1u << d->bit[k];
        else wx |= 1u << d->bit[k];
    }
    if (!wx) {
        LLVMValueRef *from = gen_alloc_regs(g, nregs), *got = gen_alloc_regs(g, nregs);
        for (int j = 0; j < n; j++) {
            int nsh = 0;
            for (int r = 0; r < nregs; r++) {
                if ((uint32_t)r & ~live) continue;
                LLVMValueRef v = vals[j][(uint32_t)r ^ rx];
                if (!lx) {
                    out[j][r] = v;
                    continue;
                }
                int k = 0;
                while (k < nsh && from[k] != v) k++;
                if (k == nsh) from[nsh] = v, got[nsh++] = gen_shfl_xor(g, v, (int)lx);
                out[j][r] = got[k];
            }
        }
        return;
    }
    if (!op->smem_size)
        gen_error(g, op->loc, "internal error: '%s' across warps without shared memory",
                  ir_op_info[op->code].name);
    int64_t numel = ty_numel(ir_type(g->f, x));
    int off[16], eb[16];
    if (n > 16) gen_error(g, op->loc, "internal error: an exchange of more than 16 blocks");
    for (int j = 0, o = op->smem_offset; j < n; j++) {
        eb[j] = dts[j] == DT_I1 ? 1 : dt_bytes(dts[j]);
        off[j] = o;
        o += (int)((numel * eb[j] + 7) / 8 * 8);
    }
    uint32_t lk = held_bits(&xl->ll, LL_LANE), wk = held_bits(&xl->ll, LL_WARP),
             rk = held_bits(&xl->ll, LL_REG);
    if ((wx & ~wk) || (lx & ~lk) || (rx & ~rk) ||
        (int64_t)1 << (__builtin_popcount(lk) + __builtin_popcount(wk) + __builtin_popcount(rk)) >
            numel)
        gen_error(g, op->loc, "internal error: an exchange over a layout that is not one-to-one");
    /* registers holding the same value (the same LLVM value here, so in every thread:
     * llvm_uniform.c) go through the scratch once, at the first one's word */
    for (int r = 0; r < nregs; r++) {
        if ((uint32_t)r & ~live) continue;
        LLVMValueRef once = gen_layout_unique(g, xl, r);
        if (once && LLVMIsAConstantInt(once) && !LLVMConstIntGetZExtValue(once)) continue;
        LLVMValueRef idx = exchange_word(g, xl, r, 0, 0, 0);
        for (int j = 0; j < n; j++)
            if (first_holder(vals[j], live, r) == r)
                gen_store_if(g, once, gen_to_mem(g, vals[j][r], dts[j]),
                             gen_smem_ptr(g, off[j], idx, eb[j]), (unsigned)eb[j]);
    }
    gen_barrier(g);
    for (int r = 0; r < nregs; r++) {
        if ((uint32_t)r & ~live) continue;
        for (int j = 0; j < n; j++) {
            int c = first_holder(vals[j], live, (int)((uint32_t)r ^ rx)); /* the partner's */
            int q = 0; /* a register of this thread already holding the partner's c */
            while (q < r && (((uint32_t)q & ~live) ||
                             first_holder(vals[j], live, (int)((uint32_t)q ^ rx)) != c))
                q++;
            if (q < r) {
                out[j][r] = out[j][q];
                continue;
            }
            LLVMValueRef idx = exchange_word(g, xl, (int)((uint32_t)c ^ rx), rx, lx, wx);
            LLVMValueRef v = LLVMBuildLoad2(g->B, gen_mem_type(g, dts[j]),
                                            gen_smem_ptr(g, off[j], idx, eb[j]), "");
            LLVMSetAlignment(v, (unsigned)eb[j]);
            out[j][r] = gen_from_mem(g, v, dts[j]);
        }
    }
    gen_barrier(g);
}
