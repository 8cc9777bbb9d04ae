/* sema_stmt.c - statements and structured control flow.
 *
 * Straight-line code rebinds names in the environment (a name may change type). Control
 * flow on compile-time conditions is resolved now: only the taken branch is lowered,
 * static_range loops are unrolled. Runtime control flow becomes region ops:
 * - if: both branches are lowered into their own regions from copies of the
 *   environment; a name bound to different values on the two sides becomes a result of
 *   the if (both sides must agree on its type);
 * - for / while: the names assigned in the body that exist before the loop are carried:
 *   they enter as region arguments and leave as yields, and must keep their type;
 * - return inside an if: the statements after the if (the continuation) are lowered into
 *   each branch that falls through, so every path ends in a return and the returned
 *   values become the if's results. Returning from inside a loop is an error. */
#include <string.h>

#include "compiler/support/options.h"
#include "sema_internal.h"

/* ---- syntactic scans ---- */

static bool block_has_return(const Block *b);

static bool stmt_has_return(const Stmt *s) {
    switch (s->kind) {
    case ST_RETURN: return true;
    case ST_IF:
    case ST_FOR:
    case ST_WHILE: return block_has_return(&s->body) || block_has_return(&s->orelse);
    default: return false;
    }
}

static bool block_has_return(const Block *b) {
    for (int i = 0; i < b->n; i++)
        if (stmt_has_return(b->stmts[i])) return true;
    return false;
}

/* The first return statement inside b, for diagnostics. */
static const Stmt *first_return(const Block *b) {
    for (int i = 0; i < b->n; i++) {
        const Stmt *s = b->stmts[i], *r = NULL;
        if (s->kind == ST_RETURN) return s;
        if (s->kind == ST_IF || s->kind == ST_FOR || s->kind == ST_WHILE)
            if ((r = first_return(&s->body)) || (r = first_return(&s->orelse))) return r;
    }
    return NULL;
}

typedef struct Names {
    const char **v;
    int n, cap;
} Names;

static void add_name(Sema *S, Names *ns, const char *name) {
    for (int i = 0; i < ns->n; i++)
        if (!strcmp(ns->v[i], name)) return;
    VEC_PUSH(S->arena, ns->v, ns->n, ns->cap, name);
}

static void target_names(Sema *S, const Expr *t, Names *ns) {
    if (t->kind == EX_NAME) add_name(S, ns, t->name);
    else if (t->kind == EX_TUPLE || t->kind == EX_LIST)
        for (int i = 0; i < t->nitems; i++) target_names(S, t->items[i], ns);
    else if (t->kind == EX_STAR) target_names(S, t->lhs, ns);
}

static void assigned_names(Sema *S, const Block *b, Names *ns) {
    for (int i = 0; i < b->n; i++) {
        const Stmt *s = b->stmts[i];
        for (int j = 0; j < s->ntargets; j++) target_names(S, s->targets[j], ns);
        assigned_names(S, &s->body, ns);
        assigned_names(S, &s->orelse, ns);
    }
}

/* ---- helpers ---- */

static RegionId set_region(Sema *S, RegionId r) {
    RegionId old = S->fs->b.region;
    S->fs->b.region = r;
    return old;
}

static bool carriable(Val v) {
    if (v.k == V_IR || sema_val_is_const(v)) return true;
    if (v.k != V_TUPLE) return false;
    for (int i = 0; i < v.n; i++)
        if (!carriable(v.items[i])) return false;
    return true;
}

/* Materialise v's leaves as IR values (in the current region). */
static void leaves(Sema *S, Val v, ValId **out, int *n, int *cap, Loc loc) {
    if (v.k == V_TUPLE) {
        for (int i = 0; i < v.n; i++) leaves(S, v.items[i], out, n, cap, loc);
        return;
    }
    ValId x = sema_to_ir(S, v, loc);
    VEC_PUSH(S->arena, *out, *n, *cap, x);
}

/* Rebuild v's shape over a list of IR values (region args or op results). */
static Val over(Sema *S, Val shape, const ValId *vals, int *k) {
    if (shape.k != V_TUPLE) {
        Val r = sema_val_ir(S, vals[(*k)++]);
        r.constptr = shape.k == V_IR && shape.constptr; /* a tl.const pointer stays one */
        return r;
    }
    Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)(shape.n + 1));
    for (int i = 0; i < shape.n; i++) items[i] = over(S, shape.items[i], vals, k);
    Val t = shape; /* a block pointer's compile-time parts come along */
    t.items = items;
    return t;
}

static bool same_structure(Val a, Val b) {
    if ((a.k == V_TUPLE) != (b.k == V_TUPLE)) return false;
    if (a.k != V_TUPLE) return true;
    if (a.n != b.n || a.tag != b.tag) return false;
    if (a.tag && (!ty_equal(a.ty, b.ty) || a.i != b.i)) return false;
    for (int i = 0; i < a.n; i++)
        if (!same_structure(a.items[i], b.items[i])) return false;
    return true;
}

/* May a compile-time constant take type `to` where another path has that type? Only
 * without losing anything: ints into wider ints that hold them, numbers into floats. */
static bool const_fits(Val c, int to) {
    if (to == DT_PTR) return false;
    if (dt_is_float(to)) return true;
    if (c.k == V_FLOAT || to == DT_I1) return false;
    int bits = dt_bits(to);
    if (bits >= 64) return dt_is_signed(to) || c.i >= 0;
    int64_t lo = dt_is_signed(to) ? -(INT64_C(1) << (bits - 1)) : 0;
    int64_t hi = dt_is_signed(to) ? (INT64_C(1) << (bits - 1)) - 1 : (INT64_C(1) << bits) - 1;
    return c.i >= lo && c.i <= hi;
}

/* A leaf yielded where `want` is expected: constants take want's dtype if they fit. */
static ValId leaf_as(Sema *S, Val v, IrType want, const char *what, const char *name, Loc loc) {
    bool adapt = sema_val_is_const(v) && want.rank == 0 && const_fits(v, want.dt);
    ValId x = adapt ? sema_emit_const(S, want, v, loc) : sema_to_ir(S, v, loc);
    IrType t = ir_type(sema_func(S), x);
    if (!ty_equal(t, want)) {
        char a[64], b[64];
        sema_error(S, loc, "%s '%s' changes type from %s to %s", what, name,
                   ty_str(want, a, sizeof a), ty_str(t, b, sizeof b));
    }
    return x;
}

