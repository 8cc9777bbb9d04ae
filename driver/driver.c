/* driver.c - the pipeline: parse, sema, verify, passes. One list of calls, with dumps
 * after the stages the caller asks for. */
#include "driver.h"

#include <string.h>
#include <time.h>

#include "compiler/passes/passes.h"
#include "compiler/support/options.h"

static Module *parse_stdlib(Arena *arena, Diag *diag) {
    Source *src = arena_alloc(arena, sizeof *src);
    src->name = "<stdlib>";
    src->text = nr_stdlib_source;
    src->len = nr_stdlib_source_len;
    Module *m = lang_parse_module(arena, diag, src);
    if (!m) NR_DIE("the standard library does not parse:\n%s", sb_cstr(&diag->out));
    return m;
}

static bool verify(IrModule *m, Diag *diag, const char *after) {
    StrBuf err;
    sb_init(&err);
    bool ok = ir_verify_module(m, &err);
    if (!ok) diag_error(diag, (Loc){0}, "internal error: invalid IR after %s:\n%s", after, sb_cstr(&err));
    sb_free(&err);
    return ok;
}

bool nr_compile_program(const Source *src, const NrCompileOptions *o, Diag *diag, StrBuf *dump, NrProgram *out) {
    memset(out, 0, sizeof *out);
    Arena *arena = arena_new();
    out->arena = arena;
    out->num_warps = option_or_default(OPT_NUM_WARPS, o->num_warps);
    out->num_stages = option_or_default(OPT_NUM_STAGES, o->num_stages);

    double t0 = nr_now_ms();
    Module *ast = lang_parse_module(arena, diag, src);
    out->times_ms[0] = nr_now_ms() - t0;
    if (!ast) goto fail;
    out->ast = ast;
    if (o->stop_after == NR_STAGE_AST) {
        if (o->emit && dump) ast_print(dump, ast);
        return true;
    }

    t0 = nr_now_ms();
    Module *std = parse_stdlib(arena, diag);
    SemaOptions so = {o->defines, o->ndefines, o->only_kernel, o->skip_kernels, o->nskip_kernels};
    IrModule *ir = ir_module_new(arena);
    if (!sema_lower(arena, diag, ast, std, &so, ir)) goto fail;
    out->ir = ir;
    out->times_ms[1] = nr_now_ms() - t0;
    if (!verify(ir, diag, "sema")) goto fail;
    if (o->stop_after == NR_STAGE_IR) {
        if (o->emit && dump) ir_print_module(dump, ir);
        return true;
    }

    NrPassOptions po = {.print_after_all = o->print_after_all};
    t0 = nr_now_ms();
    if (!nr_run_passes(ir, &po, diag, o->print_after_all ? dump : NULL)) goto fail;
    out->times_ms[2] = nr_now_ms() - t0;
    if (o->emit && dump) ir_print_module(dump, ir);
    return true;
fail:
    nr_program_free(out);
    return false;
}

void nr_program_free(NrProgram *p) {
    arena_free(p->arena);
    memset(p, 0, sizeof *p);
}
