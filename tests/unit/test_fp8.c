/* test_fp8.c - the fp8 codec (compiler/support/fp8.c), all five formats, against an independent
 * reference written here from the formats' definitions (not from fp8.c's table): every one
 * of the 256 bytes of each format decodes to the value its fields give (computed with pow);
 * encoding a decoded byte gives it back (every byte through fp8_bits, every value
 * below saturation through narrowing, and through fp32); rounding at the midpoint between
 * every pair of neighbouring values (ties to even; fp8e4b15 ties away from zero) and just
 * either side of it, both signs (the FNUZ formats' -0 becoming +0); saturation above the
 * saturation value and of infinities (the FNUZ formats: infinities to NaN); NaN to the
 * format's NaN byte; subnormals; and a sweep of fp32 values against a brute-force
 * nearest-value search. With --soft-reference it prints the table
 * tests/lit/gpu/fp8-soft-lli.nr compares the GPU back end's integer sequences with. */
#include "check.h"
#include "compiler/support/fp8.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

enum { NF = NR_FP8_FORMATS };

/* The formats as their definitions state them (Triton's dtype table, the OCP FP8 spec,
 * the FNUZ formats' NaN at 0x80), independently of fp8.c. */
static const struct Ref {
    const char *name;
    int ebits, bias;
    enum { NANS_NONE, NANS_7F, NANS_IEEE, NANS_80 } nans;
    bool ties_away;
    double sat; /* the largest value narrowing gives */
} ref[NF] = {
    [NR_FP8_E4M3] = {"fp8e4nv", 4, 7, NANS_7F, false, 448.0},
    [NR_FP8_E5M2] = {"fp8e5", 5, 15, NANS_IEEE, false, 57344.0},
    [NR_FP8_E4M3B15] = {"fp8e4b15", 4, 15, NANS_NONE, true, 1.75},
    [NR_FP8_E4M3FNUZ] = {"fp8e4b8", 4, 8, NANS_80, false, 240.0},
    [NR_FP8_E5M2FNUZ] = {"fp8e5b16", 5, 16, NANS_80, false, 57344.0},
};

static const char *fname(int f) { return ref[f].name; }

/* The value of byte b from its fields, written out independently of fp8.c. */
static double ref_decode(int f, uint8_t b, bool *nan) {
    int ebits = ref[f].ebits, mbits = 7 - ebits, bias = ref[f].bias;
    int s = b >> 7, e = (b >> mbits) & ((1 << ebits) - 1), m = b & ((1 << mbits) - 1);
    double sign = s ? -1.0 : 1.0;
    *nan = false;
    if (ref[f].nans == NANS_7F && e == (1 << ebits) - 1 && m == (1 << mbits) - 1)
        return *nan = true, NAN;
    if (ref[f].nans == NANS_80 && b == 0x80) return *nan = true, NAN;
    if (ref[f].nans == NANS_IEEE && e == (1 << ebits) - 1) {
        if (m) return *nan = true, NAN;
        return sign * INFINITY;
    }
    if (e == 0) return sign * (m / pow(2, mbits)) * pow(2, 1 - bias);
    return sign * (1 + m / pow(2, mbits)) * pow(2, e - bias);
}

static double rdec(int f, int b) {
    bool nan;
    return ref_decode(f, (uint8_t)b, &nan);
}

/* the byte narrowing gives for NaN, and the largest byte it gives */
static uint8_t ref_nan_byte(int f) {
    return ref[f].nans == NANS_80 ? 0x80 : ref[f].nans == NANS_NONE ? 0x7E : 0x7F;
}
static int ref_sat_code(int f) {
    for (int c = 0; c < 128; c++)
        if (rdec(f, c) == ref[f].sat) return c;
    return -1;
}

static bool same(double a, double b) { return a == b && signbit(a) == signbit(b); }

static void decode_all(int f) {
    static const int want_nans[NF] = {2, 6, 0, 1, 1};
    int bad = 0, nans = 0;
    for (int b = 0; b < 256; b++) {
        bool nan;
        double want = ref_decode(f, (uint8_t)b, &nan),
               got = fp8_to_double((NrFp8Format)f, (uint8_t)b);
        if (nan) {
            nans++;
            if (!isnan(got) || !fp8_is_nan_bits((NrFp8Format)f, (uint8_t)b)) bad++;
        } else if (!same(got, want) || fp8_is_nan_bits((NrFp8Format)f, (uint8_t)b)) {
            if (bad++ < 5)
                printf("  %s 0x%02x: decoded %.17g, want %.17g\n", fname(f), b, got, want);
        }
    }
    CHECK(bad == 0, "%s: %d bytes decode wrong", fname(f), bad);
    CHECK(nans == want_nans[f], "%s: %d NaN bytes", fname(f), nans);
}

