/* test_interp.c - the CPU interpreter against hand-built IR: elementwise semantics and
 * dtype edge cases, fp16/bf16 rounding, shapes, reductions, dot, control flow, memory
 * checks (bounds, alignment, masks), atomics, assert and print, malformed IR, and two
 * launches at once. Prints one line per failed check and a summary line. */
#include "compiler/ir/ir.h"
#include "compiler/support/float16.h"
#include "runtime/interp.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int npass, nfail;

#define CHECK(cond, ...)                                \
    do {                                                \
        if (cond) {                                     \
            npass++;                                    \
        } else {                                        \
            nfail++;                                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                        \
            printf("\n");                               \
        }                                               \
    } while (0)

/* ---- a small kernel-building kit over the builder API ---- */

typedef struct K {
    Arena *arena;
    IrModule *m;
    IrFunc *f;
    IrBuilder b;
    Source src;
    RegionId stack[16];
    int depth;
} K;

static K *kb_new(const char *name) {
    K *k = calloc(1, sizeof *k);
    k->arena = arena_new();
    k->m = ir_module_new(k->arena);
    k->src.name = "t.nr";
    k->src.text = "";
    Loc loc = {&k->src, 1, 1};
    k->f = ir_func_new(k->m, name, true, loc);
    k->b.f = k->f;
    k->b.region = k->f->body;
    k->b.loc = loc;
    return k;
}

static void kb_free(K *k) {
    arena_free(k->arena);
    free(k);
}

static void at(K *k, int line, int col) { k->b.loc.line = line, k->b.loc.col = col; }

static IrType S(int dt) { return ty_scalar(dt); }
static IrType P(int pe) { return ty_ptr(pe); }
static IrType B1(IrType e, int n) { return ty_block(e, 1, (int32_t[]){n}); }
static IrType B2(IrType e, int m, int n) { return ty_block(e, 2, (int32_t[]){m, n}); }
static IrType TY(K *k, ValId v) { return ir_type(k->f, v); }
static OpId DEF(K *k, ValId v) { return ir_def(k->f, v); }

static ValId param(K *k, IrType t) { return ir_add_param(k->f, t, NULL); }
static ValId ci(K *k, IrType t, int64_t v) { return ir_const_int(&k->b, t, v); }
static ValId cf(K *k, IrType t, double v) { return ir_const_float(&k->b, t, v); }

static ValId op1(K *k, int code, IrType rt, ValId a) { return ir_build1(&k->b, code, &a, 1, rt); }
static ValId op2(K *k, int code, IrType rt, ValId a, ValId b) {
    return ir_build1(&k->b, code, (ValId[]){a, b}, 2, rt);
}
static ValId op3(K *k, int code, IrType rt, ValId a, ValId b, ValId c) {
    return ir_build1(&k->b, code, (ValId[]){a, b, c}, 3, rt);
}
static ValId bin(K *k, int code, ValId a, ValId b) { return op2(k, code, TY(k, a), a, b); }
static ValId attr1(K *k, ValId v, int64_t a0) {
    k->f->ops[DEF(k, v)].attr[0] = a0;
    return v;
}

static ValId cmp(K *k, int pred, ValId a, ValId b) {
    return attr1(k, op2(k, OP_CMP, ty_with_elem(TY(k, a), S(DT_I1)), a, b), pred);
}

static ValId arange(K *k, int start, int end) {
    ValId v = ir_build1(&k->b, OP_ARANGE, NULL, 0, B1(S(DT_I32), end - start));
    k->f->ops[DEF(k, v)].attr[0] = start;
    k->f->ops[DEF(k, v)].attr[1] = end;
    return v;
}

static ValId pid(K *k, int axis) {
    return attr1(k, ir_build1(&k->b, OP_PROGRAM_ID, NULL, 0, S(DT_I32)), axis);
}

static ValId splat(K *k, ValId v, IrType shape_of) {
    return op1(k, OP_SPLAT, ty_with_elem(shape_of, ty_elem(TY(k, v))), v);
}

static ValId addptr(K *k, ValId p, ValId off) {
    if (TY(k, p).rank == 0 && TY(k, off).rank) p = splat(k, p, TY(k, off));
    return op2(k, OP_ADDPTR, TY(k, p), p, off);
}

static ValId load(K *k, ValId p, ValId mask, ValId other) {
    IrType pt = TY(k, p);
    ValId ops[3] = {p, mask, other};
    return ir_build1(&k->b, OP_LOAD, ops,
                     other  ? 3
                     : mask ? 2
                            : 1,
                     ty_with_elem(pt, S(pt.pointee)));
}

static void store(K *k, ValId p, ValId v, ValId mask) {
    ir_build(&k->b, OP_STORE, (ValId[]){p, v, mask}, mask ? 3 : 2, NULL, 0);
}

static ValId expand(K *k, ValId v, int axis) {
    IrType t = TY(k, v), r = t;
    r.rank = (uint8_t)(t.rank + 1);
    for (int i = 0, j = 0; i < r.rank; i++) r.shape[i] = i == axis ? 1 : t.shape[j++];
    return attr1(k, op1(k, OP_EXPAND_DIMS, r, v), axis);
}

static ValId bcast(K *k, ValId v, IrType shape_of) {
    return op1(k, OP_BROADCAST, ty_with_elem(shape_of, ty_elem(TY(k, v))), v);
}

static ValId reduce(K *k, ValId v, int kind, int axis, int rdt) {
    IrType t = TY(k, v), r = ty_scalar(rdt);
    r.pointee = t.pointee;
    for (int i = 0; i < t.rank; i++)
        if (i != axis) r.shape[r.rank++] = t.shape[i];
    ValId x = op1(k, OP_REDUCE, r, v);
    k->f->ops[DEF(k, x)].attr[0] = kind;
    k->f->ops[DEF(k, x)].attr[1] = axis;
    return x;
}

/* Structured ops: open a region (pushing the builder's region), close it with a
 * terminator. */
static void push(K *k, RegionId r) {
    k->stack[k->depth++] = k->b.region;
    k->b.region = r;
}

static void pop_yield(K *k, int code, const ValId *vals, uint32_t n) {
    ir_build(&k->b, code, vals, n, NULL, 0);
    k->b.region = k->stack[--k->depth];
}

static RegionId region_with_args(K *k, OpId op, const ValId *like, uint32_t n, IrType *first) {
    RegionId r = ir_op_add_region(k->f, op);
    if (first) ir_region_add_arg(k->f, r, *first);
    for (uint32_t i = 0; i < n; i++) ir_region_add_arg(k->f, r, TY(k, like[i]));
    return r;
}

static ValId rarg(K *k, RegionId r, uint32_t i) { return k->f->regions[r].args[i]; }

/* for iv in range(lb, ub, step) carrying inits: returns the op; body region pushed */
static OpId for_begin(K *k, ValId lb, ValId ub, ValId step, const ValId *inits, uint32_t n,
                      RegionId *body) {
    ValId ops[16] = {lb, ub, step};
    IrType tys[16];
    for (uint32_t i = 0; i < n; i++) ops[3 + i] = inits[i], tys[i] = TY(k, inits[i]);
    OpId op = ir_build(&k->b, OP_FOR, ops, 3 + n, tys, n);
    IrType ivt = TY(k, lb);
    *body = region_with_args(k, op, inits, n, &ivt);
    push(k, *body);
    return op;
}

/* ---- running ---- */

typedef struct Run {
    InterpBuffer bufs[8];
    int nbufs;
    InterpScalar args[16];
    int nargs;
    StrBuf err;
    FILE *print_out;
    bool lax; /* non-strict */
} Run;

static void reg(Run *r, const void *p, size_t size) {
    r->bufs[r->nbufs].base = (uint64_t)(uintptr_t)p;
    r->bufs[r->nbufs++].size = size;
}

static void arg_ptr(Run *r, const void *p) { r->args[r->nargs++].u = (uint64_t)(uintptr_t)p; }
static void arg_int(Run *r, int64_t v) { r->args[r->nargs++].i = v; }
static void arg_f(Run *r, double v) { r->args[r->nargs++].f = v; }

static int run(K *k, Run *r, unsigned gx, unsigned gy, unsigned gz) {
    InterpOptions o = {r->bufs, r->nbufs, !r->lax, r->print_out, 0};
    sb_init(&r->err);
    unsigned grid[3] = {gx, gy, gz};
    return interp_run(k->f, r->args, grid, &o, &r->err);
}

static bool has(StrBuf *sb, const char *s) { return strstr(sb_cstr(sb), s) != NULL; }

/* ---- host values of any dtype: int64_t for integers, double for floats ---- */

static void pack(int dt, void *mem, int i, const void *vals) {
    int64_t v = dt_is_float(dt) ? 0 : ((const int64_t *)vals)[i];
    double f = dt_is_float(dt) ? ((const double *)vals)[i] : 0;
    switch (dt) {
    case DT_I1: ((uint8_t *)mem)[i] = v != 0; break;
    case DT_I8:
    case DT_U8: ((uint8_t *)mem)[i] = (uint8_t)v; break;
    case DT_I16:
    case DT_U16: ((uint16_t *)mem)[i] = (uint16_t)v; break;
    case DT_I32:
    case DT_U32: ((uint32_t *)mem)[i] = (uint32_t)v; break;
    case DT_FP16: ((uint16_t *)mem)[i] = fp16_from_double(f); break;
    case DT_BF16: ((uint16_t *)mem)[i] = bf16_from_double(f); break;
    case DT_FP32: ((float *)mem)[i] = (float)f; break;
    case DT_FP64: ((double *)mem)[i] = f; break;
    default: ((uint64_t *)mem)[i] = (uint64_t)v; break;
    }
}

/* Memory element i as int64_t (extended by signedness) or double. */
static void unpack(int dt, const void *mem, int i, void *out) {
    int64_t *o = out;
    double *f = out;
    switch (dt) {
    case DT_I1:
    case DT_U8: *o = ((const uint8_t *)mem)[i]; break;
    case DT_I8: *o = ((const int8_t *)mem)[i]; break;
    case DT_I16: *o = ((const int16_t *)mem)[i]; break;
    case DT_U16: *o = ((const uint16_t *)mem)[i]; break;
    case DT_I32: *o = ((const int32_t *)mem)[i]; break;
    case DT_U32: *o = ((const uint32_t *)mem)[i]; break;
    case DT_FP16: *f = fp16_to_double(((const uint16_t *)mem)[i]); break;
    case DT_BF16: *f = bf16_to_double(((const uint16_t *)mem)[i]); break;
    case DT_FP32: *f = ((const float *)mem)[i]; break;
    case DT_FP64: *f = ((const double *)mem)[i]; break;
    default: memcpy(o, (const char *)mem + 8 * i, 8); break;
    }
}

static bool same_double(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return memcmp(&a, &b, sizeof a) == 0; /* tells -0.0 from 0.0 */
}

enum { EW_MAX = 64 };

/* out[i] = code(in_0[i], ...) for i < n, through memory of the given dtypes; the
 * result is compared with expect (host convention above). */
static void t_ew(int line, int code, int64_t attr, int rdt, const void *expect, int n, int nin,
                 const int *dts, const void *const *vals) {
    int np = 1;
    while (np < n) np *= 2;
    K *k = kb_new("ew");
    ValId ptrs[4], x[4];
    for (int j = 0; j < nin; j++) ptrs[j] = param(k, P(dts[j]));
    ValId out = param(k, P(rdt));
    ValId offs = arange(k, 0, np);
    ValId mask = cmp(k, CMP_PRED_LT, offs, splat(k, ci(k, S(DT_I32), n), TY(k, offs)));
    for (int j = 0; j < nin; j++) x[j] = load(k, addptr(k, ptrs[j], offs), mask, 0);
    IrType rt = B1(S(rdt), np);
    ValId r = nin == 1   ? op1(k, code, rt, x[0])
              : nin == 2 ? op2(k, code, rt, x[0], x[1])
                         : op3(k, code, rt, x[0], x[1], x[2]);
    k->f->ops[DEF(k, r)].attr[0] = attr;
    store(k, addptr(k, out, offs), r, mask);
    unsigned char mem[5][EW_MAX * 8];
    Run R = {0};
    for (int j = 0; j < nin; j++) {
        for (int i = 0; i < n; i++) pack(dts[j], mem[j], i, vals[j]);
        reg(&R, mem[j], (size_t)n * dt_bytes(dts[j]));
        arg_ptr(&R, mem[j]);
    }
    memset(mem[4], 0xAB, sizeof mem[4]);
    reg(&R, mem[4], (size_t)n * dt_bytes(rdt));
    arg_ptr(&R, mem[4]);
    int rc = run(k, &R, 1, 1, 1);
    CHECK(rc == 0, "line %d: %s failed: %s", line, ir_op_info[code].name, sb_cstr(&R.err));
    for (int i = 0; i < n && rc == 0 && expect; i++) {
        if (dt_is_float(rdt)) {
            double got;
            unpack(rdt, mem[4], i, &got);
            double want = ((const double *)expect)[i];
            CHECK(same_double(got, want), "line %d: %s %s lane %d: got %.17g want %.17g", line,
                  ir_op_info[code].name, dt_name(rdt), i, got, want);
        } else {
            int64_t got;
            unpack(rdt, mem[4], i, &got);
            int64_t want = ((const int64_t *)expect)[i];
            CHECK(got == want, "line %d: %s %s lane %d: got %lld want %lld", line,
                  ir_op_info[code].name, dt_name(rdt), i, (long long)got, (long long)want);
        }
    }
    sb_free(&R.err);
    kb_free(k);
}

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define F64(...) ((const double[]){__VA_ARGS__})
#define NE(E) ((int)(sizeof(E) / sizeof((E)[0])))
/* binary / unary / ternary elementwise checks: operand dtype dt, result dtype rdt */
#define T2(code, dt, A, B, E) \
    t_ew(__LINE__, code, 0, dt, E, NE(E), 2, (const int[]){dt, dt}, (const void *const[]){A, B})
#define T1(code, dt, rdt, A, E) \
    t_ew(__LINE__, code, 0, rdt, E, NE(E), 1, (const int[]){dt}, (const void *const[]){A})
