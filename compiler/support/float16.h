/* float16.h - IEEE binary16 (fp16) and bfloat16 (bf16) <-> float/double conversions.
 *
 * Narrowing rounds to nearest, ties to even, in one step from the source value (never
 * through an intermediate float, which could round twice); overflow gives infinity,
 * tiny values go to subnormals or signed zero, NaN stays a quiet NaN keeping the top
 * payload bits. Widening is exact. Standalone (no other Nereid header) so that the GPU
 * back end, the constant folder and the interpreter all share one definition. */
#ifndef NEREID_FLOAT16_H
#define NEREID_FLOAT16_H

#include <stdint.h>

uint16_t fp16_from_double(double x);
uint16_t fp16_from_float(float x);
double fp16_to_double(uint16_t h);
float fp16_to_float(uint16_t h);

uint16_t bf16_from_double(double x);
uint16_t bf16_from_float(float x);
double bf16_to_double(uint16_t h);
float bf16_to_float(uint16_t h);

/* x rounded to the nearest fp16 / bf16 value, returned as a double (exact). */
double fp16_round(double x);
double bf16_round(double x);

#endif
