/* sema_vals.c - compile-time values and the environment of names. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pyexpr.h"
#include "sema_internal.h"

static Val blank(VKind k) {
    Val v;
    memset(&v, 0, sizeof v);
    v.k = k;
    return v;
}

Val sema_val_none(void) { return blank(V_NONE); }

Val sema_val_int(int64_t i) {
    Val v = blank(V_INT);
    v.i = i;
    return v;
}

Val sema_val_bool(bool b) {
    Val v = blank(V_BOOL);
    v.i = b;
    return v;
}

Val sema_val_float(double f) {
    Val v = blank(V_FLOAT);
    v.f = f;
    return v;
}

Val sema_val_str(Sema *S, const char *s, size_t n) {
    Val v = blank(V_STR);
    v.s = arena_strndup(S->arena, s, n);
    v.slen = n;
    return v;
}

Val sema_val_dtype(IrType t) {
    Val v = blank(V_DTYPE);
    v.ty = t;
    return v;
}

Val sema_val_ir(Sema *S, ValId id) {
    Val v = blank(V_IR);
    v.v = id;
    v.ty = ir_type(S->fs->f, id);
    return v;
}

Val sema_val_tuple(Sema *S, const Val *items, int n) {
    Val v = blank(V_TUPLE);
    v.items = arena_alloc(S->arena, sizeof(Val) * (size_t)(n ? n : 1));
    if (n) memcpy(v.items, items, sizeof(Val) * (size_t)n);
    v.n = n;
    return v;
}

bool sema_val_is_const(Val v) { return v.k == V_INT || v.k == V_FLOAT || v.k == V_BOOL; }

bool sema_val_is_constexpr(Val v) {
    if (v.k == V_IR || v.k == V_UNDEF) return false;
    if (v.k == V_TUPLE)
        for (int i = 0; i < v.n; i++)
            if (!sema_val_is_constexpr(v.items[i])) return false;
    return true;
}

bool sema_val_same(Val a, Val b) {
    if (a.k != b.k) return false;
    switch (a.k) {
    case V_UNDEF:
    case V_NONE: return true;
    case V_BOOL:
    case V_INT:
    case V_MODULE: return a.i == b.i;
    case V_FLOAT: return a.f == b.f || (a.f != a.f && b.f != b.f);
    case V_STR: return a.slen == b.slen && !memcmp(a.s, b.s, a.slen);
    case V_DTYPE: return ty_equal(a.ty, b.ty);
    case V_FUNC: return a.fn == b.fn;
    case V_BUILTIN: return a.builtin == b.builtin && !a.self && !b.self;
    case V_IR: return a.v == b.v;
    case V_CTYPE: return sema_val_same(a.items[0], b.items[0]);
    case V_NTCLASS:
        if (a.n != b.n || strcmp(a.s, b.s)) return false;
        for (int i = 0; i < a.n; i++)
            if (strcmp(a.fields[i], b.fields[i]) || !sema_val_same(a.items[i], b.items[i]))
                return false;
        return true;
    case V_TUPLE:
        if (a.n != b.n || a.tag != b.tag || (a.tag && (!ty_equal(a.ty, b.ty) || a.i != b.i)))
            return false;
        for (int i = 0; i < a.n; i++)
            if (!sema_val_same(a.items[i], b.items[i])) return false;
        return true;
    }
    return false;
}

const char *sema_val_kind_name(Sema *S, Val v) {
    char buf[64];
    switch (v.k) {
    case V_UNDEF: return "an undefined value";
    case V_NONE: return "None";
    case V_BOOL: return "constexpr bool";
    case V_INT: return "constexpr int";
    case V_FLOAT: return "constexpr float";
    case V_STR: return "constexpr string";
    case V_DTYPE: return "a dtype";
    case V_TUPLE:
        if (!v.tag && v.fields) return arena_printf(S->arena, "a namedtuple %s", v.s);
        if (!v.tag) return "a tuple";
        ty_str(v.ty, buf, sizeof buf);
        return arena_printf(S->arena, "%s of %s blocks",
                            v.tag == TAG_BLOCK_PTR ? "a block pointer" : "a tensor descriptor",
                            buf);
    case V_FUNC: return "a function";
    case V_BUILTIN: return "a builtin function";
    case V_MODULE: return "a module";
    case V_CTYPE: return "a constexpr_type";
    case V_NTCLASS: return arena_printf(S->arena, "the namedtuple class %s", v.s);
    case V_IR:
        ty_str(v.ty, buf, sizeof buf);
        if (v.constptr)
            return arena_printf(S->arena, "%s %s (const)", v.ty.rank ? "block" : "scalar", buf);
        return arena_printf(S->arena, "%s %s",
                            ty_is_tdesc(v.ty) ? "a tensor descriptor"
                            : v.ty.rank       ? "block"
                                              : "scalar",
                            buf);
    }
    return "?";
}

void sema_val_key(Sema *S, StrBuf *sb, Val v) {
    char buf[64];
    switch (v.k) {
    case V_IR: sb_printf(sb, "T%s%s;", ty_str(v.ty, buf, sizeof buf), v.constptr ? "k" : ""); break;
    case V_INT: sb_printf(sb, "I%" PRId64 "%s;", v.i, v.assigned ? "a" : ""); break;
    case V_BOOL: sb_printf(sb, "B%d%s;", (int)v.i, v.assigned ? "a" : ""); break;
    case V_FLOAT: sb_printf(sb, "F%a%s;", v.f, v.assigned ? "a" : ""); break;
    case V_CTYPE:
        sb_puts(sb, "Ct");
        sema_val_key(S, sb, v.items[0]);
        break;
    case V_STR:
        sb_printf(sb, "S%zu:", v.slen);
        sb_putn(sb, v.s, v.slen);
        sb_putc(sb, ';');
        break;
    case V_NONE: sb_puts(sb, "N;"); break;
    case V_DTYPE: sb_printf(sb, "D%s;", ty_str(v.ty, buf, sizeof buf)); break;
    case V_FUNC: sb_printf(sb, "Fn%p;", (const void *)v.fn); break;
    case V_BUILTIN: sb_printf(sb, "Bi%d;", v.builtin); break;
    case V_MODULE: sb_printf(sb, "M%d;", (int)v.i); break;
    case V_NTCLASS:
        sb_printf(sb, "Nc%s", v.s);
        for (int i = 0; i < v.n; i++) {
            sb_printf(sb, ":%s=", v.fields[i]);
            sema_val_key(S, sb, v.items[i]);
        }
        sb_putc(sb, ';');
        break;
    case V_TUPLE:
        if (v.tag)
            sb_printf(sb, "G%d:%s:%lld", v.tag, ty_str(v.ty, buf, sizeof buf), (long long)v.i);
        if (v.fields) { /* a namedtuple: its fields may be read by name */
            sb_printf(sb, "Nt%s", v.s);
            for (int i = 0; i < v.n; i++) sb_printf(sb, ":%s", v.fields[i]);
        }
        sb_putc(sb, '(');
        for (int i = 0; i < v.n; i++) sema_val_key(S, sb, v.items[i]);
        sb_putc(sb, ')');
        break;
    case V_UNDEF: sb_puts(sb, "U;"); break;
    }
}