#define TCMP(pred, dt, A, B, E)                                             \
    t_ew(__LINE__, OP_CMP, pred, DT_I1, E, NE(E), 2, (const int[]){dt, dt}, \
         (const void *const[]){A, B})

/* ==== tests ==== */

static void test_float16(void) {
    /* fp16 */
    CHECK(fp16_from_double(1.0) == 0x3c00, "fp16(1)");
    CHECK(fp16_from_double(1.0 + ldexp(1, -11)) == 0x3c00, "fp16(1+2^-11) ties to even");
    CHECK(fp16_from_double(1.0 + 3 * ldexp(1, -11)) == 0x3c02, "fp16(1+3*2^-11) ties to even up");
    CHECK(fp16_from_double(1.0 + ldexp(1, -11) + ldexp(1, -30)) == 0x3c01, "fp16 above the tie");
    CHECK(fp16_from_double(65504.0) == 0x7bff, "fp16 max");
    CHECK(fp16_from_double(65519.99) == 0x7bff, "fp16 below the overflow tie");
    CHECK(fp16_from_double(65520.0) == 0x7c00, "fp16(65520) -> inf");
    CHECK(fp16_from_double(-1e9) == 0xfc00, "fp16(-1e9) -> -inf");
    CHECK(fp16_from_double(ldexp(1, -24)) == 0x0001, "fp16 min subnormal");
    CHECK(fp16_from_double(ldexp(1, -25)) == 0x0000, "fp16 2^-25 ties to 0");
    CHECK(fp16_from_double(3 * ldexp(1, -26)) == 0x0001, "fp16 3*2^-26 -> 2^-24");
    CHECK(fp16_from_double(3 * ldexp(1, -25)) == 0x0002, "fp16 1.5 units ties to 2");
    CHECK(fp16_from_double(-ldexp(1, -30)) == 0x8000, "fp16 tiny negative -> -0");
    CHECK(fp16_from_double(ldexp(1023, -24)) == 0x03ff, "fp16 max subnormal");
    CHECK(fp16_from_double(ldexp(2047, -25)) == 0x0400, "fp16 rounds up into the normals");
    CHECK(fp16_from_double(ldexp(1, -14)) == 0x0400, "fp16 min normal");
    CHECK(fp16_from_double(INFINITY) == 0x7c00 && fp16_from_double(-INFINITY) == 0xfc00,
          "fp16 inf");
    uint16_t hn = fp16_from_double(NAN);
    CHECK((hn & 0x7c00) == 0x7c00 && (hn & 0x3ff), "fp16 NaN stays NaN: %04x", hn);
    CHECK(fp16_from_float(-2.0f) == 0xc000, "fp16(-2)");
    CHECK(fp16_to_double(0x0001) == ldexp(1, -24), "fp16 subnormal decode");
    CHECK(fp16_to_double(0x03ff) == ldexp(1023, -24), "fp16 max subnormal decode");
    CHECK(fp16_to_double(0x7bff) == 65504.0, "fp16 max decode");
    CHECK(isinf(fp16_to_double(0x7c00)) && isnan(fp16_to_double(0x7e00)), "fp16 inf/NaN decode");
    CHECK(signbit(fp16_to_double(0x8000)) && fp16_to_double(0x8000) == 0, "fp16 -0");
    CHECK(fp16_to_float(0x3555) == 0.333251953125f, "fp16 1/3 decode");
    int bad = 0; /* every finite half round-trips */
    for (unsigned h = 0; h < 0x10000; h++)
        if ((h & 0x7c00) != 0x7c00 && fp16_from_double(fp16_to_double((uint16_t)h)) != h) bad++;
    CHECK(bad == 0, "fp16 round trip: %d bad", bad);
    /* bf16 */
    CHECK(bf16_from_double(1.00390625) == 0x3f80, "bf16(1+2^-8) ties to 1.0");
    CHECK(bf16_from_double(1.01171875) == 0x3f82, "bf16(1+3*2^-8) ties to even up");
    CHECK(bf16_from_float(1.0f) == 0x3f80 && bf16_to_float(0x3f80) == 1.0f, "bf16(1)");
    CHECK(bf16_from_double(3.4e38) == 0x7f80, "bf16 overflow -> inf: %04x",
          bf16_from_double(3.4e38));
    CHECK(bf16_from_double(ldexp(1, -133)) == 0x0001, "bf16 min subnormal");
    CHECK(bf16_from_double(ldexp(1, -134)) == 0x0000, "bf16 half min subnormal ties to 0");
    CHECK(bf16_to_double(0x0001) == ldexp(1, -133), "bf16 subnormal decode");
    CHECK(bf16_to_double(0xc040) == -3.0, "bf16 -3 decode");
    uint16_t bn = bf16_from_float(NAN);
    CHECK((bn & 0x7f80) == 0x7f80 && (bn & 0x7f), "bf16 NaN");
    CHECK(fp16_round(0.1) == fp16_to_double(0x2e66), "fp16_round(0.1)");
    CHECK(bf16_round(0.1) == bf16_to_double(0x3dcd), "bf16_round(0.1)");
}

static void test_int_arith(void) {
    /* wrap-around */
    T2(OP_ADD, DT_I8, I64(127, -128, 100, -1), I64(1, -1, 100, 1), I64(-128, 127, -56, 0));
    T2(OP_ADD, DT_U8, I64(255, 200, 0), I64(1, 100, 0), I64(0, 44, 0));
    T2(OP_ADD, DT_I32, I64(INT32_MAX, INT32_MIN), I64(1, -1), I64(INT32_MIN, INT32_MAX));
    T2(OP_ADD, DT_I64, I64(INT64_MAX, 5), I64(1, -7), I64(INT64_MIN, -2));
    T2(OP_SUB, DT_U32, I64(0, 5), I64(1, 3), I64(0xffffffff, 2));
    T2(OP_SUB, DT_I16, I64(-32768, 0), I64(1, -32768), I64(32767, -32768));
    T2(OP_MUL, DT_I32, I64(65536, -3, 0x7fffffff), I64(65536, 7, 2), I64(0, -21, -2));
    T2(OP_MUL, DT_U64, I64(-1, 3), I64(-1, 5), I64(1, 15));
    /* i1: arithmetic mod 2 */
    T2(OP_ADD, DT_I1, I64(0, 0, 1, 1), I64(0, 1, 0, 1), I64(0, 1, 1, 0));
    T2(OP_SUB, DT_I1, I64(0, 0, 1, 1), I64(0, 1, 0, 1), I64(0, 1, 1, 0));
    T2(OP_MUL, DT_I1, I64(0, 0, 1, 1), I64(0, 1, 0, 1), I64(0, 0, 0, 1));
    T2(OP_AND, DT_I1, I64(0, 0, 1, 1), I64(0, 1, 0, 1), I64(0, 0, 0, 1));
    T2(OP_OR, DT_I1, I64(0, 0, 1, 1), I64(0, 1, 0, 1), I64(0, 1, 1, 1));
    T2(OP_XOR, DT_I1, I64(0, 0, 1, 1), I64(0, 1, 0, 1), I64(0, 1, 1, 0));
    T2(OP_MAX, DT_I1, I64(0, 0, 1, 1), I64(0, 1, 0, 1), I64(0, 1, 1, 1));
    T1(OP_NOT, DT_I1, DT_I1, I64(0, 1), I64(1, 0));
    T1(OP_NEG, DT_I1, DT_I1, I64(0, 1), I64(0, 1));
    /* division: C semantics, by zero gives 0, INT_MIN / -1 wraps */
    T2(OP_IDIV, DT_I32, I64(-7, 7, -7, 7, 5, INT32_MIN, INT32_MIN, 0),
       I64(2, -2, -2, 2, 0, -1, 1, 3), I64(-3, -3, 3, 3, 0, INT32_MIN, INT32_MIN, 0));
    T2(OP_REM, DT_I32, I64(-7, 7, -7, 7, 5, INT32_MIN, 9), I64(2, -2, -2, 2, 0, -1, 3),
       I64(-1, 1, -1, 1, 0, 0, 0));
    T2(OP_IDIV, DT_I64, I64(INT64_MIN, INT64_MIN, -9), I64(-1, 0, 4), I64(INT64_MIN, 0, -2));
    T2(OP_REM, DT_I64, I64(INT64_MIN, -9), I64(-1, 4), I64(0, -1));
    T2(OP_IDIV, DT_I8, I64(-128, -128, 100), I64(-1, 2, 0), I64(-128, -64, 0));
    T2(OP_IDIV, DT_U32, I64(0xffffffff, 7, 9), I64(2, 0, 3), I64(0x7fffffff, 0, 3));
    T2(OP_REM, DT_U8, I64(255, 7, 200), I64(16, 0, 7), I64(15, 0, 4));
    T2(OP_IDIV, DT_U64, I64(-1, 10), I64(2, 3), I64(INT64_MAX, 3));
    /* shifts: amounts >= width give 0 (-1 for negative signed shr); negative amounts count as huge
     */
    T2(OP_SHL, DT_I32, I64(1, 1, 1, 3, 1, -1), I64(31, 32, 40, 2, -1, 4),
       I64(INT32_MIN, 0, 0, 12, 0, -16));
    T2(OP_SHR, DT_I32, I64(-8, -8, 8, -1, INT32_MIN, 8), I64(1, 32, 32, 31, 31, -1),
       I64(-4, -1, 0, -1, -1, 0));
    T2(OP_SHR, DT_U32, I64(0x80000000, 0x80000000, 0xffffffff), I64(31, 32, 4),
       I64(1, 0, 0x0fffffff));
    T2(OP_SHL, DT_I8, I64(1, 1, 0x41), I64(7, 8, 1), I64(-128, 0, -126));
    T2(OP_SHR, DT_I8, I64(-128, -128, 64), I64(7, 8, 6), I64(-1, -1, 1));
    T2(OP_SHL, DT_U64, I64(1, 1, 1), I64(63, 64, 100), I64(INT64_MIN, 0, 0));
    T2(OP_SHR, DT_I64, I64(INT64_MIN, INT64_MIN, INT64_MAX), I64(63, 64, 62), I64(-1, -1, 1));
    T2(OP_SHR, DT_U16, I64(0xffff, 0x8000), I64(15, 16), I64(1, 0));
    /* umulhi */
    T2(OP_UMULHI, DT_U32, I64(0xffffffff, 0x10000, 3), I64(0xffffffff, 0x10000, 5),
       I64(0xfffffffe, 1, 0));
    T2(OP_UMULHI, DT_U64, I64(-1, INT64_MIN, 1), I64(-1, 4, -1), I64(-2, 2, 0));
    T2(OP_UMULHI, DT_I32, I64(-1, -1, -2), I64(2, -1, 3), I64(1, -2, 2)); /* bits as unsigned */
    T2(OP_UMULHI, DT_U8, I64(255, 16), I64(255, 16), I64(254, 1));
    /* min/max by signedness */
    T2(OP_MIN, DT_I8, I64(-1, 5), I64(1, -128), I64(-1, -128));
    T2(OP_MIN, DT_U8, I64(255, 5), I64(1, 0), I64(1, 0));
    T2(OP_MAX, DT_I64, I64(-1, INT64_MIN), I64(1, INT64_MAX), I64(1, INT64_MAX));
    T2(OP_MAX, DT_U64, I64(-1, 0), I64(1, 2), I64(-1, 2));
    /* bitwise */
    T2(OP_AND, DT_I16, I64(-1, 0x0f0f), I64(0x1234, 0x00ff), I64(0x1234, 0x000f));
    T2(OP_OR, DT_U8, I64(0xf0, 1), I64(0x0f, 2), I64(0xff, 3));
    T2(OP_XOR, DT_I8, I64(-1, 0x55), I64(0x7f, 0x0f), I64(-128, 0x5a));
    /* unary */
    T1(OP_NEG, DT_I32, DT_I32, I64(INT32_MIN, 5, 0), I64(INT32_MIN, -5, 0));
    T1(OP_NEG, DT_U8, DT_U8, I64(1, 0), I64(255, 0));
    T1(OP_ABS, DT_I32, DT_I32, I64(INT32_MIN, -5, 7), I64(INT32_MIN, 5, 7));
    T1(OP_ABS, DT_I8, DT_I8, I64(-128, -1), I64(-128, 1));
    T1(OP_NOT, DT_I32, DT_I32, I64(0, -1, 5), I64(-1, 0, -6));
    T1(OP_NOT, DT_U16, DT_U16, I64(0, 0xffff), I64(0xffff, 0));
    t_ew(__LINE__, OP_FMA, 0, DT_I8, I64(-126, 0), 2, 3, (const int[]){DT_I8, DT_I8, DT_I8},
         (const void *const[]){I64(10, 16), I64(13, 16), I64(0, 0)});
}

