/* llvm_elem.c - elementwise ops, register by register: arithmetic with the IR's defined
 * edge cases (integer division by zero gives 0, shifts past the width, saturating
 * float-to-int), comparisons, selects, conversions, pointer offsets, and math in fp32:
 * exp/exp2/rsqrt through the fast PTX approximations (as Triton's tl.exp), sin/cos/log/
 * log2 accurate (llvm_math.c), sqrt and division correctly rounded. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gen_internal.h"

static LLVMValueRef zero_of(LLVMValueRef v) { return LLVMConstNull(LLVMTypeOf(v)); }

/* The guards of a division by b: b == 0 and, when signed, b == -1 (a divisor that is
 * either gives an IR result of its own), and the divisor to divide by instead. Made once
 * for the registers of a block that share their divisor (a splat). */
typedef struct GenDivGuard DivGuard;

static DivGuard div_guard(Gen *g, bool sgn, LLVMValueRef b) {
    DivGuard d = {b, NULL, NULL, NULL};
    LLVMValueRef one = LLVMConstInt(LLVMTypeOf(b), 1, 0);
    d.zero = LLVMBuildICmp(g->B, LLVMIntEQ, b, LLVMConstNull(LLVMTypeOf(b)), "");
    d.safe = LLVMBuildSelect(g->B, d.zero, one, b, "");
    if (sgn) { /* INT_MIN / -1 wraps; x % -1 is 0 */
        d.neg1 = LLVMBuildICmp(g->B, LLVMIntEQ, b, LLVMConstAllOnes(LLVMTypeOf(b)), "");
        d.safe = LLVMBuildSelect(g->B, d.neg1, one, d.safe, "");
    }
    return d;
}

static LLVMValueRef int_div(Gen *g, int code, int dt, LLVMValueRef a, LLVMValueRef b) {
    bool sgn = dt_is_signed(dt);
    DivGuard d = g->div.b == b ? g->div : div_guard(g, sgn, b);
    g->div = d;
    LLVMValueRef zero = zero_of(b);
    if (sgn) {
        LLVMValueRef q = code == OP_IDIV ? LLVMBuildSDiv(g->B, a, d.safe, "")
                                         : LLVMBuildSRem(g->B, a, d.safe, "");
        LLVMValueRef alt = code == OP_IDIV ? LLVMBuildNeg(g->B, a, "") : zero;
        q = LLVMBuildSelect(g->B, d.neg1, alt, q, "");
        return LLVMBuildSelect(g->B, d.zero, zero, q, "");
    }
    LLVMValueRef q =
        code == OP_IDIV ? LLVMBuildUDiv(g->B, a, d.safe, "") : LLVMBuildURem(g->B, a, d.safe, "");
    return LLVMBuildSelect(g->B, d.zero, zero, q, "");
}

static LLVMValueRef shift(Gen *g, int code, int dt, LLVMValueRef a, LLVMValueRef b) {
    int w = dt_bits(dt);
    LLVMTypeRef ty = LLVMTypeOf(a);
    LLVMValueRef big = LLVMBuildICmp(g->B, LLVMIntUGE, b, LLVMConstInt(ty, (unsigned)w, 0), "");
    LLVMValueRef amt = LLVMBuildSelect(g->B, big, zero_of(b), b, "");
    if (code == OP_SHL)
        return LLVMBuildSelect(g->B, big, zero_of(a), LLVMBuildShl(g->B, a, amt, ""), "");
    if (dt_is_signed(dt)) {
        LLVMValueRef fill = LLVMBuildAShr(g->B, a, LLVMConstInt(ty, (unsigned)(w - 1), 0), "");
        return LLVMBuildSelect(g->B, big, fill, LLVMBuildAShr(g->B, a, amt, ""), "");
    }
    return LLVMBuildSelect(g->B, big, zero_of(a), LLVMBuildLShr(g->B, a, amt, ""), "");
}

static LLVMValueRef minmax(Gen *g, bool is_max, int dt, LLVMValueRef a, LLVMValueRef b) {
    if (dt_is_float(dt))
        return gen_intrinsic(g,
                             is_max ? (dt == DT_FP64   ? "llvm.maxnum.f64"
                                       : dt == DT_FP32 ? "llvm.maxnum.f32"
                                       : dt == DT_FP16 ? "llvm.maxnum.f16"
                                                       : "llvm.maxnum.bf16")
                                    : (dt == DT_FP64   ? "llvm.minnum.f64"
                                       : dt == DT_FP32 ? "llvm.minnum.f32"
                                       : dt == DT_FP16 ? "llvm.minnum.f16"
                                                       : "llvm.minnum.bf16"),
                             LLVMTypeOf(a), (LLVMValueRef[]){a, b}, 2);
    LLVMIntPredicate p =
        dt_is_signed(dt) ? (is_max ? LLVMIntSGT : LLVMIntSLT) : (is_max ? LLVMIntUGT : LLVMIntULT);
    return LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, p, a, b, ""), a, b, "");
}

