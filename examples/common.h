/* common.h - host helpers shared by the example programs.
 *
 * Each example is one C file: it picks a device, compiles its kernel file from examples/
 * with constexpr values, uploads inputs, launches, reads the result back and compares it
 * with a plain-C reference. What they all need lives here, so that the example files show
 * only what is particular to their kernel:
 *
 *   ex_parse_args   --quiet (print only the final line) and optional size arguments
 *   ex_context      the device: NEREID_DEVICE=cpu|cuda|cuda:N, or unset: CUDA if present, else CPU
 *   EX_CHECK        call the API; on failure print the status and nr_last_error, exit 1
 *   ex_define       constexpr values, formatted like printf ("%d", 1024)
 *   ex_compile      compile examples/NAME.nr (the folder can be moved by NEREID_EXAMPLES)
 *   ex_upload ...   device memory in one call each, dying on failure
 *   ex_launch       launch and wait, returning the time taken in ms
 *   ex_f2h, ex_h2f  fp16 <-> fp32 for host data, rounding to nearest even
 *   ex_f2bf, ex_bf2f  bf16 <-> fp32, the same way
 *   ex_rng_*        a fixed-seed generator (splitmix64), so every run sees the same inputs
 *   ex_compare      compare with a reference under abs/rel tolerance, keeping the worst element
 *   ex_finish       the final line "NAME: OK (...)" or "NAME: FAILED ..." and the exit status
 *
 * Everything is static inline: a program uses what it needs and the rest costs nothing. */
#ifndef NEREID_EXAMPLES_COMMON_H
#define NEREID_EXAMPLES_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/unit/philox_ref.h"
#include "nereid.h"

#define EX_COUNT(a) ((int)(sizeof(a) / sizeof *(a)))
#define EX_MAX_SIZES 16

/* The program's name for its messages (argv[0] without its folder), set by ex_parse_args. */
static const char *ex_name = "example";

/* ---- the command line ---- */

typedef struct ex_args {
    int quiet;  /* --quiet: print only the final line */
    int nsizes; /* the integers given after the options, if any */
    long sizes[EX_MAX_SIZES];
} ex_args;

/* usage: what follows the program name in the usage line, e.g. "[--quiet] [N...]" */
static inline ex_args ex_parse_args(int argc, char **argv, const char *usage) {
    ex_args a = {0, 0, {0}};
    const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;
    if (argc > 0) ex_name = slash ? slash + 1 : argv[0];
    for (int i = 1; i < argc; i++) {
        char *end;
        long v = strtol(argv[i], &end, 10);
        if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            a.quiet = 1;
        } else if (*argv[i] && !*end && v > 0 && a.nsizes < EX_MAX_SIZES) {
            a.sizes[a.nsizes++] = v;
        } else {
            fprintf(stderr, "usage: %s %s\n", ex_name, usage);
            exit(strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ? 0 : 2);
        }
    }
    return a;
}

/* ---- dying on errors ---- */

/* EX_CHECK(ctx, nr_call(...)): an example has nothing sensible to do after a failed call
 * but say which call failed and why (nr_last_error holds compile diagnostics too). */
#define EX_CHECK(ctx, call) ex_check_((ctx), (call), #call, __FILE__, __LINE__)

/* Say what failed, with the context's message (compile diagnostics, ...), and exit. */
static inline void ex_fail(const nr_context *ctx, nr_status s, const char *what) {
    const char *msg = ctx ? nr_last_error(ctx) : "";
    if (*msg) fprintf(stderr, "%s\n", msg);
    printf("%s: FAILED (%s: %s)\n", ex_name, what, nr_status_string(s));
    exit(1);
}

static inline void ex_check_(const nr_context *ctx, nr_status s, const char *call, const char *file,
                             int line) {
    char what[512];
    if (s == NR_OK) return;
    snprintf(what, sizeof what, "%s:%d: %s", file, line, call);
    ex_fail(ctx, s, what);
}

