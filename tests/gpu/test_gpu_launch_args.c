/* test_gpu_launch_args.c - nr_launch's argument path on CUDA: how each argument is
 * checked, packed and specialised, and which variant a launch takes.
 *
 * The CUDA launch path checks the arguments against the kernel's parameters, finds their
 * specialisation facts and packs them in one pass over a table of the parameters, and
 * looks the variant up by an integer key (runtime/launch_cuda.c); the CPU
 * device checks them with convert_arg. Cases:
 *   - every argument a launch refuses or takes (each integer type at and past its
 *     limits, from tags of other widths and signs; pointers, floats and integers given
 *     for one another) gets the same status and the same message on CUDA as on the CPU;
 *   - the bytes each parameter type receives (i1 to u64, fp16, bf16, fp32, fp64, a
 *     pointer), the grid, the block (num_warps), the stream: read back from the stand-in
 *     driver (tests/mock/cuda_mock.c records each launch of a "record_" kernel); on a GPU
 *     the kernel stores one argument, which is checked;
 *   - the variants: each new combination of facts (a pointer 16-byte aligned or not, an
 *     integer 1, a nonzero multiple of 16, 0, or none of these, in every integer width), warps and
 *     stages compiles one variant, a combination seen before none; on the stand-in driver
 *     the function launched is the one made for that combination, also when launches
 *     alternate between variants and on a kernel of 200 parameters (facts past the 32nd, the
 *     64th and the 128th);
 *   - bad num_warps and num_stages are refused with their messages;
 *   - speculation checked at launch: a grouped tile order compiles once for the grids whose
 *     programs' indices are all >= 0, once more (the kernel that checks them itself) at the
 *     first grid with a negative one or past 2^17 programs, then nothing; on a GPU every
 *     launch writes what it should.
 * Without a GPU or the stand-in driver it prints "SKIP: ..." and exits 0 (NEREID_REQUIRE_GPU=1:
 * fails instead). tools/run-tests.sh runs it against the stand-in driver. Ends with
 * "test_gpu_launch_args: N passed, M failed". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NOLOAD */
#endif
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "nereid.h"
#include "tests/unit/check.h"

/* Under AddressSanitizer the CUDA driver needs the shadow gap left unprotected and leaks
 * a little in cuInit (as in tests/gpu/gpu_test.h); inert otherwise. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "protect_shadow_gap=0"; }
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libcuda.so\n"; }

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

/* tests/mock/cuda_mock.c's record of the last launch of a "record_" kernel */
typedef struct MockLaunch {
    char kernel[128];
    unsigned long long function;
    unsigned grid[3], block[3], shared;
    void *stream;
    int nparams;
    unsigned long long params[32];
    long long count;
    int device;
} MockLaunch;
static int (*last_launch)(MockLaunch *); /* cuMockLastLaunch: NULL on a real driver */

static const char *src = "@triton.jit\n"
                         "def record_args(out: *i64, a: i1, b: i8, c: i16, d: i32, e: i64, f: u8, "
                         "g: u16, h: u32, i: u64,\n"
                         "                x: fp16, y: bf16, z: fp32, w: fp64):\n"
                         "    tl.store(out, e)\n"
                         "@triton.jit\n"
                         "def record_facts(p: *i8, n: i32, m: i64, u: u32, s: i16):\n"
                         "    tl.store(p, 1)\n";

enum { NARGS = 14 };

/* A launch of record_args with the defaults but argument `at`, which is `a`. */
static nr_status launch_args(nr_kernel *k, nr_devptr out, int at, nr_arg a,
                             const nr_launch_options *o) {
    nr_arg args[NARGS] = {nr_arg_ptr(out),         nr_arg_i1(1),
                          nr_arg_i8(-5),           nr_arg_i16(-300),
                          nr_arg_i32(-7),          nr_arg_i64(-1234567890123LL),
                          nr_arg_u8(200),          nr_arg_u16(60000),
                          nr_arg_u32(4000000000u), nr_arg_u64(UINT64_MAX - 5),
                          nr_arg_f32(1.5f),        nr_arg_f32(1.5f),
                          nr_arg_f64(0.1),         nr_arg_f64(0.1)};
    if (at >= 0) args[at] = a;
    unsigned grid[3] = {3, 2, 1};
    return nr_launch(k, grid, args, NARGS, o);
}

