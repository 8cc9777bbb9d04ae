/* sema_builtins.c - the language's builtin functions (Triton's tl.* and the Python
 * builtins kernels use), each with its Triton signature so keyword arguments bind as in
 * Triton. A builtin checks its operands, applies Triton's typing and broadcasting, and
 * emits IR. Random numbers, cdiv and sigmoid are not here: they are written in the
 * language itself (lang/stdlib). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/passes/rewrite.h"
#include "compiler/support/options.h"
#include "pyexpr.h"
#include "sema_internal.h"

enum { MAXP = 10 };

typedef struct BArgs {
    Val v[MAXP];
    bool given[MAXP];
    Loc loc[MAXP];
    Loc call;
    const char *name;
} BArgs;

typedef Val (*BFn)(Sema *S, BArgs *a);

typedef struct Builtin {
    const char *name;   /* the name as the user calls it */
    const char *params; /* "pointer,mask=,other=": '=' optional, '*' collects the rest */
    BFn fn;
    unsigned flags;
} Builtin;

enum { BF_PY = 1, BF_METHOD = 2 };

/* ---- small helpers ---- */

static bool has(BArgs *a, int i) { return a->given[i] && a->v[i].k != V_NONE; }

static Val need_block(Sema *S, BArgs *a, int i) {
    Val v = a->v[i];
    if (v.k == V_IR) return v;
    if (sema_val_is_const(v)) return sema_val_ir(S, sema_to_ir(S, v, a->loc[i]));
    sema_error(S, a->loc[i], "%s: expected a block or scalar, got %s", a->name,
               sema_val_kind_name(S, v));
}

static int64_t need_int(Sema *S, BArgs *a, int i) {
    Val v = a->v[i];
    if (v.k != V_INT && v.k != V_BOOL)
        sema_error(S, a->loc[i], "%s: expected a compile-time integer, got %s", a->name,
                   sema_val_kind_name(S, v));
    return v.i;
}

static IrType need_dtype(Sema *S, BArgs *a, int i) {
    Val v = a->v[i];
    if (v.k == V_STR) { /* tl.zeros(..., dtype="fp32") is not Triton, but harmless */
        int dt = sema_dtype_from_name(v.s);
        if (dt != DT_VOID) return ty_scalar(dt);
        sema_check_dtype_name(S, v.s, a->loc[i]);
    }
    if (v.k != V_DTYPE)
        sema_error(S, a->loc[i], "%s: expected a dtype such as tl.float32, got %s", a->name,
                   sema_val_kind_name(S, v));
    return ty_elem(v.ty); /* a block_type (x.type) names its element type, as Triton's .scalar */
}

/* A shape: an int, or a tuple/list of ints (varargs arrive as a tuple). */
static int need_shape(Sema *S, Val v, Loc loc, const char *what, int64_t *dims) {
    if (v.k == V_TUPLE && v.n == 1 && v.items[0].k == V_TUPLE) v = v.items[0];
    if (v.k == V_INT) {
        dims[0] = v.i;
        sema_check_shape(S, loc, 1, dims);
        return 1;
    }
    if (v.k != V_TUPLE)
        sema_error(S, loc, "%s: expected a shape (a tuple of constant ints), got %s", what,
                   sema_val_kind_name(S, v));
    if (v.n > NR_MAX_RANK)
        sema_error(S, loc, "%s: blocks have at most %d dimensions", what, NR_MAX_RANK);
    for (int i = 0; i < v.n; i++) {
        if (v.items[i].k != V_INT)
            sema_error(S, loc, "%s: shape dimensions must be compile-time integers, got %s", what,
                       sema_val_kind_name(S, v.items[i]));
        dims[i] = v.items[i].i;
    }
    sema_check_shape(S, loc, v.n, dims);
    return v.n;
}

static IrType shape_type(IrType elem, int rank, const int64_t *dims) {
    int32_t s[NR_MAX_RANK];
    for (int i = 0; i < rank; i++) s[i] = (int32_t)dims[i];
    return ty_block(elem, rank, s);
}

/* An op of n operands and nres results, at loc, in the builder's region. */
static OpId build_op(Sema *S, int code, const ValId *ops, int n, const IrType *tys, int nres,
                     Loc loc) {
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    OpId op = ir_build(sema_builder(S), code, ops, (uint32_t)n, tys, (uint32_t)nres);
    sema_builder(S)->loc = saved;
    return op;
}

static ValId build(Sema *S, int code, const ValId *ops, int n, IrType ty, Loc loc, OpId *op_out) {
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    OpId op = ir_build(sema_builder(S), code, ops, (uint32_t)n, &ty, 1);
    sema_builder(S)->loc = saved;
    if (op_out) *op_out = op;
    return ir_result(sema_func(S), op, 0);
}

static Val ir1(Sema *S, int code, ValId x, IrType ty, Loc loc) {
    return sema_val_ir(S, build(S, code, &x, 1, ty, loc, NULL));
}

static ValId broadcast_to_shape_of(Sema *S, ValId v, IrType shape, Loc loc) {
    return sema_emit_broadcast(S, v, shape, loc);
}

/* ---- program structure ---- */

static Val b_program_id(Sema *S, BArgs *a) {
    int64_t axis = need_int(S, a, 0);
    if (axis < 0 || axis > 2)
        sema_error(S, a->loc[0], "%s axis must be 0, 1, or 2 but got %lld", a->name,
                   (long long)axis); /* Triton's words */
    OpId op;
    build(S, !strcmp(a->name, "program_id") ? OP_PROGRAM_ID : OP_NUM_PROGRAMS, NULL, 0,
          ty_scalar(DT_I32), a->call, &op);
    sema_func(S)->ops[op].attr[0] = axis;
    return sema_val_ir(S, ir_result(sema_func(S), op, 0));
}

static Val b_arange(Sema *S, BArgs *a) {
    for (int i = 0; i < 2; i++)
        if (a->v[i].k != V_INT)
            sema_error(S, a->loc[i],
                       "arange bounds must be compile-time integers (tl.constexpr), got %s",
                       sema_val_kind_name(S, a->v[i]));
    int64_t lo = a->v[0].i, hi = a->v[1].i;
    if (lo < INT32_MIN || hi > INT32_MAX) sema_error(S, a->call, "arange bounds must fit in int32");
    if (hi <= lo)
        sema_error(S, a->call, "arange(%lld, %lld): the end must be greater than the start",
                   (long long)lo, (long long)hi);
    int64_t n = hi - lo;
    if (n & (n - 1))
        sema_error(S, a->call,
                   "arange(%lld, %lld) has %lld elements: the count must be a power of two",
                   (long long)lo, (long long)hi, (long long)n);
    if (n > NR_MAX_NUMEL)
        sema_error(S, a->call, "arange has %lld elements, more than the limit of 2^20",
                   (long long)n);
    int32_t s = (int32_t)n;
    OpId op;
    build(S, OP_ARANGE, NULL, 0, ty_block(ty_scalar(DT_I32), 1, &s), a->call, &op);
    sema_func(S)->ops[op].attr[0] = lo;
    sema_func(S)->ops[op].attr[1] = hi;
    return sema_val_ir(S, ir_result(sema_func(S), op, 0));
}

static Val b_full(Sema *S, BArgs *a) {
    bool zeros = !strcmp(a->name, "zeros");
    int64_t dims[NR_MAX_RANK];
    int rank = need_shape(S, a->v[0], a->loc[0], a->name, dims);
    IrType dt = need_dtype(S, a, zeros ? 1 : 2);
    if (dt.dt == DT_PTR) sema_error(S, a->call, "%s: cannot fill a block of pointers", a->name);
    IrType ty = shape_type(dt, rank, dims);
    Val value = zeros ? sema_val_int(0) : a->v[1];
    if (sema_val_is_const(value)) return sema_val_ir(S, sema_emit_const(S, ty, value, a->call));
    if (value.k != V_IR || value.ty.rank)
        sema_error(S, a->loc[1], "tl.full: the value must be a scalar");
    ValId x = sema_emit_cast(S, value.v, dt, false, a->loc[1]);
    return sema_val_ir(S, sema_emit_broadcast(S, x, ty, a->call));
}

static Val b_zeros_like(Sema *S, BArgs *a) {
    Val x = need_block(S, a, 0);
    IrType dt = has(a, 1) ? need_dtype(S, a, 1) : ty_elem(x.ty);
    return sema_val_ir(S, sema_emit_const(S, ty_with_elem(x.ty, dt), sema_val_int(0), a->call));
}

/* ---- memory ---- */

static Val need_pointer(Sema *S, BArgs *a, int i) {
    Val p = a->v[i];
    if (p.k != V_IR || p.ty.dt != DT_PTR)
        sema_error(S, a->loc[i], "%s: expected a pointer or a block of pointers, got %s", a->name,
                   sema_val_kind_name(S, p));
    return p;
}

static ValId need_mask(Sema *S, BArgs *a, int i) {
    Val m = a->v[i];
    if (m.k == V_BOOL) return sema_emit_const(S, ty_scalar(DT_I1), m, a->loc[i]);
    if (m.k != V_IR || m.ty.dt != DT_I1)
        sema_error(S, a->loc[i], "%s: the mask must be a boolean (i1) block, got %s", a->name,
                   sema_val_kind_name(S, m));
    return m.v;
}

static IrType shape3(Sema *S, ValId x, ValId y, ValId z, Loc loc) {
    IrType s = ir_type(sema_func(S), x);
    if (y) s = sema_broadcast_shape(S, s, ir_type(sema_func(S), y), loc);
    if (z) s = sema_broadcast_shape(S, s, ir_type(sema_func(S), z), loc);
    return s;
}

/* padding_option: "" or None (masked-off lanes read 0, as Nereid's masked loads do),
 * "zero" or "nan" (floats only); the value for `other`, or none. */
static Val padding(Sema *S, BArgs *a, int i, int dt) {
    Val v = a->v[i];
    if (v.k == V_NONE || (v.k == V_STR && (!*v.s || !strcmp(v.s, "zero")))) return sema_val_int(0);
    if (v.k == V_STR && !strcmp(v.s, "nan")) {
        if (!dt_is_float(dt))
            sema_error(S, a->loc[i],
                       "tl.%s: padding_option \"nan\" needs a float element type, got %s", a->name,
                       dt_name(dt));
        return sema_val_float(NAN);
    }
    if (v.k == V_STR)
        sema_error(S, a->loc[i], "tl.%s: padding_option must be \"zero\" or \"nan\", got \"%s\"",
                   a->name, v.s);
    sema_error(S, a->loc[i], "tl.%s: padding_option must be \"zero\" or \"nan\", got %s", a->name,
               sema_val_kind_name(S, v));
}

/* tl.load / tl.store through a block pointer: mask and other are the block pointer's. */
static bool block_ptr_arg(Sema *S, BArgs *a) {
    Val p = a->v[0];
    if (p.k != V_TUPLE || !p.tag) return false;
    if (p.tag == TAG_TENSOR_DESC)
        sema_error(S, a->loc[0],
                   "tl.%s: a tensor descriptor is accessed with desc.%s(offsets%s), not tl.%s",
                   a->name, a->name, !strcmp(a->name, "store") ? ", value" : "", a->name);
    return true;
}

/* A value stored through a block pointer or a tensor descriptor: a scalar is broadcast,
 * a block must have the block's shape and, through a block pointer, its element type (as
 * in Triton); a descriptor's store and atomics (convert) convert it to the element type,
 * as Triton's descriptor_store does. */
static ValId block_value(Sema *S, Val v, IrType block, const char *fn, Loc loc, bool convert) {
    int dt = block.dt;
    if (v.k == V_IR && v.ty.rank) {
        char buf[96];
        if (!ty_equal(ty_with_elem(v.ty, ty_scalar(dt)), block))
            sema_error(S, loc, "%s: the value is %s, not of the block's shape %s", fn,
                       sema_val_kind_name(S, v), ty_str(block, buf, sizeof buf));
        if (v.ty.dt != dt && convert) {
            if (v.ty.dt == DT_PTR || dt == DT_PTR)
                sema_error(S, loc, "%s: cannot convert %s to %s", fn, sema_val_kind_name(S, v),
                           ty_str(block, buf, sizeof buf));
            return sema_emit_cast(S, v.v, ty_scalar(dt), false, loc);
        }
        if (v.ty.dt != dt)
            sema_error(
                S, loc,
                "%s: the value's element type %s is not the block's %s (convert it with .to())", fn,
                dt_name(v.ty.dt), dt_name(dt));
        return v.v;
    }
    if (v.k != V_IR && !sema_val_is_const(v))
        sema_error(S, loc, "%s: cannot store %s", fn, sema_val_kind_name(S, v));
    return sema_emit_broadcast(S, sema_to_ir_dt(S, v, dt, loc), block, loc);
}

static Val load_block(Sema *S, BArgs *a, ValId ptrs, ValId mask, IrType block, int pad_arg,
                      OpId *op_out) {
    ValId ops[3] = {ptrs, 0, 0};
    int n = 1;
    if (mask) {
        ops[n++] = mask;
        Val pad = pad_arg >= 0 ? padding(S, a, pad_arg, block.dt) : sema_val_int(0);
        ops[n++] = sema_emit_const(S, block, pad, a->call);
    }
    return sema_val_ir(S, build(S, OP_LOAD, ops, n, block, a->call, op_out));
}

static OpId store_block(Sema *S, BArgs *a, ValId ptrs, ValId val, ValId mask) {
    ValId ops[3] = {ptrs, val, mask};
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = a->call;
    OpId op = ir_build(sema_builder(S), OP_STORE, ops, mask ? 3 : 2, NULL, 0);
    sema_builder(S)->loc = saved;
    return op;
}

/* cache_modifier= (argument i) and eviction_policy= (i + 1) of tl.load / tl.store: the
 * strings Triton's semantic.py takes ("" or None: none), with its messages; on the op as
 * attrs cache and evict (performance hints: ir_ops.def). */
static void mem_hints(Sema *S, BArgs *a, int i, bool store, OpId op) {
    static const char *const caches[2][5] = {{"", ".ca", ".cg", ".cv", NULL},
                                             {"", ".wb", ".cg", ".cs", ".wt"}};
    static const char *const evicts[3] = {"", "evict_first", "evict_last"};
    for (int k = 0; k < 2; k++) {
        if (!has(a, i + k) || a->v[i + k].k == V_NONE) continue;
        const Val *v = &a->v[i + k];
        const char *const *names = k ? evicts : caches[store];
        int n = k ? 3 : store ? 5 : 4, e = -1;
        for (int j = 0; v->k == V_STR && j < n; j++)
            if (!strcmp(v->s, names[j])) e = j;
        if (e < 0 && k)
            sema_error(S, a->loc[i + k],
                       "tl.%s: Eviction policy %s not supported (expected '', 'evict_first' or "
                       "'evict_last')",
                       store ? "store" : "load", v->k == V_STR ? v->s : sema_val_kind_name(S, *v));
        if (e < 0)
            sema_error(S, a->loc[i + k], "tl.%s: Cache modifier %s not supported (expected %s)",
                       store ? "store" : "load", v->k == V_STR ? v->s : sema_val_kind_name(S, *v),
                       store ? "'', '.wb', '.cg', '.cs' or '.wt'" : "'', '.ca', '.cg' or '.cv'");
        sema_func(S)->ops[op].attr[k] = e;
    }
}

static Val b_load(Sema *S, BArgs *a) {
    if (block_ptr_arg(S, a)) {
        for (int i = 1; i <= 2; i++)
            if (has(a, i))
                sema_error(S, a->loc[i],
                           "tl.load: a block pointer's load takes no '%s': its bounds are checked "
                           "with boundary_check",
                           i == 1 ? "mask" : "other");
        Val bp = a->v[0];
        if (has(a, 4) && !has(a, 3)) (void)padding(S, a, 4, bp.ty.dt);
        ValId ptrs, mask;
        sema_block_ptr_address(S, "tl.load", bp, NULL, a->loc[0], a->v[3], a->loc[3], a->call,
                               &ptrs, &mask);
        OpId op;
        Val r = load_block(S, a, ptrs, mask, bp.ty, 4, &op);
        mem_hints(S, a, 5, false, op);
        return r;
    }
    Val p = need_pointer(S, a, 0);
    ValId mask = has(a, 1) ? need_mask(S, a, 1) : 0, other = 0;
    IrType elem = ty_scalar(p.ty.pointee);
    if (has(a, 2)) {
        if (!mask) sema_error(S, a->loc[2], "tl.load: 'other' needs a 'mask'");
        other = sema_to_ir_dt(S, a->v[2], elem.dt, a->loc[2]);
    }
    for (int i = 3; i <= 4; i++)
        if (has(a, i) && !(a->v[i].k == V_TUPLE && a->v[i].n == 0) &&
            !(a->v[i].k == V_STR && !*a->v[i].s))
            sema_error(S, a->loc[i],
                       "tl.load: %s applies to block pointers (tl.make_block_ptr); bound a block "
                       "of pointers with a mask",
                       i == 3 ? "boundary_check" : "padding_option");
    IrType s = shape3(S, p.v, mask, other, a->call);
    ValId ops[3] = {sema_emit_broadcast(S, p.v, s, a->call), 0, 0};
    int n = 1;
    if (mask) ops[n++] = sema_emit_broadcast(S, mask, s, a->call);
    if (other) ops[n++] = sema_emit_broadcast(S, other, s, a->call);
    OpId op;
    Val r = sema_val_ir(S, build(S, OP_LOAD, ops, n, ty_with_elem(s, elem), a->call, &op));
    mem_hints(S, a, 5, false, op);
    return r;
}

static Val b_store(Sema *S, BArgs *a) {
    sema_check_writable(S, a->v[0], a->loc[0]);
    if (block_ptr_arg(S, a)) {
        if (has(a, 2))
            sema_error(S, a->loc[2],
                       "tl.store: a block pointer's store takes no 'mask': its bounds are checked "
                       "with boundary_check");
        Val bp = a->v[0];
        ValId val = block_value(S, a->v[1], bp.ty, "tl.store", a->loc[1], false);
        ValId ptrs, mask;
        sema_block_ptr_address(S, "tl.store", bp, NULL, a->loc[0], a->v[3], a->loc[3], a->call,
                               &ptrs, &mask);
        mem_hints(S, a, 4, true, store_block(S, a, ptrs, val, mask));
        return sema_val_none();
    }
    Val p = need_pointer(S, a, 0);
    IrType elem = ty_scalar(p.ty.pointee);
    Val v = a->v[1];
    if (v.k != V_IR && !sema_val_is_const(v))
        sema_error(S, a->loc[1], "tl.store: cannot store %s", sema_val_kind_name(S, v));
    /* as Triton's store, the value is cast to the element type: a block of pointers stored
     * into 64-bit integers is their addresses (semantic.cast's ptr_to_int) */
    ValId val = v.k == V_IR && v.ty.dt == DT_PTR && elem.dt != DT_PTR
                    ? sema_emit_ptr_cast(S, v.v, elem, a->loc[1])
                    : sema_to_ir_dt(S, v, elem.dt, a->loc[1]);
    ValId mask = has(a, 2) ? need_mask(S, a, 2) : 0;
    if (has(a, 3) && !(a->v[3].k == V_TUPLE && a->v[3].n == 0))
        sema_error(S, a->loc[3],
                   "tl.store: boundary_check applies to block pointers (tl.make_block_ptr); bound "
                   "a block of pointers with a mask");
    IrType s = shape3(S, p.v, val, mask, a->call);
    ValId ops[3] = {sema_emit_broadcast(S, p.v, s, a->call),
                    sema_emit_broadcast(S, val, s, a->call), 0};
    if (mask) ops[2] = sema_emit_broadcast(S, mask, s, a->call);
    mem_hints(S, a, 4, true, store_block(S, a, ops[0], ops[1], ops[2]));
    return sema_val_none();
}

/* ---- block pointers and tensor descriptors (lowered in sema_blockptr.c) ---- */

static Val b_make_block_ptr(Sema *S, BArgs *a) {
    return sema_block_ptr_make(S, a->v, a->loc, a->call);
}

static Val b_advance(Sema *S, BArgs *a) {
    return sema_block_ptr_advance(S, a->v[0], a->v[1], a->loc[0], a->loc[1]);
}

static Val b_make_tensor_desc(Sema *S, BArgs *a) {
    return sema_tensor_desc_make(S, a->v, a->loc, a->call);
}

static Val need_desc(Sema *S, BArgs *a) {
    Val d = a->v[0];
    if (sema_is_host_desc(d)) return d;
    if (d.k != V_TUPLE || d.tag != TAG_TENSOR_DESC)
        sema_error(S, a->loc[0],
                   "%s: expected a tensor descriptor (tl.make_tensor_descriptor), got %s", a->name,
                   sema_val_kind_name(S, d));
    return d;
}

static Val b_desc_load(Sema *S, BArgs *a) {
    Val d = need_desc(S, a);
    if (sema_is_host_desc(d))
        return sema_host_desc_access(S, "desc.load", d, a->v[1], a->loc[1], 0, a->call);
    ValId ptrs, mask;
    sema_block_ptr_address(S, "desc.load", d, &a->v[1], a->loc[1], sema_val_none(), a->call,
                           a->call, &ptrs, &mask);
    ValId ops[3] = {ptrs, mask,
                    sema_emit_const(S, d.ty, d.i ? sema_val_float(NAN) : sema_val_int(0), a->call)};
    return sema_val_ir(S, build(S, OP_LOAD, ops, 3, d.ty, a->call, NULL));
}

