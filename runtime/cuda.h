/* cuda.h - the CUDA device, through the driver API loaded with dlopen (libcuda.so.1), so
 * the library builds and its CPU tests run on machines without a driver. A kernel's PTX
 * becomes machine code through ptxas when one is installed (driver/ptxas.h: a child
 * process each, so compiles on several threads run in parallel), else through the
 * driver's own JIT (cuModuleLoadDataEx on the PTX, serial within a process); either
 * compiles the whole program. The PTX and the cubin are cached on disk
 * (runtime/cache.h), so a hit compiles nothing. Internal to the runtime: the C API
 * (runtime/api.c) sits on top. */
#ifndef NEREID_CUDA_H
#define NEREID_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "compiler/support/support.h"

typedef struct CudaDevice CudaDevice;

typedef struct CudaKernel {
    void *module;          /* CUmodule */
    void *function;        /* CUfunction */
    unsigned shared_bytes; /* dynamic shared memory the kernel needs */
    unsigned threads;      /* per block (a warp-specialised kernel's producer warps included);
                              0: 32 * the launch's num_warps */
    bool from_cache;       /* set by cuda_load: the PTX came from the disk cache, no compile */
} CudaKernel;

/* The machine code ptxas made of a kernel's PTX, for the disk cache: a cubin for compute
 * capability cc (cc/10 . cc%10). cubin NULL: the driver's JIT compiled the PTX. */
typedef struct CudaImage {
    unsigned char *cubin; /* malloc'd; cuda_image_free */
    size_t len;
    int cc;
} CudaImage;
void cuda_image_free(CudaImage *im);

/* Open device `index`: dlopen libcuda.so.1, cuInit, retain the primary context. On
 * failure returns -1 with a clear message in err ("no CUDA driver (libcuda.so.1 not
 * found)", "no CUDA device", ...). Every call on the device below makes its context
 * current for the call's duration only: the calling thread's current context (or none)
 * is as it was afterwards. NEREID_PEER_ACCESS=0, read here, keeps the device from ever
 * enabling peer access (cuda_peer_access says no: copies between devices are staged). */
int cuda_open(int index, CudaDevice **out, StrBuf *err);
/* The number of CUDA devices the driver sees (0 when it has none: returns 0, err says
 * so); -1 with err set when there is no usable driver. */
int cuda_device_count(int *count, StrBuf *err);
/* The device's ordinal (the index it was opened with). */
int cuda_ordinal(const CudaDevice *d);
void cuda_close(CudaDevice *d);
/* A kernel fault (an illegal address, a failed device_assert, a trap, ...) makes the
 * driver's context unusable: the first such error any call meets is remembered, and from
 * then on every call on d fails at once without reaching the driver. Returns that error's
 * CUresult (0: none) and, in *what, the failing call and the driver's message. */
int cuda_fault(const CudaDevice *d, const char **what);
/* Where d keeps that error (0: none), for a check that costs a load (the launch path's). */
const int *cuda_fault_code(const CudaDevice *d);
/* Release d's reference to the primary context early (after a fault: once every user has
 * released it, a driver that allows it gives the next context a fresh one; NVIDIA's keep
 * refusing the device to this process). d stays valid, and every call on it fails;
 * cuda_close does the rest. */
void cuda_release_context(CudaDevice *d);
/* Compute capability as major*10+minor (90 for H100/H200, 80 for A100). */
int cuda_compute_capability(const CudaDevice *d);
/* The PTX target for the device: "sm_90a" for 9.0 (Hopper), "sm_80" for 8.x (sm_80 code runs
 * on 8.6/8.9 too), "sm_90" for anything newer than 9.0 (sm_90a PTX does not run there; plain
 * sm_90 PTX is JIT-compiled forward). Devices before 8.0 are refused by cuda_open. The
 * environment variable NEREID_ARCH, read when the device is opened, may name another
 * target the device runs (sm_80 on a Hopper: how one GPU tests mma.sync's code). */
