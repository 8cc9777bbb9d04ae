/* cuda_smoke.c - a standalone smoke test of the CUDA runtime (runtime/cuda.c) and the
 * kernel cache (runtime/cache.c) on a real GPU, with hand-written PTX (no compiler involved).
 *
 * Build and run from the repository root, after `make build/libnereid.a`:
 *
 *   cc -std=c11 -D_POSIX_C_SOURCE=200809L -I. -Iinclude tests/gpu/cuda_smoke.c build/libnereid.a \
 *      -ldl -lpthread -lm $(llvm-config-19 --ldflags --libs core) -lstdc++ -o build/cuda_smoke \
 *   && ./build/cuda_smoke
 *
 * Only cuda.o, cache.o and compiler/support are pulled out of the archive, so the LLVM
 * libraries are not actually needed; without the library (no LLVM, flex, bison there):
 *
 *   cc -std=c11 -D_POSIX_C_SOURCE=200809L -I. -Iinclude tests/gpu/cuda_smoke.c runtime/cuda.c \
 *      runtime/cache.c compiler/support/arena.c compiler/support/diag.c compiler/support/strbuf.c \
 *      -ldl -lpthread -lm -o /tmp/cuda_smoke && /tmp/cuda_smoke
 *
 * Under ASan add -fsanitize=address,undefined: the hooks below set the options CUDA needs.
 *
 * It opens device 0, then:
 *   1. compiles a PTX vector add (.target sm_80) through cuda_load with a cache key (by
 *      ptxas where it is installed, else the driver's JIT), checks the PTX and ptxas's
 *      cubin were written to the cache, loads it again (now from the cache: no compile),
 *      prints both load times;
 *   2. runs it on 1<<20 floats and checks every element;
 *   3. a bogus entry stored under the key is dropped and rebuilt from the PTX;
 *   4. a kernel with 96 KB of dynamic shared memory (> 48 KB: needs the opt-in attribute),
 *      then again from the cache alone (cuda_load_cached: no PTX; the entry carries the size);
 *   5. a PTX syntax error: cuda_load fails and the message carries the JIT's error log;
 *      an unknown kernel name fails clearly; PTX with the device's own target
 *      (cuda_arch_name: sm_90a on Hopper) JIT-compiles and runs;
 *   6. two CudaDevice objects used from two threads at once;
 *   7. times 1000 launches of an empty kernel (host cost per launch).
 * The cache lives in a fresh temporary directory, removed at the end. Where there is no
 * driver or no GPU it prints a SKIP line and exits 0 (set NEREID_REQUIRE_GPU=1 to make
 * that a failure). Exit status 0 when every check passed, else 1. */
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver/ptxas.h"
#include "runtime/cache.h"
#include "runtime/cuda.h"
#include "tests/unit/check.h"

