/* options.c - the option table of options.h. */
#include "options.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RANGE_TEXT(lo, hi, pow2) \
    ((pow2) ? "a power of two from " #lo " to " #hi : "from " #lo " to " #hi)

static const OptionInfo table[OPT_COUNT] = {
#define X(id, name, def, lo, hi, pow2) [id] = {name, def, lo, hi, pow2, RANGE_TEXT(lo, hi, pow2)},
    NR_OPTIONS(X)
#undef X
};

const OptionInfo *option_info(OptionId id) { return id >= 0 && id < OPT_COUNT ? &table[id] : NULL; }

const OptionInfo *option_find(const char *name) {
    for (int i = 0; name && i < OPT_COUNT; i++)
        if (!strcmp(table[i].name, name)) return &table[i];
    return NULL;
}

bool option_valid(OptionId id, long long v) {
    const OptionInfo *o = option_info(id);
    return o && v >= o->min && v <= o->max && (!o->pow2 || (v & (v - 1)) == 0);
}

int option_or_default(OptionId id, int v) { return v > 0 ? v : table[id].def; }

int option_compile_threads(int jobs) {
    const char *env = getenv("NEREID_COMPILE_THREADS");
    long n = 0;
    if (env && *env) {
        char *end;
        n = strtol(env, &end, 10);
        if (*end || n < 1) n = 0; /* not a positive integer: the default */
    }
    if (n < 1) n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > jobs) n = jobs;
    return n < 1 ? 1 : (int)n;
}

bool option_tma_pointers(void) {
    const char *env = getenv("NEREID_TMA_POINTERS");
    return !(env && !strcmp(env, "0"));
}
