/* dce.c - dead code elimination.
 *
 * requires:  a verified module.
 * maintains: verification; side effects (stores, atomics, asserts, prints, calls,
 *            assumes, while loops) are never removed.
 * breaks:    nothing; removed ops and values stay in the tables, unreachable. Result and
 *            region-argument numbers (IrValue.index) are renumbered where pruned.
 *
 * Removes, to a fixed point:
 * - pure ops and loads (ops that only read or allocate memory: F_RDONLY) whose results
 *   are all unused (a load's only other effect would be a fault, which a program that
 *   does not use the value cannot rely on), scan and reduce_fn (their regions only
 *   compute) included;
 * - unused results of if (with the matching yield values), and unused loop-carried
 *   values of for whose region argument feeds nothing but pure ops that only feed
 *   each other and its own yield slot (an accumulator nobody reads), or nothing at all
 *   (a variable assigned in the body before it is read);
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
    bool removable = (ir_op_info[op->code].flags & (F_PURE | F_RDONLY)) != 0;
    bool pure_regions =
        op->code == OP_SCAN || op->code == OP_REDUCE_FN; /* combine regions compute only */
    return removable && (op->nregions == 0 || pure_regions) && results_unused(D, op);
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

/* Carried value i of a for is dead when its result is unused and what its region
 * argument feeds, followed forward, is a cone of pure ops (or loads; direct ops of the
 * body) whose values feed nothing but each other and yield slot i: the classic accumulator
 * whose total nobody reads, and a variable the body assigns before reading it (the
 * argument unused, the cone empty). The yield slot's value itself only loses that use.
 * cone[] (per op) and inner[] (per value: 1 + its uses inside the cone and slot i, for the
 * argument and the cone's results) are scratch, zeroed on entry and on return. */
static bool dead_carried(Dce *D, RegionId body, uint32_t i, uint8_t *cone, uint32_t *inner) {
    IrFunc *f = D->f;
    IrRegion *reg = ir_region(f, body);
    OpId y = reg->ops[reg->nops - 1];
    ValId arg = reg->args[i + 1];
    bool ok = true;
    inner[arg] = 1;
    for (uint32_t k = 0; ok && k + 1 < reg->nops; k++) {
        IrOp *op = ir_op(f, reg->ops[k]);
        bool reached = false;
        for (uint32_t j = 0; j < op->nopnds; j++)
            if (inner[op->operands[j]]) reached = true, inner[op->operands[j]]++;
        if (!reached) continue;
        ok = (ir_op_info[op->code].flags & (F_PURE | F_RDONLY)) && op->nregions == 0;
        cone[reg->ops[k]] = 1;
        for (uint32_t r = 0; r < op->nres; r++) inner[op->results[r]] = 1;
    }
    ValId v = ir_op(f, y)->operands[i];
    if (inner[v]) inner[v]++;
    ok = ok && D->uses[arg] == inner[arg] - 1;
    for (uint32_t k = 0; ok && k + 1 < reg->nops; k++) {
        IrOp *op = ir_op(f, reg->ops[k]);
        for (uint32_t r = 0; ok && cone[reg->ops[k]] && r < op->nres; r++)
            ok = D->uses[op->results[r]] == inner[op->results[r]] - 1;
    }
    /* clear the scratch: every value counted is the argument or a result of the cone */
    inner[arg] = 0;
    for (uint32_t k = 0; k + 1 < reg->nops; k++)
        if (cone[reg->ops[k]])
            for (uint32_t r = 0; r < ir_op(f, reg->ops[k])->nres; r++)
                inner[ir_op(f, reg->ops[k])->results[r]] = 0;
    return ok;
}

/* Removes the cone dead_carried marked (its ops' uses dropped), clearing the marks. */
static void remove_cone(Dce *D, RegionId body, uint8_t *cone) {
    IrRegion *reg = ir_region(D->f, body);
    uint32_t n = 0;
    for (uint32_t k = 0; k < reg->nops; k++) {
        OpId o = reg->ops[k];
        if (cone[o]) {
            drop_uses(D, o);
            cone[o] = 0;
        } else {
            reg->ops[n++] = o;
        }
    }
    reg->nops = n;
}

static void clear_cone(IrFunc *f, RegionId body, uint8_t *cone) {
    IrRegion *reg = ir_region(f, body);
    for (uint32_t k = 0; k < reg->nops; k++) cone[reg->ops[k]] = 0;
}

static void prune_for(Dce *D, OpId id) {
    IrFunc *f = D->f;
    RegionId body = ir_op(f, id)->region[0];
    uint8_t *cone = calloc(f->nops, 1);
    uint32_t *inner = calloc(f->nvals, sizeof(uint32_t));
    if (!cone || !inner) NR_DIE("out of memory");
    for (uint32_t i = ir_op(f, id)->nres; i-- > 0;) {
        if (D->uses[ir_op(f, id)->results[i]] || !dead_carried(D, body, i, cone, inner)) {
            clear_cone(f, body, cone);
            continue;
        }
        OpId y = terminator(f, body);
        D->uses[ir_op(f, y)->operands[i]]--;
        remove_operand(f, y, i);
        remove_cone(D, body, cone);
        D->uses[ir_op(f, id)->operands[3 + i]]--;
        remove_operand(f, id, 3 + i);
        remove_arg(f, body, i + 1);
        remove_result(f, id, i);
        D->changed = true;
    }
    free(cone);
    free(inner);
}

/* ---- the walk ---- */

static void dce_region(Dce *D, RegionId r) {
    IrFunc *f = D->f;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    OpVec keep = {0};
    for (uint32_t i = n; i-- > 0;) {
        OpId id = ops[i];
        for (uint32_t j = 0; j < ir_op(f, id)->nregions; j++)
            dce_region(D, ir_op(f, id)->region[j]);
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
