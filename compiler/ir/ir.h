/* ir.h - Nereid's typed SSA IR with structured control flow.
 *
 * A module holds functions (kernels and, until inlining, specialised helpers). A
 * function's body is a region; a region is one block: arguments (block args) and an
 * ordered list of ops. Ops own up to two nested regions (for/if/while), in the spirit of
 * MLIR's scf dialect: loop-carried values are region arguments and yields. Values and ops
 * are small integer handles into per-function tables (QBE style); id 0 means "none".
 * Everything is allocated in the module's arena; passes edit in place and may leave
 * unreachable entries in the tables (regions' op lists are the truth).
 *
 * Types: a scalar dtype (or a pointer to one) and a static shape of rank 0-8 whose dims
 * are powers of two. Rank 0 is a scalar. The GPU back end adds one more: a buffer in
 * shared memory (smem<64x32xfp16, #L3>), a tile of elements laid out by a shared layout,
 * possibly a ring of `stages` such tiles.
 *
 * The GPU back end's facts live in the IR too, so its stages can be printed, parsed and
 * verified like any other: IrValue.layout (a layout id, 0 = unassigned: the distributed
 * layout of a block, the shared layout of a buffer), IrModule.gpu (the target and warp
 * count the layouts were made for), IrOp.smem_offset/size and IrFunc.shared_bytes (the
 * shared-memory allocation). compiler/ir/ir_layout.h has the layouts' arithmetic; analyses
 * keep their facts in side tables indexed by ValId. */
#ifndef NEREID_IR_H
#define NEREID_IR_H

#include "compiler/support/support.h"

/* NR_MAX_RANK: the most dims of a block or a shared-memory buffer (Triton has no such
 * limit; its tests reshape through 5 and 6 dims). NR_MAX_DESC_RANK: the most dims of a
 * tensor descriptor, Triton's limit and the tensor memory accelerator's
 * (cuTensorMapEncodeTiled takes rank 1 to 5). */
enum { NR_MAX_RANK = 16, NR_MAX_DESC_RANK = 5, NR_MAX_NUMEL = 1 << 20 };

typedef enum {
    DT_VOID, /* only as "no type" */
    DT_I1,
    DT_I8,
    DT_I16,
    DT_I32,
    DT_I64,
    DT_U8,
    DT_U16,
    DT_U32,
    DT_U64,
    DT_FP16,
    DT_BF16,
    DT_FP32,
    DT_FP64,
    /* the fp8 types, in compiler/support/fp8.h's NrFp8Format order (dt_fp8_format): OCP E4M3FN
     * and E5M2, Triton's E4M3 with bias 15, AMD's E4M3 and E5M2 FNUZ. Memory, cvt, select,
     * shape ops and (the OCP two) dot only; arithmetic is done in fp32 (sema) */
    DT_FP8E4NV,
    DT_FP8E5,
    DT_FP8E4B15,
    DT_FP8E4B8,
    DT_FP8E5B16,
    DT_PTR,
    DT_SMEM,  /* a shared-memory buffer (GPU back end) */
    DT_TDESC, /* a tensor descriptor passed by the host (a parameter only): global memory
                 of rank `rank` read and written in tiles of `shape` elements of `pointee` */
    DT_COUNT
} DType;

typedef struct IrType {
    uint8_t dt;      /* DType */
    uint8_t pointee; /* DType pointed to when dt == DT_PTR; the element DType when DT_SMEM */
    uint8_t rank;
    uint8_t stages; /* DT_SMEM: the number of tiles in the buffer (1 for one tile) */
    int32_t shape[NR_MAX_RANK];
} IrType;

const char *dt_name(int dt);        /* "i32", "fp16", "ptr" */
int dt_from_name(const char *name); /* DT_VOID if unknown; accepts i1..u64, fp16.., bf16, fp8e4nv,
                                       ..., fp8e5b16 */
