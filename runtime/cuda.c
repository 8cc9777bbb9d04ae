/* cuda.c - the CUDA device through the driver API, loaded at run time with dlopen (see
 * cuda.h). The toolkit's cuda.h is deliberately not included, so the library builds and
 * its CPU tests run where neither the toolkit nor a driver is installed: the few types,
 * enum values and prototypes used are declared below, with values copied from the CUDA 13
 * toolkit header (they are part of the driver's stable ABI).
 *
 * Everything lives in the CudaDevice: the dlopen handle, the resolved entry points and the
 * (primary) context. Every call that needs the context makes it current for its own
 * duration and gives the calling thread back the context that was current before (a
 * CtxScope: cuCtxGetCurrent, and cuCtxSetCurrent only when another context, or none, was
 * current), so several devices may be used from several threads, one device per thread
 * at a time, and a caller with a current context of its own (PyTorch's, on whichever
 * device it chose) finds it unchanged after every call. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NODELETE */
#endif
#include "cuda.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "driver/ptxas.h"

/* ---- the driver API, declared by hand (values from the CUDA 13 cuda.h) ---- */
typedef int CUresult; /* an enum: int-sized in the ABI */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;
typedef int CUjit_option;
typedef int CUjitInputType;
typedef int CUdevice_attribute;
typedef int CUfunction_attribute;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_NO_DEVICE = 100,
    NOT_TRIED = -1, /* ours: no call made yet */
};
enum {
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    CU_JIT_LOG_VERBOSE = 12,
};
enum {
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
};
enum { CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 };

