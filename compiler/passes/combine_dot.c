/* combine_dot.c - folds an addition into the dot it adds to: `acc += tl.dot(a, b)` is
 * written as add(acc, dot(a, b, 0)), and becomes dot(a, b, acc), the form the tensor-core
 * lowering and the software pipeliner accumulate in place (Triton's combine pass does the
 * same).
 *
 * requires:  a verified module.
 * maintains: verification; value ids (the add becomes the dot in place and keeps its
 *            result); the program's meaning under ir_ops.def, whose dot sums its
 *            products and acc in an unspecified order (x + dot(a, b, 0) is one such order
 *            of dot(a, b, x)); integer dots (wrapping) are unchanged bit for bit.
 * breaks:    nothing; the old dot is left unused (DCE removes it).
 *
 * The pattern: add(x, d) or add(d, x), where d = dot(a, b, z) has no other use, z is a
 * constant zero, and x has d's type. The add turns into dot(a, b, x) at the add's
 * position, so x (defined anywhere before the add) dominates it, as a and b do. */
#include "fold.h"
#include "passes.h"
#include "rewrite.h"

#include <stdlib.h>

/* v is a constant 0 (+0.0 or -0.0 for floats: either is an exact identity of the sum
 * up to the sign of a zero result, which dot's unspecified order does not fix either). */
static bool is_zero(const IrFunc *f, ValId v) {
    const IrOp *c = ir_const_def(f, v);
    if (!c) return false;
    int dt = ir_type(f, v).dt;
    if (dt_is_float(dt)) return c->fattr == 0.0;
    return dt_is_int(dt) && fold_wrap(dt, (uint64_t)c->attr[0]) == 0;
}

/* The dot defining v, if it may be folded into its one user. */
static OpId foldable_dot(IrFunc *f, const uint32_t *uses, ValId v) {
    OpId d = ir_def(f, v);
    if (!d || ir_op(f, d)->code != OP_DOT || ir_op(f, d)->nopnds != 3 || uses[v] != 1) return 0;
    return is_zero(f, ir_op(f, d)->operands[2]) ? d : 0;
}

static bool combine_op(IrFunc *f, uint32_t *uses, OpId id) {
    IrOp *op = ir_op(f, id);
    if (op->code != OP_ADD) return false;
    for (int side = 0; side < 2; side++) {
        ValId dv = op->operands[side], x = op->operands[1 - side];
        OpId d = foldable_dot(f, uses, dv);
        if (!d || !ty_equal(ir_type(f, x), ir_type(f, dv))) continue;
        const IrOp *dot = ir_op(f, d);
        ValId opnds[3] = {dot->operands[0], dot->operands[1], x};
        int64_t prec = dot->attr[0], imprecise = dot->attr[1];
        uses[dv]--; /* (the old dot's own operand uses stay counted until DCE: harmless) */
        ir_op_set_operands(f, id, opnds, 3);
        op = ir_op(f, id);
        op->code = OP_DOT;
        op->attr[0] = prec;
        op->attr[1] = imprecise;
        return true;
    }
    return false;
}

static void combine_region(IrFunc *f, uint32_t *uses, RegionId r) {
    for (uint32_t i = 0; i < ir_region(f, r)->nops; i++) {
        OpId id = ir_region(f, r)->ops[i];
        combine_op(f, uses, id);
        IrOp *op = ir_op(f, id);
        for (uint32_t k = 0; k < op->nregions; k++) combine_region(f, uses, op->region[k]);
    }
}

void pass_combine_dot(IrModule *m) {
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        IrFunc *f = m->funcs[i];
        uint32_t *uses = ir_count_uses(f);
        combine_region(f, uses, f->body);
        free(uses);
    }
}
