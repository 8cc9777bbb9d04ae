/* ir_verify.c - checks a module against the IR contract of ir.h and ir_ops.def: ids and
 * back links, types (dims powers of two, at most NR_MAX_NUMEL elements), arities, the
 * operand/result type rules of every op's semantics, kernel parameters (scalars, pointers
 * and descriptors, as a launch passes them: never blocks or buffers), region arguments,
 * terminators (exactly last, of the kind the region needs) and SSA dominance (an operand
 * is defined earlier in its region or an enclosing one). The parser feeds it arbitrary
 * text and passes feed it their mistakes, so it never trusts an id, a rank or a count
 * before checking it, and type rules only run on ops whose values all have valid types.
 *
 * GPU-stage IR (a module with a gpu<> header) is further checked by ir_verify_gpu.c:
 * every block has a layout that suits it, every buffer a shared layout, and each op's
 * operands and results have the layouts its lowering needs.
 *
 * Messages: "verifier: @func: op 'name' (line:col): reason", one per line. */
#include "compiler/support/options.h"
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ERRORS = 20, MAX_DEPTH = 1000 };

typedef struct Verifier {
    const IrModule *m;
    const IrFunc *f;
    StrBuf *err;
    int nerrors;
    uint8_t *visible;     /* per value: in scope at the current point */
    uint8_t *defined;     /* per value: defined once already */
    uint8_t *op_seen;     /* per op: already walked (an op in two places is an error) */
    uint8_t *region_seen; /* per region */
} Verifier;

/* What the last op of a region must be. */
typedef struct Expect {
    int term;            /* OP_YIELD, OP_CONDITION or OP_RETURN */
    const IrType *types; /* operand types of a yield or return */
    uint32_t n;
} Expect;

/* ---- messages ---- */

static void vreport(Verifier *V, OpId id, const char *fmt, va_list ap) {
    if (V->nerrors++ >= MAX_ERRORS) return;
    sb_printf(V->err, "verifier: @%s: ", V->f->name ? V->f->name : "?");
    if (id) {
        const IrOp *op = &V->f->ops[id];
        sb_printf(V->err, "op '%s'", op->code < OP_COUNT ? ir_op_info[op->code].name : "?");
        if (op->loc.src) sb_printf(V->err, " (%d:%d)", op->loc.line, op->loc.col);
        sb_puts(V->err, ": ");
    }
    sb_vprintf(V->err, fmt, ap);
    sb_putc(V->err, '\n');
}

/* An error about op id (0: about the function). */
__attribute__((format(printf, 3, 4))) static bool op_error(Verifier *V, OpId id, const char *fmt,
                                                           ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(V, id, fmt, ap);
    va_end(ap);
    return false;
}

typedef struct TyName {
    char s[96];
} TyName;

static TyName tn(IrType t) {
    TyName n;
    ty_str(t, n.s, sizeof n.s);
    return n;
}

/* ---- types ---- */

static const char *type_problem(IrType t) {
    if (t.dt < DT_I1 || t.dt > DT_TDESC) return "unknown dtype";
    if (t.dt == DT_PTR && !dt_is_scalar(t.pointee)) return "bad pointee dtype";
    if (t.dt == DT_SMEM && !dt_is_scalar(t.pointee)) return "bad buffer element dtype";
    if (t.dt == DT_SMEM && (t.rank < 1 || t.stages < 1))
        return "a buffer needs a shape and at least one stage";
    if (t.dt == DT_TDESC && (!dt_is_scalar(t.pointee) || t.pointee == DT_I1))
        return "bad descriptor element dtype";
    if (t.dt == DT_TDESC && (t.rank < 1 || t.stages))
        return "a descriptor needs a tile shape (and no stages)";
    if (t.rank > NR_MAX_RANK) return "more than 8 dimensions";
    if (t.dt == DT_TDESC && t.rank > NR_MAX_DESC_RANK)
        return "a descriptor of more than 5 dimensions";
    int64_t numel = 1;
    for (int i = 0; i < t.rank; i++) {
        int32_t d = t.shape[i];
        if (d <= 0 || (d & (d - 1))) return "dimensions must be powers of two";
        numel *= d;
        if (numel > NR_MAX_NUMEL) return "more than 2^20 elements";
    }
    return NULL;
}

static IrType T(const Verifier *V, ValId v) { return V->f->vals[v].ty; }
static bool valid_val(const Verifier *V, ValId v) { return v > 0 && v < V->f->nvals; }
static bool valid_region(const IrFunc *f, RegionId r) { return r > 0 && r < f->nregions; }
/* A value whose type the rules may look at (bad types were reported where defined). */
static bool typed_val(const Verifier *V, ValId v) {
    return valid_val(V, v) && !type_problem(T(V, v));
}
static bool is_int(IrType t) { return dt_is_int(t.dt); }
static bool is_float(IrType t) { return dt_is_float(t.dt); }
static bool is_i1(IrType t) { return t.dt == DT_I1; }
static IrType pointee_of(IrType p) { return ty_with_elem(p, ty_scalar(p.pointee)); }

/* Defines v (a result or region arg) and brings it into scope. */
static void define(Verifier *V, OpId id, ValId v, const char *what, uint32_t i) {
    if (V->defined[v]) {
        op_error(V, id, "%s #%u is a value defined twice", what, i);
        return;
    }
    const char *why = type_problem(T(V, v));
    if (why) op_error(V, id, "%s #%u has an invalid type %s: %s", what, i, tn(T(V, v)).s, why);
    V->defined[v] = V->visible[v] = 1;
}

/* ---- per-op type rules ---- */

static bool same(Verifier *V, OpId id, IrType a, IrType b, const char *what) {
    if (ty_equal(a, b)) return true;
    return op_error(V, id, "%s: %s vs %s", what, tn(a).s, tn(b).s);
}

static bool need(Verifier *V, OpId id, bool ok, const char *fmt, const char *arg) {
    if (!ok) op_error(V, id, fmt, arg);
    return ok;
}

static bool same_elem(IrType a, IrType b) { return ty_equal(ty_elem(a), ty_elem(b)); }

/* Elementwise ops on one type: every operand and the result the same. */
static void check_uniform(Verifier *V, OpId id, const IrOp *op, bool (*dt_ok)(IrType),
                          const char *kinds) {
    IrType r = T(V, op->results[0]);
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (!same(V, id, T(V, op->operands[i]), r, "operand and result types differ")) return;
    need(V, id, dt_ok(r), "needs %s operands", kinds);
}

static bool arith_dt(IrType t) { return is_int(t) || is_float(t); }

static void check_cmp(Verifier *V, OpId id, const IrOp *op) {
    IrType a = T(V, op->operands[0]), r = T(V, op->results[0]);
    if (!same(V, id, a, T(V, op->operands[1]), "operand types differ")) return;
    same(V, id, r, ty_with_elem(a, ty_scalar(DT_I1)), "result must be i1 of the operands' shape");
    need(V, id, ir_attr_enum_name(IR_ATTR_CMP, op->attr[0]) != NULL, "bad predicate%s", "");
}

static void check_select(Verifier *V, OpId id, const IrOp *op) {
    IrType c = T(V, op->operands[0]), r = T(V, op->results[0]);
    same(V, id, c, ty_with_elem(r, ty_scalar(DT_I1)), "condition must be i1 of the result's shape");
    same(V, id, T(V, op->operands[1]), r, "operand and result types differ");
    same(V, id, T(V, op->operands[2]), r, "operand and result types differ");
}

