/* parse.c - the front end's entry point (lang_parse_module), the decoding of literal tokens
 * (integers, floats, strings with their escapes) and the wording of errors.
 *
 * lang_parse_module checks what flex should never see (NUL bytes, absurd sizes), copies the
 * source into the arena behind an artificial newline (see lexer.l), runs the reentrant
 * scanner and the pure parser over it with a ParseCtx on the stack, and always destroys
 * the scanner. All AST memory is in the caller's arena; the only heap memory (flex's
 * buffers and bison's stack when it grows) is freed before returning.
 *
 * Every error goes through parse_error, which reports only the first: the lexer then
 * feeds bison the error token and the parse stops. Syntax errors arrive from bison with
 * the lookahead and the exact set of expected tokens (LAC); parse_syntax_error turns
 * them into a message, recognising the common cases: an unexpected indent, a missing
 * indented block, a missing ':' after a statement header, '=' for '==', a missing comma,
 * and otherwise "unexpected X" with the short list of what could have come instead. */
#include "parse_ctx.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"
#include "parser.h"

/* ---- errors ---- */

void parse_error(ParseCtx *c, Loc loc, const char *fmt, ...) {
    if (c->failed) return;
    c->failed = true;
    va_list ap;
    va_start(ap, fmt);
    diag_verror(c->diag, loc, fmt, ap);
    va_end(ap);
}

int lex_error(ParseCtx *c, Loc loc, const char *fmt, ...) {
    if (!c->failed) {
        c->failed = true;
        va_list ap;
        va_start(ap, fmt);
        diag_verror(c->diag, loc, fmt, ap);
        va_end(ap);
    }
    return NRerror;
}

/* Bison calls this only when its stack would exceed YYMAXDEPTH; only a runaway
 * nesting of expressions (a chain of thousands of unary operators) gets there. */
void nrerror(Loc *lloc, ParseCtx *c, const char *msg) {
    if (strcmp(msg, "memory exhausted") == 0)
        parse_error(c, *lloc, "expression nested too deeply (limit %d)", MAX_EXPR_DEPTH);
    else parse_error(c, *lloc, "%s", msg);
}

Loc lex_loc_advance(Loc loc, const char *text, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\n') {
            if (loc.line < INT_MAX) loc.line++;
            loc.col = 1;
        } else if (loc.col < INT_MAX) {
            loc.col++;
        }
    }
    return loc;
}

/* ---- literals ---- */

static int digit_value(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return 99;
}

int lex_int(ParseCtx *c, SemVal *val, Loc loc, const char *text, int len, int base) {
    uint64_t v = 0;
    for (int i = base == 10 ? 0 : 2; i < len; i++) {
        if (text[i] == '_') continue;
        uint64_t d = (uint64_t)digit_value(text[i]);
        if (v > (UINT64_MAX - d) / (uint64_t)base)
            return c->lenient
                       ? INT
                       : lex_error(c, loc,
                                   "integer literal too large"); /* lenient: dropped unread */
        v = v * (uint64_t)base + d;
    }
    Expr *e = ast_new_expr(c, EX_INT, loc);
    e->uval = v;
    e->is_big = v > (uint64_t)INT64_MAX;
    e->ival = (int64_t)v; /* big literals: the same 64 bits, as sema may want for masks */
    val->expr = e;
    return INT;
}

int lex_float(ParseCtx *c, SemVal *val, Loc loc, const char *text, int len) {
    char *buf = arena_alloc(c->arena, (size_t)len + 1);
    int n = 0;
    for (int i = 0; i < len; i++)
        if (text[i] != '_') buf[n++] = text[i];
    Expr *e = ast_new_expr(c, EX_FLOAT, loc);
    e->fval = strtod(buf, NULL); /* too large: inf, as in Python */
    val->expr = e;
    return FLOAT;
}

