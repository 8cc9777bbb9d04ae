/* llvm_mem.c - loads, stores and atomics.
 *
 * A thread's registers along the fastest dim come in chunks of consecutive elements
 * (spt). Where the alignment facts prove a run of v of them contiguous, v * size
 * aligned and (for masked accesses) under one mask value, the run is one vector access
 * (ld.global.v4 / st.global.v4 for 4 x 32 bits). A masked access is one predicated PTX
 * instruction in inline assembly (`@p ld.global.v4.b32`, after moving `other` into the
 * destination registers), as Triton does: no branch, no extra basic blocks. Stores and atomics are
 * done by one thread per element: duplicates from replicated layouts are masked off,
 * and scalar ones are done by thread 0 (an atomic's old value then reaches the other
 * threads through shared memory). */
#include <llvm-c/Target.h>
#include <string.h>

#include "gen_internal.h"

/* The elements one access moves: a run of consecutive registers along the dim of the
 * layout's first register basis, as far as the alignment facts prove the addresses
 * contiguous and aligned (and the mask constant), at most 16 bytes. */
static int vector_width(Gen *g, ValId ptr, ValId mask, int eb) {
    IrType t = ir_type(g->f, ptr);
    if (!t.rank) return 1;
    const LinearLayout *l = &gen_layout(g, ptr)->ll;
    if (!l->nbits[LL_REG] || !l->basis[LL_REG][0]) return 1;
    int fast = 0;
    for (int d = 0; d < l->rank; d++)
        if (l->basis[LL_REG][0] == 1u << ll_dim_shift(l, d)) fast = d;
    int run = 1 << ll_contig_bits(l, LL_REG, fast);
    int v = axis_info_vector_width(&g->info[ptr], mask ? &g->info[mask] : NULL, eb, fast);
    while (v > 1 && (run % v || v * eb > 16)) v /= 2;
    return v < 1 ? 1 : v;
}

static LLVMValueRef guarded(Gen *g, LLVMValueRef cond, LLVMTypeRef ty, LLVMValueRef ptr,
                            unsigned align, LLVMValueRef other) {
    if (!cond) {
        LLVMValueRef v = LLVMBuildLoad2(g->B, ty, ptr, "");
        LLVMSetAlignment(v, align);
        return v;
    }
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(g->B);
    LLVMBasicBlockRef ld = LLVMAppendBasicBlockInContext(g->C, g->fn, "ld");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->C, g->fn, "ld.join");
    LLVMBuildCondBr(g->B, cond, ld, join);
    LLVMPositionBuilderAtEnd(g->B, ld);
    LLVMValueRef v = LLVMBuildLoad2(g->B, ty, ptr, "");
    LLVMSetAlignment(v, align);
    LLVMBuildBr(g->B, join);
    LLVMPositionBuilderAtEnd(g->B, join);
    LLVMValueRef phi = LLVMBuildPhi(g->B, ty, "");
    LLVMValueRef vals[2] = {v, other};
    LLVMBasicBlockRef bbs[2] = {ld, cur};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

/* ---- predicated accesses in inline PTX ---- */

/* A vector access of `bits` total bits moves as words: 1-4 x b32, or one b16 / b8. */
typedef struct Words {
    int n, bits;      /* word count and width (32, 16 or 8) */
    LLVMTypeRef wty;  /* i32 or i16 (b8 travels in a 16-bit register) */
    const char *cons; /* "r" or "h" */
    const char *sfx;  /* ".b32", ".b16", ".u8" */
} Words;

static Words words_of(Gen *g, int bits) {
    if (bits >= 32) return (Words){bits / 32, 32, g->i32, "r", ".b32"};
    if (bits == 16) return (Words){1, 16, g->i16, "h", ".b16"};
    return (Words){1, 8, g->i16, "h", ".u8"};
}

/* the value (a vector or a scalar of the memory type) as words */
static void to_words(Gen *g, LLVMValueRef v, Words w, LLVMValueRef *out) {
    if (w.bits == 8) {
        out[0] = LLVMBuildZExt(g->B, LLVMBuildBitCast(g->B, v, g->i8, ""), g->i16, "");
        return;
    }
    if (w.n == 1) {
        out[0] = LLVMBuildBitCast(g->B, v, w.wty, "");
        return;
    }
    LLVMValueRef vec = LLVMBuildBitCast(g->B, v, LLVMVectorType(w.wty, (unsigned)w.n), "");
    for (int i = 0; i < w.n; i++) out[i] = LLVMBuildExtractElement(g->B, vec, gen_i32(g, i), "");
}

