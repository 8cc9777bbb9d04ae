/* ast.c - building the syntax tree and printing it.
 *
 * The builders are what parser.y's actions call: each makes one node in the arena and
 * checks what the grammar cannot express (assignment targets, argument order, repeated
 * names, nesting limits). Every node records its height (Expr.depth, Stmt.depth) so the
 * limits are checked in O(1) as the tree grows bottom-up: no later recursive walker
 * (printer, sema) can then meet a tree deep enough to exhaust the C stack. A builder that
 * finds an error reports it through parse_error and still returns a well-formed node;
 * the parse stops at the next token.
 *
 * ast_print writes one node per line, two spaces of indentation per level:
 *   module / func NAME / decorator E / param NAME[: ANN] (default E) / body / else
 *   expressions: name N, int V, float V (%.17g), str "C-escaped", True, False, None,
 *   binop OP, unop OP, cmp OP[, OP...], boolop and|or, call (callee, args, kw NAME),
 *   attr NAME, subscript (value, indices), slice [lower] [upper] [step], tuple, list,
 *   ifexp (then V, cond C, else E), star
 *   statements: expr, assign (target T..., value), augassign OP=, annassign ANN, if,
 *   for, while, return, pass, break, continue, assert, import ..., from ... import ...,
 *   global/nonlocal NAMES, with.
 * A child with a role is printed as "role <node>" (target, decorator, default, kw). */
#include "parse_ctx.h"

#include <stdlib.h>
#include <string.h>

/* ---- growable lists ---- */

ExprVec *ast_ev_push(ParseCtx *c, ExprVec *v, Expr *e) {
    if (!v) v = arena_alloc(c->arena, sizeof *v);
    VEC_PUSH(c->arena, v->v, v->n, v->cap, e);
    return v;
}

StmtVec *ast_sv_push(ParseCtx *c, StmtVec *v, Stmt *s) {
    if (!v) v = arena_alloc(c->arena, sizeof *v);
    VEC_PUSH(c->arena, v->v, v->n, v->cap, s);
    return v;
}

StmtVec *ast_sv_concat(ParseCtx *c, StmtVec *a, StmtVec *b) {
    for (int i = 0; i < b->n; i++) VEC_PUSH(c->arena, a->v, a->n, a->cap, b->v[i]);
    return a;
}

StmtVec *ast_sv_else(ParseCtx *c, Loc loc, StmtVec *body) {
    (void)c;
    body->loc = loc;
    return body;
}

ParamVec *ast_pv_push(ParseCtx *c, ParamVec *v, Param p) {
    if (!v) v = arena_alloc(c->arena, sizeof *v);
    VEC_PUSH(c->arena, v->v, v->n, v->cap, p);
    return v;
}

NameVec *ast_nv_push(ParseCtx *c, NameVec *v, const char *name) {
    if (!v) v = arena_alloc(c->arena, sizeof *v);
    VEC_PUSH(c->arena, v->v, v->n, v->cap, name);
    v->len += strlen(name) + 1;
    return v;
}

ElifVec *ast_elif_push(ParseCtx *c, ElifVec *v, Loc loc, Expr *cond, StmtVec *body) {
    if (!v) v = arena_alloc(c->arena, sizeof *v);
    Elif e = {loc, cond, body};
    VEC_PUSH(c->arena, v->v, v->n, v->cap, e);
    return v;
}

static const char *join_dotted(ParseCtx *c, const NameVec *v) {
    char *s = arena_alloc(c->arena, v->len + 1), *p = s;
    for (int i = 0; i < v->n; i++) {
        size_t n = strlen(v->v[i]);
        if (i) *p++ = '.';
        memcpy(p, v->v[i], n);
        p += n;
    }
    *p = 0;
    return s;
}

/* Items of a node that grows one at a time (comparison and boolean chains): capacity is
 * 4, then the next power of two, so it is implied by the count. */
static void *grow_items(ParseCtx *c, void *arr, size_t elem, int n) {
    if (n == 0) return arena_grow(c->arena, NULL, elem, 0, 4);
    if (n >= 4 && (n & (n - 1)) == 0)
        return arena_grow(c->arena, arr, elem, (size_t)n, 2 * (size_t)n);
    return arr;
}

/* The first name that repeats an earlier one, by index; -1 if none. Sorting keeps it
 * O(n log n): a call with 100000 keyword arguments must not take quadratic time. */
typedef struct {
    const char *name;
    int idx;
} NameIdx;

static int cmp_name_idx(const void *a, const void *b) {
    const NameIdx *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    return r ? r : (x->idx > y->idx) - (x->idx < y->idx);
}

static int first_repeat(ParseCtx *c, const char *const *names, int n) {
    if (n < 2) return -1;
    NameIdx *v = arena_alloc(c->arena, sizeof *v * (size_t)n);
    for (int i = 0; i < n; i++) v[i] = (NameIdx){names[i], i};
    qsort(v, (size_t)n, sizeof *v, cmp_name_idx);
    int best = -1;
    for (int i = 1; i < n; i++)
        if (strcmp(v[i].name, v[i - 1].name) == 0 &&
            (i < 2 || strcmp(v[i - 1].name, v[i - 2].name) != 0))
            if (best < 0 || v[i].idx < best) best = v[i].idx;
    return best;
}

