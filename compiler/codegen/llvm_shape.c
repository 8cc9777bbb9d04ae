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
        if (!ll_solve(&s->ll, LL_REG, moves_apply(map, ll_apply_dim(&r->ll, LL_REG, (uint32_t)i)),
                      &src))
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
        for (int i = 0; i < l->nbits[in]; i++)
            thread |= map ? moves_apply(map, l->basis[in][i]) : l->basis[in][i];
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

/* The scratch layout: row-major element index i sits at byte i * eb, except that rows of
 * 128 bytes or more (a power of two) have their 16-byte chunks XORed with the row's low
 * three bits, a permutation within each row that both the writes and the reads apply
 * (every access is a vector of at most 16 bytes, aligned to its size, so it stays in one
 * chunk): a tensor-core result, written as a few bytes in each of eight rows per
 * instruction, then hits eight different banks instead of one. The map from index to
 * byte is linear over GF(2), as the layouts are, so an element's byte offset is the XOR
 * of a thread part (lane and warp bits, made once per op) and a constant per register. */
typedef struct Scratch {
    int eb, row_shift;    /* log2 of the row's bytes when its chunks are swizzled, else -1 */
    LLVMValueRef thread;  /* the lane and warp part of the byte offset */
    uint32_t thread_bits; /* every bit it may set */
} Scratch;

static uint32_t scratch_const(const Scratch *sc, uint32_t index) {
    uint32_t b = index * (uint32_t)sc->eb;
    return sc->row_shift < 0 ? b : b ^ (((b >> sc->row_shift) & 7) << 4);
}

static LLVMValueRef scratch_ir(Gen *g, const Scratch *sc, LLVMValueRef index) {
    LLVMValueRef b = gen_mul_const(g, index, sc->eb);
    if (sc->row_shift < 0) return b;
    LLVMValueRef row = LLVMBuildLShr(g->B, b, gen_i32(g, sc->row_shift), "");
    LLVMValueRef phase =
        LLVMBuildShl(g->B, LLVMBuildAnd(g->B, row, gen_i32(g, 7), ""), gen_i32(g, 4), "");
    return LLVMBuildXor(g->B, b, phase, "");
}

/* The thread part of layout l's scratch offsets, its row-major indices first taken
 * through map (the op's index map, for the reads) when given. */
static void scratch_thread(Gen *g, Scratch *sc, const LinearLayout *l, const uint32_t *map) {
    uint32_t basis[2][LL_MAX_BITS], used[2] = {0, 0};
    LLVMValueRef part[2];
    bool x = false;
    sc->thread_bits = 0;
    for (int in = LL_LANE; in <= LL_WARP; in++) {
        int k = in == LL_LANE ? 0 : 1;
        for (int i = 0; i < l->nbits[in]; i++) {
            basis[k][i] = map ? moves_apply(map, l->basis[in][i]) : l->basis[in][i];
            used[k] |= basis[k][i];
            sc->thread_bits |= scratch_const(sc, basis[k][i]);
        }
        part[k] = gen_thread_bits(g, in == LL_LANE ? g->lane : g->warp, basis[k], l->nbits[in], 0,
                                  32, &x);
    }
    sc->thread =
        gen_opaque(g, scratch_ir(g, sc, gen_or_xor(g, part[0], part[1], used[0] & used[1])));
}

/* The scratch address of the element whose row-major index (through map, if given) has
 * constant part `index` (the register's) on top of the thread part. */
static LLVMValueRef scratch_ptr(Gen *g, const IrOp *op, const Scratch *sc, uint32_t index) {
    LLVMValueRef off =
        gen_add_const(g, gen_xor_const(g, sc->thread, sc->thread_bits, scratch_const(sc, index)),
                      op->smem_offset);
    return LLVMBuildGEP2(g->B, g->i8, g->smem, &off, 1, "");
}

static void smem_remap(Gen *g, const IrOp *op, const uint32_t *map) {
    ValId s = op->operands[0], r = op->results[0];
    IrType st = ir_type(g->f, s);
    const GenLayout *sl = gen_layout(g, s), *rl = gen_layout(g, r);
    int dt = st.dt, eb = dt == DT_I1 ? 1 : dt_bytes(dt), maxv = log2_floor(16 / eb);
    int vs = 1 << run_bits(&sl->ll, NULL, maxv), vr = 1 << run_bits(&rl->ll, map, maxv);
    if ((vs * eb < 16 || vr * eb < 16) && gen_convert_ldmatrix(g, op, map)) return;
    int ns = 1 << sl->ll.nbits[LL_REG], nr = 1 << rl->ll.nbits[LL_REG];
    int row_bytes = st.shape[st.rank - 1] * eb; /* the operand's rows: both sides index them */
    Scratch sc = {eb,
                  row_bytes >= 128 && !(row_bytes & (row_bytes - 1))
                      ? __builtin_ctz((unsigned)row_bytes)
                      : -1,
                  NULL, 0};
    LLVMValueRef *in = gen_vals(g, s, NULL);
    scratch_thread(g, &sc, &sl->ll, NULL);
    for (int i = 0; i < ns; i += vs) {
        LLVMValueRef once = gen_layout_unique(g, sl, i);
        if (once && LLVMIsAConstantInt(once) && !LLVMConstIntGetZExtValue(once))
            continue; /* a copy */
        LLVMValueRef val;
        LLVMValueRef ptr = scratch_ptr(g, op, &sc, ll_apply_dim(&sl->ll, LL_REG, (uint32_t)i));
        if (vs == 1) val = gen_to_mem(g, in[i], dt);
        else {
            val = LLVMGetUndef(vec_type(g, dt, vs));
            for (int k = 0; k < vs; k++)
                val = LLVMBuildInsertElement(g->B, val, gen_to_mem(g, in[i + k], dt), gen_i32(g, k),
                                             "");
        }
        gen_store_if(g, once, val, ptr, (unsigned)(eb * vs));
    }
    gen_barrier(g);
    LLVMValueRef *out = gen_alloc_regs(g, nr);
    scratch_thread(g, &sc, &rl->ll, map);
    for (int i = 0; i < nr; i += vr) {
        LLVMValueRef ptr =
            scratch_ptr(g, op, &sc, moves_apply(map, ll_apply_dim(&rl->ll, LL_REG, (uint32_t)i)));
        LLVMValueRef x = LLVMBuildLoad2(g->B, vec_type(g, dt, vr), ptr, "");
        LLVMSetAlignment(x, (unsigned)(eb * vr));
        for (int k = 0; k < vr; k++)
            out[i + k] = gen_from_mem(
                g, vr == 1 ? x : LLVMBuildExtractElement(g->B, x, gen_i32(g, k), ""), dt);
    }
    gen_set(g, r, out, nr);
}

void gen_shape(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    if (ir_type(g->f, op->operands[0]).dt ==
        DT_SMEM) { /* trans of a buffer: the same bytes, another layout */
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
    if (!op->smem_size)
        gen_error(g, op->loc, "internal error: '%s' needs shared memory but none was allocated",
                  ir_op_info[op->code].name);
    smem_remap(g, op, map);
}
