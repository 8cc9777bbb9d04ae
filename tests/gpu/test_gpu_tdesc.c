/* test_gpu_tdesc.c - tensor descriptors passed by the host ("tensordesc<...>" parameters)
 * on the GPU against the CPU interpreter: on sm_90a the aligned ones go through TMA
 * (tensor maps, mbarriers, swizzled buffers: one box, or several where a row is longer
 * than 128 bytes), the others (misaligned bases or row strides, 16-byte rows) through
 * ordinary loads and stores, as everywhere on sm_80. Every dtype width, tiles of 32 to
 * 512 bytes a row, ranks 1 to 3 and 5, odd sizes and negative offsets (zero and NaN padding,
 * stores clipped at the bounds), 1 to 8 warps, a load in a loop, a descriptor matmul
 * (tl.dot on TMA-loaded tiles), Liger's SwiGLU backward (a descriptor matmul whose
 * epilogue loads and stores two more tiles, at sizes that fit in shared memory only with
 * the epilogue reusing the loop's ring; its 3-D tile reshaped to 2-D pipelined), and
 * descriptors beside plain pointers. Bit-exact. */
#include "gpu_test.h"

/* y = x * 2 + 1 tile by tile (x read through xd, y written through yd); the tile as
 * loaded, padding included, to t (dense, tile after tile). Row tiles start SHIFT rows
 * above the tensor, so the first reads padding and writes nothing there. */
static const char *K_SCALE =
    "@triton.jit\n"
    "def k(xd: \"tensordesc<@T@[BM, BN]>\", yd: \"tensordesc<@T@[BM, BN]>\", t: *@T@, BM: "
    "tl.constexpr, BN: tl.constexpr,\n"
    "      SHIFT: tl.constexpr):\n"
    "    pm = tl.program_id(0)\n"
    "    pn = tl.program_id(1)\n"
    "    v = xd.load([pm * BM - SHIFT, pn * BN])\n"
    "    yd.store([pm * BM - SHIFT, pn * BN], v * 2 + 1)\n"
    "    tile = (pm * tl.num_programs(1) + pn) * BM * BN\n"
    "    tl.store(t + tile + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], v)\n";

static void scale(GtType ty, int M, int N, int row_pad, long base_off, int BM, int BN, int warps,
                  int shift, int padding) {
    static int seed = 1;
    GtRng rng = {(uint64_t)seed++ * 7919};
    int sx = N + row_pad, gm = (int)gt_cdiv(M + shift, BM), gn = (int)gt_cdiv(N, BN);
    size_t nx = (size_t)M * sx + (size_t)base_off, nt = (size_t)gm * gn * BM * BN,
           ny = (size_t)M * sx;
    GtCase *c = gt_case("", "%dx%d+%d @%ld", M, N, row_pad, base_off);
    snprintf(c->name, sizeof c->name, "scale %s %dx%d w%d%s%s", gt_type_name(ty), BM, BN, warps,
             shift ? " shifted" : "", padding ? " nan" : "");
    gt_source(c, K_SCALE, "k", "T", gt_type_name(ty), NULL);
    gt_define(c, "BM", "%d", BM), gt_define(c, "BN", "%d", BN), gt_define(c, "SHIFT", "%d", shift);
    gt_warps(c, warps);
    void *x = gt_is_float(ty) ? gt_fill_quarters(ty, nx, &rng, -8, 8)
                              : gt_fill_int(ty, nx, &rng, -50, 50);
    int bx = gt_in(c, "x", ty, nx, x);
    /* y has x's row stride: the elements past its width (and a store that wrote them) show */
    void *y0 = gt_fill_int(ty, ny, &rng, -100, -90);
    int by = gt_out(c, "y", ty, ny, gt_exact(), y0);
    int bt = gt_out(c, "t", ty, nt, gt_exact(), NULL);
    int64_t xs[2] = {M, N}, xst[2] = {sx, 1}, ys[2] = {M, N}, yst[2] = {sx, 1};
    gt_arg_desc(c, bx, base_off, 2, xs, xst, padding);
    gt_arg_desc(c, by, 0, 2, ys, yst, NR_PAD_ZERO);
    gt_arg_buf(c, bt);
    gt_grid(c, (unsigned)gm, (unsigned)gn, 1);
    gt_run(c);
    free(x), free(y0);
}

