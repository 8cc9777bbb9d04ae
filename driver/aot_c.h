/* aot_c.h - ahead-of-time compilation to C: `nereid compile K.nr --emit=c --arch=...
 * -o DIR/NAME` writes NAME.h and NAME.c, which hold every kernel of the program compiled
 * for each architecture (a cubin assembled by ptxas when it is installed, else PTX for the
 * driver to compile at load) in a few specialisations, and one typed launcher per kernel:
 *
 *     int add_kernel(void *stream, const unsigned grid[3], uint64_t x_ptr, ..., int32_t n);
 *
 * The files compile with `cc -std=c11 -Wall -Wextra -Werror -c` and need no CUDA headers;
 * at run time they load libcuda.so.1 with dlopen. A launcher picks the most specialised
 * variant whose assumptions its arguments meet, the image for the current context's
 * device, and returns the driver's status. docs/aot.md describes the generated code. */
#ifndef NEREID_AOT_C_H
#define NEREID_AOT_C_H

#include "compiler/ir/ir.h"
#include "compiler/target/target.h"

typedef struct AotOptions {
    const char *const *archs; /* "sm_80", "sm_90", "sm_90a" */
    int narchs;
    const char *out_base;    /* DIR/NAME: writes DIR/NAME.h and DIR/NAME.c */
    const char *source_name; /* for the files' comments */
    const char *command;     /* the command line, for the files' comments */
    int num_warps, num_stages;
    const char *one;       /* integer parameters specialised as equal to 1 (comma list) */
    const char *divisible; /* integer parameters specialised as divisible by 16 */
    bool ptx_only;         /* embed PTX even where ptxas is installed */
    GpuCodeOptions code;   /* maxnreg, fp fusion, ftz (compiler/target/target.h) */
} AotOptions;

/* Compile the kernels of m (after the front end's passes) and write the two files.
 * Compile errors go to diag; other failures (ptxas, writing) are reported on stderr.
 * Returns 0 on success, 1 on failure. */
int aot_emit_c(const IrModule *m, const AotOptions *o, Diag *diag);

#endif