static void test_float_arith(void) {
    double nan = NAN, inf = INFINITY;
    double e24 = ldexp(1, -24), e11 = ldexp(1, -11);
    T2(OP_ADD, DT_FP32, F64(1, 1, 0.1f, 3e38), F64(e24, 3 * e24, 0.2f, 3e38),
       F64(1, 1 + ldexp(1, -22), (double)(0.1f + 0.2f), inf));
    T2(OP_ADD, DT_FP16, F64(1, 1, 65504, 2048), F64(e11, 3 * e11, 16, 1),
       F64(1, 1 + ldexp(1, -9), inf, 2048)); /* 65520 ties up to inf */
    T2(OP_ADD, DT_BF16, F64(1, 256), F64(ldexp(1, -8), 1), F64(1, 256));
    T2(OP_ADD, DT_FP64, F64(1, 0.1), F64(ldexp(1, -53), 0.2), F64(1, 0.1 + 0.2));
    T2(OP_MUL, DT_FP16, F64(300, 0.5), F64(300, ldexp(1, -24)), F64(inf, 0));
    T2(OP_DIV, DT_FP32, F64(1, 1, -1, 0, 1), F64(3, 0, 0, 0, -inf),
       F64((double)(1.0f / 3.0f), inf, -inf, nan, -0.0));
    T2(OP_DIV, DT_FP16, F64(1), F64(3), F64(fp16_to_double(0x3555)));
    T2(OP_REM, DT_FP32, F64(-7.5, 7.5, 1), F64(2, -2, 0), F64(-1.5, 1.5, nan));
    T2(OP_MIN, DT_FP32, F64(nan, 1, nan, -1), F64(1, nan, nan, 2), F64(1, 1, nan, -1));
    T2(OP_MAX, DT_FP64, F64(nan, 1, -inf), F64(1, nan, 3), F64(1, 1, 3));
    T2(OP_MAX, DT_FP32, F64(-0.0, 0.0, -0.0), F64(0.0, -0.0, -0.0), F64(0.0, 0.0, -0.0));
    T2(OP_MIN, DT_FP16, F64(-0.0, 0.0, 0.0), F64(0.0, -0.0, 0.0), F64(-0.0, -0.0, 0.0));
    T2(OP_SUB, DT_FP32, F64(1, 0), F64(1, 0), F64(0, 0));
    T1(OP_NEG, DT_FP32, DT_FP32, F64(0, -2.5, inf), F64(-0.0, 2.5, -inf));
    T1(OP_ABS, DT_FP16, DT_FP16, F64(-0.0, -3, -inf), F64(0, 3, inf));
    T1(OP_EXP, DT_FP32, DT_FP32, F64(0, 1, -inf, 100), F64(1, (double)(float)exp(1.0), 0, inf));
    T1(OP_EXP2, DT_FP16, DT_FP16, F64(3, -24, 16), F64(8, ldexp(1, -24), inf));
    T1(OP_LOG, DT_FP32, DT_FP32, F64(1, 0, -1), F64(0, -inf, nan));
    T1(OP_LOG2, DT_FP64, DT_FP64, F64(8, 0.5), F64(3, -1));
    T1(OP_SQRT, DT_FP32, DT_FP32, F64(4, 2, -1, -0.0), F64(2, (double)sqrtf(2.0f), nan, -0.0));
    T1(OP_RSQRT, DT_FP32, DT_FP32, F64(4, 0, 2), F64(0.5, inf, (double)(float)(1 / sqrt(2.0))));
    T1(OP_SIN, DT_FP32, DT_FP32, F64(0, 1), F64(0, (double)(float)sin(1.0)));
    T1(OP_COS, DT_BF16, DT_BF16, F64(0, 1), F64(1, bf16_round(cos(1.0))));
    T1(OP_FLOOR, DT_FP32, DT_FP32, F64(-1.5, 1.5, -0.0), F64(-2, 1, -0.0));
    T1(OP_CEIL, DT_FP64, DT_FP64, F64(-1.5, 1.5), F64(-1, 2));
    T1(OP_FLOOR, DT_I32, DT_I32, I64(-3), I64(-3));
    /* fma: fp32 single rounding through fmaf */
    float fa = 1.0f + ldexpf(1, -12), fc = -(1.0f + ldexpf(1, -11));
    t_ew(__LINE__, OP_FMA, 0, DT_FP32, F64((double)fmaf(fa, fa, fc)), 1, 3,
         (const int[]){DT_FP32, DT_FP32, DT_FP32},
         (const void *const[]){F64(fa), F64(fa), F64(fc)});
    CHECK(fmaf(fa, fa, fc) == ldexpf(1, -24), "fmaf keeps the low product bits");
    t_ew(__LINE__, OP_FMA, 0, DT_FP16, F64(7), 1, 3, (const int[]){DT_FP16, DT_FP16, DT_FP16},
         (const void *const[]){F64(2), F64(3), F64(1)});
}

static void test_cmp_select(void) {
    double nan = NAN;
    const double *A = F64(nan, 1, nan, 1, 2), *B = F64(1, nan, nan, 1, 1);
    TCMP(CMP_PRED_EQ, DT_FP32, A, B, I64(0, 0, 0, 1, 0));
    TCMP(CMP_PRED_NE, DT_FP32, A, B, I64(1, 1, 1, 0, 1));
    TCMP(CMP_PRED_LT, DT_FP32, A, B, I64(0, 0, 0, 0, 0));
    TCMP(CMP_PRED_LE, DT_FP16, A, B, I64(0, 0, 0, 1, 0));
    TCMP(CMP_PRED_GT, DT_FP64, A, B, I64(0, 0, 0, 0, 1));
    TCMP(CMP_PRED_GE, DT_BF16, A, B, I64(0, 0, 0, 1, 1));
    TCMP(CMP_PRED_EQ, DT_FP32, F64(0.0), F64(-0.0), I64(1));
    TCMP(CMP_PRED_LT, DT_I32, I64(-1, 1, 5), I64(1, -1, 5), I64(1, 0, 0));
    TCMP(CMP_PRED_LT, DT_U32, I64(0xffffffff, 1), I64(1, 0xffffffff), I64(0, 1));
    TCMP(CMP_PRED_GE, DT_I8, I64(-128, 127), I64(127, -128), I64(0, 1));
    TCMP(CMP_PRED_GT, DT_U64, I64(-1, 0), I64(0, -1), I64(1, 0));
    TCMP(CMP_PRED_LE, DT_I64, I64(INT64_MIN, 3), I64(INT64_MAX, 3), I64(1, 1));
    t_ew(__LINE__, OP_SELECT, 0, DT_FP32, F64(1.5, -2), 2, 3,
         (const int[]){DT_I1, DT_FP32, DT_FP32},
         (const void *const[]){I64(1, 0), F64(1.5, 9), F64(7, -2)});
    t_ew(__LINE__, OP_SELECT, 0, DT_I8, I64(-1, 4), 2, 3, (const int[]){DT_I1, DT_I8, DT_I8},
         (const void *const[]){I64(0, 1), I64(3, 4), I64(-1, 5)});
}

static void test_cvt_bitcast(void) {
    double nan = NAN, inf = INFINITY;
    T1(OP_CVT, DT_FP32, DT_I32, F64(3.7, -3.7, 1e10, -1e10, nan, inf, -inf, -0.5, 2147483520.0),
       I64(3, -3, INT32_MAX, INT32_MIN, 0, INT32_MAX, INT32_MIN, 0, 2147483520));
    T1(OP_CVT, DT_FP32, DT_U8, F64(-5, 300, 255.9, nan, 7.5), I64(0, 255, 255, 0, 7));
    T1(OP_CVT, DT_FP64, DT_I64, F64(9.3e18, -9.3e18, 1e18, nan),
       I64(INT64_MAX, INT64_MIN, 1000000000000000000, 0));
    T1(OP_CVT, DT_FP64, DT_U64, F64(1.9e19, -1, 1e19),
       I64(-1, 0, (int64_t)10000000000000000000ull));
    T1(OP_CVT, DT_FP16, DT_I8, F64(-200, 127.5, -128.9), I64(-128, 127, -128));
    T1(OP_CVT, DT_FP32, DT_I1, F64(0.5, 0, -0.0, -2), I64(1, 0, 0, 1));
    T1(OP_CVT, DT_I32, DT_I8, I64(300, -129, 127), I64(44, 127, 127));
    T1(OP_CVT, DT_I8, DT_I32, I64(-1, 127), I64(-1, 127));
    T1(OP_CVT, DT_U8, DT_I32, I64(255, 0), I64(255, 0));
    T1(OP_CVT, DT_I8, DT_U32, I64(-1, 5), I64(0xffffffff, 5));
    T1(OP_CVT, DT_U32, DT_I64, I64(0xffffffff), I64(0xffffffff));
    T1(OP_CVT, DT_I32, DT_U64, I64(-2), I64(-2));
    T1(OP_CVT, DT_I32, DT_I1, I64(2, 0, -1), I64(1, 0, 1));
    T1(OP_CVT, DT_I1, DT_FP32, I64(1, 0), F64(1, 0));
    T1(OP_CVT, DT_I1, DT_I32, I64(1, 0), I64(1, 0));
    T1(OP_CVT, DT_I32, DT_FP16, I64(2049, 2051, 65520, -70000, 3), F64(2048, 2052, inf, -inf, 3));
    T1(OP_CVT, DT_I64, DT_FP32, I64((1LL << 53) + 1, (1LL << 24) + 1, -((1LL << 24) + 3)),
       F64(ldexp(1, 53), ldexp(1, 24), -(ldexp(1, 24) + 4)));
    /* no double rounding: 2^62 + 2^54 + 1 is just above a bf16 tie; via double it would tie */
    T1(OP_CVT, DT_I64, DT_BF16, I64((1LL << 62) + (1LL << 54) + 1, (1LL << 62) + (1LL << 54)),
       F64(ldexp(1, 62) + ldexp(1, 55), ldexp(1, 62)));
    T1(OP_CVT, DT_U64, DT_FP16, I64(-1), F64(inf));
    T1(OP_CVT, DT_U64, DT_FP64, I64(-1), F64(ldexp(1, 64)));
    T1(OP_CVT, DT_I64, DT_FP64, I64(INT64_MIN), F64(-ldexp(1, 63)));
    T1(OP_CVT, DT_FP32, DT_FP16, F64(1 + ldexp(1, -11), 65520, 0.1f, ldexp(1, -25)),
       F64(1, inf, fp16_round(0.1f), 0));
    T1(OP_CVT, DT_FP32, DT_BF16, F64(1.00390625, -1.01171875), F64(1, -1.015625));
    T1(OP_CVT, DT_FP16, DT_FP32, F64(ldexp(1, -24), 65504), F64(ldexp(1, -24), 65504));
    T1(OP_CVT, DT_FP64, DT_FP32, F64(0.1, 1e300), F64((double)0.1f, inf));
    T1(OP_BITCAST, DT_FP32, DT_I32, F64(1, -2), I64(0x3f800000, (int32_t)0xc0000000));
    T1(OP_BITCAST, DT_I32, DT_FP32, I64(0x3f800000, 0x7f800000), F64(1, inf));
    T1(OP_BITCAST, DT_I16, DT_FP16, I64(0x3c00, (int16_t)0xc000, 0x0001),
       F64(1, -2, ldexp(1, -24)));
    T1(OP_BITCAST, DT_FP16, DT_I16, F64(-2, 65504), I64(-16384, 0x7bff));
    T1(OP_BITCAST, DT_BF16, DT_U16, F64(1), I64(0x3f80));
    T1(OP_BITCAST, DT_FP64, DT_U64, F64(-0.0), I64(INT64_MIN));
    T1(OP_BITCAST, DT_U8, DT_I8, I64(255, 128), I64(-1, -128));
}

/* Every op on every dtype it takes, on extreme values: must run (the sanitizer build
 * checks for undefined behaviour); results are checked elsewhere. */
static void test_sweep(void) {
    static const int64_t iv[16] = {
        0,   1,    -1,  2,     INT64_MIN, INT64_MAX, INT32_MIN,          INT32_MAX,
        127, -128, 255, 65535, 63,        64,        0x5555555555555555, -2};
    static const double fv[16] = {0.0,   -0.0, 1.0,   -1.0,  NAN,   INFINITY, -INFINITY, 1e30,
                                  -1e30, 0.5,  65504, 65520, 1e-40, -2.5,     3e38,      1e300};
    int64_t iv2[16];
    double fv2[16];
    for (int i = 0; i < 16; i++) iv2[i] = iv[(i * 7 + 3) % 16], fv2[i] = fv[(i * 5 + 1) % 16];
    static const int ints[] = {DT_I1, DT_I8, DT_I16, DT_I32, DT_I64, DT_U8, DT_U16, DT_U32, DT_U64};
    static const int floats[] = {DT_FP16, DT_BF16, DT_FP32, DT_FP64};
    static const int ibin[] = {OP_ADD, OP_SUB, OP_MUL, OP_IDIV, OP_REM, OP_AND,   OP_OR,
                               OP_XOR, OP_SHL, OP_SHR, OP_MIN,  OP_MAX, OP_UMULHI};
    static const int fbin[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_REM, OP_MIN, OP_MAX};
    static const int fun[] = {OP_NEG,  OP_ABS,   OP_EXP, OP_EXP2, OP_LOG,   OP_LOG2,
                              OP_SQRT, OP_RSQRT, OP_SIN, OP_COS,  OP_FLOOR, OP_CEIL};
    for (int d = 0; d < 9; d++) {
        int dt = ints[d];
        const void *const in2[2] = {iv, iv2};
        for (int o = 0; o < 13; o++)
            t_ew(__LINE__, ibin[o], 0, dt, NULL, 16, 2, (const int[]){dt, dt}, in2);
        for (int o = 0; o < 3; o++)
            t_ew(__LINE__, (int[]){OP_NEG, OP_NOT, OP_ABS}[o], 0, dt, NULL, 16, 1, &dt, in2);
        for (int pred = 0; pred < 6; pred++)
            t_ew(__LINE__, OP_CMP, pred, DT_I1, NULL, 16, 2, (const int[]){dt, dt}, in2);
    }
    for (int d = 0; d < 4; d++) {
        int dt = floats[d];
        const void *const in2[3] = {fv, fv2, fv};
        for (int o = 0; o < 7; o++)
            t_ew(__LINE__, fbin[o], 0, dt, NULL, 16, 2, (const int[]){dt, dt}, in2);
        for (int o = 0; o < 12; o++) t_ew(__LINE__, fun[o], 0, dt, NULL, 16, 1, &dt, in2);
        t_ew(__LINE__, OP_FMA, 0, dt, NULL, 16, 3, (const int[]){dt, dt, dt}, in2);
    }
    static const int all[] = {DT_I1,  DT_I8,  DT_I16,  DT_I32,  DT_I64,  DT_U8,  DT_U16,
                              DT_U32, DT_U64, DT_FP16, DT_BF16, DT_FP32, DT_FP64};
    for (int a = 0; a < 13; a++)
        for (int b = 0; b < 13; b++) {
            const void *const in1[1] = {dt_is_float(all[a]) ? (const void *)fv : iv};
            t_ew(__LINE__, OP_CVT, 0, all[b], NULL, 16, 1, &all[a], in1);
            if (dt_bits(all[a]) == dt_bits(all[b]))
                t_ew(__LINE__, OP_BITCAST, 0, all[b], NULL, 16, 1, &all[a], in1);
        }
}

