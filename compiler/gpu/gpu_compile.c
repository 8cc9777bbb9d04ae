/* gpu_compile.c - the GPU pipeline for one kernel and one specialisation, as one list:
 * clone, specialise (params equal to 1 become constants), canonicalize + cse + dce,
 * alignment analysis seeded with the divisibility facts, layout assignment and
 * coalescing (then dce: values recomputed in other layouts leave their originals
 * unused), shared-memory allocation, barrier placement, verification, LLVM, PTX. */
#include "gpu_compile.h"

#include <string.h>
#include <time.h>

#include "../passes/passes.h"
#include "gpu_passes.h"

static IrFunc *specialised_clone(IrModule *m, const IrFunc *k, const GpuSpec *spec) {
    IrFunc *src = (IrFunc *)k;
    IrFunc *f = ir_func_new(m, k->name, true, k->loc);
    ValId *map = arena_alloc(m->arena, sizeof(ValId) * (src->nvals + 1));
    IrRegion *body = &src->regions[src->body];
    IrBuilder b = {f, f->body, k->loc};
    for (uint32_t i = 0; i < body->nargs; i++) {
        IrType t = ir_type(src, body->args[i]);
        map[body->args[i]] = ir_add_param(f, t, k->param_names ? k->param_names[i] : NULL);
        bool one = spec && (int)i < spec->nparams && spec->facts[i] == SPEC_ONE && dt_is_int(t.dt);
        if (one) map[body->args[i]] = ir_const_int(&b, t, 1);
    }
    for (uint32_t i = 0; i < body->nops; i++) ir_clone_op(f, f->body, src, body->ops[i], map);
    return f;
}

static bool verify(IrModule *m, Diag *d, const char *after) {
    StrBuf err;
    sb_init(&err);
    bool ok = ir_verify_module(m, &err);
    if (!ok) diag_error(d, (Loc){0}, "internal error: invalid IR after %s:\n%s", after, sb_cstr(&err));
    sb_free(&err);
    return ok;
}

static void dump_after(StrBuf *dump, IrModule *m, const char *pass) {
    if (!dump) return;
    sb_printf(dump, "// -----// IR Dump After %s //----- //\n", pass);
    ir_print_module(dump, m);
}

static ParamFact *param_facts(IrFunc *f, const GpuSpec *spec) {
    IrRegion *body = &f->regions[f->body];
    ParamFact *pf = arena_alloc(f->mod->arena, sizeof(ParamFact) * (body->nargs + 1));
    for (uint32_t i = 0; i < body->nargs; i++) {
        pf[i].divisibility = 1;
        if (spec && (int)i < spec->nparams && spec->facts[i] == SPEC_DIV16) pf[i].divisibility = 16;
    }
    return pf;
}

bool gpu_compile_kernel(const IrFunc *kernel, const GpuSpec *spec, const GpuTarget *t, bool print_after_all,
                        StrBuf *dump, StrBuf *llvm_ir, GpuResult *out, Diag *diag) {
    memset(out, 0, sizeof *out);
    sb_init(&out->ptx);
    double t0 = nr_now_ms();
    Arena *arena = arena_new();
    IrModule *m = ir_module_new(arena);
    IrFunc *f = specialised_clone(m, kernel, spec);
    StrBuf *d = print_after_all ? dump : NULL;
    bool ok = verify(m, diag, "specialisation");
    if (ok) {
        pass_canonicalize(m);
        pass_cse(m);
        pass_dce(m);
        dump_after(d, m, "specialise");
        ok = verify(m, diag, "specialise");
    }
    GpuOptions go = {t->num_warps > 0 ? t->num_warps : 4};
    ParamFact *pf = ok ? param_facts(f, spec) : NULL;
    if (ok) {
        AxisInfo *info = axis_info_analyze(f, pf, arena);
        gpu_assign_layouts(f, info, &go);
        pass_dce(m); /* what rematerialisation left unused */
        dump_after(d, m, "assign-layouts");
        gpu_alloc_shared(f);
        dump_after(d, m, "alloc-shared");
        gpu_insert_barriers(f);
        dump_after(d, m, "insert-barriers");
        ok = verify(m, diag, "the GPU passes");
    }
    out->times_ms[0] = nr_now_ms() - t0;
    if (ok) {
        AxisInfo *info = axis_info_analyze(f, pf, arena); /* again: the passes added values */
        GpuTarget tt = *t;
        tt.num_warps = go.num_warps;
        ok = llvm_gen_kernel(f, info, &tt, llvm_ir, &out->ptx, diag, out->times_ms + 1);
        out->shared_bytes = f->shared_bytes;
    }
    arena_free(arena);
    if (!ok) sb_free(&out->ptx);
    return ok;
}

void gpu_spec_key(const GpuSpec *spec, StrBuf *out) {
    for (int i = 0; spec && i < spec->nparams; i++)
        sb_putc(out, spec->facts[i] == SPEC_ONE ? 'o' : spec->facts[i] == SPEC_DIV16 ? 'd' : 'n');
}