/* The low (half 0) or high (half 1) word of a * b from one mul.wide.u32 (IMAD.WIDE),
 * split in the same inline PTX so LLVM neither narrows it back into two multiplies nor
 * widens what uses it. A umulhi and the mul of the same registers in one basic block
 * share the product. */
static LLVMValueRef wide_mul(Gen *g, LLVMValueRef a, LLVMValueRef b, unsigned half) {
    LLVMBasicBlockRef bb = LLVMGetInsertBlock(g->B);
    if (bb != g->wide_block) g->wide_block = bb, g->nwidecache = 0;
    for (int i = 0; i < g->nwidecache && i < 64; i++)
        if ((g->wide[i].a == a && g->wide[i].b == b) || (g->wide[i].a == b && g->wide[i].b == a))
            return LLVMBuildExtractValue(g->B, g->wide[i].lohi, half, "");
    LLVMTypeRef params[2] = {g->i32, g->i32}, fields[2] = {g->i32, g->i32};
    LLVMTypeRef fty = LLVMFunctionType(LLVMStructTypeInContext(g->C, fields, 2, 0), params, 2, 0);
    static const char text[] = "{ .reg .b64 t; mul.wide.u32 t, $2, $3; mov.b64 {$0, $1}, t; }",
                      cons[] = "=r,=r,r,r";
    LLVMValueRef asmv = LLVMGetInlineAsm(fty, (char *)text, sizeof text - 1, (char *)cons,
                                         sizeof cons - 1, 0, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef lohi = LLVMBuildCall2(g->B, fty, asmv, (LLVMValueRef[]){a, b}, 2, "");
    int slot = g->nwidecache++ % 64; /* a ring: the paired mul comes soon after */
    g->wide[slot].a = a, g->wide[slot].b = b, g->wide[slot].lohi = lohi;
    return LLVMBuildExtractValue(g->B, lohi, half, "");
}

/* Is mul(a, b) also the low half of a 32-bit umulhi of the same operands? */
static bool pairs_with_umulhi(Gen *g, const IrOp *op) {
    if (op->code != OP_MUL || dt_bits(ir_type(g->f, op->results[0]).dt) != 32) return false;
    for (int i = 0; i < g->nwide; i++) {
        ValId x = g->wide_pairs[2 * i], y = g->wide_pairs[2 * i + 1];
        if ((x == op->operands[0] && y == op->operands[1]) ||
            (x == op->operands[1] && y == op->operands[0]))
            return true;
    }
    return false;
}

static LLVMValueRef umulhi(Gen *g, int dt, LLVMValueRef a, LLVMValueRef b) {
    if (dt_bits(dt) == 32) /* the high half of the wide product its paired mul shares */
        return wide_mul(g, a, b, 1);
    if (dt_bits(dt) == 64)
        return gen_intrinsic(g, "llvm.nvvm.mulhi.ull", g->i64, (LLVMValueRef[]){a, b}, 2);
    LLVMTypeRef ty = LLVMTypeOf(a);
    LLVMValueRef p = LLVMBuildMul(g->B, LLVMBuildZExt(g->B, a, g->i32, ""),
                                  LLVMBuildZExt(g->B, b, g->i32, ""), "");
    return LLVMBuildTrunc(g->B, LLVMBuildLShr(g->B, p, gen_i32(g, dt_bits(dt)), ""), ty, "");
}

/* fp32 math on the value of any float dtype (computed in fp32 and rounded back) */
static LLVMValueRef math(Gen *g, int code, int dt, LLVMValueRef x, Loc loc) {
    if (code == OP_SQRT || code == OP_FLOOR || code == OP_CEIL || code == OP_ABS) {
        const char *base = code == OP_SQRT    ? "llvm.sqrt"
                           : code == OP_FLOOR ? "llvm.floor"
                           : code == OP_CEIL  ? "llvm.ceil"
                                              : "llvm.fabs";
        const char *sfx = dt == DT_FP64   ? ".f64"
                          : dt == DT_FP32 ? ".f32"
                          : dt == DT_FP16 ? ".f16"
                                          : ".bf16";
        char name[32];
        snprintf(name, sizeof name, "%s%s", base, sfx);
        if (dt == DT_BF16 && code == OP_SQRT) {
            LLVMValueRef w = LLVMBuildFPExt(g->B, x, g->f32, "");
            return LLVMBuildFPTrunc(g->B, gen_intrinsic(g, "llvm.sqrt.f32", g->f32, &w, 1), g->bf16,
                                    "");
        }
        return gen_intrinsic(g, name, LLVMTypeOf(x), &x, 1);
    }
    if (dt == DT_FP64) { /* libdevice's fp64 routine, as Triton calls (__nv_sin, ...) */
        if (!g->target->libdevice)
            gen_error(g, loc,
                      "%s on fp64 needs CUDA's libdevice on the GPU, and none was found (set "
                      "NEREID_LIBDEVICE to libdevice.10.bc, or CUDA_HOME)",
                      ir_op_info[code].name);
        char name[32];
        snprintf(name, sizeof name, "__nv_%s", ir_op_info[code].name);
        return gen_libdevice_call(g, name, LLVMTypeOf(x), &x, 1);
    }
    LLVMValueRef v = dt == DT_FP32 ? x : LLVMBuildFPExt(g->B, x, g->f32, "");
    LLVMValueRef r;
    switch (code) {
    case OP_EXP:
        v = LLVMBuildFMul(g->B, v, LLVMConstReal(g->f32, 1.4426950408889634), "");
        r = gen_intrinsic(g, "llvm.nvvm.ex2.approx.f", g->f32, &v, 1);
        break;
    case OP_EXP2: /* enable_reflect_ftz: libdevice's exp2f, which Triton calls, flushes */
        r = gen_intrinsic(g,
                          g->target->code.reflect_ftz ? "llvm.nvvm.ex2.approx.ftz.f"
                                                      : "llvm.nvvm.ex2.approx.f",
                          g->f32, &v, 1);
        break;
    case OP_LOG: r = gen_log_f32(g, v, false); break;
    case OP_LOG2: r = gen_log_f32(g, v, true); break;
    case OP_RSQRT: r = gen_intrinsic(g, "llvm.nvvm.rsqrt.approx.f", g->f32, &v, 1); break;
    case OP_SIN: r = gen_sincos_f32(g, v, false); break;
    case OP_COS: r = gen_sincos_f32(g, v, true); break;
    default: NR_DIE("math op %d", code);
    }
    return dt == DT_FP32 ? r : LLVMBuildFPTrunc(g->B, r, gen_type(g, dt), "");
}

static LLVMValueRef compare(Gen *g, int pred, int dt, LLVMValueRef a, LLVMValueRef b) {
    if (dt_is_float(dt)) {
        static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealUNE, LLVMRealOLT,
                                               LLVMRealOLE, LLVMRealOGT, LLVMRealOGE};
        return LLVMBuildFCmp(g->B, fp[pred], a, b, "");
    }
    static const LLVMIntPredicate s[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntSLT,
                                         LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
    static const LLVMIntPredicate u[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntULT,
                                         LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
    if (dt == DT_PTR) {
        a = LLVMBuildPtrToInt(g->B, a, g->i64, "");
        b = LLVMBuildPtrToInt(g->B, b, g->i64, "");
    }
    return LLVMBuildICmp(g->B, dt_is_signed(dt) ? s[pred] : u[pred], a, b, "");
}

/* float -> int: truncate toward zero, saturate, NaN -> 0 (the IR's rule) */
static LLVMValueRef fp_to_int(Gen *g, LLVMValueRef x, int from, int to) {
    if (from != DT_FP32 && from != DT_FP64) x = LLVMBuildFPExt(g->B, x, g->f32, ""), from = DT_FP32;
    LLVMTypeRef ty = gen_type(g, to);
    char name[48];
    snprintf(name, sizeof name, "llvm.fpto%si.sat.i%d.%s", dt_is_signed(to) ? "s" : "u",
             dt_bits(to), from == DT_FP64 ? "f64" : "f32");
    return gen_intrinsic(g, name, ty, &x, 1);
}

static LLVMValueRef convert(Gen *g, LLVMValueRef x, int from, int to) {
    if (from == to) return x;
    LLVMTypeRef ty = gen_type(g, to);
    if (to == DT_I1) {
        if (dt_is_float(from))
            return LLVMBuildFCmp(g->B, LLVMRealUNE, x, LLVMConstNull(LLVMTypeOf(x)), "");
        return LLVMBuildICmp(g->B, LLVMIntNE, x, LLVMConstNull(LLVMTypeOf(x)), "");
    }
    if (dt_is_int(from) && dt_is_int(to)) {
        int fb = dt_bits(from), tb = dt_bits(to);
        if (fb == tb) return x;
        if (fb > tb) return LLVMBuildTrunc(g->B, x, ty, "");
        return dt_is_signed(from) ? LLVMBuildSExt(g->B, x, ty, "") : LLVMBuildZExt(g->B, x, ty, "");
    }
    if (dt_is_int(from)) {
        /* straight to the target type: one rounding, as the interpreter does */
        return dt_is_signed(from) ? LLVMBuildSIToFP(g->B, x, ty, "")
                                  : LLVMBuildUIToFP(g->B, x, ty, "");
    }
    if (dt_is_int(to)) return fp_to_int(g, x, from, to);
    if ((from == DT_FP16 && to == DT_BF16) || (from == DT_BF16 && to == DT_FP16))
        return LLVMBuildFPTrunc(g->B, LLVMBuildFPExt(g->B, x, g->f32, ""), ty, "");
    return dt_bits(to) > dt_bits(from) ? LLVMBuildFPExt(g->B, x, ty, "")
                                       : LLVMBuildFPTrunc(g->B, x, ty, "");
}

/* One PTX instruction $0 <- $1 as inline assembly, marked memory(none) so that LLVM may
 * merge two of one operand or drop an unused one. */
static LLVMValueRef asm1(Gen *g, const char *text, const char *cons, LLVMTypeRef rty,
                         LLVMValueRef x) {
    LLVMTypeRef xty = LLVMTypeOf(x);
    LLVMTypeRef fty = LLVMFunctionType(rty, &xty, 1, 0);
    LLVMValueRef asmv = LLVMGetInlineAsm(fty, (char *)text, strlen(text), (char *)cons,
                                         strlen(cons), 0, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef call = LLVMBuildCall2(g->B, fty, asmv, &x, 1, "");
    LLVMContextRef C = LLVMGetTypeContext(rty);
    static const char *const attrs[] = {"memory", "nounwind"};
    for (int i = 0; i < 2; i++) {
        unsigned kind = LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i]));
        LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                                 LLVMCreateEnumAttribute(C, kind, 0)); /* memory: none */
    }
    return call;
}

