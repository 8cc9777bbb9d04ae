/* llvm_reduce.c - reductions (sum, max, min, argmax, argmin) along one axis.
 *
 * 1. In each thread, combine the registers that differ only along the axis (elements a
 *    replicated layout holds twice count as the identity).
 * 2. Across the lanes that split the axis: butterfly shuffles (shfl.sync.bfly) over the
 *    lane-id bits of that dim, halving the distance each step; every lane ends with the
 *    warp's result. 64-bit values travel as two halves, 16-bit ones widened.
 * 3. Across the warps that split the axis: each warp writes its partial to shared memory
 *    at (output element, warp), the CTA synchronises, and every thread combines the
 *    partials of its output elements in warp order.
 * The result has the operand's layout sliced along the axis (a scalar for rank 1).
 * argmax/argmin carry (value, index) pairs; ties keep the smaller index. */
#include <math.h>

#include "gen_internal.h"

typedef struct Acc {
    LLVMValueRef v, i; /* value, index (argmax/argmin) */
} Acc;

static bool is_arg(int kind) { return kind == RED_ARGMAX || kind == RED_ARGMIN; }

static LLVMValueRef identity(Gen *g, int kind, int dt) {
    LLVMTypeRef ty = gen_type(g, dt);
    bool mx = kind == RED_MAX || kind == RED_ARGMAX;
    if (kind == RED_SUM) return LLVMConstNull(ty);
    if (dt_is_float(dt)) return LLVMConstReal(ty, mx ? -INFINITY : INFINITY);
    int bits = dt_bits(dt);
    if (dt == DT_I1) return LLVMConstInt(ty, mx ? 0 : 1, 0);
    if (dt_is_signed(dt)) return LLVMConstInt(ty, mx ? (1ull << (bits - 1)) : ~(1ull << (bits - 1)), 0);
    return mx ? LLVMConstNull(ty) : LLVMConstAllOnes(ty);
}

/* a better than b for max-like (gt) or min-like (lt); NaN never wins */
static LLVMValueRef better(Gen *g, bool mx, int dt, LLVMValueRef a, LLVMValueRef b) {
    if (dt_is_float(dt)) return LLVMBuildFCmp(g->B, mx ? LLVMRealOGT : LLVMRealOLT, a, b, "");
    LLVMIntPredicate p = dt_is_signed(dt) ? (mx ? LLVMIntSGT : LLVMIntSLT) : (mx ? LLVMIntUGT : LLVMIntULT);
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
            const char *n = dt == DT_FP64 ? (mx ? "llvm.maxnum.f64" : "llvm.minnum.f64") : dt == DT_FP32 ? (mx ? "llvm.maxnum.f32" : "llvm.minnum.f32")
                          : dt == DT_FP16 ? (mx ? "llvm.maxnum.f16" : "llvm.minnum.f16") : (mx ? "llvm.maxnum.bf16" : "llvm.minnum.bf16");
            r.v = gen_intrinsic(g, n, LLVMTypeOf(a.v), (LLVMValueRef[]){a.v, b.v}, 2);
        } else {
            r.v = LLVMBuildSelect(g->B, better(g, mx, dt, b.v, a.v), b.v, a.v, "");
        }
        return r;
    }
    /* b wins if strictly better, or equal with a smaller index, or a is NaN and b is not */
    LLVMValueRef wins = better(g, mx, dt, b.v, a.v);
    LLVMValueRef eq = fl ? LLVMBuildFCmp(g->B, LLVMRealOEQ, a.v, b.v, "") : LLVMBuildICmp(g->B, LLVMIntEQ, a.v, b.v, "");
    wins = LLVMBuildOr(g->B, wins, LLVMBuildAnd(g->B, eq, LLVMBuildICmp(g->B, LLVMIntSLT, b.i, a.i, ""), ""), "");
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

