/* llvm_dot.c - dot, the simple lowering (tensor cores are a later stage): both operands
 * go to shared memory row-major, the CTA synchronises, and each thread accumulates its
 * result elements over k in a loop, in k order with fp32 FMAs (fp16/bf16 products are
 * exact in fp32, so this matches the interpreter bit for bit for those inputs). */
#include "gen_internal.h"

static void stage(Gen *g, ValId v, int offset) {
    IrType t = ir_type(g->f, v);
    int n, eb = dt_bytes(t.dt);
    LLVMValueRef *in = gen_vals(g, v, &n);
    for (int i = 0; i < n; i++) {
        ElemPos p;
        gen_elem_pos(g, v, i, &p);
        LLVMValueRef s = LLVMBuildStore(g->B, in[i], gen_smem_ptr(g, offset, gen_linear(g, p.coord, t), eb));
        LLVMSetAlignment(s, (unsigned)eb);
    }
}

static LLVMValueRef widen(Gen *g, LLVMValueRef x, int dt) {
    if (dt == DT_FP32) return x;
    if (dt == DT_I8) return LLVMBuildSExt(g->B, x, g->i32, "");
    return LLVMBuildFPExt(g->B, x, g->f32, "");
}

void gen_dot(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    ValId a = op->operands[0], b = op->operands[1], c = op->operands[2], r = op->results[0];
    IrType at = ir_type(g->f, a), rt = ir_type(g->f, r);
    int dt = at.dt, eb = dt_bytes(dt), M = at.shape[0], K = at.shape[1], N = rt.shape[1];
    (void)M;
    bool fl = dt != DT_I8;
    if (!op->smem_size) gen_error(g, op->loc, "internal error: dot without shared memory");
    int boff = op->smem_offset + (int)((ty_numel(at) * eb + 15) / 16 * 16);
    stage(g, a, op->smem_offset);
    stage(g, b, boff);
    gen_barrier(g);
    int n;
    LLVMValueRef *acc0 = gen_vals(g, c, &n);
    LayoutDims lr;
    layout_dims(g->m, g->f->vals[r].layout, rt, &lr);
    /* the distinct rows and columns among this thread's result registers */
    LLVMValueRef *row = gen_alloc_regs(g, n), *col = gen_alloc_regs(g, n);
    for (int i = 0; i < n; i++) {
        ElemPos p;
        gen_elem_pos(g, r, i, &p);
        row[i] = p.coord[0], col[i] = p.coord[1];
    }
    LLVMTypeRef acct = fl ? g->f32 : g->i32;
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->B);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(g->C, g->fn, "dot.k");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->fn, "dot.done");
    LLVMBuildBr(g->B, loop);
    LLVMPositionBuilderAtEnd(g->B, loop);
    LLVMValueRef k = LLVMBuildPhi(g->B, g->i32, "k");
    LLVMValueRef *phi = gen_alloc_regs(g, n), *next = gen_alloc_regs(g, n);
    for (int i = 0; i < n; i++) phi[i] = LLVMBuildPhi(g->B, acct, "");
    /* a thread's results span n[0] rows and n[1] columns: load each a[row][k] and b[k][col]
     * once per k, not once per result */
    LLVMTypeRef et = gen_type(g, dt);
    LLVMValueRef *arow = gen_alloc_regs(g, lr.n[0]), *bcol = gen_alloc_regs(g, lr.n[1]);
    for (int i = 0; i < n; i++) {
        int64_t pos[NR_MAX_RANK];
        int idx[NR_MAX_RANK];
        layout_reg_offsets(&lr, g->m, g->f->vals[r].layout, i, pos, idx);
        if (!arow[idx[0]]) {
            LLVMValueRef ai = LLVMBuildAdd(g->B, LLVMBuildMul(g->B, row[i], gen_i32(g, K), ""), k, "");
            LLVMValueRef av = LLVMBuildLoad2(g->B, et, gen_smem_ptr(g, op->smem_offset, ai, eb), "");
            LLVMSetAlignment(av, (unsigned)eb);
            arow[idx[0]] = widen(g, av, dt);
        }
        if (!bcol[idx[1]]) {
            LLVMValueRef bi = LLVMBuildAdd(g->B, LLVMBuildMul(g->B, k, gen_i32(g, N), ""), col[i], "");
            LLVMValueRef bv = LLVMBuildLoad2(g->B, et, gen_smem_ptr(g, boff, bi, eb), "");
            LLVMSetAlignment(bv, (unsigned)eb);
            bcol[idx[1]] = widen(g, bv, dt);
        }
        LLVMValueRef av = arow[idx[0]], bv = bcol[idx[1]];
        next[i] = fl ? gen_intrinsic(g, "llvm.fma.f32", g->f32, (LLVMValueRef[]){av, bv, phi[i]}, 3)
                     : LLVMBuildAdd(g->B, LLVMBuildMul(g->B, av, bv, ""), phi[i], "");
    }
    LLVMValueRef k1 = LLVMBuildAdd(g->B, k, gen_i32(g, 1), "");
    LLVMBasicBlockRef end = LLVMGetInsertBlock(g->B);
    LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, k1, gen_i32(g, K), ""), loop, done);
    LLVMValueRef kz = gen_i32(g, 0);
    LLVMAddIncoming(k, &kz, &pre, 1);
    LLVMAddIncoming(k, &k1, &end, 1);
    for (int i = 0; i < n; i++) {
        LLVMAddIncoming(phi[i], &acc0[i], &pre, 1);
        LLVMAddIncoming(phi[i], &next[i], &end, 1);
    }
    LLVMPositionBuilderAtEnd(g->B, done);
    gen_set(g, r, next, n);
}
