/* tuner.c - the autotuner's rules (nereid.h, nr_tuner_*), over callbacks: the C API's
 * tuned kernels (autotune.c) and the Python package's nereid.autotune both choose their
 * configs here.
 *
 * A choice for a key comes from memory, else from the cache directory (under the build's
 * identity, the device, the caller's identity text and the key), else from timing.
 * Timing follows Triton's rules: the binding prunes (early_config_prune), a performance
 * model keeps top_k, a single survivor is taken untimed; the others are compiled at once
 * (the binding's compile call, on several threads), then each runs once untimed (it
 * compiles then, if the binding has no compile call), then `warmup` ms of launches estimate one,
 * then `rep` ms of timed launches give the median of batches (with buffers to zero or restore, or
 * hooks, each launch is timed alone, between them, untimed); a config that cannot run counts as
 * infinitely slow; the reset_to_zero buffers are zeroed once more before the real launch.
 * On a GPU whose driver has events, as Triton's do_bench: each timed launch follows a
 * flush of the L2 cache and is timed by two events on the stream (run_on_device), the
 * median of `rep` ms of them; elsewhere (the CPU interpreter, a stand-in driver) the
 * host's clock around a synchronisation of the device. */
#include "tuner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cache_key.h"
#include "compiler/codegen/llvm_gen.h"
#include "compiler/support/options.h"
#include "status.h"

typedef struct Choice {
    char *key;
    int config;
} Choice;

struct nr_tuner {
    nr_context *ctx;
    char *kernel, *identity;
    char **config_text;
    int nconfigs;
    double warmup_ms, rep_ms, top_k;
    bool top_k_fraction;
    Choice *choices;
    int nchoices, capchoices;
};

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

nr_status nr_tuner_create(nr_context *ctx, const nr_tune_options *o, nr_tuner **out) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    if (!o || !out || o->num_configs < 1 || o->num_configs > TUNER_MAX_CONFIGS || !o->config_text)
        return api_fail(ctx, NR_ERR_INVALID_ARG,
                        "nr_tuner_create: options with 1 to %d configs and their texts",
                        TUNER_MAX_CONFIGS);
    if (o->warmup_ms < 0 || o->rep_ms < 0 || o->top_k < 0)
        return api_fail(ctx, NR_ERR_INVALID_ARG,
                        "nr_tuner_create: warmup, rep and top_k must not be negative");
    nr_tuner *t = calloc(1, sizeof *t);
    if (!t) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    t->ctx = ctx;
    t->nconfigs = o->num_configs;
    t->kernel = strdup(o->kernel ? o->kernel : "kernel");
    t->identity = dup_or_null(o->identity);
    t->config_text = calloc((size_t)o->num_configs, sizeof *t->config_text);
    bool ok = t->kernel && t->config_text && (!o->identity || t->identity);
    for (int i = 0; ok && i < o->num_configs; i++)
        ok = (t->config_text[i] = strdup(o->config_text[i] ? o->config_text[i] : "")) != NULL;
    if (!ok) {
        nr_tuner_destroy(t);
        return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    t->warmup_ms = o->warmup_ms > 0 ? o->warmup_ms : 25;
    t->rep_ms = o->rep_ms > 0 ? o->rep_ms : 100;
    t->top_k = o->top_k > 0 ? o->top_k : 1.0; /* 0: Triton's default, 1.0 as a fraction (all) */
    t->top_k_fraction = o->top_k > 0 ? o->top_k_is_fraction != 0 : true;
    *out = t;
    return NR_OK;
}

void nr_tuner_destroy(nr_tuner *t) {
    if (!t) return;
    for (int i = 0; i < t->nchoices; i++) free(t->choices[i].key);
    free(t->choices);
    for (int i = 0; t->config_text && i < t->nconfigs; i++) free(t->config_text[i]);
    free(t->config_text);
    free(t->kernel);
    free(t->identity);
    free(t);
}

/* ---- pruning ---- */

static int tuner_top_k(double top_k, bool fraction, int n) {
    int keep = fraction && top_k <= 1.0 ? (int)(n * top_k) : (int)top_k;
    return keep < 1 ? 1 : keep;
}

