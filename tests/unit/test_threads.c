/* test_threads.c - Nereid from many threads at once, the way a server embeds it; `make
 * test` also runs it under ThreadSanitizer (build-tsan/), where it must be clean.
 *
 * Ten threads start together (a barrier): eight each create their own CPU context and,
 * for several rounds, compile kernels from source and from a file (with defines, a
 * reduction, Philox random numbers, a helper function), launch them on buffers of their
 * own and check every result against plain C, hit a compile error and an out-of-bounds
 * access and check the messages, use streams, and try a CUDA context (no device here:
 * the driver's absence is reported; with one, a launch runs on it). The other two share
 * one disk-cache directory (runtime/cache.c, NEREID_CACHE_MAX_MB=1 so eviction runs),
 * reading and writing the same keys and checking every payload. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "nereid.h"
#include "runtime/cache.h"

enum { NTHREADS = 8, NCACHE = 2, ROUNDS = 3, N = 3000 };

static const char *src =
    "import triton.language as tl\n"
    "def twice(v):\n"
    "    return v + v\n"
    "@triton.jit\n"
    "def axpy(x: *fp32, y: *fp32, out: *fp32, a: fp32, n: i32, BLOCK: tl.constexpr):\n"
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    m = o < n\n"
    "    tl.store(out + o, a * tl.load(x + o, mask=m) + twice(tl.load(y + o, mask=m)), mask=m)\n"
    "@triton.jit\n"
    "def row_max(x: *fp32, out: *fp32, cols: i32, BLOCK: tl.constexpr):\n"
    "    r = tl.program_id(0)\n"
    "    c = tl.arange(0, BLOCK)\n"
    "    v = tl.load(x + r * cols + c, mask=c < cols, other=-float('inf'))\n"
    "    tl.store(out + r, tl.max(v, axis=0))\n"
    "@triton.jit\n"
    "def noise(out: *u32, seed: i32, n: i32, BLOCK: tl.constexpr):\n"
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(out + o, tl.randint(seed, o), mask=o < n)\n";

static const char *bad_src = "@triton.jit\ndef k(x: *fp32):\n    y = not_defined + 1\n";

typedef struct Job {
    int id;
    pthread_barrier_t *start;
    CheckState st;
    char log[512]; /* the first failure */
} Job;

