/* fp8.c - fp8e4nv (E4M3FN) and fp8e5 (E5M2) conversions (see fp8.h).
 *
 * Narrowing scales |x| so that one unit in the last place of the format, at x's binade
 * (or at the smallest normal binade for subnormals), becomes 1.0: the scaled value is
 * below 2^(fraction bits + 1), so its integer and fractional parts are exact in a double
 * and the rounding to nearest even is done on them by hand (no dependence on the FPU's
 * rounding mode). The rounded count of units, added to the binade's first code, is the
 * code: a count that reaches the next power of two carries into the exponent field,
 * which is the next binade, as it should be. */
#include "fp8.h"

#include <math.h>
#include <string.h>

typedef struct Fp8Fmt {
    int mbits, bias;
    uint8_t max_code;
    double max;
} Fp8Fmt;

static Fp8Fmt fmt_of(NrFp8Format f) {
    if (f == NR_FP8_E4M3) return (Fp8Fmt){3, 7, 0x7E, 448.0};
    return (Fp8Fmt){2, 15, 0x7B, 57344.0};
}

bool nr_fp8_is_nan_bits(NrFp8Format f, uint8_t b) {
    uint8_t mag = b & 0x7F;
    if (f == NR_FP8_E4M3) return mag == 0x7F;
    return (mag & 0x7C) == 0x7C && (mag & 0x03);
}

double nr_fp8_max(NrFp8Format f) { return fmt_of(f).max; }
uint8_t nr_fp8_max_bits(NrFp8Format f) { return fmt_of(f).max_code; }

uint8_t nr_fp8_from_double(NrFp8Format f, double x) {
    if (isnan(x)) return 0x7F;
    Fp8Fmt F = fmt_of(f);
    uint8_t sign = signbit(x) ? 0x80 : 0;
    double a = fabs(x);
    if (a >= F.max) return sign | F.max_code; /* saturation, infinities included */
    if (a == 0) return sign;
    int e;
    frexp(a, &e); /* a = m * 2^e, m in [0.5, 1): the leading bit is worth 2^(e-1) */
    int emin = 1 - F.bias, lead = e - 1 < emin ? emin : e - 1;
    double units = ldexp(a, F.mbits - lead); /* below 2^(mbits + 1): exact */
    double whole = floor(units), frac = units - whole;
    unsigned n = (unsigned)whole;
    if (frac > 0.5 || (frac == 0.5 && (n & 1))) n++;
    /* subnormal binade: the code is the count; a normal one adds (lead - emin) binades,
     * its count carrying the implicit leading one into the exponent field */
    return (uint8_t)(sign | (((unsigned)(lead - emin) << F.mbits) + n));
}

double nr_fp8_to_double(NrFp8Format f, uint8_t b) {
    Fp8Fmt F = fmt_of(f);
    bool neg = b & 0x80;
    if (nr_fp8_is_nan_bits(f, b)) { /* a quiet NaN carrying the byte in its low bits */
        uint64_t u = UINT64_C(0x7FF8000000000000) | b | (neg ? UINT64_C(1) << 63 : 0);
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    int expf = (b & 0x7F) >> F.mbits, mant = b & ((1 << F.mbits) - 1);
    double v;
    if (f == NR_FP8_E5M2 && expf == 31) v = INFINITY;
    else if (expf == 0) v = ldexp((double)mant, 1 - F.bias - F.mbits);
    else v = ldexp((double)(mant + (1 << F.mbits)), expf - F.bias - F.mbits);
    return neg ? -v : v;
}

uint8_t nr_fp8_bits(NrFp8Format f, double v) {
    if (!isnan(v)) {
        if (f == NR_FP8_E5M2 && isinf(v)) return v < 0 ? 0xFC : 0x7C;
        return nr_fp8_from_double(f, v);
    }
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    uint8_t b = (uint8_t)(u & 0xFF);
    return nr_fp8_is_nan_bits(f, b) ? b : 0x7F;
}

double nr_fp8_round(NrFp8Format f, double x) { return nr_fp8_to_double(f, nr_fp8_from_double(f, x)); }
