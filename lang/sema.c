/* sema.c - the entry of semantic analysis: which functions are kernels, the values of
 * their constexpr parameters (from -D definitions or defaults), their runtime parameters
 * (Triton signature types), and the error exit shared by the sema_*.c files. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sema_internal.h"

static _Noreturn void fail_with_notes(Sema *S) {
    for (int i = S->depth - 1; i >= 0; i--) /* where the failing helper was called from */
        if (S->stack[i].call_loc.src)
            diag_note(S->diag, S->stack[i].call_loc, "in the call of '%s' here",
                      S->stack[i].fn->name);
    longjmp(S->fail, 1);
}

_Noreturn void sema_error(Sema *S, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(S->diag, loc, fmt, ap);
    va_end(ap);
    fail_with_notes(S);
}

_Noreturn void sema_error_from(Sema *S, Loc loc, Loc from, const char *from_what, const char *fmt,
                               ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(S->diag, loc, fmt, ap);
    va_end(ap);
    diag_note(S->diag, from, "%s", from_what);
    fail_with_notes(S);
}

bool sema_is_kernel(const Func *f) {
    bool runtime = false;
    for (int i = 0; i < f->nparams; i++) {
        if (!f->params[i].annotation) return false;
        runtime |= strcmp(f->params[i].annotation, "constexpr") != 0;
    }
    return runtime; /* only constexpr parameters (or none): a helper */
}

bool sema_is_kernel_named(const Func *f, const char *only) {
    if (sema_is_kernel(f)) return true;
    if (!only || strcmp(f->name, only)) return false;
    for (int i = 0; i < f->nparams; i++)
        if (!f->params[i].annotation) return false;
    return true; /* named: a kernel without launch arguments, as Triton allows */
}

/* "*fp32" / "i32" / "fp16" ... */
static bool parse_sig_type(const char *s, IrType *out) {
    bool ptr = *s == '*';
    if (ptr) s++;
    int dt = dt_from_name(s);
    if (dt == DT_VOID) {
        static const char *const aliases[][2] = {{"int1", "i1"},
                                                 {"int8", "i8"},
                                                 {"int16", "i16"},
                                                 {"int32", "i32"},
                                                 {"int64", "i64"},
                                                 {"uint8", "u8"},
                                                 {"uint16", "u16"},
                                                 {"uint32", "u32"},
                                                 {"uint64", "u64"},
                                                 {"float16", "fp16"},
                                                 {"bfloat16", "bf16"},
                                                 {"float32", "fp32"},
                                                 {"float64", "fp64"},
                                                 {"u1", "i1"},
                                                 {"B", "i1"},
                                                 {"float8e4nv", "fp8e4nv"},
                                                 {"float8e5", "fp8e5"},
                                                 {"float8e4b15", "fp8e4b15"},
                                                 {"float8e4b8", "fp8e4b8"},
                                                 {"float8e5b16", "fp8e5b16"},
                                                 /* Python's and C's names, as Triton reads them */
                                                 {"bool", "i1"},
                                                 {"int", "i32"},
                                                 {"float", "fp32"},
                                                 {"half", "fp16"},
                                                 {"double", "fp64"},
                                                 {"float8_e4m3fn", "fp8e4nv"},
                                                 {"float8_e5m2", "fp8e5"},
                                                 {"float8_e4m3fnuz", "fp8e4b8"},
                                                 {"float8_e5m2fnuz", "fp8e5b16"}};
        const char *t = strncmp(s, "tl.", 3) ? s : s + 3;
        for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
            if (!strcmp(t, aliases[i][0])) dt = dt_from_name(aliases[i][1]);
    }
    if (dt == DT_VOID) return false;
    *out = ptr ? ty_ptr(dt) : ty_scalar(dt);
    return true;
}

bool sema_signature_type(const char *annotation, IrType *out) {
    return annotation && parse_sig_type(annotation, out);
}