typedef struct CuApi {
    CUresult (*Init)(unsigned flags);
    CUresult (*DriverGetVersion)(int *version);
    CUresult (*GetErrorName)(CUresult error, const char **str);
    CUresult (*GetErrorString)(CUresult error, const char **str);
    CUresult (*DeviceGetCount)(int *count);
    CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
    CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
    CUresult (*DeviceGetAttribute)(int *value, CUdevice_attribute attr, CUdevice dev);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice dev);
    CUresult (*CtxGetCurrent)(CUcontext *ctx);
    CUresult (*CtxSetCurrent)(CUcontext ctx);
    CUresult (*CtxSynchronize)(void);
    CUresult (*DeviceCanAccessPeer)(int *can, CUdevice dev, CUdevice peer);
    CUresult (*CtxEnablePeerAccess)(CUcontext peer, unsigned flags);
    CUresult (*StreamCreate)(CUstream *stream, unsigned flags);
    CUresult (*StreamDestroy)(CUstream stream);
    CUresult (*StreamSynchronize)(CUstream stream);
    CUresult (*StreamQuery)(CUstream stream);
    CUresult (*MemAlloc)(CUdeviceptr *p, size_t bytes);
    CUresult (*MemFree)(CUdeviceptr p);
    CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
    CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
    CUresult (*MemsetD8)(CUdeviceptr dst, unsigned char byte, size_t n);
    /* optional: NULL where the driver (or a stand-in) lacks it, and then no resource report */
    CUresult (*FuncGetAttribute)(int *value, int attrib, CUfunction f);
    /* optional (CUDA 12+): NULL where the driver lacks it, and then no TMA */
    CUresult (*TensorMapEncodeTiled)(void *map, int dtype, unsigned rank, void *addr,
                                     const uint64_t *dims, const uint64_t *strides,
                                     const unsigned *box, const unsigned *elem_strides,
                                     int interleave, int swizzle, int l2_promotion, int oob_fill);
    CUresult (*MemcpyDtoD)(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
    CUresult (*MemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
    /* optional (the autotuner's device-side timing; NULL: it times with the host's clock) */
    CUresult (*EventCreate)(CUevent *ev, unsigned flags);
    CUresult (*EventRecord)(CUevent ev, CUstream stream);
    CUresult (*EventElapsedTime)(float *ms, CUevent start, CUevent end);
    CUresult (*EventSynchronize)(CUevent ev);
    CUresult (*EventDestroy)(CUevent ev);
    CUresult (*MemsetD32Async)(CUdeviceptr dst, unsigned value, size_t n, CUstream stream);
    CUresult (*MemcpyPeer)(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx,
                           size_t bytes);
    CUresult (*MemcpyPeerAsync)(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src,
                                CUcontext src_ctx, size_t bytes, CUstream stream);
    CUresult (*ModuleLoadDataEx)(CUmodule *mod, const void *image, unsigned nopts,
                                 CUjit_option *opts, void **vals);
    CUresult (*ModuleUnload)(CUmodule mod);
    CUresult (*ModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
    CUresult (*FuncSetAttribute)(CUfunction fn, CUfunction_attribute attr, int value);
    CUresult (*LaunchKernel)(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned shared, CUstream stream,
                             void **params, void **extra);
    /* optional: NULL where the driver (or a stand-in) lacks them, and then no cooperative
     * launch */
    CUresult (*LaunchCooperativeKernel)(CUfunction fn, unsigned gx, unsigned gy, unsigned gz,
                                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                        CUstream stream, void **params);
    CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction fn, int threads,
                                                          size_t shared);
} CuApi;

struct CudaDevice {
    void *lib; /* dlopen handle of libcuda.so.1 */
    CuApi api;
    int ordinal;
    CUdevice dev;
    CUcontext ctx;  /* the device's primary context, retained (NULL once released after a fault) */
    CUresult fault; /* the first sticky error seen (a kernel fault): the context is unusable */
    char fault_what[768]; /* the failing call and the driver's error */
    int cc;               /* major*10 + minor */
    int driver_version;
    int max_shared_optin; /* bytes of shared memory a block may opt in to */
    const char *arch;     /* the PTX target kernels are compiled for */
    /* ptxas (driver/ptxas.h; "" none: the driver's JIT compiles) and its -arch: the
     * device's own compute capability, or the PTX target where that is sm_90a */
    char ptxas[4096], ptxas_arch[16];
    bool no_peer; /* NEREID_PEER_ACCESS=0: never enable peer access (copies are staged) */
    /* peer access from this context to device i's (bit i, ordinals below 64): asked
     * (cuDeviceCanAccessPeer), possible, enabled (cuCtxEnablePeerAccess) */
    uint64_t peer_asked, peer_can, peer_on;
    char name[256];
};

/* ---- errors ---- */
static void errf(StrBuf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void errf(StrBuf *err, const char *fmt, ...) {
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(err, fmt, ap);
    va_end(ap);
}

/* "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)" */
static void put_result(const CudaDevice *d, StrBuf *err, CUresult r) {
    if (!err) return;
    const char *name = NULL, *desc = NULL;
    if (d->api.GetErrorName && d->api.GetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
    if (d->api.GetErrorString && d->api.GetErrorString(r, &desc) != CUDA_SUCCESS) desc = NULL;
    if (name) sb_puts(err, name);
    else sb_printf(err, "CUDA error %d", (int)r);
    if (desc) sb_printf(err, " (%s)", desc);
}

/* The driver's errors after which its context cannot be used again (a kernel fault: the
 * driver documents each of these as leaving the context in an inconsistent state). */
static bool sticky(CUresult r) {
    enum {
        ILLEGAL_ADDRESS = 700,
        LAUNCH_TIMEOUT = 702,
        ASSERT = 710,
        HARDWARE_STACK_ERROR = 714,
        ILLEGAL_INSTRUCTION = 715,
        MISALIGNED_ADDRESS = 716,
        INVALID_ADDRESS_SPACE = 717,
        INVALID_PC = 718,
        LAUNCH_FAILED = 719,
    };
    return r == ILLEGAL_ADDRESS || r == LAUNCH_TIMEOUT || r == ASSERT ||
           (r >= HARDWARE_STACK_ERROR && r <= LAUNCH_FAILED);
}

/* "<what> failed: CUDA_ERROR_... (...)"; the first sticky error is remembered in d. */
static void cu_fail(CudaDevice *d, StrBuf *err, CUresult r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cu_fail(CudaDevice *d, StrBuf *err, CUresult r, const char *fmt, ...) {
    StrBuf msg;
    sb_init(&msg);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&msg, fmt, ap);
    va_end(ap);
    sb_puts(&msg, " failed: ");
    put_result(d, &msg, r);
    if (sticky(r) && !d->fault) {
        d->fault = r;
        snprintf(d->fault_what, sizeof d->fault_what, "%s", sb_cstr(&msg));
    }
    if (err) sb_putn(err, msg.data, msg.len);
    sb_free(&msg);
}

/* The calling thread's current context while a call runs on d's: enter_ctx makes d's
 * current (when it is not already), leave_ctx gives back the one that was. */
typedef struct CtxScope {
    CUcontext prev; /* current before (NULL: none) */
    bool set;       /* enter_ctx changed it */
} CtxScope;

static int enter_ctx(CudaDevice *d, CtxScope *sc, StrBuf *err) {
    sc->prev = NULL, sc->set = false;
    if (!d) {
        errf(err, "no CUDA device (not opened)");
        return -1;
    }
    if (d->fault) { /* nothing more goes to the driver on this context */
        errf(err, "the CUDA context of device %d is unusable after a kernel fault (%s)", d->ordinal,
             d->fault_what);
        return -1;
    }
    CUresult r = d->api.CtxGetCurrent(&sc->prev);
    if (r != CUDA_SUCCESS) {
        cu_fail(d, err, r, "cuCtxGetCurrent (CUDA device %d)", d->ordinal);
        return -1;
    }
    if (sc->prev == d->ctx) return 0; /* the usual case: nothing to change */
    r = d->api.CtxSetCurrent(d->ctx);
    if (r == CUDA_SUCCESS) return sc->set = true, 0;
    cu_fail(d, err, r, "cuCtxSetCurrent (CUDA device %d)", d->ordinal);
    return -1;
}

static void leave_ctx(CudaDevice *d, const CtxScope *sc) {
    if (sc->set) d->api.CtxSetCurrent(sc->prev); /* it was current a moment ago: it is valid */
}

/* ---- opening ---- */

/* The device after a kernel fault earlier in this process (any user's: another
 * nr_context, or a CUDA runtime user in the same process): r, a sticky error, came from
 * cuDevicePrimaryCtxRetain (`held` false: the driver refuses the device outright, as
 * NVIDIA's drivers do for the rest of the process once a fault poisoned its primary
 * context) or from the first call on the context it gave (`held` true: the poisoned
 * context itself, which some other user still holds). */
static void unusable_in_process(const CudaDevice *d, StrBuf *err, CUresult r, bool held) {
    StrBuf why;
    sb_init(&why);
    put_result(d, &why, r);
    if (!held)
        errf(err,
             "CUDA device %d (%s) is unusable in this process after an earlier kernel fault "
             "(cuDevicePrimaryCtxRetain failed: %s): the CUDA driver gives the device back only to "
             "a new process",
             d->ordinal, d->name, sb_cstr(&why));
    else
        errf(err,
             "CUDA device %d (%s) is unusable in this process after an earlier kernel fault (%s): "
             "another user in "
             "this process still holds its poisoned primary context (another nr_context on the "
             "device that has not "
             "met the fault yet, or a CUDA runtime user such as PyTorch, which holds it until the "
             "process ends); "
             "some drivers give a fresh context once every user has released it, others give the "
             "device back only "
             "to a new process",
             d->ordinal, d->name, sb_cstr(&why));
    sb_free(&why);
}

/* dlsym the first of the NULL-terminated names that the driver has; on none, add it to
 * the list of missing symbols. */
static void *resolve(CudaDevice *d, StrBuf *missing, ...) {
    va_list ap;
    va_start(ap, missing);
    const char *first = NULL;
    void *p = NULL;
    for (const char *n; !p && (n = va_arg(ap, const char *));) {
        if (!first) first = n;
        p = dlsym(d->lib, n);
    }
    va_end(ap);
    if (!p) sb_printf(missing, "%s%s", missing->len ? ", " : "", first);
    return p;
}

#define RESOLVE(field, ...)                                                        \
    do {                                                                           \
        void *p_ = resolve(d, &missing, __VA_ARGS__, (const char *)NULL);          \
        _Static_assert(sizeof d->api.field == sizeof p_, "function pointer size"); \
        memcpy(&d->api.field, &p_, sizeof p_);                                     \
    } while (0)

static bool resolve_all(CudaDevice *d, StrBuf *err) {
    StrBuf missing;
    sb_init(&missing);
    RESOLVE(Init, "cuInit");
    RESOLVE(DriverGetVersion, "cuDriverGetVersion");
    RESOLVE(GetErrorName, "cuGetErrorName");
    RESOLVE(GetErrorString, "cuGetErrorString");
    RESOLVE(DeviceGetCount, "cuDeviceGetCount");
    RESOLVE(DeviceGet, "cuDeviceGet");
    RESOLVE(DeviceGetName, "cuDeviceGetName");
    RESOLVE(DeviceGetAttribute, "cuDeviceGetAttribute");
    RESOLVE(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    RESOLVE(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
    RESOLVE(CtxGetCurrent, "cuCtxGetCurrent");
    RESOLVE(CtxSetCurrent, "cuCtxSetCurrent");
    RESOLVE(CtxSynchronize, "cuCtxSynchronize");
    RESOLVE(DeviceCanAccessPeer, "cuDeviceCanAccessPeer");
    RESOLVE(CtxEnablePeerAccess, "cuCtxEnablePeerAccess");
    RESOLVE(StreamCreate, "cuStreamCreate");
    RESOLVE(StreamDestroy, "cuStreamDestroy_v2");
    RESOLVE(StreamSynchronize, "cuStreamSynchronize");
    RESOLVE(StreamQuery, "cuStreamQuery");
    RESOLVE(MemAlloc, "cuMemAlloc_v2");
    RESOLVE(MemFree, "cuMemFree_v2");
    RESOLVE(MemcpyHtoD, "cuMemcpyHtoD_v2");
    RESOLVE(MemcpyDtoH, "cuMemcpyDtoH_v2");
    RESOLVE(MemsetD8, "cuMemsetD8_v2");
    RESOLVE(MemcpyDtoD, "cuMemcpyDtoD_v2");
    RESOLVE(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
    RESOLVE(MemcpyPeer, "cuMemcpyPeer");
    RESOLVE(MemcpyPeerAsync, "cuMemcpyPeerAsync");
    RESOLVE(ModuleLoadDataEx, "cuModuleLoadDataEx");
    RESOLVE(ModuleUnload, "cuModuleUnload");
    RESOLVE(ModuleGetFunction, "cuModuleGetFunction");
    RESOLVE(FuncSetAttribute, "cuFuncSetAttribute");
    RESOLVE(LaunchKernel, "cuLaunchKernel");
    bool ok = missing.len == 0;
    if (!ok)
        errf(err, "the CUDA driver (libcuda.so.1) is too old or broken: it lacks %s",
             sb_cstr(&missing));
    void *tma = dlsym(d->lib, "cuTensorMapEncodeTiled");
    memcpy(&d->api.TensorMapEncodeTiled, &tma, sizeof tma);
    void *attr = dlsym(d->lib, "cuFuncGetAttribute");
    memcpy(&d->api.FuncGetAttribute, &attr, sizeof attr);
    void *coop = dlsym(d->lib, "cuLaunchCooperativeKernel");
    memcpy(&d->api.LaunchCooperativeKernel, &coop, sizeof coop);
    void *occ = dlsym(d->lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    memcpy(&d->api.OccupancyMaxActiveBlocksPerMultiprocessor, &occ, sizeof occ);
    struct {
        const char *name;
        void *field;
        size_t size;
    } timing[] = {
        {"cuEventCreate", &d->api.EventCreate, sizeof d->api.EventCreate},
        {"cuEventRecord", &d->api.EventRecord, sizeof d->api.EventRecord},
        {"cuEventElapsedTime", &d->api.EventElapsedTime, sizeof d->api.EventElapsedTime},
        {"cuEventSynchronize", &d->api.EventSynchronize, sizeof d->api.EventSynchronize},
        {"cuEventDestroy_v2", &d->api.EventDestroy, sizeof d->api.EventDestroy},
        {"cuMemsetD32Async", &d->api.MemsetD32Async, sizeof d->api.MemsetD32Async},
    };
    for (size_t i = 0; i < sizeof timing / sizeof timing[0]; i++) {
        void *f = dlsym(d->lib, timing[i].name);
        memcpy(timing[i].field, &f, timing[i].size);
    }
    sb_free(&missing);
    return ok;
}

const char *cuda_arch_for_cc(int cc) {
    if (cc == 90) return "sm_90a"; /* Hopper: wgmma, setmaxnreg, TMA need the 'a' target */
    if (cc >= 80 && cc < 90) return "sm_80"; /* Ampere, Ada: sm_80 code runs on 8.x */
    if (cc > 90) return "sm_90"; /* newer: sm_90a PTX does not run there, plain sm_90 JITs */
    return NULL;                 /* before Ampere: unsupported */
}

/* NEREID_ARCH (sm_80, sm_90, sm_90a) picks another target the device runs, so one GPU
 * can test the code of older ones (sm_80's mma.sync on a Hopper); NULL: the device's. */
static const char *arch_override(const CudaDevice *d, StrBuf *err, bool *bad) {
    const char *a = getenv("NEREID_ARCH");
    *bad = false;
    if (!a || !*a) return NULL;
    static const char *const names[] = {"sm_80", "sm_90", "sm_90a"};
    static const int need[] = {80, 90, 90};
    for (int i = 0; i < 3; i++)
        if (!strcmp(a, names[i])) {
            if (d->cc >= need[i] && (i != 2 || d->cc == 90)) return names[i];
            errf(err,
                 "NEREID_ARCH=%s does not run on CUDA device %d (%s, compute capability %d.%d)", a,
                 d->ordinal, d->name, d->cc / 10, d->cc % 10);
            *bad = true;
            return NULL;
        }
    errf(err, "NEREID_ARCH=%s: not a target (sm_80, sm_90, sm_90a)", a);
    *bad = true;
    return NULL;
}

/* A CudaDevice with the driver loaded and initialised (no device chosen yet), and the
 * number of devices in *count; NULL on failure (err says why). With no device at all,
 * *count is 0 and err says so (no_device: that was the only problem). */
static CudaDevice *open_driver(int *count, bool *no_device, StrBuf *err) {
    *count = 0, *no_device = false;
    CudaDevice *d = calloc(1, sizeof *d);
    if (!d) {
        errf(err, "cuda_open: out of memory");
        return NULL;
    }
    /* RTLD_NODELETE: the driver starts threads and registers handlers that must outlive
     * our handle; dlclose then only drops the reference. */
    d->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!d->lib) {
        const char *why = dlerror();
        errf(err, "no CUDA driver: libcuda.so.1 not found (dlopen: %s)",
             why ? why : "unknown error");
        free(d);
        return NULL;
    }
    if (!resolve_all(d, err)) goto fail;
    CUresult r = d->api.Init(0);
    if (r != CUDA_SUCCESS) {
        *no_device = r == CUDA_ERROR_NO_DEVICE;
        cu_fail(d, err, r, "cuInit");
        goto fail;
    }
    if (d->api.DriverGetVersion(&d->driver_version) != CUDA_SUCCESS) d->driver_version = 0;
    if ((r = d->api.DeviceGetCount(count)) != CUDA_SUCCESS) {
        cu_fail(d, err, r, "cuDeviceGetCount");
        goto fail;
    }
    if (*count <= 0) {
        *count = 0, *no_device = true;
        errf(err, "no CUDA device: the driver found none");
        goto fail;
    }
    return d;
fail:
    cuda_close(d);
    return NULL;
}

int cuda_device_count(int *count, StrBuf *err) {
    bool none;
    CudaDevice *d = open_driver(count, &none, err);
    if (!d) return none ? 0 : -1;
    cuda_close(d);
    return 0;
}

int cuda_open(int index, CudaDevice **out, StrBuf *err) {
    if (!out) {
        errf(err, "cuda_open: no output pointer");
        return -1;
    }
    *out = NULL;
    int count = 0;
    bool none;
    CudaDevice *d = open_driver(&count, &none, err);
    if (!d) return -1;
    d->ordinal = index;
    CUresult r;
    if (index < 0 || index >= count) {
        errf(err, "no CUDA device %d: the driver sees %d device%s (0..%d)", index, count,
             count == 1 ? "" : "s", count - 1);
        goto fail;
    }
    if ((r = d->api.DeviceGet(&d->dev, index)) != CUDA_SUCCESS) {
        cu_fail(d, err, r, "cuDeviceGet(%d)", index);
        goto fail;
    }
    if ((r = d->api.DeviceGetName(d->name, (int)sizeof d->name - 1, d->dev)) != CUDA_SUCCESS) {
        cu_fail(d, err, r, "cuDeviceGetName (CUDA device %d)", index);
        goto fail;
    }
    int major = 0, minor = 0;
    if ((r = d->api.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                       d->dev)) != CUDA_SUCCESS ||
        (r = d->api.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                       d->dev)) != CUDA_SUCCESS) {
        cu_fail(d, err, r, "cuDeviceGetAttribute(compute capability) (CUDA device %d)", index);
        goto fail;
    }
    d->cc = major * 10 + minor;
    if (!cuda_arch_for_cc(d->cc)) {
        errf(err,
             "CUDA device %d (%s) has compute capability %d.%d; Nereid needs 8.0 (Ampere) or newer",
             index, d->name, major, minor);
        goto fail;
    }
    bool bad_arch;
    d->arch = arch_override(d, err, &bad_arch);
    if (bad_arch) goto fail;
    if (!d->arch) d->arch = cuda_arch_for_cc(d->cc);
    if (!ptxas_find(d->ptxas, sizeof d->ptxas)) d->ptxas[0] = '\0';
    if (!strcmp(d->arch, "sm_90a")) snprintf(d->ptxas_arch, sizeof d->ptxas_arch, "sm_90a");
    else snprintf(d->ptxas_arch, sizeof d->ptxas_arch, "sm_%d", d->cc);
    const char *peer = getenv("NEREID_PEER_ACCESS");
    d->no_peer = peer && !strcmp(peer, "0");
    if (d->api.DeviceGetAttribute(&d->max_shared_optin,
                                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                  d->dev) != CUDA_SUCCESS)
        d->max_shared_optin = 0; /* unknown: let cuFuncSetAttribute judge */
    if ((r = d->api.DevicePrimaryCtxRetain(&d->ctx, d->dev)) != CUDA_SUCCESS) {
        d->ctx = NULL; /* nothing was retained: nothing to release */
        if (sticky(r)) unusable_in_process(d, err, r, false);
        else cu_fail(d, err, r, "cuDevicePrimaryCtxRetain (CUDA device %d, %s)", index, d->name);
        goto fail;
    }
    /* A primary context that an earlier kernel fault poisoned, still held by another user
     * in this process, is retained like a working one and answers every call with that
     * fault: ask it once (NULL: the default stream; CUDA_ERROR_NOT_READY, work of another
     * user still running, is fine). */
    CUcontext prev = NULL;
    if ((r = d->api.CtxGetCurrent(&prev)) != CUDA_SUCCESS) {
        cu_fail(d, err, r, "cuCtxGetCurrent (CUDA device %d)", index);
        goto fail;
    }
    r = prev == d->ctx ? CUDA_SUCCESS : d->api.CtxSetCurrent(d->ctx);
    if (r != CUDA_SUCCESS && !sticky(r)) {
        cu_fail(d, err, r, "cuCtxSetCurrent (CUDA device %d)", index);
        goto fail;
    }
    if (r == CUDA_SUCCESS) r = d->api.StreamQuery(NULL);
    if (prev != d->ctx) d->api.CtxSetCurrent(prev); /* the caller's, as it was */
    if (sticky(r)) {
        unusable_in_process(d, err, r, true); /* cuda_close releases the retain */
        goto fail;
    }
    *out = d;
    return 0;

fail:
    cuda_close(d);
    return -1;
}

void cuda_close(CudaDevice *d) {
    if (!d) return;
    cuda_release_context(d);
    if (d->lib) dlclose(d->lib);
    free(d);
}

int cuda_fault(const CudaDevice *d, const char **what) {
    if (what) *what = d && d->fault ? d->fault_what : "";
    return d ? (int)d->fault : 0;
}

const int *cuda_fault_code(const CudaDevice *d) { return &d->fault; }

void cuda_release_context(CudaDevice *d) {
    if (!d || !d->ctx) return;
    d->api.DevicePrimaryCtxRelease(d->dev);
    d->ctx = NULL;
}

int cuda_compute_capability(const CudaDevice *d) { return d ? d->cc : 0; }

const char *cuda_arch_name(const CudaDevice *d) { return d && d->arch ? d->arch : "sm_80"; }

const char *cuda_device_name(const CudaDevice *d) { return d ? d->name : ""; }

int cuda_driver_version(const CudaDevice *d) { return d ? d->driver_version : 0; }

/* ---- memory ---- */

/* A call on d's context, made current for it: `r = CALL`, the context given back, and a
 * failure described as "<what> failed: ..." (the first sticky error is remembered). */
#define ON_CTX(d, err, call, ...)                   \
    do {                                            \
        CtxScope sc_;                               \
        if (enter_ctx((d), &sc_, (err))) return -1; \
        CUresult r_ = (call);                       \
        leave_ctx((d), &sc_);                       \
        if (r_ != CUDA_SUCCESS) {                   \
            cu_fail((d), (err), r_, __VA_ARGS__);   \
            return -1;                              \
        }                                           \
    } while (0)

int cuda_malloc(CudaDevice *d, size_t bytes, uint64_t *out, StrBuf *err) {
    *out = 0;
    if (bytes == 0) return 0; /* the driver refuses 0 bytes; a null pointer serves */
    CUdeviceptr p = 0;
    ON_CTX(d, err, d->api.MemAlloc(&p, bytes), "cuMemAlloc of %zu bytes on CUDA device %d", bytes,
           d->ordinal);
    *out = (uint64_t)p;
    return 0;
}

int cuda_free(CudaDevice *d, uint64_t p, StrBuf *err) {
    if (p == 0) return 0;
    ON_CTX(d, err, d->api.MemFree((CUdeviceptr)p), "cuMemFree(0x%llx)", (unsigned long long)p);
    return 0;
}

int cuda_htod(CudaDevice *d, uint64_t dst, const void *src, size_t bytes, StrBuf *err) {
    if (bytes == 0) return 0;
    ON_CTX(d, err, d->api.MemcpyHtoD((CUdeviceptr)dst, src, bytes),
           "cuMemcpyHtoD of %zu bytes to 0x%llx", bytes, (unsigned long long)dst);
    return 0;
}

int cuda_dtoh(CudaDevice *d, void *dst, uint64_t src, size_t bytes, StrBuf *err) {
    if (bytes == 0) return 0;
    ON_CTX(d, err, d->api.MemcpyDtoH(dst, (CUdeviceptr)src, bytes),
           "cuMemcpyDtoH of %zu bytes from 0x%llx", bytes, (unsigned long long)src);
    return 0;
}

int cuda_memset(CudaDevice *d, uint64_t dst, int byte, size_t bytes, StrBuf *err) {
    if (bytes == 0) return 0;
    ON_CTX(d, err, d->api.MemsetD8((CUdeviceptr)dst, (unsigned char)byte, bytes),
           "cuMemsetD8 of %zu bytes at 0x%llx", bytes, (unsigned long long)dst);
    return 0;
}

int cuda_dtod(CudaDevice *d, uint64_t dst, uint64_t src, size_t bytes, void *stream, bool async,
              StrBuf *err) {
    if (bytes == 0) return 0;
    if (async)
        ON_CTX(d, err,
               d->api.MemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, bytes, (CUstream)stream),
               "cuMemcpyDtoDAsync of %zu bytes from 0x%llx to 0x%llx on CUDA device %d", bytes,
               (unsigned long long)src, (unsigned long long)dst, d->ordinal);
    else
        ON_CTX(d, err, d->api.MemcpyDtoD((CUdeviceptr)dst, (CUdeviceptr)src, bytes),
               "cuMemcpyDtoD of %zu bytes from 0x%llx to 0x%llx on CUDA device %d", bytes,
               (unsigned long long)src, (unsigned long long)dst, d->ordinal);
    return 0;
}

int cuda_ordinal(const CudaDevice *d) { return d ? d->ordinal : -1; }

/* Whether d's context may use peer's memory: cuDeviceCanAccessPeer, asked once per pair
 * (NEREID_PEER_ACCESS=0: never). 1 yes, 0 no, -1 an error. */
static int can_access(CudaDevice *d, const CudaDevice *peer, StrBuf *err) {
    if (d->no_peer || peer->no_peer || d->ordinal == peer->ordinal) return 0;
    unsigned o = (unsigned)peer->ordinal;
    uint64_t bit = o < 64 ? UINT64_C(1) << o : 0;
    if (bit && (d->peer_asked & bit)) return (d->peer_can & bit) != 0;
    int can = 0;
    CUresult r = d->api.DeviceCanAccessPeer(&can, d->dev, peer->dev);
    if (r != CUDA_SUCCESS) {
        cu_fail(d, err, r, "cuDeviceCanAccessPeer(CUDA device %d, CUDA device %d)", d->ordinal,
                peer->ordinal);
        return -1;
    }
    if (bit) d->peer_asked |= bit, d->peer_can |= can ? bit : 0;
    return can != 0;
}

/* Enable d's context's access to peer's memory (once; a context where some other user
 * enabled it already counts as enabled). 0, or -1 with err set. */
static int enable_access(CudaDevice *d, const CudaDevice *peer, StrBuf *err) {
    enum { PEER_ACCESS_ALREADY_ENABLED = 704 };
    unsigned o = (unsigned)peer->ordinal;
    uint64_t bit = o < 64 ? UINT64_C(1) << o : 0;
    if (bit && (d->peer_on & bit)) return 0;
    CtxScope sc;
    if (enter_ctx(d, &sc, err)) return -1;
    CUresult r = d->api.CtxEnablePeerAccess(peer->ctx, 0);
    leave_ctx(d, &sc);
    if (r != CUDA_SUCCESS && r != PEER_ACCESS_ALREADY_ENABLED) {
        cu_fail(d, err, r, "cuCtxEnablePeerAccess (CUDA device %d to the memory of CUDA device %d)",
                d->ordinal, peer->ordinal);
        return -1;
    }
    d->peer_on |= bit;
    return 0;
}

int cuda_peer_access(CudaDevice *a, CudaDevice *b, StrBuf *err) {
    if (!a || !b || !a->ctx || !b->ctx) {
        errf(err, "cuda_peer_access: a device is missing or unusable");
        return -1;
    }
    int ab = can_access(a, b, err);
    if (ab <= 0) return ab;
    int ba = can_access(b, a, err);
    if (ba <= 0) return ba;
    return enable_access(a, b, err) || enable_access(b, a, err) ? -1 : 1;
}

/* After a failed copy between two contexts: which of them met a kernel fault (the
 * driver's error does not say)? Each is asked (cuStreamQuery on its default stream), and
 * one that answers with a sticky error is marked faulted. */
static void blame_fault(CudaDevice *d) {
    CtxScope sc;
    StrBuf ignored;
    sb_init(&ignored);
    if (!enter_ctx(d, &sc, &ignored)) {
        CUresult r = d->api.StreamQuery(NULL);
        leave_ctx(d, &sc);
        if (sticky(r))
            cu_fail(d, NULL, r, "a kernel on CUDA device %d (found by a copy between devices)",
                    d->ordinal);
    }
    sb_free(&ignored);
}

int cuda_copy_peer(CudaDevice *dst_d, uint64_t dst, CudaDevice *src_d, uint64_t src, size_t bytes,
                   void *stream, bool async, StrBuf *err) {
    if (bytes == 0) return 0;
    CtxScope sc;
    if (!src_d || src_d->fault) return enter_ctx(src_d, &sc, err); /* fails, saying why */
    if (enter_ctx(dst_d, &sc, err)) return -1;
    CUresult r = async ? dst_d->api.MemcpyPeerAsync((CUdeviceptr)dst, dst_d->ctx, (CUdeviceptr)src,
                                                    src_d->ctx, bytes, (CUstream)stream)
                       : dst_d->api.MemcpyPeer((CUdeviceptr)dst, dst_d->ctx, (CUdeviceptr)src,
                                               src_d->ctx, bytes);
    leave_ctx(dst_d, &sc);
    if (r == CUDA_SUCCESS) return 0;
    StrBuf msg;
    sb_init(&msg);
    put_result(dst_d, &msg, r);
    errf(err,
         "%s of %zu bytes from 0x%llx on CUDA device %d to 0x%llx on CUDA device %d failed: %s",
         async ? "cuMemcpyPeerAsync" : "cuMemcpyPeer", bytes, (unsigned long long)src,
         src_d->ordinal, (unsigned long long)dst, dst_d->ordinal, sb_cstr(&msg));
    sb_free(&msg);
    if (sticky(r)) {
        blame_fault(src_d), blame_fault(dst_d);
        if (!src_d->fault && !dst_d->fault) /* neither says: the copy's context keeps it */
            cu_fail(dst_d, NULL, r, "cuMemcpyPeer to CUDA device %d", dst_d->ordinal);
    }
    return -1;
}

int cuda_synchronize(CudaDevice *d, StrBuf *err) {
    ON_CTX(d, err, d->api.CtxSynchronize(),
           "cuCtxSynchronize (an earlier kernel launch or copy on CUDA device %d)", d->ordinal);
    return 0;
}

/* ---- streams ---- */

int cuda_stream_create(CudaDevice *d, void **out, StrBuf *err) {
    *out = NULL;
    CUstream st = NULL;
    /* CU_STREAM_DEFAULT: ordered with the default stream */
    ON_CTX(d, err, d->api.StreamCreate(&st, 0), "cuStreamCreate on CUDA device %d", d->ordinal);
    *out = st;
    return 0;
}

int cuda_stream_destroy(CudaDevice *d, void *stream, StrBuf *err) {
    CtxScope sc;
    if (enter_ctx(d, &sc, err)) return -1;
    CUresult r = d->api.StreamSynchronize((CUstream)stream);
    if (r == CUDA_SUCCESS) r = d->api.StreamDestroy((CUstream)stream);
    else d->api.StreamDestroy((CUstream)stream); /* still released; the first failure is reported */
    leave_ctx(d, &sc);
    if (r != CUDA_SUCCESS) {
        cu_fail(d, err, r, "destroying a stream (an earlier launch on it, on CUDA device %d)",
                d->ordinal);
        return -1;
    }
    return 0;
}

int cuda_stream_synchronize(CudaDevice *d, void *stream, StrBuf *err) {
    ON_CTX(d, err, d->api.StreamSynchronize((CUstream)stream),
           "cuStreamSynchronize (an earlier launch on the stream, on CUDA device %d)", d->ordinal);
    return 0;
}

/* ---- modules ---- */

/* Append a JIT log, without its trailing blank lines, under a heading. */
static void put_log(StrBuf *err, const char *heading, const char *log) {
    size_t n = strlen(log);
    while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == '\r' || log[n - 1] == ' ')) n--;
    if (n == 0 || !err) return;
    sb_printf(err, "\n%s:\n", heading);
    sb_putn(err, log, n);
}

enum { JIT_LOG_SIZE = 1 << 20 };

/* A cache entry: this header (the kernel's launch metadata), then ptxas's cubin
 * (cubin_bytes of it, none when the driver's JIT compiled the PTX), then the kernel's PTX
 * with its terminating NUL. (Entries of older formats, "NRPTXIM1" with the PTX alone and
 * "NRCUBIN1" with a cubin from the driver's linker, count as foreign: deleted and
 * rebuilt.) */
typedef struct CacheHeader {
    char magic[8];         /* ENTRY_MAGIC */
    uint32_t shared_bytes; /* dynamic shared memory the kernel needs */
    uint32_t cubin_bytes;  /* 0: no cubin */
    uint32_t cubin_cc;     /* the compute capability the cubin is for */
    uint32_t threads;      /* per block; 0 (entries before warp specialisation): 32 * num_warps */
} CacheHeader;
#define ENTRY_MAGIC "NRPTXCB2"

void cuda_image_free(CudaImage *im) {
    if (!im) return;
    free(im->cubin);
    memset(im, 0, sizeof *im);
}

/* Load a module from `image` (PTX, or a cubin for the context's device) and find the
 * kernel; set the >48 KB shared-memory attribute. Given PTX, the driver compiles it (or
 * takes the machine code from its own JIT cache); on a failure err holds the driver's
 * logs. */
static CUresult load_module(CudaDevice *d, const void *image, bool is_cubin,
                            const char *kernel_name, unsigned shared_bytes, bool from_cache,
                            CudaKernel *out, StrBuf *err) {
    char *info = calloc(1, JIT_LOG_SIZE), *elog = calloc(1, JIT_LOG_SIZE);
    if (!info || !elog) {
        free(info), free(elog);
        errf(err, "PTX JIT of kernel '%s': out of memory", kernel_name);
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    }
    CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_LOG_VERBOSE};
    void *vals[] = {info, (void *)(uintptr_t)(JIT_LOG_SIZE - 1), elog,
                    (void *)(uintptr_t)(JIT_LOG_SIZE - 1), (void *)(uintptr_t)0};
    CUmodule mod = NULL;
    CUresult r =
        d->api.ModuleLoadDataEx(&mod, image, (unsigned)(sizeof opts / sizeof opts[0]), opts, vals);
    if (r != CUDA_SUCCESS) {
        if (is_cubin)
            cu_fail(d, err, r,
                    "loading ptxas's cubin of kernel '%s' for sm_%d (cuModuleLoadDataEx%s)",
                    kernel_name, d->cc, from_cache ? " of the disk cache's entry" : "");
        else
            cu_fail(d, err, r,
                    "PTX JIT compilation of kernel '%s' for sm_%d (cuModuleLoadDataEx%s)",
                    kernel_name, d->cc, from_cache ? " of the disk cache's entry" : "");
        put_log(err, "JIT error log", elog);
        put_log(err, "JIT info log", info);
    }
    free(info);
    free(elog);
    if (r != CUDA_SUCCESS) return r;
    CUfunction fn = NULL;
    r = d->api.ModuleGetFunction(&fn, mod, kernel_name);
    if (r != CUDA_SUCCESS) {
        cu_fail(
            d, err, r,
            "cuModuleGetFunction: finding kernel '%s' in its module (is it a .entry of the PTX?)",
            kernel_name);
        d->api.ModuleUnload(mod);
        return r;
    }
    if (shared_bytes > 48 * 1024) {
        r = d->api.FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    (int)shared_bytes);
        if (r != CUDA_SUCCESS) {
            cu_fail(d, err, r,
                    "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES = %u) for kernel '%s'",
                    shared_bytes, kernel_name);
            d->api.ModuleUnload(mod);
            return r;
        }
    }
    *out = (CudaKernel){mod, fn, shared_bytes, 0, from_cache};
    return CUDA_SUCCESS;
}

