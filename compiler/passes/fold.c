/* fold.c - constant evaluation for canonicalize, bit-exact with the semantics of
 * ir_ops.def: integers wrap at their width (i1 unsigned), C division truncation with
 * division by zero giving 0, floats rounded to nearest even into their dtype after every
 * op (fp16 and bf16 by our own rounding, since C has no such types; the fp8 types by
 * compiler/support/fp8.h's, the one every back end shares: saturating, NaN to 0x7F). Transcendental
 * functions (exp, log, sin, ...) are not folded: their last bit depends on the libm of
 * each back end, and a fold must give exactly what the program would compute. */
#include "fold.h"

#include <math.h>
#include <string.h>

#include "compiler/support/fp8.h"

/* ---- integers ---- */

int64_t fold_wrap(int dt, uint64_t v) {
    int bits = dt_bits(dt);
    if (dt == DT_I1) return (int64_t)(v & 1);
    if (bits >= 64) return (int64_t)v;
    uint64_t m = (1ull << bits) - 1;
    v &= m;
    if (dt_is_signed(dt) && (v >> (bits - 1))) v |= ~m;
    return (int64_t)v;
}

int64_t fold_all_ones(int dt) { return fold_wrap(dt, ~0ull); }

static uint64_t mask_of(int dt) { return dt_bits(dt) >= 64 ? ~0ull : (1ull << dt_bits(dt)) - 1; }

/* The high 64 bits of a 64 x 64 bit unsigned product, from 32-bit halves. */
static uint64_t mulhi64(uint64_t a, uint64_t b) {
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static bool int_div(int dt, int code, int64_t a, int64_t b, uint64_t *r) {
    if (b == 0) {
        *r = 0;
    } else if (dt_is_signed(dt)) {
        if (b == -1) /* INT64_MIN / -1 overflows in C; wrap-around gives -a and 0 */
            *r = code == OP_IDIV ? 0 - (uint64_t)a : 0;
        else *r = (uint64_t)(code == OP_IDIV ? a / b : a % b);
    } else {
        *r = code == OP_IDIV ? (uint64_t)a / (uint64_t)b : (uint64_t)a % (uint64_t)b;
    }
    return true;
}

/* Shift amounts are compared unsigned; a negative signed amount is left unfolded. */
static bool int_shift(int dt, int code, int64_t a, int64_t b, uint64_t *r) {
    int w = dt_bits(dt);
    bool sg = dt_is_signed(dt);
    if (sg && b < 0) return false;
    if ((uint64_t)b >= (uint64_t)w) *r = code == OP_SHR && sg && a < 0 ? ~0ull : 0;
    else if (code == OP_SHL) *r = (uint64_t)a << b;
    else if (sg) *r = a < 0 ? ~(~(uint64_t)a >> b) : (uint64_t)a >> b;
    else *r = (uint64_t)a >> b;
    return true;
}

static bool int_less(int dt, int64_t a, int64_t b) {
    return dt_is_signed(dt) ? a < b : (uint64_t)a < (uint64_t)b;
}

static bool int_binary(int code, int dt, int64_t a, int64_t b, uint64_t *r) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (code) {
    case OP_ADD: *r = ua + ub; return true;
    case OP_SUB: *r = ua - ub; return true;
    case OP_MUL: *r = ua * ub; return true;
    case OP_IDIV:
    case OP_REM: return int_div(dt, code, a, b, r);
    case OP_AND: *r = ua & ub; return true;
    case OP_OR: *r = ua | ub; return true;
    case OP_XOR: *r = ua ^ ub; return true;
    case OP_SHL:
    case OP_SHR: return int_shift(dt, code, a, b, r);
    case OP_MIN: *r = int_less(dt, b, a) ? ub : ua; return true;
    case OP_MAX: *r = int_less(dt, a, b) ? ub : ua; return true;
    case OP_UMULHI: {
        uint64_t m = mask_of(dt), x = ua & m, y = ub & m;
        *r = dt_bits(dt) >= 64 ? mulhi64(x, y) : (x * y) >> dt_bits(dt);
        return true;
    }
    default: return false;
    }
}

static bool int_unary(int code, int dt, int64_t a, uint64_t *r) {
    switch (code) {
    case OP_NEG: *r = 0 - (uint64_t)a; return true;
    case OP_NOT: *r = ~(uint64_t)a; return true;
    case OP_ABS: *r = dt_is_signed(dt) && a < 0 ? 0 - (uint64_t)a : (uint64_t)a; return true;
    default: return false;
    }
}

/* ---- floats ---- */

typedef struct FloatFmt {
    int p;          /* significand bits, the implicit one included */
    int emin, emax; /* exponents of the smallest and largest normal numbers */
    int ebits;
} FloatFmt;

static FloatFmt fmt_of(int dt) {
    switch (dt) {
    case DT_FP16: return (FloatFmt){11, -14, 15, 5};
    case DT_BF16: return (FloatFmt){8, -126, 127, 8};
    case DT_FP32: return (FloatFmt){24, -126, 127, 8};
    default: return (FloatFmt){53, -1022, 1023, 11};
    }
}

