/* pyexpr.c - read and evaluate the Python expressions of decorator arguments
 * (pyexpr.h).
 *
 * Reading: a tokenizer over the source text from a given byte (names, numbers in every
 * Python spelling, strings with prefixes and escapes, f-strings, operators; newlines are
 * blanks inside brackets and end the expression outside them), and a recursive-descent
 * parser of Python's expression grammar, from lambda down to atoms, building PyNodes.
 * Evaluating: a tree walk over PyNodes with environments for lambda parameters and
 * comprehension variables. Python's semantics are kept where they differ from C's: floor
 * division and modulo round toward negative infinity, `/` is true division, comparisons
 * chain, `and`/`or` return an operand. Ints are 64-bit: an overflow is an error rather
 * than a wrong value. */
#include "pyexpr.h"
#include "compiler/support/options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 200, MAX_ITEMS = 1 << 20 };

typedef enum {
    N_CONST,
    N_NAME,
    N_ATTR,
    N_SUB,
    N_SLICE,
    N_CALL,
    N_BIN,
    N_UN,
    N_NOT,
    N_AND,
    N_OR,
    N_CMP,
    N_IF,
    N_LAMBDA,
    N_LIST,
    N_TUPLE,
    N_SET,
    N_DICT,
    N_COMP,
    N_STAR,
    N_DSTAR,
    N_FSTR,
} NKind;

enum {
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_FLOORDIV,
    OP_MOD,
    OP_POW,
    OP_LSHIFT,
    OP_RSHIFT,
    OP_AND,
    OP_OR,
    OP_XOR,
    OP_MATMUL,
    OP_NEG,
    OP_POS,
    OP_INV
};
enum { C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE, C_IN, C_NOTIN, C_IS, C_ISNOT };

typedef struct PyGen {
    PyNode *target, *iter;
    PyNode **conds;
    int nconds;
} PyGen;

struct PyNode {
    NKind k;
    Loc loc;
    PyVal v;          /* N_CONST */
    const char *name; /* N_NAME, N_ATTR */
    int op;
    PyNode *a, *b, *c; /* operands; N_IF a if b else c; N_SLICE a:b:c; N_SUB a[b] */
    PyNode **items;    /* N_LIST/TUPLE/SET/CALL (positional)/CMP/DICT (k, v, k, v)/FSTR (parts) */
    int n;
    int *ops;             /* N_CMP */
    const char **kwnames; /* N_CALL */
    PyNode **kwvals;
    int nkw;
    const char **params; /* N_LAMBDA */
    PyNode **defaults;
    int nparams;
    const char *star, *dstar;
    PyGen *gens; /* N_COMP: a element (dict: a key, b value); op 'l' 's' 'd' 'g' */
    int ngens;
};

struct PyFunc {
    const PyNode *lambda;
    PyEnv *closure;
    PyVal *defaults;
};

struct PyMethod {
    PyVal self;
    const char *name;
};

struct PyEnv {
    PyEnv *parent;
    const char **names;
    PyVal *vals;
    int n, cap;
};

/* ---- values ---- */

PyVal py_none(void) {
    PyVal v;
    memset(&v, 0, sizeof v);
    v.k = PV_NONE;
    return v;
}

bool py_next_power_of_2(int64_t x, int64_t *out) {
    int64_t p = 1;
    if (x <= 0) return *out = 0, true; /* Triton's bit trick gives 0 */
    while (p < x) {
        if (p > INT64_MAX / 2) return false;
        p <<= 1;
    }
    return *out = p, true;
}

PyVal py_int(int64_t i) {
    PyVal v = py_none();
    v.k = PV_INT;
    v.u.i = i;
    return v;
}
PyVal py_float(double f) {
    PyVal v = py_none();
    v.k = PV_FLOAT;
    v.u.f = f;
    return v;
}
PyVal py_bool(bool b) {
    PyVal v = py_none();
    v.k = PV_BOOL;
    v.u.b = b;
    return v;
}

PyVal py_str(PyCtx *c, const char *s, size_t n) {
    PyVal v = py_none();
    v.k = PV_STR;
    v.u.str.s = arena_strndup(c->arena, s, n);
    v.u.str.n = n;
    return v;
}

static bool py_equal(PyVal a, PyVal b);

static PyVal seq_val(PyCtx *c, PyKind k, int n) {
    PyVal v = py_none();
    v.k = k;
    v.u.seq = arena_alloc(c->arena, sizeof *v.u.seq);
    v.u.seq->n = n;
    v.u.seq->v = arena_alloc(c->arena, sizeof(PyVal) * (size_t)(n ? n : 1));
    return v;
}

PyDict *py_dict_new(PyCtx *c, int cap) {
    PyDict *d = arena_alloc(c->arena, sizeof *d);
    d->keys = arena_alloc(c->arena, sizeof(PyVal) * (size_t)(cap > 0 ? cap : 1));
    d->vals = arena_alloc(c->arena, sizeof(PyVal) * (size_t)(cap > 0 ? cap : 1));
    return d;
}

static int dict_find(const PyDict *d, PyVal key) {
    for (int i = 0; i < d->n; i++)
        if (py_equal(d->keys[i], key)) return i;
    return -1;
}

void py_dict_set(PyCtx *c, PyDict *d, PyVal key, PyVal val) {
    int i = dict_find(d, key);
    if (i >= 0) {
        d->vals[i] = val;
        return;
    }
    /* grow by copying: dicts here are small */
    PyVal *k = arena_alloc(c->arena, sizeof(PyVal) * (size_t)(d->n + 1));
    PyVal *v = arena_alloc(c->arena, sizeof(PyVal) * (size_t)(d->n + 1));
    memcpy(k, d->keys, sizeof(PyVal) * (size_t)d->n);
    memcpy(v, d->vals, sizeof(PyVal) * (size_t)d->n);
    k[d->n] = key, v[d->n] = val;
    d->keys = k, d->vals = v, d->n++;
}

const char *py_kind_name(PyVal v) {
    static const char *const names[] = {"None",   "bool",   "int",   "float",    "str",
                                        "list",   "tuple",  "dict",  "function", "builtin function",
                                        "module", "Config", "value", "method"};
    if (v.k == PV_OPAQUE) return v.u.opaque.what;
    return names[v.k];
}

static bool py_truthy(PyVal v) {
    switch (v.k) {
    case PV_NONE: return false;
    case PV_BOOL: return v.u.b;
    case PV_INT: return v.u.i != 0;
    case PV_FLOAT: return v.u.f != 0;
    case PV_STR: return v.u.str.n != 0;
    case PV_LIST:
    case PV_TUPLE: return v.u.seq->n != 0;
    case PV_DICT: return v.u.dict->n != 0;
    default: return true;
    }
}

static bool is_num(PyVal v) { return v.k == PV_INT || v.k == PV_BOOL || v.k == PV_FLOAT; }
static double num_f(PyVal v) {
    return v.k == PV_FLOAT ? v.u.f : v.k == PV_BOOL ? (double)v.u.b : (double)v.u.i;
}
static int64_t num_i(PyVal v) { return v.k == PV_BOOL ? v.u.b : v.u.i; }

static bool py_equal(PyVal a, PyVal b) {
    if (is_num(a) && is_num(b)) {
        if (a.k == PV_FLOAT || b.k == PV_FLOAT) return num_f(a) == num_f(b);
        return num_i(a) == num_i(b);
    }
    if (a.k != b.k) return false;
    switch (a.k) {
    case PV_NONE: return true;
    case PV_STR: return a.u.str.n == b.u.str.n && !memcmp(a.u.str.s, b.u.str.s, a.u.str.n);
    case PV_LIST:
    case PV_TUPLE:
        if (a.u.seq->n != b.u.seq->n) return false;
        for (int i = 0; i < a.u.seq->n; i++)
            if (!py_equal(a.u.seq->v[i], b.u.seq->v[i])) return false;
        return true;
    case PV_DICT:
        if (a.u.dict->n != b.u.dict->n) return false;
        for (int i = 0; i < a.u.dict->n; i++) {
            int j = dict_find(b.u.dict, a.u.dict->keys[i]);
            if (j < 0 || !py_equal(a.u.dict->vals[i], b.u.dict->vals[j])) return false;
        }
        return true;
    case PV_CONFIG: return a.u.cfg == b.u.cfg;
    case PV_FUNC: return a.u.fn == b.u.fn;
    case PV_BUILTIN: return a.u.builtin == b.u.builtin;
    case PV_MODULE: return !strcmp(a.u.module, b.u.module);
    default: return false;
    }
}

/* As Python's repr: the shortest digits that read back, in fixed notation for exponents
 * from -4 to 15, else d.ddde+XX. */
void py_print_float(StrBuf *out, double f) {
    if (isinf(f)) {
        sb_puts(out, f < 0 ? "-inf" : "inf");
        return;
    }
    if (isnan(f)) {
        sb_puts(out, "nan");
        return;
    }
    char e[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, f);
        if (strtod(e, NULL) == f) break;
    }
    /* e: [-]d[.ddd]e[+-]XX */
    char digits[32];
    int nd = 0, exp = atoi(strchr(e, 'e') + 1);
    bool neg = e[0] == '-';
    for (const char *q = e + neg; *q != 'e'; q++)
        if (*q != '.') digits[nd++] = *q;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    if (neg) sb_putc(out, '-');
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            sb_puts(out, "0.");
            for (int i = -1; i > exp; i--) sb_putc(out, '0');
            sb_putn(out, digits, (size_t)nd);
        } else {
            for (int i = 0; i <= exp; i++) sb_putc(out, i < nd ? digits[i] : '0');
            sb_putc(out, '.');
            if (nd > exp + 1) sb_putn(out, digits + exp + 1, (size_t)(nd - exp - 1));
            else sb_putc(out, '0');
        }
    } else {
        sb_putc(out, digits[0]);
        if (nd > 1) {
            sb_putc(out, '.');
            sb_putn(out, digits + 1, (size_t)(nd - 1));
        }
        sb_printf(out, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
}

void py_print_str(StrBuf *out, const char *s, size_t n, bool repr) {
    if (!repr) {
        sb_putn(out, s, n);
        return;
    }
    /* single quotes, unless the text has one and no double quote (as Python) */
    char q = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
    sb_putc(out, q);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\\' || ch == (unsigned char)q) sb_printf(out, "\\%c", ch);
        else if (ch == '\n') sb_puts(out, "\\n");
        else if (ch == '\t') sb_puts(out, "\\t");
        else if (ch == '\r') sb_puts(out, "\\r");
        else if (ch < 0x20 || ch == 0x7f) sb_printf(out, "\\x%02x", ch);
        else sb_putc(out, (char)ch);
    }
    sb_putc(out, q);
}

