/* test_gpu_multi.c - several GPUs in one process and across processes, through the C API.
 *
 * Kernels: the examples' vector_add, softmax and matmul (fp16, tensor cores) and a small
 * kernel `good` (x = 2x + 1, two variants), each checked against the CPU interpreter (the
 * reference semantics) on identical inputs. Parts, each a row of the table printed last:
 *   threads     one thread per visible device (two threads on device 0 when there is one),
 *               all started at once with an empty disk cache, each with a CUDA context of
 *               its own, running every kernel for several rounds (in an order of its own,
 *               so that different kernels compile at the same time); while it does, each
 *               thread holds another device's primary context current, as PyTorch would,
 *               and checks that every Nereid call leaves it current. Every device's
 *               results must match the CPU's, and devices of one compute capability must
 *               agree bit for bit. The disk cache must have compiled each kernel variant
 *               once per compute capability: the contexts together compiled exactly that
 *               many and loaded the rest from the cache.
 *   processes   the same with one process per device (two on device 0 when there is one),
 *               this program run again (fork and exec, --child DEVICE), with a fresh cache.
 *   one thread  one thread driving every device in turn: launches queued on all of them
 *               before any is waited for.
 *   copies      nr_memcpy_peer and nr_memcpy_peer_async between every ordered pair of
 *               devices (peer access where the driver allows it, else staged through host
 *               memory; NEREID_PEER_ACCESS=0 forces staging), within one device (two
 *               contexts), and between the CPU device and each GPU: sizes of 1 byte to more
 *               than one staging chunk, at offsets; the copy then feeds `good` on the
 *               destination device. --expect-path peer|staged (or NEREID_TEST_EXPECT_PATH)
 *               insists on the path between distinct devices.
 * With one visible device the parts that need two (peer copies, several devices at once)
 * are skipped, and the program says so; without a CUDA device it prints "SKIP: no CUDA
 * device (...)" and exits 0 (NEREID_REQUIRE_GPU=1: fails instead).
 *
 * Against the stand-in driver (tests/mock/cuda_mock.c: CUDA_MOCK_DEVICES=N devices) only
 * `good` runs (the mock runs no other kernel), its two variants compiled (by LLVM, for
 * real) at once in two threads; its counters (cuMockStats) then also show which copy path
 * ran. tools/run-tests.sh runs it so with 1 and 2 devices, with and
 * without peer access, and with devices of two compute capabilities. Ends with
 * "test_gpu_multi: N passed, M failed". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NOLOAD */
#endif
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_test.h" /* its fp16 conversions, its generator, and the AddressSanitizer
                         options the CUDA driver needs */
#include "nereid.h"
#include "tests/unit/check.h"

enum { MAX_DEV = 16, MAX_BUF = 4, MAX_ARG = 16, MAX_DEF = 6, NWORK = 5, ROUNDS = 3 };

/* ---- the kernels and their inputs ---- */

static const char GOOD_SRC[] = "@triton.jit\n"
                               "def good(x: *fp32, n: i32, BLOCK: tl.constexpr):\n"
                               "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                               "    m = o < n\n"
                               "    tl.store(x + o, tl.load(x + o, mask=m) * 2 + 1, mask=m)\n";

/* One kernel launch and its buffers: every buffer is uploaded from init before each
 * launch; the outputs are read back and compared. */
typedef struct Work {
    const char *name, *file, *src, *kernel; /* file under examples/, or source text */
    const char *defname[MAX_DEF], *defval[MAX_DEF];
    int ndefs;
    int nbufs;
    size_t bytes[MAX_BUF];
    void *init[MAX_BUF];
    bool out[MAX_BUF];
    bool half[MAX_BUF]; /* an fp16 output (else fp32) */
    int nargs;
    int argbuf[MAX_ARG]; /* >= 0: that buffer's address; -1: argval */
    nr_arg argval[MAX_ARG];
    unsigned grid[3];
    double atol, rtol; /* against the CPU: |gpu - cpu| <= atol + rtol * |cpu| */
} Work;

static Work works[NWORK];   /* made once by make_works, read-only after */
static int nworks;          /* those that run: only `good` (two variants) on the stand-in driver */
static int one_thread_work; /* the kernel the one-thread part queues on every device */
static char root[2048] = ".";

/* test data from gpu_test.h's generator, fp16 through its conversions */
static float rng_float(GtRng *r, float lo, float hi) { return (float)gt_uniform(r, lo, hi); }

static void *xcalloc(size_t n) {
    void *p = calloc(1, n ? n : 1);
    if (!p) abort();
    return p;
}

static int add_buf(Work *w, size_t bytes, void *init, bool out, bool half) {
    int b = w->nbufs++;
    w->bytes[b] = bytes, w->init[b] = init ? init : xcalloc(bytes), w->out[b] = out,
    w->half[b] = half;
    return b;
}
static void arg_buf(Work *w, int b) { w->argbuf[w->nargs++] = b; }
static void arg_val(Work *w, nr_arg a) { w->argbuf[w->nargs] = -1, w->argval[w->nargs++] = a; }
static void def(Work *w, const char *name, const char *value) {
    w->defname[w->ndefs] = name, w->defval[w->ndefs++] = value;
}

