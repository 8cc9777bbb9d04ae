/* test_lang_math.c - the math builtins of triton.language and its libdevice (erf, tanh,
 * pow, atan2, ... : compiler/ir/ir_mathfn.def), tl.clamp, minimum/maximum with
 * propagate_nan and tl.debug_barrier, on the CPU interpreter against plain C: each math
 * function must equal the C library's double result rounded once to the dtype (fp32,
 * fp16, bf16; fp64: the C library's result), NaN for NaN.
 *
 * With --check-soft FILE it checks instead what tests/lit/gpu/math-soft-host.nr's host run
 * of the GPU's libdevice-free routines printed: one line per input, the two operands'
 * bits then the 25 functions' results in ir_mathfn.def's order; every result must be
 * within the bound docs/language.md section 13 states for that path (1 ulp at the C
 * library's double result; 0 for the exact functions; a NaN only where the reference is
 * NaN, an infinity only where the reference rounds to one; tan only for |x| < 2^22, where
 * its reduction by pi/2 is accurate). Prints one line per function. */
#include "lang_harness.h"

enum { NFN = 25 };
static const char *const fn_names[NFN] = {
    "erf",   "erfc",  "tanh",  "sinh",  "cosh",      "tan",   "asin",    "acos", "atan",
    "asinh", "acosh", "atanh", "log10", "log1p",     "expm1", "exp10",   "cbrt", "pow",
    "atan2", "hypot", "trunc", "rint",  "nearbyint", "round", "copysign"};
static const bool two_args[NFN] = {[17] = true, [18] = true, [19] = true, [24] = true};

static double ref_fn(int f, double x, double y) {
    switch (f) {
    case 0: return erf(x);
    case 1: return erfc(x);
    case 2: return tanh(x);
    case 3: return sinh(x);
    case 4: return cosh(x);
    case 5: return tan(x);
    case 6: return asin(x);
    case 7: return acos(x);
    case 8: return atan(x);
    case 9: return asinh(x);
    case 10: return acosh(x);
    case 11: return atanh(x);
    case 12: return log10(x);
    case 13: return log1p(x);
    case 14: return expm1(x);
    case 15: return pow(10.0, x);
    case 16: return cbrt(x);
    case 17: return pow(x, y);
    case 18: return atan2(x, y);
    case 19: return hypot(x, y);
    case 20: return trunc(x);
    case 21:
    case 22: return nearbyint(x);
    case 23: return round(x);
    default: return copysign(x, y);
    }
}

static bool same_or_nan(double a, double b) {
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

/* ---- the interpreter: every function, fp32 / fp64 / fp16 / bf16 ---- */

static char *kernel_text(const char *t) {
    static char buf[8192];
    int n = snprintf(buf, sizeof buf,
                     "from triton.language.extra import libdevice\n"
                     "@triton.jit\n"
                     "def k(x: *%s, y: *%s, o: *%s):\n"
                     "    i = tl.arange(0, 64)\n"
                     "    v = tl.load(x + i)\n"
                     "    w = tl.load(y + i)\n",
                     t, t, t);
    for (int f = 0; f < NFN; f++)
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "    tl.store(o + %d * 64 + i, libdevice.%s(v%s))\n", f, fn_names[f],
                      two_args[f] ? ", w" : "");
    return buf;
}

static const double inputs[64] = {
    0.0,     -0.0,     0.5,       -0.5,      1.0,    -1.0, 2.0,   -2.0,    0.1,    -0.3,
    0.99,    -0.999,   1.5,       3.7,       -4.2,   10.0, -12.5, 30.0,    88.0,   -100.0,
    1e-5,    -3e-7,    1e-20,     7.25,      0.75,   1.25, 2.5,   -2.5,    5.5,    -0.125,
    0.0625,  64.0,     INFINITY,  -INFINITY, NAN,    1e30, -1e30, 0.3333,  0.6666, 2.71828,
    3.14159, -3.14159, 1.5707,    0.7853,    9.0,    16.0, 17.5,  -1.0001, 1.0001, 0.00390625,
    255.5,   -255.5,   0.5000001, 2.4999,    2.5001, 6.0,  -6.0,  0.2,     0.4,    0.8,
    1.6,     3.2,      6.4,       12.8};