/* vector add over a grid: odd size, masks, in strict mode with exact extents */
static void test_vector_add(void) {
    enum { BLOCK = 64, N = 1000 };
    K *k = kb_new("add");
    ValId x = param(k, P(DT_FP32)), y = param(k, P(DT_FP32)), o = param(k, P(DT_FP32));
    ValId n = param(k, S(DT_I32));
    ValId offs = arange(k, 0, BLOCK);
    ValId start = bin(k, OP_MUL, pid(k, 0), ci(k, S(DT_I32), BLOCK));
    offs = bin(k, OP_ADD, splat(k, start, TY(k, offs)), offs);
    ValId mask = cmp(k, CMP_PRED_LT, offs, splat(k, n, TY(k, offs)));
    ValId a = load(k, addptr(k, x, offs), mask, 0), b = load(k, addptr(k, y, offs), mask, 0);
    store(k, addptr(k, o, offs), bin(k, OP_ADD, a, b), mask);
    float *X = malloc(N * 4), *Y = malloc(N * 4), *O = malloc((N + 24) * 4);
    for (int i = 0; i < N; i++) X[i] = (float)i * 0.5f, Y[i] = (float)(N - i);
    for (int i = 0; i < N + 24; i++) O[i] = -1;
    Run R = {0};
    reg(&R, X, N * 4), reg(&R, Y, N * 4), reg(&R, O, N * 4);
    arg_ptr(&R, X), arg_ptr(&R, Y), arg_ptr(&R, O), arg_int(&R, N);
    int rc = run(k, &R, (N + BLOCK - 1) / BLOCK, 1, 1);
    CHECK(rc == 0, "vector add: %s", sb_cstr(&R.err));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += O[i] != X[i] + Y[i];
    for (int i = N; i < N + 24; i++) bad += O[i] != -1;
    CHECK(bad == 0, "vector add: %d wrong elements", bad);
    sb_free(&R.err);
    /* a grid of zero programs does nothing */
    R.nargs = 0, R.nbufs = 0, R.lax = true;
    arg_ptr(&R, X), arg_ptr(&R, Y), arg_ptr(&R, O), arg_int(&R, N);
    CHECK(run(k, &R, 0, 1, 1) == 0, "empty grid");
    sb_free(&R.err);
    free(X), free(Y), free(O);
    kb_free(k);
}

/* program ids over a 3-D grid, and the order programs run in (x fastest) */
static void test_grid(void) {
    K *k = kb_new("grid");
    ValId out = param(k, P(DT_I32)), ctr = param(k, P(DT_I32));
    ValId x = pid(k, 0), y = pid(k, 1), z = pid(k, 2);
    ValId nx = attr1(k, ir_build1(&k->b, OP_NUM_PROGRAMS, NULL, 0, S(DT_I32)), 0);
    ValId ny = attr1(k, ir_build1(&k->b, OP_NUM_PROGRAMS, NULL, 0, S(DT_I32)), 1);
    ValId lin = bin(k, OP_ADD, bin(k, OP_MUL, bin(k, OP_ADD, bin(k, OP_MUL, z, ny), y), nx), x);
    ValId old = attr1(k, op2(k, OP_ATOMIC_RMW, S(DT_I32), ctr, ci(k, S(DT_I32), 1)), RMW_ADD);
    store(k, addptr(k, out, lin), old, 0);
    int32_t O[24], C = 0;
    Run R = {0};
    reg(&R, O, sizeof O), reg(&R, &C, 4);
    arg_ptr(&R, O), arg_ptr(&R, &C);
    CHECK(run(k, &R, 4, 3, 2) == 0, "grid: %s", sb_cstr(&R.err));
    int bad = 0;
    for (int i = 0; i < 24; i++) bad += O[i] != i;
    CHECK(bad == 0 && C == 24, "grid order: %d wrong, counter %d", bad, C);
    sb_free(&R.err);
    kb_free(k);
}

/* reductions of a 4x8 block along each axis, stored as 8 / 4 values */
static void t_reduce2d(int line, int kind, int dt, int rdt, const double *in, int axis,
                       const double *want) {
    K *k = kb_new("red");
    ValId x = param(k, P(dt)), o = param(k, P(rdt));
    ValId r = arange(k, 0, 4), c = arange(k, 0, 8);
    IrType sh = B2(S(DT_I32), 4, 8);
    ValId off = bin(
        k, OP_ADD,
        bcast(k,
              bin(k, OP_MUL, expand(k, r, 1), splat(k, ci(k, S(DT_I32), 8), B2(S(DT_I32), 4, 1))),
              sh),
        bcast(k, expand(k, c, 0), sh));
    ValId v = load(k, addptr(k, x, off), 0, 0);
    ValId red = reduce(k, v, kind, axis, rdt);
    store(k, addptr(k, o, axis == 0 ? c : r), red, 0);
    unsigned char mem[32 * 8], out[8 * 8];
    int64_t ints[32];
    for (int i = 0; i < 32; i++) ints[i] = dt_is_float(dt) ? 0 : (int64_t)in[i];
    for (int i = 0; i < 32; i++) pack(dt, mem, i, dt_is_float(dt) ? (const void *)in : ints);
    Run R = {0};
    arg_ptr(&R, mem), arg_ptr(&R, out);
    reg(&R, mem, 32 * (size_t)dt_bytes(dt)), reg(&R, out, sizeof out);
    int rc = run(k, &R, 1, 1, 1);
    CHECK(rc == 0, "line %d: reduce: %s", line, sb_cstr(&R.err));
    for (int i = 0; i < (axis == 0 ? 8 : 4) && rc == 0; i++) {
        double got;
        if (dt_is_float(rdt)) unpack(rdt, out, i, &got);
        else {
            int64_t g;
            unpack(rdt, out, i, &g);
            got = (double)g;
        }
        CHECK(same_double(got, want[i]),
              "line %d: reduce kind %d axis %d [%d]: got %.17g want %.17g", line, kind, axis, i,
              got, want[i]);
    }
    sb_free(&R.err);
    kb_free(k);
}

static void test_reduce(void) {
    double nan = NAN;
    double m[32];
    for (int i = 0; i < 32; i++) m[i] = (i % 8) + 10 * (i / 8); /* m[r][c] = 10r + c */
    t_reduce2d(__LINE__, RED_SUM, DT_FP32, DT_FP32, m, 0, F64(60, 64, 68, 72, 76, 80, 84, 88));
    t_reduce2d(__LINE__, RED_SUM, DT_FP32, DT_FP32, m, 1, F64(28, 108, 188, 268));
    t_reduce2d(__LINE__, RED_MAX, DT_FP16, DT_FP16, m, 0, F64(30, 31, 32, 33, 34, 35, 36, 37));
    t_reduce2d(__LINE__, RED_MIN, DT_FP64, DT_FP64, m, 1, F64(0, 10, 20, 30));
    t_reduce2d(__LINE__, RED_SUM, DT_I32, DT_I32, m, 1, F64(28, 108, 188, 268));
    t_reduce2d(__LINE__, RED_ARGMAX, DT_FP32, DT_I32, m, 0, F64(3, 3, 3, 3, 3, 3, 3, 3));
    t_reduce2d(__LINE__, RED_ARGMIN, DT_FP32, DT_I32, m, 1, F64(0, 0, 0, 0));
    /* ties: the first index wins; NaN is ignored by max/min/argmax */
    double t[32];
    for (int i = 0; i < 32; i++) t[i] = 1;
    t[2] = t[5] = 7; /* row 0: max at 2 and 5 */
    t[8 + 0] = nan;  /* row 1: NaN first, then max 3 at 4 */
    t[8 + 4] = 3;
    t[16 + 7] = -5, t[16 + 1] = -5; /* row 2: min at 1 and 7 */
    t[24 + 3] = nan;                /* row 3: NaN inside */
    t_reduce2d(__LINE__, RED_ARGMAX, DT_FP32, DT_I32, t, 1, F64(2, 4, 0, 0));
    t_reduce2d(__LINE__, RED_ARGMIN, DT_FP32, DT_I32, t, 1, F64(0, 1, 1, 0));
    t_reduce2d(__LINE__, RED_MAX, DT_FP32, DT_FP32, t, 1, F64(7, 3, 1, 1));
    t_reduce2d(__LINE__, RED_MIN, DT_FP32, DT_FP32, t, 1, F64(1, 1, -5, 1));
    t_reduce2d(__LINE__, RED_ARGMAX, DT_FP32, DT_I32, t, 0, F64(0, 0, 0, 0, 1, 0, 0, 0));
    /* integers: wrap, signedness */
    double w[32];
    for (int i = 0; i < 32; i++) w[i] = i < 8 ? 100 : -1;
    t_reduce2d(__LINE__, RED_SUM, DT_I8, DT_I8, w, 1, F64(32, -8, -8, -8)); /* 800 wraps to 32 */
    t_reduce2d(__LINE__, RED_MAX, DT_I8, DT_I8, w, 0, F64(100, 100, 100, 100, 100, 100, 100, 100));
    t_reduce2d(__LINE__, RED_MAX, DT_U8, DT_U8, w, 0, F64(255, 255, 255, 255, 255, 255, 255, 255));
    t_reduce2d(__LINE__, RED_ARGMIN, DT_U8, DT_I32, w, 0, F64(0, 0, 0, 0, 0, 0, 0, 0));
    t_reduce2d(__LINE__, RED_ARGMIN, DT_I8, DT_I32, w, 0, F64(1, 1, 1, 1, 1, 1, 1, 1));
    /* fp16 sum accumulates in fp32 and rounds once: 2048 + 8 x 1 = 2056 (fp16 would stay 2048) */
    double h[32];
    for (int i = 0; i < 32; i++) h[i] = (i % 8 == 0) ? 2048 : 1;
    t_reduce2d(__LINE__, RED_SUM, DT_FP16, DT_FP16, h, 1, F64(2056, 2056, 2056, 2056));
    /* fp32 sum in index order: 2^24 + 1 + 1 ... stays 2^24 */
    double s[32];
    for (int i = 0; i < 32; i++) s[i] = (i % 8 == 0) ? ldexp(1, 24) : 1;
    t_reduce2d(__LINE__, RED_SUM, DT_FP32, DT_FP32, s, 1,
               F64(ldexp(1, 24), ldexp(1, 24), ldexp(1, 24), ldexp(1, 24)));
}

/* reduce of a 3-D block along its middle axis, and of a 1-D block to a scalar */
static void test_reduce_3d(void) {
    K *k = kb_new("red3");
    ValId o = param(k, P(DT_I32)), o2 = param(k, P(DT_I32));
    ValId a = arange(k, 0, 16);
    IrType t3 = ty_block(S(DT_I32), 3, (int32_t[]){2, 4, 2});
    ValId x = op1(k, OP_RESHAPE, t3, a);        /* x[i][j][l] = 8i + 2j + l */
    ValId r = reduce(k, x, RED_SUM, 1, DT_I32); /* [2, 2]: 32i + 4l + 12 */
    store(k, addptr(k, o, arange(k, 0, 4)), op1(k, OP_RESHAPE, B1(S(DT_I32), 4), r), 0);
    ValId s = reduce(k, a, RED_SUM, 0, DT_I32); /* scalar 120 */
    store(k, o2, s, 0);
    int32_t O[4] = {0}, O2 = 0;
    Run R = {0};
    arg_ptr(&R, O), arg_ptr(&R, &O2);
    reg(&R, O, sizeof O), reg(&R, &O2, 4);
    CHECK(run(k, &R, 1, 1, 1) == 0, "reduce 3d: %s", sb_cstr(&R.err));
    CHECK(O[0] == 12 && O[1] == 16 && O[2] == 44 && O[3] == 48 && O2 == 120,
          "reduce 3d: %d %d %d %d, %d", O[0], O[1], O[2], O[3], O2);
    sb_free(&R.err);
    kb_free(k);
}

/* trans, reshape, broadcast, expand_dims */
static void test_shapes(void) {
    K *k = kb_new("shapes");
    ValId o1 = param(k, P(DT_I32)), o2 = param(k, P(DT_I32)), o3 = param(k, P(DT_I32)),
          o4 = param(k, P(DT_I32));
    ValId a = arange(k, 0, 32);
    ValId m = op1(k, OP_RESHAPE, B2(S(DT_I32), 4, 8), a); /* m[r][c] = 8r + c */
    ValId t = op1(k, OP_TRANS, B2(S(DT_I32), 8, 4), m);   /* t[c][r] */
    k->f->ops[DEF(k, t)].attr[0] = 1, k->f->ops[DEF(k, t)].attr[1] = 0;
    store(k, addptr(k, o1, a), op1(k, OP_RESHAPE, B1(S(DT_I32), 32), t), 0);
    /* 3-D trans with perm (2, 0, 1): [2,4,4] -> [4,2,4] */
    IrType t3 = ty_block(S(DT_I32), 3, (int32_t[]){2, 4, 4});
    ValId x3 = op1(k, OP_RESHAPE, t3, a);
    ValId p3 = op1(k, OP_TRANS, ty_block(S(DT_I32), 3, (int32_t[]){4, 2, 4}), x3);
    k->f->ops[DEF(k, p3)].attr[0] = 2, k->f->ops[DEF(k, p3)].attr[1] = 0,
                     k->f->ops[DEF(k, p3)].attr[2] = 1;
    store(k, addptr(k, o2, a), op1(k, OP_RESHAPE, B1(S(DT_I32), 32), p3), 0);
    /* broadcast a row [1,8] and a column [4,1] to [4,8] and add */
    ValId row = expand(k, arange(k, 0, 8), 0), col = expand(k, arange(k, 100, 104), 1);
    ValId sum =
        bin(k, OP_ADD, bcast(k, row, B2(S(DT_I32), 4, 8)), bcast(k, col, B2(S(DT_I32), 4, 8)));
    store(k, addptr(k, o3, a), op1(k, OP_RESHAPE, B1(S(DT_I32), 32), sum), 0);
    /* broadcast of lower rank ([8] -> [4, 8]) and a scalar splat */
    ValId b2 = bcast(k, arange(k, 0, 8), B2(S(DT_I32), 4, 8));
    ValId sp = splat(k, ci(k, S(DT_I32), 1000), B2(S(DT_I32), 4, 8));
    store(k, addptr(k, o4, a), op1(k, OP_RESHAPE, B1(S(DT_I32), 32), bin(k, OP_ADD, b2, sp)), 0);
    int32_t O1[32], O2[32], O3[32], O4[32];
    Run R = {0};
    arg_ptr(&R, O1), arg_ptr(&R, O2), arg_ptr(&R, O3), arg_ptr(&R, O4);
    reg(&R, O1, sizeof O1), reg(&R, O2, sizeof O2), reg(&R, O3, sizeof O3), reg(&R, O4, sizeof O4);
    CHECK(run(k, &R, 1, 1, 1) == 0, "shapes: %s", sb_cstr(&R.err));
    int bad1 = 0, bad2 = 0, bad3 = 0, bad4 = 0;
    for (int c = 0; c < 8; c++)
        for (int r = 0; r < 4; r++) bad1 += O1[c * 4 + r] != 8 * r + c;
    for (int i = 0; i < 4; i++) /* p3[i][j][l] = x3[j][l][i] = 16j + 4l + i */
        for (int j = 0; j < 2; j++)
            for (int l = 0; l < 4; l++) bad2 += O2[i * 8 + j * 4 + l] != 16 * j + 4 * l + i;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 8; c++)
            bad3 += O3[r * 8 + c] != 100 + r + c, bad4 += O4[r * 8 + c] != 1000 + c;
    CHECK(!bad1 && !bad2 && !bad3 && !bad4, "shapes: trans %d, trans3 %d, broadcast %d, %d", bad1,
          bad2, bad3, bad4);
    sb_free(&R.err);
    kb_free(k);
}

