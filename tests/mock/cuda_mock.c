/* cuda_mock.c - a stand-in for the CUDA driver (libcuda.so.1), so that the runtime's
 * handling of kernel faults (runtime/cuda.c, runtime/launch_cuda.c) is tested on machines
 * without a GPU: tools/run-tests.sh runs tests/gpu/test_gpu_faults with this library
 * first on LD_LIBRARY_PATH. It is a test double, not a GPU: it implements the entry
 * points runtime/cuda.c resolves, keeps device memory in host memory, "JIT-compiles" PTX
 * by keeping its text, and "runs" the few kernels that test knows by name:
 *
 *   good(x: *fp32, n: i32)           x[i] = 2 * x[i] + 1 for i < n
 *   assert_small(x: *i32, n: i32)    any x[i] >= 10: CUDA_ERROR_ASSERT, else x[i] += 1
 *   oob_store(...)                   CUDA_ERROR_ILLEGAL_ADDRESS
 *   trap_kernel(...)                 CUDA_ERROR_LAUNCH_FAILED
 *
 * The driver's rules it keeps: a fault is asynchronous (the launch succeeds; the calls
 * after it fail) and sticky (every later call on the context returns it); the primary
 * context is reference-counted, and when the last reference goes it is destroyed with
 * everything in it. After a fault the device is lost to the process, as on NVIDIA's
 * drivers (CUDA documents that the process must be restarted): cuDevicePrimaryCtxRetain
 * returns the sticky error from then on, while the poisoned context is still held and
 * after it is gone. With CUDA_MOCK_RECOVER=1 in the environment it models a driver that
 * recovers instead: a retain while someone still holds the poisoned context gets that
 * context (whose calls all fail), and once the last reference goes the next retain gets
 * a fresh, working one. tools/run-tests.sh runs test_gpu_faults both ways. Like the real
 * driver it is process-wide state, behind one mutex (the launch path reads the context's
 * state with atomic loads instead, so that a launch of a kernel it does not run costs
 * about a function call: bench/launch_overhead_mock.py times Nereid's own launch path on
 * it).
 *
 * For the autotuner's device-side timing: events (cuEventCreate, Record, Synchronize,
 * ElapsedTime, Destroy) read each device's clock, which every launch advances by a
 * microsecond a program, and cuMemsetD32Async (its L2 flush); cuMockStats counts the
 * events recorded and the bytes so cleared.
 *
 * Several devices (tests/gpu/test_gpu_multi.c, python/tests/test_mock.py): with
 * CUDA_MOCK_DEVICES=N (1 to 8; default 1) it has N devices, each with its own primary
 * context, memory, faults and compute capability (CUDA_MOCK_CC=90,80,...: device i's
 * capability as major*10+minor, default 90 for all). As the driver does, it keeps a
 * current context per thread (cuCtxGetCurrent/cuCtxSetCurrent), and every call on "the
 * context" is on the calling thread's current one; with none current the call fails
 * (CUDA_ERROR_INVALID_CONTEXT). It is stricter than a driver with unified addressing, so
 * that a call made with the wrong context current is caught: memory calls take only
 * memory of the current device (or of a device it has peer access to), a module, its
 * functions and a stream work only in the context they were made in
 * (CUDA_ERROR_INVALID_HANDLE otherwise), and the kernel `good` faults
 * (CUDA_ERROR_ILLEGAL_ADDRESS) on memory its device cannot reach. Peer access:
 * cuDeviceCanAccessPeer says yes for any two distinct devices, unless CUDA_MOCK_NO_PEER=1
 * (then no: the runtime must stage its copies through host memory);
 * cuCtxEnablePeerAccess enables it for the current context (again:
 * CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED); cuMemcpyPeer(Async) copies between any two
 * contexts (the real driver stages through the host itself where peer access is off).
 * cuMockStats counts the copies of each kind, the launches per device and the most
 * launches in flight at once across threads, for the tests to see which path ran.
 *
 * Two more things for the launch path's tests and benchmarks: cuModuleLoadData(Ex) takes PTX
 * text, as the real driver does (JIT-compiling it; here, keeping the text), or a "cubin"
 * of the stand-in ptxas tests/mock/ptxas ("NRMOCKCUBIN ARCH", a newline, the PTX: refused
 * with CUDA_ERROR_NO_BINARY_FOR_GPU unless ARCH is the device's sm_XY, or sm_90a on a
 * 9.0 device; cuMockStats counts both kinds of load), and each
 * launch of a kernel whose name starts with "record_" is recorded (grid, block, dynamic
 * shared memory, stream, the device, and the arguments' values, their sizes read from
 * the .entry's .param list) for cuMockLastLaunch below, which python/tests/test_mock.py
 * reads through ctypes to check what a launch from Python passed. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;

enum {
    OK = 0,
    INVALID_VALUE = 1,
    NOT_INITIALIZED = 3,
    INVALID_DEVICE = 101,
    INVALID_CONTEXT = 201,
    INVALID_IMAGE = 200,
    NO_BINARY_FOR_GPU = 209,
    PEER_ACCESS_UNSUPPORTED = 217,
    INVALID_HANDLE = 400,
    NOT_FOUND = 500,
    NOT_READY = 600,
    ILLEGAL_ADDRESS = 700,
    PEER_ACCESS_ALREADY_ENABLED = 704,
    ASSERT = 710,
    LAUNCH_FAILED = 719,
    COOPERATIVE_LAUNCH_TOO_LARGE = 720,
};

#define API __attribute__((visibility("default")))

enum { MAX_DEV = 8, MOCK_SMS = 4 }; /* devices; each one's multiprocessors */