int lex_bad_number(ParseCtx *c, Loc loc, const char *text, int len) {
    if (c->lenient) return INT; /* 1j, 0x_1 in a decorator's arguments: dropped unread */
    char p = len > 1 && text[0] == '0' ? (char)tolower((unsigned char)text[1]) : 0;
    if (p == 'x') return lex_error(c, loc, "invalid hexadecimal literal");
    if (p == 'o') return lex_error(c, loc, "invalid octal literal");
    if (p == 'b') return lex_error(c, loc, "invalid binary literal");
    bool digits = true;
    for (int i = 0; i < len; i++)
        digits = digits && (isdigit((unsigned char)text[i]) || text[i] == '_');
    if (digits && text[0] == '0')
        return lex_error(c, loc,
                         "leading zeros in decimal integer literals are not permitted; "
                         "use an 0o prefix for octal integers");
    return lex_error(c, loc, "invalid decimal literal");
}

/* Offset of the first byte of s that does not belong to well-formed UTF-8 (no overlong
 * forms, surrogates or code points past U+10FFFF), or n. */
static size_t utf8_bad_at(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned ch = s[i];
        size_t len = ch < 0x80             ? 1
                     : (ch & 0xE0) == 0xC0 ? 2
                     : (ch & 0xF0) == 0xE0 ? 3
                     : (ch & 0xF8) == 0xF0 ? 4
                                           : 0;
        if (len == 0 || i + len > n) return i;
        uint32_t cp = len == 1 ? ch : ch & (0x7F >> len);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return i;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        static const uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += len;
    }
    return n;
}

int lex_check_utf8(ParseCtx *c, Loc loc, const char *text, int len, const char *what) {
    size_t at = utf8_bad_at((const unsigned char *)text, (size_t)len);
    if (at == (size_t)len) return 0;
    return lex_error(c, lex_loc_advance(loc, text, at), "invalid UTF-8 byte '\\x%02x' in %s",
                     (unsigned char)text[at], what);
}

int lex_bad_char(ParseCtx *c, Loc loc, unsigned char ch) {
    if (ch > 32 && ch < 127) return lex_error(c, loc, "invalid character '%c' in source", ch);
    return lex_error(c, loc, "invalid character '\\x%02x' in source", ch);
}

static size_t put_utf8(char *out, uint32_t cp) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Read exactly n hex digits at s (within end); -1 if they are not there. */
static long hex_digits(const char *s, const char *end, int n) {
    long v = 0;
    for (int i = 0; i < n; i++) {
        if (s + i >= end || digit_value(s[i]) > 15) return -1;
        v = v * 16 + digit_value(s[i]);
    }
    return v;
}

typedef struct {
    ParseCtx *c;
    Loc tok_loc;
    const char *tok; /* the whole token, for locating an escape */
} EscCtx;

static int escape_error(EscCtx *x, const char *at, const char *msg) {
    return lex_error(x->c, lex_loc_advance(x->tok_loc, x->tok, (size_t)(at - x->tok)), "%s", msg);
}

/* Decode the escape whose backslash is at p[-1]; advance *pp past it and append the
 * result to out. Returns 0, or the error token. Python's rules: \x, \u, \U and octal give
 * code points (stored as UTF-8); unknown escapes keep their backslash. */
static int decode_escape(EscCtx *x, const char **pp, const char *end, char *out, size_t *on) {
    const char *p = *pp;
    static const char simple_from[] = "\\'\"abfnrtv", simple_to[] = "\\'\"\a\b\f\n\r\t\v";
    const char *s = strchr(simple_from, *p);
    if (*p && s) {
        out[(*on)++] = simple_to[s - simple_from];
        *pp = p + 1;
        return 0;
    }
    if (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')) { /* line continuation */
        *pp = p + (*p == '\r' ? 2 : 1);
        return 0;
    }
    if (*p >= '0' && *p <= '7') {
        uint32_t v = 0;
        int i = 0;
        for (; i < 3 && p + i < end && p[i] >= '0' && p[i] <= '7'; i++)
            v = v * 8 + (uint32_t)(p[i] - '0');
        *on += put_utf8(out + *on, v);
        *pp = p + i;
        return 0;
    }
    int nd = *p == 'x' ? 2 : *p == 'u' ? 4 : *p == 'U' ? 8 : 0;
    if (nd) {
        long v = hex_digits(p + 1, end, nd);
        if (v < 0) {
            const char *m = nd == 2   ? "invalid \\x escape: expected 2 hex digits"
                            : nd == 4 ? "invalid \\u escape: expected 4 hex digits"
                                      : "invalid \\U escape: expected 8 hex digits";
            return escape_error(x, p - 1, m);
        }
        if (v > 0x10FFFF)
            return escape_error(x, p - 1, "invalid \\U escape: code point out of range");
        *on += put_utf8(out + *on, (uint32_t)v);
        *pp = p + 1 + nd;
        return 0;
    }
    if (*p == 'N') return escape_error(x, p - 1, "\\N{...} escapes are not supported");
    out[(*on)++] = '\\';
    return 0; /* the character itself is copied as ordinary text */
}

