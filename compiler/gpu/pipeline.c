/* pipeline.c - software pipelining of the loops that feed dots (Triton's num_stages).
 *
 * Requires:  dot operands lowered (gpu_lower_dot_operands); the alignment facts of f.
 * Maintains: SSA, semantics, the layout verifier's rules.
 * Breaks:    nothing. Leaves the replaced loads and buffers unused, for dce (a buffer
 *            made a ring of two, below, is taken out of its region instead).
 *
 * A candidate is a load in a for loop's body (not nested deeper) whose value only fills
 * a buffer (local_alloc) that the loop's dots read, with no `other` but zeros (cp.async
 * fills masked elements with zeros) and pieces cp.async can move (4, 8 or 16 bytes:
 * layout_moves.h's run of consecutive buffer offsets, and what the alignment facts
 * prove; a mask need only be true on a prefix of each piece, axis_info_prefix_width: the
 * copy's source size counts the true elements). What the load's pointers and mask need forms stage
 * 0: pure ops of the body computed from the induction variable, from values defined before the
 * loop, and from carried values whose next value stage 0 computes (the pointer blocks a matmul
 * advances by BLOCK_K each iteration, counters advanced by selects: a flattened loop's). Everything
 * else is the last stage. Where the last stage, or the code after the loop, reads a stage-0 carried
 * value (directly or through stage 0), the loop also carries it at the current iteration
 * (current_copies) and those readers take that copy.
 *
 * With S = num_stages (the loop's own, from tl.range(..., num_stages=S), else the
 * kernel's; below 2 the loop is left alone; lowered to T + 1 (at least 2) where the bounds
 * differ by a constant and the loop runs T times (attention's diagonal block:
 * range(m * 128, (m + 1) * 128, 64)), as deeper stages would only hold copies masked off;
 * lowered, down to 2, while the loop's buffers
 * would not fit in the target's shared memory, and the loop left alone where two do not fit
 * either: loop_smem_bytes counts what the later passes add too, lower-tma's buffers for the
 * descriptor accesses left in the body), each candidate gets a ring of S buffers.
 * Before the loop, a prologue issues the copies of iterations 0 .. S-2 (each masked off where the
 * iteration does not exist, so short and zero-trip loops need no epilogue) into stages
 * 0 .. S-2, one commit group per iteration, advancing the stage-0 carried values. The
 * loop carries an iteration count `it` and the carried values S-1 iterations ahead.
 * Each iteration waits until at most S-2 groups are in flight (so iteration it's copies
 * have landed), reads stage it % S where the load's buffer was read, and issues the
 * copies of iteration it + S-1 into stage (it + S-1) % S (read in the previous
 * iteration, which the barrier pass orders) and commits (where S is no power of two, the
 * loop carries the stage it reads instead of dividing it by S: stage_counters): at the head of the
 * body, right after the wait, when every reader of the rings is synchronous; after the last reader
 * and its dot_wait when a dot_async of the previous iteration may still read that stage. After the
 * loop, a wait for every group.
 *
 * A desc_load of a TMA descriptor that fills such a buffer, in the layout its TMA plan
 * writes (tma.h), is a candidate too, and so is one that a reshape which only drops or adds
 * unit dims puts in the buffer (a [1, M, K] box lands as the [M, K] tile: the copies keep
 * the descriptor's coordinates and write a ring of [M, K] stages); its ring gets a ring of S
 * mbarriers initialised before the loop; an iteration's copies are `if valid {
 * mbarrier_expect; tma_load; ... }` (one `if` for all its TMA candidates) into stage s with
 * stage s's mbarrier, and an iteration waits on mbarrier it % S for phase (it / S) % 2
 * instead of async_wait. After the loop the mbarriers are invalidated.
 *
 * A wgmma dot (mma version 3, operands in shared memory that stay put into the next
 * iteration: ring stages or buffers made before the loop) that accumulates into a
 * carried value becomes dot_async followed by dot_wait {pending = 1}: iteration it's
 * tensor-core work overlaps iteration it+1's, and dot_wait {pending = 0} after the loop
 * gives the result. Its result may also be read in the regions of one if of the body (a
 * store of the accumulator every few iterations, a flattened loop's epilogue): those regions wait
 * for it (pending = 0) and the if hands the loop the waited value (wait_in_if). (The barrier pass
 * keeps the stage an in-flight wgmma reads from being overwritten by another warpgroup's copy.) A
 * one-stage buffer such a dot reads that the body fills from registers (a tile turned K-major for
 * wgmma, or any block the body computes) becomes a ring of two written by local_store, where shared
 * memory allows, so that the dot qualifies. A register A that the body loads from a ring
 * (transpose_dots.c's B^T; cp.async rings only) qualifies too: its load, and the wait for
 * its stage's copies, move one iteration ahead and the dot's wait becomes pending 0 after
 * them (load_a_ahead), as a wgmma's A registers must stay unwritten until it retires.
 *
 * A load of the body that a dot's operand is computed from through registers (attention
 * backward's row statistics) is first staged through a plain shared buffer, so that it is
 * a candidate too (stage_loads, below; undone where its loop is not pipelined).
 *
 * With tl.range(..., warp_specialize=True), a loop of TMA copies at the top of the kernel
 * is split instead between a producer warpgroup and the consumer warps (the section
 * "warp specialisation" below): the kernel then ends in a warp_specialize op that holds
 * the loop and everything after it. */
#include <stdlib.h>
#include <string.h>

#include "compiler/analysis/layout_moves.h"
#include "compiler/ir/ir_layout.h"
#include "compiler/passes/rewrite.h"
#include "compiler/target/tma.h"
#include "gpu_passes.h"
#include "layout_policy.h"

typedef struct Cand {
    OpId load, alloc;
    ValId ring;
    bool tma;      /* a desc_load: TMA copies completing on a ring of mbarriers */
    ValId bars;    /* tma: the mbarriers, one per stage */
    bool reshaped; /* tma: the load's tile reshaped (unit dims) before the buffer */
} Cand;

typedef struct Pipe {
    IrFunc *f;
    IrModule *m;
    const AxisInfo *info;
    int stages;         /* of the loop being pipelined */
    int default_stages; /* the kernel's num_stages */
    uint32_t *uses;     /* per value */
    uint8_t *s0;        /* per op: in stage 0 */
    uint8_t *carried;   /* per value (a body argument): a stage-0 carried value */
    OpVec out;
    ValId *repl; /* (old, new) pairs: old loop results and what replaces them */
    uint32_t nrepl, caprepl;
    uint32_t nops0, nvals0; /* the sizes of s0 and carried */
    uint32_t ncar;          /* the loop's carried values (its body's args: iv, these, it, ...) */
    uint32_t ncur;          /* current copies of them (current_copies), after it */
    ValId *cur_next;        /* their next values */
    uint32_t *cur_of;       /* the carried slot (from 0) each copies */
    uint8_t *async_slot;    /* per carried slot: a dot_async chain's (waited after the loop) */
    uint8_t *dep;           /* per op of f (nops0): a stage-0 op computed from a carried value */
    ValId rs, ph;    /* where S is no power of two: the stage it reads, its mbarriers' phase */
    uint32_t nextra; /* the carried values between it and the current copies: rs, ph (0-2) */
    RegionId region; /* the region walk is rebuilding (where the loop is) */
    bool ws;         /* the loop being pipelined is warp-specialised (ws_wanted) */
    ValId empty;     /* ws: the ring of "empty" mbarriers the consumer warps arrive on */
    OpId ws_op;      /* the function's warp_specialize, once made */
    /* ws of a loop in an if at the top of the body (ws_wanted): the if, which side holds
     * the loop, the ops before the loop there that the producer reads (cloned for it), the
     * producer's ops and the ops every thread runs before the warp_specialize (the rings
     * and their mbarriers), all placed by walk once it is back in the body */
    OpId ws_host;
    int ws_side;
    OpVec ws_clone, ws_producer, ws_hoist;
    /* loads staged through shared memory for their loop (stage_loads): (loop, the load's
     * value, the local_load's, the local_alloc, the local_load) records; piped: the loops
     * pipelined */
    uint32_t *staged, nstaged, capstaged;
    OpVec piped;
} Pipe;

/* Stage-0 membership and carried marks exist for the ops and values f had when the pass
 * began; later ones (another loop's prologue, the counters) are in neither. */
static bool is_s0(const Pipe *P, OpId op) { return op < P->nops0 && P->s0[op]; }
static bool is_carried(const Pipe *P, ValId v) { return v < P->nvals0 && P->carried[v]; }

static void replace_later(Pipe *P, ValId old, ValId now) {
    VEC_PUSH(P->m->arena, P->repl, P->nrepl, P->caprepl, old);
    VEC_PUSH(P->m->arena, P->repl, P->nrepl, P->caprepl, now);
}

/* Operands equal to from become to, in the ops of ops[0..n) and the regions nested in
 * them (a ring's reader may sit in an if of the loop body). */
static void replace_in(IrFunc *f, const OpId *ops, uint32_t n, ValId from, ValId to) {
    for (uint32_t k = 0; k < n; k++) {
        for (uint32_t i = 0; i < f->ops[ops[k]].nopnds; i++)
            if (f->ops[ops[k]].operands[i] == from) f->ops[ops[k]].operands[i] = to;
        for (int j = 0; j < f->ops[ops[k]].nregions; j++) {
            const IrRegion *r = &f->regions[f->ops[ops[k]].region[j]];
            replace_in(f, r->ops, r->nops, from, to);
        }
    }
}

/* Uses of v by op id and the ops nested in it. */
static uint32_t deep_uses(const IrFunc *f, OpId id, ValId v) {
    const IrOp *op = &f->ops[id];
    uint32_t n = 0;
    for (uint32_t i = 0; i < op->nopnds; i++) n += op->operands[i] == v;
    for (int j = 0; j < op->nregions; j++) {
        const IrRegion *r = &f->regions[op->region[j]];
        for (uint32_t k = 0; k < r->nops; k++) n += deep_uses(f, r->ops[k], v);
    }
    return n;
}

static bool in_body(const IrFunc *f, OpId op, RegionId body) {
    return op && f->ops[op].parent == body;
}

static const IrOp *def(const IrFunc *f, ValId v) {
    OpId d = ir_def(f, v);
    return d ? &f->ops[d] : NULL;
}

/* A value all of whose elements are 0 (a splat or block constant). */
static bool is_zero(const IrFunc *f, ValId v) {
    const IrOp *d = def(f, v);
    if (d && d->code == OP_SPLAT) d = def(f, d->operands[0]);
    if (!d || d->code != OP_CONST) return false;
    return dt_is_float(ir_type(f, d->results[0]).dt) ? d->fattr == 0 : d->attr[0] == 0;
}

/* Can cp.async move this load's elements into its buffer? */
static bool copyable(Pipe *P, const IrOp *ld, ValId buf) {
    ValId ptr = ld->operands[0], mask = ld->nopnds > 1 ? ld->operands[1] : 0;
    IrType pt = ir_type(P->f, ptr);
    int eb = dt_bytes(pt.pointee);
    int run = moves_smem_run(P->m, P->f->vals[ptr].layout, P->f->vals[buf].layout, pt, eb, 16);
    LinearLayout l;
    ir_layout_linear(P->m, P->f->vals[ptr].layout, pt, &l);
    int fast = -1;
    for (int d = 0; l.nbits[LL_REG] && d < pt.rank; d++)
        if (l.basis[LL_REG][0] == 1u << ll_dim_shift(&l, d)) fast = d;
    if (fast < 0) return false;
    /* masked copies take their source size from the mask where it is a prefix of each run
     * (llvm_smem.c's async_copy) */
    int proven = axis_info_copy_width(P->f, P->info, ptr, mask, eb, fast);
    int v = run < proven ? run : proven;
    return v * eb >= 4;
}

/* Can TMA fill this buffer: is its layout the one the descriptor's TMA plan writes (a
 * panel as wide as the row is the same as none)? */
static bool tma_ring_ok(Pipe *P, const IrOp *ld, ValId buf) {
    IrType d = ir_type(P->f, ld->operands[0]);
    IrLayout want; /* the buffer's tile, or the tile but for unit dims (a reshaped load) */
    if (!gpu_tma_buffer_layout(d, ir_type(P->f, buf), &want)) return false;
    const IrLayout *have = &P->m->layouts[P->f->vals[buf].layout];
    int row = d.shape[d.rank - 1];
    int atom_w = want.atom ? want.atom : row, atom_h = have->atom ? have->atom : row;
    if (have->kind != LAYOUT_SHARED || have->rank != want.rank || have->vec != want.vec ||
        have->per_phase != want.per_phase || have->max_phase != want.max_phase || atom_w != atom_h)
        return false;
    for (int k = 0; k < want.rank; k++)
        if (have->order[k] != want.order[k]) return false;
    return true;
}

/* The desc_load that value v (a buffer's initial value, used only there) is, or that v
 * reshapes only by dropping or adding unit dims (a [1, M, K] tile as [M, K]: its TMA box
 * lands in shared memory as the [M, K] tile would), a load of the body used only there;
 * 0 if neither. */
static OpId desc_load_of(Pipe *P, RegionId body, ValId v) {
    IrFunc *f = P->f;
    OpId d = ir_def(f, v);
    if (!in_body(f, d, body)) return 0;
    if (f->ops[d].code == OP_DESC_LOAD) return d;
    if (f->ops[d].code != OP_RESHAPE) return 0;
    ValId x = f->ops[d].operands[0];
    OpId ld = ir_def(f, x);
    if (!in_body(f, ld, body) || f->ops[ld].code != OP_DESC_LOAD || P->uses[x] != 1 ||
        !ty_same_but_unit_dims(ir_type(f, x), ir_type(f, v)))
        return 0;
    return ld;
}

/* Are the ops of op id's regions all pure (an if of arithmetic: an offset advanced every few
 * iterations, which stage 0 computes like any pure op)? */
static bool pure_regions(const IrFunc *f, OpId id) {
    for (int j = 0; j < f->ops[id].nregions; j++) {
        const IrRegion *r = &f->regions[f->ops[id].region[j]];
        for (uint32_t k = 0; k < r->nops; k++) {
            OpId o = r->ops[k];
            if (f->ops[o].code == OP_YIELD) continue;
            if (!(ir_op_info[f->ops[o].code].flags & F_PURE) && f->ops[o].code != OP_IF)
                return false;
            if (f->ops[o].nregions && !pure_regions(f, o)) return false;
        }
    }
    return true;
}

static bool need_captures(Pipe *P, RegionId body, OpId id, RegionId r, int depth);

