/* ir_parse.c - reads the IR's textual form (see ir_print.c) back into a module: a
 * hand-written lexer and a recursive-descent parser. It exists for tests and for
 * `nereid opt`, so its input is untrusted: every mistake is a located error, nesting is
 * bounded, and nothing is checked here that the verifier checks (arities, types,
 * dominance), so verifier tests can be written as text. The parser only insists on what
 * it needs to build the IR: known ops, values named before use (the printer numbers in
 * definition order, so a valid module never refers forward), attributes as the op's
 * format says, well-formed types, one type per result and the op's number of regions.
 *
 * GPU-stage IR adds a header: `gpu<arch=sm_90a, num_warps=4>` and the layout table
 * (`#L1 = blocked<spt=[4], tpw=[32], wpc=[4], order=[0]>`, numbered in order, each naming
 * only earlier ones); types may carry a layout (`<128xfp32, #L1>`) and shared-memory
 * buffers are `smem<64x32xfp16, stages=3, #L2>`; tensor descriptors
 * `tdesc<64x64xfp16>`; an op's shared memory is `smem = [offset, bytes]` in its
 * attributes. Whether a layout suits its value is the verifier's to say. */
#include "compiler/support/options.h"
#include "ir.h"
#include "ir_layout.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64, MAX_DIM = 1 << 30, MAX_COUNT = 65535 };

typedef enum {
    T_EOF,
    T_IDENT,
    T_VALUE,
    T_FUNC,
    T_NUMBER,
    T_STRING,
    T_PUNCT,
    T_ARROW,
    T_LAYOUT,
    T_ERROR
} TokKind;

typedef struct Token {
    int kind;
    const char *start; /* the whole token; for T_VALUE/T_FUNC the name after the sigil */
    size_t len;
    int line, col;
    char punct;
    bool quoted; /* T_FUNC written @"..." (start/len cover the quoted string) */
} Token;

/* Value names of the function being parsed: open addressing over arena arrays. */
typedef struct NameEntry {
    const char *name;
    size_t len;
    ValId v;
} NameEntry;

typedef struct Parser {
    Arena *arena;
    Diag *diag;
    const Source *src;
    const char *p, *end;
    int line, col;
    Token tok;
    bool failed;
    IrModule *m;
    IrFunc *f;
    NameEntry *names;
    uint32_t nnames, capnames; /* capnames: a power of two */
    int depth;
} Parser;

/* ---- errors ---- */

static Loc tok_loc(const Parser *P, Token t) { return (Loc){P->src, t.line, t.col}; }

__attribute__((format(printf, 3, 4))) static bool fail_at(Parser *P, Loc loc, const char *fmt,
                                                          ...) {
    if (P->failed) return false;
    P->failed = true;
    va_list ap;
    va_start(ap, fmt);
    diag_verror(P->diag, loc, fmt, ap);
    va_end(ap);
    P->tok.kind = T_ERROR;
    return false;
}

#define FAIL(P, ...) fail_at((P), tok_loc((P), (P)->tok), __VA_ARGS__)

/* ---- lexer ---- */

static bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '$';
}
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static void advance(Parser *P, size_t n) {
    for (size_t i = 0; i < n && P->p < P->end; i++, P->p++) {
        if (*P->p == '\n') P->line++, P->col = 1;
        else P->col++;
    }
}

static char peek(const Parser *P, size_t k) { return P->p + k < P->end ? P->p[k] : 0; }

static void skip_space(Parser *P) {
    for (;;) {
        char c = peek(P, 0);
        if (P->p < P->end && (c == ' ' || c == '\t' || c == '\r' || c == '\n')) advance(P, 1);
        else if (c == '/' && peek(P, 1) == '/')
            while (P->p < P->end && *P->p != '\n') advance(P, 1);
        else return;
    }
}

static size_t scan_while(const Parser *P, size_t k, bool (*pred)(char)) {
    while (P->p + k < P->end && pred(P->p[k])) k++;
    return k;
}

/* A string literal's extent; escapes are decoded later by decode_string. */
static size_t scan_string(Parser *P) {
    size_t k = 1;
    while (P->p + k < P->end && P->p[k] != '"' && P->p[k] != '\n') k += P->p[k] == '\\' ? 2 : 1;
    if (P->p + k >= P->end || P->p[k] != '"') {
        FAIL(P, "unterminated string");
        return 0;
    }
    return k + 1;
}

static size_t scan_number(const Parser *P) {
    size_t k = peek(P, 0) == '-' ? 1 : 0;
    k = scan_while(P, k, is_digit);
    if (peek(P, k) == '.') k = scan_while(P, k + 1, is_digit);
    char e = peek(P, k);
    if (e == 'e' || e == 'E') {
        size_t j = k + 1;
        if (peek(P, j) == '+' || peek(P, j) == '-') j++;
        if (is_digit(peek(P, j))) k = scan_while(P, j, is_digit);
    }
    return k;
}

static size_t scan_sigil(Parser *P, int kind) {
    if (kind == T_FUNC && peek(P, 1) == '"') {
        advance(P, 1);
        P->tok.quoted = true;
        P->tok.start = P->p;
        return scan_string(P);
    }
    size_t k = scan_while(P, 1, is_name_char);
    if (k == 1) {
        FAIL(P, "expected a name after '%c'", *P->p);
        return 0;
    }
    advance(P, 1);
    P->tok.start = P->p;
    return k - 1;
}

