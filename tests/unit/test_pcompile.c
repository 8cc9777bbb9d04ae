/* test_pcompile.c - compiles at once on several threads (NEREID_COMPILE_THREADS): an
 * autotuned kernel's configs, nr_compile_many, nr_prepare_many, and the GPU back end,
 * each checked against the same work done one after another. `make test` also runs it
 * under ThreadSanitizer (build-tsan/), where it must be clean.
 *
 *   - the CPU device: a tuned matmul of 8 configs compiles (its configs' front ends at
 *     once) and tunes to a correct result with 1 thread and with 4; nr_compile_many of the
 *     8 configs as plain modules gives the same IR as compiling them one by one, and a bad
 *     source among them fails alone; a tuned module with a bad config names the same
 *     config whatever the thread count;
 *   - the GPU back end with no device: the 8 configs' PTX made on 4 threads at once is
 *     the PTX made one after another, byte for byte (LLVM re-entrant: a context and a
 *     target machine per compile);
 *   - a CUDA context on the stand-in driver (tests/mock/cuda_mock.c, when it is built
 *     next to this program: the test runs itself again with it on LD_LIBRARY_PATH):
 *     nr_prepare_many of the tuned kernel compiles its 8 variants (GPU back end and the
 *     stand-in ptxas tests/mock/ptxas at once) and the disk cache they leave holds the
 *     same entries (the same PTX and cubins) as a serial run's; a tuned launch then
 *     compiles nothing more. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "compiler/support/parallel.h"
#include "driver/driver.h"
#include "driver/gpu_compile.h"
#include "nereid.h"

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

enum { NCONFIG = 8, DIM = 40 };

/* A small matmul: fp16 inputs, fp32 sums; configs as in Triton's tutorials. */
#define MM_BODY                                                                                   \
    "@triton.jit\n"                                                                               \
    "def mm(a: *fp16, b: *fp16, c: *fp32, M: i32, N: i32, K: i32,\n"                              \
    "       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n"              \
    "    pm = tl.program_id(0)\n"                                                                 \
    "    pn = tl.program_id(1)\n"                                                                 \
    "    rm = pm * BLOCK_M + tl.arange(0, BLOCK_M)\n"                                             \
    "    rn = pn * BLOCK_N + tl.arange(0, BLOCK_N)\n"                                             \
    "    rk = tl.arange(0, BLOCK_K)\n"                                                            \
    "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"                                  \
    "    for k in range(0, K, BLOCK_K):\n"                                                        \
    "        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :],\n"                              \
    "                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)\n"          \
    "        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :],\n"                              \
    "                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)\n"          \
    "        acc += tl.dot(x, y)\n"                                                               \
    "    tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] " \
    "< "                                                                                          \
    "N))\n"

static const char *tuned_src =
    "import triton\nimport triton.language as tl\n"
    "@triton.autotune(configs=[triton.Config({'BLOCK_M': m, 'BLOCK_N': n, 'BLOCK_K': 16},\n"
    "                                        num_warps=w, num_stages=2)\n"
    "                          for m in (16, 32) for n in (16, 32) for w in (2, 4)],\n"
    "                 key=['M', 'N', 'K'])\n" MM_BODY;

static const char *plain_src = "import triton\nimport triton.language as tl\n" MM_BODY;

/* config i as defines of the plain kernel, as the tuned list orders them */
static void config_of(int i, int *m, int *n, int *w) {
    *m = i & 4 ? 32 : 16, *n = i & 2 ? 32 : 16, *w = i & 1 ? 4 : 2;
}

static void set_threads(int n) {
    char v[16];
    snprintf(v, sizeof v, "%d", n);
    setenv("NEREID_COMPILE_THREADS", v, 1);
}

static uint16_t half_of(int v) { /* small integers, exact in fp16 */
    if (!v) return 0;
    int s = v < 0;
    unsigned a = (unsigned)(s ? -v : v), e = 0;
    while ((a >> e) > 1) e++;
    unsigned mant = (a << (10 - e)) & 0x3ff;
    return (uint16_t)((s << 15) | ((e + 15) << 10) | mant);
}

/* ---- the CPU device ---- */