static void make_works(bool mock) {
    GtRng seed = {1234};
    for (int i = 0; i < 2;
         i++) { /* good: x = 2x + 1, in place; two variants (BLOCK), compiled apart */
        Work *w = &works[i];
        *w = (Work){.name = i ? "good BLOCK=128" : "good",
                    .src = GOOD_SRC,
                    .kernel = "good",
                    .grid = {i ? 40 : 20, 1, 1}};
        def(w, "BLOCK", i ? "128" : "256");
        float *x = xcalloc(sizeof(float) * 5000);
        for (int j = 0; j < 5000; j++) x[j] = (float)(j % 251) - 100.0f;
        arg_buf(w, add_buf(w, sizeof(float) * 5000, x, true, false));
        arg_val(w, nr_arg_i32(5000));
    }
    nworks = 2;
    one_thread_work = 0;
    if (mock) return;

    Work *w = &works[2]; /* examples/vector_add.nr: z = x + y, exact */
    *w = (Work){
        .name = "vector_add", .file = "vector_add.nr", .kernel = "add_kernel", .grid = {97, 1, 1}};
    def(w, "BLOCK_SIZE", "1024");
    enum { N = 98432 + 7 };
    float *a = xcalloc(sizeof(float) * N), *b = xcalloc(sizeof(float) * N);
    for (int i = 0; i < N; i++)
        a[i] = rng_float(&seed, -100, 100), b[i] = rng_float(&seed, -100, 100);
    arg_buf(w, add_buf(w, sizeof(float) * N, a, false, false));
    arg_buf(w, add_buf(w, sizeof(float) * N, b, false, false));
    arg_buf(w, add_buf(w, sizeof(float) * N, NULL, true, false));
    arg_val(w, nr_arg_i32(N));

    w = &works[3]; /* examples/softmax.nr: rows of 781 in blocks of 1024, 32 programs striding over
                      100 rows */
    *w = (Work){.name = "softmax",
                .file = "softmax.nr",
                .kernel = "softmax_kernel",
                .grid = {32, 1, 1},
                .atol = 1e-6,
                .rtol = 1e-5};
    def(w, "BLOCK_SIZE", "1024");
    def(w, "num_stages", "1");
    enum { ROWS = 100, COLS = 781, STRIDE = 800 };
    float *in = xcalloc(sizeof(float) * ROWS * STRIDE);
    for (int i = 0; i < ROWS * STRIDE; i++)
        in[i] = i % STRIDE < COLS ? rng_float(&seed, -5, 5) : 1e30f;
    int out = add_buf(w, sizeof(float) * ROWS * COLS, NULL, true, false);
    arg_buf(w, out);
    arg_buf(w, add_buf(w, sizeof(float) * ROWS * STRIDE, in, false, false));
    arg_val(w, nr_arg_i32(STRIDE));
    arg_val(w, nr_arg_i32(COLS));
    arg_val(w, nr_arg_i32(ROWS));
    arg_val(w, nr_arg_i32(COLS));

    w = &works[4]; /* examples/matmul.nr: fp16 128x96x64, leaky_relu, tensor cores on the GPU */
    *w = (Work){.name = "matmul",
                .file = "matmul.nr",
                .kernel = "matmul_kernel",
                .grid = {2 * 3, 1, 1},
                .atol = 1e-2,
                .rtol = 1e-2};
    def(w, "BLOCK_SIZE_M", "64");
    def(w, "BLOCK_SIZE_N", "32");
    def(w, "BLOCK_SIZE_K", "32");
    def(w, "GROUP_SIZE_M", "8");
    def(w, "ACTIVATION", "leaky_relu");
    enum { M = 128, NN = 96, K = 64 };
    uint16_t *ma = xcalloc(2 * M * K), *mb = xcalloc(2 * K * NN);
    for (int i = 0; i < M * K; i++) ma[i] = gt_f2h(rng_float(&seed, -1, 1));
    for (int i = 0; i < K * NN; i++) mb[i] = gt_f2h(rng_float(&seed, -1, 1));
    arg_buf(w, add_buf(w, 2 * M * K, ma, false, true));
    arg_buf(w, add_buf(w, 2 * K * NN, mb, false, true));
    arg_buf(w, add_buf(w, 2 * M * NN, NULL, true, true));
    const int32_t sizes[] = {M, NN, K, K, 1, NN, 1, NN, 1};
    for (int i = 0; i < 9; i++) arg_val(w, nr_arg_i32(sizes[i]));
    nworks = NWORK;
    one_thread_work = 2;
}

static void free_works(void) {
    for (int i = 0; i < NWORK; i++)
        for (int b = 0; b < works[i].nbufs; b++) free(works[i].init[b]);
}

/* ---- running a kernel on a context ---- */

/* A kernel compiled on one context, with its buffers there. */
typedef struct Loaded {
    nr_context *ctx;
    nr_module *mod;
    nr_kernel *k;
    nr_devptr d[MAX_BUF];
} Loaded;