static void next(Parser *P) {
    if (P->failed) return;
    skip_space(P);
    Token t = {T_EOF, P->p, 0, P->line, P->col, 0, false};
    P->tok = t;
    if (P->p >= P->end) return;
    char c = *P->p;
    size_t n = 1;
    if (c == '%' || c == '@') {
        P->tok.kind = c == '%' ? T_VALUE : T_FUNC;
        n = scan_sigil(P, P->tok.kind);
    } else if (c == '#') { /* #L12: a layout; start/len cover the number */
        if (peek(P, 1) != 'L' || !is_digit(peek(P, 2))) {
            FAIL(P, "expected a layout '#L<number>'");
            return;
        }
        P->tok.kind = T_LAYOUT;
        advance(P, 2);
        P->tok.start = P->p;
        n = scan_while(P, 0, is_digit);
    } else if (is_ident_start(c)) {
        P->tok.kind = T_IDENT;
        n = scan_while(P, 0, is_name_char);
    } else if (is_digit(c) || (c == '-' && is_digit(peek(P, 1)))) {
        P->tok.kind = T_NUMBER;
        n = scan_number(P);
    } else if (c == '-' && peek(P, 1) == '>') {
        P->tok.kind = T_ARROW;
        n = 2;
    } else if (c == '"') {
        P->tok.kind = T_STRING;
        n = scan_string(P);
    } else if (c && strchr("(){}[],:=<>^-", c)) {
        P->tok.kind = T_PUNCT;
        P->tok.punct = c;
    } else if ((unsigned char)c < 32 || (unsigned char)c >= 127) {
        FAIL(P, "unexpected byte 0x%02x", (unsigned char)c);
        return;
    } else {
        FAIL(P, "unexpected character '%c'", c);
        return;
    }
    if (P->failed) return;
    P->tok.len = n;
    advance(P, n);
}

/* ---- token helpers ---- */

static bool is_punct(const Parser *P, char c) {
    return P->tok.kind == T_PUNCT && P->tok.punct == c;
}

static bool tok_is(const Token *t, const char *s) {
    return t->kind == T_IDENT && t->len == strlen(s) && !memcmp(t->start, s, t->len);
}

static bool accept(Parser *P, char c) {
    if (!is_punct(P, c)) return false;
    next(P);
    return true;
}

static bool expect(Parser *P, char c) {
    if (accept(P, c)) return true;
    if (P->failed) return false;
    return FAIL(P, "expected '%c'", c);
}

static bool expect_kw(Parser *P, const char *kw) {
    if (tok_is(&P->tok, kw)) {
        next(P);
        return true;
    }
    return FAIL(P, "expected '%s'", kw);
}

/* Decodes a string token (quotes included in t) into the arena. */
static const char *decode_string(Parser *P, Token t) {
    char *out = arena_alloc(P->arena, t.len);
    size_t n = 0;
    for (size_t i = 1; i + 1 < t.len; i++) {
        char c = t.start[i];
        if (c != '\\') {
            out[n++] = c;
            continue;
        }
        c = t.start[++i];
        if (c == 'n') out[n++] = '\n';
        else if (c == 't') out[n++] = '\t';
        else if (c == 'r') out[n++] = '\r';
        else if (c == '"' || c == '\\') out[n++] = c;
        else if (c == 'x' && i + 3 < t.len && strchr("0123456789abcdefABCDEF", t.start[i + 1]) &&
                 t.start[i + 1] && strchr("0123456789abcdefABCDEF", t.start[i + 2]) &&
                 t.start[i + 2]) {
            char hex[3] = {t.start[i + 1], t.start[i + 2], 0};
            long v = strtol(hex, NULL, 16);
            if (!v) return fail_at(P, tok_loc(P, t), "string contains a NUL byte"), NULL;
            out[n++] = (char)v;
            i += 2;
        } else {
            return fail_at(P, tok_loc(P, t), "unknown escape sequence in string"), NULL;
        }
    }
    out[n] = 0;
    return out;
}

/* ---- value names ---- */

static uint64_t hash_name(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static NameEntry *name_slot(Parser *P, const char *s, size_t n) {
    uint32_t mask = P->capnames - 1;
    for (uint32_t i = (uint32_t)hash_name(s, n) & mask;; i = (i + 1) & mask) {
        NameEntry *e = &P->names[i];
        if (!e->name || (e->len == n && !memcmp(e->name, s, n))) return e;
    }
}

static void names_reset(Parser *P) {
    P->capnames = 64;
    P->nnames = 0;
    P->names = arena_alloc(P->arena, sizeof(NameEntry) * P->capnames);
}

static void names_grow(Parser *P) {
    NameEntry *old = P->names;
    uint32_t oldcap = P->capnames;
    P->capnames *= 2;
    P->names = arena_alloc(P->arena, sizeof(NameEntry) * P->capnames);
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].name) *name_slot(P, old[i].name, old[i].len) = old[i];
}

static bool bind_name(Parser *P, Token t, ValId v) {
    if (2 * (P->nnames + 1) > P->capnames) names_grow(P);
    NameEntry *e = name_slot(P, t.start, t.len);
    if (e->name)
        return fail_at(P, tok_loc(P, t), "redefinition of value '%%%.*s'", (int)t.len, t.start);
    *e = (NameEntry){t.start, t.len, v};
    P->nnames++;
    return true;
}

static ValId lookup_name(Parser *P, Token t) {
    NameEntry *e = name_slot(P, t.start, t.len);
    if (!e->name) fail_at(P, tok_loc(P, t), "use of undefined value '%%%.*s'", (int)t.len, t.start);
    return e->name ? e->v : 0;
}

/* ---- types: scanned as characters, since "128x64xfp16" is not made of our tokens ---- */

typedef struct TypeScan {
    Parser *P;
    const char *s, *base;
    Token at;
} TypeScan;

static bool type_fail(TypeScan *T, const char *msg) {
    Loc loc = {T->P->src, T->at.line, T->at.col + (int)(T->s - T->base)};
    return fail_at(T->P, loc, "%s", msg);
}

/* A shape one dim past NR_MAX_RANK; what: "blocks" or "buffers". */
static bool rank_fail(TypeScan *T, const char *what) {
    Loc loc = {T->P->src, T->at.line, T->at.col + (int)(T->s - T->base)};
    return fail_at(T->P, loc, "%s have at most %d dimensions", what, NR_MAX_RANK);
}

