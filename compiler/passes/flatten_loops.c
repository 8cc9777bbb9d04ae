/* flatten_loops.c - tl.range(..., flatten=True): a loop nest becomes one loop over every
 * (outer, inner) iteration pair (Triton's loop-nest fusion), so that the GPU's software
 * pipeliner sees one loop: it then issues the next outer iteration's first copies while
 * this one's epilogue runs (a persistent matmul's next tile loads under this tile's store).
 *
 * requires:  a verified module, calls inlined. The GPU pipeline runs it after
 *            gpu-tma-pointers (driver/gpu_compile.c), whose maps need the nest's form.
 * maintains: verification; the program's meaning under ir_ops.def.
 * breaks:    nothing; the old nest is left unused (dce removes it).
 *
 * A loop with flatten = 1 (or, on sm_90a, warp_specialize = 1: gpu-pipeline specialises the
 * fused loop) qualifies when its body holds exactly one for loop at its top
 * level, both loops count in i32, the inner loop's bounds and step are computed before the
 * outer loop or by pure scalar ops of the body from such values (those ops move before the
 * loop), and every op of the body before the inner loop is pure and has no regions (the
 * prologue P: it is computed again, below), but for gpu-tma-pointers' fence right before
 * the inner loop (fence_async {global = 1}, barrier), which moves before the fused loop,
 * one more ending each row's epilogue. Other loops keep their shape, the hint ignored, as
 * Triton ignores it where it cannot fuse.
 *
 *   for i in range(lbi, ubi, si) carrying o:
 *       P(i); r = for j in range(lbj, ubj, sj) carrying a from a0: S(i, j, a); E(i, r) -> o
 * becomes, with len_i and len_j the trip counts (i64, by ir_ops.def's rule for for) and
 * inner = max(len_j, 1):
 *   if len_j > 0:
 *     p = P(lbi)   (the prologue's values S reads)
 *     for t in range(0, len_i * inner) carrying kS, iS, kE, iE, o, a, p:
 *       j = lbj + kS * sj
 *       a_in = kE == 0 ? a0(P(iE)) : a
 *       S(iS, j, a_in, p) -> a'
 *       o = if kE == inner - 1: P(iE); E(iE, a') -> o'; yield o' else: yield o
 *       (kS, iS) and (kE, iE) advance: k + 1, or 0 and i + si after a row's last k
 *       p = if kS was a row's last: P(iS) (the new iS, the new o) else: p
 *   else:
 *     for i in range(lbi, ubi, si) carrying o: P(i); E(i, a0)   (no inner iteration)
 * t counts in i64 (len_i * inner may pass 2^31), the k counters in i32 (a row's at most 2^32 - 1
 * iterations, compared for equality only: 64-bit counters cost two instructions for each add,
 * compare and select in every iteration). The two counter pairs hold equal values; they are
 * apart so that the pipeliner, which
 * computes what the body's loads need S-1 iterations ahead, leaves the accumulator's and
 * the epilogue's side at the current iteration. P runs once a row on the loads' side (in
 * an if of pure ops, which the pipeliner computes ahead like any stage-0 op) instead of
 * in every iteration: its divisions (a tile's coordinates) would cost each iteration. Where a0 is
 * zeros and a feeds only a dot's accumulator, that dot gets use_acc = kE != 0 instead of the select
 * (no per-element select: wgmma's scale-d). The trip count saturates at 2^63 - 1 iterations, more
 * than any program runs. */
#include "passes.h"
#include "rewrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Flat {
    IrFunc *f;
    bool ws_fuses; /* warp_specialize = 1 fuses a nest too (pass_flatten_loops) */
    Loc loc;
    ValId *map;    /* value -> value, identity where not set (see reset) */
    uint32_t nmap; /* entries: the values f had when the pass began on this nest */
} Flat;

static void reset(Flat *F) {
    for (uint32_t v = 0; v < F->nmap; v++) F->map[v] = v;
}

static ValId em(Flat *F, OpVec *to, int code, const ValId *o, uint32_t n, IrType t) {
    return opvec_emit(to, F->f, code, F->loc, o, n, t);
}

static ValId konst(Flat *F, OpVec *to, int dt, int64_t v) {
    ValId r = em(F, to, OP_CONST, NULL, 0, ty_scalar(dt));
    F->f->ops[ir_def(F->f, r)].attr[0] = v;
    return r;
}

