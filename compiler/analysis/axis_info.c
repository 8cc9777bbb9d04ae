/* axis_info.c - alignment analysis (Triton's AxisInfo) over Nereid's structured IR.
 *
 * Facts, per value and per dimension d (all powers of two, at least 1):
 *   contiguity c[d]:  the dim splits into aligned groups of c elements (indices k*c ..
 *                     k*c+c-1, for every position along the other dims) whose values go
 *                     up by one (pointers: by one element) from each to the next;
 *   divisibility D[d]: the first value of every such group is a multiple of D (pointers:
 *                     a multiple of D bytes). With c[d] == 1 that is every element;
 *   constancy k[d]:   the dim splits into aligned groups of k equal values.
 * c and k are at most the dim's size; D at most AXIS_INFO_MAX_DIVISIBILITY (2^30, the
 * divisibility of 0). Scalars have rank 0 and their facts in index 0 with c = k = 1.
 * Floats, and anything else that is neither an integer nor a pointer, get (1, 1, 1).
 *
 * Besides the public facts the analysis keeps two private ones per value: a known
 * uniform constant (every element equal to one known integer) and "non-negative" (every
 * element >= 0). The latter is what makes idiv/rem by a constant sound for signed types:
 * C's truncating division breaks the runs of x / 8 and x % 8 where x < 0.
 *
 * Assumption (Triton's too): index arithmetic does not overflow. Contiguity is "+1 in
 * the integers", which a wrapping add/mul could break; explicit narrowing casts (where
 * wrapping is the semantics) are handled soundly instead.
 *
 * Divisibility is a fact about group starts, so whenever a result's groups are smaller
 * than an operand's, the operand's value at a result group start may be inside one of
 * its own groups: s + j*c_res, a multiple of gcd(D, c_res) only (in bytes for pointers:
 * gcd(D, c_res * elem_bytes)). operand_div() applies that everywhere (Triton's
 * getDivisibilityFromContiguity does it for select/join only; its add would claim
 * gcd(D_l, D_r) even where the result's runs are shorter than the lhs's).
 *
 * Rules (l, r: operand facts; u: the element size for pointers, 1 for integers):
 *   const v            c 1, D = pow2 divisor of v (0: the cap), k = shape; known constant
 *   arange(s, e)       c = e - s, D = pow2 divisor of s, k 1; non-negative when s >= 0
 *   program_id, num_programs   scalars, D 1, non-negative
 *   params             D from the ParamFact table (pointers: bytes), else 1
 *   add / addptr       c = max(min(c_l, k_r), min(k_l, c_r)), k = min(k_l, k_r),
 *                      D = min of the operands' D at the result's group starts (addptr:
 *                      the offset's times the element size)
 *   sub                c = min(c_l, k_r), k and D as add
 *   mul                c = the other side's where one side is the constant 1, else 1;
 *                      D = product of the per-element divisibilities (capped); k = min
 *   idiv               c: the lhs's when dividing by the constant 1, else 1; D: lhs / |v|
 *                      for a constant power of two |v| (lhs per element), the lhs's for
 *                      /1, else 1; k = min(k_l, k_r), raised to min(c_l, D_l, pow2(v))
 *                      when r is a nonzero constant v and the lhs is non-negative
 *   rem                by a nonzero constant v with a non-negative lhs: c = min(c_l, D_l,
 *                      pow2(v)); by a value known nonzero (a parameter the runtime
 *                      specialised as a nonzero multiple of 16, or one an assume says is
 *                      positive), constant over the run: c = min(c_l, k_r, D_l, D_r);
 *                      else 1. D = min of the operands' D at the result's group starts
 *                      (x - q*v); k = min(k_l, k_r); by +-1 or 0: the constant 0 (a
 *                      divisor that is merely "divisible by 16" could be 0 at run time,
 *                      where rem gives 0)
 *   assume(x >= 0), assume(x > 0) (also 0 <= x, 0 < x; and x != 0): x is non-negative
 *                      (and nonzero) from there on, as the program promises (Triton's
 *                      matmul tutorial assumes pid_m, pid_n >= 0 and strides > 0)
 *   shl by constant s  c 1 (s = 0: c_l), D = D_l * 2^s (per element); s >= width: 0;
 *                      unknown amount: D = D_l per element. k = min
 *   shr by constant s  c 1 (s = 0: c_l), D = D_l / 2^s (per element), k = min(k_l, k_r)
 *                      raised to min(c_l, D_l, 2^s) (shr is floor division: any sign)
 *   and                c 1, D = max of the per-element D (the low zero bits of either),
 *   or / xor           c 1, D = min of the per-element D; k = min for all three
 *   min / max          c = min(c_l, c_r), k = min, D = min at the result's group starts
 *   neg / abs          c 1, D per element, k kept;  not: c 1, D 1, k kept
 *   umulhi             c 1, D 1, k = min
 *   cmp                c 1, D 1, k = min(k_l, k_r), raised (Triton's CmpOpAxisInfoVisitor,
 *                      integers only) for lt/ge with a contiguous lhs and a constant rhs to
 *                      g = min(c_l, D_l, D_r per element, k_r): within an aligned run of g
 *                      values s..s+g-1 (s a multiple of g) the threshold n (a multiple of g)
 *                      cannot fall inside; for le/gt symmetrically with the lhs constant
 *   select(m, a, b)    a constant condition picks its side; else c = min(c_a, c_b, k_m),
 *                      k = min(k_a, k_b, k_m), D = min at the result's group starts
 *   cvt int -> int     keeps D and k, and c where the target holds every value the
 *                      source may have; otherwise (narrowing to w bits, a change of
 *                      signedness) c = min(c, D, 2^(w-1)): a run must not cross a wrap
 *                      point. -> i1 is (x != 0): k only. Anything with floats: neutral
 *   bitcast            int <-> int as cvt; pointer <-> int keeps D (bytes) and k, and c
 *                      when the element is one byte; pointer -> pointer keeps c when the
 *                      element sizes agree
 *   splat              c 1, D = the scalar's, k = shape
 *   broadcast          dims of 1 stretched to n: c 1, k n, D kept; other dims kept
 *   expand_dims        the new dim: c 1, k 1, D = the operand's per-element divisibility
 *   reshape            a uniform operand stays uniform; inserting/removing dims of 1
 *                      maps the other dims' facts; otherwise a common suffix of equal dims
 *                      keeps its facts and the dim before it (size L) keeps c and k cut to
 *                      L (row-major order is unchanged, and aligned runs of powers of two
 *                      stay inside rows); other dims: c 1, k 1, D per element
 *   trans              permutes the per-dim facts
 *   convert_layout     keeps everything (the same values in another layout)
 *   multiple_of        D = max(D, pow2 divisor of the hint) per dim (both are true)
 *   max_contiguous     c = max(c, pow2 divisor of the hint), at most the dim size (longer
 *                      runs start at a subset of the old run starts: D stays valid)
 *   load, atomics, reduce, dot, call: neutral (conservative; Triton's load keeps k)
 *   for                iv: D = gcd(D_lb, D_step), c = k = 1; carried values (region args
 *                      and results): a fixed point, started at the inits and met with the
 *                      yields until nothing changes (facts only go down; the meet is
 *                      min of c and k, min of D at the new group starts). At most
 *                      MAX_LOOP_ITERS rounds, and a work budget for deep nests: past
 *                      either, the carried values drop to neutral (always sound)
 *   while              the same fixed point over region 0's args; region 1's args and the
 *                      results get region 0's args' facts
 *   if                 results = meet of the two yields (a constant condition: the taken
 *                      yield's)
 */
#include "axis_info.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_LOOP_ITERS = 8 };