/* ---- expressions ---- */

Expr *ast_new_expr(ParseCtx *c, ExprKind kind, Loc loc) {
    Expr *e = arena_alloc(c->arena, sizeof *e);
    e->kind = kind;
    e->loc = loc;
    e->depth = 1;
    return e;
}

/* e gained a child: keep its height, and refuse trees taller than the limit. */
static void adopt(ParseCtx *c, Expr *e, const Expr *child) {
    if (!child || child->depth < e->depth) return;
    e->depth = child->depth + 1;
    if (e->depth > MAX_EXPR_DEPTH)
        parse_error(c, e->loc, "expression nested too deeply (limit %d)", MAX_EXPR_DEPTH);
}

static void adopt_all(ParseCtx *c, Expr *e, Expr **items, int n) {
    for (int i = 0; i < n; i++) adopt(c, e, items[i]);
}

Expr *ast_ex_name(ParseCtx *c, Loc loc, const char *name) {
    Expr *e = ast_new_expr(c, EX_NAME, loc);
    e->name = name;
    return e;
}

Expr *ast_ex_const(ParseCtx *c, Loc loc, ExprKind kind) { return ast_new_expr(c, kind, loc); }

Expr *ast_ex_str(ParseCtx *c, Loc loc, const char *s, size_t n) {
    Expr *e = ast_new_expr(c, EX_STR, loc);
    char *copy = arena_alloc(c->arena, n + 1);
    if (n) memcpy(copy, s, n);
    e->sval = copy;
    e->slen = n;
    return e;
}

void ast_fparts_add(ParseCtx *c, FParts *f, Expr *e, int conv) {
    bool flat = conv == 0 && e->kind == EX_FSTRING; /* a field's own f-string stays whole */
    int k = flat ? e->nitems : 1;
    if (f->n + k > f->cap) {
        int cap = (f->n + k) * 2;
        Expr **parts = arena_alloc(c->arena, sizeof *parts * (size_t)cap);
        int *convs = arena_alloc(c->arena, sizeof *convs * (size_t)cap);
        if (f->n) {
            memcpy(parts, f->parts, sizeof *parts * (size_t)f->n);
            memcpy(convs, f->convs, sizeof *convs * (size_t)f->n);
        }
        f->parts = parts, f->convs = convs, f->cap = cap;
    }
    for (int i = 0; i < k; i++) {
        f->parts[f->n] = flat ? e->items[i] : e;
        f->convs[f->n++] = flat ? e->ops[i] : conv;
    }
}

Expr *ast_ex_fstring(ParseCtx *c, Loc loc, const FParts *f) {
    Expr *e = ast_new_expr(c, EX_FSTRING, loc);
    e->items = f->parts;
    e->ops = f->convs;
    e->nitems = f->n;
    adopt_all(c, e, e->items, e->nitems);
    return e;
}

Expr *ast_ex_binop(ParseCtx *c, Loc loc, int op, Expr *l, Expr *r) {
    Expr *e = ast_new_expr(c, EX_BINOP, loc);
    e->op = op;
    e->lhs = l;
    e->rhs = r;
    adopt(c, e, l);
    adopt(c, e, r);
    return e;
}

Expr *ast_ex_unop(ParseCtx *c, Loc loc, int op, Expr *x) {
    Expr *e = ast_new_expr(c, EX_UNOP, loc);
    e->op = op;
    e->lhs = x;
    adopt(c, e, x);
    return e;
}

static void chain_push(ParseCtx *c, Expr *e, Expr *x) {
    e->items = grow_items(c, e->items, sizeof *e->items, e->nitems);
    e->items[e->nitems++] = x;
    adopt(c, e, x);
}

Expr *ast_ex_cmp(ParseCtx *c, Loc loc, Expr *l, int op, Expr *r) {
    Expr *e = ast_new_expr(c, EX_CMP, loc);
    chain_push(c, e, l);
    return ast_ex_cmp_push(c, e, op, r);
}

Expr *ast_ex_cmp_push(ParseCtx *c, Expr *e, int op, Expr *r) {
    int nops = e->nitems - 1;
    e->ops = grow_items(c, e->ops, sizeof *e->ops, nops);
    e->ops[nops] = op;
    chain_push(c, e, r);
    return e;
}

Expr *ast_ex_bool(ParseCtx *c, Loc loc, int op, Expr *l, Expr *r) {
    Expr *e = ast_new_expr(c, EX_BOOLOP, loc);
    e->op = op;
    chain_push(c, e, l);
    chain_push(c, e, r);
    return e;
}

Expr *ast_ex_bool_push(ParseCtx *c, Expr *e, Expr *r) {
    chain_push(c, e, r);
    return e;
}

