/* speculate.c - versioning on the signs Triton takes for granted.
 *
 * Requires: an inlined, specialised kernel without layouts (before gpu_assign_layouts);
 *           the speculative alignment facts of it (axis_info_speculate).
 * Maintains: SSA, op semantics (each versioned op runs once, in one of two copies).
 * Breaks: nothing; adds if ops, hints and assumes.
 *
 * Triton's alignment analysis takes every index as non-negative. Ours does not, so the
 * forms users write can lose facts Triton has: in the matmul tutorial's grouped tile
 * order, pid_n = (pid % num_pid_in_group) // group_size_m with group_size_m =
 * min(num_pid_m - first_pid_m, GROUP_SIZE_M), negative for the programs of an oversized
 * grid; then (pid_n * BLOCK_N + arange) % N is not provably contiguous, B's tile is not
 * copied 16 bytes at a time, not by cp.async, and the loop is not pipelined well.
 *
 * For each op of the kernel's top level (a loop, an if, a load or store) whose memory
 * accesses get a wider vector when some top-level scalars (the roots, axis_info.h) are
 * taken as >= 0 than the proven facts give, this pass builds
 *
 *     g = r1 >= 0 && r2 >= 0 ...              (the roots those accesses need)
 *     results = if g {
 *         r1' = multiple_of r1 {1}; assume(r1' >= 0) ...
 *         the top-level computations between the roots and the op, again from r1' ...
 *         the op again;  yield its results
 *     } else {
 *         the op, its loops marked num_stages = 1;  yield its results
 *     }
 *
 * In the first copy the ordinary (proven) analysis now derives the speculative facts
 * from the assumes (an assume gives its fact only in its own region: the roots' copies
 * r' are defined there, and nothing outside sees them), so every later pass and the
 * code generator need no notion of speculation. The second copy is the original, for
 * the programs whose roots are negative: correct and compact (not pipelined), never
 * expected to run in a launch whose grid covers the output exactly. Where the roots
 * are provably non-negative nothing is versioned; where Triton's assumption is wrong
 * the program is still right.
 *
 * The cold copy costs registers (ptxas allocates for the whole kernel), so a JIT launch
 * checks the roots on the host instead (runtime/launch_cuda.c): gpu_speculate_guard
 * reduces a copy of the kernel to the roots' computation and an assert on their signs,
 * which the interpreter runs over the launch's grid, and gpu_speculate_assume makes the
 * kernel for the launches it lets through: every root promised >= 0 once, for the whole
 * kernel (same contract: requires the speculative facts; breaks nothing). */
#include <stdlib.h>
#include <string.h>

#include "compiler/passes/rewrite.h"
#include "gpu_passes.h"

typedef struct Spec {
    IrFunc *f;
    const AxisSpeculation *S;
    int threads;     /* of a program */
    uint32_t nvals0; /* the values before the pass: the maps cover them */
    uint8_t *dep;    /* by ValId: a top-level value computed from the op's roots */
    uint8_t *need;   /* by ValId: a top-level value the op uses, directly or not */
} Spec;

/* The roots that op's accesses, and those of the ops nested in it, need. */
static uint32_t roots_of(Spec *P, OpId id) {
    IrFunc *f = P->f;
    const IrOp *op = &f->ops[id];
    uint32_t roots = 0;
    for (uint32_t r = 0; r < op->nregions; r++) {
        const IrRegion *reg = &f->regions[op->region[r]];
        for (uint32_t i = 0; i < reg->nops; i++) roots |= roots_of(P, reg->ops[i]);
    }
    if (op->code != OP_LOAD && op->code != OP_STORE) return roots;
    ValId p = op->operands[0], mask = 0;
    if (op->code == OP_LOAD && op->nopnds >= 2) mask = op->operands[1];
    if (op->code == OP_STORE && op->nopnds >= 3) mask = op->operands[2];
    IrType t = ir_type(f, p);
    if (!t.rank || t.dt != DT_PTR) return roots;
    /* the dim gpu_assign_layouts makes fastest: the most contiguous one, the last on a tie */
    const AxisInfo *a = &P->S->info[p];
    int fast = t.rank - 1;
    for (int d = 0; d < t.rank - 1; d++)
        if (a->contiguity[d] > a->contiguity[fast]) fast = d;
    /* a thread holds at most numel / threads elements: a wider vector is no gain */
    int64_t numel = 1;
    for (int d = 0; d < t.rank; d++) numel *= t.shape[d];
    int per_thread = numel / P->threads > 1 ? (int)(numel / P->threads) : 1;
    return roots | axis_info_guard(P->S, p, mask, dt_bytes(t.pointee), fast, per_thread);
}

