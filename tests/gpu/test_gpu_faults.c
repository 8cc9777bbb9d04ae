/* test_gpu_faults.c - kernels that fault on the GPU, seen from the C API.
 *
 * A fault (an out-of-bounds access, a failed device_assert, a trap) makes the CUDA
 * driver's context unusable. Nereid must then
 *   - report it once, from nr_launch or nr_synchronize, as NR_ERR_LAUNCH with the driver's
 *     reason and the kernel(s) in flight; for a device_assert, the assertion's message and
 *     its location, the same FILE:LINE:COL the CPU interpreter reports;
 *   - answer every later call on that context (launch, synchronize, memory, copies,
 *     streams, compiling) with NR_ERR_DEVICE saying the context is unusable, at once:
 *     no crash, no hang (a watchdog alarm fails the case after 120 s);
 *   - destroy the faulted context cleanly;
 *   - handle a new context (created while the faulted one still exists, and again after
 *     it is destroyed) the way the driver allows: a driver that gives a fresh primary
 *     context once every user has let go of the poisoned one (the mock driver with
 *     CUDA_MOCK_RECOVER=1) must get a new context that works; a driver that keeps the
 *     device from the rest of the process (NVIDIA's: CUDA documents that the process must
 *     be restarted) must get nr_context_create_ex failing with NR_ERR_DEVICE and a reason
 *     that says the device is unusable in this process after a kernel fault and that a
 *     new process can use it. NEREID_TEST_AFTER_FAULT=works or =refused insists on one of
 *     the two (tools/run-tests.sh sets it for each mode of the mock); unset, either passes.
 * Cases: an out-of-bounds store (2^40 bytes past a buffer), a failed device_assert, a
 * `trap` (hand-written PTX loaded through the runtime's driver layer on the context's
 * device, since the language has no trap), a fault first noticed by a later nr_launch, and
 * two contexts on one device (both must report it; a context created while the second
 * still holds the poisoned primary context must be refused on any driver).
 *
 * Since a fault can cost the process its device, each case runs in a child process of
 * its own (so does the probe for a GPU: this process never initialises CUDA) and sends
 * its counts back through a pipe; a child that crashes, hangs or exits otherwise than its
 * counts say (a sanitizer's report) fails its case.
 *
 * Without a GPU the CPU part runs (the assert's location, which the GPU message must
 * repeat) and the program prints "SKIP: no CUDA device (...)" and exits 0
 * (NEREID_REQUIRE_GPU=1: fails instead). Ends with "test_gpu_faults: N passed, M failed",
 * the counts of every case. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nereid.h"
#include "runtime/cuda.h"
#include "runtime/objects.h"
#include "tests/unit/check.h"

/* Under AddressSanitizer the CUDA driver needs the shadow gap left unprotected and leaks
 * a little in cuInit (as in tests/gpu/gpu_test.h); inert otherwise. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "protect_shadow_gap=0"; }
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libcuda.so\n"; }

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

static const char *src = "@triton.jit\n"
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
static const char *trap_ptx = ".version 8.0\n"
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
    nr_compile_options o = {.defines = &d, .num_defines = 1};
    memset(out, 0, sizeof *out);
    nr_status s = nr_compile_source(ctx, src, strlen(src), "faults.nr", &o, &out->m);
    CHECK(s == NR_OK, "compile: %s", nr_last_error(ctx));
    if (s) return false;
    return !nr_module_get_kernel(out->m, "good", &out->good) &&
           !nr_module_get_kernel(out->m, "oob_store", &out->oob) &&
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
    CHECK(ok && wrong == 0, "%s: a kernel on a working context: %s (%d wrong)", what,
          nr_last_error(ctx), wrong);
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
#define UNUSABLE(call)                                                                  \
    do {                                                                                \
        nr_status s_ = (call);                                                          \
        CHECK(s_ == NR_ERR_DEVICE && strstr(nr_last_error(ctx), "unusable"),            \
              "%s: after the fault, %s gave %s: %s", what, #call, nr_status_string(s_), \
              nr_last_error(ctx));                                                      \
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

/* What a new context on the device after a fault must do: either (NEREID_TEST_AFTER_FAULT
 * unset), work, or be refused. */
typedef enum AfterFault { AFTER_EITHER, AFTER_WORKS, AFTER_REFUSED } AfterFault;

