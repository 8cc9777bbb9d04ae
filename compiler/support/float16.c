/* float16.c - fp16 and bf16 conversions by bit manipulation (see float16.h). Both are
 * "small" binary formats that differ only in exponent and fraction widths, so one
 * narrowing and one widening routine serve both. */
#include "float16.h"

#include <string.h>

static uint64_t bits_of(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double double_of(uint64_t u) {
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* sig >> shift, rounded to nearest with ties to even (0 < shift < 64). */
static uint64_t shift_rne(uint64_t sig, int shift) {
    uint64_t q = sig >> shift, r = sig & ((UINT64_C(1) << shift) - 1);
    uint64_t half = UINT64_C(1) << (shift - 1);
    if (r > half || (r == half && (q & 1))) q++;
    return q;
}

/* Round x to the format with ebits exponent bits and mbits fraction bits. A rounding
 * carry out of the fraction runs into the exponent field, which is exactly the next
 * binade (or infinity from the largest finite value). */
static uint16_t narrow(double x, int ebits, int mbits) {
    uint64_t u = bits_of(x);
    uint16_t sign = (uint16_t)((u >> 63) << (ebits + mbits));
    int dexp = (int)((u >> 52) & 0x7ff);
    uint64_t frac = u & ((UINT64_C(1) << 52) - 1);
    uint16_t inf = (uint16_t)(((1u << ebits) - 1) << mbits);
    if (dexp == 0x7ff) {
        if (!frac) return sign | inf;
        return (uint16_t)(sign | inf | (1u << (mbits - 1)) | (frac >> (52 - mbits)));
    }
    if (dexp == 0) return sign; /* double subnormals are far below both formats' range */
    int bias = (1 << (ebits - 1)) - 1, e = dexp - 1023, emin = 1 - bias;
    if (e > bias) return sign | inf;
    uint64_t sig = frac | (UINT64_C(1) << 52);
    if (e >= emin) {
        /* the implicit bit in the rounded significand adds the exponent's last 1 */
        uint64_t v = ((uint64_t)(e + bias - 1) << mbits) + shift_rne(sig, 52 - mbits);
        return (uint16_t)(sign | v);
    }
    int shift = 52 - mbits + (emin - e); /* subnormal: count units of 2^(emin - mbits) */
    if (shift >= 64) return sign;
    return (uint16_t)(sign | shift_rne(sig, shift));
}

static double widen(uint16_t h, int ebits, int mbits) {
    uint64_t sign = (uint64_t)(h >> (ebits + mbits)) << 63;
    int emask = (1 << ebits) - 1, bias = (1 << (ebits - 1)) - 1;
    int exp = (h >> mbits) & emask;
    uint64_t frac = h & ((1u << mbits) - 1);
    if (exp == emask) return double_of(sign | (UINT64_C(0x7ff) << 52) | (frac << (52 - mbits)));
    int e;
    if (exp == 0) {
        if (!frac) return double_of(sign);
        e = 1 - bias; /* subnormal: normalise so the leading 1 becomes implicit */
        while (!(frac & (UINT64_C(1) << mbits))) frac <<= 1, e--;
        frac &= (UINT64_C(1) << mbits) - 1;
    } else {
        e = exp - bias;
    }
    return double_of(sign | ((uint64_t)(e + 1023) << 52) | (frac << (52 - mbits)));
}

uint16_t fp16_from_double(double x) { return narrow(x, 5, 10); }
uint16_t fp16_from_float(float x) { return narrow((double)x, 5, 10); }
double fp16_to_double(uint16_t h) { return widen(h, 5, 10); }
float fp16_to_float(uint16_t h) { return (float)widen(h, 5, 10); }

uint16_t bf16_from_double(double x) { return narrow(x, 8, 7); }
uint16_t bf16_from_float(float x) { return narrow((double)x, 8, 7); }
double bf16_to_double(uint16_t h) { return widen(h, 8, 7); }
float bf16_to_float(uint16_t h) { return (float)widen(h, 8, 7); }

double fp16_round(double x) { return widen(narrow(x, 5, 10), 5, 10); }
double bf16_round(double x) { return widen(narrow(x, 8, 7), 8, 7); }