typedef struct Fact {
    AxisInfo ai;    /* ai.spec: the roots c, D and k rely on (speculation only) */
    bool nonneg;    /* every element >= 0 (as an integer of its dtype) */
    uint32_t nn;    /* the roots nonneg relies on (speculation only) */
    bool nonzero;   /* every element != 0 (a nonzero constant, a parameter so specialised,
                       and what shape ops make of them) */
    bool has_const; /* every element equals cval */
    int64_t cval;   /* normalised to the dtype (see wrap) */
} Fact;

typedef struct Analyzer {
    const IrFunc *f;
    const ParamFact *pf; /* per parameter, or NULL */
    Fact *facts;
    int64_t budget;     /* op visits left before loops stop iterating */
    AxisSpeculation *S; /* speculating: the roots so far; NULL: proven facts only */
} Analyzer;

/* ---- power-of-two arithmetic ---- */

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The largest power of two dividing v (as a bit pattern), capped; 0 gives the cap. */
static int64_t pow2_div(uint64_t v) {
    if (!v) return AXIS_INFO_MAX_DIVISIBILITY;
    uint64_t p = v & (~v + 1);
    return p >= (uint64_t)AXIS_INFO_MAX_DIVISIBILITY ? AXIS_INFO_MAX_DIVISIBILITY : (int64_t)p;
}

/* The largest power of two <= x (1 for x < 1). */
static int64_t pow2_floor(int64_t x) {
    int64_t p = 1;
    while (p <= x / 2) p *= 2;
    return p;
}

static int64_t mul_div(int64_t a, int64_t b) {
    int64_t p = a * b; /* both <= 2^30 */
    return p > AXIS_INFO_MAX_DIVISIBILITY ? AXIS_INFO_MAX_DIVISIBILITY : p;
}

/* ---- types ---- */

static bool tracked(IrType t) { return t.dt == DT_PTR || dt_is_int(t.dt); }
static bool is_unsigned(int dt) { return dt_is_int(dt) && !dt_is_signed(dt); }
static int ndims(IrType t) { return t.rank ? t.rank : 1; }
static int64_t dim_size(IrType t, int d) { return t.rank ? t.shape[d] : 1; }
/* The unit of contiguity in bytes: the element size for pointers, 1 for integers. */
static int64_t unit_of(IrType t) {
    if (t.dt != DT_PTR) return 1;
    int b = dt_bytes(t.pointee);
    return b > 0 ? b : 1;
}

/* v truncated to dt's width and extended by dt's signedness (i1 is 0 or 1). */
static int64_t wrap(int64_t v, int dt) {
    int bits = dt_bits(dt);
    if (bits <= 0 || bits >= 64) return v;
    uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & m;
    if (dt_is_signed(dt) && (u >> (bits - 1)) & 1) u |= ~m;
    return (int64_t)u;
}

/* |v| of an integer of dtype dt, as an unsigned magnitude. */
static uint64_t magnitude(int64_t v, int dt) {
    if (is_unsigned(dt) || v >= 0) return (uint64_t)v;
    return ~(uint64_t)v + 1;
}

/* ---- facts ---- */

static Fact neutral(IrType t) {
    Fact x;
    memset(&x, 0, sizeof x);
    x.ai.rank = t.rank;
    for (int d = 0; d < NR_MAX_RANK; d++)
        x.ai.contiguity[d] = x.ai.divisibility[d] = x.ai.constancy[d] = 1;
    x.nonneg = is_unsigned(t.dt);
    return x;
}

static Fact const_fact(IrType t, int64_t v) {
    Fact x = neutral(t);
    v = wrap(v, t.dt);
    for (int d = 0; d < ndims(t); d++) {
        x.ai.divisibility[d] = pow2_div((uint64_t)v);
        x.ai.constancy[d] = dim_size(t, d);
    }
    x.has_const = true;
    x.cval = v;
    x.nonneg = is_unsigned(t.dt) || v >= 0;
    x.nonzero = v != 0;
    return x;
}

/* Every fact a power of two within its bounds; rank from the type. */
static Fact normalise(Fact x, IrType t) {
    if (!tracked(t)) return neutral(t);
    Fact y = neutral(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t n = dim_size(t, d);
        y.ai.contiguity[d] = t.rank ? pow2_floor(min64(x.ai.contiguity[d], n)) : 1;
        y.ai.constancy[d] = t.rank ? pow2_floor(min64(x.ai.constancy[d], n)) : 1;
        y.ai.divisibility[d] = pow2_floor(min64(x.ai.divisibility[d], AXIS_INFO_MAX_DIVISIBILITY));
    }
    y.nonneg = x.nonneg || is_unsigned(t.dt);
    y.nn = y.nonneg && !is_unsigned(t.dt) ? x.nn : 0;
    y.ai.spec = x.ai.spec;
    y.nonzero = x.nonzero;
    if (x.has_const && t.dt != DT_PTR) {
        y.has_const = true;
        y.cval = wrap(x.cval, t.dt);
    }
    return y;
}

static bool fact_equal(const Fact *a, const Fact *b) {
    for (int d = 0; d < NR_MAX_RANK; d++)
        if (a->ai.contiguity[d] != b->ai.contiguity[d] ||
            a->ai.divisibility[d] != b->ai.divisibility[d] ||
            a->ai.constancy[d] != b->ai.constancy[d])
            return false;
    return a->ai.rank == b->ai.rank && a->nonneg == b->nonneg && a->nonzero == b->nonzero &&
           a->ai.spec == b->ai.spec && a->nn == b->nn && a->has_const == b->has_const &&
           (!a->has_const || a->cval == b->cval);
}

/* The divisibility of x's values at the starts of runs of c_res along d (u: bytes per
 * element for pointers). Where the runs are shorter than x's own, a start may be inside
 * one of x's runs: s + j * c_res. Runs of 1 (every element) may also use any dim along
 * which x has runs of 1: its D holds for every element. */
static int64_t operand_div(const Fact *x, int d, int64_t c_res, int64_t u) {
    int64_t D = x->ai.divisibility[d], c = x->ai.contiguity[d];
    if (c_res < c) D = min64(D, c_res * u);
    if (c_res == 1) {
        int n = x->ai.rank ? x->ai.rank : 1;
        for (int e = 0; e < n; e++)
            if (x->ai.contiguity[e] == 1) D = max64(D, x->ai.divisibility[e]);
    }
    return D;
}

/* The divisibility of every element of x. */
static int64_t elem_div(const Fact *x, int64_t u) { return operand_div(x, 0, 1, u); }

/* Facts true of both a and b (same type t). */
static Fact meet(const Fact *a, const Fact *b, IrType t) {
    Fact x = neutral(t);
    int64_t u = unit_of(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t c = min64(a->ai.contiguity[d], b->ai.contiguity[d]);
        x.ai.contiguity[d] = c;
        x.ai.constancy[d] = min64(a->ai.constancy[d], b->ai.constancy[d]);
        x.ai.divisibility[d] = min64(operand_div(a, d, c, u), operand_div(b, d, c, u));
    }
    x.nonneg = a->nonneg && b->nonneg;
    x.nn = a->nn | b->nn;
    x.ai.spec = a->ai.spec | b->ai.spec;
    if (a->has_const && b->has_const && a->cval == b->cval) x.has_const = true, x.cval = a->cval;
    return normalise(x, t);
}

/* ---- the walk ---- */

static bool valid_val(const Analyzer *A, ValId v) { return v > 0 && v < A->f->nvals; }
static IrType vty(const Analyzer *A, ValId v) { return A->f->vals[v].ty; }