/* Blocks of 5 to 16 dims: a trans by perm (the strided gather of interp_shape.c, its
 * innermost dim contiguous or not) and x - sum(x, axis) broadcast back (reduce,
 * expand_dims, broadcast), against plain C. */
static void t_shapes_rank(int rank, const int32_t *shape, const int *perm, int axis) {
    K *k = kb_new("shapes_rank");
    ValId o1 = param(k, P(DT_I32)), o2 = param(k, P(DT_I32));
    int n = 1, tshape[NR_MAX_RANK];
    for (int d = 0; d < rank; d++) n *= shape[d], tshape[d] = shape[perm[d]];
    IrType t = ty_block(S(DT_I32), rank, shape), tt = ty_block(S(DT_I32), rank, tshape);
    ValId a = arange(k, 0, n), x = op1(k, OP_RESHAPE, t, a);
    ValId tr = op1(k, OP_TRANS, tt, x);
    for (int d = 0; d < rank; d++) k->f->ops[DEF(k, tr)].attr[d] = perm[d];
    store(k, addptr(k, o1, a), op1(k, OP_RESHAPE, B1(S(DT_I32), n), tr), 0);
    ValId back = bcast(k, expand(k, reduce(k, x, RED_SUM, axis, DT_I32), axis), t);
    store(k, addptr(k, o2, a), op1(k, OP_RESHAPE, B1(S(DT_I32), n), bin(k, OP_SUB, x, back)), 0);
    int32_t *O1 = calloc((size_t)n, 4), *O2 = calloc((size_t)n, 4);
    Run R = {0};
    arg_ptr(&R, O1), arg_ptr(&R, O2);
    reg(&R, O1, (size_t)n * 4), reg(&R, O2, (size_t)n * 4);
    CHECK(run(k, &R, 1, 1, 1) == 0, "rank %d shapes: %s", rank, sb_cstr(&R.err));
    int bad1 = 0, bad2 = 0;
    for (int f = 0; f < n; f++) {
        int c[NR_MAX_RANK], src[NR_MAX_RANK], g = f, x0 = 0, stride = 1, sum = 0;
        for (int d = rank - 1; d >= 0; d--) c[d] = g % tshape[d], g /= tshape[d];
        for (int d = 0; d < rank; d++) src[perm[d]] = c[d];
        for (int d = 0; d < rank; d++) x0 = x0 * shape[d] + src[d];
        bad1 += O1[f] != x0; /* x holds its own row-major index */
        for (int d = rank - 1; d > axis; d--) stride *= shape[d];
        int base = f - (f / stride % shape[axis]) * stride; /* f with coordinate 0 on axis */
        for (int i = 0; i < shape[axis]; i++) sum += base + i * stride;
        bad2 += O2[f] != f - sum;
    }
    CHECK(!bad1 && !bad2, "rank %d: trans %d wrong, x - sum(x, %d) %d wrong", rank, bad1, axis,
          bad2);
    free(O1), free(O2);
    sb_free(&R.err);
    kb_free(k);
}

static void test_shapes_high_rank(void) {
    t_shapes_rank(5, (int32_t[]){4, 32, 32, 4, 2}, (int[]){2, 1, 0, 3, 4}, 3);
    t_shapes_rank(5, (int32_t[]){8, 2, 32, 4, 16}, (int[]){4, 0, 1, 3, 2}, 0);
    t_shapes_rank(6, (int32_t[]){2, 4, 2, 8, 4, 4}, (int[]){5, 3, 0, 4, 1, 2}, 5);
    t_shapes_rank(7, (int32_t[]){2, 1, 4, 2, 1, 8, 2}, (int[]){6, 5, 4, 3, 2, 1, 0}, 2);
    t_shapes_rank(8, (int32_t[]){2, 2, 2, 2, 2, 2, 2, 2}, (int[]){1, 0, 3, 2, 5, 4, 7, 6}, 7);
    t_shapes_rank(9, (int32_t[]){2, 1, 2, 2, 4, 1, 2, 1, 4}, (int[]){8, 0, 7, 1, 6, 2, 5, 3, 4}, 4);
    t_shapes_rank(16, (int32_t[]){2, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2},
                  (int[]){15, 13, 14, 11, 12, 9, 10, 7, 8, 5, 6, 3, 4, 1, 2, 0}, 10);
}

/* ---- dot ---- */

static float ref_dot_elem(const float *a, const float *b, float acc, int K_, int N_, int i, int j) {
    float c = acc;
    for (int k = 0; k < K_; k++) {
        float p = a[i * K_ + k] * b[k * N_ + j];
        c = c + p;
    }
    return c;
}

static void t_dot(int dt, int M, int N_, int K_) {
    K *k = kb_new("dot");
    ValId pa = param(k, P(dt)), pb = param(k, P(dt)), pc = param(k, P(DT_FP32));
    IrType sa = B2(S(DT_I32), M, K_), sb = B2(S(DT_I32), K_, N_), sc = B2(S(DT_I32), M, N_);
    /* offsets r * cols + c for a [rows, cols] block */
    ValId offs[3];
    IrType shp[3] = {sa, sb, sc};
    for (int q = 0; q < 3; q++) {
        int rows = shp[q].shape[0], cols = shp[q].shape[1];
        ValId r = expand(k, arange(k, 0, rows), 1), c = expand(k, arange(k, 0, cols), 0);
        r = bin(k, OP_MUL, r, splat(k, ci(k, S(DT_I32), cols), TY(k, r)));
        offs[q] = bin(k, OP_ADD, bcast(k, r, shp[q]), bcast(k, c, shp[q]));
    }
    ValId a = load(k, addptr(k, pa, offs[0]), 0, 0), b = load(k, addptr(k, pb, offs[1]), 0, 0);
    ValId acc = load(k, addptr(k, pc, offs[2]), 0, 0);
    ValId d = op3(k, OP_DOT, TY(k, acc), a, b, acc);
    store(k, addptr(k, pc, offs[2]), d, 0);
    unsigned char *A = malloc((size_t)M * K_ * 4), *B = malloc((size_t)K_ * N_ * 4);
    float *fa = malloc((size_t)M * K_ * 4), *fb = malloc((size_t)K_ * N_ * 4);
    float *C = malloc((size_t)M * N_ * 4), *C0 = malloc((size_t)M * N_ * 4);
    unsigned seed = 12345;
    for (int i = 0; i < M * K_; i++) {
        seed = seed * 1103515245u + 12345u;
        double v = ((int)(seed >> 16 & 0x7fff) - 16384) / 1000.0;
        pack(dt, A + (size_t)i * dt_bytes(dt), 0, &v);
        unpack(dt, A, i, &v);
        fa[i] = (float)v;
    }
    for (int i = 0; i < K_ * N_; i++) {
        seed = seed * 1103515245u + 12345u;
        double v = ((int)(seed >> 16 & 0x7fff) - 16384) / 3000.0;
        pack(dt, B + (size_t)i * dt_bytes(dt), 0, &v);
        unpack(dt, B, i, &v);
        fb[i] = (float)v;
    }
    for (int i = 0; i < M * N_; i++) C[i] = C0[i] = (float)(i % 7) * 0.25f;
    Run R = {0};
    arg_ptr(&R, A), arg_ptr(&R, B), arg_ptr(&R, C);
    reg(&R, A, (size_t)M * K_ * dt_bytes(dt)), reg(&R, B, (size_t)K_ * N_ * dt_bytes(dt));
    reg(&R, C, (size_t)M * N_ * 4);
    CHECK(run(k, &R, 1, 1, 1) == 0, "dot %s: %s", dt_name(dt), sb_cstr(&R.err));
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N_; j++)
            bad += C[i * N_ + j] != ref_dot_elem(fa, fb, C0[i * N_ + j], K_, N_, i, j);
    CHECK(bad == 0, "dot %s %dx%dx%d: %d elements differ from the reference", dt_name(dt), M, N_,
          K_, bad);
    sb_free(&R.err);
    free(A), free(B), free(fa), free(fb), free(C), free(C0);
    kb_free(k);
}

static void test_dot_int8(void) {
    K *k = kb_new("dot8");
    ValId o = param(k, P(DT_I32));
    ValId a = op1(k, OP_RESHAPE, B2(S(DT_I32), 2, 4), arange(k, 0, 8));
    ValId a8 = op1(k, OP_CVT, B2(S(DT_I8), 2, 4),
                   bin(k, OP_MUL, a, splat(k, ci(k, S(DT_I32), 40), TY(k, a))));
    ValId b8 = splat(k, ci(k, S(DT_I8), -100), B2(S(DT_I8), 4, 2));
    ValId acc = splat(k, ci(k, S(DT_I32), 1), B2(S(DT_I32), 2, 2));
    ValId d = op3(k, OP_DOT, TY(k, acc), a8, b8, acc);
    store(k, addptr(k, o, op1(k, OP_RESHAPE, B2(S(DT_I32), 2, 2), arange(k, 0, 4))), d, 0);
    int32_t O[4];
    Run R = {0};
    arg_ptr(&R, O), reg(&R, O, sizeof O);
    CHECK(run(k, &R, 1, 1, 1) == 0, "dot i8: %s", sb_cstr(&R.err));
    /* row 0: (0+40+80+120) * -100 + 1; row 1 wraps in i8: 160->-96, 200->-56, 240->-16, 280->24 */
    CHECK(O[0] == -23999 && O[1] == -23999 && O[2] == (96 + 56 + 16 - 24) * 100 + 1 && O[3] == O[2],
          "dot i8: %d %d %d", O[0], O[1], O[2]);
    sb_free(&R.err);
    kb_free(k);
}

/* A tiled matmul kernel c = a @ b with masks (row-major, fp16 in, fp32 out). */
static K *matmul_kernel(int dt, int BM, int BN, int BK) {
    K *k = kb_new("matmul");
    ValId pa = param(k, P(dt)), pb = param(k, P(dt)), pc = param(k, P(DT_FP32));
    ValId M = param(k, S(DT_I32)), N = param(k, S(DT_I32)), Kd = param(k, S(DT_I32));
    IrType i32 = S(DT_I32);
    ValId rm = bin(k, OP_ADD, splat(k, bin(k, OP_MUL, pid(k, 0), ci(k, i32, BM)), B1(i32, BM)),
                   arange(k, 0, BM));
    ValId rn = bin(k, OP_ADD, splat(k, bin(k, OP_MUL, pid(k, 1), ci(k, i32, BN)), B1(i32, BN)),
                   arange(k, 0, BN));
    ValId rk = arange(k, 0, BK);
    IrType sab = B2(i32, BM, BK), sbb = B2(i32, BK, BN), scc = B2(i32, BM, BN);
    ValId acc0 = splat(k, cf(k, S(DT_FP32), 0), B2(S(DT_FP32), BM, BN));
    RegionId body;
    ValId zero = ci(k, i32, 0), step = ci(k, i32, BK);
    OpId loop = for_begin(k, zero, Kd, step, &acc0, 1, &body);
    {
        ValId k0 = rarg(k, body, 0), acc = rarg(k, body, 1);
        ValId ka = bin(k, OP_ADD, splat(k, k0, B1(i32, BK)), rk);
        ValId rme = expand(k, rm, 1), kae = expand(k, ka, 0), kbe = expand(k, ka, 1),
              rne = expand(k, rn, 0);
        ValId aoff = bin(k, OP_ADD, bcast(k, bin(k, OP_MUL, rme, splat(k, Kd, TY(k, rme))), sab),
                         bcast(k, kae, sab));
        ValId amask = bin(k, OP_AND,
                          bcast(k, cmp(k, CMP_PRED_LT, rme, splat(k, M, TY(k, rme))),
                                ty_with_elem(sab, S(DT_I1))),
                          bcast(k, cmp(k, CMP_PRED_LT, kae, splat(k, Kd, TY(k, kae))),
                                ty_with_elem(sab, S(DT_I1))));
        ValId boff = bin(k, OP_ADD, bcast(k, bin(k, OP_MUL, kbe, splat(k, N, TY(k, kbe))), sbb),
                         bcast(k, rne, sbb));
        ValId bmask = bin(k, OP_AND,
                          bcast(k, cmp(k, CMP_PRED_LT, kbe, splat(k, Kd, TY(k, kbe))),
                                ty_with_elem(sbb, S(DT_I1))),
                          bcast(k, cmp(k, CMP_PRED_LT, rne, splat(k, N, TY(k, rne))),
                                ty_with_elem(sbb, S(DT_I1))));
        ValId a = load(k, addptr(k, pa, aoff), amask,
                       splat(k, cf(k, S(dt), 0), ty_with_elem(sab, S(dt))));
        ValId b = load(k, addptr(k, pb, boff), bmask,
                       splat(k, cf(k, S(dt), 0), ty_with_elem(sbb, S(dt))));
        ValId d = op3(k, OP_DOT, TY(k, acc), a, b, acc);
        pop_yield(k, OP_YIELD, &d, 1);
    }
    ValId acc = ir_result(k->f, loop, 0);
    ValId rme = expand(k, rm, 1), rne = expand(k, rn, 0);
    ValId coff = bin(k, OP_ADD, bcast(k, bin(k, OP_MUL, rme, splat(k, N, TY(k, rme))), scc),
                     bcast(k, rne, scc));
    ValId cmask = bin(
        k, OP_AND,
        bcast(k, cmp(k, CMP_PRED_LT, rme, splat(k, M, TY(k, rme))), ty_with_elem(scc, S(DT_I1))),
        bcast(k, cmp(k, CMP_PRED_LT, rne, splat(k, N, TY(k, rne))), ty_with_elem(scc, S(DT_I1))));
    store(k, addptr(k, pc, coff), acc, cmask);
    return k;
}

