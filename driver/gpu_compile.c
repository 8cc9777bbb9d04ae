/* gpu_compile.c - the GPU pipeline for one kernel and one specialisation, as one list,
 * with the verifier (layouts and buffers included) after every pass:
 *   clone and specialise (parameters equal to 1 become constants); batched dots split
 *   into 2-D ones (batched_dot.c); the accesses through
 *   tensor descriptors that do not go through TMA expanded (tma.h); canonicalize + cse +
 *   dce; for a launcher that builds them (GpuSpec.tma_pointers), pointer loads feeding dots
 *   in pipelined loops through tensor maps (tma_pointers.c: new parameters), cse + dce;
 *   tl.range(..., flatten=True) nests fused (flatten_loops.c), canonicalize + cse + dce;
 *   alignment analysis seeded with the divisibility facts;
 *   assign-layouts (coalescing, tensor-core layouts for dots, conversions), then dce
 *   (values recomputed in other layouts leave their originals unused);
 *   lower-dot-operands (dot_op layouts and shared-memory operands);
 *   pipeline (cp.async rings for loads feeding dots, TMA rings with mbarriers for
 *   descriptor loads feeding dots, asynchronous wgmma), then dce;
 *   lower-tma (the other TMA descriptor accesses: one copy at a time);
 *   alloc-shared; insert-barriers; LLVM IR and PTX. */
#include "gpu_compile.h"

#include <string.h>
#include <time.h>

#include "compiler/gpu/gpu_passes.h"
#include "compiler/passes/passes.h"
#include "compiler/support/options.h"
#include "compiler/target/tma.h"

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

typedef struct Run {
    IrModule *m;
    Diag *diag;
    StrBuf *dump; /* NULL unless every pass's result is wanted */
    bool ok;
} Run;

/* Verifies after a pass and dumps the module; false (an internal error) if invalid. */
static bool after(Run *r, const char *pass) {
    if (!r->ok) return false;
    if (r->dump) {
        sb_printf(r->dump, "// -----// IR Dump After %s //----- //\n", pass);
        ir_print_module(r->dump, r->m);
    }
    StrBuf err;
    sb_init(&err);
    r->ok = ir_verify_module(r->m, &err);
    if (!r->ok)
        diag_error(r->diag, (Loc){0}, "internal error: invalid IR after %s:\n%s", pass,
                   sb_cstr(&err));
    sb_free(&err);
    return r->ok;
}

/* The accesses through descriptor parameters that do not go through TMA (tma.h decides,
 * from the target and the launch's fact) become ordinary loads and stores (a TMA store at
 * negative offsets, which TMA cannot make, is the code generator's branch: llvm_tma.c). */
static bool *expand_descriptors(IrFunc *f, const GpuSpec *spec, int arch) {
    IrRegion *body = &f->regions[f->body];
    bool *keep = arena_alloc(f->mod->arena, body->nargs + 1);
    for (uint32_t i = 0; i < body->nargs; i++) {
        IrType t = ir_type(f, body->args[i]);
        int fact = spec && (int)i < spec->nparams ? spec->facts[i] : SPEC_NONE;
        keep[i] = t.dt == DT_TDESC && gpu_tdesc_uses_tma(t, arch, fact);
    }
    ir_expand_descriptors(f, keep);
    return keep;
}

static ParamFact *param_facts(IrFunc *f, const GpuSpec *spec) {
    IrRegion *body = &f->regions[f->body];
    ParamFact *pf = arena_alloc(f->mod->arena, sizeof(ParamFact) * (body->nargs + 1));
    for (uint32_t i = 0; i < body->nargs; i++) {
        pf[i].divisibility = 1;
        int fact = spec && (int)i < spec->nparams ? spec->facts[i] : SPEC_NONE;
        if (fact == SPEC_DIV16 || fact == SPEC_ZERO)
            pf[i].divisibility = 16, pf[i].nonzero = fact == SPEC_DIV16;
    }
    return pf;
}

/* What the kernel and its guard share: the specialised clone (in r->m), its batched dots
 * split, its descriptors that do not go through TMA expanded (*tma: the ones that do),
 * canonicalize, cse, dce; with spec->tma_pointers, the pointer loads a tensor map can
 * take through one (new parameters, *plan; their entries of *tma true), cse, dce. */
static IrFunc *front(Run *r, const IrFunc *kernel, const GpuSpec *spec, const GpuOptions *go,
                     bool **tma, TmaPtrPlan *plan) {
    IrFunc *f = specialised_clone(r->m, kernel, spec);
    memset(plan, 0, sizeof *plan);
    if (after(r, "specialisation")) ir_split_batched_dots(f);
    if (after(r, "split-batched-dots")) *tma = expand_descriptors(f, spec, go->arch);
    if (after(r, "expand-descriptors")) {
        pass_canonicalize(r->m);
        pass_cse(r->m);
        pass_dce(r->m);
    }
    if (r->ok && spec && spec->tma_pointers) {
        uint32_t n = f->regions[f->body].nargs;
        if (gpu_tma_pointers(f, param_facts(f, spec), go, plan) && after(r, "tma-pointers")) {
            uint32_t m = f->regions[f->body].nargs;
            bool *keep = arena_alloc(r->m->arena, m + 1);
            memcpy(keep, *tma, n);
            for (uint32_t i = n; i < m; i++) keep[i] = true;
            *tma = keep;
            pass_cse(r->m);
            pass_dce(r->m);
        }
    }
    /* after tensor maps: a fused loop's loads would read carried row values, which no map's
     * coordinates can be formed from */
    if (r->ok) {
        pass_flatten_loops(r->m, go->arch == GPU_SM90A);
        if (after(r, "flatten-loops")) {
            /* the copy of the epilogue for rows without inner iterations reads the
             * accumulator's init, often constant: fold what follows from it */
            pass_canonicalize(r->m);
            pass_cse(r->m);
            pass_dce(r->m);
        }
    }
    return f;
}

