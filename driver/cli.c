/* cli.c - the `nereid` command: `nereid compile` runs the pipeline on a kernel file and
 * prints the requested stage; `nereid opt` runs passes on textual IR (for tests).
 * Exit status: 0 success, 1 compile error, 2 usage error. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>
#include <unistd.h>

#include "aot_c.h"
#include "compiler/passes/passes.h"
#include "compiler/support/options.h"
#include "driver.h"
#include "gpu_compile.h"
#include "nereid.h"
#include "opt_tool.h"
#include "pass_registry.h"
#include "ptx_module.h"
#include "ptxas.h"

/* The usage text: the defaults come from options.h, the passes from the registry. */
static void print_usage(FILE *f) {
    fprintf(
        f,
        "usage: nereid compile FILE.nr [-k KERNEL] [-D NAME=VALUE]... [--emit=ast|ir|ir-opt]\n"
        "                      [-o OUT] [--print-after-all] [--num-warps=N] [--num-stages=N]\n"
        "                      [--emit=gpu-ir|llvm|ptx|cubin] [--arch=sm_80|sm_90|sm_90a] "
        "[--time]\n"
        "                      [--divisible=P,...] [--one=P,...] [--zero=P,...] [--no-align] "
        "[--llvm-passes=PIPELINE]\n"
        "                      [--signature=TYPE,...]\n"
        "                      [--libdevice=FILE|none] [--maxnreg=N] [--enable-fp-fusion=0|1]\n"
        "                      [--enable-reflect-ftz=0|1] [--debug=0|1] [--strict-ptxas]\n"
        "       nereid compile FILE.nr --emit=c [--arch=%s] -o DIR/NAME [-k KERNEL] [-D ...]\n"
        "                      [--num-warps=N] [--num-stages=N] [--one=P,...] [--divisible=P,...] "
        "[--no-ptxas]\n"
        "       nereid opt FILE.nrir [--passes=none|PASS,...] [--print-after-all] [--verify-only]\n"
        "                  [--arch=sm_80|sm_90|sm_90a] [--num-warps=N] [--num-stages=N]\n"
        "                  [--emit=llvm|ptx] [--maxnreg=N] [--enable-fp-fusion=0|1]\n"
        "                  [--enable-reflect-ftz=0|1] [--list-passes]\n"
        "       nereid --help | --version\n"
        "\n"
        "compile: parse, check and lower every kernel of FILE.nr (or only KERNEL) to IR and\n"
        "optimise it. -D gives a constexpr parameter its value (ints, floats, True/False,\n"
        "tuples, dtypes such as tl.float16; anything else is a string). --emit prints a stage: the "
        "syntax tree, the IR as\n"
        "lowered, or the IR after the passes (to OUT, or standard output). Diagnostics go to\n"
        "standard error. --num-warps is the warp count of a program (%s, default %d).\n"
        "GPU: --emit=gpu-ir|llvm|ptx|cubin runs the GPU back end for --arch (default %s):\n"
        "gpu-ir is the IR after the GPU passes (layouts, shared-memory buffers; `nereid opt` "
        "reads\n"
        "it back), cubin needs ptxas from the CUDA toolkit and one kernel; ptxas's performance\n"
        "advisories (wgmmas serialised, ...) are warnings, errors with --strict-ptxas. "
        "--num-stages is the\n"
        "software-pipelining depth of loops feeding tl.dot (%s, default %d). Like the runtime, it\n"
        "specialises:\n"
        "pointer parameters are taken as 16-byte aligned (--no-align: unknown), the integer\n"
        "parameters named by --divisible as nonzero multiples of 16, those named by --one as "
        "equal\n"
        "to 1, those named by --zero (integers or pointers) as 0, which is a multiple of 16 but "
        "no\n"
        "nonzero divisor.\n"
        "--signature lists the -k kernel's parameters as Triton spells them (\"*fp32:16, i32, "
        "1024\":\n"
        "a type, :16 divisible by 16, :1 equal to 1, constexpr or a constexpr's value), for a "
        "file whose\n"
        "parameters carry no types (man nereid).\n"
        "--tma-pointers compiles as the runtime does on sm_90a with a driver that has TMA: "
        "pointer loads\n"
        "feeding dots in pipelined loops become TMA copies through tensor maps (new tdesc "
        "parameters\n"
        "after the kernel's, which the launcher fills).\n"
        "--time prints the time of each stage to standard error. --llvm-passes replaces the LLVM\n"
        "pipeline (e.g. 'default<O3>'). --libdevice names CUDA's libdevice.10.bc, which the math\n"
        "functions (tl.erf, libdevice.pow, ...) call; none uses Nereid's own routines (default: "
        "as\n"
        "the runtime finds it: NEREID_LIBDEVICE, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda).\n"
        "--maxnreg caps the registers of a thread (.maxnreg, %s; default: none). "
        "--enable-fp-fusion=1\n"
        "lets a float multiply and add become one fma (default 0: each rounded, as the "
        "interpreter).\n"
        "--enable-reflect-ftz=1 flushes denormals in tl.exp2 and libdevice's functions "
        "(default 0).\n"
        "--debug=1 is Triton's debug=True: the asserts and a device_assert on every integer\n"
        "+, - and * narrower than 64 bits whose result overflows; --debug=0 is Triton's default:\n"
        "tl.device_assert and assert statements left out (default: the asserts, no overflow "
        "checks).\n"
        "opt: reads textual IR (front-end or GPU-stage), verifies it, runs the passes named\n"
        "(none: no pass) and prints the result, or with --emit=llvm|ptx the LLVM IR or PTX of its\n"
        "kernels (GPU-stage IR whose GPU passes have run). --list-passes says what each does. The\n"
        "passes: ",
        NR_DEFAULT_AOT_ARCHS, option_info(OPT_NUM_WARPS)->range, option_info(OPT_NUM_WARPS)->def,
        NR_DEFAULT_ARCH, option_info(OPT_NUM_STAGES)->range, option_info(OPT_NUM_STAGES)->def,
        option_info(OPT_MAXNREG)->range);
    StrBuf passes;
    sb_init(&passes);
    pass_list_names(&passes, 88, 0);
    fprintf(f, "%s.\n", sb_cstr(&passes));
    sb_free(&passes);
    fprintf(
        f,
        "Ahead of time: --emit=c writes DIR/NAME.h and DIR/NAME.c, the kernels compiled for each\n"
        "--arch (default %s; cubins when ptxas is installed and not --no-ptxas, else PTX)\n"
        "with one C launcher per kernel that needs only libcuda at run time (man nereid).\n",
        NR_DEFAULT_AOT_ARCHS);
}

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "nereid: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    print_usage(stderr);
    return 2;
}