/* cvt {rtz = 1}: a float to a narrower fp32, fp16, bf16 or fp8e5, rounded toward zero in
 * one step (ir_ops.def). PTX's cvt.rz does fp64 -> fp32 and fp32 -> fp16 / bf16 (sm_80);
 * the rest goes through them, which is still one rounding: each format's values are
 * values of the wider one with the same smallest exponent or a smaller one, so truncating
 * twice truncates once (bf16 -> fp8e5 widens to fp32 first, exactly). fp8e5 is the high
 * byte of the fp16 (the same exponent; fp16's infinities stay infinities there), but for a
 * NaN, which becomes 0x7F as the interpreter has it. */
static LLVMValueRef convert_rz(Gen *g, LLVMValueRef x, int from, int to) {
    if (from == DT_FP64) {
        x = asm1(g, "cvt.rz.f32.f64 $0, $1;", "=f,d", g->f32, x);
        from = DT_FP32;
        if (to == DT_FP32) return x;
    }
    if (from == DT_BF16) x = LLVMBuildFPExt(g->B, x, g->f32, ""), from = DT_FP32;
    if (to == DT_BF16) {
        LLVMValueRef h = asm1(g, "cvt.rz.bf16.f32 $0, $1;", "=h,f", g->i16, x);
        return LLVMBuildBitCast(g->B, h, g->bf16, "");
    }
    LLVMValueRef h = from == DT_FP16 ? LLVMBuildBitCast(g->B, x, g->i16, "")
                                     : asm1(g, "cvt.rz.f16.f32 $0, $1;", "=h,f", g->i16, x);
    if (to == DT_FP16) return LLVMBuildBitCast(g->B, h, g->f16, "");
    if (to != DT_FP8E5) NR_DIE("cvt {rtz = 1} to dtype %d", to);
    LLVMValueRef hi =
        LLVMBuildTrunc(g->B, LLVMBuildLShr(g->B, h, LLVMConstInt(g->i16, 8, 0), ""), g->i8, "");
    LLVMValueRef nan = LLVMBuildFCmp(g->B, LLVMRealUNO, x, x, "");
    return LLVMBuildSelect(g->B, nan, LLVMConstInt(g->i8, 0x7F, 0), hi, "");
}

