/* autotune.c - tuned kernels in the C API (autotune.h): @triton.autotune's configs timed
 * on the real arguments, @triton.heuristics evaluated over them.
 *
 * Compiling a module: its tuned kernels are read (lang/tune.h) and left out of the
 * module's own compile; each gets a signature-only IrFunc (its runtime parameters, typed
 * by their annotations) so that the kernel accessors and argument checks work as for any
 * kernel. A variant is the kernel compiled with one config's constexprs (and the
 * heuristics' values for some arguments) as a module of its own; without heuristics every
 * config is compiled with the module, so a bad config is a compile error.
 *
 * Launching: the key (the key parameters' values) selects a choice: from memory, else
 * from the cache directory, else by timing. Timing follows Triton's rules: configs are
 * pruned (early_config_prune, then perf_model keeping top_k), a single survivor is taken
 * untimed, each config runs `warmup` ms before `rep` ms of timed launches (median of
 * batches; with reset_to_zero / restore_value each launch is timed alone, between the
 * zeroing and the restoring, which are not timed), a config that fails to compile or run
 * counts as infinitely slow, and the buffers named by reset_to_zero are zeroed once more
 * before the real launch. The choice is stored under a key naming the compiler build,
 * the device, the source, the options, the kernel and the key values. */
#include "autotune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lang/sema.h"
#include "lang/tune.h"
#include "cache.h"
#include "cache_key.h"
#include "compiler/codegen/llvm_gen.h"
#include "compiler/support/options.h"

typedef struct Variant {
    char *key;          /* "<config index>|NAME=VALUE|..." (the heuristics' values) */
    nr_module *mod;
    nr_kernel *k;
    nr_config cfg;      /* the config's values and the heuristics' (owned) */
} Variant;

typedef struct Choice {
    char *key;
    int config;
} Choice;

typedef struct TunedKernel {
    nr_module *mod;
    TuneDesc *desc;
    const Func *fn;
    IrFunc *sig;
    nr_config *configs;
    int nconfigs;
    int *key_param;          /* per key name: its runtime parameter, or -1 */
    const char **key_text;   /* for -1: the constexpr's value (a define or its default) */
    Variant *variants;
    int nvariants, capvariants;
    Choice *choices;
    int nchoices, capchoices;
    nr_config *last;
} TunedKernel;

typedef struct TuneModule {
    Arena *arena;           /* the AST, the descriptions, the signatures, the configs */
    Module *ast;
    IrModule *sigs;
    TunedKernel *kernels;
    int n;
    const char **skip;
    nr_define *base;        /* the module's own defines */
    int nbase;
    int num_warps, num_stages;
} TuneModule;

/* ---- preparing a module ---- */

static bool sets(const TuneDesc *d, const char *name) {
    for (int c = 0; c < d->nconfigs; c++)
        for (int i = 0; i < d->configs[c].n; i++)
            if (!strcmp(d->configs[c].names[i], name)) return true;
    for (int h = 0; h < d->nheur; h++)
        if (!strcmp(d->heur[h].name, name)) return true;
    return false;
}

static const char *base_define(const TuneModule *tm, const char *name) {
    const char *v = NULL;
    for (int i = 0; i < tm->nbase; i++)
        if (!strcmp(tm->base[i].name, name)) v = tm->base[i].value; /* the last one wins, as in sema */
    return v;
}

/* A "tensordesc<fp16[BM, BK]>" annotation's element type and rank, for the tuned kernel's
 * signature: its block dims may be tuned meta-parameters, so each config's kernel checks
 * them (the signature holds 1s there); false if it is not a descriptor. */
static bool desc_signature(const char *ann, IrType *out) {
    if (strncmp(ann, "tensordesc<", 11)) return false;
    const char *s = ann + 11, *open = strchr(s, '['), *close = open ? strchr(open, ']') : NULL;
    if (!open || !close || (size_t)(open - s) >= 32) return false;
    char name[32];
    memcpy(name, s, (size_t)(open - s));
    name[open - s] = 0;
    IrType elem;
    if (!sema_signature_type(name, &elem) || elem.dt == DT_PTR || elem.dt == DT_I1) return false;
    int rank = 1;
    for (const char *c = open; c < close; c++) rank += *c == ',';
    if (rank > NR_MAX_RANK) return false;
    int32_t ones[NR_MAX_RANK] = {1, 1, 1, 1};
    *out = ty_tdesc(elem.dt, rank, ones);
    return true;
}

