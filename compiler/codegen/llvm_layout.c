/* llvm_layout.c - where a thread's elements are: lane and warp coordinates per layout
 * dim, wrapped coordinates and duplicate predicates, shared-memory addressing. */
#include "gen_internal.h"

LLVMBasicBlockRef gen_enter_prologue(Gen *g) {
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(g->B);
    LLVMPositionBuilderAtEnd(g->B, g->prologue);
    return cur;
}

void gen_leave_prologue(Gen *g, LLVMBasicBlockRef saved) { LLVMPositionBuilderAtEnd(g->B, saved); }

static int log2i(int x) {
    int k = 0;
    while ((1 << k) < x) k++;
    return k;
}

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

static LLVMValueRef add_vals(Gen *g, LLVMValueRef a, LLVMValueRef b) {
    if (is_const(a, 0)) return b;
    if (is_const(b, 0)) return a;
    return LLVMBuildAdd(g->B, a, b, "");
}

/* (x >> shift) & (n - 1): the coordinate of x's bits for a power-of-two count n */
static LLVMValueRef bits(Gen *g, LLVMValueRef x, int shift, int n) {
    if (n == 1) return gen_i32(g, 0);
    if (shift) x = LLVMBuildLShr(g->B, x, gen_i32(g, shift), "");
    return LLVMBuildAnd(g->B, x, gen_i32(g, n - 1), "");
}

/* warp_c * spt * tpw + lane_c * spt along root dim d of blocked layout `root`. */
LLVMValueRef gen_thread_part(Gen *g, uint32_t root, int d) {
    LLVMValueRef *slot = &g->thread_part[root * NR_MAX_RANK + d];
    if (*slot) return *slot;
    const IrLayout *l = &g->m->layouts[root];
    int lane_shift = 0, warp_shift = 0;
    for (int k = 0; k < l->rank && l->order[k] != d; k++)
        lane_shift += log2i(l->tpw[l->order[k]]), warp_shift += log2i(l->wpc[l->order[k]]);
    LLVMBasicBlockRef saved = gen_enter_prologue(g);
    LLVMValueRef lc = bits(g, g->lane, lane_shift, l->tpw[d]);
    LLVMValueRef wc = bits(g, g->warp, warp_shift, l->wpc[d]);
    LLVMValueRef part = add_vals(g, gen_mul_const(g, wc, (int64_t)l->spt[d] * l->tpw[d]), gen_mul_const(g, lc, l->spt[d]));
    gen_leave_prologue(g, saved);
    return *slot = part;
}

/* For slice layouts: true in the one thread per group of duplicates whose coordinates
 * along every sliced-away dim are 0. */
LLVMValueRef gen_owner(Gen *g, ValId v) {
    uint32_t id = g->f->vals[v].layout;
    if (!id || g->m->layouts[id].kind != LAYOUT_SLICE) return NULL;
    if (g->owner[id]) return g->owner[id];
    IrType t = ir_type(g->f, v);
    LayoutDims ld;
    layout_dims(g->m, id, t, &ld);
    const IrLayout *root = layout_root(g->m, id);
    uint32_t rootid = (uint32_t)(root - g->m->layouts);
    LLVMBasicBlockRef saved = gen_enter_prologue(g);
    LLVMValueRef ok = LLVMConstInt(g->i1, 1, 0);
    for (int d = 0; d < root->rank; d++) {
        bool kept = false;
        for (int k = 0; k < t.rank; k++) kept |= ld.root_dim[k] == d;
        if (kept) continue;
        LLVMValueRef part = gen_thread_part(g, rootid, d);
        ok = LLVMBuildAnd(g->B, ok, LLVMBuildICmp(g->B, LLVMIntEQ, part, gen_i32(g, 0), ""), "");
    }
    gen_leave_prologue(g, saved);
    return g->owner[id] = ok;
}

void gen_elem_pos(Gen *g, ValId v, int r, ElemPos *out) {
    IrType t = ir_type(g->f, v);
    uint32_t id = g->f->vals[v].layout;
    LayoutDims ld;
    layout_dims(g->m, id, t, &ld);
    const IrLayout *root = layout_root(g->m, id);
    uint32_t rootid = (uint32_t)(root - g->m->layouts);
    int64_t pos[NR_MAX_RANK];
    int idx[NR_MAX_RANK];
    layout_reg_offsets(&ld, g->m, id, r, pos, idx);
    out->valid = NULL;
    for (int d = 0; d < t.rank; d++) {
        LLVMValueRef u = gen_add_const(g, gen_thread_part(g, rootid, ld.root_dim[d]), pos[d]);
        /* the layout's tile fits in the shape (both powers of two): u < shape already */
        if (t.shape[d] >= ld.tile[d] && t.shape[d] >= (int)root->spt[ld.root_dim[d]]) {
            out->coord[d] = u;
            continue;
        }
        out->coord[d] = LLVMBuildAnd(g->B, u, gen_i32(g, t.shape[d] - 1), "");
        LLVMValueRef ok = LLVMBuildICmp(g->B, LLVMIntULT, u, gen_i32(g, t.shape[d]), "");
        out->valid = out->valid ? LLVMBuildAnd(g->B, out->valid, ok, "") : ok;
    }
}

/* True in exactly one thread per element of v's register r: not a duplicate from a
 * replicated layout, the owner among a slice's copies; thread 0 for a scalar. */
LLVMValueRef gen_unique(Gen *g, ValId v, int r) {
    if (!ir_type(g->f, v).rank) return LLVMBuildICmp(g->B, LLVMIntEQ, g->tid, gen_i32(g, 0), "");
    ElemPos p;
    gen_elem_pos(g, v, r, &p);
    LLVMValueRef own = gen_owner(g, v);
    if (!p.valid) return own;
    return own ? LLVMBuildAnd(g->B, p.valid, own, "") : p.valid;
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

void gen_barrier(Gen *g) { gen_intrinsic(g, "llvm.nvvm.barrier0", g->vd, NULL, 0); }