/* Triton's fp32 `/`: div.full.f32 (within 2 ulp, a few instructions instead of the
 * correctly rounded division's dozen); fp16/bf16 through it too; fp64 exact. */
static LLVMValueRef fast_div(Gen *g, int dt, LLVMValueRef x, LLVMValueRef y) {
    if (dt == DT_FP64) return LLVMBuildFDiv(g->B, x, y, "");
    LLVMTypeRef ty = LLVMTypeOf(x);
    if (dt != DT_FP32)
        x = LLVMBuildFPExt(g->B, x, g->f32, ""), y = LLVMBuildFPExt(g->B, y, g->f32, "");
    LLVMTypeRef params[2] = {g->f32, g->f32};
    LLVMTypeRef fty = LLVMFunctionType(g->f32, params, 2, 0);
    static const char text[] = "div.full.f32 $0, $1, $2;", cons[] = "=f,f,f";
    LLVMValueRef asmv = LLVMGetInlineAsm(fty, (char *)text, sizeof text - 1, (char *)cons,
                                         sizeof cons - 1, 0, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef r = LLVMBuildCall2(g->B, fty, asmv, (LLVMValueRef[]){x, y}, 2, "");
    return dt == DT_FP32 ? r : LLVMBuildFPTrunc(g->B, r, ty, "");
}

/* floor(log2 v) of a positive finite fp64 v, subnormals included */
static LLVMValueRef f64_exponent(Gen *g, LLVMValueRef v) {
    LLVMBuilderRef B = g->B;
    LLVMValueRef bits = LLVMBuildBitCast(B, v, g->i64, "");
    LLVMValueRef field = LLVMBuildLShr(B, bits, gen_i64(g, 52), "");
    LLVMValueRef normal = LLVMBuildSub(B, field, gen_i64(g, 1023), "");
    LLVMValueRef clz = gen_intrinsic(g, "llvm.ctlz.i64", g->i64,
                                     (LLVMValueRef[]){bits, LLVMConstInt(g->i1, 0, 0)}, 2);
    LLVMValueRef sub = LLVMBuildSub(B, gen_i64(g, 63 - 1074), clz, ""); /* m 2^-1074 */
    return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, field, gen_i64(g, 0), ""), sub, normal,
                           "");
}