static nr_arg tagged(nr_type t, uint64_t bits) {
    nr_arg a;
    memset(&a, 0, sizeof a);
    a.type = t;
    a.v.u = bits;
    return a;
}

typedef struct Side {
    nr_context *ctx;
    nr_module *m;
    nr_kernel *args, *facts, *many;
    nr_devptr out; /* 64 bytes */
} Side;

/* Each argument taken or refused alike on CUDA and on the CPU, with the same message. */
static void same_checks(const Side *g, const Side *c) {
    struct {
        int at;
        nr_arg a;
        bool ok;
    } cases[] = {
        {1, nr_arg_i1(0), true},
        {1, nr_arg_i32(1), true},
        {1, nr_arg_i32(2), false},
        {1, nr_arg_i64(-1), false},
        {1, nr_arg_u64(1), true},
        {1, nr_arg_f32(1), false},
        {2, nr_arg_i32(-128), true},
        {2, nr_arg_i32(127), true},
        {2, nr_arg_i32(128), false},
        {2, nr_arg_i32(-129), false},
        {2, nr_arg_u8(127), true},
        {2, nr_arg_u8(128), false},
        {2, nr_arg_u64(UINT64_MAX), false},
        {3, nr_arg_i32(-32768), true},
        {3, nr_arg_i32(32767), true},
        {3, nr_arg_i32(32768), false},
        {3, nr_arg_u16(32768), false},
        {4, nr_arg_i64(INT32_MIN), true},
        {4, nr_arg_i64(INT32_MAX), true},
        {4, nr_arg_i64((int64_t)INT32_MAX + 1), false},
        {4, nr_arg_i64((int64_t)INT32_MIN - 1), false},
        {4, nr_arg_u32(0x80000000u), false},
        {4, nr_arg_ptr(16), false},
        {5, nr_arg_i64(INT64_MIN), true},
        {5, nr_arg_u64(INT64_MAX), true},
        {5, nr_arg_u64((uint64_t)INT64_MAX + 1), false},
        {5, nr_arg_f64(1.0), false},
        {6, nr_arg_i32(255), true},
        {6, nr_arg_i32(256), false},
        {6, nr_arg_i32(-1), false},
        {6, nr_arg_i8(-1), false},
        {7, nr_arg_i32(65535), true},
        {7, nr_arg_i32(65536), false},
        {8, nr_arg_i64(4294967295LL), true},
        {8, nr_arg_u64(4294967296ULL), false},
        {8, nr_arg_i64(-1), false},
        {9, nr_arg_u64(UINT64_MAX), true},
        {9, nr_arg_i64(INT64_MAX), true},
        {9, nr_arg_i64(-1), false},
        {9, nr_arg_i64(INT64_MIN), false},
        {10, nr_arg_f64(65504.0), true},
        {10, nr_arg_i32(1), false},
        {11, nr_arg_f32(-2.5f), true},
        {11, nr_arg_ptr(0), false},
        {12, nr_arg_f64(1e300), true},
        {12, nr_arg_u8(3), false},
        {13, nr_arg_f32(0.25f), true},
        {0, nr_arg_i64(1 << 20), false},
        {0, nr_arg_f64(0), false},
        {0, tagged(NR_TYPE_INVALID, 0), false},
        {4, tagged((nr_type)99, 5), false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char mg[512];
        nr_status sg = launch_args(g->args, g->out, cases[i].at, cases[i].a, NULL);
        snprintf(mg, sizeof mg, "%s", sg ? nr_last_error(g->ctx) : "");
        nr_status sc = launch_args(c->args, c->out, cases[i].at, cases[i].a, NULL);
        const char *mc = sc ? nr_last_error(c->ctx) : "";
        CHECK(sg == sc && !strcmp(mg, mc), "case %zu (argument %d): CUDA %s '%s', CPU %s '%s'", i,
              cases[i].at, nr_status_string(sg), mg, nr_status_string(sc), mc);
        CHECK((sg == NR_OK) == cases[i].ok, "case %zu (argument %d): %s '%s', expected %s", i,
              cases[i].at, nr_status_string(sg), mg, cases[i].ok ? "success" : "a refusal");
        if (!cases[i].ok) CHECK(sg == NR_ERR_INVALID_ARG, "case %zu: %s", i, nr_status_string(sg));
    }
    /* the count, the grid */
    nr_arg one[1] = {nr_arg_ptr(g->out)};
    unsigned grid[3] = {1, 1, 1}, zero[3] = {0, 1, 1};
    nr_status s = nr_launch(g->args, grid, one, 1, NULL);
    CHECK(s == NR_ERR_INVALID_ARG && strstr(nr_last_error(g->ctx), "takes 14 arguments, got 1"),
          "%s", nr_last_error(g->ctx));
    s = launch_args(g->args, g->out, -1, nr_arg_i32(0), NULL);
    CHECK(s == NR_OK, "the defaults: %s", nr_last_error(g->ctx));
    nr_arg args[NARGS];
    memset(args, 0, sizeof args);
    s = nr_launch(g->args, zero, args, NARGS, NULL);
    CHECK(s == NR_ERR_INVALID_ARG && strstr(nr_last_error(g->ctx), "grid dimension 0 is 0"), "%s",
          nr_last_error(g->ctx));
}

static uint64_t bits_of_float(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint64_t bits_of_double(double f) {
    uint64_t u;
    memcpy(&u, &f, 8);
    return u;
}

/* What each parameter receives (read back from the stand-in driver; on a GPU, e). */
static void values(const Side *g, void *stream) {
    nr_launch_options o = {.num_warps = 8, .stream = stream};
    nr_status s = launch_args(g->args, g->out, -1, nr_arg_i32(0), &o);
    CHECK(s == NR_OK, "launch: %s", nr_last_error(g->ctx));
    if (!last_launch) { /* a GPU: the kernel stored e */
        int64_t e = 0;
        s = nr_synchronize(g->ctx);
        if (!s) s = nr_memcpy_dtoh(g->ctx, &e, g->out, sizeof e);
        CHECK(s == NR_OK && e == -1234567890123LL, "e on the GPU: %lld (%s)", (long long)e,
              nr_last_error(g->ctx));
        return;
    }
    MockLaunch l;
    last_launch(&l);
    uint64_t want[NARGS] = {g->out,
                            1,
                            0xfb,
                            0xfed4,
                            0xfffffff9u,
                            (uint64_t)-1234567890123LL,
                            200,
                            60000,
                            4000000000u,
                            UINT64_MAX - 5,
                            0x3e00,
                            0x3fc0,
                            bits_of_float(0.1f),
                            bits_of_double(0.1)};
    CHECK(!strcmp(l.kernel, "record_args") && l.nparams == NARGS, "recorded %s with %d parameters",
          l.kernel, l.nparams);
    for (int i = 0; i < NARGS && i < l.nparams; i++)
        CHECK(l.params[i] == want[i], "parameter %d received 0x%llx, expected 0x%llx", i,
              l.params[i], (unsigned long long)want[i]);
    CHECK(l.grid[0] == 3 && l.grid[1] == 2 && l.grid[2] == 1 && l.block[0] == 256 &&
              l.block[1] == 1,
          "grid %ux%ux%u, block %u", l.grid[0], l.grid[1], l.grid[2], l.block[0]);
    CHECK(l.stream == stream, "stream %p, expected %p", l.stream, stream);
}

/* The variants created so far (compiled, or loaded from the disk cache). */
static unsigned long long variants(nr_context *ctx) {
    nr_stats s;
    nr_context_stats(ctx, &s);
    return s.gpu_compiles + s.disk_cache_hits;
}

/* Facts, warps and stages decide the variant: each new combination makes one, and a launch
 * takes the one made for its combination (the function launched, on the stand-in driver). */
static void facts(const Side *g) {
    struct {
        uint64_t p;
        nr_arg n, m, u, s;
        int warps, stages;
        const char *key;
    } cases[] = {
        {0, nr_arg_i32(16), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1), 0, 0, "ddond"},
        {1, nr_arg_i32(16), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1), 0, 0, "ndond"},
        {16, nr_arg_i32(32), nr_arg_i64(1), nr_arg_u32(9), nr_arg_i16(1), 0, 0,
         "ddond"}, /* the first's facts */
        {0, nr_arg_i32(1), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1), 0, 0, "doond"},
        {0, nr_arg_i32(0), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1), 0, 0,
         "dzond"}, /* 0: a multiple of 16 (Triton's "D"), but not nonzero: a fact of its own */
        {0, nr_arg_i32(17), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1), 0, 0, "dnond"},
        {0, nr_arg_i32(-16), nr_arg_i64(1 << 20), nr_arg_u32(0xfffffff0u), nr_arg_i16(-16), 0, 0,
         "ddddd"},
        {0, nr_arg_i32(-1), nr_arg_i64(-1), nr_arg_u32(1), nr_arg_i16(16), 0, 0, "dnnod"},
        {0, nr_arg_i64(16), nr_arg_u64(1), nr_arg_i32(16), nr_arg_i32(1), 0, 0,
         "dddod"}, /* other tags, same facts as below */
        {0, nr_arg_i32(48), nr_arg_i64(1), nr_arg_u32(32), nr_arg_i16(1), 0, 0, "dddod"},
        {0, nr_arg_i32(16), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1), 8, 0, "ddond:8"},
        {0, nr_arg_i32(16), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1), 8, 2, "ddond:8:2"},
        {0, nr_arg_i32(16), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1), 4, 3,
         "ddond"}, /* the defaults, given */
        {1, nr_arg_i32(16), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1), 0, 0, "ndond"},
        {0, nr_arg_i32(16), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1), 0, 0, "ddond"},
    };
    enum { NC = sizeof cases / sizeof *cases };
    const char *seen[NC];
    unsigned long long fn[NC];
    int nseen = 0;
    for (int i = 0; i < NC; i++) {
        unsigned long long before = variants(g->ctx);
        nr_arg a[5] = {nr_arg_ptr(g->out + cases[i].p), cases[i].n, cases[i].m, cases[i].u,
                       cases[i].s};
        nr_launch_options o = {.num_warps = cases[i].warps, .num_stages = cases[i].stages};
        unsigned grid[3] = {1, 1, 1};
        nr_status s = nr_launch(g->facts, grid, a, 5, &o);
        CHECK(s == NR_OK, "facts case %d: %s", i, nr_last_error(g->ctx));
        int j = 0;
        while (j < nseen && strcmp(seen[j], cases[i].key)) j++;
        bool fresh = j == nseen;
        CHECK(variants(g->ctx) - before == (fresh ? 1u : 0u),
              "facts case %d (%s): %llu variants made, expected %d", i, cases[i].key,
              variants(g->ctx) - before, fresh);
        MockLaunch l = {0};
        if (last_launch) last_launch(&l);
        if (fresh) seen[nseen] = cases[i].key, fn[nseen++] = l.function;
        else if (last_launch)
            CHECK(l.function == fn[j], "facts case %d (%s): function %llu launched, expected %llu",
                  i, cases[i].key, l.function, fn[j]);
        if (last_launch)
            CHECK(l.block[0] == 32u * (unsigned)(cases[i].warps ? cases[i].warps : 4),
                  "facts case %d: block %u", i, l.block[0]);
    }
    /* bad options, refused before any variant is looked for */
    nr_arg a[5] = {nr_arg_ptr(g->out), nr_arg_i32(16), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1)};
    unsigned grid[3] = {1, 1, 1};
    struct {
        int warps, stages;
        const char *msg;
    } bad[] = {
        {3, 0, "num_warps must be a power of two from 1 to 32, got 3"},
        {64, 0, "num_warps must be a power of two from 1 to 32, got 64"},
        {0, 9, "num_stages must be 0 or from 1 to 8, got 9"},
        {0, -1, "num_stages must be 0 or from 1 to 8, got -1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        nr_launch_options o = {.num_warps = bad[i].warps, .num_stages = bad[i].stages};
        unsigned long long before = variants(g->ctx);
        nr_status s = nr_launch(g->facts, grid, a, 5, &o);
        CHECK(s == NR_ERR_INVALID_ARG && strstr(nr_last_error(g->ctx), bad[i].msg) &&
                  variants(g->ctx) == before,
              "options %d/%d: %s", bad[i].warps, bad[i].stages, nr_last_error(g->ctx));
    }
}