static void test_matmul(void) {
    enum { M = 200, N = 136, KK = 72 };
    K *k = matmul_kernel(DT_FP16, 64, 64, 32);
    uint16_t *A = malloc(M * KK * 2), *B = malloc(KK * N * 2);
    float *C = malloc(M * N * 4), *fa = malloc(M * KK * 4), *fb = malloc(KK * N * 4);
    for (int i = 0; i < M * KK; i++)
        A[i] = fp16_from_double((i % 13) / 8.0 - 0.7), fa[i] = fp16_to_float(A[i]);
    for (int i = 0; i < KK * N; i++)
        B[i] = fp16_from_double((i % 11) / 5.0 - 1.1), fb[i] = fp16_to_float(B[i]);
    Run R = {0};
    arg_ptr(&R, A), arg_ptr(&R, B), arg_ptr(&R, C), arg_int(&R, M), arg_int(&R, N), arg_int(&R, KK);
    reg(&R, A, M * KK * 2), reg(&R, B, KK * N * 2), reg(&R, C, M * N * 4);
    CHECK(run(k, &R, (M + 63) / 64, (N + 63) / 64, 1) == 0, "matmul: %s", sb_cstr(&R.err));
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) bad += C[i * N + j] != ref_dot_elem(fa, fb, 0, KK, N, i, j);
    CHECK(bad == 0, "matmul: %d elements differ", bad);
    sb_free(&R.err);
    free(A), free(B), free(C), free(fa), free(fb);
    kb_free(k);
}

/* ---- control flow ---- */

/* sum of iv over range(lb, ub, step) and the trip count, both carried; dt the iv dtype */
static void t_for(int line, int dt, int64_t lb, int64_t ub, int64_t step, int64_t want_sum,
                  int64_t want_n) {
    K *k = kb_new("loop");
    ValId o = param(k, P(DT_I64));
    IrType t = S(dt), i64 = S(DT_I64);
    ValId inits[2] = {ci(k, i64, 0), ci(k, i64, 0)};
    RegionId body;
    OpId loop = for_begin(k, ci(k, t, lb), ci(k, t, ub), ci(k, t, step), inits, 2, &body);
    ValId iv = op1(k, OP_CVT, i64, rarg(k, body, 0));
    ValId ys[2] = {bin(k, OP_ADD, rarg(k, body, 1), iv),
                   bin(k, OP_ADD, rarg(k, body, 2), ci(k, i64, 1))};
    pop_yield(k, OP_YIELD, ys, 2);
    store(k, o, ir_result(k->f, loop, 0), 0);
    store(k, addptr(k, o, ci(k, S(DT_I32), 1)), ir_result(k->f, loop, 1), 0);
    int64_t O[2] = {-1, -1};
    Run R = {0};
    arg_ptr(&R, O), reg(&R, O, sizeof O);
    CHECK(run(k, &R, 1, 1, 1) == 0, "line %d: for: %s", line, sb_cstr(&R.err));
    CHECK(O[0] == want_sum && O[1] == want_n, "line %d: for(%lld, %lld, %lld): sum %lld trips %lld",
          line, (long long)lb, (long long)ub, (long long)step, (long long)O[0], (long long)O[1]);
    sb_free(&R.err);
    kb_free(k);
}

static void test_for(void) {
    t_for(__LINE__, DT_I32, 0, 10, 1, 45, 10);
    t_for(__LINE__, DT_I32, 10, 0, -3, 10 + 7 + 4 + 1, 4);
    t_for(__LINE__, DT_I32, 5, 5, 1, 0, 0);
    t_for(__LINE__, DT_I32, 5, 0, 1, 0, 0);
    t_for(__LINE__, DT_I32, 0, 5, -1, 0, 0);
    t_for(__LINE__, DT_I32, 0, 5, 0, 0, 0);
    t_for(__LINE__, DT_I32, -3, 4, 3, -3 + 0 + 3, 3);
    t_for(__LINE__, DT_I32, INT32_MAX - 5, INT32_MAX, 4, 2 * (int64_t)INT32_MAX - 6, 2);
    t_for(__LINE__, DT_I64, INT64_MAX - 1, INT64_MAX, 1000, INT64_MAX - 1, 1);
    t_for(__LINE__, DT_U32, 0xfffffff0, 0xffffffff, 8, 2 * (int64_t)0xfffffff0 + 8, 2);
    t_for(__LINE__, DT_I8, -128, 127, 100, -128 - 28 + 72, 3);
}

/* nested loops carrying a block, a loop-invariant yield and duplicated yields */
static void test_for_blocks(void) {
    K *k = kb_new("nest");
    ValId o = param(k, P(DT_FP32)), o2 = param(k, P(DT_FP32));
    IrType i32 = S(DT_I32), blk = B1(S(DT_FP32), 8);
    ValId inv = splat(k, cf(k, S(DT_FP32), 0.5), blk);
    ValId inits[3] = {splat(k, cf(k, S(DT_FP32), 0), blk), inv, inv};
    RegionId outer, inner;
    OpId l1 = for_begin(k, ci(k, i32, 0), ci(k, i32, 3), ci(k, i32, 1), inits, 3, &outer);
    ValId in2 = rarg(k, outer, 1);
    OpId l2 = for_begin(k, ci(k, i32, 0), ci(k, i32, 4), ci(k, i32, 1), &in2, 1, &inner);
    ValId row = op1(k, OP_CVT, blk, arange(k, 0, 8));
    ValId nx = bin(k, OP_ADD, rarg(k, inner, 1), row);
    pop_yield(k, OP_YIELD, &nx, 1);
    ValId r2 = ir_result(k->f, l2, 0);
    ValId ys[3] = {r2, inv, r2}; /* invariant value from outside; a duplicate */
    pop_yield(k, OP_YIELD, ys, 3);
    store(k, addptr(k, o, arange(k, 0, 8)), ir_result(k->f, l1, 0), 0);
    ValId both = bin(k, OP_ADD, ir_result(k->f, l1, 1), ir_result(k->f, l1, 2));
    store(k, addptr(k, o2, arange(k, 0, 8)), both, 0);
    float O[8], O2[8];
    Run R = {0};
    arg_ptr(&R, O), arg_ptr(&R, O2), reg(&R, O, sizeof O), reg(&R, O2, sizeof O2);
    CHECK(run(k, &R, 1, 1, 1) == 0, "nested for: %s", sb_cstr(&R.err));
    /* each outer iteration runs the inner loop from carried[0] and yields (that + 4c,
     * inv, that + 4c): so O = 12c and O2 = inv + 12c */
    int bad = 0;
    for (int c = 0; c < 8; c++) bad += O[c] != 12.0f * c, bad += O2[c] != 0.5f + 12.0f * c;
    CHECK(bad == 0, "nested for: O[1]=%g O2[1]=%g", O[1], O2[1]);
    sb_free(&R.err);
    kb_free(k);
}

/* while (x < 100) x = 2x + 1 from 1 (carrying a second value: the count) */
static void test_while(void) {
    K *k = kb_new("while");
    ValId o = param(k, P(DT_I32));
    IrType i32 = S(DT_I32);
    ValId inits[2] = {ci(k, i32, 1), ci(k, i32, 0)};
    IrType tys[2] = {i32, i32};
    OpId w = ir_build(&k->b, OP_WHILE, inits, 2, tys, 2);
    RegionId before = region_with_args(k, w, inits, 2, NULL);
    RegionId after = region_with_args(k, w, inits, 2, NULL);
    push(k, before);
    ValId c = cmp(k, CMP_PRED_LT, rarg(k, before, 0), ci(k, i32, 100));
    pop_yield(k, OP_CONDITION, &c, 1);
    push(k, after);
    ValId x = rarg(k, after, 0);
    ValId ys[2] = {bin(k, OP_ADD, bin(k, OP_MUL, x, ci(k, i32, 2)), ci(k, i32, 1)),
                   bin(k, OP_ADD, rarg(k, after, 1), ci(k, i32, 1))};
    pop_yield(k, OP_YIELD, ys, 2);
    store(k, o, ir_result(k->f, w, 0), 0);
    store(k, addptr(k, o, ci(k, i32, 1)), ir_result(k->f, w, 1), 0);
    /* a while that never runs its body */
    ValId init2 = ci(k, i32, 500);
    OpId w2 = ir_build(&k->b, OP_WHILE, &init2, 1, tys, 1);
    RegionId b2 = region_with_args(k, w2, &init2, 1, NULL),
             a2 = region_with_args(k, w2, &init2, 1, NULL);
    push(k, b2);
    ValId c2 = cmp(k, CMP_PRED_LT, rarg(k, b2, 0), ci(k, i32, 100));
    pop_yield(k, OP_CONDITION, &c2, 1);
    push(k, a2);
    ValId y2 = rarg(k, a2, 0);
    pop_yield(k, OP_YIELD, &y2, 1);
    store(k, addptr(k, o, ci(k, i32, 2)), ir_result(k->f, w2, 0), 0);
    int32_t O[3] = {0};
    Run R = {0};
    arg_ptr(&R, O), reg(&R, O, sizeof O);
    CHECK(run(k, &R, 1, 1, 1) == 0, "while: %s", sb_cstr(&R.err));
    CHECK(O[0] == 127 && O[1] == 6 && O[2] == 500, "while: %d %d %d", O[0], O[1], O[2]);
    sb_free(&R.err);
    kb_free(k);
}

/* if with results (pid even: then, odd: else) and an if without else */
static void test_if(void) {
    K *k = kb_new("if");
    ValId o = param(k, P(DT_I32));
    IrType i32 = S(DT_I32);
    ValId p = pid(k, 0);
    ValId even = cmp(k, CMP_PRED_EQ, bin(k, OP_REM, p, ci(k, i32, 2)), ci(k, i32, 0));
    OpId iff = ir_build(&k->b, OP_IF, &even, 1, &i32, 1);
    RegionId th = ir_op_add_region(k->f, iff), el = ir_op_add_region(k->f, iff);
    push(k, th);
    ValId a = bin(k, OP_MUL, p, ci(k, i32, 10));
    pop_yield(k, OP_YIELD, &a, 1);
    push(k, el);
    ValId b = bin(k, OP_SUB, ci(k, i32, 0), p);
    pop_yield(k, OP_YIELD, &b, 1);
    store(k, addptr(k, o, p), ir_result(k->f, iff, 0), 0);
    ValId big = cmp(k, CMP_PRED_GE, p, ci(k, i32, 3));
    OpId if2 = ir_build(&k->b, OP_IF, &big, 1, NULL, 0);
    RegionId th2 = ir_op_add_region(k->f, if2);
    push(k, th2);
    store(k, addptr(k, o, bin(k, OP_ADD, p, ci(k, i32, 4))), p, 0);
    pop_yield(k, OP_YIELD, NULL, 0);
    int32_t O[8] = {0};
    Run R = {0};
    arg_ptr(&R, O), reg(&R, O, sizeof O);
    CHECK(run(k, &R, 4, 1, 1) == 0, "if: %s", sb_cstr(&R.err));
    CHECK(O[0] == 0 && O[1] == -1 && O[2] == 20 && O[3] == -3 && O[4] == 0 && O[7] == 3 &&
              O[6] == 0,
          "if: %d %d %d %d | %d %d %d %d", O[0], O[1], O[2], O[3], O[4], O[5], O[6], O[7]);
    sb_free(&R.err);
    kb_free(k);
}

/* ---- memory checks ---- */

/* copy in[pid*16 + i] -> out[...] with 16-lane blocks, no mask */
static K *copy_kernel(int pe) {
    K *k = kb_new("oob");
    ValId in = param(k, P(pe)), out = param(k, P(pe));
    ValId offs =
        bin(k, OP_ADD, splat(k, bin(k, OP_MUL, pid(k, 0), ci(k, S(DT_I32), 16)), B1(S(DT_I32), 16)),
            arange(k, 0, 16));
    at(k, 12, 9);
    ValId v = load(k, addptr(k, in, offs), 0, 0);
    at(k, 13, 5);
    store(k, addptr(k, out, offs), v, 0);
    return k;
}

