/* sema_expr.c - expressions: names, constants, operators, attributes, subscripts.
 *
 * Operators on two compile-time values are evaluated now with Python's semantics (floor
 * division, modulo with the divisor's sign); anything touching a block or a runtime
 * scalar is lowered with Triton's typing (C division semantics at run time, weakly typed
 * Python scalars, NumPy broadcasting). */
#include <math.h>
#include <string.h>

#include "sema_internal.h"

/* ---- compile-time arithmetic ---- */

static bool num(Val v) { return v.k == V_INT || v.k == V_BOOL || v.k == V_FLOAT; }
static double fl(Val v) { return v.k == V_FLOAT ? v.f : (double)v.i; }

static void overflow_error(Sema *S, Loc loc) {
    sema_error(S, loc, "integer overflow in constant expression");
}

/* a ** b on floats with Python's errors instead of inf and NaN */
static Val const_pow(Sema *S, double a, double b, Loc loc) {
    if (a == 0 && b < 0)
        sema_error(S, loc, "zero raised to a negative power in constant expression");
    if (a < 0 && b != floor(b) && isfinite(b))
        sema_error(S, loc, "a negative number raised to a fractional power is not a real number");
    double r = pow(a, b);
    if (isinf(r) && isfinite(a) && isfinite(b))
        sema_error(S, loc, "float overflow in constant expression");
    return sema_val_float(r);
}

static Val const_int_binop(Sema *S, int op, int64_t a, int64_t b, Loc loc) {
    int64_t r = 0;
    switch (op) {
    case BIN_ADD:
        if (__builtin_add_overflow(a, b, &r)) overflow_error(S, loc);
        return sema_val_int(r);
    case BIN_SUB:
        if (__builtin_sub_overflow(a, b, &r)) overflow_error(S, loc);
        return sema_val_int(r);
    case BIN_MUL:
        if (__builtin_mul_overflow(a, b, &r)) overflow_error(S, loc);
        return sema_val_int(r);
    case BIN_DIV:
        if (!b) sema_error(S, loc, "division by zero in constant expression");
        return sema_val_float((double)a / (double)b);
    case BIN_FLOORDIV:
    case BIN_MOD: {
        if (!b) sema_error(S, loc, "division by zero in constant expression");
        if (a == INT64_MIN && b == -1)
            sema_error(S, loc, "integer overflow in constant expression");
        int64_t q = a / b, m = a % b;
        if (m != 0 && ((m < 0) != (b < 0))) q--, m += b; /* Python floors */
        return sema_val_int(op == BIN_FLOORDIV ? q : m);
    }
    case BIN_POW: {
        if (b < 0) return const_pow(S, (double)a, (double)b, loc);
        int64_t acc = 1;
        for (int64_t i = 0; i < b; i++) {
            if (__builtin_mul_overflow(acc, a, &r)) overflow_error(S, loc);
            acc = r;
            if (acc == 0 || (acc == 1 && a == 1))
                break; /* a power of 0 or 1 stays; -1's alternates */
        }
        return sema_val_int(acc);
    }
    case BIN_LSHIFT:
        if (b < 0 || b > 63) sema_error(S, loc, "shift amount %lld out of range", (long long)b);
        if (a != 0 && (b >= 63 || (a > 0 ? a > (INT64_MAX >> b) : a < (INT64_MIN >> b))))
            sema_error(S, loc, "integer overflow in constant expression");
        return sema_val_int((int64_t)((uint64_t)a << b));
    case BIN_RSHIFT:
        if (b < 0) sema_error(S, loc, "negative shift amount");
        return sema_val_int(b > 63 ? (a < 0 ? -1 : 0) : a >> b);
    case BIN_AND: return sema_val_int(a & b);
    case BIN_OR: return sema_val_int(a | b);
    case BIN_XOR: return sema_val_int(a ^ b);
    default: sema_error(S, loc, "unsupported operator '%s' on integers", ast_binop_spelling(op));
    }
}

static Val const_float_binop(Sema *S, int op, double a, double b, Loc loc) {
    switch (op) {
    case BIN_ADD: return sema_val_float(a + b);
    case BIN_SUB: return sema_val_float(a - b);
    case BIN_MUL: return sema_val_float(a * b);
    case BIN_DIV:
        if (b == 0) sema_error(S, loc, "division by zero in constant expression");
        return sema_val_float(a / b);
    case BIN_FLOORDIV:
        if (b == 0) sema_error(S, loc, "division by zero in constant expression");
        return sema_val_float(floor(a / b));
    case BIN_MOD: {
        if (b == 0) sema_error(S, loc, "division by zero in constant expression");
        double m = fmod(a, b);
        if (m != 0 && ((m < 0) != (b < 0))) m += b;
        return sema_val_float(m);
    }
    case BIN_POW: return const_pow(S, a, b, loc);
    default: sema_error(S, loc, "unsupported operator '%s' on floats", ast_binop_spelling(op));
    }
}

/* Python's sequence repetition: (1,) * 3, [N] * k, "ab" * 2 (a count <= 0 gives an empty
 * sequence) */
static Val const_repeat(Sema *S, Val seq, int64_t times, Loc loc) {
    int64_t n = seq.k == V_TUPLE ? seq.n : (int64_t)seq.slen;
    if (times < 0 || n == 0) times = 0;
    int64_t limit = seq.k == V_TUPLE ? SEMA_MAX_TUPLE : SEMA_MAX_STR;
    if (times && n > limit / times)
        sema_error(S, loc, "%s with more than %lld %s", seq.k == V_TUPLE ? "tuple" : "string",
                   (long long)limit, seq.k == V_TUPLE ? "items" : "bytes");
    if (seq.k == V_STR) {
        char *s = arena_alloc(S->arena, (size_t)(n * times) + 1);
        for (int64_t i = 0; i < times; i++) memcpy(s + i * n, seq.s, (size_t)n);
        return sema_val_str(S, s, (size_t)(n * times));
    }
    Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)(n * times + 1));
    for (int64_t i = 0; i < times; i++) memcpy(items + i * n, seq.items, sizeof(Val) * (size_t)n);
    return sema_val_tuple(S, items, (int)(n * times));
}

