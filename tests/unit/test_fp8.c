/* test_fp8.c - the fp8 codec (runtime/fp8.c) against an independent reference: every one
 * of the 256 bytes of each format decodes to the value its fields give (computed here
 * with pow, not with the codec's arithmetic); encoding a decoded byte gives it back (all
 * non-NaN bytes, and every byte through nr_fp8_bits); rounding to nearest even at the
 * midpoint between every pair of neighbouring values, and just either side of it;
 * saturation above the largest finite value and of infinities; NaN to 0x7F; subnormals;
 * and a sweep of fp32 values against a brute-force nearest-value search. With
 * --soft-reference it prints the table tests/lit/gpu/fp8-soft-lli.nr compares the GPU
 * back end's sm_80 conversions with. */
#include "runtime/fp8.h"
#include "tests/unit/check.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

static const char *fname(NrFp8Format f) { return f == NR_FP8_E4M3 ? "fp8e4nv" : "fp8e5"; }

/* The value of byte b from its fields, written out independently of fp8.c. */
static double ref_decode(NrFp8Format f, uint8_t b, bool *nan) {
    int ebits = f == NR_FP8_E4M3 ? 4 : 5, mbits = 7 - ebits, bias = f == NR_FP8_E4M3 ? 7 : 15;
    int s = b >> 7, e = (b >> mbits) & ((1 << ebits) - 1), m = b & ((1 << mbits) - 1);
    double sign = s ? -1.0 : 1.0;
    *nan = false;
    if (f == NR_FP8_E4M3 && e == 15 && m == 7) return *nan = true, NAN;
    if (f == NR_FP8_E5M2 && e == 31) {
        if (m) return *nan = true, NAN;
        return sign * INFINITY;
    }
    if (e == 0) return sign * (m / pow(2, mbits)) * pow(2, 1 - bias);
    return sign * (1 + m / pow(2, mbits)) * pow(2, e - bias);
}

static bool same(double a, double b) { return a == b && signbit(a) == signbit(b); }

static void decode_all(NrFp8Format f) {
    int bad = 0, nans = 0;
    for (int b = 0; b < 256; b++) {
        bool nan;
        double want = ref_decode(f, (uint8_t)b, &nan), got = nr_fp8_to_double(f, (uint8_t)b);
        if (nan) {
            nans++;
            if (!isnan(got) || !nr_fp8_is_nan_bits(f, (uint8_t)b)) bad++;
        } else if (!same(got, want) || nr_fp8_is_nan_bits(f, (uint8_t)b)) {
            if (bad++ < 5) printf("  %s 0x%02x: decoded %.17g, want %.17g\n", fname(f), b, got, want);
        }
    }
    CHECK(bad == 0, "%s: %d bytes decode wrong", fname(f), bad);
    CHECK(nans == (f == NR_FP8_E4M3 ? 2 : 6), "%s: %d NaN bytes", fname(f), nans);
}

static void known_values(void) {
    static const struct { NrFp8Format f; uint8_t b; double v; } k[] = {
        {NR_FP8_E4M3, 0x38, 1.0}, {NR_FP8_E4M3, 0x7E, 448.0}, {NR_FP8_E4M3, 0xFE, -448.0},
        {NR_FP8_E4M3, 0x08, 0x1p-6}, {NR_FP8_E4M3, 0x07, 7 * 0x1p-9}, {NR_FP8_E4M3, 0x01, 0x1p-9},
        {NR_FP8_E4M3, 0x78, 256.0}, {NR_FP8_E4M3, 0x80, -0.0}, {NR_FP8_E4M3, 0x40, 2.0},
        {NR_FP8_E5M2, 0x3C, 1.0}, {NR_FP8_E5M2, 0x7B, 57344.0}, {NR_FP8_E5M2, 0xFB, -57344.0},
        {NR_FP8_E5M2, 0x7C, INFINITY}, {NR_FP8_E5M2, 0xFC, -INFINITY}, {NR_FP8_E5M2, 0x04, 0x1p-14},
        {NR_FP8_E5M2, 0x01, 0x1p-16}, {NR_FP8_E5M2, 0x03, 3 * 0x1p-16}, {NR_FP8_E5M2, 0x80, -0.0},
    };
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
        CHECK(same(nr_fp8_to_double(k[i].f, k[i].b), k[i].v), "%s 0x%02x is %g", fname(k[i].f), k[i].b, k[i].v);
    CHECK(nr_fp8_max(NR_FP8_E4M3) == 448.0 && nr_fp8_max_bits(NR_FP8_E4M3) == 0x7E, "e4m3 max");
    CHECK(nr_fp8_max(NR_FP8_E5M2) == 57344.0 && nr_fp8_max_bits(NR_FP8_E5M2) == 0x7B, "e5m2 max");
}