/* A kernel of MANY parameters (more than 64: mamba's SSD kernels have more; Triton has no
 * limit): facts of the last ones (past the 32nd, 64th, 128th) decide variants too. */
enum { MANY = 200 };
static void many(const Side *g) {
    nr_arg a[MANY];
    a[0] = nr_arg_ptr(g->out);
    /* `same`: the earlier case whose variant this one takes (-1: a new one; 3 is neither 0, 1
     * nor 16, and 0 is a fact of its own) */
    struct {
        int at;
        int32_t v;
        int same;
    } cases[] = {
        {-1, 0, -1},  {-1, 0, 0},   {63, 16, -1}, {33, 1, -1},   {63, 0, -1}, {32, 16, -1},
        {-1, 0, 0},   {63, 1, -1},  {31, 16, -1}, {63, 16, 2},   {33, 1, 3},  {199, 16, -1},
        {130, 1, -1}, {199, 0, -1}, {64, 16, -1}, {199, 16, 11},
    };
    unsigned long long fn[32];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        for (int j = 1; j < MANY; j++) a[j] = nr_arg_i32(3);
        if (cases[i].at > 0) a[cases[i].at] = nr_arg_i32(cases[i].v);
        unsigned long long before = variants(g->ctx);
        unsigned grid[3] = {1, 1, 1};
        nr_status s = nr_launch(g->many, grid, a, MANY, NULL);
        CHECK(s == NR_OK, "%d parameters, case %zu: %s", MANY, i, nr_last_error(g->ctx));
        CHECK(variants(g->ctx) - before == (cases[i].same < 0 ? 1u : 0u),
              "%d parameters, case %zu: %llu variants made", MANY, i, variants(g->ctx) - before);
        MockLaunch l = {0};
        if (last_launch) last_launch(&l);
        fn[i] = l.function;
        for (size_t j = 0; last_launch && j < i; j++)
            CHECK((fn[j] == l.function) == (cases[i].same >= 0 && fn[j] == fn[cases[i].same]),
                  "%d parameters, case %zu: function %llu, case %zu's %llu", MANY, i, l.function, j,
                  fn[j]);
    }
}

