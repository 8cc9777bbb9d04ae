/* pass_registry.c - the passes by name (pass_registry.h). */
#include "pass_registry.h"

#include <string.h>

#include "compiler/analysis/axis_info.h"
#include "compiler/gpu/gpu_passes.h"
#include "compiler/passes/passes.h"

static bool run_inline(IrModule *m, Diag *d) { return pass_inline(m, d); }
static bool run_canonicalize(IrModule *m, Diag *d) { return (void)d, pass_canonicalize(m), true; }
static bool run_combine_dot(IrModule *m, Diag *d) { return (void)d, pass_combine_dot(m), true; }
static bool run_cse(IrModule *m, Diag *d) { return (void)d, pass_cse(m), true; }
static bool run_dce(IrModule *m, Diag *d) { return (void)d, pass_dce(m), true; }
static bool run_flatten(IrModule *m, Diag *d) {
    return (void)d, pass_flatten_loops(m, m->gpu.arch == GPU_SM90A), true;
}
static bool run_split_dots(IrModule *m, Diag *d) {
    return (void)d, pass_split_batched_dots(m), true;
}
static bool run_expand_desc(IrModule *m, Diag *d) {
    return (void)d, pass_expand_descriptors(m), true;
}

/* the GPU passes that read the alignment facts compute them here: every pointer and
 * integer parameter divisible by the options' param_div */
static AxisInfo *facts(IrFunc *f, const GpuOptions *o) {
    ParamFact *pf = axis_info_param_facts(f, o->param_div > 0 ? o->param_div : 1, f->mod->arena);
    return axis_info_analyze(f, pf, f->mod->arena);
}
static void run_speculate(IrFunc *f, const GpuOptions *o) {
    ParamFact *pf = axis_info_param_facts(f, o->param_div > 0 ? o->param_div : 1, f->mod->arena);
    (void)gpu_speculate(f, axis_info_speculate(f, pf, f->mod->arena), o);
}
static void run_speculate_assume(IrFunc *f, const GpuOptions *o) {
    ParamFact *pf = axis_info_param_facts(f, o->param_div > 0 ? o->param_div : 1, f->mod->arena);
    AxisSpeculation *s = axis_info_speculate(f, pf, f->mod->arena);
    gpu_speculate_assume(f, s, gpu_speculate_roots(f, s, o));
}
static void run_speculate_guard(IrFunc *f, const GpuOptions *o) {
    ParamFact *pf = axis_info_param_facts(f, o->param_div > 0 ? o->param_div : 1, f->mod->arena);
    AxisSpeculation *s = axis_info_speculate(f, pf, f->mod->arena);
    (void)gpu_speculate_guard(f, s, gpu_speculate_roots(f, s, o));
}
static void run_tma_pointers(IrFunc *f, const GpuOptions *o) {
    TmaPtrPlan plan;
    ParamFact *pf = axis_info_param_facts(f, o->param_div > 0 ? o->param_div : 1, f->mod->arena);
    (void)gpu_tma_pointers(f, pf, o, &plan);
}
static void run_transpose_dots(IrFunc *f, const GpuOptions *o) {
    (void)gpu_transpose_dots(f, facts(f, o), o);
}
static void run_assign(IrFunc *f, const GpuOptions *o) { gpu_assign_layouts(f, facts(f, o), o); }
static void run_lower(IrFunc *f, const GpuOptions *o) { (void)o, gpu_lower_dot_operands(f); }
static void run_overlap(IrFunc *f, const GpuOptions *o) { (void)o, gpu_overlap_dots(f); }
static void run_pipeline(IrFunc *f, const GpuOptions *o) { gpu_pipeline(f, facts(f, o), o); }
static void run_lower_tma(IrFunc *f, const GpuOptions *o) { (void)o, gpu_lower_tma(f); }
static void run_alloc(IrFunc *f, const GpuOptions *o) { (void)o, gpu_alloc_shared(f); }
static void run_barriers(IrFunc *f, const GpuOptions *o) { (void)o, gpu_insert_barriers(f); }

