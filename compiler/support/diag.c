/* diag.c - located diagnostics in clang's format (file:line:col: error: msg, the source
 * line, a caret) collected into a buffer, and the internal-error abort. */
#include "support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diag_init(Diag *d) {
    sb_init(&d->out);
    d->nerrors = d->nwarnings = 0;
    d->max_errors = 20;
}

void diag_free(Diag *d) { sb_free(&d->out); }

/* Print the line the location points into, with a caret under the column. Control
 * bytes are shown as '?' so binary input cannot garble a terminal. */
static void show_line(StrBuf *sb, Loc loc) {
    const char *t = loc.src->text, *end = t + loc.src->len;
    for (int l = 1; l < loc.line && t < end; t++)
        if (*t == '\n') l++;
    const char *eol = t;
    while (eol < end && *eol != '\n') eol++;
    if (eol - t > 300) eol = t + 300;
    for (const char *p = t; p < eol; p++) {
        unsigned char c = (unsigned char)*p;
        sb_putc(sb, (c < 32 && c != '\t') || c == 127 ? '?' : (char)c);
    }
    sb_putc(sb, '\n');
    int col = loc.col > 0 ? loc.col : 1;
    for (int i = 1; i < col && t + i - 1 < eol; i++) sb_putc(sb, t[i - 1] == '\t' ? '\t' : ' ');
    sb_puts(sb, "^\n");
}

static void vreport(Diag *d, Loc loc, const char *kind, const char *fmt, va_list ap) {
    if (loc.src) sb_printf(&d->out, "%s:%d:%d: %s: ", loc.src->name, loc.line, loc.col, kind);
    else sb_printf(&d->out, "nereid: %s: ", kind);
    sb_vprintf(&d->out, fmt, ap);
    sb_putc(&d->out, '\n');
    if (loc.src && loc.line > 0) show_line(&d->out, loc);
}

void diag_verror(Diag *d, Loc loc, const char *fmt, va_list ap) {
    d->nerrors++;
    if (d->nerrors > (d->max_errors ? d->max_errors : 20)) return;
    vreport(d, loc, "error", fmt, ap);
}

void diag_error(Diag *d, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(d, loc, fmt, ap);
    va_end(ap);
}

void diag_note(Diag *d, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(d, loc, "note", fmt, ap);
    va_end(ap);
}

void diag_warning(Diag *d, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    d->nwarnings++;
    vreport(d, loc, "warning", fmt, ap);
    va_end(ap);
}

_Noreturn void diag_die_at(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nereid: internal error at %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}