/* 3-D fp16 (2 x BR x BC tiles) and 1-D fp32 with a negative offset, in one kernel */
static const char *K_RANKS =
    "@triton.jit\n"
    "def k(x: \"tensordesc<fp16[2, BR, BC]>\", y: \"tensordesc<fp16[2, BR, BC]>\", h: "
    "\"tensordesc<fp32[64]>\", o: *fp32,\n"
    "      BR: tl.constexpr, BC: tl.constexpr):\n"
    "    pb = tl.program_id(0)\n"
    "    pr = tl.program_id(1)\n"
    "    pc = tl.program_id(2)\n"
    "    v = x.load([pb * 2, pr * BR, pc * BC])\n"
    "    y.store([pb * 2, pr * BR, pc * BC], v - 3.0)\n"
    "    base = ((pb * tl.num_programs(1) + pr) * tl.num_programs(2) + pc) * 64\n"
    "    tl.store(o + base + tl.arange(0, 64), h.load([base - 7]))\n";

static void ranks(int B, int R, int C, int BR, int BC, int warps) {
    GtRng rng = {4242};
    GtCase *c = gt_case("ranks 3-D fp16 + 1-D fp32", "%dx%dx%d t%dx%d w%d", B, R, C, BR, BC, warps);
    gt_source(c, K_RANKS, "k", NULL);
    gt_define(c, "BR", "%d", BR), gt_define(c, "BC", "%d", BC);
    gt_warps(c, warps);
    size_t n = (size_t)B * R * C;
    unsigned g0 = (unsigned)gt_cdiv(B, 2), g1 = (unsigned)gt_cdiv(R, BR),
             g2 = (unsigned)gt_cdiv(C, BC);
    size_t nh = (size_t)g0 * g1 * g2 * 64 - 30;
    void *x = gt_fill_quarters(GT_F16, n, &rng, -4, 4), *h = gt_fill(GT_F32, nh, &rng, -1, 1);
    int bx = gt_in(c, "x", GT_F16, n, x), by = gt_out(c, "y", GT_F16, n, gt_exact(), NULL);
    int bh = gt_in(c, "h", GT_F32, nh, h),
        bo = gt_out(c, "o", GT_F32, (size_t)g0 * g1 * g2 * 64, gt_exact(), NULL);
    int64_t s3[3] = {B, R, C}, st3[3] = {(int64_t)R * C, C, 1}, s1[1] = {(int64_t)nh}, st1[1] = {1};
    gt_arg_desc(c, bx, 0, 3, s3, st3, NR_PAD_ZERO);
    gt_arg_desc(c, by, 0, 3, s3, st3, NR_PAD_ZERO);
    gt_arg_desc(c, bh, 0, 1, s1, st1, NR_PAD_NAN);
    gt_arg_buf(c, bo);
    gt_grid(c, g0, g1, g2);
    gt_run(c);
    free(x), free(h);
}

/* rank 5, Triton's (and TMA's) largest: fp16 tiles of 2 x 1 x 2 x BR x BC, rows shifted 3
 * above the tensor (padding read, nothing written there), the loaded tile stored to o */
static const char *K_RANK5 =
    "@triton.jit\n"
    "def k(x: \"tensordesc<fp16[2, 1, 2, BR, BC]>\", y: \"tensordesc<fp16[2, 1, 2, BR, BC]>\", "
    "o: *fp16,\n"
    "      NB: tl.constexpr, NC: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):\n"
    "    p = tl.program_id(0)\n"
    "    pr = tl.program_id(1)\n"
    "    pq = tl.program_id(2)\n"
    "    off = [p // (NB * NC) * 2, p // NC % NB, p % NC * 2, pr * BR - 3, pq * BC]\n"
    "    v = x.load(off)\n"
    "    y.store(off, v * 2.0 - 1.0)\n"
    "    tile = ((p * tl.num_programs(1) + pr) * tl.num_programs(2) + pq) * (4 * BR * BC)\n"
    "    tl.store(o + tile + tl.arange(0, 4 * BR * BC), v.reshape(4 * BR * BC))\n";

