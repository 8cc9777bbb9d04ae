/* api.c - the C API (include/nereid.h): contexts, compilation into modules, kernel
 * lookup, argument checking and launches, device memory. The CPU device runs kernels on
 * the IR interpreter over host memory it allocates itself, so it knows every buffer's
 * extent and can report out-of-bounds accesses. No global state: everything hangs off
 * the context. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/gpu_compile.h"
#include "compiler/target/tma.h"
#include "compiler/passes/passes.h"
#include "api_internal.h"
#include "autotune.h"
#include "compiler/support/float16.h"
#include "interp.h"
#include "compiler/support/options.h"

nr_status api_fail(nr_context *ctx, nr_status s, const char *fmt, ...) {
    if (!ctx) return s;
    sb_free(&ctx->err);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&ctx->err, fmt, ap);
    va_end(ap);
    return s;
}

void api_clear_error(nr_context *ctx) {
    if (ctx->err.data) sb_free(&ctx->err);
}

/* On a CUDA context that a kernel fault made unusable, every call fails at once. */
#define FAULT_GUARD(ctx)                                  \
    do {                                                  \
        if ((ctx)->cuda && *(ctx)->cuda_fault) {          \
            nr_status fault_ = cuda_api_fault(ctx);       \
            if (fault_) return fault_;                    \
        }                                                 \
    } while (0)

/* Turn a failed CUDA call into the context's error: a kernel fault as cuda_api_fault
 * reports it, anything else as `on_fail` with the driver's message. Frees err. */
static nr_status cuda_call(nr_context *ctx, int rc, StrBuf *err, nr_status on_fail) {
    nr_status s = NR_OK;
    if (rc && !(s = cuda_api_fault(ctx))) s = api_fail(ctx, on_fail, "%s", sb_cstr(err));
    sb_free(err);
    return s;
}

const char *nr_status_string(nr_status s) {
    switch (s) {
    case NR_OK: return "success";
    case NR_ERR_COMPILE: return "compile error";
    case NR_ERR_INVALID_ARG: return "invalid argument";
    case NR_ERR_NOT_FOUND: return "not found";
    case NR_ERR_LAUNCH: return "kernel failed";
    case NR_ERR_DEVICE: return "device error";
    case NR_ERR_OUT_OF_MEMORY: return "out of memory";
    case NR_ERR_UNSUPPORTED: return "unsupported";
    }
    return "unknown status";
}

/* ---- contexts ---- */

static nr_status release_stream(nr_context *ctx, int i);

nr_status nr_context_create_ex(nr_device_kind kind, int device_index, nr_context **out, char *errbuf, size_t errsize) {
    if (errbuf && errsize) errbuf[0] = 0;
    if (!out) return NR_ERR_INVALID_ARG;
    *out = NULL;
    if (kind != NR_DEVICE_CPU && kind != NR_DEVICE_CUDA) return NR_ERR_INVALID_ARG;
    if (device_index < 0 || (kind == NR_DEVICE_CPU && device_index != 0)) return NR_ERR_INVALID_ARG;
    nr_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return NR_ERR_OUT_OF_MEMORY;
    ctx->kind = kind;
    sb_init(&ctx->err);
    sb_init(&ctx->fault);
    if (kind == NR_DEVICE_CUDA) {
        StrBuf err;
        sb_init(&err);
        nr_status s = cuda_api_open(ctx, device_index, &err);
        if (s) {
            if (errbuf && errsize) snprintf(errbuf, errsize, "%s", sb_cstr(&err));
            sb_free(&err);
            nr_context_destroy(ctx);
            return s;
        }
        sb_free(&err);
    }
    *out = ctx;
    return NR_OK;
}

nr_status nr_context_create(nr_device_kind kind, int device_index, nr_context **out) {
    return nr_context_create_ex(kind, device_index, out, NULL, 0);
}

void nr_context_destroy(nr_context *ctx) {
    if (!ctx) return;
    /* streams first: destroying one waits for its work, which may use the modules */
    while (ctx->nstreams) release_stream(ctx, ctx->nstreams - 1);
    free(ctx->streams);
    while (ctx->nmods) nr_module_destroy(ctx->mods[ctx->nmods - 1]); /* they need the device */
    free(ctx->mods);
    if (ctx->cuda) {
        StrBuf err;
        sb_init(&err);
        for (int i = 0; i < ctx->nallocs; i++) cuda_free(ctx->cuda, (uint64_t)(uintptr_t)ctx->allocs[i].ptr, &err);
        sb_free(&err);
        ctx->nallocs = 0;
        cuda_close(ctx->cuda);
    }
    for (int i = 0; i < ctx->nallocs; i++) free(ctx->allocs[i].ptr);
    free(ctx->allocs);
    free(ctx->host);
    sb_free(&ctx->err);
    sb_free(&ctx->fault);
    free(ctx);
}

const char *nr_last_error(const nr_context *ctx) {
    if (!ctx) return "no context";
    return ctx->err.data ? ctx->err.data : "";
}

nr_device_kind nr_context_device(const nr_context *ctx) { return ctx ? ctx->kind : NR_DEVICE_CPU; }

const char *nr_context_device_name(const nr_context *ctx) { return ctx && ctx->cuda ? cuda_device_name(ctx->cuda) : "cpu"; }

