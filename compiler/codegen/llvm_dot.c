/* llvm_dot.c - dot on the CUDA cores, and the dispatch of every dot's lowering.
 *
 * A dot whose result is in an mma layout runs on the tensor cores (llvm_mma.c). Any other
 * reads A and B from shared memory (lower-dot-operands put them there) and each thread
 * accumulates the results it holds over k in a loop, in k order with fp32 FMAs (fp64 for
 * fp64, i32 for i8): fp16/bf16 products are exact in fp32, so this matches the interpreter
 * bit for bit for those inputs. Where an element sits in a buffer is the buffer's shared layout
 * read through its linear map: the offset of A[m][k] is the XOR of a part from m (a thread part
 * plus a constant per register, from the result's layout) and a part from k (from the loop
 * counter), likewise for B[k][n]. Rows of A (columns of B) the thread needs at consecutive offsets
 * load as one vector. */
#include "gen_internal.h"

#include <stdlib.h>
#include <string.h>

static uint32_t offset_of(const uint32_t *inv, uint32_t flat) {
    uint32_t o = 0;
    for (int k = 0; flat; k++, flat >>= 1)
        if (flat & 1) o ^= inv[k];
    return o;
}

static LLVMValueRef widen(Gen *g, LLVMValueRef x, int dt) {
    if (dt == DT_FP32 || dt == DT_FP64) return x;
    if (dt == DT_I8) return LLVMBuildSExt(g->B, x, g->i32, "");
    return LLVMBuildFPExt(g->B, x, g->f32, "");
}

/* One operand: the result dim it spans (0: A's rows, 1: B's columns), its buffer. */
typedef struct Operand {
    int rdim;                  /* the result dim */
    int odim, kdim;            /* the operand's dims for it and for k */
    uint32_t inv[LL_MAX_BITS]; /* its shared layout's inverse */
    LinearLayout shape;        /* the operand's block shape (index <-> coordinates) */
    LLVMValueRef thread;       /* the offset part of this thread's coordinate */
    bool xor_thread;
    int ncoord;              /* distinct register constants along rdim */
    uint32_t coord[1 << 12]; /* their coordinate parts */
    int run[1 << 12];        /* vector length starting at each (0: inside a run) */
} Operand;

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The offset of the operand's element at coordinate c along odim (k = 0). */
static uint32_t coord_offset(const Operand *o, uint32_t c) {
    int32_t xy[2] = {0, 0};
    xy[o->odim] = (int32_t)c;
    return offset_of(o->inv, ll_flat(&o->shape, xy));
}

