/* sema_call.c - calls of helper functions.
 *
 * Helpers are generic (untyped parameters, as in Triton). A call binds arguments to
 * parameters (positional, keyword, defaults). If every argument is a compile-time value
 * the body is evaluated in place, so tl.cdiv(N, BLOCK) on constexprs stays a constexpr.
 * Otherwise the helper is specialised for the argument types and constexpr values: the
 * IR values among the arguments become parameters of a new IR function (one per
 * distinct key, reused by later calls) and the call becomes a call op, which the
 * inlining pass removes. Recursion is detected on the stack of calls in progress.
 * A function decorated @constexpr_function whose arguments are all compile-time values is
 * evaluated by the host where the compile options give a callback (Python runs it, as
 * Triton does: call_on_host); otherwise its body is compiled as any helper's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sema_internal.h"

enum { MAX_CALL_DEPTH = 64 };

static void push_frame(Sema *S, const Func *fn, Loc loc) {
    for (int i = 0; i < S->depth; i++)
        if (S->stack[i].fn == fn)
            sema_error(S, loc, "recursive call to '%s': recursion is not supported in kernels",
                       fn->name);
    if (S->depth >= MAX_CALL_DEPTH)
        sema_error(S, loc, "calls nested more than %d deep", MAX_CALL_DEPTH);
    CallFrame fr = {fn, loc};
    VEC_PUSH(S->arena, S->stack, S->depth, S->capstack, fr);
}

static int param_index(const Func *fn, const char *name) {
    for (int i = 0; i < fn->nparams; i++)
        if (!strcmp(fn->params[i].name, name)) return i;
    return -1;
}

static Val eval_default(Sema *S, const Func *fn, ModScope *scope, int i) {
    FnState fs;
    memset(&fs, 0, sizeof fs);
    fs.env = sema_env_new(S);
    fs.scope = scope;
    fs.where = fn->params[i].default_value->loc;
    FnState *saved = S->fs;
    S->fs = &fs;
    Val v = sema_lower_expr(S, fn->params[i].default_value);
    S->fs = saved;
    return v;
}

/* Arguments in parameter order; errors for missing, repeated or unknown ones. */
static Val *bind_args(Sema *S, const Func *fn, ModScope *scope, CallArgs *a) {
    int n = fn->nparams;
    Val *bound = arena_alloc(S->arena, sizeof(Val) * (size_t)(n + 1));
    bool *given = arena_alloc(S->arena, (size_t)(n + 1));
    if (a->npos > n)
        sema_error(S, a->loc, "'%s' takes %d argument%s but %d were given", fn->name, n,
                   n == 1 ? "" : "s", a->npos);
    for (int i = 0; i < a->npos; i++) bound[i] = a->pos[i], given[i] = true;
    for (int k = 0; k < a->nkw; k++) {
        int i = param_index(fn, a->kwnames[k]);
        if (i < 0)
            sema_error(S, a->kwlocs[k], "'%s' has no parameter named '%s'", fn->name,
                       a->kwnames[k]);
        if (given[i])
            sema_error(S, a->kwlocs[k], "'%s' got several values for parameter '%s'", fn->name,
                       a->kwnames[k]);
        bound[i] = a->kwvals[k], given[i] = true;
    }
    for (int i = 0; i < n; i++) {
        if (given[i]) continue;
        if (!fn->params[i].default_value)
            sema_error(S, a->loc, "missing argument '%s' in call to '%s'", fn->params[i].name,
                       fn->name);
        bound[i] = eval_default(S, fn, scope, i);
    }
    /* A helper's annotations are not checked, as in Triton's code generator (3.0 and 3.6
     * alike): a call binds the values it is given, and a tensor passed to a parameter
     * annotated tl.constexpr stays a run-time argument (Triton 3.0's tutorial 06 passes
     * offs_m, a block, to '_attn_fwd_inner(..., offs_m: tl.constexpr, ...)'). */
    return bound;
}

/* Run the body with params bound, in the current function (compile-time evaluation). */
static Val eval_in_place(Sema *S, const Func *fn, ModScope *scope, Val *bound) {
    FnState fs = *S->fs;
    fs.env = sema_env_new(S);
    fs.scope = scope;
    fs.fn = fn;
    fs.in_loop = false; /* the helper's own returns are its business, wherever it is called */
    for (int i = 0; i < fn->nparams; i++) sema_env_set(S, fs.env, fn->params[i].name, bound[i]);
    FnState *saved = S->fs;
    S->fs = &fs;
    Flow fl = sema_lower_seq(S, &fn->body, 0, NULL);
    saved->b = fs.b; /* same function: keep the insertion point in step */
    S->fs = saved;
    return fl.returned ? fl.value : sema_val_none();
}

