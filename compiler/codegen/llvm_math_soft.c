/* llvm_math_soft.c - the math op's approximated functions (erf, tanh, pow, atan2, ...:
 * compiler/ir/ir_mathfn.def) on fp32 without CUDA's libdevice: Nereid's own routines, used
 * when no libdevice.10.bc is found (llvm_libdevice.c).
 *
 * Each works on the fp32 operands widened to fp64 (exactly) and rounds its fp64 result
 * to fp32 once. The fp64 arithmetic is made accurate to about 1e-13 relative, far below
 * fp32's half ulp (3e-8), so the result is the correctly rounded one except where the
 * exact value lies within about 1e-13 of a rounding boundary: within 1 ulp everywhere
 * (docs/language.md section 13 gives the measured bounds; tests/lit/gpu/math-soft-host.nr
 * runs this code on the host against the C library). The price is fp64 arithmetic:
 * several times slower than libdevice's fp32 code on GPUs with a reduced fp64 rate.
 *
 * Only generic LLVM IR (fp64 arithmetic, llvm.fma/rint/sqrt/fabs/copysign, bit casts), so
 * the routines run unchanged on the host. Five cores:
 * - ln(x), x > 0 finite: x = 2^e m with m in [sqrt(1/2), sqrt(2)) from the bits (a double
 *   from an fp32 is never subnormal); ln m = 2 atanh(f), f = (m - 1) / (m + 1), |f| <=
 *   0.172, by its odd series to f^19;
 * - 2^t: t = n + r, n = rint(t), |r| <= 1/2; e^(r ln 2) by Taylor to degree 13; times 2^n
 *   built in two halves from the exponent bits (so 2^n may underflow or overflow);
 * - atan(u), u >= 0: u > 1 as pi/2 - atan(1/u); u > tan(pi/12) as pi/6 + atan(v), v =
 *   (u sqrt 3 - 1) / (u + sqrt 3), |v| <= 0.268; the odd series to v^31;
 * - erf: below 2.5 the Maclaurin series (to x^81); from 2.5 erfc by 30 levels of its
 *   continued fraction times exp(-x^2) (x^2 is exact in fp64);
 * - sin and cos of r, |r| <= pi/4, by Taylor to degree 21/22, after a three-part
 *   Cody-Waite reduction by pi/2 (accurate while |x| < 2^22; tan beyond that is only
 *   approximate, as is the reduction of Nereid's sin and cos). */
#include <math.h>

#include "gen_internal.h"

static LLVMValueRef cd(Gen *g, double v) { return LLVMConstReal(g->f64, v); }
static LLVMValueRef add(Gen *g, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildFAdd(g->B, a, b, "");
}
static LLVMValueRef sub(Gen *g, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildFSub(g->B, a, b, "");
}
static LLVMValueRef mul(Gen *g, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildFMul(g->B, a, b, "");
}
static LLVMValueRef divd(Gen *g, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildFDiv(g->B, a, b, "");
}
static LLVMValueRef fma3(Gen *g, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
    return gen_intrinsic(g, "llvm.fma.f64", g->f64, (LLVMValueRef[]){a, b, c}, 3);
}
static LLVMValueRef fn1(Gen *g, const char *name, LLVMValueRef x) {
    return gen_intrinsic(g, name, g->f64, &x, 1);
}
static LLVMValueRef fabs_(Gen *g, LLVMValueRef x) { return fn1(g, "llvm.fabs.f64", x); }
static LLVMValueRef sqrt_(Gen *g, LLVMValueRef x) { return fn1(g, "llvm.sqrt.f64", x); }
static LLVMValueRef copysign_(Gen *g, LLVMValueRef x, LLVMValueRef s) {
    return gen_intrinsic(g, "llvm.copysign.f64", g->f64, (LLVMValueRef[]){x, s}, 2);
}
static LLVMValueRef fcmp(Gen *g, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildFCmp(g->B, p, a, b, "");
}
static LLVMValueRef sel(Gen *g, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildSelect(g->B, c, a, b, "");
}
static LLVMValueRef or_(Gen *g, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildOr(g->B, a, b, "");
}
static LLVMValueRef and_(Gen *g, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildAnd(g->B, a, b, "");
}
static LLVMValueRef is_nan(Gen *g, LLVMValueRef x) { return fcmp(g, LLVMRealUNO, x, x); }
static LLVMValueRef is_inf(Gen *g, LLVMValueRef x) {
    return fcmp(g, LLVMRealOEQ, fabs_(g, x), cd(g, INFINITY));
}

