/* assign_layouts.c - layout assignment and coalescing.
 *
 * Requires: an inlined kernel (no calls); axis info for its values.
 * Maintains: SSA, op semantics (convert_layout is an identity on values).
 * Sets: IrValue.layout of every block value; inserts convert_layout ops.
 *
 * 1. Coalescing: for every load, store and atomic the alignment facts say along which
 *    dim its addresses run (the most contiguous one; the last dim on a tie) and give the
 *    widest vector a thread can access along it (axis_info_vector_width); each pair of
 *    block shape and fastest dim gets the widest vector any of its memory ops allows
 *    (bounded so no thread sits idle, and by 16 bytes of its vector stores: cap_vectors;
 *    a load the pipeliner may copy with cp.async takes the mask's prefix width instead of
 *    its constancy: async_candidate),
 *    and the blocked layout of that shape with that dim
 *    fastest puts that many consecutive elements in a thread. Accesses along the last dim
 *    use the shape's default layout; the others (a column-major tile: B stored K-major,
 *    a transposed view) are anchors of a layout of their own, which their pointers,
 *    masks and stored values prefer.
 * 2. Preferences, walking backwards: the operand of a broadcast prefers the broadcast's
 *    layout (replicated along the broadcast dims, so no data moves), the operand of
 *    expand_dims prefers the slice of its result's layout, and elementwise operands
 *    prefer their result's. So offs[:, None] * stride builds offs directly in the slice
 *    layout and nothing moves.
 *    Before that walk, forward from loads whose addresses run along another dim than the
 *    last: what is computed from them elementwise, and the loop-carried values it is
 *    yielded as, prefer the loads' layout (an accumulator over column-ordered loads stays
 *    there instead of moving through shared memory every iteration).
 * 3. Forward: values take their preference, or the default for their shape; elementwise
 *    results take their first block operand's layout; reductions give slice layouts;
 *    loop-carried values keep their initial layout (which prefers what the loop body
 *    wants of them); an if's results take what their users want, else the layout its
 *    then-branch yields them in, unless that is a constant and the else-branch's is not
 *    (the branches' yielded values prefer the results' layouts, so such a constant is
 *    made where the result sits); an if's result a loop yields as a carried value, which
 *    the walk passes before the carried value's users, prefers that value's layout
 *    afterwards (pref_yielded_ifs), its branches walked again. A dot's result is an anchor, as
 * loads and stores are: a tensor-core layout where the target and the dot allow one
 * (layout_policy.h: wgmma's on sm_90a, mma.sync's from sm_80), else per-thread tiles on the CUDA
 * cores. When one dot's result feeds another's A (attention), every dot of the kernel puts its
 * warps along M, so row reductions and the change into the next operand stay in registers. Where an
 * operand's layout differs from what its user needs, a convert_layout is inserted before the user,
 * or, for a value made outside the loops around the user, once before those loops (not out of an
 * if's branch). The dot's operands keep the layouts they come in; the lower-dot-operands pass gives
 * them theirs. Sets the module's gpu<> facts (target, warps).
 */
#include <string.h>

#include "compiler/analysis/layout_moves.h"
#include "gpu_passes.h"
#include "layout_policy.h"

typedef struct ShapeVec {
    IrType shape;
    int fast; /* the dim along which consecutive elements sit in a thread */
    int vec;
    int store_cap; /* the fewest elements in 16 bytes of its vector stores (0: none) */
} ShapeVec;

typedef struct Ctx {
    IrFunc *f;
    IrModule *m;
    const AxisInfo *info;
    int num_warps, arch;
    bool chained;     /* a dot's result feeds another dot's A */
    uint32_t *dot_ls; /* the layouts dot results took */
    uint32_t ndot_ls, capdot_ls;
    ShapeVec *sv;
    uint32_t nsv, capsv;
    uint32_t *pref;   /* by ValId */
    uint32_t *dot_of; /* by ValId: the layout of the dot a value derives from (pref_from_dots) */
    uint32_t
        *load_of;  /* by ValId: the anchor layout of the load it derives from (pref_from_loads) */
    uint8_t *weak; /* by ValId: pref is only the default a user with no wish of its own passed on */
    int8_t *mem_fast; /* by OpId: a memory op's fastest dim when not the last one, else -1 */
    uint32_t nmem_fast;
    struct Frame *frames; /* the regions being assigned, outermost first (step 3) */
    int depth, capframes;
    bool no_hoist; /* conversions for a yield: made in the region, never hoisted */
    struct Hoisted *hoisted;
    uint32_t nhoisted, caphoisted;
} Ctx;

static bool is_block(const IrFunc *f, ValId v) { return v && ty_is_block(f->vals[v].ty); }

static ShapeVec *shape_entry(Ctx *c, IrType t, int fast) {
    for (uint32_t i = 0; i < c->nsv; i++)
        if (c->sv[i].fast == fast && ty_same_shape(c->sv[i].shape, t)) return &c->sv[i];
    ShapeVec s = {t, fast, 1, 0};
    VEC_PUSH(c->m->arena, c->sv, c->nsv, c->capsv, s);
    return &c->sv[c->nsv - 1];
}

static int *shape_vec(Ctx *c, IrType t, int fast) { return &shape_entry(c, t, fast)->vec; }

static uint32_t default_layout(Ctx *c, IrType t) {
    IrLayout l = policy_default(t, c->num_warps, *shape_vec(c, t, t.rank - 1));
    return ir_layout_intern(c->m, &l);
}

/* The coalesced layout of memory op id when its addresses run along another dim than the
 * last; 0 when the shape's default serves. */
static uint32_t mem_layout(Ctx *c, OpId id) {
    if (id >= c->nmem_fast || c->mem_fast[id] < 0) return 0;
    IrType t = ir_type(c->f, c->f->ops[id].operands[0]);
    int fast = c->mem_fast[id];
    IrLayout l = policy_blocked(t, c->num_warps, *shape_vec(c, t, fast), fast);
    return ir_layout_intern(c->m, &l);
}

/* A dot's result: tensor cores where they apply, else the CUDA-core tile layout when the
 * block fills the CTA, else the default. */
static uint32_t dot_layout(Ctx *c, OpId id) {
    const IrOp *op = &c->f->ops[id];
    IrType a = ir_type(c->f, op->operands[0]), t = ir_type(c->f, op->results[0]);
    IrLayout l;
    uint32_t id_l;
    if (policy_mma(c->arch, a.dt, op->attr[0] == PREC_IEEE, t, a.shape[1], c->num_warps, c->chained,
                   &l) ||
        policy_fma_tile(t, c->num_warps, &l))
        id_l = ir_layout_intern(c->m, &l);
    else id_l = default_layout(c, t);
    for (uint32_t i = 0; i < c->ndot_ls; i++)
        if (c->dot_ls[i] == id_l) return id_l;
    VEC_PUSH(c->m->arena, c->dot_ls, c->ndot_ls, c->capdot_ls, id_l);
    return id_l;
}