/* Adds what value v needs to stage 0; false if it cannot be computed there. */
static bool need(Pipe *P, RegionId body, ValId v, int depth) {
    IrFunc *f = P->f;
    if (depth > 10000) return false;
    if (f->vals[v].is_arg) {
        if (f->vals[v].def != body) return true; /* defined outside the loop */
        uint32_t i = f->vals[v].index;
        if (i == 0 || is_carried(P, v)) return true; /* the induction variable */
        if (v >= P->nvals0) return false;
        P->carried[v] = 1;
        const IrRegion *r = &f->regions[body];
        const IrOp *y = &f->ops[r->ops[r->nops - 1]];
        return need(P, body, y->operands[i - 1], depth + 1); /* its next value */
    }
    OpId d = ir_def(f, v);
    if (!in_body(f, d, body)) {
        /* defined before the loop, or inside a nested region of the body */
        for (RegionId r = f->ops[d].parent; r; r = f->ops[f->regions[r].parent_op].parent)
            if (r == body) return false;
        return true;
    }
    if (is_s0(P, d)) return true;
    const IrOp *op = &f->ops[d];
    bool pure_if = op->code == OP_IF && pure_regions(f, d);
    if ((!(ir_op_info[op->code].flags & F_PURE) || op->nregions) && !pure_if) return false;
    if (d >= P->nops0) return false;
    P->s0[d] = 1;
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (!need(P, body, op->operands[i], depth + 1)) return false;
    for (int j = 0; j < op->nregions; j++)
        if (!need_captures(P, body, d, op->region[j], depth + 1)) return false;
    return true;
}

/* What the regions of op id (a pure if in stage 0) read from outside it, added to stage 0. */
static bool need_captures(Pipe *P, RegionId body, OpId id, RegionId r, int depth) {
    IrFunc *f = P->f;
    const IrRegion *rg = &f->regions[r];
    for (uint32_t k = 0; k < rg->nops; k++) {
        OpId o = rg->ops[k];
        for (uint32_t i = 0; i < f->ops[o].nopnds; i++) {
            ValId v = f->ops[o].operands[i];
            bool inside = false;
            for (int j = 0; j < f->ops[id].nregions && !inside; j++)
                inside = ir_defined_in(f, v, f->ops[id].region[j]);
            if (!inside && !need(P, body, v, depth + 1)) return false;
        }
        for (int j = 0; j < f->ops[o].nregions; j++)
            if (!need_captures(P, body, id, f->ops[o].region[j], depth + 1)) return false;
    }
    return true;
}

/* Does op id, or an op nested in it, read a stage-0 carried value or a stage-0 value
 * computed from one (dep marks those of the ops before it)? */
static bool reads_carried(Pipe *P, RegionId body, OpId id) {
    IrFunc *f = P->f;
    const IrOp *op = &f->ops[id];
    for (uint32_t i = 0; i < op->nopnds; i++) {
        ValId v = op->operands[i];
        OpId d = ir_def(f, v);
        if ((f->vals[v].is_arg && f->vals[v].def == body && is_carried(P, v)) ||
            (in_body(f, d, body) && d < P->nops0 && P->dep[d]))
            return true;
    }
    for (int j = 0; j < op->nregions; j++) {
        const IrRegion *r = &f->regions[op->region[j]];
        for (uint32_t k = 0; k < r->nops; k++)
            if (reads_carried(P, body, r->ops[k])) return true;
    }
    return false;
}

/* P->dep for the stage-0 ops of body (in body order: what they read is marked first). */
static void mark_dep(Pipe *P, RegionId body) {
    IrFunc *f = P->f;
    memset(P->dep, 0, P->nops0 + 1);
    const IrRegion *r = &f->regions[body];
    for (uint32_t k = 0; k < r->nops; k++)
        if (is_s0(P, r->ops[k])) P->dep[r->ops[k]] = reads_carried(P, body, r->ops[k]);
}

/* Does value v (in the body) depend on a stage-0 carried value? */
static bool on_carried(Pipe *P, RegionId body, ValId v) {
    IrFunc *f = P->f;
    if (f->vals[v].is_arg) return f->vals[v].def == body && is_carried(P, v);
    OpId d = ir_def(f, v);
    return in_body(f, d, body) && d < P->nops0 && P->dep[d];
}

/* Stage 0's values must not leak into the last stage in their advanced form: a carried
 * stage-0 value may be used only by stage 0 (and its yield slot), nor wanted after the
 * loop; a stage-0 op the last stage also uses must not depend on one. */
/* Does last-stage op id (or an op nested in it: an if or loop of the body) use a
 * stage-0 carried value, or a stage-0 value computed from one? y: the body's yield. */
static bool leaks(Pipe *P, RegionId body, OpId id, OpId y) {
    IrFunc *f = P->f;
    const IrRegion *r = &f->regions[body];
    const IrOp *op = &f->ops[id];
    for (uint32_t i = 0; i < op->nopnds; i++) {
        ValId v = op->operands[i];
        if (id == y && f->vals[r->args[i + 1]].is_arg && is_carried(P, r->args[i + 1]))
            continue; /* its own slot */
        if (f->vals[v].is_arg && f->vals[v].def == body && is_carried(P, v)) return true;
        OpId d = ir_def(f, v);
        if (in_body(f, d, body) && is_s0(P, d) && on_carried(P, body, v)) return true;
    }
    for (int j = 0; j < op->nregions; j++) {
        const IrRegion *nr = &f->regions[op->region[j]];
        for (uint32_t k = 0; k < nr->nops; k++)
            if (leaks(P, body, nr->ops[k], y)) return true;
    }
    return false;
}

/* Does the last stage (or the code after the loop) read a stage-0 carried value, directly or
 * through stage 0? Then it needs current_copies. */
static bool stages_mixed(Pipe *P, OpId loop, RegionId body, const Cand *cands, int nc) {
    IrFunc *f = P->f;
    const IrRegion *r = &f->regions[body];
    OpId y = r->ops[r->nops - 1];
    for (uint32_t i = 1; i < r->nargs; i++)
        if (is_carried(P, r->args[i]) && P->uses[f->ops[loop].results[i - 1]]) return true;
    for (uint32_t k = 0; k < r->nops; k++) {
        OpId id = r->ops[k];
        bool cand = false;
        for (int c = 0; c < nc; c++) cand |= cands[c].load == id;
        if (is_s0(P, id) || cand) continue;
        if (leaks(P, body, id, y)) return true;
    }
    return false;
}

/* ---- building ---- */

static ValId emit(Pipe *P, int code, Loc loc, const ValId *opnds, uint32_t n, IrType t,
                  uint32_t layout) {
    OpId op = ir_op_new(P->f, code, loc, opnds, n, &t, 1);
    ValId r = P->f->ops[op].results[0];
    P->f->vals[r].layout = layout;
    opvec_push(&P->out, op);
    return r;
}

static OpId emit0(Pipe *P, int code, Loc loc, const ValId *opnds, uint32_t n, int64_t attr) {
    OpId op = ir_op_new(P->f, code, loc, opnds, n, NULL, 0);
    P->f->ops[op].attr[0] = attr;
    opvec_push(&P->out, op);
    return op;
}

static ValId konst(Pipe *P, IrType t, int64_t v, Loc loc) {
    OpId op = ir_op_new(P->f, OP_CONST, loc, NULL, 0, &t, 1);
    P->f->ops[op].attr[0] = v;
    opvec_push(&P->out, op);
    return P->f->ops[op].results[0];
}

static ValId binop(Pipe *P, int code, ValId a, ValId b, Loc loc) {
    IrType t = ir_type(P->f, a);
    ValId o[2] = {a, b};
    return emit(P, code, loc, o, 2, t, P->f->vals[a].layout);
}

/* x % n and (x / n) % 2 of an iteration counter x (it counts from 0, so x >= 0): a mask
 * and a shift where n is a power of two, without the signed remainder's and quotient's
 * fix-ups for a negative x (five instructions each, in every iteration). The loop's own
 * stage and phase, where n is no power of two, are carried instead (stage_counters). */
static ValId ring_slot(Pipe *P, ValId x, int n, Loc loc) {
    IrType i32 = ty_scalar(DT_I32);
    if ((n & (n - 1)) == 0) return binop(P, OP_AND, x, konst(P, i32, n - 1, loc), loc);
    return binop(P, OP_REM, x, konst(P, i32, n, loc), loc);
}

static ValId ring_phase(Pipe *P, ValId x, int n, Loc loc) {
    IrType i32 = ty_scalar(DT_I32);
    ValId q = (n & (n - 1)) == 0 ? binop(P, OP_SHR, x, konst(P, i32, __builtin_ctz(n), loc), loc)
                                 : binop(P, OP_IDIV, x, konst(P, i32, n, loc), loc);
    return binop(P, OP_AND, q, konst(P, i32, 1, loc), loc);
}

/* A copy of stage-0 op id with its operands through map (map gets its result). */
static OpId clone_s0(Pipe *P, OpId id, ValId *map) {
    IrFunc *f = P->f;
    if (f->ops[id].nregions) { /* a pure if: copied whole, its values keeping their layouts */
        uint32_t nv = f->nvals + 1;
        ValId *full = malloc(sizeof(ValId) * nv);
        if (!full) NR_DIE("out of memory");
        for (uint32_t v = 0; v < nv; v++) full[v] = v < P->nvals0 && map[v] ? map[v] : v;
        OpId c = ir_clone_op(f, ir_region_new(f, 0), f, id, full);
        for (uint32_t v = 0; v < nv; v++)
            if (full[v] != v && (v >= P->nvals0 || !map[v] || map[v] != full[v]))
                f->vals[full[v]].layout = f->vals[v].layout;
        for (uint32_t i = 0; i < f->ops[id].nres; i++)
            map[f->ops[id].results[i]] = full[f->ops[id].results[i]];
        free(full);
        return c;
    }
    const IrOp *op = &f->ops[id];
    ValId opnds[8];
    uint32_t no = op->nopnds;
    if (no > 8) NR_DIE("pipeline: stage-0 op with %u operands", no);
    for (uint32_t i = 0; i < no; i++)
        opnds[i] = map[op->operands[i]] ? map[op->operands[i]] : op->operands[i];
    IrType t = ir_type(f, op->results[0]);
    OpId c = ir_op_new(f, op->code, op->loc, opnds, no, &t, 1);
    memcpy(f->ops[c].attr, f->ops[id].attr, sizeof f->ops[c].attr);
    f->ops[c].fattr = f->ops[id].fattr, f->ops[c].sattr = f->ops[id].sattr;
    ValId r = f->ops[c].results[0];
    f->vals[r].layout = f->vals[f->ops[id].results[0]].layout;
    map[f->ops[id].results[0]] = r;
    return c;
}

/* Clones the stage-0 ops (in body order) with map; returns nothing, map grows. */
static void clone_stage0(Pipe *P, RegionId body, ValId *map) {
    uint32_t n;
    OpId *ops = ir_region_copy_ops(P->f, body, &n);
    for (uint32_t k = 0; k < n; k++)
        if (is_s0(P, ops[k])) opvec_push(&P->out, clone_s0(P, ops[k], map));
    free(ops);
}

static ValId mapped(const ValId *map, ValId v) { return map[v] ? map[v] : v; }

/* Stage `slot` (an i32 scalar) of a ring, a one-stage view. */
static ValId view_of(Pipe *P, ValId ring, ValId slot, Loc loc) {
    IrType vt = ir_type(P->f, ring);
    vt.stages = 1;
    ValId vo[2] = {ring, slot};
    return emit(P, OP_LOCAL_VIEW, loc, vo, 2, vt, P->f->vals[ring].layout);
}

static bool any_tma(const Cand *cands, int nc) {
    for (int c = 0; c < nc; c++)
        if (cands[c].tma) return true;
    return false;
}

static bool any_cp(const Cand *cands, int nc) {
    for (int c = 0; c < nc; c++)
        if (!cands[c].tma) return true;
    return false;
}

/* A TMA candidate's copy of one iteration into stage `slot`, its two ops appended to then
 * (issue puts them under one `if valid`):
 *   mbarrier_expect(bars[slot]) {bytes}; tma_load(d, bars[slot], ring[slot], offsets) */
static void issue_tma(Pipe *P, const Cand *c, const ValId *map, ValId slot, Loc loc, OpVec *then) {
    IrFunc *f = P->f;
    const IrOp *ld = &f->ops[c->load];
    ValId d = ld->operands[0];
    IrType dt = ir_type(f, d);
    uint32_t noff = ld->nopnds - 1;
    ValId opnds[3 + NR_MAX_DESC_RANK];
    opnds[0] = d;
    for (uint32_t i = 0; i < noff; i++) opnds[3 + i] = mapped(map, ld->operands[1 + i]);
    ValId view = view_of(P, c->ring, slot, loc), bar = view_of(P, c->bars, slot, loc);
    opnds[1] = bar, opnds[2] = view;
    OpId expect = ir_op_new(f, OP_MBARRIER_EXPECT, loc, &bar, 1, NULL, 0);
    f->ops[expect].attr[0] = gpu_tma_tile_bytes(dt);
    opvec_push(then, expect);
    opvec_push(then, ir_op_new(f, OP_TMA_LOAD, loc, opnds, 3 + noff, NULL, 0));
}

/* Appends `if cond { then...; yield } else { yield }` to P->out (then: ops made for the
 * branch, taken over). */
static void push_if(Pipe *P, ValId cond, OpVec *then, Loc loc) {
    IrFunc *f = P->f;
    opvec_push(then, ir_op_new(f, OP_YIELD, loc, NULL, 0, NULL, 0));
    OpId iff = ir_op_new(f, OP_IF, loc, &cond, 1, NULL, 0);
    RegionId then_r = ir_op_add_region(f, iff), else_r = ir_op_add_region(f, iff);
    OpId else_ops[1] = {ir_op_new(f, OP_YIELD, loc, NULL, 0, NULL, 0)};
    ir_region_set_ops(f, then_r, then->v, then->n);
    ir_region_set_ops(f, else_r, else_ops, 1);
    opvec_push(&P->out, iff);
}

/* The copies of one iteration: stage-0 values from map, into stage `slot`, masked by
 * valid (an i1 scalar). The TMA copies go under one `if valid` (one barrier before them
 * all where the stage they overwrite was read), after the cp.async ones. */
static void issue(Pipe *P, const Cand *cands, int nc, const ValId *map, ValId slot, ValId valid,
                  Loc loc) {
    IrFunc *f = P->f;
    bool any_cp = false;
    OpVec then = {0};
    for (int c = 0; c < nc; c++) {
        if (cands[c].tma) {
            issue_tma(P, &cands[c], map, slot, loc, &then);
            continue;
        }
        any_cp = true;
        const IrOp *ld = &f->ops[cands[c].load];
        ValId ptr = mapped(map, ld->operands[0]),
              mask = ld->nopnds > 1 ? mapped(map, ld->operands[1]) : 0;
        IrType pt = ir_type(f, ptr), mt = ty_with_elem(pt, ty_scalar(DT_I1));
        uint32_t pl = f->vals[ptr].layout;
        ValId v = emit(P, OP_SPLAT, loc, &valid, 1, mt, pl);
        if (mask) v = binop(P, OP_AND, mask, v, loc);
        ValId co[3] = {view_of(P, cands[c].ring, slot, loc), ptr, v};
        emit0(P, OP_ASYNC_COPY, loc, co, 3, 0);
    }
    if (any_cp) emit0(P, OP_ASYNC_COMMIT, loc, NULL, 0, 0);
    if (then.n) push_if(P, valid, &then, loc);
    opvec_free(&then);
}

static ValId compare(Pipe *P, int pred, ValId a, ValId b, Loc loc) {
    ValId o[2] = {a, b};
    ValId r = emit(P, OP_CMP, loc, o, 2, ty_scalar(DT_I1), 0);
    P->f->ops[ir_def(P->f, r)].attr[0] = pred;
    return r;
}

