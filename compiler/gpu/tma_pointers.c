/* tma_pointers.c - pointer loads that feed dots in pipelined loops become TMA copies,
 * through tensor maps the launcher builds from the kernel's arguments (sm_90a).
 *
 * Requires:  the front of the GPU pipeline (specialised: parameters equal to 1 are
 *            constants; canonicalized, cse'd); no layouts yet.
 * Maintains: verification; the program's meaning, given the launch's checks (below).
 * Breaks:    the signature: it appends one tdesc parameter per tensor map, which the
 *            caller's launcher fills from the plan (compiler/target/tma.h, TmaPtrPlan).
 *            The replaced loads and their pointer blocks are left for dce. Adds a proxy
 *            fence and a barrier before a loop that the kernel's writes may precede.
 *
 * A candidate is a load of a 2-D tile directly in a for loop's body (a loop the pipeline
 * will make a ring of: num_stages >= 2, that does not write: TMA reads through the
 * asynchronous proxy, see run_region) whose value only feeds dots (directly or through
 * trans), with no `other` but zeros, whose pointers are, as polynomials over the kernel's
 * scalars (a monomial: an integer times at most two scalars),
 *     P + s(0, 0) + i * r + j          (element [i, j])
 * with P a pointer parameter (16-byte aligned: its fact), r the row stride (an integer
 * parameter times a constant, or a constant) and the column stride 1. s splits into the
 * row's coordinate (its monomials with r's factor), further dims (monomials with another
 * integer parameter as a factor: its stride; at most three such dims) and the column's
 * coordinate (the rest). A pointer block carried by the loop and advanced each iteration
 * by a scalar is its initial value plus the advance times (iv - lb) / step, which needs
 * the advance's coordinates to be constant multiples of the step. The forms look through
 * widening conversions between signed integers only, and refuse a 64-bit product by a
 * constant (a coordinate is 32 bits: z.to(tl.int64) * BATCH could pass 2^31 where the kernel
 * computed it exactly). Each coordinate must be linear in 32-bit scalars, its coefficients
 * and constant below 2^31, and provably non-negative (a parameter it needs non-negative is
 * one the launcher checks). The mask may be absent or a conjunction of signed `index <
 * bound` per dim whose bound, taken at the tile's coordinate, is a constant or an integer
 * parameter plus a constant: that dim's size; a dim without one is unbounded
 * (TMA_PTR_UNBOUNDED). A conjunct `index >= 0` on a 32-bit index exactly at TMA's lower edge
 * (an expanded tensor descriptor's) lifts its dim's non-negativity requirement: TMA
 * zero-fills negative coordinates as the mask would. A 32-bit offset of the kernel's that wraps
 * (past 2^31 elements) is the one difference left: the pointers read wrapped memory, the map the
 * unwrapped element.
 *
 * The load becomes desc_load(map, coordinates) (reshaped when the map has more than two
 * dims), the map a new parameter whose plan the launcher evaluates: base = P, sizes and
 * strides from the arguments. Where the arguments do not fit (a stride not a positive
 * multiple of 16 bytes, a size out of range, a checked parameter negative) the launcher
 * runs the kernel compiled without this pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/passes/rewrite.h"
#include "compiler/target/tma.h"
#include "gpu_passes.h"

/* ---- polynomials over scalars: sum of k * a * b (a, b: ValIds, 0 = none) ---- */

enum { MAX_MONOS = 16, MAX_DEPTH = 48 };

typedef struct Mono {
    int64_t k;
    ValId a, b; /* a <= b when both; a == 0 -> b == 0 */
} Mono;

typedef struct Poly {
    int n;
    Mono m[MAX_MONOS];
} Poly;

/* A value's form: base (a pointer parameter, or 0 for integers) + s + sum_d i_d * ax[d]. */
typedef struct Form {
    ValId base;
    int rank; /* 0 to 2 */
    Poly s, ax[2];
} Form;

static bool poly_add_mono(Poly *p, int64_t k, ValId a, ValId b) {
    if (a > b) {
        ValId t = a;
        a = b, b = t;
    }
    if (!a && b) a = b, b = 0;
    if (k == 0) return true;
    for (int i = 0; i < p->n; i++)
        if (p->m[i].a == a && p->m[i].b == b) {
            if (__builtin_add_overflow(p->m[i].k, k, &p->m[i].k)) return false;
            if (p->m[i].k == 0) p->m[i] = p->m[--p->n];
            return true;
        }
    if (p->n == MAX_MONOS) return false;
    p->m[p->n++] = (Mono){k, a, b};
    return true;
}

static bool poly_add(Poly *p, const Poly *q, int64_t scale) {
    for (int i = 0; i < q->n; i++) {
        int64_t k;
        if (__builtin_mul_overflow(q->m[i].k, scale, &k) ||
            !poly_add_mono(p, k, q->m[i].a, q->m[i].b))
            return false;
    }
    return true;
}

static int mono_degree(const Mono *m) { return (m->a != 0) + (m->b != 0); }

