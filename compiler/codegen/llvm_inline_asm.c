/* llvm_inline_asm.c - tl.inline_asm_elementwise: the user's assembly as LLVM inline
 * assembly, once per `pack` registers of the operands' layout.
 *
 * Each invocation takes the next `pack` registers of every operand and gives `pack`
 * registers of every result (the results share the operands' layout, so register k of
 * each is element k of the thread). An operand or result element narrower than 32 bits is
 * packed when pack > 1: min(pack, 32 / width) elements to an integer register, element 0
 * in the low bits (Triton's rule: 4 bytes in a 32-bit register); wider elements, and every
 * element when pack is 1, are one register each. The assembly's operands are the results'
 * registers (outputs), then the arguments' (inputs), in the order the constraint string
 * lists them; a register's LLVM type follows its constraint: a float for f or d, else an
 * integer of its width (r: 32 bits, h: 16, l: 64, c: 8), floats moved in by their bits. A
 * pure assembly may be moved or dropped by LLVM; an impure one (is_pure=False) keeps its
 * place. */
#include <stdio.h>
#include <string.h>

#include "gen_internal.h"

enum { MAXREG = 256 };

typedef struct AsmReg {
    LLVMTypeRef ty; /* the register's LLVM type */
    int first, n;   /* elements (pack-relative) it holds */
    int bits;       /* element width */
} AsmReg;

/* The constraint letter of each operand entry (clobbers skipped). */
static int constraint_letters(const char *c, size_t len, char *out, int max) {
    int n = 0;
    const char *p = c, *end = c + len;
    while (p < end && n < max) {
        const char *e = memchr(p, ',', (size_t)(end - p));
        if (!e) e = end;
        const char *q = p;
        while (q < e && (*q == ' ' || *q == '=' || *q == '&' || *q == '+' || *q == '*')) q++;
        if (q < e && *q != '~') out[n++] = *q;
        p = e < end ? e + 1 : end;
    }
    return n;
}

/* The registers one invocation gives an operand of dtype dt (the constraint letters from
 * letter[*k] on, advancing *k). */
static int plan_regs(Gen *g, int dt, int pack, const char *letter, int *k, AsmReg *out) {
    int w = dt_bits(dt), per = (w < 32 && pack > 1) ? (32 / w < pack ? 32 / w : pack) : 1,
        n = pack / per;
    for (int i = 0; i < n; i++) {
        char l = letter[(*k)++];
        AsmReg r = {NULL, i * per, per, w};
        if (per == 1 && (l == 'f' || l == 'd') && dt_is_float(dt)) r.ty = gen_type(g, dt);
        else if (per == 1 && dt == DT_PTR) r.ty = g->i64;
        else r.ty = LLVMIntTypeInContext(g->C, (unsigned)(w * per));
        out[i] = r;
    }
    return n;
}

/* An element's bits as an integer of its width (pointers as i64). */
static LLVMValueRef as_int(Gen *g, LLVMValueRef v, int dt) {
    if (dt == DT_PTR) return LLVMBuildPtrToInt(g->B, v, g->i64, "");
    if (dt_is_float(dt))
        return LLVMBuildBitCast(g->B, v, LLVMIntTypeInContext(g->C, (unsigned)dt_bits(dt)), "");
    return v;
}

static LLVMValueRef from_int(Gen *g, LLVMValueRef v, int dt) {
    if (dt_is_float(dt)) return LLVMBuildBitCast(g->B, v, gen_type(g, dt), "");
    return v;
}

/* Register r's value from elements vals[0 .. pack) of dtype dt. */
static LLVMValueRef pack_reg(Gen *g, const AsmReg *r, LLVMValueRef *vals, int dt) {
    if (r->n == 1 && LLVMGetTypeKind(r->ty) != LLVMIntegerTypeKind) return vals[r->first];
    if (r->n == 1) return as_int(g, vals[r->first], dt);
    LLVMValueRef acc = LLVMConstInt(r->ty, 0, 0);
    for (int i = 0; i < r->n; i++) {
        LLVMValueRef e = LLVMBuildZExt(g->B, as_int(g, vals[r->first + i], dt), r->ty, "");
        acc = LLVMBuildOr(
            g->B, acc,
            LLVMBuildShl(g->B, e, LLVMConstInt(r->ty, (unsigned long long)(i * r->bits), 0), ""),
            "");
    }
    return acc;
}

