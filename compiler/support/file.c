/* file.c - reading a whole source file or stream into memory (the CLI, `nereid opt`, and
 * nr_compile_file), with a size limit so that /dev/zero or a runaway pipe ends. */
#include "support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
