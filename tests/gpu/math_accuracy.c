/* math_accuracy.c - measures the error of the math builtins (exp, exp2, log, log2, sqrt,
 * rsqrt, sin, cos, sigmoid) in fp32 against double-precision libm, on the device the
 * environment picks (the GPU when there is one: its fast approximations; otherwise the
 * CPU interpreter, which rounds double results and must be within 1 ulp). Prints max
 * ulp / relative error per function and input range, the table docs/language.md quotes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nereid.h"

static const char *src =
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
    "    tl.store(out + 8 * n + o, tl.sigmoid(v), mask=k)\n";

enum { NF = 9, N = 1 << 18 };
static const char *names[NF] = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "sigmoid"};

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
    default: return 1 / (1 + exp(-v));
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

int main(void) {
    const char *dev = getenv("NEREID_DEVICE");
    nr_device_kind kind = dev && !strcmp(dev, "cpu") ? NR_DEVICE_CPU : NR_DEVICE_CUDA;
    nr_context *ctx;
    char why[256];
    if (nr_context_create_ex(kind, 0, &ctx, why, sizeof why)) {
        if (kind == NR_DEVICE_CPU) return 1;
        kind = NR_DEVICE_CPU;
        printf("note: no CUDA device (%s): measuring the CPU interpreter\n", why);
        if (nr_context_create(kind, 0, &ctx)) return 1;
    }
    nr_define d = {"BLOCK", "1024"};
    nr_compile_options o = {&d, 1, NULL, 0, 0};
    nr_module *mod;
    nr_kernel *k;
    if (nr_compile_source(ctx, src, strlen(src), "math.nr", &o, &mod) || nr_module_get_kernel(mod, "m", &k)) {
        printf("compile failed: %s\n", nr_last_error(ctx));
        return 1;
    }
    static const struct { const char *name; double lo, hi; } ranges[] = {
        {"[-1, 1]", -1, 1}, {"[-10, 10]", -10, 10}, {"[-80, 80]", -80, 80}, {"[1e-3, 1e3]", 1e-3, 1e3}};
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N * NF);
    nr_devptr dx, dy;
    nr_malloc(ctx, sizeof(float) * N, &dx);
    nr_malloc(ctx, sizeof(float) * N * NF, &dy);
    printf("device: %s\n%-9s %-12s %12s %12s\n", kind == NR_DEVICE_CUDA ? "cuda" : "cpu", "function", "inputs", "max ulp", "max rel err");
    int bad = 0;
    for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++) {
        for (int i = 0; i < N; i++) x[i] = (float)(ranges[r].lo + (ranges[r].hi - ranges[r].lo) * (i + 0.5) / N);
        nr_memcpy_htod(ctx, dx, x, sizeof(float) * N);
        nr_arg args[3] = {nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_i32(N)};
        unsigned grid[3] = {N / 1024, 1, 1};
        if (nr_launch(k, grid, args, 3, NULL) || nr_memcpy_dtoh(ctx, y, dy, sizeof(float) * N * NF)) {
            printf("launch failed: %s\n", nr_last_error(ctx));
            return 1;
        }
        for (int f = 0; f < NF; f++) {
            double mu = 0, mr = 0;
            for (int i = 0; i < N; i++) {
                double want = ref(f, x[i]);
                if (!isfinite(want) || fabs(want) > 3e38 || fabs(want) < 1e-37) continue;
                float got = y[(size_t)f * N + i];
                double u = ulps(got, want), rel = fabs(got - want) / fabs(want);
                if (u > mu) mu = u;
                if (rel > mr) mr = rel;
            }
            printf("%-9s %-12s %12.1f %12.2e\n", names[f], ranges[r].name, mu, mr);
            if (kind == NR_DEVICE_CPU && f < 8 && mu > 1.0) bad++; /* the interpreter rounds a double result (sigmoid is a composite) */
        }
    }
    nr_module_destroy(mod);
    nr_context_destroy(ctx);
    free(x), free(y);
    printf("math_accuracy: %d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
    return bad ? 1 : 0;
}
