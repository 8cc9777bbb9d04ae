/* sema_internal.h - shared state of the sema_*.c files: compile-time values (Val), the
 * environment of names, the per-function lowering state and the error exit.
 *
 * A Val is what an expression evaluates to: either a compile-time (constexpr) value -
 * int, float, bool, string, None, a dtype, a tuple, a function, a module like `tl` - or an
 * IR value with its type. Constexpr values are "weakly typed" in arithmetic with blocks
 * (Triton's rule: a Python scalar of a lower or equal kind does not take part in type
 * promotion). The first error aborts the compilation through a longjmp to sema_lower;
 * everything allocated lives in the arena, so nothing leaks. */
#ifndef NEREID_SEMA_INTERNAL_H
#define NEREID_SEMA_INTERNAL_H

#include <setjmp.h>

#include "sema.h"

typedef enum {
    V_UNDEF, /* not a value (a name defined on only some paths) */
    V_NONE,
    V_BOOL,    /* i */
    V_INT,     /* i */
    V_FLOAT,   /* f */
    V_STR,     /* s, slen */
    V_DTYPE,   /* ty: a scalar IrType (maybe a pointer) */
    V_TUPLE,   /* items, n */
    V_FUNC,    /* fn, fnmod */
    V_BUILTIN, /* builtin index; self (bound method receiver) may be set */
    V_MODULE,  /* i: MOD_TRITON or MOD_TL */
    V_IR,      /* v, ty */
    V_CTYPE,   /* items[0]: Triton's constexpr_type(value), the .type of a constexpr */
    V_NTCLASS, /* a namedtuple class (collections.namedtuple, typing.NamedTuple): s its name,
                  fields[n] its field names, items[n] the defaults (V_UNDEF: none) */
} VKind;

enum { MOD_TRITON, MOD_TL, MOD_PROPAGATE_NAN }; /* tl.PropagateNan: an enum of two ints */

/* A tuple with a meaning of its own (Val.tag), which the front end lowers to ordinary
 * pointer blocks and masks (lang/sema_blockptr.c). Its items are its run-time parts, so
 * loops carry them and helpers take them like any tuple's; its compile-time parts travel
 * in the Val itself: ty is the block type <block_shape x element dtype>, i the order.
 * - TAG_BLOCK_PTR (tl.make_block_ptr): items base, shape[r] (i64), strides[r] (i64),
 *   offsets[r] (i32);
 * - TAG_TENSOR_DESC (tl.make_tensor_descriptor): items base, shape[r] (i64), strides[r]
 *   (i64); i is the padding (1: NaN). */
enum { TAG_NONE, TAG_BLOCK_PTR, TAG_TENSOR_DESC };

typedef struct Val Val;
typedef struct ModScope ModScope;

struct Val {
    VKind k;
    int64_t i;
    double f;
    const char *s;
    size_t slen;
    IrType ty;
    ValId v;
    Val *items;
    int n;
    const Func *fn;
    ModScope *fnmod;
    int builtin;
    Val *self;
    int tag; /* V_TUPLE: TAG_NONE, TAG_BLOCK_PTR or TAG_TENSOR_DESC */
    /* V_TUPLE: an instance of a namedtuple class (s: the class's name), V_NTCLASS: the class:
     * the n field names; NULL for a plain tuple. t.NAME reads the field. */
    const char **fields;
    /* V_IR of pointer type: memory the kernel may only read (a parameter Triton's way
     * annotated tl.const, signature "*kfp32", and the pointers made from it); a store
     * through it is an error, and it differs in type from a writable pointer */
    bool constptr;
    /* V_INT, V_FLOAT, V_BOOL: bound to a name by a plain assignment (`x = 10`), where
     * Triton's code generator makes a scalar tensor of it: its .type is a dtype, not a
     * constexpr_type. Nereid keeps the constant (it folds the same either way). */
    bool assigned;
};

/* Names visible in a function body. Copies are cheap (small arrays in the arena). */
typedef struct Env {
    const char **names;
    Val *vals;
    int n, cap;
} Env;

/* A module's scope: its functions and lazily evaluated constant globals. */
struct ModScope {
    const Module *mod;
    NameMap funcs;   /* name -> the last def of that name (a later def shadows an earlier) */
    NameMap globals; /* name -> index + 1 into gnames, the last assignment */
    const char **gnames;
    Val *gvals;
    const Stmt **gdefs;
    uint8_t *gstate; /* 0 not evaluated, 1 evaluating, 2 done */
    int ng;
};

