/* sema.h - semantic analysis and lowering of the AST to IR (one walk, as Triton's code
 * generator does: types and shapes depend on the constexpr values each kernel is
 * specialised with, so typing and IR emission happen together). */
#ifndef NEREID_SEMA_H
#define NEREID_SEMA_H

#include "ast.h"
#include "compiler/ir/ir.h"

typedef struct SemaDefine {
    const char *name;
    const char *value; /* text: int, float, True/False/None, anything else a string */
} SemaDefine;

/* A constexpr function evaluated by the host (nr_compile_options.constexpr_call, the
 * public API's nr_constexpr_call): the function's name, its arguments as the text of a
 * Python argument list; the result as a define's text into result. Returns 0 (result
 * written), 1 (not taken: the body is compiled instead) or -1 (an error, its message in
 * result). */
typedef int (*SemaConstexprCall)(void *user, const char *function, const char *args, char *result,
                                 size_t result_size);

typedef struct SemaOptions {
    const SemaDefine *defines;
    int ndefines;
    const char *only_kernel;          /* NULL: every kernel of the module */
    const char *const *skip_kernels;  /* kernels not lowered here (autotuned ones: the runtime */
    int nskip_kernels;                /* lowers them once per config) */
    int num_warps;                    /* the warps compiled for, which tl.extra.cuda's
                                         num_threads() and num_warps() give (0: default) */
    SemaConstexprCall constexpr_call; /* NULL: constexpr functions' bodies are compiled */
    void *constexpr_user;
    int debug; /* run-time checks (nr_compile_options.debug): 0 asserts, 1 asserts and
                  integer overflow checks, -1 none */
} SemaOptions;

/* Lower the kernels of `user` into `out` (kernels plus the helper specialisations they
 * call, as call ops to be inlined). `stdlib` is the parsed standard library (helpers such
 * as rand and cdiv resolved through tl.). Errors go to diag; returns false on error. */
bool sema_lower(Arena *arena, Diag *diag, const Module *user, const Module *stdlib,
                const SemaOptions *opts, IrModule *out);

/* True if f is a kernel: every parameter carries a type or constexpr annotation, and one
 * at least is a run-time parameter. */
bool sema_is_kernel(const Func *f);
/* Also true for the function named `only` (SemaOptions.only_kernel) whose parameters are
 * all tl.constexpr, or which has none: a kernel without launch arguments. */
bool sema_is_kernel_named(const Func *f, const char *only);

/* The type a runtime parameter's annotation names ("*fp32", "i32", "tl.float16"); false
 * if it names none. */
bool sema_signature_type(const char *annotation, IrType *out);
/* An annotation that names a constexpr parameter ("*DT", "DT"): the name ("DT"), else
 * NULL; and the type it gives when that constexpr's value is the text `value` ("bf16"). */
const char *sema_signature_type_name(const char *annotation);
bool sema_signature_type_of(const char *annotation, const char *value, IrType *out);

#endif
