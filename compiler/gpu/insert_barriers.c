/* insert_barriers.c - barrier and proxy-fence placement, from each op's effects on
 * shared-memory buffers.
 *
 * Requires:  shared memory allocated (gpu_alloc_shared).
 * Maintains: everything; inserts barrier and fence_async ops.
 *
 * Walking the program in order, the pass keeps what may still race, as sets of accesses
 * (a byte range, and for a stage of a ring, which stage):
 *   R  reads and W writes by this thread not yet ordered by a barrier before other
 *      threads' accesses;
 *   A  cp.async writes in flight (async_copy), each with the number of commit groups
 *      made since it was issued (0: not yet in a group), its age; async_wait {pending = n}
 *      retires the copies of every group but the n newest (PTX's cp.async.wait_group),
 *      which become W, and leaves the others in flight. A wait that retired every copy
 *      would let a barrier between two waits order copies that land only at the second
 *      (the rotated tf32 loop: the head's barrier, then the wait that retires the copy
 *      of the stage the end of the body loads; a race on the GPU). An age is either
 *      known or only a least one (at_least: a copy issued before the head of a loop whose
 *      iterations the pass does not follow, see Loops; and an age that reached AGE_MAX,
 *      more groups than any wait leaves in flight). A copy of at least k groups lands surely
 *      at a wait with pending < k; at one with pending >= k it may land there or only
 *      at a later wait, so it goes into W (a barrier orders it before reads) and stays in
 *      A, at least k still. A copy not yet in a group is not waited for even by
 *      pending = 0, so one of at least 0 groups stays in A there too;
 *   G  writes by ordinary stores (local_alloc of a value, local_store) not yet fenced
 *      for the async proxy (the tensor cores' wgmma reads through it), cleared by
 *      fence_async. cp.async's writes are not in G: once cp.async.wait_group has retired
 *      them and a barrier has ordered them, wgmma reads them without a proxy fence, as
 *      Triton's and CUTLASS's cp.async + wgmma main loops do. The fence (fence.proxy.async
 *      becomes MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S in SASS, once per iteration) cost 2%
 *      of a 8192^3 fp16 matmul on the H200;
 *   F  wgmma reads in flight (dot_async), which dot_wait retires into R;
 *   T  TMA writes in flight (tma_load), complete and visible to each thread that passes
 *      an mbarrier_wait: lower_tma.c waits for each copy before it issues the next, so a
 *      wait retires every copy in flight.
 * The mbarrier ops: mbarrier_init and mbarrier_inval write the mbarrier (thread 0), a
 * wait reads it (every thread), so the barrier pass orders the initialisation before the
 * other threads' waits and their waits before the invalidation; mbarrier_expect and
 * tma_load come from the thread that initialised it (the code generator predicates all
 * four on one leader thread), so they are in program order with its init and inval and
 * are recorded as nothing. In T a tma_load records only its tile buffer, not its
 * mbarrier: the copy's complete_tx on the mbarrier has arrived once the phase it
 * completes has been waited for, and each thread's own wait on it precedes the
 * invalidation in program order, as the pipeliner and lower_tma wait for every copy they
 * issue. What mbarrier.inval (and an init that reuses the object) needs (PTX ISA: no
 * pending operations on the object, no thread still in mbarrier.try_wait on it) is then
 * every other thread's last wait ordered before it: one barrier, which clears R, serves
 * a whole run of inits or invals of distinct mbarriers. mbarrier_arrive (a warp's arrival
 * on a ring's "empty" mbarrier) is recorded as nothing too. A warp_specialize's producer
 * region gets no barrier (its warps meet the consumers only through mbarriers); its
 * consumer region is placed as the code around it. (Recording the mbarrier as a TMA
 * write in flight, which no barrier clears, put a barrier before every one of them.)
 * A tma_load writes its buffer as
 * cp.async does (a barrier first where other threads may still read it); a tma_store
 * reads its buffer through the async proxy, as a wgmma does (fence and barrier after
 * ordinary writes), until thread 0's tma_store_wait (before any later write) retires the
 * read: a later write of the buffer then needs a barrier after that wait, which a barrier
 * between the copy and the wait does not give (set S).
 * Each op's accesses: local_alloc with a value and local_store write; local_load and a
 * CUDA-core dot read; async_copy writes asynchronously; a wgmma (dot with shared
 * operands, dot_async) reads through the async proxy; ops with scratch write it, wait at
 * their own barrier and read it. Before an op, a barrier goes in where one of its
 * accesses overlaps a pending access and one of the two writes (read after write, write
 * after read, write after write; a write also against A), and the barrier clears R and
 * W. A wgmma's reads in flight (F) are this warpgroup's to retire (dot_wait, placed by
 * the pipeliner) before it overwrites them; once retired they are R, so the barrier
 * that keeps another warpgroup's copy off them is placed as for any read. A wgmma that reads what G
 * holds gets fence_async and a barrier. Stages of one ring do not overlap when their indices
 * provably differ. Before a loop holding a wgmma, pending ordinary writes get their fence and
 * barrier there, once, rather than in every iteration. Stages of one ring do not overlap when their
 * indices provably differ: both constants, or (x + c1) % S and (x + c2) % S of one x with c1 != c2
 * (mod S), or the same with & (S-1) for a power-of-two S, or a stage x against x == 0 ? S-1 : x - 1
 * (the forms the pipeliner writes: masks of its count for a power-of-two S, else the stage it
 * carries and the one before it).
 *
 * Loops: a for loop's body starts from what is pending before the loop and from what
 * the body leaves pending at its end for the next iteration, found by running the body
 * without placing anything until that state settles (loop_entry; whole buffers, as the
 * stage arithmetic of one iteration says nothing about the next; the copies' ages it
 * finds are known ones, each age an iteration can meet being in the settled state); a
 * while loop's (or a for loop's that does not settle) from every access its regions make,
 * where each copy in flight, the body's (at least 0 groups) and those before the loop (at
 * least their age there), has an age not known. After an if, the union of both branches. */
