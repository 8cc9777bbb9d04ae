/* ir_verify_gpu.c - the GPU stage's part of the IR contract: layouts and buffers.
 *
 * A module with a gpu<> header has been through layout assignment, so:
 * - the header names a target and a power-of-two warp count;
 * - every block value has a distributed layout (blocked, slice, mma, dot_op) that suits
 *   its rank and shape and spans the module's warps; every buffer a shared layout that
 *   suits its tile; scalars have none;
 * - ops whose lowering works element by element see one layout: elementwise ops, loads,
 *   stores and atomics (pointers, mask, values and result alike), hints; a reduction's
 *   result is the slice of its operand's layout along the axis; control flow carries a
 *   value in one layout (init, region arguments, yields, results); local_view keeps its
 *   buffer's layout, dot_wait its operands'; async_copy's mask is its pointers' layout;
 * - a dot's accumulator and result share a layout; operands in registers with dot_op
 *   layouts are its parent's A and B (wgmma takes B only from shared memory) with the
 *   k_width of their element type (32 bits of k per register); an fp32 dot with
 *   prec = ieee stays off the tensor cores (they round fp32 to tf32);
 * - the target has what the IR uses: mma version 3 layouts (wgmma) only on sm_90a; TMA
 *   copies, mbarrier waits and arrivals and proxy fences only on sm_90 and later;
 * - a reduction's lanes and warps step along its axis alone or not at all.
 * Layout changes (convert_layout, and broadcast, expand_dims, reshape and trans, which
 * may change layouts as they go) may join any two layouts: the lowering moves the data.
 * Which layouts, conversions and buffers make fast code is the passes' business. */
#include "compiler/support/options.h"
#include "ir.h"
#include "ir_layout.h"

#include <stdarg.h>

enum { MAX_ERRORS = 20 };

typedef struct GpuVerifier {
    const IrModule *m;
    const IrFunc *f;
    StrBuf *err;
    int nerrors;
} GpuVerifier;

__attribute__((format(printf, 3, 4))) static void fail(GpuVerifier *V, OpId id, const char *fmt,
                                                       ...) {
    if (V->nerrors++ >= MAX_ERRORS) return;
    sb_printf(V->err, "verifier: @%s: ", V->f ? V->f->name : "module");
    if (id) {
        const IrOp *op = &V->f->ops[id];
        sb_printf(V->err, "op '%s'", ir_op_info[op->code].name);
        if (op->loc.src) sb_printf(V->err, " (%d:%d)", op->loc.line, op->loc.col);
        sb_puts(V->err, ": ");
    }
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(V->err, fmt, ap);
    va_end(ap);
    sb_putc(V->err, '\n');
}

static uint32_t L(const GpuVerifier *V, ValId v) { return V->f->vals[v].layout; }
static IrType T(const GpuVerifier *V, ValId v) { return V->f->vals[v].ty; }
static bool is_block(const GpuVerifier *V, ValId v) { return ty_is_block(T(V, v)); }

/* ---- values ---- */

/* The mma version a layout is (or derives from, through slices and dot_op), else 0. */
static int mma_version(const IrModule *m, uint32_t l) {
    for (int depth = 0; depth < 64 && l && l < m->nlayouts; depth++) {
        const IrLayout *x = &m->layouts[l];
        if (x->kind == LAYOUT_MMA) return x->version;
        if (x->kind != LAYOUT_SLICE && x->kind != LAYOUT_DOT_OP) return 0;
        l = x->parent;
    }
    return 0;
}

