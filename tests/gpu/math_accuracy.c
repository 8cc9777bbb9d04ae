/* math_accuracy.c - the error of the math builtins (exp, exp2, log, log2, sqrt, rsqrt,
 * sin, cos, sigmoid, and libdevice's erf, tanh, pow, ... that the IR's math op computes)
 * in fp32 against double-precision libm, on the device the
 * environment picks: NEREID_DEVICE=cuda (or cuda:N) the GPU (its fast approximations; no GPU is a
 * failure), =cpu the CPU interpreter, unset the GPU when there is one and the interpreter
 * otherwise. Prints max ulp / relative error per function and input range (the table
 * docs/language.md quotes) and checks every result against the bound docs/language.md
 * section 13 promises for that device; a NaN, or an infinity where the reference is
 * finite, exceeds every bound. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nereid.h"

static const char *src = "from triton.language.extra import libdevice\n"
                         "@triton.jit\n"
                         "def m(x: *fp32, out: *fp32, n: i32, BLOCK: tl.constexpr):\n"
                         "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                         "    k = o < n\n"
                         "    v = tl.load(x + o, mask=k)\n"
                         "    tl.store(out + 0 * n + o, tl.exp(v), mask=k)\n"
                         "    tl.store(out + 1 * n + o, tl.exp2(v), mask=k)\n"
                         "    tl.store(out + 2 * n + o, tl.log(tl.abs(v)), mask=k)\n"
                         "    tl.store(out + 3 * n + o, tl.log2(tl.abs(v)), mask=k)\n"
                         "    tl.store(out + 4 * n + o, tl.sqrt(tl.abs(v)), mask=k)\n"
                         "    tl.store(out + 5 * n + o, tl.rsqrt(tl.abs(v)), mask=k)\n"
                         "    tl.store(out + 6 * n + o, tl.sin(v), mask=k)\n"
                         "    tl.store(out + 7 * n + o, tl.cos(v), mask=k)\n"
                         "    tl.store(out + 8 * n + o, tl.sigmoid(v), mask=k)\n"
                         "    tl.store(out + 9 * n + o, tl.erf(v), mask=k)\n"
                         "    tl.store(out + 10 * n + o, libdevice.erfc(v), mask=k)\n"
                         "    tl.store(out + 11 * n + o, libdevice.tanh(v), mask=k)\n"
                         "    tl.store(out + 12 * n + o, libdevice.sinh(v), mask=k)\n"
                         "    tl.store(out + 13 * n + o, libdevice.cosh(v), mask=k)\n"
                         "    tl.store(out + 14 * n + o, libdevice.tan(v), mask=k)\n"
                         "    tl.store(out + 15 * n + o, libdevice.asin(v), mask=k)\n"
                         "    tl.store(out + 16 * n + o, libdevice.acos(v), mask=k)\n"
                         "    tl.store(out + 17 * n + o, libdevice.atan(v), mask=k)\n"
                         "    tl.store(out + 18 * n + o, libdevice.asinh(v), mask=k)\n"
                         "    tl.store(out + 19 * n + o, libdevice.acosh(v), mask=k)\n"
                         "    tl.store(out + 20 * n + o, libdevice.atanh(v), mask=k)\n"
                         "    tl.store(out + 21 * n + o, libdevice.log10(v), mask=k)\n"
                         "    tl.store(out + 22 * n + o, libdevice.log1p(v), mask=k)\n"
                         "    tl.store(out + 23 * n + o, libdevice.expm1(v), mask=k)\n"
                         "    tl.store(out + 24 * n + o, libdevice.exp10(v), mask=k)\n"
                         "    tl.store(out + 25 * n + o, libdevice.cbrt(v), mask=k)\n"
                         "    tl.store(out + 26 * n + o, libdevice.pow(tl.abs(v), 2.5), mask=k)\n"
                         "    tl.store(out + 27 * n + o, libdevice.atan2(v, 0.75), mask=k)\n"
                         "    tl.store(out + 28 * n + o, libdevice.hypot(v, 3.0), mask=k)\n";

enum { NF = 29, N = 1 << 18 };
static const char *names[NF] = {
    "exp",   "exp2",  "log",   "log2",  "sqrt",  "rsqrt", "sin",  "cos",   "sigmoid", "erf",
    "erfc",  "tanh",  "sinh",  "cosh",  "tan",   "asin",  "acos", "atan",  "asinh",   "acosh",
    "atanh", "log10", "log1p", "expm1", "exp10", "cbrt",  "pow",  "atan2", "hypot"};

static double ref(int f, double v) {
    switch (f) {
    case 0: return exp(v);
    case 1: return exp2(v);
    case 2: return log(fabs(v));
    case 3: return log2(fabs(v));
    case 4: return sqrt(fabs(v));
    case 5: return 1 / sqrt(fabs(v));
    case 6: return sin(v);
    case 7: return cos(v);
    case 8: return 1 / (1 + exp(-v));
    case 9: return erf(v);
    case 10: return erfc(v);
    case 11: return tanh(v);
    case 12: return sinh(v);
    case 13: return cosh(v);
    case 14: return tan(v);
    case 15: return asin(v);
    case 16: return acos(v);
    case 17: return atan(v);
    case 18: return asinh(v);
    case 19: return acosh(v);
    case 20: return atanh(v);
    case 21: return log10(v);
    case 22: return log1p(v);
    case 23: return expm1(v);
    case 24: return pow(10.0, v);
    case 25: return cbrt(v);
    case 26: return pow(fabs(v), 2.5);
    case 27: return atan2(v, 0.75);
    default: return hypot(v, 3.0);
    }
}

/* distance in fp32 units in the last place at the reference's magnitude */
static double ulps(float got, double want) {
    if (isinf(want) && isinf(got) && (want > 0) == (got > 0)) return 0;
    int e;
    frexp(want, &e);
    double ulp = ldexp(1.0, e - 24);
    if (ulp < ldexp(1.0, -149)) ulp = ldexp(1.0, -149);
    return fabs(got - want) / ulp;
}

