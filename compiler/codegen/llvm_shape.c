/* llvm_shape.c - ops that move elements between positions or layouts: broadcast,
 * expand_dims, reshape, trans and convert_layout, all one way (analysis/layout_moves.h).
 *
 * Each result element comes from one operand element through a linear map of row-major
 * indices. When every thread already holds the elements it needs (moves_is_local), the
 * result's registers are the operand's, renumbered: register r of the result is the
 * operand register whose element is the map of r's. Otherwise the block goes through
 * shared memory: one thread per element writes it at its row-major index (a run of
 * consecutive registers as one vector), the CTA synchronises, and each thread reads the
 * element each of its registers comes from. */
#include "gen_internal.h"

static void local_remap(Gen *g, const IrOp *op, const uint32_t *map) {
    const GenLayout *s = gen_layout(g, op->operands[0]), *r = gen_layout(g, op->results[0]);
    LLVMValueRef *in = gen_vals(g, op->operands[0], NULL);
    int n = 1 << r->ll.nbits[LL_REG];
    LLVMValueRef *out = gen_alloc_regs(g, n);
    for (int i = 0; i < n; i++) {
        uint32_t src;
        if (!ll_solve(&s->ll, LL_REG, moves_apply(map, ll_apply_dim(&r->ll, LL_REG, (uint32_t)i)), &src))
            NR_DIE("local_remap: register %d has no source", i);
        out[i] = in[src];
    }
    gen_set(g, op->results[0], out, n);
}

/* Low register bits of l whose row-major indices (through map, if given) step by 1, 2,
 * 4, ... while no lane or warp basis touches those bits: runs of that many registers are
 * consecutive elements, the run's first at an index aligned to its length. */
static int run_bits(const LinearLayout *l, const uint32_t *map, int limit) {
    uint32_t thread = 0;
    for (int in = LL_LANE; in <= LL_WARP; in++)
        for (int i = 0; i < l->nbits[in]; i++) thread |= map ? moves_apply(map, l->basis[in][i]) : l->basis[in][i];
    int k = 0;
    while (k < l->nbits[LL_REG] && k < limit) {
        uint32_t b = l->basis[LL_REG][k];
        if ((map ? moves_apply(map, b) : b) != 1u << k || (thread >> k & 1)) break;
        k++;
    }
    return k;
}

static LLVMTypeRef vec_type(Gen *g, int dt, int v) {
    LLVMTypeRef et = gen_mem_type(g, dt);
    return v == 1 ? et : LLVMVectorType(et, (unsigned)v);
}

static int log2_floor(int x) {
    int k = 0;
    while ((2 << k) <= x) k++;
    return k;
}

/* The operand's row-major index of the element at result coordinates c. */
static LLVMValueRef source_index(Gen *g, const IrOp *op, IrType st, IrType rt, LLVMValueRef *c) {
    LLVMValueRef sc[NR_MAX_RANK];
    switch (op->code) {
    case OP_RESHAPE: case OP_EXPAND_DIMS: case OP_CONVERT_LAYOUT: return gen_linear(g, c, rt); /* the same index */
    case OP_TRANS:
        for (int i = 0; i < rt.rank; i++) sc[op->attr[i]] = c[i];
        return gen_linear(g, sc, st);
    default: /* broadcast */
        for (int d = 0; d < rt.rank; d++) sc[d] = st.shape[d] == 1 ? gen_i32(g, 0) : c[d];
        return gen_linear(g, sc, st);
    }
}

/* Stores val at ptr where cond holds (NULL: always). */
void gen_store_if(Gen *g, LLVMValueRef cond, LLVMValueRef val, LLVMValueRef ptr, unsigned align) {
    LLVMBasicBlockRef st_bb = NULL, join = NULL;
    if (cond) {
        st_bb = LLVMAppendBasicBlockInContext(g->C, g->fn, "remap.st");
        join = LLVMAppendBasicBlockInContext(g->C, g->fn, "remap.join");
        LLVMBuildCondBr(g->B, cond, st_bb, join);
        LLVMPositionBuilderAtEnd(g->B, st_bb);
    }
    LLVMSetAlignment(LLVMBuildStore(g->B, val, ptr), align);
    if (cond) {
        LLVMBuildBr(g->B, join);
        LLVMPositionBuilderAtEnd(g->B, join);
    }
}

/* The scratch address of row-major element `index` (rows of `row_bytes`, the operand's
 * last dim). Rows of 128 bytes or more (a power of two) have their 16-byte chunks XORed
 * with the row's low three bits, a permutation within each row that both the writes and
 * the reads apply (every access is a vector of at most 16 bytes, aligned to its size, so
 * it stays in one chunk): a tensor-core result, written as a few bytes in each of eight
 * rows per instruction, then hits eight different banks instead of one. */
