/* rank-host.c - the host side of rank-host.nr: inputs, the kernel (an object made from its
 * LLVM IR) run by cta_emu.h, and every output checked against plain C on blocks of 5 and
 * 6 dims (permutes, sums, maxima and minima along an axis).
 *   rank-host chained5 WARPS D0..D4 P0..P4 R0 R1 R2 | shapes6 WARPS | expand5 WARPS
 *           | scan5 WARPS AXIS */
#include "cta_emu.h"

__attribute__((weak)) void chained5(int32_t *, int32_t *); /* one object holds one of them */
__attribute__((weak)) void shapes6(int32_t *, int32_t *);
__attribute__((weak)) void expand5(int32_t *, int32_t *);
__attribute__((weak)) void scan5(int32_t *, int32_t *);

/* A row-major block of up to 8 dims. */
typedef struct {
    int rank, shape[8];
    int32_t *v;
} Nd;

static int numel(const Nd *a) {
    int n = 1;
    for (int d = 0; d < a->rank; d++) n *= a->shape[d];
    return n;
}

static Nd nd(int rank, const int *shape, int32_t *v) {
    Nd a = {rank, {0}, v};
    for (int d = 0; d < rank; d++) a.shape[d] = shape[d];
    if (!a.v) a.v = calloc((size_t)numel(&a), 4);
    return a;
}

/* Element idx (row-major coordinates) of a. */
static int32_t *at(const Nd *a, const int *idx) {
    int f = 0;
    for (int d = 0; d < a->rank; d++) f = f * a->shape[d] + idx[d];
    return &a->v[f];
}

/* The coordinates of row-major index f in a. */
static void coords(const Nd *a, int f, int *idx) {
    for (int d = a->rank - 1; d >= 0; d--) idx[d] = f % a->shape[d], f /= a->shape[d];
}

/* r[i_0, ..., i_n] = a[j] with j[perm[d]] = i_d (tl.permute, NumPy's transpose). */
static Nd permute(Nd a, const int *perm) {
    int shape[8], idx[8], src[8];
    for (int d = 0; d < a.rank; d++) shape[d] = a.shape[perm[d]];
    Nd r = nd(a.rank, shape, NULL);
    for (int f = 0; f < numel(&r); f++) {
        coords(&r, f, idx);
        for (int d = 0; d < a.rank; d++) src[perm[d]] = idx[d];
        r.v[f] = *at(&a, src);
    }
    return r;
}

enum { SUM, MAX, MIN, CUMSUM, SORT, FLIP };

/* Along `axis`, each run of a's elements (a copy of a): cumsum, sorted ascending, or
 * reversed. */
static Nd along(Nd a, int axis, int kind) {
    Nd r = nd(a.rank, a.shape, NULL);
    int len = a.shape[axis], inner = 1, idx[8];
    for (int d = axis + 1; d < a.rank; d++) inner *= a.shape[d];
    int32_t *run = calloc((size_t)len, 4);
    for (int f = 0; f < numel(&a); f++) {
        coords(&a, f, idx);
        if (idx[axis]) continue; /* f starts a run */
        for (int k = 0; k < len; k++) run[k] = a.v[f + k * inner];
        for (int k = 1; kind == CUMSUM && k < len; k++) run[k] += run[k - 1];
        for (int k = 1; kind == SORT && k < len; k++) /* insertion sort */
            for (int j = k; j > 0 && run[j - 1] > run[j]; j--) {
                int32_t t = run[j];
                run[j] = run[j - 1], run[j - 1] = t;
            }
        for (int k = 0; k < len; k++) r.v[f + k * inner] = kind == FLIP ? run[len - 1 - k] : run[k];
    }
    free(run);
    return r;
}

static Nd reduce(Nd a, int axis, int kind) {
    int shape[8], idx[8], n = 0;
    for (int d = 0; d < a.rank; d++)
        if (d != axis) shape[n++] = a.shape[d];
    Nd r = nd(n, shape, NULL);
    int *seen = calloc((size_t)numel(&r), sizeof(int));
    for (int f = 0; f < numel(&a); f++) {
        coords(&a, f, idx);
        int g = 0;
        for (int d = 0; d < a.rank; d++)
            if (d != axis) g = g * a.shape[d] + idx[d];
        int32_t x = a.v[f], *y = &r.v[g];
        if (!seen[g]++) *y = x;
        else *y = kind == SUM ? *y + x : kind == MAX ? (x > *y ? x : *y) : (x < *y ? x : *y);
    }
    free(seen);
    return r;
}

/* out[k] for k < 2048: want's elements, repeated (rank-host.nr's rows()) */
static void expect_rows(const char *what, const int32_t *out, Nd want) {
    int n = numel(&want);
    for (int k = 0; k < 2048; k++)
        EXPECT(out[k] == want.v[k % n], "%s[%d]: %d, want %d", what, k % n, out[k], want.v[k % n]);
}

