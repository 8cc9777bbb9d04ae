/* opt_tool.c - `nereid opt`: reads textual IR, verifies it, runs the named passes and
 * prints the result, like MLIR's mlir-opt; or, with --emit=llvm|ptx, the LLVM IR or PTX
 * of GPU-stage IR's kernels, like llc. It is how the IR tests (tests/lit/ir, gpu-ir,
 * codegen) drive the parser, the verifier, every pass and the code generator without
 * the front end.
 *
 *   nereid opt [FILE.nrir | -] [--passes=none|PASS,...] [--print-after-all] [--verify-only]
 *              [--print-axis-info[=speculative]] [--param-divisibility=N]
 *              [--arch=sm_80|sm_90|sm_90a] [--num-warps=N] [--num-stages=N]
 *              [--emit=ir|llvm|ptx] [--libdevice=FILE|none] [--list-passes]
 *
 * --passes=none (or an empty list) runs nothing: the module is printed as it was read.
 * The passes are the registry's (driver/pass_registry.h, --list-passes), run in the
 * order given on every function, the module verified after each (layouts and buffers
 * too, once the IR has a gpu<> header). gpu-assign-layouts takes IR without layouts (no
 * gpu<> header) and the target and warp count from --arch and --num-warps (defaults:
 * compiler/support/options.h), which it writes into the header; the other GPU passes
 * need that GPU-stage IR (a file with a gpu<> header, or the output of
 * gpu-assign-layouts earlier in the list), whose layouts already say everything the
 * target decided. A module of the wrong kind is an error (exit 1), not a pass run on IR
 * it does not expect. --num-stages is the pipelining depth. --print-axis-info prints the
 * alignment analysis of every function (after the passes): the facts it proves, or with
 * =speculative the facts the GPU passes and the code generator use, each with the roots
 * it needs (axis_info.h); every pointer and integer parameter is taken as divisible by N
 * (default 1) there, in the GPU passes and in the code generator.
 *
 * The module (or the code) goes to stdout; errors and --print-after-all dumps go to
 * stderr. Exit 0 on success, 1 on an error in the input or a failed pass, 2 on a usage
 * error: also an --arch or --num-warps with --emit=llvm|ptx that disagrees with the
 * file's gpu<> header (the code is the header's target's). */
#include "opt_tool.h"

#include "compiler/analysis/axis_info.h"
#include "compiler/codegen/llvm_gen.h"
#include "compiler/support/options.h"
#include "compiler/target/tma.h"
#include "pass_registry.h"
#include "ptx_module.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EMIT_IR, EMIT_LLVM, EMIT_PTX };

typedef struct OptArgs {
    const char *file; /* NULL or "-": stdin */
    const char *passes;
    bool print_after_all, verify_only, axis_info, speculative, list_passes;
    int emit;              /* EMIT_IR, EMIT_LLVM, EMIT_PTX */
    const char *libdevice; /* --libdevice=FILE (NULL: none) */
    bool libdevice_set;
    int64_t param_div;
    int arch, num_warps, num_stages; /* 0: from the file's gpu<> header or the default */
    GpuCodeOptions code;             /* --maxnreg, --enable-fp-fusion, --enable-reflect-ftz */
} OptArgs;

static int usage(const char *msg, const char *arg) {
    fprintf(stderr, "nereid opt: %s%s\n", msg, arg ? arg : "");
    StrBuf passes;
    sb_init(&passes);
    pass_list_names(&passes, 100, 11);
    fprintf(stderr,
            "usage: nereid opt [FILE.nrir | -] [--passes=none|PASS,...] [--print-after-all] "
            "[--verify-only]\n"
            "                  [--print-axis-info[=speculative]] [--param-divisibility=N] "
            "[--arch=sm_80|sm_90|sm_90a]\n"
            "                  [--num-warps=N] [--num-stages=N] [--emit=ir|llvm|ptx] "
            "[--libdevice=FILE|none]\n"
            "                  [--list-passes]\n"
            "passes:    %s\n",
            sb_cstr(&passes));
    sb_free(&passes);
    return 2;
}