static void run_typed(const char *t, int bytes, double (*round_to)(double),
                      void (*put)(void *, int, double), double (*get)(const void *, int)) {
    nr_kernel *k = BUILD(kernel_text(t), NULL);
    if (!k) return;
    unsigned char x[64 * 8], y[64 * 8], o[NFN * 64 * 8];
    double xv[64], yv[64];
    for (int i = 0; i < 64; i++) {
        xv[i] = round_to(inputs[i]);
        yv[i] = round_to(inputs[(i * 7 + 3) % 64]);
        put(x, i, xv[i]), put(y, i, yv[i]);
    }
    nr_devptr dx = dev_from(x, (size_t)bytes * 64), dy = dev_from(y, (size_t)bytes * 64);
    nr_devptr dout = dev_from(NULL, (size_t)bytes * 64 * NFN);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dout));
    dev_to(o, dout, (size_t)bytes * 64 * NFN);
    for (int f = 0; f < NFN; f++) {
        int bad = 0, first = -1;
        for (int i = 0; i < 64; i++) {
            double want = round_to(ref_fn(f, xv[i], yv[i])), got = get(o, f * 64 + i);
            if (!same_or_nan(got, want) && !bad++) first = i;
        }
        CHECK(bad == 0,
              "%s %s: %d of 64 differ from the C library's (first: x = %g, y = %g: %.17g, want "
              "%.17g)",
              t, fn_names[f], bad, first >= 0 ? xv[first] : 0, first >= 0 ? yv[first] : 0,
              first >= 0 ? get(o, f * 64 + first) : 0,
              first >= 0 ? round_to(ref_fn(f, xv[first], yv[first])) : 0);
    }
    nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, dout);
}

static double id(double x) { return x; }
static double r32(double x) { return (double)(float)x; }
static void put64(void *p, int i, double v) { ((double *)p)[i] = v; }
static double get64(const void *p, int i) { return ((const double *)p)[i]; }
static void put32(void *p, int i, double v) { ((float *)p)[i] = (float)v; }
static double get32(const void *p, int i) { return ((const float *)p)[i]; }
static void put16(void *p, int i, double v) { ((uint16_t *)p)[i] = h16(v); }
static double get16(const void *p, int i) { return f16(((const uint16_t *)p)[i]); }
static void putbf(void *p, int i, double v) { ((uint16_t *)p)[i] = hbf(v); }
static double getbf(const void *p, int i) { return fbf(((const uint16_t *)p)[i]); }

/* ---- clamp, minimum / maximum with propagate_nan, debug_barrier ---- */

static const char *K_CLAMP =
    "@triton.jit\n"
    "def k(x: *fp32, o: *fp32):\n"
    "    i = tl.arange(0, 8)\n"
    "    v = tl.load(x + i)\n"
    "    tl.store(o + i, tl.clamp(v, -1.0, 2.0))\n"
    "    tl.store(o + 8 + i, tl.clamp(v, -1.0, 2.0, propagate_nan=tl.PropagateNan.ALL))\n"
    "    tl.store(o + 16 + i, tl.minimum(v, 0.5))\n"
    "    tl.store(o + 24 + i, tl.minimum(v, 0.5, propagate_nan=tl.PropagateNan.ALL))\n"
    "    tl.debug_barrier()\n"
    "    tl.store(o + 32 + i, tl.maximum(0.5, v, tl.PropagateNan.ALL))\n"
    "    tl.store(o + 40 + i, tl.clamp(v.to(tl.bfloat16), 0.0, 1.0))\n";