int nr_context_device_index(const nr_context *ctx) { return !ctx ? -1 : ctx->cuda ? cuda_ordinal(ctx->cuda) : 0; }

nr_status nr_device_count(nr_device_kind kind, int *count, char *errbuf, size_t errsize) {
    if (errbuf && errsize) errbuf[0] = 0;
    if (!count) return NR_ERR_INVALID_ARG;
    *count = 0;
    if (kind == NR_DEVICE_CPU) return *count = 1, NR_OK;
    if (kind != NR_DEVICE_CUDA) return NR_ERR_INVALID_ARG;
    StrBuf err;
    sb_init(&err);
    int rc = cuda_device_count(count, &err);
    if (errbuf && errsize) snprintf(errbuf, errsize, "%s", sb_cstr(&err));
    sb_free(&err);
    return rc ? NR_ERR_DEVICE : NR_OK;
}

const char *nr_compiler_build(void) { return nr_build_id; }

/* ---- compiling ---- */

/* The module's own copy of the defines and options: the caller's strings need not
 * outlive the call, and nr_define is the API's type, not sema's (each field copied). */
static bool copy_options(nr_module *m, const nr_compile_options *opts) {
    m->num_warps = opts->num_warps;
    m->num_stages = opts->num_stages;
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

static void free_options(nr_module *m) {
    for (int i = 0; i < m->ndefines; i++) {
        free((char *)m->defines[i].name);
        free((char *)m->defines[i].value);
    }
    free(m->defines);
    free(m->only_kernel);
}

/* outer: a module the caller asked for (the context owns it; its tuned kernels are set up);
 * else a tuned kernel's per-config module (autotune.c owns it). */
static nr_status compile_text(nr_context *ctx, char *text, size_t len, const char *filename,
                              const nr_compile_options *opts, nr_module **out, bool outer) {
    nr_module *m = calloc(1, sizeof *m);
    if (!m) return free(text), api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    m->ctx = ctx;
    m->text = text;
    m->src = calloc(1, sizeof *m->src);
    char *name = strdup(filename ? filename : "<source>");
    if (!m->src || !name) {
        free(name);
        nr_module_destroy(m);
        return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    *m->src = (Source){name, text, len};
    NrCompileOptions o;
    memset(&o, 0, sizeof o);
    o.stop_after = NR_STAGE_IR_OPT;
    if (opts) {
        if (opts->num_defines < 0 || (opts->num_defines && !opts->defines)) {
            nr_module_destroy(m);
            return api_fail(ctx, NR_ERR_INVALID_ARG, "invalid compile options: %d defines at %p", opts->num_defines,
                            (const void *)opts->defines);
        }
        for (OptionId id = OPT_NUM_WARPS; id <= OPT_NUM_STAGES; id++) {
            int v = id == OPT_NUM_WARPS ? opts->num_warps : opts->num_stages;
            if (v == 0 || option_valid(id, v)) continue;
            nr_module_destroy(m);
            const OptionInfo *oi = option_info(id);
            return api_fail(ctx, NR_ERR_INVALID_ARG, "%s must be 0 (the default, %d) or %s, got %d", oi->name, oi->def,
                            oi->range, v);
        }
        for (int i = 0; i < opts->num_defines; i++)
            if (!opts->defines[i].name || !opts->defines[i].value) {
                nr_module_destroy(m);
                return api_fail(ctx, NR_ERR_INVALID_ARG, "define %d has a NULL name or value", i);
            }
        if (!copy_options(m, opts)) {
            nr_module_destroy(m);
            return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        }
        o.defines = m->defines;
        o.ndefines = m->ndefines;
        o.only_kernel = m->only_kernel;
        o.num_warps = m->num_warps;
        o.num_stages = m->num_stages;
    }
    Diag diag;
    diag_init(&diag);
    bool ok = !outer || tune_module_prepare(m, opts, &o, &diag) == NR_OK;
    ok = ok && nr_compile_program(m->src, &o, &diag, NULL, &m->prog);
    if (!ok) {
        api_fail(ctx, NR_ERR_COMPILE, "%s", sb_cstr(&diag.out));
        diag_free(&diag);
        nr_module_destroy(m);
        return NR_ERR_COMPILE;
    }
    diag_free(&diag);
    IrModule *ir = m->prog.ir;
    /* the interpreter runs tensor-descriptor accesses as the loads and stores they stand
     * for; a GPU keeps them for its back end (TMA on sm_90a) */
    if (ctx->kind != NR_DEVICE_CUDA) pass_expand_descriptors(ir);
    m->kernels = calloc(ir->nfuncs + (size_t)tune_module_count(m) + 1, sizeof *m->kernels);
    if (!m->kernels) {
        nr_module_destroy(m);
        return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (uint32_t i = 0; i < ir->nfuncs; i++)
        if (ir->funcs[i]->is_kernel) m->kernels[m->nkernels++] = (nr_kernel){.mod = m,
                                                          .f = ir->funcs[i],
                                                          .nparams = (int)ir->funcs[i]->regions[ir->funcs[i]->body].nargs,
                                                          .num_warps = m->prog.num_warps,
                                                          .num_stages = m->prog.num_stages};
    if (outer) {
        diag_init(&diag);
        nr_status ts = tune_module_add_kernels(m, &diag);
        if (ts) {
            api_fail(ctx, ts, "%s", sb_cstr(&diag.out));
            diag_free(&diag);
            nr_module_destroy(m);
            return ts;
        }
        diag_free(&diag);
    } else {
        *out = m;
        return NR_OK;
    }
    if (ctx->nmods == ctx->capmods) {
        int cap = ctx->capmods ? ctx->capmods * 2 : 8;
        nr_module **mods = realloc(ctx->mods, sizeof *mods * (size_t)cap);
        if (!mods) {
            nr_module_destroy(m);
            return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        }
        ctx->mods = mods, ctx->capmods = cap;
    }
    ctx->mods[ctx->nmods++] = m;
    *out = m;
    return NR_OK;
}

nr_status nr_compile_source(nr_context *ctx, const char *source, size_t length, const char *filename,
                            const nr_compile_options *opts, nr_module **out) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    if (!source || !out) return api_fail(ctx, NR_ERR_INVALID_ARG, "source and out must not be NULL");
    *out = NULL;
    FAULT_GUARD(ctx);
    char *text = malloc(length + 1);
    if (!text) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(text, source, length);
    text[length] = 0;
    return compile_text(ctx, text, length, filename, opts, out, true);
}

nr_status api_compile_inner(nr_context *ctx, const char *source, size_t length, const char *filename,
                            const nr_compile_options *opts, nr_module **out) {
    char *text = malloc(length + 1);
    if (!text) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(text, source, length);
    text[length] = 0;
    return compile_text(ctx, text, length, filename, opts, out, false);
}

nr_status nr_compile_file(nr_context *ctx, const char *path, const nr_compile_options *opts, nr_module **out) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    if (!path || !out) return api_fail(ctx, NR_ERR_INVALID_ARG, "path and out must not be NULL");
    *out = NULL;
    FAULT_GUARD(ctx);
    size_t len;
    char *text = file_read(path, &len);
    if (!text)
        return api_fail(ctx, errno == ENOENT ? NR_ERR_NOT_FOUND : NR_ERR_INVALID_ARG, "cannot read '%s': %s", path,
                        strerror(errno));
    return compile_text(ctx, text, len, path, opts, out, true);
}

void nr_module_destroy(nr_module *m) {
    if (!m) return;
    for (int i = 0; m->ctx && i < m->ctx->nmods; i++) /* the context no longer owns it */
        if (m->ctx->mods[i] == m) {
            m->ctx->mods[i] = m->ctx->mods[--m->ctx->nmods];
            break;
        }
    tune_module_free(m); /* its tuned kernels' modules first */
    cuda_api_module_free(m);
    free_options(m);
    nr_program_free(&m->prog);
    if (m->src) free((char *)m->src->name);
    free(m->src);
    free(m->text);
    free(m->kernels);
    free(m);
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

static IrType param_type(const nr_kernel *k, int i) {
    return ir_type(k->f, k->f->regions[k->f->body].args[i]);
}

const char *nr_kernel_param_name(const nr_kernel *k, int i) {
    if (!k || i < 0 || i >= nr_kernel_num_params(k)) return NULL;
    return k->f->param_names[i];
}

static nr_type type_tag(IrType t) {
    static const nr_type tags[DT_COUNT] = {
        [DT_I1] = NR_TYPE_I1, [DT_I8] = NR_TYPE_I8, [DT_I16] = NR_TYPE_I16, [DT_I32] = NR_TYPE_I32,
        [DT_I64] = NR_TYPE_I64, [DT_U8] = NR_TYPE_U8, [DT_U16] = NR_TYPE_U16, [DT_U32] = NR_TYPE_U32,
        [DT_U64] = NR_TYPE_U64, [DT_FP16] = NR_TYPE_FP16, [DT_BF16] = NR_TYPE_BF16, [DT_FP32] = NR_TYPE_FP32,
        [DT_FP64] = NR_TYPE_FP64, [DT_FP8E4NV] = NR_TYPE_FP8E4NV, [DT_FP8E5] = NR_TYPE_FP8E5,
        [DT_FP8E4B15] = NR_TYPE_FP8E4B15, [DT_FP8E4B8] = NR_TYPE_FP8E4B8, [DT_FP8E5B16] = NR_TYPE_FP8E5B16,
        [DT_PTR] = NR_TYPE_PTR};
    return t.dt == DT_TDESC ? NR_TYPE_TENSOR_DESC : tags[t.dt];
}

nr_type nr_kernel_param_type(const nr_kernel *k, int i) {
    if (!k || i < 0 || i >= nr_kernel_num_params(k)) return NR_TYPE_INVALID;
    return type_tag(param_type(k, i));
}

nr_type nr_kernel_param_pointee(const nr_kernel *k, int i) {
    if (!k || i < 0 || i >= nr_kernel_num_params(k)) return NR_TYPE_INVALID;
    IrType t = param_type(k, i);
    return t.dt == DT_PTR || t.dt == DT_TDESC ? type_tag(ty_scalar(t.pointee)) : NR_TYPE_INVALID;
}

int nr_kernel_param_block_shape(const nr_kernel *k, int i, int64_t shape[4]) {
    if (!k || i < 0 || i >= nr_kernel_num_params(k) || !shape) return 0;
    IrType t = param_type(k, i);
    if (t.dt != DT_TDESC) return 0;
    for (int d = 0; d < t.rank; d++) shape[d] = t.shape[d];
    return t.rank;
}

/* ---- launching ---- */

static const char *tag_name(nr_type t) {
    if (t == NR_TYPE_TENSOR_DESC) return "a tensor descriptor";
    static const char *const names[] = {"pointer", "i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
                                        "fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", "fp8e4b15",
                                        "fp8e4b8", "fp8e5b16"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "an unknown type";
}

static bool is_int_tag(nr_type t) { return t >= NR_TYPE_I1 && t <= NR_TYPE_U64; }
static bool is_float_tag(nr_type t) { return t >= NR_TYPE_FP16 && t <= NR_TYPE_FP64; }

/* An integer argument fits its parameter if its value is representable there. */
static bool int_fits(const nr_arg *a, int dt) {
    bool sgn = a->type <= NR_TYPE_I64;
    int bits = dt_bits(dt);
    if (sgn) {
        int64_t v = a->v.i;
        if (dt == DT_I1) return v == 0 || v == 1;
        if (dt_is_signed(dt)) return bits == 64 || (v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1)));
        return v >= 0 && (bits == 64 || (uint64_t)v < (UINT64_C(1) << bits));
    }
    uint64_t v = a->v.u;
    if (dt == DT_I1) return v <= 1;
    if (dt_is_signed(dt)) return v < (UINT64_C(1) << (bits - 1));
    return bits == 64 || v < (UINT64_C(1) << bits);
}

/* The same test for the launch path, on a parameter of dt_bits(dt) == bits: the largest
 * value the parameter holds (its smallest is -max - 1 if signed, else 0). */
static inline bool int_fits_fast(const nr_arg *a, int dt, int bits) {
    bool sgn_param = dt >= DT_I8 && dt <= DT_I64;
    uint64_t max = dt == DT_I1 ? 1 : UINT64_MAX >> (64 - bits + sgn_param);
    if (a->type <= NR_TYPE_I64 && a->v.i < 0) return sgn_param && a->v.i >= -(int64_t)max - 1;
    return a->v.u <= max;
}

/* A tensor descriptor argument checked against its parameter t; its parts (desc_part's
 * numbering: base, sizes, strides, padding) go to parts when it is not NULL. */
static nr_status check_desc_arg(nr_kernel *k, int i, const nr_arg *a, IrType t, int64_t *parts) {
    const char *name = k->f->param_names[i] ? k->f->param_names[i] : "?";
    nr_context *ctx = k->mod->ctx;
    char ty[64];
    ty_str(t, ty, sizeof ty);
    if (a->type != NR_TYPE_TENSOR_DESC || !a->v.desc)
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s') is a tensor descriptor (%s), got %s",
                        k->f->name, i, name, ty, a->type == NR_TYPE_TENSOR_DESC ? "a NULL descriptor" : tag_name(a->type));
    const nr_tensor_desc *d = a->v.desc;
    if (d->rank != t.rank)
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s'): the descriptor has rank %d, the parameter "
                        "(%s) rank %d", k->f->name, i, name, d->rank, ty, t.rank);
    for (int r = 0; r < t.rank; r++)
        if (d->shape[r] < 0)
            return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s'): shape[%d] is %lld (must be >= 0)",
                            k->f->name, i, name, r, (long long)d->shape[r]);
    if (d->strides[t.rank - 1] != 1)
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s'): the last stride must be 1 (the last dim "
                        "contiguous, as in Triton), got %lld", k->f->name, i, name, (long long)d->strides[t.rank - 1]);
    if (d->padding != NR_PAD_ZERO && d->padding != NR_PAD_NAN)
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s'): padding must be NR_PAD_ZERO or NR_PAD_NAN, "
                        "got %d", k->f->name, i, name, d->padding);
    if (d->padding == NR_PAD_NAN && !dt_is_float(t.pointee))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s'): NaN padding needs a float element type, "
                        "not %s", k->f->name, i, name, dt_name(t.pointee));
    if (parts) {
        parts[0] = (int64_t)d->base;
        for (int r = 0; r < t.rank; r++) parts[1 + r] = d->shape[r], parts[1 + t.rank + r] = d->strides[r];
        parts[1 + 2 * t.rank] = d->padding;
    }
    return NR_OK;
}