/* 2^k as an fp64, -1022 <= k <= 1023 */
static LLVMValueRef f64_pow2(Gen *g, LLVMValueRef k) {
    LLVMValueRef field = LLVMBuildAdd(g->B, k, gen_i64(g, 1023), "");
    return LLVMBuildBitCast(g->B, LLVMBuildShl(g->B, field, gen_i64(g, 52), ""), g->f64, "");
}

/* C's fmod, exact on every input, as the interpreter computes it. NVPTX's frem (x - y *
 * trunc(x / y) in the operands' precision) loses the remainder once x / y is large, and
 * libdevice's fmod is exact, so Triton's libdevice.fmod is. fp32 and narrower are taken in
 * fp64 (exactly). The remainder r = |x| is reduced by d = |y| 2^e, e chosen so that
 * r / d < 2^53: n = trunc(r / d) computed in fp64 is then the true quotient or one more
 * (rounding to nearest never falls below the integer floor(r / d), which is representable),
 * r - n d by one fma is exact (the true remainder, or it minus d: both multiples of d's
 * last unit, under d in magnitude), and adding d back where it went negative is exact.
 * Since d is a multiple of |y|, r mod |y| never changes; each round takes 51 bits off
 * the exponent difference (fp32: at most 6 rounds, one while |x / y| < 2^51; fp64: at most
 * 42). The sign of x survives a zero remainder (-4 % 2 is -0); fmod(x, +-inf) is x; an
 * infinite or NaN x, a NaN or zero y give NaN. */