/* ---- environments ---- */

Env *sema_env_new(Sema *S) { return arena_alloc(S->arena, sizeof(Env)); }

Env *sema_env_copy(Sema *S, const Env *e) {
    Env *c = sema_env_new(S);
    c->cap = e->n + 8;
    c->names = arena_alloc(S->arena, sizeof(char *) * (size_t)c->cap);
    c->vals = arena_alloc(S->arena, sizeof(Val) * (size_t)c->cap);
    if (e->n) {
        memcpy(c->names, e->names, sizeof(char *) * (size_t)e->n);
        memcpy(c->vals, e->vals, sizeof(Val) * (size_t)e->n);
    }
    c->n = e->n;
    return c;
}

Val *sema_env_lookup(Env *e, const char *name) {
    for (int i = 0; i < e->n; i++)
        if (!strcmp(e->names[i], name)) return &e->vals[i];
    return NULL;
}

void sema_env_set(Sema *S, Env *e, const char *name, Val v) {
    Val *p = sema_env_lookup(e, name);
    if (p) {
        *p = v;
        return;
    }
    if (e->n == e->cap) {
        int cap = e->cap ? e->cap * 2 : 16;
        e->names = arena_grow(S->arena, e->names, sizeof(char *), (size_t)e->n, (size_t)cap);
        e->vals = arena_grow(S->arena, e->vals, sizeof(Val), (size_t)e->n, (size_t)cap);
        e->cap = cap;
    }
    e->names[e->n] = name;
    e->vals[e->n++] = v;
}