static nr_status convert_arg(nr_kernel *k, int i, const nr_arg *a, InterpScalar *out) {
    IrType t = param_type(k, i);
    const char *name = k->f->param_names[i] ? k->f->param_names[i] : "?";
    nr_context *ctx = k->mod->ctx;
    if (t.dt == DT_TDESC) return check_desc_arg(k, i, a, t, NULL);
    if (t.dt == DT_PTR) {
        if (a->type != NR_TYPE_PTR)
            return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s') is a pointer (*%s), got %s", k->f->name,
                        i, name, dt_name(t.pointee), tag_name(a->type));
        out->u = a->v.u;
        return NR_OK;
    }
    if (dt_is_int(t.dt)) {
        if (!is_int_tag(a->type))
            return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s') is %s, got %s", k->f->name, i, name,
                        dt_name(t.dt), tag_name(a->type));
        if (!int_fits(a, t.dt))
            return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s') does not fit in %s", k->f->name, i,
                        name, dt_name(t.dt));
        out->i = a->v.i;
        return NR_OK;
    }
    if (!is_float_tag(a->type))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s') is %s, got %s", k->f->name, i, name,
                    dt_name(t.dt), tag_name(a->type));
    double f = a->v.f;
    out->f = t.dt == DT_FP32 ? (double)(float)f : t.dt == DT_FP16 ? nr_fp16_round(f) : t.dt == DT_BF16 ? nr_bf16_round(f) : f;
    return NR_OK;
}