const char *cuda_arch_name(const CudaDevice *d);
/* The same mapping for a compute capability major*10+minor; NULL below 80 (unsupported). */
const char *cuda_arch_for_cc(int cc);
const char *cuda_device_name(const CudaDevice *d);
/* cuDriverGetVersion: 13000 for CUDA 13.0 (0 if unknown). */
int cuda_driver_version(const CudaDevice *d);

int cuda_malloc(CudaDevice *d, size_t bytes, uint64_t *out, StrBuf *err);
int cuda_free(CudaDevice *d, uint64_t p, StrBuf *err);
int cuda_htod(CudaDevice *d, uint64_t dst, const void *src, size_t bytes, StrBuf *err);
int cuda_dtoh(CudaDevice *d, void *dst, uint64_t src, size_t bytes, StrBuf *err);
int cuda_memset(CudaDevice *d, uint64_t dst, int byte, size_t bytes, StrBuf *err);
/* Device to device on one device (cuMemcpyDtoD; async: cuMemcpyDtoDAsync on stream). */
int cuda_dtod(CudaDevice *d, uint64_t dst, uint64_t src, size_t bytes, void *stream, bool async,
              StrBuf *err);
/* Peer access between the contexts of two distinct devices, both ways: 1 when the driver
 * allows it both ways (cuDeviceCanAccessPeer), after enabling it (cuCtxEnablePeerAccess,
 * once per pair; already enabled by another user counts), 0 when it does not (or
 * NEREID_PEER_ACCESS=0), -1 on an error. */
int cuda_peer_access(CudaDevice *a, CudaDevice *b, StrBuf *err);
/* src (memory of src_d) to dst (memory of dst_d): cuMemcpyPeer, or cuMemcpyPeerAsync on
 * stream (a stream of dst_d's device). A failure with a sticky error marks the device
 * that met the fault (each is asked). */
int cuda_copy_peer(CudaDevice *dst_d, uint64_t dst, CudaDevice *src_d, uint64_t src, size_t bytes,
                   void *stream, bool async, StrBuf *err);
int cuda_synchronize(CudaDevice *d, StrBuf *err);

/* Device-side timing, for the autotuner: events recorded on a stream and the milliseconds
 * between two (cuda_event_elapsed waits for the later one), and a memset ordered on a
 * stream (its flush of the L2 cache between timed launches). cuda_has_events: false where
 * the driver lacks them (a stand-in driver); the caller times with the host's clock then. */
bool cuda_has_events(const CudaDevice *d);
int cuda_event_create(CudaDevice *d, void **out, StrBuf *err);
void cuda_event_destroy(CudaDevice *d, void *ev);
int cuda_event_record(CudaDevice *d, void *ev, void *stream, StrBuf *err);
int cuda_event_elapsed(CudaDevice *d, void *start, void *end, float *ms, StrBuf *err);
int cuda_memset32_async(CudaDevice *d, uint64_t dst, unsigned value, size_t words, void *stream,
                        StrBuf *err);
/* Streams (CUstream), blocking with respect to the default stream. */
int cuda_stream_create(CudaDevice *d, void **out, StrBuf *err);
int cuda_stream_destroy(CudaDevice *d, void *stream, StrBuf *err);
int cuda_stream_synchronize(CudaDevice *d, void *stream, StrBuf *err);

/* Load `ptx` (or the entry the disk cache holds under `key`) and find `kernel_name`. A kernel
 * needing more than 48 KB of shared memory gets CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
 * set. The PTX is compiled by ptxas, found when the device was opened (NEREID_PTXAS and the
 * other places driver/ptxas.h names), for the device's own compute capability (sm_90a for
 * sm_90a PTX); when there is none, it fails, or the driver refuses its cubin, by the
 * driver's JIT. On a failure err holds the driver's error log (and ptxas's). key may be NULL
 * (no caching); it must cover the device and driver (runtime/cache_key.c). The entry is
 * the PTX and ptxas's cubin with the kernel's shared-memory size and threads per block
 * (threads: a warp-specialised kernel's, 0 for 32 * the launch's num_warps), written once
 * it loads. */
int cuda_load(CudaDevice *d, const char *ptx, const char *kernel_name, const CacheKey *key,
              unsigned shared_bytes, unsigned threads, CudaKernel *out, StrBuf *err);
