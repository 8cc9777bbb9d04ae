/* fp8.h - Triton's five 8-bit float formats <-> double.
 *
 * Every format is a sign bit, then E exponent bits and M = 7 - E fraction bits, with
 * subnormals (exponent field 0: fraction * 2^(1 - bias - M)); they differ in the bias and
 * in what the top codes mean:
 *
 *   dtype     format                     bias  largest finite  NaN bytes              infinities
 *   fp8e4nv   OCP E4M3FN                  7    448 (0x7E)      0x7F, 0xFF             none
 *   fp8e5     OCP E5M2                   15    57344 (0x7B)    exponent 11111, f != 0  0x7C, 0xFC
 *   fp8e4b15  Triton's E4M3, bias 15     15    1.875 (0x7F)    none                   none
 *   fp8e4b8   E4M3 FNUZ (AMD)             8    240 (0x7F)      0x80 only (no -0)      none
 *   fp8e5b16  E5M2 FNUZ (AMD)            16    57344 (0x7F)    0x80 only (no -0)      none
 *
 * Narrowing (the conversion every back end implements): round to nearest in one step from
 * the double, ties to even (fp8e4b15: ties away from zero, as Triton's conversion rounds);
 * a magnitude at or above the saturation value gives it with the sign kept (the largest
 * finite value; fp8e4b15: 1.75, 0x7E, where Triton's conversion clamps); infinities
 * saturate likewise, except in the FNUZ formats, where they become the NaN 0x80. A NaN
 * becomes 0x7F (fp8e4nv, fp8e5), 0x80 (FNUZ) or 0x7E (fp8e4b15, which has no NaN), whatever
 * its sign. The FNUZ formats have no -0: a result of zero is 0x00. Widening is exact.
 *
 * The interpreter holds an fp8 value as the double fp8_to_double gives; for a NaN byte
 * that double keeps the byte in its payload, so fp8_bits gives back the byte a load read
 * (stores and bitcasts move the bits unchanged, as on the GPU). Standalone (no other Nereid
 * header) so that the interpreter, the constant folder and the GPU back end share one
 * definition. The formats are in the order of the IR's fp8 dtypes (compiler/ir/ir.h). */
#ifndef NEREID_FP8_H
#define NEREID_FP8_H

#include <stdbool.h>
#include <stdint.h>

typedef enum NrFp8Format {
    NR_FP8_E4M3,     /* fp8e4nv */
    NR_FP8_E5M2,     /* fp8e5 */
    NR_FP8_E4M3B15,  /* fp8e4b15 */
    NR_FP8_E4M3FNUZ, /* fp8e4b8 */
    NR_FP8_E5M2FNUZ, /* fp8e5b16 */
    NR_FP8_FORMATS
} NrFp8Format;

typedef enum NrFp8Nans {
    NR_FP8_NAN_NONE,     /* every byte is a number (fp8e4b15) */
    NR_FP8_NAN_ALL_ONES, /* exponent and fraction all ones (E4M3FN: 0x7F, 0xFF) */
    NR_FP8_NAN_IEEE,     /* exponent all ones and a fraction (E5M2), beside the infinities */
    NR_FP8_NAN_80,       /* 0x80 alone, the place of -0 (FNUZ) */
} NrFp8Nans;

typedef struct NrFp8Desc {
    const char *name; /* the dtype: "fp8e4nv", ... */
    int mbits, bias;  /* fraction bits (the exponent has 7 - mbits), exponent bias */
    NrFp8Nans nans;
    bool ties_away;   /* narrowing rounds ties away from zero (else to even) */
    uint8_t max_code; /* the largest finite value's byte */
    uint8_t sat_code; /* the byte narrowing saturates to (max_code but for fp8e4b15) */
    uint8_t nan_code; /* the byte a NaN narrows to */
    double max, sat;  /* the values of max_code and sat_code */
} NrFp8Desc;

const NrFp8Desc *fp8_desc(NrFp8Format f);
/* x narrowed to the format, as above */
uint8_t fp8_from_double(NrFp8Format f, double x);
/* the exact value of byte b; a NaN byte gives a NaN holding b */
double fp8_to_double(NrFp8Format f, uint8_t b);
/* the byte of v, a value of the format: NaNs give the byte they hold (or the NaN byte of
 * narrowing), an infinity the format's infinity (E5M2); others are rounded as narrowing
 * rounds but saturate at the largest finite value (so fp8e4b15's 1.875 is 0x7F) */
uint8_t fp8_bits(NrFp8Format f, double v);
/* x narrowed to the format, as a double: fp8_to_double(fp8_from_double(x)) */
double fp8_round(NrFp8Format f, double x);
/* the largest finite value and its byte */
double fp8_max(NrFp8Format f);
uint8_t fp8_max_bits(NrFp8Format f);
bool fp8_is_nan_bits(NrFp8Format f, uint8_t b);

#endif
