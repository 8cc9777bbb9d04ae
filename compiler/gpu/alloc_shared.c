/* alloc_shared.c - shared-memory allocation.
 *
 * Requires:  layouts assigned; buffers made (local_alloc) where the program wants them.
 * Maintains: everything; sets each local_alloc's and each scratch op's smem_offset /
 *            smem_size, and f->shared_bytes.
 *
 * Two kinds of buffer share the kernel's dynamic shared memory:
 * - explicit buffers, one per local_alloc: its tiles (a ring of `stages`, each tile
 *   aligned as its swizzle needs: ir_smem_stage_bytes). A buffer lives from its
 *   local_alloc to the last use of it or of a view of it; a use inside a loop that the
 *   buffer was made outside of keeps it alive to the loop's end (the next iteration
 *   comes back to it), so a loop-carried ring lives through its whole loop; an
 *   asynchronous use keeps it alive on to the op that retires it (a dot_async's wgmma
 *   reads to dot_wait {pending = 0}, cp.async's writes to async_wait {pending = 0}, a TMA
 *   store's reads to tma_store_wait {pending = 0}): the space is not handed on while the
 *   tensor cores or the copy engine may still be reading or writing it. An mbarrier the
 *   producer warps of a warp_specialize use lives to the op's end: they may still be in
 *   a wait on it while the consumers run the rest of the kernel. (The barrier pass
 *   then orders the new owner's first access after every thread's wait.)
 * - scratch private to one op (analysis/layout_moves.h: reductions across warps, layout
 *   changes through shared memory, atomics with copies), live at that op only.
 * Ops are numbered in program order (pre-order, regions included). Buffers are placed
 * largest first, each at the lowest offset (a multiple of its alignment) that overlaps
 * no placed buffer whose interval intersects its own, so buffers never live at the same
 * time never share space. The total is the kernel's dynamic shared memory. */
#include <stdlib.h>
#include <string.h>

#include "compiler/analysis/layout_moves.h"
#include "gpu_passes.h"

typedef struct Buf {
    OpId op;
    int size, align, start, end, offset;
} Buf;

typedef struct Alloc {
    IrFunc *f;
    int *pos, *end; /* per op: pre-order number, and the last number in its regions */
    int *def_pos;   /* per value: its defining op's number (region args: the region op's) */
    OpId *root;     /* per buffer value: its local_alloc */
    Buf *bufs;
    uint32_t nbufs, capbufs;
    int counter;
} Alloc;

static void number(Alloc *A, RegionId r, OpId owner) {
    IrFunc *f = A->f;
    for (uint32_t i = 0; i < f->regions[r].nargs; i++)
        A->def_pos[f->regions[r].args[i]] = owner ? A->pos[owner] : -1;
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        OpId id = f->regions[r].ops[i];
        A->pos[id] = A->counter++;
        for (uint32_t k = 0; k < f->ops[id].nres; k++)
            A->def_pos[f->ops[id].results[k]] = A->pos[id];
        for (int k = 0; k < f->ops[id].nregions; k++) number(A, f->ops[id].region[k], id);
        A->end[id] = A->counter - 1;
        const IrOp *op = &f->ops[id];
        if (op->code == OP_LOCAL_ALLOC) A->root[op->results[0]] = id;
        if (op->code == OP_LOCAL_VIEW ||
            (op->code == OP_TRANS && ir_type(f, op->operands[0]).dt == DT_SMEM))
            A->root[op->results[0]] = A->root[op->operands[0]];
    }
}

static Buf *find_buf(Alloc *A, OpId op) {
    for (uint32_t i = 0; i < A->nbufs; i++)
        if (A->bufs[i].op == op) return &A->bufs[i];
    return NULL;
}

/* The op that retires what an asynchronous use of a buffer leaves in flight: a wgmma's
 * reads (dot_async) end at dot_wait {pending = 0}, cp.async's writes at async_wait
 * {pending = 0}, a TMA store's reads at tma_store_wait {pending = 0}; 0 for any other use,
 * done when its op is. */
static int retiring_code(int code) {
    switch (code) {
    case OP_DOT_ASYNC: return OP_DOT_WAIT;
    case OP_ASYNC_COPY: return OP_ASYNC_WAIT;
    case OP_TMA_STORE: return OP_TMA_STORE_WAIT;
    default: return 0;
    }
}

/* The number of the first op with code `code` and pending = 0 that runs after op x on
 * every path: later in x's region, else after the op that holds the region (a loop's body
 * ends and the loop goes on, or leaves; an if's branch joins), and so on out; the end of
 * the function if none. */
