/* test_lang_perm.c - tl.flip, tl.sort, tl.topk, tl.gather and tl.histogram on the CPU
 * interpreter against plain C: flips and sorts along each axis of 2-D blocks; sorts of
 * floats with NaNs, infinities and signed zeros in the total order ir_ops.def states,
 * and of signed and unsigned integers; top-k; gathers along each axis with indices that
 * are negative or past the end (taken modulo the length) and an index block longer than
 * the source; histograms with a mask and values outside the bins. */
#include "lang_harness.h"

static const char *K_PERM =
    "@triton.jit\n"
    "def k(x: *fp32, u: *u16, i: *i32, ix: *i32, o: *fp32, ou: *u16, oi: *i32, h: *i32, R: "
    "tl.constexpr, C: tl.constexpr):\n"
    "    r = tl.arange(0, R)[:, None]\n"
    "    c = tl.arange(0, C)[None, :]\n"
    "    at = r * C + c\n"
    "    n = R * C\n"
    "    v = tl.load(x + at)\n"
    "    w = tl.load(u + at)\n"
    "    z = tl.load(i + at)\n"
    "    tl.store(o + at, tl.flip(v, 0))\n"
    "    tl.store(o + n + at, v.flip())\n"
    "    tl.store(o + 2 * n + at, tl.sort(v))\n"
    "    tl.store(o + 3 * n + at, tl.sort(v, 0, descending=True))\n"
    "    tl.store(ou + at, tl.sort(w, dim=1))\n"
    "    tl.store(oi + at, tl.sort(z, 0))\n"
    "    tl.store(oi + n + r * (C // 2) + tl.arange(0, C // 2)[None, :], tl.topk(z, C // 2))\n"
    "    g = tl.load(ix + tl.arange(0, 2 * R)[:, None] * C + c)\n"
    "    tl.store(oi + 2 * n + tl.arange(0, 2 * R)[:, None] * C + c, tl.gather(z, g, 0))\n"
    "    g1 = tl.load(ix + at)\n"
    "    tl.store(oi + 4 * n + at, z.gather(g1, axis=1))\n"
    "    flat = tl.reshape(z, (n,))\n"
    "    tl.store(h + tl.arange(0, 16), tl.histogram(flat, 16))\n"
    "    tl.store(h + 16 + tl.arange(0, 8), tl.histogram(flat, 8, mask=flat % 2 == 0))\n";

/* totalOrder's key of a float */
static uint32_t fkey(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}
static int cmp_f(const void *a, const void *b) {
    uint32_t x = fkey(*(const float *)a), y = fkey(*(const float *)b);
    return x < y ? -1 : x > y;
}
static int cmp_u16(const void *a, const void *b) {
    return *(const uint16_t *)a - *(const uint16_t *)b;
}
static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}
static bool same_bits(float a, float b) { return !memcmp(&a, &b, 4); }