/* ---- f-strings ---- */

/* Move every location of e's tree from the scratch source of an f-string's field (line 1
 * holding "_=(" and the field) to the field's place in the file: at `at` (line 1 of the
 * scratch), at the same line and column further down. */
static void relocate(Expr *e, Loc at) {
    if (!e) return;
    if (e->loc.src) {
        Loc l = {at.src, at.line + e->loc.line - 1,
                 e->loc.line == 1 ? at.col + e->loc.col - 4 : e->loc.col};
        if (l.col < 1) l.col = 1;
        e->loc = l;
    }
    relocate(e->lhs, at);
    relocate(e->rhs, at);
    relocate(e->third, at);
    for (int i = 0; i < e->nitems; i++) relocate(e->items[i], at);
    for (int i = 0; i < e->nkw; i++) relocate(e->kwvalues[i], at);
}

/* The expression of a replacement field, [s, e) of the token, parsed on its own (the
 * scanner and parser are reentrant) from "_=(FIELD)" and moved to where it stands. */
static Expr *fstring_field(ParseCtx *c, Loc tok_loc, const char *tok, const char *s,
                           const char *e) {
    Loc at = lex_loc_advance(tok_loc, tok, (size_t)(s - tok));
    size_t n = (size_t)(e - s);
    char *text = arena_alloc(c->arena, n + 6);
    memcpy(text, "_=(", 3);
    memcpy(text + 3, s, n);
    memcpy(text + 3 + n, ")\n", 3);
    Source *src = arena_alloc(c->arena, sizeof *src);
    *src = (Source){c->src ? c->src->name : "<f-string>", text, n + 5};
    Diag quiet;
    diag_init(&quiet);
    Module *m = lang_parse_module(c->arena, &quiet, src);
    diag_free(&quiet);
    Stmt *st = m && m->nglobals == 1 && m->nfuncs == 0 ? m->globals[0] : NULL;
    if (!st || st->kind != ST_ASSIGN || st->ntargets != 1 || !st->value) {
        lex_error(c, at, "f-string: invalid expression '%.*s'", (int)(n > 60 ? 60 : n), s);
        return NULL;
    }
    relocate(st->value, at);
    return st->value;
}

/* Where the replacement field opened at p ends: its '}' at bracket depth 0 (strings in
 * it skipped), with *conv and *spec set to its '!' and ':' (NULL: none); NULL if the
 * token ends first. */
static const char *field_end(const char *p, const char *end, const char **conv, const char **spec) {
    int depth = 0;
    *conv = *spec = NULL;
    for (; p < end; p++) {
        char ch = *p;
        if (*spec) { /* a format spec: nested fields only */
            if (ch == '{') depth++;
            else if (ch == '}' && depth-- == 0) return p;
            continue;
        }
        if (ch == '\'' || ch == '"') {
            const char *q = memchr(p + 1, ch, (size_t)(end - p - 1));
            if (!q) return NULL;
            p = q;
        } else if (ch == '(' || ch == '[' || ch == '{') {
            depth++;
        } else if (ch == ')' || ch == ']' || ch == '}') {
            if (depth == 0) return ch == '}' ? p : NULL;
            depth--;
        } else if (depth == 0 && ch == '!' && p + 1 < end && p[1] != '=' && !*conv) {
            *conv = p;
        } else if (depth == 0 && ch == ':') {
            *spec = p;
        }
    }
    return NULL;
}

/* f"...": literal parts (escapes decoded unless raw; {{ and }} are braces) and
 * replacement fields {expr}, {expr!r}, {expr=}, {expr:spec}. As in Triton's code
 * generator, each field's value must be known at compile time and is formatted with str()
 * (repr() for !r and !a, and after "expr="); a format spec is read and ignored. */
