/* lower_dot_operands.c - gives each dot's operands the form its lowering reads.
 *
 * Requires:  layouts assigned (gpu_assign_layouts).
 * Maintains: SSA and semantics (an operand's elements are unchanged; only where they
 *            live moves), the layout verifier's rules.
 * Breaks:    nothing. Afterwards every dot operand is a one-stage shared-memory buffer or
 *            a block in its dot_op layout.
 *
 * For a dot whose result layout is
 * - mma version 2 (mma.sync): A and B in registers, in the result's dot_op layouts. An
 *   operand that already sits where dot_op wants it (another dot's accumulator, in
 *   attention) converts in registers; any other goes through shared memory: local_alloc
 *   of it, laid out with the operand's own contiguous dim (so a pipelined cp.async can
 *   fill it) and swizzled so ldmatrix reads without bank conflicts, then local_load into
 *   the dot_op layout.
 * - mma version 3 (wgmma): B from shared memory; A too, or from registers when it
 *   converts there in registers. wgmma's descriptors name 16-bit tiles either way round;
 *   8-bit (i8, fp8) and tf32 tiles must have K contiguous, so such a tile that runs along
 *   M or N is staged: copied as it lies, then moved K-major through registers. But a tf32
 *   A that is a trans of a tile running along M (transpose_dots.c's B^T) is read from its
 *   buffer as it lies straight into A's registers: no second buffer.
 * An operand that is a trans of a block goes to shared memory as it is, and the dot reads a
 * transposed view of the buffer (the same bytes, the shared layout's order swapped): no
 * data moves for the transpose, and a loaded tile still fills its buffer directly, so the
 * pipeliner can turn its load into cp.async (attention's k^T). A buffer made from a
 * value defined outside the loop around the dot is made once, before the loop; a later
 * buffer of the same value and layout, where the first one's making dominates it and
 * neither is written, is the first one (two loops reading one operand fill one buffer).
 * fp8 operands of any other dot (mma.sync has no fp8 form on sm_80, the CUDA cores none at
 * all) are widened to fp16 first, which holds every fp8 value exactly.
 * - any other (the CUDA cores): A and B from shared memory, A with M contiguous and B with
 *   N contiguous, so each thread reads the run of rows and of columns it accumulates at
 *   each k as one vector. */
#include <stdlib.h>
#include <string.h>

#include "compiler/analysis/layout_moves.h"
#include "compiler/passes/rewrite.h"
#include "gpu_passes.h"
#include "layout_policy.h"

typedef struct Lower {
    IrFunc *f;
    IrModule *m;
    OpVec out; /* the region being rebuilt */
} Lower;

/* Is buffer v (and every transposed view of it) only read, by dots and local_loads, in
 * region r and the regions inside it? */
static bool only_read(const IrFunc *f, RegionId r, ValId v) {
    const IrRegion *rg = &f->regions[r];
    for (uint32_t i = 0; i < rg->nops; i++) {
        const IrOp *op = &f->ops[rg->ops[i]];
        for (uint32_t j = 0; j < op->nopnds; j++) {
            if (op->operands[j] != v) continue;
            if (op->code == OP_TRANS) {
                if (!only_read(f, f->body, op->results[0])) return false;
            } else if (op->code != OP_DOT && op->code != OP_LOCAL_LOAD) {
                return false;
            }
        }
        for (int k = 0; k < op->nregions; k++)
            if (!only_read(f, op->region[k], v)) return false;
    }
    return true;
}

/* A buffer already made in the region being rebuilt from value x with shared layout l
 * and only read since (two dots reading one operand alike share its buffer: attention's
 * backward reads q and do twice each), else 0. */
static ValId made_buffer(Lower *L, ValId x, uint32_t l) {
    for (uint32_t i = 0; i < L->out.n; i++) {
        const IrOp *op = &L->f->ops[L->out.v[i]];
        if (op->code == OP_LOCAL_ALLOC && op->nopnds == 1 && op->operands[0] == x &&
            L->f->vals[op->results[0]].layout == l && only_read(L->f, L->f->body, op->results[0]))
            return op->results[0];
    }
    return 0;
}