static void test_oob(void) {
    K *k = copy_kernel(DT_FP32);
    float *in = malloc(64 * 4), *out = malloc(80 * 4); /* apart: never adjacent extents */
    for (int i = 0; i < 64; i++) in[i] = (float)i;
    for (int i = 0; i < 80; i++) out[i] = -1;
    /* in registered as 63 floats: program 3 reads one past the end */
    Run R = {0};
    arg_ptr(&R, in), arg_ptr(&R, out), reg(&R, in, 63 * 4), reg(&R, out, 64 * 4);
    int rc = run(k, &R, 4, 1, 1);
    char want[200];
    snprintf(want, sizeof want,
             "out-of-bounds load of 4 bytes at 0x%llx in kernel 'oob' (t.nr:12:9), program (3, 0, "
             "0): 4 bytes past the end of the 252-byte buffer parameter 0 points into (offset 252)",
             (unsigned long long)(uintptr_t)&in[63]);
    CHECK(rc == -1 && !strcmp(sb_cstr(&R.err), want), "oob load message: '%s'", sb_cstr(&R.err));
    int bad = 0;
    for (int i = 0; i < 48; i++) bad += out[i] != (float)i;
    for (int i = 48; i < 80; i++) bad += out[i] != -1;
    CHECK(bad == 0, "oob load: %d wrong elements (programs 0-2 done, 3 wrote nothing)", bad);
    sb_free(&R.err);
    /* a store with one lane past the end writes no lane at all */
    for (int i = 0; i < 80; i++) out[i] = -1;
    R.nbufs = 0;
    reg(&R, in, 64 * 4), reg(&R, out, 63 * 4);
    rc = run(k, &R, 4, 1, 1);
    CHECK(rc == -1 && has(&R.err, "out-of-bounds store of 4 bytes") &&
              has(&R.err, "(t.nr:13:5), program (3, 0, 0)"),
          "oob store message: '%s'", sb_cstr(&R.err));
    bad = 0;
    for (int i = 48; i < 80; i++) bad += out[i] != -1;
    CHECK(bad == 0, "oob store wrote %d elements", bad);
    sb_free(&R.err);
    /* before the start of a buffer */
    R.nargs = 0, R.nbufs = 0;
    arg_ptr(&R, in - 2), arg_ptr(&R, out), reg(&R, in, 64 * 4), reg(&R, out, 80 * 4);
    rc = run(k, &R, 1, 1, 1);
    CHECK(rc == -1 &&
              has(&R.err,
                  "program (0, 0, 0): parameter 0 points into no registered buffer; 8 bytes before "
                  "the start of a 256-byte buffer"),
          "before start: '%s'", sb_cstr(&R.err));
    sb_free(&R.err);
    /* nowhere near any buffer; and no buffers registered at all */
    R.nargs = 0;
    arg_ptr(&R, (void *)(uintptr_t)64), arg_ptr(&R, out);
    rc = run(k, &R, 1, 1, 1);
    CHECK(rc == -1 && has(&R.err, "not inside any registered buffer"), "wild: '%s'",
          sb_cstr(&R.err));
    sb_free(&R.err);
    R.nbufs = 0;
    rc = run(k, &R, 1, 1, 1);
    CHECK(rc == -1 && has(&R.err, "no buffers are registered"), "none: '%s'", sb_cstr(&R.err));
    sb_free(&R.err);
    /* non-strict: no checks (in bounds here) */
    R.nargs = 0, R.lax = true;
    arg_ptr(&R, in), arg_ptr(&R, out);
    CHECK(run(k, &R, 4, 1, 1) == 0 && out[63] == 63, "lax: %s", sb_cstr(&R.err));
    sb_free(&R.err);
    free(in), free(out);
    kb_free(k);
}

/* Where a pointer comes from decides which buffer it may touch: a run off the end of x
 * that lands inside y is still out of bounds for x, through addptr chains, selects
 * between two offsets of one parameter, and pointers carried by a loop; a select between
 * two parameters may touch either; a parameter pointing into no registered buffer may
 * touch nothing (but need not be touched: an unused NULL is fine). */
static void test_provenance(void) {
    K *k = kb_new("prov");
    ValId x = param(k, P(DT_FP32)), y = param(k, P(DT_FP32)), d = param(k, S(DT_I64)),
          which = param(k, S(DT_I1));
    at(k, 5, 3);
    ValId offs = arange(k, 0, 4);
    ValId far =
        bin(k, OP_ADD, op1(k, OP_CVT, B1(S(DT_I64), 4), offs), splat(k, d, B1(S(DT_I64), 4)));
    IrType cond_ty = B1(S(DT_I1), 4);
    ValId px = op3(k, OP_SELECT, B1(P(DT_FP32), 4), splat(k, which, cond_ty), addptr(k, x, far),
                   addptr(k, x, offs));
    /* a loop carrying the pointer block, advancing it by 0 (d = 0) or d elements */
    RegionId body;
    ValId init = px;
    IrType i32 = S(DT_I32);
    OpId loop = for_begin(k, ci(k, i32, 0), ci(k, i32, 2), ci(k, i32, 1), &init, 1, &body);
    ValId next = rarg(k, body, 1);
    pop_yield(k, OP_YIELD, &next, 1);
    at(k, 9, 5);
    store(k, ir_result(k->f, loop, 0), splat(k, cf(k, S(DT_FP32), 7), B1(S(DT_FP32), 4)), 0);
    /* either parameter: a select between x and y */
    ValId pxy = op3(k, OP_SELECT, B1(P(DT_FP32), 4), splat(k, which, cond_ty), addptr(k, y, offs),
                    addptr(k, x, offs));
    at(k, 11, 5);
    store(k, pxy, splat(k, cf(k, S(DT_FP32), 8), B1(S(DT_FP32), 4)), 0);
    float *X = malloc(8 * 4), *Y = malloc(8 * 4);
    Run R = {0};
    int64_t into_y =
        ((int64_t)(intptr_t)Y - (int64_t)(intptr_t)X) / 4; /* x + into_y is Y (both 4-aligned) */
    arg_ptr(&R, X), arg_ptr(&R, Y), arg_int(&R, 0), arg_int(&R, 0), reg(&R, X, 32), reg(&R, Y, 32);
    CHECK(run(k, &R, 1, 1, 1) == 0 && X[0] == 8 && X[3] == 8, "provenance, in bounds: %s",
          sb_cstr(&R.err));
    sb_free(&R.err);
    R.args[2].i = into_y, R.args[3].u = 1; /* x's pointers now land in y */
    for (int i = 0; i < 8; i++) Y[i] = -1;
    CHECK(run(k, &R, 1, 1, 1) == -1 && has(&R.err, "out-of-bounds store of 4 bytes") &&
              has(&R.err, "(t.nr:9:5)") &&
              has(&R.err, "of the 32-byte buffer parameter 0 points into"),
          "x's pointer into y: '%s'", sb_cstr(&R.err));
    CHECK(Y[0] == -1 && Y[3] == -1, "the out-of-bounds store wrote y");
    sb_free(&R.err);
    /* an if choosing between x and y: either may be written through its result */
    K *k3 = kb_new("provif");
    ValId x3 = param(k3, P(DT_FP32)), y3 = param(k3, P(DT_FP32)), w3 = param(k3, S(DT_I1));
    IrType pt = P(DT_FP32);
    OpId iff = ir_build(&k3->b, OP_IF, &w3, 1, &pt, 1);
    RegionId th = ir_op_add_region(k3->f, iff), el = ir_op_add_region(k3->f, iff);
    push(k3, th);
    pop_yield(k3, OP_YIELD, &x3, 1);
    push(k3, el);
    pop_yield(k3, OP_YIELD, &y3, 1);
    store(k3, addptr(k3, ir_result(k3->f, iff, 0), arange(k3, 0, 4)),
          splat(k3, cf(k3, S(DT_FP32), 5), B1(S(DT_FP32), 4)), 0);
    Run R3 = {0};
    arg_ptr(&R3, X), arg_ptr(&R3, Y), arg_int(&R3, 0), reg(&R3, X, 32), reg(&R3, Y, 32);
    CHECK(run(k3, &R3, 1, 1, 1) == 0 && Y[0] == 5, "provenance through if, else branch: %s",
          sb_cstr(&R3.err));
    sb_free(&R3.err);
    R3.args[2].u = 1;
    CHECK(run(k3, &R3, 1, 1, 1) == 0 && X[0] == 5, "provenance through if, then branch: %s",
          sb_cstr(&R3.err));
    sb_free(&R3.err);
    kb_free(k3);
    /* an unused parameter may be NULL; a used one may not */
    K *k2 = kb_new("nullp");
    ValId a = param(k2, P(DT_FP32));
    (void)param(k2, P(DT_FP32));
    at(k2, 3, 5);
    store(k2, addptr(k2, a, arange(k2, 0, 4)), splat(k2, cf(k2, S(DT_FP32), 1), B1(S(DT_FP32), 4)),
          0);
    Run R2 = {0};
    arg_ptr(&R2, X), arg_ptr(&R2, NULL), reg(&R2, X, 32), reg(&R2, Y, 32);
    CHECK(run(k2, &R2, 1, 1, 1) == 0, "an unused NULL parameter: %s", sb_cstr(&R2.err));
    sb_free(&R2.err);
    R2.args[0].u = 0;
    CHECK(run(k2, &R2, 1, 1, 1) == -1 &&
              has(&R2.err, "parameter 0 points into no registered buffer; a null pointer"),
          "a NULL parameter used: '%s'", sb_cstr(&R2.err));
    sb_free(&R2.err);
    free(X), free(Y);
    kb_free(k), kb_free(k2);
}

static void test_misaligned(void) {
    K *k = copy_kernel(DT_I32);
    int32_t buf[40] = {0}, out[16];
    Run R = {0};
    arg_ptr(&R, (char *)buf + 2), arg_ptr(&R, out), reg(&R, buf, sizeof buf),
        reg(&R, out, sizeof out);
    int rc = run(k, &R, 1, 1, 1);
    CHECK(rc == -1 && has(&R.err, "misaligned load of 4 bytes at 0x") &&
              has(&R.err, "not a multiple of 4"),
          "misaligned: '%s'", sb_cstr(&R.err));
    sb_free(&R.err);
    kb_free(k);
}

/* masked-off lanes point at address 0 and must not be touched, in strict mode */
static void test_masked_null(void) {
    K *k = kb_new("masked");
    ValId x = param(k, P(DT_FP32)), o = param(k, P(DT_FP32)), cnt = param(k, P(DT_I32));
    ValId offs = arange(k, 0, 8);
    ValId mask = cmp(k, CMP_PRED_LT, offs, splat(k, ci(k, S(DT_I32), 5), TY(k, offs)));
    ValId nullp = splat(k, ci(k, P(DT_FP32), 0), B1(P(DT_FP32), 8));
    ValId px = op3(k, OP_SELECT, TY(k, nullp), mask, addptr(k, x, offs), nullp);
    ValId po = op3(k, OP_SELECT, TY(k, nullp), mask, addptr(k, o, offs), nullp);
    ValId v = load(k, px, mask, splat(k, cf(k, S(DT_FP32), -7), B1(S(DT_FP32), 8)));
    ValId w = load(k, px, mask, 0);
    store(k, po, bin(k, OP_ADD, v, w), mask);
    ValId nullc = splat(k, ci(k, P(DT_I32), 0), B1(P(DT_I32), 8));
    ValId pc = op3(k, OP_SELECT, TY(k, nullc), mask, splat(k, cnt, B1(P(DT_I32), 8)), nullc);
    ValId old =
        attr1(k,
              ir_build1(&k->b, OP_ATOMIC_RMW,
                        (ValId[]){pc, splat(k, ci(k, S(DT_I32), 1), B1(S(DT_I32), 8)), mask}, 3,
                        B1(S(DT_I32), 8)),
              RMW_ADD);
    store(k, addptr(k, o, bin(k, OP_ADD, offs, splat(k, ci(k, S(DT_I32), 8), TY(k, offs)))),
          bin(k, OP_ADD, op1(k, OP_CVT, B1(S(DT_FP32), 8), old), v), 0);
    float X[5] = {1, 2, 3, 4, 5}, O[16];
    int32_t C = 10;
    Run R = {0};
    arg_ptr(&R, X), arg_ptr(&R, O), arg_ptr(&R, &C);
    reg(&R, X, sizeof X), reg(&R, O, sizeof O), reg(&R, &C, 4);
    CHECK(run(k, &R, 1, 1, 1) == 0, "masked null: %s", sb_cstr(&R.err));
    CHECK(O[0] == 2 && O[4] == 10 && C == 15, "masked null: %g %g %d", O[0], O[4], C);
    /* other (-7) in masked lanes of v, 0 in w; atomics give 0 on masked lanes */
    CHECK(O[8] == 11 && O[12] == 19 && O[13] == -7 && O[15] == -7, "masked other: %g %g %g %g",
          O[8], O[12], O[13], O[15]);
    sb_free(&R.err);
    R.lax = true; /* and in non-strict mode */
    CHECK(run(k, &R, 1, 1, 1) == 0 && C == 20, "masked null, lax: %s", sb_cstr(&R.err));
    sb_free(&R.err);
    kb_free(k);
}

/* i1 in memory is one byte: stores write 0/1, loads read byte != 0 */
static void test_i1_memory(void) {
    K *k = kb_new("bools");
    ValId in = param(k, P(DT_I1)), out = param(k, P(DT_I1)), o32 = param(k, P(DT_I32));
    ValId offs = arange(k, 0, 4);
    ValId b = load(k, addptr(k, in, offs), 0, 0);
    store(k, addptr(k, out, offs), op1(k, OP_NOT, TY(k, b), b), 0);
    store(k, addptr(k, o32, offs), op1(k, OP_CVT, B1(S(DT_I32), 4), b), 0);
    uint8_t I[4] = {0, 1, 2, 255}, O[4] = {9, 9, 9, 9};
    int32_t O32[4];
    Run R = {0};
    arg_ptr(&R, I), arg_ptr(&R, O), arg_ptr(&R, O32), reg(&R, I, 4), reg(&R, O, 4),
        reg(&R, O32, 16);
    CHECK(run(k, &R, 1, 1, 1) == 0, "i1 memory: %s", sb_cstr(&R.err));
    CHECK(O[0] == 1 && O[1] == 0 && O[2] == 0 && O[3] == 0 && O32[2] == 1 && O32[3] == 1,
          "i1 memory: %d %d %d %d / %d", O[0], O[1], O[2], O[3], O32[3]);
    sb_free(&R.err);
    kb_free(k);
}

/* ---- atomics ---- */

