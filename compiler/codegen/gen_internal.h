/* gen_internal.h - state shared by the llvm_*.c lowering files.
 *
 * Every IR value becomes the list of LLVM values of the elements this thread holds (one
 * for a scalar), in the register order of its layout (compiler/gpu/layout.h). Element
 * positions are a per-thread part (from the lane and warp ids, computed once in the
 * prologue block) plus a constant per register. */
#ifndef NEREID_GEN_INTERNAL_H
#define NEREID_GEN_INTERNAL_H

#include <llvm-c/Core.h>
#include <setjmp.h>

#include "../gpu/layout.h"
#include "llvm_gen.h"

typedef struct Gen {
    IrFunc *f;
    IrModule *m;
    const AxisInfo *info;
    Diag *diag;
    jmp_buf fail;
    int num_warps;
    LLVMContextRef C;
    LLVMModuleRef M;
    LLVMBuilderRef B;
    LLVMValueRef fn;
    LLVMBasicBlockRef prologue;
    LLVMValueRef tid, lane, warp, smem;
    LLVMValueRef **regs; /* by ValId */
    int *nregs;
    LLVMValueRef *thread_part; /* by layout id * NR_MAX_RANK + root dim */
    LLVMValueRef *owner;       /* by layout id: i1 "this thread owns its slice elements" */
    ValId *wide_pairs;         /* operand pairs of 32-bit umulhi ops (2 per pair) */
    int nwide;
    struct { LLVMValueRef a, b, lohi; } wide[64]; /* wide products made in wide_block */
    int nwidecache;
    LLVMBasicBlockRef wide_block;
    LLVMTypeRef i1, i8, i16, i32, i64, f16, bf16, f32, f64, ptr1, ptr3, vd;
} Gen;

_Noreturn void gen_error(Gen *g, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* types and constants (llvm_types.c) */
LLVMTypeRef gen_type(Gen *g, int dt);            /* element type in registers (i1 for i1) */
LLVMTypeRef gen_mem_type(Gen *g, int dt);        /* element type in memory (i8 for i1) */
LLVMValueRef gen_const(Gen *g, IrType t, const IrOp *op);
LLVMValueRef gen_i32(Gen *g, int64_t v);
/* x + c and x * c on i32, without emitting the identities */
LLVMValueRef gen_add_const(Gen *g, LLVMValueRef x, int64_t c);
LLVMValueRef gen_mul_const(Gen *g, LLVMValueRef x, int64_t c);
LLVMValueRef gen_i64(Gen *g, int64_t v);
LLVMValueRef gen_intrinsic(Gen *g, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n);
LLVMValueRef gen_to_mem(Gen *g, LLVMValueRef v, int dt);   /* i1 -> i8 */
LLVMValueRef gen_from_mem(Gen *g, LLVMValueRef v, int dt); /* i8 -> i1 */

/* values */
LLVMValueRef *gen_vals(Gen *g, ValId v, int *n);
void gen_set(Gen *g, ValId v, LLVMValueRef *regs, int n);
LLVMValueRef *gen_alloc_regs(Gen *g, int n);

/* element positions (llvm_layout.c) */
typedef struct ElemPos {
    LLVMValueRef coord[NR_MAX_RANK]; /* wrapped coordinate (i32) */
    LLVMValueRef valid;              /* i1, or NULL when every element is unique */
} ElemPos;
void gen_elem_pos(Gen *g, ValId v, int r, ElemPos *out);
LLVMValueRef gen_owner(Gen *g, ValId v);                 /* NULL if always the owner */
LLVMValueRef gen_unique(Gen *g, ValId v, int r);         /* one thread per element; NULL: every */
LLVMValueRef gen_thread_part(Gen *g, uint32_t root_layout, int root_dim);
LLVMValueRef gen_linear(Gen *g, const LLVMValueRef *coord, IrType t); /* row-major index */
LLVMValueRef gen_smem_ptr(Gen *g, int byte_offset, LLVMValueRef index, int elem_bytes);
void gen_barrier(Gen *g);
/* position builder in the prologue for values that must dominate everything */
LLVMBasicBlockRef gen_enter_prologue(Gen *g);
void gen_leave_prologue(Gen *g, LLVMBasicBlockRef saved);

/* op lowering */
void gen_elementwise(Gen *g, OpId id);                  /* llvm_elem.c */
void gen_memory(Gen *g, OpId id);                       /* llvm_mem.c */
void gen_shape(Gen *g, OpId id);                        /* llvm_shape.c */
void gen_reduce(Gen *g, OpId id);                       /* llvm_reduce.c */
void gen_dot(Gen *g, OpId id);                          /* llvm_dot.c */
void gen_region(Gen *g, RegionId r);                    /* llvm_gen.c */
void gen_control(Gen *g, OpId id);                      /* llvm_control.c */
void gen_debug(Gen *g, OpId id);                        /* llvm_debug.c: assert, print */
LLVMValueRef gen_sincos_f32(Gen *g, LLVMValueRef x, bool cosine); /* llvm_math.c */
LLVMValueRef gen_log_f32(Gen *g, LLVMValueRef x, bool base2);

#endif
