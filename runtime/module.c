/* module.c - modules: a source compiled by the driver into kernels (module_compile), a
 * tuned kernel's per-config module compiled from its base module's syntax tree
 * (module_variant), and what the API says of them and their kernels. Registration with
 * the context and tuning are the callers' (api.c, autotune.c). */
#include "module.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "compiler/passes/passes.h"
#include "compiler/support/options.h"
#include "context.h"
#include "launch_cuda.h"
#include "status.h"

/* The module's own copy of the defines and options: the caller's strings need not
 * outlive the call, and nr_define is the API's type, not sema's (each field copied). */
static bool copy_options(nr_module *m, const nr_compile_options *opts) {
    m->num_warps = opts->num_warps;
    m->num_stages = opts->num_stages;
    m->maxnreg = opts->maxnreg;
    m->fp_fusion = opts->enable_fp_fusion;
    m->reflect_ftz = opts->enable_reflect_ftz;
    m->debug = opts->debug;
    m->constexpr_call = opts->constexpr_call;
    m->constexpr_user = opts->constexpr_user;
    if (opts->kernel && !(m->only_kernel = strdup(opts->kernel))) return false;
    if (opts->num_defines == 0) return true;
    m->defines = calloc((size_t)opts->num_defines, sizeof *m->defines);
    if (!m->defines) return false;
    for (int i = 0; i < opts->num_defines; i++) {
        char *name = strdup(opts->defines[i].name), *value = strdup(opts->defines[i].value);
        m->defines[i] = (SemaDefine){name, value};
        m->ndefines = i + 1; /* freed with the module, even if one strdup failed */
        if (!name || !value) return false;
    }
    return true;
}

/* A failure's status with its message in err (the context's error is set by the caller:
 * the builders below may run on a thread of their own, and touch no context). */