/* Under AddressSanitizer the CUDA driver needs the shadow gap left unprotected (otherwise
 * cuInit fails with CUDA_ERROR_OUT_OF_MEMORY), and cuInit leaks a few hundred bytes of its
 * own: these hooks (read by ASan/LSan only, inert otherwise) set that up for this program. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "protect_shadow_gap=0"; }
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libcuda.so\n"; }

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

/* c[i] = a[i] + b[i] for i < n; one thread per element */
static const char *vadd_ptx = ".version 8.0\n"
                              ".target sm_80\n"
                              ".address_size 64\n"
                              "\n"
                              ".visible .entry vadd(\n"
                              "    .param .u64 pa,\n"
                              "    .param .u64 pb,\n"
                              "    .param .u64 pc,\n"
                              "    .param .u32 n)\n"
                              "{\n"
                              "    .reg .pred %p<2>;\n"
                              "    .reg .b32 %r<6>;\n"
                              "    .reg .f32 %f<4>;\n"
                              "    .reg .b64 %rd<10>;\n"
                              "    ld.param.u64 %rd1, [pa];\n"
                              "    ld.param.u64 %rd2, [pb];\n"
                              "    ld.param.u64 %rd3, [pc];\n"
                              "    ld.param.u32 %r1, [n];\n"
                              "    mov.u32 %r2, %ctaid.x;\n"
                              "    mov.u32 %r3, %ntid.x;\n"
                              "    mov.u32 %r4, %tid.x;\n"
                              "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
                              "    setp.ge.u32 %p1, %r5, %r1;\n"
                              "    @%p1 bra DONE;\n"
                              "    cvta.to.global.u64 %rd4, %rd1;\n"
                              "    cvta.to.global.u64 %rd5, %rd2;\n"
                              "    cvta.to.global.u64 %rd6, %rd3;\n"
                              "    mul.wide.u32 %rd7, %r5, 4;\n"
                              "    add.s64 %rd8, %rd4, %rd7;\n"
                              "    ld.global.f32 %f1, [%rd8];\n"
                              "    add.s64 %rd8, %rd5, %rd7;\n"
                              "    ld.global.f32 %f2, [%rd8];\n"
                              "    add.rn.f32 %f3, %f1, %f2;\n"
                              "    add.s64 %rd9, %rd6, %rd7;\n"
                              "    st.global.f32 [%rd9], %f3;\n"
                              "DONE:\n"
                              "    ret;\n"
                              "}\n";

/* the same kernel with a typo on line 30 ("add.rn.f33") */
static const char *bad_ptx = ".version 8.0\n"
                             ".target sm_80\n"
                             ".address_size 64\n"
                             "\n"
                             ".visible .entry vadd(\n"
                             "    .param .u64 pa,\n"
                             "    .param .u64 pb,\n"
                             "    .param .u64 pc,\n"
                             "    .param .u32 n)\n"
                             "{\n"
                             "    .reg .pred %p<2>;\n"
                             "    .reg .b32 %r<6>;\n"
                             "    .reg .f32 %f<4>;\n"
                             "    .reg .b64 %rd<10>;\n"
                             "    ld.param.u64 %rd1, [pa];\n"
                             "    ld.param.u64 %rd2, [pb];\n"
                             "    ld.param.u64 %rd3, [pc];\n"
                             "    ld.param.u32 %r1, [n];\n"
                             "    mov.u32 %r2, %ctaid.x;\n"
                             "    mov.u32 %r3, %ntid.x;\n"
                             "    mov.u32 %r4, %tid.x;\n"
                             "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
                             "    setp.ge.u32 %p1, %r5, %r1;\n"
                             "    @%p1 bra DONE;\n"
                             "    cvta.to.global.u64 %rd4, %rd1;\n"
                             "    cvta.to.global.u64 %rd5, %rd2;\n"
                             "    cvta.to.global.u64 %rd6, %rd3;\n"
                             "    mul.wide.u32 %rd7, %r5, 4;\n"
                             "    add.s64 %rd8, %rd4, %rd7;\n"
                             "    add.rn.f33 %f3, %f1, %f2;\n"
                             "    st.global.f32 [%rd8], %f3;\n"
                             "DONE:\n"
                             "    ret;\n"
                             "}\n";

/* every thread t of the block writes 3*t+7 at the top of the dynamic shared memory
 * (byte nbytes - 4*(t+1)), then reads back thread ntid-1-t's value into out[t] */
