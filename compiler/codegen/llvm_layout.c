/* llvm_layout.c - where a thread's elements are, from the linear map of their layout:
 * the lane and warp part of each coordinate (once per layout and shape, in the prologue),
 * a constant per register, which thread holds the first copy of a replicated element,
 * and shared-memory addressing. */
#include "gen_internal.h"

#include <string.h>

LLVMBasicBlockRef gen_enter_prologue(Gen *g) {
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(g->B);
    LLVMPositionBuilderAtEnd(g->B, g->prologue);
    return cur;
}

void gen_leave_prologue(Gen *g, LLVMBasicBlockRef saved) { LLVMPositionBuilderAtEnd(g->B, saved); }

/* i32 arithmetic on a value and a constant that leaves out the identities (x + 0, x * 1,
 * x & all-ones): the IR we hand LLVM is then smaller, which is most of its time. */
static bool is_const(LLVMValueRef x, int64_t c) {
    return LLVMIsAConstantInt(x) && LLVMConstIntGetSExtValue(x) == c;
}

LLVMValueRef gen_add_const(Gen *g, LLVMValueRef x, int64_t c) {
    if (c == 0) return x;
    if (is_const(x, 0)) return gen_i32(g, c);
    return LLVMBuildAdd(g->B, x, gen_i32(g, c), "");
}

LLVMValueRef gen_mul_const(Gen *g, LLVMValueRef x, int64_t c) {
    if (c == 1) return x;
    if (c == 0 || is_const(x, 0)) return gen_i32(g, 0);
    return LLVMBuildMul(g->B, x, gen_i32(g, c), "");
}

LLVMValueRef gen_or_xor(Gen *g, LLVMValueRef a, LLVMValueRef b, bool x) {
    if (is_const(a, 0)) return b;
    if (is_const(b, 0)) return a;
    return x ? LLVMBuildXor(g->B, a, b, "") : LLVMBuildOr(g->B, a, b, "");
}

LLVMValueRef gen_xor_const(Gen *g, LLVMValueRef thread, uint32_t thread_bits, uint32_t c) {
    if (!c) return thread;
    return c & thread_bits ? LLVMBuildXor(g->B, thread, gen_i32(g, c), "")
                           : gen_add_const(g, thread, c);
}

static LLVMValueRef add_vals(Gen *g, LLVMValueRef a, LLVMValueRef b) {
    if (is_const(a, 0)) return b;
    if (is_const(b, 0)) return a;
    return LLVMBuildAdd(g->B, a, b, "");
}

LLVMValueRef gen_and(Gen *g, LLVMValueRef a, LLVMValueRef b) {
    if (!a) return b;
    if (!b) return a;
    return LLVMBuildAnd(g->B, a, b, "");
}

static int ctz32(uint32_t x) {
    int k = 0;
    while (!(x >> k & 1)) k++;
    return k;
}

/* The part of one coordinate (the bits [shift, shift + len) of row-major indices) that
 * the bits of x contribute through their bases: runs of bits whose bases are consecutive
 * powers of two become one shift and mask. *xor_out is set when two contributions share
 * a bit (they combine by XOR); otherwise they are disjoint and OR is the sum. */
