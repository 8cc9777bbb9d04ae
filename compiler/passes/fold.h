/* fold.h - compile-time evaluation of ops on constants, following the semantics in
 * ir_ops.def exactly (the CPU interpreter is the reference). Private to compiler/passes.
 *
 * A constant's value: integers normalised to their dtype (signed ones sign-extended,
 * unsigned ones and i1 zero-extended into the 64 bits), floats held as doubles already
 * rounded to their dtype. Every function returns false when it declines to fold (a
 * case whose result the back ends may compute differently, or a pointer). */
#ifndef NEREID_FOLD_H
#define NEREID_FOLD_H

#include "compiler/ir/ir.h"

typedef union Num {
    int64_t i;
    double f;
} Num;

int64_t fold_wrap(int dt, uint64_t v); /* an integer wrapped to dt's width */
double fold_round(int dt, double x);   /* a double rounded to dt (a float type, fp8 included) */
int64_t fold_all_ones(int dt);         /* -1 at dt's width */

/* Elementwise ops of one dtype (add ... fma, neg ... ceil): a[0..n-1] -> out. */
bool fold_arith(int code, int dt, const Num *a, Num *out);
/* cmp pred a b on dtype dt -> i1 in out->i. */
bool fold_cmp(int pred, int dt, Num a, Num b, Num *out);
/* cvt and bitcast from dtype `from` to dtype `to`. */
bool fold_cvt(int from, int to, Num a, Num *out);
bool fold_bitcast(int from, int to, Num a, Num *out);

#endif