static Fact get(const Analyzer *A, ValId v) {
    if (!valid_val(A, v)) {
        Fact x = neutral(ty_scalar(DT_I32));
        return x;
    }
    return A->facts[v];
}

static void set(Analyzer *A, ValId v, Fact x) {
    if (valid_val(A, v)) A->facts[v] = normalise(x, vty(A, v));
}

static void set_neutral(Analyzer *A, ValId v) {
    if (valid_val(A, v)) A->facts[v] = neutral(vty(A, v));
}

static void visit_region(Analyzer *A, RegionId r, int depth);

/* Binary integer ops (add, sub, mul, idiv, rem, and, or, xor, shl, shr, min, max,
 * umulhi) on operands and a result of one type t. */
static Fact binary(const IrOp *op, IrType t, const Fact *l, const Fact *r) {
    Fact x = neutral(t);
    int dt = t.dt, bits = dt_bits(dt);
    /* both constant: fold what folds exactly (wrapping like the op) */
    if (l->has_const && r->has_const) {
        uint64_t a = (uint64_t)l->cval, b = (uint64_t)r->cval;
        switch (op->code) {
        case OP_ADD: return const_fact(t, (int64_t)(a + b));
        case OP_SUB: return const_fact(t, (int64_t)(a - b));
        case OP_MUL: return const_fact(t, (int64_t)(a * b));
        case OP_AND: return const_fact(t, (int64_t)(a & b));
        case OP_OR: return const_fact(t, (int64_t)(a | b));
        case OP_XOR: return const_fact(t, (int64_t)(a ^ b));
        default: break;
        }
    }
    bool rc = r->has_const;
    int64_t rv = r->cval;
    uint64_t rmag = rc ? magnitude(rv, dt) : 0; /* |divisor| */
    /* a shift amount is read as unsigned at the operand's width */
    uint64_t amt =
        rc ? (bits >= 64 ? (uint64_t)rv : (uint64_t)rv & (((uint64_t)1 << bits) - 1)) : 0;
    /* x / 0, x % 0, x % +-1, x * 0 and shl by >= the width give 0 */
    if (rc && ((op->code == OP_IDIV && rv == 0) || (op->code == OP_REM && rmag <= 1) ||
               (op->code == OP_MUL && rv == 0) || (op->code == OP_SHL && amt >= (uint64_t)bits)))
        return const_fact(t, 0);
    if (l->has_const && l->cval == 0 && (op->code == OP_MUL || op->code == OP_AND))
        return const_fact(t, 0);
    for (int d = 0; d < ndims(t); d++) {
        int64_t cl = l->ai.contiguity[d], cr = r->ai.contiguity[d];
        int64_t kl = l->ai.constancy[d], kr = r->ai.constancy[d];
        int64_t Dl = l->ai.divisibility[d];
        int64_t c = 1, k = min64(kl, kr), D = 1;
        switch (op->code) {
        case OP_ADD:
            c = max64(min64(cl, kr), min64(kl, cr));
            D = min64(operand_div(l, d, c, 1), operand_div(r, d, c, 1));
            break;
        case OP_SUB:
            c = min64(cl, kr);
            D = min64(operand_div(l, d, c, 1), operand_div(r, d, c, 1));
            break;
        case OP_MUL:
            if (rc && rv == 1) {
                c = cl, D = Dl;
            } else if (l->has_const && l->cval == 1) {
                c = cr, D = r->ai.divisibility[d];
            } else {
                D = mul_div(elem_div(l, 1), elem_div(r, 1));
            }
            break;
        case OP_IDIV:
            if (rc && rv == 1) {
                c = cl, D = Dl;
            } else if (rc && (rmag & (rmag - 1)) == 0) { /* exact: (q * 2^a) / 2^m */
                uint64_t e = (uint64_t)elem_div(l, 1);
                D = e > rmag ? (int64_t)(e / rmag) : 1;
            }
            /* x >= 0: x / v = sign(v) * floor(x / |v|), constant over aligned runs of
             * min(c_l, D_l, pow2(v)) consecutive values */
            if (rc && l->nonneg) k = max64(k, min64(cl, min64(Dl, pow2_div(rmag))));
            break;
        case OP_REM:
            /* x >= 0, runs s..s+g-1 with s and v multiples of g: no multiple of v inside;
             * v may be a run-time value, constant over the run (Triton's rule too: the
             * tutorial's (pid * BLOCK + arange) % N keeps runs of N's divisibility when
             * N is known nonzero, which the runtime's specialisation on multiples of 16
             * says; x % 0 = 0 would break the runs) */
            if (rc && l->nonneg) c = min64(cl, min64(Dl, pow2_div(rmag)));
            else if (!rc && l->nonneg && r->nonzero)
                c = min64(min64(cl, kr), min64(Dl, elem_div(r, 1)));
            D = min64(operand_div(l, d, c, 1), operand_div(r, d, c, 1)); /* x - q*v */
            break;
        case OP_AND: D = max64(elem_div(l, 1), elem_div(r, 1)); break;
        case OP_OR:
        case OP_XOR: D = min64(elem_div(l, 1), elem_div(r, 1)); break;
        case OP_SHL:
            if (rc && amt == 0) {
                c = cl, D = Dl;
            } else if (rc) { /* 0 < amt < bits */
                D = elem_div(l, 1);
                for (uint64_t i = 0; i < amt && D < AXIS_INFO_MAX_DIVISIBILITY; i++) D *= 2;
            } else { /* x * 2^s, or 0 */
                D = elem_div(l, 1);
            }
            break;
        case OP_SHR:
            if (rc && amt == 0) {
                c = cl, D = Dl;
            } else if (rc && amt < (uint64_t)bits) {
                int64_t e = elem_div(l, 1),
                        p = amt >= 30 ? AXIS_INFO_MAX_DIVISIBILITY : (int64_t)1 << amt;
                D = e > p ? e / p : 1;
                /* floor division by 2^amt (either sign): aligned runs of min(c_l, D_l,
                 * 2^amt) consecutive values stay in one bucket */
                k = max64(k, min64(cl, min64(Dl, p)));
            }
            break;
        case OP_MIN:
        case OP_MAX:
            c = min64(cl, cr);
            D = min64(operand_div(l, d, c, 1), operand_div(r, d, c, 1));
            break;
        default: break; /* umulhi */
        }
        x.ai.contiguity[d] = c;
        x.ai.constancy[d] = k;
        x.ai.divisibility[d] = D;
    }
    switch (op->code) {
    case OP_ADD:
    case OP_MUL:
    case OP_OR:
    case OP_XOR:
    case OP_MIN:
    case OP_IDIV: x.nonneg = l->nonneg && r->nonneg; break;
    case OP_REM:
    case OP_SHR: x.nonneg = l->nonneg; break;
    case OP_AND:
    case OP_MAX: x.nonneg = l->nonneg || r->nonneg; break;
    default: break;
    }
    return x;
}

static Fact unary(const IrOp *op, IrType t, const Fact *a) {
    Fact x = neutral(t);
    for (int d = 0; d < ndims(t); d++) {
        x.ai.constancy[d] = a->ai.constancy[d];
        if (op->code != OP_NOT) x.ai.divisibility[d] = elem_div(a, 1);
    }
    if (op->code == OP_ABS) x.nonneg = a->nonneg;
    return x;
}