static nr_status fail(StrBuf *err, nr_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static nr_status fail(StrBuf *err, nr_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(err, fmt, ap);
    va_end(ap);
    return s;
}

static void free_options(nr_module *m) {
    for (int i = 0; i < m->ndefines; i++) {
        free((char *)m->defines[i].name);
        free((char *)m->defines[i].value);
    }
    free(m->defines);
    free(m->only_kernel);
}

/* The module's kernels from its program's IR; the interpreter runs tensor-descriptor
 * accesses as the loads and stores they stand for, a GPU keeps them for its back end
 * (TMA on sm_90a). Room is made for `extra` more (the tuned kernels). */
static nr_status add_kernels(nr_module *m, int extra, StrBuf *err) {
    IrModule *ir = m->prog.ir;
    if (m->ctx->kind != NR_DEVICE_CUDA) pass_expand_descriptors(ir);
    m->kernels = calloc(ir->nfuncs + (size_t)extra + 1, sizeof *m->kernels);
    if (!m->kernels) return fail(err, NR_ERR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t i = 0; i < ir->nfuncs; i++) {
        IrFunc *f = ir->funcs[i];
        if (f->is_kernel)
            m->kernels[m->nkernels++] = (nr_kernel){.mod = m,
                                                    .f = f,
                                                    .nparams = (int)f->regions[f->body].nargs,
                                                    .num_warps = m->prog.num_warps,
                                                    .num_stages = m->prog.num_stages};
    }
    return NR_OK;
}

/* The options checked and copied into the module (NR_OK, or the status with the message
 * in err). */
static nr_status take_options(nr_module *m, const nr_compile_options *opts, StrBuf *err) {
    if (!opts) return NR_OK;
    if (opts->num_defines < 0 || (opts->num_defines && !opts->defines))
        return fail(err, NR_ERR_INVALID_ARG, "invalid compile options: %d defines at %p",
                    opts->num_defines, (const void *)opts->defines);
    for (OptionId id = OPT_NUM_WARPS; id <= OPT_NUM_STAGES; id++) {
        int v = id == OPT_NUM_WARPS ? opts->num_warps : opts->num_stages;
        if (v == 0 || option_valid(id, v)) continue;
        const OptionInfo *oi = option_info(id);
        return fail(err, NR_ERR_INVALID_ARG, "%s must be 0 (the default, %d) or %s, got %d",
                    oi->name, oi->def, oi->range, v);
    }
    if (opts->maxnreg && !option_valid(OPT_MAXNREG, opts->maxnreg))
        return fail(err, NR_ERR_INVALID_ARG, "maxnreg must be 0 (no limit) or %s, got %d",
                    option_info(OPT_MAXNREG)->range, opts->maxnreg);
    if (opts->enable_fp_fusion < -1 || opts->enable_fp_fusion > 1 ||
        opts->enable_reflect_ftz < -1 || opts->enable_reflect_ftz > 1)
        return fail(err, NR_ERR_INVALID_ARG,
                    "enable_fp_fusion and enable_reflect_ftz must be 0 (the default), 1 (on) "
                    "or -1 (off), got %d and %d",
                    opts->enable_fp_fusion, opts->enable_reflect_ftz);
    if (opts->debug < -1 || opts->debug > 1)
        return fail(err, NR_ERR_INVALID_ARG,
                    "debug must be 0 (asserts only), 1 (asserts and integer overflow checks) or "
                    "-1 (no run-time checks), got %d",
                    opts->debug);
    for (int i = 0; i < opts->num_defines; i++)
        if (!opts->defines[i].name || !opts->defines[i].value)
            return fail(err, NR_ERR_INVALID_ARG, "define %d has a NULL name or value", i);
    if (!copy_options(m, opts)) return fail(err, NR_ERR_OUT_OF_MEMORY, "out of memory");
    return NR_OK;
}

/* A successful compile's warnings and notes (tl.static_print's), kept with the module for
 * nr_module_diagnostics; frees the Diag. (Out of memory: the text is dropped, not the
 * module.) */
static void keep_diagnostics(nr_module *m, Diag *diag) {
    if (diag->out.len) m->diagnostics = strdup(sb_cstr(&diag->out));
    diag_free(diag);
}

nr_status module_build(nr_context *ctx, char *text, size_t len, const char *filename,
                       const nr_compile_options *opts, StrBuf *err, nr_module **out) {
    nr_module *m = calloc(1, sizeof *m);
    if (!m) return free(text), fail(err, NR_ERR_OUT_OF_MEMORY, "out of memory");
    m->ctx = ctx;
    m->text = text;
    m->src = calloc(1, sizeof *m->src);
    char *name = strdup(filename ? filename : "<source>");
    if (!m->src || !name) {
        free(name);
        module_free(m);
        return fail(err, NR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    *m->src = (Source){name, text, len};
    nr_status s = take_options(m, opts, err);
    if (s) return module_free(m), s;
    NrCompileOptions o = {.defines = m->defines,
                          .ndefines = m->ndefines,
                          .only_kernel = m->only_kernel,
                          .defer_tuned = true,
                          .num_warps = m->num_warps,
                          .num_stages = m->num_stages,
                          .stop_after = NR_STAGE_IR_OPT,
                          .stdlib = ctx->std,
                          .debug = m->debug,
                          .constexpr_call = m->constexpr_call,
                          .constexpr_user = m->constexpr_user};
    Diag diag;
    diag_init(&diag);
    if (!driver_compile(m->src, &o, &diag, NULL, &m->prog)) {
        fail(err, NR_ERR_COMPILE, "%s", sb_cstr(&diag.out));
        diag_free(&diag);
        module_free(m);
        return NR_ERR_COMPILE;
    }
    keep_diagnostics(m, &diag);
    if ((s = add_kernels(m, m->prog.ntuned, err))) return module_free(m), s;
    *out = m;
    return NR_OK;
}

nr_status module_compile(nr_context *ctx, char *text, size_t len, const char *filename,
                         const nr_compile_options *opts, nr_module **out) {
    StrBuf err;
    sb_init(&err);
    context_stdlib(ctx);
    nr_status s = module_build(ctx, text, len, filename, opts, &err, out);
    if (s) api_fail(ctx, s, "%s", sb_cstr(&err));
    sb_free(&err);
    return s;
}

nr_status module_variant_build(const nr_module *base, const char *kernel, const nr_define *defines,
                               int ndefines, int num_warps, int num_stages, StrBuf *err,
                               nr_module **out) {
    nr_module *m = calloc(1, sizeof *m);
    if (!m) return fail(err, NR_ERR_OUT_OF_MEMORY, "out of memory");
    m->ctx = base->ctx;
    m->base = base;
    m->src = base->src;
    m->text = base->text;
    nr_compile_options opts = {.defines = defines,
                               .num_defines = ndefines,
                               .kernel = kernel,
                               .num_warps = num_warps,
                               .num_stages = num_stages,
                               .maxnreg = base->maxnreg,
                               .enable_fp_fusion = base->fp_fusion,
                               .enable_reflect_ftz = base->reflect_ftz,
                               .debug = base->debug,
                               .constexpr_call = base->constexpr_call,
                               .constexpr_user = base->constexpr_user};
    nr_status s = take_options(m, &opts, err);
    if (s) return module_free(m), s;
    Diag diag;
    diag_init(&diag);
    if (!driver_compile_variant(&base->prog, kernel, m->defines, m->ndefines, num_warps, num_stages,
                                &diag, &m->prog)) {
        fail(err, NR_ERR_COMPILE, "%s", sb_cstr(&diag.out));
        diag_free(&diag);
        module_free(m);
        return NR_ERR_COMPILE;
    }
    keep_diagnostics(m, &diag);
    if ((s = add_kernels(m, 0, err))) return module_free(m), s;
    *out = m;
    return NR_OK;
}

nr_status module_variant(const nr_module *base, const char *kernel, const nr_define *defines,
                         int ndefines, int num_warps, int num_stages, nr_module **out) {
    StrBuf err;
    sb_init(&err);
    nr_status s =
        module_variant_build(base, kernel, defines, ndefines, num_warps, num_stages, &err, out);
    if (s) api_fail(base->ctx, s, "%s", sb_cstr(&err));
    sb_free(&err);
    return s;
}

void module_free(nr_module *m) {
    if (!m) return;
    for (int i = 0; i < m->nwarp_variants; i++) module_free(m->warp_variants[i]);
    free(m->warp_variants);
    cuda_module_free(m);
    free_options(m);
    driver_program_free(&m->prog);
    if (!m->base) {
        if (m->src) free((char *)m->src->name);
        free(m->src);
        free(m->text);
    }
    free(m->kernels);
    free(m->diagnostics);
    free(m);
}

const char *nr_module_diagnostics(const nr_module *m) {
    return m && m->diagnostics ? m->diagnostics : "";
}

int nr_module_num_kernels(const nr_module *m) { return m ? m->nkernels : 0; }

const char *nr_module_kernel_name(const nr_module *m, int i) {
    return m && i >= 0 && i < m->nkernels ? m->kernels[i].f->name : NULL;
}

nr_status nr_module_get_kernel(nr_module *m, const char *name, nr_kernel **out) {
    if (!m) return NR_ERR_INVALID_ARG;
    if (!name || !out) return api_fail(m->ctx, NR_ERR_INVALID_ARG, "name and out must not be NULL");
    for (int i = 0; i < m->nkernels; i++)
        if (!strcmp(m->kernels[i].f->name, name)) {
            *out = &m->kernels[i];
            return NR_OK;
        }
    return api_fail(m->ctx, NR_ERR_NOT_FOUND, "no kernel named '%s' in the module", name);
}

int nr_kernel_num_params(const nr_kernel *k) { return k ? k->nparams : 0; }

const char *nr_kernel_param_name(const nr_kernel *k, int i) {
    if (!k || i < 0 || i >= nr_kernel_num_params(k)) return NULL;
    return k->f->param_names[i];
}

nr_type nr_kernel_param_type(const nr_kernel *k, int i) {
    if (!k || i < 0 || i >= nr_kernel_num_params(k)) return NR_TYPE_INVALID;
    return args_type_tag(args_param_type(k, i));
}

nr_type nr_kernel_param_pointee(const nr_kernel *k, int i) {
    if (!k || i < 0 || i >= nr_kernel_num_params(k)) return NR_TYPE_INVALID;
    IrType t = args_param_type(k, i);
    return t.dt == DT_PTR || t.dt == DT_TDESC ? args_type_tag(ty_scalar(t.pointee))
                                              : NR_TYPE_INVALID;
}

_Static_assert((int)NR_TENSOR_DESC_MAX_RANK == (int)NR_MAX_DESC_RANK, "nereid.h's descriptor rank");

int nr_kernel_param_block_shape(const nr_kernel *k, int i, int64_t shape[NR_TENSOR_DESC_MAX_RANK]) {
    if (!k || i < 0 || i >= nr_kernel_num_params(k) || !shape) return 0;
    IrType t = args_param_type(k, i);
    if (t.dt != DT_TDESC) return 0;
    for (int d = 0; d < t.rank; d++) shape[d] = t.shape[d];
    return t.rank;
}