static bool is_dot_layout(const Ctx *c, uint32_t l) {
    for (uint32_t i = 0; i < c->ndot_ls; i++)
        if (c->dot_ls[i] == l) return true;
    return false;
}

/* ---- layouts through trans and reshape ---- */

/* trans and reshape move no element between threads when the result's layout is the
 * operand's with each basis's index renamed: the op's index map, a permutation of the
 * index bits (the identity for reshape). These give that layout one way or the other as
 * a linear layout. to_result: the result's from the operand's layout `l`; else the
 * operand's from the result's. */
static uint32_t through_shape_op(Ctx *c, OpId id, uint32_t l, bool to_result) {
    IrFunc *f = c->f;
    const IrOp *op = &f->ops[id];
    IrType st = ir_type(f, op->operands[0]), rt = ir_type(f, op->results[0]);
    for (int d = 0; d < st.rank; d++)
        if (st.shape[d] & (st.shape[d] - 1)) return 0;
    uint32_t map[LL_MAX_BITS], inv[LL_MAX_BITS] = {0};
    moves_index_map(f, op, map); /* result index bit i -> the operand's index */
    LinearLayout r;
    ll_init(&r, rt.rank, rt.shape);
    int bits = 0;
    for (int d = 0; d < rt.rank; d++) bits += r.log2shape[d];
    for (int i = 0; i < bits; i++) {
        if (!map[i] || (map[i] & (map[i] - 1))) return 0; /* not a permutation of bits */
        inv[__builtin_ctz(map[i])] = 1u << i;
    }
    IrType from = to_result ? st : rt, to = to_result ? rt : st;
    LinearLayout src, out;
    ir_layout_linear(c->m, l, from, &src);
    int32_t shape[NR_MAX_RANK];
    for (int d = 0; d < to.rank; d++) shape[d] = to.shape[d];
    ll_init(&out, to.rank, shape);
    for (int in = 0; in < LL_NIN; in++)
        for (int i = 0; i < src.nbits[in]; i++)
            ll_push(&out, in, moves_apply(to_result ? inv : map, src.basis[in][i]));
    return ir_layout_intern_linear(c->m, &out);
}

/* ---- 0. does a dot feed another's A? (values derived from dot results elementwise) ---- */

static void mark_chain(Ctx *c, OpId id, uint8_t *from_dot) {
    const IrOp *op = &c->f->ops[id];
    if (op->code == OP_DOT) {
        if (from_dot[op->operands[0]]) c->chained = true;
        from_dot[op->results[0]] = 1;
        return;
    }
    bool derived = false;
    for (uint32_t i = 0; i < op->nopnds; i++) derived |= from_dot[op->operands[i]];
    /* (not through trans: a transposed dot result reaches the next dot through shared
     * memory, which puts no constraint on the first dot's warps) */
    bool passes = (ir_op_info[op->code].flags & F_ELEM) || op->code == OP_CONVERT_LAYOUT;
    if (derived && passes && op->nres == 1) from_dot[op->results[0]] = 1;
}

static uint32_t slice_of(Ctx *c, uint32_t parent, int dim) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_SLICE;
    l.rank = (uint8_t)(c->m->layouts[parent].rank - 1);
    l.dim = (uint8_t)dim;
    l.parent = parent;
    return ir_layout_intern(c->m, &l);
}

/* ---- 1. coalescing ---- */

static void walk_ops(IrFunc *f, RegionId r, void (*fn)(Ctx *, OpId), Ctx *c) {
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        OpId op = f->regions[r].ops[i];
        fn(c, op);
        for (int k = 0; k < f->ops[op].nregions; k++) walk_ops(f, f->ops[op].region[k], fn, c);
    }
}

/* Does v only feed dots (as A or B, through trans) in its own region? */
static bool feeds_dots_only(const IrFunc *f, ValId v, RegionId r, int depth) {
    const IrRegion *rg = &f->regions[r];
    bool any = false;
    for (uint32_t i = 0; i < rg->nops; i++) {
        const IrOp *op = &f->ops[rg->ops[i]];
        for (uint32_t k = 0; k < op->nopnds; k++) {
            if (op->operands[k] != v) continue;
            if (op->code == OP_DOT && k < 2) any = true;
            else if (op->code == OP_TRANS && depth < 4 && op->nres == 1 &&
                     feeds_dots_only(f, op->results[0], r, depth + 1))
                any = true;
            else return false;
        }
    }
    return any;
}

/* A load that gpu-pipeline may copy with cp.async: in a for loop's body, its `other` zero
 * (or none), its value only feeding dots. Such a copy takes a run whose mask is a prefix of
 * it (axis_info_prefix_width: the tile's edge inside the run), so its layout may give each
 * thread such runs. */
static bool async_candidate(const IrFunc *f, OpId id) {
    const IrOp *op = &f->ops[id];
    if (op->code != OP_LOAD || op->nres != 1 || !op->parent) return false;
    const IrRegion *r = &f->regions[op->parent];
    if (!r->parent_op || f->ops[r->parent_op].code != OP_FOR) return false;
    if (op->nopnds > 2) {
        OpId d = f->vals[op->operands[2]].is_arg ? 0 : ir_def(f, op->operands[2]);
        const IrOp *o = d ? &f->ops[d] : NULL;
        if (o && o->code == OP_SPLAT) {
            d = f->vals[o->operands[0]].is_arg ? 0 : ir_def(f, o->operands[0]);
            o = d ? &f->ops[d] : NULL;
        }
        if (!o || o->code != OP_CONST ||
            (dt_is_float(f->vals[o->results[0]].ty.dt) ? o->fattr != 0 : o->attr[0] != 0))
            return false;
    }
    return feeds_dots_only(f, op->results[0], op->parent, 0);
}