/* A descriptor argument's specialisation fact: SPEC_DIV16 when TMA could take it (base
 * 16-byte aligned and not null, every stride but the last positive, a multiple of 16
 * bytes and below 2^40 bytes, sizes from 1 to 2^32, the last a multiple of 16 bytes (a
 * TMA store clips a box at the tensor's bounds only to 16-byte pieces of a row: it wrote
 * a 45-float row's elements 45 to 47, measured on the H200), NaN padding only for the
 * float types a tensor map fills with NaN) and the device has tensor maps where the
 * target uses them. */
static uint8_t desc_fact(const nr_context *ctx, int arch, IrType t, const nr_tensor_desc *d) {
    int esize = dt_bytes(t.pointee);
    if (!d->base || d->base % 16) return SPEC_NONE;
    if (d->shape[t.rank - 1] * esize % 16) return SPEC_NONE;
    for (int r = 0; r < t.rank; r++) {
        if (d->shape[r] < 1 || d->shape[r] > (INT64_C(1) << 32)) return SPEC_NONE;
        if (r < t.rank - 1 && (d->strides[r] <= 0 || d->strides[r] >= (INT64_C(1) << 40) / esize || d->strides[r] * esize % 16))
            return SPEC_NONE;
    }
    if (d->padding == NR_PAD_NAN && (dt_is_fp8(t.pointee) || !dt_is_float(t.pointee))) return SPEC_NONE;
    if (arch == GPU_SM90A && !cuda_has_tma(ctx->cuda)) return SPEC_NONE;
    return SPEC_DIV16;
}