static ValId choose(Pipe *P, ValId c, ValId a, ValId b, Loc loc) {
    return emit(P, OP_SELECT, loc, (ValId[]){c, a, b}, 3, ir_type(P->f, a), P->f->vals[a].layout);
}

/* iv + d * step, and whether it is below ub (step > 0) */
static ValId valid_at(Pipe *P, ValId iv, ValId ub, Loc loc) {
    return compare(P, CMP_PRED_LT, iv, ub, loc);
}

/* ---- the transformation ---- */

static void prologue(Pipe *P, OpId loop, const Cand *cands, int nc, int64_t step, ValId *inits) {
    IrFunc *f = P->f;
    const IrOp *op = &f->ops[loop];
    Loc loc = op->loc;
    ValId lb = op->operands[0], ub = op->operands[1];
    RegionId body = op->region[0];
    IrType ivt = ir_type(f, lb), i32 = ty_scalar(DT_I32);
    ValId *map = calloc(f->nvals + 1, sizeof(ValId));
    if (!map) NR_DIE("out of memory");
    const IrRegion *r = &f->regions[body];
    for (int j = 0; j < P->stages - 1; j++) {
        ValId *m2 = realloc(map, sizeof(ValId) * (f->nvals + 1));
        if (!m2) NR_DIE("out of memory");
        map = m2;
        memset(map, 0, sizeof(ValId) * (f->nvals + 1));
        ValId iv = j ? binop(P, OP_ADD, lb, konst(P, ivt, j * step, loc), loc) : lb;
        map[f->regions[body].args[0]] = iv;
        for (uint32_t i = 1; i < r->nargs; i++)
            if (is_carried(P, r->args[i])) map[r->args[i]] = inits[i - 1];
        clone_stage0(P, body, map);
        issue(P, cands, nc, map, konst(P, i32, j, loc), valid_at(P, iv, ub, loc), loc);
        r = &f->regions[body];
        const IrOp *y = &f->ops[r->ops[r->nops - 1]];
        for (uint32_t i = 1; i < r->nargs; i++)
            if (is_carried(P, r->args[i])) inits[i - 1] = mapped(map, y->operands[i - 1]);
    }
    free(map);
}

/* The loop body, rebuilt: the wait, the stage reads, the body with the prefetch after
 * the last ring reader, the counter. Returns the new yield operands in ny. */
/* Issues the copies of iteration it + S-1 into stage (it + S-1) % S, with the stage-0 ops
 * they need cloned for that iteration, and sets ny to the carried values' next values
 * (the stage-0 ones S-1 iterations ahead). */
static void issue_ahead(Pipe *P, OpId loop, const Cand *cands, int nc, int64_t step, ValId it,
                        ValId *ny) {
    IrFunc *f = P->f;
    RegionId body = f->ops[loop].region[0];
    Loc loc = f->ops[loop].loc;
    ValId ub = f->ops[loop].operands[1];
    IrType ivt = ir_type(f, f->ops[loop].operands[0]), i32 = ty_scalar(DT_I32);
    ValId *map = calloc(f->nvals + 1, sizeof(ValId));
    if (!map) NR_DIE("out of memory");
    ValId iv = f->regions[body].args[0];
    ValId ahead = binop(P, OP_ADD, iv, konst(P, ivt, (P->stages - 1) * step, loc), loc);
    ValId *m2 = realloc(map, sizeof(ValId) * (f->nvals + 1));
    if (!m2) NR_DIE("out of memory");
    map = m2;
    memset(map, 0, sizeof(ValId) * (f->nvals + 1));
    map[iv] = ahead;
    clone_stage0(P, body, map);
    ValId wslot;
    if (P->rs) { /* (it + S-1) % S: the stage before rs, S-1 for stage 0 */
        ValId first = compare(P, CMP_PRED_EQ, P->rs, konst(P, i32, 0, loc), loc);
        ValId last = konst(P, i32, P->stages - 1, loc);
        wslot = choose(P, first, last, binop(P, OP_SUB, P->rs, konst(P, i32, 1, loc), loc), loc);
    } else
        wslot = ring_slot(P, binop(P, OP_ADD, it, konst(P, i32, P->stages - 1, loc), loc),
                          P->stages, loc);
    issue(P, cands, nc, map, wslot, valid_at(P, ahead, ub, loc), loc);
    const IrRegion *r = &f->regions[body];
    OpId y = r->ops[r->nops - 1];
    uint32_t ncar = P->ncar;
    for (uint32_t i = 1; i <= ncar; i++)
        ny[i - 1] = is_carried(P, r->args[i]) ? mapped(map, f->ops[y].operands[i - 1])
                                              : f->ops[y].operands[i - 1];
    free(map);
}

/* ---- warp specialisation (tl.range(..., warp_specialize=True)) ----
 *
 * On sm_90a, a loop whose candidates are all TMA copies, at the top of the kernel's body
 * with nothing before it that writes memory, may be split between warps of two roles
 * (warp_specialize, ir_ops.def): a producer warpgroup added to the program runs the loop's
 * stage 0 alone and issues every iteration's copies, iteration j into stage j % S once
 * the consumers have released it (it waits on stage j % S's "empty" mbarrier for phase
 * (j / S + 1) % 2: at once for the first S, which no consumer has read); the num_warps
 * consumer warps run the loop without copies, waiting for each stage's "full" mbarrier as
 * before, and each of their warps arrives on the stage's empty mbarrier once it no longer
 * reads it: right after the last reader of the stage (synchronous readers), or, where
 * the dots run asynchronously, on the previous iteration's stage after this iteration's
 * dot_wait {pending = 1} (its wgmma is then retired). No CTA barrier orders the two sides:
 * the consumers need none before the next copy into a stage, and the code after the loop
 * (the epilogue) is the consumers' alone, with barriers among themselves. With two
 * consumer warpgroups the producer gives registers back (40 a thread) and the consumers
 * take them (232). The empty mbarriers are never invalidated (the producer may still be
 * leaving its last wait when the consumers finish); gpu-alloc-shared keeps what the
 * producer waits on for the whole warp_specialize. */

/* Do op id and the ops nested in it only what the producer warps may run (the GPU
 * verifier's rule: scalar pure ops, control flow, views of the rings)? */
static bool producer_may_run(const IrFunc *f, OpId id) {
    const IrOp *op = &f->ops[id];
    int c = op->code;
    if (c == OP_FOR || c == OP_IF || c == OP_YIELD || c == OP_LOCAL_VIEW) {
        for (int j = 0; j < op->nregions; j++) {
            const IrRegion *r = &f->regions[op->region[j]];
            for (uint32_t k = 0; k < r->nops; k++)
                if (!producer_may_run(f, r->ops[k])) return false;
        }
        return true;
    }
    if (!(ir_op_info[c].flags & F_PURE) || op->nregions) return false;
    for (uint32_t k = 0; k < op->nres; k++)
        if (ir_type(f, op->results[k]).rank != 0) return false;
    return true;
}

/* Does nothing of region r before op `end` write memory, shared memory included (a
 * reduction's or a layout change's scratch, laid out for num_warps warps)? A proxy fence
 * and a barrier (gpu-tma-pointers' before a loop whose copies the kernel's stores may
 * precede) write nothing: in the body every thread runs them before the warp_specialize. */
static bool writes_nothing_before(const IrFunc *f, RegionId r, OpId end) {
    const IrRegion *b = &f->regions[r];
    for (uint32_t i = 0; i < b->nops && b->ops[i] != end; i++) {
        const IrOp *op = &f->ops[b->ops[i]];
        int align;
        if (op->nregions || moves_smem_bytes(f, b->ops[i], &align) > 0) return false;
        if ((ir_op_info[op->code].flags & F_PURE) || op->code == OP_LOAD || op->code == OP_ASSUME ||
            (op->code == OP_LOCAL_ALLOC && !op->nopnds) || op->code == OP_FENCE_ASYNC ||
            op->code == OP_BARRIER)
            continue;
        return false;
    }
    return true;
}

static void mark_operands_deep(const IrFunc *f, OpId id, uint8_t *used) {
    const IrOp *op = &f->ops[id];
    for (uint32_t i = 0; i < op->nopnds; i++) used[op->operands[i]] = 1;
    for (int j = 0; j < op->nregions; j++) {
        const IrRegion *r = &f->regions[op->region[j]];
        for (uint32_t k = 0; k < r->nops; k++) mark_operands_deep(f, r->ops[k], used);
    }
}

/* The loop sits in an if (P->ws_host): the ops of its side before it whose values the
 * producer's loop reads (its bounds, the carried values' starts, stage 0, the copies'
 * operands), in order, into P->ws_clone; false where one of them is no op the producer
 * may run. */
static bool ws_prefix(Pipe *P, OpId loop, const Cand *cands, int nc) {
    IrFunc *f = P->f;
    const IrRegion *reg = &f->regions[P->region];
    uint8_t *used = calloc((size_t)f->nvals + 1, 1);
    if (!used) NR_DIE("out of memory");
    const IrOp *l = &f->ops[loop];
    for (uint32_t i = 0; i < 3; i++) used[l->operands[i]] = 1;
    const IrRegion *body = &f->regions[l->region[0]];
    for (uint32_t i = 1; i < body->nargs; i++)
        if (is_carried(P, body->args[i])) used[l->operands[3 + i - 1]] = 1;
    for (uint32_t k = 0; k < body->nops; k++)
        if (is_s0(P, body->ops[k])) mark_operands_deep(f, body->ops[k], used);
    for (int c = 0; c < nc; c++) mark_operands_deep(f, cands[c].load, used);
    uint32_t at = 0;
    while (reg->ops[at] != loop) at++;
    bool ok = true;
    P->ws_clone.n = 0;
    for (uint32_t k = at; k-- > 0 && ok;) {
        OpId id = reg->ops[k];
        bool needed = false;
        for (uint32_t i = 0; i < f->ops[id].nres; i++) needed |= used[f->ops[id].results[i]];
        if (!needed) continue;
        ok = producer_may_run(f, id) && !f->ops[id].nregions;
        mark_operands_deep(f, id, used);
        opvec_push(&P->ws_clone, id);
    }
    for (uint32_t i = 0, j = P->ws_clone.n; ok && i < j / 2; i++) { /* into program order */
        OpId t = P->ws_clone.v[i];
        P->ws_clone.v[i] = P->ws_clone.v[j - 1 - i], P->ws_clone.v[j - 1 - i] = t;
    }
    free(used);
    return ok;
}

/* Do the kernel and the loop allow warp specialisation? The loop is at the top of the
 * kernel's body, or on a side of an if there (flatten-loops' fused loop is in one); the
 * producer warps run what comes before it in the body too, so nothing there may write,
 * and on the if's side nothing before it either (the producer would not wait for it). */
static bool ws_wanted(Pipe *P, OpId loop, const Cand *cands, int nc) {
    IrFunc *f = P->f;
    if (P->ws_op) return false; /* one a kernel */
    P->ws_host = 0;
    if (!f->ops[loop].attr[2] || P->m->gpu.arch != GPU_SM90A ||
        (P->m->gpu.num_warps != 4 && P->m->gpu.num_warps != 8))
        return false;
    for (int c = 0; c < nc; c++)
        if (!cands[c].tma) return false;
    const IrRegion *body = &f->regions[f->ops[loop].region[0]];
    for (uint32_t k = 0; k < body->nops; k++)
        if (is_s0(P, body->ops[k]) && !producer_may_run(f, body->ops[k])) return false;
    if (P->region == f->body) return writes_nothing_before(f, f->body, loop);
    OpId host = f->regions[P->region].parent_op;
    if (!host || f->ops[host].code != OP_IF || f->ops[host].parent != f->body ||
        !writes_nothing_before(f, f->body, host) || !writes_nothing_before(f, P->region, loop) ||
        !ws_prefix(P, loop, cands, nc))
        return false;
    P->ws_host = host;
    P->ws_side = f->ops[host].region[1] == P->region;
    return true;
}

/* A warp_specialize: one producer warpgroup, its producer region ops[0..n), its consumer
 * region empty; with two consumer warpgroups registers move from the producer (40 a
 * thread) to them (232). */
static OpId ws_op_new(Pipe *P, Loc loc, const OpId *ops, uint32_t n) {
    IrFunc *f = P->f;
    OpId ws = ir_op_new(f, OP_WARP_SPECIALIZE, loc, NULL, 0, NULL, 0);
    bool two = P->m->gpu.num_warps == 8;
    f->ops[ws].attr[0] = 4, f->ops[ws].attr[1] = two ? 40 : 0, f->ops[ws].attr[2] = two ? 232 : 0;
    RegionId pr = ir_op_add_region(f, ws);
    ir_op_add_region(f, ws);
    ir_region_set_ops(f, pr, ops, n);
    return ws;
}

/* The consumers' release of a stage (see above): it is iteration it's stage rslot, or with
 * asynchronous dots the one iteration it - 1 read (none in the first iteration). */
static void release(Pipe *P, ValId it, ValId rslot, bool asyncs, Loc loc) {
    IrType i32 = ty_scalar(DT_I32);
    if (!asyncs) {
        ValId bar = view_of(P, P->empty, rslot, loc);
        emit0(P, OP_MBARRIER_ARRIVE, loc, &bar, 1, 0);
        return;
    }
    ValId any = compare(P, CMP_PRED_GT, it, konst(P, i32, 0, loc), loc);
    OpVec saved = P->out;
    memset(&P->out, 0, sizeof P->out);
    ValId prev =
        ring_slot(P, binop(P, OP_ADD, it, konst(P, i32, P->stages - 1, loc), loc), P->stages, loc);
    ValId bar = view_of(P, P->empty, prev, loc);
    emit0(P, OP_MBARRIER_ARRIVE, loc, &bar, 1, 0);
    OpVec then = P->out;
    P->out = saved;
    push_if(P, any, &then, loc);
    opvec_free(&then);
}

/* The producer's loop, appended to P->out: the loop's bounds, its stage-0 carried values
 * (from inits) and a count j; each iteration waits until stage j % S is empty and issues
 * iteration j's copies into it. */