/* Marks the top-level values op uses (in it and in its regions) that are defined
 * outside it, and, through the pure top-level ops that define them, theirs. */
static void mark_needs(Spec *P, RegionId top, const IrOp *op) {
    IrFunc *f = P->f;
    for (uint32_t i = 0; i < op->nopnds; i++) {
        ValId v = op->operands[i];
        if (P->need[v] || f->vals[v].is_arg) continue;
        const IrOp *d = &f->ops[f->vals[v].def];
        if (d->parent != top) continue; /* inside op itself */
        P->need[v] = 1;
        if ((ir_op_info[d->code].flags & F_PURE) && !d->nregions) mark_needs(P, top, d);
    }
    for (uint32_t r = 0; r < op->nregions; r++) {
        const IrRegion *reg = &f->regions[op->region[r]];
        for (uint32_t i = 0; i < reg->nops; i++) mark_needs(P, top, &f->ops[reg->ops[i]]);
    }
}

/* The fallback copy: its loops are not pipelined. */
static void mark_cold(IrFunc *f, OpId id) {
    IrOp *op = &f->ops[id];
    if (op->code == OP_FOR) op->attr[0] = 1;
    for (uint32_t r = 0; r < op->nregions; r++) {
        const IrRegion *reg = &f->regions[op->region[r]];
        for (uint32_t i = 0; i < reg->nops; i++) mark_cold(f, reg->ops[i]);
    }
}

/* r >= 0 for every root in `roots`, and-ed, built by b. */
static ValId all_nonnegative(IrBuilder *b, const AxisSpeculation *S, uint32_t roots) {
    IrFunc *f = b->f;
    ValId g = 0;
    for (int i = 0; i < S->nroots; i++) {
        if (!(roots >> i & 1)) continue;
        ValId r = S->roots[i];
        ValId z = ir_const_int(b, ir_type(f, r), 0);
        OpId c = ir_build(b, OP_CMP, (ValId[]){r, z}, 2, (IrType[]){ty_scalar(DT_I1)}, 1);
        f->ops[c].attr[0] = CMP_PRED_GE;
        ValId cv = f->ops[c].results[0];
        g = g ? ir_build1(b, OP_AND, (ValId[]){g, cv}, 2, ty_scalar(DT_I1)) : cv;
    }
    return g;
}

/* The promise of root r, built by b: r' = multiple_of r {1}; assume(r' >= 0). Returns r'. */
static ValId promise(IrBuilder *b, ValId r) {
    IrFunc *f = b->f;
    IrType rt = ir_type(f, r);
    OpId h = ir_build(b, OP_MULTIPLE_OF, &r, 1, &rt, 1);
    f->ops[h].attr[0] = 1;
    ValId r2 = f->ops[h].results[0];
    ValId z = ir_const_int(b, rt, 0);
    OpId c = ir_build(b, OP_CMP, (ValId[]){r2, z}, 2, (IrType[]){ty_scalar(DT_I1)}, 1);
    f->ops[c].attr[0] = CMP_PRED_GE;
    ir_build(b, OP_ASSUME, &f->ops[c].results[0], 1, NULL, 0);
    return r2;
}

/* Versions op (at index k of the body's op list ops[0..n)) on roots; appends the new
 * ops of the body to out. Returns the if op. */
