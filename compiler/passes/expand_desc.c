/* expand_desc.c - tensor descriptors into the pointer blocks and masks they stand for:
 * desc_load(d, o) and desc_store(d, o, x) become the load and store a kernel would write by
 * hand, reading the descriptor's base, sizes, strides and padding with desc_part. The CPU
 * interpreter runs kernels after it; the GPU back end runs it for the descriptors that do
 * not go through TMA (driver/gpu_compile.c, compiler/target/tma.h).
 *
 * requires:  a verified module.
 * maintains: verification; the program's meaning under ir_ops.def (desc_load's element
 *            [i] is the load of base + sum_k (o_k + i_k) * stride_k, masked by
 *            0 <= o_k + i_k < size_k on every dim, with the padding as `other`).
 * breaks:    nothing; the desc_part ops it adds repeat per access (CSE merges them).

 *
 * The index along dim k is arange(0, s_k) + o_k in i32 (as the front end's block pointers
 * compute it), widened to i64 before it meets the size and the stride; each dim's term
 * is made at its own shape (1 elsewhere) and broadcast to the tile. */
#include "passes.h"
#include "rewrite.h"

#include <math.h>
#include <stdlib.h>

typedef struct Expand {
    IrFunc *f;
    OpVec *out;   /* the region's new op list */
    OpVec *pairs; /* (old load result, its replacement) pairs, as ValIds */
    Loc loc;
} Expand;

static ValId emit(Expand *E, int code, const ValId *opnds, uint32_t n, IrType ty) {
    return opvec_emit(E->out, E->f, code, E->loc, opnds, n, ty);
}

static ValId emit_attr(Expand *E, int code, ValId x, IrType ty, int64_t a0, int64_t a1) {
    ValId r = emit(E, code, x ? &x : NULL, x ? 1 : 0, ty);
    IrOp *op = ir_op(E->f, ir_def(E->f, r));
    op->attr[0] = a0, op->attr[1] = a1;
    return r;
}

static ValId constant(Expand *E, IrType ty, int64_t i, double x) {
    ValId r = emit(E, OP_CONST, NULL, 0, ty);
    IrOp *op = ir_op(E->f, ir_def(E->f, r));
    if (dt_is_float(ty.dt)) op->fattr = x;
    else op->attr[0] = i;
    return r;
}

static ValId binary(Expand *E, int code, ValId a, ValId b) {
    return emit(E, code, (ValId[]){a, b}, 2, ir_type(E->f, a));
}

static ValId compare(Expand *E, CmpPred pred, ValId a, ValId b) {
    ValId r = emit(E, OP_CMP, (ValId[]){a, b}, 2, ty_with_elem(ir_type(E->f, a), ty_scalar(DT_I1)));
    ir_op(E->f, ir_def(E->f, r))->attr[0] = pred;
    return r;
}

/* x (a scalar or a block with dims of 1) at shape `to`. */
static ValId widen(Expand *E, ValId x, IrType to) {
    IrType t = ir_type(E->f, x);
    IrType want = ty_with_elem(to, ty_elem(t));
    if (ty_equal(t, want)) return x;
    return emit(E, t.rank ? OP_BROADCAST : OP_SPLAT, &x, 1, want);
}

/* arange(0, n) + o (i32) at dim k of a rank-r shape, 1 along the other dims. */
static ValId index_along(Expand *E, ValId o, int32_t n, int rank, int k) {
    int32_t len = n;
    IrType t = ty_block(ty_scalar(DT_I32), 1, &len);
    ValId v = emit_attr(E, OP_ARANGE, 0, t, 0, n);
    v = binary(E, OP_ADD, v, widen(E, o, t));
    for (int d = 0; d < rank; d++) {
        if (d == k) continue;
        IrType r = ir_type(E->f, v);
        int axis = d < k ? d : r.rank;
        for (int j = r.rank; j > axis; j--) r.shape[j] = r.shape[j - 1];
        r.shape[axis] = 1;
        r.rank++;
        v = emit_attr(E, OP_EXPAND_DIMS, v, r, axis, 0);
    }
    return v;
}