static void producer_loop(Pipe *P, OpId loop, const Cand *cands, int nc, const ValId *inits) {
    IrFunc *f = P->f;
    Loc loc = f->ops[loop].loc;
    RegionId body = f->ops[loop].region[0];
    ValId lb = f->ops[loop].operands[0], ub = f->ops[loop].operands[1],
          step = f->ops[loop].operands[2];
    IrType i32 = ty_scalar(DT_I32);
    uint32_t nargs = f->regions[body].nargs;
    ValId *opnds = calloc(nargs + 3, sizeof(ValId));
    IrType *tys = calloc(nargs + 1, sizeof(IrType));
    if (!opnds || !tys) NR_DIE("out of memory");
    opnds[0] = lb, opnds[1] = ub, opnds[2] = step;
    uint32_t np = 0;
    for (uint32_t i = 1; i < nargs; i++)
        if (is_carried(P, f->regions[body].args[i])) {
            opnds[3 + np] = inits[i - 1];
            tys[np++] = ir_type(f, inits[i - 1]);
        }
    opnds[3 + np] = konst(P, i32, 0, loc);
    tys[np] = i32;
    OpId pl = ir_op_new(f, OP_FOR, loc, opnds, np + 4, tys, np + 1);
    RegionId pb = ir_op_add_region(f, pl);
    ValId *map = calloc(f->nvals + 1, sizeof(ValId));
    if (!map) NR_DIE("out of memory");
    map[f->regions[body].args[0]] = ir_region_add_arg(f, pb, ir_type(f, lb));
    for (uint32_t i = 1; i < nargs; i++) {
        ValId a = f->regions[body].args[i];
        if (!is_carried(P, a)) continue;
        ValId pa = ir_region_add_arg(f, pb, ir_type(f, a));
        f->vals[pa].layout = f->vals[a].layout;
        map[a] = pa;
    }
    ValId j = ir_region_add_arg(f, pb, i32);
    OpVec saved = P->out;
    memset(&P->out, 0, sizeof P->out);
    clone_stage0(P, body, map);
    ValId slot = ring_slot(P, j, P->stages, loc);
    ValId phase = binop(P, OP_XOR, ring_phase(P, j, P->stages, loc), konst(P, i32, 1, loc), loc);
    emit0(P, OP_MBARRIER_WAIT, loc, (ValId[]){view_of(P, P->empty, slot, loc), phase}, 2, 0);
    issue(P, cands, nc, map, slot, valid_at(P, mapped(map, f->regions[body].args[0]), ub, loc),
          loc);
    const IrRegion *r = &f->regions[body];
    const IrOp *y = &f->ops[r->ops[r->nops - 1]];
    uint32_t k = 0;
    for (uint32_t i = 1; i < nargs; i++)
        if (is_carried(P, r->args[i])) opnds[k++] = mapped(map, y->operands[i - 1]);
    opnds[k++] = binop(P, OP_ADD, j, konst(P, i32, 1, loc), loc);
    opvec_push(&P->out, ir_op_new(f, OP_YIELD, loc, opnds, k, NULL, 0));
    ir_region_set_ops(f, pb, P->out.v, P->out.n);
    opvec_free(&P->out);
    P->out = saved;
    for (uint32_t i = 0; i < f->ops[pl].nres; i++)
        f->vals[f->ops[pl].results[i]].layout = f->vals[f->ops[pl].operands[3 + i]].layout;
    opvec_push(&P->out, pl);
    free(map);
    free(opnds);
    free(tys);
}

/* Where the copies of iteration it + S-1 go: into stage (it + S-1) % S, which iteration
 * it - 1 read. Where every reader of the rings is synchronous (ldmatrix, local_load, a
 * wgmma or mma.sync dot that completes in the iteration), those reads are over once
 * iteration it begins, so the copies are issued at the head of the body, right after the
 * wait: S-1 groups are then in flight while the iteration computes (with S = 2, the next
 * tile's copy overlaps this one's work instead of being waited for at once). A dot_async
 * of iteration it - 1 may still be reading that stage at the head; it is done only after
 * iteration it's dot_wait {pending = 1}, so with dot_asyncs the copies follow the last
 * reader of the rings and its dot_wait. (The barrier pass orders the other threads' reads
 * of the stage before the copies.) */
static void rebuild_body(Pipe *P, OpId loop, const Cand *cands, int nc, int64_t step, ValId it,
                         ValId *ny) {
    IrFunc *f = P->f;
    RegionId body = f->ops[loop].region[0];
    Loc loc = f->ops[loop].loc;
    IrType i32 = ty_scalar(DT_I32);
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, body, &n);
    OpVec saved = P->out;
    memset(&P->out, 0, sizeof P->out);
    if (any_cp(cands, nc)) emit0(P, OP_ASYNC_WAIT, loc, NULL, 0, P->stages - 2);
    bool asyncs = false;
    for (uint32_t k = 0; k < n; k++) asyncs |= f->ops[ops[k]].code == OP_DOT_ASYNC;
    /* the last op that reads a ring, itself or in its regions (a dot_wait right after
     * it counts with it) */
    uint32_t last = 0;
    /* through views of the rings too (a dot_async reading a trans of a ring's buffer) */
    OpVec views = {0};
    for (int c = 0; c < nc; c++) opvec_push(&views, f->ops[cands[c].alloc].results[0]);
    for (uint32_t k = 0; k < n; k++) {
        bool reads = false;
        for (uint32_t v = 0; v < views.n && !reads; v++) reads = deep_uses(f, ops[k], views.v[v]);
        if (!reads) continue;
        last = k;
        int code = f->ops[ops[k]].code;
        if ((code == OP_TRANS || code == OP_LOCAL_VIEW) && f->ops[ops[k]].nres == 1)
            opvec_push(&views, f->ops[ops[k]].results[0]);
    }
    opvec_free(&views);
    while (last + 1 < n && f->ops[ops[last + 1]].code == OP_DOT_WAIT) last++;
    ValId rslot = P->rs ? P->rs : ring_slot(P, it, P->stages, loc);
    if (any_tma(cands, nc)) { /* iteration it's copies completed phase (it / S) % 2 of stage it %
                                 S's mbarrier */
        ValId phase = P->ph ? P->ph : ring_phase(P, it, P->stages, loc);
        for (int c = 0; c < nc; c++)
            if (cands[c].tma)
                emit0(P, OP_MBARRIER_WAIT, loc,
                      (ValId[]){view_of(P, cands[c].bars, rslot, loc), phase}, 2, 0);
    }
    for (int c = 0; c < nc; c++)
        replace_in(f, ops, n, f->ops[cands[c].alloc].results[0],
                   view_of(P, cands[c].ring, rslot, loc));
    if (P->ws) { /* the producer warps copy; the carried values stay at this iteration */
        const IrOp *y0 = &f->ops[ops[n - 1]];
        for (uint32_t i = 0; i < P->ncar; i++) ny[i] = y0->operands[i];
    } else if (!asyncs) issue_ahead(P, loop, cands, nc, step, it, ny);
    for (uint32_t k = 0; k + 1 < n; k++) {
        opvec_push(&P->out, ops[k]);
        if (P->ws && k == last) release(P, it, rslot, asyncs, loc);
        else if (asyncs && k == last) issue_ahead(P, loop, cands, nc, step, it, ny);
    }
    const IrRegion *r = &f->regions[body];
    OpId y = r->ops[r->nops - 1];
    uint32_t ncar = P->ncar;
    ny[ncar] = binop(P, OP_ADD, it, konst(P, i32, 1, loc), loc);
    uint32_t e = ncar + 1;
    if (P->rs) { /* the next stage: rs + 1, or 0 past S-1, where the phase flips */
        ValId r1 = binop(P, OP_ADD, P->rs, konst(P, i32, 1, loc), loc);
        ValId wrap = compare(P, CMP_PRED_EQ, r1, konst(P, i32, P->stages, loc), loc);
        ny[e++] = choose(P, wrap, konst(P, i32, 0, loc), r1, loc);
        if (P->ph)
            ny[e++] =
                choose(P, wrap, binop(P, OP_XOR, P->ph, konst(P, i32, 1, loc), loc), P->ph, loc);
    }
    for (uint32_t q = 0; q < P->ncur; q++) ny[e++] = P->cur_next[q];
    ir_op_set_operands(f, y, ny, e);
    opvec_push(&P->out, y);
    ir_region_set_ops(f, body, P->out.v, P->out.n);
    opvec_free(&P->out);
    P->out = saved;
    free(ops);
}

/* A wgmma dot that accumulates into carried value i becomes dot_async + dot_wait 1. */
/* Does buffer operand v stay untouched while a wgmma reading it is in flight into the next
 * iteration? A stage of a ring (the next iteration writes another stage), or a buffer
 * made before the loop; not a one-stage buffer the body fills each iteration (its next
 * contents, or another buffer the allocator put in the same bytes, would overwrite it
 * under the wgmma). */
static bool stable_operand(Pipe *P, RegionId body, ValId v, const Cand *cands, int nc) {
    IrFunc *f = P->f;
    OpId d = ir_def(f, v);
    if (d && f->ops[d].code == OP_TRANS)
        v = f->ops[d].operands[0], d = ir_def(f, v); /* a transposed view */
    if (!in_body(f, d, body)) return !f->vals[v].is_arg || f->vals[v].def != body;
    for (int c = 0; c < nc; c++)
        if (cands[c].alloc == d) return true; /* about to become a ring's stage */
    return f->ops[d].code == OP_LOCAL_VIEW && ir_type(f, f->ops[d].operands[0]).stages > 1;
}

static uint32_t deep_uses_list(const IrFunc *f, const OpId *ops, uint32_t n, ValId v) {
    uint32_t c = 0;
    for (uint32_t k = 0; k < n; k++) c += deep_uses(f, ops[k], v);
    return c;
}

/* The one if of the body whose regions use v (count: those uses), 0 if none or several. */
static OpId reader_if(Pipe *P, RegionId body, ValId v, uint32_t *count) {
    const IrFunc *f = P->f;
    const IrRegion *r = &f->regions[body];
    OpId found = 0;
    int n = 0;
    *count = 0;
    for (uint32_t k = 0; k + 1 < r->nops; k++) {
        const IrOp *op = &f->ops[r->ops[k]];
        if (op->code != OP_IF) continue;
        uint32_t u = deep_uses(f, r->ops[k], v);
        if (!u) continue;
        for (uint32_t i = 0; i < op->nopnds; i++)
            if (op->operands[i] == v) return *count = 0, 0; /* as its condition: not a region's */
        found = r->ops[k], n++, *count += u;
    }
    return n == 1 ? found : 0;
}

/* A tf32 A that the body reads from a buffer into registers (transpose_dots.c's B^T): its
 * dot can be asynchronous once its load is rotated to the iteration before
 * (load_a_ahead), which writes the next registers only after the wait that retires the
 * wgmma reading the current ones. */
static bool register_a(const IrFunc *f, RegionId body, ValId a) {
    OpId d = ir_def(f, a);
    return d && f->ops[d].parent == body && f->ops[d].code == OP_LOCAL_LOAD &&
           ir_type(f, a).dt == DT_FP32;
}

/* Could op (of body, whose yield is y) become a dot_async, its operands allowing? A wgmma
 * dot with both operands in shared memory, or a register A that register_a allows,
 * accumulating into a carried value that only it uses and whose next value is its result
 * alone. */
static bool async_shape(Pipe *P, RegionId body, const IrOp *op, OpId y) {
    IrFunc *f = P->f;
    if (op->code != OP_DOT || ir_type(f, op->operands[1]).dt != DT_SMEM ||
        (ir_type(f, op->operands[0]).dt != DT_SMEM && !register_a(f, body, op->operands[0])))
        return false;
    const IrLayout *l = &P->m->layouts[f->vals[op->results[0]].layout];
    ValId acc = op->operands[2], res = op->results[0];
    if (l->kind != LAYOUT_MMA || l->version != 3 || !f->vals[acc].is_arg ||
        f->vals[acc].def != body)
        return false;
    uint32_t slot = f->vals[acc].index;
    if (f->ops[y].operands[slot - 1] != res || P->uses[acc] != 1) return false;
    /* besides the yield, only the regions of one if of the body may read it (a store every
     * few iterations, a flattened loop's epilogue): wait_after_async waits there */
    uint32_t in_if = 0;
    OpId x = reader_if(P, body, res, &in_if);
    return P->uses[res] == 1 + in_if && (x || !in_if);
}

static int async_wgmma(Pipe *P, RegionId body, const Cand *cands, int nc) {
    IrFunc *f = P->f;
    const IrRegion *r = &f->regions[body];
    OpId y = r->ops[r->nops - 1];
    int made = 0;
    for (uint32_t k = 0; k + 1 < r->nops; k++) {
        IrOp *op = &f->ops[r->ops[k]];
        if (!async_shape(P, body, op, y)) continue;
        ValId a = op->operands[0];
        if (ir_type(f, a).dt != DT_SMEM) { /* its buffer; load_a_ahead waits with async_wait */
            if (any_tma(cands, nc)) continue;
            a = f->ops[ir_def(f, a)].operands[0];
        }
        if (!stable_operand(P, body, a, cands, nc) ||
            !stable_operand(P, body, op->operands[1], cands, nc))
            continue;
        op->code = OP_DOT_ASYNC;
        made++;
    }
    return made;
}

static int64_t buffer_bytes(const Pipe *P, ValId buf) {
    IrType t = ir_type(P->f, buf);
    return ir_smem_stage_bytes(P->m, P->f->vals[buf].layout, t) * (t.stages ? t.stages : 1);
}

/* What lower_tma.c makes of a desc_load or desc_store the pipeline leaves: a buffer of the
 * tile in the TMA plan's layout (1024-byte aligned when swizzled), and for a load a
 * 16-byte mbarrier. */
static int64_t tma_lowered_bytes(const Pipe *P, const IrOp *op) {
    IrType d = ir_type(P->f, op->operands[0]);
    TmaPlan plan;
    if (!gpu_tma_plan(d, &plan)) return 0; /* not TMA's: expanded before this pass */
    IrLayout sl = gpu_tma_shared_layout(d, &plan);
    int64_t a = sl.max_phase > 1 ? 1024 : 16;
    int64_t tile = (gpu_tma_tile_bytes(d) + a - 1) / a * a;
    return tile + (op->code == OP_DESC_LOAD ? 16 : 0);
}

enum { BUDGET_BUFS = 64 };

/* The loop's shared memory, gathered over its body's top-level ops 0 .. n-1 (an op in a
 * nested region counts at the top-level op that holds it). */
typedef struct Budget {
    const Cand *cands;
    int nc;
    const OpId *doubled; /* one-stage buffers of the body that become rings of two */
    int nd;
    ValId seen[BUDGET_BUFS]; /* buffers from outside the loop, counted once */
    int nseen;
    int64_t outside;            /* their bytes: live through the whole loop */
    IrType stores[BUDGET_BUFS]; /* the descriptors of the body's desc_stores (not in a nested
                                   loop): lower-tma's buffer for each tile type, made before
                                   the loop (its copy runs on under the next iterations) */
    int nstores;
    int64_t doubled_bytes;     /* the rings of two, made before the loop */
    OpId own[BUDGET_BUFS];     /* the body's top-level buffers (local_alloc) ... */
    int own_from[BUDGET_BUFS]; /* ... live from their op ... */
    int own_to[BUDGET_BUFS];   /* ... to their last use */
    int64_t own_bytes[BUDGET_BUFS];
    int nown;
    int64_t *at;      /* per top-level op: what lives at that op only (its nested buffers,
                         lower-tma's buffers) ... */
    int64_t *scratch; /* ... and the largest scratch of it or of an op nested in it */
} Budget;

static bool is_cand_op(const Budget *b, OpId id) {
    for (int c = 0; c < b->nc; c++)
        if (b->cands[c].alloc == id || b->cands[c].load == id) return true;
    return false;
}

/* A use of buffer v (a view or transpose of one: the buffer itself) at top-level op k. */
static void budget_use(const Pipe *P, RegionId body, ValId v, int k, Budget *b) {
    const IrFunc *f = P->f;
    for (int d = 0; d < 8; d++) { /* to the buffer a view or a transpose is of */
        OpId dv = ir_def(f, v);
        if (!dv || (f->ops[dv].code != OP_LOCAL_VIEW && f->ops[dv].code != OP_TRANS)) break;
        v = f->ops[dv].operands[0];
    }
    OpId d = ir_def(f, v);
    for (int i = 0; i < b->nown; i++)
        if (b->own[i] == d && k > b->own_to[i]) b->own_to[i] = k;
    if (ir_defined_in(f, v, body)) return;
    for (int j = 0; j < b->nseen; j++)
        if (b->seen[j] == v) return;
    if (b->nseen < BUDGET_BUFS) b->seen[b->nseen++] = v;
    b->outside += buffer_bytes(P, v);
}

