/* fuzz_ir.c - libFuzzer harness for `nereid opt`: the input bytes are IR text (.nrir).
 * Like opt_tool_main it parses the module, verifies it, runs passes, runs the alignment
 * analysis (--print-axis-info) and prints the module; GPU-stage IR (a gpu<> header) with
 * --emit=llvm or --emit=ptx on a RUN line also goes through the code generator
 * (opt_tool_emit_code, without libdevice), as `nereid opt FILE --emit=ptx` does.
 *
 * Options. Flags on the input's "RUN:" lines are honoured as `nereid opt` would take
 * them (see fuzz_common.h): --passes=LIST (an invalid list is a usage error for the
 * CLI, so it falls back to the default here), --verify-only, --param-divisibility=N,
 * --emit=llvm|ptx. Without --passes the whole standard pipeline runs
 * (inline,canonicalize,combine-dot,cse,dce,canonicalize,dce), and the alignment analysis always
 * runs (divisibility 16 unless a RUN line gives one), so every pass sees every input; with
 * --emit and without --passes, no pass runs (as in the CLI: the code generator takes the
 * module as it was read).
 *
 * Environment:
 *   NEREID_FUZZ_VERBOSE=1     print the equivalent `nereid opt` command and the
 *                             diagnostics of every input
 *   NEREID_FUZZ_ROUNDTRIP=1   also check that the printed result parses and verifies
 *                             again (printer/parser agreement; off by default: it is
 *                             a stricter promise than "no crash")
 *   NEREID_FUZZ_ALLOW_INTERNAL=1  do not treat "error: internal error" as a crash
 *   NEREID_FUZZ_ALLOW_UNLOCATED=1 do not treat an error without a location as a crash
 *
 * Besides sanitizer reports, crashes and hangs, it aborts when a stage fails without
 * any error and when a pass reports an internal error, i.e. a pass turned IR that
 * verified into IR that does not (fuzz_common.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/analysis/axis_info.h"
#include "compiler/ir/ir.h"
#include "driver/opt_tool.h"
#include "driver/pass_registry.h"
#include "fuzz_common.h"

#define DEFAULT_PASSES "inline,canonicalize,combine-dot,cse,dce,canonicalize,dce"

typedef struct OptOpts {
    Arena *arena;
    const char *passes; /* NULL: none given */
    bool verify_only;
    int emit; /* 0, or 'l' (--emit=llvm) or 'p' (--emit=ptx) */
    int64_t param_div;
} OptOpts;

static bool verbose, roundtrip;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    verbose = fuzz_env_flag("NEREID_FUZZ_VERBOSE");
    roundtrip = fuzz_env_flag("NEREID_FUZZ_ROUNDTRIP");
    return 0;
}

/* A valid list of IR passes (the registry's; the GPU passes are not fuzzed here). */
static bool ir_passes_only(const char *list) {
    char bad[64];
    if (!pass_list_valid(list, bad, sizeof bad) || !strcmp(list, "none")) return false;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (!pass_find(p, n)->run_ir) return false;
        p += n + (p[n] == ',');
    }
    return true;
}

static void take_word(FuzzWord w, FuzzWord next, void *ctx) {
    (void)next;
    OptOpts *o = ctx;
    if (fuzz_word_prefix(w, "--passes=")) {
        const char *list = fuzz_word_str(o->arena, w, 9);
        if (ir_passes_only(list)) o->passes = list;
    } else if (fuzz_word_is(w, "--verify-only")) {
        o->verify_only = true;
    } else if (fuzz_word_is(w, "--emit=llvm") || fuzz_word_is(w, "--emit=ptx")) {
        o->emit = w.start[7];
    } else if (fuzz_word_prefix(w, "--param-divisibility=")) {
        char *end;
        const char *s = fuzz_word_str(o->arena, w, 21);
        long long d = strtoll(s, &end, 10);
        if (!*end && d >= 1 && !(d & (d - 1))) o->param_div = d;
    }
}

/* --emit=llvm|ptx on GPU-stage IR: every kernel through the code generator. Its errors
 * must be ordinary ones: an internal error is a crash (fuzz_check_diag). */
static void emit_code(const OptOpts *o, IrModule *m, Arena *arena, Diag *diag,
                      const char *src_name) {
    if (!o->emit || !m->gpu.arch) return;
    OptToolEmit e = {o->emit == 'l', 0, o->param_div, NULL, {0}};
    StrBuf out;
    sb_init(&out);
    bool ok = opt_tool_emit_code(m, &e, arena, diag, &out);
    fuzz_check_diag(diag, ok, "opt_tool_emit_code", src_name);
    sb_free(&out);
}

/* The printed module must read back as a module that verifies. */
static void check_roundtrip(const StrBuf *printed) {
    Arena *a = arena_new();
    Diag d;
    diag_init(&d);
    Source src = {"roundtrip.nrir", printed->data ? printed->data : "", printed->len};
    IrModule *m = ir_parse_module(a, &d, &src);
    StrBuf err;
    sb_init(&err);
    if (!m || !ir_verify_module(m, &err)) {
        fprintf(stderr, "==fuzz== the printed module does not %s:\n%s%s\n--- printed:\n%s\n",
                m ? "verify" : "parse", sb_cstr(&d.out), sb_cstr(&err), src.text);
        abort();
    }
    sb_free(&err);
    diag_free(&d);
    arena_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    Source src = {"fuzz.nrir", text, size};

    OptOpts o = {arena_new(), NULL, false, 0, 16};
    fuzz_for_each_run_word(text, size, 256, take_word, &o);
    if (!o.passes) o.passes = o.emit ? "none" : DEFAULT_PASSES;
    if (verbose)
        fprintf(stderr,
                "==fuzz== nereid opt FILE.nrir '--passes=%s'%s --print-axis-info "
                "--param-divisibility=%lld%s\n",
                o.passes, o.verify_only ? " --verify-only" : "", (long long)o.param_div,
                o.emit ? (o.emit == 'l' ? " --emit=llvm --libdevice=none"
                                        : " --emit=ptx --libdevice=none")
                       : "");

    Arena *arena = arena_new();
    Diag diag;
    diag_init(&diag);
    IrModule *m = ir_parse_module(arena, &diag, &src);
    fuzz_check_diag(&diag, m != NULL, "ir_parse_module", src.name);
    if (m) {
        StrBuf err;
        sb_init(&err);
        bool ok = ir_verify_module(m, &err);
        if (!ok && err.len == 0) {
            fprintf(stderr, "==fuzz== ir_verify_module failed without a message\n");
            abort();
        }
        sb_free(&err);
        if (ok && !o.verify_only) {
            ok = pass_run_list(m, o.passes, NULL, &diag, NULL);
            fuzz_check_diag(&diag, ok, "pass_run_list", src.name);
            if (ok) {
                StrBuf out;
                sb_init(&out);
                for (uint32_t i = 0; i < m->nfuncs; i++) {
                    ParamFact *pf = axis_info_param_facts(m->funcs[i], o.param_div, arena);
                    axis_info_print(&out, m->funcs[i], axis_info_analyze(m->funcs[i], pf, arena));
                }
                out.len = 0;
                ir_print_module(&out, m);
                if (roundtrip) check_roundtrip(&out);
                sb_free(&out);
                emit_code(&o, m, arena, &diag, src.name);
            }
        }
    }
    if (verbose) fprintf(stderr, "==fuzz== diagnostics:\n%s", sb_cstr(&diag.out));
    diag_free(&diag);
    arena_free(arena);
    arena_free(o.arena);
    free(text);
    return 0;
}