static bool poly_mul(Poly *out, const Poly *p, const Poly *q) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < p->n; i++)
        for (int j = 0; j < q->n; j++) {
            const Mono *x = &p->m[i], *y = &q->m[j];
            if (mono_degree(x) + mono_degree(y) > 2) return false;
            ValId f[4] = {x->a, x->b, y->a, y->b}, g[2] = {0, 0};
            int n = 0;
            for (int t = 0; t < 4; t++)
                if (f[t]) g[n++] = f[t];
            int64_t k;
            if (__builtin_mul_overflow(x->k, y->k, &k) || !poly_add_mono(out, k, g[0], g[1]))
                return false;
        }
    return true;
}

static bool poly_is_const(const Poly *p, int64_t *c) {
    *c = 0;
    for (int i = 0; i < p->n; i++)
        if (p->m[i].a || __builtin_add_overflow(*c, p->m[i].k, c)) return false;
    return true;
}

/* A conversion the forms look through: from a signed integer to a signed integer at least
 * as wide (the value unchanged). */
static bool widening(IrType from, IrType to) {
    return dt_is_int(from.dt) && dt_is_signed(from.dt) && dt_is_int(to.dt) && dt_is_signed(to.dt) &&
           dt_bits(to.dt) >= dt_bits(from.dt);
}

/* A 64-bit product by a constant other than 0 and +-1 (z.to(tl.int64) * BATCH): its value
 * may pass 2^31 where the kernel computed it exactly, and a coordinate is 32 bits: refused. */
static bool wide_scaling(IrType t, const Poly *a, const Poly *b) {
    int64_t c;
    if (dt_bits(t.dt) <= 32) return false;
    return (poly_is_const(a, &c) && c != 0 && c != 1 && c != -1) ||
           (poly_is_const(b, &c) && c != 0 && c != 1 && c != -1);
}

/* ---- the analysis ---- */

typedef struct Tp {
    IrFunc *f;
    const ParamFact *facts;
    uint32_t nparams; /* the parameters before the pass */
    TmaPtrPlan *plan;
    uint16_t nonneg[TMA_PTR_MAX_CHECKS]; /* this candidate's checks, merged on success */
    int nnonneg;
    int num_stages; /* the kernel's */
    int wrote; /* the writes of global memory seen so far, in program order (ir_writes_global()) */
} Tp;

/* v without the hints around it (multiple_of, max_contiguous, max_constancy: identities;
 * a descriptor made in the kernel hints its base and strides, and the launcher checks the
 * map's arguments itself) */
static ValId unhinted(const IrFunc *f, ValId v) {
    for (int i = 0; i < 8 && !f->vals[v].is_arg; i++) {
        const IrOp *op = &f->ops[ir_def(f, v)];
        if (op->code != OP_MULTIPLE_OF && op->code != OP_MAX_CONTIGUOUS &&
            op->code != OP_MAX_CONSTANCY)
            break;
        v = op->operands[0];
    }
    return v;
}

static int param_index(const Tp *T, ValId v) {
    v = unhinted(T->f, v);
    const IrRegion *body = &T->f->regions[T->f->body];
    if (!T->f->vals[v].is_arg || T->f->vals[v].def != T->f->body) return -1;
    for (uint32_t i = 0; i < T->nparams && i < body->nargs; i++)
        if (body->args[i] == v) return (int)i;
    return -1;
}

static bool is_int_scalar(const IrFunc *f, ValId v) {
    IrType t = ir_type(f, v);
    return t.rank == 0 && dt_is_int(t.dt) && t.dt != DT_I1;
}

static bool form_of(Tp *T, ValId v, Form *out, int depth);

/* A scalar integer as a polynomial: constants, sums, products and widening conversions
 * are looked through; any other scalar is an atom. */
static bool scalar_form(Tp *T, ValId v, Form *out, int depth) {
    memset(out, 0, sizeof *out);
    IrFunc *f = T->f;
    v = unhinted(f, v);
    const IrOp *c = ir_const_def(f, v);
    if (c) return poly_add_mono(&out->s, c->attr[0], 0, 0);
    OpId d = f->vals[v].is_arg ? 0 : ir_def(f, v);
    if (d && depth < MAX_DEPTH) {
        const IrOp *op = &f->ops[d];
        if (op->code == OP_ADD || op->code == OP_SUB || op->code == OP_MUL) {
            Form a, b;
            if (!form_of(T, op->operands[0], &a, depth + 1) ||
                !form_of(T, op->operands[1], &b, depth + 1) || a.base || b.base)
                goto atom;
            if (op->code == OP_MUL) {
                Poly prod;
                if (wide_scaling(ir_type(f, v), &a.s, &b.s) || !poly_mul(&prod, &a.s, &b.s))
                    goto atom;
                out->s = prod;
                return true;
            }
            *out = a;
            return poly_add(&out->s, &b.s, op->code == OP_SUB ? -1 : 1);
        }
        if (op->code == OP_CVT && widening(ir_type(f, op->operands[0]), ir_type(f, v)))
            return form_of(T, op->operands[0], out, depth + 1);
    }
atom:
    memset(out, 0, sizeof *out);
    return poly_add_mono(&out->s, 1, v, 0);
}