static Val const_binop(Sema *S, int op, Val a, Val b, Loc loc) {
    if (a.k == V_STR && b.k == V_STR && op == BIN_ADD) {
        if (a.slen + b.slen > SEMA_MAX_STR)
            sema_error(S, loc, "string constant longer than %d bytes", SEMA_MAX_STR);
        char *s = arena_alloc(S->arena, a.slen + b.slen + 1);
        memcpy(s, a.s, a.slen);
        memcpy(s + a.slen, b.s, b.slen);
        return sema_val_str(S, s, a.slen + b.slen);
    }
    if (a.k == V_TUPLE && b.k == V_TUPLE && op == BIN_ADD) {
        if (a.n + b.n > SEMA_MAX_TUPLE)
            sema_error(S, loc, "tuple with more than %d items", SEMA_MAX_TUPLE);
        Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)(a.n + b.n + 1));
        memcpy(items, a.items, sizeof(Val) * (size_t)a.n);
        memcpy(items + a.n, b.items, sizeof(Val) * (size_t)b.n);
        return sema_val_tuple(S, items, a.n + b.n);
    }
    if (op == BIN_MUL && ((a.k == V_TUPLE || a.k == V_STR) && (b.k == V_INT || b.k == V_BOOL)))
        return const_repeat(S, a, b.i, loc);
    if (op == BIN_MUL && ((b.k == V_TUPLE || b.k == V_STR) && (a.k == V_INT || a.k == V_BOOL)))
        return const_repeat(S, b, a.i, loc);
    if (!num(a) || !num(b))
        sema_error(S, loc, "unsupported operand types for '%s': %s and %s", ast_binop_spelling(op),
                   sema_val_kind_name(S, a), sema_val_kind_name(S, b));
    if (a.k == V_FLOAT || b.k == V_FLOAT) return const_float_binop(S, op, fl(a), fl(b), loc);
    Val r = const_int_binop(S, op, a.i, b.i, loc);
    if (a.k == V_BOOL && b.k == V_BOOL && (op == BIN_AND || op == BIN_OR || op == BIN_XOR))
        r.k = V_BOOL;
    return r;
}

/* ---- lowering of operators on blocks and runtime scalars ---- */

/* A Python int meeting an integer block of a narrower type must fit it (Triton). */
void sema_check_weak_range(Sema *S, Val c, int dt, Loc loc) {
    if (c.k != V_INT || c.assigned || !dt_is_int(dt) || dt == DT_I1 || dt_bits(dt) >= 64) return;
    int bits = dt_bits(dt);
    int64_t lo = dt_is_signed(dt) ? -(INT64_C(1) << (bits - 1)) : 0;
    int64_t hi = dt_is_signed(dt) ? (INT64_C(1) << (bits - 1)) - 1 : (INT64_C(1) << bits) - 1;
    if (c.i < lo || c.i > hi) /* Triton's words */
        sema_error(S, loc, "Scalar %lld is out of range for type %s", (long long)c.i,
                   sema_dtype_triton_name(dt));
}

static Val emit_binary(Sema *S, int code, Val a, Val b, int dt, Loc loc) {
    sema_check_weak_range(S, a, dt, loc);
    sema_check_weak_range(S, b, dt, loc);
    ValId x = sema_to_ir_dt(S, a, dt, loc), y = sema_to_ir_dt(S, b, dt, loc);
    IrType shape = sema_broadcast_shape(S, ir_type(sema_func(S), x), ir_type(sema_func(S), y), loc);
    x = sema_emit_broadcast(S, x, shape, loc);
    y = sema_emit_broadcast(S, y, shape, loc);
    ValId ops[2] = {sema_fp8_widen(S, x, loc), sema_fp8_widen(S, y, loc)};
    int cdt = dt_is_fp8(dt) ? DT_FP32 : dt; /* fp8 computes in fp32 */
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    ValId r = ir_build1(sema_builder(S), code, ops, 2, ty_with_elem(shape, ty_scalar(cdt)));
    sema_builder(S)->loc = saved;
    return sema_val_ir(S, sema_fp8_narrow(S, r, dt, loc));
}

static void need_number(Sema *S, Val v, const char *op, Loc loc) {
    if (v.k != V_IR && !sema_val_is_const(v))
        sema_error(S, loc, "unsupported operand for '%s': %s", op, sema_val_kind_name(S, v));
}

static Val pointer_offset(Sema *S, Val p, Val off, bool negate, Loc loc) {
    IrType ot = sema_type_of(off);
    if (!dt_is_int(ot.dt) || ot.dt == DT_I1)
        sema_error(S, loc, "a pointer can only be offset by an integer, got %s",
                   sema_val_kind_name(S, off));
    ValId o = sema_to_ir(S, off, loc);
    if (negate) {
        Loc saved = sema_builder(S)->loc;
        sema_builder(S)->loc = loc;
        o = ir_build1(sema_builder(S), OP_NEG, &o, 1, ir_type(sema_func(S), o));
        sema_builder(S)->loc = saved;
    }
    ValId ptr = p.v;
    IrType shape = sema_broadcast_shape(S, p.ty, ir_type(sema_func(S), o), loc);
    ptr = sema_emit_broadcast(S, ptr, shape, loc);
    o = sema_emit_broadcast(S, o, shape, loc);
    ValId ops[2] = {ptr, o};
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    ValId r = ir_build1(sema_builder(S), OP_ADDPTR, ops, 2, ty_with_elem(shape, ty_elem(p.ty)));
    sema_builder(S)->loc = saved;
    return sema_val_ir(S, r);
}

Val sema_float_div(Sema *S, Val a, Val b, bool exact, Loc loc) {
    int dt = sema_computation_dtype(S, sema_type_of(a), sema_weak(a), sema_type_of(b), sema_weak(b),
                                    true, loc);
    if (dt_is_int(dt)) dt = DT_FP32; /* int / int is a float division, as in Triton */
    return emit_binary(S, exact ? OP_DIV_RN : OP_DIV, a, b, dt, loc);
}

static Val true_div(Sema *S, Val a, Val b, Loc loc) { return sema_float_div(S, a, b, false, loc); }

static Val int_only(Sema *S, int code, Val a, Val b, int dt, const char *op, Loc loc) {
    if (!dt_is_int(dt))
        sema_error(
            S, loc,
            "invalid operands of type %s and %s for '%s': it needs integers", /* Triton's words */
            sema_val_kind_name(S, a), sema_val_kind_name(S, b), op);
    return emit_binary(S, code, a, b, dt, loc);
}