static ValId k64(Flat *F, OpVec *to, int64_t v) { return konst(F, to, DT_I64, v); }

static ValId k32(Flat *F, OpVec *to, int32_t v) { return konst(F, to, DT_I32, v); }

static ValId bin(Flat *F, OpVec *to, int code, ValId a, ValId b) {
    return em(F, to, code, (ValId[]){a, b}, 2, ir_type(F->f, a));
}

static ValId cmp(Flat *F, OpVec *to, int pred, ValId a, ValId b) {
    ValId r = em(F, to, OP_CMP, (ValId[]){a, b}, 2, ty_scalar(DT_I1));
    F->f->ops[ir_def(F->f, r)].attr[0] = pred;
    return r;
}

static ValId sel(Flat *F, OpVec *to, ValId c, ValId a, ValId b) {
    IrType t = ir_type(F->f, a);
    if (t.rank) c = em(F, to, OP_SPLAT, &c, 1, ty_with_elem(t, ty_scalar(DT_I1)));
    return em(F, to, OP_SELECT, (ValId[]){c, a, b}, 3, t);
}

static ValId cvt(Flat *F, OpVec *to, ValId v, int dt) {
    return em(F, to, OP_CVT, &v, 1, ty_scalar(dt));
}

/* The trip count of for (lb, ub, st) in i32, as an i64 in [0, 2^32). */
static ValId trips(Flat *F, OpVec *to, ValId lb, ValId ub, ValId st) {
    ValId l = cvt(F, to, lb, DT_I64), u = cvt(F, to, ub, DT_I64), s = cvt(F, to, st, DT_I64);
    ValId zero = k64(F, to, 0), one = k64(F, to, 1);
    ValId up = cmp(F, to, CMP_PRED_GT, s, zero);
    ValId span = sel(F, to, up, bin(F, to, OP_SUB, u, l), bin(F, to, OP_SUB, l, u));
    ValId den = sel(F, to, up, s, bin(F, to, OP_SUB, zero, s)); /* 0 for step 0: idiv gives 0 */
    span = bin(F, to, OP_MAX, span, zero);
    return bin(F, to, OP_IDIV, bin(F, to, OP_SUB, bin(F, to, OP_ADD, span, den), one), den);
}

static bool is_zero(const IrFunc *f, ValId v) {
    OpId d = ir_def(f, v);
    if (d && f->ops[d].code == OP_SPLAT) d = ir_def(f, f->ops[d].operands[0]);
    if (!d || f->ops[d].code != OP_CONST) return false;
    /* +0.0 only: use_acc = false counts the accumulator as +0.0, and -0.0 + -0.0 is -0.0 */
    return dt_is_float(ir_type(f, v).dt) ? f->ops[d].fattr == 0 && !signbit(f->ops[d].fattr)
                                         : f->ops[d].attr[0] == 0;
}

/* Is v (a bound of the inner loop) computed before loop, or by pure scalar ops of body
 * from such values? Those ops are marked in hoist. */
static bool invariant(const IrFunc *f, OpId loop, RegionId body, ValId v, uint8_t *hoist,
                      int depth) {
    if (depth > 64) return false;
    if (!ir_defined_in(f, v, f->ops[loop].region[0])) return true;
    OpId d = ir_def(f, v);
    if (!d || f->ops[d].parent != body) return false; /* an argument, or nested deeper */
    const IrOp *op = &f->ops[d];
    if (!(ir_op_info[op->code].flags & F_PURE) || op->nregions || ir_type(f, v).rank) return false;
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (!invariant(f, loop, body, op->operands[i], hoist, depth + 1)) return false;
    hoist[d] = 1;
    return true;
}

/* Does an op of region r, or of a region nested in it, read v? */
static bool reads(const IrFunc *f, RegionId r, ValId v) {
    const IrRegion *rg = &f->regions[r];
    for (uint32_t k = 0; k < rg->nops; k++) {
        const IrOp *op = &f->ops[rg->ops[k]];
        for (uint32_t i = 0; i < op->nopnds; i++)
            if (op->operands[i] == v) return true;
        for (int j = 0; j < op->nregions; j++)
            if (reads(f, op->region[j], v)) return true;
    }
    return false;
}

