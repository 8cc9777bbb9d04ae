/* ptxas.c - finding and running NVIDIA's ptxas (ptxas.h). */
#include "ptxas.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const char *ptxas_find(char *buf, size_t n) {
    const char *env = getenv("NEREID_PTXAS");
    if (env) {
        if (!*env || !strcmp(env, "none") || !file_usable(env, true)) return NULL;
        snprintf(buf, n, "%s", env);
        return buf;
    }
    env = getenv("TRITON_PTXAS_PATH");
    if (file_usable(env, true)) {
        snprintf(buf, n, "%s", env);
        return buf;
    }
    if (file_in_cuda_toolkit("bin/ptxas", true, buf, n)) return buf;
    const char *path = getenv("PATH");
    for (const char *s = path ? path : ""; *s;) {
        const char *e = strchr(s, ':');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len) {
            snprintf(buf, n, "%.*s/ptxas", (int)len, s);
            if (file_usable(buf, true)) return buf;
        }
        s += len + (e ? 1 : 0);
    }
    return NULL;
}

/* How long ptxas may run: NEREID_PTXAS_TIMEOUT seconds when that is a positive number,
 * else 600 (Triton's largest kernels take ptxas two minutes and more). */
static double time_limit(void) {
    const char *e = getenv("NEREID_PTXAS_TIMEOUT");
    char *end = NULL;
    double v = e && *e ? strtod(e, &end) : 0;
    return end && *end == '\0' && v > 0 ? v : 600;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Wait for pid until it ends (its status in *status; returns pid), waitpid fails (-1),
 * or `limit` seconds pass (it is killed: returns 0). Polls, from 0.1 ms between looks up
 * to 1 ms, so that a compile of a few milliseconds is not made to wait longer. */
static pid_t wait_limited(pid_t pid, int *status, double limit) {
    double start = now_s();
    long nap_ns = 100000;
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid) return pid;
        if (w < 0 && errno != EINTR) return -1;
        if (now_s() - start >= limit) {
            kill(pid, SIGKILL);
            while (waitpid(pid, status, 0) < 0 && errno == EINTR) {}
            return 0;
        }
        struct timespec nap = {0, nap_ns};
        nanosleep(&nap, NULL);
        if (nap_ns < 1000000) nap_ns *= 2;
    }
}

static bool write_all(const char *path, const char *data, size_t len) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    while (len) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            close(fd);
            return false;
        }
        data += w, len -= (size_t)w;
    }
    return close(fd) == 0;
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *data = file_read_stream(f, len);
    fclose(f);
    return data;
}

int ptxas_run(const char *ptxas, const char *arch, const char *const *extra, const char *ptx,
              size_t len, unsigned char **cubin, size_t *cubin_len, StrBuf *log) {
    *cubin = NULL, *cubin_len = 0;
    const char *tmp = getenv("TMPDIR");
    char dir[4096], in[4200], out[4200], logf[4200], archopt[64];
    snprintf(dir, sizeof dir, "%s/nereid-ptxas-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        if (log)
            sb_printf(log, "ptxas: cannot make a temporary folder %s: %s\n", dir, strerror(errno));
        return -1;
    }
    snprintf(in, sizeof in, "%s/kernel.ptx", dir);
    snprintf(out, sizeof out, "%s/kernel.cubin", dir);
    snprintf(logf, sizeof logf, "%s/log", dir);
    snprintf(archopt, sizeof archopt, "-arch=%s", arch);
    int rc = -1;
    if (!write_all(in, ptx, len)) {
        if (log) sb_printf(log, "ptxas: cannot write %s: %s\n", in, strerror(errno));
        goto done;
    }
    const char *argv[64];
    int na = 0;
    argv[na++] = ptxas;
    for (int i = 0; extra && extra[i] && na < 58; i++) argv[na++] = extra[i];
    argv[na++] = archopt, argv[na++] = "-o", argv[na++] = out, argv[na++] = in, argv[na] = NULL;
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa)) {
        if (log) sb_puts(log, "ptxas: out of memory\n");
        goto done;
    }
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, logf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int err = posix_spawn(&pid, ptxas, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err) {
        if (log) sb_printf(log, "ptxas: cannot run %s: %s\n", ptxas, strerror(err));
        goto done;
    }
    int status = 0;
    double limit = time_limit();
    pid_t w = wait_limited(pid, &status, limit);
    int wait_errno = errno;
    size_t loglen = 0;
    char *text = read_all(logf, &loglen);
    if (log && text) sb_putn(log, text, loglen);
    free(text);
    if (w < 0) {
        if (log) sb_printf(log, "ptxas: waiting for %s: %s\n", ptxas, strerror(wait_errno));
    } else if (w == 0) {
        if (log)
            sb_printf(
                log,
                "ptxas: %s -arch=%s did not finish within %g s (NEREID_PTXAS_TIMEOUT): killed\n",
                ptxas, arch, limit);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        *cubin = (unsigned char *)read_all(out, cubin_len);
        if (*cubin && *cubin_len) rc = 0;
        else if (log) sb_printf(log, "ptxas: %s wrote no cubin\n", ptxas);
        if (rc) free(*cubin), *cubin = NULL, *cubin_len = 0;
    } else if (log) {
        if (WIFEXITED(status))
            sb_printf(log, "ptxas: %s -arch=%s exited with status %d\n", ptxas, arch,
                      WEXITSTATUS(status));
        else
            sb_printf(log, "ptxas: %s -arch=%s was killed by signal %d\n", ptxas, arch,
                      WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
done:
    unlink(in), unlink(out), unlink(logf);
    rmdir(dir);
    return rc;
}
