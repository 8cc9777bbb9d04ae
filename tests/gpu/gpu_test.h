/* gpu_test.h - the harness of the GPU tests (tests/gpu/test_*.c): run one kernel on two
 * contexts, the CPU interpreter (the reference semantics) and a CUDA GPU, on identical
 * inputs, and compare every output buffer.
 *
 * A test builds cases and runs them:
 *
 *   GtCase *c = gt_case("vector_add fp32", "n=98439");     name and size for the table
 *   gt_file(c, "examples/vector_add.nr", "add_kernel");    or gt_source(c, text, kernel)
 *   gt_define(c, "BLOCK_SIZE", "%d", 1024);                constexpr values
 *   gt_warps(c, 4);                                        nr_compile_options.num_warps
 *   gt_stages(c, 3);                                       nr_compile_options.num_stages
 *   int x = gt_in(c, "x", GT_F32, n, host);                an input: uploaded to both
 *   int z = gt_out(c, "z", GT_F32, n, gt_exact(), NULL);   an output, compared afterwards
 *   gt_arg_buf(c, x); gt_arg_buf(c, z); gt_arg(c, nr_arg_i32(n));
 *   gt_grid(c, programs, 1, 1);
 *   gt_run(c);                                             runs, compares, prints, frees
 *
 * Outputs start with the same contents on both devices (the given data, or a fixed byte
 * pattern), so elements a kernel must leave alone are compared too. Each output is
 * compared either bit for bit (gt_exact: NaNs of any payload count as equal) or within
 * |gpu - cpu| <= atol + rtol * |cpu| (gt_tol), plus a bound per element where one is
 * given (gt_dot_bound: a dot's summation error), or as sorted integers (gt_sorted:
 * results whose order depends on scheduling). A case prints one row of the table, or one row per
 * output (c->rows_per_output = 1); a failing output prints its worst element. c->check is
 * an extra check on the results (a plain-C reference, say); c->expect_gpu_error names a
 * text the GPU's compile error must contain (a kernel the GPU back end must refuse).
 *
 * Options of the programs that start with gt_init (test_gpu_vs_cpu):
 *   --cpu-vs-cpu   run the "GPU" side on a second CPU context: a self-check of the test
 *                  and its kernels on a machine without a GPU (everything must match)
 *   --dump DIR     write every kernel source to DIR with a compile.sh that compiles each
 *                  to PTX with the CLI (checks the GPU back end's code generation here;
 *                  with EMIT='--emit=cubin --arch=sm_80 -o F' ptxas assembles each too)
 *   --filter TEXT  run only the cases whose name contains TEXT (TEXT|TEXT2|...: any of them;
 *                  an empty TEXT: every case)
 *   -v             print every output's numbers, not only the failing ones
 * Without a usable CUDA device the program prints "SKIP: no CUDA device (reason)" and
 * exits 0, unless NEREID_REQUIRE_GPU=1 (then it fails).
 *
 * Everything is static: each test program includes this header once. */
#ifndef NEREID_GPU_TEST_H
#define NEREID_GPU_TEST_H

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nereid.h"

/* Under AddressSanitizer the CUDA driver needs the shadow gap left unprotected and leaks
 * a little in cuInit (as in tests/unit/test_cuda_nodevice.c); inert otherwise. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "protect_shadow_gap=0"; }
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libcuda.so\n"; }

#define GT_COUNT(a) ((int)(sizeof(a) / sizeof *(a)))

/* ---- element types ---- */

typedef enum GtType {
    GT_F16,
    GT_BF16,
    GT_F32,
    GT_F64,
    GT_I1,
    GT_I8,
    GT_I16,
    GT_I32,
    GT_I64,
    GT_U8,
    GT_U16,
    GT_U32,
    GT_U64,
} GtType;

static inline size_t gt_size(GtType t) {
    static const size_t sizes[] = {2, 2, 4, 8, 1, 1, 2, 4, 8, 1, 2, 4, 8};
    return sizes[t];
}
static inline int gt_is_float(GtType t) { return t <= GT_F64; }
static inline const char *gt_type_name(GtType t) {
    static const char *const names[] = {"fp16", "bf16", "fp32", "fp64", "i1",  "i8", "i16",
                                        "i32",  "i64",  "u8",   "u16",  "u32", "u64"};
    return names[t];
}