static void rank5(int A, int B, int C, int R, int Q, int row_pad, int BR, int BC, int warps) {
    GtRng rng = {5555u + (uint64_t)(Q + row_pad)};
    GtCase *c = gt_case("rank 5 fp16", "%dx%dx%dx%dx%d+%d t%dx%d w%d", A, B, C, R, Q, row_pad, BR,
                        BC, warps);
    gt_source(c, K_RANK5, "k", NULL);
    int na = (int)gt_cdiv(A, 2), nc = (int)gt_cdiv(C, 2);
    gt_define(c, "NB", "%d", B), gt_define(c, "NC", "%d", nc);
    gt_define(c, "BR", "%d", BR), gt_define(c, "BC", "%d", BC);
    gt_warps(c, warps);
    unsigned g0 = (unsigned)(na * B * nc), g1 = (unsigned)gt_cdiv(R + 3, BR),
             g2 = (unsigned)gt_cdiv(Q, BC);
    int64_t sq = Q + row_pad, st[5] = {(int64_t)B * C * R * sq, (int64_t)C * R * sq, R * sq, sq, 1};
    int64_t shape[5] = {A, B, C, R, Q};
    size_t n = (size_t)st[0] * A, nt = (size_t)g0 * g1 * g2 * 4 * BR * BC;
    void *x = gt_fill_quarters(GT_F16, n, &rng, -4, 4);
    void *y0 = gt_fill_int(GT_F16, n, &rng, -100, -90);
    int bx = gt_in(c, "x", GT_F16, n, x), by = gt_out(c, "y", GT_F16, n, gt_exact(), y0);
    int bo = gt_out(c, "tiles", GT_F16, nt, gt_exact(), NULL);
    gt_arg_desc(c, bx, 0, 5, shape, st, NR_PAD_ZERO);
    gt_arg_desc(c, by, 0, 5, shape, st, NR_PAD_ZERO);
    gt_arg_buf(c, bo);
    gt_grid(c, g0, g1, g2);
    gt_run(c);
    free(x), free(y0);
}

/* row sums of an M x N fp32 matrix, BN columns a load, in a loop (an mbarrier per load) */
static const char *K_LOOP = "@triton.jit\n"
                            "def k(x: \"tensordesc<fp32[BM, BN]>\", s: *fp32, M: i32, N: i32, BM: "
                            "tl.constexpr, BN: tl.constexpr):\n"
                            "    pm = tl.program_id(0)\n"
                            "    acc = tl.zeros((BM, BN), tl.float32)\n"
                            "    for j in range(0, tl.cdiv(N, BN)):\n"
                            "        acc += x.load([pm * BM, j * BN])\n"
                            "    rows = pm * BM + tl.arange(0, BM)\n"
                            "    tl.store(s + rows, tl.sum(acc, axis=1), mask=rows < M)\n";

static void loop(int M, int N, int BM, int BN, int warps) {
    GtRng rng = {99};
    GtCase *c = gt_case("loop fp32 row sums", "%dx%d t%dx%d w%d", M, N, BM, BN, warps);
    gt_source(c, K_LOOP, "k", NULL);
    gt_define(c, "BM", "%d", BM), gt_define(c, "BN", "%d", BN);
    gt_warps(c, warps);
    void *x = gt_fill_quarters(GT_F32, (size_t)M * N, &rng, -4, 4);
    int bx = gt_in(c, "x", GT_F32, (size_t)M * N, x),
        bs = gt_out(c, "s", GT_F32, (size_t)M, gt_exact(), NULL);
    int64_t s[2] = {M, N}, st[2] = {N, 1};
    gt_arg_desc(c, bx, 0, 2, s, st, NR_PAD_ZERO);
    gt_arg_buf(c, bs), gt_arg(c, nr_arg_i32(M)), gt_arg(c, nr_arg_i32(N));
    gt_grid(c, (unsigned)gt_cdiv(M, BM), 1, 1);
    gt_run(c);
    free(x);
}

