/* ptxas.h - PTX to machine code (a cubin) by NVIDIA's ptxas, run as a child process, with
 * no shell. One owner for finding and running it: the CLI's --emit=cubin, ahead-of-time C
 * and the runtime's kernel loading use it.
 *
 * The runtime prefers it to the driver's own PTX JIT (cuModuleLoadDataEx on PTX) because
 * that JIT is serial within a process: 40 GPT-2 kernels took 2.0-2.5 s on 1 to 16 threads
 * (bench/RESULTS.md, session 28), while ptxas processes run side by side. ptxas compiles
 * the whole program, as the driver's JIT and Triton do; nvJitLink and the driver's linker
 * compile PTX as relocatable code, which took up to twice the registers (95 against 48 on
 * a tl_parity matmul, ptxas 13.0). */
#ifndef NEREID_PTXAS_H
#define NEREID_PTXAS_H

#include <stddef.h>

#include "compiler/support/support.h"

/* The ptxas to run, written into buf (n bytes): NEREID_PTXAS when it is set (a path; empty
 * or "none": no ptxas), else TRITON_PTXAS_PATH, $CUDA_HOME/bin/ptxas,
 * $CUDA_PATH/bin/ptxas, /usr/local/cuda/bin/ptxas, then each folder of PATH: the first
 * that is an executable file. NULL when there is none. */
const char *ptxas_find(char *buf, size_t n);

/* Run `ptxas [extra...] -arch=ARCH -o OUT IN` on `ptx` (len bytes) in a private temporary
 * folder (under $TMPDIR, else /tmp). On success returns 0 and *cubin (malloc'd, the
 * caller frees it) of *cubin_len bytes. Returns -1 when ptxas could not be run or failed,
 * *cubin NULL. Either way `log` (may be NULL) gets what ptxas printed, and on failure a
 * line saying what failed. A ptxas still running after NEREID_PTXAS_TIMEOUT seconds
 * (default 600) is killed, and that is a failure. `extra` is NULL or a NULL-terminated
 * list of options. Safe to call from several threads at once. */
int ptxas_run(const char *ptxas, const char *arch, const char *const *extra, const char *ptx,
              size_t len, unsigned char **cubin, size_t *cubin_len, StrBuf *log);

#endif