static void yield_leaves(Sema *S, Val v, const IrType *want, int *k, ValId **out, int *n, int *cap,
                         const char *what, const char *name, Loc loc) {
    if (v.k == V_TUPLE) {
        for (int i = 0; i < v.n; i++)
            yield_leaves(S, v.items[i], want, k, out, n, cap, what, name, loc);
        return;
    }
    ValId x = leaf_as(S, v, want[*k], what, name, loc);
    (*k)++;
    VEC_PUSH(S->arena, *out, *n, *cap, x);
}

static void emit_terminator(Sema *S, RegionId r, int code, const ValId *vals, int n, Loc loc) {
    RegionId old = set_region(S, r);
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    ir_build(sema_builder(S), code, vals, (uint32_t)n, NULL, 0);
    sema_builder(S)->loc = saved;
    set_region(S, old);
}

static OpId place_region_op(Sema *S, int code, const ValId *opnds, int nopnds, const IrType *tys,
                            int nres, RegionId r0, RegionId r1, Loc loc) {
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    OpId op = ir_build(sema_builder(S), code, opnds, (uint32_t)nopnds, tys, (uint32_t)nres);
    sema_builder(S)->loc = saved;
    IrFunc *f = sema_func(S);
    f->ops[op].region[f->ops[op].nregions++] = r0;
    f->regions[r0].parent_op = op;
    if (r1) {
        f->ops[op].region[f->ops[op].nregions++] = r1;
        f->regions[r1].parent_op = op;
    }
    return op;
}

static ValId scalar_condition(Sema *S, Val c, const char *what, Loc loc) {
    if (c.k != V_IR)
        sema_error(S, loc, "the condition of '%s' must be a scalar, got %s", what,
                   sema_val_kind_name(S, c));
    if (c.ty.rank != 0 && ty_numel(c.ty) == 1) /* Triton unsplats a one-element condition */
        c = sema_val_ir(S, sema_unsplat(S, c.v, loc));
    if (c.ty.rank != 0)
        sema_error(S, loc,
                   "the condition of '%s' must be a scalar, got %s (reduce it, or use tl.where)",
                   what, sema_val_kind_name(S, c));
    if (c.ty.dt == DT_PTR) /* Triton casts the condition to int1: a pointer is != 0 */
        return sema_emit_ptr_cast(S, c.v, ty_scalar(DT_I1), loc);
    return sema_to_i1(S, c, loc);
}

/* ---- if without return: merge the environments ---- */

/* Names bound to different values by the two branches of an if. */
typedef struct Join {
    const char **names;
    Val *then_v, *else_v;
    int n, cap;
} Join;

static void join_add(Sema *S, Join *j, const char *name, Val a, Val b) {
    if (j->n == j->cap) {
        int cap = j->cap ? j->cap * 2 : 8;
        j->names = arena_grow(S->arena, j->names, sizeof(char *), (size_t)j->n, (size_t)cap);
        j->then_v = arena_grow(S->arena, j->then_v, sizeof(Val), (size_t)j->n, (size_t)cap);
        j->else_v = arena_grow(S->arena, j->else_v, sizeof(Val), (size_t)j->n, (size_t)cap);
        j->cap = cap;
    }
    j->names[j->n] = name, j->then_v[j->n] = a, j->else_v[j->n] = b;
    j->n++;
}

/* Decide, name by name, what the environment holds after the if. */
static Join join_envs(Sema *S, Env *pre, Env *et, Env *ee, Loc loc) {
    Names all = {0};
    for (int i = 0; i < et->n; i++) add_name(S, &all, et->names[i]);
    for (int i = 0; i < ee->n; i++) add_name(S, &all, ee->names[i]);
    Join j = {0};
    Val undef = sema_val_none();
    undef.k = V_UNDEF;
    for (int i = 0; i < all.n; i++) {
        Val *a = sema_env_lookup(et, all.v[i]), *b = sema_env_lookup(ee, all.v[i]);
        if (!a || !b || a->k == V_UNDEF || b->k == V_UNDEF) sema_env_set(S, pre, all.v[i], undef);
        else if (sema_val_same(*a, *b)) sema_env_set(S, pre, all.v[i], *a);
        else if (!carriable(*a) || !carriable(*b) || !same_structure(*a, *b))
            sema_error(S, loc, "'%s' is bound to %s in one branch and %s in the other", all.v[i],
                       sema_val_kind_name(S, *a), sema_val_kind_name(S, *b));
        else if (sema_const_mismatch(*a, *b)) /* Triton's words */
            sema_error(S, loc, "Mismatched type for %s between then block (%s) and else block (%s)",
                       all.v[i], sema_val_kind_name(S, *a), sema_val_kind_name(S, *b));
        else join_add(S, &j, all.v[i], *a, *b);
    }
    return j;
}

/* The constant a const op holds, as a Val. */
static Val const_val(const IrOp *op, IrType t) {
    return dt_is_float(t.dt) ? sema_val_float(op->fattr) : sema_val_int(op->attr[0]);
}

/* A constant yielded against a value of another scalar type takes that type, if it fits. */
static void unify_leaf(Sema *S, ValId *x, RegionId rx, ValId *y, RegionId ry, const char *name,
                       Loc loc) {
    IrFunc *f = sema_func(S);
    IrType a = ir_type(f, *x), b = ir_type(f, *y);
    if (ty_equal(a, b)) return;
    OpId da = ir_def(f, *x), db = ir_def(f, *y);
    bool scal = a.rank == 0 && b.rank == 0 && a.dt != DT_PTR && b.dt != DT_PTR;
    if (db && f->ops[db].code == OP_CONST && !const_fits(const_val(&f->ops[db], b), a.dt)) db = 0;
    if (da && f->ops[da].code == OP_CONST && !const_fits(const_val(&f->ops[da], a), b.dt)) da = 0;
    RegionId old = S->fs->b.region;
    if (scal && db && f->ops[db].code == OP_CONST) {
        set_region(S, ry);
        *y = sema_emit_cast(S, *y, a, false, loc);
    } else if (scal && da && f->ops[da].code == OP_CONST) {
        set_region(S, rx);
        *x = sema_emit_cast(S, *x, b, false, loc);
    } else {
        char p[64], q[64];
        sema_error(S, loc, "'%s' has type %s in one branch of this 'if' and %s in the other", name,
                   ty_str(a, p, sizeof p), ty_str(b, q, sizeof q));
    }
    set_region(S, old);
}

