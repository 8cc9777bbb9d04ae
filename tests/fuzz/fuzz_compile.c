/* fuzz_compile.c - libFuzzer harness for the whole compiler: the input bytes are a .nr
 * source file. It is compiled like `nereid compile FILE.nr --emit=ptx --arch=sm_90a`:
 * parse (with the standard library), sema and lowering, verification, the optimisation
 * passes, then, when that succeeds, every kernel through the GPU back end (the GPU passes,
 * LLVM IR, the LLVM pipeline and PTX emission), and what the CUDA runtime adds at a
 * launch: the speculation guard and, where the host checks it, the guard run by the
 * interpreter over four programs and the kernel compiled with its roots assumed.
 *
 * Options. Flags on the input's "RUN:" lines are honoured as the CLI would take them:
 * -D NAME=VALUE (or -DNAME=VALUE), -k KERNEL, --num-warps=N, --arch=sm_80|sm_90|sm_90a,
 * --divisible=P,..., --one=P,..., --no-align (see fuzz_common.h). On top of those, a few
 * common meta-parameters get a default value when some kernel has a parameter of that
 * name and no RUN line sets it (BLOCK_SIZE=128, BLOCK=16, ...; see default_defines), so
 * the examples compile as they are.
 *
 * Environment:
 *   NEREID_FUZZ_NO_GPU=1      stop after the front end's passes (much faster: no LLVM)
 *   NEREID_FUZZ_VERBOSE=1     print the equivalent `nereid compile` command and the
 *                             diagnostics of every input (for reproducing a finding)
 *   NEREID_FUZZ_ALLOW_INTERNAL=1  do not treat "error: internal error" as a crash
 *   NEREID_FUZZ_ALLOW_UNLOCATED=1 do not treat an error without a location as a crash
 *
 * Besides sanitizer reports, crashes and hangs, it aborts when a compile fails without
 * any error, when an internal error is reported and when an error has no source location
 * (fuzz_common.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "driver/gpu_compile.h"
#include "fuzz_common.h"
#include "runtime/interp.h"

enum { MAX_DEFINES = 64 };

typedef struct CompileOpts {
    Arena *arena;
    SemaDefine defines[MAX_DEFINES + 32];
    int ndefines;
    const char *kernel, *arch, *divisible, *one;
    int num_warps;
    bool no_align;
    bool python;       /* --python: compile the input as a .py file (lang_py_kernels) */
    bool take_next_as; /* set by -D/-k: the next word is its value */
} CompileOpts;

static bool no_gpu, verbose;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    no_gpu = fuzz_env_flag("NEREID_FUZZ_NO_GPU");
    verbose = fuzz_env_flag("NEREID_FUZZ_VERBOSE");
    return 0;
}

/* -D NAME=VALUE as the CLI's add_define takes it: a missing '=' or an empty name is a
 * usage error there, so such a define is dropped here. */
static void add_define(CompileOpts *o, FuzzWord w, size_t skip) {
    const char *eq = memchr(w.start + skip, '=', w.len - skip);
    if (!eq || eq == w.start + skip || o->ndefines == MAX_DEFINES) return;
    SemaDefine d = {arena_strndup(o->arena, w.start + skip, (size_t)(eq - w.start - skip)),
                    arena_strndup(o->arena, eq + 1, (size_t)(w.start + w.len - eq - 1))};
    o->defines[o->ndefines++] = d;
}

static void take_word(FuzzWord w, FuzzWord next, void *ctx) {
    CompileOpts *o = ctx;
    if (o->take_next_as) { /* this word was consumed as the previous flag's value */
        o->take_next_as = false;
        return;
    }
    if (fuzz_word_is(w, "-D") && next.len) {
        add_define(o, next, 0);
        o->take_next_as = true;
    } else if (fuzz_word_is(w, "-k") && next.len) {
        o->kernel = fuzz_word_str(o->arena, next, 0);
        o->take_next_as = true;
    } else if (fuzz_word_prefix(w, "-D") && w.len > 2) {
        add_define(o, w, 2);
    } else if (fuzz_word_prefix(w, "--num-warps=")) {
        int n = atoi(fuzz_word_str(o->arena, w, 12));
        if (n > 0 && n <= 32 && !(n & (n - 1))) o->num_warps = n;
    } else if (fuzz_word_is(w, "--arch=sm_80") || fuzz_word_is(w, "--arch=sm_90") ||
               fuzz_word_is(w, "--arch=sm_90a")) {
        o->arch = fuzz_word_str(o->arena, w, 7);
    } else if (fuzz_word_prefix(w, "--divisible=")) {
        o->divisible = fuzz_word_str(o->arena, w, 12);
    } else if (fuzz_word_prefix(w, "--one=")) {
        o->one = fuzz_word_str(o->arena, w, 6);
    } else if (fuzz_word_is(w, "--no-align")) {
        o->no_align = true;
    } else if (fuzz_word_is(w, "--python")) {
        o->python = true;
    }
}

