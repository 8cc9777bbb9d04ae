/* llvm_gen.h - lowering of a kernel with assigned layouts to LLVM IR (through the LLVM
 * 19 C API only) and, through the NVPTX back end, to PTX. */
#ifndef NEREID_LLVM_GEN_H
#define NEREID_LLVM_GEN_H

#include "compiler/analysis/axis_info.h"
#include "compiler/ir/ir.h"
#include "compiler/target/target.h"

/* The default LLVM pipeline: the front end and the GPU passes have already folded,
 * CSE'd and vectorised, so LLVM needs cleanup (instcombine, CSE) and loop-invariant
 * code motion, not O3's inlining or partial and runtime unrolling
 * (`--llvm-passes='default<O3>'` makes PTX of about the same size for the examples, in
 * several times the time). It does need what O3's loop work gives Triton's code on loops
 * that hold a branch: loops rotated, then, where the trip count is constant, unrolled
 * whole when the body is small and peeled where a condition holds on the first iteration
 * only (Inductor's welford_reduce: `if roffset == 0`), which leaves the loop without a
 * branch (ptxas then schedules its loads ahead; tests/lit/codegen/llvm-loops.nrir).
 * Rotated loops then get indvars (the induction variable's range) and
 * correlated-propagation, which prove conditions from the dominating loop guard: in
 * Inductor's reductions `r0_offset + arange(0, R) < r0_numel` on every iteration but the
 * last is known true and its selects and masks go, as Triton's O3 removes them
 * (tests/lit/codegen/llvm-loops.nrir).
 * GVN and a second early-cse change no byte of any example's PTX (NVPTX's own IR passes
 * run EarlyCSE three times: tools/sass-compare.py, the same registers, spills and
 * instructions). */
#define LLVM_GEN_PIPELINE                                                                     \
    "function(early-cse,instcombine<no-verify-fixpoint>,simplifycfg,loop-mssa(licm),"         \
    "loop(loop-rotate,indvars),loop-unroll<O3;no-partial;no-runtime>,correlated-propagation," \
    "instcombine<no-verify-fixpoint>,simplifycfg)"

/* Lower f (layouts assigned, shared memory allocated, barriers placed) to LLVM IR and
 * PTX. llvm_ir (may be NULL) gets the textual LLVM IR after optimisation; ptx gets the
 * PTX. Errors (llvm_gen_check's, an unsupported op or type on the GPU) go to diag;
 * returns false then.
 * times_ms (may be NULL) gets [0] LLVM IR construction, [1] optimisation (with what comes
 * before LLVM's pipeline: the target machine, libdevice's linking, the verifier), [2] PTX. */
bool llvm_gen_kernel(IrFunc *f, const AxisInfo *info, const GpuTarget *t, StrBuf *llvm_ir,
                     StrBuf *ptx, Diag *diag, double *times_ms);

/* Does f have what the code generator needs beyond the verifier's rules: what the GPU
 * passes leave once they have all run (shared memory placed and sized, dot operands
 * where their lowering reads them, cp.async pieces the alignment facts prove, no calls)?
 * Each shortfall is an error at its op in diag (llvm_check.c). llvm_gen_kernel calls it
 * first. */
bool llvm_gen_check(const IrFunc *f, const AxisInfo *info, Diag *diag);

/* Where CUDA's libdevice is (llvm_libdevice.c): the file NEREID_LIBDEVICE names ("none"
 * or empty: none), else $CUDA_HOME, $CUDA_PATH or /usr/local/cuda's
 * nvvm/libdevice/libdevice.10.bc; the first readable one, written into buf, or NULL. */
const char *gpu_libdevice_find(char *buf, size_t n);
/* What identifies that file for caches: its path, size and modification time ("none"
 * for NULL). */
void gpu_libdevice_id(const char *path, StrBuf *out);

/* The LLVM version the back end is built with. */
void llvm_gen_version(unsigned *major, unsigned *minor, unsigned *patch);

#endif