static Val bitwise(Sema *S, int code, Val a, Val b, const char *op, Loc loc) {
    IrType ta = sema_type_of(a), tb = sema_type_of(b);
    if (!dt_is_int(ta.dt) || !dt_is_int(tb.dt))
        sema_error(S, loc,
                   "invalid operands of type %s and %s for '%s': it needs integers or booleans",
                   sema_val_kind_name(S, a), sema_val_kind_name(S, b), op);
    /* Triton's bitwise_op_type_checking: a Python scalar is weak here too, so u16 & 0x8000
     * stays u16 (and must fit it) */
    int dt = sema_computation_dtype(S, ta, sema_weak(a), tb, sema_weak(b), false, loc);
    return emit_binary(S, code, a, b, dt, loc);
}

/* x >> y as Triton's tensor.__rshift__ / __rrshift__: the operands take the usual
 * arithmetic conversions (int8 >> uint16 computes in u16, x sign-extended), but whether the
 * shift is arithmetic follows the block operand's own signedness (x's, or y's when x is a
 * constant), not the common type's: a signed x shifts its sign in even when the result is
 * unsigned. */
static Val right_shift(Sema *S, Val a, Val b, Loc loc) {
    IrType ta = sema_type_of(a), tb = sema_type_of(b);
    bool wa = sema_weak(a), wb = sema_weak(b);
    int dt = sema_computation_dtype(S, ta, wa, tb, wb, false, loc);
    int own = (!wa || wb) ? ta.dt : tb.dt;
    static const int flip[][2] = {
        {DT_I8, DT_U8}, {DT_I16, DT_U16}, {DT_I32, DT_U32}, {DT_I64, DT_U64}};
    int sdt = dt;
    if (dt_is_int(own) && own != DT_I1 && dt_is_signed(own) != dt_is_signed(dt))
        for (size_t i = 0; i < sizeof flip / sizeof *flip; i++)
            if (flip[i][0] == dt || flip[i][1] == dt) sdt = flip[i][dt == flip[i][0]];
    Val r = int_only(S, OP_SHR, a, b, sdt, ">>", loc);
    return sdt == dt ? r : sema_val_ir(S, sema_to_ir_dt(S, r, dt, loc));
}

/* Triton's debug mode (SemaOptions.debug 1): an integer +, - or * narrower than 64 bits
 * is also computed exactly, in 64 bits, from both operands taken to the common type, and a
 * device_assert fails where that result leaves the type's range, signed or unsigned (as
 * Triton's binary_op_sanitize_overflow_impl; `code` is OP_ADD, OP_SUB or OP_MUL). Only the
 * user's code is checked: the standard library's arithmetic stands for what Triton does in
 * its C++ passes or in libdevice (block pointers' addresses, libdevice's bit tricks) or
 * wraps on purpose (Philox, as Triton's random.py exempts it). */
static void check_overflow(Sema *S, int code, Val a, Val b, int dt, Loc loc) {
    if (S->opts->debug <= 0 || !S->fs || !S->fs->f || S->fs->scope == &S->std) return;
    if (!dt_is_int(dt) || dt == DT_I1 || dt_bits(dt) >= 64) return;
    int bits = dt_bits(dt);
    Val x =
        sema_val_ir(S, sema_to_ir_dt(S, sema_val_ir(S, sema_to_ir_dt(S, a, dt, loc)), DT_I64, loc));
    Val y =
        sema_val_ir(S, sema_to_ir_dt(S, sema_val_ir(S, sema_to_ir_dt(S, b, dt, loc)), DT_I64, loc));
    Val exact = emit_binary(S, code, x, y, DT_I64, loc);
    int64_t lo = dt_is_signed(dt) ? -((int64_t)1 << (bits - 1)) : 0;
    int64_t hi = dt_is_signed(dt) ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
    Val ge = sema_compare_op(S, CMP_GE, exact, sema_val_int(lo), loc);
    Val le = sema_compare_op(S, CMP_LE, exact, sema_val_int(hi), loc);
    Val in = emit_binary(S, OP_AND, ge, le, DT_I1, loc);
    const char *name = code == OP_ADD ? "add" : code == OP_SUB ? "sub" : "mul";
    char msg[64];
    snprintf(msg, sizeof msg, "int%d overflow detected for operation %s", bits, name);
    sema_emit_assert(S, sema_to_i1(S, in, loc), arena_strdup(S->arena, msg), loc);
}

/* An integer +, - or * of the user's (binary_op with sanitize): checked in debug mode. */
static Val arith(Sema *S, int code, Val a, Val b, int dt, bool sanitize, Loc loc) {
    if (sanitize) check_overflow(S, code, a, b, dt, loc);
    return emit_binary(S, code, a, b, dt, loc);
}

