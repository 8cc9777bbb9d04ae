/* passes.h - the optimisation passes over the IR and the pipeline that runs them with the
 * verifier in between (by name, they run through driver/pass_registry.h).
 *
 * Every pass edits the module in place and leaves it verifying (each file's opening
 * comment states what it requires, maintains and breaks). */
#ifndef NEREID_PASSES_H
#define NEREID_PASSES_H

#include "compiler/ir/ir.h"

/* Inlines every call, repeatedly, then drops the non-kernel functions. False (with a
 * diagnostic) on a call cycle or a missing callee. */
bool pass_inline(IrModule *m, Diag *d);
/* Constant folding, algebraic identities, constant if/zero-trip for; to a fixed point. */
void pass_canonicalize(IrModule *m);
/* add(x, dot(a, b, 0)) -> dot(a, b, x): `acc += tl.dot(a, b)` accumulates in the dot. */
void pass_combine_dot(IrModule *m);
/* tl.range(..., flatten=True): a loop holding one inner loop becomes one loop over both
 * (flatten_loops.c). */
/* ws_fuses: a warp_specialize hint on the outer loop fuses the nest too (the target is
 * sm_90a, where gpu-pipeline specialises the fused loop). */
void pass_flatten_loops(IrModule *m, bool ws_fuses);
/* Scoped common-subexpression elimination of pure ops. */
void pass_cse(IrModule *m);
/* Removes unused pure ops and loads, unused if/for results, and empty if/for ops. */
void pass_dce(IrModule *m);

/* desc_load / desc_store -> the loads and stores of pointer blocks and masks they stand
 * for (ir_ops.def), reading the descriptor with desc_part. ir_expand_descriptors does one
 * function and leaves the accesses through parameter i where keep[i] (keep may be NULL). */
void pass_expand_descriptors(IrModule *m);
void ir_expand_descriptors(IrFunc *f, const bool *keep);

/* A dot with batch dims (rank 3 and up) -> one 2-D dot per batch, the batches sliced and put
 * back with selects (batched_dot.c): what the GPU back end's 2-D dot lowerings take. */
void pass_split_batched_dots(IrModule *m);
void ir_split_batched_dots(IrFunc *f);

typedef struct NrPassOptions {
    bool print_after_all; /* append the module to dump after every pass */
} NrPassOptions;

/* The standard pipeline: inline, canonicalize, combine-dot, cse, flatten-loops, dce,
 * canonicalize, dce, verifying
 * the input and the result of every pass (a failure is an internal error reported to
 * d). dump may be NULL when print_after_all is off. */
bool pass_run_pipeline(IrModule *m, const NrPassOptions *o, Diag *d, StrBuf *dump);

#endif
