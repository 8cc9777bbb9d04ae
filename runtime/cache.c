/* cache.c - the on-disk cache of compiled kernels (see cache.h).
 *
 * Directory: $NEREID_CACHE_DIR if set and non-empty, else $HOME/.cache/nereid (created
 * with its parents, mode 0755). Each entry is one file named
 *
 *   BBBBBBBB-KKKKKKKKKKKKKKKK.cubin
 *
 * after the FNV-1a hashes of the key's build (32 bits: eviction tells other builds'
 * entries apart by name, without opening them) and of its text (64 bits), in lowercase
 * hex. The file is
 *
 *   offset size  field (integers little-endian, whatever the host)
 *   0      8     magic "NRCACHE1"
 *   8      4     header version (1)
 *   12     4     reserved, 0
 *   16     8     key text length in bytes (K)
 *   24     8     payload length in bytes (P)
 *   32     8     FNV-1a 64 checksum of the payload
 *   40     8     FNV-1a 64 checksum of the key text
 *   48     K     the key text (no terminating NUL)
 *   48+K   P     the payload
 *
 * and its size must be exactly 48 + K + P. cache_get checks every field, compares the key
 * byte for byte and verifies both checksums; any mismatch deletes the file and is a miss.
 * cache_put writes a temporary file ".NAME.tmp.XXXXXX" in the same directory (mkstemp)
 * and renames it into place, so readers never see a half-written entry and concurrent
 * writers of one key simply replace each other's (identical) entries; a reader that has
 * the old file open reads it whole. Files of the older naming (16 hex digits.cubin) are
 * entries of another build. Eviction (cache_evict) holds an flock on ".lock" in the
 * directory, so one process at a time does it; readers and writers take no lock. A
 * builder may take the entry's own lock, an flock on ".NAME.lock" (cache_lock), so that
 * of several processes or threads missing one entry at once one builds it and the others
 * wait and load it; the holder deletes the file before letting go, and a waiter that
 * gets the lock of a deleted file starts again. No global state. */
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define CACHE_MAGIC "NRCACHE1"
#define CACHE_VERSION 1u
#define CACHE_HEADER_SIZE 48u

static uint64_t fnv1a64(const void *data, size_t len) {
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u32(const unsigned char *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint64_t get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* mkdir -p with mode 0755; true if `path` is a directory afterwards. */
static bool make_dirs(const char *path) {
    size_t n = strlen(path);
    if (n == 0) return false;
    char *p = malloc(n + 1);
    if (!p) return false;
    memcpy(p, path, n + 1);
    while (n > 1 && p[n - 1] == '/') p[--n] = 0; /* "a/b/" -> "a/b" */
    bool ok = true;
    for (size_t i = 1; i <= n && ok; i++) {
        if (p[i] != '/' && p[i] != 0) continue;
        if (p[i - 1] == '/') continue; /* "a//b" */
        char c = p[i];
        p[i] = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) ok = false;
        p[i] = c;
    }
    struct stat st;
    if (ok && (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))) ok = false;
    free(p);
    return ok;
}

bool cache_dir(char *buf, size_t size) {
    if (!buf || size == 0) return false;
    buf[0] = 0;
    const char *env = getenv("NEREID_CACHE_DIR");
    int n;
    if (env && *env) {
        n = snprintf(buf, size, "%s", env);
    } else {
        const char *home = getenv("HOME");
        if (!home || !*home) return false;
        n = snprintf(buf, size, "%s/.cache/nereid", home);
    }
    if (n < 0 || (size_t)n >= size || !make_dirs(buf)) {
        buf[0] = 0;
        return false;
    }
    return true;
}

/* The entry's file name: build hash, key hash. */
static void entry_name(const CacheKey *key, char name[32]) {
    uint64_t b = fnv1a64(key->build, strlen(key->build)), k = fnv1a64(key->text, strlen(key->text));
    snprintf(name, 32, "%08llx-%016llx.cubin", (unsigned long long)(b & 0xffffffffu),
             (unsigned long long)k);
}