/* Clones ops[0..n) (those not skipped) into region dst through F->map. */
static void clone_ops(Flat *F, RegionId dst, const OpId *ops, uint32_t n, const uint8_t *skip) {
    for (uint32_t k = 0; k < n; k++)
        if (!skip || !skip[ops[k]]) ir_clone_op(F->f, dst, F->f, ops[k], F->map);
}

static void append(IrFunc *f, RegionId r, OpVec *ops) {
    for (uint32_t i = 0; i < ops->n; i++) ir_region_append(f, r, ops->v[i]);
    ops->n = 0;
}

static OpId yield(IrFunc *f, RegionId r, const ValId *v, uint32_t n, Loc loc) {
    OpId y = ir_op_new(f, OP_YIELD, loc, v, n, NULL, 0);
    ir_region_append(f, r, y);
    return y;
}

/* The nest of loop (its body holding inner at index at), fused, appended to out; false
 * (nothing changed) if it does not qualify. Replacements go to pairs. */
/* gpu-tma-pointers' fence before a loop whose tensor-map copies the kernel's writes may
 * precede: fence_async {global = 1}, then a barrier. */
static bool tma_fence(const IrFunc *f, const OpId *ops, uint32_t k) {
    const IrOp *op = &f->ops[ops[k]];
    return (op->code == OP_FENCE_ASYNC && op->attr[0]) ||
           (op->code == OP_BARRIER && k && f->ops[ops[k - 1]].code == OP_FENCE_ASYNC &&
            f->ops[ops[k - 1]].attr[0]);
}

static void emit_tma_fence(IrFunc *f, RegionId r, Loc loc) {
    OpId fence = ir_op_new(f, OP_FENCE_ASYNC, loc, NULL, 0, NULL, 0);
    f->ops[fence].attr[0] = 1;
    ir_region_append(f, r, fence);
    ir_region_append(f, r, ir_op_new(f, OP_BARRIER, loc, NULL, 0, NULL, 0));
}

