/* llvm_check.c - what the code generator needs of a kernel, checked before it builds
 * anything (llvm_gen_kernel calls llvm_gen_check first, so every caller gets it).
 *
 * The verifier (compiler/ir/ir_verify_gpu.c) holds GPU-stage IR to what is true after
 * every GPU pass. The lowering needs more: what the GPU passes leave once they have all
 * run. The pipeline (driver/gpu_compile.c) always gets there; hand-written IR (nereid opt
 * --emit=llvm|ptx) may stop short, and each shortfall is an error located at its op,
 * naming what provides it:
 * - shared memory (gpu-alloc-shared): an op that needs some (moves_smem_bytes: a
 *   local_alloc's tiles, a reduction's partials, a layout change's or an atomic's
 *   scratch, ...) has at least that many bytes, 16-byte aligned, and a buffer that wgmma
 *   or TMA reads through its swizzle (which the hardware applies to address bits) starts
 *   at its swizzle's alignment;
 * - dot operands (gpu-lower-dot-operands): mma.sync takes A and B in registers in the
 *   result's dot_op layouts; wgmma takes B from shared memory and A from there or from
 *   registers in dot_op, its buffers in the swizzled layouts its descriptors name (K
 *   contiguous for 8- and 32-bit types); the CUDA cores take both from shared memory;
 *   only wgmma reads fp8; and the tile is whole instructions (M, N and K at least one
 *   instruction's, per warp or warpgroup);
 * - cp.async pieces (the alignment facts): 4, 8 or 16 bytes;
 * - TMA copies (gpu-pipeline, gpu-lower-tma): only of tiles TMA can copy (gpu_tma_plan),
 *   into and out of buffers in the layout its tensor map's swizzle writes;
 * - no calls (inline). */
#include "compiler/target/tma.h"
#include "gen_internal.h"
#include "llvm_wgmma.h"

#include <stdarg.h>
#include <stdlib.h>

typedef struct Check {
    const IrFunc *f;
    const IrModule *m;
    const AxisInfo *info;
    Diag *diag;
    uint8_t *hw_swizzle; /* by OpId: a local_alloc that wgmma or TMA reads through its swizzle */
    bool ok;
} Check;

__attribute__((format(printf, 3, 4))) static void bad(Check *C, const IrOp *op, const char *fmt,
                                                      ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(C->diag, op->loc, fmt, ap);
    va_end(ap);
    C->ok = false;
}

static const char *name(const IrOp *op) { return ir_op_info[op->code].name; }
static IrType T(const Check *C, ValId v) { return C->f->vals[v].ty; }
static const IrLayout *layout(const Check *C, ValId v) {
    return &C->m->layouts[C->f->vals[v].layout];
}

/* ---- shared memory ---- */

/* The local_alloc whose buffer v is (through views and transposes), else 0. */
static OpId buffer_root(const IrFunc *f, ValId v) {
    for (;;) {
        OpId d = ir_def(f, v);
        if (!d) return 0;
        const IrOp *op = &f->ops[d];
        if (op->code == OP_LOCAL_ALLOC) return d;
        if (op->code != OP_LOCAL_VIEW && op->code != OP_TRANS) return 0;
        v = op->operands[0];
    }
}

static void mark_hw_swizzle(Check *C, ValId v) {
    OpId root = buffer_root(C->f, v);
    if (root) C->hw_swizzle[root] = 1;
}

/* The buffers that wgmma's descriptors and TMA's copies address. */
static void find_hw_swizzle(Check *C, OpId id) {
    const IrOp *op = &C->f->ops[id];
    if (op->code == OP_TMA_LOAD) mark_hw_swizzle(C, op->operands[2]);
    if (op->code == OP_TMA_STORE) mark_hw_swizzle(C, op->operands[1]);
    if (op->code != OP_DOT && op->code != OP_DOT_ASYNC) return;
    const IrLayout *r = layout(C, op->results[0]);
    for (int i = 0; i < 2 && r->kind == LAYOUT_MMA && r->version == 3; i++)
        if (T(C, op->operands[i]).dt == DT_SMEM) mark_hw_swizzle(C, op->operands[i]);
}