/* nr_context_create_ex refused the device after a fault (status s, context c, reason why):
 * NR_ERR_DEVICE, nothing created, and a reason that says what happened and what helps. */
static void check_refusal(const char *what, nr_status s, const nr_context *c, const char *why) {
    CHECK(s == NR_ERR_DEVICE && !c, "%s: refused with %s (want NR_ERR_DEVICE and no context): %s",
          what, nr_status_string(s), why);
    CHECK(strstr(why, "is unusable in this process after an earlier kernel fault") &&
              strstr(why, "new process") && strstr(why, "CUDA_ERROR_"),
          "%s: the reason should say the device is unusable in this process after a kernel fault, "
          "name the "
          "driver's error and say that a new process can use the device: %s",
          what, why);
}

/* A new context on the device after the fault (`what`: the case, `when`: which one). A
 * driver that gives a fresh primary context once every user has let go of the poisoned
 * one must give a context that compiles and runs a kernel; one that keeps the device from
 * this process (NVIDIA's) must make creating it fail, saying so. */
static void new_context_after_fault(const char *what, const char *when, AfterFault after) {
    nr_context *c = NULL;
    char why[1024] = "";
    nr_status s = nr_context_create_ex(NR_DEVICE_CUDA, 0, &c, why, sizeof why);
    char label[256];
    snprintf(label, sizeof label, "%s: %s", what, when);
    if (s == NR_OK) {
        printf("%s: created; it must work\n", when);
        CHECK(after != AFTER_REFUSED,
              "%s: created, but this driver should refuse the device after a fault", label);
        Mod m;
        if (compile(c, &m)) works(c, &m, label);
        nr_context_destroy(c);
        return;
    }
    printf("%s: refused: %s\n", when, why);
    CHECK(after != AFTER_WORKS, "%s: refused, but this driver should give a fresh context: %s",
          label, why);
    check_refusal(label, s, c, why);
}

/* One fault case: a fresh context, a working launch, the fault, its report, later calls,
 * a new context while this one lives, destroying it, another new context. `launch`
 * starts the faulting kernel; `want` is text the report must contain. */
typedef void (*Launcher)(nr_context *ctx, const Mod *m, nr_devptr buf, CudaKernel *trap);

typedef struct Case {
    const char *what;
    Launcher launch;
    const char *const *want;
    bool notice_at_launch; /* the next nr_launch meets the fault, not nr_synchronize */
    AfterFault after;
} Case;