static void known_values(void) {
    static const struct {
        NrFp8Format f;
        uint8_t b;
        double v;
    } k[] = {
        {NR_FP8_E4M3, 0x38, 1.0},
        {NR_FP8_E4M3, 0x7E, 448.0},
        {NR_FP8_E4M3, 0xFE, -448.0},
        {NR_FP8_E4M3, 0x08, 0x1p-6},
        {NR_FP8_E4M3, 0x07, 7 * 0x1p-9},
        {NR_FP8_E4M3, 0x01, 0x1p-9},
        {NR_FP8_E4M3, 0x78, 256.0},
        {NR_FP8_E4M3, 0x80, -0.0},
        {NR_FP8_E4M3, 0x40, 2.0},
        {NR_FP8_E5M2, 0x3C, 1.0},
        {NR_FP8_E5M2, 0x7B, 57344.0},
        {NR_FP8_E5M2, 0xFB, -57344.0},
        {NR_FP8_E5M2, 0x7C, INFINITY},
        {NR_FP8_E5M2, 0xFC, -INFINITY},
        {NR_FP8_E5M2, 0x04, 0x1p-14},
        {NR_FP8_E5M2, 0x01, 0x1p-16},
        {NR_FP8_E5M2, 0x03, 3 * 0x1p-16},
        {NR_FP8_E5M2, 0x80, -0.0},
        /* fp8e4b15: fp8e4nv's layout scaled by 2^-8, and 0x7F a number */
        {NR_FP8_E4M3B15, 0x78, 1.0},
        {NR_FP8_E4M3B15, 0x7E, 1.75},
        {NR_FP8_E4M3B15, 0x7F, 1.875},
        {NR_FP8_E4M3B15, 0xFF, -1.875},
        {NR_FP8_E4M3B15, 0x08, 0x1p-14},
        {NR_FP8_E4M3B15, 0x01, 0x1p-17},
        {NR_FP8_E4M3B15, 0x80, -0.0},
        {NR_FP8_E4M3B15, 0x38, 0x1p-8},
        /* fp8e4b8: bias 8, 240 the largest */
        {NR_FP8_E4M3FNUZ, 0x40, 1.0},
        {NR_FP8_E4M3FNUZ, 0x7F, 240.0},
        {NR_FP8_E4M3FNUZ, 0xFF, -240.0},
        {NR_FP8_E4M3FNUZ, 0x08, 0x1p-7},
        {NR_FP8_E4M3FNUZ, 0x01, 0x1p-10},
        {NR_FP8_E4M3FNUZ, 0x00, 0.0},
        {NR_FP8_E4M3FNUZ, 0x81, -0x1p-10},
        /* fp8e5b16: bias 16, 0x7C..0x7F numbers */
        {NR_FP8_E5M2FNUZ, 0x40, 1.0},
        {NR_FP8_E5M2FNUZ, 0x7F, 57344.0},
        {NR_FP8_E5M2FNUZ, 0x7C, 32768.0},
        {NR_FP8_E5M2FNUZ, 0x04, 0x1p-15},
        {NR_FP8_E5M2FNUZ, 0x01, 0x1p-17},
        {NR_FP8_E5M2FNUZ, 0xFD, -40960.0},
    };
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
        CHECK(same(fp8_to_double(k[i].f, k[i].b), k[i].v), "%s 0x%02x is %g", fname(k[i].f), k[i].b,
              k[i].v);
    CHECK(isnan(fp8_to_double(NR_FP8_E4M3FNUZ, 0x80)) &&
              isnan(fp8_to_double(NR_FP8_E5M2FNUZ, 0x80)),
          "FNUZ: 0x80 is NaN");
    static const double maxv[NF] = {448.0, 57344.0, 1.875, 240.0, 57344.0};
    static const uint8_t maxb[NF] = {0x7E, 0x7B, 0x7F, 0x7F, 0x7F};
    for (int f = 0; f < NF; f++) {
        const NrFp8Desc *D = fp8_desc((NrFp8Format)f);
        CHECK(fp8_max((NrFp8Format)f) == maxv[f] && fp8_max_bits((NrFp8Format)f) == maxb[f],
              "%s max", fname(f));
        CHECK(D->sat == ref[f].sat && D->sat_code == ref_sat_code(f) &&
                  D->nan_code == ref_nan_byte(f) && D->bias == ref[f].bias &&
                  D->mbits == 7 - ref[f].ebits && !strcmp(D->name, ref[f].name),
              "%s: the description", fname(f));
    }
}