static void check_smem(Check *C, OpId id) {
    const IrOp *op = &C->f->ops[id];
    int align, need = moves_smem_bytes(C->f, id, &align);
    if (need <= 0) return;
    if (!op->smem_size)
        bad(C, op,
            "'%s' needs %d bytes of shared memory and has none (smem = [offset, bytes]): "
            "gpu-alloc-shared "
            "places it",
            name(op), need);
    else if (op->smem_size < need)
        bad(C, op,
            "'%s' needs %d bytes of shared memory, and its smem gives %d: gpu-alloc-shared sizes "
            "it",
            name(op), need, op->smem_size);
    else if (op->smem_offset % 16)
        bad(C, op, "the shared memory of '%s' starts at %d, which is not a multiple of 16 bytes",
            name(op), op->smem_offset);
    else if (C->hw_swizzle[id] && op->smem_offset % align)
        bad(C, op,
            "the buffer of '%s' is read through its swizzle by wgmma or TMA, so it must start at a "
            "multiple of %d "
            "bytes, not at %d",
            name(op), align, op->smem_offset);
}

/* ---- dots ---- */

static int elem_dt(IrType t) { return t.dt == DT_SMEM ? t.pointee : t.dt; }

/* Operand i in registers in a dot_op layout (the verifier checked which one)? */
static bool in_dot_op(const Check *C, ValId x) {
    return T(C, x).dt != DT_SMEM && layout(C, x)->kind == LAYOUT_DOT_OP;
}

/* The dot's M x N x K against the least its instructions cover: tm x tn x k (the
 * dims are powers of two, so at least that is whole instructions). */
static void check_tile(Check *C, const IrOp *op, const char *what, int tm, int tn, int k) {
    IrType a = T(C, op->operands[0]), r = T(C, op->results[0]);
    int M = r.shape[0], N = r.shape[1], K = a.shape[1];
    if (M < tm || N < tn || K < k)
        bad(C, op, "'%s' of %dx%dx%d (MxNxK) is smaller than %s, %dx%dx%d", name(op), M, N, K, what,
            tm, tn, k);
}

static void check_mma_sync(Check *C, const IrOp *op) {
    for (int i = 0; i < 2; i++)
        if (!in_dot_op(C, op->operands[i])) {
            bad(C, op,
                "mma.sync takes A and B in registers, in the result's dot_op layouts, and operand "
                "#%d is %s: "
                "gpu-lower-dot-operands puts it there",
                i, T(C, op->operands[i]).dt == DT_SMEM ? "a buffer" : "in another layout");
            return;
        }
    int dt = T(C, op->operands[0]).dt;
    if (dt_is_fp8(dt)) {
        bad(C, op, "mma.sync has no %s form: gpu-lower-dot-operands widens fp8 operands to fp16",
            dt_name(dt));
        return;
    }
    check_tile(C, op, "one mma.sync instruction", 16, 8, 8 * layout(C, op->operands[0])->k_width);
}

static int wgmma_k(int dt) { return dt == DT_FP32 ? 8 : dt_bits(dt) == 8 ? 32 : 16; }

/* A (idx 0, M x K) or B (idx 1, K x N) of a wgmma in shared memory. */
static void check_wgmma_buffer(Check *C, const IrOp *op, int idx) {
    ValId x = op->operands[idx];
    IrType t = T(C, x);
    const IrLayout *l = layout(C, x);
    if (!wgmma_buffer_ok(C->m, C->f->vals[x].layout, t))
        bad(C, op,
            "wgmma reads operand #%d through a matrix descriptor, which needs a shared layout of "
            "rows of 32, 64 "
            "or 128 bytes swizzled in 16-byte chunks (vec * element size = 16, per_phase * "
            "max_phase = 8): "
            "gpu-lower-dot-operands makes one",
            idx);
    else if (dt_bits(t.pointee) != 16 && l->order[0] != (idx == 0 ? 1 : 0))
        bad(C, op,
            "wgmma reads %s operands only with K contiguous, and operand #%d runs along %s: "
            "gpu-lower-dot-operands stages it K-major",
            dt_name(t.pointee), idx, idx == 0 ? "M" : "N");
}

static void check_wgmma(Check *C, const IrOp *op, const IrLayout *r) {
    if (T(C, op->operands[1]).dt != DT_SMEM) {
        bad(C, op,
            "wgmma reads B from shared memory, and operand #1 is in registers: "
            "gpu-lower-dot-operands puts it "
            "there");
        return;
    }
    ValId a = op->operands[0];
    if (T(C, a).dt != DT_SMEM && !in_dot_op(C, a)) {
        bad(C, op,
            "wgmma reads A from shared memory or from registers in the result's dot_op layout, and "
            "operand #0 "
            "is in another layout: gpu-lower-dot-operands puts it there");
        return;
    }
    for (int i = T(C, a).dt == DT_SMEM ? 0 : 1; i < 2; i++) check_wgmma_buffer(C, op, i);
    check_tile(C, op, "one wgmma instruction per warpgroup", 16 * r->wpc[0], r->instr_n * r->wpc[1],
               wgmma_k(elem_dt(T(C, a))));
}

