/* pyexpr.h - the Python expressions of decorator arguments: a reader and an evaluator.
 *
 * The kernel grammar skips a decorator's arguments (lexer.l); @triton.autotune and
 * @triton.heuristics carry Python the tuner must understand: lists of triton.Config,
 * dicts, comprehensions, and lambdas that the runtime calls with the launch arguments.
 * This file reads that Python straight from the source text (its own small tokenizer and
 * recursive-descent parser for the expression grammar) and evaluates it: None, bools,
 * 64-bit ints, floats, strings, lists, tuples, dicts, lambdas, comprehensions,
 * conditional expressions, the operators, calls of a few builtins (min, max, len, abs,
 * int, float, bool, str, range, list, tuple, sum, any, all, sorted, enumerate, zip, dict,
 * round), triton.Config, triton.cdiv, triton.next_power_of_2, math.ceil/floor/log2/sqrt.
 * Anything else is a located error ("cannot evaluate ..."), never a crash: evaluation
 * is bounded in depth and in steps.
 *
 * Everything lives in the caller's arena. Errors longjmp to the innermost py_try. */
#ifndef NEREID_PYEXPR_H
#define NEREID_PYEXPR_H

#include <setjmp.h>

#include "compiler/support/support.h"

typedef struct PyNode PyNode;
typedef struct PyEnv PyEnv;
typedef struct PyVal PyVal;

typedef enum {
    PV_NONE,
    PV_BOOL,
    PV_INT,
    PV_FLOAT,
    PV_STR,
    PV_LIST,
    PV_TUPLE,
    PV_DICT,
    PV_FUNC,    /* a lambda and its closure */
    PV_BUILTIN, /* a builtin function (py_builtin_name) */
    PV_MODULE,  /* triton, triton.language, math, nereid: attributes only */
    PV_CONFIG,  /* triton.Config */
    PV_OPAQUE,  /* a host value the evaluator only carries (a pointer argument) */
    PV_METHOD,  /* a bound method of a builtin type: dict.get, str.startswith, ... */
} PyKind;

typedef struct PySeq {
    int n;
    PyVal *v;
} PySeq;

typedef struct PyDict {
    int n;
    PyVal *keys, *vals;
} PyDict;

typedef struct PyConfig {
    PyDict *kwargs; /* constexpr name -> value */
    int num_warps, num_stages, num_ctas;
    int index; /* position in the autotune list, -1 for one made by a lambda */
    Loc loc;
} PyConfig;

struct PyVal {
    PyKind k;
    union {
        bool b;
        int64_t i;
        double f;
        struct {
            const char *s;
            size_t n;
        } str;
        PySeq *seq; /* PV_LIST, PV_TUPLE */
        PyDict *dict;
        struct PyFunc *fn;
        int builtin;
        const char *module; /* "triton", "triton.language", "math" */
        PyConfig *cfg;
        struct {
            const char *what;
            const char *dtype;
        } opaque;
        struct PyMethod *method;
    } u;
};

/* Supplies module-level names (constants of the kernel file) to the evaluator. */
typedef bool (*PyGlobalFn)(void *user, const char *name, PyVal *out);

typedef struct PyCtx {
    Arena *arena;
    const Source *src;
    Diag *diag;        /* errors go here (located) */
    jmp_buf *fail;     /* and then longjmp here */
    PyGlobalFn global; /* may be NULL */
    void *global_user;
    int depth;
    long steps; /* budget left; each node evaluated costs one */
} PyCtx;

/* An argument list as written: positional values, then keywords. */
typedef struct PyArgs {
    int n, nkw;
    PyNode **pos;
    const char **kwnames;
    PyNode **kwvals;
    Loc *kwlocs;
    Loc loc;
} PyArgs;

/* Parse the parenthesised argument list that starts at byte `open` ('(') of c->src. */
void py_parse_call_args(PyCtx *c, size_t open, PyArgs *out);
/* Parse one expression from byte `pos` (stops before a ',' ')' or newline at depth 0);
 * *end receives the byte after it. */
PyNode *py_parse_expr_at(PyCtx *c, size_t pos, size_t *end);

PyVal py_eval(PyCtx *c, const PyNode *n, PyEnv *env);
/* Call fn (a lambda or builtin) with positional values and keywords. */
PyVal py_call(PyCtx *c, PyVal fn, int n, const PyVal *args, int nkw, const char *const *kwnames,
              const PyVal *kwvals, Loc where);
Loc py_node_loc(const PyNode *n);

/* Report an error at loc and longjmp to c->fail. */
_Noreturn void py_error(PyCtx *c, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Triton's next_power_of_2 (triton/runtime's bit trick): the smallest power of two >= x,
 * 0 for x <= 0; false when it does not fit in 64 bits. The kernel's front end (sema)
 * computes it here too. */
bool py_next_power_of_2(int64_t x, int64_t *out);

PyVal py_none(void);
PyVal py_int(int64_t i);
PyVal py_float(double f);
PyVal py_bool(bool b);
PyVal py_str(PyCtx *c, const char *s, size_t n);
PyDict *py_dict_new(PyCtx *c, int cap);
void py_dict_set(PyCtx *c, PyDict *d, PyVal key, PyVal val);
const char *py_kind_name(PyVal v);
/* The value as text: repr() for strings in containers, str() at the top ("128",
 * "leaky_relu", "True", "0.5", "[1, 2]"). */
void py_print(StrBuf *out, PyVal v, bool repr);
/* A float as Python's repr() writes it (the shortest digits that read back), and a str as
 * str() (the text) or repr() (quoted as Python quotes it); for sema's f-strings too. */
void py_print_float(StrBuf *out, double f);
void py_print_str(StrBuf *out, const char *s, size_t n, bool repr);

#endif