/* The promised bound, in ulps at the reference's magnitude, for function f at input x
 * (docs/language.md section 13). On the GPU: sqrt is correctly rounded; exp2 and rsqrt are
 * PTX's ex2.approx.f32 and rsqrt.approx.f32; log, log2, sin and cos are accurate software
 * implementations; exp rounds x * log2(e) to fp32 before ex2.approx, which costs up to
 * about |x| ulps on top of ex2's error; sigmoid is 1 / (1 + exp(-x)) with a div.full.f32.
 * The libdevice functions: CUDA's documented maximum errors (from the correctly rounded
 * result: half an ulp more from the exact one), which also covers Nereid's own routines
 * when no libdevice is found (1 ulp).
 * On the CPU every primitive is the double result rounded once (0.5 ulp; the slack covers
 * libm's double error) and sigmoid is three rounded operations. */
static double bound(int f, double x, bool gpu) {
    if (!gpu) return f == 8 ? 3.0 : 0.5 + 1e-6;
    /* erf erfc tanh sinh cosh tan asin acos atan asinh acosh atanh log10 log1p expm1 exp10 cbrt pow
     * atan2 hypot */
    static const double cuda[20] = {2, 4, 2, 3, 2, 4, 2, 2, 2, 3, 4, 3, 2, 1, 1, 2, 1, 4, 3, 3};
    if (f >= 9) return cuda[f - 9] + 0.5;
    switch (f) {
    case 0: return 3.0 + 1.25 * fabs(x); /* exp */
    case 1: return 3.0;                  /* exp2 */
    case 2:
    case 3: return 2.0;        /* log, log2 */
    case 4: return 0.5 + 1e-6; /* sqrt */
    case 5: return 2.5;        /* rsqrt */
    case 6:
    case 7: return 2.0;                   /* sin, cos */
    default: return 4.0 + 1.25 * fabs(x); /* sigmoid */
    }
}

/* A fatal failure of the test's own set-up (allocation, copy, launch). */
static int die(const char *what, nr_context *ctx) {
    printf("math_accuracy: %s failed%s%s\nmath_accuracy: 0 passed, 1 failed\n", what,
           ctx ? ": " : "", ctx ? nr_last_error(ctx) : "");
    return 1;
}