/* CUtensorMapDataType of an element type (integers and fp8 by their width). */
static int tensor_map_dtype(int dt) {
    switch (dt) {
    case DT_FP16: return 6;
    case DT_BF16: return 9;
    case DT_FP32: return 7;
    case DT_FP64: return 8;
    case DT_I32: return 3;
    case DT_U32: return 2;
    case DT_I64: return 5;
    case DT_U64: return 4;
    default: return dt_bytes(dt) == 2 ? 1 : 0; /* UINT16, UINT8 */
    }
}

enum { DESC_BLOB = 256, MAX_DESC_PARAMS = 8 };

/* A descriptor argument's parameter bytes into blob (64-byte aligned, DESC_BLOB bytes):
 * its tensor map when the variant takes it by TMA (tma.h), then its parts. */
static nr_status pack_desc(nr_kernel *k, int i, const nr_arg *a, unsigned char *blob, uint8_t *fact) {
    nr_context *ctx = k->mod->ctx;
    IrType t = param_type(k, i);
    int64_t parts[2 + 2 * NR_MAX_RANK];
    nr_status s = check_desc_arg(k, i, a, t, parts);
    if (s) return s;
    int arch = gpu_arch_of(cuda_arch_name(ctx->cuda));
    *fact = desc_fact(ctx, arch, t, a->v.desc);
    bool tma = gpu_tdesc_uses_tma(t, arch, *fact);
    if (tma) {
        TmaPlan plan;
        gpu_tma_plan(t, &plan);
        const nr_tensor_desc *d = a->v.desc;
        CudaTensorMap m = {t.rank, tensor_map_dtype(t.pointee), plan.swizzle == 128 ? 3 : plan.swizzle == 64 ? 2 : 1,
                           d->padding == NR_PAD_NAN, d->base, {0}, {0}, {0}};
        int esize = dt_bytes(t.pointee);
        for (int r = 0; r < t.rank; r++) { /* innermost first */
            m.dims[r] = (uint64_t)d->shape[t.rank - 1 - r];
            m.box[r] = (unsigned)plan.box[t.rank - 1 - r];
            if (r) m.strides[r - 1] = (uint64_t)d->strides[t.rank - 1 - r] * (uint64_t)esize;
        }
        StrBuf err;
        sb_init(&err);
        int rc = cuda_tensor_map_encode(ctx->cuda, blob, &m, &err);
        if (rc) s = api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s'): %s", k->f->name, i,
                             k->f->param_names[i] ? k->f->param_names[i] : "?", sb_cstr(&err));
        sb_free(&err);
        if (s) return s;
    }
    memcpy(blob + gpu_tdesc_part_offset(tma, 0), parts, sizeof(int64_t) * (size_t)(2 + 2 * t.rank));
    return NR_OK;
}

/* The CUDA launch path, the hot one: each argument checked against its parameter (as
 * convert_arg checks it: a mismatch gets its message), its specialisation fact found
 * (runtime/api_cuda.c says which) and its bytes packed in the parameter's width, in one
 * pass over a table of the parameters made at the kernel's first launch; then the
 * variant of those facts, warps and stages is launched. No allocation, no formatting. */
