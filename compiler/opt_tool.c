/* opt_tool.c - `nereid opt`: reads textual IR, verifies it, runs the named passes and
 * prints the result, like MLIR's mlir-opt. It is how the IR tests in tests/lit/ir drive
 * the parser, the verifier and every pass without the front end.
 *
 *   nereid opt [FILE.nrir | -] [--passes=inline,canonicalize,cse,dce]
 *              [--print-after-all] [--verify-only]
 *              [--print-axis-info [--param-divisibility=N]]
 *
 * --print-axis-info prints the alignment analysis of every function (after the passes),
 * with every pointer and integer parameter taken as divisible by N (default 1).
 *
 * The module goes to stdout; errors and --print-after-all dumps go to stderr. Exit 0 on
 * success, 1 on an error in the input or a failed pass, 2 on a usage error. */
#include "gpu/axis_info.h"
#include "passes/passes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct OptArgs {
    const char *file; /* NULL or "-": stdin */
    const char *passes;
    bool print_after_all, verify_only, axis_info;
    int64_t param_div;
} OptArgs;

static int usage(const char *msg, const char *arg) {
    fprintf(stderr, "nereid opt: %s%s\n", msg, arg ? arg : "");
    fprintf(stderr, "usage: nereid opt [FILE.nrir | -] [--passes=inline,canonicalize,cse,dce] "
                    "[--print-after-all] [--verify-only] [--print-axis-info [--param-divisibility=N]]\n");
    return 2;
}

/* Returns 0 when the arguments are good, else the exit status. */
static int parse_args(int argc, char **argv, OptArgs *a) {
    memset(a, 0, sizeof *a);
    a->passes = "";
    a->param_div = 1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strncmp(s, "--passes=", 9))
            a->passes = s + 9;
        else if (!strcmp(s, "--print-after-all"))
            a->print_after_all = true;
        else if (!strcmp(s, "--verify-only"))
            a->verify_only = true;
        else if (!strcmp(s, "--print-axis-info"))
            a->axis_info = true;
        else if (!strncmp(s, "--param-divisibility=", 21)) {
            char *end;
            a->param_div = strtoll(s + 21, &end, 10);
            if (*end || a->param_div < 1 || (a->param_div & (a->param_div - 1)))
                return usage("--param-divisibility takes a power of two, got ", s + 21);
        }
        else if (s[0] == '-' && s[1])
            return usage("unknown option ", s);
        else if (a->file)
            return usage("more than one input file: ", s);
        else
            a->file = s;
    }
    char bad[64];
    if (!nr_pass_list_valid(a->passes, bad, sizeof bad)) return usage("unknown pass: ", bad);
    return 0;
}


/* Parse, verify, run passes, print: 0 or 1. */
static int run(const OptArgs *a, const Source *src, Arena *arena, Diag *diag) {
    IrModule *m = ir_parse_module(arena, diag, src);
    if (!m) return 1;
    StrBuf err;
    sb_init(&err);
    bool ok = ir_verify_module(m, &err);
    fputs(sb_cstr(&err), stderr);
    sb_free(&err);
    if (!ok) return 1;
    if (a->verify_only) return 0;
    NrPassOptions o = {a->print_after_all};
    StrBuf dump, out;
    sb_init(&dump);
    sb_init(&out);
    ok = nr_run_named_passes(m, a->passes, &o, diag, &dump);
    fputs(sb_cstr(&dump), stderr);
    if (ok && a->axis_info) {
        for (uint32_t i = 0; i < m->nfuncs; i++) {
            ParamFact *pf = axis_info_param_facts(m->funcs[i], a->param_div, arena);
            axis_info_print(&out, m->funcs[i], axis_info_analyze(m->funcs[i], pf, arena));
        }
    }
    if (ok) {
        ir_print_module(&out, m);
        fwrite(out.data ? out.data : "", 1, out.len, stdout);
    }
    sb_free(&dump);
    sb_free(&out);
    return ok ? 0 : 1;
}

int nr_opt_main(int argc, char **argv) {
    OptArgs a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    bool from_stdin = !a.file || !strcmp(a.file, "-");
    size_t len = 0;
    char *text = from_stdin ? file_read_stream(stdin, &len) : file_read(a.file, &len);
    if (!text) {
        fprintf(stderr, "nereid opt: cannot read %s: %s\n", from_stdin ? "stdin" : a.file, strerror(errno));
        return 1;
    }
    Source src = {from_stdin ? "<stdin>" : a.file, text, len};
    Arena *arena = arena_new();
    Diag diag;
    diag_init(&diag);
    rc = run(&a, &src, arena, &diag);
    fputs(sb_cstr(&diag.out), stderr);
    diag_free(&diag);
    arena_free(arena);
    free(text);
    return rc;
}