Expr *ast_ex_ifexp(ParseCtx *c, Loc loc, Expr *then, Expr *cond, Expr *orelse) {
    Expr *e = ast_new_expr(c, EX_IFEXP, loc);
    e->items = arena_alloc(c->arena, sizeof *e->items);
    e->items[0] = cond;
    e->nitems = 1;
    e->lhs = then;
    e->rhs = orelse;
    adopt(c, e, cond);
    adopt(c, e, then);
    adopt(c, e, orelse);
    return e;
}

Arg ast_arg_pos(Loc loc, Expr *e) { return (Arg){NULL, loc, e}; }
Arg ast_arg_kw(Loc loc, const char *name, Expr *value) { return (Arg){name, loc, value}; }

Args *ast_args_push(ParseCtx *c, Args *a, Arg arg) {
    if (!a) a = arena_alloc(c->arena, sizeof *a);
    if (!arg.kw) {
        if (a->nkw && arg.value->kind != EX_STAR)
            parse_error(c, arg.loc, "positional argument follows keyword argument");
        ast_ev_push(c, &a->pos, arg.value);
        return a;
    }
    if (a->nkw == a->kwcap) {
        int cap = a->kwcap ? 2 * a->kwcap : 4;
        a->kwn = arena_grow(c->arena, a->kwn, sizeof *a->kwn, (size_t)a->nkw, (size_t)cap);
        a->kwv = arena_grow(c->arena, a->kwv, sizeof *a->kwv, (size_t)a->nkw, (size_t)cap);
        a->kwloc = arena_grow(c->arena, a->kwloc, sizeof *a->kwloc, (size_t)a->nkw, (size_t)cap);
        a->kwcap = cap;
    }
    a->kwn[a->nkw] = arg.kw;
    a->kwv[a->nkw] = arg.value;
    a->kwloc[a->nkw++] = arg.loc;
    return a;
}

Expr *ast_ex_call(ParseCtx *c, Loc loc, Expr *callee, Args *a) {
    Expr *e = ast_new_expr(c, EX_CALL, loc);
    e->lhs = callee;
    adopt(c, e, callee);
    if (!a) return e;
    e->items = a->pos.v;
    e->nitems = a->pos.n;
    e->kwnames = a->kwn;
    e->kwvalues = a->kwv;
    e->nkw = a->nkw;
    adopt_all(c, e, e->items, e->nitems);
    adopt_all(c, e, e->kwvalues, e->nkw);
    int rep = first_repeat(c, e->kwnames, e->nkw);
    if (rep >= 0) parse_error(c, a->kwloc[rep], "keyword argument repeated: '%s'", e->kwnames[rep]);
    return e;
}

Expr *ast_ex_attr(ParseCtx *c, Loc loc, Expr *obj, const char *name) {
    Expr *e = ast_new_expr(c, EX_ATTR, loc);
    e->lhs = obj;
    e->name = name;
    adopt(c, e, obj);
    return e;
}

Expr *ast_ex_subscript(ParseCtx *c, Loc loc, Expr *obj, ExprVec *idx) {
    Expr *e = ast_new_expr(c, EX_SUBSCRIPT, loc);
    e->lhs = obj;
    e->items = idx->v;
    e->nitems = idx->n;
    adopt(c, e, obj);
    adopt_all(c, e, e->items, e->nitems);
    return e;
}

Expr *ast_ex_slice(ParseCtx *c, Loc loc, Expr *lo, Expr *hi, Expr *step) {
    Expr *e = ast_new_expr(c, EX_SLICE, loc);
    e->lhs = lo;
    e->rhs = hi;
    e->third = step;
    adopt(c, e, lo);
    adopt(c, e, hi);
    adopt(c, e, step);
    return e;
}

static Expr *ex_items(ParseCtx *c, ExprKind kind, Loc loc, ExprVec *items) {
    Expr *e = ast_new_expr(c, kind, loc);
    if (!items) return e;
    e->items = items->v;
    e->nitems = items->n;
    adopt_all(c, e, e->items, e->nitems);
    return e;
}

Expr *ast_ex_tuple(ParseCtx *c, Loc loc, ExprVec *items) {
    return ex_items(c, EX_TUPLE, loc, items);
}
Expr *ast_ex_list(ParseCtx *c, Loc loc, ExprVec *items) { return ex_items(c, EX_LIST, loc, items); }

static void check_target(ParseCtx *c, const Expr *e, bool in_seq);
static void check_value(ParseCtx *c, const Expr *e);

/* [elt for ... in ... if ...]: the clauses in source order */
Expr *ast_ex_listcomp(ParseCtx *c, Loc loc, Expr *elt, ExprVec *clauses) {
    Expr *e = ex_items(c, EX_LISTCOMP, loc, clauses);
    e->lhs = elt;
    adopt(c, e, elt);
    return e;
}

Expr *ast_ex_compfor(ParseCtx *c, Loc loc, Expr *target, Expr *iter) {
    check_target(c, target, false);
    check_value(c, iter);
    Expr *e = ast_new_expr(c, EX_COMPFOR, loc);
    e->lhs = target;
    e->rhs = iter;
    adopt(c, e, target);
    adopt(c, e, iter);
    return e;
}

Expr *ast_ex_compif(ParseCtx *c, Loc loc, Expr *cond) {
    Expr *e = ast_new_expr(c, EX_COMPIF, loc);
    e->lhs = cond;
    adopt(c, e, cond);
    return e;
}

