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
    char *options_key; /* defines and options, for the disk cache key */
    struct TuneModule *tune; /* its tuned kernels (autotune.c); NULL if none */
};


nr_status api_fail(nr_context *ctx, nr_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* api_cuda.c */
nr_status cuda_api_open(nr_context *ctx, int index, StrBuf *err);
/* vals: the checked arguments, as the interpreter takes them */
nr_status cuda_api_launch(nr_kernel *k, const unsigned grid[3], const InterpScalar *vals, const nr_launch_options *o);
void cuda_api_module_free(nr_module *m);

#endif