static const char *smem_ptx = ".version 8.0\n"
                              ".target sm_80\n"
                              ".address_size 64\n"
                              "\n"
                              ".extern .shared .align 16 .b8 dsmem[];\n"
                              "\n"
                              ".visible .entry smem_mirror(\n"
                              "    .param .u64 pout,\n"
                              "    .param .u32 nbytes)\n"
                              "{\n"
                              "    .reg .b32 %r<12>;\n"
                              "    .reg .b64 %rd<5>;\n"
                              "    ld.param.u64 %rd1, [pout];\n"
                              "    ld.param.u32 %r1, [nbytes];\n"
                              "    mov.u32 %r2, %tid.x;\n"
                              "    add.u32 %r3, %r2, 1;\n"
                              "    shl.b32 %r3, %r3, 2;\n"
                              "    sub.u32 %r4, %r1, %r3;\n"
                              "    mov.u32 %r5, dsmem;\n"
                              "    add.u32 %r6, %r5, %r4;\n"
                              "    mad.lo.u32 %r7, %r2, 3, 7;\n"
                              "    st.shared.u32 [%r6], %r7;\n"
                              "    bar.sync 0;\n"
                              "    mov.u32 %r8, %ntid.x;\n"
                              "    sub.u32 %r9, %r8, %r2;\n"
                              "    shl.b32 %r9, %r9, 2;\n"
                              "    sub.u32 %r9, %r1, %r9;\n"
                              "    add.u32 %r9, %r5, %r9;\n"
                              "    ld.shared.u32 %r10, [%r9];\n"
                              "    cvta.to.global.u64 %rd2, %rd1;\n"
                              "    mul.wide.u32 %rd3, %r2, 4;\n"
                              "    add.s64 %rd4, %rd2, %rd3;\n"
                              "    st.global.u32 [%rd4], %r10;\n"
                              "    ret;\n"
                              "}\n";