static bool form_of(Tp *T, ValId v, Form *out, int depth) {
    IrFunc *f = T->f;
    v = unhinted(f, v);
    IrType t = ir_type(f, v);
    memset(out, 0, sizeof *out);
    if (depth > MAX_DEPTH) return false;
    if (t.rank == 0) {
        if (t.dt == DT_PTR) {
            if (param_index(T, v) >= 0) return out->base = v, true;
            OpId d = f->vals[v].is_arg ? 0 : ir_def(f, v);
            if (!d || f->ops[d].code != OP_ADDPTR) return false;
            Form p, o;
            if (!form_of(T, f->ops[d].operands[0], &p, depth + 1) ||
                !form_of(T, f->ops[d].operands[1], &o, depth + 1) || o.base)
                return false;
            *out = p;
            return poly_add(&out->s, &o.s, 1);
        }
        return is_int_scalar(f, v) && scalar_form(T, v, out, depth);
    }
    if (t.rank > 2 || f->vals[v].is_arg) return false;
    const IrOp *op = &f->ops[ir_def(f, v)];
    Form a, b;
    switch (op->code) {
    case OP_CONST:
        if (!dt_is_int(t.dt)) return false;
        out->rank = t.rank;
        return poly_add_mono(&out->s, op->attr[0], 0, 0);
    case OP_ARANGE:
        if (t.rank != 1) return false;
        out->rank = 1;
        return poly_add_mono(&out->s, op->attr[0], 0, 0) && poly_add_mono(&out->ax[0], 1, 0, 0);
    case OP_SPLAT:
        if (!form_of(T, op->operands[0], out, depth + 1)) return false;
        out->rank = t.rank;
        return true;
    case OP_BROADCAST: {
        if (!form_of(T, op->operands[0], out, depth + 1)) return false;
        IrType from = ir_type(f, op->operands[0]);
        for (int d = 0; d < from.rank; d++) /* a broadcast dim's index is always 0 */
            if (from.shape[d] == 1 && t.shape[d] != 1) memset(&out->ax[d], 0, sizeof out->ax[d]);
        out->rank = t.rank;
        return true;
    }
    case OP_EXPAND_DIMS: {
        if (!form_of(T, op->operands[0], &a, depth + 1)) return false;
        int axis = (int)op->attr[0];
        *out = a;
        out->rank = t.rank;
        memset(out->ax, 0, sizeof out->ax);
        for (int d = 0; d < a.rank; d++) out->ax[d < axis ? d : d + 1] = a.ax[d];
        return true;
    }
    case OP_CVT:
        return widening(ir_type(f, op->operands[0]), t) &&
               form_of(T, op->operands[0], out, depth + 1);
    case OP_ADD:
    case OP_SUB:
    case OP_ADDPTR: {
        if (!form_of(T, op->operands[0], &a, depth + 1) ||
            !form_of(T, op->operands[1], &b, depth + 1) || b.base ||
            (a.base && op->code != OP_ADDPTR))
            return false;
        int64_t sc = op->code == OP_SUB ? -1 : 1;
        *out = a;
        out->rank = t.rank;
        for (int d = 0; d < 2; d++)
            if (!poly_add(&out->ax[d], &b.ax[d], sc)) return false;
        return poly_add(&out->s, &b.s, sc);
    }
    case OP_MUL: {
        if (!form_of(T, op->operands[0], &a, depth + 1) ||
            !form_of(T, op->operands[1], &b, depth + 1) || a.base || b.base)
            return false;
        bool ai = a.ax[0].n || a.ax[1].n, bi = b.ax[0].n || b.ax[1].n;
        if ((ai && bi) || (!ai && !bi && wide_scaling(t, &a.s, &b.s))) return false;
        if (ai) { /* keep the indexed one in b */
            Form x = a;
            a = b, b = x;
        }
        out->rank = t.rank;
        for (int d = 0; d < 2; d++)
            if (!poly_mul(&out->ax[d], &b.ax[d], &a.s)) return false;
        return poly_mul(&out->s, &a.s, &b.s);
    }
    default: return false;
    }
}

/* ---- from the form to a tensor map ---- */