static Fact compare(const IrOp *op, IrType t, IrType ot, const Fact *l, const Fact *r) {
    Fact x = neutral(t);
    bool ints = dt_is_int(ot.dt) && tracked(ot);
    for (int d = 0; d < ndims(t); d++) {
        int64_t k = min64(l->ai.constancy[d], r->ai.constancy[d]);
        if (ints && (op->attr[0] == CMP_PRED_LT || op->attr[0] == CMP_PRED_GE))
            k = max64(k, min64(min64(l->ai.contiguity[d], l->ai.divisibility[d]),
                               min64(elem_div(r, 1), r->ai.constancy[d])));
        else if (ints && (op->attr[0] == CMP_PRED_LE || op->attr[0] == CMP_PRED_GT))
            k = max64(k, min64(min64(r->ai.contiguity[d], r->ai.divisibility[d]),
                               min64(elem_div(l, 1), l->ai.constancy[d])));
        x.ai.constancy[d] = k;
    }
    if (ints && l->has_const && r->has_const) {
        int64_t a = l->cval, b = r->cval;
        bool lt, eq = a == b;
        if (is_unsigned(ot.dt)) lt = (uint64_t)a < (uint64_t)b;
        else lt = a < b;
        bool v = false;
        switch (op->attr[0]) {
        case CMP_PRED_EQ: v = eq; break;
        case CMP_PRED_NE: v = !eq; break;
        case CMP_PRED_LT: v = lt; break;
        case CMP_PRED_LE: v = lt || eq; break;
        case CMP_PRED_GT: v = !lt && !eq; break;
        default: v = !lt; break;
        }
        return const_fact(t, v);
    }
    return x;
}

static Fact select_fact(IrType t, const Fact *m, const Fact *a, const Fact *b) {
    if (m->has_const) return m->cval ? *a : *b;
    Fact x = neutral(t);
    int64_t u = unit_of(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t km = m->ai.constancy[d];
        int64_t c = min64(min64(a->ai.contiguity[d], b->ai.contiguity[d]), km);
        x.ai.contiguity[d] = c;
        x.ai.constancy[d] = min64(min64(a->ai.constancy[d], b->ai.constancy[d]), km);
        x.ai.divisibility[d] = min64(operand_div(a, d, c, u), operand_div(b, d, c, u));
    }
    x.nonneg = a->nonneg && b->nonneg;
    if (a->has_const && b->has_const && a->cval == b->cval) x.has_const = true, x.cval = a->cval;
    return x;
}

/* Integer -> integer (cvt, or a same-width bitcast): the low bits survive, so D and k
 * do; the integer value survives where the target holds every value the source can
 * have (the source's non-negative ones where it is known non-negative). Where it may
 * not (narrowing, or a change of signedness), the values wrap at multiples of
 * 2^(tb-1) of the source (0 included), and a run s..s+g-1 with s a multiple of g cannot
 * cross one when g <= min(D, 2^(tb-1)): runs are cut to that. */
static Fact int_to_int(IrType t, IrType s, const Fact *a) {
    Fact x = *a;
    int tb = dt_bits(t.dt), sb = dt_bits(s.dt);
    bool su = is_unsigned(s.dt), tu = is_unsigned(t.dt);
    bool keeps = (su == tu && tb >= sb) || (su && !tu && tb > sb) || (a->nonneg && !su && tb >= sb);
    if (!keeps) {
        int64_t cap = tb - 1 >= 30 ? AXIS_INFO_MAX_DIVISIBILITY : (int64_t)1 << (tb - 1);
        for (int d = 0; d < ndims(t); d++) {
            int64_t nc = min64(a->ai.contiguity[d], min64(a->ai.divisibility[d], cap));
            x.ai.contiguity[d] = nc;
            x.ai.divisibility[d] = operand_div(a, d, nc, 1);
        }
    }
    x.nonneg = tu || (keeps && a->nonneg);
    if (a->has_const) return const_fact(t, a->cval); /* wraps to the new width */
    return x;
}

static Fact convert(IrType t, IrType s, const Fact *a) {
    Fact x = neutral(t);
    if (!tracked(s) || !tracked(t) || t.dt == DT_PTR || s.dt == DT_PTR) return x;
    if (t.dt == DT_I1) { /* x != 0 */
        for (int d = 0; d < ndims(t); d++) x.ai.constancy[d] = a->ai.constancy[d];
        if (a->has_const) return const_fact(t, a->cval != 0);
        return x;
    }
    return int_to_int(t, s, a);
}

static Fact bitcast(IrType t, IrType s, const Fact *a) {
    Fact x = neutral(t);
    if (!tracked(s) || !tracked(t)) return x;
    if (s.dt != DT_PTR && t.dt != DT_PTR) return int_to_int(t, s, a);
    /* pointer <-> integer or pointer: addresses in bytes (below 2^63) */
    int64_t us = unit_of(s), ut = unit_of(t);
    for (int d = 0; d < ndims(t); d++) {
        x.ai.constancy[d] = a->ai.constancy[d];
        if (us == ut) {
            x.ai.contiguity[d] = a->ai.contiguity[d];
            x.ai.divisibility[d] = a->ai.divisibility[d];
        } else {
            x.ai.divisibility[d] = elem_div(a, us);
        }
    }
    x.nonneg = t.dt != DT_PTR;
    return x;
}

static Fact addptr(IrType t, const Fact *p, const Fact *o) {
    Fact x = neutral(t);
    int64_t u = unit_of(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t cp = p->ai.contiguity[d], co = o->ai.contiguity[d];
        int64_t kp = p->ai.constancy[d], ko = o->ai.constancy[d];
        int64_t c = max64(min64(cp, ko), min64(kp, co));
        x.ai.contiguity[d] = c;
        x.ai.constancy[d] = min64(kp, ko);
        x.ai.divisibility[d] = min64(operand_div(p, d, c, u), mul_div(operand_div(o, d, c, 1), u));
    }
    return x;
}

static Fact splat(IrType t, const Fact *s, int64_t u) {
    Fact x = neutral(t);
    for (int d = 0; d < ndims(t); d++) {
        x.ai.divisibility[d] = elem_div(s, u);
        x.ai.constancy[d] = dim_size(t, d);
    }
    x.nonneg = s->nonneg;
    x.nonzero = s->nonzero;
    x.has_const = s->has_const, x.cval = s->cval;
    return x;
}

static Fact broadcast(IrType t, IrType s, const Fact *a) {
    Fact x = *a;
    for (int d = 0; d < t.rank && d < s.rank; d++)
        if (s.shape[d] == 1 && t.shape[d] != 1) {
            x.ai.contiguity[d] = 1;
            x.ai.constancy[d] = t.shape[d];
        }
    return x;
}

static Fact expand_dims(IrType t, IrType s, const Fact *a, int64_t axis) {
    Fact x = neutral(t);
    if (axis < 0 || axis > s.rank || t.rank != s.rank + 1) return x;
    int64_t u = unit_of(t);
    for (int d = 0, e = 0; d < t.rank; d++) {
        if (d == axis) {
            x.ai.divisibility[d] = elem_div(a, u);
            continue;
        }
        x.ai.contiguity[d] = a->ai.contiguity[e];
        x.ai.divisibility[d] = a->ai.divisibility[e];
        x.ai.constancy[d] = a->ai.constancy[e];
        e++;
    }
    x.nonneg = a->nonneg;
    x.nonzero = a->nonzero;
    x.has_const = a->has_const, x.cval = a->cval;
    return x;
}

static void copy_dim(Fact *x, int d, const Fact *a, int e) {
    x->ai.contiguity[d] = a->ai.contiguity[e];
    x->ai.divisibility[d] = a->ai.divisibility[e];
    x->ai.constancy[d] = a->ai.constancy[e];
}

