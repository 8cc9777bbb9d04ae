/* arena.c - bump allocator: every compilation owns one arena and frees it in one call,
 * so AST, IR and analysis tables never need individual frees. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Chunk {
    struct Chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} Chunk;

struct Arena {
    Chunk *head;
};

enum { CHUNK_MIN = 64 * 1024 };

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p) NR_DIE("out of memory allocating %zu bytes", n);
    return p;
}

Arena *arena_new(void) {
    Arena *a = xmalloc(sizeof *a);
    a->head = NULL;
    return a;
}

void arena_free(Arena *a) {
    if (!a) return;
    for (Chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

void *arena_alloc(Arena *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    Chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t cap = size > CHUNK_MIN ? size : CHUNK_MIN;
        c = xmalloc(sizeof(Chunk) + cap);
        c->size = cap;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void *arena_grow(Arena *a, void *old, size_t elem, size_t old_n, size_t new_cap) {
    void *p = arena_alloc(a, elem * new_cap);
    if (old && old_n) memcpy(p, old, elem * old_n);
    return p;
}