/* One allocation of device memory. */
typedef struct Alloc {
    void *p;
    size_t n;
} Alloc;

/* the driver's state: the devices, each with its primary context */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct Dev {
    /* refs and sticky are written under mu with atomic stores, and read with atomic loads */
    int refs;        /* retains of the primary context */
    CUresult sticky; /* a fault: every call on the context returns it (and every retain, unless it
                        recovers) */
    Alloc *allocs;   /* device memory of the context */
    int nallocs, capallocs;
    unsigned
        peers; /* devices whose memory this context may use (cuCtxEnablePeerAccess), a bit each */
} devs[MAX_DEV];
static char ctx_tokens[MAX_DEV];   /* &ctx_tokens[i]: device i's primary context's handle */
static _Thread_local int cur = -1; /* the calling thread's current context: its device, or -1 */

/* What cuMockStats reports (under mu, but `inflight`, updated with atomics). */
enum {
    ST_PEER_COPIES,
    ST_PEER_DIRECT,
    ST_DTOD,
    ST_HTOD,
    ST_DTOH,
    ST_PEER_ENABLED,
    ST_MAX_INFLIGHT,
    ST_LAUNCHES,
    ST_PTX_LOADS = ST_LAUNCHES + MAX_DEV, /* modules loaded from PTX (the "JIT") */
    ST_CUBIN_LOADS,                       /* and from the stand-in ptxas's cubins */
    ST_EVENTS_RECORDED,                   /* cuEventRecord's */
    ST_MEMSET32_BYTES,                    /* bytes cleared by cuMemsetD32Async */
    ST_COUNT
};
static long long stats[ST_COUNT];
static int inflight; /* launches of `good` running now, in all threads */
/* Each device's clock for events, in microseconds: a launch advances it by one a program,
 * so device-side timing (the autotuner's) sees a bigger grid take longer */
static double dev_clock_us[MAX_DEV];

/* CUDA_MOCK_DEVICES: 1 to MAX_DEV, read once */
static pthread_once_t devices_once = PTHREAD_ONCE_INIT;
static int ndevices;
static void read_devices(void) {
    const char *v = getenv("CUDA_MOCK_DEVICES");
    int n = v && *v ? atoi(v) : 1;
    ndevices = n < 1 ? 1 : n > MAX_DEV ? MAX_DEV : n;
}
static int num_devices(void) {
    pthread_once(&devices_once, read_devices);
    return ndevices;
}

/* CUDA_MOCK_CC=90,80: device d's compute capability (major*10+minor), default 90 */
static int device_cc(int d) {
    const char *v = getenv("CUDA_MOCK_CC");
    int cc = 90;
    for (int i = 0; v && *v; i++) {
        int x = atoi(v);
        if (i == d || !strchr(v, ',')) cc = x > 0 ? x : 90;
        if (i == d) break;
        v = strchr(v, ',');
        if (v) v++;
    }
    return cc;
}

static bool env_on(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0");
}

/* every call on the current context: the sticky error, or OK */
static CUresult ctx_state(void) {
    int d = cur;
    if (d < 0) return INVALID_CONTEXT;
    if (__atomic_load_n(&devs[d].refs, __ATOMIC_ACQUIRE) == 0) return INVALID_CONTEXT;
    return __atomic_load_n(&devs[d].sticky, __ATOMIC_ACQUIRE);
}

static void poison(int d, CUresult r) {
    pthread_mutex_lock(&mu);
    if (!devs[d].sticky) __atomic_store_n(&devs[d].sticky, r, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&mu);
}

static int ctx_index(CUcontext c) {
    const char *p = (const char *)c;
    return p >= ctx_tokens && p < ctx_tokens + MAX_DEV ? (int)(p - ctx_tokens) : -1;
}