static void check_value(GpuVerifier *V, OpId id, ValId v, const char *what, uint32_t i) {
    IrType t = T(V, v);
    uint32_t l = L(V, v);
    if (!t.rank || t.dt == DT_TDESC) {
        if (l)
            fail(V, id, "%s #%u is a %s with a layout", what, i, t.rank ? "descriptor" : "scalar");
        return;
    }
    if (!l || l >= V->m->nlayouts) {
        fail(V, id, "%s #%u has no layout", what, i);
        return;
    }
    bool buffer = t.dt == DT_SMEM;
    int kind = V->m->layouts[l].kind;
    if (buffer && kind != LAYOUT_SHARED)
        fail(V, id, "%s #%u is a buffer without a shared layout", what, i);
    if (!buffer && !ir_layout_is_distributed(kind))
        fail(V, id, "%s #%u is a block without a distributed layout", what, i);
    StrBuf why;
    sb_init(&why);
    if (!ir_layout_check(V->m, l, t, buffer ? 0 : V->m->gpu.num_warps, &why))
        fail(V, id, "%s #%u: layout #L%u does not suit it: %s", what, i, l, sb_cstr(&why));
    else if (mma_version(V->m, l) == 3 && V->m->gpu.arch != GPU_SM90A)
        fail(V, id,
             "%s #%u: layout #L%u is wgmma's (mma version 3), which only sm_90a has, and the "
             "module is %s",
             what, i, l, ir_gpu_arch_name(V->m->gpu.arch));
    sb_free(&why);
}

/* ---- ops ---- */

/* Every block among the op's operands (from `from` on) and results has one layout. */
static void one_layout(GpuVerifier *V, OpId id, uint32_t from) {
    const IrOp *op = &V->f->ops[id];
    uint32_t l = 0;
    for (uint32_t i = from; i < op->nopnds + op->nres; i++) {
        ValId v = i < op->nopnds ? op->operands[i] : op->results[i - op->nopnds];
        if (!is_block(V, v)) continue;
        if (!l) l = L(V, v);
        else if (L(V, v) != l) {
            fail(V, id, "operands and results must share one layout (#L%u and #L%u)", l, L(V, v));
            return;
        }
    }
}

static void check_reduce(GpuVerifier *V, OpId id, const IrOp *op) {
    ValId r = op->results[0];
    if (!is_block(V, r)) return;
    const IrLayout *rl = &V->m->layouts[L(V, r)];
    if (rl->kind != LAYOUT_SLICE || rl->dim != op->attr[1] || rl->parent != L(V, op->operands[0]))
        fail(V, id, "the result's layout must be the slice of the operand's along the axis");
    else if (!ir_layout_axis_threads_apart(V->m, L(V, op->operands[0]), T(V, op->operands[0]),
                                           (int)op->attr[1]))
        fail(V, id,
             "the operand's layout has a lane or warp step along the axis and another dim at once");
}

static int k_width_of(int dt) { return dt == DT_FP32 ? 1 : dt == DT_I8 ? 4 : 2; }

static void check_dot(GpuVerifier *V, OpId id, const IrOp *op) {
    ValId c = op->operands[2], r = op->results[0];
    if (L(V, c) != L(V, r)) fail(V, id, "the accumulator and the result must share a layout");
    const IrLayout *rl = &V->m->layouts[L(V, r)];
    if (op->code == OP_DOT_ASYNC && (rl->kind != LAYOUT_MMA || rl->version != 3))
        fail(V, id, "dot_async is wgmma: its result needs an mma version 3 layout");
    int in_dt = T(V, op->operands[0]).dt == DT_SMEM ? T(V, op->operands[0]).pointee
                                                    : T(V, op->operands[0]).dt;
    if (rl->kind == LAYOUT_MMA && in_dt == DT_FP32 && op->attr[0] == PREC_IEEE)
        fail(V, id,
             "an fp32 dot with prec = ieee cannot take an mma layout: the tensor cores round fp32 "
             "to tf32");
    for (int i = 0; i < 2; i++) {
        ValId x = op->operands[i];
        if (!is_block(V, x)) continue;
        const IrLayout *xl = &V->m->layouts[L(V, x)];
        if (xl->kind != LAYOUT_DOT_OP) continue; /* not lowered yet */
        if (rl->kind == LAYOUT_MMA && rl->version == 3 && i == 1)
            fail(V, id, "wgmma reads B from shared memory, not registers");
        if (xl->parent != L(V, r) || xl->op_idx != i)
            fail(V, id, "operand #%d's dot_op layout must be operand %d of the result's layout", i,
                 i);
        if (xl->k_width != k_width_of(T(V, x).dt))
            fail(V, id, "operand #%d's k_width must be %d for %s (32 bits of k per register)", i,
                 k_width_of(T(V, x).dt), dt_name(T(V, x).dt));
    }
}