static Val binary_op(Sema *S, int op, Val a, Val b, bool sanitize, Loc loc) {
    if ((a.k == V_TUPLE && a.tag) || (b.k == V_TUPLE && b.tag) || sema_is_host_desc(a) ||
        sema_is_host_desc(b))
        sema_error(S, loc, "unsupported operand types for '%s': %s and %s%s",
                   ast_binop_spelling(op), sema_val_kind_name(S, a), sema_val_kind_name(S, b),
                   a.tag == TAG_BLOCK_PTR && op == BIN_ADD
                       ? " (move a block pointer with tl.advance)"
                       : "");
    /* numbers bound by plain assignments are Triton's scalar tensors: arithmetic of two
     * compile-time numbers where one is such is a tensor operation of their to_tensor
     * types (it wraps, divides toward zero and rounds as those do), not Python's */
    if (sema_val_is_const(a) && sema_val_is_const(b) && (a.assigned || b.assigned) &&
        op != BIN_MATMUL) {
        if (a.assigned) a = sema_val_ir(S, sema_to_ir(S, a, loc));
        if (b.assigned) b = sema_val_ir(S, sema_to_ir(S, b, loc));
    }
    if ((sema_val_is_constexpr(a) && sema_val_is_constexpr(b)) || a.k == V_TUPLE ||
        b.k == V_TUPLE) /* tuples of blocks concatenate and repeat too */
        return const_binop(S, op, a, b, loc);
    const char *sp = ast_binop_spelling(op);
    if (a.k == V_IR && a.ty.dt == DT_PTR && (op == BIN_ADD || op == BIN_SUB))
        return pointer_offset(S, a, b, op == BIN_SUB, loc);
    if (b.k == V_IR && b.ty.dt == DT_PTR && op == BIN_ADD)
        return pointer_offset(S, b, a, false, loc);
    need_number(S, a, sp, loc);
    need_number(S, b, sp, loc);
    if (sema_type_of(a).dt == DT_PTR || sema_type_of(b).dt == DT_PTR)
        sema_error(S, loc, "unsupported pointer operation '%s'", sp);
    bool wa = sema_weak(a), wb = sema_weak(b);
    IrType ta = sema_type_of(a), tb = sema_type_of(b);
    if ((wa && a.k == V_INT && a.i < 0) || (wb && b.k == V_INT && b.i < 0)) {
        int dt = sema_computation_dtype(S, ta, wa, tb, wb, false, loc);
        if (dt_is_int(dt) && !dt_is_signed(dt) && dt != DT_I1 && op != BIN_AND && op != BIN_OR &&
            op != BIN_XOR)
            sema_error(
                S, loc,
                "cannot combine an unsigned block with a negative constant; cast one of them");
    }
    switch (op) {
    case BIN_ADD:
    case BIN_SUB:
    case BIN_MUL:
        return arith(S,
                     op == BIN_ADD   ? OP_ADD
                     : op == BIN_SUB ? OP_SUB
                                     : OP_MUL,
                     a, b, sema_computation_dtype(S, ta, wa, tb, wb, false, loc), sanitize, loc);
    case BIN_DIV: return true_div(S, a, b, loc);
    case BIN_FLOORDIV:
        return int_only(S, OP_IDIV, a, b, sema_computation_dtype(S, ta, wa, tb, wb, true, loc),
                        "//", loc);
    case BIN_MOD:
        return emit_binary(S, OP_REM, a, b, sema_computation_dtype(S, ta, wa, tb, wb, true, loc),
                           loc);
    case BIN_AND: return bitwise(S, OP_AND, a, b, "&", loc);
    case BIN_OR: return bitwise(S, OP_OR, a, b, "|", loc);
    case BIN_XOR: return bitwise(S, OP_XOR, a, b, "^", loc);
    case BIN_LSHIFT:
        return int_only(S, OP_SHL, a, b, sema_computation_dtype(S, ta, wa, tb, wb, false, loc),
                        "<<", loc);
    case BIN_RSHIFT: return right_shift(S, a, b, loc);
    case BIN_MATMUL: {
        Val args[2] = {a, b};
        CallArgs ca = {.pos = args, .npos = 2, .loc = loc};
        return sema_call_builtin(S, sema_builtin_find("dot"), NULL, &ca);
    }
    default:
        sema_error(S, loc,
                   "operator '%s' is not supported on blocks (use tl.exp2 / tl.log2 for powers)",
                   sp);
    }
}

/* ---- comparisons ---- */