/* every byte back through fp8_bits; every value narrowing can give back through
 * narrowing (from the double and from its fp32) and through fp8_round */
static void roundtrip(int f) {
    NrFp8Format F = (NrFp8Format)f;
    int bad = 0, sat = ref_sat_code(f);
    for (int b = 0; b < 256; b++) {
        double v = fp8_to_double(F, (uint8_t)b);
        if (fp8_bits(F, v) != b) bad++; /* every byte, NaNs, infinities and 1.875 too */
        if (isnan(v) || isinf(v) || (b & 0x7F) > sat) continue;
        if (fp8_from_double(F, v) != b) bad++;
        if (!same(fp8_round(F, v), v)) bad++;
        if (fp8_from_double(F, (double)(float)v) != b) bad++; /* every value is a float */
    }
    CHECK(bad == 0, "%s: %d bytes do not encode back to themselves", fname(f), bad);
}

/* the byte narrowing gives for a value rounded to code c with sign s */
static uint8_t signed_code(int f, int s, int c) {
    return (uint8_t)(s && !(ref[f].nans == NANS_80 && c == 0) ? 0x80 | c : c);
}

/* The positive values in increasing order: codes 0 .. the saturation code. */
static void midpoints(int f) {
    NrFp8Format F = (NrFp8Format)f;
    int bad = 0, max = ref_sat_code(f);
    for (int c = 0; c < max; c++) {
        double lo = rdec(f, c), hi = rdec(f, c + 1);
        if (!(lo < hi)) bad++;
        double mid = (lo + hi) / 2; /* exact: both are short binary fractions */
        int tie = ref[f].ties_away ? c + 1 : (c & 1) ? c + 1 : c;
        for (int s = 0; s < 2; s++) {
            double sg = s ? -1.0 : 1.0;
            if (fp8_from_double(F, sg * mid) != signed_code(f, s, tie)) bad++;
            if (fp8_from_double(F, sg * nextafter(mid, 0)) != signed_code(f, s, c)) bad++;
            if (fp8_from_double(F, sg * nextafter(mid, INFINITY)) != signed_code(f, s, c + 1))
                bad++;
            /* the same through fp32, which holds every midpoint exactly */
            if (fp8_from_double(F, (double)(float)(sg * mid)) != signed_code(f, s, tie)) bad++;
            if (fp8_from_double(F, (double)nextafterf((float)(sg * mid), 0)) !=
                signed_code(f, s, c))
                bad++;
        }
        if (bad && bad < 3)
            printf("  %s: midpoint of 0x%02x and 0x%02x (%g) wrong\n", fname(f), c, c + 1, mid);
    }
    CHECK(bad == 0, "%s: %d midpoint roundings wrong", fname(f), bad);
}