const char *sema_signature_type_name(const char *annotation) {
    if (!annotation) return NULL;
    const char *s = annotation + (*annotation == '*');
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return NULL;
    for (const char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_'))
            return NULL;
    return s;
}

bool sema_signature_type_of(const char *annotation, const char *value, IrType *out) {
    IrType t;
    if (!sema_signature_type_name(annotation) || !value || *value == '*' ||
        !parse_sig_type(value, &t))
        return false;
    *out = *annotation == '*' ? ty_ptr(t.dt) : t;
    return true;
}

/* A runtime parameter's type: its annotation, or the value of the constexpr parameter the
 * annotation names ("q: *DT" with DT: tl.constexpr set to "bf16" or tl.bfloat16). */
/* Triton's signature spelling of a pointer the kernel may only read, "*kfp32" (what the
 * Python package writes for a parameter annotated tl.const): true, with *p's annotation
 * made the plain pointer type ("*fp32"). */
static bool const_ptr_param(Sema *S, Param *p) {
    IrType t;
    if (strncmp(p->annotation, "*k", 2)) return false;
    const char *plain = arena_printf(S->arena, "*%s", p->annotation + 2);
    if (!parse_sig_type(plain, &t)) return false;
    p->annotation = plain;
    return true;
}

static IrType param_type(Sema *S, const Param *p) {
    IrType t;
    if (parse_sig_type(p->annotation, &t)) return t;
    if (sema_desc_param_type(S, p->annotation, p->name, p->ann_loc, &t)) return t;
    const char *name = sema_signature_type_name(p->annotation);
    const Val *v = name ? sema_env_lookup(S->fs->env, name) : NULL;
    if (v && v->k == V_STR && sema_signature_type_of(p->annotation, v->s, &t)) return t;
    if (v && v->k == V_DTYPE && v->ty.dt != DT_PTR)
        return *p->annotation == '*' ? ty_ptr(v->ty.dt) : ty_scalar(v->ty.dt);
    if (v && v->k == V_DTYPE && *p->annotation != '*') return v->ty; /* tl.pointer_type(...) */
    if (v)
        sema_error(S, p->ann_loc,
                   "parameter '%s': the constexpr '%s' does not name a type (give a dtype such as "
                   "tl.float16, or a name such as \"bf16\")",
                   p->name, name);
    const char *base = p->annotation + (p->annotation[0] == '*');
    sema_check_dtype_name(S, strncmp(base, "tl.", 3) ? base : base + 3, p->ann_loc);
    sema_error(S, p->ann_loc,
               "unknown parameter type '%s' (expected a Triton signature type such as *fp32, i32, "
               "fp16 or tl.constexpr)",
               p->annotation);
}

/* Is e a constant expression a define may hold: a number, True/False/None, a string, a
 * tuple or list of such, tl.NAME (a dtype, a builtin function, ...), the name of a function
 * of the program (a function passed as a constexpr, as Triton passes JIT functions), a
 * call of tl.pointer_type or tl.constexpr on such, or (inside a tuple) inf and nan? */
static bool tl_dotted(const Expr *e) {
    if (e->kind == EX_NAME) return !strcmp(e->name, "tl") || !strcmp(e->name, "triton");
    return e->kind == EX_ATTR && tl_dotted(e->lhs);
}

static bool is_inf_nan(const Expr *e) {
    return e->kind == EX_NAME && (!strcmp(e->name, "inf") || !strcmp(e->name, "nan"));
}

static bool define_expr_ok(Sema *S, const Expr *e) {
    switch (e->kind) {
    case EX_INT: return !e->is_big;
    case EX_FLOAT:
    case EX_STR:
    case EX_TRUE:
    case EX_FALSE:
    case EX_NONE: return true;
    case EX_NAME: return is_inf_nan(e) || namemap_get(&S->user.funcs, e->name);
    case EX_UNOP:
        return (e->op == UN_NEG || e->op == UN_POS) &&
               (e->lhs->kind == EX_INT || e->lhs->kind == EX_FLOAT || is_inf_nan(e->lhs));
    case EX_TUPLE:
    case EX_LIST:
        for (int i = 0; i < e->nitems; i++)
            if (!define_expr_ok(S, e->items[i])) return false;
        return true;
    case EX_ATTR: return tl_dotted(e);
    case EX_CALL:
        if (e->lhs->kind != EX_ATTR || !tl_dotted(e->lhs) ||
            (strcmp(e->lhs->name, "pointer_type") && strcmp(e->lhs->name, "constexpr")))
            return false;
        for (int i = 0; i < e->nitems; i++)
            if (!define_expr_ok(S, e->items[i])) return false;
        for (int i = 0; i < e->nkw; i++)
            if (!define_expr_ok(S, e->kwvalues[i])) return false;
        return true;
    default: return false;
    }
}

/* The value of an expression define_expr_ok accepted (the language's own evaluation, but
 * for inf and nan, which Python's repr writes for float('inf') and float('nan')). */
static Val define_eval(Sema *S, const Expr *e) {
    if (is_inf_nan(e)) return sema_val_float(!strcmp(e->name, "inf") ? INFINITY : NAN);
    if (e->kind == EX_UNOP && e->lhs->kind == EX_NAME) {
        double f = define_eval(S, e->lhs).f;
        return sema_val_float(e->op == UN_NEG ? -f : f);
    }
    if (e->kind == EX_TUPLE || e->kind == EX_LIST) {
        Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)(e->nitems + 1));
        for (int i = 0; i < e->nitems; i++) items[i] = define_eval(S, e->items[i]);
        return sema_val_tuple(S, items, e->nitems);
    }
    return sema_lower_expr(S, e);
}