/* Does a failed load of a cached entry say the entry is bad (stale, foreign, damaged:
 * delete it and rebuild), rather than the device (out of memory, a broken context: keep
 * the entry and report)? */
static bool bad_image(CUresult r) {
    enum {
        INVALID_VALUE = 1,
        INVALID_IMAGE = 200,
        NO_BINARY_FOR_GPU = 209,
        INVALID_PTX = 218,
        UNSUPPORTED_PTX_VERSION = 222,
        INVALID_SOURCE = 300,
        NOT_FOUND = 500,
    };
    return r == INVALID_VALUE || r == INVALID_IMAGE || r == NO_BINARY_FOR_GPU || r == INVALID_PTX ||
           r == UNSUPPORTED_PTX_VERSION || r == INVALID_SOURCE || r == NOT_FOUND;
}

/* Compile `ptx` to machine code and load it: by ptxas for the device's own compute
 * capability (its cubin in *image when image is not NULL), else (no ptxas, ptxas failed,
 * or the driver refused its cubin) by the driver's JIT. Why not the driver's linker or
 * nvJitLink, which hand back a cubin too: they compile PTX as relocatable code, and on the
 * H200 (driver 580) the linker's code took 117 registers for Liger's SwiGLU where ptxas
 * and cuModuleLoadDataEx take 36, 216 bytes of spills for tutorial 06's backward against
 * 40 (bench/RESULTS.md, session 27): fewer blocks per SM, 1.2x the time. */