/* Op id at top-level op k (itself, or nested in it: its buffers, the largest scratch and
 * lower-tma's buffers then all count at k, but a desc_store's outside a nested loop, which
 * lives through the loop). in_loop: id is in a loop nested in the body. */
static void budget_op(const Pipe *P, RegionId body, OpId id, int k, bool top, bool in_loop,
                      Budget *b) {
    const IrFunc *f = P->f;
    const IrOp *op = &f->ops[id];
    int64_t sc = moves_scratch_bytes(f, id);
    if (sc > b->scratch[k]) b->scratch[k] = sc;
    if (op->code == OP_LOCAL_ALLOC && !is_cand_op(b, id)) {
        int64_t bytes = buffer_bytes(P, op->results[0]);
        bool dbl = false;
        for (int d = 0; d < b->nd; d++) dbl |= b->doubled[d] == id;
        if (dbl) b->doubled_bytes += 2 * bytes;
        else if (top && b->nown < BUDGET_BUFS) {
            b->own[b->nown] = id, b->own_from[b->nown] = k, b->own_to[b->nown] = k;
            b->own_bytes[b->nown++] = bytes;
        } else b->at[k] += bytes; /* nested (or past the table): for the whole top-level op */
    }
    if (op->code == OP_DESC_STORE && !in_loop && tma_lowered_bytes(P, op)) {
        IrType d = ir_type(f, op->operands[0]);
        int j = 0;
        while (j < b->nstores && !ty_equal(b->stores[j], d)) j++;
        if (j == b->nstores) { /* a tile type not seen yet (past the table: counted anyway) */
            if (j < BUDGET_BUFS) b->stores[b->nstores++] = d;
            b->outside += tma_lowered_bytes(P, op);
        }
    } else if ((op->code == OP_DESC_LOAD || op->code == OP_DESC_STORE) && !is_cand_op(b, id))
        b->at[k] += tma_lowered_bytes(P, op);
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (ir_type(f, op->operands[i]).dt == DT_SMEM) budget_use(P, body, op->operands[i], k, b);
    for (int j = 0; j < op->nregions; j++) {
        const IrRegion *r = &f->regions[op->region[j]];
        for (uint32_t i = 0; i < r->nops; i++)
            budget_op(P, body, r->ops[i], k, false,
                      in_loop || op->code == OP_FOR || op->code == OP_WHILE, b);
    }
}

/* The shared memory live while the loop runs, with its candidates' rings of `stages`
 * buffers, as the allocator (alloc_shared.c) will see it once the later passes have run:
 * live through the loop, the rings (and a TMA ring's mbarriers, 16 bytes a stage), the
 * doubled buffers' rings of two, the buffers made before the loop that it uses and
 * lower-tma's buffer for each tile type its desc_stores write (lower_tma.c); on top
 * of those, the most that is live at any one top-level op of the body: the body's buffers
 * from their local_alloc to their last use, and at that op alone its scratch, the buffers
 * made in its regions and those lower-tma will make for the descriptor accesses left in
 * it (a tile, and an mbarrier for a load). Sizes as the allocator rounds them. */
static int64_t loop_smem_bytes(const Pipe *P, RegionId body, const Cand *cands, int nc, int stages,
                               const OpId *doubled, int nd) {
    const IrFunc *f = P->f;
    int64_t total = 0;
    for (int c = 0; c < nc; c++) {
        ValId buf = f->ops[cands[c].alloc].results[0];
        total += ir_smem_stage_bytes(P->m, f->vals[buf].layout, ir_type(f, buf)) * stages;
        if (cands[c].tma) total += 16 * (int64_t)stages;
    }
    const IrRegion *r = &f->regions[body];
    Budget b;
    memset(&b, 0, sizeof b);
    b.cands = cands, b.nc = nc, b.doubled = doubled, b.nd = nd;
    b.at = calloc(r->nops + 1, sizeof(int64_t));
    b.scratch = calloc(r->nops + 1, sizeof(int64_t));
    if (!b.at || !b.scratch) NR_DIE("out of memory");
    for (uint32_t k = 0; k < r->nops; k++) budget_op(P, body, r->ops[k], (int)k, true, false, &b);
    int64_t peak = 0;
    for (uint32_t k = 0; k < r->nops; k++) {
        int64_t live = b.at[k] + b.scratch[k];
        for (int i = 0; i < b.nown; i++)
            if (b.own_from[i] <= (int)k && (int)k <= b.own_to[i]) live += b.own_bytes[i];
        if (live > peak) peak = live;
    }
    free(b.at);
    free(b.scratch);
    return total + b.outside + b.doubled_bytes + peak;
}

/* The most dynamic shared memory a program may take on the target: 227 KiB on sm_90,
 * 163 KiB on sm_80. */
static int64_t smem_limit(const IrModule *m) { return m->gpu.arch == GPU_SM80 ? 166912 : 232448; }

/* Is operand v of a dot in body a one-stage buffer that the body fills from registers
 * (local_alloc of a block, used by nothing else, not a candidate's buffer)? Its op, or 0. */
static OpId register_buffer(const Pipe *P, RegionId body, ValId v, const Cand *cands, int nc) {
    const IrFunc *f = P->f;
    OpId d = ir_def(f, v);
    if (!in_body(f, d, body) || v >= P->nvals0 || P->uses[v] != 1) return 0;
    const IrOp *op = &f->ops[d];
    if (op->code != OP_LOCAL_ALLOC || op->nopnds != 1 || ir_type(f, v).stages > 1) return 0;
    for (int c = 0; c < nc; c++)
        if (cands[c].alloc == d) return 0;
    return d;
}

/* A wgmma dot that could run asynchronously but for operands the body writes into
 * one-stage buffers from registers each iteration (a tf32 or 8-bit tile turned K-major by
 * lower_dot_operands.c's staging, or any block the body computes): those buffers become
 * rings of two, iteration it writing stage it % 2 with local_store (the local_alloc
 * goes). Iteration it+1 then fills the other stage while iteration it's wgmma may still
 * read this one. The wgmma that last read the stage iteration it+1 fills (iteration
 * it-1's) was waited for by each warpgroup's dot_wait {pending = 1} in iteration it, and
 * the barrier pass puts a barrier between those waits and the store (a buffer the loop
 * writes is pending at the head of the body). Only where the loop's buffers still fit in
 * shared memory. */
static void double_register_buffers(Pipe *P, RegionId body, ValId it, const Cand *cands, int nc) {
    IrFunc *f = P->f;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, body, &n);
    OpId y = ops[n - 1], doubled[32];
    int nd = 0;
    for (uint32_t k = 0; k + 1 < n && nd + 2 <= 32;
         k++) { /* which buffers: per dot, both operands at once */
        const IrOp *op = &f->ops[ops[k]];
        if (!async_shape(P, body, op, y)) continue;
        OpId rb[2];
        bool ok = true;
        for (int i = 0; i < 2; i++) {
            rb[i] = register_buffer(P, body, op->operands[i], cands, nc);
            ok = ok && (rb[i] || stable_operand(P, body, op->operands[i], cands, nc));
        }
        if (!ok || (!rb[0] && !rb[1])) continue;
        int before_nd = nd;
        for (int i = 0; i < 2; i++)
            if (rb[i]) doubled[nd++] = rb[i];
        if (loop_smem_bytes(P, body, cands, nc, P->stages, doubled, nd) > smem_limit(P->m))
            nd = before_nd;
    }
    OpVec saved = P->out, before = {0};
    memset(&P->out, 0, sizeof P->out);
    Loc loc = f->ops[y].loc;
    for (uint32_t k = 0; k < n; k++) {
        bool dbl = false;
        for (int d = 0; d < nd; d++) dbl |= doubled[d] == ops[k];
        if (!dbl) {
            opvec_push(&P->out, ops[k]);
            continue;
        }
        ValId buf = f->ops[ops[k]].results[0];
        IrType t = ir_type(f, buf);
        t.stages = 2;
        OpId a = ir_op_new(f, OP_LOCAL_ALLOC, loc, NULL, 0, &t, 1);
        ValId ring = f->ops[a].results[0];
        f->vals[ring].layout = f->vals[buf].layout;
        opvec_push(&before, a);
        ValId slot = ring_slot(P, it, 2, loc);
        ValId view = view_of(P, ring, slot, loc);
        ValId st[2] = {view, f->ops[ops[k]].operands[0]};
        emit0(P, OP_LOCAL_STORE, f->ops[ops[k]].loc, st, 2, 0);
        for (uint32_t j = k + 1; j < n; j++) { /* the dot that read it */
            IrOp *u = &f->ops[ops[j]];
            for (int i = 0; i < 2 && u->code == OP_DOT; i++)
                if (u->operands[i] == buf) u->operands[i] = view;
        }
    }
    ir_region_set_ops(f, body, P->out.v, P->out.n);
    opvec_free(&P->out);
    P->out = saved;
    for (uint32_t i = 0; i < before.n; i++) opvec_push(&P->out, before.v[i]);
    opvec_free(&before);
    free(ops);
}

/* If x of the body reads res (a dot_async's result) in its regions: each region that does
 * waits for it first (dot_wait {pending = 0} on wr, res's dot_wait {pending = 1}) and reads
 * that, and x, rebuilt with one more result, passes the loop the value its region had: the
 * waited one, or wr. So the registers go to the next iteration's wgmma from the wait
 * without a copy of registers a wgmma may still write. Returns the new if (x's old results
 * go to its results when the pass ends). */
static OpId wait_in_if(Pipe *P, RegionId body, OpId x, ValId res, ValId wr) {
    IrFunc *f = P->f;
    uint32_t nres = f->ops[x].nres;
    IrType *tys = calloc(nres + 1, sizeof(IrType));
    if (!tys) NR_DIE("out of memory");
    for (uint32_t i = 0; i < nres; i++) tys[i] = ir_type(f, f->ops[x].results[i]);
    tys[nres] = ir_type(f, wr);
    ValId cond = f->ops[x].operands[0];
    OpId nx = ir_op_new(f, OP_IF, f->ops[x].loc, &cond, 1, tys, nres + 1);
    free(tys);
    for (int j = 0; j < f->ops[x].nregions; j++) {
        RegionId rg = f->ops[x].region[j];
        f->ops[nx].region[j] = rg;
        f->regions[rg].parent_op = nx;
        uint32_t n;
        OpId *ops = ir_region_copy_ops(f, rg, &n);
        ValId give = wr;
        OpVec all = {0};
        if (deep_uses_list(f, ops, n, res)) {
            IrType t = ir_type(f, wr);
            OpId w0 = ir_op_new(f, OP_DOT_WAIT, f->ops[x].loc, &wr, 1, &t, 1);
            f->ops[w0].attr[0] = 0;
            give = f->ops[w0].results[0];
            f->vals[give].layout = f->vals[wr].layout;
            replace_in(f, ops, n, res, give);
            opvec_push(&all, w0);
        }
        for (uint32_t k = 0; k < n; k++) opvec_push(&all, ops[k]);
        OpId yy = ops[n - 1];
        uint32_t ny = f->ops[yy].nopnds;
        ValId *yo = calloc(ny + 1, sizeof(ValId));
        if (!yo) NR_DIE("out of memory");
        memcpy(yo, f->ops[yy].operands, sizeof(ValId) * ny);
        yo[ny] = give;
        ir_op_set_operands(f, yy, yo, ny + 1);
        free(yo);
        ir_region_set_ops(f, rg, all.v, all.n);
        opvec_free(&all);
        free(ops);
    }
    f->ops[nx].nregions = f->ops[x].nregions;
    f->ops[x].nregions = 0;
    for (uint32_t i = 0; i < nres; i++) {
        ValId nr = f->ops[nx].results[i];
        f->vals[nr].layout = f->vals[f->ops[x].results[i]].layout;
        replace_later(P, f->ops[x].results[i], nr);
    }
    ValId last = f->ops[nx].results[nres];
    f->vals[last].layout = f->vals[wr].layout;
    const IrRegion *r = &f->regions[body];
    OpId y = r->ops[r->nops - 1];
    for (uint32_t i = 0; i < f->ops[y].nopnds; i++)
        if (f->ops[y].operands[i] == wr) f->ops[y].operands[i] = last;
    return nx;
}

/* After async_wgmma: a dot_wait {pending = 1} after each dot_async, on its way to the
 * yield (through the if that waits for it in its regions, wait_in_if). */
static void wait_after_async(Pipe *P, RegionId body) {
    IrFunc *f = P->f;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, body, &n);
    OpVec saved = P->out;
    memset(&P->out, 0, sizeof P->out);
    OpId y = ops[n - 1];
    for (uint32_t k = 0; k < n; k++) {
        opvec_push(&P->out, ops[k]);
        if (f->ops[ops[k]].code != OP_DOT_ASYNC) continue;
        ValId res = f->ops[ops[k]].results[0];
        IrType t = ir_type(f, res);
        OpId w = ir_op_new(f, OP_DOT_WAIT, f->ops[ops[k]].loc, &res, 1, &t, 1);
        f->ops[w].attr[0] = 1;
        ValId wr = f->ops[w].results[0];
        f->vals[wr].layout = f->vals[res].layout;
        opvec_push(&P->out, w);
        for (uint32_t i = 0; i < f->ops[y].nopnds; i++)
            if (f->ops[y].operands[i] == res) {
                f->ops[y].operands[i] = wr;
                if (i < P->ncar) P->async_slot[i] = 1;
            }
        uint32_t count;
        OpId x = reader_if(P, body, res, &count);
        if (!x) continue;
        OpId nx = wait_in_if(P, body, x, res, wr);
        for (uint32_t j = k + 1; j < n; j++)
            if (ops[j] == x) ops[j] = nx;
        /* and in the body's own list, where reader_if looks for the next dot's reader (two
         * accumulators an if reads: the second waits in the rebuilt if) */
        IrRegion *br = &f->regions[body];
        for (uint32_t j = 0; j < br->nops; j++)
            if (br->ops[j] == x) br->ops[j] = nx;
    }
    ir_region_set_ops(f, body, P->out.v, P->out.n);
    opvec_free(&P->out);
    P->out = saved;
    free(ops);
}

/* A ring of S mbarriers (smem<1xi64, stages=S>), each initialised for one arrival. */
static ValId mbarrier_ring(Pipe *P, Loc loc, int count) {
    IrFunc *f = P->f;
    int32_t one = 1;
    IrType t = ty_smem(DT_I64, 1, &one, P->stages);
    OpId a = ir_op_new(f, OP_LOCAL_ALLOC, loc, NULL, 0, &t, 1);
    ValId ring = f->ops[a].results[0];
    f->vals[ring].layout = gpu_mbarrier_layout(P->m);
    opvec_push(&P->out, a);
    for (int s = 0; s < P->stages; s++) {
        ValId v = view_of(P, ring, konst(P, ty_scalar(DT_I32), s, loc), loc);
        emit0(P, OP_MBARRIER_INIT, loc, &v, 1, count);
    }
    return ring;
}

