/* llvm_gen.c - the kernel's LLVM module: the function and its parameters, the prologue
 * (thread, lane and warp ids; per-layout thread coordinates), the walk over the ops, and
 * the NVPTX back end that turns the module into PTX. */
#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <stdio.h>

#include "gen_internal.h"

static LLVMValueRef sreg(Gen *g, const char *name) {
    return gen_intrinsic(g, name, g->i32, NULL, 0);
}

/* ---- scalars that reach their splats through a cut ----
 *
 * A splat hands one scalar to every register of a block, and LLVM's analyses of each
 * register's arithmetic (known bits in InstCombine and in the instruction selector's
 * combiner, SCEV in NVPTX's straight-line passes) walk the scalar's computation again,
 * up to their depth limits. Where that computation is a chain of divisions, remainders
 * and minima (the matmul's grouped program order computing its tile's row and column)
 * this was a fifth of the unspecialised matmul's compile time, for nothing LLVM can use.
 * So a scalar two or more such operations deep reaches its splats through gen_opaque:
 * placed after its definition, below its affine top (x * c + d is rebuilt on the cut x,
 * so the low bits LLVM knows zero stay known and the registers' offsets stay or-combined
 * and folded into addresses). Only scalars of the kernel's top level: inside a loop the
 * move would stay in the loop, where LLVM could no longer hoist what is built on it.
 * ptxas propagates the moves: the machine code is the same. */

/* The non-constant operand of an operation with a constant one that keeps the other's
 * known low bits and adds no depth (x + c, x * c, x << c, x / c, ...), else -1. */
static int affine_operand(const IrFunc *f, const IrOp *op) {
    switch (op->code) {
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_SHL:
    case OP_SHR:
    case OP_AND:
    case OP_OR:
    case OP_XOR:
    case OP_IDIV: break;
    default: return -1;
    }
    for (int k = 0; k < 2; k++) {
        OpId c = ir_def(f, op->operands[1 - k]);
        if (c && f->ops[c].code == OP_CONST && (op->code != OP_IDIV || k == 0)) return k;
    }
    return -1;
}

/* g->deep[v] for each scalar of the kernel's top level: how many non-affine operations
 * deep it is, saturating at 2 (constants, parameters, program ids, loads and control-flow
 * results are 0; a conversion or an affine operation has its operand's depth). */
static void find_deep_scalars(Gen *g) {
    IrFunc *f = g->f;
    IrRegion *body = &f->regions[f->body];
    g->deep = arena_alloc(g->m->arena, f->nvals + 1);
    memset(g->deep, 0, f->nvals + 1);
    for (uint32_t i = 0; i < body->nops; i++) {
        IrOp *op = &f->ops[body->ops[i]];
        if (op->nregions || op->nres != 1 || ir_type(f, op->results[0]).rank) continue;
        int k = affine_operand(f, op), d = 0;
        if (op->code == OP_CVT) d = g->deep[op->operands[0]];
        else if (k >= 0) d = g->deep[op->operands[k]];
        else if (op->code != OP_CONST && op->code != OP_PROGRAM_ID && op->code != OP_NUM_PROGRAMS &&
                 op->code != OP_LOAD) {
            for (uint32_t j = 0; j < op->nopnds; j++)
                d = d > g->deep[op->operands[j]] ? d : g->deep[op->operands[j]];
            d = d + 1 < 2 ? d + 1 : 2;
        }
        g->deep[op->results[0]] = (uint8_t)d;
    }
}

/* s rebuilt on a cut below its affine top (at most four levels of x op constant). */
static LLVMValueRef cut_below_affine(Gen *g, LLVMValueRef s, int levels) {
    if (levels > 0 && LLVMIsABinaryOperator(s) && LLVMIsAConstantInt(LLVMGetOperand(s, 1))) {
        LLVMOpcode oc = LLVMGetInstructionOpcode(s);
        if (oc == LLVMAdd || oc == LLVMSub || oc == LLVMMul || oc == LLVMShl || oc == LLVMOr ||
            oc == LLVMAnd || oc == LLVMXor)
            return LLVMBuildBinOp(g->B, oc, cut_below_affine(g, LLVMGetOperand(s, 0), levels - 1),
                                  LLVMGetOperand(s, 1), "");
    }
    return gen_opaque(g, s);
}

