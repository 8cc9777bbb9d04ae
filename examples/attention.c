/* attention.c - fused attention with dropout drawn inside the kernels (examples/attention.nr):
 * forward (o and the log-sum-exp) and backward (dq, dk, dv) on small odd shapes, against
 * a plain-C double-precision reference that draws the same dropout mask.
 *
 * Each case runs the five kernels as a training step would: _attn_fwd, then
 * _attn_bwd_preprocess (delta = rowsum(do * o)), _attn_bwd_dkdv and _attn_bwd_dq, and
 * for dropout cases _attn_mask, the debug kernel that writes the keep mask the others
 * draw; then the one-kernel backward _attn_bwd_fused (dk, dv, and dq summed by atomics
 * into an fp32 accumulator), whose dq, dk and dv are checked the same way (column "1k":
 * the worst of the three). The cases cover T in {1, 17, 100, 130} (ragged last blocks
 * of rows and columns), head_dim 16, 32 and 64, causal and not, dropout 0 and 0.3, fp16 and bf16,
 * several block sizes (BLOCK_M above, equal to and below BLOCK_N, which moves the causal diagonal
 * through the blocks differently), 32 and 64-bit seeds, and (batch, seq, heads, dim) tensors passed
 * as strided views.
 *
 * The mask. The reference computes it from the definition in attention.nr with
 * tests/unit/philox_ref.h, the project's plain-C Philox4x32-10 (shared/design/philox.md),
 * checked first against philox.md's known answers read off Triton. Then for every
 * dropout case the mask _attn_mask writes must equal it bit for bit, on every head, row
 * and column; o, dq, dk and dv would be far off if the kernels drew another.
 *
 * Tolerances: per element, from the magnitudes of the terms the kernels sum, the way
 * error bounds of dot products go (what the kernels do to these exact inputs, rounded):
 *   u   the input type's unit roundoff: 2^-11 for fp16, 2^-8 for bf16. The kernels round
 *       p (and dS) to it before the second dot, as Triton's do and as the interpreter
 *       does too, and round their outputs to it.
 *   e_i the error of row i's fp32 scores and lse: (D + 16) * 2^-24 * (A_i + |lse_i| + 1),
 *       A_i = max_j sm_scale * sum_d |q_id k_jd| (an fp32 dot of D exact products, then
 *       exp2/log2 of the result; on the GPU ex2.approx and tensor-core sums stay within
 *       it). P's relative error is then eps_i = u + 4 e_i.
 *   o:   2 (u |o| + eps_i sum_j P_ij Z_ij |v_jd|)          (Z = keep / (1 - p))
 *   lse: 2 e_i
 *   dv:  2 (u |dv| + sum_i eps_i P_ij Z_ij |do_id|)
 *   dq:  2 (u |dq| + sm_scale sum_j ((u + eps_i) |dS_ij| + P_ij dd_i) |k_jd|)
 *   dk:  2 (u |dk| + sm_scale sum_i ((u + eps_i) |dS_ij| + P_ij dd_i) |q_id|)
 * where dd_i = sum_d |do_id| (u |o_id| + eps_i sum_j P Z |v_jd|) bounds the error of
 * delta_i, which the kernels compute from the rounded o. The factor 2 is the margin;
 * each bound also gets 1e-6 absolute (fp16's subnormal steps). A wrong mask, a missed
 * block or a wrong scale is off by 1e-2 to 1 against bounds of 1e-4 to 1e-2.
 *
 * On the CPU interpreter the whole run takes about a second.
 *
 *   build/examples/attention [--quiet] */
#include "common.h"

typedef struct Strides {
    long z, h, m, k; /* batch, head, seq, dim: element (b, h, t, d) at b*z + h*h + t*m + d*k */
} Strides;

typedef struct Case {
    int B, H, T, D;
    int causal;
    float p;        /* dropout probability; 0 compiles DROPOUT=False */
    int bf16;       /* the element type: bf16, else fp16 */
    int bthd;       /* every tensor stored (batch, seq, heads, dim), passed as a strided view */
    float sm_scale; /* 0: 1 / sqrt(D) */
    uint64_t seed;
    int fwd_bm, fwd_bn; /* BLOCK_M, BLOCK_N of each kernel; BLOCK_N % 64 == 0 with dropout */
    int kv_bm, kv_bn;
    int dq_bm, dq_bn;
    int low; /* q in [-4.5, -3.5], k in [1, 2]: every score far below 0 (lse too) */
} Case;

