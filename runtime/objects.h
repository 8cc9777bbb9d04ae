/* objects.h - the C API's objects as the runtime's files share them: a context (its
 * device, memory, streams, modules, errors, CUDA faults), a module (its compiled program,
 * its kernels) and a kernel (its CUDA variants, its tuning). Types only: each file's own
 * header declares its functions. */
#ifndef NEREID_OBJECTS_H
#define NEREID_OBJECTS_H

#include "compiler/target/target.h"
#include "cuda.h"
#include "driver/driver.h"
#include "interp.h"
#include "nereid.h"

typedef struct Allocation {
    void *ptr;
    size_t size;
} Allocation;

struct nr_context {
    nr_device_kind kind;
    CudaDevice *cuda;      /* NR_DEVICE_CUDA */
    const int *cuda_fault; /* cuda_fault_code(cuda): nonzero once the device met a kernel fault */
    nr_module **mods;      /* live modules: destroyed with the context if the caller did not */
    int nmods, capmods;
    StrBuf err;
    Allocation *allocs;
    int nallocs, capallocs;
    void **streams; /* nr_stream_create's: destroyed with the context if the caller did not */
    int nstreams, capstreams;
    nr_stats stats;
    /* CUDA kernel faults (fault.c): the distinct kernels launched since the last
     * successful nr_synchronize, most recent first, to name the kernel that faulted; the
     * fault's description once one happened; whether a call has reported it yet */
    nr_kernel *recent[16];
    int nrecent;
    bool recent_overflow; /* more kernels than `recent` holds */
    StrBuf fault;
    bool fault_reported;
    Allocation *host; /* nr_host_register's extents (CPU device): the caller's memory */
    int nhost, caphost;
    /* the standard library's AST, parsed by the context's first compile (context_stdlib) and
     * read by every module's front end after it (on several threads in nr_compile_many,
     * which parses it first); in its own arena, freed with the context, after its modules */
    Arena *std_arena;
    const Module *std;
};

/* the GPU back end's limit on kernel parameters (Triton has none; mamba's SSD kernels take
 * more than 64; 256 of 8 bytes stay within CUDA's 4 KB of parameter space) */
enum { NR_MAX_LAUNCH_ARGS = 256 };

/* A variant's specialisation as the launch path compares it: each parameter's fact
 * (SPEC_NONE, SPEC_DIV16, SPEC_ONE, SPEC_ZERO) in two bits, parameter i at bit 2*(i%32) of
 * facts[i/32], with the warp count and the pipelining depth. */
typedef struct VariantKey {
    uint64_t facts[NR_MAX_LAUNCH_ARGS / 32];
    int num_warps, num_stages;
    int code; /* the code generator's options (launch_cuda.c's code_key) */
} VariantKey;

/* The host's check of a variant whose kernel takes its speculated indices as >= 0
 * (driver/gpu_compile.h's guard, run by the interpreter over a launch's grid), with its
 * verdicts: a table indexed by a hash of the grid and the values of the parameters the
 * guard reads (a verdict replaces the one of its slot). */
enum { GUARD_MAX_PARAMS = 16, GUARD_VERDICTS = 64 };
typedef struct GuardVerdict {
    bool valid, ok; /* ok: every program's roots >= 0, the assuming kernel may run */
    unsigned grid[3];
    uint64_t vals[GUARD_MAX_PARAMS]; /* the parameters' packed bits */
} GuardVerdict;
typedef struct SpecGuard {
    IrModule *ir; /* the guard kernel's, in an arena of its own */
    IrFunc *f;
    int nread;
    uint16_t read[GUARD_MAX_PARAMS]; /* the parameters it reads */
    uint64_t programs;               /* run by the interpreter so far (launch_cuda.c's budget) */
    GuardVerdict verdicts[GUARD_VERDICTS];
} SpecGuard;

/* One compiled GPU variant of a kernel: a specialisation, a warp count and a
 * pipelining depth. */
