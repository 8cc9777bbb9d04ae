/* test_cache.c - the on-disk kernel cache (runtime/cache.c) in a fresh temporary
 * directory: hits and misses, overwrites, every kind of corrupt entry (which must be
 * reported as a miss and deleted), empty and big payloads, no cache directory at all and
 * an unwritable one; the size limit (NEREID_CACHE_MAX_MB): other builds' entries evicted
 * first, then the least recently used, a read counting as a use, stale temporaries
 * removed, files that are not the cache's left alone, one evicting process at a time;
 * the builder's lock of an entry (cache_lock): held by one at a time, threads included,
 * a wait that runs out, the lock file gone once released.
 * (tests/unit/test_cache_procs.c: many processes at once.) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "runtime/cache.h"

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

/* a key of this test's build */
#define BUILD "test_cache build 1"
#define K(text) (&(CacheKey){BUILD, (text)})

static bool exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0;
}

static long file_size(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* Number of entries in dir other than ., .. and the eviction lock .lock; with tmp_out,
 * how many are temporaries. */
static int count_entries(const char *dir, int *tmp_out) {
    DIR *dp = opendir(dir);
    if (!dp) return -1;
    int n = 0, tmp = 0;
    for (struct dirent *e; (e = readdir(dp));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".lock"))
            continue;
        n++;
        if (strstr(e->d_name, ".tmp")) tmp++;
    }
    closedir(dp);
    if (tmp_out) *tmp_out = tmp;
    return n;
}

/* rm -r of a directory holding plain files and directories */
static void remove_tree(const char *dir) {
    chmod(dir, 0755);
    DIR *dp = opendir(dir);
    if (dp) {
        for (struct dirent *e; (e = readdir(dp));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            struct stat sb;
            if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) remove_tree(path);
            else unlink(path);
        }
        closedir(dp);
    }
    rmdir(dir);
}

static bool get_equals(const char *key, const void *want, size_t want_len) {
    size_t len = 12345;
    void *got = cache_get(K(key), &len);
    bool ok = got && len == want_len && (want_len == 0 || memcmp(got, want, want_len) == 0);
    free(got);
    return ok;
}

static bool is_miss(const char *key) {
    size_t len = 12345;
    void *got = cache_get(K(key), &len);
    bool miss = got == NULL && len == 0;
    free(got);
    return miss;
}

static bool get_equals_sized(const char *text, size_t size) {
    size_t len = 0;
    void *got = cache_get(K(text), &len);
    bool ok = got && len == size;
    for (size_t i = 0; ok && i < size; i++)
        ok = ((unsigned char *)got)[i] == (unsigned char)(text[i % strlen(text)] + i);
    free(got);
    return ok;
}

static bool is_miss_build(const char *build, const char *text) {
    size_t len = 12345;
    void *got = cache_get(&(CacheKey){build, text}, &len);
    bool miss = got == NULL && len == 0;
    free(got);
    return miss;
}

/* Read, modify one byte at `offset` (from the end if negative), write back. */
static bool flip_byte(const char *path, long offset) {
    size_t len;
    char *buf = file_read(path, &len);
    if (!buf) return false;
    size_t at = offset >= 0 ? (size_t)offset : len - (size_t)(-offset);
    bool ok = at < len;
    if (ok) {
        buf[at] ^= 0x5a;
        FILE *f = fopen(path, "wb");
        ok = f && fwrite(buf, 1, len, f) == len;
        if (f && fclose(f) != 0) ok = false;
    }
    free(buf);
    return ok;
}

/* Set a file's access time (the cache's "last used") to `ago` seconds before now, and
 * its modification time earlier still, so that the kernel's relatime rule (which updates
 * an access time older than the modification time on every read) cannot stand in for
 * the cache's own marking of a read. */
static bool set_used(const char *path, long ago) {
    time_t now = time(NULL);
    struct timespec ts[2] = {{now - ago, 0}, {now - 5000, 0}};
    return utimensat(AT_FDCWD, path, ts, 0) == 0;
}