bool gpu_compile_kernel(const IrFunc *kernel, const GpuSpec *spec, const GpuTarget *t, GpuDump what,
                        StrBuf *dump, StrBuf *llvm_ir, GpuResult *out, Diag *diag) {
    memset(out, 0, sizeof *out);
    sb_init(&out->ptx);
    double t0 = clock_now_ms();
    Arena *arena = arena_new();
    IrModule *m = ir_module_new(arena);
    GpuOptions go = {gpu_arch_of(t->arch), option_or_default(OPT_NUM_WARPS, t->num_warps),
                     option_or_default(OPT_NUM_STAGES, t->num_stages), 1};
    Run r = {m, diag, what == GPU_DUMP_ALL ? dump : NULL, true};
    bool *tma = NULL;
    TmaPtrPlan plan;
    IrFunc *f = front(&r, kernel, spec, &go, &tma, &plan);
    ParamFact *pf = param_facts(f, spec);
    AxisInfo *facts = NULL; /* of f as it is, where known */
    if (after(&r, "specialise")) {
        AxisSpeculation *s = axis_info_speculate(f, pf, arena);
        if (spec && spec->speculate == GPU_SPECULATE_ASSUME) {
            uint32_t roots = gpu_speculate_roots(f, s, &go);
            if (roots) gpu_speculate_assume(f, s, roots);
            else facts = s->proven;
        } else if (!gpu_speculate(f, s, &go)) {
            facts = s->proven; /* nothing versioned: no new analysis */
        }
    }
    if (after(&r, "speculate") &&
        gpu_transpose_dots(f, facts ? facts : axis_info_analyze(f, pf, arena), &go))
        facts = NULL; /* new values */
    if (after(&r, "transpose-dots")) {
        gpu_assign_layouts(f, facts ? facts : axis_info_analyze(f, pf, arena), &go);
        pass_dce(m); /* what rematerialisation left unused */
    }
    if (after(&r, "assign-layouts")) gpu_lower_dot_operands(f);
    if (after(&r, "lower-dot-operands")) {
        gpu_pipeline(f, axis_info_analyze(f, pf, arena), &go);
        pass_dce(m);
    }
    if (after(&r, "pipeline")) gpu_overlap_dots(f);
    if (after(&r, "overlap-dots")) gpu_lower_tma(f);
    if (after(&r, "lower-tma")) gpu_alloc_shared(f);
    if (after(&r, "alloc-shared")) gpu_insert_barriers(f);
    after(&r, "insert-barriers");
    out->times_ms[0] = clock_now_ms() - t0;
    bool ok = r.ok;
    if (ok && what == GPU_DUMP_FINAL) {
        out->shared_bytes = f->shared_bytes;
        out->threads = 32u * (unsigned)(go.num_warps + ir_func_producer_warps(f));
        out->ir = m; /* the caller frees the arena */
        return true;
    } else if (ok) {
        AxisInfo *info = axis_info_analyze(f, pf, arena); /* again: the passes added values */
        GpuTarget tt = *t;
        tt.num_warps = go.num_warps;
        tt.tma_params = tma;
        tt.nparams = f->regions[f->body].nargs;
        ok = llvm_gen_kernel(f, info, &tt, llvm_ir, &out->ptx, diag, out->times_ms + 1);
        out->shared_bytes = f->shared_bytes;
        out->threads = 32u * (unsigned)(go.num_warps + ir_func_producer_warps(f));
    }
    arena_free(arena);
    if (!ok) sb_free(&out->ptx);
    return ok;
}

int gpu_speculation_guard(const IrFunc *kernel, const GpuSpec *spec, const GpuTarget *t,
                          GpuGuard *out, Diag *diag) {
    memset(out, 0, sizeof *out);
    Arena *arena = arena_new();
    IrModule *m = ir_module_new(arena);
    GpuOptions go = {gpu_arch_of(t->arch), option_or_default(OPT_NUM_WARPS, t->num_warps),
                     option_or_default(OPT_NUM_STAGES, t->num_stages), 1};
    Run r = {m, diag, NULL, true};
    bool *tma = NULL;
    IrFunc *f = front(&r, kernel, spec, &go, &tma, &out->tma);
    int kind = -1;
    if (r.ok) {
        AxisSpeculation *s = axis_info_speculate(f, param_facts(f, spec), arena);
        uint32_t roots = gpu_speculate_roots(f, s, &go);
        kind = !roots                              ? GPU_GUARD_NONE
               : !gpu_speculate_guard(f, s, roots) ? GPU_GUARD_OPAQUE
               : after(&r, "speculation-guard")    ? GPU_GUARD_HOST
                                                   : -1;
    }
    if (kind == GPU_GUARD_HOST) out->ir = m, out->f = f;
    else arena_free(arena);
    return kind;
}