static bool valid_key(const CacheKey *key) { return key && key->build && key->text; }

bool cache_path(const CacheKey *key, char *buf, size_t size) {
    if (!valid_key(key) || !buf || size == 0) return false;
    char dir[4096], name[32];
    if (!cache_dir(dir, sizeof dir)) {
        buf[0] = 0;
        return false;
    }
    entry_name(key, name);
    int n = snprintf(buf, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size) {
        buf[0] = 0;
        return false;
    }
    return true;
}

/* Read exactly len bytes; false on an error or a short file. */
static bool read_full(int fd, void *buf, size_t len) {
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        p += r, len -= (size_t)r;
    }
    return true;
}

static bool write_full(int fd, const void *buf, size_t len) {
    const unsigned char *p = buf;
    while (len > 0) {
        ssize_t r = write(fd, p, len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        p += r, len -= (size_t)r;
    }
    return true;
}

/* Delete a bad entry, but only if `path` still names the file we read (`st`): a writer
 * may have renamed a fresh, valid entry into place since we opened it. */
static void drop_entry(const char *path, const struct stat *st) {
    struct stat now;
    if (stat(path, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino) unlink(path);
}

void *cache_get(const CacheKey *ck, size_t *len) {
    if (len) *len = 0;
    if (!valid_key(ck)) return NULL;
    const char *key = ck->text;
    char path[4200];
    if (!cache_path(ck, path, sizeof path)) return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL; /* no entry (or unreadable): a miss */

    size_t klen = strlen(key);
    unsigned char hdr[CACHE_HEADER_SIZE];
    char *kbuf = NULL;
    unsigned char *payload = NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) goto miss; /* nothing known about the file: leave it */
    if (!S_ISREG(st.st_mode) || st.st_size < (off_t)CACHE_HEADER_SIZE) goto corrupt;
    if (!read_full(fd, hdr, sizeof hdr)) goto corrupt;
    if (memcmp(hdr, CACHE_MAGIC, 8) != 0 || get_u32(hdr + 8) != CACHE_VERSION ||
        get_u32(hdr + 12) != 0)
        goto corrupt;
    uint64_t file_klen = get_u64(hdr + 16), plen = get_u64(hdr + 24);
    uint64_t psum = get_u64(hdr + 32), ksum = get_u64(hdr + 40);
    uint64_t body = (uint64_t)st.st_size - CACHE_HEADER_SIZE;
    if (file_klen != klen || file_klen > body || plen != body - file_klen) goto corrupt;
    if (plen > SIZE_MAX - 1) goto miss;
    if (ksum != fnv1a64(key, klen)) goto corrupt;

    kbuf = malloc(klen ? klen : 1);
    if (!kbuf) goto miss;
    if (!read_full(fd, kbuf, klen) || memcmp(kbuf, key, klen) != 0) goto corrupt;
    payload = malloc(plen ? (size_t)plen : 1);
    if (!payload) goto miss;
    if (!read_full(fd, payload, (size_t)plen) || fnv1a64(payload, (size_t)plen) != psum)
        goto corrupt;

    free(kbuf);
    /* used now: the access time orders eviction (explicitly, whatever the mount's atime
     * policy; an entry of another user may refuse, which only costs LRU precision) */
    const struct timespec used[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
    futimens(fd, used);
    close(fd);
    if (len) *len = (size_t)plen;
    return payload;

corrupt:
    drop_entry(path, &st);
miss:
    free(kbuf);
    free(payload);
    close(fd);
    return NULL;
}

bool cache_put(const CacheKey *ck, const void *data, size_t len) {
    if (!valid_key(ck) || (!data && len > 0)) return false;
    const char *key = ck->text;
    char dir[4096], name[32];
    if (!cache_dir(dir, sizeof dir)) return false;
    entry_name(ck, name);
    size_t klen = strlen(key);
    char path[4200], tmp[4200];
    int n1 = snprintf(path, sizeof path, "%s/%s", dir, name);
    int n2 = snprintf(tmp, sizeof tmp, "%s/.%s.tmp.XXXXXX", dir, name);
    if (n1 < 0 || (size_t)n1 >= sizeof path || n2 < 0 || (size_t)n2 >= sizeof tmp) return false;

    int fd = mkstemp(tmp);
    if (fd < 0) return false;
    unsigned char hdr[CACHE_HEADER_SIZE];
    memcpy(hdr, CACHE_MAGIC, 8);
    put_u32(hdr + 8, CACHE_VERSION);
    put_u32(hdr + 12, 0);
    put_u64(hdr + 16, klen);
    put_u64(hdr + 24, len);
    put_u64(hdr + 32, fnv1a64(data, len));
    put_u64(hdr + 40, fnv1a64(key, klen));
    bool ok = fchmod(fd, 0644) == 0 && write_full(fd, hdr, sizeof hdr) &&
              write_full(fd, key, klen) && write_full(fd, data, len);
    if (close(fd) != 0) ok = false;
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        unlink(tmp);
        return false;
    }
    cache_evict(ck->build, cache_max_bytes(), name);
    return true;
}

/* ---- one builder per entry ---- */

int cache_lock(const CacheKey *key, int wait_ms) {
    char path[4200];
    if (!cache_path(key, path, sizeof path)) return -1;
    char lockpath[4300];
    const char *slash = strrchr(path, '/');
    snprintf(lockpath, sizeof lockpath, "%.*s/.%s.lock", (int)(slash - path), path, slash + 1);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long nap_us = 1000;
    for (;;) {
        int fd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) return -1;
        int rc;
        while ((rc = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EWOULDBLOCK) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long waited_ms =
                (long)(now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
            if (waited_ms >= wait_ms) break;
            struct timespec nap = {0, nap_us * 1000};
            nanosleep(&nap, NULL);
            if (nap_us < 20000) nap_us *= 2;
        }
        if (rc != 0) { /* the wait ran out, or no locks here: build without it */
            close(fd);
            return -1;
        }
        /* ours, if the file is still the one at lockpath (its last holder deletes it) */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(lockpath, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino)
            return fd;
        close(fd);
    }
}

void cache_unlock(const CacheKey *key, int lock) {
    if (lock < 0) return;
    char path[4200], lockpath[4300];
    if (cache_path(key, path, sizeof path)) {
        const char *slash = strrchr(path, '/');
        snprintf(lockpath, sizeof lockpath, "%.*s/.%s.lock", (int)(slash - path), path, slash + 1);
        unlink(
            lockpath); /* before letting go: a waiter then finds its file gone and starts again */
    }
    close(lock);
}

bool cache_remove(const CacheKey *key) {
    char path[4200];
    if (!cache_path(key, path, sizeof path)) return false;
    return unlink(path) == 0;
}

uint64_t cache_max_bytes(void) {
    const char *env = getenv("NEREID_CACHE_MAX_MB");
    uint64_t mb = CACHE_DEFAULT_MAX_MB;
    if (env && *env) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(env, &end, 10);
        if (errno == 0 && *end == 0 && env[0] != '-' && v <= UINT64_MAX / (1024 * 1024)) mb = v;
    }
    return mb == 0 ? UINT64_MAX : mb * 1024 * 1024;
}