/* Values that flow into one another across control flow share a layout. */
static void same_layout(GpuVerifier *V, OpId id, ValId a, ValId b, const char *what) {
    if (is_block(V, a) && L(V, a) != L(V, b))
        fail(V, id, "%s: #L%u vs #L%u", what, L(V, a), L(V, b));
}

static const IrOp *terminator(const GpuVerifier *V, RegionId r) {
    const IrRegion *reg = &V->f->regions[r];
    return &V->f->ops[reg->ops[reg->nops - 1]];
}

static void check_control(GpuVerifier *V, OpId id, const IrOp *op) {
    if (op->code == OP_IF) {
        for (int k = 0; k < op->nregions; k++) {
            const IrOp *y = terminator(V, op->region[k]);
            for (uint32_t i = 0; i < op->nres && i < y->nopnds; i++)
                same_layout(V, id, op->results[i], y->operands[i],
                            "an if's result and its yield differ in layout");
        }
        return;
    }
    uint32_t first = op->code == OP_FOR ? 3 : 0, skip = op->code == OP_FOR ? 1 : 0;
    for (uint32_t i = first; i < op->nopnds; i++) {
        uint32_t k = i - first;
        same_layout(V, id, op->operands[i], op->results[k],
                    "a loop's init and result differ in layout");
        for (int r = 0; r < op->nregions; r++) {
            const IrRegion *reg = &V->f->regions[op->region[r]];
            same_layout(V, id, op->operands[i], reg->args[k + skip],
                        "a loop's init and region argument differ in layout");
            const IrOp *y = terminator(V, op->region[r]);
            if (y->code == OP_YIELD && k < y->nopnds)
                same_layout(V, id, op->operands[i], y->operands[k],
                            "a loop's init and yield differ in layout");
        }
    }
}

/* A transposed view of a buffer: its layout over the transposed shape must map each
 * element to the offset the buffer's layout gives the element it transposes. */
static bool same_bytes(GpuVerifier *V, const IrOp *op) {
    IrType a = ir_type(V->f, op->operands[0]), r = ir_type(V->f, op->results[0]);
    IrType at = ty_block(ty_scalar(a.pointee), a.rank, a.shape),
           rt = ty_block(ty_scalar(r.pointee), r.rank, r.shape);
    if (!ir_layout_check(V->f->mod, L(V, op->operands[0]), at, 0, NULL) ||
        !ir_layout_check(V->f->mod, L(V, op->results[0]), rt, 0, NULL))
        return false;
    LinearLayout la, lr;
    ir_layout_linear(V->f->mod, L(V, op->operands[0]), at, &la);
    ir_layout_linear(V->f->mod, L(V, op->results[0]), rt, &lr);
    if (la.nbits[LL_OFFSET] != lr.nbits[LL_OFFSET]) return false;
    for (int i = 0; i < la.nbits[LL_OFFSET]; i++) {
        int32_t ca[LL_MAX_RANK], cr[LL_MAX_RANK];
        ll_coords(&la, la.basis[LL_OFFSET][i], ca);
        ll_coords(&lr, lr.basis[LL_OFFSET][i], cr);
        for (int d = 0; d < r.rank; d++)
            if (cr[d] != ca[op->attr[d]]) return false;
    }
    return true;
}

/* scan, reduce_fn: the operands in one layout, in which every axis index bit is one input
 * bit (ir_layout_axis_separable); a scan's results in it, a reduce_fn's in its slice */
static void check_combine(GpuVerifier *V, OpId id, const IrOp *op) {
    ValId x = op->operands[0];
    int axis = (int)op->attr[0];
    for (uint32_t i = 1; i < op->nopnds; i++)
        same_layout(V, id, x, op->operands[i],
                    "the operands of a scan or reduce_fn differ in layout");
    if (!ir_layout_axis_separable(V->m, L(V, x), ir_type(V->f, x), axis))
        fail(V, id,
             "the operand's layout mixes the axis with other dims (a scan needs each axis bit in "
             "one register, lane or warp bit)");
    for (uint32_t i = 0; i < op->nres; i++) {
        ValId r = op->results[i];
        if (op->code == OP_SCAN) {
            same_layout(V, id, x, r, "a scan's result must have its operand's layout");
        } else if (is_block(V, r)) {
            const IrLayout *rl = &V->m->layouts[L(V, r)];
            if (rl->kind != LAYOUT_SLICE || rl->dim != axis || rl->parent != L(V, x))
                fail(V, id,
                     "the result's layout must be the slice of the operand's along the axis");
        }
    }
}