/* c[0] + z (c[1] + z (...)) */
static LLVMValueRef horner(Gen *g, LLVMValueRef z, const double *c, int n) {
    LLVMValueRef r = cd(g, c[n - 1]);
    for (int i = n - 2; i >= 0; i--) r = fma3(g, r, z, cd(g, c[i]));
    return r;
}

/* ---- the cores ---- */

/* ln x for a finite x > 0 (other inputs: the callers' selects) */
static LLVMValueRef ln_core(Gen *g, LLVMValueRef x) {
    LLVMValueRef bits = LLVMBuildBitCast(g->B, x, g->i64, "");
    LLVMValueRef e =
        LLVMBuildSub(g->B, LLVMBuildLShr(g->B, bits, gen_i64(g, 52), ""), gen_i64(g, 1023), "");
    LLVMValueRef mb =
        LLVMBuildOr(g->B, LLVMBuildAnd(g->B, bits, gen_i64(g, (INT64_C(1) << 52) - 1), ""),
                    gen_i64(g, INT64_C(1023) << 52), "");
    LLVMValueRef m = LLVMBuildBitCast(g->B, mb, g->f64, "");
    LLVMValueRef big = fcmp(g, LLVMRealOGT, m, cd(g, 1.4142135623730951));
    m = sel(g, big, mul(g, m, cd(g, 0.5)), m);
    e = sel(g, big, LLVMBuildAdd(g->B, e, gen_i64(g, 1), ""), e);
    LLVMValueRef f = divd(g, sub(g, m, cd(g, 1.0)), add(g, m, cd(g, 1.0)));
    LLVMValueRef s = mul(g, f, f);
    double c[10];
    for (int k = 0; k < 10; k++) c[k] = 2.0 / (2 * k + 1);
    LLVMValueRef lnm = mul(g, f, horner(g, s, c, 10));
    return fma3(g, LLVMBuildSIToFP(g->B, e, g->f64, ""), cd(g, 0.69314718055994531), lnm);
}

/* ln x for any x: -inf at 0, NaN below, inf at inf, NaN at NaN */
static LLVMValueRef ln_full(Gen *g, LLVMValueRef x) {
    LLVMValueRef pos = fcmp(g, LLVMRealOGT, x, cd(g, 0.0));
    LLVMValueRef safe =
        sel(g, and_(g, pos, fcmp(g, LLVMRealOLT, x, cd(g, INFINITY))), x, cd(g, 1.0));
    LLVMValueRef r = ln_core(g, safe);
    r = sel(g, fcmp(g, LLVMRealOEQ, x, cd(g, INFINITY)), cd(g, INFINITY), r);
    r = sel(g, fcmp(g, LLVMRealOEQ, x, cd(g, 0.0)), cd(g, -INFINITY), r);
    return sel(g, fcmp(g, LLVMRealULT, x, cd(g, 0.0)), cd(g, NAN), r);
}