/* A helper specialisation already lowered: calls with the same key reuse it. */
typedef struct Spec {
    const Func *fn;
    const char *key;
    IrFunc *ir;
    Val ret; /* the return value's shape; V_IR leaves hold result indices in v */
} Spec;

/* Lowering state of the function being emitted. */
typedef struct FnState {
    IrFunc *f;
    IrBuilder b;
    Env *env;
    ModScope *scope;
    const Func *fn;
    bool in_loop;
    Loc where; /* for module-level constants (f == NULL): where IR would be needed */
} FnState;

typedef struct CallFrame {
    const Func *fn;
    Loc call_loc;
} CallFrame;

typedef struct Sema {
    Arena *arena;
    Diag *diag;
    jmp_buf fail;
    IrModule *ir;
    ModScope user, std;
    const SemaOptions *opts;
    FnState *fs;
    Spec *specs;
    int nspecs, capspecs;
    CallFrame *stack;
    int depth, capstack;
    int name_counter;
    int64_t unrolled; /* static_range / tuple iterations so far (bounded) */
    /* > 0: helper calls are lowered in place, not as calls (a combine function with
     * asserts, a tl.map_elementwise function: their ops must land in one region) */
    int inline_calls;
    struct AssertSink *asserts; /* non-NULL: asserts are collected here, not emitted */
} Sema;

/* The asserts of a combine function (tl.reduce, tl.associative_scan): each one's i1
 * condition, message and place, as lowered in `region`; the reduction carries them as
 * flags and asserts them after it (sema_builtins.c). */
typedef struct AssertSink {
    RegionId region;
    ValId *conds;
    const char **msgs;
    Loc *locs;
    int n, cap;
} AssertSink;
/* Where an assert is lowered: emitted, or collected when S->asserts is set. */
void sema_emit_assert(Sema *S, ValId cond, const char *msg, Loc loc);

/* Bounds that keep hostile but well-formed programs from hanging the compiler. */
enum {
    SEMA_MAX_OPS = 1 << 20,    /* IR ops in one function */
    SEMA_MAX_UNROLL = 1 << 16, /* static loop iterations in one compilation */
    SEMA_MAX_STR = 1 << 16,    /* bytes in a compile-time string */
    SEMA_MAX_TUPLE = 1 << 12,  /* items in a compile-time tuple */
};

/* ---- errors (sema.c) ---- */
/* A constexpr value given as text (-D NAME=TEXT, a define's value; a host constexpr
 * function's result): sema.c's rules. */
Val sema_parse_define(Sema *S, const char *name, const char *text);

