/* gen_internal.h - state shared by the llvm_*.c lowering files.
 *
 * Every block value becomes the list of LLVM values of the elements this thread holds,
 * one per register of its layout's linear map (compiler/ir/ir_layout.h): register r holds
 * the element whose row-major index is the XOR of r's register bases and the thread's
 * lane and warp bases. A thread's part of each coordinate is computed once, in the
 * prologue block; a register adds a constant. A scalar is one value in every thread. A
 * shared-memory buffer is one value: the address of its first tile (ptr addrspace(3)). */
#ifndef NEREID_GEN_INTERNAL_H
#define NEREID_GEN_INTERNAL_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <setjmp.h>

#include "compiler/analysis/layout_moves.h"
#include "compiler/ir/ir_layout.h"
#include "llvm_gen.h"

/* A layout applied to a block shape, as the lowering uses it. */
typedef struct GenLayout {
    uint32_t id;
    IrType t; /* the shape (dtype ignored) */
    LinearLayout ll;
    LLVMValueRef thread[NR_MAX_RANK]; /* the lane and warp part of each coordinate (i32) */
    bool xor_dim[NR_MAX_RANK];        /* the register part shares bits with it: XOR, not add */
    LLVMValueRef owner;               /* i1: this thread holds the first copy; NULL: no copies */
    uint32_t reg_copies;              /* register bits whose basis is 0 */
    bool have_thread, have_owner;
} GenLayout;

typedef struct Gen {
    IrFunc *f;
    IrModule *m;
    const AxisInfo *info;
    const GpuTarget *target;
    Diag *diag;
    jmp_buf fail;
    int num_warps;
    /* warp_specialize: the thread that issues TMA copies and mbarrier ops (0; in the
     * producer region the first producer thread), and, in the consumer region, the threads
     * a barrier waits for (0: every thread of the program, bar.sync 0) */
    int leader_tid, barrier_threads;
    bool in_producer;
    int entry_regs; /* the kernel's .maxnreg (0: none), what setmaxnreg moves registers from */
    LLVMContextRef C;
    LLVMModuleRef M;
    LLVMBuilderRef B;
    LLVMValueRef fn;
    LLVMBasicBlockRef prologue;
    LLVMValueRef tid, lane, warp, smem;
    LLVMValueRef **regs; /* by ValId */
    uint32_t *ubits; /* by ValId: register bits its registers are equal across (llvm_uniform.c) */
    struct GenDivGuard {
        LLVMValueRef b, zero, neg1, safe;
    } div;         /* the current op's division guards (llvm_elem.c) */
    uint8_t *deep; /* by ValId: a top-level scalar's depth in non-affine operations (llvm_gen.c) */
    LLVMValueRef *cut,
        *cut_of; /* by ValId: what its splats give a deep scalar, and of which value */
    int *nregs;
    GenLayout **layouts; /* the layouts used, with their shapes */
    uint32_t nlayouts, caplayouts;
    ValId *wide_pairs; /* operand pairs of 32-bit umulhi ops (2 per pair) */
    int nwide;
    struct {
        LLVMValueRef a, b, lohi;
    } wide[64]; /* wide products made in wide_block */
    int nwidecache;
    LLVMBasicBlockRef wide_block;
    LLVMTypeRef i1, i8, i16, i32, i64, f16, bf16, f32, f64, ptr1, ptr3, vd;
    bool ptx81; /* an instruction of PTX ISA 8.1 was emitted (llvm_mem.c's vector atomics) */
} Gen;

