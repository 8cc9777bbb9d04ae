/* opt_tool.c - `nereid opt`: reads textual IR, verifies it, runs the named passes and
 * prints the result, like MLIR's mlir-opt. It is how the IR tests in tests/lit/ir drive
 * the parser, the verifier and every pass without the front end.
 *
 *   nereid opt [FILE.nrir | -] [--passes=inline,canonicalize,combine-dot,cse,dce,gpu-...]
 *              [--print-after-all] [--verify-only]
 *              [--print-axis-info] [--param-divisibility=N]
 *              [--arch=sm_80|sm_90|sm_90a] [--num-warps=N] [--num-stages=N]
 *
 * --passes=none (or an empty list) runs nothing: the module is printed as it was read.
 * The passes are the IR passes (compiler/passes) and the GPU passes (gpu_pass_table:
 * gpu-assign-layouts, gpu-lower-dot-operands, gpu-pipeline, gpu-alloc-shared,
 * gpu-insert-barriers), run in the order given on every function, the module verified
 * after each (layouts and buffers too, once the IR has a gpu<> header).
 * gpu-assign-layouts takes IR without layouts (no gpu<> header) and the target and warp
 * count from --arch (default sm_90a) and --num-warps (default 4), which it writes into
 * the header; the other GPU passes need that GPU-stage IR (a file with a gpu<> header,
 * or the output of gpu-assign-layouts earlier in the list), whose layouts already say
 * everything the target decided. A module of the wrong kind is an error (exit 1), not a
 * pass run on IR it does not expect. --num-stages (default 3) is the pipelining depth.
 * --print-axis-info prints the alignment analysis of every
 * function (after the passes); every pointer and integer parameter is taken as
 * divisible by N (default 1) there and in the GPU passes.
 *
 * The module goes to stdout; errors and --print-after-all dumps go to stderr. Exit 0 on
 * success, 1 on an error in the input or a failed pass, 2 on a usage error. */
#include "compiler/analysis/axis_info.h"
#include "compiler/gpu/gpu_passes.h"
#include "compiler/passes/passes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct OptArgs {
    const char *file; /* NULL or "-": stdin */
    const char *passes;
    bool print_after_all, verify_only, axis_info;
    int64_t param_div;
    int arch, num_warps, num_stages; /* 0: from the file's gpu<> header or the default */
} OptArgs;

static int usage(const char *msg, const char *arg) {
    fprintf(stderr, "nereid opt: %s%s\n", msg, arg ? arg : "");
    fprintf(stderr, "usage: nereid opt [FILE.nrir | -] [--passes=inline,canonicalize,combine-dot,cse,dce,gpu-assign-layouts,"
                    "gpu-lower-dot-operands,gpu-pipeline,gpu-alloc-shared,gpu-insert-barriers] [--print-after-all] "
                    "[--verify-only] [--print-axis-info] [--param-divisibility=N] [--arch=sm_80|sm_90|sm_90a] "
                    "[--num-warps=N] [--num-stages=N]\n");
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
        else if (!strncmp(s, "--arch=", 7)) {
            a->arch = ir_gpu_arch_from_name(s + 7, strlen(s + 7));
            if (!a->arch) return usage("--arch takes sm_80, sm_90 or sm_90a, got ", s + 7);
        } else if (!strncmp(s, "--num-warps=", 12) || !strncmp(s, "--num-stages=", 13)) {
            bool warps = s[6] == 'w';
            const char *v = s + (warps ? 12 : 13);
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || end == v || n < 1 || n > (warps ? 32 : 8) || (warps && (n & (n - 1))))
                return usage(warps ? "--num-warps takes a power of two from 1 to 32, got " : "--num-stages takes 1 to 8, got ", v);
            if (warps) a->num_warps = (int)n;
            else a->num_stages = (int)n;
        } else if (!strncmp(s, "--param-divisibility=", 21)) {
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
    if (!strcmp(a->passes, "none")) a->passes = "";
    for (const char *p = a->passes; *p;) {
        size_t n = strcspn(p, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        char bad[64];
        if (!gpu_pass_find(p, n) && !nr_pass_list_valid(name, bad, sizeof bad)) return usage("unknown pass: ", name);
        p += n + (p[n] == ',');
    }
    return 0;
}

static bool verify_after(IrModule *m, Diag *diag, const char *pass) {
    StrBuf err;
    sb_init(&err);
    bool ok = ir_verify_module(m, &err);
    if (!ok) {
        if (err.len && err.data[err.len - 1] == '\n') err.data[--err.len] = 0;
        diag_error(diag, (Loc){0}, "internal error: invalid IR after pass '%s':\n%s", pass, sb_cstr(&err));
    }
    sb_free(&err);
    return ok;
}

/* Runs the passes in order: IR passes through the pipeline's runner, GPU passes on every
 * function with the target from the options or the file. */
static bool run_passes(const OptArgs *a, IrModule *m, Diag *diag, StrBuf *dump) {
    NrPassOptions o = {a->print_after_all};
    GpuOptions go = {a->arch ? a->arch : m->gpu.arch ? m->gpu.arch : GPU_SM90A,
                     a->num_warps ? a->num_warps : m->gpu.num_warps ? m->gpu.num_warps : 4,
                     a->num_stages ? a->num_stages : 3, (int)a->param_div};
    for (const char *p = a->passes; *p;) {
        size_t n = strcspn(p, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        p += n + (p[n] == ',');
        const GpuPass *gp = gpu_pass_find(name, strlen(name));
        if (!gp) {
            if (!nr_run_named_passes(m, name, &o, diag, dump)) return false;
            continue;
        }
        if (gp->on_gpu_ir != (m->gpu.arch || m->gpu.num_warps)) { /* the passes assume it: refuse, never crash */
            if (gp->on_gpu_ir)
                diag_error(diag, (Loc){0}, "pass '%s' needs GPU-stage IR (a gpu<...> header and layouts): run "
                           "gpu-assign-layouts first", name);
            else
                diag_error(diag, (Loc){0}, "pass '%s' takes IR without layouts, and this module has a gpu<...> header "
                           "(its layouts are assigned already)", name);
            return false;
        }
        for (uint32_t i = 0; i < m->nfuncs; i++) gp->run(m->funcs[i], &go);
        if (a->print_after_all) {
            sb_printf(dump, "// -----// IR Dump After %s //----- //\n", name);
            ir_print_module(dump, m);
        }
        if (!verify_after(m, diag, name)) return false;
    }
    return true;
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
    StrBuf dump, out;
    sb_init(&dump);
    sb_init(&out);
    ok = run_passes(a, m, diag, &dump);
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