/* Is the scalar v provably >= 0 (the integer parameters it needs recorded as checks)? */
static bool nonneg(Tp *T, ValId v, int depth) {
    IrFunc *f = T->f;
    v = unhinted(f, v);
    if (depth > MAX_DEPTH) return false;
    const IrOp *c = ir_const_def(f, v);
    if (c) return c->attr[0] >= 0;
    int p = param_index(T, v);
    if (p >= 0) {
        for (int i = 0; i < T->nnonneg; i++)
            if (T->nonneg[i] == p) return true;
        if (T->nnonneg == TMA_PTR_MAX_CHECKS) return false;
        T->nonneg[T->nnonneg++] = (uint16_t)p;
        return true;
    }
    if (f->vals[v].is_arg) { /* a for loop's induction variable from lb >= 0, step > 0 */
        const IrRegion *r = &f->regions[f->vals[v].def];
        if (!r->parent_op || f->vals[v].index != 0) return false;
        const IrOp *loop = &f->ops[r->parent_op];
        if (loop->code != OP_FOR) return false;
        const IrOp *step = ir_const_def(f, loop->operands[2]);
        return step && step->attr[0] > 0 && nonneg(T, loop->operands[0], depth + 1);
    }
    const IrOp *op = &f->ops[ir_def(f, v)];
    switch (op->code) {
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS: return true;
    case OP_ADD:
    case OP_MUL:
    case OP_IDIV:
    case OP_REM:
    case OP_SHR:
    case OP_MIN:
    case OP_MAX:
        return nonneg(T, op->operands[0], depth + 1) && nonneg(T, op->operands[1], depth + 1);
    case OP_AND:
        return nonneg(T, op->operands[0], depth + 1) || nonneg(T, op->operands[1], depth + 1);
    case OP_CVT:
        return widening(ir_type(f, op->operands[0]), ir_type(f, v)) &&
               nonneg(T, op->operands[0], depth + 1);
    default: return false;
    }
}

/* A coordinate: linear in 32-bit scalars, non-negative; or, where the mask zeroes the
 * elements whose index is negative (`lower`: TMA fills those with zeros too), any sign. */
static bool coordinate_ok(Tp *T, const Poly *p, bool lower) {
    for (int i = 0; i < p->n; i++) {
        const Mono *m = &p->m[i];
        if (m->b || m->k < (lower ? -INT32_MAX : 0) || m->k > INT32_MAX) return false;
        if (m->a && (ir_type(T->f, m->a).dt != DT_I32 || (!lower && !nonneg(T, m->a, 0))))
            return false;
    }
    return true;
}

/* A stride atom: an integer parameter whose fact makes it a nonzero multiple of 16 elements
 * (a tensor map's strides are positive). */
static bool stride_param(const Tp *T, ValId a) {
    int p = param_index(T, a);
    return p >= 0 && dt_is_int(ir_type(T->f, a).dt) && T->facts && T->facts[p].divisibility >= 16 &&
           T->facts[p].nonzero;
}

typedef struct Map {
    int ndims;                         /* 2 + extra */
    ValId stride[NR_MAX_DESC_RANK];    /* outermost first; 0: a constant stride */
    int64_t kstride[NR_MAX_DESC_RANK]; /* the stride's constant factor */
    Poly coord[NR_MAX_DESC_RANK];
} Map;

/* Adds offset polynomial s to M's coordinates: monomials with the row stride's factor to
 * the row, those with another stride parameter as a factor to that parameter's dim (a new
 * outer dim where `grow`, at most three), the rest to the column (to the row where the row
 * stride is a constant that divides them). */
static bool split_offset(Tp *T, const Poly *s, Map *M, bool grow) {
    int ne = M->ndims - 2;
    ValId rs = M->stride[ne];
    int64_t rk = M->kstride[ne];
    for (int i = 0; i < s->n; i++) {
        Mono m = s->m[i];
        if (rs && (m.a == rs || m.b == rs)) { /* k * rs * other */
            if (m.k % rk) return false;
            if (!poly_add_mono(&M->coord[ne], m.k / rk, m.a == rs ? m.b : m.a, 0)) return false;
            continue;
        }
        if (mono_degree(&m) == 2) { /* k * a * b: a dim's stride, else a stride parameter */
            int e = 0;
            while (e < ne && M->stride[e] != m.a && M->stride[e] != m.b) e++;
            if (e == ne) {
                ValId st = stride_param(T, m.a) ? m.a : stride_param(T, m.b) ? m.b : 0;
                if (!st || !grow || ne == 3) return false;
                /* a new outermost dim: the others move in by one */
                memmove(&M->stride[1], &M->stride[0], sizeof(ValId) * (size_t)M->ndims);
                memmove(&M->kstride[1], &M->kstride[0], sizeof(int64_t) * (size_t)M->ndims);
                memmove(&M->coord[1], &M->coord[0], sizeof(Poly) * (size_t)M->ndims);
                M->stride[0] = st, M->kstride[0] = 1, memset(&M->coord[0], 0, sizeof(Poly));
                M->ndims++, ne++, e = 0;
            }
            ValId st = M->stride[e];
            if (!poly_add_mono(&M->coord[e], m.k, st == m.a ? m.b : m.a, 0)) return false;
            continue;
        }
        if (!rs && m.k % rk == 0) { /* a constant row stride: whole rows go to the row */
            if (!poly_add_mono(&M->coord[ne], m.k / rk, m.a, 0)) return false;
            continue;
        }
        if (!poly_add_mono(&M->coord[ne + 1], m.k, m.a, 0)) return false;
    }
    return true;
}