static const Case cases[] = {
    /* B  H    T   D  causal  p     bf16 bthd scale  seed                    fwd      dkdv     dq */
    {2, 3, 1, 16, 0, 0.0f, 0, 0, 0.0f, 0, 16, 16, 16, 16, 16, 16, 0},
    {2, 3, 17, 32, 1, 0.3f, 1, 0, 0.0f, 12345, 16, 64, 16, 64, 16, 64, 0},
    {2, 3, 100, 64, 0, 0.3f, 0, 1, 0.0f, 0x0123456789abcdefull, 32, 64, 16, 64, 32, 64, 0},
    {2, 3, 130, 16, 1, 0.0f, 1, 0, 0.5f, 0, 64, 32, 16, 32, 32, 16, 0},
    {2, 3, 130, 32, 1, 0.3f, 0, 0, 0.5f, 7, 16, 64, 32, 64, 64, 64, 0},
    {2, 3, 100, 16, 1, 0.3f, 1, 1, 0.0f, 0xfedcba9876543210ull, 128, 64, 64, 64, 16, 128, 0},
    {2, 3, 17, 64, 0, 0.0f, 1, 0, 0.0f, 0, 16, 32, 32, 16, 16, 32, 0},
    {2, 3, 1, 32, 1, 0.3f, 0, 0, 0.0f, 42, 16, 64, 16, 64, 16, 64, 0},
    {2, 3, 130, 64, 1, 0.3f, 1, 1, 0.0f, 0xffffffffull, 64, 128, 32, 128, 64, 64, 0},
    {2, 3, 100, 32, 0, 0.0f, 0, 1, 0.3f, 0, 32, 32, 32, 32, 32, 32, 0},
    /* scores far below 0 and T off the key blocks, not causal: a zero key past T gets
     * P = exp(-lse), huge, whose dS must not reach dq (inf * 0) */
    {2, 3, 17, 16, 0, 0.0f, 0, 0, 0.0f, 0, 16, 64, 16, 64, 16, 64, 1},
    {2, 3, 100, 64, 0, 0.3f, 0, 1, 0.0f, 99, 32, 64, 64, 64, 32, 64, 1},
};

/* ---- the mask, as attention.nr defines it ---- */

/* keep(b, h, row, col): Philox4x32-10 keyed by seed on the counter (row * G + g, b * H +
 * h, 0, 0), half k = (col / 8) % 8 of it (the low or high 16 bits of word k / 2), kept
 * when >= t = floor(p * 65536 + 0.5). */
static int keep_ref(uint64_t seed, long bh, long T, long row, long col, float p) {
    uint32_t G = (uint32_t)((T + 63) / 64 * 8), g = (uint32_t)(col / 64 * 8 + col % 8),
             k = (uint32_t)(col / 8) % 8;
    uint32_t c[4] = {(uint32_t)row * G + g, (uint32_t)bh, 0, 0};
    philox_ref(seed, c);
    uint32_t half = k & 1 ? c[k / 2] >> 16 : c[k / 2] & 0xFFFFu;
    return half >= (uint32_t)(p * 65536.0f + 0.5f);
}

/* philox.md's known answers (seed, offset -> word 0, its uniform), read off Triton 3.6 */
static int check_philox(int quiet) {
    static const struct {
        uint64_t seed;
        uint32_t offset, word;
        float u;
    } ka[] = {
        {123, 0, 287538396u, 0.13389549f},         {0, 0, 1713891541u, 0.79809290f},
        {1, 0, 3823634032u, 0.21948163f},          {512, 1048576, 1436211289u, 0.66878796f},
        {2147483647, 0, 1474427545u, 0.68658376f},
    };
    int bad = 0;
    for (int i = 0; i < EX_COUNT(ka); i++) {
        uint32_t c[4] = {ka[i].offset, 0, 0, 0};
        philox_ref(ka[i].seed, c);
        if (c[0] != ka[i].word || fabsf(philox_uniform(c[0]) - ka[i].u) > 1e-7f) {
            printf("  Philox known answer %d: seed %llu offset %u gave %u (%.8f), want %u (%.8f)\n",
                   i, (unsigned long long)ka[i].seed, ka[i].offset, c[0], philox_uniform(c[0]),
                   ka[i].word, ka[i].u);
            bad++;
        }
    }
    if (!quiet)
        printf("C Philox against philox.md's %d known answers: %s\n", EX_COUNT(ka),
               bad ? "FAILED" : "ok");
    return bad == 0;
}