static bool say(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool say(char *why, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return false;
}

static bool load(const Work *w, nr_context *ctx, Loaded *l, char *why, size_t n) {
    memset(l, 0, sizeof *l);
    l->ctx = ctx;
    nr_define defs[MAX_DEF];
    for (int i = 0; i < w->ndefs; i++) defs[i] = (nr_define){w->defname[i], w->defval[i]};
    nr_compile_options o = {.defines = defs, .num_defines = w->ndefs};
    char path[4200];
    snprintf(path, sizeof path, "%s/examples/%s", root, w->file ? w->file : "");
    nr_status s = w->file ? nr_compile_file(ctx, path, &o, &l->mod)
                          : nr_compile_source(ctx, w->src, strlen(w->src), "multi.nr", &o, &l->mod);
    if (!s) s = nr_module_get_kernel(l->mod, w->kernel, &l->k);
    for (int b = 0; b < w->nbufs && !s; b++) s = nr_malloc(ctx, w->bytes[b], &l->d[b]);
    if (s)
        return say(why, n, "%s: compiling or allocating: %s: %s", w->name, nr_status_string(s),
                   nr_last_error(ctx));
    return true;
}

/* Upload, launch (on stream), wait, read the outputs back into res[b] (malloc'd). */
static bool run(const Work *w, Loaded *l, void *stream, void **res, char *why, size_t n) {
    nr_context *ctx = l->ctx;
    nr_status s = NR_OK;
    for (int b = 0; b < w->nbufs && !s; b++)
        s = nr_memcpy_htod(ctx, l->d[b], w->init[b], w->bytes[b]);
    nr_arg args[MAX_ARG];
    for (int i = 0; i < w->nargs; i++)
        args[i] = w->argbuf[i] >= 0 ? nr_arg_ptr(l->d[w->argbuf[i]]) : w->argval[i];
    nr_launch_options lo = {.stream = stream};
    if (!s) s = nr_launch(l->k, w->grid, args, w->nargs, &lo);
    if (!s) s = stream ? nr_stream_synchronize(ctx, stream) : nr_synchronize(ctx);
    for (int b = 0; b < w->nbufs && !s; b++) {
        if (!w->out[b]) continue;
        res[b] = xcalloc(w->bytes[b]);
        s = nr_memcpy_dtoh(ctx, res[b], l->d[b], w->bytes[b]);
    }
    if (s) return say(why, n, "%s: %s: %s", w->name, nr_status_string(s), nr_last_error(ctx));
    return true;
}

static void unload(const Work *w, Loaded *l) {
    for (int b = 0; b < w->nbufs; b++)
        if (l->d[b]) nr_free(l->ctx, l->d[b]);
    nr_module_destroy(l->mod);
    memset(l, 0, sizeof *l);
}

static void free_res(const Work *w, void **res) {
    for (int b = 0; b < w->nbufs; b++) free(res[b]), res[b] = NULL;
}

/* got against want (the CPU's), within the kernel's tolerance; bitwise: bit for bit. */
static bool compare(const Work *w, void *const *got, void *const *want, bool bitwise, char *why,
                    size_t n) {
    for (int b = 0; b < w->nbufs; b++) {
        if (!w->out[b]) continue;
        if (bitwise) {
            if (memcmp(got[b], want[b], w->bytes[b]))
                return say(why, n, "%s: output %d differs bit for bit from another device's",
                           w->name, b);
            continue;
        }
        size_t count = w->bytes[b] / (w->half[b] ? 2 : 4);
        for (size_t i = 0; i < count; i++) {
            double g, c;
            if (w->half[b])
                g = gt_h2f(((uint16_t *)got[b])[i]), c = gt_h2f(((uint16_t *)want[b])[i]);
            else g = ((float *)got[b])[i], c = ((float *)want[b])[i];
            if (!(fabs(g - c) <= w->atol + w->rtol * fabs(c)))
                return say(why, n, "%s: output %d element %zu: got %.9g, the CPU %.9g", w->name, b,
                           i, g, c);
        }
    }
    return true;
}

static void *ref[NWORK][MAX_BUF]; /* the CPU's outputs, made once before any thread starts */

static bool cpu_reference(char *why, size_t n) {
    nr_context *cpu;
    if (nr_context_create(NR_DEVICE_CPU, 0, &cpu)) return say(why, n, "no CPU context");
    bool ok = true;
    for (int i = 0; i < nworks && ok; i++) {
        Loaded l;
        ok = load(&works[i], cpu, &l, why, n) && run(&works[i], &l, NULL, ref[i], why, n);
        unload(&works[i], &l);
    }
    nr_context_destroy(cpu);
    return ok;
}

/* ---- the driver, for what the test checks around Nereid's calls ---- */

typedef struct Driver {
    int (*DeviceGet)(int *, int);
    int (*PrimaryCtxRetain)(void **, int);
    int (*PrimaryCtxRelease)(int);
    int (*CtxGetCurrent)(void **);
    int (*CtxSetCurrent)(void *);
    int (*MockStats)(long long *, int,
                     int); /* the stand-in driver's counters; NULL on a real one */
} Driver;
static Driver drv;

/* the stand-in driver's counters (tests/mock/cuda_mock.c, ST_*) */
enum {
    MS_PEER_COPIES,
    MS_PEER_DIRECT,
    MS_DTOD,
    MS_HTOD,
    MS_DTOH,
    MS_PEER_ENABLED,
    MS_MAX_INFLIGHT,
    MS_LAUNCHES,
    MS_COUNT = MS_LAUNCHES + 8
};

static bool find_driver(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD); /* the one Nereid loaded */
    if (!lib) return false;
    void *p[6] = {dlsym(lib, "cuDeviceGet"),
                  dlsym(lib, "cuDevicePrimaryCtxRetain"),
                  dlsym(lib, "cuDevicePrimaryCtxRelease_v2"),
                  dlsym(lib, "cuCtxGetCurrent"),
                  dlsym(lib, "cuCtxSetCurrent"),
                  dlsym(lib, "cuMockStats")};
    memcpy(&drv.DeviceGet, &p[0], sizeof p[0]);
    memcpy(&drv.PrimaryCtxRetain, &p[1], sizeof p[1]);
    memcpy(&drv.PrimaryCtxRelease, &p[2], sizeof p[2]);
    memcpy(&drv.CtxGetCurrent, &p[3], sizeof p[3]);
    memcpy(&drv.CtxSetCurrent, &p[4], sizeof p[4]);
    memcpy(&drv.MockStats, &p[5], sizeof p[5]);
    return p[0] && p[1] && p[2] && p[3] && p[4];
}