/* 2^t for any t (NaN gives NaN; saturates to 0 and inf) */
static LLVMValueRef exp2_core(Gen *g, LLVMValueRef t) {
    LLVMValueRef nan = is_nan(g, t);
    LLVMValueRef c = sel(g, nan, cd(g, 0.0), t);
    c = sel(g, fcmp(g, LLVMRealOGT, c, cd(g, 1100.0)), cd(g, 1100.0), c);
    c = sel(g, fcmp(g, LLVMRealOLT, c, cd(g, -1100.0)), cd(g, -1100.0), c);
    LLVMValueRef n = fn1(g, "llvm.rint.f64", c);
    LLVMValueRef u = mul(g, sub(g, c, n), cd(g, 0.69314718055994531));
    double k[14];
    k[0] = 1;
    for (int i = 1; i < 14; i++) k[i] = k[i - 1] / i;
    LLVMValueRef p = horner(g, u, k, 14);
    LLVMValueRef ni = LLVMBuildFPToSI(g->B, n, g->i64, "");
    LLVMValueRef n1 = LLVMBuildAShr(g->B, ni, gen_i64(g, 1), ""),
                 n2 = LLVMBuildSub(g->B, ni, n1, "");
    LLVMValueRef s1 = LLVMBuildBitCast(
        g->B, LLVMBuildShl(g->B, LLVMBuildAdd(g->B, n1, gen_i64(g, 1023), ""), gen_i64(g, 52), ""),
        g->f64, "");
    LLVMValueRef s2 = LLVMBuildBitCast(
        g->B, LLVMBuildShl(g->B, LLVMBuildAdd(g->B, n2, gen_i64(g, 1023), ""), gen_i64(g, 52), ""),
        g->f64, "");
    return sel(g, nan, t, mul(g, mul(g, p, s1), s2));
}

static LLVMValueRef exp_d(Gen *g, LLVMValueRef x) {
    return exp2_core(g, mul(g, x, cd(g, 1.4426950408889634)));
}

/* atan u for u >= 0 (inf included); NaN passes through */
static LLVMValueRef atan_core(Gen *g, LLVMValueRef u) {
    LLVMValueRef big = fcmp(g, LLVMRealOGT, u, cd(g, 1.0));
    LLVMValueRef w = sel(g, big, divd(g, cd(g, 1.0), u), u);
    LLVMValueRef mid = fcmp(g, LLVMRealOGT, w, cd(g, 0.26794919243112270));
    LLVMValueRef s3 = cd(g, 1.7320508075688772);
    LLVMValueRef v = sel(g, mid, divd(g, fma3(g, w, s3, cd(g, -1.0)), add(g, w, s3)), w);
    LLVMValueRef z = mul(g, v, v);
    double c[16];
    for (int k = 0; k < 16; k++) c[k] = (k & 1 ? -1.0 : 1.0) / (2 * k + 1);
    LLVMValueRef a = mul(g, v, horner(g, z, c, 16));
    a = sel(g, mid, add(g, a, cd(g, 0.52359877559829887)), a);
    return sel(g, big, sub(g, cd(g, 1.5707963267948966), a), a);
}

/* erfc x for x >= 2.5: exp(-x^2) / sqrt(pi) over the continued fraction */
static LLVMValueRef erfc_tail(Gen *g, LLVMValueRef x) {
    LLVMValueRef f = x;
    for (int k = 30; k >= 1; k--) f = add(g, x, divd(g, cd(g, k / 2.0), f));
    LLVMValueRef e =
        exp2_core(g, mul(g, LLVMBuildFNeg(g->B, mul(g, x, x), ""), cd(g, 1.4426950408889634)));
    return divd(g, e, mul(g, f, cd(g, 1.7724538509055160)));
}

/* erf x for |x| < 2.5 by its series (other x: a finite value the caller replaces) */
static LLVMValueRef erf_series(Gen *g, LLVMValueRef x) {
    double c[41], fact = 1;
    for (int n = 0; n <= 40; n++) {
        if (n) fact *= n;
        c[n] = (n & 1 ? -1.0 : 1.0) / (fact * (2 * n + 1)) * 1.1283791670955126;
    }
    LLVMValueRef xs = sel(g, fcmp(g, LLVMRealOLT, fabs_(g, x), cd(g, 2.5)), x, cd(g, 0.0));
    return mul(g, xs, horner(g, mul(g, xs, xs), c, 41));
}

