/* interp_plan.c - before a launch runs anything: walk the kernel's regions, check the
 * structure every handler relies on (arities, shapes, dtypes, terminators, scoping),
 * reject call ops, and build the liveness plan: for each value the op after which its
 * buffer goes back to the pool (its last use in its own region, counting uses inside
 * nested regions as uses by the op that owns them). The checks are what keeps the
 * interpreter memory-safe on malformed IR; the verifier gives the nicer messages. */
#include "interp_impl.h"

#include <stdarg.h>
#include <stdlib.h>

enum { NONE = UINT32_MAX };

typedef struct Plan {
    Ctx *c;
    const IrFunc *f;
    uint32_t *pos;        /* per op: index in its region */
    RegionId *def_region; /* per value: the region defining it (0: none) */
    OpId *def_op;         /* per value: its defining op (0: a region argument) */
    uint32_t *last_pos;   /* per value: position of its last use in def_region */
    bool *region_seen;
} Plan;

static int bad(Plan *p, const IrOp *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(Plan *p, const IrOp *op, const char *fmt, ...) {
    Ctx *c = p->c;
    c->failed = true;
    interp_msg(c, "interp: malformed IR in kernel '%s'", p->f->name);
    if (op) {
        interp_msg(c, ": op '%s'", op->code < OP_COUNT ? ir_op_info[op->code].name : "?");
        if (op->loc.src) interp_msg(c, " (%s:%d:%d)", op->loc.src->name, op->loc.line, op->loc.col);
    }
    if (c->err) {
        sb_puts(c->err, ": ");
        va_list ap;
        va_start(ap, fmt);
        sb_vprintf(c->err, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#define NEED(cond, ...)                              \
    do {                                             \
        if (!(cond)) return bad(p, op, __VA_ARGS__); \
    } while (0)

/* ---- the walk: which ops and values are reachable, and where they live ---- */

static int define(Plan *p, const IrOp *op, ValId v, RegionId r, OpId def) {
    NEED(v > 0 && v < p->f->nvals, "value id %u out of range", v);
    NEED(!p->def_region[v], "value %u defined twice", v);
    IrType t = p->f->vals[v].ty;
    NEED((t.dt >= DT_I1 && t.dt <= DT_PTR) || (t.dt == DT_TDESC && !def), "value %u has no dtype",
         v);
    NEED(t.dt != DT_PTR || (t.pointee >= DT_I1 && t.pointee <= DT_PTR), "bad pointee");
    NEED(t.rank <= (t.dt == DT_TDESC ? NR_MAX_DESC_RANK : NR_MAX_RANK), "value %u has rank %d", v,
         t.rank);
    int64_t n = 1;
    for (int i = 0; i < t.rank; i++) {
        NEED(t.shape[i] >= 1 && t.shape[i] <= NR_MAX_NUMEL, "value %u has a bad shape", v);
        n *= t.shape[i];
        NEED(n <= NR_MAX_NUMEL, "value %u has more than %d elements", v, NR_MAX_NUMEL);
    }
    p->def_region[v] = r;
    p->def_op[v] = def;
    return 0;
}

static int walk_region(Plan *p, RegionId r, OpId parent) {
    const IrFunc *f = p->f;
    const IrOp *op = parent ? &f->ops[parent] : NULL;
    NEED(r > 0 && r < f->nregions, "region id %u out of range", r);
    NEED(!p->region_seen[r], "region %u is used twice", r);
    p->region_seen[r] = true;
    p->c->region_parent[r] = parent;
    const IrRegion *reg = &f->regions[r];
    for (uint32_t i = 0; i < reg->nargs; i++)
        if (define(p, op, reg->args[i], r, 0)) return -1;
    for (uint32_t i = 0; i < reg->nops; i++) {
        OpId id = reg->ops[i];
        NEED(id > 0 && id < f->nops, "op id %u out of range", id);
        const IrOp *o = &f->ops[id];
        NEED(!p->c->op_region[id], "op %u appears twice", id);
        NEED(o->code < OP_COUNT, "unknown opcode %u", o->code);
        p->c->op_region[id] = r;
        p->pos[id] = i;
        for (uint32_t k = 0; k < o->nres; k++)
            if (define(p, o, o->results[k], r, id)) return -1;
        NEED(o->nregions <= 2, "op has %u regions", o->nregions);
        for (uint32_t k = 0; k < o->nregions; k++)
            if (walk_region(p, o->region[k], id)) return -1;
    }
    return 0;
}

/* ---- per-op structure checks ---- */

static IrType oty(Plan *p, const IrOp *op, uint32_t i) { return p->f->vals[op->operands[i]].ty; }
static IrType rty(Plan *p, const IrOp *op, uint32_t i) { return p->f->vals[op->results[i]].ty; }
static int64_t onum(Plan *p, const IrOp *op, uint32_t i) { return ty_numel(oty(p, op, i)); }
static int64_t rnum(Plan *p, const IrOp *op, uint32_t i) { return ty_numel(rty(p, op, i)); }

/* The last op of region r, if it is a terminator (else NULL). */
static const IrOp *terminator(Plan *p, RegionId r) {
    const IrRegion *reg = &p->f->regions[r];
    if (!reg->nops) return NULL;
    const IrOp *t = &p->f->ops[reg->ops[reg->nops - 1]];
    return (ir_op_info[t->code].flags & F_TERM) ? t : NULL;
}

/* Region r must end in a terminator of kind code whose operands match the n values
 * (results of op from first) in element count; a yield of nothing may be left out. */
static int check_term(Plan *p, const IrOp *op, RegionId r, int code, const ValId *vals,
                      uint32_t n) {
    const IrOp *t = terminator(p, r);
    if (!t && code == OP_YIELD && n == 0) return 0;
    NEED(t && t->code == code, "a region must end in '%s'", ir_op_info[code].name);
    if (code == OP_CONDITION) {
        const IrOp *cop = t;
        NEED(cop->nopnds == 1 && ty_numel(p->f->vals[cop->operands[0]].ty) == 1,
             "condition takes one scalar");
        return 0;
    }
    NEED(t->nopnds == n, "yield of %u values where %u are expected", t->nopnds, n);
    for (uint32_t i = 0; i < n; i++)
        NEED(ty_numel(p->f->vals[t->operands[i]].ty) == ty_numel(p->f->vals[vals[i]].ty),
             "yielded value %u has the wrong shape", i);
    return 0;
}

static int same_numel_args(Plan *p, const IrOp *op, RegionId r, uint32_t skip, uint32_t n) {
    const IrRegion *reg = &p->f->regions[r];
    NEED(reg->nargs == skip + n, "region has %u arguments, expected %u", reg->nargs, skip + n);
    for (uint32_t i = 0; i < n; i++)
        NEED(ty_numel(p->f->vals[reg->args[skip + i]].ty) == rnum(p, op, i),
             "region argument %u has the wrong shape", skip + i);
    return 0;
}

static int check_control(Plan *p, const IrOp *op) {
    uint32_t n = op->nres;
    switch (op->code) {
    case OP_FOR: {
        NEED(op->nopnds >= 3 && n == op->nopnds - 3, "for has %u operands and %u results",
             op->nopnds, n);
        for (uint32_t i = 0; i < 3; i++)
            NEED(onum(p, op, i) == 1 && dt_is_int(oty(p, op, i).dt), "bounds must be int scalars");
        for (uint32_t i = 0; i < n; i++)
            NEED(onum(p, op, 3 + i) == rnum(p, op, i), "init %u has the wrong shape", i);
        const IrRegion *body = &p->f->regions[op->region[0]];
        NEED(body->nargs >= 1 && ty_numel(p->f->vals[body->args[0]].ty) == 1,
             "the induction variable must be a scalar");
        if (same_numel_args(p, op, op->region[0], 1, n)) return -1;
        return check_term(p, op, op->region[0], OP_YIELD, op->results, n);
    }
    case OP_IF:
        NEED(op->nregions >= 1 && (op->nregions == 2 || n == 0), "if needs both regions");
        NEED(onum(p, op, 0) == 1 && oty(p, op, 0).dt == DT_I1, "if condition must be an i1 scalar");
        for (uint32_t k = 0; k < op->nregions; k++) {
            if (same_numel_args(p, op, op->region[k], 0, 0)) return -1;
            if (check_term(p, op, op->region[k], OP_YIELD, op->results, n)) return -1;
        }
        return 0;
    case OP_WHILE:
        NEED(op->nregions == 2 && n == op->nopnds,
             "while needs two regions and one result per init");
        for (uint32_t i = 0; i < n; i++)
            NEED(onum(p, op, i) == rnum(p, op, i), "init %u has the wrong shape", i);
        if (same_numel_args(p, op, op->region[0], 0, n) ||
            same_numel_args(p, op, op->region[1], 0, n))
            return -1;
        if (check_term(p, op, op->region[0], OP_CONDITION, NULL, 0)) return -1;
        return check_term(p, op, op->region[1], OP_YIELD, op->results, n);
    default: return 0;
    }
}

/* Which dtypes an elementwise arithmetic op accepts: floats only, ints only, or both. */
static char arith_class(int code) {
    switch (code) {
    case OP_DIV:
    case OP_DIV_RN:
    case OP_EXP:
    case OP_EXP2:
    case OP_LOG:
    case OP_LOG2:
    case OP_SQRT:
    case OP_RSQRT:
    case OP_SIN:
    case OP_COS:
    case OP_MATH: return 'F';
    case OP_IDIV:
    case OP_AND:
    case OP_OR:
    case OP_XOR:
    case OP_SHL:
    case OP_SHR:
    case OP_UMULHI:
    case OP_NOT: return 'I';
    default: return 'A';
    }
}

static int check_elementwise(Plan *p, const IrOp *op) {
    NEED(op->nres == 1, "needs one result");
    int64_t n = rnum(p, op, 0);
    for (uint32_t i = 0; i < op->nopnds; i++)
        NEED(onum(p, op, i) == n, "operand %u has %lld elements, the result %lld", i,
             (long long)onum(p, op, i), (long long)n);
    int rdt = rty(p, op, 0).dt;
    switch (op->code) {
    case OP_MATH:
        NEED(op->attr[0] >= 0 && op->attr[0] < MATH_COUNT &&
                 op->nopnds == (uint32_t)ir_mathfn_info[op->attr[0]].nargs,
             "bad math function or operand count");
        break;
    case OP_CMP:
        NEED(rdt == DT_I1 && oty(p, op, 0).dt == oty(p, op, 1).dt,
             "cmp needs equal dtypes and an i1 result");
        NEED(op->attr[0] >= CMP_PRED_EQ && op->attr[0] <= CMP_PRED_GE, "bad predicate");
        return 0;
    case OP_SELECT:
        NEED(oty(p, op, 0).dt == DT_I1 && oty(p, op, 1).dt == rdt && oty(p, op, 2).dt == rdt,
             "select needs an i1 condition and values of the result dtype");
        return 0;
    case OP_CVT: return 0;
    case OP_BITCAST:
        NEED(dt_bits(oty(p, op, 0).dt) == dt_bits(rdt), "bitcast between different widths");
        return 0;
    case OP_ADDPTR:
        NEED(rdt == DT_PTR && oty(p, op, 0).dt == DT_PTR && dt_is_int(oty(p, op, 1).dt),
             "addptr needs a pointer and an integer offset");
        return 0;
    default: break;
    }
    for (uint32_t i = 0; i < op->nopnds; i++)
        NEED(oty(p, op, i).dt == rdt, "operand %u's dtype differs from the result's", i);
    char cls = arith_class(op->code);
    NEED(cls != 'F' || dt_is_float(rdt), "needs a float dtype, not %s", dt_name(rdt));
    NEED(cls != 'I' || dt_is_int(rdt), "needs an integer dtype, not %s", dt_name(rdt));
    NEED(dt_is_float(rdt) || dt_is_int(rdt), "no arithmetic on %s", dt_name(rdt));
    return 0;
}

static int check_view(Plan *p, const IrOp *op) {
    IrType a = oty(p, op, 0), r = rty(p, op, 0);
    NEED(a.dt == r.dt, "operand and result dtypes differ");
    switch (op->code) {
    case OP_SPLAT: NEED(ty_numel(a) == 1, "splat of a block"); return 0;
    case OP_BROADCAST:
        NEED(a.rank <= r.rank, "broadcast to a lower rank");
        for (int i = 0; i < a.rank; i++) {
            int32_t d = a.shape[a.rank - 1 - i], e = r.shape[r.rank - 1 - i];
            NEED(d == e || d == 1, "dim %d of size %d cannot broadcast to %d", i, d, e);
        }
        return 0;
    case OP_TRANS: {
        NEED(a.rank == r.rank, "trans changes the rank");
        bool used[NR_MAX_RANK] = {false};
        for (int i = 0; i < r.rank; i++) {
            int64_t k = op->attr[i];
            NEED(k >= 0 && k < r.rank && !used[k], "bad permutation");
            used[k] = true;
            NEED(r.shape[i] == a.shape[k], "result dim %d is not operand dim %lld", i,
                 (long long)k);
        }
        return 0;
    }
    default: NEED(ty_numel(a) == ty_numel(r), "element counts differ"); return 0;
    }
}

static int check_reduce(Plan *p, const IrOp *op) {
    IrType a = oty(p, op, 0), r = rty(p, op, 0);
    int64_t axis = op->attr[1], kind = op->attr[0];
    NEED(a.rank >= 1 && axis >= 0 && axis < a.rank, "bad axis %lld", (long long)axis);
    NEED(kind >= RED_SUM && kind <= RED_ARGMIN, "bad reduction kind");
    NEED(ty_numel(r) * a.shape[axis] == ty_numel(a), "result shape does not drop the axis");
    NEED(dt_is_float(a.dt) || dt_is_int(a.dt), "cannot reduce %s", dt_name(a.dt));
    if (kind == RED_ARGMAX || kind == RED_ARGMIN)
        NEED(dt_is_int(r.dt), "argmax/argmin give integers");
    else
        NEED(dt_is_float(r.dt) == dt_is_float(a.dt) && r.dt != DT_PTR,
             "result dtype class differs");
    return 0;
}

/* scan, reduce_fn: n operands of one shape, their results, 2n scalar region arguments of
 * the operands' dtypes (interp_combine.c copies elements between them as they are) and a
 * yield of n scalars of those dtypes */
static int check_combine(Plan *p, const IrOp *op) {
    uint32_t n = op->nopnds;
    NEED(n >= 1 && n <= 16 && op->nres == n && op->nregions == 1,
         "scan/reduce_fn needs 1 to 16 operands and as many results");
    IrType a = oty(p, op, 0);
    int64_t axis = op->attr[0];
    NEED(a.rank >= 1 && axis >= 0 && axis < a.rank, "bad axis %lld", (long long)axis);
    const IrRegion *r = &p->f->regions[op->region[0]];
    NEED(r->nargs == 2 * n, "the combine region needs %u arguments", 2 * n);
    for (uint32_t i = 0; i < n; i++) {
        IrType x = oty(p, op, i), y = rty(p, op, i);
        NEED(ty_same_shape(x, a) && x.dt == y.dt && (dt_is_int(x.dt) || dt_is_float(x.dt)),
             "operand %u's type", i);
        NEED(ty_numel(y) * (op->code == OP_REDUCE_FN ? a.shape[axis] : 1) == ty_numel(a),
             "result %u's shape", i);
        for (uint32_t k = 0; k < 2; k++) {
            IrType t = p->f->vals[r->args[i + k * n]].ty;
            NEED(ty_numel(t) == 1 && t.dt == x.dt, "combine argument %u's type", i + k * n);
        }
    }
    const IrOp *t = terminator(p, op->region[0]);
    NEED(t && t->code == OP_YIELD && t->nopnds == n, "the combine region must yield %u values", n);
    for (uint32_t i = 0; i < n; i++) {
        IrType y = p->f->vals[t->operands[i]].ty;
        NEED(ty_numel(y) == 1 && y.dt == oty(p, op, i).dt, "combine result %u's type", i);
    }
    return 0;
}

/* flip, sort, gather, histogram (interp_perm.c relies on these shapes) */
static int check_perm(Plan *p, const IrOp *op) {
    IrType x = oty(p, op, 0), r = rty(p, op, 0);
    int64_t axis = op->attr[0];
    if (op->code == OP_HISTOGRAM) {
        NEED(x.rank == 1 && dt_is_int(x.dt) && r.rank == 1 && r.dt == DT_I32,
             "histogram: a 1-D integer block to 1-D i32");
        NEED(op->nopnds == 1 ||
                 (op->nopnds == 2 && onum(p, op, 1) == onum(p, op, 0) && oty(p, op, 1).dt == DT_I1),
             "histogram's mask");
        return 0;
    }
    NEED(x.rank >= 1 && axis >= 0 && axis < x.rank && (dt_is_int(x.dt) || dt_is_float(x.dt)),
         "bad axis or dtype");
    if (op->code != OP_GATHER) {
        NEED(ty_equal(x, r), "result type");
        return 0;
    }
    IrType ix = oty(p, op, 1);
    NEED(dt_is_int(ix.dt) && ix.rank == x.rank && ty_same_shape(ix, r) && r.dt == x.dt,
         "gather's index and result");
    for (int d = 0; d < x.rank; d++)
        NEED(d == axis || ix.shape[d] == x.shape[d], "gather's index shape");
    return 0;
}

static int check_dot(Plan *p, const IrOp *op) {
    IrType a = oty(p, op, 0), b = oty(p, op, 1), acc = oty(p, op, 2), r = rty(p, op, 0);
    NEED(a.rank >= 2 && a.rank <= NR_MAX_RANK && b.rank == a.rank && r.rank == a.rank &&
             ty_same_shape(acc, r),
         "dot needs 2-D (or batched) blocks");
    int k = a.rank - 2;
    bool batches = true;
    for (int d = 0; d < k; d++) batches &= a.shape[d] == b.shape[d] && r.shape[d] == a.shape[d];
    NEED(a.shape[k + 1] == b.shape[k] && r.shape[k] == a.shape[k] &&
             r.shape[k + 1] == b.shape[k + 1] && batches,
         "dot shapes do not match");
    bool fl = dt_is_float(a.dt);
    NEED(fl == dt_is_float(b.dt) && (fl || (dt_is_int(a.dt) && dt_is_int(b.dt))),
         "dot operand dtypes");
    NEED(acc.dt == r.dt && dt_is_float(r.dt) == fl && r.dt != DT_PTR, "dot accumulator dtype");
    NEED(op->nopnds == 3 || (oty(p, op, 3).rank == 0 && oty(p, op, 3).dt == DT_I1),
         "dot use_acc must be an i1 scalar");
    return 0;
}

/* Operands of a memory op: pointer block first; mask (i1) and value-like operands must
 * match its element count or be scalars. */
static int check_mem(Plan *p, const IrOp *op) {
    NEED(op->nopnds >= 1 && oty(p, op, 0).dt == DT_PTR, "needs a pointer operand");
    int pe = oty(p, op, 0).pointee;
    int64_t n = onum(p, op, 0);
    if (op->nres)
        NEED(rty(p, op, 0).dt == pe && rnum(p, op, 0) == n, "result must match the pointers");
    for (uint32_t i = 1; i < op->nopnds; i++)
        NEED(onum(p, op, i) == n || onum(p, op, i) == 1, "operand %u has the wrong shape", i);
    uint32_t nvalues = 0; /* operands after the pointer that carry values, before a mask */
    switch (op->code) {
    case OP_LOAD:
        NEED(op->nopnds <= 3, "load takes 1-3 operands");
        if (op->nopnds == 3) NEED(oty(p, op, 2).dt == pe, "other must have the pointee dtype");
        break;
    case OP_STORE:
        NEED(op->nopnds == 2 || op->nopnds == 3, "store takes 2-3 operands");
        nvalues = 1;
        break;
    case OP_ATOMIC_RMW:
        NEED(op->nopnds == 2 || op->nopnds == 3, "atomic_rmw takes 2-3 operands");
        NEED(op->attr[0] >= RMW_ADD && op->attr[0] <= RMW_XOR, "bad rmw kind");
        NEED(op->attr[0] < RMW_AND || dt_is_int(pe), "bitwise atomics need an integer pointee");
        nvalues = 1;
        break;
    default:
        NEED(op->nopnds == 3, "atomic_cas takes 3 operands");
        nvalues = 2;
        break;
    }
    for (uint32_t i = 1; i <= nvalues; i++)
        NEED(oty(p, op, i).dt == pe, "value dtype must be the pointee's");
    uint32_t mask = 1 + nvalues;
    if (op->code != OP_ATOMIC_CAS && op->nopnds > mask)
        NEED(oty(p, op, mask).dt == DT_I1, "mask must be i1");
    return 0;
}

static int check_op(Plan *p, OpId id) {
    const IrOp *op = &p->f->ops[id];
    const OpInfo *info = &ir_op_info[op->code];
    if (op->code == OP_CALL) {
        p->c->failed = true;
        interp_msg(p->c, "kernel '%s'", p->f->name);
        if (op->loc.src)
            interp_msg(p->c, " (%s:%d:%d)", op->loc.src->name, op->loc.line, op->loc.col);
        interp_msg(p->c, ": call to '@%s' must be inlined before the interpreter can run it",
                   op->sattr ? op->sattr : "?");
        return -1;
    }
    NEED(info->nopnds < 0 || op->nopnds == (uint32_t)info->nopnds, "has %u operands", op->nopnds);
    NEED(info->nresults < 0 || op->nres == (uint32_t)info->nresults, "has %u results", op->nres);
    NEED(op->nregions == info->nregions || (op->code == OP_IF && op->nregions == 1),
         "has %u regions", op->nregions);
    if (op->code >= OP_ADD && op->code <= OP_ADDPTR) return check_elementwise(p, op);
    NEED(!(info->flags & F_GPU),
         "'%s' exists only in the GPU back end; the interpreter runs the IR before it", info->name);
    if (op->code == OP_INLINE_ASM) { /* a user's PTX: no CPU runs it */
        p->c->failed = true;
        interp_msg(p->c, "kernel '%s'", p->f->name);
        if (op->loc.src)
            interp_msg(p->c, " (%s:%d:%d)", op->loc.src->name, op->loc.line, op->loc.col);
        interp_msg(p->c, ": tl.inline_asm_elementwise runs GPU assembly, which the CPU interpreter "
                         "cannot run: launch "
                         "this kernel on a CUDA device");
        return -1;
    }
    switch (op->code) {
    case OP_ARANGE:
        NEED(op->attr[0] >= -(INT64_C(1) << 40) && op->attr[0] <= (INT64_C(1) << 40) &&
                 op->attr[1] >= -(INT64_C(1) << 40) && op->attr[1] <= (INT64_C(1) << 40) &&
                 rty(p, op, 0).rank == 1 && rnum(p, op, 0) == op->attr[1] - op->attr[0] &&
                 dt_is_int(rty(p, op, 0).dt),
             "arange must give end - start integers");
        return 0;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS:
        NEED(op->attr[0] >= 0 && op->attr[0] <= 2 && dt_is_int(rty(p, op, 0).dt),
             "bad axis or dtype");
        return 0;
    case OP_SPLAT:
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
    case OP_RESHAPE:
    case OP_TRANS:
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS:
    case OP_MAX_CONSTANCY:
    case OP_CONVERT_LAYOUT: return check_view(p, op);
    case OP_BARRIER: return 0;
    case OP_REDUCE: return check_reduce(p, op);
    case OP_SCAN:
    case OP_REDUCE_FN: return check_combine(p, op);
    case OP_FLIP:
    case OP_SORT:
    case OP_GATHER:
    case OP_HISTOGRAM: return check_perm(p, op);
    case OP_DOT: return check_dot(p, op);
    case OP_LOAD:
    case OP_STORE:
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: return check_mem(p, op);
    case OP_DESC_LOAD:
    case OP_DESC_STORE:
        NEED(false, "tensor-descriptor accesses must be expanded first (pass expand-descriptors)");
        return -1;
    case OP_DESC_PART: NEED(oty(p, op, 0).dt == DT_TDESC, "desc_part needs a descriptor"); return 0;
    case OP_SMID:
    case OP_GLOBALTIMER:
        NEED(rty(p, op, 0).rank == 0 && dt_is_int(rty(p, op, 0).dt), "needs an integer scalar");
        return 0;
    case OP_FOR:
    case OP_IF:
    case OP_WHILE: return check_control(p, op);
    case OP_ASSERT: NEED(oty(p, op, 0).dt == DT_I1, "assert needs an i1 condition"); return 0;
    case OP_YIELD:
    case OP_CONDITION:
    case OP_RETURN: {
        const IrRegion *reg = &p->f->regions[p->c->op_region[id]];
        NEED(reg->ops[reg->nops - 1] == id, "a terminator must end its region");
        OpId parent = p->c->region_parent[p->c->op_region[id]];
        int want = !parent ? OP_RETURN
                   : (p->f->ops[parent].code == OP_WHILE &&
                      p->f->ops[parent].region[0] == p->c->op_region[id])
                       ? OP_CONDITION
                       : OP_YIELD;
        NEED(op->code == want, "'%s' cannot end this region", info->name);
        return 0;
    }
    default: return 0;
    }
}

/* ---- liveness ---- */

/* Records that op user reads value u: climb to the op in u's region that contains the
 * user, checking u is in scope and defined before. */
static int use(Plan *p, OpId user, ValId u) {
    const IrOp *op = &p->f->ops[user];
    NEED(u > 0 && u < p->f->nvals && p->def_region[u], "uses an undefined value");
    OpId x = user;
    while (p->c->op_region[x] != p->def_region[u]) {
        x = p->c->region_parent[p->c->op_region[x]];
        NEED(x, "uses a value outside its scope");
    }
    NEED(!p->def_op[u] || p->pos[p->def_op[u]] < p->pos[x], "uses a value before its definition");
    if (p->last_pos[u] == NONE || p->pos[x] > p->last_pos[u]) {
        p->last_pos[u] = p->pos[x];
        p->c->release_at[u] = x;
    }
    return 0;
}

static int compute_uses(Plan *p) {
    const IrFunc *f = p->f;
    for (OpId id = 1; id < f->nops; id++) {
        if (!p->c->op_region[id]) continue;
        const IrOp *op = &f->ops[id];
        for (uint32_t i = 0; i < op->nopnds; i++)
            if (use(p, id, op->operands[i])) return -1;
        if (op->code == OP_CONDITION) { /* hands on all of its region's arguments */
            const IrRegion *r = &f->regions[p->c->op_region[id]];
            for (uint32_t i = 0; i < r->nargs; i++)
                if (use(p, id, r->args[i])) return -1;
        }
    }
    return 0;
}

/* Release lists as CSR arrays: per op (after it) and per region (on entry). */
static int build_lists(Plan *p) {
    Ctx *c = p->c;
    const IrFunc *f = p->f;
    c->rel_start = calloc((size_t)f->nops + 1, sizeof *c->rel_start);
    c->entry_start = calloc((size_t)f->nregions + 1, sizeof *c->entry_start);
    c->rel = calloc((size_t)f->nvals, sizeof *c->rel);
    c->entry_rel = calloc((size_t)f->nvals, sizeof *c->entry_rel);
    if (!c->rel_start || !c->entry_start || !c->rel || !c->entry_rel) return -1;
    for (ValId v = 1; v < f->nvals; v++) {
        if (!p->def_region[v]) continue;
        if (p->last_pos[v] == NONE) c->release_at[v] = p->def_op[v]; /* unused */
        if (c->release_at[v]) c->rel_start[c->release_at[v] + 1]++;
        else c->entry_start[p->def_region[v] + 1]++;
    }
    for (uint32_t i = 0; i < f->nops; i++) c->rel_start[i + 1] += c->rel_start[i];
    for (uint32_t i = 0; i < f->nregions; i++) c->entry_start[i + 1] += c->entry_start[i];
    uint32_t *fill = calloc((size_t)f->nops + f->nregions, sizeof *fill);
    if (!fill) return -1;
    for (ValId v = 1; v < f->nvals; v++) {
        if (!p->def_region[v]) continue;
        OpId at = c->release_at[v];
        if (at) c->rel[c->rel_start[at] + fill[at]++] = v;
        else
            c->entry_rel[c->entry_start[p->def_region[v]] + fill[f->nops + p->def_region[v]]++] = v;
    }
    free(fill);
    return 0;
}

/* Hand-over buffers for control-flow ops: one per carried value or result. */
static int build_pending(Ctx *c) {
    const IrFunc *f = c->f;
    c->pend_start = calloc((size_t)f->nops + 1, sizeof *c->pend_start);
    if (!c->pend_start) return -1;
    uint32_t total = 0;
    for (OpId id = 1; id < f->nops; id++) {
        c->pend_start[id] = total;
        const IrOp *op = &f->ops[id];
        if (c->op_region[id] && (op->code == OP_FOR || op->code == OP_IF || op->code == OP_WHILE))
            total += op->nres > op->nopnds ? op->nres : op->nopnds;
    }
    c->npend = total;
    c->pend = calloc(total ? total : 1, sizeof *c->pend);
    return c->pend ? 0 : -1;
}

static int plan_all(Plan *p) {
    Ctx *c = p->c;
    const IrFunc *f = p->f;
    if (walk_region(p, f->body, 0)) return -1;
    for (OpId id = 1; id < f->nops; id++)
        if (c->op_region[id] && check_op(p, id)) return -1;
    if (compute_uses(p)) return -1;
    if (build_lists(p) || build_pending(c)) {
        interp_msg(c, "interpreter out of memory in kernel '%s'", f->name);
        return -1;
    }
    return 0;
}

int interp_plan(Ctx *c) {
    const IrFunc *f = c->f;
    Plan p = {.c = c, .f = f};
    p.pos = calloc(f->nops, sizeof *p.pos);
    p.def_region = calloc(f->nvals, sizeof *p.def_region);
    p.def_op = calloc(f->nvals, sizeof *p.def_op);
    p.last_pos = malloc(f->nvals * sizeof *p.last_pos);
    p.region_seen = calloc(f->nregions, sizeof *p.region_seen);
    c->op_region = calloc(f->nops, sizeof *c->op_region);
    c->region_parent = calloc(f->nregions, sizeof *c->region_parent);
    c->release_at = calloc(f->nvals, sizeof *c->release_at);
    int rc = -1;
    if (p.pos && p.def_region && p.def_op && p.last_pos && p.region_seen && c->op_region &&
        c->region_parent && c->release_at) {
        for (uint32_t v = 0; v < f->nvals; v++) p.last_pos[v] = NONE;
        rc = plan_all(&p);
    } else {
        interp_msg(c, "interpreter out of memory in kernel '%s'", f->name);
    }
    free(p.pos);
    free(p.def_region);
    free(p.def_op);
    free(p.last_pos);
    free(p.region_seen);
    return rc;
}

void interp_plan_free(Ctx *c) {
    free(c->op_region);
    free(c->region_parent);
    free(c->rel_start);
    free(c->rel);
    free(c->entry_start);
    free(c->entry_rel);
    free(c->release_at);
    free(c->pend_start);
    free(c->pend);
}