static void check_cast(Verifier *V, OpId id, const IrOp *op) {
    IrType a = T(V, op->operands[0]), r = T(V, op->results[0]);
    if (!need(V, id, ty_same_shape(a, r), "operand and result shapes differ%s", "")) return;
    if (op->code == OP_BITCAST) {
        need(V, id, dt_bits(a.dt) == dt_bits(r.dt), "bit widths differ%s", "");
        return;
    }
    if (!need(V, id, a.dt != DT_PTR && r.dt != DT_PTR, "cannot convert pointers (use bitcast)%s",
              ""))
        return;
    if (dt_is_fp8(a.dt) || dt_is_fp8(r.dt))
        need(V, id,
             a.dt == r.dt || (is_float(a) && is_float(r) && !(dt_is_fp8(a.dt) && dt_is_fp8(r.dt))),
             "fp8 converts only to and from fp16, bf16, fp32 and fp64 (integers and other fp8 "
             "types go through fp32)%s",
             "");
    if (op->attr[0])
        need(V, id,
             op->attr[0] == 1 && is_float(a) && is_float(r) && dt_bits(r.dt) < dt_bits(a.dt) &&
                 (r.dt == DT_FP32 || r.dt == DT_FP16 || r.dt == DT_BF16 || r.dt == DT_FP8E5),
             "rtz rounds only a float to a narrower fp32, fp16, bf16 or fp8e5%s", "");
}

static void check_addptr(Verifier *V, OpId id, const IrOp *op) {
    IrType p = T(V, op->operands[0]), o = T(V, op->operands[1]);
    if (!need(V, id, p.dt == DT_PTR && is_int(o), "needs a pointer and an integer offset%s", ""))
        return;
    need(V, id, ty_same_shape(p, o), "pointer and offset shapes differ%s", "");
    same(V, id, T(V, op->results[0]), p, "result must have the pointer's type");
}

static void check_splat(Verifier *V, OpId id, const IrOp *op) {
    IrType a = T(V, op->operands[0]), r = T(V, op->results[0]);
    need(V, id, a.rank == 0 && r.rank > 0, "splats a scalar to a block%s", "");
    need(V, id, same_elem(a, r), "element types differ%s", "");
}

static void check_broadcast(Verifier *V, OpId id, const IrOp *op) {
    IrType a = T(V, op->operands[0]), r = T(V, op->results[0]);
    need(V, id, same_elem(a, r), "element types differ%s", "");
    if (!need(V, id, a.rank == r.rank, "operand and result ranks differ%s", "")) return;
    for (int i = 0; i < a.rank; i++)
        if (a.shape[i] != r.shape[i] && a.shape[i] != 1) {
            op_error(V, id, "cannot broadcast %s to %s", tn(a).s, tn(r).s);
            return;
        }
}

static void check_expand_dims(Verifier *V, OpId id, const IrOp *op) {
    IrType a = T(V, op->operands[0]), r = T(V, op->results[0]);
    int64_t axis = op->attr[0];
    need(V, id, same_elem(a, r), "element types differ%s", "");
    if (!need(V, id, axis >= 0 && axis <= a.rank && a.rank < NR_MAX_RANK, "axis out of range%s",
              ""))
        return;
    IrType want = a;
    memmove(want.shape + axis + 1, want.shape + axis, sizeof(int32_t) * (size_t)(a.rank - axis));
    want.shape[axis] = 1;
    want.rank++;
    need(V, id, ty_same_shape(want, r), "result must be the operand's shape with a 1 at axis%s",
         "");
}

static void check_reshape(Verifier *V, OpId id, const IrOp *op) {
    IrType a = T(V, op->operands[0]), r = T(V, op->results[0]);
    need(V, id, same_elem(a, r), "element types differ%s", "");
    need(V, id, ty_numel(a) == ty_numel(r), "element counts differ%s", "");
}

static bool is_buffer(IrType t) { return t.dt == DT_SMEM; }

/* A block of the buffer's elements and tile shape. */
static IrType tile_of(IrType buf) { return ty_block(ty_scalar(buf.pointee), buf.rank, buf.shape); }

static bool one_stage(Verifier *V, OpId id, IrType buf) {
    if (!need(V, id, is_buffer(buf), "operand #0 must be a shared-memory buffer%s", ""))
        return false;
    return need(V, id, buf.stages == 1, "needs a one-stage buffer (a local_view of a ring)%s", "");
}

static void check_trans(Verifier *V, OpId id, const IrOp *op) {
    IrType a = T(V, op->operands[0]), r = T(V, op->results[0]);
    if (is_buffer(a) || is_buffer(r)) { /* a transposed view of one tile of a buffer */
        if (!need(V, id,
                  is_buffer(a) && is_buffer(r) && a.pointee == r.pointee && a.stages == 1 &&
                      r.stages == 1,
                  "a transposed buffer is one tile of the same element type%s", ""))
            return;
        a.dt = r.dt = a.pointee; /* the tile shapes checked below */
    }
    need(V, id, same_elem(a, r), "element types differ%s", "");
    if (!need(V, id, a.rank > 0 && r.rank == a.rank, "needs blocks of one rank%s", "")) return;
    bool used[NR_MAX_RANK] = {false};
    for (int i = 0; i < a.rank; i++) {
        int64_t p = op->attr[i];
        if (p < 0 || p >= a.rank || used[p]) {
            op_error(V, id, "perm is not a permutation of 0..%d", a.rank - 1);
            return;
        }
        used[p] = true;
        if (r.shape[i] != a.shape[p]) {
            op_error(V, id, "result dim %d must be operand dim %lld", i, (long long)p);
            return;
        }
    }
}

static void check_reduce(Verifier *V, OpId id, const IrOp *op) {
    IrType a = T(V, op->operands[0]), r = T(V, op->results[0]);
    int64_t kind = op->attr[0], axis = op->attr[1];
    if (!need(V, id, ir_attr_enum_name(IR_ATTR_RED, kind) != NULL, "bad reduction kind%s", ""))
        return;
    if (!need(V, id, a.rank > 0 && axis >= 0 && axis < a.rank, "axis out of range%s", "")) return;
    need(V, id, a.dt != DT_PTR, "cannot reduce pointers%s", "");
    IrType want = a;
    memmove(want.shape + axis, want.shape + axis + 1,
            sizeof(int32_t) * (size_t)(a.rank - axis - 1));
    want.rank--;
    if (kind == RED_ARGMAX || kind == RED_ARGMIN) want = ty_with_elem(want, ty_scalar(DT_I32));
    same(V, id, r, want, "result must be the operand without axis");
}

/* scan and reduce_fn: n operands of one shape, their results, and the combine region's
 * 2n scalar arguments (its yield is checked by walk_regions) */