/* ---- eviction ---- */

enum { STALE_TMP_SECONDS = 3600 };

typedef struct EvictEntry {
    char name[40];
    uint64_t size;
    struct timespec used; /* access time */
    bool other_build;
} EvictEntry;

static bool all_hex(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return true;
}

/* An entry's file name: "BBBBBBBB-KKKKKKKKKKKKKKKK.cubin" (build hash into *build) or the
 * older "KKKKKKKKKKKKKKKK.cubin" (*build = NULL). Anything else is not ours. */
static bool parse_entry_name(const char *n, const char **build) {
    size_t len = strlen(n);
    if (len == 31 && n[8] == '-' && all_hex(n, 8) && all_hex(n + 9, 16) &&
        !strcmp(n + 25, ".cubin")) {
        *build = n;
        return true;
    }
    if (len == 22 && all_hex(n, 16) && !strcmp(n + 16, ".cubin")) {
        *build = NULL;
        return true;
    }
    return false;
}

/* A temporary of cache_put: "." + an entry's name + ".tmp." + 6 characters. */
static bool is_temporary(const char *n) {
    const char *b;
    char entry[40];
    size_t len = strlen(n);
    if (n[0] != '.' || len != 1 + 31 + 5 + 6 || memcmp(n + 32, ".tmp.", 5)) return false;
    memcpy(entry, n + 1, 31);
    entry[31] = 0;
    return parse_entry_name(entry, &b) && b;
}

