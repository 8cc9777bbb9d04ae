/* ast.h - the syntax tree the parser builds and semantic analysis walks.
 *
 * It mirrors the Python subset Triton kernels are written in: a module of functions and
 * module-level constants, statements with indentation-delimited blocks, and expressions.
 * Every node carries its location. All nodes live in the compilation's arena. Nothing
 * here is typed: types, shapes and constexpr values are decided by sema, which knows
 * the values constexpr parameters take for each specialisation.
 *
 * Locations (1-based line, 1-based byte column) are those of a node's first token, except:
 * EX_BINOP, EX_CMP, EX_BOOLOP: the (first) operator; EX_IFEXP: the 'if'; EX_ATTR: the
 * attribute name after the '.'; EX_SUBSCRIPT: the '['; EX_SLICE: its first ':'. EX_CALL
 * is at the start of the callee (the first token of the whole call). A parenthesised
 * tuple is at its '(', a list comprehension at its '[', its clauses at their 'for' or
 * 'if'. Func.loc and an ST_DEF's loc are the 'def' keyword (decorators come
 * before it). Param.loc is the name, Param.ann_loc the annotation's first token.
 *
 * Bounds the parser guarantees, so recursive walkers need no guards of their own: every
 * expression tree is at most 1000 high (Expr.depth), statements nest at most 100 deep
 * (Stmt.depth; an elif counts as a level, since it is an if inside an else). */
#ifndef NEREID_AST_H
#define NEREID_AST_H

#include "compiler/support/support.h"

typedef struct Expr Expr;
typedef struct Stmt Stmt;

typedef enum {
    EX_NAME,  /* name */
    EX_INT,   /* ival (literal > INT64_MAX: is_big set, uval holds it) */
    EX_FLOAT, /* fval */
    EX_STR,   /* sval (escapes decoded; adjacent literals concatenated) */
    EX_TRUE,
    EX_FALSE,
    EX_NONE,
    EX_BINOP,     /* op (BIN_*), lhs, rhs */
    EX_UNOP,      /* op (UN_*), operand in lhs */
    EX_CMP,       /* chained comparison: ops[i] between items[i] and items[i+1] */
    EX_BOOLOP,    /* op BOOL_AND / BOOL_OR over items (n >= 2) */
    EX_CALL,      /* lhs = callee, items = positional args, kwnames/kwvalues keyword args */
    EX_ATTR,      /* lhs.name */
    EX_SUBSCRIPT, /* lhs[items...] (items: indices; a slice is EX_SLICE) */
    EX_SLICE,     /* a:b:c inside a subscript; lhs/rhs/third may be NULL (":" alone) */
    EX_TUPLE,     /* (a, b) or a, b */
    EX_LIST,      /* [a, b] */
    EX_IFEXP,     /* lhs if cond else rhs: items[0]=cond, lhs=then value, rhs=else value */
    EX_STAR,      /* *e in call arguments or assignment targets: lhs */
    EX_LISTCOMP,  /* [lhs for ...]: items = the clauses in order, EX_COMPFOR and EX_COMPIF */
    EX_COMPFOR,   /* a comprehension's 'for lhs in rhs' (lhs: a target, as a for loop's) */
    EX_COMPIF,    /* a comprehension's 'if lhs' */
    EX_FSTRING,   /* f"...": items = the parts in order, ops[i] = 0 for a literal part
                     (items[i] an EX_STR), else the replacement field's conversion ('s',
                     'r', 'a'; 'n' for none): items[i] is its expression */
} ExprKind;

typedef enum {
    BIN_ADD,
    BIN_SUB,
    BIN_MUL,
    BIN_DIV,
    BIN_FLOORDIV,
    BIN_MOD,
    BIN_POW,
    BIN_MATMUL,
    BIN_LSHIFT,
    BIN_RSHIFT,
    BIN_AND,
    BIN_OR,
    BIN_XOR,
} BinOp;

typedef enum { UN_NEG, UN_POS, UN_INVERT, UN_NOT } UnOp;

typedef enum {
    CMP_EQ,
    CMP_NE,
    CMP_LT,
    CMP_LE,
    CMP_GT,
    CMP_GE,
    CMP_IS,
    CMP_ISNOT,
    CMP_IN,
    CMP_NOTIN
} CmpOp;

typedef enum { BOOL_AND, BOOL_OR } BoolOp;