static void coalesce_op(Ctx *c, OpId id) {
    IrOp *op = &c->f->ops[id];
    if (op->code == OP_DESC_LOAD ||
        op->code == OP_DESC_STORE) { /* TMA tiles: 16-byte vectors from their buffers */
        IrType d = ir_type(c->f, op->operands[0]);
        IrType t = ty_block(ty_scalar(d.pointee), d.rank, d.shape);
        int64_t vec = 16 / dt_bytes(d.pointee), per_thread = ty_numel(t) / (32 * c->num_warps);
        if (vec > per_thread) vec = per_thread > 0 ? per_thread : 1;
        if (vec > t.shape[t.rank - 1]) vec = t.shape[t.rank - 1];
        int *sv = shape_vec(c, t, t.rank - 1);
        if (vec > *sv) *sv = (int)vec;
        return;
    }
    if (op->code != OP_LOAD && op->code != OP_STORE && op->code != OP_ATOMIC_RMW &&
        op->code != OP_ATOMIC_CAS)
        return;
    ValId p = op->operands[0];
    IrType t = ir_type(c->f, p);
    if (!t.rank) return;
    ValId mask = 0;
    if (op->code == OP_LOAD && op->nopnds >= 2) mask = op->operands[1];
    if (op->code == OP_STORE && op->nopnds >= 3) mask = op->operands[2];
    if (op->code == OP_ATOMIC_RMW && op->nopnds >= 3) mask = op->operands[2];
    int eb = dt_bytes(t.pointee), fast = t.rank - 1;
    bool vector = op->code == OP_LOAD || op->code == OP_STORE;
    for (int d = 0; vector && d < t.rank - 1; d++)
        if (c->info[p].contiguity[d] > c->info[p].contiguity[fast]) fast = d;
    int vec =
        vector ? axis_info_vector_width(&c->info[p], mask ? &c->info[mask] : NULL, eb, fast) : 1;
    if (vector && mask && async_candidate(c->f, id)) {
        int wide = axis_info_copy_width(c->f, c->info, p, mask, eb, fast);
        if (wide > vec) vec = wide;
    }
    int64_t per_thread = ty_numel(t) / (32 * c->num_warps);
    if (per_thread < 1) per_thread = 1;
    if (vec > per_thread) vec = (int)per_thread;
    if (vec > t.shape[fast]) vec = t.shape[fast];
    ShapeVec *sv = shape_entry(c, t, fast);
    if (vec > sv->vec) sv->vec = vec;
    if (op->code == OP_STORE && vec > 1 && (!sv->store_cap || 16 / eb < sv->store_cap))
        sv->store_cap = 16 / eb;
    c->mem_fast[id] = (int8_t)(fast == t.rank - 1 ? -1 : fast);
}

/* A thread's run of elements is no longer than 16 bytes of any vector store of the shape:
 * a bf16 load and an fp32 store of one tile get 4 elements a thread (8-byte loads, 16-byte
 * stores), not 8. With 8, each lane's 32 bytes are two 16-byte stores, and each store
 * instruction of a warp writes half of 32 sectors: twice the sectors L2 takes (measured:
 * an fp32 copy of bf16 1.7x slower than Triton's). Loads keep full sectors either way (the
 * second half comes from L1), so only stores bound it. */
static void cap_vectors(Ctx *c) {
    for (uint32_t i = 0; i < c->nsv; i++)
        if (c->sv[i].store_cap && c->sv[i].vec > c->sv[i].store_cap)
            c->sv[i].vec = c->sv[i].store_cap;
}

/* ---- 2. preferences (backwards) ---- */

/* The first preference for v wins, except that a weak one (a default passed on by users
 * with no wish of their own) gives way to a real one. */
static void prefer_as(Ctx *c, ValId v, uint32_t l, bool weak) {
    if (!is_block(c->f, v) || !l || (c->pref[v] && (weak || !c->weak[v]))) return;
    c->pref[v] = l;
    c->weak[v] = weak;
}

static void prefer(Ctx *c, ValId v, uint32_t l) { prefer_as(c, v, l, false); }

/* A loop's init values prefer what the body wants of the carried values, so a dot's
 * accumulator starts in the dot's layout and nothing converts around the loop. */
static void pref_loop(Ctx *c, OpId id) {
    IrOp *op = &c->f->ops[id];
    uint32_t first = op->code == OP_FOR ? 3 : 0, skip = op->code == OP_FOR ? 1 : 0;
    IrRegion *body = &c->f->regions[op->region[0]];
    for (uint32_t i = first; i < op->nopnds; i++) {
        uint32_t k = i - first;
        if (k + skip < body->nargs && c->pref[body->args[k + skip]])
            prefer(c, op->operands[i], c->pref[body->args[k + skip]]);
        if (k < op->nres && c->pref[op->results[k]])
            prefer(c, op->operands[i], c->pref[op->results[k]]);
    }
}

/* Before the backward walk: the operands of a memory access with a layout of its own
 * (pointers, mask, other, a stored value) prefer it, and so do a loop's carried values
 * that such an operand is (the pointer block a loop advances: its init and the value
 * yielded for it), so the walk, whose first preference wins, does not give them the
 * default layout of the ops that advance them. */
static void pref_anchor(Ctx *c, OpId id) {
    IrOp *op = &c->f->ops[id];
    uint32_t anchor = mem_layout(c, id);
    for (uint32_t i = 0; anchor && i < op->nopnds; i++) prefer(c, op->operands[i], anchor);
}

static void pref_carried(Ctx *c, OpId id) {
    IrFunc *f = c->f;
    IrOp *op = &f->ops[id];
    if (op->code != OP_FOR) return;
    IrRegion *body = &f->regions[op->region[0]];
    OpId y = body->ops[body->nops - 1];
    for (uint32_t k = 0; k + 1 < body->nargs && 3 + k < op->nopnds; k++) {
        uint32_t l = c->pref[body->args[k + 1]];
        if (!l) continue;
        prefer(c, op->operands[3 + k], l);
        if (f->ops[y].code == OP_YIELD && k < f->ops[y].nopnds) prefer(c, f->ops[y].operands[k], l);
    }
}

static void pref_op(Ctx *c, OpId id) {
    IrOp *op = &c->f->ops[id];
    if (op->code == OP_FOR || op->code == OP_WHILE) return pref_loop(c, id);
    uint32_t anchor = mem_layout(c, id);
    if (anchor) return; /* pref_anchor gave its operands their preference */
    if (op->code == OP_STORE &&
        is_block(c->f, op->operands[0])) { /* what is stored, where it is stored */
        uint32_t want = default_layout(c, ir_type(c->f, op->operands[0]));
        for (uint32_t i = 0; i < op->nopnds; i++) prefer(c, op->operands[i], want);
        return;
    }
    if (op->code == OP_DOT) {
        uint32_t l = dot_layout(c, id);
        c->pref[op->results[0]] = l;
        prefer(c, op->operands[2], l);
        return;
    }
    /* an assembly with pack > 1 takes a thread's elements in the order of its registers:
     * its operands stay where their producers put them, a trans's where its operand's
     * elements already are (a relabelling, as Triton's), not where the assembly's users
     * would have its results; the results take the operand's layout */
    if (op->code == OP_INLINE_ASM && op->attr[1] > 1) return;
    if (op->code == OP_INLINE_ASM && op->nres > 1) { /* several results, one layout */
        uint32_t want = c->pref[op->results[0]];
        for (uint32_t i = 0; want && i < op->nopnds; i++)
            prefer_as(c, op->operands[i], want, c->weak[op->results[0]]);
        return;
    }
    if (op->code == OP_SCAN || op->code == OP_FLIP || op->code == OP_SORT ||
        op->code == OP_GATHER) {
        /* the operand (gather: the index) where the result is wanted */
        uint32_t want = c->pref[op->results[0]];
        if (op->code == OP_GATHER) {
            if (want) prefer_as(c, op->operands[1], want, c->weak[op->results[0]]);
            return;
        }
        for (uint32_t i = 0; want && i < op->nopnds; i++)
            prefer_as(c, op->operands[i], want, c->weak[op->results[0]]);
        return;
    }
    if (op->nres != 1 || !is_block(c->f, op->results[0])) return;
    ValId r = op->results[0];
    if (op->code == OP_TRANS || op->code == OP_RESHAPE) { /* only a wish from a user goes through */
        uint32_t l = c->pref[r] ? through_shape_op(c, id, c->pref[r], false) : 0;
        if (l) prefer(c, op->operands[0], l);
        return;
    }
    bool weak = !c->pref[r] || c->weak[r];
    uint32_t want = c->pref[r] ? c->pref[r] : default_layout(c, ir_type(c->f, r));
    if (op->code ==
        OP_LOAD) { /* a load that coalesces into vectors keeps its layout: users convert */
        IrType pt = ir_type(c->f, op->operands[0]);
        if (*shape_vec(c, pt, pt.rank - 1) > 1) want = default_layout(c, pt), weak = false;
    }
    switch (op->code) {
    case OP_BROADCAST: prefer_as(c, op->operands[0], want, weak); break;
    case OP_EXPAND_DIMS:
        prefer_as(c, op->operands[0], slice_of(c, want, (int)op->attr[0]), weak);
        break;
    case OP_LOAD:
    case OP_CVT:
    case OP_BITCAST:
    case OP_ADDPTR:
    case OP_SELECT:
    case OP_CMP:
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS:
    case OP_MAX_CONSTANCY:
        for (uint32_t i = 0; i < op->nopnds; i++) prefer_as(c, op->operands[i], want, weak);
        break;
    default:
        if (ir_op_info[op->code].flags & F_ELEM)
            for (uint32_t i = 0; i < op->nopnds; i++) prefer_as(c, op->operands[i], want, weak);
    }
}