static OpId version(Spec *P, const OpId *ops, uint32_t k, uint32_t roots, OpVec *out, ValId *repl) {
    IrFunc *f = P->f;
    RegionId top = f->body;
    OpId id = ops[k];
    Loc loc = f->ops[id].loc;
    const AxisSpeculation *S = P->S;
    /* the guard, before op */
    IrBuilder b = {f, top, loc};
    IrRegion *body = &f->regions[top];
    uint32_t before = body->nops; /* ir_build appends to the body: moved to out below */
    ValId g = all_nonnegative(&b, S, roots);
    body = &f->regions[top];
    for (uint32_t i = before; i < body->nops; i++) opvec_push(out, body->ops[i]);
    body->nops = before;

    const IrOp *op = &f->ops[id];
    uint32_t nres = op->nres;
    IrType tys[nres ? nres : 1];
    for (uint32_t i = 0; i < nres; i++) tys[i] = ir_type(f, op->results[i]);
    OpId iff = ir_op_new(f, OP_IF, loc, &g, 1, tys, nres);
    RegionId then = ir_op_add_region(f, iff), other = ir_op_add_region(f, iff);
    opvec_push(out, iff);

    /* the speculative copy: the roots again, promised >= 0, and what op needs of them */
    ValId *map = calloc(P->nvals0 + 1, sizeof *map);
    if (!map) NR_DIE("out of memory");
    for (uint32_t v = 1; v < P->nvals0; v++) map[v] = v;
    IrBuilder tb = {f, then, loc};
    memset(P->dep, 0, P->nvals0);
    for (int i = 0; i < S->nroots; i++) {
        if (!(roots >> i & 1)) continue;
        ValId r = S->roots[i];
        map[r] = promise(&tb, r);
        P->dep[r] = 1;
    }
    memset(P->need, 0, P->nvals0);
    mark_needs(P, top, &f->ops[id]);
    for (uint32_t j = 0; j < k; j++) {
        const IrOp *d = &f->ops[ops[j]];
        if (!(ir_op_info[d->code].flags & F_PURE) || d->nregions || d->nres != 1) continue;
        if (map[d->results[0]] != d->results[0]) continue; /* a root: its copy r' stands */
        bool from_root = false;
        for (uint32_t i = 0; i < d->nopnds; i++) from_root = from_root || P->dep[d->operands[i]];
        if (!from_root) continue;
        P->dep[d->results[0]] = 1;
        if (P->need[d->results[0]]) ir_clone_op(f, then, f, ops[j], map);
    }
    OpId copy = ir_clone_op(f, then, f, id, map);
    ValId ys[nres ? nres : 1];
    for (uint32_t i = 0; i < nres; i++) ys[i] = f->ops[copy].results[i];
    ir_build(&tb, OP_YIELD, ys, nres, NULL, 0);
    free(map);

    /* the original, cold, in the other branch; its results now come from the if */
    IrBuilder eb = {f, other, loc};
    mark_cold(f, id);
    ir_region_append(f, other, id);
    for (uint32_t i = 0; i < nres; i++) {
        ys[i] = f->ops[id].results[i];
        repl[ys[i]] = f->ops[iff].results[i];
    }
    OpId y = ir_build(&eb, OP_YIELD, ys, nres, NULL, 0);
    (void)y;
    return iff;
}

bool gpu_speculate(IrFunc *f, const AxisSpeculation *S, const GpuOptions *o) {
    if (!S->nroots || !f->body) return false;
    int threads = 32 * (o && o->num_warps > 0 ? o->num_warps : 4);
    Spec P = {f, S, threads, f->nvals, calloc(f->nvals + 1, 1), calloc(f->nvals + 1, 1)};
    if (!P.dep || !P.need) NR_DIE("out of memory");
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, f->body, &n);
    OpVec out = {0};
    ValId *repl = ir_repl_new(f);
    OpId *ifs = calloc(n + 1, sizeof *ifs), *yields = calloc(n + 1, sizeof *yields);
    if (!ifs || !yields) NR_DIE("out of memory");
    uint32_t nv = 0;
    for (uint32_t k = 0; k < n; k++) {
        const IrOp *op = &f->ops[ops[k]];
        uint32_t roots = op->code == OP_RETURN ? 0 : roots_of(&P, ops[k]);
        if (!roots) {
            opvec_push(&out, ops[k]);
            continue;
        }
        OpId iff = version(&P, ops, k, roots, &out, repl);
        const IrRegion *e = &f->regions[f->ops[iff].region[1]];
        ifs[nv] = iff, yields[nv++] = e->ops[e->nops - 1];
    }
    if (nv) {
        ir_region_set_ops(f, f->body, out.v, out.n);
        /* the uses of a versioned op's results read the if's, but for its own yield */
        ValId *keep = ir_repl_new(f);
        memcpy(keep, repl, sizeof(ValId) * P.nvals0);
        ir_replace_all_uses(f, keep);
        for (uint32_t i = 0; i < nv; i++) {
            IrOp *y = &f->ops[yields[i]];
            const IrOp *orig = &f->ops[f->regions[f->ops[ifs[i]].region[1]].ops[0]];
            for (uint32_t j = 0; j < y->nopnds && j < orig->nres; j++)
                y->operands[j] = orig->results[j];
        }
        free(keep);
    }
    free(ifs);
    free(yields);
    free(repl);
    opvec_free(&out);
    free(ops);
    free(P.dep);
    free(P.need);
    return nv > 0;
}

