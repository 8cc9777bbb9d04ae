/* llvm_reduce.c - reductions (sum, max, min, argmax, argmin) along one axis.
 *
 * Read from the linear maps of the operand's layout and the result's (its slice):
 * 1. In each thread, combine the registers whose elements differ only along the axis, in
 *    register order (registers that copy another are left out).
 * 2. Across the lanes whose bases step along the axis: butterfly shuffles
 *    (shfl.sync.bfly) over those lane-id bits; every such lane ends with the warp's
 *    result. 64-bit values travel as two halves, 16-bit ones widened. Lanes holding
 *    copies (basis 0) are not combined.
 * 3. Across the warps whose bases step along the axis: each warp writes its partial to
 *    shared memory at (warp slot, output element), the CTA synchronises, and every
 *    thread combines the partials of its output elements in slot order.
 * The result has the operand's layout sliced along the axis (a scalar for rank 1).
 * argmax/argmin carry (value, index) pairs; ties keep the smaller index. */

#include "gen_internal.h"

typedef struct Acc {
    LLVMValueRef v, i; /* value, index (argmax/argmin) */
} Acc;

static bool is_arg(int kind) { return kind == RED_ARGMAX || kind == RED_ARGMIN; }

/* a better than b for max-like (gt) or min-like (lt); NaN never wins */
static LLVMValueRef better(Gen *g, bool mx, int dt, LLVMValueRef a, LLVMValueRef b) {
    if (dt_is_float(dt)) return LLVMBuildFCmp(g->B, mx ? LLVMRealOGT : LLVMRealOLT, a, b, "");
    LLVMIntPredicate p =
        dt_is_signed(dt) ? (mx ? LLVMIntSGT : LLVMIntSLT) : (mx ? LLVMIntUGT : LLVMIntULT);
    return LLVMBuildICmp(g->B, p, a, b, "");
}

static Acc combine(Gen *g, int kind, int dt, Acc a, Acc b) {
    Acc r = {NULL, NULL};
    bool fl = dt_is_float(dt);
    if (kind == RED_SUM) {
        r.v = fl ? LLVMBuildFAdd(g->B, a.v, b.v, "") : LLVMBuildAdd(g->B, a.v, b.v, "");
        return r;
    }
    bool mx = kind == RED_MAX || kind == RED_ARGMAX;
    if (!is_arg(kind)) {
        if (fl) {
            const char *n = dt == DT_FP64   ? (mx ? "llvm.maxnum.f64" : "llvm.minnum.f64")
                            : dt == DT_FP32 ? (mx ? "llvm.maxnum.f32" : "llvm.minnum.f32")
                            : dt == DT_FP16 ? (mx ? "llvm.maxnum.f16" : "llvm.minnum.f16")
                                            : (mx ? "llvm.maxnum.bf16" : "llvm.minnum.bf16");
            r.v = gen_intrinsic(g, n, LLVMTypeOf(a.v), (LLVMValueRef[]){a.v, b.v}, 2);
        } else {
            r.v = LLVMBuildSelect(g->B, better(g, mx, dt, b.v, a.v), b.v, a.v, "");
        }
        return r;
    }
    /* b wins if strictly better, or equal with a smaller index, or a is NaN and b is not */
    LLVMValueRef wins = better(g, mx, dt, b.v, a.v);
    LLVMValueRef eq = fl ? LLVMBuildFCmp(g->B, LLVMRealOEQ, a.v, b.v, "")
                         : LLVMBuildICmp(g->B, LLVMIntEQ, a.v, b.v, "");
    wins = LLVMBuildOr(
        g->B, wins, LLVMBuildAnd(g->B, eq, LLVMBuildICmp(g->B, LLVMIntSLT, b.i, a.i, ""), ""), "");
    if (fl) {
        LLVMValueRef anan = LLVMBuildFCmp(g->B, LLVMRealUNO, a.v, a.v, "");
        LLVMValueRef bnum = LLVMBuildFCmp(g->B, LLVMRealORD, b.v, b.v, "");
        wins = LLVMBuildOr(g->B, wins, LLVMBuildAnd(g->B, anan, bnum, ""), "");
    }
    r.v = LLVMBuildSelect(g->B, wins, b.v, a.v, "");
    r.i = LLVMBuildSelect(g->B, wins, b.i, a.i, "");
    return r;
}