/* Before the backward walk, forward from each dot: a value computed from a dot's result
 * (elementwise, reduced, expanded, broadcast; an if's result that every branch yields
 * from a dot of one layout, a loop's that it carries from a constant or a dot's value
 * with no access of a layout of its own taking it: the accumulator of a loop speculate.c
 * versioned) will sit in the dot's layout (or its slice), so the other operands of the ops that
 * make it prefer that layout: a mask or a scale combined with attention's scores is then computed
 * where the scores are, and a long computation behind it (dropout's random numbers, through join
 * and reshape) starts there, instead of moving through shared memory at the end. */
/* The layout a dot gives what region r yields as its k-th value, or 0. */
static uint32_t yielded_dot(const Ctx *c, RegionId r, uint32_t k) {
    const IrRegion *reg = &c->f->regions[r];
    if (!reg->nops) return 0;
    const IrOp *y = &c->f->ops[reg->ops[reg->nops - 1]];
    return y->code == OP_YIELD && k < y->nopnds ? c->dot_of[y->operands[k]] : 0;
}

/* v is an operand of a memory access in region r (or nested in it) with a layout of its
 * own: it will sit in that layout (pref_anchor), not in a dot's. */
static bool used_by_anchor(Ctx *c, RegionId r, ValId v) {
    const IrRegion *reg = &c->f->regions[r];
    for (uint32_t i = 0; i < reg->nops; i++) {
        OpId id = reg->ops[i];
        const IrOp *op = &c->f->ops[id];
        for (uint32_t j = 0; j < op->nopnds; j++)
            if (op->operands[j] == v && mem_layout(c, id)) return true;
        for (int k = 0; k < op->nregions; k++)
            if (used_by_anchor(c, op->region[k], v)) return true;
    }
    return false;
}

static bool made_anywhere(const IrFunc *f, ValId v);

static void pref_from_dots(Ctx *c, OpId id) {
    IrFunc *f = c->f;
    const IrOp *op = &f->ops[id];
    if (op->code == OP_DOT) {
        c->dot_of[op->results[0]] = dot_layout(c, id);
        return;
    }
    if (op->code == OP_YIELD) { /* an accumulator a loop or an if yields from a dot */
        OpId p = f->regions[op->parent].parent_op;
        if (!p || (f->ops[p].code != OP_IF && f->ops[p].code != OP_FOR)) return;
        const IrOp *pop = &f->ops[p];
        if (pop->code == OP_IF && op->parent != pop->region[pop->nregions - 1])
            return; /* the last branch's yield decides, all branches seen */
        for (uint32_t k = 0; k < op->nopnds && k < pop->nres; k++) {
            uint32_t l = c->dot_of[op->operands[k]];
            if (!l || c->dot_of[pop->results[k]]) continue;
            if (pop->code == OP_IF) { /* every branch yields it from a dot of that layout */
                bool all = true;
                for (int b = 0; b < pop->nregions; b++)
                    all &= yielded_dot(c, pop->region[b], k) == l;
                if (!all) continue;
            } else { /* the loop carries it in the dot's layout: it starts as a constant or
                        a dot's value, and no access with a layout of its own takes it */
                ValId init = pop->operands[3 + k];
                ValId arg = k + 1 < f->regions[pop->region[0]].nargs
                                ? f->regions[pop->region[0]].args[k + 1]
                                : 0;
                if (!arg || !(made_anywhere(f, init) || c->dot_of[init] == l) ||
                    used_by_anchor(c, pop->region[0], arg))
                    continue;
            }
            c->dot_of[pop->results[k]] = l;
            prefer(c, pop->results[k], l);
        }
        return;
    }
    if (op->nres != 1 || !is_block(f, op->results[0])) return;
    ValId r = op->results[0], x = op->operands[0];
    uint32_t l = 0;
    switch (op->code) {
    case OP_REDUCE:
        if (c->dot_of[x]) l = slice_of(c, c->dot_of[x], (int)op->attr[1]);
        break;
    case OP_EXPAND_DIMS: {
        const IrLayout *s = c->dot_of[x] ? &c->m->layouts[c->dot_of[x]] : NULL;
        if (s && s->kind == LAYOUT_SLICE && s->dim == op->attr[0]) l = s->parent;
        break;
    }
    case OP_BROADCAST:
    case OP_CONVERT_LAYOUT: l = c->dot_of[x]; break;
    case OP_TRANS:
    case OP_RESHAPE: /* the dot's elements where they are, indices renamed (no data moves):
                        an accumulator split into column halves for its stores (Triton's
                        epilogue subtiling: reshape, permute, split) stays in registers */
        if (c->dot_of[x]) l = through_shape_op(c, id, c->dot_of[x], true);
        break;
    default:
        if (!(ir_op_info[op->code].flags & F_ELEM)) return;
        for (uint32_t i = 0; i < op->nopnds && !l; i++) l = c->dot_of[op->operands[i]];
        for (uint32_t i = 0; l && i < op->nopnds; i++)
            if (!c->dot_of[op->operands[i]]) prefer(c, op->operands[i], l);
    }
    if (l) {
        c->dot_of[r] = l;
        prefer(c, r, l);
    }
}

