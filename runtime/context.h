/* context.h - the runtime's side of contexts. */
#ifndef NEREID_CONTEXT_H
#define NEREID_CONTEXT_H

#include "objects.h"

/* Releases the context's streams, each once its work is done. */
void context_release_streams(nr_context *ctx);
/* Frees a context whose modules are gone (nr_context_destroy releases the streams, whose
 * work may use the modules, then destroys the modules): its memory, its device. */
void context_free(nr_context *ctx);
/* The standard library's AST for ctx's compiles, parsed at the first call (not thread-safe:
 * nr_compile_many calls it before its threads start). */
const Module *context_stdlib(nr_context *ctx);

#endif