static void *current_ctx(void) {
    void *c = NULL;
    if (drv.CtxGetCurrent) drv.CtxGetCurrent(&c);
    return c;
}

static void mock_stats(long long *out) {
    memset(out, 0, sizeof(long long) * MS_COUNT);
    if (drv.MockStats) drv.MockStats(out, MS_COUNT, 0);
}

/* ---- the work of one device: what a thread or a child process runs ---- */

typedef struct Job {
    int device; /* its CUDA device */
    int order;  /* the kernels start at this one (so that threads compile different ones at once) */
    int foreign; /* >= 0: hold this device's primary context current meanwhile (as PyTorch would) */
    pthread_barrier_t *start;
    /* results */
    CheckState st;
    char why[1024];
    nr_stats stats;
    char name[256]; /* the device's: devices of one name are of one kind (compute capability) */
    void *res[NWORK][MAX_BUF];
} Job;

static void job_check(Job *j, bool ok, const char *what) {
    if (ok) j->st.passed++;
    else {
        j->st.failed++;
        printf("device %d: %s: %s\n", j->device, what, j->why);
    }
}

static void run_job(Job *j) {
    void *mine = NULL;
    if (j->foreign >= 0 && drv.PrimaryCtxRetain) {
        int dev;
        if (drv.DeviceGet(&dev, j->foreign) == 0 && drv.PrimaryCtxRetain(&mine, dev) == 0)
            drv.CtxSetCurrent(mine);
        else mine = NULL;
    } else if (drv.CtxSetCurrent) {
        drv.CtxSetCurrent(NULL); /* a thread with no current context must stay without */
    }
    nr_context *ctx = NULL;
    char err[512] = "";
    if (j->start) pthread_barrier_wait(j->start);
    nr_status s = nr_context_create_ex(NR_DEVICE_CUDA, j->device, &ctx, err, sizeof err);
    snprintf(j->why, sizeof j->why, "%s", err);
    job_check(j, s == NR_OK, "creating its context");
    if (s) goto done;
    snprintf(j->name, sizeof j->name, "%s", nr_context_device_name(ctx));
    void *stream = NULL;
    snprintf(j->why, sizeof j->why, "%s", "");
    job_check(j, nr_stream_create(ctx, &stream) == NR_OK, "nr_stream_create");
    Loaded l[NWORK];
    memset(l, 0, sizeof l);
    for (int i = 0; i < nworks; i++) {
        int w = (i + j->order) % nworks;
        bool ok = load(&works[w], ctx, &l[w], j->why, sizeof j->why);
        job_check(j, ok, "compiling");
        snprintf(j->why, sizeof j->why, "current context %p, expected %p", current_ctx(), mine);
        job_check(j, current_ctx() == mine, "the caller's current context after compiling");
    }
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < nworks; i++) {
            int w = (i + j->order) % nworks;
            if (!l[w].k) continue;
            void *got[MAX_BUF] = {0};
            bool ok = run(&works[w], &l[w], r % 2 ? stream : NULL, got, j->why, sizeof j->why) &&
                      compare(&works[w], got, ref[w], false, j->why, sizeof j->why);
            job_check(j, ok, "a kernel against the CPU");
            if (r == 0) memcpy(j->res[w], got, sizeof got); /* kept, to compare devices */
            else free_res(&works[w], got);
            snprintf(j->why, sizeof j->why, "current context %p, expected %p", current_ctx(), mine);
            job_check(j, current_ctx() == mine, "the caller's current context after launching");
        }
    nr_context_stats(ctx, &j->stats);
    for (int w = 0; w < nworks; w++) unload(&works[w], &l[w]);
    if (stream) nr_stream_destroy(ctx, stream);
    nr_context_destroy(ctx);
    snprintf(j->why, sizeof j->why, "current context %p, expected %p", current_ctx(), mine);
    job_check(j, current_ctx() == mine, "the caller's current context after nr_context_destroy");
done:
    if (mine) {
        drv.CtxSetCurrent(NULL);
        int dev;
        if (drv.DeviceGet(&dev, j->foreign) == 0) drv.PrimaryCtxRelease(dev);
    }
}

static void *thread_main(void *arg) {
    run_job(arg);
    return NULL;
}

static void free_job(Job *j) {
    for (int w = 0; w < nworks; w++) free_res(&works[w], j->res[w]);
}

/* ---- the table ---- */

typedef struct Row {
    char part[40], devices[24], result[12], detail[1200];
} Row;
static Row rows[16];
static int nrows;
static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

static void row(const char *part, int ndev, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void row(const char *part, int ndev, bool ok, const char *fmt, ...) {
    if (nrows == (int)(sizeof rows / sizeof rows[0])) return;
    Row *r = &rows[nrows++];
    snprintf(r->part, sizeof r->part, "%s", part);
    snprintf(r->devices, sizeof r->devices, "%d", ndev);
    snprintf(r->result, sizeof r->result, "%s", ok ? "ok" : "FAILED");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->detail, sizeof r->detail, fmt, ap);
    va_end(ap);
}

/* Devices of one kind (name) share cache entries: the kinds among jobs (job index of each
 * job's first job of its kind into first[]), and how many kinds. */
