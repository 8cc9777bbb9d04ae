/* lang_harness.h - what the language tests (test_lang*.c) share: one CPU context, kernels
 * compiled from strings with defines, compile-error checks, and independent host models of
 * fp16/bf16 rounding (frexp/ldexp, not the runtime's). Each test program includes it once. */
#ifndef NEREID_LANG_HARNESS_H
#define NEREID_LANG_HARNESS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nereid.h"

static CheckState st;
static nr_context *ctx;
static nr_module *mods[256];
static int nmods;

#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

/* Compile src with defines given as "A=1 B=relu" and return its kernel "k"; a compile
 * failure is a failed check (with the diagnostics) and gives NULL. */
static inline nr_kernel *build_at(int line, const char *src, const char *defs) {
    nr_define d[16];
    char buf[512];
    int n = 0;
    if (defs) {
        snprintf(buf, sizeof buf, "%s", defs);
        char *save = NULL;
        for (char *t = strtok_r(buf, " ", &save); t && n < 16; t = strtok_r(NULL, " ", &save)) {
            char *eq = strchr(t, '=');
            if (!eq) continue;
            *eq = 0;
            d[n].name = t, d[n].value = eq + 1, n++;
        }
    }
    nr_compile_options o = {.defines = d, .num_defines = n};
    nr_module *m = NULL;
    nr_status s = nr_compile_source(ctx, src, strlen(src), "test.nr", &o, &m);
    if (s != NR_OK) {
        st.failed++;
        printf("%s:%d: check failed: compile: %s\n%s\n", __FILE__, line, nr_status_string(s),
               nr_last_error(ctx));
        return NULL;
    }
    st.passed++;
    if (nmods < 256) mods[nmods++] = m;
    nr_kernel *k = NULL;
    if (nr_module_get_kernel(m, "k", &k) != NR_OK) {
        st.failed++;
        printf("%s:%d: check failed: no kernel 'k': %s\n", __FILE__, line, nr_last_error(ctx));
        return NULL;
    }
    return k;
}
#define BUILD(src, defs) build_at(__LINE__, src, defs)

/* Compile and expect a compile error whose message contains want (NULL: any). */
static inline void compile_error_at(int line, const char *src, const char *defs, const char *want) {
    nr_define d[16];
    char buf[512];
    int n = 0;
    if (defs) {
        snprintf(buf, sizeof buf, "%s", defs);
        char *save = NULL;
        for (char *t = strtok_r(buf, " ", &save); t && n < 16; t = strtok_r(NULL, " ", &save)) {
            char *eq = strchr(t, '=');
            if (!eq) continue;
            *eq = 0;
            d[n].name = t, d[n].value = eq + 1, n++;
        }
    }
    nr_compile_options o = {.defines = d, .num_defines = n};
    nr_module *m = NULL;
    nr_status s = nr_compile_source(ctx, src, strlen(src), "test.nr", &o, &m);
    if (s == NR_OK) nr_module_destroy(m);
    bool ok = s == NR_ERR_COMPILE && (!want || strstr(nr_last_error(ctx), want));
    if (ok) st.passed++;
    else {
        st.failed++;
        printf("%s:%d: check failed: expected a compile error%s%s%s, got status %s: %s\n", __FILE__,
               line, want ? " containing '" : "", want ? want : "", want ? "'" : "",
               nr_status_string(s), nr_last_error(ctx));
    }
}
#define COMPILE_ERROR(src, defs, want) compile_error_at(__LINE__, src, defs, want)

static inline nr_status launch_at(int line, nr_kernel *k, unsigned g0, unsigned g1, unsigned g2,
                                  const nr_arg *args, int n, bool expect_ok) {
    unsigned grid[3] = {g0, g1, g2};
    nr_status s = nr_launch(k, grid, args, n, NULL);
    if (expect_ok) {
        if (s == NR_OK) st.passed++;
        else {
            st.failed++;
            printf("%s:%d: check failed: launch: %s: %s\n", __FILE__, line, nr_status_string(s),
                   nr_last_error(ctx));
        }
    }
    return s;
}
#define RUN(k, g0, g1, g2, ...)                                 \
    launch_at(__LINE__, k, g0, g1, g2, (nr_arg[]){__VA_ARGS__}, \
              (int)(sizeof((nr_arg[]){__VA_ARGS__}) / sizeof(nr_arg)), true)
