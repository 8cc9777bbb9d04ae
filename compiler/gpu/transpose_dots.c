/* transpose_dots.c - a tf32 dot whose B runs along N computes the transposed product on
 * sm_90a: dot(a, b, c) -> trans(dot(trans(b), trans(a), trans(c))).
 *
 * Requires:  the front of the GPU pipeline (specialised, inlined; no layouts yet); the
 *            alignment facts of f (axis_info_analyze) for the loads' contiguous dims.
 * Maintains: verification; the program's meaning: (A B)^T = B^T A^T element for element,
 *            each output element the same K products summed in the same order, so the
 *            result is the one the dot would give (the tensor cores' rounding of fp32 to
 *            tf32 included: it is per operand element, whichever operand it is).
 * Breaks:    nothing. The trans ops it adds are renamings of indices that the layout
 *            assignment makes free where the layouts line up (assign_layouts.c: a trans
 *            takes its user's wish or its operand's layout, permuted).
 *
 * Why: wgmma reads tf32 operands from shared memory only with K contiguous. A B that is
 * row-major ([K, N], N contiguous: how a user's fp32 B usually lies) must be moved K-major
 * through registers every iteration (lower_dot_operands.c's staging: a load, a store and
 * a barrier per tile). wgmma's A may come from registers in any order, though, and the
 * transposed product takes B^T as its A: read from the buffer the tile was copied into as
 * it lies, straight into the registers wgmma reads (no second buffer, no barrier), while
 * a row-major A, as trans(a) = [K, M] with K contiguous, is a K-major B as it lies. The
 * accumulator is then [N, M]; the trans back is free where the result is stored or
 * converted (the epilogue converts an mma accumulator in any case), and a loop-carried
 * accumulator keeps the transposed layout through the loop.
 *
 * Chosen when: an fp32 dot with prec tf32, 2-D, in a loop's body, on sm_90a with whole
 * warpgroups; B loaded along N in that body (each iteration: a B loaded once, before the
 * loop, is staged K-major once) and A along K, each directly (or through a trans) by a
 * load whose pointers are most contiguous along that dim (more than one element) or a
 * tensor-descriptor load (its last dim contiguous); the transposed product takes wgmma
 * (policy_mma: N a multiple of 64); and the result is no other dot's A (a chain keeps its
 * warps along M, attention's layouts). */
#include <stdlib.h>
#include <string.h>

#include "compiler/passes/rewrite.h"
#include "gpu_passes.h"
#include "layout_policy.h"

typedef struct Swap {
    IrFunc *f;
    const AxisInfo *info;
    const GpuOptions *o;
    uint32_t *uses_in_dot_a; /* by ValId: read as some dot's A */
    bool changed;
} Swap;

/* The dim along which a 2-D operand's elements lie consecutively in memory, if it is
 * loaded directly (a trans of such a load: its operand's, permuted), else -1. */
static int memory_fast_dim(const Swap *S, ValId v) {
    const IrFunc *f = S->f;
    OpId d = ir_def(f, v);
    if (!d) return -1;
    const IrOp *op = &f->ops[d];
    if (op->code == OP_TRANS && op->nopnds == 1) {
        int x = memory_fast_dim(S, op->operands[0]);
        return x < 0 ? -1 : (int)op->attr[x]; /* result dim i is operand dim perm[i] */
    }
    if (op->code == OP_DESC_LOAD) return ir_type(f, v).rank - 1;
    if (op->code != OP_LOAD) return -1;
    ValId p = op->operands[0];
    IrType t = ir_type(f, p);
    if (t.rank != 2) return -1;
    const AxisInfo *ai = &S->info[p];
    int fast = ai->contiguity[0] > ai->contiguity[1] ? 0 : 1;
    return ai->contiguity[fast] > 1 ? fast : -1;
}

/* x's 2-D swap (perm [1, 0], its own inverse), appended to out. */
static ValId emit_trans(Swap *S, OpVec *out, ValId x, Loc loc) {
    IrType t = ir_type(S->f, x);
    IrType r = t;
    r.shape[0] = t.shape[1], r.shape[1] = t.shape[0];
    ValId v = opvec_emit(out, S->f, OP_TRANS, loc, &x, 1, r);
    IrOp *op = &S->f->ops[ir_def(S->f, v)];
    op->attr[0] = 1, op->attr[1] = 0;
    return v;
}