/* --num-warps=N, --num-stages=N: an integer the option takes (options.h) into *out */
static int option_arg(OptionId id, const char *v, int *out) {
    const OptionInfo *o = option_info(id);
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || !option_valid(id, n)) {
        char msg[160];
        snprintf(msg, sizeof msg, "--%s must be %s, got '%s'",
                 id == OPT_NUM_WARPS    ? "num-warps"
                 : id == OPT_NUM_STAGES ? "num-stages"
                                        : "maxnreg",
                 o->range, v);
        return usage_error("%s", msg);
    }
    *out = (int)n;
    return 0;
}

/* --enable-fp-fusion=0|1, --enable-reflect-ftz=0|1 */
static int switch_arg(const char *name, const char *v, bool *out) {
    if (strcmp(v, "0") && strcmp(v, "1")) return usage_error("%s must be 0 or 1", name);
    *out = v[0] == '1';
    return 0;
}

typedef enum { GPU_NONE, GPU_IR, GPU_LLVM, GPU_PTX, GPU_CUBIN } GpuEmit;

typedef struct CliArgs {
    const char *file, *out, *kernel;
    SemaDefine defines[256];
    int ndefines;
    NrCompileOptions o;
    GpuEmit gpu;
    const char *arch, *divisible, *one, *zero, *llvm_passes, *libdevice;
    bool libdevice_set;  /* --libdevice given (libdevice NULL: none) */
    GpuCodeOptions code; /* --maxnreg, --enable-fp-fusion, --enable-reflect-ftz */
    bool time, no_align, strict_ptxas, tma_pointers;
    bool aot, no_ptxas;   /* --emit=c */
    const char *archs[8]; /* --arch=A,B,... (--emit=c) */
    int narchs;
    char arch_list[256], arch_text[256]; /* split in place; as given */
    char command[4096];                  /* the command line as given, for --emit=c's comments */
    const char *signature;               /* --signature (apply_signature reads it) */
    char sig_text[4096];                 /* its entries, split in place */
    SemaDefine param_types[128];         /* what it makes of them, by parameter */
    char divisible_all[4096], one_all[4096]; /* --divisible / --one and its :16 / :1 marks */
    Arena *sig_arena;                        /* the parameters' names (its parse of the file) */
} CliArgs;

