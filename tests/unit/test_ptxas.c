/* test_ptxas.c - finding and running ptxas (driver/ptxas.h) without a GPU, with the
 * stand-in ptxas beside the mock driver (tests/mock/ptxas, found from this program's
 * path: build/tests/../../tests/mock/ptxas):
 *   - ptxas_find: NEREID_PTXAS names the one to run ("none", empty, a missing file or a
 *     folder: none at all, nothing else tried); then TRITON_PTXAS_PATH; then the CUDA
 *     toolkit's and PATH's (PATH checked only where /usr/local/cuda has no ptxas);
 *   - ptxas_run: the cubin is what ptxas wrote (for the stand-in: its header, then the
 *     PTX, byte for byte) and the log what it printed; a ptxas that fails, writes no cubin,
 *     dies of a signal, hangs (killed after NEREID_PTXAS_TIMEOUT seconds) or cannot be
 *     run, and a temporary folder that cannot be made, each give -1, no cubin and a log
 *     line saying which;
 *   - 8 threads running it 12 times each at once: every cubin right, and no temporary
 *     folder left behind.
 * Ends with "test_ptxas: N passed, M failed". */
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver/ptxas.h"
#include "tests/unit/check.h"

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

static char stand_in[1200];
static const char ptx[] = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                          ".visible .entry k()\n{\n\tret;\n}\n";

/* The stand-in's cubin of ptx for arch: "NRMOCKCUBIN ARCH\n" and the PTX. */
static bool stand_in_cubin(const unsigned char *c, size_t n, const char *arch) {
    char head[64];
    int h = snprintf(head, sizeof head, "NRMOCKCUBIN %s\n", arch);
    return c && n == (size_t)h + strlen(ptx) && !memcmp(c, head, (size_t)h) &&
           !memcmp(c + h, ptx, strlen(ptx));
}

static void finding(void) {
    char buf[4096];
    setenv("NEREID_PTXAS", stand_in, 1);
    const char *p = ptxas_find(buf, sizeof buf);
    CHECK(p && !strcmp(p, stand_in), "NEREID_PTXAS names it: %s", p ? p : "(none)");
    static const char *const none[] = {"none", "", "/nonexistent/ptxas", "/tmp"};
    for (int i = 0; i < 4; i++) {
        setenv("NEREID_PTXAS", none[i], 1);
        p = ptxas_find(buf, sizeof buf);
        CHECK(!p, "NEREID_PTXAS='%s' gives no ptxas, got %s", none[i], p);
    }
    unsetenv("NEREID_PTXAS");
    setenv("TRITON_PTXAS_PATH", stand_in, 1);
    p = ptxas_find(buf, sizeof buf);
    CHECK(p && !strcmp(p, stand_in), "TRITON_PTXAS_PATH names it: %s", p ? p : "(none)");
    unsetenv("TRITON_PTXAS_PATH");
    if (access("/usr/local/cuda/bin/ptxas", X_OK) != 0) { /* else the toolkit's comes first */
        char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL, dir[1300];
        char *oldh = getenv("CUDA_HOME") ? strdup(getenv("CUDA_HOME")) : NULL;
        unsetenv("CUDA_HOME"), unsetenv("CUDA_PATH");
        snprintf(dir, sizeof dir, "/nonexistent:%s", stand_in);
        *strrchr(dir, '/') = '\0'; /* the stand-in's folder */
        setenv("PATH", dir, 1);
        p = ptxas_find(buf, sizeof buf);
        CHECK(p && !strcmp(p, stand_in), "PATH=%s finds %s: %s", dir, stand_in, p ? p : "(none)");
        if (old) setenv("PATH", old, 1);
        if (oldh) setenv("CUDA_HOME", oldh, 1);
        free(old), free(oldh);
    }
}

/* One run of the stand-in with CUDA_MOCK_PTXAS=mode ("" normal): its status; the log in
 * log, checked to contain want. */
static void run_mode(const char *mode, int want_rc, const char *want_log) {
    if (*mode) setenv("CUDA_MOCK_PTXAS", mode, 1);
    else unsetenv("CUDA_MOCK_PTXAS");
    unsigned char *c = (unsigned char *)"x";
    size_t n = 7;
    StrBuf log;
    sb_init(&log);
    int rc = ptxas_run(stand_in, "sm_90a", NULL, ptx, strlen(ptx), &c, &n, &log);
    CHECK(rc == want_rc, "mode '%s': ptxas_run returned %d, want %d (log: %s)", mode, rc, want_rc,
          sb_cstr(&log));
    if (want_rc == 0)
        CHECK(stand_in_cubin(c, n, "sm_90a"), "mode '%s': the cubin is the stand-in's", mode);
    else CHECK(c == NULL && n == 0, "mode '%s': a failure gives no cubin", mode);
    CHECK(strstr(sb_cstr(&log), want_log), "mode '%s': the log says '%s': %s", mode, want_log,
          sb_cstr(&log));
    free(c);
    sb_free(&log);
    unsetenv("CUDA_MOCK_PTXAS");
}