/* early_config_prune, then the performance model keeping top_k: the candidates. */
static nr_status prune(nr_tuner *t, const nr_tune_calls *c, int *cand, int *ncand) {
    *ncand = t->nconfigs;
    for (int i = 0; i < t->nconfigs; i++) cand[i] = i;
    if (c->prune) {
        nr_status s = c->prune(c->user, cand, ncand);
        if (s) return s;
        if (*ncand < 1)
            return api_fail(t->ctx, NR_ERR_INVALID_ARG,
                            "kernel '%s': early_config_prune left no config: it "
                            "must return at least one",
                            t->kernel);
        for (int i = 0; i < *ncand; i++)
            if (cand[i] < 0 || cand[i] >= t->nconfigs)
                return api_fail(t->ctx, NR_ERR_INVALID_ARG,
                                "kernel '%s': early_config_prune gave config %d of %d", t->kernel,
                                cand[i], t->nconfigs);
    }
    int keep = tuner_top_k(t->top_k, t->top_k_fraction, *ncand);
    if (!c->estimate || *ncand <= keep) return NR_OK;
    double est[TUNER_MAX_CONFIGS];
    for (int i = 0; i < *ncand; i++) {
        nr_status s = c->estimate(c->user, cand[i], &est[i]);
        if (s) return s;
    }
    for (int i = 1; i < *ncand; i++) /* stable: equal estimates keep the configs' order */
        for (int j = i; j > 0 && est[j] < est[j - 1]; j--) {
            double te = est[j];
            est[j] = est[j - 1], est[j - 1] = te;
            int tc = cand[j];
            cand[j] = cand[j - 1], cand[j - 1] = tc;
        }
    *ncand = keep;
    return NR_OK;
}

/* ---- buffers around timed runs ---- */

typedef struct Buffer {
    uint64_t ptr;
    size_t bytes;
    void *saved; /* restore_value: the contents before timing */
    bool zero;
} Buffer;

static nr_status buffer_op(nr_context *ctx, uint64_t p, const void *from, void *to, size_t n,
                           bool zero) {
    if (!ctx->cuda) {
        if (zero) memset((void *)(uintptr_t)p, 0, n);
        else if (from) memcpy((void *)(uintptr_t)p, from, n);
        else memcpy(to, (const void *)(uintptr_t)p, n);
        return NR_OK;
    }
    StrBuf err;
    sb_init(&err);
    int rc = zero   ? cuda_memset(ctx->cuda, p, 0, n, &err)
             : from ? cuda_htod(ctx->cuda, p, from, n, &err)
                    : cuda_dtoh(ctx->cuda, to, p, n, &err);
    nr_status s = rc ? api_fail(ctx, NR_ERR_DEVICE, "autotuning: %s", sb_cstr(&err)) : NR_OK;
    sb_free(&err);
    return s;
}

static void free_buffers(Buffer *b, int n) {
    for (int i = 0; i < n; i++) free(b[i].saved);
    free(b);
}