static Val b_desc_store(Sema *S, BArgs *a) {
    Val d = need_desc(S, a);
    if (sema_is_host_desc(d)) {
        IrType tile = ty_block(ty_scalar(d.ty.pointee), d.ty.rank, d.ty.shape);
        return sema_host_desc_access(S, "desc.store", d, a->v[1], a->loc[1],
                                     block_value(S, a->v[2], tile, "desc.store", a->loc[2], true),
                                     a->call);
    }
    ValId val = block_value(S, a->v[2], d.ty, "desc.store", a->loc[2], true);
    ValId ptrs, mask;
    sema_block_ptr_address(S, "desc.store", d, &a->v[1], a->loc[1], sema_val_none(), a->call,
                           a->call, &ptrs, &mask);
    store_block(S, a, ptrs, val, mask);
    return sema_val_none();
}

static void atomic_order(Sema *S, BArgs *a, int i, OpId op) {
    static const char *const what[2] = {"sem", "scope"};
    static const char *const lists[2] = {"'acq_rel', 'acquire', 'release' or 'relaxed'",
                                         "'gpu', 'cta' or 'sys'"};
    IrOp *o = &sema_func(S)->ops[op];
    int slot = ir_atomic_sem_slot(o->code);
    for (int k = 0; k < 2; k++) {
        if (!has(a, i + k) || a->v[i + k].k == V_NONE) continue;
        const Val *v = &a->v[i + k];
        int e = v->k == V_STR
                    ? ir_attr_enum_value(k ? IR_ATTR_SCOPE : IR_ATTR_SEM, v->s, strlen(v->s))
                    : -1;
        if (e < 0) sema_error(S, a->loc[i + k], "%s: %s must be %s", a->name, what[k], lists[k]);
        sema_func(S)->ops[op].attr[slot + k] = e;
    }
}

static Val atomic(Sema *S, BArgs *a, int kind) {
    Val p = need_pointer(S, a, 0);
    IrType elem = ty_scalar(p.ty.pointee);
    if (dt_is_fp8(elem.dt))
        sema_error(S, a->call, "%s: atomics on %s are not supported (as in Triton)", a->name,
                   dt_name(elem.dt));
    /* Triton's atom_red_typechecking: no integers narrower than 32 bits, fp16 and bf16
     * for atomic_add only */
    if ((dt_is_int(elem.dt) && dt_bits(elem.dt) < 32) ||
        ((elem.dt == DT_FP16 || elem.dt == DT_BF16) && kind != RMW_ADD))
        sema_error(S, a->call, "%s: atomics on %s are not supported (as in Triton)", a->name,
                   dt_name(elem.dt));
    if (dt_is_float(elem.dt) && kind >= RMW_AND)
        sema_error(S, a->call, "%s: bitwise atomics need integers", a->name);
    ValId val = sema_to_ir_dt(S, a->v[1], elem.dt, a->loc[1]);
    ValId mask = has(a, 2) ? need_mask(S, a, 2) : 0;
    IrType s = shape3(S, p.v, val, mask, a->call);
    ValId ops[3] = {sema_emit_broadcast(S, p.v, s, a->call),
                    sema_emit_broadcast(S, val, s, a->call), 0};
    int n = 2;
    if (mask) ops[n++] = sema_emit_broadcast(S, mask, s, a->call);
    OpId op;
    ValId r = build(S, OP_ATOMIC_RMW, ops, n, ty_with_elem(s, elem), a->call, &op);
    sema_func(S)->ops[op].attr[0] = kind;
    atomic_order(S, a, 3, op);
    return sema_val_ir(S, r);
}

/* sem= and scope= (arguments i and i + 1) into the atomic's attrs: Triton's names, None or
 * absent for its defaults (acq_rel, gpu). */
static Val b_atomic(Sema *S, BArgs *a) {
    sema_check_writable(S, a->v[0], a->loc[0]);
    static const struct {
        const char *n;
        int k;
    } kinds[] = {{"atomic_add", RMW_ADD},   {"atomic_max", RMW_MAX}, {"atomic_min", RMW_MIN},
                 {"atomic_xchg", RMW_XCHG}, {"atomic_and", RMW_AND}, {"atomic_or", RMW_OR},
                 {"atomic_xor", RMW_XOR}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (!strcmp(a->name, kinds[i].n)) return atomic(S, a, kinds[i].k);
    NR_DIE("unknown atomic %s", a->name);
}

/* desc.atomic_add(offsets, value), ..._min, _max, _and, _or, _xor: Triton's descriptor
 * reductions, as the masked atomics on the tile's pointer block (out-of-bounds elements
 * untouched), with Triton's element types (its sm_90 set, what cp.reduce.async.bulk.tensor
 * takes: fp16 and bf16 min/max included, which the GPU does as a compare-and-swap loop,
 * PTX's scalar atom having no 16-bit float min/max). A host descriptor's base, sizes and
 * strides are read with desc_part. Returns nothing, as Triton's. */
static Val b_desc_atomic(Sema *S, BArgs *a) {
    static const struct {
        const char *n;
        int k;
        const char *types;
        int dts[6];
    } kinds[] = {
        {"desc.atomic_add",
         RMW_ADD,
         "u32, i32, u64, fp32, fp16 or bf16",
         {DT_U32, DT_I32, DT_U64, DT_FP32, DT_FP16, DT_BF16}},
        {"desc.atomic_min",
         RMW_MIN,
         "u32, i32, u64, i64, fp16 or bf16",
         {DT_U32, DT_I32, DT_U64, DT_I64, DT_FP16, DT_BF16}},
        {"desc.atomic_max",
         RMW_MAX,
         "u32, i32, u64, i64, fp16 or bf16",
         {DT_U32, DT_I32, DT_U64, DT_I64, DT_FP16, DT_BF16}},
        {"desc.atomic_and", RMW_AND, "u32, i32, u64 or i64", {DT_U32, DT_I32, DT_U64, DT_I64}},
        {"desc.atomic_or", RMW_OR, "u32, i32, u64 or i64", {DT_U32, DT_I32, DT_U64, DT_I64}},
        {"desc.atomic_xor", RMW_XOR, "u32, i32, u64 or i64", {DT_U32, DT_I32, DT_U64, DT_I64}}};
    size_t w = 0;
    while (strcmp(kinds[w].n, a->name)) w++;
    Val d = need_desc(S, a);
    bool host = sema_is_host_desc(d);
    IrType tile = host ? ty_block(ty_scalar(d.ty.pointee), d.ty.rank, d.ty.shape) : d.ty;
    bool ok = false;
    for (int i = 0; i < 6; i++) ok |= kinds[w].dts[i] == tile.dt && tile.dt != DT_VOID;
    if (!ok)
        sema_error(S, a->call, "%s: a descriptor's %s takes %s elements (as Triton's), got %s",
                   a->name, a->name + 5, kinds[w].types, dt_name(tile.dt));
    ValId val = block_value(S, a->v[2], tile, a->name, a->loc[2], true);
    if (host) d = sema_host_desc_tuple(S, d, a->call);
    ValId ptrs, mask;
    sema_block_ptr_address(S, a->name, d, &a->v[1], a->loc[1], sema_val_none(), a->call, a->call,
                           &ptrs, &mask);
    ValId ops[3] = {ptrs, val, mask};
    OpId op;
    build(S, OP_ATOMIC_RMW, ops, mask ? 3 : 2, tile, a->call, &op);
    sema_func(S)->ops[op].attr[0] = kinds[w].k;
    return sema_val_none();
}

static Val b_atomic_cas(Sema *S, BArgs *a) {
    sema_check_writable(S, a->v[0], a->loc[0]);
    Val p = need_pointer(S, a, 0);
    IrType elem = ty_scalar(p.ty.pointee);
    /* any 16, 32 or 64-bit element, compared bit for bit (Triton: atom.cas.b16/b32/b64) */
    if (elem.dt == DT_I1 || dt_is_fp8(elem.dt) || dt_bits(elem.dt) < 16)
        sema_error(S, a->call, "tl.atomic_cas needs 16, 32 or 64-bit elements, got %s",
                   dt_name(elem.dt));
    ValId cmp = sema_to_ir_dt(S, a->v[1], elem.dt, a->loc[1]),
          val = sema_to_ir_dt(S, a->v[2], elem.dt, a->loc[2]);
    IrType s = shape3(S, p.v, cmp, val, a->call);
    ValId ops[3] = {sema_emit_broadcast(S, p.v, s, a->call),
                    sema_emit_broadcast(S, cmp, s, a->call),
                    sema_emit_broadcast(S, val, s, a->call)};
    OpId op;
    ValId r = build(S, OP_ATOMIC_CAS, ops, 3, ty_with_elem(s, elem), a->call, &op);
    atomic_order(S, a, 3, op);
    return sema_val_ir(S, r);
}

/* ---- elementwise ---- */

static int promote2(Sema *S, Val x, Val y, bool div, Loc loc) {
    return sema_computation_dtype(S, sema_type_of(x), sema_weak(x), sema_type_of(y), sema_weak(y),
                                  div, loc);
}

static Val b_where(Sema *S, BArgs *a) {
    ValId c = sema_to_i1(S, a->v[0], a->loc[0]);
    Val x = a->v[1], y = a->v[2];
    for (int i = 1; i < 3; i++)
        if (a->v[i].k != V_IR && !sema_val_is_const(a->v[i]))
            sema_error(S, a->loc[i], "tl.where: expected a block or a number, got %s",
                       sema_val_kind_name(S, a->v[i]));
    ValId vx, vy;
    if (sema_type_of(x).dt == DT_PTR || sema_type_of(y).dt == DT_PTR) {
        if (x.k != V_IR || y.k != V_IR || !ty_equal(ty_elem(x.ty), ty_elem(y.ty)))
            sema_error(S, a->call, "tl.where: both values must be pointers of one type");
        vx = x.v, vy = y.v;
    } else {
        int dt = promote2(S, x, y, false, a->call);
        sema_check_weak_range(S, x, dt, a->loc[1]);
        sema_check_weak_range(S, y, dt, a->loc[2]);
        vx = sema_to_ir_dt(S, x, dt, a->loc[1]);
        vy = sema_to_ir_dt(S, y, dt, a->loc[2]);
    }
    IrType s = shape3(S, c, vx, vy, a->call);
    ValId ops[3] = {sema_emit_broadcast(S, c, s, a->call), sema_emit_broadcast(S, vx, s, a->call),
                    sema_emit_broadcast(S, vy, s, a->call)};
    return sema_val_ir(S,
                       build(S, OP_SELECT, ops, 3,
                             ty_with_elem(s, ty_elem(ir_type(sema_func(S), vx))), a->call, NULL));
}

static Val binary_elem(Sema *S, BArgs *a, int code, Val x, Val y, bool ints_only) {
    for (int i = 0; i < 2; i++) {
        Val v = i ? y : x;
        if ((v.k != V_IR && !sema_val_is_const(v)) || sema_type_of(v).dt == DT_PTR)
            sema_error(S, a->loc[i], "%s: expected a number or a block, got %s", a->name,
                       sema_val_kind_name(S, v));
    }
    int dt = promote2(S, x, y, false, a->call);
    if (ints_only && !dt_is_int(dt)) sema_error(S, a->call, "%s needs integer operands", a->name);
    ValId vx = sema_to_ir_dt(S, x, dt, a->loc[0]), vy = sema_to_ir_dt(S, y, dt, a->loc[1]);
    IrType s =
        sema_broadcast_shape(S, ir_type(sema_func(S), vx), ir_type(sema_func(S), vy), a->call);
    ValId ops[2] = {sema_fp8_widen(S, sema_emit_broadcast(S, vx, s, a->call), a->call),
                    sema_fp8_widen(S, sema_emit_broadcast(S, vy, s, a->call), a->call)};
    int cdt = dt_is_fp8(dt) ? DT_FP32 : dt;
    ValId r = build(S, code, ops, 2, ty_with_elem(s, ty_scalar(cdt)), a->call, NULL);
    return sema_val_ir(S, sema_fp8_narrow(S, r, dt, a->call));
}

static Val const_minmax(Val x, Val y, bool is_max) {
    double fx = x.k == V_FLOAT ? x.f : (double)x.i, fy = y.k == V_FLOAT ? y.f : (double)y.i;
    return (is_max ? fy > fx : fy < fx) ? y : x;
}

/* tl.PropagateNan.NONE (0) or .ALL (0xFFFF, Triton's values): whether minimum, maximum
 * and clamp give NaN where an operand is NaN (ALL) or the other operand (NONE). */
static bool need_propagate_nan(Sema *S, BArgs *a, int i) {
    if (!has(a, i)) return false;
    Val v = a->v[i];
    if (v.k != V_INT || (v.i != 0 && v.i != 0xFFFF))
        sema_error(S, a->loc[i],
                   "%s: propagate_nan must be tl.PropagateNan.NONE or tl.PropagateNan.ALL, got %s",
                   a->name, sema_val_kind_name(S, v));
    return v.i != 0;
}

/* A value as Triton's to_tensor makes it (a compile-time number gets its dtype and is no
 * longer weak), bf16 converted to fp32 (as Triton's minimum, maximum and clamp do). */
static Val strong_operand(Sema *S, Val x, Loc loc) {
    if (sema_val_is_const(x)) x = sema_val_ir(S, sema_to_ir(S, x, loc));
    if (x.k == V_IR && x.ty.dt == DT_BF16)
        x = sema_val_ir(S, sema_emit_cast(S, x.v, ty_scalar(DT_FP32), false, loc));
    return x;
}

/* where(isnan(n), n, r) on float blocks (n already in r's dtype and shape): r where n is a
 * number, n itself (its payload kept, bit for bit on every device) where it is NaN. */
static ValId keep_nan(Sema *S, ValId n, ValId r, Loc loc) {
    IrType t = ir_type(sema_func(S), r);
    if (!dt_is_float(t.dt)) return r;
    ValId cops[2] = {n, n};
    OpId cmp;
    ValId isnan = build(S, OP_CMP, cops, 2, ty_with_elem(t, ty_scalar(DT_I1)), loc, &cmp);
    sema_func(S)->ops[cmp].attr[0] = CMP_PRED_NE;
    ValId sel[3] = {isnan, n, r};
    return build(S, OP_SELECT, sel, 3, t, loc, NULL);
}

/* Triton's minimum/maximum take both operands as tensors (no weak Python scalars) and
 * compute bf16 in fp32. With propagate_nan, a NaN operand gives that NaN (the first one's
 * where both are); without, the other operand (the min/max op's own rule). */
static Val strong_minmax(Sema *S, BArgs *a, bool is_max, Val x, Val y, bool propagate) {
    x = strong_operand(S, x, a->loc[0]);
    y = strong_operand(S, y, a->loc[1]);
    if (!propagate) return binary_elem(S, a, is_max ? OP_MAX : OP_MIN, x, y, false);
    for (int i = 0; i < 2; i++)
        if ((i ? y : x).k != V_IR || (i ? y : x).ty.dt == DT_PTR)
            sema_error(S, a->loc[i], "%s: expected a number or a block, got %s", a->name,
                       sema_val_kind_name(S, i ? y : x));
    int dt = promote2(S, x, y, false, a->call);
    ValId vx = sema_to_ir_dt(S, x, dt, a->loc[0]), vy = sema_to_ir_dt(S, y, dt, a->loc[1]);
    IrType s =
        sema_broadcast_shape(S, ir_type(sema_func(S), vx), ir_type(sema_func(S), vy), a->call);
    ValId ops[2] = {sema_fp8_widen(S, sema_emit_broadcast(S, vx, s, a->call), a->call),
                    sema_fp8_widen(S, sema_emit_broadcast(S, vy, s, a->call), a->call)};
    ValId r = build(S, is_max ? OP_MAX : OP_MIN, ops, 2,
                    ty_with_elem(s, ty_scalar(dt_is_fp8(dt) ? DT_FP32 : dt)), a->call, NULL);
    r = keep_nan(S, ops[0], keep_nan(S, ops[1], r, a->call), a->call);
    return sema_val_ir(S, sema_fp8_narrow(S, r, dt, a->call));
}

/* tl.add / tl.sub / tl.mul(x, y, sanitize_overflow=True): x + y, x - y, x * y, their integer
 * overflow checked in debug mode as the operators' is; sanitize_overflow=False (a
 * compile-time value) exempts the one call. */
static Val b_arith(Sema *S, BArgs *a) {
    int op = !strcmp(a->name, "add") ? BIN_ADD : !strcmp(a->name, "sub") ? BIN_SUB : BIN_MUL;
    bool check = true;
    if (has(a, 2) && !sema_truthy_const(S, a->v[2], a->loc[2], &check))
        sema_error(S, a->loc[2], "sanitize_overflow must be a compile-time bool, got %s",
                   sema_val_kind_name(S, a->v[2]));
    return check ? sema_user_binary_op(S, op, a->v[0], a->v[1], a->call)
                 : sema_binary_op(S, op, a->v[0], a->v[1], a->call);
}

/* x.logical_and(y), x.logical_or(y): Triton's tensor methods (both taken as int1, then & or
 * |); here any number converts as a condition does (x != 0) */
static Val b_logical(Sema *S, BArgs *a) {
    if (!sema_val_is_const(a->v[0]) && a->v[0].k != V_IR)
        sema_error(S, a->loc[0], "%s: expected a block or a number, got %s", a->name,
                   sema_val_kind_name(S, a->v[0]));
    ValId x = sema_to_i1(S, a->v[0], a->loc[0]), y = sema_to_i1(S, a->v[1], a->loc[1]);
    return sema_binary_op(S, !strcmp(a->name, "logical_and") ? BIN_AND : BIN_OR, sema_val_ir(S, x),
                          sema_val_ir(S, y), a->call);
}

static Val b_minmax(Sema *S, BArgs *a) {
    bool is_max = !strcmp(a->name, "maximum"), propagate = need_propagate_nan(S, a, 2);
    if (sema_val_is_const(a->v[0]) && sema_val_is_const(a->v[1]))
        return const_minmax(a->v[0], a->v[1], is_max);
    return strong_minmax(S, a, is_max, a->v[0], a->v[1], propagate);
}

/* tl.clamp(x, min, max, propagate_nan=NONE): Triton's typing (all three taken as tensors,
 * bf16 as fp32, promoted together), floats only; max(x, min) then min(.., max). A NaN x
 * gives min (NONE) or x (ALL); a NaN bound is Triton's undefined case: here the bounds'
 * NaN is ignored as min/max ignore it. */
static Val b_clamp(Sema *S, BArgs *a) {
    Val v[3];
    for (int i = 0; i < 3; i++) {
        if ((a->v[i].k != V_IR && !sema_val_is_const(a->v[i])) ||
            sema_type_of(a->v[i]).dt == DT_PTR)
            sema_error(S, a->loc[i], "tl.clamp: expected a number or a block, got %s",
                       sema_val_kind_name(S, a->v[i]));
        v[i] = strong_operand(S, a->v[i], a->loc[i]);
    }
    bool propagate = need_propagate_nan(S, a, 3);
    int bdt = promote2(S, v[1], v[2], false, a->call);
    int dt =
        sema_computation_dtype(S, sema_type_of(v[0]), false, ty_scalar(bdt), false, false, a->call);
    if (!dt_is_float(dt))
        sema_error(S, a->call,
                   "tl.clamp needs floating-point operands (as in Triton), got %s (convert with "
                   ".to(tl.float32))",
                   dt_name(dt));
    ValId o[3];
    IrType s = ty_scalar(dt);
    for (int i = 0; i < 3; i++) o[i] = sema_to_ir_dt(S, v[i], dt, a->loc[i]);
    for (int i = 0; i < 3; i++)
        s = sema_broadcast_shape(S, s, ir_type(sema_func(S), o[i]), a->call);
    for (int i = 0; i < 3; i++)
        o[i] = sema_fp8_widen(S, sema_emit_broadcast(S, o[i], s, a->call), a->call);
    IrType ct = ty_with_elem(s, ty_scalar(dt_is_fp8(dt) ? DT_FP32 : dt));
    ValId lo[2] = {o[0], o[1]};
    ValId r = build(S, OP_MAX, lo, 2, ct, a->call, NULL);
    ValId hi[2] = {r, o[2]};
    r = build(S, OP_MIN, hi, 2, ct, a->call, NULL);
    if (propagate) r = keep_nan(S, o[0], r, a->call);
    return sema_val_ir(S, sema_fp8_narrow(S, r, dt, a->call));
}

/* tl.debug_barrier(): a barrier across the program's threads (bar.sync on the GPU; the
 * interpreter runs one program at a time and has nothing to wait for). */
static Val b_debug_barrier(Sema *S, BArgs *a) {
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = a->call;
    ir_build(sema_builder(S), OP_BARRIER, NULL, 0, NULL, 0);
    sema_builder(S)->loc = saved;
    return sema_val_none();
}

/* tl.math.div_rn(x, y): correctly rounded; tl.math.fdiv(x, y, ieee_rounding=False) */
static Val b_div(Sema *S, BArgs *a) {
    for (int i = 0; i < 2; i++)
        if ((a->v[i].k != V_IR && !sema_val_is_const(a->v[i])) ||
            sema_type_of(a->v[i]).dt == DT_PTR)
            sema_error(S, a->loc[i], "%s: expected a number or a block, got %s", a->name,
                       sema_val_kind_name(S, a->v[i]));
    bool exact = !strcmp(a->name, "div_rn") || (has(a, 2) && a->v[2].k == V_BOOL && a->v[2].i);
    return sema_float_div(S, a->v[0], a->v[1], exact, a->call);
}

static Val b_umulhi(Sema *S, BArgs *a) {
    Val r = binary_elem(S, a, OP_UMULHI, a->v[0], a->v[1], true);
    if (dt_bits(r.ty.dt) < 32) sema_error(S, a->call, "tl.umulhi needs 32 or 64-bit integers");
    return r;
}

static const struct {
    const char *name;
    int code;
} math1[] = {
    {"exp", OP_EXP},   {"exp2", OP_EXP2},    {"log", OP_LOG},     {"log2", OP_LOG2},
    {"sqrt", OP_SQRT}, {"sqrt_rn", OP_SQRT}, {"rsqrt", OP_RSQRT}, {"sin", OP_SIN},
    {"cos", OP_COS},   {"floor", OP_FLOOR},  {"ceil", OP_CEIL},   {"abs", OP_ABS},
};

static Val b_math1(Sema *S, BArgs *a) {
    int code = -1;
    for (size_t i = 0; i < sizeof math1 / sizeof *math1; i++)
        if (!strcmp(a->name, math1[i].name)) code = math1[i].code;
    Val x = a->v[0];
    if (code == OP_ABS && sema_val_is_const(x))
        return x.k == V_FLOAT ? sema_val_float(fabs(x.f)) : sema_val_int(x.i < 0 ? -x.i : x.i);
    x = need_block(S, a, 0);
    if (x.ty.dt == DT_PTR)
        sema_error(S, a->loc[0], "%s: expected a number, got a pointer", a->name);
    if (code != OP_ABS && !dt_is_float(x.ty.dt))
        sema_error(S, a->loc[0],
                   "tl.%s needs a floating-point operand, got %s (convert with .to(tl.float32))",
                   a->name, sema_val_kind_name(S, x));
    if (code == OP_ABS && (x.ty.dt == DT_I1 || (dt_is_int(x.ty.dt) && !dt_is_signed(x.ty.dt))))
        return x;
    ValId w = sema_fp8_widen(S, x.v, a->call); /* fp8: in fp32, rounded back */
    ValId r = ir1(S, code, w, ir_type(sema_func(S), w), a->call).v;
    return sema_val_ir(S, sema_fp8_narrow(S, r, x.ty.dt, a->call));
}

/* The math op's functions (compiler/ir/ir_mathfn.def: erf, tanh, pow, ...): tl.erf and
 * Triton's libdevice functions. Float operands only; an fp16, bf16 or fp8 operand is
 * computed in fp32 by the GPU and rounded back (Triton's libdevice accepts only fp32 and
 * fp64). Two-operand functions take both operands as tensors, as Triton's
 * extern_elementwise does (a compile-time number gets its to_tensor dtype), and promote
 * them together: pow(x_fp32, 2) is pow(x, 2.0). */
static int mathfn_of(const char *name) {
    for (int i = 0; i < MATH_COUNT; i++)
        if (!strcmp(ir_mathfn_info[i].name, name)) return i;
    NR_DIE("no math function %s", name);
}

static Val b_mathfn(Sema *S, BArgs *a) {
    int fn = mathfn_of(a->name), nargs = ir_mathfn_info[fn].nargs;
    Val v[2] = {sema_val_none(), sema_val_none()};
    for (int i = 0; i < nargs; i++) {
        if ((a->v[i].k != V_IR && !sema_val_is_const(a->v[i])) ||
            sema_type_of(a->v[i]).dt == DT_PTR)
            sema_error(S, a->loc[i], "tl.%s: expected a number or a block, got %s", a->name,
                       sema_val_kind_name(S, a->v[i]));
        v[i] = need_block(S, a, i);
    }
    int dt = nargs == 2 ? promote2(S, v[0], v[1], false, a->call) : v[0].ty.dt;
    if (!dt_is_float(dt))
        sema_error(S, nargs == 2 ? a->call : a->loc[0],
                   "tl.%s needs a floating-point operand, got %s (convert with .to(tl.float32))",
                   a->name, nargs == 2 ? dt_name(dt) : sema_val_kind_name(S, v[0]));
    ValId o[2];
    IrType s = ty_scalar(dt);
    for (int i = 0; i < nargs; i++) o[i] = sema_to_ir_dt(S, v[i], dt, a->loc[i]);
    for (int i = 0; i < nargs; i++)
        s = sema_broadcast_shape(S, s, ir_type(sema_func(S), o[i]), a->call);
    for (int i = 0; i < nargs; i++)
        o[i] = sema_fp8_widen(S, sema_emit_broadcast(S, o[i], s, a->call), a->call);
    OpId op;
    ValId r = build(S, OP_MATH, o, nargs, ty_with_elem(s, ty_scalar(dt_is_fp8(dt) ? DT_FP32 : dt)),
                    a->call, &op);
    sema_func(S)->ops[op].attr[0] = fn;
    return sema_val_ir(S, sema_fp8_narrow(S, r, dt, a->call));
}

static Val b_fma(Sema *S, BArgs *a) {
    Val x = a->v[0], y = a->v[1], z = a->v[2];
    int dt = promote2(S, x, y, false, a->call);
    Val t = sema_val_ir(S, sema_to_ir_dt(S, x, dt, a->loc[0]));
    dt = promote2(S, t, z, false, a->call);
    if (!dt_is_float(dt)) sema_error(S, a->call, "tl.fma needs floating-point operands");
    ValId v[3] = {sema_to_ir_dt(S, x, dt, a->loc[0]), sema_to_ir_dt(S, y, dt, a->loc[1]),
                  sema_to_ir_dt(S, z, dt, a->loc[2])};
    IrType s = shape3(S, v[0], v[1], v[2], a->call);
    for (int i = 0; i < 3; i++)
        v[i] = sema_fp8_widen(S, sema_emit_broadcast(S, v[i], s, a->call), a->call);
    ValId r = build(S, OP_FMA, v, 3, ty_with_elem(s, ty_scalar(dt_is_fp8(dt) ? DT_FP32 : dt)),
                    a->call, NULL);
    return sema_val_ir(S, sema_fp8_narrow(S, r, dt, a->call));
}

/* ---- reductions ---- */

static int norm_axis(Sema *S, BArgs *a, int i, int rank) {
    int64_t ax = need_int(S, a, i);
    if (ax < 0) ax += rank;
    if (ax < 0 || ax >= rank)
        sema_error(S, a->loc[i], "%s: axis %lld is out of range for a rank-%d block", a->name,
                   (long long)a->v[i].i, rank);
    return (int)ax;
}

static ValId reduce_axis(Sema *S, ValId x, int kind, int axis, Loc loc) {
    IrType t = ir_type(sema_func(S), x), r = t;
    memmove(r.shape + axis, r.shape + axis + 1, sizeof(int32_t) * (size_t)(t.rank - axis - 1));
    r.rank--;
    if (kind == RED_ARGMAX || kind == RED_ARGMIN) r.dt = DT_I32, r.pointee = 0;
    OpId op;
    ValId v = build(S, OP_REDUCE, &x, 1, r, loc, &op);
    sema_func(S)->ops[op].attr[0] = kind;
    sema_func(S)->ops[op].attr[1] = axis;
    return v;
}

/* The one element of a one-element block as a scalar (Triton's unsplat: tensor.item(), an
 * `if` on a block of one element). */
ValId sema_unsplat(Sema *S, ValId x, Loc loc) {
    IrType t = ir_type(sema_func(S), x);
    if (!t.rank) return x;
    if (ty_numel(t) != 1)
        sema_error(S, loc, "item(): the block must have one element, got %lld",
                   (long long)ty_numel(t));
    bool b = t.dt == DT_I1;
    if (b) x = sema_emit_cast(S, x, ty_scalar(DT_I8), false, loc), t = ir_type(sema_func(S), x);
    if (t.rank > 1) {
        int32_t one = 1;
        x = build(S, OP_RESHAPE, &x, 1, ty_block(ty_elem(t), 1, &one), loc, NULL);
    }
    ValId v = reduce_axis(S, x, RED_MAX, 0, loc);
    return b ? sema_to_i1(S, sema_val_ir(S, v), loc) : v;
}

static Val b_item(Sema *S, BArgs *a) {
    Val x = need_block(S, a, 0);
    return sema_val_ir(S, sema_unsplat(S, x.v, a->call));
}

static ValId expand_at(Sema *S, ValId x, int axis, Loc loc) {
    IrType t = ir_type(sema_func(S), x), r = t;
    memmove(r.shape + axis + 1, r.shape + axis, sizeof(int32_t) * (size_t)(t.rank - axis));
    r.shape[axis] = 1;
    r.rank++;
    OpId op;
    ValId v = build(S, OP_EXPAND_DIMS, &x, 1, r, loc, &op);
    sema_func(S)->ops[op].attr[0] = axis;
    return v;
}

/* input, axis=None, ..., keep_dims at index kd */
static Val reduce(Sema *S, BArgs *a, int kind, int kd) {
    Val x = need_block(S, a, 0);
    if (x.ty.dt == DT_PTR) sema_error(S, a->loc[0], "%s: cannot reduce pointers", a->name);
    if (x.ty.rank == 0) return x;
    ValId v = x.v;
    bool keep = kd >= 0 && has(a, kd) && a->v[kd].k == V_BOOL && a->v[kd].i;
    if (kind == RED_SUM && dt_is_int(x.ty.dt) &&
        dt_bits(x.ty.dt) < 32) /* as Triton: no overflow in small ints */
        v = sema_emit_cast(S, v, ty_scalar(dt_is_signed(x.ty.dt) ? DT_I32 : DT_U32), false,
                           a->call);
    if (kind == RED_SUM && has(a, 3)) v = sema_emit_cast(S, v, need_dtype(S, a, 3), false, a->call);
    IrType t = ir_type(sema_func(S), v);
    if (dt_is_fp8(t.dt)) /* as in Triton */
        sema_error(
            S, a->call,
            "%s: reductions of %s blocks are not supported (convert first, e.g. x.to(tl.float32))",
            a->name, dt_name(t.dt));
    if (!has(a, 1)) { /* all axes: flatten, reduce to a scalar */
        int32_t n = (int32_t)ty_numel(t);
        if (t.rank != 1)
            v = build(S, OP_RESHAPE, &v, 1, ty_block(ty_elem(t), 1, &n), a->call, NULL);
        ValId r = reduce_axis(S, v, kind, 0, a->call);
        if (keep) {
            IrType k = t;
            for (int i = 0; i < k.rank; i++) k.shape[i] = 1;
            k.dt = ir_type(sema_func(S), r).dt;
            r = sema_emit_broadcast(S, r, k, a->call);
        }
        return sema_val_ir(S, r);
    }
    int axis = norm_axis(S, a, 1, t.rank);
    ValId r = reduce_axis(S, v, kind, axis, a->call);
    if (keep) r = expand_at(S, r, axis, a->call);
    return sema_val_ir(S, r);
}

static Val b_sum(Sema *S, BArgs *a) { return reduce(S, a, RED_SUM, 2); }

static Val b_max_min(Sema *S, BArgs *a) {
    bool is_max = !strcmp(a->name, "max");
    Val m = reduce(S, a, is_max ? RED_MAX : RED_MIN, 4);
    if (!(has(a, 2) && a->v[2].k == V_BOOL && a->v[2].i)) return m;
    Val items[2] = {m, reduce(S, a, is_max ? RED_ARGMAX : RED_ARGMIN, 4)};
    return sema_val_tuple(S, items, 2);
}

static Val b_arg(Sema *S, BArgs *a) {
    if (!has(a, 1)) sema_error(S, a->call, "%s: axis is required", a->name);
    return reduce(S, a, !strcmp(a->name, "argmax") ? RED_ARGMAX : RED_ARGMIN, 3);
}

/* ---- scans and reductions with a combine function ---- */

/* What combines two groups of scalars: a user function (@triton.jit, or a builtin such as
 * tl.maximum), called in the op's region, or one IR op (add, mul, xor, or: cumsum,
 * cumprod, xor_sum, reduce_or). */
typedef struct Combine {
    Val fn;
    int code; /* 0: call fn */
} Combine;

enum { MAX_COMBINE = 16 };

/* The inputs of a scan or reduction: one block, or a tuple of blocks of one shape. */
static int combine_inputs(Sema *S, BArgs *a, Val in, ValId *out) {
    int n = in.k == V_TUPLE ? in.n : 1;
    if (n < 1 || n > MAX_COMBINE)
        sema_error(S, a->loc[0], "%s: give 1 to %d inputs, got %d", a->name, MAX_COMBINE, n);
    for (int i = 0; i < n; i++) {
        Val v = in.k == V_TUPLE ? in.items[i] : in;
        if (v.k != V_IR || v.ty.rank == 0)
            sema_error(S, a->loc[0], "%s: the input must be a block or a tuple of blocks, got %s",
                       a->name, sema_val_kind_name(S, v));
        if (v.ty.dt == DT_PTR) sema_error(S, a->loc[0], "%s: cannot combine pointers", a->name);
        if (dt_is_fp8(v.ty.dt))
            sema_error(S, a->loc[0],
                       "%s: %s blocks are not supported (convert first, e.g. x.to(tl.float32))",
                       a->name, dt_name(v.ty.dt));
        if (i && !ty_same_shape(v.ty, ir_type(sema_func(S), out[0]))) {
            char p[64], q[64];
            sema_error(S, a->loc[0], "%s: the inputs must have one shape, got %s and %s", a->name,
                       ty_str(ir_type(sema_func(S), out[0]), p, sizeof p),
                       ty_str(v.ty, q, sizeof q));
        }
        out[i] = v.v;
    }
    return n;
}

/* The first op of region r (and of the functions it calls) that a combine function may
 * not hold: anything impure or with regions. 0 if none. */
static OpId impure_op(Sema *S, IrFunc *f, RegionId r, IrFunc **where, int depth) {
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        OpId id = f->regions[r].ops[i];
        const IrOp *op = &f->ops[id];
        if (op->code == OP_YIELD || op->code == OP_RETURN) continue;
        if (op->code == OP_CALL) {
            IrFunc *g = ir_module_find(S->ir, op->sattr);
            OpId bad = g && depth < 64 ? impure_op(S, g, g->body, where, depth + 1) : 0;
            if (bad) return bad;
            continue;
        }
        if (op->code == OP_INLINE_ASM && op->attr[0]) continue; /* is_pure=True: an op */
        if (!(ir_op_info[op->code].flags & F_PURE) || op->nregions) {
            *where = f;
            return id;
        }
    }
    return 0;
}

