/* lower_tma.c - tensor-descriptor accesses through the tensor memory accelerator (sm_90a).
 *
 * Requires:  layouts assigned; the descriptors that do not go through TMA already expanded
 *            (gpu_compile.c runs ir_expand_descriptors first, keeping the parameters
 *            tma.h's gpu_tdesc_uses_tma picks), so every desc_load and desc_store left
 *            is one of TMA's.
 * Maintains: verification; the values (a loaded tile keeps its value id's users and
 *            layout).
 * Breaks:    nothing; adds buffers (the allocation pass places them) and mbarriers (the
 *            barrier pass orders their initialisation before the waits).
 *
 * desc_load(d, o) becomes
 *   buf = local_alloc : smem<tile, the plan's swizzled layout>
 *   bar = local_alloc : smem<1xi64>
 *   mbarrier_init(bar) {count = 1}; mbarrier_expect(bar) {bytes = the tile's}
 *   tma_load(d, bar, buf, o); mbarrier_wait(bar, 0)
 *   x = local_load(buf) (the desc_load's layout); mbarrier_inval(bar)
 * and desc_store(d, o, x) becomes
 *   buf = local_alloc(x); tma_store(d, buf, o); tma_store_wait {pending = 0}
 * except in a loop (for, while: the innermost around it), where the copy runs on while the
 * loop does (a persistent kernel's tile store under the next tile's K loop, as Triton's
 * pipeliner makes it): one buffer per stored tile type, made before the loop, and
 *   tma_store_wait {pending = 0}; local_store(buf, x); tma_store(d, buf, o)
 * (the wait retires the previous copy out of buf, and any other), with one more wait after
 * the loop. (The barrier pass puts the proxy fence and the barrier between the buffer's
 * writes and the copy, a barrier between thread 0's wait and the other threads' writes,
 * and orders the mbarrier's initialisation before the other threads' waits; the allocator
 * keeps buf from its local_alloc to the wait after the loop.)
 * Each access makes and retires its own mbarrier, so every wait is on phase 0; loads that
 * feed dots in loops would be pipelined instead (not done yet: with TMA they stay one
 * copy at a time). */
#include <stdlib.h>
#include <string.h>

#include "compiler/ir/ir_layout.h"
#include "compiler/passes/rewrite.h"
#include "compiler/target/tma.h"
#include "gpu_passes.h"

enum { LOOP_BUFS = 8 };

/* The buffers of the desc_stores of one loop's regions (nested loops have their own). */
typedef struct LoopBufs {
    ValId buf[LOOP_BUFS];
    OpId alloc[LOOP_BUFS];
    int n;
} LoopBufs;

typedef struct Lower {
    IrFunc *f;
    OpVec *out;
    Loc loc;
    LoopBufs *loop; /* the innermost loop around the ops being lowered; NULL outside loops */
} Lower;

static OpId put(Lower *L, int code, const ValId *opnds, uint32_t n, const IrType *ty,
                uint32_t nres) {
    OpId op = ir_op_new(L->f, code, L->loc, opnds, n, ty, nres);
    opvec_push(L->out, op);
    return op;
}

static ValId alloc(Lower *L, IrType buf, uint32_t layout, ValId init) {
    OpId op = put(L, OP_LOCAL_ALLOC, init ? &init : NULL, init ? 1 : 0, &buf, 1);
    ValId v = ir_result(L->f, op, 0);
    L->f->vals[v].layout = layout;
    return v;
}

/* Returns the loaded tile (the local_load's result). */
static ValId lower_load(Lower *L, OpId id) {
    IrFunc *f = L->f;
    const IrOp *op = &f->ops[id];
    ValId d = op->operands[0], res = op->results[0];
    IrType dt = ir_type(f, d);
    int r = dt.rank;
    ValId opnds[3 + NR_MAX_DESC_RANK];
    for (int k = 0; k < r; k++) opnds[3 + k] = op->operands[1 + k];
    TmaPlan plan;
    gpu_tma_plan(dt, &plan);
    IrLayout sl = gpu_tma_shared_layout(dt, &plan);
    ValId buf = alloc(L, ty_smem(dt.pointee, r, dt.shape, 1), ir_layout_intern(f->mod, &sl), 0);
    int32_t one = 1;
    ValId bar = alloc(L, ty_smem(DT_I64, 1, &one, 1), gpu_mbarrier_layout(f->mod), 0);
    /* each op made first, then its attribute set: put() may move f->ops, which an
     * f->ops[put(...)] may have read before the call */
    OpId init = put(L, OP_MBARRIER_INIT, &bar, 1, NULL, 0);
    f->ops[init].attr[0] = 1;
    OpId expect = put(L, OP_MBARRIER_EXPECT, &bar, 1, NULL, 0);
    f->ops[expect].attr[0] = gpu_tma_tile_bytes(dt);
    opnds[0] = d, opnds[1] = bar, opnds[2] = buf;
    put(L, OP_TMA_LOAD, opnds, 3 + (uint32_t)r, NULL, 0);
    IrType i32 = ty_scalar(DT_I32);
    ValId zero = ir_result(f, put(L, OP_CONST, NULL, 0, &i32, 1), 0); /* attr[0] = 0: phase 0 */
    put(L, OP_MBARRIER_WAIT, (ValId[]){bar, zero}, 2, NULL, 0);
    IrType tile = ir_type(f, res);
    uint32_t layout = f->vals[res].layout;
    ValId x = ir_result(f, put(L, OP_LOCAL_LOAD, &buf, 1, &tile, 1), 0);
    f->vals[x].layout = layout;
    put(L, OP_MBARRIER_INVAL, &bar, 1, NULL, 0);
    return x;
}