/* erf (want_c false) or erfc of any x */
static LLVMValueRef erf_any(Gen *g, LLVMValueRef x, bool want_c) {
    LLVMValueRef ax = fabs_(g, x);
    LLVMValueRef tail = fcmp(g, LLVMRealOGE, ax, cd(g, 2.5));
    LLVMValueRef tx = sel(g, and_(g, tail, fcmp(g, LLVMRealOLT, ax, cd(g, 30.0))), ax, cd(g, 30.0));
    LLVMValueRef ec = erfc_tail(g, tx); /* erfc |x| for |x| >= 2.5 (0 from 30 on) */
    ec = sel(g, fcmp(g, LLVMRealOLT, ax, cd(g, 30.0)), ec, cd(g, 0.0));
    LLVMValueRef es = erf_series(g, x);
    if (!want_c) {
        LLVMValueRef big = copysign_(g, sub(g, cd(g, 1.0), ec), x);
        return sel(g, is_nan(g, x), x, sel(g, tail, big, es));
    }
    LLVMValueRef neg = fcmp(g, LLVMRealOLT, x, cd(g, 0.0));
    LLVMValueRef big = sel(g, neg, sub(g, cd(g, 2.0), ec), ec);
    return sel(g, is_nan(g, x), x, sel(g, tail, big, sub(g, cd(g, 1.0), es)));
}

/* sin and cos of x (|x| < 2^22 for accuracy) as s, c and the quadrant's parity and sign */
static void sincos_d(Gen *g, LLVMValueRef x, LLVMValueRef *s, LLVMValueRef *c, LLVMValueRef *odd) {
    LLVMValueRef k = fn1(g, "llvm.rint.f64", mul(g, x, cd(g, 0.63661977236758134)));
    LLVMValueRef nk = LLVMBuildFNeg(g->B, k, "");
    /* pi/2 in three parts of 30, 30 and 53 bits: k * part is exact for |k| < 2^23 */
    LLVMValueRef r = fma3(g, nk, cd(g, 0x1.921fb548p+0), x);
    r = fma3(g, nk, cd(g, -0x1.de973dc8p-31), r);
    r = fma3(g, nk, cd(g, -0x1.9d9cceba3f91fp-62), r);
    LLVMValueRef z = mul(g, r, r);
    double sc[11], cc[12], f = 1;
    for (int i = 1; i <= 22; i++) {
        f *= i;
        if (i & 1) sc[i / 2] = ((i / 2) & 1 ? -1.0 : 1.0) / f;
        else cc[i / 2] = ((i / 2) & 1 ? -1.0 : 1.0) / f;
    }
    cc[0] = 1;
    *s = mul(g, r, horner(g, z, sc, 11));
    *c = horner(g, z, cc, 12);
    LLVMValueRef q = LLVMBuildFPToSI(g->B, sel(g, is_nan(g, k), cd(g, 0.0), k), g->i64, "");
    *odd =
        LLVMBuildICmp(g->B, LLVMIntNE, LLVMBuildAnd(g->B, q, gen_i64(g, 1), ""), gen_i64(g, 0), "");
}

/* ---- the functions, on fp64 operands holding fp32 values ---- */

static LLVMValueRef pow_d(Gen *g, LLVMValueRef x, LLVMValueRef y) {
    LLVMValueRef ax = fabs_(g, x);
    LLVMValueRef l2 = mul(g, ln_full(g, ax), cd(g, 1.4426950408889634));
    LLVMValueRef t = mul(g, y, l2);
    t = sel(g, fcmp(g, LLVMRealOEQ, ax, cd(g, 1.0)), cd(g, 0.0),
            t); /* |x| = 1: 1 even for y = inf */
    LLVMValueRef r = exp2_core(g, t);
    /* a negative x (-0 and -inf included): an odd integer y keeps the sign, a
     * non-integer y gives NaN for a finite x */
    LLVMValueRef yint = fcmp(g, LLVMRealOEQ, fn1(g, "llvm.trunc.f64", y), y);
    LLVMValueRef half = mul(g, y, cd(g, 0.5));
    LLVMValueRef yodd = and_(g, yint, fcmp(g, LLVMRealONE, fn1(g, "llvm.trunc.f64", half), half));
    LLVMValueRef xneg =
        LLVMBuildICmp(g->B, LLVMIntSLT, LLVMBuildBitCast(g->B, x, g->i64, ""), gen_i64(g, 0), "");
    r = sel(g, and_(g, xneg, yodd), LLVMBuildFNeg(g->B, r, ""), r);
    LLVMValueRef fin_neg =
        and_(g, fcmp(g, LLVMRealOLT, x, cd(g, 0.0)), fcmp(g, LLVMRealOGT, x, cd(g, -INFINITY)));
    LLVMValueRef bad = and_(
        g, fin_neg, and_(g, LLVMBuildNot(g->B, yint, ""), LLVMBuildNot(g->B, is_inf(g, y), "")));
    r = sel(g, bad, cd(g, NAN), r);
    r = sel(g, or_(g, is_nan(g, x), is_nan(g, y)), cd(g, NAN), r);
    /* pow(x, +-0) = 1 and pow(1, y) = 1, NaN included */
    return sel(g, or_(g, fcmp(g, LLVMRealOEQ, y, cd(g, 0.0)), fcmp(g, LLVMRealOEQ, x, cd(g, 1.0))),
               cd(g, 1.0), r);
}