static void lower_if(Sema *S, const Stmt *st, Val c) {
    ValId cond = scalar_condition(S, c, "if", st->cond->loc);
    Env *pre = S->fs->env;
    IrFunc *f = sema_func(S);
    RegionId rt = ir_region_new(f, 0), re = ir_region_new(f, 0);
    Env *et = sema_env_copy(S, pre), *ee = sema_env_copy(S, pre);
    RegionId old = set_region(S, rt);
    S->fs->env = et;
    sema_lower_seq(S, &st->body, 0, NULL);
    set_region(S, re);
    S->fs->env = ee;
    sema_lower_seq(S, &st->orelse, 0, NULL);
    set_region(S, old);
    S->fs->env = pre;
    Join j = join_envs(S, pre, et, ee, st->loc);
    ValId *yt = NULL, *ye = NULL;
    int nt = 0, ct = 0, ne = 0, ce = 0;
    const char **owner = NULL;
    int no = 0, co = 0;
    for (int i = 0; i < j.n; i++) {
        set_region(S, rt);
        leaves(S, j.then_v[i], &yt, &nt, &ct, st->loc);
        set_region(S, re);
        leaves(S, j.else_v[i], &ye, &ne, &ce, st->loc);
        while (no < nt) VEC_PUSH(S->arena, owner, no, co, j.names[i]);
    }
    set_region(S, old);
    if (nt != ne) NR_DIE("if merge: leaf counts differ");
    IrType *tys = arena_alloc(S->arena, sizeof(IrType) * (size_t)(nt + 1));
    for (int i = 0; i < nt; i++) {
        unify_leaf(S, &yt[i], rt, &ye[i], re, owner[i], st->loc);
        tys[i] = ir_type(f, yt[i]);
    }
    emit_terminator(S, rt, OP_YIELD, yt, nt, st->loc);
    emit_terminator(S, re, OP_YIELD, ye, ne, st->loc);
    OpId op = place_region_op(S, OP_IF, &cond, 1, tys, nt, rt, re, st->loc);
    int k = 0;
    for (int i = 0; i < j.n; i++)
        sema_env_set(S, pre, j.names[i], over(S, j.then_v[i], f->ops[op].results, &k));
}

/* ---- if with return: the continuation goes into each branch ---- */

/* A value of v's type and structure standing for Triton's ub.poison (the result of a
 * helper on a path that returns nothing): zeros for run-time values, constexprs as they
 * are. */
static Val poison_like(Sema *S, Val v, Loc loc) {
    if (v.k == V_TUPLE) {
        Val t = v;
        t.items = arena_alloc(S->arena, sizeof(Val) * (size_t)(v.n + 1));
        for (int i = 0; i < v.n; i++) t.items[i] = poison_like(S, v.items[i], loc);
        return t;
    }
    if (v.k != V_IR) return v;
    IrType ty = ir_type(sema_func(S), v.v), e = ty_elem(ty);
    ValId z;
    if (e.dt == DT_PTR)
        z = sema_emit_ptr_cast(S, sema_emit_const(S, ty_scalar(DT_I64), sema_val_int(0), loc), e,
                               loc);
    else z = sema_emit_const(S, e, sema_val_int(0), loc);
    return sema_val_ir(S, sema_emit_broadcast(S, z, ty, loc));
}

static Flow lower_if_returning(Sema *S, const Stmt *st, Val c, const Cont *after) {
    ValId cond = scalar_condition(S, c, "if", st->cond->loc);
    Env *pre = S->fs->env;
    IrFunc *f = sema_func(S);
    RegionId rt = ir_region_new(f, 0), re = ir_region_new(f, 0);
    RegionId old = set_region(S, rt);
    S->fs->env = sema_env_copy(S, pre);
    Flow ft = sema_lower_seq(S, &st->body, 0, after);
    set_region(S, re);
    S->fs->env = sema_env_copy(S, pre);
    Flow fe = sema_lower_seq(S, &st->orelse, 0, after);
    set_region(S, old);
    S->fs->env = pre;
    Val vt = ft.returned ? ft.value : sema_val_none(),
        ve = fe.returned ? fe.value : sema_val_none();
    /* A path that falls off the end of the function returns, as in Triton, a poison value
     * of the type the other path returns (here: zeros; a constexpr, itself). */
    if (!ft.returned && fe.returned && ve.k != V_NONE && carriable(ve)) {
        set_region(S, rt);
        vt = poison_like(S, ve, st->loc);
    } else if (!fe.returned && ft.returned && vt.k != V_NONE && carriable(vt)) {
        set_region(S, re);
        ve = poison_like(S, vt, st->loc);
    }
    set_region(S, old);
    Flow out = {true, vt, st->loc};
    if (sema_val_same(vt, ve)) {
        emit_terminator(S, rt, OP_YIELD, NULL, 0, st->loc);
        emit_terminator(S, re, OP_YIELD, NULL, 0, st->loc);
        place_region_op(S, OP_IF, &cond, 1, NULL, 0, rt, re, st->loc);
        return out;
    }
    if (vt.k == V_NONE || ve.k == V_NONE)
        sema_error(S, st->loc, "'%s' returns a value on some paths and nothing on others",
                   S->fs->fn ? S->fs->fn->name : "function");
    if (!carriable(vt) || !carriable(ve) || !same_structure(vt, ve))
        sema_error(S, st->loc,
                   "the paths through this 'if' return different kinds of values (%s and %s)",
                   sema_val_kind_name(S, vt), sema_val_kind_name(S, ve));
    if (sema_const_mismatch(vt, ve))
        sema_error(S, st->loc, "Return type mismatch: the paths through this 'if' return %s and %s",
                   sema_val_kind_name(S, vt), sema_val_kind_name(S, ve));
    ValId *yt = NULL, *ye = NULL;
    int nt = 0, ct = 0, ne = 0, ce = 0;
    set_region(S, rt);
    leaves(S, vt, &yt, &nt, &ct, st->loc);
    IrType *tys = arena_alloc(S->arena, sizeof(IrType) * (size_t)(nt + 1));
    for (int i = 0; i < nt; i++) tys[i] = ir_type(f, yt[i]);
    set_region(S, re);
    int k = 0;
    yield_leaves(S, ve, tys, &k, &ye, &ne, &ce, "the value returned by",
                 S->fs->fn ? S->fs->fn->name : "function", st->loc);
    set_region(S, old);
    emit_terminator(S, rt, OP_YIELD, yt, nt, st->loc);
    emit_terminator(S, re, OP_YIELD, ye, ne, st->loc);
    OpId op = place_region_op(S, OP_IF, &cond, 1, tys, nt, rt, re, st->loc);
    k = 0;
    out.value = over(S, vt, f->ops[op].results, &k);
    return out;
}