static void lower_store(Lower *L, OpId id) {
    IrFunc *f = L->f;
    const IrOp *op = &f->ops[id];
    ValId d = op->operands[0];
    IrType dt = ir_type(f, d);
    int r = dt.rank;
    ValId opnds[2 + NR_MAX_DESC_RANK];
    for (int k = 0; k < r; k++) opnds[2 + k] = op->operands[1 + k];
    ValId x = op->operands[1 + r];
    TmaPlan plan;
    gpu_tma_plan(dt, &plan);
    IrLayout sl = gpu_tma_shared_layout(dt, &plan);
    IrType bt = ty_smem(dt.pointee, r, dt.shape, 1);
    uint32_t layout = ir_layout_intern(f->mod, &sl);
    LoopBufs *lb = L->loop;
    int k = 0;
    while (lb && k < lb->n &&
           !(ty_equal(ir_type(f, lb->buf[k]), bt) && f->vals[lb->buf[k]].layout == layout))
        k++;
    if (!lb || (k == lb->n && lb->n == LOOP_BUFS)) { /* outside a loop: copied, then waited for */
        ValId buf = alloc(L, bt, layout, x);
        opnds[0] = d, opnds[1] = buf;
        put(L, OP_TMA_STORE, opnds, 2 + (uint32_t)r, NULL, 0);
        put(L, OP_TMA_STORE_WAIT, NULL, 0, NULL, 0); /* attr[0] = 0: every copy has read it */
        return;
    }
    if (k == lb->n) { /* the loop's buffer for this tile type, made before it */
        OpId a = ir_op_new(f, OP_LOCAL_ALLOC, L->loc, NULL, 0, &bt, 1);
        lb->alloc[k] = a, lb->buf[k] = f->ops[a].results[0], lb->n++;
        f->vals[lb->buf[k]].layout = layout;
    }
    put(L, OP_TMA_STORE_WAIT, NULL, 0, NULL, 0); /* the previous copy out of it has read it */
    put(L, OP_LOCAL_STORE, (ValId[]){lb->buf[k], x}, 2, NULL, 0);
    opnds[0] = d, opnds[1] = lb->buf[k];
    put(L, OP_TMA_STORE, opnds, 2 + (uint32_t)r, NULL, 0);
}

static void lower_region(IrFunc *f, RegionId rg, LoopBufs *loop, OpVec *pairs) {
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, rg, &n);
    OpVec out = {0};
    Lower L = {f, &out, {0}, loop};
    for (uint32_t i = 0; i < n; i++) {
        OpId id = ops[i];
        int code = f->ops[id].code;
        if (code == OP_FOR || code == OP_WHILE) { /* its stores' buffers: before it, waited after */
            LoopBufs lb = {{0}, {0}, 0};
            for (uint32_t k = 0; k < f->ops[id].nregions; k++)
                lower_region(f, f->ops[id].region[k], &lb, pairs);
            for (int b = 0; b < lb.n; b++) opvec_push(&out, lb.alloc[b]);
            opvec_push(&out, id);
            if (lb.n) /* attr[0] = 0: every copy has read its buffer */
                opvec_push(&out, ir_op_new(f, OP_TMA_STORE_WAIT, f->ops[id].loc, NULL, 0, NULL, 0));
            continue;
        }
        for (uint32_t k = 0; k < f->ops[id].nregions; k++)
            lower_region(f, f->ops[id].region[k], loop, pairs);
        L.loc = f->ops[id].loc;
        if (code == OP_DESC_LOAD) {
            ValId res = f->ops[id].results[0];
            opvec_push(pairs, res); /* its users read the loaded tile */
            opvec_push(pairs, lower_load(&L, id));
        } else if (code == OP_DESC_STORE) {
            lower_store(&L, id);
        } else {
            opvec_push(&out, id);
        }
    }
    ir_region_set_ops(f, rg, out.v, out.n);
    opvec_free(&out);
    free(ops);
}

void gpu_lower_tma(IrFunc *f) {
    OpVec pairs = {0};
    lower_region(f, f->body, NULL, &pairs);
    ir_replace_pairs(f, &pairs);
}