static char tpeek(const TypeScan *T) { return T->s < T->P->end ? *T->s : 0; }

/* A number dtype; what names what is expected when there is none (a pointer's pointee
 * and a buffer's elements are numbers, never pointers). */
static bool scan_dtype(TypeScan *T, int *dt, const char *what) {
    const char *b = T->s;
    while (T->s < T->P->end && T->s - b < 8 && ((*T->s >= 'a' && *T->s <= 'z') || is_digit(*T->s)))
        T->s++;
    char name[9] = {0};
    memcpy(name, b, (size_t)(T->s - b));
    *dt = dt_from_name(name);
    if (*dt != DT_VOID) return true;
    T->s = b;
    return type_fail(T, what);
}

static bool scan_elem(TypeScan *T, IrType *out) {
    if (T->P->end - T->s >= 4 && !memcmp(T->s, "ptr<", 4)) {
        T->s += 4;
        int pointee;
        if (!scan_dtype(T, &pointee,
                        "expected a pointee type (i1, i8, ..., u64, fp16, bf16, fp32, fp64, "
                        "fp8e4nv, fp8e5)"))
            return false;
        if (tpeek(T) != '>') return type_fail(T, "expected '>' after the pointee type");
        T->s++;
        *out = ty_ptr(pointee);
        return true;
    }
    int dt;
    if (!scan_dtype(T, &dt,
                    "expected an element type (i1, i8, ..., u64, fp16, bf16, fp32, fp64, fp8e4nv, "
                    "fp8e5 or ptr<...>)"))
        return false;
    *out = ty_scalar(dt);
    return true;
}

static bool scan_dim(TypeScan *T, int32_t *dim) {
    if (!is_digit(tpeek(T))) return type_fail(T, "expected a dimension");
    int64_t v = 0;
    const char *b = T->s;
    while (is_digit(tpeek(T))) {
        v = v * 10 + (*T->s++ - '0');
        if (v > MAX_DIM) return T->s = b, type_fail(T, "dimension too large");
    }
    if (v == 0) return T->s = b, type_fail(T, "dimensions must be positive");
    *dim = (int32_t)v;
    if (tpeek(T) != 'x') return type_fail(T, "expected 'x' after a dimension");
    T->s++;
    return true;
}

static bool scan_literal(TypeScan *T, const char *lit) {
    size_t n = strlen(lit);
    if ((size_t)(T->P->end - T->s) < n || memcmp(T->s, lit, n)) return false;
    T->s += n;
    return true;
}

static bool scan_uint(TypeScan *T, int64_t max, int64_t *out) {
    if (!is_digit(tpeek(T))) return type_fail(T, "expected a number");
    int64_t v = 0;
    const char *b = T->s;
    while (is_digit(tpeek(T))) {
        v = v * 10 + (*T->s++ - '0');
        if (v > max) return T->s = b, type_fail(T, "number too large");
    }
    *out = v;
    return true;
}

/* The rest of a block or buffer type after its element type: [, stages=N] [, #Ln] '>',
 * each at most once, in that order. */
static bool scan_type_tail(TypeScan *T, bool smem, int *stages, uint32_t *layout) {
    const char *close =
        smem ? "expected '>' to close the buffer type" : "expected '>' to close the block type";
    bool seen_stages = false;
    while (tpeek(T) == ',') {
        T->s++;
        while (tpeek(T) == ' ') T->s++;
        if (*layout)
            return type_fail(T,
                             smem ? "expected '>': the layout comes last in a buffer type" : close);
        int64_t v;
        const char *at = T->s;
        if (smem && !seen_stages && scan_literal(T, "stages=")) {
            const char *num = T->s;
            if (!scan_uint(T, 255, &v)) return false;
            if (v < 1) return T->s = num, type_fail(T, "stages must be at least 1");
            *stages = (int)v, seen_stages = true;
        } else if (scan_literal(T, "#L")) {
            if (!scan_uint(T, UINT32_MAX, &v)) return false;
            if (v < 1 || v >= T->P->m->nlayouts)
                return T->s = at,
                       type_fail(T, "no such layout (layouts are defined before the functions)");
            *layout = (uint32_t)v;
        } else {
            return type_fail(T, smem && !seen_stages ? "expected 'stages=N' or a layout '#Ln'"
                                                     : "expected a layout '#Ln'");
        }
    }
    if (tpeek(T) != '>') return type_fail(T, close);
    T->s++;
    return true;
}

static bool scan_block(TypeScan *T, IrType *out, uint32_t *layout) {
    int32_t shape[NR_MAX_RANK];
    int rank = 0, stages = 1;
    T->s++; /* '<' */
    do {
        if (rank == NR_MAX_RANK) return rank_fail(T, "blocks");
        if (!scan_dim(T, &shape[rank++])) return false;
    } while (is_digit(tpeek(T)));
    IrType elem;
    if (!scan_elem(T, &elem) || !scan_type_tail(T, false, &stages, layout)) return false;
    *out = ty_block(elem, rank, shape);
    return true;
}

/* smem<64x32xfp16[, stages=3][, #L2]> */
static bool scan_smem(TypeScan *T, IrType *out, uint32_t *layout) {
    int32_t shape[NR_MAX_RANK];
    int rank = 0, stages = 1, dt;
    do {
        if (rank == NR_MAX_RANK) return rank_fail(T, "buffers");
        if (!scan_dim(T, &shape[rank++])) return false;
    } while (is_digit(tpeek(T)));
    if (!scan_dtype(T, &dt,
                    "expected a buffer element type (i1, i8, ..., u64, fp16, bf16, fp32, fp64, "
                    "fp8e4nv, fp8e5)") ||
        !scan_type_tail(T, true, &stages, layout))
        return false;
    *out = ty_smem(dt, rank, shape, stages);
    return true;
}