/* ---- values as Python prints them ---- */

/* Triton's name of a dtype (tl.dtype.__str__): int32, uint8, int1, fp32, bf16, fp8e4nv,
 * pointer<fp16>; a block type's "<(16, 32), fp32>". Floats keep Nereid's names (Triton's
 * too); the others are the tl.NAME of sema_names.c's table. */
static void format_dtype(StrBuf *sb, IrType t) {
    if (t.rank) {
        sb_puts(sb, "<(");
        for (int i = 0; i < t.rank; i++) sb_printf(sb, i ? ", %d" : "%d", t.shape[i]);
        sb_puts(sb, t.rank == 1 ? ",), " : "), ");
        t.rank = 0;
        format_dtype(sb, t);
        sb_putc(sb, '>');
    } else if (t.dt == DT_PTR) {
        sb_puts(sb, "pointer<");
        format_dtype(sb, ty_scalar(t.pointee));
        sb_putc(sb, '>');
    } else {
        const char *n = sema_dtype_triton_name(t.dt);
        sb_puts(sb, dt_is_float(t.dt) || !n ? dt_name(t.dt) : n);
    }
}

bool sema_val_format(Sema *S, StrBuf *sb, Val v, bool repr, bool any) {
    switch (v.k) {
    case V_NONE: sb_puts(sb, "None"); return true;
    case V_STR: py_print_str(sb, v.s, v.slen, repr); return true;
    case V_INT: sb_printf(sb, "%" PRId64, v.i); return true;
    case V_FLOAT: py_print_float(sb, v.f); return true;
    case V_BOOL: sb_puts(sb, v.i ? "True" : "False"); return true;
    case V_DTYPE:
        if (repr && !v.ty.rank && sema_dtype_triton_name(v.ty.dt)) /* triton.language.float16 */
            sb_printf(sb, "triton.language.%s", sema_dtype_triton_name(v.ty.dt));
        else format_dtype(sb, v.ty);
        return true;
    case V_TUPLE:
        if (v.tag) break;               /* a block pointer or a descriptor */
        if (v.fields) sb_puts(sb, v.s); /* Point(x=1, y=2), as Python prints it */
        sb_putc(sb, '(');
        bool ok = true;
        for (int i = 0; i < v.n; i++) {
            if (i) sb_puts(sb, ", ");
            if (v.fields) sb_printf(sb, "%s=", v.fields[i]);
            ok &= sema_val_format(S, sb, v.items[i], true, any); /* items print as their repr */
        }
        sb_puts(sb, v.n == 1 && !v.fields ? ",)" : ")");
        return ok;
    case V_CTYPE:
        sb_puts(sb, "constexpr_type[");
        sema_val_format(S, sb, v.items[0], repr, true);
        sb_putc(sb, ']');
        return true;
    default: break;
    }
    if (any) sb_puts(sb, sema_val_kind_name(S, v));
    return any;
}