static const PassInfo registry[] = {
    {"inline", "inline every call, then drop the functions that are not kernels", run_inline, NULL,
     false},
    {"canonicalize", "fold constants, apply identities, drop constant branches", run_canonicalize,
     NULL, false},
    {"combine-dot", "add(x, dot(a, b, 0)) -> dot(a, b, x)", run_combine_dot, NULL, false},
    {"cse", "scoped common-subexpression elimination of pure ops", run_cse, NULL, false},
    {"flatten-loops", "a tl.range(..., flatten=True) loop and its one inner loop -> one loop",
     run_flatten, NULL, false},
    {"dce", "remove unused pure ops, loads and loop results", run_dce, NULL, false},
    {"expand-descriptors", "tensor-descriptor loads and stores -> pointer blocks and masks",
     run_expand_desc, NULL, false},
    {"split-batched-dots", "a dot with batch dims -> one 2-D dot per batch (the GPU's)",
     run_split_dots, NULL, false},
    {"gpu-speculate",
     "version the ops whose accesses widen if some scalars are >= 0 (Triton takes it for granted)",
     NULL, run_speculate, false},
    {"gpu-speculate-assume",
     "take the scalars gpu-speculate would check as >= 0 everywhere (a launcher checked them)",
     NULL, run_speculate_assume, false},
    {"gpu-speculate-guard",
     "reduce a kernel to the check of those scalars (assert >= 0) the launcher runs on the host",
     NULL, run_speculate_guard, false},
    {"gpu-tma-pointers",
     "pointer loads feeding dots in pipelined loops -> desc_loads of tensor maps the launcher "
     "builds (new parameters)",
     NULL, run_tma_pointers, false},
    {"gpu-transpose-dots",
     "tf32 dots whose B runs along N -> the transposed product (B through registers, sm_90a)", NULL,
     run_transpose_dots, false},
    {"gpu-assign-layouts", "give every block a layout (coalescing, tensor-core layouts)", NULL,
     run_assign, false},
    {"gpu-lower-dot-operands", "put each dot's operands where its lowering reads them", NULL,
     run_lower, true},
    {"gpu-pipeline", "cp.async and TMA rings for loads that feed dots in loops", NULL, run_pipeline,
     true},
    {"gpu-overlap-dots", "synchronous wgmmas run under the independent pure ops after them", NULL,
     run_overlap, true},
    {"gpu-lower-tma", "the remaining TMA descriptor accesses: one copy at a time", NULL,
     run_lower_tma, true},
    {"gpu-alloc-shared", "place shared-memory buffers by their lifetimes", NULL, run_alloc, true},
    {"gpu-insert-barriers", "barriers and proxy fences where shared-memory accesses race", NULL,
     run_barriers, true},
};

int pass_count(void) { return (int)(sizeof registry / sizeof registry[0]); }

const PassInfo *pass_at(int i) { return i >= 0 && i < pass_count() ? &registry[i] : NULL; }

const PassInfo *pass_find(const char *name, size_t len) {
    for (int i = 0; i < pass_count(); i++)
        if (strlen(registry[i].name) == len && !memcmp(registry[i].name, name, len))
            return &registry[i];
    return NULL;
}

bool pass_list_valid(const char *list, char *bad, size_t size) {
    if (!strcmp(list, "none")) return true;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (!pass_find(p, n)) {
            snprintf(bad, size, "%.*s", (int)n, p);
            return false;
        }
        p += n + (p[n] == ',');
    }
    return true;
}

void pass_list_names(StrBuf *out, int width, int indent) {
    int col = indent;
    for (int i = 0; i < pass_count(); i++) {
        int n = (int)strlen(registry[i].name) + 1; /* with its comma or full stop's room */
        if (i > 0 && col + 1 + n > width) {
            sb_printf(out, ",\n%*s", indent, "");
            col = indent;
        } else if (i > 0) {
            sb_puts(out, ", ");
            col += 2;
        }
        sb_puts(out, registry[i].name);
        col += n - 1;
    }
}

static bool verify(IrModule *m, Diag *d, const char *when, const char *pass) {
    StrBuf err;
    sb_init(&err);
    bool ok = ir_verify_module(m, &err);
    if (!ok) {
        if (err.len && err.data[err.len - 1] == '\n') err.data[--err.len] = 0;
        diag_error(d, (Loc){0}, "internal error: invalid IR %s%s%s:\n%s", when, pass ? pass : "",
                   pass ? "'" : "", sb_cstr(&err));
    }
    sb_free(&err);
    return ok;
}

/* A GPU pass runs only on the stage of IR it expects: refuse, never crash. */
static bool right_stage(const PassInfo *p, const IrModule *m, Diag *d) {
    bool gpu_ir = m->gpu.arch || m->gpu.num_warps;
    if (p->on_gpu_ir == gpu_ir) return true;
    if (p->on_gpu_ir)
        diag_error(
            d, (Loc){0},
            "pass '%s' needs GPU-stage IR (a gpu<...> header and layouts): run gpu-assign-layouts "
            "first",
            p->name);
    else
        diag_error(d, (Loc){0},
                   "pass '%s' takes IR without layouts, and this module has a gpu<...> header (its "
                   "layouts are assigned already)",
                   p->name);
    return false;
}

bool pass_run_list(IrModule *m, const char *list, const GpuOptions *go, Diag *d, StrBuf *dump) {
    char bad[64];
    if (!pass_list_valid(list, bad, sizeof bad)) {
        diag_error(d, (Loc){0}, "unknown pass '%s'", bad);
        return false;
    }
    if (!strcmp(list, "none")) list = "";
    if (!verify(m, d, "before the passes", NULL)) return false;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        const PassInfo *pi = pass_find(p, n);
        p += n + (p[n] == ',');
        if (pi->run_ir) {
            if (!pi->run_ir(m, d)) return false;
        } else {
            if (!right_stage(pi, m, d)) return false;
            for (uint32_t i = 0; i < m->nfuncs; i++) pi->run_gpu(m->funcs[i], go);
        }
        if (dump) {
            sb_printf(dump, "// -----// IR Dump After %s //----- //\n", pi->name);
            ir_print_module(dump, m);
        }
        if (!verify(m, d, "after pass '", pi->name)) return false;
    }
    return true;
}
