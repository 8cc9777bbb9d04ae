/* driver.h - the compilation pipeline as one readable list of stages: parse (with the
 * standard library), semantic analysis and lowering to IR, verification, then the
 * optimisation passes. Used by the CLI and the C API. */
#ifndef NEREID_DRIVER_H
#define NEREID_DRIVER_H

#include "compiler/ir/ir.h"
#include "lang/ast.h"
#include "lang/sema.h"
#include "lang/tune.h"

typedef enum { NR_STAGE_AST, NR_STAGE_IR, NR_STAGE_IR_OPT } NrStage;

typedef struct NrCompileOptions {
    const SemaDefine *defines;
    int ndefines;
    const char *only_kernel; /* NULL: every kernel */
    bool defer_tuned;        /* kernels with @autotune/@heuristics: read their decorators into
                                NrProgram.tuned and leave them to driver_compile_variant, once
                                per config (the C API); false: compile them with the defines
                                (the CLI) */
    int num_warps;           /* 0: the default (compiler/support/options.h) */
    int num_stages;          /* 0: the default (software-pipelining depth, the GPU back end's) */
    bool print_after_all;    /* dump the IR after every pass into `dump` */
    NrStage stop_after;      /* NR_STAGE_IR_OPT for a full compile */
    bool emit;               /* print the stop_after stage's result into `dump` */
    const SemaDefine *param_types; /* only_kernel's parameters' annotations, by name, in place
                                      of the file's (the CLI's --signature): "*fp32", "i32",
                                      "constexpr", ... */
    int nparam_types;
    const Module *stdlib; /* the standard library, parsed once (driver_parse_stdlib) by a
                             caller that compiles often (the C API: once per context);
                             NULL: parsed here, into the program's arena */
    SemaConstexprCall constexpr_call; /* the host's constexpr functions (SemaOptions); NULL:
                                         none */
    void *constexpr_user;
    int debug; /* run-time checks (SemaOptions.debug, nr_compile_options.debug) */
} NrCompileOptions;

/* A kernel with @autotune/@heuristics, as the front end hands it to the runtime: what
 * its decorators say, and its runtime parameters. */
typedef struct NrTunedKernel {
    const Func *fn; /* in the program's AST */
    TuneDesc *desc; /* lang/tune.h: configs, key, buffers, pruning, heuristics */
    IrFunc *sig;    /* its signature alone (runtime parameters typed by their annotations) */
} NrTunedKernel;

typedef struct NrProgram {
    Arena *arena; /* owns everything below (a variant's AST is its base program's) */
    const Module *ast;
    const Module *std; /* the standard library's AST */
    IrModule *ir;      /* the kernels, after the passes when stop_after is NR_STAGE_IR_OPT */
    int num_warps, num_stages;
    NrTunedKernel *tuned; /* defer_tuned: the tuned kernels (none of them in ir) */
    int ntuned;
    double times_ms[3];               /* parse, sema (lowering), passes */
    SemaConstexprCall constexpr_call; /* as compiled with: its variants use them too */
    void *constexpr_user;
    int debug; /* as compiled with (NrCompileOptions.debug): its variants too */
} NrProgram;

/* The standard library's AST, in arena (it cannot fail: it is part of the binary). */
const Module *driver_parse_stdlib(Arena *arena);

/* Compile src. Diagnostics go to diag; dumps (emit, print-after-all) to dump (may be
 * NULL). On success fills out (free with driver_program_free) and returns true. */
bool driver_compile(const Source *src, const NrCompileOptions *o, Diag *diag, StrBuf *dump,
                    NrProgram *out);
void driver_program_free(NrProgram *p);

/* One tuned kernel of base (made with defer_tuned) compiled with the defines given (the
 * base's own, then a config's and the heuristics' values), from base's AST: no parse.
 * base must outlive *out. The same contract as driver_compile otherwise. */
bool driver_compile_variant(const NrProgram *base, const char *kernel, const SemaDefine *defines,
                            int ndefines, int num_warps, int num_stages, Diag *diag,
                            NrProgram *out);

/* The standard library's source, embedded at build time (tools/embed.sh). */
extern const char driver_stdlib_source[];
extern const size_t driver_stdlib_source_len;

/* A hash of the compiler's sources, generated at build time (tools/build-id.sh): the
 * disk cache keys kernels on it, `nereid --version` prints it. */
extern const char driver_build_id[];

#endif