static nr_status launch_cuda(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int np,
                             const nr_launch_options *opts) {
    nr_context *ctx = k->mod->ctx;
    if (np > NR_MAX_LAUNCH_ARGS)
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s' has more than %d parameters", k->f->name, NR_MAX_LAUNCH_ARGS);
    if (!k->planned) {
        for (int i = 0; i < np; i++) {
            int dt = param_type(k, i).dt;
            k->params[i] = (LaunchParam){(uint8_t)dt, (uint8_t)dt_bits(dt)};
        }
        k->planned = true;
    }
    VariantKey key = {{0, 0},
                      opts && opts->num_warps > 0 ? opts->num_warps : k->num_warps,
                      opts && opts->num_stages > 0 ? opts->num_stages : k->num_stages};
    uint8_t facts[NR_MAX_LAUNCH_ARGS];
    uint64_t slots[NR_MAX_LAUNCH_ARGS];
    void *params[NR_MAX_LAUNCH_ARGS];
    _Alignas(64) unsigned char descs[MAX_DESC_PARAMS][DESC_BLOB];
    int ndesc = 0;
    for (int i = 0; i < np; i++) {
        const nr_arg *a = &args[i];
        LaunchParam p = k->params[i];
        uint64_t u = a->v.u;
        uint8_t fact = SPEC_NONE;
        if (p.dt == DT_PTR && a->type == NR_TYPE_PTR) {
            slots[i] = u;
            fact = u % 16 == 0 && u ? SPEC_DIV16 : SPEC_NONE;
        } else if (p.dt >= DT_I1 && p.dt <= DT_U64 && is_int_tag(a->type) && int_fits_fast(a, p.dt, p.bits)) {
            uint64_t low = p.bits >= 64 ? u : u & ((UINT64_C(1) << p.bits) - 1); /* the parameter's bytes */
            slots[i] = low;
            /* 0 is no multiple of 16 here: the compiler takes a divisible value to be nonzero */
            if (p.dt != DT_I1) fact = a->v.i == 1 ? SPEC_ONE : low % 16 == 0 && low ? SPEC_DIV16 : SPEC_NONE;
        } else if (p.dt >= DT_FP16 && p.dt <= DT_FP64 && is_float_tag(a->type)) {
            double f = a->v.f;
            slots[i] = 0;
            if (p.dt == DT_FP32) {
                float x = (float)f;
                memcpy(&slots[i], &x, 4);
            } else if (p.dt == DT_FP64) {
                memcpy(&slots[i], &f, 8);
            } else {
                uint16_t h = p.dt == DT_FP16 ? nr_fp16_from_double(nr_fp16_round(f)) : nr_bf16_from_double(nr_bf16_round(f));
                memcpy(&slots[i], &h, 2);
            }
        } else if (p.dt == DT_TDESC && a->type == NR_TYPE_TENSOR_DESC) {
            if (ndesc == MAX_DESC_PARAMS)
                return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': more than %d tensor descriptor parameters",
                                k->f->name, MAX_DESC_PARAMS);
            nr_status s = pack_desc(k, i, a, descs[ndesc], &fact);
            if (s) return s;
            facts[i] = fact;
            key.facts[(unsigned)i >> 5] |= (uint64_t)fact << (((unsigned)i & 31) << 1);
            params[i] = descs[ndesc++];
            continue;
        } else {
            InterpScalar unused;
            nr_status s = convert_arg(k, i, a, &unused); /* says what is wrong */
            return s ? s : api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d cannot be passed", k->f->name, i);
        }
        facts[i] = fact;
        key.facts[(unsigned)i >> 5] |= (uint64_t)fact << (((unsigned)i & 31) << 1);
        params[i] = &slots[i];
    }
    return cuda_api_launch(k, grid, &key, facts, params, opts ? opts->stream : NULL);
}

nr_status nr_launch(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int num_args,
                    const nr_launch_options *opts) {
    if (!k) return NR_ERR_INVALID_ARG;
    nr_context *ctx = k->mod->ctx;
    api_clear_error(ctx);
    if (k->tuned) return tune_launch(k, grid, NULL, NULL, args, num_args, NULL, opts);
    if (opts && opts->num_stages && !option_valid(OPT_NUM_STAGES, opts->num_stages))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': num_stages must be 0 or %s, got %d", k->f->name,
                        option_info(OPT_NUM_STAGES)->range, opts->num_stages);
    int np = k->nparams;
    if (!grid) return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': the grid must not be NULL", k->f->name);
    /* CUDA's limits, on every device, so that a grid the CPU accepts runs on a GPU too */
    static const unsigned grid_max[3] = {0x7fffffffu, 65535u, 65535u};
    for (int d = 0; d < 3; d++)
        if (grid[d] == 0 || grid[d] > grid_max[d])
            return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': grid dimension %d is %u (must be 1 to %u)", k->f->name,
                        d, grid[d], grid_max[d]);
    if (num_args != np || (np && !args))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s' takes %d argument%s, got %d", k->f->name, np, np == 1 ? "" : "s",
                    num_args);
    if (ctx->kind == NR_DEVICE_CUDA) { /* the hot path: no allocation */
        FAULT_GUARD(ctx);
        return launch_cuda(k, grid, args, np, opts);
    }
    enum { PARTS = 2 + 2 * NR_MAX_RANK };
    InterpScalar *vals = calloc((size_t)(np ? np : 1), sizeof *vals);
    int64_t *parts = calloc((size_t)(np ? np : 1) * PARTS, sizeof *parts);
    if (!vals || !parts) return free(vals), free(parts), api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < np; i++) {
        IrType t = param_type(k, i);
        nr_status s = t.dt == DT_TDESC ? check_desc_arg(k, i, &args[i], t, parts + (size_t)i * PARTS)
                                       : convert_arg(k, i, &args[i], &vals[i]);
        if (t.dt == DT_TDESC) vals[i].desc = parts + (size_t)i * PARTS;
        if (s) return free(vals), free(parts), s;
    }
    int nbufs = ctx->nallocs + ctx->nhost;
    InterpBuffer *bufs = calloc((size_t)(nbufs ? nbufs : 1), sizeof *bufs);
    if (!bufs) return free(vals), free(parts), api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < ctx->nallocs; i++) bufs[i] = (InterpBuffer){(uint64_t)(uintptr_t)ctx->allocs[i].ptr, ctx->allocs[i].size};
    for (int i = 0; i < ctx->nhost; i++)
        bufs[ctx->nallocs + i] = (InterpBuffer){(uint64_t)(uintptr_t)ctx->host[i].ptr, ctx->host[i].size};
    InterpOptions io = {bufs, nbufs, true, NULL}; /* every access checked */
    StrBuf err;
    sb_init(&err);
    int rc = interp_run(k->f, vals, grid, &io, &err);
    nr_status s = NR_OK;
    if (rc) s = api_fail(ctx, NR_ERR_LAUNCH, "%s", sb_cstr(&err));
    sb_free(&err);
    free(bufs);
    free(vals);
    free(parts);
    return s;
}

