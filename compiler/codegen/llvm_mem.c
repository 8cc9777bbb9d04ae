/* llvm_mem.c - loads, stores and atomics.
 *
 * A thread's registers along the fastest dim come in chunks of consecutive elements
 * (spt). Where the alignment facts prove a run of v of them contiguous, v * size
 * aligned and (for masked accesses) under one mask value, the run is one vector access
 * (ld.global.v4 / st.global.v4 for 4 x 32 bits). A mask becomes a branch around the
 * access (masked-off lanes read nothing and take `other`). Stores and atomics are
 * done by one thread per element: duplicates from replicated layouts are masked off,
 * and scalar ones are done by thread 0 (an atomic's old value then reaches the other
 * threads through shared memory). */
#include "gen_internal.h"

static int vector_width(Gen *g, ValId ptr, ValId mask, int eb, int *fast_out) {
    IrType t = ir_type(g->f, ptr);
    *fast_out = 0;
    if (!t.rank) return 1;
    uint32_t lid = g->f->vals[ptr].layout;
    const IrLayout *l = &g->m->layouts[lid];
    if (l->kind != LAYOUT_BLOCKED) return 1;
    int fast = l->order[0];
    *fast_out = fast;
    LayoutDims ld;
    layout_dims(g->m, lid, t, &ld);
    int v = axis_info_vector_width(&g->info[ptr], mask ? &g->info[mask] : NULL, eb, fast);
    while (v > 1 && (ld.e[fast] % v || v * eb > 16)) v /= 2;
    return v < 1 ? 1 : v;
}

static LLVMValueRef guarded(Gen *g, LLVMValueRef cond, LLVMTypeRef ty, LLVMValueRef ptr, unsigned align,
                            LLVMValueRef other) {
    if (!cond) {
        LLVMValueRef v = LLVMBuildLoad2(g->B, ty, ptr, "");
        LLVMSetAlignment(v, align);
        return v;
    }
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(g->B);
    LLVMBasicBlockRef ld = LLVMAppendBasicBlockInContext(g->C, g->fn, "ld");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->C, g->fn, "ld.join");
    LLVMBuildCondBr(g->B, cond, ld, join);
    LLVMPositionBuilderAtEnd(g->B, ld);
    LLVMValueRef v = LLVMBuildLoad2(g->B, ty, ptr, "");
    LLVMSetAlignment(v, align);
    LLVMBuildBr(g->B, join);
    LLVMPositionBuilderAtEnd(g->B, join);
    LLVMValueRef phi = LLVMBuildPhi(g->B, ty, "");
    LLVMValueRef vals[2] = {v, other};
    LLVMBasicBlockRef bbs[2] = {ld, cur};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

static void guarded_store(Gen *g, LLVMValueRef cond, LLVMValueRef val, LLVMValueRef ptr, unsigned align) {
    LLVMBasicBlockRef st = NULL, join = NULL;
    if (cond) {
        st = LLVMAppendBasicBlockInContext(g->C, g->fn, "st");
        join = LLVMAppendBasicBlockInContext(g->C, g->fn, "st.join");
        LLVMBuildCondBr(g->B, cond, st, join);
        LLVMPositionBuilderAtEnd(g->B, st);
    }
    LLVMValueRef s = LLVMBuildStore(g->B, val, ptr);
    LLVMSetAlignment(s, align);
    if (cond) {
        LLVMBuildBr(g->B, join);
        LLVMPositionBuilderAtEnd(g->B, join);
    }
}

static LLVMValueRef and_opt(Gen *g, LLVMValueRef a, LLVMValueRef b) {
    if (!a) return b;
    if (!b) return a;
    return LLVMBuildAnd(g->B, a, b, "");
}

static LLVMValueRef is_thread0(Gen *g) { return LLVMBuildICmp(g->B, LLVMIntEQ, g->tid, gen_i32(g, 0), ""); }

/* The duplicate-free predicate of register r of v (NULL: always). */
static LLVMValueRef unique(Gen *g, ValId v, int r) {
    if (!ir_type(g->f, v).rank) return is_thread0(g);
    ElemPos p;
    gen_elem_pos(g, v, r, &p);
    return and_opt(g, p.valid, gen_owner(g, v));
}

static LLVMValueRef pack(Gen *g, LLVMValueRef *regs, int r, int v, int dt) {
    if (v == 1) return gen_to_mem(g, regs[r], dt);
    LLVMValueRef vec = LLVMGetUndef(LLVMVectorType(gen_mem_type(g, dt), (unsigned)v));
    for (int k = 0; k < v; k++) vec = LLVMBuildInsertElement(g->B, vec, gen_to_mem(g, regs[r + k], dt), gen_i32(g, k), "");
    return vec;
}