/* Before the backward walk, forward from each load whose addresses run along another dim
 * than the last (an anchor, step 1): what is computed from the loaded values elementwise
 * will sit in the load's layout, so the other operands of those ops prefer it, and so do
 * the loop-carried values it is yielded as (their init and the loop's result). An
 * accumulator summed over column-ordered loads (a reduction over rows, Inductor's OUTER
 * reductions: `acc = tl.where(mask, acc + tl.load(p + x + N * r), acc)`) then starts and
 * stays in the loads' layout, as Triton's layout-conversion removal leaves it, instead of
 * moving through shared memory twice per iteration. Values with a preference of their own
 * (a dot's, an anchor's operands) keep it. */
static void pref_from_loads(Ctx *c, OpId id) {
    IrFunc *f = c->f;
    const IrOp *op = &f->ops[id];
    if (op->code == OP_LOAD) {
        uint32_t anchor = mem_layout(c, id);
        if (anchor && op->nres == 1) c->load_of[op->results[0]] = anchor;
        return;
    }
    if (op->code == OP_YIELD) {
        const IrRegion *body = &f->regions[op->parent];
        OpId loop = body->parent_op;
        if (loop && f->ops[loop].code == OP_IF) { /* a branch's result: the if's result */
            const IrOp *ifop = &f->ops[loop];
            for (uint32_t k = 0; k < op->nopnds && k < ifop->nres; k++) {
                uint32_t l = c->load_of[op->operands[k]];
                if (!l || c->load_of[ifop->results[k]]) continue;
                c->load_of[ifop->results[k]] = l;
                prefer(c, ifop->results[k], l);
            }
            return;
        }
        if (!loop || f->ops[loop].code != OP_FOR) return;
        const IrOp *lp = &f->ops[loop];
        for (uint32_t k = 0; k < op->nopnds; k++) {
            uint32_t l = c->load_of[op->operands[k]];
            if (!l || k + 1 >= body->nargs || 3 + k >= lp->nopnds) continue;
            prefer(c, body->args[k + 1], l);
            prefer(c, lp->operands[3 + k], l);
            if (k < lp->nres) prefer(c, lp->results[k], l);
        }
        return;
    }
    if (op->nres != 1 || !is_block(f, op->results[0]) || !(ir_op_info[op->code].flags & F_ELEM))
        return;
    ValId r = op->results[0];
    uint32_t l = 0;
    for (uint32_t i = 0; i < op->nopnds && !l; i++)
        if (is_block(f, op->operands[i]) &&
            ty_same_shape(ir_type(f, op->operands[i]), ir_type(f, r)))
            l = c->load_of[op->operands[i]];
    if (!l) return;
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (!c->load_of[op->operands[i]]) prefer(c, op->operands[i], l);
    c->load_of[r] = l;
    prefer(c, r, l);
}

/* What an if's users want of its results, its branches' yielded values want (before the
 * walk goes into the branches): a constant one branch yields is then made where the
 * other branch's value is, instead of deciding the result's layout (Inductor's
 * welford_reduce yields ones for the weight on the first iteration). */
static void pref_if(Ctx *c, OpId id) {
    IrFunc *f = c->f;
    const IrOp *op = &f->ops[id];
    for (int k = 0; k < op->nregions; k++) {
        const IrRegion *reg = &f->regions[op->region[k]];
        if (!reg->nops) continue;
        const IrOp *y = &f->ops[reg->ops[reg->nops - 1]];
        if (y->code != OP_YIELD) continue;
        for (uint32_t i = 0; i < y->nopnds && i < op->nres; i++)
            if (c->pref[op->results[i]])
                prefer_as(c, y->operands[i], c->pref[op->results[i]], c->weak[op->results[i]]);
    }
}

static void pref_region(Ctx *c, RegionId r) {
    IrFunc *f = c->f;
    for (uint32_t i = f->regions[r].nops; i-- > 0;) {
        OpId op = f->regions[r].ops[i];
        if (f->ops[op].code == OP_IF) pref_if(c, op);
        for (int k = f->ops[op].nregions; k-- > 0;) pref_region(c, f->ops[op].region[k]);
        pref_op(c, op);
    }
}

/* After the walk: a loop-carried value whose next value an if of the body gives (a
 * flattened loop's prologue values, computed again at each row's end) wants the layout
 * its users gave the carried value, which the walk learned only after passing the if
 * (the users come first in the body): the if's result prefers it, and the walk goes into
 * the if's branches again, so the value is made there in that layout instead of moving
 * through shared memory every iteration. */
static void pref_yielded_ifs(Ctx *c, OpId id) {
    IrFunc *f = c->f;
    if (f->ops[id].code != OP_FOR) return;
    const IrRegion *body = &f->regions[f->ops[id].region[0]];
    OpId y = body->ops[body->nops - 1];
    for (uint32_t k = 0; k < f->ops[y].nopnds && k + 1 < body->nargs; k++) {
        ValId v = f->ops[y].operands[k];
        uint32_t l = c->pref[body->args[k + 1]];
        OpId d = ir_def(f, v);
        if (!l || !d || f->ops[d].code != OP_IF || !is_block(f, v) || c->pref[v]) continue;
        prefer(c, v, l);
        pref_if(c, d);
        for (int j = f->ops[d].nregions; j-- > 0;) pref_region(c, f->ops[d].region[j]);
    }
}

/* ---- 3. forward assignment with conversions ---- */

typedef struct OpList {
    OpId *v;
    uint32_t n, cap;
} OpList;

/* A region being assigned and the ops it is getting (the ops of an enclosing region come
 * before the op whose regions are being assigned, so what is appended there runs first). */
typedef struct Frame {
    RegionId r;
    OpList *out;
} Frame;

/* A conversion made in an enclosing region, for the later users of the same value in the
 * same layout while that region is being assigned. */
typedef struct Hoisted {
    ValId v, r;
    uint32_t layout;
    int depth;
} Hoisted;

/* Rematerialisation, as Triton's layout-conversion removal does: a value built only
 * from scalars by arange, const, splat and cheap shape and elementwise ops (offsets,
 * pointer blocks, masks) is recomputed in the wanted layout instead of moved through
 * shared memory. REMAT_BUDGET bounds the ops cloned for one value. */
enum { REMAT_BUDGET = 24 };

static bool remat_leaf(int code) {
    return code == OP_ARANGE || code == OP_CONST || code == OP_SPLAT;
}

static bool remat_inner(const IrOp *op) {
    if (op->code == OP_BROADCAST || op->code == OP_EXPAND_DIMS || op->code == OP_MULTIPLE_OF ||
        op->code == OP_MAX_CONTIGUOUS || op->code == OP_MAX_CONSTANCY)
        return true;
    if (op->code == OP_INLINE_ASM) return false; /* a user's assembly runs once, where it is */
    return (ir_op_info[op->code].flags & F_ELEM) != 0;
}

static uint32_t operand_layout(Ctx *c, const IrOp *op, uint32_t layout) {
    return op->code == OP_EXPAND_DIMS ? slice_of(c, layout, (int)op->attr[0]) : layout;
}