static void running(void) {
    run_mode("", 0, "mock compile");
    run_mode("fail", -1, "exited with status 1");
    run_mode("fail", -1, "mock failure");
    run_mode("empty", -1, "wrote no cubin");
    run_mode("signal", -1, "killed by signal 9");
    setenv("NEREID_PTXAS_TIMEOUT", "0.5", 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run_mode("hang", -1, "did not finish within 0.5 s");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    CHECK(took < 10, "a hung ptxas was given up on after %.1f s (limit 0.5 s)", took);
    unsetenv("NEREID_PTXAS_TIMEOUT");
    /* extra options go before -arch, and -v is harmless to the stand-in */
    static const char *const verbose[] = {"-v", NULL};
    unsigned char *c = NULL;
    size_t n = 0;
    CHECK(ptxas_run(stand_in, "sm_80", verbose, ptx, strlen(ptx), &c, &n, NULL) == 0 &&
              stand_in_cubin(c, n, "sm_80"),
          "-v and sm_80: the stand-in's cubin for sm_80");
    free(c);
    c = NULL;
    StrBuf log;
    sb_init(&log);
    CHECK(ptxas_run("/nonexistent/ptxas", "sm_90a", NULL, ptx, strlen(ptx), &c, &n, &log) == -1 &&
              !c && strstr(sb_cstr(&log), "cannot run /nonexistent/ptxas"),
          "a ptxas that does not exist: %s", sb_cstr(&log));
    sb_free(&log);
    sb_init(&log);
    char *tmp = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
    setenv("TMPDIR", "/nonexistent/tmp", 1);
    CHECK(ptxas_run(stand_in, "sm_90a", NULL, ptx, strlen(ptx), &c, &n, &log) == -1 && !c &&
              strstr(sb_cstr(&log), "cannot make a temporary folder"),
          "TMPDIR that does not exist: %s", sb_cstr(&log));
    if (tmp) setenv("TMPDIR", tmp, 1);
    else unsetenv("TMPDIR");
    free(tmp);
    sb_free(&log);
}

enum { THREADS = 8, RUNS = 12 };

static void *worker(void *arg) {
    int *bad = arg;
    for (int i = 0; i < RUNS; i++) {
        unsigned char *c = NULL;
        size_t n = 0;
        if (ptxas_run(stand_in, "sm_90a", NULL, ptx, strlen(ptx), &c, &n, NULL) ||
            !stand_in_cubin(c, n, "sm_90a"))
            ++*bad;
        free(c);
    }
    return NULL;
}

/* The entries of dir named nereid-ptxas-* */
static int leftovers(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += !strncmp(e->d_name, "nereid-ptxas-", 13);
    if (d) closedir(d);
    return n;
}

static void threads(void) {
    char dir[] = "/tmp/nereid-test-ptxas-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp %s", dir);
        return;
    }
    setenv("TMPDIR", dir, 1);
    pthread_t t[THREADS];
    int bad[THREADS] = {0}, total = 0;
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, &bad[i]);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL), total += bad[i];
    CHECK(total == 0, "%d of %d runs on %d threads at once went wrong", total, THREADS * RUNS,
          THREADS);
    CHECK(leftovers(dir) == 0, "%d temporary folders left in %s", leftovers(dir), dir);
    unsetenv("TMPDIR");
    rmdir(dir);
}

int main(void) {
    char self[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return printf("test_ptxas: cannot find this program's path\n"), 1;
    self[n] = 0;
    *strrchr(self, '/') = '\0';
    snprintf(stand_in, sizeof stand_in, "%s/../../tests/mock/ptxas", self);
    char *real = realpath(stand_in, NULL);
    if (!real || access(real, X_OK)) {
        printf("test_ptxas: FAILED: no stand-in ptxas at %s\n", stand_in);
        free(real);
        return 1;
    }
    snprintf(stand_in, sizeof stand_in, "%s", real);
    free(real);
    unsetenv("NEREID_PTXAS"), unsetenv("TRITON_PTXAS_PATH");
    finding();
    running();
    threads();
    return check_done("test_ptxas", &st);
}