static void tuned_on_cpu(int threads) {
    set_threads(threads);
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    nr_module *mod;
    nr_status s = nr_compile_source(ctx, tuned_src, strlen(tuned_src), "tuned.py", NULL, &mod);
    CHECK(s == NR_OK, "%d threads: the tuned module compiles: %s", threads, nr_last_error(ctx));
    if (s) return nr_context_destroy(ctx);
    nr_kernel *k;
    nr_module_get_kernel(mod, "mm", &k);
    CHECK(nr_kernel_num_configs(k) == NCONFIG, "8 configs, got %d", nr_kernel_num_configs(k));
    static uint16_t ha[DIM * DIM], hb[DIM * DIM];
    static float hc[DIM * DIM];
    for (int i = 0; i < DIM * DIM; i++) ha[i] = half_of(i % 7 - 3), hb[i] = half_of(i % 5 - 2);
    nr_devptr a, b, c;
    nr_malloc(ctx, sizeof ha, &a), nr_malloc(ctx, sizeof hb, &b), nr_malloc(ctx, sizeof hc, &c);
    nr_memcpy_htod(ctx, a, ha, sizeof ha), nr_memcpy_htod(ctx, b, hb, sizeof hb);
    nr_arg args[] = {nr_arg_ptr(a),   nr_arg_ptr(b),   nr_arg_ptr(c),
                     nr_arg_i32(DIM), nr_arg_i32(DIM), nr_arg_i32(DIM)};
    nr_prepare_job job = {k, args, 6, NULL, NR_ERR_DEVICE};
    s = nr_prepare_many(&job, 1);
    CHECK(s == NR_OK && job.status == NR_OK, "every config prepared: %s", nr_last_error(ctx));
    unsigned grid[3] = {(DIM + 15) / 16, (DIM + 15) / 16, 1}; /* covers any config's tiles */
    s = nr_launch(k, grid, args, 6, NULL);
    CHECK(s == NR_OK, "%d threads: the tuned launch runs: %s", threads, nr_last_error(ctx));
    nr_memcpy_dtoh(ctx, hc, c, sizeof hc);
    const nr_config *cf = nr_kernel_last_config(k);
    int64_t bm = 0, bn = 0;
    nr_config_int(cf, "BLOCK_M", &bm), nr_config_int(cf, "BLOCK_N", &bn);
    int bad = 0, rows = (int)(grid[0] * bm), cols = (int)(grid[1] * bn);
    for (int i = 0; i < DIM && i < rows; i++)
        for (int j = 0; j < DIM && j < cols; j++) {
            float want = 0;
            for (int q = 0; q < DIM; q++)
                want += (float)((i * DIM + q) % 7 - 3) * ((q * DIM + j) % 5 - 2);
            bad += hc[i * DIM + j] != want;
        }
    CHECK(!bad, "%d threads: %d wrong elements (config BLOCK_M=%lld BLOCK_N=%lld)", threads, bad,
          (long long)bm, (long long)bn);
    nr_context_destroy(ctx);
}

/* Each config's kernel IR from nr_compile_many (threads as set); texts[i] malloc'd. */
static void ir_of_configs(nr_context *ctx, char **texts) {
    nr_define defs[NCONFIG][3];
    char vals[NCONFIG][2][8];
    nr_compile_options opts[NCONFIG];
    nr_compile_job jobs[NCONFIG];
    for (int i = 0; i < NCONFIG; i++) {
        int m, n, w;
        config_of(i, &m, &n, &w);
        snprintf(vals[i][0], 8, "%d", m), snprintf(vals[i][1], 8, "%d", n);
        defs[i][0] = (nr_define){"BLOCK_M", vals[i][0]};
        defs[i][1] = (nr_define){"BLOCK_N", vals[i][1]};
        defs[i][2] = (nr_define){"BLOCK_K", "16"};
        opts[i] = (nr_compile_options){
            .defines = defs[i], .num_defines = 3, .kernel = "mm", .num_warps = w, .num_stages = 2};
        jobs[i] = (nr_compile_job){plain_src, strlen(plain_src), "plain.py", &opts[i], NULL, -1};
    }
    nr_status s = nr_compile_many(ctx, jobs, NCONFIG);
    CHECK(s == NR_OK, "nr_compile_many: %s", nr_last_error(ctx));
    for (int i = 0; i < NCONFIG; i++) {
        texts[i] = NULL;
        CHECK(jobs[i].status == NR_OK && jobs[i].module, "job %d compiled", i);
        nr_kernel *k;
        if (!jobs[i].module || nr_module_get_kernel(jobs[i].module, "mm", &k)) continue;
        nr_arg args[] = {nr_arg_ptr(0),   nr_arg_ptr(0),   nr_arg_ptr(0),
                         nr_arg_i32(DIM), nr_arg_i32(DIM), nr_arg_i32(DIM)};
        nr_prepare(k, args, 6, NULL);
        nr_kernel_code(k, "ir", &texts[i], NULL);
        nr_module_destroy(jobs[i].module);
    }
}