/* C = A @ B through descriptors: the tutorial's TMA matmul shape */
static const char *K_MM =
    "@triton.jit\n"
    "def k(a: \"tensordesc<@T@[BM, BK]>\", b: \"tensordesc<@T@[BK, BN]>\", c: \"tensordesc<@C@[BM, "
    "BN]>\", K: i32,\n"
    "      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    pm = tl.program_id(0)\n"
    "    pn = tl.program_id(1)\n"
    "    acc = tl.zeros((BM, BN), tl.@C@)\n"
    "    for kk in range(0, tl.cdiv(K, BK)):\n"
    "        acc = tl.dot(a.load([pm * BM, kk * BK]), b.load([kk * BK, pn * BN]), acc)\n"
    "    c.store([pm * BM, pn * BN], acc)\n";

static void matmul(GtType ty, int M, int N, int K, int BM, int BN, int BK, int warps, int stages) {
    GtRng rng = {(uint64_t)(M * 31 + N)};
    GtCase *c = gt_case("", "%dx%dx%d t%dx%dx%d w%d s%d", M, N, K, BM, BN, BK, warps, stages);
    gt_stages(c, stages);
    snprintf(c->name, sizeof c->name, "matmul %s", gt_type_name(ty));
    GtType ct = ty == GT_I8 ? GT_I32 : GT_F32;
    gt_source(c, K_MM, "k", "T", gt_type_name(ty), "C", gt_type_name(ct), NULL);
    gt_define(c, "BM", "%d", BM), gt_define(c, "BN", "%d", BN), gt_define(c, "BK", "%d", BK);
    gt_warps(c, warps);
    /* small integers: every product and sum exact in fp32, in any order */
    void *a = gt_fill_int(ty, (size_t)M * K, &rng, -3, 4),
         *b = gt_fill_int(ty, (size_t)K * N, &rng, -3, 4);
    int ba = gt_in(c, "a", ty, (size_t)M * K, a), bb = gt_in(c, "b", ty, (size_t)K * N, b);
    int bc = gt_out(c, "c", ct, (size_t)M * N, gt_exact(), NULL);
    int64_t sa[2] = {M, K}, sta[2] = {K, 1}, sb[2] = {K, N}, stb[2] = {N, 1}, sc[2] = {M, N},
            stc[2] = {N, 1};
    gt_arg_desc(c, ba, 0, 2, sa, sta, NR_PAD_ZERO);
    gt_arg_desc(c, bb, 0, 2, sb, stb, NR_PAD_ZERO);
    gt_arg_desc(c, bc, 0, 2, sc, stc, NR_PAD_ZERO);
    gt_arg(c, nr_arg_i32(K));
    gt_grid(c, (unsigned)gt_cdiv(M, BM), (unsigned)gt_cdiv(N, BN), 1);
    gt_run(c);
    free(a), free(b);
}

/* Liger-Kernel's SwiGLU backward (dG, dU) in its shape: a K loop of TMA loads, a 3-D
 * tile of o reshaped to 2-D and a tile of w, into a dot; after it two more loads (g, u)
 * and two stores (dg, du) back over them. g and u are slices of one tensor agu [B, S, 3N]
 * (the columns N.. and 2N.., rows 3N apart), as Liger's are, and dg, du write in place. */