static CUresult load_ptx(CudaDevice *d, const char *ptx, const char *kernel_name,
                         unsigned shared_bytes, bool from_cache, CudaKernel *out, CudaImage *image,
                         StrBuf *err) {
    if (image) memset(image, 0, sizeof *image);
    StrBuf plog;
    sb_init(&plog);
    CUresult r = NOT_TRIED; /* not tried yet */
    if (d->ptxas[0]) {
        CudaImage im = {NULL, 0, d->cc};
        if (!ptxas_run(d->ptxas, d->ptxas_arch, NULL, ptx, strlen(ptx), &im.cubin, &im.len,
                       &plog)) {
            StrBuf lerr;
            sb_init(&lerr);
            r = load_module(d, im.cubin, true, kernel_name, shared_bytes, from_cache, out, &lerr);
            if (r == CUDA_SUCCESS && image) *image = im, im.cubin = NULL;
            else if (r != CUDA_SUCCESS && !bad_image(r)) sb_putn(err, lerr.data, lerr.len);
            else if (r != CUDA_SUCCESS) sb_putn(&plog, lerr.data, lerr.len);
            sb_free(&lerr);
            if (r != CUDA_SUCCESS && !bad_image(r)) { /* the device, not the cubin */
                cuda_image_free(&im);
                sb_free(&plog);
                return r;
            }
        }
        cuda_image_free(&im);
    }
    if (r != CUDA_SUCCESS) {
        r = load_module(d, ptx, false, kernel_name, shared_bytes, from_cache, out, err);
        if (r != CUDA_SUCCESS && d->ptxas[0]) put_log(err, "ptxas", sb_cstr(&plog));
    }
    sb_free(&plog);
    return r;
}