static void roundtrip(NrFp8Format f) {
    int bad = 0;
    for (int b = 0; b < 256; b++) {
        double v = nr_fp8_to_double(f, (uint8_t)b);
        if (nr_fp8_bits(f, v) != b) bad++; /* every byte, NaNs and infinities too */
        if (isnan(v) || isinf(v)) continue;
        if (nr_fp8_from_double(f, v) != b) bad++;
        if (!same(nr_fp8_round(f, v), v)) bad++;
        if (nr_fp8_from_double(f, (double)(float)v) != b) bad++; /* every value is a float */
    }
    CHECK(bad == 0, "%s: %d bytes do not encode back to themselves", fname(f), bad);
}

/* The positive finite values in increasing order: codes 0 .. max_code. */
static void midpoints(NrFp8Format f) {
    int bad = 0, max = nr_fp8_max_bits(f);
    for (int c = 0; c < max; c++) {
        double lo = nr_fp8_to_double(f, (uint8_t)c), hi = nr_fp8_to_double(f, (uint8_t)(c + 1));
        if (!(lo < hi)) bad++;
        double mid = (lo + hi) / 2; /* exact: both are short binary fractions */
        int even = (c & 1) ? c + 1 : c;
        for (int s = 0; s < 2; s++) {
            double sg = s ? -1.0 : 1.0;
            uint8_t sb = s ? 0x80 : 0;
            if (nr_fp8_from_double(f, sg * mid) != (sb | even)) bad++;
            if (nr_fp8_from_double(f, sg * nextafter(mid, 0)) != (sb | c)) bad++;
            if (nr_fp8_from_double(f, sg * nextafter(mid, INFINITY)) != (sb | (c + 1))) bad++;
            /* the same through fp32, which holds every midpoint exactly */
            if (nr_fp8_from_double(f, (double)(float)(sg * mid)) != (sb | even)) bad++;
            if (nr_fp8_from_double(f, (double)nextafterf((float)(sg * mid), 0)) != (sb | c)) bad++;
        }
        if (bad && bad < 3) printf("  %s: midpoint of 0x%02x and 0x%02x (%g) wrong\n", fname(f), c, c + 1, mid);
    }
    CHECK(bad == 0, "%s: %d midpoint roundings wrong", fname(f), bad);
}