void py_print(StrBuf *out, PyVal v, bool repr) {
    switch (v.k) {
    case PV_NONE: sb_puts(out, "None"); break;
    case PV_BOOL: sb_puts(out, v.u.b ? "True" : "False"); break;
    case PV_INT: sb_printf(out, "%lld", (long long)v.u.i); break;
    case PV_FLOAT: py_print_float(out, v.u.f); break;
    case PV_STR: py_print_str(out, v.u.str.s, v.u.str.n, repr); break;
    case PV_LIST:
    case PV_TUPLE:
        sb_putc(out, v.k == PV_LIST ? '[' : '(');
        for (int i = 0; i < v.u.seq->n; i++) {
            if (i) sb_puts(out, ", ");
            py_print(out, v.u.seq->v[i], true);
        }
        if (v.k == PV_TUPLE && v.u.seq->n == 1) sb_putc(out, ',');
        sb_putc(out, v.k == PV_LIST ? ']' : ')');
        break;
    case PV_DICT:
        sb_putc(out, '{');
        for (int i = 0; i < v.u.dict->n; i++) {
            if (i) sb_puts(out, ", ");
            py_print(out, v.u.dict->keys[i], true);
            sb_puts(out, ": ");
            py_print(out, v.u.dict->vals[i], true);
        }
        sb_putc(out, '}');
        break;
    case PV_CONFIG: {
        PyConfig *cf = v.u.cfg;
        for (int i = 0; i < cf->kwargs->n; i++) {
            py_print(out, cf->kwargs->keys[i], false);
            sb_putc(out, '=');
            py_print(out, cf->kwargs->vals[i], false);
            sb_puts(out, ", ");
        }
        sb_printf(out, "num_warps=%d, num_stages=%d", cf->num_warps, cf->num_stages);
        break;
    }
    default: sb_printf(out, "<%s>", py_kind_name(v));
    }
}

/* ---- errors ---- */

_Noreturn void py_error(PyCtx *c, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(c->diag, loc, fmt, ap);
    va_end(ap);
    longjmp(*c->fail, 1);
}

/* ---- tokens ---- */

typedef enum { T_END, T_NAME, T_INT, T_FLOAT, T_STR, T_OP } TKind;

typedef struct Tok {
    TKind k;
    size_t pos, len;
    int64_t ival;
    double fval;
    const char *s; /* T_STR: decoded text; T_NAME: the name */
    size_t slen;
    bool fstring, bytes, imaginary, bigint;
    size_t body;   /* T_STR: where the literal's content starts in the source */
    int quote_len; /* T_STR: 1 or 3 */
} Tok;

typedef struct Lexer {
    PyCtx *c;
    const char *text;
    size_t len, pos;
    int depth;
    Tok tok;
} Lexer;

static Loc loc_at(PyCtx *c, size_t pos) {
    Loc l = {c->src, 1, 1};
    const char *t = c->src->text;
    for (size_t i = 0; i < pos && i < c->src->len; i++) {
        if (t[i] == '\n') l.line++, l.col = 1;
        else l.col++;
    }
    return l;
}

static bool name_start(char ch) {
    return isalpha((unsigned char)ch) || ch == '_' || (unsigned char)ch >= 0x80;
}
static bool name_char(char ch) {
    return isalnum((unsigned char)ch) || ch == '_' || (unsigned char)ch >= 0x80;
}

static void lex_number(Lexer *L, Tok *t) {
    const char *p = L->text + L->pos, *start = p;
    char buf[128];
    size_t n = 0;
    bool is_float = false;
    int base = 10;
    if (p[0] == '0' &&
        (p[1] == 'x' || p[1] == 'X' || p[1] == 'o' || p[1] == 'O' || p[1] == 'b' || p[1] == 'B')) {
        base = p[1] == 'x' || p[1] == 'X' ? 16 : p[1] == 'o' || p[1] == 'O' ? 8 : 2;
        p += 2;
        while (isxdigit((unsigned char)*p) || *p == '_') {
            if (*p != '_' && n + 1 < sizeof buf) buf[n++] = *p;
            p++;
        }
    } else {
        while (isdigit((unsigned char)*p) || *p == '_' || *p == '.' || *p == 'e' || *p == 'E' ||
               ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E'))) {
            if (*p == '.' || *p == 'e' || *p == 'E') is_float = true;
            if (*p == '.' && p[1] == '.') break;
            if (*p != '_' && n + 1 < sizeof buf) buf[n++] = *p;
            p++;
        }
    }
    buf[n] = 0;
    if (*p == 'j' || *p == 'J') t->imaginary = true, p++;
    if (name_char(*p))
        py_error(L->c, loc_at(L->c, (size_t)(p - L->text)), "invalid number literal");
    t->len = (size_t)(p - start);
    errno = 0;
    if (is_float) {
        t->k = T_FLOAT;
        t->fval = strtod(buf, NULL);
    } else {
        t->k = T_INT;
        unsigned long long v = strtoull(buf, NULL, base);
        if (errno || v > INT64_MAX) t->bigint = true;
        t->ival = (int64_t)v;
    }
}

static int hexval(char ch) {
    return isdigit((unsigned char)ch) ? ch - '0' : tolower((unsigned char)ch) - 'a' + 10;
}

/* A string literal (with its prefix) at L->pos: decoded into t. */
static bool lex_string(Lexer *L, Tok *t) {
    const char *p = L->text + L->pos, *start = p;
    bool raw = false, f = false, b = false;
    while (strchr("rRbBfFuU", *p) && *p) {
        if (*p == 'r' || *p == 'R') raw = true;
        if (*p == 'f' || *p == 'F') f = true;
        if (*p == 'b' || *p == 'B') b = true;
        p++;
    }
    if (*p != '\'' && *p != '"') return false;
    char q = *p;
    bool triple = p[1] == q && p[2] == q;
    p += triple ? 3 : 1;
    t->body = (size_t)(p - L->text);
    t->quote_len = triple ? 3 : 1;
    StrBuf s;
    sb_init(&s);
    for (;;) {
        if (!*p || (size_t)(p - L->text) >= L->len || (!triple && *p == '\n')) {
            sb_free(&s);
            py_error(L->c, loc_at(L->c, (size_t)(start - L->text)), "unterminated string");
        }
        if (*p == q && (!triple || (p[1] == q && p[2] == q))) {
            p += triple ? 3 : 1;
            break;
        }
        if (*p == '\\' && !raw && !f) {
            p++;
            switch (*p) {
            case 'n': sb_putc(&s, '\n'); break;
            case 't': sb_putc(&s, '\t'); break;
            case 'r': sb_putc(&s, '\r'); break;
            case '0': sb_putc(&s, '\0'); break;
            case '\n': break;
            case 'x':
                if (isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
                    sb_putc(&s, (char)(hexval(p[1]) * 16 + hexval(p[2])));
                    p += 2;
                    break;
                }
                /* fall through */
            default: sb_putc(&s, *p);
            }
            p++;
            continue;
        }
        sb_putc(&s, *p++);
    }
    t->k = T_STR;
    t->s = arena_strndup(L->c->arena, sb_cstr(&s), s.len);
    t->slen = s.len;
    t->fstring = f;
    t->bytes = b;
    t->len = (size_t)(p - start);
    sb_free(&s);
    return true;
}

static void lex_next(Lexer *L) {
    Tok *t = &L->tok;
    memset(t, 0, sizeof *t);
    for (;;) {
        while (L->pos < L->len &&
               (L->text[L->pos] == ' ' || L->text[L->pos] == '\t' || L->text[L->pos] == '\r' ||
                L->text[L->pos] == '\f' || (L->depth > 0 && L->text[L->pos] == '\n')))
            L->pos++;
        if (L->pos < L->len && L->text[L->pos] == '#') {
            while (L->pos < L->len && L->text[L->pos] != '\n') L->pos++;
            continue;
        }
        if (L->pos + 1 < L->len && L->text[L->pos] == '\\' && L->text[L->pos + 1] == '\n') {
            L->pos += 2;
            continue;
        }
        break;
    }
    t->pos = L->pos;
    if (L->pos >= L->len || L->text[L->pos] == '\n' || L->text[L->pos] == ';' || !L->text[L->pos]) {
        t->k = T_END;
        return;
    }
    const char *p = L->text + L->pos;
    if (name_start(*p) && lex_string(L, t)) {
        L->pos += t->len;
        return;
    }
    if (*p == '\'' || *p == '"') {
        lex_string(L, t);
        L->pos += t->len;
        return;
    }
    if (name_start(*p)) {
        size_t n = 0;
        while (name_char(p[n])) n++;
        t->k = T_NAME;
        t->s = arena_strndup(L->c->arena, p, n);
        t->len = n;
        L->pos += n;
        return;
    }
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        lex_number(L, t);
        L->pos += t->len;
        return;
    }
    static const char *const ops[] = {"**=", "//=", "...", "->", ":=", "**", "//", "<<", ">>",
                                      "<=",  ">=",  "==",  "!=", "+",  "-",  "*",  "/",  "%",
                                      "@",   "&",   "|",   "^",  "~",  "<",  ">",  "(",  ")",
                                      "[",   "]",   "{",   "}",  ",",  ":",  ".",  "=",  "!"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        size_t n = strlen(ops[i]);
        if (!strncmp(p, ops[i], n)) {
            t->k = T_OP;
            t->s = ops[i];
            t->len = n;
            L->pos += n;
            if (strchr("([{", *p) && n == 1) L->depth++;
            if (strchr(")]}", *p) && n == 1 && L->depth > 0) L->depth--;
            return;
        }
    }
    py_error(L->c, loc_at(L->c, L->pos), "unexpected character '%c' in a decorator argument", *p);
}

static bool is_op(const Lexer *L, const char *op) {
    return L->tok.k == T_OP && !strcmp(L->tok.s, op);
}
static bool is_kw(const Lexer *L, const char *kw) {
    return L->tok.k == T_NAME && !strcmp(L->tok.s, kw);
}
static Loc tloc(Lexer *L) { return loc_at(L->c, L->tok.pos); }

static void expect(Lexer *L, const char *op) {
    if (!is_op(L, op)) py_error(L->c, tloc(L), "expected '%s' in a decorator argument", op);
    lex_next(L);
}

/* ---- parsing ---- */

static PyNode *node(Lexer *L, NKind k, Loc loc) {
    PyNode *n = arena_alloc(L->c->arena, sizeof *n);
    n->k = k;
    n->loc = loc;
    return n;
}

typedef struct NodeVec {
    PyNode **v;
    int n, cap;
} NodeVec;

static void push(Lexer *L, NodeVec *v, PyNode *x) { VEC_PUSH(L->c->arena, v->v, v->n, v->cap, x); }

static PyNode *p_expr(Lexer *L);
static PyNode *p_or(Lexer *L);
static PyNode *p_bitor(Lexer *L);

static void enter(Lexer *L) {
    if (++L->c->depth > MAX_DEPTH) py_error(L->c, tloc(L), "decorator argument nested too deeply");
}

