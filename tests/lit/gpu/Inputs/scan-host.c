/* scan-host.c - the host side of scan-host.nr: inputs, the kernel (an object made from its
 * LLVM IR) run by cta_emu.h, and every output checked against plain C.
 *   scan-host scan1d B WARPS | scan2d R C WARPS */
#include <math.h>

#include "cta_emu.h"

typedef uint16_t half;
__attribute__((weak)) void scan1d(int32_t *, int32_t *, float *, half *, int32_t *, int64_t *,
                                  float *, half *, int8_t *);
__attribute__((weak)) void scan2d(int32_t *, int32_t *,
                                  int32_t *); /* one object holds one of them */

static float from_half(half h) {
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e ? ldexpf((float)(m | 1024), e - 25) : ldexpf((float)m, -24);
    return h >> 15 ? -v : v;
}
static half to_half(float f) { /* exact for the small multiples of 1/4 used here */
    if (f == 0) return 0;
    int e;
    frexpf(fabsf(f), &e);
    int m = (int)ldexpf(fabsf(f), 11 - e);
    return (half)((f < 0) << 15 | (e + 14) << 10 | (m & 1023));
}

static int32_t *A, *Bv, *O;
static int64_t *Q;
static float *F, *G;
static half *H, *E;
static int8_t *Cv;
static void call1(void *p) { (void)p, scan1d(A, Bv, F, H, O, Q, G, E, Cv); }
static void call2(void *p) { (void)p, scan2d(A, Bv, O); }

static void check1d(int B, int W) {
    int R = B < 2048 ? 2048 / B : 1, n = R * B;
    A = calloc((size_t)B, 4), Bv = calloc((size_t)B, 4), F = calloc((size_t)B, 4),
    H = calloc((size_t)B, 2);
    O = calloc((size_t)n * 5, 4), Q = calloc((size_t)n, 8), G = calloc((size_t)n, 4),
    E = calloc((size_t)n, 2), Cv = calloc((size_t)n, 1);
    for (int i = 0; i < B; i++) {
        A[i] = i % 3 - 1 + (i % 7 == 0) * 2, Bv[i] = (i * 31) % 17 - 8 + (i % 97 == 3) * 100;
        F[i] = (float)((i * 5) % 9 - 4) * 0.25f, H[i] = to_half((float)((i * 3) % 5 - 2) * 0.25f);
    }
    emu_launch(1, 1, 1, 32 * W, call1, NULL);
    int32_t s = 0, x = 0;
    uint32_t h = 0, fa = 1, fb = 0;
    int64_t s64 = 0;
    float sf = 0;
    int8_t m8 = -128;
    int best = 0;
    for (int i = 0; i < B; i++) {
        s += Bv[i], x ^= Bv[i], s64 += (int64_t)Bv[i] * 1000000007, sf += F[i];
        h = i ? (uint32_t)A[i] * h + (uint32_t)Bv[i] : (uint32_t)Bv[i];
        fb = i ? fb * (uint32_t)A[i] + (uint32_t)Bv[i] * fa : (uint32_t)Bv[i],
        fa = i ? fa * (uint32_t)A[i] : (uint32_t)A[i];
        if ((int8_t)Bv[i] > m8) m8 = (int8_t)Bv[i];
        if (Bv[i] > Bv[best]) best = i;
        for (int r = 0; r < R; r++) {
            int at = r * B + i;
            EXPECT(O[at] == s, "cumsum[%d] row %d: %d, want %d", i, r, O[at], s);
            EXPECT((uint32_t)O[2 * n + at] == h, "recurrence[%d] row %d: %d, want %d", i, r,
                   O[2 * n + at], (int)h);
            EXPECT(Q[at] == s64, "i64 cumsum[%d]: %lld, want %lld", i, (long long)Q[at],
                   (long long)s64);
            EXPECT(G[at] == sf, "fp32 cumsum[%d]: %g, want %g", i, G[at], sf);
            EXPECT(Cv[at] == m8, "i8 running max[%d]: %d, want %d", i, Cv[at], m8);
        }
    }
    int32_t rs = 0;
    uint32_t rh = 0;
    float re = 0;
    for (int i = B - 1; i >= 0; i--) {
        rs += Bv[i], re += from_half(H[i]);
        rh = i < B - 1 ? rh * (uint32_t)A[i] + (uint32_t)Bv[i] : (uint32_t)Bv[i];
        for (int r = 0; r < R; r++) {
            int at = r * B + i;
            EXPECT(O[n + at] == rs, "reverse cumsum[%d]: %d, want %d", i, O[n + at], rs);
            EXPECT((uint32_t)O[3 * n + at] == rh, "reverse recurrence[%d]: %d, want %d", i,
                   O[3 * n + at], (int)rh);
            EXPECT(from_half(E[at]) == re, "fp16 reverse cumsum[%d]: %g, want %g", i,
                   from_half(E[at]), re);
        }
    }
    uint32_t want = fa + 3 * fb + 5 * (uint32_t)best + 7 * (uint32_t)x;
    for (int k = 0; k < n; k++)
        EXPECT((uint32_t)O[4 * n + k] == want, "reductions at %d: %u, want %u", k,
               (uint32_t)O[4 * n + k], want);
}