static int lex_fstring(ParseCtx *c, SemVal *val, Loc loc, const char *text, int len, int qi,
                       bool raw) {
    char q = text[qi];
    int ql = len - qi >= 6 && text[qi + 1] == q && text[qi + 2] == q ? 3 : 1;
    const char *p = text + qi + ql, *end = text + len - ql;
    FParts parts = {0};
    char *out = arena_alloc(c->arena, (size_t)(end - p) + 1);
    size_t on = 0;
    EscCtx x = {c, loc, text};
    while (p < end) {
        if (*p == '{' && p + 1 < end && p[1] == '{') {
            out[on++] = '{', p += 2;
        } else if (*p == '}') {
            if (p + 1 < end && p[1] == '}') {
                out[on++] = '}', p += 2;
                continue;
            }
            return lex_error(c, lex_loc_advance(loc, text, (size_t)(p - text)),
                             "f-string: single '}' is not allowed");
        } else if (*p == '{') {
            const char *conv, *spec, *close = field_end(p + 1, end, &conv, &spec);
            Loc at = lex_loc_advance(loc, text, (size_t)(p - text));
            if (!close) return lex_error(c, at, "f-string: expecting '}'");
            const char *es = p + 1, *ee = conv ? conv : spec ? spec : close;
            while (es < ee && isspace((unsigned char)*es)) es++;
            const char *te = ee;
            while (te > es && isspace((unsigned char)te[-1])) te--;
            int cv = 'n';
            if (conv) {
                cv = conv + 1 < close ? conv[1] : 0;
                if ((cv != 's' && cv != 'r' && cv != 'a') || conv + 2 != (spec ? spec : close))
                    return lex_error(c, lex_loc_advance(loc, text, (size_t)(conv - text)),
                                     "f-string: invalid conversion character: expected 's', "
                                     "'r', or 'a'");
            }
            /* {expr=}: the text up to and with '=' (and the spaces after it), then repr */
            if (te > es && te[-1] == '=' &&
                !(te - es >= 2 && strchr("=!<>", te[-2]) && te[-2] != '\0')) {
                memcpy(out + on, p + 1, (size_t)(ee - (p + 1)));
                on += (size_t)(ee - (p + 1));
                te--;
                while (te > es && isspace((unsigned char)te[-1])) te--;
                if (!conv && !spec) cv = 'r';
            }
            if (te == es) return lex_error(c, at, "f-string: empty expression not allowed");
            if (on) ast_fparts_add(c, &parts, ast_ex_str(c, loc, out, on), 0);
            on = 0;
            Expr *field = fstring_field(c, loc, text, es, te);
            if (!field) return NRerror;
            ast_fparts_add(c, &parts, field, cv);
            p = close + 1;
        } else if (*p != '\\' || raw) {
            out[on++] = *p++;
        } else {
            p++;
            if (decode_escape(&x, &p, end, out, &on)) return NRerror;
        }
    }
    if (on) ast_fparts_add(c, &parts, ast_ex_str(c, loc, out, on), 0);
    val->expr = ast_ex_fstring(c, loc, &parts);
    return c->failed ? NRerror : STRING;
}

int lex_string_literal(ParseCtx *c, SemVal *val, Loc loc, const char *text, int len) {
    if (c->lenient) return STRING; /* f-strings, bytes in a decorator's arguments: dropped unread */
    int i = 0;
    bool raw = false, fmt = false;
    for (; text[i] != '\'' && text[i] != '"'; i++) {
        char p = (char)tolower((unsigned char)text[i]);
        if (p == 'r') raw = true;
        if (p == 'f') fmt = true;
        if (p == 'b')
            return lex_error(c, loc, "bytes literals are not supported in Nereid kernels");
    }
    if (lex_check_utf8(c, loc, text, len, "string literal")) return NRerror;
    if (fmt) return lex_fstring(c, val, loc, text, len, i, raw);
    char q = text[i];
    int ql = len - i >= 6 && text[i + 1] == q && text[i + 2] == q ? 3 : 1;
    const char *p = text + i + ql, *end = text + len - ql;
    char *out = arena_alloc(c->arena, (size_t)(end - p) + 1);
    size_t on = 0;
    EscCtx x = {c, loc, text};
    while (p < end) {
        if (*p != '\\' || raw) {
            out[on++] = *p++;
            if (raw && p[-1] == '\\' && p < end) out[on++] = *p++; /* r"\"" keeps both */
            continue;
        }
        p++;
        if (decode_escape(&x, &p, end, out, &on)) return NRerror;
    }
    Expr *e = ast_new_expr(c, EX_STR, loc);
    e->sval = out;
    e->slen = on;
    val->expr = e;
    return STRING;
}