/* "a" alone is a; "a," and "a, b" are tuples (also used for "(a)" and "(a, b)"). */
Expr *ast_ex_seq(ParseCtx *c, Loc loc, ExprVec *items, bool trailing_comma) {
    if (items->n == 1 && !trailing_comma) return items->v[0];
    return ast_ex_tuple(c, loc, items);
}

Expr *ast_ex_star(ParseCtx *c, Loc loc, Expr *x) {
    Expr *e = ast_new_expr(c, EX_STAR, loc);
    e->lhs = x;
    adopt(c, e, x);
    return e;
}

Expr *ast_ex_import_name(ParseCtx *c, Loc loc, NameVec *dotted, const char *alias) {
    Expr *e = ast_ex_name(c, loc, join_dotted(c, dotted));
    if (alias) {
        e->sval = alias;
        e->slen = strlen(alias);
    }
    return e;
}

/* ---- annotations and parameters ---- */

/* Spaces removed; any spelling of constexpr (tl.constexpr, triton.language.constexpr)
 * becomes "constexpr". */
static const char *normalise_ann(ParseCtx *c, const char *s, size_t n) {
    char *out = arena_alloc(c->arena, n + 1), *p = out;
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' && s[i] != '\f')
            *p++ = s[i];
    *p = 0;
    size_t len = (size_t)(p - out);
    if (strcmp(out, "constexpr") == 0 || (len > 10 && strcmp(out + len - 10, ".constexpr") == 0))
        return "constexpr";
    return out;
}

Ann ast_ann_star(ParseCtx *c, Loc loc, NameVec *dotted) {
    return (Ann){arena_printf(c->arena, "*%s", join_dotted(c, dotted)), loc};
}

Ann ast_ann_dotted(ParseCtx *c, Loc loc, NameVec *dotted) {
    const char *s = join_dotted(c, dotted);
    return (Ann){normalise_ann(c, s, strlen(s)), loc};
}

/* A | B (PEP 604: `x: tl.tensor | tl.tensor_descriptor`): its text, which types nothing
 * (a helper's parameter takes what it is given); `constexpr | ...` stays a union too. */
Ann ast_ann_union(ParseCtx *c, Ann a, NameVec *dotted) {
    return (Ann){arena_printf(c->arena, "%s|%s", a.text, join_dotted(c, dotted)), a.loc};
}

Ann ast_ann_string(ParseCtx *c, Loc loc, Expr *s) {
    return (Ann){normalise_ann(c, s->sval, s->slen), loc};
}

Param ast_param(Loc loc, const char *name, const Ann *ann, Expr *def) {
    Param p = {.name = name, .loc = loc, .default_value = def};
    if (ann) {
        p.annotation = ann->text;
        p.ann_loc = ann->loc;
    }
    return p;
}

/* ---- assignment targets ---- */

static const char *expr_what(const Expr *e) {
    switch (e->kind) {
    case EX_CALL: return "function call";
    case EX_INT:
    case EX_FLOAT:
    case EX_STR:
    case EX_FSTRING: return "literal";
    case EX_TRUE: return "True";
    case EX_FALSE: return "False";
    case EX_NONE: return "None";
    case EX_CMP: return "comparison";
    case EX_IFEXP: return "conditional expression";
    case EX_TUPLE: return "tuple";
    case EX_LIST: return "list";
    case EX_LISTCOMP: return "list comprehension";
    case EX_STAR: return "starred";
    case EX_SLICE: return "slice";
    default: return "expression";
    }
}

static void check_target(ParseCtx *c, const Expr *e, bool in_seq) {
    if (c->failed) return;
    switch (e->kind) {
    case EX_NAME:
    case EX_ATTR:
    case EX_SUBSCRIPT: return;
    case EX_STAR:
        if (!in_seq) parse_error(c, e->loc, "starred assignment target must be in a list or tuple");
        check_target(c, e->lhs, false);
        return;
    case EX_TUPLE:
    case EX_LIST: {
        int stars = 0;
        for (int i = 0; i < e->nitems; i++) {
            if (e->items[i]->kind == EX_STAR && ++stars == 2)
                parse_error(c, e->items[i]->loc, "multiple starred expressions in assignment");
            check_target(c, e->items[i], true);
        }
        return;
    }
    default: parse_error(c, e->loc, "cannot assign to %s", expr_what(e));
    }
}

static void check_value(ParseCtx *c, const Expr *e) {
    if (e && e->kind == EX_STAR) parse_error(c, e->loc, "can't use starred expression here");
}

/* ---- statements ---- */

static Stmt *new_stmt(ParseCtx *c, StmtKind kind, Loc loc) {
    Stmt *s = arena_alloc(c->arena, sizeof *s);
    s->kind = kind;
    s->loc = loc;
    return s;
}

static Block block_of(StmtVec *v) { return v ? (Block){v->v, v->n} : (Block){NULL, 0}; }

static int block_depth(const Block *b) {
    int d = 0;
    for (int i = 0; i < b->n; i++)
        if (b->stmts[i]->depth > d) d = b->stmts[i]->depth;
    return d;
}