/* ---- loops ---- */

typedef struct Carried {
    const char **names;
    Val *shapes; /* values before the loop (their structure) */
    int n, cap;
    ValId *inits;
    int ninit, capinit;
} Carried;

/* Names assigned in the body that hold values before the loop are carried. */
static void find_carried(Sema *S, const Block *body, const char *skip, Carried *c, Loc loc) {
    Names ns = {0};
    assigned_names(S, body, &ns);
    Env *env = S->fs->env;
    for (int i = 0; i < ns.n; i++) {
        if (skip && !strcmp(ns.v[i], skip)) continue;
        Val *v = sema_env_lookup(env, ns.v[i]);
        if (!v || v->k == V_UNDEF || !carriable(*v)) continue;
        if (c->n == c->cap) {
            int cap = c->cap ? c->cap * 2 : 8;
            c->names = arena_grow(S->arena, c->names, sizeof(char *), (size_t)c->n, (size_t)cap);
            c->shapes = arena_grow(S->arena, c->shapes, sizeof(Val), (size_t)c->n, (size_t)cap);
            c->cap = cap;
        }
        c->names[c->n] = ns.v[i], c->shapes[c->n++] = *v;
        leaves(S, *v, &c->inits, &c->ninit, &c->capinit, loc);
    }
}

/* Bind the carried names to region r's arguments (from index first on). */
static void bind_carried(Sema *S, Env *env, const Carried *c, RegionId r, uint32_t first) {
    int k = 0;
    IrRegion *reg = ir_region(sema_func(S), r);
    for (int i = 0; i < c->n; i++)
        sema_env_set(S, env, c->names[i], over(S, c->shapes[i], reg->args + first, &k));
}

static void add_args(Sema *S, RegionId r, const Carried *c) {
    for (int i = 0; i < c->ninit; i++)
        ir_region_add_arg(sema_func(S), r, ir_type(sema_func(S), c->inits[i]));
}

/* Non-carriable names (strings, dtypes, functions) may not change inside a loop. */
static void check_invariant(Sema *S, const Block *body, Env *pre, Env *after, Loc loc) {
    Names ns = {0};
    assigned_names(S, body, &ns);
    for (int i = 0; i < ns.n; i++) {
        Val *a = sema_env_lookup(pre, ns.v[i]), *b = sema_env_lookup(after, ns.v[i]);
        if (a && b && a->k != V_UNDEF && !carriable(*a) && !sema_val_same(*a, *b))
            sema_error(S, loc,
                       "'%s' is reassigned inside the loop to a different compile-time value",
                       ns.v[i]);
    }
}

static void yield_carried(Sema *S, RegionId r, Env *env, const Carried *c, const char *what,
                          Loc loc) {
    RegionId old = set_region(S, r);
    IrType *want = arena_alloc(S->arena, sizeof(IrType) * (size_t)(c->ninit + 1));
    for (int i = 0; i < c->ninit; i++) want[i] = ir_type(sema_func(S), c->inits[i]);
    ValId *ys = NULL;
    int n = 0, cap = 0, k = 0;
    for (int i = 0; i < c->n; i++) {
        Val *v = sema_env_lookup(env, c->names[i]);
        if (!v || v->k == V_UNDEF)
            sema_error(S, loc, "'%s' is not defined at the end of the loop body", c->names[i]);
        if (!carriable(*v) || !same_structure(*v, c->shapes[i]))
            sema_error(S, loc, "loop-carried variable '%s' changes from %s to %s inside the loop",
                       c->names[i], sema_val_kind_name(S, c->shapes[i]), sema_val_kind_name(S, *v));
        yield_leaves(S, *v, want, &k, &ys, &n, &cap, what, c->names[i], loc);
    }
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    ir_build(sema_builder(S), OP_YIELD, ys, (uint32_t)n, NULL, 0);
    sema_builder(S)->loc = saved;
    set_region(S, old);
}

static void rebind_after(Sema *S, Env *pre, const Carried *c, OpId op) {
    int k = 0;
    for (int i = 0; i < c->n; i++)
        sema_env_set(S, pre, c->names[i], over(S, c->shapes[i], sema_func(S)->ops[op].results, &k));
}

static void lower_body(Sema *S, const Block *body, const char *what, Loc loc) {
    bool was = S->fs->in_loop;
    S->fs->in_loop = true;
    Flow fl = sema_lower_seq(S, body, 0, NULL);
    S->fs->in_loop = was;
    if (fl.returned)
        sema_error(S, fl.loc.src ? fl.loc : loc, "'return' inside a %s loop is not supported",
                   what);
}

static void drop_new_names(Sema *S, Env *pre, const Block *body) {
    Names ns = {0};
    assigned_names(S, body, &ns);
    Val u = sema_val_none();
    u.k = V_UNDEF;
    for (int i = 0; i < ns.n; i++)
        if (!sema_env_lookup(pre, ns.v[i])) sema_env_set(S, pre, ns.v[i], u);
}

typedef struct RangeArgs {
    Val lb, ub, step;
    bool is_static;
    int num_stages;       /* tl.range(..., num_stages=N): 0 when not given */
    bool flatten;         /* tl.range(..., flatten=True): the loop nest it heads becomes one loop */
    bool warp_specialize; /* tl.range(..., warp_specialize=True): copies from producer warps */
} RangeArgs;