/* ---- the reference ---- */

/* Everything of one case, (b, h, t, d) and (b, h, t) contiguous in double: the values and
 * each element's tolerance. */
typedef struct Ref {
    double *o, *lse, *dq, *dk, *dv;
    double *to, *tlse, *tdq, *tdk, *tdv;
} Ref;

/* The head's inputs (t, d) contiguous, as the kernels see them (rounded to the type). */
typedef struct Head {
    const float *q, *k, *v, *dout;
} Head;

/* Reference for one (batch, head) hd = b * H + h; outputs at offset hd * T * D (hd * T
 * for lse). */
static void reference_head(const Case *c, Head in, long hd, double scale, double u, double *P,
                           double *dS, Ref *r) {
    long T = c->T, D = c->D, off = hd * T * D;
    double zk = c->p > 0 ? 1.0 / (1.0 - (double)c->p) : 1.0;
    double *eps = ex_xmalloc(sizeof(double) * (size_t)T),
           *dd = ex_xmalloc(sizeof(double) * (size_t)T);
    double *delta = ex_xmalloc(sizeof(double) * (size_t)T);
    /* P and Z (folded into PZ below through keep) */
    unsigned char *keep = ex_xmalloc((size_t)(T * T));
    for (long i = 0; i < T; i++)
        for (long j = 0; j < T; j++)
            keep[i * T + j] = c->p > 0 ? (unsigned char)keep_ref(c->seed, hd, T, i, j, c->p) : 1;
    for (long i = 0; i < T; i++) {
        long lim = c->causal ? i + 1 : T;
        double m = -INFINITY, a = 0.0, l = 0.0;
        for (long j = 0; j < lim; j++) {
            double s = 0.0, sa = 0.0;
            for (long d = 0; d < D; d++)
                s += (double)in.q[i * D + d] * in.k[j * D + d],
                    sa += fabs((double)in.q[i * D + d] * in.k[j * D + d]);
            P[i * T + j] = s * scale;
            if (s * scale > m) m = s * scale;
            if (sa * scale > a) a = sa * scale;
        }
        for (long j = 0; j < lim; j++) l += exp(P[i * T + j] - m);
        for (long j = 0; j < T; j++) P[i * T + j] = j < lim ? exp(P[i * T + j] - m) / l : 0.0;
        double lse = m + log(l), e = (double)(D + 16) * 0x1p-24 * (a + fabs(lse) + 1.0);
        r->lse[hd * T + i] = lse, r->tlse[hd * T + i] = 2.0 * e + 1e-6;
        eps[i] = u + 4.0 * e;
        delta[i] = dd[i] = 0.0;
        for (long d = 0; d < D; d++) {
            double o = 0.0, mo = 0.0;
            for (long j = 0; j < lim; j++) {
                double pz = keep[i * T + j] ? P[i * T + j] * zk : 0.0;
                o += pz * in.v[j * D + d], mo += pz * fabs((double)in.v[j * D + d]);
            }
            r->o[off + i * D + d] = o;
            r->to[off + i * D + d] = 2.0 * (u * fabs(o) + eps[i] * mo) + 1e-6;
            delta[i] += (double)in.dout[i * D + d] * o;
            dd[i] += fabs((double)in.dout[i * D + d]) * (u * fabs(o) + eps[i] * mo);
        }
    }
    /* dS = P * (Z * (do v^T) - delta) */
    for (long i = 0; i < T; i++)
        for (long j = 0; j < T; j++) {
            double dp = 0.0;
            for (long d = 0; d < D; d++) dp += (double)in.dout[i * D + d] * in.v[j * D + d];
            dS[i * T + j] = P[i * T + j] * ((keep[i * T + j] ? dp * zk : 0.0) - delta[i]);
        }
    for (long i = 0; i < T; i++)
        for (long d = 0; d < D; d++) { /* dq_i = scale * sum_j dS_ij k_j */
            double g = 0.0, b = 0.0;
            for (long j = 0; j < T; j++) {
                g += dS[i * T + j] * in.k[j * D + d];
                b += ((u + eps[i]) * fabs(dS[i * T + j]) + P[i * T + j] * dd[i]) *
                     fabs((double)in.k[j * D + d]);
            }
            r->dq[off + i * D + d] = scale * g;
            r->tdq[off + i * D + d] = 2.0 * (u * fabs(scale * g) + scale * b) + 1e-6;
        }
    for (long j = 0; j < T; j++)
        for (long d = 0; d < D;
             d++) { /* dk_j = scale * sum_i dS_ij q_i, dv_j = sum_i (P Z)_ij do_i */
            double gk = 0.0, bk = 0.0, gv = 0.0, bv = 0.0;
            for (long i = 0; i < T; i++) {
                double pz = keep[i * T + j] ? P[i * T + j] * zk : 0.0;
                gk += dS[i * T + j] * in.q[i * D + d];
                bk += ((u + eps[i]) * fabs(dS[i * T + j]) + P[i * T + j] * dd[i]) *
                      fabs((double)in.q[i * D + d]);
                gv += pz * in.dout[i * D + d];
                bv += eps[i] * pz * fabs((double)in.dout[i * D + d]);
            }
            r->dk[off + j * D + d] = scale * gk;
            r->tdk[off + j * D + d] = 2.0 * (u * fabs(scale * gk) + scale * bk) + 1e-6;
            r->dv[off + j * D + d] = gv;
            r->tdv[off + j * D + d] = 2.0 * (u * fabs(gv) + bv) + 1e-6;
        }
    free(eps), free(dd), free(delta), free(keep);
}

