/* canonicalize.c - constant folding and local simplification, to a fixed point.
 *
 * requires:  a verified module (calls may remain).
 * maintains: verification; value ids (a folded op becomes a const in place, keeping its
 *            result); every fold is exact under the semantics of ir_ops.def (fold.c).
 * breaks:    nothing; removed ops' entries stay in the tables, unreachable.
 *
 * What it does:
 * - folds pure elementwise ops, cmp, cvt, bitcast, select, splat, broadcast,
 *   expand_dims, reshape, trans and (integer or max/min/arg) reduce of constants into a
 *   constant (block constants are uniform, so shapes only change the result type);
 * - a sum along an axis of select(one-hot mask along it, constant, the sum's identity):
 *   tl.split of a constant, which flatten-loops leaves in a tile without K iterations;
 * - identities: x+0, x-0, x*1, x*0 (ints), x/1, x|0, x|-1, x&-1, x&0, x^0, x^x, x-x,
 *   x&x, x|x, min/max(x,x), shl/shr by 0, select(c,x,x) and select on a constant,
 *   cvt/bitcast/broadcast/reshape/trans to the same type; float identities only where
 *   exact (x + -0.0, x - +0.0, x * 1.0, x / 1.0);
 * - constants move to the right of commutative ops (and of cmp, flipping it);
 * - an if on a constant is replaced by the taken region's ops, its results by the
 *   yield's values; a for with a constant trip count of 0 by its inits;
 * - a for's loop-carried value that every iteration yields unchanged (its region
 *   argument, or its init) is its init everywhere: the argument's and the result's uses
 *   take the init, so the body sees a loop-invariant value (a block pointer's base,
 *   shape and strides; DCE then drops the carried slot); an if's result that both
 *   branches yield as the same value is that value. */
#include "fold.h"
#include "passes.h"
#include "rewrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Canon {
    IrFunc *f;
    ValId *repl; /* results replaced by other values (no values are created here) */
    bool changed;
} Canon;

/* ---- constants ---- */

/* v's value if a const defines it, normalised to its dtype. */
static bool const_of(const IrFunc *f, ValId v, Num *out) {
    const IrOp *c = ir_const_def(f, v);
    int dt = ir_type(f, v).dt;
    if (!c || dt == DT_PTR) return false;
    if (dt_is_float(dt)) out->f = fold_round(dt, c->fattr);
    else out->i = fold_wrap(dt, (uint64_t)c->attr[0]);
    return true;
}

static bool is_const(const IrFunc *f, ValId v) {
    Num n;
    return const_of(f, v, &n);
}

static bool const_int_is(const IrFunc *f, ValId v, int64_t want) {
    Num n;
    return dt_is_int(ir_type(f, v).dt) && const_of(f, v, &n) && n.i == want;
}

/* Exactly +0.0 / -0.0 / 1.0 (the sign of zero matters for float identities). */
static bool const_float_is(const IrFunc *f, ValId v, double want) {
    Num n;
    return dt_is_float(ir_type(f, v).dt) && const_of(f, v, &n) && n.f == want &&
           signbit(n.f) == signbit(want);
}

/* Turns op into a const of its result type, in place: its result keeps its id. */
static void make_const(Canon *C, OpId id, Num v) {
    IrOp *op = ir_op(C->f, id);
    int dt = ir_type(C->f, op->results[0]).dt;
    op->code = OP_CONST;
    op->nopnds = 0;
    op->nregions = 0;
    memset(op->attr, 0, sizeof op->attr);
    op->fattr = 0;
    op->sattr = NULL;
    if (dt_is_float(dt)) op->fattr = fold_round(dt, v.f);
    else op->attr[0] = fold_wrap(dt, (uint64_t)v.i);
    C->changed = true;
}

/* ---- folding ---- */

static bool fold_reduce(const IrFunc *f, const IrOp *op, Num a, Num *out) {
    IrType t = ir_type(f, op->operands[0]);
    int64_t kind = op->attr[0], n = t.shape[op->attr[1]];
    bool fl = dt_is_float(t.dt);
    if (fl && isnan(a.f)) return false;
    switch (kind) {
    case RED_MAX:
    case RED_MIN: *out = a; return true;
    case RED_ARGMAX:
    case RED_ARGMIN: out->i = 0; return true; /* the first of equal values */
    case RED_SUM:
        if (fl) return false; /* a float sum's rounding depends on the summation order */
        out->i = fold_wrap(t.dt, (uint64_t)a.i * (uint64_t)n);
        return true;
    default: return false;
    }
}

/* The axis along which v counts start, start + 1, ... across its whole extent (an arange
 * carried there by expand_dims and broadcasts of its other dims), or -1. */