static int check_shared(CudaDevice *d, const char *kernel_name, unsigned shared_bytes,
                        StrBuf *err) {
    if (shared_bytes > 48 * 1024 && d->max_shared_optin > 0 &&
        shared_bytes > (unsigned)d->max_shared_optin) {
        errf(err,
             "kernel '%s' needs %u bytes of shared memory; CUDA device %d (%s) allows at most %d "
             "per block",
             kernel_name, shared_bytes, d->ordinal, d->name, d->max_shared_optin);
        return -1;
    }
    return 0;
}

/* cuda_load_cached's work, with d's context current. */
static int load_cached(CudaDevice *d, const char *kernel_name, const CacheKey *key, CudaKernel *out,
                       StrBuf *err) {
    size_t n = 0;
    unsigned char *blob = cache_get(key, &n);
    int rc = 0;
    bool bad = blob != NULL; /* until it loads */
    CacheHeader h;
    if (blob && n > sizeof h && blob[n - 1] == '\0') {
        memcpy(&h, blob, sizeof h);
        if (!memcmp(h.magic, ENTRY_MAGIC, sizeof h.magic) && h.cubin_bytes < n - sizeof h) {
            const unsigned char *cubin = blob + sizeof h;
            const char *ptx = (const char *)cubin + h.cubin_bytes;
            if (check_shared(d, kernel_name, h.shared_bytes, err)) {
                rc = -1, bad = false; /* the device cannot run it: compiling again would not help */
            } else {
                StrBuf lerr;
                sb_init(&lerr);
                CUresult r = NOT_TRIED;
                if (h.cubin_bytes && (int)h.cubin_cc == d->cc)
                    r = load_module(d, cubin, true, kernel_name, h.shared_bytes, true, out, &lerr);
                if (r != CUDA_SUCCESS && (r == (CUresult)NOT_TRIED || bad_image(r))) {
                    sb_free(&lerr); /* a cubin for another GPU, or none: the PTX */
                    sb_init(&lerr);
                    r = load_ptx(d, ptx, kernel_name, h.shared_bytes, true, out, NULL, &lerr);
                }
                if (r == CUDA_SUCCESS) rc = 1, bad = false, out->threads = h.threads;
                else if (!bad_image(r)) rc = -1, bad = false, sb_putn(err, lerr.data, lerr.len);
                sb_free(&lerr);
            }
        }
    }
    /* a stale, foreign or damaged entry: drop it, the caller rebuilds it */
    if (bad) cache_remove(key);
    free(blob);
    return rc;
}

