/* ptx_module.c - merge whole PTX modules into one (ptx_module.h).
 *
 * A module is read as a list of top-level statements: the header directives (.version,
 * .target, .address_size, .file: one line each), declarations (up to a ';' outside
 * braces: .extern functions, .global/.const data, the .extern .shared buffer) and
 * definitions (up to the '}' closing their body: .entry kernels, .func functions).
 * Comments are dropped. Merging keeps the first copy of every identical declaration, and
 * renames a symbol that a later part defines differently, token by token through that
 * part's text, before writing one header and the statements in order: all extern
 * declarations first, then each part's data and functions. */
#include "ptx_module.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef enum { ST_DECL, ST_DEF } StKind;

typedef struct PtxStmt {
    StKind kind;
    char *text; /* as written, comments removed */
    char *norm; /* whitespace collapsed: equality of declarations */
    char *name; /* the symbol it defines or declares; NULL if none */
    bool is_extern, is_entry, drop;
} PtxStmt;

typedef struct PtxFile {
    PtxStmt *st;
    int n, cap;
    char version[32], target[96], addr[32];
    char **files; /* .file lines */
    int nfiles, capfiles;
} PtxFile;

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$'; }

static char *normalise(Arena *a, const char *s) {
    StrBuf b;
    sb_init(&b);
    bool space = false;
    for (; *s; s++) {
        if (isspace((unsigned char)*s)) space = b.len > 0;
        else {
            if (space) sb_putc(&b, ' ');
            space = false;
            sb_putc(&b, *s);
        }
    }
    char *r = arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    return r;
}

/* The identifier at p (a .func/.entry name, a data symbol). */
static char *ident_at(Arena *a, const char *p) {
    while (*p && isspace((unsigned char)*p)) p++;
    const char *e = p;
    while (ident_char(*e)) e++;
    return e > p ? arena_strndup(a, p, (size_t)(e - p)) : NULL;
}

/* The word `w` as a whole token in s (after a space or at the start). */
static const char *find_word(const char *s, const char *w) {
    size_t n = strlen(w);
    for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
        if ((p == s || isspace((unsigned char)p[-1])) && !ident_char(p[n])) return p;
    return NULL;
}

/* The symbol a statement defines or declares. */
static char *stmt_name(Arena *a, PtxStmt *s) {
    const char *p;
    if ((p = find_word(s->text, ".entry"))) return s->is_entry = true, ident_at(a, p + 6);
    if ((p = find_word(s->text, ".func"))) {
        p += 5;
        while (*p && isspace((unsigned char)*p)) p++;
        if (*p == '(') { /* the return parameter comes first */
            int depth = 0;
            for (; *p; p++) {
                if (*p == '(') depth++;
                else if (*p == ')' && --depth == 0) {
                    p++;
                    break;
                }
            }
        }
        return ident_at(a, p);
    }
    /* data: the first token that is not a directive or a number (".global .align 4 .b8 x[4]") */
    for (p = s->text; *p;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (*p == '.' || isdigit((unsigned char)*p)) {
            while (*p && !isspace((unsigned char)*p)) p++;
            continue;
        }
        return ident_char(*p) ? ident_at(a, p) : NULL;
    }
    return NULL;
}

static bool header_line(PtxFile *f, Arena *a, const char *line, StrBuf *err) {
    char word[32];
    if (sscanf(line, "%31s", word) != 1) return true;
    const char *rest = line + strlen(word);
    while (*rest == ' ' || *rest == '\t') rest++;
    char *val = normalise(a, rest);
    if (!strcmp(word, ".version")) {
        int maj, min;
        if (sscanf(val, "%d.%d", &maj, &min) != 2)
            return sb_printf(err, "bad .version '%s'", val), false;
        snprintf(f->version, sizeof f->version, "%s", val);
    } else if (!strcmp(word, ".target")) snprintf(f->target, sizeof f->target, "%s", val);
    else if (!strcmp(word, ".address_size")) snprintf(f->addr, sizeof f->addr, "%s", val);
    else VEC_PUSH(a, f->files, f->nfiles, f->capfiles, normalise(a, line));
    return true;
}

static void add_stmt(PtxFile *f, Arena *a, StKind kind, const char *text, size_t len) {
    PtxStmt s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.text = arena_strndup(a, text, len);
    s.norm = normalise(a, s.text);
    s.is_extern = find_word(s.text, ".extern") != NULL;
    s.name = stmt_name(a, &s);
    VEC_PUSH(a, f->st, f->n, f->cap, s);
}