/* Is every op of region r (but its terminator) pure and without regions? */
static bool region_is_flat(const IrFunc *f, RegionId r) {
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        const IrOp *op = &f->ops[f->regions[r].ops[i]];
        if (op->code == OP_YIELD) continue;
        if (!(ir_op_info[op->code].flags & F_PURE) || op->nregions || op->code == OP_CALL)
            return false;
    }
    return true;
}

typedef struct Flatten {
    ValId *from, *to; /* an if's results and the selects that replace them */
    int n, cap;
} Flatten;

/* Triton lowers any combine region; Nereid's reductions and scans take straight-line
 * ones. An if (nested ones first) whose branches only compute (a combine function's
 * `if a > b: r = a else: r = b`, or returns in both branches) becomes both branches'
 * ops, then a select per result on the condition: the same values, as every pure op is
 * defined on every input (integer division by zero included, section 14). Done in the
 * region and, through calls, in the functions it calls. */
static void flatten_ifs(IrFunc *f, RegionId r, Flatten *fl, IrModule *m, int depth) {
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    OpVec out = {0};
    for (uint32_t i = 0; i < n; i++) {
        IrOp *op = &f->ops[ops[i]];
        if (op->code == OP_CALL && depth < 64) {
            IrFunc *g = ir_module_find(m, op->sattr);
            if (g && g != f) {
                Flatten inner = {0};
                flatten_ifs(g, g->body, &inner, m, depth + 1);
                if (inner.n) {
                    ValId *repl = ir_repl_new(g);
                    for (int k = 0; k < inner.n; k++) repl[inner.from[k]] = inner.to[k];
                    ir_replace_all_uses(g, repl);
                    free(repl);
                }
                free(inner.from), free(inner.to);
            }
        }
        if (op->code == OP_IF && op->nregions == 2) {
            RegionId rt = op->region[0], re = op->region[1];
            flatten_ifs(f, rt, fl, m, depth);
            flatten_ifs(f, re, fl, m, depth);
            op = &f->ops[ops[i]];
            if (region_is_flat(f, rt) && region_is_flat(f, re)) {
                OpId yt = 0, ye = 0; /* ids: new ops move f->ops */
                for (int b = 0; b < 2; b++) {
                    RegionId br = b ? re : rt;
                    for (uint32_t j = 0; j < f->regions[br].nops; j++) {
                        OpId id = f->regions[br].ops[j];
                        if (f->ops[id].code == OP_YIELD) *(b ? &ye : &yt) = id;
                        else opvec_push(&out, id);
                    }
                }
                uint32_t nres = f->ops[ops[i]].nres;
                if (nres && (!yt || !ye || f->ops[yt].nopnds != nres || f->ops[ye].nopnds != nres))
                    NR_DIE("flatten_ifs: an if's yields do not match its results");
                for (uint32_t k = 0; k < nres; k++) {
                    op = &f->ops[ops[i]];
                    ValId sel[3] = {op->operands[0], f->ops[yt].operands[k],
                                    f->ops[ye].operands[k]};
                    ValId res = op->results[k];
                    IrType ty = ir_type(f, res);
                    OpId s = ir_op_new(f, OP_SELECT, op->loc, sel, 3, &ty, 1);
                    opvec_push(&out, s);
                    if (fl->n == fl->cap) {
                        fl->cap = fl->cap ? 2 * fl->cap : 8;
                        fl->from = realloc(fl->from, sizeof(ValId) * (size_t)fl->cap);
                        fl->to = realloc(fl->to, sizeof(ValId) * (size_t)fl->cap);
                        if (!fl->from || !fl->to) NR_DIE("out of memory");
                    }
                    fl->from[fl->n] = res, fl->to[fl->n] = f->ops[s].results[0], fl->n++;
                }
                continue;
            }
        }
        opvec_push(&out, ops[i]);
    }
    ir_region_set_ops(f, r, out.v, out.n);
    opvec_free(&out);
    free(ops);
}

/* The combine function applied to the 2n scalar args (in the builder's region): its n
 * results, each of its input's dtype. */
static void combine_body(Sema *S, BArgs *a, Combine cb, Val *args, int n, ValId *outs) {
    if (cb.code) {
        ValId ops[2] = {args[0].v, args[1].v};
        outs[0] = build(S, cb.code, ops, 2, args[0].ty, a->call, NULL);
        return;
    }
    CallArgs ca;
    memset(&ca, 0, sizeof ca);
    ca.pos = args, ca.npos = 2 * n, ca.loc = a->call;
    Val ret = sema_call_value(S, cb.fn, &ca);
    int nret = ret.k == V_TUPLE ? ret.n : 1;
    if (nret != n)
        sema_error(S, a->call, "%s: the combine function returns %d value%s for %d input%s",
                   a->name, nret, nret == 1 ? "" : "s", n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        Val v = ret.k == V_TUPLE ? ret.items[i] : ret;
        int dt = args[i].ty.dt;
        if (sema_val_is_const(v)) {
            outs[i] = sema_to_ir_dt(S, v, dt, a->call);
        } else if (v.k != V_IR || v.ty.rank || v.ty.dt != dt) {
            if (n == 1)
                sema_error(S, a->call,
                           "%s: the combine function must return a %s scalar (the input's "
                           "dtype), got %s",
                           a->name, dt_name(dt), sema_val_kind_name(S, v));
            sema_error(S, a->call,
                       "%s: the combine function's result %d must be a %s scalar (input %d's "
                       "dtype), got %s",
                       a->name, i, dt_name(dt), i, sema_val_kind_name(S, v));
        } else {
            outs[i] = v.v;
        }
    }
}

/* Does region r (its nested regions, the functions it calls) hold an assert? */
static bool has_assert(Sema *S, IrFunc *f, RegionId r, int depth) {
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        const IrOp *op = &f->ops[f->regions[r].ops[i]];
        if (op->code == OP_ASSERT) return true;
        for (int k = 0; k < op->nregions; k++)
            if (has_assert(S, f, op->region[k], depth)) return true;
        if (op->code == OP_CALL && depth < 64) {
            IrFunc *g = ir_module_find(S->ir, op->sattr);
            if (g && g != f && has_assert(S, g, g->body, depth + 1)) return true;
        }
    }
    return false;
}

static void finish_combine_region(Sema *S, BArgs *a, RegionId r) {
    Flatten fl = {0};
    IrFunc *f = sema_func(S);
    flatten_ifs(f, r, &fl, S->ir, 0);
    if (fl.n) {
        ValId *repl = ir_repl_new(f);
        for (int k = 0; k < fl.n; k++) repl[fl.from[k]] = fl.to[k];
        ir_replace_all_uses(f, repl);
        free(repl);
    }
    free(fl.from), free(fl.to);
    IrFunc *where = NULL;
    OpId bad = impure_op(S, sema_func(S), r, &where, 0);
    if (bad)
        sema_error_from(S, where->ops[bad].loc, a->call,
                        arena_printf(S->arena, "in the combine function of this %s", a->name),
                        "%s: a combine function may only compute on its arguments (choices with "
                        "if/else or tl.where, asserts, pure inline assembly; no loads, stores, "
                        "atomics, prints or loops), got '%s'",
                        a->name, ir_op_info[where->ops[bad].code].name);
}