static Fact reshape(IrType t, IrType s, const Fact *a) {
    Fact x = neutral(t);
    int64_t u = unit_of(t), ed = elem_div(a, u);
    bool uniform = true; /* every element equal */
    for (int d = 0; d < s.rank; d++) uniform = uniform && a->ai.constancy[d] >= s.shape[d];
    uniform = uniform || a->has_const;
    for (int d = 0; d < ndims(t); d++) {
        x.ai.divisibility[d] = ed;
        if (uniform) x.ai.constancy[d] = dim_size(t, d);
    }
    if (!uniform && t.rank > 0 && s.rank > 0) {
        int sm[NR_MAX_RANK], tm[NR_MAX_RANK], ns = 0, nt = 0;
        for (int d = 0; d < s.rank; d++)
            if (s.shape[d] != 1) sm[ns++] = d;
        for (int d = 0; d < t.rank; d++)
            if (t.shape[d] != 1) tm[nt++] = d;
        bool squeeze = ns == nt;
        for (int i = 0; i < ns && squeeze; i++) squeeze = s.shape[sm[i]] == t.shape[tm[i]];
        if (squeeze) { /* only dims of 1 inserted or removed: the others keep their facts */
            for (int i = 0; i < ns; i++) copy_dim(&x, tm[i], a, sm[i]);
        } else {
            /* a common suffix of equal dims keeps its facts; the dim before it keeps runs
             * cut to the result's size there (in row-major order the runs are aligned
             * stretches of the flattened index, so they stay inside result rows) */
            int j = 0;
            for (; j < s.rank && j < t.rank && s.shape[s.rank - 1 - j] == t.shape[t.rank - 1 - j];
                 j++)
                copy_dim(&x, t.rank - 1 - j, a, s.rank - 1 - j);
            if (j < s.rank && j < t.rank) {
                int dl = t.rank - 1 - j, sl = s.rank - 1 - j;
                int64_t L = t.shape[dl];
                int64_t c = min64(a->ai.contiguity[sl], L);
                x.ai.contiguity[dl] = c;
                x.ai.constancy[dl] = min64(a->ai.constancy[sl], L);
                x.ai.divisibility[dl] = max64(ed, operand_div(a, sl, c, u));
            }
        }
    }
    x.nonneg = a->nonneg;
    x.has_const = a->has_const, x.cval = a->cval;
    return x;
}

static Fact trans(IrType t, const IrOp *op, const Fact *a) {
    Fact x = neutral(t);
    for (int d = 0; d < t.rank; d++) {
        int64_t p = op->attr[d];
        if (p < 0 || p >= t.rank) return neutral(t);
        x.ai.contiguity[d] = a->ai.contiguity[p];
        x.ai.divisibility[d] = a->ai.divisibility[p];
        x.ai.constancy[d] = a->ai.constancy[p];
    }
    x.nonneg = a->nonneg;
    x.has_const = a->has_const, x.cval = a->cval;
    return x;
}

static Fact hint(const IrOp *op, IrType t, const Fact *a) {
    Fact x = *a;
    for (int d = 0; d < ndims(t) && d < IR_OP_NATTR; d++) {
        if (op->attr[d] <= 0) continue;
        int64_t h = pow2_div((uint64_t)op->attr[d]);
        if (op->code == OP_MULTIPLE_OF) x.ai.divisibility[d] = max64(x.ai.divisibility[d], h);
        else if (op->code == OP_MAX_CONSTANCY && t.rank)
            x.ai.constancy[d] = max64(x.ai.constancy[d], min64(h, dim_size(t, d)));
        else if (t.rank) x.ai.contiguity[d] = max64(x.ai.contiguity[d], min64(h, dim_size(t, d)));
    }
    return x;
}

/* The values an op's region hands on: its terminator's operands (yield or condition). */
static const IrOp *terminator(const Analyzer *A, RegionId r) {
    if (r == 0 || r >= A->f->nregions) return NULL;
    const IrRegion *reg = &A->f->regions[r];
    if (!reg->nops) return NULL;
    OpId o = reg->ops[reg->nops - 1];
    if (o == 0 || o >= A->f->nops) return NULL;
    const IrOp *op = &A->f->ops[o];
    return op->code == OP_YIELD || op->code == OP_CONDITION ? op : NULL;
}

static uint32_t region_nargs(const Analyzer *A, RegionId r) {
    return r && r < A->f->nregions ? A->f->regions[r].nargs : 0;
}

static ValId region_arg(const Analyzer *A, RegionId r, uint32_t i) {
    return r && r < A->f->nregions && i < A->f->regions[r].nargs ? A->f->regions[r].args[i] : 0;
}

/* Loop-carried values: args[i] of region r0 (from index skip) start at inits[i] and meet
 * the yields of region ry (operand i) until nothing changes. Region r1 (while's body, or
 * 0) gets the same facts on its args. */
static void loop_fixed_point(Analyzer *A, RegionId r0, RegionId r1, RegionId ry, uint32_t skip,
                             const ValId *inits, uint32_t n, int depth) {
    for (uint32_t i = 0; i < n; i++) {
        ValId a = region_arg(A, r0, skip + i);
        if (a) set(A, a, get(A, inits[i]));
        ValId b = region_arg(A, r1, i);
        if (b) set(A, b, get(A, inits[i]));
    }
    for (int it = 0;; it++) {
        if (A->budget <= 0) break; /* out of work: go straight to neutral */
        visit_region(A, r0, depth + 1);
        if (r1) visit_region(A, r1, depth + 1);
        const IrOp *y = terminator(A, ry);
        bool changed = false;
        for (uint32_t i = 0; i < n; i++) {
            ValId a = region_arg(A, r0, skip + i);
            if (!a) continue;
            Fact cur = get(A, a);
            Fact nf = cur;
            if (y && y->code == OP_YIELD && i < y->nopnds) {
                Fact yf = get(A, y->operands[i]);
                nf = meet(&cur, &yf, vty(A, a));
            } else {
                nf = neutral(vty(A, a));
            }
            if (!fact_equal(&nf, &cur)) {
                changed = true;
                set(A, a, nf);
                ValId b = region_arg(A, r1, i);
                if (b) set(A, b, nf);
            }
        }
        if (!changed) return;
        if (it + 1 >= MAX_LOOP_ITERS) break;
    }
    /* give up on the carried values: neutral is below anything a yield can give */
    for (uint32_t i = 0; i < n; i++) {
        set_neutral(A, region_arg(A, r0, skip + i));
        set_neutral(A, region_arg(A, r1, i));
    }
    visit_region(A, r0, depth + 1);
    if (r1) visit_region(A, r1, depth + 1);
}

static void visit_for(Analyzer *A, const IrOp *op, int depth) {
    RegionId body = op->region[0];
    if (op->nopnds < 3) {
        for (uint32_t i = 0; i < op->nres; i++) set_neutral(A, op->results[i]);
        return;
    }
    ValId iv = region_arg(A, body, 0);
    if (iv) {
        Fact lb = get(A, op->operands[0]), ub = get(A, op->operands[1]),
             st = get(A, op->operands[2]);
        Fact x = neutral(vty(A, iv));
        x.ai.divisibility[0] = min64(lb.ai.divisibility[0], st.ai.divisibility[0]);
        /* step > 0: iv >= lb; step < 0: iv > ub; step 0: no iteration */
        x.nonneg = lb.nonneg && (ub.nonneg || (st.has_const && st.cval > 0));
        x.nn = lb.nn | (st.has_const && st.cval > 0 ? 0 : ub.nn);
        x.ai.spec = lb.ai.spec | st.ai.spec;
        set(A, iv, x);
    }
    uint32_t n = op->nopnds - 3;
    loop_fixed_point(A, body, 0, body, 1, op->operands + 3, n, depth);
    for (uint32_t i = 0; i < op->nres; i++) {
        ValId a = region_arg(A, body, 1 + i);
        if (a && i < n) set(A, op->results[i], get(A, a));
        else set_neutral(A, op->results[i]);
    }
}