/* s holds blocks a and b: it is one level deeper than their deepest statement. */
static void nest(ParseCtx *c, Stmt *s, const Block *a, const Block *b, const char *hint) {
    int da = block_depth(a), db = block_depth(b);
    s->depth = 1 + (da > db ? da : db);
    if (s->depth > MAX_BLOCKS)
        parse_error(c, s->loc, "too many nested blocks (limit %d%s)", MAX_BLOCKS, hint);
}

static void set_targets(ParseCtx *c, Stmt *s, Expr *t) {
    s->targets = arena_alloc(c->arena, sizeof *s->targets);
    s->targets[0] = t;
    s->ntargets = 1;
}

Stmt *ast_st_simple(ParseCtx *c, Loc loc, StmtKind kind) { return new_stmt(c, kind, loc); }

Stmt *ast_st_expr(ParseCtx *c, Loc loc, Expr *e) {
    Stmt *s = new_stmt(c, ST_EXPR, loc);
    s->value = e;
    check_value(c, e);
    return s;
}

Stmt *ast_st_assign(ParseCtx *c, Loc loc, ExprVec *chain) {
    Stmt *s = new_stmt(c, ST_ASSIGN, loc);
    s->targets = chain->v;
    s->ntargets = chain->n - 1;
    s->value = chain->v[chain->n - 1];
    for (int i = 0; i < s->ntargets; i++) check_target(c, s->targets[i], false);
    check_value(c, s->value);
    return s;
}

Stmt *ast_st_augassign(ParseCtx *c, Loc loc, Expr *target, int op, Expr *value) {
    Stmt *s = new_stmt(c, ST_AUGASSIGN, loc);
    s->op = op;
    set_targets(c, s, target);
    s->value = value;
    if (target->kind != EX_NAME && target->kind != EX_ATTR && target->kind != EX_SUBSCRIPT)
        parse_error(c, target->loc, "'%s' is an illegal expression for augmented assignment",
                    expr_what(target));
    check_value(c, value);
    return s;
}

Stmt *ast_st_annassign(ParseCtx *c, Loc loc, Expr *target, Ann ann, Expr *value) {
    Stmt *s = new_stmt(c, ST_ANNASSIGN, loc);
    set_targets(c, s, target);
    s->annotation = ann.text;
    s->value = value;
    if (target->kind == EX_TUPLE || target->kind == EX_LIST)
        parse_error(c, target->loc, "only single target (not %s) can be annotated",
                    expr_what(target));
    else if (target->kind != EX_NAME && target->kind != EX_ATTR && target->kind != EX_SUBSCRIPT)
        parse_error(c, target->loc, "illegal target for annotation");
    check_value(c, value);
    return s;
}

static Stmt *make_if(ParseCtx *c, Loc loc, Expr *cond, StmtVec *body, StmtVec *orelse,
                     bool chained) {
    Stmt *s = new_stmt(c, ST_IF, loc);
    s->cond = cond;
    s->body = block_of(body);
    s->orelse = block_of(orelse);
    nest(c, s, &s->body, &s->orelse, chained ? "; each 'elif' counts as one" : "");
    return s;
}

/* Each elif becomes an if alone in the else block of the one before, built from the
 * last backwards, with a loop: the chain is as long as the source makes it. */
Stmt *ast_st_if(ParseCtx *c, Loc loc, Expr *cond, StmtVec *body, ElifVec *elifs, StmtVec *orelse) {
    int n = elifs ? elifs->n : 0;
    for (int i = n - 1; i >= 0; i--) {
        Elif *e = &elifs->v[i];
        orelse = ast_sv_push(c, NULL, make_if(c, e->loc, e->cond, e->body, orelse, true));
    }
    return make_if(c, loc, cond, body, orelse, n > 0);
}

Stmt *ast_st_while(ParseCtx *c, Loc loc, Expr *cond, StmtVec *body, StmtVec *orelse) {
    Stmt *s = new_stmt(c, ST_WHILE, loc);
    s->cond = cond;
    s->body = block_of(body);
    if (orelse) parse_error(c, orelse->loc, "'else' clause on a 'while' loop is not supported");
    nest(c, s, &s->body, &s->orelse, "");
    return s;
}

Stmt *ast_st_for(ParseCtx *c, Loc loc, Expr *target, Expr *iter, StmtVec *body, StmtVec *orelse) {
    Stmt *s = new_stmt(c, ST_FOR, loc);
    set_targets(c, s, target);
    s->value = iter;
    s->body = block_of(body);
    s->orelse = block_of(orelse);
    check_target(c, target, false);
    check_value(c, iter);
    nest(c, s, &s->body, &s->orelse, "");
    return s;
}

Stmt *ast_st_with(ParseCtx *c, Loc loc, Expr *ctx_expr, Expr *target, StmtVec *body) {
    Stmt *s = new_stmt(c, ST_WITH, loc);
    s->value = ctx_expr;
    if (target) {
        set_targets(c, s, target);
        check_target(c, target, false);
    }
    s->body = block_of(body);
    nest(c, s, &s->body, &s->orelse, "");
    return s;
}