/* Operands of op id and of the ops nested in it that map sends elsewhere go there. */
static void remap_deep(IrFunc *f, OpId id, const ValId *map, uint32_t nmap) {
    IrOp *op = &f->ops[id];
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (op->operands[i] < nmap && map[op->operands[i]]) op->operands[i] = map[op->operands[i]];
    for (int j = 0; j < f->ops[id].nregions; j++) {
        const IrRegion *r = &f->regions[f->ops[id].region[j]];
        for (uint32_t k = 0; k < r->nops; k++) remap_deep(f, r->ops[k], map, nmap);
    }
}

/* The last stage reads some stage-0 carried value (directly, or through a stage-0 op), or
 * the code after the loop does, while the loop will carry those values S-1 iterations
 * ahead: each stage-0 carried value gets a second slot (after the counter) that follows it
 * at the current iteration, from its own initial value, each stage-0 op computed from
 * carried values runs again on those slots right after itself (their next values among
 * them), and the last stage reads these. (Slots nothing reads are left for dce.) Their
 * initial values go to cur_init; the loop's results for them replace the old loop's.
 * Called with the body's args [iv, carried..., it, stage_counters' rs and ph]. */
static void current_copies(Pipe *P, RegionId body, const Cand *cands, int nc, ValId *cur_init,
                           const ValId *orig_init) {
    IrFunc *f = P->f;
    uint32_t nmap = f->nvals + 1;
    ValId *map = calloc(nmap, sizeof(ValId));
    P->cur_next = calloc(P->ncar + 1, sizeof(ValId));
    uint32_t *slot = calloc(P->ncar + 1, sizeof(uint32_t));
    if (!map || !P->cur_next || !slot) NR_DIE("out of memory");
    P->ncur = 0;
    for (uint32_t i = 1; i <= P->ncar; i++) {
        ValId a = f->regions[body].args[i];
        if (!is_carried(P, a)) continue;
        ValId c = ir_region_add_arg(f, body, ir_type(f, a));
        f->vals[c].layout = f->vals[a].layout;
        map[a] = c;
        cur_init[P->ncur] = orig_init[i - 1];
        slot[P->ncur++] = i;
    }
    /* the stage-0 ops computed from carried values (P->dep), each computed again right
     * after itself from the current slots */
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, body, &n);
    OpId y = ops[n - 1];
    OpVec all = {0};
    for (uint32_t k = 0; k < n; k++) {
        OpId id = ops[k];
        opvec_push(&all, id);
        if (is_s0(P, id) && P->dep[id]) opvec_push(&all, clone_s0(P, id, map));
    }
    for (uint32_t q = 0; q < P->ncur; q++) {
        ValId nx = f->ops[y].operands[slot[q] - 1];
        P->cur_next[q] = nx < nmap && map[nx] ? map[nx] : nx;
    }
    /* the last stage reads them, and so do the yield's slots of values that are not
     * stage 0's (a pointer of the previous iteration kept in a slot of its own) */
    for (uint32_t k = 0; k < n; k++) {
        OpId id = ops[k];
        bool cand = false;
        for (int c = 0; c < nc; c++) cand |= cands[c].load == id;
        if (!is_s0(P, id) && !cand && id != y) remap_deep(f, id, map, nmap);
    }
    for (uint32_t i = 0; i < f->ops[y].nopnds && i + 1 < f->regions[body].nargs; i++) {
        ValId v = f->ops[y].operands[i];
        if (!is_carried(P, f->regions[body].args[i + 1]) && v < nmap && map[v])
            f->ops[y].operands[i] = map[v];
    }
    ir_region_set_ops(f, body, all.v, all.n);
    for (uint32_t q = 0; q < P->ncur; q++) slot[q]--;
    P->cur_of = slot;
    opvec_free(&all);
    free(ops);
    free(map);
}

/* Where S is no power of two, the loop carries the stage it reads (rs: it % S, from 0) and,
 * with TMA rings, that stage's mbarrier phase (ph: (it / S) % 2), advanced by an add, a
 * compare and a select in each iteration instead of divisions by S (a multiply-high and
 * four fix-ups each, twice an iteration with the stage the copies ahead write). Called with
 * the body's args [iv, carried..., it]: they follow it (before current_copies' slots); their
 * initial values go to init. */
static void stage_counters(Pipe *P, RegionId body, const Cand *cands, int nc, ValId *init,
                           Loc loc) {
    IrFunc *f = P->f;
    IrType i32 = ty_scalar(DT_I32);
    P->rs = P->ph = 0, P->nextra = 0;
    if (!(P->stages & (P->stages - 1))) return;
    ValId z = konst(P, i32, 0, loc);
    init[P->nextra++] = z;
    P->rs = ir_region_add_arg(f, body, i32);
    if (any_tma(cands, nc)) {
        init[P->nextra++] = z;
        P->ph = ir_region_add_arg(f, body, i32);
    }
}

/* Rebuilds the loop with the counter carried; the old op's results go to the new one's. */
static OpId new_loop(Pipe *P, OpId loop, const ValId *inits) {
    IrFunc *f = P->f;
    uint32_t nc = f->ops[loop].nopnds - 3, ni = nc + 1 + P->ncur + P->nextra;
    ValId *opnds = calloc(ni + 3, sizeof(ValId));
    IrType *tys = calloc(ni + 1, sizeof(IrType));
    if (!opnds || !tys) NR_DIE("out of memory");
    for (int i = 0; i < 3; i++) opnds[i] = f->ops[loop].operands[i];
    for (uint32_t i = 0; i < ni; i++) {
        opnds[3 + i] = inits[i];
        tys[i] = ir_type(f, inits[i]);
    }
    OpId nl = ir_op_new(f, OP_FOR, f->ops[loop].loc, opnds, ni + 3, tys, ni);
    f->ops[nl].attr[0] = f->ops[loop].attr[0];
    RegionId body = f->ops[loop].region[0];
    f->ops[nl].region[0] = body, f->ops[nl].nregions = 1;
    f->regions[body].parent_op = nl;
    for (uint32_t i = 0; i < ni; i++) {
        ValId nr = f->ops[nl].results[i];
        f->vals[nr].layout = f->vals[inits[i]].layout;
        if (i < nc) replace_later(P, f->ops[loop].results[i], nr);
    }
    free(opnds);
    free(tys);
    return nl;
}

/* Loop `loop` carrying one more value: init before it, next at the end of each iteration.
 * The new loop takes the old one's place in P->out (the caller pushes it); the old one's
 * results are replaced by its first ones. */
static OpId append_carried(Pipe *P, OpId loop, ValId init, ValId next, ValId *arg) {
    IrFunc *f = P->f;
    uint32_t n = f->ops[loop].nres, no = f->ops[loop].nopnds;
    ValId *opnds = calloc(no + 1, sizeof(ValId));
    IrType *tys = calloc(n + 1, sizeof(IrType));
    if (!opnds || !tys) NR_DIE("out of memory");
    memcpy(opnds, f->ops[loop].operands, no * sizeof(ValId));
    opnds[no] = init;
    for (uint32_t i = 0; i < n; i++) tys[i] = ir_type(f, f->ops[loop].results[i]);
    tys[n] = ir_type(f, init);
    OpId nl = ir_op_new(f, OP_FOR, f->ops[loop].loc, opnds, no + 1, tys, n + 1);
    f->ops[nl].attr[0] = f->ops[loop].attr[0];
    RegionId body = f->ops[loop].region[0];
    f->ops[nl].region[0] = body, f->ops[nl].nregions = 1;
    f->ops[loop].nregions = 0;
    f->regions[body].parent_op = nl;
    *arg = ir_region_add_arg(f, body, ir_type(f, init));
    f->vals[*arg].layout = f->vals[init].layout;
    for (uint32_t i = 0; i <= n; i++) {
        ValId nr = f->ops[nl].results[i];
        f->vals[nr].layout = i < n ? f->vals[f->ops[loop].results[i]].layout : f->vals[init].layout;
        if (i < n) replace_later(P, f->ops[loop].results[i], nr);
    }
    const IrRegion *rb = &f->regions[body];
    OpId y = rb->ops[rb->nops - 1];
    uint32_t ny = f->ops[y].nopnds;
    ValId *yo = calloc(ny + 1, sizeof(ValId));
    if (!yo) NR_DIE("out of memory");
    memcpy(yo, f->ops[y].operands, ny * sizeof(ValId));
    yo[ny] = next;
    ir_op_set_operands(f, y, yo, ny + 1);
    free(yo), free(opnds), free(tys);
    return nl;
}

/* Is op id (of body) computed by pure ops alone from the body's arguments and values made
 * before the loop? Marks them in slice (by op index k of ops). */
static bool pure_slice(const IrFunc *f, RegionId body, const OpId *ops, uint32_t n, ValId v,
                       uint8_t *slice) {
    OpId d = ir_def(f, v);
    if (!in_body(f, d, body)) return true; /* an argument, or made before the loop */
    uint32_t k = 0;
    while (k < n && ops[k] != d) k++;
    if (k == n) return false;
    if (slice[k]) return true;
    if (!(ir_op_info[f->ops[d].code].flags & F_PURE) || f->ops[d].nregions || f->ops[d].nres != 1)
        return false;
    slice[k] = 1;
    for (uint32_t i = 0; i < f->ops[d].nopnds; i++)
        if (!pure_slice(f, body, ops, n, f->ops[d].operands[i], slice)) return false;
    return true;
}

/* Clones, into P->out, the ops of ops marked in slice (in order) and then op last, with the
 * body's arguments through map; returns last's copy's result. */
static ValId clone_slice(Pipe *P, const OpId *ops, uint32_t n, const uint8_t *slice, OpId last,
                         ValId *map) {
    IrFunc *f = P->f;
    for (uint32_t k = 0; k < n; k++)
        if (slice[k]) opvec_push(&P->out, clone_s0(P, ops[k], map));
    OpId c = clone_s0(P, last, map);
    opvec_push(&P->out, c);
    return f->ops[c].results[0];
}

/* A dot_async whose A the body loads from a ring into registers (register_a; B^T of
 * transpose_dots.c's product). PTX leaves undefined a wgmma whose A registers anything
 * writes before the wait that retires it (PTX ISA, wgmma.mma_async), and in a loop the
 * next iteration's load writes the same registers: carrying them to a later wait (copies
 * at the back edge) does not keep the load from rewriting the ones the wgmma reads, which
 * the GPU showed (a wrong result at full speed, right when serialised). So the head of the
 * body is rotated: the wait for a stage's copies and A's load move from the head of
 * iteration it + 1 to the end of iteration it (copies of both before the loop for
 * iteration 0), into registers the loop carries to the next iteration, where the dot
 * reads them; its own dot_wait moves to the end, after that load, with pending 0. The
 * wgmma of iteration it then runs under the prefetch's issue, the wait for the next
 * stage's copies, the barrier and the next A's load; nothing but the back edge lies
 * between its wait and the next wgmma. The body must begin with the copies' async_wait
 * (cp.async rings) and read A's stage through pure ops of its arguments; otherwise the
 * dot is made synchronous again (its wait pending 0, right after it). Returns the loop (a
 * new one carrying A where rotated). */
static OpId load_a_ahead(Pipe *P, OpId nl, int64_t step, Loc loc) {
    IrFunc *f = P->f;
    RegionId body = f->ops[nl].region[0];
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, body, &n);
    uint32_t kd = n, kw = n, kl = n, nregs = 0;
    for (uint32_t k = 0; k < n; k++)
        if (f->ops[ops[k]].code == OP_DOT_ASYNC &&
            ir_type(f, f->ops[ops[k]].operands[0]).dt != DT_SMEM)
            nregs++, kd = k;
    if (!nregs) {
        free(ops);
        return nl;
    }
    ValId res = kd < n ? f->ops[ops[kd]].results[0] : 0;
    for (uint32_t k = kd + 1; k < n && kw == n; k++)
        if (f->ops[ops[k]].code == OP_DOT_WAIT && f->ops[ops[k]].operands[0] == res) kw = k;
    ValId a = f->ops[ops[kd]].operands[0];
    for (uint32_t k = 0; k < kd; k++)
        if (ops[k] == ir_def(f, a)) kl = k;
    bool ok = nregs == 1 && kw < n && kl < n && f->ops[ops[0]].code == OP_ASYNC_WAIT;
    for (uint32_t k = 0; k < n && ok; k++) ok = f->ops[ops[k]].code != OP_MBARRIER_WAIT;
    uint8_t *slice = calloc(n + 1, 1);
    if (!slice) NR_DIE("out of memory");
    ok = ok && pure_slice(f, body, ops, n, f->ops[ops[kl]].operands[0], slice);
    if (!ok) { /* every such dot synchronous: its wait right after it, pending 0 */
        for (uint32_t k = 0; k < n; k++) {
            if (f->ops[ops[k]].code != OP_DOT_ASYNC ||
                ir_type(f, f->ops[ops[k]].operands[0]).dt == DT_SMEM)
                continue;
            for (uint32_t w = k + 1; w < n; w++)
                if (f->ops[ops[w]].code == OP_DOT_WAIT &&
                    f->ops[ops[w]].operands[0] == f->ops[ops[k]].results[0])
                    f->ops[ops[w]].attr[0] = 0;
        }
        free(slice), free(ops);
        return nl;
    }
    const IrRegion *r = &f->regions[body];
    OpId y = ops[n - 1];
    ValId *map = calloc(f->nvals + 64, sizeof(ValId));
    if (!map) NR_DIE("out of memory");
    /* before the loop: iteration 0's wait and A */
    emit0(P, OP_ASYNC_WAIT, loc, NULL, 0, f->ops[ops[0]].attr[0]);
    map[r->args[0]] = f->ops[nl].operands[0];
    for (uint32_t i = 1; i < r->nargs; i++) map[r->args[i]] = f->ops[nl].operands[3 + i - 1];
    ValId a0 = clone_slice(P, ops, n, slice, ops[kl], map);
    /* the body: its ops but the wait at its head, A's load and the dot's wait; then the
     * next iteration's wait and A, the dot's wait (pending 0), the yield */
    OpVec saved = P->out;
    memset(&P->out, 0, sizeof P->out);
    for (uint32_t k = 1; k + 1 < n; k++)
        if (k != kl && k != kw) opvec_push(&P->out, ops[k]);
    emit0(P, OP_ASYNC_WAIT, loc, NULL, 0, f->ops[ops[0]].attr[0]);
    ValId *m2 = realloc(map, sizeof(ValId) * (f->nvals + 64));
    if (!m2) NR_DIE("out of memory");
    map = m2;
    memset(map, 0, sizeof(ValId) * (f->nvals + 64));
    r = &f->regions[body];
    IrType ivt = ir_type(f, r->args[0]);
    map[r->args[0]] = binop(P, OP_ADD, r->args[0], konst(P, ivt, step, loc), loc);
    for (uint32_t i = 1; i < r->nargs; i++) map[r->args[i]] = f->ops[y].operands[i - 1];
    ValId anext = clone_slice(P, ops, n, slice, ops[kl], map);
    f->ops[ops[kw]].attr[0] = 0;
    opvec_push(&P->out, ops[kw]);
    opvec_push(&P->out, y);
    ir_region_set_ops(f, body, P->out.v, P->out.n);
    opvec_free(&P->out);
    P->out = saved;
    free(map), free(slice);
    ValId cur;
    nl = append_carried(P, nl, a0, anext, &cur);
    uint32_t nb;
    OpId *bops = ir_region_copy_ops(f, body, &nb);
    replace_in(f, bops, nb, a, cur);
    free(bops), free(ops);
    return nl;
}

