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
    int rank;      /* 0 for scalars: then index 0 holds the scalar's facts */
    uint32_t spec; /* speculative facts only: the roots (AxisSpeculation) they rely on */
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

/* Speculation (what Triton assumes without saying; see axis_info.c): facts that hold when
 * some scalar integers of the kernel's top level, the roots, are not negative. Triton's
 * analysis takes every index as non-negative; ours proves it where it can, and where it
 * cannot (the grouped tile order of the matmul tutorial: pid_n is a quotient by
 * min(num_pid_m - first_pid_m, GROUP_SIZE_M), which an oversized grid makes negative)
 * it can speculate: info[v].spec names the roots v's facts need. gpu_speculate
 * (compiler/gpu/speculate.c) uses it to version the code whose accesses it widens behind
 * a check of those roots; everything else uses proven facts only. */
#define AXIS_INFO_MAX_ROOTS 32
typedef struct AxisSpeculation {
    AxisInfo *info;   /* by ValId: the facts when the roots each names are >= 0 */
    AxisInfo *proven; /* by ValId: the facts that hold whatever the roots are (spec 0) */
    int nroots;
    ValId roots[AXIS_INFO_MAX_ROOTS]; /* bit i of a spec: roots[i] >= 0 */
} AxisSpeculation;

/* Both analyses of f (in arena). */
AxisSpeculation *axis_info_speculate(const IrFunc *f, const ParamFact *facts, Arena *arena);

/* The roots an access (pointer ptr, mask or 0) needs for the vector width speculation
 * gives it along order_dim: 0 when the proven width is as wide, or when the wider one
 * exceeds max_width (the elements a thread can hold; < 1: no bound) and the proven
 * width reaches it. */
uint32_t axis_info_guard(const AxisSpeculation *s, ValId ptr, ValId mask, int elem_bytes,
                         int order_dim, int max_width);

/* The same for speculative facts: a fact that needs roots ends with
 * ", if %A >= 0, %B >= 0" (the roots, numbered the same way). */
void axis_info_print_speculative(StrBuf *out, const IrFunc *f, const AxisSpeculation *s);

/* A ParamFact table for f (in arena): divisibility for every pointer and integer (not
 * i1) parameter, 1 for the others, and nonzero when divisibility > 1 (as the runtime
 * specialises); what `--param-divisibility=N` means. */
ParamFact *axis_info_param_facts(const IrFunc *f, int64_t divisibility, Arena *arena);

/* How many elements one thread may access with one vector instruction along order_dim
 * (the fastest dim): min(contiguity, divisibility_bytes / elem_bytes, 16 / elem_bytes,
 * the mask's constancy when there is a mask), a power of two, at least 1. ptr_info is
 * the pointer block's facts; mask_info NULL when there is no mask. */
/* The longest run r (a power of two, at most the dim's size) such that in every run of r
 * elements of the i1 block `mask` along dim, starting at a multiple of r, the true elements
 * come first (a prefix: all, none, or the first k): what a cp.async copy of the run can
 * take whole, its source size counting the true ones and zero-filling the rest. A mask
 * constant over such runs qualifies; so does `x < b` (or <=, or b > x, b >= x) with x
 * increasing by one over the run and b constant over it (the bound may fall inside the run:
 * a tile's last columns past a size not known to be a multiple of the run), and an `and` or
 * `or` of qualifying masks, through splat, broadcast and expand_dims. info is f's facts by
 * ValId. */
int axis_info_prefix_width(const IrFunc *f, const AxisInfo *info, ValId mask, int dim);

/* The comparison op `cmp` as a prefix of each run along dim: x < b or x <= b (b > x, b >= x)
 * with x an integer rising by one over aligned runs and b constant over them. Returns the
 * longest such run (x's contiguity and divisibility, b's constancy; not rounded to a power
 * of two), with *x, *b and *le (a non-strict comparison), or 0 when it is no such form. */
int64_t axis_info_prefix_cmp(const IrFunc *f, const AxisInfo *info, OpId cmp, int dim, ValId *x,
                             ValId *b, bool *le);

/* The widest piece a cp.async copy of pointer block ptr (masked by mask, or 0) may take
 * along dim: axis_info_vector_width without the mask, bounded by the mask's prefix width
 * (the copy's source size counts the true elements). */
int axis_info_copy_width(const IrFunc *f, const AxisInfo *info, ValId ptr, ValId mask,
                         int elem_bytes, int dim);

int axis_info_vector_width(const AxisInfo *ptr_info, const AxisInfo *mask_info, int elem_bytes,
                           int order_dim);

#endif