/* TMA copies, mbarrier initialisation (with its fences), arrivals and waits, and the
 * proxy fence are sm_90's instructions (mbarrier.inval is sm_80's too). */
static bool needs_sm90(int code) {
    switch (code) {
    case OP_TMA_LOAD:
    case OP_TMA_STORE:
    case OP_TMA_STORE_WAIT:
    case OP_MBARRIER_INIT:
    case OP_MBARRIER_EXPECT:
    case OP_MBARRIER_WAIT:
    case OP_MBARRIER_ARRIVE:
    case OP_WARP_SPECIALIZE:
    case OP_FENCE_ASYNC: return true;
    default: return false;
    }
}

/* What the producer warps of a warp_specialize may run (region 0, nested regions too):
 * scalars, the ring's views, mbarrier waits and arrivals with expected bytes, TMA copies,
 * and control flow over them; no block value and no barrier (the consumers' barrier is
 * theirs alone). */
static void check_producer(GpuVerifier *V, OpId ws, RegionId r) {
    const IrRegion *reg = &V->f->regions[r];
    for (uint32_t i = 0; i < reg->nops; i++) {
        OpId id = reg->ops[i];
        const IrOp *op = &V->f->ops[id];
        int c = op->code;
        bool ok = c == OP_MBARRIER_WAIT || c == OP_MBARRIER_EXPECT || c == OP_TMA_LOAD ||
                  c == OP_LOCAL_VIEW || c == OP_FOR || c == OP_IF || c == OP_YIELD;
        if (!ok && (ir_op_info[c].flags & F_PURE) && !op->nregions) {
            ok = true;
            for (uint32_t k = 0; k < op->nres && ok; k++)
                ok = ir_type(V->f, op->results[k]).rank == 0;
        }
        if (!ok) {
            fail(V, id,
                 "the producer warps of a warp_specialize run only scalar ops, mbarrier "
                 "waits and expects and TMA copies, not '%s'",
                 ir_op_info[c].name);
            continue;
        }
        for (int k = 0; k < op->nregions; k++) check_producer(V, ws, op->region[k]);
    }
}

/* A warp_specialize sits in the kernel's body with nothing after it but return. */
static void check_warp_specialize(GpuVerifier *V, OpId id, const IrOp *op) {
    const IrRegion *body = &V->f->regions[V->f->body];
    uint32_t at = body->nops;
    for (uint32_t i = 0; i < body->nops; i++)
        if (body->ops[i] == id) at = i;
    if (at == body->nops || at + 2 != body->nops || V->f->ops[body->ops[at + 1]].code != OP_RETURN)
        fail(V, id, "a warp_specialize must be in the kernel's body, followed only by return");
    if (op->attr[0] != 4)
        fail(V, id, "producer_warps must be 4 (one warpgroup), got %lld", (long long)op->attr[0]);
    if (V->m->gpu.num_warps + op->attr[0] > 32)
        fail(V, id, "num_warps %d and %lld producer warps make more than 1024 threads",
             V->m->gpu.num_warps, (long long)op->attr[0]);
    for (int k = 1; k < 3; k++)
        if (op->attr[k] && (op->attr[k] < 24 || op->attr[k] > 256 || op->attr[k] % 8))
            fail(V, id, "a register count must be 0 or a multiple of 8 from 24 to 256, got %lld",
                 (long long)op->attr[k]);
    if (!op->attr[1] != !op->attr[2] ||
        op->attr[1] * 32 * op->attr[0] + op->attr[2] * 32 * V->m->gpu.num_warps > 65536)
        fail(V, id, "producer_regs and consumer_regs must both be 0, or fit 65536 registers");
    if (op->nregions == 2) check_producer(V, id, op->region[0]);
}