static bool constant_step(const IrFunc *f, ValId step, int64_t *out) {
    const IrOp *d = def(f, step);
    if (!d || d->code != OP_CONST || d->attr[0] <= 0) return false;
    *out = d->attr[0];
    return true;
}

/* v as cst + coef * sym (sym 0: a constant), through constants, add, sub, mul by a
 * constant and the hints; any other value is a symbol of its own. Only compares loop
 * bounds: the wrap of the arithmetic does not matter here. */
typedef struct Linear {
    int64_t cst, coef;
    ValId sym;
} Linear;

static Linear linear(const IrFunc *f, ValId v, int depth) {
    Linear own = {0, 1, v};
    const IrOp *d = def(f, v);
    if (!d || depth > 16 || ir_type(f, v).rank) return own;
    if (d->code == OP_CONST && dt_is_int(ir_type(f, v).dt)) return (Linear){d->attr[0], 0, 0};
    if (d->code == OP_MULTIPLE_OF || d->code == OP_MAX_CONTIGUOUS || d->code == OP_MAX_CONSTANCY)
        return linear(f, d->operands[0], depth + 1);
    if (d->code != OP_ADD && d->code != OP_SUB && d->code != OP_MUL) return own;
    Linear a = linear(f, d->operands[0], depth + 1), b = linear(f, d->operands[1], depth + 1);
    if (d->code == OP_MUL) {
        if (b.sym) {
            Linear t = a;
            a = b, b = t;
        }
        if (b.sym) return own; /* neither is a constant */
        return (Linear){(int64_t)((uint64_t)a.cst * (uint64_t)b.cst),
                        (int64_t)((uint64_t)a.coef * (uint64_t)b.cst), a.coef && b.cst ? a.sym : 0};
    }
    int64_t sign = d->code == OP_SUB ? -1 : 1;
    if (a.sym && b.sym && a.sym != b.sym) return own;
    Linear r = {(int64_t)((uint64_t)a.cst + (uint64_t)(sign * b.cst)), 0, a.sym ? a.sym : b.sym};
    r.coef = (int64_t)((uint64_t)(a.sym ? a.coef : 0) + (uint64_t)(sign * (b.sym ? b.coef : 0)));
    if (!r.coef) r.sym = 0;
    return r;
}

/* The trip count of a loop from lo to hi by step (> 0) when hi - lo is a compile-time
 * constant (`range(x * 128, (x + 1) * 128, 64)`: 2), else -1. */
static int64_t constant_trips(const IrFunc *f, ValId lo, ValId hi, int64_t step) {
    Linear a = linear(f, lo, 0), b = linear(f, hi, 0);
    if (a.sym != b.sym || a.coef != b.coef) return -1;
    int64_t span = b.cst - a.cst;
    return span <= 0 ? 0 : span / step + (span % step != 0);
}

/* The candidates of loop (at most 16), with their stage-0 ops marked; -1 if a load that
 * fills a dot's buffer cannot be issued ahead (the loop does not qualify). Without
 * reshaped, a desc_load reshaped before its buffer is left where it is. */
static int candidates(Pipe *P, OpId loop, Cand *cands, bool reshaped) {
    IrFunc *f = P->f;
    RegionId body = f->ops[loop].region[0];
    int nc = 0;
    memset(P->s0, 0, P->nops0 + 1);
    memset(P->carried, 0, P->nvals0 + 1);
    const IrRegion *r = &f->regions[body];
    for (uint32_t k = 0; k < r->nops && nc < 16; k++) {
        OpId id = r->ops[k];
        const IrOp *op = &f->ops[id];
        if (op->code != OP_LOCAL_ALLOC || op->nopnds != 1) continue;
        OpId ld = ir_def(f, op->operands[0]);
        if (!in_body(f, ld, body) || P->uses[op->operands[0]] != 1) continue;
        OpId dl = desc_load_of(P, body, op->operands[0]);
        if (dl && dl != ld && !reshaped) continue;
        if (dl) { /* a TMA descriptor's (the others are expanded by now) */
            const IrOp *l = &f->ops[dl];
            if (!tma_ring_ok(P, l, op->results[0])) continue;
            bool ok = true;
            for (uint32_t i = 1; i < l->nopnds; i++) ok = ok && need(P, body, l->operands[i], 0);
            if (!ok) return -1;
            cands[nc++] = (Cand){dl, id, 0, true, 0, dl != ld};
            continue;
        }
        if (f->ops[ld].code != OP_LOAD) continue;
        const IrOp *l = &f->ops[ld];
        if (l->nopnds == 3 && !is_zero(f, l->operands[2])) continue;
        if (!copyable(P, l, op->results[0])) continue;
        bool ok = true;
        for (uint32_t i = 0; i < l->nopnds && i < 2; i++)
            ok = ok && need(P, body, l->operands[i], 0);
        if (!ok) return -1;
        cands[nc++] = (Cand){ld, id, 0, false, 0, false};
    }
    return nc;
}

/* Pipelines loop `loop` of region parent (ops rebuilt into P->out, which holds the ops
 * of parent before it); false (nothing changed) if it does not qualify. */
static bool pipeline_loop(Pipe *P, OpId loop) {
    IrFunc *f = P->f;
    RegionId body = f->ops[loop].region[0];
    int64_t step;
    int stages = f->ops[loop].attr[0] ? (int)f->ops[loop].attr[0]
                                      : P->default_stages; /* tl.range's, else the kernel's */
    if (stages < 2 || !constant_step(f, f->ops[loop].operands[2], &step)) return false;
    /* a ring deeper than the loop's iterations plus one only fills with copies masked off */
    int64_t trips = constant_trips(f, f->ops[loop].operands[0], f->ops[loop].operands[1], step);
    if (trips >= 0 && stages > trips + 1) stages = trips + 1 < 2 ? 2 : (int)trips + 1;
    Cand cands[16];
    int nc = 0;
    /* fewer stages where the rings would not fit in shared memory (down to two); where two
     * do not fit either, the reshaped desc_loads left out of the rings (their tiles staged
     * in the body one at a time); none where that does not fit: the loop as it is needs
     * only its own buffers, one iteration's at a time */
    for (int with_reshaped = 1; with_reshaped >= 0; with_reshaped--) {
        nc = candidates(P, loop, cands, with_reshaped);
        if (nc <= 0) return false;
        mark_dep(P, body);
        P->stages = stages;
        while (P->stages > 2 &&
               loop_smem_bytes(P, body, cands, nc, P->stages, NULL, 0) > smem_limit(P->m))
            P->stages--;
        if (loop_smem_bytes(P, body, cands, nc, P->stages, NULL, 0) <= smem_limit(P->m)) break;
        bool any = false;
        for (int c = 0; c < nc; c++) any |= cands[c].reshaped;
        if (!with_reshaped || !any) return false;
    }
    Loc loc = f->ops[loop].loc;
    uint32_t hoist_from = P->out.n; /* the rings and their mbarriers from here */
    for (int c = 0; c < nc; c++) {  /* the rings */
        ValId buf = f->ops[cands[c].alloc].results[0];
        IrType t = ir_type(f, buf);
        t.stages = (uint8_t)P->stages;
        OpId a = ir_op_new(f, OP_LOCAL_ALLOC, loc, NULL, 0, &t, 1);
        cands[c].ring = f->ops[a].results[0];
        f->vals[cands[c].ring].layout = f->vals[buf].layout;
        opvec_push(&P->out, a);
        if (cands[c].tma) cands[c].bars = mbarrier_ring(P, loc, 1);
    }
    P->ws = ws_wanted(P, loop, cands, nc);
    if (P->ws) P->empty = mbarrier_ring(P, loc, P->m->gpu.num_warps); /* an arrival a warp */
    if (any_tma(cands, nc))
        emit0(P, OP_BARRIER, loc, NULL, 0,
              0);              /* the mbarriers initialised before any thread waits */
    if (P->ws && P->ws_host) { /* made by every thread, before the warp_specialize (walk) */
        for (uint32_t i = hoist_from; i < P->out.n; i++) opvec_push(&P->ws_hoist, P->out.v[i]);
        P->out.n = hoist_from;
    }
    uint32_t ncar = f->ops[loop].nopnds - 3;
    bool mixed = stages_mixed(P, loop, body, cands, nc);
    ValId *inits = calloc(2 * ncar + 3, sizeof(ValId)), *ny = calloc(2 * ncar + 4, sizeof(ValId));
    ValId *orig = calloc(ncar + 1, sizeof(ValId));
    if (!inits || !ny || !orig) NR_DIE("out of memory");
    for (uint32_t i = 0; i < ncar; i++) inits[i] = orig[i] = f->ops[loop].operands[3 + i];
    P->ncar = ncar, P->ncur = 0;
    OpVec producer = {0};
    if (P->ws) { /* before the body changes: the producer clones its stage 0 */
        OpVec saved = P->out;
        memset(&P->out, 0, sizeof P->out);
        producer_loop(P, loop, cands, nc, inits);
        opvec_push(&P->out, ir_op_new(f, OP_YIELD, loc, NULL, 0, NULL, 0));
        producer = P->out;
        P->out = saved;
    } else prologue(P, loop, cands, nc, step, inits);
    inits[ncar] = konst(P, ty_scalar(DT_I32), 0, loc);
    ValId it = ir_region_add_arg(f, body, ty_scalar(DT_I32));
    if (!P->ws) stage_counters(P, body, cands, nc, inits + ncar + 1, loc);
    if (mixed) current_copies(P, body, cands, nc, inits + ncar + 1 + P->nextra, orig);
    free(orig);
    double_register_buffers(P, body, it, cands, nc);
    P->async_slot = calloc(ncar + 1, 1);
    if (!P->async_slot) NR_DIE("out of memory");
    int asyncs = async_wgmma(P, body, cands, nc);
    if (asyncs) wait_after_async(P, body);
    rebuild_body(P, loop, cands, nc, step, it, ny);
    OpId nl = new_loop(P, loop, inits);
    if (asyncs) nl = load_a_ahead(P, nl, step, loc);
    uint32_t consumers_from = P->out.n; /* ws: the consumers' ops from here on */
    opvec_push(&P->out, nl);
    for (uint32_t q = 0; q < P->ncur; q++) /* over new_loop's pair: the current values */
        replace_later(P, f->ops[loop].results[P->cur_of[q]],
                      f->ops[nl].results[ncar + 1 + P->nextra + q]);
    free(P->cur_next), free(P->cur_of);
    P->cur_next = NULL, P->cur_of = NULL, P->ncur = 0;
    /* after the loop: the dot_async chains' results, then the copies still in flight (the
     * tensor-core waits first: ptxas wants them at the head of the loop's exit block) */
    if (asyncs) {
        for (uint32_t i = 0; i < ncar; i++) {
            ValId res = f->ops[nl].results[i];
            if (!P->async_slot[i]) continue;
            IrType t = ir_type(f, res);
            OpId w = ir_op_new(f, OP_DOT_WAIT, loc, &res, 1, &t, 1);
            f->ops[w].attr[0] = 0;
            f->vals[f->ops[w].results[0]].layout = f->vals[res].layout;
            opvec_push(&P->out, w);
            replace_later(P, f->ops[loop].results[i],
                          f->ops[w].results[0]); /* over new_loop's pair */
        }
    }
    if (any_cp(cands, nc)) emit0(P, OP_ASYNC_WAIT, loc, NULL, 0, 0);
    /* no TMA copy is in flight: each one issued was for an iteration that ran and waited */
    for (int c = 0; c < nc; c++)
        for (int s = 0; cands[c].tma && s < P->stages; s++)
            emit0(P, OP_MBARRIER_INVAL, loc,
                  (ValId[]){view_of(P, cands[c].bars, konst(P, ty_scalar(DT_I32), s, loc), loc)}, 1,
                  0);
    if (P->ws && P->ws_host) {     /* the loop's side of the if is the consumers'; walk makes */
        P->ws_producer = producer; /* the warp_specialize around the if */
        memset(&producer, 0, sizeof producer);
        P->ws_op = P->ws_host; /* one a kernel */
    } else if (P->ws) {        /* the producer's loop and the consumers' (walk adds what follows) */
        OpId ws = ws_op_new(P, loc, producer.v, producer.n);
        RegionId cr = f->ops[ws].region[1];
        opvec_push(&P->out, ir_op_new(f, OP_YIELD, loc, NULL, 0, NULL, 0));
        ir_region_set_ops(f, cr, P->out.v + consumers_from, P->out.n - consumers_from);
        P->out.n = consumers_from;
        opvec_push(&P->out, ws);
        P->ws_op = ws;
    }
    opvec_free(&producer);
    P->ws = false;
    free(inits);
    free(P->async_slot);
    P->async_slot = NULL;
    P->rs = P->ph = 0, P->nextra = 0;
    free(ny);
    return true;
}

/* The warp_specialize of a loop in an if at the top of the body (P->ws_host), in walk's
 * rebuilt body (P->out): the rings and their mbarriers first, for every thread; then the
 * producer region, an if on the same condition whose side runs the ops it needs from
 * before the loop (copies) and the producer's loop; the consumer region, the if as it is
 * and whatever follows it but return. */
static void ws_around_if(Pipe *P) {
    IrFunc *f = P->f;
    OpId host = P->ws_host;
    Loc loc = f->ops[host].loc;
    uint32_t at = 0;
    while (P->out.v[at] != host) at++;
    uint32_t nv = f->nvals + 1;
    ValId *map = malloc(sizeof(ValId) * nv), *rmap = calloc(nv, sizeof(ValId));
    if (!map || !rmap) NR_DIE("out of memory");
    for (uint32_t v = 0; v < nv; v++) map[v] = v;
    OpId pif = ir_op_new(f, OP_IF, loc, &f->ops[host].operands[0], 1, NULL, 0);
    RegionId sides[2] = {ir_op_add_region(f, pif), ir_op_add_region(f, pif)};
    RegionId pr = sides[P->ws_side];
    for (uint32_t i = 0; i < P->ws_clone.n; i++) {
        OpId old = P->ws_clone.v[i];
        OpId c = ir_clone_op(f, pr, f, old, map);
        for (uint32_t k = 0; k < f->ops[c].nres; k++) {
            f->vals[f->ops[c].results[k]].layout = f->vals[f->ops[old].results[k]].layout;
            rmap[f->ops[old].results[k]] = f->ops[c].results[k];
        }
    }
    for (uint32_t i = 0; i < P->ws_producer.n; i++) { /* it ends in a yield */
        remap_deep(f, P->ws_producer.v[i], rmap, nv);
        ir_region_append(f, pr, P->ws_producer.v[i]);
    }
    ir_region_append(f, sides[!P->ws_side], ir_op_new(f, OP_YIELD, loc, NULL, 0, NULL, 0));
    free(map);
    free(rmap);

    OpId pops[2] = {pif, ir_op_new(f, OP_YIELD, loc, NULL, 0, NULL, 0)};
    OpId ws = ws_op_new(P, loc, pops, 2);
    RegionId wc = f->ops[ws].region[1];
    OpVec cons = {0}, all = {0};
    for (uint32_t i = at; i + 1 < P->out.n; i++) opvec_push(&cons, P->out.v[i]);
    opvec_push(&cons, ir_op_new(f, OP_YIELD, loc, NULL, 0, NULL, 0));
    ir_region_set_ops(f, wc, cons.v, cons.n);
    for (uint32_t i = 0; i < at; i++) opvec_push(&all, P->out.v[i]);
    for (uint32_t i = 0; i < P->ws_hoist.n; i++) opvec_push(&all, P->ws_hoist.v[i]);
    opvec_push(&all, ws);
    opvec_push(&all, P->out.v[P->out.n - 1]); /* return */
    opvec_free(&P->out);
    P->out = all;
    opvec_free(&cons);
    P->ws_op = ws, P->ws_host = 0;
}