/* tdesc<64x64xfp16> */
static bool scan_tdesc(TypeScan *T, IrType *out) {
    int32_t shape[NR_MAX_DESC_RANK];
    int rank = 0, dt;
    do {
        if (rank == NR_MAX_DESC_RANK) return type_fail(T, "descriptors have at most 5 dimensions");
        if (!scan_dim(T, &shape[rank++])) return false;
    } while (is_digit(tpeek(T)));
    if (!scan_dtype(T, &dt,
                    "expected a descriptor element type (i8, ..., u64, fp16, bf16, fp32, fp64, "
                    "fp8e4nv, fp8e5)"))
        return false;
    if (tpeek(T) != '>') return type_fail(T, "expected '>' to close the descriptor type");
    T->s++;
    *out = ty_tdesc(dt, rank, shape);
    return true;
}

/* A type and the layout it names (0 if none; layout may be NULL where none is allowed). */
static bool parse_type_layout(Parser *P, IrType *out, uint32_t *layout) {
    if (P->tok.kind != T_IDENT && !is_punct(P, '<')) return FAIL(P, "expected a type");
    TypeScan T = {P, P->tok.start, P->tok.start, P->tok};
    uint32_t lay = 0;
    bool ok;
    if (scan_literal(&T, "smem<")) ok = scan_smem(&T, out, &lay);
    else if (scan_literal(&T, "tdesc<")) ok = scan_tdesc(&T, out);
    else ok = *T.s == '<' ? scan_block(&T, out, &lay) : scan_elem(&T, out);
    if (!ok) return false;
    if (lay && !layout) return fail_at(P, tok_loc(P, T.at), "a layout is not allowed here");
    if (layout) *layout = lay;
    /* types hold no newlines: resume the lexer right after the type */
    P->p = T.s;
    P->line = T.at.line;
    P->col = T.at.col + (int)(T.s - T.base);
    next(P);
    return !P->failed;
}

static bool parse_type(Parser *P, IrType *out) { return parse_type_layout(P, out, NULL); }

/* ---- numbers ---- */

static bool number_text(Parser *P, Token t, char *buf, size_t size) {
    if (t.len >= size) return fail_at(P, tok_loc(P, t), "number too long");
    memcpy(buf, t.start, t.len);
    buf[t.len] = 0;
    return true;
}

static bool is_integral(Token t) {
    return !memchr(t.start, '.', t.len) && !memchr(t.start, 'e', t.len) &&
           !memchr(t.start, 'E', t.len);
}

/* Any integer that fits 64 bits, signed or unsigned (u64 constants print unsigned). */
static bool parse_int(Parser *P, int64_t *out) {
    Token t = P->tok;
    char buf[64];
    if (t.kind != T_NUMBER || !is_integral(t)) return FAIL(P, "expected an integer");
    if (!number_text(P, t, buf, sizeof buf)) return false;
    errno = 0;
    if (buf[0] == '-') *out = strtoll(buf, NULL, 10);
    else *out = (int64_t)strtoull(buf, NULL, 10);
    if (errno == ERANGE) return FAIL(P, "integer out of range");
    next(P);
    return true;
}

/* A float: a number, inf, -inf or nan. */
static bool parse_float(Parser *P, double *out) {
    bool neg = false;
    if (is_punct(P, '-')) {
        next(P);
        neg = true;
        if (!tok_is(&P->tok, "inf")) return FAIL(P, "expected 'inf' after '-'");
    }
    if (tok_is(&P->tok, "inf") || tok_is(&P->tok, "nan")) {
        *out = tok_is(&P->tok, "nan") ? NAN : neg ? -INFINITY : INFINITY;
        next(P);
        return true;
    }
    char buf[64];
    if (P->tok.kind != T_NUMBER) return FAIL(P, "expected a number");
    if (!number_text(P, P->tok, buf, sizeof buf)) return false;
    *out = strtod(buf, NULL);
    next(P);
    return true;
}

/* ---- attributes ---- */

/* What an attribute dict gave, before the result type decides how num reads. */
typedef struct Attrs {
    int64_t attr[IR_OP_NATTR];
    double fattr;
    const char *sattr;
    Token num_tok;
    bool num_is_float; /* the num was written as a float (or inf/nan) */
    int64_t smem[2];   /* the GPU back end's shared memory: offset, bytes */
} Attrs;

static bool parse_ints(Parser *P, const IrAttrSpec *a, int want, Attrs *A) {
    Token open = P->tok;
    if (!expect(P, '[')) return false;
    int n = 0;
    while (!is_punct(P, ']')) {
        if (n && !expect(P, ',')) return false;
        if (a->slot + n >= IR_OP_NATTR)
            return FAIL(P, "too many values for attribute '%s'", a->name);
        if (!parse_int(P, &A->attr[a->slot + n])) return false;
        n++;
    }
    next(P);
    if (n != want)
        return fail_at(P, tok_loc(P, open), "attribute '%s' needs %d value%s (the operand's rank)",
                       a->name, want, want == 1 ? "" : "s");
    return true;
}

static bool parse_num(Parser *P, Attrs *A) {
    A->num_tok = P->tok;
    if (P->tok.kind == T_NUMBER && is_integral(P->tok)) return parse_int(P, &A->attr[0]);
    A->num_is_float = true;
    return parse_float(P, &A->fattr);
}

static bool parse_enum(Parser *P, const IrAttrSpec *a, Attrs *A) {
    int v = P->tok.kind == T_IDENT ? ir_attr_enum_value(a->kind, P->tok.start, P->tok.len) : -1;
    if (v < 0)
        return FAIL(P, "attribute '%s' must be one of %s", a->name, ir_attr_enum_list(a->kind));
    A->attr[a->slot] = v;
    next(P);
    return true;
}