static bool const_compare(Sema *S, int op, Val a, Val b, Loc loc) {
    if (op == CMP_IS || op == CMP_ISNOT) {
        bool same = a.k == b.k && (a.k == V_NONE || sema_val_same(a, b));
        return op == CMP_IS ? same : !same;
    }
    if (op == CMP_IN || op == CMP_NOTIN) {
        if (b.k != V_TUPLE)
            sema_error(S, loc, "'in' needs a tuple on its right, got %s", sema_val_kind_name(S, b));
        bool found = false;
        for (int i = 0; i < b.n && !found; i++)
            found = sema_val_same(a, b.items[i]) ||
                    (num(a) && num(b.items[i]) && fl(a) == fl(b.items[i]));
        return op == CMP_IN ? found : !found;
    }
    int c;
    if (num(a) && num(b)) {
        if (a.k != V_FLOAT && b.k != V_FLOAT) c = a.i < b.i ? -1 : a.i > b.i;
        else {
            double x = fl(a), y = fl(b);
            if (x != x || y != y) return op == CMP_NE;
            c = x < y ? -1 : x > y;
        }
    } else if (a.k == V_STR && b.k == V_STR) {
        size_t n = a.slen < b.slen ? a.slen : b.slen;
        c = memcmp(a.s, b.s, n);
        if (!c) c = a.slen < b.slen ? -1 : a.slen > b.slen;
    } else if (op == CMP_EQ || op == CMP_NE) {
        bool eq = sema_val_same(a, b);
        return op == CMP_EQ ? eq : !eq;
    } else {
        sema_error(S, loc, "cannot order %s and %s", sema_val_kind_name(S, a),
                   sema_val_kind_name(S, b));
    }
    switch (op) {
    case CMP_EQ: return c == 0;
    case CMP_NE: return c != 0;
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

Val sema_compare_op(Sema *S, int op, Val a, Val b, Loc loc) {
    if (sema_val_is_constexpr(a) && sema_val_is_constexpr(b))
        return sema_val_bool(const_compare(S, op, a, b, loc));
    if ((sema_is_host_desc(a) || sema_is_host_desc(b)) && op != CMP_IS && op != CMP_ISNOT)
        sema_error(S, loc, "cannot compare %s and %s", sema_val_kind_name(S, a),
                   sema_val_kind_name(S, b));
    if (op == CMP_IS || op == CMP_ISNOT) {
        if (a.k == V_NONE || b.k == V_NONE)
            return sema_val_bool(op == CMP_ISNOT); /* a block is not None */
        sema_error(S, loc, "'is' only compares with None or constants");
    }
    if (op == CMP_IN || op == CMP_NOTIN)
        sema_error(S, loc, "'in' is only supported on compile-time tuples");
    const char *sp = ast_cmpop_spelling(op);
    need_number(S, a, sp, loc);
    need_number(S, b, sp, loc);
    IrType ta = sema_type_of(a), tb = sema_type_of(b);
    int dt;
    if (ta.dt == DT_PTR || tb.dt == DT_PTR) {
        if (!ty_equal(ty_elem(ta), ty_elem(tb)))
            sema_error(S, loc, "cannot compare a pointer with %s",
                       sema_val_kind_name(S, ta.dt == DT_PTR ? b : a));
        dt = DT_PTR;
    } else {
        dt = sema_computation_dtype(S, ta, sema_weak(a), tb, sema_weak(b), false, loc);
    }
    sema_check_weak_range(S, a, dt, loc);
    sema_check_weak_range(S, b, dt, loc);
    ValId x = dt == DT_PTR ? a.v : sema_to_ir_dt(S, a, dt, loc);
    ValId y = dt == DT_PTR ? b.v : sema_to_ir_dt(S, b, dt, loc);
    IrType shape = sema_broadcast_shape(S, ir_type(sema_func(S), x), ir_type(sema_func(S), y), loc);
    ValId ops[2] = {sema_fp8_widen(S, sema_emit_broadcast(S, x, shape, loc), loc),
                    sema_fp8_widen(S, sema_emit_broadcast(S, y, shape, loc), loc)};
    static const int preds[] = {CMP_PRED_EQ, CMP_PRED_NE, CMP_PRED_LT,
                                CMP_PRED_LE, CMP_PRED_GT, CMP_PRED_GE};
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    OpId o = ir_build(sema_builder(S), OP_CMP, ops, 2,
                      (IrType[]){ty_with_elem(shape, ty_scalar(DT_I1))}, 1);
    sema_builder(S)->loc = saved;
    sema_func(S)->ops[o].attr[0] = preds[op];
    return sema_val_ir(S, ir_result(sema_func(S), o, 0));
}

/* ---- unary operators ---- */

bool sema_truthy_const(Sema *S, Val v, Loc loc, bool *out) {
    (void)S, (void)loc;
    switch (v.k) {
    case V_NONE: *out = false; return true;
    case V_BOOL:
    case V_INT: *out = v.i != 0; return true;
    case V_FLOAT: *out = v.f != 0; return true;
    case V_STR: *out = v.slen != 0; return true;
    case V_TUPLE:
        if (!sema_val_is_constexpr(v)) return false;
        *out = v.n != 0;
        return true;
    case V_DTYPE:
    case V_FUNC:
    case V_BUILTIN:
    case V_MODULE:
    case V_NTCLASS:
    case V_CTYPE: *out = true; return true;
    default: return false;
    }
}

static ValId emit_unary(Sema *S, int code, ValId x, Loc loc) {
    int dt = ir_type(sema_func(S), x).dt;
    x = sema_fp8_widen(S, x, loc);
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    ValId r = ir_build1(sema_builder(S), code, &x, 1, ir_type(sema_func(S), x));
    sema_builder(S)->loc = saved;
    return sema_fp8_narrow(S, r, dt, loc);
}

static Val sema_unary_op(Sema *S, int op, Val a, Loc loc) {
    bool t;
    if (sema_is_host_desc(a))
        sema_error(S, loc, "bad operand for a unary operator: %s", sema_val_kind_name(S, a));
    if (op == UN_NOT) {
        if (sema_truthy_const(S, a, loc, &t)) return sema_val_bool(!t);
        if (a.k != V_IR)
            sema_error(S, loc, "'not' needs a condition, got %s", sema_val_kind_name(S, a));
        return sema_val_ir(S, emit_unary(S, OP_NOT, sema_to_i1(S, a, loc), loc));
    }
    if (sema_val_is_const(a) && a.assigned && op != UN_POS) /* Triton's scalar tensor */
        a = sema_val_ir(S, sema_to_ir(S, a, loc));
    if (sema_val_is_const(a)) {
        if (op == UN_POS) return a;
        if (op == UN_NEG) {
            if (a.k == V_FLOAT) return sema_val_float(-a.f);
            if (a.i == INT64_MIN) sema_error(S, loc, "integer overflow in constant expression");
            return sema_val_int(-a.i);
        }
        if (a.k == V_FLOAT) sema_error(S, loc, "'~' needs an integer, got a float");
        return sema_val_int(~a.i);
    }
    if (a.k != V_IR)
        sema_error(S, loc, "bad operand for unary operator: %s", sema_val_kind_name(S, a));
    if (a.ty.dt == DT_PTR) sema_error(S, loc, "bad operand for unary operator: a pointer");
    if (op == UN_POS) return a;
    if (op == UN_NEG) { /* Triton's minus is 0 - x: checked as a subtraction in debug mode */
        check_overflow(S, OP_SUB, sema_val_int(0), a, a.ty.dt, loc);
        return sema_val_ir(S, emit_unary(S, OP_NEG, a.v, loc));
    }
    if (!dt_is_int(a.ty.dt))
        sema_error(S, loc, "'~' needs an integer, got %s", sema_val_kind_name(S, a));
    return sema_val_ir(S, emit_unary(S, OP_NOT, a.v, loc));
}

/* ---- subscripts: x[:, None] and tuple indexing ---- */

static Val subscript_tuple(Sema *S, Val t, const Expr *e) {
    if (e->nitems != 1) sema_error(S, e->loc, "a tuple takes one index");
    const Expr *ix = e->items[0];
    if (ix->kind == EX_SLICE) { /* Python's slice: t[a:b:c], any of them left out or None */
        const Expr *parts[3] = {ix->lhs, ix->rhs, ix->third};
        Val pv[3];
        for (int k = 0; k < 3; k++) {
            pv[k] = parts[k] ? sema_lower_expr(S, parts[k]) : sema_val_none();
            if (pv[k].k != V_INT && pv[k].k != V_NONE)
                sema_error(S, parts[k]->loc, "tuple slices take constant integer bounds, got %s",
                           sema_val_kind_name(S, pv[k]));
        }
        int64_t step = pv[2].k == V_INT ? pv[2].i : 1, n = t.n;
        if (step == 0) sema_error(S, parts[2]->loc, "slice step cannot be zero");
        int64_t bound[2];
        for (int k = 0; k < 2; k++) {
            if (pv[k].k == V_NONE) {
                bound[k] = k == 0 ? (step > 0 ? 0 : n - 1) : (step > 0 ? n : -1);
                continue;
            }
            int64_t x = pv[k].i < 0 ? pv[k].i + n : pv[k].i;
            if (x < 0) x = step > 0 ? 0 : -1;
            if (x > n) x = step > 0 ? n : n - 1;
            if (x == n && step < 0) x = n - 1;
            bound[k] = x;
        }
        Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)(n + 1));
        int m = 0;
        for (int64_t i = bound[0]; step > 0 ? i < bound[1] : i > bound[1]; i += step)
            items[m++] = t.items[i];
        return sema_val_tuple(S, items, m);
    }
    Val i = sema_lower_expr(S, ix);
    if (i.k != V_INT)
        sema_error(S, ix->loc, "tuple index must be a constant integer, got %s",
                   sema_val_kind_name(S, i));
    int64_t k = i.i < 0 ? i.i + t.n : i.i;
    if (k < 0 || k >= t.n)
        sema_error(S, ix->loc, "tuple index %lld out of range (length %d)", (long long)i.i, t.n);
    return t.items[k];
}

