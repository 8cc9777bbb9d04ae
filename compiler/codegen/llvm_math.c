/* llvm_math.c - accurate fp32 sin, cos, log and log2 in LLVM IR (the PTX sin.approx /
 * cos.approx lose all accuracy beyond |x| = pi and lg2.approx all relative accuracy near
 * 1). As libdevice and cephes do: sin/cos reduce x by multiples of pi/2 with a three-part
 * Cody-Waite constant and FMAs, then evaluate minimax polynomials on [-pi/4, pi/4] and
 * pick by quadrant; log splits x into 2^e * m with m in [sqrt(1/2), sqrt(2)) through the
 * bits and evaluates a polynomial in m - 1. The errors measured on an H200 are in
 * docs/language.md (section 13); tests/gpu/math_accuracy.c measures them. */
#include <math.h>

#include "gen_internal.h"

static LLVMValueRef cf(Gen *g, double v) { return LLVMConstReal(g->f32, v); }
static LLVMValueRef fma3(Gen *g, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
    return gen_intrinsic(g, "llvm.fma.f32", g->f32, (LLVMValueRef[]){a, b, c}, 3);
}
static LLVMValueRef fmul2(Gen *g, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildFMul(g->B, a, b, "");
}

/* c[0] + x * (c[1] + x * (...)) by Horner with FMAs */
static LLVMValueRef poly(Gen *g, LLVMValueRef x, const double *c, int n) {
    LLVMValueRef r = cf(g, c[n - 1]);
    for (int i = n - 2; i >= 0; i--) r = fma3(g, r, x, cf(g, c[i]));
    return r;
}

LLVMValueRef gen_sincos_f32(Gen *g, LLVMValueRef x, bool cosine) {
    LLVMValueRef k = gen_intrinsic(g, "llvm.rint.f32", g->f32,
                                   (LLVMValueRef[]){fmul2(g, x, cf(g, 0.63661977236758134))}, 1);
    LLVMValueRef nk = LLVMBuildFNeg(g->B, k, "");
    LLVMValueRef r = fma3(g, nk, cf(g, 1.5707963705062866), x); /* pi/2 in three parts */
    r = fma3(g, nk, cf(g, -4.3711388286737929e-08), r);
    r = fma3(g, nk, cf(g, -1.7151245100059164e-15), r);
    LLVMValueRef z = fmul2(g, r, r);
    static const double sc[] = {-1.6666654611e-1, 8.3321608736e-3, -1.9515295891e-4};
    static const double cc[] = {4.166664568298827e-2, -1.388731625493765e-3, 2.443315711809948e-5};
    LLVMValueRef s = fma3(g, fmul2(g, r, z), poly(g, z, sc, 3), r); /* sin r */
    LLVMValueRef c =
        fma3(g, fmul2(g, z, z), poly(g, z, cc, 3), fma3(g, z, cf(g, -0.5), cf(g, 1.0))); /* cos r */
    LLVMValueRef q = LLVMBuildFPToSI(g->B, k, g->i32, "");
    if (cosine) q = LLVMBuildAdd(g->B, q, gen_i32(g, 1), ""); /* cos x = sin(x + pi/2) */
    LLVMValueRef odd =
        LLVMBuildICmp(g->B, LLVMIntNE, LLVMBuildAnd(g->B, q, gen_i32(g, 1), ""), gen_i32(g, 0), "");
    LLVMValueRef neg =
        LLVMBuildICmp(g->B, LLVMIntNE, LLVMBuildAnd(g->B, q, gen_i32(g, 2), ""), gen_i32(g, 0), "");
    LLVMValueRef v = LLVMBuildSelect(g->B, odd, c, s, "");
    v = LLVMBuildSelect(g->B, neg, LLVMBuildFNeg(g->B, v, ""), v, "");
    /* inf and NaN give NaN */
    LLVMValueRef ax = gen_intrinsic(g, "llvm.fabs.f32", g->f32, &x, 1);
    LLVMValueRef fin = LLVMBuildFCmp(g->B, LLVMRealOLT, ax, cf(g, INFINITY), "");
    return LLVMBuildSelect(g->B, fin, v, cf(g, NAN), "");
}

LLVMValueRef gen_log_f32(Gen *g, LLVMValueRef x, bool base2) {
    /* subnormals: scale by 2^23 first */
    LLVMValueRef tiny = LLVMBuildFCmp(g->B, LLVMRealOLT, x, cf(g, 1.1754943508222875e-38), "");
    LLVMValueRef xs = LLVMBuildSelect(g->B, tiny, fmul2(g, x, cf(g, 8388608.0)), x, "");
    LLVMValueRef bias = LLVMBuildSelect(g->B, tiny, gen_i32(g, 127 + 23), gen_i32(g, 127), "");
    LLVMValueRef ix = LLVMBuildBitCast(g->B, xs, g->i32, "");
    LLVMValueRef e = LLVMBuildSub(g->B, LLVMBuildLShr(g->B, ix, gen_i32(g, 23), ""), bias, "");
    LLVMValueRef m =
        LLVMBuildBitCast(g->B,
                         LLVMBuildOr(g->B, LLVMBuildAnd(g->B, ix, gen_i32(g, 0x7fffff), ""),
                                     gen_i32(g, 0x3f800000), ""),
                         g->f32, "");
    LLVMValueRef big = LLVMBuildFCmp(g->B, LLVMRealOGT, m, cf(g, 1.4142135623730951), "");
    m = LLVMBuildSelect(g->B, big, fmul2(g, m, cf(g, 0.5)), m, "");
    e = LLVMBuildSelect(g->B, big, LLVMBuildAdd(g->B, e, gen_i32(g, 1), ""), e, "");
    LLVMValueRef f = LLVMBuildFSub(g->B, m, cf(g, 1.0), "");
    LLVMValueRef z = fmul2(g, f, f);
    static const double lc[] = {3.3333331174e-1,  -2.4999993993e-1, 2.0000714765e-1,
                                -1.6668057665e-1, 1.4249322787e-1,  -1.2420140846e-1,
                                1.1676998740e-1,  -1.1514610310e-1, 7.0376836292e-2};
    LLVMValueRef y = fmul2(g, fmul2(g, f, z), poly(g, f, lc, 9));
    y = fma3(g, z, cf(g, -0.5), y);
    LLVMValueRef ef = LLVMBuildSIToFP(g->B, e, g->f32, "");
    LLVMValueRef r;
    if (base2) {
        r = LLVMBuildFAdd(
            g->B, fma3(g, f, cf(g, 1.4426950408889634), fmul2(g, y, cf(g, 1.4426950408889634))), ef,
            "");
    } else {
        r = fma3(g, ef, cf(g, -2.12194440e-4), y);
        r = LLVMBuildFAdd(g->B, r, f, "");
        r = fma3(g, ef, cf(g, 0.693359375), r);
    }
    /* log(0) = -inf, log(x < 0) = NaN, log(inf) = inf, log(NaN) = NaN */
    r = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOEQ, x, cf(g, INFINITY), ""),
                        cf(g, INFINITY), r, "");
    r = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOEQ, x, cf(g, 0.0), ""), cf(g, -INFINITY),
                        r, "");
    r = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealULT, x, cf(g, 0.0), ""), cf(g, NAN), r,
                        "");
    return r;
}