/* Replace the IR leaves of an argument by fresh parameters of f. */
static Val param_template(Sema *S, IrFunc *f, Val arg, const char *name) {
    if (arg.k == V_IR) {
        Val v = arg;
        v.v = ir_add_param(f, arg.ty, name);
        return v;
    }
    if (arg.k != V_TUPLE) return arg;
    Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)(arg.n + 1));
    for (int i = 0; i < arg.n; i++) items[i] = param_template(S, f, arg.items[i], name);
    Val t = arg;
    t.items = items;
    return t;
}

static void flatten_ir(Sema *S, Val v, ValId **out, int *n, int *cap) {
    if (v.k == V_IR) VEC_PUSH(S->arena, *out, *n, *cap, v.v);
    else if (v.k == V_TUPLE)
        for (int i = 0; i < v.n; i++) flatten_ir(S, v.items[i], out, n, cap);
}

/* The return value's shape: IR leaves numbered as results. */
static Val ret_template(Sema *S, Val v, int *next) {
    if (v.k == V_IR) {
        Val t = v;
        t.v = (ValId)(*next)++;
        return t;
    }
    if (v.k != V_TUPLE) return v;
    Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)(v.n + 1));
    for (int i = 0; i < v.n; i++) items[i] = ret_template(S, v.items[i], next);
    Val t = v;
    t.items = items;
    return t;
}

static Val rebuild(Sema *S, Val tmpl, OpId call) {
    if (tmpl.k == V_IR) {
        Val r = sema_val_ir(S, ir_result(sema_func(S), call, tmpl.v));
        r.constptr = tmpl.constptr; /* a tl.const pointer returned stays one */
        return r;
    }
    if (tmpl.k != V_TUPLE) return tmpl;
    Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)(tmpl.n + 1));
    for (int i = 0; i < tmpl.n; i++) items[i] = rebuild(S, tmpl.items[i], call);
    Val t = tmpl;
    t.items = items;
    return t;
}

static Spec *find_spec(Sema *S, const Func *fn, const char *key) {
    for (int i = 0; i < S->nspecs; i++)
        if (S->specs[i].fn == fn && !strcmp(S->specs[i].key, key)) return &S->specs[i];
    return NULL;
}

/* A name for a helper's specialisation: free in the IR module, and not the name of a
 * kernel of the file (a kernel may call another kernel defined after it, which is
 * lowered under its own name later). */
static bool name_taken(Sema *S, const char *n) {
    if (ir_module_find(S->ir, n)) return true;
    const Func *fn = namemap_get(&S->user.funcs, n);
    return fn && sema_is_kernel(fn);
}

static const char *unique_name(Sema *S, const char *base) {
    if (!name_taken(S, base)) return base;
    for (;;) {
        const char *n = arena_printf(S->arena, "%s_%d", base, ++S->name_counter);
        if (!name_taken(S, n)) return n;
    }
}

static Spec *specialise(Sema *S, const Func *fn, ModScope *scope, Val *bound, const char *key) {
    IrFunc *f = ir_func_new(S->ir, unique_name(S, fn->name), false, fn->loc);
    FnState fs;
    memset(&fs, 0, sizeof fs);
    fs.f = f;
    fs.b = (IrBuilder){f, f->body, fn->loc};
    fs.env = sema_env_new(S);
    fs.scope = scope;
    fs.fn = fn;
    for (int i = 0; i < fn->nparams; i++)
        sema_env_set(S, fs.env, fn->params[i].name,
                     param_template(S, f, bound[i], fn->params[i].name));
    FnState *saved = S->fs;
    S->fs = &fs;
    Flow fl = sema_lower_seq(S, &fn->body, 0, NULL);
    Val ret = fl.returned ? fl.value : sema_val_none();
    ValId *vals = NULL;
    int n = 0, cap = 0, next = 0;
    flatten_ir(S, ret, &vals, &n, &cap);
    IrType *tys = arena_alloc(S->arena, sizeof(IrType) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) tys[i] = ir_type(f, vals[i]);
    ir_func_set_results(f, tys, (uint32_t)n);
    fs.b.loc = fl.returned ? fl.loc : fn->loc;
    ir_build(&fs.b, OP_RETURN, vals, (uint32_t)n, NULL, 0);
    S->fs = saved;
    Spec sp = {fn, key, f, ret_template(S, ret, &next)};
    VEC_PUSH(S->arena, S->specs, S->nspecs, S->capspecs, sp);
    return &S->specs[S->nspecs - 1];
}

/* ---- constexpr functions the host evaluates (SemaOptions.constexpr_call) ---- */

