/* fp8.c - the fp8 formats' conversions (see fp8.h), one code path for all five,
 * parametrised by the format's description.
 *
 * Narrowing scales |x| so that one unit in the last place of the format, at x's binade
 * (or at the smallest normal binade for subnormals), becomes 1.0: the scaled value is
 * below 2^(fraction bits + 1), so its integer and fractional parts are exact in a double
 * and the rounding (to nearest, ties to even or away) is done on them by hand (no
 * dependence on the FPU's rounding mode). The rounded count of units, added to the
 * binade's first code, is the code: a count that reaches the next power of two carries
 * into the exponent field, which is the next binade, as it should be. */
#include "fp8.h"

#include <math.h>
#include <string.h>

static const NrFp8Desc descs[NR_FP8_FORMATS] = {
    [NR_FP8_E4M3] = {"fp8e4nv", 3, 7, NR_FP8_NAN_ALL_ONES, false, 0x7E, 0x7E, 0x7F, 448.0, 448.0},
    [NR_FP8_E5M2] = {"fp8e5", 2, 15, NR_FP8_NAN_IEEE, false, 0x7B, 0x7B, 0x7F, 57344.0, 57344.0},
    [NR_FP8_E4M3B15] = {"fp8e4b15", 3, 15, NR_FP8_NAN_NONE, true, 0x7F, 0x7E, 0x7E, 1.875, 1.75},
    [NR_FP8_E4M3FNUZ] = {"fp8e4b8", 3, 8, NR_FP8_NAN_80, false, 0x7F, 0x7F, 0x80, 240.0, 240.0},
    [NR_FP8_E5M2FNUZ] = {"fp8e5b16", 2, 16, NR_FP8_NAN_80, false, 0x7F, 0x7F, 0x80, 57344.0,
                         57344.0},
};

const NrFp8Desc *fp8_desc(NrFp8Format f) { return &descs[f]; }

bool fp8_is_nan_bits(NrFp8Format f, uint8_t b) {
    const NrFp8Desc *F = &descs[f];
    uint8_t mag = b & 0x7F, ones = (uint8_t)(0x7F >> F->mbits << F->mbits);
    switch (F->nans) {
    case NR_FP8_NAN_ALL_ONES: return mag == 0x7F;
    case NR_FP8_NAN_IEEE: return (mag & ones) == ones && (mag & ~ones);
    case NR_FP8_NAN_80: return b == 0x80;
    default: return false;
    }
}

double fp8_max(NrFp8Format f) { return descs[f].max; }
uint8_t fp8_max_bits(NrFp8Format f) { return descs[f].max_code; }

/* |x| (not NaN) rounded to the format, saturating at the code sat (and its value satv) */
static uint8_t encode(const NrFp8Desc *F, double x, uint8_t sat, double satv) {
    uint8_t sign = signbit(x) ? 0x80 : 0, code;
    double a = fabs(x);
    if (a >= satv) {
        code = sat; /* saturation, infinities included */
    } else if (a == 0) {
        code = 0;
    } else {
        int e;
        frexp(a, &e); /* a = m * 2^e, m in [0.5, 1): the leading bit is worth 2^(e-1) */
        int emin = 1 - F->bias, lead = e - 1 < emin ? emin : e - 1;
        double units = ldexp(a, F->mbits - lead); /* below 2^(mbits + 1): exact */
        double whole = floor(units), frac = units - whole;
        unsigned n = (unsigned)whole;
        if (frac > 0.5 || (frac == 0.5 && (F->ties_away || (n & 1)))) n++;
        /* subnormal binade: the code is the count; a normal one adds (lead - emin)
         * binades, its count carrying the implicit leading one into the exponent field */
        code = (uint8_t)(((unsigned)(lead - emin) << F->mbits) + n);
    }
    if (F->nans == NR_FP8_NAN_80 && code == 0) return 0; /* no -0 */
    return sign | code;
}

uint8_t fp8_from_double(NrFp8Format f, double x) {
    const NrFp8Desc *F = &descs[f];
    if (isnan(x) || (isinf(x) && F->nans == NR_FP8_NAN_80)) return F->nan_code;
    return encode(F, x, F->sat_code, F->sat);
}

double fp8_to_double(NrFp8Format f, uint8_t b) {
    const NrFp8Desc *F = &descs[f];
    bool neg = b & 0x80;
    if (fp8_is_nan_bits(f, b)) { /* a quiet NaN carrying the byte in its low bits */
        uint64_t u = UINT64_C(0x7FF8000000000000) | b | (neg ? UINT64_C(1) << 63 : 0);
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    int expf = (b & 0x7F) >> F->mbits, mant = b & ((1 << F->mbits) - 1);
    double v;
    if (F->nans == NR_FP8_NAN_IEEE && expf == 0x7F >> F->mbits) v = INFINITY;
    else if (expf == 0) v = ldexp((double)mant, 1 - F->bias - F->mbits);
    else v = ldexp((double)(mant + (1 << F->mbits)), expf - F->bias - F->mbits);
    return neg ? -v : v;
}

uint8_t fp8_bits(NrFp8Format f, double v) {
    const NrFp8Desc *F = &descs[f];
    if (isnan(v)) {
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        uint8_t b = (uint8_t)(u & 0xFF);
        return fp8_is_nan_bits(f, b) ? b : F->nan_code;
    }
    if (isinf(v) && F->nans == NR_FP8_NAN_IEEE)
        return (uint8_t)((v < 0 ? 0x80 : 0) | (0x7F >> F->mbits << F->mbits));
    if (isinf(v) && F->nans == NR_FP8_NAN_80) return F->nan_code;
    return encode(F, v, F->max_code, F->max);
}

double fp8_round(NrFp8Format f, double x) { return fp8_to_double(f, fp8_from_double(f, x)); }
