/* opt_tool.h - `nereid opt`, the tool that reads textual IR and runs passes on it, and
 * prints the module, its alignment facts, or the LLVM IR or PTX of its kernels. */
#ifndef NEREID_OPT_TOOL_H
#define NEREID_OPT_TOOL_H

#include "compiler/ir/ir.h"
#include "compiler/target/target.h"

/* `nereid opt ...` (argv[0] is "opt"; the options are opt_tool.c's). Exit status 0, 1 on
 * an error in the input, 2 on a usage error. */
int opt_tool_main(int argc, char **argv);

/* What --emit=llvm|ptx compiles with, besides the gpu<> header's target. */
typedef struct OptToolEmit {
    bool llvm;             /* LLVM IR (one module per kernel), else PTX (one module) */
    int num_stages;        /* 0: the default */
    int64_t param_div;     /* every pointer and integer parameter taken as divisible by it */
    const char *libdevice; /* CUDA's libdevice, NULL for none */
    GpuCodeOptions code;   /* --maxnreg, --enable-fp-fusion, --enable-reflect-ftz */
} OptToolEmit;

/* --emit=llvm|ptx: each kernel of GPU-stage module m through the code generator, as the
 * GPU pipeline's last step (driver/gpu_compile.c) runs it: the target from the gpu<>
 * header, the alignment facts from param_div, a descriptor parameter that a tma_load or
 * tma_store reads taken as a tensor map, LLVM's default pipeline; the code is appended to
 * out. Errors go to diag (false). The IR fuzzer (tests/fuzz/fuzz_ir.c) runs it too. */
bool opt_tool_emit_code(IrModule *m, const OptToolEmit *e, Arena *arena, Diag *diag, StrBuf *out);

#endif