static bool parse_attr_value(Parser *P, const IrAttrSpec *a, int operand_rank, Attrs *A) {
    switch (a->kind) {
    case IR_ATTR_INT: return parse_int(P, &A->attr[a->slot]);
    case IR_ATTR_FLOAT: return parse_float(P, &A->fattr);
    case IR_ATTR_STR:
        if (P->tok.kind != T_STRING) return FAIL(P, "attribute '%s' must be a string", a->name);
        A->sattr = decode_string(P, P->tok);
        next(P);
        return A->sattr != NULL;
    case IR_ATTR_INTS: return parse_ints(P, a, ir_ints_len(operand_rank), A);
    case IR_ATTR_NUM: return parse_num(P, A);
    default: return parse_enum(P, a, A);
    }
}

static int find_spec(const IrAttrSpec *specs, int n, Token t) {
    for (int i = 0; i < n; i++)
        if (strlen(specs[i].name) == t.len && !memcmp(specs[i].name, t.start, t.len)) return i;
    return -1;
}

/* smem = [offset, bytes]: where the allocation pass put the op's shared memory */
static bool parse_smem_attr(Parser *P, Attrs *A, bool *seen) {
    if (*seen) return FAIL(P, "attribute 'smem' given twice");
    *seen = true;
    next(P);
    if (!expect(P, '=') || !expect(P, '[') || !parse_int(P, &A->smem[0]) || !expect(P, ',') ||
        !parse_int(P, &A->smem[1]))
        return false;
    if (A->smem[0] < 0 || A->smem[1] < 1 || A->smem[0] > INT32_MAX || A->smem[1] > INT32_MAX)
        return FAIL(P, "smem needs an offset >= 0 and a size >= 1");
    return expect(P, ']');
}

/* {name = value, ...}: every attribute of the op exactly once, in any order, and the
 * GPU back end's optional smem. */
static bool parse_attr_dict(Parser *P, int code, int operand_rank, Attrs *A) {
    IrAttrSpec specs[IR_MAX_ATTRS];
    int n = ir_attr_specs(code, specs);
    bool seen[IR_MAX_ATTRS] = {false}, seen_smem = false;
    Token open = P->tok;
    if (!is_punct(P, '{'))
        return FAIL(P, "expected '{' and the attributes of '%s'", ir_op_info[code].name);
    next(P);
    for (int k = 0; !is_punct(P, '}'); k++) {
        if (k && !expect(P, ',')) return false;
        Token name = P->tok;
        if (tok_is(&name, "smem")) {
            if (!parse_smem_attr(P, A, &seen_smem)) return false;
            continue;
        }
        int i = name.kind == T_IDENT ? find_spec(specs, n, name) : -1;
        if (i < 0 && name.kind == T_IDENT)
            return FAIL(P, "unknown attribute '%.*s' for op '%s'", (int)name.len, name.start,
                        ir_op_info[code].name);
        if (i < 0) return FAIL(P, "expected an attribute name");
        if (seen[i]) return FAIL(P, "attribute '%s' given twice", specs[i].name);
        seen[i] = true;
        next(P);
        if (!expect(P, '=') || !parse_attr_value(P, &specs[i], operand_rank, A)) return false;
    }
    next(P);
    for (int i = 0; i < n; i++)
        if (!seen[i] && !specs[i].optional)
            return fail_at(P, tok_loc(P, open), "op '%s' needs attribute '%s'",
                           ir_op_info[code].name, specs[i].name);
    return true;
}

/* Does the op have attributes it must be given? (Optional ones may be left out.) */
static bool needs_attrs(int code) {
    IrAttrSpec specs[IR_MAX_ATTRS];
    int n = ir_attr_specs(code, specs);
    for (int i = 0; i < n; i++)
        if (!specs[i].optional) return true;
    return false;
}

/* At a '{' after an op's operands: an attribute dictionary ("{name = ..." or "{}") rather
 * than the op's first region (whose first line is an op, a region header or "}"). */