static void setup(Gen *g, Operand *o, ValId buf, const GenLayout *rl, int rdim) {
    IrType bt = ir_type(g->f, buf);
    memset(o, 0, sizeof *o);
    o->rdim = rdim, o->odim = rdim == 0 ? 0 : 1, o->kdim = rdim == 0 ? 1 : 0;
    gen_shared_inverse(g, g->f->vals[buf].layout, bt, o->inv);
    ll_init(&o->shape, 2, bt.shape);
    const LinearLayout *l = &rl->ll;
    int shift = ll_dim_shift(l, rdim), len = l->log2shape[rdim];
    uint32_t mask = (1u << len) - 1, thread_bits = 0;
    /* the thread part: each lane and warp basis's coordinate along rdim, as an offset */
    uint32_t b[2][LL_MAX_BITS];
    for (int in = LL_LANE; in <= LL_WARP; in++)
        for (int i = 0; i < l->nbits[in]; i++) {
            b[in - 1][i] = coord_offset(o, (l->basis[in][i] >> shift) & mask);
            thread_bits |= b[in - 1][i];
        }
    bool x = false;
    LLVMBasicBlockRef saved = gen_enter_prologue(g);
    LLVMValueRef lp = gen_thread_bits(g, g->lane, b[0], l->nbits[LL_LANE], 0, LL_MAX_BITS, &x);
    LLVMValueRef wp = gen_thread_bits(g, g->warp, b[1], l->nbits[LL_WARP], 0, LL_MAX_BITS, &x);
    o->thread = LLVMBuildXor(g->B, lp, wp, "");
    gen_leave_prologue(g, saved);
    /* the distinct register coordinates, in order; runs of consecutive offsets */
    int n = 1 << l->nbits[LL_REG], eb = dt_bytes(bt.pointee);
    uint32_t *cs = malloc(sizeof(uint32_t) * (size_t)n), reg_bits = 0;
    if (!cs) NR_DIE("out of memory");
    for (int r = 0; r < n; r++) cs[r] = (ll_apply_dim(l, LL_REG, (uint32_t)r) >> shift) & mask;
    qsort(cs, (size_t)n, sizeof *cs, cmp_u32);
    for (int r = 0; r < n; r++)
        if (!r || cs[r] != cs[r - 1]) {
            if (o->ncoord == (int)(sizeof o->coord / sizeof o->coord[0]))
                NR_DIE("dot: too many rows per thread");
            o->coord[o->ncoord++] = cs[r];
            reg_bits |= coord_offset(o, cs[r]);
        }
    free(cs);
    o->xor_thread = x || (thread_bits & reg_bits);
    for (int i = 0; i < o->ncoord;) {
        int v = 1;
        uint32_t base = coord_offset(o, o->coord[i]);
        while (v < 4 && 2 * v * eb <= 16 && i + 2 * v <= o->ncoord && !(base & (2 * v - 1)) &&
               !(thread_bits & (2 * v - 1))) {
            bool ok = true;
            for (int k = 0; k < 2 * v && ok; k++)
                ok = coord_offset(o, o->coord[i + k]) == base + (uint32_t)k;
            if (!ok) break;
            v *= 2;
        }
        o->run[i] = v;
        i += v;
    }
}

/* Loads the operand's elements at step k: vals[j] for coordinate j. */
static void load_k(Gen *g, const Operand *o, LLVMValueRef base, int dt, LLVMValueRef k,
                   LLVMValueRef *vals) {
    int eb = dt_bytes(dt), lk = o->shape.log2shape[o->kdim];
    uint32_t kb[LL_MAX_BITS];
    for (int j = 0; j < lk; j++) {
        int32_t xy[2] = {0, 0};
        xy[o->kdim] = 1 << j;
        kb[j] = offset_of(o->inv, ll_flat(&o->shape, xy));
    }
    bool x = false;
    LLVMValueRef koff = gen_thread_bits(g, k, kb, lk, 0, LL_MAX_BITS, &x);
    LLVMValueRef part = LLVMBuildXor(g->B, o->thread, koff, "");
    LLVMTypeRef et = gen_type(g, dt);
    for (int i = 0; i < o->ncoord; i += o->run[i]) {
        int v = o->run[i];
        uint32_t c = coord_offset(o, o->coord[i]);
        LLVMValueRef off = o->xor_thread && c ? LLVMBuildXor(g->B, part, gen_i32(g, c), "")
                                              : gen_add_const(g, part, c);
        off = gen_mul_const(g, off, eb);
        LLVMValueRef ptr = LLVMBuildGEP2(g->B, g->i8, base, &off, 1, "");
        LLVMValueRef ld =
            LLVMBuildLoad2(g->B, v == 1 ? et : LLVMVectorType(et, (unsigned)v), ptr, "");
        LLVMSetAlignment(ld, (unsigned)(eb * v));
        for (int j = 0; j < v; j++)
            vals[i + j] =
                widen(g, v == 1 ? ld : LLVMBuildExtractElement(g->B, ld, gen_i32(g, j), ""), dt);
    }
}

