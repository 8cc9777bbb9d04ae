/* llvm_fp8.c - conversions to and from the fp8 types, which live in i8 registers, bit for
 * bit as the interpreter converts (compiler/support/fp8.h): widening exact; narrowing to nearest in
 * one rounding (ties to even; fp8e4b15 ties away), magnitudes at or above the saturation
 * value (infinities too, but in the FNUZ formats, where they give the NaN 0x80) saturating
 * to it, every NaN giving the format's NaN byte (0x7F; 0x80 FNUZ; 0x7E fp8e4b15).
 *
 * sm_89 and later have instructions for the two OCP formats: cvt.rn.satfinite.{e4m3x2,
 * e5m2x2}.f32 narrows two fp32 values into one 16-bit register, cvt.rn.f16x2.e4m3x2 widens
 * two E4M3 bytes to two halves; the registers of a block are paired for them (an odd last
 * one with a zero). sm_80 has neither, and no target has any for fp8e4b15 or the FNUZ
 * formats, so they get exact integer sequences, parametrised by the format: narrowing
 * rounds the source's bits (normal range) or a scaled copy of it with roundeven or round
 * (subnormal range, where the scaling is exact), then saturates and places the sign;
 * widening moves the fields into a half (4-bit exponents) and scales by a power of two, or
 * builds the fp32 from them (E5M2 FNUZ). E5M2 is the top byte of a half on every target,
 * so it widens with a shift. fp64 sources use the integer sequence everywhere (rounding them to
 * fp32 first could round twice); fp16 and bf16 sources are widened to fp32 first (exact).
 *
 * The instructions were checked on an H100 (2026-11-26, a standalone CUDA probe): for every
 * one of the 2^32 fp32 inputs, both formats, both bytes of the pair, the narrowing equals
 * compiler/support/fp8.c, and every NaN input (either sign, any payload) gives 0x7F; widening all
 * 256 E4M3 bytes is exact (NaN bytes give the half 0x7FFF). So the hardware needs no
 * fix-up. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compiler/support/fp8.h"
#include "gen_internal.h"

typedef struct Fp8Info {
    NrFp8Format f;
    const NrFp8Desc *d;
    const char *ptx; /* the cvt type, for the two formats PTX has */
} Fp8Info;

static Fp8Info info_of(int dt) {
    NrFp8Format f = (NrFp8Format)dt_fp8_format(dt);
    return (Fp8Info){f, fp8_desc(f),
                     dt == DT_FP8E4NV ? "e4m3x2"
                     : dt == DT_FP8E5 ? "e5m2x2"
                                      : NULL};
}

static bool has_fp8_cvt(Gen *g, Fp8Info F) {
    return F.ptx && ir_gpu_arch_from_name(g->target->arch, strlen(g->target->arch)) >= GPU_SM90;
}

static LLVMValueRef c8(Gen *g, unsigned v) { return LLVMConstInt(g->i8, v, 0); }

/* an fp8 constant is its value converted (narrowed) to the type, as the interpreter does */
LLVMValueRef gen_fp8_const(Gen *g, int dt, double v) {
    return c8(g, fp8_from_double(info_of(dt).f, v));
}

/* ---- narrowing ---- */

static unsigned long long float_bits(bool dbl, double v) {
    if (dbl) {
        uint64_t u;
        memcpy(&u, &v, 8);
        return u;
    }
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* The code of |x| in the normal range, from a = |x|'s bits (an i32; an i64 for fp64): the low
 * fraction bits dropped rounding to nearest (ties to even, or away); a carry runs into the
 * exponent (the next binade); then the exponent rebiased. */
static LLVMValueRef normal_code(Gen *g, LLVMValueRef a, const NrFp8Desc *D, bool dbl) {
    LLVMBuilderRef B = g->B;
    LLVMTypeRef it = dbl ? g->i64 : g->i32;
    int ms = dbl ? 52 : 23, bs = dbl ? 1023 : 127, shift = ms - D->mbits;
    LLVMValueRef q = LLVMBuildLShr(B, a, LLVMConstInt(it, (unsigned)shift, 0), "");
    LLVMValueRef rem = LLVMBuildAnd(B, a, LLVMConstInt(it, (1ull << shift) - 1, 0), "");
    LLVMValueRef half = LLVMConstInt(it, 1ull << (shift - 1), 0);
    LLVMValueRef up;
    if (D->ties_away) {
        up = LLVMBuildICmp(B, LLVMIntUGE, rem, half, "");
    } else {
        LLVMValueRef odd = LLVMBuildTrunc(B, q, g->i1, "");
        up = LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntUGT, rem, half, ""),
                         LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntEQ, rem, half, ""), odd, ""), "");
    }
    q = LLVMBuildAdd(B, q, LLVMBuildZExt(B, up, it, ""), "");
    q = LLVMBuildSub(B, q, LLVMConstInt(it, (unsigned long long)(bs - D->bias) << D->mbits, 0), "");
    return LLVMBuildTrunc(B, q, g->i8, "");
}

