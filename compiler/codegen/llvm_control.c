/* llvm_control.c - structured control flow to LLVM basic blocks: a for becomes a header
 * with one phi per register of the induction variable and each carried value, an if a
 * diamond with phis for its results, a while a header (its region 0) with phis and a
 * body (region 1). Yields feed the phis from wherever their region ended. */
#include "gen_internal.h"

static int nregs(Gen *g, ValId v) { return gen_nregs(g, v); }

/* phis for values vals (types of), bound to targets (region args or results) */
static LLVMValueRef **make_phis(Gen *g, const ValId *targets, uint32_t n) {
    LLVMValueRef **phis = arena_alloc(g->m->arena, sizeof(LLVMValueRef *) * (n ? n : 1));
    for (uint32_t i = 0; i < n; i++) {
        int k = nregs(g, targets[i]);
        phis[i] = gen_alloc_regs(g, k);
        LLVMTypeRef ty = gen_type(g, ir_type(g->f, targets[i]).dt);
        /* registers that hold equal values (a loop's carried value: llvm_uniform.c) share
         * the phi of the register without those bits */
        uint32_t same = gen_uniform_bits(g, targets[i]);
        for (int j = 0; j < k; j++)
            phis[i][j] = j & (int)same ? phis[i][j & ~(int)same] : LLVMBuildPhi(g->B, ty, "");
        gen_set(g, targets[i], phis[i], k);
    }
    return phis;
}

static void add_incoming(Gen *g, LLVMValueRef **phis, const ValId *from, uint32_t n,
                         LLVMBasicBlockRef bb) {
    for (uint32_t i = 0; i < n; i++) {
        int k;
        LLVMValueRef *v = gen_vals(g, from[i], &k);
        for (int j = 0; j < k; j++) {
            bool shared = false; /* a phi shared by equal registers gets one incoming */
            for (int q = 0; q < j && !shared; q++) shared = phis[i][q] == phis[i][j];
            if (!shared) LLVMAddIncoming(phis[i][j], &v[j], &bb, 1);
        }
    }
}

static const IrOp *terminator(Gen *g, RegionId r) {
    IrRegion *reg = &g->f->regions[r];
    return &g->f->ops[reg->ops[reg->nops - 1]];
}

static void gen_for(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    RegionId body = op->region[0];
    IrRegion *reg = &g->f->regions[body];
    uint32_t nc = op->nopnds - 3;
    LLVMValueRef lb = gen_vals(g, op->operands[0], NULL)[0],
                 ub = gen_vals(g, op->operands[1], NULL)[0];
    LLVMValueRef step = gen_vals(g, op->operands[2], NULL)[0];
    bool sgn = dt_is_signed(ir_type(g->f, op->operands[0]).dt);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->B);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(g->C, g->fn, "for.head");
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(g->C, g->fn, "for.body");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(g->C, g->fn, "for.exit");
    LLVMBuildBr(g->B, head);
    LLVMPositionBuilderAtEnd(g->B, head);
    LLVMValueRef **phis = make_phis(g, reg->args, reg->nargs);
    LLVMValueRef ivphi = phis[0][0];
    LLVMAddIncoming(ivphi, &lb, &pre, 1);
    add_incoming(g, phis + 1, op->operands + 3, nc, pre);
    LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(step));
    LLVMValueRef pos = LLVMBuildICmp(g->B, sgn ? LLVMIntSGT : LLVMIntUGT, step, zero, "");
    LLVMValueRef up = LLVMBuildICmp(g->B, sgn ? LLVMIntSLT : LLVMIntULT, ivphi, ub, "");
    LLVMValueRef down = LLVMBuildICmp(g->B, sgn ? LLVMIntSGT : LLVMIntUGT, ivphi, ub, "");
    LLVMValueRef neg = LLVMBuildICmp(g->B, sgn ? LLVMIntSLT : LLVMIntULT, step, zero, "");
    LLVMValueRef go = LLVMBuildSelect(g->B, pos, up, LLVMBuildAnd(g->B, neg, down, ""), "");
    LLVMBuildCondBr(g->B, go, bb, exit);
    LLVMPositionBuilderAtEnd(g->B, bb);
    gen_region(g, body);
    const IrOp *y = terminator(g, body);
    LLVMValueRef next = LLVMBuildAdd(g->B, ivphi, step, "");
    LLVMBasicBlockRef end = LLVMGetInsertBlock(g->B);
    LLVMAddIncoming(ivphi, &next, &end, 1);
    add_incoming(g, phis + 1, y->operands, y->nopnds, end);
    LLVMBuildBr(g->B, head);
    LLVMPositionBuilderAtEnd(g->B, exit);
    for (uint32_t i = 0; i < op->nres; i++)
        gen_set(g, op->results[i], phis[i + 1], nregs(g, op->results[i]));
}