/* Ops to clone to have v in layout; -1 if it cannot be recomputed within budget. */
static int remat_cost(Ctx *c, ValId v, uint32_t layout, int budget) {
    if (!is_block(c->f, v) || c->f->vals[v].layout == layout) return 0;
    OpId d = ir_def(c->f, v);
    if (!d || budget <= 0) return -1;
    const IrOp *op = &c->f->ops[d];
    if (remat_leaf(op->code)) return 1;
    if (!remat_inner(op)) return -1;
    int cost = 1;
    uint32_t ol = operand_layout(c, op, layout);
    for (uint32_t i = 0; i < op->nopnds; i++) {
        int k = remat_cost(c, op->operands[i], ol, budget - cost);
        if (k < 0) return -1;
        cost += k;
    }
    return cost <= budget ? cost : -1;
}

/* Clones v's computation in layout (remat_cost said it can), before the user. */
static ValId remat(Ctx *c, OpList *out, ValId v, uint32_t layout) {
    if (!is_block(c->f, v) || c->f->vals[v].layout == layout) return v;
    OpId d = ir_def(c->f, v);
    ValId opnds[4];
    uint32_t n = c->f->ops[d].nopnds;
    if (n > 4) NR_DIE("remat: %u operands", n);
    uint32_t ol = operand_layout(c, &c->f->ops[d], layout);
    for (uint32_t i = 0; i < n; i++) opnds[i] = remat(c, out, c->f->ops[d].operands[i], ol);
    IrType t = ir_type(c->f, v);
    OpId cp = ir_op_new(c->f, c->f->ops[d].code, c->f->ops[d].loc, opnds, n, &t, 1);
    IrOp *src = &c->f->ops[d], *dst = &c->f->ops[cp];
    memcpy(dst->attr, src->attr, sizeof dst->attr);
    dst->fattr = src->fattr;
    dst->sattr = src->sattr;
    ValId r = dst->results[0];
    c->f->vals[r].layout = layout;
    VEC_PUSH(c->m->arena, out->v, out->n, out->cap, cp);
    return r;
}

static bool loop_body(const IrFunc *f, RegionId r) {
    OpId p = f->regions[r].parent_op;
    return p && (f->ops[p].code == OP_FOR || f->ops[p].code == OP_WHILE);
}

/* The frame a conversion of v is made in: out of each loop body around the use that v is
 * defined outside of (it is the same in every iteration, and a conversion through shared
 * memory costs two barriers: Inductor's OUTER reductions subtract a per-column mean,
 * loaded before the loop in the load's own layout, in every iteration), but not out of an
 * if's branch (that would run it where no user does). -1: the current frame. */
static int hoist_frame(Ctx *c, ValId v) {
    if (c->no_hoist || c->depth < 2) return -1;
    const IrFunc *f = c->f;
    RegionId d = f->vals[v].is_arg ? f->vals[v].def : f->ops[f->vals[v].def].parent;
    int t = c->depth - 1;
    while (t > 0 && c->frames[t].r != d && loop_body(f, c->frames[t].r)) t--;
    if (t == c->depth - 1) return -1;
    for (int k = 0; k <= t; k++)
        if (c->frames[k].r == d) return t; /* v is made there or outside it */
    return -1;                             /* a value just made here: its region is not set yet */
}

static ValId convert(Ctx *c, OpList *out, ValId v, uint32_t layout, Loc loc) {
    if (!is_block(c->f, v) || c->f->vals[v].layout == layout) return v;
    if (remat_cost(c, v, layout, REMAT_BUDGET) >= 0) return remat(c, out, v, layout);
    int h = hoist_frame(c, v);
    if (h >= 0) {
        for (uint32_t i = 0; i < c->nhoisted; i++)
            if (c->hoisted[i].v == v && c->hoisted[i].layout == layout && c->hoisted[i].depth <= h)
                return c->hoisted[i].r;
        out = c->frames[h].out;
    }
    IrType t = ir_type(c->f, v);
    OpId cv = ir_op_new(c->f, OP_CONVERT_LAYOUT, loc, &v, 1, &t, 1);
    ValId r = c->f->ops[cv].results[0];
    c->f->vals[r].layout = layout;
    VEC_PUSH(c->m->arena, out->v, out->n, out->cap, cv);
    if (h >= 0) {
        c->f->ops[cv].parent = c->frames[h].r;
        Hoisted e = {v, r, layout, h};
        VEC_PUSH(c->m->arena, c->hoisted, c->nhoisted, c->caphoisted, e);
    }
    return r;
}

static void set_layout(Ctx *c, ValId v, uint32_t l) {
    if (is_block(c->f, v)) c->f->vals[v].layout = l;
}

static uint32_t fresh_layout(Ctx *c, ValId v) {
    return c->pref[v] ? c->pref[v] : default_layout(c, ir_type(c->f, v));
}

static void assign_region(Ctx *c, RegionId r);

/* Operands of op i that must share `l` are converted to it. */
static void require(Ctx *c, OpList *out, OpId id, uint32_t from, uint32_t l) {
    IrOp *op = &c->f->ops[id];
    for (uint32_t i = from; i < op->nopnds; i++) {
        ValId v = convert(c, out, op->operands[i], l, op->loc);
        c->f->ops[id].operands[i] = v;
        op = &c->f->ops[id];
    }
}

/* An elementwise op's layout: its first block operand's, or a dot's if an operand is in
 * one (the others convert to it: a mask applied to a dot's result moves, not the result). */
static uint32_t first_block_layout(Ctx *c, OpId id) {
    IrOp *op = &c->f->ops[id];
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (is_block(c->f, op->operands[i]) && is_dot_layout(c, c->f->vals[op->operands[i]].layout))
            return c->f->vals[op->operands[i]].layout;
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (is_block(c->f, op->operands[i])) return c->f->vals[op->operands[i]].layout;
    return 0;
}

static void yield_to(Ctx *c, RegionId r, const ValId *targets, uint32_t skip) {
    IrFunc *f = c->f;
    IrRegion *reg = &f->regions[r];
    OpId y = reg->ops[reg->nops - 1];
    OpList out = {0};
    c->no_hoist = true; /* the frames are the region's parent's: its own is done */
    for (uint32_t i = 0; i < f->ops[y].nopnds; i++) {
        ValId t = targets[i + skip];
        if (is_block(f, t))
            f->ops[y].operands[i] =
                convert(c, &out, f->ops[y].operands[i], f->vals[t].layout, f->ops[y].loc);
    }
    c->no_hoist = false;
    if (!out.n) return;
    OpId *ops = arena_alloc(c->m->arena, sizeof(OpId) * (reg->nops + out.n));
    memcpy(ops, reg->ops, sizeof(OpId) * (reg->nops - 1));
    memcpy(ops + reg->nops - 1, out.v, sizeof(OpId) * out.n);
    ops[reg->nops - 1 + out.n] = y;
    for (uint32_t i = 0; i < out.n; i++) f->ops[out.v[i]].parent = r;
    reg->ops = ops;
    reg->nops += out.n;
    reg->capops = reg->nops;
}