#include <stdlib.h>
#include <string.h>

#include "compiler/analysis/layout_moves.h"
#include "compiler/passes/rewrite.h"
#include "gpu_passes.h"

enum { MAX_ACC = 64 };

typedef struct Access {
    int lo, hi;      /* bytes [lo, hi) */
    ValId base;      /* stage index: (base + off) % stages; base 0: the constant off */
    int off, stages; /* stages 0: the whole range, no stage known */
    int age;         /* in A: commit groups made since the copy was issued (capped) */
    int at_least;    /* in A: 1 where age is only a least value (the copy's count not known) */
} Access;

typedef struct Set {
    Access a[MAX_ACC];
    int n;
    bool all; /* overflowed: everything */
} Set;

/* S: tma_stores' reads of their buffers in flight, which only thread 0's tma_store_wait
 * retires (into R: a barrier after the wait then orders later writes before them); a
 * barrier alone does not, the copy reading on after it. */
typedef struct State {
    Set R, W, A, G, F, T, S;
} State;

typedef struct Ctx {
    IrFunc *f;
    OpId *root; /* per buffer value: its local_alloc */
    bool dry;   /* only computing what stays pending: no op is placed */
} Ctx;

/* Do x and y name one copy's bytes (they may differ in age)? */
static bool same_place(Access x, Access y) {
    x.age = y.age, x.at_least = y.at_least;
    return !memcmp(&x, &y, sizeof x);
}

/* Adds x to s. A copy of at least k groups covers those of the same bytes of k or more
 * (known or at least), which are dropped, keeping sets (and loop_entry's rounds) small. */
static void add(Set *s, Access x) {
    for (int i = 0; i < s->n; i++) {
        Access y = s->a[i];
        if (!memcmp(&y, &x, sizeof x) || (y.at_least && y.age <= x.age && same_place(x, y))) return;
    }
    if (x.at_least) {
        int k = 0;
        for (int i = 0; i < s->n; i++)
            if (!same_place(x, s->a[i]) || s->a[i].age < x.age) s->a[k++] = s->a[i];
        s->n = k;
    }
    if (s->n == MAX_ACC) {
        s->all = true;
        return;
    }
    s->a[s->n++] = x;
}