LLVMValueRef gen_thread_bits(Gen *g, LLVMValueRef x, const uint32_t *basis, int nbits, int shift,
                             int len, bool *xor_out) {
    uint32_t mask = len >= 32 ? ~0u : (1u << len) - 1, seen = 0;
    LLVMValueRef acc = NULL;
    for (int i = 0; i < nbits;) {
        uint32_t b = (basis[i] >> shift) & mask;
        if (!b) {
            i++;
            continue;
        }
        LLVMValueRef term;
        uint32_t bits;
        if (b & (b - 1)) { /* a basis of several bits: bit i of x selects it */
            LLVMValueRef bit =
                LLVMBuildAnd(g->B, LLVMBuildLShr(g->B, x, gen_i32(g, i), ""), gen_i32(g, 1), "");
            term = LLVMBuildMul(g->B, bit, gen_i32(g, b), "");
            bits = b;
            i++;
        } else {
            int j = ctz32(b), k = 1;
            while (i + k < nbits && ((basis[i + k] >> shift) & mask) == (1u << (j + k))) k++;
            bits = ((1u << k) - 1) << j;
            LLVMValueRef y = x;
            if (i > j) y = LLVMBuildLShr(g->B, x, gen_i32(g, i - j), "");
            else if (j > i) y = LLVMBuildShl(g->B, x, gen_i32(g, j - i), "");
            term = LLVMBuildAnd(g->B, y, gen_i32(g, bits), "");
            i += k;
        }
        if (!acc) acc = term;
        else if (seen & bits) {
            acc = LLVMBuildXor(g->B, acc, term, "");
            *xor_out = true;
        } else {
            acc = LLVMBuildOr(g->B, acc, term, "");
        }
        seen |= bits;
    }
    return acc ? acc : gen_i32(g, 0);
}

/* The union of the coordinate bits of dim d that an input dim's bases touch. */
static uint32_t dim_bits(const LinearLayout *l, int in, int d) {
    int shift = ll_dim_shift(l, d);
    uint32_t mask = (1u << l->log2shape[d]) - 1, u = 0;
    for (int i = 0; i < l->nbits[in]; i++) u |= (l->basis[in][i] >> shift) & mask;
    return u;
}

static void make_thread_parts(Gen *g, GenLayout *gl) {
    LLVMBasicBlockRef saved = gen_enter_prologue(g);
    const LinearLayout *l = &gl->ll;
    for (int d = 0; d < l->rank; d++) {
        int shift = ll_dim_shift(l, d), len = l->log2shape[d];
        bool x = false;
        LLVMValueRef lp =
            gen_thread_bits(g, g->lane, l->basis[LL_LANE], l->nbits[LL_LANE], shift, len, &x);
        LLVMValueRef wp =
            gen_thread_bits(g, g->warp, l->basis[LL_WARP], l->nbits[LL_WARP], shift, len, &x);
        uint32_t lb = dim_bits(l, LL_LANE, d), wb = dim_bits(l, LL_WARP, d),
                 rb = dim_bits(l, LL_REG, d);
        if (lb & wb) {
            gl->thread[d] = LLVMBuildXor(g->B, lp, wp, "");
            x = true;
        } else {
            gl->thread[d] = add_vals(g, lp, wp);
        }
        gl->xor_dim[d] = x || ((lb | wb) & rb);
    }
    gen_leave_prologue(g, saved);
    gl->have_thread = true;
}

static void make_owner(Gen *g, GenLayout *gl) {
    uint32_t zl = ll_zero_mask(&gl->ll, LL_LANE), zw = ll_zero_mask(&gl->ll, LL_WARP);
    gl->have_owner = true;
    if (!zl && !zw) return;
    LLVMBasicBlockRef saved = gen_enter_prologue(g);
    LLVMValueRef ok = NULL;
    if (zl)
        ok = LLVMBuildICmp(g->B, LLVMIntEQ, LLVMBuildAnd(g->B, g->lane, gen_i32(g, zl), ""),
                           gen_i32(g, 0), "");
    if (zw)
        ok = gen_and(g, ok,
                     LLVMBuildICmp(g->B, LLVMIntEQ, LLVMBuildAnd(g->B, g->warp, gen_i32(g, zw), ""),
                                   gen_i32(g, 0), ""));
    gl->owner = ok;
    gen_leave_prologue(g, saved);
}