static int evict_order(const void *pa, const void *pb) {
    const EvictEntry *a = pa, *b = pb;
    if (a->other_build != b->other_build) return a->other_build ? -1 : 1;
    if (a->used.tv_sec != b->used.tv_sec) return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
    if (a->used.tv_nsec != b->used.tv_nsec) return a->used.tv_nsec < b->used.tv_nsec ? -1 : 1;
    return strcmp(a->name, b->name);
}

int cache_evict(const char *build, uint64_t max_bytes, const char *keep) {
    if (!build) return -1;
    char dir[4096], path[4200];
    if (!cache_dir(dir, sizeof dir)) return -1;
    /* one evicting process at a time; the others go on (the next put catches up) */
    snprintf(path, sizeof path, "%s/.lock", dir);
    int lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0) return -1;
    if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
        close(lock);
        return -1;
    }
    DIR *dp = opendir(dir);
    if (!dp) {
        close(lock);
        return -1;
    }
    char mine[9];
    snprintf(mine, sizeof mine, "%08llx",
             (unsigned long long)(fnv1a64(build, strlen(build)) & 0xffffffffu));
    EvictEntry *es = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    int removed = 0;
    time_t now = time(NULL);
    int dfd = dirfd(dp);
    for (struct dirent *de; (de = readdir(dp));) {
        const char *b;
        bool entry = parse_entry_name(de->d_name, &b), tmp = !entry && is_temporary(de->d_name);
        if (!entry && !tmp) continue; /* not ours: never touched */
        struct stat st;
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (tmp) { /* a writer that died mid-write, long ago */
            if (now - st.st_mtime > STALE_TMP_SECONDS && unlinkat(dfd, de->d_name, 0) == 0)
                removed++;
            continue;
        }
        total += (uint64_t)st.st_size;
        if (keep && !strcmp(de->d_name, keep)) continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 256;
            EvictEntry *bigger = realloc(es, ncap * sizeof *es);
            if (!bigger) break; /* evict among those seen */
            es = bigger, cap = ncap;
        }
        EvictEntry *e = &es[n++];
        memcpy(e->name, de->d_name,
               strlen(de->d_name) + 1); /* 31 or 22 characters: parse_entry_name */
        e->size = (uint64_t)st.st_size;
        e->used = st.st_atim;
        e->other_build = !b || memcmp(b, mine, 8) != 0;
    }
    if (total > max_bytes) {
        uint64_t target = max_bytes - max_bytes / 10; /* some room, so the next puts do not evict */
        qsort(es, n, sizeof *es, evict_order);
        for (size_t i = 0; i < n && total > target; i++) {
            if (unlinkat(dfd, es[i].name, 0) == 0) removed++;
            total -= es[i].size; /* gone either way (another process may have removed it) */
        }
    }
    closedir(dp);
    free(es);
    close(lock); /* releases the flock */
    return removed;
}