static void test_atomics(void) {
    K *k = kb_new("atom");
    ValId ctr = param(k, P(DT_I32)), olds = param(k, P(DT_I32)), fsum = param(k, P(DT_FP32)),
          misc = param(k, P(DT_I32)), hsum = param(k, P(DT_FP16)), cas = param(k, P(DT_I32)),
          umax = param(k, P(DT_U32));
    IrType i32 = S(DT_I32), b64 = B1(i32, 64);
    ValId offs = arange(k, 0, 64);
    ValId ones = splat(k, ci(k, i32, 1), b64);
    /* 64 lanes x 4 programs add 1 to one counter: the old values are 0..255 in order */
    ValId old =
        attr1(k, op2(k, OP_ATOMIC_RMW, b64, splat(k, ctr, B1(P(DT_I32), 64)), ones), RMW_ADD);
    ValId base = splat(k, bin(k, OP_MUL, pid(k, 0), ci(k, i32, 64)), b64);
    store(k, addptr(k, olds, bin(k, OP_ADD, base, offs)), old, 0);
    /* float add of 0.5 per lane */
    attr1(k,
          op2(k, OP_ATOMIC_RMW, B1(S(DT_FP32), 64), splat(k, fsum, B1(P(DT_FP32), 64)),
              splat(k, cf(k, S(DT_FP32), 0.5), B1(S(DT_FP32), 64))),
          RMW_ADD);
    /* misc[0] max of lane ids - 30, misc[1] min, misc[2] xchg (last lane wins), misc[3] or of bits,
       misc[4] and, misc[5] xor */
    ValId v = bin(k, OP_SUB, offs, splat(k, ci(k, i32, 30), b64));
    int kinds[6] = {RMW_MAX, RMW_MIN, RMW_XCHG, RMW_OR, RMW_AND, RMW_XOR};
    for (int q = 0; q < 6; q++) {
        ValId p = splat(k, addptr(k, misc, ci(k, i32, q)), B1(P(DT_I32), 64));
        ValId val =
            q >= 3 ? bin(k, OP_SHL, ones, bin(k, OP_REM, offs, splat(k, ci(k, i32, 31), b64))) : v;
        if (q == 4) val = op1(k, OP_NOT, b64, val);
        attr1(k, op2(k, OP_ATOMIC_RMW, b64, p, val), kinds[q]);
    }
    /* fp16 add: 2048 + 1 + 1 stays 2048 in fp16 (rounded after each add) */
    attr1(k, op2(k, OP_ATOMIC_RMW, S(DT_FP16), hsum, cf(k, S(DT_FP16), 1)), RMW_ADD);
    /* cas: each lane tries cas(p, lane, lane + 1): lanes succeed in order 0, 1, 2, ... */
    ValId cp = splat(k, cas, B1(P(DT_I32), 64));
    op3(k, OP_ATOMIC_CAS, b64, cp, offs, bin(k, OP_ADD, offs, ones));
    /* unsigned max: 0xffffffff beats 5 */
    attr1(k, op2(k, OP_ATOMIC_RMW, S(DT_U32), umax, ci(k, S(DT_U32), 0xffffffff)), RMW_MAX);
    int32_t C = 0, OLD[256], MISC[6] = {-1000, 1000, 0, 0, -1, 0}, CAS = 0;
    float F = 0;
    uint16_t H = fp16_from_double(2048);
    uint32_t U = 5;
    Run R = {0};
    arg_ptr(&R, &C), arg_ptr(&R, OLD), arg_ptr(&R, &F), arg_ptr(&R, MISC), arg_ptr(&R, &H),
        arg_ptr(&R, &CAS), arg_ptr(&R, &U);
    reg(&R, &C, 4), reg(&R, OLD, sizeof OLD), reg(&R, &F, 4), reg(&R, MISC, sizeof MISC),
        reg(&R, &H, 2), reg(&R, &CAS, 4), reg(&R, &U, 4);
    CHECK(run(k, &R, 4, 1, 1) == 0, "atomics: %s", sb_cstr(&R.err));
    int bad = 0;
    for (int i = 0; i < 256; i++) bad += OLD[i] != i;
    CHECK(C == 256 && bad == 0, "atomic add: %d, %d wrong olds", C, bad);
    CHECK(F == 128.0f, "atomic fadd: %g", F);
    unsigned all = 0;
    for (int i = 0; i < 64; i++) all |= 1u << (i % 31);
    CHECK(MISC[0] == 33 && MISC[1] == -30 && MISC[2] == 33 && (unsigned)MISC[3] == all &&
              MISC[4] == (int32_t)~all && MISC[5] == 0,
          "atomic misc: %d %d %d %x %x %x", MISC[0], MISC[1], MISC[2], MISC[3], MISC[4], MISC[5]);
    CHECK(fp16_to_double(H) == 2048, "atomic fp16 add: %g", fp16_to_double(H));
    CHECK(CAS == 64, "atomic cas chain: %d", CAS); /* program 0 takes it to 64; others fail */
    CHECK(U == 0xffffffff, "atomic umax: %x", U);
    sb_free(&R.err);
    kb_free(k);
}

/* ---- assert, print ---- */

static void test_assert(void) {
    K *k = kb_new("a");
    ValId x = param(k, P(DT_I32));
    ValId offs = arange(k, 0, 4);
    ValId v =
        load(k,
             addptr(k, x,
                    bin(k, OP_ADD, offs,
                        splat(k, bin(k, OP_MUL, pid(k, 0), ci(k, S(DT_I32), 4)), TY(k, offs)))),
             0, 0);
    at(k, 7, 3);
    OpId a = ir_build(&k->b, OP_ASSERT,
                      (ValId[]){cmp(k, CMP_PRED_GT, v, splat(k, ci(k, S(DT_I32), 0), TY(k, v)))}, 1,
                      NULL, 0);
    k->f->ops[a].sattr = "x must be positive";
    int32_t X[16];
    for (int i = 0; i < 16; i++) X[i] = i == 10 ? 0 : i + 1;
    Run R = {0};
    arg_ptr(&R, X), reg(&R, X, sizeof X);
    int rc = run(k, &R, 4, 1, 1);
    CHECK(rc == -1 && !strcmp(sb_cstr(&R.err), "device_assert failed in kernel 'a' at t.nr:7:3, "
                                               "program (2, 0, 0): x must be positive"),
          "assert: '%s'", sb_cstr(&R.err));
    sb_free(&R.err);
    X[10] = 5;
    CHECK(run(k, &R, 4, 1, 1) == 0, "assert passes: %s", sb_cstr(&R.err));
    sb_free(&R.err);
    kb_free(k);
}

static void test_print(void) {
    K *k = kb_new("p");
    ValId x = param(k, S(DT_I32)), f = param(k, S(DT_FP32));
    OpId p1 = ir_build(&k->b, OP_PRINT, (ValId[]){x, f}, 2, NULL, 0);
    k->f->ops[p1].sattr = "x:";
    ValId blk = op1(k, OP_RESHAPE, B2(S(DT_I32), 2, 2), arange(k, 0, 4));
    OpId p2 = ir_build(&k->b, OP_PRINT, &blk, 1, NULL, 0);
    k->f->ops[p2].sattr = "b ";
    OpId p3 =
        ir_build(&k->b, OP_PRINT, (ValId[]){ci(k, S(DT_I8), -1), cf(k, S(DT_FP16), 1)}, 2, NULL, 0);
    k->f->ops[p3].attr[0] = 1;
    FILE *tf = tmpfile();
    Run R = {0};
    R.print_out = tf;
    arg_int(&R, -3), arg_f(&R, 0.1);
    CHECK(run(k, &R, 2, 1, 1) == 0, "print: %s", sb_cstr(&R.err));
    char text[1024] = {0};
    rewind(tf);
    size_t n = fread(text, 1, sizeof text - 1, tf);
    text[n] = 0;
    fclose(tf);
    const char *want = "pid (0, 0, 0) x: -3 0.1\n"
                       "pid (0, 0, 0) idx (0, 0) b 0\npid (0, 0, 0) idx (0, 1) b 1\n"
                       "pid (0, 0, 0) idx (1, 0) b 2\npid (0, 0, 0) idx (1, 1) b 3\n"
                       "pid (0, 0, 0) 0xff 0x3c00\n"
                       "pid (1, 0, 0) x: -3 0.1\n";
    CHECK(!strncmp(text, want, strlen(want)), "print output:\n%s", text);
    sb_free(&R.err);
    kb_free(k);
}

/* ---- errors on IR the interpreter cannot run ---- */

static void test_bad_ir(void) {
    K *k = kb_new("c");
    at(k, 3, 4);
    OpId call = ir_build(&k->b, OP_CALL, NULL, 0, NULL, 0);
    k->f->ops[call].sattr = "helper";
    Run R = {0};
    CHECK(run(k, &R, 1, 1, 1) == -1 && has(&R.err, "call to '@helper' must be inlined") &&
              has(&R.err, "t.nr:3:4"),
          "call: '%s'", sb_cstr(&R.err));
    sb_free(&R.err);
    kb_free(k);
    /* a value used before its definition, and one from another scope */
    k = kb_new("u");
    ValId a = ci(k, S(DT_I32), 1);
    ValId b = bin(k, OP_ADD, a, a);
    k->f->ops[DEF(k, b)].operands[1] = b;
    CHECK(run(k, &R, 1, 1, 1) == -1 && has(&R.err, "before its definition"), "use before def: '%s'",
          sb_cstr(&R.err));
    sb_free(&R.err);
    kb_free(k);
    k = kb_new("s");
    RegionId body;
    ValId z = ci(k, S(DT_I32), 0);
    for_begin(k, z, z, z, NULL, 0, &body);
    ValId inner = ci(k, S(DT_I32), 5);
    pop_yield(k, OP_YIELD, NULL, 0);
    bin(k, OP_ADD, inner, z);
    CHECK(run(k, &R, 1, 1, 1) == -1 && has(&R.err, "outside its scope"), "scope: '%s'",
          sb_cstr(&R.err));
    sb_free(&R.err);
    kb_free(k);
    /* shape mismatch in an elementwise op */
    k = kb_new("m");
    op2(k, OP_ADD, B1(S(DT_I32), 8), arange(k, 0, 8), arange(k, 0, 4));
    CHECK(run(k, &R, 1, 1, 1) == -1 && has(&R.err, "malformed IR"), "shape: '%s'", sb_cstr(&R.err));
    sb_free(&R.err);
    kb_free(k);
    /* a yield with the wrong count */
    k = kb_new("y");
    ValId i0 = ci(k, S(DT_I32), 0);
    for_begin(k, i0, i0, i0, &i0, 1, &body);
    pop_yield(k, OP_YIELD, NULL, 0);
    CHECK(run(k, &R, 1, 1, 1) == -1 && has(&R.err, "yield of 0 values where 1 are expected"),
          "yield: '%s'", sb_cstr(&R.err));
    sb_free(&R.err);
    kb_free(k);
    /* float-only op on ints */
    k = kb_new("e");
    op1(k, OP_EXP, S(DT_I32), ci(k, S(DT_I32), 1));
    CHECK(run(k, &R, 1, 1, 1) == -1 && has(&R.err, "needs a float dtype"), "exp int: '%s'",
          sb_cstr(&R.err));
    sb_free(&R.err);
    kb_free(k);
}

/* ---- many programs, long loops: memory stays bounded, and threads ---- */

static void test_big_grid(void) {
    K *k = kb_new("big");
    ValId o = param(k, P(DT_I64));
    RegionId body;
    ValId init = splat(k, ci(k, S(DT_I64), 0), B1(S(DT_I64), 256));
    OpId l = for_begin(k, ci(k, S(DT_I32), 0), ci(k, S(DT_I32), 100), ci(k, S(DT_I32), 1), &init, 1,
                       &body);
    ValId nx =
        bin(k, OP_ADD, rarg(k, body, 1), op1(k, OP_CVT, B1(S(DT_I64), 256), arange(k, 0, 256)));
    pop_yield(k, OP_YIELD, &nx, 1);
    ValId s = reduce(k, ir_result(k->f, l, 0), RED_SUM, 0, DT_I64);
    attr1(k, op2(k, OP_ATOMIC_RMW, S(DT_I64), o, s), RMW_ADD);
    int64_t O = 0;
    Run R = {0};
    arg_ptr(&R, &O), reg(&R, &O, 8);
    CHECK(run(k, &R, 20, 10, 2) == 0, "big grid: %s", sb_cstr(&R.err));
    CHECK(O == (int64_t)400 * 100 * (255 * 256 / 2), "big grid: %lld", (long long)O);
    sb_free(&R.err);
    kb_free(k);
}

static void *thread_main(void *arg) {
    int *ok = arg;
    K *k = matmul_kernel(DT_BF16, 32, 32, 16);
    enum { M = 48, N = 40, KK = 24 };
    uint16_t A[M * KK], B[KK * N];
    float C[M * N];
    for (int i = 0; i < M * KK; i++) A[i] = bf16_from_double(i % 5);
    for (int i = 0; i < KK * N; i++) B[i] = bf16_from_double(i % 3);
    Run R = {0};
    arg_ptr(&R, A), arg_ptr(&R, B), arg_ptr(&R, C), arg_int(&R, M), arg_int(&R, N), arg_int(&R, KK);
    reg(&R, A, sizeof A), reg(&R, B, sizeof B), reg(&R, C, sizeof C);
    *ok = 1;
    for (int rep = 0; rep < 20 && *ok; rep++) {
        *ok = run(k, &R, 2, 2, 1) == 0;
        for (int i = 0; i < M && *ok; i++)
            for (int j = 0; j < N; j++) {
                float want = 0;
                for (int q = 0; q < KK; q++)
                    want += (float)((i * KK + q) % 5) * (float)((q * N + j) % 3);
                if (C[i * N + j] != want) *ok = 0;
            }
        sb_free(&R.err);
    }
    kb_free(k);
    return NULL;
}

static void test_threads(void) {
    pthread_t t[2];
    int ok[2] = {0, 0};
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, thread_main, &ok[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK(ok[0] && ok[1], "two launches at once: %d %d", ok[0], ok[1]);
}

int main(void) {
    test_float16();
    test_int_arith();
    test_float_arith();
    test_cmp_select();
    test_cvt_bitcast();
    test_sweep();
    test_vector_add();
    test_grid();
    test_reduce();
    test_reduce_3d();
    test_shapes();
    test_shapes_high_rank();
    t_dot(DT_FP16, 32, 16, 64);
    t_dot(DT_BF16, 16, 32, 8);
    t_dot(DT_FP32, 8, 8, 128);
    test_dot_int8();
    test_matmul();
    test_for();
    test_for_blocks();
    test_while();
    test_if();
    test_oob();
    test_misaligned();
    test_provenance();
    test_masked_null();
    test_i1_memory();
    test_atomics();
    test_assert();
    test_print();
    test_bad_ir();
    test_big_grid();
    test_threads();
    printf("test_interp: %d passed, %d failed\n", npass, nfail);
    return nfail > 0;
}