/* The pointers and mask of a desc_load's or desc_store's tile. */
static void address(Expand *E, ValId d, const ValId *off, ValId *ptrs, ValId *mask) {
    IrType dt = ir_type(E->f, d);
    int r = dt.rank;
    IrType tile = ty_block(ty_scalar(dt.pointee), r, dt.shape);
    IrType i64 = ty_scalar(DT_I64), full64 = ty_with_elem(tile, i64),
           full1 = ty_with_elem(tile, ty_scalar(DT_I1));
    ValId sum = 0, m = 0;
    for (int k = 0; k < r; k++) {
        ValId size = emit_attr(E, OP_DESC_PART, d, i64, 1 + k, 0);
        /* the last stride is 1 (the launch checks it): a constant, so the tile's rows
         * are seen to be contiguous */
        ValId stride =
            k == r - 1 ? constant(E, i64, 1, 0) : emit_attr(E, OP_DESC_PART, d, i64, 1 + r + k, 0);
        ValId idx = index_along(E, off[k], dt.shape[k], r, k);
        IrType at = ir_type(E->f, idx);
        ValId wide = emit(E, OP_CVT, &idx, 1, ty_with_elem(at, i64));
        ValId term =
            widen(E, binary(E, OP_MUL, wide, widen(E, stride, ty_with_elem(at, i64))), full64);
        sum = sum ? binary(E, OP_ADD, sum, term) : term;
        ValId lo = compare(E, CMP_PRED_GE, idx, widen(E, constant(E, ty_scalar(DT_I32), 0, 0), at));
        ValId hi = compare(E, CMP_PRED_LT, wide, widen(E, size, ty_with_elem(at, i64)));
        ValId in = widen(E, binary(E, OP_AND, lo, hi), full1);
        m = m ? binary(E, OP_AND, m, in) : in;
    }
    ValId base = emit_attr(E, OP_DESC_PART, d, ty_ptr(dt.pointee), 0, 0);
    *ptrs =
        emit(E, OP_ADDPTR, (ValId[]){widen(E, base, ty_with_elem(tile, ty_ptr(dt.pointee))), sum},
             2, ty_with_elem(tile, ty_ptr(dt.pointee)));
    *mask = m;
}

/* The padding as the tile's `other`: 0, or NaN where the descriptor's padding part is 1
 * (float tiles only; an integer tile's padding is always 0). */
static ValId padding(Expand *E, ValId d) {
    IrType dt = ir_type(E->f, d);
    IrType tile = ty_block(ty_scalar(dt.pointee), dt.rank, dt.shape), elem = ty_scalar(dt.pointee);
    ValId zero = constant(E, elem, 0, 0.0);
    if (!dt_is_float(dt.pointee)) return widen(E, zero, tile);
    ValId flag = emit_attr(E, OP_DESC_PART, d, ty_scalar(DT_I64), 2 * dt.rank + 1, 0);
    ValId nan = compare(E, CMP_PRED_NE, flag, constant(E, ty_scalar(DT_I64), 0, 0));
    ValId v = emit(E, OP_SELECT, (ValId[]){nan, constant(E, elem, 0, NAN), zero}, 3, elem);
    return widen(E, v, tile);
}

/* The descriptor a desc op reads is parameter `index` of f (or of a helper, then keep is
 * NULL): keep[index] leaves it for the caller. */
static bool kept(const IrFunc *f, ValId d, const bool *keep) {
    return keep && f->vals[d].is_arg && f->vals[d].def == f->body && keep[f->vals[d].index];
}

static void expand_region(IrFunc *f, RegionId rg, const bool *keep, OpVec *pairs) {
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, rg, &n);
    OpVec out = {0};
    Expand E = {f, &out, pairs, {0}};
    for (uint32_t i = 0; i < n; i++) {
        IrOp *op = ir_op(f, ops[i]);
        for (uint32_t k = 0; k < op->nregions; k++) expand_region(f, op->region[k], keep, pairs);
        op = ir_op(f, ops[i]);
        bool desc = op->code == OP_DESC_LOAD || op->code == OP_DESC_STORE;
        if (!desc || kept(f, op->operands[0], keep)) {
            opvec_push(&out, ops[i]);
            continue;
        }
        E.loc = op->loc;
        ValId d = op->operands[0], off[NR_MAX_DESC_RANK], ptrs, mask;
        int r = ir_type(f, d).rank;
        for (int k = 0; k < r; k++) off[k] = op->operands[1 + k];
        ValId x = op->code == OP_DESC_STORE ? op->operands[1 + r] : 0;
        ValId res = op->code == OP_DESC_LOAD ? op->results[0] : 0;
        address(&E, d, off, &ptrs, &mask);
        if (res) {
            ValId other = padding(&E, d);
            opvec_push(pairs, res);
            opvec_push(pairs, emit(&E, OP_LOAD, (ValId[]){ptrs, mask, other}, 3, ir_type(f, res)));
        } else {
            opvec_push(&out, ir_op_new(f, OP_STORE, E.loc, (ValId[]){ptrs, x, mask}, 3, NULL, 0));
        }
    }
    ir_region_set_ops(f, rg, out.v, out.n);
    opvec_free(&out);
    free(ops);
}

void ir_expand_descriptors(IrFunc *f, const bool *keep) {
    OpVec pairs = {0};
    expand_region(f, f->body, keep, &pairs);
    ir_replace_pairs(f, &pairs);
}

void pass_expand_descriptors(IrModule *m) {
    for (uint32_t i = 0; i < m->nfuncs; i++) ir_expand_descriptors(m->funcs[i], NULL);
}