int cuda_load_cached(CudaDevice *d, const char *kernel_name, const CacheKey *key, CudaKernel *out,
                     StrBuf *err) {
    if (out) memset(out, 0, sizeof *out);
    if (!d || !kernel_name || !key || !out) {
        errf(err, "cuda_load_cached: missing %s",
             !d             ? "device"
             : !kernel_name ? "kernel name"
             : !key         ? "key"
                            : "output");
        return -1;
    }
    CtxScope sc;
    if (enter_ctx(d, &sc, err)) return -1;
    int rc = load_cached(d, kernel_name, key, out, err);
    leave_ctx(d, &sc);
    return rc;
}

void cuda_cache_keep(const CacheKey *key, const char *ptx, const CudaImage *image,
                     unsigned shared_bytes, unsigned threads) {
    if (!key || !ptx) return;
    size_t n = strlen(ptx) + 1, nc = image && image->cubin ? image->len : 0;
    if (nc > UINT32_MAX) nc = 0;
    unsigned char *blob = malloc(sizeof(CacheHeader) + nc + n);
    if (!blob) return; /* the cache is an optimisation */
    CacheHeader h = {ENTRY_MAGIC, shared_bytes, (uint32_t)nc, nc ? (uint32_t)image->cc : 0,
                     threads};
    memcpy(blob, &h, sizeof h);
    if (nc) memcpy(blob + sizeof h, image->cubin, nc);
    memcpy(blob + sizeof h + nc, ptx, n);
    cache_put(key, blob, sizeof h + nc + n);
    free(blob);
}