/* ---- host data ---- */

static float to_float(uint16_t x, int bf16) { return bf16 ? ex_bf2f(x) : ex_h2f(x); }
static uint16_t from_float(float x, int bf16) { return bf16 ? ex_f2bf(x) : ex_f2h(x); }

static Strides layout(const Case *c) {
    long T = c->T, H = c->H, D = c->D;
    if (c->bthd) return (Strides){T * H * D, D, H * D, 1};
    return (Strides){H * T * D, T * D, D, 1};
}

/* A tensor of the case: random values in [lo, hi) rounded to the type, stored with the
 * case's strides (host bits) and (b, h, t, d) contiguous as floats (for the reference). */
static void make_input(const Case *c, ex_rng *rng, float lo, float hi, uint16_t *bits,
                       float *vals) {
    Strides s = layout(c);
    for (long b = 0; b < c->B; b++)
        for (long h = 0; h < c->H; h++)
            for (long t = 0; t < c->T; t++)
                for (long d = 0; d < c->D; d++) {
                    uint16_t x = from_float(ex_rng_float(rng, lo, hi), c->bf16);
                    bits[b * s.z + h * s.h + t * s.m + d * s.k] = x;
                    vals[((b * c->H + h) * c->T + t) * c->D + d] = to_float(x, c->bf16);
                }
}

/* The worst |got - want| / tol over a tensor stored with the case's strides (bits) or
 * contiguous fp32 (f32, lse); prints the worst element when one is over. */
static double check(const Case *c, const char *what, const uint16_t *bits, const float *f32,
                    const double *want, const double *tol, int *ok) {
    Strides s = layout(c);
    long n = f32 ? (long)c->B * c->H * c->T : (long)c->B * c->H * c->T * c->D, worst = 0;
    double worst_ratio = 0.0, worst_got = 0.0;
    for (long i = 0; i < n; i++) {
        double got;
        if (f32) {
            got = f32[i];
        } else {
            long d = i % c->D, t = i / c->D % c->T, h = i / c->D / c->T % c->H,
                 b = i / c->D / c->T / c->H;
            got = to_float(bits[b * s.z + h * s.h + t * s.m + d * s.k], c->bf16);
        }
        double ratio = isfinite(got) ? fabs(got - want[i]) / tol[i] : INFINITY;
        if (ratio > worst_ratio || i == 0) worst_ratio = ratio, worst = i, worst_got = got;
    }
    if (worst_ratio > 1.0) {
        printf("  %s: worst element %ld: got %.7g, want %.7g (tolerance %.3g)\n", what, worst,
               worst_got, want[worst], tol[worst]);
        *ok = 0;
    }
    return worst_ratio;
}