static void visit_while(Analyzer *A, const IrOp *op, int depth) {
    RegionId before = op->region[0], after = op->nregions > 1 ? op->region[1] : 0;
    uint32_t n = op->nopnds;
    if (region_nargs(A, before) < n) n = region_nargs(A, before);
    loop_fixed_point(A, before, after, after, 0, op->operands, n, depth);
    for (uint32_t i = 0; i < op->nres; i++) {
        ValId a = region_arg(A, before, i);
        if (a && i < n) set(A, op->results[i], get(A, a));
        else set_neutral(A, op->results[i]);
    }
}

static void visit_if(Analyzer *A, const IrOp *op, int depth) {
    for (uint32_t r = 0; r < op->nregions && r < 2; r++) visit_region(A, op->region[r], depth + 1);
    const IrOp *y0 = op->nregions > 0 ? terminator(A, op->region[0]) : NULL;
    const IrOp *y1 = op->nregions > 1 ? terminator(A, op->region[1]) : NULL;
    Fact c = op->nopnds ? get(A, op->operands[0]) : neutral(ty_scalar(DT_I1));
    for (uint32_t i = 0; i < op->nres; i++) {
        ValId v = op->results[i];
        if (!valid_val(A, v)) continue;
        bool ok0 = y0 && y0->code == OP_YIELD && i < y0->nopnds;
        bool ok1 = y1 && y1->code == OP_YIELD && i < y1->nopnds;
        if (c.has_const && (c.cval ? ok0 : ok1)) {
            set(A, v, get(A, (c.cval ? y0 : y1)->operands[i]));
        } else if (ok0 && ok1) {
            Fact a = get(A, y0->operands[i]), b = get(A, y1->operands[i]);
            set(A, v, meet(&a, &b, vty(A, v)));
        } else {
            set_neutral(A, v);
        }
    }
}

/* assume(cmp(x, 0)) or assume(cmp(0, x)): what the comparison promises of x's sign. */
static void visit_assume(Analyzer *A, const IrOp *op) {
    const IrFunc *f = A->f;
    ValId c = op->nopnds == 1 ? op->operands[0] : 0;
    OpId d = valid_val(A, c) ? ir_def(f, c) : 0;
    if (!d || f->ops[d].code != OP_CMP || f->ops[d].nopnds != 2) return;
    const IrOp *cmp = &f->ops[d];
    ValId x = cmp->operands[0], z = cmp->operands[1];
    int64_t pred = cmp->attr[0];
    Fact zf = get(A, z);
    if (!(zf.has_const && zf.cval == 0)) { /* 0 on the left: mirror the predicate */
        Fact xf = get(A, x);
        if (!(xf.has_const && xf.cval == 0)) return;
        ValId t = x;
        x = z, z = t;
        pred = pred == CMP_PRED_LE   ? CMP_PRED_GE
               : pred == CMP_PRED_LT ? CMP_PRED_GT
               : pred == CMP_PRED_GE ? CMP_PRED_LE
               : pred == CMP_PRED_GT ? CMP_PRED_LT
                                     : pred;
    }
    if (!tracked(vty(A, x))) return;
    /* the promise holds where the assume runs; x has one fact, so only an assume in the
     * region that defines x (on every path from x to its uses, loops aside, where x is
     * redefined each iteration) may give it: one inside an if says nothing of x in the
     * other branch */
    const IrValue *xv = &f->vals[x];
    RegionId home = xv->is_arg ? xv->def : f->ops[xv->def].parent;
    if (op->parent != home) return;
    Fact xf = get(A, x);
    if (pred == CMP_PRED_GE || pred == CMP_PRED_GT) xf.nonneg = true, xf.nn = 0;
    if (pred == CMP_PRED_GT || pred == CMP_PRED_NE) xf.nonzero = true;
    set(A, x, xf);
}

/* ---- speculation ----
 *
 * With A->S set, a scalar signed integer of the kernel's top level (a parameter, or the
 * result of an op in the body's region itself) that the rules cannot prove non-negative
 * becomes a root, taken as >= 0 (up to AXIS_INFO_MAX_ROOTS of them, in program order).
 * Every fact records the roots it relies on: nn for its sign, ai.spec for c, D and k;
 * a result's c, D and k rely on its operands' (and on the lhs's sign for the rules that
 * read it: rem, idiv, conversions of blocks), its sign on its operands' signs. By induction, a
 * value's facts hold whenever the roots in its ai.spec are >= 0 at run time. A root
 * dominates every use of a fact that relies on it: facts flow along def-use edges and
 * into loops (a loop of the top level is after the roots its values use; a root is never
 * inside a loop, so no fact carried from one iteration to the next relies on a root of
 * another iteration), which is why roots are top-level values only: the code generator
 * reads a root where an access needs it, and it is in scope there. */

/* The roots op's result x relies on, from its operands o (the first n). */
static void inherit(Fact *x, const IrOp *op, const Fact *o, uint32_t n) {
    uint32_t spec = 0, nn = 0;
    for (uint32_t i = 0; i < n; i++) spec |= o[i].ai.spec, nn |= o[i].nn;
    switch (op->code) {
    case OP_REM:
    case OP_SHR: nn = n ? o[0].nn : 0; break; /* the sign is the lhs's */
    case OP_AND:
    case OP_MAX: /* non-negative because one side is */
        if (n == 2) nn = o[0].nonneg ? o[0].nn : o[1].nn;
        break;
    default: break;
    }
    /* the lhs's sign, which the rules read for blocks only (a scalar's runs are 1) */
    bool reads_sign =
        x->ai.rank > 0 && n > 0 &&
        (op->code == OP_REM || op->code == OP_IDIV || op->code == OP_CVT || op->code == OP_BITCAST);
    if (reads_sign) x->ai.spec |= o[0].nn;
    x->ai.spec |= spec;
    x->nn = x->nonneg ? x->nn | nn : 0;
}

/* v (x its facts) as a root, if it can be one. */
static void make_root(Analyzer *A, ValId v, Fact *x) {
    IrType t = vty(A, v);
    AxisSpeculation *S = A->S;
    if (t.rank || !dt_is_int(t.dt) || !dt_is_signed(t.dt) || t.dt == DT_I1 ||
        S->nroots >= AXIS_INFO_MAX_ROOTS)
        return;
    for (int i = 0; i < S->nroots; i++)
        if (S->roots[i] == v) return;
    x->nonneg = true;
    x->nn = (uint32_t)1 << S->nroots;
    S->roots[S->nroots++] = v;
}

