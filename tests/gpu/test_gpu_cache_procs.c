/* test_gpu_cache_procs.c - many processes sharing one disk cache through the C API on a
 * GPU: 8 processes at once, each for several rounds creating a CUDA context, compiling
 * kernels that every process compiles (the same source and defines: the same cache
 * entries) and kernels of its own (a define only it uses), launching them and checking
 * the results, while two of them damage cache entries in place between rounds (truncate,
 * overwrite bytes). No launch may fail and no result may be wrong: a damaged or
 * half-written entry must never be loaded, only rebuilt. Afterwards no temporary file is
 * left, and the processes together found entries others had written (disk-cache hits).
 *
 * Needs a CUDA device (the parent probes for one in a child, so that no process forks
 * with the driver initialised): without one, "SKIP: no CUDA device (...)" and exit 0
 * (NEREID_REQUIRE_GPU=1: fails instead). `make test` also runs it against the stand-in
 * driver tests/mock/cuda_mock.c, which "runs" the kernel named good. Ends with
 * "test_gpu_cache_procs: N passed, M failed".
 *
 * On the mock, NEREID_TEST_EXPECT_LOADS says how kernels must have been loaded in every
 * process (its cuMockStats counts them): "cubin" (from ptxas's cubins, compiled or from
 * the cache, never the driver's JIT) or "ptx" (the driver's JIT alone: no ptxas, or one
 * that fails or writes what the driver refuses). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nereid.h"
#include "tests/unit/check.h"

const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "protect_shadow_gap=0"; }
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libcuda.so\n"; }

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

enum { NPROCS = 8, ROUNDS = 3, VANDALS = 2, N = 5000 };

static const char *src =
    "@triton.jit\n"
    "def good(x: *fp32, n: i32, BLOCK: tl.constexpr, SALT: tl.constexpr = 0):\n"
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    m = o < n\n"
    "    tl.store(x + o, tl.load(x + o, mask=m) * 2 + 1 + SALT * 0.0, mask=m)\n";

static char cache_dir[256];

/* On the mock: "" when this process's loads are as NEREID_TEST_EXPECT_LOADS says, else why
 * not. Elsewhere (a real driver, no expectation): "". */
static const char *loads_as_expected(char *why, size_t n) {
    const char *want = getenv("NEREID_TEST_EXPECT_LOADS");
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    int (*stats)(long long *, int, int) = NULL;
    if (lib) *(void **)&stats = dlsym(lib, "cuMockStats");
    why[0] = '\0';
    if (want && *want && stats) {
        enum { PTX_LOADS = 7 + 8, CUBIN_LOADS, COUNT }; /* cuda_mock.c: ST_LAUNCHES + MAX_DEV */
        long long c[COUNT] = {0};
        stats(c, COUNT, 0);
        bool ok = !strcmp(want, "cubin") ? c[CUBIN_LOADS] > 0 && c[PTX_LOADS] == 0
                                         : c[PTX_LOADS] > 0 && c[CUBIN_LOADS] == 0;
        if (!ok)
            snprintf(why, n, "expected %s loads; the mock loaded %lld from PTX, %lld cubins", want,
                     c[PTX_LOADS], c[CUBIN_LOADS]);
    }
    if (lib) dlclose(lib);
    return why;
}

/* Compile `good` with BLOCK and SALT, run it on n floats, check x = 2x + 1. */
static bool run_kernel(nr_context *ctx, int block, int salt, int n, char *why, size_t whysize) {
    char b[16], s[16];
    snprintf(b, sizeof b, "%d", block);
    snprintf(s, sizeof s, "%d", salt);
    nr_define defs[2] = {{"BLOCK", b}, {"SALT", s}};
    nr_compile_options o = {.defines = defs, .num_defines = 2};
    nr_module *m = NULL;
    nr_kernel *k;
    static float h[N], r[N];
    for (int i = 0; i < n; i++) h[i] = (float)(i % 251) - 100.0f;
    nr_devptr d = 0;
    unsigned grid[3] = {(unsigned)((n + block - 1) / block), 1, 1};
    nr_arg a[2];
    bool ok = nr_compile_source(ctx, src, strlen(src), "cache_procs.nr", &o, &m) == NR_OK &&
              nr_module_get_kernel(m, "good", &k) == NR_OK &&
              nr_malloc(ctx, sizeof(float) * (size_t)n, &d) == NR_OK &&
              nr_memcpy_htod(ctx, d, h, sizeof(float) * (size_t)n) == NR_OK;
    a[0] = nr_arg_ptr(d), a[1] = nr_arg_i32(n);
    ok = ok && nr_launch(k, grid, a, 2, NULL) == NR_OK && nr_synchronize(ctx) == NR_OK &&
         nr_memcpy_dtoh(ctx, r, d, sizeof(float) * (size_t)n) == NR_OK;
    if (!ok)
        snprintf(why, whysize, "BLOCK=%d SALT=%d n=%d: %s", block, salt, n, nr_last_error(ctx));
    for (int i = 0; ok && i < n; i++)
        if (r[i] != 2 * h[i] + 1) {
            snprintf(why, whysize, "BLOCK=%d SALT=%d n=%d: x[%d] = %g, want %g", block, salt, n, i,
                     r[i], 2 * h[i] + 1);
            ok = false;
        }
    if (d) nr_free(ctx, d);
    nr_module_destroy(m);
    return ok;
}