/* fp16 / bf16 <-> float, rounding to nearest even (NaN stays NaN) */
static inline uint16_t gt_f2h(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t a = x & 0x7fffffffu, e = a >> 23, m = a & 0x7fffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    uint32_t h, rem, half;
    if (e >= 113) {
        h = ((e - 112) << 10) | (m >> 13), rem = m & 0x1fffu, half = 0x1000u;
    } else {
        if (e < 102) return sign;
        uint32_t shift = 126 - e;
        m |= 0x800000u;
        h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    }
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
}
static inline float gt_h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 31) x = sign | 0x7f800000u | (m << 13);
    else if (e) x = sign | ((e + 112) << 23) | (m << 13);
    else {
        float f = (float)m * 5.9604644775390625e-8f;
        return sign ? -f : f;
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}
static inline uint16_t gt_f2bf(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}
static inline float gt_bf2f(uint16_t h) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* element i of a buffer of type t as a double (for error sizes), and as raw bits */
static inline double gt_get(GtType t, const void *p, size_t i) {
    const unsigned char *b = (const unsigned char *)p + i * gt_size(t);
    union {
        uint16_t h;
        float f;
        double d;
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
    } v;
    memcpy(&v, b, gt_size(t));
    switch (t) {
    case GT_F16: return gt_h2f(v.h);
    case GT_BF16: return gt_bf2f(v.h);
    case GT_F32: return v.f;
    case GT_F64: return v.d;
    case GT_I1:
    case GT_U8: return v.u8;
    case GT_I8: return v.i8;
    case GT_I16: return v.i16;
    case GT_I32: return v.i32;
    case GT_I64: return (double)v.i64;
    case GT_U16: return v.u16;
    case GT_U32: return v.u32;
    case GT_U64: return (double)v.u64;
    }
    return 0;
}
static inline uint64_t gt_bits(GtType t, const void *p, size_t i) {
    uint64_t v = 0;
    memcpy(&v, (const unsigned char *)p + i * gt_size(t), gt_size(t));
    return v;
}
/* store a double into element i (rounding as the type does; integers truncate) */
static inline void gt_put(GtType t, void *p, size_t i, double x) {
    unsigned char *b = (unsigned char *)p + i * gt_size(t);
    switch (t) {
    case GT_F16: {
        uint16_t h = gt_f2h((float)x);
        memcpy(b, &h, 2);
        return;
    }
    case GT_BF16: {
        uint16_t h = gt_f2bf((float)x);
        memcpy(b, &h, 2);
        return;
    }
    case GT_F32: {
        float f = (float)x;
        memcpy(b, &f, 4);
        return;
    }
    case GT_F64: memcpy(b, &x, 8); return;
    case GT_I1: *b = x != 0; return;
    case GT_I8:
    case GT_U8: {
        int64_t v = (int64_t)x;
        *b = (unsigned char)v;
        return;
    }
    case GT_I16:
    case GT_U16: {
        uint16_t v = (uint16_t)(int64_t)x;
        memcpy(b, &v, 2);
        return;
    }
    case GT_I32:
    case GT_U32: {
        uint32_t v = (uint32_t)(int64_t)x;
        memcpy(b, &v, 4);
        return;
    }
    case GT_I64: {
        int64_t v = (int64_t)x;
        memcpy(b, &v, 8);
        return;
    }
    case GT_U64: {
        uint64_t v = x < 0 ? (uint64_t)(int64_t)x : (uint64_t)x;
        memcpy(b, &v, 8);
        return;
    }
    }
}
static inline int gt_isnan_elem(GtType t, const void *p, size_t i) {
    return gt_is_float(t) && isnan(gt_get(t, p, i));
}

/* ---- deterministic inputs (splitmix64) ---- */

typedef struct GtRng {
    uint64_t s;
} GtRng;

