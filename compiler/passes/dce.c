/* dce.c - dead code elimination.
 *
 * requires:  a verified module.
 * maintains: verification; side effects (stores, atomics, asserts, prints, calls,
 *            assumes, while loops) are never removed.
 * breaks:    nothing; removed ops and values stay in the tables, unreachable. Result and
 *            region-argument numbers (IrValue.index) are renumbered where pruned.
 *
 * Removes, to a fixed point:
 * - pure ops and loads whose results are all unused (a load's only other effect would
 *   be a fault, which a program that does not use the value cannot rely on);
 * - unused results of if (with the matching yield values), and unused loop-carried
 *   values of for whose region argument is used by nothing but its own yield slot;
 * - if and for ops left with no results and nothing but the terminator in their
 *   regions (for loops are taken to terminate, as in Triton).
 * Regions are walked backwards, so a chain of dead ops goes in one sweep. */
#include "passes.h"
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

typedef struct Dce {
    IrFunc *f;
    uint32_t *uses;
    bool changed;
} Dce;

/* ---- removing results, operands and arguments in place ---- */

static void remove_result(IrFunc *f, OpId id, uint32_t i) {
    IrOp *op = ir_op(f, id);
    for (uint32_t j = i; j + 1 < op->nres; j++) {
        op->results[j] = op->results[j + 1];
        ir_val(f, op->results[j])->index = (uint16_t)j;
    }
    op->nres--;
}

static void remove_operand(IrFunc *f, OpId id, uint32_t i) {
    IrOp *op = ir_op(f, id);
    memmove(op->operands + i, op->operands + i + 1, sizeof(ValId) * (op->nopnds - i - 1));
    op->nopnds--;
}

static void remove_arg(IrFunc *f, RegionId r, uint32_t i) {
    IrRegion *reg = ir_region(f, r);
    for (uint32_t j = i; j + 1 < reg->nargs; j++) {
        reg->args[j] = reg->args[j + 1];
        ir_val(f, reg->args[j])->index = (uint16_t)j;
    }
    reg->nargs--;
}

static OpId terminator(IrFunc *f, RegionId r) {
    IrRegion *reg = ir_region(f, r);
    return reg->ops[reg->nops - 1];
}

/* ---- what is dead ---- */

/* Forgets the uses made by op and everything in its regions. */
static void drop_uses(Dce *D, OpId id) {
    IrOp *op = ir_op(D->f, id);
    for (uint32_t i = 0; i < op->nopnds; i++) D->uses[op->operands[i]]--;
    for (uint32_t r = 0; r < op->nregions; r++) {
        IrRegion *reg = ir_region(D->f, op->region[r]);
        for (uint32_t i = 0; i < reg->nops; i++) drop_uses(D, reg->ops[i]);
    }
}

static bool results_unused(const Dce *D, const IrOp *op) {
    for (uint32_t i = 0; i < op->nres; i++)
        if (D->uses[op->results[i]]) return false;
    return true;
}

static bool dead_leaf(const Dce *D, const IrOp *op) {
    bool removable = (ir_op_info[op->code].flags & F_PURE) || op->code == OP_LOAD;
    return removable && op->nregions == 0 && results_unused(D, op);
}

/* An if or for with no results whose regions hold only their terminators. */
static bool dead_structured(const Dce *D, const IrOp *op) {
    if ((op->code != OP_IF && op->code != OP_FOR) || op->nres) return false;
    for (uint32_t r = 0; r < op->nregions; r++)
        if (ir_region(D->f, op->region[r])->nops != 1) return false;
    return true;
}

/* ---- pruning results ---- */

static void prune_if(Dce *D, OpId id) {
    IrFunc *f = D->f;
    for (uint32_t i = ir_op(f, id)->nres; i-- > 0;) {
        if (D->uses[ir_op(f, id)->results[i]]) continue;
        for (int r = 0; r < 2; r++) {
            OpId y = terminator(f, ir_op(f, id)->region[r]);
            D->uses[ir_op(f, y)->operands[i]]--;
            remove_operand(f, y, i);
        }
        remove_result(f, id, i);
        D->changed = true;
    }
}

/* Carried value i is dead when its result is unused and its region argument feeds
 * nothing but its own yield slot. */
static void prune_for(Dce *D, OpId id) {
    IrFunc *f = D->f;
    RegionId body = ir_op(f, id)->region[0];
    for (uint32_t i = ir_op(f, id)->nres; i-- > 0;) {
        OpId y = terminator(f, body);
        ValId arg = ir_region(f, body)->args[i + 1], yv = ir_op(f, y)->operands[i];
        if (D->uses[ir_op(f, id)->results[i]] || D->uses[arg] != (yv == arg ? 1u : 0u)) continue;
        D->uses[yv]--;
        remove_operand(f, y, i);
        D->uses[ir_op(f, id)->operands[3 + i]]--;
        remove_operand(f, id, 3 + i);
        remove_arg(f, body, i + 1);
        remove_result(f, id, i);
        D->changed = true;
    }
}

/* ---- the walk ---- */

static void dce_region(Dce *D, RegionId r) {
    IrFunc *f = D->f;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    OpVec keep = {0};
    for (uint32_t i = n; i-- > 0;) {
        OpId id = ops[i];
        for (uint32_t j = 0; j < ir_op(f, id)->nregions; j++) dce_region(D, ir_op(f, id)->region[j]);
        if (ir_op(f, id)->code == OP_IF) prune_if(D, id);
        if (ir_op(f, id)->code == OP_FOR) prune_for(D, id);
        if (dead_leaf(D, ir_op(f, id)) || dead_structured(D, ir_op(f, id))) {
            drop_uses(D, id);
            D->changed = true;
            continue;
        }
        opvec_push(&keep, id);
    }
    for (uint32_t i = 0; i < keep.n / 2; i++) { /* kept in reverse: restore the order */
        OpId t = keep.v[i];
        keep.v[i] = keep.v[keep.n - 1 - i];
        keep.v[keep.n - 1 - i] = t;
    }
    ir_region_set_ops(f, r, keep.v, keep.n);
    opvec_free(&keep);
    free(ops);
}

static void dce_func(IrFunc *f) {
    Dce D = {f, ir_count_uses(f), true};
    while (D.changed) {
        D.changed = false;
        dce_region(&D, f->body);
    }
    free(D.uses);
}

void pass_dce(IrModule *m) {
    for (uint32_t i = 0; i < m->nfuncs; i++) dce_func(m->funcs[i]);
}
