/* cuda_mock.c - a stand-in for the CUDA driver (libcuda.so.1), so that the runtime's
 * handling of kernel faults (runtime/cuda.c, runtime/api_cuda.c) is tested on machines
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
 * Two more things for the launch path's tests and benchmarks: cuModuleLoadData takes PTX
 * text, as the real driver does (JIT-compiling it; here, keeping the text), and each
 * launch of a kernel whose name starts with "record_" is recorded (grid, block, dynamic
 * shared memory, stream, and the arguments' values, their sizes read from the .entry's
 * .param list) for cuMockLastLaunch below, which python/tests/test_mock.py reads through
 * ctypes to check what a launch from Python passed. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

enum {
    OK = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, INVALID_CONTEXT = 201, INVALID_IMAGE = 200, NOT_FOUND = 500,
    NOT_READY = 600, ILLEGAL_ADDRESS = 700, ASSERT = 710, LAUNCH_FAILED = 719,
};

#define API __attribute__((visibility("default")))

/* the driver's state: one device, its primary context */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    /* refs and sticky are written under mu with atomic stores, and read with atomic loads */
    int refs;        /* retains of the primary context */
    CUresult sticky; /* a fault: every call on the context returns it (and every retain, unless it recovers) */
    void **allocs;   /* device memory of the context */
    int nallocs, capallocs;
} dev;
static char ctx_token; /* the primary context's handle */

/* every call on the context: the sticky error, or OK */
static CUresult ctx_state(void) {
    if (__atomic_load_n(&dev.refs, __ATOMIC_ACQUIRE) == 0) return INVALID_CONTEXT;
    return __atomic_load_n(&dev.sticky, __ATOMIC_ACQUIRE);
}

static void poison(CUresult r) {
    pthread_mutex_lock(&mu);
    if (!dev.sticky) __atomic_store_n(&dev.sticky, r, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&mu);
}

API CUresult cuInit(unsigned flags) { return flags ? INVALID_VALUE : OK; }
API CUresult cuDriverGetVersion(int *v) { return *v = 13000, OK; }

static const char *name_of(CUresult r) {
    switch (r) {
    case OK: return "CUDA_SUCCESS";
    case INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
    case INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
    case INVALID_IMAGE: return "CUDA_ERROR_INVALID_IMAGE";
    case NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
    case NOT_READY: return "CUDA_ERROR_NOT_READY";
    case ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case ASSERT: return "CUDA_ERROR_ASSERT";
    case LAUNCH_FAILED: return "CUDA_ERROR_LAUNCH_FAILED";
    }
    return NULL;
}
API CUresult cuGetErrorName(CUresult r, const char **s) { return (*s = name_of(r)) ? OK : INVALID_VALUE; }
API CUresult cuGetErrorString(CUresult r, const char **s) {
    switch (r) {
    case ILLEGAL_ADDRESS: *s = "an illegal memory access was encountered"; return OK;
    case ASSERT: *s = "device-side assert triggered"; return OK;
    case LAUNCH_FAILED: *s = "unspecified launch failure"; return OK;
    }
    return (*s = name_of(r)) ? OK : INVALID_VALUE;
}

API CUresult cuDeviceGetCount(int *n) { return *n = 1, OK; }
API CUresult cuDeviceGet(CUdevice *d, int i) { return i == 0 ? (*d = 0, OK) : INVALID_VALUE; }
API CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    (void)d;
    snprintf(name, (size_t)len, "Mock GPU (tests/mock/cuda_mock.c)");
    return OK;
}
API CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
    (void)d;
    *v = attr == 75 ? 9 : attr == 76 ? 0 : attr == 97 ? 232448 : 0; /* cc 9.0, 227 KB opt-in */
    return OK;
}

/* CUDA_MOCK_RECOVER=1: the primary context recovers once every user has released it */
static bool recovers(void) {
    const char *v = getenv("CUDA_MOCK_RECOVER");
    return v && *v && strcmp(v, "0");
}

API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
    (void)d;
    pthread_mutex_lock(&mu);
    CUresult r = dev.sticky && !recovers() ? dev.sticky : OK; /* the device is lost to the process */
    if (!r) __atomic_store_n(&dev.refs, dev.refs + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&mu);
    if (!r) *c = (CUcontext)&ctx_token;
    return r;
}
API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
    (void)d;
    pthread_mutex_lock(&mu);
    CUresult r = dev.refs > 0 ? OK : INVALID_CONTEXT;
    if (dev.refs > 0) __atomic_store_n(&dev.refs, dev.refs - 1, __ATOMIC_RELEASE);
    if (r == OK && dev.refs == 0) { /* destroyed, with everything in it */
        for (int i = 0; i < dev.nallocs; i++) free(dev.allocs[i]);
        free(dev.allocs);
        dev.allocs = NULL, dev.nallocs = dev.capallocs = 0;
        if (recovers()) __atomic_store_n(&dev.sticky, OK, __ATOMIC_RELEASE); /* else the fault stays */
    }
    pthread_mutex_unlock(&mu);
    return r;
}
API CUresult cuCtxSetCurrent(CUcontext c) { return c == (CUcontext)&ctx_token || !c ? OK : INVALID_CONTEXT; }
API CUresult cuCtxSynchronize(void) { return ctx_state(); }

