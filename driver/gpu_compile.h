/* gpu_compile.h - compile one kernel for the GPU under one specialisation: the IR after
 * the front end's passes, plus what the runtime knows of this launch's arguments
 * (Triton's specialisation: pointers 16-byte aligned, integers divisible by 16, integers
 * equal to 1), through the GPU passes and LLVM to PTX. */
#ifndef NEREID_GPU_COMPILE_H
#define NEREID_GPU_COMPILE_H

#include "compiler/codegen/llvm_gen.h"
#include "compiler/ir/ir.h"
#include "compiler/target/target.h"
#include "compiler/target/tma.h"

typedef struct GpuResult {
    StrBuf ptx;
    unsigned shared_bytes;
    unsigned threads;   /* per program: 32 * num_warps, plus a warp_specialize's producers */
    double times_ms[4]; /* GPU passes, LLVM IR construction, LLVM optimisation, PTX emission */
    IrModule *ir;       /* GPU_DUMP_FINAL: the module the GPU passes end with (the kernel
                           alone), in an arena of its own: arena_free(ir->arena) */
} GpuResult;

/* What goes to the dump: nothing, the IR after each GPU pass, or only the IR the GPU
 * passes end with (`--emit=gpu-ir`: in out->ir, not in the dump, so that the kernels of
 * a file print as one module, ir_print_modules; LLVM does not run then and out->ptx
 * stays empty). */
typedef enum { GPU_DUMP_NONE, GPU_DUMP_ALL, GPU_DUMP_FINAL } GpuDump;

/* dump (may be NULL) receives what `what` says, and llvm_ir (may be NULL) the optimised
 * LLVM IR. ptx/shared_bytes (and ir) go to out (init'ed by the call; free out->ptx with
 * sb_free). */
bool gpu_compile_kernel(const IrFunc *kernel, const GpuSpec *spec, const GpuTarget *t, GpuDump what,
                        StrBuf *dump, StrBuf *llvm_ir, GpuResult *out, Diag *diag);

/* The check a launcher makes before it runs the kernel compiled under spec with
 * spec->speculate == GPU_SPECULATE_ASSUME (compiler/gpu/speculate.c): the guard, a
 * kernel of the same parameters that the CPU interpreter runs over the launch's grid,
 * failing exactly when some program's roots are negative. Returns
 *   GPU_GUARD_NONE: the kernel speculates nothing (both modes compile the same code);
 *   GPU_GUARD_HOST: out->ir (an arena of its own: arena_free(out->ir->arena)) holds the
 *     guard kernel out->f;
 *   GPU_GUARD_OPAQUE: its roots need what the host cannot compute (memory, floats): the
 *     kernel must check them itself (GPU_SPECULATE_VERSION);
 *   -1: the front end's passes failed (diag says why). */
enum { GPU_GUARD_NONE, GPU_GUARD_HOST, GPU_GUARD_OPAQUE };
typedef struct GpuGuard {
    IrModule *ir;
    IrFunc *f;
    TmaPtrPlan tma; /* with spec->tma_pointers, whatever the kind: the maps the kernel takes */
} GpuGuard;
int gpu_speculation_guard(const IrFunc *kernel, const GpuSpec *spec, const GpuTarget *t,
                          GpuGuard *out, Diag *diag);

#endif
