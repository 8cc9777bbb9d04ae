/* test_tuner.c - the tuner's rules through the API (nr_tuner_*), with made-up launches
 * whose "speed" the test decides, on the CPU device: the fastest config is chosen, a
 * config that cannot run never is (and only failures give "no config could run"), a
 * device error stops the tuning, a choice is kept in memory and in the cache directory
 * (a new tuner with the same identity takes it without timing; another identity times
 * again), early_config_prune and the performance model with top_k (an integer, a
 * fraction, and Triton's default, every config), the binding's own bench, the hooks
 * around each timed launch, reset_to_zero and restore_value buffers around timed
 * launches and zeroed once more at the end, and the options checked. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "nereid.h"

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

enum { N = 4 };
static const char *texts[N] = {"B=16, num_warps=4, num_stages=3", "B=32, num_warps=4, num_stages=3",
                               "B=64, num_warps=4, num_stages=3",
                               "B=128, num_warps=4, num_stages=3"};

typedef struct Fake {
    double cost_us[N]; /* how long a launch of each config takes (busy wait) */
    bool fails[N];     /* this config cannot run */
    bool device_error; /* every launch is a device error */
    int launches[N], before[N], after[N];
    int *buf;           /* a reset/restore buffer the launches write */
    int seen_at_launch; /* buf[0] at the last launch */
    int keep;           /* prune: keep configs >= keep */
} Fake;

static void spin(double us) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3 < us);
}

static nr_status launch(void *user, int c) {
    Fake *f = user;
    f->launches[c]++;
    if (f->device_error) return NR_ERR_DEVICE;
    if (f->fails[c]) return NR_ERR_LAUNCH;
    if (f->buf) f->seen_at_launch = f->buf[0], f->buf[0] += 5, f->buf[1] = 99;
    spin(f->cost_us[c]);
    return NR_OK;
}
static nr_status before(void *user, int c) { return ((Fake *)user)->before[c]++, NR_OK; }
static nr_status after(void *user, int c) { return ((Fake *)user)->after[c]++, NR_OK; }
static nr_status prune(void *user, int *cand, int *n) {
    Fake *f = user;
    int k = 0;
    for (int i = 0; i < *n; i++)
        if (cand[i] >= f->keep) cand[k++] = cand[i];
    *n = k;
    return NR_OK;
}
static nr_status estimate(void *user, int c, double *e) { /* the model thinks larger is faster */
    (void)user;
    *e = -c;
    return NR_OK;
}
static nr_status bench(void *user, int c, double *ms) {
    Fake *f = user;
    f->launches[c]++;
    *ms = c == 1 ? 0.5 : 2.0;
    return NR_OK;
}

static nr_tuner *tuner(nr_context *ctx, const char *identity, double top_k, int fraction) {
    nr_tune_options o = {"fake", N, texts, identity, 1, 2, top_k, fraction};
    nr_tuner *t = NULL;
    nr_status s = nr_tuner_create(ctx, &o, &t);
    CHECK(s == NR_OK, "nr_tuner_create: %s", nr_last_error(ctx));
    return t;
}

static int total(const int *a) { return a[0] + a[1] + a[2] + a[3]; }