static void compile_many_on_cpu(void) {
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    char *serial[NCONFIG], *par[NCONFIG];
    set_threads(1);
    ir_of_configs(ctx, serial);
    set_threads(4);
    ir_of_configs(ctx, par);
    for (int i = 0; i < NCONFIG; i++) {
        CHECK(serial[i] && par[i] && !strcmp(serial[i], par[i]),
              "config %d: the same IR on 4 threads as on 1", i);
        free(serial[i]), free(par[i]);
    }
    /* a bad source among good ones fails alone, with its own diagnostics */
    const char *bad = "@triton.jit\ndef k(x: *fp32):\n    y = not_defined + 1\n";
    nr_compile_job jobs[3] = {{plain_src, strlen(plain_src), "a.py", NULL, NULL, -1},
                              {bad, strlen(bad), "bad.py", NULL, NULL, -1},
                              {plain_src, strlen(plain_src), "c.py", NULL, NULL, -1}};
    nr_compile_options o = {
        .defines = (nr_define[]){{"BLOCK_M", "16"}, {"BLOCK_N", "16"}, {"BLOCK_K", "16"}},
        .num_defines = 3};
    jobs[0].opts = jobs[2].opts = &o;
    nr_status s = nr_compile_many(ctx, jobs, 3);
    CHECK(s == NR_ERR_COMPILE && jobs[1].status == NR_ERR_COMPILE && !jobs[1].module,
          "the bad job fails: %d %d", s, jobs[1].status);
    CHECK(strstr(nr_last_error(ctx), "bad.py:3") && strstr(nr_last_error(ctx), "not_defined"),
          "its diagnostics: %s", nr_last_error(ctx));
    CHECK(jobs[0].status == NR_OK && jobs[0].module && jobs[2].status == NR_OK && jobs[2].module,
          "the good ones compile");
    nr_context_destroy(ctx); /* and frees their modules */
}

/* A tuned module whose configs 2 and 5 do not compile reports config 2, serially or not. */
static void bad_config(int threads) {
    set_threads(threads);
    const char *src =
        "import triton\nimport triton.language as tl\n"
        "@triton.autotune(configs=[triton.Config({'B': b}) for b in (16, 32, 24, 64, 128, 48)],\n"
        "                 key=['n'])\n"
        "@triton.jit\n"
        "def k(x: *fp32, n: i32, B: tl.constexpr):\n"
        "    o = tl.arange(0, B)\n"
        "    tl.store(x + o, o * 1.0, mask=o < n)\n";
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    nr_module *mod = NULL;
    nr_status s = nr_compile_source(ctx, src, strlen(src), "cfg.py", NULL, &mod);
    CHECK(s == NR_ERR_COMPILE && strstr(nr_last_error(ctx), "in config 2 of kernel 'k'"),
          "%d threads: config 2 named: %s", threads, nr_last_error(ctx));
    nr_context_destroy(ctx);
}

/* ---- the GPU back end, no device ---- */

typedef struct PtxJobs {
    NrProgram prog[NCONFIG];
    StrBuf ptx[NCONFIG];
    bool ok[NCONFIG];
} PtxJobs;

