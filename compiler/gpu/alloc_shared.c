/* alloc_shared.c - shared-memory allocation.
 *
 * Requires: layouts assigned (gpu_assign_layouts).
 * Maintains: everything; sets op smem_offset / smem_size and f->shared_bytes.
 *
 * Every op that moves data between threads needs scratch: a reduction across warps (one
 * partial per warp per output element), a layout change that is not register-local
 * (convert_layout, or broadcast / expand_dims / reshape / trans across threads: the whole
 * source block), and dot (both operands, placed as layout_dot_smem says). Ops are
 * numbered in program order (pre-order, regions included); each buffer is live over its
 * op's interval; buffers are placed first-fit, largest first, at the lowest offset that
 * overlaps no buffer whose interval intersects its own, so buffers never live at the
 * same time share space. The total is the kernel's dynamic shared memory. */
#include <stdlib.h>
#include <string.h>

#include "gpu_passes.h"
#include "layout.h"

static int slot_bytes(IrType t) { return t.dt == DT_I1 ? 1 : dt_bytes(t.dt); }

/* A layout change that keeps every element in the thread that holds it. */
bool gpu_op_is_local(const IrFunc *f, OpId id);
bool gpu_op_is_local(const IrFunc *f, OpId id) {
    const IrOp *op = &f->ops[id];
    uint32_t src = f->vals[op->operands[0]].layout, dst = f->vals[op->results[0]].layout;
    if (op->code == OP_BROADCAST) return src == dst;
    if (op->code == OP_EXPAND_DIMS) {
        const IrLayout *s = &f->mod->layouts[src];
        return s->kind == LAYOUT_SLICE && s->parent == dst && s->dim == op->attr[0];
    }
    return false;
}

int gpu_scratch_bytes(const IrFunc *f, OpId id) {
    const IrOp *op = &f->ops[id];
    switch (op->code) {
    case OP_REDUCE: {
        ValId x = op->operands[0];
        IrType t = ir_type(f, x);
        const IrLayout *root = layout_root(f->mod, f->vals[x].layout);
        LayoutDims ld;
        layout_dims(f->mod, f->vals[x].layout, t, &ld);
        int wpc = root->wpc[ld.root_dim[op->attr[1]]];
        if (wpc <= 1) return 0;
        int64_t out = ty_numel(t) / t.shape[op->attr[1]];
        bool arg = op->attr[0] == RED_ARGMAX || op->attr[0] == RED_ARGMIN;
        return (int)(out * wpc * 8 * (arg ? 2 : 1));
    }
    case OP_CONVERT_LAYOUT: case OP_BROADCAST: case OP_EXPAND_DIMS: case OP_RESHAPE: case OP_TRANS: {
        IrType t = ir_type(f, op->operands[0]);
        if (!t.rank || gpu_op_is_local(f, id)) return 0;
        return (int)(ty_numel(t) * slot_bytes(t));
    }
    case OP_ATOMIC_RMW: case OP_ATOMIC_CAS: { /* the owner's old value, to its duplicates */
        IrType t = ir_type(f, op->operands[0]);
        if (!t.rank) return 8;
        return layout_replicates(f->mod, f->vals[op->operands[0]].layout, t) ? (int)(ty_numel(t) * 8) : 0;
    }
    case OP_DOT: {
        DotSmem s;
        layout_dot_smem(f->mod, f->vals[op->results[0]].layout, ir_type(f, op->operands[0]), ir_type(f, op->operands[1]), &s);
        return s.bytes;
    }
    default: return 0;
    }
}

typedef struct Buf {
    OpId op;
    int size, start, end, offset;
} Buf;

typedef struct Bufs {
    Buf *v;
    uint32_t n, cap;
    int counter;
} Bufs;

static void collect(IrFunc *f, RegionId r, Bufs *b) {
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        OpId id = f->regions[r].ops[i];
        int idx = b->counter++;
        int size = gpu_scratch_bytes(f, id);
        f->ops[id].smem_offset = 0, f->ops[id].smem_size = 0;
        if (size > 0) {
            Buf x = {id, (size + 15) / 16 * 16, idx, idx, -1};
            VEC_PUSH(f->mod->arena, b->v, b->n, b->cap, x);
        }
        for (int k = 0; k < f->ops[id].nregions; k++) collect(f, f->ops[id].region[k], b);
    }
}

static int by_size(const void *a, const void *b) {
    const Buf *x = a, *y = b;
    return x->size != y->size ? (y->size > x->size) - (y->size < x->size) : (x->start > y->start) - (x->start < y->start);
}

/* Lowest offset where b fits beside every placed buffer live at the same time. */
static int first_fit(const Bufs *bs, uint32_t placed, const Buf *b) {
    int off = 0;
    for (bool moved = true; moved;) {
        moved = false;
        for (uint32_t i = 0; i < placed; i++) {
            const Buf *p = &bs->v[i];
            bool live = p->start <= b->end && b->start <= p->end;
            if (live && off < p->offset + p->size && p->offset < off + b->size) {
                off = p->offset + p->size;
                moved = true;
            }
        }
    }
    return off;
}

void gpu_alloc_shared(IrFunc *f) {
    Bufs bs = {0};
    collect(f, f->body, &bs);
    if (bs.n) qsort(bs.v, bs.n, sizeof(Buf), by_size);
    int total = 0;
    for (uint32_t i = 0; i < bs.n; i++) {
        bs.v[i].offset = first_fit(&bs, i, &bs.v[i]);
        IrOp *op = &f->ops[bs.v[i].op];
        op->smem_offset = bs.v[i].offset;
        op->smem_size = bs.v[i].size;
        if (bs.v[i].offset + bs.v[i].size > total) total = bs.v[i].offset + bs.v[i].size;
    }
    f->shared_bytes = (uint32_t)total;
}