/* A constant or a splat of a scalar: converting it remakes it in the new layout. */
static bool made_anywhere(const IrFunc *f, ValId v) {
    if (!v || f->vals[v].is_arg) return false;
    int code = f->ops[f->vals[v].def].code;
    return code == OP_CONST || code == OP_SPLAT;
}

static void assign_control(Ctx *c, OpList *out, OpId id) {
    IrFunc *f = c->f;
    IrOp *op = &f->ops[id];
    if (op->code == OP_FOR || op->code == OP_WHILE) {
        uint32_t first = op->code == OP_FOR ? 3 : 0, argskip = op->code == OP_FOR ? 1 : 0;
        IrRegion *body = &f->regions[op->region[0]];
        for (uint32_t i = first; i < op->nopnds; i++) {
            ValId v = f->ops[id].operands[i], arg = body->args[i - first + argskip];
            if (is_block(f, v) && !f->vals[v].layout) set_layout(c, v, fresh_layout(c, v));
            /* an init shared with other users (CSE'd constants) still enters the loop in
             * the layout the body wants */
            if (is_block(f, v) && c->pref[arg] && c->pref[arg] != f->vals[v].layout)
                f->ops[id].operands[i] = convert(c, out, v, c->pref[arg], f->ops[id].loc);
        }
        op = &f->ops[id];
        for (int k = 0; k < op->nregions; k++) {
            RegionId r = f->ops[id].region[k];
            uint32_t skip = (op->code == OP_FOR) ? argskip : 0;
            for (uint32_t i = skip; i < f->regions[r].nargs; i++)
                set_layout(c, f->regions[r].args[i],
                           f->vals[f->ops[id].operands[first + i - skip]].layout);
        }
        for (uint32_t i = 0; i < f->ops[id].nres; i++)
            set_layout(c, f->ops[id].results[i], f->vals[f->ops[id].operands[first + i]].layout);
        for (int k = 0; k < f->ops[id].nregions; k++) {
            RegionId r = f->ops[id].region[k];
            assign_region(c, r);
            if (f->ops[f->regions[r].ops[f->regions[r].nops - 1]].code == OP_YIELD)
                yield_to(c, r, f->regions[r].args, op->code == OP_FOR ? 1 : 0);
        }
        return;
    }
    /* if: a result takes what its users want (a preference of their own), else the layout
     * the then-branch yields it in, unless that is a constant or a splat (made again in
     * any layout for free) and the else-branch's is not; each branch converts what it
     * yields to that */
    RegionId rt = op->region[0], re = op->region[1];
    assign_region(c, rt);
    assign_region(c, re);
    IrRegion *t = &f->regions[rt], *e = &f->regions[re];
    const IrOp *yt = &f->ops[t->ops[t->nops - 1]], *ye = &f->ops[e->ops[e->nops - 1]];
    for (uint32_t i = 0; i < f->ops[id].nres; i++) {
        ValId v = yt->operands[i], r = f->ops[id].results[i];
        ValId w = ye->code == OP_YIELD && i < ye->nopnds ? ye->operands[i] : 0;
        uint32_t want = c->pref[r] && !c->weak[r] ? c->pref[r] : 0;
        if (!want && is_block(f, w) && made_anywhere(f, v) && !made_anywhere(f, w))
            want = f->vals[w].layout;
        set_layout(c, r, !is_block(f, v) ? 0 : want ? want : f->vals[v].layout);
    }
    yield_to(c, rt, f->ops[id].results, 0);
    yield_to(c, re, f->ops[id].results, 0);
}

/* Elements a thread holds consecutively along the fastest dim of layout l's blocked
 * pointer layout pl (its order[0]). */
static int contig_along(Ctx *c, uint32_t l, uint32_t pl, IrType t) {
    LinearLayout ll;
    ir_layout_linear(c->m, l, t, &ll);
    return 1 << ll_contig_bits(&ll, LL_REG, c->m->layouts[pl].order[0]);
}

/* A store takes its pointer's (coalesced) layout and converts the value to it, except
 * a value in a dot's layout that stores as wide vectors there as in the coalesced layout
 * and whose pointers and mask can be recomputed in that layout: the store then happens
 * where the results are, with no trip through shared memory. A matmul's epilogue (two
 * consecutive elements a thread in the tensor cores' layouts, eight in the coalesced one)
 * converts: 16-byte stores of whole sectors cost less than the shared-memory round trip
 * (measured on the H100: a third of the epilogue's time). */
static void store_layout(Ctx *c, OpList *out, OpId id) {
    IrFunc *f = c->f;
    IrOp *op = &f->ops[id];
    ValId val = op->operands[1];
    uint32_t vl = is_block(f, val) ? f->vals[val].layout : 0, pl = f->vals[op->operands[0]].layout;
    bool flip =
        vl && vl != pl && is_dot_layout(c, vl) && c->m->layouts[pl].kind == LAYOUT_BLOCKED &&
        contig_along(c, vl, pl, ir_type(f, val)) >= contig_along(c, pl, pl, ir_type(f, val));
    for (uint32_t i = 0; flip && i < op->nopnds; i++)
        if (i != 1 && remat_cost(c, op->operands[i], vl, REMAT_BUDGET) < 0) flip = false;
    if (!flip) {
        require(c, out, id, 1, f->vals[op->operands[0]].layout);
        return;
    }
    for (uint32_t i = 0; i < f->ops[id].nopnds; i++)
        if (i != 1) {
            ValId v = remat(c, out, f->ops[id].operands[i], vl);
            f->ops[id].operands[i] = v;
        }
}

/* scan, reduce_fn: every operand in the first one's layout (the default one where that
 * layout mixes the axis with other dims: ir_layout_axis_separable); a scan's results in it,
 * a reduce_fn's in its slice along the axis. The combine region's values are scalars. */
static void assign_combine(Ctx *c, OpList *out, OpId id) {
    IrFunc *f = c->f;
    IrOp *op = &f->ops[id];
    int axis = (int)op->attr[0];
    IrType t = ir_type(f, op->operands[0]);
    uint32_t l = f->vals[op->operands[0]].layout;
    if (!l || !ir_layout_axis_separable(c->m, l, t, axis)) l = default_layout(c, t);
    require(c, out, id, 0, l);
    op = &f->ops[id];
    for (uint32_t i = 0; i < op->nres; i++)
        set_layout(c, op->results[i], op->code == OP_SCAN ? l : slice_of(c, l, axis));
}

/* flip, sort: in the operand's layout when it suits the axis (else the default one);
 * gather: in the index's layout (the source goes through shared memory); histogram: the
 * mask in the input's layout, the counts in the default layout of their shape. */