/* --num-warps=N, --num-stages=N: 0 when v is a value the option takes (into *out), else
 * the usage error's status */
static int option_arg(OptionId id, const char *flag, const char *v, int *out) {
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || !option_valid(id, n)) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s takes %s, got ", flag, option_info(id)->range);
        return usage(msg, v);
    }
    *out = (int)n;
    return 0;
}

/* --list-passes: each pass's name and what it does */
static int list_passes(void) {
    for (int i = 0; i < pass_count(); i++)
        printf("%-24s %s\n", pass_at(i)->name, pass_at(i)->summary);
    return 0;
}

/* Returns 0 when the arguments are good, else the exit status. */
static int parse_args(int argc, char **argv, OptArgs *a) {
    memset(a, 0, sizeof *a);
    a->passes = "";
    a->param_div = 1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strncmp(s, "--passes=", 9)) a->passes = s + 9;
        else if (!strcmp(s, "--print-after-all")) a->print_after_all = true;
        else if (!strcmp(s, "--verify-only")) a->verify_only = true;
        else if (!strcmp(s, "--print-axis-info")) a->axis_info = true;
        else if (!strcmp(s, "--print-axis-info=speculative")) a->axis_info = a->speculative = true;
        else if (!strncmp(s, "--arch=", 7)) {
            a->arch = ir_gpu_arch_from_name(s + 7, strlen(s + 7));
            if (!a->arch) return usage("--arch takes sm_80, sm_90 or sm_90a, got ", s + 7);
        } else if (!strncmp(s, "--num-warps=", 12)) {
            int rc = option_arg(OPT_NUM_WARPS, "--num-warps", s + 12, &a->num_warps);
            if (rc) return rc;
        } else if (!strncmp(s, "--num-stages=", 13)) {
            int rc = option_arg(OPT_NUM_STAGES, "--num-stages", s + 13, &a->num_stages);
            if (rc) return rc;
        } else if (!strncmp(s, "--maxnreg=", 10)) {
            int rc = option_arg(OPT_MAXNREG, "--maxnreg", s + 10, &a->code.maxnreg);
            if (rc) return rc;
        } else if (!strncmp(s, "--enable-fp-fusion=", 19) ||
                   !strncmp(s, "--enable-reflect-ftz=", 21)) {
            const char *v = strchr(s, '=') + 1;
            if (strcmp(v, "0") && strcmp(v, "1")) return usage("takes 0 or 1: ", s);
            if (s[9] == 'f') a->code.fp_fusion = v[0] == '1';
            else a->code.reflect_ftz = v[0] == '1';
        } else if (!strncmp(s, "--emit=", 7)) {
            const char *v = s + 7;
            a->emit = !strcmp(v, "ir")     ? EMIT_IR
                      : !strcmp(v, "llvm") ? EMIT_LLVM
                      : !strcmp(v, "ptx")  ? EMIT_PTX
                                           : -1;
            if (a->emit < 0) return usage("--emit takes ir, llvm or ptx, got ", v);
        } else if (!strncmp(s, "--libdevice=", 12)) {
            a->libdevice_set = true;
            a->libdevice = strcmp(s + 12, "none") ? s + 12 : NULL;
            if (a->libdevice && access(a->libdevice, R_OK))
                return usage("--libdevice: cannot read ", a->libdevice);
        } else if (!strcmp(s, "--list-passes")) {
            a->list_passes = true;
        } else if (!strncmp(s, "--param-divisibility=", 21)) {
            char *end;
            a->param_div = strtoll(s + 21, &end, 10);
            if (*end || a->param_div < 1 || (a->param_div & (a->param_div - 1)))
                return usage("--param-divisibility takes a power of two, got ", s + 21);
        } else if (s[0] == '-' && s[1]) return usage("unknown option ", s);
        else if (a->file) return usage("more than one input file: ", s);
        else a->file = s;
    }
    char bad[64];
    if (!pass_list_valid(a->passes, bad, sizeof bad)) return usage("unknown pass: ", bad);
    return 0;
}