static RangeArgs range_args(Sema *S, const Expr *it) {
    if (it->kind != EX_CALL)
        sema_error(S, it->loc,
                   "for loops iterate over range(...), tl.range(...), tl.static_range(...) or a "
                   "constant tuple");
    Val callee = sema_lower_expr(S, it->lhs);
    const char *name = callee.k == V_BUILTIN ? sema_builtin_name(callee.builtin) : "";
    bool is_static = !strcmp(name, "static_range");
    if (strcmp(name, "range") && strcmp(name, "tl_range") && !is_static)
        sema_error(S, it->loc,
                   "for loops iterate over range(...), tl.range(...) or tl.static_range(...)");
    /* Triton's signatures: static_range(arg1, arg2=None, step=None); tl.range the same with
     * its hints after (num_stages, ...); Python's range takes no keywords */
    static const char *const bounds[] = {"arg1", "arg2", "step"};
    static const char *const hints[] = {
        "num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer",
        "flatten",    "warp_specialize",    "disable_licm",
        "unroll"};
    const Expr *given[3] = {NULL, NULL, NULL};
    if (it->nitems > 3)
        sema_error(S, it->loc, "range() takes 1 to 3 arguments, got %d", it->nitems);
    for (int i = 0; i < it->nitems; i++) given[i] = it->items[i];
    int num_stages = 0;
    bool flatten = false, warp_specialize = false;
    for (int i = 0; i < it->nkw; i++) {
        const char *kw = it->kwnames[i];
        int b = -1;
        for (int j = 0; j < 3 && strcmp(name, "range"); j++)
            if (!strcmp(bounds[j], kw)) b = j;
        if (b >= 0) {
            if (given[b])
                sema_error(S, it->kwvalues[i]->loc, "%s() got multiple values for argument '%s'",
                           is_static ? "static_range" : "range", kw);
            given[b] = it->kwvalues[i];
            continue;
        }
        bool is_py = !strcmp(name, "range");
        bool ok = false;
        for (size_t h = 0; h < sizeof hints / sizeof *hints && !is_static; h++)
            ok |= !strcmp(hints[h], kw);
        /* Python's range: Triton evaluates its keywords and ignores them (a loop over
         * range(n, flatten=True) compiles as range(n)), its bounds' names too: the loop
         * is the one its positional bounds make, as under Triton (lightllm's copy loops
         * written range(start, end, step=n) step by 1 there), with a warning */
        if (is_py && (!strcmp(kw, "arg1") || !strcmp(kw, "arg2") || !strcmp(kw, "step")))
            diag_warning(S->diag, it->kwvalues[i]->loc,
                         "range() ignores the keyword argument '%s', as Triton does: the loop "
                         "is range(%s) (Python's range takes its bounds by position; "
                         "tl.range takes them by name too)",
                         kw,
                         it->nitems == 1   ? "end"
                         : it->nitems == 2 ? "start, end"
                                           : "start, end, step");
        if (!ok && !is_py)
            sema_error(S, it->kwvalues[i]->loc, "unknown keyword argument '%s' for %s", kw, name);
        Val v =
            sema_lower_expr(S, it->kwvalues[i]); /* the others: evaluated for their errors; hints */
        if (is_py) continue; /* not hints of this loop: Triton applies none of them */
        if (!strcmp(kw, "num_stages") && v.k != V_NONE) {
            if (v.k != V_INT || !option_valid(OPT_NUM_STAGES, v.i))
                sema_error(S, it->kwvalues[i]->loc, "num_stages must be a compile-time integer %s",
                           option_info(OPT_NUM_STAGES)->range);
            num_stages = (int)v.i;
        }
        if (!strcmp(kw, "flatten") && v.k != V_NONE) {
            if (v.k != V_BOOL && v.k != V_INT)
                sema_error(S, it->kwvalues[i]->loc, "flatten must be a compile-time bool");
            flatten = v.i != 0;
        }
        if (!strcmp(kw, "warp_specialize") && v.k != V_NONE) {
            if (v.k != V_BOOL && v.k != V_INT)
                sema_error(S, it->kwvalues[i]->loc, "warp_specialize must be a compile-time bool");
            warp_specialize = v.i != 0;
        }
    }
    if (!given[0])
        sema_error(S, it->loc, "%s() needs an end ('arg1')", is_static ? "static_range" : "range");
    /* as Triton's: no (or a None) arg2 counts from 0 to arg1; no (or a None) step is 1 */
    Val a[3] = {sema_val_none(), sema_val_none(), sema_val_none()};
    for (int i = 0; i < 3; i++) {
        const Expr *e = given[i];
        if (!e) continue;
        if (e->kind == EX_STAR) sema_error(S, e->loc, "'*' is not supported in range()");
        a[i] = sema_lower_expr(S, e);
        if (a[i].k == V_NONE && i) continue;
        IrType t = sema_type_of(a[i]);
        if (a[i].k == V_FLOAT || !dt_is_int(t.dt) || (a[i].k == V_IR && a[i].ty.rank))
            sema_error(S, e->loc, "range() bounds must be integer scalars, got %s",
                       sema_val_kind_name(S, a[i]));
    }
    RangeArgs r = {sema_val_int(0), a[0],    sema_val_int(1), is_static,
                   num_stages,      flatten, warp_specialize};
    if (a[1].k != V_NONE) r.lb = a[0], r.ub = a[1];
    if (a[2].k != V_NONE) r.step = a[2];
    return r;
}

static void count_unrolled(Sema *S, Loc loc) {
    if (++S->unrolled > SEMA_MAX_UNROLL)
        sema_error(S, loc, "static loops unroll more than %d iterations in all", SEMA_MAX_UNROLL);
}

static void unroll_static(Sema *S, const Stmt *st, RangeArgs r) {
    if (r.lb.k != V_INT || r.ub.k != V_INT || r.step.k != V_INT)
        sema_error(S, st->value->loc, "static_range() bounds must be compile-time constants");
    if (r.step.i == 0) sema_error(S, st->value->loc, "range() step must not be zero");
    /* the trip count, computed without overflowing: (ub - lb) / step rounded up */
    __int128 span = (__int128)r.ub.i - r.lb.i, step = r.step.i;
    __int128 trips =
        (span > 0) == (step > 0) && span != 0 ? (span + step - (step > 0 ? 1 : -1)) / step : 0;
    if (trips > 4096)
        sema_error(S, st->value->loc, "static_range() unrolls at most 4096 iterations");
    for (int64_t t = 0; t < (int64_t)trips; t++) {
        count_unrolled(S, st->loc);
        sema_env_set(S, S->fs->env, st->targets[0]->name, sema_val_int(r.lb.i + t * r.step.i));
        lower_body(S, &st->body, "static_range", st->loc);
    }
}