static void check2d(int R, int C, int W) {
    int n = R * C;
    A = calloc((size_t)n, 4), Bv = calloc((size_t)n, 4), O = calloc((size_t)n * 6, 4);
    for (int i = 0; i < n; i++) A[i] = (i * 7) % 5 - 2, Bv[i] = (i * 13) % 23 - 11;
    emu_launch(1, 1, 1, 32 * W, call2, NULL);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            int32_t s0 = 0, s1 = 0;
            for (int i = 0; i <= r; i++) s0 += Bv[i * C + c];
            for (int j = c; j < C; j++) s1 += Bv[r * C + j];
            uint32_t h0 = 0, h1 = 0, r0 = 0, r1 = 0, p0 = 1, p1 = 1; /* p: the products */
            for (int i = R - 1; i >= r; i--)
                h0 = i == R - 1 ? (uint32_t)Bv[i * C + c]
                                : h0 * (uint32_t)A[i * C + c] + (uint32_t)Bv[i * C + c];
            for (int j = 0; j <= c; j++)
                h1 =
                    j ? h1 * (uint32_t)A[r * C + j] + (uint32_t)Bv[r * C + j] : (uint32_t)Bv[r * C];
            for (int i = 0; i < R; i++) /* the product rule's derivative part */
                r0 = r0 * (uint32_t)A[i * C + c] + (uint32_t)Bv[i * C + c] * p0,
                p0 *= (uint32_t)A[i * C + c];
            for (int j = 0; j < C; j++)
                r1 = r1 * (uint32_t)A[r * C + j] + (uint32_t)Bv[r * C + j] * p1,
                p1 *= (uint32_t)A[r * C + j];
            int at = r * C + c;
            EXPECT(O[at] == s0, "cumsum axis 0 at (%d, %d): %d, want %d", r, c, O[at], s0);
            EXPECT(O[n + at] == s1, "reverse cumsum axis 1 at (%d, %d): %d, want %d", r, c,
                   O[n + at], s1);
            EXPECT((uint32_t)O[2 * n + at] == h0, "reverse recurrence axis 0 at (%d, %d)", r, c);
            EXPECT((uint32_t)O[3 * n + at] == h1, "recurrence axis 1 at (%d, %d)", r, c);
            EXPECT((uint32_t)O[4 * n + at] == r0 + 3 * r1,
                   "reduce along both axes at (%d, %d): %u, want %u", r, c, (uint32_t)O[4 * n + at],
                   r0 + 3 * r1);
            int32_t c0 = 0, c1 = 0; /* with a = 1 the product rule's sums */
            for (int i = 0; i < R; i++) c0 += Bv[i * C + c];
            for (int j = 0; j < C; j++) c1 += Bv[r * C + j];
            int32_t u = c0 + 3 * c1 + 5 * 6 * Bv[at];
            EXPECT(O[5 * n + at] == u, "equal registers at (%d, %d): %d, want %d", r, c,
                   O[5 * n + at], u);
        }
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "scan1d")) check1d(atoi(argv[2]), atoi(argv[3]));
    else if (argc >= 5 && !strcmp(argv[1], "scan2d"))
        check2d(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    else return printf("usage: scan-host scan1d B WARPS | scan2d R C WARPS\n"), 2;
    printf("%s: %d wrong\n", argv[1], bad);
    return bad != 0;
}
