/* llvm_scan.c - scan and reduce_fn: a combine function (the op's region: scalar ops on 2n
 * arguments, yielding n) applied along one axis of n blocks, for any layout in which each
 * of the axis's index bits is one register, lane or warp bit (ir_layout_axis_separable:
 * every layout Nereid makes; assign_layouts converts to the default one otherwise).
 *
 * The axis index k = sum of d_j 2^j; its bits d_j are the digits, each carried by one
 * input bit of the layout. The digits are taken from the lowest. After digit j, every
 * element holds `total`, the combination of its block of 2^(j+1) elements (those that
 * agree with it in digits j+1 and up), and `scan`, the combination of that block's
 * elements up to itself (inclusive). At digit j an element's partner differs from it in
 * digit j alone and holds the other half of the new block: the lower half (d_j = 0) comes
 * first in a forward scan, the upper half in a reverse one (which combines the later
 * elements first). For the half that comes second, scan = combine(partner's total, scan);
 * both halves' total = combine(first half's total, second half's). Where the partner is:
 * - a register digit: another register of the same thread. A run of the lowest digits
 *   that are register bits (a thread's consecutive elements) is done as one sequential
 *   scan over those registers instead;
 * - a lane or a warp digit: the same register in the lane (shfl.sync.bfly) or warp
 *   (through the op's scratch in shared memory) whose id differs in that bit
 *   (gen_partner, llvm_axis.c); each thread then selects its role by its own bit.
 * Elements in other coordinates never meet. A scan's combine keeps its operands' order
 * (earlier elements first), so an associative combine need not commute; a float sum
 * rounds in this tree's order, not the interpreter's. reduce_fn takes the register digits
 * first (each thread's elements in order, in one sequential run), then the lane and warp
 * digits, on one register per group: Triton's order for reductions, which takes the
 * combine to commute as well (ir_ops.def), and keeps only the totals: each output
 * register takes the total of an operand register with its coordinates. The
 * region is lowered afresh at every combine (its scalar ops, in order; values defined
 * outside it are read as they are). Register copies (basis 0) are computed once. */
#include <string.h>

#include "gen_internal.h"

enum { MAXN = 16, MEMO = 32 };

typedef struct Scan {
    Gen *g;
    const IrOp *op;
    int n;                              /* operands */
    LLVMValueRef *sc[MAXN], *tot[MAXN]; /* per operand, per register */
    bool want_scan, reverse;
    /* reduce_fn: recent combines and selects, so that registers holding equal values
     * (llvm_uniform.c) combine into one value, which the next exchange then moves once */
    uint32_t deps[MAXN]; /* by output: the region arguments (a_0.., b_0..) it reads */
    struct Memo {
        LLVMValueRef in[2 * MAXN], out[MAXN];
    } memo[MEMO];
    int nmemo;
    struct SelMemo {
        LLVMValueRef c, x, y, r;
    } sel[MEMO * 2];
    int nsel;
} Scan;

/* Which of the combine region's 2n arguments each of its n results reads (an op with
 * regions of its own reads them all). */
static void combine_deps(Scan *s) {
    Gen *g = s->g;
    const IrRegion *r = &g->f->regions[s->op->region[0]];
    uint32_t all = s->n >= 16 ? 0xffffffffu : (1u << (2 * s->n)) - 1;
    uint32_t *m = arena_alloc(g->m->arena, sizeof(uint32_t) * (g->f->nvals ? g->f->nvals : 1));
    memset(m, 0, sizeof(uint32_t) * (g->f->nvals ? g->f->nvals : 1));
    for (uint32_t j = 0; j < r->nargs && j < 32; j++) m[r->args[j]] = 1u << j;
    for (uint32_t i = 0; i + 1 < r->nops; i++) {
        const IrOp *op = &g->f->ops[r->ops[i]];
        uint32_t d = op->nregions ? all : 0;
        for (uint32_t k = 0; k < op->nopnds; k++) d |= m[op->operands[k]];
        for (uint32_t k = 0; k < op->nres; k++) m[op->results[k]] = d;
    }
    const IrOp *y = &g->f->ops[r->ops[r->nops - 1]];
    for (int j = 0; j < s->n; j++) s->deps[j] = j < (int)y->nopnds ? m[y->operands[j]] : all;
}

/* out = combine(a, b) (n values each), the region lowered once more; in a reduce_fn, a
 * result whose arguments are those of a recent combine is that combine's */