/* The device whose memory holds [p, p+n), or -1 (under mu). */
static int owner_locked(CUdeviceptr p, size_t n) {
    for (int d = 0; d < MAX_DEV; d++)
        for (int i = 0; i < devs[d].nallocs; i++) {
            uintptr_t b = (uintptr_t)devs[d].allocs[i].p;
            if (p >= b && p - b <= devs[d].allocs[i].n && n <= devs[d].allocs[i].n - (p - b))
                return d;
        }
    return -1;
}

/* May device d's context use [p, p+n)? Its own memory, or a peer's it enabled. */
static bool reachable(int d, CUdeviceptr p, size_t n) {
    pthread_mutex_lock(&mu);
    int o = owner_locked(p, n);
    bool ok = o >= 0 && (o == d || (devs[d].peers >> o & 1u));
    pthread_mutex_unlock(&mu);
    return ok;
}

static void count(int what) {
    pthread_mutex_lock(&mu);
    stats[what]++;
    pthread_mutex_unlock(&mu);
}

API CUresult cuInit(unsigned flags) { return flags ? INVALID_VALUE : OK; }
API CUresult cuDriverGetVersion(int *v) { return *v = 13000, OK; }

static const char *name_of(CUresult r) {
    switch (r) {
    case OK: return "CUDA_SUCCESS";
    case INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
    case INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
    case INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
    case INVALID_IMAGE: return "CUDA_ERROR_INVALID_IMAGE";
    case PEER_ACCESS_UNSUPPORTED: return "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED";
    case INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
    case NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
    case NOT_READY: return "CUDA_ERROR_NOT_READY";
    case ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case PEER_ACCESS_ALREADY_ENABLED: return "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED";
    case ASSERT: return "CUDA_ERROR_ASSERT";
    case LAUNCH_FAILED: return "CUDA_ERROR_LAUNCH_FAILED";
    }
    return NULL;
}
API CUresult cuGetErrorName(CUresult r, const char **s) {
    return (*s = name_of(r)) ? OK : INVALID_VALUE;
}
API CUresult cuGetErrorString(CUresult r, const char **s) {
    switch (r) {
    case ILLEGAL_ADDRESS: *s = "an illegal memory access was encountered"; return OK;
    case ASSERT: *s = "device-side assert triggered"; return OK;
    case LAUNCH_FAILED: *s = "unspecified launch failure"; return OK;
    }
    return (*s = name_of(r)) ? OK : INVALID_VALUE;
}

API CUresult cuDeviceGetCount(int *n) { return *n = num_devices(), OK; }
API CUresult cuDeviceGet(CUdevice *d, int i) {
    return i >= 0 && i < num_devices() ? (*d = i, OK) : INVALID_DEVICE;
}
API CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    int cc = device_cc(d); /* devices of another kind have another name, as real ones do */
    if (cc == 90) snprintf(name, (size_t)len, "Mock GPU (tests/mock/cuda_mock.c)");
    else
        snprintf(name, (size_t)len, "Mock GPU cc %d.%d (tests/mock/cuda_mock.c)", cc / 10, cc % 10);
    return OK;
}
API CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
    if (d < 0 || d >= num_devices()) return INVALID_DEVICE;
    int cc = device_cc(d);
    /* 227 KB opt-in; MOCK_SMS multiprocessors */
    *v = attr == 75   ? cc / 10
         : attr == 76 ? cc % 10
         : attr == 97 ? 232448
         : attr == 16 ? MOCK_SMS
                      : 0;
    return OK;
}
API CUresult cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer) {
    int n = num_devices();
    if (d < 0 || d >= n || peer < 0 || peer >= n) return INVALID_DEVICE;
    *can = d != peer && !env_on("CUDA_MOCK_NO_PEER");
    return OK;
}

/* CUDA_MOCK_RECOVER=1: the primary context recovers once every user has released it */
static bool recovers(void) { return env_on("CUDA_MOCK_RECOVER"); }

