/* llvm_gather.c - gather and histogram, through the op's scratch in shared memory.
 *
 * gather: the owners of the source's elements write them at their row-major indices, a
 * barrier, then each result register reads the source element at its own coordinates
 * with the axis coordinate replaced by the index's low bits (the index modulo the axis's
 * length, as ir_ops.def says). The result is in the index's layout.
 *
 * histogram: the threads zero the bins (num_bins i32 counters), a barrier, every element
 * (its owner only: copies count once) whose mask holds and whose value is a bin adds 1
 * to it with a shared-memory atomic, a barrier, and each result register reads its bin. */
#include "gen_internal.h"

static LLVMValueRef to_i32(Gen *g, LLVMValueRef v, int dt) {
    int w = dt_bits(dt);
    if (w == 32) return v;
    if (w > 32) return LLVMBuildTrunc(g->B, v, g->i32, "");
    return dt_is_signed(dt) ? LLVMBuildSExt(g->B, v, g->i32, "")
                            : LLVMBuildZExt(g->B, v, g->i32, "");
}

/* Writes every element of x (its owners) into the scratch at its row-major index. */
static void spill(Gen *g, const IrOp *op, ValId x, int eb) {
    const GenLayout *xl = gen_layout(g, x);
    int dt = ir_type(g->f, x).dt, n = gen_nregs(g, x);
    LLVMValueRef *v = gen_vals(g, x, NULL);
    for (int r = 0; r < n; r++) {
        LLVMValueRef once = gen_layout_unique(g, xl, r);
        if (once && LLVMIsAConstantInt(once) && !LLVMConstIntGetZExtValue(once)) continue;
        LLVMValueRef c[NR_MAX_RANK];
        gen_layout_pos(g, xl, r, c);
        LLVMValueRef idx = gen_linear(g, c, ir_type(g->f, x));
        gen_store_if(g, once, gen_to_mem(g, v[r], dt), gen_smem_ptr(g, op->smem_offset, idx, eb),
                     (unsigned)eb);
    }
}

static void gather(Gen *g, const IrOp *op) {
    ValId x = op->operands[0], ix = op->operands[1], res = op->results[0];
    IrType xt = ir_type(g->f, x);
    int axis = (int)op->attr[0], dt = xt.dt, eb = dt == DT_I1 ? 1 : dt_bytes(dt),
        idt = ir_type(g->f, ix).dt;
    if (!op->smem_size) gen_error(g, op->loc, "internal error: gather without shared memory");
    spill(g, op, x, eb);
    gen_barrier(g);
    int n = gen_nregs(g, res);
    LLVMValueRef *index = gen_vals(g, ix, NULL), *out = gen_alloc_regs(g, n);
    for (int r = 0; r < n; r++) {
        LLVMValueRef c[NR_MAX_RANK];
        gen_elem_pos(g, res, r, c);
        c[axis] = LLVMBuildAnd(g->B, to_i32(g, index[r], idt), gen_i32(g, xt.shape[axis] - 1), "");
        LLVMValueRef v =
            LLVMBuildLoad2(g->B, gen_mem_type(g, dt),
                           gen_smem_ptr(g, op->smem_offset, gen_linear(g, c, xt), eb), "");
        LLVMSetAlignment(v, (unsigned)eb);
        out[r] = gen_from_mem(g, v, dt);
    }
    gen_set(g, res, out, n);
}

/* counter[b] = 0 for every b, the CTA's threads striding over the bins */
static void zero_bins(Gen *g, const IrOp *op, int bins) {
    int threads = 32 * g->num_warps;
    for (int base = 0; base < bins; base += threads) {
        LLVMValueRef b = gen_add_const(g, g->tid, base);
        LLVMValueRef in = base + threads <= bins
                              ? NULL
                              : LLVMBuildICmp(g->B, LLVMIntULT, b, gen_i32(g, bins), "");
        gen_store_if(g, in, gen_i32(g, 0), gen_smem_ptr(g, op->smem_offset, b, 4), 4);
    }
}

static void histogram(Gen *g, const IrOp *op) {
    ValId x = op->operands[0], res = op->results[0];
    int dt = ir_type(g->f, x).dt, bins = ir_type(g->f, res).shape[0], n = gen_nregs(g, x);
    if (!op->smem_size) gen_error(g, op->loc, "internal error: histogram without shared memory");
    const GenLayout *xl = gen_layout(g, x);
    LLVMValueRef *v = gen_vals(g, x, NULL),
                 *m = op->nopnds > 1 ? gen_vals(g, op->operands[1], NULL) : NULL;
    zero_bins(g, op, bins);
    gen_barrier(g);
    LLVMTypeRef ty = gen_type(g, dt);
    for (int r = 0; r < n; r++) {
        LLVMValueRef once = gen_layout_unique(g, xl, r);
        if (once && LLVMIsAConstantInt(once) && !LLVMConstIntGetZExtValue(once)) continue;
        LLVMValueRef ok = LLVMBuildICmp(g->B, LLVMIntULT, v[r],
                                        LLVMConstInt(ty, (unsigned long long)bins, 0), "");
        /* unsigned below bins: a negative signed value is a huge unsigned one */
        ok = gen_and(g, gen_and(g, ok, once), m ? m[r] : NULL);
        LLVMBasicBlockRef add_bb = LLVMAppendBasicBlockInContext(g->C, g->fn, "hist.add");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->C, g->fn, "hist.join");
        LLVMBuildCondBr(g->B, ok, add_bb, join);
        LLVMPositionBuilderAtEnd(g->B, add_bb);
        LLVMValueRef p = gen_smem_ptr(g, op->smem_offset, to_i32(g, v[r], dt), 4);
        LLVMBuildAtomicRMW(g->B, LLVMAtomicRMWBinOpAdd, p, gen_i32(g, 1),
                           LLVMAtomicOrderingMonotonic, 0);
        LLVMBuildBr(g->B, join);
        LLVMPositionBuilderAtEnd(g->B, join);
    }
    gen_barrier(g);
    int nr = gen_nregs(g, res);
    LLVMValueRef *out = gen_alloc_regs(g, nr);
    for (int r = 0; r < nr; r++) {
        LLVMValueRef c[NR_MAX_RANK];
        gen_elem_pos(g, res, r, c);
        out[r] = LLVMBuildLoad2(g->B, g->i32, gen_smem_ptr(g, op->smem_offset, c[0], 4), "");
        LLVMSetAlignment(out[r], 4);
    }
    gen_set(g, res, out, nr);
}

void gen_gather(Gen *g, OpId id) {
    const IrOp *op = &g->f->ops[id];
    if (op->code == OP_GATHER) gather(g, op);
    else histogram(g, op);
}