uint32_t gpu_speculate_roots(IrFunc *f, const AxisSpeculation *S, const GpuOptions *o) {
    if (!S->nroots || !f->body) return 0;
    int threads = 32 * (o && o->num_warps > 0 ? o->num_warps : 4);
    Spec P = {f, S, threads, f->nvals, NULL, NULL};
    const IrRegion *body = &f->regions[f->body];
    uint32_t roots = 0;
    for (uint32_t k = 0; k < body->nops; k++)
        if (f->ops[body->ops[k]].code != OP_RETURN) roots |= roots_of(&P, body->ops[k]);
    return roots;
}

void gpu_speculate_assume(IrFunc *f, const AxisSpeculation *S, uint32_t roots) {
    if (!roots || !f->body) return;
    uint32_t n, nvals0 = f->nvals;
    OpId *ops = ir_region_copy_ops(f, f->body, &n);
    ValId *repl = ir_repl_new(f);
    OpId hints[AXIS_INFO_MAX_ROOTS];
    int nh = 0;
    OpVec out = {0};
    Loc loc = n ? f->ops[ops[0]].loc : f->loc;
    /* each root's promise right after its definition (a parameter's first) */
    for (uint32_t k = 0; k <= n; k++) {
        if (k) opvec_push(&out, ops[k - 1]);
        for (int i = 0; i < S->nroots; i++) {
            ValId r = S->roots[i];
            if (!(roots >> i & 1) || repl[r]) continue;
            bool arg = f->vals[r].is_arg && f->vals[r].def == f->body;
            bool here = k ? !f->vals[r].is_arg && ir_def(f, r) == ops[k - 1] : arg;
            if (!here) continue;
            IrRegion *body = &f->regions[f->body];
            uint32_t before = body->nops;
            IrBuilder b = {f, f->body, k ? f->ops[ops[k - 1]].loc : loc};
            repl[r] = promise(&b, r);
            hints[nh++] = ir_def(f, repl[r]);
            body = &f->regions[f->body];
            for (uint32_t j = before; j < body->nops; j++) opvec_push(&out, body->ops[j]);
            body->nops = before;
        }
    }
    ir_region_set_ops(f, f->body, out.v, out.n);
    ValId *all = ir_repl_new(f); /* covers the promises' values too */
    memcpy(all, repl, sizeof(ValId) * nvals0);
    ir_replace_all_uses(f, all);
    free(all);
    for (int i = 0; i < nh; i++) { /* each hint reads its root, not itself */
        IrOp *h = &f->ops[hints[i]];
        for (int j = 0; j < S->nroots; j++)
            if (repl[S->roots[j]] == h->results[0]) h->operands[0] = S->roots[j];
    }
    opvec_free(&out);
    free(repl);
    free(ops);
}

/* Marks the slice of v: the top-level ops it is computed by, each pure, with no
 * regions, of integer scalars (which the host computes exactly as the GPU does), and the
 * parameters they read (integers or pointers). False if v needs anything else. */
static bool slice(const IrFunc *f, ValId v, uint8_t *in, int depth) {
    const IrValue *val = &f->vals[v];
    IrType t = val->ty;
    if (t.rank || !(dt_is_int(t.dt) || (val->is_arg && t.dt == DT_PTR))) return false;
    if (val->is_arg) return val->def == f->body;
    OpId d = val->def;
    if (in[d]) return true;
    const IrOp *op = &f->ops[d];
    if (depth > 256 || op->parent != f->body || !(ir_op_info[op->code].flags & F_PURE) ||
        op->nregions || op->nres != 1)
        return false;
    in[d] = 1;
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (!slice(f, op->operands[i], in, depth + 1)) return false;
    return true;
}

bool gpu_speculate_guard(IrFunc *f, const AxisSpeculation *S, uint32_t roots) {
    if (!roots || !f->body || !f->is_kernel || f->nresults) return false; /* a launch's kernel */
    uint8_t *in = calloc(f->nops + 1, 1);
    if (!in) NR_DIE("out of memory");
    bool ok = true;
    for (int i = 0; i < S->nroots && ok; i++)
        if (roots >> i & 1) ok = slice(f, S->roots[i], in, 0);
    if (!ok) return free(in), false;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, f->body, &n);
    Loc loc = n ? f->ops[ops[n - 1]].loc : f->loc;
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++)
        if (in[ops[k]]) ops[m++] = ops[k];
    ir_region_set_ops(f, f->body, ops, m);
    free(ops);
    free(in);
    IrBuilder b = {f, f->body, loc};
    ValId g = all_nonnegative(&b, S, roots);
    OpId a = ir_build(&b, OP_ASSERT, &g, 1, NULL, 0);
    f->ops[a].sattr = "a speculated index is negative";
    ir_build(&b, OP_RETURN, NULL, 0, NULL, 0);
    return true;
}