/* comprehension clauses after the element: for T in X [if C]... */
static PyNode *p_comp(Lexer *L, PyNode *elem, PyNode *value, char kind, Loc loc) {
    PyNode *n = node(L, N_COMP, loc);
    n->a = elem;
    n->b = value;
    n->op = kind;
    PyGen *gens = NULL;
    int ng = 0, capg = 0;
    while (is_kw(L, "for")) {
        lex_next(L);
        PyGen g;
        memset(&g, 0, sizeof g);
        NodeVec targets = {0};
        do {
            if (L->tok.k != T_NAME) py_error(L->c, tloc(L), "expected a name after 'for'");
            PyNode *t = node(L, N_NAME, tloc(L));
            t->name = L->tok.s;
            push(L, &targets, t);
            lex_next(L);
        } while (is_op(L, ",") && (lex_next(L), true));
        if (targets.n == 1) g.target = targets.v[0];
        else {
            g.target = node(L, N_TUPLE, targets.v[0]->loc);
            g.target->items = targets.v, g.target->n = targets.n;
        }
        if (!is_kw(L, "in")) py_error(L->c, tloc(L), "expected 'in' in a comprehension");
        lex_next(L);
        g.iter = p_or(L);
        NodeVec conds = {0};
        while (is_kw(L, "if")) {
            lex_next(L);
            push(L, &conds, p_or(L));
        }
        g.conds = conds.v, g.nconds = conds.n;
        VEC_PUSH(L->c->arena, gens, ng, capg, g);
    }
    n->gens = gens, n->ngens = ng;
    return n;
}

/* f"...{expr}...": the literal parts and the expressions, read from the source */
static PyNode *p_fstring(Lexer *L, const Tok *t) {
    PyNode *n = node(L, N_FSTR, loc_at(L->c, t->pos));
    NodeVec parts = {0};
    const char *s = L->c->src->text;
    size_t i = t->body, end = t->pos + t->len - (size_t)t->quote_len;
    StrBuf lit;
    sb_init(&lit);
    while (i < end) {
        char ch = s[i];
        if ((ch == '{' || ch == '}') && i + 1 < end && s[i + 1] == ch) {
            sb_putc(&lit, ch);
            i += 2;
            continue;
        }
        if (ch == '{') {
            PyNode *c = node(L, N_CONST, n->loc);
            c->v = py_str(L->c, lit.data ? lit.data : "", lit.len);
            push(L, &parts, c);
            lit.len = 0;
            size_t stop;
            PyNode *e = py_parse_expr_at(L->c, i + 1, &stop);
            while (stop < end && isspace((unsigned char)s[stop])) stop++;
            if (stop + 1 < end && s[stop] == '!' && s[stop + 1] == 'r') stop += 2;
            if (stop >= end || s[stop] != '}') {
                sb_free(&lit);
                py_error(L->c, loc_at(L->c, stop),
                         "f-string: only '{expression}' is supported here");
            }
            push(L, &parts, e);
            i = stop + 1;
            continue;
        }
        sb_putc(&lit, ch);
        i++;
    }
    PyNode *c = node(L, N_CONST, n->loc);
    c->v = py_str(L->c, lit.data ? lit.data : "", lit.len);
    push(L, &parts, c);
    sb_free(&lit);
    n->items = parts.v, n->n = parts.n;
    return n;
}

static PyNode *p_atom(Lexer *L) {
    Loc loc = tloc(L);
    Tok t = L->tok;
    if (t.k == T_INT || t.k == T_FLOAT) {
        if (t.imaginary) py_error(L->c, loc, "complex numbers are not supported");
        if (t.bigint) py_error(L->c, loc, "integer literal does not fit in 64 bits");
        lex_next(L);
        PyNode *n = node(L, N_CONST, loc);
        n->v = t.k == T_INT ? py_int(t.ival) : py_float(t.fval);
        return n;
    }
    if (t.k == T_STR) {
        lex_next(L);
        if (t.fstring) return p_fstring(L, &t);
        StrBuf s;
        sb_init(&s);
        sb_putn(&s, t.s, t.slen);
        while (L->tok.k == T_STR && !L->tok.fstring) { /* adjacent literals join */
            sb_putn(&s, L->tok.s, L->tok.slen);
            lex_next(L);
        }
        PyNode *n = node(L, N_CONST, loc);
        n->v = py_str(L->c, s.data ? s.data : "", s.len);
        sb_free(&s);
        return n;
    }
    if (t.k == T_NAME) {
        lex_next(L);
        PyNode *n = node(L, N_CONST, loc);
        if (!strcmp(t.s, "None")) n->v = py_none();
        else if (!strcmp(t.s, "True")) n->v = py_bool(true);
        else if (!strcmp(t.s, "False")) n->v = py_bool(false);
        else {
            n->k = N_NAME;
            n->name = t.s;
        }
        return n;
    }
    if (is_op(L, "(")) {
        lex_next(L);
        if (is_op(L, ")")) {
            lex_next(L);
            PyNode *n = node(L, N_TUPLE, loc);
            return n;
        }
        PyNode *first = is_op(L, "*") ? (lex_next(L), node(L, N_STAR, loc)) : NULL;
        if (first) first->a = p_bitor(L);
        else first = p_expr(L);
        if (is_kw(L, "for")) {
            PyNode *n = p_comp(L, first, NULL, 'g', loc);
            expect(L, ")");
            return n;
        }
        if (is_op(L, ")") && first->k != N_STAR) {
            lex_next(L);
            return first;
        }
        NodeVec items = {0};
        push(L, &items, first);
        while (is_op(L, ",")) {
            lex_next(L);
            if (is_op(L, ")")) break;
            if (is_op(L, "*")) {
                PyNode *s = node(L, N_STAR, tloc(L));
                lex_next(L);
                s->a = p_bitor(L);
                push(L, &items, s);
            } else push(L, &items, p_expr(L));
        }
        expect(L, ")");
        PyNode *n = node(L, N_TUPLE, loc);
        n->items = items.v, n->n = items.n;
        return n;
    }
    if (is_op(L, "[")) {
        lex_next(L);
        NodeVec items = {0};
        while (!is_op(L, "]")) {
            PyNode *e;
            if (is_op(L, "*")) {
                e = node(L, N_STAR, tloc(L));
                lex_next(L);
                e->a = p_bitor(L);
            } else e = p_expr(L);
            if (items.n == 0 && is_kw(L, "for")) {
                PyNode *n = p_comp(L, e, NULL, 'l', loc);
                expect(L, "]");
                return n;
            }
            push(L, &items, e);
            if (!is_op(L, ",")) break;
            lex_next(L);
        }
        expect(L, "]");
        PyNode *n = node(L, N_LIST, loc);
        n->items = items.v, n->n = items.n;
        return n;
    }
    if (is_op(L, "{")) {
        lex_next(L);
        NodeVec items = {0};
        bool dict = true, first = true;
        while (!is_op(L, "}")) {
            if (is_op(L, "**")) {
                PyNode *s = node(L, N_DSTAR, tloc(L));
                lex_next(L);
                s->a = p_bitor(L);
                push(L, &items, s);
                push(L, &items, NULL);
            } else {
                PyNode *k = p_expr(L);
                if (first && !is_op(L, ":")) dict = false;
                if (dict) {
                    expect(L, ":");
                    PyNode *v = p_expr(L);
                    if (first && is_kw(L, "for")) {
                        PyNode *n = p_comp(L, k, v, 'd', loc);
                        expect(L, "}");
                        return n;
                    }
                    push(L, &items, k);
                    push(L, &items, v);
                } else {
                    if (first && is_kw(L, "for")) {
                        PyNode *n = p_comp(L, k, NULL, 's', loc);
                        expect(L, "}");
                        return n;
                    }
                    push(L, &items, k);
                }
            }
            first = false;
            if (!is_op(L, ",")) break;
            lex_next(L);
        }
        expect(L, "}");
        PyNode *n = node(L, dict ? N_DICT : N_SET, loc);
        n->items = items.v, n->n = items.n;
        return n;
    }
    if (L->tok.k == T_END) py_error(L->c, loc, "expected an expression");
    py_error(L->c, loc, "unexpected '%.*s' in a decorator argument", (int)L->tok.len,
             L->c->src->text + L->tok.pos);
}

static void p_args(Lexer *L, NodeVec *pos, NodeVec *kwv, const char ***kwn, int *nkw,
                   Loc **kwlocs) {
    int capn = 0, capl = 0, nl = 0;
    while (!is_op(L, ")")) {
        if (L->tok.k == T_END) py_error(L->c, tloc(L), "expected ')'");
        if (is_op(L, "*") || is_op(L, "**")) {
            PyNode *s = node(L, is_op(L, "*") ? N_STAR : N_DSTAR, tloc(L));
            lex_next(L);
            s->a = p_expr(L);
            if (s->k == N_STAR) push(L, pos, s);
            else {
                VEC_PUSH(L->c->arena, *kwn, *nkw, capn, NULL);
                push(L, kwv, s);
                if (kwlocs) VEC_PUSH(L->c->arena, *kwlocs, nl, capl, s->loc);
            }
        } else if (L->tok.k == T_NAME) {
            /* a keyword: NAME '=' (not '==') */
            Lexer save = *L;
            const char *name = L->tok.s;
            Loc nloc = tloc(L);
            lex_next(L);
            if (is_op(L, "=")) {
                lex_next(L);
                VEC_PUSH(L->c->arena, *kwn, *nkw, capn, name);
                push(L, kwv, p_expr(L));
                if (kwlocs) VEC_PUSH(L->c->arena, *kwlocs, nl, capl, nloc);
            } else {
                *L = save;
                PyNode *e = p_expr(L);
                if (is_kw(L, "for")) e = p_comp(L, e, NULL, 'g', e->loc);
                push(L, pos, e);
            }
        } else {
            PyNode *e = p_expr(L);
            if (is_kw(L, "for")) e = p_comp(L, e, NULL, 'g', e->loc);
            push(L, pos, e);
        }
        if (!is_op(L, ",")) break;
        lex_next(L);
    }
    expect(L, ")");
}

static PyNode *p_primary(Lexer *L) {
    PyNode *n = p_atom(L);
    for (;;) {
        Loc loc = tloc(L);
        if (is_op(L, ".")) {
            lex_next(L);
            if (L->tok.k != T_NAME) py_error(L->c, tloc(L), "expected a name after '.'");
            PyNode *a = node(L, N_ATTR, tloc(L));
            a->a = n;
            a->name = L->tok.s;
            lex_next(L);
            n = a;
        } else if (is_op(L, "(")) {
            lex_next(L);
            PyNode *call = node(L, N_CALL, n->loc);
            call->a = n;
            NodeVec pos = {0}, kw = {0};
            p_args(L, &pos, &kw, &call->kwnames, &call->nkw, NULL);
            call->items = pos.v, call->n = pos.n, call->kwvals = kw.v;
            n = call;
        } else if (is_op(L, "[")) {
            lex_next(L);
            PyNode *sub = node(L, N_SUB, loc);
            sub->a = n;
            PyNode *lo = NULL, *hi = NULL, *step = NULL;
            bool slice = false;
            if (!is_op(L, ":")) lo = p_expr(L);
            if (is_op(L, ":")) {
                slice = true;
                lex_next(L);
                if (!is_op(L, "]") && !is_op(L, ":")) hi = p_expr(L);
                if (is_op(L, ":")) {
                    lex_next(L);
                    if (!is_op(L, "]")) step = p_expr(L);
                }
            }
            if (slice) {
                PyNode *s = node(L, N_SLICE, loc);
                s->a = lo, s->b = hi, s->c = step;
                sub->b = s;
            } else if (is_op(L, ",")) {
                PyNode *t = node(L, N_TUPLE, lo->loc);
                NodeVec items = {0};
                push(L, &items, lo);
                while (is_op(L, ",")) {
                    lex_next(L);
                    if (is_op(L, "]")) break;
                    push(L, &items, p_expr(L));
                }
                t->items = items.v, t->n = items.n;
                sub->b = t;
            } else sub->b = lo;
            expect(L, "]");
            n = sub;
        } else return n;
    }
}