static LLVMValueRef shuffle(Gen *g, LLVMValueRef x, int mask) {
    LLVMTypeRef ty = LLVMTypeOf(x);
    unsigned bits = LLVMGetTypeKind(ty) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(ty)
                    : ty == g->f64 ? 64 : ty == g->f32 ? 32 : 16;
    LLVMTypeRef ity = LLVMIntTypeInContext(g->C, bits);
    LLVMValueRef i = LLVMGetTypeKind(ty) == LLVMIntegerTypeKind ? x : LLVMBuildBitCast(g->B, x, ity, "");
    LLVMValueRef r;
    if (bits == 64) {
        LLVMValueRef lo = LLVMBuildTrunc(g->B, i, g->i32, ""), hi = LLVMBuildTrunc(g->B, LLVMBuildLShr(g->B, i, gen_i64(g, 32), ""), g->i32, "");
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

static int log2i(int x) {
    int k = 0;
    while ((1 << k) < x) k++;
    return k;
}

void gen_reduce(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    int kind = (int)op->attr[0], axis = (int)op->attr[1];
    ValId x = op->operands[0], res = op->results[0];
    IrType t = ir_type(g->f, x);
    int dt = t.dt;
    uint32_t lid = g->f->vals[x].layout;
    LayoutDims ld;
    layout_dims(g->m, lid, t, &ld);
    const IrLayout *root = layout_root(g->m, lid);
    int ra = ld.root_dim[axis];
    LLVMValueRef *in = gen_vals(g, x, NULL);
    int narrow = (dt == DT_FP16 || dt == DT_BF16) && kind == RED_SUM ? dt : 0;
    if (narrow) { /* accumulate in fp32, as the interpreter does, and round once */
        LLVMValueRef *wide = gen_alloc_regs(g, ld.nregs);
        for (int r = 0; r < ld.nregs; r++) wide[r] = LLVMBuildFPExt(g->B, in[r], g->f32, "");
        in = wide;
        dt = DT_FP32;
    }
    int nout = ld.nregs / ld.n[axis];
    Acc *acc = arena_alloc(g->m->arena, sizeof(Acc) * (size_t)nout);
    int *first = arena_alloc(g->m->arena, sizeof(int) * (size_t)nout);
    /* 1. within the thread: output k gathers the registers with index 0 along the axis */
    int k = 0;
    for (int r = 0; r < ld.nregs; r++) {
        if ((r / ld.stride[axis]) % ld.n[axis]) continue;
        first[k] = r;
        Acc a = {identity(g, kind, dt), is_arg(kind) ? gen_i32(g, INT32_MAX) : NULL};
        for (int j = 0; j < ld.n[axis]; j++) {
            int rr = r + j * ld.stride[axis];
            ElemPos p;
            gen_elem_pos(g, x, rr, &p);
            Acc e = {in[rr], is_arg(kind) ? p.coord[axis] : NULL};
            if (p.valid) {
                e.v = LLVMBuildSelect(g->B, p.valid, e.v, identity(g, kind, dt), "");
                if (e.i) e.i = LLVMBuildSelect(g->B, p.valid, e.i, gen_i32(g, INT32_MAX), "");
            }
            a = j == 0 && !p.valid ? e : combine(g, kind, dt, a, e);
        }
        acc[k++] = a;
    }
    /* 2. across lanes */
    int lane_shift = 0, warp_shift = 0;
    for (int q = 0; q < root->rank && root->order[q] != ra; q++)
        lane_shift += log2i(root->tpw[root->order[q]]), warp_shift += log2i(root->wpc[root->order[q]]);
    for (int b = 0; b < log2i(root->tpw[ra]); b++)
        for (int o = 0; o < nout; o++) {
            Acc other = {shuffle(g, acc[o].v, 1 << (lane_shift + b)), acc[o].i ? shuffle(g, acc[o].i, 1 << (lane_shift + b)) : NULL};
            acc[o] = combine(g, kind, dt, acc[o], other);
        }
    /* 3. across warps, through shared memory */
    int wpc = root->wpc[ra];
    if (wpc > 1) {
        if (!op->smem_size) gen_error(g, op->loc, "internal error: reduction without shared memory");
        LLVMValueRef wc = LLVMBuildAnd(g->B, LLVMBuildLShr(g->B, g->warp, gen_i32(g, warp_shift), ""), gen_i32(g, wpc - 1), "");
        IrType rt = ir_type(g->f, res);
        int64_t out_numel = ty_numel(rt);
        int idx_off = op->smem_offset + (int)(out_numel * wpc * 8);
        LLVMValueRef *lin = arena_alloc(g->m->arena, sizeof(LLVMValueRef) * (size_t)nout);
        for (int o = 0; o < nout; o++) {
            LLVMValueRef oc[NR_MAX_RANK];
            ElemPos p;
            gen_elem_pos(g, x, first[o], &p);
            for (int d = 0, j = 0; d < t.rank; d++)
                if (d != axis) oc[j++] = p.coord[d];
            lin[o] = rt.rank ? gen_linear(g, oc, rt) : gen_i32(g, 0);
            LLVMValueRef slot = LLVMBuildAdd(g->B, LLVMBuildMul(g->B, lin[o], gen_i32(g, wpc), ""), wc, "");
            LLVMValueRef s = LLVMBuildStore(g->B, acc[o].v, gen_smem_ptr(g, op->smem_offset, slot, 8));
            LLVMSetAlignment(s, 8);
            if (acc[o].i) LLVMSetAlignment(LLVMBuildStore(g->B, acc[o].i, gen_smem_ptr(g, idx_off, slot, 8)), 8);
        }
        gen_barrier(g);
        LLVMTypeRef ty = gen_type(g, dt);
        for (int o = 0; o < nout; o++) {
            Acc a = {NULL, NULL};
            for (int w = 0; w < wpc; w++) {
                LLVMValueRef slot = LLVMBuildAdd(g->B, LLVMBuildMul(g->B, lin[o], gen_i32(g, wpc), ""), gen_i32(g, w), "");
                Acc e = {LLVMBuildLoad2(g->B, ty, gen_smem_ptr(g, op->smem_offset, slot, 8), ""), NULL};
                LLVMSetAlignment(e.v, 8);
                if (is_arg(kind)) {
                    e.i = LLVMBuildLoad2(g->B, g->i32, gen_smem_ptr(g, idx_off, slot, 8), "");
                    LLVMSetAlignment(e.i, 8);
                }
                a = w == 0 ? e : combine(g, kind, dt, a, e);
            }
            acc[o] = a;
        }
    }
    LLVMValueRef *out = gen_alloc_regs(g, nout);
    for (int o = 0; o < nout; o++) {
        out[o] = is_arg(kind) ? acc[o].i : acc[o].v;
        if (narrow) out[o] = LLVMBuildFPTrunc(g->B, out[o], gen_type(g, narrow), "");
    }
    gen_set(g, res, out, nout);
}