static void check_dot(Check *C, const IrOp *op) {
    const IrLayout *r = layout(C, op->results[0]);
    if (r->kind == LAYOUT_MMA && r->version == 3) return check_wgmma(C, op, r);
    if (r->kind == LAYOUT_MMA) return check_mma_sync(C, op);
    for (int i = 0; i < 2; i++)
        if (T(C, op->operands[i]).dt != DT_SMEM) {
            bad(C, op,
                "a dot on the CUDA cores (its result not in an mma layout) reads A and B from "
                "shared memory, "
                "and operand #%d is in registers: gpu-lower-dot-operands puts it there",
                i);
            return;
        }
    int dt = elem_dt(T(C, op->operands[0]));
    if (dt_is_fp8(dt))
        bad(C, op,
            "the CUDA cores have no %s dot: gpu-lower-dot-operands widens fp8 operands to fp16",
            dt_name(dt));
}

/* ---- cp.async ---- */

static void check_async_copy(Check *C, const IrOp *op) {
    int run, eb = dt_bytes(T(C, op->operands[1]).pointee),
             v = gen_async_copy_width(C->f, C->info, op, &run, NULL);
    if (v * eb >= 4) return;
    if (run * eb < 4)
        bad(C, op,
            "'async_copy' of %d-byte pieces: a thread's runs of elements consecutive in its "
            "pointers' layout "
            "and in the buffer are %d long, and cp.async copies 4, 8 or 16 bytes",
            run * eb, run);
    else
        bad(C, op,
            "'async_copy' of %d-byte pieces: the alignment facts prove its pointers contiguous and "
            "aligned over "
            "only %d byte%s, and cp.async copies 4, 8 or 16 bytes (the facts start from the "
            "parameters' "
            "divisibility: --param-divisibility=16 may prove more)",
            v * eb, v * eb, v * eb == 1 ? "" : "s");
}

/* ---- TMA ---- */

/* tma_load (desc, bar, buf, coords) and tma_store (desc, buf, coords). */
static void check_tma(Check *C, const IrOp *op) {
    ValId d = op->operands[0], buf = op->operands[op->code == OP_TMA_LOAD ? 2 : 1];
    IrType t = T(C, d);
    TmaPlan plan;
    char ts[96];
    ty_str(t, ts, sizeof ts);
    if (!gpu_tma_plan(t, &plan)) {
        bad(C, op,
            "'%s': TMA cannot copy tiles of %s (rank 2 to 5, rows of at least 32 bytes, box dims "
            "up to 256): "
            "gpu-lower-tma copies them with loads and stores",
            name(op), ts);
        return;
    }
    IrLayout want = gpu_tma_shared_layout(t, &plan);
    gpu_tma_buffer_layout(t, T(C, buf), &want); /* a buffer of the tile but for unit dims */
    if (!ir_layout_equal(layout(C, buf), &want))
        bad(C, op,
            "'%s': the buffer's shared layout is not the one TMA copies tiles of %s through "
            "(vec=%d, "
            "per_phase=%d, max_phase=%d, atom=%d, the last dim contiguous)",
            name(op), ts, want.vec, want.per_phase, want.max_phase, want.atom);
}

/* ---- the walk ---- */

static void check_op(Check *C, OpId id) {
    const IrOp *op = &C->f->ops[id];
    check_smem(C, id);
    switch (op->code) {
    case OP_DOT:
    case OP_DOT_ASYNC: check_dot(C, op); return;
    case OP_ASYNC_COPY: check_async_copy(C, op); return;
    case OP_TMA_LOAD:
    case OP_TMA_STORE: check_tma(C, op); return;
    case OP_CALL:
        bad(C, op, "'call' reached the code generator: inline every call before the GPU passes");
        return;
    default: return;
    }
}

static void walk(Check *C, RegionId r, void (*visit)(Check *, OpId)) {
    const IrRegion *reg = &C->f->regions[r];
    for (uint32_t i = 0; i < reg->nops; i++) {
        OpId id = reg->ops[i];
        visit(C, id);
        for (int k = 0; k < C->f->ops[id].nregions; k++) walk(C, C->f->ops[id].region[k], visit);
    }
}

bool llvm_gen_check(const IrFunc *f, const AxisInfo *info, Diag *diag) {
    Check C = {f, f->mod, info, diag, calloc(f->nops + 1, 1), true};
    if (!C.hw_swizzle) NR_DIE("out of memory");
    walk(&C, f->body, find_hw_swizzle);
    walk(&C, f->body, check_op);
    free(C.hw_swizzle);
    return C.ok;
}