static PyNode *p_factor(Lexer *L);

static PyNode *p_power(Lexer *L) {
    PyNode *base = p_primary(L);
    if (!is_op(L, "**")) return base;
    PyNode *n = node(L, N_BIN, tloc(L));
    lex_next(L);
    n->op = OP_POW;
    n->a = base;
    n->b = p_factor(L); /* right-associative, binds tighter than unary minus on its left */
    return n;
}

static PyNode *p_factor(Lexer *L) {
    if (is_op(L, "-") || is_op(L, "+") || is_op(L, "~")) {
        PyNode *n = node(L, N_UN, tloc(L));
        n->op = is_op(L, "-") ? OP_NEG : is_op(L, "+") ? OP_POS : OP_INV;
        lex_next(L);
        enter(L);
        n->a = p_factor(L);
        L->c->depth--;
        return n;
    }
    return p_power(L);
}

typedef struct {
    const char *op;
    int code;
} OpCode;

static PyNode *p_binary(Lexer *L, int level);

static const OpCode levels[][5] = {
    {{"|", OP_OR}, {NULL, 0}},
    {{"^", OP_XOR}, {NULL, 0}},
    {{"&", OP_AND}, {NULL, 0}},
    {{"<<", OP_LSHIFT}, {">>", OP_RSHIFT}, {NULL, 0}},
    {{"+", OP_ADD}, {"-", OP_SUB}, {NULL, 0}},
    {{"*", OP_MUL}, {"/", OP_DIV}, {"//", OP_FLOORDIV}, {"%", OP_MOD}, {"@", OP_MATMUL}},
};

static PyNode *p_binary(Lexer *L, int level) {
    if (level == 6) return p_factor(L);
    PyNode *lhs = p_binary(L, level + 1);
    for (;;) {
        int code = -1;
        for (int i = 0; i < 5 && levels[level][i].op; i++)
            if (is_op(L, levels[level][i].op)) code = levels[level][i].code;
        if (code < 0) return lhs;
        PyNode *n = node(L, N_BIN, tloc(L));
        lex_next(L);
        n->op = code;
        n->a = lhs;
        n->b = p_binary(L, level + 1);
        lhs = n;
    }
}

static PyNode *p_bitor(Lexer *L) { return p_binary(L, 0); }

static int cmp_op(Lexer *L) {
    static const struct {
        const char *op;
        int code;
    } ops[] = {{"<", C_LT}, {"<=", C_LE}, {">", C_GT}, {">=", C_GE}, {"==", C_EQ}, {"!=", C_NE}};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (is_op(L, ops[i].op)) return lex_next(L), ops[i].code;
    if (is_kw(L, "in")) return lex_next(L), C_IN;
    if (is_kw(L, "is")) {
        lex_next(L);
        if (is_kw(L, "not")) return lex_next(L), C_ISNOT;
        return C_IS;
    }
    if (is_kw(L, "not")) {
        Lexer save = *L;
        lex_next(L);
        if (is_kw(L, "in")) return lex_next(L), C_NOTIN;
        *L = save;
    }
    return -1;
}

static PyNode *p_comparison(Lexer *L) {
    PyNode *first = p_bitor(L);
    Loc loc = tloc(L);
    int op = cmp_op(L);
    if (op < 0) return first;
    PyNode *n = node(L, N_CMP, loc);
    NodeVec items = {0};
    int *ops = NULL, nops = 0, cap = 0;
    push(L, &items, first);
    do {
        VEC_PUSH(L->c->arena, ops, nops, cap, op);
        push(L, &items, p_bitor(L));
    } while ((op = cmp_op(L)) >= 0);
    n->items = items.v, n->n = items.n, n->ops = ops;
    return n;
}

static PyNode *p_not(Lexer *L) {
    if (is_kw(L, "not")) {
        PyNode *n = node(L, N_NOT, tloc(L));
        lex_next(L);
        enter(L);
        n->a = p_not(L);
        L->c->depth--;
        return n;
    }
    return p_comparison(L);
}

static PyNode *p_and(Lexer *L) {
    PyNode *lhs = p_not(L);
    while (is_kw(L, "and")) {
        PyNode *n = node(L, N_AND, tloc(L));
        lex_next(L);
        n->a = lhs, n->b = p_not(L);
        lhs = n;
    }
    return lhs;
}

static PyNode *p_or(Lexer *L) {
    PyNode *lhs = p_and(L);
    while (is_kw(L, "or")) {
        PyNode *n = node(L, N_OR, tloc(L));
        lex_next(L);
        n->a = lhs, n->b = p_and(L);
        lhs = n;
    }
    return lhs;
}

static PyNode *p_lambda(Lexer *L) {
    PyNode *n = node(L, N_LAMBDA, tloc(L));
    lex_next(L);
    int cap = 0, capd = 0, nd = 0;
    while (!is_op(L, ":")) {
        if (is_op(L, "*") || is_op(L, "**")) {
            bool dstar = is_op(L, "**");
            lex_next(L);
            if (L->tok.k == T_NAME) {
                if (dstar) n->dstar = L->tok.s;
                else n->star = L->tok.s;
                lex_next(L);
            }
        } else if (L->tok.k == T_NAME) {
            VEC_PUSH(L->c->arena, n->params, n->nparams, cap, L->tok.s);
            lex_next(L);
            PyNode *d = NULL;
            if (is_op(L, "=")) {
                lex_next(L);
                d = p_expr(L);
            }
            VEC_PUSH(L->c->arena, n->defaults, nd, capd, d);
        } else py_error(L->c, tloc(L), "expected a parameter name in the lambda");
        if (!is_op(L, ",")) break;
        lex_next(L);
    }
    expect(L, ":");
    n->a = p_expr(L);
    return n;
}

static PyNode *p_expr(Lexer *L) {
    enter(L);
    PyNode *r;
    if (is_kw(L, "lambda")) r = p_lambda(L);
    else {
        r = p_or(L);
        if (is_kw(L, "if")) {
            PyNode *n = node(L, N_IF, tloc(L));
            Lexer save = *L;
            lex_next(L);
            PyNode *cond = p_or(L);
            if (!is_kw(L, "else")) { /* a comprehension's 'if': not ours */
                *L = save;
            } else {
                lex_next(L);
                n->a = r, n->b = cond, n->c = p_expr(L);
                r = n;
            }
        }
    }
    L->c->depth--;
    return r;
}

static void lexer_init(Lexer *L, PyCtx *c, size_t pos) {
    memset(L, 0, sizeof *L);
    L->c = c;
    L->text = c->src->text;
    L->len = c->src->len;
    L->pos = pos;
}

void py_parse_call_args(PyCtx *c, size_t open, PyArgs *out) {
    Lexer L;
    lexer_init(&L, c, open);
    memset(out, 0, sizeof *out);
    out->loc = loc_at(c, open);
    lex_next(&L);
    expect(&L, "(");
    NodeVec pos = {0}, kw = {0};
    p_args(&L, &pos, &kw, &out->kwnames, &out->nkw, &out->kwlocs);
    out->pos = pos.v, out->n = pos.n, out->kwvals = kw.v;
}

PyNode *py_parse_expr_at(PyCtx *c, size_t pos, size_t *end) {
    Lexer L;
    lexer_init(&L, c, pos);
    lex_next(&L);
    PyNode *n = p_expr(&L);
    if (is_op(&L, ",")) { /* a bare tuple: a, b */
        PyNode *t = node(&L, N_TUPLE, n->loc);
        NodeVec items = {0};
        push(&L, &items, n);
        while (is_op(&L, ",")) {
            lex_next(&L);
            if (L.tok.k == T_END || is_op(&L, ")") || is_op(&L, "}")) break;
            push(&L, &items, p_expr(&L));
        }
        t->items = items.v, t->n = items.n;
        n = t;
    }
    *end = L.tok.pos;
    return n;
}

Loc py_node_loc(const PyNode *n) { return n->loc; }

/* ---- evaluation ---- */

enum {
    B_MIN,
    B_MAX,
    B_LEN,
    B_ABS,
    B_INT,
    B_FLOAT,
    B_BOOL,
    B_STR,
    B_RANGE,
    B_LIST,
    B_TUPLE,
    B_SUM,
    B_ANY,
    B_ALL,
    B_SORTED,
    B_ENUMERATE,
    B_ZIP,
    B_DICT,
    B_ROUND,
    B_CONFIG,
    B_CDIV,
    B_NEXT_POW2,
    B_CEIL,
    B_FLOOR,
    B_LOG2,
    B_SQRT,
    B_IDENT,
    B_COUNT
};
static const char *const builtin_names[B_COUNT] = {"min",      "max",
                                                   "len",      "abs",
                                                   "int",      "float",
                                                   "bool",     "str",
                                                   "range",    "list",
                                                   "tuple",    "sum",
                                                   "any",      "all",
                                                   "sorted",   "enumerate",
                                                   "zip",      "dict",
                                                   "round",    "Config",
                                                   "cdiv",     "next_power_of_2",
                                                   "ceil",     "floor",
                                                   "log2",     "sqrt",
                                                   "constexpr"};

static PyVal builtin(int b) {
    PyVal v = py_none();
    v.k = PV_BUILTIN;
    v.u.builtin = b;
    return v;
}

static PyVal module_val(const char *m) {
    PyVal v = py_none();
    v.k = PV_MODULE;
    v.u.module = m;
    return v;
}

static void tick(PyCtx *c, Loc loc) {
    if (--c->steps < 0)
        py_error(
            c, loc,
            "evaluation takes too long (a decorator argument is bounded at a few million steps)");
}

static bool env_get(PyEnv *e, const char *name, PyVal *out) {
    for (; e; e = e->parent)
        for (int i = e->n - 1; i >= 0; i--)
            if (!strcmp(e->names[i], name)) {
                *out = e->vals[i];
                return true;
            }
    return false;
}

static PyEnv *env_new(PyCtx *c, PyEnv *parent) {
    PyEnv *e = arena_alloc(c->arena, sizeof *e);
    e->parent = parent;
    return e;
}

static void env_set(PyCtx *c, PyEnv *e, const char *name, PyVal v) {
    for (int i = 0; i < e->n; i++)
        if (!strcmp(e->names[i], name)) {
            e->vals[i] = v;
            return;
        }
    if (e->n == e->cap) {
        int cap = e->cap ? e->cap * 2 : 4;
        e->names = arena_grow(c->arena, e->names, sizeof *e->names, (size_t)e->n, (size_t)cap);
        e->vals = arena_grow(c->arena, e->vals, sizeof *e->vals, (size_t)e->n, (size_t)cap);
        e->cap = cap;
    }
    e->names[e->n] = name;
    e->vals[e->n++] = v;
}