static void merge(Set *into, const Set *from) {
    if (from->all) into->all = true;
    for (int i = 0; i < from->n; i++) add(into, from->a[i]);
}

static void clear(Set *s) { memset(s, 0, sizeof *s); }

/* A copy's age stops here, as "AGE_MAX or more" (at_least): past the most groups a wait can
 * leave in flight (the verifier's bound on pending is 64), so such a copy lands at any wait. */
enum { AGE_MAX = 65 };

/* async_commit: every copy in flight is one group older (a least age too). */
static void age_copies(Set *s) {
    Set aged = {.all = s->all};
    for (int i = 0; i < s->n; i++) {
        Access a = s->a[i];
        if (a.age < AGE_MAX) a.age++;
        if (a.age == AGE_MAX) a.at_least = 1;
        add(&aged, a);
    }
    *s = aged;
}

/* async_wait {pending = n}: the copies of the groups older than the n newest land (into
 * W, ordinary writes a barrier then orders); the others stay in flight. A copy of at least
 * k groups lands surely where k > n; where k <= n it may land here or only at a later wait,
 * so it goes into W and stays in flight (at least k still). A set that overflowed (all)
 * retires into W whole and stays whole. */
static void retire_copies(State *st, int pending) {
    Set left = {.all = false};
    if (st->A.all) st->W.all = true;
    for (int i = 0; i < st->A.n; i++) {
        Access a = st->A.a[i];
        if (a.age <= pending) add(&left, a);
        if (a.age > pending || a.at_least) {
            a.age = 0, a.at_least = 0;
            add(&st->W, a);
        }
    }
    left.all = st->A.all;
    st->A = left;
}

/* Copies in flight at the head of a loop whose iterations the pass does not follow: each
 * is at least as old as it is now, its count in a later iteration not known. */
static void ages_unknown(Set *s) {
    Set u = {.all = s->all};
    for (int i = 0; i < s->n; i++) {
        Access a = s->a[i];
        a.at_least = 1;
        add(&u, a);
    }
    *s = u;
}

/* Stages of one ring (or of two rings with the same place and shape: the same bytes)
 * whose indices provably differ do not overlap. Two rings that share a start but not a
 * size (the allocator reuses space between buffers whose lives do not meet) have stages
 * of different sizes: stage 1 of one can cover stage 2 of the other. */
static bool overlap(Access x, Access y) {
    if (x.hi <= y.lo || y.hi <= x.lo) return false;
    if (x.stages && y.stages == x.stages && x.base == y.base && x.lo == y.lo && x.hi == y.hi)
        return ((x.off - y.off) % x.stages + x.stages) % x.stages == 0;
    return true;
}

static bool hits(const Set *s, Access x) {
    if (s->all) return true;
    for (int i = 0; i < s->n; i++)
        if (overlap(s->a[i], x)) return true;
    return false;
}

/* ---- what an op touches ---- */

static const IrOp *def_op(const IrFunc *f, ValId v) {
    OpId d = ir_def(f, v);
    return d ? &f->ops[d] : NULL;
}

static bool const_of(const IrFunc *f, ValId v, int64_t *c) {
    const IrOp *d = def_op(f, v);
    if (!d || d->code != OP_CONST) return false;
    *c = d->attr[0];
    return true;
}

/* The stage before x, x == 0 ? S-1 : x - 1 (the pipeliner's refill of a ring of S that is no
 * power of two, from the carried stage x it reads): (x + S-1) % S for x in [0, S), which a
 * stage index is (local_view's). Returns x, or 0 where sel is not that form. */
static ValId stage_before(const IrFunc *f, const IrOp *sel, int stages) {
    int64_t z, last, one;
    const IrOp *c = def_op(f, sel->operands[0]), *prev = def_op(f, sel->operands[2]);
    if (!c || c->code != OP_CMP || c->attr[0] != CMP_PRED_EQ || !const_of(f, c->operands[1], &z) ||
        z != 0 || !const_of(f, sel->operands[1], &last) || last != stages - 1 || !prev ||
        prev->code != OP_SUB || prev->operands[0] != c->operands[0] ||
        !const_of(f, prev->operands[1], &one) || one != 1)
        return 0;
    return c->operands[0];
}