/* Meta-parameters of the examples and tests, given when a kernel has such a parameter
 * (the CLI rejects a -D that names no kernel parameter, so they cannot all go always). */
static const SemaDefine default_defines[] = {
    {"BLOCK_SIZE", "128"},
    {"BLOCK", "16"},
    {"BLOCK_SIZE_M", "64"},
    {"BLOCK_SIZE_N", "64"},
    {"BLOCK_SIZE_K", "32"},
    {"GROUP_SIZE_M", "8"},
    {"BLOCK_M", "64"},
    {"BLOCK_N", "64"},
    {"BLOCK_K", "32"},
    {"num_stages", "1"},
    {"ACTIVATION", "leaky_relu"},
    {"ACT", "relu"},
};

static bool has_define(const CompileOpts *o, const char *name) {
    for (int i = 0; i < o->ndefines; i++)
        if (!strcmp(o->defines[i].name, name)) return true;
    return false;
}

static bool kernel_has_param(const Module *m, const char *name) {
    for (int i = 0; i < m->nfuncs; i++)
        if (sema_is_kernel(m->funcs[i]))
            for (int j = 0; j < m->funcs[i]->nparams; j++)
                if (!strcmp(m->funcs[i]->params[j].name, name)) return true;
    return false;
}

/* Adds the default defines whose names a kernel's parameter carries: found by parsing
 * the source on its own (only when one of the names occurs in the text at all). */