int dt_bits(int dt);                /* i1 -> 1, ptr -> 64 */
int dt_bytes(int dt);               /* i1 -> 1 */
bool dt_is_float(int dt);           /* fp16 .. fp64 and the fp8 types */
bool dt_is_fp8(int dt);             /* fp8e4nv, fp8e5, fp8e4b15, fp8e4b8, fp8e5b16 */
bool dt_is_fp8_ocp(int dt); /* fp8e4nv, fp8e5: the ones PTX converts and the tensor cores take */
int dt_fp8_format(int dt);  /* an fp8 dtype's compiler/support/fp8.h NrFp8Format */
bool dt_is_scalar(int dt);  /* i1 .. fp8e5b16: an element type (not ptr, not smem) */
bool dt_is_int(int dt);     /* i1 and all signed/unsigned ints */
bool dt_is_signed(int dt);  /* i8..i64 (not i1, not unsigned) */

IrType ty_scalar(int dt);
IrType ty_ptr(int pointee);
IrType ty_smem(int elem, int rank, const int32_t *shape, int stages); /* a shared-memory buffer */
/* a tensor descriptor of tiles `shape` of elem */
IrType ty_tdesc(int elem, int rank, const int32_t *shape);
bool ty_is_tdesc(IrType t);
/* a value with elements spread over threads: rank > 0 and neither a buffer nor a descriptor */
bool ty_is_block(IrType t);
IrType ty_block(IrType elem, int rank, const int32_t *shape); /* rank 0 gives elem */
IrType ty_elem(IrType t);                                     /* rank dropped */
IrType ty_with_elem(IrType shape_of, IrType elem);            /* shape of one, dtype of the other */
bool ty_equal(IrType a, IrType b);
bool ty_same_shape(IrType a, IrType b);
/* the same dims but for unit ones, and the same last dim (a [1, M, K] tile and an [M, K]
 * one: the same elements in the same row-major order) */
bool ty_same_but_unit_dims(IrType a, IrType b);
int64_t ty_numel(IrType t);
bool ty_is_ptr(IrType t);
/* "i32", "ptr<fp32>", "<128x64xfp16>", "<128xptr<fp32>>", "smem<64x32xfp16, stages=3>",
 * "tdesc<64x64xfp16>"
 * into buf; returns buf */
char *ty_str(IrType t, char *buf, size_t size);

typedef uint32_t ValId;
typedef uint32_t OpId;
typedef uint32_t RegionId;

typedef enum {
#define OP(e, name, nop, nres, nreg, flags, attrs) OP_##e,
#include "ir_ops.def"
#undef OP
    OP_COUNT
} OpCode;

enum { F_PURE = 1, F_COMM = 2, F_ELEM = 4, F_TERM = 8, F_MEM = 16, F_RDONLY = 32, F_GPU = 64 };

typedef struct OpInfo {
    const char *name;
    int nopnds, nresults, nregions; /* -1: variable */
    unsigned flags;
    const char *attrs;
} OpInfo;
extern const OpInfo ir_op_info[OP_COUNT]; /* constant table */
int ir_op_from_name(const char *name);    /* -1 if unknown */

typedef enum {
    CMP_PRED_EQ,
    CMP_PRED_NE,
    CMP_PRED_LT,
    CMP_PRED_LE,
    CMP_PRED_GT,
    CMP_PRED_GE
} CmpPred;
typedef enum { RED_SUM, RED_MAX, RED_MIN, RED_ARGMAX, RED_ARGMIN } RedKind;
typedef enum { RMW_ADD, RMW_MAX, RMW_MIN, RMW_XCHG, RMW_AND, RMW_OR, RMW_XOR } RmwKind;
typedef enum { PREC_IEEE, PREC_TF32 } DotPrec;
typedef enum {
#define MATHFN(e, name, nargs, exact) MATH_##e,
#include "ir_mathfn.def"
#undef MATHFN
    MATH_COUNT
} MathFn;
typedef struct MathFnInfo {
    const char *name;
    int nargs;
    bool exact;
} MathFnInfo;
extern const MathFnInfo ir_mathfn_info[MATH_COUNT]; /* constant table (ir_print.c) */

typedef struct IrValue {
    IrType ty;
    uint32_t def;   /* defining op, or the region when is_arg */
    uint16_t index; /* result number, or argument number */
    bool is_arg;
    uint32_t layout; /* reserved for the GPU back end; 0 = none */
} IrValue;