/* The dim along which a block's registers hold consecutive elements (its first
 * register basis's), or its last dim. */
static int fast_dim(const IrModule *m, uint32_t layout, IrType t) {
    LinearLayout l;
    ir_layout_linear(m, layout, t, &l);
    for (int d = 0; l.nbits[LL_REG] && d < t.rank; d++)
        if (l.basis[LL_REG][0] == 1u << ll_dim_shift(&l, d)) return d;
    return t.rank - 1;
}

static ValId emit(Lower *L, int code, Loc loc, const ValId *opnds, uint32_t n, IrType t,
                  uint32_t layout) {
    OpId op = ir_op_new(L->f, code, loc, opnds, n, &t, 1);
    ValId r = L->f->ops[op].results[0];
    L->f->vals[r].layout = layout;
    opvec_push(&L->out, op);
    return r;
}

/* x (a block) into a one-stage buffer laid out by shared layout sl (one already made in
 * this region serves again). */
static ValId to_smem(Lower *L, ValId x, IrLayout sl, Loc loc) {
    IrType t = ir_type(L->f, x);
    IrType bt = ty_smem(t.dt, t.rank, t.shape, 1);
    uint32_t l = ir_layout_intern(L->m, &sl);
    ValId made = made_buffer(L, x, l);
    return made ? made : emit(L, OP_LOCAL_ALLOC, loc, &x, 1, bt, l);
}

/* A wgmma operand of 8 or 32 bits whose tile runs along M or N (a row-major B, a
 * column-major A) while wgmma reads such types only with K contiguous: it goes to
 * shared memory as it lies (so a pipelined load stays 16-byte cp.async copies), then
 * through registers, 16 bytes each way, into a K-major buffer. Where the tile is too small
 * for that, it is stored K-major from wherever it is. */
static ValId staged_k_major(Lower *L, ValId x, int fast, int kdim, Loc loc) {
    IrType t = ir_type(L->f, x);
    IrLayout tl;
    if (!policy_transpose_tile(t, L->m->gpu.num_warps, fast, &tl))
        return to_smem(L, x, policy_shared(t, kdim), loc);
    ValId staged = to_smem(L, x, policy_shared(t, fast), loc);
    ValId r = emit(L, OP_LOCAL_LOAD, loc, &staged, 1, t, ir_layout_intern(L->m, &tl));
    return to_smem(L, r, policy_shared(t, kdim), loc);
}

static uint32_t dot_op(Lower *L, uint32_t parent, int idx, int dt) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_DOT_OP, l.rank = 2, l.op_idx = (uint8_t)idx, l.parent = parent,
    l.k_width = (uint8_t)policy_k_width(dt);
    return ir_layout_intern(L->m, &l);
}

/* The shared layout of a 2-D buffer seen through its transpose (the same bytes). */
static IrLayout transposed(IrLayout l) {
    l.order[0] = (uint8_t)(1 - l.order[0]), l.order[1] = (uint8_t)(1 - l.order[1]);
    return l;
}

/* Is y a tile TMA copies (a desc_load, or one reshaped by unit dims)? Its buffer then has
 * TMA's own layout. */
static bool tma_filled(const IrFunc *f, ValId y) {
    const IrOp *d = ir_def(f, y) ? &f->ops[ir_def(f, y)] : NULL;
    if (d && d->code == OP_RESHAPE)
        d = ir_def(f, d->operands[0]) ? &f->ops[ir_def(f, d->operands[0])] : NULL;
    return d && d->code == OP_DESC_LOAD;
}

/* The swizzle of the buffer whose transpose a tf32 wgmma's A registers read element by
 * element (transpose_dots.c's B^T: lanes of a warp read 8 rows of the view, 4 of its
 * columns, which are 4 rows of the buffer). The standard 128-byte swizzle (16-byte
 * chunks XORed by the row) leaves two lanes in each bank; among the swizzles that keep
 * 16-byte runs whole (cp.async fills the buffer) over 128-byte rows, the one with the
 * fewest wavefronts for this read (moves_smem_wavefronts), the standard one on a tie:
 * for fp32, 32-byte chunks XORed by the row modulo 4 put the 32 lanes in 32 banks. */