#define JCHECK(j, cond, ...)                                                     \
    do {                                                                         \
        if (cond) (j)->st.passed++;                                              \
        else {                                                                   \
            if (!(j)->st.failed++)                                               \
                snprintf((j)->log, sizeof(j)->log, "line %d: " #cond, __LINE__); \
        }                                                                        \
    } while (0)

/* One round of work on a fresh CPU context. */
static void cpu_round(Job *j, int round) {
    nr_context *ctx;
    JCHECK(j, nr_context_create(NR_DEVICE_CPU, 0, &ctx) == NR_OK);
    if (!ctx) return;
    int block = 64 << ((j->id + round) % 3);
    char b[16];
    snprintf(b, sizeof b, "%d", block);
    nr_define d = {"BLOCK", b};
    nr_compile_options o = {.defines = &d, .num_defines = 1};
    nr_module *m = NULL;
    JCHECK(j, nr_compile_source(ctx, src, strlen(src), "threads.nr", &o, &m) == NR_OK);
    nr_kernel *axpy = NULL, *row_max = NULL, *noise = NULL;
    if (m) {
        JCHECK(j, nr_module_get_kernel(m, "axpy", &axpy) == NR_OK);
        JCHECK(j, nr_module_get_kernel(m, "row_max", &row_max) == NR_OK);
        JCHECK(j, nr_module_get_kernel(m, "noise", &noise) == NR_OK);
    }

    /* the same source from a file of this thread's own */
    char path[64];
    snprintf(path, sizeof path, "/tmp/nereid-test-threads-%d-%d.nr", (int)getpid(), j->id);
    FILE *f = fopen(path, "w");
    if (f) fputs(src, f), fclose(f);
    nr_module *mf = NULL;
    JCHECK(j, nr_compile_file(ctx, path, &o, &mf) == NR_OK && nr_module_num_kernels(mf) == 3);
    unlink(path);

    /* a compile error: the diagnostic, located */
    nr_module *mb = NULL;
    JCHECK(j, nr_compile_source(ctx, bad_src, strlen(bad_src), "bad.nr", NULL, &mb) ==
                      NR_ERR_COMPILE &&
                  !mb);
    JCHECK(j, strstr(nr_last_error(ctx),
                     "bad.nr:3:9: error: use of undefined name 'not_defined'") != NULL);

    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N),
          *z = malloc(sizeof(float) * N);
    uint32_t *r = malloc(sizeof(uint32_t) * N), *r2 = malloc(sizeof(uint32_t) * N);
    nr_devptr dx = 0, dy = 0, dz = 0, dr = 0;
    bool ok = x && y && z && r && r2 && axpy && row_max && noise &&
              nr_malloc(ctx, sizeof(float) * N, &dx) == NR_OK &&
              nr_malloc(ctx, sizeof(float) * N, &dy) == NR_OK &&
              nr_malloc(ctx, sizeof(float) * N, &dz) == NR_OK &&
              nr_malloc(ctx, sizeof(uint32_t) * N, &dr) == NR_OK;
    JCHECK(j, ok);
    if (ok) {
        for (int i = 0; i < N; i++)
            x[i] = (float)(i % 97) - 40.0f + (float)j->id, y[i] = 0.25f * (float)(i % 13);
        JCHECK(j, nr_memcpy_htod(ctx, dx, x, sizeof(float) * N) == NR_OK);
        JCHECK(j, nr_memcpy_htod(ctx, dy, y, sizeof(float) * N) == NR_OK);
        /* axpy on a stream of the context */
        void *stream = NULL;
        JCHECK(j, nr_stream_create(ctx, &stream) == NR_OK);
        nr_launch_options lo = {.stream = stream};
        float a = 1.5f + (float)j->id;
        nr_arg args[5] = {nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dz), nr_arg_f32(a),
                          nr_arg_i32(N)};
        unsigned grid[3] = {(unsigned)((N + block - 1) / block), 1, 1};
        JCHECK(j, nr_launch(axpy, grid, args, 5, &lo) == NR_OK);
        JCHECK(j, nr_stream_synchronize(ctx, stream) == NR_OK &&
                      nr_stream_destroy(ctx, stream) == NR_OK);
        JCHECK(j, nr_memcpy_dtoh(ctx, z, dz, sizeof(float) * N) == NR_OK);
        int wrong = 0;
        for (int i = 0; i < N; i++) wrong += z[i] != a * x[i] + (y[i] + y[i]);
        JCHECK(j, wrong == 0);

        /* row maxima: rows of `block` columns */
        int rows = N / block;
        nr_arg margs[3] = {nr_arg_ptr(dx), nr_arg_ptr(dz), nr_arg_i32(block)};
        unsigned mgrid[3] = {(unsigned)rows, 1, 1};
        JCHECK(j,
               nr_launch(row_max, mgrid, margs, 3, NULL) == NR_OK && nr_synchronize(ctx) == NR_OK);
        JCHECK(j, nr_memcpy_dtoh(ctx, z, dz, sizeof(float) * (size_t)rows) == NR_OK);
        wrong = 0;
        for (int i = 0; i < rows; i++) {
            float want = x[i * block];
            for (int c = 1; c < block; c++)
                want = x[i * block + c] > want ? x[i * block + c] : want;
            wrong += z[i] != want;
        }
        JCHECK(j, wrong == 0);

        /* random numbers: the same seed twice gives the same stream, another seed not */
        unsigned ngrid[3] = {(unsigned)((N + block - 1) / block), 1, 1};
        nr_arg nargs[3] = {nr_arg_ptr(dr), nr_arg_i32(1234), nr_arg_i32(N)};
        JCHECK(j, nr_launch(noise, ngrid, nargs, 3, NULL) == NR_OK);
        JCHECK(j, nr_memcpy_dtoh(ctx, r, dr, sizeof(uint32_t) * N) == NR_OK);
        JCHECK(j, nr_launch(noise, ngrid, nargs, 3, NULL) == NR_OK);
        JCHECK(j, nr_memcpy_dtoh(ctx, r2, dr, sizeof(uint32_t) * N) == NR_OK);
        JCHECK(j, !memcmp(r, r2, sizeof(uint32_t) * N));
        nargs[1] = nr_arg_i32(4321);
        JCHECK(j, nr_launch(noise, ngrid, nargs, 3, NULL) == NR_OK);
        JCHECK(j, nr_memcpy_dtoh(ctx, r2, dr, sizeof(uint32_t) * N) == NR_OK);
        JCHECK(j, memcmp(r, r2, sizeof(uint32_t) * N) != 0);

        /* an out-of-bounds access: the launch fails with the kernel's name, the context
         * stays usable */
        nr_arg oob[5] = {nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dz), nr_arg_f32(1),
                         nr_arg_i32(N + block)};
        unsigned ogrid[3] = {grid[0] + 1, 1, 1};
        JCHECK(j, nr_launch(axpy, ogrid, oob, 5, NULL) == NR_ERR_LAUNCH);
        JCHECK(j, strstr(nr_last_error(ctx), "axpy") != NULL);
        JCHECK(j, nr_launch(axpy, grid, args, 5, NULL) == NR_OK);
    }
    free(x), free(y), free(z), free(r), free(r2);
    nr_module_destroy(mf);
    if (round % 2) nr_module_destroy(m); /* else the context destroys it */
    nr_context_destroy(ctx);

    /* a CUDA context: no device here, a clear failure; with one, it works */
    nr_context *cu = NULL;
    char why[256];
    nr_status s = nr_context_create_ex(NR_DEVICE_CUDA, 0, &cu, why, sizeof why);
    JCHECK(j, s == NR_OK ? cu != NULL : (s == NR_ERR_DEVICE && !cu && why[0]));
    if (cu) {
        nr_devptr p;
        JCHECK(j, nr_malloc(cu, 4096, &p) == NR_OK && nr_memset(cu, p, 0, 4096) == NR_OK);
        nr_context_destroy(cu);
    }
}

