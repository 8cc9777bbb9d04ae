/* options.h - the compile and launch options that several layers read, each one's default
 * and range written once: the CLI and `nereid opt`, the front end (tl.range's num_stages,
 * an @autotune config's num_warps and num_stages), the verifier (a loop's num_stages),
 * the driver, the runtime's checks and the Python package (through nr_option_info, which
 * reads this table). The target architecture's names are the IR's (ir_gpu_arch_from_name);
 * its defaults are here. */
#ifndef NEREID_OPTIONS_H
#define NEREID_OPTIONS_H

#include <stdbool.h>

/* X(ID, name, default, min, max, power of two) */
#define NR_OPTIONS(X)                               \
    X(OPT_NUM_WARPS, "num_warps", 4, 1, 32, true)   \
    X(OPT_NUM_STAGES, "num_stages", 3, 1, 8, false) \
    X(OPT_MAXNREG, "maxnreg", 0, 16, 255, false)

typedef enum {
#define X(id, name, def, lo, hi, pow2) id,
    NR_OPTIONS(X)
#undef X
        OPT_COUNT
} OptionId;

typedef struct OptionInfo {
    const char *name;
    int def, min, max;
    bool pow2;         /* the value must be a power of two */
    const char *range; /* "a power of two from 1 to 32", "from 1 to 8": for messages */
} OptionInfo;

const OptionInfo *option_info(OptionId id);
/* The option of that name, or NULL. */
const OptionInfo *option_find(const char *name);
/* Is v a value the option takes (in range, a power of two where it must be)? */
bool option_valid(OptionId id, long long v);
/* v when positive, else the option's default. */
int option_or_default(OptionId id, int v);

/* How many threads compile `jobs` independent jobs at once (an autotuned kernel's configs,
 * nr_compile_many, nr_prepare_many): NEREID_COMPILE_THREADS when it is a positive integer
 * (1: one after another, on the calling thread), else the online CPUs; never more than
 * `jobs`, never less than 1. The one reader of NEREID_COMPILE_THREADS. */
int option_compile_threads(int jobs);

/* Do launches on sm_90a take the pointer loads that feed dots in pipelined loops through
 * tensor maps built from the arguments (compiler/gpu/tma_pointers.c)? Yes unless
 * NEREID_TMA_POINTERS is 0 (for comparing the two). The one reader of NEREID_TMA_POINTERS. */
bool option_tma_pointers(void);

/* maxnreg (Triton's): the most 32-bit registers a thread of the kernel may use, the PTX
 * directive .maxnreg; its default 0 is no limit (ptxas chooses). The two switches of the
 * code generator beside it, enable_fp_fusion and enable_reflect_ftz, take 0 (the default),
 * 1 (on) or -1 (off) in the C API; these are their defaults. */
#define NR_DEFAULT_FP_FUSION false
#define NR_DEFAULT_REFLECT_FTZ false

/* The architecture `nereid compile --emit=ptx` and `nereid opt` compile for when none is
 * given, and the ones `--emit=c` builds. */
#define NR_DEFAULT_ARCH "sm_90a"
#define NR_DEFAULT_AOT_ARCHS "sm_80,sm_90a"

#endif