_Noreturn void gen_error(Gen *g, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* types and constants (llvm_types.c) */
/* tensor descriptors (llvm_tma.c): a descriptor parameter's attributes (its LLVM type is
 * a generic pointer: byval), whether it holds a tensor map, and desc_part, the mbarrier
 * ops and the TMA copies */
void gen_tdesc_param_attrs(Gen *g, uint32_t param, IrType t);
void gen_grid_constants(Gen *g);
void gen_tma(Gen *g, OpId id);
LLVMTypeRef gen_type(Gen *g, int dt);     /* element type in registers (i1 for i1) */
LLVMTypeRef gen_mem_type(Gen *g, int dt); /* element type in memory (i8 for i1) */
LLVMValueRef gen_const(Gen *g, IrType t, const IrOp *op);
LLVMValueRef gen_i32(Gen *g, int64_t v);
/* x + c and x * c on i32, without emitting the identities */
LLVMValueRef gen_add_const(Gen *g, LLVMValueRef x, int64_t c);
LLVMValueRef gen_mul_const(Gen *g, LLVMValueRef x, int64_t c);
/* Two parts of a linear map's image (i32): a ^ b where their bits may overlap (x), else
 * a | b; a constant 0 part is left out. */
LLVMValueRef gen_or_xor(Gen *g, LLVMValueRef a, LLVMValueRef b, bool x);
/* A thread part of a linear offset combined with a register's constant part c: XOR, but
 * where c shares no bit with what the thread part can set (thread_bits), XOR is
 * addition, which LLVM folds into the address (one base register, constant offsets in
 * the instructions) instead of a register per constant. */
LLVMValueRef gen_xor_const(Gen *g, LLVMValueRef thread, uint32_t thread_bits, uint32_t c);
LLVMValueRef gen_i64(Gen *g, int64_t v);
LLVMValueRef gen_intrinsic(Gen *g, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n);
LLVMValueRef gen_to_mem(Gen *g, LLVMValueRef v, int dt);   /* i1 -> i8 */
LLVMValueRef gen_from_mem(Gen *g, LLVMValueRef v, int dt); /* i8 -> i1 */
/* Inline PTX: asm text, constraints, result type (void for none), operands; side_effects
 * keeps LLVM from moving or dropping it (memory, barriers, asynchronous work). */
LLVMValueRef gen_asm(Gen *g, const char *text, const char *cons, LLVMTypeRef ret,
                     LLVMValueRef *args, int n, bool side_effects);
/* x (i32) through a register move LLVM cannot see into, for the thread part of a
 * shared-memory address: each access then stays (thread part) XOR/+ (constant), where
 * InstCombine would push every constant into the lane and warp terms and rebuild the whole
 * offset per access. No GPU time (ptxas propagates the move), a fifth of the instruction
 * selection of a tile loop or an epilogue. A constant stays a constant. Also for deep
 * scalars at their splats (llvm_gen.c) and blocks' quotients by run-time divisors
 * (llvm_elem.c). */
LLVMValueRef gen_opaque(Gen *g, LLVMValueRef x);

/* values */
LLVMValueRef *gen_vals(Gen *g, ValId v, int *n);
void gen_set(Gen *g, ValId v, LLVMValueRef *regs, int n);
LLVMValueRef *gen_alloc_regs(Gen *g, int n);

/* layouts and positions (llvm_layout.c) */
const GenLayout *gen_layout_of(Gen *g, uint32_t layout, IrType t);
const GenLayout *gen_layout(Gen *g, ValId v); /* v's layout and shape (a block) */
int gen_nregs(Gen *g, ValId v);               /* 1 for a scalar or a buffer */
/* The coordinates (i32) of the element in register r of block v. */
void gen_elem_pos(Gen *g, ValId v, int r, LLVMValueRef *coord);
void gen_layout_pos(Gen *g, const GenLayout *gl, int r, LLVMValueRef *coord);
/* True in one thread per element of register r of v (NULL: in every thread); for a
 * register that only copies another of the thread's, the constant false. A scalar:
 * thread 0. */
LLVMValueRef gen_unique(Gen *g, ValId v, int r);
LLVMValueRef gen_layout_unique(Gen *g, const GenLayout *gl, int r);
LLVMValueRef gen_thread_bits(Gen *g, LLVMValueRef x, const uint32_t *basis, int nbits, int shift,
                             int len, bool *xor_out);
LLVMValueRef gen_linear(Gen *g, const LLVMValueRef *coord, IrType t); /* row-major index */
LLVMValueRef gen_smem_ptr(Gen *g, int byte_offset, LLVMValueRef index, int elem_bytes);
LLVMValueRef gen_and(Gen *g, LLVMValueRef a, LLVMValueRef b); /* NULL is true */
void gen_barrier(Gen *g);
void gen_warp_specialize(Gen *g, OpId id);
/* position builder in the prologue for values that must dominate everything */
/* The warp index (tid.x / 32) broadcast from lane 0 at the builder's position: ptxas knows
 * it (and what derives from it) is uniform across the warp there. */
LLVMValueRef gen_uniform_warp(Gen *g);
LLVMBasicBlockRef gen_enter_prologue(Gen *g);
void gen_leave_prologue(Gen *g, LLVMBasicBlockRef saved);

/* shared memory (llvm_smem.c) */
void gen_local(Gen *g, OpId id); /* local_alloc/view/store/load, async_*, fence_async */
/* convert_layout (or another move, through its index map) of 16-bit elements by 16-byte
 * stores into a scratch laid out for them and ldmatrix reads, where the two layouts allow
 * it; false, nothing emitted, where they do not */
bool gen_convert_ldmatrix(Gen *g, const IrOp *op, const uint32_t *map);
/* A shared layout's element offset of row-major index bits: inv[k] for bit k. */
void gen_shared_inverse(Gen *g, uint32_t shared, IrType t, uint32_t *inv);
/* The elements one cp.async of async_copy op moves: the run of consecutive registers
 * that land together in the buffer (*layout_run: moves_smem_run, at most 16 bytes), cut
 * to what the alignment facts (info) prove contiguous and aligned and its mask a prefix
 * of (axis_info_copy_width); *fast_dim (may be NULL) gets the dim the run goes along. */
int gen_async_copy_width(const IrFunc *f, const AxisInfo *info, const IrOp *op, int *layout_run,
                         int *fast_dim);

/* op lowering */
void gen_elementwise(Gen *g, OpId id); /* llvm_elem.c */
/* llvm_uniform.c: which registers of each block value hold equal values, before any code
 * is made (gen_uniform_analyze), and the answer for one value (0: none known). */
void gen_uniform_analyze(Gen *g);
uint32_t gen_uniform_bits(Gen *g, ValId v);
void gen_memory(Gen *g, OpId id);     /* llvm_mem.c */
void gen_shape(Gen *g, OpId id);      /* llvm_shape.c */
void gen_reduce(Gen *g, OpId id);     /* llvm_reduce.c */
void gen_scan(Gen *g, OpId id);       /* llvm_scan.c: scan, reduce_fn */
void gen_sort(Gen *g, OpId id);       /* llvm_sort.c: sort, flip */
void gen_gather(Gen *g, OpId id);     /* llvm_gather.c: gather, histogram */
void gen_inline_asm(Gen *g, OpId id); /* llvm_inline_asm.c */
/* llvm_axis.c: an axis's index bits (digits) in a layout (ir_layout_axis_separable) */
typedef struct GenDigits {
    int n;                       /* log2 of the axis's length */
    int kind[LL_MAX_BITS];       /* LL_REG, LL_LANE or LL_WARP: the input bit carrying digit k */
    int bit[LL_MAX_BITS];        /* which bit of it */
    uint32_t basis[LL_MAX_BITS]; /* digit k's step of the row-major index */
} GenDigits;
void gen_axis_digits(Gen *g, const IrOp *op, ValId x, int axis, GenDigits *d);
/* i1: digit k of register r's element is set in this thread */
LLVMValueRef gen_digit_set(Gen *g, const GenDigits *d, int k, int r);
/* For every register r of x's layout that is no copy and has none of the register bits
 * `skip`, out[j][r] = the value vals[j] has at the element whose index is r's XOR flip (an
 * XOR of digits' bases): in place, by a shuffle, or through op's scratch (n blocks of
 * dtypes dts, one after another) when a warp digit is in flip. */
void gen_partner(Gen *g, const IrOp *op, ValId x, const GenDigits *d, uint32_t flip, int n,
                 const int *dts, LLVMValueRef *const *vals, LLVMValueRef **out, uint32_t skip);
/* llvm_reduce.c: x from the lane whose id differs by mask (shfl.sync.bfly; any scalar
 * type: 64 bits as two halves, narrower ones widened) */
LLVMValueRef gen_shfl_xor(Gen *g, LLVMValueRef x, int mask);
/* llvm_shape.c: stores val at ptr where cond holds (NULL: always) */
void gen_store_if(Gen *g, LLVMValueRef cond, LLVMValueRef val, LLVMValueRef ptr, unsigned align);
void gen_dot(Gen *g, OpId id); /* llvm_dot.c (CUDA cores) or llvm_mma.c */
/* The registers of a dot's accumulator (operand 2), zeros where its use_acc operand (a 4th,
 * when present) is false; *n gets their count. */
LLVMValueRef *gen_dot_acc(Gen *g, const IrOp *op, int *n);
void gen_mma(Gen *g, OpId id); /* llvm_mma.c: mma.sync, wgmma, dot_wait */
/* llvm_mma.c: after LLVM's passes, each wgmma.wait_group moves up past the pure
 * instructions before it (ptxas serialises wgmmas otherwise) */
void gen_hoist_wgmma_waits(LLVMModuleRef M, LLVMBuilderRef B);
void gen_region(Gen *g, RegionId r);                              /* llvm_gen.c */
void gen_control(Gen *g, OpId id);                                /* llvm_control.c */
void gen_debug(Gen *g, OpId id);                                  /* llvm_debug.c: assert, print */
LLVMValueRef gen_sincos_f32(Gen *g, LLVMValueRef x, bool cosine); /* llvm_math.c */
/* llvm_fp8.c: fp8 values are i8 registers. A cvt from or to an fp8 type of n registers at
 * once (pairs go through one instruction where the target has them); an fp8 constant. */
void gen_fp8_convert(Gen *g, LLVMValueRef *in, LLVMValueRef *out, int n, int from, int to);
LLVMValueRef gen_fp8_const(Gen *g, int dt, double v);
LLVMValueRef gen_log_f32(Gen *g, LLVMValueRef x, bool base2);
/* the math op (llvm_mathfn.c): register values a (one per operand) of dtype dt */
LLVMValueRef gen_mathfn(Gen *g, const IrOp *op, int dt, LLVMValueRef *a);
/* llvm_math_soft.c: an approximated math function on fp32 without libdevice */
LLVMValueRef gen_math_soft_f32(Gen *g, int fn, LLVMValueRef x, LLVMValueRef y);
/* llvm_libdevice.c: links libdevice into the module if it calls an __nv_ function
 * (false, with a diagnostic, when that fails) */
bool gen_link_libdevice(Gen *g, LLVMTargetMachineRef tm);
/* a call of libdevice's function `name` (__nv_sin, __nv_powf, ...) taking n arguments of
 * type ty and returning ty, declared in the module at its first use */
LLVMValueRef gen_libdevice_call(Gen *g, const char *name, LLVMTypeRef ty, LLVMValueRef *args,
                                int n);

#endif