static int iv_dtype(Sema *S, RangeArgs r, Loc loc) {
    Val v[3] = {r.lb, r.ub, r.step};
    int dt = DT_VOID;
    for (int i = 0; i < 3; i++) {
        if (v[i].k == V_IR)
            dt = dt == DT_VOID
                     ? v[i].ty.dt
                     : sema_computation_dtype(S, ty_scalar(dt), false, v[i].ty, false, false, loc);
    }
    for (int i = 0; i < 3; i++) {
        if (v[i].k == V_IR) continue;
        int c = sema_const_dtype(S, v[i], loc);
        if (c == DT_I1) c = DT_I32;
        dt = dt == DT_VOID
                 ? c
                 : sema_computation_dtype(S, ty_scalar(dt), false, ty_scalar(c), true, false, loc);
    }
    if (dt == DT_I1 || dt == DT_VOID) dt = DT_I32;
    return dt;
}

static void lower_for(Sema *S, const Stmt *st) {
    const Expr *tgt = st->targets[0];
    if (st->orelse.n) sema_error(S, st->loc, "'for ... else' is not supported");
    if (tgt->kind != EX_NAME) sema_error(S, tgt->loc, "the loop variable must be a single name");
    if (st->value->kind != EX_CALL) {
        Val t = sema_lower_expr(S, st->value); /* iterate a constant tuple: unrolled */
        if (t.k != V_TUPLE)
            sema_error(S, st->value->loc,
                       "for loops iterate over range(...), tl.range(...), tl.static_range(...) or "
                       "a tuple, not %s",
                       sema_val_kind_name(S, t));
        for (int i = 0; i < t.n; i++) {
            count_unrolled(S, st->loc);
            sema_env_set(S, S->fs->env, tgt->name, t.items[i]);
            lower_body(S, &st->body, "for", st->loc);
        }
        return;
    }
    RangeArgs r = range_args(S, st->value);
    if (r.is_static) return unroll_static(S, st, r);
    if (r.step.k == V_INT && r.step.i == 0)
        sema_error(S, st->value->loc, "range() step must not be zero");
    int dt = iv_dtype(S, r, st->value->loc);
    Loc loc = st->value->loc;
    ValId bounds[3] = {sema_to_ir_dt(S, r.lb, dt, loc), sema_to_ir_dt(S, r.ub, dt, loc),
                       sema_to_ir_dt(S, r.step, dt, loc)};
    Env *pre = S->fs->env;
    Carried c = {0};
    find_carried(S, &st->body, tgt->name, &c, st->loc);
    IrFunc *f = sema_func(S);
    RegionId body = ir_region_new(f, 0);
    ValId iv = ir_region_add_arg(f, body, ty_scalar(dt));
    add_args(S, body, &c);
    Env *env = sema_env_copy(S, pre);
    sema_env_set(S, env, tgt->name, sema_val_ir(S, iv));
    bind_carried(S, env, &c, body, 1);
    RegionId old = set_region(S, body);
    S->fs->env = env;
    lower_body(S, &st->body, "for", st->loc);
    set_region(S, old);
    S->fs->env = pre;
    check_invariant(S, &st->body, pre, env, st->loc);
    yield_carried(S, body, env, &c, "loop-carried variable", st->loc);
    ValId *opnds = arena_alloc(S->arena, sizeof(ValId) * (size_t)(3 + c.ninit));
    memcpy(opnds, bounds, sizeof bounds);
    IrType *tys = arena_alloc(S->arena, sizeof(IrType) * (size_t)(c.ninit + 1));
    for (int i = 0; i < c.ninit; i++) opnds[3 + i] = c.inits[i], tys[i] = ir_type(f, c.inits[i]);
    OpId op = place_region_op(S, OP_FOR, opnds, 3 + c.ninit, tys, c.ninit, body, 0, st->loc);
    f->ops[op].attr[0] = r.num_stages;
    f->ops[op].attr[1] = r.flatten;
    f->ops[op].attr[2] = r.warp_specialize;
    drop_new_names(S, pre, &st->body);
    Val u = sema_val_none();
    u.k = V_UNDEF;
    sema_env_set(S, pre, tgt->name, u);
    rebind_after(S, pre, &c, op);
}

static void lower_while(Sema *S, const Stmt *st) {
    if (st->orelse.n) sema_error(S, st->loc, "'while ... else' is not supported");
    Env *pre = S->fs->env;
    Carried c = {0};
    find_carried(S, &st->body, NULL, &c, st->loc);
    IrFunc *f = sema_func(S);
    RegionId before = ir_region_new(f, 0), after = ir_region_new(f, 0);
    add_args(S, before, &c);
    add_args(S, after, &c);
    Env *e0 = sema_env_copy(S, pre), *e1 = sema_env_copy(S, pre);
    bind_carried(S, e0, &c, before, 0);
    bind_carried(S, e1, &c, after, 0);
    RegionId old = set_region(S, before);
    S->fs->env = e0;
    Val cv = sema_lower_expr(S, st->cond);
    bool t;
    if (sema_truthy_const(S, cv, st->cond->loc, &t)) {
        set_region(S, old);
        S->fs->env = pre;
        if (t)
            sema_error(S, st->cond->loc,
                       "this while loop never ends: its condition is always true and 'break' is "
                       "not supported");
        return; /* never runs */
    }
    ValId cond = scalar_condition(S, cv, "while", st->cond->loc);
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = st->cond->loc;
    ir_build(sema_builder(S), OP_CONDITION, &cond, 1, NULL, 0);
    sema_builder(S)->loc = saved;
    set_region(S, after);
    S->fs->env = e1;
    lower_body(S, &st->body, "while", st->loc);
    set_region(S, old);
    S->fs->env = pre;
    check_invariant(S, &st->body, pre, e1, st->loc);
    yield_carried(S, after, e1, &c, "loop-carried variable", st->loc);
    IrType *tys = arena_alloc(S->arena, sizeof(IrType) * (size_t)(c.ninit + 1));
    for (int i = 0; i < c.ninit; i++) tys[i] = ir_type(f, c.inits[i]);
    OpId op = place_region_op(S, OP_WHILE, c.inits, c.ninit, tys, c.ninit, before, after, st->loc);
    drop_new_names(S, pre, &st->body);
    rebind_after(S, pre, &c, op);
}

/* ---- simple statements ---- */

