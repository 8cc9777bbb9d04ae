/* test_cache_procs.c - many processes sharing one disk cache (runtime/cache.c), as the
 * programs of a machine do: 8 processes at once, each reading and writing overlapping
 * keys (all of them) and distinct keys (its own), of two compiler builds, repeatedly, in
 * a directory kept small (NEREID_CACHE_MAX_MB=1) so that eviction runs all the time, while
 * two of the processes also vandalise entries in place (truncate them, overwrite bytes in
 * the middle, replace them with garbage: what a crash or a full disk leaves).
 *
 * Every payload is a pure function of its key, so a reader knows what it must get. The
 * test fails if any read returns anything but the exact payload (a torn, partial, stale
 * or foreign entry) or a miss, if a process crashes, or if temporaries are left behind.
 * A reader that misses rebuilds the entry (cache_put), as the runtime does after a
 * compile. Without a GPU this is the cache logic the CUDA device relies on;
 * tests/gpu/test_gpu_cache_procs.c does the same through the API on a GPU. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "runtime/cache.h"

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

enum {
    NPROCS = 8,
    ROUNDS = 60,
    NSHARED = 16, /* keys every process uses */
    NOWN = 4,     /* keys of one process alone */
    VANDALS = 2,  /* processes 0 and 1 also damage entries */
    MAX_PAYLOAD = 64 * 1024,
};

static const char *const builds[2] = {"procs-test build A", "procs-test build B"};

static uint64_t hash(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static uint64_t next(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* The payload of (build, text): 1 KB to 64 KB of bytes drawn from the key's hash. */
static size_t payload(const char *build, const char *text, unsigned char *out) {
    uint64_t x = hash(build) ^ (hash(text) * 31) ^ 0x9e3779b97f4a7c15ull;
    if (!x) x = 1;
    size_t n = 1024 + next(&x) % (MAX_PAYLOAD - 1024);
    for (size_t i = 0; i < n; i++) out[i] = (unsigned char)next(&x);
    return n;
}

typedef struct Stats {
    long hits, misses, bad, vandalised;
} Stats;

/* Key k of process p: shared keys first; process 7's keys and every third shared key
 * belong to build B. */
static CacheKey key_of(int p, int k, char text[64]) {
    if (k < NSHARED) snprintf(text, 64, "shared-%d", k);
    else snprintf(text, 64, "proc-%d-own-%d", p, k - NSHARED);
    int b = (k < NSHARED && k % 3 == 0) || (k >= NSHARED && p == NPROCS - 1);
    return (CacheKey){builds[b], text};
}

/* Damage key's entry in place, the way a crashed writer or a full disk might. */
static void vandalise(const CacheKey *key, uint64_t *x, Stats *s) {
    char path[4200];
    if (!cache_path(key, path, sizeof path)) return;
    int fd = open(path, O_WRONLY);
    if (fd < 0) return; /* evicted or not there yet */
    struct stat sb;
    if (fstat(fd, &sb) == 0 && sb.st_size > 0) {
        unsigned char junk[512];
        for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)next(x);
        off_t at = (off_t)(next(x) % (uint64_t)sb.st_size);
        switch (next(x) % 3) {
        case 0: (void)!ftruncate(fd, at); break;                 /* cut short */
        case 1: (void)!pwrite(fd, junk, sizeof junk, at); break; /* bytes overwritten */
        default: (void)!pwrite(fd, junk, sizeof junk, 0); break; /* the header */
        }
        s->vandalised++;
    }
    close(fd);
}

static int child(int p) {
    unsigned char *want = malloc(MAX_PAYLOAD);
    if (!want) return 100;
    Stats s = {0};
    uint64_t x = 0x1234567ull * (uint64_t)(p + 1);
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < NSHARED + NOWN; i++) {
            int k = (int)(next(&x) % (NSHARED + NOWN));
            char text[64];
            CacheKey key = key_of(p, k, text);
            size_t wlen = payload(key.build, key.text, want), len = 0;
            unsigned char *got = cache_get(&key, &len);
            if (got) {
                s.hits++;
                if (len != wlen || memcmp(got, want, wlen)) {
                    s.bad++;
                    printf(
                        "process %d: read of '%s' returned %zu bytes, not its %zu-byte payload\n",
                        p, text, len, wlen);
                }
                free(got);
            } else {
                s.misses++;
                cache_put(&key, want,
                          wlen); /* the rebuild; may fail silently, like the runtime's */
            }
            if (p < VANDALS && next(&x) % 4 == 0) {
                char vt[64];
                CacheKey victim = key_of(p, (int)(next(&x) % NSHARED), vt);
                vandalise(&victim, &x, &s);
            }
        }
    }
    printf("process %d: %ld hits, %ld misses (rebuilt), %ld entries vandalised, %ld bad reads\n", p,
           s.hits, s.misses, s.vandalised, s.bad);
    free(want);
    return s.bad > 100 ? 100 : (int)s.bad;
}