static LLVMValueRef atan2_d(Gen *g, LLVMValueRef y, LLVMValueRef x) {
    LLVMValueRef ax = fabs_(g, x), ay = fabs_(g, y);
    LLVMValueRef steep = fcmp(g, LLVMRealOGT, ay, ax);
    LLVMValueRef a = sel(g, steep, sub(g, cd(g, 1.5707963267948966), atan_core(g, divd(g, ax, ay))),
                         atan_core(g, divd(g, ay, ax)));
    a = sel(g, and_(g, fcmp(g, LLVMRealOEQ, ax, cd(g, 0.0)), fcmp(g, LLVMRealOEQ, ay, cd(g, 0.0))),
            cd(g, 0.0), a);
    a = sel(g, and_(g, is_inf(g, x), is_inf(g, y)), cd(g, 0.78539816339744831), a);
    LLVMValueRef xneg =
        LLVMBuildICmp(g->B, LLVMIntSLT, LLVMBuildBitCast(g->B, x, g->i64, ""), gen_i64(g, 0), "");
    a = sel(g, xneg, sub(g, cd(g, 3.1415926535897931), a), a);
    a = copysign_(g, a, y);
    return sel(g, or_(g, is_nan(g, x), is_nan(g, y)), cd(g, NAN), a);
}

