/* llvm_dot.c - dot on the CUDA cores (tensor cores are a later stage).
 *
 * Both operands go to shared memory (layout_dot_smem: A transposed, k-major, each k row
 * padded; B row-major), the CTA synchronises, and each thread accumulates the results it
 * holds over k in a loop, in k order with fp32 FMAs (i32 for i8): fp16/bf16 products
 * are exact in fp32, so this matches the interpreter bit for bit for those inputs. The
 * result layout (layout_dot) gives each thread a tile of rows x columns in chunks of
 * consecutive ones; one k step loads each chunk of A's column and of B's row as one
 * vector, so a thread makes rows + columns loads for rows * columns FMAs. */
#include "gen_internal.h"

/* Writes operand v (a 2-D block) to shared memory at base + row * rs + col * cs bytes. */
static void stage(Gen *g, ValId v, int base, int rs, int cs) {
    IrType t = ir_type(g->f, v);
    int n, eb = dt_bytes(t.dt);
    LLVMValueRef *in = gen_vals(g, v, &n);
    for (int i = 0; i < n; i++) {
        ElemPos p;
        gen_elem_pos(g, v, i, &p);
        LLVMValueRef off = LLVMBuildAdd(g->B, gen_mul_const(g, p.coord[0], rs), gen_mul_const(g, p.coord[1], cs), "");
        LLVMValueRef s = LLVMBuildStore(g->B, in[i], gen_smem_ptr(g, base, off, 1));
        LLVMSetAlignment(s, (unsigned)eb);
    }
}

static LLVMValueRef widen(Gen *g, LLVMValueRef x, int dt) {
    if (dt == DT_FP32) return x;
    if (dt == DT_I8) return LLVMBuildSExt(g->B, x, g->i32, "");
    return LLVMBuildFPExt(g->B, x, g->f32, "");
}

/* The chunks of one result dim this thread holds at step k: chunk c (registers c*e ..
 * c*e+e-1 along the dim) is one vector load of e elements at base + k*kstride +
 * coord*eb, coord being the chunk's first coordinate; out[c*e + j] gets element j. */
typedef struct Operand {
    int dim, base, kstride, e, n; /* result dim, byte base, k pitch, chunk, registers */
    LLVMValueRef *first;          /* per chunk: coordinate of its first element */
} Operand;

static void load_chunks(Gen *g, const Operand *o, int dt, LLVMValueRef k, LLVMValueRef *out) {
    int eb = dt_bytes(dt);
    LLVMTypeRef et = gen_type(g, dt), vt = LLVMVectorType(et, (unsigned)o->e);
    LLVMValueRef krow = gen_mul_const(g, k, o->kstride);
    for (int c = 0; c < o->n / o->e; c++) {
        LLVMValueRef off = LLVMBuildAdd(g->B, krow, gen_mul_const(g, o->first[c], eb), "");
        LLVMValueRef ptr = gen_smem_ptr(g, o->base, off, 1);
        if (o->e == 1) {
            LLVMValueRef v = LLVMBuildLoad2(g->B, et, ptr, "");
            LLVMSetAlignment(v, (unsigned)eb);
            out[c] = widen(g, v, dt);
            continue;
        }
        LLVMValueRef v = LLVMBuildLoad2(g->B, vt, ptr, "");
        LLVMSetAlignment(v, (unsigned)(eb * o->e));
        for (int j = 0; j < o->e; j++) out[c * o->e + j] = widen(g, LLVMBuildExtractElement(g->B, v, gen_i32(g, j), ""), dt);
    }
}

/* Per chunk of result dim d, the coordinate of its first element (from the registers
 * whose index along d is a multiple of the chunk). */
static void chunk_starts(Gen *g, ValId r, const LayoutDims *lr, Operand *o) {
    o->e = lr->e[o->dim], o->n = lr->n[o->dim];
    o->first = gen_alloc_regs(g, o->n / o->e);
    for (int i = 0; i < lr->nregs; i++) {
        int64_t pos[NR_MAX_RANK];
        int idx[NR_MAX_RANK];
        layout_reg_offsets(lr, g->m, g->f->vals[r].layout, i, pos, idx);
        int other = 1 - o->dim;
        if (idx[other] != 0 || idx[o->dim] % o->e) continue;
        ElemPos p;
        gen_elem_pos(g, r, i, &p);
        o->first[idx[o->dim] / o->e] = p.coord[o->dim];
    }
}

void gen_dot(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    ValId a = op->operands[0], b = op->operands[1], c = op->operands[2], r = op->results[0];
    IrType at = ir_type(g->f, a), bt = ir_type(g->f, b), rt = ir_type(g->f, r);
    int dt = at.dt, eb = dt_bytes(dt), K = at.shape[1];
    bool fl = dt != DT_I8;
    if (!op->smem_size) gen_error(g, op->loc, "internal error: dot without shared memory");
    DotSmem s;
    layout_dot_smem(g->m, g->f->vals[r].layout, at, bt, &s);
    int base = op->smem_offset;
    stage(g, a, base, eb, s.a_pitch);             /* A[m][k] at k * a_pitch + m */
    stage(g, b, base + s.b_offset, s.b_pitch, eb); /* B[k][n] at k * b_pitch + n */
    gen_barrier(g);
    int n;
    LLVMValueRef *acc0 = gen_vals(g, c, &n);
    LayoutDims lr;
    layout_dims(g->m, g->f->vals[r].layout, rt, &lr);
    Operand oa = {0, base, s.a_pitch, 0, 0, NULL}, ob = {1, base + s.b_offset, s.b_pitch, 0, 0, NULL};
    chunk_starts(g, r, &lr, &oa);
    chunk_starts(g, r, &lr, &ob);
    LLVMTypeRef acct = fl ? g->f32 : g->i32;
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->B);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(g->C, g->fn, "dot.k");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->fn, "dot.done");
    LLVMBuildBr(g->B, loop);
    LLVMPositionBuilderAtEnd(g->B, loop);
    LLVMValueRef k = LLVMBuildPhi(g->B, g->i32, "k");
    LLVMValueRef *phi = gen_alloc_regs(g, n), *next = gen_alloc_regs(g, n);
    for (int i = 0; i < n; i++) phi[i] = LLVMBuildPhi(g->B, acct, "");
    LLVMValueRef *av = gen_alloc_regs(g, oa.n), *bv = gen_alloc_regs(g, ob.n);
    load_chunks(g, &oa, dt, k, av);
    load_chunks(g, &ob, dt, k, bv);
    for (int i = 0; i < n; i++) {
        int64_t pos[NR_MAX_RANK];
        int idx[NR_MAX_RANK];
        layout_reg_offsets(&lr, g->m, g->f->vals[r].layout, i, pos, idx);
        LLVMValueRef x = av[idx[0]], y = bv[idx[1]];
        next[i] = fl ? gen_intrinsic(g, "llvm.fma.f32", g->f32, (LLVMValueRef[]){x, y, phi[i]}, 3)
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
}