/* The result types of a scan (the inputs') or reduce_fn (the inputs' without axis). */
static IrType combine_type(IrType t, int code, int axis) {
    if (code == OP_REDUCE_FN) {
        memmove(t.shape + axis, t.shape + axis + 1, sizeof(int32_t) * (size_t)(t.rank - axis - 1));
        t.rank--;
    }
    return t;
}

/* A combine function with asserts (Triton's side-effectful reductions: a
 * tl.device_assert on each combine step). Its helpers are lowered in place so that every
 * assert lands in the combine region, where it is collected instead of emitted; each
 * assert j becomes one more i32 value the op carries, 1 at the start, the combine of two
 * flags their AND where condition j holds on that step and 0 where it does not. After
 * the op, each flag is asserted with its message: the assert fails exactly when some
 * combine step's condition failed, on the steps the back end's order takes. */
static void combine_op_asserting(Sema *S, BArgs *a, int code, const ValId *ins, int n, int axis,
                                 bool reverse, Combine cb, ValId *res) {
    IrFunc *f = sema_func(S);
    RegionId r = ir_region_new(f, 0);
    Val args[2 * MAX_COMBINE];
    for (int i = 0; i < 2 * n; i++)
        args[i] = sema_val_ir(S, ir_region_add_arg(f, r, ty_elem(ir_type(f, ins[i % n]))));
    AssertSink sink = {.region = r};
    AssertSink *outer = S->asserts;
    RegionId old = sema_builder(S)->region;
    sema_builder(S)->region = r;
    S->asserts = &sink;
    S->inline_calls++;
    ValId outs[2 * MAX_COMBINE];
    combine_body(S, a, cb, args, n, outs);
    S->inline_calls--;
    S->asserts = outer;
    int k = sink.n;
    if (n + k > MAX_COMBINE)
        sema_error(S, a->call, "%s: at most %d inputs and asserts in a combine function", a->name,
                   MAX_COMBINE);
    f = sema_func(S);
    IrType flag = ty_scalar(DT_I32);
    for (int j = 0; j < 2 * k; j++) ir_region_add_arg(f, r, flag);
    /* the args in the op's order: a_1..a_n, flag_a_1..k, b_1..b_n, flag_b_1..k */
    ValId *ra = f->regions[r].args, perm[4 * MAX_COMBINE];
    for (int i = 0; i < n; i++) perm[i] = ra[i], perm[n + k + i] = ra[n + i];
    for (int j = 0; j < k; j++)
        perm[n + j] = ra[2 * n + j], perm[2 * n + k + j] = ra[2 * n + k + j];
    for (int i = 0; i < 2 * (n + k); i++) ra[i] = perm[i], f->vals[perm[i]].index = (uint16_t)i;
    ValId zero = sema_emit_const(S, flag, sema_val_int(0), a->call);
    for (int j = 0; j < k; j++) {
        ValId both[2] = {ra[n + j], ra[2 * n + k + j]};
        ValId sel[3] = {sink.conds[j], build(S, OP_AND, both, 2, flag, sink.locs[j], NULL), zero};
        outs[n + j] = build(S, OP_SELECT, sel, 3, flag, sink.locs[j], NULL);
    }
    Loc sl = sema_builder(S)->loc;
    sema_builder(S)->loc = a->call;
    ir_build(sema_builder(S), OP_YIELD, outs, (uint32_t)(n + k), NULL, 0);
    sema_builder(S)->loc = sl;
    sema_builder(S)->region = old;
    ValId all_ins[MAX_COMBINE];
    IrType tys[MAX_COMBINE];
    for (int i = 0; i < n; i++) all_ins[i] = ins[i];
    IrType fshape = ty_with_elem(ir_type(sema_func(S), ins[0]), flag);
    ValId ones =
        sema_emit_broadcast(S, sema_emit_const(S, flag, sema_val_int(1), a->call), fshape, a->call);
    for (int j = 0; j < k; j++) all_ins[n + j] = ones;
    for (int i = 0; i < n + k; i++)
        tys[i] = combine_type(ir_type(sema_func(S), all_ins[i]), code, axis);
    OpId op = build_op(S, code, all_ins, n + k, tys, n + k, a->call);
    f = sema_func(S);
    f->ops[op].attr[0] = axis;
    if (code == OP_SCAN) f->ops[op].attr[1] = reverse;
    f->ops[op].region[f->ops[op].nregions++] = r;
    f->regions[r].parent_op = op;
    finish_combine_region(S, a, r);
    for (int i = 0; i < n; i++) res[i] = ir_result(sema_func(S), op, (uint32_t)i);
    for (int j = 0; j < k; j++) {
        ValId fl = ir_result(sema_func(S), op, (uint32_t)(n + j));
        IrType ft = ir_type(sema_func(S), fl);
        ValId c[2] = {fl, sema_emit_broadcast(S, sema_emit_const(S, flag, sema_val_int(0), a->call),
                                              ft, a->call)};
        OpId cmp;
        ValId ok = build(S, OP_CMP, c, 2, ty_with_elem(ft, ty_scalar(DT_I1)), sink.locs[j], &cmp);
        sema_func(S)->ops[cmp].attr[0] = CMP_PRED_NE;
        sema_emit_assert(S, ok, sink.msgs[j], sink.locs[j]);
    }
}

/* Builds a scan or reduce_fn of the n values ins along axis, its region calling the
 * combine on 2n scalar arguments; the op's results go to res. */
static void combine_op(Sema *S, BArgs *a, int code, const ValId *ins, int n, int axis, bool reverse,
                       Combine cb, ValId *res) {
    IrFunc *f = sema_func(S);
    IrType tys[MAX_COMBINE];
    for (int i = 0; i < n; i++) tys[i] = combine_type(ir_type(f, ins[i]), code, axis);
    OpId op = build_op(S, code, ins, n, tys, n, a->call);
    f = sema_func(S);
    f->ops[op].attr[0] = axis;
    if (code == OP_SCAN) f->ops[op].attr[1] = reverse;
    RegionId r = ir_op_add_region(f, op);
    Val args[2 * MAX_COMBINE];
    for (int i = 0; i < 2 * n; i++)
        args[i] = sema_val_ir(S, ir_region_add_arg(f, r, ty_elem(ir_type(f, ins[i % n]))));
    RegionId old = sema_builder(S)->region;
    sema_builder(S)->region = r;
    ValId outs[MAX_COMBINE];
    combine_body(S, a, cb, args, n, outs);
    Loc sl = sema_builder(S)->loc;
    sema_builder(S)->loc = a->call;
    ir_build(sema_builder(S), OP_YIELD, outs, (uint32_t)n, NULL, 0);
    sema_builder(S)->loc = sl;
    sema_builder(S)->region = old;
    if (!cb.code && has_assert(S, sema_func(S), r, 0)) {
        /* asserts: drop this op (nothing uses it yet) and build it again carrying them */
        f = sema_func(S);
        RegionId pr = f->ops[op].parent;
        uint32_t nops;
        OpId *ops = ir_region_copy_ops(f, pr, &nops);
        uint32_t m = 0;
        for (uint32_t i = 0; i < nops; i++)
            if (ops[i] != op) ops[m++] = ops[i];
        ir_region_set_ops(f, pr, ops, m);
        free(ops);
        combine_op_asserting(S, a, code, ins, n, axis, reverse, cb, res);
        return;
    }
    finish_combine_region(S, a, r);
    for (int i = 0; i < n; i++) res[i] = ir_result(sema_func(S), op, (uint32_t)i);
}

static Val combine_results(Sema *S, const ValId *res, int n, bool tuple) {
    if (!tuple) return sema_val_ir(S, res[0]);
    Val items[MAX_COMBINE];
    for (int i = 0; i < n; i++) items[i] = sema_val_ir(S, res[i]);
    return sema_val_tuple(S, items, n);
}

static Combine user_combine(Sema *S, BArgs *a, int i) {
    Val fn = a->v[i];
    if (fn.k != V_FUNC && fn.k != V_BUILTIN)
        sema_error(S, a->loc[i], "%s: combine_fn must be a function (@triton.jit), got %s", a->name,
                   sema_val_kind_name(S, fn));
    return (Combine){fn, 0};
}

static bool const_flag(Sema *S, BArgs *a, int i) {
    if (!has(a, i)) return false;
    bool t;
    if (!sema_truthy_const(S, a->v[i], a->loc[i], &t))
        sema_error(S, a->loc[i], "%s: expected a compile-time bool, got %s", a->name,
                   sema_val_kind_name(S, a->v[i]));
    return t;
}

/* associative_scan (and cumsum, cumprod): input, axis, combine, reverse */
static Val scan_with(Sema *S, BArgs *a, Val input, int axis_arg, Combine cb, bool reverse) {
    ValId ins[MAX_COMBINE], res[MAX_COMBINE];
    int n = combine_inputs(S, a, input, ins);
    if (!has(a, axis_arg)) sema_error(S, a->loc[axis_arg], "%s: axis is required", a->name);
    int axis = norm_axis(S, a, axis_arg, ir_type(sema_func(S), ins[0]).rank);
    combine_op(S, a, OP_SCAN, ins, n, axis, reverse, cb, res);
    return combine_results(S, res, n, input.k == V_TUPLE);
}

/* tl.reduce (and xor_sum, reduce_or): input, axis (None: all), combine, keep_dims */
static Val reduce_with(Sema *S, BArgs *a, Val input, int axis_arg, Combine cb, bool keep) {
    ValId ins[MAX_COMBINE], res[MAX_COMBINE];
    int n = combine_inputs(S, a, input, ins);
    IrType t = ir_type(sema_func(S), ins[0]);
    int axis = 0;
    if (!has(a, axis_arg)) { /* every axis: flatten first */
        int32_t numel = (int32_t)ty_numel(t);
        if (t.rank != 1)
            for (int i = 0; i < n; i++)
                ins[i] = build(S, OP_RESHAPE, &ins[i], 1,
                               ty_block(ty_elem(ir_type(sema_func(S), ins[i])), 1, &numel), a->call,
                               NULL);
    } else {
        axis = norm_axis(S, a, axis_arg, t.rank);
    }
    combine_op(S, a, OP_REDUCE_FN, ins, n, axis, false, cb, res);
    if (keep)
        for (int i = 0; i < n; i++) {
            if (has(a, axis_arg)) {
                res[i] = expand_at(S, res[i], axis, a->call);
            } else {
                IrType k = t;
                for (int d = 0; d < k.rank; d++) k.shape[d] = 1;
                k.dt = ir_type(sema_func(S), res[i]).dt;
                res[i] = sema_emit_broadcast(S, res[i], k, a->call);
            }
        }
    return combine_results(S, res, n, input.k == V_TUPLE);
}

static Val b_associative_scan(Sema *S, BArgs *a) {
    return scan_with(S, a, a->v[0], 1, user_combine(S, a, 2), const_flag(S, a, 3));
}

static Val b_reduce_fn(Sema *S, BArgs *a) {
    return reduce_with(S, a, a->v[0], 1, user_combine(S, a, 2), const_flag(S, a, 3));
}

/* bf16 in fp32, as Triton's cumsum and cumprod do; cumsum's dtype, else small integers
 * summed in 32 bits (Triton's _pick_sum_dtype) */
static Val b_cumsum_prod(Sema *S, BArgs *a) {
    bool sum = !strcmp(a->name, "cumsum");
    Val x = need_block(S, a, 0);
    if (x.ty.rank == 0)
        sema_error(S, a->loc[0], "%s: expected a block, got %s", a->name, sema_val_kind_name(S, x));
    ValId v = x.v;
    if (x.ty.dt == DT_BF16) v = sema_emit_cast(S, v, ty_scalar(DT_FP32), false, a->call);
    if (sum && has(a, 3)) v = sema_emit_cast(S, v, need_dtype(S, a, 3), false, a->call);
    else if (sum && dt_is_int(x.ty.dt) && dt_bits(x.ty.dt) < 32)
        v = sema_emit_cast(S, v, ty_scalar(dt_is_signed(x.ty.dt) ? DT_I32 : DT_U32), false,
                           a->call);
    Val in = sema_val_ir(S, v);
    if (!has(a, 1)) a->v[1] = sema_val_int(0), a->given[1] = true; /* axis=0 */
    return scan_with(S, a, in, 1, (Combine){sema_val_none(), sum ? OP_ADD : OP_MUL},
                     const_flag(S, a, 2));
}

/* xor_sum and reduce_or: integers only (Triton's static_assert) */
static Val b_xor_or(Sema *S, BArgs *a) {
    bool x = !strcmp(a->name, "xor_sum");
    Val in = need_block(S, a, 0);
    if (!dt_is_int(in.ty.dt))
        sema_error(S, a->loc[0], "%s only supported for integers, got %s", a->name,
                   sema_val_kind_name(S, in));
    if (in.ty.rank == 0) return in;
    return reduce_with(S, a, in, 1, (Combine){sema_val_none(), x ? OP_XOR : OP_OR},
                       const_flag(S, a, 2));
}

/* ---- flip, sort, topk, gather, histogram ---- */

/* A block to move elements of (not pointers, not fp8: convert first). */
static Val need_movable(Sema *S, BArgs *a, int i) {
    Val x = need_block(S, a, i);
    if (x.ty.rank == 0)
        sema_error(S, a->loc[i], "%s: expected a block, got %s", a->name, sema_val_kind_name(S, x));
    if (x.ty.dt == DT_PTR) sema_error(S, a->loc[i], "%s: cannot %s pointers", a->name, a->name);
    if (dt_is_fp8(x.ty.dt))
        sema_error(S, a->loc[i],
                   "%s: %s blocks are not supported (convert first, e.g. x.to(tl.float32))",
                   a->name, dt_name(x.ty.dt));
    return x;
}

/* dim=None: the last dimension (Triton's flip and sort) */
static int dim_or_last(Sema *S, BArgs *a, int i, int rank) {
    if (!has(a, i)) return rank - 1;
    return norm_axis(S, a, i, rank);
}

static ValId axis_op(Sema *S, BArgs *a, int code, ValId x, int axis, int64_t attr1) {
    OpId op;
    ValId r = build(S, code, &x, 1, ir_type(sema_func(S), x), a->call, &op);
    sema_func(S)->ops[op].attr[0] = axis;
    sema_func(S)->ops[op].attr[1] = attr1;
    return r;
}

/* tl.flip(x, dim=None): reversed along dim (the IR's flip: one exchange between the
 * threads that hold mirrored elements, rather than Triton's log2(n) reshapes and
 * reductions, which Nereid's rank limit of 4 would not allow for a long dim) */
static Val b_flip(Sema *S, BArgs *a) {
    Val x = need_movable(S, a, 0);
    return sema_val_ir(S, axis_op(S, a, OP_FLIP, x.v, dim_or_last(S, a, 1, x.ty.rank), 0));
}

/* tl.sort(x, dim=None, descending=False): along any dim (Triton: the last only) */
static Val b_sort(Sema *S, BArgs *a) {
    Val x = need_movable(S, a, 0);
    return sema_val_ir(
        S, axis_op(S, a, OP_SORT, x.v, dim_or_last(S, a, 1, x.ty.rank), const_flag(S, a, 2)));
}

/* tl.topk(x, k, dim=None): the k largest along the last dim, largest first: a descending
 * sort, viewed as [..., n / k, k], whose first row (a fold keeping its left operand) is
 * the top k. */
static Val b_topk(Sema *S, BArgs *a) {
    Val x = need_movable(S, a, 0);
    int64_t k = need_int(S, a, 1), n = x.ty.shape[x.ty.rank - 1];
    if (has(a, 2) && dim_or_last(S, a, 2, x.ty.rank) != x.ty.rank - 1)
        sema_error(S, a->loc[2], "topk: only the last dimension is supported (as in Triton)");
    if (k < 1 || k > n || (k & (k - 1)))
        sema_error(S, a->loc[1], "topk: k must be a power of two from 1 to %lld, got %lld",
                   (long long)n, (long long)k);
    ValId s = axis_op(S, a, OP_SORT, x.v, x.ty.rank - 1, 1);
    if (k == n) return sema_val_ir(S, s);
    if (x.ty.rank + 1 > NR_MAX_RANK)
        sema_error(S, a->call, "topk: blocks have at most %d dimensions, and topk needs one more",
                   NR_MAX_RANK);
    IrType v = x.ty;
    v.shape[v.rank - 1] = (int32_t)(n / k);
    v.shape[v.rank++] = (int32_t)k;
    ValId rs = build(S, OP_RESHAPE, &s, 1, v, a->call, NULL);
    ValId res;
    OpId op;
    IrType rt = x.ty;
    rt.shape[rt.rank - 1] = (int32_t)k;
    res = build(S, OP_REDUCE_FN, &rs, 1, rt, a->call, &op);
    IrFunc *f = sema_func(S);
    f->ops[op].attr[0] = v.rank - 2;
    RegionId r = ir_op_add_region(f, op);
    ValId first = ir_region_add_arg(f, r, ty_elem(x.ty));
    ir_region_add_arg(f, r, ty_elem(x.ty));
    RegionId old = sema_builder(S)->region;
    sema_builder(S)->region = r;
    ir_build(sema_builder(S), OP_YIELD, &first, 1, NULL, 0);
    sema_builder(S)->region = old;
    return sema_val_ir(S, res);
}

/* tl.gather(src, index, axis): Triton's shape rules; an index is taken modulo the axis's
 * length (ir_ops.def) */
static Val b_gather(Sema *S, BArgs *a) {
    Val x = need_movable(S, a, 0), ix = need_block(S, a, 1);
    if (!dt_is_int(ix.ty.dt) || ix.ty.dt == DT_I1)
        sema_error(S, a->loc[1], "gather: the index must be an integer block, got %s",
                   sema_val_kind_name(S, ix));
    if (ix.ty.rank != x.ty.rank)
        sema_error(S, a->loc[1],
                   "gather: the source and the index must have one rank, got %d and %d", x.ty.rank,
                   ix.ty.rank);
    int axis = norm_axis(S, a, 2, x.ty.rank);
    for (int d = 0; d < x.ty.rank; d++)
        if (d != axis && ix.ty.shape[d] != x.ty.shape[d])
            sema_error(S, a->loc[1],
                       "gather: the index's dim %d is %d, the source's %d (they may differ only "
                       "along the axis, %d)",
                       d, ix.ty.shape[d], x.ty.shape[d], axis);
    ValId ops[2] = {x.v, ix.v};
    OpId op;
    ValId r = build(S, OP_GATHER, ops, 2, ty_with_elem(ix.ty, ty_elem(x.ty)), a->call, &op);
    sema_func(S)->ops[op].attr[0] = axis;
    return sema_val_ir(S, r);
}

/* tl.histogram(input, num_bins, mask=None): i32 counts of the values 0 .. num_bins - 1 */
static Val b_histogram(Sema *S, BArgs *a) {
    Val x = need_block(S, a, 0);
    if (x.ty.rank != 1)
        sema_error(S, a->loc[0], "histogram only supports 1D input, got %s",
                   sema_val_kind_name(S, x));
    if (!dt_is_int(x.ty.dt) || x.ty.dt == DT_I1)
        sema_error(S, a->loc[0], "histogram only supports integer input, got %s",
                   sema_val_kind_name(S, x));
    int64_t bins = need_int(S, a, 1);
    if (bins < 1 || bins > NR_MAX_NUMEL || (bins & (bins - 1)))
        sema_error(S, a->loc[1],
                   "histogram: num_bins must be a power of two from 1 to 2^20 (a block's length), "
                   "got %lld",
                   (long long)bins);
    ValId ops[2] = {x.v, 0};
    int n = 1;
    if (has(a, 2))
        ops[n++] = sema_emit_broadcast(S, need_mask(S, a, 2), ty_with_elem(x.ty, ty_scalar(DT_I1)),
                                       a->call);
    int32_t s = (int32_t)bins;
    return sema_val_ir(
        S, build(S, OP_HISTOGRAM, ops, n, ty_block(ty_scalar(DT_I32), 1, &s), a->call, NULL));
}

/* ---- inline assembly ---- */

/* tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack): args (numbers,
 * blocks, pointers) broadcast to one shape, each keeping its dtype; dtype one dtype or a
 * tuple (a tuple of results). The constraint string must list one operand per register:
 * the results' first, then the arguments'. */