static void saturation_nan_subnormals(void) {
    /* E4M3: 448 is 1.75 * 2^8; the next step (480) does not exist: everything above 448 is 448 */
    static const double big4[] = {448.0, 449.0, 463.99, 464.0, 464.01, 479.0, 480.0, 1e6, 3.4e38, INFINITY};
    for (size_t i = 0; i < sizeof big4 / sizeof *big4; i++) {
        CHECK(nr_fp8_from_double(NR_FP8_E4M3, big4[i]) == 0x7E, "e4m3(%g) saturates", big4[i]);
        CHECK(nr_fp8_from_double(NR_FP8_E4M3, -big4[i]) == 0xFE, "e4m3(-%g) saturates", big4[i]);
    }
    /* E5M2: 57344 is 1.75 * 2^15; infinities saturate too (satfinite) */
    static const double big5[] = {57344.0, 57345.0, 61439.0, 61440.0, 65504.0, 65536.0, 1e9, INFINITY};
    for (size_t i = 0; i < sizeof big5 / sizeof *big5; i++) {
        CHECK(nr_fp8_from_double(NR_FP8_E5M2, big5[i]) == 0x7B, "e5m2(%g) saturates", big5[i]);
        CHECK(nr_fp8_from_double(NR_FP8_E5M2, -big5[i]) == 0xFB, "e5m2(-%g) saturates", big5[i]);
    }
    CHECK(nr_fp8_from_double(NR_FP8_E4M3, 447.99) == 0x7E, "447.99 rounds to 448");
    /* 256 .. 448 in steps of 32: 384 is 0x7C, 416 0x7D, 448 0x7E */
    CHECK(nr_fp8_from_double(NR_FP8_E4M3, 400.0) == 0x7C, "400 ties to 384 (even)");
    CHECK(nr_fp8_from_double(NR_FP8_E4M3, 400.01) == 0x7D, "400.01 rounds to 416");
    CHECK(nr_fp8_from_double(NR_FP8_E4M3, 432.0) == 0x7E, "432 ties to 448 (even)");
    double neg_nan = -NAN;
    for (int f = 0; f < 2; f++) {
        CHECK(nr_fp8_from_double((NrFp8Format)f, NAN) == 0x7F, "%s(NaN) is 0x7F", fname((NrFp8Format)f));
        CHECK(nr_fp8_from_double((NrFp8Format)f, neg_nan) == 0x7F, "%s(-NaN) is 0x7F", fname((NrFp8Format)f));
        CHECK(isnan(nr_fp8_round((NrFp8Format)f, NAN)), "%s round(NaN) is NaN", fname((NrFp8Format)f));
        CHECK(nr_fp8_bits((NrFp8Format)f, NAN) == 0x7F, "%s bits(a NaN from elsewhere) is 0x7F", fname((NrFp8Format)f));
        CHECK(nr_fp8_from_double((NrFp8Format)f, 0.0) == 0x00 && nr_fp8_from_double((NrFp8Format)f, -0.0) == 0x80,
              "%s: signed zeros", fname((NrFp8Format)f));
        CHECK(nr_fp8_from_double((NrFp8Format)f, 1e-300) == 0x00 && nr_fp8_from_double((NrFp8Format)f, -4.9e-324) == 0x80,
              "%s: tiny values go to signed zero", fname((NrFp8Format)f));
    }
    CHECK(nr_fp8_bits(NR_FP8_E5M2, INFINITY) == 0x7C && nr_fp8_bits(NR_FP8_E5M2, -INFINITY) == 0xFC, "e5m2 inf bits");
    /* subnormals: 2^-9 (E4M3) and 2^-16 (E5M2) steps; half a step is a tie to 0 */
    CHECK(nr_fp8_from_double(NR_FP8_E4M3, 0x1p-10) == 0x00, "2^-10 ties to 0");
    CHECK(nr_fp8_from_double(NR_FP8_E4M3, 0x1.0001p-10) == 0x01, "above 2^-10 is 2^-9");
    CHECK(nr_fp8_from_double(NR_FP8_E4M3, 3 * 0x1p-10) == 0x02, "1.5 steps ties to 2 steps");
    CHECK(nr_fp8_from_double(NR_FP8_E4M3, 7.5 * 0x1p-9) == 0x08, "7.5 steps ties up into the first normal");
    CHECK(nr_fp8_from_double(NR_FP8_E5M2, 0x1p-17) == 0x00, "2^-17 ties to 0");
    CHECK(nr_fp8_from_double(NR_FP8_E5M2, -5 * 0x1p-17) == 0x82, "-2.5 steps ties to -2 steps");
    CHECK(nr_fp8_from_double(NR_FP8_E5M2, 3.5 * 0x1p-16) == 0x04, "3.5 steps ties up into the first normal");
}

