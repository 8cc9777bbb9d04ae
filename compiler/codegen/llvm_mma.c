/* llvm_mma.c - dot on the tensor cores: mma.sync (mma layout version 2, sm_80 and up) and
 * wgmma (version 3, sm_90a), and dot_wait.
 *
 * mma.sync m16n8k(8 * k_width): A and B are in registers in the result's dot_op layouts,
 * whose first registers are one instruction's fragments (ir_layout.h); the fragment of
 * the tile at (m0, k0) is the registers holding those elements moved by (m0, k0), found
 * by solving the layout's register map. Every (m, n) tile of the warp runs one
 * instruction per k step, in k order; k_width elements pack into each 32-bit register
 * (fp32 operands rounded to tf32 first, as cuBLAS does).
 *
 * wgmma m64 x instr_n x k: each warpgroup computes its 64-row slices of the tile; B (and A,
 * unless A is in registers) come from shared memory through 64-bit matrix descriptors
 * built from the buffer's shared layout (llvm_wgmma_desc.c). A dot issues
 * wgmma.fence, its instructions in k order, commit_group, and waits for them (dot) or
 * leaves them in flight (dot_async) until a dot_wait, all in one inline-asm statement. */
#include "gen_internal.h"
#include "llvm_wgmma.h"

#include <string.h>

/* The register of layout l holding the element of register j moved by (dr, dc). */
static int reg_at(const LinearLayout *l, int j, int dr, int dc) {
    int32_t c[2] = {dr, dc};
    uint32_t r;
    if (!ll_solve(l, LL_REG, ll_apply_dim(l, LL_REG, (uint32_t)j) ^ ll_flat(l, c), &r))
        NR_DIE("mma: no register holds the fragment at (%d, %d)", dr, dc);
    return (int)r;
}

/* k_width elements of one fragment register as a 32-bit word. */
static LLVMValueRef pack32(Gen *g, LLVMValueRef *elems, int kw, int dt) {
    if (kw == 1) {
        if (dt != DT_FP32) return LLVMBuildBitCast(g->B, elems[0], g->i32, "");
        /* tf32: round to nearest, ties away (cvt.rna.tf32.f32), as cuBLAS's TF32 mode */
        LLVMValueRef args[1] = {elems[0]};
        return gen_asm(g, "cvt.rna.tf32.f32 $0, $1;", "=r,f", g->i32, args, 1, false);
    }
    LLVMTypeRef et = LLVMTypeOf(elems[0]), vt = LLVMVectorType(et, (unsigned)kw);
    LLVMValueRef v = LLVMGetUndef(vt);
    for (int i = 0; i < kw; i++) v = LLVMBuildInsertElement(g->B, v, elems[i], gen_i32(g, i), "");
    return LLVMBuildBitCast(g->B, v, g->i32, "");
}

static const char *mma_shape(int dt) {
    switch (dt) {
    case DT_FP16: return "m16n8k16.row.col.f32.f16.f16.f32";
    case DT_BF16: return "m16n8k16.row.col.f32.bf16.bf16.f32";
    case DT_FP32: return "m16n8k8.row.col.f32.tf32.tf32.f32";
    default: return "m16n8k32.row.col.satfinite.s32.s8.s8.s32"; /* Triton's, see ir_ops.def */
    }
}