static void visit_op(Analyzer *A, OpId id, int depth) {
    const IrFunc *f = A->f;
    const IrOp *op = &f->ops[id];
    A->budget--;
    switch (op->code) {
    case OP_FOR: visit_for(A, op, depth); return;
    case OP_WHILE: visit_while(A, op, depth); return;
    case OP_IF: visit_if(A, op, depth); return;
    case OP_ASSUME: visit_assume(A, op); return;
    default: break;
    }
    for (uint32_t r = 0; r < op->nregions && r < 2; r++) visit_region(A, op->region[r], depth + 1);
    if (op->nres != 1 || !valid_val(A, op->results[0])) {
        for (uint32_t i = 0; i < op->nres; i++) set_neutral(A, op->results[i]);
        return;
    }
    ValId res = op->results[0];
    IrType t = vty(A, res);
    if (!tracked(t)) {
        set_neutral(A, res);
        return;
    }
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (!valid_val(A, op->operands[i])) {
            set_neutral(A, res);
            return;
        }
    Fact o[3];
    IrType ot[3];
    for (uint32_t i = 0; i < op->nopnds && i < 3; i++)
        o[i] = get(A, op->operands[i]), ot[i] = vty(A, op->operands[i]);
    Fact x = neutral(t);
    bool known = true;
    switch (op->code) {
    case OP_CONST: x = const_fact(t, op->attr[0]); break;
    case OP_ARANGE:
        x.ai.contiguity[0] = op->attr[1] - op->attr[0];
        x.ai.divisibility[0] = pow2_div((uint64_t)op->attr[0]);
        x.nonneg = op->attr[0] >= 0;
        break;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS: x.nonneg = true; break;
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_IDIV:
    case OP_REM:
    case OP_AND:
    case OP_OR:
    case OP_XOR:
    case OP_SHL:
    case OP_SHR:
    case OP_MIN:
    case OP_MAX:
    case OP_UMULHI:
        if (op->nopnds == 2 && ty_equal(ot[0], t) && ty_equal(ot[1], t))
            x = binary(op, t, &o[0], &o[1]);
        break;
    case OP_NEG:
    case OP_NOT:
    case OP_ABS:
        if (op->nopnds == 1 && ty_equal(ot[0], t)) x = unary(op, t, &o[0]);
        break;
    case OP_CMP:
        if (op->nopnds == 2 && ty_same_shape(ot[0], t)) x = compare(op, t, ot[0], &o[0], &o[1]);
        break;
    case OP_SELECT:
        if (op->nopnds == 3 && ty_equal(ot[1], t) && ty_equal(ot[2], t))
            x = select_fact(t, &o[0], &o[1], &o[2]);
        break;
    case OP_CVT:
        if (op->nopnds == 1 && ty_same_shape(ot[0], t)) x = convert(t, ot[0], &o[0]);
        break;
    case OP_BITCAST:
        if (op->nopnds == 1 && ty_same_shape(ot[0], t)) x = bitcast(t, ot[0], &o[0]);
        break;
    case OP_ADDPTR:
        if (op->nopnds == 2 && ty_same_shape(ot[0], t) && ty_same_shape(ot[1], t))
            x = addptr(t, &o[0], &o[1]);
        break;
    case OP_SPLAT:
        if (op->nopnds == 1 && ot[0].rank == 0) x = splat(t, &o[0], unit_of(t));
        break;
    case OP_BROADCAST:
        if (op->nopnds == 1 && ot[0].rank == t.rank) x = broadcast(t, ot[0], &o[0]);
        break;
    case OP_EXPAND_DIMS:
        if (op->nopnds == 1) x = expand_dims(t, ot[0], &o[0], op->attr[0]);
        break;
    case OP_RESHAPE:
        if (op->nopnds == 1) x = reshape(t, ot[0], &o[0]);
        break;
    case OP_TRANS:
        if (op->nopnds == 1 && ot[0].rank == t.rank) x = trans(t, op, &o[0]);
        break;
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS:
    case OP_MAX_CONSTANCY:
        if (op->nopnds == 1 && ty_equal(ot[0], t)) x = hint(op, t, &o[0]);
        break;
    case OP_CONVERT_LAYOUT: /* the same values, elsewhere */
        if (op->nopnds == 1 && ty_equal(ot[0], t)) x = o[0];
        break;
    case OP_DESC_PART: { /* a descriptor parameter divisible by 16: base 16-byte aligned, strides
                            16-byte multiples */
        ValId d = op->operands[0];
        IrType dt = vty(A, d);
        int r = dt.rank, part = (int)op->attr[0];
        bool div = A->pf && f->vals[d].is_arg && f->vals[d].def == f->body &&
                   A->pf[f->vals[d].index].divisibility >= 16;
        if (div && part == 0) x.ai.divisibility[0] = 16, x.nonzero = true;
        if (div && part > r && part < 2 * r)
            x.ai.divisibility[0] = 16 / dt_bytes(dt.pointee), x.nonneg = true;
        if (part >= 1 && part <= r) x.nonneg = true;
        break;
    }
    default: known = false; break; /* load, atomics, reduce, dot, call, ...: neutral */
    }
    if (A->S && known) inherit(&x, op, o, op->nopnds < 3 ? op->nopnds : 3);
    if (A->S) {
        x = normalise(x, t);
        if (!x.nonneg && op->parent == f->body) make_root(A, res, &x);
    }
    set(A, res, x);
}

static void visit_region(Analyzer *A, RegionId r, int depth) {
    const IrFunc *f = A->f;
    if (r == 0 || r >= f->nregions || depth > 1000) return;
    const IrRegion *reg = &f->regions[r];
    for (uint32_t i = 0; i < reg->nops; i++) {
        OpId o = reg->ops[i];
        if (o > 0 && o < f->nops) visit_op(A, o, depth);
    }
}

static AxisInfo *analyze(const IrFunc *f, const ParamFact *facts, Arena *arena,
                         AxisSpeculation *S) {
    AxisInfo *out = arena_alloc(arena, sizeof(AxisInfo) * (f->nvals ? f->nvals : 1));
    Analyzer A = {f, facts, calloc(f->nvals ? f->nvals : 1, sizeof(Fact)), 0, S};
    if (!A.facts) NR_DIE("out of memory");
    A.budget = 64 * ((int64_t)f->nops + 16);
    for (uint32_t v = 0; v < f->nvals; v++) A.facts[v] = neutral(f->vals[v].ty);
    if (f->body && f->body < f->nregions) {
        const IrRegion *body = &f->regions[f->body];
        for (uint32_t i = 0; i < body->nargs; i++) {
            ValId p = body->args[i];
            if (!valid_val(&A, p)) continue;
            Fact x = neutral(vty(&A, p));
            if (facts && tracked(vty(&A, p)) && facts[i].divisibility > 0)
                for (int d = 0; d < ndims(vty(&A, p)); d++)
                    x.ai.divisibility[d] = pow2_div((uint64_t)facts[i].divisibility);
            if (facts && tracked(vty(&A, p))) x.nonzero = facts[i].nonzero;
            if (S) make_root(&A, p, &x);
            set(&A, p, x);
        }
        visit_region(&A, f->body, 0);
    }
    for (uint32_t v = 0; v < f->nvals; v++) out[v] = A.facts[v].ai;
    free(A.facts);
    return out;
}

AxisInfo *axis_info_analyze(const IrFunc *f, const ParamFact *facts, Arena *arena) {
    return analyze(f, facts, arena, NULL);
}

AxisSpeculation *axis_info_speculate(const IrFunc *f, const ParamFact *facts, Arena *arena) {
    AxisSpeculation *s = arena_alloc(arena, sizeof *s);
    memset(s, 0, sizeof *s);
    s->proven = analyze(f, facts, arena, NULL);
    s->info = analyze(f, facts, arena, s);
    return s;
}

uint32_t axis_info_guard(const AxisSpeculation *s, ValId ptr, ValId mask, int elem_bytes,
                         int order_dim, int max_width) {
    const AxisInfo *ms = mask ? &s->info[mask] : NULL, *mp = mask ? &s->proven[mask] : NULL;
    int fast = axis_info_vector_width(&s->info[ptr], ms, elem_bytes, order_dim);
    int slow = axis_info_vector_width(&s->proven[ptr], mp, elem_bytes, order_dim);
    if (max_width >= 1) fast = fast < max_width ? fast : max_width;
    return fast > slow ? s->info[ptr].spec | (ms ? ms->spec : 0) : 0;
}