static void gen_load(Gen *g, IrOp *op) {
    ValId ptr = op->operands[0], mask = op->nopnds > 1 ? op->operands[1] : 0, oth = op->nopnds > 2 ? op->operands[2] : 0;
    int dt = ir_type(g->f, ptr).pointee, eb = dt_bytes(dt), fast, n;
    int v = vector_width(g, ptr, mask, eb, &fast);
    LLVMValueRef *P = gen_vals(g, ptr, &n), *M = mask ? gen_vals(g, mask, NULL) : NULL, *O = oth ? gen_vals(g, oth, NULL) : NULL;
    LLVMValueRef *out = gen_alloc_regs(g, n);
    LLVMTypeRef et = gen_mem_type(g, dt), ty = v == 1 ? et : LLVMVectorType(et, (unsigned)v);
    for (int r = 0; r < n; r += v) {
        LLVMValueRef other = LLVMConstNull(ty);
        if (M && O) other = pack(g, O, r, v, dt);
        LLVMValueRef x = guarded(g, M ? M[r] : NULL, ty, P[r], (unsigned)(v * eb), other);
        for (int k = 0; k < v; k++)
            out[r + k] = gen_from_mem(g, v == 1 ? x : LLVMBuildExtractElement(g->B, x, gen_i32(g, k), ""), dt);
    }
    gen_set(g, op->results[0], out, n);
}

static void gen_store(Gen *g, IrOp *op) {
    ValId ptr = op->operands[0], val = op->operands[1], mask = op->nopnds > 2 ? op->operands[2] : 0;
    int dt = ir_type(g->f, ptr).pointee, eb = dt_bytes(dt), fast, n;
    int v = vector_width(g, ptr, mask, eb, &fast);
    LLVMValueRef *P = gen_vals(g, ptr, &n), *V = gen_vals(g, val, NULL), *M = mask ? gen_vals(g, mask, NULL) : NULL;
    for (int r = 0; r < n; r += v) {
        LLVMValueRef cond = and_opt(g, M ? M[r] : NULL, unique(g, ptr, r));
        guarded_store(g, cond, pack(g, V, r, v, dt), P[r], (unsigned)(v * eb));
    }
}

static LLVMAtomicRMWBinOp rmw_op(int kind, int dt) {
    bool fl = dt_is_float(dt), sg = dt_is_signed(dt);
    switch (kind) {
    case RMW_ADD: return fl ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd;
    case RMW_MAX: return fl ? LLVMAtomicRMWBinOpFMax : sg ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
    case RMW_MIN: return fl ? LLVMAtomicRMWBinOpFMin : sg ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
    case RMW_XCHG: return LLVMAtomicRMWBinOpXchg;
    case RMW_AND: return LLVMAtomicRMWBinOpAnd;
    case RMW_OR: return LLVMAtomicRMWBinOpOr;
    default: return LLVMAtomicRMWBinOpXor;
    }
}

static LLVMValueRef atomic_one(Gen *g, IrOp *op, int dt, LLVMValueRef cond, LLVMValueRef ptr, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef ty = gen_type(g, dt);
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(g->B);
    LLVMBasicBlockRef doit = LLVMAppendBasicBlockInContext(g->C, g->fn, "atom");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->C, g->fn, "atom.join");
    LLVMBuildCondBr(g->B, cond ? cond : LLVMConstInt(g->i1, 1, 0), doit, join);
    LLVMPositionBuilderAtEnd(g->B, doit);
    LLVMValueRef old;
    if (op->code == OP_ATOMIC_CAS) {
        LLVMValueRef x = LLVMBuildAtomicCmpXchg(g->B, ptr, a, b, LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingMonotonic, 0);
        old = LLVMBuildExtractValue(g->B, x, 0, "");
    } else {
        old = LLVMBuildAtomicRMW(g->B, rmw_op((int)op->attr[0], dt), ptr, a, LLVMAtomicOrderingMonotonic, 0);
    }
    LLVMBuildBr(g->B, join);
    LLVMPositionBuilderAtEnd(g->B, join);
    LLVMValueRef phi = LLVMBuildPhi(g->B, ty, "");
    LLVMValueRef vals[2] = {old, LLVMConstNull(ty)};
    LLVMBasicBlockRef bbs[2] = {doit, cur};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

static void gen_atomic(Gen *g, IrOp *op) {
    ValId ptr = op->operands[0];
    int dt = ir_type(g->f, ptr).pointee, n;
    bool cas = op->code == OP_ATOMIC_CAS;
    LLVMValueRef *P = gen_vals(g, ptr, &n), *A = gen_vals(g, op->operands[1], NULL);
    LLVMValueRef *Bv = cas ? gen_vals(g, op->operands[2], NULL) : NULL;
    LLVMValueRef *M = !cas && op->nopnds > 2 ? gen_vals(g, op->operands[2], NULL) : NULL;
    LLVMValueRef *out = gen_alloc_regs(g, n);
    for (int r = 0; r < n; r++) {
        LLVMValueRef cond = and_opt(g, M ? M[r] : NULL, unique(g, ptr, r));
        out[r] = atomic_one(g, op, dt, cond, P[r], A[r], cas ? Bv[r] : NULL);
    }
    if (!ir_type(g->f, ptr).rank && op->smem_size) { /* thread 0's old value to everyone */
        LLVMValueRef slot = gen_smem_ptr(g, op->smem_offset, gen_i32(g, 0), 8);
        guarded_store(g, is_thread0(g), out[0], slot, 8);
        gen_barrier(g);
        LLVMValueRef v = LLVMBuildLoad2(g->B, gen_type(g, dt), slot, "");
        LLVMSetAlignment(v, 8);
        out[0] = v;
    }
    gen_set(g, op->results[0], out, n);
}

void gen_memory(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    switch (op->code) {
    case OP_LOAD: gen_load(g, op); return;
    case OP_STORE: gen_store(g, op); return;
    default: gen_atomic(g, op); return;
    }
}
