/* test_linear_layout.c - every layout kind's linear map (compiler/ir/ir_layout.c) against the
 * formulas it must agree with, written out independently here:
 * - blocked and slice layouts against the position formula the GPU back end used before
 *   linear layouts (register i_d of a thread at u_d = (i_d / e_d) * tile + w_d * spt *
 *   tpw + l_d * spt + i_d % e_d, the element u mod S), for random layouts and shapes;
 * - mma.sync's accumulator and operand fragments (f16/bf16 m16n8k16, tf32 m16n8k8, 8-bit
 *   m16n8k32) and wgmma's accumulator (m64nNk16) against the PTX ISA's fragment tables
 *   ("groupID" = lane / 4, "threadID_in_group" = lane % 4), with warps and repeats;
 * - swizzled shared layouts against the swizzle formula, with panels;
 * and the GF(2) helpers (solve, surjectivity, contiguity, offsets of a shared layout). */
#include "compiler/ir/ir_layout.h"

#include "compiler/analysis/layout_moves.h"

#include <stdlib.h>

#include "check.h"

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

static IrModule *mod;

static int log2i(int x) {
    int k = 0;
    while ((1 << k) < x) k++;
    return k;
}

static IrType shape2(int r, int c) {
    int32_t s[2] = {r, c};
    return ty_block(ty_scalar(DT_FP32), 2, s);
}

static uint32_t coords_at(const LinearLayout *l, uint32_t reg, uint32_t lane, uint32_t warp,
                          int32_t *c) {
    uint32_t x[LL_NIN] = {reg, lane, warp};
    uint32_t f = ll_apply(l, x);
    ll_coords(l, f, c);
    return f;
}

/* ---- blocked and slice ---- */

static void ref_blocked(const IrLayout *b, IrType t, int reg, int lane, int warp, int32_t *out) {
    int n[NR_MAX_RANK], e[NR_MAX_RANK], lc[NR_MAX_RANK], wc[NR_MAX_RANK];
    for (int d = 0; d < t.rank; d++) {
        int S = t.shape[d], thr = b->tpw[d] * b->wpc[d];
        e[d] = b->spt[d] < S ? b->spt[d] : S;
        n[d] = S / thr > e[d] ? S / thr : e[d];
    }
    for (int k = 0; k < t.rank; k++) {
        int d = b->order[k];
        lc[d] = lane % b->tpw[d], lane /= b->tpw[d];
        wc[d] = warp % b->wpc[d], warp /= b->wpc[d];
    }
    for (int k = 0; k < t.rank; k++) {
        int d = b->order[k];
        int i = reg % n[d];
        reg /= n[d];
        int64_t u = (int64_t)(i / e[d]) * b->spt[d] * b->tpw[d] * b->wpc[d] +
                    wc[d] * b->spt[d] * b->tpw[d] + lc[d] * b->spt[d] + i % e[d];
        out[d] = (int32_t)(u % t.shape[d]);
    }
}

static int ref_nregs(const IrLayout *b, IrType t) {
    int total = 1;
    for (int d = 0; d < t.rank; d++) {
        int S = t.shape[d], thr = b->tpw[d] * b->wpc[d], e = b->spt[d] < S ? b->spt[d] : S;
        total *= S / thr > e ? S / thr : e;
    }
    return total;
}

static IrLayout random_blocked(int rank, int warps) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_BLOCKED, l.rank = (uint8_t)rank;
    for (int i = 0; i < rank; i++)
        l.order[i] = (uint8_t)i, l.spt[i] = (uint8_t)(1 << (rand() % 4)), l.tpw[i] = 1,
        l.wpc[i] = 1;
    for (int i = rank - 1; i > 0; i--) { /* shuffle the order */
        int j = rand() % (i + 1);
        uint8_t t = l.order[i];
        l.order[i] = l.order[j];
        l.order[j] = t;
    }
    for (int lanes = 32; lanes > 1; lanes /= 2) l.tpw[rand() % rank] *= 2;
    for (int w = warps; w > 1; w /= 2) l.wpc[rand() % rank] *= 2;
    return l;
}