API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
    if (d < 0 || d >= num_devices()) return INVALID_DEVICE;
    pthread_mutex_lock(&mu);
    struct Dev *v = &devs[d];
    CUresult r = v->sticky && !recovers() ? v->sticky : OK; /* the device is lost to the process */
    if (!r) __atomic_store_n(&v->refs, v->refs + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&mu);
    if (!r) *c = (CUcontext)&ctx_tokens[d];
    return r;
}
API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
    if (d < 0 || d >= num_devices()) return INVALID_DEVICE;
    pthread_mutex_lock(&mu);
    struct Dev *v = &devs[d];
    CUresult r = v->refs > 0 ? OK : INVALID_CONTEXT;
    if (v->refs > 0) __atomic_store_n(&v->refs, v->refs - 1, __ATOMIC_RELEASE);
    if (r == OK && v->refs == 0) { /* destroyed, with everything in it */
        for (int i = 0; i < v->nallocs; i++) free(v->allocs[i].p);
        free(v->allocs);
        v->allocs = NULL, v->nallocs = v->capallocs = 0;
        v->peers = 0;
        for (int o = 0; o < MAX_DEV; o++) devs[o].peers &= ~(1u << d); /* its memory is gone */
        if (recovers())
            __atomic_store_n(&v->sticky, OK, __ATOMIC_RELEASE); /* else the fault stays */
    }
    pthread_mutex_unlock(&mu);
    return r;
}
API CUresult cuCtxGetCurrent(CUcontext *c) {
    *c = cur >= 0 ? (CUcontext)&ctx_tokens[cur] : NULL;
    return OK;
}
API CUresult cuCtxSetCurrent(CUcontext c) {
    if (!c) return cur = -1, OK;
    int d = ctx_index(c);
    if (d < 0 || d >= num_devices()) return INVALID_CONTEXT;
    cur = d;
    return OK;
}
API CUresult cuCtxSynchronize(void) { return ctx_state(); }
API CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned flags) {
    CUresult r = ctx_state();
    if (r) return r;
    int p = ctx_index(peer), d = cur, can = 0;
    if (flags || p < 0 || p >= num_devices()) return INVALID_VALUE;
    if (cuDeviceCanAccessPeer(&can, d, p) != OK || !can) return PEER_ACCESS_UNSUPPORTED;
    pthread_mutex_lock(&mu);
    if (devs[p].refs == 0) r = INVALID_CONTEXT;
    else if (devs[d].peers >> p & 1u) r = PEER_ACCESS_ALREADY_ENABLED;
    else devs[d].peers |= 1u << p, stats[ST_PEER_ENABLED]++;
    pthread_mutex_unlock(&mu);
    return r;
}

/* a stream: the device it was made on. The streams made here are listed (under mu), so
 * that a handle made elsewhere (a test's made-up one) is taken without being read. */
typedef struct Stream {
    int dev;
} Stream;
static Stream **streams;
static int nstreams, capstreams;

/* A stream may be used only in its own context (NULL, or one not made here: taken). */
static CUresult stream_ok(const Stream *s) {
    if (!s) return OK;
    CUresult r = OK;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nstreams; i++)
        if (streams[i] == s) r = s->dev == cur ? OK : INVALID_HANDLE;
    pthread_mutex_unlock(&mu);
    return r;
}

API CUresult cuStreamCreate(Stream **s, unsigned flags) {
    (void)flags;
    CUresult r = ctx_state();
    if (r) return r;
    *s = malloc(sizeof **s);
    if (!*s) return INVALID_VALUE;
    (*s)->dev = cur;
    pthread_mutex_lock(&mu);
    if (nstreams == capstreams) {
        capstreams = capstreams ? 2 * capstreams : 16;
        streams = realloc(streams, sizeof *streams * (size_t)capstreams);
    }
    streams[nstreams++] = *s;
    pthread_mutex_unlock(&mu);
    return OK;
}
API CUresult cuStreamDestroy_v2(Stream *s) {
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nstreams; i++)
        if (streams[i] == s) streams[i] = streams[--nstreams];
    pthread_mutex_unlock(&mu);
    free(s); /* released whatever the state, as the driver does */
    return ctx_state();
}
API CUresult cuStreamSynchronize(Stream *s) {
    CUresult r = ctx_state();
    return r ? r : stream_ok(s);
}
API CUresult cuStreamQuery(Stream *s) {
    CUresult r = ctx_state();
    return r ? r : stream_ok(s);
}

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    CUresult r = ctx_state();
    if (r) return r;
    void *m = calloc(1, n);
    if (!m) return INVALID_VALUE;
    pthread_mutex_lock(&mu);
    struct Dev *v = &devs[cur];
    if (v->nallocs == v->capallocs) {
        v->capallocs = v->capallocs ? 2 * v->capallocs : 16;
        v->allocs = realloc(v->allocs, sizeof *v->allocs * (size_t)v->capallocs);
    }
    v->allocs[v->nallocs++] = (Alloc){m, n};
    pthread_mutex_unlock(&mu);
    *p = (CUdeviceptr)(uintptr_t)m;
    return OK;
}
API CUresult cuMemFree_v2(CUdeviceptr p) {
    CUresult r = ctx_state();
    if (r) return r;
    pthread_mutex_lock(&mu);
    r = INVALID_VALUE; /* only memory of the current context */
    struct Dev *v = &devs[cur];
    for (int i = 0; i < v->nallocs; i++)
        if (v->allocs[i].p == (void *)(uintptr_t)p) {
            free(v->allocs[i].p);
            v->allocs[i] = v->allocs[--v->nallocs];
            r = OK;
            break;
        }
    pthread_mutex_unlock(&mu);
    return r;
}
API CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) {
    CUresult r = ctx_state();
    if (!r && !reachable(cur, d, n)) r = INVALID_VALUE;
    if (!r) memcpy((void *)(uintptr_t)d, s, n), count(ST_HTOD);
    return r;
}
API CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) {
    CUresult r = ctx_state();
    if (!r && !reachable(cur, s, n)) r = INVALID_VALUE;
    if (!r) memcpy(d, (const void *)(uintptr_t)s, n), count(ST_DTOH);
    return r;
}
API CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) {
    CUresult r = ctx_state();
    if (!r && (!reachable(cur, d, n) || !reachable(cur, s, n))) r = INVALID_VALUE;
    if (!r) memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n), count(ST_DTOD);
    return r;
}
API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, Stream *st) {
    CUresult r = ctx_state();
    if (!r) r = stream_ok(st);
    return r ? r : cuMemcpyDtoD_v2(d, s, n);
}
/* Between two contexts (any two: the driver stages through the host itself where peer
 * access is off); the pointers must be their contexts' memory. */