static const char *K_DGU =
    "@triton.jit\n"
    "def k(o: \"tensordesc<@T@[1, BM, BK]>\", w: \"tensordesc<@T@[BK, BN]>\",\n"
    "      g: \"tensordesc<@T@[1, BM, BN]>\", u: \"tensordesc<@T@[1, BM, BN]>\",\n"
    "      dg: \"tensordesc<@T@[1, BM, BN]>\", du: \"tensordesc<@T@[1, BM, BN]>\", K: i32,\n"
    "      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    m = tl.program_id(0) * BM\n"
    "    n = tl.program_id(1) * BN\n"
    "    b = tl.program_id(2)\n"
    "    acc = tl.zeros((BM, BN), tl.float32)\n"
    "    for kk in range(0, tl.cdiv(K, BK)):\n"
    "        x = tl.reshape(o.load([b, m, kk * BK]), [BM, BK])\n"
    "        acc = tl.dot(x, w.load([kk * BK, n]), acc)\n"
    "    gv = tl.reshape(g.load([b, m, n]), [BM, BN]).to(tl.float32)\n"
    "    uv = tl.reshape(u.load([b, m, n]), [BM, BN]).to(tl.float32)\n"
    "    du.store([b, m, n], tl.reshape(acc * gv, [1, BM, BN]).to(tl.@T@))\n"
    "    dg.store([b, m, n], tl.reshape(acc * uv + gv, [1, BM, BN]).to(tl.@T@))\n";

static void dgu(GtType ty, int B, int S, int K, int N, int BM, int BN, int BK, int warps,
                int stages) {
    GtRng rng = {(uint64_t)(S * 131 + K)};
    GtCase *c = gt_case("", "%dx%dx%dx%d t%dx%dx%d w%d s%d", B, S, K, N, BM, BN, BK, warps, stages);
    snprintf(c->name, sizeof c->name, "swiglu dgu %s", gt_type_name(ty));
    gt_source(c, K_DGU, "k", "T", gt_type_name(ty), NULL);
    gt_define(c, "BM", "%d", BM), gt_define(c, "BN", "%d", BN), gt_define(c, "BK", "%d", BK);
    gt_warps(c, warps), gt_stages(c, stages);
    /* small integers: the dot (tf32 on the tensor cores for fp32) and the epilogue exact */
    size_t no = (size_t)B * S * K, nw = (size_t)K * N, na = (size_t)B * S * 3 * N;
    void *o = gt_fill_int(ty, no, &rng, -3, 4), *w = gt_fill_int(ty, nw, &rng, -3, 4),
         *agu = gt_fill_int(ty, na, &rng, -4, 5);
    int bo = gt_in(c, "o", ty, no, o), bw = gt_in(c, "w", ty, nw, w);
    int ba = gt_out(c, "agu", ty, na, gt_exact(), agu);
    int64_t so[3] = {B, S, K}, sto[3] = {(int64_t)S * K, K, 1}, sw[2] = {K, N}, stw[2] = {N, 1},
            sg[3] = {B, S, N}, stg[3] = {(int64_t)S * 3 * N, 3 * N, 1};
    gt_arg_desc(c, bo, 0, 3, so, sto, NR_PAD_ZERO);
    gt_arg_desc(c, bw, 0, 2, sw, stw, NR_PAD_ZERO);
    gt_arg_desc(c, ba, N, 3, sg, stg, NR_PAD_ZERO);     /* g */
    gt_arg_desc(c, ba, 2 * N, 3, sg, stg, NR_PAD_ZERO); /* u */
    gt_arg_desc(c, ba, N, 3, sg, stg, NR_PAD_ZERO);     /* dg over g */
    gt_arg_desc(c, ba, 2 * N, 3, sg, stg, NR_PAD_ZERO); /* du over u */
    gt_arg(c, nr_arg_i32(K));
    gt_grid(c, (unsigned)gt_cdiv(S, BM), (unsigned)gt_cdiv(N, BN), (unsigned)B);
    gt_run(c);
    free(o), free(w), free(agu);
}

