/* llvm_uniform.c - register-level value numbering: for every block value, the register
 * bits of its layout across which its registers hold equal values, found on the IR before
 * any LLVM IR is made, so that each such register is computed (and carried around a loop)
 * once and the others reuse it.
 *
 * Equal registers come from: a constant or a splat (every register); an integer or
 * boolean result the alignment analysis proves constant along a register bit (a bit whose
 * basis is coordinate bit k of a dim d along which equal values run in aligned blocks
 * longer than 2^k: `xindex < xnumel` with 4 consecutive x a thread and xnumel a multiple
 * of 4), whatever op made it (a broadcast too); a pure elementwise op (not inline asm)
 * whose block operands, in its own layout,
 * are equal across the bit. An if's result keeps the bits both branches' values have; a
 * loop-carried value the bits its initial value and the value yielded for it both have (a
 * fixed point, from the initial value's bits down). So in Inductor's Welford reductions a
 * thread's 4 weights, selected by one mask from equal values, are one loop-carried chain,
 * their divisions share one divisor, and the reduction moves them once (gen_partner),
 * as in Triton's code. Everything else: no bits. */
#include <string.h>

#include "gen_internal.h"

static bool is_block(Gen *g, ValId v) { return v && ty_is_block(ir_type(g->f, v)); }

static uint32_t all_bits(Gen *g, ValId v) {
    return (uint32_t)((1u << gen_layout(g, v)->ll.nbits[LL_REG]) - 1);
}

/* the register bits along which the alignment analysis proves r constant */
static uint32_t constant_bits(Gen *g, ValId r) {
    IrType t = ir_type(g->f, r);
    if (!g->info || dt_is_float(t.dt)) return 0;
    const AxisInfo *ai = &g->info[r];
    if (ai->rank != t.rank) return 0;
    const LinearLayout *l = &gen_layout(g, r)->ll;
    uint32_t m = 0;
    for (int i = 0; i < l->nbits[LL_REG]; i++) {
        uint32_t b = l->basis[LL_REG][i];
        if (!b || (b & (b - 1))) continue;
        for (int d = 0; d < t.rank; d++) {
            int k = __builtin_ctz(b) - ll_dim_shift(l, d);
            if (k >= 0 && k < l->log2shape[d] && ai->constancy[d] > ((int64_t)1 << k)) m |= 1u << i;
        }
    }
    return m;
}

static void analyze_region(Gen *g, RegionId r);

static void analyze_for(Gen *g, const IrOp *op) {
    IrRegion *reg = &g->f->regions[op->region[0]];
    uint32_t nc = op->nopnds - 3;
    for (uint32_t i = 0; i < nc && i + 1 < reg->nargs; i++) {
        ValId a = reg->args[i + 1];
        g->ubits[a] = is_block(g, a) ? g->ubits[op->operands[3 + i]] : 0;
    }
    /* from the initial values' bits down: each round can only clear bits, at most 32 */
    for (int round = 0; round < 34; round++) {
        analyze_region(g, op->region[0]);
        IrRegion *body = &g->f->regions[op->region[0]];
        const IrOp *y = &g->f->ops[body->ops[body->nops - 1]];
        bool changed = false;
        for (uint32_t i = 0; i < nc && i + 1 < reg->nargs && i < y->nopnds; i++) {
            ValId a = reg->args[i + 1];
            uint32_t u = g->ubits[a] & g->ubits[y->operands[i]];
            if (u != g->ubits[a]) g->ubits[a] = u, changed = true;
        }
        if (!changed) break;
        if (round == 33)
            gen_error(g, op->loc, "internal error: register uniformity did not settle");
    }
    for (uint32_t i = 0; i < op->nres && i + 1 < reg->nargs; i++)
        g->ubits[op->results[i]] = g->ubits[reg->args[i + 1]];
}

static void analyze_op(Gen *g, const IrOp *op) {
    ValId r = op->nres ? op->results[0] : 0;
    switch (op->code) {
    case OP_CONST:
    case OP_SPLAT:
        if (is_block(g, r)) g->ubits[r] = all_bits(g, r);
        return;
    case OP_FOR: analyze_for(g, op); return;
    case OP_IF: { /* a result: the bits both branches' yielded values have */
        analyze_region(g, op->region[0]);
        analyze_region(g, op->region[1]);
        const IrRegion *t = &g->f->regions[op->region[0]], *e = &g->f->regions[op->region[1]];
        const IrOp *yt = t->nops ? &g->f->ops[t->ops[t->nops - 1]] : NULL;
        const IrOp *ye = e->nops ? &g->f->ops[e->ops[e->nops - 1]] : NULL;
        for (uint32_t i = 0; i < op->nres; i++)
            if (is_block(g, op->results[i]) && yt && ye && i < yt->nopnds && i < ye->nopnds)
                g->ubits[op->results[i]] = g->ubits[yt->operands[i]] & g->ubits[ye->operands[i]];
        return;
    }
    case OP_INLINE_ASM: return; /* may not be pure */
    default: break;
    }
    for (int k = 0; k < op->nregions; k++) analyze_region(g, op->region[k]);
    if (op->nres != 1 || !is_block(g, r)) return;
    if (!(ir_op_info[op->code].flags & F_ELEM)) { /* a broadcast, a reshape, a load, ...: */
        /* an integer or boolean result the alignment analysis proves constant (Inductor's
         * r0_mask, a [1, R] comparison broadcast over the x a thread holds) */
        g->ubits[r] = constant_bits(g, r) & ~gen_layout(g, r)->reg_copies;
        return;
    }
    uint32_t m = all_bits(g, r);
    for (uint32_t k = 0; k < op->nopnds; k++) {
        ValId v = op->operands[k];
        if (!is_block(g, v)) continue; /* a scalar is the same in every register */
        if (g->f->vals[v].layout != g->f->vals[r].layout) return;
        m &= g->ubits[v];
    }
    g->ubits[r] = (m | constant_bits(g, r)) & ~gen_layout(g, r)->reg_copies;
}

static void analyze_region(Gen *g, RegionId r) {
    IrRegion *reg = &g->f->regions[r];
    for (uint32_t i = 0; i < reg->nops; i++) analyze_op(g, &g->f->ops[reg->ops[i]]);
}

void gen_uniform_analyze(Gen *g) {
    g->ubits = arena_alloc(g->m->arena, sizeof(uint32_t) * (g->f->nvals ? g->f->nvals : 1));
    memset(g->ubits, 0, sizeof(uint32_t) * (g->f->nvals ? g->f->nvals : 1));
    analyze_region(g, g->f->body);
}

uint32_t gen_uniform_bits(Gen *g, ValId v) { return g->ubits && v < g->f->nvals ? g->ubits[v] : 0; }