/* How an index that is not None or an empty slice prints in the error (Python's spelling). */
static const char *index_text(Sema *S, Val v) {
    switch (v.k) {
    case V_NONE: return "None";
    case V_INT: return arena_printf(S->arena, "%lld", (long long)v.i);
    case V_BOOL: return v.i ? "True" : "False";
    case V_FLOAT: return arena_printf(S->arena, "%g", v.f);
    default: return sema_val_kind_name(S, v);
    }
}

/* x[None, :, ...]: Triton's indexing of blocks (tensor.__getitem__). None (or a value
 * that is None at compile time) inserts a dim of size 1 at its position in the list; a
 * slice whose start, stop and step are all left out or None changes nothing; anything
 * else is an error. As in Triton the slices are not counted against the rank, and a
 * position past the last dim inserts at the end (Python's list.insert): a scalar
 * pointer's p[None, None, :] is [1, 1], Triton's test_reduce writes it. */
static Val subscript_block(Sema *S, Val x, const Expr *e) {
    bool *is_none = arena_alloc(S->arena, sizeof(bool) * (size_t)e->nitems);
    for (int i = 0; i < e->nitems; i++) {
        const Expr *ix = e->items[i];
        if (ix->kind == EX_SLICE) {
            const Expr *parts[3] = {ix->lhs, ix->rhs, ix->third};
            Val pv[3];
            bool empty = true;
            for (int k = 0; k < 3; k++) {
                pv[k] = parts[k] ? sema_lower_expr(S, parts[k]) : sema_val_none();
                empty &= pv[k].k == V_NONE;
            }
            if (!empty)
                sema_error(S, ix->loc, "unsupported tensor index: slice(%s, %s, %s)",
                           index_text(S, pv[0]), index_text(S, pv[1]), index_text(S, pv[2]));
            continue;
        }
        Val v = ix->kind == EX_NONE ? sema_val_none() : sema_lower_expr(S, ix);
        if (v.k != V_NONE)
            sema_error(S, ix->loc,
                       "unsupported tensor index: %s (blocks are indexed with None and ':', as "
                       "in x[:, None])",
                       index_text(S, v));
        is_none[i] = true;
    }
    ValId v = x.v;
    int axis = 0;
    for (int i = 0; i < e->nitems; i++) {
        if (!is_none[i]) {
            axis++;
            continue;
        }
        IrType t = ir_type(sema_func(S), v), r = t;
        if (t.rank >= NR_MAX_RANK)
            sema_error(S, e->loc, "blocks have at most %d dimensions", NR_MAX_RANK);
        int at = axis < t.rank ? axis : t.rank;
        memmove(r.shape + at + 1, r.shape + at, sizeof(int32_t) * (size_t)(t.rank - at));
        r.shape[at] = 1;
        r.rank++;
        Loc saved = sema_builder(S)->loc;
        sema_builder(S)->loc = e->items[i]->loc;
        OpId op = ir_build(sema_builder(S), OP_EXPAND_DIMS, &v, 1, &r, 1);
        sema_builder(S)->loc = saved;
        sema_func(S)->ops[op].attr[0] = at;
        v = ir_result(sema_func(S), op, 0);
        axis++;
    }
    return sema_val_ir(S, v);
}

static Val lower_subscript(Sema *S, const Expr *e) {
    Val base = sema_lower_expr(S, e->lhs);
    if (base.k == V_TUPLE && !base.tag) return subscript_tuple(S, base, e);
    if (base.k == V_IR) /* p[:, None]: a pointer block keeps its const */
        return sema_const_from(subscript_block(S, base, e), &base, 1);
    sema_error(S, e->loc, "%s cannot be indexed", sema_val_kind_name(S, base));
}

/* ---- boolean operators, comparisons chains, conditional expressions ---- */

static Val logical_and_or(Sema *S, bool is_and, Val a, Val b, Loc loc) {
    ValId x = sema_to_i1(S, a, loc), y = sema_to_i1(S, b, loc);
    return emit_binary(S, is_and ? OP_AND : OP_OR, sema_val_ir(S, x), sema_val_ir(S, y), DT_I1,
                       loc);
}

static Val lower_boolop(Sema *S, const Expr *e) {
    bool is_and = e->op == BOOL_AND;
    Val acc = sema_lower_expr(S, e->items[0]);
    for (int i = 1; i < e->nitems; i++) {
        bool t;
        if (sema_truthy_const(S, acc, e->loc, &t)) {
            if (t != is_and) return acc; /* short circuit, like Python */
            acc = sema_lower_expr(S, e->items[i]);
            continue;
        }
        Val rhs = sema_lower_expr(S, e->items[i]);
        if (sema_truthy_const(S, rhs, e->loc, &t)) {
            if (t == is_and) continue; /* x and True == x (as a condition) */
            acc = sema_val_bool(t);
            continue;
        }
        acc = logical_and_or(S, is_and, acc, rhs, e->loc);
    }
    return acc;
}

static Val lower_cmp_chain(Sema *S, const Expr *e) {
    Val left = sema_lower_expr(S, e->items[0]), acc = sema_val_bool(true);
    for (int i = 1; i < e->nitems; i++) {
        Val right = sema_lower_expr(S, e->items[i]);
        Val c = sema_compare_op(S, e->ops[i - 1], left, right, e->loc);
        if (i == 1) acc = c;
        else if (sema_val_is_constexpr(acc) && sema_val_is_constexpr(c))
            acc = sema_val_bool(acc.i && c.i);
        else acc = logical_and_or(S, true, acc, c, e->loc);
        left = right;
    }
    return acc;
}

/* One side of a conditional expression, in its own region, as dtype dt and shape sh. */
static ValId ifexp_side(Sema *S, RegionId r, Val v, int dt, IrType sh, Loc loc) {
    RegionId old = sema_builder(S)->region;
    sema_builder(S)->region = r;
    ValId x = dt == DT_PTR ? v.v : sema_to_ir_dt(S, v, dt, loc);
    x = sema_emit_broadcast(S, x, sh, loc);
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    ir_build(sema_builder(S), OP_YIELD, &x, 1, NULL, 0);
    sema_builder(S)->loc = saved;
    sema_builder(S)->region = old;
    return x;
}