static bool brace_opens_attrs(const Parser *P) {
    const char *s = P->p, *e = P->end;
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    if (s < e && *s == '}') return true;
    const char *id = s;
    while (s < e &&
           ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' || is_digit(*s)))
        s++;
    if (s == id) return false;
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    return s < e && *s == '=';
}

/* A num is an int for integer (and pointer) dtypes, a float for float dtypes. */
static bool settle_num(Parser *P, Attrs *A, int dt) {
    if (dt_is_float(dt)) {
        if (!A->num_is_float) {
            char buf[64];
            if (!number_text(P, A->num_tok, buf, sizeof buf)) return false;
            A->fattr = strtod(buf, NULL);
            A->attr[0] = 0;
        }
        return true;
    }
    if (A->num_is_float)
        return fail_at(P, tok_loc(P, A->num_tok),
                       "expected an integer value for a constant of type %s", dt_name(dt));
    return true;
}

/* ---- ops and regions ---- */

typedef struct OpText {
    Token *res;
    uint32_t nres, capres;
    ValId *opnds;
    uint32_t nopnds, capopnds;
    IrType *tys;
    uint32_t ntys, captys;
    uint32_t *lays; /* the layout each result type names (0: none) */
    uint32_t nlays, caplays;
    Token name;
    int code;
    Attrs attrs;
} OpText;

static bool parse_region(Parser *P, OpId op);

static bool parse_result_names(Parser *P, OpText *o) {
    if (P->tok.kind != T_VALUE) return true;
    for (;;) {
        if (o->nres == MAX_COUNT) return FAIL(P, "too many results");
        VEC_PUSH(P->arena, o->res, o->nres, o->capres, P->tok);
        next(P);
        if (!accept(P, ',')) break;
        if (P->tok.kind != T_VALUE) return FAIL(P, "expected a value name");
    }
    return expect(P, '=');
}

static bool parse_op_name(Parser *P, OpText *o) {
    o->name = P->tok;
    if (P->tok.kind != T_IDENT) return FAIL(P, "expected an op name");
    char buf[32] = {0};
    if (P->tok.len < sizeof buf) memcpy(buf, P->tok.start, P->tok.len);
    o->code = ir_op_from_name(buf);
    if (o->code < 0) return FAIL(P, "unknown op '%.*s'", (int)P->tok.len, P->tok.start);
    next(P);
    return true;
}

/* Operands start on the op's line: `return` then `%1 = ...` on the next line is two ops. */
static bool parse_operands(Parser *P, OpText *o) {
    if (P->tok.kind != T_VALUE || P->tok.line != o->name.line) return true;
    for (;;) {
        ValId v = lookup_name(P, P->tok);
        if (!v) return false;
        VEC_PUSH(P->arena, o->opnds, o->nopnds, o->capopnds, v);
        next(P);
        if (!accept(P, ',')) return true;
        if (P->tok.kind != T_VALUE) return FAIL(P, "expected a value");
    }
}

static bool parse_result_types(Parser *P, OpText *o) {
    if (!accept(P, ':')) return true;
    for (;;) {
        IrType t;
        uint32_t lay;
        if (!parse_type_layout(P, &t, &lay)) return false;
        VEC_PUSH(P->arena, o->tys, o->ntys, o->captys, t);
        VEC_PUSH(P->arena, o->lays, o->nlays, o->caplays, lay);
        if (!accept(P, ',')) return true;
    }
}

static OpId build_op(Parser *P, RegionId region, OpText *o) {
    IrOp *op;
    OpId id = ir_op_new(P->f, o->code, tok_loc(P, o->name), o->opnds, o->nopnds, o->tys, o->ntys);
    op = ir_op(P->f, id);
    memcpy(op->attr, o->attrs.attr, sizeof op->attr);
    op->fattr = o->attrs.fattr;
    op->sattr = o->attrs.sattr;
    op->smem_offset = (int32_t)o->attrs.smem[0];
    op->smem_size = (int32_t)o->attrs.smem[1];
    ir_region_append(P->f, region, id);
    for (uint32_t i = 0; i < o->nres; i++) {
        P->f->vals[ir_result(P->f, id, i)].layout = o->lays[i];
        if (!bind_name(P, o->res[i], ir_result(P->f, id, i))) return 0;
    }
    return id;
}

static bool parse_op(Parser *P, RegionId region) {
    OpText o;
    memset(&o, 0, sizeof o);
    if (!parse_result_names(P, &o) || !parse_op_name(P, &o) || !parse_operands(P, &o)) return false;
    int rank = o.nopnds ? ir_type(P->f, o.opnds[0]).rank : 0;
    bool dict = needs_attrs(o.code) ||
                (is_punct(P, '{') && (!ir_op_info[o.code].nregions || brace_opens_attrs(P)));
    if (dict && !parse_attr_dict(P, o.code, rank, &o.attrs)) return false;
    Token types_at = P->tok;
    if (!parse_result_types(P, &o)) return false;
    if (o.ntys != o.nres)
        return fail_at(P, tok_loc(P, o.ntys ? types_at : o.name),
                       "%u result%s named but %u type%s given", o.nres, o.nres == 1 ? "" : "s",
                       o.ntys, o.ntys == 1 ? "" : "s");
    if (o.code == OP_CONST && !settle_num(P, &o.attrs, o.ntys ? o.tys[0].dt : DT_I64)) return false;
    OpId id = build_op(P, region, &o);
    if (!id) return false;
    for (int r = 0; r < ir_op_info[o.code].nregions; r++) {
        if (r && !expect_kw(P, o.code == OP_WHILE ? "do" : "else")) return false;
        if (!parse_region(P, id)) return false;
    }
    return true;
}

/* Ops up to the closing '}', which is consumed. */
static bool parse_ops(Parser *P, RegionId region) {
    while (!is_punct(P, '}')) {
        if (P->tok.kind == T_EOF) return FAIL(P, "expected '}' before the end of the file");
        if (!parse_op(P, region)) return false;
    }
    next(P);
    return true;
}

static bool parse_region_args(Parser *P, RegionId r) {
    next(P); /* '^' */
    if (!expect(P, '(')) return false;
    for (uint32_t n = 0; !is_punct(P, ')'); n++) {
        if (n && !expect(P, ',')) return false;
        if (n == MAX_COUNT) return FAIL(P, "too many region arguments");
        Token name = P->tok;
        IrType t;
        uint32_t lay;
        if (name.kind != T_VALUE) return FAIL(P, "expected a region argument");
        next(P);
        if (!expect(P, ':') || !parse_type_layout(P, &t, &lay)) return false;
        ValId a = ir_region_add_arg(P->f, r, t);
        P->f->vals[a].layout = lay;
        if (!bind_name(P, name, a)) return false;
    }
    next(P);
    return expect(P, ':');
}

static bool parse_region(Parser *P, OpId op) {
    if (!is_punct(P, '{'))
        return FAIL(P, "expected '{' to open a region of '%s'",
                    ir_op_info[ir_op(P->f, op)->code].name);
    if (P->depth >= MAX_DEPTH) return FAIL(P, "regions nested more than %d deep", MAX_DEPTH);
    next(P);
    RegionId r = ir_op_add_region(P->f, op);
    if (is_punct(P, '^') && !parse_region_args(P, r)) return false;
    P->depth++;
    bool ok = parse_ops(P, r);
    P->depth--;
    return ok;
}

/* ---- functions ---- */

static const char *parse_func_name(Parser *P) {
    if (P->tok.kind != T_FUNC) return FAIL(P, "expected a function name '@name'"), NULL;
    const char *name = P->tok.quoted ? decode_string(P, P->tok)
                                     : arena_strndup(P->arena, P->tok.start, P->tok.len);
    if (name && ir_module_find(P->m, name))
        return FAIL(P, "redefinition of function '@%s'", name), NULL;
    next(P);
    return name;
}

static bool parse_param(Parser *P) {
    Token name = P->tok;
    IrType t;
    uint32_t lay;
    if (name.kind != T_VALUE) return FAIL(P, "expected a parameter");
    if (ir_region(P->f, P->f->body)->nargs == MAX_COUNT) return FAIL(P, "too many parameters");
    next(P);
    if (!expect(P, ':') || !parse_type_layout(P, &t, &lay)) return false;
    const char *pname = NULL;
    if (P->tok.kind == T_STRING) {
        if (!(pname = decode_string(P, P->tok))) return false;
        next(P);
    }
    ValId v = ir_add_param(P->f, t, pname);
    P->f->vals[v].layout = lay;
    return bind_name(P, name, v);
}

static bool parse_func_results(Parser *P) {
    if (P->tok.kind != T_ARROW) return true;
    next(P);
    if (!expect(P, '(')) return false;
    IrType *tys = NULL;
    uint32_t n = 0, cap = 0;
    while (!is_punct(P, ')')) {
        IrType t;
        if (n && !expect(P, ',')) return false;
        if (!parse_type(P, &t)) return false;
        VEC_PUSH(P->arena, tys, n, cap, t);
    }
    next(P);
    ir_func_set_results(P->f, tys, n);
    return true;
}

static bool parse_func(Parser *P) {
    Token start = P->tok;
    if (!expect_kw(P, "func")) return false;
    bool kernel = tok_is(&P->tok, "kernel");
    if (kernel) next(P);
    const char *name = parse_func_name(P);
    if (!name) return false;
    P->f = ir_func_new(P->m, name, kernel, tok_loc(P, start));
    names_reset(P);
    if (!expect(P, '(')) return false;
    for (int n = 0; !is_punct(P, ')'); n++) {
        if ((n && !expect(P, ',')) || !parse_param(P)) return false;
    }
    next(P);
    if (!parse_func_results(P) || !expect(P, '{')) return false;
    return parse_ops(P, P->f->body);
}

/* ---- the GPU header: gpu<arch=..., num_warps=N> and #Ln = kind<field=value, ...> ---- */

static bool parse_gpu_header(Parser *P) {
    if (P->m->gpu.arch || P->m->gpu.num_warps || P->m->nfuncs || P->m->nlayouts)
        return FAIL(P, "'gpu<...>' comes once, first in the file");
    Token start = P->tok;
    next(P);
    if (!expect(P, '<')) return false;
    bool seen_arch = false, seen_warps = false;
    for (int k = 0; !is_punct(P, '>'); k++) {
        if (k && !expect(P, ',')) return false;
        Token name = P->tok;
        if (tok_is(&name, "arch") && !seen_arch) {
            next(P);
            if (!expect(P, '=')) return false;
            int a = P->tok.kind == T_IDENT ? ir_gpu_arch_from_name(P->tok.start, P->tok.len)
                                           : GPU_ARCH_NONE;
            if (!a) return FAIL(P, "arch must be sm_80, sm_90 or sm_90a");
            P->m->gpu.arch = (uint8_t)a;
            seen_arch = true;
            next(P);
        } else if (tok_is(&name, "num_warps") && !seen_warps) {
            int64_t w;
            next(P);
            if (!expect(P, '=') || !parse_int(P, &w)) return false;
            if (!option_valid(OPT_NUM_WARPS, w))
                return fail_at(P, tok_loc(P, name), "num_warps must be %s",
                               option_info(OPT_NUM_WARPS)->range);
            P->m->gpu.num_warps = (uint8_t)w;
            seen_warps = true;
        } else {
            return FAIL(P, "expected 'arch' or 'num_warps' (each once)");
        }
    }
    next(P);
    if (!seen_arch || !seen_warps)
        return fail_at(P, tok_loc(P, start), "'gpu<...>' needs arch and num_warps");
    return true;
}

/* One field's value: an int, a list of ints, or a layout reference (an earlier one). */
static bool parse_layout_value(Parser *P, int type, int64_t *v, int *n) {
    *n = 0;
    if (type == LF_REF) {
        if (P->tok.kind != T_LAYOUT) return FAIL(P, "expected a layout '#Ln'");
        char buf[16];
        if (P->tok.len >= sizeof buf) return FAIL(P, "no such layout");
        memcpy(buf, P->tok.start, P->tok.len);
        buf[P->tok.len] = 0;
        v[0] = strtoll(buf, NULL, 10);
        if (v[0] < 1 || v[0] >= P->m->nlayouts)
            return FAIL(P, "no such layout (a layout names only earlier ones)");
        *n = 1;
        next(P);
        return true;
    }
    if (type == LF_INT) return *n = 1, parse_int(P, &v[0]);
    if (!expect(P, '[')) return false;
    while (!is_punct(P, ']')) {
        if (*n && !expect(P, ',')) return false;
        if (*n == NR_MAX_RANK) return FAIL(P, "at most %d values", NR_MAX_RANK);
        if (!parse_int(P, &v[(*n)++])) return false;
    }
    next(P);
    return true;
}

/* [[c0, c1, ...], ...]: the bases of one input dim of a linear layout, as coordinates
 * inside the shape. */
static bool parse_bases(Parser *P, LinearLayout *ll, int in) {
    if (!expect(P, '[')) return false;
    while (!is_punct(P, ']')) {
        if (ll->nbits[in] && !expect(P, ',')) return false;
        if (ll->nbits[in] == LL_MAX_BITS) return FAIL(P, "at most %d bases", LL_MAX_BITS);
        Token at = P->tok;
        if (!expect(P, '[')) return false;
        int32_t c[LL_MAX_RANK] = {0};
        int n = 0;
        while (!is_punct(P, ']')) {
            int64_t v;
            if (n && !expect(P, ',')) return false;
            if (n == ll->rank || !parse_int(P, &v))
                return n == ll->rank ? FAIL(P, "a basis has one coordinate per dim") : false;
            if (v < 0 || v >= (1 << ll->log2shape[n]))
                return FAIL(P, "a coordinate must lie inside the shape");
            c[n++] = (int32_t)v;
        }
        if (n != ll->rank) return fail_at(P, tok_loc(P, at), "a basis has one coordinate per dim");
        next(P);
        ll_push(ll, in, ll_flat(ll, c));
    }
    next(P);
    return true;
}

/* linear<shape=[...], reg=[...], lane=[...], warp=[...]> (after the '<'), shape first. */
static bool parse_linear_layout(Parser *P, IrLayout *l, LinearLayout *ll) {
    if (!tok_is(&P->tok, "shape")) return FAIL(P, "a linear layout starts with its shape=[...]");
    next(P);
    int64_t v[NR_MAX_RANK];
    int n;
    if (!expect(P, '=') || !parse_layout_value(P, LF_INTS, v, &n)) return false;
    int32_t shape[NR_MAX_RANK];
    int bits = 0;
    for (int d = 0; d < n; d++) {
        if (v[d] < 1 || v[d] > (1 << 20) || (v[d] & (v[d] - 1)))
            return FAIL(P, "a linear layout's dims are powers of two");
        shape[d] = (int32_t)v[d];
        for (int64_t x = v[d]; x > 1; x >>= 1) bits++;
    }
    if (bits > LL_MAX_BITS)
        return FAIL(P, "a linear layout's shape has at most 2^%d elements", LL_MAX_BITS);
    ll_init(ll, n, shape);
    static const char *const names[LL_NIN] = {"reg", "lane", "warp"};
    for (int in = 0; in < LL_NIN; in++) {
        if (!expect(P, ',')) return false;
        if (!tok_is(&P->tok, names[in]))
            return FAIL(P, "expected '%s=' (a linear layout gives shape, reg, lane, warp)",
                        names[in]);
        next(P);
        if (!expect(P, '=') || !parse_bases(P, ll, in)) return false;
    }
    if (!is_punct(P, '>')) return FAIL(P, "expected '>'");
    next(P);
    l->rank = (uint8_t)n;
    l->lin = ll;
    return true;
}

static bool parse_layout_def(Parser *P) {
    Token at = P->tok;
    char buf[16] = {0};
    if (at.len < sizeof buf) memcpy(buf, at.start, at.len);
    uint32_t want = P->m->nlayouts ? P->m->nlayouts : 1;
    if (P->m->nfuncs) return FAIL(P, "layouts are defined before the functions");
    if (strtoull(buf, NULL, 10) != want || at.len >= sizeof buf)
        return FAIL(P, "expected layout #L%u next (layouts are numbered in order)", want);
    next(P);
    if (!expect(P, '=')) return false;
    IrLayout l;
    memset(&l, 0, sizeof l);
    Token kt = P->tok;
    l.kind =
        (uint8_t)(kt.kind == T_IDENT ? ir_layout_kind_from_name(kt.start, kt.len) : LAYOUT_NONE);
    if (!l.kind)
        return FAIL(P, "expected a layout kind (blocked, slice, mma, dot_op, shared, linear)");
    next(P);
    if (!expect(P, '<')) return false;
    if (l.kind == LAYOUT_LINEAR) {
        LinearLayout ll;
        if (!parse_linear_layout(P, &l, &ll)) return false;
        ir_layout_add(P->m, &l); /* copies the map */
        return true;
    }
    int nf = ir_layout_field_count(l.kind);
    bool seen[8] = {false};
    for (int k = 0; !is_punct(P, '>'); k++) {
        if (k && !expect(P, ',')) return false;
        Token name = P->tok;
        int f = -1;
        for (int i = 0; i < nf && name.kind == T_IDENT; i++)
            if (tok_is(&name, ir_layout_field_name(l.kind, i))) f = i;
        if (f < 0)
            return FAIL(P, "unknown field '%.*s' of a %.*s layout", (int)name.len, name.start,
                        (int)kt.len, kt.start);
        if (seen[f]) return FAIL(P, "field '%s' given twice", ir_layout_field_name(l.kind, f));
        seen[f] = true;
        next(P);
        if (!expect(P, '=')) return false;
        Token vt = P->tok;
        int64_t v[NR_MAX_RANK];
        int n;
        if (!parse_layout_value(P, ir_layout_field_type(l.kind, f), v, &n)) return false;
        StrBuf why;
        sb_init(&why);
        bool ok = ir_layout_set_field(&l, f, v, n, &why);
        if (!ok)
            fail_at(P, tok_loc(P, vt), "field '%s' takes %s", ir_layout_field_name(l.kind, f),
                    sb_cstr(&why));
        sb_free(&why);
        if (!ok) return false;
    }
    for (int i = 0; i < nf; i++)
        if (!seen[i])
            return FAIL(P, "the layout needs field '%s'", ir_layout_field_name(l.kind, i));
    next(P);
    if (!ir_layout_derive_rank(P->m, &l))
        return fail_at(P, tok_loc(P, kt), "a slice's parent must have rank >= 1");
    ir_layout_add(P->m, &l);
    return true;
}

IrModule *ir_parse_module(Arena *arena, Diag *diag, const Source *src) {
    Parser P;
    memset(&P, 0, sizeof P);
    P.arena = arena, P.diag = diag, P.src = src;
    P.p = src->text, P.end = src->text + src->len;
    P.line = P.col = 1;
    P.m = ir_module_new(arena);
    next(&P);
    while (!P.failed && P.tok.kind != T_EOF) {
        bool ok = tok_is(&P.tok, "gpu")    ? parse_gpu_header(&P)
                  : P.tok.kind == T_LAYOUT ? parse_layout_def(&P)
                                           : parse_func(&P);
        if (!ok) break;
    }
    return P.failed ? NULL : P.m;
}