static void test_blocked(void) {
    int bad = 0;
    for (int iter = 0; iter < 400; iter++) {
        int rank = 1 + rand() % 3, warps = 1 << (rand() % 4);
        IrLayout b = random_blocked(rank, warps);
        int32_t shape[NR_MAX_RANK];
        for (int d = 0; d < rank; d++) shape[d] = 1 << (rand() % (rank == 1 ? 11 : 7));
        IrType t = ty_block(ty_scalar(DT_FP32), rank, shape);
        uint32_t id = ir_layout_intern(mod, &b);
        StrBuf why;
        sb_init(&why);
        CHECK(ir_layout_check(mod, id, t, warps, &why), "random blocked layout rejected: %s",
              sb_cstr(&why));
        sb_free(&why);
        LinearLayout l;
        ir_layout_linear(mod, id, t, &l);
        int nregs = 1 << l.nbits[LL_REG];
        if (nregs != ref_nregs(&b, t)) {
            bad++;
            continue;
        }
        CHECK(l.nbits[LL_LANE] == 5 && l.nbits[LL_WARP] == log2i(warps), "lane/warp bits");
        for (int w = 0; w < warps && !bad; w++)
            for (int ln = 0; ln < 32; ln++)
                for (int r = 0; r < nregs; r++) {
                    int32_t want[NR_MAX_RANK], got[NR_MAX_RANK];
                    ref_blocked(&b, t, r, ln, w, want);
                    coords_at(&l, (uint32_t)r, (uint32_t)ln, (uint32_t)w, got);
                    for (int d = 0; d < rank; d++) bad += want[d] != got[d];
                }
        /* the slice along each dim: the parent's positions over the other dims */
        for (int sd = 0; sd < rank && rank > 1; sd++) {
            IrLayout s;
            memset(&s, 0, sizeof s);
            s.kind = LAYOUT_SLICE, s.rank = (uint8_t)(rank - 1), s.dim = (uint8_t)sd, s.parent = id;
            uint32_t sid = ir_layout_intern(mod, &s);
            int32_t ss[NR_MAX_RANK], ps[NR_MAX_RANK];
            for (int d = 0, k = 0; d < rank; d++) {
                ps[d] = d == sd ? 1 : shape[d];
                if (d != sd) ss[k++] = shape[d];
            }
            IrType st_ = ty_block(ty_scalar(DT_FP32), rank - 1, ss),
                   pt = ty_block(ty_scalar(DT_FP32), rank, ps);
            LinearLayout sl;
            ir_layout_linear(mod, sid, st_, &sl);
            if ((1 << sl.nbits[LL_REG]) != ref_nregs(&b, pt)) {
                bad++;
                continue;
            }
            for (int w = 0; w < warps; w++)
                for (int ln = 0; ln < 32; ln++)
                    for (int r = 0; r < (1 << sl.nbits[LL_REG]); r++) {
                        int32_t want[NR_MAX_RANK], got[NR_MAX_RANK];
                        ref_blocked(&b, pt, r, ln, w, want);
                        coords_at(&sl, (uint32_t)r, (uint32_t)ln, (uint32_t)w, got);
                        for (int d = 0, k = 0; d < rank; d++)
                            if (d != sd) bad += want[d] != got[k++];
                    }
        }
    }
    CHECK(bad == 0, "%d blocked/slice positions differ from the reference formula", bad);
}

/* ---- mma fragments (PTX ISA) ---- */

static uint32_t mma_layout(int version, int wm, int wn, int instr_n) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_MMA, l.rank = 2, l.version = (uint8_t)version, l.wpc[0] = (uint8_t)wm,
    l.wpc[1] = (uint8_t)wn;
    l.instr_n = (uint16_t)instr_n;
    return ir_layout_intern(mod, &l);
}

static uint32_t dot_op_layout(uint32_t parent, int idx, int kw) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_DOT_OP, l.rank = 2, l.op_idx = (uint8_t)idx, l.parent = parent,
    l.k_width = (uint8_t)kw;
    return ir_layout_intern(mod, &l);
}

/* mma.sync m16n8: accumulator element i (0-3) of a lane */
static void ref_acc(int lane, int i, int *row, int *col) {
    *row = lane / 4 + 8 * (i / 2);
    *col = 2 * (lane % 4) + (i % 2);
}

