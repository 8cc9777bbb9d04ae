/* parse_ctx.h - what the front end's four parts share, private to lang/: the parse
 * context (lexer state, token pipeline, first-error flag), the semantic value type the
 * grammar passes around, the token record, and the builder functions (ast.c) and token
 * decoders (parse.c) that grammar and lexer actions call.
 *
 * It does not include the generated parser.h: bison's %code requires includes this file,
 * so everything here must be complete without the token codes. */
#ifndef NEREID_PARSE_CTX_H
#define NEREID_PARSE_CTX_H

#include "ast.h"

enum {
    MAX_BRACKETS = 200,        /* open ( [ { at once */
    MAX_BLOCKS = 100,          /* indentation levels; also statement nesting (elif counts) */
    MAX_EXPR_DEPTH = 1000,     /* height of any expression tree */
    TOKQ_CAP = MAX_BLOCKS + 8, /* NEWLINE + every DEDENT + the token they precede */
};

/* ---- growable lists the grammar builds left-recursively (arena-backed) ---- */
typedef struct ExprVec {
    Expr **v;
    int n, cap;
} ExprVec;
typedef struct StmtVec {
    Stmt **v;
    int n, cap;
    Loc loc;
} StmtVec; /* loc: 'else' of an else-part */
typedef struct ParamVec {
    Param *v;
    int n, cap;
} ParamVec;
typedef struct NameVec {
    const char **v;
    int n, cap;
    size_t len;
} NameVec; /* dotted name */
typedef struct Elif {
    Loc loc;
    Expr *cond;
    StmtVec *body;
} Elif;
typedef struct ElifVec {
    Elif *v;
    int n, cap;
} ElifVec;
typedef struct Arg {
    const char *kw;
    Loc loc;
    Expr *value;
} Arg; /* kw NULL: positional */
typedef struct Args {
    ExprVec pos;
    const char **kwn;
    Expr **kwv;
    Loc *kwloc;
    int nkw, kwcap;
    Loc first_kw;
} Args;
typedef struct Ann {
    const char *text;
    Loc loc;
} Ann;

/* The grammar's semantic value (bison's api.value.type). */
typedef union SemVal {
    Expr *expr;
    Stmt *stmt;
    Func *func;
    const char *str;
    int op;
    ExprVec *exprs;
    StmtVec *stmts;
    ParamVec *params;
    NameVec *names;
    ElifVec *elifs;
    Args *args;
    Arg arg;
    Ann ann;
    Param param;
} SemVal;

/* One token as the pipeline carries it from flex to bison. */
typedef struct Token {
    int kind; /* bison token code */
    SemVal val;
    Loc loc;
    const char *text; /* spelling (into the scan buffer) for names, numbers, operators */
    int len;
    int depth;         /* bracket depth before this token */
    bool bol;          /* first real token of a logical line */
    bool at_eof;       /* the NEWLINE synthesised at end of file */
    bool colon_before; /* a ':' outside brackets came earlier on this logical line */
} Token;

typedef struct ParseCtx {
    Arena *arena;
    Diag *diag;
    const Source *src;
    void *scanner; /* flex's yyscan_t */
    bool failed;   /* an error was reported: every later token is an error token */
    Module *module;
    int funcs_cap, globals_cap;

    /* raw lexer position: where the next byte of the scan buffer lies */
    Loc pos;
    Loc last_end; /* just past the last real token: where NEWLINE is reported */
    bool eof;

    /* indentation */
    int indents[MAX_BLOCKS + 1];
    int alt_indents[MAX_BLOCKS + 1]; /* the same levels with a tab counted as 1 column */
    int nindents;
    bool at_bol;    /* a newline was seen: the next token starts a logical line */
    int bol_indent; /* that line's indentation width (tabs to multiples of 8) */
    int bol_alt;    /* ... with a tab counted as one column (Python's TabError check) */
    bool line_has_tokens;
    bool line_colon; /* a ':' outside brackets was seen on this logical line */
    int deco; /* where a decorator's dotted name is: 0 none, 1 after '@', 2 after a name, 3 after
                 '.' */
    bool lenient; /* skipping a decorator's arguments: any Python tokens, dicts too */

    /* brackets */
    char brackets[MAX_BRACKETS];
    Loc bracket_locs[MAX_BRACKETS];
    int depth;

    /* token pipeline: queue of synthesised tokens, one token of string lookahead */
    Token q[TOKQ_CAP];
    int qhead, qlen;
    Token peek;
    bool has_peek;
    StrBuf scratch; /* adjacent string literals are joined here */

    /* for error messages */
    Token la;       /* the token last handed to the parser */
    Token hdr;      /* first token of the current logical line */
    Token prev_hdr; /* ... and of the one before */
} ParseCtx;