static LLVMValueRef float_rem(Gen *g, int dt, LLVMValueRef x, LLVMValueRef y) {
    LLVMBuilderRef B = g->B;
    LLVMTypeRef ty = LLVMTypeOf(x);
    LLVMValueRef dx = x, dy = y;
    if (dt != DT_FP64) dx = LLVMBuildFPExt(B, x, g->f64, ""), dy = LLVMBuildFPExt(B, y, g->f64, "");
    LLVMValueRef ax = gen_intrinsic(g, "llvm.fabs.f64", g->f64, &dx, 1);
    LLVMValueRef ay = gen_intrinsic(g, "llvm.fabs.f64", g->f64, &dy, 1);
    LLVMValueRef inf = LLVMConstReal(g->f64, 1.0 / 0.0), zero = LLVMConstReal(g->f64, 0.0);
    /* NaN x or y, infinite x, zero y: NaN (the unordered compares are true for NaNs) */
    LLVMValueRef bad = LLVMBuildOr(B, LLVMBuildFCmp(B, LLVMRealUGE, ax, inf, ""),
                                   LLVMBuildFCmp(B, LLVMRealUEQ, ay, zero, ""), "");
    LLVMValueRef r0 = LLVMBuildSelect(B, bad, zero, ax, "");
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(B);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(g->C, g->fn, "fmod.head");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(g->C, g->fn, "fmod.round");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->fn, "fmod.done");
    LLVMBuildBr(B, head);
    LLVMPositionBuilderAtEnd(B, head);
    LLVMValueRef r = LLVMBuildPhi(B, g->f64, "fmod.r");
    /* y infinite: r < ay at once, x stays */
    LLVMBuildCondBr(B, LLVMBuildFCmp(B, LLVMRealOGE, r, ay, ""), body, done);
    LLVMPositionBuilderAtEnd(B, body);
    LLVMValueRef e = LLVMBuildSub(B, LLVMBuildSub(B, f64_exponent(g, r), f64_exponent(g, ay), ""),
                                  gen_i64(g, 51), "");
    e = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, e, gen_i64(g, 0), ""), e, gen_i64(g, 0),
                        "");
    /* d = ay 2^e in three exact steps (e <= 2097 - 51; d <= r, so none overflows) */
    LLVMValueRef d = ay, left = e;
    for (int i = 0; i < 3; i++) {
        LLVMValueRef k =
            LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, left, gen_i64(g, 1000), ""),
                            gen_i64(g, 1000), left, "");
        d = LLVMBuildFMul(B, d, f64_pow2(g, k), "");
        left = LLVMBuildSub(B, left, k, "");
    }
    LLVMValueRef q = LLVMBuildFDiv(B, r, d, "");
    q = gen_intrinsic(g, "llvm.trunc.f64", g->f64, &q, 1);
    LLVMValueRef nq = LLVMBuildFNeg(B, q, "");
    LLVMValueRef rn = gen_intrinsic(g, "llvm.fma.f64", g->f64, (LLVMValueRef[]){nq, d, r}, 3);
    LLVMValueRef neg = LLVMBuildFCmp(B, LLVMRealOLT, rn, zero, "");
    rn = LLVMBuildSelect(B, neg, LLVMBuildFAdd(B, rn, d, ""), rn, "");
    LLVMBasicBlockRef body_end = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, head);
    LLVMAddIncoming(r, (LLVMValueRef[]){r0, rn}, (LLVMBasicBlockRef[]){entry, body_end}, 2);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMValueRef res = gen_intrinsic(g, "llvm.copysign.f64", g->f64, (LLVMValueRef[]){r, dx}, 2);
    res = LLVMBuildSelect(B, bad, LLVMConstReal(g->f64, NAN), res, "");
    return dt == DT_FP64 ? res : LLVMBuildFPTrunc(B, res, ty, "");
}

/* A float add, subtract or multiply; with enable_fp_fusion, marked contractible, so that
 * a multiply and the add of its result become one fma (NVPTX emits mul.rn and add.rn,
 * which ptxas never fuses, for unmarked ones). */
static LLVMValueRef fp_arith(Gen *g, LLVMValueRef r) {
    if (g->target->code.fp_fusion && LLVMIsAInstruction(r) && LLVMCanValueUseFastMathFlags(r))
        LLVMSetFastMathFlags(r, LLVMFastMathAllowContract);
    return r;
}