API CUresult cuStreamCreate(CUstream *s, unsigned flags) {
    (void)flags;
    CUresult r = ctx_state();
    if (r) return r;
    *s = malloc(1);
    return *s ? OK : INVALID_VALUE;
}
API CUresult cuStreamDestroy_v2(CUstream s) {
    free(s); /* released whatever the state, as the driver does */
    return ctx_state();
}
API CUresult cuStreamSynchronize(CUstream s) { return (void)s, ctx_state(); }
API CUresult cuStreamQuery(CUstream s) { return (void)s, ctx_state(); }

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    CUresult r = ctx_state();
    if (r) return r;
    void *m = calloc(1, n);
    if (!m) return INVALID_VALUE;
    pthread_mutex_lock(&mu);
    if (dev.nallocs == dev.capallocs) {
        dev.capallocs = dev.capallocs ? 2 * dev.capallocs : 16;
        dev.allocs = realloc(dev.allocs, sizeof *dev.allocs * (size_t)dev.capallocs);
    }
    dev.allocs[dev.nallocs++] = m;
    pthread_mutex_unlock(&mu);
    *p = (CUdeviceptr)(uintptr_t)m;
    return OK;
}
API CUresult cuMemFree_v2(CUdeviceptr p) {
    CUresult r = ctx_state();
    if (r) return r;
    pthread_mutex_lock(&mu);
    r = INVALID_VALUE;
    for (int i = 0; i < dev.nallocs; i++)
        if (dev.allocs[i] == (void *)(uintptr_t)p) {
            free(dev.allocs[i]);
            dev.allocs[i] = dev.allocs[--dev.nallocs];
            r = OK;
            break;
        }
    pthread_mutex_unlock(&mu);
    return r;
}
API CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) {
    CUresult r = ctx_state();
    if (!r) memcpy((void *)(uintptr_t)d, s, n);
    return r;
}
API CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) {
    CUresult r = ctx_state();
    if (!r) memcpy(d, (const void *)(uintptr_t)s, n);
    return r;
}
API CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char b, size_t n) {
    CUresult r = ctx_state();
    if (!r) memset((void *)(uintptr_t)d, b, n);
    return r;
}

/* "JIT": the cubin is a marker and the PTX text; a module keeps the text and finds its
 * entries by name */
#define CUBIN_MARK "\177ELF-mock-cubin\n"
typedef struct Link {
    char *ptx;
} Link;
API CUresult cuLinkCreate_v2(unsigned n, int *o, void **v, Link **l) {
    (void)n, (void)o, (void)v;
    CUresult r = ctx_state();
    if (r) return r;
    *l = calloc(1, sizeof **l);
    return *l ? OK : INVALID_VALUE;
}
API CUresult cuLinkAddData_v2(Link *l, int type, void *data, size_t size, const char *name, unsigned n, int *o,
                              void **v) {
    (void)type, (void)size, (void)name, (void)n, (void)o, (void)v;
    free(l->ptx);
    l->ptx = malloc(strlen(CUBIN_MARK) + strlen(data) + 1);
    if (!l->ptx) return INVALID_VALUE;
    strcpy(l->ptx, CUBIN_MARK);
    strcat(l->ptx, data);
    return OK;
}
API CUresult cuLinkComplete(Link *l, void **cubin, size_t *size) {
    if (!l->ptx) return INVALID_VALUE;
    *cubin = l->ptx, *size = strlen(l->ptx) + 1;
    return OK;
}
API CUresult cuLinkDestroy(Link *l) {
    if (l) free(l->ptx);
    free(l);
    return OK;
}

typedef struct Module {
    char *text;
} Module;
enum { K_OTHER, K_GOOD, K_ASSERT_SMALL, K_OOB_STORE, K_TRAP, K_RECORD, MAX_PARAMS = 32 };
typedef struct Function {
    char name[128];
    unsigned long long serial;    /* which lookup made it (1, 2, ...): tells compiled variants apart */
    int kind;                     /* K_*: what a launch does, decided once by name */
    int nparams;                  /* K_RECORD: the .entry's parameters and their sizes */
    unsigned char size[MAX_PARAMS];
} Function;

/* What the last launch of a "record_" kernel passed (cuMockLastLaunch). */
typedef struct MockLaunch {
    char kernel[128];
    unsigned long long function; /* the function's serial (Function.serial) */
    unsigned grid[3], block[3], shared;
    void *stream;
    int nparams;
    unsigned long long params[MAX_PARAMS]; /* each argument's bytes, zero-extended */
    long long count;                       /* launches recorded so far */
} MockLaunch;
static MockLaunch last_launch;       /* under mu */
static unsigned long long functions; /* cuModuleGetFunction's so far, under mu */

