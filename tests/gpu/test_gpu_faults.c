/* test_gpu_faults.c - kernels that fault on the GPU, seen from the C API.
 *
 * A fault (an out-of-bounds access, a failed device_assert, a trap) makes the CUDA
 * driver's context unusable. Nereid must then
 *   - report it once, from nr_launch or nr_synchronize, as NR_ERR_LAUNCH with the driver's
 *     reason and the kernel(s) in flight; for a device_assert, the assertion's message and
 *     its location, the same FILE:LINE:COL the CPU interpreter reports;
 *   - answer every later call on that context (launch, synchronize, memory, copies,
 *     streams, compiling) with NR_ERR_DEVICE saying the context is unusable, at once:
 *     no crash, no hang (a watchdog alarm fails the test after 120 s);
 *   - let a new context work: created while the faulted one still exists, and again
 *     after it is destroyed; destroying the faulted one is clean.
 * Cases: an out-of-bounds store (2^40 bytes past a buffer), a failed device_assert, a
 * `trap` (hand-written PTX loaded through the runtime's driver layer on the context's
 * device, since the language has no trap), a fault first noticed by a later nr_launch, and
 * two contexts on one device (both must report it).
 *
 * Without a GPU the CPU part runs (the assert's location, which the GPU message must
 * repeat) and the program prints "SKIP: no CUDA device (...)" and exits 0
 * (NEREID_REQUIRE_GPU=1: fails instead). Ends with "test_gpu_faults: N passed, M failed". */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "nereid.h"
#include "runtime/api_internal.h"
#include "runtime/cuda.h"
#include "tests/unit/check.h"

/* Under AddressSanitizer the CUDA driver needs the shadow gap left unprotected and leaks
 * a little in cuInit (as in tests/gpu/gpu_test.h); inert otherwise. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "protect_shadow_gap=0"; }
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libcuda.so\n"; }

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

static const char *src =
    "@triton.jit\n"
    "def good(x: *fp32, n: i32, BLOCK: tl.constexpr):\n"
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    m = o < n\n"
    "    tl.store(x + o, tl.load(x + o, mask=m) * 2 + 1, mask=m)\n"
    "@triton.jit\n"
    "def oob_store(x: *fp32, far: i64, BLOCK: tl.constexpr):\n"
    "    o = tl.arange(0, BLOCK)\n"
    "    tl.store(x + far + o, o * 1.0)\n"
    "@triton.jit\n"
    "def assert_small(x: *i32, n: i32, BLOCK: tl.constexpr):\n"
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    v = tl.load(x + o, mask=o < n, other=0)\n"
    "    tl.device_assert(v < 10, \"value too large\")\n"
    "    tl.store(x + o, v + 1, mask=o < n)\n";

/* a kernel that executes PTX's trap instruction */
static const char *trap_ptx =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry trap_kernel(.param .u64 p)\n"
    "{\n"
    "    trap;\n"
    "    ret;\n"
    "}\n";

enum { N = 1000, BLOCK = 128 };

static char assert_where[128]; /* "faults.nr:L:C", from the CPU interpreter */

typedef struct Mod {
    nr_module *m;
    nr_kernel *good, *oob, *asrt;
} Mod;

static bool compile(nr_context *ctx, Mod *out) {
    nr_define d = {"BLOCK", "128"};
    nr_compile_options o = {&d, 1, NULL, 0, 0};
    memset(out, 0, sizeof *out);
    nr_status s = nr_compile_source(ctx, src, strlen(src), "faults.nr", &o, &out->m);
    CHECK(s == NR_OK, "compile: %s", nr_last_error(ctx));
    if (s) return false;
    return !nr_module_get_kernel(out->m, "good", &out->good) && !nr_module_get_kernel(out->m, "oob_store", &out->oob) &&
           !nr_module_get_kernel(out->m, "assert_small", &out->asrt);
}

