/* interp_shape.c - ops that make blocks or move elements without arithmetic on them:
 * const, arange, program_id, num_programs, splat, broadcast, expand_dims, reshape,
 * trans, the hint ops (multiple_of, max_contiguous: pass-through), and reduce.
 * Elements are 8 bytes whatever the dtype (see interp_impl.h), so moves are memcpy. */
#include "interp_impl.h"

/* Every element of result 0 becomes elem8: copy one, then double the filled part. */
static void fill(Ctx *c, const IrOp *op, void *r, const void *elem8) {
    size_t n = (size_t)ty_numel(res_ty(c, op, 0)), done = 1;
    memcpy(r, elem8, 8);
    while (done < n) {
        size_t k = done < n - done ? done : n - done;
        memcpy((char *)r + 8 * done, r, 8 * k);
        done += k;
    }
}

static int do_const(Ctx *c, const IrOp *op) {
    int dt = res_ty(c, op, 0).dt;
    void *r = interp_val_out(c, op, 0);
    if (!r) return -1;
    if (dt_is_float(dt)) {
        double d = float_round(dt, op->fattr);
        fill(c, op, r, &d);
    } else {
        uint64_t u = dt == DT_I1 ? op->attr[0] != 0 : int_norm(int_fmt(dt), (uint64_t)op->attr[0]);
        fill(c, op, r, &u);
    }
    return 0;
}

static int do_index(Ctx *c, const IrOp *op) {
    IntFmt F = int_fmt(res_ty(c, op, 0).dt);
    uint64_t *r = interp_val_out(c, op, 0);
    if (!r) return -1;
    if (op->code == OP_ARANGE) {
        int64_t n = ty_numel(res_ty(c, op, 0));
        for (int64_t i = 0; i < n; i++) r[i] = int_norm(F, (uint64_t)op->attr[0] + (uint64_t)i);
        return 0;
    }
    const unsigned *src = op->code == OP_PROGRAM_ID ? c->pid : c->grid;
    uint64_t u = int_norm(F, src[op->attr[0]]);
    fill(c, op, r, &u);
    return 0;
}

/* dst, row-major over shape (rank dims, at least 1), gets src[sum_d idx[d] * st[d]]: an
 * odometer over the outer dims, the last dim copied in one memcpy when it is contiguous. */