static int iota_axis(const IrFunc *f, ValId v, int64_t *start) {
    OpId d = ir_def(f, v);
    if (!d) return -1;
    const IrOp *op = &f->ops[d];
    switch (op->code) {
    case OP_ARANGE: *start = op->attr[0]; return 0;
    case OP_EXPAND_DIMS: {
        int a = iota_axis(f, op->operands[0], start);
        return a < 0 ? -1 : a >= op->attr[0] ? a + 1 : a;
    }
    case OP_BROADCAST:
    case OP_CONVERT_LAYOUT: {
        int a = iota_axis(f, op->operands[0], start);
        IrType in = ir_type(f, op->operands[0]), out = ir_type(f, v);
        return a >= 0 && in.rank == out.rank && in.shape[a] == out.shape[a] ? a : -1;
    }
    default: return -1;
    }
}

/* Is m true at exactly one index along axis in every row: `iota == h` with the constant h
 * among the iota's values? */
static bool one_hot_along(const IrFunc *f, ValId m, int axis) {
    OpId d = ir_def(f, m);
    if (!d || f->ops[d].code != OP_CMP || f->ops[d].attr[0] != CMP_PRED_EQ) return false;
    int64_t start;
    Num h;
    ValId i = f->ops[d].operands[0];
    if (iota_axis(f, i, &start) != axis || !const_of(f, f->ops[d].operands[1], &h)) return false;
    int dt = ir_type(f, i).dt;
    if (!dt_is_int(dt)) return false;
    int64_t hv = dt_is_signed(dt) ? (int64_t)h.i : (int64_t)(uint64_t)h.i;
    return hv >= start && hv - start < ir_type(f, i).shape[axis];
}

/* sum(select(m, c, e), axis) with m one-hot along axis, c a constant and e the identity
 * of the sum (-0.0, or integer 0): c + e + ... + e is c exactly in any order (tl.split's
 * lowering, lang/sema_builtins.c, once its operand is a constant: the zero accumulator of
 * a persistent matmul's tile without K iterations, after flatten-loops). */
static bool fold_one_hot_sum(const IrFunc *f, const IrOp *op, Num *out) {
    if (op->code != OP_REDUCE || op->attr[0] != RED_SUM) return false;
    OpId d = ir_def(f, op->operands[0]);
    if (!d || f->ops[d].code != OP_SELECT) return false;
    const IrOp *s = &f->ops[d];
    int dt = ir_type(f, s->results[0]).dt;
    Num e;
    if (!const_of(f, s->operands[1], out) || !const_of(f, s->operands[2], &e)) return false;
    bool ident = dt_is_float(dt) ? e.f == 0.0 && signbit(e.f) : dt_is_int(dt) && e.i == 0;
    return ident && one_hot_along(f, s->operands[0], (int)op->attr[1]);
}

/* Ops that only reshape a uniform constant keep its value. */
static bool is_shape_op(int code) {
    return code == OP_SPLAT || code == OP_BROADCAST || code == OP_EXPAND_DIMS ||
           code == OP_RESHAPE || code == OP_TRANS;
}

static bool try_fold(Canon *C, OpId id) {
    IrFunc *f = C->f;
    IrOp *op = ir_op(f, id);
    Num a[3], r;
    if (op->code == OP_CONST || op->nopnds == 0 || op->nopnds > 3 || op->nres != 1) return false;
    if (fold_one_hot_sum(f, op, &r)) {
        make_const(C, id, r);
        return true;
    }
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (!const_of(f, op->operands[i], &a[i])) return false;
    int od = ir_type(f, op->operands[0]).dt, rd = ir_type(f, op->results[0]).dt;
    bool ok;
    if (is_shape_op(op->code)) r = a[0], ok = true;
    else if (op->code == OP_CMP) ok = fold_cmp((int)op->attr[0], od, a[0], a[1], &r);
    else if (op->code == OP_CVT) ok = !op->attr[0] && fold_cvt(od, rd, a[0], &r); /* not rtz */
    else if (op->code == OP_BITCAST) ok = fold_bitcast(od, rd, a[0], &r);
    else if (op->code == OP_REDUCE) ok = fold_reduce(f, op, a[0], &r);
    else if (op->code == OP_SELECT) r = a[0].i ? a[1] : a[2], ok = true;
    else ok = (ir_op_info[op->code].flags & F_ELEM) && fold_arith(op->code, rd, a, &r);
    if (ok) make_const(C, id, r);
    return ok;
}

/* ---- identities ---- */

