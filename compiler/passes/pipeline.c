/* pipeline.c - the standard pipeline of IR passes, in order, verifying the module before
 * the first and after every one (a verifier failure there is our bug, reported as an
 * internal error), and dumping the module after each pass on request. The passes by name
 * (`nereid opt`) are driver/pass_registry.c's. */
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

static bool run_pass(PassRun *r, const char *name, bool (*run)(IrModule *, Diag *)) {
    if (!run(r->m, r->d)) return false;
    if (r->o && r->o->print_after_all && r->dump) {
        sb_printf(r->dump, "// -----// IR Dump After %s //----- //\n", name);
        ir_print_module(r->dump, r->m);
    }
    char when[64];
    snprintf(when, sizeof when, "after pass '%s'", name);
    return verify(r, when);
}

bool pass_run_pipeline(IrModule *m, const NrPassOptions *o, Diag *d, StrBuf *dump) {
    PassRun r = {m, o, d, dump};
    return verify(&r, "before the passes") && run_pass(&r, "inline", run_inline) &&
           run_pass(&r, "canonicalize", run_canonicalize) &&
           run_pass(&r, "combine-dot", run_combine_dot) && run_pass(&r, "cse", run_cse) &&
           run_pass(&r, "dce", run_dce) && run_pass(&r, "canonicalize", run_canonicalize) &&
           run_pass(&r, "dce", run_dce);
}