/* ---- parse.c: errors and token decoding ---- */
/* Report an error unless one was already reported; the parse then stops. */
void parse_error(ParseCtx *c, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, returning the token code the lexer hands bison to make it stop. */
int lex_error(ParseCtx *c, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int lex_int(ParseCtx *c, SemVal *val, Loc loc, const char *text, int len, int base);
int lex_float(ParseCtx *c, SemVal *val, Loc loc, const char *text, int len);
int lex_string_literal(ParseCtx *c, SemVal *val, Loc loc, const char *text, int len);
int lex_bad_number(ParseCtx *c, Loc loc, const char *text, int len);
int lex_bad_char(ParseCtx *c, Loc loc, unsigned char ch);
/* 0 if text is well-formed UTF-8, else the error token (reported as "in <what>"). */
int lex_check_utf8(ParseCtx *c, Loc loc, const char *text, int len, const char *what);
/* Compose a syntax error from the lookahead and the tokens the parser expected
 * (bison symbol names, as yysymbol_name gives them). */
void parse_syntax_error(ParseCtx *c, Loc loc, const char *la_name, const char *const *expected,
                        int n);
Loc lex_loc_advance(Loc loc, const char *text, size_t n);

/* ---- ast.c: builders the grammar actions call (all allocate in c->arena) ---- */
Expr *ast_new_expr(ParseCtx *c, ExprKind kind, Loc loc);
Expr *ast_ex_name(ParseCtx *c, Loc loc, const char *name);
Expr *ast_ex_const(ParseCtx *c, Loc loc, ExprKind kind);
Expr *ast_ex_str(ParseCtx *c, Loc loc, const char *s, size_t n);
/* An f-string's parts as they are gathered: literal EX_STRs (conv 0) and replacement
 * fields' expressions (conv their conversion), in the arena. */
typedef struct FParts {
    Expr **parts;
    int *convs;
    int n, cap;
} FParts;
/* Append e: with conv 0 (joining adjacent literals) an f-string's parts, or a plain
 * literal as one part; else the replacement field e, whole, with conversion conv. */
void ast_fparts_add(ParseCtx *c, FParts *f, Expr *e, int conv);
/* The f-string of f's parts. */
Expr *ast_ex_fstring(ParseCtx *c, Loc loc, const FParts *f);
Expr *ast_ex_binop(ParseCtx *c, Loc loc, int op, Expr *l, Expr *r);
Expr *ast_ex_unop(ParseCtx *c, Loc loc, int op, Expr *e);
Expr *ast_ex_cmp(ParseCtx *c, Loc loc, Expr *l, int op, Expr *r);
Expr *ast_ex_cmp_push(ParseCtx *c, Expr *chain, int op, Expr *r);
Expr *ast_ex_bool(ParseCtx *c, Loc loc, int op, Expr *l, Expr *r);
Expr *ast_ex_bool_push(ParseCtx *c, Expr *chain, Expr *r);
Expr *ast_ex_ifexp(ParseCtx *c, Loc loc, Expr *then, Expr *cond, Expr *orelse);
Expr *ast_ex_call(ParseCtx *c, Loc loc, Expr *callee, Args *args);
Expr *ast_ex_attr(ParseCtx *c, Loc loc, Expr *obj, const char *name);
Expr *ast_ex_subscript(ParseCtx *c, Loc loc, Expr *obj, ExprVec *idx);
Expr *ast_ex_slice(ParseCtx *c, Loc loc, Expr *lo, Expr *hi, Expr *step);
Expr *ast_ex_tuple(ParseCtx *c, Loc loc, ExprVec *items);
Expr *ast_ex_list(ParseCtx *c, Loc loc, ExprVec *items);
Expr *ast_ex_listcomp(ParseCtx *c, Loc loc, Expr *elt, ExprVec *clauses);
Expr *ast_ex_compfor(ParseCtx *c, Loc loc, Expr *target, Expr *iter);
Expr *ast_ex_compif(ParseCtx *c, Loc loc, Expr *cond);
Expr *ast_ex_seq(ParseCtx *c, Loc loc, ExprVec *items, bool trailing_comma);
Expr *ast_ex_star(ParseCtx *c, Loc loc, Expr *e);
Expr *ast_ex_import_name(ParseCtx *c, Loc loc, NameVec *dotted, const char *alias);

ExprVec *ast_ev_push(ParseCtx *c, ExprVec *v, Expr *e); /* v NULL: a new list */
StmtVec *ast_sv_push(ParseCtx *c, StmtVec *v, Stmt *s);
StmtVec *ast_sv_concat(ParseCtx *c, StmtVec *a, StmtVec *b);
StmtVec *ast_sv_else(ParseCtx *c, Loc loc, StmtVec *body);
ParamVec *ast_pv_push(ParseCtx *c, ParamVec *v, Param p);
NameVec *ast_nv_push(ParseCtx *c, NameVec *v, const char *name);
ElifVec *ast_elif_push(ParseCtx *c, ElifVec *v, Loc loc, Expr *cond, StmtVec *body);
Args *ast_args_push(ParseCtx *c, Args *a, Arg arg);
Arg ast_arg_pos(Loc loc, Expr *e);
Arg ast_arg_kw(Loc loc, const char *name, Expr *value);

Ann ast_ann_star(ParseCtx *c, Loc loc, NameVec *dotted);
Ann ast_ann_dotted(ParseCtx *c, Loc loc, NameVec *dotted);
Ann ast_ann_string(ParseCtx *c, Loc loc, Expr *s);
Ann ast_ann_union(ParseCtx *c, Ann a, NameVec *dotted);
Param ast_param(Loc loc, const char *name, const Ann *ann, Expr *def);

Stmt *ast_st_simple(ParseCtx *c, Loc loc, StmtKind kind);
Stmt *ast_st_expr(ParseCtx *c, Loc loc, Expr *e);
Stmt *ast_st_assign(ParseCtx *c, Loc loc, ExprVec *chain);
Stmt *ast_st_augassign(ParseCtx *c, Loc loc, Expr *target, int op, Expr *value);
Stmt *ast_st_annassign(ParseCtx *c, Loc loc, Expr *target, Ann ann, Expr *value);
Stmt *ast_st_if(ParseCtx *c, Loc loc, Expr *cond, StmtVec *body, ElifVec *elifs, StmtVec *orelse);
Stmt *ast_st_while(ParseCtx *c, Loc loc, Expr *cond, StmtVec *body, StmtVec *orelse);
Stmt *ast_st_for(ParseCtx *c, Loc loc, Expr *target, Expr *iter, StmtVec *body, StmtVec *orelse);
Stmt *ast_st_with(ParseCtx *c, Loc loc, Expr *ctx_expr, Expr *target, StmtVec *body);
Stmt *ast_st_return(ParseCtx *c, Loc loc, Expr *value);
Stmt *ast_st_assert(ParseCtx *c, Loc loc, Expr *cond, Expr *msg);
Stmt *ast_st_raise(ParseCtx *c, Loc loc, Expr *exc, Expr *cause);
Stmt *ast_st_import(ParseCtx *c, Loc loc, NameVec *from, ExprVec *names);
Stmt *ast_st_global(ParseCtx *c, Loc loc, bool nonlocal, ExprVec *names);
Stmt *ast_st_def(ParseCtx *c, Func *f);
Func *ast_func(ParseCtx *c, Loc loc, const char *name, ParamVec *params, StmtVec *body);
Func *ast_func_decorate(ParseCtx *c, Func *f, ExprVec *decorators);
void ast_module_add(ParseCtx *c, StmtVec *stmts);

#endif