static void check_combine(Verifier *V, OpId id, const IrOp *op) {
    IrType a = T(V, op->operands[0]);
    int64_t axis = op->attr[0];
    uint32_t n = op->nopnds;
    if (!need(V, id, a.rank > 0 && axis >= 0 && axis < a.rank, "axis out of range%s", "")) return;
    if (op->code == OP_SCAN)
        need(V, id, op->attr[1] == 0 || op->attr[1] == 1, "reverse must be 0 or 1%s", "");
    if (op->nres != n) {
        op_error(V, id, "has %u operands but %u results", n, op->nres);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        IrType x = T(V, op->operands[i]);
        if (!need(V, id, ty_same_shape(x, a), "operands differ in shape%s", "")) return;
        need(V, id, is_int(x) || is_float(x), "cannot combine %s", dt_name(x.dt));
        IrType want = x;
        if (op->code == OP_REDUCE_FN) {
            memmove(want.shape + axis, want.shape + axis + 1,
                    sizeof(int32_t) * (size_t)(x.rank - axis - 1));
            want.rank--;
        }
        same(V, id, T(V, op->results[i]), want,
             op->code == OP_SCAN ? "result must have the operand's type"
                                 : "result must be the operand without axis");
    }
    if (!valid_region(V->f, op->region[0])) return;
    const IrRegion *r = &V->f->regions[op->region[0]];
    if (r->nargs != 2 * n) {
        op_error(V, id, "the combine region has %u arguments, expected %u", r->nargs, 2 * n);
        return;
    }
    for (uint32_t i = 0; i < 2 * n; i++)
        if (typed_val(V, r->args[i]))
            same(V, id, T(V, r->args[i]), ty_elem(T(V, op->operands[i % n])),
                 "combine argument and operand element types differ");
    for (uint32_t i = 0; i < r->nops; i++) {
        OpId k = r->ops[i];
        if (k == 0 || k >= V->f->nops) continue; /* reported by the walk */
        const IrOp *o = &V->f->ops[k];
        bool ok = o->code == OP_YIELD || o->code == OP_CALL ||
                  (o->code == OP_INLINE_ASM && o->attr[0]) || /* pure inline assembly */
                  (o->code < OP_COUNT && (ir_op_info[o->code].flags & F_PURE) && !o->nregions);
        if (!ok) {
            op_error(V, id,
                     "the combine region holds '%s': only pure ops without regions (pure "
                     "inline_asm among them; and calls before inlining)",
                     o->code < OP_COUNT ? ir_op_info[o->code].name : "?");
            return;
        }
    }
}

/* flip, sort, gather, histogram */
static void check_perm(Verifier *V, OpId id, const IrOp *op) {
    IrType x = T(V, op->operands[0]), r = T(V, op->results[0]);
    int64_t axis = op->attr[0];
    if (op->code == OP_HISTOGRAM) {
        need(V, id, x.rank == 1 && is_int(x), "histogram counts a 1-D integer block%s", "");
        need(V, id, r.rank == 1 && r.dt == DT_I32, "histogram gives a 1-D i32 block%s", "");
        if (op->nopnds == 2)
            same(V, id, T(V, op->operands[1]), ty_with_elem(x, ty_scalar(DT_I1)),
                 "the mask must be i1 of the input's shape");
        return;
    }
    if (!need(V, id, x.rank > 0 && axis >= 0 && axis < x.rank, "axis out of range%s", "")) return;
    need(V, id, is_int(x) || is_float(x), "needs integers or floats%s", "");
    if (op->code != OP_GATHER) {
        same(V, id, r, x, "result must have the operand's type");
        if (op->code == OP_SORT)
            need(V, id, op->attr[1] == 0 || op->attr[1] == 1, "descending must be 0 or 1%s", "");
        return;
    }
    IrType ix = T(V, op->operands[1]);
    if (!need(V, id, is_int(ix) && ix.rank == x.rank,
              "the index must be an integer block of the source's rank%s", ""))
        return;
    for (int d = 0; d < x.rank; d++)
        if (d != axis && ix.shape[d] != x.shape[d]) {
            op_error(V, id, "the index's dim %d differs from the source's", d);
            return;
        }
    same(V, id, r, ty_with_elem(ix, ty_elem(x)),
         "result must have the index's shape and the source's dtype");
}

/* inline_asm: operands and results of one shape, a pack that divides it, one constraint
 * per register */
static void check_inline_asm(Verifier *V, OpId id, const IrOp *op) {
    IrType a = T(V, op->operands[0]);
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (!need(V, id, ty_same_shape(T(V, op->operands[i]), a), "operands differ in shape%s", ""))
            return;
    if (!need(V, id, op->nres >= 1, "needs a result%s", "")) return;
    for (uint32_t i = 0; i < op->nres; i++) {
        IrType r = T(V, op->results[i]);
        need(V, id, ty_same_shape(r, a) && r.dt != DT_PTR && r.dt != DT_I1,
             "results must be numbers of the operands' shape%s", "");
    }
    if (op->nopnds > IR_ASM_MAX_ARGS || op->nres > IR_ASM_MAX_RESULTS)
        op_error(V, id, "takes at most %d operands and %d results", IR_ASM_MAX_ARGS,
                 IR_ASM_MAX_RESULTS);
    int64_t p = op->attr[1];
    bool pack_ok = need(V, id, p >= 1 && (p & (p - 1)) == 0 && p <= ty_numel(a),
                        "pack must be a power of two up to the element count%s", "");
    const char *nl = op->sattr ? strchr(op->sattr, '\n') : NULL;
    if (!need(V, id, nl != NULL, "asm must be the constraints, a newline, then the assembly%s",
              "") ||
        !pack_ok)
        return;
    int64_t regs = 0; /* one constraint per register: the results', then the operands' */
    for (uint32_t i = 0; i < op->nres + op->nopnds; i++)
        regs += ir_asm_regs(T(V, i < op->nres ? op->results[i] : op->operands[i - op->nres]).dt, p);
    int got = ir_asm_operands(op->sattr, (size_t)(nl - op->sattr));
    if (got != regs)
        op_error(V, id,
                 "the constraints name %d operands, and with pack=%lld the op has %lld registers",
                 got, (long long)p, (long long)regs);
}

static bool dot_input(IrType t) {
    return t.dt == DT_FP16 || t.dt == DT_BF16 || t.dt == DT_FP32 || t.dt == DT_FP64 ||
           t.dt == DT_I8 || dt_is_fp8_ocp(t.dt);
}

/* A dot operand in shared memory (the GPU back end's) reads as the block it holds. */
static IrType as_block(IrType t) {
    if (t.dt != DT_SMEM) return t;
    return ty_block(ty_scalar(t.pointee), t.rank, t.shape);
}

static void check_dot(Verifier *V, OpId id, const IrOp *op) {
    for (int i = 0; i < 2; i++)
        if (T(V, op->operands[i]).dt == DT_SMEM && T(V, op->operands[i]).stages != 1) {
            op_error(V, id, "a shared-memory operand must be one stage (a local_view of a ring)");
            return;
        }
    IrType a = as_block(T(V, op->operands[0])), b = as_block(T(V, op->operands[1])),
           c = T(V, op->operands[2]);
    /* batch dims before M and N: front-end IR only (the GPU splits them first) */
    bool gpu = T(V, op->operands[0]).dt == DT_SMEM || T(V, op->operands[1]).dt == DT_SMEM ||
               op->code == OP_DOT_ASYNC;
    if (!need(V, id,
              a.rank >= 2 && a.rank <= (gpu ? 2 : NR_MAX_RANK) && b.rank == a.rank &&
                  c.rank == a.rank,
              "needs operands of one rank, 2 (or more with batch dims first)%s", ""))
        return;
    need(V, id, a.dt == b.dt && dot_input(a),
         "inputs must be fp16, bf16, fp32, fp64, i8, fp8e4nv or fp8e5, both the same%s", "");
    need(V, id,
         c.dt == (a.dt == DT_I8     ? DT_I32
                  : a.dt == DT_FP64 ? DT_FP64
                                    : DT_FP32),
         "the accumulator must be fp32 (i32 for i8 inputs, fp64 for fp64)%s", "");
    int q = a.rank - 2;
    bool batches = true;
    for (int d = 0; d < q; d++) batches &= a.shape[d] == b.shape[d] && a.shape[d] == c.shape[d];
    if (!batches || a.shape[q + 1] != b.shape[q] || c.shape[q] != a.shape[q] ||
        c.shape[q + 1] != b.shape[q + 1])
        op_error(V, id, "shapes %s x %s + %s do not match [M,K] x [K,N] + [M,N]%s", tn(a).s,
                 tn(b).s, tn(c).s, q ? " (after equal batch dims)" : "");
    same(V, id, T(V, op->results[0]), c, "result must have the accumulator's type");
    need(V, id, ir_attr_enum_name(IR_ATTR_PREC, op->attr[0]) != NULL, "bad precision%s", "");
    if (op->nopnds == 4)
        same(V, id, T(V, op->operands[3]), ty_scalar(DT_I1), "use_acc must be an i1 scalar");
}

