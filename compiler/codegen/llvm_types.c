/* llvm_types.c - LLVM types of IR dtypes, constants, intrinsic calls, and the table of
 * per-value register lists. */
#include <stdarg.h>
#include <string.h>

#include "gen_internal.h"

_Noreturn void gen_error(Gen *g, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(g->diag, loc, fmt, ap);
    va_end(ap);
    longjmp(g->fail, 1);
}

LLVMTypeRef gen_type(Gen *g, int dt) {
    switch (dt) {
    case DT_I1: return g->i1;
    case DT_I8:
    case DT_U8: return g->i8;
    case DT_I16:
    case DT_U16: return g->i16;
    case DT_I32:
    case DT_U32: return g->i32;
    case DT_I64:
    case DT_U64: return g->i64;
    case DT_FP16: return g->f16;
    case DT_BF16: return g->bf16;
    case DT_FP32: return g->f32;
    case DT_FP64: return g->f64;
    case DT_FP8E4NV:
    case DT_FP8E5:
    case DT_FP8E4B15:
    case DT_FP8E4B8:
    case DT_FP8E5B16: return g->i8; /* the byte; llvm_fp8.c converts */
    case DT_PTR: return g->ptr1;
    default: NR_DIE("no LLVM type for dtype %d", dt);
    }
}

LLVMTypeRef gen_mem_type(Gen *g, int dt) { return dt == DT_I1 ? g->i8 : gen_type(g, dt); }

LLVMValueRef gen_i32(Gen *g, int64_t v) { return LLVMConstInt(g->i32, (unsigned long long)v, 1); }
LLVMValueRef gen_i64(Gen *g, int64_t v) { return LLVMConstInt(g->i64, (unsigned long long)v, 1); }

LLVMValueRef gen_const(Gen *g, IrType t, const IrOp *op) {
    LLVMTypeRef ty = gen_type(g, t.dt);
    if (dt_is_fp8(t.dt)) return gen_fp8_const(g, t.dt, op->fattr);
    if (dt_is_float(t.dt)) return LLVMConstReal(ty, op->fattr);
    if (t.dt == DT_PTR) return LLVMConstNull(ty);
    return LLVMConstInt(ty, (unsigned long long)op->attr[0], dt_is_signed(t.dt));
}

LLVMValueRef gen_intrinsic(Gen *g, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n) {
    LLVMTypeRef params[8];
    for (int i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, params, (unsigned)n, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(g->M, name);
    if (!fn) fn = LLVMAddFunction(g->M, name, fty);
    return LLVMBuildCall2(g->B, fty, fn, args, (unsigned)n, "");
}

LLVMValueRef gen_asm(Gen *g, const char *text, const char *cons, LLVMTypeRef ret,
                     LLVMValueRef *args, int n, bool side_effects) {
    LLVMTypeRef *params = arena_alloc(g->m->arena, sizeof(LLVMTypeRef) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, params, (unsigned)n, 0);
    LLVMValueRef a = LLVMGetInlineAsm(fty, (char *)text, strlen(text), (char *)cons, strlen(cons),
                                      side_effects, 0, LLVMInlineAsmDialectATT, 0);
    return LLVMBuildCall2(g->B, fty, a, args, (unsigned)n, "");
}

LLVMValueRef gen_to_mem(Gen *g, LLVMValueRef v, int dt) {
    return dt == DT_I1 ? LLVMBuildZExt(g->B, v, g->i8, "") : v;
}

LLVMValueRef gen_from_mem(Gen *g, LLVMValueRef v, int dt) {
    return dt == DT_I1 ? LLVMBuildICmp(g->B, LLVMIntNE, v, LLVMConstInt(g->i8, 0, 0), "") : v;
}

LLVMValueRef *gen_alloc_regs(Gen *g, int n) {
    return arena_alloc(g->m->arena, sizeof(LLVMValueRef) * (size_t)(n ? n : 1));
}

LLVMValueRef *gen_vals(Gen *g, ValId v, int *n) {
    if (!g->regs[v]) NR_DIE("value %u used before it was lowered", v);
    if (n) *n = g->nregs[v];
    return g->regs[v];
}

void gen_set(Gen *g, ValId v, LLVMValueRef *regs, int n) {
    g->regs[v] = regs;
    g->nregs[v] = n;
}

LLVMValueRef gen_opaque(Gen *g, LLVMValueRef x) {
    if (LLVMIsAConstantInt(x)) return x;
    return gen_asm(g, "mov.b32 $0, $1;", "=r,r", g->i32, &x, 1, false);
}