static LLVMValueRef elem(Gen *g, const IrOp *op, int dt, int rdt, LLVMValueRef *a) {
    bool fl = dt_is_float(dt);
    LLVMBuilderRef B = g->B;
    switch (op->code) {
    case OP_ADD:
        return fl ? fp_arith(g, LLVMBuildFAdd(B, a[0], a[1], "")) : LLVMBuildAdd(B, a[0], a[1], "");
    case OP_SUB:
        return fl ? fp_arith(g, LLVMBuildFSub(B, a[0], a[1], "")) : LLVMBuildSub(B, a[0], a[1], "");
    case OP_MUL:
        return fl ? fp_arith(g, LLVMBuildFMul(B, a[0], a[1], "")) : LLVMBuildMul(B, a[0], a[1], "");
    case OP_DIV: return fast_div(g, dt, a[0], a[1]);
    case OP_DIV_RN: return LLVMBuildFDiv(B, a[0], a[1], "");
    case OP_IDIV: return int_div(g, OP_IDIV, dt, a[0], a[1]);
    case OP_REM: return fl ? float_rem(g, dt, a[0], a[1]) : int_div(g, OP_REM, dt, a[0], a[1]);
    case OP_AND: return LLVMBuildAnd(B, a[0], a[1], "");
    case OP_OR: return LLVMBuildOr(B, a[0], a[1], "");
    case OP_XOR: return LLVMBuildXor(B, a[0], a[1], "");
    case OP_SHL:
    case OP_SHR: return shift(g, op->code, dt, a[0], a[1]);
    case OP_MIN:
    case OP_MAX: return minmax(g, op->code == OP_MAX, dt, a[0], a[1]);
    case OP_UMULHI: return umulhi(g, dt, a[0], a[1]);
    case OP_FMA: {
        const char *n = dt == DT_FP64   ? "llvm.fma.f64"
                        : dt == DT_FP32 ? "llvm.fma.f32"
                        : dt == DT_FP16 ? "llvm.fma.f16"
                                        : "llvm.fma.bf16";
        return gen_intrinsic(g, n, LLVMTypeOf(a[0]), a, 3);
    }
    case OP_NEG: return fl ? LLVMBuildFNeg(B, a[0], "") : LLVMBuildNeg(B, a[0], "");
    case OP_NOT: return LLVMBuildNot(B, a[0], "");
    case OP_ABS:
        if (!fl)
            return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, a[0], zero_of(a[0]), ""),
                                   LLVMBuildNeg(B, a[0], ""), a[0], "");
        return math(g, OP_ABS, dt, a[0], op->loc);
    case OP_EXP:
    case OP_EXP2:
    case OP_LOG:
    case OP_LOG2:
    case OP_SQRT:
    case OP_RSQRT:
    case OP_SIN:
    case OP_COS:
    case OP_FLOOR:
    case OP_CEIL: return math(g, op->code, dt, a[0], op->loc);
    case OP_MATH: return gen_mathfn(g, op, dt, a);
    case OP_CMP: return compare(g, (int)op->attr[0], dt, a[0], a[1]);
    case OP_SELECT: return LLVMBuildSelect(B, a[0], a[1], a[2], "");
    case OP_CVT: return convert(g, a[0], dt, rdt);
    case OP_BITCAST: /* pointers are opaque: between two pointer types nothing to do */
        if (dt == DT_PTR && rdt == DT_PTR) return a[0];
        if (rdt == DT_PTR) return LLVMBuildIntToPtr(B, a[0], gen_type(g, rdt), "");
        if (dt == DT_PTR) return LLVMBuildPtrToInt(B, a[0], gen_type(g, rdt), "");
        return LLVMBuildBitCast(B, a[0], gen_type(g, rdt), "");
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS:
    case OP_MAX_CONSTANCY: return a[0];
    default: gen_error(g, op->loc, "the GPU back end cannot lower '%s'", ir_op_info[op->code].name);
    }
}

static LLVMValueRef addptr(Gen *g, int pointee, LLVMValueRef p, LLVMValueRef off, int offdt) {
    LLVMValueRef o = dt_bits(offdt) == 64  ? off
                     : dt_is_signed(offdt) ? LLVMBuildSExt(g->B, off, g->i64, "")
                                           : LLVMBuildZExt(g->B, off, g->i64, "");
    return LLVMBuildGEP2(g->B, gen_mem_type(g, pointee), p, &o, 1, "");
}

/* A block's integer quotient or remainder by a run-time divisor reaches its users through
 * gen_opaque: LLVM can tell nothing of its bits, but the divisor's guards (selects for 0
 * and -1) and the dividend's computation were walked again by every known-bits and SCEV
 * query from the address arithmetic built on each register (a row's offset times a stride,
 * sign-extended into a pointer): an eighth of the unspecialised matmul's instruction
 * selection. ptxas propagates the move. */