static void test_perm(int R, int C) {
    char defs[32];
    snprintf(defs, sizeof defs, "R=%d C=%d", R, C);
    nr_kernel *k = BUILD(K_PERM, defs);
    if (!k) return;
    int n = R * C;
    float *x = malloc(4 * (size_t)n), *o = malloc(16 * (size_t)n);
    uint16_t *u = malloc(2 * (size_t)n), *ou = malloc(2 * (size_t)n);
    int32_t *z = malloc(4 * (size_t)n), *ix = malloc(8 * (size_t)n), *oi = malloc(20 * (size_t)n),
            h[24];
    static const float specials[] = {NAN,   -NAN, INFINITY, -INFINITY, 0.0f,
                                     -0.0f, 1.5f, -1.5f,    1e-40f};
    for (int i = 0; i < n; i++) {
        x[i] = i % 5 == 0 ? specials[(i / 5) % 9] : (float)((i * 37) % 23 - 11) * 0.5f;
        u[i] = (uint16_t)(i * 40503u);
        z[i] = (i * 7919) % 31 - 15;
    }
    for (int i = 0; i < 2 * n; i++)
        ix[i] = (i * 13) % (3 * R) - R; /* negative and past the end too */
    nr_devptr dx = dev_from(x, 4 * (size_t)n), du = dev_from(u, 2 * (size_t)n),
              dz = dev_from(z, 4 * (size_t)n);
    nr_devptr dix = dev_from(ix, 8 * (size_t)n), dout = dev_from(NULL, 16 * (size_t)n),
              dou = dev_from(NULL, 2 * (size_t)n);
    nr_devptr doi = dev_from(NULL, 20 * (size_t)n), dh = dev_from(NULL, sizeof h);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(du), nr_arg_ptr(dz), nr_arg_ptr(dix),
        nr_arg_ptr(dout), nr_arg_ptr(dou), nr_arg_ptr(doi), nr_arg_ptr(dh));
    dev_to(o, dout, 16 * (size_t)n), dev_to(ou, dou, 2 * (size_t)n),
        dev_to(oi, doi, 20 * (size_t)n), dev_to(h, dh, sizeof h);
    int bad[9] = {0};
    float *line = malloc(4 * (size_t)(R > C ? R : C));
    uint16_t *lu = malloc(2 * (size_t)C);
    int32_t *li = malloc(4 * (size_t)(R > C ? R : C));
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            bad[0] += !same_bits(o[r * C + c], x[(R - 1 - r) * C + c]);
            bad[1] += !same_bits(o[n + r * C + c], x[r * C + C - 1 - c]);
        }
    for (int r = 0; r < R; r++) { /* sort along the last dim (floats, u16) */
        memcpy(line, x + r * C, 4 * (size_t)C);
        qsort(line, (size_t)C, 4, cmp_f);
        memcpy(lu, u + r * C, 2 * (size_t)C);
        qsort(lu, (size_t)C, 2, cmp_u16);
        for (int c = 0; c < C; c++)
            bad[2] += !same_bits(o[2 * n + r * C + c], line[c]), bad[4] += ou[r * C + c] != lu[c];
    }
    for (int c = 0; c < C; c++) { /* along dim 0: descending floats, ascending i32 */
        for (int r = 0; r < R; r++) line[r] = x[r * C + c], li[r] = z[r * C + c];
        qsort(line, (size_t)R, 4, cmp_f);
        qsort(li, (size_t)R, 4, cmp_i32);
        for (int r = 0; r < R; r++)
            bad[3] += !same_bits(o[3 * n + r * C + c], line[R - 1 - r]),
                bad[5] += oi[r * C + c] != li[r];
    }
    for (int r = 0; r < R; r++) { /* topk: the C/2 largest of each row, largest first */
        memcpy(li, z + r * C, 4 * (size_t)C);
        qsort(li, (size_t)C, 4, cmp_i32);
        for (int c = 0; c < C / 2; c++) bad[6] += oi[n + r * (C / 2) + c] != li[C - 1 - c];
    }
    for (int r = 0; r < 2 * R; r++) /* gather along 0 with a longer index; along 1 */
        for (int c = 0; c < C; c++)
            bad[7] += oi[2 * n + r * C + c] != z[(ix[r * C + c] & (R - 1)) * C + c];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            bad[7] += oi[4 * n + r * C + c] != z[r * C + (ix[r * C + c] & (C - 1))];
    int want[24] = {0};
    for (int i = 0; i < n; i++) {
        if (z[i] >= 0 && z[i] < 16) want[z[i]]++;
        if (z[i] >= 0 && z[i] < 8 && z[i] % 2 == 0) want[16 + z[i]]++;
    }
    for (int b = 0; b < 24; b++) bad[8] += h[b] != want[b];
    static const char *const what[9] = {"flip dim 0",
                                        "flip dim -1 (None)",
                                        "sort floats (totalOrder)",
                                        "sort floats dim 0 descending",
                                        "sort u16",
                                        "sort i32 dim 0",
                                        "topk",
                                        "gather (indices mod the length)",
                                        "histogram"};
    for (int j = 0; j < 9; j++) CHECK(bad[j] == 0, "%dx%d: %s: %d wrong", R, C, what[j], bad[j]);
    nr_free(ctx, dx), nr_free(ctx, du), nr_free(ctx, dz), nr_free(ctx, dix), nr_free(ctx, dout),
        nr_free(ctx, dou);
    nr_free(ctx, doi), nr_free(ctx, dh);
    free(x), free(o), free(u), free(ou), free(z), free(ix), free(oi), free(line), free(lu),
        free(li);
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    test_perm(4, 8);
    test_perm(16, 16);
    test_perm(2, 64);
    test_perm(32, 4);
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_perm", &st);
}