static void assign_perm(Ctx *c, OpList *out, OpId id) {
    IrFunc *f = c->f;
    IrOp *op = &f->ops[id];
    ValId r = op->results[0];
    if (op->code == OP_GATHER) {
        set_layout(c, r, f->vals[op->operands[1]].layout);
        return;
    }
    if (op->code == OP_HISTOGRAM) {
        if (op->nopnds > 1) require(c, out, id, 1, f->vals[op->operands[0]].layout);
        set_layout(c, r, fresh_layout(c, r));
        return;
    }
    IrType t = ir_type(f, op->operands[0]);
    uint32_t l = f->vals[op->operands[0]].layout;
    if (!l || !ir_layout_axis_separable(c->m, l, t, (int)op->attr[0])) l = default_layout(c, t);
    require(c, out, id, 0, l);
    set_layout(c, r, l);
}

static void assign_op(Ctx *c, OpList *out, OpId id) {
    IrFunc *f = c->f;
    IrOp *op = &f->ops[id];
    int code = op->code;
    if (code == OP_FOR || code == OP_WHILE || code == OP_IF) return assign_control(c, out, id);
    if (code == OP_SCAN || code == OP_REDUCE_FN) return assign_combine(c, out, id);
    if (code == OP_FLIP || code == OP_SORT || code == OP_GATHER || code == OP_HISTOGRAM)
        return assign_perm(c, out, id);
    if (code == OP_INLINE_ASM && op->nres > 1 &&
        is_block(f, op->results[0])) { /* elementwise, several results */
        uint32_t l = first_block_layout(c, id);
        if (!l) l = fresh_layout(c, op->results[0]);
        for (uint32_t i = 0; i < op->nres; i++) set_layout(c, f->ops[id].results[i], l);
        require(c, out, id, 0, l);
        return;
    }
    if (code == OP_STORE) {
        uint32_t anchor = is_block(f, op->operands[0]) ? mem_layout(c, id) : 0;
        if (anchor) {
            ValId p = convert(c, out, op->operands[0], anchor, op->loc);
            f->ops[id].operands[0] = p;
        }
        if (is_block(f, f->ops[id].operands[0])) store_layout(c, out, id);
        return;
    }
    if (op->nres != 1 || !is_block(f, op->results[0])) return;
    ValId r = op->results[0];
    switch (code) {
    case OP_CONST:
    case OP_ARANGE:
    case OP_SPLAT: set_layout(c, r, fresh_layout(c, r)); return;
    case OP_BROADCAST: {
        uint32_t l = fresh_layout(c, r);
        set_layout(c, r, l);
        require(c, out, id, 0, l);
        return;
    }
    case OP_EXPAND_DIMS: {
        uint32_t l = fresh_layout(c, r);
        set_layout(c, r, l);
        require(c, out, id, 0, slice_of(c, l, (int)op->attr[0]));
        return;
    }
    case OP_REDUCE:
        set_layout(c, r, slice_of(c, f->vals[op->operands[0]].layout, (int)op->attr[1]));
        return;
    case OP_DOT: {
        uint32_t l = dot_layout(c, id);
        set_layout(c, r, l);
        require(c, out, id, 2, l);
        return;
    }
    case OP_TRANS:
    case OP_RESHAPE: {
        /* where its user wants it, else where the operand's elements already are: a
         * renaming of indices, no data moves */
        uint32_t l = c->pref[r] ? c->pref[r] : 0;
        ValId x = op->operands[0];
        if (!l && is_block(f, x) && ir_layout_is_distributed(c->m->layouts[f->vals[x].layout].kind))
            l = through_shape_op(c, id, f->vals[x].layout, true);
        set_layout(c, r, l ? l : fresh_layout(c, r));
        return;
    }
    case OP_DESC_LOAD: /* a TMA tile (lower_tma.c): read from its buffer in whatever layout its
                          users want */
        set_layout(c, r, c->pref[r] ? c->pref[r] : default_layout(c, ir_type(f, r)));
        return;
    case OP_LOAD:
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: {
        uint32_t anchor = mem_layout(c, id), l = anchor ? anchor : f->vals[op->operands[0]].layout;
        set_layout(c, r, l);
        require(c, out, id, anchor ? 0 : 1, l);
        return;
    }
    default: {
        uint32_t l = first_block_layout(c, id);
        if (!l) l = fresh_layout(c, r);
        set_layout(c, r, l);
        require(c, out, id, 0, l);
    }
    }
}

static void assign_region(Ctx *c, RegionId r) {
    IrFunc *f = c->f;
    OpList out = {0};
    Frame fr = {r, &out};
    VEC_PUSH(c->m->arena, c->frames, c->depth, c->capframes, fr);
    for (uint32_t i = 0; i < f->regions[r].nargs; i++) {
        ValId a = f->regions[r].args[i];
        if (r == f->body && is_block(f, a)) set_layout(c, a, fresh_layout(c, a));
    }
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        OpId id = f->regions[r].ops[i];
        assign_op(c, &out, id);
        VEC_PUSH(c->m->arena, out.v, out.n, out.cap, id);
    }
    for (uint32_t i = 0; i < out.n; i++) f->ops[out.v[i]].parent = r;
    f->regions[r].ops = out.v;
    f->regions[r].nops = out.n;
    f->regions[r].capops = out.cap;
    c->depth--;
    while (c->nhoisted && c->hoisted[c->nhoisted - 1].depth >= c->depth) c->nhoisted--;
}

static void chain_walk(Ctx *c, RegionId r, uint8_t *from_dot) {
    for (uint32_t i = 0; i < c->f->regions[r].nops; i++) {
        OpId op = c->f->regions[r].ops[i];
        mark_chain(c, op, from_dot);
        for (int k = 0; k < c->f->ops[op].nregions; k++)
            chain_walk(c, c->f->ops[op].region[k], from_dot);
    }
}

void gpu_assign_layouts(IrFunc *f, const AxisInfo *info, const GpuOptions *o) {
    Ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.m = f->mod;
    c.info = info;
    c.num_warps = o->num_warps;
    c.arch = o->arch;
    c.m->gpu.arch = (uint8_t)o->arch;
    c.m->gpu.num_warps = (uint8_t)o->num_warps;
    c.pref = arena_alloc(c.m->arena, sizeof(uint32_t) * (f->nvals + 1));
    c.nmem_fast = f->nops + 1;
    c.mem_fast = arena_alloc(c.m->arena, c.nmem_fast);
    memset(c.mem_fast, -1, c.nmem_fast);
    chain_walk(&c, f->body, arena_alloc(c.m->arena, f->nvals + 1));
    walk_ops(f, f->body, coalesce_op, &c);
    cap_vectors(&c);
    c.dot_of = arena_alloc(c.m->arena, sizeof(uint32_t) * (f->nvals + 1));
    c.weak = arena_alloc(c.m->arena, f->nvals + 1);
    walk_ops(f, f->body, pref_from_dots, &c);
    walk_ops(f, f->body, pref_anchor, &c);
    c.load_of = arena_alloc(c.m->arena, sizeof(uint32_t) * (f->nvals + 1));
    walk_ops(f, f->body, pref_from_loads, &c);
    walk_ops(f, f->body, pref_carried, &c);
    pref_region(&c, f->body);
    walk_ops(f, f->body, pref_yielded_ifs, &c);
    assign_region(&c, f->body);
}