/* The code of |x| in the subnormal range: |x| in units of the smallest subnormal (an exact
 * scaling), rounded to nearest (roundeven, or round: ties away). */
static LLVMValueRef subnormal_code(Gen *g, LLVMValueRef a, const NrFp8Desc *D, bool dbl) {
    LLVMBuilderRef B = g->B;
    LLVMTypeRef ft = dbl ? g->f64 : g->f32;
    LLVMValueRef ax = LLVMBuildBitCast(B, a, ft, "");
    LLVMValueRef units =
        LLVMBuildFMul(B, ax, LLVMConstReal(ft, ldexp(1.0, D->bias + D->mbits - 1)), "");
    const char *rnd = D->ties_away ? (dbl ? "llvm.round.f64" : "llvm.round.f32")
                                   : (dbl ? "llvm.roundeven.f64" : "llvm.roundeven.f32");
    units = gen_intrinsic(g, rnd, ft, &units, 1);
    /* at most 2^mbits where this branch is taken; clamped so the conversion is defined
     * (and cheap) in every lane */
    LLVMValueRef lim[2] = {units, LLVMConstReal(ft, 16.0)};
    units = gen_intrinsic(g, dbl ? "llvm.minnum.f64" : "llvm.minnum.f32", ft, lim, 2);
    return LLVMBuildTrunc(B, LLVMBuildFPToUI(B, units, g->i32, ""), g->i8, "");
}

/* The fp8 byte of x (f32 or f64), by integer arithmetic on its bits. */
static LLVMValueRef narrow_soft(Gen *g, LLVMValueRef x, Fp8Info F) {
    LLVMBuilderRef B = g->B;
    const NrFp8Desc *D = F.d;
    bool dbl = LLVMTypeOf(x) == g->f64, fnuz = D->nans == NR_FP8_NAN_80;
    LLVMTypeRef it = dbl ? g->i64 : g->i32;
    int w = dbl ? 64 : 32;
    LLVMValueRef u = LLVMBuildBitCast(B, x, it, "");
    LLVMValueRef a = LLVMBuildAnd(B, u, LLVMConstInt(it, ~(1ull << (w - 1)), 0), "");
    LLVMValueRef sign = LLVMBuildShl(
        B,
        LLVMBuildTrunc(B, LLVMBuildLShr(B, u, LLVMConstInt(it, (unsigned)(w - 1), 0), ""), g->i8,
                       ""),
        c8(g, 7), "");
    /* bits of the saturation value and of the smallest normal, in the source format;
     * positive floats order as their bits, infinities above every finite value */
    LLVMValueRef satb = LLVMConstInt(it, float_bits(dbl, D->sat), 0);
    LLVMValueRef minb = LLVMConstInt(it, float_bits(dbl, ldexp(1.0, 1 - D->bias)), 0);
    LLVMValueRef infb = LLVMConstInt(it, float_bits(dbl, INFINITY), 0);
    LLVMValueRef normal = normal_code(g, a, D, dbl), sub = subnormal_code(g, a, D, dbl);
    LLVMValueRef code =
        LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, a, minb, ""), sub, normal, "");
    code =
        LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGE, a, satb, ""), c8(g, D->sat_code), code, "");
    if (fnuz) /* no -0: a zero keeps no sign */
        sign =
            LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, code, c8(g, 0), ""), c8(g, 0), sign, "");
    code = LLVMBuildOr(B, code, sign, "");
    /* NaN (and, in the FNUZ formats, infinities): the format's NaN byte */
    return LLVMBuildSelect(B, LLVMBuildICmp(B, fnuz ? LLVMIntUGE : LLVMIntUGT, a, infb, ""),
                           c8(g, D->nan_code), code, "");
}

