/* tune.c - read @triton.autotune and @triton.heuristics into a TuneDesc (tune.h).
 *
 * The parser keeps a decorator as its callee alone; its argument list is read again here
 * from the source text, from the '(' after the callee, with pyexpr.h, and evaluated once:
 * configs become constexpr texts and launch options, names are checked against the
 * kernel's parameters (a config may only set constexprs, a key must be a parameter,
 * buffers to reset or restore must be pointers), and the lambdas (heuristics, config
 * pruning, performance models) stay values the runtime calls at launch. Module-level
 * constants of the kernel file may be used (`configs=[... for b in BLOCKS]`): their
 * right-hand sides are read from the source the same way, on first use. */
#include "tune.h"

#include <stdlib.h>
#include <string.h>

typedef struct Reader {
    PyCtx py;
    const Module *m;
    const Func *fn;
    jmp_buf fail;
    PyVal *gvals;
    char *gstate; /* per module constant: 0 unread, 1 being read, 2 read */
    Arena *arena; /* the description's: module constants are read into it, once */
} Reader;

static const char *decorator_name(const Expr *d) {
    if (d->kind == EX_CALL) d = d->lhs;
    return d->kind == EX_NAME || d->kind == EX_ATTR ? d->name : "";
}

bool tune_func_is_tuned(const Func *fn) {
    for (int i = 0; i < fn->ndecorators; i++) {
        const char *n = decorator_name(fn->decorators[i]);
        if (!strcmp(n, "autotune") || !strcmp(n, "heuristics")) return true;
    }
    return false;
}

static size_t offset_of(const Source *src, Loc loc) {
    size_t off = 0;
    for (int line = 1; line < loc.line && off < src->len; off++)
        if (src->text[off] == '\n') line++;
    return off + (size_t)(loc.col - 1);
}

/* The byte after the '=' of a module-level `NAME = value` / `NAME: ann = value`. */
static bool value_offset(const Source *src, Loc loc, size_t *out) {
    const char *t = src->text;
    for (size_t i = offset_of(src, loc); i < src->len && t[i] != '\n'; i++)
        if (t[i] == '=' && t[i + 1] != '=' && (i == 0 || !strchr("=!<>", t[i - 1]))) {
            *out = i + 1;
            return true;
        }
    return false;
}

static bool global_value(void *user, const char *name, PyVal *out) {
    Reader *R = user;
    for (int i = 0; i < R->m->nglobals; i++) {
        const Stmt *st = R->m->globals[i];
        if ((st->kind != ST_ASSIGN && st->kind != ST_ANNASSIGN) || !st->value || st->ntargets < 1 ||
            st->targets[0]->kind != EX_NAME || strcmp(st->targets[0]->name, name))
            continue;
        if (R->gstate[i] == 2) return *out = R->gvals[i], true;
        if (R->gstate[i] == 1)
            py_error(&R->py, st->loc, "module-level constant '%s' depends on itself", name);
        size_t at, end;
        if (!value_offset(R->m->src, st->loc, &at)) return false;
        R->gstate[i] = 1;
        Arena *scratch =
            R->py.arena; /* a launch's scratch arena, perhaps: the value must outlive it */
        R->py.arena = R->arena;
        PyNode *e = py_parse_expr_at(&R->py, at, &end);
        R->gvals[i] = py_eval(&R->py, e, NULL);
        R->py.arena = scratch;
        R->gstate[i] = 2;
        *out = R->gvals[i];
        return true;
    }
    return false;
}

bool tune_value_text(PyVal v, StrBuf *out) {
    switch (v.k) {
    case PV_NONE:
    case PV_BOOL:
    case PV_INT:
    case PV_FLOAT:
    case PV_STR: py_print(out, v, false); return true;
    default: return false;
    }
}

static const Param *find_param(const Func *fn, const char *name) {
    for (int i = 0; i < fn->nparams; i++)
        if (!strcmp(fn->params[i].name, name)) return &fn->params[i];
    return NULL;
}

