/* batched_dot.c - a batched dot (operands of rank 3 and up: the leading dims are batches,
 * ir_ops.def) into one 2-D dot per batch, for the GPU back end, whose layouts and dot
 * lowerings are 2-D. The interpreter runs batched dots as they are.
 *
 * requires:  a verified function.
 * maintains: verification; the program's meaning under ir_ops.def (batch i of the result
 *            is dot(a[i], b[i], acc[i]) with the op's precision).
 * breaks:    nothing; it adds reductions and selects that later passes lay out like any.
 *
 * The operands are reshaped to [nb, M, K], [nb, K, N], [nb, M, N] (nb the product of the
 * batch dims; row-major, so batch i is rows i of the reshape). Batch i of x is taken as
 * the sum over the batch axis of select(batch == i, x, 0) on x bitcast to the integer of
 * its width, so that the slice is x's bits exactly (NaNs, -0.0 and fp8 bytes included:
 * an integer sum of one value and zeros). An accumulator that is a constant becomes the
 * constant at [M, N]. The nb results are put back with selects along the batch axis, and
 * the whole reshaped to the dot's result type. nb selects of [nb, ...] blocks: meant for
 * the few batches a program holds (Triton's tests use 1 to 8). */
#include "passes.h"
#include "rewrite.h"

#include <stdlib.h>

typedef struct Split {
    IrFunc *f;
    OpVec *out;
    Loc loc;
} Split;

static ValId emit(Split *S, int code, const ValId *opnds, uint32_t n, IrType ty) {
    return opvec_emit(S->out, S->f, code, S->loc, opnds, n, ty);
}

static ValId emit1(Split *S, int code, ValId x, IrType ty, int64_t a0, int64_t a1) {
    ValId r = emit(S, code, x ? &x : NULL, x ? 1 : 0, ty);
    IrOp *op = ir_op(S->f, ir_def(S->f, r));
    op->attr[0] = a0, op->attr[1] = a1;
    return r;
}

static ValId const_int(Split *S, IrType ty, int64_t v) { return emit1(S, OP_CONST, 0, ty, v, 0); }

static IrType shape3(int dt, int32_t a, int32_t b, int32_t c) {
    int32_t s[3] = {a, b, c};
    return ty_block(ty_scalar(dt), 3, s);
}

/* i1 [nb, X, Y]: the batch index equals i */
static ValId batch_is(Split *S, int32_t nb, int32_t x, int32_t y, int i) {
    int32_t n = nb;
    ValId idx = emit1(S, OP_ARANGE, 0, ty_block(ty_scalar(DT_I32), 1, &n), 0, nb);
    int32_t s2[2] = {nb, 1};
    idx = emit1(S, OP_EXPAND_DIMS, idx, ty_block(ty_scalar(DT_I32), 2, s2), 1, 0);
    idx = emit1(S, OP_EXPAND_DIMS, idx, shape3(DT_I32, nb, 1, 1), 2, 0);
    idx = emit(S, OP_BROADCAST, &idx, 1, shape3(DT_I32, nb, x, y));
    ValId c = const_int(S, shape3(DT_I32, nb, x, y), i);
    ValId r = emit(S, OP_CMP, (ValId[]){idx, c}, 2, shape3(DT_I1, nb, x, y));
    ir_op(S->f, ir_def(S->f, r))->attr[0] = CMP_PRED_EQ;
    return r;
}

/* x [nb, X, Y] (any dtype) -> x[i] [X, Y], bit for bit */
static ValId slice(Split *S, ValId x3, int i) {
    IrType t = ir_type(S->f, x3);
    int32_t nb = t.shape[0], X = t.shape[1], Y = t.shape[2];
    int32_t s2[2] = {X, Y};
    IrType out = ty_block(ty_elem(t), 2, s2);
    if (nb == 1) return emit(S, OP_RESHAPE, &x3, 1, out);
    int b = dt_bits(t.dt), it = b == 8 ? DT_I8 : b == 16 ? DT_I16 : b == 64 ? DT_I64 : DT_I32;
    ValId bits = t.dt == it ? x3 : emit(S, OP_BITCAST, &x3, 1, shape3(it, nb, X, Y));
    ValId zero = const_int(S, shape3(it, nb, X, Y), 0);
    ValId sel = emit(S, OP_SELECT, (ValId[]){batch_is(S, nb, X, Y, i), bits, zero}, 3,
                     shape3(it, nb, X, Y));
    ValId r = emit1(S, OP_REDUCE, sel, ty_block(ty_scalar(it), 2, s2), RED_SUM, 0);
    return t.dt == it ? r : emit(S, OP_BITCAST, &r, 1, out);
}