static void assign(Sema *S, const Expr *t, Val v) {
    switch (t->kind) {
    case EX_NAME: sema_env_set(S, S->fs->env, t->name, v); return;
    case EX_TUPLE:
    case EX_LIST:
        if (v.k != V_TUPLE || v.tag)
            sema_error(S, t->loc, "cannot unpack %s into %d names", sema_val_kind_name(S, v),
                       t->nitems);
        if (v.n != t->nitems)
            sema_error(S, t->loc, "cannot unpack %d values into %d names", v.n, t->nitems);
        for (int i = 0; i < t->nitems; i++) assign(S, t->items[i], v.items[i]);
        return;
    case EX_SUBSCRIPT:
        sema_error(
            S, t->loc,
            "cannot assign to an element: blocks are values (build a new one, e.g. with tl.where)");
    case EX_ATTR: sema_error(S, t->loc, "cannot assign to an attribute");
    default: sema_error(S, t->loc, "cannot assign to this expression");
    }
}

/* ---- list comprehensions ---- */

/* [elt for t in it if c ...], evaluated at compile time as Triton's code generator does: each
 * iterable is a tuple (a list is one) or, beyond Triton, range(...) or tl.static_range(...)
 * with compile-time bounds; each 'if' a compile-time condition. The element is lowered once
 * per item, so it may emit ops (v + 1 on a block). The result is a tuple. The clauses'
 * names are the comprehension's own, as in Python 3: they do not outlive it. */
typedef struct CompOut {
    Val *v;
    int n, cap;
} CompOut;

static bool comp_range(Sema *S, const Expr *it, RangeArgs *r) {
    if (it->kind != EX_CALL) return false;
    Val callee = sema_lower_expr(S, it->lhs);
    const char *name = callee.k == V_BUILTIN ? sema_builtin_name(callee.builtin) : "";
    if (!strcmp(name, "tl_range"))
        sema_error(S, it->loc,
                   "tl.range() is a run-time loop: a list comprehension iterates over a tuple, "
                   "range(...) or tl.static_range(...)");
    if (strcmp(name, "range") && strcmp(name, "static_range")) return false;
    *r = range_args(S, it);
    if (r->lb.k != V_INT || r->ub.k != V_INT || r->step.k != V_INT)
        sema_error(S, it->loc,
                   "a list comprehension's range() bounds must be compile-time constants");
    if (r->step.i == 0) sema_error(S, it->loc, "range() step must not be zero");
    return true;
}

static void comp_clauses(Sema *S, const Expr *e, int k, CompOut *out) {
    if (k == e->nitems) {
        if (out->n >= SEMA_MAX_TUPLE)
            sema_error(S, e->loc, "list comprehension with more than %d items", SEMA_MAX_TUPLE);
        Val v = sema_lower_expr(S, e->lhs);
        VEC_PUSH(S->arena, out->v, out->n, out->cap, v);
        return;
    }
    const Expr *cl = e->items[k];
    if (cl->kind == EX_COMPIF) {
        Val c = sema_lower_expr(S, cl->lhs);
        bool t;
        if (!sema_truthy_const(S, c, cl->lhs->loc, &t))
            sema_error(S, cl->lhs->loc,
                       "a list comprehension's 'if' needs a compile-time condition, got %s",
                       sema_val_kind_name(S, c));
        if (t) comp_clauses(S, e, k + 1, out);
        return;
    }
    RangeArgs r;
    if (comp_range(S, cl->rhs, &r)) {
        for (int64_t i = r.lb.i; r.step.i > 0 ? i < r.ub.i : i > r.ub.i; i += r.step.i) {
            count_unrolled(S, cl->loc);
            assign(S, cl->lhs, sema_val_int(i));
            comp_clauses(S, e, k + 1, out);
            if ((r.step.i > 0 && i > INT64_MAX - r.step.i) ||
                (r.step.i < 0 && i < INT64_MIN - r.step.i))
                break;
        }
        return;
    }
    Val t = sema_lower_expr(S, cl->rhs);
    if (t.k != V_TUPLE || t.tag != TAG_NONE)
        sema_error(S, cl->rhs->loc,
                   "a list comprehension iterates over a tuple, range(...) or "
                   "tl.static_range(...), not %s",
                   sema_val_kind_name(S, t));
    for (int i = 0; i < t.n; i++) {
        count_unrolled(S, cl->loc);
        assign(S, cl->lhs, t.items[i]);
        comp_clauses(S, e, k + 1, out);
    }
}

Val sema_lower_listcomp(Sema *S, const Expr *e) {
    Env *pre = S->fs->env;
    S->fs->env = sema_env_copy(S, pre);
    CompOut out = {0};
    comp_clauses(S, e, 0, &out);
    S->fs->env = pre;
    return sema_val_tuple(S, out.v, out.n);
}

static void lower_assert(Sema *S, const Stmt *st) {
    Val c = sema_lower_expr(S, st->cond ? st->cond : st->value);
    const char *msg = "assertion failed";
    if (st->cond && st->value) {
        Val m = sema_lower_expr(S, st->value);
        if (m.k == V_STR) msg = m.s;
    }
    bool t;
    if (S->opts->debug < 0) return; /* Triton without debug: no assert, even a false one */
    if (sema_truthy_const(S, c, st->loc, &t)) {
        if (!t) sema_error(S, st->loc, "%s", msg);
        return;
    }
    sema_emit_assert(S, sema_to_i1(S, c, st->loc), arena_strdup(S->arena, msg), st->loc);
}

void sema_emit_assert(Sema *S, ValId cond, const char *msg, Loc loc) {
    if (S->opts->debug < 0) return; /* Triton without debug compiles no device_assert */
    AssertSink *k = S->asserts;
    if (k) {
        if (sema_builder(S)->region != k->region)
            sema_error(S, loc,
                       "an assert in a combine function must not be inside a run-time if or a "
                       "loop (assert a condition that holds on the other paths too)");
        if (k->n == k->cap) {
            int cap = k->cap ? 2 * k->cap : 4;
            k->conds = arena_grow(S->arena, k->conds, sizeof(ValId), (size_t)k->n, (size_t)cap);
            k->msgs = arena_grow(S->arena, k->msgs, sizeof(char *), (size_t)k->n, (size_t)cap);
            k->locs = arena_grow(S->arena, k->locs, sizeof(Loc), (size_t)k->n, (size_t)cap);
            k->cap = cap;
        }
        k->conds[k->n] = cond, k->msgs[k->n] = msg, k->locs[k->n++] = loc;
        return;
    }
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    OpId op = ir_build(sema_builder(S), OP_ASSERT, &cond, 1, NULL, 0);
    sema_builder(S)->loc = saved;
    sema_func(S)->ops[op].sattr = msg;
}