static bool set_mtime(const char *path, long ago) {
    struct timespec ts[2] = {{0, UTIME_OMIT}, {time(NULL) - ago, 0}};
    return utimensat(AT_FDCWD, path, ts, 0) == 0;
}

/* Put `size` bytes (a pattern of the text) under (build, text); the entry's path into
 * path. */
static bool put_sized(const char *build, const char *text, size_t size, char path[4200]) {
    unsigned char *p = malloc(size);
    if (!p) return false;
    for (size_t i = 0; i < size; i++) p[i] = (unsigned char)(text[i % strlen(text)] + i);
    CacheKey k = {build, text};
    bool ok = cache_put(&k, p, size) && cache_path(&k, path, 4200);
    free(p);
    return ok;
}

static bool write_file(const char *path, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    for (size_t i = 0; i < size; i++) fputc((int)(i & 0xff), f);
    return fclose(f) == 0;
}

/* The size limit and eviction, in a fresh directory under root. */
static void test_eviction(const char *root) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/evict", root);
    setenv("NEREID_CACHE_DIR", dir, 1);

    /* the limit's parsing */
    unsetenv("NEREID_CACHE_MAX_MB");
    CHECK(cache_max_bytes() == (uint64_t)CACHE_DEFAULT_MAX_MB << 20, "default limit");
    setenv("NEREID_CACHE_MAX_MB", "5", 1);
    CHECK(cache_max_bytes() == 5u << 20, "NEREID_CACHE_MAX_MB=5");
    setenv("NEREID_CACHE_MAX_MB", "0", 1);
    CHECK(cache_max_bytes() == UINT64_MAX, "NEREID_CACHE_MAX_MB=0 is no limit");
    static const char *const invalid[] = {"", "abc", "12x", "-3", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
        setenv("NEREID_CACHE_MAX_MB", invalid[i], 1);
        CHECK(cache_max_bytes() == (uint64_t)CACHE_DEFAULT_MAX_MB << 20,
              "NEREID_CACHE_MAX_MB='%s' should give the default", invalid[i]);
    }

    /* no limit while filling: 4 entries of this build, 2 of another, 1 of the older
     * naming, and files that are not the cache's */
    setenv("NEREID_CACHE_MAX_MB", "0", 1);
    enum { KB200 = 200 * 1024 };
    char o[5][4200], x[2][4200], old[4300], foreign1[4300], foreign2[4300], foreign3[4300];
    bool ok = true;
    for (int i = 0; i < 4; i++) {
        char text[32];
        snprintf(text, sizeof text, "own-%d", i + 1);
        ok &= put_sized(BUILD, text, KB200, o[i]);
    }
    ok &= put_sized("an older build", "other-1", KB200, x[0]) &&
          put_sized("an older build", "other-2", KB200, x[1]);
    snprintf(old, sizeof old, "%s/0123456789abcdef.cubin", dir);
    snprintf(foreign1, sizeof foreign1, "%s/notes.txt", dir);
    snprintf(foreign2, sizeof foreign2, "%s/zz.cubin", dir);
    snprintf(foreign3, sizeof foreign3, "%s/.hidden", dir);
    ok &= write_file(old, KB200) && write_file(foreign1, 300 * 1024) &&
          write_file(foreign2, 300 * 1024) && write_file(foreign3, 10);
    CHECK(ok, "filling the cache");
    /* last uses: the other build's newest of all; own-1 the oldest */
    ok = set_used(x[0], 0) && set_used(x[1], 500) && set_used(old, 2000);
    for (int i = 0; i < 4; i++) ok &= set_used(o[i], 1000 - 100 * i);
    CHECK(ok, "setting access times");
    /* reading own-1 makes it the most recently used */
    size_t len;
    void *got = cache_get(K("own-1"), &len);
    CHECK(got && len == KB200, "reading own-1");
    free(got);
    struct stat sb;
    CHECK(stat(o[0], &sb) == 0 && time(NULL) - sb.st_atime < 60,
          "a read should mark the entry used (atime %lld)", (long long)sb.st_atime);
    /* every read marks it, not only the first (which a relatime mount marks by itself) */
    struct timespec a1 = sb.st_atim, pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    got = cache_get(K("own-1"), &len);
    free(got);
    CHECK(stat(o[0], &sb) == 0 &&
              (sb.st_atim.tv_sec > a1.tv_sec ||
               (sb.st_atim.tv_sec == a1.tv_sec && sb.st_atim.tv_nsec > a1.tv_nsec)),
          "a second read should mark the entry used again");

    /* 1 MB: the fifth put (8 entries, 1.6 MB) evicts down to 0.9 MB: the other build's
     * and the old-named entries first, whatever their age, then own-2 (the least recently
     * used); own-1 (just read), own-3, own-4 and own-5 (just written) stay */
    setenv("NEREID_CACHE_MAX_MB", "1", 1);
    CHECK(put_sized(BUILD, "own-5", KB200, o[4]), "put own-5");
    CHECK(!exists(x[0]) && !exists(x[1]) && !exists(old), "other builds' entries should go first");
    CHECK(!exists(o[1]), "the least recently used entry (own-2) should go");
    CHECK(exists(o[0]) && exists(o[2]) && exists(o[3]) && exists(o[4]),
          "own-1, 3, 4, 5 should stay");
    CHECK(exists(foreign1) && exists(foreign2) && exists(foreign3),
          "files that are not entries must stay");
    CHECK(get_equals_sized("own-5", KB200), "own-5 readable");

    /* temporaries: a stale one (2 hours) goes, a fresh one (a writer at work) stays */
    char stale[4300], fresh[4300];
    const char *name = strrchr(o[0], '/') + 1;
    snprintf(stale, sizeof stale, "%s/.%s.tmp.abc123", dir, name);
    snprintf(fresh, sizeof fresh, "%s/.%s.tmp.def456", dir, name);
    CHECK(write_file(stale, 100) && write_file(fresh, 100) && set_mtime(stale, 7200),
          "making temporaries");
    CHECK(cache_evict(BUILD, UINT64_MAX, NULL) == 1,
          "cache_evict should remove the stale temporary only");
    CHECK(!exists(stale) && exists(fresh), "stale temporary removed, fresh one kept");

    /* one evicting process at a time: while another holds the lock, nothing is deleted */
    char lockpath[4300];
    snprintf(lockpath, sizeof lockpath, "%s/.lock", dir);
    int lk = open(lockpath, O_RDWR | O_CREAT, 0644);
    CHECK(lk >= 0 && flock(lk, LOCK_EX | LOCK_NB) == 0, "taking the eviction lock");
    CHECK(cache_evict(BUILD, 1, NULL) == -1,
          "cache_evict while another holds the lock should do nothing");
    CHECK(exists(o[0]) && exists(o[4]), "nothing evicted under another's lock");
    if (lk >= 0) close(lk);

    /* an entry bigger than the limit: kept (it was just written), everything else goes */
    char big[4200];
    CHECK(put_sized(BUILD, "huge", 1200 * 1024, big), "put an entry over the limit");
    CHECK(exists(big) && !exists(o[0]) && !exists(o[2]) && !exists(o[3]) && !exists(o[4]),
          "a put over the limit keeps only the new entry");
    CHECK(exists(foreign1) && exists(foreign2) && exists(fresh),
          "foreign files and fresh temporaries stay");
    unsetenv("NEREID_CACHE_MAX_MB");
}