Stmt *ast_st_return(ParseCtx *c, Loc loc, Expr *value) {
    Stmt *s = new_stmt(c, ST_RETURN, loc);
    s->value = value;
    check_value(c, value);
    return s;
}

Stmt *ast_st_assert(ParseCtx *c, Loc loc, Expr *cond, Expr *msg) {
    Stmt *s = new_stmt(c, ST_ASSERT, loc);
    s->cond = cond;
    s->value = msg;
    return s;
}

Stmt *ast_st_raise(ParseCtx *c, Loc loc, Expr *exc, Expr *cause) {
    Stmt *s = new_stmt(c, ST_RAISE, loc);
    s->value = exc;
    s->cond = cause;
    return s;
}

Stmt *ast_st_import(ParseCtx *c, Loc loc, NameVec *from, ExprVec *names) {
    Stmt *s = new_stmt(c, ST_IMPORT, loc);
    if (from) s->value = ast_ex_name(c, loc, join_dotted(c, from));
    s->targets = names->v;
    s->ntargets = names->n;
    return s;
}

Stmt *ast_st_global(ParseCtx *c, Loc loc, bool nonlocal, ExprVec *names) {
    Stmt *s = new_stmt(c, ST_GLOBAL, loc);
    s->op = nonlocal;
    s->targets = names->v;
    s->ntargets = names->n;
    return s;
}

Stmt *ast_st_def(ParseCtx *c, Func *f) {
    Stmt *s = new_stmt(c, ST_DEF, f->loc);
    s->func = f;
    nest(c, s, &f->body, &s->orelse, "");
    return s;
}

static void check_params(ParseCtx *c, const Param *p, int n) {
    const char **names = arena_alloc(c->arena, sizeof *names * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        names[i] = p[i].name;
        if (i && p[i - 1].default_value && !p[i].default_value)
            parse_error(c, p[i].loc, "non-default argument follows default argument");
    }
    int rep = first_repeat(c, names, n);
    if (rep >= 0)
        parse_error(c, p[rep].loc, "duplicate argument '%s' in function definition", p[rep].name);
}

Func *ast_func(ParseCtx *c, Loc loc, const char *name, ParamVec *params, StmtVec *body) {
    Func *f = arena_alloc(c->arena, sizeof *f);
    f->name = name;
    f->loc = loc;
    if (params) {
        f->params = params->v;
        f->nparams = params->n;
    }
    f->body = block_of(body);
    check_params(c, f->params, f->nparams);
    return f;
}

Func *ast_func_decorate(ParseCtx *c, Func *f, ExprVec *decorators) {
    (void)c;
    f->decorators = decorators->v;
    f->ndecorators = decorators->n;
    return f;
}

void ast_module_add(ParseCtx *c, StmtVec *stmts) {
    Module *m = c->module;
    for (int i = 0; i < stmts->n; i++) {
        Stmt *s = stmts->v[i];
        if (s->kind == ST_DEF) VEC_PUSH(c->arena, m->funcs, m->nfuncs, c->funcs_cap, s->func);
        else VEC_PUSH(c->arena, m->globals, m->nglobals, c->globals_cap, s);
    }
}

/* ---- spellings ---- */

const char *ast_binop_spelling(int op) {
    static const char *const s[] = {
        [BIN_ADD] = "+",       [BIN_SUB] = "-",     [BIN_MUL] = "*",  [BIN_DIV] = "/",
        [BIN_FLOORDIV] = "//", [BIN_MOD] = "%",     [BIN_POW] = "**", [BIN_MATMUL] = "@",
        [BIN_LSHIFT] = "<<",   [BIN_RSHIFT] = ">>", [BIN_AND] = "&",  [BIN_OR] = "|",
        [BIN_XOR] = "^",
    };
    return op >= 0 && op < (int)(sizeof s / sizeof s[0]) ? s[op] : "?";
}

const char *ast_cmpop_spelling(int op) {
    static const char *const s[] = {
        [CMP_EQ] = "==", [CMP_NE] = "!=",        [CMP_LT] = "<",  [CMP_LE] = "<=",
        [CMP_GT] = ">",  [CMP_GE] = ">=",        [CMP_IS] = "is", [CMP_ISNOT] = "is not",
        [CMP_IN] = "in", [CMP_NOTIN] = "not in",
    };
    return op >= 0 && op < (int)(sizeof s / sizeof s[0]) ? s[op] : "?";
}

static const char *unop_spelling(int op) {
    switch (op) {
    case UN_NEG: return "-";
    case UN_POS: return "+";
    case UN_INVERT: return "~";
    case UN_NOT: return "not";
    default: return "?";
    }
}

/* ---- printing ---- */

typedef struct {
    StrBuf *out;
} Printer;

static void line_start(Printer *p, int ind, const char *role) {
    for (int i = 0; i < ind; i++) sb_puts(p->out, "  ");
    if (role) sb_printf(p->out, "%s ", role);
}

