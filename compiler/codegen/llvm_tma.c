/* llvm_tma.c - tensor descriptors on the GPU: descriptor parameters (byval structs, the
 * TMA ones grid constants whose tensor map the copies read in place), desc_part, the
 * mbarrier ops and the TMA copies (PTX inline assembly, as Triton and CUTLASS emit them).
 *
 * A descriptor parameter is `.param .align A .b8 p[N]` (compiler/target/tma.h lays it out);
 * desc_part loads its parts from the parameter space. Thread 0 of the CTA initialises,
 * arms and invalidates the mbarriers and issues the copies (one per box of the TMA plan:
 * a tile whose rows are longer than 128 bytes takes several); every thread waits. */
#include "gen_internal.h"

#include <stdio.h>

#include "compiler/target/tma.h"

/* ---- parameters ---- */

static bool gen_tdesc_is_tma(Gen *g, uint32_t param) {
    return g->target->tma_params && param < g->target->nparams && g->target->tma_params[param];
}

void gen_tdesc_param_attrs(Gen *g, uint32_t param, IrType t) {
    bool tma = gen_tdesc_is_tma(g, param);
    LLVMTypeRef blob = LLVMArrayType2(g->i8, (uint64_t)gpu_tdesc_param_bytes(t, tma));
    unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5),
             align = LLVMGetEnumAttributeKindForName("align", 5);
    LLVMAddAttributeAtIndex(g->fn, param + 1, LLVMCreateTypeAttribute(g->C, byval, blob));
    LLVMAddAttributeAtIndex(
        g->fn, param + 1,
        LLVMCreateEnumAttribute(g->C, align, (uint64_t)gpu_tdesc_param_align(tma)));
}

void gen_grid_constants(Gen *g) {
    /* the TMA descriptors are grid constants: the copies take their address (cvta.param)
     * instead of a local copy. One annotation lists them all (1-based), as NVVM reads it. */
    LLVMMetadataRef idx[64];
    unsigned n = 0;
    for (uint32_t i = 0; i < g->f->regions[g->f->body].nargs && n < 64; i++)
        if (gen_tdesc_is_tma(g, i)) idx[n++] = LLVMValueAsMetadata(LLVMConstInt(g->i32, i + 1, 0));
    if (!n) return;
    LLVMMetadataRef md[3] = {LLVMValueAsMetadata(g->fn),
                             LLVMMDStringInContext2(g->C, "grid_constant", 13),
                             LLVMMDNodeInContext2(g->C, idx, n)};
    LLVMAddNamedMetadataOperand(g->M, "nvvm.annotations",
                                LLVMMetadataAsValue(g->C, LLVMMDNodeInContext2(g->C, md, 3)));
}

static uint32_t param_index(Gen *g, ValId d) {
    if (!g->f->vals[d].is_arg || g->f->vals[d].def != g->f->body)
        gen_error(g, g->f->loc,
                  "internal error: a tensor descriptor that is not a kernel parameter");
    return g->f->vals[d].index;
}

/* Part `part` of descriptor parameter d (desc_part's numbering: 0 the base, 1 + k the size
 * of dim k, 1 + r + k its stride), as an i64 read from the parameter's bytes. */
static LLVMValueRef part_value(Gen *g, ValId d, bool tma, int part) {
    LLVMValueRef off = gen_i64(g, gpu_tdesc_part_offset(tma, part));
    LLVMValueRef at = LLVMBuildGEP2(g->B, g->i8, gen_vals(g, d, NULL)[0], &off, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(g->B, g->i64, at, "");
    LLVMSetAlignment(v, 8);
    return v;
}

static void desc_part(Gen *g, const IrOp *op) {
    ValId d = op->operands[0];
    bool tma = gen_tdesc_is_tma(g, param_index(g, d));
    LLVMValueRef v = part_value(g, d, tma, (int)op->attr[0]);
    LLVMValueRef *r = gen_alloc_regs(g, 1);
    r[0] = op->attr[0] ? v : LLVMBuildIntToPtr(g->B, v, g->ptr1, "");
    gen_set(g, op->results[0], r, 1);
}

/* ---- mbarriers and copies ---- */

static LLVMValueRef shared_addr(Gen *g, ValId buf) {
    return LLVMBuildPtrToInt(g->B, gen_vals(g, buf, NULL)[0], g->i32, "");
}

static LLVMValueRef leader(Gen *g) {
    return LLVMBuildICmp(g->B, LLVMIntEQ, g->tid, gen_i32(g, g->leader_tid), "");
}

static void wait_phase(Gen *g, const IrOp *op) {
    LLVMValueRef bar = shared_addr(g, op->operands[0]),
                 phase = gen_vals(g, op->operands[1], NULL)[0];
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(g->C, g->fn, "mbar_wait");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->fn, "mbar_done");
    LLVMBuildBr(g->B, loop);
    LLVMPositionBuilderAtEnd(g->B, loop);
    LLVMValueRef ok =
        gen_asm(g,
                "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\n\t"
                "selp.u32 $0, 1, 0, p;\n\t}",
                "=r,r,r,~{memory}", g->i32, (LLVMValueRef[]){bar, phase}, 2, true);
    LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntNE, ok, gen_i32(g, 0), ""), done, loop);
    LLVMPositionBuilderAtEnd(g->B, done);
}