static int parse_emit(CliArgs *a, const char *v) {
    a->o.emit = true;
    if (!strcmp(v, "ast")) a->o.stop_after = NR_STAGE_AST;
    else if (!strcmp(v, "ir")) a->o.stop_after = NR_STAGE_IR;
    else if (!strcmp(v, "ir-opt")) a->o.stop_after = NR_STAGE_IR_OPT;
    else if (!strcmp(v, "c")) {
        a->aot = true;
        a->o.stop_after = NR_STAGE_IR_OPT;
        a->o.emit = false;
    } else if (!strcmp(v, "gpu-ir") || !strcmp(v, "llvm") || !strcmp(v, "ptx") ||
               !strcmp(v, "cubin")) {
        a->gpu = v[0] == 'g' ? GPU_IR : v[0] == 'l' ? GPU_LLVM : v[0] == 'p' ? GPU_PTX : GPU_CUBIN;
        a->o.stop_after = NR_STAGE_IR_OPT;
        a->o.emit = false;
    } else
        return usage_error(
            "unknown --emit value '%s' (ast, ir, ir-opt, gpu-ir, llvm, ptx, cubin, c)", v);
    return 0;
}

static int add_define(CliArgs *a, char *def) {
    char *eq = strchr(def, '=');
    if (!eq || eq == def) return usage_error("-D takes NAME=VALUE, got '%s'", def);
    if (a->ndefines == 256) return usage_error("too many -D options%s", "");
    *eq = 0;
    a->defines[a->ndefines++] = (SemaDefine){def, eq + 1};
    return 0;
}

/* --arch=sm_80[,sm_90a...]: each one known, at most 8 */
static int parse_arch_list(CliArgs *a, const char *v) {
    snprintf(a->arch_list, sizeof a->arch_list, "%s", v);
    snprintf(a->arch_text, sizeof a->arch_text, "%s", v);
    a->narchs = 0;
    for (char *p = a->arch_list, *e; p; p = e) {
        e = strchr(p, ',');
        if (e) *e++ = 0;
        if (strcmp(p, "sm_80") && strcmp(p, "sm_90") && strcmp(p, "sm_90a"))
            return usage_error("unknown --arch '%s' (sm_80, sm_90, sm_90a)", p);
        for (int i = 0; i < a->narchs; i++)
            if (!strcmp(a->archs[i], p)) return usage_error("--arch names '%s' twice", p);
        if (a->narchs == 8) return usage_error("too many architectures in --arch%s", "");
        a->archs[a->narchs++] = p;
    }
    return 0;
}