/* The value a splat of scalar v gives its registers. */
static LLVMValueRef splat_source(Gen *g, ValId v) {
    LLVMValueRef s = gen_vals(g, v, NULL)[0];
    if (g->deep[v] < 2 || LLVMTypeOf(s) != g->i32 || !LLVMIsAInstruction(s) || LLVMIsAPHINode(s))
        return s;
    if (g->cut_of[v] != s) { /* the first splat: the cut goes right after the definition */
        LLVMBasicBlockRef here = LLVMGetInsertBlock(g->B);
        LLVMValueRef next = LLVMGetNextInstruction(s);
        if (next) LLVMPositionBuilderBefore(g->B, next);
        else LLVMPositionBuilderAtEnd(g->B, LLVMGetInstructionParent(s));
        g->cut[v] = cut_below_affine(g, s, 4);
        g->cut_of[v] = s;
        LLVMPositionBuilderAtEnd(g->B, here);
    }
    return g->cut[v];
}

static void gen_simple(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    ValId r = op->nres ? op->results[0] : 0;
    int n = r ? gen_nregs(g, r) : 0;
    LLVMValueRef *out = r ? gen_alloc_regs(g, n) : NULL;
    switch (op->code) {
    case OP_CONST: {
        LLVMValueRef c = gen_const(g, ir_type(g->f, r), op);
        for (int i = 0; i < n; i++) out[i] = c;
        break;
    }
    case OP_SPLAT: {
        LLVMValueRef s = splat_source(g, op->operands[0]);
        for (int i = 0; i < n; i++) out[i] = s;
        break;
    }
    case OP_ARANGE:
        for (int i = 0; i < n; i++) {
            LLVMValueRef c[NR_MAX_RANK];
            gen_elem_pos(g, r, i, c);
            out[i] = gen_add_const(g, c[0], op->attr[0]);
        }
        break;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS: {
        static const char *const ids[] = {"llvm.nvvm.read.ptx.sreg.ctaid.x",
                                          "llvm.nvvm.read.ptx.sreg.ctaid.y",
                                          "llvm.nvvm.read.ptx.sreg.ctaid.z"};
        static const char *const nids[] = {"llvm.nvvm.read.ptx.sreg.nctaid.x",
                                           "llvm.nvvm.read.ptx.sreg.nctaid.y",
                                           "llvm.nvvm.read.ptx.sreg.nctaid.z"};
        out[0] =
            sreg(g, (op->code == OP_PROGRAM_ID ? ids : nids)[op->attr[0] < 3 ? op->attr[0] : 0]);
        break;
    }
    case OP_SMID: out[0] = sreg(g, "llvm.nvvm.read.ptx.sreg.smid"); break;
    case OP_GLOBALTIMER: /* 64 bits */
        out[0] = gen_intrinsic(g, "llvm.nvvm.read.ptx.sreg.globaltimer", g->i64, NULL, 0);
        break;
    default: NR_DIE("gen_simple: %s", ir_op_info[op->code].name);
    }
    if (r) gen_set(g, r, out, n);
}

/* fp8 reaches the dot lowering (CUDA cores, mma, wgmma) only once it handles it: until
 * then a located error rather than invalid LLVM IR. The interpreter computes these dots. */