/* -D NAME=TEXT: a quoted text is the string between the quotes (as the Python package
 * quotes every str, whatever it holds); True/False/None, ints (decimal, 0x, a leading 0
 * octal) and floats (inf, nan) as before; then the text as a constant expression of the
 * language (tuples, tl.float16, tl.pointer_type(tl.int8), tl.constexpr(...), strings with
 * escapes, a function of the program inside a tuple or tl.constexpr(NAME), as the Python
 * package writes a function passed as a constexpr); anything else (leaky_relu, bf16) is a
 * string, a function's bare name too (-D ACTIVATION=leaky_relu compared with a string). */
Val sema_parse_define(Sema *S, const char *name, const char *text) {
    size_t n = strlen(text);
    bool quoted = n >= 2 && (text[0] == '\'' || text[0] == '"') && text[n - 1] == text[0];
    if (quoted && !memchr(text + 1, text[0], n - 2))
        return sema_val_str(S, text + 1, n - 2); /* a string, even "1" or "nan" */
    if (!strcmp(text, "True")) return sema_val_bool(true);
    if (!strcmp(text, "False")) return sema_val_bool(false);
    if (!strcmp(text, "None")) return sema_val_none();
    char *end;
    errno = 0;
    long long i = strtoll(text, &end, 0);
    if (*text && !*end && !errno) return sema_val_int(i);
    errno = 0;
    double d = strtod(text, &end);
    if (*text && !*end && !errno && strspn(text, "0123456789.eE+-infatyINFATY") == strlen(text))
        return sema_val_float(d);
    Source *src = arena_alloc(S->arena, sizeof *src);
    src->name = arena_printf(S->arena, "-D %s", name);
    src->text = arena_strdup(S->arena, text);
    src->len = n;
    Diag quiet;
    diag_init(&quiet);
    Module *m = lang_parse_module(S->arena, &quiet, src);
    diag_free(&quiet);
    if (m && m->nfuncs == 0 && m->nglobals == 1 && m->globals[0]->kind == ST_EXPR &&
        m->globals[0]->value->kind != EX_NAME && define_expr_ok(S, m->globals[0]->value)) {
        FnState *saved = S->fs, g;
        memset(&g, 0, sizeof g);
        g.env = sema_env_new(S);
        g.scope = &S->user;
        g.where = m->globals[0]->value->loc;
        S->fs = &g;
        Val v = define_eval(S, m->globals[0]->value);
        S->fs = saved;
        return v;
    }
    if (quoted) return sema_val_str(S, text + 1, n - 2);
    return sema_val_str(S, text, n);
}

static const SemaDefine *find_define(const SemaOptions *o, const char *name) {
    const SemaDefine *found = NULL;
    for (int i = 0; o && i < o->ndefines; i++)
        if (!strcmp(o->defines[i].name, name)) found = &o->defines[i]; /* the last one wins */
    return found;
}

