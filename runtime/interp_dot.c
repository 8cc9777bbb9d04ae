/* interp_dot.c - dot: acc[M,N] + a[M,K] x b[K,N] (optionally batched over a leading
 * dim). Float inputs (fp16/bf16/fp32) multiply and add in fp32, each product and each
 * sum rounded, in k order: the reference every GPU path is compared with (prec=tf32 is
 * ignored). fp64 inputs or accumulator use double; integer inputs (i8 -> i32) wrap
 * at the accumulator's width. The loops are i-k-j over float copies so the j loop
 * vectorises while every c[i][j] still sees its k terms in order. */
#include "interp_impl.h"

typedef struct Dims {
    int64_t batch, m, n, k;
} Dims;

static void dot_f32(Dims D, const double *a, const double *b, const double *acc, double *r,
                    float *fa, float *fb, float *row) {
    for (int64_t i = 0; i < D.batch * D.m * D.k; i++) fa[i] = (float)a[i];
    for (int64_t i = 0; i < D.batch * D.k * D.n; i++) fb[i] = (float)b[i];
    for (int64_t z = 0; z < D.batch; z++)
        for (int64_t i = 0; i < D.m; i++) {
            int64_t ci = (z * D.m + i) * D.n;
            for (int64_t j = 0; j < D.n; j++) row[j] = (float)acc[ci + j];
            for (int64_t k = 0; k < D.k; k++) {
                float aik = fa[(z * D.m + i) * D.k + k];
                const float *bk = fb + (z * D.k + k) * D.n;
                for (int64_t j = 0; j < D.n; j++) {
                    float prod = aik * bk[j]; /* rounded to fp32 before the sum */
                    row[j] = row[j] + prod;
                }
            }
            for (int64_t j = 0; j < D.n; j++) r[ci + j] = row[j];
        }
}

static void dot_f64(Dims D, const double *a, const double *b, const double *acc, double *r) {
    memcpy(r, acc, 8 * (size_t)(D.batch * D.m * D.n));
    for (int64_t z = 0; z < D.batch; z++)
        for (int64_t i = 0; i < D.m; i++) {
            double *row = r + (z * D.m + i) * D.n;
            for (int64_t k = 0; k < D.k; k++) {
                double aik = a[(z * D.m + i) * D.k + k];
                const double *bk = b + (z * D.k + k) * D.n;
                for (int64_t j = 0; j < D.n; j++) {
                    double prod = aik * bk[j];
                    row[j] = row[j] + prod;
                }
            }
        }
}

static void dot_int(Dims D, const uint64_t *a, const uint64_t *b, const uint64_t *acc,
                    uint64_t *r) {
    memcpy(r, acc, 8 * (size_t)(D.batch * D.m * D.n));
    for (int64_t z = 0; z < D.batch; z++)
        for (int64_t i = 0; i < D.m; i++) {
            uint64_t *row = r + (z * D.m + i) * D.n;
            for (int64_t k = 0; k < D.k; k++) {
                uint64_t aik = a[(z * D.m + i) * D.k + k];
                const uint64_t *bk = b + (z * D.k + k) * D.n;
                for (int64_t j = 0; j < D.n; j++) row[j] += aik * bk[j];
            }
        }
}

int interp_dot(Ctx *c, const IrOp *op) {
    IrType at = opnd_ty(c, op, 0), bt = opnd_ty(c, op, 1), rt = res_ty(c, op, 0);
    int q = at.rank - 2;
    int64_t nb = 1; /* the batch dims, row-major: one batch after another */
    for (int d = 0; d < q; d++) nb *= at.shape[d];
    Dims D = {nb, at.shape[q], bt.shape[q + 1], at.shape[q + 1]};
    const void *a = interp_val_in(c, op, 0), *b = interp_val_in(c, op, 1),
               *acc = interp_val_in(c, op, 2);
    int64_t nr = D.batch * D.m * D.n;
    uint64_t *zeros = NULL; /* use_acc false: acc counts as zeros (0 and 0.0 alike) */
    if (op->nopnds == 4) {
        const uint64_t *use = interp_val_in(c, op, 3);
        if (!use) return -1;
        if (!(use[0] & 1)) {
            if (!(zeros = interp_pool_get(c, nr))) return -1;
            memset(zeros, 0, sizeof(uint64_t) * (size_t)nr);
            acc = zeros;
        }
    }
    void *r = a && b && acc ? interp_val_out(c, op, 0) : NULL;
    if (!r) {
        interp_pool_put(c, zeros);
        return -1;
    }
    if (!dt_is_float(rt.dt)) {
        dot_int(D, a, b, acc, r);
        IntFmt F = int_fmt(rt.dt);
        for (int64_t i = 0; i < nr; i++) ((uint64_t *)r)[i] = int_norm(F, ((uint64_t *)r)[i]);
        interp_pool_put(c, zeros);
        return 0;
    }
    if (at.dt == DT_FP64 || bt.dt == DT_FP64 || rt.dt == DT_FP64) {
        dot_f64(D, a, b, acc, r);
    } else {
        /* float scratch: pool buffers hold 8 bytes per element, so n floats fit in n/2 */
        float *fa = interp_pool_get(c, (D.batch * D.m * D.k + 1) / 2);
        float *fb = fa ? interp_pool_get(c, (D.batch * D.k * D.n + 1) / 2) : NULL;
        float *row = fb ? interp_pool_get(c, (D.n + 1) / 2) : NULL;
        if (row) dot_f32(D, a, b, acc, r, fa, fb, row);
        interp_pool_put(c, fa);
        interp_pool_put(c, fb);
        interp_pool_put(c, row);
        if (!row) {
            interp_pool_put(c, zeros);
            return -1;
        }
    }
    interp_pool_put(c, zeros);
    round_array(rt.dt, r, nr);
    return 0;
}