/* ---- running the kernels ---- */

enum { MAX_MODULES = 8 }; /* kernel_for's modules of one case: six kernels now */

/* attention.nr compiled for one kernel with its constexprs */
static nr_kernel *kernel_for(nr_context *ctx, const Case *c, const char *name, int bm, int bn,
                             nr_module **mods, int *nmods) {
    ex_defines defs = {0};
    const char *dir = getenv("NEREID_EXAMPLES");
    char path[4096];
    snprintf(path, sizeof path, "%s/attention.nr", dir && *dir ? dir : "examples");
    ex_define(&defs, "DT", "%s", c->bf16 ? "bf16" : "fp16");
    ex_define(&defs, "HEAD_DIM", "%d", c->D);
    ex_define(&defs, "BLOCK_M", "%d", bm);
    ex_define(&defs, "BLOCK_N", "%d", bn);
    ex_define(&defs, "CAUSAL", "%s", c->causal ? "True" : "False");
    ex_define(&defs, "DROPOUT", "%s", c->p > 0 ? "True" : "False");
    nr_compile_options opts = {.defines = defs.d, .num_defines = defs.n, .kernel = name};
    nr_module *m = NULL;
    nr_status st = nr_compile_file(ctx, path, &opts, &m);
    if (st != NR_OK) ex_fail(ctx, st, name);
    if (*nmods >= MAX_MODULES) {
        fprintf(stderr, "attention: more than %d modules in a case\n", MAX_MODULES);
        exit(1);
    }
    mods[(*nmods)++] = m;
    return ex_kernel(ctx, m, name);
}

static void push_strides(nr_arg *a, int *n, Strides s) {
    a[(*n)++] = nr_arg_i32((int32_t)s.z), a[(*n)++] = nr_arg_i32((int32_t)s.h);
    a[(*n)++] = nr_arg_i32((int32_t)s.m), a[(*n)++] = nr_arg_i32((int32_t)s.k);
}

static void push_scalars(nr_arg *a, int *n, const Case *c, float scale, int with_scale) {
    a[(*n)++] = nr_arg_i32(c->H), a[(*n)++] = nr_arg_i32(c->T);
    if (with_scale) {
        a[(*n)++] = nr_arg_f32(scale), a[(*n)++] = nr_arg_f32(c->p);
        a[(*n)++] = nr_arg_i64((int64_t)c->seed);
    }
}

enum { Q, K, V, O, DO, DQ, DK, DV, DK2, DV2, DQ2, NT }; /* DK2..DQ2: the one-kernel backward's */