/* ---- the builder's lock ---- */

static int inside, overlaps; /* threads holding the lock now; times two held it at once */

static void *lock_worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 20; i++) {
        int l = cache_lock(K("locked"), 10000);
        if (l < 0) {
            __atomic_add_fetch(&overlaps, 1000,
                               __ATOMIC_SEQ_CST); /* no lock at all: a failure too */
            continue;
        }
        if (__atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST) != 1)
            __atomic_add_fetch(&overlaps, 1, __ATOMIC_SEQ_CST);
        struct timespec t = {0, 100000};
        nanosleep(&t, NULL);
        __atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
        cache_unlock(K("locked"), l);
    }
    return NULL;
}

static void test_builder_lock(const char *root) {
    char dir[4200], path[4200], lockpath[8600];
    snprintf(dir, sizeof dir, "%s/locks", root);
    setenv("NEREID_CACHE_DIR", dir, 1);
    CHECK(cache_path(K("x"), path, sizeof path), "cache_path");
    const char *slash = strrchr(path, '/');
    snprintf(lockpath, sizeof lockpath, "%s/.%s.lock", dir, slash ? slash + 1 : path);
    int l = cache_lock(K("x"), 1000);
    CHECK(l >= 0 && exists(lockpath), "cache_lock: %d, lock file %s", l,
          exists(lockpath) ? "there" : "missing");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int again = cache_lock(
        K("x"), 50); /* held (by this thread: another open file counts as another holder) */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    CHECK(again == -1 && ms >= 45,
          "a held lock: cache_lock gave %d after %.1f ms (want -1 after 50 ms)", again, ms);
    int other = cache_lock(K("y"), 50);
    CHECK(other >= 0, "another entry's lock is its own");
    cache_unlock(K("y"), other);
    cache_unlock(K("x"), l);
    CHECK(!exists(lockpath), "the lock file goes with the lock");
    l = cache_lock(K("x"), 50);
    CHECK(l >= 0, "cache_lock after the release");
    cache_unlock(K("x"), l);
    cache_unlock(K("x"), -1); /* no lock: nothing */
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, lock_worker, NULL);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    CHECK(overlaps == 0, "four threads: the lock was held by two at once (or not had) %d times",
          overlaps);
    int tmp = 0;
    CHECK(count_entries(dir, &tmp) == 0 && tmp == 0, "nothing left in the directory");
    remove_tree(dir);
}