static inline uint64_t gt_u64(GtRng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* uniform in [lo, hi) with 24 random bits */
static inline double gt_uniform(GtRng *r, double lo, double hi) {
    return lo + (hi - lo) * ((double)(gt_u64(r) >> 40) * 5.9604644775390625e-8);
}
static inline long gt_int(GtRng *r, long lo, long hi) { /* in [lo, hi) */
    return lo + (long)(gt_u64(r) % (uint64_t)(hi - lo));
}

/* A host buffer of n elements of t, each gen(rng) (rounded to the type). */
static inline void *gt_fill(GtType t, size_t n, GtRng *r, double lo, double hi) {
    void *p = calloc(n ? n : 1, gt_size(t));
    if (!p) abort();
    for (size_t i = 0; i < n; i++) gt_put(t, p, i, gt_uniform(r, lo, hi));
    return p;
}
/* integers in [lo, hi) */
static inline void *gt_fill_int(GtType t, size_t n, GtRng *r, long lo, long hi) {
    void *p = calloc(n ? n : 1, gt_size(t));
    if (!p) abort();
    for (size_t i = 0; i < n; i++) gt_put(t, p, i, (double)gt_int(r, lo, hi));
    return p;
}
/* multiples of 1/4 in [lo, hi): sums of a few thousand are exact in fp32 in any order */
static inline void *gt_fill_quarters(GtType t, size_t n, GtRng *r, long lo, long hi) {
    void *p = calloc(n ? n : 1, gt_size(t));
    if (!p) abort();
    for (size_t i = 0; i < n; i++) gt_put(t, p, i, (double)gt_int(r, 4 * lo, 4 * hi) / 4.0);
    return p;
}

/* Removes a flat directory (a disk cache's) and the files in it. */
static inline void gt_remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

static inline long gt_cdiv(long a, long b) { return (a + b - 1) / b; }
static inline long gt_next_pow2(long n) {
    long p = 1;
    while (p < n) p *= 2;
    return p;
}

/* ---- tolerances ---- */

typedef struct GtTol {
    int exact;
    double atol, rtol;
} GtTol;

static inline GtTol gt_exact(void) {
    GtTol t = {1, 0, 0};
    return t;
}
static inline GtTol gt_tol(double atol, double rtol) {
    GtTol t = {0, atol, rtol};
    return t;
}

/* ---- the state of a test program ---- */

typedef struct GtState {
    nr_context *dev[2]; /* 0: the CPU interpreter (reference); 1: the GPU (or a 2nd CPU) */
    int cpu_vs_cpu, verbose;
    const char *dump_dir, *filter;
    int ncases_dumped;
    char root[2048]; /* the repository root: where examples/ is */
    int passed, failed;
    const char *prog;
} GtState;

static GtState gt;

static inline void gt_line(void) {
    printf("%-60s %-26s %11s %11s %-9s %s\n", "kernel", "size", "max abs err", "max rel err",
           "bit-exact", "result");
}

/* Find the repository root: $NEREID_ROOT, the current directory, or two levels above
 * the program (build-gpu/gpu-tests/NAME). */
static inline void gt_find_root(const char *argv0) {
    struct stat st;
    const char *env = getenv("NEREID_ROOT");
    if (env && *env) {
        snprintf(gt.root, sizeof gt.root, "%s", env);
        return;
    }
    if (stat("examples/vector_add.nr", &st) == 0) {
        snprintf(gt.root, sizeof gt.root, ".");
        return;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", argv0);
    char *slash = strrchr(buf, '/');
    if (slash) {
        *slash = 0;
        char path[4200];
        snprintf(path, sizeof path, "%s/../../examples/vector_add.nr", buf);
        if (stat(path, &st) == 0) {
            snprintf(gt.root, sizeof gt.root, "%s/../..", buf);
            return;
        }
    }
    snprintf(gt.root, sizeof gt.root, ".");
}

/* A context on CUDA device 0, or: print "SKIP: no CUDA device (reason)" and exit 0 (exit
 * 1 instead when NEREID_REQUIRE_GPU is set to anything but 0). */
static inline nr_context *gt_open_cuda_or_skip(const char *name) {
    char err[1024] = "";
    nr_context *ctx = NULL;
    nr_status s = nr_context_create_ex(NR_DEVICE_CUDA, 0, &ctx, err, sizeof err);
    if (s == NR_OK) return ctx;
    char *nl = strchr(err, '\n');
    if (nl) *nl = 0;
    const char *req = getenv("NEREID_REQUIRE_GPU");
    if (req && *req && strcmp(req, "0") != 0) {
        printf("%s: FAILED: NEREID_REQUIRE_GPU is set and there is no CUDA device (%s: %s)\n", name,
               nr_status_string(s), err);
        exit(1);
    }
    printf("SKIP: no CUDA device (%s)\n", *err ? err : nr_status_string(s));
    exit(0);
}

/* Parse the options and open both devices; returns 0 to go on, or exits (SKIP: 0). */
static inline void gt_init(int argc, char **argv, const char *name) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    gt.prog = name;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cpu-vs-cpu")) gt.cpu_vs_cpu = 1;
        else if (!strcmp(argv[i], "-v")) gt.verbose = 1;
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc) gt.dump_dir = argv[++i];
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) gt.filter = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--cpu-vs-cpu] [--dump DIR] [--filter TEXT] [-v]\n", name);
            exit(2);
        }
    }
    gt_find_root(argc > 0 ? argv[0] : name);
    if (gt.dump_dir) {
        mkdir(gt.dump_dir, 0755);
        char path[4200];
        snprintf(path, sizeof path, "%s/compile.sh", gt.dump_dir);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(
                f,
                "#!/bin/sh\n# compile every kernel of %s to PTX: sh compile.sh [NEREID_BINARY]\n"
                "# (EMIT replaces the output options, e.g. EMIT='--emit=cubin --arch=sm_80 -o "
                "k.cubin';\n"
                "# STRICT=--strict-ptxas makes ptxas's performance advisories errors, except in "
                "the\n"
                "# cases that expect one)\n"
                "N=${1:-build/nereid}\nEMIT=${EMIT:---emit=ptx -o /dev/null}\nfail=0\n",
                name);
            fclose(f);
        }
    }
    if (gt.cpu_vs_cpu) {
        if (nr_context_create(NR_DEVICE_CPU, 0, &gt.dev[1]) != NR_OK) {
            printf("%s: FAILED (no second CPU context)\n", name);
            exit(1);
        }
    } else {
        gt.dev[1] = gt_open_cuda_or_skip(name);
    }
    if (nr_context_create(NR_DEVICE_CPU, 0, &gt.dev[0]) != NR_OK) {
        printf("%s: FAILED (no CPU context)\n", name);
        exit(1);
    }
}

static inline int gt_finish(void) {
    nr_context_destroy(gt.dev[0]);
    nr_context_destroy(gt.dev[1]);
    if (gt.dump_dir) {
        char path[4200];
        snprintf(path, sizeof path, "%s/compile.sh", gt.dump_dir);
        FILE *f = fopen(path, "a");
        if (f) {
            fprintf(f, "echo \"$fail of %d kernels failed to compile\"\nexit $fail\n",
                    gt.ncases_dumped);
            fclose(f);
        }
    }
    printf("%s: %d passed, %d failed\n", gt.prog, gt.passed, gt.failed);
    return gt.failed ? 1 : 0;
}

/* ---- cases ---- */

enum { GT_MAX_BUFS = 40, GT_MAX_ARGS = 48, GT_MAX_DEFS = 12 };