/* Splits the form of a tile's pointers into dims (outermost first: the stride parameters'
 * dims, the row, the column); false where it does not fit. */
static bool split_dims(Tp *T, const Form *F, int esize, Map *M) {
    memset(M, 0, sizeof *M);
    int64_t one;
    if (!poly_is_const(&F->ax[1], &one) || one != 1) return false; /* columns contiguous */
    const Poly *r = &F->ax[0];
    if (r->n != 1 || r->m[0].b || r->m[0].k <= 0) return false;
    ValId rs = r->m[0].a;
    int64_t rk = r->m[0].k;
    if (rs ? !stride_param(T, rs) : rk * esize % 16 != 0) return false;
    M->ndims = 2;
    M->stride[0] = rs, M->kstride[0] = rk;
    M->stride[1] = 0, M->kstride[1] = 1;
    return split_offset(T, &F->s, M, true);
}

/* The form of the pointers a load in loop `loop`'s body reads, at iteration iv: a block
 * computed in the body, or one the loop carries and advances by a scalar each iteration
 * (then init + (iv - lb) / step * advance, the advance's coordinates multiples of step). */
static bool pointer_map(Tp *T, OpId loop, ValId ptrs, int esize, Map *M) {
    IrFunc *f = T->f;
    const IrOp *fo = &f->ops[loop];
    RegionId body = fo->region[0];
    Form F;
    const IrValue *pv = &f->vals[ptrs];
    if (!(pv->is_arg && pv->def == body))
        return form_of(T, ptrs, &F, 0) && F.base && split_dims(T, &F, esize, M);
    if (pv->index == 0) return false;
    const IrRegion *br = &f->regions[body];
    const IrOp *y = &f->ops[br->ops[br->nops - 1]];
    ValId next = y->operands[pv->index - 1], init = fo->operands[3 + pv->index - 1];
    OpId nd = f->vals[next].is_arg ? 0 : ir_def(f, next);
    if (!nd || f->ops[nd].code != OP_ADDPTR || f->ops[nd].operands[0] != ptrs) return false;
    Form A, F0;
    ValId adv = f->ops[nd].operands[1];
    if (!form_of(T, adv, &A, 0) || A.base || A.ax[0].n || A.ax[1].n) return false;
    if (!form_of(T, init, &F0, 0) || !F0.base || !split_dims(T, &F0, esize, M)) return false;
    /* the advance in the same dims */
    Map MA = *M;
    for (int d = 0; d < MA.ndims; d++) memset(&MA.coord[d], 0, sizeof(Poly));
    if (!split_offset(T, &A.s, &MA, false)) return false;
    const IrOp *step = ir_const_def(f, fo->operands[2]);
    if (!step || step->attr[0] <= 0) return false;
    Form lb;
    if (!form_of(T, fo->operands[0], &lb, 0) || lb.base) return false;
    ValId iv = br->args[0];
    for (int d = 0; d < M->ndims; d++) {
        if (MA.stride[d] != M->stride[d]) return false;
        int64_t inc;
        if (!poly_is_const(&MA.coord[d], &inc) || inc % step->attr[0]) return false;
        int64_t m = inc / step->attr[0]; /* coord += m * (iv - lb) */
        if (!poly_add_mono(&M->coord[d], m, iv, 0) || !poly_add(&M->coord[d], &lb.s, -m))
            return false;
    }
    return true;
}

/* Is `L <= s + i` (or `L < s + i`: le false) along the map's dim td exactly TMA's own lower
 * bound, `coord + i >= 0`: L - s + coord == 0 (L + 1 - s + coord where strict)? A tensor
 * descriptor's load, expanded, checks `index >= 0` on every dim. */
static bool tma_lower_bound(const Form *fl, const Form *fi, const Poly *coord, bool le) {
    Poly d = fl->s;
    int64_t c;
    return poly_add(&d, &fi->s, -1) && poly_add(&d, coord, 1) &&
           (le || poly_add_mono(&d, 1, 0, 0)) && poly_is_const(&d, &c) && c == 0;
}

/* The mask's bounds: size[d] (a polynomial: a constant, or a parameter plus a constant)
 * per dim of the tile, or none (unbounded); lower[d] where the mask also zeroes the
 * elements of negative index, as TMA does. */
