/* interp_math.c - elementwise ops: integer and float arithmetic, math functions, cmp,
 * select, cvt, bitcast and addptr. One switch per op, then a tight loop over the
 * block. Integer arithmetic is done in uint64_t (no signed-overflow UB) and
 * normalised to the dtype; float ops are computed in double and rounded to the dtype
 * (exact for + - * / sqrt of fp32 and narrower; fp32 fma uses fmaf). */
#include "interp_impl.h"

/* ---- integers ---- */

static uint64_t mulhi64(uint64_t a, uint64_t b) {
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static uint64_t sdiv(uint64_t x, uint64_t y) {
    int64_t a = as_i64(x), b = as_i64(y);
    if (b == 0) return 0;
    if (b == -1) return 0 - x; /* avoids INT64_MIN / -1; wraps like the hardware */
    return (uint64_t)(a / b);
}

static uint64_t srem(uint64_t x, uint64_t y) {
    int64_t a = as_i64(x), b = as_i64(y);
    if (b == 0 || b == -1) return 0;
    return (uint64_t)(a % b);
}

/* shr of a sign-extended value by s < 64, arithmetic without implementation-defined >> */
static uint64_t sar(uint64_t x, uint64_t s) { return as_i64(x) < 0 ? ~(~x >> s) : x >> s; }

#define LOOP2(expr)                   \
    for (int64_t i = 0; i < n; i++) { \
        uint64_t x = a[i], y = b[i];  \
        (void)y;                      \
        r[i] = int_norm(F, (expr));   \
    }                                 \
    break

static void int_binary(int code, IntFmt F, const uint64_t *a, const uint64_t *b, uint64_t *r,
                       int64_t n) {
    uint64_t w = (uint64_t)F.bits;
    bool s = F.is_signed;
    switch (code) {
    case OP_ADD: LOOP2(x + y);
    case OP_SUB: LOOP2(x - y);
    case OP_MUL: LOOP2(x * y);
    case OP_AND: LOOP2(x & y);
    case OP_OR: LOOP2(x | y);
    case OP_XOR: LOOP2(x ^ y);
    case OP_IDIV:
        if (s) {
            LOOP2(sdiv(x, y));
        }
        LOOP2(y ? x / y : 0);
    case OP_REM:
        if (s) {
            LOOP2(srem(x, y));
        }
        LOOP2(y ? x % y : 0);
    /* the amount is the operand's value read as unsigned: negative amounts are >= w */
    case OP_SHL: LOOP2((y & F.mask) >= w ? 0 : x << (y & F.mask));
    case OP_SHR:
        if (s) {
            LOOP2((y & F.mask) >= w ? (as_i64(x) < 0 ? ~UINT64_C(0) : 0) : sar(x, y & F.mask));
        }
        LOOP2((y & F.mask) >= w ? 0 : x >> (y & F.mask));
    case OP_MIN:
        if (s) {
            LOOP2(as_i64(x) < as_i64(y) ? x : y);
        }
        LOOP2(x < y ? x : y);
    case OP_MAX:
        if (s) {
            LOOP2(as_i64(x) > as_i64(y) ? x : y);
        }
        LOOP2(x > y ? x : y);
    case OP_UMULHI:
        if (w == 64) {
            LOOP2(mulhi64(x, y));
        }
        LOOP2(((x & F.mask) * (y & F.mask)) >> w);
    default: break;
    }
}

static void int_unary(int code, IntFmt F, const uint64_t *a, uint64_t *r, int64_t n) {
    switch (code) {
    case OP_NEG:
        for (int64_t i = 0; i < n; i++) r[i] = int_norm(F, 0 - a[i]);
        break;
    case OP_NOT:
        for (int64_t i = 0; i < n; i++) r[i] = int_norm(F, ~a[i]);
        break;
    case OP_ABS:
        for (int64_t i = 0; i < n; i++)
            r[i] = int_norm(F, (F.is_signed && as_i64(a[i]) < 0) ? 0 - a[i] : a[i]);
        break;
    default: /* floor, ceil: integers are their own floor */ memcpy(r, a, 8 * (size_t)n); break;
    }
}

/* ---- floats ---- */

#define FLOOP(expr)                        \
    for (int64_t i = 0; i < n; i++) {      \
        double x = a[i], y = b ? b[i] : 0; \
        (void)y;                           \
        r[i] = (expr);                     \
    }                                      \
    break

static void float_op(int code, const double *a, const double *b, double *r, int64_t n) {
    switch (code) {
    case OP_ADD: FLOOP(x + y);
    case OP_SUB: FLOOP(x - y);
    case OP_MUL: FLOOP(x * y);
    case OP_DIV:
    case OP_DIV_RN: FLOOP(x / y);
    case OP_REM: FLOOP(fmod(x, y));
    case OP_MIN: FLOOP(nr_fmin(x, y));
    case OP_MAX: FLOOP(nr_fmax(x, y));
    case OP_NEG: FLOOP(-x);
    case OP_ABS: FLOOP(fabs(x));
    case OP_EXP: FLOOP(exp(x));
    case OP_EXP2: FLOOP(exp2(x));
    case OP_LOG: FLOOP(log(x));
    case OP_LOG2: FLOOP(log2(x));
    case OP_SQRT: FLOOP(sqrt(x));
    case OP_RSQRT: FLOOP(1.0 / sqrt(x));
    case OP_SIN: FLOOP(sin(x));
    case OP_COS: FLOOP(cos(x));
    case OP_FLOOR: FLOOP(floor(x));
    case OP_CEIL: FLOOP(ceil(x));
    default: break;
    }
}

/* The modified Bessel functions of the first kind, I0 (order 0) and I1 (order 1): their
 * power series, sum over k of (x/2)^(2k+order) / (k! (k+order)!), whose terms are all of
 * one sign (no cancellation: a few ulp of double at any x) and fall once k passes |x|/2;
 * past |x| = 713.99 the result overflows to infinity. I0 is even, I1 odd. */
static double bessel_i(int order, double x) {
    if (isnan(x)) return x;
    double ax = fabs(x);
    if (ax > 713.99) return order && x < 0 ? -INFINITY : INFINITY;
    double q = 0.25 * ax * ax, term = order ? 0.5 * ax : 1.0, sum = term;
    for (int k = 1; k < 2000 && term > sum * 1e-17; k++) {
        term *= q / ((double)k * (double)(k + order));
        sum += term;
    }
    return order && x < 0 ? -sum : sum;
}

/* The math op's functions (compiler/ir/ir_mathfn.def): the C library's double function, which
 * arith rounds to the dtype once. */
static double math_fn(int fn, double x, double y) {
    switch (fn) {
    case MATH_ERF: return erf(x);
    case MATH_ERFC: return erfc(x);
    case MATH_TANH: return tanh(x);
    case MATH_SINH: return sinh(x);
    case MATH_COSH: return cosh(x);
    case MATH_TAN: return tan(x);
    case MATH_ASIN: return asin(x);
    case MATH_ACOS: return acos(x);
    case MATH_ATAN: return atan(x);
    case MATH_ASINH: return asinh(x);
    case MATH_ACOSH: return acosh(x);
    case MATH_ATANH: return atanh(x);
    case MATH_LOG10: return log10(x);
    case MATH_LOG1P: return log1p(x);
    case MATH_EXPM1: return expm1(x);
    case MATH_EXP10: return pow(10.0, x);
    case MATH_CBRT: return cbrt(x);
    case MATH_POW: return pow(x, y);
    case MATH_ATAN2: return atan2(x, y);
    case MATH_HYPOT: return hypot(x, y);
    case MATH_TRUNC: return trunc(x);
    case MATH_RINT:
    case MATH_NEARBYINT: return nearbyint(x); /* to nearest even: the default mode */
    case MATH_ROUND: return round(x);
    case MATH_COPYSIGN: return copysign(x, y);
    case MATH_J0: return j0(x);
    case MATH_J1: return j1(x);
    case MATH_Y0: return y0(x);
    case MATH_Y1: return y1(x);
    case MATH_CYL_BESSEL_I0: return bessel_i(0, x);
    case MATH_CYL_BESSEL_I1: return bessel_i(1, x);
    default: return NAN;
    }
}

static void float_math(int fn, const double *a, const double *b, double *r, int64_t n) {
    for (int64_t i = 0; i < n; i++) r[i] = math_fn(fn, a[i], b ? b[i] : 0);
}

static void float_fma(int dt, const double *a, const double *b, const double *c3, double *r,
                      int64_t n) {
    if (dt == DT_FP32) {
        for (int64_t i = 0; i < n; i++) r[i] = fmaf((float)a[i], (float)b[i], (float)c3[i]);
        return;
    }
    for (int64_t i = 0; i < n; i++) r[i] = fma(a[i], b[i], c3[i]);
    round_array(dt, r, n);
}

static int arith(Ctx *c, const IrOp *op) {
    int dt = res_ty(c, op, 0).dt;
    int64_t n = ty_numel(res_ty(c, op, 0));
    void *in[3] = {NULL, NULL, NULL};
    for (uint32_t i = 0; i < op->nopnds; i++)
        if (!(in[i] = interp_val_in(c, op, i))) return -1;
    void *r = interp_val_out(c, op, 0);
    if (!r) return -1;
    if (!dt_is_float(dt)) {
        IntFmt F = int_fmt(dt);
        if (op->code == OP_FMA) {
            const uint64_t *a = in[0], *b = in[1], *c3 = in[2];
            for (int64_t i = 0; i < n; i++) ((uint64_t *)r)[i] = int_norm(F, a[i] * b[i] + c3[i]);
        } else if (op->nopnds == 1) {
            int_unary(op->code, F, in[0], r, n);
        } else {
            int_binary(op->code, F, in[0], in[1], r, n);
        }
        return 0;
    }
    if (op->code == OP_FMA) {
        float_fma(dt, in[0], in[1], in[2], r, n);
        return 0;
    }
    if (op->code == OP_MATH) float_math((int)op->attr[0], in[0], in[1], r, n);
    else float_op(op->code, in[0], in[1], r, n);
    round_array(dt, r, n);
    return 0;
}

/* ---- cmp and select ---- */

#define CLOOP(T, CONV, cmp)                 \
    for (int64_t i = 0; i < n; i++) {       \
        T x = CONV(pa[i]), y = CONV(pb[i]); \
        r[i] = (cmp);                       \
    }                                       \
    break

#define CMP_ALL(T, CONV)                      \
    switch (pred) {                           \
    case CMP_PRED_EQ: CLOOP(T, CONV, x == y); \
    case CMP_PRED_NE: CLOOP(T, CONV, x != y); \
    case CMP_PRED_LT: CLOOP(T, CONV, x < y);  \
    case CMP_PRED_LE: CLOOP(T, CONV, x <= y); \
    case CMP_PRED_GT: CLOOP(T, CONV, x > y);  \
    default: CLOOP(T, CONV, x >= y);          \
    }

#define SAME(x) (x)

static int do_cmp(Ctx *c, const IrOp *op) {
    int dt = opnd_ty(c, op, 0).dt;
    int64_t n = ty_numel(res_ty(c, op, 0));
    const void *a = interp_val_in(c, op, 0), *b = interp_val_in(c, op, 1);
    uint64_t *r = a && b ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    int64_t pred = op->attr[0];
    if (dt_is_float(dt)) { /* C's float comparisons are ordered, and != is true on NaN */
        const double *pa = a, *pb = b;
        CMP_ALL(double, SAME)
    } else if (dt_is_signed(dt)) {
        const uint64_t *pa = a, *pb = b;
        CMP_ALL(int64_t, as_i64)
    } else {
        const uint64_t *pa = a, *pb = b;
        CMP_ALL(uint64_t, SAME)
    }
    return 0;
}

static int do_select(Ctx *c, const IrOp *op) {
    int64_t n = ty_numel(res_ty(c, op, 0));
    const uint64_t *cond = interp_val_in(c, op, 0);
    const void *a = interp_val_in(c, op, 1), *b = interp_val_in(c, op, 2);
    void *r = cond && a && b ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    if (dt_is_float(res_ty(c, op, 0).dt)) {
        const double *fa = a, *fb = b;
        for (int64_t i = 0; i < n; i++) ((double *)r)[i] = (cond[i] & 1) ? fa[i] : fb[i];
    } else {
        const uint64_t *ua = a, *ub = b;
        for (int64_t i = 0; i < n; i++) ((uint64_t *)r)[i] = (cond[i] & 1) ? ua[i] : ub[i];
    }
    return 0;
}

/* ---- conversions ---- */

/* float -> integer: truncate toward zero, saturate at the dtype's range, NaN gives 0. */
static uint64_t float_to_int(double x, int dt) {
    IntFmt F = int_fmt(dt);
    if (isnan(x)) return 0;
    if (F.is_signed) {
        double lim = ldexp(1.0, F.bits - 1);
        if (x >= lim) return F.sign - 1;
        if (x <= -lim) return 0 - F.sign;
        return (uint64_t)(int64_t)x;
    }
    if (x <= 0) return 0;
    if (x >= ldexp(1.0, F.bits)) return F.mask;
    return (uint64_t)x;
}

/* |x| as a double rounded to odd at 53 bits: a second rounding to any narrower format
 * then gives the correctly rounded result (double rounding would not). */
static double to_double_odd(uint64_t m) {
    if (m < (UINT64_C(1) << 53)) return (double)m;
    int shift = 0;
    while ((m >> shift) >= (UINT64_C(1) << 53)) shift++;
    uint64_t keep = m >> shift;
    if (m & ((UINT64_C(1) << shift) - 1)) keep |= 1;
    return ldexp((double)keep, shift);
}

static double int_to_float(uint64_t x, bool sgn, int dt) {
    bool neg = sgn && as_i64(x) < 0;
    if (dt == DT_FP64) return sgn ? (double)as_i64(x) : (double)x;
    if (dt == DT_FP32) return sgn ? (double)(float)as_i64(x) : (double)(float)x;
    double m = to_double_odd(neg ? 0 - x : x);
    return float_round(dt, neg ? -m : m);
}

static int do_cvt(Ctx *c, const IrOp *op) {
    int sdt = opnd_ty(c, op, 0).dt, ddt = res_ty(c, op, 0).dt;
    int64_t n = ty_numel(res_ty(c, op, 0));
    const void *a = interp_val_in(c, op, 0);
    void *r = a ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    const double *fa = a;
    const uint64_t *ua = a;
    double *fr = r;
    uint64_t *ur = r;
    bool sgn = dt_is_signed(sdt);
    if (dt_is_float(sdt)) {
        if (dt_is_float(ddt) && op->attr[0]) /* {rtz = 1} */
            for (int64_t i = 0; i < n; i++) fr[i] = float_round_rz(ddt, fa[i]);
        else if (dt_is_float(ddt))
            for (int64_t i = 0; i < n; i++) fr[i] = float_round(ddt, fa[i]);
        else if (ddt == DT_I1)
            for (int64_t i = 0; i < n; i++) ur[i] = fa[i] != 0;
        else
            for (int64_t i = 0; i < n; i++) ur[i] = float_to_int(fa[i], ddt);
    } else if (dt_is_float(ddt)) {
        for (int64_t i = 0; i < n; i++) fr[i] = int_to_float(ua[i], sgn, ddt);
    } else if (ddt == DT_I1) {
        for (int64_t i = 0; i < n; i++) ur[i] = ua[i] != 0;
    } else {
        IntFmt F = int_fmt(ddt); /* the source is already extended by its signedness */
        for (int64_t i = 0; i < n; i++) ur[i] = int_norm(F, ua[i]);
    }
    return 0;
}

static int do_bitcast(Ctx *c, const IrOp *op) {
    int sdt = opnd_ty(c, op, 0).dt, ddt = res_ty(c, op, 0).dt;
    int64_t n = ty_numel(res_ty(c, op, 0));
    const void *a = interp_val_in(c, op, 0);
    void *r = a ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    for (int64_t i = 0; i < n; i++) elem_from_bits(ddt, r, i, elem_bits(sdt, a, i));
    return 0;
}

static int do_addptr(Ctx *c, const IrOp *op) {
    int64_t n = ty_numel(res_ty(c, op, 0));
    const uint64_t *p = interp_val_in(c, op, 0), *off = interp_val_in(c, op, 1);
    uint64_t *r = p && off ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    uint64_t size = (uint64_t)dt_bytes(opnd_ty(c, op, 0).pointee);
    for (int64_t i = 0; i < n; i++) r[i] = p[i] + off[i] * size;
    return 0;
}

int interp_math(Ctx *c, const IrOp *op) {
    switch (op->code) {
    case OP_CMP: return do_cmp(c, op);
    case OP_SELECT: return do_select(c, op);
    case OP_CVT: return do_cvt(c, op);
    case OP_BITCAST: return do_bitcast(c, op);
    case OP_ADDPTR: return do_addptr(c, op);
    default: return arith(c, op);
    }
}