static int parse_args(int argc, char **argv, CliArgs *a) {
    size_t used = (size_t)snprintf(a->command, sizeof a->command, "nereid");
    for (int i = 1; i < argc && used < sizeof a->command; i++)
        used += (size_t)snprintf(a->command + used, sizeof a->command - used, " %s", argv[i]);
    a->o.stop_after = NR_STAGE_IR_OPT;
    for (int i = 2; i < argc; i++) {
        char *s = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = 0;
        if (!strcmp(s, "-k") || !strcmp(s, "-o") || !strcmp(s, "-D")) {
            if (!next) return usage_error("%s needs a value", s);
            if (s[1] == 'k') a->kernel = next;
            else if (s[1] == 'o') a->out = next;
            else rc = add_define(a, argv[i + 1]);
            i++;
        } else if (!strncmp(s, "-D", 2)) rc = add_define(a, s + 2);
        else if (!strncmp(s, "--emit=", 7)) rc = parse_emit(a, s + 7);
        else if (!strcmp(s, "--print-after-all")) a->o.print_after_all = true;
        else if (!strcmp(s, "--time")) a->time = true;
        else if (!strcmp(s, "--no-align")) a->no_align = true;
        else if (!strcmp(s, "--strict-ptxas")) a->strict_ptxas = true;
        else if (!strcmp(s, "--tma-pointers")) a->tma_pointers = true;
        else if (!strcmp(s, "--no-ptxas")) a->no_ptxas = true;
        else if (!strncmp(s, "--divisible=", 12)) a->divisible = s + 12;
        else if (!strncmp(s, "--signature=", 12)) a->signature = s + 12;
        else if (!strncmp(s, "--one=", 6)) a->one = s + 6;
        else if (!strncmp(s, "--zero=", 7)) a->zero = s + 7;
        else if (!strncmp(s, "--llvm-passes=", 14)) a->llvm_passes = s + 14;
        else if (!strncmp(s, "--libdevice=", 12)) {
            a->libdevice_set = true;
            a->libdevice = strcmp(s + 12, "none") ? s + 12 : NULL;
            if (a->libdevice && access(a->libdevice, R_OK))
                return usage_error("--libdevice: cannot read '%s'", a->libdevice);
        } else if (!strncmp(s, "--arch=", 7) || !strcmp(s, "--arch")) {
            const char *v = s[6] == '=' ? s + 7 : next;
            if (!v) return usage_error("%s needs a value", s);
            rc = parse_arch_list(a, v);
            if (rc) return rc;
            a->arch = a->archs[0];
            if (s[6] != '=') i++;
        } else if (!strncmp(s, "--num-warps=", 12)) {
            rc = option_arg(OPT_NUM_WARPS, s + 12, &a->o.num_warps);
        } else if (!strncmp(s, "--num-stages=", 13)) {
            rc = option_arg(OPT_NUM_STAGES, s + 13, &a->o.num_stages);
        } else if (!strncmp(s, "--maxnreg=", 10)) {
            rc = option_arg(OPT_MAXNREG, s + 10, &a->code.maxnreg);
        } else if (!strncmp(s, "--enable-fp-fusion=", 19)) {
            rc = switch_arg("--enable-fp-fusion", s + 19, &a->code.fp_fusion);
        } else if (!strncmp(s, "--enable-reflect-ftz=", 21)) {
            rc = switch_arg("--enable-reflect-ftz", s + 21, &a->code.reflect_ftz);
        } else if (!strncmp(s, "--debug=", 8)) {
            bool on = false;
            rc = switch_arg("--debug", s + 8, &on);
            a->o.debug = on ? 1 : -1;
        } else if (s[0] == '-' && s[1]) return usage_error("unknown option '%s'", s);
        else if (a->file) return usage_error("more than one input file ('%s')", s);
        else a->file = s;
        if (rc) return rc;
    }
    if (!a->file) return usage_error("no input file%s", "");
    if (a->out && !a->o.emit && !a->gpu && !a->aot)
        a->o.emit = true; /* -o alone writes the optimised IR */
    if (a->gpu == GPU_CUBIN && !a->out) return usage_error("--emit=cubin needs -o FILE%s", "");
    if (a->aot && (!a->out || !strcmp(a->out, "-")))
        return usage_error("--emit=c needs -o DIR/NAME (writes NAME.h and NAME.c)%s", "");
    if (a->aot && a->zero)
        return usage_error("--zero names the arguments of one launch; --emit=c's launchers "
                           "choose their variants at run time%s",
                           "");
    if (a->aot && !a->narchs) parse_arch_list(a, NR_DEFAULT_AOT_ARCHS);
    if (!a->aot && a->narchs > 1)
        return usage_error("several architectures ('%s') need --emit=c", a->arch_text);
    if (!a->arch) a->arch = NR_DEFAULT_ARCH;
    a->o.defines = a->defines;
    a->o.ndefines = a->ndefines;
    a->o.only_kernel = a->kernel;
    return 0;
}