static void gather(char *dst, const char *src, int rank, const int32_t *shape, const int64_t *st) {
    int32_t idx[NR_MAX_RANK] = {0};
    int64_t off = 0, k = 0, n = shape[rank - 1], last = st[rank - 1];
    for (;;) {
        const char *s = src + 8 * off;
        if (last == 1) {
            memcpy(dst + 8 * k, s, 8 * (size_t)n);
            k += n;
        } else {
            for (int64_t j = 0; j < n; j++) memcpy(dst + 8 * k++, s + 8 * j * last, 8);
        }
        int d = rank - 2;
        for (; d >= 0; d--) { /* the next outer index: carry through the dims that wrap */
            off += st[d];
            if (++idx[d] < shape[d]) break;
            off -= st[d] * shape[d];
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}

static void row_major_strides(IrType t, int64_t st[NR_MAX_RANK]) {
    int64_t s = 1;
    for (int i = t.rank - 1; i >= 0; i--) st[i] = s, s *= t.shape[i];
}

/* broadcast and trans: strided gathers */
static int do_gather(Ctx *c, const IrOp *op) {
    IrType a = opnd_ty(c, op, 0), rt = res_ty(c, op, 0);
    const void *src = interp_val_in(c, op, 0);
    void *r = src ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    int64_t ast[NR_MAX_RANK], st[NR_MAX_RANK];
    row_major_strides(a, ast);
    for (int d = 0; d < rt.rank; d++) {
        if (op->code == OP_TRANS) {
            st[d] = ast[op->attr[d]];
        } else { /* broadcast, right-aligned like NumPy; stretched dims read stride 0 */
            int j = d - (rt.rank - a.rank);
            st[d] = (j < 0 || a.shape[j] != rt.shape[d]) ? 0 : ast[j];
        }
    }
    gather(r, src, rt.rank, rt.shape, st);
    return 0;
}

/* splat, expand_dims, reshape, multiple_of, max_contiguous: the same elements */
static int do_copy(Ctx *c, const IrOp *op) {
    const void *src = interp_val_in(c, op, 0);
    void *r = src ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    if (op->code == OP_SPLAT) fill(c, op, r, src);
    else memcpy(r, src, 8 * (size_t)ty_numel(res_ty(c, op, 0)));
    return 0;
}

/* ---- reduce: the operand viewed as [outer, len, inner], reduced over len in index
 * order; the first slice initialises the accumulators ---- */

typedef struct Red {
    int64_t outer, len, inner;
} Red;

#define FOR_SLICES(...)                                                         \
    for (int64_t o = 0; o < R.outer; o++)                                       \
        for (int64_t k = 1; k < R.len; k++)                                     \
            for (int64_t i = 0; i < R.inner; i++) {                             \
                int64_t d = o * R.inner + i, s = (o * R.len + k) * R.inner + i; \
                __VA_ARGS__;                                                    \
            }

static void init_first(Red R, void *acc, const void *src) {
    for (int64_t o = 0; o < R.outer; o++)
        memcpy((char *)acc + 8 * o * R.inner, (const char *)src + 8 * o * R.len * R.inner,
               8 * (size_t)R.inner);
}

/* Along the last axis (inner == 1): one scalar accumulator per row. */
static void reduce_float_rows(int kind, int sdt, Red R, const double *x, double *r) {
    for (int64_t o = 0; o < R.outer; o++) {
        const double *xs = x + o * R.len;
        double a = xs[0];
        if (kind == RED_MAX) {
            for (int64_t k = 1; k < R.len; k++) a = nr_fmax(a, xs[k]);
        } else if (kind == RED_MIN) {
            for (int64_t k = 1; k < R.len; k++) a = nr_fmin(a, xs[k]);
        } else if (sdt == DT_FP64) {
            for (int64_t k = 1; k < R.len; k++) a += xs[k];
        } else {
            float fa = (float)a;
            for (int64_t k = 1; k < R.len; k++) fa += (float)xs[k];
            a = fa;
        }
        r[o] = a;
    }
}

/* sum, max, min of floats: fp32/fp16/bf16 sums accumulate in float, fp64 in double */
static void reduce_float(int kind, int sdt, Red R, const double *x, double *r) {
    if (R.inner == 1) {
        reduce_float_rows(kind, sdt, R, x, r);
        return;
    }
    init_first(R, r, x);
    if (kind == RED_MAX) {
        FOR_SLICES(r[d] = nr_fmax(r[d], x[s]))
    } else if (kind == RED_MIN) {
        FOR_SLICES(r[d] = nr_fmin(r[d], x[s]))
    } else if (sdt == DT_FP64) {
        FOR_SLICES(r[d] += x[s])
    } else {
        FOR_SLICES(r[d] = (double)(float)(r[d] + x[s])) /* exactly float addition */
    }
}

static void reduce_int(int kind, IntFmt F, Red R, const uint64_t *x, uint64_t *r) {
    init_first(R, r, x);
    if (kind == RED_SUM) {
        FOR_SLICES(r[d] += x[s])
    } else if (F.is_signed) {
        if (kind == RED_MAX) FOR_SLICES(if (as_i64(x[s]) > as_i64(r[d])) r[d] = x[s])
        else FOR_SLICES(if (as_i64(x[s]) < as_i64(r[d])) r[d] = x[s])
    } else {
        if (kind == RED_MAX) FOR_SLICES(if (x[s] > r[d]) r[d] = x[s])
        else FOR_SLICES(if (x[s] < r[d]) r[d] = x[s])
    }
}

/* Does v replace the best so far? Strictly better only (first index wins ties); NaN
 * never wins, but a NaN best (from index 0) gives way to any number. */
static bool arg_better_f(double v, double best, bool max) {
    if (isnan(v)) return false;
    if (isnan(best)) return true;
    return max ? v > best : v < best;
}

static bool arg_better_i(uint64_t v, uint64_t best, bool max, bool sgn) {
    if (sgn) return max ? as_i64(v) > as_i64(best) : as_i64(v) < as_i64(best);
    return max ? v > best : v < best;
}

static int reduce_arg(Ctx *c, bool max, int sdt, Red R, const void *x, uint64_t *idx) {
    void *best = interp_pool_get(c, R.outer * R.inner);
    if (!best) return -1;
    init_first(R, best, x);
    memset(idx, 0, 8 * (size_t)(R.outer * R.inner));
    if (dt_is_float(sdt)) {
        const double *xf = x;
        double *bf = best;
        FOR_SLICES(if (arg_better_f(xf[s], bf[d], max)) bf[d] = xf[s], idx[d] = (uint64_t)k)
    } else {
        const uint64_t *xu = x;
        uint64_t *bu = best;
        bool sgn = dt_is_signed(sdt);
        FOR_SLICES(if (arg_better_i(xu[s], bu[d], max, sgn)) bu[d] = xu[s], idx[d] = (uint64_t)k)
    }
    interp_pool_put(c, best);
    return 0;
}

static int do_reduce(Ctx *c, const IrOp *op) {
    IrType a = opnd_ty(c, op, 0);
    int rdt = res_ty(c, op, 0).dt, kind = (int)op->attr[0], axis = (int)op->attr[1];
    Red R = {1, a.shape[axis], 1};
    for (int i = 0; i < axis; i++) R.outer *= a.shape[i];
    for (int i = axis + 1; i < a.rank; i++) R.inner *= a.shape[i];
    int64_t n = R.outer * R.inner;
    const void *x = interp_val_in(c, op, 0);
    void *r = x ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    if (kind == RED_ARGMAX || kind == RED_ARGMIN) {
        if (reduce_arg(c, kind == RED_ARGMAX, a.dt, R, x, r)) return -1;
        IntFmt F = int_fmt(rdt);
        for (int64_t i = 0; i < n; i++) ((uint64_t *)r)[i] = int_norm(F, ((uint64_t *)r)[i]);
    } else if (dt_is_float(a.dt)) {
        reduce_float(kind, a.dt, R, x, r);
        round_array(rdt, r, n);
    } else {
        reduce_int(kind, int_fmt(a.dt), R, x, r);
        IntFmt F = int_fmt(rdt);
        for (int64_t i = 0; i < n; i++) ((uint64_t *)r)[i] = int_norm(F, ((uint64_t *)r)[i]);
    }
    return 0;
}

int interp_shape(Ctx *c, const IrOp *op) {
    switch (op->code) {
    case OP_CONST: return do_const(c, op);
    case OP_ARANGE:
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS: return do_index(c, op);
    case OP_BROADCAST:
    case OP_TRANS: return do_gather(c, op);
    case OP_REDUCE: return do_reduce(c, op);
    default: return do_copy(c, op);
    }
}
