/* py_kernels.c - what of a Python file the front end reads. A file of Triton kernels is
 * usually a program as well (host functions, classes, benchmarks under `if __name__ ==
 * "__main__"`), written in all of Python, of which Nereid's parser knows the kernel subset.
 * lang_py_kernels keeps the top-level statements a Triton kernel can use: imports,
 * assignments to a name that parse on their own (constants such as `LOG2E =
 * tl.constexpr(...)`; Triton's kernels may read no other globals), module docstrings, and
 * functions with a jit decorator (`@triton.jit`, `@jit`, `@triton.jit(...)`, with whatever
 * other decorators they carry), and the constexpr functions they call (decorated
 * `@triton.constexpr_function` or `@tl.constexpr`) where they parse. A top-level if or
 * try made only of imports (an import that depends on the version, as libraries write
 * them) keeps its first imports, moved to column 0 on their own lines. Every other top-level
 * statement is blanked, each of its characters but newlines made a space, so the parser reads the
 * rest at its own lines and columns and its diagnostics point into the file as written.
 *
 * Statements are found as Python finds them: a line that starts at column 0 at bracket
 * depth 0, outside strings (triple-quoted ones included) and after no backslash
 * continuation, and is not blank or a comment, starts one; decorators join the def they
 * decorate. */
#include <string.h>

#include "ast.h"

typedef struct Stmt0 {
    size_t begin, end; /* [begin, end): its lines, through the newline before the next one */
} Stmt0;

/* Where each top-level statement begins: out[i] (at most cap); returns the count. */
static int split_statements(const char *s, size_t n, size_t *out, int cap) {
    int count = 0, depth = 0;
    char quote = 0;      /* the string being read: its quote character, or 0 */
    bool triple = false; /* ... and whether it is triple-quoted */
    bool cont = false;   /* the line before ended with a backslash outside a string */
    for (size_t i = 0; i < n;) {
        /* at the start of a physical line */
        if (!quote && depth == 0 && !cont) {
            size_t j = i;
            while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\f')) j++;
            bool blank = j == n || s[j] == '\n' || s[j] == '\r' || s[j] == '#';
            if (j == i && !blank && count < cap) out[count++] = i;
        }
        cont = false;
        for (; i < n && s[i] != '\n'; i++) {
            char c = s[i];
            if (quote) {
                if (c == '\\') {
                    i++; /* the escaped character, a newline included */
                    if (i < n && s[i] == '\n') break;
                } else if (c == quote &&
                           (!triple || (i + 2 < n && s[i + 1] == quote && s[i + 2] == quote))) {
                    if (triple) i += 2;
                    quote = 0;
                }
                continue;
            }
            if (c == '#') {
                while (i < n && s[i] != '\n') i++;
                break;
            }
            if (c == '\'' || c == '"') {
                quote = c;
                triple = i + 2 < n && s[i + 1] == c && s[i + 2] == c;
                if (triple) i += 2;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
                depth--;
            } else if (c == '\\' && i + 1 < n && s[i + 1] == '\n') {
                cont = true;
            }
        }
        if (i < n) i++;                  /* the newline */
        if (quote && !triple) quote = 0; /* an unterminated string ends with its line */
    }
    return count;
}

/* Does s[b, e) begin with the keyword word (followed by its end, a space, ':' or '(')? */
static bool line_is(const char *s, size_t b, size_t e, const char *word) {
    size_t k = strlen(word);
    return e - b >= k && !strncmp(s + b, word, k) &&
           (e - b == k || s[b + k] == ' ' || s[b + k] == '\t' || s[b + k] == ':' ||
            s[b + k] == '(');
}

bool lang_is_python_path(const char *name) {
    size_t n = name ? strlen(name) : 0;
    return n > 3 && !strcmp(name + n - 3, ".py");
}

/* Does the decorator's dotted name s[1, k) end with the component c? */
static bool last_component(const char *s, size_t k, const char *c) {
    size_t m = strlen(c);
    return k >= m + 1 && !strncmp(s + k - m, c, m) && (k == m + 1 || s[k - m - 1] == '.');
}

/* What a decorator's name (after '@', up to '(' or the end of the line) makes of the
 * function: 1 a jit (the last component `jit`: triton.jit, jit, nereid.jit,
 * triton.language.core.jit), 2 a constexpr function (`constexpr_function`:
 * triton.constexpr_function, which Triton calls on compile-time values; or `constexpr`:
 * a plain function decorated `@tl.constexpr`, called so too), 0 anything else. */
