/* test_gpu_cache.c - the disk cache of compiled kernels (runtime/cache.c through
 * runtime/launch_cuda.c) on a real GPU, seen from the C API.
 *
 * NEREID_CACHE_DIR is set to a fresh temporary directory (and CUDA_CACHE_DISABLE=1, so the
 * driver's own JIT cache does not hide the cost of a JIT). Then, each "run" creating a
 * CUDA context, compiling examples/vector_add.nr and examples/softmax.nr, launching both,
 * reading the results back and destroying the context:
 *   1. the first run JIT-compiles: afterwards the directory holds *.cubin entries (one
 *      per kernel variant), each starting with the cache's magic "NRCACHE1";
 *   2. the second run gives bit-identical results and leaves every entry as it was (same
 *      inode, size and modification time): an entry is only written after a JIT, so an
 *      untouched directory means nothing was JIT-compiled; and nr_context_stats says
 *      nothing was compiled at all (the key is known before compiling: no LLVM ran);
 *   3. every entry is corrupted (a payload byte flipped): the third run still gives the
 *      same results, and the entries are rebuilt (valid again, new inodes);
 *   4. another specialisation (n not divisible by 16) and another num_warps add entries.
 * The times of runs 1 and 2 (compile + first launch + synchronize) are printed; they
 * decide nothing. The directory is removed at the end. Without a CUDA device: "SKIP: no
 * CUDA device (...)", exit 0. Ends with "test_gpu_cache: N passed, M failed". */
#include <dirent.h>
#include <errno.h>

#include "gpu_test.h"
#include "tests/unit/check.h"

enum { MAX_ENTRIES = 64 };

typedef struct Entry {
    char name[256];
    ino_t ino;
    off_t size;
    struct timespec mtime;
    int valid; /* starts with "NRCACHE1" */
} Entry;

typedef struct Snapshot {
    Entry e[MAX_ENTRIES];
    int n;
} Snapshot;

static char cache_dir[256];
static CheckState checks;
#define CHECK(cond, ...) CHECK_AT(&checks, cond, __VA_ARGS__)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static Snapshot snapshot(void) {
    Snapshot s;
    memset(&s, 0, sizeof s);
    DIR *d = opendir(cache_dir);
    if (!d) return s;
    for (struct dirent *de; (de = readdir(d)) && s.n < MAX_ENTRIES;) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 6, ".cubin") || de->d_name[0] == '.') continue;
        Entry *e = &s.e[s.n];
        snprintf(e->name, sizeof e->name, "%s", de->d_name);
        char path[600];
        snprintf(path, sizeof path, "%s/%s", cache_dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        e->ino = st.st_ino, e->size = st.st_size, e->mtime = st.st_mtim;
        FILE *f = fopen(path, "rb");
        char magic[8] = {0};
        if (f) {
            e->valid = fread(magic, 1, 8, f) == 8 && !memcmp(magic, "NRCACHE1", 8);
            fclose(f);
        }
        s.n++;
    }
    closedir(d);
    return s;
}

static const Entry *find(const Snapshot *s, const char *name) {
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->e[i].name, name)) return &s->e[i];
    return NULL;
}

/* The results of one run: vector_add's z and softmax's output. */
enum { N_ADD = 98432, ROWS = 257, COLS = 781 };
typedef struct Results {
    float z[N_ADD];
    float sm[ROWS * COLS];
} Results;

static int run_ok;

static void check_call(nr_context *ctx, nr_status s, const char *what) {
    if (s == NR_OK) return;
    run_ok = 0;
    printf("FAIL: %s: %s: %s\n", what, nr_status_string(s), ctx ? nr_last_error(ctx) : "");
}

/* One run in a fresh context; n_add: vector_add's n (its divisibility is specialised on),
 * warps: launch num_warps (0: as compiled). Returns the time of compile + launch + sync;
 * st gets the context's counts of compiles and cache hits. */