static Val b_inline_asm(Sema *S, BArgs *a) {
    if (a->v[0].k != V_STR)
        sema_error(S, a->loc[0], "inline_asm_elementwise: asm must be a string, got %s",
                   sema_val_kind_name(S, a->v[0]));
    if (a->v[1].k != V_STR)
        sema_error(S, a->loc[1], "inline_asm_elementwise: constraints must be a string, got %s",
                   sema_val_kind_name(S, a->v[1]));
    if (strchr(a->v[1].s, '\n'))
        sema_error(S, a->loc[1], "inline_asm_elementwise: the constraints hold a newline");
    Val args = a->v[2];
    int n = args.k == V_TUPLE ? args.n : 1;
    if (n < 1 || n > IR_ASM_MAX_ARGS)
        sema_error(S, a->loc[2], "inline_asm_elementwise: give 1 to %d arguments, got %d",
                   IR_ASM_MAX_ARGS, n);
    ValId ops[IR_ASM_MAX_ARGS];
    IrType shape = ty_scalar(DT_I32);
    for (int i = 0; i < n; i++) {
        Val v = args.k == V_TUPLE ? args.items[i] : args;
        if (v.k != V_IR && !sema_val_is_const(v))
            sema_error(S, a->loc[2],
                       "inline_asm_elementwise: argument %d must be a number or a block, got %s", i,
                       sema_val_kind_name(S, v));
        ops[i] = v.k == V_IR ? v.v : sema_to_ir(S, v, a->loc[2]);
        IrType t = ir_type(sema_func(S), ops[i]);
        if (t.dt == DT_I1)
            sema_error(S, a->loc[2],
                       "inline_asm_elementwise: argument %d is i1: convert it to an integer type",
                       i);
        shape = i ? sema_broadcast_shape(S, shape, t, a->call) : t;
    }
    for (int i = 0; i < n; i++)
        ops[i] = sema_emit_broadcast(
            S, ops[i], ty_with_elem(shape, ty_elem(ir_type(sema_func(S), ops[i]))), a->call);
    Val dts = a->v[3];
    int nres = dts.k == V_TUPLE ? dts.n : 1;
    if (nres < 1 || nres > IR_ASM_MAX_RESULTS)
        sema_error(S, a->loc[3], "inline_asm_elementwise: give 1 to %d result dtypes, got %d",
                   IR_ASM_MAX_RESULTS, nres);
    IrType rt[IR_ASM_MAX_RESULTS];
    for (int i = 0; i < nres; i++) {
        Val d = dts.k == V_TUPLE ? dts.items[i] : dts;
        if (d.k != V_DTYPE || d.ty.dt == DT_PTR || d.ty.dt == DT_I1)
            sema_error(S, a->loc[3],
                       "inline_asm_elementwise: dtype must be a number dtype (not i1) or a tuple "
                       "of them, got %s",
                       sema_val_kind_name(S, d));
        rt[i] = ty_with_elem(shape, d.ty);
    }
    bool pure;
    if (!sema_truthy_const(S, a->v[4], a->loc[4], &pure))
        sema_error(S, a->loc[4], "inline_asm_elementwise: is_pure must be a compile-time bool");
    int64_t pack = need_int(S, a, 5), numel = ty_numel(shape);
    if (pack < 1 || (pack & (pack - 1)) || pack > numel)
        sema_error(S, a->loc[5],
                   "inline_asm_elementwise: pack must be a power of two from 1 to the element "
                   "count (%lld), got %lld",
                   (long long)numel, (long long)pack);
    int64_t want = 0;
    for (int i = 0; i < nres; i++) want += ir_asm_regs(rt[i].dt, pack);
    int64_t outs = want;
    for (int i = 0; i < n; i++) want += ir_asm_regs(ir_type(sema_func(S), ops[i]).dt, pack);
    int got = ir_asm_operands(a->v[1].s, strlen(a->v[1].s));
    if (got != want)
        sema_error(S, a->loc[1],
                   "inline_asm_elementwise: the constraints name %d operands; with pack=%lld this "
                   "call has %lld: "
                   "%lld result register%s, then %lld for the arguments (elements under 32 bits go "
                   "several to a register)",
                   got, (long long)pack, (long long)want, (long long)outs, outs == 1 ? "" : "s",
                   (long long)(want - outs));
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = a->call;
    OpId op = ir_build(sema_builder(S), OP_INLINE_ASM, ops, (uint32_t)n, rt, (uint32_t)nres);
    sema_builder(S)->loc = saved;
    IrFunc *f = sema_func(S);
    f->ops[op].sattr = arena_printf(S->arena, "%s\n%.*s", a->v[1].s, (int)a->v[0].slen, a->v[0].s);
    f->ops[op].attr[0] = pure;
    f->ops[op].attr[1] = pack;
    if (dts.k != V_TUPLE) return sema_val_ir(S, ir_result(f, op, 0));
    Val items[16];
    for (int i = 0; i < nres; i++) items[i] = sema_val_ir(S, ir_result(f, op, (uint32_t)i));
    return sema_val_tuple(S, items, nres);
}

/* tl.extra.cuda.gdc_wait() and gdc_launch_dependents(): grid dependency control for
 * programmatic dependent launch, as Triton 3.6 writes them (third_party/nvidia's gdc.py):
 * one griddepcontrol instruction of inline assembly that is not pure, sm_90 and later. The
 * assembly names a dummy argument (a call takes one at least) beside its dummy result. */
static Val b_gdc(Sema *S, BArgs *a) {
    const char *text = !strcmp(a->name, "gdc_wait") ? "griddepcontrol.wait; // $0 $1"
                                                    : "griddepcontrol.launch_dependents; // $0 $1";
    BArgs x;
    memset(&x, 0, sizeof x);
    x.v[0] = sema_val_str(S, text, strlen(text));
    x.v[1] = sema_val_str(S, "=r,r", 4);
    x.v[2] = sema_val_int(0);
    x.v[3] = sema_val_dtype(ty_scalar(DT_I32));
    x.v[4] = sema_val_bool(false);
    x.v[5] = sema_val_int(1);
    for (int i = 0; i < 6; i++) x.given[i] = true, x.loc[i] = a->call;
    x.call = a->call;
    x.name = "inline_asm_elementwise";
    b_inline_asm(S, &x);
    return sema_val_none();
}

/* tl.extra.cuda.smid() and globaltimer(): the multiprocessor's index (i32) and the
 * global nanosecond timer (i64), ops of their own (ir_ops.def says what the interpreter
 * gives). num_threads() and num_warps(): constexprs of the warp count compiled for, as
 * Triton's; the module records that it read it (a launch with another count is refused). */
static Val b_cuda_sreg(Sema *S, BArgs *a) {
    if (!strcmp(a->name, "smid") || !strcmp(a->name, "globaltimer")) {
        bool smid = !strcmp(a->name, "smid");
        return sema_val_ir(S, build(S, smid ? OP_SMID : OP_GLOBALTIMER, NULL, 0,
                                    ty_scalar(smid ? DT_I32 : DT_I64), a->call, NULL));
    }
    int w = S->opts->num_warps > 0 ? S->opts->num_warps : option_info(OPT_NUM_WARPS)->def;
    S->ir->warps_read = w;
    return sema_val_int(!strcmp(a->name, "num_threads") ? 32 * w : w);
}

/* ---- dot ---- */

/* tl.dot of fp32 blocks at tf32x3, bf16x3 or bf16x6: the standard library's _dot_split. */
static Val dot_split(Sema *S, BArgs *a, Val x, Val y, ValId acc, const char *precision) {
    Val f;
    if (!sema_scope_lookup(S, &S->std, "_dot_split", a->call, &f) || f.k != V_FUNC)
        sema_error(S, a->call, "internal error: the standard library has no _dot_split");
    Val args[4] = {x, y, sema_val_ir(S, acc), sema_val_str(S, precision, strlen(precision))};
    CallArgs c = {.pos = args, .npos = 4, .loc = a->call};
    return sema_call_value(S, f, &c);
}

static Val b_dot(Sema *S, BArgs *a) {
    Val x = need_block(S, a, 0), y = need_block(S, a, 1);
    /* 2-D, or batched as Triton's: the leading dims equal, one product per batch */
    if (x.ty.rank < 2 || x.ty.rank != y.ty.rank)
        sema_error(S, a->call,
                   "tl.dot multiplies two blocks of one rank, 2-D or with batch dims first, got "
                   "%s and %s",
                   sema_val_kind_name(S, x), sema_val_kind_name(S, y));
    int q = x.ty.rank - 2;
    for (int d = 0; d < q; d++)
        if (x.ty.shape[d] != y.ty.shape[d])
            sema_error(S, a->call, "tl.dot: the batch dims differ (%s and %s)",
                       sema_val_kind_name(S, x), sema_val_kind_name(S, y));
    if (x.ty.dt != y.ty.dt)
        sema_error(S, a->call, "tl.dot operands must have one dtype, got %s and %s",
                   dt_name(x.ty.dt), dt_name(y.ty.dt));
    int dt = x.ty.dt;
    if (dt != DT_FP16 && dt != DT_BF16 && dt != DT_FP32 && dt != DT_FP64 && dt != DT_I8 &&
        !dt_is_fp8(dt))
        sema_error(S, a->call,
                   "tl.dot supports fp16, bf16, fp32, fp64, i8 and the fp8 types, got %s",
                   dt_name(dt));
    if (dt_is_fp8(dt) && !dt_is_fp8_ocp(dt)) {
        /* no tensor core takes fp8e4b15 or the FNUZ formats: Triton widens fp8e4b15 (and,
         * where it lacks them, the FNUZ ones) to fp16 here; every value is exact there */
        x.v = sema_emit_cast(S, x.v, ty_scalar(DT_FP16), false, a->call);
        y.v = sema_emit_cast(S, y.v, ty_scalar(DT_FP16), false, a->call);
        dt = DT_FP16;
    }
    int M = x.ty.shape[q], K = x.ty.shape[q + 1], K2 = y.ty.shape[q], N = y.ty.shape[q + 1];
    if (K != K2)
        sema_error(S, a->call, "tl.dot: inner dimensions differ (%dx%d @ %dx%d)", M, K, K2, N);
    /* Triton 3.6's minimum for NVIDIA (min_dot_size): K >= 16, M and N any (small tiles run
     * on the CUDA cores). Triton asks K >= 32 of 8-bit operands; Nereid takes 16 there too. */
    if (K < 16)
        sema_error(S, a->call, "tl.dot needs K >= 16 (as in Triton), got %dx%d @ %dx%d", M, K, K2,
                   N);
    int accdt = dt == DT_I8 ? DT_I32 : dt == DT_FP64 ? DT_FP64 : DT_FP32;
    /* out_dtype as Triton's semantic.dot takes it: i8 operands give i32, fp32 or bf16 ones
     * fp32 and fp64 ones fp64 whatever it says (but bf16, refused for floats); fp16 and fp8
     * operands give
     * out_dtype, fp32 or fp16. An fp16 result is the fp32 product (an fp16 accumulator
     * widened exactly) rounded to fp16 once: Triton's tensor cores accumulate in fp16, so
     * they agree within fp16's rounding of the sum. */
    int outdt = accdt;
    if (has(a, 6) && a->v[6].k != V_NONE) {
        if (a->v[6].k != V_DTYPE)
            sema_error(S, a->loc[6], "tl.dot: out_dtype must be a dtype, got %s",
                       sema_val_kind_name(S, a->v[6]));
        int o = a->v[6].ty.dt;
        if (dt != DT_I8 && o == DT_BF16)
            sema_error(S, a->loc[6],
                       "tl.dot: out_dtype=bfloat16 is unsupported. Please use "
                       "out_dtype=float32/float16 and cast with `.to(tl.bfloat16)`");
        if (dt == DT_FP16 || dt_is_fp8(dt)) {
            if (o != DT_FP32 && o != DT_FP16)
                sema_error(S, a->loc[6], "tl.dot: out_dtype must be fp32 or fp16 for %s operands",
                           dt_name(x.ty.dt));
            outdt = o;
        }
    }
    /* max_num_imprecise_acc, as Triton's semantic.dot and its Hopper lowering take it: for
     * fp8 operands at most K. On sm_90a's fp8 wgmma, whose accumulator keeps fewer bits than
     * fp32, at most that many products along K (one instruction's 32 at least) are summed
     * there from zero before an fp32 add into the result: the IR's `imprecise`. Without it
     * (Triton's default on Hopper: no limit), for an fp16 result and for other operands,
     * nothing changes. */
    int64_t imprecise = 0;
    if (has(a, 5) && a->v[5].k != V_NONE) {
        if (a->v[5].k != V_INT)
            sema_error(S, a->loc[5],
                       "tl.dot: max_num_imprecise_acc must be a compile-time int, got %s",
                       sema_val_kind_name(S, a->v[5]));
        int64_t v = a->v[5].i;
        if (v < 0)
            sema_error(S, a->loc[5], "tl.dot: max_num_imprecise_acc must be >= 0, got %lld",
                       (long long)v);
        if (dt_is_fp8(x.ty.dt) && v > K)
            sema_error(S, a->loc[5], "max_num_imprecise_acc (%lld) must be <= K (%d)", (long long)v,
                       K);
        if (dt_is_fp8_ocp(x.ty.dt) && outdt == DT_FP32) imprecise = v > 1 ? v : 1;
    }
    int32_t s[NR_MAX_RANK];
    for (int d = 0; d < q; d++) s[d] = x.ty.shape[d];
    s[q] = M, s[q + 1] = N;
    IrType accty = ty_block(ty_scalar(accdt), q + 2, s);
    IrType outty = ty_block(ty_scalar(outdt), q + 2, s);
    ValId acc;
    if (has(a, 2)) {
        Val c = need_block(S, a, 2);
        if (!ty_equal(c.ty, outty)) {
            char p[64], q[64];
            sema_error(S, a->loc[2], "tl.dot: the accumulator must be %s, got %s",
                       ty_str(outty, p, sizeof p), ty_str(c.ty, q, sizeof q));
        }
        acc = sema_emit_cast(S, c.v, ty_scalar(accdt), false, a->call);
    } else {
        acc = sema_emit_const(S, accty, sema_val_int(0), a->call);
    }
    int prec = dt == DT_FP32 ? PREC_TF32 : PREC_IEEE; /* fp64: the CUDA cores, exactly */
    if (has(a, 3)) {
        if (a->v[3].k != V_STR) sema_error(S, a->loc[3], "tl.dot: input_precision is a string");
        const char *p = a->v[3].s;
        if (!strcmp(p, "ieee")) prec = PREC_IEEE;
        else if (!strcmp(p, "tf32")) prec = PREC_TF32;
        else if (!strcmp(p, "tf32x3") || !strcmp(p, "bf16x3") || !strcmp(p, "bf16x6")) {
            /* fp32 as a sum of narrower parts through several dots (lang/stdlib/split_dot.nr,
             * as Triton's F32DotTC); other operands have no lower precision to choose */
            if (dt == DT_FP32) return dot_split(S, a, x, y, acc, p);
        } else
            sema_error(S, a->loc[3],
                       "tl.dot: input_precision must be \"ieee\", \"tf32\", \"tf32x3\", "
                       "\"bf16x3\" or \"bf16x6\", got \"%s\"",
                       p);
    } else if (has(a, 4) && a->v[4].k == V_BOOL && !a->v[4].i) {
        prec = PREC_IEEE;
    }
    ValId ops[3] = {x.v, y.v, acc};
    OpId op;
    ValId r = build(S, OP_DOT, ops, 3, accty, a->call, &op);
    sema_func(S)->ops[op].attr[0] = prec;
    sema_func(S)->ops[op].attr[1] = imprecise;
    return sema_val_ir(S, sema_emit_cast(S, r, ty_scalar(outdt), false, a->call));
}

/* ---- shapes ---- */

static int int_list(Sema *S, Val v, Loc loc, const char *what, int64_t *out, int max) {
    if (v.k == V_TUPLE && v.n == 1 && v.items[0].k == V_TUPLE) v = v.items[0];
    if (v.k == V_INT) return out[0] = v.i, 1;
    if (v.k != V_TUPLE) sema_error(S, loc, "%s: expected a tuple of constant ints", what);
    if (v.n > max)
        sema_error(S, loc, "%s: expected at most %d constant ints, got %d", what, max, v.n);
    for (int i = 0; i < v.n; i++) {
        if (v.items[i].k != V_INT)
            sema_error(S, loc, "%s: expected constant ints, got %s", what,
                       sema_val_kind_name(S, v.items[i]));
        out[i] = v.items[i].i;
    }
    return v.n;
}

static Val b_trans(Sema *S, BArgs *a) {
    Val x = need_block(S, a, 0);
    int64_t perm[NR_MAX_RANK];
    int n = a->v[1].k == V_TUPLE && a->v[1].n == 0
                ? 0
                : int_list(S, a->v[1], a->loc[1], a->name, perm, NR_MAX_RANK);
    if (n == 0) { /* Triton 3.x: the last two dims swapped, a (batched) 2-D transpose */
        if (x.ty.rank < 2 || !strcmp(a->name, "permute"))
            sema_error(S, a->call, "%s of a rank-%d block needs the permutation", a->name,
                       x.ty.rank);
        n = x.ty.rank;
        for (int i = 0; i < n; i++) perm[i] = i;
        perm[n - 2] = n - 1, perm[n - 1] = n - 2;
    }
    if (n != x.ty.rank)
        sema_error(S, a->call, "%s: the permutation has %d entries for a rank-%d block", a->name, n,
                   x.ty.rank);
    bool seen[NR_MAX_RANK] = {0};
    IrType r = x.ty;
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
            sema_error(S, a->call, "%s: not a permutation", a->name);
        seen[perm[i]] = true;
        r.shape[i] = x.ty.shape[perm[i]];
    }
    OpId op;
    ValId v = build(S, OP_TRANS, &x.v, 1, r, a->call, &op);
    for (int i = 0; i < n; i++) sema_func(S)->ops[op].attr[i] = perm[i];
    return sema_val_ir(S, v);
}

/* tl.reshape(x, *shape, can_reorder=False); x.view(*shape). can_reorder lets Triton's
 * compiler order the elements as it likes; Nereid keeps row-major order, one of the
 * orders allowed. */
static Val b_reshape(Sema *S, BArgs *a) {
    if (has(a, 2) && a->v[2].k != V_BOOL)
        sema_error(S, a->loc[2], "%s: can_reorder must be a compile-time bool, got %s", a->name,
                   sema_val_kind_name(S, a->v[2]));
    Val x = need_block(S, a, 0);
    int64_t dims[NR_MAX_RANK];
    int rank = need_shape(S, a->v[1], a->loc[1], a->name, dims);
    IrType r = shape_type(ty_elem(x.ty), rank, dims);
    if (ty_numel(r) != ty_numel(x.ty)) {
        char p[64], q[64];
        sema_error(S, a->call, "%s: cannot reshape %s to %s: the element counts differ", a->name,
                   ty_str(x.ty, p, sizeof p), ty_str(r, q, sizeof q));
    }
    if (ty_same_shape(r, x.ty)) return x;
    if (x.ty.rank == 0) return sema_val_ir(S, sema_emit_broadcast(S, x.v, r, a->call));
    return ir1(S, OP_RESHAPE, x.v, r, a->call);
}

/* A block of shape t whose last dim (of size 2) counts 0, 1: what join and split select
 * by. */
static ValId last_index(Sema *S, IrType t, Loc loc) {
    int32_t two = 2;
    OpId op;
    ValId v = build(S, OP_ARANGE, NULL, 0, ty_block(ty_scalar(DT_I32), 1, &two), loc, &op);
    sema_func(S)->ops[op].attr[0] = 0, sema_func(S)->ops[op].attr[1] = 2;
    for (int d = 0; d < t.rank - 1; d++) v = expand_at(S, v, 0, loc);
    return sema_emit_broadcast(S, v, ty_with_elem(t, ty_scalar(DT_I32)), loc);
}

/* tl.join(a, b): a and b (broadcast to one shape, promoted to one type) side by side
 * along a new last dim of size 2: [..., 0] is a, [..., 1] is b. Built of expand_dims,
 * broadcast and a select on that dim's index, so every back end runs it as those ops
 * (the GPU's layouts keep the new dim in each thread's registers). */
static Val b_join(Sema *S, BArgs *a) {
    Val x = a->v[0], y = a->v[1];
    for (int i = 0; i < 2; i++)
        if (a->v[i].k != V_IR && !sema_val_is_const(a->v[i]))
            sema_error(S, a->loc[i], "tl.join: expected a block or a number, got %s",
                       sema_val_kind_name(S, a->v[i]));
    ValId vx, vy;
    if (sema_type_of(x).dt == DT_PTR || sema_type_of(y).dt == DT_PTR) {
        if (x.k != V_IR || y.k != V_IR || !ty_equal(ty_elem(x.ty), ty_elem(y.ty)))
            sema_error(S, a->call, "tl.join: both values must be pointers of one type");
        vx = x.v, vy = y.v;
    } else {
        int dt = promote2(S, x, y, false, a->call);
        vx = sema_to_ir_dt(S, x, dt, a->loc[0]);
        vy = sema_to_ir_dt(S, y, dt, a->loc[1]);
    }
    IrType s =
        sema_broadcast_shape(S, ir_type(sema_func(S), vx), ir_type(sema_func(S), vy), a->call);
    if (s.rank + 1 > NR_MAX_RANK)
        sema_error(S, a->call, "tl.join: blocks have at most %d dimensions", NR_MAX_RANK);
    IrType r = s;
    r.shape[r.rank++] = 2;
    if (ty_numel(r) > NR_MAX_NUMEL)
        sema_error(S, a->call, "tl.join: the result has more than 2^20 elements");
    ValId px = expand_at(S, sema_emit_broadcast(S, vx, s, a->call), s.rank, a->call);
    ValId py = expand_at(S, sema_emit_broadcast(S, vy, s, a->call), s.rank, a->call);
    ValId idx = last_index(S, r, a->call);
    ValId first =
        sema_emit_broadcast(S, sema_emit_const(S, ty_scalar(DT_I32), sema_val_int(0), a->call),
                            ty_with_elem(r, ty_scalar(DT_I32)), a->call);
    ValId cmp_ops[2] = {idx, first};
    OpId cmp;
    ValId c = build(S, OP_CMP, cmp_ops, 2, ty_with_elem(r, ty_scalar(DT_I1)), a->call, &cmp);
    sema_func(S)->ops[cmp].attr[0] = CMP_PRED_EQ;
    ValId ops[3] = {
        c, sema_emit_broadcast(S, px, ty_with_elem(r, ty_elem(ir_type(sema_func(S), px))), a->call),
        sema_emit_broadcast(S, py, ty_with_elem(r, ty_elem(ir_type(sema_func(S), py))), a->call)};
    return sema_val_ir(S,
                       build(S, OP_SELECT, ops, 3,
                             ty_with_elem(r, ty_elem(ir_type(sema_func(S), vx))), a->call, NULL));
}