/* Brute force: the nearest finite value, ties to the even code, saturating. */
static uint8_t ref_encode(NrFp8Format f, double x) {
    if (isnan(x)) return 0x7F;
    int max = nr_fp8_max_bits(f);
    double a = fabs(x), best = INFINITY;
    int code = 0;
    for (int c = 0; c <= max; c++) {
        double d = fabs(nr_fp8_to_double(f, (uint8_t)c) - a);
        if (d < best || (d == best && !(c & 1))) best = d, code = c;
    }
    if (a >= nr_fp8_max(f)) code = max;
    return (uint8_t)((signbit(x) ? 0x80 : 0) | code);
}

static void fp32_sweep(NrFp8Format f) {
    int bad = 0;
    long n = 0;
    /* every 16411th float bit pattern below inf (both signs), then the neighbourhood of
     * every fp8 value: about half a million inputs */
    for (uint64_t u = 0; u < 0x7F800000u; u += 16411, n += 2) {
        float x;
        uint32_t w = (uint32_t)u;
        memcpy(&x, &w, 4);
        if (nr_fp8_from_double(f, x) != ref_encode(f, x) && bad++ < 3) printf("  %s(%.9g) wrong\n", fname(f), (double)x);
        if (nr_fp8_from_double(f, -x) != ref_encode(f, -x) && bad++ < 3) printf("  %s(%.9g) wrong\n", fname(f), -(double)x);
    }
    for (int c = 0; c <= nr_fp8_max_bits(f); c++) {
        float v = (float)nr_fp8_to_double(f, (uint8_t)c), x = v;
        for (int k = 0; k < 64; k++, n += 2) {
            x = nextafterf(x, INFINITY);
            if (nr_fp8_from_double(f, x) != ref_encode(f, x)) bad++;
            float y = nextafterf(v, -INFINITY);
            for (int j = 0; j < k; j++) y = nextafterf(y, -INFINITY);
            if (nr_fp8_from_double(f, y) != ref_encode(f, y)) bad++;
        }
    }
    CHECK(bad == 0, "%s: %d of %ld fp32 inputs round wrong", fname(f), bad, n);
}

/* --soft-reference: what tests/lit/gpu/fp8-soft-lli.nr's lowered kernel must print
 * (Inputs/fp8-soft-driver.ll): for every fp32 whose low 16 bits are 0, 1 or 0xffff, its
 * bits and its bytes in both formats, from fp32 and from the fp64 nudged by 2^-40 either
 * way; then every byte widened to fp32 in both formats (NaNs as 7fc00000). */
static void soft_reference(void) {
    static const uint32_t lo16[3] = {0, 1, 0xffff};
    static const double scale[3] = {1.0, 1.0 + 0x1p-40, 1.0 - 0x1p-40};
    for (uint32_t i = 0; i < 3 * 65536; i++) {
        uint32_t u = (i / 3) << 16 | lo16[i % 3];
        float x;
        memcpy(&x, &u, 4);
        double d = (double)x * scale[i % 3];
        printf("%08x %02x %02x %02x %02x\n", u, nr_fp8_from_double(NR_FP8_E4M3, x), nr_fp8_from_double(NR_FP8_E5M2, x),
               nr_fp8_from_double(NR_FP8_E4M3, d), nr_fp8_from_double(NR_FP8_E5M2, d));
    }
    for (int b = 0; b < 256; b++) {
        uint32_t w[2];
        for (int f = 0; f < 2; f++) {
            float v = (float)nr_fp8_to_double((NrFp8Format)f, (uint8_t)b);
            memcpy(&w[f], &v, 4);
            if (isnan(v)) w[f] = 0x7fc00000;
        }
        printf("%02x %08x %08x\n", b, w[0], w[1]);
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--soft-reference")) {
        soft_reference();
        return 0;
    }
    known_values();
    for (int f = 0; f < 2; f++) {
        decode_all((NrFp8Format)f);
        roundtrip((NrFp8Format)f);
        midpoints((NrFp8Format)f);
        fp32_sweep((NrFp8Format)f);
    }
    saturation_nan_subnormals();
    return check_done("test_fp8", &st);
}