static double run(Results *out, long n_add, int warps, nr_stats *st) {
    static float x[N_ADD], y[N_ADD], sm_in[ROWS * COLS];
    GtRng r = {2718};
    for (int i = 0; i < N_ADD; i++)
        x[i] = (float)gt_uniform(&r, -10, 10), y[i] = (float)gt_uniform(&r, -10, 10);
    for (int i = 0; i < ROWS * COLS; i++) sm_in[i] = (float)gt_uniform(&r, -5, 5);
    memset(out, 0, sizeof *out);
    run_ok = 1;
    nr_context *ctx = gt_open_cuda_or_skip("test_gpu_cache");
    nr_devptr dx = 0, dy = 0, dz = 0, din = 0, dout = 0;
    check_call(ctx, nr_malloc(ctx, sizeof x, &dx), "nr_malloc");
    check_call(ctx, nr_malloc(ctx, sizeof y, &dy), "nr_malloc");
    check_call(ctx, nr_malloc(ctx, sizeof x, &dz), "nr_malloc");
    check_call(ctx, nr_malloc(ctx, sizeof sm_in, &din), "nr_malloc");
    check_call(ctx, nr_malloc(ctx, sizeof sm_in, &dout), "nr_malloc");
    check_call(ctx, nr_memcpy_htod(ctx, dx, x, sizeof x), "upload");
    check_call(ctx, nr_memcpy_htod(ctx, dy, y, sizeof y), "upload");
    check_call(ctx, nr_memcpy_htod(ctx, din, sm_in, sizeof sm_in), "upload");
    check_call(ctx, nr_memset(ctx, dz, 0, sizeof x), "memset");
    check_call(ctx, nr_synchronize(ctx), "synchronize");

    double t0 = now_ms();
    char path[2400];
    nr_module *m1 = NULL, *m2 = NULL;
    nr_kernel *add = NULL, *sm = NULL;
    nr_define d1[] = {{"BLOCK_SIZE", "1024"}}, d2[] = {{"BLOCK_SIZE", "1024"}, {"num_stages", "1"}};
    nr_compile_options o1 = {.defines = d1, .num_defines = 1, .num_stages = 0},
                       o2 = {.defines = d2, .num_defines = 2};
    snprintf(path, sizeof path, "%s/examples/vector_add.nr", gt.root);
    check_call(ctx, nr_compile_file(ctx, path, &o1, &m1), "compile vector_add.nr");
    snprintf(path, sizeof path, "%s/examples/softmax.nr", gt.root);
    check_call(ctx, nr_compile_file(ctx, path, &o2, &m2), "compile softmax.nr");
    if (run_ok) check_call(ctx, nr_module_get_kernel(m1, "add_kernel", &add), "add_kernel");
    if (run_ok) check_call(ctx, nr_module_get_kernel(m2, "softmax_kernel", &sm), "softmax_kernel");
    if (run_ok) {
        nr_arg a1[] = {nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dz), nr_arg_i32((int32_t)n_add)};
        unsigned g1[3] = {(unsigned)gt_cdiv(n_add, 1024), 1, 1};
        nr_arg a2[] = {nr_arg_ptr(dout), nr_arg_ptr(din),  nr_arg_i32(COLS),
                       nr_arg_i32(COLS), nr_arg_i32(ROWS), nr_arg_i32(COLS)};
        unsigned g2[3] = {ROWS, 1, 1};
        nr_launch_options lo = {.num_warps = warps};
        check_call(ctx, nr_launch(add, g1, a1, 4, &lo), "launch add_kernel");
        check_call(ctx, nr_launch(sm, g2, a2, 6, &lo), "launch softmax_kernel");
        check_call(ctx, nr_synchronize(ctx), "synchronize");
    }
    double t = now_ms() - t0;
    if (run_ok) {
        check_call(ctx, nr_memcpy_dtoh(ctx, out->z, dz, sizeof out->z), "download");
        check_call(ctx, nr_memcpy_dtoh(ctx, out->sm, dout, sizeof out->sm), "download");
        long bad = 0;
        for (long i = 0; i < n_add; i++) bad += out->z[i] != x[i] + y[i];
        CHECK(bad == 0, "vector_add: %ld elements are not x + y", bad);
    }
    memset(st, 0xff, sizeof *st);
    check_call(ctx, nr_context_stats(ctx, st), "nr_context_stats");
    nr_module_destroy(m1);
    nr_module_destroy(m2);
    nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, dz), nr_free(ctx, din), nr_free(ctx, dout);
    nr_context_destroy(ctx);
    CHECK(run_ok, "the run failed (see above)");
    return t;
}

static int same_entries(const Snapshot *a, const Snapshot *b) {
    if (a->n != b->n) return 0;
    for (int i = 0; i < a->n; i++) {
        const Entry *e = find(b, a->e[i].name);
        if (!e || e->ino != a->e[i].ino || e->size != a->e[i].size ||
            e->mtime.tv_sec != a->e[i].mtime.tv_sec || e->mtime.tv_nsec != a->e[i].mtime.tv_nsec)
            return 0;
    }
    return 1;
}