/* ---- syntax errors ---- */

/* Bison's names for tokens are our aliases, double-quoted unless single characters. */
static const char *plain_name(ParseCtx *c, const char *name) {
    size_t n = strlen(name);
    if (n >= 2 && name[0] == '"' && name[n - 1] == '"')
        return arena_strndup(c->arena, name + 1, n - 2);
    return name;
}

static bool has_name(const char *const *v, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0) return true;
    return false;
}

static const char *const expr_starters[] = {
    "name",          "integer literal",
    "float literal", "string literal",
    "'True'",        "'False'",
    "'None'",        "'('",
    "'['",           "'-'",
    "'+'",           "'~'",
    "'not'",         "'*'",
};

static bool is_starter(const char *s) {
    return has_name(expr_starters, (int)(sizeof expr_starters / sizeof expr_starters[0]), s);
}

static void describe_la(ParseCtx *c, const char *la_name, StrBuf *sb) {
    const Token *t = &c->la;
    int n = t->len > 40 ? 40 : t->len;
    const char *more = t->len > 40 ? "..." : "";
    if (t->kind == NREOF || t->at_eof) sb_puts(sb, "end of file");
    else if (t->kind == NAME) sb_printf(sb, "name '%.*s%s'", n, t->text, more);
    else if (t->kind == INT || t->kind == FLOAT) sb_printf(sb, "number '%.*s%s'", n, t->text, more);
    else if (t->kind == AUGASSIGN) sb_printf(sb, "'%.*s'", n, t->text);
    else sb_puts(sb, la_name);
}

/* ", expected an expression, ')' or ','" when the alternatives are few. */
static bool describe_expected(const char *const *v, int n, StrBuf *sb) {
    bool expr = has_name(v, n, "name") && has_name(v, n, "'('");
    const char *alt[5];
    int m = 0;
    if (expr) alt[m++] = "an expression";
    for (int i = 0; i < n; i++) {
        if (expr && is_starter(v[i])) continue;
        if (m == 4) return false;
        alt[m++] = v[i];
    }
    if (m == 0) return false;
    sb_puts(sb, ", expected ");
    for (int i = 0; i < m; i++)
        sb_printf(sb, "%s%s", i == 0 ? "" : i == m - 1 ? " or " : ", ", alt[i]);
    return true;
}

static const char *header_word(int kind) {
    switch (kind) {
    case IF: return "if";
    case ELIF: return "elif";
    case ELSE: return "else";
    case WHILE: return "while";
    case FOR: return "for";
    case DEF: return "def";
    case WITH: return "with";
    default: return NULL;
    }
}

static void missing_block(ParseCtx *c, Loc loc, const Token *hdr) {
    const char *w = header_word(hdr->kind);
    if (!w) parse_error(c, loc, "expected an indented block");
    else if (hdr->kind == DEF)
        parse_error(c, loc, "expected an indented block after function definition on line %d",
                    hdr->loc.line);
    else
        parse_error(c, loc, "expected an indented block after '%s' statement on line %d", w,
                    hdr->loc.line);
}

/* The ':' that ends a statement header is missing. */
static bool missing_colon(ParseCtx *c, Loc loc, const Token *hdr) {
    switch (hdr->kind) {
    case IF:
    case ELIF:
    case WHILE:
        parse_error(c, loc, "expected ':' after '%s' condition", header_word(hdr->kind));
        return true;
    case FOR: parse_error(c, loc, "expected ':' after 'for' loop header"); return true;
    case DEF: parse_error(c, loc, "expected ':' after function signature"); return true;
    case WITH: parse_error(c, loc, "expected ':' after 'with' item"); return true;
    case ELSE:
        parse_error(c, loc, "expected ':' after 'else'%s",
                    c->la.kind == IF ? " (did you mean 'elif'?)" : "");
        return true;
    default: return false;
    }
}

