/* layout_policy.c - the GPU back end's layout choices (see layout_policy.h). */
#include "layout_policy.h"

#include <string.h>

static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

static int log2_floor(int64_t x) {
    int k = 0;
    while (((int64_t)1 << (k + 1)) <= x) k++;
    return k;
}

IrLayout policy_default(IrType ty, int num_warps, int vec) {
    return policy_blocked(ty, num_warps, vec, ty.rank - 1);
}

IrLayout policy_blocked(IrType ty, int num_warps, int vec, int fast) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_BLOCKED;
    l.rank = ty.rank;
    int r = ty.rank;
    l.order[0] = (uint8_t)fast;
    for (int i = r - 1, k = 1; i >= 0; i--)
        if (i != fast) l.order[k++] = (uint8_t)i;
    for (int i = 0; i < r; i++) l.spt[i] = 1;
    if (vec < 1) vec = 1;
    if (vec > ty.shape[fast]) vec = ty.shape[fast];
    l.spt[fast] = (uint8_t)vec;
    int lanes_left = 32, warps_left = num_warps;
    for (int i = 0; i < r; i++) {
        int d = l.order[i];
        if (i == r - 1) {
            l.tpw[d] = (uint8_t)lanes_left, l.wpc[d] = (uint8_t)warps_left;
            break;
        }
        int per = ty.shape[d] / l.spt[d];
        if (per < 1) per = 1;
        int threads = clampi(lanes_left * warps_left, 1, per);
        int lanes = clampi(threads, 1, lanes_left);
        int warps = clampi(threads / lanes, 1, warps_left);
        l.tpw[d] = (uint8_t)lanes, l.wpc[d] = (uint8_t)warps;
        lanes_left /= lanes, warps_left /= warps;
    }
    return l;
}

bool policy_fma_tile(IrType ty, int num_warps, IrLayout *out) {
    int M = ty.shape[0], N = ty.shape[1], threads = 32 * num_warps;
    int64_t per = (int64_t)M * N / threads;
    if (ty.rank != 2 || per < 1) return false;
    int lp = log2_floor(per), ln = (lp + 1) / 2, lm = lp - ln; /* n_t >= m_t */
    int nt = 1 << ln, mt = 1 << lm;
    if (nt > N) nt = N, mt = (int)(per / nt);
    if (mt > M) mt = M, nt = (int)(per / mt);
    int tn = N / nt, tm = M / mt; /* threads along each dim: tn * tm == threads */
    if ((int64_t)tn * tm != threads) return false;
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_BLOCKED;
    l.rank = 2;
    l.order[0] = 1, l.order[1] = 0;
    l.spt[0] = (uint8_t)(mt < 4 ? mt : 4), l.spt[1] = (uint8_t)(nt < 4 ? nt : 4);
    l.tpw[1] = (uint8_t)(tn < 32 ? tn : 32), l.tpw[0] = (uint8_t)(32 / l.tpw[1]);
    l.wpc[1] = (uint8_t)(tn / l.tpw[1]), l.wpc[0] = (uint8_t)(num_warps / l.wpc[1]);
    if (l.tpw[0] * l.wpc[0] != tm || l.wpc[0] < 1) return false;
    *out = l;
    return true;
}

bool policy_transpose_tile(IrType t, int num_warps, int from, IrLayout *out) {
    int to = 1 - from, eb = dt_bytes(t.dt), v = 16 / eb, threads = 32 * num_warps;
    if (t.rank != 2 || eb > 4) return false;
    int64_t per = (int64_t)t.shape[0] * t.shape[1] / threads; /* elements a thread holds */
    int vf = v < t.shape[from] ? v : t.shape[from];
    int vt = (int)(per / vf);
    if (vt > v) vt = v;
    if (vt > t.shape[to]) vt = t.shape[to];
    if (per < 1 || vt < 1 || (int64_t)vf * vt * threads > (int64_t)t.shape[0] * t.shape[1])
        return false;
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_BLOCKED, l.rank = 2;
    l.order[0] = (uint8_t)from, l.order[1] = (uint8_t)to;
    l.spt[from] = (uint8_t)vf, l.spt[to] = (uint8_t)vt;
    int lf = clampi(t.shape[from] / vf, 1, 32); /* lanes along `from` */
    l.tpw[from] = (uint8_t)lf, l.tpw[to] = (uint8_t)(32 / lf);
    int wt = clampi(t.shape[to] / (vt * l.tpw[to]), 1, num_warps); /* warps along `to` */
    l.wpc[to] = (uint8_t)wt, l.wpc[from] = (uint8_t)(num_warps / wt);
    if (l.tpw[to] * vt > t.shape[to] || l.wpc[from] * lf * vf > t.shape[from])
        return false; /* no duplicates */
    *out = l;
    return true;
}

