/* autotune.c - tuned kernels in the C API (autotune.h): @triton.autotune's configs chosen
 * by the tuner's rules (tuner.c) on the real arguments, @triton.heuristics evaluated over
 * them.
 *
 * The front end hands a module's tuned kernels over as data (NrProgram.tuned: what the
 * decorators say, read once when the module compiled, and each kernel's signature); each
 * becomes an nr_kernel whose launches come here. A variant is the kernel compiled with one
 * config's constexprs (and the heuristics' values) from the module's syntax tree, as a
 * module of its own (module_variant: no parse); without heuristics every config is
 * compiled with the module, so a bad config is a compile error. Variants are built at
 * once on several threads (build_variants: made ready and installed on the calling
 * thread, built on the pool): every config when the module compiles, and before timing
 * every candidate's variant and its code for the device (precompile, the tuner's compile
 * call), so a cold start costs about one compile, not one per config.
 *
 * The lambdas of the decorators (heuristics, early_config_prune, perf_model) are values of
 * the front end's evaluator (lang/pyexpr.h), called here over the launch's arguments in a
 * scratch arena, bounded in depth and steps. */
#include "autotune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/support/options.h"
#include "compiler/support/parallel.h"
#include "launch.h"
#include "memory.h"
#include "module.h"
#include "status.h"
#include "tuner.h"

typedef struct Variant {
    char *key; /* "<config index>|NAME=VALUE|..." (the heuristics' values) */
    nr_module *mod;
    nr_kernel *k;
    nr_config cfg; /* the config's values and the heuristics' (owned) */
} Variant;

typedef struct TunedKernel {
    nr_module *mod;
    const NrTunedKernel *tk; /* the front end's: fn, desc, sig */
    TuneDesc *desc;
    nr_config *configs;
    int nconfigs;
    int *key_param;        /* per key name: its runtime parameter, or -1 */
    const char **key_text; /* for -1: the constexpr's value (a define or its default) */
    Variant *variants;
    int nvariants, capvariants;
    nr_tuner *tuner;        /* @autotune with several configs */
    int last;               /* the variant of the last launch (an index: the array grows); -1 */
    nr_kernel *last_kernel; /* that variant's kernel */
} TunedKernel;

typedef struct TuneModule {
    Arena *arena;
    TunedKernel *kernels;
    int n;
} TuneModule;

static const char *kname(const TunedKernel *t) { return t->tk->fn->name; }

static const char *base_define(const nr_module *m, const char *name) {
    const char *v = NULL;
    for (int i = 0; i < m->ndefines; i++)
        if (!strcmp(m->defines[i].name, name))
            v = m->defines[i].value; /* the last one wins, as in sema */
    return v;
}

static void describe_config(StrBuf *b, const nr_config *c) {
    for (int i = 0; i < c->n; i++) sb_printf(b, "%s=%s, ", c->names[i], c->values[i]);
    sb_printf(b, "num_warps=%d, num_stages=%d", c->num_warps, c->num_stages);
}

/* ---- a module's tuned kernels ---- */

/* What a choice depends on besides its key and device (tuner.c keys the disk cache on
 * it): the module's compile options, every string length-prefixed, and its source. */
static char *identity(const nr_module *m) {
    StrBuf b;
    sb_init(&b);
    const char *only = m->only_kernel ? m->only_kernel : "*";
    sb_printf(&b, "warps=%d;stages=%d;kernel=%zu:%s;", m->num_warps, m->num_stages, strlen(only),
              only);
    for (int i = 0; i < m->ndefines; i++)
        sb_printf(&b, "-D%zu:%s=%zu:%s;", strlen(m->defines[i].name), m->defines[i].name,
                  strlen(m->defines[i].value), m->defines[i].value);
    sb_printf(&b, "|%zu:", m->src->len);
    sb_putn(&b, m->text, m->src->len);
    char *s = strdup(sb_cstr(&b));
    sb_free(&b);
    return s;
}