static void unpack_reg(Gen *g, const AsmReg *r, LLVMValueRef v, int dt, LLVMValueRef *vals) {
    if (r->n == 1) {
        vals[r->first] = LLVMGetTypeKind(r->ty) == LLVMIntegerTypeKind ? from_int(g, v, dt) : v;
        return;
    }
    LLVMTypeRef et = LLVMIntTypeInContext(g->C, (unsigned)r->bits);
    for (int i = 0; i < r->n; i++) {
        LLVMValueRef e =
            LLVMBuildLShr(g->B, v, LLVMConstInt(r->ty, (unsigned long long)(i * r->bits), 0), "");
        vals[r->first + i] = from_int(g, LLVMBuildTrunc(g->B, e, et, ""), dt);
    }
}

void gen_inline_asm(Gen *g, OpId id) {
    const IrOp *op = &g->f->ops[id];
    const char *nl = strchr(op->sattr, '\n');
    size_t clen = (size_t)(nl - op->sattr);
    const char *text = nl + 1;
    int pack = (int)op->attr[1], n = gen_nregs(g, op->results[0]);
    if (n % pack)
        gen_error(g, op->loc,
                  "inline_asm_elementwise with pack=%d needs a multiple of %d elements in each "
                  "thread; this "
                  "block's layout gives %d (use a block of at least %d x 32 x num_warps elements, "
                  "or a smaller pack)",
                  pack, pack, n, pack);
    char letter[2 * MAXREG];
    int nletters = constraint_letters(op->sattr, clen, letter, 2 * MAXREG);
    AsmReg regs[2 * MAXREG];
    int ntot = 0, k = 0, nout = 0;
    int nres = (int)op->nres, nin = (int)op->nopnds;
    int first_reg[IR_ASM_MAX_ARGS + IR_ASM_MAX_RESULTS]; /* the verifier's bounds */
    for (int i = 0; i < nres + nin; i++) {
        int dt = ir_type(g->f, i < nres ? op->results[i] : op->operands[i - nres]).dt;
        int per = (dt_bits(dt) < 32 && pack > 1)
                      ? (32 / dt_bits(dt) < pack ? 32 / dt_bits(dt) : pack)
                      : 1;
        if (ntot + pack / per > 2 * MAXREG)
            gen_error(
                g, op->loc,
                "inline_asm_elementwise with pack=%d takes more than %d registers in one assembly "
                "statement, the most the GPU back end makes: use a smaller pack",
                pack, 2 * MAXREG);
        if (k + pack / per > nletters) /* the verifier counted them */
            gen_error(
                g, op->loc,
                "internal error: the constraints of an inline assembly do not cover its operands");
        first_reg[i] = ntot;
        ntot += plan_regs(g, dt, pack, letter, &k, regs + ntot);
        if (i == nres - 1) nout = ntot;
    }
    LLVMTypeRef outs[2 * MAXREG], ins[2 * MAXREG];
    for (int i = 0; i < nout; i++) outs[i] = regs[i].ty;
    for (int i = nout; i < ntot; i++) ins[i - nout] = regs[i].ty;
    LLVMTypeRef ret = nout == 1 ? outs[0] : LLVMStructTypeInContext(g->C, outs, (unsigned)nout, 0);
    LLVMTypeRef fty = LLVMFunctionType(ret, ins, (unsigned)(ntot - nout), 0);
    LLVMValueRef asmv = LLVMGetInlineAsm(fty, (char *)text, strlen(text), (char *)op->sattr, clen,
                                         !op->attr[0], 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef **res = arena_alloc(g->m->arena, sizeof(LLVMValueRef *) * (size_t)nres);
    for (int i = 0; i < nres; i++) res[i] = gen_alloc_regs(g, n);
    for (int base = 0; base < n; base += pack) {
        LLVMValueRef args[2 * MAXREG];
        for (int i = 0; i < nin; i++) {
            int dt = ir_type(g->f, op->operands[i]).dt;
            LLVMValueRef *v = gen_vals(g, op->operands[i], NULL) + base;
            int nr = (i + 1 < nin ? first_reg[nres + i + 1] : ntot) - first_reg[nres + i];
            for (int r = 0; r < nr; r++)
                args[first_reg[nres + i] + r - nout] =
                    pack_reg(g, &regs[first_reg[nres + i] + r], v, dt);
        }
        LLVMValueRef call = LLVMBuildCall2(g->B, fty, asmv, args, (unsigned)(ntot - nout), "");
        for (int i = 0; i < nres; i++) {
            int dt = ir_type(g->f, op->results[i]).dt;
            int nr = (i + 1 < nres ? first_reg[i + 1] : nout) - first_reg[i];
            for (int r = 0; r < nr; r++) {
                int at = first_reg[i] + r;
                LLVMValueRef v =
                    nout == 1 ? call : LLVMBuildExtractValue(g->B, call, (unsigned)at, "");
                unpack_reg(g, &regs[at], v, dt, res[i] + base);
            }
        }
    }
    for (int i = 0; i < nres; i++) gen_set(g, op->results[i], res[i], n);
}