static bool flatten(Flat *F, OpId loop, OpVec *out, OpVec *pairs) {
    IrFunc *f = F->f;
    RegionId body = f->ops[loop].region[0];
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, body, &n);
    int at = -1;
    bool ok = ir_type(f, f->ops[loop].operands[0]).dt == DT_I32, fenced = false;
    for (uint32_t k = 0; k + 1 < n && ok; k++) {
        const IrOp *op = &f->ops[ops[k]];
        if (op->code == OP_FOR) ok = at < 0, at = (int)k;
        else if (at < 0 && tma_fence(f, ops, k)) fenced = true;
        else if (at < 0) ok = (ir_op_info[op->code].flags & F_PURE) && !op->nregions;
    }
    OpId inner = at >= 0 ? ops[at] : 0;
    ok = ok && inner && ir_type(f, f->ops[inner].operands[0]).dt == DT_I32;
    uint8_t *hoist = ok ? calloc(f->nops + 1, 1) : NULL;
    for (int i = 0; ok && i < 3; i++)
        ok = invariant(f, loop, body, f->ops[inner].operands[i], hoist, 0);
    if (!ok) {
        free(ops), free(hoist);
        return false;
    }
    /* the fence moves before the fused loop (the writes before the nest), and one more ends
     * each row's epilogue (its stores, before the copies issued after it) */
    for (uint32_t k = 0; k < (uint32_t)at; k++)
        if (tma_fence(f, ops, k)) hoist[ops[k]] = 1;
    F->loc = f->ops[loop].loc;
    F->nmap = f->nvals + 1;
    F->map = calloc(F->nmap, sizeof(ValId));
    if (!F->map) NR_DIE("out of memory");
    for (uint32_t k = 0; k < (uint32_t)at; k++) /* the bounds' ops, before the loop */
        if (hoist[ops[k]]) opvec_push(out, ops[k]);
    const IrOp *L = &f->ops[loop], *I = &f->ops[inner];
    ValId lbi = L->operands[0], ubi = L->operands[1], si = L->operands[2];
    ValId lbj = I->operands[0], ubj = I->operands[1], sj = I->operands[2];
    uint32_t no = L->nopnds - 3, na = I->nopnds - 3;
    RegionId ibody = I->region[0];
    ValId *o0 = calloc(no + 1, sizeof(ValId)), *a0 = calloc(na + 1, sizeof(ValId));
    if (!o0 || !a0) NR_DIE("out of memory");
    for (uint32_t i = 0; i < no; i++) o0[i] = L->operands[3 + i];
    for (uint32_t i = 0; i < na; i++) a0[i] = I->operands[3 + i];
    OpId Y = ops[n - 1];

    /* the trip counts, the fused count and the version's condition */
    ValId len_i = trips(F, out, lbi, ubi, si), len_j = trips(F, out, lbj, ubj, sj);
    ValId zero = k64(F, out, 0), one = k64(F, out, 1);
    ValId rowlen = bin(F, out, OP_MAX, len_j, one);
    ValId lo = bin(F, out, OP_MUL, len_i, rowlen), hi = bin(F, out, OP_UMULHI, len_i, rowlen);
    ValId wraps =
        bin(F, out, OP_OR, cmp(F, out, CMP_PRED_NE, hi, zero), cmp(F, out, CMP_PRED_LT, lo, zero));
    ValId total = sel(F, out, wraps, k64(F, out, INT64_MAX), lo);
    /* a row's last k, in i32 as the k counters: a row has at most 2^32 - 1 iterations (an i32
     * loop's), so k's values in a row are distinct modulo 2^32 and k == last_k compares them
     * exactly (the row's j, lbj + k * sj in i32, is the inner loop's own value) */
    ValId last_k = cvt(F, out, bin(F, out, OP_SUB, rowlen, one), DT_I32);
    ValId has_inner = cmp(F, out, CMP_PRED_GT, len_j, zero);

    IrType *rtys = calloc(no + 1, sizeof(IrType));
    if (!rtys) NR_DIE("out of memory");
    for (uint32_t i = 0; i < no; i++) rtys[i] = ir_type(f, o0[i]);
    OpId vif = ir_op_new(f, OP_IF, F->loc, &has_inner, 1, rtys, no);
    RegionId then_r = ir_op_add_region(f, vif), else_r = ir_op_add_region(f, vif);
    opvec_push(out, vif);

    /* The loads' prologue: P, and the pure ops of the inner body that no inner iteration
     * changes but each row does (computed from P's values: a tile's row pointers, a
     * descriptor's row masks), up to a broadcast (a tile-sized block would take as many
     * registers to carry); the nest's own compiler would hoist these out of the inner
     * loop. The values of the prologue that change from row to row and the rest of the
     * inner body reads are carried, computed again at a row's end; those that do not are
     * the first row's. */
    uint32_t nbj;
    OpId *bops = ir_region_copy_ops(f, ibody, &nbj);
    uint8_t *row = calloc(f->nops + 1, 1);   /* inner ops moved to the prologue */
    uint8_t *mine = calloc(f->nvals + 1, 1); /* values the inner loop makes (not moved) */
    OpId *pops = calloc((size_t)at + nbj + 1, sizeof(OpId));
    if (!row || !mine || !pops) NR_DIE("out of memory");
    uint8_t *rowdep = calloc(f->nvals + 1, 1); /* values that change from row to row */
    if (!rowdep) NR_DIE("out of memory");
    rowdep[f->regions[body].args[0]] = 1;
    for (uint32_t i = 0; i < no; i++) rowdep[f->regions[body].args[1 + i]] = 1;
    uint32_t npops = 0;
    for (uint32_t k = 0; k < (uint32_t)at; k++) {
        if (hoist[ops[k]]) continue;
        pops[npops++] = ops[k];
        const IrOp *op = &f->ops[ops[k]];
        bool dep = false;
        for (uint32_t i = 0; i < op->nopnds; i++) dep |= rowdep[op->operands[i]];
        for (uint32_t r = 0; dep && r < op->nres; r++) rowdep[op->results[r]] = 1;
    }
    for (uint32_t i = 0; i < f->regions[ibody].nargs; i++) mine[f->regions[ibody].args[i]] = 1;
    uint8_t *same = calloc(f->nops + 1, 1); /* inner ops no iteration or row changes */
    if (!same) NR_DIE("out of memory");
    for (uint32_t k = 0; k + 1 < nbj; k++) {
        const IrOp *op = &f->ops[bops[k]];
        bool inv = (ir_op_info[op->code].flags & F_PURE) && !op->nregions && op->nres == 1 &&
                   op->code != OP_BROADCAST,
             dep = false;
        for (uint32_t i = 0; inv && i < op->nopnds; i++)
            inv = !mine[op->operands[i]], dep |= rowdep[op->operands[i]];
        if (inv && dep) row[bops[k]] = 1, rowdep[op->results[0]] = 1;
        else if (inv) same[bops[k]] = 1; /* an arange, a constant: the body keeps its own too */
        else
            for (uint32_t r = 0; r < op->nres; r++) mine[op->results[r]] = 1;
    }
    /* A block the rest of the inner body reads in more than one place stays there (each
     * reader may want it in another layout: carried, it would move through shared memory
     * each iteration), and so does a splat it reads (its scalar is carried instead: a splat
     * costs nothing to make again, in whatever layout), and every moved op computed from
     * one that stays; to a fixed point. */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k + 1 < nbj; k++) {
            if (!row[bops[k]]) continue;
            const IrOp *op = &f->ops[bops[k]];
            bool stay = false;
            for (uint32_t i = 0; i < op->nopnds && !stay; i++)
                stay = mine[op->operands[i]]; /* computed from an op that stays */
            ValId v = op->results[0];
            if (!stay && ir_type(f, v).rank) {
                uint32_t readers = 0;
                for (uint32_t b = 0; b < nbj; b++) {
                    if (row[bops[b]]) continue;
                    const IrOp *u = &f->ops[bops[b]];
                    for (uint32_t i = 0; i < u->nopnds; i++) readers += u->operands[i] == v;
                    for (int j = 0; j < u->nregions; j++) readers += reads(f, u->region[j], v);
                }
                stay = readers > 1 || (readers && op->code == OP_SPLAT);
            }
            if (stay) row[bops[k]] = 0, mine[v] = 1, changed = true;
        }
    }
    for (uint32_t k = 0; k + 1 < nbj; k++)
        if (row[bops[k]] || same[bops[k]]) pops[npops++] = bops[k];
    ValId *pv = calloc((size_t)npops * 4 + 1, sizeof(ValId));
    uint32_t np = 0;
    if (!pv) NR_DIE("out of memory");
    for (uint32_t k = 0; k < npops; k++)
        for (uint32_t r = 0; r < f->ops[pops[k]].nres; r++) {
            ValId v = f->ops[pops[k]].results[r];
            bool read = false;
            if (!rowdep[v]) continue; /* the same in every row: the first row's */
            for (uint32_t b = 0; b < nbj && !read; b++) { /* the yield too */
                if (row[bops[b]]) continue;
                const IrOp *op = &f->ops[bops[b]];
                for (uint32_t i = 0; i < op->nopnds && !read; i++) read = op->operands[i] == v;
                for (int j = 0; j < op->nregions && !read; j++) read = reads(f, op->region[j], v);
            }
            if (read && np < (uint32_t)npops * 4) pv[np++] = v;
        }

    /* ---- then: the fused loop ---- */
    uint32_t nc = 4 + no + na + np;
    ValId *inits = calloc(3 + nc, sizeof(ValId));
    IrType *ctys = calloc(nc, sizeof(IrType));
    if (!inits || !ctys) NR_DIE("out of memory");
    OpVec pre = {0};
    inits[0] = k64(F, &pre, 0), inits[1] = total, inits[2] = k64(F, &pre, 1);
    inits[3] = k32(F, &pre, 0), inits[4] = lbi, inits[5] = inits[3], inits[6] = lbi;
    for (uint32_t i = 0; i < no; i++) inits[7 + i] = o0[i];
    append(f, then_r, &pre);
    const IrRegion *b0 = &f->regions[body];
    ValId iarg = b0->args[0];
    ValId *oarg = calloc(no + 1, sizeof(ValId));
    if (!oarg) NR_DIE("out of memory");
    for (uint32_t i = 0; i < no; i++) oarg[i] = f->regions[body].args[1 + i];
    reset(F); /* the first row's prologue */
    F->map[iarg] = lbi;
    for (uint32_t i = 0; i < no; i++) F->map[oarg[i]] = o0[i];
    clone_ops(F, then_r, pops, npops, NULL);
    for (uint32_t q = 0; q < np; q++) inits[7 + no + na + q] = F->map[pv[q]];
    /* the carried inner values before the first row: their starts in the first row (the
     * first iteration takes a0 of its own row anyway; any value of the type would do, and
     * this one exists for every type, pointers included) */
    for (uint32_t i = 0; i < na; i++) inits[7 + no + i] = F->map[a0[i]];
    ValId *first = calloc(F->nmap, sizeof(ValId)); /* the first row's prologue values */
    if (!first) NR_DIE("out of memory");
    memcpy(first, F->map, sizeof(ValId) * F->nmap);
    for (uint32_t i = 0; i < nc; i++) ctys[i] = ir_type(f, inits[3 + i]);
    OpId fl = ir_op_new(f, OP_FOR, F->loc, inits, 3 + nc, ctys, nc);
    f->ops[fl].attr[0] = f->ops[inner].attr[0] ? f->ops[inner].attr[0] : f->ops[loop].attr[0];
    /* warp specialisation asked for on either loop (Triton's tutorial asks on the outer) */
    f->ops[fl].attr[2] = f->ops[inner].attr[2] || f->ops[loop].attr[2];
    RegionId fb = ir_op_add_region(f, fl);
    ir_region_add_arg(f, fb, ty_scalar(DT_I64));
    ValId kS = ir_region_add_arg(f, fb, ty_scalar(DT_I32));
    ValId iS = ir_region_add_arg(f, fb, ty_scalar(DT_I32));
    ValId kE = ir_region_add_arg(f, fb, ty_scalar(DT_I32));
    ValId iE = ir_region_add_arg(f, fb, ty_scalar(DT_I32));
    ValId *o = calloc(no + 1, sizeof(ValId)), *a = calloc(na + 1, sizeof(ValId));
    if (!o || !a) NR_DIE("out of memory");
    for (uint32_t i = 0; i < no; i++) o[i] = ir_region_add_arg(f, fb, rtys[i]);
    for (uint32_t i = 0; i < na; i++) a[i] = ir_region_add_arg(f, fb, ir_type(f, a0[i]));
    ValId *pc = calloc(np + 1, sizeof(ValId)); /* the prologue's values of the loads' row */
    if (!pc) NR_DIE("out of memory");
    for (uint32_t q = 0; q < np; q++) pc[q] = ir_region_add_arg(f, fb, ir_type(f, pv[q]));
    const IrRegion *bj = &f->regions[ibody];
    ValId jarg = bj->args[0];
    ValId *aarg = calloc(na + 1, sizeof(ValId));
    if (!aarg) NR_DIE("out of memory");
    for (uint32_t i = 0; i < na; i++) aarg[i] = f->regions[ibody].args[1 + i];

    /* the accumulator's side: P at iE, the rows' first values */
    OpVec cur = {0};
    ValId firstE = cmp(F, &cur, CMP_PRED_EQ, kE, k32(F, &cur, 0));
    append(f, fb, &cur);
    reset(F);
    F->map[iarg] = iE;
    for (uint32_t i = 0; i < no; i++) F->map[oarg[i]] = o[i];
    clone_ops(F, fb, ops, (uint32_t)at, hoist);
    ValId *ain = calloc(na + 1, sizeof(ValId));
    OpId *use_dot = calloc(na + 1, sizeof(OpId));
    if (!ain || !use_dot) NR_DIE("out of memory");
    uint32_t *uses = ir_count_uses(f);
    for (uint32_t i = 0; i < na; i++) {
        /* a zero start that only a dot's accumulator reads: that dot's use_acc */
        if (is_zero(f, a0[i]) && uses[aarg[i]] == 1) {
            const IrRegion *r = &f->regions[ibody];
            for (uint32_t k = 0; k < r->nops; k++) {
                const IrOp *op = &f->ops[r->ops[k]];
                if (op->code == OP_DOT && op->nopnds == 3 && op->operands[2] == aarg[i])
                    use_dot[i] = r->ops[k];
            }
        }
        ain[i] = use_dot[i] ? a[i] : sel(F, &cur, firstE, F->map[a0[i]], a[i]);
    }
    free(uses);
    append(f, fb, &cur);
    ValId not_first = cmp(F, &cur, CMP_PRED_NE, kE, k32(F, &cur, 0));
    append(f, fb, &cur);

    /* the loads' side: the carried prologue values, j, then S */
    reset(F);
    F->map[iarg] = iS;
    for (uint32_t i = 0; i < no; i++) F->map[oarg[i]] = o[i];
    for (uint32_t k = 0; k < npops; k++) /* values no row changes: the first row's */
        for (uint32_t r = 0; r < f->ops[pops[k]].nres; r++)
            if (!rowdep[f->ops[pops[k]].results[r]])
                F->map[f->ops[pops[k]].results[r]] = first[f->ops[pops[k]].results[r]];
    for (uint32_t q = 0; q < np; q++) F->map[pv[q]] = pc[q];
    ValId j = bin(F, &cur, OP_ADD, lbj, bin(F, &cur, OP_MUL, kS, sj));
    append(f, fb, &cur);
    F->map[jarg] = j;
    for (uint32_t i = 0; i < na; i++) F->map[aarg[i]] = ain[i];
    clone_ops(F, fb, bops, nbj - 1, row);
    ValId *anext = calloc(na + 1, sizeof(ValId));
    if (!anext) NR_DIE("out of memory");
    for (uint32_t i = 0; i < na; i++) {
        anext[i] = F->map[f->ops[bops[nbj - 1]].operands[i]];
        if (use_dot[i]) {
            OpId d = ir_def(f, F->map[f->ops[use_dot[i]].results[0]]);
            ValId opnds[4] = {f->ops[d].operands[0], f->ops[d].operands[1], f->ops[d].operands[2],
                              not_first};
            ir_op_set_operands(f, d, opnds, 4);
        }
    }

    /* the epilogue, at the end of a row */
    ValId lastE = cmp(F, &cur, CMP_PRED_EQ, kE, last_k);
    append(f, fb, &cur);
    OpId eif = ir_op_new(f, OP_IF, F->loc, &lastE, 1, rtys, no);
    RegionId et = ir_op_add_region(f, eif), ee = ir_op_add_region(f, eif);
    reset(F);
    F->map[iarg] = iE;
    for (uint32_t i = 0; i < no; i++) F->map[oarg[i]] = o[i];
    clone_ops(F, et, ops, (uint32_t)at, hoist);
    for (uint32_t i = 0; i < na; i++) F->map[f->ops[inner].results[i]] = anext[i];
    clone_ops(F, et, ops + at + 1, n - at - 2, NULL);
    if (fenced) emit_tma_fence(f, et, F->loc);
    ValId *ey = calloc(no + 1, sizeof(ValId));
    if (!ey) NR_DIE("out of memory");
    for (uint32_t i = 0; i < no; i++) ey[i] = F->map[f->ops[Y].operands[i]];
    yield(f, et, ey, no, F->loc);
    yield(f, ee, o, no, F->loc);
    ir_region_append(f, fb, eif);

    /* the counters, and the loads' prologue values of the next row at a row's end (after
     * the epilogue, whose outer carried values it may read) */
    ValId eol_s = cmp(F, &cur, CMP_PRED_EQ, kS, last_k);
    ValId k0 = k32(F, &cur, 0), k1 = k32(F, &cur, 1);
    ValId *fy = calloc(nc + 1, sizeof(ValId));
    if (!fy) NR_DIE("out of memory");
    fy[0] = sel(F, &cur, eol_s, k0, bin(F, &cur, OP_ADD, kS, k1));
    fy[1] = sel(F, &cur, eol_s, bin(F, &cur, OP_ADD, iS, si), iS);
    fy[2] = sel(F, &cur, lastE, k0, bin(F, &cur, OP_ADD, kE, k1));
    fy[3] = sel(F, &cur, lastE, bin(F, &cur, OP_ADD, iE, si), iE);
    for (uint32_t i = 0; i < no; i++) fy[4 + i] = f->ops[eif].results[i];
    for (uint32_t i = 0; i < na; i++) fy[4 + no + i] = anext[i];
    append(f, fb, &cur);
    if (np) {
        IrType *ptys = calloc(np, sizeof(IrType));
        if (!ptys) NR_DIE("out of memory");
        for (uint32_t q = 0; q < np; q++) ptys[q] = ir_type(f, pv[q]);
        OpId pif = ir_op_new(f, OP_IF, F->loc, &eol_s, 1, ptys, np);
        free(ptys);
        RegionId pt = ir_op_add_region(f, pif), pe = ir_op_add_region(f, pif);
        reset(F);
        F->map[iarg] = fy[1];
        for (uint32_t i = 0; i < no; i++) F->map[oarg[i]] = f->ops[eif].results[i];
        clone_ops(F, pt, pops, npops, NULL);
        ValId *py = calloc(np, sizeof(ValId));
        if (!py) NR_DIE("out of memory");
        for (uint32_t q = 0; q < np; q++) py[q] = F->map[pv[q]];
        yield(f, pt, py, np, F->loc);
        yield(f, pe, pc, np, F->loc);
        free(py);
        ir_region_append(f, fb, pif);
        for (uint32_t q = 0; q < np; q++) fy[4 + no + na + q] = f->ops[pif].results[q];
    }
    yield(f, fb, fy, nc, F->loc);
    ir_region_append(f, then_r, fl);
    ValId *ty = calloc(no + 1, sizeof(ValId));
    if (!ty) NR_DIE("out of memory");
    for (uint32_t i = 0; i < no; i++) ty[i] = f->ops[fl].results[4 + i];
    yield(f, then_r, ty, no, F->loc);

    /* ---- else: the nest without its inner loop ---- */
    ValId *lo_ops = calloc(3 + no, sizeof(ValId));
    if (!lo_ops) NR_DIE("out of memory");
    lo_ops[0] = lbi, lo_ops[1] = ubi, lo_ops[2] = si;
    for (uint32_t i = 0; i < no; i++) lo_ops[3 + i] = o0[i];
    OpId l2 = ir_op_new(f, OP_FOR, F->loc, lo_ops, 3 + no, rtys, no);
    RegionId b2 = ir_op_add_region(f, l2);
    reset(F);
    F->map[iarg] = ir_region_add_arg(f, b2, ty_scalar(DT_I32));
    for (uint32_t i = 0; i < no; i++) F->map[oarg[i]] = ir_region_add_arg(f, b2, rtys[i]);
    clone_ops(F, b2, ops, (uint32_t)at, hoist);
    for (uint32_t i = 0; i < na; i++) F->map[f->ops[inner].results[i]] = F->map[a0[i]];
    clone_ops(F, b2, ops + at + 1, n - at - 2, NULL);
    for (uint32_t i = 0; i < no; i++) ty[i] = F->map[f->ops[Y].operands[i]];
    yield(f, b2, ty, no, F->loc);
    ir_region_append(f, else_r, l2);
    for (uint32_t i = 0; i < no; i++) ty[i] = f->ops[l2].results[i];
    yield(f, else_r, ty, no, F->loc);

    for (uint32_t i = 0; i < no; i++) {
        opvec_push(pairs, f->ops[loop].results[i]);
        opvec_push(pairs, f->ops[vif].results[i]);
    }
    opvec_free(&pre), opvec_free(&cur);
    free(ops), free(hoist), free(F->map), free(o0), free(a0), free(rtys), free(inits);
    free(ctys), free(o), free(a), free(aarg), free(oarg), free(ain), free(use_dot);
    free(anext), free(ey), free(pv), free(pc), free(bops), free(row), free(mine), free(pops),
        free(rowdep), free(first), free(same), free(fy), free(ty), free(lo_ops);
    F->map = NULL;
    return true;
}