static int kinds(Job *jobs, int n, int *first) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        first[i] = i;
        for (int p = 0; p < i; p++)
            if (!strcmp(jobs[p].name, jobs[i].name)) {
                first[i] = p;
                break;
            }
        k += first[i] == i;
    }
    return k;
}

/* The cache's account: each kind of device compiled every variant once in all, the others
 * loaded it. variants: what one context loads (compiled + from the cache). */
static bool cache_once(Job *jobs, int n, char *detail, size_t size) {
    int first[MAX_DEV];
    int nk = kinds(jobs, n, first);
    unsigned long long compiled = 0, hits = 0,
                       variants = jobs[0].stats.gpu_compiles + jobs[0].stats.disk_cache_hits;
    bool same = true;
    for (int i = 0; i < n; i++) {
        compiled += jobs[i].stats.gpu_compiles, hits += jobs[i].stats.disk_cache_hits;
        same &= jobs[i].stats.gpu_compiles + jobs[i].stats.disk_cache_hits == variants;
    }
    bool ok = same && variants > 0 && compiled == variants * (unsigned)nk &&
              hits == variants * (unsigned)(n - nk);
    snprintf(detail, size,
             "%llu variants, %d kind%s of device: compiled %llu (want %llu), loaded %llu from the "
             "disk cache",
             variants, nk, nk == 1 ? "" : "s", compiled, variants * (unsigned)nk, hits);
    return ok;
}

/* Devices of one kind give the same bits. */
static bool devices_agree(Job *jobs, int n, char *why, size_t size) {
    int first[MAX_DEV];
    kinds(jobs, n, first);
    for (int i = 0; i < n; i++)
        for (int w = 0; w < nworks && first[i] != i; w++)
            if (jobs[i].res[w][0] || jobs[i].res[w][1] || jobs[i].res[w][2] || jobs[i].res[w][3])
                if (!compare(&works[w], jobs[i].res[w], jobs[first[i]].res[w], true, why, size))
                    return false;
    return true;
}

static char cache_dir[64];

static void fresh_cache(void) {
    if (*cache_dir) gt_remove_dir(cache_dir); /* the last one */
    snprintf(cache_dir, sizeof cache_dir, "/tmp/nereid-gpu-multi-XXXXXX");
    if (!mkdtemp(cache_dir)) {
        perror("mkdtemp");
        exit(1);
    }
    setenv("NEREID_CACHE_DIR", cache_dir, 1);
}

/* ---- the parts ---- */

static int njobs_for(int ndev) { return ndev >= 2 ? ndev : 2; }

static void part_threads(int ndev) {
    fresh_cache();
    int n = njobs_for(ndev);
    Job *jobs = calloc((size_t)n, sizeof *jobs);
    pthread_t th[MAX_DEV];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)n);
    long long before[MS_COUNT], after[MS_COUNT];
    mock_stats(before);
    for (int i = 0; i < n; i++) {
        jobs[i] = (Job){.device = i % ndev,
                        .order = i,
                        .foreign = ndev >= 2 ? (i + 1) % ndev : -1,
                        .start = &start};
        if (pthread_create(&th[i], NULL, thread_main, &jobs[i])) {
            printf("pthread_create failed\n");
            exit(1);
        }
    }
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    mock_stats(after);
    pthread_barrier_destroy(&start);
    int passed = 0, failed = 0;
    for (int i = 0; i < n; i++) passed += jobs[i].st.passed, failed += jobs[i].st.failed;
    st.passed += passed, st.failed += failed;
    char detail[300], why[512] = "";
    bool once = cache_once(jobs, n, detail, sizeof detail);
    bool agree = devices_agree(jobs, n, why, sizeof why);
    CHECK(once, "threads: the disk cache compiled a variant more than once per kind of device: %s",
          detail);
    CHECK(agree, "threads: %s", why);
    row("threads (one per device)", ndev, !failed && once && agree,
        "%d threads, %d kernels x %d rounds each, %d checks: %s", n, nworks, ROUNDS,
        passed + failed, detail);
    if (drv.MockStats)
        printf("threads: the stand-in driver saw at most %lld launches of `good` running at once\n",
               after[MS_MAX_INFLIGHT] - before[MS_MAX_INFLIGHT] > 0 ? after[MS_MAX_INFLIGHT]
                                                                    : before[MS_MAX_INFLIGHT]);
    for (int i = 0; i < n; i++) free_job(&jobs[i]);
    free(jobs);
}

static int child_main(int device) {
    Job j = {.device = device, .order = device, .foreign = -1};
    run_job(&j);
    printf("child %d: stats %llu %llu %s\n", device, (unsigned long long)j.stats.gpu_compiles,
           (unsigned long long)j.stats.disk_cache_hits, j.name);
    printf("child %d: %d passed, %d failed\n", device, j.st.passed, j.st.failed);
    free_job(&j);
    return j.st.failed ? 1 : 0;
}