static bool is_constexpr(const Param *p) {
    return p->annotation && !strcmp(p->annotation, "constexpr");
}

/* A list (or tuple) of parameter names. */
static void name_list(Reader *R, PyVal v, Loc loc, const char *what, bool pointers,
                      const char ***out, int *n) {
    if (v.k == PV_NONE) return;
    if (v.k != PV_LIST && v.k != PV_TUPLE)
        py_error(&R->py, loc, "%s must be a list of parameter names", what);
    *n = v.u.seq->n;
    *out = arena_alloc(R->py.arena, sizeof(char *) * (size_t)(*n ? *n : 1));
    for (int i = 0; i < *n; i++) {
        PyVal s = v.u.seq->v[i];
        if (s.k != PV_STR)
            py_error(&R->py, loc, "%s must be a list of parameter names, not of %s", what,
                     py_kind_name(s));
        const Param *p = find_param(R->fn, s.u.str.s);
        if (!p)
            py_error(&R->py, loc, "%s names '%s', which is not a parameter of kernel '%s'", what,
                     s.u.str.s, R->fn->name);
        if (pointers && (!p->annotation || p->annotation[0] != '*'))
            py_error(&R->py, loc, "%s names '%s', which is not a pointer parameter", what,
                     s.u.str.s);
        (*out)[i] = s.u.str.s;
    }
}

static void read_config(Reader *R, PyVal v, Loc loc, int index, TuneConfig *out) {
    if (v.k != PV_CONFIG)
        py_error(&R->py, loc, "configs must be triton.Config objects, got %s", py_kind_name(v));
    PyConfig *cf = v.u.cfg;
    cf->index = index;
    out->val = v;
    out->num_warps = cf->num_warps;
    out->num_stages = cf->num_stages;
    out->n = cf->kwargs->n;
    out->names = arena_alloc(R->py.arena, sizeof(char *) * (size_t)(out->n ? out->n : 1));
    out->texts = arena_alloc(R->py.arena, sizeof(char *) * (size_t)(out->n ? out->n : 1));
    for (int i = 0; i < out->n; i++) {
        const char *name = cf->kwargs->keys[i].u.str.s;
        const Param *p = find_param(R->fn, name);
        if (!p || !is_constexpr(p))
            py_error(&R->py, cf->loc,
                     "config %d sets '%s', which is not a constexpr parameter of kernel '%s'",
                     index, name, R->fn->name);
        StrBuf t;
        sb_init(&t);
        if (!tune_value_text(cf->kwargs->vals[i], &t)) {
            sb_free(&t);
            py_error(&R->py, cf->loc,
                     "config %d: '%s' must be an int, float, bool, str or None, got %s", index,
                     name, py_kind_name(cf->kwargs->vals[i]));
        }
        out->names[i] = name;
        out->texts[i] = arena_strdup(R->py.arena, sb_cstr(&t));
        sb_free(&t);
    }
}

/* Where the decorator's '(' is: after its dotted name. */
static bool args_offset(const Source *src, const Expr *d, size_t *out) {
    size_t i = offset_of(src, d->loc);
    while (i < src->len && src->text[i] != '(' && src->text[i] != '\n') i++;
    if (i >= src->len || src->text[i] != '(') return false;
    *out = i;
    return true;
}

static PyVal eval_arg(Reader *R, PyNode *n) { return py_eval(&R->py, n, NULL); }