/* Load `kernel_name` from the disk cache alone, with no PTX: 1 on a hit, 0 on a miss,
 * -1 on an error of the device (err says which; the entry is kept). An entry's cubin is
 * loaded when it was made for this device's compute capability, else its PTX is compiled
 * as cuda_load does. An entry that is corrupt, of another format, or whose PTX the driver
 * calls invalid or not for this GPU counts as a miss and is deleted (the caller compiles
 * and cuda_load rebuilds it). */
int cuda_load_cached(CudaDevice *d, const char *kernel_name, const CacheKey *key, CudaKernel *out,
                     StrBuf *err);
void cuda_unload(CudaDevice *d, CudaKernel *k);
/* cuda_load in two halves, for compiles on several threads at once (launch_prepare_many).
 * cuda_jit: `ptx` compiled (as cuda_load does) and loaded into *out, its cubin (if ptxas
 * made one) in *image, on any thread, several at once,
 * while d's owner waits for them and uses d for nothing else: it makes d's context
 * current on the calling thread for the call and writes nothing of d. The shared-memory
 * check comes first. A kernel fault the call meets is not noted in d but returned in
 * *fault (its CUresult, 0: none; err says what), for the owner to note with
 * cuda_note_fault. cuda_cache_keep, on the owner's thread: the PTX that loaded and its
 * image (may be NULL or empty) kept in the disk cache under key (NULL: nothing). */
int cuda_jit(const CudaDevice *d, const char *ptx, const char *kernel_name, unsigned shared_bytes,
             unsigned threads, CudaKernel *out, CudaImage *image, int *fault, StrBuf *err);
void cuda_note_fault(CudaDevice *d, int fault, const char *what);
void cuda_cache_keep(const CacheKey *key, const char *ptx, const CudaImage *image,
                     unsigned shared_bytes, unsigned threads);

/* cuLaunchKernel with blockDim = (k->threads, 1, 1) (32 * num_warps where it is 0) and
 * the kernel's dynamic shared memory; params as cuLaunchKernel takes them (an array of
 * pointers to each argument). */
/* A tiled tensor map (cuTensorMapEncodeTiled): dims innermost first, as the driver takes
 * them; strides in bytes for dims 1.. (rank - 1 of them); the box in elements; dtype a
 * CUtensorMapDataType; swizzle a CUtensorMapSwizzle (0 none, 1 32B, 2 64B, 3 128B). */
typedef struct CudaTensorMap {
    int rank, dtype, swizzle;
    bool nan_fill;
    uint64_t base;
    uint64_t dims[5], strides[5];
    unsigned box[5];
} CudaTensorMap;
/* Does d take tensor maps (a Hopper or later device, a driver with the entry point)? */
bool cuda_has_tma(const CudaDevice *d);
/* Encodes t into the 128 bytes at map (64-byte aligned); -1 with err on failure. */
int cuda_tensor_map_encode(CudaDevice *d, void *map, const CudaTensorMap *t, StrBuf *err);

/* What the loaded kernel uses per thread and block, as the driver reports it. */
typedef struct CudaResources {
    int registers;           /* per thread */
    int local_bytes;         /* local memory per thread: the register spills (and local arrays) */
    int static_shared_bytes; /* shared memory the code declares (Nereid's is dynamic) */
} CudaResources;
int cuda_function_resources(CudaDevice *d, const CudaKernel *k, CudaResources *out, StrBuf *err);
int cuda_launch(CudaDevice *d, const CudaKernel *k, const unsigned grid[3], int num_warps,
                void **params, void *stream, StrBuf *err);
/* The same as a cooperative launch (cuLaunchCooperativeKernel: its programs may wait for
 * one another, grid.sync()-style): first checked to fit the device at once (the grid's
 * programs at most cuOccupancyMaxActiveBlocksPerMultiprocessor x the SMs), err saying so
 * otherwise; an error too where the driver lacks those calls. */
int cuda_launch_cooperative(CudaDevice *d, const CudaKernel *k, const unsigned grid[3],
                            int num_warps, void **params, void *stream, StrBuf *err);

#endif