/* tl.cat(input, other, can_reorder): Triton's concatenation of two 1-D blocks of one type
 * (its verifier's SameTypeOperands), which Triton only implements with can_reorder=True
 * (the result's order is then unspecified). Here the order is kept, input then other, as
 * Triton's interpreter has it: join gives <N x 2>, its transpose <2 x N> holds input in
 * row 0 and other in row 1, and the reshape to <2N> lays the rows end to end. */
static Val b_cat(Sema *S, BArgs *a) {
    bool reorder = false;
    if (has(a, 2) && !sema_truthy_const(S, a->v[2], a->loc[2], &reorder))
        sema_error(S, a->loc[2], "tl.cat: can_reorder must be a compile-time bool, got %s",
                   sema_val_kind_name(S, a->v[2]));
    if (!reorder)
        sema_error(S, has(a, 2) ? a->loc[2] : a->call,
                   "tl.cat: Triton's cat may reorder elements and needs can_reorder=True "
                   "(\"current implementation of `cat` always may reorder elements\")");
    for (int i = 0; i < 2; i++)
        if (a->v[i].k != V_IR || a->v[i].ty.rank != 1 || ty_is_tdesc(a->v[i].ty))
            sema_error(S, a->loc[i], "tl.cat: expected a 1-D block, got %s",
                       sema_val_kind_name(S, a->v[i]));
    if (!ty_equal(a->v[0].ty, a->v[1].ty))
        sema_error(S, a->call,
                   "tl.cat: both blocks must have one type (as in Triton), got %s and %s",
                   sema_val_kind_name(S, a->v[0]), sema_val_kind_name(S, a->v[1]));
    Val j = b_join(S, a);
    IrType t = j.ty;
    t.shape[0] = 2, t.shape[1] = a->v[0].ty.shape[0];
    OpId op;
    ValId v = build(S, OP_TRANS, &j.v, 1, t, a->call, &op);
    sema_func(S)->ops[op].attr[0] = 1, sema_func(S)->ops[op].attr[1] = 0;
    t.rank = 1, t.shape[0] = 2 * a->v[0].ty.shape[0];
    return ir1(S, OP_RESHAPE, v, t, a->call);
}

/* tl.split(a): the two halves of a block whose last dim has size 2, as (a[..., 0],
 * a[..., 1]). Each is a sum over that dim of the block with the other half replaced by
 * an identity of addition (-0.0 for floats, which keeps every value bit for bit, 0 for
 * integers): exact, and on the GPU a register-local add. */
static Val b_split(Sema *S, BArgs *a) {
    Val x = need_block(S, a, 0);
    if (x.ty.rank == 0 || x.ty.shape[x.ty.rank - 1] != 2)
        sema_error(S, a->loc[0], "tl.split: the last dim must have size 2");
    if (x.ty.dt == DT_PTR) sema_error(S, a->loc[0], "tl.split: cannot split pointers");
    ValId v = x.v;
    bool is_bool = x.ty.dt == DT_I1;
    if (is_bool) v = sema_emit_cast(S, v, ty_scalar(DT_I8), false, a->call);
    IrType t = ir_type(sema_func(S), v);
    ValId idx = last_index(S, t, a->call);
    Val id = dt_is_float(t.dt) ? sema_val_float(-0.0) : sema_val_int(0);
    ValId zero = sema_emit_const(S, ty_with_elem(t, ty_elem(t)), id, a->call);
    Val items[2];
    for (int h = 0; h < 2; h++) {
        ValId k =
            sema_emit_broadcast(S, sema_emit_const(S, ty_scalar(DT_I32), sema_val_int(h), a->call),
                                ty_with_elem(t, ty_scalar(DT_I32)), a->call);
        ValId cmp_ops[2] = {idx, k};
        OpId cmp;
        ValId c = build(S, OP_CMP, cmp_ops, 2, ty_with_elem(t, ty_scalar(DT_I1)), a->call, &cmp);
        sema_func(S)->ops[cmp].attr[0] = CMP_PRED_EQ;
        ValId sel[3] = {c, v, zero};
        ValId m = build(S, OP_SELECT, sel, 3, t, a->call, NULL);
        ValId r = reduce_axis(S, m, RED_SUM, t.rank - 1, a->call);
        if (is_bool) r = sema_emit_cast(S, r, ty_scalar(DT_I1), false, a->call);
        items[h] = sema_val_ir(S, r);
    }
    return sema_val_tuple(S, items, 2);
}

/* tl.interleave(a, b): join along the last dim, then that dim and the new one merged:
 * a[..., i] at 2i, b[..., i] at 2i + 1; two scalars give the block [a, b]. */
static Val b_interleave(Sema *S, BArgs *a) {
    Val j = b_join(S, a);
    if (j.ty.rank == 1) return j; /* two scalars: the join is [a, b] already */
    IrType r = j.ty;
    r.shape[r.rank - 2] *= 2;
    r.rank--;
    return ir1(S, OP_RESHAPE, j.v, r, a->call);
}

static Val b_broadcast_to(Sema *S, BArgs *a) {
    Val x = need_block(S, a, 0);
    int64_t dims[NR_MAX_RANK];
    int rank = need_shape(S, a->v[1], a->loc[1], a->name, dims);
    return sema_val_ir(S,
                       sema_emit_broadcast(S, x.v, shape_type(ty_elem(x.ty), rank, dims), a->call));
}

static Val b_broadcast(Sema *S, BArgs *a) {
    Val x = need_block(S, a, 0), y = need_block(S, a, 1);
    IrType s = sema_broadcast_shape(S, x.ty, y.ty, a->call);
    Val items[2] = {sema_val_ir(S, broadcast_to_shape_of(S, x.v, s, a->call)),
                    sema_val_ir(S, broadcast_to_shape_of(S, y.v, s, a->call))};
    return sema_val_tuple(S, items, 2);
}

/* tl.expand_dims(x, axis): axis an int or a tuple of them, each an index into the result
 * (negative from its end), as Triton checks them: each in range, none repeated; the new
 * dims are inserted in increasing order. A number is a scalar block first. */
static Val b_expand_dims(Sema *S, BArgs *a) {
    Val x = need_block(S, a, 0);
    int64_t axes[64];
    int n = int_list(S, a->v[1], a->loc[1], a->name, axes, 64);
    int64_t nd = x.ty.rank + n;
    for (int i = 0; i < n; i++) {
        if (axes[i] < -nd || axes[i] >= nd)
            sema_error(S, a->loc[1], "invalid axis %lld. Expected %lld <= axis < %lld",
                       (long long)axes[i], (long long)-nd, (long long)nd);
        if (axes[i] < 0) axes[i] += nd;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (axes[i] == axes[j]) {
                StrBuf sb;
                sb_init(&sb);
                for (int k = 0; k < n; k++)
                    sb_printf(&sb, "%s%lld", k ? ", " : "", (long long)axes[k]);
                const char *list = arena_strdup(S->arena, sb.data);
                sb_free(&sb);
                sema_error(S, a->loc[1],
                           "expand_dims received duplicate axes, normalized axes = [%s]", list);
            }
    if (nd > NR_MAX_RANK)
        sema_error(S, a->call, "expand_dims: blocks have at most %d dimensions", NR_MAX_RANK);
    for (int i = 1; i < n; i++) /* increasing order: each index is one of the result's */
        for (int j = i; j > 0 && axes[j - 1] > axes[j]; j--) {
            int64_t t = axes[j];
            axes[j] = axes[j - 1], axes[j - 1] = t;
        }
    ValId v = x.v;
    for (int i = 0; i < n; i++) v = expand_at(S, v, (int)axes[i], a->call);
    return sema_val_ir(S, v);
}

/* ---- tl.map_elementwise ---- */

/* The columns of x, a <M x p> block (p a power of two), as p blocks <M>: split into even
 * and odd columns until one is left. */
static void pack_columns(Sema *S, ValId x, int p, ValId *cols, Loc loc) {
    IrType t = ir_type(sema_func(S), x);
    if (p == 1) {
        cols[0] = build(S, OP_RESHAPE, &x, 1, ty_block(ty_elem(t), 1, t.shape), loc, NULL);
        return;
    }
    int32_t dims[3] = {t.shape[0], p / 2, 2};
    Val y = sema_val_ir(S, build(S, OP_RESHAPE, &x, 1, ty_block(ty_elem(t), 3, dims), loc, NULL));
    CallArgs ca = {.pos = &y, .npos = 1, .loc = loc};
    Val halves = sema_call_builtin(S, sema_builtin_find("split"), NULL, &ca);
    ValId even[MAX_COMBINE * 4], odd[MAX_COMBINE * 4];
    pack_columns(S, halves.items[0].v, p / 2, even, loc);
    pack_columns(S, halves.items[1].v, p / 2, odd, loc);
    for (int k = 0; k < p / 2; k++) cols[2 * k] = even[k], cols[2 * k + 1] = odd[k];
}

/* The inverse: p blocks <M> as the columns of a <M x p> block. */
static ValId pack_join(Sema *S, const ValId *cols, int p, Loc loc) {
    IrType t = ir_type(sema_func(S), cols[0]);
    if (p == 1) {
        int32_t dims[2] = {t.shape[0], 1};
        return build(S, OP_RESHAPE, cols, 1, ty_block(ty_elem(t), 2, dims), loc, NULL);
    }
    ValId even[MAX_COMBINE * 4], odd[MAX_COMBINE * 4];
    for (int k = 0; k < p / 2; k++) even[k] = cols[2 * k], odd[k] = cols[2 * k + 1];
    Val two[2] = {sema_val_ir(S, pack_join(S, even, p / 2, loc)),
                  sema_val_ir(S, pack_join(S, odd, p / 2, loc))};
    CallArgs ca = {.pos = two, .npos = 2, .loc = loc};
    Val j = sema_call_builtin(S, sema_builtin_find("join"), NULL, &ca);
    int32_t dims[2] = {t.shape[0], p};
    return build(S, OP_RESHAPE, &j.v, 1, ty_block(ty_elem(t), 2, dims), loc, NULL);
}

/* tl.map_elementwise(scalar_fn, *args, pack=1): scalar_fn applied to each element of the
 * args (broadcast to one shape), or to each group of `pack` consecutive elements (its
 * parameters: pack elements of the first arg, then of the second, ...; its results: pack
 * values of the first output, then of the second, ...). The function is lowered once on
 * scalars, its helpers in place, in a region of its own; its run-time ifs become selects
 * (both sides computed: the same values, as every such op is defined on every input), and
 * its ops are then emitted again on blocks of the args' shape. A function that loads,
 * stores, loops or prints is an error. */
static Val b_map_elementwise(Sema *S, BArgs *a) {
    Val fn = a->v[0], tup = a->v[1];
    if (fn.k != V_FUNC)
        sema_error(S, a->loc[0],
                   "tl.map_elementwise: scalar_fn must be a @triton.jit function, got %s",
                   sema_val_kind_name(S, fn));
    int64_t pack = 1;
    if (has(a, 2)) {
        if (a->v[2].k != V_INT || a->v[2].i < 1 || a->v[2].i > 16 || (a->v[2].i & (a->v[2].i - 1)))
            sema_error(S, a->loc[2], "tl.map_elementwise: pack must be 1, 2, 4, 8 or 16");
        pack = a->v[2].i;
    }
    int n = tup.n;
    if (n < 1 || n * pack > 2 * MAX_COMBINE)
        sema_error(S, a->call, "tl.map_elementwise: takes 1 to %d tensors (times pack)",
                   (int)(2 * MAX_COMBINE / pack));
    ValId ins[2 * MAX_COMBINE];
    IrType shape = ty_scalar(DT_I32);
    for (int i = 0; i < n; i++) {
        Val v = tup.items[i];
        if (v.k != V_IR && !sema_val_is_const(v))
            sema_error(S, a->call, "tl.map_elementwise: argument %d must be a tensor, got %s",
                       i + 1, sema_val_kind_name(S, v));
        ins[i] = sema_to_ir(S, v, a->call);
        shape = i ? sema_broadcast_shape(S, shape, ir_type(sema_func(S), ins[i]), a->call)
                  : ir_type(sema_func(S), ins[i]);
    }
    for (int i = 0; i < n; i++)
        ins[i] = sema_emit_broadcast(
            S, ins[i], ty_with_elem(shape, ty_elem(ir_type(sema_func(S), ins[i]))), a->call);
    int64_t numel = ty_numel(shape);
    if (numel % pack)
        sema_error(S, a->call, "tl.map_elementwise: %lld elements do not split into packs of %lld",
                   (long long)numel, (long long)pack);
    /* the per-call operands: each arg's pack columns, as blocks <numel / pack> */
    int m = (int)(n * pack);
    ValId cols[2 * MAX_COMBINE];
    int32_t rows = (int32_t)(numel / pack);
    for (int i = 0; i < n; i++) {
        IrType e = ty_elem(ir_type(sema_func(S), ins[i]));
        if (pack == 1) { /* one column: the args themselves, flat */
            cols[i] = shape.rank == 1
                          ? ins[i]
                          : build(S, OP_RESHAPE, &ins[i], 1, ty_block(e, 1, &rows), a->call, NULL);
            continue;
        }
        int32_t dims[2] = {rows, (int32_t)pack};
        ValId x2 = build(S, OP_RESHAPE, &ins[i], 1, ty_block(e, 2, dims), a->call, NULL);
        pack_columns(S, x2, (int)pack, cols + i * pack, a->call);
    }
    /* the function on scalars, in a region of its own */
    IrFunc *f = sema_func(S);
    RegionId r = ir_region_new(f, 0);
    Val args[2 * MAX_COMBINE];
    for (int i = 0; i < m; i++)
        args[i] = sema_val_ir(S, ir_region_add_arg(f, r, ty_elem(ir_type(f, cols[i]))));
    RegionId old = sema_builder(S)->region;
    sema_builder(S)->region = r;
    S->inline_calls++;
    CallArgs ca = {.pos = args, .npos = m, .loc = a->call};
    Val ret = sema_call_value(S, fn, &ca);
    S->inline_calls--;
    int nret = ret.k == V_TUPLE ? ret.n : 1;
    if (nret % pack || nret > 2 * MAX_COMBINE)
        sema_error(
            S, a->call,
            "tl.map_elementwise: the function returns %d values: a multiple of pack (%lld) needed",
            nret, (long long)pack);
    ValId outs[2 * MAX_COMBINE];
    for (int k = 0; k < nret; k++) {
        Val v = ret.k == V_TUPLE ? ret.items[k] : ret;
        if (v.k != V_IR && !sema_val_is_const(v))
            sema_error(S, a->call, "tl.map_elementwise: the function must return scalars, got %s",
                       sema_val_kind_name(S, v));
        if (v.k == V_IR && v.ty.rank)
            sema_error(S, a->call, "tl.map_elementwise: the function must return scalars, got %s",
                       sema_val_kind_name(S, v));
        outs[k] = sema_to_ir(S, v, a->call);
    }
    sema_builder(S)->region = old;
    Flatten fl = {0};
    f = sema_func(S);
    flatten_ifs(f, r, &fl, S->ir, 0);
    if (fl.n) { /* r hangs from no op: its uses are replaced here, nested ones resolved */
        ValId *repl = ir_repl_new(f);
        for (int k = 0; k < fl.n; k++) repl[fl.from[k]] = fl.to[k];
        for (uint32_t i = 0; i < f->regions[r].nops; i++) {
            IrOp *op = &f->ops[f->regions[r].ops[i]];
            for (uint32_t j = 0; j < op->nopnds; j++)
                for (int hop = 0; hop < fl.n && repl[op->operands[j]]; hop++)
                    op->operands[j] = repl[op->operands[j]];
        }
        for (int k = 0; k < nret; k++)
            for (int hop = 0; hop < fl.n && repl[outs[k]]; hop++) outs[k] = repl[outs[k]];
        free(repl);
    }
    free(fl.from), free(fl.to);
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        const IrOp *op = &f->ops[f->regions[r].ops[i]];
        unsigned fl_ = ir_op_info[op->code].flags;
        if (op->code != OP_CONST && !(op->code == OP_SELECT || (fl_ & F_ELEM && fl_ & F_PURE) ||
                                      op->code == OP_CVT || op->code == OP_BITCAST))
            sema_error_from(
                S, op->loc, a->call, "in the function of this tl.map_elementwise",
                "tl.map_elementwise: the function may only compute on its scalars "
                "(if/else, arithmetic, math; no loads, stores, loops, prints or asserts), "
                "got '%s'",
                ir_op_info[op->code].name);
    }
    /* again, on blocks <rows> */
    ValId *map = ir_repl_new(f);
    for (int i = 0; i < m; i++) map[args[i].v] = cols[i];
    uint32_t nops = f->regions[r].nops;
    OpId *ops = ir_region_copy_ops(f, r, &nops);
    for (uint32_t i = 0; i < nops; i++) {
        f = sema_func(S);
        OpId d = ir_clone_op(f, sema_builder(S)->region, f, ops[i], map);
        f = sema_func(S);
        for (uint32_t k = 0; k < f->ops[d].nres; k++) {
            ValId v = f->ops[d].results[k];
            f->vals[v].ty =
                ty_with_elem(ty_block(ty_scalar(DT_I32), 1, &rows), ty_elem(f->vals[v].ty));
        }
        f->ops[d].loc = a->call;
    }
    free(ops);
    ValId res[2 * MAX_COMBINE];
    for (int k = 0; k < nret; k++) {
        ValId v = map[outs[k]];
        if (!v) { /* an argument or a value from outside: its block, or a broadcast */
            v = sema_emit_broadcast(S, outs[k],
                                    ty_with_elem(ty_block(ty_scalar(DT_I32), 1, &rows),
                                                 ty_elem(ir_type(sema_func(S), outs[k]))),
                                    a->call);
        }
        res[k] = v;
    }
    free(map);
    int nout = nret / (int)pack;
    Val items[2 * MAX_COMBINE];
    for (int k = 0; k < nout; k++) {
        ValId flat = res[k * pack];
        IrType e = ty_elem(ir_type(sema_func(S), flat));
        if (pack > 1) {
            ValId x2 = pack_join(S, res + k * pack, (int)pack, a->call);
            int32_t all = (int32_t)numel;
            flat = build(S, OP_RESHAPE, &x2, 1, ty_block(e, 1, &all), a->call, NULL);
        }
        ValId out = flat;
        if (shape.rank == 0) out = sema_unsplat(S, flat, a->call);
        else if (shape.rank > 1)
            out = build(S, OP_RESHAPE, &flat, 1, ty_with_elem(shape, e), a->call, NULL);
        items[k] = sema_val_ir(S, out);
    }
    return nout == 1 ? items[0] : sema_val_tuple(S, items, nout);
}

/* ---- conversions ---- */

/* fp_downcast_rounding (Triton's semantic.cast): None, 'rtne' (the default: every cast
 * rounds to nearest even) or 'rtz' (toward zero), and only on a conversion from a float to
 * a narrower one; 'rtz' is a cvt {rtz = 1}, which Triton's NVIDIA back end (and so Nereid)
 * has for fp32, fp16, bf16 and fp8e5 results. Returns whether to round toward zero. */
static bool cast_rounding(Sema *S, BArgs *a, int src, int dst) {
    if (!has(a, 2) || a->v[2].k == V_NONE) return false;
    if (a->v[2].k != V_STR)
        sema_error(S, a->loc[2], "fp_downcast_rounding must be 'rtne' or 'rtz', got %s",
                   sema_val_kind_name(S, a->v[2]));
    bool rtz = !strcmp(a->v[2].s, "rtz");
    if (!rtz && strcmp(a->v[2].s, "rtne"))
        sema_error(S, a->loc[2], "fp_downcast_rounding must be 'rtne' or 'rtz', got '%s'",
                   a->v[2].s);
    if (src == dst) return false; /* Triton returns the operand before looking */
    if (!dt_is_float(src) || !dt_is_float(dst) || dt_bits(dst) >= dt_bits(src))
        sema_error(S, a->loc[2],
                   "fp_downcast_rounding should be set only for truncating fp conversions; "
                   "the source type is %s and the destination type is %s",
                   dt_name(src), dt_name(dst));
    if (rtz && dst != DT_FP32 && dst != DT_FP16 && dst != DT_BF16 && dst != DT_FP8E5)
        sema_error(S, a->loc[2],
                   "fp_downcast_rounding='rtz' to %s is not supported (as in Triton's NVIDIA "
                   "back end, a conversion rounds toward zero only to fp32, fp16, bf16 and "
                   "fp8e5)",
                   dt_name(dst));
    return rtz;
}