API CUresult cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n) {
    int di = ctx_index(dc), si = ctx_index(sc);
    if (di < 0 || si < 0) return INVALID_CONTEXT;
    pthread_mutex_lock(&mu);
    CUresult r = devs[di].refs == 0 || devs[si].refs == 0 ? INVALID_CONTEXT
                 : devs[di].sticky                        ? devs[di].sticky
                                                          : devs[si].sticky;
    if (!r && (owner_locked(d, n) != di || owner_locked(s, n) != si)) r = INVALID_VALUE;
    if (!r) {
        stats[ST_PEER_COPIES]++;
        if ((devs[di].peers >> si & 1u) || (devs[si].peers >> di & 1u)) stats[ST_PEER_DIRECT]++;
    }
    pthread_mutex_unlock(&mu);
    if (!r) memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
    return r;
}
API CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n,
                               Stream *st) {
    int keep = cur;
    cur = ctx_index(dc); /* a stream of either context's device */
    CUresult r = stream_ok(st);
    if (r) cur = ctx_index(sc), r = stream_ok(st);
    cur = keep;
    return r ? r : cuMemcpyPeer(d, dc, s, sc, n);
}
API CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char b, size_t n) {
    CUresult r = ctx_state();
    if (!r && !reachable(cur, d, n)) r = INVALID_VALUE;
    if (!r) memset((void *)(uintptr_t)d, b, n);
    return r;
}

/* Stream-ordered, as the device runs everything at once here */
API CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, Stream *st) {
    CUresult r = ctx_state();
    if (!r) r = stream_ok(st);
    if (!r && !reachable(cur, d, 4 * n)) r = INVALID_VALUE;
    if (r) return r;
    if (v == 0) memset((void *)(uintptr_t)d, 0, 4 * n);
    else
        for (size_t i = 0; i < n; i++) memcpy((char *)(uintptr_t)d + 4 * i, &v, 4);
    pthread_mutex_lock(&mu);
    stats[ST_MEMSET32_BYTES] += (long long)(4 * n);
    pthread_mutex_unlock(&mu);
    return OK;
}

/* Events: a record takes its device's clock (dev_clock_us) */
typedef struct Event {
    int dev;
    int recorded;
    double us;
} Event;
API CUresult cuEventCreate(Event **out, unsigned flags) {
    (void)flags;
    CUresult r = ctx_state();
    if (r) return r;
    Event *e = calloc(1, sizeof *e);
    if (!e) return INVALID_VALUE;
    e->dev = cur;
    *out = e;
    return OK;
}
API CUresult cuEventDestroy_v2(Event *e) {
    free(e);
    return OK;
}
API CUresult cuEventRecord(Event *e, Stream *st) {
    CUresult r = ctx_state();
    if (!r) r = stream_ok(st);
    if (r) return r;
    if (!e || e->dev != cur) return INVALID_HANDLE;
    pthread_mutex_lock(&mu);
    e->us = dev_clock_us[cur], e->recorded = 1;
    stats[ST_EVENTS_RECORDED]++;
    pthread_mutex_unlock(&mu);
    return OK;
}
API CUresult cuEventSynchronize(Event *e) {
    CUresult r = ctx_state();
    return r ? r : !e || e->dev != cur ? INVALID_HANDLE : OK;
}
API CUresult cuEventElapsedTime(float *ms, Event *a, Event *b) {
    CUresult r = ctx_state();
    if (r) return r;
    if (!a || !b || a->dev != b->dev || !a->recorded || !b->recorded) return INVALID_HANDLE;
    *ms = (float)((b->us - a->us) / 1000);
    return OK;
}