/* One case: returns 1 if every check passed. */
static int run_case(nr_context *ctx, const Case *c, ex_rng *rng, int quiet) {
    long B = c->B, H = c->H, T = c->T, D = c->D, n = B * H * T * D, rows = B * H * T;
    float scale = c->sm_scale > 0 ? c->sm_scale : 1.0f / sqrtf((float)D);
    double u = c->bf16 ? 0x1p-8 : 0x1p-11;
    Strides st = layout(c);
    size_t tbytes = 2 * (size_t)n;

    uint16_t *bits[NT];
    float *vals[4];
    for (int i = 0; i < NT; i++) bits[i] = ex_xmalloc(tbytes);
    for (int i = 0; i < 4; i++) vals[i] = ex_xmalloc(sizeof(float) * (size_t)n);
    /* scores sm_scale * q.k spread over ~[-5, 5], or all far below 0 */
    make_input(c, rng, c->low ? -4.5f : -2.0f, c->low ? -3.5f : 2.0f, bits[Q], vals[0]);
    make_input(c, rng, c->low ? 1.0f : -2.0f, 2.0f, bits[K], vals[1]);
    make_input(c, rng, -1.0f, 1.0f, bits[V], vals[2]);
    make_input(c, rng, -1.0f, 1.0f, bits[DO], vals[3]);

    nr_devptr dev[NT];
    for (int i = 0; i < NT; i++)
        dev[i] = i == Q || i == K || i == V || i == DO ? ex_upload(ctx, bits[i], tbytes)
                                                       : ex_alloc(ctx, tbytes);
    nr_devptr dlse = ex_alloc(ctx, sizeof(float) * (size_t)rows),
              ddelta = ex_alloc(ctx, sizeof(float) * (size_t)rows);

    nr_module *mods[MAX_MODULES];
    int nmods = 0;
    nr_kernel *kf = kernel_for(ctx, c, "_attn_fwd", c->fwd_bm, c->fwd_bn, mods, &nmods);
    nr_kernel *kp = kernel_for(ctx, c, "_attn_bwd_preprocess", c->fwd_bm, c->fwd_bn, mods, &nmods);
    nr_kernel *kkv = kernel_for(ctx, c, "_attn_bwd_dkdv", c->kv_bm, c->kv_bn, mods, &nmods);
    nr_kernel *kq = kernel_for(ctx, c, "_attn_bwd_dq", c->dq_bm, c->dq_bn, mods, &nmods);
    nr_kernel *kfu = kernel_for(ctx, c, "_attn_bwd_fused", c->kv_bm, c->kv_bn, mods, &nmods);

    nr_arg a[48];
    int na = 0;
    unsigned bh = (unsigned)(B * H);
    /* forward: q, k, v, o, lse */
    a[na++] = nr_arg_ptr(dev[Q]), a[na++] = nr_arg_ptr(dev[K]), a[na++] = nr_arg_ptr(dev[V]),
    a[na++] = nr_arg_ptr(dev[O]);
    a[na++] = nr_arg_ptr(dlse);
    for (int i = 0; i < 4; i++) push_strides(a, &na, st);
    push_scalars(a, &na, c, scale, 1);
    double ms_fwd = ex_launch(ctx, kf, (unsigned)ex_cdiv(T, c->fwd_bm), bh, a, na);
    /* backward: delta, then dk and dv, then dq */
    na = 0;
    a[na++] = nr_arg_ptr(dev[O]), a[na++] = nr_arg_ptr(dev[DO]), a[na++] = nr_arg_ptr(ddelta);
    push_strides(a, &na, st), push_strides(a, &na, st);
    push_scalars(a, &na, c, scale, 0);
    double ms_bwd = ex_launch(ctx, kp, (unsigned)ex_cdiv(T, c->fwd_bm), bh, a, na);
    na = 0;
    a[na++] = nr_arg_ptr(dev[Q]), a[na++] = nr_arg_ptr(dev[K]), a[na++] = nr_arg_ptr(dev[V]),
    a[na++] = nr_arg_ptr(dev[DO]);
    a[na++] = nr_arg_ptr(dev[DK]), a[na++] = nr_arg_ptr(dev[DV]), a[na++] = nr_arg_ptr(dlse),
    a[na++] = nr_arg_ptr(ddelta);
    for (int i = 0; i < 6; i++) push_strides(a, &na, st);
    push_scalars(a, &na, c, scale, 1);
    ms_bwd += ex_launch(ctx, kkv, (unsigned)ex_cdiv(T, c->kv_bn), bh, a, na);
    na = 0;
    a[na++] = nr_arg_ptr(dev[Q]), a[na++] = nr_arg_ptr(dev[K]), a[na++] = nr_arg_ptr(dev[V]),
    a[na++] = nr_arg_ptr(dev[DO]);
    a[na++] = nr_arg_ptr(dev[DQ]), a[na++] = nr_arg_ptr(dlse), a[na++] = nr_arg_ptr(ddelta);
    for (int i = 0; i < 5; i++) push_strides(a, &na, st);
    push_scalars(a, &na, c, scale, 1);
    ms_bwd += ex_launch(ctx, kq, (unsigned)ex_cdiv(T, c->dq_bm), bh, a, na);
    /* the one-kernel backward: dk and dv again, dq summed into a zeroed fp32 accumulator
     * ([B * H, T, D] contiguous) by atomics, rounded here as attention.py rounds it */
    float *dqacc = ex_xmalloc(sizeof(float) * (size_t)n);
    memset(dqacc, 0, sizeof(float) * (size_t)n);
    nr_devptr ddqacc = ex_upload(ctx, dqacc, sizeof(float) * (size_t)n);
    na = 0;
    a[na++] = nr_arg_ptr(dev[Q]), a[na++] = nr_arg_ptr(dev[K]), a[na++] = nr_arg_ptr(dev[V]),
    a[na++] = nr_arg_ptr(dev[DO]);
    a[na++] = nr_arg_ptr(dev[DK2]), a[na++] = nr_arg_ptr(dev[DV2]), a[na++] = nr_arg_ptr(dlse),
    a[na++] = nr_arg_ptr(ddelta), a[na++] = nr_arg_ptr(ddqacc);
    for (int i = 0; i < 6; i++) push_strides(a, &na, st);
    push_scalars(a, &na, c, scale, 1);
    double ms_fused = ex_launch(ctx, kfu, (unsigned)ex_cdiv(T, c->kv_bn), bh, a, na);
    ex_download(ctx, dqacc, ddqacc, sizeof(float) * (size_t)n);
    for (long i = 0; i < n; i++) {
        long d = i % D, t = i / D % T, h = i / D / T % H, b = i / D / T / H;
        bits[DQ2][b * st.z + h * st.h + t * st.m + d * st.k] = from_float(dqacc[i], c->bf16);
    }
    free(dqacc);
    ex_free(ctx, ddqacc);

    float *lse = ex_xmalloc(sizeof(float) * (size_t)rows);
    for (int i = O; i < NT; i++)
        if (i != DO && i != DQ2) ex_download(ctx, bits[i], dev[i], tbytes);
    ex_download(ctx, lse, dlse, sizeof(float) * (size_t)rows);

    /* the debug kernel's mask against the C mask, bit for bit */
    long mask_bad = 0;
    if (c->p > 0) {
        nr_kernel *km = kernel_for(ctx, c, "_attn_mask", 64, 64, mods, &nmods);
        nr_devptr dmask = ex_alloc(ctx, (size_t)(B * H * T * T));
        nr_arg ma[] = {nr_arg_ptr(dmask),      nr_arg_i32((int32_t)(T * T)),
                       nr_arg_i32((int32_t)T), nr_arg_i32(1),
                       nr_arg_i32(0),          nr_arg_i32((int32_t)T),
                       nr_arg_f32(c->p),       nr_arg_i64((int64_t)c->seed)};
        unsigned grid[3] = {(unsigned)ex_cdiv(T, 64), (unsigned)ex_cdiv(T, 64), bh};
        EX_CHECK(ctx, nr_launch(km, grid, ma, EX_COUNT(ma), NULL));
        EX_CHECK(ctx, nr_synchronize(ctx));
        int8_t *mask = ex_xmalloc((size_t)(B * H * T * T));
        ex_download(ctx, mask, dmask, (size_t)(B * H * T * T));
        for (long z = 0; z < B * H; z++)
            for (long i = 0; i < T; i++)
                for (long j = 0; j < T; j++)
                    mask_bad += mask[(z * T + i) * T + j] != keep_ref(c->seed, z, T, i, j, c->p);
        if (mask_bad)
            printf("  _attn_mask: %ld of %ld elements differ from the C mask\n", mask_bad,
                   B * H * T * T);
        free(mask);
        ex_free(ctx, dmask);
    }

    /* the reference, head by head */
    Ref r;
    double **fields[] = {&r.o, &r.dq, &r.dk, &r.dv, &r.to, &r.tdq, &r.tdk, &r.tdv};
    for (int i = 0; i < EX_COUNT(fields); i++) *fields[i] = ex_xmalloc(sizeof(double) * (size_t)n);
    r.lse = ex_xmalloc(sizeof(double) * (size_t)rows),
    r.tlse = ex_xmalloc(sizeof(double) * (size_t)rows);
    double *P = ex_xmalloc(sizeof(double) * (size_t)(T * T)),
           *dS = ex_xmalloc(sizeof(double) * (size_t)(T * T));
    for (long hd = 0; hd < B * H; hd++) {
        Head in = {vals[0] + hd * T * D, vals[1] + hd * T * D, vals[2] + hd * T * D,
                   vals[3] + hd * T * D};
        reference_head(c, in, hd, scale, u, P, dS, &r);
    }
    int ok = mask_bad == 0;
    double eo = check(c, "o", bits[O], NULL, r.o, r.to, &ok);
    double el = check(c, "lse", NULL, lse, r.lse, r.tlse, &ok);
    double eq = check(c, "dq", bits[DQ], NULL, r.dq, r.tdq, &ok);
    double ek = check(c, "dk", bits[DK], NULL, r.dk, r.tdk, &ok);
    double ev = check(c, "dv", bits[DV], NULL, r.dv, r.tdv, &ok);
    double eq2 = check(c, "dq (one kernel)", bits[DQ2], NULL, r.dq, r.tdq, &ok);
    double ek2 = check(c, "dk (one kernel)", bits[DK2], NULL, r.dk, r.tdk, &ok);
    double ev2 = check(c, "dv (one kernel)", bits[DV2], NULL, r.dv, r.tdv, &ok);
    double e1 = fmax(eq2, fmax(ek2, ev2));
    if (!quiet) {
        char blocks[64];
        snprintf(blocks, sizeof blocks, "%dx%d %dx%d %dx%d", c->fwd_bm, c->fwd_bn, c->kv_bm,
                 c->kv_bn, c->dq_bm, c->dq_bn);
        printf("%ldx%ldx%3ldx%2ld %-3s %4.2f %-4s %-4s %-18s %7.1f %7.1f %7.1f  %5.2f %5.2f %5.2f "
               "%5.2f %5.2f %5.2f %5s  %s\n",
               B, H, T, D, c->causal ? "yes" : "no", c->p, c->bf16 ? "bf16" : "fp16",
               c->bthd ? "bthd" : "bhtd", blocks, ms_fwd, ms_bwd, ms_fused, eo, el, eq, ek, ev, e1,
               c->p > 0 ? (mask_bad ? "WRONG" : "exact") : "-", ok ? "ok" : "FAILED");
    }

    for (int i = 0; i < EX_COUNT(fields); i++) free(*fields[i]);
    free(r.lse), free(r.tlse), free(P), free(dS), free(lse);
    for (int i = 0; i < NT; i++) free(bits[i]), ex_free(ctx, dev[i]);
    for (int i = 0; i < 4; i++) free(vals[i]);
    ex_free(ctx, dlse), ex_free(ctx, ddelta);
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    return ok;
}

