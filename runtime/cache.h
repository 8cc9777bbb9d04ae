/* cache.h - the on-disk cache of compiled kernels (cubins). Entries live under
 * $NEREID_CACHE_DIR, or ~/.cache/nereid. The key is a string covering everything that
 * decides the binary (source, constexprs, options, specialisation, compiler version,
 * target); its 64-bit hash names the file, and the full key is stored inside to rule out
 * collisions. Every entry carries a checksum of its payload: a truncated or corrupt
 * entry is detected, reported as a miss and rebuilt by the caller, never loaded. Writes
 * go to a temporary file renamed into place, so concurrent writers are safe. */
#ifndef NEREID_CACHE_H
#define NEREID_CACHE_H

#include <stddef.h>

#include "../compiler/support/support.h"

/* The cache directory (created if needed); writes its path into buf. false if none. */
bool cache_dir(char *buf, size_t size);
/* Look key up. On a hit returns a malloc'd copy of the payload (caller frees) and its
 * length; on a miss or a corrupt entry (which is deleted) returns NULL. */
void *cache_get(const char *key, size_t *len);
/* Store payload under key; false (silently: the cache is an optimisation) on failure. */
bool cache_put(const char *key, const void *data, size_t len);
/* The path of key's entry (whether it exists or not) in the cache directory, which is
 * created if needed; false if there is no cache directory or buf is too small. */
bool cache_path(const char *key, char *buf, size_t size);
/* Delete key's entry; true if there was one. */
bool cache_remove(const char *key);

#endif