static int write_output(const char *path, StrBuf *text) {
    if (!path || !strcmp(path, "-")) {
        fwrite(sb_cstr(text), 1, text->len, stdout);
        return 0;
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(sb_cstr(text), 1, text->len, f) != text->len || fclose(f)) {
        if (f) fclose(f);
        fprintf(stderr, "nereid: cannot write '%s'\n", path);
        return 1;
    }
    return 0;
}

static bool in_list(const char *list, const char *name) {
    if (!list || !name) return false;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return true;
        p += len + (e ? 1 : 0);
    }
    return false;
}

static void fill_spec(const CliArgs *a, IrFunc *f, uint8_t *facts) {
    IrRegion *body = &f->regions[f->body];
    for (uint32_t i = 0; i < body->nargs; i++) {
        IrType t = ir_type(f, body->args[i]);
        const char *name = f->param_names[i];
        facts[i] = SPEC_NONE;
        if ((t.dt == DT_PTR || t.dt == DT_TDESC) && !a->no_align)
            facts[i] = SPEC_DIV16; /* descriptors: TMA-ready */
        if (dt_is_int(t.dt) && in_list(a->divisible, name)) facts[i] = SPEC_DIV16;
        if (dt_is_int(t.dt) && in_list(a->one, name)) facts[i] = SPEC_ONE;
        if ((dt_is_int(t.dt) || t.dt == DT_PTR) && in_list(a->zero, name)) facts[i] = SPEC_ZERO;
    }
}

/* ptxas (driver/ptxas.h finds it) turns PTX into a cubin written to `out`. Its advisories
 * (-v's "Potential Performance Loss" lines: wgmmas serialised, waits it had to insert)
 * are warnings, errors with --strict-ptxas; its other -v output is dropped. */
static int run_ptxas(const char *arch, StrBuf *ptx, const char *out, bool strict) {
    char pbuf[4096];
    const char *ptxas = ptxas_find(pbuf, sizeof pbuf);
    if (!ptxas) {
        fprintf(stderr, "nereid: no ptxas (install the CUDA toolkit, or set NEREID_PTXAS)\n");
        return 1;
    }
    static const char *const verbose[] = {"-v", NULL};
    unsigned char *cubin = NULL;
    size_t n = 0;
    StrBuf log;
    sb_init(&log);
    int rc = ptxas_run(ptxas, arch, verbose, ptx->data, ptx->len, &cubin, &n, &log);
    int advisories = 0;
    StrBuf rest;
    sb_init(&rest);
    for (const char *line = sb_cstr(&log); *line;) {
        const char *e = strchr(line, '\n');
        int len = e ? (int)(e - line + 1) : (int)strlen(line);
        const char *adv = strstr(line, "Potential Performance Loss");
        if (adv && adv < line + len) {
            fprintf(stderr, "nereid: %s: ptxas: %.*s", strict ? "error" : "warning", len, line);
            advisories++;
        } else if (strncmp(line, "ptxas info", 10) && strncmp(line, "ptxas         .", 16)) {
            sb_putn(&rest, line, (size_t)len);
        }
        line += len;
    }
    if (!rc) {
        FILE *f = fopen(out, "wb");
        if (!f || fwrite(cubin, 1, n, f) != n) {
            fprintf(stderr, "nereid: cannot write %s\n", out);
            rc = 1;
        }
        if (f && fclose(f)) rc = 1;
    } else {
        fputs(sb_cstr(&rest), stderr);
        fprintf(stderr, "nereid: ptxas failed\n");
    }
    free(cubin);
    sb_free(&rest);
    sb_free(&log);
    return rc || (strict && advisories) ? 1 : 0;
}

/* Several kernels' PTX as one module (each kernel compiles to a module of its own). */
static int merge_ptx_modules(StrBuf *parts, int n, StrBuf *dump) {
    if (n == 1) {
        sb_putn(dump, parts[0].data, parts[0].len);
        return 0;
    }
    PtxPart *pp = calloc((size_t)n, sizeof *pp);
    if (!pp) return 1;
    for (int i = 0; i < n; i++) pp[i] = (PtxPart){parts[i].data, parts[i].len, NULL};
    StrBuf err;
    sb_init(&err);
    bool ok = ptx_merge(pp, n, dump, &err);
    if (!ok)
        fprintf(stderr, "nereid: internal error: cannot merge the kernels' PTX: %s\n",
                sb_cstr(&err));
    sb_free(&err);
    free(pp);
    return ok ? 0 : 1;
}