static void run_case(const Case *c) {
    const char *what = c->what;
    printf("-- %s\n", what);
    nr_context *ctx;
    char why[1024];
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
    CHECK(nr_malloc(ctx, sizeof h, &buf) == NR_OK && nr_memcpy_htod(ctx, buf, h, sizeof h) == NR_OK,
          "set-up");
    CudaKernel trap = {0};
    c->launch(ctx, &m, buf, &trap);
    nr_status s;
    const char *who;
    if (c->notice_at_launch) { /* the kernel runs and faults; the next launch meets it */
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
    CHECK(s == NR_ERR_LAUNCH, "%s: %s returned %s, not NR_ERR_LAUNCH", what, who,
          nr_status_string(s));
    for (const char *const *w = c->want; *w; w++)
        CHECK(strstr(report, *w), "%s: the report lacks '%s'", what, *w);
    CHECK(strstr(report, "unusable now") && strstr(report, "new process"),
          "%s: the report should say the context is unusable now and that a new process may be "
          "needed",
          what);
    later_calls_fail(ctx, &m, buf, what);
    if (trap.module) cuda_unload(ctx->cuda, &trap);

    new_context_after_fault(what, "a new context while the faulted one lives", c->after);
    nr_context_destroy(ctx); /* clean, no driver call that could hang */
    new_context_after_fault(what, "a new context after destroying the faulted one", c->after);
}

static void launch_oob(nr_context *ctx, const Mod *m, nr_devptr buf, CudaKernel *trap) {
    (void)trap;
    nr_arg a[2] = {nr_arg_ptr(buf), nr_arg_i64((int64_t)1 << 40)};
    unsigned grid[3] = {1, 1, 1};
    CHECK(nr_launch(m->oob, grid, a, 2, NULL) == NR_OK, "queueing oob_store: %s",
          nr_last_error(ctx));
}

static void launch_assert(nr_context *ctx, const Mod *m, nr_devptr buf, CudaKernel *trap) {
    (void)trap;
    nr_arg a[2] = {nr_arg_ptr(buf), nr_arg_i32(N)};
    unsigned grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
    CHECK(nr_launch(m->asrt, grid, a, 2, NULL) == NR_OK, "queueing assert_small: %s",
          nr_last_error(ctx));
}

static void launch_trap(nr_context *ctx, const Mod *m, nr_devptr buf, CudaKernel *trap) {
    (void)m;
    StrBuf err;
    sb_init(&err);
    uint64_t arg = buf;
    void *params[] = {&arg};
    unsigned grid[3] = {1, 1, 1};
    int rc = cuda_load(ctx->cuda, trap_ptx, "trap_kernel", NULL, 0, 0, trap, &err);
    if (rc == 0) rc = cuda_launch(ctx->cuda, trap, grid, 1, params, NULL, &err);
    CHECK(rc == 0, "loading and launching the trap kernel: %s", sb_cstr(&err));
    sb_free(&err);
}

/* Two contexts on one device: the fault poisons the device's context for both. While
 * the second still holds it, no driver can give a working context: a third one must be
 * refused. Once both have noticed, a new one is up to the driver, as in run_case. */
static void two_contexts(const Case *cs) {
    const char *what = cs->what;
    printf("-- %s\n", what);
    nr_context *a, *b;
    char why[1024];
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
    if (compile(a, &ma) && compile(b, &mb) && works(a, &ma, "context a") &&
        works(b, &mb, "context b")) {
        nr_devptr buf;
        nr_malloc(a, 4096, &buf);
        launch_oob(a, &ma, buf, NULL);
        nr_status sa = nr_synchronize(a);
        CHECK(sa == NR_ERR_LAUNCH && strstr(nr_last_error(a), "oob_store"), "context a: %s: %s",
              nr_status_string(sa), nr_last_error(a));
        /* b has not met the fault yet: it still holds the poisoned primary context */
        nr_context *c = NULL;
        nr_status sc = nr_context_create_ex(NR_DEVICE_CUDA, 0, &c, why, sizeof why);
        printf("a third context while context b holds the poisoned one: %s%s\n",
               sc ? "refused: " : "created", sc ? why : "");
        CHECK(sc != NR_OK,
              "%s: a third context while context b holds the poisoned primary context was created",
              what);
        if (sc == NR_OK) nr_context_destroy(c);
        else check_refusal("a third context while context b holds the poisoned one", sc, c, why);
        nr_status sb = nr_synchronize(b);
        CHECK(sb == NR_ERR_LAUNCH && strstr(nr_last_error(b), "CUDA_ERROR_ILLEGAL_ADDRESS"),
              "context b (same device) should report the fault too: %s: %s", nr_status_string(sb),
              nr_last_error(b));
        CHECK(nr_synchronize(b) == NR_ERR_DEVICE, "context b afterwards: %s", nr_last_error(b));
        /* both have let the driver's context go */
        new_context_after_fault(what, "a third context after both noticed the fault", cs->after);
    }
    nr_context_destroy(b);
    nr_context_destroy(a);
}

/* ---- one child process per case ---- */

enum { WATCHDOG_S = 120 };

/* What a child sends back. */
typedef struct Result {
    int passed, failed;
    int have_gpu;  /* the probe: a CUDA context could be created */
    char why[512]; /* the probe: why not */
} Result;

typedef void (*Body)(const Case *c, Result *r);

static void probe_gpu(const Case *c, Result *r) {
    (void)c;
    nr_context *ctx;
    if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &ctx, r->why, sizeof r->why)) return;
    r->have_gpu = 1;
    nr_context_destroy(ctx);
}

static void run_case_body(const Case *c, Result *r) {
    (void)r;
    run_case(c);
}

static void two_contexts_body(const Case *c, Result *r) {
    (void)r;
    two_contexts(c);
}

