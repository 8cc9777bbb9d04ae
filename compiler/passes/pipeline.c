/* pipeline.c - runs passes in order, verifying the module before the first and after
 * every one (a verifier failure there is our bug, reported as an internal error), and
 * dumping the module after each pass on request. */
#include "passes.h"

#include <stdio.h>
#include <string.h>

typedef struct PassRun {
    IrModule *m;
    const NrPassOptions *o;
    Diag *d;
    StrBuf *dump;
} PassRun;

static bool run_inline(IrModule *m, Diag *d) { return pass_inline(m, d); }
static bool run_canonicalize(IrModule *m, Diag *d) { return (void)d, pass_canonicalize(m), true; }
static bool run_combine_dot(IrModule *m, Diag *d) { return (void)d, pass_combine_dot(m), true; }
static bool run_cse(IrModule *m, Diag *d) { return (void)d, pass_cse(m), true; }
static bool run_dce(IrModule *m, Diag *d) { return (void)d, pass_dce(m), true; }
static bool run_expand_desc(IrModule *m, Diag *d) { return (void)d, pass_expand_descriptors(m), true; }

static const struct {
    const char *name;
    bool (*run)(IrModule *, Diag *);
} passes[] = {
    {"inline", run_inline},
    {"canonicalize", run_canonicalize},
    {"combine-dot", run_combine_dot},
    {"cse", run_cse},
    {"dce", run_dce},
    {"expand-descriptors", run_expand_desc},
};

static int find_pass(const char *name, size_t len) {
    for (int i = 0; i < (int)(sizeof passes / sizeof passes[0]); i++)
        if (strlen(passes[i].name) == len && !memcmp(passes[i].name, name, len)) return i;
    return -1;
}

static bool verify(PassRun *r, const char *when) {
    StrBuf err;
    sb_init(&err);
    bool ok = ir_verify_module(r->m, &err);
    if (!ok) {
        if (err.len && err.data[err.len - 1] == '\n') err.data[--err.len] = 0;
        diag_error(r->d, (Loc){0}, "internal error: invalid IR %s:\n%s", when, sb_cstr(&err));
    }
    sb_free(&err);
    return ok;
}

static bool run_pass(PassRun *r, const char *name) {
    int i = find_pass(name, strlen(name));
    NR_ASSERT(i >= 0);
    if (!passes[i].run(r->m, r->d)) return false;
    if (r->o && r->o->print_after_all && r->dump) {
        sb_printf(r->dump, "// -----// IR Dump After %s //----- //\n", name);
        ir_print_module(r->dump, r->m);
    }
    char when[64];
    snprintf(when, sizeof when, "after pass '%s'", name);
    return verify(r, when);
}

bool nr_run_passes(IrModule *m, const NrPassOptions *o, Diag *d, StrBuf *dump) {
    PassRun r = {m, o, d, dump};
    return verify(&r, "before the passes")
        && run_pass(&r, "inline")
        && run_pass(&r, "canonicalize")
        && run_pass(&r, "combine-dot")
        && run_pass(&r, "cse")
        && run_pass(&r, "dce")
        && run_pass(&r, "canonicalize")
        && run_pass(&r, "dce");
}

bool nr_pass_list_valid(const char *list, char *bad, size_t size) {
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (find_pass(p, n) < 0) {
            snprintf(bad, size, "%.*s", (int)n, p);
            return false;
        }
        p += n + (p[n] == ',');
    }
    return true;
}

bool nr_run_named_passes(IrModule *m, const char *list, const NrPassOptions *o, Diag *d, StrBuf *dump) {
    PassRun r = {m, o, d, dump};
    char bad[64];
    if (!nr_pass_list_valid(list, bad, sizeof bad)) {
        diag_error(d, (Loc){0}, "unknown pass '%s'", bad);
        return false;
    }
    if (!verify(&r, "before the passes")) return false;
    for (const char *p = list; *p;) {
        char name[32];
        size_t n = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        if (!run_pass(&r, name)) return false;
        p += n + (p[n] == ',');
    }
    return true;
}