static Val b_to(Sema *S, BArgs *a) {
    IrType dt = need_dtype(S, a, 1);
    bool bitcast = has(a, 3) && a->v[3].k == V_BOOL && a->v[3].i;
    Val x = a->v[0];
    bool is_const = sema_val_is_const(x) && !bitcast && dt.dt != DT_PTR;
    int src = x.k == V_IR            ? x.ty.dt
              : sema_val_is_const(x) ? sema_const_dtype(S, x, a->loc[0])
                                     : DT_PTR; /* need_block reports it */
    bool rtz = !bitcast && src != DT_PTR && dt.dt != DT_PTR && cast_rounding(S, a, src, dt.dt);
    if (is_const && !rtz) return sema_val_ir(S, sema_emit_const(S, dt, x, a->loc[0]));
    x = need_block(S, a, 0);
    if (x.ty.dt == DT_PTR || dt.dt == DT_PTR)
        return sema_val_ir(S, sema_emit_ptr_cast(S, x.v, dt, a->call));
    if (rtz) {
        OpId op;
        ValId r = build(S, OP_CVT, &x.v, 1, ty_with_elem(x.ty, dt), a->call, &op);
        sema_func(S)->ops[op].attr[0] = 1;
        return sema_val_ir(S, r);
    }
    return sema_val_ir(S, sema_emit_cast(S, x.v, dt, bitcast, a->call));
}

static Val b_to_tensor(Sema *S, BArgs *a) { return need_block(S, a, 0); }

/* tl.pointer_type(element_ty, address_space=1, const=False): the dtype of a pointer to
 * element_ty, for ptr.to(...) (a pointer cast) and comparisons with ptr.dtype;
 * address_space and const are accepted and ignored, as Triton's lowering of global
 * pointers does. */
static Val b_pointer_type(Sema *S, BArgs *a) {
    IrType t = need_dtype(S, a, 0);
    if (t.dt == DT_PTR)
        sema_error(S, a->loc[0], "pointer_type: pointers to pointers are not supported");
    return sema_val_dtype(ty_ptr(t.dt));
}
static Val b_identity(Sema *S, BArgs *a) {
    (void)S;
    return a->v[0];
}

/* ---- assertions, printing, hints ---- */

static Val b_static_assert(Sema *S, BArgs *a) {
    bool t;
    if (!sema_truthy_const(S, a->v[0], a->loc[0], &t))
        sema_error(S, a->loc[0], "static_assert needs a compile-time condition, got %s",
                   sema_val_kind_name(S, a->v[0]));
    if (!t) {
        const char *msg = has(a, 1) && a->v[1].k == V_STR ? a->v[1].s : "";
        sema_error(S, a->call, "static_assert failed%s%s", *msg ? ": " : "", msg);
    }
    return sema_val_none();
}

static Val b_device_assert(Sema *S, BArgs *a) {
    ValId c = sema_to_i1(S, a->v[0], a->loc[0]);
    if (has(a, 2)) {
        ValId m = need_mask(S, a, 2), nm;
        IrType s =
            sema_broadcast_shape(S, ir_type(sema_func(S), c), ir_type(sema_func(S), m), a->call);
        nm = ir1(S, OP_NOT, sema_emit_broadcast(S, m, s, a->call),
                 ty_with_elem(s, ty_scalar(DT_I1)), a->call)
                 .v;
        ValId ops[2] = {sema_emit_broadcast(S, c, s, a->call), nm};
        c = build(S, OP_OR, ops, 2, ty_with_elem(s, ty_scalar(DT_I1)), a->call, NULL);
    }
    sema_emit_assert(S, c, has(a, 1) && a->v[1].k == V_STR ? a->v[1].s : "device_assert failed",
                     a->call);
    return sema_val_none();
}

static Val b_static_print(Sema *S, BArgs *a) {
    StrBuf sb;
    sb_init(&sb);
    Val t = a->v[0];
    for (int i = 0; i < t.n; i++) {
        if (i) sb_putc(&sb, ' ');
        sema_val_format(S, &sb, t.items[i], false, true); /* blocks: what they are */
    }
    diag_note(S->diag, a->call, "static_print: %s", sb_cstr(&sb));
    sb_free(&sb);
    return sema_val_none();
}

static Val emit_print(Sema *S, const char *prefix, Val args, bool hex, Loc loc) {
    ValId *ops = arena_alloc(S->arena, sizeof(ValId) * (size_t)(args.n + 1));
    for (int i = 0; i < args.n; i++)
        ops[i] = sema_fp8_widen(S, sema_to_ir(S, args.items[i], loc), loc);
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    OpId op = ir_build(sema_builder(S), OP_PRINT, ops, (uint32_t)args.n, NULL, 0);
    sema_builder(S)->loc = saved;
    sema_func(S)->ops[op].attr[0] = hex;
    sema_func(S)->ops[op].sattr = prefix;
    return sema_val_none();
}

static Val b_device_print(Sema *S, BArgs *a) {
    if (a->v[0].k != V_STR) sema_error(S, a->loc[0], "device_print: the prefix must be a string");
    return emit_print(S, a->v[0].s, a->v[1], has(a, 2) && a->v[2].k == V_BOOL && a->v[2].i,
                      a->call);
}

static Val b_py_print(Sema *S, BArgs *a) {
    Val t = a->v[0];
    const char *prefix = "";
    if (t.n && t.items[0].k == V_STR) prefix = t.items[0].s, t.items++, t.n--;
    return emit_print(S, prefix, t, false, a->call);
}

static Val b_hint(Sema *S, BArgs *a) {
    Val x = need_block(S, a, 0);
    int64_t vals[NR_MAX_RANK];
    int n = int_list(S, a->v[1], a->loc[1], a->name, vals, NR_MAX_RANK);
    int rank = x.ty.rank ? x.ty.rank : 1;
    if (n == 1)
        for (int i = 1; i < rank; i++) vals[i] = vals[0];
    else if (n != rank)
        sema_error(S, a->loc[1], "%s: give one value per dimension (%d)", a->name, rank);
    for (int i = 0; i < rank; i++)
        if (vals[i] <= 0) sema_error(S, a->loc[1], "%s: values must be positive", a->name);
    OpId op;
    int code = !strcmp(a->name, "multiple_of")      ? OP_MULTIPLE_OF
               : !strcmp(a->name, "max_contiguous") ? OP_MAX_CONTIGUOUS
                                                    : OP_MAX_CONSTANCY;
    ValId v = build(S, code, &x.v, 1, x.ty, a->call, &op);
    for (int i = 0; i < rank; i++) sema_func(S)->ops[op].attr[i] = vals[i];
    /* Triton's hints mark the value itself (an attribute of the op that defines it), so
     * `tl.multiple_of(offs, 16)` as a statement still tells the loads of offs: the
     * variables holding x hold the hinted value from here on, where x was defined in this
     * region (a value from an enclosing loop or branch stays as it is there) */
    IrFunc *f = sema_func(S);
    const IrValue *xv = &f->vals[x.v];
    RegionId home = xv->is_arg ? xv->def : f->ops[xv->def].parent;
    Env *e = S->fs ? S->fs->env : NULL;
    if (e && home == S->fs->b.region) {
        Val hv = sema_val_ir(S, v);
        for (int i = 0; i < e->n; i++)
            if (e->vals[i].k == V_IR && e->vals[i].v == x.v) e->vals[i] = hv;
    }
    return sema_val_ir(S, v);
}

static Val b_assume(Sema *S, BArgs *a) {
    bool t;
    if (sema_truthy_const(S, a->v[0], a->loc[0], &t)) {
        if (!t) sema_error(S, a->loc[0], "tl.assume of a condition that is always false");
        return sema_val_none();
    }
    ValId c = sema_to_i1(S, a->v[0], a->loc[0]);
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = a->call;
    ir_build(sema_builder(S), OP_ASSUME, &c, 1, NULL, 0);
    sema_builder(S)->loc = saved;
    return sema_val_none();
}

/* tl.condition(cond, disable_licm=False): a while loop's condition with a hint for the
 * compiler (keep loop-invariant code inside the loop); the value is the condition. The hint
 * is checked and ignored, as tl.range's disable_licm is: a performance hint only. */
static Val b_condition(Sema *S, BArgs *a) {
    if (has(a, 1) && a->v[1].k != V_BOOL)
        sema_error(S, a->loc[1], "tl.condition: disable_licm must be a compile-time bool, got %s",
                   sema_val_kind_name(S, a->v[1]));
    return a->v[0];
}

/* constexpr_type(value): the type of a constexpr (triton.language.core's), for comparing
 * with x.type */
/* Triton's triton.language.core.get_int_dtype(bitwidth, signed): the integer dtype of a
 * width (1, 8, 16, 32 or 64), signed or not (i1 either way). */
static Val b_get_int_dtype(Sema *S, BArgs *a) {
    bool sign = true;
    if (a->v[0].k != V_INT && a->v[0].k != V_BOOL)
        sema_error(S, a->loc[0], "get_int_dtype's bitwidth must be a compile-time int, got %s",
                   sema_val_kind_name(S, a->v[0]));
    if (!sema_truthy_const(S, a->v[1], a->loc[1], &sign))
        sema_error(S, a->loc[1], "get_int_dtype's signed must be a compile-time bool, got %s",
                   sema_val_kind_name(S, a->v[1]));
    int64_t bits = a->v[0].i;
    int dt = bits == 1    ? DT_I1
             : bits == 8  ? (sign ? DT_I8 : DT_U8)
             : bits == 16 ? (sign ? DT_I16 : DT_U16)
             : bits == 32 ? (sign ? DT_I32 : DT_U32)
             : bits == 64 ? (sign ? DT_I64 : DT_U64)
                          : -1;
    if (dt < 0) {
        sema_error(S, a->loc[0], "Unsupported bitwidth %lld and signedness %s", (long long)bits,
                   sign ? "True" : "False");
        return sema_val_none();
    }
    return sema_val_dtype(ty_scalar(dt));
}

/* Argument 0 of a constexpr function called in a kernel (as Triton's code generator calls
 * a Python function on constexprs): a compile-time int, or the error naming the function. */
static int64_t const_int_arg(Sema *S, BArgs *a) {
    if (a->v[0].k != V_INT && a->v[0].k != V_BOOL)
        sema_error(S, a->loc[0], "%s needs a compile-time int, got %s", a->name,
                   sema_val_kind_name(S, a->v[0]));
    return a->v[0].i;
}

/* triton.next_power_of_2(n), as Triton's (its bit trick: 0 gives 0, 1 gives 1, 5 gives 8;
 * flash-linear-attention: `BK: tl.constexpr = triton.next_power_of_2(K)`). */
static Val b_next_power_of_2(Sema *S, BArgs *a) {
    int64_t n = const_int_arg(S, a), p;
    if (!py_next_power_of_2(n, &p))
        sema_error(S, a->loc[0], "next_power_of_2(%lld) does not fit in 64 bits", (long long)n);
    return sema_val_int(p);
}

/* triton.language.standard's constexpr functions _log2(i) (the floor of log2 for i > 1,
 * else 0: its halving loop) and _is_power_of_two(i) (flash-linear-attention's
 * `n_dims: tl.constexpr = tl.standard._log2(x.shape[0])`). */
static Val b_log2_constexpr(Sema *S, BArgs *a) {
    int64_t i = const_int_arg(S, a);
    int log2 = 0;
    for (uint64_t n = i > 1 ? (uint64_t)i : 0; n > 1; n >>= 1) log2++;
    return sema_val_int(log2);
}

static Val b_is_power_of_two(Sema *S, BArgs *a) {
    int64_t i = const_int_arg(S, a);
    return sema_val_bool(i != 0 && (i & (int64_t)((uint64_t)i - 1)) == 0);
}

static Val b_constexpr_type(Sema *S, BArgs *a) {
    if (!sema_val_is_constexpr(a->v[0]))
        sema_error(S, a->loc[0], "constexpr_type needs a compile-time value, got %s",
                   sema_val_kind_name(S, a->v[0]));
    return sema_val_ctype(S, a->v[0]);
}

/* ---- Python builtins ---- */

static Val b_py_minmax(Sema *S, BArgs *a) {
    bool is_max = !strcmp(a->name, "max");
    Val t = a->v[0];
    if (t.n == 1 && t.items[0].k == V_TUPLE) t = t.items[0];
    if (t.n == 0) sema_error(S, a->call, "%s() needs at least one argument", a->name);
    Val acc = t.items[0];
    for (int i = 1; i < t.n; i++) {
        Val y = t.items[i];
        if (sema_val_is_const(acc) && sema_val_is_const(y)) acc = const_minmax(acc, y, is_max);
        else {
            BArgs b = *a;
            b.v[0] = acc, b.v[1] = y, b.loc[0] = b.loc[1] = a->call;
            b.name = is_max ? "maximum" : "minimum";
            acc = strong_minmax(S, &b, is_max, acc, y, false);
        }
    }
    return acc;
}

static Val b_py_abs(Sema *S, BArgs *a) {
    a->name = "abs";
    return b_math1(S, a);
}

static Val parse_number(Sema *S, Val s, Loc loc, bool want_float) {
    char *end;
    const char *t = s.s;
    if (!strcmp(t, "inf") || !strcmp(t, "+inf") || !strcmp(t, "infinity"))
        return sema_val_float(INFINITY);
    if (!strcmp(t, "-inf") || !strcmp(t, "-infinity")) return sema_val_float(-INFINITY);
    if (!strcmp(t, "nan")) return sema_val_float(NAN);
    if (want_float) {
        double d = strtod(t, &end);
        if (*t && !*end) return sema_val_float(d);
    } else {
        long long i = strtoll(t, &end, 10);
        if (*t && !*end) return sema_val_int(i);
    }
    sema_error(S, loc, "cannot convert '%s' to a number", t);
}

static Val b_py_float(Sema *S, BArgs *a) {
    Val x = a->v[0];
    if (x.k == V_STR) return parse_number(S, x, a->loc[0], true);
    if (sema_val_is_const(x)) return sema_val_float(x.k == V_FLOAT ? x.f : (double)x.i);
    x = need_block(S, a, 0);
    return sema_val_ir(S, sema_emit_cast(S, x.v, ty_scalar(DT_FP32), false, a->call));
}

static Val b_py_int(Sema *S, BArgs *a) {
    Val x = a->v[0];
    if (x.k == V_STR) return parse_number(S, x, a->loc[0], false);
    if (x.k == V_FLOAT) {
        if (!isfinite(x.f) || fabs(x.f) >= 9.2e18)
            sema_error(S, a->loc[0], "cannot convert %g to int", x.f);
        return sema_val_int((int64_t)x.f);
    }
    if (sema_val_is_const(x)) return sema_val_int(x.i);
    x = need_block(S, a, 0);
    return sema_val_ir(S, sema_emit_cast(S, x.v, ty_scalar(DT_I32), false, a->call));
}

static Val b_py_bool(Sema *S, BArgs *a) {
    bool t;
    if (sema_truthy_const(S, a->v[0], a->loc[0], &t)) return sema_val_bool(t);
    return sema_val_ir(S, sema_to_i1(S, a->v[0], a->loc[0]));
}

static Val b_py_len(Sema *S, BArgs *a) {
    Val x = a->v[0];
    if (x.k == V_TUPLE) return sema_val_int(x.n);
    if (x.k == V_STR) return sema_val_int((int64_t)x.slen);
    if (x.k == V_IR && x.ty.rank) return sema_val_int(x.ty.shape[0]);
    sema_error(S, a->loc[0], "len() of %s", sema_val_kind_name(S, x));
}

/* getattr(obj, name[, default]) and hasattr(obj, name) with a compile-time string name,
 * as Python evaluates them on Triton's objects at compile time: getattr(tl, fn_name),
 * getattr(tl.PropagateNan, mode), hasattr(x, "dtype"). */
static const char *attr_name(Sema *S, BArgs *a) {
    if (a->v[1].k != V_STR)
        sema_error(S, a->loc[1], "%s(): attribute name must be a compile-time string, got %s",
                   a->name, sema_val_kind_name(S, a->v[1]));
    if (strlen(a->v[1].s) != a->v[1].slen)
        sema_error(S, a->loc[1], "%s(): attribute name contains a NUL character", a->name);
    return a->v[1].s;
}

static Val b_getattr(Sema *S, BArgs *a) {
    const char *name = attr_name(S, a);
    if (a->given[2] && !sema_has_attr(S, a->v[0], name, a->loc[1])) return a->v[2];
    return sema_get_attr(S, a->v[0], name, a->loc[1]);
}

static Val b_hasattr(Sema *S, BArgs *a) {
    return sema_val_bool(sema_has_attr(S, a->v[0], attr_name(S, a), a->loc[1]));
}

/* isinstance(obj, classinfo) in a kernel, as Triton's code generator computes it: the
 * compile-time values unwrapped from their constexprs (so isinstance(N, int) holds for an
 * int constexpr and isinstance(N, tl.constexpr) never does), run-time values tl.tensor
 * (block pointers too), descriptors made in the kernel or passed by the host
 * tl.tensor_descriptor; classinfo a type or a tuple of them. A compile-time bool. */
static bool builtin_is_py(int id);

static bool instance_of(Sema *S, Val x, Val cls, Loc loc) {
    if (cls.k == V_TUPLE && cls.tag == TAG_NONE) {
        for (int i = 0; i < cls.n; i++)
            if (instance_of(S, x, cls.items[i], loc)) return true;
        return false;
    }
    if (cls.k == V_NTCLASS) { /* an instance of that class: its name and fields */
        if (x.k != V_TUPLE || !x.fields || x.n != cls.n || strcmp(x.s, cls.s)) return false;
        for (int i = 0; i < cls.n; i++)
            if (strcmp(x.fields[i], cls.fields[i])) return false;
        return true;
    }
    const char *c = cls.k == V_BUILTIN ? sema_builtin_name(cls.builtin) : NULL;
    bool py = cls.k == V_BUILTIN && builtin_is_py(cls.builtin);
    static const char *const types[] = {"tensor",
                                        "tensor_descriptor",
                                        "tensor_descriptor_base",
                                        "dtype",
                                        "block_type",
                                        "pointer_type",
                                        "constexpr",
                                        "constexpr_type",
                                        "base_value",
                                        "base_type",
                                        "tuple",
                                        "int",
                                        "float",
                                        "bool",
                                        "str"};
    bool known = false;
    for (size_t i = 0; c && i < sizeof types / sizeof *types; i++) known |= !strcmp(c, types[i]);
    if (!known)
        sema_error(S, loc,
                   "isinstance() arg 2 must be a type or a tuple of types (tl.tensor, "
                   "tl.tensor_descriptor, tl.dtype, tl.constexpr, tl.constexpr_type, int, float, "
                   "bool, str, tuple, a namedtuple class), got %s",
                   sema_val_kind_name(S, cls));
    bool desc = sema_is_host_desc(x) || (x.k == V_TUPLE && x.tag == TAG_TENSOR_DESC);
    if (!strcmp(c, "tensor")) return !desc && (x.k == V_IR || (x.k == V_TUPLE && x.tag));
    if (!strncmp(c, "tensor_descriptor", 17)) return desc;
    if (!strcmp(c, "dtype")) return x.k == V_DTYPE;
    if (!strcmp(c, "pointer_type")) return x.k == V_DTYPE && x.ty.dt == DT_PTR && !x.ty.rank;
    if (!strcmp(c, "block_type")) return x.k == V_DTYPE && x.ty.rank > 0; /* a block's .type */
    if (!strcmp(c, "tuple")) return x.k == V_TUPLE && x.tag == TAG_NONE;
    if (!strcmp(c, "int")) return py && (x.k == V_INT || x.k == V_BOOL); /* bool is an int */
    if (!strcmp(c, "float")) return x.k == V_FLOAT;
    if (!strcmp(c, "bool")) return x.k == V_BOOL;
    if (!strcmp(c, "str")) return x.k == V_STR;
    /* the .type of a constexpr (N.type); Triton's base classes: of values (tensors, tuples,
     * descriptors) and of types (dtypes, constexpr_type) */
    if (!strcmp(c, "constexpr_type")) return x.k == V_CTYPE;
    if (!strcmp(c, "base_value")) return x.k == V_IR || x.k == V_TUPLE;
    if (!strcmp(c, "base_type")) return x.k == V_DTYPE || x.k == V_CTYPE;
    return false; /* tl.constexpr: Triton unwraps the value first */
}

static Val b_isinstance(Sema *S, BArgs *a) {
    return sema_val_bool(instance_of(S, a->v[0], a->v[1], a->loc[1]));
}

/* tl.tensor, tl.tensor_descriptor, str: classes for isinstance, not functions a kernel
 * calls (Triton's code generator does not know `str` at all: "str is not defined") */
static Val b_type_object(Sema *S, BArgs *a) {
    sema_error(S, a->call, "'%s' is a type (for isinstance): a kernel cannot call it", a->name);
}

/* tl.dtype(name): the dtype of that name, a compile-time string ("uint16", "fp32", ...:
 * triton_kernels' top-k makes its unsigned type so, tl.dtype(f"uint{bits}")); the class
 * for isinstance otherwise. */
static Val b_dtype(Sema *S, BArgs *a) {
    Val t = a->v[0]; /* the arguments */
    if (t.n != 1 || t.items[0].k != V_STR)
        sema_error(S, a->call,
                   "tl.dtype() takes one dtype name, a compile-time string such as \"uint16\" "
                   "(as Triton's), got %s",
                   t.n == 1 ? sema_val_kind_name(S, t.items[0]) : "another number of arguments");
    const char *name = t.items[0].s;
    int dt = sema_dtype_from_name(name);
    if (dt == DT_VOID) {
        sema_check_dtype_name(S, name, a->call);
        sema_error(S, a->call, "tl.dtype(): no dtype is named '%s'", name);
    }
    return sema_val_dtype(ty_scalar(dt));
}