static bool write_all(int fd, const void *p, size_t n) {
    const char *b = p;
    while (n) {
        ssize_t k = write(fd, b, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        b += k, n -= (size_t)k;
    }
    return true;
}

static size_t read_all(int fd, void *p, size_t n) {
    char *b = p;
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, b + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    return got;
}

/* Run body(c) in a child process: a kernel fault may cost a process its device for good,
 * so each case gets a process of its own, and this one never initialises CUDA. The
 * child's counts come back through a pipe and are added to st; a child that dies (the
 * watchdog alarm kills one that hangs), sends no result, or exits otherwise than its
 * counts say (a sanitizer's report at exit, a leak say) is a failure naming `name`.
 * Returns whether the child finished normally; *out is its result. */
static bool in_child(const char *name, Body body, const Case *c, Result *out) {
    memset(out, 0, sizeof *out);
    int fd[2];
    if (pipe(fd)) {
        CHECK(0, "%s: pipe: %s", name, strerror(errno));
        return false;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        CHECK(0, "%s: fork: %s", name, strerror(errno));
        close(fd[0]), close(fd[1]);
        return false;
    }
    if (pid == 0) {
        close(fd[0]);
        st = (CheckState){0, 0};
        alarm(WATCHDOG_S); /* a hang: SIGALRM kills the child */
        Result r;
        memset(&r, 0, sizeof r);
        body(c, &r);
        alarm(0);
        r.passed = st.passed, r.failed = st.failed;
        bool sent = write_all(fd[1], &r, sizeof r);
        close(fd[1]);
        exit(sent && !r.failed ? 0 : 1);
    }
    close(fd[1]);
    bool whole = read_all(fd[0], out, sizeof *out) == sizeof *out;
    close(fd[0]);
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {}
    if (whole) {
        out->why[sizeof out->why - 1] = 0;
        st.passed += out->passed, st.failed += out->failed;
    }
    if (w < 0) {
        CHECK(0, "%s: waitpid: %s", name, strerror(errno));
        return false;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (sig == SIGALRM)
            CHECK(0, "%s: the case hung: the watchdog killed its process after %d s", name,
                  (int)WATCHDOG_S);
        else
            CHECK(0, "%s: the case's process died of signal %d (%s)%s", name, sig, strsignal(sig),
                  whole ? " after sending its result" : "");
        return false;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (!whole) {
        CHECK(0, "%s: the case's process exited with status %d without sending its result", name,
              code);
        return false;
    }
    if (code != (out->failed ? 1 : 0)) {
        CHECK(0,
              "%s: the case's process exited with status %d after %d failed checks (a sanitizer's "
              "report?)",
              name, code, out->failed);
        return false;
    }
    return true;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    AfterFault after = AFTER_EITHER;
    const char *af = getenv("NEREID_TEST_AFTER_FAULT");
    if (af && *af) {
        if (!strcmp(af, "works")) after = AFTER_WORKS;
        else if (!strcmp(af, "refused")) after = AFTER_REFUSED;
        else {
            printf("test_gpu_faults: NEREID_TEST_AFTER_FAULT=%s: want 'works' or 'refused' (or "
                   "unset: either)\n",
                   af);
            return 1;
        }
    }
    cpu_assert_location(); /* the CPU interpreter only: no CUDA in this process */

    Result probe;
    if (!in_child("probing for a CUDA device", probe_gpu, NULL, &probe))
        return check_done("test_gpu_faults", &st);
    if (!probe.have_gpu) {
        const char *req = getenv("NEREID_REQUIRE_GPU");
        if (req && *req && strcmp(req, "0")) {
            printf("test_gpu_faults: FAILED: NEREID_REQUIRE_GPU is set and there is no CUDA device "
                   "(%s)\n",
                   probe.why);
            return 1;
        }
        if (st.failed) return check_done("test_gpu_faults", &st);
        printf("SKIP: no CUDA device (%s)\n", probe.why);
        return 0;
    }

    char assert_text[256];
    snprintf(assert_text, sizeof assert_text,
             "device_assert failed in kernel 'assert_small' at %s: value too large", assert_where);
    static const char *const want_oob[] = {"oob_store", "CUDA_ERROR_ILLEGAL_ADDRESS", NULL};
    const char *const want_assert[] = {assert_text, "CUDA_ERROR_ASSERT", NULL};
    static const char *const want_trap[] = {"a kernel faulted", "CUDA_ERROR_", NULL};
    const Case cases[] = {
        {"out-of-bounds store", launch_oob, want_oob, false, after},
        {"device_assert", launch_assert, want_assert, false, after},
        {"trap", launch_trap, want_trap, false, after},
        {"out-of-bounds store noticed by the next launch", launch_oob, want_oob, true, after},
        {"two contexts on one device", NULL, NULL, false, after},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Result r;
        in_child(cases[i].what, cases[i].launch ? run_case_body : two_contexts_body, &cases[i], &r);
    }
    return check_done("test_gpu_faults", &st);
}