static void test_choose(nr_context *ctx, const char *id) {
    nr_tuner *t = tuner(ctx, id, 0, 0);
    Fake f = {.cost_us = {300, 40, 200, 500}};
    nr_tune_calls calls = {&f, launch, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int chosen = -1;
    double times[N];
    nr_status s = nr_tuner_choose(t, "n=1024", NULL, 0, &calls, &chosen, times);
    CHECK(s == NR_OK && chosen == 1, "the fastest is config 1, got %d (%s)", chosen,
          nr_last_error(ctx));
    for (int i = 0; i < N; i++)
        CHECK(f.launches[i] > 1 && isfinite(times[i]), "config %d timed: %d launches", i,
              f.launches[i]);
    CHECK(times[1] < times[0] && times[1] < times[3], "times: %g %g %g %g", times[0], times[1],
          times[2], times[3]);
    int before = total(f.launches);
    s = nr_tuner_choose(t, "n=1024", NULL, 0, &calls, &chosen, times);
    CHECK(s == NR_OK && chosen == 1 && total(f.launches) == before,
          "the same key again: from memory, no launch");
    CHECK(isinf(times[0]), "nothing timed the second time");
    nr_tuner_destroy(t);
    /* a new tuner (a new process, as far as memory goes): from the disk, no launch */
    t = tuner(ctx, id, 0, 0);
    memset(f.launches, 0, sizeof f.launches);
    s = nr_tuner_choose(t, "n=1024", NULL, 0, &calls, &chosen, NULL);
    CHECK(s == NR_OK && chosen == 1 && total(f.launches) == 0,
          "from the disk: chosen %d, %d launches", chosen, total(f.launches));
    s = nr_tuner_choose(t, "n=2048", NULL, 0, &calls, &chosen, NULL); /* another key: timed */
    CHECK(s == NR_OK && total(f.launches) > 0, "another key is timed");
    nr_tuner_destroy(t);
    /* another identity (another source): timed again */
    t = tuner(ctx, "something else", 0, 0);
    memset(f.launches, 0, sizeof f.launches);
    s = nr_tuner_choose(t, "n=1024", NULL, 0, &calls, &chosen, NULL);
    CHECK(s == NR_OK && total(f.launches) > 0, "another identity is timed");
    nr_tuner_destroy(t);
}

static void test_failures(nr_context *ctx) {
    nr_tuner *t = tuner(ctx, NULL, 0, 0);
    Fake f = {.cost_us = {10, 10, 10, 10}, .fails = {true, false, true, true}};
    nr_tune_calls calls = {&f, launch, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int chosen = -1;
    double times[N];
    nr_status s = nr_tuner_choose(t, "k", NULL, 0, &calls, &chosen, times);
    CHECK(s == NR_OK && chosen == 1, "the one config that runs, got %d", chosen);
    CHECK(isinf(times[0]) && isfinite(times[1]), "a failed config is infinitely slow");
    f.fails[1] = true;
    s = nr_tuner_choose(t, "k2", NULL, 0, &calls, &chosen, NULL);
    CHECK(s == NR_ERR_LAUNCH && chosen == -1 && strstr(nr_last_error(ctx), "no config could run"),
          "none runs: %d, %s", s, nr_last_error(ctx));
    memset(&f, 0, sizeof f);
    f.device_error = true;
    s = nr_tuner_choose(t, "k3", NULL, 0, &calls, &chosen, NULL);
    CHECK(s == NR_ERR_DEVICE && total(f.launches) == 1,
          "a device error stops at once: %d after %d launches", s, total(f.launches));
    nr_tuner_destroy(t);
}

static void test_pruning(nr_context *ctx) {
    Fake f = {.cost_us = {10, 10, 10, 10}};
    int chosen;
    /* early_config_prune leaves one: taken untimed */
    nr_tuner *t = tuner(ctx, NULL, 0, 0);
    f.keep = 3;
    nr_tune_calls calls = {&f, launch, NULL, NULL, NULL, prune, NULL, NULL, NULL};
    nr_status s = nr_tuner_choose(t, "a", NULL, 0, &calls, &chosen, NULL);
    CHECK(s == NR_OK && chosen == 3 && total(f.launches) == 0, "one left by pruning, untimed: %d",
          chosen);
    f.keep = 9; /* none left */
    s = nr_tuner_choose(t, "b", NULL, 0, &calls, &chosen, NULL);
    CHECK(s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "left no config"), "%s",
          nr_last_error(ctx));
    nr_tuner_destroy(t);
    /* perf_model, top_k 2 (an integer): the two the model likes, 3 and 2, are timed */
    t = tuner(ctx, NULL, 2, 0);
    memset(f.launches, 0, sizeof f.launches);
    nr_tune_calls model = {&f, launch, NULL, NULL, NULL, NULL, estimate, NULL, NULL};
    s = nr_tuner_choose(t, "c", NULL, 0, &model, &chosen, NULL);
    CHECK(s == NR_OK && f.launches[0] == 0 && f.launches[1] == 0 && f.launches[2] && f.launches[3],
          "top_k=2: configs 2 and 3 timed: %d %d %d %d", f.launches[0], f.launches[1],
          f.launches[2], f.launches[3]);
    nr_tuner_destroy(t);
    /* top_k 0.25 as a fraction of 4: one config, untimed */
    t = tuner(ctx, NULL, 0.25, 1);
    memset(f.launches, 0, sizeof f.launches);
    s = nr_tuner_choose(t, "d", NULL, 0, &model, &chosen, NULL);
    CHECK(s == NR_OK && chosen == 3 && total(f.launches) == 0,
          "top_k=0.25: config 3 untimed, got %d", chosen);
    nr_tuner_destroy(t);
    /* Triton's default top_k (1.0, a fraction): every config timed */
    t = tuner(ctx, NULL, 0, 0);
    memset(f.launches, 0, sizeof f.launches);
    s = nr_tuner_choose(t, "e", NULL, 0, &model, &chosen, NULL);
    CHECK(s == NR_OK && f.launches[0] && f.launches[1] && f.launches[2] && f.launches[3],
          "the default top_k keeps all");
    nr_tuner_destroy(t);
}

static void test_bench_and_hooks(nr_context *ctx) {
    nr_tuner *t = tuner(ctx, NULL, 0, 0);
    Fake f = {.cost_us = {10, 10, 10, 10}};
    nr_tune_calls with_bench = {&f, launch, NULL, NULL, bench, NULL, NULL, NULL, NULL};
    int chosen;
    nr_status s = nr_tuner_choose(t, "a", NULL, 0, &with_bench, &chosen, NULL);
    CHECK(s == NR_OK && chosen == 1 && total(f.launches) == N, "the binding's bench decides: %d",
          chosen);
    memset(&f, 0, sizeof f);
    nr_tune_calls hooks = {&f, launch, before, after, NULL, NULL, NULL, NULL, NULL};
    s = nr_tuner_choose(t, "b", NULL, 0, &hooks, &chosen, NULL);
    for (int i = 0; i < N; i++)
        CHECK(f.before[i] == f.launches[i] && f.after[i] == f.launches[i] && f.launches[i] > 1,
              "config %d: every launch between its hooks: %d %d %d", i, f.before[i], f.launches[i],
              f.after[i]);
    nr_tuner_destroy(t);
}

static void test_buffers(nr_context *ctx) {
    nr_tuner *t = tuner(ctx, NULL, 0, 0);
    int *zero = calloc(4, sizeof *zero), *keep = calloc(4, sizeof *keep);
    Fake f = {.cost_us = {10, 10, 10, 10}};
    f.buf = zero;
    zero[0] = 7;
    nr_tune_buffer bufs[1] = {{(nr_devptr)(uintptr_t)zero, 4 * sizeof *zero, 0}};
    nr_tune_calls calls = {&f, launch, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int chosen;
    nr_status s = nr_tuner_choose(t, "a", bufs, 1, &calls, &chosen, NULL);
    CHECK(s == NR_OK && f.seen_at_launch == 0,
          "reset_to_zero: zeroed before each timed launch (saw %d)", f.seen_at_launch);
    CHECK(zero[0] == 0 && zero[1] == 0, "and zeroed once more for the real launch: %d %d", zero[0],
          zero[1]);
    f.buf = keep;
    keep[0] = 40;
    bufs[0] = (nr_tune_buffer){(nr_devptr)(uintptr_t)keep, 4 * sizeof *keep, 1};
    s = nr_tuner_choose(t, "b", bufs, 1, &calls, &chosen, NULL);
    CHECK(s == NR_OK && f.seen_at_launch == 40,
          "restore_value: every launch saw the value before timing (%d)", f.seen_at_launch);
    CHECK(keep[0] == 40 && keep[1] == 0, "restored after timing: %d %d", keep[0], keep[1]);
    free(zero);
    free(keep);
    nr_tuner_destroy(t);
}

static void test_options(nr_context *ctx) {
    nr_tuner *t = NULL;
    nr_tune_options none = {"k", 0, texts, NULL, 0, 0, 0, 0};
    CHECK(nr_tuner_create(ctx, &none, &t) == NR_ERR_INVALID_ARG && !t, "no configs");
    nr_tune_options neg = {"k", N, texts, NULL, -1, 0, 0, 0};
    CHECK(nr_tuner_create(ctx, &neg, &t) == NR_ERR_INVALID_ARG, "a negative warm-up");
    CHECK(nr_tuner_create(NULL, &none, &t) == NR_ERR_INVALID_ARG, "no context");
    t = tuner(ctx, NULL, 0, 0);
    int chosen;
    nr_tune_calls nolaunch = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    CHECK(nr_tuner_choose(t, "a", NULL, 0, &nolaunch, &chosen, NULL) == NR_ERR_INVALID_ARG,
          "no launch call");
    nr_tuner_destroy(t);
    nr_tuner_destroy(NULL);
    int def, lo, hi, pow2;
    CHECK(nr_option_info("num_warps", &def, &lo, &hi, &pow2) == NR_OK && def == 4 && lo == 1 &&
              hi == 32 && pow2,
          "num_warps: %d %d %d %d", def, lo, hi, pow2);
    CHECK(nr_option_info("num_stages", &def, &lo, &hi, &pow2) == NR_OK && def == 3 && hi == 8 &&
              !pow2,
          "num_stages");
    CHECK(nr_option_info("num_gpus", NULL, NULL, NULL, NULL) == NR_ERR_NOT_FOUND,
          "an unknown option");
}

int main(void) {
    char dir[] = "/tmp/nereid-tuner-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("NEREID_CACHE_DIR", dir, 1);
    nr_context *ctx;
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx)) return 1;
    test_choose(ctx, "source of the fake kernel");
    test_failures(ctx);
    test_pruning(ctx);
    test_bench_and_hooks(ctx);
    test_buffers(ctx);
    test_options(ctx);
    nr_context_destroy(ctx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) return 1;
    return check_done("test_tuner", &st);
}