static void saturation(void) {
    /* E4M3: 448 is 1.75 * 2^8; the next step (480) does not exist: everything above 448 is 448 */
    static const double big4[] = {448.0, 449.0, 463.99, 464.0,  464.01,
                                  479.0, 480.0, 1e6,    3.4e38, INFINITY};
    for (size_t i = 0; i < sizeof big4 / sizeof *big4; i++) {
        CHECK(fp8_from_double(NR_FP8_E4M3, big4[i]) == 0x7E, "e4m3(%g) saturates", big4[i]);
        CHECK(fp8_from_double(NR_FP8_E4M3, -big4[i]) == 0xFE, "e4m3(-%g) saturates", big4[i]);
    }
    /* E5M2: 57344 is 1.75 * 2^15; infinities saturate too (satfinite) */
    static const double big5[] = {57344.0, 57345.0, 61439.0, 61440.0,
                                  65504.0, 65536.0, 1e9,     INFINITY};
    for (size_t i = 0; i < sizeof big5 / sizeof *big5; i++) {
        CHECK(fp8_from_double(NR_FP8_E5M2, big5[i]) == 0x7B, "e5m2(%g) saturates", big5[i]);
        CHECK(fp8_from_double(NR_FP8_E5M2, -big5[i]) == 0xFB, "e5m2(-%g) saturates", big5[i]);
    }
    /* fp8e4b15: Triton clamps at 1.75 (0x7E) before rounding: 1.875 (0x7F) is never made */
    static const double big15[] = {1.75,   1.8, 1.8125,  1.85, 1.875,
                                   1.9375, 2.0, 65504.0, 1e30, INFINITY};
    for (size_t i = 0; i < sizeof big15 / sizeof *big15; i++) {
        CHECK(fp8_from_double(NR_FP8_E4M3B15, big15[i]) == 0x7E, "e4b15(%g) saturates to 1.75",
              big15[i]);
        CHECK(fp8_from_double(NR_FP8_E4M3B15, -big15[i]) == 0xFE, "e4b15(-%g) saturates to -1.75",
              big15[i]);
    }
    CHECK(fp8_bits(NR_FP8_E4M3B15, 1.875) == 0x7F && fp8_bits(NR_FP8_E4M3B15, -1.875) == 0xFF,
          "e4b15: the constant 1.875 keeps its byte");
    /* FNUZ: finite values saturate; infinities become the NaN */
    static const double big8[] = {240.0, 240.5, 247.99, 248.0, 256.0, 1e6, 3.4e38};
    for (size_t i = 0; i < sizeof big8 / sizeof *big8; i++) {
        CHECK(fp8_from_double(NR_FP8_E4M3FNUZ, big8[i]) == 0x7F, "e4b8(%g) saturates", big8[i]);
        CHECK(fp8_from_double(NR_FP8_E4M3FNUZ, -big8[i]) == 0xFF, "e4b8(-%g) saturates", big8[i]);
    }
    static const double big16[] = {57344.0, 57345.0, 61439.0, 61440.0, 65504.0, 65536.0, 1e9};
    for (size_t i = 0; i < sizeof big16 / sizeof *big16; i++) {
        CHECK(fp8_from_double(NR_FP8_E5M2FNUZ, big16[i]) == 0x7F, "e5b16(%g) saturates", big16[i]);
        CHECK(fp8_from_double(NR_FP8_E5M2FNUZ, -big16[i]) == 0xFF, "e5b16(-%g) saturates",
              big16[i]);
    }
    for (int f = NR_FP8_E4M3FNUZ; f <= NR_FP8_E5M2FNUZ; f++) {
        CHECK(fp8_from_double((NrFp8Format)f, INFINITY) == 0x80 &&
                  fp8_from_double((NrFp8Format)f, -INFINITY) == 0x80,
              "%s: infinities become NaN", fname(f));
        CHECK(fp8_bits((NrFp8Format)f, INFINITY) == 0x80, "%s: bits(inf) is the NaN", fname(f));
    }
    CHECK(fp8_from_double(NR_FP8_E4M3, 447.99) == 0x7E, "447.99 rounds to 448");
    /* 256 .. 448 in steps of 32: 384 is 0x7C, 416 0x7D, 448 0x7E */
    CHECK(fp8_from_double(NR_FP8_E4M3, 400.0) == 0x7C, "400 ties to 384 (even)");
    CHECK(fp8_from_double(NR_FP8_E4M3, 400.01) == 0x7D, "400.01 rounds to 416");
    CHECK(fp8_from_double(NR_FP8_E4M3, 432.0) == 0x7E, "432 ties to 448 (even)");
    CHECK(fp8_from_double(NR_FP8_E4M3FNUZ, 232.0) == 0x7E, "e4b8: 232 ties to 224 (even)");
    CHECK(fp8_from_double(NR_FP8_E4M3B15, 1.5625) == 0x7D, "e4b15: 1.5625 ties away, to 1.625");
    CHECK(fp8_from_double(NR_FP8_E4M3B15, -1.5625) == 0xFD, "e4b15: -1.5625 ties away, to -1.625");
    CHECK(fp8_from_double(NR_FP8_E4M3B15, 1.6875) == 0x7E, "e4b15: 1.6875 ties to 1.75");
}