int main(int argc, char **argv) {
    gt_init(argc, argv, "test_gpu_tdesc");
    /* rows of 32 to 512 bytes (TMA: swizzle 32, 64, 128; 2 and 4 boxes), every width */
    scale(GT_F16, 37, 45, 2, 0, 16, 16, 4, 0,
          NR_PAD_ZERO); /* row stride 94 bytes, not 16-byte: ordinary */
    scale(GT_F16, 37, 45, 3, 0, 16, 16, 4, 0,
          NR_PAD_ZERO); /* row stride 96 bytes: TMA, 32-byte rows */
    scale(GT_F16, 70, 100, 28, 0, 32, 32, 4, 3, NR_PAD_NAN); /* 64-byte rows */
    scale(GT_F16, 70, 200, 0, 0, 16, 64, 2, 5, NR_PAD_ZERO); /* 128-byte rows */
    scale(GT_F16, 33, 300, 4, 0, 8, 128, 8, 0, NR_PAD_NAN);  /* 256-byte rows: 2 boxes */
    scale(GT_F16, 33, 300, 4, 3, 8, 128, 4, 0, NR_PAD_ZERO); /* base misaligned: ordinary */
    scale(GT_BF16, 50, 130, 6, 0, 32, 64, 4, 1, NR_PAD_NAN);
    scale(GT_F32, 41, 77, 3, 0, 16, 128, 4, 0, NR_PAD_NAN); /* 512-byte rows: 4 boxes */
    scale(GT_F32, 41, 77, 3, 0, 64, 8, 1, 2, NR_PAD_ZERO);
    scale(GT_F64, 20, 30, 2, 0, 8, 16, 2, 0, NR_PAD_NAN);
    scale(GT_I8, 90, 200, 8, 0, 32, 64, 4, 7, NR_PAD_ZERO);
    scale(GT_I8, 90, 200, 8, 0, 16, 32, 1, 0, NR_PAD_ZERO);
    scale(GT_I16, 40, 100, 4, 0, 16, 32, 4, 0, NR_PAD_ZERO);
    scale(GT_I32, 40, 100, 4, 0, 16, 32, 8, 1, NR_PAD_ZERO);
    scale(GT_I64, 40, 50, 2, 0, 16, 16, 4, 0, NR_PAD_ZERO);
    scale(GT_F16, 1, 1, 7, 0, 16, 64, 4, 0, NR_PAD_NAN); /* one element */
    /* TMA stores too (y's rows of 400 bytes), at rows above the tensor (shifted) or not */
    scale(GT_F16, 70, 200, 0, 0, 16, 64, 4, 0, NR_PAD_ZERO);
    scale(GT_F16, 70, 200, 0, 0, 16, 64, 4, 5, NR_PAD_ZERO);
    scale(GT_F16, 70, 200, 0, 0, 32, 64, 4, 5, NR_PAD_ZERO);
    scale(GT_F32, 40, 100, 4, 0, 16, 32, 4, 0, NR_PAD_ZERO);
    scale(GT_F32, 40, 100, 4, 0, 16, 32, 4, 16, NR_PAD_ZERO); /* a whole tile above the tensor */
    /* rows of 45 floats in rows of 48 (180 of 192 bytes): TMA would store whole 16-byte
     * pieces past the width, so these take ordinary accesses; 44 of 48: TMA */
    scale(GT_F32, 37, 45, 3, 0, 16, 32, 4, 0, NR_PAD_ZERO);
    scale(GT_F32, 37, 44, 4, 0, 16, 32, 4, 0, NR_PAD_NAN);
    scale(GT_F16, 37, 72, 8, 0, 16, 64, 4, 0, NR_PAD_ZERO);
    ranks(5, 20, 70, 8, 32, 4);
    ranks(2, 16, 64, 16, 64, 8);
    rank5(3, 2, 5, 20, 72, 0, 8, 32, 4);   /* TMA: 64-byte rows, one box */
    rank5(2, 1, 3, 16, 128, 8, 8, 128, 8); /* TMA: 256-byte rows, two boxes */
    rank5(3, 2, 5, 20, 70, 2, 16, 64, 2);  /* rows of 140 bytes: ordinary accesses */
    loop(100, 300, 32, 64, 4);
    loop(64, 64, 64, 32, 1);
    /* the loads in the K loop pipeline through rings of TMA buffers and mbarriers (1 stage:
     * one copy at a time); K tails, loops shorter than the pipeline and of no iteration */
    matmul(GT_F16, 200, 160, 96, 64, 64, 32, 4, 3);
    matmul(GT_F16, 256, 256, 128, 128, 128, 64, 8, 3);
    matmul(GT_F16, 256, 512, 640, 128, 256, 64, 8, 3);
    matmul(GT_F16, 300, 200, 1000, 128, 128, 64, 4, 4);
    matmul(GT_F16, 130, 190, 70, 64, 128, 32, 4, 5);
    matmul(GT_F16, 64, 64, 32, 64, 64, 32, 4, 4);
    matmul(GT_F16, 64, 64, 0, 64, 64, 32, 4, 3);
    matmul(GT_F16, 100, 100, 200, 64, 64, 64, 4, 2);
    matmul(GT_F16, 100, 100, 200, 64, 64, 64, 4, 1);
    matmul(GT_BF16, 130, 70, 64, 64, 64, 64, 4, 3);
    matmul(GT_BF16, 257, 129, 333, 128, 64, 64, 4, 4);
    matmul(GT_F32, 100, 64, 48, 32, 32, 16, 4, 3);
    matmul(GT_F32, 200, 130, 260, 64, 64, 32, 4, 3);
    matmul(GT_I8, 128, 128, 256, 64, 64, 64, 4, 3);
    /* the SwiGLU backward, fp32 as Liger's test_mlp runs it first (6 x 42 tokens, 128 in,
     * 432 out), at the tile sizes of Liger's autotuning list that once did not fit in
     * shared memory (BM 128: 262208 bytes with BK 64, 262176 with BK 128; now 163888, the
     * dot synchronous, and 131072, the loop not pipelined; the epilogue's tiles reuse the
     * loop's space): these launch only if they fit in the H200's 232448 bytes. BM 64 with
     * BK 128 fits with a ring of two stages, 3040 bytes under the limit. Then bf16 (the
     * dot asynchronous, A's buffer a ring of two), and K tails with several row tiles. */
    dgu(GT_F32, 6, 42, 128, 432, 128, 128, 64, 8, 3);
    dgu(GT_F32, 6, 42, 128, 432, 128, 128, 64, 4, 3);
    dgu(GT_F32, 6, 42, 128, 432, 128, 128, 128, 8, 3);
    dgu(GT_F32, 6, 42, 128, 432, 128, 128, 128, 4, 2);
    dgu(GT_F32, 6, 42, 128, 432, 64, 128, 128, 8, 3);
    dgu(GT_F32, 2, 300, 200, 256, 128, 128, 64, 8, 3);
    dgu(GT_BF16, 6, 42, 128, 432, 128, 128, 128, 8, 3);
    dgu(GT_BF16, 2, 300, 200, 256, 128, 128, 64, 4, 3);
    /* o's [1, BM, BK] tile, reshaped to [BM, BK] for the dot, pipelined: a ring of [BM,
     * BK] stages that cp.async.bulk.tensor.3d fills ahead (the box keeps its 3-D
     * coordinates); fp16 with 64-, 128- and 256-byte rows (two boxes), loops shorter than
     * the pipeline (one and two iterations), K tails, 4 and 2 stages */
    dgu(GT_F16, 3, 200, 200, 256, 128, 128, 64, 8, 3);
    dgu(GT_F16, 2, 130, 96, 192, 64, 64, 32, 4, 4);
    dgu(GT_F16, 2, 70, 296, 128, 64, 128, 128, 4, 3);
    dgu(GT_F16, 2, 64, 64, 128, 64, 64, 64, 4, 3);
    dgu(GT_F16, 2, 64, 104, 128, 64, 64, 64, 4, 4);
    dgu(GT_BF16, 4, 100, 520, 200, 128, 64, 64, 8, 2);
    dgu(GT_F32, 2, 100, 300, 128, 64, 64, 32, 4, 4);
    return gt_finish();
}
