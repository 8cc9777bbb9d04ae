/* interp_perm.c - the ops that move elements by position or value: flip (reverse along
 * an axis), sort (each line along an axis, in ir_ops.def's total order), gather (src
 * read at an index along an axis) and histogram (counts of small integers). Elements are
 * 8-byte slots already normalised to their dtype, so moving one is copying its slot; a
 * sort compares keys made from the dtype's bit patterns. */
#include <stdlib.h>

#include "interp_impl.h"

/* A block's lines along an axis: line (o, i) holds elements (o * len + k) * inner + i. */
typedef struct Lines {
    int64_t len, inner, outer;
} Lines;

static Lines lines_of(IrType t, int axis) {
    Lines l = {t.shape[axis], 1, 1};
    for (int d = axis + 1; d < t.rank; d++) l.inner *= t.shape[d];
    for (int d = 0; d < axis; d++) l.outer *= t.shape[d];
    return l;
}

static int flip(Ctx *c, const IrOp *op) {
    const uint64_t *x = interp_val_in(c, op, 0);
    uint64_t *r = x ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    Lines l = lines_of(opnd_ty(c, op, 0), (int)op->attr[0]);
    for (int64_t o = 0; o < l.outer; o++)
        for (int64_t k = 0; k < l.len; k++)
            for (int64_t i = 0; i < l.inner; i++)
                r[(o * l.len + k) * l.inner + i] = x[(o * l.len + l.len - 1 - k) * l.inner + i];
    return 0;
}

/* The total order as unsigned keys: floats by totalOrder (negatives' bits inverted,
 * positives' sign set), signed integers offset by their sign bit, unsigned as they are. */
static uint64_t sort_key(int dt, const void *buf, int64_t i) {
    uint64_t b = elem_bits(dt, buf, i);
    int w = dt_bits(dt);
    uint64_t sign = UINT64_C(1) << (w - 1), mask = w == 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
    if (dt_is_float(dt)) return (b & sign) ? ~b & mask : b | sign;
    return dt_is_signed(dt) ? b ^ sign : b;
}

typedef struct Keyed {
    uint64_t key, slot;
} Keyed;

static int cmp_keyed(const void *a, const void *b) {
    uint64_t x = ((const Keyed *)a)->key, y = ((const Keyed *)b)->key;
    return x < y ? -1 : x > y;
}

static int sort(Ctx *c, const IrOp *op) {
    const uint64_t *x = interp_val_in(c, op, 0);
    uint64_t *r = x ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    IrType t = opnd_ty(c, op, 0);
    Lines l = lines_of(t, (int)op->attr[0]);
    bool desc = op->attr[1] != 0;
    Keyed *line = malloc(sizeof(Keyed) * (size_t)l.len);
    if (!line) return interp_fail(c, op, "interpreter out of memory", NULL);
    for (int64_t o = 0; o < l.outer; o++)
        for (int64_t i = 0; i < l.inner; i++) {
            for (int64_t k = 0; k < l.len; k++) {
                int64_t at = (o * l.len + k) * l.inner + i;
                line[k] = (Keyed){sort_key(t.dt, x, at), x[at]};
            }
            qsort(line, (size_t)l.len, sizeof *line, cmp_keyed);
            for (int64_t k = 0; k < l.len; k++)
                r[(o * l.len + k) * l.inner + i] = line[desc ? l.len - 1 - k : k].slot;
        }
    free(line);
    return 0;
}

static int gather(Ctx *c, const IrOp *op) {
    const uint64_t *x = interp_val_in(c, op, 0), *ix = interp_val_in(c, op, 1);
    uint64_t *r = x && ix ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    IrType t = opnd_ty(c, op, 0), it = opnd_ty(c, op, 1);
    int axis = (int)op->attr[0];
    Lines src = lines_of(t, axis), idx = lines_of(it, axis);
    uint64_t wrap = (uint64_t)src.len - 1; /* lengths are powers of two: mod L is the low bits */
    for (int64_t o = 0; o < idx.outer; o++)
        for (int64_t k = 0; k < idx.len; k++)
            for (int64_t i = 0; i < idx.inner; i++) {
                int64_t at = (o * idx.len + k) * idx.inner + i;
                r[at] = x[(o * src.len + (int64_t)(ix[at] & wrap)) * src.inner + i];
            }
    return 0;
}

static int histogram(Ctx *c, const IrOp *op) {
    const uint64_t *x = interp_val_in(c, op, 0),
                   *m = op->nopnds > 1 ? interp_val_in(c, op, 1) : NULL;
    uint64_t *r = x && (m || op->nopnds == 1) ? interp_val_out(c, op, 0) : NULL;
    if (!r) return -1;
    int dt = opnd_ty(c, op, 0).dt;
    int64_t n = ty_numel(opnd_ty(c, op, 0)), bins = ty_numel(res_ty(c, op, 0));
    memset(r, 0, sizeof(uint64_t) * (size_t)bins);
    for (int64_t k = 0; k < n; k++) {
        if (m && !(m[k] & 1)) continue;
        if (dt_is_signed(dt) ? (as_i64(x[k]) < 0 || as_i64(x[k]) >= bins) : x[k] >= (uint64_t)bins)
            continue;
        r[x[k]] = int_norm(int_fmt(DT_I32), r[x[k]] + 1);
    }
    return 0;
}

int interp_perm(Ctx *c, const IrOp *op) {
    switch (op->code) {
    case OP_FLIP: return flip(c, op);
    case OP_SORT: return sort(c, op);
    case OP_GATHER: return gather(c, op);
    default: return histogram(c, op);
    }
}