/* Operand i, when present, must be an i1 mask of the pointer's shape. */
static void check_mask(Verifier *V, OpId id, const IrOp *op, uint32_t i, IrType p) {
    if (i < op->nopnds)
        same(V, id, T(V, op->operands[i]), ty_with_elem(p, ty_scalar(DT_I1)),
             "mask must be i1 of the pointer's shape");
}

static bool i32_scalar(Verifier *V, ValId v) { return ty_equal(T(V, v), ty_scalar(DT_I32)); }

/* desc_load (d, offsets), desc_store (d, offsets, x), desc_part (d), tma_load (d, bar, buf,
 * offsets), tma_store (d, buf, offsets): the descriptor first, one i32 offset per dim. */
static void check_desc(Verifier *V, OpId id, const IrOp *op) {
    IrType d = T(V, op->operands[0]);
    if (!need(V, id, d.dt == DT_TDESC, "operand #0 must be a tensor descriptor%s", "")) return;
    IrType tile = ty_block(ty_scalar(d.pointee), d.rank, d.shape);
    uint32_t first = op->code == OP_TMA_LOAD ? 3 : op->code == OP_TMA_STORE ? 2 : 1;
    uint32_t noff = op->code == OP_DESC_PART ? 0 : (uint32_t)d.rank;
    uint32_t extra = op->code == OP_DESC_STORE ? 1 : 0;
    if (op->code != OP_DESC_PART && !need(V, id, op->nopnds == first + noff + extra,
                                          "needs one offset per dim of the descriptor%s", ""))
        return;
    for (uint32_t i = 0; i < noff; i++)
        if (!need(V, id, i32_scalar(V, op->operands[first + i]), "offsets must be i32 scalars%s",
                  ""))
            return;
    switch (op->code) {
    case OP_DESC_LOAD:
        same(V, id, T(V, op->results[0]), tile, "result must be a block of the descriptor's tile");
        break;
    case OP_DESC_STORE:
        same(V, id, T(V, op->operands[first + noff]), tile,
             "stored value must be a block of the descriptor's tile");
        break;
    case OP_DESC_PART: {
        int64_t part = op->attr[0];
        if (!need(V, id, part >= 0 && part <= 2 * d.rank + 1,
                  "part must be from 0 to 2 x rank + 1%s", ""))
            break;
        same(V, id, T(V, op->results[0]), part ? ty_scalar(DT_I64) : ty_ptr(d.pointee),
             "result must be the base pointer (part 0) or an i64 (sizes, strides, padding)");
        break;
    }
    case OP_TMA_LOAD:
        if (!need(V, id,
                  is_buffer(T(V, op->operands[1])) && T(V, op->operands[1]).pointee == DT_I64,
                  "operand #1 must be an mbarrier (an i64 buffer)%s", ""))
            break;
        if (!need(V, id, is_buffer(T(V, op->operands[2])),
                  "operand #2 must be a shared-memory buffer%s", ""))
            break;
        /* a buffer of the tile but for unit dims gets the same bytes (a [1, M, K] box lands
         * as an [M, K] tile: the pipeliner's rings of reshaped loads) */
        if (one_stage(V, id, T(V, op->operands[1])) &&
            need(V, id, T(V, op->operands[2]).stages == 1, "needs a one-stage buffer%s", "") &&
            !ty_same_but_unit_dims(tile_of(T(V, op->operands[2])), tile))
            same(V, id, tile_of(T(V, op->operands[2])), tile,
                 "the buffer must hold the descriptor's tile");
        break;
    default: /* tma_store */
        if (!need(V, id, is_buffer(T(V, op->operands[1])),
                  "operand #1 must be a shared-memory buffer%s", ""))
            break;
        if (need(V, id, T(V, op->operands[1]).stages == 1, "needs a one-stage buffer%s", ""))
            same(V, id, tile_of(T(V, op->operands[1])), tile,
                 "the buffer must hold the descriptor's tile");
    }
}

/* mbarrier_init / expect / wait / inval / arrive: operand #0 a one-stage i64 buffer of one
 * element. */
static void check_mbarrier(Verifier *V, OpId id, const IrOp *op) {
    IrType b = T(V, op->operands[0]);
    if (!one_stage(V, id, b)) return;
    if (!need(V, id, b.pointee == DT_I64 && b.rank == 1 && b.shape[0] == 1,
              "an mbarrier is a buffer of one i64%s", ""))
        return;
    if (op->code == OP_MBARRIER_INIT)
        need(V, id, op->attr[0] >= 1 && op->attr[0] <= 1024, "count must be from 1 to 1024%s", "");
    if (op->code == OP_MBARRIER_EXPECT)
        need(V, id, op->attr[0] >= 0 && op->attr[0] < (1 << 20),
             "bytes must be from 0 to 2^20 - 1%s", "");
    if (op->code == OP_MBARRIER_WAIT)
        need(V, id, i32_scalar(V, op->operands[1]), "the phase must be an i32 scalar%s", "");
}

static void check_memory(Verifier *V, OpId id, const IrOp *op) {
    IrType p = T(V, op->operands[0]);
    if (!need(V, id, p.dt == DT_PTR, "operand #0 must be a pointer%s", "")) return;
    IrType v = pointee_of(p);
    switch (op->code) {
    case OP_LOAD:
        same(V, id, T(V, op->results[0]), v, "result must be the pointee type");
        check_mask(V, id, op, 1, p);
        if (op->nopnds == 3)
            same(V, id, T(V, op->operands[2]), v, "other must be the pointee type");
        need(V, id, ir_attr_enum_name(IR_ATTR_LDCACHE, op->attr[0]) != NULL, "bad cache modifier%s",
             "");
        need(V, id, ir_attr_enum_name(IR_ATTR_EVICT, op->attr[1]) != NULL, "bad eviction policy%s",
             "");
        break;
    case OP_STORE:
        same(V, id, T(V, op->operands[1]), v, "stored value must be the pointee type");
        check_mask(V, id, op, 2, p);
        need(V, id, ir_attr_enum_name(IR_ATTR_STCACHE, op->attr[0]) != NULL, "bad cache modifier%s",
             "");
        need(V, id, ir_attr_enum_name(IR_ATTR_EVICT, op->attr[1]) != NULL, "bad eviction policy%s",
             "");
        break;
    case OP_ATOMIC_RMW:
        same(V, id, T(V, op->operands[1]), v, "value must be the pointee type");
        check_mask(V, id, op, 2, p);
        same(V, id, T(V, op->results[0]), v, "result must be the pointee type");
        need(V, id, ir_attr_enum_name(IR_ATTR_RMW, op->attr[0]) != NULL, "bad rmw kind%s", "");
        break;
    default: /* atomic_cas */
        same(V, id, T(V, op->operands[1]), v, "compare value must be the pointee type");
        same(V, id, T(V, op->operands[2]), v, "value must be the pointee type");
        same(V, id, T(V, op->results[0]), v, "result must be the pointee type");
    }
    if (op->code == OP_ATOMIC_RMW || op->code == OP_ATOMIC_CAS) {
        int s = ir_atomic_sem_slot(op->code);
        need(V, id, ir_attr_enum_name(IR_ATTR_SEM, op->attr[s]) != NULL, "bad memory semantics%s",
             "");
        need(V, id, ir_attr_enum_name(IR_ATTR_SCOPE, op->attr[s + 1]) != NULL, "bad scope%s", "");
    }
}