typedef struct GtBuf {
    char name[40];
    GtType t;
    size_t n;
    void *init; /* owned: uploaded to both devices */
    int is_out, sort;
    GtTol tol;
    double *elem_atol; /* owned, or NULL: an absolute bound per element, added to tol's */
    nr_devptr d[2];
    void *res[2]; /* downloaded outputs */
} GtBuf;

typedef struct GtArg {
    int buf; /* >= 0: that buffer's address + off elements; -1: val */
    long off;
    nr_arg val;
    bool is_desc; /* a tensor descriptor over buf (+ off): td with its base filled in */
    nr_tensor_desc td;
} GtArg;

typedef struct GtCase GtCase;
/* an extra check on the downloaded results: returns 1 if it passed (and prints why not) */
typedef int (*GtCheck)(GtCase *c);

struct GtCase {
    char name[96], size[48];
    char *src;
    char path[2200];
    char kernel[64];
    char defname[GT_MAX_DEFS][48], defval[GT_MAX_DEFS][64];
    int ndefs;
    int num_warps, launch_warps, launches, num_stages;
    int maxnreg, fp_fusion, reflect_ftz; /* nr_compile_options' (0: the defaults) */
    bool ptxas_advisory_expected;        /* --dump: compile.sh leaves out $STRICT
                                            (gt_ptxas_advisory_expected) */
    unsigned grid[3];
    GtArg args[GT_MAX_ARGS];
    int nargs;
    GtBuf bufs[GT_MAX_BUFS];
    int nbufs;
    int rows_per_output;
    const char *expect_gpu_error; /* the GPU must refuse to compile it, with this in the message */
    GtCheck check;
    void *user;
};

static inline GtCase *gt_case(const char *name, const char *size_fmt, ...) {
    GtCase *c = calloc(1, sizeof *c);
    if (!c) abort();
    snprintf(c->name, sizeof c->name, "%s", name);
    va_list ap;
    va_start(ap, size_fmt);
    vsnprintf(c->size, sizeof c->size, size_fmt, ap);
    va_end(ap);
    c->grid[0] = c->grid[1] = c->grid[2] = 1;
    c->launches = 1;
    return c;
}

/* the kernel source: a file under the repository root, or text (copied) */
static inline void gt_file(GtCase *c, const char *rel_path, const char *kernel) {
    snprintf(c->path, sizeof c->path, "%s/%s", gt.root, rel_path);
    snprintf(c->kernel, sizeof c->kernel, "%s", kernel);
}

/* text with each "@KEY@" replaced: pairs of (key, value) strings, NULL-terminated */
static inline char *gt_subst(const char *text, const char *key, const char *val) {
    char k[64];
    snprintf(k, sizeof k, "@%s@", key);
    size_t kl = strlen(k), vl = strlen(val), count = 0;
    for (const char *p = strstr(text, k); p; p = strstr(p + kl, k)) count++;
    char *out = malloc(strlen(text) + count * vl + 1), *w = out;
    if (!out) abort();
    for (const char *p = text; *p;) {
        if (!strncmp(p, k, kl)) memcpy(w, val, vl), w += vl, p += kl;
        else *w++ = *p++;
    }
    *w = 0;
    return out;
}

