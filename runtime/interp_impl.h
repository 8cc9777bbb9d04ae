/* interp_impl.h - private to the interpreter's files (interp*.c): the launch context,
 * the value store and the element-representation helpers.
 *
 * Representation: every value of the current program instance owns one buffer of
 * numel 8-byte elements. Integers, i1 and pointers are uint64_t normalised to their
 * dtype (wrapped to the width, then sign-extended for iN, zero-extended for uN, i1 and
 * ptr); floats are doubles already rounded to their dtype (fp32 values are exact
 * floats, fp16/bf16 values exact halves, fp8 values what fp8_to_double gives: a NaN
 * byte lives on in the payload, so loads, stores and bitcasts move bytes unchanged). So
 * every op reads exact dtype values and only has to round or normalise what it writes.
 * Buffers come from a pool of power-of-two size classes; a precomputed liveness plan
 * returns each value's buffer right after its last use, so memory stays bounded by the
 * live set however many programs or loop iterations run. */
#ifndef NEREID_INTERP_IMPL_H
#define NEREID_INTERP_IMPL_H

#include "compiler/support/float16.h"
#include "compiler/support/fp8.h"
#include "interp.h"

#include <math.h>
#include <string.h>

/* Free buffers by size class (class k holds 2^k elements); NR_MAX_NUMEL is 2^20. */
enum { POOL_CLASSES = 24 };
typedef struct Pool {
    void *free[POOL_CLASSES];
} Pool;

typedef struct Ctx {
    const IrFunc *f;
    const InterpOptions *opts;
    StrBuf *err; /* may be NULL: messages are then dropped */
    bool failed;
    unsigned grid[3], pid[3];
    void **slot; /* per ValId: its buffer while live in the current program, else NULL */
    Pool pool;
    /* the plan (interp_plan.c) */
    RegionId *op_region;   /* per op: the region whose list holds it (0: unreachable) */
    OpId *region_parent;   /* per region: the op owning it (0: the body) */
    uint32_t *rel_start;   /* per op: values released after it are */
    ValId *rel;            /*   rel[rel_start[op] .. rel_start[op + 1]) */
    uint32_t *entry_start; /* per region: arguments never used, released on entry, are */
    ValId *entry_rel;      /*   entry_rel[entry_start[r] .. entry_start[r + 1]) */
    OpId *release_at;      /* per value: the op after which it is released (0: on entry) */
    uint32_t *pend_start;  /* per op: its hand-over buffers (for/if/while) are */
    void **pend;           /*   pend[pend_start[op] ..) */
    uint32_t npend;
    /* memory checking (interp_mem.c) */
    InterpBuffer *bufs; /* the registered buffers sorted by base */
    int nbufs;
    int last_buf;   /* the buffer the previous check hit */
    int32_t *root;  /* per pointer value: the parameter it is derived from (index + 1),
                       ROOT_MIXED, or 0 for none */
    int *param_buf; /* per parameter: the buffer its pointer is in, -1 none */
} Ctx;

enum { ROOT_MIXED = -1 }; /* a pointer that may come from several parameters, or elsewhere */

