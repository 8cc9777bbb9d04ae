/* llvm_mathfn.c - the math op (erf, tanh, pow, ...: compiler/ir/ir_mathfn.def) on the GPU,
 * one register at a time:
 * - the exact functions (trunc, rint, nearbyint, round, copysign) are LLVM's intrinsics
 *   (cvt.rzi, cvt.rni, ...), correctly rounded on every target;
 * - the others call CUDA libdevice's __nv_NAMEf (fp32) or __nv_NAME (fp64) when the
 *   target names a libdevice file (llvm_libdevice.c links it in afterwards);
 * - without libdevice, fp32 goes to Nereid's own routines (llvm_math_soft.c) and fp64 is
 *   refused with a located error.
 * fp16 and bf16 operands are computed in fp32 and rounded back once. */
#include <stdio.h>

#include "gen_internal.h"

static LLVMValueRef exact(Gen *g, int fn, int dt, LLVMValueRef *x) {
    static const char *const names[] = {[MATH_TRUNC] = "llvm.trunc",
                                        [MATH_RINT] = "llvm.rint",
                                        [MATH_NEARBYINT] = "llvm.rint",
                                        [MATH_ROUND] = "llvm.round",
                                        [MATH_COPYSIGN] = "llvm.copysign"};
    char name[32];
    snprintf(name, sizeof name, "%s.%s", names[fn], dt == DT_FP64 ? "f64" : "f32");
    return gen_intrinsic(g, name, gen_type(g, dt), x, ir_mathfn_info[fn].nargs);
}

static LLVMValueRef libdevice_call(Gen *g, int fn, int dt, LLVMValueRef *x) {
    char name[48];
    snprintf(name, sizeof name, "__nv_%s%s", ir_mathfn_info[fn].name, dt == DT_FP64 ? "" : "f");
    return gen_libdevice_call(g, name, gen_type(g, dt), x, ir_mathfn_info[fn].nargs);
}

/* the functions llvm_math_soft.c has no routine for: libdevice's alone (the Bessel ones) */
static bool libdevice_only(int fn) {
    return fn == MATH_J0 || fn == MATH_J1 || fn == MATH_Y0 || fn == MATH_Y1 ||
           fn == MATH_CYL_BESSEL_I0 || fn == MATH_CYL_BESSEL_I1;
}

LLVMValueRef gen_mathfn(Gen *g, const IrOp *op, int dt, LLVMValueRef *a) {
    int fn = (int)op->attr[0], n = ir_mathfn_info[fn].nargs;
    bool narrow = dt == DT_FP16 || dt == DT_BF16;
    int cdt = narrow ? DT_FP32 : dt;
    LLVMValueRef x[2];
    for (int i = 0; i < n; i++) x[i] = narrow ? LLVMBuildFPExt(g->B, a[i], g->f32, "") : a[i];
    LLVMValueRef r;
    if (ir_mathfn_info[fn].exact) r = exact(g, fn, cdt, x);
    else if (g->target->libdevice) r = libdevice_call(g, fn, cdt, x);
    else if (cdt == DT_FP64 || libdevice_only(fn))
        gen_error(g, op->loc,
                  "%s on %s needs CUDA's libdevice on the GPU, and none was found (set "
                  "NEREID_LIBDEVICE "
                  "to libdevice.10.bc, or CUDA_HOME)",
                  ir_mathfn_info[fn].name, dt_name(cdt));
    else r = gen_math_soft_f32(g, fn, x[0], n > 1 ? x[1] : NULL);
    return narrow ? LLVMBuildFPTrunc(g->B, r, gen_type(g, dt), "") : r;
}