/* tuple(x), tl.tuple(x): a tuple of the items of x (a tuple or a list), as Triton's
 * tl.tuple makes one; tuple() is empty. */
static Val b_tuple(Sema *S, BArgs *a) {
    Val t = a->v[0]; /* the arguments */
    if (t.n == 0) return sema_val_tuple(S, NULL, 0);
    if (t.n > 1) sema_error(S, a->call, "%s() takes at most 1 argument (%d given)", a->name, t.n);
    Val x = t.items[0];
    if (x.k != V_TUPLE || x.tag != TAG_NONE)
        sema_error(S, a->call, "%s() of %s: give a tuple or a list", a->name,
                   sema_val_kind_name(S, x));
    return sema_val_tuple(S, x.items, x.n);
}

/* collections.namedtuple(typename, field_names, *, rename=False, defaults=None,
 * module=None): a class whose instances are tuples with named fields; field_names a tuple
 * or list of strings, or one string of names split by commas or spaces. What the Python
 * package writes for a namedtuple class (typing.NamedTuple's too) of the kernel's module. */
static bool is_ident(const char *s, size_t n) {
    if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return false;
    return true;
}

static Val b_namedtuple(Sema *S, BArgs *a) {
    if (a->v[0].k != V_STR || !is_ident(a->v[0].s, a->v[0].slen))
        sema_error(S, a->loc[0], "namedtuple(): the type name must be an identifier string");
    Val fn = a->v[1];
    const char **fields = NULL;
    int n = 0, cap = 0;
    if (fn.k == V_STR) {
        for (const char *p = fn.s; *p;) {
            while (*p == ',' || *p == ' ') p++;
            size_t len = strcspn(p, ", ");
            if (!len) break;
            if (!is_ident(p, len))
                sema_error(S, a->loc[1], "namedtuple(): field names must be identifiers");
            VEC_PUSH(S->arena, fields, n, cap, arena_strndup(S->arena, p, len));
            p += len;
        }
    } else if (fn.k == V_TUPLE && !fn.tag) {
        for (int i = 0; i < fn.n; i++) {
            Val f = fn.items[i];
            if (f.k != V_STR || !is_ident(f.s, f.slen))
                sema_error(S, a->loc[1], "namedtuple(): field names must be identifier strings");
            VEC_PUSH(S->arena, fields, n, cap, f.s);
        }
    } else
        sema_error(S, a->loc[1],
                   "namedtuple(): field_names must be a string or a tuple of strings");
    if (n > SEMA_MAX_TUPLE)
        sema_error(S, a->loc[1], "namedtuple(): more than %d fields", SEMA_MAX_TUPLE);
    for (int i = 0; i < n; i++) {
        if (fields[i][0] == '_')
            sema_error(S, a->loc[1],
                       "namedtuple(): field names cannot start with an underscore: '%s'",
                       fields[i]);
        for (int j = 0; j < i; j++)
            if (!strcmp(fields[i], fields[j]))
                sema_error(S, a->loc[1], "namedtuple(): duplicate field name '%s'", fields[i]);
    }
    Val d = a->v[3];
    if (d.k != V_NONE && (d.k != V_TUPLE || d.tag))
        sema_error(S, a->loc[3], "namedtuple(): defaults must be a tuple");
    int nd = d.k == V_TUPLE ? d.n : 0;
    if (nd > n) sema_error(S, a->loc[3], "namedtuple(): got more default values than fields");
    return sema_namedtuple_class(S, a->v[0].s, fields, n, nd ? d.items : NULL, nd);
}

/* divmod(a, b): (a // b, a % b), each as the operator computes it (Python's rounding for
 * compile-time numbers, Triton's for run-time values) */
static Val b_divmod(Sema *S, BArgs *a) {
    Val qr[2] = {sema_binary_op(S, BIN_FLOORDIV, a->v[0], a->v[1], a->call),
                 sema_binary_op(S, BIN_MOD, a->v[0], a->v[1], a->call)};
    return sema_val_tuple(S, qr, 2);
}

static Val b_range_outside_for(Sema *S, BArgs *a) {
    sema_error(S, a->call, "%s() can only be used as the iterable of a for loop", a->name);
}

static Val b_dtype_method(Sema *S, BArgs *a) {
    (void)S, (void)a;
    NR_DIE("dtype predicates are bound methods");
}

static Val b_jit(Sema *S, BArgs *a) {
    sema_error(S, a->call, "%s is a decorator, not a function to call in a kernel", a->name);
}

static const Builtin builtins[] = {
    {"program_id", "axis", b_program_id, 0},
    {"num_programs", "axis", b_program_id, 0},
    {"arange", "start,end", b_arange, 0},
    {"zeros", "shape,dtype", b_full, 0},
    {"full", "shape,value,dtype", b_full, 0},
    {"zeros_like", "input,dtype=", b_zeros_like, 0},
    {"load",
     "pointer,mask=,other=,boundary_check=,padding_option=,cache_modifier=,eviction_policy=,"
     "volatile=",
     b_load, 0},
    {"store", "pointer,value,mask=,boundary_check=,cache_modifier=,eviction_policy=", b_store, 0},
    {"make_block_ptr", "base,shape,strides,offsets,block_shape,order", b_make_block_ptr, 0},
    {"advance", "base,offsets", b_advance, 0},
    {"make_tensor_descriptor", "base,shape,strides,block_shape,padding_option=", b_make_tensor_desc,
     0},
    {"load_tensor_descriptor", "desc,offsets", b_desc_load, 0},
    {"store_tensor_descriptor", "desc,offsets,value", b_desc_store, 0},
    {"where", "condition,x,y", b_where, 0},
    {"logical_and", "input,other", b_logical, BF_METHOD},
    {"logical_or", "input,other", b_logical, BF_METHOD},
    {"add", "x,y,sanitize_overflow=", b_arith, 0},
    {"sub", "x,y,sanitize_overflow=", b_arith, 0},
    {"mul", "x,y,sanitize_overflow=", b_arith, 0},
    {"minimum", "x,y,propagate_nan=", b_minmax, 0},
    {"maximum", "x,y,propagate_nan=", b_minmax, 0},
    {"clamp", "x,min,max,propagate_nan=", b_clamp, 0},
    {"debug_barrier", "", b_debug_barrier, 0},
    {"gdc_wait", "", b_gdc, 0},
    {"gdc_launch_dependents", "", b_gdc, 0},
    {"smid", "", b_cuda_sreg, 0},
    {"globaltimer", "", b_cuda_sreg, 0},
    {"num_threads", "", b_cuda_sreg, 0},
    {"num_warps", "", b_cuda_sreg, 0},
    {"umulhi", "x,y", b_umulhi, 0},
    {"div_rn", "x,y", b_div, 0},
    {"fdiv", "x,y,ieee_rounding=", b_div, 0},
    {"exp", "x", b_math1, BF_METHOD},
    {"exp2", "x", b_math1, BF_METHOD},
    {"log", "x", b_math1, BF_METHOD},
    {"log2", "x", b_math1, BF_METHOD},
    {"sqrt", "x", b_math1, BF_METHOD},
    {"sqrt_rn", "x", b_math1, BF_METHOD},
    {"rsqrt", "x", b_math1, BF_METHOD},
    {"sin", "x", b_math1, BF_METHOD},
    {"cos", "x", b_math1, BF_METHOD},
    {"floor", "x", b_math1, BF_METHOD},
    {"ceil", "x", b_math1, BF_METHOD},
    {"abs", "x", b_math1, BF_METHOD},
    {"fma", "x,y,z", b_fma, 0},
    {"erf", "x", b_mathfn, BF_METHOD}, /* Triton's core has erf; the rest are libdevice's */
#define MATHFN(e, name, nargs, exact) {name, nargs == 1 ? "arg0" : "arg0,arg1", b_mathfn, 0},
#include "compiler/ir/ir_mathfn.def"
#undef MATHFN
    {"sum", "input,axis=,keep_dims=,dtype=", b_sum, BF_METHOD},
    {"max", "input,axis=,return_indices=,return_indices_tie_break_left=,keep_dims=", b_max_min,
     BF_METHOD},
    {"min", "input,axis=,return_indices=,return_indices_tie_break_left=,keep_dims=", b_max_min,
     BF_METHOD},
    {"argmax", "input,axis=,tie_break_left=,keep_dims=", b_arg, BF_METHOD},
    {"argmin", "input,axis=,tie_break_left=,keep_dims=", b_arg, BF_METHOD},
    {"associative_scan", "input,axis,combine_fn,reverse=", b_associative_scan, BF_METHOD},
    {"reduce", "input,axis,combine_fn,keep_dims=", b_reduce_fn, BF_METHOD},
    {"cumsum", "input,axis=,reverse=,dtype=", b_cumsum_prod, BF_METHOD},
    {"cumprod", "input,axis=,reverse=", b_cumsum_prod, BF_METHOD},
    {"xor_sum", "input,axis=,keep_dims=", b_xor_or, BF_METHOD},
    {"reduce_or", "input,axis,keep_dims=", b_xor_or, BF_METHOD},
    {"flip", "x,dim=", b_flip, BF_METHOD},
    {"sort", "x,dim=,descending=", b_sort, BF_METHOD},
    {"topk", "x,k,dim=", b_topk, BF_METHOD},
    {"gather", "src,index,axis", b_gather, BF_METHOD},
    {"histogram", "input,num_bins,mask=", b_histogram, BF_METHOD},
    {"map_elementwise", "scalar_fn,*args,pack=", b_map_elementwise, 0},
    {"inline_asm_elementwise", "asm,constraints,args,dtype,is_pure,pack", b_inline_asm, 0},
    {"dot",
     "input,other,acc=,input_precision=,allow_tf32=,max_num_imprecise_acc=,out_dtype=", b_dot, 0},
    {"trans", "input,*dims", b_trans, BF_METHOD},
    {"permute", "input,*dims", b_trans, BF_METHOD},
    {"reshape", "input,*shape,can_reorder=", b_reshape, BF_METHOD},
    {"item", "input", b_item, BF_METHOD},
    {"join", "a,b", b_join, BF_METHOD},
    {"split", "a", b_split, BF_METHOD},
    {"interleave", "a,b", b_interleave, BF_METHOD},
    {"cat", "input,other,can_reorder=", b_cat, 0},
    {"view", "input,*shape", b_reshape, BF_METHOD},
    {"broadcast_to", "input,*shape", b_broadcast_to, BF_METHOD},
    {"broadcast", "input,other", b_broadcast, 0},
    {"expand_dims", "input,axis", b_expand_dims, BF_METHOD},
    {"atomic_add", "pointer,val,mask=,sem=,scope=", b_atomic, 0},
    {"atomic_max", "pointer,val,mask=,sem=,scope=", b_atomic, 0},
    {"atomic_min", "pointer,val,mask=,sem=,scope=", b_atomic, 0},
    {"atomic_xchg", "pointer,val,mask=,sem=,scope=", b_atomic, 0},
    {"atomic_and", "pointer,val,mask=,sem=,scope=", b_atomic, 0},
    {"atomic_or", "pointer,val,mask=,sem=,scope=", b_atomic, 0},
    {"atomic_xor", "pointer,val,mask=,sem=,scope=", b_atomic, 0},
    {"atomic_cas", "pointer,cmp,val,sem=,scope=", b_atomic_cas, 0},
    /* a tensor descriptor's atomics (desc.atomic_add(...)): not names a program can write */
    {"desc.atomic_add", "desc,offsets,value", b_desc_atomic, 0},
    {"desc.atomic_min", "desc,offsets,value", b_desc_atomic, 0},
    {"desc.atomic_max", "desc,offsets,value", b_desc_atomic, 0},
    {"desc.atomic_and", "desc,offsets,value", b_desc_atomic, 0},
    {"desc.atomic_or", "desc,offsets,value", b_desc_atomic, 0},
    {"desc.atomic_xor", "desc,offsets,value", b_desc_atomic, 0},
    {"to", "input,dtype,fp_downcast_rounding=,bitcast=", b_to, BF_METHOD},
    {"cast", "input,dtype,fp_downcast_rounding=,bitcast=", b_to, BF_METHOD},
    {"to_tensor", "x", b_to_tensor, 0},
    {"pointer_type", "element_ty,address_space=,const=", b_pointer_type, 0},
    {"constexpr", "value", b_identity, 0},
    {"constexpr_type", "value", b_constexpr_type, 0},
    {"get_int_dtype", "bitwidth,signed", b_get_int_dtype, 0},
    {"next_power_of_2", "n", b_next_power_of_2, 0},
    {"_log2", "i", b_log2_constexpr, 0},
    {"_is_power_of_two", "i", b_is_power_of_two, 0},
    {"static_assert", "cond,msg=", b_static_assert, 0},
    {"device_assert", "cond,msg=,mask=", b_device_assert, 0},
    {"static_print", "*values", b_static_print, 0},
    {"device_print", "prefix,*args,hex=", b_device_print, 0},
    {"multiple_of", "input,values", b_hint, BF_METHOD},
    {"max_contiguous", "input,values", b_hint, BF_METHOD},
    {"max_constancy", "input,values", b_hint, BF_METHOD},
    {"assume", "cond", b_assume, 0},
    {"condition", "arg1,disable_licm=", b_condition, 0},
    {"range", "*args", b_range_outside_for, BF_PY},
    {"tl_range", "*args", b_range_outside_for, 0},
    {"static_range", "*args", b_range_outside_for, 0},
    {"min", "*args", b_py_minmax, BF_PY},
    {"max", "*args", b_py_minmax, BF_PY},
    {"abs", "x", b_py_abs, BF_PY},
    {"float", "x", b_py_float, BF_PY},
    {"int", "x", b_py_int, BF_PY},
    {"bool", "x", b_py_bool, BF_PY},
    {"len", "x", b_py_len, BF_PY},
    {"divmod", "a,b", b_divmod, BF_PY},
    {"isinstance", "obj,classinfo", b_isinstance, BF_PY},
    {"getattr", "object,name,default=", b_getattr, BF_PY},
    {"hasattr", "object,name", b_hasattr, BF_PY},
    {"tuple", "*args", b_tuple, BF_PY},
    {"namedtuple", "typename,field_names,rename=,defaults=,module=", b_namedtuple, BF_PY},
    {"str", "*args", b_type_object, BF_PY},
    {"tensor", "*args", b_type_object, 0},
    {"tensor_descriptor", "*args", b_type_object, 0},
    {"tensor_descriptor_base", "*args", b_type_object, 0},
    {"dtype", "*args", b_dtype, 0},
    {"block_type", "*args", b_type_object, 0},
    {"base_value", "*args", b_type_object, 0},
    {"base_type", "*args", b_type_object, 0},
    {"tuple", "*args", b_tuple, 0},
    {"print", "*args", b_py_print, BF_PY},
    {"dtype predicate", "", b_dtype_method, 0},
    {"jit", "*args", b_jit, 0},
    {"autotune", "*args", b_jit, 0},
    {"heuristics", "*args", b_jit, 0},
};

enum { NBUILTINS = sizeof builtins / sizeof *builtins };

static int find(const char *name, bool py) {
    if (!py && !strcmp(name, "range")) name = "tl_range"; /* tl.range, not Python's */
    for (int i = 0; i < NBUILTINS; i++)
        if (!strcmp(builtins[i].name, name) && !!(builtins[i].flags & BF_PY) == py) return i;
    return -1;
}

int sema_builtin_find(const char *name) { return find(name, false); }
int sema_builtin_find_py(const char *name) { return find(name, true); }
const char *sema_builtin_name(int id) { return builtins[id].name; }
static bool builtin_is_py(int id) { return builtins[id].flags & BF_PY; }
bool sema_builtin_is_method(int id) { return builtins[id].flags & BF_METHOD; }
int sema_builtin_dtype_method(void) { return find("dtype predicate", false); }

/* ---- binding arguments to a builtin's parameters ---- */

typedef struct Spec1 {
    char name[32];
    bool optional, rest;
} Spec1;

static int parse_params(const char *spec, Spec1 *out) {
    int n = 0;
    for (const char *p = spec; *p && n < MAXP;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        Spec1 s = {{0}, false, false};
        if (*p == '*') s.rest = true, p++, len--;
        if (len && p[len - 1] == '=') s.optional = true, len--;
        memcpy(s.name, p, len < 31 ? len : 31);
        out[n++] = s;
        p += len + (s.optional ? 1 : 0);
        if (*p == ',') p++;
    }
    return n;
}

static Val dtype_predicate(Sema *S, Val self, const char *m, Loc loc) {
    int dt = self.ty.dt;
    if (!strcmp(m, "is_block")) return sema_val_bool(self.ty.rank > 0);
    if (self.ty.rank) /* Triton's block_type answers its dtype predicates by its own name: no */
        return sema_val_bool(false);
    static const struct {
        const char *n;
        int dt;
    } exact[] = {
        {"is_fp16", DT_FP16},       {"is_bf16", DT_BF16},        {"is_fp32", DT_FP32},
        {"is_fp64", DT_FP64},       {"is_bool", DT_I1},          {"is_int1", DT_I1},
        {"is_int8", DT_I8},         {"is_int16", DT_I16},        {"is_int32", DT_I32},
        {"is_int64", DT_I64},       {"is_uint8", DT_U8},         {"is_uint16", DT_U16},
        {"is_uint32", DT_U32},      {"is_uint64", DT_U64},       {"is_ptr", DT_PTR},
        {"is_fp8e4nv", DT_FP8E4NV}, {"is_fp8e5", DT_FP8E5},      {"is_fp8e4b15", DT_FP8E4B15},
        {"is_fp8e4b8", DT_FP8E4B8}, {"is_fp8e5b16", DT_FP8E5B16}};
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (!strcmp(m, exact[i].n)) return sema_val_bool(dt == exact[i].dt);
    if (!strcmp(m, "is_floating")) return sema_val_bool(dt_is_float(dt));
    if (!strcmp(m, "is_fp8")) return sema_val_bool(dt_is_fp8(dt));
    if (!strcmp(m, "is_int")) return sema_val_bool(dt_is_int(dt));
    if (!strcmp(m, "is_int_signed")) return sema_val_bool(dt_is_signed(dt));
    if (!strcmp(m, "is_int_unsigned")) return sema_val_bool(dt_is_int(dt) && !dt_is_signed(dt));
    sema_error(S, loc, "dtype has no method '%s'", m);
}

Val sema_call_builtin(Sema *S, int id, Val *self, CallArgs *ca) {
    const Builtin *b = &builtins[id];
    if (b->fn == b_dtype_method) {
        if (ca->npos || ca->nkw)
            sema_error(S, ca->loc, "dtype.%s() takes no arguments", self->s ? self->s : "");
        return dtype_predicate(S, *self, self->s, ca->loc);
    }
    Spec1 ps[MAXP];
    int np = parse_params(b->params, ps);
    BArgs a;
    memset(&a, 0, sizeof a);
    a.call = ca->loc;
    a.name = !strcmp(b->name, "tl_range") ? "tl.range" : b->name;
    int npos = ca->npos + (self ? 1 : 0);
    int pi = 0;
    for (int i = 0; i < npos; i++) {
        Val v = self ? (i == 0 ? *self : ca->pos[i - 1]) : ca->pos[i];
        Loc l = (ca->poslocs && !(self && i == 0)) ? ca->poslocs[self ? i - 1 : i] : ca->loc;
        if (pi >= np) sema_error(S, l, "%s takes at most %d positional arguments", a.name, np);
        if (ps[pi].rest) {
            Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)(npos - i + 1));
            int k = 0;
            for (int j = i; j < npos; j++)
                items[k++] = self ? (j == 0 ? *self : ca->pos[j - 1]) : ca->pos[j];
            a.v[pi] = sema_val_tuple(S, items, k), a.given[pi] = true, a.loc[pi] = l;
            pi++;
            break;
        }
        a.v[pi] = v, a.given[pi] = true, a.loc[pi] = l;
        pi++;
    }
    for (int k = 0; k < ca->nkw; k++) {
        int j = 0;
        while (j < np && strcmp(ps[j].name, ca->kwnames[k])) j++;
        if (j == np || ps[j].rest)
            sema_error(S, ca->kwlocs[k], "unknown keyword argument '%s' for %s", ca->kwnames[k],
                       a.name);
        if (a.given[j])
            sema_error(S, ca->kwlocs[k], "%s got several values for '%s'", a.name, ca->kwnames[k]);
        a.v[j] = ca->kwvals[k], a.given[j] = true, a.loc[j] = ca->kwlocs[k];
    }
    for (int j = 0; j < np; j++) {
        if (a.given[j]) continue;
        if (ps[j].rest) a.v[j] = sema_val_tuple(S, NULL, 0), a.loc[j] = ca->loc;
        else if (ps[j].optional) a.v[j] = sema_val_none(), a.loc[j] = ca->loc;
        else sema_error(S, ca->loc, "%s: missing argument '%s'", a.name, ps[j].name);
    }
    Val r = b->fn(S, &a);
    /* a pointer made from a const one (tl.broadcast_to, reshape, where, ...) is const;
     * x.to(...) gives the type it names */
    return b->fn == b_to ? r : sema_const_from(r, a.v, np);
}