static int gpu_stage(CliArgs *a, NrProgram *prog, StrBuf *dump, Diag *diag, double *gpu_ms) {
    IrModule *m = prog->ir;
    int nk = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) nk += m->funcs[i]->is_kernel;
    if (a->gpu == GPU_CUBIN && nk != 1) {
        fprintf(stderr, "nereid: --emit=cubin takes one kernel: pick it with -k\n");
        return 1;
    }
    StrBuf *ptx = calloc((size_t)(nk ? nk : 1), sizeof *ptx);
    IrModule **irs =
        calloc((size_t)(nk ? nk : 1), sizeof *irs); /* --emit=gpu-ir: printed as one module */
    if (!ptx || !irs) {
        free(ptx), free(irs);
        return 1;
    }
    int nptx = 0, nirs = 0, rc = 0;
    for (uint32_t i = 0; i < m->nfuncs && !rc; i++) {
        IrFunc *f = m->funcs[i];
        if (!f->is_kernel) continue;
        uint8_t facts[256] = {0};
        if (f->regions[f->body].nargs > 256) {
            rc = 1;
            break;
        }
        fill_spec(a, f, facts);
        GpuSpec spec = {(int)f->regions[f->body].nargs, facts, GPU_SPECULATE_VERSION,
                        a->tma_pointers};
        char ldbuf[4096];
        GpuTarget t = {a->arch,
                       prog->num_warps,
                       prog->num_stages,
                       a->llvm_passes,
                       a->libdevice_set ? a->libdevice : gpu_libdevice_find(ldbuf, sizeof ldbuf),
                       NULL,
                       0,
                       a->code};
        GpuResult r;
        StrBuf llvm;
        sb_init(&llvm);
        GpuDump what = a->gpu == GPU_IR       ? GPU_DUMP_FINAL
                       : a->o.print_after_all ? GPU_DUMP_ALL
                                              : GPU_DUMP_NONE;
        bool ok = gpu_compile_kernel(f, &spec, &t, what, dump, a->gpu == GPU_LLVM ? &llvm : NULL,
                                     &r, diag);
        if (!ok) {
            sb_free(&llvm);
            rc = 1;
            break;
        }
        for (int k = 0; k < 4; k++) gpu_ms[k] += r.times_ms[k];
        if (a->gpu == GPU_IR) irs[nirs++] = r.ir;
        else if (a->gpu == GPU_LLVM) sb_putn(dump, llvm.data ? llvm.data : "", llvm.len);
        else if (a->gpu == GPU_PTX) ptx[nptx++] = r.ptx, sb_init(&r.ptx); /* merged below */
        else if (run_ptxas(a->arch, &r.ptx, a->out, a->strict_ptxas)) rc = 1;
        sb_free(&llvm);
        sb_free(&r.ptx);
    }
    if (!rc && a->gpu == GPU_PTX && nptx) rc = merge_ptx_modules(ptx, nptx, dump);
    if (!rc && a->gpu == GPU_IR) ir_print_modules(dump, (const IrModule *const *)irs, nirs);
    for (int i = 0; i < nptx; i++) sb_free(&ptx[i]);
    for (int i = 0; i < nirs; i++) arena_free(irs[i]->arena);
    free(ptx);
    free(irs);
    return rc;
}

/* --emit=c: the ahead-of-time C files (aot_c.h). */
static int aot_stage(CliArgs *a, NrProgram *prog, Diag *diag) {
    AotOptions o = {a->archs,     a->narchs,       a->out,           a->file,
                    a->command,   prog->num_warps, prog->num_stages, a->one,
                    a->divisible, a->no_ptxas,     a->code};
    return aot_emit_c(prog->ir, &o, diag);
}

static void print_times(const NrProgram *p, const double *gpu, double total) {
    fprintf(stderr, "nereid: time (ms): parse+stdlib %.2f, sema %.2f, passes %.2f", p->times_ms[0],
            p->times_ms[1], p->times_ms[2]);
    if (gpu[0] + gpu[1] + gpu[2] + gpu[3] > 0)
        fprintf(stderr, ", gpu passes %.2f, llvm ir %.2f, llvm opt %.2f, ptx %.2f", gpu[0], gpu[1],
                gpu[2], gpu[3]);
    fprintf(stderr, "; total %.2f\n", total);
}