static void part_processes(int ndev, const char *self) {
    fresh_cache();
    int n = njobs_for(ndev);
    Job jobs[MAX_DEV];
    memset(jobs, 0, sizeof jobs);
    int pipes[MAX_DEV][2];
    pid_t pids[MAX_DEV];
    for (int p = 0; p < n; p++) {
        if (pipe(pipes[p])) {
            perror("pipe");
            exit(1);
        }
        fflush(stdout);
        pids[p] = fork();
        if (pids[p] == 0) { /* exec at once: the driver is not used in a forked copy */
            dup2(pipes[p][1], 1);
            close(pipes[p][0]);
            char dev[16];
            snprintf(dev, sizeof dev, "%d", p % ndev);
            execl(self, self, "--child", dev, (char *)NULL);
            _exit(127);
        }
        close(pipes[p][1]);
    }
    int failed = 0;
    for (int p = 0; p < n; p++) {
        char buf[16384];
        ssize_t got = 0, r;
        while (got < (ssize_t)sizeof buf - 1 &&
               (r = read(pipes[p][0], buf + got, sizeof buf - 1 - (size_t)got)) > 0)
            got += r;
        buf[got > 0 ? got : 0] = 0;
        close(pipes[p][0]);
        int status = 0;
        waitpid(pids[p], &status, 0);
        fputs(buf, stdout);
        jobs[p].device = p % ndev;
        const char *s = strstr(buf, ": stats ");
        unsigned long long c = 0, h = 0;
        char name[256] = "";
        if (s && sscanf(s, ": stats %llu %llu %255[^\n]", &c, &h, name) >= 2) {
            jobs[p].stats.gpu_compiles = c, jobs[p].stats.disk_cache_hits = h;
            snprintf(jobs[p].name, sizeof jobs[p].name, "%s", name);
        }
        bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        CHECK(ok, "process %d (device %d) failed (status %d)", p, p % ndev, status);
        failed += !ok;
    }
    char detail[300];
    bool once = cache_once(jobs, n, detail, sizeof detail);
    CHECK(once,
          "processes: the disk cache compiled a variant more than once per kind of device: %s",
          detail);
    row("processes (one per device)", ndev, !failed && once, "%d processes: %s", n, detail);
}

/* One thread, every device: a module per device, launches queued on all before any wait. */
static void part_one_thread(int ndev) {
    nr_context *ctx[MAX_DEV] = {0};
    Loaded l[MAX_DEV];
    memset(l, 0, sizeof l);
    char why[1024] = "";
    bool ok = true;
    const Work *w = &works[one_thread_work];
    for (int d = 0; d < ndev && ok; d++) {
        char err[512];
        ok = nr_context_create_ex(NR_DEVICE_CUDA, d, &ctx[d], err, sizeof err) == NR_OK ||
             !say(why, sizeof why, "%s", err);
        ok = ok && load(w, ctx[d], &l[d], why, sizeof why);
    }
    for (int r = 0; r < ROUNDS && ok; r++) {
        nr_arg args[MAX_ARG];
        for (int d = 0; d < ndev && ok; d++) { /* queued on every device */
            for (int b = 0; b < w->nbufs && ok; b++)
                ok = nr_memcpy_htod(ctx[d], l[d].d[b], w->init[b], w->bytes[b]) == NR_OK;
            for (int i = 0; i < w->nargs; i++)
                args[i] = w->argbuf[i] >= 0 ? nr_arg_ptr(l[d].d[w->argbuf[i]]) : w->argval[i];
            ok = ok && nr_launch(l[d].k, w->grid, args, w->nargs, NULL) == NR_OK;
            if (!ok) say(why, sizeof why, "device %d: %s", d, nr_last_error(ctx[d]));
        }
        for (int d = 0; d < ndev && ok; d++) { /* then waited for */
            void *got[MAX_BUF] = {0};
            ok = nr_synchronize(ctx[d]) == NR_OK ||
                 !say(why, sizeof why, "device %d: %s", d, nr_last_error(ctx[d]));
            for (int b = 0; b < w->nbufs && ok; b++)
                if (w->out[b]) {
                    got[b] = xcalloc(w->bytes[b]);
                    ok = nr_memcpy_dtoh(ctx[d], got[b], l[d].d[b], w->bytes[b]) == NR_OK;
                }
            ok = ok && compare(w, got, ref[w - works], false, why, sizeof why);
            free_res(w, got);
        }
    }
    for (int d = 0; d < ndev; d++) {
        if (l[d].mod) unload(w, &l[d]);
        nr_context_destroy(ctx[d]);
    }
    CHECK(ok, "one thread on every device: %s", why);
    row("one thread, every device", ndev, ok,
        "%s: %d rounds of launches on %d devices before any wait", w->name, ROUNDS, ndev);
}

static const char *path_name(nr_copy_path p) {
    return p == NR_COPY_HOST     ? "host"
           : p == NR_COPY_DEVICE ? "device"
           : p == NR_COPY_PEER   ? "peer"
                                 : "staged";
}

/* One copy of `bytes` bytes from memory of a to memory of b, both at offset `off` into
 * allocations of off + bytes, checked by reading the whole destination back (the bytes
 * before the offset must stay 0). */
static bool copy_once(nr_context *b, nr_context *a, size_t bytes, size_t off, bool async, char *why,
                      size_t n) {
    unsigned char *h = xcalloc(bytes + off), *back = xcalloc(bytes + off);
    for (size_t i = 0; i < bytes + off; i++) h[i] = (unsigned char)(i * 131 + bytes);
    nr_devptr src = 0, dst = 0;
    void *stream = NULL;
    nr_status s = nr_malloc(a, bytes + off, &src);
    if (!s) s = nr_malloc(b, bytes + off, &dst);
    if (!s) s = nr_memcpy_htod(a, src, h, bytes + off);
    if (!s) s = nr_memset(b, dst, 0, bytes + off);
    if (!s && async) s = nr_stream_create(nr_context_device(b) == NR_DEVICE_CUDA ? b : a, &stream);
    bool ok = !s || say(why, n, "setting up: %s %s", nr_last_error(a), nr_last_error(b));
    if (ok) {
        s = async ? nr_memcpy_peer_async(b, dst + off, a, src + off, bytes, stream)
                  : nr_memcpy_peer(b, dst + off, a, src + off, bytes);
        if (!s && async)
            s = nr_stream_synchronize(nr_context_device(b) == NR_DEVICE_CUDA ? b : a, stream);
        if (!s) s = nr_memcpy_dtoh(b, back, dst, bytes + off);
        ok = !s || say(why, n, "%zu bytes at +%zu%s: %s: %s", bytes, off, async ? " (async)" : "",
                       nr_status_string(s), nr_last_error(b));
    }
    for (size_t i = 0; ok && i < bytes + off; i++)
        if (back[i] != (i < off ? 0 : h[i]))
            ok = say(why, n, "%zu bytes at +%zu%s: byte %zu is %d, want %d", bytes, off,
                     async ? " (async)" : "", i, back[i], i < off ? 0 : h[i]);
    if (stream) nr_stream_destroy(nr_context_device(b) == NR_DEVICE_CUDA ? b : a, stream);
    if (src) nr_free(a, src);
    if (dst) nr_free(b, dst);
    free(h), free(back);
    return ok;
}