static nr_status make_tuner(TunedKernel *t, Arena *arena) {
    if (t->nconfigs > TUNER_MAX_CONFIGS)
        return api_fail(t->mod->ctx, NR_ERR_UNSUPPORTED, "kernel '%s': more than %d configs",
                        kname(t), TUNER_MAX_CONFIGS);
    const char **texts = arena_alloc(arena, sizeof(char *) * (size_t)t->nconfigs);
    for (int c = 0; c < t->nconfigs; c++) {
        StrBuf b;
        sb_init(&b);
        describe_config(&b, &t->configs[c]);
        texts[c] = arena_strdup(arena, sb_cstr(&b));
        sb_free(&b);
    }
    char *id = identity(t->mod);
    if (!id) return api_fail(t->mod->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    nr_tune_options o = {
        kname(t),           t->nconfigs,     texts,          id,
        t->desc->warmup_ms, t->desc->rep_ms, t->desc->top_k, t->desc->top_k_is_float};
    nr_status s = nr_tuner_create(t->mod->ctx, &o, &t->tuner);
    free(id);
    return s;
}

static nr_status prepare_kernel(nr_module *m, Arena *arena, const NrTunedKernel *tk,
                                TunedKernel *t) {
    const TuneDesc *d = tk->desc;
    t->mod = m;
    t->last = -1;
    t->tk = tk;
    t->desc = tk->desc;
    t->nconfigs = d->nconfigs;
    t->configs = arena_alloc(arena, sizeof *t->configs * (size_t)d->nconfigs);
    for (int c = 0; c < d->nconfigs; c++)
        t->configs[c] = (nr_config){d->configs[c].n, d->configs[c].names, d->configs[c].texts,
                                    d->configs[c].num_warps, d->configs[c].num_stages};
    t->key_param = arena_alloc(arena, sizeof(int) * (size_t)(d->nkey + 1));
    t->key_text = arena_alloc(arena, sizeof(char *) * (size_t)(d->nkey + 1));
    IrRegion *body = &tk->sig->regions[tk->sig->body];
    for (int k = 0; k < d->nkey; k++) {
        t->key_param[k] = -1;
        for (uint32_t i = 0; i < body->nargs; i++)
            if (!strcmp(tk->sig->param_names[i], d->key[k])) t->key_param[k] = (int)i;
        const char *v = t->key_param[k] < 0 ? base_define(m, d->key[k]) : NULL;
        t->key_text[k] = v ? v : "(default)";
    }
    if (d->autotune && t->nconfigs > 1) return make_tuner(t, arena);
    return NR_OK;
}

static nr_status compile_configs(TunedKernel *t, Diag *diag);

nr_status tune_module_attach(nr_module *m, Diag *diag) {
    int n = m->prog.ntuned;
    if (!n) return NR_OK;
    TuneModule *tm = calloc(1, sizeof *tm);
    if (!tm) return api_fail(m->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    m->tune = tm;
    tm->arena = arena_new();
    tm->kernels = arena_alloc(tm->arena, sizeof *tm->kernels * (size_t)n);
    for (int i = 0; i < n; i++) {
        const NrTunedKernel *tk = &m->prog.tuned[i];
        TunedKernel *t = &tm->kernels[tm->n++];
        nr_status s = prepare_kernel(m, tm->arena, tk, t);
        if (s) return s;
        m->kernels[m->nkernels++] =
            (nr_kernel){.mod = m,
                        .f = tk->sig,
                        .tuned = t,
                        .nparams = (int)tk->sig->regions[tk->sig->body].nargs,
                        .num_warps = m->prog.num_warps,
                        .num_stages = m->prog.num_stages};
        if (t->desc->nheur) continue; /* compiled at launch, when the heuristics have values */
        if ((s = compile_configs(t, diag))) return s;
    }
    return NR_OK;
}

static void free_config(nr_config *c) {
    for (int i = 0; i < c->n; i++) free((char *)c->names[i]), free((char *)c->values[i]);
    free(c->names);
    free(c->values);
    memset(c, 0, sizeof *c);
}

void tune_module_free(nr_module *m) {
    TuneModule *tm = m->tune;
    if (!tm) return;
    for (int i = 0; i < tm->n; i++) {
        TunedKernel *t = &tm->kernels[i];
        for (int v = 0; v < t->nvariants; v++) {
            module_free(t->variants[v].mod);
            free_config(&t->variants[v].cfg);
            free(t->variants[v].key);
        }
        free(t->variants);
        nr_tuner_destroy(t->tuner);
    }
    arena_free(tm->arena);
    free(tm);
    m->tune = NULL;
}

/* ---- variants ---- */

/* A variant on its way: made ready on the tuned kernel's thread (variant_begin), its
 * module built on any thread (variant_build: it touches neither the kernel nor the
 * context), then installed in the kernel's list, or its error made the context's, on the
 * kernel's thread again (variant_finish). Several are built at once by build_variants. */
typedef struct VariantJob {
    TunedKernel *t;
    int config;
    int found; /* the index of a variant with this key already built; -1: build it */
    char *key; /* "<config>|<heuristics' values>" */
    nr_define *defs;
    int ndefs;
    Variant v; /* its config (owned until installed) and, once built, its module */
    nr_status s;
    StrBuf err; /* the build's failure */
} VariantJob;

/* The job for config c with the heuristics' values (hvals may be NULL). */
static nr_status variant_begin(VariantJob *j, TunedKernel *t, int c, const char *hkey,
                               const nr_config *hvals) {
    nr_module *m = t->mod;
    memset(j, 0, sizeof *j);
    j->t = t, j->config = c, j->found = -1;
    sb_init(&j->err);
    StrBuf key;
    sb_init(&key);
    sb_printf(&key, "%d|%s", c, hkey);
    for (int i = 0; i < t->nvariants && j->found < 0; i++)
        if (!strcmp(t->variants[i].key, sb_cstr(&key))) j->found = i;
    j->key = strdup(sb_cstr(&key));
    sb_free(&key);
    if (!j->key) return j->s = api_fail(m->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    if (j->found >= 0) return NR_OK;
    const nr_config *cf = &t->configs[c];
    int nh = hvals ? hvals->n : 0, nd = m->ndefines + cf->n + nh;
    j->defs = calloc((size_t)(nd ? nd : 1), sizeof *j->defs);
    Variant *v = &j->v;
    v->cfg.names = calloc((size_t)(cf->n + nh + 1), sizeof(char *));
    v->cfg.values = calloc((size_t)(cf->n + nh + 1), sizeof(char *));
    if (!j->defs || !v->cfg.names || !v->cfg.values)
        return j->s = api_fail(m->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    int k = 0;
    for (int i = 0; i < m->ndefines; i++)
        j->defs[k++] = (nr_define){m->defines[i].name, m->defines[i].value};
    for (int i = 0; i < cf->n + nh; i++) {
        const char *nm = i < cf->n ? cf->names[i] : hvals->names[i - cf->n];
        const char *val = i < cf->n ? cf->values[i] : hvals->values[i - cf->n];
        v->cfg.names[v->cfg.n] = strdup(nm);
        v->cfg.values[v->cfg.n] = strdup(val);
        if (!v->cfg.names[v->cfg.n++] || !v->cfg.values[v->cfg.n - 1])
            return j->s = api_fail(m->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        j->defs[k++] = (nr_define){v->cfg.names[v->cfg.n - 1], v->cfg.values[v->cfg.n - 1]};
    }
    j->ndefs = k;
    v->cfg.num_warps = cf->num_warps ? cf->num_warps : m->num_warps;
    v->cfg.num_stages = cf->num_stages ? cf->num_stages : m->num_stages;
    return NR_OK;
}

static bool variant_needs_build(const VariantJob *j) { return !j->s && j->found < 0; }

static void variant_build(void *user, int i) {
    VariantJob *j = &((VariantJob *)user)[i];
    if (!variant_needs_build(j)) return;
    j->s = module_variant_build(j->t->mod, kname(j->t), j->defs, j->ndefs, j->v.cfg.num_warps,
                                j->v.cfg.num_stages, &j->err, &j->v.mod);
}

/* The job's variant installed (its index into *out), or its failure made the context's
 * error; the job's memory freed either way. */
static nr_status variant_finish(VariantJob *j, int *out) {
    TunedKernel *t = j->t;
    nr_context *ctx = t->mod->ctx;
    Variant *v = &j->v;
    nr_status s = j->s;
    if (s && j->err.len) api_fail(ctx, s, "%s", sb_cstr(&j->err));
    if (!s && j->found >= 0) *out = j->found;
    else if (!s) {
        for (int i = 0; i < v->mod->nkernels && !v->k; i++)
            if (!strcmp(v->mod->kernels[i].f->name, kname(t))) v->k = &v->mod->kernels[i];
        if (!v->k)
            s = api_fail(ctx, NR_ERR_NOT_FOUND, "no kernel named '%s' in the module", kname(t));
    }
    if (!s && j->found < 0 && t->nvariants == t->capvariants) {
        int cap = t->capvariants ? t->capvariants * 2 : 8;
        Variant *nv = realloc(t->variants, sizeof *nv * (size_t)cap);
        if (!nv) s = api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        else t->variants = nv, t->capvariants = cap;
    }
    if (!s && j->found < 0) {
        v->key = j->key, j->key = NULL;
        t->variants[t->nvariants] = *v;
        *out = t->nvariants++;
    } else {
        module_free(v->mod);
        free_config(&v->cfg);
    }
    free(j->key);
    free(j->defs);
    sb_free(&j->err);
    return s;
}

/* The jobs' variants built, on up to option_compile_threads threads; on the calling thread
 * alone where the module has a host constexpr callback (nr_compile_options.constexpr_call):
 * the host may hold a lock of its own (Python's GIL) while it compiles or launches, which a
 * callback on another thread would wait for. */
static void build_variants(VariantJob *jobs, int n) {
    int todo = 0;
    for (int i = 0; i < n; i++) todo += variant_needs_build(&jobs[i]);
    bool host = n > 0 && jobs[0].t->mod->constexpr_call;
    parallel_for(n, todo > 1 && !host ? option_compile_threads(todo) : 1, variant_build, jobs);
}

/* Every config of t compiled (at once, on several threads): the first that fails (in the
 * configs' order) fails the module's compile, with a note naming it. */
static nr_status compile_configs(TunedKernel *t, Diag *diag) {
    nr_module *m = t->mod;
    VariantJob *jobs = calloc((size_t)t->nconfigs, sizeof *jobs);
    if (!jobs) return api_fail(m->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    for (int c = 0; c < t->nconfigs; c++) variant_begin(&jobs[c], t, c, "", NULL);
    build_variants(jobs, t->nconfigs);
    nr_status first = NR_OK;
    StrBuf msg;
    sb_init(&msg);
    int bad = -1;
    for (int c = 0; c < t->nconfigs; c++) {
        int v;
        nr_status s = variant_finish(&jobs[c], &v);
        if (s && !first) first = s, bad = c, sb_puts(&msg, nr_last_error(m->ctx));
    }
    free(jobs);
    if (first) {
        sb_puts(&diag->out, sb_cstr(&msg));
        StrBuf what;
        sb_init(&what);
        describe_config(&what, &t->configs[bad]);
        diag_note(diag, t->desc->loc, "in config %d of kernel '%s': %s", bad, kname(t),
                  sb_cstr(&what));
        sb_free(&what);
    }
    sb_free(&msg);
    return first;
}

/* The kernel compiled for config c with the heuristics' values (hvals may be NULL): the
 * index of its variant into *out. */
static nr_status variant_for_config(TunedKernel *t, int c, const char *hkey, const nr_config *hvals,
                                    int *out) {
    VariantJob j;
    variant_begin(&j, t, c, hkey, hvals);
    variant_build(&j, 0);
    return variant_finish(&j, out);
}

/* ---- evaluating lambdas over the arguments ---- */

typedef struct Eval {
    TunedKernel *t;
    PyCtx saved;
    Arena *scratch;
    Diag diag;
    jmp_buf fail;
} Eval;

static void eval_begin(Eval *e, TunedKernel *t) {
    e->t = t;
    e->saved = *t->desc->py;
    e->scratch = arena_new();
    diag_init(&e->diag);
    PyCtx *c = t->desc->py;
    c->arena = e->scratch;
    c->diag = &e->diag;
    c->fail = &e->fail;
    c->depth = 0;
    c->steps = 1000 * 1000;
}

/* Ends an evaluation; a failure becomes the context's error (NR_ERR_COMPILE). */
static nr_status eval_end(Eval *e, bool failed) {
    nr_status s = NR_OK;
    if (failed) s = api_fail(e->t->mod->ctx, NR_ERR_COMPILE, "%s", sb_cstr(&e->diag.out));
    *e->t->desc->py = e->saved;
    diag_free(&e->diag);
    arena_free(e->scratch);
    return s;
}

static PyVal arg_value(const IrFunc *sig, int i, const nr_arg *a) {
    IrType ty = ir_type(sig, sig->regions[sig->body].args[i]);
    if (ty.dt == DT_PTR) {
        PyVal v = py_none();
        v.k = PV_OPAQUE;
        v.u.opaque.what = "pointer";
        v.u.opaque.dtype = dt_name(ty.pointee);
        return v;
    }
    if (a->type >= NR_TYPE_FP16) return py_float(a->v.f);
    if (a->type >= NR_TYPE_U8 && a->v.u > INT64_MAX) return py_float((double)a->v.u);
    return a->type == NR_TYPE_I1 ? py_bool(a->v.i != 0) : py_int(a->v.i);
}

/* A define's text as a value: the rules of -D (ints, floats, True/False/None, else a string). */
static PyVal text_value(PyCtx *c, const char *text) {
    if (!strcmp(text, "True") || !strcmp(text, "False")) return py_bool(text[0] == 'T');
    if (!strcmp(text, "None")) return py_none();
    char *end;
    long long i = strtoll(text, &end, 0);
    if (*text && !*end) return py_int(i);
    double f = strtod(text, &end);
    if (*text && !*end) return py_float(f);
    return py_str(c, text, strlen(text));
}

/* The dict lambdas see: the arguments by name, the module's defines, the config's values
 * (and later the heuristics' own), num_warps, num_stages. */
static PyDict *args_dict(TunedKernel *t, const nr_arg *args, int c) {
    PyCtx *py = t->desc->py;
    const nr_module *m = t->mod;
    const IrFunc *sig = t->tk->sig;
    PyDict *d = py_dict_new(py, 16);
    const IrRegion *body = &sig->regions[sig->body];
    for (uint32_t i = 0; i < body->nargs; i++)
        py_dict_set(py, d, py_str(py, sig->param_names[i], strlen(sig->param_names[i])),
                    arg_value(sig, (int)i, &args[i]));
    for (int i = 0; i < m->ndefines; i++)
        py_dict_set(py, d, py_str(py, m->defines[i].name, strlen(m->defines[i].name)),
                    text_value(py, m->defines[i].value));
    if (c >= 0) {
        const TuneConfig *cf = &t->desc->configs[c];
        if (cf->val.k == PV_CONFIG)
            for (int i = 0; i < cf->val.u.cfg->kwargs->n; i++)
                py_dict_set(py, d, cf->val.u.cfg->kwargs->keys[i], cf->val.u.cfg->kwargs->vals[i]);
        const nr_config *nc = &t->configs[c];
        py_dict_set(
            py, d, py_str(py, "num_warps", 9),
            py_int(nc->num_warps ? nc->num_warps : option_or_default(OPT_NUM_WARPS, m->num_warps)));
        py_dict_set(py, d, py_str(py, "num_stages", 10),
                    py_int(nc->num_stages ? nc->num_stages
                                          : option_or_default(OPT_NUM_STAGES, m->num_stages)));
    }
    return d;
}

static PyVal dict_val(PyDict *d) {
    PyVal v = py_none();
    v.k = PV_DICT;
    v.u.dict = d;
    return v;
}

/* The heuristics' values for config c and these arguments: names/values into h (strings
 * malloc'd, freed by free_config), the variant key part into hkey. */
static nr_status heuristics(TunedKernel *t, int c, const nr_arg *args, nr_config *h, StrBuf *hkey) {
    memset(h, 0, sizeof *h);
    int nh = t->desc->nheur;
    if (!nh) return NR_OK;
    h->names = calloc((size_t)nh, sizeof(char *));
    h->values = calloc((size_t)nh, sizeof(char *));
    if (!h->names || !h->values)
        return api_fail(t->mod->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    Eval e;
    eval_begin(&e, t);
    PyCtx *py = t->desc->py;
    if (setjmp(e.fail)) return eval_end(&e, true);
    PyDict *d = args_dict(t, args, c);
    for (int i = 0; i < nh; i++) {
        const TuneHeuristic *hh = &t->desc->heur[i];
        PyVal arg = dict_val(d);
        PyVal r = py_call(py, hh->fn, 1, &arg, 0, NULL, NULL, hh->loc);
        StrBuf text;
        sb_init(&text);
        if (!tune_value_text(r, &text)) {
            sb_free(&text);
            py_error(
                py, hh->loc,
                "the heuristic for '%s' gave a %s (an int, float, bool, str or None is needed)",
                hh->name, py_kind_name(r));
        }
        h->names[h->n] = strdup(hh->name);
        h->values[h->n++] = strdup(sb_cstr(&text));
        sb_printf(hkey, "%s=%s|", hh->name, sb_cstr(&text));
        sb_free(&text);
        py_dict_set(py, d, py_str(py, hh->name, strlen(hh->name)), r); /* later heuristics see it */
    }
    return eval_end(&e, false);
}

static nr_status variant_for(TunedKernel *t, int c, const nr_arg *args, Variant **out) {
    nr_config h;
    StrBuf hkey;
    sb_init(&hkey);
    int v = -1;
    nr_status s = heuristics(t, c, args, &h, &hkey);
    if (!s) s = variant_for_config(t, c, sb_cstr(&hkey), t->desc->nheur ? &h : NULL, &v);
    free_config(&h);
    sb_free(&hkey);
    *out = s ? NULL : &t->variants[v];
    return s;
}

/* Configs `configs` (n of them) compiled for these arguments and options before any of
 * them runs: the heuristics' values evaluated here, one config after another, then the
 * configs' modules built at once (build_variants), then their code for the device at once
 * (launch_prepare_many: on CUDA the GPU back end and the driver's JIT). A config that
 * fails here is left to its launch, which compiles it again and reports the failure; the
 * context's error is whatever the last failure left. */
static void precompile(TunedKernel *t, const int *configs, int n, const nr_arg *args, int nargs,
                       const nr_launch_options *o) {
    VariantJob *jobs = calloc((size_t)(n ? n : 1), sizeof *jobs);
    int *vi = calloc((size_t)(n ? n : 1), sizeof *vi);
    PrepareJob *pj = calloc((size_t)(n ? n : 1), sizeof *pj);
    if (!jobs || !vi || !pj) {
        free(jobs), free(vi), free(pj);
        return; /* the launches compile them, one by one */
    }
    for (int i = 0; i < n; i++) {
        nr_config h;
        StrBuf hkey;
        sb_init(&hkey);
        nr_status s = heuristics(t, configs[i], args, &h, &hkey);
        if (!s) variant_begin(&jobs[i], t, configs[i], sb_cstr(&hkey), t->desc->nheur ? &h : NULL);
        else jobs[i] = (VariantJob){.t = t, .found = -1, .s = s}, sb_init(&jobs[i].err);
        free_config(&h);
        sb_free(&hkey);
    }
    build_variants(jobs, n);
    int np = 0;
    for (int i = 0; i < n; i++) {
        int v;
        if (variant_finish(&jobs[i], &v)) continue;
        const Variant *var = &t->variants[v];
        nr_launch_options lo = {.num_warps = var->cfg.num_warps,
                                .stream = o ? o->stream : NULL,
                                .num_stages = var->cfg.num_stages};
        if (o) { /* the code generator's options, as the launch will give them */
            lo.maxnreg = o->maxnreg;
            lo.enable_fp_fusion = o->enable_fp_fusion;
            lo.enable_reflect_ftz = o->enable_reflect_ftz;
        }
        pj[np++] = (PrepareJob){var->k, args, nargs, lo, NR_OK};
    }
    launch_prepare_many(pj, np);
    free(jobs), free(vi), free(pj);
}

/* ---- a launch ---- */

typedef struct LaunchCall {
    TunedKernel *t;
    const unsigned *grid;
    nr_grid_fn grid_fn;
    void *user;
    const nr_arg *args;
    int nargs;
    const nr_launch_options *o;
} LaunchCall;

static nr_status launch_variant(const LaunchCall *lc, Variant *v) {
    TunedKernel *t = lc->t;
    unsigned g[3] = {1, 1, 1};
    if (lc->grid_fn) {
        nr_status s = lc->grid_fn(&v->cfg, g, lc->user);
        if (s)
            return api_fail(t->mod->ctx, s, "kernel '%s': the grid function failed (%s)", kname(t),
                            nr_status_string(s));
    } else memcpy(g, lc->grid, sizeof g);
    nr_launch_options lo = {.num_warps = v->cfg.num_warps,
                            .stream = lc->o ? lc->o->stream : NULL,
                            .num_stages = v->cfg.num_stages};
    if (lc->o) {
        lo.maxnreg = lc->o->maxnreg;
        lo.enable_fp_fusion = lc->o->enable_fp_fusion;
        lo.enable_reflect_ftz = lc->o->enable_reflect_ftz;
    }
    t->last = (int)(v - t->variants);
    return launch_plain(v->k, g, lc->args, lc->nargs, &lo);
}

/* the tuner's calls (tuner.c): a config's launch, early_config_prune, perf_model */
static nr_status call_launch(void *user, int c) {
    const LaunchCall *lc = user;
    Variant *v;
    nr_status s = variant_for(lc->t, c, lc->args, &v);
    return s ? s : launch_variant(lc, v);
}

static nr_status call_compile(void *user, const int *configs, int n) {
    const LaunchCall *lc = user;
    precompile(lc->t, configs, n, lc->args, lc->nargs, lc->o);
    return NR_OK;
}

static nr_status call_prune(void *user, int *cand, int *ncand) {
    const LaunchCall *lc = user;
    TunedKernel *t = lc->t;
    const TuneDesc *d = t->desc;
    if (d->early_prune.k == PV_NONE) return NR_OK;
    Eval e;
    eval_begin(&e, t);
    PyCtx *py = d->py;
    if (setjmp(e.fail)) return eval_end(&e, true);
    PyVal list = py_none();
    list.k = PV_LIST;
    list.u.seq = arena_alloc(py->arena, sizeof *list.u.seq);
    list.u.seq->n = *ncand;
    list.u.seq->v = arena_alloc(py->arena, sizeof(PyVal) * (size_t)(*ncand + 1));
    for (int i = 0; i < *ncand; i++) list.u.seq->v[i] = d->configs[cand[i]].val;
    PyVal two[2] = {list, dict_val(args_dict(t, lc->args, -1))};
    PyVal r = py_call(py, d->early_prune, 2, two, 0, NULL, NULL, d->loc);
    if (r.k != PV_LIST && r.k != PV_TUPLE)
        py_error(py, d->loc, "early_config_prune must return a list of configs");
    if (r.u.seq->n > TUNER_MAX_CONFIGS)
        py_error(py, d->loc, "early_config_prune returned too many configs");
    *ncand = 0;
    for (int i = 0; i < r.u.seq->n; i++) {
        PyVal cv = r.u.seq->v[i];
        if (cv.k != PV_CONFIG || cv.u.cfg->index < 0)
            py_error(py, d->loc, "early_config_prune must return configs from the @autotune list");
        cand[(*ncand)++] = cv.u.cfg->index;
    }
    if (!*ncand)
        py_error(py, d->loc, "early_config_prune left no config: it must return at least one");
    return eval_end(&e, false);
}

static nr_status call_estimate(void *user, int c, double *est) {
    const LaunchCall *lc = user;
    TunedKernel *t = lc->t;
    const TuneDesc *d = t->desc;
    Eval e;
    eval_begin(&e, t);
    PyCtx *py = d->py;
    if (setjmp(e.fail)) return eval_end(&e, true);
    PyDict *kw = args_dict(t, lc->args, c);
    const char **names = arena_alloc(py->arena, sizeof(char *) * (size_t)(kw->n + 1));
    for (int k = 0; k < kw->n; k++) names[k] = kw->keys[k].u.str.s;
    PyVal r = py_call(py, d->perf_model, 0, NULL, kw->n, names, kw->vals, d->loc);
    if (r.k != PV_INT && r.k != PV_FLOAT) py_error(py, d->loc, "perf_model must return a number");
    *est = r.k == PV_INT ? (double)r.u.i : r.u.f;
    return eval_end(&e, false);
}

/* reset_to_zero and restore_value: the buffers of this launch's arguments */
static nr_status collect_buffers(TunedKernel *t, const nr_arg *args, const size_t *bytes,
                                 nr_tune_buffer *bufs, int *nbufs) {
    nr_context *ctx = t->mod->ctx;
    const IrFunc *sig = t->tk->sig;
    const IrRegion *body = &sig->regions[sig->body];
    *nbufs = 0;
    for (int pass = 0; pass < 2; pass++) {
        int n = pass ? t->desc->nrestore : t->desc->nreset;
        const char **names = pass ? t->desc->restore_value : t->desc->reset_to_zero;
        for (int i = 0; i < n; i++) {
            int p = -1;
            for (uint32_t j = 0; j < body->nargs; j++)
                if (!strcmp(sig->param_names[j], names[i])) p = (int)j;
            if (p < 0) continue;
            uint64_t ptr = args[p].v.u;
            size_t sz = bytes && bytes[p] ? bytes[p] : memory_extent(ctx, ptr);
            if (!sz)
                return api_fail(ctx, NR_ERR_INVALID_ARG,
                                "kernel '%s': %s names '%s', whose size is unknown: pass arg_bytes "
                                "to nr_launch_grid, or allocate it with nr_malloc",
                                kname(t), pass ? "restore_value" : "reset_to_zero", names[i]);
            bufs[(*nbufs)++] = (nr_tune_buffer){ptr, sz, pass};
        }
    }
    return NR_OK;
}

/* The key's values as text: "M=512, N=512, K=64". */
static void key_string(const TunedKernel *t, const nr_arg *args, StrBuf *out) {
    for (int k = 0; k < t->desc->nkey; k++) {
        sb_printf(out, "%s%s=", k ? ", " : "", t->desc->key[k]);
        int p = t->key_param[k];
        if (p < 0) sb_puts(out, t->key_text[k]);
        else if (args[p].type == NR_TYPE_PTR)
            sb_puts(out, "ptr"); /* its dtype is the signature's */
        else if (args[p].type >= NR_TYPE_FP16) sb_printf(out, "%.17g", args[p].v.f);
        else if (args[p].type >= NR_TYPE_U8)
            sb_printf(out, "%llu", (unsigned long long)args[p].v.u);
        else sb_printf(out, "%lld", (long long)args[p].v.i);
    }
}

/* The config for these arguments: the tuner's choice for their key. */
static nr_status choose(const LaunchCall *lc, const size_t *arg_bytes, int *c) {
    TunedKernel *t = lc->t;
    enum { MAX_BUFS = 64 };
    if (t->desc->nreset + t->desc->nrestore > MAX_BUFS)
        return api_fail(t->mod->ctx, NR_ERR_UNSUPPORTED,
                        "kernel '%s': too many buffers to reset or restore", kname(t));
    nr_tune_buffer bufs[MAX_BUFS];
    int nbufs = 0;
    nr_status s = collect_buffers(t, lc->args, arg_bytes, bufs, &nbufs);
    if (s) return s;
    StrBuf key;
    sb_init(&key);
    key_string(t, lc->args, &key);
    nr_tune_calls calls = {(void *)lc,
                           call_launch,
                           NULL,
                           NULL,
                           NULL,
                           call_prune,
                           t->desc->perf_model.k != PV_NONE ? call_estimate : NULL,
                           lc->o ? lc->o->stream : NULL,
                           call_compile};
    s = nr_tuner_choose(t->tuner, sb_cstr(&key), bufs, nbufs, &calls, c, NULL);
    sb_free(&key);
    return s;
}

static nr_status check_args(nr_kernel *k, const nr_arg *args, int num_args);

nr_status tune_launch(nr_kernel *k, const unsigned grid[3], nr_grid_fn grid_fn, void *user,
                      const nr_arg *args, int num_args, const size_t *arg_bytes,
                      const nr_launch_options *o) {
    TunedKernel *t = k->tuned;
    if (!grid && !grid_fn)
        return api_fail(k->mod->ctx, NR_ERR_INVALID_ARG, "kernel '%s': the grid must not be NULL",
                        kname(t));
    nr_status s = check_args(k, args, num_args);
    if (s) return s;
    LaunchCall lc = {t, grid, grid_fn, user, args, num_args, o};
    int c = 0;
    if (t->tuner && (s = choose(&lc, arg_bytes, &c))) return s;
    Variant *v;
    s = variant_for(t, c, args, &v);
    if (!s) s = launch_variant(&lc, v);
    if (!s) t->last_kernel = v->k;
    return s;
}

nr_status tune_prepare_all(nr_kernel *k, const nr_arg *args, int num_args,
                           const nr_launch_options *o) {
    TunedKernel *t = k->tuned;
    nr_status s = check_args(k, args, num_args);
    if (s) return s;
    int *all = malloc(sizeof(int) * (size_t)t->nconfigs);
    if (!all) return api_fail(k->mod->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    for (int c = 0; c < t->nconfigs; c++) all[c] = c;
    precompile(t, all, t->nconfigs, args, num_args, o);
    free(all);
    api_clear_error(k->mod->ctx);
    return NR_OK;
}

/* The count and the pointer tags of a tuned kernel's arguments, before they key anything. */
static nr_status check_args(nr_kernel *k, const nr_arg *args, int num_args) {
    TunedKernel *t = k->tuned;
    nr_context *ctx = k->mod->ctx;
    const IrFunc *sig = t->tk->sig;
    int np = k->nparams;
    if (num_args != np || (np && !args))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s' takes %d argument%s, got %d",
                        kname(t), np, np == 1 ? "" : "s", num_args);
    for (int i = 0; i < np; i++) { /* the type tags, before they key anything */
        bool ptr = ir_type(sig, sig->regions[sig->body].args[i]).dt == DT_PTR;
        if (ptr != (args[i].type == NR_TYPE_PTR))
            return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s') %s", kname(t),
                            i, sig->param_names[i], ptr ? "is a pointer" : "is not a pointer");
    }
    return NR_OK;
}

nr_kernel *tune_last_kernel(const nr_kernel *k) { return k->tuned ? k->tuned->last_kernel : NULL; }

/* ---- the public functions ---- */

int nr_kernel_num_configs(const nr_kernel *k) {
    return k && k->tuned && k->tuned->desc->autotune ? k->tuned->nconfigs : 0;
}

const nr_config *nr_kernel_config(const nr_kernel *k, int i) {
    return i >= 0 && i < nr_kernel_num_configs(k) ? &k->tuned->configs[i] : NULL;
}

const nr_config *nr_kernel_last_config(const nr_kernel *k) {
    return k && k->tuned && k->tuned->last >= 0 ? &k->tuned->variants[k->tuned->last].cfg : NULL;
}

int nr_config_num_values(const nr_config *c) { return c ? c->n : 0; }
const char *nr_config_name(const nr_config *c, int i) {
    return c && i >= 0 && i < c->n ? c->names[i] : NULL;
}
const char *nr_config_value(const nr_config *c, int i) {
    return c && i >= 0 && i < c->n ? c->values[i] : NULL;
}
int nr_config_num_warps(const nr_config *c) { return c ? c->num_warps : 0; }
int nr_config_num_stages(const nr_config *c) { return c ? c->num_stages : 0; }

nr_status nr_config_int(const nr_config *c, const char *name, int64_t *out) {
    if (!c || !name || !out) return NR_ERR_INVALID_ARG;
    for (int i = c->n - 1; i >= 0; i--)
        if (!strcmp(c->names[i], name)) {
            char *end;
            long long v = strtoll(c->values[i], &end, 0);
            if (!*c->values[i] || *end) return NR_ERR_INVALID_ARG;
            *out = v;
            return NR_OK;
        }
    return NR_ERR_NOT_FOUND;
}