static PyVal lookup(PyCtx *c, const PyNode *n, PyEnv *env) {
    PyVal v;
    if (env_get(env, n->name, &v)) return v;
    if (c->global && c->global(c->global_user, n->name, &v)) return v;
    const char *name = n->name;
    if (!strcmp(name, "triton") || !strcmp(name, "nereid")) return module_val("triton");
    if (!strcmp(name, "tl")) return module_val("triton.language");
    if (!strcmp(name, "math")) return module_val("math");
    for (int b = 0; b < B_CONFIG; b++)
        if (!strcmp(builtin_names[b], name)) return builtin(b);
    if (!strcmp(name, "Config")) return builtin(B_CONFIG);
    py_error(c, n->loc,
             "cannot evaluate '%s' here: decorator arguments may use literals, lambdas, the kernel "
             "file's "
             "constants, a few builtins and triton.Config",
             name);
}

static PyVal attribute(PyCtx *c, PyVal obj, const char *name, Loc loc) {
    if (obj.k == PV_MODULE) {
        const char *m = obj.u.module;
        if (!strcmp(m, "triton") && !strcmp(name, "language")) return module_val("triton.language");
        if (!strcmp(m, "triton") && !strcmp(name, "Config")) return builtin(B_CONFIG);
        if ((!strcmp(m, "triton") || !strcmp(m, "triton.language")) && !strcmp(name, "cdiv"))
            return builtin(B_CDIV);
        if (!strcmp(m, "triton") && !strcmp(name, "next_power_of_2")) return builtin(B_NEXT_POW2);
        if (!strcmp(m, "triton.language") && !strcmp(name, "constexpr")) return builtin(B_IDENT);
        if (!strcmp(m, "math")) {
            static const struct {
                const char *n;
                int b;
            } fs[] = {{"ceil", B_CEIL}, {"floor", B_FLOOR}, {"log2", B_LOG2}, {"sqrt", B_SQRT}};
            for (size_t i = 0; i < sizeof fs / sizeof *fs; i++)
                if (!strcmp(fs[i].n, name)) return builtin(fs[i].b);
            if (!strcmp(name, "inf")) return py_float(INFINITY);
            if (!strcmp(name, "pi")) return py_float(M_PI);
        }
        py_error(c, loc, "cannot evaluate '%s.%s' here", m, name);
    }
    if (obj.k == PV_CONFIG) {
        PyConfig *cf = obj.u.cfg;
        if (!strcmp(name, "kwargs")) {
            PyVal v = py_none();
            v.k = PV_DICT;
            v.u.dict = cf->kwargs;
            return v;
        }
        if (!strcmp(name, "num_warps")) return py_int(cf->num_warps);
        if (!strcmp(name, "num_stages")) return py_int(cf->num_stages);
        if (!strcmp(name, "num_ctas")) return py_int(cf->num_ctas);
        if (!strcmp(name, "maxnreg") || !strcmp(name, "pre_hook")) return py_none();
    }
    if (obj.k == PV_OPAQUE && !strcmp(name, "dtype") && obj.u.opaque.dtype)
        return py_str(c, obj.u.opaque.dtype, strlen(obj.u.opaque.dtype));
    static const char *const methods[] = {"get",      "keys",       "values", "items", "startswith",
                                          "endswith", "all_kwargs", "upper",  "lower"};
    for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
        if (!strcmp(methods[i], name) &&
            ((obj.k == PV_DICT && i < 4) || (obj.k == PV_STR && (i == 4 || i == 5 || i >= 7)) ||
             (obj.k == PV_CONFIG && i == 6))) {
            PyVal v = py_none();
            v.k = PV_METHOD;
            v.u.method = arena_alloc(c->arena, sizeof *v.u.method);
            v.u.method->self = obj;
            v.u.method->name = methods[i];
            return v;
        }
    py_error(c, loc, "a %s has no attribute '%s' here", py_kind_name(obj), name);
}

_Noreturn static void overflow(PyCtx *c, Loc loc) {
    py_error(c, loc, "integer overflow (decorator arguments compute in 64 bits)");
}

static int64_t add_ck(PyCtx *c, Loc loc, int64_t x, int64_t y) {
    int64_t r;
    if (__builtin_add_overflow(x, y, &r)) overflow(c, loc);
    return r;
}

static int64_t sub_ck(PyCtx *c, Loc loc, int64_t x, int64_t y) {
    int64_t r;
    if (__builtin_sub_overflow(x, y, &r)) overflow(c, loc);
    return r;
}

static int64_t mul_ck(PyCtx *c, Loc loc, int64_t x, int64_t y) {
    int64_t r;
    if (__builtin_mul_overflow(x, y, &r)) overflow(c, loc);
    return r;
}

static PyVal arith(PyCtx *c, int op, PyVal a, PyVal b, Loc loc) {
    if (op == OP_ADD && a.k == b.k && (a.k == PV_STR || a.k == PV_LIST || a.k == PV_TUPLE)) {
        if (a.k == PV_STR) {
            char *s = arena_alloc(c->arena, a.u.str.n + b.u.str.n + 1);
            memcpy(s, a.u.str.s, a.u.str.n), memcpy(s + a.u.str.n, b.u.str.s, b.u.str.n);
            return py_str(c, s, a.u.str.n + b.u.str.n);
        }
        PyVal r = seq_val(c, a.k, a.u.seq->n + b.u.seq->n);
        memcpy(r.u.seq->v, a.u.seq->v, sizeof(PyVal) * (size_t)a.u.seq->n);
        memcpy(r.u.seq->v + a.u.seq->n, b.u.seq->v, sizeof(PyVal) * (size_t)b.u.seq->n);
        return r;
    }
    if (op == OP_MUL && (a.k == PV_LIST || a.k == PV_TUPLE) && (b.k == PV_INT || b.k == PV_BOOL)) {
        int64_t times = num_i(b) < 0 ? 0 : num_i(b);
        if ((int64_t)a.u.seq->n * times > MAX_ITEMS) py_error(c, loc, "list too long");
        PyVal r = seq_val(c, a.k, (int)(a.u.seq->n * times));
        for (int64_t t = 0; t < times; t++)
            memcpy(r.u.seq->v + t * a.u.seq->n, a.u.seq->v, sizeof(PyVal) * (size_t)a.u.seq->n);
        return r;
    }
    if (!is_num(a) || !is_num(b))
        py_error(c, loc, "unsupported operand types: %s and %s", py_kind_name(a), py_kind_name(b));
    bool fl = a.k == PV_FLOAT || b.k == PV_FLOAT;
    if (op == OP_DIV) {
        if (num_f(b) == 0) py_error(c, loc, "division by zero");
        return py_float(num_f(a) / num_f(b));
    }
    if (fl) {
        double x = num_f(a), y = num_f(b);
        switch (op) {
        case OP_ADD: return py_float(x + y);
        case OP_SUB: return py_float(x - y);
        case OP_MUL: return py_float(x * y);
        case OP_POW: return py_float(pow(x, y));
        case OP_FLOORDIV:
        case OP_MOD: {
            if (y == 0) py_error(c, loc, "division by zero");
            double q = floor(x / y);
            return py_float(op == OP_FLOORDIV ? q : x - q * y);
        }
        default: py_error(c, loc, "unsupported operand type for this operator: float");
        }
    }
    int64_t x = num_i(a), y = num_i(b);
    switch (op) {
    case OP_ADD: return py_int(add_ck(c, loc, x, y));
    case OP_SUB: return py_int(sub_ck(c, loc, x, y));
    case OP_MUL: return py_int(mul_ck(c, loc, x, y));
    case OP_FLOORDIV:
    case OP_MOD: {
        if (y == 0) py_error(c, loc, "integer division or modulo by zero");
        if (x == INT64_MIN && y == -1) overflow(c, loc);
        int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) q--, m += y;
        return py_int(op == OP_FLOORDIV ? q : m);
    }
    case OP_POW: {
        if (y < 0) return py_float(pow((double)x, (double)y));
        if (x == 0 || x == 1) return py_int(y == 0 ? 1 : x);
        if (x == -1) return py_int(y % 2 ? -1 : 1);
        int64_t acc = 1;
        for (int64_t i = 0; i < y; i++)
            acc = mul_ck(c, loc, acc, x); /* overflows within 63 steps */
        return py_int(acc);
    }
    case OP_LSHIFT:
        if (y < 0) py_error(c, loc, "negative shift count");
        if (x != 0 && (y >= 63 || x > (INT64_MAX >> y) || x < (INT64_MIN >> y))) overflow(c, loc);
        return py_int(x == 0 ? 0 : (int64_t)((uint64_t)x << y));
    case OP_RSHIFT:
        if (y < 0) py_error(c, loc, "negative shift count");
        return py_int(y >= 63 ? (x < 0 ? -1 : 0) : x >> y);
    case OP_AND: return a.k == PV_BOOL && b.k == PV_BOOL ? py_bool(a.u.b & b.u.b) : py_int(x & y);
    case OP_OR: return a.k == PV_BOOL && b.k == PV_BOOL ? py_bool(a.u.b | b.u.b) : py_int(x | y);
    case OP_XOR: return a.k == PV_BOOL && b.k == PV_BOOL ? py_bool(a.u.b ^ b.u.b) : py_int(x ^ y);
    default: py_error(c, loc, "unsupported operator here");
    }
}

static int compare3(PyCtx *c, PyVal a, PyVal b, Loc loc) {
    if (is_num(a) && is_num(b)) {
        if (a.k == PV_FLOAT || b.k == PV_FLOAT)
            return num_f(a) < num_f(b) ? -1 : num_f(a) > num_f(b);
        return num_i(a) < num_i(b) ? -1 : num_i(a) > num_i(b);
    }
    if (a.k == PV_STR && b.k == PV_STR) {
        size_t n = a.u.str.n < b.u.str.n ? a.u.str.n : b.u.str.n;
        int r = memcmp(a.u.str.s, b.u.str.s, n);
        return r ? (r < 0 ? -1 : 1) : a.u.str.n < b.u.str.n ? -1 : a.u.str.n > b.u.str.n;
    }
    if ((a.k == PV_LIST || a.k == PV_TUPLE) && a.k == b.k) {
        for (int i = 0; i < a.u.seq->n && i < b.u.seq->n; i++) {
            int r = compare3(c, a.u.seq->v[i], b.u.seq->v[i], loc);
            if (r) return r;
        }
        return a.u.seq->n < b.u.seq->n ? -1 : a.u.seq->n > b.u.seq->n;
    }
    py_error(c, loc, "cannot order a %s and a %s", py_kind_name(a), py_kind_name(b));
}

static bool contains(PyCtx *c, PyVal hay, PyVal x, Loc loc) {
    if (hay.k == PV_LIST || hay.k == PV_TUPLE) {
        for (int i = 0; i < hay.u.seq->n; i++)
            if (py_equal(hay.u.seq->v[i], x)) return true;
        return false;
    }
    if (hay.k == PV_DICT) return dict_find(hay.u.dict, x) >= 0;
    if (hay.k == PV_STR && x.k == PV_STR) {
        if (x.u.str.n == 0) return true;
        for (size_t i = 0; i + x.u.str.n <= hay.u.str.n; i++)
            if (!memcmp(hay.u.str.s + i, x.u.str.s, x.u.str.n)) return true;
        return false;
    }
    py_error(c, loc, "'in' needs a list, tuple, dict or str, got %s", py_kind_name(hay));
}