static void combine(Scan *s, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *out) {
    Gen *g = s->g;
    const IrRegion *r = &g->f->regions[s->op->region[0]];
    for (int j = 0; j < 2 * s->n; j++) {
        LLVMValueRef *v = gen_alloc_regs(g, 1);
        v[0] = j < s->n ? a[j] : b[j - s->n];
        gen_set(g, r->args[j], v, 1);
    }
    gen_region(g, s->op->region[0]);
    const IrOp *y = &g->f->ops[r->ops[r->nops - 1]];
    for (int j = 0; j < s->n; j++) out[j] = gen_vals(g, y->operands[j], NULL)[0];
    if (s->want_scan) return;
    struct Memo *e = &s->memo[s->nmemo++ % MEMO];
    int have = s->nmemo - 1 < MEMO ? s->nmemo - 1 : MEMO - 1;
    for (int j = 0; j < s->n; j++) {
        for (int q = 1; q <= have; q++) {
            const struct Memo *p = &s->memo[(s->nmemo - 1 - q + MEMO * 4) % MEMO];
            bool same = true;
            for (int k = 0; k < 2 * s->n && same; k++)
                if (s->deps[j] >> k & 1) same = p->in[k] == (k < s->n ? a[k] : b[k - s->n]);
            if (same) {
                out[j] = p->out[j];
                break;
            }
        }
    }
    for (int k = 0; k < 2 * s->n; k++) e->in[k] = k < s->n ? a[k] : b[k - s->n];
    for (int j = 0; j < s->n; j++) e->out[j] = out[j];
}

/* select(c, x, y), the same value for the same operands in a reduce_fn */
static LLVMValueRef select_of(Scan *s, LLVMValueRef c, LLVMValueRef x, LLVMValueRef y) {
    if (!s->want_scan)
        for (int q = 0; q < s->nsel && q < MEMO * 2; q++)
            if (s->sel[q].c == c && s->sel[q].x == x && s->sel[q].y == y) return s->sel[q].r;
    LLVMValueRef r = LLVMBuildSelect(s->g->B, c, x, y, "");
    if (!s->want_scan) s->sel[s->nsel++ % (MEMO * 2)] = (struct SelMemo){c, x, y, r};
    return r;
}

static void get(LLVMValueRef **arr, int n, int r, LLVMValueRef *v) {
    for (int j = 0; j < n; j++) v[j] = arr[j][r];
}
static void put(LLVMValueRef **arr, int n, int r, const LLVMValueRef *v) {
    for (int j = 0; j < n; j++) arr[j][r] = v[j];
}

/* Registers lo and hi (hi's digit set) of one thread meet: which comes first is the scan's
 * direction. */
static void meet_regs(Scan *s, int lo, int hi) {
    LLVMValueRef t_lo[MAXN], t_hi[MAXN], x[MAXN], t[MAXN];
    get(s->tot, s->n, lo, t_lo), get(s->tot, s->n, hi, t_hi);
    int second = s->reverse ? lo : hi;
    LLVMValueRef *first_t = s->reverse ? t_hi : t_lo;
    if (s->want_scan) {
        get(s->sc, s->n, second, x);
        combine(s, first_t, x, x);
        put(s->sc, s->n, second, x);
    }
    if (s->reverse) combine(s, t_hi, t_lo, t);
    else combine(s, t_lo, t_hi, t);
    put(s->tot, s->n, lo, t), put(s->tot, s->n, hi, t);
}

/* Register r meets its partner's total `other`; upper: this thread's digit is 1. */
static void meet_other(Scan *s, int r, LLVMValueRef *other, LLVMValueRef upper) {
    Gen *g = s->g;
    LLVMValueRef mine[MAXN], a[MAXN], b[MAXN], t[MAXN];
    get(s->tot, s->n, r, mine);
    /* this thread's half comes second where (upper and forward) or (lower and reverse) */
    LLVMValueRef second = s->reverse ? LLVMBuildNot(g->B, upper, "") : upper;
    if (s->want_scan) {
        LLVMValueRef x[MAXN], y[MAXN];
        get(s->sc, s->n, r, x);
        combine(s, other, x, y);
        for (int j = 0; j < s->n; j++) x[j] = LLVMBuildSelect(g->B, second, y[j], x[j], "");
        put(s->sc, s->n, r, x);
    }
    for (int j = 0; j < s->n; j++) {
        a[j] = select_of(s, second, other[j], mine[j]);
        b[j] = select_of(s, second, mine[j], other[j]);
    }
    combine(s, a, b, t);
    put(s->tot, s->n, r, t);
}

/* Row-major index of the operand with the axis's bits inserted (as zeros) into an index
 * of the result (as llvm_reduce.c) */
static uint32_t expand(uint32_t f, int shift, int la) {
    return ((f >> shift) << (shift + la)) | (f & ((1u << shift) - 1));
}