static void check_decorators(Sema *S, const Func *fn) {
    for (int i = 0; i < fn->ndecorators; i++) {
        const Expr *d = fn->decorators[i];
        if (d->kind == EX_CALL) d = d->lhs;
        const char *name = d->kind == EX_NAME ? d->name : d->kind == EX_ATTR ? d->name : "";
        if (!strcmp(name, "jit")) continue;
        if (!strcmp(name, "autotune") || !strcmp(name, "heuristics")) {
            if (!S->opts ||
                !S->opts->nskip_kernels) /* the C API and Python tune at launch; here -D decides */
                diag_warning(S->diag, d->loc,
                             "@%s applies at launch (C API, Python): here the meta-parameters come "
                             "from -D NAME=VALUE",
                             name);
            continue;
        }
        sema_error(S, d->loc, "unsupported decorator: Nereid kernels take @triton.jit (or @jit)");
    }
}

/* A runtime parameter's fp8 check: fp8 scalars do not travel as arguments. */
static void check_param_type(Sema *S, const char *name, IrType t, Loc loc) {
    if (dt_is_fp8(t.dt))
        sema_error(S, loc,
                   "parameter '%s': scalar %s parameters are not supported (fp8 values travel in "
                   "memory: pass a pointer, '*%s')",
                   name, dt_name(t.dt), dt_name(t.dt));
}

/* The end of one item of a tuple annotation starting at s: the ',' or ')' that closes it at
 * depth 0 (brackets of a descriptor type, "tensordesc<fp16[64,64]>", nest), or NULL. */
static const char *tuple_item_end(const char *s) {
    int depth = 0;
    for (; *s; s++) {
        if (*s == '(' || *s == '[' || *s == '<') depth++;
        else if ((*s == ')' || *s == ']' || *s == '>') && depth > 0) depth--;
        else if (depth == 0 && (*s == ',' || *s == ')')) return s;
    }
    return NULL;
}

/* The '(' of a tuple type at s ("(T0, T1)", or a namedtuple's "NAME(f0: T0, f1: T1)"), or
 * NULL if s is not one. */
static const char *tuple_type_open(const char *s) {
    while (isalnum((unsigned char)*s) || *s == '_') s++;
    return *s == '(' ? s : NULL;
}

/* A tuple parameter (Triton's tuple arguments, which its launcher flattens): the annotation
 * "(T0,T1,...)" gives each item's type, a signature type (a runtime parameter named
 * "NAME.i.j" by its path, added in order: the launch passes the leaves depth first), a
 * nested tuple, or "constexpr": then the item's value is the define of the parameter's
 * name (a tuple of the same shape; the runtime items' places there are ignored). *s is at
 * the '('; on return it is past the ')'. */
static Val tuple_param(Sema *S, IrFunc *f, const Param *p, const char **s, const char *path,
                       const Val *consts, int depth) {
    if (depth > 32) sema_error(S, p->ann_loc, "parameter '%s': tuples nested too deeply", p->name);
    const char *cls = *s, *c = tuple_type_open(*s) + 1; /* past '(' */
    int n = 0, cap = 4, nf = 0, capf = 0;
    Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)cap);
    const char **fields = NULL; /* a namedtuple's: "NAME(f0: T0, f1: T1)" */
    while (*c != ')') {
        const char *colon = c;
        while (isalnum((unsigned char)*colon) || *colon == '_') colon++;
        if (*colon == ':' && colon > c && !isdigit((unsigned char)*c)) {
            VEC_PUSH(S->arena, fields, nf, capf, arena_strndup(S->arena, c, (size_t)(colon - c)));
            c = colon + 1;
        }
        if (nf != (fields ? n + 1 : 0))
            sema_error(S, p->ann_loc,
                       "parameter '%s': malformed tuple type '%s' (a namedtuple names every "
                       "item: 'NAME(f0: T0, f1: T1)')",
                       p->name, p->annotation);
        if (n == SEMA_MAX_TUPLE)
            sema_error(S, p->ann_loc, "parameter '%s': tuple with more than %d items", p->name,
                       SEMA_MAX_TUPLE);
        if (n == cap) {
            Val *grown = arena_alloc(S->arena, sizeof(Val) * (size_t)cap * 2);
            memcpy(grown, items, sizeof(Val) * (size_t)cap);
            items = grown, cap *= 2;
        }
        const char *leaf = arena_printf(S->arena, "%s.%d", path, n);
        const Val *cv = consts && consts->k == V_TUPLE && n < consts->n ? &consts->items[n] : NULL;
        bool nested = tuple_type_open(c) != NULL;
        const char *end = nested ? NULL : tuple_item_end(c);
        if (nested) {
            items[n] = tuple_param(S, f, p, &c, leaf, cv, depth + 1);
            end = c;
        } else if (end && end > c) {
            const char *text = arena_printf(S->arena, "%.*s", (int)(end - c), c);
            if (!strcmp(text, "constexpr")) {
                if (!cv)
                    sema_error(S, p->ann_loc,
                               "parameter '%s': item %s is a constexpr with no value (give the "
                               "tuple's constexpr items with -D %s=(...))",
                               p->name, leaf, p->name);
                items[n] = *cv;
            } else {
                Param item = *p;
                item.name = leaf;
                item.annotation = text;
                bool ro = const_ptr_param(S, &item);
                IrType t = param_type(S, &item);
                check_param_type(S, leaf, t, p->ann_loc);
                items[n] = sema_val_ir(S, ir_add_param(f, t, leaf));
                items[n].constptr = ro;
            }
        }
        if (!end || (!nested && end == c) || (*end != ',' && *end != ')'))
            sema_error(S, p->ann_loc,
                       "parameter '%s': malformed tuple type '%s' (expected '(T0, T1, ...)', each "
                       "item a type, a tuple or constexpr)",
                       p->name, p->annotation);
        c = *end == ',' ? end + 1 : end;
        n++;
    }
    if (fields && nf != n)
        sema_error(S, p->ann_loc, "parameter '%s': malformed tuple type '%s'", p->name,
                   p->annotation);
    *s = c + 1;
    Val t = sema_val_tuple(S, items, n);
    if (fields) {
        size_t len = (size_t)(tuple_type_open(cls) - cls);
        t.fields = fields;
        t.s = len ? arena_strndup(S->arena, cls, len) : "namedtuple";
    }
    return t;
}