static LLVMValueRef shfl32(Gen *g, LLVMValueRef x, int mask) {
    LLVMValueRef args[4] = {gen_i32(g, -1), x, gen_i32(g, mask), gen_i32(g, 31)};
    return gen_intrinsic(g, "llvm.nvvm.shfl.sync.bfly.i32", g->i32, args, 4);
}

LLVMValueRef gen_shfl_xor(Gen *g, LLVMValueRef x, int mask) {
    LLVMTypeRef ty = LLVMTypeOf(x);
    unsigned bits = LLVMGetTypeKind(ty) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(ty)
                    : ty == g->f64                             ? 64
                    : ty == g->f32                             ? 32
                                                               : 16;
    LLVMTypeRef ity = LLVMIntTypeInContext(g->C, bits);
    LLVMValueRef i =
        LLVMGetTypeKind(ty) == LLVMIntegerTypeKind ? x : LLVMBuildBitCast(g->B, x, ity, "");
    LLVMValueRef r;
    if (bits == 64) {
        LLVMValueRef lo = LLVMBuildTrunc(g->B, i, g->i32, ""),
                     hi = LLVMBuildTrunc(g->B, LLVMBuildLShr(g->B, i, gen_i64(g, 32), ""), g->i32,
                                         "");
        lo = LLVMBuildZExt(g->B, shfl32(g, lo, mask), g->i64, "");
        hi = LLVMBuildZExt(g->B, shfl32(g, hi, mask), g->i64, "");
        r = LLVMBuildOr(g->B, lo, LLVMBuildShl(g->B, hi, gen_i64(g, 32), ""), "");
    } else if (bits == 32) {
        r = shfl32(g, i, mask);
    } else {
        r = LLVMBuildTrunc(g->B, shfl32(g, LLVMBuildZExt(g->B, i, g->i32, ""), mask), ity, "");
    }
    return LLVMGetTypeKind(ty) == LLVMIntegerTypeKind ? r : LLVMBuildBitCast(g->B, r, ty, "");
}

/* Row-major index of the operand with the axis's bits inserted (as zeros) into an index
 * of the result. */
static uint32_t expand(uint32_t f, int shift, int la) {
    return ((f >> shift) << (shift + la)) | (f & ((1u << shift) - 1));
}

/* The lane or warp bits that step along the axis; an internal error if one steps along
 * the axis and another dim at once (its partner would hold another output). */
static uint32_t axis_bits(Gen *g, const IrOp *op, const LinearLayout *l, int in, uint32_t amask) {
    uint32_t m = 0;
    for (int i = 0; i < l->nbits[in]; i++) {
        uint32_t b = l->basis[in][i];
        if (!(b & amask)) continue;
        if (b & ~amask)
            gen_error(g, op->loc,
                      "internal error: a reduction over a layout whose threads mix the axis with "
                      "other dims");
        m |= 1u << i;
    }
    return m;
}

/* The partial's slot of this warp: its warp-id bits along the axis, gathered. */
static LLVMValueRef warp_slot(Gen *g, uint32_t wmask) {
    LLVMValueRef s = gen_i32(g, 0);
    for (int i = 0, j = 0; wmask >> i; i++) {
        if (!(wmask >> i & 1)) continue;
        LLVMValueRef bit =
            LLVMBuildAnd(g->B, LLVMBuildLShr(g->B, g->warp, gen_i32(g, i), ""), gen_i32(g, 1), "");
        s = LLVMBuildOr(g->B, s, j ? LLVMBuildShl(g->B, bit, gen_i32(g, j), "") : bit, "");
        j++;
    }
    return s;
}

/* 3. across warps, through shared memory: the partials of warp slot w are the w-th row of
 * a [slot][output element] table, in words (8 bytes for 64-bit values). Along a row the
 * output elements sit as the result's row-major index: the lanes of a warp, holding
 * neighbouring outputs, touch neighbouring words. (Slot-minor rows put a warp's lanes
 * npart words apart each: a [64, 8] column sum over 4 warps read its partials with 16-way
 * bank conflicts, measured at 1.7x Triton's time.) A thread's outputs that are consecutive
 * along the result's last dim (its registers' first bases) are written and read as one
 * vector of up to 16 bytes: a [64, 8] sum over 4 warps with 4 outputs a thread reads its 16
 * partials with 4 loads from one address, not 16 loads from 16 addresses kept live from
 * one reduction to the next (Inductor's backward batch norms reduce two sums in a row). */