static void test_clamp(void) {
    nr_kernel *k = BUILD(K_CLAMP, NULL);
    if (!k) return;
    float x[8] = {NAN, -5.0f, -1.0f, 0.25f, 1.5f, 2.0f, 7.0f, -0.0f}, o[48];
    nr_devptr dx = dev_from(x, sizeof x), dout = dev_from(NULL, sizeof o);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dout));
    dev_to(o, dout, sizeof o);
    for (int i = 0; i < 8; i++) {
        double v = x[i];
        double c = isnan(v) ? -1.0 : fmin(fmax(v, -1.0), 2.0);
        CHECK(same_or_nan(o[i], c), "clamp(%g) = %g, want %g", v, o[i], c);
        CHECK(same_or_nan(o[8 + i], isnan(v) ? NAN : c), "clamp ALL(%g) = %g", v, o[8 + i]);
        CHECK(same_or_nan(o[16 + i], isnan(v) ? 0.5 : fmin(v, 0.5)), "minimum(%g, 0.5) = %g", v,
              o[16 + i]);
        CHECK(same_or_nan(o[24 + i], isnan(v) ? NAN : fmin(v, 0.5)), "minimum ALL(%g, 0.5) = %g", v,
              o[24 + i]);
        CHECK(same_or_nan(o[32 + i], isnan(v) ? NAN : fmax(v, 0.5)), "maximum ALL(0.5, %g) = %g", v,
              o[32 + i]);
        double b = rbf(v);
        CHECK(same_or_nan(o[40 + i], isnan(b) ? 0.0 : fmin(fmax(b, 0.0), 1.0)),
              "clamp(bf16 %g) = %g", b, o[40 + i]);
    }
    /* a NaN x keeps its payload where it propagates */
    uint32_t bits;
    memcpy(&bits, &o[8], 4);
    CHECK(bits == 0x7fc00000u, "clamp ALL of NaN gives the NaN itself, got %08x", bits);
    nr_free(ctx, dx), nr_free(ctx, dout);
}

/* ---- --check-soft ---- */

/* distance in fp32 ulps at the reference's magnitude (math_accuracy.c's measure) */
static double ulps(float got, double want) {
    if (isnan(want)) return isnan(got) ? 0 : INFINITY;
    if (isnan(got)) return INFINITY;
    if (isinf((float)want) || isinf(got)) return (float)want == got ? 0 : INFINITY;
    int e;
    frexp(want, &e);
    double ulp = ldexp(1.0, e - 24);
    if (ulp < ldexp(1.0, -149)) ulp = ldexp(1.0, -149);
    return fabs((double)got - want) / ulp;
}

static int check_soft(const char *path) {
    FILE *fp = fopen(path, "r");
    if (!fp) {
        printf("math-soft: cannot open %s\n", path);
        return 1;
    }
    double worst[NFN] = {0}, worst_x[NFN] = {0}, worst_y[NFN] = {0};
    long n = 0;
    unsigned w[NFN + 2];
    for (;;) {
        int got = 0;
        for (int j = 0; j < NFN + 2; j++) got += fscanf(fp, "%x", &w[j]) == 1;
        if (got != NFN + 2) break;
        float x, y;
        memcpy(&x, &w[0], 4), memcpy(&y, &w[1], 4);
        for (int f = 0; f < NFN; f++) {
            float r;
            memcpy(&r, &w[2 + f], 4);
            if (f == 5 && fabsf(x) >= 0x1p22f) continue; /* tan: the bound holds below 2^22 */
            double u = ulps(r, ref_fn(f, x, two_args[f] ? y : 0));
            if (u > worst[f]) worst[f] = u, worst_x[f] = x, worst_y[f] = y;
        }
        n++;
    }
    fclose(fp);
    int passed = 0, failed = 0;
    for (int f = 0; f < NFN; f++) {
        double bound = f >= 20 ? 0 : 1.0;
        bool ok = n == 32768 && worst[f] <= bound;
        printf("%-9s max %.3f ulp over %ld inputs (bound %g) %s", fn_names[f], worst[f], n, bound,
               ok ? "PASS" : "FAIL");
        if (worst[f] > 0)
            printf("  worst at x = %.9g%s%.9g", worst_x[f], two_args[f] ? ", y = " : "",
                   two_args[f] ? worst_y[f] : 0.0);
        printf("\n");
        ok ? passed++ : failed++;
    }
    printf("math-soft: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc > 2 && !strcmp(argv[1], "--check-soft")) return check_soft(argv[2]);
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    run_typed("fp32", 4, r32, put32, get32);
    run_typed("fp64", 8, id, put64, get64);
    run_typed("fp16", 2, r16, put16, get16);
    run_typed("bf16", 2, rbf, putbf, getbf);
    test_clamp();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_math", &st);
}