static void put_escaped(StrBuf *sb, const char *s, size_t n) {
    sb_putc(sb, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') sb_printf(sb, "\\%c", ch);
        else if (ch == '\n') sb_puts(sb, "\\n");
        else if (ch == '\t') sb_puts(sb, "\\t");
        else if (ch == '\r') sb_puts(sb, "\\r");
        else if (ch < 32 || ch >= 127) sb_printf(sb, "\\x%02x", ch);
        else sb_putc(sb, (char)ch);
    }
    sb_putc(sb, '"');
}

static void print_expr(Printer *p, int ind, const char *role, const Expr *e);

static void print_exprs(Printer *p, int ind, Expr *const *v, int n) {
    for (int i = 0; i < n; i++) print_expr(p, ind, NULL, v[i]);
}

/* The node's own line, without its children. */
static void expr_head(StrBuf *sb, const Expr *e) {
    switch (e->kind) {
    case EX_NAME: sb_printf(sb, "name %s", e->name); break;
    case EX_INT:
        if (e->is_big) sb_printf(sb, "int %llu", (unsigned long long)e->uval);
        else sb_printf(sb, "int %lld", (long long)e->ival);
        break;
    case EX_FLOAT: sb_printf(sb, "float %.17g", e->fval); break;
    case EX_STR:
        sb_puts(sb, "str ");
        put_escaped(sb, e->sval, e->slen);
        break;
    case EX_TRUE: sb_puts(sb, "True"); break;
    case EX_FALSE: sb_puts(sb, "False"); break;
    case EX_NONE: sb_puts(sb, "None"); break;
    case EX_BINOP: sb_printf(sb, "binop %s", ast_binop_spelling(e->op)); break;
    case EX_UNOP: sb_printf(sb, "unop %s", unop_spelling(e->op)); break;
    case EX_CMP:
        sb_puts(sb, "cmp");
        for (int i = 0; i + 1 < e->nitems; i++)
            sb_printf(sb, "%s %s", i ? "," : "", ast_cmpop_spelling(e->ops[i]));
        break;
    case EX_BOOLOP: sb_puts(sb, e->op == BOOL_AND ? "boolop and" : "boolop or"); break;
    case EX_CALL: sb_puts(sb, "call"); break;
    case EX_ATTR: sb_printf(sb, "attr %s", e->name); break;
    case EX_SUBSCRIPT: sb_puts(sb, "subscript"); break;
    case EX_SLICE:
        sb_printf(sb, "slice%s%s%s", e->lhs ? " lower" : "", e->rhs ? " upper" : "",
                  e->third ? " step" : "");
        break;
    case EX_TUPLE: sb_puts(sb, "tuple"); break;
    case EX_LIST: sb_puts(sb, "list"); break;
    case EX_IFEXP: sb_puts(sb, "ifexp"); break;
    case EX_STAR: sb_puts(sb, "star"); break;
    case EX_LISTCOMP: sb_puts(sb, "listcomp"); break;
    case EX_COMPFOR: sb_puts(sb, "for"); break;
    case EX_COMPIF: sb_puts(sb, "if"); break;
    case EX_FSTRING:
        sb_puts(sb, "fstring");
        for (int i = 0; i < e->nitems; i++)
            if (e->ops[i]) sb_printf(sb, " !%c", e->ops[i]);
        break;
    }
}

static void print_expr(Printer *p, int ind, const char *role, const Expr *e) {
    line_start(p, ind, role);
    expr_head(p->out, e);
    sb_putc(p->out, '\n');
    switch (e->kind) {
    case EX_BINOP:
        print_expr(p, ind + 1, NULL, e->lhs);
        print_expr(p, ind + 1, NULL, e->rhs);
        break;
    case EX_UNOP:
    case EX_ATTR:
    case EX_STAR: print_expr(p, ind + 1, NULL, e->lhs); break;
    case EX_CMP:
    case EX_BOOLOP:
    case EX_TUPLE:
    case EX_FSTRING:
    case EX_LIST: print_exprs(p, ind + 1, e->items, e->nitems); break;
    case EX_CALL:
        print_expr(p, ind + 1, NULL, e->lhs);
        print_exprs(p, ind + 1, e->items, e->nitems);
        for (int i = 0; i < e->nkw; i++) {
            line_start(p, ind + 1, NULL);
            sb_printf(p->out, "kw %s\n", e->kwnames[i]);
            print_expr(p, ind + 2, NULL, e->kwvalues[i]);
        }
        break;
    case EX_SUBSCRIPT:
        print_expr(p, ind + 1, NULL, e->lhs);
        print_exprs(p, ind + 1, e->items, e->nitems);
        break;
    case EX_SLICE:
        if (e->lhs) print_expr(p, ind + 1, NULL, e->lhs);
        if (e->rhs) print_expr(p, ind + 1, NULL, e->rhs);
        if (e->third) print_expr(p, ind + 1, NULL, e->third);
        break;
    case EX_IFEXP:
        print_expr(p, ind + 1, "then", e->lhs);
        print_expr(p, ind + 1, "cond", e->items[0]);
        print_expr(p, ind + 1, "else", e->rhs);
        break;
    case EX_LISTCOMP:
        print_expr(p, ind + 1, "elt", e->lhs);
        print_exprs(p, ind + 1, e->items, e->nitems);
        break;
    case EX_COMPFOR:
        print_expr(p, ind + 1, "target", e->lhs);
        print_expr(p, ind + 1, "in", e->rhs);
        break;
    case EX_COMPIF: print_expr(p, ind + 1, NULL, e->lhs); break;
    default: break;
    }
}