static LLVMValueRef from_words(Gen *g, LLVMValueRef *wv, Words w, LLVMTypeRef ty) {
    if (w.bits == 8) return LLVMBuildBitCast(g->B, LLVMBuildTrunc(g->B, wv[0], g->i8, ""), ty, "");
    if (w.n == 1) return LLVMBuildBitCast(g->B, wv[0], ty, "");
    LLVMValueRef vec = LLVMGetUndef(LLVMVectorType(w.wty, (unsigned)w.n));
    for (int i = 0; i < w.n; i++) vec = LLVMBuildInsertElement(g->B, vec, wv[i], gen_i32(g, i), "");
    return LLVMBuildBitCast(g->B, vec, ty, "");
}

static int type_bits(Gen *g, LLVMTypeRef ty) {
    LLVMTargetDataRef dl = LLVMGetModuleDataLayout(g->M);
    return (int)LLVMSizeOfTypeInBits(dl, ty);
}

/* ---- cache modifiers and eviction policies (ir_ops.def): Triton's PTX ----
 * A load's or store's attrs cache and evict become qualifiers of its ld.global / st.global,
 * as Triton's LoadStoreOpToLLVM writes them: .ca / .cg for a load (.cv: none), .wb / .cg /
 * .cs / .wt for a store, and for evict_first / evict_last .L1::evict_* and, on sm_80 and
 * later, .L2::cache_hint with the policy createpolicy.fractional.L2::evict_*.b64 gives
 * (fraction 1.0; one per op); beside a cache operator, only the L2 hint. An access with any
 * of them is inline PTX, predicated or not. */
typedef struct Hints {
    const char *cache, *l1; /* qualifiers ("" for none) */
    LLVMValueRef policy;    /* the L2 cache-hint policy (i64), or NULL */
} Hints;

static bool has_hints(const IrOp *op) { return op->attr[0] || op->attr[1]; }

static Hints hints_of(Gen *g, const IrOp *op) {
    static const char *const ld[4] = {"", ".ca", ".cg", ""};
    static const char *const st[5] = {"", ".wb", ".cg", ".cs", ".wt"};
    static const char *const l1[3] = {"", ".L1::evict_first", ".L1::evict_last"};
    static const char *const policy[3] = {"",
                                          "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;",
                                          "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;"};
    int c = (int)op->attr[0], e = (int)op->attr[1];
    bool load = op->code == OP_LOAD;
    if (c < 0 || c >= (load ? 4 : 5)) c = 0;
    if (e < 0 || e > 2) e = 0;
    /* PTX takes no .L1::evict_* beside a cache operator (ptxas: "cannot be combined"),
     * where Triton writes both and fails: the cache operator and the L2 hint stay */
    Hints h = {load ? ld[c] : st[c], l1[c ? 0 : e], NULL};
    const char *arch = g->target->arch;
    bool sm80 = arch && ir_gpu_arch_from_name(arch, strlen(arch)) >= GPU_SM80;
    if (e && sm80) h.policy = gen_asm(g, policy[e], "=l", g->i64, NULL, 0, false);
    return h;
}