/* The value op's result equals, or 0. May instead turn op into a const (x*0). */
static ValId int_identity(Canon *C, OpId id, ValId x, ValId y) {
    IrFunc *f = C->f;
    int dt = ir_type(f, x).dt, code = ir_op(f, id)->code;
    Num zero = {0}, ones = {fold_all_ones(dt)};
    bool y0 = const_int_is(f, y, 0), y1 = const_int_is(f, y, 1), yall = const_int_is(f, y, ones.i);
    switch (code) {
    case OP_ADD:
    case OP_OR:
    case OP_XOR:
    case OP_SHL:
    case OP_SHR:
        if (y0) return x;
        break;
    case OP_SUB:
        if (y0) return x;
        break;
    case OP_MUL:
        if (y1) return x;
        break;
    case OP_IDIV:
        if (y1) return x;
        break;
    case OP_AND:
        if (yall) return x;
        break;
    default: break;
    }
    if ((code == OP_MUL || code == OP_AND) && y0) make_const(C, id, zero);
    else if (code == OP_OR && yall) make_const(C, id, ones);
    else if ((code == OP_SUB || code == OP_XOR) && x == y) make_const(C, id, zero);
    return 0;
}

static ValId float_identity(const IrFunc *f, int code, ValId x, ValId y) {
    if (code == OP_ADD && const_float_is(f, y, -0.0)) return x;
    if (code == OP_SUB && const_float_is(f, y, 0.0)) return x;
    if ((code == OP_MUL || code == OP_DIV || code == OP_DIV_RN) && const_float_is(f, y, 1.0))
        return x;
    return 0;
}

static bool is_identity_perm(const IrOp *op, int rank) {
    for (int i = 0; i < rank; i++)
        if (op->attr[i] != i) return false;
    return true;
}

/* One-operand ops that are the identity when the type does not change. */
static ValId same_type_identity(const IrFunc *f, const IrOp *op) {
    ValId x = op->operands[0];
    IrType t = ir_type(f, x);
    if (!ty_equal(t, ir_type(f, op->results[0]))) return 0;
    switch (op->code) {
    case OP_CVT:
    case OP_BITCAST:
    case OP_BROADCAST:
    case OP_RESHAPE: return x;
    case OP_TRANS: return is_identity_perm(op, t.rank) ? x : 0;
    default: return 0;
    }
}

static ValId identity(Canon *C, OpId id) {
    IrFunc *f = C->f;
    IrOp *op = ir_op(f, id);
    if (op->code == OP_SELECT) {
        Num c;
        if (const_of(f, op->operands[0], &c)) return op->operands[c.i ? 1 : 2];
        return op->operands[1] == op->operands[2] ? op->operands[1] : 0;
    }
    if (op->nopnds == 1) return same_type_identity(f, op);
    if (op->nopnds != 2 || !(ir_op_info[op->code].flags & F_ELEM) || op->code == OP_CMP) return 0;
    ValId x = op->operands[0], y = op->operands[1];
    if (x == y &&
        (op->code == OP_AND || op->code == OP_OR || op->code == OP_MIN || op->code == OP_MAX))
        return x;
    if (dt_is_float(ir_type(f, x).dt)) return float_identity(f, op->code, x, y);
    return dt_is_int(ir_type(f, x).dt) ? int_identity(C, id, x, y) : 0;
}

/* Constants go right: commutative ops swap, cmp swaps and mirrors its predicate. */
static void constants_right(Canon *C, OpId id) {
    IrOp *op = ir_op(C->f, id);
    bool comm = ir_op_info[op->code].flags & F_COMM;
    if ((!comm && op->code != OP_CMP) || op->nopnds != 2) return;
    if (!is_const(C->f, op->operands[0]) || is_const(C->f, op->operands[1])) return;
    ValId t = op->operands[0];
    op->operands[0] = op->operands[1];
    op->operands[1] = t;
    static const int64_t mirror[] = {CMP_PRED_EQ, CMP_PRED_NE, CMP_PRED_GT,
                                     CMP_PRED_GE, CMP_PRED_LT, CMP_PRED_LE};
    if (op->code == OP_CMP) op->attr[0] = mirror[op->attr[0]];
    C->changed = true;
}

/* Simplifies a pure op; true if it is gone (its result now maps to another value). */
static bool simplify(Canon *C, OpId id) {
    IrOp *op = ir_op(C->f, id);
    if (!(ir_op_info[op->code].flags & F_PURE) || op->nres != 1 || op->code == OP_CONST)
        return false;
    if (op->code == OP_MULTIPLE_OF || op->code == OP_MAX_CONTIGUOUS || op->code == OP_MAX_CONSTANCY)
        return false; /* hints stay */
    constants_right(C, id);
    if (try_fold(C, id)) return false;
    ValId x = identity(C, id);
    if (!x) return false;
    C->repl[ir_op(C->f, id)->results[0]] = x;
    C->changed = true;
    return true;
}

/* ---- control flow ---- */

static void canon_region(Canon *C, RegionId r);
static void canon_list(Canon *C, OpVec *out, const OpId *ops, uint32_t n);

/* if on a constant: the taken region's ops join the enclosing list; the if's results
 * become the values its yield gives. */