/* Runs the passes (driver/pass_registry.h) with the target from the options or the file. */
static bool run_passes(const OptArgs *a, IrModule *m, Diag *diag, StrBuf *dump) {
    GpuOptions go = {a->arch       ? a->arch
                     : m->gpu.arch ? m->gpu.arch
                                   : ir_gpu_arch_from_name(NR_DEFAULT_ARCH, 6),
                     a->num_warps       ? a->num_warps
                     : m->gpu.num_warps ? m->gpu.num_warps
                                        : option_info(OPT_NUM_WARPS)->def,
                     option_or_default(OPT_NUM_STAGES, a->num_stages), (int)a->param_div};
    return pass_run_list(m, a->passes, &go, diag, a->print_after_all ? dump : NULL);
}

/* Does parameter i hold a tensor map (compiler/target/tma.h)? Where an op copies through
 * it with TMA (tma_load, tma_store), and, as the runtime passes it (by its type, the
 * target and the fact: a 16-divisible descriptor, as --param-divisibility=16 says), even
 * where every access through it was expanded into loads, stores or atomics. */
static bool param_uses_tma(const IrFunc *f, ValId param, int param_div) {
    IrType t = ir_type(f, param);
    if (t.dt == DT_TDESC &&
        gpu_tdesc_uses_tma(t, f->mod->gpu.arch, param_div % 16 == 0 ? SPEC_DIV16 : SPEC_NONE))
        return true;
    for (uint32_t i = 1; i < f->nops; i++) {
        const IrOp *op = &f->ops[i];
        if ((op->code == OP_TMA_LOAD || op->code == OP_TMA_STORE) && op->nopnds &&
            op->operands[0] == param)
            return true;
    }
    return false;
}

/* One kernel's LLVM IR or PTX into code. */
static bool emit_kernel(IrFunc *f, const OptToolEmit *e, Arena *arena, Diag *diag, StrBuf *code) {
    const IrModule *m = f->mod;
    IrRegion *body = &f->regions[f->body];
    bool *tma = arena_alloc(arena, body->nargs + 1);
    for (uint32_t p = 0; p < body->nargs; p++)
        tma[p] = param_uses_tma(f, body->args[p], e->param_div);
    GpuTarget t = {ir_gpu_arch_name(m->gpu.arch),
                   m->gpu.num_warps,
                   option_or_default(OPT_NUM_STAGES, e->num_stages),
                   NULL,
                   e->libdevice,
                   tma,
                   body->nargs,
                   e->code};
    ParamFact *pf = axis_info_param_facts(f, e->param_div, arena);
    return llvm_gen_kernel(f, axis_info_analyze(f, pf, arena), &t, e->llvm ? code : NULL,
                           e->llvm ? NULL : code, diag, NULL);
}

/* A kernel's name is its PTX entry's: an identifier PTX takes (a letter, or '_' or '$'
 * followed by more; letters, digits, '_' and '$'). Textual IR's names may hold '.', which
 * LLVM would rewrite (two kernels `@a.b` and `@a.c` then named alike in one module). */
static bool ptx_name_ok(const char *s) {
    if (!*s || !(isalpha((unsigned char)s[0]) || ((s[0] == '_' || s[0] == '$') && s[1])))
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '$') return false;
    return true;
}