typedef struct GpuVariant {
    VariantKey ikey;                   /* what a launch looks it up by */
    char key[NR_MAX_LAUNCH_ARGS + 12]; /* the same as text, for the disk cache's key: one fact
                                          letter per parameter, then warps and stages
                                          ("ddnd:4:3"), then ":a" when k assumes its guard */
    int num_warps, num_stages;
    GpuCodeOptions code;
    CudaKernel k;
    /* With a guard, k assumes it holds (GPU_SPECULATE_ASSUME); a launch it refuses runs
     * full, the kernel that checks its indices itself (GPU_SPECULATE_VERSION), compiled or
     * loaded at the first such launch. */
    SpecGuard *guard;
    CudaKernel full;
    bool has_full;
    bool ran_full; /* the last launch ran full (what asm and the resources describe) */
    /* With tensor maps for its pointer loads (compiler/gpu/tma_pointers.c: parameters after
     * the user's, built at each launch from the arguments), k takes them; a launch whose
     * arguments do not fit them runs full too (compiled without them). */
    struct TmaMaps *tma;
} GpuVariant;

/* One parameter as the CUDA launch path checks and packs it (made at the kernel's first
 * CUDA launch, from the IR's signature). */
typedef struct LaunchParam {
    uint8_t dt;   /* DType */
    uint8_t bits; /* dt_bits(dt) */
} LaunchParam;

/* What a launch reads comes first, together (the launch path touches nothing else of
 * the kernel's, and nothing of its IR, once the variant exists). */
struct nr_kernel {
    nr_module *mod;
    struct TunedKernel *tuned; /* @autotune / @heuristics: launches go through autotune.c */
    int nparams;               /* the runtime parameters (the IR body's arguments) */
    int num_warps, num_stages; /* the module's (its program's), for a launch that gives none */
    /* the CUDA launch path (launch_cuda.c): the parameters once `planned`, and the
     * variant the last launch used (a hint, checked first) */
    bool planned;
    bool launched; /* a launch succeeded (nr_kernel_last_info) */
    int last_variant;
    GpuVariant *variants;
    int nvariants, capvariants;
    IrFunc *f; /* a tuned kernel's: its signature only (runtime parameters) */
    LaunchParam params[NR_MAX_LAUNCH_ARGS];
};

/* One launch_prepare of launch_prepare_many (launch.h): a kernel that is not tuned, its
 * arguments and options; its status comes back in `status`. */
typedef struct PrepareJob {
    nr_kernel *k;
    const nr_arg *args;
    int nargs;
    nr_launch_options opts;
    nr_status status;
} PrepareJob;

struct nr_module {
    nr_context *ctx;
    NrProgram prog;
    Source *src;           /* kept: run-time errors quote source locations (a tuned kernel's
                              variant: its base module's) */
    char *text;            /* owned, but by a variant (base != NULL) */
    const nr_module *base; /* a tuned kernel's per-config module: the module it comes from */
    nr_kernel *kernels;
    int nkernels;
    /* copies of the compile options (the caller's nr_define array is not kept); the
     * disk cache's key covers them (runtime/cache_key.c) */
    SemaDefine *defines;
    int ndefines;
    char *only_kernel;                   /* NULL: every kernel */
    int num_warps;                       /* nr_compile_options.num_warps: 0 for the default */
    int num_stages;                      /* nr_compile_options.num_stages: 0 for the default */
    int maxnreg, fp_fusion, reflect_ftz; /* nr_compile_options.maxnreg, enable_fp_fusion and
                                            enable_reflect_ftz: 0 for the defaults */
    int debug;                           /* nr_compile_options.debug */
    nr_constexpr_call constexpr_call;    /* nr_compile_options.constexpr_call and its user */
    void *constexpr_user;
    struct TuneModule *tune; /* its tuned kernels (autotune.c); NULL if none */
    /* variants compiled for another warp count, for launches with num_warps= other than the
     * compiled one of a program that reads it (tl.extra.cuda.num_threads(); launch.c) */
    nr_module **warp_variants;
    int nwarp_variants;
    char *diagnostics; /* the warnings and notes (tl.static_print) of its compile, owned; NULL: none
                        */
};

#endif