int policy_k_width(int dt) { return dt == DT_FP32 ? 1 : dt_bits(dt) == 8 ? 4 : 2; }

static bool mma_input(int dt) {
    return dt == DT_FP16 || dt == DT_BF16 || dt == DT_FP32 || dt == DT_I8 || dt_is_fp8_ocp(dt);
}

bool policy_mma(int arch, int a_dt, bool ieee, IrType acc, int k, int num_warps, bool along_m,
                IrLayout *out) {
    int M = acc.shape[0], N = acc.shape[1], kw = policy_k_width(a_dt);
    if (arch < GPU_SM80 || !mma_input(a_dt) || (a_dt == DT_FP32 && ieee)) return false;
    if (M < 16 || N < 16) return false; /* smaller than one mma.sync */
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_MMA, l.rank = 2;
    if (arch == GPU_SM90A && num_warps % 4 == 0 && M % 64 == 0 && k >= 8 * kw) {
        /* wgmma: warpgroups along M as far as the rows go (64 each), the rest along N */
        int wgs = num_warps / 4, wg_m = M / 64 < wgs ? M / 64 : wgs, n = N / (wgs / wg_m);
        if ((!along_m || wg_m == wgs) && n >= 8) {
            l.version = 3, l.wpc[0] = (uint8_t)(4 * wg_m), l.wpc[1] = (uint8_t)(wgs / wg_m);
            l.instr_n = (uint16_t)(n > 256 ? 256 : n);
            *out = l;
            return true;
        }
    }
    /* mma.sync: fp8 operands are widened to fp16 first (exact; lower_dot_operands) */
    if (k < 8 * (dt_is_fp8(a_dt) ? 2 : kw)) return false;
    l.version = 2, l.instr_n = 8, l.wpc[0] = 1, l.wpc[1] = 1;
    /* warps along M, or spread over the tile as evenly as its 16x8 instructions allow */
    for (int w = 1; w < num_warps; w *= 2) {
        bool m_room = M >= 16 * l.wpc[0] * 2, n_room = N >= 8 * l.wpc[1] * 2;
        if (along_m || (m_room && (!n_room || M / (16 * l.wpc[0]) >= N / (8 * l.wpc[1]))))
            l.wpc[0] *= 2;
        else l.wpc[1] *= 2;
    }
    *out = l;
    return true;
}

IrLayout policy_shared_plain(int rank, int fast) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_SHARED, l.rank = (uint8_t)rank, l.vec = 1, l.per_phase = 1, l.max_phase = 1;
    l.order[0] = (uint8_t)fast;
    for (int d = rank - 1, k = 1; d >= 0; d--)
        if (d != fast) l.order[k++] = (uint8_t)d;
    return l;
}

IrLayout policy_shared(IrType t, int fast) {
    IrLayout l = policy_shared_plain(t.rank, fast);
    int eb = dt_bytes(t.dt == DT_SMEM ? t.pointee : t.dt), row = t.shape[fast] * eb;
    if (t.rank < 2 || row < 16 || eb > 16) return l;
    int w = row < 128 ? row : 128; /* swizzle width in bytes */
    l.vec = (uint8_t)(16 / eb), l.per_phase = (uint8_t)(128 / w), l.max_phase = (uint8_t)(w / 16);
    if (row > 128) l.atom = (uint16_t)(128 / eb);
    return l;
}
