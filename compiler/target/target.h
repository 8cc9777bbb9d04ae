/* target.h - the description of the machine a kernel is compiled for, shared by the GPU
 * passes (GpuOptions), the code generator (GpuTarget), the driver and the runtime: the
 * architecture, the warp count, the pipelining depth, and the launch's specialisation
 * facts (Triton's: pointers 16-byte aligned, integers divisible by 16, integers equal to
 * 1). The GPU passes and the code generator both sit above this folder and never include
 * each other. */
#ifndef NEREID_TARGET_H
#define NEREID_TARGET_H

#include "compiler/ir/ir.h"

/* What the code generator takes beyond the warp count and the pipelining depth, Triton's
 * compile options of the same names (a launch may override them; a variant's key and the
 * disk cache's key carry them): maxnreg, the kernel's .maxnreg (0: none); fp_fusion
 * (enable_fp_fusion), a float multiply and the add or subtract of its result may become
 * one fma (rounded once: no longer the interpreter's value bit for bit); reflect_ftz
 * (enable_reflect_ftz), tl.exp2 and CUDA libdevice's functions flush denormal inputs and
 * results to zero (libdevice's __CUDA_FTZ is 1). Zero is the default of each. */
typedef struct GpuCodeOptions {
    int maxnreg;
    bool fp_fusion;
    bool reflect_ftz;
} GpuCodeOptions;

typedef struct GpuTarget {
    const char *arch; /* "sm_80", "sm_90", "sm_90a" */
    int num_warps;
    int num_stages;         /* software-pipelining depth (1: none) */
    const char *pipeline;   /* LLVM new-pass-manager pipeline; NULL: LLVM_GEN_PIPELINE */
    const char *libdevice;  /* CUDA's libdevice.10.bc for the math op's functions (erf, pow,
                               ...); NULL: Nereid's own routines (gpu_libdevice_find) */
    const bool *tma_params; /* per parameter: a tensor descriptor taken by TMA (its parameter
                               holds the tensor map: compiler/target/tma.h); NULL: none */
    uint32_t nparams;       /* entries of tma_params */
    GpuCodeOptions code;    /* zero: the defaults */
} GpuTarget;

typedef struct GpuOptions {
    int arch;       /* GpuArch */
    int num_warps;  /* threads per program = 32 * num_warps */
    int num_stages; /* software-pipelining depth (1: none) */
    int param_div;  /* for the pass table: every pointer and integer parameter is taken as
                       divisible by this (the real pipeline has the launch's facts) */
} GpuOptions;

/* A parameter's specialisation fact at a launch. SPEC_ZERO is an argument equal to 0 (an
 * integer, or a null pointer): Triton's launcher counts 0 among the multiples of 16, so it
 * is divisible by 16 for alignment and vector widths, but not nonzero (x % n keeps no runs). */
enum { SPEC_NONE = 0, SPEC_DIV16 = 1, SPEC_ONE = 2, SPEC_ZERO = 3 };

/* What the kernel does with the signs Triton takes for granted (compiler/gpu/speculate.c):
 * VERSION checks them in the kernel (a fast copy and a cold one); ASSUME takes them as
 * given, for a launch whose every program the launcher checked first
 * (driver/gpu_compile.h's guard). */
enum { GPU_SPECULATE_VERSION = 0, GPU_SPECULATE_ASSUME = 1 };

typedef struct GpuSpec {
    int nparams;
    const uint8_t *facts; /* per parameter: SPEC_DIV16 (pointer 16-byte aligned and not
                             null / integer a nonzero multiple of 16), SPEC_ONE (integer
                             equal to 1), or SPEC_NONE */
    int speculate;        /* GPU_SPECULATE_* (0: VERSION) */
    bool tma_pointers;    /* pointer loads through tensor maps the launcher builds
                             (compiler/gpu/tma_pointers.c: new parameters; a launcher only) */
} GpuSpec;

/* The GpuArch of "sm_80", "sm_90", "sm_90a" (sm_80 for anything else). */
int gpu_arch_of(const char *arch);

#endif