static void check_op(GpuVerifier *V, OpId id) {
    const IrOp *op = &V->f->ops[id];
    for (uint32_t i = 0; i < op->nres; i++) check_value(V, id, op->results[i], "result", i);
    if (needs_sm90(op->code) && V->m->gpu.arch < GPU_SM90)
        fail(V, id, "needs sm_90 or later, and the module is %s", ir_gpu_arch_name(V->m->gpu.arch));
    if (ir_op_info[op->code].flags & F_ELEM) return one_layout(V, id, 0);
    switch (op->code) {
    case OP_LOAD:
    case OP_STORE:
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS:
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS:
    case OP_MAX_CONSTANCY: one_layout(V, id, 0); return;
    case OP_ASYNC_COPY: one_layout(V, id, 1); return;
    case OP_REDUCE: check_reduce(V, id, op); return;
    case OP_SCAN:
    case OP_REDUCE_FN: check_combine(V, id, op); return;
    case OP_FLIP:
    case OP_SORT:
        same_layout(V, id, op->operands[0], op->results[0],
                    "a flip's or sort's result must have its operand's layout");
        if (!ir_layout_axis_separable(V->m, L(V, op->operands[0]), ir_type(V->f, op->operands[0]),
                                      (int)op->attr[0]))
            fail(V, id, "the operand's layout mixes the axis with other dims");
        return;
    case OP_GATHER:
        same_layout(V, id, op->operands[1], op->results[0],
                    "a gather's result must have its index's layout");
        return;
    case OP_HISTOGRAM:
        if (op->nopnds > 1)
            same_layout(V, id, op->operands[0], op->operands[1],
                        "a histogram's mask must have its input's layout");
        return;
    case OP_DOT:
    case OP_DOT_ASYNC: check_dot(V, id, op); return;
    case OP_LOCAL_VIEW:
        if (L(V, op->operands[0]) != L(V, op->results[0]))
            fail(V, id, "a view keeps its buffer's layout");
        return;
    case OP_TRANS:
        if (ir_type(V->f, op->operands[0]).dt == DT_SMEM && !same_bytes(V, op))
            fail(V, id,
                 "a transposed buffer's layout must put every element where the buffer has it");
        return;
    case OP_DOT_WAIT:
        for (uint32_t i = 0; i < op->nres && i < op->nopnds; i++)
            same_layout(V, id, op->operands[i], op->results[i],
                        "dot_wait gives back its operands in their layouts");
        return;
    case OP_FOR:
    case OP_WHILE:
    case OP_IF: check_control(V, id, op); return;
    case OP_WARP_SPECIALIZE: check_warp_specialize(V, id, op); return;
    default: return;
    }
}

static void walk(GpuVerifier *V, RegionId r) {
    const IrRegion *reg = &V->f->regions[r];
    for (uint32_t i = 0; i < reg->nargs; i++)
        check_value(V, reg->parent_op, reg->args[i],
                    reg->parent_op ? "region argument" : "parameter", i);
    for (uint32_t i = 0; i < reg->nops; i++) {
        OpId id = reg->ops[i];
        check_op(V, id);
        for (int k = 0; k < V->f->ops[id].nregions; k++) walk(V, V->f->ops[id].region[k]);
    }
}

bool ir_verify_gpu(const IrModule *m, StrBuf *err) {
    GpuVerifier V = {m, NULL, err, 0};
    int w = m->gpu.num_warps;
    if (!m->gpu.arch || m->gpu.arch > GPU_SM90A)
        fail(&V, 0, "the gpu<> header needs an arch (sm_80, sm_90, sm_90a)");
    if (!option_valid(OPT_NUM_WARPS, w))
        fail(&V, 0, "the gpu<> header's num_warps must be %s", option_info(OPT_NUM_WARPS)->range);
    if (V.nerrors) return false;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        V.f = m->funcs[i];
        walk(&V, V.f->body);
    }
    if (V.nerrors > MAX_ERRORS)
        sb_printf(err, "verifier: %d more errors\n", V.nerrors - MAX_ERRORS);
    return V.nerrors == 0;
}