static void read_autotune(Reader *R, const Expr *d, TuneDesc *t) {
    size_t open;
    if (d->kind != EX_CALL || !args_offset(R->m->src, d, &open))
        py_error(&R->py, d->loc,
                 "@autotune needs its arguments: @triton.autotune(configs=[...], key=[...])");
    PyArgs a;
    py_parse_call_args(&R->py, open, &a);
    static const char *const positional[] = {"configs", "key", "prune_configs_by", "reset_to_zero",
                                             "restore_value"};
    if (a.n > 5) py_error(&R->py, a.loc, "@autotune takes at most 5 positional arguments");
    PyVal configs = py_none(), key = py_none(), prune = py_none(), reset = py_none(),
          restore = py_none();
    PyVal *slots[] = {&configs, &key, &prune, &reset, &restore};
    Loc locs[5] = {a.loc, a.loc, a.loc, a.loc, a.loc};
    for (int i = 0; i < a.n; i++)
        *slots[i] = eval_arg(R, a.pos[i]), locs[i] = py_node_loc(a.pos[i]);
    t->warmup_ms = 25, t->rep_ms = 100;
    for (int k = 0; k < a.nkw; k++) {
        const char *nm = a.kwnames[k];
        if (!nm) py_error(&R->py, a.kwlocs[k], "'**' arguments are not read here");
        PyVal v = eval_arg(R, a.kwvals[k]);
        int slot = -1;
        for (int i = 0; i < 5; i++)
            if (!strcmp(positional[i], nm)) slot = i;
        if (slot >= 0) {
            if (slot < a.n) py_error(&R->py, a.kwlocs[k], "@autotune got '%s' twice", nm);
            *slots[slot] = v, locs[slot] = a.kwlocs[k];
        } else if (!strcmp(nm, "warmup") || !strcmp(nm, "rep")) {
            if (v.k == PV_NONE) continue;
            if (v.k != PV_INT || v.u.i < 1 || v.u.i > 100000)
                py_error(&R->py, a.kwlocs[k],
                         "%s must be a number of milliseconds from 1 to 100000", nm);
            if (nm[0] == 'w') t->warmup_ms = (int)v.u.i;
            else t->rep_ms = (int)v.u.i;
        } else if (!strcmp(nm, "pre_hook") || !strcmp(nm, "post_hook") || !strcmp(nm, "do_bench")) {
            if (v.k != PV_NONE)
                py_error(&R->py, a.kwlocs[k], "'%s' is Python code the C runtime cannot run", nm);
        } else if (!strcmp(nm, "use_cuda_graph") || !strcmp(nm, "cache_results")) {
            /* accepted: timings never use CUDA graphs, and choices are always kept on disk */
        } else py_error(&R->py, a.kwlocs[k], "@autotune has no argument '%s'", nm);
    }
    if (configs.k != PV_LIST && configs.k != PV_TUPLE)
        py_error(&R->py, locs[0], "@autotune needs configs=[triton.Config(...), ...]");
    if (configs.u.seq->n == 0) py_error(&R->py, locs[0], "@autotune needs at least one config");
    t->nconfigs = configs.u.seq->n;
    t->configs = arena_alloc(R->py.arena, sizeof *t->configs * (size_t)t->nconfigs);
    for (int i = 0; i < t->nconfigs; i++)
        read_config(R, configs.u.seq->v[i], locs[0], i, &t->configs[i]);
    if (key.k == PV_NONE)
        py_error(&R->py, a.loc,
                 "@autotune needs key=[...] (the parameters whose values select a tuning)");
    name_list(R, key, locs[1], "key", false, &t->key, &t->nkey);
    name_list(R, reset, locs[3], "reset_to_zero", true, &t->reset_to_zero, &t->nreset);
    name_list(R, restore, locs[4], "restore_value", true, &t->restore_value, &t->nrestore);
    t->early_prune = t->perf_model = py_none();
    if (prune.k != PV_NONE) {
        if (prune.k != PV_DICT) py_error(&R->py, locs[2], "prune_configs_by must be a dict");
        t->top_k = 1.0,
        t->top_k_is_float = true; /* Triton's default: the fraction 1.0 (every config) */
        for (int i = 0; i < prune.u.dict->n; i++) {
            PyVal k = prune.u.dict->keys[i], v = prune.u.dict->vals[i];
            const char *kn = k.k == PV_STR ? k.u.str.s : "";
            if (!strcmp(kn, "early_config_prune")) t->early_prune = v;
            else if (!strcmp(kn, "perf_model")) t->perf_model = v;
            else if (!strcmp(kn, "top_k")) {
                if (v.k != PV_INT && v.k != PV_FLOAT)
                    py_error(&R->py, locs[2], "top_k must be a number");
                t->top_k = v.k == PV_INT ? (double)v.u.i : v.u.f;
                t->top_k_is_float = v.k == PV_FLOAT;
            } else
                py_error(
                    &R->py, locs[2],
                    "prune_configs_by has no entry '%s' (early_config_prune, perf_model, top_k)",
                    kn);
        }
        if (t->early_prune.k != PV_NONE && t->early_prune.k != PV_FUNC)
            py_error(&R->py, locs[2], "early_config_prune must be a lambda here");
        if (t->perf_model.k != PV_NONE && t->perf_model.k != PV_FUNC)
            py_error(&R->py, locs[2], "perf_model must be a lambda here");
    }
    t->autotune = true;
    t->loc = d->loc;
}