static bool compare(PyCtx *c, int op, PyVal a, PyVal b, Loc loc) {
    switch (op) {
    case C_EQ: return py_equal(a, b);
    case C_NE: return !py_equal(a, b);
    case C_IS: return a.k == b.k && (a.k == PV_NONE || py_equal(a, b));
    case C_ISNOT: return !(a.k == b.k && (a.k == PV_NONE || py_equal(a, b)));
    case C_IN: return contains(c, b, a, loc);
    case C_NOTIN: return !contains(c, b, a, loc);
    case C_LT: return compare3(c, a, b, loc) < 0;
    case C_LE: return compare3(c, a, b, loc) <= 0;
    case C_GT: return compare3(c, a, b, loc) > 0;
    default: return compare3(c, a, b, loc) >= 0;
    }
}

/* The items of an iterable value (a dict gives its keys, a str its characters). */
static PySeq *items_of(PyCtx *c, PyVal v, Loc loc) {
    if (v.k == PV_LIST || v.k == PV_TUPLE) return v.u.seq;
    if (v.k == PV_DICT) {
        PyVal r = seq_val(c, PV_LIST, v.u.dict->n);
        memcpy(r.u.seq->v, v.u.dict->keys, sizeof(PyVal) * (size_t)v.u.dict->n);
        return r.u.seq;
    }
    if (v.k == PV_STR) {
        PyVal r = seq_val(c, PV_LIST, (int)v.u.str.n);
        for (size_t i = 0; i < v.u.str.n; i++) r.u.seq->v[i] = py_str(c, v.u.str.s + i, 1);
        return r.u.seq;
    }
    py_error(c, loc, "a %s is not iterable", py_kind_name(v));
}

typedef struct ValVec {
    PyVal *v;
    int n, cap;
} ValVec;

static void vpush(PyCtx *c, ValVec *v, PyVal x, Loc loc) {
    if (v->n >= MAX_ITEMS)
        py_error(c, loc, "too many items (a decorator argument holds at most %d)", MAX_ITEMS);
    VEC_PUSH(c->arena, v->v, v->n, v->cap, x);
}

static PyVal from_vec(PyCtx *c, PyKind k, ValVec *v) {
    PyVal r = seq_val(c, k, 0);
    r.u.seq->n = v->n;
    r.u.seq->v = v->v ? v->v : r.u.seq->v;
    return r;
}

static void bind_target(PyCtx *c, PyEnv *env, const PyNode *t, PyVal v) {
    if (t->k == N_NAME) {
        env_set(c, env, t->name, v);
        return;
    }
    PySeq *s = items_of(c, v, t->loc);
    if (s->n != t->n) py_error(c, t->loc, "cannot unpack %d values into %d names", s->n, t->n);
    for (int i = 0; i < t->n; i++) bind_target(c, env, t->items[i], s->v[i]);
}

static void comp_rec(PyCtx *c, const PyNode *n, PyEnv *env, int g, ValVec *keys, ValVec *vals) {
    if (g == n->ngens) {
        vpush(c, keys, py_eval(c, n->a, env), n->loc);
        if (n->op == 'd') vpush(c, vals, py_eval(c, n->b, env), n->loc);
        return;
    }
    const PyGen *gen = &n->gens[g];
    PySeq *s = items_of(c, py_eval(c, gen->iter, env), gen->iter->loc);
    for (int i = 0; i < s->n; i++) {
        tick(c, n->loc);
        PyEnv *inner = env_new(c, env);
        bind_target(c, inner, gen->target, s->v[i]);
        bool ok = true;
        for (int k = 0; k < gen->nconds && ok; k++)
            ok = py_truthy(py_eval(c, gen->conds[k], inner));
        if (ok) comp_rec(c, n, inner, g + 1, keys, vals);
    }
}

static PyVal eval_comp(PyCtx *c, const PyNode *n, PyEnv *env) {
    ValVec keys = {0}, vals = {0};
    comp_rec(c, n, env, 0, &keys, &vals);
    if (n->op == 'd') {
        PyDict *d = py_dict_new(c, keys.n);
        for (int i = 0; i < keys.n; i++) py_dict_set(c, d, keys.v[i], vals.v[i]);
        PyVal r = py_none();
        r.k = PV_DICT;
        r.u.dict = d;
        return r;
    }
    if (n->op == 's') { /* a set: distinct items, in first-seen order */
        ValVec uniq = {0};
        for (int i = 0; i < keys.n; i++) {
            bool seen = false;
            for (int j = 0; j < uniq.n && !seen; j++) seen = py_equal(uniq.v[j], keys.v[i]);
            if (!seen) vpush(c, &uniq, keys.v[i], n->loc);
        }
        return from_vec(c, PV_TUPLE, &uniq);
    }
    return from_vec(c, n->op == 'l' ? PV_LIST : PV_TUPLE, &keys);
}

static void eval_items(PyCtx *c, PyNode **items, int n, PyEnv *env, ValVec *out) {
    for (int i = 0; i < n; i++) {
        if (items[i]->k == N_STAR) {
            PySeq *s = items_of(c, py_eval(c, items[i]->a, env), items[i]->loc);
            for (int j = 0; j < s->n; j++) vpush(c, out, s->v[j], items[i]->loc);
        } else vpush(c, out, py_eval(c, items[i], env), items[i]->loc);
    }
}

static PyVal eval_call(PyCtx *c, const PyNode *n, PyEnv *env) {
    PyVal fn = py_eval(c, n->a, env);
    ValVec args = {0}, kwv = {0};
    eval_items(c, n->items, n->n, env, &args);
    const char **kwn = NULL;
    int nkw = 0, capk = 0;
    for (int i = 0; i < n->nkw; i++) {
        PyVal v = py_eval(c, n->kwvals[i], env);
        if (!n->kwnames[i]) { /* **mapping */
            if (v.k != PV_DICT)
                py_error(c, n->kwvals[i]->loc, "'**' needs a dict, got %s", py_kind_name(v));
            for (int j = 0; j < v.u.dict->n; j++) {
                if (v.u.dict->keys[j].k != PV_STR)
                    py_error(c, n->kwvals[i]->loc, "keywords must be strings");
                VEC_PUSH(c->arena, kwn, nkw, capk, v.u.dict->keys[j].u.str.s);
                vpush(c, &kwv, v.u.dict->vals[j], n->loc);
            }
            continue;
        }
        VEC_PUSH(c->arena, kwn, nkw, capk, n->kwnames[i]);
        vpush(c, &kwv, v, n->loc);
    }
    return py_call(c, fn, args.n, args.v, nkw, kwn, kwv.v, n->loc);
}

static PyVal subscript(PyCtx *c, PyVal obj, PyVal idx, const PyNode *n, PyEnv *env) {
    if (obj.k == PV_DICT) {
        int i = dict_find(obj.u.dict, idx);
        if (i < 0) {
            StrBuf k;
            sb_init(&k);
            py_print(&k, idx, true);
            char buf[256];
            snprintf(buf, sizeof buf, "%s", sb_cstr(&k));
            sb_free(&k);
            py_error(c, n->loc, "key %s is not in the dict", buf);
        }
        return obj.u.dict->vals[i];
    }
    if (obj.k != PV_LIST && obj.k != PV_TUPLE && obj.k != PV_STR)
        py_error(c, n->loc, "a %s cannot be subscripted", py_kind_name(obj));
    int64_t len = obj.k == PV_STR ? (int64_t)obj.u.str.n : obj.u.seq->n;
    if (n->b->k == N_SLICE) {
        const PyNode *s = n->b;
        int64_t step = s->c ? num_i(py_eval(c, s->c, env)) : 1;
        if (step == 0) py_error(c, n->loc, "slice step cannot be zero");
        int64_t lo = s->a ? num_i(py_eval(c, s->a, env)) : (step > 0 ? 0 : len - 1);
        int64_t hi = s->b ? num_i(py_eval(c, s->b, env)) : (step > 0 ? len : -len - 1);
        if (s->a && lo < 0) lo += len;
        if (s->b && hi < 0) hi += len;
        lo = step > 0 ? (lo < 0     ? 0
                         : lo > len ? len
                                    : lo)
                      : (lo < -1     ? -1
                         : lo >= len ? len - 1
                                     : lo);
        hi = step > 0 ? (hi < 0     ? 0
                         : hi > len ? len
                                    : hi)
                      : (hi < -1     ? -1
                         : hi >= len ? len - 1
                                     : hi);
        ValVec out = {0};
        StrBuf sb;
        sb_init(&sb);
        for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) {
            if (obj.k == PV_STR) sb_putc(&sb, obj.u.str.s[i]);
            else vpush(c, &out, obj.u.seq->v[i], n->loc);
        }
        if (obj.k == PV_STR) {
            PyVal r = py_str(c, sb.data ? sb.data : "", sb.len);
            sb_free(&sb);
            return r;
        }
        sb_free(&sb);
        return from_vec(c, obj.k, &out);
    }
    if (idx.k != PV_INT && idx.k != PV_BOOL)
        py_error(c, n->loc, "indices must be integers, not %s", py_kind_name(idx));
    int64_t i = num_i(idx);
    if (i < 0) i += len;
    if (i < 0 || i >= len) py_error(c, n->loc, "index %lld out of range", (long long)num_i(idx));
    return obj.k == PV_STR ? py_str(c, obj.u.str.s + i, 1) : obj.u.seq->v[i];
}