struct Expr {
    ExprKind kind;
    Loc loc;
    int op;           /* BinOp / UnOp / BoolOp */
    const char *name; /* EX_NAME, EX_ATTR */
    int64_t ival;     /* EX_INT */
    uint64_t uval;    /* EX_INT when is_big */
    bool is_big;
    double fval;      /* EX_FLOAT */
    const char *sval; /* EX_STR */
    size_t slen;      /* EX_STR length (may contain NUL) */
    Expr *lhs, *rhs, *third;
    Expr **items; /* EX_CMP, EX_BOOLOP, EX_CALL args, EX_SUBSCRIPT, EX_TUPLE, EX_LIST, EX_IFEXP */
    int nitems;
    int *ops;             /* EX_CMP: nitems-1 CmpOps; EX_FSTRING: nitems conversions */
    const char **kwnames; /* EX_CALL */
    Expr **kwvalues;
    int nkw;
    int depth; /* height of this subtree (a leaf is 1); the parser keeps it <= 1000 */
};

typedef enum {
    ST_EXPR,      /* value (docstrings are ST_EXPR of EX_STR) */
    ST_ASSIGN,    /* targets[0..ntargets) = value; a chain a = b = v has ntargets 2;
                     each target is EX_NAME, EX_TUPLE/EX_LIST of targets, EX_SUBSCRIPT or EX_ATTR
                     (the last two are rejected by sema) */
    ST_AUGASSIGN, /* targets[0] op= value (op: BinOp) */
    ST_ANNASSIGN, /* targets[0]: annotation = value (value may be NULL) */
    ST_IF,        /* cond: body, else orelse (an elif is an ST_IF alone in orelse) */
    ST_FOR,       /* for targets[0] in value: body (orelse holds a for-else, rejected) */
    ST_WHILE,     /* while cond: body (a while-else is a parse error) */
    ST_RETURN,    /* value may be NULL; "return a, b" gives an EX_TUPLE */
    ST_PASS,
    ST_BREAK,
    ST_CONTINUE,
    ST_ASSERT, /* assert cond[, value] */
    ST_DEF,    /* nested def: func (rejected by sema) */
    ST_IMPORT, /* import / from-import: ignored by sema apart from its location.
                  targets: one EX_NAME per imported name, name = the dotted name as
                  written ("triton.language", or "*"), sval = its 'as' alias or NULL;
                  value: EX_NAME of the module for "from M import ...", else NULL */
    ST_GLOBAL, /* global/nonlocal (rejected): targets are EX_NAMEs; op 1 for nonlocal */
    ST_WITH,   /* with value [as targets[0]]: body (rejected; one item only) */
    ST_RAISE,  /* raise [value [from cond]]: an error where sema reaches it */
} StmtKind;

typedef struct Block {
    Stmt **stmts;
    int n;
} Block;

typedef struct Func Func;

struct Stmt {
    StmtKind kind;
    Loc loc;
    Expr **targets;
    int ntargets;
    int op; /* ST_AUGASSIGN */
    Expr *value;
    Expr *cond;
    const char *annotation; /* ST_ANNASSIGN, normalised like Param.annotation */
    Block body, orelse;
    Func *func; /* ST_DEF */
    int depth;  /* block nesting below this statement (simple: 0); parser keeps <= 100 */
};

typedef struct Param {
    const char *name;
    Loc loc;
    /* NULL (untyped: the function is a generic helper), "constexpr" (tl.constexpr,
     * triton.language.constexpr, constexpr), or a Triton signature type written bare or
     * as a string: "*fp32", "i32", "fp16", "*i1"... (the text, spaces removed). */
    const char *annotation;
    Loc ann_loc;
    Expr *default_value; /* NULL if none */
} Param;

struct Func {
    const char *name;
    Loc loc;
    Param *params;
    int nparams;
    Expr **decorators; /* as written: triton.jit, jit, triton.jit(...), ... */
    int ndecorators;
    Block body;
};

typedef struct Module {
    const Source *src;
    Func **funcs; /* in source order */
    int nfuncs;
    Stmt **globals; /* module-level statements other than defs: assignments of
                       constants (NAME = expr, NAME: tl.constexpr = expr), imports,
                       docstrings; sema rejects anything else */
    int nglobals;
} Module;

/* Parse a source file into a module. Errors go to diag with locations; returns NULL if
 * any error was reported. Nesting is bounded (brackets 200, blocks 100) so hostile
 * input cannot exhaust the stack. */
Module *lang_parse_module(Arena *arena, Diag *diag, const Source *src);

/* A Python file's kernels (py_kernels.c): src with every top-level statement blanked but
 * imports, assignments to a name that parse, docstrings and functions with a jit
 * decorator, and the first imports of an if/try made of imports (moved to column 0); the
 * same length and lines, the same columns but on those import lines. In arena. */
Source lang_py_kernels(Arena *arena, const Source *src);
/* Is name a Python file's (".py"), which the CLI and nr_compile_file read through
 * lang_py_kernels? */
bool lang_is_python_path(const char *name);

/* Print the AST in a stable indented form (the CLI's --emit=ast). */
void ast_print(StrBuf *out, const Module *m);

const char *ast_binop_spelling(int op); /* "+", "//", ... */
const char *ast_cmpop_spelling(int op);

#endif