/* good's input copied from a to b, then run there: the copy is b's memory, usable by b's
 * kernels. */
static bool copy_then_run(nr_context *b, nr_context *a, char *why, size_t n) {
    const Work *w = &works[0];
    Loaded l;
    if (!load(w, b, &l, why, n)) return false;
    nr_devptr src = 0;
    nr_status s = nr_malloc(a, w->bytes[0], &src);
    if (!s) s = nr_memcpy_htod(a, src, w->init[0], w->bytes[0]);
    if (!s) s = nr_memcpy_peer(b, l.d[0], a, src, w->bytes[0]);
    nr_arg args[MAX_ARG];
    for (int i = 0; i < w->nargs; i++)
        args[i] = w->argbuf[i] >= 0 ? nr_arg_ptr(l.d[w->argbuf[i]]) : w->argval[i];
    if (!s) s = nr_launch(l.k, w->grid, args, w->nargs, NULL);
    if (!s) s = nr_synchronize(b);
    void *got[MAX_BUF] = {0};
    got[0] = xcalloc(w->bytes[0]);
    if (!s) s = nr_memcpy_dtoh(b, got[0], l.d[0], w->bytes[0]);
    bool ok = s ? say(why, n, "%s: %s %s", nr_status_string(s), nr_last_error(a), nr_last_error(b))
                : compare(w, got, ref[0], false, why, n);
    free_res(w, got);
    if (src) nr_free(a, src);
    unload(w, &l);
    return ok;
}

/* Every ordered pair of devices, one device with itself (two contexts), and the CPU with
 * each device. expect: the path wanted between distinct devices (NULL: either). */
static void part_copies(int ndev, const char *expect) {
    nr_context *ctx[MAX_DEV] = {0}, *twin[MAX_DEV] = {0}, *cpu = NULL;
    char why[1024] = "", paths[1024] = "";
    bool ok = nr_context_create(NR_DEVICE_CPU, 0, &cpu) == NR_OK;
    for (int d = 0; d < ndev && ok; d++)
        ok = nr_context_create(NR_DEVICE_CUDA, d, &ctx[d]) == NR_OK &&
             nr_context_create(NR_DEVICE_CUDA, d, &twin[d]) == NR_OK;
    CHECK(ok, "copies: creating the contexts");
    static const size_t sizes[][2] = {
        {1, 0}, {1000, 3}, {4096, 64}, {(9u << 20) + 3, 5}}; /* past one staging chunk */
    int pairs = 0, peer = 0, staged = 0;
    for (int a = -1; a < ndev; a++)
        for (int b = -1; b < ndev; b++) {
            /* -1: the CPU; a == b: two contexts on one device */
            if (a == -1 && b == -1) continue;
            nr_context *src = a < 0 ? cpu : ctx[a], *dst = b < 0 ? cpu : a == b ? twin[b] : ctx[b];
            nr_copy_path path = NR_COPY_HOST, want;
            nr_status s = nr_memcpy_peer_path(dst, src, &path);
            want = a < 0 || b < 0 ? NR_COPY_HOST : a == b ? NR_COPY_DEVICE : path;
            if (a >= 0 && b >= 0 && a != b) {
                if (expect && !strcmp(expect, "peer")) want = NR_COPY_PEER;
                if (expect && !strcmp(expect, "staged")) want = NR_COPY_STAGED;
                peer += path == NR_COPY_PEER, staged += path == NR_COPY_STAGED;
                size_t len = strlen(paths);
                snprintf(paths + len, sizeof paths - len, "%s%d->%d %s", len ? ", " : "", a, b,
                         path_name(path));
            }
            CHECK(s == NR_OK && path == want, "copies %d -> %d: path %s (%s), want %s", a, b,
                  path_name(path), nr_status_string(s), path_name(want));
            ok &= s == NR_OK && path == want;
            long long before[MS_COUNT], after[MS_COUNT];
            mock_stats(before);
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                for (int async = 0; async < 2; async++) {
                    bool good =
                        copy_once(dst, src, sizes[i][0], sizes[i][1], async, why, sizeof why);
                    CHECK(good, "copies %d -> %d (%s): %s", a, b, path_name(path), why);
                    ok &= good;
                }
            mock_stats(after);
            if (drv.MockStats && a >= 0 && b >= 0 &&
                a != b) { /* the stand-in driver saw the path taken */
                long long copies = after[MS_PEER_COPIES] - before[MS_PEER_COPIES];
                long long direct = after[MS_PEER_DIRECT] - before[MS_PEER_DIRECT];
                if (path == NR_COPY_PEER)
                    CHECK(copies == 8 && direct == 8,
                          "copies %d -> %d: %lld cuMemcpyPeer, %lld with peer access, want 8", a, b,
                          copies, direct);
                else
                    CHECK(copies == 0, "copies %d -> %d: staged, yet %lld cuMemcpyPeer", a, b,
                          copies);
            }
            bool ran = copy_then_run(dst, src, why, sizeof why);
            CHECK(ran, "copies %d -> %d, then `good` on the destination: %s", a, b, why);
            ok &= ran;
            pairs++;
        }
    for (int d = 0; d < ndev; d++) nr_context_destroy(ctx[d]), nr_context_destroy(twin[d]);
    nr_context_destroy(cpu);
    if (ndev >= 2)
        row("copies between devices", ndev, ok,
            "%d ordered pairs (GPUs, one GPU twice, the CPU), 4 sizes x sync/async "
            "each; between GPUs: %s",
            pairs,
            !peer     ? "all staged"
            : !staged ? "all peer"
                      : paths);
    else
        row("copies (one device)", ndev, ok,
            "%d pairs: GPU 0 with itself (two contexts) and with the CPU", pairs);
}