API CUresult cuMockLastLaunch(MockLaunch *out) {
    pthread_mutex_lock(&mu);
    *out = last_launch;
    pthread_mutex_unlock(&mu);
    return OK;
}

/* PTX text, which the driver JIT-compiles: comments and directives, a .version among them */
static bool is_ptx(const char *image) { return (image[0] == '/' || image[0] == '.') && strstr(image, ".version "); }

/* The sizes of the parameters of `.entry NAME(.param .u64 a, .param .align 2 .b8 h[2])`
 * (at entry): a type's bits / 8 (a predicate's: 1), times an array's length. */
static int param_sizes(const char *entry, unsigned char *size) {
    const char *end = strchr(entry, ')');
    int n = 0;
    for (const char *p = strstr(entry, ".param "); p && (!end || p < end) && n < MAX_PARAMS; p = strstr(p + 1, ".param ")) {
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
        size[n++] = (unsigned char)bytes;
    }
    return n;
}

API CUresult cuModuleLoadData(Module **m, const void *image) {
    CUresult r = ctx_state();
    if (r) return r;
    if (strncmp(image, CUBIN_MARK, strlen(CUBIN_MARK)) && !is_ptx(image)) return INVALID_IMAGE;
    *m = calloc(1, sizeof **m);
    if (!*m || !((*m)->text = strdup(image))) return free(*m), INVALID_VALUE;
    return OK;
}
API CUresult cuModuleUnload(Module *m) {
    CUresult r = ctx_state();
    if (m) free(m->text);
    free(m);
    return r;
}
API CUresult cuModuleGetFunction(Function **f, Module *m, const char *name) {
    CUresult r = ctx_state();
    if (r) return r;
    char entry[160];
    snprintf(entry, sizeof entry, ".entry %s(", name);
    const char *at = strstr(m->text, entry);
    if (!at) return NOT_FOUND;
    Function *fn = calloc(1, sizeof *fn); /* leaks one small struct per lookup, like nothing a test sees */
    if (!fn) return INVALID_VALUE;
    snprintf(fn->name, sizeof fn->name, "%s", name);
    pthread_mutex_lock(&mu);
    fn->serial = ++functions;
    pthread_mutex_unlock(&mu);
    fn->kind = !strcmp(name, "good")               ? K_GOOD
               : !strcmp(name, "assert_small")     ? K_ASSERT_SMALL
               : !strcmp(name, "oob_store")        ? K_OOB_STORE
               : !strcmp(name, "trap_kernel")      ? K_TRAP
               : !strncmp(name, "record_", 7)      ? K_RECORD
                                                   : K_OTHER;
    if (fn->kind == K_RECORD) fn->nparams = param_sizes(at, fn->size);
    *f = fn;
    return OK;
}
API CUresult cuFuncSetAttribute(Function *f, int attr, int value) { return (void)f, (void)attr, (void)value, ctx_state(); }

API CUresult cuLaunchKernel(Function *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, CUstream s, void **params, void **extra) {
    (void)extra;
    CUresult r = ctx_state();
    if (r) return r;
    switch (f->kind) {
    case K_OTHER: break; /* runs nothing */
    case K_RECORD: {
        MockLaunch l = {.function = f->serial, .grid = {gx, gy, gz}, .block = {bx, by, bz}, .shared = shared,
                        .stream = s, .nparams = f->nparams};
        snprintf(l.kernel, sizeof l.kernel, "%s", f->name);
        for (int i = 0; i < f->nparams; i++) memcpy(&l.params[i], params[i], f->size[i]); /* little-endian */
        pthread_mutex_lock(&mu);
        l.count = last_launch.count + 1;
        last_launch = l;
        pthread_mutex_unlock(&mu);
        break;
    }
    case K_GOOD: {
        float *x = (float *)(uintptr_t) * (uint64_t *)params[0];
        int32_t n = *(int32_t *)params[1];
        for (int32_t i = 0; i < n; i++) x[i] = 2 * x[i] + 1;
        break;
    }
    case K_ASSERT_SMALL: {
        int32_t *x = (int32_t *)(uintptr_t) * (uint64_t *)params[0];
        int32_t n = *(int32_t *)params[1];
        bool bad = false;
        for (int32_t i = 0; i < n; i++) bad |= x[i] >= 10;
        if (bad) {
            printf("mock driver: assert_small: block: [6,0,0], thread: [9,0,0] Assertion `value too large` failed.\n");
            poison(ASSERT);
        } else {
            for (int32_t i = 0; i < n; i++) x[i] += 1;
        }
        break;
    }
    case K_OOB_STORE: poison(ILLEGAL_ADDRESS); break;
    case K_TRAP: poison(LAUNCH_FAILED); break;
    }
    return OK; /* a fault shows at the next call, as on a GPU */
}