ParamFact *axis_info_param_facts(const IrFunc *f, int64_t divisibility, Arena *arena) {
    uint32_t n = f->body && f->body < f->nregions ? f->regions[f->body].nargs : 0;
    ParamFact *p = arena_alloc(arena, sizeof(ParamFact) * (n ? n : 1));
    for (uint32_t i = 0; i < n; i++) {
        ValId v = f->regions[f->body].args[i];
        IrType t = v < f->nvals ? f->vals[v].ty : ty_scalar(DT_VOID);
        p[i].divisibility =
            (t.dt == DT_PTR || (dt_is_int(t.dt) && t.dt != DT_I1)) && divisibility > 0
                ? divisibility
                : 1;
        p[i].nonzero = p[i].divisibility > 1;
    }
    return p;
}

static int64_t prefix_width(const IrFunc *f, const AxisInfo *info, ValId m, int dim, int depth) {
    IrType t = f->vals[m].ty;
    if (!t.rank || dim >= t.rank) return 1;
    int64_t size = t.shape[dim], base = min64(info[m].constancy[dim], size);
    OpId id = f->vals[m].is_arg ? 0 : ir_def(f, m);
    if (!id || depth > 16) return base;
    const IrOp *op = &f->ops[id];
    int64_t w = 1;
    switch (op->code) {
    case OP_AND:
    case OP_OR: /* the intersection or the union of two prefixes is a prefix */
        w = min64(prefix_width(f, info, op->operands[0], dim, depth + 1),
                  prefix_width(f, info, op->operands[1], dim, depth + 1));
        break;
    case OP_SPLAT: w = size; break;
    case OP_BROADCAST: {
        IrType s = f->vals[op->operands[0]].ty;
        if (s.rank != t.rank) break;
        w = s.shape[dim] == 1 ? size : prefix_width(f, info, op->operands[0], dim, depth + 1);
        break;
    }
    case OP_EXPAND_DIMS: {
        int axis = (int)op->attr[0];
        w = dim == axis
                ? size
                : prefix_width(f, info, op->operands[0], dim < axis ? dim : dim - 1, depth + 1);
        break;
    }
    case OP_CMP: {
        ValId x, b;
        bool le;
        w = axis_info_prefix_cmp(f, info, id, dim, &x, &b, &le);
        break;
    }
    default: break;
    }
    return pow2_floor(max64(base, min64(w, size)));
}

int64_t axis_info_prefix_cmp(const IrFunc *f, const AxisInfo *info, OpId cmp, int dim, ValId *x,
                             ValId *b, bool *le) {
    const IrOp *op = &f->ops[cmp];
    if (op->code != OP_CMP || op->nres != 1) return 0;
    int pred = (int)op->attr[0];
    if (pred == CMP_PRED_LT || pred == CMP_PRED_LE) *x = op->operands[0], *b = op->operands[1];
    else if (pred == CMP_PRED_GT || pred == CMP_PRED_GE) *x = op->operands[1], *b = op->operands[0];
    else return 0;
    int rank = f->vals[op->results[0]].ty.rank;
    if (!dt_is_int(f->vals[*x].ty.dt) || f->vals[*x].ty.rank != rank || dim < 0 || dim >= rank)
        return 0;
    *le = pred == CMP_PRED_LE || pred == CMP_PRED_GE;
    /* x rising by one along the run from a multiple of the run, b constant over it */
    return min64(min64(info[*x].contiguity[dim], info[*x].divisibility[dim]),
                 info[*b].constancy[dim]);
}

int axis_info_prefix_width(const IrFunc *f, const AxisInfo *info, ValId mask, int dim) {
    if (!f || !info || !mask || dim < 0 || dim >= NR_MAX_RANK) return 1;
    return (int)prefix_width(f, info, mask, dim, 0);
}

int axis_info_copy_width(const IrFunc *f, const AxisInfo *info, ValId ptr, ValId mask,
                         int elem_bytes, int dim) {
    int w = axis_info_vector_width(&info[ptr], NULL, elem_bytes, dim);
    if (mask) {
        int pw = axis_info_prefix_width(f, info, mask, dim);
        if (w > pw) w = pw;
    }
    return w;
}

int axis_info_vector_width(const AxisInfo *ptr_info, const AxisInfo *mask_info, int elem_bytes,
                           int order_dim) {
    if (!ptr_info || elem_bytes <= 0 || elem_bytes > 16 || order_dim < 0 ||
        order_dim >= NR_MAX_RANK)
        return 1;
    if (ptr_info->rank == 0 || order_dim >= ptr_info->rank) return 1;
    int64_t w =
        min64(ptr_info->contiguity[order_dim], ptr_info->divisibility[order_dim] / elem_bytes);
    w = min64(w, 16 / elem_bytes);
    if (mask_info && mask_info->rank)
        w = min64(w, order_dim < mask_info->rank ? mask_info->constancy[order_dim] : 1);
    return (int)pow2_floor(w);
}

/* ---- printing, numbered like ir_print_func ---- */

typedef struct Printer {
    StrBuf *out;
    const IrFunc *f;
    const AxisInfo *info;
    const AxisSpeculation *S; /* or NULL */
    uint32_t *num;            /* by ValId: its number + 1 (ir_print numbers a value once) */
    uint32_t next;
} Printer;

static void put_list(StrBuf *out, const char *name, const int64_t *v, int rank) {
    sb_printf(out, "%s = [", name);
    for (int d = 0; d < (rank ? rank : 1); d++)
        sb_printf(out, "%s%lld", d ? ", " : "", (long long)v[d]);
    sb_puts(out, "]");
}

static void print_value(Printer *P, ValId v) {
    if (v == 0 || v >= P->f->nvals || P->num[v]) return;
    uint32_t n = P->next++;
    P->num[v] = n + 1;
    if (!tracked(P->f->vals[v].ty)) return;
    const AxisInfo *a = &P->info[v];
    sb_printf(P->out, "%%%u: ", n);
    put_list(P->out, "contiguity", a->contiguity, a->rank);
    sb_puts(P->out, ", ");
    put_list(P->out, "divisibility", a->divisibility, a->rank);
    sb_puts(P->out, ", ");
    put_list(P->out, "constancy", a->constancy, a->rank);
    for (int i = 0, first = 1; P->S && i < P->S->nroots; i++)
        if (a->spec >> i & 1) {
            ValId r = P->S->roots[i];
            sb_printf(P->out, "%s%%%u >= 0", first ? ", if " : ", ", P->num[r] ? P->num[r] - 1 : 0);
            first = 0;
        }
    sb_putc(P->out, '\n');
}

static void print_region(Printer *P, RegionId r, int depth) {
    const IrFunc *f = P->f;
    if (r == 0 || r >= f->nregions || depth > 256) return;
    const IrRegion *reg = &f->regions[r];
    for (uint32_t i = 0; i < reg->nargs; i++) print_value(P, reg->args[i]);
    for (uint32_t i = 0; i < reg->nops; i++) {
        OpId o = reg->ops[i];
        if (o == 0 || o >= f->nops) continue;
        const IrOp *op = &f->ops[o];
        for (uint32_t j = 0; j < op->nres; j++) print_value(P, op->results[j]);
        for (uint32_t j = 0; j < op->nregions && j < 2; j++)
            print_region(P, op->region[j], depth + 1);
    }
}

static void print_facts(StrBuf *out, const IrFunc *f, const AxisInfo *info,
                        const AxisSpeculation *S) {
    Printer P = {out, f, info, S, calloc(f->nvals ? f->nvals : 1, sizeof(uint32_t)), 0};
    if (!P.num) NR_DIE("out of memory");
    print_region(&P, f->body, 0);
    free(P.num);
}

void axis_info_print(StrBuf *out, const IrFunc *f, const AxisInfo *info) {
    print_facts(out, f, info, NULL);
}

void axis_info_print_speculative(StrBuf *out, const IrFunc *f, const AxisSpeculation *s) {
    print_facts(out, f, s->info, s);
}