static void check_region_args(Verifier *V, OpId id, RegionId r, const ValId *tys_of, uint32_t n,
                              uint32_t skip) {
    if (!valid_region(V->f, r)) return; /* reported by the walk */
    const IrRegion *reg = &V->f->regions[r];
    if (reg->nargs != n + skip) {
        op_error(V, id, "region has %u arguments, expected %u", reg->nargs, n + skip);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        ValId a = reg->args[i + skip];
        if (typed_val(V, a)) same(V, id, T(V, a), T(V, tys_of[i]), "region argument type differs");
    }
}

static void check_for(Verifier *V, OpId id, const IrOp *op) {
    IrType lb = T(V, op->operands[0]);
    uint32_t n = op->nopnds - 3;
    if (!need(V, id, lb.rank == 0 && is_int(lb) && !is_i1(lb), "bounds must be integer scalars%s",
              ""))
        return;
    same(V, id, T(V, op->operands[1]), lb, "bounds differ in type");
    same(V, id, T(V, op->operands[2]), lb, "step and bounds differ in type");
    need(V, id, op->attr[0] == 0 || option_valid(OPT_NUM_STAGES, op->attr[0]),
         "num_stages must be 0 (the kernel's) or %s", option_info(OPT_NUM_STAGES)->range);
    if (op->nres != n) {
        op_error(V, id, "has %u inits but %u results", n, op->nres);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        same(V, id, T(V, op->results[i]), T(V, op->operands[3 + i]),
             "result and init types differ");
    if (!valid_region(V->f, op->region[0])) return;
    const IrRegion *body = &V->f->regions[op->region[0]];
    if (body->nargs != n + 1) {
        op_error(V, id, "body has %u arguments, expected %u", body->nargs, n + 1);
        return;
    }
    if (typed_val(V, body->args[0]))
        same(V, id, T(V, body->args[0]), lb, "induction variable and bounds differ in type");
    check_region_args(V, id, op->region[0], op->operands + 3, n, 1);
}

static void check_if(Verifier *V, OpId id, const IrOp *op) {
    IrType c = T(V, op->operands[0]);
    need(V, id, is_i1(c) && c.rank == 0, "condition must be an i1 scalar%s", "");
    for (int r = 0; r < 2; r++) check_region_args(V, id, op->region[r], NULL, 0, 0);
}

static void check_while(Verifier *V, OpId id, const IrOp *op) {
    if (op->nres != op->nopnds) {
        op_error(V, id, "has %u inits but %u results", op->nopnds, op->nres);
        return;
    }
    for (uint32_t i = 0; i < op->nres; i++)
        same(V, id, T(V, op->results[i]), T(V, op->operands[i]), "result and init types differ");
    for (int r = 0; r < 2; r++)
        check_region_args(V, id, op->region[r], op->operands, op->nopnds, 0);
}

static void check_call(Verifier *V, OpId id, const IrOp *op) {
    const IrFunc *g = op->sattr ? ir_module_find(V->m, op->sattr) : NULL;
    if (!g) {
        op_error(V, id, "no function named '%s'", op->sattr ? op->sattr : "");
        return;
    }
    if (g->is_kernel) op_error(V, id, "cannot call kernel '@%s'", g->name);
    if (!valid_region(g, g->body)) return; /* reported with the callee */
    const IrRegion *params = &g->regions[g->body];
    if (params->nargs != op->nopnds || g->nresults != op->nres) {
        op_error(V, id, "'@%s' takes %u arguments and gives %u results; called with %u and %u",
                 g->name, params->nargs, g->nresults, op->nopnds, op->nres);
        return;
    }
    for (uint32_t i = 0; i < op->nopnds; i++) {
        ValId p = params->args[i];
        if (p > 0 && p < g->nvals && !type_problem(g->vals[p].ty))
            same(V, id, T(V, op->operands[i]), g->vals[p].ty,
                 "argument type differs from the parameter's");
    }
    for (uint32_t i = 0; i < op->nres; i++)
        if (!type_problem(g->result_types[i]))
            same(V, id, T(V, op->results[i]), g->result_types[i],
                 "result type differs from the callee's");
}

static void check_hint(Verifier *V, OpId id, const IrOp *op) {
    IrType a = T(V, op->operands[0]);
    same(V, id, T(V, op->results[0]), a, "result must have the operand's type");
    for (int i = 0; i < ir_ints_len(a.rank); i++)
        if (op->attr[i] <= 0) {
            op_error(V, id, "hint values must be positive");
            return;
        }
}

static void check_misc(Verifier *V, OpId id, const IrOp *op) {
    switch (op->code) {
    case OP_CONVERT_LAYOUT:
        same(V, id, T(V, op->results[0]), T(V, op->operands[0]),
             "convert_layout keeps the type (only the layout changes)");
        break;
    case OP_CONST:
        need(V, id, T(V, op->results[0]).dt != DT_PTR, "pointer constants are not supported%s", "");
        break;
    case OP_ARANGE: {
        IrType r = T(V, op->results[0]);
        int64_t s = op->attr[0], e = op->attr[1];
        need(V, id, r.rank == 1 && r.dt == DT_I32, "result must be a rank-1 i32 block%s", "");
        if (s < INT32_MIN || e > INT32_MAX || e <= s || (r.rank == 1 && r.shape[0] != e - s))
            op_error(V, id, "range [%lld, %lld) does not match %s", (long long)s, (long long)e,
                     tn(r).s);
        break;
    }
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS:
        need(V, id, ty_equal(T(V, op->results[0]), ty_scalar(DT_I32)), "result must be i32%s", "");
        need(V, id, op->attr[0] >= 0 && op->attr[0] <= 2, "axis must be 0, 1 or 2%s", "");
        break;
    case OP_SMID:
    case OP_GLOBALTIMER:
        need(V, id,
             ty_equal(T(V, op->results[0]), ty_scalar(op->code == OP_SMID ? DT_I32 : DT_I64)),
             "result must be an %s scalar", op->code == OP_SMID ? "i32" : "i64");
        break;
    case OP_ASSERT: need(V, id, is_i1(T(V, op->operands[0])), "condition must be i1%s", ""); break;
    case OP_ASSUME:
        need(V, id, ty_equal(T(V, op->operands[0]), ty_scalar(DT_I1)),
             "condition must be an i1 scalar%s", "");
        break;
    case OP_PRINT:
        need(V, id, op->attr[0] == 0 || op->attr[0] == 1, "hex must be 0 or 1%s", "");
        break;
    default: break;
    }
}

/* ---- the GPU back end's shared-memory ops ---- */

static void check_local(Verifier *V, OpId id, const IrOp *op) {
    switch (op->code) {
    case OP_LOCAL_ALLOC: {
        IrType r = T(V, op->results[0]);
        if (!need(V, id, is_buffer(r), "result must be a shared-memory buffer%s", "")) return;
        if (op->nopnds) {
            need(V, id, r.stages == 1, "an initialised buffer has one stage%s", "");
            same(V, id, T(V, op->operands[0]), tile_of(r),
                 "init must be a block of the buffer's tile");
        }
        return;
    }
    case OP_LOCAL_VIEW: {
        IrType b = T(V, op->operands[0]), r = T(V, op->results[0]);
        if (!need(V, id, is_buffer(b), "operand #0 must be a shared-memory buffer%s", "")) return;
        need(V, id, ty_equal(T(V, op->operands[1]), ty_scalar(DT_I32)),
             "the stage index must be an i32 scalar%s", "");
        IrType want = b;
        want.stages = 1;
        same(V, id, r, want, "result must be one stage of the buffer");
        return;
    }
    case OP_LOCAL_STORE:
        if (one_stage(V, id, T(V, op->operands[0])))
            same(V, id, T(V, op->operands[1]), tile_of(T(V, op->operands[0])),
                 "value must be a block of the buffer's tile");
        return;
    case OP_LOCAL_LOAD:
        if (one_stage(V, id, T(V, op->operands[0])))
            same(V, id, T(V, op->results[0]), tile_of(T(V, op->operands[0])),
                 "result must be a block of the buffer's tile");
        return;
    case OP_ASYNC_COPY: {
        IrType b = T(V, op->operands[0]), p = T(V, op->operands[1]);
        if (!one_stage(V, id, b)) return;
        if (!need(V, id, p.dt == DT_PTR && p.rank > 0, "operand #1 must be a block of pointers%s",
                  ""))
            return;
        same(V, id, pointee_of(p), tile_of(b), "the pointers must point to the buffer's tile");
        check_mask(V, id, op, 2, p);
        return;
    }
    case OP_ASYNC_WAIT:
    case OP_DOT_WAIT:
    case OP_TMA_STORE_WAIT:
        need(V, id, op->attr[0] >= 0 && op->attr[0] <= 64, "pending must be from 0 to 64%s", "");
        if (op->code == OP_DOT_WAIT) {
            if (!need(V, id, op->nres == op->nopnds, "gives back each of its operands%s", ""))
                return;
            for (uint32_t i = 0; i < op->nres; i++)
                same(V, id, T(V, op->results[i]), T(V, op->operands[i]),
                     "result and operand types differ");
        }
        return;
    default: return; /* async_commit, fence_async */
    }
}

/* Buffers flow only into the ops made for them. */
static bool takes_buffers(int code) {
    return code == OP_LOCAL_VIEW || code == OP_TRANS || code == OP_LOCAL_STORE ||
           code == OP_LOCAL_LOAD || code == OP_ASYNC_COPY || code == OP_DOT ||
           code == OP_DOT_ASYNC || code == OP_TMA_LOAD || code == OP_TMA_STORE ||
           code == OP_MBARRIER_INIT || code == OP_MBARRIER_EXPECT || code == OP_MBARRIER_WAIT ||
           code == OP_MBARRIER_INVAL || code == OP_MBARRIER_ARRIVE;
}

/* Descriptors are parameters (of kernels, and of helpers before inlining), used only by
 * the ops that read them; before inlining a helper may also return one it was given or
 * made (Triton's tutorial attention passes `desc_or_ptr` through such a helper). */
static bool takes_desc(int code) {
    return code == OP_DESC_LOAD || code == OP_DESC_STORE || code == OP_DESC_PART ||
           code == OP_TMA_LOAD || code == OP_TMA_STORE;
}

static bool check_desc_uses(Verifier *V, OpId id, const IrOp *op) {
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (T(V, op->operands[i]).dt == DT_TDESC && op->code != OP_CALL && op->code != OP_RETURN &&
            (i != 0 || !takes_desc(op->code)))
            return op_error(
                V, id,
                "operand #%u is a tensor descriptor, which only desc_load, desc_store, desc_part, "
                "tma_load and tma_store take (as operand #0), calls and returns",
                i);
    for (uint32_t i = 0; i < op->nres; i++)
        if (T(V, op->results[i]).dt == DT_TDESC && op->code != OP_CALL)
            return op_error(V, id,
                            "result #%u is a tensor descriptor: descriptors are parameters, or "
                            "a helper's result before inlining",
                            i);
    return true;
}

static bool check_buffer_uses(Verifier *V, OpId id, const IrOp *op) {
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (is_buffer(T(V, op->operands[i])) && !takes_buffers(op->code))
            return op_error(
                V, id,
                "operand #%u is a shared-memory buffer, which only local_view, trans, local_store, "
                "local_load, async_copy, dot, dot_async, the mbarrier ops, tma_load and tma_store "
                "take",
                i);
    for (uint32_t i = 0; i < op->nres; i++)
        if (is_buffer(T(V, op->results[i])) && op->code != OP_LOCAL_ALLOC &&
            op->code != OP_LOCAL_VIEW && op->code != OP_TRANS)
            return op_error(V, id,
                            "result #%u is a shared-memory buffer, which only local_alloc, "
                            "local_view and trans make",
                            i);
    return true;
}

/* fp8 values are stored data: they are loaded, stored, converted, selected, moved (shape
 * ops, control flow, calls) and fed to dot, never computed on (the front end computes in
 * fp32 and converts back). A pointer to fp8 is an ordinary pointer. */
static bool takes_fp8(int code) {
    switch (code) {
    case OP_CONST:
    case OP_LOAD:
    case OP_STORE:
    case OP_DESC_LOAD:
    case OP_DESC_STORE:
    case OP_CVT:
    case OP_BITCAST:
    case OP_SELECT:
    case OP_SPLAT:
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
    case OP_RESHAPE:
    case OP_TRANS:
    case OP_CONVERT_LAYOUT:
    case OP_DOT:
    case OP_DOT_ASYNC:
    case OP_DOT_WAIT:
    case OP_LOCAL_ALLOC:
    case OP_LOCAL_STORE:
    case OP_LOCAL_LOAD:
    case OP_FOR:
    case OP_IF:
    case OP_WHILE:
    case OP_YIELD:
    case OP_CALL:
    case OP_RETURN:
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS:
    case OP_MAX_CONSTANCY: return true;
    default: return false;
    }
}

static bool check_fp8_uses(Verifier *V, OpId id, const IrOp *op) {
    if (takes_fp8(op->code)) return true;
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (dt_is_fp8(T(V, op->operands[i]).dt))
            return op_error(V, id,
                            "operand #%u is %s: fp8 values are only loaded, stored, converted, "
                            "selected and moved "
                            "(compute in fp32)",
                            i, dt_name(T(V, op->operands[i]).dt));
    for (uint32_t i = 0; i < op->nres; i++)
        if (dt_is_fp8(T(V, op->results[i]).dt))
            return op_error(V, id,
                            "result #%u is %s: fp8 values are only loaded, stored, converted, "
                            "selected and moved "
                            "(compute in fp32)",
                            i, dt_name(T(V, op->results[i]).dt));
    return true;
}

static void check_types(Verifier *V, OpId id, const IrOp *op) {
    if (!check_buffer_uses(V, id, op) || !check_fp8_uses(V, id, op) || !check_desc_uses(V, id, op))
        return;
    switch (op->code) {
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_MIN:
    case OP_MAX:
    case OP_NEG:
    case OP_ABS: check_uniform(V, id, op, arith_dt, "integer or float"); break;
    case OP_REM: check_uniform(V, id, op, arith_dt, "integer or float"); break;
    case OP_IDIV:
    case OP_AND:
    case OP_OR:
    case OP_XOR:
    case OP_SHL:
    case OP_SHR:
    case OP_UMULHI:
    case OP_NOT: check_uniform(V, id, op, is_int, "integer"); break;
    case OP_DIV:
    case OP_DIV_RN:
    case OP_FMA:
    case OP_EXP:
    case OP_EXP2:
    case OP_LOG:
    case OP_LOG2:
    case OP_SQRT:
    case OP_RSQRT:
    case OP_SIN:
    case OP_COS:
    case OP_FLOOR:
    case OP_CEIL: check_uniform(V, id, op, is_float, "float"); break;
    case OP_MATH:
        if (!need(V, id, op->attr[0] >= 0 && op->attr[0] < MATH_COUNT, "bad math function%s", ""))
            break;
        if (!need(V, id, op->nopnds == (uint32_t)ir_mathfn_info[op->attr[0]].nargs,
                  "wrong operand count for %s", ir_mathfn_info[op->attr[0]].name))
            break;
        check_uniform(V, id, op, is_float, "float");
        break;
    case OP_CMP: check_cmp(V, id, op); break;
    case OP_SELECT: check_select(V, id, op); break;
    case OP_CVT:
    case OP_BITCAST: check_cast(V, id, op); break;
    case OP_ADDPTR: check_addptr(V, id, op); break;
    case OP_SPLAT: check_splat(V, id, op); break;
    case OP_BROADCAST: check_broadcast(V, id, op); break;
    case OP_EXPAND_DIMS: check_expand_dims(V, id, op); break;
    case OP_RESHAPE: check_reshape(V, id, op); break;
    case OP_TRANS: check_trans(V, id, op); break;
    case OP_REDUCE: check_reduce(V, id, op); break;
    case OP_SCAN:
    case OP_REDUCE_FN: check_combine(V, id, op); break;
    case OP_FLIP:
    case OP_SORT:
    case OP_GATHER:
    case OP_HISTOGRAM: check_perm(V, id, op); break;
    case OP_INLINE_ASM: check_inline_asm(V, id, op); break;
    case OP_DOT:
    case OP_DOT_ASYNC: check_dot(V, id, op); break;
    case OP_LOAD:
    case OP_STORE:
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: check_memory(V, id, op); break;
    case OP_DESC_LOAD:
    case OP_DESC_STORE:
    case OP_DESC_PART:
    case OP_TMA_LOAD:
    case OP_TMA_STORE: check_desc(V, id, op); break;
    case OP_MBARRIER_INIT:
    case OP_MBARRIER_EXPECT:
    case OP_MBARRIER_WAIT:
    case OP_MBARRIER_INVAL:
    case OP_MBARRIER_ARRIVE: check_mbarrier(V, id, op); break;
    case OP_TMA_STORE_WAIT: check_local(V, id, op); break;
    case OP_LOCAL_ALLOC:
    case OP_LOCAL_VIEW:
    case OP_LOCAL_STORE:
    case OP_LOCAL_LOAD:
    case OP_ASYNC_COPY:
    case OP_ASYNC_COMMIT:
    case OP_ASYNC_WAIT:
    case OP_FENCE_ASYNC:
    case OP_DOT_WAIT: check_local(V, id, op); break;
    case OP_FOR: check_for(V, id, op); break;
    case OP_IF: check_if(V, id, op); break;
    case OP_WHILE: check_while(V, id, op); break;
    case OP_CALL: check_call(V, id, op); break;
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS:
    case OP_MAX_CONSTANCY: check_hint(V, id, op); break;
    default: check_misc(V, id, op);
    }
}

/* ---- arity ---- */

static void operand_range(int code, uint32_t *lo, uint32_t *hi) {
    int n = ir_op_info[code].nopnds;
    *lo = *hi = (uint32_t)n;
    switch (code) {
    case OP_LOAD: *lo = 1, *hi = 3; break;
    case OP_MATH: *lo = 1, *hi = 2; break;
    case OP_SCAN:
    case OP_REDUCE_FN: *lo = 1, *hi = 16; break;
    case OP_HISTOGRAM: *lo = 1, *hi = 2; break;
    case OP_INLINE_ASM: *lo = 1, *hi = 64; break;
    case OP_STORE:
    case OP_ATOMIC_RMW: *lo = 2, *hi = 3; break;
    case OP_LOCAL_ALLOC: *lo = 0, *hi = 1; break;
    case OP_ASYNC_COPY: *lo = 2, *hi = 3; break;
    case OP_DESC_LOAD: *lo = 2, *hi = 1 + NR_MAX_DESC_RANK; break;
    case OP_DESC_STORE: *lo = 3, *hi = 2 + NR_MAX_DESC_RANK; break;
    case OP_TMA_LOAD: *lo = 4, *hi = 3 + NR_MAX_DESC_RANK; break;
    case OP_TMA_STORE: *lo = 3, *hi = 2 + NR_MAX_DESC_RANK; break;
    case OP_DOT_WAIT: *lo = 1, *hi = UINT32_MAX; break;
    case OP_DOT:
    case OP_DOT_ASYNC: *lo = 3, *hi = 4; break;
    case OP_FOR: *lo = 3, *hi = UINT32_MAX; break;
    default:
        if (n < 0) *lo = 0, *hi = UINT32_MAX;
    }
}

static bool check_arity(Verifier *V, OpId id, const IrOp *op) {
    const OpInfo *info = &ir_op_info[op->code];
    uint32_t lo, hi;
    operand_range(op->code, &lo, &hi);
    bool ok = true;
    if (op->nopnds < lo || op->nopnds > hi) {
        if (lo == hi)
            ok =
                op_error(V, id, "expects %u operand%s, got %u", lo, lo == 1 ? "" : "s", op->nopnds);
        else if (hi == UINT32_MAX)
            ok = op_error(V, id, "expects at least %u operands, got %u", lo, op->nopnds);
        else ok = op_error(V, id, "expects %u to %u operands, got %u", lo, hi, op->nopnds);
    }
    if (info->nresults >= 0 && op->nres != (uint32_t)info->nresults)
        ok = op_error(V, id, "expects %d result%s, got %u", info->nresults,
                      info->nresults == 1 ? "" : "s", op->nres);
    if (op->nregions != info->nregions)
        ok = op_error(V, id, "expects %d region%s, got %u", info->nregions,
                      info->nregions == 1 ? "" : "s", op->nregions);
    return ok;
}

/* ---- walking: scopes and terminators ---- */

static void verify_region(Verifier *V, RegionId rid, OpId parent, const Expect *ex, int depth);

/* Operands: real values in scope. Returns false if rules cannot be applied. */
static bool check_operands(Verifier *V, OpId id, const IrOp *op) {
    bool ok = true;
    for (uint32_t i = 0; i < op->nopnds; i++) {
        ValId v = op->operands[i];
        if (!valid_val(V, v)) ok = op_error(V, id, "operand #%u is not a value", i);
        else if (!V->visible[v])
            ok = op_error(V, id, "operand #%u is not defined before this use (SSA dominance)", i);
        else if (type_problem(T(V, v))) ok = false;
    }
    return ok;
}

static bool check_results(Verifier *V, OpId id, const IrOp *op) {
    bool ok = true;
    for (uint32_t i = 0; i < op->nres; i++) {
        ValId v = op->results[i];
        if (!valid_val(V, v) || V->f->vals[v].is_arg || V->f->vals[v].def != id ||
            V->f->vals[v].index != i)
            ok = op_error(V, id, "result #%u is not linked back to this op", i);
        else if (type_problem(T(V, v))) ok = false;
    }
    return ok;
}

/* Every region of for/if/while ends in a yield of the op's result types, except a
 * while's first, which ends in condition; a scan's or reduce_fn's in a yield of their
 * element types. */
static void walk_regions(Verifier *V, OpId id, int depth) {
    const IrOp *op = &V->f->ops[id];
    uint32_t n = op->nres;
    IrType *tys = calloc(n ? n : 1, sizeof(IrType));
    if (!tys) NR_DIE("out of memory");
    for (uint32_t i = 0; i < n; i++)
        tys[i] = valid_val(V, op->results[i]) ? T(V, op->results[i]) : ty_scalar(DT_VOID);
    if (op->code == OP_SCAN || op->code == OP_REDUCE_FN) /* the combine yields scalars */
        for (uint32_t i = 0; i < n; i++) tys[i] = ty_elem(tys[i]);
    for (uint32_t r = 0; r < op->nregions && r < 2; r++) {
        Expect e = {op->code == OP_WHILE && r == 0 ? OP_CONDITION : OP_YIELD, tys, n};
        verify_region(V, V->f->ops[id].region[r], id, &e, depth + 1);
    }
    free(tys);
}

static void verify_op(Verifier *V, OpId id, RegionId parent_region, int depth) {
    if (id == 0 || id >= V->f->nops) {
        op_error(V, 0, "region lists op id %u, which does not exist", id);
        return;
    }
    if (V->op_seen[id]) {
        op_error(V, id, "appears in more than one place");
        return;
    }
    V->op_seen[id] = 1;
    const IrOp *op = &V->f->ops[id];
    if (op->code >= OP_COUNT) {
        op_error(V, id, "unknown opcode %u", (unsigned)op->code);
        return;
    }
    if (op->parent != parent_region)
        op_error(V, id, "its parent link names region %u, but it is in region %u", op->parent,
                 parent_region);
    bool ok = check_operands(V, id, op);
    ok = check_results(V, id, op) && ok;
    ok = check_arity(V, id, op) && ok;
    if (ok) check_types(V, id, op);
    if (op->nregions == ir_op_info[op->code].nregions) walk_regions(V, id, depth);
    for (uint32_t i = 0; i < op->nres; i++)
        if (valid_val(V, op->results[i])) define(V, id, op->results[i], "result", i);
}

static void check_term_operands(Verifier *V, OpId id, const IrOp *op, const Expect *ex) {
    if (ex->term == OP_CONDITION) {
        if (op->nopnds == 1 && valid_val(V, op->operands[0]))
            need(V, id, ty_equal(T(V, op->operands[0]), ty_scalar(DT_I1)),
                 "condition must be an i1 scalar%s", "");
        return;
    }
    if (op->nopnds != ex->n) {
        op_error(V, id, "gives %u values, expected %u", op->nopnds, ex->n);
        return;
    }
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (typed_val(V, op->operands[i]) && !type_problem(ex->types[i]))
            same(V, id, T(V, op->operands[i]), ex->types[i],
                 "value type differs from the expected result type");
}

/* Exactly one terminator, last, of the kind the region needs. */
static void check_terminator(Verifier *V, RegionId rid, OpId parent, const Expect *ex) {
    const IrRegion *r = &V->f->regions[rid];
    for (uint32_t i = 0; i < r->nops; i++) {
        OpId o = r->ops[i];
        if (o == 0 || o >= V->f->nops || V->f->ops[o].code >= OP_COUNT) return;
        bool last = i + 1 == r->nops;
        if ((ir_op_info[V->f->ops[o].code].flags & F_TERM) && !last)
            op_error(V, o, "a terminator must be the last op of its region");
        if (last && V->f->ops[o].code == ex->term) {
            check_term_operands(V, o, &V->f->ops[o], ex);
            return;
        }
    }
    if (parent) op_error(V, parent, "region must end in '%s'", ir_op_info[ex->term].name);
    else op_error(V, 0, "function body must end in 'return'");
}

static void region_args(Verifier *V, RegionId rid, OpId parent) {
    const IrRegion *r = &V->f->regions[rid];
    for (uint32_t i = 0; i < r->nargs; i++) {
        ValId a = r->args[i];
        if (!valid_val(V, a) || !V->f->vals[a].is_arg || V->f->vals[a].def != rid ||
            V->f->vals[a].index != i) {
            op_error(V, parent, "region argument #%u is not linked back to its region", i);
            continue;
        }
        define(V, parent, a, "region argument", i);
    }
}

/* Values defined in a region go out of scope at its end. */
static void end_scope(Verifier *V, RegionId rid) {
    const IrRegion *r = &V->f->regions[rid];
    for (uint32_t i = 0; i < r->nargs; i++)
        if (valid_val(V, r->args[i])) V->visible[r->args[i]] = 0;
    for (uint32_t i = 0; i < r->nops; i++) {
        OpId o = r->ops[i];
        if (o == 0 || o >= V->f->nops) continue;
        for (uint32_t j = 0; j < V->f->ops[o].nres; j++)
            if (valid_val(V, V->f->ops[o].results[j])) V->visible[V->f->ops[o].results[j]] = 0;
    }
}

static void verify_region(Verifier *V, RegionId rid, OpId parent, const Expect *ex, int depth) {
    if (!valid_region(V->f, rid) || V->region_seen[rid] || depth > MAX_DEPTH) {
        op_error(V, parent, "has a missing, shared or too deeply nested region");
        return;
    }
    V->region_seen[rid] = 1;
    if (V->f->regions[rid].parent_op != parent)
        op_error(V, parent, "region %u does not link back to its op", rid);
    region_args(V, rid, parent);
    for (uint32_t i = 0; i < V->f->regions[rid].nops; i++)
        verify_op(V, V->f->regions[rid].ops[i], rid, depth);
    check_terminator(V, rid, parent, ex);
    end_scope(V, rid);
}

/* ---- functions ---- */

static void verify_signature(Verifier *V) {
    const IrFunc *f = V->f;
    if (f->is_kernel && f->nresults) op_error(V, 0, "a kernel cannot return values");
    const IrRegion *body = valid_region(f, f->body) ? &f->regions[f->body] : NULL;
    for (uint32_t i = 0; body && i < body->nargs;
         i++) { /* buffers are made in the kernel, never passed */
        if (!valid_val(V, body->args[i])) continue;
        IrType t = T(V, body->args[i]);
        if (is_buffer(t))
            op_error(V, 0,
                     "parameter #%u is a shared-memory buffer, which only local_alloc, local_view "
                     "and trans make",
                     i);
        else if (f->is_kernel &&
                 ty_is_block(t)) /* a launch passes scalars: the front end makes blocks inside */
            op_error(
                V, 0,
                "kernel parameter #%u is a block (%s): a kernel takes scalars, pointers and tensor "
                "descriptors, and makes its blocks (splat, arange, load)",
                i, tn(t).s);
    }
    for (uint32_t i = 0; i < f->nresults; i++) {
        const char *why = type_problem(f->result_types[i]);
        if (why)
            op_error(V, 0, "result type #%u %s is invalid: %s", i, tn(f->result_types[i]).s, why);
    }
}

static void verify_func(Verifier *V, const IrFunc *f) {
    V->f = f;
    V->visible = calloc(f->nvals ? f->nvals : 1, 1);
    V->defined = calloc(f->nvals ? f->nvals : 1, 1);
    V->op_seen = calloc(f->nops ? f->nops : 1, 1);
    V->region_seen = calloc(f->nregions ? f->nregions : 1, 1);
    if (!V->visible || !V->defined || !V->op_seen || !V->region_seen) NR_DIE("out of memory");
    verify_signature(V);
    Expect ex = {OP_RETURN, f->result_types, f->nresults};
    verify_region(V, f->body, 0, &ex, 0);
    free(V->visible);
    free(V->defined);
    free(V->op_seen);
    free(V->region_seen);
}

bool ir_verify_module(const IrModule *m, StrBuf *err) {
    Verifier V;
    memset(&V, 0, sizeof V);
    V.m = m;
    V.err = err;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        verify_func(&V, m->funcs[i]);
        /* the module's name map holds the first function of each name */
        if (ir_module_find(m, m->funcs[i]->name) != m->funcs[i])
            op_error(&V, 0, "function defined twice");
    }
    if (V.nerrors > MAX_ERRORS)
        sb_printf(err, "verifier: %d more errors\n", V.nerrors - MAX_ERRORS);
    /* layouts are looked at only in IR whose types and scopes are sound */
    if (V.nerrors == 0 && (m->gpu.arch || m->gpu.num_warps)) return ir_verify_gpu(m, err);
    return V.nerrors == 0;
}