/* Damage every other entry of the cache in place. */
static void vandalise(unsigned seed) {
    DIR *dp = opendir(cache_dir);
    if (!dp) return;
    int i = 0;
    for (struct dirent *e; (e = readdir(dp));) {
        if (!strstr(e->d_name, ".cubin") || e->d_name[0] == '.' || (i++ + seed) % 2) continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        int fd = open(path, O_WRONLY);
        if (fd < 0) continue;
        struct stat sb;
        if (fstat(fd, &sb) == 0 && sb.st_size > 64) {
            if (seed % 3 == 0) (void)!ftruncate(fd, sb.st_size / 2);
            else (void)!pwrite(fd, "garbage garbage garbage garbage", 31, sb.st_size / 2);
        }
        close(fd);
        seed = seed * 1103515245u + 12345u;
    }
    closedir(dp);
}

/* One process: exit status 0 if every launch worked and was right; it prints its disk
 * cache hits as "hits N". */
static int child(int p) {
    unsigned long long hits = 0, compiles = 0;
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        nr_context *ctx;
        char why[1024];
        if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &ctx, why, sizeof why)) {
            printf("process %d: no CUDA context: %s\n", p, why);
            return 1;
        }
        static const int blocks[3] = {64, 128, 256};
        for (int i = 0; i < 3; i++) { /* shared: the same entries in every process */
            int b = blocks[(i + p + r) % 3];
            if (!run_kernel(ctx, b, 0, N, why, sizeof why) ||
                !run_kernel(ctx, b, 0, N - 3, why, sizeof why))
                bad++, printf("process %d, round %d: %s\n", p, r, why);
        }
        if (!run_kernel(ctx, 128, 1000 + p, N, why, sizeof why)) /* its own */
            bad++, printf("process %d, round %d: %s\n", p, r, why);
        nr_stats s;
        nr_context_stats(ctx, &s);
        hits += s.disk_cache_hits, compiles += s.gpu_compiles;
        nr_context_destroy(ctx);
        if (p < VANDALS) vandalise((unsigned)(p * 7 + r));
    }
    char why[256];
    if (*loads_as_expected(why, sizeof why)) bad++, printf("process %d: %s\n", p, why);
    printf("process %d: %llu variants compiled, %llu from the disk cache, %d failures\nhits %llu\n",
           p, compiles, hits, bad, hits);
    return bad ? 1 : 0;
}

static int temporaries(void) {
    DIR *dp = opendir(cache_dir);
    int n = 0;
    for (struct dirent *e; dp && (e = readdir(dp));) n += strstr(e->d_name, ".tmp.") != NULL;
    if (dp) closedir(dp);
    return n;
}

static void remove_dir(void) {
    DIR *dp = opendir(cache_dir);
    for (struct dirent *e; dp && (e = readdir(dp));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        unlink(path);
    }
    if (dp) closedir(dp);
    rmdir(cache_dir);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* is there a GPU? asked in a child: the driver must not be initialised in a process
     * that forks workers */
    fflush(stdout);
    pid_t probe = fork();
    if (probe == 0) {
        nr_context *ctx;
        char why[512];
        if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &ctx, why, sizeof why)) {
            printf("SKIP: no CUDA device (%s)\n", why);
            _exit(77);
        }
        nr_context_destroy(ctx);
        _exit(0);
    }
    int status = 0;
    waitpid(probe, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        const char *req = getenv("NEREID_REQUIRE_GPU");
        if ((req && *req && strcmp(req, "0")) || !WIFEXITED(status) || WEXITSTATUS(status) != 77) {
            printf("test_gpu_cache_procs: FAILED: no usable CUDA device\n");
            return 1;
        }
        return 0; /* the child printed SKIP */
    }

    snprintf(cache_dir, sizeof cache_dir, "/tmp/nereid-gpu-cache-procs-XXXXXX");
    if (!mkdtemp(cache_dir)) return perror("mkdtemp"), 1;
    setenv("NEREID_CACHE_DIR", cache_dir, 1);
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    printf("cache directory: %s, %d processes, %d rounds each\n", cache_dir, NPROCS, ROUNDS);

    int pipes[NPROCS][2];
    pid_t pids[NPROCS];
    for (int p = 0; p < NPROCS; p++) {
        if (pipe(pipes[p])) return perror("pipe"), 1;
        fflush(stdout);
        pids[p] = fork();
        if (pids[p] == 0) {
            dup2(pipes[p][1], 1);
            close(pipes[p][0]);
            setvbuf(stdout, NULL, _IOLBF, 0);
            _exit(child(p));
        }
        close(pipes[p][1]);
    }
    unsigned long long hits = 0;
    for (int p = 0; p < NPROCS; p++) {
        char buf[8192];
        ssize_t n, got = 0;
        while (got < (ssize_t)sizeof buf - 1 &&
               (n = read(pipes[p][0], buf + got, sizeof buf - 1 - (size_t)got)) > 0)
            got += n;
        buf[got > 0 ? got : 0] = 0;
        close(pipes[p][0]);
        waitpid(pids[p], &status, 0);
        const char *h = strstr(buf, "\nhits ");
        if (h) hits += strtoull(h + 6, NULL, 10);
        fputs(buf, stdout);
        if (WIFSIGNALED(status))
            CHECK(0, "process %d died of signal %d (%s)", p, WTERMSIG(status),
                  strsignal(WTERMSIG(status)));
        else
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "process %d failed (exit status %d)", p, WEXITSTATUS(status));
    }
    CHECK(temporaries() == 0, "%d temporary files left in the cache", temporaries());
    CHECK(hits > 0, "no process found another's entries in the disk cache");
    printf("%llu variants loaded from the disk cache in all\n", hits);
    remove_dir();
    return check_done("test_gpu_cache_procs", &st);
}