static void nan_zero_subnormals(void) {
    double neg_nan = -NAN;
    for (int f = 0; f < NF; f++) {
        NrFp8Format F = (NrFp8Format)f;
        uint8_t nb = ref_nan_byte(f);
        CHECK(fp8_from_double(F, NAN) == nb, "%s(NaN) is 0x%02x", fname(f), nb);
        CHECK(fp8_from_double(F, neg_nan) == nb, "%s(-NaN) is 0x%02x", fname(f), nb);
        CHECK(fp8_bits(F, NAN) == nb, "%s bits(a NaN from elsewhere) is 0x%02x", fname(f), nb);
        CHECK(ref[f].nans == NANS_NONE ? fp8_round(F, NAN) == 1.75 : isnan(fp8_round(F, NAN)),
              "%s round(NaN)", fname(f));
        uint8_t nz = ref[f].nans == NANS_80 ? 0x00 : 0x80; /* FNUZ: no -0 */
        CHECK(fp8_from_double(F, 0.0) == 0x00 && fp8_from_double(F, -0.0) == nz, "%s: signed zeros",
              fname(f));
        CHECK(fp8_from_double(F, 1e-300) == 0x00 && fp8_from_double(F, -4.9e-324) == nz,
              "%s: tiny values go to zero", fname(f));
        CHECK(same(fp8_round(F, -0.0), ref[f].nans == NANS_80 ? 0.0 : -0.0), "%s: round(-0)",
              fname(f));
    }
    CHECK(fp8_bits(NR_FP8_E5M2, INFINITY) == 0x7C && fp8_bits(NR_FP8_E5M2, -INFINITY) == 0xFC,
          "e5m2 inf bits");
    /* subnormals: 2^-9 (E4M3) and 2^-16 (E5M2) steps; half a step is a tie to 0 */
    CHECK(fp8_from_double(NR_FP8_E4M3, 0x1p-10) == 0x00, "2^-10 ties to 0");
    CHECK(fp8_from_double(NR_FP8_E4M3, 0x1.0001p-10) == 0x01, "above 2^-10 is 2^-9");
    CHECK(fp8_from_double(NR_FP8_E4M3, 3 * 0x1p-10) == 0x02, "1.5 steps ties to 2 steps");
    CHECK(fp8_from_double(NR_FP8_E4M3, 7.5 * 0x1p-9) == 0x08,
          "7.5 steps ties up into the first normal");
    CHECK(fp8_from_double(NR_FP8_E5M2, 0x1p-17) == 0x00, "2^-17 ties to 0");
    CHECK(fp8_from_double(NR_FP8_E5M2, -5 * 0x1p-17) == 0x82, "-2.5 steps ties to -2 steps");
    CHECK(fp8_from_double(NR_FP8_E5M2, 3.5 * 0x1p-16) == 0x04,
          "3.5 steps ties up into the first normal");
    /* fp8e4b15: 2^-17 steps, ties away */
    CHECK(fp8_from_double(NR_FP8_E4M3B15, 0x1p-18) == 0x01,
          "e4b15: half a step ties away, to 2^-17");
    CHECK(fp8_from_double(NR_FP8_E4M3B15, 0x1.fffp-19) == 0x00, "e4b15: below half a step is 0");
    CHECK(fp8_from_double(NR_FP8_E4M3B15, -5 * 0x1p-18) == 0x83,
          "e4b15: -2.5 steps ties away, to -3 steps");
    CHECK(fp8_from_double(NR_FP8_E4M3B15, 15 * 0x1p-18) == 0x08,
          "e4b15: 7.5 steps ties into the first normal");
    /* FNUZ: 2^-10 (e4b8) and 2^-17 (e5b16) steps; a negative rounding to zero is +0 */
    CHECK(fp8_from_double(NR_FP8_E4M3FNUZ, 0x1p-11) == 0x00, "e4b8: 2^-11 ties to 0");
    CHECK(fp8_from_double(NR_FP8_E4M3FNUZ, -0x1p-11) == 0x00, "e4b8: -2^-11 ties to +0");
    CHECK(fp8_from_double(NR_FP8_E4M3FNUZ, -3 * 0x1p-11) == 0x82,
          "e4b8: -1.5 steps ties to -2 steps");
    CHECK(fp8_from_double(NR_FP8_E5M2FNUZ, -0x1p-18) == 0x00, "e5b16: -half a step is +0");
    CHECK(fp8_from_double(NR_FP8_E5M2FNUZ, 3.5 * 0x1p-17) == 0x04,
          "e5b16: 3.5 steps ties up into the first normal");
}

/* The positive values of format f, by code (tab[c] = rdec(f, c)), and its saturation code. */
typedef struct RefTab {
    double v[128];
    int sat;
} RefTab;

static RefTab ref_tab(int f) {
    RefTab t;
    for (int c = 0; c < 128; c++) t.v[c] = rdec(f, c);
    t.sat = ref_sat_code(f);
    return t;
}