static inline void gt_source(GtCase *c, const char *text, const char *kernel, ...) {
    char *out = malloc(strlen(text) + 1);
    if (!out) abort();
    strcpy(out, text);
    va_list ap;
    va_start(ap, kernel);
    for (const char *k; (k = va_arg(ap, const char *));) {
        char *next = gt_subst(out, k, va_arg(ap, const char *));
        free(out);
        out = next;
    }
    va_end(ap);
    free(c->src);
    c->src = out;
    snprintf(c->kernel, sizeof c->kernel, "%s", kernel);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline void
gt_define(GtCase *c, const char *name, const char *fmt, ...) {
    if (c->ndefs == GT_MAX_DEFS) abort();
    snprintf(c->defname[c->ndefs], sizeof c->defname[0], "%s", name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->defval[c->ndefs], sizeof c->defval[0], fmt, ap);
    va_end(ap);
    c->ndefs++;
}

static inline void gt_warps(GtCase *c, int w) { c->num_warps = w; }
static inline void gt_stages(GtCase *c, int s) { c->num_stages = s; }
/* The case's kernel is expected to draw a ptxas performance advisory (e.g. an
 * accumulator tile too large for one warpgroup's registers): compile.sh does not ask for
 * --strict-ptxas for it. */
static inline void gt_ptxas_advisory_expected(GtCase *c) { c->ptxas_advisory_expected = true; }
static inline void gt_grid(GtCase *c, unsigned x, unsigned y, unsigned z) {
    c->grid[0] = x, c->grid[1] = y, c->grid[2] = z;
}

static inline int gt_buf_(GtCase *c, const char *name, GtType t, size_t n, const void *init,
                          int is_out, GtTol tol) {
    if (c->nbufs == GT_MAX_BUFS) abort();
    GtBuf *b = &c->bufs[c->nbufs];
    snprintf(b->name, sizeof b->name, "%s", name);
    b->t = t, b->n = n, b->is_out = is_out, b->tol = tol;
    b->init = calloc(n ? n : 1, gt_size(t));
    if (!b->init) abort();
    if (init) memcpy(b->init, init, n * gt_size(t));
    else memset(b->init, 0x5a, n * gt_size(t)); /* a pattern: untouched elements compare equal */
    return c->nbufs++;
}
/* an input (not compared); data is copied */
static inline int gt_in(GtCase *c, const char *name, GtType t, size_t n, const void *data) {
    return gt_buf_(c, name, t, n, data, 0, gt_exact());
}
/* an output compared with tol; init NULL: a byte pattern */
static inline int gt_out(GtCase *c, const char *name, GtType t, size_t n, GtTol tol,
                         const void *init) {
    return gt_buf_(c, name, t, n, init, 1, tol);
}
static inline void gt_sorted(GtCase *c, int buf) { c->bufs[buf].sort = 1; }

/* The bound on a dot's result C[M, N] = A[M, K] x B[K, N] (+ an accumulator within the
 * same bound) that any order of summation meets, for output buffer `out` (C row-major
 * with ldc): per element, (4 K 2^-24 + input_rel) * sum_k |a_mk b_kn|. The K products are
 * exact in fp32 for fp16/bf16 inputs; the interpreter adds them in k order, rounding
 * each add, and the tensor cores add them in blocks with alignment and truncation (Fasi
 * et al., "Numerical behavior of NVIDIA tensor cores", 2021: round toward zero, within
 * 2 units of 2^-24 per add); each result is then within 2 K 2^-24 sum|ab| of the exact
 * sum, and the two within twice that. input_rel covers inputs rounded first: tf32 keeps
 * 10 mantissa bits (round to nearest: 2^-11 per input, 2^-10 per product). A and B are
 * read as type t from element (m, k) at a[m * sam + k * sak], (k, n) at b[k * sbk + n *
 * sbn]. */
static inline void gt_dot_bound(GtCase *c, int out, GtType t, const void *a, long sam, long sak,
                                const void *b, long sbk, long sbn, long M, long N, long K, long ldc,
                                double input_rel) {
    GtBuf *o = &c->bufs[out];
    o->elem_atol = calloc(o->n ? o->n : 1, sizeof(double));
    if (!o->elem_atol) abort();
    double per = 4.0 * (double)K * ldexp(1.0, -24) + input_rel;
    for (long m = 0; m < M; m++)
        for (long n = 0; n < N; n++) {
            double s = 0;
            for (long k = 0; k < K; k++)
                s += fabs(gt_get(t, a, (size_t)(m * sam + k * sak)) *
                          gt_get(t, b, (size_t)(k * sbk + n * sbn)));
            if ((size_t)(m * ldc + n) < o->n) o->elem_atol[m * ldc + n] = per * s;
        }
}

static inline void gt_arg_buf_off(GtCase *c, int buf, long off) {
    if (c->nargs == GT_MAX_ARGS) abort();
    c->args[c->nargs].buf = buf, c->args[c->nargs].off = off;
    c->nargs++;
}
static inline void gt_arg_buf(GtCase *c, int buf) { gt_arg_buf_off(c, buf, 0); }
/* a tensor descriptor over buffer buf from element off: rank dims, shape and strides in
 * elements (the last stride 1), padding NR_PAD_ZERO or NR_PAD_NAN */
static inline void gt_arg_desc(GtCase *c, int buf, long off, int rank, const int64_t *shape,
                               const int64_t *strides, int padding) {
    gt_arg_buf_off(c, buf, off);
    GtArg *a = &c->args[c->nargs - 1];
    a->is_desc = true;
    memset(&a->td, 0, sizeof a->td);
    a->td.rank = rank, a->td.padding = padding;
    for (int i = 0; i < rank; i++) a->td.shape[i] = shape[i], a->td.strides[i] = strides[i];
}
static inline void gt_arg(GtCase *c, nr_arg v) {
    if (c->nargs == GT_MAX_ARGS) abort();
    c->args[c->nargs].buf = -1, c->args[c->nargs].val = v;
    c->nargs++;
}
/* every buffer of the case as an argument, in creation order */
static inline void gt_arg_all_bufs(GtCase *c) {
    for (int i = 0; i < c->nbufs; i++) gt_arg_buf(c, i);
}

/* the downloaded result of buffer b on device d (0: CPU, 1: GPU) */
static inline void *gt_result(GtCase *c, int b, int d) { return c->bufs[b].res[d]; }

static inline void gt_free_case(GtCase *c) {
    for (int i = 0; i < c->nbufs; i++) {
        free(c->bufs[i].init);
        free(c->bufs[i].res[0]);
        free(c->bufs[i].res[1]);
        free(c->bufs[i].elem_atol);
    }
    free(c->src);
    free(c);
}

/* ---- comparing ---- */

typedef struct GtCmp {
    long bad, worst;
    double max_abs, max_rel, got, want, worst_score;
    int bitexact;
} GtCmp;

static int gt_cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static inline GtCmp gt_compare(GtBuf *b) {
    GtCmp r;
    memset(&r, 0, sizeof r);
    r.worst = -1, r.worst_score = -1;
    void *got = b->res[1], *want = b->res[0];
    if (b->sort) { /* order-free results (atomics' old values): compare as sorted integers */
        uint64_t *g = malloc(8 * (b->n ? b->n : 1)), *w = malloc(8 * (b->n ? b->n : 1));
        if (!g || !w) abort();
        for (size_t i = 0; i < b->n; i++)
            g[i] = gt_bits(b->t, got, i), w[i] = gt_bits(b->t, want, i);
        qsort(g, b->n, 8, gt_cmp_u64);
        qsort(w, b->n, 8, gt_cmp_u64);
        for (size_t i = 0; i < b->n; i++)
            memcpy((char *)got + i * gt_size(b->t), &g[i], gt_size(b->t));
        for (size_t i = 0; i < b->n; i++)
            memcpy((char *)want + i * gt_size(b->t), &w[i], gt_size(b->t));
        free(g), free(w);
    }
    r.bitexact = memcmp(got, want, b->n * gt_size(b->t)) == 0;
    for (size_t i = 0; i < b->n; i++) {
        double g = gt_get(b->t, got, i), w = gt_get(b->t, want, i);
        int ok;
        double err = 0, score;
        if (gt_is_float(b->t) && (isnan(g) || isnan(w))) {
            ok = isnan(g) && isnan(w);
            err = ok ? 0 : INFINITY;
        } else if (gt_is_float(b->t) && (isinf(g) || isinf(w))) {
            ok = g == w;
            err = ok ? 0 : INFINITY;
        } else {
            err = fabs(g - w);
            if (b->tol.exact) ok = gt_bits(b->t, got, i) == gt_bits(b->t, want, i);
            else
                ok = err <=
                     b->tol.atol + (b->elem_atol ? b->elem_atol[i] : 0) + b->tol.rtol * fabs(w);
        }
        if (err > r.max_abs && !isinf(err)) r.max_abs = err;
        if (isinf(err)) r.max_abs = INFINITY;
        if (w != 0 && isfinite(w) && isfinite(err) && err / fabs(w) > r.max_rel)
            r.max_rel = err / fabs(w);
        if (!ok) r.bad++;
        double tol = b->tol.exact ? 0
                                  : b->tol.atol + (b->elem_atol ? b->elem_atol[i] : 0) +
                                        b->tol.rtol * fabs(w);
        score = ok ? (tol > 0 ? err / tol : 0)
                   : 1e300 * (isinf(err) ? 2 : 1) + (tol > 0 ? err / tol : err);
        if (score > r.worst_score) r.worst_score = score, r.worst = (long)i, r.got = g, r.want = w;
    }
    return r;
}

static inline void gt_print_worst(const GtBuf *b, const GtCmp *r) {
    if (r->worst < 0) return;
    const void *got = b->res[1], *want = b->res[0];
    if (gt_is_float(b->t))
        printf(
            "    %s (%s): %ld of %zu wrong; worst [%ld]: gpu %.9g (0x%llx), cpu %.9g (0x%llx)%s\n",
            b->name, gt_type_name(b->t), r->bad, b->n, r->worst, r->got,
            (unsigned long long)gt_bits(b->t, got, (size_t)r->worst), r->want,
            (unsigned long long)gt_bits(b->t, want, (size_t)r->worst), b->sort ? " (sorted)" : "");
    else
        printf(
            "    %s (%s): %ld of %zu wrong; worst [%ld]: gpu %lld (0x%llx), cpu %lld (0x%llx)%s\n",
            b->name, gt_type_name(b->t), r->bad, b->n, r->worst, (long long)r->got,
            (unsigned long long)gt_bits(b->t, got, (size_t)r->worst), (long long)r->want,
            (unsigned long long)gt_bits(b->t, want, (size_t)r->worst), b->sort ? " (sorted)" : "");
}

static inline void gt_row(const char *name, const char *size, double max_abs, double max_rel,
                          int any_float, int bitexact, int ok) {
    char a[32], r[32];
    if (any_float)
        snprintf(a, sizeof a, "%11.3g", max_abs), snprintf(r, sizeof r, "%11.3g", max_rel);
    else snprintf(a, sizeof a, "%11.0f", max_abs), snprintf(r, sizeof r, "%11s", "-");
    printf("%-60.60s %-26.26s %s %s %-9s %s\n", name, size, a, r, bitexact ? "yes" : "no",
           ok ? "PASS" : "FAIL");
    if (ok) gt.passed++;
    else gt.failed++;
}

/* A case that could not run: one FAIL row with the reason. */
static inline void gt_fail_row(GtCase *c, const char *what, nr_status s, const char *msg) {
    gt_row(c->name, c->size, 0, 0, 0, 0, 0);
    printf("    %s: %s\n", what, nr_status_string(s));
    if (msg && *msg) {
        /* indent the message (compile diagnostics span several lines), at most 30 lines */
        int lines = 0;
        printf("      ");
        for (const char *p = msg; *p && lines < 30; p++) {
            putchar(*p);
            if (*p == '\n' && p[1]) printf("      "), lines++;
        }
        if (msg[strlen(msg) - 1] != '\n') putchar('\n');
    }
}

static inline void gt_dump(GtCase *c) {
    char file[4200], sh[4200];
    const char *src_path = c->path;
    int k = gt.ncases_dumped++;
    if (c->src) {
        char nm[128];
        size_t j = 0;
        for (const char *p = c->name; *p && j < sizeof nm - 1; p++)
            nm[j++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
                                     (*p >= 'A' && *p <= 'Z')
                                 ? *p
                                 : '_');
        nm[j] = 0;
        snprintf(file, sizeof file, "%s/%03d_%s.nr", gt.dump_dir, k, nm);
        FILE *f = fopen(file, "w");
        if (!f) return;
        fputs(c->src, f);
        fclose(f);
        src_path = file;
    }
    snprintf(sh, sizeof sh, "%s/compile.sh", gt.dump_dir);
    FILE *f = fopen(sh, "a");
    if (!f) return;
    fprintf(f, "\"$N\" compile '%s' -k %s", src_path, c->kernel);
    for (int i = 0; i < c->ndefs; i++) fprintf(f, " -D '%s=%s'", c->defname[i], c->defval[i]);
    if (c->launch_warps || c->num_warps)
        fprintf(f, " --num-warps=%d", c->launch_warps ? c->launch_warps : c->num_warps);
    if (c->num_stages) fprintf(f, " --num-stages=%d", c->num_stages);
    if (c->maxnreg) fprintf(f, " --maxnreg=%d", c->maxnreg);
    if (c->fp_fusion) fprintf(f, " --enable-fp-fusion=%d", c->fp_fusion > 0);
    if (c->reflect_ftz) fprintf(f, " --enable-reflect-ftz=%d", c->reflect_ftz > 0);
    fprintf(f, "%s $EMIT || { echo 'FAILED: %s'; fail=$((fail+1)); }\n",
            c->ptxas_advisory_expected ? "" : " $STRICT", c->name);
    fclose(f);
}

/* A kernel that faults leaves the CUDA context unusable (a sticky error). The only
 * reference to the device's primary context is ours: destroying our context releases it,
 * and where the driver then gives a fresh context the other cases still run. NVIDIA's
 * driver refuses the device to the rest of the process instead: the program stops with
 * the failure reported. */
static inline void gt_reopen_gpu(void) {
    char err[1024] = "";
    nr_context_destroy(gt.dev[1]);
    gt.dev[1] = NULL;
    if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &gt.dev[1], err, sizeof err) != NR_OK) {
        printf("    the GPU context could not be recreated after that failure (%s): stopping\n",
               err);
        nr_context_destroy(gt.dev[0]);
        printf("%s: %d passed, %d failed (stopped early)\n", gt.prog, gt.passed, gt.failed + 1);
        exit(1);
    }
    printf("    (the GPU context was recreated after that failure)\n");
}