static bool quotient_cut(Gen *g, const IrOp *op, int dt, ValId r, LLVMValueRef divisor,
                         LLVMValueRef q) {
    return (op->code == OP_IDIV || (op->code == OP_REM && !dt_is_float(dt))) &&
           ir_type(g->f, r).rank && !LLVMIsAConstantInt(divisor) && LLVMTypeOf(q) == g->i32;
}

void gen_elementwise(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    ValId r = op->results[0];
    int dt = ir_type(g->f, op->operands[op->code == OP_SELECT ? 1 : 0]).dt;
    int rdt = ir_type(g->f, r).dt;
    int n = 0;
    LLVMValueRef *in[3];
    for (uint32_t k = 0; k < op->nopnds && k < 3; k++) in[k] = gen_vals(g, op->operands[k], &n);
    LLVMValueRef *out = gen_alloc_regs(g, n);
    g->div.b = NULL; /* guards are shared within one op only: it is in one basic block */
    if (op->code == OP_CVT && op->attr[0]) { /* {rtz = 1} */
        for (int i = 0; i < n; i++) out[i] = convert_rz(g, in[0][i], dt, rdt);
        gen_set(g, r, out, n);
        return;
    }
    if (op->code == OP_CVT && dt == DT_FP32 && (rdt == DT_FP16 || rdt == DT_BF16) && n >= 2 &&
        ir_gpu_arch_from_name(g->target->arch, strlen(g->target->arch)) >= GPU_SM80) {
        /* two at a time, as cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32 (sm_80): the same
         * round-to-nearest-even as two scalar conversions, one instruction for a pair (an
         * epilogue's or an Inductor kernel's store of 16-bit values: LLVM 19 does not pair
         * the scalar ones). The intrinsic's first operand goes to the upper half. */
        const char *name = rdt == DT_FP16 ? "llvm.nvvm.ff2f16x2.rn" : "llvm.nvvm.ff2bf16x2.rn";
        LLVMTypeRef vt = LLVMVectorType(gen_type(g, rdt), 2);
        int i = 0;
        for (; i + 1 < n; i += 2) {
            LLVMValueRef pair =
                gen_intrinsic(g, name, vt, (LLVMValueRef[]){in[0][i + 1], in[0][i]}, 2);
            out[i] = LLVMBuildExtractElement(g->B, pair, gen_i32(g, 0), "");
            out[i + 1] = LLVMBuildExtractElement(g->B, pair, gen_i32(g, 1), "");
        }
        for (; i < n; i++) out[i] = convert(g, in[0][i], dt, rdt);
        gen_set(g, r, out, n);
        return;
    }
    if (op->code == OP_CVT &&
        (dt_is_fp8(dt) || dt_is_fp8(rdt))) { /* all registers at once: pairs */
        gen_fp8_convert(g, in[0], out, n, dt, rdt);
        gen_set(g, r, out, n);
        return;
    }
    /* a register whose register bits include the layout's copy bits holds the element of
     * the register without them: where its operands are that register's own values too,
     * so is its result (the copies a broadcast block keeps in an mma layout) */
    uint32_t copies = ir_type(g->f, r).rank ? gen_layout(g, r)->reg_copies : 0;
    uint32_t same = gen_uniform_bits(g, r) & ~copies;
    for (int i = 0; i < n; i++) {
        if (i & (int)same) { /* equal to the register without those bits (llvm_uniform.c) */
            out[i] = out[i & ~(int)same];
            continue;
        }
        int j = i & ~(int)copies;
        if (j != i && in[0][i] == in[0][j] && (op->nopnds < 2 || in[1][i] == in[1][j]) &&
            (op->nopnds < 3 || in[2][i] == in[2][j])) {
            out[i] = out[j];
            continue;
        }
        LLVMValueRef a[3] = {in[0][i], op->nopnds > 1 ? in[1][i] : NULL,
                             op->nopnds > 2 ? in[2][i] : NULL};
        if (op->code == OP_ADDPTR)
            out[i] = addptr(g, ir_type(g->f, op->operands[0]).pointee, a[0], a[1],
                            ir_type(g->f, op->operands[1]).dt);
        else if (pairs_with_umulhi(g, op)) out[i] = wide_mul(g, a[0], a[1], 0);
        else out[i] = elem(g, op, dt, rdt, a);
        if (quotient_cut(g, op, dt, r, a[1], out[i])) out[i] = gen_opaque(g, out[i]);
    }
    gen_set(g, r, out, n);
}
