/* namemap.c - a map from names to pointers, for the lookups that would otherwise scan a
 * list per use (functions of a module, module-level names): open addressing with linear
 * probing, FNV-1a hashes, tombstones for removals. Keys are not copied: they must live as
 * long as the map (they are arena strings everywhere it is used). Memory comes from the
 * map's arena, so there is nothing to free. */
#include <string.h>

#include "support.h"

#define TOMBSTONE ((const char *)1)

static uint32_t hash(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

void namemap_init(NameMap *m, Arena *arena) { memset(m, 0, sizeof *m), m->arena = arena; }

/* The slot of key, or of the first free slot on its probe path (cap > 0). */
static uint32_t probe(const NameMap *m, const char *key, bool *found) {
    uint32_t mask = m->cap - 1, i = hash(key) & mask, free_slot = UINT32_MAX;
    for (;; i = (i + 1) & mask) {
        const char *k = m->keys[i];
        if (!k) break;
        if (k == TOMBSTONE) {
            if (free_slot == UINT32_MAX) free_slot = i;
        } else if (!strcmp(k, key)) {
            *found = true;
            return i;
        }
    }
    *found = false;
    return free_slot != UINT32_MAX ? free_slot : i;
}

static void grow(NameMap *m) {
    NameMap old = *m;
    m->cap = old.cap ? old.cap * 2 : 16;
    m->keys = arena_alloc(m->arena, sizeof *m->keys * m->cap);
    m->vals = arena_alloc(m->arena, sizeof *m->vals * m->cap);
    m->used = m->n = 0;
    for (uint32_t i = 0; i < old.cap; i++)
        if (old.keys[i] && old.keys[i] != TOMBSTONE) namemap_put(m, old.keys[i], old.vals[i]);
}

void *namemap_get(const NameMap *m, const char *key) {
    if (!m->n) return NULL;
    bool found;
    uint32_t i = probe(m, key, &found);
    return found ? m->vals[i] : NULL;
}

void namemap_put(NameMap *m, const char *key, void *val) {
    if ((m->used + 1) * 4 > m->cap * 3) grow(m); /* at most 3/4 full, tombstones included */
    bool found;
    uint32_t i = probe(m, key, &found);
    if (!found) {
        if (!m->keys[i]) m->used++;
        m->keys[i] = key;
        m->n++;
    }
    m->vals[i] = val;
}

void namemap_del(NameMap *m, const char *key) {
    if (!m->n) return;
    bool found;
    uint32_t i = probe(m, key, &found);
    if (!found) return;
    m->keys[i] = TOMBSTONE;
    m->vals[i] = NULL;
    m->n--;
}