static void expect_all(const char *what, const int32_t *out, Nd want) {
    for (int k = 0; k < numel(&want); k++)
        EXPECT(out[k] == want.v[k], "%s[%d]: %d, want %d", what, k, out[k], want.v[k]);
}

static int32_t *X, *O;
static void call_chained5(void *p) { (void)p, chained5(X, O); }
static void call_shapes6(void *p) { (void)p, shapes6(X, O); }
static void call_expand5(void *p) { (void)p, expand5(X, O); }
static void call_scan5(void *p) { (void)p, scan5(X, O); }

static void inputs(int n, int outs) {
    X = calloc((size_t)n, 4), O = calloc((size_t)outs, 4);
    for (int i = 0; i < n; i++) X[i] = (i * 37) % 101 - 50 + (i % 13 == 5) * 1000;
}

static void check_chained5(int w, const int *dims, const int *perm, const int *red) {
    Nd x = nd(5, dims, NULL);
    inputs(numel(&x), 2048);
    memcpy(x.v, X, (size_t)numel(&x) * 4);
    emu_launch(1, 1, 1, 32 * w, call_chained5, NULL);
    Nd r = permute(x, perm);
    for (int i = 0; i < 3; i++) r = reduce(r, red[i], SUM);
    expect_rows("sums", O, r);
}

static void check_shapes6(int w) {
    inputs(4096, 12288);
    static const int ys[6] = {2, 4, 2, 8, 4, 4}, yp[6] = {5, 3, 0, 4, 1, 2};
    static const int ps[5] = {4, 2, 8, 8, 4}, pp[5] = {3, 0, 4, 2, 1};
    emu_launch(1, 1, 1, 32 * w, call_shapes6, NULL);
    Nd y = nd(6, ys, X), z = permute(y, yp), p = permute(nd(5, ps, X), pp);
    expect_all("permuted", O, z);
    expect_all("flattened", O + 2048, z);
    for (int k = 0; k < 2048; k++) p.v[k] = 3 * p.v[k] + X[2048 + k];
    expect_all("5-D sum of layouts", O + 4096, p);
    expect_rows("sum over axes 1 and 3", O + 6144, reduce(reduce(z, 1, SUM), 2, SUM));
    expect_rows("max over axis 5", O + 8192, reduce(z, 5, MAX));
    expect_rows("min over axis 3", O + 10240, reduce(y, 3, MIN));
}

static void check_expand5(int w) {
    inputs(16, 6144);
    static const int fs[5] = {4, 2, 2, 8, 8};
    emu_launch(1, 1, 1, 32 * w, call_expand5, NULL);
    Nd d = nd(5, fs, NULL), f = nd(5, fs, NULL);
    int idx[5];
    for (int k = 0; k < numel(&d); k++) {
        coords(&d, k, idx);
        int32_t a = X[idx[1] * 8 + idx[3]];
        d.v[k] = a + idx[4] + 100 * idx[0], f.v[k] = d.v[k] + 1000 * a;
    }
    expect_all("broadcast", O, f);
    expect_rows("sum over axis 2", O + 2048, reduce(d, 2, SUM));
    expect_rows("max over axis 0", O + 4096, reduce(f, 0, MAX));
}

static void check_scan5(int w, int axis) {
    inputs(2048, 6144);
    static const int vs[5] = {2, 4, 8, 4, 8};
    emu_launch(1, 1, 1, 32 * w, call_scan5, NULL);
    Nd v = nd(5, vs, X);
    expect_all("cumsum", O, along(v, axis, CUMSUM));
    expect_all("sort", O + 2048, along(v, axis, SORT));
    expect_all("flip", O + 4096, along(v, axis, FLIP));
}

int main(int argc, char **argv) {
    int v[13];
    if (argc == 16 && !strcmp(argv[1], "chained5")) {
        for (int i = 0; i < 13; i++) v[i] = atoi(argv[3 + i]);
        check_chained5(atoi(argv[2]), v, v + 5, v + 10);
    } else if (argc == 3 && !strcmp(argv[1], "shapes6")) {
        check_shapes6(atoi(argv[2]));
    } else if (argc == 3 && !strcmp(argv[1], "expand5")) {
        check_expand5(atoi(argv[2]));
    } else if (argc == 4 && !strcmp(argv[1], "scan5")) {
        check_scan5(atoi(argv[2]), atoi(argv[3]));
    } else {
        return printf("usage: rank-host chained5 WARPS D0..D4 P0..P4 R0 R1 R2 | shapes6 WARPS | "
                      "expand5 WARPS | scan5 WARPS AXIS\n"),
               2;
    }
    printf("%s: %d wrong\n", argv[1], bad);
    return bad != 0;
}
