/* driver.c - the pipeline: parse, sema, verify, passes. One list of calls, with dumps
 * after the stages the caller asks for. A program whose tuned kernels are deferred keeps
 * its AST: each config of a tuned kernel is lowered from it (driver_compile_variant), never
 * parsed again. */
#include "driver.h"

#include <string.h>
#include <time.h>

#include "compiler/passes/passes.h"
#include "compiler/support/options.h"

const Module *driver_parse_stdlib(Arena *arena) {
    Source *src = arena_alloc(arena, sizeof *src);
    src->name = "<stdlib>";
    src->text = driver_stdlib_source;
    src->len = driver_stdlib_source_len;
    Diag diag;
    diag_init(&diag);
    Module *m = lang_parse_module(arena, &diag, src);
    if (!m) NR_DIE("the standard library does not parse:\n%s", sb_cstr(&diag.out));
    diag_free(&diag);
    return m;
}

/* o->param_types: the annotations of only_kernel's parameters named there replace the
 * file's (a parameter without one takes its own position for the annotation's) */
static void retype_params(Module *ast, const NrCompileOptions *o) {
    for (int i = 0; o->nparam_types && o->only_kernel && i < ast->nfuncs; i++) {
        Func *fn = ast->funcs[i];
        if (strcmp(fn->name, o->only_kernel)) continue;
        for (int j = 0; j < fn->nparams; j++)
            for (int k = 0; k < o->nparam_types; k++)
                if (!strcmp(fn->params[j].name, o->param_types[k].name)) {
                    if (!fn->params[j].annotation) fn->params[j].ann_loc = fn->params[j].loc;
                    fn->params[j].annotation = o->param_types[k].value;
                }
    }
}

static bool verify(IrModule *m, Diag *diag, const char *after) {
    StrBuf err;
    sb_init(&err);
    bool ok = ir_verify_module(m, &err);
    if (!ok)
        diag_error(diag, (Loc){0}, "internal error: invalid IR after %s:\n%s", after,
                   sb_cstr(&err));
    sb_free(&err);
    return ok;
}

/* defer_tuned: the tuned kernels' decorators read (lang/tune.c), their signatures made;
 * their names go to *skip, for sema to leave them out. */
static bool read_tuned(const NrCompileOptions *o, Diag *diag, NrProgram *out, const char ***skip) {
    const Module *ast = out->ast;
    IrModule *sigs =
        ir_module_new(out->arena); /* the signatures: kept out of the IR that is lowered */
    for (int i = 0; i < ast->nfuncs; i++) {
        const Func *fn = ast->funcs[i];
        if (!sema_is_kernel_named(fn, o->only_kernel) || !tune_func_is_tuned(fn) ||
            (o->only_kernel && strcmp(o->only_kernel, fn->name)))
            continue;
        NrTunedKernel t = {fn, NULL, NULL};
        if (!tune_read(out->arena, diag, ast, fn, &t.desc)) return false;
        if (!tune_signature(t.desc, fn, o->defines, o->ndefines, sigs, &t.sig, diag)) return false;
        int cap = out->ntuned;
        VEC_PUSH(out->arena, out->tuned, out->ntuned, cap, t);
    }
    *skip = arena_alloc(out->arena, sizeof(char *) * (size_t)(out->ntuned + 1));
    for (int i = 0; i < out->ntuned; i++) (*skip)[i] = out->tuned[i].fn->name;
    return true;
}

/* sema, the verifier and the passes on a parsed program: into out->ir */
static bool lower(const NrCompileOptions *o, const SemaOptions *so, Diag *diag, StrBuf *dump,
                  NrProgram *out) {
    double t0 = clock_now_ms();
    if (!sema_lower(out->arena, diag, out->ast, out->std, so, out->ir)) return false;
    out->times_ms[1] = clock_now_ms() - t0;
    if (!verify(out->ir, diag, "sema")) return false;
    if (o->stop_after == NR_STAGE_IR) {
        if (o->emit && dump) ir_print_module(dump, out->ir);
        return true;
    }
    NrPassOptions po = {.print_after_all = o->print_after_all};
    t0 = clock_now_ms();
    if (!pass_run_pipeline(out->ir, &po, diag, o->print_after_all ? dump : NULL)) return false;
    out->times_ms[2] = clock_now_ms() - t0;
    if (o->emit && dump) ir_print_module(dump, out->ir);
    return true;
}

bool driver_compile(const Source *src, const NrCompileOptions *o, Diag *diag, StrBuf *dump,
                    NrProgram *out) {
    memset(out, 0, sizeof *out);
    Arena *arena = arena_new();
    out->arena = arena;
    out->num_warps = option_or_default(OPT_NUM_WARPS, o->num_warps);
    out->num_stages = option_or_default(OPT_NUM_STAGES, o->num_stages);

    double t0 = clock_now_ms();
    Module *ast = lang_parse_module(arena, diag, src);
    out->times_ms[0] = clock_now_ms() - t0;
    if (!ast) goto fail;
    retype_params(ast, o);
    out->ast = ast;
    if (o->stop_after == NR_STAGE_AST) {
        if (o->emit && dump) ast_print(dump, ast);
        return true;
    }

    out->std = o->stdlib ? o->stdlib : driver_parse_stdlib(arena);
    out->ir = ir_module_new(arena);
    const char **skip = NULL;
    if (o->defer_tuned && !read_tuned(o, diag, out, &skip)) goto fail;
    out->constexpr_call = o->constexpr_call, out->constexpr_user = o->constexpr_user;
    out->debug = o->debug;
    SemaOptions so = {o->defines,     o->ndefines,       o->only_kernel,    skip,    out->ntuned,
                      out->num_warps, o->constexpr_call, o->constexpr_user, o->debug};
    if (!lower(o, &so, diag, dump, out)) goto fail;
    return true;
fail:
    driver_program_free(out);
    return false;
}

bool driver_compile_variant(const NrProgram *base, const char *kernel, const SemaDefine *defines,
                            int ndefines, int num_warps, int num_stages, Diag *diag,
                            NrProgram *out) {
    memset(out, 0, sizeof *out);
    out->arena = arena_new();
    out->ast = base->ast;
    out->std = base->std;
    out->ir = ir_module_new(out->arena);
    out->num_warps = option_or_default(OPT_NUM_WARPS, num_warps);
    out->num_stages = option_or_default(OPT_NUM_STAGES, num_stages);
    NrCompileOptions o = {.defines = defines,
                          .ndefines = ndefines,
                          .only_kernel = kernel,
                          .stop_after = NR_STAGE_IR_OPT};
    out->constexpr_call = base->constexpr_call, out->constexpr_user = base->constexpr_user;
    out->debug = base->debug;
    SemaOptions so = {defines,
                      ndefines,
                      kernel,
                      NULL,
                      0,
                      out->num_warps,
                      base->constexpr_call,
                      base->constexpr_user,
                      base->debug};
    if (lower(&o, &so, diag, NULL, out)) return true;
    driver_program_free(out);
    return false;
}

void driver_program_free(NrProgram *p) {
    arena_free(p->arena);
    memset(p, 0, sizeof *p);
}
