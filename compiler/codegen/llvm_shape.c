/* llvm_shape.c - ops that move elements between positions: broadcast, expand_dims,
 * reshape, trans and convert_layout.
 *
 * When the source element of every result register sits in the same thread (a
 * broadcast within one blocked layout; expand_dims of a slice of the result's layout),
 * the result is a re-indexing of registers. Otherwise the op goes through shared
 * memory: every thread writes its source elements at their row-major index, the CTA
 * synchronises, and every thread reads the source element each of its result elements
 * comes from. */
#include "gen_internal.h"

bool gpu_op_is_local(const IrFunc *f, OpId id);

/* index of the source element for result coordinates c */
static void source_coord(Gen *g, const IrOp *op, IrType src, IrType dst, LLVMValueRef *c, LLVMValueRef *out) {
    switch (op->code) {
    case OP_BROADCAST:
        for (int d = 0; d < src.rank; d++) out[d] = src.shape[d] == 1 && dst.shape[d] != 1 ? gen_i32(g, 0) : c[d];
        return;
    case OP_EXPAND_DIMS:
        for (int d = 0, k = 0; d < dst.rank; d++)
            if (d != op->attr[0]) out[k++] = c[d];
        return;
    case OP_TRANS:
        for (int i = 0; i < dst.rank; i++) out[op->attr[i]] = c[i];
        return;
    case OP_RESHAPE: { /* same row-major index: leave it linear in out[0] */
        out[0] = gen_linear(g, c, dst);
        return;
    }
    default:
        for (int d = 0; d < dst.rank; d++) out[d] = c[d];
    }
}

static void local_remap(Gen *g, const IrOp *op) {
    ValId s = op->operands[0], r = op->results[0];
    IrType st = ir_type(g->f, s), rt = ir_type(g->f, r);
    LayoutDims ls, lr;
    layout_dims(g->m, g->f->vals[s].layout, st, &ls);
    layout_dims(g->m, g->f->vals[r].layout, rt, &lr);
    LLVMValueRef *in = gen_vals(g, s, NULL), *out = gen_alloc_regs(g, lr.nregs);
    for (int i = 0; i < lr.nregs; i++) {
        int64_t pos[NR_MAX_RANK];
        int idx[NR_MAX_RANK];
        layout_reg_offsets(&lr, g->m, g->f->vals[r].layout, i, pos, idx);
        int src = 0;
        for (int d = 0, k = 0; d < rt.rank; d++) {
            if (op->code == OP_EXPAND_DIMS && d == op->attr[0]) continue;
            int sd = op->code == OP_EXPAND_DIMS ? k++ : d;
            int id = st.shape[sd] == 1 ? 0 : idx[d];
            src += id * ls.stride[sd];
        }
        out[i] = in[src];
    }
    gen_set(g, r, out, lr.nregs);
}

static void smem_remap(Gen *g, const IrOp *op) {
    ValId s = op->operands[0], r = op->results[0];
    IrType st = ir_type(g->f, s), rt = ir_type(g->f, r);
    int dt = st.dt, eb = dt == DT_I1 ? 1 : dt_bytes(dt), ns;
    LLVMTypeRef mt = gen_mem_type(g, dt);
    LLVMValueRef *in = gen_vals(g, s, &ns);
    for (int i = 0; i < ns; i++) {
        ElemPos p;
        gen_elem_pos(g, s, i, &p);
        LLVMValueRef ptr = gen_smem_ptr(g, op->smem_offset, gen_linear(g, p.coord, st), eb);
        LLVMValueRef w = LLVMBuildStore(g->B, gen_to_mem(g, in[i], dt), ptr);
        LLVMSetAlignment(w, (unsigned)eb);
    }
    gen_barrier(g);
    LayoutDims lr;
    layout_dims(g->m, g->f->vals[r].layout, rt, &lr);
    LLVMValueRef *out = gen_alloc_regs(g, lr.nregs);
    for (int i = 0; i < lr.nregs; i++) {
        ElemPos p;
        gen_elem_pos(g, r, i, &p);
        LLVMValueRef sc[NR_MAX_RANK];
        source_coord(g, op, st, rt, p.coord, sc);
        LLVMValueRef lin = op->code == OP_RESHAPE ? sc[0] : gen_linear(g, sc, st);
        LLVMValueRef x = LLVMBuildLoad2(g->B, mt, gen_smem_ptr(g, op->smem_offset, lin, eb), "");
        LLVMSetAlignment(x, (unsigned)eb);
        out[i] = gen_from_mem(g, x, dt);
    }
    gen_set(g, r, out, lr.nregs);
}

void gen_shape(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    if (!ir_type(g->f, op->operands[0]).rank) { /* a scalar: every register is it */
        int n;
        LLVMValueRef s = gen_vals(g, op->operands[0], NULL)[0];
        IrType rt = ir_type(g->f, op->results[0]);
        LayoutDims lr;
        layout_dims(g->m, g->f->vals[op->results[0]].layout, rt, &lr);
        n = lr.nregs;
        LLVMValueRef *out = gen_alloc_regs(g, n);
        for (int i = 0; i < n; i++) out[i] = s;
        gen_set(g, op->results[0], out, n);
        return;
    }
    if (gpu_op_is_local(g->f, id)) return local_remap(g, op);
    if (!op->smem_size) gen_error(g, op->loc, "internal error: '%s' needs shared memory but none was allocated", ir_op_info[op->code].name);
    smem_remap(g, op);
}