static void walk(Pipe *P, RegionId r) {
    IrFunc *f = P->f;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    for (uint32_t k = 0; k < n; k++) /* inner loops first */
        for (int i = 0; i < f->ops[ops[k]].nregions; i++) walk(P, f->ops[ops[k]].region[i]);
    OpVec saved = P->out;
    memset(&P->out, 0, sizeof P->out);
    bool changed = false;
    for (uint32_t k = 0; k < n; k++) {
        OpId id = ops[k];
        P->region = r;
        if (f->ops[id].code == OP_FOR && pipeline_loop(P, id)) {
            changed = true;
            opvec_push(&P->piped, id);
            continue;
        }
        opvec_push(&P->out, id);
    }
    if (P->ws_host && r == f->body) ws_around_if(P);
    else if (P->ws_op && r == f->body) { /* the ops after it but return run on the consumers */
        uint32_t at = 0;
        while (P->out.v[at] != P->ws_op) at++;
        RegionId cr = f->ops[P->ws_op].region[1];
        uint32_t nc;
        OpId *cons = ir_region_copy_ops(f, cr, &nc);
        OpVec all = {0};
        for (uint32_t i = 0; i + 1 < nc; i++) opvec_push(&all, cons[i]);
        for (uint32_t i = at + 1; i + 1 < P->out.n; i++) opvec_push(&all, P->out.v[i]);
        opvec_push(&all, cons[nc - 1]); /* the yield */
        ir_region_set_ops(f, cr, all.v, all.n);
        P->out.v[at + 1] = P->out.v[P->out.n - 1]; /* return */
        P->out.n = at + 2;
        opvec_free(&all);
        free(cons);
    }
    if (changed || (P->ws_op && r == f->body)) ir_region_set_ops(f, r, P->out.v, P->out.n);
    opvec_free(&P->out);
    P->out = saved;
    free(ops);
}

/* ---- loads that feed a dot through registers ----
 *
 * Triton's pipeliner issues ahead every load of the loop from which a dot's operand is
 * computed, not only the tiles that fill its buffers: attention's backward reads its row
 * statistics each iteration (m, Di: exp2(qk - m) becomes the next dot's A), and a plain
 * load there leaves the iteration waiting on global memory. Such a load is staged through
 * shared memory before the loop is pipelined, x = load(p) becoming
 * local_load(local_alloc(load(p))) in a plain (unswizzled) buffer, so that it is a
 * candidate like a tile and its copy runs S-1 iterations ahead with the others. Only in a
 * loop that has a candidate already (a round trip through shared memory alone gains
 * nothing), not a warp-specialised one (its producer issues TMA copies only), not one that
 * writes global memory (a copy ahead would read before the loop's own writes), and only
 * loads of the loop's body cp.async can move (copyable: pieces of 4 bytes at least), with
 * no `other` but zeros, no cache or eviction hint, whose pointers and mask stage 0 can
 * compute. Where the loop is not pipelined after all, the staging is undone (gpu_pipeline).
 */

/* Marks (in seen, per value) what the operands of the dots of body are computed from in
 * the body, and collects the loads among their definitions into out (an index a load's
 * address comes from too: Triton's indirection levels). */
static void dot_sources(IrFunc *f, RegionId body, uint8_t *seen, OpVec *out) {
    const IrRegion *r = &f->regions[body];
    OpVec stack = {0}; /* of values (ValId and OpId are both uint32_t) */
    for (uint32_t k = 0; k < r->nops; k++) {
        const IrOp *op = &f->ops[r->ops[k]];
        for (uint32_t i = 0; op->code == OP_DOT && i < 2; i++) opvec_push(&stack, op->operands[i]);
    }
    while (stack.n) {
        ValId v = stack.v[--stack.n];
        if (seen[v]) continue;
        seen[v] = 1;
        OpId d = f->vals[v].is_arg ? 0 : ir_def(f, v);
        if (!in_body(f, d, body) || f->ops[d].nregions) continue;
        const IrOp *op = &f->ops[d];
        if (op->code == OP_LOAD) opvec_push(out, d); /* and what its address comes from */
        for (uint32_t i = 0; i < op->nopnds; i++) opvec_push(&stack, op->operands[i]);
    }
    opvec_free(&stack);
}

/* Undoes staged record i (P->staged[i..i+5)) now: the load's value back in its readers,
 * the buffer and its read out of the body, the record dropped. */
static void unstage(Pipe *P, uint32_t i) {
    IrFunc *f = P->f;
    uint32_t *rec = P->staged + i;
    ValId *repl = ir_repl_new(f);
    repl[rec[2]] = rec[1];
    ir_replace_all_uses(f, repl);
    free(repl);
    RegionId body = f->ops[rec[0]].region[0];
    uint32_t n, kept = 0;
    OpId *ops = ir_region_copy_ops(f, body, &n);
    for (uint32_t k = 0; k < n; k++)
        if (ops[k] != rec[3] && ops[k] != rec[4]) ops[kept++] = ops[k];
    ir_region_set_ops(f, body, ops, kept);
    free(ops);
    memmove(rec, rec + 5, sizeof(uint32_t) * (P->nstaged - i - 5));
    P->nstaged -= 5;
}

/* Do the loop's rings fit at `stages` with room left for every buffer its dots read that
 * the body fills from registers to be doubled (double_register_buffers)? A staged load
 * must not cost the loop a stage or a doubled buffer. */
static bool staged_fit(Pipe *P, RegionId body, const Cand *cands, int nc, int stages) {
    IrFunc *f = P->f;
    int64_t bytes = loop_smem_bytes(P, body, cands, nc, stages, NULL, 0);
    const IrRegion *r = &f->regions[body];
    for (uint32_t k = 0; k < r->nops; k++) {
        const IrOp *op = &f->ops[r->ops[k]];
        for (int i = 0; op->code == OP_DOT && i < 2; i++) {
            OpId rb = register_buffer(P, body, op->operands[i], cands, nc);
            if (!rb) continue;
            ValId b = f->ops[rb].results[0];
            bytes += ir_smem_stage_bytes(P->m, f->vals[b].layout, ir_type(f, b));
        }
    }
    return bytes <= smem_limit(P->m);
}

/* Stages the loads of loop that feed its dots through registers; how many. Not in a loop
 * that writes global memory: a copy issued iterations ahead would read before the loop's
 * own writes (gpu-tma-pointers keeps such a loop's loads too). */
static int stage_loop(Pipe *P, OpId loop) {
    IrFunc *f = P->f;
    RegionId body = f->ops[loop].region[0];
    int64_t step;
    int stages = f->ops[loop].attr[0] ? (int)f->ops[loop].attr[0] : P->default_stages;
    if (stages < 2 || f->ops[loop].attr[2] || !constant_step(f, f->ops[loop].operands[2], &step) ||
        ir_writes_global(f, loop))
        return 0;
    int64_t trips = constant_trips(f, f->ops[loop].operands[0], f->ops[loop].operands[1], step);
    if (trips >= 0 && stages > trips + 1) stages = trips + 1 < 2 ? 2 : (int)trips + 1;
    Cand cands[16];
    int nc = candidates(P, loop, cands, true);
    if (nc <= 0 || !staged_fit(P, body, cands, nc, stages)) return 0;
    uint8_t *seen = calloc((size_t)f->nvals + 1, 1);
    uint8_t *s0 = malloc(P->nops0 + 1), *car = malloc(P->nvals0 + 1);
    if (!seen || !s0 || !car) NR_DIE("out of memory");
    OpVec loads = {0};
    dot_sources(f, body, seen, &loads);
    free(seen);
    int staged = 0;
    for (uint32_t i = 0; i < loads.n && nc < 16; i++) {
        OpId ld = loads.v[i];
        const IrOp *l = &f->ops[ld];
        ValId x = l->results[0];
        IrType t = ir_type(f, x);
        if (!t.rank || t.dt == DT_I1 || (!dt_is_int(t.dt) && !dt_is_float(t.dt)) || l->attr[0] ||
            l->attr[1] || P->uses[x] == 0)
            continue; /* numbers only: a block of pointers stays in registers */
        if (l->nopnds == 3 && !is_zero(f, l->operands[2])) continue;
        bool used_by_alloc = false; /* a tile of the dot's already (or made one) */
        const IrRegion *r = &f->regions[body];
        for (uint32_t k = 0; k < r->nops && !used_by_alloc; k++) {
            const IrOp *u = &f->ops[r->ops[k]];
            used_by_alloc = u->code == OP_LOCAL_ALLOC && u->nopnds == 1 && u->operands[0] == x;
        }
        if (used_by_alloc) continue;
        /* what stage 0 would need for it, marked over the candidates' marks; a load it
         * cannot issue there leaves them as they were (need marks as it goes) */
        memcpy(s0, P->s0, P->nops0 + 1), memcpy(car, P->carried, P->nvals0 + 1);
        bool ok = true;
        for (uint32_t k = 0; k < l->nopnds && k < 2; k++)
            ok = ok && need(P, body, l->operands[k], 0);
        if (!ok) {
            memcpy(P->s0, s0, P->nops0 + 1), memcpy(P->carried, car, P->nvals0 + 1);
            continue;
        }
        /* the register dimension that runs fastest: the buffer's contiguous one */
        LinearLayout ll;
        ir_layout_linear(P->m, f->vals[x].layout, t, &ll);
        int fast = -1;
        for (int d = 0; ll.nbits[LL_REG] && d < t.rank; d++)
            if (ll.basis[LL_REG][0] == 1u << ll_dim_shift(&ll, d)) fast = d;
        if (fast < 0) continue;
        IrLayout sl = policy_shared_plain(t.rank, fast);
        IrType bt = ty_smem(t.dt, t.rank, t.shape, 1);
        OpId a = ir_op_new(f, OP_LOCAL_ALLOC, l->loc, &x, 1, &bt, 1);
        ValId buf = f->ops[a].results[0];
        f->vals[buf].layout = ir_layout_intern(P->m, &sl);
        if (!copyable(P, &f->ops[ld], buf)) continue; /* a not inserted op: nothing reads it */
        OpId rd = ir_op_new(f, OP_LOCAL_LOAD, f->ops[ld].loc, &buf, 1, &t, 1);
        ValId y = f->ops[rd].results[0];
        f->vals[y].layout = f->vals[x].layout;
        ValId *repl = ir_repl_new(f);
        repl[x] = y;
        ir_replace_all_uses(f, repl);
        free(repl);
        f->ops[a].operands[0] = x; /* the buffer's fill keeps the load */
        uint32_t n;
        OpId *ops = ir_region_copy_ops(f, body, &n);
        OpVec nb = {0};
        for (uint32_t k = 0; k < n; k++) {
            opvec_push(&nb, ops[k]);
            if (ops[k] == ld) opvec_push(&nb, a), opvec_push(&nb, rd);
        }
        ir_region_set_ops(f, body, nb.v, nb.n);
        opvec_free(&nb);
        free(ops);
        if (P->nstaged + 5 > P->capstaged) {
            P->capstaged = P->capstaged ? 2 * P->capstaged : 80;
            P->staged = realloc(P->staged, sizeof(uint32_t) * P->capstaged);
            if (!P->staged) NR_DIE("out of memory");
        }
        uint32_t rec[5] = {loop, x, y, a, rd};
        memcpy(P->staged + P->nstaged, rec, sizeof rec);
        P->nstaged += 5;
        /* the loop with it: still pipelined, every candidate counted (at most 16), at the
         * same stages with room for its doubled buffers; else it is undone */
        int nc1 = candidates(P, loop, cands, true);
        if (nc1 != nc + 1 || !staged_fit(P, body, cands, nc1, stages)) {
            unstage(P, P->nstaged - 5);
            nc = candidates(P, loop, cands, true); /* the marks as they were */
            continue;
        }
        nc = nc1;
        staged++;
    }
    opvec_free(&loads);
    free(s0), free(car);
    return staged;
}

static int stage_loads(Pipe *P, RegionId r) {
    IrFunc *f = P->f;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    int staged = 0;
    for (uint32_t k = 0; k < n; k++) {
        for (int i = 0; i < f->ops[ops[k]].nregions; i++)
            staged += stage_loads(P, f->ops[ops[k]].region[i]);
        if (f->ops[ops[k]].code == OP_FOR) staged += stage_loop(P, ops[k]);
    }
    free(ops);
    return staged;
}

/* The per-op and per-value state of the pass for f as it is now. */
static void pipe_state(Pipe *P) {
    IrFunc *f = P->f;
    free(P->uses), free(P->s0), free(P->dep), free(P->carried);
    P->uses = ir_count_uses(f);
    /* per op and value of f as it is: the pass only asks about those (new ones are never
     * candidates, stage-0 ops or carried values) */
    P->s0 = calloc((size_t)f->nops + 1, 1);
    P->dep = calloc((size_t)f->nops + 1, 1);
    P->carried = calloc((size_t)f->nvals + 1, 1);
    if (!P->s0 || !P->dep || !P->carried) NR_DIE("out of memory");
    P->nops0 = f->nops, P->nvals0 = f->nvals;
}

void gpu_pipeline(IrFunc *f, const AxisInfo *info, const GpuOptions *o) {
    Pipe P;
    memset(&P, 0, sizeof P);
    P.f = f, P.m = f->mod, P.info = info, P.default_stages = o->num_stages;
    pipe_state(&P);
    if (stage_loads(&P, f->body)) pipe_state(&P); /* the staged loads are old values */
    walk(&P, f->body);
    for (uint32_t i = P.nstaged; i >= 5; i -= 5) { /* a loop left alone: its loads as they were */
        bool piped = false;
        for (uint32_t k = 0; k < P.piped.n && !piped; k++) piped = P.piped.v[k] == P.staged[i - 5];
        if (!piped) unstage(&P, i - 5);
    }
    ValId *repl = ir_repl_new(f); /* now that every value exists */
    for (uint32_t i = 0; i < P.nrepl; i += 2) repl[P.repl[i]] = P.repl[i + 1];

    ir_replace_all_uses(f, repl);
    free(P.uses);
    free(P.s0);
    free(P.dep);
    free(P.carried);
    opvec_free(&P.ws_clone), opvec_free(&P.ws_producer), opvec_free(&P.ws_hoist);
    opvec_free(&P.piped);
    free(P.staged);
    free(repl);
}