static bool mask_bounds(Tp *T, ValId mask, const Map *M, Poly *size, bool *bounded, bool *lower,
                        int depth) {
    IrFunc *f = T->f;
    if (depth > 8 || f->vals[mask].is_arg) return false;
    const IrOp *op = &f->ops[ir_def(f, mask)];
    if (op->code == OP_BROADCAST)
        return mask_bounds(T, op->operands[0], M, size, bounded, lower, depth + 1);
    if (op->code == OP_AND)
        return mask_bounds(T, op->operands[0], M, size, bounded, lower, depth + 1) &&
               mask_bounds(T, op->operands[1], M, size, bounded, lower, depth + 1);
    if (op->code != OP_CMP) return false;
    int pred = (int)op->attr[0];
    ValId x = op->operands[0], b = op->operands[1];
    if (pred == CMP_PRED_GT || pred == CMP_PRED_GE) { /* b < x reads as x > b */
        ValId t = x;
        x = b, b = t;
        pred = pred == CMP_PRED_GT ? CMP_PRED_LT : CMP_PRED_LE;
    }
    if (pred != CMP_PRED_LT && pred != CMP_PRED_LE) return false;
    if (!dt_is_signed(ir_type(f, x).dt))
        return false; /* unsigned: (i - 4).to(u32) < n is a range */
    Form fx, fb;
    if (!form_of(T, x, &fx, 0) || !form_of(T, b, &fb, 0) || fx.base || fb.base) return false;
    if (!fx.ax[0].n && !fx.ax[1].n) { /* L <= index: a lower bound */
        /* compared in 32 bits, as the map's coordinate is computed: a 64-bit index (from
         * x.to(tl.int64) - y) can be negative where the 32-bit coordinate wraps to a row */
        if (ir_type(f, b).dt != DT_I32) return false;
        int d = fb.ax[0].n ? 0 : 1;
        int64_t one;
        if (fb.ax[1 - d].n || !poly_is_const(&fb.ax[d], &one) || one != 1) return false;
        int td = M->ndims - 2 + d;
        if (lower[td] || !tma_lower_bound(&fx, &fb, &M->coord[td], pred == CMP_PRED_LE))
            return false;
        lower[td] = true;
        return true;
    }
    if (fb.ax[0].n || fb.ax[1].n) return false;
    int d = fx.ax[0].n ? 0 : 1;
    int64_t one;
    if (fx.ax[1 - d].n || !poly_is_const(&fx.ax[d], &one) || one != 1) return false;
    int td = M->ndims - 2 + d; /* the map's dim */
    if (bounded[td]) return false;
    /* index = s + i < bound  <=>  coord + i < bound - s + coord */
    Poly sz = fb.s;
    if (!poly_add(&sz, &fx.s, -1) || !poly_add(&sz, &M->coord[td], 1) ||
        (pred == CMP_PRED_LE && !poly_add_mono(&sz, 1, 0, 0)))
        return false;
    for (int i = 0; i < sz.n; i++) {
        const Mono *m = &sz.m[i];
        if (m->b || (m->a && (m->k != 1 || param_index(T, m->a) < 0))) return false;
    }
    int params = 0;
    for (int i = 0; i < sz.n; i++) params += sz.m[i].a != 0;
    if (params > 1) return false;
    size[td] = sz, bounded[td] = true;
    return true;
}

/* Does the load's value only feed dots (directly or through trans)? */
static bool feeds_dots(IrFunc *f, ValId v, RegionId body, int depth) {
    bool any = false;
    const IrRegion *r = &f->regions[body];
    for (uint32_t i = 0; i < r->nops; i++) {
        const IrOp *op = &f->ops[r->ops[i]];
        for (uint32_t j = 0; j < op->nopnds; j++) {
            if (op->operands[j] != v) continue;
            if (op->code == OP_DOT && j < 2) any = true;
            else if (op->code == OP_TRANS && depth == 0 && feeds_dots(f, op->results[0], body, 1))
                any = true;
            else return false;
        }
    }
    return any;
}

static bool used_in_nested(IrFunc *f, ValId v, RegionId body) {
    const IrRegion *r = &f->regions[body];
    for (uint32_t i = 0; i < r->nops; i++) {
        const IrOp *op = &f->ops[r->ops[i]];
        for (int k = 0; k < op->nregions; k++) {
            const IrRegion *n = &f->regions[op->region[k]];
            for (uint32_t o = 0; o < n->nops; o++) {
                const IrOp *q = &f->ops[n->ops[o]];
                for (uint32_t j = 0; j < q->nopnds; j++)
                    if (q->operands[j] == v) return true;
                if (q->nregions) return true; /* deeper: do not look, refuse */
            }
        }
    }
    return false;
}

static bool zero_other(IrFunc *f, ValId other) {
    if (!other) return true;
    OpId d = f->vals[other].is_arg ? 0 : ir_def(f, other);
    while (d && f->ops[d].code == OP_SPLAT) {
        ValId s = f->ops[d].operands[0];
        d = f->vals[s].is_arg ? 0 : ir_def(f, s);
    }
    return d && f->ops[d].code == OP_CONST && f->ops[d].attr[0] == 0 && f->ops[d].fattr == 0 &&
           !__builtin_signbit(f->ops[d].fattr);
}

/* ---- the rewrite ---- */

typedef struct Emit {
    IrFunc *f;
    OpVec *out;
    Loc loc;
} Emit;

static ValId emit(Emit *E, int code, const ValId *o, uint32_t n, IrType ty) {
    return opvec_emit(E->out, E->f, code, E->loc, o, n, ty);
}