/* The next entry of a --signature list from *p (commas inside <...> and [...] belong to the
 * entry: "tensordesc<fp16[64, 64]>"), its spaces trimmed; NULL at the end. */
static char *next_entry(char **p) {
    char *s = *p;
    if (!s) return NULL;
    int depth = 0;
    char *e = s;
    for (; *e && (depth || *e != ','); e++)
        depth += (*e == '<' || *e == '[') - (*e == '>' || *e == ']');
    *p = *e ? e + 1 : NULL;
    *e = 0;
    while (*s == ' ') s++;
    for (char *t = s + strlen(s); t > s && t[-1] == ' ';) *--t = 0;
    return s;
}

/* A constexpr's value in a --signature entry, as triton.tools.compile tells them from
 * types: a number, True, False, None, a quoted string, a tuple, or a tl. dtype. */
static bool is_value(const char *e) {
    char *end;
    (void)strtod(e, &end);
    if (end != e && !*end) return true;
    return !strcmp(e, "True") || !strcmp(e, "False") || !strcmp(e, "None") || *e == '"' ||
           *e == '\'' || *e == '(' || !strncmp(e, "tl.", 3);
}

static void append_name(char *list, size_t cap, const char *name) {
    size_t n = strlen(list);
    snprintf(list + n, cap - n, "%s%s", n ? "," : "", name);
}

/* --signature: Triton's positional spelling of a kernel's parameters (as triton.tools.compile
 * takes it), so that a Triton file compiles unchanged: one entry per parameter of the -k
 * kernel, in order: a signature type ("*fp32", "i32", "fp16", "tensordesc<fp16[64, 64]>"),
 * "constexpr", or a constexpr's value ("1024", "True", "tl.float16": is_value); anything
 * else is taken as a type, which sema checks at the parameter; ":16" after an integer
 * type marks the parameter divisible by 16 (as --divisible; after a pointer type it is the
 * default, 16-byte aligned), ":1" an integer equal to 1 (as --one). Each entry becomes the
 * parameter's annotation, a value also a -D (unless one names the parameter). The
 * parameters' names come from a parse of the file of its own; a file that does not parse is
 * left to the compile to report. */
/* An error in --signature: the message, exit status 2 (a usage error). */
static int sig_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nereid: --signature: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

static int apply_signature(CliArgs *a, const Source *src) {
    if (!a->signature) return 0;
    if (!a->kernel) return sig_error("needs -k KERNEL (it lists one kernel's parameters)");
    a->sig_arena = arena_new();
    Diag quiet;
    diag_init(&quiet);
    const Module *m = lang_parse_module(a->sig_arena, &quiet, src);
    diag_free(&quiet);
    if (!m) return 0;
    const Func *fn = NULL;
    for (int i = 0; i < m->nfuncs; i++)
        if (!strcmp(m->funcs[i]->name, a->kernel)) fn = m->funcs[i];
    if (!fn) return sig_error("no function '%s' in the file", a->kernel);
    snprintf(a->sig_text, sizeof a->sig_text, "%s", a->signature);
    snprintf(a->divisible_all, sizeof a->divisible_all, "%s", a->divisible ? a->divisible : "");
    snprintf(a->one_all, sizeof a->one_all, "%s", a->one ? a->one : "");
    char *p = a->sig_text, *e;
    int n = 0, cap = (int)(sizeof a->param_types / sizeof *a->param_types);
    while ((e = next_entry(&p))) {
        if (n == fn->nparams || n == cap) {
            n = -1;
            break;
        }
        const char *name = fn->params[n].name;
        if (!*e) return sig_error("entry %d (parameter '%s') is empty", n + 1, name);
        char *colon = strrchr(e, ':');
        const char *mark = NULL;
        if (colon && !strpbrk(colon, ">]")) *colon = 0, mark = colon + 1;
        IrType t = {0};
        bool type = sema_signature_type(e, &t), desc = !strncmp(e, "tensordesc<", 11);
        bool cx = !strcmp(e, "constexpr") || !strcmp(e, "tl.constexpr");
        if (mark && strcmp(mark, "16") && strcmp(mark, "1"))
            return sig_error("'%s:%s': a mark is :16 or :1", e, mark);
        if (mark && (!type || (t.dt == DT_PTR ? !strcmp(mark, "1") : !dt_is_int(t.dt))))
            return sig_error("'%s:%s' (parameter '%s'): :16 marks an integer or a "
                             "pointer, :1 an integer",
                             e, mark, name);
        if (mark && t.dt != DT_PTR)
            append_name(!strcmp(mark, "16") ? a->divisible_all : a->one_all,
                        sizeof a->divisible_all, name);
        bool value = !type && !desc && !cx && is_value(e); /* else a type sema checks */
        a->param_types[n] = (SemaDefine){name, value ? "constexpr" : e};
        bool given = false;
        for (int k = 0; k < a->ndefines; k++) given |= !strcmp(a->defines[k].name, name);
        if (value && !given) {
            if (a->ndefines == 256) return sig_error("too many -D options");
            a->defines[a->ndefines++] = (SemaDefine){name, e};
        }
        n++;
    }
    if (n != fn->nparams)
        return sig_error("'%s' has %d parameters: give one entry for each", a->kernel, fn->nparams);
    a->o.param_types = a->param_types, a->o.nparam_types = n;
    a->o.defines = a->defines, a->o.ndefines = a->ndefines;
    a->divisible = a->divisible_all, a->one = a->one_all;
    return 0;
}

