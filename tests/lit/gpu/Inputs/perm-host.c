/* perm-host.c - the host side of perm-host.nr: inputs, the kernel run by cta_emu.h, and
 * every output checked against plain C (qsort in the total order, flips, lookups, counts).
 *   perm-host perm1d B WARPS | perm2d R C WARPS */
#include <math.h>
#include <stdbool.h>

#include "cta_emu.h"

__attribute__((weak)) void perm1d(float *, int32_t *, uint8_t *, int64_t *, float *, int32_t *,
                                  uint8_t *);
__attribute__((weak)) void perm2d(float *, int32_t *, int32_t *, float *,
                                  int32_t *); /* one object holds one */

static uint32_t fkey(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}
static int cmp_f(const void *a, const void *b) {
    uint32_t x = fkey(*(const float *)a), y = fkey(*(const float *)b);
    return x < y ? -1 : x > y;
}
static int cmp_i(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}
static int cmp_u8(const void *a, const void *b) {
    return *(const uint8_t *)a - *(const uint8_t *)b;
}
static bool same(float a, float b) { return !memcmp(&a, &b, 4); }

static float *X, *O;
static int32_t *Z, *P, *IX;
static uint8_t *U, *Q;
static int64_t *IX64;
static void call1(void *a) { (void)a, perm1d(X, Z, U, IX64, O, P, Q); }
static void call2(void *a) { (void)a, perm2d(X, Z, IX, O, P); }

static float input(int i) {
    static const float sp[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -1e-40f, 3.5f};
    return i % 7 == 0 ? sp[(i / 7) % 9] : (float)((i * 37) % 101 - 50) * 0.25f;
}

static void check1d(int B, int W) {
    int R = B < 2048 ? 2048 / B : 1, n = R * B;
    X = malloc(4 * (size_t)B), Z = malloc(4 * (size_t)B), U = malloc((size_t)B),
    IX64 = malloc(8 * (size_t)B);
    O = calloc(3 * (size_t)n, 4), P = calloc(4 * (size_t)n, 4), Q = calloc((size_t)n, 1);
    for (int i = 0; i < B; i++) {
        X[i] = input(i), Z[i] = (i * 7919) % (B + 5) - 3, U[i] = (uint8_t)(i * 151);
        IX64[i] = (int64_t)((i * 31) % (3 * B)) - B; /* negative and past the end too */
    }
    emu_launch(1, 1, 1, 32 * W, call1, NULL);
    float *xs = malloc(4 * (size_t)B);
    int32_t *zs = malloc(4 * (size_t)B), *h = calloc((size_t)B, 4);
    uint8_t *us = malloc((size_t)B);
    memcpy(xs, X, 4 * (size_t)B), memcpy(zs, Z, 4 * (size_t)B), memcpy(us, U, (size_t)B);
    qsort(xs, (size_t)B, 4, cmp_f), qsort(zs, (size_t)B, 4, cmp_i), qsort(us, (size_t)B, 1, cmp_u8);
    for (int i = 0; i < B; i++)
        if (Z[i] >= 0 && Z[i] < B && Z[i] % 3 != 0) h[Z[i]]++;
    for (int r = 0; r < R; r++)
        for (int i = 0; i < B; i++) {
            int at = r * B + i;
            EXPECT(same(O[at], xs[i]), "sort[%d]: %g, want %g", i, O[at], xs[i]);
            EXPECT(same(O[n + at], xs[B - 1 - i]), "sort descending[%d]: %g, want %g", i, O[n + at],
                   xs[B - 1 - i]);
            EXPECT(same(O[2 * n + at], X[B - 1 - i]), "flip[%d]: %g, want %g", i, O[2 * n + at],
                   X[B - 1 - i]);
            EXPECT(P[at] == zs[B - 1 - i], "i32 sort descending[%d]: %d, want %d", i, P[at],
                   zs[B - 1 - i]);
            EXPECT(P[n + at] == Z[IX64[i] & (B - 1)], "gather[%d]: %d, want %d", i, P[n + at],
                   Z[IX64[i] & (B - 1)]);
            EXPECT(P[2 * n + at] == h[i], "histogram[%d]: %d, want %d", i, P[2 * n + at], h[i]);
            EXPECT(Q[at] == us[i], "u8 sort[%d]: %d, want %d", i, Q[at], us[i]);
        }
    for (int r = 0; r < R; r++)
        for (int i = 0; i < B / 2; i++)
            EXPECT(P[3 * n + r * (B / 2) + i] == zs[B - 1 - i], "topk[%d]: %d, want %d", i,
                   P[3 * n + r * (B / 2) + i], zs[B - 1 - i]);
}

static void check2d(int R, int C, int W) {
    int n = R * C;
    X = malloc(4 * (size_t)n), Z = malloc(4 * (size_t)n), IX = malloc(4 * (size_t)n),
    O = calloc(4 * (size_t)n, 4), P = calloc(3 * (size_t)n, 4);
    for (int i = 0; i < n; i++)
        X[i] = input(i), Z[i] = (i * 7919) % 1009 - 500, IX[i] = (i * 37) % 1000 - 300;
    emu_launch(1, 1, 1, 32 * W, call2, NULL);
    float *line = malloc(4 * (size_t)(R > C ? R : C));
    int32_t *zl = malloc(4 * (size_t)R);
    for (int c = 0; c < C; c++) {
        for (int r = 0; r < R; r++) line[r] = X[r * C + c], zl[r] = Z[r * C + c];
        qsort(line, (size_t)R, 4, cmp_f), qsort(zl, (size_t)R, 4, cmp_i);
        for (int r = 0; r < R; r++) {
            EXPECT(same(O[r * C + c], line[r]), "sort axis 0 at (%d, %d)", r, c);
            EXPECT(P[2 * n + r * C + c] == zl[R - 1 - r], "i32 sort axis 0 descending at (%d, %d)",
                   r, c);
        }
    }
    for (int r = 0; r < R; r++) {
        memcpy(line, X + r * C, 4 * (size_t)C);
        qsort(line, (size_t)C, 4, cmp_f);
        for (int c = 0; c < C; c++)
            EXPECT(same(O[n + r * C + c], line[C - 1 - c]), "sort axis 1 descending at (%d, %d)", r,
                   c);
    }
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            int at = r * C + c;
            EXPECT(same(O[2 * n + at], X[(R - 1 - r) * C + c]), "flip axis 0 at (%d, %d)", r, c);
            EXPECT(same(O[3 * n + at], X[r * C + C - 1 - c]), "flip axis 1 at (%d, %d)", r, c);
            EXPECT(P[at] == Z[(IX[at] & (R - 1)) * C + c], "gather axis 0 at (%d, %d)", r, c);
            EXPECT(P[n + at] == Z[r * C + (IX[at] & (C - 1))], "gather axis 1 at (%d, %d)", r, c);
        }
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "perm1d")) check1d(atoi(argv[2]), atoi(argv[3]));
    else if (argc >= 5 && !strcmp(argv[1], "perm2d"))
        check2d(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    else return printf("usage: perm-host perm1d B WARPS | perm2d R C WARPS\n"), 2;
    printf("%s: %d wrong\n", argv[1], bad);
    return bad != 0;
}