static IrLayout a_regs_swizzle(Lower *L, IrLayout std, IrType view, uint32_t regs) {
    int eb = dt_bytes(view.dt);
    if (std.max_phase <= 1 || std.per_phase != 1) return std; /* rows under 128 bytes */
    IrLayout best = std, c = std;
    IrLayout tv = transposed(std);
    int best_w = moves_smem_wavefronts(L->m, regs, &tv, view, eb);
    for (int vec = 2 * std.vec; vec * eb < 128 && best_w > 0; vec *= 2) {
        c.vec = (uint8_t)vec, c.max_phase = (uint8_t)(128 / (vec * eb));
        tv = transposed(c);
        int w = moves_smem_wavefronts(L->m, regs, &tv, view, eb);
        if (w >= 0 && w < best_w) best = c, best_w = w;
    }
    return best;
}

/* Operand i of a tensor-core dot: in registers (a dot_op conversion that stays in
 * registers) or a buffer; *load says whether mma.sync still has to read the buffer into
 * its dot_op layout. */
static ValId mma_operand(Lower *L, ValId x, int i, uint32_t result_layout, Loc loc,
                         uint32_t *load) {
    IrType t = ir_type(L->f, x);
    bool regs_ok = L->m->layouts[result_layout].version == 2 || i == 0;
    /* (wgmma's B never goes to registers: its dot_op layout would be invalid, so it is
     * not made at all, not even left unused in the table) */
    uint32_t want = regs_ok ? dot_op(L, result_layout, i, t.dt) : 0;
    const IrLayout *rl = &L->m->layouts[result_layout];
    *load = 0;
    if (regs_ok && moves_convert_is_local(L->m, L->f->vals[x].layout, want, t))
        return emit(L, OP_CONVERT_LAYOUT, loc, &x, 1, t, want);
    if (rl->version == 2) *load = want;
    const IrOp *d = ir_def(L->f, x) ? &L->f->ops[ir_def(L->f, x)] : NULL;
    if (d && d->code == OP_TRANS &&
        t.rank == 2) { /* the operand before its transpose, then a view */
        ValId y = d->operands[0];
        IrType yt = ir_type(L->f, y);
        int fy = fast_dim(L->m, L->f->vals[y].layout, yt);
        bool a_regs = false;
        if (rl->version == 3 && t.dt == DT_FP32 && i == 0 && fy == 1)
            a_regs = true; /* tf32 A along M: from the buffer as it lies into registers */
        else if (rl->version == 3 && dt_bits(t.dt) != 16)
            fy = i == 0 ? 0 : 1; /* K contiguous once transposed */
        IrLayout sy = policy_shared(yt, fy), sv;
        if (a_regs && !tma_filled(L->f, y)) sy = a_regs_swizzle(L, sy, t, want);
        sv = transposed(sy);
        ValId buf = to_smem(L, y, sy, loc);
        ValId v = emit(L, OP_TRANS, loc, &buf, 1, ty_smem(t.dt, 2, t.shape, 1),
                       ir_layout_intern(L->m, &sv));
        IrOp *tr = &L->f->ops[ir_def(L->f, v)];
        tr->attr[0] = 1, tr->attr[1] = 0;
        if (a_regs) *load = want;
        return v;
    }
    int fast = fast_dim(L->m, L->f->vals[x].layout, t), kdim = i == 0 ? 1 : 0;
    if (rl->version == 3 && dt_bits(t.dt) != 16 && fast != kdim)
        return staged_k_major(L, x, fast, kdim, loc);
    return to_smem(L, x, policy_shared(t, fast), loc);
}

/* Both operands' buffers are filled before either is read, so one barrier serves both
 * (a staged operand has its own before its move K-major) and neither buffer's space is
 * reused by the other. */