/* ---- interp.c: pool, values, messages ---- */
void *interp_pool_get(Ctx *c, int64_t numel);            /* NULL (message set) when out of memory */
void interp_pool_put(Ctx *c, void *buf);                 /* NULL is ignored */
void *interp_val_in(Ctx *c, const IrOp *op, uint32_t i); /* operand i's buffer, or NULL */
void *interp_val_out(Ctx *c, const IrOp *op, uint32_t i); /* a fresh buffer for result i */
/* "<what> in kernel 'k' (file:line:col), program (x, y, z): <detail>"; returns -1 */
int interp_fail(Ctx *c, const IrOp *op, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Appends " in kernel 'k' (file:line:col), program (x, y, z)" to the message. */
void interp_where(Ctx *c, const IrOp *op, bool at);
void interp_msg(Ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline IrType val_ty(const Ctx *c, ValId v) { return c->f->vals[v].ty; }
static inline IrType opnd_ty(const Ctx *c, const IrOp *op, uint32_t i) {
    return c->f->vals[op->operands[i]].ty;
}
static inline IrType res_ty(const Ctx *c, const IrOp *op, uint32_t i) {
    return c->f->vals[op->results[i]].ty;
}

/* ---- regions (interp.c), for the ops that run one (interp_combine.c) ---- */
/* Runs region r; its yield's buffers go to outs (the caller's to put back). */
int interp_exec_region(Ctx *c, RegionId r, void **outs);
/* Hands the buffers to the values (region arguments), which own them from then on. */
void interp_bind(Ctx *c, const ValId *vals, void **bufs, uint32_t n);

/* ---- the op handlers (one file per concept) ---- */
int interp_plan(Ctx *c); /* interp_plan.c: structure checks and liveness */
void interp_plan_free(Ctx *c);
int interp_math(Ctx *c, const IrOp *op);  /* interp_math.c: elementwise, cmp, cvt ... */
int interp_shape(Ctx *c, const IrOp *op); /* interp_shape.c: const, arange, views, reduce */
int interp_dot(Ctx *c, const IrOp *op);   /* interp_dot.c */
int interp_mem(Ctx *c, const IrOp *op);   /* interp_mem.c: load, store, atomics */
int interp_mem_init(Ctx *c, const InterpScalar *args);
void interp_mem_free(Ctx *c);
int interp_debug(Ctx *c, const IrOp *op);   /* interp_debug.c: assert, print */
int interp_combine(Ctx *c, const IrOp *op); /* interp_combine.c: scan, reduce_fn */
int interp_perm(Ctx *c, const IrOp *op);    /* interp_perm.c: flip, sort, gather, histogram */

/* ---- element helpers ---- */

/* Normalising an integer: wrap to the width, then sign-extend (sign = the top bit for
 * signed dtypes, 0 otherwise): ((x & mask) ^ sign) - sign, all in uint64_t. */
typedef struct IntFmt {
    uint64_t mask, sign;
    int bits;
    bool is_signed;
} IntFmt;

static inline IntFmt int_fmt(int dt) {
    IntFmt f;
    f.bits = dt_bits(dt);
    f.is_signed = dt_is_signed(dt);
    f.mask = f.bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << f.bits) - 1;
    f.sign = f.is_signed ? UINT64_C(1) << (f.bits - 1) : 0;
    return f;
}

static inline uint64_t int_norm(IntFmt f, uint64_t x) { return ((x & f.mask) ^ f.sign) - f.sign; }

/* A normalised signed value as int64_t without implementation-defined conversion. */
static inline int64_t as_i64(uint64_t x) {
    return x <= (uint64_t)INT64_MAX ? (int64_t)x : -(int64_t)(~x) - 1;
}

static inline NrFp8Format fp8_format(int dt) { return (NrFp8Format)dt_fp8_format(dt); }

/* x rounded to dtype dt as cvt rounds (for fp8: compiler/support/fp8.h's narrowing) */
static inline double float_round(int dt, double x) {
    if (dt_is_fp8(dt)) return fp8_round(fp8_format(dt), x);
    switch (dt) {
    case DT_FP32: return (double)(float)x;
    case DT_FP16: return fp16_round(x);
    case DT_BF16: return bf16_round(x);
    default: return x;
    }
}

/* x rounded toward zero to dtype dt (cvt {rtz = 1}: fp32, fp16, bf16 or fp8e5), as PTX's
 * cvt.rz does: the magnitude truncated to the dtype's precision (subnormals at its smallest
 * exponent), a finite one above the largest finite value giving that value, infinities
 * kept, every NaN the positive NaN with all fraction bits set (its fp32, fp16 and bf16
 * encodings are 0x7FFFFFFF, 0x7FFF and 0x7FFF; fp8e5 narrows a NaN to 0x7F). */
static inline double float_round_rz(int dt, double x) {
    int fbits, emin;
    double max;
    switch (dt) {
    case DT_FP32: fbits = 23, emin = -126, max = 0x1.fffffep127; break;
    case DT_FP16: fbits = 10, emin = -14, max = 65504.0; break;
    case DT_BF16: fbits = 7, emin = -126, max = 0x1.fep127; break;
    case DT_FP8E5: fbits = 2, emin = -14, max = 57344.0; break;
    default: return x;
    }
    if (x != x && dt == DT_FP8E5) return float_round(dt, x); /* the byte 0x7F */
    if (x != x) {
        uint64_t nan = UINT64_C(0x7FFFFFFFFFFFFFFF);
        memcpy(&x, &nan, sizeof x);
        return x;
    }
    double m = fabs(x);
    if (m == 0 || isinf(m)) return x;
    int e = ilogb(m);
    int q = (e > emin ? e : emin) - fbits; /* the exponent of the last kept bit */
    m = ldexp(trunc(ldexp(m, -q)), q);     /* exact: scaling by a power of two */
    if (m > max) m = max;
    return copysign(m, x);
}

static inline void round_array(int dt, double *x, int64_t n) {
    if (dt_is_fp8(dt)) {
        for (int64_t i = 0; i < n; i++) x[i] = fp8_round(fp8_format(dt), x[i]);
        return;
    }
    switch (dt) {
    case DT_FP32:
        for (int64_t i = 0; i < n; i++) x[i] = (double)(float)x[i];
        break;
    case DT_FP16:
        for (int64_t i = 0; i < n; i++) x[i] = fp16_round(x[i]);
        break;
    case DT_BF16:
        for (int64_t i = 0; i < n; i++) x[i] = bf16_round(x[i]);
        break;
    default: break;
    }
}

/* Float max/min: a NaN operand gives the other (like fmax/fmin); between -0 and +0,
 * max gives +0 and min -0 (IEEE 754-2019 maximumNumber), which C leaves open. */
static inline double nr_fmax(double a, double b) {
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static inline double nr_fmin(double a, double b) {
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}

/* The raw bit pattern of one element of dtype dt (floats through their encoding). */
static inline uint64_t elem_bits(int dt, const void *buf, int64_t i) {
    if (dt_is_float(dt)) {
        double d = ((const double *)buf)[i];
        uint64_t u;
        if (dt == DT_FP64) {
            memcpy(&u, &d, 8);
            return u;
        }
        if (dt == DT_FP32) {
            float fl = (float)d;
            uint32_t w;
            memcpy(&w, &fl, 4);
            return w;
        }
        if (dt_is_fp8(dt)) return fp8_bits(fp8_format(dt), d);
        return dt == DT_FP16 ? fp16_from_double(d) : bf16_from_double(d);
    }
    return ((const uint64_t *)buf)[i] & int_fmt(dt).mask;
}

/* Stores the element of dtype dt whose bit pattern is bits into buf[i]. */
static inline void elem_from_bits(int dt, void *buf, int64_t i, uint64_t bits) {
    if (!dt_is_float(dt)) {
        ((uint64_t *)buf)[i] = int_norm(int_fmt(dt), bits);
        return;
    }
    double d;
    if (dt == DT_FP64) {
        memcpy(&d, &bits, 8);
    } else if (dt == DT_FP32) {
        uint32_t w = (uint32_t)bits;
        float fl;
        memcpy(&fl, &w, 4);
        d = fl;
    } else if (dt_is_fp8(dt)) {
        d = fp8_to_double(fp8_format(dt), (uint8_t)bits);
    } else {
        d = dt == DT_FP16 ? fp16_to_double((uint16_t)bits) : bf16_to_double((uint16_t)bits);
    }
    ((double *)buf)[i] = d;
}

#endif
