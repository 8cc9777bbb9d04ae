/* llvm_debug.c - device_assert and device_print on the GPU. A failed assert calls the
 * CUDA runtime's __assertfail (the driver prints the message and the launch fails with
 * an assert error); print calls vprintf once per element this thread owns. */
#include <string.h>

#include "gen_internal.h"

static LLVMValueRef cstring(Gen *g, const char *s) {
    LLVMValueRef str = LLVMConstStringInContext(g->C, s, (unsigned)strlen(s), 0);
    LLVMValueRef gv = LLVMAddGlobal(g->M, LLVMTypeOf(str), "");
    LLVMSetInitializer(gv, str);
    LLVMSetGlobalConstant(gv, 1);
    LLVMSetLinkage(gv, LLVMPrivateLinkage);
    return gv; /* addrspace 0 global: generic pointer */
}

static LLVMValueRef callee(Gen *g, const char *name, LLVMTypeRef fty) {
    LLVMValueRef f = LLVMGetNamedFunction(g->M, name);
    return f ? f : LLVMAddFunction(g->M, name, fty);
}

static void gen_assert(Gen *g, IrOp *op) {
    int n;
    LLVMValueRef *c = gen_vals(g, op->operands[0], &n);
    LLVMValueRef ok = c[0];
    for (int i = 1; i < n; i++) ok = LLVMBuildAnd(g->B, ok, c[i], "");
    LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(g->C, g->fn, "assert.fail");
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(g->C, g->fn, "assert.ok");
    LLVMBuildCondBr(g->B, ok, cont, fail);
    LLVMPositionBuilderAtEnd(g->B, fail);
    LLVMTypeRef p0 = LLVMPointerTypeInContext(g->C, 0);
    LLVMTypeRef params[5] = {p0, p0, g->i32, p0, g->i64};
    LLVMTypeRef fty = LLVMFunctionType(g->vd, params, 5, 0);
    const char *file = op->loc.src ? op->loc.src->name : "<kernel>";
    LLVMValueRef args[5] = {cstring(g, op->sattr ? op->sattr : "device_assert"), cstring(g, file),
                            gen_i32(g, op->loc.line), cstring(g, g->f->name), gen_i64(g, 1)};
    LLVMBuildCall2(g->B, fty, callee(g, "__assertfail", fty), args, 5, "");
    LLVMBuildBr(g->B, cont);
    LLVMPositionBuilderAtEnd(g->B, cont);
}

static void gen_print(Gen *g, IrOp *op) {
    LLVMTypeRef p0 = LLVMPointerTypeInContext(g->C, 0);
    LLVMTypeRef params[2] = {p0, p0};
    LLVMTypeRef fty = LLVMFunctionType(g->i32, params, 2, 0);
    LLVMValueRef vprintf = callee(g, "vprintf", fty);
    for (uint32_t k = 0; k < op->nopnds; k++) {
        ValId v = op->operands[k];
        IrType t = ir_type(g->f, v);
        int n;
        LLVMValueRef *regs = gen_vals(g, v, &n);
        bool fl = dt_is_float(t.dt);
        const char *fmt = fl            ? "pid (%d, %d, %d) %s%f\n"
                          : op->attr[0] ? "pid (%d, %d, %d) %s0x%llx\n"
                                        : "pid (%d, %d, %d) %s%lld\n";
        LLVMValueRef fs = cstring(g, fmt), prefix = cstring(g, op->sattr ? op->sattr : "");
        LLVMTypeRef fields[5] = {g->i32, g->i32, g->i32, p0, fl ? g->f64 : g->i64};
        LLVMTypeRef st = LLVMStructTypeInContext(g->C, fields, 5, 0);
        for (int i = 0; i < n; i++) {
            LLVMBasicBlockRef saved = gen_enter_prologue(g);
            LLVMValueRef buf = LLVMBuildAlloca(g->B, st, "");
            gen_leave_prologue(g, saved);
            LLVMValueRef vals[5] = {
                gen_intrinsic(g, "llvm.nvvm.read.ptx.sreg.ctaid.x", g->i32, NULL, 0),
                gen_intrinsic(g, "llvm.nvvm.read.ptx.sreg.ctaid.y", g->i32, NULL, 0),
                gen_intrinsic(g, "llvm.nvvm.read.ptx.sreg.ctaid.z", g->i32, NULL, 0), prefix,
                fl ? LLVMBuildFPExt(g->B, regs[i], g->f64, "")
                   : (dt_is_signed(t.dt) ? LLVMBuildSExt(g->B, regs[i], g->i64, "")
                                         : LLVMBuildZExt(g->B, regs[i], g->i64, ""))};
            if (!fl && t.dt == DT_I64) vals[4] = regs[i];
            if (!fl && t.dt == DT_PTR) vals[4] = LLVMBuildPtrToInt(g->B, regs[i], g->i64, "");
            if (fl && t.dt == DT_FP64) vals[4] = regs[i];
            for (unsigned f = 0; f < 5; f++)
                LLVMBuildStore(g->B, vals[f], LLVMBuildStructGEP2(g->B, st, buf, f, ""));
            LLVMValueRef args[2] = {fs, LLVMBuildAddrSpaceCast(g->B, buf, p0, "")};
            LLVMValueRef once = gen_unique(g, v, i); /* a replicated element prints once */
            LLVMBasicBlockRef yes = NULL, done = NULL;
            if (once) {
                yes = LLVMAppendBasicBlockInContext(g->C, g->fn, "print");
                done = LLVMAppendBasicBlockInContext(g->C, g->fn, "print.done");
                LLVMBuildCondBr(g->B, once, yes, done);
                LLVMPositionBuilderAtEnd(g->B, yes);
            }
            LLVMBuildCall2(g->B, fty, vprintf, args, 2, "");
            if (once) {
                LLVMBuildBr(g->B, done);
                LLVMPositionBuilderAtEnd(g->B, done);
            }
        }
    }
}

void gen_debug(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    if (op->code == OP_ASSERT) gen_assert(g, op);
    else gen_print(g, op);
}