static bool fold_if(Canon *C, OpVec *out, OpId id) {
    IrFunc *f = C->f;
    Num c;
    if (!const_of(f, ir_op(f, id)->operands[0], &c)) return false;
    RegionId r = ir_op(f, id)->region[c.i ? 0 : 1];
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    canon_list(C, out, ops, n - 1); /* the last op is the yield */
    OpId yield = ops[n - 1];
    ir_op_remap(f, yield, C->repl);
    for (uint32_t i = 0; i < ir_op(f, id)->nres; i++)
        C->repl[ir_op(f, id)->results[i]] = ir_op(f, yield)->operands[i];
    free(ops);
    C->changed = true;
    return true;
}

/* for whose constant bounds give no iteration: its results are its inits. */
static bool fold_for(Canon *C, OpId id) {
    IrFunc *f = C->f;
    IrOp *op = ir_op(f, id);
    Num lb, ub, st;
    if (!const_of(f, op->operands[0], &lb) || !const_of(f, op->operands[1], &ub) ||
        !const_of(f, op->operands[2], &st))
        return false;
    bool sg = dt_is_signed(ir_type(f, op->operands[0]).dt);
    bool none = st.i == 0 ||
                (sg ? (st.i > 0 ? lb.i >= ub.i : lb.i <= ub.i) : (uint64_t)lb.i >= (uint64_t)ub.i);
    if (!none) return false;
    for (uint32_t i = 0; i < op->nres; i++) C->repl[op->results[i]] = op->operands[3 + i];
    C->changed = true;
    return true;
}

/* An if's result that both branches yield as the same value (one defined before the if)
 * is that value. */
static void forward_same_yield(Canon *C, OpId id) {
    IrFunc *f = C->f;
    IrOp *op = ir_op(f, id);
    if (op->nregions < 2) return;
    IrRegion *t = ir_region(f, op->region[0]), *e = ir_region(f, op->region[1]);
    if (!t->nops || !e->nops) return;
    IrOp *yt = ir_op(f, t->ops[t->nops - 1]), *ye = ir_op(f, e->ops[e->nops - 1]);
    for (uint32_t i = 0; i < op->nres && i < yt->nopnds && i < ye->nopnds; i++) {
        ValId a = ir_repl_resolve(f, C->repl, yt->operands[i]),
              b = ir_repl_resolve(f, C->repl, ye->operands[i]);
        if (a != b || C->repl[op->results[i]]) continue;
        C->repl[op->results[i]] = a;
        C->changed = true;
    }
}

static void forward_invariant(Canon *C, OpId id) {
    IrFunc *f = C->f;
    IrOp *op = ir_op(f, id);
    IrRegion *body = ir_region(f, op->region[0]);
    if (!body->nops) return;
    IrOp *y = ir_op(f, body->ops[body->nops - 1]);
    for (uint32_t i = 0; i < op->nres && i < y->nopnds && i + 1 < body->nargs; i++) {
        ValId arg = body->args[i + 1], init = ir_repl_resolve(f, C->repl, op->operands[3 + i]);
        if (C->repl[arg]) continue;
        ValId yv = ir_repl_resolve(f, C->repl, y->operands[i]);
        if (yv != arg && yv != init) continue;
        C->repl[arg] = init;
        C->repl[op->results[i]] = init;
        C->changed = true;
    }
}

static void canon_list(Canon *C, OpVec *out, const OpId *ops, uint32_t n) {
    IrFunc *f = C->f;
    for (uint32_t i = 0; i < n; i++) {
        OpId id = ops[i];
        ir_op_remap(f, id, C->repl);
        int code = ir_op(f, id)->code;
        if (code == OP_IF && fold_if(C, out, id)) continue;
        if (code == OP_FOR && fold_for(C, id)) continue;
        if (code == OP_FOR) forward_invariant(C, id);
        if (code == OP_IF) forward_same_yield(C, id);
        if (simplify(C, id)) continue;
        opvec_push(out, id);
        for (uint32_t j = 0; j < ir_op(f, id)->nregions; j++)
            canon_region(C, ir_op(f, id)->region[j]);
    }
}

static void canon_region(Canon *C, RegionId r) {
    uint32_t n;
    OpId *ops = ir_region_copy_ops(C->f, r, &n);
    OpVec out = {0};
    canon_list(C, &out, ops, n);
    ir_region_set_ops(C->f, r, out.v, out.n);
    opvec_free(&out);
    free(ops);
}

static void canon_func(IrFunc *f) {
    Canon C = {f, ir_repl_new(f), true};
    while (C.changed) {
        C.changed = false;
        canon_region(&C, f->body);
    }
    ir_replace_all_uses(f, C.repl);
    free(C.repl);
}

void pass_canonicalize(IrModule *m) {
    for (uint32_t i = 0; i < m->nfuncs; i++) canon_func(m->funcs[i]);
}