/* The if op of a conditional expression: its then and else regions (ended by their yields)
 * and one result of type *rty, or none (rty NULL). */
static OpId build_if(Sema *S, ValId cond, RegionId rt, RegionId re, const IrType *rty, Loc loc) {
    Loc saved = sema_builder(S)->loc;
    sema_builder(S)->loc = loc;
    OpId op = ir_build(sema_builder(S), OP_IF, &cond, 1, rty, rty ? 1 : 0);
    sema_builder(S)->loc = saved;
    IrFunc *f = sema_func(S);
    f->ops[op].region[0] = rt, f->ops[op].region[1] = re, f->ops[op].nregions = 2;
    f->regions[rt].parent_op = op, f->regions[re].parent_op = op;
    return op;
}

/* `a if c else b`: a constant c picks a side now; a run-time c becomes an if op, so only
 * the side taken runs (a load on the other side never happens), as in Triton. Two sides
 * that give None (calls made for their effect: `tl.store(p, x) if c else tl.store(q, y)`)
 * make an if op with no result, and the expression is None. */
static Val lower_ifexp(Sema *S, const Expr *e) {
    Val c = sema_lower_expr(S, e->items[0]);
    bool t;
    if (sema_truthy_const(S, c, e->loc, &t)) return sema_lower_expr(S, t ? e->lhs : e->rhs);
    if (c.k != V_IR || c.ty.rank != 0)
        sema_error(S, e->items[0]->loc,
                   "the condition of a conditional expression must be a scalar, got %s",
                   sema_val_kind_name(S, c));
    ValId cond = c.ty.dt == DT_PTR /* Triton casts it to int1: a pointer is != 0 */
                     ? sema_emit_ptr_cast(S, c.v, ty_scalar(DT_I1), e->loc)
                     : sema_to_i1(S, c, e->loc);
    IrFunc *f = sema_func(S);
    RegionId rt = ir_region_new(f, 0), re = ir_region_new(f, 0), old = sema_builder(S)->region;
    sema_builder(S)->region = rt;
    Val a = sema_lower_expr(S, e->lhs);
    sema_builder(S)->region = re;
    Val b = sema_lower_expr(S, e->rhs);
    sema_builder(S)->region = old;
    if (a.k == V_NONE && b.k == V_NONE) {
        for (int i = 0; i < 2; i++) {
            sema_builder(S)->region = i ? re : rt;
            ir_build(sema_builder(S), OP_YIELD, NULL, 0, NULL, 0);
        }
        sema_builder(S)->region = old;
        build_if(S, cond, rt, re, NULL, e->loc);
        return sema_val_none();
    }
    for (int i = 0; i < 2; i++) {
        Val v = i ? b : a;
        if (v.k != V_IR && !sema_val_is_const(v))
            sema_error(S, (i ? e->rhs : e->lhs)->loc,
                       "a conditional expression with a run-time condition needs numbers or "
                       "blocks, got %s",
                       sema_val_kind_name(S, v));
    }
    IrType ta = sema_type_of(a), tb = sema_type_of(b);
    int dt;
    if (sema_const_mismatch(a, b))
        sema_error(S, e->loc,
                   "Ternary expression with dynamic condition has inconsistent type: %s and %s",
                   sema_val_kind_name(S, a), sema_val_kind_name(S, b));
    if (ta.dt == DT_PTR || tb.dt == DT_PTR) {
        if (ta.dt != tb.dt || ta.pointee != tb.pointee)
            sema_error(S, e->loc, "both sides must be pointers of one type");
        dt = DT_PTR;
    } else {
        dt = sema_computation_dtype(S, ta, sema_weak(a), tb, sema_weak(b), false, e->loc);
        sema_check_weak_range(S, a, dt, e->lhs->loc);
        sema_check_weak_range(S, b, dt, e->rhs->loc);
    }
    IrType sh = sema_broadcast_shape(S, ta, tb, e->loc);
    IrType rty = dt == DT_PTR ? ty_with_elem(sh, ty_elem(ta)) : ty_with_elem(sh, ty_scalar(dt));
    ifexp_side(S, rt, a, dt, sh, e->lhs->loc);
    ifexp_side(S, re, b, dt, sh, e->rhs->loc);
    OpId op = build_if(S, cond, rt, re, &rty, e->loc);
    Val both[2] = {a, b};
    return sema_const_from(sema_val_ir(S, ir_result(sema_func(S), op, 0)), both, 2);
}

static Val lower_call(Sema *S, const Expr *e) {
    Val callee = sema_lower_expr(S, e->lhs);
    CallArgs a;
    memset(&a, 0, sizeof a);
    a.loc = e->loc;
    int cap = e->nitems + 4;
    a.pos = arena_alloc(S->arena, sizeof(Val) * (size_t)cap);
    a.poslocs = arena_alloc(S->arena, sizeof(Loc) * (size_t)cap);
    for (int i = 0; i < e->nitems; i++) {
        const Expr *x = e->items[i];
        if (x->kind == EX_STAR) {
            Val t = sema_lower_expr(S, x->lhs);
            if (t.k != V_TUPLE)
                sema_error(S, x->loc, "'*' expands a tuple, got %s", sema_val_kind_name(S, t));
            if (a.npos + t.n > cap) {
                int nc = a.npos + t.n + 4;
                a.pos = arena_grow(S->arena, a.pos, sizeof(Val), (size_t)a.npos, (size_t)nc);
                a.poslocs =
                    arena_grow(S->arena, a.poslocs, sizeof(Loc), (size_t)a.npos, (size_t)nc);
                cap = nc;
            }
            for (int j = 0; j < t.n; j++) a.poslocs[a.npos] = x->loc, a.pos[a.npos++] = t.items[j];
            continue;
        }
        if (a.npos == cap) {
            a.pos = arena_grow(S->arena, a.pos, sizeof(Val), (size_t)a.npos, (size_t)cap * 2);
            a.poslocs =
                arena_grow(S->arena, a.poslocs, sizeof(Loc), (size_t)a.npos, (size_t)cap * 2);
            cap *= 2;
        }
        a.poslocs[a.npos] = x->loc;
        a.pos[a.npos++] = sema_lower_expr(S, x);
    }
    a.nkw = e->nkw;
    a.kwnames = arena_alloc(S->arena, sizeof(char *) * (size_t)(e->nkw + 1));
    a.kwvals = arena_alloc(S->arena, sizeof(Val) * (size_t)(e->nkw + 1));
    a.kwlocs = arena_alloc(S->arena, sizeof(Loc) * (size_t)(e->nkw + 1));
    for (int i = 0; i < e->nkw; i++) {
        for (int j = 0; j < i; j++)
            if (!strcmp(e->kwnames[i], e->kwnames[j]))
                sema_error(S, e->kwvalues[i]->loc, "keyword argument '%s' repeated", e->kwnames[i]);
        a.kwnames[i] = e->kwnames[i];
        a.kwvals[i] = sema_lower_expr(S, e->kwvalues[i]);
        a.kwlocs[i] = e->kwvalues[i]->loc;
    }
    return sema_call_value(S, callee, &a);
}