static const char *nop_ptx = ".version 8.0\n"
                             ".target sm_80\n"
                             ".address_size 64\n"
                             "\n"
                             ".visible .entry nop(.param .u64 p)\n"
                             "{\n"
                             "    ret;\n"
                             "}\n";

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A disk-cache key for a test kernel: its name, extended with the device and driver
 * (the API's keys cover them too, runtime/cache_key.c), under a build of its own. */
static CacheKey smoke_key(CudaDevice *d, const char *name, char text[256]) {
    snprintf(text, 256, "%s|sm_%d|driver %d", name, cuda_compute_capability(d),
             cuda_driver_version(d));
    return (CacheKey){"cuda_smoke", text};
}
#define SMOKE_KEY(var, d, name) \
    char var##_text[256];       \
    CacheKey var = smoke_key(d, name, var##_text)

/* A cache entry as cuda_load writes it: "NRPTXCB2", the shared-memory size, the cubin's
 * size and compute capability, 4 reserved bytes (4 each), then the cubin (an ELF file,
 * ptxas's, for this device: there must be one where ptxas is installed, none where not),
 * then the kernel's PTX and its NUL. */
static bool is_ptx_entry(const CudaDevice *d, const void *p, size_t n, unsigned shared) {
    const unsigned char *b = p;
    uint32_t s, nc, cc;
    if (!p || n < 26 || memcmp(b, "NRPTXCB2", 8) || b[n - 1] != '\0') return false;
    memcpy(&s, b + 8, 4), memcpy(&nc, b + 12, 4), memcpy(&cc, b + 16, 4);
    char buf[4096];
    bool ptxas = ptxas_find(buf, sizeof buf) != NULL;
    if (nc >= n - 24 ||
        (ptxas ? nc < 4 || memcmp(b + 24, "\177ELF", 4) || (int)cc != cuda_compute_capability(d)
               : nc != 0))
        return false;
    return s == shared && strstr((const char *)b + 24 + nc, ".entry ");
}

static bool file_exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static void remove_dir(const char *dir) {
    DIR *dp = opendir(dir);
    if (dp) {
        for (struct dirent *e; (e = readdir(dp));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(dp);
    }
    rmdir(dir);
}

enum { N = 1 << 20 };

/* Run vadd on N floats on device d with kernel k; returns the number of wrong elements
 * (or -1 on a runtime error, with the message in err). */
static long run_vadd(CudaDevice *d, const CudaKernel *k, unsigned seed, StrBuf *err) {
    size_t bytes = (size_t)N * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    uint64_t da = 0, db = 0, dc = 0;
    long bad = -1;
    if (!a || !b || !c) {
        sb_puts(err, "out of host memory");
        goto out;
    }
    for (int i = 0; i < N; i++) {
        a[i] = (float)((i * 7 + (int)seed) % 1000) * 0.25f;
        b[i] = (float)(i % 977) - 3.5f * (float)seed;
    }
    if (cuda_malloc(d, bytes, &da, err) || cuda_malloc(d, bytes, &db, err) ||
        cuda_malloc(d, bytes, &dc, err) || cuda_htod(d, da, a, bytes, err) ||
        cuda_htod(d, db, b, bytes, err) || cuda_memset(d, dc, 0xff, bytes, err))
        goto out;
    unsigned n = N;
    void *params[] = {&da, &db, &dc, &n};
    int warps = 8; /* 256 threads per block */
    unsigned grid[3] = {(N + 255) / 256, 1, 1};
    if (cuda_launch(d, k, grid, warps, params, NULL, err) || cuda_synchronize(d, err) ||
        cuda_dtoh(d, c, dc, bytes, err))
        goto out;
    bad = 0;
    for (int i = 0; i < N; i++) {
        float want = a[i] + b[i];
        if (memcmp(&c[i], &want, sizeof want) != 0) {
            if (bad < 5) printf("  vadd: c[%d] = %g, want %g\n", i, (double)c[i], (double)want);
            bad++;
        }
    }
out:
    if (dc) cuda_free(d, dc, err);
    if (db) cuda_free(d, db, err);
    if (da) cuda_free(d, da, err);
    free(a), free(b), free(c);
    return bad;
}

typedef struct {
    CudaDevice *d;
    int id;
    int failures;
    StrBuf err;
} ThreadJob;

static void *thread_main(void *arg) {
    ThreadJob *job = arg;
    SMOKE_KEY(key, job->d, "cuda_smoke/vadd-threads");
    for (int iter = 0; iter < 8; iter++) {
        CudaKernel k;
        if (cuda_load(job->d, vadd_ptx, "vadd", &key, 0, 0, &k, &job->err)) {
            job->failures++;
            return NULL;
        }
        long bad = run_vadd(job->d, &k, (unsigned)(job->id * 100 + iter), &job->err);
        if (bad != 0) job->failures++;
        cuda_unload(job->d, &k);
        if (bad != 0) return NULL;
    }
    return NULL;
}

static bool no_gpu_message(const char *msg) {
    return strstr(msg, "libcuda.so.1 not found") || strstr(msg, "CUDA_ERROR_NO_DEVICE") ||
           strstr(msg, "no CUDA device") || strstr(msg, "Nereid needs 8.0");
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    StrBuf err;
    sb_init(&err);
    CudaDevice *d = NULL;
    if (cuda_open(0, &d, &err)) {
        const char *req = getenv("NEREID_REQUIRE_GPU");
        bool required = req && *req && strcmp(req, "0") != 0;
        if (no_gpu_message(sb_cstr(&err)) && !required) {
            printf("SKIP: cuda_smoke: no usable CUDA GPU here: %s\n", sb_cstr(&err));
            sb_free(&err);
            return 0;
        }
        printf("FAIL: cuda_smoke: cuda_open(0) failed: %s\n", sb_cstr(&err));
        sb_free(&err);
        return 1;
    }
    int cc = cuda_compute_capability(d);
    int drv = cuda_driver_version(d);
    printf("device 0: %s, compute capability %d.%d, PTX target %s, CUDA driver %d.%d\n",
           cuda_device_name(d), cc / 10, cc % 10, cuda_arch_name(d), drv / 1000, drv % 1000 / 10);

    char tmpl[] = "/tmp/nereid-cuda-smoke-XXXXXX";
    char *cache = mkdtemp(tmpl);
    if (!cache) {
        perror("mkdtemp");
        cuda_close(d);
        sb_free(&err);
        return 1;
    }
    setenv("NEREID_CACHE_DIR", cache, 1);
    printf("cache directory: %s\n", cache);

    /* 1. JIT, then from the cache */
    SMOKE_KEY(key, d, "cuda_smoke/vadd/v1");
    char entry[4200];
    CHECK(cache_path(&key, entry, sizeof entry), "no cache path");
    CHECK(!file_exists(entry), "cache entry exists before the first load");

    CudaKernel k;
    double t0 = now_s();
    int rc = cuda_load(d, vadd_ptx, "vadd", &key, 0, 0, &k, &err);
    double t_jit = now_s() - t0;
    CHECK(rc == 0, "cuda_load (JIT): %s", sb_cstr(&err));
    if (rc != 0) goto done;
    CHECK(!k.from_cache, "first load claims to come from the cache");
    CHECK(file_exists(entry), "no cache entry %s after the first load", entry);
    size_t entry_len = 0;
    void *cubin = cache_get(&key, &entry_len);
    CHECK(is_ptx_entry(d, cubin, entry_len, 0),
          "cached payload is not the header, ptxas's cubin and the PTX");
    free(cubin);
    cuda_unload(d, &k);
    CHECK(k.module == NULL && k.function == NULL, "cuda_unload should clear the kernel");

    t0 = now_s();
    rc = cuda_load(d, vadd_ptx, "vadd", &key, 0, 0, &k, &err);
    double t_cached = now_s() - t0;
    CHECK(rc == 0, "cuda_load (cached): %s", sb_cstr(&err));
    if (rc != 0) goto done;
    CHECK(k.from_cache, "second load did not come from the cache");
    printf("load vadd: %.2f ms compiled (ptxas or the JIT; %zu-byte entry), %.2f ms from the cache "
           "(%s)\n",
           t_jit * 1e3, entry_len, t_cached * 1e3,
           k.from_cache ? "cache hit, no JIT" : "CACHE MISS");

    /* 2. 1<<20 floats */
    long bad = run_vadd(d, &k, 1, &err);
    CHECK(bad == 0, "vadd on %d floats: %ld wrong elements %s", N, bad, sb_cstr(&err));
    if (bad == 0) printf("vadd on %d floats: all correct\n", N);
    cuda_unload(d, &k);

    /* 3. a bogus entry under the key: dropped, rebuilt from the PTX, replaced */
    CHECK(cache_put(&key, "this is not a cubin", 19), "cache_put of a bogus entry");
    rc = cuda_load(d, vadd_ptx, "vadd", &key, 0, 0, &k, &err);
    CHECK(rc == 0, "cuda_load over a bogus cached entry: %s", sb_cstr(&err));
    if (rc == 0) {
        CHECK(!k.from_cache, "a bogus cached entry was reported as loaded from the cache");
        cubin = cache_get(&key, &entry_len);
        CHECK(is_ptx_entry(d, cubin, entry_len, 0), "bogus entry not replaced by the PTX");
        free(cubin);
        CHECK(run_vadd(d, &k, 2, &err) == 0, "vadd after the rebuild: %s", sb_cstr(&err));
        cuda_unload(d, &k);
        printf("bogus cached entry: dropped and rebuilt from the PTX\n");
    }

    /* 4. 96 KB of dynamic shared memory */
    {
        unsigned smem = 96 * 1024;
        SMOKE_KEY(skey, d, "cuda_smoke/smem/v1");
        SMOKE_KEY(nokey, d, "cuda_smoke/no-such-entry");
        rc = cuda_load(d, smem_ptx, "smem_mirror", &skey, smem, 0, &k, &err);
        CHECK(rc == 0, "cuda_load with %u bytes of shared memory: %s", smem, sb_cstr(&err));
        if (rc == 0) {
            enum { WARPS = 4, T = 32 * WARPS };
            uint64_t dout = 0;
            uint32_t out[T];
            unsigned grid[3] = {1, 1, 1};
            void *params[] = {&dout, &smem};
            rc = cuda_malloc(d, sizeof out, &dout, &err) ||
                 cuda_launch(d, &k, grid, WARPS, params, NULL, &err) || cuda_synchronize(d, &err) ||
                 cuda_dtoh(d, out, dout, sizeof out, &err);
            CHECK(rc == 0, "shared-memory kernel: %s", sb_cstr(&err));
            int wrong = 0;
            for (int t = 0; rc == 0 && t < T; t++)
                wrong += out[t] != (uint32_t)(3 * (T - 1 - t) + 7);
            CHECK(rc == 0 && wrong == 0, "shared-memory kernel: %d wrong values", wrong);
            if (rc == 0 && wrong == 0)
                printf("kernel with %u bytes of dynamic shared memory: correct\n", smem);
            cuda_unload(d, &k);
            /* from the cache alone (no PTX): the entry carries the shared-memory size */
            int hit = cuda_load_cached(d, "smem_mirror", &skey, &k, &err);
            CHECK(hit == 1 && k.from_cache && k.shared_bytes == smem,
                  "cuda_load_cached: %d, %u bytes: %s", hit, k.shared_bytes, sb_cstr(&err));
            if (hit == 1) {
                memset(out, 0, sizeof out);
                rc = cuda_launch(d, &k, grid, WARPS, params, NULL, &err) ||
                     cuda_synchronize(d, &err) || cuda_dtoh(d, out, dout, sizeof out, &err);
                wrong = 0;
                for (int t = 0; rc == 0 && t < T; t++)
                    wrong += out[t] != (uint32_t)(3 * (T - 1 - t) + 7);
                CHECK(rc == 0 && wrong == 0,
                      "shared-memory kernel from the cache alone: %d wrong: %s", wrong,
                      sb_cstr(&err));
                cuda_unload(d, &k);
            }
            CHECK(cuda_load_cached(d, "smem_mirror", &nokey, &k, &err) == 0,
                  "cuda_load_cached of a missing entry is a miss");
            cuda_free(d, dout, &err);
        }
    }

    /* 5. failures: a PTX syntax error, an unknown kernel */
    {
        StrBuf e;
        sb_init(&e);
        CudaKernel bk;
        SMOKE_KEY(bad_key, d, "cuda_smoke/bad/v1");
        rc = cuda_load(d, bad_ptx, "vadd", &bad_key, 0, 0, &bk, &e);
        const char *m = sb_cstr(&e);
        CHECK(rc == -1, "cuda_load of bad PTX should fail");
        CHECK(bk.module == NULL && bk.function == NULL, "failed cuda_load left a kernel behind");
        CHECK(strstr(m, "JIT error log") && strstr(m, "line 30"),
              "no JIT log (with the line) in: %s", m);
        void *cached = cache_get(&bad_key, NULL);
        CHECK(!cached, "a failed build was cached");
        free(cached);
        printf("bad PTX, the message:\n    %s\n", m);
        sb_free(&e);

        sb_init(&e);
        rc = cuda_load(d, vadd_ptx, "no_such_kernel", &key, 0, 0, &bk, &e);
        m = sb_cstr(&e);
        CHECK(rc == -1 && strstr(m, "no_such_kernel") && strstr(m, "CUDA_ERROR_NOT_FOUND"),
              "unknown kernel: '%s'", m);
        printf("unknown kernel, the message:\n    %s\n", m);
        sb_free(&e);

        sb_init(&e);
        unsigned grid[3] = {1, 1, 1};
        rc = cuda_load(d, nop_ptx, "nop", NULL, 0, 0, &bk, &e);
        CHECK(rc == 0, "cuda_load nop: %s", sb_cstr(&e));
        if (rc == 0) {
            CHECK(cuda_launch(d, &bk, grid, 33, NULL, NULL, &e) == -1,
                  "num_warps 33 should be refused");
            cuda_unload(d, &bk);
        }
        printf("num_warps 33, the message:\n    %s\n", sb_cstr(&e));
        sb_free(&e);
    }

    /* the PTX target the compiler uses for this device (sm_90a on Hopper) JIT-compiles */
    {
        StrBuf ptx, e;
        sb_init(&ptx);
        sb_init(&e);
        sb_printf(&ptx,
                  ".version 8.0\n.target %s\n.address_size 64\n\n.visible .entry nop_arch(.param "
                  ".u64 p)\n{\n"
                  "    ret;\n}\n",
                  cuda_arch_name(d));
        CudaKernel ak;
        uint64_t arg = 0;
        void *params[] = {&arg};
        unsigned grid[3] = {1, 1, 1};
        rc = cuda_load(d, sb_cstr(&ptx), "nop_arch", NULL, 0, 0, &ak, &e);
        CHECK(rc == 0, "PTX with .target %s: %s", cuda_arch_name(d), sb_cstr(&e));
        if (rc == 0) {
            rc = cuda_launch(d, &ak, grid, 4, params, NULL, &e) || cuda_synchronize(d, &e);
            CHECK(rc == 0, "launch of the .target %s kernel: %s", cuda_arch_name(d), sb_cstr(&e));
            if (rc == 0)
                printf("PTX with .target %s: JIT-compiled and launched\n", cuda_arch_name(d));
            cuda_unload(d, &ak);
        }
        sb_free(&ptx);
        sb_free(&e);
    }

    /* 6. two devices, two threads */
    {
        ThreadJob jobs[2];
        pthread_t th[2];
        int started = 0;
        for (int i = 0; i < 2; i++) {
            jobs[i].d = NULL, jobs[i].id = i, jobs[i].failures = 0;
            sb_init(&jobs[i].err);
            if (cuda_open(0, &jobs[i].d, &jobs[i].err)) {
                CHECK(false, "second cuda_open(0): %s", sb_cstr(&jobs[i].err));
                continue;
            }
        }
        for (int i = 0; i < 2; i++)
            if (jobs[i].d && pthread_create(&th[i], NULL, thread_main, &jobs[i]) == 0)
                started |= 1 << i;
        for (int i = 0; i < 2; i++) {
            if (started & (1 << i)) pthread_join(th[i], NULL);
            CHECK((started & (1 << i)) && jobs[i].failures == 0, "thread %d: %d failures: %s", i,
                  jobs[i].failures, sb_cstr(&jobs[i].err));
            cuda_close(jobs[i].d);
            sb_free(&jobs[i].err);
        }
        if (started == 3) printf("two devices from two threads, 8 vadds each: done\n");
    }

    /* 7. host cost of a launch */
    {
        CudaKernel nk;
        SMOKE_KEY(nop_key, d, "cuda_smoke/nop/v1");
        rc = cuda_load(d, nop_ptx, "nop", &nop_key, 0, 0, &nk, &err);
        CHECK(rc == 0, "cuda_load nop: %s", sb_cstr(&err));
        if (rc == 0) {
            uint64_t arg = 0;
            void *params[] = {&arg};
            unsigned grid[3] = {1, 1, 1};
            int fails = 0;
            for (int i = 0; i < 20; i++)
                fails += cuda_launch(d, &nk, grid, 1, params, NULL, &err) != 0;
            fails += cuda_synchronize(d, &err) != 0;
            enum { LAUNCHES = 1000 };
            t0 = now_s();
            for (int i = 0; i < LAUNCHES; i++)
                fails += cuda_launch(d, &nk, grid, 1, params, NULL, &err) != 0;
            double t_launch = now_s() - t0;
            fails += cuda_synchronize(d, &err) != 0;
            double t_all = now_s() - t0;
            CHECK(fails == 0, "launch loop: %s", sb_cstr(&err));
            printf("%d launches of an empty kernel: %.2f us per launch on the host, %.2f us "
                   "including the final "
                   "synchronize\n",
                   LAUNCHES, t_launch * 1e6 / LAUNCHES, t_all * 1e6 / LAUNCHES);
            cuda_unload(d, &nk);
        }
    }

done:
    cuda_close(d);
    sb_free(&err);
    unsetenv("NEREID_CACHE_DIR");
    remove_dir(cache);
    return check_done("cuda_smoke", &st);
}