/* Run `good` on N floats and check them: the context works. */
static bool works(nr_context *ctx, const Mod *m, const char *what) {
    float h[N], r[N];
    for (int i = 0; i < N; i++) h[i] = (float)i;
    nr_devptr d = 0;
    nr_arg a[2];
    unsigned grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
    bool ok = nr_malloc(ctx, sizeof h, &d) == NR_OK && nr_memcpy_htod(ctx, d, h, sizeof h) == NR_OK;
    a[0] = nr_arg_ptr(d), a[1] = nr_arg_i32(N);
    ok = ok && nr_launch(m->good, grid, a, 2, NULL) == NR_OK && nr_synchronize(ctx) == NR_OK &&
         nr_memcpy_dtoh(ctx, r, d, sizeof r) == NR_OK;
    int wrong = 0;
    for (int i = 0; ok && i < N; i++) wrong += r[i] != 2.0f * (float)i + 1.0f;
    CHECK(ok && wrong == 0, "%s: a kernel on a working context: %s (%d wrong)", what, nr_last_error(ctx), wrong);
    if (d) nr_free(ctx, d);
    return ok && wrong == 0;
}

/* The CPU interpreter's report of the same assertion: where it is. */
static void cpu_assert_location(void) {
    nr_context *ctx;
    Mod m;
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) || !compile(ctx, &m)) return;
    int32_t h[N];
    for (int i = 0; i < N; i++) h[i] = i == 777 ? 12 : i % 10;
    nr_devptr d;
    nr_malloc(ctx, sizeof h, &d);
    nr_memcpy_htod(ctx, d, h, sizeof h);
    nr_arg a[2] = {nr_arg_ptr(d), nr_arg_i32(N)};
    unsigned grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
    nr_status s = nr_launch(m.asrt, grid, a, 2, NULL);
    const char *e = nr_last_error(ctx), *at = strstr(e, " at faults.nr:");
    CHECK(s == NR_ERR_LAUNCH && strstr(e, "device_assert failed in kernel 'assert_small'") && at,
          "the CPU's device_assert report: %s", e);
    if (at) {
        at += 4;
        size_t n = strcspn(at, ",");
        snprintf(assert_where, sizeof assert_where, "%.*s", (int)n, at);
    }
    printf("the CPU interpreter: %s\n", e);
    nr_context_destroy(ctx);
}

/* After the fault was reported: every call fails at once, saying the context is
 * unusable. */
