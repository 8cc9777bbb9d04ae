/* axis_info.h - alignment analysis (Triton's AxisInfo): for every integer and pointer
 * value, per dimension, the contiguity (length of runs of consecutive values), the
 * divisibility (the largest power of two dividing the first value of every run; in
 * bytes for pointers) and the constancy (length of runs of equal values). Seeded by
 * the facts the runtime specialises kernels on (pointer arguments 16-byte aligned,
 * integer arguments divisible by 16) and by multiple_of / max_contiguous hints. The
 * coalescing and load/store lowering use it to prove 128-bit vector accesses. */
#ifndef NEREID_AXIS_INFO_H
#define NEREID_AXIS_INFO_H

#include "compiler/ir/ir.h"

/* The divisibility of 0, and the most any fact claims. */
#define AXIS_INFO_MAX_DIVISIBILITY ((int64_t)1 << 30)

typedef struct AxisInfo {
    int64_t contiguity[NR_MAX_RANK];
    int64_t divisibility[NR_MAX_RANK];
    int64_t constancy[NR_MAX_RANK];
    int rank; /* 0 for scalars: then index 0 holds the scalar's facts */
} AxisInfo;

/* Facts about one kernel parameter (index in the body's args). divisibility is in
 * bytes for pointers, in value units for integers; 1 when nothing is known. nonzero:
 * the value is not 0 (the runtime's specialisation on multiples of 16 leaves 0 out). */
typedef struct ParamFact {
    int64_t divisibility;
    bool nonzero;
} ParamFact;

/* Analyse f (inlined, no calls); facts has one entry per parameter, or is NULL (nothing
 * known). Returns a table indexed by ValId with f->nvals entries, in arena. Values that
 * are neither integers nor pointers get the neutral facts (1, 1, 1). */
AxisInfo *axis_info_analyze(const IrFunc *f, const ParamFact *facts, Arena *arena);

/* Print "%N: contiguity = [..], divisibility = [..], constancy = [..]" for every integer
 * or pointer value of f, numbered as ir_print_func numbers them (for tests). */
void axis_info_print(StrBuf *out, const IrFunc *f, const AxisInfo *info);

/* A ParamFact table for f (in arena): divisibility for every pointer and integer (not
 * i1) parameter, 1 for the others, and nonzero when divisibility > 1 (as the runtime
 * specialises); what `--param-divisibility=N` means. */
ParamFact *axis_info_param_facts(const IrFunc *f, int64_t divisibility, Arena *arena);

/* How many elements one thread may access with one vector instruction along order_dim
 * (the fastest dim): min(contiguity, divisibility_bytes / elem_bytes, 16 / elem_bytes,
 * the mask's constancy when there is a mask), a power of two, at least 1. ptr_info is
 * the pointer block's facts; mask_info NULL when there is no mask. */
int axis_info_vector_width(const AxisInfo *ptr_info, const AxisInfo *mask_info, int elem_bytes,
                           int order_dim);

#endif