/* What the last launch ran (nr_kernel_last_info, nr_kernel_code) and nr_prepare: the
 * variant of the last launch, its code compiled again, a prepared variant made the last. */
static void last_launch_info(const Side *g, const Side *c) {
    nr_kernel_info in;
    char *code = NULL;
    size_t len = 0;
    nr_devptr out = g->out;
    nr_arg a[5] = {nr_arg_ptr(out), nr_arg_i32(16), nr_arg_i64(1), nr_arg_u32(7), nr_arg_i16(1)};
    nr_launch_options lo = {.num_warps = 2, .num_stages = 1};
    CHECK(nr_prepare(g->facts, a, 5, &lo) == NR_OK, "nr_prepare: %s", nr_last_error(g->ctx));
    CHECK(nr_kernel_last_info(g->facts, &in) == NR_OK && in.num_warps == 2 && in.num_stages == 1 &&
              !strncmp(in.target, "sm_", 3) && !strcmp(in.name, "record_facts"),
          "the prepared variant: %s %d %d", in.target, in.num_warps, in.num_stages);
    CHECK(nr_kernel_code(g->facts, "ptx", &code, &len) == NR_OK && code &&
              strstr(code, ".entry record_facts") && strstr(code, ".maxntid 64, 1, 1") &&
              len == strlen(code),
          "its PTX: %s", code ? code : nr_last_error(g->ctx));
    free(code), code = NULL;
    CHECK(nr_kernel_code(g->facts, "gpu-ir", &code, &len) == NR_OK && strstr(code, "gpu<arch=sm_"),
          "its GPU IR: %s", code ? code : nr_last_error(g->ctx));
    free(code), code = NULL;
    CHECK(nr_kernel_code(g->facts, "llvm", &code, &len) == NR_OK && strstr(code, "define"),
          "its LLVM IR");
    free(code), code = NULL;
    CHECK(nr_kernel_code(g->facts, "ttgir", &code, &len) == NR_ERR_NOT_FOUND && !code,
          "no such code");
    unsigned grid[3] = {1, 1, 1};
    CHECK(nr_launch(g->facts, grid, a, 5, NULL) == NR_OK, "launch: %s", nr_last_error(g->ctx));
    CHECK(nr_kernel_last_info(g->facts, &in) == NR_OK && in.num_warps == 4 && in.num_stages == 3,
          "the launched variant: %d %d", in.num_warps, in.num_stages);
    CHECK(nr_kernel_last_info(g->many, &in) == NR_ERR_NOT_FOUND || in.num_warps > 0,
          "before a launch");
    /* the CPU device: the IR only */
    nr_arg ac[5] = {nr_arg_ptr(c->out), nr_arg_i32(16), nr_arg_i64(1), nr_arg_u32(7),
                    nr_arg_i16(1)};
    CHECK(nr_kernel_last_info(c->facts, &in) == NR_ERR_NOT_FOUND, "the CPU kernel before a launch");
    CHECK(nr_launch(c->facts, grid, ac, 5, NULL) == NR_OK, "CPU launch: %s", nr_last_error(c->ctx));
    CHECK(nr_kernel_last_info(c->facts, &in) == NR_OK && !strcmp(in.target, "cpu"),
          "the CPU's info");
    CHECK(nr_kernel_code(c->facts, "ir", &code, &len) == NR_OK &&
              strstr(code, "func kernel @record_facts"),
          "CPU IR");
    free(code), code = NULL;
    CHECK(nr_kernel_code(c->facts, "ptx", &code, &len) == NR_ERR_NOT_FOUND, "no PTX on the CPU");
}

