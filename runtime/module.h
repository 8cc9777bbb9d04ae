/* module.h - compiling modules, and freeing them. */
#ifndef NEREID_MODULE_H
#define NEREID_MODULE_H

#include "objects.h"

/* Compile text (taken over: freed with the module, or now on failure) into a module of
 * ctx that ctx does not list yet; its tuned kernels are left to autotune.c, with room
 * for them in m->kernels. Errors set the context's. */
nr_status module_compile(nr_context *ctx, char *text, size_t len, const char *filename,
                         const nr_compile_options *opts, nr_module **out);
/* One tuned kernel of base compiled with these defines (the base's own, the config's and
 * the heuristics' values), warps and stages, from base's syntax tree: a module of its
 * own that shares base's source (base must outlive it). */
nr_status module_variant(const nr_module *base, const char *kernel, const nr_define *defines,
                         int ndefines, int num_warps, int num_stages, nr_module **out);
/* The same two, touching no context (ctx is only read): the failure's message goes to
 * err instead of the context's error, so that several threads may build modules of one
 * context at once (nr_compile_many, an autotuned kernel's configs). */
nr_status module_build(nr_context *ctx, char *text, size_t len, const char *filename,
                       const nr_compile_options *opts, StrBuf *err, nr_module **out);
nr_status module_variant_build(const nr_module *base, const char *kernel, const nr_define *defines,
                               int ndefines, int num_warps, int num_stages, StrBuf *err,
                               nr_module **out);
/* Frees a module no context lists and whose tuned kernels are freed: its CUDA variants
 * (after the kernels in flight end), its program, its source. */
void module_free(nr_module *m);

#endif