static bool wanted(Swap *S, const IrOp *op) {
    IrFunc *f = S->f;
    if (op->code != OP_DOT || op->nopnds != 3 || op->attr[0] != PREC_TF32) return false;
    IrType a = ir_type(f, op->operands[0]), b = ir_type(f, op->operands[1]);
    IrType r = ir_type(f, op->results[0]);
    if (a.rank != 2 || b.rank != 2 || a.dt != DT_FP32 || b.dt != DT_FP32 || r.dt != DT_FP32)
        return false;
    if (S->uses_in_dot_a[op->results[0]]) return false; /* a chain: attention's layouts */
    /* B along N, A along K: trans(a) is then a K-major B as it lies (an A along M would be
     * restaged as B is today, for nothing) */
    if (memory_fast_dim(S, op->operands[1]) != 1 || memory_fast_dim(S, op->operands[0]) != 1)
        return false;
    /* B loaded in the loop around the dot, each iteration: a B loaded once, before the
     * loop, is better staged K-major once (lower_dot_operands.c hoists that) than read
     * into registers every iteration */
    OpId bd = ir_def(f, op->operands[1]);
    while (f->ops[bd].code == OP_TRANS) bd = ir_def(f, f->ops[bd].operands[0]);
    OpId loop = f->regions[op->parent].parent_op;
    if (f->ops[bd].parent != op->parent || !loop ||
        (f->ops[loop].code != OP_FOR && f->ops[loop].code != OP_WHILE))
        return false;
    IrType acc = r;
    acc.shape[0] = r.shape[1], acc.shape[1] = r.shape[0];
    IrLayout l;
    return policy_mma(S->o->arch, DT_FP32, false, acc, a.shape[1], S->o->num_warps, false, &l) &&
           l.version == 3;
}

/* The 2-D swap whose operand is x, among region rg's own ops, if it is x's only use. */
static OpId only_trans_of(IrFunc *f, RegionId rg, ValId x, const uint32_t *uses) {
    if (uses[x] != 1) return 0;
    const IrRegion *r = &f->regions[rg];
    for (uint32_t i = 0; i < r->nops; i++) {
        const IrOp *op = &f->ops[r->ops[i]];
        if (op->code == OP_TRANS && op->operands[0] == x && ir_type(f, x).rank == 2 &&
            op->attr[0] == 1)
            return r->ops[i];
    }
    return 0;
}

/* A for loop that carries a value only to swap it and yields it swapped (an accumulator
 * of a transposed product) carries it swapped instead: its initial value is swapped
 * before the loop (*out), its result after (*post), and the loop's swaps go, so the
 * asynchronous wgmma sees its accumulator carried as the pipeliner expects. */