/* "JIT": a module keeps the PTX text and finds its entries by name */
typedef struct Function Function;
typedef struct Module {
    char *text;
    int dev;       /* the context it was loaded into */
    Function *fns; /* the functions looked up in it, freed with it */
} Module;
enum { K_OTHER, K_GOOD, K_ASSERT_SMALL, K_OOB_STORE, K_TRAP, K_RECORD, MAX_PARAMS = 32 };
struct Function {
    Function *next; /* the module's next function */
    char name[128];
    unsigned long long serial; /* which lookup made it (1, 2, ...): tells compiled variants apart */
    int kind;                  /* K_*: what a launch does, decided once by name */
    int dev;                   /* its module's context */
    int nparams;               /* K_RECORD: the .entry's parameters and their sizes */
    unsigned char size[MAX_PARAMS];
};

/* What the last launch of a "record_" kernel passed (cuMockLastLaunch). */
typedef struct MockLaunch {
    char kernel[128];
    unsigned long long function; /* the function's serial (Function.serial) */
    unsigned grid[3], block[3], shared;
    void *stream;
    int nparams;
    unsigned long long params[MAX_PARAMS]; /* each argument's bytes, zero-extended */
    long long count;                       /* launches recorded so far */
    int device;                            /* the device it ran on */
    int cooperative;                       /* through cuLaunchCooperativeKernel */
} MockLaunch;
static MockLaunch last_launch;       /* under mu */
static unsigned long long functions; /* cuModuleGetFunction's so far, under mu */

API CUresult cuMockLastLaunch(MockLaunch *out) {
    pthread_mutex_lock(&mu);
    *out = last_launch;
    pthread_mutex_unlock(&mu);
    return OK;
}

/* The counters (ST_* above, in this order): copies through cuMemcpyPeer(Async), those of
 * them between contexts with peer access enabled, cuMemcpyDtoD(Async), HtoD, DtoH, peer
 * accesses enabled, the most launches of `good` running at once, then launches per device
 * (MAX_DEV of them), modules loaded from PTX and from cubins, events recorded, bytes
 * cleared by cuMemsetD32Async. n: how many the caller's array holds. reset: zero them after. */
API CUresult cuMockStats(long long *out, int n, int reset) {
    pthread_mutex_lock(&mu);
    for (int i = 0; i < n && i < ST_COUNT; i++) out[i] = stats[i];
    if (reset) memset(stats, 0, sizeof stats);
    pthread_mutex_unlock(&mu);
    return OK;
}

/* PTX text, which the driver JIT-compiles: comments and directives, a .version among them */
static bool is_ptx(const char *image) {
    return (image[0] == '/' || image[0] == '.') && strstr(image, ".version ");
}

/* The sizes of the parameters of `.entry NAME(.param .u64 a, .param .align 2 .b8 h[2])`
 * (at entry): a type's bits / 8 (a predicate's: 1), times an array's length. */
static int param_sizes(const char *entry, unsigned char *size) {
    const char *end = strchr(entry, ')');
    int n = 0;
    for (const char *p = strstr(entry, ".param "); p && (!end || p < end) && n < MAX_PARAMS;
         p = strstr(p + 1, ".param ")) {
        const char *t = p + strlen(".param ");
        if (!strncmp(t, ".align ", 7)) { /* .align N */
            t += 7;
            while (*t >= '0' && *t <= '9') t++;
            while (*t == ' ') t++;
        }
        if (*t == '.') t++;
        while (*t >= 'a' && *t <= 'z') t++; /* u, s, b, f, pred */
        int bits = atoi(t), bytes = bits >= 8 ? bits / 8 : 1;
        while (*t && *t != '[' && *t != ',' && *t != ')') t++;
        if (*t == '[') bytes *= atoi(t + 1);
        size[n++] =
            (unsigned char)(bytes < 255 ? bytes : 255); /* a descriptor's struct: 48 to 208 bytes */
    }
    return n;
}