/* Is fn decorated @constexpr_function (triton.constexpr_function, ...)? */
static bool host_constexpr_function(const Func *fn) {
    for (int i = 0; i < fn->ndecorators; i++) {
        const Expr *d = fn->decorators[i];
        if (d->kind == EX_CALL) d = d->lhs;
        if ((d->kind == EX_NAME || d->kind == EX_ATTR) && !strcmp(d->name, "constexpr_function"))
            return true;
    }
    return false;
}

/* v as Python source text into sb (what the host's eval reads back as the same value):
 * numbers, booleans, None, strings, dtypes (scalar or pointer) and plain tuples of
 * these. False for anything else (a block, a function, a namedtuple, ...). */
static bool python_text(StrBuf *sb, Val v, int depth) {
    if (depth > 16) return false;
    switch (v.k) {
    case V_NONE: sb_puts(sb, "None"); return true;
    case V_BOOL: sb_puts(sb, v.i ? "True" : "False"); return true;
    case V_INT: sb_printf(sb, "%lld", (long long)v.i); return true;
    case V_FLOAT:
        if (isnan(v.f)) sb_puts(sb, "float('nan')");
        else if (isinf(v.f)) sb_puts(sb, v.f > 0 ? "float('inf')" : "-float('inf')");
        else {
            char buf[40];
            snprintf(buf, sizeof buf, "%.17g", v.f);
            sb_puts(sb, buf);
            if (!strpbrk(buf, ".e")) sb_puts(sb, ".0"); /* a float stays a float */
        }
        return true;
    case V_STR:
        sb_putc(sb, '\'');
        for (size_t i = 0; i < v.slen; i++) {
            unsigned char c = (unsigned char)v.s[i];
            if (c == '\\' || c == '\'') sb_printf(sb, "\\%c", c);
            else if (c < 0x20 || c == 0x7f) sb_printf(sb, "\\x%02x", c);
            else sb_putc(sb, (char)c);
        }
        sb_putc(sb, '\'');
        return true;
    case V_DTYPE: {
        if (v.ty.rank) return false; /* a block type */
        bool ptr = v.ty.dt == DT_PTR;
        const char *name = sema_dtype_triton_name(ptr ? v.ty.pointee : v.ty.dt);
        if (!name) return false;
        sb_printf(sb, ptr ? "tl.pointer_type(tl.%s)" : "tl.%s", name);
        return true;
    }
    case V_TUPLE:
        if (v.tag != TAG_NONE || v.fields) return false;
        sb_putc(sb, '(');
        for (int i = 0; i < v.n; i++) {
            if (!python_text(sb, v.items[i], depth + 1)) return false;
            sb_puts(sb, i + 1 < v.n || v.n == 1 ? ", " : "");
        }
        sb_putc(sb, ')');
        return true;
    default: return false;
    }
}

enum { HOST_RESULT_SIZE = 1 << 16 };

/* fn called with `bound`, evaluated by the host: true with *out set; false where the
 * host is not asked (no callback, an argument it cannot be given) or declines. */
static bool call_on_host(Sema *S, const Func *fn, const Val *bound, Loc loc, Val *out) {
    if (!S->opts || !S->opts->constexpr_call || !host_constexpr_function(fn)) return false;
    StrBuf args;
    sb_init(&args);
    bool ok = true;
    for (int i = 0; i < fn->nparams && ok; i++) {
        if (i) sb_puts(&args, ", ");
        ok = python_text(&args, bound[i], 0);
    }
    char *buf = ok ? calloc(1, HOST_RESULT_SIZE) : NULL;
    if (ok && !buf) NR_DIE("out of memory");
    int rc = ok ? S->opts->constexpr_call(S->opts->constexpr_user, fn->name, sb_cstr(&args), buf,
                                          HOST_RESULT_SIZE)
                : 1;
    sb_free(&args);
    if (rc == 1) {
        free(buf);
        return false;
    }
    buf[HOST_RESULT_SIZE - 1] = 0;
    const char *result = arena_strdup(S->arena, buf); /* the buffer goes before a longjmp */
    free(buf);
    if (rc != 0) sema_error(S, loc, "constexpr function '%s' raised: %s", fn->name, result);
    *out = sema_parse_define(S, fn->name, result);
    return true;
}