static void *cpu_thread(void *arg) {
    Job *j = arg;
    pthread_barrier_wait(j->start);
    for (int round = 0; round < ROUNDS; round++) cpu_round(j, round);
    return NULL;
}

/* The payload of a key: 2 to 100 KB of bytes drawn from the key. */
static size_t payload(const char *text, unsigned char *out) {
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (const char *c = text; *c; c++) x = (x ^ (unsigned char)*c) * 0x100000001b3ull;
    size_t n = 2048 + x % (98 * 1024);
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        out[i] = (unsigned char)x;
    }
    return n;
}

static void *cache_thread(void *arg) {
    Job *j = arg;
    unsigned char *want = malloc(100 * 1024);
    pthread_barrier_wait(j->start);
    for (int i = 0; want && i < 300; i++) {
        char text[32];
        snprintf(text, sizeof text, "key-%d",
                 (i * 7 + j->id) % 24); /* both threads use every key */
        CacheKey key = {"test_threads build", text};
        size_t wlen = payload(text, want), len = 0;
        unsigned char *got = cache_get(&key, &len);
        if (got) JCHECK(j, len == wlen && !memcmp(got, want, wlen));
        else cache_put(&key, want, wlen);
        free(got);
    }
    free(want);
    return NULL;
}

static void remove_dir(const char *dir) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    char tmpl[] = "/tmp/nereid-test-threads-XXXXXX";
    char *dir = mkdtemp(tmpl);
    if (!dir) return perror("mkdtemp"), 1;
    setenv("NEREID_CACHE_DIR", dir, 1);
    setenv("NEREID_CACHE_MAX_MB", "1", 1);

    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, NTHREADS + NCACHE);
    Job jobs[NTHREADS + NCACHE];
    pthread_t t[NTHREADS + NCACHE];
    for (int i = 0; i < NTHREADS + NCACHE; i++) {
        jobs[i] = (Job){.id = i, .start = &start};
        if (pthread_create(&t[i], NULL, i < NTHREADS ? cpu_thread : cache_thread, &jobs[i]) != 0) {
            printf("pthread_create failed\n");
            return 1;
        }
    }
    CheckState st = {0};
    for (int i = 0; i < NTHREADS + NCACHE; i++) {
        pthread_join(t[i], NULL);
        st.passed += jobs[i].st.passed;
        st.failed += jobs[i].st.failed;
        if (jobs[i].st.failed)
            printf("thread %d (%s): %d checks failed, the first at %s\n", i,
                   i < NTHREADS ? "CPU context" : "disk cache", jobs[i].st.failed, jobs[i].log);
    }
    pthread_barrier_destroy(&start);
    printf("%d threads with their own CPU contexts, %d threads sharing a disk cache\n", NTHREADS,
           NCACHE);
    remove_dir(dir);
    return check_done("test_threads", &st);
}
