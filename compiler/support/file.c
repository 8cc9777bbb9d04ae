/* file.c - reading a whole source file or stream into memory (the CLI, `nereid opt`, and
 * nr_compile_file), with a size limit so that /dev/zero or a runaway pipe ends; finding
 * the CUDA toolkit's files. */
#include "support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

char *file_read_stream(FILE *f, size_t *len_out) {
    errno = 0;
    StrBuf sb;
    sb_init(&sb);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (sb.len + n > NR_MAX_FILE_BYTES) { /* /dev/zero, a runaway pipe: no source is this big */
            sb_free(&sb);
            errno = EFBIG;
            return NULL;
        }
        sb_putn(&sb, buf, n);
    }
    if (ferror(f)) {
        int e = errno; /* fread's reason: EISDIR for a directory, ... */
        sb_free(&sb);
        errno = e ? e : EIO;
        return NULL;
    }
    if (!sb.data) sb_putn(&sb, "", 0);
    *len_out = sb.len;
    return sb.data;
}

char *file_read(const char *path, size_t *len_out) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = file_read_stream(f, len_out);
    int e = errno;
    fclose(f);
    errno = e;
    return text;
}

bool file_usable(const char *path, bool exec) {
    if (!path || !*path) return false;
    if (!exec) return access(path, R_OK) == 0;
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

const char *file_in_cuda_toolkit(const char *rel, bool exec, char *buf, size_t n) {
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (int i = 0; i < 3; i++) {
        if (!roots[i] || !*roots[i]) continue;
        snprintf(buf, n, "%s/%s", roots[i], rel);
        if (file_usable(buf, exec)) return buf;
    }
    return NULL;
}