static inline void *ex_xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        printf("%s: FAILED (out of host memory)\n", ex_name);
        exit(1);
    }
    return p;
}

/* ---- the device ---- */

/* "cpu", "cuda" (device 0) or "cuda:N", as NEREID_DEVICE names it. */
static inline const char *ex_device_name(const nr_context *ctx) {
    static const char *const names[] = {"cuda",   "cuda:1", "cuda:2", "cuda:3",
                                        "cuda:4", "cuda:5", "cuda:6", "cuda:7"};
    int i = nr_context_device_index(ctx);
    if (nr_context_device(ctx) != NR_DEVICE_CUDA) return "cpu";
    return i >= 0 && i < EX_COUNT(names) ? names[i] : "cuda:N";
}

/* NEREID_DEVICE as a device: "cpu", "cuda" (device 0) or "cuda:N"; 0, or -1 if it is
 * none of them. */
static inline int ex_parse_device(const char *text, nr_device_kind *kind, int *index) {
    char *end;
    *kind = NR_DEVICE_CPU, *index = 0;
    if (strcmp(text, "cpu") == 0) return 0;
    *kind = NR_DEVICE_CUDA;
    if (strcmp(text, "cuda") == 0) return 0;
    if (strncmp(text, "cuda:", 5) != 0 || text[5] < '0' || text[5] > '9') return -1;
    long n = strtol(text + 5, &end, 10);
    if (*end || n > 4096) return -1;
    *index = (int)n;
    return 0;
}

/* NEREID_DEVICE=cpu, cuda or cuda:N picks the device (a missing CUDA device is then an
 * error; cuda is device 0); unset, we try CUDA device 0 and fall back to the CPU
 * interpreter with a note, so `make demo` uses a GPU where there is one and still runs
 * everywhere. */
static inline nr_context *ex_context(const ex_args *a) {
    const char *env = getenv("NEREID_DEVICE");
    nr_context *ctx = NULL;
    nr_device_kind kind = NR_DEVICE_CUDA;
    int index = 0;
    if (env && *env && ex_parse_device(env, &kind, &index) != 0) {
        printf("%s: FAILED (NEREID_DEVICE must be cpu, cuda or cuda:N, not '%s')\n", ex_name, env);
        exit(1);
    }
    char why[512] = "";
    if (!env || !*env) {
        nr_status s = nr_context_create_ex(NR_DEVICE_CUDA, 0, &ctx, why, sizeof why);
        if (s != NR_OK && !a->quiet)
            printf("note: no CUDA device (%s): running on the CPU interpreter\n", why);
        kind = s == NR_OK ? NR_DEVICE_CUDA : NR_DEVICE_CPU;
    }
    if (!ctx) {
        nr_status s = nr_context_create_ex(kind, index, &ctx, why, sizeof why);
        if (s != NR_OK) {
            char what[64];
            snprintf(what, sizeof what, "NEREID_DEVICE=%.40s", env && *env ? env : "cpu");
            fprintf(stderr, "%s\n", why);
            ex_fail(NULL, s, kind == NR_DEVICE_CUDA ? what : "the CPU device");
        }
    }
    if (!a->quiet) printf("device: %s\n", ex_device_name(ctx)); /* tools/demo.sh reads this line */
    return ctx;
}

/* ---- compiling ---- */

/* Constexpr values for nr_compile_options, with room for their text. Do not copy one
 * after ex_define (the nr_define entries point into it). */
typedef struct ex_defines {
    int n;
    nr_define d[8];
    char text[8][64];
} ex_defines;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline void
ex_define(ex_defines *ds, const char *name, const char *fmt, ...) {
    if (ds->n == EX_COUNT(ds->d)) {
        printf("%s: FAILED (too many defines)\n", ex_name);
        exit(1);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ds->text[ds->n], sizeof ds->text[ds->n], fmt, ap);
    va_end(ap);
    ds->d[ds->n].name = name;
    ds->d[ds->n].value = ds->text[ds->n];
    ds->n++;
}

