/* sema_types.c - Triton's typing rules and the IR they emit: materialising constants
 * (to_tensor), type promotion for binary operators (computation_type, with weakly typed
 * Python scalars), casts, NumPy broadcasting, and shape validity. */
#include <math.h>
#include <string.h>

#include "sema_internal.h"

/* Module-level constants are evaluated with no function to emit into: anything that
 * would need IR there is an error rather than a crash. */
static void need_function(Sema *S) {
    if (!S->fs || !S->fs->f)
        sema_error(S, S->fs ? S->fs->where : (Loc){0},
                   "module-level values must be compile-time constants");
    if (S->fs->f->nops > SEMA_MAX_OPS)
        sema_error(S, S->fs->b.loc, "'%s' is too large: more than %d IR operations", S->fs->f->name,
                   SEMA_MAX_OPS);
}
IrBuilder *sema_builder(Sema *S) {
    need_function(S);
    return &S->fs->b;
}
IrFunc *sema_func(Sema *S) {
    need_function(S);
    return S->fs->f;
}

void sema_check_shape(Sema *S, Loc loc, int rank, const int64_t *dims) {
    if (rank > NR_MAX_RANK)
        sema_error(S, loc, "blocks have at most %d dimensions, got %d", NR_MAX_RANK, rank);
    int64_t numel = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] <= 0 || (dims[i] & (dims[i] - 1)))
            sema_error(S, loc, "block dimension %d is %lld: block dimensions must be powers of two",
                       i, (long long)dims[i]);
        numel *= dims[i];
        if (numel > NR_MAX_NUMEL)
            sema_error(S, loc, "block has more than %d elements (2^20, as in Triton)",
                       NR_MAX_NUMEL);
    }
}

/* Triton's to_tensor: bool -> i1; ints -> i32, u32, i64 or u64 by range; floats -> fp32
 * (fp64 when out of fp32's range). */
/* Triton's to_tensor_type of a float: fp32 for 0, infinities, NaN and magnitudes in fp32's
 * normal range [2^-126, the largest fp32]; fp64 otherwise */
int sema_float_dtype(double f) {
    double a = fabs(f);
    bool fp32 = isinf(a) || a == 0 || f != f || (a >= 0x1p-126 && a <= 3.4028234663852886e38);
    return fp32 ? DT_FP32 : DT_FP64;
}

int sema_const_dtype(Sema *S, Val v, Loc loc) {
    switch (v.k) {
    case V_BOOL: return DT_I1;
    case V_INT:
        if (v.i >= INT32_MIN && v.i <= INT32_MAX) return DT_I32;
        if (v.i >= 0 && v.i <= (int64_t)UINT32_MAX) return DT_U32;
        return DT_I64;
    case V_FLOAT: return sema_float_dtype(v.f);
    default: sema_error(S, loc, "expected a number or a block, got %s", sema_val_kind_name(S, v));
    }
}

IrType sema_type_of(Val v) {
    if (v.k == V_IR) return v.ty;
    if (v.k == V_BOOL) return ty_scalar(DT_I1);
    if (v.k == V_INT) {
        if (v.i >= INT32_MIN && v.i <= INT32_MAX) return ty_scalar(DT_I32);
        if (v.i >= 0 && v.i <= (int64_t)UINT32_MAX) return ty_scalar(DT_U32);
        return ty_scalar(DT_I64);
    }
    if (v.k == V_FLOAT) return ty_scalar(sema_float_dtype(v.f));
    return ty_scalar(DT_VOID);
}

ValId sema_emit_const(Sema *S, IrType ty, Val c, Loc loc) {
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    ValId r;
    if (dt_is_float(ty.dt)) {
        double d = c.k == V_FLOAT ? c.f : (double)c.i;
        r = ir_const_float(sema_builder(S), ty, d);
    } else if (dt_is_int(ty.dt)) {
        int64_t i;
        if (c.k == V_FLOAT) {
            if (!isfinite(c.f) || fabs(c.f) >= 9.2e18)
                sema_error(S, loc, "float constant %g cannot be converted to %s", c.f,
                           dt_name(ty.dt));
            i = (int64_t)c.f;
        } else {
            i = c.i;
        }
        int bits = dt_bits(ty.dt);
        if (ty.dt == DT_I1) i = i != 0;
        else if (bits < 64) {
            uint64_t m = (1ull << bits) - 1, u = (uint64_t)i & m;
            if (dt_is_signed(ty.dt) && (u >> (bits - 1))) u |= ~m;
            i = (int64_t)u;
        }
        r = ir_const_int(sema_builder(S), ty, i);
    } else {
        sema_error(S, loc, "cannot make a constant of type %s", dt_name(ty.dt));
    }
    sema_builder(S)->loc = saved;
    return r;
}

ValId sema_to_ir(Sema *S, Val v, Loc loc) {
    if (v.k == V_IR) return v.v;
    if (sema_val_is_const(v))
        return sema_emit_const(S, ty_scalar(sema_const_dtype(S, v, loc)), v, loc);
    sema_error(S, loc, "expected a number or a block, got %s", sema_val_kind_name(S, v));
}