/* Two f32 values (lo: the first register) through one cvt.rn.satfinite.*x2.f32. */
static void narrow_pair_hw(Gen *g, LLVMValueRef lo, LLVMValueRef hi, Fp8Info F,
                           LLVMValueRef *out_lo, LLVMValueRef *out_hi) {
    char text[64];
    snprintf(text, sizeof text, "cvt.rn.satfinite.%s.f32 $0, $1, $2;", F.ptx);
    LLVMValueRef args[2] = {hi, lo}; /* the first source goes to the upper byte */
    LLVMValueRef r = gen_asm(g, text, "=h,f,f", g->i16, args, 2, false);
    *out_lo = LLVMBuildTrunc(g->B, r, g->i8, "");
    *out_hi =
        LLVMBuildTrunc(g->B, LLVMBuildLShr(g->B, r, LLVMConstInt(g->i16, 8, 0), ""), g->i8, "");
}

static void narrow(Gen *g, LLVMValueRef *in, LLVMValueRef *out, int n, int from, int to) {
    Fp8Info F = info_of(to);
    LLVMValueRef *x = gen_alloc_regs(g, n);
    for (int i = 0; i < n; i++) /* fp16 and bf16 widen to fp32 exactly */
        x[i] = from == DT_FP16 || from == DT_BF16 ? LLVMBuildFPExt(g->B, in[i], g->f32, "") : in[i];
    if (from == DT_FP64 || !has_fp8_cvt(g, F)) {
        for (int i = 0; i < n; i++) out[i] = narrow_soft(g, x[i], F);
        return;
    }
    for (int i = 0; i < n; i += 2) {
        LLVMValueRef hi = i + 1 < n ? x[i + 1] : LLVMConstReal(g->f32, 0.0), ohi;
        narrow_pair_hw(g, x[i], hi, F, &out[i], &ohi);
        if (i + 1 < n) out[i + 1] = ohi;
    }
}

/* ---- widening ---- */

/* An fp8 byte to f32 on any target. A 4-bit exponent (E4M3, fp8e4b15, E4M3 FNUZ): the
 * fields moved into a half (the same layout with one more exponent bit, bias 15) are the
 * value times 2^(bias - 15), subnormals included. A 5-bit one (E5M2 FNUZ, whose top
 * exponent is a number, not a half's infinity): a normal value's fields shifted into an
 * fp32 with the exponent rebiased, a subnormal's fraction scaled by its unit. Then the
 * NaN bytes and the sign. */
static LLVMValueRef fp8_to_f32_soft(Gen *g, LLVMValueRef b, Fp8Info F) {
    LLVMBuilderRef B = g->B;
    const NrFp8Desc *D = F.d;
    LLVMValueRef x, mag;
    if (D->mbits == 3) {
        mag = LLVMBuildZExt(B, LLVMBuildAnd(B, b, c8(g, 0x7F), ""), g->i16, "");
        LLVMValueRef h =
            LLVMBuildBitCast(B, LLVMBuildShl(B, mag, LLVMConstInt(g->i16, 7, 0), ""), g->f16, "");
        x = LLVMBuildFPExt(B, h, g->f32, "");
        if (D->bias != 15)
            x = LLVMBuildFMul(B, x, LLVMConstReal(g->f32, ldexp(1.0, 15 - D->bias)), "");
    } else {
        mag = LLVMBuildZExt(B, LLVMBuildAnd(B, b, c8(g, 0x7F), ""), g->i32, "");
        LLVMValueRef bits = LLVMBuildAdd(B, LLVMBuildShl(B, mag, gen_i32(g, 23 - D->mbits), ""),
                                         gen_i32(g, (int64_t)(127 - D->bias) << 23), "");
        LLVMValueRef sub =
            LLVMBuildFMul(B, LLVMBuildUIToFP(B, mag, g->f32, ""),
                          LLVMConstReal(g->f32, ldexp(1.0, 1 - D->bias - D->mbits)), "");
        x = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, mag, gen_i32(g, 1 << D->mbits), ""),
                            sub, LLVMBuildBitCast(B, bits, g->f32, ""), "");
    }
    if (D->nans == NR_FP8_NAN_ALL_ONES) /* 0x7F, 0xFF */
        x = LLVMBuildSelect(
            B, LLVMBuildICmp(B, LLVMIntEQ, mag, LLVMConstInt(LLVMTypeOf(mag), 0x7F, 0), ""),
            LLVMConstReal(g->f32, NAN), x, "");
    LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, b, c8(g, 0), "");
    x = LLVMBuildSelect(B, neg, LLVMBuildFNeg(B, x, ""), x, "");
    if (D->nans == NR_FP8_NAN_80)
        x = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, b, c8(g, 0x80), ""),
                            LLVMConstReal(g->f32, NAN), x, "");
    return x;
}