static bool prepare_kernel(TuneModule *tm, const Func *fn, TuneDesc *d, TunedKernel *t, Diag *diag) {
    t->desc = d;
    t->fn = fn;
    for (int i = 0; i < tm->nbase; i++)
        if (sets(d, tm->base[i].name)) {
            diag_error(diag, d->loc, "conflicting meta-parameters: '%s' is given to the compile and set by the "
                                     "@autotune/@heuristics of kernel '%s' (give it in one place)",
                       tm->base[i].name, fn->name);
            return false;
        }
    t->sig = ir_func_new(tm->sigs, fn->name, true, fn->loc);
    for (int i = 0; i < fn->nparams; i++) {
        const Param *p = &fn->params[i];
        if (!strcmp(p->annotation, "constexpr")) continue;
        IrType ty;
        const char *tname = sema_signature_type_name(p->annotation);
        if (desc_signature(p->annotation, &ty)) {
            ir_add_param(t->sig, ty, p->name);
            continue;
        }
        if (!sema_signature_type(p->annotation, &ty) &&
            !(tname && !sets(d, tname) && sema_signature_type_of(p->annotation, base_define(tm, tname), &ty))) {
            diag_error(diag, p->ann_loc,
                       tname && sets(d, tname) ? "parameter '%s': its type '%s' cannot be a tuned meta-parameter"
                                               : "parameter '%s': unknown parameter type '%s' (a type named by a constexpr "
                                                 "must be given to the compile, e.g. -D DT=bf16)",
                       p->name, p->annotation);
            return false;
        }
        ir_add_param(t->sig, ty, p->name);
    }
    t->nconfigs = d->nconfigs;
    t->configs = arena_alloc(tm->arena, sizeof *t->configs * (size_t)d->nconfigs);
    for (int c = 0; c < d->nconfigs; c++)
        t->configs[c] = (nr_config){d->configs[c].n, d->configs[c].names, d->configs[c].texts, d->configs[c].num_warps,
                                    d->configs[c].num_stages};
    t->key_param = arena_alloc(tm->arena, sizeof(int) * (size_t)(d->nkey + 1));
    t->key_text = arena_alloc(tm->arena, sizeof(char *) * (size_t)(d->nkey + 1));
    IrRegion *body = &t->sig->regions[t->sig->body];
    for (int k = 0; k < d->nkey; k++) {
        t->key_param[k] = -1;
        for (uint32_t i = 0; i < body->nargs; i++)
            if (!strcmp(t->sig->param_names[i], d->key[k])) t->key_param[k] = (int)i;
        if (t->key_param[k] >= 0) continue;
        if (sets(d, d->key[k])) {
            diag_error(diag, d->loc, "key names '%s', which the configs set: a key is a launch argument", d->key[k]);
            return false;
        }
        const char *v = base_define(tm, d->key[k]);
        t->key_text[k] = v ? v : "(default)";
    }
    return true;
}

nr_status tune_module_prepare(nr_module *m, const nr_compile_options *opts, NrCompileOptions *o, Diag *diag) {
    if (!strstr(m->text, "autotune") && !strstr(m->text, "heuristics")) return NR_OK; /* the usual case: no parse */
    Arena *arena = arena_new();
    Module *ast = lang_parse_module(arena, diag, m->src);
    if (!ast) {
        arena_free(arena);
        return NR_ERR_COMPILE;
    }
    int n = 0;
    for (int i = 0; i < ast->nfuncs; i++)
        n += sema_is_kernel(ast->funcs[i]) && tune_func_is_tuned(ast->funcs[i]) &&
             (!o->only_kernel || !strcmp(o->only_kernel, ast->funcs[i]->name));
    if (!n) {
        arena_free(arena);
        return NR_OK;
    }
    TuneModule *tm = calloc(1, sizeof *tm);
    if (!tm) {
        arena_free(arena);
        return NR_ERR_OUT_OF_MEMORY;
    }
    m->tune = tm;
    tm->arena = arena;
    tm->ast = ast;
    tm->sigs = ir_module_new(arena);
    tm->kernels = arena_alloc(arena, sizeof *tm->kernels * (size_t)n);
    tm->skip = arena_alloc(arena, sizeof(char *) * (size_t)n);
    tm->num_warps = o->num_warps;
    tm->num_stages = o->num_stages;
    if (opts && opts->num_defines > 0) {
        tm->base = arena_alloc(arena, sizeof *tm->base * (size_t)opts->num_defines);
        for (int i = 0; i < opts->num_defines; i++)
            tm->base[i] = (nr_define){arena_strdup(arena, opts->defines[i].name), arena_strdup(arena, opts->defines[i].value)};
        tm->nbase = opts->num_defines;
    }
    for (int i = 0; i < ast->nfuncs; i++) {
        const Func *fn = ast->funcs[i];
        if (!sema_is_kernel(fn) || !tune_func_is_tuned(fn) || (o->only_kernel && strcmp(o->only_kernel, fn->name))) continue;
        TuneDesc *d;
        if (!tune_read(arena, diag, ast, fn, &d)) return NR_ERR_COMPILE;
        TunedKernel *t = &tm->kernels[tm->n];
        memset(t, 0, sizeof *t);
        t->mod = m;
        if (!prepare_kernel(tm, fn, d, t, diag)) return NR_ERR_COMPILE;
        tm->skip[tm->n++] = fn->name;
    }
    o->skip_kernels = tm->skip;
    o->nskip_kernels = tm->n;
    return NR_OK;
}

int tune_module_count(const nr_module *m) { return m->tune ? m->tune->n : 0; }

static nr_status variant_for_config(TunedKernel *t, int c, const char *hkey, const nr_config *hvals, Variant **out);