static void later_calls_fail(nr_context *ctx, const Mod *m, nr_devptr old, const char *what) {
    nr_devptr d = 0;
    char buf[64] = {0};
    void *stream = NULL;
    nr_module *mod = NULL;
    nr_arg a[2] = {nr_arg_ptr(old), nr_arg_i32(16)};
    unsigned grid[3] = {1, 1, 1};
#define UNUSABLE(call)                                                                                            \
    do {                                                                                                          \
        nr_status s_ = (call);                                                                                    \
        CHECK(s_ == NR_ERR_DEVICE && strstr(nr_last_error(ctx), "unusable"), "%s: after the fault, %s gave %s: %s", \
              what, #call, nr_status_string(s_), nr_last_error(ctx));                                             \
    } while (0)
    UNUSABLE(nr_launch(m->good, grid, a, 2, NULL));
    UNUSABLE(nr_synchronize(ctx));
    UNUSABLE(nr_malloc(ctx, 64, &d));
    UNUSABLE(nr_memcpy_htod(ctx, old, buf, sizeof buf));
    UNUSABLE(nr_memcpy_dtoh(ctx, buf, old, sizeof buf));
    UNUSABLE(nr_memset(ctx, old, 0, sizeof buf));
    UNUSABLE(nr_stream_create(ctx, &stream));
    UNUSABLE(nr_stream_synchronize(ctx, NULL));
    UNUSABLE(nr_compile_source(ctx, src, strlen(src), "faults.nr", NULL, &mod));
    UNUSABLE(nr_free(ctx, old));
#undef UNUSABLE
    CHECK(!stream && !mod, "%s: nothing created on an unusable context", what);
}

/* One fault case: a fresh context, a working launch, the fault, its report, later calls,
 * a new context while this one lives, destroying it, another new context. `launch`
 * starts the faulting kernel; `want` is text the report must contain. */
typedef void (*Launcher)(nr_context *ctx, const Mod *m, nr_devptr buf, CudaKernel *trap);

static void run_case(const char *what, Launcher launch, const char *const *want, bool notice_at_launch) {
    printf("-- %s\n", what);
    alarm(120); /* a hang fails the test */
    nr_context *ctx;
    char why[512];
    if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &ctx, why, sizeof why)) {
        CHECK(0, "%s: a CUDA context: %s", what, why);
        return;
    }
    Mod m;
    if (!compile(ctx, &m) || !works(ctx, &m, what)) {
        nr_context_destroy(ctx);
        return;
    }
    int32_t h[N];
    for (int i = 0; i < N; i++) h[i] = i == 777 ? 12 : i % 10;
    nr_devptr buf = 0;
    CHECK(nr_malloc(ctx, sizeof h, &buf) == NR_OK && nr_memcpy_htod(ctx, buf, h, sizeof h) == NR_OK, "set-up");
    CudaKernel trap = {0};
    launch(ctx, &m, buf, &trap);
    nr_status s;
    const char *who;
    if (notice_at_launch) { /* the kernel runs and faults; the next launch meets it */
        sleep(1);
        nr_arg a[2] = {nr_arg_ptr(buf), nr_arg_i32(N)};
        unsigned grid[3] = {1, 1, 1};
        s = nr_launch(m.good, grid, a, 2, NULL), who = "nr_launch";
        if (s == NR_OK) s = nr_synchronize(ctx), who = "nr_synchronize (the launch did not notice)";
    } else {
        s = nr_synchronize(ctx), who = "nr_synchronize";
    }
    char report[4096];
    snprintf(report, sizeof report, "%s", nr_last_error(ctx));
    printf("%s returned %s:\n%s\n", who, nr_status_string(s), report);
    CHECK(s == NR_ERR_LAUNCH, "%s: %s returned %s, not NR_ERR_LAUNCH", what, who, nr_status_string(s));
    for (const char *const *w = want; *w; w++) CHECK(strstr(report, *w), "%s: the report lacks '%s'", what, *w);
    CHECK(strstr(report, "unusable"), "%s: the report should say the context is unusable now", what);
    later_calls_fail(ctx, &m, buf, what);
    if (trap.module) cuda_unload(ctx->cuda, &trap);

    /* a new context while the faulted one still exists */
    nr_context *c2;
    nr_status s2 = nr_context_create_ex(NR_DEVICE_CUDA, 0, &c2, why, sizeof why);
    CHECK(s2 == NR_OK, "%s: a new context while the faulted one lives: %s", what, why);
    if (s2 == NR_OK) {
        Mod m2;
        if (compile(c2, &m2)) works(c2, &m2, "a new context beside the faulted one");
        nr_context_destroy(c2);
    }
    nr_context_destroy(ctx); /* clean, no driver call that could hang */
    nr_context *c3;
    s2 = nr_context_create_ex(NR_DEVICE_CUDA, 0, &c3, why, sizeof why);
    CHECK(s2 == NR_OK, "%s: a new context after destroying the faulted one: %s", what, why);
    if (s2 == NR_OK) {
        Mod m3;
        if (compile(c3, &m3)) works(c3, &m3, "a new context afterwards");
        nr_context_destroy(c3);
    }
    alarm(0);
}

static void launch_oob(nr_context *ctx, const Mod *m, nr_devptr buf, CudaKernel *trap) {
    (void)trap;
    nr_arg a[2] = {nr_arg_ptr(buf), nr_arg_i64((int64_t)1 << 40)};
    unsigned grid[3] = {1, 1, 1};
    CHECK(nr_launch(m->oob, grid, a, 2, NULL) == NR_OK, "queueing oob_store: %s", nr_last_error(ctx));
}

static void launch_assert(nr_context *ctx, const Mod *m, nr_devptr buf, CudaKernel *trap) {
    (void)trap;
    nr_arg a[2] = {nr_arg_ptr(buf), nr_arg_i32(N)};
    unsigned grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
    CHECK(nr_launch(m->asrt, grid, a, 2, NULL) == NR_OK, "queueing assert_small: %s", nr_last_error(ctx));
}