/* Split one module into statements; comments go. */
static bool parse(Arena *a, const char *text, size_t len, PtxFile *f, StrBuf *err) {
    StrBuf cur; /* the statement being read, without comments */
    sb_init(&cur);
    int depth = 0;
    bool ok = true, init = false; /* init: after a '=' (an initializer's braces, not a body) */
    for (size_t i = 0; i < len && ok;) {
        char c = text[i];
        if (c == '/' && i + 1 < len && text[i + 1] == '/') {
            while (i < len && text[i] != '\n') i++;
            continue;
        }
        if (c == '/' && i + 1 < len && text[i + 1] == '*') {
            const char *e = strstr(text + i + 2, "*/");
            i = e ? (size_t)(e - text) + 2 : len;
            continue;
        }
        if (cur.len == 0 && isspace((unsigned char)c)) {
            i++;
            continue;
        }
        if (cur.len == 0 && depth == 0 && c == '.' &&
            (!strncmp(text + i, ".version", 8) || !strncmp(text + i, ".target", 7) ||
             !strncmp(text + i, ".address_size", 13) || !strncmp(text + i, ".file", 5))) {
            size_t e = i;
            while (e < len && text[e] != '\n') e++;
            char *line = arena_strndup(a, text + i, e - i);
            char *cm = strstr(line, "//");
            if (cm) *cm = 0;
            ok = header_line(f, a, line, err);
            i = e;
            continue;
        }
        sb_putc(&cur, c);
        i++;
        if (c == '=' && depth == 0) init = true;
        else if (c == '{') depth++;
        else if (c == '}') {
            if (--depth < 0) ok = false, sb_puts(err, "unbalanced '}'");
            else if (depth == 0 && !init) add_stmt(f, a, ST_DEF, cur.data, cur.len), cur.len = 0;
        } else if (c == ';' && depth == 0) {
            add_stmt(f, a, ST_DECL, cur.data, cur.len), cur.len = 0, init = false;
        }
    }
    if (ok && (depth != 0 || (cur.len && strspn(sb_cstr(&cur), " \t\r\n") != cur.len)))
        ok = false, sb_puts(err, "a statement is not closed at the end of the module");
    sb_free(&cur);
    if (ok && !f->target[0]) ok = false, sb_puts(err, "no .target directive");
    return ok;
}

/* Replace every whole-token occurrence of `from` in s by `to`. */
static char *rename_token(Arena *a, const char *s, const char *from, const char *to) {
    size_t n = strlen(from);
    StrBuf b;
    sb_init(&b);
    for (const char *p = s; *p;) {
        if (!strncmp(p, from, n) &&
            (p == s || (!ident_char(p[-1]) && p[-1] != '%' && p[-1] != '.')) && !ident_char(p[n])) {
            sb_puts(&b, to);
            p += n;
        } else sb_putc(&b, *p++);
    }
    char *r = arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    return r;
}

static void rename_in_file(Arena *a, PtxFile *f, const char *from, const char *to) {
    for (int i = 0; i < f->n; i++) {
        f->st[i].text = rename_token(a, f->st[i].text, from, to);
        f->st[i].norm = normalise(a, f->st[i].text);
        if (f->st[i].name && !strcmp(f->st[i].name, from)) f->st[i].name = arena_strdup(a, to);
    }
}

static int version_value(const char *v) {
    int maj = 0, min = 0;
    sscanf(v, "%d.%d", &maj, &min);
    return maj * 100 + min;
}

/* An earlier statement defining or declaring `name`, if any. */
static const PtxStmt *defined_before(PtxFile *files, int upto, const char *name) {
    for (int p = 0; p < upto; p++)
        for (int i = 0; i < files[p].n; i++)
            if (files[p].st[i].name && !strcmp(files[p].st[i].name, name)) return &files[p].st[i];
    return NULL;
}