nr_status nr_synchronize(nr_context *ctx) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    if (!ctx->cuda) return NR_OK;
    api_clear_error(ctx);
    FAULT_GUARD(ctx);
    StrBuf err;
    sb_init(&err);
    nr_status s = cuda_call(ctx, cuda_synchronize(ctx->cuda, &err), &err, NR_ERR_LAUNCH);
    if (s == NR_OK) cuda_api_synchronized(ctx);
    return s;
}

/* ---- streams ---- */

static int find_stream(const nr_context *ctx, const void *stream) {
    for (int i = 0; i < ctx->nstreams; i++)
        if (ctx->streams[i] == stream) return i;
    return -1;
}

nr_status nr_stream_create(nr_context *ctx, void **out) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    if (!out) return api_fail(ctx, NR_ERR_INVALID_ARG, "out must not be NULL");
    *out = NULL;
    if (ctx->nstreams == ctx->capstreams) {
        int cap = ctx->capstreams ? ctx->capstreams * 2 : 4;
        void **ss = realloc(ctx->streams, sizeof *ss * (size_t)cap);
        if (!ss) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        ctx->streams = ss, ctx->capstreams = cap;
    }
    void *st = NULL;
    if (ctx->cuda) {
        FAULT_GUARD(ctx);
        StrBuf err;
        sb_init(&err);
        nr_status s = cuda_call(ctx, cuda_stream_create(ctx->cuda, &st, &err), &err, NR_ERR_DEVICE);
        if (s) return s;
    } else {
        st = malloc(1); /* a distinct handle; the CPU runs every launch to completion */
        if (!st) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    ctx->streams[ctx->nstreams++] = st;
    *out = st;
    return NR_OK;
}

/* Release stream i of the context (waiting for its work on CUDA). */
static nr_status release_stream(nr_context *ctx, int i) {
    void *st = ctx->streams[i];
    ctx->streams[i] = ctx->streams[--ctx->nstreams];
    if (!ctx->cuda) return free(st), NR_OK;
    StrBuf err;
    sb_init(&err);
    return cuda_call(ctx, cuda_stream_destroy(ctx->cuda, st, &err), &err, NR_ERR_LAUNCH);
}

nr_status nr_stream_destroy(nr_context *ctx, void *stream) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    int i = find_stream(ctx, stream);
    if (i < 0) return api_fail(ctx, NR_ERR_INVALID_ARG, "%p is not a stream of this context (nr_stream_create)", stream);
    return release_stream(ctx, i);
}

nr_status nr_stream_synchronize(nr_context *ctx, void *stream) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    if (!ctx->cuda) return NR_OK;
    FAULT_GUARD(ctx);
    StrBuf err;
    sb_init(&err);
    return cuda_call(ctx, cuda_stream_synchronize(ctx->cuda, stream, &err), &err, NR_ERR_LAUNCH);
}

nr_status nr_context_stats(const nr_context *ctx, nr_stats *out) {
    if (!ctx || !out) return NR_ERR_INVALID_ARG;
    *out = ctx->stats;
    return NR_OK;
}

/* ---- memory ---- */

nr_status nr_malloc(nr_context *ctx, size_t bytes, nr_devptr *out) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    if (!out) return api_fail(ctx, NR_ERR_INVALID_ARG, "out must not be NULL");
    void *p;
    if (ctx->cuda) {
        FAULT_GUARD(ctx);
        StrBuf err;
        sb_init(&err);
        uint64_t d = 0;
        nr_status s = cuda_call(ctx, cuda_malloc(ctx->cuda, bytes ? bytes : 1, &d, &err), &err, NR_ERR_OUT_OF_MEMORY);
        if (s) return s;
        p = (void *)(uintptr_t)d;
    } else {
        p = calloc(1, bytes ? bytes : 1); /* 16-byte aligned, like device memory */
    }
    if (!p) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes", bytes);
    if (ctx->nallocs == ctx->capallocs) {
        int cap = ctx->capallocs ? ctx->capallocs * 2 : 16;
        Allocation *a = realloc(ctx->allocs, sizeof *a * (size_t)cap);
        if (!a) return free(p), api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        ctx->allocs = a;
        ctx->capallocs = cap;
    }
    ctx->allocs[ctx->nallocs++] = (Allocation){p, bytes};
    *out = (nr_devptr)(uintptr_t)p;
    return NR_OK;
}