static void print_stmt(Printer *p, int ind, const Stmt *s);
static void print_func(Printer *p, int ind, const Func *f);

static void print_block(Printer *p, int ind, const char *label, const Block *b) {
    line_start(p, ind, NULL);
    sb_printf(p->out, "%s\n", label);
    for (int i = 0; i < b->n; i++) print_stmt(p, ind + 1, b->stmts[i]);
}

static void print_import(Printer *p, const Stmt *s) {
    if (s->value) sb_printf(p->out, "from %s ", s->value->name);
    sb_puts(p->out, "import");
    for (int i = 0; i < s->ntargets; i++) {
        const Expr *t = s->targets[i];
        sb_printf(p->out, "%s %s", i ? "," : "", t->name);
        if (t->sval) sb_printf(p->out, " as %s", t->sval);
    }
    sb_putc(p->out, '\n');
}

static const char *stmt_word(const Stmt *s) {
    static const char *const w[] = {
        [ST_EXPR] = "expr",
        [ST_ASSIGN] = "assign",
        [ST_AUGASSIGN] = "augassign",
        [ST_ANNASSIGN] = "annassign",
        [ST_IF] = "if",
        [ST_FOR] = "for",
        [ST_WHILE] = "while",
        [ST_RETURN] = "return",
        [ST_PASS] = "pass",
        [ST_BREAK] = "break",
        [ST_CONTINUE] = "continue",
        [ST_ASSERT] = "assert",
        [ST_DEF] = "def",
        [ST_IMPORT] = "import",
        [ST_GLOBAL] = "global",
        [ST_WITH] = "with",
        [ST_RAISE] = "raise",
    };
    if (s->kind == ST_GLOBAL && s->op) return "nonlocal";
    return w[s->kind];
}

static void print_stmt(Printer *p, int ind, const Stmt *s) {
    if (s->kind == ST_DEF) {
        print_func(p, ind, s->func);
        return;
    }
    line_start(p, ind, NULL);
    if (s->kind == ST_IMPORT) {
        print_import(p, s);
        return;
    }
    sb_puts(p->out, stmt_word(s));
    if (s->kind == ST_AUGASSIGN) sb_printf(p->out, " %s=", ast_binop_spelling(s->op));
    if (s->kind == ST_ANNASSIGN) sb_printf(p->out, " %s", s->annotation);
    if (s->kind == ST_GLOBAL)
        for (int i = 0; i < s->ntargets; i++) sb_printf(p->out, " %s", s->targets[i]->name);
    sb_putc(p->out, '\n');
    if (s->kind == ST_GLOBAL) return;
    if (s->cond) print_expr(p, ind + 1, NULL, s->cond);
    if (s->kind == ST_WITH && s->value) print_expr(p, ind + 1, NULL, s->value);
    for (int i = 0; i < s->ntargets; i++) print_expr(p, ind + 1, "target", s->targets[i]);
    if (s->kind != ST_WITH && s->value) print_expr(p, ind + 1, NULL, s->value);
    if (s->kind == ST_IF || s->kind == ST_FOR || s->kind == ST_WHILE || s->kind == ST_WITH)
        print_block(p, ind + 1, "body", &s->body);
    if (s->orelse.n) print_block(p, ind + 1, "else", &s->orelse);
}

static void print_func(Printer *p, int ind, const Func *f) {
    line_start(p, ind, NULL);
    sb_printf(p->out, "func %s\n", f->name);
    for (int i = 0; i < f->ndecorators; i++) print_expr(p, ind + 1, "decorator", f->decorators[i]);
    for (int i = 0; i < f->nparams; i++) {
        const Param *pa = &f->params[i];
        line_start(p, ind + 1, NULL);
        sb_printf(p->out, "param %s", pa->name);
        if (pa->annotation) sb_printf(p->out, ": %s", pa->annotation);
        sb_putc(p->out, '\n');
        if (pa->default_value) print_expr(p, ind + 2, "default", pa->default_value);
    }
    print_block(p, ind + 1, "body", &f->body);
}

static bool loc_before(Loc a, Loc b) {
    return a.line < b.line || (a.line == b.line && a.col < b.col);
}

/* Functions and module-level statements are kept apart; print them interleaved in
 * source order. */
void ast_print(StrBuf *out, const Module *m) {
    Printer p = {out};
    sb_puts(out, "module\n");
    int f = 0, g = 0;
    while (f < m->nfuncs || g < m->nglobals) {
        if (g >= m->nglobals || (f < m->nfuncs && loc_before(m->funcs[f]->loc, m->globals[g]->loc)))
            print_func(&p, 1, m->funcs[f++]);
        else print_stmt(&p, 1, m->globals[g++]);
    }
}