/* ---- const pointers (tl.const) ---- */

static bool has_constptr(Val v) {
    if (v.k == V_IR) return v.constptr;
    if (v.k == V_TUPLE)
        for (int i = 0; i < v.n; i++)
            if (has_constptr(v.items[i])) return true;
    return false;
}

Val sema_const_from(Val r, const Val *from, int n) {
    if (r.k == V_IR && r.ty.dt == DT_PTR)
        for (int i = 0; i < n; i++)
            if (has_constptr(from[i])) r.constptr = true;
    return r;
}

bool sema_const_mismatch(Val a, Val b) {
    if (a.k == V_TUPLE && b.k == V_TUPLE && a.n == b.n) {
        for (int i = 0; i < a.n; i++)
            if (sema_const_mismatch(a.items[i], b.items[i])) return true;
        return false;
    }
    return a.k == V_IR && b.k == V_IR && a.ty.dt == DT_PTR && b.ty.dt == DT_PTR &&
           a.constptr != b.constptr;
}

void sema_check_writable(Sema *S, Val p, Loc loc) {
    if (has_constptr(p.k == V_TUPLE && p.tag && p.n ? p.items[0] : p))
        sema_error(S, loc,
                   "Cannot store to a constant pointer (a parameter annotated tl.const, "
                   "or a pointer made from one)");
}

Val sema_binary_op(Sema *S, int op, Val a, Val b, Loc loc) {
    Val from[2] = {a, b};
    return sema_const_from(binary_op(S, op, a, b, false, loc), from, 2);
}

Val sema_user_binary_op(Sema *S, int op, Val a, Val b, Loc loc) {
    Val from[2] = {a, b};
    return sema_const_from(binary_op(S, op, a, b, true, loc), from, 2);
}

static Val lower_seq_items(Sema *S, const Expr *e) {
    Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)(e->nitems + 1));
    for (int i = 0; i < e->nitems; i++) {
        if (e->items[i]->kind == EX_STAR)
            sema_error(S, e->items[i]->loc, "'*' is only allowed in call arguments");
        items[i] = sema_lower_expr(S, e->items[i]);
    }
    return sema_val_tuple(S, items, e->nitems);
}

/* f"...": each replacement field's value, known at compile time, formatted as Triton's
 * code generator formats it (str(), repr() for !r and !a); the result is a string. */
static Val lower_fstring(Sema *S, const Expr *e) {
    StrBuf sb;
    sb_init(&sb);
    for (int i = 0; i < e->nitems; i++) {
        const Expr *x = e->items[i];
        if (!e->ops[i]) {
            sb_putn(&sb, x->sval, x->slen);
            continue;
        }
        Val v = sema_lower_expr(S, x);
        size_t mark = sb.len;
        if (!sema_val_format(S, &sb, v, e->ops[i] == 'r' || e->ops[i] == 'a', false)) {
            sb.len = mark;
            const char *what = sema_val_kind_name(S, v);
            sb_free(&sb);
            sema_error(S, x->loc,
                       "Cannot evaluate f-string containing non-constexpr conversion values, "
                       "found %s (as in Triton: only values known at compile time)",
                       what);
        }
    }
    Val r = sema_val_str(S, sb.len ? sb.data : "", sb.len);
    sb_free(&sb);
    return r;
}

Val sema_lower_expr(Sema *S, const Expr *e) {
    switch (e->kind) {
    case EX_NAME: return sema_lookup_name(S, e->name, e->loc);
    case EX_INT:
        if (e->is_big) sema_error(S, e->loc, "integer constant too large (the limit is 2^63-1)");
        return sema_val_int(e->ival);
    case EX_FLOAT: return sema_val_float(e->fval);
    case EX_STR: return sema_val_str(S, e->sval, e->slen);
    case EX_TRUE: return sema_val_bool(true);
    case EX_FALSE: return sema_val_bool(false);
    case EX_NONE: return sema_val_none();
    case EX_BINOP: {
        Val a = sema_lower_expr(S, e->lhs);
        Val b = sema_lower_expr(S, e->rhs);
        return sema_user_binary_op(S, e->op, a, b, e->loc);
    }
    case EX_UNOP: return sema_unary_op(S, e->op, sema_lower_expr(S, e->lhs), e->loc);
    case EX_CMP: return lower_cmp_chain(S, e);
    case EX_BOOLOP: return lower_boolop(S, e);
    case EX_CALL: return lower_call(S, e);
    case EX_ATTR: return sema_get_attr(S, sema_lower_expr(S, e->lhs), e->name, e->loc);
    case EX_SUBSCRIPT: return lower_subscript(S, e);
    case EX_TUPLE:
    case EX_LIST: return lower_seq_items(S, e);
    case EX_IFEXP: return lower_ifexp(S, e);
    case EX_LISTCOMP: return sema_lower_listcomp(S, e);
    case EX_FSTRING: return lower_fstring(S, e);
    case EX_COMPFOR:
    case EX_COMPIF: break; /* parts of an EX_LISTCOMP */
    case EX_SLICE: sema_error(S, e->loc, "a slice is only allowed inside brackets");
    case EX_STAR: sema_error(S, e->loc, "'*' is only allowed in call arguments");
    }
    sema_error(S, e->loc, "unsupported expression");
}
