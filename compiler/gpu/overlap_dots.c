/* overlap_dots.c - a synchronous wgmma runs under the independent work that follows it
 * (sm_90a): dot -> dot_async, the ops after it that do not need its result moved between
 * it and a dot_wait {pending = 0, keep = 1} that its first reader now follows.
 *
 * Requires:  layouts assigned, dot operands lowered and the pipeline run (its own
 *            dot_asyncs and waits placed); before lower-tma, alloc-shared and
 *            insert-barriers (which see the dot_async's buffers as read until the wait).
 * Maintains: verification; the program's meaning: the moved ops are pure, hold no region,
 *            need no shared-memory scratch (analysis/layout_moves.h) and read only values
 *            defined before the dot or by other moved ops, so each computes what it did;
 *            the dot's readers read the wait's result, the same block.
 * Breaks:    nothing.
 *
 * Why: attention with dropout draws its keep mask (Philox: integer multiplies and xors,
 * compares, joins) in the same loop iteration as the q k^T product it masks, and nothing
 * of the mask needs the product. Written after the dot, the integer work waits for the
 * tensor cores; moved between the wgmma's issue and its wait it runs while they do.
 * keep = 1 tells the code generator to leave the wait where it is (it otherwise moves
 * each wait up past the pure instructions before it, for ptxas; llvm_mma.c).
 *
 * Chosen when: a dot in any region whose result has a wgmma layout (mma v3) and whose A
 * and B are both buffers (a register A could be reused by LLVM while the wgmma still
 * reads it), in a region holding no dot_async of the pipeline's (its waits count groups),
 * with at least MIN_MOVED ops to move that are not constants. */
#include <stdlib.h>
#include <string.h>

#include "compiler/analysis/layout_moves.h"
#include "compiler/passes/rewrite.h"
#include "gpu_passes.h"

enum { MIN_MOVED = 16 };

static bool candidate(const IrFunc *f, const IrOp *op) {
    if (op->code != OP_DOT || op->nres != 1) return false;
    const IrLayout *l = &f->mod->layouts[f->vals[op->results[0]].layout];
    return l->kind == LAYOUT_MMA && l->version == 3 && ir_type(f, op->operands[0]).dt == DT_SMEM &&
           ir_type(f, op->operands[1]).dt == DT_SMEM;
}

static bool movable(const IrFunc *f, OpId id) {
    const IrOp *op = &f->ops[id];
    if (!(ir_op_info[op->code].flags & F_PURE) || op->nregions || op->code == OP_DOT) return false;
    return moves_scratch_bytes(f, id) == 0;
}

/* Overlaps the dot at ops[k] of region r (n ops) if enough can move: r's op list rebuilt,
 * the new index of the dot's wait returned (0: nothing moved, r as it was). */
static uint32_t overlap_one(IrFunc *f, RegionId r, OpId *ops, uint32_t n, uint32_t k) {
    uint8_t *moved = calloc(n, 1);
    uint32_t *pos = calloc(f->nops + 1, sizeof(uint32_t)); /* position + 1 in r */
    if (!moved || !pos) NR_DIE("out of memory");
    for (uint32_t j = 0; j < n; j++) pos[ops[j]] = j + 1;
    uint32_t count = 0;
    for (uint32_t j = k + 1; j < n; j++) {
        OpId id = ops[j];
        if (ir_op_info[f->ops[id].code].flags & F_TERM || !movable(f, id)) continue;
        bool ok = true;
        for (uint32_t i = 0; i < f->ops[id].nopnds && ok; i++) {
            OpId d = ir_def(f, f->ops[id].operands[i]);
            uint32_t p = d ? pos[d] : 0; /* 0: an argument, or defined outside r */
            ok = !p || p - 1 < k || moved[p - 1];
        }
        if (!ok) continue;
        moved[j] = 1;
        count += f->ops[id].code != OP_CONST;
    }
    free(pos);
    if (count < MIN_MOVED) {
        free(moved);
        return 0;
    }
    OpId dot = ops[k];
    ValId res = f->ops[dot].results[0];
    IrType t = ir_type(f, res);
    Loc loc = f->ops[dot].loc;
    f->ops[dot].code = OP_DOT_ASYNC;
    OpId w = ir_op_new(f, OP_DOT_WAIT, loc, &res, 1, &t, 1);
    f->ops[w].attr[0] = 0;
    f->ops[w].attr[1] = 1;
    ValId wr = f->ops[w].results[0];
    f->vals[wr].layout = f->vals[res].layout;
    OpVec out = {0};
    for (uint32_t j = 0; j <= k; j++) opvec_push(&out, ops[j]);
    for (uint32_t j = k + 1; j < n; j++)
        if (moved[j]) opvec_push(&out, ops[j]);
    uint32_t at = out.n;
    opvec_push(&out, w);
    for (uint32_t j = k + 1; j < n; j++)
        if (!moved[j]) opvec_push(&out, ops[j]);
    ir_region_set_ops(f, r, out.v, out.n);
    opvec_free(&out);
    free(moved);
    ValId *repl = ir_repl_new(f);
    repl[res] = wr;
    ir_replace_all_uses(f, repl);
    free(repl);
    f->ops[w].operands[0] = res;
    return at;
}

static void overlap_region(IrFunc *f, RegionId r) {
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    for (uint32_t k = 0; k < n; k++) { /* f->ops may move as nested regions grow it */
        int nr = f->ops[ops[k]].nregions;
        RegionId sub[2] = {f->ops[ops[k]].region[0], f->ops[ops[k]].region[1]};
        for (int i = 0; i < nr; i++) overlap_region(f, sub[i]);
    }
    for (uint32_t k = 0; k < n; k++)
        if (f->ops[ops[k]].code == OP_DOT_ASYNC || f->ops[ops[k]].code == OP_DOT_WAIT) {
            free(ops);
            return;
        }
    for (uint32_t k = 0; k < n; k++) {
        if (!candidate(f, &f->ops[ops[k]])) continue;
        uint32_t at = overlap_one(f, r, ops, n, k);
        if (!at) continue;
        free(ops);
        ops = ir_region_copy_ops(f, r, &n);
        k = at; /* on with the ops after the wait */
    }
    free(ops);
}

void gpu_overlap_dots(IrFunc *f) { overlap_region(f, f->body); }