static void describe_config(StrBuf *b, const nr_config *c) {
    for (int i = 0; i < c->n; i++) sb_printf(b, "%s=%s, ", c->names[i], c->values[i]);
    sb_printf(b, "num_warps=%d, num_stages=%d", c->num_warps, c->num_stages);
}

nr_status tune_module_add_kernels(nr_module *m, Diag *diag) {
    TuneModule *tm = m->tune;
    if (!tm) return NR_OK;
    for (int i = 0; i < tm->n; i++) {
        TunedKernel *t = &tm->kernels[i];
        m->kernels[m->nkernels++] = (nr_kernel){.mod = m,
                                                      .f = t->sig,
                                                      .tuned = t,
                                                      .nparams = (int)t->sig->regions[t->sig->body].nargs,
                                                      .num_warps = m->prog.num_warps,
                                                      .num_stages = m->prog.num_stages};
        if (t->desc->nheur) continue; /* compiled at launch, when the heuristics have values */
        for (int c = 0; c < t->nconfigs; c++) {
            Variant *v;
            nr_status s = variant_for_config(t, c, "", NULL, &v);
            if (s) {
                sb_puts(&diag->out, nr_last_error(m->ctx));
                StrBuf what;
                sb_init(&what);
                describe_config(&what, &t->configs[c]);
                diag_note(diag, t->desc->loc, "in config %d of kernel '%s': %s", c, t->fn->name, sb_cstr(&what));
                sb_free(&what);
                return s;
            }
        }
    }
    return NR_OK;
}

void tune_module_free(nr_module *m) {
    TuneModule *tm = m->tune;
    if (!tm) return;
    for (int i = 0; i < tm->n; i++) {
        TunedKernel *t = &tm->kernels[i];
        for (int v = 0; v < t->nvariants; v++) {
            Variant *va = &t->variants[v];
            nr_module_destroy(va->mod);
            for (int j = 0; j < va->cfg.n; j++) free((char *)va->cfg.names[j]), free((char *)va->cfg.values[j]);
            free(va->cfg.names);
            free(va->cfg.values);
            free(va->key);
        }
        free(t->variants);
        for (int c = 0; c < t->nchoices; c++) free(t->choices[c].key);
        free(t->choices);
    }
    arena_free(tm->arena);
    free(tm);
    m->tune = NULL;
}

/* ---- variants ---- */

