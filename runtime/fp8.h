/* fp8.h - the two 8-bit float formats (OCP FP8) <-> double.
 *
 * fp8e4nv is E4M3FN: 1 sign, 4 exponent bits (bias 7), 3 fraction bits, subnormals, no
 * infinities, NaN only at 0x7F and 0xFF; the largest finite value is 448 (0x7E). fp8e5
 * is E5M2: bias 15, 2 fraction bits, laid out like IEEE binary16's top byte, with
 * infinities (0x7C, 0xFC), NaNs (exponent all ones, fraction not 0) and 57344 (0x7B) as
 * the largest finite value.
 *
 * Narrowing (the conversion every back end implements, as PTX's cvt.rn.satfinite does):
 * round to nearest, ties to even, in one step from the double; a magnitude above the
 * largest finite value, infinities included, saturates to it with the sign kept; every
 * NaN becomes 0x7F, in both formats. Widening is exact. The interpreter holds an fp8
 * value as the double nr_fp8_to_double gives; for a NaN byte that double keeps the byte
 * in its payload, so nr_fp8_bits gives back the byte a load read (stores and bitcasts
 * move the bits unchanged, as on the GPU). Standalone (no other Nereid header) so that
 * the interpreter, the constant folder and the GPU back end share one definition. */
#ifndef NEREID_FP8_H
#define NEREID_FP8_H

#include <stdbool.h>
#include <stdint.h>

typedef enum NrFp8Format { NR_FP8_E4M3, NR_FP8_E5M2 } NrFp8Format;

/* x rounded to the format (RNE, saturating to the largest finite value, NaN -> 0x7F) */
uint8_t nr_fp8_from_double(NrFp8Format f, double x);
/* the exact value of byte b; a NaN byte gives a NaN holding b */
double nr_fp8_to_double(NrFp8Format f, uint8_t b);
/* the byte of v, a value of the format: NaNs give the byte they hold (0x7F if none) */
uint8_t nr_fp8_bits(NrFp8Format f, double v);
/* x rounded to the format, as a double: nr_fp8_to_double(nr_fp8_from_double(x)) */
double nr_fp8_round(NrFp8Format f, double x);
/* the largest finite value (448, 57344) and its byte (0x7E, 0x7B) */
double nr_fp8_max(NrFp8Format f);
uint8_t nr_fp8_max_bits(NrFp8Format f);
bool nr_fp8_is_nan_bits(NrFp8Format f, uint8_t b);

#endif
