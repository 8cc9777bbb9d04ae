/* cache.h - the on-disk cache of compiled kernels (their PTX), shared by every process that
 * uses one directory: $NEREID_CACHE_DIR, or ~/.cache/nereid.
 *
 * An entry is named by a CacheKey: the identity of the compiler build that made it and
 * the full key text (everything that decides the binary: runtime/cache_key.c builds
 * both). The file's name carries hashes of the two; the file holds the full key, compared
 * byte for byte on every read, and checksums of key and payload: a truncated, torn or
 * corrupt entry is detected, deleted and reported as a miss (the caller rebuilds it),
 * never returned. Writes go to a temporary file renamed into place, so readers never
 * see a partial entry and concurrent writers of one key simply replace each other.
 *
 * Size: after each write, when the directory holds more than NEREID_CACHE_MAX_MB
 * megabytes of entries (default 1024; 0: no limit), entries are deleted down to 90% of
 * the limit: first those of other compiler builds (a rebuilt compiler never reads them
 * again), then the least recently used (a read marks an entry used by setting its access
 * time). Temporary files older than an hour (a writer that died) go too. No global state:
 * everything is in the directory. */
#ifndef NEREID_CACHE_H
#define NEREID_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "compiler/support/support.h"

typedef struct CacheKey {
    const char *build; /* the compiler build's identity (version, build id, LLVM version) */
    const char *text;  /* the full key; it includes the build too */
} CacheKey;

enum { CACHE_DEFAULT_MAX_MB = 1024 };

/* The cache directory (created if needed); writes its path into buf. false if none. */
bool cache_dir(char *buf, size_t size);
/* Look key up. On a hit returns a malloc'd copy of the payload (caller frees) and its
 * length, and marks the entry used; on a miss or a bad entry (which is deleted) returns
 * NULL. */
void *cache_get(const CacheKey *key, size_t *len);
/* Store payload under key, then keep the directory within its size limit; false
 * (silently: the cache is an optimisation) on failure. */
bool cache_put(const CacheKey *key, const void *data, size_t len);
/* The path of key's entry (whether it exists or not) in the cache directory, which is
 * created if needed; false if there is no cache directory or buf is too small. */
bool cache_path(const CacheKey *key, char *buf, size_t size);
/* The right to build key's entry, for a caller that missed it: of the processes and
 * threads that ask at once, one gets it at a time (an flock on the entry's lock file
 * ".NAME.lock" in the directory); a caller that waited should look the entry up again
 * before building it. Returns a handle for cache_unlock, or -1 when there is no lock
 * (no directory, a file system without flock, or wait_ms passed while another held it):
 * the caller builds without. */
int cache_lock(const CacheKey *key, int wait_ms);
/* Give the right back (deleting the lock file first); -1 is ignored. */
void cache_unlock(const CacheKey *key, int lock);
/* Delete key's entry; true if there was one. */
bool cache_remove(const CacheKey *key);
/* The size limit in bytes from NEREID_CACHE_MAX_MB (unset, empty or invalid: the
 * default; 0: UINT64_MAX, no limit). */
uint64_t cache_max_bytes(void);
/* Bring the directory within max_bytes as cache_put does (entries of builds other than
 * `build` first, then the least recently used; stale temporaries), never deleting `keep`
 * (a file name in the directory, or NULL). Returns the number of entries deleted, -1 if
 * another process is evicting (or there is no directory). */
int cache_evict(const char *build, uint64_t max_bytes, const char *keep);

#endif
