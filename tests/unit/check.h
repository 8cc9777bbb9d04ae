/* check.h - a tiny test harness for the C test programs: CHECK records a failure with its
 * line and goes on; DONE prints "NAME: N passed, M failed" and gives the exit status. */
#ifndef NEREID_CHECK_H
#define NEREID_CHECK_H

#include <stdio.h>
#include <string.h>

typedef struct {
    int passed, failed;
} CheckState;

#define CHECK_AT(st, cond, ...)                                             \
    do {                                                                    \
        if (cond) (st)->passed++;                                           \
        else {                                                              \
            (st)->failed++;                                                 \
            printf("%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            printf(__VA_ARGS__);                                            \
            printf("\n");                                                   \
        }                                                                   \
    } while (0)

static inline int check_done(const char *name, const CheckState *st) {
    printf("%s: %d passed, %d failed\n", name, st->passed, st->failed);
    return st->failed ? 1 : 0;
}

#endif