/* The buffers with the restore_value ones' contents saved now. */
static nr_status take_buffers(nr_tuner *t, const nr_tune_buffer *in, int n, Buffer **out) {
    *out = calloc((size_t)(n ? n : 1), sizeof **out);
    if (!*out) return api_fail(t->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < n; i++) {
        Buffer *b = &(*out)[i];
        *b = (Buffer){in[i].ptr, in[i].bytes, NULL, !in[i].restore};
        if (!in[i].restore || !in[i].bytes) continue;
        if (!(b->saved = malloc(in[i].bytes)))
            return api_fail(t->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        nr_status s = buffer_op(t->ctx, b->ptr, NULL, b->saved, b->bytes, false);
        if (s) return s;
    }
    return NR_OK;
}

static nr_status zero_buffers(nr_context *ctx, const Buffer *b, int n) {
    for (int i = 0; i < n; i++)
        if (b[i].zero && b[i].bytes) {
            nr_status s = buffer_op(ctx, b[i].ptr, NULL, NULL, b[i].bytes, true);
            if (s) return s;
        }
    return NR_OK;
}

static nr_status restore_buffers(nr_context *ctx, const Buffer *b, int n) {
    for (int i = 0; i < n; i++)
        if (b[i].saved) {
            nr_status s = buffer_op(ctx, b[i].ptr, b[i].saved, NULL, b[i].bytes, false);
            if (s) return s;
        }
    return NR_OK;
}

/* ---- timing ---- */

typedef struct Timing {
    nr_tuner *t;
    const nr_tune_calls *c;
    const Buffer *bufs;
    int nbufs;
    nr_status hard; /* a failure that stops the tuning (buffers, a device error) */
    /* device-side timing (a CUDA driver with events): two events around each timed launch
     * and the buffer whose clearing flushes the L2 cache before it (0: none could be had) */
    void *ev[2];
    uint64_t flush;
} Timing;

/* Triton's do_bench clears a buffer of this size before each timed run: more than any
 * GPU's L2 cache, so no run finds the previous one's data there */
enum { FLUSH_BYTES = 256 << 20 };

static bool hard_status(nr_status s) { return s == NR_ERR_DEVICE; }

static nr_status sync(const Timing *T) {
    nr_context *ctx = T->t->ctx;
    if (!ctx->cuda) return NR_OK;
    return T->c->stream ? nr_stream_synchronize(ctx, T->c->stream) : nr_synchronize(ctx);
}

/* Before a timed launch of config k: the buffers zeroed, the hook called. */
static nr_status prepare_run(Timing *T, int k) {
    nr_status s = zero_buffers(T->t->ctx, T->bufs, T->nbufs);
    if (!s && T->c->before) s = T->c->before(T->c->user, k);
    return s;
}

/* After a launch whose status is s: the hook and the restored buffers; whether it ran. */
static bool finish_run(Timing *T, int k, nr_status s) {
    const nr_tune_calls *c = T->c;
    nr_status after = c->after ? c->after(c->user, k) : NR_OK;
    nr_status restored = restore_buffers(T->t->ctx, T->bufs, T->nbufs);
    if (hard_status(s)) T->hard = s;
    else if (after) T->hard = after;
    else if (restored) T->hard = restored;
    return !s && !T->hard;
}

/* One launch of config k between its untimed preparation and clean-up; *ms its time
 * when ms is not NULL (the launch waited for). false: it failed (T->hard when that stops
 * the tuning). */
static bool run_once(Timing *T, int k, double *ms) {
    nr_status s = prepare_run(T, k);
    if (!s && ms) s = sync(T);
    if (s) return T->hard = s, false;
    double t0 = clock_now_ms();
    s = T->c->launch(T->c->user, k);
    if (!s) s = sync(T);
    if (ms) *ms = clock_now_ms() - t0;
    return finish_run(T, k, s);
}

/* As run_once, timed on the device: the L2 flush, then the launch between two events on
 * the stream, so the host's launch overhead and the flush stay out of *ms. The flush, queued
 * first, keeps the device busy while the host queues the launch: a kernel of a few
 * microseconds is timed alone, not at the rate the host launches it. */
static bool run_on_device(Timing *T, int k, double *ms) {
    nr_context *ctx = T->t->ctx;
    const nr_tune_calls *c = T->c;
    nr_status s = prepare_run(T, k);
    if (s) return T->hard = s, false;
    StrBuf err;
    sb_init(&err);
    int rc = T->flush
                 ? cuda_memset32_async(ctx->cuda, T->flush, 0, FLUSH_BYTES / 4, c->stream, &err)
                 : 0;
    if (!rc) rc = cuda_event_record(ctx->cuda, T->ev[0], c->stream, &err);
    if (rc) s = api_fail(ctx, NR_ERR_DEVICE, "autotuning: %s", sb_cstr(&err));
    if (!s) s = c->launch(c->user, k);
    float dt = 0;
    if (!s) {
        rc = cuda_event_record(ctx->cuda, T->ev[1], c->stream, &err);
        if (!rc) rc = cuda_event_elapsed(ctx->cuda, T->ev[0], T->ev[1], &dt, &err);
        if (rc) s = api_fail(ctx, NR_ERR_DEVICE, "autotuning: %s", sb_cstr(&err));
    }
    sb_free(&err);
    *ms = dt;
    return finish_run(T, k, s);
}

static double median(double *x, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && x[j] < x[j - 1]; j--) {
            double tmp = x[j];
            x[j] = x[j - 1], x[j - 1] = tmp;
        }
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

enum { MAX_REPS = 2000 };

/* Milliseconds per launch of config k, or INFINITY if it cannot run. */
static double time_config(Timing *T, int k) {
    nr_tuner *t = T->t;
    const nr_tune_calls *c = T->c;
    if (c->bench) {
        double ms = INFINITY;
        nr_status s = c->bench(c->user, k, &ms);
        if (hard_status(s)) T->hard = s;
        return s || !(ms >= 0) ? INFINITY : ms;
    }
    bool alone = T->nbufs > 0 || c->before || c->after;
    bool cpu = !t->ctx->cuda;
    /* the first launch compiles for the device (not timed); then warm-up runs, whose mean
     * estimates a launch */
    int runs = 0;
    double t0 = 0, est = 0;
    for (int first = 1;; first = 0) {
        if (!run_once(T, k, NULL)) return INFINITY;
        if (first) {
            t0 = clock_now_ms();
            continue;
        }
        runs++;
        double spent = clock_now_ms() - t0;
        est = spent / runs;
        if (spent >= t->warmup_ms || runs >= 1000 || (cpu && spent >= 1)) break;
    }
    if (T->ev[0]) { /* on the device: `rep` ms of flushed, event-timed launches */
        double w0 = clock_now_ms(), times[MAX_REPS];
        int n = 0;
        for (int reps = 5; n < reps; n++) {
            if (!run_on_device(T, k, &times[n])) return INFINITY;
            if (n == 2) { /* three runs estimate one's cost, the flush and the waits included */
                double per = (clock_now_ms() - w0) / 3;
                reps = per > 0 ? (int)(t->rep_ms / per) : MAX_REPS;
                reps = reps < 5 ? 5 : reps > MAX_REPS ? MAX_REPS : reps;
            }
        }
        return median(times, n);
    }
    if (est <= 0) est = 1e-3;
    int reps = (int)(t->rep_ms / est);
    reps = reps < 5 ? 5 : reps > MAX_REPS ? MAX_REPS : reps;
    if (cpu && est * reps > 4 * t->rep_ms)
        reps = 1; /* the interpreter: slow launches, few of them */
    double times[MAX_REPS];
    int n = 0;
    if (alone) { /* each launch alone, between its preparation and clean-up */
        for (int r = 0; r < reps; r++)
            if (!run_once(T, k, &times[n++])) return INFINITY;
    } else { /* batches of back-to-back launches */
        int batch = reps / 5 > 0 ? reps / 5 : 1;
        for (int b = 0; b < 5; b++) {
            double s0 = clock_now_ms();
            for (int r = 0; r < batch; r++) {
                nr_status s = c->launch(c->user, k);
                if (s) return T->hard = hard_status(s) ? s : NR_OK, INFINITY;
            }
            nr_status s = sync(T);
            if (s) return T->hard = hard_status(s) ? s : NR_OK, INFINITY;
            times[n++] = (clock_now_ms() - s0) / batch;
        }
    }
    return median(times, n);
}

/* ---- choices ---- */

/* NEREID_PRINT_AUTOTUNING=1, or Triton's TRITON_PRINT_AUTOTUNING=1 (its users' switch for
 * the same report) */
static bool print_wanted(void) {
    const char *e = getenv("NEREID_PRINT_AUTOTUNING"), *t = getenv("TRITON_PRINT_AUTOTUNING");
    return (e && !strcmp(e, "1")) || (t && !strcmp(t, "1"));
}

/* The disk cache's key of a choice: the build's identity (as for compiled kernels, so
 * that eviction treats both alike), then the device, the caller's identity and the key. */
static void disk_key(const nr_tuner *t, const char *key, StrBuf *build, StrBuf *text) {
    unsigned v[3];
    llvm_gen_version(&v[0], &v[1], &v[2]);
    cache_key_build(build, v);
    sb_putn(text, build->data, build->len);
    sb_puts(text, "|autotune 2|");
    nr_context *ctx = t->ctx;
    if (ctx->cuda)
        sb_printf(text, "cuda %s cc %d|", cuda_device_name(ctx->cuda),
                  cuda_compute_capability(ctx->cuda));
    else sb_puts(text, "cpu|");
    sb_printf(text, "%zu:%s|%zu:%s|%zu:", strlen(t->kernel), t->kernel, strlen(key), key,
              strlen(t->identity));
    sb_puts(text, t->identity);
}

static int from_disk(const nr_tuner *t, const CacheKey *ck) {
    size_t len;
    char *hit = cache_get(ck, &len);
    int c = -1;
    if (hit && (sscanf(hit, "config %d", &c) != 1 || c < 0 || c >= t->nconfigs)) c = -1;
    free(hit);
    return c;
}

static void to_disk(const nr_tuner *t, const CacheKey *ck, int chosen, double ms) {
    StrBuf payload;
    sb_init(&payload);
    sb_printf(&payload, "config %d\n%s\n%.6f ms\n", chosen, t->config_text[chosen], ms);
    cache_put(ck, payload.data, payload.len);
    sb_free(&payload);
}

static int remembered(const nr_tuner *t, const char *key) {
    for (int i = 0; i < t->nchoices; i++)
        if (!strcmp(t->choices[i].key, key)) return t->choices[i].config;
    return -1;
}

static nr_status remember(nr_tuner *t, const char *key, int config) {
    if (t->nchoices == t->capchoices) {
        int cap = t->capchoices ? t->capchoices * 2 : 8;
        Choice *nc = realloc(t->choices, sizeof *nc * (size_t)cap);
        if (!nc) return api_fail(t->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        t->choices = nc, t->capchoices = cap;
    }
    char *k = strdup(key);
    if (!k) return api_fail(t->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    t->choices[t->nchoices++] = (Choice){k, config};
    return NR_OK;
}

/* Times the candidates: the fastest into *chosen (its time into *best). */
static nr_status time_candidates(nr_tuner *t, const char *key, const int *cand, int ncand,
                                 const nr_tune_buffer *bufs, int nbufs, const nr_tune_calls *c,
                                 int *chosen, double *best, double *times) {
    bool print = print_wanted();
    Buffer *b = NULL;
    Timing T = {t, c, NULL, nbufs, NR_OK, {NULL, NULL}, 0};
    nr_status s = take_buffers(t, bufs, nbufs, &b);
    T.bufs = b;
    CudaDevice *dev = t->ctx->cuda;
    if (!s && !c->bench && cuda_has_events(dev)) { /* else the host's clock */
        StrBuf err;
        sb_init(&err);
        if (cuda_event_create(dev, &T.ev[0], &err) || cuda_event_create(dev, &T.ev[1], &err)) {
            cuda_event_destroy(dev, T.ev[0]);
            T.ev[0] = T.ev[1] = NULL;
        } else if (cuda_malloc(dev, FLUSH_BYTES, &T.flush, &err)) {
            T.flush = 0; /* no memory for it: timed without the flush */
        }
        sb_free(&err);
        api_clear_error(t->ctx);
    }
    if (print && !s) {
        printf("nereid autotune: kernel %s, key (%s): timing %d of %d configs\n", t->kernel, key,
               ncand, t->nconfigs);
        fflush(stdout);
    }
    if (!s && c->compile) { /* every candidate compiled first, at once */
        double t0 = clock_now_ms();
        nr_status cs = c->compile(c->user, cand, ncand);
        if (hard_status(cs)) s = cs;
        api_clear_error(t->ctx);
        if (print && !s) {
            printf("  compiled %d configs in %.3f s (NEREID_COMPILE_THREADS: up to %d threads)\n",
                   ncand, (clock_now_ms() - t0) / 1000, option_compile_threads(ncand));
            fflush(stdout);
        }
    }
    StrBuf first_error;
    sb_init(&first_error);
    for (int i = 0; i < ncand && !s && !T.hard; i++) {
        api_clear_error(t->ctx);
        double ms = time_config(&T, cand[i]);
        if (times) times[cand[i]] = ms;
        const char *why = nr_last_error(t->ctx);
        if (isinf(ms) && !first_error.len) sb_puts(&first_error, *why ? why : "(no message)");
        if (print) {
            if (isinf(ms))
                printf("  %s: failed: %s\n", t->config_text[cand[i]], *why ? why : "(no message)");
            else printf("  %s: %.4f ms\n", t->config_text[cand[i]], ms);
            fflush(stdout);
        }
        if (ms < *best) *best = ms, *chosen = cand[i];
    }
    if (!s) s = T.hard;
    if (!s && *chosen < 0)
        s = api_fail(t->ctx, NR_ERR_LAUNCH,
                     "kernel '%s': no config could run; the first failure: %s", t->kernel,
                     sb_cstr(&first_error));
    sb_free(&first_error);
    if (!s) s = zero_buffers(t->ctx, b, nbufs); /* zeroed again for the real launch */
    free_buffers(b, nbufs);
    if (T.ev[0]) {
        StrBuf err;
        sb_init(&err);
        if (T.flush) cuda_free(dev, T.flush, &err);
        sb_free(&err);
        cuda_event_destroy(dev, T.ev[0]);
        cuda_event_destroy(dev, T.ev[1]);
    }
    return s;
}

nr_status nr_tuner_choose(nr_tuner *t, const char *key, const nr_tune_buffer *bufs, int num_bufs,
                          const nr_tune_calls *calls, int *chosen, double *times_ms) {
    if (!t) return NR_ERR_INVALID_ARG;
    nr_context *ctx = t->ctx;
    if (!key || !calls || !calls->launch || !chosen || num_bufs < 0 || (num_bufs && !bufs))
        return api_fail(ctx, NR_ERR_INVALID_ARG,
                        "nr_tuner_choose: a key, the calls with a launch, and chosen");
    for (int i = 0; times_ms && i < t->nconfigs; i++) times_ms[i] = INFINITY;
    if ((*chosen = remembered(t, key)) >= 0) return NR_OK;
    bool print = print_wanted();
    StrBuf build, text;
    sb_init(&build), sb_init(&text);
    CacheKey ck = {NULL, NULL};
    if (t->identity) {
        disk_key(t, key, &build, &text);
        ck = (CacheKey){sb_cstr(&build), sb_cstr(&text)};
        *chosen = from_disk(t, &ck);
        if (*chosen >= 0 && print) {
            printf("nereid autotune: kernel %s, key (%s): %s (chosen earlier, from the cache)\n",
                   t->kernel, key, t->config_text[*chosen]);
            fflush(stdout);
        }
    }
    nr_status s = NR_OK;
    if (*chosen < 0) {
        int cand[TUNER_MAX_CONFIGS], ncand;
        double best = INFINITY, start = clock_now_ms();
        s = prune(t, calls, cand, &ncand);
        if (!s && ncand == 1) *chosen = cand[0]; /* nothing to compare */
        else if (!s)
            s = time_candidates(t, key, cand, ncand, bufs, num_bufs, calls, chosen, &best,
                                times_ms);
        if (!s && t->identity) to_disk(t, &ck, *chosen, best);
        if (!s && print) {
            printf("nereid autotune: kernel %s, key (%s): chose %s", t->kernel, key,
                   t->config_text[*chosen]);
            if (isfinite(best)) printf(" (%.4f ms)", best);
            printf(" after %.2f s\n", (clock_now_ms() - start) / 1000);
            fflush(stdout);
        }
    }
    if (!s) s = remember(t, key, *chosen);
    sb_free(&build), sb_free(&text);
    if (s) *chosen = -1;
    return s;
}
