/* replay.c - runs a libFuzzer harness (fuzz_compile.c or fuzz_ir.c, linked with it) over
 * the files of a corpus, without libFuzzer: so that `make test` replays the regression
 * corpus (tests/fuzz/corpus/) with the ordinary compiler, under ASan and UBSan in
 * build-san/. The harness aborts on a finding (a crash, a sanitizer report, an error
 * without a location, an internal error); this prints the input's name first, so a
 * failure says which file it was.
 *
 *   replay_compile DIR_OR_FILE...    (files in a directory in name order)
 *
 * Ends with "NAME: N inputs, none failed". */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *bigger = realloc(buf, cap *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    if (!buf) return fprintf(stderr, "replay: out of memory reading %s\n", path), 1;
    fprintf(stderr, "replay: %s\n", path); /* named before it runs: an abort shows which */
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv) {
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    LLVMFuzzerInitialize(&argc, &argv);
    int inputs = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            bad++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad += run_file(argv[i]), inputs++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        char **names = NULL;
        size_t n = 0, cap = 0;
        for (struct dirent *e; d && (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            if (n == cap) {
                char **bigger = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
                if (!bigger) break;
                names = bigger;
            }
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            if (!(names[n] = malloc(len))) break;
            snprintf(names[n++], len, "%s/%s", argv[i], e->d_name);
        }
        if (d) closedir(d);
        qsort(names, n, sizeof *names, cmp);
        for (size_t j = 0; j < n; j++) {
            bad += run_file(names[j]), inputs++;
            free(names[j]);
        }
        free(names);
    }
    if (inputs == 0) bad++, fprintf(stderr, "replay: no inputs\n");
    printf("%s: %d inputs, %s\n", name, inputs, bad ? "some could not be read" : "none failed");
    return bad ? 1 : 0;
}