ValId sema_to_ir_dt(Sema *S, Val v, int dt, Loc loc) {
    /* a weak number becomes dt's constant directly; one bound by a plain assignment is
     * Triton's scalar tensor of its to_tensor type, converted (0.1 as fp32, then widened) */
    if (v.k != V_IR && sema_val_is_const(v) && !v.assigned)
        return sema_emit_const(S, ty_scalar(dt), v, loc);
    ValId x = sema_to_ir(S, v, loc);
    return sema_emit_cast(S, x, ty_scalar(dt), false, loc);
}

static ValId build1(Sema *S, int code, ValId a, IrType ty, Loc loc) {
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    ValId r = ir_build1(sema_builder(S), code, &a, 1, ty);
    sema_builder(S)->loc = saved;
    return r;
}

ValId sema_emit_cast(Sema *S, ValId v, IrType elem, bool bitcast, Loc loc) {
    IrType t = ir_type(sema_func(S), v);
    IrType dst = ty_with_elem(t, elem);
    if (ty_equal(t, dst)) return v;
    char a[64], b[64];
    if (t.dt == DT_PTR || elem.dt == DT_PTR) {
        if (t.dt == DT_PTR && elem.dt == DT_PTR) return build1(S, OP_BITCAST, v, dst, loc);
        sema_error(S, loc, "cannot convert %s to %s", ty_str(ty_elem(t), a, sizeof a),
                   ty_str(elem, b, sizeof b));
    }
    if (bitcast) {
        if (dt_bits(t.dt) != dt_bits(elem.dt))
            sema_error(S, loc, "cannot bitcast %s to %s: the widths differ", dt_name(t.dt),
                       dt_name(elem.dt));
        return build1(S, OP_BITCAST, v, dst, loc);
    }
    /* fp8 converts directly only to and from the other floats: integers (and i1) and
     * another fp8 type go through fp32, as in Triton */
    bool fp8_side = dt_is_fp8(t.dt) || dt_is_fp8(elem.dt);
    if (fp8_side &&
        (!dt_is_float(t.dt) || !dt_is_float(elem.dt) || (dt_is_fp8(t.dt) && dt_is_fp8(elem.dt)))) {
        v = build1(S, OP_CVT, v, ty_with_elem(t, ty_scalar(DT_FP32)), loc);
        if (elem.dt == DT_FP32) return v;
        dst = ty_with_elem(t, elem);
    }
    return build1(S, OP_CVT, v, dst, loc);
}

/* x.to(dtype) and tl.cast where a pointer is on either side, with Triton's rules
 * (semantic.cast, 3.0 to 3.6; bitcast=True on a pointer is the same cast): a pointer to
 * another pointer type, a pointer to a 64-bit integer (its address) or to i1 (address !=
 * 0), and a 64-bit integer to a pointer (Triton's tt.int_to_ptr takes i64 only). The IR's
 * bitcast is the reinterpretation between a pointer and a 64-bit integer. */
ValId sema_emit_ptr_cast(Sema *S, ValId v, IrType elem, Loc loc) {
    IrType t = ir_type(sema_func(S), v);
    char a[64], b[64];
    ty_str(ty_elem(t), a, sizeof a), ty_str(elem, b, sizeof b);
    if (t.dt == DT_PTR && elem.dt == DT_PTR) return sema_emit_cast(S, v, elem, false, loc);
    if (t.dt == DT_PTR) {
        if (elem.dt == DT_I1) {
            ValId i = build1(S, OP_BITCAST, v, ty_with_elem(t, ty_scalar(DT_I64)), loc);
            return sema_to_i1(S, sema_val_ir(S, i), loc);
        }
        if (elem.dt != DT_I64 && elem.dt != DT_U64)
            sema_error(S, loc,
                       "cannot cast %s to %s: a pointer converts to a 64-bit integer (tl.int64, "
                       "tl.uint64), to tl.int1 or to another pointer type, as in Triton",
                       a, b);
        return build1(S, OP_BITCAST, v, ty_with_elem(t, elem), loc);
    }
    if (t.dt != DT_I64 && t.dt != DT_U64)
        sema_error(S, loc,
                   "cannot cast %s to %s: only a 64-bit integer converts to a pointer, as in "
                   "Triton (convert it to tl.int64 first)",
                   a, b);
    return build1(S, OP_BITCAST, v, ty_with_elem(t, elem), loc);
}

ValId sema_fp8_widen(Sema *S, ValId v, Loc loc) {
    IrType t = ir_type(sema_func(S), v);
    return dt_is_fp8(t.dt) ? build1(S, OP_CVT, v, ty_with_elem(t, ty_scalar(DT_FP32)), loc) : v;
}

ValId sema_fp8_narrow(Sema *S, ValId v, int dt, Loc loc) {
    return dt_is_fp8(dt) ? sema_emit_cast(S, v, ty_scalar(dt), false, loc) : v;
}