void gen_scan(Gen *g, OpId id) {
    const IrOp *op = &g->f->ops[id];
    Scan s = {.g = g,
              .op = op,
              .n = (int)op->nopnds,
              .want_scan = op->code == OP_SCAN,
              .reverse = op->code == OP_SCAN && op->attr[1]};
    if (s.n > MAXN) gen_error(g, op->loc, "internal error: a scan of more than %d blocks", MAXN);
    if (!s.want_scan) combine_deps(&s);
    ValId x = op->operands[0];
    int axis = (int)op->attr[0];
    const GenLayout *xl = gen_layout(g, x);
    const LinearLayout *l = &xl->ll;
    int shift = ll_dim_shift(l, axis), la = l->log2shape[axis], nregs = 1 << l->nbits[LL_REG];
    (void)xl;
    uint32_t live = (uint32_t)(nregs - 1) & ~xl->reg_copies; /* register bits that are not copies */
    for (int j = 0; j < s.n; j++) {
        LLVMValueRef *in = gen_vals(g, op->operands[j], NULL);
        s.sc[j] = gen_alloc_regs(g, nregs), s.tot[j] = gen_alloc_regs(g, nregs);
        for (int r = 0; r < nregs; r++) s.sc[j][r] = s.tot[j][r] = in[r];
    }
    GenDigits dg;
    gen_axis_digits(g, op, x, axis, &dg);
    int *kind = dg.kind, *bit = dg.bit;
    /* the lowest digits in registers: a sequential scan over each group of registers; a
     * reduce_fn takes every register digit first, as Triton's reductions do (a thread's
     * own elements, then lanes, then warps: the combine is taken to commute), so what
     * crosses lanes and warps is one partial per thread */
    int low = 0, regbit[32];
    uint32_t lowmask = 0;
    if (s.want_scan) {
        while (low < la && kind[low] == LL_REG)
            regbit[low] = bit[low], lowmask |= 1u << bit[low], low++;
    } else {
        for (int d = 0; d < la; d++)
            if (kind[d] == LL_REG) regbit[low++] = bit[d], lowmask |= 1u << bit[d];
    }
    if (low) {
        int len = 1 << low;
        for (int base = 0; base < nregs; base++) {
            if (((uint32_t)base & lowmask) || ((uint32_t)base & ~live)) continue;
            int prev = -1;
            for (int p = 0; p < len; p++) {
                int q = s.reverse ? len - 1 - p : p, r = base;
                for (int d = 0; d < low; d++)
                    if (q >> d & 1) r |= 1 << regbit[d];
                if (prev >= 0) {
                    LLVMValueRef a[MAXN], b[MAXN], t[MAXN];
                    get(s.sc, s.n, prev, a), get(s.sc, s.n, r, b);
                    combine(&s, a, b, t);
                    put(s.sc, s.n, r, t);
                }
                prev = r;
            }
            LLVMValueRef t[MAXN];
            get(s.sc, s.n, prev, t); /* the group's total: the last one the scan reached */
            for (int p = 0; p < len; p++) {
                int r = base;
                for (int d = 0; d < low; d++)
                    if (p >> d & 1) r |= 1 << regbit[d];
                put(s.tot, s.n, r, t);
            }
        }
    }
    /* a reduce_fn goes on with one register of each group (the group's total) */
    uint32_t skip = s.want_scan ? 0 : lowmask;
    live &= ~skip;
    for (int d = s.want_scan ? low : 0; d < la; d++) {
        if (!s.want_scan && kind[d] == LL_REG) continue; /* done above */
        if (kind[d] == LL_REG) {
            for (int r = 0; r < nregs; r++)
                if (!((uint32_t)r & ~live) && !(r >> bit[d] & 1)) meet_regs(&s, r, r | 1 << bit[d]);
        } else { /* a lane or a warp: the partner's totals, then each thread's role by its digit */
            LLVMValueRef *other[MAXN];
            int dts[MAXN];
            for (int j = 0; j < s.n; j++)
                other[j] = gen_alloc_regs(g, nregs), dts[j] = ir_type(g->f, op->operands[j]).dt;
            gen_partner(g, op, x, &dg, dg.basis[d], s.n, dts, s.tot, other, skip);
            LLVMValueRef upper = gen_digit_set(g, &dg, d, 0);
            for (int r = 0; r < nregs; r++) {
                if ((uint32_t)r & ~live) continue;
                LLVMValueRef o[MAXN];
                for (int j = 0; j < s.n; j++) o[j] = other[j][r];
                meet_other(&s, r, o, upper);
            }
        }
    }
    if (s.want_scan) {
        for (int j = 0; j < s.n; j++) {
            LLVMValueRef *out = gen_alloc_regs(g, nregs);
            for (int r = 0; r < nregs; r++) out[r] = s.sc[j][(uint32_t)r & live];
            gen_set(g, op->results[j], out, nregs);
        }
        return;
    }
    /* reduce_fn: each output register takes the total of an operand register holding its
     * coordinates (any: after the last digit every element of a line has the line's total) */
    IrType rt = ir_type(g->f, op->results[0]);
    const GenLayout *rl = rt.rank ? gen_layout(g, op->results[0]) : NULL;
    int nout = rl ? 1 << rl->ll.nbits[LL_REG] : 1;
    uint32_t amask = ((1u << la) - 1) << shift;
    for (int j = 0; j < s.n; j++) {
        LLVMValueRef *out = gen_alloc_regs(g, nout);
        for (int o = 0; o < nout; o++) {
            uint32_t key = rl ? expand(ll_apply_dim(&rl->ll, LL_REG, (uint32_t)o), shift, la) : 0;
            int found = -1;
            for (int r = 0; r < nregs && found < 0; r++)
                if (!((uint32_t)r & ~live) &&
                    (ll_apply_dim(l, LL_REG, (uint32_t)r) & ~amask) == key)
                    found = r;
            if (found < 0)
                gen_error(g, op->loc,
                          "internal error: reduce_fn output register %d has no operand register",
                          o);
            out[o] = s.tot[j][found];
        }
        gen_set(g, op->results[j], out, nout);
    }
}