/* "[$k, {c_inner, ..., c_outer}]": the map operand and the coordinates, innermost first */
static void coords_text(char *s, size_t size, int map, int first, int rank) {
    size_t n = (size_t)snprintf(s, size, "[$%d, {", map);
    for (int k = 0; k < rank && n < size; k++)
        n += (size_t)snprintf(s + n, size - n, "%s$%d", k ? ", " : "", first + k);
    if (n < size) snprintf(s + n, size - n, "}]");
}

static int log2_of(int n) {
    int k = 0;
    while (1 << k < n) k++;
    return k;
}

/* tma_store where a coordinate is negative: TMA faults on a box that starts before the
 * tensor on any dim (it clips one that ends past it), so there every thread copies its
 * share of buf's elements itself, element f (row-major) at the thread's f = tid + k x
 * threads, written where 0 <= o_k + i_k (i32, as desc_store's expansion computes it) and
 * o_k + i_k < size_k on every dim. The coordinates are scalars, so the whole CTA takes the
 * same branch; the barrier before the copy (the barrier pass's, for TMA) makes buf's
 * writes visible to the plain loads too, and a barrier after the loop ends every
 * thread's reads of buf before any thread goes on (the barrier pass orders what follows
 * after thread 0's reads alone: an mbarrier thread 0 initialises where buf was would
 * otherwise race with the other threads' reads). A rolled loop whose thread index is read by a
 * volatile move: nothing of it is loop-invariant in the loops around the store, so none of its
 * arithmetic is hoisted into them to hold registers there (an expanded store of the tile
 * in registers did: 255 registers against 207 for tutorial 09's persistent kernel at
 * 128x256x64, 8 warps). Leaves the builder in the block where the TMA copy goes; *join
 * gets the block both paths meet in. */
