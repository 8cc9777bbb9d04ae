/* pass_registry.h - every pass that runs by name, in one list: the IR passes
 * (compiler/passes) and the GPU passes (compiler/gpu). `nereid opt --passes=` runs them,
 * `nereid opt --list-passes` and the CLI's help print the list, the IR fuzzer picks from
 * it, and tests/scripts/test_pass_docs.sh checks that docs/architecture.md and the manual
 * page name exactly these passes. The pipelines themselves (compiler/passes/pipeline.c,
 * driver/gpu_compile.c) call the passes directly, as readable lists. */
#ifndef NEREID_PASS_REGISTRY_H
#define NEREID_PASS_REGISTRY_H

#include "compiler/ir/ir.h"
#include "compiler/support/support.h"
#include "compiler/target/target.h"

typedef struct PassInfo {
    const char *name;
    const char *summary;                             /* one line, for --list-passes */
    bool (*run_ir)(IrModule *m, Diag *d);            /* an IR pass (false: a diagnostic in d) */
    void (*run_gpu)(IrFunc *f, const GpuOptions *o); /* a GPU pass, run on every function */
    bool on_gpu_ir; /* a GPU pass that needs GPU-stage IR (a gpu<> header, layouts); the
                       one that assigns the layouts takes IR without them */
} PassInfo;

int pass_count(void);
const PassInfo *pass_at(int i);
/* The pass named name[0..len), or NULL. */
const PassInfo *pass_find(const char *name, size_t len);
/* True if every name in the comma-separated list is a pass ("" and "none": no pass);
 * else the first bad name goes to bad (truncated to size). */
bool pass_list_valid(const char *list, char *bad, size_t size);
/* The names, comma-separated, wrapped at `width` columns with `indent` spaces after each
 * break (for usage texts). */
void pass_list_names(StrBuf *out, int width, int indent);

/* Runs the passes of a valid list in order on every function of m: IR passes on the
 * module, GPU passes with the options go (a GPU pass on a module of the wrong stage is
 * refused with an error, never run). The module is verified before the first pass and
 * after each; dump (may be NULL) gets the module after each pass. */
bool pass_run_list(IrModule *m, const char *list, const GpuOptions *go, Diag *d, StrBuf *dump);

#endif
