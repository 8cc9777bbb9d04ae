/* args.h - a launch's arguments against the kernel's parameters, shared by the CPU and
 * the CUDA launch paths. */
#ifndef NEREID_ARGS_H
#define NEREID_ARGS_H

#include "objects.h"

/* Parameter i's type, and its tag in the API's terms. */
IrType args_param_type(const nr_kernel *k, int i);
nr_type args_type_tag(IrType t);
bool args_is_int_tag(nr_type t);
bool args_is_float_tag(nr_type t);
/* args_convert's range test for the launch path, on a parameter of dt_bits(dt) == bits:
 * the largest
 * value the parameter holds (its smallest is -max - 1 if signed, else 0). */
static inline bool args_int_fits_fast(const nr_arg *a, int dt, int bits) {
    bool sgn_param = dt >= DT_I8 && dt <= DT_I64;
    uint64_t max = dt == DT_I1 ? 1 : UINT64_MAX >> (64 - bits + sgn_param);
    if (a->type <= NR_TYPE_I64 && a->v.i < 0) return sgn_param && a->v.i >= -(int64_t)max - 1;
    return a->v.u <= max;
}

/* A tensor descriptor argument checked against its parameter t; its parts (desc_part's
 * numbering: base, sizes, strides, padding) go to parts when it is not NULL. */
nr_status args_check_desc(nr_kernel *k, int i, const nr_arg *a, IrType t, int64_t *parts);
/* Argument i checked against parameter i and converted to the interpreter's scalar (a
 * float rounded to the parameter's type); a mismatch sets the context's error. */
nr_status args_convert(nr_kernel *k, int i, const nr_arg *a, InterpScalar *out);

#endif