static bool resolve_symbols(Arena *a, PtxFile *files, int p, const char *entry_name, StrBuf *err) {
    PtxFile *f = &files[p];
    for (int i = 0; i < f->n; i++) {
        PtxStmt *s = &f->st[i];
        if (s->is_entry && entry_name && s->name && strcmp(s->name, entry_name)) {
            /* only the entry's own name: its parameters (NAME_param_0) keep theirs */
            const char *at = find_word(s->text, ".entry") + 6;
            while (isspace((unsigned char)*at)) at++;
            StrBuf b;
            sb_init(&b);
            sb_putn(&b, s->text, (size_t)(at - s->text));
            sb_puts(&b, entry_name);
            sb_puts(&b, at + strlen(s->name));
            s->text = arena_strdup(a, sb_cstr(&b));
            s->norm = normalise(a, s->text);
            s->name = arena_strdup(a, entry_name);
            sb_free(&b);
        }
    }
    for (int i = 0; i < f->n; i++) {
        PtxStmt *s = &f->st[i];
        if (!s->name) continue;
        const PtxStmt *prev = defined_before(files, p, s->name);
        if (!prev) continue;
        if (s->is_entry || prev->is_entry) {
            if (s->is_entry && prev->is_entry)
                return sb_printf(err, "two kernels named '%s'", s->name), false;
            return sb_printf(err, "the symbol '%s' is both a kernel and data", s->name), false;
        }
        if (!strcmp(prev->norm, s->norm) || (s->is_extern && prev->is_extern)) {
            s->drop = true; /* the same declaration: kept once */
            continue;
        }
        char fresh[256];
        for (int k = 1;; k++) {
            snprintf(fresh, sizeof fresh, "%s_%d", s->name, k);
            bool taken = defined_before(files, p + 1, fresh) != NULL;
            for (int q = 0; !taken && q < f->n; q++)
                taken = f->st[q].name && !strcmp(f->st[q].name, fresh);
            if (!taken) break;
        }
        rename_in_file(a, f, s->name, fresh);
    }
    return true;
}

bool ptx_merge(const PtxPart *parts, int nparts, StrBuf *out, StrBuf *err) {
    if (nparts <= 0) return sb_puts(err, "no PTX to merge"), false;
    Arena *a = arena_new();
    PtxFile *files = arena_alloc(a, sizeof *files * (size_t)nparts);
    bool ok = true;
    for (int p = 0; p < nparts && ok; p++) {
        StrBuf why;
        sb_init(&why);
        ok = parse(a, parts[p].text, parts[p].len, &files[p], &why);
        if (!ok) sb_printf(err, "PTX module %d: %s", p + 1, sb_cstr(&why));
        sb_free(&why);
        if (ok && p && strcmp(files[p].target, files[0].target))
            ok = false, sb_printf(err, "PTX modules for different targets ('%s', '%s')",
                                  files[0].target, files[p].target);
        if (ok && p && strcmp(files[p].addr, files[0].addr))
            ok = false, sb_printf(err, "PTX modules with different address sizes");
        if (ok) ok = resolve_symbols(a, files, p, parts[p].entry_name, err);
    }
    if (ok) {
        const char *version = files[0].version;
        for (int p = 1; p < nparts; p++)
            if (version_value(files[p].version) > version_value(version))
                version = files[p].version;
        sb_puts(out, "//\n// Generated by Nereid: ");
        sb_printf(out, "%d kernel%s, one module\n//\n\n", nparts, nparts == 1 ? "" : "s");
        if (version[0]) sb_printf(out, ".version %s\n", version);
        sb_printf(out, ".target %s\n", files[0].target);
        if (files[0].addr[0]) sb_printf(out, ".address_size %s\n", files[0].addr);
        for (int p = 0; p < nparts; p++)
            for (int i = 0; i < files[p].nfiles; i++) {
                bool seen = false;
                for (int q = 0; q <= p && !seen; q++)
                    for (int j = 0; j < (q == p ? i : files[q].nfiles) && !seen; j++)
                        seen = !strcmp(files[q].files[j], files[p].files[i]);
                if (!seen) sb_printf(out, "%s\n", files[p].files[i]);
            }
        sb_putc(out, '\n');
        for (int pass = 0; pass < 2; pass++) /* extern declarations, then each part's own */
            for (int p = 0; p < nparts; p++)
                for (int i = 0; i < files[p].n; i++) {
                    PtxStmt *s = &files[p].st[i];
                    if (s->drop || s->is_extern != (pass == 0)) continue;
                    sb_printf(out, "%s\n\n", s->text);
                }
    }
    arena_free(a);
    return ok;
}