/* cuda_load's work, with d's context current. */
static int load(CudaDevice *d, const char *ptx, const char *kernel_name, const CacheKey *cache_key,
                unsigned shared_bytes, unsigned threads, CudaKernel *out, StrBuf *err) {
    if (check_shared(d, kernel_name, shared_bytes, err)) return -1;
    if (cache_key) {
        int hit = load_cached(d, kernel_name, cache_key, out, err);
        if (hit) return hit > 0 ? 0 : -1;
    }
    CudaImage im;
    if (load_ptx(d, ptx, kernel_name, shared_bytes, false, out, &im, err) != CUDA_SUCCESS)
        return -1;
    out->threads = threads;
    cuda_cache_keep(cache_key, ptx, &im, shared_bytes, threads); /* only code that loads */
    cuda_image_free(&im);
    return 0;
}

int cuda_jit(const CudaDevice *d, const char *ptx, const char *kernel_name, unsigned shared_bytes,
             unsigned threads, CudaKernel *out, CudaImage *image, int *fault, StrBuf *err) {
    memset(out, 0, sizeof *out);
    if (image) memset(image, 0, sizeof *image);
    *fault = 0;
    /* a copy of d, so that nothing of d is written: a sticky error is noted in the copy
     * (cu_fail) and handed back for cuda_note_fault */
    CudaDevice local = *d;
    if (check_shared(&local, kernel_name, shared_bytes, err)) return -1;
    CtxScope sc;
    if (enter_ctx(&local, &sc, err)) return -1;
    int rc =
        load_ptx(&local, ptx, kernel_name, shared_bytes, false, out, image, err) == CUDA_SUCCESS
            ? 0
            : -1;
    if (!rc) out->threads = threads;
    leave_ctx(&local, &sc);
    if (local.fault && !d->fault) *fault = local.fault;
    return rc;
}

void cuda_note_fault(CudaDevice *d, int fault, const char *what) {
    if (!fault || d->fault) return;
    d->fault = fault;
    snprintf(d->fault_what, sizeof d->fault_what, "%s", what);
}

int cuda_load(CudaDevice *d, const char *ptx, const char *kernel_name, const CacheKey *cache_key,
              unsigned shared_bytes, unsigned threads, CudaKernel *out, StrBuf *err) {
    if (out) memset(out, 0, sizeof *out);
    if (!d || !ptx || !kernel_name || !out) {
        errf(err, "cuda_load: missing %s",
             !d             ? "device"
             : !ptx         ? "PTX"
             : !kernel_name ? "kernel name"
                            : "output");
        return -1;
    }
    CtxScope sc;
    if (enter_ctx(d, &sc, err)) return -1;
    int rc = load(d, ptx, kernel_name, cache_key, shared_bytes, threads, out, err);
    leave_ctx(d, &sc);
    return rc;
}

void cuda_unload(CudaDevice *d, CudaKernel *k) {
    if (!d || !k) return;
    /* after a fault the module went (or goes) with the context: the driver is not asked */
    CtxScope sc;
    if (k->module && !d->fault && !enter_ctx(d, &sc, NULL)) {
        d->api.ModuleUnload((CUmodule)k->module);
        leave_ctx(d, &sc);
    }
    memset(k, 0, sizeof *k);
}

int cuda_launch(CudaDevice *d, const CudaKernel *k, const unsigned grid[3], int num_warps,
                void **params, void *stream, StrBuf *err) {
    if (!d || !k || !k->function || !grid) {
        errf(err, "cuda_launch: %s", !d ? "no device" : !grid ? "no grid" : "kernel not loaded");
        return -1;
    }
    if (num_warps < 1 || num_warps > 32) {
        errf(err, "cuda_launch: num_warps = %d, must be 1..32 (a block has at most 1024 threads)",
             num_warps);
        return -1;
    }
    CtxScope sc;
    if (enter_ctx(d, &sc, err)) return -1;
    unsigned block = k->threads ? k->threads : 32u * (unsigned)num_warps;
    CUresult r = d->api.LaunchKernel((CUfunction)k->function, grid[0], grid[1], grid[2], block, 1,
                                     1, k->shared_bytes, (CUstream)stream, params, NULL);
    leave_ctx(d, &sc);
    if (r != CUDA_SUCCESS) {
        cu_fail(d, err, r,
                "cuLaunchKernel (grid %ux%ux%u, %u threads per block, %u bytes of dynamic shared "
                "memory)",
                grid[0], grid[1], grid[2], block, k->shared_bytes);
        return -1;
    }
    return 0;
}