static void carry_swapped(Swap *S, OpVec *out, OpVec *post, OpId id) {
    IrFunc *f = S->f;
    if (f->ops[id].code != OP_FOR) return;
    RegionId body = f->ops[id].region[0];
    uint32_t *uses = ir_count_uses(f);
    OpVec pairs = {0}, backs = {0}, dead = {0};
    for (uint32_t i = 0; i < f->ops[id].nres; i++) {
        const IrRegion *rb = &f->regions[body];
        ValId arg = rb->args[1 + i];
        OpId yield = rb->ops[rb->nops - 1];
        ValId yv = f->ops[yield].operands[i];
        OpId t1 = only_trans_of(f, body, arg, uses), t2 = ir_def(f, yv);
        if (!t1 || !t2 || f->ops[t2].code != OP_TRANS || f->ops[t2].attr[0] != 1 ||
            f->ops[t2].parent != body)
            continue;
        Loc loc = f->ops[id].loc;
        IrType swapped = ir_type(f, f->ops[t1].results[0]);
        ValId init = emit_trans(S, out, f->ops[id].operands[3 + i], loc);
        f->ops[id].operands[3 + i] = init;
        f->vals[arg].ty = swapped;
        opvec_push(&pairs, f->ops[t1].results[0]);
        opvec_push(&pairs, arg);
        opvec_push(&dead, t1);
        f->ops[yield].operands[i] = f->ops[t2].operands[0];
        if (uses[yv] == 1) opvec_push(&dead, t2); /* read by the yield alone */
        ValId res = f->ops[id].results[i];
        f->vals[res].ty = swapped;
        ValId back = emit_trans(S, post, res, loc);
        opvec_push(&pairs, res);
        opvec_push(&pairs, back);
        opvec_push(&backs, res);
        opvec_push(&backs, back);
    }
    free(uses);
    if (pairs.n) {
        /* the loop's swaps of its carried values go (nothing reads them now) */
        uint32_t n, k = 0;
        OpId *ops = ir_region_copy_ops(f, body, &n);
        for (uint32_t i = 0; i < n; i++) {
            bool drop = false;
            for (uint32_t j = 0; j < dead.n; j++) drop |= ops[i] == dead.v[j];
            if (!drop) ops[k++] = ops[i];
        }
        ir_region_set_ops(f, body, ops, k);
        free(ops);
        ir_replace_pairs(f, &pairs);
        /* the swaps after the loop read its results (the replacement made them read
         * themselves) */
        for (uint32_t i = 0; i < backs.n; i += 2)
            f->ops[ir_def(f, backs.v[i + 1])].operands[0] = backs.v[i];
    } else {
        opvec_free(&pairs);
    }
    opvec_free(&backs);
    opvec_free(&dead);
}

static void swap_region(Swap *S, RegionId rg) {
    IrFunc *f = S->f;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, rg, &n);
    OpVec out = {0}, pairs = {0};
    for (uint32_t i = 0; i < n; i++) {
        OpId id = ops[i];
        for (int k = 0; k < f->ops[id].nregions; k++) swap_region(S, f->ops[id].region[k]);
        if (f->ops[id].code == OP_FOR) {
            OpVec post = {0};
            carry_swapped(S, &out, &post, id);
            opvec_push(&out, id);
            for (uint32_t k = 0; k < post.n; k++) opvec_push(&out, post.v[k]);
            opvec_free(&post);
            continue;
        }
        if (!wanted(S, &f->ops[id])) {
            opvec_push(&out, id);
            continue;
        }
        Loc loc = f->ops[id].loc;
        ValId a = f->ops[id].operands[0], b = f->ops[id].operands[1], c = f->ops[id].operands[2];
        ValId old = f->ops[id].results[0];
        ValId opnds[3] = {emit_trans(S, &out, b, loc), emit_trans(S, &out, a, loc),
                          emit_trans(S, &out, c, loc)};
        IrType rt = ir_type(f, opnds[2]);
        ValId d = opvec_emit(&out, f, OP_DOT, loc, opnds, 3, rt);
        memcpy(f->ops[ir_def(f, d)].attr, f->ops[id].attr, sizeof f->ops[id].attr);
        ValId back = emit_trans(S, &out, d, loc);
        opvec_push(&pairs, old);
        opvec_push(&pairs, back);
        S->changed = true;
    }
    ir_region_set_ops(f, rg, out.v, out.n);
    opvec_free(&out);
    free(ops);
    if (pairs.n) ir_replace_pairs(f, &pairs);
    else opvec_free(&pairs);
}

/* Marks the values some dot reads as its A. */
static void mark_dot_a(IrFunc *f, RegionId rg, uint32_t *marks) {
    const IrRegion *r = &f->regions[rg];
    for (uint32_t i = 0; i < r->nops; i++) {
        const IrOp *op = &f->ops[r->ops[i]];
        for (int k = 0; k < op->nregions; k++) mark_dot_a(f, op->region[k], marks);
        if (op->code == OP_DOT && op->nopnds >= 1) marks[op->operands[0]] = 1;
    }
}

bool gpu_transpose_dots(IrFunc *f, const AxisInfo *info, const GpuOptions *o) {
    if (o->arch != GPU_SM90A || o->num_warps % 4) return false;
    Swap S = {f, info, o, calloc(f->nvals + 1, sizeof(uint32_t)), false};
    mark_dot_a(f, f->body, S.uses_in_dot_a);
    swap_region(&S, f->body);
    free(S.uses_in_dot_a);
    return S.changed;
}
