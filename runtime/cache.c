/* cache.c - the on-disk cache of compiled kernels (see cache.h).
 *
 * Directory: $NEREID_CACHE_DIR if set and non-empty, else $HOME/.cache/nereid (created
 * with its parents, mode 0755). Each entry is one file named after the 64-bit FNV-1a
 * hash of its key, as 16 lowercase hex digits plus ".cubin". The file is
 *
 *   offset size  field (integers little-endian, whatever the host)
 *   0      8     magic "NRCACHE1"
 *   8      4     header version (1)
 *   12     4     reserved, 0
 *   16     8     key length in bytes (K)
 *   24     8     payload length in bytes (P)
 *   32     8     FNV-1a 64 checksum of the payload
 *   40     8     FNV-1a 64 checksum of the key
 *   48     K     the key (no terminating NUL)
 *   48+K   P     the payload
 *
 * and its size must be exactly 48 + K + P. cache_get checks every field, compares the key
 * byte for byte and verifies both checksums; any mismatch deletes the file and is a miss.
 * cache_put writes a temporary file in the same directory (mkstemp) and renames it into
 * place, so readers never see a half-written entry and concurrent writers of one key
 * simply replace each other's (identical) entries. No global state. */
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
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

bool cache_path(const char *key, char *buf, size_t size) {
    if (!key || !buf || size == 0) return false;
    char dir[4096];
    if (!cache_dir(dir, sizeof dir)) {
        buf[0] = 0;
        return false;
    }
    int n = snprintf(buf, size, "%s/%016llx.cubin", dir, (unsigned long long)fnv1a64(key, strlen(key)));
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

void *cache_get(const char *key, size_t *len) {
    if (len) *len = 0;
    if (!key) return NULL;
    char path[4200];
    if (!cache_path(key, path, sizeof path)) return NULL;
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
    if (memcmp(hdr, CACHE_MAGIC, 8) != 0 || get_u32(hdr + 8) != CACHE_VERSION || get_u32(hdr + 12) != 0)
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
    if (!read_full(fd, payload, (size_t)plen) || fnv1a64(payload, (size_t)plen) != psum) goto corrupt;

    free(kbuf);
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

bool cache_put(const char *key, const void *data, size_t len) {
    if (!key || (!data && len > 0)) return false;
    char dir[4096];
    if (!cache_dir(dir, sizeof dir)) return false;
    size_t klen = strlen(key);
    uint64_t khash = fnv1a64(key, klen);
    char path[4200], tmp[4200];
    int n1 = snprintf(path, sizeof path, "%s/%016llx.cubin", dir, (unsigned long long)khash);
    int n2 = snprintf(tmp, sizeof tmp, "%s/.%016llx.tmp.XXXXXX", dir, (unsigned long long)khash);
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
    put_u64(hdr + 40, khash);
    bool ok = fchmod(fd, 0644) == 0 && write_full(fd, hdr, sizeof hdr) && write_full(fd, key, klen) &&
              write_full(fd, data, len);
    if (close(fd) != 0) ok = false;
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) unlink(tmp);
    return ok;
}

bool cache_remove(const char *key) {
    char path[4200];
    if (!cache_path(key, path, sizeof path)) return false;
    return unlink(path) == 0;
}