/* The matmul tutorial's grouped order, cut down: pm divides by min(num_pid_m - first, 8),
 * negative for the programs past num_pid_m's groups; its offsets are wrapped into [0, n)
 * whatever their sign, so every program writes x[o] = o inside the buffer. */
static const char *grouped_src = "@triton.jit\n"
                                 "def record_grouped(x: *i32, n: i32, num_pid_m: i32):\n"
                                 "    pid = tl.program_id(0)\n"
                                 "    first = (pid // 8) * 8\n"
                                 "    size = min(num_pid_m - first, 8)\n"
                                 "    pm = pid // size\n"
                                 "    o = (((pm * 64 + tl.arange(0, 64)) % n) + n) % n\n"
                                 "    tl.store(x + o, o)\n";

/* Speculation checked at launch (runtime/launch_cuda.c): the kernel is compiled with its
 * roots assumed >= 0, and the host checks them for each new grid (the guard, on the
 * interpreter); a grid with a negative root runs a second kernel that checks them
 * itself, compiled at its first such launch; a grid past 2^17 programs is not checked and
 * runs that one too. On the stand-in driver: the compiles and the function launched; on
 * a GPU: what the programs wrote. */
static void speculation_at_launch(const Side *g) {
    nr_module *m = NULL;
    nr_kernel *k = NULL;
    nr_devptr x = 0;
    enum { N = 1024 };
    if (nr_compile_source(g->ctx, grouped_src, strlen(grouped_src), "grouped.nr", NULL, &m) ||
        nr_module_get_kernel(m, "record_grouped", &k) || nr_malloc(g->ctx, N * 4, &x)) {
        CHECK(false, "grouped: %s", nr_last_error(g->ctx));
        if (m) nr_module_destroy(m);
        return;
    }
    nr_launch_options lo = {.num_warps = 1}; /* two elements a thread: a vector to gain */
    struct {
        unsigned grid;
        unsigned long long compiles;
        int same; /* the earlier case whose function this one runs */
    } cases[] = {{16, 1, -1}, {16, 0, 0}, {40, 1, -1}, {40, 0, 2},     {17, 0, 0},
                 {16, 0, 0},  {24, 0, 0}, {25, 0, 2},  {131073, 0, 2}, {16, 0, 0}};
    unsigned long long fn[16];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        nr_arg a[3] = {nr_arg_ptr(x), nr_arg_i32(N),
                       nr_arg_i32(cases[i].grid >= 131073 ? 16384 : 16)};
        unsigned grid[3] = {cases[i].grid, 1, 1};
        unsigned long long before = variants(g->ctx);
        nr_status s = nr_launch(k, grid, a, 3, &lo);
        CHECK(s == NR_OK, "grouped, grid %u: %s", grid[0], nr_last_error(g->ctx));
        CHECK(variants(g->ctx) - before == cases[i].compiles, "grouped, grid %u: %llu compiles",
              grid[0], variants(g->ctx) - before);
        MockLaunch l = {0};
        if (last_launch) last_launch(&l);
        fn[i] = l.function;
        if (last_launch && cases[i].same >= 0)
            CHECK(fn[i] == fn[cases[i].same], "grouped, grid %u: function %llu, case %d's %llu",
                  grid[0], fn[i], cases[i].same, fn[cases[i].same]);
        if (last_launch && cases[i].same < 0 && i)
            CHECK(fn[i] != fn[0], "grouped, grid %u: a new function", grid[0]);
        if (!last_launch) { /* a GPU: x[o] = o where the programs wrote */
            int32_t h[N];
            CHECK(nr_synchronize(g->ctx) == NR_OK &&
                      nr_memcpy_dtoh(g->ctx, h, x, sizeof h) == NR_OK,
                  "grouped: %s", nr_last_error(g->ctx));
            int bad = -1;
            for (int j = 0; j < 128 && bad < 0; j++)
                if (h[j] != j) bad = j;
            CHECK(bad < 0, "grouped, grid %u: x[%d] = %d", grid[0], bad, bad < 0 ? 0 : h[bad]);
        }
    }
    nr_free(g->ctx, x);
    nr_module_destroy(m);
}

