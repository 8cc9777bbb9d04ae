/* support.h - the small shared toolkit every stage uses: arenas (all compiler memory),
 * source files and locations, located diagnostics in clang's format, and the
 * internal-error abort. Nothing here holds global state: a Diag and an Arena are
 * owned by whoever compiles. */
#ifndef NEREID_SUPPORT_H
#define NEREID_SUPPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- arena: bump allocation in chunks, freed in one call ---- */
typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t size); /* zeroed, 16-byte aligned */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Grow an arena array: returns a copy with room for new_cap elements. */
void *arena_grow(Arena *a, void *old, size_t elem, size_t old_n, size_t new_cap);

/* Push onto an arena-backed vector held as (ptr, n, cap) fields. */
#define VEC_PUSH(arena, ptr, n, cap, val)                                         \
    do {                                                                          \
        if ((n) >= (cap)) {                                                       \
            size_t nc_ = (cap) ? (size_t)(cap)*2 : 8;                             \
            (ptr) = arena_grow((arena), (ptr), sizeof(*(ptr)), (size_t)(n), nc_); \
            (cap) = nc_;                                                          \
        }                                                                         \
        (ptr)[(n)++] = (val);                                                     \
    } while (0)

/* ---- name -> pointer map in an arena (namemap.c); keys are not copied ---- */
typedef struct NameMap {
    Arena *arena;
    const char **keys;
    void **vals;
    uint32_t cap, n, used; /* slots, live keys, slots ever taken (tombstones too) */
} NameMap;
void namemap_init(NameMap *m, Arena *arena);
void *namemap_get(const NameMap *m, const char *key); /* NULL if absent */
void namemap_put(NameMap *m, const char *key, void *val);
void namemap_del(NameMap *m, const char *key);

/* ---- growable heap string (owner frees) ---- */
typedef struct {
    char *data;
    size_t len, cap;
} StrBuf;
void sb_init(StrBuf *sb);
void sb_free(StrBuf *sb);
void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_putn(StrBuf *sb, const char *s, size_t n);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
const char *sb_cstr(StrBuf *sb); /* never NULL */

/* ---- sources and locations ---- */
typedef struct Source {
    const char *name; /* file name as given */
    const char *text; /* NUL-terminated copy */
    size_t len;
} Source;

typedef struct Loc {
    const Source *src; /* NULL: no location */
    int line, col;     /* 1-based; col counts bytes */
} Loc;

/* ---- diagnostics: collected into a buffer, printed or returned by the caller ---- */
typedef struct Diag {
    StrBuf out; /* every message, formatted like clang */
    int nerrors;
    int nwarnings;
    int max_errors; /* stop recording after this many (0: 20) */
} Diag;
void diag_init(Diag *d);
void diag_free(Diag *d);
void diag_error(Diag *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_verror(Diag *d, Loc loc, const char *fmt, va_list ap);
void diag_note(Diag *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(Diag *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- our bugs, not the user's: abort naming the place ---- */
_Noreturn void diag_die_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define NR_DIE(...) diag_die_at(__FILE__, __LINE__, __VA_ARGS__)
#define NR_ASSERT(c)                                  \
    do {                                              \
        if (!(c)) NR_DIE("assertion failed: %s", #c); \
    } while (0)

/* Milliseconds on a monotonic clock (stage timings). */
double clock_now_ms(void);
/* Milliseconds of CPU time the calling thread has used (what a compile costs when other
 * processes share the CPUs and wall time stretches). */
double clock_thread_cpu_ms(void);

/* Read a whole file or stream into malloc'd memory; NULL on failure (errno set: EFBIG
 * beyond NR_MAX_FILE_BYTES, so that reading /dev/zero ends). */
enum { NR_MAX_FILE_BYTES = 64 << 20 };
char *file_read(const char *path, size_t *len_out);
char *file_read_stream(FILE *f, size_t *len_out);
/* Is path (non-empty) a file this process may read, or with exec a regular file it may
 * execute? */
bool file_usable(const char *path, bool exec);
/* The CUDA toolkit's file rel ("bin/ptxas", "nvvm/libdevice/libdevice.10.bc") into buf (n
 * bytes): under $CUDA_HOME, then $CUDA_PATH, then /usr/local/cuda, the first that
 * file_usable accepts; NULL when none does. The one owner of where the toolkit is looked
 * for (libdevice, ptxas). */
const char *file_in_cuda_toolkit(const char *rel, bool exec, char *buf, size_t n);

#endif
