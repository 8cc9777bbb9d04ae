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
 *   8-bit (i8, fp8) and tf32 tiles must have K contiguous.
 * fp8 operands of any other dot (mma.sync has no fp8 form on sm_80, the CUDA cores none at
 * all) are widened to fp16 first, which holds every fp8 value exactly.
 * - any other (the CUDA cores): A and B from shared memory, A with M contiguous and B with
 *   N contiguous, so each thread reads the run of rows and of columns it accumulates at
 *   each k as one vector. */
#include <stdlib.h>
#include <string.h>

#include "../analysis/layout_moves.h"
#include "../passes/rewrite.h"
#include "gpu_passes.h"
#include "layout_policy.h"

typedef struct Lower {
    IrFunc *f;
    IrModule *m;
    OpVec out; /* the region being rebuilt */
} Lower;

/* The dim along which a block's registers hold consecutive elements (its first
 * register basis's), or its last dim. */
static int fast_dim(const IrModule *m, uint32_t layout, IrType t) {
    LinearLayout l;
    ir_layout_linear(m, layout, t, &l);
    for (int d = 0; l.nbits[LL_REG] && d < t.rank; d++)
        if (l.basis[LL_REG][0] == 1u << ll_dim_shift(&l, d)) return d;
    return t.rank - 1;
}

static ValId emit(Lower *L, int code, Loc loc, const ValId *opnds, uint32_t n, IrType t, uint32_t layout) {
    OpId op = ir_op_new(L->f, code, loc, opnds, n, &t, 1);
    ValId r = L->f->ops[op].results[0];
    L->f->vals[r].layout = layout;
    opvec_push(&L->out, op);
    return r;
}

/* x (a block) into a one-stage buffer laid out by shared layout sl. */
static ValId to_smem(Lower *L, ValId x, IrLayout sl, Loc loc) {
    IrType t = ir_type(L->f, x);
    IrType bt = ty_smem(t.dt, t.rank, t.shape, 1);
    return emit(L, OP_LOCAL_ALLOC, loc, &x, 1, bt, ir_layout_intern(L->m, &sl));
}

static uint32_t dot_op(Lower *L, uint32_t parent, int idx, int dt) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_DOT_OP, l.rank = 2, l.op_idx = (uint8_t)idx, l.parent = parent, l.k_width = (uint8_t)policy_k_width(dt);
    return ir_layout_intern(L->m, &l);
}

/* Operand i of a tensor-core dot: in registers (a dot_op conversion that stays in
 * registers) or a buffer; *load says whether mma.sync still has to read the buffer into
 * its dot_op layout. */
static ValId mma_operand(Lower *L, ValId x, int i, uint32_t result_layout, Loc loc, uint32_t *load) {
    IrType t = ir_type(L->f, x);
    bool regs_ok = L->m->layouts[result_layout].version == 2 || i == 0;
    /* (wgmma's B never goes to registers: its dot_op layout would be invalid, so it is
     * not made at all, not even left unused in the table) */
    uint32_t want = regs_ok ? dot_op(L, result_layout, i, t.dt) : 0;
    const IrLayout *rl = &L->m->layouts[result_layout];
    *load = 0;
    if (regs_ok && moves_convert_is_local(L->m, L->f->vals[x].layout, want, t))
        return emit(L, OP_CONVERT_LAYOUT, loc, &x, 1, t, want);
    int fast = fast_dim(L->m, L->f->vals[x].layout, t);
    if (rl->version == 3 && dt_bits(t.dt) != 16) fast = i == 0 ? 1 : 0; /* K contiguous */
    if (rl->version == 2) *load = want;
    return to_smem(L, x, policy_shared(t, fast), loc);
}

/* Both operands' buffers are filled before either is read, so one barrier serves both
 * and neither buffer's space is reused by the other. */
static void lower_dot(Lower *L, OpId id) {
    uint32_t rl = L->f->vals[L->f->ops[id].results[0]].layout, load[2] = {0, 0};
    Loc loc = L->f->ops[id].loc;
    ValId opnds[2];
    const IrLayout *r = &L->m->layouts[rl];
    bool wgmma = r->kind == LAYOUT_MMA && r->version == 3;
    for (int i = 0; i < 2; i++) {
        ValId x = L->f->ops[id].operands[i];
        IrType t = ir_type(L->f, x);
        if (t.dt != DT_SMEM && dt_is_fp8(t.dt) && !wgmma) { /* only wgmma reads fp8: widen it, exactly */
            IrType h = ty_with_elem(t, ty_scalar(DT_FP16));
            x = emit(L, OP_CVT, loc, &x, 1, h, L->f->vals[x].layout);
            t = h;
        }
        if (t.dt == DT_SMEM || L->m->layouts[L->f->vals[x].layout].kind == LAYOUT_DOT_OP) {
            opnds[i] = x; /* already lowered */
            continue;
        }
        if (L->m->layouts[rl].kind == LAYOUT_MMA) opnds[i] = mma_operand(L, x, i, rl, loc, &load[i]);
        else opnds[i] = to_smem(L, x, policy_shared_plain(2, i == 0 ? 0 : 1), loc);
    }
    for (int i = 0; i < 2; i++)
        if (load[i]) {
            IrType t = ir_type(L->f, opnds[i]);
            opnds[i] = emit(L, OP_LOCAL_LOAD, loc, &opnds[i], 1, ty_block(ty_scalar(t.pointee), t.rank, t.shape), load[i]);
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

void gpu_lower_dot_operands(IrFunc *f) {
    Lower L = {f, f->mod, {0}};
    lower_region(&L, f->body);
}