static void mma_sync(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    ValId a = op->operands[0], b = op->operands[1], r = op->results[0];
    IrType at = ir_type(g->f, a), rt = ir_type(g->f, r);
    if (at.dt == DT_SMEM || ir_type(g->f, b).dt == DT_SMEM)
        gen_error(g, op->loc, "internal error: mma.sync takes its operands in registers");
    const GenLayout *la = gen_layout(g, a), *lb = gen_layout(g, b), *lc = gen_layout(g, r);
    const IrLayout *mma = &g->m->layouts[g->f->vals[r].layout];
    int dt = at.dt, kw = g->m->layouts[g->f->vals[a].layout].k_width, ik = 8 * kw;
    int tm = 16 * mma->wpc[0],
        tn = 8 * mma->wpc[1]; /* the CTA's tile of one instruction per warp */
    int M = rt.shape[0], N = rt.shape[1], K = at.shape[1];
    int nm = M / tm > 0 ? M / tm : 1, nn = N / tn > 0 ? N / tn : 1, nk = K / ik;
    bool fl = dt != DT_I8;
    LLVMValueRef *A = gen_vals(g, a, NULL), *Bv = gen_vals(g, b, NULL),
                 *C = gen_dot_acc(g, op, NULL);
    int n = gen_nregs(g, r);
    LLVMValueRef *out = gen_alloc_regs(g, n);
    memcpy(out, C, sizeof(LLVMValueRef) * (size_t)n);
    char text[256];
    snprintf(
        text, sizeof text,
        "mma.sync.aligned.%s {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        mma_shape(dt));
    const char *cons = fl ? "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3" : "=r,=r,=r,=r,r,r,r,r,r,r,0,1,2,3";
    LLVMTypeRef ct = fl ? g->f32 : g->i32;
    LLVMTypeRef four[4] = {ct, ct, ct, ct};
    LLVMTypeRef rty = LLVMStructTypeInContext(g->C, four, 4, 0);
    for (int ki = 0; ki < nk; ki++)
        for (int mi = 0; mi < nm; mi++) {
            LLVMValueRef aw[4];
            for (int q = 0; q < 4; q++) {
                LLVMValueRef e[4];
                for (int i = 0; i < kw; i++)
                    e[i] = A[reg_at(&la->ll, q * kw + i, mi * tm, ki * ik)];
                aw[q] = pack32(g, e, kw, dt);
            }
            for (int ni = 0; ni < nn; ni++) {
                LLVMValueRef
                    args[10]; /* the inputs: A's 4 words, B's 2, C's 4 (tied to the outputs) */
                memcpy(args, aw, sizeof aw);
                for (int q = 0; q < 2; q++) {
                    LLVMValueRef e[4];
                    for (int i = 0; i < kw; i++)
                        e[i] = Bv[reg_at(&lb->ll, q * kw + i, ki * ik, ni * tn)];
                    args[4 + q] = pack32(g, e, kw, dt);
                }
                int ci[4];
                for (int q = 0; q < 4; q++)
                    ci[q] = reg_at(&lc->ll, q, mi * tm, ni * tn), args[6 + q] = out[ci[q]];
                LLVMValueRef res = gen_asm(g, text, cons, rty, args, 10, false);
                for (int q = 0; q < 4; q++)
                    out[ci[q]] = LLVMBuildExtractValue(g->B, res, (unsigned)q, "");
            }
        }
    gen_set(g, r, out, n);
}

/* ---- wgmma ---- */

static const char *wgmma_types(int dt) {
    switch (dt) {
    case DT_FP16: return "f32.f16.f16";
    case DT_BF16: return "f32.bf16.bf16";
    case DT_FP32: return "f32.tf32.tf32";
    case DT_FP8E4NV: return "f32.e4m3.e4m3";
    case DT_FP8E5: return "f32.e5m2.e5m2";
    default: return "s32.s8.s8";
    }
}

static int wgmma_k(int dt) { return dt == DT_FP32 ? 8 : dt_bits(dt) == 8 ? 32 : 16; }

/* A dot's wgmma work as one inline-asm statement: wgmma.fence, one instruction per
 * (m, n) tile and k step, commit_group, and for a synchronous dot the wait. Its outputs
 * are the accumulator registers, tied to their inputs. One statement rather than one per
 * instruction gives the same PTX, but LLVM builds, selects and allocates the accumulator
 * registers once: a statement of n outputs costs LLVM about as much as 40 ordinary
 * instructions, and so does each of the extractvalue sets that read them. */
typedef struct WgmmaText {
    StrBuf t, c;        /* the asm text and the constraints of the operands after the outputs */
    LLVMValueRef *args; /* those operands */
    int na, nout;
} WgmmaText;

static void wgmma_text_op(WgmmaText *w, LLVMValueRef v, const char *cons) {
    sb_printf(&w->c, ",%s", cons);
    w->args[w->na++] = v;
}

/* One wgmma instruction on the output registers regs[0..n): A from the descriptor adesc
 * (or the k_width-packed registers areg), B from the descriptor bdesc. */
static void wgmma_one(WgmmaText *w, int dt, int instr_n, const int *regs, int n, LLVMValueRef adesc,
                      LLVMValueRef *areg, LLVMValueRef bdesc, bool trans_a, bool trans_b,
                      const char *scale_d) {
    bool fl = dt != DT_I8, sixteen = dt_bits(dt) == 16;
    int o = w->nout + w->na; /* this instruction's first operand after the outputs */
    sb_printf(&w->t, "\n\twgmma.mma_async.sync.aligned.m64n%dk%d.%s {", instr_n, wgmma_k(dt),
              wgmma_types(dt));
    for (int i = 0; i < n; i++) sb_printf(&w->t, i ? ", $%d" : "$%d", regs[i]);
    if (areg) {
        sb_printf(&w->t, "}, {$%d, $%d, $%d, $%d}, $%d", o, o + 1, o + 2, o + 3, o + 4);
        for (int i = 0; i < 4; i++) wgmma_text_op(w, areg[i], "r");
    } else {
        sb_printf(&w->t, "}, $%d, $%d", o, o + 1);
        wgmma_text_op(w, adesc, "l");
    }
    wgmma_text_op(w, bdesc, "l");
    /* scale-d (1: D = A*B + D; the use_acc predicate: D = A*B where it is false), scales of
     * A and B 1, and for 16-bit inputs whether each operand is transposed (A from
     * registers has no transpose) */
    if (!fl) sb_printf(&w->t, ", %s;", scale_d);
    else if (!sixteen) sb_printf(&w->t, ", %s, 1, 1;", scale_d);
    else if (areg) sb_printf(&w->t, ", %s, 1, 1, %d;", scale_d, trans_b);
    else sb_printf(&w->t, ", %s, 1, 1, %d, %d;", scale_d, trans_a, trans_b);
}

/* The statement of w on the accumulator registers acc[0..n), which it updates. fresh: the
 * statement writes every register before it reads it (each tile's first instruction has
 * scale-d 0), so acc's values are not its inputs: the outputs are tied to nothing (and
 * early-clobber: later instructions of the statement read its other operands after the
 * first ones wrote theirs), and no register is zeroed for it. */
static void wgmma_emit_as(Gen *g, WgmmaText *w, LLVMValueRef *acc, int n, bool fresh) {
    bool fl = LLVMTypeOf(acc[0]) == g->f32;
    StrBuf c;
    sb_init(&c);
    for (int i = 0; i < n; i++)
        sb_printf(&c, "%s%s", i ? "," : "", fresh ? (fl ? "=&f" : "=&r") : (fl ? "=f" : "=r"));
    sb_puts(&c, sb_cstr(&w->c));
    for (int i = 0; !fresh && i < n; i++) sb_printf(&c, ",%d", i);
    sb_puts(&c, ",~{memory}");
    int nin = w->na + (fresh ? 0 : n);
    LLVMValueRef *args = gen_alloc_regs(g, nin);
    if (w->na) memcpy(args, w->args, sizeof(LLVMValueRef) * (size_t)w->na);
    if (!fresh) memcpy(args + w->na, acc, sizeof(LLVMValueRef) * (size_t)n);
    LLVMTypeRef *elts = arena_alloc(g->m->arena, sizeof(LLVMTypeRef) * (size_t)n);
    for (int i = 0; i < n; i++) elts[i] = LLVMTypeOf(acc[i]);
    LLVMValueRef res =
        gen_asm(g, sb_cstr(&w->t), sb_cstr(&c), LLVMStructTypeInContext(g->C, elts, (unsigned)n, 0),
                args, nin, true);
    for (int i = 0; i < n; i++) acc[i] = LLVMBuildExtractValue(g->B, res, (unsigned)i, "");
    sb_free(&c);
}

static void wgmma_emit(Gen *g, WgmmaText *w, LLVMValueRef *acc, int n) {
    wgmma_emit_as(g, w, acc, n, false);
}

/* Whether every register of acc is the constant +0 (a dot without an accumulator, or with
 * tl.zeros): A*B + 0 is A*B (-0 products too: +0 + -0 is +0 under round-to-nearest, and
 * scale-d 0 gives A*B's sum, as Triton's first instruction with scale-d 0 does). */
static bool acc_is_zero(LLVMValueRef *acc, int n) {
    for (int i = 0; i < n; i++)
        if (!LLVMIsConstant(acc[i]) || !LLVMIsNull(acc[i])) return false;
    return n > 0;
}

/* Ties the accumulator registers to a wait, so nothing reads them before it. keep: a
 * wait placed after independent work (overlap_dots.c), which gen_hoist_wgmma_waits leaves
 * where it is (the text says so). */
static void wait_acc(Gen *g, LLVMValueRef *acc, int n, int pending, bool keep) {
    if (!n) return;
    WgmmaText w = {.nout = n};
    sb_init(&w.t), sb_init(&w.c);
    sb_printf(&w.t, "// wait%s for %d registers\n\twgmma.wait_group.sync.aligned %d;",
              keep ? " (after independent work)" : "", n, pending);
    wgmma_emit(g, &w, acc, n);
    sb_free(&w.t), sb_free(&w.c);
}

/* Every bit that i * step sets for some i < n. */
static uint32_t bits_of_multiples(int n, int step) {
    uint32_t m = 0;
    for (int i = 0; i < n; i++) m |= (uint32_t)(i * step);
    return m;
}

/* A wgmma dot's shape: the instruction's n, the tiles along M and N and k steps, each
 * tile's size, the accumulator registers per instruction, where A is, this warpgroup's
 * first row and column, the warps along M and N. */
typedef struct WgmmaTile {
    int dt, in, nm, nn, nk, tm, tn, per;
    bool a_regs;
    LLVMValueRef row0, col0;
    int wm, wn;
} WgmmaTile;

/* Appends to w the instructions of k steps k0..k1 of every (m, n) tile: the first step of
 * each tile scales the accumulator by first_scale ("1", or a predicate's name), the others
 * by 1. */
static void wgmma_steps(Gen *g, WgmmaText *w, const WgmmaTile *t, const GenLayout *lc,
                        WgmmaOperand *da, WgmmaOperand *db, LLVMValueRef *apack, int k0, int k1,
                        const char *first_scale) {
    int ik = wgmma_k(t->dt);
    int *regs = arena_alloc(g->m->arena, sizeof(int) * (size_t)t->per);
    for (int mi = 0; mi < t->nm; mi++)
        for (int ni = 0; ni < t->nn; ni++) {
            for (int j = 0; j < t->per; j++) regs[j] = reg_at(&lc->ll, j, mi * t->tm, ni * t->tn);
            for (int ki = k0; ki < k1; ki++) {
                LLVMValueRef bdesc = wgmma_desc(g, db, t->col0, bits_of_multiples(t->wn, t->in),
                                                ni * t->tn, ki * ik);
                LLVMValueRef adesc =
                    t->a_regs ? NULL
                              : wgmma_desc(g, da, t->row0, bits_of_multiples(t->wm / 4, 64),
                                           mi * t->tm, ki * ik);
                wgmma_one(w, t->dt, t->in, regs, t->per, adesc,
                          t->a_regs ? apack + (mi * t->nk + ki) * 4 : NULL, bdesc,
                          !t->a_regs && da->mn_major, db->mn_major, ki == k0 ? first_scale : "1");
            }
        }
}

/* The dot with at most `chunk` k steps summed in the tensor cores at a time (fp8 with
 * imprecise set, as Triton's partial accumulators on Hopper): for each chunk, every (m, n)
 * tile's instructions over the chunk's k steps into fresh registers (scale-d 0), waited
 * for, then added to the result in fp32. Synchronous: each add needs its chunk done. A
 * false use_acc zeroes the result first. */
static void wgmma_chunks(Gen *g, const IrOp *op, const WgmmaTile *t, const GenLayout *lc,
                         WgmmaOperand *da, WgmmaOperand *db, LLVMValueRef *apack, LLVMValueRef *out,
                         int n, int chunk) {
    if (op->nopnds == 4) {
        LLVMValueRef u = gen_vals(g, op->operands[3], NULL)[0], zero = LLVMConstReal(g->f32, 0);
        for (int i = 0; i < n; i++) out[i] = LLVMBuildSelect(g->B, u, out[i], zero, "");
    }
    LLVMValueRef *part = gen_alloc_regs(g, n);
    for (int k0 = 0; k0 < t->nk; k0 += chunk) {
        int k1 = k0 + chunk < t->nk ? k0 + chunk : t->nk;
        for (int i = 0; i < n; i++) part[i] = LLVMConstReal(g->f32, 0);
        WgmmaText w = {.nout = n,
                       .args =
                           gen_alloc_regs(g, t->nm * t->nn * (k1 - k0) * (t->a_regs ? 5 : 2) + 1)};
        sb_init(&w.t), sb_init(&w.c);
        sb_puts(&w.t, "wgmma.fence.sync.aligned;");
        wgmma_steps(g, &w, t, lc, da, db, apack, k0, k1, "0");
        sb_puts(&w.t, "\n\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;");
        wgmma_emit_as(g, &w, part, n, true);
        sb_free(&w.t), sb_free(&w.c);
        for (int i = 0; i < n; i++) {
            out[i] = LLVMBuildFAdd(g->B, out[i], part[i], "");
            if (g->target->code.fp_fusion) /* as every float add of the kernel (llvm_elem.c) */
                LLVMSetFastMathFlags(out[i], LLVMFastMathAllowContract);
        }
    }
}

static void wgmma(Gen *g, OpId id, bool async) {
    IrOp *op = &g->f->ops[id];
    ValId a = op->operands[0], b = op->operands[1], c = op->operands[2], r = op->results[0];
    IrType at = ir_type(g->f, a), bt = ir_type(g->f, b), rt = ir_type(g->f, r);
    if (bt.dt != DT_SMEM) gen_error(g, op->loc, "internal error: wgmma reads B from shared memory");
    bool a_regs = at.dt != DT_SMEM;
    int dt = a_regs ? at.dt : at.pointee, ik = wgmma_k(dt);
    const IrLayout *mma = &g->m->layouts[g->f->vals[r].layout];
    const GenLayout *lc = gen_layout(g, r), *la = a_regs ? gen_layout(g, a) : NULL;
    int in = mma->instr_n, wm = mma->wpc[0], wn = mma->wpc[1];
    int tm = 16 * wm, tn = in * wn, M = rt.shape[0], N = rt.shape[1], K = at.shape[1];
    int nm = M / tm > 0 ? M / tm : 1, nn = N / tn > 0 ? N / tn : 1, nk = K / ik, per = in / 2;
    int n = gen_nregs(g, r);
    LLVMValueRef *out = gen_alloc_regs(g, n), *C = gen_vals(g, c, NULL);
    memcpy(out, C, sizeof(LLVMValueRef) * (size_t)n);
    /* this warp's warpgroup: its first row (along M) and column (along N) in the tile, from
     * the warp index broadcast here, not the prologue's: ptxas then computes the descriptors
     * (which need uniform registers) in uniform registers. From the prologue's index, live
     * across the loop, it computed them in vector registers and moved each one over (R2UR:
     * six in the tutorial's persistent matmul loop, one left), as Triton's code shows */
    LLVMValueRef wg = LLVMBuildLShr(g->B, gen_uniform_warp(g), gen_i32(g, 2), "");
    LLVMValueRef wg_m = LLVMBuildAnd(g->B, wg, gen_i32(g, wm / 4 - 1), "");
    LLVMValueRef wg_n = LLVMBuildLShr(g->B, wg, gen_i32(g, __builtin_ctz((unsigned)(wm / 4))), "");
    LLVMValueRef row0 = gen_mul_const(g, wg_m, 64), col0 = gen_mul_const(g, wg_n, in);
    WgmmaOperand da, db;
    if (!a_regs) wgmma_operand(g, &da, a, 0);
    wgmma_operand(g, &db, b, 1);
    /* A from registers: every register the wgmmas read is packed before the fence, which
     * orders the registers written before it (a register written after it makes ptxas
     * inject an arrive before each wgmma, C7519) */
    LLVMValueRef *apack = a_regs ? gen_alloc_regs(g, nm * nk * 4) : NULL;
    for (int mi = 0; a_regs && mi < nm; mi++)
        for (int ki = 0; ki < nk; ki++) {
            int kw = g->m->layouts[g->f->vals[a].layout].k_width;
            for (int q = 0; q < 4; q++) {
                LLVMValueRef e[4];
                for (int i = 0; i < kw; i++)
                    e[i] = gen_vals(g, a, NULL)[reg_at(&la->ll, q * kw + i, mi * tm, ki * ik)];
                apack[(mi * nk + ki) * 4 + q] = pack32(g, e, kw, dt);
            }
        }
    /* imprecise (fp8, Triton's max_num_imprecise_acc): the k steps in chunks of `chunk`
     * instructions, each summed from zero in registers of its own and added to the result
     * in fp32 once it is waited for */
    int chunk = dt_is_fp8(dt) && op->attr[1] > 0 && LLVMTypeOf(out[0]) == g->f32
                    ? (int)((op->attr[1] + ik - 1) / ik)
                    : 0;
    WgmmaTile t = {dt, in, nm, nn, nk, tm, tn, per, a_regs, row0, col0, wm, wn};
    if (chunk) {
        wgmma_chunks(g, op, &t, lc, &da, &db, apack, out, n, chunk);
        gen_set(g, r, out, n);
        return;
    }
    WgmmaText w = {.nout = n, .args = gen_alloc_regs(g, nm * nn * nk * (a_regs ? 5 : 2) + 1)};
    sb_init(&w.t), sb_init(&w.c);
    bool use_acc = op->nopnds == 4; /* the first k step of each tile scales D by it */
    if (use_acc) {
        LLVMValueRef u = gen_vals(g, op->operands[3], NULL)[0];
        sb_printf(&w.t, "{\n\t.reg .pred nr_use_acc;\n\tsetp.ne.b32 nr_use_acc, $%d, 0;\n\t", n);
        wgmma_text_op(&w, LLVMBuildZExt(g->B, u, g->i32, ""), "r");
    }
    sb_puts(&w.t, "wgmma.fence.sync.aligned;");
    /* an accumulator of zeros: each tile's first instruction ignores D (scale-d 0) instead of
     * reading registers zeroed for it (one move each, every time the dot runs) */
    bool fresh = !use_acc && acc_is_zero(out, n);
    wgmma_steps(g, &w, &t, lc, &da, &db, apack, 0, nk, use_acc ? "nr_use_acc" : fresh ? "0" : "1");
    sb_puts(&w.t, "\n\twgmma.commit_group.sync.aligned;");
    if (!async) sb_puts(&w.t, "\n\twgmma.wait_group.sync.aligned 0;");
    if (use_acc) sb_puts(&w.t, "\n\t}");
    wgmma_emit_as(g, &w, out, n, fresh);
    sb_free(&w.t), sb_free(&w.c);
    gen_set(g, r, out, n);
}

void gen_mma(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    if (op->code == OP_DOT_WAIT) {
        int total = 0;
        for (uint32_t i = 0; i < op->nopnds; i++) total += gen_nregs(g, op->operands[i]);
        LLVMValueRef *all = gen_alloc_regs(g, total);
        int k = 0;
        for (uint32_t i = 0; i < op->nopnds; i++) {
            int n;
            LLVMValueRef *v = gen_vals(g, op->operands[i], &n);
            memcpy(all + k, v, sizeof(LLVMValueRef) * (size_t)n);
            k += n;
        }
        wait_acc(g, all, total, (int)op->attr[0], op->attr[1] != 0);
        k = 0;
        for (uint32_t i = 0; i < op->nres; i++) {
            int n = gen_nregs(g, op->results[i]);
            gen_set(g, op->results[i], all + k, n);
            k += n;
        }
        return;
    }
    const IrLayout *l = &g->m->layouts[g->f->vals[op->results[0]].layout];
    if (l->version == 3) wgmma(g, id, op->code == OP_DOT_ASYNC);
    else mma_sync(g, id);
}

/* ---- after LLVM's passes: each wgmma wait first in its block ----
 *
 * ptxas keeps wgmmas asynchronous only when it can see their accumulators untouched until
 * the covering wgmma.wait_group. Measured with ptxas 13 on the loop that dot_async
 * pipelining makes (wait_group 1 in the body, wait_group 0 after it): when any instruction
 * precedes the wait_group 0 in the loop's exit block, even arithmetic on unrelated
 * registers, it serialises every wgmma of the kernel ("C7514 ... wgmma.mma_async
 * instructions are serialized due to non wgmma instructions reading accumulator
 * registers"); with the wait first, it does not. InstCombine puts such arithmetic there:
 * it sinks values computed in the prologue (lane and warp parts of the epilogue's layouts)
 * to the start of the block that uses them. So each wait moves up past the pure
 * instructions before it, stopping at anything with an effect or that it reads. */
static bool is_wgmma_wait(LLVMValueRef in) {
    if (!LLVMIsACallInst(in)) return false;
    LLVMValueRef callee = LLVMGetCalledValue(in);
    if (!callee || !LLVMIsAInlineAsm(callee)) return false;
    size_t len;
    const char *s = LLVMGetInlineAsmAsmString(callee, &len);
    /* a wait on its own: a synchronous dot's statement ends in its wait, after its wgmmas */
    return s && memmem(s, len, "wgmma.wait_group", 16) && !memmem(s, len, "mma_async", 9) &&
           !memmem(s, len, "(after independent work)", 24);
}

static bool wait_may_pass(LLVMValueRef prev, LLVMValueRef wait) {
    switch (LLVMGetInstructionOpcode(prev)) {
    case LLVMAdd:
    case LLVMSub:
    case LLVMMul:
    case LLVMShl:
    case LLVMLShr:
    case LLVMAShr:
    case LLVMAnd:
    case LLVMOr:
    case LLVMXor:
    case LLVMUDiv:
    case LLVMSDiv:
    case LLVMURem:
    case LLVMSRem:
    case LLVMFAdd:
    case LLVMFSub:
    case LLVMFMul:
    case LLVMFNeg:
    case LLVMICmp:
    case LLVMFCmp:
    case LLVMSelect:
    case LLVMGetElementPtr:
    case LLVMZExt:
    case LLVMSExt:
    case LLVMTrunc:
    case LLVMBitCast:
    case LLVMPtrToInt:
    case LLVMIntToPtr:
    case LLVMAddrSpaceCast:
    case LLVMExtractValue:
    case LLVMInsertValue:
    case LLVMExtractElement:
    case LLVMInsertElement:
    case LLVMShuffleVector:
    case LLVMFPExt:
    case LLVMFPTrunc:
    case LLVMSIToFP:
    case LLVMUIToFP:
    case LLVMFPToSI:
    case LLVMFPToUI: break;
    default: return false; /* calls, memory, phis, terminators */
    }
    int n = LLVMGetNumOperands(wait);
    for (int i = 0; i < n; i++)
        if (LLVMGetOperand(wait, (unsigned)i) == prev) return false;
    return true;
}

void gen_hoist_wgmma_waits(LLVMModuleRef M, LLVMBuilderRef B) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;
                 in = LLVMGetNextInstruction(in)) {
                if (!is_wgmma_wait(in)) continue;
                LLVMValueRef to = NULL;
                for (LLVMValueRef p = LLVMGetPreviousInstruction(in); p && wait_may_pass(p, in);
                     p = LLVMGetPreviousInstruction(p))
                    to = p;
                if (!to) continue;
                LLVMInstructionRemoveFromParent(in);
                LLVMPositionBuilderBefore(B, to);
                LLVMInsertIntoBuilder(B, in);
            }
}