enum { IR_OP_NATTR = NR_MAX_RANK };
typedef struct IrOp {
    uint16_t code;
    uint8_t nregions;
    Loc loc;
    ValId *operands;
    uint32_t nopnds;
    ValId *results;
    uint32_t nres;
    RegionId region[2];
    RegionId parent;           /* the region whose op list holds this op */
    int64_t attr[IR_OP_NATTR]; /* int-like attributes; an ints list takes one per dim */
    double fattr;
    const char *sattr;
    int32_t smem_offset; /* GPU: the op's shared memory (bytes): the buffer a local_alloc */
    int32_t smem_size;   /* makes, or an op's scratch. Set by the allocation pass; size 0 =
                            none. Printed as smem = [off, size] */
} IrOp;

typedef struct IrRegion {
    ValId *args;
    uint32_t nargs, capargs;
    OpId *ops;
    uint32_t nops, capops;
    OpId parent_op; /* 0 for a function body */
} IrRegion;

typedef struct IrModule IrModule;

typedef struct IrFunc {
    IrModule *mod;
    const char *name;
    bool is_kernel;
    Loc loc;
    IrValue *vals; /* [0] unused */
    uint32_t nvals, capvals;
    IrOp *ops; /* [0] unused */
    uint32_t nops, capops;
    IrRegion *regions; /* [0] unused */
    uint32_t nregions, capregions;
    RegionId body;            /* its args are the parameters */
    const char **param_names; /* one per body arg */
    IrType *result_types;
    uint32_t nresults;
    uint32_t shared_bytes; /* GPU: the shared memory the kernel needs (allocation pass) */
} IrFunc;

/* A layout (the GPU back end's): how a block's elements are spread over a CTA's threads
 * (distributed layouts) or laid out in a shared-memory buffer (shared layouts). Each is a
 * linear map over GF(2) (compiler/ir/linear_layout.h); compiler/ir/ir_layout.h builds it and
 * says what each kind means. */
typedef enum {
    LAYOUT_NONE,
    LAYOUT_BLOCKED, /* spt, tpw, wpc, order */
    LAYOUT_SLICE,   /* dim, parent */
    LAYOUT_MMA,     /* version (2: mma.sync, 3: wgmma), wpc[0..1] (warps along M, N), instr_n */
    LAYOUT_DOT_OP,  /* op_idx (0: A, 1: B), parent (an mma layout), k_width */
    LAYOUT_SHARED,  /* vec, per_phase, max_phase, order, atom */
    LAYOUT_LINEAR,  /* lin: any linear map, for blocks of one shape (or smaller) */
} IrLayoutKind;
struct LinearLayout;
typedef struct IrLayout {
    uint8_t kind;
    uint8_t rank; /* rank of the blocks it describes */
    uint8_t spt[NR_MAX_RANK], tpw[NR_MAX_RANK], wpc[NR_MAX_RANK], order[NR_MAX_RANK];
    uint8_t dim;                       /* slice: the dim removed */
    uint8_t version;                   /* mma */
    uint8_t op_idx;                    /* dot_op */
    uint8_t k_width;                   /* dot_op: consecutive k elements in one 32-bit register */
    uint8_t vec, per_phase, max_phase; /* shared: the swizzle */
    uint16_t instr_n;                  /* mma version 3: the N of one wgmma instruction */
    uint16_t atom;   /* shared: elements of the contiguous dim per panel (0: whole rows) */
    uint32_t parent; /* slice, dot_op: the parent layout's id */
    const struct LinearLayout *lin; /* linear: the map (the module's arena owns it) */
} IrLayout;

/* The GPU target a module's layouts were made for (0 / "none" before the GPU passes). */
typedef enum { GPU_ARCH_NONE, GPU_SM80, GPU_SM90, GPU_SM90A } GpuArch;
typedef struct IrGpuInfo {
    uint8_t arch;      /* GpuArch */
    uint8_t num_warps; /* threads per program = 32 * num_warps */
} IrGpuInfo;

struct IrModule {
    Arena *arena;
    IrFunc **funcs;
    uint32_t nfuncs, capfuncs;
    NameMap byname;    /* function name -> the first function of that name */
    IrLayout *layouts; /* [0] unused: id 0 is "no layout" */
    uint32_t nlayouts, caplayouts;
    IrGpuInfo gpu;
    int warps_read; /* the warp count the front end gave a program (tl.extra.cuda.num_threads(),
                       num_warps()): its kernels hold it as a constant, so they run with that
                       count only; 0: none read */
};