static void add_default_defines(CompileOpts *o, const Source *src) {
    bool any = false;
    for (size_t i = 0; i < sizeof default_defines / sizeof default_defines[0]; i++)
        if (strstr(src->text, default_defines[i].name)) any = true;
    if (!any) return;
    Arena *a = arena_new();
    Diag d;
    diag_init(&d);
    Module *m = lang_parse_module(a, &d, src);
    for (size_t i = 0; m && i < sizeof default_defines / sizeof default_defines[0]; i++)
        if (!has_define(o, default_defines[i].name) && kernel_has_param(m, default_defines[i].name))
            o->defines[o->ndefines++] = default_defines[i];
    diag_free(&d);
    arena_free(a);
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

static void print_command(const CompileOpts *o) {
    fprintf(stderr, "==fuzz== nereid compile FILE.nr");
    for (int i = 0; i < o->ndefines; i++)
        fprintf(stderr, " -D '%s=%s'", o->defines[i].name, o->defines[i].value);
    if (o->kernel) fprintf(stderr, " -k '%s'", o->kernel);
    if (o->num_warps) fprintf(stderr, " --num-warps=%d", o->num_warps);
    if (o->divisible) fprintf(stderr, " '--divisible=%s'", o->divisible);
    if (o->one) fprintf(stderr, " '--one=%s'", o->one);
    if (o->no_align) fprintf(stderr, " --no-align");
    fprintf(stderr, " %s--arch=%s\n", no_gpu ? "--emit=ir-opt # " : "--emit=ptx ", o->arch);
}

/* What the CUDA runtime does at a variant's first launch (runtime/launch_cuda.c): the
 * speculation guard and the tensor maps for pointer loads (asked for on every target: the
 * pass itself takes sm_90a only); where the host can check the guard, the kernel compiled
 * with the roots assumed, and the guard run by the interpreter over a few programs (all
 * arguments 0); where there are maps, the kernel compiled with them. */
static bool speculation_at_launch(const CompileOpts *o, IrFunc *f, GpuSpec *spec,
                                  const GpuTarget *t, Diag *diag) {
    GpuGuard g;
    spec->tma_pointers = true;
    int kind = gpu_speculation_guard(f, spec, t, &g, diag);
    fuzz_check_diag(diag, kind >= 0, "gpu_speculation_guard", o->python ? "fuzz.py" : "fuzz.nr");
    if (verbose)
        fprintf(stderr, "==fuzz== speculation guard of '%s': %s; %d tensor maps\n", f->name,
                kind == GPU_GUARD_HOST     ? "checked on the host"
                : kind == GPU_GUARD_OPAQUE ? "in the kernel"
                : kind == GPU_GUARD_NONE   ? "none"
                                           : "failed",
                g.tma.nmaps);
    bool maps = g.tma.nmaps > 0;
    if (kind == GPU_GUARD_HOST) {
        uint32_t np = g.f->regions[g.f->body].nargs;
        InterpScalar *args = calloc(np + 1, sizeof *args);
        static const int64_t no_desc[2 + 2 * NR_MAX_DESC_RANK];
        for (uint32_t i = 0; args && i < np; i++)
            if (ir_type(g.f, g.f->regions[g.f->body].args[i]).dt == DT_TDESC)
                args[i].desc = no_desc;
        StrBuf err;
        sb_init(&err);
        InterpOptions io = {NULL, 0, false, NULL, 0};
        unsigned grid[3] = {4, 1, 1};
        if (args) (void)interp_run(g.f, args, grid, &io, &err); /* a negative root fails it: fine */
        sb_free(&err);
        free(args);
        arena_free(g.ir->arena);
        spec->speculate = GPU_SPECULATE_ASSUME;
    }
    bool ok = kind >= 0;
    if (ok && (kind == GPU_GUARD_HOST || maps)) {
        spec->tma_pointers = maps;
        GpuResult r;
        ok = gpu_compile_kernel(f, spec, t, GPU_DUMP_NONE, NULL, NULL, &r, diag);
        fuzz_check_diag(diag, ok, "gpu_compile_kernel (as launched)",
                        o->python ? "fuzz.py" : "fuzz.nr");
        sb_free(&r.ptx);
    }
    spec->speculate = GPU_SPECULATE_VERSION;
    spec->tma_pointers = false;
    return ok;
}

/* Every kernel through the GPU back end, as the CLI's gpu_stage does for --emit=ptx. */
static bool gpu_stage(const CompileOpts *o, NrProgram *prog, Diag *diag) {
    IrModule *m = prog->ir;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        IrFunc *f = m->funcs[i];
        if (!f->is_kernel) continue;
        IrRegion *body = &f->regions[f->body];
        /* sized for any count: the back end must answer too many parameters itself
         * (the CLI's gpu_stage gives up silently above 256) */
        uint8_t *facts = calloc(body->nargs + 1, 1);
        if (!facts) return false;
        for (uint32_t p = 0; p < body->nargs; p++) {
            IrType t = ir_type(f, body->args[p]);
            const char *name = f->param_names[p];
            facts[p] = SPEC_NONE;
            if (t.dt == DT_PTR && !o->no_align) facts[p] = SPEC_DIV16;
            if (dt_is_int(t.dt) && in_list(o->divisible, name)) facts[p] = SPEC_DIV16;
            if (dt_is_int(t.dt) && in_list(o->one, name)) facts[p] = SPEC_ONE;
        }
        GpuSpec spec = {(int)body->nargs, facts, GPU_SPECULATE_VERSION, false};
        GpuTarget t = {o->arch, prog->num_warps, prog->num_stages, NULL, NULL, NULL, 0, {0}};
        GpuResult r;
        bool ok = gpu_compile_kernel(f, &spec, &t, GPU_DUMP_NONE, NULL, NULL, &r, diag);
        fuzz_check_diag(diag, ok, "gpu_compile_kernel", o->python ? "fuzz.py" : "fuzz.nr");
        sb_free(&r.ptx);
        if (ok) ok = speculation_at_launch(o, f, &spec, &t, diag);
        free(facts);
        if (!ok) return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    Source src = {"fuzz.nr", text, size};

    CompileOpts o;
    memset(&o, 0, sizeof o);
    o.arena = arena_new();
    o.arch = "sm_90a";
    fuzz_for_each_run_word(text, size, 256, take_word, &o);
    add_default_defines(&o, &src);
    if (verbose) print_command(&o);

    /* a Python file's kernels: the same length, newlines where they were */
    Source py = lang_py_kernels(o.arena, &src);
    for (size_t i = 0; i < size; i++)
        if ((py.text[i] == '\n') != (text[i] == '\n'))
            NR_DIE("lang_py_kernels moved a newline at byte %zu: %d -> %d", i, text[i], py.text[i]);
    if (py.len != size || py.text[size]) NR_DIE("lang_py_kernels: length %zu of %zu", py.len, size);
    if (o.python) src = (Source){"fuzz.py", py.text, py.len};

    NrCompileOptions co;
    memset(&co, 0, sizeof co);
    co.defines = o.defines;
    co.ndefines = o.ndefines;
    co.only_kernel = o.kernel;
    co.num_warps = o.num_warps;
    co.stop_after = NR_STAGE_IR_OPT;

    Diag diag;
    diag_init(&diag);
    StrBuf dump;
    sb_init(&dump);
    NrProgram prog;
    bool ok = driver_compile(&src, &co, &diag, &dump, &prog);
    fuzz_check_diag(&diag, ok, "driver_compile", src.name);
    if (ok) {
        if (!no_gpu) gpu_stage(&o, &prog, &diag);
        driver_program_free(&prog);
    }
    if (verbose)
        fprintf(stderr, "==fuzz== %s\n%s", ok ? "front end: ok" : "front end: error",
                sb_cstr(&diag.out));
    sb_free(&dump);
    diag_free(&diag);
    arena_free(o.arena);
    free(text);
    return 0;
}