IrType sema_broadcast_shape(Sema *S, IrType a, IrType b, Loc loc) {
    IrType r = a.rank >= b.rank ? a : b;
    int rank = r.rank;
    for (int i = 0; i < rank; i++) {
        int ia = i - (rank - a.rank), ib = i - (rank - b.rank);
        int da = ia >= 0 ? a.shape[ia] : 1, db = ib >= 0 ? b.shape[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            char x[64], y[64];
            sema_error(S, loc, "cannot broadcast shapes %s and %s: dimension %d is %d against %d",
                       ty_str(a, x, sizeof x), ty_str(b, y, sizeof y), i, da, db);
        }
        r.shape[i] = da > db ? da : db;
    }
    r.rank = (uint8_t)rank;
    return r;
}

ValId sema_emit_broadcast(Sema *S, ValId v, IrType shape, Loc loc) {
    IrType t = ir_type(sema_func(S), v);
    if (ty_same_shape(t, shape)) return v;
    if (t.rank == 0) return build1(S, OP_SPLAT, v, ty_with_elem(shape, t), loc);
    if (t.rank > shape.rank)
        sema_error(S, loc, "cannot broadcast a rank-%d block to rank %d", t.rank, shape.rank);
    while (t.rank < shape.rank) { /* NumPy: missing leading dims are 1 */
        IrType e = t;
        memmove(e.shape + 1, e.shape, sizeof(int32_t) * t.rank);
        e.shape[0] = 1;
        e.rank++;
        Loc saved = sema_builder(S)->loc;
        sema_builder(S)->loc = loc;
        OpId op = ir_build(sema_builder(S), OP_EXPAND_DIMS, &v, 1, &e, 1);
        sema_builder(S)->loc = saved;
        sema_func(S)->ops[op].attr[0] = 0;
        v = ir_result(sema_func(S), op, 0);
        t = e;
    }
    for (int i = 0; i < t.rank; i++)
        if (t.shape[i] != shape.shape[i] && t.shape[i] != 1) {
            char x[64], y[64];
            sema_error(S, loc, "cannot broadcast %s to %s", ty_str(t, x, sizeof x),
                       ty_str(shape, y, sizeof y));
        }
    if (ty_same_shape(t, shape)) return v;
    return build1(S, OP_BROADCAST, v, ty_with_elem(shape, t), loc);
}

/* Kinds for the weak-scalar rule, as Triton's dtype.kind(): bool < integer < float. */
static int kind_of(int dt) {
    if (dt == DT_I1) return 0;
    return dt_is_float(dt) ? 2 : 1;
}

static int integer_promote(int a, int b) {
    int ra = dt_bits(a), rb = dt_bits(b);
    bool ua = !dt_is_signed(a), ub = !dt_is_signed(b);
    if (ua == ub) return ra > rb ? a : b;
    if (ua) return ra >= rb ? a : b;
    return rb >= ra ? b : a;
}

int sema_computation_dtype(Sema *S, IrType at, bool a_weak, IrType bt, bool b_weak, bool div_or_mod,
                           Loc loc) {
    int a = at.dt, b = bt.dt;
    if (a == DT_PTR || b == DT_PTR)
        sema_error(S, loc, "invalid operands: pointer arithmetic only adds or subtracts integers");
    if (a_weak != b_weak) {
        int s = a_weak ? a : b, t = a_weak ? b : a;
        if (kind_of(s) <= kind_of(t)) {
            if (div_or_mod && (t == DT_FP16 || t == DT_BF16)) return DT_FP32;
            return t;
        }
    }
    if (a == DT_FP64 || b == DT_FP64) return DT_FP64;
    if (a == DT_FP32 || b == DT_FP32) return DT_FP32;
    if (a == DT_FP16 || b == DT_FP16) return div_or_mod ? DT_FP32 : DT_FP16;
    if (a == DT_BF16 || b == DT_BF16) return (div_or_mod || a != b) ? DT_FP32 : DT_BF16;
    /* fp8 (Triton's rule 5): one fp8 type stays (with an integer too: Nereid types an
     * fp16 block with an integer block as fp16, and fp8 likewise), two fp8 types give fp16 */
    if (dt_is_fp8(a) && dt_is_fp8(b)) return a == b ? a : DT_FP16;
    if (dt_is_fp8(a) || dt_is_fp8(b)) return dt_is_fp8(a) ? a : b;
    if (div_or_mod && dt_is_signed(a) != dt_is_signed(b) && a != DT_I1 && b != DT_I1)
        sema_error(S, loc,
                   "Cannot use /, // or %% with %s and %s because they have different signedness "
                   "(as in Triton): cast one of them",
                   dt_name(a), dt_name(b));
    return integer_promote(a, b);
}

ValId sema_to_i1(Sema *S, Val v, Loc loc) {
    if (v.k == V_IR && v.ty.dt == DT_I1) return v.v;
    if (sema_val_is_const(v)) {
        bool t = v.k == V_FLOAT ? v.f != 0 : v.i != 0;
        return sema_emit_const(S, ty_scalar(DT_I1), sema_val_bool(t), loc);
    }
    ValId x = sema_to_ir(S, v, loc);
    return sema_emit_cast(S, x, ty_scalar(DT_I1), false, loc);
}