IrModule *ir_module_new(Arena *arena);
IrFunc *ir_func_new(IrModule *m, const char *name, bool is_kernel, Loc loc);
IrFunc *ir_module_find(const IrModule *m, const char *name);
void ir_module_drop_helpers(IrModule *m); /* drop every function that is not a kernel */
void ir_func_set_results(IrFunc *f, const IrType *tys, uint32_t n);
/* The warps a GPU kernel runs beside its num_warps: its warp_specialize's producer warps
 * (0 without one). */
int ir_func_producer_warps(const IrFunc *f);
ValId ir_add_param(IrFunc *f, IrType ty, const char *name);

RegionId ir_region_new(IrFunc *f, OpId parent_op);
ValId ir_region_add_arg(IrFunc *f, RegionId r, IrType ty);
void ir_region_append(IrFunc *f, RegionId r, OpId op);
/* New op, not yet placed in a region; results get fresh values of the given types. */
OpId ir_op_new(IrFunc *f, int code, Loc loc, const ValId *opnds, uint32_t nopnds,
               const IrType *restys, uint32_t nres);
/* Attach a fresh region to an op (up to two). */
RegionId ir_op_add_region(IrFunc *f, OpId op);
void ir_op_set_operands(IrFunc *f, OpId op, const ValId *opnds, uint32_t n);

static inline IrOp *ir_op(IrFunc *f, OpId id) { return &f->ops[id]; }
static inline IrValue *ir_val(IrFunc *f, ValId id) { return &f->vals[id]; }
static inline IrRegion *ir_region(IrFunc *f, RegionId id) { return &f->regions[id]; }
static inline IrType ir_type(const IrFunc *f, ValId id) { return f->vals[id].ty; }
static inline ValId ir_result(IrFunc *f, OpId op, uint32_t i) { return f->ops[op].results[i]; }
/* The op defining v, or 0 for a region argument. */
static inline OpId ir_def(const IrFunc *f, ValId v) {
    return f->vals[v].is_arg ? 0 : f->vals[v].def;
}

/* Appends ops at the end of a region. */
typedef struct IrBuilder {
    IrFunc *f;
    RegionId region;
    Loc loc;
} IrBuilder;
OpId ir_build(IrBuilder *b, int code, const ValId *opnds, uint32_t n, const IrType *restys,
              uint32_t nres);
/* Shorthands that create, append and return the single result. */
ValId ir_build1(IrBuilder *b, int code, const ValId *opnds, uint32_t n, IrType resty);
ValId ir_const_int(IrBuilder *b, IrType ty, int64_t v);
ValId ir_const_float(IrBuilder *b, IrType ty, double v);

/* Deep-copies an op (and its regions) into region dst of func df, mapping operands
 * through map (indexed by the source's ValId; entries must be set for every outside
 * value used); results and region args get fresh values recorded in map. */
OpId ir_clone_op(IrFunc *df, RegionId dst, IrFunc *sf, OpId op, ValId *map);

/* ---- attribute formats (ir_print.c), shared by the printer, parser and verifier ----
 * An op's attrs string from ir_ops.def, split into specs: where each attribute lives
 * (attr[slot], fattr or sattr) and how it is written. */
typedef enum {
    IR_ATTR_INT,
    IR_ATTR_FLOAT,
    IR_ATTR_STR,
    IR_ATTR_CMP,
    IR_ATTR_RED,
    IR_ATTR_RMW,
    IR_ATTR_PREC,
    IR_ATTR_INTS,
    IR_ATTR_NUM,
    IR_ATTR_MATHFN,
    IR_ATTR_SEM,     /* an atomic's memory semantics (MemSem) */
    IR_ATTR_SCOPE,   /* an atomic's scope (MemScope) */
    IR_ATTR_LDCACHE, /* a load's cache modifier (LoadCache) */
    IR_ATTR_STCACHE, /* a store's cache modifier (StoreCache) */
    IR_ATTR_EVICT    /* a load's or store's eviction policy (EvictPolicy) */
} IrAttrKind;
enum { IR_MAX_ATTRS = 4 };
typedef struct IrAttrSpec {
    char name[24];
    int kind;      /* IrAttrKind */
    int slot;      /* attr[] index for int-like kinds (first index for ints) */
    bool optional; /* "name:kind?" in ir_ops.def: 0 when absent, and not printed when 0 */
} IrAttrSpec;
/* Fills out[] with the op's attributes; returns how many (0 for a bad code). */
int ir_attr_specs(int code, IrAttrSpec out[IR_MAX_ATTRS]);
/* An atomic's memory semantics and scope (attrs sem and scope), Triton's: the default
 * (0, not printed) is acq_rel at gpu scope, as tl.atomic_*'s. */