static void read_heuristics(Reader *R, const Expr *d, TuneDesc *t) {
    size_t open;
    if (d->kind != EX_CALL || !args_offset(R->m->src, d, &open))
        py_error(
            &R->py, d->loc,
            "@heuristics needs its values: @triton.heuristics(values={'NAME': lambda args: ...})");
    PyArgs a;
    py_parse_call_args(&R->py, open, &a);
    PyVal values = py_none();
    Loc loc = a.loc;
    if (a.n == 1 && a.nkw == 0) values = eval_arg(R, a.pos[0]), loc = py_node_loc(a.pos[0]);
    else if (a.n == 0 && a.nkw == 1 && a.kwnames[0] && !strcmp(a.kwnames[0], "values"))
        values = eval_arg(R, a.kwvals[0]), loc = a.kwlocs[0];
    else
        py_error(&R->py, a.loc,
                 "@heuristics takes one argument: values={'NAME': lambda args: ...}");
    if (values.k != PV_DICT) py_error(&R->py, loc, "@heuristics' values must be a dict of lambdas");
    for (int i = 0; i < values.u.dict->n; i++) {
        PyVal k = values.u.dict->keys[i], f = values.u.dict->vals[i];
        if (k.k != PV_STR) py_error(&R->py, loc, "@heuristics' keys must be parameter names");
        const Param *p = find_param(R->fn, k.u.str.s);
        if (!p || !is_constexpr(p))
            py_error(&R->py, loc,
                     "@heuristics computes '%s', which is not a constexpr parameter of kernel '%s'",
                     k.u.str.s, R->fn->name);
        if (f.k != PV_FUNC)
            py_error(&R->py, loc, "@heuristics' value for '%s' must be a lambda", k.u.str.s);
        TuneHeuristic h = {k.u.str.s, f, loc};
        int cap = t->nheur;
        VEC_PUSH(R->py.arena, t->heur, t->nheur, cap, h);
    }
    if (!t->autotune && !t->loc.src) t->loc = d->loc;
}

bool tune_read(Arena *arena, Diag *diag, const Module *m, const Func *fn, TuneDesc **out) {
    *out = NULL;
    if (!tune_func_is_tuned(fn)) return true;
    Reader *R = arena_alloc(arena, sizeof *R);
    R->m = m;
    R->fn = fn;
    R->arena = arena;
    R->py.arena = arena;
    R->py.src = m->src;
    R->py.diag = diag;
    R->py.fail = &R->fail;
    R->py.global = global_value;
    R->py.global_user = R;
    R->py.steps = 10 * 1000 * 1000;
    R->gvals = arena_alloc(arena, sizeof(PyVal) * (size_t)(m->nglobals + 1));
    R->gstate = arena_alloc(arena, (size_t)(m->nglobals + 1));
    TuneDesc *t = arena_alloc(arena, sizeof *t);
    t->kernel = fn->name;
    t->early_prune = t->perf_model = py_none();
    t->py = &R->py;
    if (setjmp(R->fail)) return false;
    for (int i = 0; i < fn->ndecorators; i++) {
        const Expr *d = fn->decorators[i];
        const char *n = decorator_name(d);
        if (!strcmp(n, "autotune")) {
            if (t->autotune)
                py_error(&R->py, d->loc, "kernel '%s' has two @autotune decorators", fn->name);
            read_autotune(R, d, t);
        } else if (!strcmp(n, "heuristics")) read_heuristics(R, d, t);
    }
    if (!t->autotune) { /* heuristics alone: one config with nothing in it */
        t->nconfigs = 1;
        t->configs = arena_alloc(arena, sizeof *t->configs);
        t->configs[0].num_warps = 0;
        t->configs[0].num_stages = 0;
        t->configs[0].val = py_none();
    }
    /* after the run: launch-time errors longjmp to the runtime's own buffer */
    R->py.fail = NULL;
    *out = t;
    return true;
}

