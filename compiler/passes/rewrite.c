/* rewrite.c - editing helpers shared by the passes (see rewrite.h): one way to replace
 * values and to rebuild op lists, so no pass grows its own copy. */
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) NR_DIE("out of memory");
    return p;
}

void opvec_push(OpVec *l, OpId op) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = xrealloc(l->v, sizeof(OpId) * l->cap);
    }
    l->v[l->n++] = op;
}

ValId opvec_emit(OpVec *l, IrFunc *f, int code, Loc loc, const ValId *opnds, uint32_t n,
                 IrType ty) {
    OpId op = ir_op_new(f, code, loc, opnds, n, &ty, 1);
    opvec_push(l, op);
    return ir_result(f, op, 0);
}

void opvec_free(OpVec *l) {
    free(l->v);
    memset(l, 0, sizeof *l);
}

ValId *ir_repl_new(const IrFunc *f) {
    ValId *m = calloc(f->nvals ? f->nvals : 1, sizeof(ValId));
    if (!m) NR_DIE("out of memory");
    return m;
}

/* Chains arise when a replacement is itself replaced later; a cycle would be a pass bug,
 * so the walk is bounded by the number of values. */
ValId ir_repl_resolve(const IrFunc *f, const ValId *repl, ValId v) {
    for (uint32_t steps = 0; v < f->nvals && repl[v] && steps < f->nvals; steps++) v = repl[v];
    return v;
}

void ir_op_remap(IrFunc *f, OpId op, const ValId *repl) {
    IrOp *o = ir_op(f, op);
    for (uint32_t i = 0; i < o->nopnds; i++)
        o->operands[i] = ir_repl_resolve(f, repl, o->operands[i]);
}

static void remap_region(IrFunc *f, RegionId r, const ValId *repl) {
    for (uint32_t i = 0; i < ir_region(f, r)->nops; i++) {
        OpId op = ir_region(f, r)->ops[i];
        ir_op_remap(f, op, repl);
        for (uint32_t j = 0; j < ir_op(f, op)->nregions; j++)
            remap_region(f, ir_op(f, op)->region[j], repl);
    }
}

void ir_replace_all_uses(IrFunc *f, const ValId *repl) { remap_region(f, f->body, repl); }

void ir_replace_pairs(IrFunc *f, OpVec *pairs) {
    if (pairs->n) {
        ValId *repl = ir_repl_new(f);
        for (uint32_t i = 0; i < pairs->n; i += 2) repl[pairs->v[i]] = pairs->v[i + 1];
        ir_replace_all_uses(f, repl);
        free(repl);
    }
    opvec_free(pairs);
}

void ir_region_set_ops(IrFunc *f, RegionId r, const OpId *ops, uint32_t n) {
    IrRegion *reg = ir_region(f, r);
    if (n > reg->capops) {
        reg->ops = arena_alloc(f->mod->arena, sizeof(OpId) * n);
        reg->capops = n;
    }
    if (n) memmove(reg->ops, ops, sizeof(OpId) * n);
    reg->nops = n;
    for (uint32_t i = 0; i < n; i++) ir_op(f, ops[i])->parent = r;
}

OpId *ir_region_copy_ops(IrFunc *f, RegionId r, uint32_t *n) {
    IrRegion *reg = ir_region(f, r);
    OpId *copy = xrealloc(NULL, sizeof(OpId) * reg->nops);
    if (reg->nops) memcpy(copy, reg->ops, sizeof(OpId) * reg->nops);
    *n = reg->nops;
    return copy;
}

static void count_region(IrFunc *f, RegionId r, uint32_t *uses) {
    for (uint32_t i = 0; i < ir_region(f, r)->nops; i++) {
        IrOp *op = ir_op(f, ir_region(f, r)->ops[i]);
        for (uint32_t j = 0; j < op->nopnds; j++) uses[op->operands[j]]++;
        for (uint32_t j = 0; j < op->nregions; j++) count_region(f, op->region[j], uses);
    }
}

bool ir_defined_in(const IrFunc *f, ValId v, RegionId r) {
    RegionId at = f->vals[v].is_arg ? f->vals[v].def : f->ops[f->vals[v].def].parent;
    for (int depth = 0; at && depth < 256; depth++) {
        if (at == r) return true;
        OpId p = f->regions[at].parent_op;
        if (!p) return false;
        at = f->ops[p].parent;
    }
    return false;
}

uint32_t *ir_count_uses(IrFunc *f) {
    uint32_t *uses = calloc(f->nvals ? f->nvals : 1, sizeof(uint32_t));
    if (!uses) NR_DIE("out of memory");
    count_region(f, f->body, uses);
    return uses;
}

const IrOp *ir_const_def(const IrFunc *f, ValId v) {
    OpId d = ir_def(f, v);
    return d && f->ops[d].code == OP_CONST ? &f->ops[d] : NULL;
}

int ir_writes_global(const IrFunc *f, OpId id) {
    const IrOp *op = &f->ops[id];
    if (op->code == OP_DESC_STORE || op->code == OP_TMA_STORE) return 2;
    int w = op->code == OP_STORE || op->code == OP_ATOMIC_RMW || op->code == OP_ATOMIC_CAS ||
            op->code == OP_CALL || (op->code == OP_INLINE_ASM && !op->attr[0]);
    for (int k = 0; k < op->nregions && w < 2; k++) {
        const IrRegion *r = &f->regions[op->region[k]];
        for (uint32_t i = 0; i < r->nops && w < 2; i++) {
            int x = ir_writes_global(f, r->ops[i]);
            if (x > w) w = x;
        }
    }
    return w;
}