/* [@p] ld.global{hints}{.vN}.bW: with a condition, other is moved into the outputs first */
static LLVMValueRef predicated_load(Gen *g, LLVMValueRef cond, LLVMTypeRef ty, LLVMValueRef ptr,
                                    LLVMValueRef other, const Hints *h) {
    Words w = words_of(g, type_bits(g, ty));
    StrBuf a, c;
    sb_init(&a), sb_init(&c);
    LLVMValueRef args[3 + 4];
    int na = 0, in = w.n; /* operand numbers: the outputs, then the inputs */
    int pc = cond ? in + na++ : -1;
    if (cond) args[pc - in] = cond;
    int pp = in + na++;
    args[pp - in] = ptr;
    int po = in + na;
    if (cond) to_words(g, other, w, args + na), na += w.n;
    int pl = h && h->policy ? in + na++ : -1;
    if (pl >= 0) args[pl - in] = h->policy;
    if (cond)
        for (int i = 0; i < w.n; i++)
            sb_printf(&a, "mov%s $%d, $%d;\n\t", w.bits == 8 ? ".b16" : w.sfx, i, po + i);
    if (cond) sb_printf(&a, "@$%d ", pc);
    sb_puts(&a, "ld.global");
    if (h) sb_printf(&a, "%s%s%s", h->cache, h->l1, h->policy ? ".L2::cache_hint" : "");
    if (w.n > 1) sb_printf(&a, ".v%d", w.n);
    sb_printf(&a, "%s ", w.sfx);
    if (w.n > 1) sb_putc(&a, '{');
    for (int i = 0; i < w.n; i++) sb_printf(&a, i ? ", $%d" : "$%d", i);
    if (w.n > 1) sb_putc(&a, '}');
    sb_printf(&a, ", [$%d]", pp);
    if (pl >= 0) sb_printf(&a, ", $%d", pl);
    sb_putc(&a, ';');
    for (int i = 0; i < w.n; i++) sb_printf(&c, "=%s,", w.cons);
    sb_puts(&c, cond ? "b,l" : "l");
    if (cond)
        for (int i = 0; i < w.n; i++) sb_printf(&c, ",%s", w.cons);
    if (pl >= 0) sb_puts(&c, ",l");
    LLVMTypeRef argt[7], elts[4];
    for (int i = 0; i < na; i++) argt[i] = LLVMTypeOf(args[i]);
    for (int i = 0; i < w.n; i++) elts[i] = w.wty;
    LLVMTypeRef rty = w.n == 1 ? w.wty : LLVMStructTypeInContext(g->C, elts, (unsigned)w.n, 0);
    LLVMTypeRef fty = LLVMFunctionType(rty, argt, (unsigned)na, 0);
    LLVMValueRef asmv =
        LLVMGetInlineAsm(fty, a.data, a.len, c.data, c.len, 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef r = LLVMBuildCall2(g->B, fty, asmv, args, (unsigned)na, "");
    sb_free(&a), sb_free(&c);
    LLVMValueRef wv[4];
    for (int i = 0; i < w.n; i++)
        wv[i] = w.n == 1 ? r : LLVMBuildExtractValue(g->B, r, (unsigned)i, "");
    return from_words(g, wv, w, ty);
}

/* [@p] st.global{hints}{.vN}.bW */
static void predicated_store(Gen *g, LLVMValueRef cond, LLVMValueRef val, LLVMValueRef ptr,
                             const Hints *h) {
    Words w = words_of(g, type_bits(g, LLVMTypeOf(val)));
    StrBuf a, c;
    sb_init(&a), sb_init(&c);
    LLVMValueRef args[3 + 4];
    int na = 0;
    int pc = cond ? na++ : -1;
    if (cond) args[pc] = cond;
    int pp = na++;
    args[pp] = ptr;
    int pv = na;
    to_words(g, val, w, args + na), na += w.n;
    int pl = h && h->policy ? na++ : -1;
    if (pl >= 0) args[pl] = h->policy;
    if (cond) sb_printf(&a, "@$%d ", pc);
    sb_puts(&a, "st.global");
    if (h) sb_printf(&a, "%s%s%s", h->cache, h->l1, h->policy ? ".L2::cache_hint" : "");
    if (w.n > 1) sb_printf(&a, ".v%d", w.n);
    sb_printf(&a, "%s [$%d], ", w.bits == 8 ? ".b8" : w.sfx, pp);
    if (w.n > 1) sb_putc(&a, '{');
    for (int i = 0; i < w.n; i++) sb_printf(&a, i ? ", $%d" : "$%d", pv + i);
    if (w.n > 1) sb_putc(&a, '}');
    if (pl >= 0) sb_printf(&a, ", $%d", pl);
    sb_putc(&a, ';');
    sb_puts(&c, cond ? "b,l" : "l");
    for (int i = 0; i < w.n; i++) sb_printf(&c, ",%s", w.cons);
    if (pl >= 0) sb_puts(&c, ",l");
    sb_puts(&c, ",~{memory}");
    LLVMTypeRef argt[7];
    for (int i = 0; i < na; i++) argt[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(g->vd, argt, (unsigned)na, 0);
    LLVMValueRef asmv =
        LLVMGetInlineAsm(fty, a.data, a.len, c.data, c.len, 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMBuildCall2(g->B, fty, asmv, args, (unsigned)na, "");
    sb_free(&a), sb_free(&c);
}

static void guarded_store(Gen *g, LLVMValueRef cond, LLVMValueRef val, LLVMValueRef ptr,
                          unsigned align) {
    LLVMBasicBlockRef st = NULL, join = NULL;
    if (cond) {
        st = LLVMAppendBasicBlockInContext(g->C, g->fn, "st");
        join = LLVMAppendBasicBlockInContext(g->C, g->fn, "st.join");
        LLVMBuildCondBr(g->B, cond, st, join);
        LLVMPositionBuilderAtEnd(g->B, st);
    }
    LLVMValueRef s = LLVMBuildStore(g->B, val, ptr);
    LLVMSetAlignment(s, align);
    if (cond) {
        LLVMBuildBr(g->B, join);
        LLVMPositionBuilderAtEnd(g->B, join);
    }
}

static bool never(LLVMValueRef c) {
    return c && LLVMIsAConstantInt(c) && !LLVMConstIntGetZExtValue(c);
}

static LLVMValueRef pack(Gen *g, LLVMValueRef *regs, int r, int v, int dt) {
    if (v == 1) return gen_to_mem(g, regs[r], dt);
    LLVMValueRef vec = LLVMGetUndef(LLVMVectorType(gen_mem_type(g, dt), (unsigned)v));
    for (int k = 0; k < v; k++)
        vec = LLVMBuildInsertElement(g->B, vec, gen_to_mem(g, regs[r + k], dt), gen_i32(g, k), "");
    return vec;
}

static void gen_load(Gen *g, IrOp *op) {
    ValId ptr = op->operands[0], mask = op->nopnds > 1 ? op->operands[1] : 0,
          oth = op->nopnds > 2 ? op->operands[2] : 0;
    int dt = ir_type(g->f, ptr).pointee, eb = dt_bytes(dt), n;
    int v = vector_width(g, ptr, mask, eb);
    LLVMValueRef *P = gen_vals(g, ptr, &n), *M = mask ? gen_vals(g, mask, NULL) : NULL,
                 *O = oth ? gen_vals(g, oth, NULL) : NULL;
    LLVMValueRef *out = gen_alloc_regs(g, n);
    LLVMTypeRef et = gen_mem_type(g, dt), ty = v == 1 ? et : LLVMVectorType(et, (unsigned)v);
    Hints h, *hp = NULL;
    if (has_hints(op)) h = hints_of(g, op), hp = &h;
    for (int r = 0; r < n; r += v) {
        LLVMValueRef other = LLVMConstNull(ty);
        if (M && O) other = pack(g, O, r, v, dt);
        /* NVPTX splits a <4 x bfloat> load into two ld.b32 (LLVM folds a <4 x i16> load
         * and bitcast back into it): those are one ld.v2.b32 in inline PTX, as Triton's */
        bool split = v == 4 && dt == DT_BF16;
        LLVMValueRef x = M || hp || split ? predicated_load(g, M ? M[r] : NULL, ty, P[r], other, hp)
                                          : guarded(g, NULL, ty, P[r], (unsigned)(v * eb), other);
        for (int k = 0; k < v; k++)
            out[r + k] = gen_from_mem(
                g, v == 1 ? x : LLVMBuildExtractElement(g->B, x, gen_i32(g, k), ""), dt);
    }
    gen_set(g, op->results[0], out, n);
}

static void gen_store(Gen *g, IrOp *op) {
    ValId ptr = op->operands[0], val = op->operands[1], mask = op->nopnds > 2 ? op->operands[2] : 0;
    int dt = ir_type(g->f, ptr).pointee, eb = dt_bytes(dt), n;
    int v = vector_width(g, ptr, mask, eb);
    LLVMValueRef *P = gen_vals(g, ptr, &n), *V = gen_vals(g, val, NULL),
                 *M = mask ? gen_vals(g, mask, NULL) : NULL;
    Hints h, *hp = NULL;
    if (has_hints(op)) h = hints_of(g, op), hp = &h;
    for (int r = 0; r < n; r += v) {
        LLVMValueRef once = gen_unique(g, ptr, r);
        if (never(once)) continue; /* a register that copies another */
        LLVMValueRef cond = gen_and(g, M ? M[r] : NULL, once);
        LLVMValueRef val = pack(g, V, r, v, dt);
        if (cond || hp) predicated_store(g, cond, val, P[r], hp);
        else guarded_store(g, NULL, val, P[r], (unsigned)(v * eb));
    }
}

static LLVMAtomicRMWBinOp rmw_op(int kind, int dt) {
    bool fl = dt_is_float(dt), sg = dt_is_signed(dt);
    switch (kind) {
    case RMW_ADD: return fl ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd;
    case RMW_MAX:
        return fl ? LLVMAtomicRMWBinOpFMax : sg ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
    case RMW_MIN:
        return fl ? LLVMAtomicRMWBinOpFMin : sg ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
    case RMW_XCHG: return LLVMAtomicRMWBinOpXchg;
    case RMW_AND: return LLVMAtomicRMWBinOpAnd;
    case RMW_OR: return LLVMAtomicRMWBinOpOr;
    default: return LLVMAtomicRMWBinOpXor;
    }
}

/* An atomic's memory semantics and scope as PTX spells them (Triton's default, acq_rel at
 * gpu scope, for attributes out of range). */
static void atom_sem_scope(const IrOp *op, const char **sem, const char **scope) {
    static const char *const sems[] = {"acq_rel", "acquire", "release", "relaxed"};
    static const char *const scopes[] = {"gpu", "cta", "sys"};
    int slot = ir_atomic_sem_slot(op->code);
    int se = (int)op->attr[slot], sc = (int)op->attr[slot + 1];
    *sem = sems[se < 0 || se > SEM_RELAXED ? SEM_ACQ_REL : se];
    *scope = scopes[sc < 0 || sc > SCOPE_SYS ? SCOPE_GPU : sc];
}

/* The PTX instruction that does atomic `op` on dt with its memory semantics, spelled as
 * Triton spells it (rmw: atom.global.SCOPE.SEM.OP.TYPE; cas: atom.global.SEM.SCOPE.cas.TYPE),
 * into buf; false where PTX has none (16-bit float min/max, 8- and 16-bit integers, bf16
 * add before sm_90, 16-bit exchange): those go through LLVM (a compare-and-swap loop) with
 * fences. fp32 and fp64 max (min) are two integer atomics on the bits, as Triton's: buf
 * the signed max (min) for values whose sign bit is clear, buf2 (given) the unsigned min
 * (max) for the others (float_minmax). */
static bool atom_ptx(Gen *g, const IrOp *op, int dt, char *buf, size_t n, char *buf2) {
    const char *sem, *scope;
    atom_sem_scope(op, &sem, &scope);
    int bits = dt_bits(dt);
    bool fl = dt_is_float(dt),
         sm90 = ir_gpu_arch_from_name(g->target->arch, strlen(g->target->arch)) >= GPU_SM90;
    if (op->code == OP_ATOMIC_CAS) {
        if (bits < 16) return false;
        snprintf(buf, n, "atom.global.%s.%s.cas.b%d $0, [$1], $2, $3;", sem, scope, bits);
        return true;
    }
    const char *name, *ty;
    char tyb[16];
    switch ((int)op->attr[0]) {
    case RMW_ADD:
        if (fl && bits == 16 && (dt == DT_FP16 || sm90)) {
            name = "add.noftz", ty = dt == DT_BF16 ? "bf16" : "f16";
            break;
        }
        if (bits < 32 || (fl && dt != DT_FP32 && dt != DT_FP64)) return false;
        name = "add", ty = fl ? (bits == 32 ? "f32" : "f64") : bits == 32 ? "u32" : "u64";
        break;
    case RMW_MAX:
    case RMW_MIN:
        if (bits < 32) return false;
        name = op->attr[0] == RMW_MAX ? "max" : "min";
        snprintf(tyb, sizeof tyb, "%c%d", !fl && !dt_is_signed(dt) ? 'u' : 's', bits), ty = tyb;
        if (fl) {
            if (!buf2) return true; /* asked only whether PTX has it */
            snprintf(buf2, n, "atom.global.%s.%s.%s.u%d $0, [$1], $2;", scope, sem,
                     op->attr[0] == RMW_MAX ? "min" : "max", bits);
        }
        break;
    default: /* and, or, xor, xchg: bits */
        if (bits < 32) return false;
        name = op->attr[0] == RMW_AND   ? "and"
               : op->attr[0] == RMW_OR  ? "or"
               : op->attr[0] == RMW_XOR ? "xor"
                                        : "exch";
        snprintf(tyb, sizeof tyb, "b%d", bits), ty = tyb;
    }
    snprintf(buf, n, "atom.global.%s.%s.%s.%s $0, [$1], $2;", scope, sem, name, ty);
    return true;
}

static LLVMValueRef atom_asm(Gen *g, const char *text, int dt, LLVMValueRef ptr, LLVMValueRef a,
                             LLVMValueRef b);

/* fp32/fp64 atomic max (min) as two integer atomics on the bits (atom_ptx's buf and buf2):
 * over values whose sign bit is clear the float order is the signed order of the bits,
 * over those whose sign bit is set the reverse of the unsigned order, and a value of one
 * sign against memory of the other compares the right way in both (-0.0 below +0.0). A
 * NaN value leaves memory as it is (the extreme integer for the signed op); a NaN in
 * memory, as in Triton, stays against every value when its sign bit is clear for max (set
 * for min) and gives way otherwise (ir_ops.def). */
static LLVMValueRef float_minmax(Gen *g, const IrOp *op, int dt, LLVMValueRef ptr, LLVMValueRef a,
                                 const char *pos, const char *neg) {
    int bits = dt_bits(dt), it = bits == 64 ? DT_I64 : DT_I32;
    LLVMTypeRef ity = gen_type(g, it);
    LLVMValueRef x = LLVMBuildBitCast(g->B, a, ity, "");
    LLVMValueRef nan = LLVMBuildFCmp(g->B, LLVMRealUNO, a, a, "");
    LLVMValueRef sign = LLVMBuildICmp(g->B, LLVMIntSLT, x, LLVMConstNull(ity), "");
    unsigned long long lo = 1ull << (bits - 1), hi = lo - 1; /* INT_MIN, INT_MAX */
    x = LLVMBuildSelect(g->B, nan, LLVMConstInt(ity, op->attr[0] == RMW_MAX ? lo : hi, 0), x, "");
    sign = LLVMBuildAnd(g->B, sign, LLVMBuildNot(g->B, nan, ""), "");
    LLVMBasicBlockRef bp = LLVMAppendBasicBlockInContext(g->C, g->fn, "atom.pos");
    LLVMBasicBlockRef bn = LLVMAppendBasicBlockInContext(g->C, g->fn, "atom.neg");
    LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(g->C, g->fn, "atom.sign");
    LLVMBuildCondBr(g->B, sign, bn, bp);
    LLVMPositionBuilderAtEnd(g->B, bp);
    LLVMValueRef op_ = atom_asm(g, pos, it, ptr, x, NULL);
    LLVMBuildBr(g->B, bj);
    LLVMPositionBuilderAtEnd(g->B, bn);
    LLVMValueRef on = atom_asm(g, neg, it, ptr, x, NULL);
    LLVMBuildBr(g->B, bj);
    LLVMPositionBuilderAtEnd(g->B, bj);
    LLVMValueRef phi = LLVMBuildPhi(g->B, ity, "");
    LLVMAddIncoming(phi, (LLVMValueRef[]){op_, on}, (LLVMBasicBlockRef[]){bp, bn}, 2);
    return LLVMBuildBitCast(g->B, phi, gen_type(g, dt), "");
}

/* The inline-asm constraint letter of a dt register. */
static char reg_letter(int dt) {
    int bits = dt_bits(dt);
    if (dt == DT_FP32) return 'f';
    if (dt == DT_FP64) return 'd';
    return bits == 64 ? 'l' : bits == 32 ? 'r' : 'h';
}

/* One native atom (atom_ptx's text), its operands and result in dt's registers (16-bit
 * floats as their bits). */
static LLVMValueRef atom_asm(Gen *g, const char *text, int dt, LLVMValueRef ptr, LLVMValueRef a,
                             LLVMValueRef b) {
    LLVMTypeRef ty = gen_type(g, dt);
    bool half = dt_bits(dt) == 16;
    LLVMTypeRef rt = half ? LLVMIntTypeInContext(g->C, 16) : ty;
    char c = reg_letter(dt), cons[40];
    LLVMValueRef args[3] = {LLVMBuildPtrToInt(g->B, ptr, g->i64, ""),
                            half ? LLVMBuildBitCast(g->B, a, rt, "") : a,
                            b && half ? LLVMBuildBitCast(g->B, b, rt, "") : b};
    if (b) snprintf(cons, sizeof cons, "=%c,l,%c,%c,~{memory}", c, c, c);
    else snprintf(cons, sizeof cons, "=%c,l,%c,~{memory}", c, c);
    LLVMValueRef r = gen_asm(g, text, cons, rt, args, b ? 3 : 2, true);
    return half ? LLVMBuildBitCast(g->B, r, ty, "") : r;
}

static LLVMValueRef atomic_one(Gen *g, IrOp *op, int dt, LLVMValueRef cond, LLVMValueRef ptr,
                               LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef ty = gen_type(g, dt);
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(g->B);
    LLVMBasicBlockRef doit = LLVMAppendBasicBlockInContext(g->C, g->fn, "atom");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->C, g->fn, "atom.join");
    LLVMBuildCondBr(g->B, cond ? cond : LLVMConstInt(g->i1, 1, 0), doit, join);
    LLVMPositionBuilderAtEnd(g->B, doit);
    LLVMValueRef old;
    char text[96], text2[96] = "";
    if (atom_ptx(g, op, dt, text, sizeof text, text2)) {
        old = text2[0] ? float_minmax(g, op, dt, ptr, a, text, text2)
                       : atom_asm(g, text, dt, ptr, a, b);
    } else if (op->code == OP_ATOMIC_CAS) { /* sema takes 16 to 64 bits, atom_ptx all of them */
        NR_DIE("atomic_cas of %d-bit elements", dt_bits(dt));
    } else {
        old = LLVMBuildAtomicRMW(g->B, rmw_op((int)op->attr[0], dt), ptr, a,
                                 LLVMAtomicOrderingMonotonic, 0);
    }
    LLVMBasicBlockRef done = LLVMGetInsertBlock(g->B); /* float_minmax branches */
    LLVMBuildBr(g->B, join);
    LLVMPositionBuilderAtEnd(g->B, join);
    LLVMValueRef phi = LLVMBuildPhi(g->B, ty, "");
    LLVMValueRef vals[2] = {old, LLVMConstNull(ty)};
    LLVMBasicBlockRef bbs[2] = {done, cur};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

/* The memory semantics of an atomic (attrs sem, scope; Triton's default acq_rel at gpu
 * scope): where PTX has the instruction (atom_ptx) it carries them, as Triton's does;
 * otherwise the atomics are relaxed (LLVM 19's NVPTX drops stronger orderings) and a
 * fence.acq_rel of the scope goes before them (release: this thread's earlier accesses
 * happen before) and after them (acquire: its later accesses happen after). A scalar
 * atomic is thread 0's: a CTA barrier before a release orders every thread's earlier
 * writes before thread 0's atomic (the lock released after a block store), and one after
 * an acquire orders it before every thread's later reads (the barrier of the old value's
 * broadcast does that where there is one). */
static void atomic_fence(Gen *g, IrOp *op, bool after) {
    static const char *const fence[3] = {"fence.acq_rel.gpu;", "fence.acq_rel.cta;",
                                         "fence.acq_rel.sys;"};
    int slot = ir_atomic_sem_slot(op->code);
    int sem = (int)op->attr[slot], scope = (int)op->attr[slot + 1];
    bool scalar = ir_type(g->f, op->operands[0]).rank == 0;
    char text[96];
    bool native = atom_ptx(g, op, ir_type(g->f, op->operands[0]).pointee, text, sizeof text, NULL);
    if (scope < 0 || scope > 2) scope = SCOPE_GPU;
    if (!after && (sem == SEM_ACQ_REL || sem == SEM_RELEASE)) {
        if (scalar) gen_barrier(g);
        if (!native) gen_asm(g, fence[scope], "~{memory}", g->vd, NULL, 0, true);
    }
    if (after && (sem == SEM_ACQ_REL || sem == SEM_ACQUIRE)) {
        if (!native) gen_asm(g, fence[scope], "~{memory}", g->vd, NULL, 0, true);
        if (scalar && !op->smem_size) gen_barrier(g);
    }
}

/* How many consecutive fp32 adds of an atomic go as one vector atom: PTX ISA 8.1 has
 * atom.add.v2.f32 and .v4.f32 on sm_90 (Triton uses them), for a run whose addresses the
 * alignment facts prove contiguous and aligned under one mask value (as a vector store's).
 * 1: one element at a time. */
static int atom_vector_width(Gen *g, const IrOp *op, ValId ptr, ValId mask, int dt) {
    if (op->code != OP_ATOMIC_RMW || op->attr[0] != RMW_ADD || dt != DT_FP32 ||
        ir_gpu_arch_from_name(g->target->arch, strlen(g->target->arch)) < GPU_SM90)
        return 1;
    int v = vector_width(g, ptr, mask, 4);
    return v >= 4 ? 4 : v >= 2 ? 2 : 1;
}

/* [@p] atom.global.SCOPE.SEM.add.vV.f32 of v registers from r: their old values in out
 * (0.0 where cond is false, as atomic_one's). */
static void atom_vector(Gen *g, const IrOp *op, LLVMValueRef cond, LLVMValueRef ptr,
                        LLVMValueRef *vals, int v, LLVMValueRef *out) {
    const char *sem, *scope;
    atom_sem_scope(op, &sem, &scope);
    StrBuf a, c;
    sb_init(&a), sb_init(&c);
    LLVMValueRef args[2 + 4];
    int na = 0, pc = cond ? v + na++ : -1;
    if (cond) args[0] = cond;
    int pp = v + na;
    args[na++] = LLVMBuildPtrToInt(g->B, ptr, g->i64, "");
    int pv = v + na;
    for (int k = 0; k < v; k++) args[na++] = vals[k];
    if (cond)
        for (int k = 0; k < v; k++) sb_printf(&a, "mov.b32 $%d, 0;\n\t", k);
    if (cond) sb_printf(&a, "@$%d ", pc);
    sb_printf(&a, "atom.global.%s.%s.add.v%d.f32 {", scope, sem, v);
    for (int k = 0; k < v; k++) sb_printf(&a, k ? ", $%d" : "$%d", k);
    sb_printf(&a, "}, [$%d], {", pp);
    for (int k = 0; k < v; k++) sb_printf(&a, k ? ", $%d" : "$%d", pv + k);
    sb_puts(&a, "};");
    for (int k = 0; k < v; k++) sb_puts(&c, "=f,");
    sb_puts(&c, cond ? "b,l" : "l");
    for (int k = 0; k < v; k++) sb_puts(&c, ",f");
    sb_puts(&c, ",~{memory}");
    LLVMTypeRef argt[6], elts[4];
    for (int i = 0; i < na; i++) argt[i] = LLVMTypeOf(args[i]);
    for (int k = 0; k < v; k++) elts[k] = g->f32;
    LLVMTypeRef rty = LLVMStructTypeInContext(g->C, elts, (unsigned)v, 0);
    LLVMTypeRef fty = LLVMFunctionType(rty, argt, (unsigned)na, 0);
    LLVMValueRef asmv =
        LLVMGetInlineAsm(fty, a.data, a.len, c.data, c.len, 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef r = LLVMBuildCall2(g->B, fty, asmv, args, (unsigned)na, "");
    sb_free(&a), sb_free(&c);
    for (int k = 0; k < v; k++) out[k] = LLVMBuildExtractValue(g->B, r, (unsigned)k, "");
    g->ptx81 = true;
}

static void gen_atomic(Gen *g, IrOp *op) {
    ValId ptr = op->operands[0];
    int dt = ir_type(g->f, ptr).pointee, n;
    bool cas = op->code == OP_ATOMIC_CAS;
    atomic_fence(g, op, false);
    LLVMValueRef *P = gen_vals(g, ptr, &n), *A = gen_vals(g, op->operands[1], NULL);
    LLVMValueRef *Bv = cas ? gen_vals(g, op->operands[2], NULL) : NULL;
    ValId mask = !cas && op->nopnds > 2 ? op->operands[2] : 0;
    LLVMValueRef *M = mask ? gen_vals(g, mask, NULL) : NULL;
    LLVMValueRef *out = gen_alloc_regs(g, n);
    int v = atom_vector_width(g, op, ptr, mask, dt);
    for (int r = 0; r < n; r += v) {
        LLVMValueRef once = gen_unique(g, ptr, r);
        if (never(once)) { /* its owner's, below */
            for (int k = 0; k < v; k++) out[r + k] = LLVMConstNull(gen_type(g, dt));
        } else if (v > 1) {
            atom_vector(g, op, gen_and(g, M ? M[r] : NULL, once), P[r], A + r, v, out + r);
        } else {
            out[r] = atomic_one(g, op, dt, gen_and(g, M ? M[r] : NULL, once), P[r], A[r],
                                cas ? Bv[r] : NULL);
        }
    }
    atomic_fence(g, op, true);
    if (op->smem_size) { /* the owner's old value to its duplicates (thread 0's for a scalar) */
        IrType t = ir_type(g->f, ptr);
        LLVMValueRef *slots = gen_alloc_regs(g, n);
        for (int r = 0; r < n; r++) {
            LLVMValueRef idx = gen_i32(g, 0);
            if (t.rank) {
                LLVMValueRef c[NR_MAX_RANK];
                gen_elem_pos(g, ptr, r, c);
                idx = gen_linear(g, c, t);
            }
            slots[r] = gen_smem_ptr(g, op->smem_offset, idx, 8);
            LLVMValueRef once = gen_unique(g, ptr, r);
            if (!never(once)) guarded_store(g, once, out[r], slots[r], 8);
        }
        gen_barrier(g);
        for (int r = 0; r < n; r++) {
            LLVMValueRef v = LLVMBuildLoad2(g->B, gen_type(g, dt), slots[r], "");
            LLVMSetAlignment(v, 8);
            out[r] = v;
        }
    }
    gen_set(g, op->results[0], out, n);
}

void gen_memory(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    switch (op->code) {
    case OP_LOAD: gen_load(g, op); return;
    case OP_STORE: gen_store(g, op); return;
    default: gen_atomic(g, op); return;
    }
}