typedef enum { SEM_ACQ_REL, SEM_ACQUIRE, SEM_RELEASE, SEM_RELAXED } MemSem;
typedef enum { SCOPE_GPU, SCOPE_CTA, SCOPE_SYS } MemScope;
/* Where an atomic op keeps them: attr[1], attr[2] of atomic_rmw (attr[0] is its kind),
 * attr[0], attr[1] of atomic_cas. */
static inline int ir_atomic_sem_slot(int code) { return code == OP_ATOMIC_CAS ? 0 : 1; }
/* A load's and a store's cache modifier and eviction policy (attrs cache and evict, attr[0]
 * and attr[1]), Triton's cache_modifier= and eviction_policy=: performance hints only (see
 * ir_ops.def). 0, not printed, is none. */
typedef enum { LDCACHE_NONE, LDCACHE_CA, LDCACHE_CG, LDCACHE_CV } LoadCache;
typedef enum { STCACHE_NONE, STCACHE_WB, STCACHE_CG, STCACHE_CS, STCACHE_WT } StoreCache;
typedef enum { EVICT_NORMAL, EVICT_FIRST, EVICT_LAST } EvictPolicy;
/* Enum kinds (cmp, red, rmw, prec, mathfn, sem, scope, ldcache, stcache, evict): name of a value
 * (NULL if out of range), the value of a name (-1 if unknown), and "a, b, c" for messages. */
const char *ir_attr_enum_name(int kind, int64_t v);
int ir_attr_enum_value(int kind, const char *name, size_t len);
const char *ir_attr_enum_list(int kind);
/* The length of an ints attribute: the operand's rank, one for a scalar operand. */
static inline int ir_ints_len(int operand_rank) { return operand_rank > 0 ? operand_rank : 1; }

/* inline_asm (tl.inline_asm_elementwise): at most IR_ASM_MAX_ARGS operands and
 * IR_ASM_MAX_RESULTS results; the registers one invocation of the assembly gives a value
 * of dtype dt (elements under 32 bits go several to a 32-bit register when pack > 1,
 * Triton's rule; others one each), and the operand entries of a constraint string of len
 * bytes (clobbers, "~{...}", are not), which must be one per register: the results'
 * first, then the operands'. */
enum { IR_ASM_MAX_ARGS = 32, IR_ASM_MAX_RESULTS = 16 };
int64_t ir_asm_regs(int dt, int64_t pack);
int ir_asm_operands(const char *c, size_t len);

/* "sm_80", "sm_90", "sm_90a" (and "none"); the GpuArch of a name, GPU_ARCH_NONE if unknown */
const char *ir_gpu_arch_name(int arch);
int ir_gpu_arch_from_name(const char *name, size_t len);

/* ---- the textual form (ir_print.c, ir_parse.c) ----
 * print -> parse -> print gives the same text; values are renumbered %0, %1, ... per
 * function in definition order. */
void ir_print_module(StrBuf *out, const IrModule *m);
void ir_print_func(StrBuf *out, const IrFunc *f);
/* n modules as one (the GPU back end compiles each kernel in a module of its own): the
 * first gpu<> header (theirs must agree), every module's layouts in one table (module
 * k's renumbered after those of modules 0..k-1, equal ones not merged), then every
 * function. The text parses back into one module that prints the same. */
void ir_print_modules(StrBuf *out, const IrModule *const *ms, int n);
/* Parse the textual form; errors go to diag located in src. NULL on error. */
IrModule *ir_parse_module(Arena *arena, Diag *diag, const Source *src);

/* ---- verification (ir_verify.c): types, arities, terminators, SSA dominance ----
 * Returns true if valid; otherwise writes "verifier: @func: op 'name': reason" lines. */
bool ir_verify_module(const IrModule *m, StrBuf *err);
/* The GPU stage's layouts and buffers (ir_verify_gpu.c); ir_verify_module calls it for a
 * module with a gpu<> header once the rest verifies. */
bool ir_verify_gpu(const IrModule *m, StrBuf *err);

#endif
