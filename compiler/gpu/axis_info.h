/* axis_info.h - alignment analysis (Triton's AxisInfo): for every integer and pointer
 * value, per dimension, the contiguity (length of runs of consecutive values), the
 * divisibility (the largest power of two dividing the first value of every run; in
 * bytes for pointers) and the constancy (length of runs of equal values). Seeded by
 * the facts the runtime specialises kernels on (pointer arguments 16-byte aligned,
 * integer arguments divisible by 16) and by multiple_of / max_contiguous hints. The
 * coalescing and load/store lowering use it to prove 128-bit vector accesses. */
#ifndef NEREID_AXIS_INFO_H
#define NEREID_AXIS_INFO_H

#include "../ir.h"

typedef struct AxisInfo {
    int64_t contiguity[NR_MAX_RANK];
    int64_t divisibility[NR_MAX_RANK];
    int64_t constancy[NR_MAX_RANK];
    int rank; /* 0 for scalars: then index 0 holds the scalar's facts */
} AxisInfo;

/* Facts about one kernel parameter (index in the body's args). divisibility is in
 * bytes for pointers, in value units for integers; 1 when nothing is known. */
typedef struct ParamFact {
    int64_t divisibility;
} ParamFact;

/* Analyse f (inlined, no calls); facts has one entry per parameter, or is NULL (nothing
 * known). Returns a table indexed by ValId with f->nvals entries, in arena. Values that
 * are neither integers nor pointers get the neutral facts (1, 1, 1). */
AxisInfo *axis_info_analyze(const IrFunc *f, const ParamFact *facts, Arena *arena);

/* Print "%N: contiguity = [..], divisibility = [..], constancy = [..]" for every integer
 * or pointer value of f, numbered as ir_print_func numbers them (for tests). */
void axis_info_print(StrBuf *out, const IrFunc *f, const AxisInfo *info);

#endif