int main(int argc, char **argv) {
    ex_args a = ex_parse_args(argc, argv, "[--quiet]");
    if (a.nsizes) return ex_finish(0, "no size arguments: the cases are fixed");
    nr_context *ctx = ex_context(&a);
    const char *dev = ex_device_name(ctx);
    int ok = check_philox(a.quiet);
    if (!a.quiet) {
        printf("fused attention, forward and backward, dropout drawn in the kernels, on %s\n", dev);
        printf("errors are shown as max |got - ref| / tolerance (<= 1 passes; see attention.c)\n");
        printf("%-14s %-3s %4s %-4s %-4s %-18s %7s %7s %7s  %5s %5s %5s %5s %5s %5s %5s  %s\n",
               "BxHxTxD", "cau", "p", "type", "view", "blocks fwd kv dq", "fwd ms", "bwd ms",
               "1k ms", "o", "lse", "dq", "dk", "dv", "1k", "mask", "result");
    }
    ex_rng rng = {9};
    for (int i = 0; i < EX_COUNT(cases); i++) ok &= run_case(ctx, &cases[i], &rng, a.quiet);
    nr_context_destroy(ctx);
    return ex_finish(ok,
                     "%s, %d cases: o, lse, dq, dk, dv within their bounds, dropout masks "
                     "bit-exact with C Philox",
                     dev, EX_COUNT(cases));
}
