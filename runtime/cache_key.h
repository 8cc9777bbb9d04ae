/* cache_key.h - the disk cache's key of a compiled GPU kernel variant: the one place that
 * decides what a cached kernel depends on. Everything that changes the binary is in it,
 * none of it computed (so the key is known before any compiling, and a hit skips the
 * whole back end), and every string is length-prefixed (no two inputs give one key,
 * whatever the strings contain). */
#ifndef NEREID_CACHE_KEY_H
#define NEREID_CACHE_KEY_H

#include "compiler/target/target.h"
#include "lang/sema.h"

typedef struct CacheKeyInput {
    /* the compiler: LLVM's version (llvm_gen_version); Nereid's version and build id are
     * this build's own */
    unsigned llvm_version[3];
    /* the target */
    const char *arch;       /* the PTX target: "sm_80", "sm_90a" */
    int compute_capability; /* the device's, major*10 + minor: the driver JIT-compiles for it */
    int driver_version;     /* cuDriverGetVersion's: the driver's JIT compiles the PTX */
    const char *libdevice;  /* the CUDA libdevice the math functions link (gpu_libdevice_id:
                               path, size, time), or "none"; NULL is "none" */
    /* the kernel and its variant */
    const char *kernel;  /* its name */
    const char *variant; /* one fact letter per parameter, warps and stages ("ddno:4:3") */
    GpuCodeOptions code; /* the variant's maxnreg, fp fusion and ftz */
    /* the compile options (nr_compile_options) */
    int num_warps;           /* 0: the default */
    int num_stages;          /* 0: the default */
    const char *only_kernel; /* NULL: every kernel */
    int debug;               /* nr_compile_options.debug: which run-time checks */
    const SemaDefine *defines;
    int ndefines;
    /* the source */
    const char *file; /* its name: diagnostics and debug locations name it */
    const char *source;
    size_t source_len;
} CacheKeyInput;

/* The whole key: the compiler build's identity into `build` (Nereid's version, its build
 * id, a hash of every source file of the compiler made by tools/build-id.sh, and LLVM's
 * version) and the full text, which starts with the build's identity too, into `text`.
 * (No LLVM call here: the caller passes LLVM's version, so that this module, and the
 * programs that test it, need no LLVM.) */
void cache_key_make(const CacheKeyInput *in, StrBuf *build, StrBuf *text);
/* The build's identity alone (the start of every key), for other entries in the cache
 * directory (the autotuner's choices), so that eviction treats them alike. */
void cache_key_build(StrBuf *build, const unsigned llvm_version[3]);

#endif