/* idx as (base + off) % stages: a constant, x % S, or (x + c) % S; with a power-of-two S,
 * x & (S-1) or (x + c) & (S-1) (the pipeliner's: equal to the remainder mod S for any x in
 * two's complement, so two of one x with c1 != c2 mod S differ); where S is no power of two,
 * the pipeliner's carried stage x (any other value: x itself, a stage index being in
 * [0, S)) and stage_before's form of it. */
static void stage_of(const IrFunc *f, ValId idx, int stages, Access *a) {
    int64_t c, s;
    a->stages = stages;
    if (const_of(f, idx, &c)) {
        a->base = 0, a->off = (int)(((c % stages) + stages) % stages);
        return;
    }
    const IrOp *d = def_op(f, idx);
    ValId x = d && d->code == OP_SELECT ? stage_before(f, d, stages) : 0;
    if (x) {
        a->base = x, a->off = stages - 1;
        return;
    }
    bool mask = d && d->code == OP_AND && (stages & (stages - 1)) == 0 &&
                const_of(f, d->operands[1], &s) && s == stages - 1;
    if (mask || (d && d->code == OP_REM && const_of(f, d->operands[1], &s) && s == stages)) {
        const IrOp *add_op = def_op(f, d->operands[0]);
        if (add_op && add_op->code == OP_ADD && const_of(f, add_op->operands[1], &c)) {
            a->base = add_op->operands[0], a->off = (int)(((c % stages) + stages) % stages);
            return;
        }
        a->base = d->operands[0], a->off = 0;
        return;
    }
    a->base = idx, a->off = 0; /* x: stage x (two different values may be one stage) */
}

/* The access to buffer value v (a local_alloc's result or a view of one). */
static Access access_of(const Ctx *c, ValId v) {
    const IrFunc *f = c->f;
    const IrOp *alloc = &f->ops[c->root[v]];
    Access a = {alloc->smem_offset, alloc->smem_offset + alloc->smem_size, 0, 0, 0, 0, 0};
    const IrOp *d = def_op(f, v);
    if (d && d->code == OP_TRANS)
        d = def_op(f, d->operands[0]); /* a transposed view: of the same bytes */
    IrType whole = ir_type(f, alloc->results[0]);
    if (d && d->code == OP_LOCAL_VIEW && whole.stages > 1)
        stage_of(f, d->operands[1], whole.stages, &a);
    return a;
}

static Access whole(Access a) {
    a.base = 0, a.off = 0, a.stages = 0;
    return a;
}

/* ---- placing ---- */

typedef struct Out {
    OpId *v;
    uint32_t n, cap;
} Out;

static void emit(Ctx *c, Out *out, int code, Loc loc, RegionId r) {
    if (c->dry) return;
    OpId op = ir_op_new(c->f, code, loc, NULL, 0, NULL, 0);
    c->f->ops[op].parent = r;
    VEC_PUSH(c->f->mod->arena, out->v, out->n, out->cap, op);
}

static void barrier(Ctx *c, Out *out, State *s, Loc loc, RegionId r) {
    emit(c, out, OP_BARRIER, loc, r);
    clear(&s->R), clear(&s->W);
}

static bool is_wgmma(const IrFunc *f, const IrOp *op) {
    if (op->code == OP_DOT_ASYNC) return true;
    if (op->code != OP_DOT) return false;
    const IrLayout *l = &f->mod->layouts[f->vals[op->results[0]].layout];
    return l->kind == LAYOUT_MMA && l->version == 3;
}

static void place(Ctx *c, RegionId r, State *s);