static ValId emit_i32(Emit *E, int64_t v) {
    ValId r = emit(E, OP_CONST, NULL, 0, ty_scalar(DT_I32));
    E->f->ops[ir_def(E->f, r)].attr[0] = v;
    return r;
}

static ValId emit_coord(Emit *E, const Poly *p) {
    ValId acc = 0;
    int64_t c = 0;
    for (int i = 0; i < p->n; i++) {
        const Mono *m = &p->m[i];
        if (!m->a) {
            c += m->k;
            continue;
        }
        ValId t = m->a;
        if (m->k != 1) t = emit(E, OP_MUL, (ValId[]){t, emit_i32(E, m->k)}, 2, ty_scalar(DT_I32));
        acc = acc ? emit(E, OP_ADD, (ValId[]){acc, t}, 2, ty_scalar(DT_I32)) : t;
    }
    if (!acc || c) {
        ValId k = emit_i32(E, c);
        acc = acc ? emit(E, OP_ADD, (ValId[]){acc, k}, 2, ty_scalar(DT_I32)) : k;
    }
    return acc;
}

static TmaArgValue arg_value(Tp *T, const Poly *p, bool bounded) {
    TmaArgValue v = {-1, 1, bounded ? 0 : TMA_PTR_UNBOUNDED};
    for (int i = 0; bounded && i < p->n; i++) {
        if (p->m[i].a) v.param = (int16_t)param_index(T, p->m[i].a);
        else v.add += p->m[i].k;
    }
    return v;
}

/* The map of one candidate, or false. */
static bool plan_load(Tp *T, OpId loop, OpId ld, Map *M, Poly *size, bool *bounded) {
    bool lower[NR_MAX_DESC_RANK] = {0};
    IrFunc *f = T->f;
    const IrOp *op = &f->ops[ld];
    IrType t = ir_type(f, op->results[0]);
    if (t.rank != 2 || !dt_is_scalar(t.dt) || t.dt == DT_I1) return false;
    int32_t box[NR_MAX_DESC_RANK];
    TmaPlan plan;
    if (!pointer_map(T, loop, op->operands[0], dt_bytes(t.dt), M)) return false;
    for (int d = 0; d < M->ndims; d++) box[d] = d < M->ndims - 2 ? 1 : t.shape[d - (M->ndims - 2)];
    if (!gpu_tma_plan(ty_tdesc(t.dt, M->ndims, box), &plan)) return false;
    memset(bounded, 0, sizeof(bool) * NR_MAX_DESC_RANK);
    if (op->nopnds >= 2 && op->operands[1] &&
        !mask_bounds(T, op->operands[1], M, size, bounded, lower, 0))
        return false;
    for (int d = 0; d < M->ndims; d++)
        if (!coordinate_ok(T, &M->coord[d], lower[d])) return false;
    return op->nopnds < 3 || zero_other(f, op->operands[2]);
}

static ValId rewrite_load(Tp *T, Emit *E, OpId ld, int base, const Map *M, const Poly *size,
                          const bool *bounded) {
    IrFunc *f = T->f;
    const IrOp *op = &f->ops[ld];
    ValId res = op->results[0];
    IrType t = ir_type(f, res);
    int r = M->ndims;
    int32_t box[NR_MAX_DESC_RANK];
    for (int d = 0; d < r; d++) box[d] = d < r - 2 ? 1 : t.shape[d - (r - 2)];
    IrType dt = ty_tdesc(t.dt, r, box);
    TmaPtrMap *pm = &T->plan->maps[T->plan->nmaps];
    memset(pm, 0, sizeof *pm);
    pm->base = (uint16_t)base;
    char name[64];
    snprintf(name, sizeof name, "%s.tma%d", f->param_names[base] ? f->param_names[base] : "ptr",
             T->plan->nmaps);
    ValId d = ir_add_param(f, dt, name);
    pm->param = (uint16_t)(f->regions[f->body].nargs - 1);
    pm->type = dt;
    for (int k = 0; k < r; k++) {
        pm->size[k] = arg_value(T, &size[k], bounded[k]);
        pm->stride[k] =
            (TmaArgValue){M->stride[k] ? (int16_t)param_index(T, M->stride[k]) : -1,
                          M->stride[k] ? M->kstride[k] : 0, M->stride[k] ? 0 : M->kstride[k]};
    }
    ValId o[1 + NR_MAX_DESC_RANK];
    o[0] = d;
    for (int k = 0; k < r; k++) o[1 + k] = emit_coord(E, &M->coord[k]);
    int32_t shape[NR_MAX_DESC_RANK];
    memcpy(shape, box, sizeof shape);
    ValId x = emit(E, OP_DESC_LOAD, o, 1 + (uint32_t)r, ty_block(ty_scalar(t.dt), r, shape));
    if (r > 2) x = emit(E, OP_RESHAPE, &x, 1, t);
    T->plan->nmaps++;
    return x;
}

static void run_region(Tp *T, RegionId rid, int unsafe);