/* Round to nearest even into the format: scale so the format's quantum at x's
 * exponent is 1, rint (the default rounding mode is to nearest even), scale back.
 * Results rounding to 2^(emax+1) overflow to inf, as IEEE 754 says. */
static double round_fmt(double x, FloatFmt F) {
    if (!isfinite(x) || x == 0 || F.p == 53) return x;
    int e;
    frexp(fabs(x), &e);
    int lead = e - 1 < F.emin ? F.emin : e - 1;
    double q = ldexp(1.0, lead - (F.p - 1));
    double r = rint(fabs(x) / q) * q;
    if (r >= ldexp(1.0, F.emax + 1)) r = INFINITY;
    return copysign(r, x);
}

static NrFp8Format fp8_fmt(int dt) { return (NrFp8Format)dt_fp8_format(dt); }

double fold_round(int dt, double x) {
    if (dt_is_fp8(dt)) return fp8_round(fp8_fmt(dt), x);
    return round_fmt(x, fmt_of(dt));
}

/* The bits of x, which is already representable in the format (not NaN). */
static uint64_t encode_fmt(double x, FloatFmt F) {
    uint64_t sign = signbit(x) ? 1 : 0, exp = 0, mant = 0;
    double ax = fabs(x);
    if (isinf(ax)) {
        exp = (1u << F.ebits) - 1;
    } else if (ax != 0) {
        int e;
        frexp(ax, &e);
        int lead = e - 1;
        if (lead < F.emin) {
            mant = (uint64_t)ldexp(ax, (F.p - 1) - F.emin);
        } else {
            exp = (uint64_t)(lead + F.emax);
            mant = (uint64_t)ldexp(ax, (F.p - 1) - lead) - (1ull << (F.p - 1));
        }
    }
    return sign << (F.ebits + F.p - 1) | exp << (F.p - 1) | mant;
}

static double decode_fmt(uint64_t bits, FloatFmt F) {
    uint64_t mant = bits & ((1ull << (F.p - 1)) - 1);
    uint64_t exp = (bits >> (F.p - 1)) & ((1u << F.ebits) - 1);
    bool neg = (bits >> (F.ebits + F.p - 1)) & 1;
    double v;
    if (exp == (1u << F.ebits) - 1) v = mant ? NAN : INFINITY;
    else if (exp == 0) v = ldexp((double)mant, F.emin - (F.p - 1));
    else v = ldexp((double)(mant | 1ull << (F.p - 1)), (int)exp - F.emax - (F.p - 1));
    return neg ? -v : v;
}

static uint64_t float_bits(int dt, double x) {
    if (dt_is_fp8(dt)) return fp8_bits(fp8_fmt(dt), x);
    if (dt == DT_FP64) {
        uint64_t b;
        memcpy(&b, &x, sizeof b);
        return b;
    }
    return encode_fmt(x, fmt_of(dt));
}

static double bits_float(int dt, uint64_t b) {
    if (dt_is_fp8(dt)) return fp8_to_double(fp8_fmt(dt), (uint8_t)b);
    if (dt == DT_FP64) {
        double x;
        memcpy(&x, &b, sizeof x);
        return x;
    }
    return decode_fmt(b, fmt_of(dt));
}

static bool float_binary(int code, int dt, double a, double b, double *r) {
    /* +, -, *, / and sqrt of p-bit numbers computed in double and rounded again are
     * correctly rounded: 53 >= 2p + 2 for every dtype below fp64 */
    switch (code) {
    case OP_ADD: *r = a + b; break;
    case OP_SUB: *r = a - b; break;
    case OP_MUL: *r = a * b; break;
    case OP_DIV:
    case OP_DIV_RN: *r = a / b; break;
    case OP_REM: *r = fmod(a, b); break;
    case OP_MIN:
    case OP_MAX:
        if (a == 0 && b == 0 && signbit(a) != signbit(b))
            return false; /* fmin's sign of zero varies */
        *r = code == OP_MIN ? fmin(a, b) : fmax(a, b);
        break;
    default: return false;
    }
    *r = fold_round(dt, *r);
    return true;
}

static bool float_unary(int code, int dt, double a, double *r) {
    switch (code) {
    case OP_NEG: *r = -a; break;
    case OP_ABS: *r = fabs(a); break;
    case OP_SQRT: *r = sqrt(a); break;
    case OP_FLOOR: *r = floor(a); break;
    case OP_CEIL: *r = ceil(a); break;
    default: return false;
    }
    *r = fold_round(dt, *r);
    return true;
}

/* fma rounds once: fmaf for fp32, fma for fp64; fp16/bf16 would round twice. */
static bool float_fma(int dt, const Num *a, double *r) {
    if (dt == DT_FP32) *r = fmaf((float)a[0].f, (float)a[1].f, (float)a[2].f);
    else if (dt == DT_FP64) *r = fma(a[0].f, a[1].f, a[2].f);
    else return false;
    return true;
}