int cuda_launch_cooperative(CudaDevice *d, const CudaKernel *k, const unsigned grid[3],
                            int num_warps, void **params, void *stream, StrBuf *err) {
    if (!d || !k || !k->function || !grid) {
        errf(err, "cuda_launch_cooperative: %s",
             !d      ? "no device"
             : !grid ? "no grid"
                     : "kernel not loaded");
        return -1;
    }
    if (num_warps < 1 || num_warps > 32) {
        errf(err, "cuda_launch_cooperative: num_warps = %d, must be 1..32", num_warps);
        return -1;
    }
    if (!d->api.LaunchCooperativeKernel || !d->api.OccupancyMaxActiveBlocksPerMultiprocessor) {
        errf(err, "a cooperative launch needs cuLaunchCooperativeKernel and "
                  "cuOccupancyMaxActiveBlocksPerMultiprocessor, which the CUDA driver lacks");
        return -1;
    }
    CtxScope sc;
    if (enter_ctx(d, &sc, err)) return -1;
    unsigned block = k->threads ? k->threads : 32u * (unsigned)num_warps;
    int sms = 0, per_sm = 0;
    CUresult r = d->api.DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev);
    if (r == CUDA_SUCCESS)
        r = d->api.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (CUfunction)k->function,
                                                             (int)block, k->shared_bytes);
    if (r != CUDA_SUCCESS) {
        leave_ctx(d, &sc);
        cu_fail(d, err, r, "the occupancy query of a cooperative launch");
        return -1;
    }
    unsigned long long programs = (unsigned long long)grid[0] * grid[1] * grid[2];
    unsigned long long resident =
        (unsigned long long)(per_sm > 0 ? per_sm : 0) * (unsigned long long)(sms > 0 ? sms : 0);
    if (programs > resident) {
        leave_ctx(d, &sc);
        errf(err,
             "a cooperative launch needs all its programs resident at once: the grid has %llu "
             "programs (%ux%ux%u), the device holds at most %llu of this kernel (%d per SM x %d "
             "SMs, at %u threads and %u bytes of shared memory per program)",
             programs, grid[0], grid[1], grid[2], resident, per_sm, sms, block, k->shared_bytes);
        return -1;
    }
    r = d->api.LaunchCooperativeKernel((CUfunction)k->function, grid[0], grid[1], grid[2], block, 1,
                                       1, k->shared_bytes, (CUstream)stream, params);
    leave_ctx(d, &sc);
    if (r != CUDA_SUCCESS) {
        cu_fail(d, err, r,
                "cuLaunchCooperativeKernel (grid %ux%ux%u, %u threads per block, %u bytes of "
                "dynamic shared memory)",
                grid[0], grid[1], grid[2], block, k->shared_bytes);
        return -1;
    }
    return 0;
}

int cuda_function_resources(CudaDevice *d, const CudaKernel *k, CudaResources *out, StrBuf *err) {
    memset(out, 0, sizeof *out);
    if (!d || !k || !k->function)
        return errf(err, "cuda_function_resources: kernel not loaded"), -1;
    if (!d->api.FuncGetAttribute) return errf(err, "the CUDA driver lacks cuFuncGetAttribute"), -1;
    /* CU_FUNC_ATTRIBUTE_*: MAX_THREADS_PER_BLOCK 0, SHARED_SIZE_BYTES 1, LOCAL_SIZE_BYTES 3,
     * NUM_REGS 4 */
    enum { SHARED = 1, LOCAL = 3, REGS = 4 };
    CtxScope sc;
    if (enter_ctx(d, &sc, err)) return -1;
    CUfunction f = (CUfunction)k->function;
    CUresult r = d->api.FuncGetAttribute(&out->registers, REGS, f);
    if (r == CUDA_SUCCESS) r = d->api.FuncGetAttribute(&out->local_bytes, LOCAL, f);
    if (r == CUDA_SUCCESS) r = d->api.FuncGetAttribute(&out->static_shared_bytes, SHARED, f);
    leave_ctx(d, &sc);
    if (r != CUDA_SUCCESS) {
        cu_fail(d, err, r, "cuFuncGetAttribute");
        return -1;
    }
    return 0;
}

/* ---- tensor maps (TMA) ---- */

/* ---- device-side timing (the autotuner) ---- */

bool cuda_has_events(const CudaDevice *d) {
    return d && d->api.EventCreate && d->api.EventRecord && d->api.EventElapsedTime &&
           d->api.EventSynchronize && d->api.EventDestroy && d->api.MemsetD32Async;
}

int cuda_event_create(CudaDevice *d, void **out, StrBuf *err) {
    *out = NULL;
    if (!cuda_has_events(d)) return errf(err, "this driver has no events"), -1;
    CUevent ev = NULL;
    ON_CTX(d, err, d->api.EventCreate(&ev, 0), "cuEventCreate on CUDA device %d", d->ordinal);
    *out = ev;
    return 0;
}

void cuda_event_destroy(CudaDevice *d, void *ev) {
    if (!ev || !cuda_has_events(d)) return;
    CtxScope sc;
    if (enter_ctx(d, &sc, NULL)) return;
    d->api.EventDestroy((CUevent)ev);
    leave_ctx(d, &sc);
}

int cuda_event_record(CudaDevice *d, void *ev, void *stream, StrBuf *err) {
    ON_CTX(d, err, d->api.EventRecord((CUevent)ev, (CUstream)stream),
           "cuEventRecord on CUDA device %d", d->ordinal);
    return 0;
}

int cuda_event_elapsed(CudaDevice *d, void *start, void *end, float *ms, StrBuf *err) {
    ON_CTX(d, err, d->api.EventSynchronize((CUevent)end),
           "cuEventSynchronize (an earlier launch on the stream, on CUDA device %d)", d->ordinal);
    ON_CTX(d, err, d->api.EventElapsedTime(ms, (CUevent)start, (CUevent)end),
           "cuEventElapsedTime on CUDA device %d", d->ordinal);
    return 0;
}

int cuda_memset32_async(CudaDevice *d, uint64_t dst, unsigned value, size_t words, void *stream,
                        StrBuf *err) {
    if (words == 0) return 0;
    ON_CTX(d, err, d->api.MemsetD32Async((CUdeviceptr)dst, value, words, (CUstream)stream),
           "cuMemsetD32Async of %zu words at 0x%llx on CUDA device %d", words,
           (unsigned long long)dst, d->ordinal);
    return 0;
}

bool cuda_has_tma(const CudaDevice *d) {
    return d && d->api.TensorMapEncodeTiled && cuda_compute_capability(d) >= 90;
}

int cuda_tensor_map_encode(CudaDevice *d, void *map, const CudaTensorMap *t, StrBuf *err) {
    if (!cuda_has_tma(d)) return errf(err, "this driver or device has no tensor maps (TMA)"), -1;
    static const unsigned ones[5] = {1, 1, 1, 1, 1};
    /* CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2; CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1
     */
    ON_CTX(d, err,
           d->api.TensorMapEncodeTiled(map, t->dtype, (unsigned)t->rank, (void *)(uintptr_t)t->base,
                                       t->dims, t->strides, t->box, ones, 0, t->swizzle, 2,
                                       t->nan_fill ? 1 : 0),
           "cuTensorMapEncodeTiled (rank %d, base 0x%llx)", t->rank, (unsigned long long)t->base);
    return 0;
}