int main(void) {
    const char *dev = getenv("NEREID_DEVICE");
    bool want_cpu = dev && !strcmp(dev, "cpu"), want_gpu = dev && !strncmp(dev, "cuda", 4);
    int index = dev && !strncmp(dev, "cuda:", 5) ? atoi(dev + 5) : 0; /* cuda:N: device N */
    nr_device_kind kind = want_cpu ? NR_DEVICE_CPU : NR_DEVICE_CUDA;
    nr_context *ctx;
    char why[256];
    if (nr_context_create_ex(kind, kind == NR_DEVICE_CUDA ? index : 0, &ctx, why, sizeof why)) {
        if (kind == NR_DEVICE_CPU || want_gpu) {
            printf("math_accuracy: no %s device: %s\n", kind == NR_DEVICE_CPU ? "CPU" : "CUDA",
                   why);
            return die("creating the context", NULL);
        }
        kind = NR_DEVICE_CPU;
        printf("note: no CUDA device (%s): measuring the CPU interpreter\n", why);
        if (nr_context_create(kind, 0, &ctx)) return die("creating a CPU context", NULL);
    }
    bool gpu = kind == NR_DEVICE_CUDA;
    nr_define d = {"BLOCK", "1024"};
    nr_compile_options o = {.defines = &d, .num_defines = 1};
    nr_module *mod;
    nr_kernel *k;
    if (nr_compile_source(ctx, src, strlen(src), "math.nr", &o, &mod) ||
        nr_module_get_kernel(mod, "m", &k))
        return die("compiling", ctx);
    static const struct {
        const char *name;
        double lo, hi;
    } ranges[] = {{"[-1, 1]", -1, 1},
                  {"[-10, 10]", -10, 10},
                  {"[-80, 80]", -80, 80},
                  {"[1e-3, 1e3]", 1e-3, 1e3}};
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N * NF);
    if (!x || !y) return die("allocating host memory", NULL);
    nr_devptr dx, dy;
    if (nr_malloc(ctx, sizeof(float) * N, &dx) || nr_malloc(ctx, sizeof(float) * N * NF, &dy))
        return die("nr_malloc", ctx);
    printf("device: %s\n%-9s %-12s %12s %12s %10s  %s\n", gpu ? "cuda" : "cpu", "function",
           "inputs", "max ulp", "max rel err", "bound", "worst input");
    int passed = 0, failed = 0;
    for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++) {
        for (int i = 0; i < N; i++)
            x[i] = (float)(ranges[r].lo + (ranges[r].hi - ranges[r].lo) * (i + 0.5) / N);
        /* the output starts as NaNs: an element the kernel did not write fails */
        memset(y, 0xff, sizeof(float) * N * NF);
        if (nr_memcpy_htod(ctx, dx, x, sizeof(float) * N) ||
            nr_memcpy_htod(ctx, dy, y, sizeof(float) * N * NF))
            return die("nr_memcpy_htod", ctx);
        nr_arg args[3] = {nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_i32(N)};
        unsigned grid[3] = {N / 1024, 1, 1};
        if (nr_launch(k, grid, args, 3, NULL) || nr_synchronize(ctx)) return die("the launch", ctx);
        if (nr_memcpy_dtoh(ctx, y, dy, sizeof(float) * N * NF)) return die("nr_memcpy_dtoh", ctx);
        for (int f = 0; f < NF; f++) {
            double mu = 0, mr = 0, worst_excess = 0, worst_x = 0, worst_bound = 0;
            int over = 0;
            for (int i = 0; i < N; i++) {
                double want = ref(f, x[i]);
                if (!isfinite(want) || fabs(want) > 3e38 || fabs(want) < 1e-37) continue;
                float got = y[(size_t)f * N + i];
                double u = ulps(got, want), rel = fabs(got - want) / fabs(want);
                if (isnan(u) || isinf(u))
                    u = rel = INFINITY; /* NaN or an infinity: beyond every bound */
                if (u > mu) mu = u;
                if (rel > mr) mr = rel;
                double b = bound(f, x[i], gpu);
                if (u > b) {
                    over++;
                    if (u - b > worst_excess) worst_excess = u - b, worst_x = x[i], worst_bound = b;
                }
            }
            /* the bound column: the largest bound over the range (exp's and sigmoid's grow with
             * |x|) */
            double bmax = bound(f, fmax(fabs(ranges[r].lo), fabs(ranges[r].hi)), gpu);
            printf("%-9s %-12s %12.1f %12.2e %10.2f", names[f], ranges[r].name, mu, mr, bmax);
            if (over) {
                printf("  FAIL: %d inputs over the bound, worst x = %.9g (%.1f ulp, bound %.2f)\n",
                       over, worst_x, worst_excess + worst_bound, worst_bound);
                failed++;
            } else {
                printf("\n");
                passed++;
            }
        }
    }
    nr_module_destroy(mod);
    nr_context_destroy(ctx);
    free(x), free(y);
    printf("math_accuracy: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