static Val sema_call_user(Sema *S, const Func *fn, ModScope *scope, CallArgs *a) {
    for (int i = 0; i < fn->body.n; i++)
        if (fn->body.stmts[i]->kind == ST_DEF)
            sema_error(S, fn->body.stmts[i]->loc, "nested function definitions are not supported");
    Val *bound = bind_args(S, fn, scope, a);
    Val host;
    if (call_on_host(S, fn, bound, a->loc, &host)) return host;
    push_frame(S, fn, a->loc);
    bool all_const = true;
    for (int i = 0; i < fn->nparams; i++) all_const &= sema_val_is_constexpr(bound[i]);
    Val result;
    if (all_const || S->inline_calls) {
        result = eval_in_place(S, fn, scope, bound);
    } else {
        StrBuf sb;
        sb_init(&sb);
        for (int i = 0; i < fn->nparams; i++) sema_val_key(S, &sb, bound[i]);
        const char *key = arena_strdup(S->arena, sb_cstr(&sb));
        sb_free(&sb);
        Spec *sp = find_spec(S, fn, key);
        if (!sp) sp = specialise(S, fn, scope, bound, key);
        ValId *args = NULL;
        int n = 0, cap = 0;
        for (int i = 0; i < fn->nparams; i++) flatten_ir(S, bound[i], &args, &n, &cap);
        IrFunc *callee = sp->ir;
        Loc saved = sema_builder(S)->loc;
        sema_builder(S)->loc = a->loc;
        OpId call = ir_build(sema_builder(S), OP_CALL, args, (uint32_t)n, callee->result_types,
                             callee->nresults);
        sema_builder(S)->loc = saved;
        sema_func(S)->ops[call].sattr = callee->name;
        result = rebuild(S, sp->ret, call);
    }
    S->depth--;
    return result;
}

Val sema_call_value(Sema *S, Val callee, CallArgs *a) {
    if (callee.k == V_BUILTIN) return sema_call_builtin(S, callee.builtin, callee.self, a);
    if (callee.k == V_FUNC) {
        if (callee.self) { /* a method call x.f(...): x is the first argument */
            Val *pos = arena_alloc(S->arena, sizeof(Val) * (size_t)(a->npos + 1));
            pos[0] = *callee.self;
            if (a->npos) memcpy(pos + 1, a->pos, sizeof(Val) * (size_t)a->npos);
            a->pos = pos;
            a->npos++;
        }
        return sema_call_user(S, callee.fn, callee.fnmod, a);
    }
    if (callee.k == V_NTCLASS) return sema_namedtuple_new(S, callee, a);
    if (callee.k == V_DTYPE)
        sema_error(S, a->loc, "a dtype is not callable: use x.to(dtype) to convert");
    sema_error(S, a->loc, "%s is not callable", sema_val_kind_name(S, callee));
}

/* ---- namedtuples ---- */

Val sema_namedtuple_class(Sema *S, const char *name, const char **fields, int n,
                          const Val *defaults, int ndefaults) {
    Val c;
    memset(&c, 0, sizeof c);
    c.k = V_NTCLASS;
    c.s = name;
    c.n = n;
    c.fields = fields;
    c.items = arena_alloc(S->arena, sizeof(Val) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        int d = i - (n - ndefaults);
        c.items[i] = d >= 0 ? defaults[d] : sema_val_none();
        if (d < 0) c.items[i].k = V_UNDEF;
    }
    return c;
}

/* Point(1, y=2): the arguments bound to the fields as Python binds them to a function's
 * parameters, a field not given taking its default */
Val sema_namedtuple_new(Sema *S, Val cls, CallArgs *a) {
    if (a->npos > cls.n)
        sema_error(S, a->loc, "%s() takes %d positional arguments but %d were given", cls.s, cls.n,
                   a->npos);
    Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)(cls.n + 1));
    bool *given = arena_alloc(S->arena, (size_t)(cls.n + 1));
    for (int i = 0; i < a->npos; i++) items[i] = a->pos[i], given[i] = true;
    for (int k = 0; k < a->nkw; k++) {
        int j = 0;
        while (j < cls.n && strcmp(cls.fields[j], a->kwnames[k])) j++;
        if (j == cls.n)
            sema_error(S, a->kwlocs[k], "%s() got an unexpected keyword argument '%s'", cls.s,
                       a->kwnames[k]);
        if (given[j])
            sema_error(S, a->kwlocs[k], "%s() got multiple values for argument '%s'", cls.s,
                       a->kwnames[k]);
        items[j] = a->kwvals[k], given[j] = true;
    }
    for (int j = 0; j < cls.n; j++) {
        if (given[j]) continue;
        if (cls.items[j].k == V_UNDEF)
            sema_error(S, a->loc, "%s() missing required argument '%s'", cls.s, cls.fields[j]);
        items[j] = cls.items[j];
    }
    Val t = sema_val_tuple(S, items, cls.n);
    t.fields = cls.fields;
    t.s = cls.s;
    return t;
}