static bool open_side(nr_device_kind kind, Side *s, char *why, size_t n) {
    memset(s, 0, sizeof *s);
    if (nr_context_create_ex(kind, 0, &s->ctx, why, n)) return false;
    char many_src[16384];
    int len = snprintf(many_src, sizeof many_src, "%s@triton.jit\ndef record_many(out: *i32", src);
    for (int i = 1; i < MANY; i++)
        len += snprintf(many_src + len, sizeof many_src - (size_t)len, ", a%d: i32", i);
    snprintf(many_src + len, sizeof many_src - (size_t)len,
             "):\n    tl.store(out, a63 + a64 + a130 + a199)\n");
    nr_status st_ =
        nr_compile_source(s->ctx, many_src, strlen(many_src), "launch_args.nr", NULL, &s->m);
    CHECK(st_ == NR_OK, "compile: %s", nr_last_error(s->ctx));
    if (st_ || nr_module_get_kernel(s->m, "record_args", &s->args) ||
        nr_module_get_kernel(s->m, "record_facts", &s->facts) ||
        nr_module_get_kernel(s->m, "record_many", &s->many) || nr_malloc(s->ctx, 64, &s->out)) {
        snprintf(why, n, "setting up: %s", nr_last_error(s->ctx));
        return false;
    }
    return true;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    char why[512] = "";
    Side g, c;
    if (!open_side(NR_DEVICE_CUDA, &g, why, sizeof why)) {
        const char *req = getenv("NEREID_REQUIRE_GPU");
        if (g.ctx) nr_context_destroy(g.ctx);
        if (req && !strcmp(req, "1")) {
            printf("test_gpu_launch_args: FAILED (no CUDA device: %s)\n", why);
            return 1;
        }
        char *nl = strchr(why, '\n');
        if (nl) *nl = 0;
        printf("SKIP: no CUDA device (%s)\n", why);
        return 0;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *sym = lib ? dlsym(lib, "cuMockLastLaunch") : NULL;
    memcpy(&last_launch, &sym, sizeof sym);
    printf("device: %s%s\n", nr_context_device_name(g.ctx),
           last_launch ? " (launches read back)" : "");
    if (!open_side(NR_DEVICE_CPU, &c, why, sizeof why)) {
        printf("test_gpu_launch_args: FAILED (the CPU context: %s)\n", why);
        return 1;
    }
    same_checks(&g, &c);
    void *stream = NULL;
    CHECK(nr_stream_create(g.ctx, &stream) == NR_OK, "nr_stream_create: %s", nr_last_error(g.ctx));
    values(&g, NULL);
    values(&g, stream);
    facts(&g);
    many(&g);
    last_launch_info(&g, &c);
    speculation_at_launch(&g);
    CHECK(nr_synchronize(g.ctx) == NR_OK, "synchronize: %s", nr_last_error(g.ctx));
    if (lib) dlclose(lib);
    nr_context_destroy(g.ctx);
    nr_context_destroy(c.ctx);
    return check_done("test_gpu_launch_args", &st);
}