static void lower_kernel(Sema *S, const Func *fn) {
    check_decorators(S, fn);
    IrFunc *f = ir_func_new(S->ir, fn->name, true, fn->loc);
    FnState fs;
    memset(&fs, 0, sizeof fs);
    fs.f = f;
    fs.b = (IrBuilder){f, f->body, fn->loc};
    fs.env = sema_env_new(S);
    fs.scope = &S->user;
    fs.fn = fn;
    S->fs = &fs;
    for (int i = 0; i < fn->nparams; i++) { /* the constexprs first: a type may name one */
        const Param *p = &fn->params[i];
        for (int j = 0; j < i; j++)
            if (!strcmp(fn->params[j].name, p->name))
                sema_error(S, p->loc, "duplicate parameter '%s'", p->name);
        if (!strcmp(p->annotation, "constexpr")) {
            const SemaDefine *d = find_define(S->opts, p->name);
            Val v;
            if (d) v = sema_parse_define(S, p->name, d->value);
            else if (p->default_value) {
                FnState g = fs;
                g.f = NULL;
                g.where = p->default_value->loc;
                S->fs = &g;
                v = sema_lower_expr(S, p->default_value);
                S->fs = &fs;
            } else
                sema_error(S, p->loc,
                           "constexpr parameter '%s' of kernel '%s' has no value: give it with -D "
                           "%s=VALUE",
                           p->name, fn->name, p->name);
            sema_env_set(S, fs.env, p->name, v);
        }
    }
    for (int i = 0; i < fn->nparams; i++) {
        const Param *p = &fn->params[i];
        if (!strcmp(p->annotation, "constexpr")) continue;
        if (tuple_type_open(p->annotation)) { /* a tuple: its leaves are the parameters */
            const SemaDefine *d = find_define(S->opts, p->name);
            Val consts = d ? sema_parse_define(S, p->name, d->value) : sema_val_none();
            const char *s = p->annotation;
            Val v = tuple_param(S, f, p, &s, p->name, d ? &consts : NULL, 0);
            if (*s)
                sema_error(S, p->ann_loc, "parameter '%s': malformed tuple type '%s'", p->name,
                           p->annotation);
            sema_env_set(S, fs.env, p->name, v);
            continue;
        }
        Param plain = *p;
        bool ro = const_ptr_param(S, &plain);
        IrType t = param_type(S, &plain);
        check_param_type(S, p->name, t, p->ann_loc);
        Val v = sema_val_ir(S, ir_add_param(f, t, p->name));
        v.constptr = ro;
        sema_env_set(S, fs.env, p->name, v);
    }
    Flow fl = sema_lower_seq(S, &fn->body, 0, NULL);
    if (fl.returned && fl.value.k != V_NONE)
        sema_error(S, fl.loc, "a kernel cannot return a value");
    fs.b.loc = fn->loc;
    ir_build(&fs.b, OP_RETURN, NULL, 0, NULL, 0);
    S->fs = NULL;
}