/* The kernel compiled for config c with the heuristics' values (hvals may be NULL). */
static nr_status variant_for_config(TunedKernel *t, int c, const char *hkey, const nr_config *hvals, Variant **out) {
    nr_module *m = t->mod;
    TuneModule *tm = m->tune;
    StrBuf key;
    sb_init(&key);
    sb_printf(&key, "%d|%s", c, hkey);
    for (int i = 0; i < t->nvariants; i++)
        if (!strcmp(t->variants[i].key, sb_cstr(&key))) {
            sb_free(&key);
            *out = &t->variants[i];
            return NR_OK;
        }
    const nr_config *cf = &t->configs[c];
    int nh = hvals ? hvals->n : 0, nd = tm->nbase + cf->n + nh;
    nr_define *defs = calloc((size_t)(nd ? nd : 1), sizeof *defs);
    Variant v;
    memset(&v, 0, sizeof v);
    v.cfg.names = calloc((size_t)(cf->n + nh + 1), sizeof(char *));
    v.cfg.values = calloc((size_t)(cf->n + nh + 1), sizeof(char *));
    if (!defs || !v.cfg.names || !v.cfg.values) {
        free(defs), free(v.cfg.names), free(v.cfg.values);
        sb_free(&key);
        return api_fail(m->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    int k = 0;
    for (int i = 0; i < tm->nbase; i++) defs[k++] = tm->base[i];
    for (int i = 0; i < cf->n + nh; i++) {
        const char *nm = i < cf->n ? cf->names[i] : hvals->names[i - cf->n];
        const char *val = i < cf->n ? cf->values[i] : hvals->values[i - cf->n];
        v.cfg.names[v.cfg.n] = strdup(nm);
        v.cfg.values[v.cfg.n++] = strdup(val);
        defs[k++] = (nr_define){nm, val};
    }
    v.cfg.num_warps = cf->num_warps ? cf->num_warps : tm->num_warps;
    v.cfg.num_stages = cf->num_stages ? cf->num_stages : tm->num_stages;
    nr_compile_options o = {defs, k, t->fn->name, v.cfg.num_warps, v.cfg.num_stages};
    nr_status s = api_compile_inner(m->ctx, m->text, m->src->len, m->src->name, &o, &v.mod);
    free(defs);
    if (!s) s = nr_module_get_kernel(v.mod, t->fn->name, &v.k);
    if (!s && t->nvariants == t->capvariants) {
        int cap = t->capvariants ? t->capvariants * 2 : 8;
        Variant *nv = realloc(t->variants, sizeof *nv * (size_t)cap);
        if (!nv) s = api_fail(m->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        else t->variants = nv, t->capvariants = cap;
    }
    if (s) {
        nr_module_destroy(v.mod);
        for (int i = 0; i < v.cfg.n; i++) free((char *)v.cfg.names[i]), free((char *)v.cfg.values[i]);
        free(v.cfg.names), free(v.cfg.values);
        sb_free(&key);
        return s;
    }
    v.key = strdup(sb_cstr(&key));
    sb_free(&key);
    t->variants[t->nvariants] = v;
    *out = &t->variants[t->nvariants++];
    return NR_OK;
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
    TuneModule *tm = t->mod->tune;
    PyDict *d = py_dict_new(py, 16);
    IrRegion *body = &t->sig->regions[t->sig->body];
    for (uint32_t i = 0; i < body->nargs; i++)
        py_dict_set(py, d, py_str(py, t->sig->param_names[i], strlen(t->sig->param_names[i])), arg_value(t->sig, (int)i, &args[i]));
    for (int i = 0; i < tm->nbase; i++)
        py_dict_set(py, d, py_str(py, tm->base[i].name, strlen(tm->base[i].name)), text_value(py, tm->base[i].value));
    if (c >= 0) {
        const TuneConfig *cf = &t->desc->configs[c];
        if (cf->val.k == PV_CONFIG)
            for (int i = 0; i < cf->val.u.cfg->kwargs->n; i++) py_dict_set(py, d, cf->val.u.cfg->kwargs->keys[i], cf->val.u.cfg->kwargs->vals[i]);
        const nr_config *nc = &t->configs[c];
        py_dict_set(py, d, py_str(py, "num_warps", 9),
                    py_int(nc->num_warps ? nc->num_warps : option_or_default(OPT_NUM_WARPS, tm->num_warps)));
        py_dict_set(py, d, py_str(py, "num_stages", 10),
                    py_int(nc->num_stages ? nc->num_stages : option_or_default(OPT_NUM_STAGES, tm->num_stages)));
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
    if (!h->names || !h->values) return api_fail(t->mod->ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
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
            py_error(py, hh->loc, "the heuristic for '%s' gave a %s (an int, float, bool, str or None is needed)", hh->name,
                     py_kind_name(r));
        }
        h->names[h->n] = strdup(hh->name);
        h->values[h->n++] = strdup(sb_cstr(&text));
        sb_printf(hkey, "%s=%s|", hh->name, sb_cstr(&text));
        sb_free(&text);
        py_dict_set(py, d, py_str(py, hh->name, strlen(hh->name)), r); /* later heuristics see it */
    }
    return eval_end(&e, false);
}

static void free_config(nr_config *c) {
    for (int i = 0; i < c->n; i++) free((char *)c->names[i]), free((char *)c->values[i]);
    free(c->names);
    free(c->values);
    memset(c, 0, sizeof *c);
}

static nr_status variant_for(TunedKernel *t, int c, const nr_arg *args, Variant **out) {
    nr_config h;
    StrBuf hkey;
    sb_init(&hkey);
    nr_status s = heuristics(t, c, args, &h, &hkey);
    if (!s) s = variant_for_config(t, c, sb_cstr(&hkey), t->desc->nheur ? &h : NULL, out);
    free_config(&h);
    sb_free(&hkey);
    return s;
}

/* early_config_prune, then perf_model with top_k: the surviving config indices. */
static nr_status prune(TunedKernel *t, const nr_arg *args, int *cand, int *ncand) {
    const TuneDesc *d = t->desc;
    *ncand = d->nconfigs;
    for (int i = 0; i < d->nconfigs; i++) cand[i] = i;
    if (d->early_prune.k == PV_NONE && d->perf_model.k == PV_NONE) return NR_OK;
    Eval e;
    eval_begin(&e, t);
    PyCtx *py = t->desc->py;
    if (setjmp(e.fail)) return eval_end(&e, true);
    if (d->early_prune.k != PV_NONE) {
        PyVal list = py_none();
        list.k = PV_LIST;
        list.u.seq = arena_alloc(py->arena, sizeof *list.u.seq);
        list.u.seq->n = d->nconfigs;
        list.u.seq->v = arena_alloc(py->arena, sizeof(PyVal) * (size_t)d->nconfigs);
        for (int i = 0; i < d->nconfigs; i++) list.u.seq->v[i] = d->configs[i].val;
        PyVal two[2] = {list, dict_val(args_dict(t, args, -1))};
        PyVal r = py_call(py, d->early_prune, 2, two, 0, NULL, NULL, d->loc);
        if (r.k != PV_LIST && r.k != PV_TUPLE) py_error(py, d->loc, "early_config_prune must return a list of configs");
        *ncand = 0;
        for (int i = 0; i < r.u.seq->n; i++) {
            PyVal cv = r.u.seq->v[i];
            if (cv.k != PV_CONFIG || cv.u.cfg->index < 0)
                py_error(py, d->loc, "early_config_prune must return configs from the @autotune list");
            cand[(*ncand)++] = cv.u.cfg->index;
        }
        if (!*ncand) py_error(py, d->loc, "early_config_prune left no config: it must return at least one");
    }
    double top = d->top_k > 0 ? d->top_k : 1.0;
    int keep = top <= 1.0 && d->top_k != (double)(int)d->top_k ? (int)(*ncand * top) : (int)top;
    if (keep < 1) keep = 1;
    if (d->perf_model.k != PV_NONE && *ncand > keep) {
        double est[256];
        int n = *ncand < 256 ? *ncand : 256;
        for (int i = 0; i < n; i++) {
            PyDict *kw = args_dict(t, args, cand[i]);
            const char **names = arena_alloc(py->arena, sizeof(char *) * (size_t)(kw->n + 1));
            for (int k = 0; k < kw->n; k++) names[k] = kw->keys[k].u.str.s;
            PyVal r = py_call(py, d->perf_model, 0, NULL, kw->n, names, kw->vals, d->loc);
            if (r.k != PV_INT && r.k != PV_FLOAT) py_error(py, d->loc, "perf_model must return a number");
            est[i] = r.k == PV_INT ? (double)r.u.i : r.u.f;
        }
        for (int i = 1; i < n; i++) /* stable: equal estimates keep the configs' order */
            for (int j = i; j > 0 && est[j] < est[j - 1]; j--) {
                double te = est[j]; est[j] = est[j - 1]; est[j - 1] = te;
                int tc = cand[j]; cand[j] = cand[j - 1]; cand[j - 1] = tc;
            }
        *ncand = keep;
    }
    return eval_end(&e, false);
}

/* ---- buffers around timed runs ---- */

typedef struct Buffer {
    uint64_t ptr;
    size_t bytes;
    void *saved; /* restore_value: the contents before timing */
    bool zero;
} Buffer;

/* Bytes from p to the end of the nr_malloc / nr_host_register extent holding it. */
static size_t extent_of(nr_context *ctx, uint64_t p) {
    for (int i = 0; i < ctx->nallocs; i++) {
        uint64_t b = (uint64_t)(uintptr_t)ctx->allocs[i].ptr;
        if (p >= b && p - b < ctx->allocs[i].size) return ctx->allocs[i].size - (size_t)(p - b);
    }
    for (int i = 0; i < ctx->nhost; i++) {
        uint64_t b = (uint64_t)(uintptr_t)ctx->host[i].ptr;
        if (p >= b && p - b < ctx->host[i].size) return ctx->host[i].size - (size_t)(p - b);
    }
    return 0;
}

static int param_index(const TunedKernel *t, const char *name) {
    IrRegion *body = &t->sig->regions[t->sig->body];
    for (uint32_t i = 0; i < body->nargs; i++)
        if (!strcmp(t->sig->param_names[i], name)) return (int)i;
    return -1;
}

static nr_status buffer_op(nr_context *ctx, uint64_t p, const void *from, void *to, size_t n, bool zero) {
    if (!ctx->cuda) {
        if (zero) memset((void *)(uintptr_t)p, 0, n);
        else if (from) memcpy((void *)(uintptr_t)p, from, n);
        else memcpy(to, (const void *)(uintptr_t)p, n);
        return NR_OK;
    }
    StrBuf err;
    sb_init(&err);
    int rc = zero ? cuda_memset(ctx->cuda, p, 0, n, &err)
             : from ? cuda_htod(ctx->cuda, p, from, n, &err)
                    : cuda_dtoh(ctx->cuda, to, p, n, &err);
    nr_status s = rc ? api_fail(ctx, NR_ERR_DEVICE, "autotuning: %s", sb_cstr(&err)) : NR_OK;
    sb_free(&err);
    return s;
}

static nr_status sync_stream(nr_context *ctx, void *stream) {
    if (!ctx->cuda) return NR_OK;
    return stream ? nr_stream_synchronize(ctx, stream) : nr_synchronize(ctx);
}

static nr_status collect_buffers(TunedKernel *t, const nr_arg *args, const size_t *bytes, Buffer *bufs, int *nbufs) {
    nr_context *ctx = t->mod->ctx;
    *nbufs = 0;
    for (int pass = 0; pass < 2; pass++) {
        int n = pass ? t->desc->nrestore : t->desc->nreset;
        const char **names = pass ? t->desc->restore_value : t->desc->reset_to_zero;
        for (int i = 0; i < n; i++) {
            int p = param_index(t, names[i]);
            if (p < 0) continue;
            uint64_t ptr = args[p].v.u;
            size_t sz = bytes && bytes[p] ? bytes[p] : extent_of(ctx, ptr);
            if (!sz)
                return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': %s names '%s', whose size is unknown: pass arg_bytes "
                                "to nr_launch_grid, or allocate it with nr_malloc", t->fn->name,
                                pass ? "restore_value" : "reset_to_zero", names[i]);
            Buffer b = {ptr, sz, NULL, !pass};
            if (pass) {
                b.saved = malloc(sz);
                if (!b.saved) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
                nr_status s = buffer_op(ctx, ptr, NULL, b.saved, sz, false);
                if (s) return free(b.saved), s;
            }
            bufs[(*nbufs)++] = b;
        }
    }
    return NR_OK;
}

static nr_status before_run(nr_context *ctx, const Buffer *bufs, int n) {
    for (int i = 0; i < n; i++)
        if (bufs[i].zero) {
            nr_status s = buffer_op(ctx, bufs[i].ptr, NULL, NULL, bufs[i].bytes, true);
            if (s) return s;
        }
    return NR_OK;
}

static nr_status after_run(nr_context *ctx, const Buffer *bufs, int n) {
    for (int i = 0; i < n; i++)
        if (bufs[i].saved) {
            nr_status s = buffer_op(ctx, bufs[i].ptr, bufs[i].saved, NULL, bufs[i].bytes, false);
            if (s) return s;
        }
    return NR_OK;
}

/* ---- timing ---- */

typedef struct LaunchCall {
    const unsigned *grid;
    nr_grid_fn grid_fn;
    void *user;
    const nr_arg *args;
    int nargs;
    const nr_launch_options *o;
} LaunchCall;

static nr_status launch_variant(TunedKernel *t, Variant *v, const LaunchCall *lc) {
    unsigned g[3] = {1, 1, 1};
    if (lc->grid_fn) {
        nr_status s = lc->grid_fn(&v->cfg, g, lc->user);
        if (s) return api_fail(t->mod->ctx, s, "kernel '%s': the grid function failed (%s)", t->fn->name, nr_status_string(s));
    } else memcpy(g, lc->grid, sizeof g);
    nr_launch_options lo = {v->cfg.num_warps, lc->o ? lc->o->stream : NULL, v->cfg.num_stages};
    t->last = &v->cfg;
    return nr_launch(v->k, g, lc->args, lc->nargs, &lo);
}

static double median(double *x, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && x[j] < x[j - 1]; j--) {
            double tmp = x[j]; x[j] = x[j - 1]; x[j - 1] = tmp;
        }
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Milliseconds per launch of config c, or INFINITY if it cannot compile or run. */
static double time_config(TunedKernel *t, int c, const LaunchCall *lc, const Buffer *bufs, int nbufs, nr_status *hard) {
    nr_context *ctx = t->mod->ctx;
    void *stream = lc->o ? lc->o->stream : NULL;
    Variant *v;
    if (variant_for(t, c, lc->args, &v)) return INFINITY;
    bool hooks = nbufs > 0;
    /* the first launch compiles for the device (not timed); then warm-up runs, whose mean
     * estimates a launch */
    int runs = 0;
    double t0 = 0, est = 0;
    for (int first = 1;; first = 0) {
        if ((*hard = before_run(ctx, bufs, nbufs))) return INFINITY;
        if (launch_variant(t, v, lc) || sync_stream(ctx, stream)) {
            if (after_run(ctx, bufs, nbufs)) *hard = NR_ERR_DEVICE;
            return INFINITY;
        }
        if ((*hard = after_run(ctx, bufs, nbufs))) return INFINITY;
        if (first) {
            t0 = nr_now_ms();
            continue;
        }
        runs++;
        double spent = nr_now_ms() - t0;
        est = spent / runs;
        if (spent >= t->desc->warmup_ms || runs >= 1000 || (!ctx->cuda && spent >= 1)) break;
    }
    if (est <= 0) est = 1e-3;
    int reps = (int)(t->desc->rep_ms / est);
    reps = reps < 5 ? 5 : reps > 2000 ? 2000 : reps;
    if (!ctx->cuda && est * reps > 4 * t->desc->rep_ms) reps = 1; /* the interpreter: slow launches, few of them */
    double times[2000];
    int n = 0;
    if (hooks) { /* each launch alone, between its hooks */
        for (int r = 0; r < reps; r++) {
            if ((*hard = before_run(ctx, bufs, nbufs))) return INFINITY;
            if (sync_stream(ctx, stream)) return INFINITY;
            double s0 = nr_now_ms();
            if (launch_variant(t, v, lc) || sync_stream(ctx, stream)) return INFINITY;
            times[n++] = nr_now_ms() - s0;
            if ((*hard = after_run(ctx, bufs, nbufs))) return INFINITY;
        }
    } else { /* batches of back-to-back launches */
        int batch = reps / 5 > 0 ? reps / 5 : 1;
        for (int b = 0; b < 5 && n < 2000; b++) {
            double s0 = nr_now_ms();
            for (int r = 0; r < batch; r++)
                if (launch_variant(t, v, lc)) return INFINITY;
            if (sync_stream(ctx, stream)) return INFINITY;
            times[n++] = (nr_now_ms() - s0) / batch;
        }
    }
    return median(times, n);
}

/* ---- choices ---- */

/* The disk cache's key of a choice: the build's identity (as for compiled kernels, so
 * that eviction treats both alike), then the device, the module's options, the kernel,
 * the key's values and the source. */
static void cache_key(TunedKernel *t, const char *key, StrBuf *build, StrBuf *ck) {
    nr_module *m = t->mod;
    nr_context *ctx = m->ctx;
    unsigned v[3];
    llvm_gen_version(&v[0], &v[1], &v[2]);
    cache_key_build(build, v);
    sb_putn(ck, build->data, build->len);
    sb_puts(ck, "|autotune 1|");
    if (ctx->cuda) sb_printf(ck, "cuda %s cc %d|", cuda_device_name(ctx->cuda), cuda_compute_capability(ctx->cuda));
    else sb_puts(ck, "cpu|");
    /* the module's compile options, every string length-prefixed */
    const char *only = m->only_kernel ? m->only_kernel : "*";
    sb_printf(ck, "warps=%d;stages=%d;kernel=%zu:%s;", m->num_warps, m->num_stages, strlen(only), only);
    for (int i = 0; i < m->ndefines; i++)
        sb_printf(ck, "-D%zu:%s=%zu:%s;", strlen(m->defines[i].name), m->defines[i].name,
                  strlen(m->defines[i].value), m->defines[i].value);
    sb_printf(ck, "|%zu:%s|%zu:%s|%zu:", strlen(t->fn->name), t->fn->name, strlen(key), key, m->src->len);
    sb_putn(ck, m->text, m->src->len);
}

static bool print_wanted(void) {
    const char *e = getenv("NEREID_PRINT_AUTOTUNING");
    return e && !strcmp(e, "1");
}

static void print_config(const TunedKernel *t, int c, FILE *f) {
    StrBuf b;
    sb_init(&b);
    describe_config(&b, &t->configs[c]);
    fputs(sb_cstr(&b), f);
    sb_free(&b);
}

/* The config for this key: from the disk cache, or timed. -1 on failure (ctx's error). */
static int choose(TunedKernel *t, const char *key, const LaunchCall *lc, const size_t *bytes, nr_status *st) {
    nr_context *ctx = t->mod->ctx;
    bool print = print_wanted();
    StrBuf ckb, ckt;
    sb_init(&ckb), sb_init(&ckt);
    cache_key(t, key, &ckb, &ckt);
    CacheKey ck = {sb_cstr(&ckb), sb_cstr(&ckt)};
    size_t len;
    char *hit = cache_get(&ck, &len);
    int chosen = -1;
    if (hit) {
        int c;
        if (sscanf(hit, "config %d", &c) == 1 && c >= 0 && c < t->nconfigs) chosen = c;
        free(hit);
        if (chosen >= 0 && print) {
            printf("nereid autotune: kernel %s, key (%s): ", t->fn->name, key);
            print_config(t, chosen, stdout);
            printf(" (chosen earlier, from the cache)\n");
            fflush(stdout);
        }
    }
    if (chosen < 0) {
        int cand[1024], ncand;
        if (t->desc->nconfigs > 1024) {
            *st = api_fail(ctx, NR_ERR_UNSUPPORTED, "kernel '%s': more than 1024 configs", t->fn->name);
            sb_free(&ckb), sb_free(&ckt);
            return -1;
        }
        if ((*st = prune(t, lc->args, cand, &ncand))) {
            sb_free(&ckb), sb_free(&ckt);
            return -1;
        }
        double start = nr_now_ms(), best = INFINITY;
        if (ncand == 1) chosen = cand[0]; /* nothing to compare */
        else {
            Buffer bufs[64];
            int nbufs = 0;
            if (t->desc->nreset + t->desc->nrestore > 64) {
                *st = api_fail(ctx, NR_ERR_UNSUPPORTED, "kernel '%s': too many buffers to reset or restore", t->fn->name);
            } else *st = collect_buffers(t, lc->args, bytes, bufs, &nbufs);
            if (print && !*st) {
                printf("nereid autotune: kernel %s, key (%s): timing %d of %d configs\n", t->fn->name, key, ncand, t->nconfigs);
                fflush(stdout);
            }
            StrBuf first_error;
            sb_init(&first_error);
            for (int i = 0; i < ncand && !*st; i++) {
                double ms = time_config(t, cand[i], lc, bufs, nbufs, st);
                if (isinf(ms) && !first_error.len) sb_puts(&first_error, nr_last_error(ctx));
                if (print) {
                    printf("  ");
                    print_config(t, cand[i], stdout);
                    if (isinf(ms)) printf(": failed: %s\n", nr_last_error(ctx));
                    else printf(": %.4f ms\n", ms);
                    fflush(stdout);
                }
                if (ms < best) best = ms, chosen = cand[i];
            }
            for (int i = 0; i < nbufs; i++) free(bufs[i].saved);
            if (!*st && chosen < 0)
                *st = api_fail(ctx, NR_ERR_LAUNCH, "kernel '%s': no config could run; the first failure: %s", t->fn->name,
                               sb_cstr(&first_error));
            sb_free(&first_error);
            if (!*st && nbufs) *st = before_run(ctx, bufs, nbufs); /* zeroed again for the real launch */
        }
        if (!*st) {
            StrBuf payload;
            sb_init(&payload);
            sb_printf(&payload, "config %d\n", chosen);
            describe_config(&payload, &t->configs[chosen]);
            sb_printf(&payload, "\n%.6f ms\n", best);
            cache_put(&ck, payload.data, payload.len);
            sb_free(&payload);
            if (print) {
                printf("nereid autotune: kernel %s, key (%s): chose ", t->fn->name, key);
                print_config(t, chosen, stdout);
                if (isfinite(best)) printf(" (%.4f ms)", best);
                printf(" after %.2f s\n", (nr_now_ms() - start) / 1000);
                fflush(stdout);
            }
        }
    }
    sb_free(&ckb), sb_free(&ckt);
    return *st ? -1 : chosen;
}

/* The key's values as text: "M=512, N=512, K=64". */
static void key_string(const TunedKernel *t, const nr_arg *args, StrBuf *out) {
    for (int k = 0; k < t->desc->nkey; k++) {
        sb_printf(out, "%s%s=", k ? ", " : "", t->desc->key[k]);
        int p = t->key_param[k];
        if (p < 0) sb_puts(out, t->key_text[k]);
        else if (args[p].type == NR_TYPE_PTR) sb_puts(out, "ptr"); /* its dtype is the signature's */
        else if (args[p].type >= NR_TYPE_FP16) sb_printf(out, "%.17g", args[p].v.f);
        else if (args[p].type >= NR_TYPE_U8) sb_printf(out, "%llu", (unsigned long long)args[p].v.u);
        else sb_printf(out, "%lld", (long long)args[p].v.i);
    }
}

nr_status tune_launch(nr_kernel *k, const unsigned grid[3], nr_grid_fn grid_fn, void *user, const nr_arg *args,
                      int num_args, const size_t *arg_bytes, const nr_launch_options *o) {
    TunedKernel *t = k->tuned;
    nr_context *ctx = k->mod->ctx;
    int np = nr_kernel_num_params(k);
    if (!grid && !grid_fn) return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': the grid must not be NULL", t->fn->name);
    if (num_args != np || (np && !args))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s' takes %d argument%s, got %d", t->fn->name, np,
                        np == 1 ? "" : "s", num_args);
    for (int i = 0; i < np; i++) { /* the type tags, before they key anything */
        bool ptr = ir_type(t->sig, t->sig->regions[t->sig->body].args[i]).dt == DT_PTR;
        if (ptr != (args[i].type == NR_TYPE_PTR))
            return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s') %s", t->fn->name, i,
                            t->sig->param_names[i], ptr ? "is a pointer" : "is not a pointer");
    }
    LaunchCall lc = {grid, grid_fn, user, args, num_args, o};
    int c = 0;
    if (t->desc->autotune && t->nconfigs > 1) {
        StrBuf key;
        sb_init(&key);
        key_string(t, args, &key);
        c = -1;
        for (int i = 0; i < t->nchoices && c < 0; i++)
            if (!strcmp(t->choices[i].key, sb_cstr(&key))) c = t->choices[i].config;
        if (c < 0) {
            nr_status s = NR_OK;
            c = choose(t, sb_cstr(&key), &lc, arg_bytes, &s);
            if (c < 0) {
                sb_free(&key);
                return s;
            }
            if (t->nchoices == t->capchoices) {
                int cap = t->capchoices ? t->capchoices * 2 : 8;
                Choice *nc = realloc(t->choices, sizeof *nc * (size_t)cap);
                if (!nc) {
                    sb_free(&key);
                    return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
                }
                t->choices = nc, t->capchoices = cap;
            }
            t->choices[t->nchoices++] = (Choice){strdup(sb_cstr(&key)), c};
        }
        sb_free(&key);
    }
    Variant *v;
    nr_status s = variant_for(t, c, args, &v);
    if (s) return s;
    return launch_variant(t, v, &lc);
}

