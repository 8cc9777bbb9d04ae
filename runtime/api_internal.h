/* api_internal.h - the C API's objects, shared by api.c (contexts, compiling, the CPU
 * device) and api_cuda.c (the CUDA device). */
#ifndef NEREID_API_INTERNAL_H
#define NEREID_API_INTERNAL_H

#include "driver/driver.h"
#include "cuda.h"
#include "interp.h"
#include "nereid.h"

typedef struct Allocation {
    void *ptr;
    size_t size;
} Allocation;

struct nr_context {
    nr_device_kind kind;
    CudaDevice *cuda; /* NR_DEVICE_CUDA */
    const int *cuda_fault; /* cuda_fault_code(cuda): nonzero once the device met a kernel fault */
    nr_module **mods; /* live modules: destroyed with the context if the caller did not */
    int nmods, capmods;
    StrBuf err;
    Allocation *allocs;
    int nallocs, capallocs;
    void **streams; /* nr_stream_create's: destroyed with the context if the caller did not */
    int nstreams, capstreams;
    nr_stats stats;
    /* CUDA kernel faults (api_cuda.c): the distinct kernels launched since the last
     * successful nr_synchronize, most recent first, to name the kernel that faulted; the
     * fault's description once one happened; whether a call has reported it yet */
    nr_kernel *recent[16];
    int nrecent;
    bool recent_overflow; /* more kernels than `recent` holds */
    StrBuf fault;
    bool fault_reported;
    Allocation *host;  /* nr_host_register's extents (CPU device): the caller's memory */
    int nhost, caphost;
};

enum { NR_MAX_LAUNCH_ARGS = 64 }; /* the GPU back end's limit on kernel parameters */

/* A variant's specialisation as the launch path compares it: each parameter's fact
 * (SPEC_NONE, SPEC_DIV16, SPEC_ONE) in two bits, parameter i at bit 2*(i%32) of facts[i/32],
 * with the warp count and the pipelining depth. */
typedef struct VariantKey {
    uint64_t facts[2];
    int num_warps, num_stages;
} VariantKey;

/* One compiled GPU variant of a kernel: a specialisation, a warp count and a
 * pipelining depth. */
typedef struct GpuVariant {
    VariantKey ikey;                  /* what a launch looks it up by */
    char key[NR_MAX_LAUNCH_ARGS + 8]; /* the same as text, for the disk cache's key: one fact letter per
                                         parameter, then warps and stages ("ddnd:4:3") */
    int num_warps, num_stages;
    CudaKernel k;
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
    int nparams;      /* the runtime parameters (the IR body's arguments) */
    int num_warps, num_stages; /* the module's (its program's), for a launch that gives none */
    /* the CUDA launch path (api.c, api_cuda.c): the parameters once `planned`, and the
     * variant the last launch used (a hint, checked first) */
    bool planned;
    int last_variant;
    GpuVariant *variants;
    int nvariants, capvariants;
    IrFunc *f;        /* a tuned kernel's: its signature only (runtime parameters) */
    LaunchParam params[NR_MAX_LAUNCH_ARGS];
};

struct nr_module {
    nr_context *ctx;
    NrProgram prog;
    Source *src;   /* kept: run-time errors quote source locations */
    char *text;
    nr_kernel *kernels;
    int nkernels;
    /* copies of the compile options (the caller's nr_define array is not kept); the
     * disk cache's key covers them (runtime/cache_key.c) */
    SemaDefine *defines;
    int ndefines;
    char *only_kernel; /* NULL: every kernel */
    int num_warps;     /* nr_compile_options.num_warps: 0 for the default */
    int num_stages;    /* nr_compile_options.num_stages: 0 for the default */
    struct TuneModule *tune; /* its tuned kernels (autotune.c); NULL if none */
};


nr_status api_fail(nr_context *ctx, nr_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void api_clear_error(nr_context *ctx);
/* The range [p, p+n) must lie inside one nr_malloc allocation of ctx (NR_ERR_INVALID_ARG,
 * saying `what`, otherwise). */
nr_status api_check_range(nr_context *ctx, nr_devptr p, size_t n, const char *what);

/* api_cuda.c */
nr_status cuda_api_open(nr_context *ctx, int index, StrBuf *err);
/* Launch the variant of key (warps and stages as given: checked here) with the packed
 * arguments (params[i] points to argument i in the width of its parameter; facts: the
 * specialisation, one SPEC_* per parameter, for compiling a new variant), on stream. */
nr_status cuda_api_launch(nr_kernel *k, const unsigned grid[3], const VariantKey *key, const uint8_t *facts,
                          void **params, void *stream);
void cuda_api_module_free(nr_module *m);
/* Whether the context's CUDA device has met a kernel fault (NR_OK: not): the first call
 * that asks after a fault gets NR_ERR_LAUNCH with the fault's description (the driver's
 * error, the kernels in flight, a failed device_assert's message and location), every
 * later one NR_ERR_DEVICE saying the context is unusable. */
nr_status cuda_api_fault(nr_context *ctx);
/* A successful nr_synchronize: no kernel is in flight any more. */
void cuda_api_synchronized(nr_context *ctx);

#endif