static void gen_op(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    switch (op->code) {
    case OP_CONST:
    case OP_SPLAT:
    case OP_ARANGE:
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS:
    case OP_SMID:
    case OP_GLOBALTIMER: gen_simple(g, id); return;
    case OP_LOAD:
    case OP_STORE:
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: gen_memory(g, id); return;
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
    case OP_RESHAPE:
    case OP_TRANS:
    case OP_CONVERT_LAYOUT: gen_shape(g, id); return;
    case OP_REDUCE: gen_reduce(g, id); return;
    case OP_SCAN:
    case OP_REDUCE_FN: gen_scan(g, id); return;
    case OP_SORT:
    case OP_FLIP: gen_sort(g, id); return;
    case OP_GATHER:
    case OP_HISTOGRAM: gen_gather(g, id); return;
    case OP_INLINE_ASM: gen_inline_asm(g, id); return;
    case OP_DOT: gen_dot(g, id); return;
    case OP_DOT_ASYNC:
    case OP_DOT_WAIT: gen_mma(g, id); return;
    case OP_LOCAL_ALLOC:
    case OP_LOCAL_VIEW:
    case OP_LOCAL_STORE:
    case OP_LOCAL_LOAD:
    case OP_ASYNC_COPY:
    case OP_ASYNC_COMMIT:
    case OP_ASYNC_WAIT:
    case OP_FENCE_ASYNC: gen_local(g, id); return;
    case OP_DESC_PART:
    case OP_MBARRIER_INIT:
    case OP_MBARRIER_EXPECT:
    case OP_MBARRIER_WAIT:
    case OP_MBARRIER_INVAL:
    case OP_MBARRIER_ARRIVE:
    case OP_TMA_LOAD:
    case OP_TMA_STORE:
    case OP_TMA_STORE_WAIT: gen_tma(g, id); return;
    case OP_FOR:
    case OP_IF:
    case OP_WHILE: gen_control(g, id); return;
    case OP_WARP_SPECIALIZE: gen_warp_specialize(g, id); return;
    case OP_RETURN: LLVMBuildRetVoid(g->B); return;
    case OP_ASSERT:
    case OP_PRINT: gen_debug(g, id); return;
    case OP_ASSUME: return;
    case OP_BARRIER: gen_barrier(g); return;
    case OP_YIELD:
    case OP_CONDITION: return; /* read by the enclosing control op */
    case OP_CALL:
        gen_error(g, op->loc, "internal error: a call reached the GPU back end uninlined");
    default: gen_elementwise(g, id);
    }
}

void gen_region(Gen *g, RegionId r) {
    for (uint32_t i = 0; i < g->f->regions[r].nops; i++) gen_op(g, g->f->regions[r].ops[i]);
}

static void init_types(Gen *g) {
    LLVMContextRef C = g->C;
    g->i1 = LLVMInt1TypeInContext(C), g->i8 = LLVMInt8TypeInContext(C),
    g->i16 = LLVMInt16TypeInContext(C);
    g->i32 = LLVMInt32TypeInContext(C), g->i64 = LLVMInt64TypeInContext(C);
    g->f16 = LLVMHalfTypeInContext(C), g->bf16 = LLVMBFloatTypeInContext(C);
    g->f32 = LLVMFloatTypeInContext(C), g->f64 = LLVMDoubleTypeInContext(C);
    g->ptr1 = LLVMPointerTypeInContext(C, 1), g->ptr3 = LLVMPointerTypeInContext(C, 3);
    g->vd = LLVMVoidTypeInContext(C);
}

static void annotate(Gen *g, const char *key, int value) {
    LLVMMetadataRef md[3] = {LLVMValueAsMetadata(g->fn),
                             LLVMMDStringInContext2(g->C, key, strlen(key)),
                             LLVMValueAsMetadata(LLVMConstInt(g->i32, (unsigned)value, 0))};
    LLVMAddNamedMetadataOperand(g->M, "nvvm.annotations",
                                LLVMMetadataAsValue(g->C, LLVMMDNodeInContext2(g->C, md, 3)));
}

/* The operand pairs of 32-bit umulhi: a mul of the same pair shares one wide multiply
 * (llvm_elem.c), as Philox's rounds multiply each pair for both halves. */
static void find_wide_pairs(Gen *g, RegionId r) {
    IrFunc *f = g->f;
    for (uint32_t i = 0; i < f->regions[r].nops; i++) {
        IrOp *op = &f->ops[f->regions[r].ops[i]];
        if (op->code == OP_UMULHI && dt_bits(ir_type(f, op->results[0]).dt) == 32) {
            g->wide_pairs = arena_grow(g->m->arena, g->wide_pairs, sizeof(ValId),
                                       (size_t)g->nwide * 2, (size_t)g->nwide * 2 + 2);
            g->wide_pairs[g->nwide * 2] = op->operands[0];
            g->wide_pairs[g->nwide * 2 + 1] = op->operands[1];
            g->nwide++;
        }
        for (int k = 0; k < op->nregions; k++) find_wide_pairs(g, op->region[k]);
    }
}