static void cold_store(Gen *g, const IrOp *op, LLVMBasicBlockRef *join) {
    ValId d = op->operands[0], buf = op->operands[1];
    IrType t = ir_type(g->f, d);
    int r = t.rank, eb = dt_bytes(t.pointee), bits = 0;
    for (int k = 0; k < r; k++) bits += log2_of(t.shape[k]);
    LLVMValueRef o[NR_MAX_DESC_RANK], neg = NULL;
    for (int k = 0; k < r; k++) {
        o[k] = gen_vals(g, op->operands[2 + k], NULL)[0];
        LLVMValueRef c = LLVMBuildICmp(g->B, LLVMIntSLT, o[k], gen_i32(g, 0), "");
        neg = neg ? LLVMBuildOr(g->B, neg, c, "") : c;
    }
    LLVMBasicBlockRef pre = LLVMAppendBasicBlockInContext(g->C, g->fn, "tma_store_neg"),
                      loop = LLVMAppendBasicBlockInContext(g->C, g->fn, "tma_store_neg_loop"),
                      body = LLVMAppendBasicBlockInContext(g->C, g->fn, "tma_store_neg_elem"),
                      put = LLVMAppendBasicBlockInContext(g->C, g->fn, "tma_store_neg_put"),
                      next = LLVMAppendBasicBlockInContext(g->C, g->fn, "tma_store_neg_next"),
                      end = LLVMAppendBasicBlockInContext(g->C, g->fn, "tma_store_neg_end"),
                      tma = LLVMAppendBasicBlockInContext(g->C, g->fn, "tma_store"),
                      done = LLVMAppendBasicBlockInContext(g->C, g->fn, "tma_store_done");
    LLVMBuildCondBr(g->B, neg, pre, tma);

    LLVMPositionBuilderAtEnd(g->B, pre);
    LLVMValueRef tid = gen_asm(g, "mov.u32 $0, %tid.x;", "=r", g->i32, NULL, 0, true);
    LLVMBuildBr(g->B, loop);
    LLVMPositionBuilderAtEnd(g->B, loop);
    LLVMValueRef f = LLVMBuildPhi(g->B, g->i32, "");
    LLVMAddIncoming(f, &tid, &pre, 1);
    LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntULT, f, gen_i32(g, 1 << bits), ""), body, end);
    LLVMPositionBuilderAtEnd(g->B, end);
    gen_barrier(g);
    LLVMBuildBr(g->B, done);

    LLVMPositionBuilderAtEnd(g->B, body);
    LLVMValueRef in = NULL, at = NULL, idx[NR_MAX_DESC_RANK];
    for (int k = r - 1, shift = 0; k >= 0; k--) { /* row-major: the last dim fastest */
        int n = log2_of(t.shape[k]);
        LLVMValueRef i = LLVMBuildAnd(g->B, LLVMBuildLShr(g->B, f, gen_i32(g, shift), ""),
                                      gen_i32(g, (1 << n) - 1), "");
        shift += n;
        LLVMValueRef x = LLVMBuildAdd(g->B, o[k], i, "");
        idx[k] = LLVMBuildSExt(g->B, x, g->i64, "");
        in = gen_and(g, in, LLVMBuildICmp(g->B, LLVMIntSGE, x, gen_i32(g, 0), ""));
        in = gen_and(g, in,
                     LLVMBuildICmp(g->B, LLVMIntSLT, idx[k], part_value(g, d, true, 1 + k), ""));
    }
    LLVMBuildCondBr(g->B, in, put, next);

    LLVMPositionBuilderAtEnd(g->B, put);
    for (int k = 0; k < r; k++) { /* the last stride is 1 (the launch checks it) */
        LLVMValueRef term =
            k == r - 1 ? idx[k] : LLVMBuildMul(g->B, idx[k], part_value(g, d, true, 1 + r + k), "");
        at = at ? LLVMBuildAdd(g->B, at, term, "") : term;
    }
    uint32_t inv[LL_MAX_BITS];
    gen_shared_inverse(g, g->f->vals[buf].layout, ty_block(ty_scalar(t.pointee), r, t.shape), inv);
    bool x = false;
    LLVMValueRef soff = gen_thread_bits(g, f, inv, bits, 0, 32, &x);
    LLVMTypeRef et = LLVMIntTypeInContext(g->C, (unsigned)eb * 8);
    LLVMValueRef sb = gen_mul_const(g, soff, eb);
    LLVMValueRef sp = LLVMBuildGEP2(g->B, g->i8, gen_vals(g, buf, NULL)[0], &sb, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(g->B, et, sp, "");
    LLVMSetAlignment(v, (unsigned)eb);
    LLVMValueRef base = LLVMBuildIntToPtr(g->B, part_value(g, d, true, 0), g->ptr1, "");
    LLVMValueRef gp = LLVMBuildGEP2(g->B, et, base, &at, 1, "");
    LLVMSetAlignment(LLVMBuildStore(g->B, v, gp), (unsigned)eb);
    LLVMBuildBr(g->B, next);

    LLVMPositionBuilderAtEnd(g->B, next);
    LLVMValueRef f2 = LLVMBuildAdd(g->B, f, gen_i32(g, g->num_warps * 32), "");
    LLVMAddIncoming(f, &f2, &next, 1);
    LLVMBuildBr(g->B, loop);

    LLVMPositionBuilderAtEnd(g->B, tma);
    *join = done;
}

