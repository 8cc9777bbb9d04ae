/* driver.h - the compilation pipeline as one readable list of stages: parse (with the
 * standard library), semantic analysis and lowering to IR, verification, then the
 * optimisation passes. Used by the CLI and the C API. */
#ifndef NEREID_DRIVER_H
#define NEREID_DRIVER_H

#include "lang/ast.h"
#include "lang/sema.h"
#include "compiler/ir/ir.h"

typedef enum { NR_STAGE_AST, NR_STAGE_IR, NR_STAGE_IR_OPT } NrStage;

typedef struct NrCompileOptions {
    const SemaDefine *defines;
    int ndefines;
    const char *only_kernel;   /* NULL: every kernel */
    const char *const *skip_kernels; /* not compiled here (autotuned kernels, compiled per config) */
    int nskip_kernels;
    int num_warps;             /* 0: the default (compiler/support/options.h) */
    int num_stages;            /* 0: the default (software-pipelining depth, the GPU back end's) */
    bool print_after_all;      /* dump the IR after every pass into `dump` */
    NrStage stop_after;        /* NR_STAGE_IR_OPT for a full compile */
    bool emit;                 /* print the stop_after stage's result into `dump` */
} NrCompileOptions;

typedef struct NrProgram {
    Arena *arena;   /* owns everything below */
    Module *ast;
    IrModule *ir;   /* the kernels, after the passes when stop_after is NR_STAGE_IR_OPT */
    int num_warps, num_stages;
    double times_ms[3]; /* parse, sema (lowering), passes */
} NrProgram;

/* Compile src. Diagnostics go to diag; dumps (emit, print-after-all) to dump (may be
 * NULL). On success fills out (free with nr_program_free) and returns true. */
bool nr_compile_program(const Source *src, const NrCompileOptions *o, Diag *diag, StrBuf *dump, NrProgram *out);
void nr_program_free(NrProgram *p);

/* The standard library's source, embedded at build time (tools/embed.sh). */
extern const char nr_stdlib_source[];
extern const size_t nr_stdlib_source_len;

/* A hash of the compiler's sources, generated at build time (tools/build-id.sh): the
 * disk cache keys kernels on it, `nereid --version` prints it. */
extern const char nr_build_id[];

#endif