static void launch_trap(nr_context *ctx, const Mod *m, nr_devptr buf, CudaKernel *trap) {
    (void)m;
    StrBuf err;
    sb_init(&err);
    uint64_t arg = buf;
    void *params[] = {&arg};
    unsigned grid[3] = {1, 1, 1};
    int rc = cuda_load(ctx->cuda, trap_ptx, "trap_kernel", NULL, 0, trap, &err);
    if (rc == 0) rc = cuda_launch(ctx->cuda, trap, grid, 1, params, NULL, &err);
    CHECK(rc == 0, "loading and launching the trap kernel: %s", sb_cstr(&err));
    sb_free(&err);
}

/* Two contexts on one device: the fault poisons the device's context for both. */
static void two_contexts(void) {
    printf("-- two contexts on one device\n");
    alarm(120);
    nr_context *a, *b;
    char why[512];
    if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &a, why, sizeof why)) {
        CHECK(0, "context a: %s", why);
        return;
    }
    if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &b, why, sizeof why)) {
        CHECK(0, "context b: %s", why);
        nr_context_destroy(a);
        return;
    }
    Mod ma, mb;
    if (compile(a, &ma) && compile(b, &mb) && works(a, &ma, "context a") && works(b, &mb, "context b")) {
        nr_devptr buf;
        nr_malloc(a, 4096, &buf);
        launch_oob(a, &ma, buf, NULL);
        nr_status sa = nr_synchronize(a);
        CHECK(sa == NR_ERR_LAUNCH && strstr(nr_last_error(a), "oob_store"), "context a: %s: %s", nr_status_string(sa),
              nr_last_error(a));
        nr_status sb = nr_synchronize(b);
        CHECK(sb == NR_ERR_LAUNCH && strstr(nr_last_error(b), "CUDA_ERROR_ILLEGAL_ADDRESS"),
              "context b (same device) should report the fault too: %s: %s", nr_status_string(sb), nr_last_error(b));
        CHECK(nr_synchronize(b) == NR_ERR_DEVICE, "context b afterwards: %s", nr_last_error(b));
        /* both have let the driver's context go: a new one works */
        nr_context *c;
        if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &c, why, sizeof why) == NR_OK) {
            Mod mc;
            if (compile(c, &mc)) works(c, &mc, "a third context");
            nr_context_destroy(c);
        } else {
            CHECK(0, "a third context after both noticed the fault: %s", why);
        }
    }
    nr_context_destroy(b);
    nr_context_destroy(a);
    alarm(0);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    cpu_assert_location();
    char why[512];
    nr_context *probe;
    if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &probe, why, sizeof why)) {
        const char *req = getenv("NEREID_REQUIRE_GPU");
        if (req && *req && strcmp(req, "0")) {
            printf("test_gpu_faults: FAILED: NEREID_REQUIRE_GPU is set and there is no CUDA device (%s)\n", why);
            return 1;
        }
        if (st.failed) return check_done("test_gpu_faults", &st);
        printf("SKIP: no CUDA device (%s)\n", why);
        return 0;
    }
    nr_context_destroy(probe);

    char assert_text[256];
    snprintf(assert_text, sizeof assert_text, "device_assert failed in kernel 'assert_small' at %s: value too large",
             assert_where);
    static const char *const want_oob[] = {"oob_store", "CUDA_ERROR_ILLEGAL_ADDRESS", NULL};
    const char *const want_assert[] = {assert_text, "CUDA_ERROR_ASSERT", NULL};
    static const char *const want_trap[] = {"a kernel faulted", "CUDA_ERROR_", NULL};
    run_case("out-of-bounds store", launch_oob, want_oob, false);
    run_case("device_assert", launch_assert, want_assert, false);
    run_case("trap", launch_trap, want_trap, false);
    run_case("out-of-bounds store noticed by the next launch", launch_oob, want_oob, true);
    two_contexts();
    return check_done("test_gpu_faults", &st);
}