bool fold_arith(int code, int dt, const Num *a, Num *out) {
    int n = ir_op_info[code].nopnds;
    if (dt_is_float(dt)) {
        if (code == OP_FMA) return float_fma(dt, a, &out->f);
        return n == 2 ? float_binary(code, dt, a[0].f, a[1].f, &out->f)
                      : float_unary(code, dt, a[0].f, &out->f);
    }
    if (!dt_is_int(dt)) return false;
    uint64_t r;
    bool ok = n == 2 ? int_binary(code, dt, a[0].i, a[1].i, &r)
                     : n == 1 && int_unary(code, dt, a[0].i, &r);
    if (ok) out->i = fold_wrap(dt, r);
    return ok;
}

/* ---- comparisons and conversions ---- */

bool fold_cmp(int pred, int dt, Num a, Num b, Num *out) {
    bool lt, eq, gt;
    if (dt_is_float(dt)) { /* C's comparisons are ordered, and != is true on NaN */
        lt = a.f<b.f, eq = a.f == b.f, gt = a.f> b.f;
    } else if (dt_is_int(dt)) {
        lt = int_less(dt, a.i, b.i), eq = a.i == b.i, gt = int_less(dt, b.i, a.i);
    } else {
        return false;
    }
    switch (pred) {
    case CMP_PRED_EQ: out->i = eq; break;
    case CMP_PRED_NE: out->i = !eq; break;
    case CMP_PRED_LT: out->i = lt; break;
    case CMP_PRED_LE: out->i = lt || eq; break;
    case CMP_PRED_GT: out->i = gt; break;
    case CMP_PRED_GE: out->i = gt || eq; break;
    default: return false;
    }
    return true;
}

/* An integer magnitude rounded to p significant bits, to nearest even: exact in a
 * double, so the rounding happens once, as a direct int -> float conversion would. */
static double round_int(uint64_t mag, int p) {
    int bits = 0;
    for (uint64_t m = mag; m; m >>= 1) bits++;
    if (bits <= p) return (double)mag;
    int sh = bits - p;
    uint64_t q = mag >> sh, rem = mag & ((1ull << sh) - 1), half = 1ull << (sh - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    return ldexp((double)q, sh);
}

static double int_to_float(int from, int to, int64_t v) {
    bool neg = dt_is_signed(from) && v < 0;
    uint64_t mag = neg ? 0 - (uint64_t)v : (uint64_t)v;
    double r = fold_round(to, round_int(mag, fmt_of(to).p));
    return neg ? -r : r;
}

/* Truncation toward zero, saturating at dt's limits. NaN was handled by the caller. */
static int64_t float_to_int(int to, double x) {
    double t = trunc(x);
    int w = dt_bits(to);
    if (dt_is_signed(to)) {
        double lim = ldexp(1.0, w - 1);
        if (t >= lim) return fold_wrap(to, (~0ull) >> (65 - w));
        if (t < -lim) return fold_wrap(to, ~0ull << (w - 1));
        return fold_wrap(to, (uint64_t)(int64_t)t);
    }
    if (t <= 0) return 0;
    if (t >= ldexp(1.0, w)) return fold_wrap(to, ~0ull);
    return fold_wrap(to, (uint64_t)t);
}

bool fold_cvt(int from, int to, Num a, Num *out) {
    bool fi = dt_is_float(from), fo = dt_is_float(to);
    if ((!fi && !dt_is_int(from)) || (!fo && !dt_is_int(to))) return false;
    /* fp8 converts only to and from the other floats (integers and the other fp8 type go
     * through fp32 in the front end) */
    if ((dt_is_fp8(from) || dt_is_fp8(to)) && (!fi || !fo || (dt_is_fp8(from) && dt_is_fp8(to))))
        return false;
    if (to == DT_I1) {
        if (fi && isnan(a.f)) return false; /* "NaN gives 0" and "x != 0" disagree */
        out->i = fi ? a.f != 0 : a.i != 0;
    } else if (fi && fo) {
        out->f = fold_round(to, a.f);
    } else if (fi) {
        out->i = isnan(a.f) ? 0 : float_to_int(to, a.f);
    } else if (fo) {
        out->f = int_to_float(from, to, a.i);
    } else {
        out->i = fold_wrap(to, (uint64_t)a.i);
    }
    return true;
}

/* Same-width reinterpretation; NaNs are left alone since constants print without
 * their payload. */
bool fold_bitcast(int from, int to, Num a, Num *out) {
    if (from == DT_PTR || to == DT_PTR || dt_bits(from) != dt_bits(to)) return false;
    if (dt_is_float(from) && isnan(a.f)) return false;
    uint64_t bits = dt_is_float(from) ? float_bits(from, a.f) : (uint64_t)a.i & mask_of(from);
    if (!dt_is_float(to)) {
        out->i = fold_wrap(to, bits);
        return true;
    }
    out->f = bits_float(to, bits);
    /* an fp8 constant is its value narrowed as cvt narrows (saturating), so it cannot hold
     * fp8e5's infinities, nor fp8e4b15's 1.875 (narrowing stops at 1.75): fold only a
     * byte that narrowing its value gives back */
    return !isnan(out->f) && !(dt_is_fp8(to) && fp8_from_double(fp8_fmt(to), out->f) != bits);
}