/* Compile FILE (e.g. "softmax.nr") from the examples folder: "examples", relative to the
 * repository root where the programs are run from, or $NEREID_EXAMPLES. */
static inline nr_module *ex_compile(nr_context *ctx, const char *file, const ex_defines *ds) {
    const char *dir = getenv("NEREID_EXAMPLES");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "examples", file);
    nr_compile_options opts = {.defines = ds ? ds->d : NULL, .num_defines = ds ? ds->n : 0};
    nr_module *m = NULL;
    nr_status s = nr_compile_file(ctx, path, &opts, &m);
    if (s != NR_OK) {
        char what[4200];
        snprintf(what, sizeof what, "compiling %s", path);
        ex_fail(ctx, s, what);
    }
    return m;
}

static inline nr_kernel *ex_kernel(nr_context *ctx, nr_module *m, const char *name) {
    nr_kernel *k = NULL;
    EX_CHECK(ctx, nr_module_get_kernel(m, name, &k));
    return k;
}

/* ---- device memory ---- */

static inline nr_devptr ex_alloc(nr_context *ctx, size_t bytes) {
    nr_devptr p = 0;
    EX_CHECK(ctx, nr_malloc(ctx, bytes, &p));
    return p;
}

static inline nr_devptr ex_upload(nr_context *ctx, const void *host, size_t bytes) {
    nr_devptr p = ex_alloc(ctx, bytes);
    EX_CHECK(ctx, nr_memcpy_htod(ctx, p, host, bytes));
    return p;
}

static inline void ex_download(nr_context *ctx, void *host, nr_devptr src, size_t bytes) {
    EX_CHECK(ctx, nr_memcpy_dtoh(ctx, host, src, bytes));
}

static inline void ex_free(nr_context *ctx, nr_devptr p) { EX_CHECK(ctx, nr_free(ctx, p)); }

/* ---- launching ---- */

static inline double ex_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Launch on a (gx, gy) grid and wait for it; returns the wall time in ms. */
static inline double ex_launch(nr_context *ctx, nr_kernel *k, unsigned gx, unsigned gy,
                               const nr_arg *args, int nargs) {
    unsigned grid[3] = {gx, gy, 1};
    double t0 = ex_now_ms();
    EX_CHECK(ctx, nr_launch(k, grid, args, nargs, NULL));
    EX_CHECK(ctx, nr_synchronize(ctx));
    return ex_now_ms() - t0;
}

static inline long ex_cdiv(long a, long b) { return (a + b - 1) / b; }

static inline long ex_next_pow2(long n) {
    long p = 1;
    while (p < n) p *= 2;
    return p;
}

/* ---- fp16 host data ---- */

/* fp32 -> fp16 bits, rounding to nearest even (as a GPU's cvt.rn.f16.f32 does). */
static inline uint16_t ex_f2h(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t a = x & 0x7fffffffu, e = a >> 23, m = a & 0x7fffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);  /* NaN */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds past 65504: inf */
    uint32_t h, rem, half;
    if (e >= 113) { /* a normal fp16 */
        h = ((e - 112) << 10) | (m >> 13);
        rem = m & 0x1fffu, half = 0x1000u;
    } else {                      /* subnormal fp16, or 0 */
        if (e < 102) return sign; /* below half the least */
        uint32_t shift = 126 - e; /* 14..24 */
        m |= 0x800000u;
        h = m >> shift;
        rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    }
    if (rem > half || (rem == half && (h & 1))) h++; /* a carry may bump the exponent */
    return (uint16_t)(sign | h);
}

static inline float ex_h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 31) {
        x = sign | 0x7f800000u | (m << 13);
    } else if (e) {
        x = sign | ((e + 112) << 23) | (m << 13);
    } else { /* subnormal: m * 2^-24 */
        float f = (float)m * 5.9604644775390625e-8f;
        return sign ? -f : f;
    }
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* fp32 -> bf16 bits, rounding to nearest even (bf16 is fp32's upper half: the same
 * exponent range, 8 significant bits). NaN stays a (quiet) NaN. */