static void remove_tree(const char *dir) {
    DIR *dp = opendir(dir);
    if (dp) {
        for (struct dirent *e; (e = readdir(dp));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char path[4300];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            struct stat sb;
            if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) remove_tree(path);
            else unlink(path);
        }
        closedir(dp);
    }
    rmdir(dir);
}

/* The directory's entries: their count, total size, temporaries. */
static void survey(const char *dir, int *entries, uint64_t *bytes, int *temps) {
    *entries = 0, *bytes = 0, *temps = 0;
    DIR *dp = opendir(dir);
    if (!dp) return;
    for (struct dirent *e; (e = readdir(dp));) {
        char path[4300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
        if (strstr(e->d_name, ".tmp.")) (*temps)++;
        else if (strstr(e->d_name, ".cubin")) (*entries)++, *bytes += (uint64_t)sb.st_size;
    }
    closedir(dp);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    char tmpl[] = "/tmp/nereid-test-cache-procs-XXXXXX";
    char *root = mkdtemp(tmpl);
    if (!root) return perror("mkdtemp"), 1;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/cache", root);
    setenv("NEREID_CACHE_DIR", dir, 1);
    setenv("NEREID_CACHE_MAX_MB", "1", 1);

    pid_t pids[NPROCS];
    for (int p = 0; p < NPROCS; p++) {
        fflush(stdout);
        pids[p] = fork();
        if (pids[p] == 0) _exit(child(p));
        CHECK(pids[p] > 0, "fork: %s", strerror(errno));
    }
    for (int p = 0; p < NPROCS; p++) {
        if (pids[p] <= 0) continue;
        int status = 0;
        CHECK(waitpid(pids[p], &status, 0) == pids[p], "waitpid");
        if (WIFSIGNALED(status))
            CHECK(0, "process %d died of signal %d (%s)", p, WTERMSIG(status),
                  strsignal(WTERMSIG(status)));
        else
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "process %d: %d bad reads (exit status %d)", p, WEXITSTATUS(status),
                  WEXITSTATUS(status));
    }

    int entries, temps;
    uint64_t bytes;
    survey(dir, &entries, &bytes, &temps);
    printf("afterwards: %d entries, %.2f MB, %d temporaries\n", entries, (double)bytes / (1 << 20),
           temps);
    CHECK(temps == 0, "%d temporaries left behind", temps);
    /* every put evicts after itself, but one that finds another process evicting leaves
     * it to the next: the directory may end above the limit by what the last puts wrote */
    CHECK(bytes <= (1u << 20) + (uint64_t)NPROCS * (MAX_PAYLOAD + 200), "%.2f MB in a 1 MB cache",
          (double)bytes / (1 << 20));
    CHECK(cache_evict(builds[0], 1u << 20, NULL) >= 0, "a last eviction");
    survey(dir, &entries, &bytes, &temps);
    CHECK(bytes <= 1u << 20, "%.2f MB after a last eviction", (double)bytes / (1 << 20));

    /* what is left reads back exactly, or is a miss (vandalised last) */
    unsigned char *want = malloc(MAX_PAYLOAD);
    int good = 0, wrong = 0;
    for (int p = 0; want && p < NPROCS; p++)
        for (int k = p ? NSHARED : 0; k < NSHARED + NOWN; k++) {
            char text[64];
            CacheKey key = key_of(p, k, text);
            size_t wlen = payload(key.build, key.text, want), len = 0;
            unsigned char *got = cache_get(&key, &len);
            if (got) (len == wlen && !memcmp(got, want, wlen)) ? good++ : wrong++;
            free(got);
        }
    free(want);
    CHECK(wrong == 0, "%d entries read back wrong at the end", wrong);
    printf("at the end: %d entries read back exactly, %d wrong\n", good, wrong);

    remove_tree(root);
    return check_done("test_cache_procs", &st);
}