static void lower_dot(Lower *L, OpId id) {
    uint32_t rl = L->f->vals[L->f->ops[id].results[0]].layout, load[2] = {0, 0};
    Loc loc = L->f->ops[id].loc;
    ValId opnds[2];
    const IrLayout *r = &L->m->layouts[rl];
    bool wgmma = r->kind == LAYOUT_MMA && r->version == 3;
    for (int i = 0; i < 2; i++) {
        ValId x = L->f->ops[id].operands[i];
        IrType t = ir_type(L->f, x);
        if (t.dt != DT_SMEM && dt_is_fp8(t.dt) &&
            !wgmma) { /* only wgmma reads fp8: widen it, exactly */
            IrType h = ty_with_elem(t, ty_scalar(DT_FP16));
            x = emit(L, OP_CVT, loc, &x, 1, h, L->f->vals[x].layout);
            t = h;
        }
        if (t.dt == DT_SMEM || L->m->layouts[L->f->vals[x].layout].kind == LAYOUT_DOT_OP) {
            opnds[i] = x; /* already lowered */
            continue;
        }
        if (L->m->layouts[rl].kind == LAYOUT_MMA)
            opnds[i] = mma_operand(L, x, i, rl, loc, &load[i]);
        else opnds[i] = to_smem(L, x, policy_shared_plain(2, i == 0 ? 0 : 1), loc);
    }
    for (int i = 0; i < 2; i++)
        if (load[i]) {
            IrType t = ir_type(L->f, opnds[i]);
            opnds[i] = emit(L, OP_LOCAL_LOAD, loc, &opnds[i], 1,
                            ty_block(ty_scalar(t.pointee), t.rank, t.shape), load[i]);
        }
    L->f->ops[id].operands[0] = opnds[0];
    L->f->ops[id].operands[1] = opnds[1];
}

static void lower_region(Lower *L, RegionId r) {
    uint32_t n;
    OpId *ops = ir_region_copy_ops(L->f, r, &n);
    OpVec saved = L->out;
    memset(&L->out, 0, sizeof L->out);
    for (uint32_t i = 0; i < n; i++) {
        OpId id = ops[i];
        for (int k = 0; k < L->f->ops[id].nregions; k++) lower_region(L, L->f->ops[id].region[k]);
        if (L->f->ops[id].code == OP_DOT) lower_dot(L, id);
        opvec_push(&L->out, id);
    }
    ir_region_set_ops(L->f, r, L->out.v, L->out.n);
    opvec_free(&L->out);
    L->out = saved;
    free(ops);
}

/* Does op a (in loop body `body`) move out of the loop? A local_alloc of a value defined
 * outside it; and a staged operand's local_load (staged_k_major) from such a buffer,
 * whose only use is the K-major local_alloc that then follows it out. */
static bool hoistable(const IrFunc *f, const IrOp *a, RegionId body, const uint32_t *uses) {
    if (a->code == OP_LOCAL_ALLOC && a->nopnds == 1) return !ir_defined_in(f, a->operands[0], body);
    if (a->code != OP_LOCAL_LOAD || uses[a->results[0]] != 1 ||
        ir_defined_in(f, a->operands[0], body))
        return false;
    if (f->mod->layouts[f->vals[a->results[0]].layout].kind != LAYOUT_BLOCKED)
        return false; /* an mma.sync operand stays */
    const IrOp *src = ir_def(f, a->operands[0]) ? &f->ops[ir_def(f, a->operands[0])] : NULL;
    return src && src->code == OP_LOCAL_ALLOC &&
           src->nopnds == 1; /* a buffer filled once, by its making */
}

/* A loop's dot operand that does not change in the loop (attention's q) goes to shared
 * memory once, before the loop, instead of every iteration: a local_alloc of a value
 * defined outside the loop moves out of it (repeatedly, through nested loops), with a
 * staged operand's move into its K-major buffer. */