int main(void) {
    char tmpl[] = "/tmp/nereid-test-cache-XXXXXX";
    char *root = mkdtemp(tmpl);
    if (!root) {
        perror("mkdtemp");
        return 1;
    }
    /* a directory that does not exist yet, two levels down: cache_dir creates it */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/a/nereid", root);
    setenv("NEREID_CACHE_DIR", dir, 1);
    unsetenv("NEREID_CACHE_MAX_MB");

    char got_dir[4096];
    CHECK(cache_dir(got_dir, sizeof got_dir), "cache_dir failed for %s", dir);
    CHECK(!strcmp(got_dir, dir), "cache_dir gave '%s'", got_dir);
    struct stat sb;
    CHECK(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) && (sb.st_mode & 0777 & ~0755u) == 0 &&
              (sb.st_mode & 0700) == 0700,
          "cache directory not created with mode 0755 (mode %o)", (unsigned)(sb.st_mode & 0777));
    char tiny[4];
    CHECK(!cache_dir(tiny, sizeof tiny), "cache_dir into a 4-byte buffer should fail");

    /* empty cache */
    CHECK(is_miss("kernel-a"), "empty cache should miss");
    CHECK(count_entries(dir, NULL) == 0, "a miss created files");

    /* put, get */
    const char a[] = "cubin bytes of kernel a \x00\x01\x02\xff";
    CHECK(cache_put(K("kernel-a"), a, sizeof a), "put a");
    CHECK(get_equals("kernel-a", a, sizeof a), "get a after put");
    CHECK(get_equals("kernel-a", a, sizeof a), "get a twice");
    CHECK(is_miss("kernel-b"), "another key should miss");
    CHECK(is_miss("kernel-"), "a prefix of the key should miss");
    CHECK(is_miss("kernel-aa"), "an extension of the key should miss");
    int tmp = -1;
    CHECK(count_entries(dir, &tmp) == 1 && tmp == 0, "one entry and no temporaries expected");

    char path_a[4200];
    CHECK(cache_path(K("kernel-a"), path_a, sizeof path_a), "cache_path");
    CHECK(exists(path_a), "entry file %s missing", path_a);
    const char *base = strrchr(path_a, '/');
    CHECK(
        base && strlen(base + 1) == 8 + 1 + 16 + strlen(".cubin") && base[9] == '-' &&
            !strcmp(base + 1 + 25, ".cubin"),
        "entry name should be 8 hex digits (the build), '-', 16 hex digits (the key) + .cubin: %s",
        path_a);
    char path_other[4200];
    CHECK(cache_path(&(CacheKey){"another build", "kernel-a"}, path_other, sizeof path_other) &&
              strcmp(strrchr(path_other, '/') + 9, base + 9) == 0 &&
              strncmp(strrchr(path_other, '/'), base, 9) != 0,
          "another build's entry of the same key text should differ in the build part only: %s",
          path_other);
    CHECK(is_miss_build("another build", "kernel-a"),
          "the same text under another build should miss");
    CHECK(file_size(path_a) == 48 + (long)strlen("kernel-a") + (long)sizeof a, "entry size %ld",
          file_size(path_a));

    /* two keys */
    const char b[] = "kernel b: a different payload";
    CHECK(cache_put(K("kernel-b"), b, sizeof b), "put b");
    CHECK(get_equals("kernel-a", a, sizeof a), "a still there");
    CHECK(get_equals("kernel-b", b, sizeof b), "b there");
    CHECK(count_entries(dir, &tmp) == 2 && tmp == 0, "two entries expected");

    /* overwrite */
    const char a2[] = "new payload of a, longer than the first one was";
    CHECK(cache_put(K("kernel-a"), a2, sizeof a2), "overwrite a");
    CHECK(get_equals("kernel-a", a2, sizeof a2), "get the new a");
    CHECK(count_entries(dir, &tmp) == 2 && tmp == 0, "still two entries after an overwrite");

    /* truncated entry: a miss, and the file is gone */
    CHECK(truncate(path_a, file_size(path_a) - 3) == 0, "truncate: %s", strerror(errno));
    CHECK(is_miss("kernel-a"), "truncated entry should miss");
    CHECK(!exists(path_a), "truncated entry should be deleted");
    CHECK(get_equals("kernel-b", b, sizeof b), "b unaffected");
    CHECK(cache_put(K("kernel-a"), a, sizeof a), "re-put a");
    CHECK(truncate(path_a, 20) == 0, "truncate into the header");
    CHECK(is_miss("kernel-a") && !exists(path_a), "entry cut inside its header should miss and go");
    CHECK(cache_put(K("kernel-a"), a, sizeof a), "re-put a");
    CHECK(truncate(path_a, 0) == 0, "truncate to nothing");
    CHECK(is_miss("kernel-a") && !exists(path_a), "empty entry file should miss and go");

    /* flipped payload byte (the last byte of the file) */
    CHECK(cache_put(K("kernel-a"), a, sizeof a), "re-put a");
    CHECK(flip_byte(path_a, -1), "flip payload byte");
    CHECK(is_miss("kernel-a"), "corrupt payload should miss");
    CHECK(!exists(path_a), "corrupt payload entry should be deleted");

    /* flipped key byte (the first byte after the 48-byte header) */
    CHECK(cache_put(K("kernel-a"), a, sizeof a), "re-put a");
    CHECK(flip_byte(path_a, 48), "flip key byte");
    CHECK(is_miss("kernel-a") && !exists(path_a), "corrupt key should miss and go");

    /* flipped header bytes: magic, version, lengths, checksums */
    static const long header_offsets[] = {0, 7, 8, 12, 16, 24, 32, 40, 47};
    for (size_t i = 0; i < sizeof header_offsets / sizeof header_offsets[0]; i++) {
        CHECK(cache_put(K("kernel-a"), a, sizeof a), "re-put a");
        CHECK(flip_byte(path_a, header_offsets[i]), "flip header byte %ld", header_offsets[i]);
        CHECK(is_miss("kernel-a") && !exists(path_a), "corrupt header byte %ld should miss and go",
              header_offsets[i]);
    }

    /* extra bytes after the payload */
    CHECK(cache_put(K("kernel-a"), a, sizeof a), "re-put a");
    FILE *f = fopen(path_a, "ab");
    CHECK(f && fputs("junk", f) >= 0 && fclose(f) == 0, "append junk");
    CHECK(is_miss("kernel-a") && !exists(path_a), "entry with trailing junk should miss and go");

    /* zero-length payload: a hit, distinguishable from a miss */
    CHECK(cache_put(K("empty"), "", 0), "put empty payload");
    CHECK(cache_put(K("empty-null"), NULL, 0), "put NULL, 0");
    CHECK(get_equals("empty", "", 0), "get empty payload");
    CHECK(get_equals("empty-null", "", 0), "get NULL, 0 payload");
    CHECK(!cache_put(K("nothing"), NULL, 5), "NULL data with a length must be refused");
    CHECK(is_miss("nothing"), "refused put must not create an entry");

    /* the empty key is a key like another */
    CHECK(cache_put(K(""), b, sizeof b) && get_equals("", b, sizeof b), "empty key");

    /* a long key (the whole source text, say) */
    size_t klen = 100000;
    char *longkey = malloc(klen + 1);
    for (size_t i = 0; i < klen; i++) longkey[i] = (char)('a' + i % 26);
    longkey[klen] = 0;
    CHECK(cache_put(K(longkey), a, sizeof a) && get_equals(longkey, a, sizeof a), "long key");
    longkey[klen / 2] = '#';
    CHECK(is_miss(longkey), "long key differing in one byte should miss");
    free(longkey);

    /* a big payload: 5 MB of pseudo-random bytes */
    size_t big_len = 5u << 20;
    unsigned char *big = malloc(big_len);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < big_len; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        big[i] = (unsigned char)x;
    }
    CHECK(cache_put(K("big"), big, big_len), "put big");
    CHECK(get_equals("big", big, big_len), "get big");
    char path_big[4200];
    CHECK(cache_path(K("big"), path_big, sizeof path_big), "cache_path big");
    CHECK(flip_byte(path_big, 48 + 3 + (long)(big_len / 2)), "flip a byte in the middle of big");
    CHECK(is_miss("big") && !exists(path_big), "corrupt big entry should miss and go");
    free(big);

    /* a garbage file under the right name */
    char path_g[4200];
    CHECK(cache_path(K("garbage"), path_g, sizeof path_g), "cache_path garbage");
    f = fopen(path_g, "wb");
    CHECK(f != NULL, "create garbage file");
    if (f) {
        for (int i = 0; i < 1000; i++) fputc((i * 37) & 0xff, f);
        fclose(f);
    }
    CHECK(is_miss("garbage") && !exists(path_g), "garbage file should miss and go");
    /* a valid entry of another key, copied under this key's name: the key check catches it */
    CHECK(cache_put(K("kernel-b"), b, sizeof b), "re-put b");
    char path_b[4200];
    CHECK(cache_path(K("kernel-b"), path_b, sizeof path_b), "cache_path b");
    CHECK(rename(path_b, path_g) == 0, "move b's entry to garbage's name");
    CHECK(is_miss("garbage") && !exists(path_g), "another key's entry should miss and go");
    /* a directory under the right name: a miss, and nothing crashes */
    CHECK(mkdir(path_g, 0755) == 0, "mkdir at the entry's name");
    CHECK(is_miss("garbage"), "a directory should miss");
    rmdir(path_g);

    /* cache_remove */
    CHECK(cache_put(K("kernel-b"), b, sizeof b) && cache_remove(K("kernel-b")) &&
              is_miss("kernel-b"),
          "cache_remove");
    CHECK(!cache_remove(K("kernel-b")), "cache_remove of a missing entry");

    CHECK(count_entries(dir, &tmp) >= 0 && tmp == 0, "no temporaries left behind");

    test_builder_lock(root);

    /* no cache directory: NEREID_CACHE_DIR below a plain file */
    char blocker[4200], below[4300];
    snprintf(blocker, sizeof blocker, "%s/plainfile", root);
    f = fopen(blocker, "w");
    if (f) fclose(f);
    snprintf(below, sizeof below, "%s/sub/dir", blocker);
    setenv("NEREID_CACHE_DIR", below, 1);
    CHECK(!cache_dir(got_dir, sizeof got_dir), "cache_dir below a plain file should fail");
    CHECK(!cache_put(K("kernel-a"), a, sizeof a), "put without a cache directory should fail");
    CHECK(is_miss("kernel-a"), "get without a cache directory should miss");
    CHECK(!cache_path(K("kernel-a"), path_a, sizeof path_a),
          "cache_path without a cache directory");
    CHECK(cache_lock(K("kernel-a"), 1000) == -1, "cache_lock without a cache directory");

    /* neither NEREID_CACHE_DIR nor HOME: no cache at all */
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    unsetenv("NEREID_CACHE_DIR");
    unsetenv("HOME");
    CHECK(!cache_dir(got_dir, sizeof got_dir), "no HOME: no cache directory");
    CHECK(!cache_put(K("kernel-a"), a, sizeof a) && is_miss("kernel-a"),
          "no HOME: put fails, get misses");
    /* HOME only: $HOME/.cache/nereid */
    char fake_home[4200], want[4300];
    snprintf(fake_home, sizeof fake_home, "%s/home", root);
    setenv("HOME", fake_home, 1);
    snprintf(want, sizeof want, "%s/.cache/nereid", fake_home);
    CHECK(cache_dir(got_dir, sizeof got_dir) && !strcmp(got_dir, want), "HOME fallback gave '%s'",
          got_dir);
    CHECK(cache_put(K("h"), a, sizeof a) && get_equals("h", a, sizeof a), "cache under HOME");
    setenv("NEREID_CACHE_DIR", "", 1);
    CHECK(cache_dir(got_dir, sizeof got_dir) && !strcmp(got_dir, want),
          "empty NEREID_CACHE_DIR falls back to HOME");
    if (home) setenv("HOME", home, 1);
    else unsetenv("HOME");
    free(home);

    /* an unwritable cache directory: put fails cleanly, leaves nothing (root ignores modes) */
    char ro[4200];
    snprintf(ro, sizeof ro, "%s/readonly", root);
    CHECK(mkdir(ro, 0755) == 0, "mkdir readonly");
    setenv("NEREID_CACHE_DIR", ro, 1);
    CHECK(cache_put(K("kernel-a"), a, sizeof a), "put before making it read-only");
    CHECK(chmod(ro, 0555) == 0, "chmod 0555");
    if (geteuid() != 0) {
        CHECK(!cache_put(K("kernel-b"), b, sizeof b), "put into a read-only directory should fail");
        CHECK(is_miss("kernel-b"), "nothing stored in a read-only directory");
        CHECK(get_equals("kernel-a", a, sizeof a), "reading a read-only cache still works");
        CHECK(count_entries(ro, &tmp) == 1 && tmp == 0,
              "no temporary left in the read-only directory");
    } else {
        printf("note: running as root, the read-only directory case is not checked\n");
    }
    chmod(ro, 0755);

    test_eviction(root);

    unsetenv("NEREID_CACHE_DIR");
    remove_tree(root);
    CHECK(!exists(root), "temporary directory %s not removed", root);
    return check_done("test_cache", &st);
}