/* One copy per box: box b starts b panels along the last dim, b x box_bytes into buf. */
static void copies(Gen *g, const IrOp *op, bool load) {
    ValId d = op->operands[0], buf = op->operands[load ? 2 : 1];
    IrType t = ir_type(g->f, d);
    int r = t.rank, first = load ? 3 : 2;
    TmaPlan plan;
    if (!gpu_tma_plan(t, &plan))
        gen_error(g, op->loc, "internal error: a TMA copy of a tile TMA cannot copy");
    LLVMBasicBlockRef join = NULL;
    if (!load) cold_store(g, op, &join);
    LLVMValueRef map = LLVMBuildPtrToInt(g->B, gen_vals(g, d, NULL)[0], g->i64, "");
    LLVMValueRef dst = shared_addr(g, buf), bar = load ? shared_addr(g, op->operands[1]) : NULL;
    LLVMValueRef pred = leader(g);
    for (int b = 0; b < plan.nboxes; b++) {
        LLVMValueRef args[4 + NR_MAX_DESC_RANK]; /* pred, dst, map, the coordinates, bar */
        int na = 0;
        args[na++] = pred;
        args[na++] = gen_add_const(g, dst, (int64_t)b * plan.box_bytes);
        args[na++] = map;
        for (int k = r - 1; k >= 0; k--) { /* innermost first */
            LLVMValueRef c = gen_vals(g, op->operands[first + k], NULL)[0];
            args[na++] = k == r - 1 && b ? gen_add_const(g, c, (int64_t)b * plan.box[r - 1]) : c;
        }
        if (load) args[na++] = bar;
        char co[96], text[256], cons[64];
        coords_text(co, sizeof co, 2, 3, r);
        if (load)
            snprintf(text, sizeof text,
                     "@$0 "
                     "cp.async.bulk.tensor.%dd.shared::cluster.global.tile.mbarrier::complete_tx::"
                     "bytes [$1], %s, [$%d];",
                     r, co, 3 + r);
        else
            snprintf(text, sizeof text,
                     "@$0 cp.async.bulk.tensor.%dd.global.shared::cta.tile.bulk_group %s, [$1];", r,
                     co);
        size_t n = (size_t)snprintf(cons, sizeof cons, "b,r,l");
        for (int k = 0; k < r; k++) n += (size_t)snprintf(cons + n, sizeof cons - n, ",r");
        snprintf(cons + n, sizeof cons - n, "%s,~{memory}", load ? ",r" : "");
        gen_asm(g, text, cons, g->vd, args, na, true);
    }
    if (load) return;
    /* both paths commit a group (the negative one's empty), so that a wait's count of
     * pending groups means the same after either */
    LLVMBuildBr(g->B, join);
    LLVMPositionBuilderAtEnd(g->B, join);
    pred = leader(g);
    gen_asm(g, "@$0 cp.async.bulk.commit_group;", "b,~{memory}", g->vd, &pred, 1, true);
}

void gen_tma(Gen *g, OpId id) {
    const IrOp *op = &g->f->ops[id];
    char text[160];
    switch (op->code) {
    case OP_DESC_PART: desc_part(g, op); return;
    case OP_MBARRIER_INIT: {
        /* the fence makes the initialised barrier visible to the asynchronous proxy (the
         * TMA unit completes its transactions on it) */
        snprintf(text, sizeof text,
                 "@$0 mbarrier.init.shared::cta.b64 [$1], %d;\n\t@$0 "
                 "fence.mbarrier_init.release.cluster;\n\t"
                 "@$0 fence.proxy.async.shared::cta;",
                 (int)op->attr[0]);
        gen_asm(g, text, "b,r,~{memory}", g->vd,
                (LLVMValueRef[]){leader(g), shared_addr(g, op->operands[0])}, 2, true);
        return;
    }
    case OP_MBARRIER_EXPECT:
        snprintf(text, sizeof text, "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], %d;",
                 (int)op->attr[0]);
        gen_asm(g, text, "b,r,~{memory}", g->vd,
                (LLVMValueRef[]){leader(g), shared_addr(g, op->operands[0])}, 2, true);
        return;
    case OP_MBARRIER_WAIT: wait_phase(g, op); return;
    case OP_MBARRIER_ARRIVE: /* once the warp's lanes are all here, lane 0 arrives (release) */
        gen_asm(g,
                "{\n\t.reg .pred p;\n\tsetp.eq.u32 p, $1, 0;\n\tbar.warp.sync -1;\n\t"
                "@p mbarrier.arrive.shared::cta.b64 _, [$0];\n\t}",
                "r,r,~{memory}", g->vd, (LLVMValueRef[]){shared_addr(g, op->operands[0]), g->lane},
                2, true);
        return;
    case OP_MBARRIER_INVAL:
        gen_asm(g, "@$0 mbarrier.inval.shared::cta.b64 [$1];", "b,r,~{memory}", g->vd,
                (LLVMValueRef[]){leader(g), shared_addr(g, op->operands[0])}, 2, true);
        return;
    case OP_TMA_LOAD: copies(g, op, true); return;
    case OP_TMA_STORE: copies(g, op, false); return;
    case OP_TMA_STORE_WAIT: {
        LLVMValueRef pred = leader(g);
        snprintf(text, sizeof text, "@$0 cp.async.bulk.wait_group.read %d;", (int)op->attr[0]);
        gen_asm(g, text, "b,~{memory}", g->vd, &pred, 1, true);
        return;
    }
    default: NR_DIE("gen_tma: %s", ir_op_info[op->code].name);
    }
}