/* flip a byte in the middle of every entry: its checksum no longer matches */
static int corrupt_all(const Snapshot *s) {
    int done = 0;
    for (int i = 0; i < s->n; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", cache_dir, s->e[i].name);
        FILE *f = fopen(path, "r+b");
        if (!f) continue;
        long off = (long)s->e[i].size / 2 + 24;
        int c;
        if (fseek(f, off, SEEK_SET) == 0 && (c = fgetc(f)) != EOF && fseek(f, off, SEEK_SET) == 0 &&
            fputc(c ^ 0x5a, f) != EOF)
            done++;
        fclose(f);
    }
    return done;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    (void)argc;
    gt_find_root(argc > 0 ? argv[0] : "test_gpu_cache");
    setenv("CUDA_CACHE_DISABLE", "1", 1); /* the driver's own JIT cache would hide the JIT */
    nr_context_destroy(gt_open_cuda_or_skip("test_gpu_cache")); /* SKIP before any work */

    snprintf(cache_dir, sizeof cache_dir, "/tmp/nereid-cache-test-XXXXXX");
    if (!mkdtemp(cache_dir)) {
        printf("test_gpu_cache: FAILED (mkdtemp: %s)\n", strerror(errno));
        return 1;
    }
    setenv("NEREID_CACHE_DIR", cache_dir, 1);
    printf("cache directory: %s\n", cache_dir);
    static Results r1, r2, r3, r4;

    /* 1. cold */
    Snapshot s0 = snapshot();
    CHECK(s0.n == 0, "a fresh cache directory has %d entries", s0.n);
    nr_stats st;
    double t1 = run(&r1, N_ADD, 0, &st);
    CHECK(st.gpu_compiles == 2 && st.jit_compiles == 2 && st.disk_cache_hits == 0,
          "cold run: %llu compiles, %llu JITs, %llu cache hits; want 2, 2, 0",
          (unsigned long long)st.gpu_compiles, (unsigned long long)st.jit_compiles,
          (unsigned long long)st.disk_cache_hits);
    Snapshot s1 = snapshot();
    int valid = 0;
    for (int i = 0; i < s1.n; i++) valid += s1.e[i].valid;
    CHECK(s1.n >= 2,
          "after the first run the cache holds %d *.cubin entries, want one per kernel (2)", s1.n);
    CHECK(valid == s1.n, "%d of %d entries do not start with NRCACHE1", s1.n - valid, s1.n);
    printf("run 1 (cold cache): %.1f ms for compile + JIT + first launches; %d cache entries\n", t1,
           s1.n);

    /* 2. warm: the same results, nothing rewritten */
    double t2 = run(&r2, N_ADD, 0, &st);
    CHECK(st.gpu_compiles == 0 && st.jit_compiles == 0 && st.disk_cache_hits == 2,
          "warm run: %llu compiles, %llu JITs, %llu cache hits; want 0, 0, 2 (nothing compiled)",
          (unsigned long long)st.gpu_compiles, (unsigned long long)st.jit_compiles,
          (unsigned long long)st.disk_cache_hits);
    Snapshot s2 = snapshot();
    CHECK(!memcmp(&r1, &r2, sizeof r1), "the second run's results differ from the first's");
    CHECK(same_entries(&s1, &s2),
          "the second run changed the cache (%d -> %d entries, or rewritten): it JIT-compiled",
          s1.n, s2.n);
    printf("run 2 (warm cache): %.1f ms (%.1fx faster); results %s; cache entries %s\n", t2,
           t2 > 0 ? t1 / t2 : 0.0, memcmp(&r1, &r2, sizeof r1) ? "DIFFER" : "identical",
           same_entries(&s1, &s2) ? "untouched" : "CHANGED");

    /* 3. corrupt entries are dropped and rebuilt */
    int corrupted = corrupt_all(&s2);
    CHECK(corrupted == s2.n, "corrupted %d of %d entries", corrupted, s2.n);
    double t3 = run(&r3, N_ADD, 0, &st);
    CHECK(st.gpu_compiles == 2 && st.jit_compiles == 2 && st.disk_cache_hits == 0,
          "over corrupt entries: %llu compiles, %llu JITs, %llu hits; want 2, 2, 0",
          (unsigned long long)st.gpu_compiles, (unsigned long long)st.jit_compiles,
          (unsigned long long)st.disk_cache_hits);
    Snapshot s3 = snapshot();
    CHECK(!memcmp(&r1, &r3, sizeof r1), "the run over corrupt entries gave other results");
    int rebuilt = 0;
    for (int i = 0; i < s2.n; i++) {
        const Entry *e = find(&s3, s2.e[i].name);
        /* a new file may reuse the unlinked one's inode number: a new mtime counts too */
        rebuilt += e && e->valid &&
                   (e->ino != s2.e[i].ino || e->mtime.tv_sec != s2.e[i].mtime.tv_sec ||
                    e->mtime.tv_nsec != s2.e[i].mtime.tv_nsec);
    }
    CHECK(rebuilt == s2.n, "%d of %d corrupt entries were rebuilt", rebuilt, s2.n);
    printf("run 3 (corrupt entries): %.1f ms; %d of %d entries rebuilt\n", t3, rebuilt, s2.n);

    /* 4. other specialisations are other entries */
    (void)run(&r4, N_ADD - 8, 0, &st); /* n not divisible by 16 */
    CHECK(st.gpu_compiles == 1 && st.disk_cache_hits == 1,
          "n %% 16 != 0: %llu compiles, %llu hits; want 1, 1", (unsigned long long)st.gpu_compiles,
          (unsigned long long)st.disk_cache_hits);
    Snapshot s4 = snapshot();
    CHECK(s4.n == s3.n + 1, "n %% 16 != 0 should add one entry (vector_add's): %d -> %d", s3.n,
          s4.n);
    (void)run(&r4, N_ADD, 8, &st); /* launched with 8 warps: both kernels again */
    Snapshot s5 = snapshot();
    CHECK(s5.n == s4.n + 2, "num_warps 8 at launch should add two entries: %d -> %d", s4.n, s5.n);
    printf("run 4 (n %% 16 != 0, then num_warps 8): %d -> %d -> %d entries\n", s3.n, s4.n, s5.n);

    gt_remove_dir(cache_dir);
    return check_done("test_gpu_cache", &checks);
}
