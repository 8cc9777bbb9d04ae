/* layout.c - distributed layout arithmetic (see layout.h for the formulas). */
#include "layout.h"

#include <string.h>

static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

IrLayout layout_default(IrType ty, int num_warps, int vec) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_BLOCKED;
    l.rank = ty.rank;
    int r = ty.rank;
    for (int i = 0; i < r; i++) l.order[i] = (uint8_t)(r - 1 - i), l.spt[i] = 1;
    int fast = l.order[0];
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

static int log2_floor(int64_t x) {
    int k = 0;
    while (((int64_t)1 << (k + 1)) <= x) k++;
    return k;
}

bool layout_dot(IrType ty, int num_warps, IrLayout *out) {
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

void layout_dot_smem(const IrModule *m, uint32_t result_layout, IrType a, IrType b, DotSmem *out) {
    int eb = dt_bytes(a.dt), M = a.shape[0], K = a.shape[1], N = b.shape[1];
    int chunk = layout_root(m, result_layout)->spt[0] * eb;
    int pad = chunk < 4 ? 4 : chunk;
    out->a_pitch = M * eb + pad;
    out->b_offset = (K * out->a_pitch + 15) / 16 * 16;
    out->b_pitch = N * eb;
    out->bytes = out->b_offset + K * out->b_pitch;
}

const IrLayout *layout_root(const IrModule *m, uint32_t id) {
    const IrLayout *l = &m->layouts[id];
    while (l->kind == LAYOUT_SLICE) l = &m->layouts[l->parent];
    return l;
}

/* Map the block's dims to the root blocked layout's dims through nested slices. */
static void root_dims(const IrModule *m, uint32_t id, int rank, int *map) {
    const IrLayout *l = &m->layouts[id];
    if (l->kind == LAYOUT_BLOCKED) {
        for (int i = 0; i < rank; i++) map[i] = i;
        return;
    }
    int pm[NR_MAX_RANK + 1];
    root_dims(m, l->parent, rank + 1, pm);
    for (int i = 0, j = 0; i < rank + 1; i++)
        if (i != l->dim) map[j++] = pm[i];
}

void layout_dims(const IrModule *m, uint32_t id, IrType ty, LayoutDims *out) {
    memset(out, 0, sizeof *out);
    const IrLayout *b = layout_root(m, id);
    out->rank = ty.rank;
    root_dims(m, id, ty.rank, out->root_dim);
    for (int d = 0; d < ty.rank; d++) {
        int rd = out->root_dim[d], S = ty.shape[d];
        int spt = b->spt[rd], thr = b->tpw[rd] * b->wpc[rd];
        out->e[d] = spt < S ? spt : S;
        out->n[d] = S / thr > out->e[d] ? S / thr : out->e[d];
        out->tile[d] = spt * thr;
    }
    /* registers: the root layout's order, restricted to the block's dims */
    int stride = 1;
    for (int k = 0; k < b->rank; k++) {
        for (int d = 0; d < ty.rank; d++)
            if (out->root_dim[d] == b->order[k]) {
                out->stride[d] = stride;
                stride *= out->n[d];
            }
    }
    out->nregs = stride;
}

void layout_reg_offsets(const LayoutDims *ld, const IrModule *m, uint32_t id, int r, int64_t *pos, int *idx) {
    (void)m, (void)id;
    for (int d = 0; d < ld->rank; d++) {
        int i = (r / ld->stride[d]) % ld->n[d];
        idx[d] = i;
        pos[d] = (int64_t)(i / ld->e[d]) * ld->tile[d] + i % ld->e[d];
    }
}

bool layout_replicates(const IrModule *m, uint32_t id, IrType ty) {
    if (!id || !ty.rank) return false;
    if (m->layouts[id].kind == LAYOUT_SLICE) return true;
    const IrLayout *l = &m->layouts[id];
    for (int d = 0; d < ty.rank; d++)
        if (ty.shape[d] < l->spt[d] * l->tpw[d] * l->wpc[d]) return true;
    return false;
}

static void list(StrBuf *out, const char *name, const uint8_t *v, int n) {
    sb_printf(out, "%s=[", name);
    for (int i = 0; i < n; i++) sb_printf(out, i ? ", %d" : "%d", v[i]);
    sb_putc(out, ']');
}

void layout_print(StrBuf *out, const IrLayout *l) {
    if (l->kind == LAYOUT_SLICE) {
        sb_printf(out, "slice<dim=%d, parent=#L%u>", l->dim, l->parent);
        return;
    }
    sb_puts(out, "blocked<");
    list(out, "spt", l->spt, l->rank);
    sb_puts(out, ", ");
    list(out, "tpw", l->tpw, l->rank);
    sb_puts(out, ", ");
    list(out, "wpc", l->wpc, l->rank);
    sb_puts(out, ", ");
    list(out, "order", l->order, l->rank);
    sb_putc(out, '>');
}