API CUresult cuModuleLoadData(Module **m, const void *image) {
    CUresult r = ctx_state();
    if (r) return r;
    const char *text = image;
    static const char cubin[] = "NRMOCKCUBIN ";
    bool is_cubin = !strncmp(text, cubin, sizeof cubin - 1);
    if (is_cubin) { /* the stand-in ptxas's: for this device's compute capability only */
        const char *arch = text + sizeof cubin - 1, *nl = strchr(arch, '\n');
        char own[16];
        int cc = device_cc(cur);
        snprintf(own, sizeof own, "sm_%d", cc);
        size_t n = nl ? (size_t)(nl - arch) : 0;
        bool fits = (n == strlen(own) && !strncmp(arch, own, n)) ||
                    (cc == 90 && n == 6 && !strncmp(arch, "sm_90a", 6));
        if (!nl) return INVALID_IMAGE;
        if (!fits) return NO_BINARY_FOR_GPU;
        text = nl + 1;
    }
    if (!is_ptx(text)) return INVALID_IMAGE;
    *m = calloc(1, sizeof **m);
    if (!*m || !((*m)->text = strdup(text))) return free(*m), INVALID_VALUE;
    (*m)->dev = cur;
    pthread_mutex_lock(&mu);
    stats[is_cubin ? ST_CUBIN_LOADS : ST_PTX_LOADS]++;
    pthread_mutex_unlock(&mu);
    return OK;
}
/* the runtime's load: the JIT options (log buffers) taken and left empty */
API CUresult cuModuleLoadDataEx(Module **m, const void *image, unsigned n, int *o, void **v) {
    (void)n, (void)o, (void)v;
    return cuModuleLoadData(m, image);
}
/* Tensor maps: the driver's checks of cuTensorMapEncodeTiled's arguments (a 64-byte
 * aligned map, rank 1 to 5, a 16-byte aligned address, sizes 1 to 2^32, strides multiples
 * of 16 below 2^40, boxes 1 to 256, element strides 1 to 8), then its own encoding: the
 * address in the first 8 bytes (what a recorded launch shows of the parameter), the sizes
 * and the strides after it. */
API CUresult cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *addr,
                                    const uint64_t *dims, const uint64_t *strides,
                                    const unsigned *box, const unsigned *elem_strides,
                                    int interleave, int swizzle, int l2, int oob) {
    (void)interleave, (void)l2, (void)oob;
    if (!map || (uintptr_t)map % 64 || rank < 1 || rank > 5 || (uintptr_t)addr % 16 || dtype < 0 ||
        dtype > 12 || swizzle < 0 || swizzle > 3)
        return INVALID_VALUE;
    for (unsigned i = 0; i < rank; i++) {
        if (dims[i] < 1 || dims[i] > (UINT64_C(1) << 32) || box[i] < 1 || box[i] > 256 ||
            elem_strides[i] < 1 || elem_strides[i] > 8)
            return INVALID_VALUE;
        if (i + 1 < rank && (strides[i] % 16 || strides[i] >= (UINT64_C(1) << 40)))
            return INVALID_VALUE;
    }
    unsigned char *m = map;
    memset(m, 0, 128);
    uint64_t a = (uint64_t)(uintptr_t)addr;
    memcpy(m, &a, 8);
    memcpy(m + 8, dims, 8 * rank);
    if (rank > 1) memcpy(m + 48, strides, 8 * (rank - 1));
    return OK;
}

API CUresult cuModuleUnload(Module *m) {
    CUresult r = ctx_state();
    if (!r && m && m->dev != cur) return INVALID_HANDLE; /* kept: it belongs to another context */
    if (m) {
        free(m->text);
        for (Function *f = m->fns, *next; f; f = next) next = f->next, free(f);
    }
    free(m);
    return r;
}
API CUresult cuModuleGetFunction(Function **f, Module *m, const char *name) {
    CUresult r = ctx_state();
    if (r) return r;
    if (m->dev != cur) return INVALID_HANDLE;
    char entry[160];
    snprintf(entry, sizeof entry, ".entry %s(", name);
    const char *at = strstr(m->text, entry);
    if (!at) return NOT_FOUND;
    Function *fn = calloc(1, sizeof *fn); /* freed with its module (cuModuleUnload) */
    if (!fn) return INVALID_VALUE;
    pthread_mutex_lock(&mu);
    fn->next = m->fns;
    m->fns = fn;
    pthread_mutex_unlock(&mu);
    snprintf(fn->name, sizeof fn->name, "%s", name);
    pthread_mutex_lock(&mu);
    fn->serial = ++functions;
    pthread_mutex_unlock(&mu);
    fn->dev = cur;
    fn->kind = !strcmp(name, "good")           ? K_GOOD
               : !strcmp(name, "assert_small") ? K_ASSERT_SMALL
               : !strcmp(name, "oob_store")    ? K_OOB_STORE
               : !strcmp(name, "trap_kernel")  ? K_TRAP
               : !strncmp(name, "record_", 7)  ? K_RECORD
                                               : K_OTHER;
    if (fn->kind == K_RECORD) fn->nparams = param_sizes(at, fn->size);
    *f = fn;
    return OK;
}
API CUresult cuFuncSetAttribute(Function *f, int attr, int value) {
    (void)attr, (void)value;
    CUresult r = ctx_state();
    return r ? r : f->dev != cur ? INVALID_HANDLE : OK;
}