static int find_alloc(nr_context *ctx, nr_devptr p) {
    for (int i = 0; i < ctx->nallocs; i++)
        if ((nr_devptr)(uintptr_t)ctx->allocs[i].ptr == p) return i;
    return -1;
}

nr_status nr_free(nr_context *ctx, nr_devptr p) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    if (!p) return NR_OK;
    int i = find_alloc(ctx, p);
    if (i < 0) return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_free: 0x%llx was not allocated by nr_malloc", (unsigned long long)p);
    if (ctx->cuda) { /* after a fault the memory went with the context: only the record goes */
        StrBuf err;
        sb_init(&err);
        nr_status s = cuda_call(ctx, cuda_free(ctx->cuda, p, &err), &err, NR_ERR_DEVICE);
        ctx->allocs[i] = ctx->allocs[--ctx->nallocs];
        return s;
    }
    free(ctx->allocs[i].ptr);
    ctx->allocs[i] = ctx->allocs[--ctx->nallocs];
    return NR_OK;
}

nr_status api_check_range(nr_context *ctx, nr_devptr p, size_t n, const char *what) {
    for (int i = 0; i < ctx->nallocs; i++) {
        nr_devptr b = (nr_devptr)(uintptr_t)ctx->allocs[i].ptr;
        if (p >= b && p - b <= ctx->allocs[i].size && n <= ctx->allocs[i].size - (p - b)) return NR_OK;
    }
    return api_fail(ctx, NR_ERR_INVALID_ARG, "%s: [0x%llx, +%zu) is not inside memory from nr_malloc", what,
                (unsigned long long)p, n);
}

nr_status nr_memcpy_htod(nr_context *ctx, nr_devptr dst, const void *src, size_t bytes) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    if (!src && bytes) return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_memcpy_htod: NULL source");
    nr_status s = api_check_range(ctx, dst, bytes, "nr_memcpy_htod");
    if (s) return s;
    if (ctx->cuda) {
        FAULT_GUARD(ctx);
        StrBuf err;
        sb_init(&err);
        return cuda_call(ctx, cuda_htod(ctx->cuda, dst, src, bytes, &err), &err, NR_ERR_DEVICE);
    }
    if (bytes) memcpy((void *)(uintptr_t)dst, src, bytes);
    return NR_OK;
}

nr_status nr_memcpy_dtoh(nr_context *ctx, void *dst, nr_devptr src, size_t bytes) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    if (!dst && bytes) return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_memcpy_dtoh: NULL destination");
    nr_status s = api_check_range(ctx, src, bytes, "nr_memcpy_dtoh");
    if (s) return s;
    if (ctx->cuda) {
        FAULT_GUARD(ctx);
        StrBuf err;
        sb_init(&err);
        return cuda_call(ctx, cuda_dtoh(ctx->cuda, dst, src, bytes, &err), &err, NR_ERR_DEVICE);
    }
    if (bytes) memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return NR_OK;
}

nr_status nr_memset(nr_context *ctx, nr_devptr dst, int byte, size_t bytes) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    nr_status s = api_check_range(ctx, dst, bytes, "nr_memset");
    if (s) return s;
    if (ctx->cuda) {
        FAULT_GUARD(ctx);
        StrBuf err;
        sb_init(&err);
        return cuda_call(ctx, cuda_memset(ctx->cuda, dst, byte, bytes, &err), &err, NR_ERR_DEVICE);
    }
    if (bytes) memset((void *)(uintptr_t)dst, byte, bytes);
    return NR_OK;
}

/* ---- host memory on the CPU device ---- */

nr_status nr_host_register(nr_context *ctx, void *ptr, size_t bytes) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    if (ctx->kind != NR_DEVICE_CPU)
        return api_fail(ctx, NR_ERR_UNSUPPORTED, "nr_host_register: only the CPU device runs kernels on host memory");
    if (!ptr) return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_host_register: NULL pointer");
    if ((uintptr_t)ptr + bytes < (uintptr_t)ptr)
        return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_host_register: [%p, +%zu) wraps around", ptr, bytes);
    if (ctx->nhost == ctx->caphost) {
        int cap = ctx->caphost ? ctx->caphost * 2 : 8;
        Allocation *h = realloc(ctx->host, sizeof *h * (size_t)cap);
        if (!h) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        ctx->host = h, ctx->caphost = cap;
    }
    ctx->host[ctx->nhost++] = (Allocation){ptr, bytes};
    return NR_OK;
}

nr_status nr_host_unregister(nr_context *ctx, void *ptr) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    for (int i = ctx->nhost - 1; i >= 0; i--) /* the latest registration of ptr */
        if (ctx->host[i].ptr == ptr) {
            memmove(&ctx->host[i], &ctx->host[i + 1], sizeof *ctx->host * (size_t)(ctx->nhost - i - 1));
            ctx->nhost--;
            return NR_OK;
        }
    return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_host_unregister: %p was not registered", ptr);
}