static void walk(Flat *F, RegionId r, OpVec *pairs) {
    IrFunc *f = F->f;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    OpVec out = {0};
    bool changed = false;
    for (uint32_t k = 0; k < n; k++) {
        OpId id = ops[k];
        for (int i = 0; i < f->ops[id].nregions; i++) walk(F, f->ops[id].region[i], pairs);
        /* warp_specialize on the outer loop fuses the nest on sm_90a too: the producer warps
         * then run ahead across its rows (a persistent kernel's next tile loads while this
         * one's epilogue runs), as Triton's warp specialisation of a nest does */
        bool wanted = f->ops[id].attr[1] || (f->ops[id].attr[2] && F->ws_fuses);
        if (f->ops[id].code == OP_FOR && wanted && flatten(F, id, &out, pairs)) {
            /* the nest's results are the new if's before an enclosing nest is fused (it
             * copies the ops that read them) */
            ir_replace_pairs(f, pairs);
            *pairs = (OpVec){0};
            changed = true;
            continue;
        }
        opvec_push(&out, id);
    }
    if (changed) ir_region_set_ops(f, r, out.v, out.n);
    opvec_free(&out);
    free(ops);
}

void pass_flatten_loops(IrModule *m, bool ws_fuses) {
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        Flat F = {m->funcs[i], ws_fuses, {0}, NULL, 0};
        OpVec pairs = {0};
        walk(&F, F.f->body, &pairs);
        ir_replace_pairs(F.f, &pairs);
    }
}