static CUresult launch(Function *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                       unsigned bz, unsigned shared, Stream *s, void **params, int cooperative) {
    CUresult r = ctx_state();
    if (r) return r;
    int d = cur;
    if (f->dev != d || stream_ok(s))
        return INVALID_HANDLE; /* a function or stream of another context */
    pthread_mutex_lock(&mu);
    dev_clock_us[d] += (double)gx * gy * gz;
    pthread_mutex_unlock(&mu);
    switch (f->kind) {
    case K_OTHER: break; /* runs nothing */
    case K_RECORD: {
        MockLaunch l = {.function = f->serial,
                        .grid = {gx, gy, gz},
                        .block = {bx, by, bz},
                        .shared = shared,
                        .stream = s,
                        .nparams = f->nparams,
                        .device = d,
                        .cooperative = cooperative};
        snprintf(l.kernel, sizeof l.kernel, "%s", f->name);
        /* little-endian; a parameter wider than 8 bytes (a tensor descriptor's struct) records its
         * first 8 */
        for (int i = 0; i < f->nparams; i++)
            memcpy(&l.params[i], params[i], f->size[i] < 8 ? f->size[i] : 8);
        pthread_mutex_lock(&mu);
        l.count = last_launch.count + 1;
        last_launch = l;
        stats[ST_LAUNCHES + d]++;
        pthread_mutex_unlock(&mu);
        break;
    }
    case K_GOOD: {
        float *x = (float *)(uintptr_t) * (uint64_t *)params[0];
        int32_t n = *(int32_t *)params[1];
        if (n > 0 && !reachable(d, (CUdeviceptr)(uintptr_t)x, sizeof(float) * (size_t)n)) {
            poison(d, ILLEGAL_ADDRESS); /* memory this device cannot reach */
            break;
        }
        int now = __atomic_add_fetch(&inflight, 1, __ATOMIC_ACQ_REL);
        pthread_mutex_lock(&mu);
        if (now > stats[ST_MAX_INFLIGHT]) stats[ST_MAX_INFLIGHT] = now;
        stats[ST_LAUNCHES + d]++;
        pthread_mutex_unlock(&mu);
        for (int32_t i = 0; i < n; i++) x[i] = 2 * x[i] + 1;
        if (n >= 4096) { /* a big launch takes a moment, so that threads' launches overlap */
            struct timespec t = {0, 200000};
            nanosleep(&t, NULL);
        }
        __atomic_sub_fetch(&inflight, 1, __ATOMIC_ACQ_REL);
        break;
    }
    case K_ASSERT_SMALL: {
        int32_t *x = (int32_t *)(uintptr_t) * (uint64_t *)params[0];
        int32_t n = *(int32_t *)params[1];
        bool bad = false;
        for (int32_t i = 0; i < n; i++) bad |= x[i] >= 10;
        if (bad) {
            printf("mock driver: assert_small: block: [6,0,0], thread: [9,0,0] Assertion `value "
                   "too large` failed.\n");
            poison(d, ASSERT);
        } else {
            for (int32_t i = 0; i < n; i++) x[i] += 1;
        }
        break;
    }
    case K_OOB_STORE: poison(d, ILLEGAL_ADDRESS); break;
    case K_TRAP: poison(d, LAUNCH_FAILED); break;
    }
    return OK; /* a fault shows at the next call, as on a GPU */
}

API CUresult cuLaunchKernel(Function *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                            unsigned by, unsigned bz, unsigned shared, Stream *s, void **params,
                            void **extra) {
    (void)extra;
    return launch(f, gx, gy, gz, bx, by, bz, shared, s, params, 0);
}

/* A cooperative launch: as the driver, refused when the grid exceeds what fits at once
 * (cuOccupancyMaxActiveBlocksPerMultiprocessor's count times the SMs). */
API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, Function *f, int threads,
                                                         size_t shared) {
    (void)shared;
    CUresult r = ctx_state();
    if (r) return r;
    if (f->dev != cur || threads < 1 || threads > 1024) return INVALID_HANDLE;
    *blocks = 2048 / threads < 32 ? 2048 / threads : 32; /* 2048 threads per SM */
    return OK;
}
API CUresult cuLaunchCooperativeKernel(Function *f, unsigned gx, unsigned gy, unsigned gz,
                                       unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                       Stream *s, void **params) {
    unsigned long long fit = (unsigned long long)MOCK_SMS * (2048 / (bx ? bx : 1));
    if ((unsigned long long)gx * gy * gz > fit) return COOPERATIVE_LAUNCH_TOO_LARGE;
    return launch(f, gx, gy, gz, bx, by, bz, shared, s, params, 1);
}