void parse_syntax_error(ParseCtx *c, Loc loc, const char *la_name, const char *const *expected,
                        int n) {
    if (c->failed) return;
    const char **v = arena_alloc(c->arena, sizeof *v * (size_t)(n + 1));
    for (int i = 0; i < n; i++) v[i] = plain_name(c, expected[i]);
    const Token *la = &c->la;
    const Token *hdr = la->bol ? &c->prev_hdr : &c->hdr; /* the statement being parsed */
    if (la->kind == INDENT) {
        parse_error(c, loc, "unexpected indent");
        return;
    }
    if (has_name(v, n, "indent")) {
        missing_block(c, loc, hdr);
        return;
    }
    if (n == 3 && has_name(v, n, "name") && has_name(v, n, "string literal") &&
        has_name(v, n, "'*'")) {
        parse_error(c, loc,
                    "invalid type annotation: expected a name, '*' and a name, or a string");
        return;
    }
    if (la->kind == FOR && la->depth > 0) {
        parse_error(c, loc,
                    "generator expressions are not supported in kernels (nor in Triton's): use a "
                    "list comprehension, [x for x in t]");
        return;
    }
    if (la->kind == '=' && !has_name(v, n, "'='")) {
        parse_error(c, loc, "unexpected '=' (did you mean '=='?)");
        return;
    }
    if (has_name(v, n, "':'") && la->depth == 0 && !la->colon_before && missing_colon(c, loc, hdr))
        return;

    StrBuf sb;
    sb_init(&sb);
    sb_puts(&sb, "unexpected ");
    describe_la(c, plain_name(c, la_name), &sb);
    bool listed = describe_expected(v, n, &sb);
    if (!listed && la->depth > 0 && has_name(v, n, "','") && is_starter(plain_name(c, la_name)))
        sb_puts(&sb, "; perhaps you forgot a comma?");
    parse_error(c, loc, "%s", sb_cstr(&sb));
    sb_free(&sb);
    if (la->depth > 0 && la->depth <= MAX_BRACKETS &&
        c->bracket_locs[la->depth - 1].line < loc.line)
        diag_note(c->diag, c->bracket_locs[la->depth - 1], "to match this '%c'",
                  c->brackets[la->depth - 1]);
}

/* ---- the entry point ---- */

static Loc loc_of_offset(const Source *src, size_t start, size_t off) {
    Loc l = {src, 1, 1};
    return lex_loc_advance(l, src->text + start, off - start);
}

Module *lang_parse_module(Arena *arena, Diag *diag, const Source *src) {
    ParseCtx *c = calloc(1, sizeof *c); /* ~10 KiB: kept off the stack */
    if (!c) NR_DIE("out of memory");
    c->arena = arena;
    c->diag = diag;
    c->src = src;
    c->module = arena_alloc(arena, sizeof *c->module);
    c->module->src = src;
    c->nindents = 1;
    sb_init(&c->scratch);

    size_t skip = src->len >= 3 && memcmp(src->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    const char *nul = memchr(src->text + skip, 0, src->len - skip);
    if (src->len > (size_t)INT_MAX / 2) {
        parse_error(c, (Loc){src, 1, 1}, "source file too large");
    } else if (nul) {
        parse_error(c, loc_of_offset(src, skip, (size_t)(nul - src->text)),
                    "invalid character '\\x00' in source");
    } else {
        size_t n = src->len - skip;
        char *buf = arena_alloc(arena, n + 3); /* '\n' + text + the two NULs flex wants */
        buf[0] = '\n';
        memcpy(buf + 1, src->text + skip, n);
        buf[n + 1] = buf[n + 2] = 0;
        c->pos = (Loc){src, 0, 1}; /* the artificial newline moves this to line 1 */
        yyscan_t scanner;
        if (nrllex_init_extra(c, &scanner)) NR_DIE("cannot create the scanner");
        c->scanner = scanner;
        if (!nrl_scan_buffer(buf, n + 3, scanner)) NR_DIE("cannot set up the scan buffer");
        int rc = nrparse(c);
        nrllex_destroy(scanner);
        if (rc != 0 && !c->failed) parse_error(c, c->la.loc, "syntax error");
    }
    sb_free(&c->scratch);
    Module *m = c->failed ? NULL : c->module;
    free(c);
    return m;
}