/* ---- the signature ---- */

static bool sets(const TuneDesc *d, const char *name) {
    for (int c = 0; c < d->nconfigs; c++)
        for (int i = 0; i < d->configs[c].n; i++)
            if (!strcmp(d->configs[c].names[i], name)) return true;
    for (int h = 0; h < d->nheur; h++)
        if (!strcmp(d->heur[h].name, name)) return true;
    return false;
}

static const char *define_of(const SemaDefine *defs, int n, const char *name) {
    const char *v = NULL;
    for (int i = 0; i < n; i++)
        if (!strcmp(defs[i].name, name)) v = defs[i].value; /* the last one wins, as in sema */
    return v;
}

/* A "tensordesc<fp16[BM, BK]>" annotation's element type and rank (1s for the dims);
 * false if it is not a descriptor. */
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
    if (rank > NR_MAX_DESC_RANK) return false;
    int32_t ones[NR_MAX_DESC_RANK];
    for (int d = 0; d < rank; d++) ones[d] = 1;
    *out = ty_tdesc(elem.dt, rank, ones);
    return true;
}

bool tune_signature(const TuneDesc *d, const Func *fn, const SemaDefine *defines, int ndefines,
                    IrModule *sigs, IrFunc **out, Diag *diag) {
    for (int i = 0; i < ndefines; i++)
        if (sets(d, defines[i].name)) {
            diag_error(diag, d->loc,
                       "conflicting meta-parameters: '%s' is given to the compile and set by the "
                       "@autotune/@heuristics of kernel '%s' (give it in one place)",
                       defines[i].name, fn->name);
            return false;
        }
    IrFunc *sig = ir_func_new(sigs, fn->name, true, fn->loc);
    for (int i = 0; i < fn->nparams; i++) {
        const Param *p = &fn->params[i];
        if (is_constexpr(p)) continue;
        IrType ty;
        const char *tname = sema_signature_type_name(p->annotation);
        if (desc_signature(p->annotation, &ty)) {
            ir_add_param(sig, ty, p->name);
            continue;
        }
        if (!sema_signature_type(p->annotation, &ty) &&
            !(tname && !sets(d, tname) &&
              sema_signature_type_of(p->annotation, define_of(defines, ndefines, tname), &ty))) {
            diag_error(
                diag, p->ann_loc,
                tname && sets(d, tname)
                    ? "parameter '%s': its type '%s' cannot be a tuned meta-parameter"
                    : "parameter '%s': unknown parameter type '%s' (a type named by a constexpr "
                      "must be given to the compile, e.g. -D DT=bf16)",
                p->name, p->annotation);
            return false;
        }
        ir_add_param(sig, ty, p->name);
    }
    for (int k = 0; k < d->nkey;
         k++) /* a config sets only constexprs: such a key is no launch argument */
        if (sets(d, d->key[k])) {
            diag_error(diag, d->loc,
                       "key names '%s', which the configs set: a key is a launch argument",
                       d->key[k]);
            return false;
        }
    *out = sig;
    return true;
}