static void ptx_one(void *user, int i) {
    PtxJobs *p = user;
    IrFunc *f = NULL;
    for (uint32_t j = 0; j < p->prog[i].ir->nfuncs; j++)
        if (p->prog[i].ir->funcs[j]->is_kernel) f = p->prog[i].ir->funcs[j];
    uint8_t facts[6] = {SPEC_DIV16, SPEC_DIV16, SPEC_DIV16, SPEC_NONE, SPEC_NONE, SPEC_NONE};
    GpuSpec spec = {6, facts, GPU_SPECULATE_VERSION, false};
    int m, n, w;
    config_of(i, &m, &n, &w);
    GpuTarget t = {.arch = "sm_90a", .num_warps = w, .num_stages = 2};
    GpuResult r;
    Diag d;
    diag_init(&d);
    p->ok[i] = gpu_compile_kernel(f, &spec, &t, GPU_DUMP_NONE, NULL, NULL, &r, &d);
    sb_init(&p->ptx[i]);
    if (p->ok[i]) p->ptx[i] = r.ptx;
    diag_free(&d);
}

static void ptx_of_configs(PtxJobs *p, int threads) {
    Source src = {"plain.py", plain_src, strlen(plain_src)};
    for (int i = 0; i < NCONFIG; i++) {
        int m, n, w;
        char vm[8], vn[8];
        config_of(i, &m, &n, &w);
        snprintf(vm, 8, "%d", m), snprintf(vn, 8, "%d", n);
        SemaDefine defs[] = {{"BLOCK_M", vm}, {"BLOCK_N", vn}, {"BLOCK_K", "16"}};
        NrCompileOptions o = {.defines = defs,
                              .ndefines = 3,
                              .num_warps = w,
                              .num_stages = 2,
                              .stop_after = NR_STAGE_IR_OPT};
        Diag d;
        diag_init(&d);
        bool ok = driver_compile(&src, &o, &d, NULL, &p->prog[i]);
        CHECK(ok, "config %d's front end: %s", i, sb_cstr(&d.out));
        diag_free(&d);
    }
    parallel_for(NCONFIG, threads, ptx_one, p);
    for (int i = 0; i < NCONFIG; i++) driver_program_free(&p->prog[i]);
}

static void ptx_in_parallel(void) {
    static PtxJobs serial, par;
    ptx_of_configs(&serial, 1);
    ptx_of_configs(&par, 4);
    for (int i = 0; i < NCONFIG; i++) {
        CHECK(serial.ok[i] && par.ok[i] && serial.ptx[i].len > 1000 &&
                  !strcmp(sb_cstr(&serial.ptx[i]), sb_cstr(&par.ptx[i])),
              "config %d: the same PTX on 4 threads as on 1", i);
        sb_free(&serial.ptx[i]), sb_free(&par.ptx[i]);
    }
}

/* ---- a CUDA context on the stand-in driver ---- */

/* A file's bytes (malloc'd; NULL if unreadable). */
static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    StrBuf b;
    sb_init(&b);
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) sb_putn(&b, chunk, got);
    fclose(f);
    *len = b.len;
    return b.data ? b.data : calloc(1, 1);
}

/* How many kernel entries ("NRPTXCB2", holding a cubin of the stand-in ptxas) of cache
 * directory a are in b, the same name and bytes; *total: how many a has. */
static int same_entries(const char *a, const char *b, int *total) {
    struct dirent **names;
    int n = scandir(a, &names, NULL, alphasort), same = 0;
    *total = 0;
    for (int i = 0; i < n; i++) {
        char pa[1024], pb[1024];
        snprintf(pa, sizeof pa, "%s/%s", a, names[i]->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, names[i]->d_name);
        size_t la = 0, lb = 0;
        char *da = names[i]->d_name[0] == '.' ? NULL : read_all(pa, &la);
        if (da && memmem(da, la, "NRPTXCB2", 8) && memmem(da, la, "NRMOCKCUBIN sm_90a", 18)) {
            char *db = read_all(pb, &lb);
            ++*total;
            same += db && la == lb && !memcmp(da, db, la);
            free(db);
        }
        free(da);
        free(names[i]);
    }
    if (n >= 0) free(names);
    return same;
}