static inline uint16_t ex_f2bf(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u); /* ties to even; may carry into inf */
    return (uint16_t)(x >> 16);
}

static inline float ex_bf2f(uint16_t h) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* ---- deterministic inputs ---- */

typedef struct ex_rng {
    uint64_t s;
} ex_rng;

static inline uint64_t ex_rng_u64(ex_rng *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi) with 24 random bits */
static inline float ex_rng_float(ex_rng *r, float lo, float hi) {
    return lo + (hi - lo) * ((float)(ex_rng_u64(r) >> 40) * 5.9604644775390625e-8f);
}

static inline void ex_fill(ex_rng *r, float *v, long n, float lo, float hi) {
    for (long i = 0; i < n; i++) v[i] = ex_rng_float(r, lo, hi);
}

/* ---- checking ---- */

typedef struct ex_diff {
    long bad;        /* elements outside the tolerance */
    long worst;      /* the element furthest outside it (or nearest to it): -1 if n == 0 */
    double max_abs;  /* the largest |got - want| */
    float got, want; /* at worst */
} ex_diff;

/* An element passes when |got - want| <= atol + rtol * |want|; atol = rtol = 0 asks for
 * an exact match. NaN passes only against NaN. */
static inline ex_diff ex_compare(const float *got, const float *want, long n, double atol,
                                 double rtol) {
    ex_diff d = {0, -1, 0.0, 0.0f, 0.0f};
    double worst_score = -1.0;
    for (long i = 0; i < n; i++) {
        double g = got[i], w = want[i], err = fabs(g - w), tol = atol + rtol * fabs(w), score;
        if (isnan(g) || isnan(w)) err = isnan(g) && isnan(w) ? 0.0 : INFINITY;
        if (err > tol) d.bad++;
        if (err > d.max_abs) d.max_abs = err;
        score = tol > 0 ? err / tol : err;
        if (score > worst_score) worst_score = score, d.worst = i, d.got = got[i], d.want = want[i];
    }
    return d;
}

/* The relative tolerance of a kernel output made by one fp32 division: 0 on the CPU
 * interpreter (correctly rounded), 2 ulp on the GPU, where `/` is Triton's div.full.f32
 * (tl.math.div_rn would be exact). Zero stays zero, so a keep mask is still checked bit
 * for bit: a kept element is never within tolerance of a dropped one. */
static inline double ex_div_rtol(nr_context *ctx) {
    return nr_context_device(ctx) == NR_DEVICE_CUDA ? 2.4e-7 : 0.0;
}

/* Print a failed comparison (always: it is what a failing test log needs) and return
 * whether it passed. cols > 0 prints the worst element as (row, col). */
static inline int ex_check_diff(const ex_diff *d, const char *what, long cols) {
    if (d->bad == 0) return 1;
    if (cols > 0)
        printf("  %s: %ld elements wrong; worst at (%ld, %ld): got %.9g, want %.9g\n", what, d->bad,
               d->worst / cols, d->worst % cols, d->got, d->want);
    else
        printf("  %s: %ld elements wrong; worst at [%ld]: got %.9g, want %.9g\n", what, d->bad,
               d->worst, d->got, d->want);
    return 0;
}

/* ---- printing ---- */

/* One row of a small table: a label, then up to n values. */
static inline void ex_print_row(const char *label, const float *v, int n) {
    printf("%-20s", label);
    for (int i = 0; i < n; i++) printf(" %8.4g", v[i]);
    printf("\n");
}

/* The final line, and the exit status: "NAME: OK (detail)" or "NAME: FAILED detail". */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline int
ex_finish(int ok, const char *fmt, ...) {
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (ok) printf("%s: OK (%s)\n", ex_name, detail);
    else printf("%s: FAILED (%s)\n", ex_name, detail);
    return ok ? 0 : 1;
}

#endif
