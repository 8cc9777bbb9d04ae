/* insert_barriers.c - barrier placement.
 *
 * Requires: shared memory allocated (gpu_alloc_shared).
 * Maintains: everything; inserts barrier ops.
 *
 * Each op with scratch writes it, synchronises the CTA itself, then reads it; so after
 * the op its range has reads in flight. A later op writing an overlapping range would
 * race with them (write after read), so walking the program in order with the set of
 * ranges accessed since the last barrier, a barrier goes before any op whose range
 * overlaps the set, which then empties. Loops: the body starts with what may be pending
 * from before the loop or from the previous iteration (every range the body touches);
 * after an if, the union of both branches. */
#include <string.h>

#include "gpu_passes.h"

typedef struct Ranges {
    int lo[64], hi[64];
    int n;
    bool all; /* overflowed: treat everything as pending */
} Ranges;

static void add_range(Ranges *r, int lo, int hi) {
    if (r->n == 64) {
        r->all = true;
        return;
    }
    r->lo[r->n] = lo, r->hi[r->n++] = hi;
}

static bool overlaps(const Ranges *r, int lo, int hi) {
    if (r->all) return true;
    for (int i = 0; i < r->n; i++)
        if (lo < r->hi[i] && r->lo[i] < hi) return true;
    return false;
}

static void merge(Ranges *into, const Ranges *from) {
    if (from->all) into->all = true;
    for (int i = 0; i < from->n; i++) add_range(into, from->lo[i], from->hi[i]);
}

static void touched(const IrFunc *f, RegionId r, Ranges *out) {
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        const IrOp *op = &f->ops[f->regions[r].ops[i]];
        if (op->smem_size) add_range(out, op->smem_offset, op->smem_offset + op->smem_size);
        for (int k = 0; k < op->nregions; k++) touched(f, op->region[k], out);
    }
}

static void place(IrFunc *f, RegionId r, Ranges *pending);

static void place_op(IrFunc *f, OpId id, Ranges *pending) {
    IrOp *op = &f->ops[id];
    if (op->code == OP_FOR || op->code == OP_WHILE) {
        Ranges body = *pending;
        for (int k = 0; k < op->nregions; k++) touched(f, op->region[k], &body);
        Ranges after = body;
        for (int k = 0; k < op->nregions; k++) {
            Ranges in = body;
            place(f, f->ops[id].region[k], &in);
            merge(&after, &in);
        }
        *pending = after;
        return;
    }
    if (op->code == OP_IF) {
        Ranges a = *pending, b = *pending;
        place(f, op->region[0], &a);
        place(f, f->ops[id].region[1], &b);
        merge(&a, &b);
        *pending = a;
    }
}

static void place(IrFunc *f, RegionId r, Ranges *pending) {
    OpId *out = NULL;
    uint32_t n = 0, cap = 0;
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        OpId id = f->regions[r].ops[i];
        IrOp *op = &f->ops[id];
        if (op->smem_size) {
            int lo = op->smem_offset, hi = lo + op->smem_size;
            if (overlaps(pending, lo, hi)) {
                OpId bar = ir_op_new(f, OP_BARRIER, f->ops[id].loc, NULL, 0, NULL, 0);
                f->ops[bar].parent = r;
                VEC_PUSH(f->mod->arena, out, n, cap, bar);
                memset(pending, 0, sizeof *pending);
            }
            add_range(pending, lo, hi);
        }
        place_op(f, id, pending);
        VEC_PUSH(f->mod->arena, out, n, cap, id);
    }
    f->regions[r].ops = out;
    f->regions[r].nops = n;
    f->regions[r].capops = cap;
}

void gpu_insert_barriers(IrFunc *f) {
    Ranges pending;
    memset(&pending, 0, sizeof pending);
    place(f, f->body, &pending);
}
