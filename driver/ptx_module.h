/* ptx_module.h - merge PTX modules into one: how `nereid compile --emit=ptx` writes a
 * file with several kernels, and how the ahead-of-time C output holds every kernel and
 * specialisation of a file in one module per architecture. Each input is what
 * gpu_compile_kernel gives for one kernel (a complete module); the output is one module
 * with one header, the module-scope declarations once each, and every entry. */
#ifndef NEREID_PTX_MODULE_H
#define NEREID_PTX_MODULE_H

#include "compiler/support/support.h"

typedef struct PtxPart {
    const char *text; /* a whole PTX module */
    size_t len;
    const char *entry_name; /* the name its .entry gets in the merged module; NULL: as it is */
} PtxPart;

/* Merge parts into out (appended). The .version is the highest of the parts'; .target and
 * .address_size must agree. Identical module-scope declarations (.extern functions, the
 * .extern .shared buffer, equal constants) are written once; a module-scope symbol that
 * two parts define differently (LLVM names string constants __unnamed_N in each module)
 * is renamed in the later part, wherever that part uses it. Two entries of one name are
 * an error. Returns false with a message in err on input it cannot read. */
bool ptx_merge(const PtxPart *parts, int nparts, StrBuf *out, StrBuf *err);

#endif