static void build_function(Gen *g) {
    IrRegion *body = &g->f->regions[g->f->body];
    enum { MAX_KERNEL_PARAMS = 256 }; /* the runtime's NR_MAX_LAUNCH_ARGS; CUDA's 4 KB */
    LLVMTypeRef params[MAX_KERNEL_PARAMS];
    if (body->nargs > MAX_KERNEL_PARAMS)
        gen_error(g, g->f->loc, "kernels take at most %d parameters on the GPU", MAX_KERNEL_PARAMS);
    /* the functions kernels call by name (device_print, device_assert, libdevice's math):
     * a kernel of that name would stand for them in its module, or clash in the merged PTX */
    const char *name = g->f->name;
    if (!strcmp(name, "vprintf") || !strcmp(name, "__assertfail") || !strncmp(name, "__nv_", 5))
        gen_error(g, g->f->loc,
                  "a kernel cannot be named '%s' on the GPU: the CUDA function of that name is "
                  "what device_print, device_assert and the math functions call",
                  name);
    for (uint32_t i = 0; i < body->nargs; i++) {
        IrType t = ir_type(g->f, body->args[i]);
        /* a descriptor: a pointer to its byval struct (gen_tdesc_param_attrs) */
        params[i] = t.dt == DT_TDESC ? LLVMPointerTypeInContext(g->C, 0) : gen_type(g, t.dt);
    }
    g->fn = LLVMAddFunction(g->M, g->f->name, LLVMFunctionType(g->vd, params, body->nargs, 0));
    for (uint32_t i = 0; i < body->nargs; i++)
        if (ir_type(g->f, body->args[i]).dt == DT_TDESC)
            gen_tdesc_param_attrs(g, i, ir_type(g->f, body->args[i]));
    gen_grid_constants(g);
    LLVMSetFunctionCallConv(g->fn, 71 /* ptx_kernel */);
    annotate(g, "kernel", 1);
    int threads = 32 * (g->num_warps + ir_func_producer_warps(g->f)),
        maxnreg = g->target->code.maxnreg;
    annotate(g, "maxntidx", threads);
    if (threads > 32 * g->num_warps) {
        /* setmaxnreg moves registers between warpgroups from an even share at entry */
        int share = 65536 / threads / 8 * 8;
        if (share > 255) share = 0; /* no limit needed */
        if (share && (!maxnreg || share < maxnreg)) maxnreg = share;
    }
    if (maxnreg) annotate(g, "maxnreg", maxnreg);
    g->entry_regs = maxnreg;
    for (uint32_t i = 0; i < body->nargs; i++) {
        LLVMValueRef *r = gen_alloc_regs(g, 1);
        r[0] = LLVMGetParam(g->fn, i);
        gen_set(g, body->args[i], r, 1);
    }
    /* the dynamic shared memory: global_smem, unless a function of the module has that
     * name (a kernel may: the kernels' PTX is merged into one module), then the first of
     * global_smem_1, _2, ... that none has; every kernel of the module picks the same */
    char smem_name[64] = "global_smem";
    for (int k = 1; ir_module_find(g->m, smem_name) && k < 1000; k++)
        snprintf(smem_name, sizeof smem_name, "global_smem_%d", k);
    LLVMValueRef smem = LLVMAddGlobalInAddressSpace(g->M, LLVMArrayType2(g->i8, 0), smem_name, 3);
    LLVMSetLinkage(smem, LLVMExternalLinkage);
    LLVMSetAlignment(smem, 16);
    g->smem = smem;
    g->prologue = LLVMAppendBasicBlockInContext(g->C, g->fn, "prologue");
    LLVMPositionBuilderAtEnd(g->B, g->prologue);
    g->tid = sreg(g, "llvm.nvvm.read.ptx.sreg.tid.x");
    g->lane = LLVMBuildAnd(g->B, g->tid, gen_i32(g, 31), "lane");
    /* the warp index, broadcast from lane 0: the same value, but ptxas now knows it is
     * uniform across the warp, so what derives from it (shared-memory bases, wgmma
     * descriptors) lives in uniform registers instead of being moved there (R2UR) before
     * every wgmma */
    g->warp = gen_uniform_warp(g);
    LLVMSetValueName2(g->warp, "warp", 4);
    find_wide_pairs(g, g->f->body);
    find_deep_scalars(g);
    LLVMBasicBlockRef body_bb = LLVMAppendBasicBlockInContext(g->C, g->fn, "body");
    LLVMPositionBuilderAtEnd(g->B, body_bb);
    gen_uniform_analyze(g);
    gen_region(g, g->f->body);
    LLVMPositionBuilderAtEnd(g->B, g->prologue);
    LLVMBuildBr(g->B, body_bb);
}