/* Does a kernel (or the function -k names, kernel or not: lowering then says why it is not
 * one) have a parameter `name`? */
static bool any_kernel_has_param(const Module *m, const char *only, const char *name) {
    for (int i = 0; i < m->nfuncs; i++)
        if (sema_is_kernel_named(m->funcs[i], only) || (only && !strcmp(m->funcs[i]->name, only)))
            for (int j = 0; j < m->funcs[i]->nparams; j++)
                if (!strcmp(m->funcs[i]->params[j].name, name)) return true;
    return false;
}

static void check_module(Sema *S, const Module *user) {
    for (int i = 0; i < user->nglobals; i++) {
        const Stmt *st = user->globals[i];
        bool ok = st->kind == ST_IMPORT || (st->kind == ST_EXPR && st->value->kind == EX_STR) ||
                  ((st->kind == ST_ASSIGN || st->kind == ST_ANNASSIGN) && st->ntargets == 1 &&
                   st->targets[0]->kind == EX_NAME);
        if (!ok)
            sema_error(
                S, st->loc,
                "only imports, constants and function definitions may appear at module level");
    }
    for (int i = 0; S->opts && i < S->opts->ndefines; i++)
        if (!any_kernel_has_param(user, S->opts->only_kernel, S->opts->defines[i].name))
            sema_error(S, (Loc){0}, "-D %s: no kernel has a constexpr parameter named '%s'",
                       S->opts->defines[i].name, S->opts->defines[i].name);
}

static void lower_all(Sema *S, const Module *user, IrModule *out);

bool sema_lower(Arena *arena, Diag *diag, const Module *user, const Module *stdlib,
                const SemaOptions *opts, IrModule *out) {
    Sema *S = arena_alloc(arena, sizeof(Sema));
    S->arena = arena;
    S->diag = diag;
    S->ir = out;
    S->opts = opts;
    sema_scope_init(S, &S->user, user);
    sema_scope_init(S, &S->std, stdlib);
    if (setjmp(S->fail)) return false;
    lower_all(S, user, out);
    return true;
}

static bool skipped(const SemaOptions *o, const char *name) {
    for (int i = 0; o && i < o->nskip_kernels; i++)
        if (!strcmp(o->skip_kernels[i], name)) return true;
    return false;
}

static void lower_all(Sema *S, const Module *user, IrModule *out) {
    check_module(S, user);
    int nkernels = 0, nskipped = 0;
    const char *only = S->opts ? S->opts->only_kernel : NULL;
    for (int i = 0; i < user->nfuncs; i++) {
        const Func *fn = user->funcs[i];
        if (only && strcmp(fn->name, only)) continue;
        if (!sema_is_kernel_named(fn, only)) {
            for (int j = 0; only && j < fn->nparams; j++)
                if (!fn->params[j].annotation)
                    sema_error(
                        S, fn->params[j].loc,
                        "'%s' is not a kernel: parameter '%s' has no type (e.g. '%s: *fp32')",
                        fn->name, fn->params[j].name, fn->params[j].name);
            continue;
        }
        if (skipped(S->opts, fn->name)) {
            nskipped++;
            continue;
        }
        if (ir_module_find(out, fn->name))
            sema_error(S, fn->loc, "kernel '%s' is defined twice", fn->name);
        nkernels++;
        S->depth = 0;
        lower_kernel(S, fn);
    }
    if (only && !nkernels && !nskipped)
        sema_error(S, (Loc){0}, "no kernel named '%s' in %s", only, user->src->name);
    if (!nkernels && !nskipped)
        sema_error(S, (Loc){user->src, 1, 1},
                   "no kernels found: a kernel's parameters all carry types (e.g. 'x_ptr: *fp32', "
                   "'n: i32', 'BLOCK: tl.constexpr')");
}