static void store_run(Gen *g, int off, LLVMValueRef slot, LLVMValueRef *v, int n, int eb) {
    LLVMValueRef x = v[0];
    if (n > 1) {
        x = LLVMGetUndef(LLVMVectorType(LLVMTypeOf(v[0]), (unsigned)n));
        for (int k = 0; k < n; k++) x = LLVMBuildInsertElement(g->B, x, v[k], gen_i32(g, k), "");
    }
    LLVMSetAlignment(LLVMBuildStore(g->B, x, gen_smem_ptr(g, off, slot, eb)), (unsigned)(n * eb));
}

static void load_run(Gen *g, int off, LLVMValueRef slot, LLVMTypeRef ty, int n, int eb,
                     LLVMValueRef *out) {
    LLVMTypeRef t = n > 1 ? LLVMVectorType(ty, (unsigned)n) : ty;
    LLVMValueRef x = LLVMBuildLoad2(g->B, t, gen_smem_ptr(g, off, slot, eb), "");
    LLVMSetAlignment(x, (unsigned)(n * eb));
    for (int k = 0; k < n; k++)
        out[k] = n > 1 ? LLVMBuildExtractElement(g->B, x, gen_i32(g, k), "") : x;
}

/* A run of vec registers starts at a multiple of vec along the last dim: no basis but
 * the run's own registers (the first `contig`) has a bit below vec there. (The layouts
 * the compiler builds have one bit a basis; a hand-written linear layout may not.) */
static bool runs_aligned(const LinearLayout *l, int last, int contig, int vec) {
    int shift = ll_dim_shift(l, last);
    for (int in = 0; in < LL_NIN; in++)
        for (int i = in == LL_REG ? contig : 0; i < l->nbits[in]; i++)
            if ((l->basis[in][i] >> shift) & (uint32_t)(vec - 1)) return false;
    return true;
}

static void across_warps(Gen *g, const IrOp *op, Acc *acc, int nout, uint32_t wmask, int kind,
                         int dt) {
    ValId res = op->results[0];
    IrType rt = ir_type(g->f, res);
    int npart = 1 << __builtin_popcount(wmask);
    if (!op->smem_size) gen_error(g, op->loc, "internal error: reduction without shared memory");
    int64_t nres = ty_numel(rt);
    int eb = dt_bytes(dt) > 4 ? 8 : 4;
    LLVMValueRef row = gen_mul_const(g, warp_slot(g, wmask), nres);
    /* the scratch holds 8 bytes a partial (moves_scratch_bytes): indices after the values */
    int idx_off = op->smem_offset + (int)(nres * npart * 8);
    /* outputs o .. o+vec-1 (o a multiple of vec) are consecutive in the row-major index: the
     * result's first register bases step along its last dim; vec * eb bytes at most 16,
     * and the runs aligned (each row's start is a multiple of nres, a power of two) */
    int vec = 1;
    if (rt.rank) {
        const LinearLayout *rll = &gen_layout(g, res)->ll;
        int contig = ll_contig_bits(rll, LL_REG, rt.rank - 1);
        vec = 1 << contig;
        while (vec > 1 && (vec > nout || vec * eb > 16 || op->smem_offset % (vec * eb) ||
                           (is_arg(kind) && idx_off % (vec * 4)) ||
                           !runs_aligned(rll, rt.rank - 1, contig, vec)))
            vec >>= 1;
    }
    LLVMValueRef *lin = gen_alloc_regs(g, nout);
    for (int o = 0; o < nout; o += vec) {
        LLVMValueRef c[NR_MAX_RANK];
        if (rt.rank) gen_elem_pos(g, res, o, c);
        lin[o] = rt.rank ? gen_linear(g, c, rt) : gen_i32(g, 0);
        LLVMValueRef slot = LLVMBuildAdd(g->B, row, lin[o], "");
        LLVMValueRef v[4], ix[4];
        for (int k = 0; k < vec; k++) v[k] = acc[o + k].v, ix[k] = acc[o + k].i;
        store_run(g, op->smem_offset, slot, v, vec, eb);
        if (acc[o].i) store_run(g, idx_off, slot, ix, vec, 4);
    }
    gen_barrier(g);
    LLVMTypeRef ty = gen_type(g, dt);
    for (int o = 0; o < nout; o += vec) {
        Acc a[4];
        for (int w = 0; w < npart; w++) {
            LLVMValueRef slot = gen_add_const(g, lin[o], (int)(w * nres));
            LLVMValueRef v[4], ix[4] = {NULL, NULL, NULL, NULL};
            load_run(g, op->smem_offset, slot, ty, vec, eb, v);
            if (is_arg(kind)) load_run(g, idx_off, slot, g->i32, vec, 4, ix);
            for (int k = 0; k < vec; k++) {
                Acc e = {v[k], ix[k]};
                a[k] = w == 0 ? e : combine(g, kind, dt, a[k], e);
            }
        }
        for (int k = 0; k < vec; k++) acc[o + k] = a[k];
    }
}

