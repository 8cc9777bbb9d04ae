/* cse.c - common-subexpression elimination of pure ops, scoped by regions.
 *
 * requires:  a verified module.
 * maintains: verification; an op is only replaced by an equivalent op that dominates it
 *            (earlier in the same region or in an enclosing one), never by one in a
 *            sibling region.
 * breaks:    nothing; removed ops' entries stay in the tables, unreachable.
 *
 * Equivalent: same opcode, operands (either order for commutative ops), attributes
 * (floats bit for bit), result types and, in GPU-stage IR, result layouts (the same
 * block in two layouts is two values). Loads are not pure (a store may intervene) and
 * ops with regions are never merged.
 *
 * The table is a chained hash table whose chains are pushed at the head; entries made
 * inside a region are the newest, so leaving the region pops them off the heads again. */
#include "passes.h"
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

typedef struct Entry {
    OpId op;
    uint32_t hash;
    uint32_t next; /* index + 1 of the next entry in the chain, 0 at the end */
} Entry;

typedef struct Cse {
    IrFunc *f;
    ValId *repl;
    uint32_t *heads; /* per bucket: index + 1 of the newest entry */
    uint32_t mask;
    Entry *ents;
    uint32_t nents, capents;
} Cse;

static bool mergeable(const IrOp *op) {
    return (ir_op_info[op->code].flags & F_PURE) && op->nregions == 0 && op->nres > 0;
}

/* Operand i, with the two operands of a commutative op in a fixed order. */
static ValId operand(const IrOp *op, uint32_t i) {
    if ((ir_op_info[op->code].flags & F_COMM) && op->nopnds == 2) {
        ValId a = op->operands[0], b = op->operands[1];
        return (i == 0) == (a < b) ? a : b;
    }
    return op->operands[i];
}

static uint32_t mix(uint32_t h, uint64_t v) {
    uint64_t x = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(x ^ (x >> 29));
}

static uint32_t hash_op(const IrFunc *f, const IrOp *op) {
    uint32_t h = mix(op->code, op->nopnds);
    for (uint32_t i = 0; i < op->nopnds; i++) h = mix(h, operand(op, i));
    for (int i = 0; i < IR_OP_NATTR; i++) h = mix(h, (uint64_t)op->attr[i]);
    uint64_t fb;
    memcpy(&fb, &op->fattr, sizeof fb);
    h = mix(h, fb);
    for (const char *s = op->sattr; s && *s; s++) h = mix(h, (unsigned char)*s);
    for (uint32_t i = 0; i < op->nres; i++) {
        IrType t = ir_type(f, op->results[i]);
        h = mix(h, (uint64_t)t.dt << 8 | t.pointee);
        for (int d = 0; d < t.rank; d++) h = mix(h, (uint64_t)t.shape[d]);
    }
    return h;
}

static bool same_op(const IrFunc *f, const IrOp *a, const IrOp *b) {
    if (a->code != b->code || a->nopnds != b->nopnds || a->nres != b->nres) return false;
    if (memcmp(a->attr, b->attr, sizeof a->attr) || memcmp(&a->fattr, &b->fattr, sizeof a->fattr))
        return false;
    if (strcmp(a->sattr ? a->sattr : "", b->sattr ? b->sattr : "")) return false;
    for (uint32_t i = 0; i < a->nopnds; i++)
        if (operand(a, i) != operand(b, i)) return false;
    for (uint32_t i = 0; i < a->nres; i++)
        if (!ty_equal(ir_type(f, a->results[i]), ir_type(f, b->results[i])) ||
            f->vals[a->results[i]].layout != f->vals[b->results[i]].layout)
            return false;
    return true;
}

/* The equivalent op in scope, or pushes this one and returns 0. */
static OpId find_or_add(Cse *C, OpId id) {
    const IrOp *op = ir_op(C->f, id);
    uint32_t h = hash_op(C->f, op);
    for (uint32_t e = C->heads[h & C->mask]; e; e = C->ents[e - 1].next)
        if (C->ents[e - 1].hash == h && same_op(C->f, ir_op(C->f, C->ents[e - 1].op), op))
            return C->ents[e - 1].op;
    if (C->nents == C->capents) {
        C->capents = C->capents ? 2 * C->capents : 64;
        C->ents = realloc(C->ents, sizeof(Entry) * C->capents);
        if (!C->ents) NR_DIE("out of memory");
    }
    C->ents[C->nents++] = (Entry){id, h, C->heads[h & C->mask]};
    C->heads[h & C->mask] = C->nents;
    return 0;
}

static void pop_to(Cse *C, uint32_t mark) {
    while (C->nents > mark) {
        Entry *e = &C->ents[--C->nents];
        C->heads[e->hash & C->mask] = e->next;
    }
}

static void cse_region(Cse *C, RegionId r) {
    IrFunc *f = C->f;
    uint32_t n, mark = C->nents;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    OpVec out = {0};
    for (uint32_t i = 0; i < n; i++) {
        OpId id = ops[i], same;
        ir_op_remap(f, id, C->repl);
        if (mergeable(ir_op(f, id)) && (same = find_or_add(C, id))) {
            for (uint32_t j = 0; j < ir_op(f, id)->nres; j++)
                C->repl[ir_op(f, id)->results[j]] = ir_op(f, same)->results[j];
            continue;
        }
        opvec_push(&out, id);
        for (uint32_t j = 0; j < ir_op(f, id)->nregions; j++)
            cse_region(C, ir_op(f, id)->region[j]);
    }
    ir_region_set_ops(f, r, out.v, out.n);
    opvec_free(&out);
    free(ops);
    pop_to(C, mark);
}

static void cse_func(IrFunc *f) {
    Cse C;
    memset(&C, 0, sizeof C);
    C.f = f;
    C.repl = ir_repl_new(f);
    uint32_t nb = 16;
    while (nb < 2 * f->nops) nb *= 2;
    C.heads = calloc(nb, sizeof *C.heads);
    if (!C.heads) NR_DIE("out of memory");
    C.mask = nb - 1;
    cse_region(&C, f->body);
    free(C.heads);
    free(C.ents);
    free(C.repl);
}

void pass_cse(IrModule *m) {
    for (uint32_t i = 0; i < m->nfuncs; i++) cse_func(m->funcs[i]);
}