LLVMValueRef gen_uniform_warp(Gen *g) {
    LLVMValueRef w = LLVMBuildLShr(g->B, g->tid, gen_i32(g, 5), "");
    return gen_intrinsic(g, "llvm.nvvm.shfl.sync.idx.i32", g->i32,
                         (LLVMValueRef[]){gen_i32(g, -1), w, gen_i32(g, 0), gen_i32(g, 31)}, 4);
}

static void register_nvptx(void) {
    /* 32-bit shared-memory pointers, as Triton sets: a shared address is a 32-bit
     * register, not a 64-bit one widened from 32 bits at every access. No loop strength
     * reduction and no load-store vectorizer (12.11 of docs/architecture.md): the lowering
     * already steps pointers by constants and issues its accesses as vectors, and the two
     * passes cost compile time for no change in the PTX. */
    const char *argv[] = {"nereid", "-nvptx-short-ptr", "-disable-lsr",
                          "-disable-nvptx-load-store-vectorizer"};
    LLVMParseCommandLineOptions(4, argv, NULL);
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
}

static LLVMTargetMachineRef target_machine(const GpuTarget *t, bool ptx81, StrBuf *err) {
    /* LLVM's target registry is process-wide: register once, even when contexts on
     * several threads compile at the same time (the only static state in Nereid) */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_nvptx);
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple("nvptx64-nvidia-cuda", &target, &msg)) {
        sb_printf(err, "%s", msg ? msg : "no NVPTX target in this LLVM");
        LLVMDisposeMessage(msg);
        return NULL;
    }
    /* codegen at O2, not O3: NVPTX's O3 only swaps its EarlyCSE runs for GVN, which
     * changes no instruction of any example's PTX and costs ~10% of emission time. PTX
     * ISA 8.0, or 8.1 for a kernel that uses its instructions (vector atomics), so that
     * every other kernel still loads where the driver knows 8.0 only */
    return LLVMCreateTargetMachine(target, "nvptx64-nvidia-cuda", t->arch,
                                   ptx81 ? "+ptx81" : "+ptx80", LLVMCodeGenLevelDefault,
                                   LLVMRelocDefault, LLVMCodeModelDefault);
}