void gen_reduce(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    int kind = (int)op->attr[0], axis = (int)op->attr[1];
    ValId x = op->operands[0], res = op->results[0];
    int dt = ir_type(g->f, x).dt;
    const GenLayout *xl = gen_layout(g, x);
    const LinearLayout *l = &xl->ll;
    int shift = ll_dim_shift(l, axis), la = l->log2shape[axis], nregs = 1 << l->nbits[LL_REG];
    uint32_t amask = ((1u << la) - 1) << shift;
    LLVMValueRef *in = gen_vals(g, x, NULL);
    int narrow = (dt == DT_FP16 || dt == DT_BF16) && kind == RED_SUM ? dt : 0;
    if (narrow) { /* accumulate in fp32, as the interpreter does, and round once */
        LLVMValueRef *wide = gen_alloc_regs(g, nregs);
        for (int r = 0; r < nregs; r++) wide[r] = LLVMBuildFPExt(g->B, in[r], g->f32, "");
        in = wide;
        dt = DT_FP32;
    }
    const GenLayout *rl = ir_type(g->f, res).rank ? gen_layout(g, res) : NULL;
    int nout = rl ? 1 << rl->ll.nbits[LL_REG] : 1;
    Acc *acc = arena_alloc(g->m->arena, sizeof(Acc) * (size_t)nout);
    /* 1. within the thread: each output gathers the registers whose element differs from
     * it only along the axis, in register order (copies left out) */
    for (int o = 0; o < nout; o++) {
        uint32_t key = rl ? expand(ll_apply_dim(&rl->ll, LL_REG, (uint32_t)o), shift, la) : 0;
        bool first = true;
        for (int r = 0; r < nregs; r++) {
            if (((uint32_t)r & xl->reg_copies) ||
                (ll_apply_dim(l, LL_REG, (uint32_t)r) & ~amask) != key)
                continue;
            Acc e = {in[r], NULL};
            if (is_arg(kind)) {
                LLVMValueRef c[NR_MAX_RANK];
                gen_layout_pos(g, xl, r, c);
                e.i = c[axis];
            }
            acc[o] = first ? e : combine(g, kind, dt, acc[o], e);
            first = false;
        }
        if (first) NR_DIE("gen_reduce: output register %d gathers nothing", o);
    }
    /* 2. across lanes: butterflies over the lane bits along the axis */
    uint32_t lmask = axis_bits(g, op, l, LL_LANE, amask),
             wmask = axis_bits(g, op, l, LL_WARP, amask);
    for (int b = 0; b < 5; b++) {
        if (!(lmask >> b & 1)) continue;
        for (int o = 0; o < nout; o++) {
            Acc other = {gen_shfl_xor(g, acc[o].v, 1 << b),
                         acc[o].i ? gen_shfl_xor(g, acc[o].i, 1 << b) : NULL};
            acc[o] = combine(g, kind, dt, acc[o], other);
        }
    }
    if (wmask) across_warps(g, op, acc, nout, wmask, kind, dt);
    LLVMValueRef *out = gen_alloc_regs(g, nout);
    for (int o = 0; o < nout; o++) {
        out[o] = is_arg(kind) ? acc[o].i : acc[o].v;
        if (narrow) out[o] = LLVMBuildFPTrunc(g->B, out[o], gen_type(g, narrow), "");
    }
    gen_set(g, res, out, nout);
}
