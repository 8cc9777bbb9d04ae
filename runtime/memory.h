/* memory.h - the runtime's side of the C API's memory: extents of what nr_malloc and
 * nr_host_register recorded. */
#ifndef NEREID_MEMORY_H
#define NEREID_MEMORY_H

#include "objects.h"

/* The range [p, p+n) must lie inside one nr_malloc allocation of ctx (NR_ERR_INVALID_ARG,
 * saying `what`, otherwise). */
nr_status api_check_range(nr_context *ctx, nr_devptr p, size_t n, const char *what);
/* Bytes from p to the end of the nr_malloc / nr_host_register extent holding it (0: none). */
size_t memory_extent(const nr_context *ctx, uint64_t p);

#endif