_Noreturn void sema_error(Sema *S, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error at loc in code reached from `from` (a note saying from_what there comes first
 * among the notes): an op of a combine function that the scan at `from` inlines. */
_Noreturn void sema_error_from(Sema *S, Loc loc, Loc from, const char *from_what, const char *fmt,
                               ...) __attribute__((format(printf, 5, 6)));

/* ---- values (sema_vals.c) ---- */
Val sema_val_none(void);
Val sema_val_int(int64_t i);
Val sema_val_bool(bool b);
Val sema_val_float(double f);
Val sema_val_str(Sema *S, const char *s, size_t n);
Val sema_val_dtype(IrType t);
Val sema_val_ir(Sema *S, ValId v);
Val sema_val_tuple(Sema *S, const Val *items, int n);
Val sema_val_ctype(Sema *S, Val c); /* constexpr_type(c) (sema_names.c) */
bool sema_val_is_const(Val v);      /* int, float, bool */
/* A weak operand of the typing rules (docs/language.md section 6): a compile-time number,
 * but not one bound to a name by a plain assignment, which Triton makes a scalar tensor of
 * its to_tensor type */
static inline bool sema_weak(Val v) { return v.k != V_IR && !v.assigned; }
int sema_float_dtype(double f);    /* Triton's to_tensor_type of a float: fp32 or fp64 */
bool sema_val_is_constexpr(Val v); /* anything but V_IR or a tuple holding one */
bool sema_val_same(Val a, Val b);  /* identical (same IR value or equal constants) */
const char *sema_val_kind_name(Sema *S, Val v); /* "i32 block <128xi32>", "constexpr int" */
/* Append v as Python's str() (repr() when repr) prints it, for f-strings and
 * static_print: None, bools, ints, floats (shortest round trip), strings, dtypes, tuples
 * and namedtuples of those. A value not known at compile time (a block, a function, ...):
 * with any, what it is ("fp32 block <128xf32>", static_print's way); else false (sb then
 * holds a partial text). */
bool sema_val_format(Sema *S, StrBuf *sb, Val v, bool repr, bool any);
void sema_val_key(Sema *S, StrBuf *sb, Val v); /* a specialisation key fragment */

Env *sema_env_new(Sema *S);
Env *sema_env_copy(Sema *S, const Env *e);
Val *sema_env_lookup(Env *e, const char *name);
void sema_env_set(Sema *S, Env *e, const char *name, Val v);

/* ---- types and emission (sema_types.c) ---- */
IrType sema_type_of(Val v);                    /* IR type; constexprs as Triton's to_tensor gives */
int sema_const_dtype(Sema *S, Val v, Loc loc); /* the dtype to_tensor gives a constant */
ValId sema_to_ir(Sema *S, Val v, Loc loc);     /* materialise (constant -> const op) */
ValId sema_to_ir_dt(Sema *S, Val v, int dt, Loc loc); /* materialise, then cast to dt */
ValId sema_emit_cast(Sema *S, ValId v, IrType elem, bool bitcast, Loc loc);
ValId sema_unsplat(Sema *S, ValId x, Loc loc); /* a one-element block's element */
/* the explicit cast (x.to, tl.cast) where a pointer is on either side: Triton's rules */
ValId sema_emit_ptr_cast(Sema *S, ValId v, IrType elem, Loc loc);
/* fp8 is a storage type: an op whose computation dtype is fp8 is built in fp32, between
 * widening its fp8 operands (sema_fp8_widen: other values pass through) and narrowing its
 * result back to dt (sema_fp8_narrow: no-op unless dt is an fp8 type). */
ValId sema_fp8_widen(Sema *S, ValId v, Loc loc);
ValId sema_fp8_narrow(Sema *S, ValId v, int dt, Loc loc);
ValId sema_emit_broadcast(Sema *S, ValId v, IrType shape, Loc loc);
IrType sema_broadcast_shape(Sema *S, IrType a, IrType b, Loc loc);
ValId sema_emit_const(Sema *S, IrType ty, Val c, Loc loc); /* c int/float/bool */
void sema_check_shape(Sema *S, Loc loc, int rank, const int64_t *dims);
int sema_computation_dtype(Sema *S, IrType a, bool a_weak, IrType b, bool b_weak, bool div_or_mod,
                           Loc loc);
ValId sema_to_i1(Sema *S, Val v, Loc loc); /* condition: x != 0 unless already i1 */
IrBuilder *sema_builder(Sema *S);
IrFunc *sema_func(Sema *S);

/* ---- expressions and operators (sema_expr.c) ---- */
Val sema_lower_expr(Sema *S, const Expr *e);
Val sema_binary_op(Sema *S, int op, Val a, Val b, Loc loc); /* BinOp */
/* The same, as the user's operator or tl.add/sub/mul: an integer +, - or * is checked for
 * overflow in debug mode (SemaOptions.debug 1), as Triton's sanitize_overflow. */
Val sema_user_binary_op(Sema *S, int op, Val a, Val b, Loc loc);
/* r, marked constptr when it is a pointer made from a constptr among from[0..n) */
Val sema_const_from(Val r, const Val *from, int n);
/* tuples or values with pointers of the same types but different constness (a mismatch
 * Triton's typing reports); *a_const, *b_const: the first such leaf's */
bool sema_const_mismatch(Val a, Val b);
/* The error a store through p (a pointer, a block pointer) gives when p is const */
void sema_check_writable(Sema *S, Val p, Loc loc);
Val sema_compare_op(Sema *S, int op, Val a, Val b, Loc loc); /* CmpOp */
/* A Python int meeting an integer of type dt must fit it (else an error). */
void sema_check_weak_range(Sema *S, Val c, int dt, Loc loc);
/* a / b as Triton types it; exact: correctly rounded on every device (tl.math.div_rn) */
Val sema_float_div(Sema *S, Val a, Val b, bool exact, Loc loc);
Val sema_lookup_name(Sema *S, const char *name, Loc loc);
bool sema_scope_lookup(Sema *S, ModScope *sc, const char *name, Loc loc, Val *out);
void sema_scope_init(Sema *S, ModScope *sc, const Module *m);
int sema_dtype_from_name(const char *name); /* float32, fp32, int32, i32, ... ; DT_VOID if none */
const char *sema_dtype_triton_name(int dt); /* float16 for fp16 (tl.NAME); NULL if none */
/* an error for Triton's fp8 types that Nereid lacks (float8e4b15, fp8e5b16, ...) */
void sema_check_dtype_name(Sema *S, const char *name, Loc loc);
Val sema_get_attr(Sema *S, Val base, const char *name, Loc loc);
bool sema_has_attr(Sema *S, Val base, const char *name, Loc loc); /* hasattr(): never an error */
bool sema_truthy_const(Sema *S, Val v, Loc loc, bool *out);       /* false if not a constexpr */

/* ---- calls (sema_call.c) ---- */
typedef struct CallArgs {
    Val *pos;
    int npos;
    const char **kwnames;
    Val *kwvals;
    Loc *kwlocs;
    int nkw;
    Loc loc;
    Loc *poslocs;
} CallArgs;
Val sema_call_value(Sema *S, Val callee, CallArgs *a);
/* cls(*args, **kwargs) of a namedtuple class: the tuple, its fields named */
Val sema_namedtuple_new(Sema *S, Val cls, CallArgs *a);
/* the namedtuple class named `name` with fields (and the defaults of the last ndefaults) */
Val sema_namedtuple_class(Sema *S, const char *name, const char **fields, int n,
                          const Val *defaults, int ndefaults);

/* ---- block pointers and tensor descriptors (sema_blockptr.c) ---- */
/* tl.make_block_ptr(base, shape, strides, offsets, block_shape, order); locs: the six
 * arguments' */
Val sema_block_ptr_make(Sema *S, const Val *args, const Loc *locs, Loc call);
/* tl.advance(base, offsets) */
Val sema_block_ptr_advance(Sema *S, Val bp, Val offsets, Loc bp_loc, Loc off_loc);
/* tl.make_tensor_descriptor(base, shape, strides, block_shape, padding_option); locs: the
 * five arguments' */
Val sema_tensor_desc_make(Sema *S, const Val *args, const Loc *locs, Loc call);
/* Descriptors the host passes (tdesc parameters): desc_part(d){part} (0 the base, 1..r
 * the sizes, r+1..2r the strides); desc_load (value 0) or desc_store of `value`; the
 * parameter type of an annotation "tensordesc<fp16[64, 64]>" (false if it is not one;
 * a located error if it is a bad one). */
static inline bool sema_is_host_desc(Val v) { return v.k == V_IR && ty_is_tdesc(v.ty); }
Val sema_desc_part(Sema *S, Val d, int part, Loc loc);
/* A host descriptor as the tagged tuple tl.make_tensor_descriptor makes: base, sizes and
 * strides read with desc_part, the last stride the constant 1 (the launch checks it). */
Val sema_host_desc_tuple(Sema *S, Val d, Loc loc);
Val sema_host_desc_access(Sema *S, const char *fn, Val d, Val offsets, Loc off_loc, ValId value,
                          Loc call);
bool sema_desc_param_type(Sema *S, const char *text, const char *param, Loc loc, IrType *out);
/* The pointer block a block pointer addresses (offsets: NULL) or a tensor descriptor at
 * `offsets`, and the mask of the bounds checked (*mask 0: none): a block pointer's dims
 * in `check` (a tuple of ints, an int, or None), a descriptor's every dim; fn names the
 * caller in errors. */
void sema_block_ptr_address(Sema *S, const char *fn, Val bp, const Val *offsets, Loc off_loc,
                            Val check, Loc check_loc, Loc call, ValId *ptrs, ValId *mask);

/* ---- builtins (sema_builtins.c) ---- */
int sema_builtin_find(const char *name);    /* tl.NAME; -1 if none */
int sema_builtin_find_py(const char *name); /* Python builtins (min, max, float, ...); -1 if none */
int sema_builtin_dtype_method(void); /* the id used for dtype predicates (x.dtype.is_floating()) */
const char *sema_builtin_name(int id);
bool sema_builtin_is_method(int id); /* usable as x.name(...) on a block */
Val sema_call_builtin(Sema *S, int id, Val *self, CallArgs *a);

/* ---- statements (sema_stmt.c) ---- */
typedef struct Flow {
    bool returned;
    Val value;
    Loc loc;
} Flow;
typedef struct Cont {
    const Block *b;
    int i;
    const struct Cont *next;
} Cont;
Flow sema_lower_seq(Sema *S, const Block *b, int i, const Cont *rest);
Val sema_lower_listcomp(Sema *S, const Expr *e); /* [x for x in t if c] */

#endif