/* E5M2 is the upper byte of a half */
static LLVMValueRef e5m2_to_f16(Gen *g, LLVMValueRef b) {
    LLVMValueRef h =
        LLVMBuildShl(g->B, LLVMBuildZExt(g->B, b, g->i16, ""), LLVMConstInt(g->i16, 8, 0), "");
    return LLVMBuildBitCast(g->B, h, g->f16, "");
}

/* Two E4M3 bytes through one cvt.rn.f16x2.e4m3x2: two halves. */
static void e4m3_pair_hw(Gen *g, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef *hlo,
                         LLVMValueRef *hhi) {
    LLVMBuilderRef B = g->B;
    LLVMValueRef packed = LLVMBuildOr(
        B, LLVMBuildZExt(B, lo, g->i16, ""),
        LLVMBuildShl(B, LLVMBuildZExt(B, hi, g->i16, ""), LLVMConstInt(g->i16, 8, 0), ""), "");
    LLVMValueRef r = gen_asm(g, "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h", g->i32, &packed, 1, false);
    *hlo = LLVMBuildBitCast(B, LLVMBuildTrunc(B, r, g->i16, ""), g->f16, "");
    *hhi = LLVMBuildBitCast(
        B, LLVMBuildTrunc(B, LLVMBuildLShr(B, r, gen_i32(g, 16), ""), g->i16, ""), g->f16, "");
}

/* a half or an f32 holding an fp8 value exactly, to the float type `to` (exact) */
static LLVMValueRef float_to(Gen *g, LLVMValueRef x, int to) {
    LLVMTypeRef xt = LLVMTypeOf(x), ty = gen_type(g, to);
    if (xt == ty) return x;
    if (to == DT_BF16) {
        if (xt == g->f16) x = LLVMBuildFPExt(g->B, x, g->f32, "");
        return LLVMBuildFPTrunc(g->B, x, ty, "");
    }
    if (to == DT_FP16) return LLVMBuildFPTrunc(g->B, x, ty, "");
    return LLVMBuildFPExt(g->B, x, ty, "");
}

static void widen(Gen *g, LLVMValueRef *in, LLVMValueRef *out, int n, int from, int to) {
    Fp8Info F = info_of(from);
    if (from == DT_FP8E5) {
        for (int i = 0; i < n; i++) out[i] = float_to(g, e5m2_to_f16(g, in[i]), to);
        return;
    }
    if (!has_fp8_cvt(g, F)) {
        for (int i = 0; i < n; i++) out[i] = float_to(g, fp8_to_f32_soft(g, in[i], F), to);
        return;
    }
    for (int i = 0; i < n; i += 2) {
        LLVMValueRef lo, hi;
        e4m3_pair_hw(g, in[i], i + 1 < n ? in[i + 1] : c8(g, 0), &lo, &hi);
        out[i] = float_to(g, lo, to);
        if (i + 1 < n) out[i + 1] = float_to(g, hi, to);
    }
}

void gen_fp8_convert(Gen *g, LLVMValueRef *in, LLVMValueRef *out, int n, int from, int to) {
    if (from == to) {
        memcpy(out, in, sizeof *out * (size_t)n);
        return;
    }
    if (dt_is_fp8(to)) narrow(g, in, out, n, from, to);
    else widen(g, in, out, n, from, to);
}