static LLVMValueRef scratch_ptr(Gen *g, const IrOp *op, LLVMValueRef index, int eb, int row_bytes) {
    if (row_bytes < 128 || (row_bytes & (row_bytes - 1))) return gen_smem_ptr(g, op->smem_offset, index, eb);
    LLVMValueRef b = gen_mul_const(g, index, eb);
    LLVMValueRef row = LLVMBuildLShr(g->B, b, gen_i32(g, __builtin_ctz((unsigned)row_bytes)), "");
    LLVMValueRef phase = LLVMBuildShl(g->B, LLVMBuildAnd(g->B, row, gen_i32(g, 7), ""), gen_i32(g, 4), "");
    LLVMValueRef off = gen_add_const(g, LLVMBuildXor(g->B, b, phase, ""), op->smem_offset);
    return LLVMBuildGEP2(g->B, g->i8, g->smem, &off, 1, "");
}

static void smem_remap(Gen *g, const IrOp *op, const uint32_t *map) {
    ValId s = op->operands[0], r = op->results[0];
    IrType st = ir_type(g->f, s), rt = ir_type(g->f, r);
    const GenLayout *sl = gen_layout(g, s), *rl = gen_layout(g, r);
    int dt = st.dt, eb = dt == DT_I1 ? 1 : dt_bytes(dt), maxv = log2_floor(16 / eb);
    int vs = 1 << run_bits(&sl->ll, NULL, maxv), vr = 1 << run_bits(&rl->ll, map, maxv);
    int ns = 1 << sl->ll.nbits[LL_REG], nr = 1 << rl->ll.nbits[LL_REG];
    int row_bytes = st.shape[st.rank - 1] * eb; /* the operand's rows: both sides index them */
    LLVMValueRef *in = gen_vals(g, s, NULL);
    for (int i = 0; i < ns; i += vs) {
        LLVMValueRef once = gen_layout_unique(g, sl, i);
        if (once && LLVMIsAConstantInt(once) && !LLVMConstIntGetZExtValue(once)) continue; /* a copy */
        LLVMValueRef c[NR_MAX_RANK], val;
        gen_layout_pos(g, sl, i, c);
        LLVMValueRef ptr = scratch_ptr(g, op, gen_linear(g, c, st), eb, row_bytes);
        if (vs == 1) val = gen_to_mem(g, in[i], dt);
        else {
            val = LLVMGetUndef(vec_type(g, dt, vs));
            for (int k = 0; k < vs; k++) val = LLVMBuildInsertElement(g->B, val, gen_to_mem(g, in[i + k], dt), gen_i32(g, k), "");
        }
        gen_store_if(g, once, val, ptr, (unsigned)(eb * vs));
    }
    gen_barrier(g);
    LLVMValueRef *out = gen_alloc_regs(g, nr);
    for (int i = 0; i < nr; i += vr) {
        LLVMValueRef c[NR_MAX_RANK];
        gen_layout_pos(g, rl, i, c);
        LLVMValueRef ptr = scratch_ptr(g, op, source_index(g, op, st, rt, c), eb, row_bytes);
        LLVMValueRef x = LLVMBuildLoad2(g->B, vec_type(g, dt, vr), ptr, "");
        LLVMSetAlignment(x, (unsigned)(eb * vr));
        for (int k = 0; k < vr; k++)
            out[i + k] = gen_from_mem(g, vr == 1 ? x : LLVMBuildExtractElement(g->B, x, gen_i32(g, k), ""), dt);
    }
    gen_set(g, r, out, nr);
}

void gen_shape(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    if (ir_type(g->f, op->operands[0]).dt == DT_SMEM) { /* trans of a buffer: the same bytes, another layout */
        LLVMValueRef *r = gen_alloc_regs(g, 1);
        r[0] = gen_vals(g, op->operands[0], NULL)[0];
        gen_set(g, op->results[0], r, 1);
        return;
    }
    if (!ir_type(g->f, op->operands[0]).rank) { /* a scalar: every register is it */
        int n = gen_nregs(g, op->results[0]);
        LLVMValueRef s = gen_vals(g, op->operands[0], NULL)[0], *out = gen_alloc_regs(g, n);
        for (int i = 0; i < n; i++) out[i] = s;
        gen_set(g, op->results[0], out, n);
        return;
    }
    uint32_t map[LL_MAX_BITS];
    moves_index_map(g->f, op, map);
    if (moves_is_local(g->f, id)) return local_remap(g, op, map);
    if (!op->smem_size) gen_error(g, op->loc, "internal error: '%s' needs shared memory but none was allocated", ir_op_info[op->code].name);
    smem_remap(g, op, map);
}