static void hoist_buffers(IrFunc *f, RegionId r, const uint32_t *uses) {
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    OpVec out = {0};
    for (uint32_t i = 0; i < n; i++) {
        OpId id = ops[i];
        for (int k = 0; k < f->ops[id].nregions; k++) hoist_buffers(f, f->ops[id].region[k], uses);
        if (f->ops[id].code == OP_FOR || f->ops[id].code == OP_WHILE) {
            for (int k = 0; k < f->ops[id].nregions; k++) {
                RegionId body = f->ops[id].region[k];
                uint32_t nb;
                OpId *bops = ir_region_copy_ops(f, body, &nb);
                OpVec keep = {0};
                for (uint32_t j = 0; j < nb; j++) {
                    const IrOp *a = &f->ops[bops[j]];
                    if (hoistable(f, a, body, uses)) {
                        f->ops[bops[j]].parent = r;
                        opvec_push(&out, bops[j]);
                    } else {
                        opvec_push(&keep, bops[j]);
                    }
                }
                if (keep.n != nb) ir_region_set_ops(f, body, keep.v, keep.n);
                opvec_free(&keep);
                free(bops);
            }
        }
        opvec_push(&out, id);
    }
    if (out.n != n) ir_region_set_ops(f, r, out.v, out.n);
    opvec_free(&out);
    free(ops);
}

/* The block transposes whose operand went to shared memory as it is (mma_operand) are
 * left unused: they go, so that a load's only use is the buffer it fills (what the
 * pipeliner looks for). */
static void drop_dead_trans(IrFunc *f, RegionId r, const uint32_t *uses) {
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    OpVec out = {0};
    for (uint32_t i = 0; i < n; i++) {
        const IrOp *op = &f->ops[ops[i]];
        for (int k = 0; k < op->nregions; k++) drop_dead_trans(f, op->region[k], uses);
        if (op->code == OP_TRANS && !uses[op->results[0]] &&
            ir_type(f, op->operands[0]).dt != DT_SMEM)
            continue;
        opvec_push(&out, ops[i]);
    }
    if (out.n != n) ir_region_set_ops(f, r, out.v, out.n);
    opvec_free(&out);
    free(ops);
}

/* Two buffers made of one value in one layout, the first one's making dominating the
 * second's, both only read: the second is the first. After hoist_buffers, a value that dots
 * of two loops read (attention's backward: k and v in the masked and the unmasked loop over
 * q, q and do in the two loops over k) goes to shared memory before each loop; without this
 * its registers stayed live through the first loop only to fill the second buffer (64
 * registers of fp16 128x64 tiles, at 4 warps, beside both loops' accumulators). `avail`
 * holds the one-operand local_allocs made before the current op in its region or around
 * it (a region's own leave it on return); repl maps a dropped buffer to the one that
 * serves instead. */
static void share_buffers(IrFunc *f, RegionId r, OpVec *avail, ValId *repl) {
    uint32_t n, base = avail->n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    OpVec out = {0};
    bool dropped = false;
    for (uint32_t i = 0; i < n; i++) {
        OpId id = ops[i];
        const IrOp *op = &f->ops[id];
        if (op->code == OP_LOCAL_ALLOC && op->nopnds == 1) {
            ValId x = op->results[0], same = 0;
            for (uint32_t a = 0; a < avail->n && !same; a++) {
                const IrOp *e = &f->ops[avail->v[a]];
                ValId y = e->results[0];
                if (e->operands[0] == op->operands[0] && f->vals[y].layout == f->vals[x].layout &&
                    ty_equal(ir_type(f, y), ir_type(f, x)))
                    same = y;
            }
            if (same && only_read(f, f->body, x) && only_read(f, f->body, same)) {
                repl[x] = same;
                dropped = true;
                continue;
            }
            opvec_push(avail, id);
        }
        opvec_push(&out, id);
        for (int k = 0; k < f->ops[id].nregions; k++)
            share_buffers(f, f->ops[id].region[k], avail, repl);
    }
    if (dropped) ir_region_set_ops(f, r, out.v, out.n);
    avail->n = base;
    opvec_free(&out);
    free(ops);
}

void gpu_lower_dot_operands(IrFunc *f) {
    Lower L = {f, f->mod, {0}};
    lower_region(&L, f->body);
    uint32_t *uses = ir_count_uses(f);
    hoist_buffers(f, f->body, uses);
    drop_dead_trans(f, f->body, uses);
    free(uses);
    OpVec avail = {0};
    ValId *repl = ir_repl_new(f);
    share_buffers(f, f->body, &avail, repl);
    ir_replace_all_uses(f, repl);
    free(repl);
    opvec_free(&avail);
}