static LLVMValueRef soft_d(Gen *g, int fn, LLVMValueRef x, LLVMValueRef y) {
    LLVMValueRef ax = fabs_(g, x);
    LLVMValueRef small =
        fcmp(g, LLVMRealOLT, ax, cd(g, 1e-4)); /* where a short series replaces cancellation */
    LLVMValueRef x2 = mul(g, x, x);
    switch (fn) {
    case MATH_ERF: return erf_any(g, x, false);
    case MATH_ERFC: return erf_any(g, x, true);
    case MATH_EXPM1: {
        LLVMValueRef ser = mul(g, x, horner(g, x, (const double[]){1, 0.5, 1.0 / 6, 1.0 / 24}, 4));
        return sel(g, small, ser, sub(g, exp_d(g, x), cd(g, 1.0)));
    }
    case MATH_LOG1P: {
        LLVMValueRef ser =
            mul(g, x, horner(g, x, (const double[]){1, -0.5, 1.0 / 3, -0.25, 0.2}, 5));
        return sel(g, small, ser, ln_full(g, add(g, x, cd(g, 1.0))));
    }
    case MATH_TANH: {
        LLVMValueRef ser =
            mul(g, x, horner(g, x2, (const double[]){1, -1.0 / 3, 2.0 / 15, -17.0 / 315}, 4));
        LLVMValueRef e =
            sub(g,
                exp_d(g, mul(g, cd(g, 2.0),
                             sel(g, fcmp(g, LLVMRealOLT, ax, cd(g, 20.0)), ax, cd(g, 20.0)))),
                cd(g, 1.0));
        LLVMValueRef t = copysign_(g, divd(g, e, add(g, e, cd(g, 2.0))), x);
        return sel(g, is_nan(g, x), x, sel(g, small, ser, t));
    }
    case MATH_SINH:
    case MATH_COSH: {
        LLVMValueRef e = exp_d(g, ax), ie = divd(g, cd(g, 0.5), e);
        LLVMValueRef h = mul(g, e, cd(g, 0.5));
        if (fn == MATH_COSH) return sel(g, is_nan(g, x), x, add(g, h, ie));
        LLVMValueRef ser =
            mul(g, x, horner(g, x2, (const double[]){1, 1.0 / 6, 1.0 / 120, 1.0 / 5040}, 4));
        return sel(g, is_nan(g, x), x, sel(g, small, ser, copysign_(g, sub(g, h, ie), x)));
    }
    case MATH_TAN: {
        LLVMValueRef s, c, odd;
        sincos_d(g, x, &s, &c, &odd);
        LLVMValueRef t = sel(g, odd, divd(g, LLVMBuildFNeg(g->B, c, ""), s), divd(g, s, c));
        return sel(g, or_(g, is_nan(g, x), is_inf(g, x)), cd(g, NAN), t);
    }
    case MATH_ATAN: return sel(g, is_nan(g, x), x, copysign_(g, atan_core(g, ax), x));
    case MATH_ATAN2: return atan2_d(g, x, y);
    case MATH_ASIN:
        return atan2_d(g, x, sqrt_(g, fma3(g, LLVMBuildFNeg(g->B, x, ""), x, cd(g, 1.0))));
    case MATH_ACOS:
        return atan2_d(g, sqrt_(g, fma3(g, LLVMBuildFNeg(g->B, x, ""), x, cd(g, 1.0))), x);
    case MATH_ASINH: {
        LLVMValueRef ser = mul(g, x, horner(g, x2, (const double[]){1, -1.0 / 6, 3.0 / 40}, 3));
        LLVMValueRef l = ln_full(g, add(g, ax, sqrt_(g, add(g, x2, cd(g, 1.0)))));
        return sel(g, is_nan(g, x), x, sel(g, small, ser, copysign_(g, l, x)));
    }
    case MATH_ACOSH: {
        LLVMValueRef r = sqrt_(g, mul(g, sub(g, x, cd(g, 1.0)), add(g, x, cd(g, 1.0))));
        return ln_full(g, sel(g, fcmp(g, LLVMRealUGE, x, cd(g, 1.0)), add(g, x, r), cd(g, NAN)));
    }
    case MATH_ATANH: {
        LLVMValueRef ser = mul(g, x, horner(g, x2, (const double[]){1, 1.0 / 3, 0.2}, 3));
        LLVMValueRef l =
            mul(g, cd(g, 0.5), ln_full(g, divd(g, add(g, cd(g, 1.0), x), sub(g, cd(g, 1.0), x))));
        return sel(g, small, ser, l);
    }
    case MATH_LOG10: return mul(g, ln_full(g, x), cd(g, 0.43429448190325182));
    case MATH_EXP10: return exp2_core(g, mul(g, x, cd(g, 3.3219280948873622)));
    case MATH_CBRT: {
        LLVMValueRef l = mul(g, ln_full(g, ax), cd(g, 1.4426950408889634 / 3));
        return sel(g, is_nan(g, x), x, copysign_(g, exp2_core(g, l), x));
    }
    case MATH_POW: return pow_d(g, x, y);
    case MATH_HYPOT: {
        LLVMValueRef h = sqrt_(g, fma3(g, x, x, mul(g, y, y)));
        return sel(g, or_(g, is_inf(g, x), is_inf(g, y)), cd(g, INFINITY), h);
    }
    default: gen_error(g, (Loc){0}, "internal error: no software %s", ir_mathfn_info[fn].name);
    }
}

LLVMValueRef gen_math_soft_f32(Gen *g, int fn, LLVMValueRef x, LLVMValueRef y) {
    LLVMValueRef dx = LLVMBuildFPExt(g->B, x, g->f64, ""),
                 dy = y ? LLVMBuildFPExt(g->B, y, g->f64, "") : NULL;
    return LLVMBuildFPTrunc(g->B, soft_d(g, fn, dx, dy), g->f32, "");
}