/* Brute force: the nearest value of codes 0 .. the saturation code, ties to the even code
 * (or away: the larger), saturating; NaN, infinities and the FNUZ zero as the formats say. */
static uint8_t ref_encode(int f, const RefTab *t, double x) {
    if (isnan(x) || (isinf(x) && ref[f].nans == NANS_80)) return ref_nan_byte(f);
    int max = t->sat;
    double a = fabs(x), best = INFINITY;
    int code = 0;
    for (int c = 0; c <= max; c++) {
        double d = fabs(t->v[c] - a);
        if (d < best || (d == best && (ref[f].ties_away || !(c & 1)))) best = d, code = c;
    }
    if (a >= ref[f].sat) code = max;
    return signed_code(f, signbit(x) != 0, code);
}

static void fp32_sweep(int f) {
    NrFp8Format F = (NrFp8Format)f;
    RefTab t = ref_tab(f);
    int bad = 0;
    long n = 0;
    /* every 16411th float bit pattern below inf (both signs), then the neighbourhood of
     * every fp8 value: about half a million inputs */
    for (uint64_t u = 0; u < 0x7F800000u; u += 16411, n += 2) {
        float x;
        uint32_t w = (uint32_t)u;
        memcpy(&x, &w, 4);
        if (fp8_from_double(F, x) != ref_encode(f, &t, x) && bad++ < 3)
            printf("  %s(%.9g) wrong\n", fname(f), (double)x);
        if (fp8_from_double(F, -x) != ref_encode(f, &t, -x) && bad++ < 3)
            printf("  %s(%.9g) wrong\n", fname(f), -(double)x);
    }
    for (int c = 0; c <= fp8_max_bits(F); c++) {
        float v = (float)rdec(f, c), x = v;
        for (int k = 0; k < 64; k++, n += 2) {
            x = nextafterf(x, INFINITY);
            if (fp8_from_double(F, x) != ref_encode(f, &t, x)) bad++;
            float y = nextafterf(v, -INFINITY);
            for (int j = 0; j < k; j++) y = nextafterf(y, -INFINITY);
            if (fp8_from_double(F, y) != ref_encode(f, &t, y)) bad++;
        }
    }
    static const double specials[] = {INFINITY, -INFINITY, NAN, 0.0, -0.0};
    for (size_t i = 0; i < sizeof specials / sizeof *specials; i++, n++)
        bad += fp8_from_double(F, specials[i]) != ref_encode(f, &t, specials[i]);
    CHECK(bad == 0, "%s: %d of %ld fp32 inputs round wrong", fname(f), bad, n);
}

/* --soft-reference: what tests/lit/gpu/fp8-soft-lli.nr's lowered kernel must print
 * (Inputs/fp8-soft-driver.ll): for every fp32 whose low 16 bits are 0, 1 or 0xffff, its
 * bits and its bytes in the five formats from fp32, then from the fp64 nudged by 2^-40
 * either way; then every byte widened to fp32 in the five formats (NaNs as 7fc00000). */
static void soft_reference(void) {
    static const uint32_t lo16[3] = {0, 1, 0xffff};
    static const double scale[3] = {1.0, 1.0 + 0x1p-40, 1.0 - 0x1p-40};
    for (uint32_t i = 0; i < 3 * 65536; i++) {
        uint32_t u = (i / 3) << 16 | lo16[i % 3];
        float x;
        memcpy(&x, &u, 4);
        double d = (double)x * scale[i % 3];
        printf("%08x", u);
        for (int f = 0; f < NF; f++) printf(" %02x", fp8_from_double((NrFp8Format)f, x));
        for (int f = 0; f < NF; f++) printf(" %02x", fp8_from_double((NrFp8Format)f, d));
        printf("\n");
    }
    for (int b = 0; b < 256; b++) {
        printf("%02x", b);
        for (int f = 0; f < NF; f++) {
            float v = (float)fp8_to_double((NrFp8Format)f, (uint8_t)b);
            uint32_t w;
            memcpy(&w, &v, 4);
            printf(" %08x", isnan(v) ? 0x7fc00000u : w);
        }
        printf("\n");
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--soft-reference")) {
        soft_reference();
        return 0;
    }
    known_values();
    for (int f = 0; f < NF; f++) {
        decode_all(f);
        roundtrip(f);
        midpoints(f);
        fp32_sweep(f);
    }
    saturation();
    nan_zero_subnormals();
    return check_done("test_fp8", &st);
}