static void test_mma_v2_acc(void) {
    int shapes[][2] = {{16, 8}, {64, 64}, {128, 128}, {32, 256}},
        warps[][2] = {{1, 1}, {2, 2}, {4, 1}, {2, 4}, {1, 4}};
    int bad = 0;
    for (int s = 0; s < 4; s++)
        for (int w = 0; w < 5; w++) {
            int M = shapes[s][0], N = shapes[s][1], wm = warps[w][0], wn = warps[w][1];
            if (M < 16 * wm || N < 8 * wn) continue;
            uint32_t id = mma_layout(2, wm, wn, 8);
            IrType t = shape2(M, N);
            CHECK(ir_layout_check(mod, id, t, wm * wn, NULL), "mma v2 %dx%d warps %dx%d", M, N, wm,
                  wn);
            LinearLayout l;
            ir_layout_linear(mod, id, t, &l);
            int rn = N / (8 * wn), rm = M / (16 * wm);
            CHECK((1 << l.nbits[LL_REG]) == 4 * rn * rm, "mma v2 register count");
            for (int warp = 0; warp < wm * wn; warp++)
                for (int lane = 0; lane < 32; lane++)
                    for (int r = 0; r < 4 * rn * rm; r++) {
                        int fr, fc, rep = r / 4;
                        ref_acc(lane, r % 4, &fr, &fc);
                        int row = (rep / rn) * 16 * wm + (warp % wm) * 16 + fr;
                        int col = (rep % rn) * 8 * wn + (warp / wm) * 8 + fc;
                        int32_t got[2];
                        coords_at(&l, (uint32_t)r, (uint32_t)lane, (uint32_t)warp, got);
                        bad += got[0] != row || got[1] != col;
                    }
        }
    CHECK(bad == 0, "%d mma v2 accumulator positions differ from the PTX fragment", bad);
}

/* wgmma m64nNk16, f32 accumulator: thread t of the warpgroup, register i (0 .. N/2-1) */
static void test_mma_v3_acc(void) {
    int cfg[][5] = {{64, 64, 4, 1, 64},    {128, 128, 4, 1, 128}, {128, 256, 8, 1, 256},
                    {128, 128, 8, 1, 128}, {256, 128, 8, 1, 128}, {64, 256, 4, 2, 128}};
    int bad = 0;
    for (int c = 0; c < 6; c++) {
        int M = cfg[c][0], N = cfg[c][1], wm = cfg[c][2], wn = cfg[c][3], in = cfg[c][4];
        uint32_t id = mma_layout(3, wm, wn, in);
        IrType t = shape2(M, N);
        CHECK(ir_layout_check(mod, id, t, wm * wn, NULL), "mma v3 config %d", c);
        LinearLayout l;
        ir_layout_linear(mod, id, t, &l);
        int per = in / 2, rn = N / (in * wn), rm = M / (16 * wm);
        CHECK((1 << l.nbits[LL_REG]) == per * rn * rm, "mma v3 register count (config %d)", c);
        for (int warp = 0; warp < wm * wn; warp++)
            for (int lane = 0; lane < 32; lane++)
                for (int r = 0; r < per * rn * rm; r++) {
                    int i = r % per, rep = r / per;
                    int wg_m = (warp % wm) / 4, w4 = warp % 4, wg_n = warp / wm;
                    int row =
                        (rep / rn) * 16 * wm + wg_m * 64 + 16 * w4 + lane / 4 + 8 * ((i / 2) % 2);
                    int col =
                        (rep % rn) * in * wn + wg_n * in + 8 * (i / 4) + 2 * (lane % 4) + (i % 2);
                    int32_t got[2];
                    coords_at(&l, (uint32_t)r, (uint32_t)lane, (uint32_t)warp, got);
                    bad += got[0] != row || got[1] != col;
                }
    }
    CHECK(bad == 0, "%d wgmma accumulator positions differ from the PTX fragment", bad);
}

/* mma.sync operand fragments of one warp for one instruction: element i of a lane.
 * kw = 2: m16n8k16 .f16/.bf16; kw = 1: m16n8k8 .tf32; kw = 4: m16n8k32 .s8/.u8. */
static void ref_a(int kw, int lane, int i, int *m, int *k) {
    int g = lane / 4, t = lane % 4;
    if (kw == 2) *m = g + 8 * ((i / 2) % 2), *k = 2 * t + (i % 2) + 8 * (i / 4);
    if (kw == 1) *m = g + 8 * (i % 2), *k = t + 4 * (i / 2);
    if (kw == 4) *m = g + 8 * ((i / 4) % 2), *k = 4 * t + (i % 4) + 16 * (i / 8);
}