bool opt_tool_emit_code(IrModule *m, const OptToolEmit *e, Arena *arena, Diag *diag, StrBuf *out) {
    if (!m->gpu.arch || !m->gpu.num_warps) {
        diag_error(diag, (Loc){0},
                   "--emit=%s needs GPU-stage IR (a gpu<...> header, layouts, shared memory "
                   "placed): run the GPU passes first",
                   e->llvm ? "llvm" : "ptx");
        return false;
    }
    PtxPart *parts = arena_alloc(arena, sizeof *parts * (m->nfuncs + 1));
    int nparts = 0;
    bool ok = true;
    for (uint32_t i = 0; i < m->nfuncs && ok; i++) {
        if (!m->funcs[i]->is_kernel) continue;
        if (!ptx_name_ok(m->funcs[i]->name)) {
            diag_error(diag, m->funcs[i]->loc,
                       "kernel '@%s': --emit=%s needs a name PTX takes (letters, digits, '_' and "
                       "'$', not starting with a digit)",
                       m->funcs[i]->name, e->llvm ? "llvm" : "ptx");
            return false;
        }
        StrBuf code;
        sb_init(&code);
        ok = emit_kernel(m->funcs[i], e, arena, diag, &code);
        if (ok)
            parts[nparts++] =
                (PtxPart){arena_strndup(arena, sb_cstr(&code), code.len), code.len, NULL};
        sb_free(&code);
    }
    if (!ok) return false;
    if (e->llvm || nparts < 2) { /* LLVM modules one after the other; one PTX module as it is */
        for (int i = 0; i < nparts; i++) sb_putn(out, parts[i].text, parts[i].len);
        return true;
    }
    StrBuf err; /* several kernels: one PTX module, as `nereid compile --emit=ptx` writes it */
    sb_init(&err);
    ok = ptx_merge(parts, nparts, out, &err);
    if (!ok)
        diag_error(diag, (Loc){0}, "internal error: cannot merge the kernels' PTX: %s",
                   sb_cstr(&err));
    sb_free(&err);
    return ok;
}

/* --emit=llvm|ptx with the options': CUDA's libdevice as the CLI finds it unless
 * --libdevice=FILE|none says. */
static bool emit_code(const OptArgs *a, IrModule *m, Arena *arena, Diag *diag, StrBuf *out) {
    char found[4096];
    OptToolEmit e = {a->emit == EMIT_LLVM, a->num_stages, a->param_div,
                     a->libdevice_set ? a->libdevice : gpu_libdevice_find(found, sizeof found),
                     a->code};
    return opt_tool_emit_code(m, &e, arena, diag, out);
}

/* --emit=llvm|ptx compiles for the target in the gpu<> header: an --arch or --num-warps
 * that says otherwise is a usage error (the status), not an option silently ignored. */
static int header_agrees(const OptArgs *a, const IrModule *m) {
    if (a->emit == EMIT_IR || !m->gpu.arch) return 0;
    char msg[160];
    if (a->arch && a->arch != m->gpu.arch) {
        snprintf(msg, sizeof msg,
                 "--emit compiles for the gpu<> header's arch, %s, and --arch names ",
                 ir_gpu_arch_name(m->gpu.arch));
        return usage(msg, ir_gpu_arch_name(a->arch));
    }
    if (a->num_warps && a->num_warps != m->gpu.num_warps) {
        snprintf(msg, sizeof msg,
                 "--emit compiles for the gpu<> header's num_warps, %d, and --num-warps gives ",
                 m->gpu.num_warps);
        char n[16];
        snprintf(n, sizeof n, "%d", a->num_warps);
        return usage(msg, n);
    }
    return 0;
}

/* Parse, verify, run passes, print: 0, 1, or 2 for options the module contradicts. */
static int run(const OptArgs *a, const Source *src, Arena *arena, Diag *diag) {
    IrModule *m = ir_parse_module(arena, diag, src);
    if (!m) return 1;
    int rc = header_agrees(a, m);
    if (rc) return rc;
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
            if (a->speculative)
                axis_info_print_speculative(&out, m->funcs[i],
                                            axis_info_speculate(m->funcs[i], pf, arena));
            else axis_info_print(&out, m->funcs[i], axis_info_analyze(m->funcs[i], pf, arena));
        }
    }
    if (ok && a->emit != EMIT_IR) ok = emit_code(a, m, arena, diag, &out);
    else if (ok) ir_print_module(&out, m);
    if (ok) fwrite(out.data ? out.data : "", 1, out.len, stdout);
    sb_free(&dump);
    sb_free(&out);
    return ok ? 0 : 1;
}

int opt_tool_main(int argc, char **argv) {
    OptArgs a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    if (a.list_passes) return list_passes();
    bool from_stdin = !a.file || !strcmp(a.file, "-");
    size_t len = 0;
    char *text = from_stdin ? file_read_stream(stdin, &len) : file_read(a.file, &len);
    if (!text) {
        fprintf(stderr, "nereid opt: cannot read %s: %s\n", from_stdin ? "stdin" : a.file,
                strerror(errno));
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