static bool emit_ptx(Gen *g, const GpuTarget *t, StrBuf *llvm_ir, StrBuf *ptx, double *times) {
    double t0 = clock_now_ms();
    StrBuf err;
    sb_init(&err);
    LLVMTargetMachineRef tm = target_machine(t, g->ptx81, &err);
    if (!tm) {
        diag_error(g->diag, (Loc){0}, "cannot create the NVPTX target: %s", sb_cstr(&err));
        sb_free(&err);
        return false;
    }
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(g->M, dl);
    LLVMDisposeTargetData(dl);
    LLVMSetTarget(g->M, "nvptx64-nvidia-cuda");
    char *msg = NULL;
    if (!gen_link_libdevice(g, tm)) {
        LLVMDisposeTargetMachine(tm);
        sb_free(&err);
        return false;
    }
    if (LLVMVerifyModule(g->M, LLVMReturnStatusAction, &msg)) {
        char *text = LLVMPrintModuleToString(g->M);
        diag_error(g->diag, (Loc){0}, "internal error: invalid LLVM IR for '%s': %s\n%s",
                   g->f->name, msg, text);
        LLVMDisposeMessage(text);
        LLVMDisposeMessage(msg);
        LLVMDisposeTargetMachine(tm);
        sb_free(&err);
        return false;
    }
    LLVMDisposeMessage(msg);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    const char *pipeline = t->pipeline ? t->pipeline : LLVM_GEN_PIPELINE;
    LLVMErrorRef e = LLVMRunPasses(g->M, pipeline, tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
        char *m = LLVMGetErrorMessage(e);
        if (t->pipeline)
            diag_error(g->diag, (Loc){0}, "invalid LLVM pipeline '%s': %s", t->pipeline, m);
        else diag_error(g->diag, (Loc){0}, "internal error: LLVM passes failed: %s", m);
        LLVMDisposeErrorMessage(m);
        LLVMDisposeTargetMachine(tm);
        sb_free(&err);
        return false;
    }
    gen_hoist_wgmma_waits(g->M, g->B);
    double t1 = clock_now_ms();
    if (llvm_ir) {
        char *text = LLVMPrintModuleToString(g->M);
        sb_puts(llvm_ir, text);
        LLVMDisposeMessage(text);
    }
    LLVMMemoryBufferRef buf = NULL;
    bool ok = true;
    if (ptx) {
        if (LLVMTargetMachineEmitToMemoryBuffer(tm, g->M, LLVMAssemblyFile, &msg, &buf)) {
            diag_error(g->diag, (Loc){0}, "internal error: PTX emission failed: %s", msg);
            LLVMDisposeMessage(msg);
            ok = false;
        } else {
            sb_putn(ptx, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
            LLVMDisposeMemoryBuffer(buf);
        }
    }
    if (times) times[1] = t1 - t0, times[2] = clock_now_ms() - t1;
    LLVMDisposeTargetMachine(tm);
    sb_free(&err);
    return ok;
}

bool llvm_gen_kernel(IrFunc *f, const AxisInfo *info, const GpuTarget *t, StrBuf *llvm_ir,
                     StrBuf *ptx, Diag *diag, double *times) {
    if (!llvm_gen_check(f, info, diag)) return false;
    double t0 = clock_now_ms();
    Gen *g = calloc(1, sizeof *g);
    if (!g) NR_DIE("out of memory");
    g->f = f, g->m = f->mod, g->info = info, g->diag = diag, g->num_warps = t->num_warps,
    g->target = t;
    g->C = LLVMContextCreate();
    /* names of instructions, blocks and arguments matter only in the printed IR: without
     * them LLVM neither hashes nor uniques a name per value, in our pipeline and in NVPTX's
     * (PTX names registers and labels by number either way) */
    if (!llvm_ir) LLVMContextSetDiscardValueNames(g->C, 1);
    g->M = LLVMModuleCreateWithNameInContext(f->name, g->C);
    g->B = LLVMCreateBuilderInContext(g->C);
    g->regs = arena_alloc(g->m->arena, sizeof(LLVMValueRef *) * (f->nvals + 1));
    g->nregs = arena_alloc(g->m->arena, sizeof(int) * (f->nvals + 1));
    g->cut = arena_alloc(g->m->arena, sizeof(LLVMValueRef) * 2 * (f->nvals + 1));
    memset(g->cut, 0, sizeof(LLVMValueRef) * 2 * (f->nvals + 1));
    g->cut_of = g->cut + f->nvals + 1;
    init_types(g);
    bool ok = false;
    if (!setjmp(g->fail)) {
        build_function(g);
        if (times) times[0] = clock_now_ms() - t0;
        ok = emit_ptx(g, t, llvm_ir, ptx, times);
    }
    LLVMDisposeBuilder(g->B);
    LLVMDisposeModule(g->M);
    LLVMContextDispose(g->C);
    free(g);
    return ok;
}

void llvm_gen_version(unsigned *major, unsigned *minor, unsigned *patch) {
    LLVMGetVersion(major, minor, patch);
}