PyVal py_eval(PyCtx *c, const PyNode *n, PyEnv *env) {
    tick(c, n->loc);
    if (++c->depth > MAX_DEPTH) py_error(c, n->loc, "evaluation nested too deeply");
    PyVal r = py_none();
    switch (n->k) {
    case N_CONST: r = n->v; break;
    case N_NAME: r = lookup(c, n, env); break;
    case N_ATTR: r = attribute(c, py_eval(c, n->a, env), n->name, n->loc); break;
    case N_SUB:
        r = subscript(c, py_eval(c, n->a, env),
                      n->b->k == N_SLICE ? py_none() : py_eval(c, n->b, env), n, env);
        break;
    case N_CALL: r = eval_call(c, n, env); break;
    case N_BIN: {
        PyVal a = py_eval(c, n->a, env), b = py_eval(c, n->b, env);
        r = arith(c, n->op, a, b, n->loc);
        break;
    }
    case N_UN: {
        PyVal a = py_eval(c, n->a, env);
        if (!is_num(a))
            py_error(c, n->loc, "bad operand type for unary operator: %s", py_kind_name(a));
        if (n->op == OP_POS) r = a.k == PV_BOOL ? py_int(a.u.b) : a;
        else if (n->op == OP_NEG) {
            if (a.k == PV_FLOAT) r = py_float(-a.u.f);
            else r = py_int(sub_ck(c, n->loc, 0, num_i(a)));
        } else {
            if (a.k == PV_FLOAT) py_error(c, n->loc, "bad operand type for ~: float");
            r = py_int(~num_i(a));
        }
        break;
    }
    case N_NOT: r = py_bool(!py_truthy(py_eval(c, n->a, env))); break;
    case N_AND:
        r = py_eval(c, n->a, env);
        if (py_truthy(r)) r = py_eval(c, n->b, env);
        break;
    case N_OR:
        r = py_eval(c, n->a, env);
        if (!py_truthy(r)) r = py_eval(c, n->b, env);
        break;
    case N_CMP: {
        PyVal a = py_eval(c, n->items[0], env);
        r = py_bool(true);
        for (int i = 0; i + 1 < n->n; i++) {
            PyVal b = py_eval(c, n->items[i + 1], env);
            if (!compare(c, n->ops[i], a, b, n->loc)) {
                r = py_bool(false);
                break;
            }
            a = b;
        }
        break;
    }
    case N_IF:
        r = py_truthy(py_eval(c, n->b, env)) ? py_eval(c, n->a, env) : py_eval(c, n->c, env);
        break;
    case N_LAMBDA: {
        r.k = PV_FUNC;
        r.u.fn = arena_alloc(c->arena, sizeof *r.u.fn);
        r.u.fn->lambda = n;
        r.u.fn->closure = env;
        r.u.fn->defaults =
            arena_alloc(c->arena, sizeof(PyVal) * (size_t)(n->nparams ? n->nparams : 1));
        for (int i = 0; i < n->nparams; i++)
            r.u.fn->defaults[i] = n->defaults[i] ? py_eval(c, n->defaults[i], env) : py_none();
        break;
    }
    case N_LIST:
    case N_TUPLE:
    case N_SET: {
        ValVec out = {0};
        eval_items(c, n->items, n->n, env, &out);
        if (n->k == N_SET) {
            ValVec uniq = {0};
            for (int i = 0; i < out.n; i++) {
                bool seen = false;
                for (int j = 0; j < uniq.n && !seen; j++) seen = py_equal(uniq.v[j], out.v[i]);
                if (!seen) vpush(c, &uniq, out.v[i], n->loc);
            }
            out = uniq;
        }
        r = from_vec(c, n->k == N_LIST ? PV_LIST : PV_TUPLE, &out);
        break;
    }
    case N_DICT: {
        PyDict *d = py_dict_new(c, n->n / 2);
        for (int i = 0; i + 1 < n->n; i += 2) {
            if (n->items[i]->k == N_DSTAR) {
                PyVal m = py_eval(c, n->items[i]->a, env);
                if (m.k != PV_DICT)
                    py_error(c, n->items[i]->loc, "'**' needs a dict, got %s", py_kind_name(m));
                for (int j = 0; j < m.u.dict->n; j++)
                    py_dict_set(c, d, m.u.dict->keys[j], m.u.dict->vals[j]);
            } else
                py_dict_set(c, d, py_eval(c, n->items[i], env), py_eval(c, n->items[i + 1], env));
        }
        r.k = PV_DICT;
        r.u.dict = d;
        break;
    }
    case N_COMP: r = eval_comp(c, n, env); break;
    case N_FSTR: {
        StrBuf s;
        sb_init(&s);
        for (int i = 0; i < n->n; i++) py_print(&s, py_eval(c, n->items[i], env), false);
        r = py_str(c, s.data ? s.data : "", s.len);
        sb_free(&s);
        break;
    }
    case N_STAR:
    case N_DSTAR: py_error(c, n->loc, "'*' is not allowed here");
    case N_SLICE: py_error(c, n->loc, "a slice is only allowed in a subscript");
    }
    c->depth--;
    return r;
}

/* ---- calls ---- */

static PyVal call_lambda(PyCtx *c, PyVal fn, int n, const PyVal *args, int nkw,
                         const char *const *kwnames, const PyVal *kwvals, Loc where) {
    const PyNode *l = fn.u.fn->lambda;
    PyEnv *env = env_new(c, fn.u.fn->closure);
    bool *set = arena_alloc(c->arena, (size_t)(l->nparams + 1));
    for (int i = 0; i < n; i++) {
        if (i < l->nparams) {
            env_set(c, env, l->params[i], args[i]);
            set[i] = true;
        } else if (!l->star)
            py_error(c, where, "the lambda takes %d positional arguments, %d given", l->nparams, n);
    }
    if (l->star) {
        ValVec rest = {0};
        for (int i = l->nparams; i < n; i++) vpush(c, &rest, args[i], where);
        env_set(c, env, l->star, from_vec(c, PV_TUPLE, &rest));
    }
    PyDict *extra = l->dstar ? py_dict_new(c, nkw) : NULL;
    for (int k = 0; k < nkw; k++) {
        int i = 0;
        while (i < l->nparams && strcmp(l->params[i], kwnames[k])) i++;
        if (i < l->nparams) {
            if (set[i]) py_error(c, where, "the lambda got several values for '%s'", kwnames[k]);
            env_set(c, env, l->params[i], kwvals[k]);
            set[i] = true;
        } else if (extra)
            py_dict_set(c, extra, py_str(c, kwnames[k], strlen(kwnames[k])), kwvals[k]);
        else py_error(c, where, "the lambda has no parameter '%s'", kwnames[k]);
    }
    if (extra) {
        PyVal d = py_none();
        d.k = PV_DICT;
        d.u.dict = extra;
        env_set(c, env, l->dstar, d);
    }
    for (int i = 0; i < l->nparams; i++)
        if (!set[i]) {
            if (!l->defaults[i])
                py_error(c, where, "the lambda's parameter '%s' has no value", l->params[i]);
            env_set(c, env, l->params[i], fn.u.fn->defaults[i]);
        }
    return py_eval(c, l->a, env);
}

static int64_t want_int(PyCtx *c, PyVal v, Loc loc, const char *what) {
    if (v.k != PV_INT && v.k != PV_BOOL)
        py_error(c, loc, "%s must be an int, got %s", what, py_kind_name(v));
    return num_i(v);
}

static PyVal make_config(PyCtx *c, int n, const PyVal *args, int nkw, const char *const *kwnames,
                         const PyVal *kwvals, Loc where) {
    PyConfig *cf = arena_alloc(c->arena, sizeof *cf);
    cf->num_warps = option_info(OPT_NUM_WARPS)->def,
    cf->num_stages = option_info(OPT_NUM_STAGES)->def, cf->num_ctas = 1, cf->index = -1,
    cf->loc = where;
    cf->kwargs = py_dict_new(c, 4);
    if (n > 1)
        py_error(c, where,
                 "triton.Config takes one positional argument (the dict of meta-parameters)");
    if (n == 1) {
        if (args[0].k != PV_DICT)
            py_error(c, where, "triton.Config's first argument must be a dict, got %s",
                     py_kind_name(args[0]));
        for (int i = 0; i < args[0].u.dict->n; i++) {
            if (args[0].u.dict->keys[i].k != PV_STR)
                py_error(c, where, "triton.Config's keys must be parameter names");
            py_dict_set(c, cf->kwargs, args[0].u.dict->keys[i], args[0].u.dict->vals[i]);
        }
    }
    for (int k = 0; k < nkw; k++) {
        const char *nm = kwnames[k];
        PyVal v = kwvals[k];
        if (!strcmp(nm, "kwargs") && v.k == PV_DICT) {
            for (int i = 0; i < v.u.dict->n; i++)
                py_dict_set(c, cf->kwargs, v.u.dict->keys[i], v.u.dict->vals[i]);
        } else if (!strcmp(nm, "num_warps")) {
            cf->num_warps = (int)want_int(c, v, where, "num_warps");
            if (!option_valid(OPT_NUM_WARPS, cf->num_warps))
                py_error(c, where, "num_warps must be %s, got %d",
                         option_info(OPT_NUM_WARPS)->range, cf->num_warps);
        } else if (!strcmp(nm, "num_stages")) {
            cf->num_stages = (int)want_int(c, v, where, "num_stages");
            if (!option_valid(OPT_NUM_STAGES, cf->num_stages))
                py_error(c, where, "num_stages must be %s, got %d",
                         option_info(OPT_NUM_STAGES)->range, cf->num_stages);
        } else if (!strcmp(nm, "num_ctas")) {
            cf->num_ctas = (int)want_int(c, v, where, "num_ctas");
            if (cf->num_ctas != 1)
                py_error(c, where,
                         "num_ctas other than 1 (thread-block clusters) is not supported");
        } else if (!strcmp(nm, "maxnreg") || !strcmp(nm, "num_buffers_warp_spec") ||
                   !strcmp(nm, "num_consumer_groups") || !strcmp(nm, "reg_dec_producer") ||
                   !strcmp(nm, "reg_inc_consumer") || !strcmp(nm, "ir_override")) {
            if (v.k != PV_NONE && !(v.k == PV_INT && v.u.i == 0))
                py_error(c, where, "triton.Config's '%s' is not supported by Nereid", nm);
        } else if (!strcmp(nm, "pre_hook")) {
            if (v.k != PV_NONE)
                py_error(c, where, "a config's pre_hook cannot run here (it is Python code)");
        } else py_error(c, where, "triton.Config has no argument '%s'", nm);
    }
    PyVal r = py_none();
    r.k = PV_CONFIG;
    r.u.cfg = cf;
    return r;
}

static PyVal call_method(PyCtx *c, struct PyMethod *m, int n, const PyVal *args, Loc where) {
    PyVal self = m->self;
    const char *name = m->name;
    if (self.k == PV_DICT) {
        PyDict *d = self.u.dict;
        if (!strcmp(name, "get")) {
            if (n < 1 || n > 2) py_error(c, where, "dict.get takes 1 or 2 arguments");
            int i = dict_find(d, args[0]);
            return i >= 0 ? d->vals[i] : n == 2 ? args[1] : py_none();
        }
        PyVal r = seq_val(c, PV_LIST, d->n);
        for (int i = 0; i < d->n; i++) {
            if (!strcmp(name, "keys")) r.u.seq->v[i] = d->keys[i];
            else if (!strcmp(name, "values")) r.u.seq->v[i] = d->vals[i];
            else {
                PyVal t = seq_val(c, PV_TUPLE, 2);
                t.u.seq->v[0] = d->keys[i], t.u.seq->v[1] = d->vals[i];
                r.u.seq->v[i] = t;
            }
        }
        return r;
    }
    if (self.k == PV_CONFIG) { /* all_kwargs(): the meta-parameters and the launch options */
        PyDict *d = py_dict_new(c, self.u.cfg->kwargs->n + 2);
        for (int i = 0; i < self.u.cfg->kwargs->n; i++)
            py_dict_set(c, d, self.u.cfg->kwargs->keys[i], self.u.cfg->kwargs->vals[i]);
        py_dict_set(c, d, py_str(c, "num_warps", 9), py_int(self.u.cfg->num_warps));
        py_dict_set(c, d, py_str(c, "num_stages", 10), py_int(self.u.cfg->num_stages));
        PyVal r = py_none();
        r.k = PV_DICT;
        r.u.dict = d;
        return r;
    }
    if (!strcmp(name, "upper") || !strcmp(name, "lower")) {
        char *s = arena_strndup(c->arena, self.u.str.s, self.u.str.n);
        for (size_t i = 0; i < self.u.str.n; i++)
            s[i] = (char)(name[0] == 'u' ? toupper((unsigned char)s[i])
                                         : tolower((unsigned char)s[i]));
        return py_str(c, s, self.u.str.n);
    }
    if (n != 1 || args[0].k != PV_STR) py_error(c, where, "str.%s takes one string", name);
    size_t k = args[0].u.str.n;
    if (k > self.u.str.n) return py_bool(false);
    const char *at = name[0] == 's' ? self.u.str.s : self.u.str.s + self.u.str.n - k;
    return py_bool(!memcmp(at, args[0].u.str.s, k));
}