static void ref_b(int kw, int lane, int i, int *k, int *n) {
    int g = lane / 4, t = lane % 4;
    *n = g;
    if (kw == 2) *k = 2 * t + (i % 2) + 8 * (i / 2);
    if (kw == 1) *k = t + 4 * i;
    if (kw == 4) *k = 4 * t + (i % 4) + 16 * (i / 4);
}

static void test_dot_operands(void) {
    int bad = 0;
    int kws[] = {1, 2, 4}, warps[][2] = {{1, 1}, {2, 2}, {4, 1}, {1, 2}, {2, 4}};
    for (int a = 0; a < 3; a++)
        for (int w = 0; w < 5; w++) {
            int kw = kws[a], wm = warps[w][0], wn = warps[w][1], K = 8 * kw;
            uint32_t p = mma_layout(2, wm, wn, 8);
            int M = 16 * wm * 2, N = 8 * wn * 2, KT = 2 * K; /* two repeats along each dim */
            uint32_t ida = dot_op_layout(p, 0, kw), idb = dot_op_layout(p, 1, kw);
            LinearLayout la, lb;
            ir_layout_linear(mod, ida, shape2(M, KT), &la);
            ir_layout_linear(mod, idb, shape2(KT, N), &lb);
            int na = 4 * kw, nb = 2 * kw; /* elements of one instruction's fragment */
            CHECK((1 << la.nbits[LL_REG]) == na * 4 && (1 << lb.nbits[LL_REG]) == nb * 4,
                  "operand register counts (kw %d)", kw);
            for (int warp = 0; warp < wm * wn; warp++)
                for (int lane = 0; lane < 32; lane++) {
                    for (int r = 0; r < na * 4; r++) { /* repeats: K first, then M */
                        int m = 0, k = 0, rep = r / na;
                        ref_a(kw, lane, r % na, &m, &k);
                        m += (rep / 2) * 16 * wm + (warp % wm) * 16, k += (rep % 2) * K;
                        int32_t got[2];
                        coords_at(&la, (uint32_t)r, (uint32_t)lane, (uint32_t)warp, got);
                        bad += got[0] != m || got[1] != k;
                    }
                    for (int r = 0; r < nb * 4; r++) { /* repeats: K first, then N */
                        int k = 0, n = 0, rep = r / nb;
                        ref_b(kw, lane, r % nb, &k, &n);
                        k += (rep % 2) * K, n += (rep / 2) * 8 * wn + (warp / wm) * 8;
                        int32_t got[2];
                        coords_at(&lb, (uint32_t)r, (uint32_t)lane, (uint32_t)warp, got);
                        bad += got[0] != k || got[1] != n;
                    }
                }
            /* copies: A along the warps of N, B along the warps of M */
            CHECK(ll_zero_mask(&la, LL_WARP) == (uint32_t)((wn - 1) << log2i(wm)),
                  "A's warp copies (kw %d, %dx%d)", kw, wm, wn);
            CHECK(ll_zero_mask(&lb, LL_WARP) == (uint32_t)(wm - 1),
                  "B's warp copies (kw %d, %dx%d)", kw, wm, wn);
        }
    CHECK(bad == 0, "%d dot operand positions differ from the PTX fragments", bad);
}

/* The accumulator of one mma and operand A of the next have the same lanes when k_width
 * is 2 and the warps all go along M (attention's p @ v): the change is register-local. */
static void test_acc_to_operand(void) {
    uint32_t p = mma_layout(2, 4, 1, 8), q = mma_layout(3, 4, 1, 64);
    uint32_t a = dot_op_layout(p, 0, 2), a3 = dot_op_layout(q, 0, 2);
    LinearLayout acc, op, acc3, op3;
    ir_layout_linear(mod, p, shape2(64, 64), &acc);
    ir_layout_linear(mod, a, shape2(64, 64), &op);
    ir_layout_linear(mod, q, shape2(64, 64), &acc3);
    ir_layout_linear(mod, a3, shape2(64, 64), &op3);
    CHECK(ll_same_dim(&acc, &op, LL_LANE) && ll_same_dim(&acc, &op, LL_WARP),
          "mma v2 acc -> A: same lanes and warps");
    CHECK(ll_same_dim(&acc3, &op3, LL_LANE) && ll_same_dim(&acc3, &op3, LL_WARP),
          "wgmma acc -> A: same lanes and warps");
    int bad = 0;
    for (int r = 0; r < (1 << acc.nbits[LL_REG]); r++) {
        uint32_t x;
        bad += !ll_solve(&op, LL_REG, ll_apply_dim(&acc, LL_REG, (uint32_t)r), &x);
    }
    CHECK(bad == 0, "every accumulator register is an operand register");
}