/* Loop `loop`'s candidates rewritten; whether any was. */
static bool run_loop(Tp *T, OpId loop) {
    IrFunc *f = T->f;
    RegionId body = f->ops[loop].region[0];
    OpVec out = {0}, pairs = {0};
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, body, &n);
    bool changed = false;
    for (uint32_t i = 0; i < n; i++) {
        const IrOp *op = &f->ops[ops[i]];
        Map M;
        Poly size[NR_MAX_DESC_RANK];
        bool bounded[NR_MAX_DESC_RANK];
        T->nnonneg = 0;
        if (op->code == OP_LOAD && T->plan->nmaps < TMA_PTR_MAX_MAPS &&
            feeds_dots(f, op->results[0], body, 0) && !used_in_nested(f, op->results[0], body) &&
            plan_load(T, loop, ops[i], &M, size, bounded)) {
            /* the base pointer parameter */
            Form F;
            ValId ptrs = op->operands[0];
            const IrValue *pv = &f->vals[ptrs];
            if (pv->is_arg && pv->def == body) ptrs = f->ops[loop].operands[3 + pv->index - 1];
            bool ok = form_of(T, ptrs, &F, 0) && F.base;
            int merged = T->plan->nnonneg;
            for (int c = 0; ok && c < T->nnonneg; c++) {
                bool seen = false;
                for (int e = 0; e < T->plan->nnonneg; e++)
                    seen |= T->plan->nonneg[e] == T->nonneg[c];
                if (!seen) ok = merged < TMA_PTR_MAX_CHECKS;
                if (ok && !seen) T->plan->nonneg[merged++] = T->nonneg[c];
            }
            if (ok) {
                T->plan->nnonneg = merged;
                Emit E = {f, &out, op->loc};
                ValId x = rewrite_load(T, &E, ops[i], param_index(T, F.base), &M, size, bounded);
                opvec_push(&pairs, f->ops[ops[i]].results[0]);
                opvec_push(&pairs, x);
                changed = true;
                continue; /* the old load: dropped */
            }
        }
        opvec_push(&out, ops[i]);
    }
    if (changed) ir_region_set_ops(f, body, out.v, out.n);
    free(ops);
    opvec_free(&out);
    if (changed) ir_replace_pairs(f, &pairs);
    else opvec_free(&pairs);
    return changed;
}

/* The loops of region rid, in program order. TMA reads through the asynchronous proxy, which
 * the kernel's own earlier stores (the generic proxy) do not reach without a proxy fence. A
 * loop that writes in its own body keeps its loads (its copies run ahead of its stores). One
 * that a write of the kernel may precede (before it in program order, or in an enclosing
 * loop's body: `unsafe`; the epilogue of a persistent kernel's previous tile) gets, before it,
 * `fence_async {global = 1}` in every thread and then a barrier, so that every thread's
 * earlier writes are ordered before the copies the loop's ring issues after it; unless one
 * of those writes is a TMA store (ir_writes_global() 2), which the fence does not wait for: then
 * the loop keeps its loads. `unsafe` is the enclosing loops' writes. */
static void run_region(Tp *T, RegionId rid, int unsafe) {
    IrFunc *f = T->f;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, rid, &n);
    OpVec out = {0};
    bool fenced = false;
    for (uint32_t i = 0; i < n; i++) {
        const IrOp *op = &f->ops[ops[i]];
        bool loop = op->code == OP_FOR || op->code == OP_WHILE;
        int w = ir_writes_global(f, ops[i]);
        Loc loc = op->loc;
        if (op->code == OP_FOR && !w && unsafe < 2 && T->wrote < 2) {
            int stages = op->attr[0] > 0 ? (int)op->attr[0] : T->num_stages;
            if (stages >= 2 && run_loop(T, ops[i]) && (unsafe || T->wrote)) {
                OpId fence = ir_op_new(f, OP_FENCE_ASYNC, loc, NULL, 0, NULL, 0);
                f->ops[fence].attr[0] = 1;
                opvec_push(&out, fence);
                opvec_push(&out, ir_op_new(f, OP_BARRIER, loc, NULL, 0, NULL, 0));
                fenced = true;
            }
        }
        opvec_push(&out, ops[i]);
        for (int k = 0; k < f->ops[ops[i]].nregions; k++)
            run_region(T, f->ops[ops[i]].region[k], loop && w > unsafe ? w : unsafe);
        if (w > T->wrote) T->wrote = w;
    }
    if (fenced) ir_region_set_ops(f, rid, out.v, out.n);
    opvec_free(&out);
    free(ops);
}

bool gpu_tma_pointers(IrFunc *f, const ParamFact *facts, const GpuOptions *o, TmaPtrPlan *plan) {
    memset(plan, 0, sizeof *plan);
    if (o->arch != GPU_SM90A) return false;
    Tp T = {f, facts, f->regions[f->body].nargs, plan, {0}, 0, o->num_stages, 0};
    run_region(&T, f->body, 0);
    return plan->nmaps > 0;
}