static void gen_if(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    LLVMValueRef c = gen_vals(g, op->operands[0], NULL)[0];
    LLVMBasicBlockRef tb = LLVMAppendBasicBlockInContext(g->C, g->fn, "if.then");
    LLVMBasicBlockRef eb = LLVMAppendBasicBlockInContext(g->C, g->fn, "if.else");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->C, g->fn, "if.join");
    LLVMBuildCondBr(g->B, c, tb, eb);
    LLVMPositionBuilderAtEnd(g->B, tb);
    gen_region(g, op->region[0]);
    LLVMBasicBlockRef tend = LLVMGetInsertBlock(g->B);
    LLVMBuildBr(g->B, join);
    LLVMPositionBuilderAtEnd(g->B, eb);
    gen_region(g, g->f->ops[id].region[1]);
    LLVMBasicBlockRef eend = LLVMGetInsertBlock(g->B);
    LLVMBuildBr(g->B, join);
    LLVMPositionBuilderAtEnd(g->B, join);
    op = &g->f->ops[id];
    LLVMValueRef **phis = make_phis(g, op->results, op->nres);
    const IrOp *yt = terminator(g, op->region[0]), *ye = terminator(g, op->region[1]);
    add_incoming(g, phis, yt->operands, yt->nopnds, tend);
    add_incoming(g, phis, ye->operands, ye->nopnds, eend);
}

static void gen_while(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    RegionId r0 = op->region[0], r1 = op->region[1];
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->B);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(g->C, g->fn, "while.head");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(g->C, g->fn, "while.body");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(g->C, g->fn, "while.exit");
    LLVMBuildBr(g->B, head);
    LLVMPositionBuilderAtEnd(g->B, head);
    IrRegion *before = &g->f->regions[r0];
    LLVMValueRef **phis = make_phis(g, before->args, before->nargs);
    add_incoming(g, phis, op->operands, op->nopnds, pre);
    gen_region(g, r0);
    const IrOp *cond = terminator(g, r0);
    LLVMValueRef c = gen_vals(g, cond->operands[0], NULL)[0];
    LLVMBuildCondBr(g->B, c, body, exit);
    LLVMPositionBuilderAtEnd(g->B, body);
    IrRegion *after = &g->f->regions[r1];
    for (uint32_t i = 0; i < after->nargs; i++) {
        int k;
        LLVMValueRef *v = gen_vals(g, before->args[i], &k);
        gen_set(g, after->args[i], v, k);
    }
    gen_region(g, r1);
    const IrOp *y = terminator(g, r1);
    LLVMBasicBlockRef end = LLVMGetInsertBlock(g->B);
    add_incoming(g, phis, y->operands, y->nopnds, end);
    LLVMBuildBr(g->B, head);
    LLVMPositionBuilderAtEnd(g->B, exit);
    for (uint32_t i = 0; i < op->nres; i++) {
        int k;
        LLVMValueRef *v = gen_vals(g, before->args[i], &k);
        gen_set(g, op->results[i], v, k);
    }
}

/* warp_specialize: threads below 32 * num_warps run the consumer region, their barriers
 * named barrier 1 of their count; the first producer warp the producer region, whose
 * leader (its first thread) issues the copies. Each side first sets its register count where asked
 * and the kernel's entry count gives what they ask (setmaxnreg: every warp of a warpgroup executes
 * it). */
void gen_warp_specialize(Gen *g, OpId id) {
    const IrOp *op = &g->f->ops[id];
    int consumers = 32 * g->num_warps, preg = (int)op->attr[1], creg = (int)op->attr[2];
    /* the registers the two sides ask for must be there: a kernel limited below its even
     * share (a launch's maxnreg) keeps its count on both sides (an inc beyond the pool
     * would wait forever) */
    if (!g->entry_regs || preg * 128 + creg * consumers > g->entry_regs * (consumers + 128))
        preg = creg = 0;
    RegionId pr = op->region[0], cr = op->region[1];
    LLVMBasicBlockRef cb = LLVMAppendBasicBlockInContext(g->C, g->fn, "ws.consumers");
    LLVMBasicBlockRef pb = LLVMAppendBasicBlockInContext(g->C, g->fn, "ws.producer");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->C, g->fn, "ws.join");
    LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntULT, g->tid, gen_i32(g, consumers), ""), cb,
                    pb);
    char text[64];
    LLVMPositionBuilderAtEnd(g->B, pb);
    if (preg) {
        snprintf(text, sizeof text, "setmaxnreg.dec.sync.aligned.u32 %d;", preg);
        gen_asm(g, text, "~{memory}", g->vd, NULL, 0, true);
    }
    /* one warp runs the producer's loop; the others leave at once, so that one warp, not
     * four, spins in mbarrier waits beside the consumers */
    LLVMBasicBlockRef pw = LLVMAppendBasicBlockInContext(g->C, g->fn, "ws.producer.warp");
    LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntULT, g->tid, gen_i32(g, consumers + 32), ""),
                    pw, join);
    LLVMPositionBuilderAtEnd(g->B, pw);
    g->leader_tid = consumers, g->in_producer = true;
    gen_region(g, pr);
    g->leader_tid = 0, g->in_producer = false;
    LLVMBuildBr(g->B, join);
    LLVMPositionBuilderAtEnd(g->B, cb);
    if (creg) {
        snprintf(text, sizeof text, "setmaxnreg.inc.sync.aligned.u32 %d;", creg);
        gen_asm(g, text, "~{memory}", g->vd, NULL, 0, true);
    }
    g->barrier_threads = consumers;
    gen_region(g, cr);
    g->barrier_threads = 0;
    LLVMBuildBr(g->B, join);
    LLVMPositionBuilderAtEnd(g->B, join);
}

void gen_control(Gen *g, OpId id) {
    switch (g->f->ops[id].code) {
    case OP_FOR: gen_for(g, id); return;
    case OP_IF: gen_if(g, id); return;
    default: gen_while(g, id); return;
    }
}