static int cmd_compile(int argc, char **argv) {
    CliArgs a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    size_t len;
    char *text = file_read(a.file, &len);
    if (!text) {
        fprintf(stderr, "nereid: cannot read '%s': %s\n", a.file, strerror(errno));
        return 1;
    }
    Source src = {a.file, text, len};
    Arena *py = NULL; /* a .py file: its kernels (lang_py_kernels), the rest blanked */
    if (lang_is_python_path(a.file)) src = lang_py_kernels(py = arena_new(), &src);
    if ((rc = apply_signature(&a, &src))) {
        arena_free(py);
        free(text);
        arena_free(a.sig_arena);
        return rc;
    }
    Diag diag;
    diag_init(&diag);
    StrBuf dump;
    sb_init(&dump);
    NrProgram prog;
    double t0 = clock_now_ms(), gpu_ms[4] = {0, 0, 0, 0};
    bool ok = driver_compile(&src, &a.o, &diag, &dump, &prog);
    rc = ok ? 0 : 1;
    if (ok && a.gpu) rc = gpu_stage(&a, &prog, &dump, &diag, gpu_ms);
    if (ok && a.aot) rc = aot_stage(&a, &prog, &diag);
    fputs(sb_cstr(&diag.out), stderr);
    if (ok) {
        if (a.time) print_times(&prog, gpu_ms, clock_now_ms() - t0);
        if (!rc && !a.aot && a.gpu != GPU_CUBIN && (a.o.emit || a.o.print_after_all || a.gpu))
            rc = write_output(a.out, &dump);
        if (!rc && a.gpu == GPU_CUBIN && a.o.print_after_all)
            rc = write_output(NULL, &dump); /* -o holds the cubin */
        /* a failed GPU compile still shows the dumps that led to it */
        if (rc && a.gpu && a.o.print_after_all) write_output(NULL, &dump);
        driver_program_free(&prog);
    }
    sb_free(&dump);
    diag_free(&diag);
    arena_free(py);
    arena_free(a.sig_arena);
    free(text);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) return usage_error("no command%s", "");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        print_usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        unsigned major, minor, patch;
        llvm_gen_version(&major, &minor, &patch);
        printf("nereid %s (LLVM %u.%u.%u, build %s)\n", NEREID_VERSION, major, minor, patch,
               driver_build_id);
        return 0;
    }
    if (!strcmp(cmd, "compile")) return cmd_compile(argc, argv);
    if (!strcmp(cmd, "opt")) return opt_tool_main(argc - 1, argv + 1);
    return usage_error("unknown command '%s' (compile, opt)", cmd);
}