static PyVal call_builtin(PyCtx *c, int b, int n, const PyVal *args, int nkw,
                          const char *const *kwnames, const PyVal *kwvals, Loc where) {
    if (b == B_CONFIG) return make_config(c, n, args, nkw, kwnames, kwvals, where);
    if (nkw && b != B_SORTED && b != B_MIN && b != B_MAX)
        py_error(c, where, "%s() takes no keyword arguments here", builtin_names[b]);
    switch (b) {
    case B_MIN:
    case B_MAX: {
        PySeq one = {n, (PyVal *)args};
        PySeq *s = n == 1 ? items_of(c, args[0], where) : &one;
        if (s->n == 0) py_error(c, where, "%s() of an empty sequence", builtin_names[b]);
        PyVal best = s->v[0];
        for (int i = 1; i < s->n; i++) {
            int r = compare3(c, s->v[i], best, where);
            if (b == B_MIN ? r < 0 : r > 0) best = s->v[i];
        }
        return best;
    }
    case B_LEN:
        if (n != 1) py_error(c, where, "len() takes one argument");
        if (args[0].k == PV_STR) return py_int((int64_t)args[0].u.str.n);
        if (args[0].k == PV_DICT) return py_int(args[0].u.dict->n);
        return py_int(items_of(c, args[0], where)->n);
    case B_ABS:
        if (n != 1 || !is_num(args[0])) py_error(c, where, "abs() takes one number");
        return args[0].k == PV_FLOAT
                   ? py_float(fabs(args[0].u.f))
                   : py_int(num_i(args[0]) < 0 ? -num_i(args[0]) : num_i(args[0]));
    case B_INT:
        if (n == 0) return py_int(0);
        if (args[0].k == PV_FLOAT) {
            if (!(fabs(args[0].u.f) < 9.2e18))
                py_error(c, where, "int() of %g does not fit in 64 bits", args[0].u.f);
            return py_int((int64_t)args[0].u.f);
        }
        if (args[0].k == PV_STR) {
            char *end;
            errno = 0;
            long long v = strtoll(args[0].u.str.s, &end, 10);
            if (errno || *end || !args[0].u.str.n)
                py_error(c, where, "int() of a string that is not an integer");
            return py_int(v);
        }
        return py_int(want_int(c, args[0], where, "int()'s argument"));
    case B_FLOAT:
        if (n == 0) return py_float(0);
        if (args[0].k == PV_STR) {
            char *end;
            double v = strtod(args[0].u.str.s, &end);
            if (*end || !args[0].u.str.n)
                py_error(c, where, "float() of a string that is not a number");
            return py_float(v);
        }
        if (!is_num(args[0])) py_error(c, where, "float() of a %s", py_kind_name(args[0]));
        return py_float(num_f(args[0]));
    case B_BOOL: return py_bool(n > 0 && py_truthy(args[0]));
    case B_STR: {
        StrBuf s;
        sb_init(&s);
        if (n) py_print(&s, args[0], false);
        PyVal r = py_str(c, sb_cstr(&s), s.len);
        sb_free(&s);
        return r;
    }
    case B_RANGE: {
        if (n < 1 || n > 3) py_error(c, where, "range() takes 1 to 3 arguments");
        int64_t lo = n == 1 ? 0 : want_int(c, args[0], where, "range()'s start");
        int64_t hi = want_int(c, args[n == 1 ? 0 : 1], where, "range()'s stop");
        int64_t step = n == 3 ? want_int(c, args[2], where, "range()'s step") : 1;
        if (step == 0) py_error(c, where, "range() step must not be zero");
        ValVec out = {0};
        for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) {
            tick(c, where);
            vpush(c, &out, py_int(i), where);
        }
        return from_vec(c, PV_LIST, &out);
    }
    case B_LIST:
    case B_TUPLE: {
        PyVal r = seq_val(c, b == B_LIST ? PV_LIST : PV_TUPLE, 0);
        if (n) {
            PySeq *s = items_of(c, args[0], where);
            r = seq_val(c, r.k, s->n);
            memcpy(r.u.seq->v, s->v, sizeof(PyVal) * (size_t)s->n);
        }
        return r;
    }
    case B_SUM: {
        if (n < 1) py_error(c, where, "sum() takes an iterable");
        PySeq *s = items_of(c, args[0], where);
        PyVal acc = n > 1 ? args[1] : py_int(0);
        for (int i = 0; i < s->n; i++) acc = arith(c, OP_ADD, acc, s->v[i], where);
        return acc;
    }
    case B_ANY:
    case B_ALL: {
        if (n != 1) py_error(c, where, "%s() takes one iterable", builtin_names[b]);
        PySeq *s = items_of(c, args[0], where);
        for (int i = 0; i < s->n; i++)
            if (py_truthy(s->v[i]) == (b == B_ANY)) return py_bool(b == B_ANY);
        return py_bool(b == B_ALL);
    }
    case B_SORTED: {
        if (n != 1) py_error(c, where, "sorted() takes one iterable");
        PyVal key = py_none();
        bool reverse = false;
        for (int k = 0; k < nkw; k++) {
            if (!strcmp(kwnames[k], "key")) key = kwvals[k];
            else if (!strcmp(kwnames[k], "reverse")) reverse = py_truthy(kwvals[k]);
            else py_error(c, where, "sorted() has no argument '%s'", kwnames[k]);
        }
        PySeq *s = items_of(c, args[0], where);
        PyVal r = seq_val(c, PV_LIST, s->n);
        PyVal *keys = arena_alloc(c->arena, sizeof(PyVal) * (size_t)(s->n ? s->n : 1));
        for (int i = 0; i < s->n; i++) {
            r.u.seq->v[i] = s->v[i];
            keys[i] =
                key.k == PV_NONE ? s->v[i] : py_call(c, key, 1, &s->v[i], 0, NULL, NULL, where);
        }
        for (int i = 1; i < s->n; i++) /* insertion sort: stable, and lists here are short */
            for (int j = i; j > 0; j--) {
                int cmp = compare3(c, keys[j - 1], keys[j], where);
                if (reverse ? cmp >= 0 : cmp <= 0) break;
                PyVal t = keys[j];
                keys[j] = keys[j - 1];
                keys[j - 1] = t;
                t = r.u.seq->v[j];
                r.u.seq->v[j] = r.u.seq->v[j - 1];
                r.u.seq->v[j - 1] = t;
            }
        return r;
    }
    case B_ENUMERATE:
    case B_ZIP: {
        if (n < 1) py_error(c, where, "%s() takes an iterable", builtin_names[b]);
        PySeq *s0 = items_of(c, args[0], where);
        int len = s0->n;
        PySeq **ss = arena_alloc(c->arena, sizeof *ss * (size_t)n);
        for (int i = 0; i < n; i++) {
            ss[i] = items_of(c, args[i], where);
            if (ss[i]->n < len) len = ss[i]->n;
        }
        PyVal r = seq_val(c, PV_LIST, b == B_ENUMERATE ? s0->n : len);
        for (int i = 0; i < r.u.seq->n; i++) {
            int w = b == B_ENUMERATE ? 2 : n;
            PyVal t = seq_val(c, PV_TUPLE, w);
            for (int k = 0; k < w; k++)
                t.u.seq->v[k] = b == B_ENUMERATE ? (k == 0 ? py_int(i) : s0->v[i]) : ss[k]->v[i];
            r.u.seq->v[i] = t;
        }
        return r;
    }
    case B_DICT: {
        PyDict *d = py_dict_new(c, 4);
        if (n == 1) {
            if (args[0].k == PV_DICT) {
                for (int i = 0; i < args[0].u.dict->n; i++)
                    py_dict_set(c, d, args[0].u.dict->keys[i], args[0].u.dict->vals[i]);
            } else {
                PySeq *s = items_of(c, args[0], where);
                for (int i = 0; i < s->n; i++) {
                    PySeq *kv = items_of(c, s->v[i], where);
                    if (kv->n != 2) py_error(c, where, "dict() needs (key, value) pairs");
                    py_dict_set(c, d, kv->v[0], kv->v[1]);
                }
            }
        }
        PyVal r = py_none();
        r.k = PV_DICT;
        r.u.dict = d;
        return r;
    }
    case B_ROUND:
        if (n < 1 || !is_num(args[0])) py_error(c, where, "round() takes a number");
        if (n == 1) return py_int((int64_t)nearbyint(num_f(args[0])));
        return py_float(
            nearbyint(num_f(args[0]) * pow(10, (double)want_int(c, args[1], where, "ndigits"))) /
            pow(10, (double)num_i(args[1])));
    case B_IDENT:
        if (n != 1) py_error(c, where, "constexpr() takes one value");
        return args[0];
    case B_CDIV: {
        if (n != 2) py_error(c, where, "cdiv() takes two ints");
        int64_t x = want_int(c, args[0], where, "cdiv()'s argument"),
                y = want_int(c, args[1], where, "cdiv()'s argument");
        if (y == 0) py_error(c, where, "cdiv() by zero");
        PyVal q = arith(c, OP_FLOORDIV, py_int(x), py_int(-y), where);
        return py_int(-q.u.i);
    }
    case B_NEXT_POW2: {
        if (n != 1) py_error(c, where, "next_power_of_2() takes one int");
        int64_t x = want_int(c, args[0], where, "next_power_of_2()'s argument"), p;
        if (!py_next_power_of_2(x, &p))
            py_error(c, where, "next_power_of_2(%lld) does not fit in 64 bits", (long long)x);
        return py_int(p);
    }
    case B_CEIL:
    case B_FLOOR:
        if (n != 1 || !is_num(args[0]))
            py_error(c, where, "math.%s takes one number", builtin_names[b]);
        return py_int((int64_t)(b == B_CEIL ? ceil(num_f(args[0])) : floor(num_f(args[0]))));
    case B_LOG2:
    case B_SQRT:
        if (n != 1 || !is_num(args[0]))
            py_error(c, where, "math.%s takes one number", builtin_names[b]);
        if (num_f(args[0]) < 0 || (b == B_LOG2 && num_f(args[0]) == 0))
            py_error(c, where, "math domain error");
        return py_float(b == B_LOG2 ? log2(num_f(args[0])) : sqrt(num_f(args[0])));
    }
    py_error(c, where, "cannot call this builtin here");
}

PyVal py_call(PyCtx *c, PyVal fn, int n, const PyVal *args, int nkw, const char *const *kwnames,
              const PyVal *kwvals, Loc where) {
    if (++c->depth > MAX_DEPTH) py_error(c, where, "calls nested too deeply");
    PyVal r;
    if (fn.k == PV_FUNC) r = call_lambda(c, fn, n, args, nkw, kwnames, kwvals, where);
    else if (fn.k == PV_BUILTIN)
        r = call_builtin(c, fn.u.builtin, n, args, nkw, kwnames, kwvals, where);
    else if (fn.k == PV_METHOD) {
        if (nkw) py_error(c, where, "methods take no keyword arguments here");
        r = call_method(c, fn.u.method, n, args, where);
    } else py_error(c, where, "a %s is not callable", py_kind_name(fn));
    c->depth--;
    return r;
}