/* Whether --filter selects a case of this name: no filter, or one of its '|'-separated
 * parts occurs in the name. */
static inline bool gt_selected(const char *name) {
    if (!gt.filter || !*gt.filter) return true;
    for (const char *p = gt.filter;;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        for (const char *s = name; n && *s; s++)
            if (!strncmp(s, p, n)) return true;
        if (!bar) return false;
        p = bar + 1;
    }
}

/* Compile, run on both devices, compare, print; frees the case. Returns 1 if it passed. */
static inline int gt_run(GtCase *c) {
    int ok = 1, broken = 0;
    nr_module *mod[2] = {NULL, NULL};
    if (!gt_selected(c->name) || (gt.cpu_vs_cpu && c->expect_gpu_error)) {
        gt_free_case(c);
        return 1;
    }
    if (gt.dump_dir) gt_dump(c);
    nr_define defs[GT_MAX_DEFS];
    for (int i = 0; i < c->ndefs; i++) defs[i].name = c->defname[i], defs[i].value = c->defval[i];
    nr_compile_options opts = {.defines = defs,
                               .num_defines = c->ndefs,
                               .kernel = c->kernel,
                               .num_warps = c->num_warps,
                               .num_stages = c->num_stages,
                               .maxnreg = c->maxnreg,
                               .enable_fp_fusion = c->fp_fusion,
                               .enable_reflect_ftz = c->reflect_ftz};
    int ran = 1;
    for (int d = 0; d < 2 && ran; d++) {
        nr_context *ctx = gt.dev[d];
        const char *where = d ? (gt.cpu_vs_cpu ? "cpu#2" : "gpu") : "cpu";
        char what[160];
        nr_status s = c->src
                          ? nr_compile_source(ctx, c->src, strlen(c->src), c->name, &opts, &mod[d])
                          : nr_compile_file(ctx, c->path, &opts, &mod[d]);
        if (s) {
            snprintf(what, sizeof what, "compiling on the %s", where);
            gt_fail_row(c, what, s, nr_last_error(ctx));
            ran = 0;
            break;
        }
        nr_kernel *k = NULL;
        if ((s = nr_module_get_kernel(mod[d], c->kernel, &k))) {
            gt_fail_row(c, "no such kernel", s, nr_last_error(ctx));
            ran = 0;
            break;
        }
        for (int b = 0; b < c->nbufs && ran; b++) {
            GtBuf *bf = &c->bufs[b];
            size_t bytes = bf->n * gt_size(bf->t);
            if ((s = nr_malloc(ctx, bytes, &bf->d[d])) ||
                (s = nr_memcpy_htod(ctx, bf->d[d], bf->init, bytes))) {
                snprintf(what, sizeof what, "allocating '%s' on the %s", bf->name, where);
                gt_fail_row(c, what, s, nr_last_error(ctx));
                ran = 0;
            }
        }
        if (!ran) break;
        nr_arg args[GT_MAX_ARGS];
        nr_tensor_desc tds[GT_MAX_ARGS];
        for (int i = 0; i < c->nargs; i++) {
            if (c->args[i].buf >= 0 && c->args[i].is_desc) {
                GtBuf *bf = &c->bufs[c->args[i].buf];
                tds[i] = c->args[i].td;
                tds[i].base = bf->d[d] + (nr_devptr)c->args[i].off * gt_size(bf->t);
                args[i] = nr_arg_tensor_desc(&tds[i]);
            } else if (c->args[i].buf >= 0) {
                GtBuf *bf = &c->bufs[c->args[i].buf];
                args[i] = nr_arg_ptr(bf->d[d] + (nr_devptr)c->args[i].off * gt_size(bf->t));
            } else {
                args[i] = c->args[i].val;
            }
        }
        nr_launch_options lo = {.num_warps = c->launch_warps};
        for (int l = 0; l < c->launches && ran; l++) {
            s = nr_launch(k, c->grid, args, c->nargs, &lo);
            if (!s) s = nr_synchronize(ctx);
            if (d == 1 && c->expect_gpu_error) {
                int good = s == NR_ERR_COMPILE && strstr(nr_last_error(ctx), c->expect_gpu_error);
                gt_row(c->name, c->size, 0, 0, 0, good, good);
                if (!good)
                    printf(
                        "    expected the GPU to refuse it (compile error with '%s'), got %s: %s\n",
                        c->expect_gpu_error, nr_status_string(s), nr_last_error(ctx));
                else if (gt.verbose) printf("    refused as expected: %s\n", nr_last_error(ctx));
                ran = 0;
                ok = good;
                goto cleanup;
            }
            if (s) {
                snprintf(what, sizeof what, "launching on the %s", where);
                gt_fail_row(c, what, s, nr_last_error(ctx));
                ran = 0;
                broken |= d == 1 && s == NR_ERR_LAUNCH;
            }
        }
        for (int b = 0; b < c->nbufs && ran; b++) {
            GtBuf *bf = &c->bufs[b];
            if (!bf->is_out) continue;
            size_t bytes = bf->n * gt_size(bf->t);
            bf->res[d] = malloc(bytes ? bytes : 1);
            if (!bf->res[d]) abort();
            if ((s = nr_memcpy_dtoh(ctx, bf->res[d], bf->d[d], bytes))) {
                snprintf(what, sizeof what, "reading '%s' back from the %s", bf->name, where);
                gt_fail_row(c, what, s, nr_last_error(ctx));
                ran = 0;
                broken |= d == 1;
            }
        }
    }
    if (!ran) {
        ok = 0;
        goto cleanup;
    }
    if (c->expect_gpu_error) { /* the CPU ran it; the GPU did not refuse */
        ok = 0;
        goto cleanup;
    }
    {
        GtCmp all;
        memset(&all, 0, sizeof all);
        all.bitexact = 1;
        int any_float = 0;
        GtCmp cmps[GT_MAX_BUFS];
        for (int b = 0; b < c->nbufs; b++) {
            GtBuf *bf = &c->bufs[b];
            if (!bf->is_out) continue;
            cmps[b] = gt_compare(bf);
            if (c->rows_per_output) {
                char nm[160];
                snprintf(nm, sizeof nm, "%s: %s", c->name, bf->name);
                gt_row(nm, c->size, cmps[b].max_abs, cmps[b].max_rel, gt_is_float(bf->t),
                       cmps[b].bitexact, cmps[b].bad == 0);
                if (cmps[b].bad || gt.verbose) gt_print_worst(bf, &cmps[b]);
                ok &= cmps[b].bad == 0;
                continue;
            }
            any_float |= gt_is_float(bf->t);
            if (cmps[b].max_abs > all.max_abs) all.max_abs = cmps[b].max_abs;
            if (cmps[b].max_rel > all.max_rel) all.max_rel = cmps[b].max_rel;
            all.bitexact &= cmps[b].bitexact;
            all.bad += cmps[b].bad;
        }
        int extra = c->check ? c->check(c) : 1;
        if (!c->rows_per_output) {
            ok = all.bad == 0 && extra;
            gt_row(c->name, c->size, all.max_abs, all.max_rel, any_float, all.bitexact, ok);
            for (int b = 0; b < c->nbufs; b++)
                if (c->bufs[b].is_out && (cmps[b].bad || gt.verbose))
                    gt_print_worst(&c->bufs[b], &cmps[b]);
        } else if (!extra) {
            gt_row(c->name, "(extra check)", 0, 0, 0, 0, 0);
            ok = 0;
        }
    }
cleanup:
    for (int d = 0; d < 2; d++) {
        for (int b = 0; b < c->nbufs; b++)
            if (c->bufs[b].d[d]) nr_free(gt.dev[d], c->bufs[b].d[d]);
        nr_module_destroy(mod[d]);
    }
    gt_free_case(c);
    if (broken && !gt.cpu_vs_cpu) gt_reopen_gpu();
    return ok;
}

#endif
