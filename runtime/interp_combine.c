/* interp_combine.c - scan and reduce_fn, the ops that run a combine function (their
 * region: 2n scalar arguments, n yielded) along an axis of n blocks. The reference
 * semantics of ir_ops.def, in the order written: a scan takes the elements of each line
 * along the axis from its first (the last with reverse) and combines the running value
 * with the next one; a reduce_fn folds each line from index 0. The region runs once per
 * combine, on one-element buffers: its arguments are bound like a loop body's, its yield
 * hands back n buffers (interp.c's region machinery, so the liveness plan applies inside
 * it as anywhere). Elements are copied as they are stored (8 bytes, already normalised
 * to their dtype: interp_plan.c checked that the arguments' dtypes are the operands'). */
#include "interp_impl.h"

enum { MAXN = 16 };

/* combine(acc, x) for every operand j: acc[j] <- the region's j-th result */
static int combine(Ctx *c, const IrOp *op, uint64_t *acc, const uint64_t *x) {
    uint32_t n = op->nopnds;
    const IrRegion *r = &c->f->regions[op->region[0]];
    void *args[2 * MAXN], *outs[MAXN] = {NULL};
    for (uint32_t i = 0; i < 2 * n; i++) {
        if (!(args[i] = interp_pool_get(c, 1))) {
            for (uint32_t k = 0; k < i; k++) interp_pool_put(c, args[k]);
            return -1;
        }
        ((uint64_t *)args[i])[0] = i < n ? acc[i] : x[i - n];
    }
    interp_bind(c, r->args, args, 2 * n);
    int rc = interp_exec_region(c, op->region[0], outs);
    for (uint32_t i = 0; i < n; i++) {
        if (rc == 0) acc[i] = ((uint64_t *)outs[i])[0];
        interp_pool_put(c, outs[i]);
    }
    return rc;
}

int interp_combine(Ctx *c, const IrOp *op) {
    uint32_t n = op->nopnds;
    IrType t = opnd_ty(c, op, 0);
    int axis = (int)op->attr[0];
    bool scan = op->code == OP_SCAN, reverse = scan && op->attr[1];
    int64_t len = t.shape[axis], inner = 1, outer = 1;
    for (int d = axis + 1; d < t.rank; d++) inner *= t.shape[d];
    for (int d = 0; d < axis; d++) outer *= t.shape[d];
    const uint64_t *in[MAXN];
    uint64_t *out[MAXN];
    for (uint32_t j = 0; j < n; j++)
        if (!(in[j] = interp_val_in(c, op, j))) return -1;
    for (uint32_t j = 0; j < n; j++)
        if (!(out[j] = interp_val_out(c, op, j))) return -1;
    uint64_t acc[MAXN], x[MAXN];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            for (int64_t s = 0; s < len; s++) {
                int64_t k = reverse ? len - 1 - s : s, at = (o * len + k) * inner + i;
                for (uint32_t j = 0; j < n; j++) x[j] = in[j][at];
                if (s == 0) memcpy(acc, x, sizeof(uint64_t) * n);
                else if (combine(c, op, acc, x)) return -1;
                if (scan)
                    for (uint32_t j = 0; j < n; j++) out[j][at] = acc[j];
            }
            if (!scan)
                for (uint32_t j = 0; j < n; j++) out[j][o * inner + i] = acc[j];
        }
    return 0;
}