/* The effects of op id on s, with the barriers and fences it needs placed before it. */
static void visit(Ctx *c, Out *out, OpId id, State *s, RegionId r) {
    IrFunc *f = c->f;
    const IrOp *op = &f->ops[id]; /* read before emitting: new ops may move the op table */
    Loc loc = op->loc;
    int code = op->code;
    switch (code) {
    case OP_BARRIER: clear(&s->R), clear(&s->W); return;
    case OP_FENCE_ASYNC: clear(&s->G); return;
    case OP_TMA_STORE_WAIT: /* thread 0's copies have read their buffers (the older ones) */
        merge(&s->R, &s->S);
        if (op->attr[0] == 0) clear(&s->S);
        return;
    case OP_ASYNC_COMMIT: age_copies(&s->A); return;
    case OP_ASYNC_WAIT: /* landed copies: ordinary writes, which a barrier orders */
        retire_copies(s, (int)op->attr[0]);
        return;
    case OP_DOT_WAIT:
        merge(&s->R, &s->F);
        if (op->attr[0] == 0) clear(&s->F);
        return;
    case OP_LOCAL_ALLOC:
    case OP_LOCAL_STORE:
    case OP_ASYNC_COPY: {
        if (code == OP_LOCAL_ALLOC && !op->nopnds) return; /* nothing written yet */
        Access a = access_of(c, code == OP_LOCAL_ALLOC ? op->results[0] : op->operands[0]);
        /* another copy in flight is no race a barrier orders (the pipeliner never writes
         * a stage still being copied); an ordinary write over one waits at a barrier */
        if (hits(&s->R, a) || hits(&s->W, a) || hits(&s->S, a) ||
            (code != OP_ASYNC_COPY && hits(&s->A, a)))
            barrier(c, out, s, loc, r);
        if (code == OP_ASYNC_COPY) add(&s->A, a);
        else add(&s->W, a), add(&s->G, a);
        return;
    }
    case OP_LOCAL_LOAD: {
        Access a = access_of(c, op->operands[0]);
        if (hits(&s->W, a)) barrier(c, out, s, loc, r);
        add(&s->R, a);
        return;
    }
    case OP_MBARRIER_INIT:
    case OP_MBARRIER_INVAL:
    case OP_TMA_LOAD: { /* writes (a TMA copy's: asynchronous) */
        Access a = access_of(c, op->operands[code == OP_TMA_LOAD ? 2 : 0]);
        if (hits(&s->R, a) || hits(&s->W, a) || hits(&s->A, a) || hits(&s->T, a) || hits(&s->S, a))
            barrier(c, out, s, loc, r);
        add(code == OP_TMA_LOAD ? &s->T : &s->W, a);
        return;
    }
    case OP_MBARRIER_WAIT: {
        Access a = access_of(c, op->operands[0]);
        if (hits(&s->W, a)) barrier(c, out, s, loc, r);
        add(&s->R, a);
        clear(&s->T);
        return;
    }
    case OP_TMA_STORE: {
        Access a = access_of(c, op->operands[1]);
        bool fence = hits(&s->G, a), bar = fence || hits(&s->W, a);
        if (fence) {
            emit(c, out, OP_FENCE_ASYNC, loc, r);
            clear(&s->G);
        }
        if (bar) barrier(c, out, s, loc, r);
        add(&s->S, a);
        return;
    }
    case OP_DOT:
    case OP_DOT_ASYNC: {
        bool async_proxy = is_wgmma(f, op), fence = false, bar = false;
        Access acc[2];
        int n = 0;
        for (int i = 0; i < 2; i++)
            if (ir_type(f, op->operands[i]).dt == DT_SMEM) acc[n++] = access_of(c, op->operands[i]);
        for (int i = 0; i < n; i++) {
            if (async_proxy && hits(&s->G, acc[i])) fence = bar = true;
            if (hits(&s->W, acc[i])) bar = true;
        }
        if (fence) {
            emit(c, out, OP_FENCE_ASYNC, loc, r);
            clear(&s->G);
        }
        if (bar) barrier(c, out, s, loc, r);
        for (int i = 0; i < n; i++) add(code == OP_DOT_ASYNC ? &s->F : &s->R, acc[i]);
        return;
    }
    default:
        if (op->smem_size) { /* scratch: written, synchronised inside the op, read */
            Access a = {op->smem_offset, op->smem_offset + op->smem_size, 0, 0, 0, 0, 0};
            if (hits(&s->R, a) || hits(&s->W, a)) barrier(c, out, s, loc, r);
            add(&s->R, a);
        }
    }
}