/* The tuned kernel's 8 variants prepared in cache directory dir. */
static void prepare_on_cuda(int threads, char *dir) {
    set_threads(threads);
    if (!mkdtemp(dir)) return;
    setenv("NEREID_CACHE_DIR", dir, 1);
    nr_context *ctx;
    char why[256];
    nr_status s = nr_context_create_ex(NR_DEVICE_CUDA, 0, &ctx, why, sizeof why);
    CHECK(s == NR_OK, "a context on the stand-in driver: %s", why);
    if (s) return;
    nr_module *mod;
    s = nr_compile_source(ctx, tuned_src, strlen(tuned_src), "tuned.py", NULL, &mod);
    nr_kernel *k = NULL;
    if (!s) s = nr_module_get_kernel(mod, "mm", &k);
    nr_devptr a = 0, b = 0, c = 0;
    nr_malloc(ctx, DIM * DIM * 2, &a), nr_malloc(ctx, DIM * DIM * 2, &b);
    nr_malloc(ctx, DIM * DIM * 4, &c);
    nr_arg args[] = {nr_arg_ptr(a),   nr_arg_ptr(b),   nr_arg_ptr(c),
                     nr_arg_i32(DIM), nr_arg_i32(DIM), nr_arg_i32(DIM)};
    nr_prepare_job job = {k, args, 6, NULL, NR_ERR_DEVICE};
    if (!s) s = nr_prepare_many(&job, 1);
    nr_stats stats;
    nr_context_stats(ctx, &stats);
    CHECK(s == NR_OK && stats.gpu_compiles == NCONFIG && stats.jit_compiles == NCONFIG,
          "%d threads: 8 variants compiled and JIT-compiled: %s (%llu, %llu)", threads,
          nr_last_error(ctx), (unsigned long long)stats.gpu_compiles,
          (unsigned long long)stats.jit_compiles);
    /* the tuned launch finds every config compiled */
    unsigned grid[3] = {3, 3, 1};
    s = nr_launch(k, grid, args, 6, NULL);
    nr_context_stats(ctx, &stats);
    CHECK(s == NR_OK && stats.gpu_compiles == NCONFIG, "the launch compiled nothing more: %s",
          nr_last_error(ctx));
    nr_context_destroy(ctx);
}

static void on_mock_cuda(void) {
    char serial[] = "/tmp/nereid-pcompile-XXXXXX", par[] = "/tmp/nereid-pcompile-XXXXXX";
    prepare_on_cuda(1, serial);
    prepare_on_cuda(4, par);
    int total, same = same_entries(serial, par, &total);
    CHECK(total == NCONFIG && same == total,
          "the same %d kernel entries (PTX) with 4 threads as with 1: %d of them", total, same);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", serial, par);
    if (system(cmd)) fprintf(stderr, "could not remove %s and %s\n", serial, par);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--mock")) { /* the run on the stand-in driver */
        on_mock_cuda();
        return check_done("test_pcompile (CUDA on the stand-in driver)", &st);
    }
    char dir[] = "/tmp/nereid-pcompile-XXXXXX"; /* the tuner's choices go there */
    if (mkdtemp(dir)) setenv("NEREID_CACHE_DIR", dir, 1);
    tuned_on_cpu(1);
    tuned_on_cpu(4);
    compile_many_on_cpu();
    bad_config(1);
    bad_config(4);
    ptx_in_parallel();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    /* again with the stand-in driver first on the library path, when it is built */
    char self[1024], mock[1100];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) *slash = 0;
        snprintf(mock, sizeof mock, "%s/../mock/libcuda.so.1", self);
        if (access(mock, R_OK) == 0) {
            snprintf(mock, sizeof mock, "%s/../mock", self);
            setenv("LD_LIBRARY_PATH", mock, 1);
            char ptxas[1100]; /* the stand-in ptxas beside the mock's source: build/tests/../.. */
            snprintf(ptxas, sizeof ptxas, "%s/../../tests/mock/ptxas", self);
            setenv("NEREID_PTXAS", access(ptxas, X_OK) == 0 ? ptxas : "none", 1);
            char run[1200];
            snprintf(run, sizeof run, "%s/test_pcompile --mock", self);
            int rc = system(run);
            CHECK(rc == 0, "the run on the stand-in driver passed (exit status %d)", rc);
        } else {
            printf("test_pcompile: no stand-in driver at %s: the CUDA part not run\n", mock);
        }
    }
    return check_done("test_pcompile", &st);
}