/* ---- shared layouts ---- */

static uint32_t shared_layout(int vec, int pp, int mp, int o0, int o1, int atom) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_SHARED, l.rank = 2, l.vec = (uint8_t)vec, l.per_phase = (uint8_t)pp,
    l.max_phase = (uint8_t)mp;
    l.order[0] = (uint8_t)o0, l.order[1] = (uint8_t)o1, l.atom = (uint16_t)atom;
    return ir_layout_intern(mod, &l);
}

static void test_shared(void) {
    /* vec, per_phase, max_phase, order[0], atom, rows, cols (of the block, dim 0 x dim 1) */
    int cfg[][7] = {{8, 1, 8, 1, 0, 128, 64},   /* fp16 K-major, 128-byte rows, 128B swizzle */
                    {8, 1, 8, 1, 64, 64, 128},  /* fp16 N-major B: 128-byte panels */
                    {8, 2, 4, 1, 0, 64, 32},    /* 64B swizzle */
                    {8, 4, 2, 1, 0, 64, 16},    /* 32B swizzle */
                    {4, 1, 8, 1, 32, 32, 64},   /* fp32, 128-byte panels */
                    {1, 1, 1, 0, 0, 32, 16},    /* plain, dim 0 contiguous */
                    {8, 1, 8, 0, 64, 128, 64}}; /* dim 0 contiguous, panels */
    int bad = 0;
    for (int c = 0; c < 7; c++) {
        int vec = cfg[c][0], pp = cfg[c][1], mp = cfg[c][2], o0 = cfg[c][3], atom = cfg[c][4];
        int32_t shape[2] = {cfg[c][5], cfg[c][6]};
        uint32_t id = shared_layout(vec, pp, mp, o0, 1 - o0, atom);
        IrType t = ty_smem(DT_FP16, 2, shape, 1);
        StrBuf why;
        sb_init(&why);
        CHECK(ir_layout_check(mod, id, t, 0, &why), "shared config %d: %s", c, sb_cstr(&why));
        sb_free(&why);
        LinearLayout l;
        ir_layout_linear(mod, id, t, &l);
        int R = shape[1 - o0], C = shape[o0], A = atom ? atom : C;
        uint32_t inv[LL_MAX_BITS];
        CHECK(ll_invert_offset(&l, inv), "shared config %d is a bijection", c);
        for (int r = 0; r < R; r++)
            for (int col = 0; col < C; col++) {
                int within = col % A;
                int off = (col / A) * R * A + r * A + (((within / vec) ^ ((r / pp) % mp)) * vec) +
                          within % vec;
                int32_t coord[2];
                coord[o0] = col, coord[1 - o0] = r;
                uint32_t flat = ll_flat(&l, coord), o = 0;
                for (int k = 0; k < 24; k++)
                    if (flat >> k & 1) o ^= inv[k];
                bad += (int)o != off;
                uint32_t x[LL_NIN] = {(uint32_t)off, 0, 0};
                bad += ll_apply(&l, x) != flat;
            }
    }
    CHECK(bad == 0, "%d shared offsets differ from the swizzle formula", bad);
}

/* moves_smem_wavefronts on the read gpu-lower-dot-operands weighs swizzles for: B^T of a
 * tf32 wgmma (a 128x32 view, N x K, of a 32x128 fp32 buffer with N contiguous, 128-byte
 * panels) into A's registers (dot_op idx 0, k_width 1) of the 128x256 accumulator on 8
 * warps, 16 registers a thread. A warp's load of one register reads rows n0..n0+7 of the
 * view at columns k0..k0+3 (lane / 4, lane % 4), 4 rows of the buffer 128 bytes apart:
 * - unswizzled, all four rows put their 8 words in the same 8 banks: 4 wavefronts;
 * - 16-byte chunks XORed by the row (mod 8): the chunks (n / 4) ^ k of 2 x 4 (n, k)
 *   pairs take 4 values: 2 wavefronts;
 * - 32-byte chunks XORed by the row (mod 4): (n / 8) ^ k takes 4 values with 8 words
 *   each: 1 wavefront. */