/* Everything a region's ops may leave pending, whole buffers (for loop back edges). */
static void touched(Ctx *c, RegionId r, State *s) {
    IrFunc *f = c->f;
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        const IrOp *op = &f->ops[f->regions[r].ops[i]];
        for (uint32_t k = 0; k < op->nopnds && op->code != OP_LOCAL_VIEW && op->code != OP_TRANS;
             k++)
            if (ir_type(f, op->operands[k]).dt == DT_SMEM) {
                Access a = whole(access_of(c, op->operands[k]));
                if (op->code == OP_MBARRIER_EXPECT || op->code == OP_MBARRIER_ARRIVE ||
                    (op->code == OP_TMA_LOAD && k == 1))
                    continue;                  /* arrivals on an mbarrier, as in visit: nothing */
                if (op->code == OP_ASYNC_COPY) /* of an earlier iteration: any age, 0 or more */
                    a.at_least = 1, add(&s->A, a);
                else if (op->code == OP_TMA_LOAD) add(&s->T, a); /* its tile buffer */
                else if (op->code == OP_MBARRIER_INIT || op->code == OP_MBARRIER_INVAL)
                    add(&s->W, a);
                else if (op->code == OP_LOCAL_STORE) add(&s->W, a), add(&s->G, a);
                else if (op->code == OP_DOT_ASYNC) add(&s->F, a);
                else if (op->code == OP_TMA_STORE) add(&s->S, a);
                else add(&s->R, a);
            }
        if (op->code == OP_LOCAL_ALLOC && op->nopnds) {
            Access a = whole(access_of(c, op->results[0]));
            add(&s->W, a), add(&s->G, a);
        }
        if (op->smem_size && op->code != OP_LOCAL_ALLOC) {
            Access a = {op->smem_offset, op->smem_offset + op->smem_size, 0, 0, 0, 0, 0};
            add(&s->R, a);
        }
        for (int k = 0; k < op->nregions; k++) touched(c, op->region[k], s);
    }
}

static void merge_state(State *into, const State *from) {
    merge(&into->R, &from->R), merge(&into->W, &from->W), merge(&into->A, &from->A);
    merge(&into->G, &from->G), merge(&into->F, &from->F), merge(&into->T, &from->T);
    merge(&into->S, &from->S);
}

static void whole_set(Set *s) {
    Set w = {.all = s->all};
    for (int i = 0; i < s->n; i++) add(&w, whole(s->a[i]));
    *s = w;
}

static bool same_set(const Set *a, const Set *b) {
    if (a->all != b->all || a->n != b->n) return false;
    for (int i = 0; i < a->n; i++) {
        bool found = false;
        for (int j = 0; j < b->n && !found; j++)
            found = !memcmp(&a->a[i], &b->a[j], sizeof a->a[i]);
        if (!found) return false;
    }
    return true;
}

static bool same_state(const State *a, const State *b) {
    return same_set(&a->R, &b->R) && same_set(&a->W, &b->W) && same_set(&a->A, &b->A) &&
           same_set(&a->G, &b->G) && same_set(&a->F, &b->F) && same_set(&a->T, &b->T) &&
           same_set(&a->S, &b->S);
}

/* What is pending at the head of a for loop's body (region r): what is pending before the
 * loop and what an iteration leaves pending at its end, found by running the body (placing
 * nothing) from that state until it no longer grows. The end's accesses count as whole
 * buffers: a stage's index is a value of the iteration that made it. Tighter than every
 * access of the body (touched): what the body itself orders before its end (copies waited
 * for and a barrier passed, a wgmma retired) is not pending at the next head. False if it
 * does not settle in a few rounds (then touched's state is used). */
