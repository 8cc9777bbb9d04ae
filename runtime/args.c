/* args.c - a launch's arguments checked against the kernel's parameters (args.h): the
 * type of each (pointer, integer, float, tensor descriptor), an integer's range, a
 * descriptor's shape and strides, each mismatch with a message that names the parameter. */
#include "args.h"

#include "compiler/support/float16.h"
#include "status.h"

IrType args_param_type(const nr_kernel *k, int i) {
    return ir_type(k->f, k->f->regions[k->f->body].args[i]);
}

nr_type args_type_tag(IrType t) {
    static const nr_type tags[DT_COUNT] = {
        [DT_I1] = NR_TYPE_I1,           [DT_I8] = NR_TYPE_I8,
        [DT_I16] = NR_TYPE_I16,         [DT_I32] = NR_TYPE_I32,
        [DT_I64] = NR_TYPE_I64,         [DT_U8] = NR_TYPE_U8,
        [DT_U16] = NR_TYPE_U16,         [DT_U32] = NR_TYPE_U32,
        [DT_U64] = NR_TYPE_U64,         [DT_FP16] = NR_TYPE_FP16,
        [DT_BF16] = NR_TYPE_BF16,       [DT_FP32] = NR_TYPE_FP32,
        [DT_FP64] = NR_TYPE_FP64,       [DT_FP8E4NV] = NR_TYPE_FP8E4NV,
        [DT_FP8E5] = NR_TYPE_FP8E5,     [DT_FP8E4B15] = NR_TYPE_FP8E4B15,
        [DT_FP8E4B8] = NR_TYPE_FP8E4B8, [DT_FP8E5B16] = NR_TYPE_FP8E5B16,
        [DT_PTR] = NR_TYPE_PTR};
    return t.dt == DT_TDESC ? NR_TYPE_TENSOR_DESC : tags[t.dt];
}

static const char *tag_name(nr_type t) {
    if (t == NR_TYPE_TENSOR_DESC) return "a tensor descriptor";
    static const char *const names[] = {"pointer", "i1",       "i8",      "i16",     "i32",
                                        "i64",     "u8",       "u16",     "u32",     "u64",
                                        "fp16",    "bf16",     "fp32",    "fp64",    "fp8e4nv",
                                        "fp8e5",   "fp8e4b15", "fp8e4b8", "fp8e5b16"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "an unknown type";
}

bool args_is_int_tag(nr_type t) { return t >= NR_TYPE_I1 && t <= NR_TYPE_U64; }
bool args_is_float_tag(nr_type t) { return t >= NR_TYPE_FP16 && t <= NR_TYPE_FP64; }

/* An integer argument fits its parameter if its value is representable there. */
static bool int_fits(const nr_arg *a, int dt) {
    bool sgn = a->type <= NR_TYPE_I64;
    int bits = dt_bits(dt);
    if (sgn) {
        int64_t v = a->v.i;
        if (dt == DT_I1) return v == 0 || v == 1;
        if (dt_is_signed(dt))
            return bits == 64 ||
                   (v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1)));
        return v >= 0 && (bits == 64 || (uint64_t)v < (UINT64_C(1) << bits));
    }
    uint64_t v = a->v.u;
    if (dt == DT_I1) return v <= 1;
    if (dt_is_signed(dt)) return v < (UINT64_C(1) << (bits - 1));
    return bits == 64 || v < (UINT64_C(1) << bits);
}

/* A tensor descriptor argument checked against its parameter t; its parts (desc_part's
 * numbering: base, sizes, strides, padding) go to parts when it is not NULL. */