/* ---- the public functions ---- */

nr_status nr_launch_grid(nr_kernel *k, nr_grid_fn grid, void *user, const nr_arg *args, int num_args,
                         const size_t *arg_bytes, const nr_launch_options *opts) {
    if (!k) return NR_ERR_INVALID_ARG;
    nr_context *ctx = k->mod->ctx;
    if (!grid) return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_launch_grid: the grid function must not be NULL");
    if (k->tuned) return tune_launch(k, NULL, grid, user, args, num_args, arg_bytes, opts);
    nr_config none = {0, NULL, NULL, opts && opts->num_warps ? opts->num_warps : k->mod->prog.num_warps,
                      opts && opts->num_stages ? opts->num_stages : k->mod->prog.num_stages};
    unsigned g[3] = {1, 1, 1};
    nr_status s = grid(&none, g, user);
    if (s) return api_fail(ctx, s, "kernel '%s': the grid function failed (%s)", k->f->name, nr_status_string(s));
    return nr_launch(k, g, args, num_args, opts);
}

int nr_kernel_num_configs(const nr_kernel *k) { return k && k->tuned && k->tuned->desc->autotune ? k->tuned->nconfigs : 0; }

const nr_config *nr_kernel_config(const nr_kernel *k, int i) {
    return i >= 0 && i < nr_kernel_num_configs(k) ? &k->tuned->configs[i] : NULL;
}

const nr_config *nr_kernel_last_config(const nr_kernel *k) { return k && k->tuned ? k->tuned->last : NULL; }

int nr_config_num_values(const nr_config *c) { return c ? c->n : 0; }
const char *nr_config_name(const nr_config *c, int i) { return c && i >= 0 && i < c->n ? c->names[i] : NULL; }
const char *nr_config_value(const nr_config *c, int i) { return c && i >= 0 && i < c->n ? c->values[i] : NULL; }
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