static int find_coord(const Operand *o, uint32_t c) {
    int lo = 0, hi = o->ncoord - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (o->coord[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

LLVMValueRef *gen_dot_acc(Gen *g, const IrOp *op, int *n) {
    int cnt;
    LLVMValueRef *c = gen_vals(g, op->operands[2], &cnt);
    if (n) *n = cnt;
    if (op->nopnds < 4) return c;
    LLVMValueRef use = gen_vals(g, op->operands[3], NULL)[0];
    LLVMValueRef *r = gen_alloc_regs(g, cnt);
    for (int i = 0; i < cnt; i++)
        r[i] = LLVMBuildSelect(g->B, use, c[i], LLVMConstNull(LLVMTypeOf(c[i])), "");
    return r;
}

static void fma_dot(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    ValId a = op->operands[0], b = op->operands[1], r = op->results[0];
    IrType at = ir_type(g->f, a);
    if (at.dt != DT_SMEM || ir_type(g->f, b).dt != DT_SMEM)
        gen_error(g, op->loc,
                  "internal error: a CUDA-core dot needs its operands in shared memory");
    int dt = at.pointee, K = at.shape[1];
    bool fl = dt != DT_I8, f64 = dt == DT_FP64;
    const GenLayout *rl = gen_layout(g, r);
    Operand *oa = malloc(sizeof *oa), *ob = malloc(sizeof *ob);
    if (!oa || !ob) NR_DIE("out of memory");
    setup(g, oa, a, rl, 0);
    setup(g, ob, b, rl, 1);
    LLVMValueRef abase = gen_vals(g, a, NULL)[0], bbase = gen_vals(g, b, NULL)[0];
    int n;
    LLVMValueRef *acc0 = gen_dot_acc(g, op, &n);
    LLVMTypeRef acct = f64 ? LLVMDoubleTypeInContext(g->C) : fl ? g->f32 : g->i32;
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->B);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(g->C, g->fn, "dot.k");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->fn, "dot.done");
    LLVMBuildBr(g->B, loop);
    LLVMPositionBuilderAtEnd(g->B, loop);
    LLVMValueRef k = LLVMBuildPhi(g->B, g->i32, "k");
    LLVMValueRef *phi = gen_alloc_regs(g, n), *next = gen_alloc_regs(g, n);
    for (int i = 0; i < n; i++) phi[i] = LLVMBuildPhi(g->B, acct, "");
    LLVMValueRef *av = gen_alloc_regs(g, oa->ncoord), *bv = gen_alloc_regs(g, ob->ncoord);
    load_k(g, oa, abase, dt, k, av);
    load_k(g, ob, bbase, dt, k, bv);
    int shm = ll_dim_shift(&rl->ll, 0), shn = ll_dim_shift(&rl->ll, 1);
    uint32_t mm = (1u << rl->ll.log2shape[0]) - 1, mn = (1u << rl->ll.log2shape[1]) - 1;
    for (int i = 0; i < n; i++) {
        uint32_t f = ll_apply_dim(&rl->ll, LL_REG, (uint32_t)i);
        LLVMValueRef x = av[find_coord(oa, (f >> shm) & mm)],
                     y = bv[find_coord(ob, (f >> shn) & mn)];
        next[i] = fl ? gen_intrinsic(g, f64 ? "llvm.fma.f64" : "llvm.fma.f32", acct,
                                     (LLVMValueRef[]){x, y, phi[i]}, 3)
                     : LLVMBuildAdd(g->B, LLVMBuildMul(g->B, x, y, ""), phi[i], "");
    }
    LLVMValueRef k1 = LLVMBuildAdd(g->B, k, gen_i32(g, 1), "");
    LLVMBasicBlockRef end = LLVMGetInsertBlock(g->B);
    LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, k1, gen_i32(g, K), ""), loop, done);
    LLVMValueRef kz = gen_i32(g, 0);
    LLVMAddIncoming(k, &kz, &pre, 1);
    LLVMAddIncoming(k, &k1, &end, 1);
    for (int i = 0; i < n; i++) {
        LLVMAddIncoming(phi[i], &acc0[i], &pre, 1);
        LLVMAddIncoming(phi[i], &next[i], &end, 1);
    }
    LLVMPositionBuilderAtEnd(g->B, done);
    gen_set(g, r, next, n);
    free(oa);
    free(ob);
}

void gen_dot(Gen *g, OpId id) {
    const IrOp *op = &g->f->ops[id];
    if (g->m->layouts[g->f->vals[op->results[0]].layout].kind == LAYOUT_MMA) gen_mma(g, id);
    else fma_dot(g, id);
}