static void test_wavefronts(void) {
    uint32_t acc = mma_layout(3, 8, 1, 256), a = dot_op_layout(acc, 0, 1);
    int32_t shape[2] = {128, 32};
    IrType view = ty_block(ty_scalar(DT_FP32), 2, shape);
    int want[3][5] = {{1, 1, 1, 32, 64}, {4, 1, 8, 32, 32}, {8, 1, 4, 32, 16}};
    for (int c = 0; c < 3; c++) {
        IrLayout l =
            mod->layouts[shared_layout(want[c][0], want[c][1], want[c][2], 0, 1, want[c][3])];
        int got = moves_smem_wavefronts(mod, a, &l, view, 4);
        CHECK(got == want[c][4],
              "wavefronts of B^T's read, swizzle vec=%d max_phase=%d: %d, want %d", want[c][0],
              want[c][2], got, want[c][4]);
    }
}

/* ---- helpers ---- */

static void test_helpers(void) {
    int32_t s[2] = {8, 8};
    LinearLayout l;
    ll_init(&l, 2, s);
    ll_push_dim(&l, LL_REG, 1, 0);
    ll_push_dim(&l, LL_REG, 1, 1);
    ll_push(&l, LL_REG, 0); /* a copy */
    ll_push_dim(&l, LL_REG, 0, 0);
    ll_push_dim(&l, LL_LANE, 1, 2);
    ll_push_dim(&l, LL_LANE, 0, 1);
    ll_push_dim(&l, LL_LANE, 0, 2);
    CHECK(ll_contig_bits(&l, LL_REG, 1) == 2 && ll_contig_bits(&l, LL_REG, 0) == 0,
          "contiguous bits");
    CHECK(ll_zero_mask(&l, LL_REG) == 4, "zero mask");
    CHECK(ll_surjective(&l), "covers the 8x8 block");
    uint32_t x;
    int32_t c[2] = {1, 3};
    CHECK(ll_solve(&l, LL_REG, ll_flat(&l, c), &x) && x == 11,
          "solve finds register 11 (not the copy bit), got %u", x);
    c[0] = 2;
    CHECK(!ll_solve(&l, LL_REG, ll_flat(&l, c), &x), "row 2 is no register's");
    StrBuf out;
    sb_init(&out);
    ll_print(&out, &l);
    CHECK(!strcmp(sb_cstr(&out), "{register = [[0, 1], [0, 2], [0, 0], [1, 0]], lane = [[0, 4], "
                                 "[2, 0], [4, 0]], warp = []}"),
          "printed %s", sb_cstr(&out));
    sb_free(&out);
}

/* The text form goes through the parser and back unchanged, and bad fields are errors. */
static void test_text(void) {
    const char *text = "gpu<arch=sm_90a, num_warps=8>\n"
                       "#L1 = blocked<spt=[1, 8], tpw=[4, 8], wpc=[8, 1], order=[1, 0]>\n"
                       "#L2 = slice<dim=0, parent=#L1>\n"
                       "#L3 = mma<version=3, wpc=[8, 1], instr_n=128>\n"
                       "#L4 = dot_op<idx=0, parent=#L3, k_width=2>\n"
                       "#L5 = shared<vec=8, per_phase=1, max_phase=8, order=[1, 0], atom=64>\n"
                       "func kernel @k(%0: ptr<fp16> \"x\") {\n"
                       "  %1 = arange {start = 0, end = 64} : <64xi32, #L2>\n"
                       "  return\n"
                       "}\n";
    Arena *a = arena_new();
    Diag d;
    diag_init(&d);
    Source src = {"t.nrir", text, strlen(text)};
    IrModule *m = ir_parse_module(a, &d, &src);
    CHECK(m != NULL, "parse: %s", sb_cstr(&d.out));
    if (m) {
        StrBuf out;
        sb_init(&out);
        ir_print_module(&out, m);
        CHECK(!strcmp(sb_cstr(&out), text), "round trip:\n%s", sb_cstr(&out));
        sb_free(&out);
        CHECK(m->gpu.arch == GPU_SM90A && m->gpu.num_warps == 8 && m->layouts[2].rank == 1,
              "header and derived rank");
    }
    diag_free(&d);
    arena_free(a);
}

int main(void) {
    srand(7);
    Arena *a = arena_new();
    mod = ir_module_new(a);
    test_blocked();
    test_mma_v2_acc();
    test_mma_v3_acc();
    test_dot_operands();
    test_acc_to_operand();
    test_shared();
    test_wavefronts();
    test_helpers();
    test_text();
    arena_free(a);
    return check_done("test_linear_layout", &st);
}