/* The repository root: $NEREID_ROOT, the current directory, or two levels above the
 * program (build-gpu/gpu-tests/NAME). */
static void find_root(const char *argv0) {
    struct stat sb;
    const char *env = getenv("NEREID_ROOT");
    if (env && *env) {
        snprintf(root, sizeof root, "%s", env);
        return;
    }
    if (stat("examples/vector_add.nr", &sb) == 0) return;
    char buf[1024], path[1200];
    snprintf(buf, sizeof buf, "%s", argv0);
    char *slash = strrchr(buf, '/');
    if (!slash) return;
    *slash = 0;
    snprintf(path, sizeof path, "%s/../../examples/vector_add.nr", buf);
    if (stat(path, &sb) == 0) snprintf(root, sizeof root, "%s/../..", buf);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int child = -1;
    const char *expect = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--child") && i + 1 < argc) child = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--expect-path") && i + 1 < argc) expect = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--expect-path peer|staged]\n", argv[0]);
            return 2;
        }
    }
    if (!expect && getenv("NEREID_TEST_EXPECT_PATH") && *getenv("NEREID_TEST_EXPECT_PATH"))
        expect =
            getenv("NEREID_TEST_EXPECT_PATH"); /* as --expect-path (tools/run-tests.sh sets it) */
    find_root(argc > 0 ? argv[0] : "test_gpu_multi");
    setenv("CUDA_CACHE_DISABLE", "1", 1); /* the driver's own cache would hide compiles */
    int ndev = 0;
    char err[512] = "";
    nr_status s = nr_device_count(NR_DEVICE_CUDA, &ndev, err, sizeof err);
    if (s || ndev == 0) {
        const char *req = getenv("NEREID_REQUIRE_GPU");
        if (req && *req && strcmp(req, "0")) {
            printf("test_gpu_multi: FAILED: NEREID_REQUIRE_GPU is set and there is no CUDA device "
                   "(%s)\n",
                   err);
            return 1;
        }
        printf("SKIP: no CUDA device (%s)\n", *err ? err : "the driver found none");
        return 0;
    }
    if (ndev > MAX_DEV) ndev = MAX_DEV;
    nr_context *probe =
        NULL; /* loads the driver, so that the test finds it; tells the stand-in apart */
    if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &probe, err, sizeof err)) {
        printf("test_gpu_multi: FAILED: CUDA device 0: %s\n", err);
        return 1;
    }
    bool mock = strstr(nr_context_device_name(probe), "tests/mock") != NULL;
    find_driver();
    nr_context_destroy(probe);
    make_works(mock);
    char why[1024];
    if (!cpu_reference(why, sizeof why)) {
        printf("test_gpu_multi: FAILED: the CPU reference: %s\n", why);
        return 1;
    }
    if (child >= 0) {
        int rc = child_main(child);
        for (int w = 0; w < nworks; w++) free_res(&works[w], ref[w]);
        free_works();
        return rc;
    }
    printf("test_gpu_multi: %d CUDA device%s visible%s; kernels:", ndev, ndev == 1 ? "" : "s",
           mock ? " (the stand-in driver: only `good` runs)" : "");
    for (int w = 0; w < nworks; w++) printf("%s %s", w ? "," : "", works[w].name);
    printf("\n");
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) snprintf(self, sizeof self, "%s", argv[0]);
    else self[len] = 0;

    part_threads(ndev);
    part_processes(ndev, self);
    if (ndev >= 2) part_one_thread(ndev);
    part_copies(ndev, ndev >= 2 ? expect : NULL);
    fresh_cache(); /* removes the last one */
    rmdir(cache_dir);

    for (int w = 0; w < nworks; w++) free_res(&works[w], ref[w]);
    free_works();
    printf("\n%-28s %-8s %-7s %s\n", "part", "devices", "result", "detail");
    for (int i = 0; i < nrows; i++)
        printf("%-28s %-8s %-7s %s\n", rows[i].part, rows[i].devices, rows[i].result,
               rows[i].detail);
    if (ndev < 2)
        printf(
            "MULTI-DEVICE PARTS SKIPPED: only one CUDA device is visible, so no copies between two "
            "devices and no "
            "two devices at once were tested (the threads and processes above shared device 0)\n");
    return check_done("test_gpu_multi", &st);
}
