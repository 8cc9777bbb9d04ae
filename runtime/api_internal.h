/* api_internal.h - the C API's objects, shared by api.c (contexts, compiling, the CPU
 * device) and api_cuda.c (the CUDA device). */
#ifndef NEREID_API_INTERNAL_H
#define NEREID_API_INTERNAL_H

#include "../compiler/driver.h"
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

/* One compiled GPU variant of a kernel: a specialisation, a warp count and a
 * pipelining depth. */
typedef struct GpuVariant {
    char key[NR_MAX_LAUNCH_ARGS + 8]; /* one fact letter per parameter, then warps and stages */
    int num_warps, num_stages;
    CudaKernel k;
} GpuVariant;

struct nr_kernel {
    nr_module *mod;
    IrFunc *f;        /* a tuned kernel's: its signature only (runtime parameters) */
    GpuVariant *variants;
    int nvariants, capvariants;
    struct TunedKernel *tuned; /* @autotune / @heuristics: launches go through autotune.c */
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

/* api_cuda.c */
nr_status cuda_api_open(nr_context *ctx, int index, StrBuf *err);
/* vals: the checked arguments, as the interpreter takes them */
nr_status cuda_api_launch(nr_kernel *k, const unsigned grid[3], const InterpScalar *vals, const nr_launch_options *o);
void cuda_api_module_free(nr_module *m);
/* Whether the context's CUDA device has met a kernel fault (NR_OK: not): the first call
 * that asks after a fault gets NR_ERR_LAUNCH with the fault's description (the driver's
 * error, the kernels in flight, a failed device_assert's message and location), every
 * later one NR_ERR_DEVICE saying the context is unusable. */
nr_status cuda_api_fault(nr_context *ctx);
/* A successful nr_synchronize: no kernel is in flight any more. */
void cuda_api_synchronized(nr_context *ctx);

#endif