static int retired_at(Alloc *A, OpId x, int code) {
    IrFunc *f = A->f;
    for (;;) {
        const IrRegion *r = &f->regions[f->ops[x].parent];
        uint32_t i = 0;
        while (i < r->nops && r->ops[i] != x) i++;
        for (i++; i < r->nops; i++) {
            const IrOp *w = &f->ops[r->ops[i]];
            if (w->code == code && w->attr[0] == 0) return A->pos[r->ops[i]];
        }
        if (!r->parent_op) return A->counter - 1;
        x = r->parent_op;
    }
}

/* The last program point a use at op u keeps buffer value v alive to: u, or the end of the
 * outermost loop around u that v was defined before (the next iteration comes back to
 * it); for an asynchronous use, on to the op that retires it, after that point. */
static int use_end(Alloc *A, OpId u, ValId v) {
    IrFunc *f = A->f;
    int e = A->pos[u];
    OpId at = u; /* the op that ends at e */
    for (RegionId r = f->ops[u].parent; r && f->regions[r].parent_op;) {
        OpId p = f->regions[r].parent_op;
        if (A->def_pos[v] >= A->pos[p]) break; /* v is defined inside p */
        if ((f->ops[p].code == OP_FOR || f->ops[p].code == OP_WHILE) && A->end[p] > e)
            e = A->end[p], at = p;
        /* the producer warps run beside all of the consumers' code: an mbarrier they use
         * (a view of it, a wait on it) stays theirs to the end */
        if (f->ops[p].code == OP_WARP_SPECIALIZE && r == f->ops[p].region[0] &&
            ir_type(f, v).pointee == DT_I64 && A->end[p] > e)
            e = A->end[p], at = p;
        r = f->ops[p].parent;
    }
    int code = retiring_code(f->ops[u].code);
    if (code) {
        int w = retired_at(A, at, code);
        if (w > e) e = w;
    }
    return e;
}

static void collect(Alloc *A, RegionId r) {
    IrFunc *f = A->f;
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        OpId id = f->regions[r].ops[i];
        IrOp *op = &f->ops[id];
        op->smem_offset = 0, op->smem_size = 0;
        int align, size = moves_smem_bytes(f, id, &align);
        if (size > 0) {
            Buf b = {id, (size + 15) / 16 * 16, align, A->pos[id], A->pos[id], -1};
            VEC_PUSH(f->mod->arena, A->bufs, A->nbufs, A->capbufs, b);
        }
        for (uint32_t k = 0; k < op->nopnds; k++) { /* uses extend their buffer's life */
            ValId v = op->operands[k];
            if (ir_type(f, v).dt != DT_SMEM || !A->root[v]) continue;
            Buf *b = find_buf(A, A->root[v]);
            int e = use_end(A, id, v);
            if (b && e > b->end) b->end = e;
        }
        for (int k = 0; k < op->nregions; k++) collect(A, op->region[k]);
    }
}

static int by_size(const void *a, const void *b) {
    const Buf *x = a, *y = b;
    return x->size != y->size ? (y->size > x->size) - (y->size < x->size)
                              : (x->start > y->start) - (x->start < y->start);
}

/* Lowest aligned offset where b fits beside every placed buffer live at the same time. */
static int first_fit(const Buf *bs, uint32_t placed, const Buf *b) {
    int off = 0;
    for (bool moved = true; moved;) {
        moved = false;
        for (uint32_t i = 0; i < placed; i++) {
            const Buf *p = &bs[i];
            bool live = p->start <= b->end && b->start <= p->end;
            if (live && off < p->offset + p->size && p->offset < off + b->size) {
                off = (p->offset + p->size + b->align - 1) / b->align * b->align;
                moved = true;
            }
        }
    }
    return off;
}

void gpu_alloc_shared(IrFunc *f) {
    Arena *a = f->mod->arena;
    Alloc A = {f,
               arena_alloc(a, sizeof(int) * (f->nops + 1)),
               arena_alloc(a, sizeof(int) * (f->nops + 1)),
               arena_alloc(a, sizeof(int) * (f->nvals + 1)),
               arena_alloc(a, sizeof(OpId) * (f->nvals + 1)),
               NULL,
               0,
               0,
               0};
    number(&A, f->body, 0);
    collect(&A, f->body);
    if (A.nbufs) qsort(A.bufs, A.nbufs, sizeof(Buf), by_size);
    int total = 0;
    for (uint32_t i = 0; i < A.nbufs; i++) {
        A.bufs[i].offset = first_fit(A.bufs, i, &A.bufs[i]);
        IrOp *op = &f->ops[A.bufs[i].op];
        op->smem_offset = A.bufs[i].offset;
        op->smem_size = A.bufs[i].size;
        if (A.bufs[i].offset + A.bufs[i].size > total) total = A.bufs[i].offset + A.bufs[i].size;
    }
    f->shared_bytes = (uint32_t)total;
}