static ValId reshape3(Split *S, ValId x, int32_t nb) {
    IrType t = ir_type(S->f, x);
    IrType r = shape3(t.dt, nb, t.shape[t.rank - 2], t.shape[t.rank - 1]);
    return ty_equal(t, r) ? x : emit(S, OP_RESHAPE, &x, 1, r);
}

/* The dot `id` (rank > 2) split; returns its replacement. */
static ValId split_dot(Split *S, OpId id) {
    IrFunc *f = S->f;
    IrOp *op = ir_op(f, id);
    IrType rt = ir_type(f, op->results[0]);
    int32_t nb = 1;
    for (int d = 0; d < rt.rank - 2; d++) nb *= rt.shape[d];
    int32_t M = rt.shape[rt.rank - 2], N = rt.shape[rt.rank - 1];
    int prec = (int)op->attr[0];
    int64_t imprecise = op->attr[1];
    ValId a = op->operands[0], b = op->operands[1], acc = op->operands[2];
    ValId use = op->nopnds == 4 ? op->operands[3] : 0; /* use_acc, kept on each batch's dot */
    const IrOp *cacc = ir_const_def(f, acc);
    int64_t cint = cacc ? cacc->attr[0] : 0;
    double cfl = cacc ? cacc->fattr : 0;
    ValId a3 = reshape3(S, a, nb), b3 = reshape3(S, b, nb);
    ValId acc3 = cacc ? 0 : reshape3(S, acc, nb);
    int32_t s2[2] = {M, N};
    IrType t2 = ty_block(ty_elem(rt), 2, s2), t3 = shape3(rt.dt, nb, M, N);
    ValId res = 0;
    for (int i = 0; i < nb; i++) {
        ValId ai = slice(S, a3, i), bi = slice(S, b3, i), ci;
        if (cacc) {
            ci = emit(S, OP_CONST, NULL, 0, t2);
            IrOp *c = ir_op(f, ir_def(f, ci));
            c->attr[0] = cint, c->fattr = cfl;
        } else {
            ci = slice(S, acc3, i);
        }
        ValId di = emit(S, OP_DOT, (ValId[]){ai, bi, ci, use}, use ? 4 : 3, t2);
        ir_op(f, ir_def(f, di))->attr[0] = prec;
        ir_op(f, ir_def(f, di))->attr[1] = imprecise;
        int32_t s3[3] = {1, M, N};
        ValId wide = emit1(S, OP_EXPAND_DIMS, di, ty_block(ty_elem(rt), 3, s3), 0, 0);
        if (nb > 1) wide = emit(S, OP_BROADCAST, &wide, 1, t3);
        res = i == 0 ? wide
                     : emit(S, OP_SELECT, (ValId[]){batch_is(S, nb, M, N, i), wide, res}, 3, t3);
    }
    return ty_equal(ir_type(f, res), rt) ? res : emit(S, OP_RESHAPE, &res, 1, rt);
}

static void split_region(IrFunc *f, RegionId rg, OpVec *pairs) {
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, rg, &n);
    OpVec out = {0};
    Split S = {f, &out, {0}};
    for (uint32_t i = 0; i < n; i++) {
        IrOp *op = ir_op(f, ops[i]);
        for (uint32_t k = 0; k < op->nregions; k++) split_region(f, op->region[k], pairs);
        op = ir_op(f, ops[i]);
        if (op->code != OP_DOT || ir_type(f, op->results[0]).rank <= 2) {
            opvec_push(&out, ops[i]);
            continue;
        }
        S.loc = op->loc;
        ValId old = op->results[0];
        ValId r = split_dot(&S, ops[i]);
        opvec_push(pairs, old);
        opvec_push(pairs, r);
    }
    ir_region_set_ops(f, rg, out.v, out.n);
    opvec_free(&out);
    free(ops);
}

void ir_split_batched_dots(IrFunc *f) {
    OpVec pairs = {0};
    split_region(f, f->body, &pairs);
    ir_replace_pairs(f, &pairs);
}

void pass_split_batched_dots(IrModule *m) {
    for (uint32_t i = 0; i < m->nfuncs; i++) ir_split_batched_dots(m->funcs[i]);
}