const GenLayout *gen_layout_of(Gen *g, uint32_t layout, IrType t) {
    for (uint32_t i = 0; i < g->nlayouts; i++) {
        GenLayout *gl = g->layouts[i];
        if (gl->id == layout && ty_same_shape(gl->t, t)) return gl;
    }
    GenLayout *gl = arena_alloc(g->m->arena, sizeof *gl);
    memset(gl, 0, sizeof *gl);
    gl->id = layout;
    gl->t = ty_block(ty_scalar(DT_I32), t.rank, t.shape);
    ir_layout_linear(g->m, layout, t, &gl->ll);
    gl->reg_copies = ll_zero_mask(&gl->ll, LL_REG);
    VEC_PUSH(g->m->arena, g->layouts, g->nlayouts, g->caplayouts, gl);
    return gl;
}

const GenLayout *gen_layout(Gen *g, ValId v) {
    IrType t = ir_type(g->f, v);
    if (!t.rank || !g->f->vals[v].layout) NR_DIE("gen_layout: value %u has no layout", v);
    return gen_layout_of(g, g->f->vals[v].layout, t);
}

int gen_nregs(Gen *g, ValId v) {
    IrType t = ir_type(g->f, v);
    if (!t.rank || t.dt == DT_SMEM) return 1;
    return 1 << gen_layout(g, v)->ll.nbits[LL_REG];
}

void gen_layout_pos(Gen *g, const GenLayout *cgl, int r, LLVMValueRef *coord) {
    GenLayout *gl = (GenLayout *)cgl; /* the cache fills in lazily */
    if (!gl->have_thread) make_thread_parts(g, gl);
    int32_t c[LL_MAX_RANK];
    ll_coords(&gl->ll, ll_apply_dim(&gl->ll, LL_REG, (uint32_t)r), c);
    for (int d = 0; d < gl->ll.rank; d++)
        coord[d] = gl->xor_dim[d] && c[d] ? LLVMBuildXor(g->B, gl->thread[d], gen_i32(g, c[d]), "")
                                          : gen_add_const(g, gl->thread[d], c[d]);
}

void gen_elem_pos(Gen *g, ValId v, int r, LLVMValueRef *coord) {
    gen_layout_pos(g, gen_layout(g, v), r, coord);
}

LLVMValueRef gen_layout_unique(Gen *g, const GenLayout *cgl, int r) {
    GenLayout *gl = (GenLayout *)cgl;
    if ((uint32_t)r & gl->reg_copies) return LLVMConstInt(g->i1, 0, 0);
    if (!gl->have_owner) make_owner(g, gl);
    return gl->owner;
}

LLVMValueRef gen_unique(Gen *g, ValId v, int r) {
    if (!ir_type(g->f, v).rank) return LLVMBuildICmp(g->B, LLVMIntEQ, g->tid, gen_i32(g, 0), "");
    return gen_layout_unique(g, gen_layout(g, v), r);
}

LLVMValueRef gen_linear(Gen *g, const LLVMValueRef *coord, IrType t) {
    LLVMValueRef lin = gen_i32(g, 0);
    int64_t stride = 1;
    for (int d = t.rank - 1; d >= 0; d--) {
        lin = add_vals(g, lin, gen_mul_const(g, coord[d], stride));
        stride *= t.shape[d];
    }
    return lin;
}

LLVMValueRef gen_smem_ptr(Gen *g, int byte_offset, LLVMValueRef index, int elem_bytes) {
    LLVMValueRef off = gen_add_const(g, gen_mul_const(g, index, elem_bytes), byte_offset);
    return LLVMBuildGEP2(g->B, g->i8, g->smem, &off, 1, "");
}

void gen_barrier(Gen *g) {
    if (g->in_producer)
        gen_error(g, g->f->loc, "internal error: a barrier in a warp_specialize's producer");
    if (!g->barrier_threads) {
        gen_intrinsic(g, "llvm.nvvm.barrier0", g->vd, NULL, 0);
        return;
    }
    /* the consumer warps of a warp_specialize: named barrier 1, their threads alone */
    char text[64];
    snprintf(text, sizeof text, "bar.sync 1, %d;", g->barrier_threads);
    gen_asm(g, text, "~{memory}", g->vd, NULL, 0, true);
}