static int jit_decorator(const char *s, size_t n) {
    size_t k = 1;
    while (k < n && (s[k] == '_' || s[k] == '.' || (s[k] >= 'a' && s[k] <= 'z') ||
                     (s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9')))
        k++;
    if (last_component(s, k, "jit")) return 1;
    return last_component(s, k, "constexpr_function") || last_component(s, k, "constexpr") ? 2 : 0;
}

/* A statement beginning with decorators: the strongest jit_decorator of them (a jit over a
 * constexpr function), and where the rest (def, class, ...) begins. */
static size_t skip_decorators(const char *s, size_t n, int *jit) {
    size_t i = 0;
    *jit = 0;
    while (i < n && s[i] == '@') {
        size_t line_end = i;
        while (line_end < n && s[line_end] != '\n') line_end++;
        int kind = jit_decorator(s + i, line_end - i);
        if (kind == 1 || (kind == 2 && !*jit)) *jit = kind;
        /* the decorator's own statement ran to the next column-0 line; find it */
        size_t j = i;
        int depth = 0;
        for (; j < n; j++) {
            if (s[j] == '(' || s[j] == '[' || s[j] == '{') depth++;
            else if ((s[j] == ')' || s[j] == ']' || s[j] == '}') && depth > 0) depth--;
            else if (s[j] == '\n' && depth == 0) break;
        }
        i = j < n ? j + 1 : n;
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    }
    return i;
}

/* An assignment to one name (`NAME = ...`, `NAME: T = ...`). */
static bool name_assignment(const char *s, size_t n) {
    size_t i = 0;
    if (i < n && !(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
        return false;
    while (i < n && (s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                     (s[i] >= '0' && s[i] <= '9')))
        i++;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    return i < n && (s[i] == ':' || (s[i] == '=' && (i + 1 >= n || s[i + 1] != '=')));
}

/* Does the statement parse on its own (into a scratch arena, its diagnostics dropped)? */
static bool parses_alone(const char *s, size_t n) {
    Arena *a = arena_new();
    Diag quiet;
    diag_init(&quiet);
    char *text = arena_alloc(a, n + 2);
    memcpy(text, s, n);
    text[n] = '\n', text[n + 1] = 0;
    Source src = {"<statement>", text, n + 1};
    bool ok = lang_parse_module(a, &quiet, &src) != NULL;
    diag_free(&quiet);
    arena_free(a);
    return ok;
}

static bool keep_statement(const char *s, size_t n) {
    if (line_is(s, 0, n, "import") || line_is(s, 0, n, "from")) return true;
    if (s[0] == '"' || s[0] == '\'') return true; /* a docstring */
    if (s[0] == '@') {
        int jit;
        size_t rest = skip_decorators(s, n, &jit);
        if (!jit || !line_is(s, rest, n, "def")) return false;
        /* a constexpr function is Python (Triton runs it so): kept where the kernel
         * grammar reads it, else blanked, so that a dict or an f-string in one that no
         * kernel calls does not stop the file */
        return jit == 1 || parses_alone(s, n);
    }
    return name_assignment(s, n) && parses_alone(s, n);
}

/* A line's text without its indentation: [*b, *e), trailing spaces and comments dropped. */
static void line_text(const char *s, size_t i, size_t end, size_t *b, size_t *e) {
    while (i < end && (s[i] == ' ' || s[i] == '\t')) i++;
    size_t j = i;
    while (j < end && s[j] != '\n' && s[j] != '#') j++;
    while (j > i && (s[j - 1] == ' ' || s[j - 1] == '\t' || s[j - 1] == '\r')) j--;
    *b = i, *e = j;
}

/* A top-level if or try whose every line is a clause header (if, elif, else, try,
 * except, finally), an import or pass (an import that depends on the Triton version, as
 * libraries write them): its first run of imports is kept, moved to column 0 (their
 * indentation goes after them, so lines and lengths stay), the rest blanked. True when
 * the block was of that form (text rewritten), false otherwise (text untouched). */
static bool first_imports(const char *s, char *text, size_t begin, size_t end) {
    for (size_t i = begin; i < end;) {
        size_t b, e, nl = i;
        while (nl < end && s[nl] != '\n') nl++;
        line_text(s, i, nl, &b, &e);
        bool header =
            e > b && s[e - 1] == ':' &&
            (line_is(s, b, e, "if") || line_is(s, b, e, "elif") || line_is(s, b, e, "else") ||
             line_is(s, b, e, "try") || line_is(s, b, e, "except") || line_is(s, b, e, "finally"));
        if (e > b && !header && !line_is(s, b, e, "import") && !line_is(s, b, e, "from") &&
            !line_is(s, b, e, "pass"))
            return false;
        i = nl < end ? nl + 1 : end;
    }
    bool seen = false, done = false;
    for (size_t i = begin; i < end;) {
        size_t b, e, nl = i;
        while (nl < end && s[nl] != '\n') nl++;
        line_text(s, i, nl, &b, &e);
        bool imp = e > b && (line_is(s, b, e, "import") || line_is(s, b, e, "from"));
        if (imp && !done) { /* the text at column 0, the indentation after it */
            seen = true;
            memmove(text + i, s + b, e - b);
            for (size_t k = i + (e - b); k < nl; k++) text[k] = ' ';
        } else {
            done |= seen && e > b;
            for (size_t k = i; k < nl; k++) text[k] = ' ';
        }
        i = nl < end ? nl + 1 : end;
    }
    return true;
}

Source lang_py_kernels(Arena *arena, const Source *src) {
    enum { MAX_STATEMENTS = 1 << 14 };
    size_t *starts = arena_alloc(arena, sizeof *starts * MAX_STATEMENTS);
    int count = split_statements(src->text, src->len, starts, MAX_STATEMENTS);
    char *text = arena_alloc(arena, src->len + 1);
    memcpy(text, src->text, src->len);
    text[src->len] = 0;
    for (int k = 0; k < count; k++) {
        size_t b = starts[k];
        if (src->text[b] == '@') { /* decorators and the def after them: one statement */
            int j = k;
            while (j + 1 < count && src->text[starts[j]] == '@') j++;
            size_t e = j + 1 < count ? starts[j + 1] : src->len;
            if (!keep_statement(src->text + b, e - b))
                for (size_t i = b; i < e; i++)
                    if (text[i] != '\n') text[i] = ' ';
            k = j;
            continue;
        }
        size_t e = k + 1 < count ? starts[k + 1] : src->len;
        if (!keep_statement(src->text + b, e - b) && !first_imports(src->text, text, b, e))
            for (size_t i = b; i < e; i++)
                if (text[i] != '\n') text[i] = ' ';
    }
    return (Source){src->name, text, src->len};
}