/* A 'raise' the lowering reaches. Triton compiles a raise only where it is never
 * reached (a branch a compile-time condition leaves out, as in a helper that checks its
 * constexpr arguments); one that is reached is a compile error there, naming the
 * exception when it is written Name("message") or Name. */
static _Noreturn void lower_raise(Sema *S, const Stmt *st) {
    const Expr *e = st->value;
    const Expr *callee = e && e->kind == EX_CALL ? e->lhs : e;
    const char *what = callee && callee->kind == EX_NAME   ? callee->name
                       : callee && callee->kind == EX_ATTR ? callee->name
                                                           : NULL;
    const char *msg = e && e->kind == EX_CALL && e->nitems >= 1 && e->items[0]->kind == EX_STR
                          ? e->items[0]->sval
                          : NULL;
    if (!msg && e && e->kind == EX_CALL && e->nitems >= 1 && e->items[0]->kind == EX_FSTRING)
        msg = sema_lower_expr(S, e->items[0]).s; /* its fields are known at compile time */
    if (what && msg)
        sema_error(S, st->loc,
                   "kernel raises %s: %s (a 'raise' compiles only where it is not reached)", what,
                   msg);
    if (what)
        sema_error(S, st->loc, "kernel raises %s (a 'raise' compiles only where it is not reached)",
                   what);
    sema_error(S, st->loc, "'raise' is reached (a 'raise' compiles only where it is not reached)");
}

/* A number bound by a plain assignment: Triton's code generator makes it a scalar tensor of
 * its to_tensor type; Nereid marks it (Val.assigned) and keeps the constant. (Triton does
 * the same to the numbers inside an assigned tuple, `a, b = 100, 200`; Nereid leaves those
 * compile-time numbers, as its standard library and users' unpacked constants expect.) */
static Val mark_assigned(Sema *S, Val v) {
    (void)S;
    if (sema_val_is_const(v)) v.assigned = true;
    return v;
}

static void lower_stmt(Sema *S, const Stmt *st) {
    switch (st->kind) {
    case ST_EXPR: sema_lower_expr(S, st->value); return;
    case ST_ASSIGN: {
        Val v = mark_assigned(S, sema_lower_expr(S, st->value)); /* scalar tensors in Triton */
        for (int i = 0; i < st->ntargets; i++) assign(S, st->targets[i], v);
        return;
    }
    case ST_AUGASSIGN: {
        const Expr *t = st->targets[0];
        if (t->kind != EX_NAME) assign(S, t, sema_val_none()); /* reports the error */
        Val cur = sema_lookup_name(S, t->name, t->loc);
        Val rhs = sema_lower_expr(S, st->value);
        Val v = sema_user_binary_op(S, st->op, cur, rhs, st->loc);
        if (sema_val_is_const(v)) v.assigned = true;
        sema_env_set(S, S->fs->env, t->name, v);
        return;
    }
    case ST_ANNASSIGN: {
        if (!st->value) sema_error(S, st->loc, "an annotated name needs a value");
        Val v = sema_lower_expr(S, st->value);
        /* `x: tl.constexpr = e` with a run-time e binds it as it is, as Triton does (its
         * constexpr wrapper unwraps again in arithmetic); a use that needs a compile-time
         * value reports it there */
        bool cx = st->annotation && !strcmp(st->annotation, "constexpr");
        if (sema_val_is_const(v)) v.assigned = !cx;
        assign(S, st->targets[0], v);
        return;
    }
    case ST_IF: {
        Val c = sema_lower_expr(S, st->cond);
        bool t;
        if (sema_truthy_const(S, c, st->cond->loc, &t)) {
            sema_lower_seq(S, t ? &st->body : &st->orelse, 0, NULL);
            return;
        }
        lower_if(S, st, c);
        return;
    }
    case ST_FOR: lower_for(S, st); return;
    case ST_WHILE: lower_while(S, st); return;
    case ST_PASS:
    case ST_IMPORT: return;
    case ST_BREAK:
        sema_error(S, st->loc,
                   "'break' is not supported: loops run to completion (use a while condition)");
    case ST_CONTINUE:
        sema_error(S, st->loc,
                   "'continue' is not supported (use an if around the rest of the body)");
    case ST_ASSERT: lower_assert(S, st); return;
    case ST_DEF: sema_error(S, st->loc, "nested function definitions are not supported");
    case ST_GLOBAL: sema_error(S, st->loc, "'global' and 'nonlocal' are not supported in kernels");
    case ST_WITH: sema_error(S, st->loc, "'with' is not supported in kernels");
    case ST_RAISE: lower_raise(S, st);
    case ST_RETURN: NR_DIE("return handled by sema_lower_seq");
    }
}

Flow sema_lower_seq(Sema *S, const Block *b, int i, const Cont *rest) {
    for (;;) {
        if (i >= b->n) {
            if (!rest) return (Flow){false, sema_val_none(), {0}};
            b = rest->b, i = rest->i, rest = rest->next;
            continue;
        }
        const Stmt *st = b->stmts[i++];
        if (st->kind == ST_RETURN) {
            Flow f = {true, st->value ? sema_lower_expr(S, st->value) : sema_val_none(), st->loc};
            return f;
        }
        if (st->kind == ST_IF && (block_has_return(&st->body) || block_has_return(&st->orelse))) {
            if (S->fs->in_loop) {
                const Stmt *r = first_return(&st->body);
                if (!r) r = first_return(&st->orelse);
                sema_error(S, r->loc, "'return' inside a loop is not supported");
            }
            Val c = sema_lower_expr(S, st->cond);
            Cont after = {b, i, rest};
            bool t;
            /* `a = False; if a: return x`: Triton's a is a scalar tensor, so its if is a
             * run-time one and the function returns x's type (poison where it falls off
             * the end); a constexpr condition picks the branch at compile time. */
            if (!(sema_val_is_const(c) && c.assigned) && sema_truthy_const(S, c, st->cond->loc, &t))
                return sema_lower_seq(S, t ? &st->body : &st->orelse, 0, &after);
            if (c.k != V_IR) c = sema_val_ir(S, sema_to_ir(S, c, st->cond->loc));
            return lower_if_returning(S, st, c, &after);
        }
        lower_stmt(S, st);
    }
}