#define RUN_STATUS(k, g0, g1, g2, ...)                          \
    launch_at(__LINE__, k, g0, g1, g2, (nr_arg[]){__VA_ARGS__}, \
              (int)(sizeof((nr_arg[]){__VA_ARGS__}) / sizeof(nr_arg)), false)

static inline nr_devptr dev_from(const void *host, size_t bytes) {
    nr_devptr p = 0;
    if (nr_malloc(ctx, bytes, &p) != NR_OK) {
        printf("nr_malloc failed: %s\n", nr_last_error(ctx));
        exit(1);
    }
    if (host) nr_memcpy_htod(ctx, p, host, bytes);
    else nr_memset(ctx, p, 0, bytes);
    return p;
}

static inline void dev_to(void *host, nr_devptr p, size_t bytes) {
    if (nr_memcpy_dtoh(ctx, host, p, bytes) != NR_OK) {
        printf("nr_memcpy_dtoh failed: %s\n", nr_last_error(ctx));
        exit(1);
    }
}

/* Round x to a binary format with mbits fraction bits and minimum normal exponent emin,
 * to nearest even, overflowing to infinity beyond maxv. */
static inline double round_fmt(double x, int mbits, int emin, double maxv) {
    if (x == 0 || isnan(x) || isinf(x)) return x;
    int e;
    frexp(x, &e);
    e -= 1;
    if (e < emin) e = emin;
    double r = ldexp(rint(ldexp(x, mbits - e)), e - mbits);
    if (fabs(r) > maxv) r = copysign(INFINITY, x);
    return r;
}
static inline double r16(double x) { return round_fmt(x, 10, -14, 65504.0); }
static inline double rbf(double x) { return round_fmt(x, 7, -126, ldexp(255.0, 120)); }

/* The bits of an exactly representable value. */
static inline uint16_t enc_fmt(double x, int mbits, int ebits) {
    int bias = (1 << (ebits - 1)) - 1;
    uint16_t sign = signbit(x) ? (uint16_t)(1u << (mbits + ebits)) : 0;
    uint16_t inf = (uint16_t)(((1u << ebits) - 1) << mbits);
    x = fabs(x);
    if (isnan(x)) return (uint16_t)(sign | inf | (1u << (mbits - 1)));
    if (isinf(x)) return sign | inf;
    if (x == 0) return sign;
    int e;
    frexp(x, &e);
    e -= 1;
    if (e < 1 - bias) return (uint16_t)(sign | (uint16_t)llrint(ldexp(x, mbits - (1 - bias))));
    return (uint16_t)(sign | (uint16_t)((e + bias) << mbits) |
                      (uint16_t)llrint((ldexp(x, -e) - 1) * (1 << mbits)));
}
static inline double dec_fmt(uint16_t h, int mbits, int ebits) {
    int bias = (1 << (ebits - 1)) - 1;
    int s = h >> (mbits + ebits), E = (h >> mbits) & ((1 << ebits) - 1), M = h & ((1 << mbits) - 1);
    double v;
    if (E == (1 << ebits) - 1) v = M ? NAN : INFINITY;
    else if (E == 0) v = ldexp(M, 1 - bias - mbits);
    else v = ldexp(M + (1 << mbits), E - bias - mbits);
    return s ? -v : v;
}
static inline uint16_t h16(double x) { return enc_fmt(r16(x), 10, 5); }
static inline double f16(uint16_t h) { return dec_fmt(h, 10, 5); }
static inline uint16_t hbf(double x) { return enc_fmt(rbf(x), 7, 8); }
static inline double fbf(uint16_t h) { return dec_fmt(h, 7, 8); }

#endif