static bool loop_entry(Ctx *c, RegionId r, const State *before, State *entry) {
    bool dry = c->dry;
    *entry = *before;
    c->dry = true;
    for (int round = 0; round < 8; round++) {
        State end = *entry;
        place(c, r, &end);
        whole_set(&end.R), whole_set(&end.W), whole_set(&end.A);
        whole_set(&end.G), whole_set(&end.F), whole_set(&end.T), whole_set(&end.S);
        State next = *before;
        merge_state(&next, &end);
        if (same_state(&next, entry)) {
            c->dry = dry;
            return true;
        }
        *entry = next;
    }
    c->dry = dry;
    return false;
}

static void visit_control(Ctx *c, OpId id, State *s) {
    IrFunc *f = c->f;
    const IrOp *op = &f->ops[id];
    if (op->code == OP_WARP_SPECIALIZE) {
        /* the producer warps meet the consumers only through mbarriers: a stage's copy
         * completes on its full one, which the consumers wait for, and is issued after
         * the consumers' arrivals on its empty one. The producer's region gets nothing;
         * the consumers' is placed as the kernel's rest, its barriers theirs alone. */
        place(c, op->region[1], s);
        return;
    }
    if (op->code == OP_IF) {
        State a = *s, b = *s;
        place(c, op->region[0], &a);
        place(c, f->ops[id].region[1], &b);
        merge_state(&a, &b);
        *s = a;
        return;
    }
    /* for, while: what the previous iteration may leave pending too */
    State body = *s;
    if (!(op->code == OP_FOR && loop_entry(c, op->region[0], s, &body))) {
        ages_unknown(&body.A); /* copies in flight before: older in a later iteration */
        for (int k = 0; k < op->nregions; k++) touched(c, op->region[k], &body);
    }
    State after = body;
    for (int k = 0; k < f->ops[id].nregions; k++) {
        State in = body;
        place(c, f->ops[id].region[k], &in);
        merge_state(&after, &in);
    }
    *s = after;
}

/* Does region r (or one nested in it) hold a wgmma? */
static bool has_wgmma(Ctx *c, RegionId r) {
    const IrFunc *f = c->f;
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        const IrOp *op = &f->ops[f->regions[r].ops[i]];
        if (is_wgmma(f, op)) return true;
        for (int k = 0; k < op->nregions; k++)
            if (has_wgmma(c, op->region[k])) return true;
    }
    return false;
}

static void place(Ctx *c, RegionId r, State *s) {
    IrFunc *f = c->f;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    Out out = {0};
    for (uint32_t i = 0; i < n; i++) {
        OpId id = ops[i];
        bool loop = f->ops[id].code == OP_FOR || f->ops[id].code == OP_WHILE;
        bool wg = false;
        for (int k = 0; loop && (s->G.n || s->G.all) && k < f->ops[id].nregions; k++)
            wg |= has_wgmma(c, f->ops[id].region[k]);
        if (wg) { /* writes before a loop that wgmma reads in it (attention's q): fenced once,
                     before it */
            Loc loc = f->ops[id].loc;
            emit(c, &out, OP_FENCE_ASYNC, loc, r);
            clear(&s->G);
            barrier(c, &out, s, loc, r);
        }
        visit(c, &out, id, s, r);
        if (f->ops[id].nregions) visit_control(c, id, s);
        VEC_PUSH(f->mod->arena, out.v, out.n, out.cap, id);
    }
    if (!c->dry) ir_region_set_ops(f, r, out.v, out.n);
    free(ops);
}

static void roots(Ctx *c, RegionId r) {
    IrFunc *f = c->f;
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        const IrOp *op = &f->ops[f->regions[r].ops[i]];
        if (op->code == OP_LOCAL_ALLOC) c->root[op->results[0]] = f->regions[r].ops[i];
        if (op->code == OP_LOCAL_VIEW ||
            (op->code == OP_TRANS && ir_type(f, op->operands[0]).dt == DT_SMEM))
            c->root[op->results[0]] = c->root[op->operands[0]];
        for (int k = 0; k < op->nregions; k++) roots(c, op->region[k]);
    }
}

void gpu_insert_barriers(IrFunc *f) {
    Ctx c = {f, arena_alloc(f->mod->arena, sizeof(OpId) * (f->nvals + 1)), false};
    roots(&c, f->body);
    State s;
    memset(&s, 0, sizeof s);
    place(&c, f->body, &s);
}