nr_status args_check_desc(nr_kernel *k, int i, const nr_arg *a, IrType t, int64_t *parts) {
    const char *name = k->f->param_names[i] ? k->f->param_names[i] : "?";
    nr_context *ctx = k->mod->ctx;
    char ty[64];
    ty_str(t, ty, sizeof ty);
    if (a->type != NR_TYPE_TENSOR_DESC || !a->v.desc)
        return api_fail(ctx, NR_ERR_INVALID_ARG,
                        "kernel '%s': argument %d ('%s') is a tensor descriptor (%s), got %s",
                        k->f->name, i, name, ty,
                        a->type == NR_TYPE_TENSOR_DESC ? "a NULL descriptor" : tag_name(a->type));
    const nr_tensor_desc *d = a->v.desc;
    if (d->rank != t.rank)
        return api_fail(
            ctx, NR_ERR_INVALID_ARG,
            "kernel '%s': argument %d ('%s'): the descriptor has rank %d, the parameter "
            "(%s) rank %d",
            k->f->name, i, name, d->rank, ty, t.rank);
    for (int r = 0; r < t.rank; r++)
        if (d->shape[r] < 0)
            return api_fail(ctx, NR_ERR_INVALID_ARG,
                            "kernel '%s': argument %d ('%s'): shape[%d] is %lld (must be >= 0)",
                            k->f->name, i, name, r, (long long)d->shape[r]);
    if (d->strides[t.rank - 1] != 1)
        return api_fail(ctx, NR_ERR_INVALID_ARG,
                        "kernel '%s': argument %d ('%s'): the last stride must be 1 (the last dim "
                        "contiguous, as in Triton), got %lld",
                        k->f->name, i, name, (long long)d->strides[t.rank - 1]);
    if (d->padding != NR_PAD_ZERO && d->padding != NR_PAD_NAN)
        return api_fail(
            ctx, NR_ERR_INVALID_ARG,
            "kernel '%s': argument %d ('%s'): padding must be NR_PAD_ZERO or NR_PAD_NAN, "
            "got %d",
            k->f->name, i, name, d->padding);
    if (d->padding == NR_PAD_NAN && !dt_is_float(t.pointee))
        return api_fail(ctx, NR_ERR_INVALID_ARG,
                        "kernel '%s': argument %d ('%s'): NaN padding needs a float element type, "
                        "not %s",
                        k->f->name, i, name, dt_name(t.pointee));
    if (parts) {
        parts[0] = (int64_t)d->base;
        for (int r = 0; r < t.rank; r++)
            parts[1 + r] = d->shape[r], parts[1 + t.rank + r] = d->strides[r];
        parts[1 + 2 * t.rank] = d->padding;
    }
    return NR_OK;
}

nr_status args_convert(nr_kernel *k, int i, const nr_arg *a, InterpScalar *out) {
    IrType t = args_param_type(k, i);
    const char *name = k->f->param_names[i] ? k->f->param_names[i] : "?";
    nr_context *ctx = k->mod->ctx;
    if (t.dt == DT_TDESC) return args_check_desc(k, i, a, t, NULL);
    if (t.dt == DT_PTR) {
        if (a->type != NR_TYPE_PTR)
            return api_fail(ctx, NR_ERR_INVALID_ARG,
                            "kernel '%s': argument %d ('%s') is a pointer (*%s), got %s",
                            k->f->name, i, name, dt_name(t.pointee), tag_name(a->type));
        out->u = a->v.u;
        return NR_OK;
    }
    if (dt_is_int(t.dt)) {
        if (!args_is_int_tag(a->type))
            return api_fail(ctx, NR_ERR_INVALID_ARG,
                            "kernel '%s': argument %d ('%s') is %s, got %s", k->f->name, i, name,
                            dt_name(t.dt), tag_name(a->type));
        if (!int_fits(a, t.dt))
            return api_fail(ctx, NR_ERR_INVALID_ARG,
                            "kernel '%s': argument %d ('%s') does not fit in %s", k->f->name, i,
                            name, dt_name(t.dt));
        out->i = a->v.i;
        return NR_OK;
    }
    if (!args_is_float_tag(a->type))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s') is %s, got %s",
                        k->f->name, i, name, dt_name(t.dt), tag_name(a->type));
    double f = a->v.f;
    out->f = t.dt == DT_FP32   ? (double)(float)f
             : t.dt == DT_FP16 ? fp16_round(f)
             : t.dt == DT_BF16 ? bf16_round(f)
                               : f;
    return NR_OK;
}
