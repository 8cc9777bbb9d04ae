/* test_gpu_dot.c - tl.dot on the tensor cores (and the CUDA cores), GPU against the CPU
 * interpreter (harness: gpu_test.h), over the matrix the tensor-core work must cover:
 * - every input type: fp16, bf16, fp32 with tf32 allowed (the default), "ieee" (the CUDA
 *   cores) and the split precisions "tf32x3", "bf16x3", "bf16x6" (3 or 6 tensor-core dots
 *   of the operands' parts), fp64 (the CUDA cores), int8 with an int32 accumulator;
 * - tiles from 16 to 256 on a side, 1 to 8 warps, num_stages 1 to 5;
 * - operands transposed through strides (A stored column-major, B stored column-major)
 *   and through tl.trans;
 * - sizes that are not multiples of the tile (masked loads and stores) and K not a
 *   multiple of BLOCK_K (a masked last k step), and K a multiple of 16 (the runtime
 *   specialises it, so the loads are pipelined with cp.async);
 * - a dot's result feeding a reduction (a row max) and a second dot (p = (q @ k).to(T);
 *   o = p @ v, attention's shape);
 * - int8 weights dequantised in the loop (B = q.to(fp16) * scale), exactly.
 * The GPU compiles for its own target (sm_90a on a Hopper: wgmma); with NEREID_ARCH=sm_80
 * the same cases run mma.sync's code on the same GPU.
 *
 * Results are compared within gt_dot_bound's per-element bound (see gpu_test.h: any
 * summation order of the exact products, tensor-core truncation included; tf32 adds its
 * input rounding), int8 exactly. Options as test_gpu_vs_cpu (--cpu-vs-cpu, --filter,
 * --dump, -v). */
#include "gpu_test.h"

/* A matmul kernel's tile: its BM, BN and BK constexprs. */
static void define_tile(GtCase *c, int bm, int bn, int bk) {
    gt_define(c, "BM", "%d", bm);
    gt_define(c, "BN", "%d", bn);
    gt_define(c, "BK", "%d", bk);
}

static const char K_MM[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def mm(a_ptr: *@T@, b_ptr: *@T@, c_ptr: *@C@, M: i32, N: i32, K: i32, sam: i32, sak: i32, "
    "sbk: i32, sbn: i32,\n"
    "       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, TRANS_B: tl.constexpr):\n"
    "    # C[M, N] = A[M, K] x B[K, N]: A[m, k] at a_ptr + m * sam + k * sak, B[k, n] at b_ptr + k "
    "* sbk + n * sbn\n"
    "    # (with TRANS_B the B tile is loaded as [BN, BK] and transposed with tl.trans)\n"
    "    pid_m = tl.program_id(0)\n"
    "    pid_n = tl.program_id(1)\n"
    "    rm = pid_m * BM + tl.arange(0, BM)\n"
    "    rn = pid_n * BN + tl.arange(0, BN)\n"
    "    rk = tl.arange(0, BK)\n"
    "    acc = tl.zeros((BM, BN), dtype=@ACC@)\n"
    "    for k0 in range(0, K, BK):\n"
    "        ks = k0 + rk\n"
    "        a = tl.load(a_ptr + rm[:, None] * sam + ks[None, :] * sak, mask=(rm[:, None] < M) & "
    "(ks[None, :] < K),\n"
    "                    other=0)\n"
    "        if TRANS_B:\n"
    "            bt = tl.load(b_ptr + rn[:, None] * sbn + ks[None, :] * sbk, mask=(rn[:, None] < "
    "N) & (ks[None, :] < K),\n"
    "                         other=0)\n"
    "            b = tl.trans(bt)\n"
    "        else:\n"
    "            b = tl.load(b_ptr + ks[:, None] * sbk + rn[None, :] * sbn, mask=(ks[:, None] < K) "
    "& (rn[None, :] < N),\n"
    "                        other=0)\n"
    "        acc = tl.dot(a, b, acc@PREC@)\n"
    "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, "
    ":] < N))\n";

/* The tile order and index forms of Triton's matmul tutorial before tl.assume (written
 * here): grouped program order, offsets wrapped with `% M` and `% N`, the K tail masked
 * against K - k * BK, pointers advanced in the loop. With ASSUME the same kernel states
 * the signs (as examples/matmul.nr does); without, the compiler versions the loop on
 * them (compiler/gpu/speculate.c). SHIFT rotates the column tiles: program column t
 * computes tile ((t - SHIFT) mod tiles), through ((x % N) + N) % N, so with SHIFT > 0
 * some programs take the version for negative indices and the others the fast one, and
 * every tile of C is still written once. */
static const char K_MM_TUTORIAL[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def mm_tutorial(a_ptr: *@T@, b_ptr: *@T@, c_ptr: *@T@, M: i32, N: i32, K: i32, sam: i32,\n"
    "                sak: i32, sbk: i32, sbn: i32, scm: i32, scn: i32, shift: i32,\n"
    "                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,\n"
    "                ASSUME: tl.constexpr):\n"
    "    pid = tl.program_id(axis=0)\n"
    "    num_pid_m = tl.cdiv(M, BM)\n"
    "    num_pid_n = tl.cdiv(N, BN)\n"
    "    num_pid_in_group = GROUP * num_pid_n\n"
    "    group_id = pid // num_pid_in_group\n"
    "    first_pid_m = group_id * GROUP\n"
    "    group_size_m = min(num_pid_m - first_pid_m, GROUP)\n"
    "    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)\n"
    "    pid_n = (pid % num_pid_in_group) // group_size_m\n"
    "    if ASSUME:\n"
    "        tl.assume(pid_m >= 0)\n"
    "        tl.assume(pid_n >= 0)\n"
    "        tl.assume(shift >= 0)\n"
    "    offs_am = (pid_m * BM + tl.arange(0, BM)) % M\n"
    "    offs_bn = ((((pid_n - shift) * BN + tl.arange(0, BN)) % N) + N) % N\n"
    "    offs_k = tl.arange(0, BK)\n"
    "    a_ptrs = a_ptr + (offs_am[:, None] * sam + offs_k[None, :] * sak)\n"
    "    b_ptrs = b_ptr + (offs_k[:, None] * sbk + offs_bn[None, :] * sbn)\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for k in range(0, tl.cdiv(K, BK)):\n"
    "        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)\n"
    "        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)\n"
    "        acc = tl.dot(a, b, acc)\n"
    "        a_ptrs += BK * sak\n"
    "        b_ptrs += BK * sbk\n"
    "    c = acc.to(@T@)\n"
    "    offs_cm = pid_m * BM + tl.arange(0, BM)\n"
    "    c_ptrs = c_ptr + scm * offs_cm[:, None] + scn * offs_bn[None, :]\n"
    "    c_mask = (offs_cm[:, None] < M) & (offs_bn[None, :] < N)\n"
    "    tl.store(c_ptrs, c, mask=c_mask)\n";

/* A pipelined K loop whose tiles need no masks (M, N multiples of the tile, K of BK): the
 * loads carry only the K-tail mask, constant over 16 elements when K is a multiple of
 * 16, so they become cp.async copies. */
static const char K_MM_ALIGNED[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def mm_aligned(a_ptr: *@T@, b_ptr: *@T@, c_ptr: *@C@, M: i32, N: i32, K: i32, sam: i32, sbk: "
    "i32,\n"
    "               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    pid_m = tl.program_id(0)\n"
    "    pid_n = tl.program_id(1)\n"
    "    tl.assume(sam > 0)\n"
    "    tl.assume(sbk > 0)\n"
    "    rm = pid_m * BM + tl.arange(0, BM)\n"
    "    rn = pid_n * BN + tl.arange(0, BN)\n"
    "    rk = tl.arange(0, BK)\n"
    "    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :]\n"
    "    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :]\n"
    "    acc = tl.zeros((BM, BN), dtype=@ACC@)\n"
    "    for k in range(0, tl.cdiv(K, BK)):\n"
    "        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0)\n"
    "        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0)\n"
    "        acc = tl.dot(a, b, acc@PREC@)\n"
    "        a_ptrs += BK\n"
    "        b_ptrs += BK * sbk\n"
    "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)\n";

/* A loop whose dot's B is loaded once, before it: C[BM, BN] = sum over i of
 * A[:, i BK : (i+1) BK] x B (A row-major, BM x ITERS BK; B row-major, BK x BN). A
 * 32- or 8-bit B is staged K-major for wgmma once, before the loop. */
static const char K_INV_B[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def mm_inv_b(a_ptr: *@T@, b_ptr: *@T@, c_ptr: *fp32, iters: i32,\n"
    "             BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    rm = tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    rk = tl.arange(0, BK)\n"
    "    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for i in range(0, iters):\n"
    "        a = tl.load(a_ptr + rm[:, None] * (iters * BK) + i * BK + rk[None, :])\n"
    "        acc = tl.dot(a, b, acc)\n"
    "    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)\n";

/* B as int8 weights with a per-column scale, dequantised in registers each iteration
 * (weight-only quantised matmuls): the loop's int8 tile feeds the dot only through
 * register work (a load the pipeliner leaves in the body, while A's copies are pipelined;
 * the dequantised tile goes to a buffer the wgmma reads). Masked at the edges. */
static const char K_DEQUANT[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def mm_dequant(a_ptr: *fp16, b_ptr: *i8, s_ptr: *fp16, c_ptr: *fp32, M: i32, N: i32, K: i32,\n"
    "               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.program_id(1) * BN + tl.arange(0, BN)\n"
    "    rk = tl.arange(0, BK)\n"
    "    scale = tl.load(s_ptr + rn, mask=rn < N, other=0.0)\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for k in range(0, K, BK):\n"
    "        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],\n"
    "                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)\n"
    "        q = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],\n"
    "                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0)\n"
    "        acc = tl.dot(a, q.to(tl.float16) * scale[None, :], acc)\n"
    "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,\n"
    "             mask=(rm[:, None] < M) & (rn[None, :] < N))\n";

/* mm_dequant: A's integers in [-4, 4], B's in [-8, 8], scales powers of two: every product
 * and sum is exact in fp16 and fp32, so GPU and interpreter agree exactly. */
static void mm_dequant(long m, long n, long k, int bm, int bn, int bk, int warps, int stages) {
    GtRng r = {7300 + (uint64_t)(m + n * 3 + k * 5 + bm + warps + stages * 11)};
    void *a = gt_fill_int(GT_F16, (size_t)(m * k), &r, -4, 5),
         *b = gt_fill_int(GT_I8, (size_t)(k * n), &r, -8, 9);
    uint16_t *s = malloc((size_t)n * sizeof(uint16_t));
    if (!s) abort();
    for (long j = 0; j < n; j++) s[j] = gt_f2h((float)(1 << gt_int(&r, 0, 3)) / 2.0f);
    GtCase *c = gt_case("dot fp16, B int8 dequantised in the loop", "%ldx%ldx%ld %dx%dx%d w%d s%d",
                        m, n, k, bm, bn, bk, warps, stages);
    gt_source(c, K_DEQUANT, "mm_dequant", NULL);
    define_tile(c, bm, bn, bk);
    gt_warps(c, warps);
    gt_stages(c, stages);
    gt_arg_buf(c, gt_in(c, "a", GT_F16, (size_t)(m * k), a));
    gt_arg_buf(c, gt_in(c, "b", GT_I8, (size_t)(k * n), b));
    gt_arg_buf(c, gt_in(c, "s", GT_F16, (size_t)n, s));
    gt_arg_buf(c, gt_out(c, "c", GT_F32, (size_t)(m * n), gt_exact(), NULL));
    gt_arg(c, nr_arg_i32((int32_t)m));
    gt_arg(c, nr_arg_i32((int32_t)n));
    gt_arg(c, nr_arg_i32((int32_t)k));
    gt_grid(c, (unsigned)gt_cdiv(m, bm), (unsigned)gt_cdiv(n, bn), 1);
    gt_run(c);
    free(a), free(b), free(s);
}

/* A dot feeding a reduction and a second dot: s = q @ kt; m = max(s, 1); p = s.to(T);
 * o = p @ v (one block of rows, attention's shape without the softmax). */
static const char K_CHAIN[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def chain(q_ptr: *@T@, k_ptr: *@T@, v_ptr: *@T@, o_ptr: *fp32, m_ptr: *fp32,\n"
    "          BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    rm = pid * BM + tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    rd = tl.arange(0, D)\n"
    "    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])\n"
    "    k = tl.load(k_ptr + rn[:, None] * D + rd[None, :])\n"
    "    s = tl.dot(q, tl.trans(k))\n"
    "    tl.store(m_ptr + rm, tl.max(s, axis=1))\n"
    "    p = s.to(@T@)\n"
    "    v = tl.load(v_ptr + rn[:, None] * D + rd[None, :])\n"
    "    o = tl.dot(p, v)\n"
    "    tl.store(o_ptr + rm[:, None] * D + rd[None, :], o)\n";

/* The chain with a dropout mask between the dots, drawn as attention draws it: each
 * Philox call's four words cover four 16-column sub-blocks of 64 columns, joined,
 * reshaped and permuted into the scores' shape (the layout pass computes the random
 * numbers where the scores are, with no data movement). */
static const char K_CHAIN_DROP[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def chain_drop(q_ptr: *@T@, k_ptr: *@T@, v_ptr: *@T@, o_ptr: *fp32, seed: i32, p: fp32,\n"
    "               BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    rm = pid * BM + tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    rd = tl.arange(0, D)\n"
    "    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])\n"
    "    k = tl.load(k_ptr + rn[:, None] * D + rd[None, :])\n"
    "    s = tl.dot(q, tl.trans(k))\n"
    "    g = tl.arange(0, BN // 4)\n"
    "    g = (g // 16) * 16 + g % 16\n"
    "    r0, r1, r2, r3 = tl.randint4x(seed, rm[:, None] * (BN // 4) + g[None, :])\n"
    "    w = tl.join(tl.join(r0, r2), tl.join(r1, r3))\n"
    "    w = tl.permute(tl.reshape(w, (BM, BN // 64, 16, 4)), (0, 1, 3, 2))\n"
    "    u = tl.reshape(w, (BM, BN)).to(tl.int32, bitcast=True)\n"
    "    keep = (u & 0x7fffffff).to(tl.float32) * 4.6566127342e-10 > p\n"
    "    pr = tl.where(keep, s, 0.0).to(@T@)\n"
    "    v = tl.load(v_ptr + rn[:, None] * D + rd[None, :])\n"
    "    o = tl.dot(pr, v)\n"
    "    tl.store(o_ptr + rm[:, None] * D + rd[None, :], o)\n";

static const char *acc_of(GtType t) {
    return t == GT_I8 ? "tl.int32" : t == GT_F64 ? "tl.float64" : "tl.float32";
}
static const char *c_of(GtType t) { return t == GT_I8 ? "i32" : t == GT_F64 ? "fp64" : "fp32"; }

static void *operand(GtType t, size_t n, GtRng *r) {
    return t == GT_I8 ? gt_fill_int(t, n, r, -128, 128) : gt_fill(t, n, r, -1, 1);
}

/* more than 128 accumulator registers a thread: ptxas serialises the wgmmas for want of
 * registers (C7511), a correct kernel that no one would tune to */
static bool big_acc(int bm, int bn, int warps) { return bm * bn / (warps * 32) > 128; }

/* the bound's input rounding: tf32 keeps 10 mantissa bits of each input (mma.sync rounds
 * to nearest, wgmma's tensor cores truncate: either way each input moves by less than
 * 2^-10 of itself, so a product by less than 2^-9 of itself). The split precisions run
 * the same parts' products on both sides (the interpreter's are exact) through 3 or 6
 * chained dots, each adding K terms: 2 or 5 more sums of K; tf32x3's small parts lose
 * up to 2^-10 of themselves in the tensor cores, and they are at most 2^-11 of the
 * operand: 2^-21 a product, twice. A plain tf32 or bf16 dot (2^-9, 2^-7) fails these. */
static double input_rel(GtType t, const char *prec, long K) {
    if (t != GT_F32 || !strcmp(prec, "ieee")) return 0;
    double sum = 4.0 * (double)K * 0x1p-24;
    if (!strcmp(prec, "tf32x3")) return 2 * sum + 0x1p-20;
    if (!strcmp(prec, "bf16x3")) return 2 * sum;
    if (!strcmp(prec, "bf16x6")) return 5 * sum;
    return 0x1p-9;
}

static void set_out(GtCase *c, GtType t, const char *prec, size_t n, const void *a, long sam,
                    long sak, const void *b, long sbk, long sbn, long M, long N, long K) {
    int out = gt_out(c, "c",
                     t == GT_I8    ? GT_I32
                     : t == GT_F64 ? GT_F64
                                   : GT_F32,
                     n, t == GT_I8 ? gt_exact() : gt_tol(0, 0), NULL);
    if (t != GT_I8)
        gt_dot_bound(c, out, t, a, sam, sak, b, sbk, sbn, M, N, K, N, input_rel(t, prec, K));
    if (t == GT_F64) /* fp64 sums: 2^-53 an add, not fp32's 2^-24 (fp32 math fails this) */
        for (size_t i = 0; i < n; i++) c->bufs[out].elem_atol[i] *= 0x1p-29;
    gt_arg_buf(c, out);
}

/* trans_a: A stored column-major (strides); trans_b: 1 B stored column-major (strides),
 * 2 B given as [N, K] and transposed with tl.trans */
static void mm(GtType t, const char *prec, long M, long N, long K, int bm, int bn, int bk,
               int warps, int stages, int trans_a, int trans_b) {
    GtRng r = {9000 + (uint64_t)(M * 131 + N * 7 + K + bm + bn * 3 + bk * 5 + warps + stages * 11 +
                                 trans_a + trans_b * 2)};
    void *a = operand(t, (size_t)(M * K), &r), *b = operand(t, (size_t)(K * N), &r);
    long sam = trans_a ? 1 : K, sak = trans_a ? M : 1;
    long sbk = trans_b ? 1 : N,
         sbn = trans_b ? K : 1; /* column-major B, or [N, K] read through tl.trans */
    char name[96], p[64] = "";
    snprintf(name, sizeof name, "dot %s%s%s%s%s", gt_type_name(t), *prec ? " " : "", prec,
             trans_a ? " A^T" : "",
             trans_b == 1   ? " B^T(strides)"
             : trans_b == 2 ? " B^T(tl.trans)"
                            : "");
    if (*prec) snprintf(p, sizeof p, ", input_precision=\"%s\"", prec);
    GtCase *c = gt_case(name, "%ldx%ldx%ld %dx%dx%d w%d s%d", M, N, K, bm, bn, bk, warps, stages);
    gt_source(c, K_MM, "mm", "T", gt_type_name(t), "PREC", p, "ACC", acc_of(t), "C", c_of(t), NULL);
    define_tile(c, bm, bn, bk);
    gt_define(c, "TRANS_B", "%s", trans_b == 2 ? "True" : "False");
    gt_warps(c, warps);
    gt_stages(c, stages);
    if (big_acc(bm, bn, warps)) gt_ptxas_advisory_expected(c);
    gt_arg_buf(c, gt_in(c, "a", t, (size_t)(M * K), a));
    gt_arg_buf(c, gt_in(c, "b", t, (size_t)(K * N), b));
    set_out(c, t, prec, (size_t)(M * N), a, sam, sak, b, sbk, sbn, M, N, K);
    long v[] = {M, N, K, sam, sak, sbk, sbn};
    for (int i = 0; i < 7; i++) gt_arg(c, nr_arg_i32((int32_t)v[i]));
    gt_grid(c, (unsigned)gt_cdiv(M, bm), (unsigned)gt_cdiv(N, bn), 1);
    gt_run(c);
    free(a), free(b);
}

static void mm_aligned(GtType t, const char *prec, long M, long N, long K, int bm, int bn, int bk,
                       int warps, int stages) {
    GtRng r = {7000 + (uint64_t)(M + N * 3 + K * 5 + bm + bn + bk + warps * 7 + stages * 13)};
    void *a = operand(t, (size_t)(M * K), &r), *b = operand(t, (size_t)(K * N), &r);
    char name[96], p[64] = "";
    snprintf(name, sizeof name, "dot %s%s%s, pipelined loads", gt_type_name(t), *prec ? " " : "",
             prec);
    if (*prec) snprintf(p, sizeof p, ", input_precision=\"%s\"", prec);
    GtCase *c = gt_case(name, "%ldx%ldx%ld %dx%dx%d w%d s%d", M, N, K, bm, bn, bk, warps, stages);
    gt_source(c, K_MM_ALIGNED, "mm_aligned", "T", gt_type_name(t), "PREC", p, "ACC", acc_of(t), "C",
              c_of(t), NULL);
    define_tile(c, bm, bn, bk);
    gt_warps(c, warps);
    gt_stages(c, stages);
    if (big_acc(bm, bn, warps)) gt_ptxas_advisory_expected(c);
    gt_arg_buf(c, gt_in(c, "a", t, (size_t)(M * K), a));
    gt_arg_buf(c, gt_in(c, "b", t, (size_t)(K * N), b));
    set_out(c, t, prec, (size_t)(M * N), a, K, 1, b, N, 1, M, N, K);
    long v[] = {M, N, K, K, N};
    for (int i = 0; i < 5; i++) gt_arg(c, nr_arg_i32((int32_t)v[i]));
    gt_grid(c, (unsigned)(M / bm), (unsigned)(N / bn), 1);
    gt_run(c);
    free(a), free(b);
}

static void mm_inv_b(GtType t, int bm, int bn, int bk, int iters, int warps, int stages) {
    GtRng r = {6100 + (uint64_t)(bm + bn * 3 + bk * 5 + iters * 7 + warps + stages * 11)};
    long K = (long)iters * bk;
    void *a = operand(t, (size_t)(bm * K), &r), *b = operand(t, (size_t)(bk * bn), &r);
    /* the bound's B: the tile repeated down K, as the loop uses it */
    size_t eb = gt_size(t);
    char *brep = malloc((size_t)K * (size_t)bn * eb);
    if (!brep) abort();
    for (int i = 0; i < iters; i++)
        memcpy(brep + (size_t)i * (size_t)bk * (size_t)bn * eb, b, (size_t)bk * (size_t)bn * eb);
    char name[96];
    snprintf(name, sizeof name, "dot %s, B loaded before the loop", gt_type_name(t));
    GtCase *c =
        gt_case(name, "%dx%dx%ld (%d x BK %d) w%d s%d", bm, bn, K, iters, bk, warps, stages);
    gt_source(c, K_INV_B, "mm_inv_b", "T", gt_type_name(t), NULL);
    define_tile(c, bm, bn, bk);
    gt_warps(c, warps);
    gt_stages(c, stages);
    gt_arg_buf(c, gt_in(c, "a", t, (size_t)(bm * K), a));
    gt_arg_buf(c, gt_in(c, "b", t, (size_t)(bk * bn), b));
    int out = gt_out(c, "c", GT_F32, (size_t)(bm * bn), gt_tol(0, 0), NULL);
    gt_dot_bound(c, out, t, a, K, 1, brep, bn, 1, bm, bn, K, bn, input_rel(t, "", K));
    gt_arg_buf(c, out);
    gt_arg(c, nr_arg_i32(iters));
    gt_grid(c, 1, 1, 1);
    gt_run(c);
    free(a), free(b), free(brep);
}

static void chain(GtType t, int bm, int bn, int d, int warps) {
    GtRng r = {5150 + (uint64_t)(bm + bn * 3 + d * 7 + warps)};
    long rows = 2L * bm;
    void *q = operand(t, (size_t)(rows * d), &r), *k = operand(t, (size_t)(bn * d), &r),
         *v = operand(t, (size_t)(bn * d), &r);
    char name[96];
    snprintf(name, sizeof name, "dot %s feeding a max and a second dot", gt_type_name(t));
    GtCase *c = gt_case(name, "%ldx%dx%d w%d", rows, bn, d, warps);
    gt_source(c, K_CHAIN, "chain", "T", gt_type_name(t), NULL);
    gt_define(c, "BM", "%d", bm);
    gt_define(c, "BN", "%d", bn);
    gt_define(c, "D", "%d", d);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "q", t, (size_t)(rows * d), q));
    gt_arg_buf(c, gt_in(c, "k", t, (size_t)(bn * d), k));
    gt_arg_buf(c, gt_in(c, "v", t, (size_t)(bn * d), v));
    /* o = (q k^T rounded to T) v: the rounding of s to T before the second dot may differ
     * by an ulp of T where s differs by its bound; the product with v then moves by
     * 2^-8 (fp16: 2^-11 relative, bf16 2^-8) of sum |s| |v| per element, which
     * |s| <= D (|q|, |k| <= 1) and |v| <= 1 bound by D * BN */
    double ulp = t == GT_BF16 ? 0x1p-8 : 0x1p-11;
    gt_arg_buf(c, gt_out(c, "o", GT_F32, (size_t)(rows * d), gt_tol(2 * ulp * d * bn, 0), NULL));
    int mx = gt_out(c, "m", GT_F32, (size_t)rows, gt_tol(0, 0), NULL);
    gt_dot_bound(c, mx, t, q, d, 1, k, 1, d, rows, 1, d, 1,
                 0); /* a max is one of the elements: their bound */
    gt_arg_buf(c, mx);
    gt_grid(c, 2, 1, 1);
    gt_run(c);
    free(q), free(k), free(v);
}

/* fp8 operands (raw bytes on the host): random finite values of moderate size, built
 * from sign, exponent and mantissa bits, and their exact values for the bound. The
 * formats (f): fp8e4nv (E4M3FN: bias 7, 3 mantissa bits), fp8e5 (E5M2: bias 15, 2),
 * fp8e4b15 (bias 15, 3: exponents up to 0 only), fp8e4b8 (FNUZ: bias 8, 3), fp8e5b16
 * (FNUZ: bias 16, 2). The last three have no tensor-core instruction: the front end
 * widens them to fp16. */
static const struct {
    const char *name;
    int mbits, bias, elo, ehi;
} fp8_fmt[5] = {{"fp8e4nv", 3, 7, -3, 4},
                {"fp8e5", 2, 15, -3, 4},
                {"fp8e4b15", 3, 15, -7, 1},
                {"fp8e4b8", 3, 8, -3, 4},
                {"fp8e5b16", 2, 16, -3, 4}};

static uint8_t fp8_random(int f, GtRng *r) {
    int mb = fp8_fmt[f].mbits;
    int s = (int)gt_int(r, 0, 2), e = (int)gt_int(r, fp8_fmt[f].elo, fp8_fmt[f].ehi),
        m = (int)gt_int(r, 0, 1 << mb);
    return (uint8_t)(s << 7 | (e + fp8_fmt[f].bias) << mb | m);
}

static float fp8_value(int f, uint8_t b) {
    int s = b >> 7, mb = fp8_fmt[f].mbits, e = (b & 0x7f) >> mb, m = b & ((1 << mb) - 1),
        bias = fp8_fmt[f].bias;
    float v = e ? ldexpf(1.0f + (float)m / (float)(1 << mb), e - bias)
                : ldexpf((float)m / (float)(1 << mb), 1 - bias);
    return s ? -v : v;
}

/* C = A x B on fp8 inputs (fp8e4nv, fp8e5 on sm_90a: wgmma k32 reading both from shared
 * memory with K contiguous; on sm_80, and the other three formats everywhere: widened to
 * fp16, exactly); B column-major (K contiguous, as torch._scaled_mm takes it) or row-major
 * (the operand is laid out K-major in shared memory on its way to wgmma). */
static void mm_fp8(int f, long M, long N, long K, int bm, int bn, int bk, int warps, int stages,
                   int b_kmajor) {
    GtRng r = {8800 + (uint64_t)(M + N * 3 + K * 5 + bm + bn * 7 + bk + warps + stages * 11 +
                                 b_kmajor + (f == 0) * 13 + (f > 1) * f * 17)};
    uint8_t *a = malloc((size_t)(M * K)), *b = malloc((size_t)(K * N));
    float *av = malloc(sizeof(float) * (size_t)(M * K)),
          *bv = malloc(sizeof(float) * (size_t)(K * N));
    if (!a || !b || !av || !bv) abort();
    for (long i = 0; i < M * K; i++) av[i] = fp8_value(f, a[i] = fp8_random(f, &r));
    for (long i = 0; i < K * N; i++) bv[i] = fp8_value(f, b[i] = fp8_random(f, &r));
    long sbk = b_kmajor ? 1 : N, sbn = b_kmajor ? K : 1;
    char name[96];
    snprintf(name, sizeof name, "dot %s%s", fp8_fmt[f].name, b_kmajor ? " B^T(strides)" : "");
    GtCase *c = gt_case(name, "%ldx%ldx%ld %dx%dx%d w%d s%d", M, N, K, bm, bn, bk, warps, stages);
    gt_source(c, K_MM, "mm", "T", fp8_fmt[f].name, "PREC", "", "ACC", "tl.float32", "C", "fp32",
              NULL);
    define_tile(c, bm, bn, bk);
    gt_define(c, "TRANS_B", "%s", "False");
    gt_warps(c, warps);
    gt_stages(c, stages);
    if (big_acc(bm, bn, warps)) gt_ptxas_advisory_expected(c);
    gt_arg_buf(c, gt_in(c, "a", GT_U8, (size_t)(M * K), a));
    gt_arg_buf(c, gt_in(c, "b", GT_U8, (size_t)(K * N), b));
    int out = gt_out(c, "c", GT_F32, (size_t)(M * N), gt_tol(0, 0), NULL);
    /* The products of fp8 values are exact in fp32, but Hopper's fp8 tensor cores keep
     * fewer bits in the running sum than fp32 (about 13 mantissa bits, as DeepSeek-V3's
     * report measured; Triton's max_num_imprecise_acc exists for it): each wgmma k32
     * step may lose up to 2^-12 of the partial sum, so K/32 + 1 such steps 2^-12 each of
     * sum |a b|. (On sm_80 the fp16 path is exact products in fp32: the bound holds there
     * a fortiori.) Measured on an H200: 5e-4 of the element at K = 96. */
    gt_dot_bound(c, out, GT_F32, av, K, 1, bv, sbk, sbn, M, N, K, N,
                 (double)(K / 32 + 1) * 0x1p-12);
    gt_arg_buf(c, out);
    long v[] = {M, N, K, K, 1, sbk, sbn};
    for (int i = 0; i < 7; i++) gt_arg(c, nr_arg_i32((int32_t)v[i]));
    gt_grid(c, (unsigned)gt_cdiv(M, bm), (unsigned)gt_cdiv(N, bn), 1);
    gt_run(c);
    free(a), free(b), free(av), free(bv);
}

/* examples/matmul.nr as the seed writes it (fp16 in and out), at one of the benchmark's
 * configurations (bench/bench.py runs Triton's tutorial list): tools/gpu-run.sh runs this
 * group under compute-sanitizer's memcheck and racecheck, so every configuration the
 * benchmark times is checked for bad accesses and shared-memory races. With programs > 0,
 * bench/matmul_persistent.nr instead: the same body in a loop over tiles, `programs`
 * programs each computing every programs-th tile, so the pipelined K loop sits inside
 * another loop, its ring refilled for each tile while the last tile's stores went out
 * through shared memory that aliases the ring. */
static void matmul_example(long M, long N, long K, int bm, int bn, int bk, int warps, int stages,
                           int programs) {
    GtRng r = {4100 +
               (uint64_t)(M + N * 3 + K * 5 + bm * 7 + bn * 11 + bk * 13 + warps + stages * 17)};
    void *a = operand(GT_F16, (size_t)(M * K), &r), *b = operand(GT_F16, (size_t)(K * N), &r);
    const char *file = programs ? "bench/matmul_persistent.nr" : "examples/matmul.nr";
    GtCase *c =
        programs
            ? gt_case("bench/matmul_persistent.nr", "%ldx%ldx%ld %dx%dx%d w%d s%d, %d programs", M,
                      N, K, bm, bn, bk, warps, stages, programs)
            : gt_case("examples/matmul.nr bench config", "%ldx%ldx%ld %dx%dx%d w%d s%d", M, N, K,
                      bm, bn, bk, warps, stages);
    gt_file(c, file, "matmul_kernel");
    gt_define(c, "BLOCK_SIZE_M", "%d", bm);
    gt_define(c, "BLOCK_SIZE_N", "%d", bn);
    gt_define(c, "BLOCK_SIZE_K", "%d", bk);
    gt_define(c, "GROUP_SIZE_M", "%d", 8);
    gt_define(c, "ACTIVATION", "%s", "");
    if (programs) gt_define(c, "NUM_PROGRAMS", "%d", programs);
    gt_warps(c, warps);
    gt_stages(c, stages);
    if (big_acc(bm, bn, warps)) gt_ptxas_advisory_expected(c);
    gt_arg_buf(c, gt_in(c, "a", GT_F16, (size_t)(M * K), a));
    gt_arg_buf(c, gt_in(c, "b", GT_F16, (size_t)(K * N), b));
    /* C is rounded to fp16 once: where the fp32 sums differ within the dot's bound, the
     * rounded results differ by that and at most one more fp16 ulp (2^-10 relative) */
    int out = gt_out(c, "c", GT_F16, (size_t)(M * N), gt_tol(0, 0x1p-10), NULL);
    gt_dot_bound(c, out, GT_F16, a, K, 1, b, N, 1, M, N, K, N, 0);
    gt_arg_buf(c, out);
    long v[] = {M, N, K, K, 1, N, 1, N, 1};
    for (int i = 0; i < 9; i++) gt_arg(c, nr_arg_i32((int32_t)v[i]));
    long tiles = gt_cdiv(M, bm) * gt_cdiv(N, bn);
    gt_grid(c, (unsigned)(programs && programs < tiles ? programs : tiles), 1, 1);
    gt_run(c);
    free(a), free(b);
}

/* K_MM_TUTORIAL on fp16 or bf16 at a benchmark configuration, with or without the
 * assumptions; shift > 0 rotates the column tiles (N a multiple of bn then, so that the
 * rotation is a permutation of whole tiles). */
static void mm_tutorial(GtType t, long M, long N, long K, int bm, int bn, int bk, int warps,
                        int stages, int assume, int shift) {
    GtRng r = {6100 + (uint64_t)(M + N * 3 + K * 5 + bm * 7 + bn * 11 + bk * 13 + warps +
                                 stages * 17 + assume * 19 + shift * 23)};
    void *a = operand(t, (size_t)(M * K), &r), *b = operand(t, (size_t)(K * N), &r);
    GtCase *c =
        gt_case(assume ? "tutorial matmul form, tl.assume" : "tutorial matmul form, no assume",
                "%s %ldx%ldx%ld %dx%dx%d w%d s%d shift %d", gt_type_name(t), M, N, K, bm, bn, bk,
                warps, stages, shift);
    gt_source(c, K_MM_TUTORIAL, "mm_tutorial", "T", gt_type_name(t), NULL);
    define_tile(c, bm, bn, bk);
    gt_define(c, "GROUP", "%d", 8);
    gt_define(c, "ASSUME", "%s", assume ? "True" : "False");
    gt_warps(c, warps);
    gt_stages(c, stages);
    if (big_acc(bm, bn, warps)) gt_ptxas_advisory_expected(c);
    gt_arg_buf(c, gt_in(c, "a", t, (size_t)(M * K), a));
    gt_arg_buf(c, gt_in(c, "b", t, (size_t)(K * N), b));
    double ulp = t == GT_BF16 ? 0x1p-7 : 0x1p-10;
    int out = gt_out(c, "c", t, (size_t)(M * N), gt_tol(0, ulp), NULL);
    gt_dot_bound(c, out, t, a, K, 1, b, N, 1, M, N, K, N, 0);
    gt_arg_buf(c, out);
    long v[] = {M, N, K, K, 1, N, 1, N, 1, shift};
    for (int i = 0; i < 10; i++) gt_arg(c, nr_arg_i32((int32_t)v[i]));
    gt_grid(c, (unsigned)(gt_cdiv(M, bm) * gt_cdiv(N, bn)), 1, 1);
    gt_run(c);
    free(a), free(b);
}

static void chain_drop(GtType t, int bm, int bn, int d, int warps) {
    GtRng r = {5250 + (uint64_t)(bm + bn * 3 + d * 7 + warps)};
    long rows = 2L * bm;
    void *q = operand(t, (size_t)(rows * d), &r), *k = operand(t, (size_t)(bn * d), &r),
         *v = operand(t, (size_t)(bn * d), &r);
    char name[96];
    snprintf(name, sizeof name, "dot %s, Philox mask, second dot", gt_type_name(t));
    GtCase *c = gt_case(name, "%ldx%dx%d w%d", rows, bn, d, warps);
    gt_source(c, K_CHAIN_DROP, "chain_drop", "T", gt_type_name(t), NULL);
    gt_define(c, "BM", "%d", bm);
    gt_define(c, "BN", "%d", bn);
    gt_define(c, "D", "%d", d);
    gt_warps(c, warps);
    gt_arg_buf(c, gt_in(c, "q", t, (size_t)(rows * d), q));
    gt_arg_buf(c, gt_in(c, "k", t, (size_t)(bn * d), k));
    gt_arg_buf(c, gt_in(c, "v", t, (size_t)(bn * d), v));
    /* the mask is exact on both sides (integer Philox, the same fp32 mapping); what is
     * kept rounds as in chain() */
    double ulp = t == GT_BF16 ? 0x1p-8 : 0x1p-11;
    gt_arg_buf(c, gt_out(c, "o", GT_F32, (size_t)(rows * d), gt_tol(2 * ulp * d * bn, 0), NULL));
    gt_arg(c, nr_arg_i32(1234));
    gt_arg(c, nr_arg_f32(0.3f));
    gt_grid(c, 2, 1, 1);
    gt_run(c);
    free(q), free(k), free(v);
}

int main(int argc, char **argv) {
    gt_init(argc, argv, "test_gpu_dot");
    /* the benchmark's configurations on examples/matmul.nr: sizes that are multiples of 16
     * (the runtime specialises them: pipelined cp.async loads, as the benchmark runs) and
     * ragged ones (masks, a K tail) */
    static const int bench_tiles[][5] = {
        {128, 256, 64, 8, 3}, {64, 256, 32, 4, 4},  {128, 128, 32, 4, 4},
        {128, 64, 32, 4, 4},  {64, 128, 32, 4, 4},  {128, 32, 32, 4, 4},
        {64, 32, 32, 2, 5},   {128, 128, 64, 8, 3}, {128, 128, 64, 4, 4}};
    for (int i = 0; i < GT_COUNT(bench_tiles); i++) {
        const int *t = bench_tiles[i];
        matmul_example(384, 512, 320, t[0], t[1], t[2], t[3], t[4], 0);
        matmul_example(301, 263, 197, t[0], t[1], t[2], t[3], t[4], 0);
    }
    /* Triton's tutorial matmul as written before tl.assume, with and without the
     * assumptions, at the benchmark's two configurations; ragged sizes (wraps, the K
     * tail, masked stores); rotated column tiles (both versions in one launch) */
    for (int asm_ = 0; asm_ < 2; asm_++) {
        mm_tutorial(GT_F16, 384, 512, 320, 128, 256, 64, 8, 3, asm_, 0);
        mm_tutorial(GT_BF16, 384, 512, 320, 128, 128, 32, 4, 4, asm_, 0);
        mm_tutorial(GT_F16, 301, 263, 197, 128, 128, 32, 4, 4, asm_, 0);
        mm_tutorial(GT_F16, 384, 768, 320, 128, 256, 64, 8, 3, asm_, 2);
        mm_tutorial(GT_BF16, 256, 512, 96, 128, 128, 32, 4, 4, asm_, 3);
    }
    /* bench/matmul_persistent.nr (bench/matmul_profile.py): 3 programs for 6 or 24 tiles,
     * 4 programs for 9 ragged ones (program 0 takes 3, the others 2), one program for all 20 */
    matmul_example(384, 512, 320, 128, 256, 64, 8, 3, 3);
    matmul_example(301, 263, 197, 128, 128, 64, 4, 4, 4);
    matmul_example(384, 512, 320, 64, 128, 32, 4, 4, 3);
    matmul_example(300, 200, 96, 64, 64, 32, 4, 2, 1);
    /* every input type, ragged sizes (masks), K not a multiple of BK */
    GtType types[] = {GT_F16, GT_BF16, GT_F32, GT_I8};
    for (int i = 0; i < 4; i++) {
        GtType t = types[i];
        int bk = t == GT_I8 ? 32 : 16;
        mm(t, "", 100, 72, 50, 32, 32, bk, 4, 3, 0, 0);
        mm(t, "", 130, 70, 97, 64, 32, 32, 8, 3, 0, 0);
        mm(t, "", 37, 21, 40, 16, 16, bk, 1, 2, 0, 2);
        mm(t, "", 300, 200, 128, 128, 64, 64, 4, 4, 0, 0);
        mm(t, "", 65, 130, 33, 64, 128, 32, 8, 5, 0, 2);
    }
    mm(GT_F32, "ieee", 100, 72, 50, 32, 32, 16, 4, 3, 0, 0);
    mm(GT_F32, "ieee", 70, 33, 64, 64, 32, 16, 1, 1, 0, 2);
    /* fp32 at the split precisions (Triton's F32DotTC: wgmma or mma.sync on the parts);
     * fp64 on the CUDA cores */
    static const char *const splits[] = {"tf32x3", "bf16x3", "bf16x6"};
    for (int s = 0; s < GT_COUNT(splits); s++) {
        mm(GT_F32, splits[s], 100, 72, 50, 32, 32, 16, 4, 3, 0, 0);
        mm(GT_F32, splits[s], 130, 70, 97, 64, 32, 32, 8, 3, 0, 2);
        mm(GT_F32, splits[s], 200, 136, 96, 64, 64, 32, 4, 3, 1, 1);
        mm_aligned(GT_F32, splits[s], 128, 128, 128, 64, 64, 32, 4, 3);
    }
    /* tiles under 16 on a side (Triton allows M, N from 1): the CUDA cores, replicated
     * layouts; test_dot's small dots (2x4x32 fp16, 1x2x32 fp8e5, one warp) and others */
    mm(GT_F16, "", 2, 4, 32, 2, 4, 32, 1, 2, 0, 0);
    mm(GT_F16, "", 5, 3, 40, 8, 4, 16, 4, 3, 0, 2);
    mm(GT_BF16, "", 37, 6, 64, 64, 8, 32, 4, 3, 1, 0);
    mm(GT_F32, "", 3, 70, 33, 4, 64, 16, 2, 2, 0, 0);
    mm(GT_I8, "", 64, 2, 64, 64, 2, 32, 4, 3, 0, 0);
    mm_fp8(1, 1, 2, 32, 1, 2, 32, 1, 2, 1);
    mm(GT_F64, "", 100, 72, 50, 32, 32, 16, 4, 3, 0, 0);
    mm(GT_F64, "", 37, 21, 40, 16, 16, 16, 1, 2, 0, 2);
    mm(GT_F64, "", 130, 70, 97, 64, 32, 32, 8, 3, 1, 1);
    mm_aligned(GT_F64, "", 128, 128, 64, 64, 64, 32, 4, 2);
    /* transposes through strides, 16-bit (wgmma reads them as they are) */
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 3; tb++) {
            mm(GT_F16, "", 200, 136, 96, 64, 64, 32, 4, 3, ta, tb);
            mm(GT_BF16, "", 130, 260, 64, 128, 128, 32, 8, 4, ta, tb);
        }
    mm(GT_F32, "", 100, 100, 64, 64, 64, 32, 4, 3, 1, 1);
    /* fp8, the two OCP formats, B either way, ragged and pipelined (K a multiple of 16) */
    for (int f = 1; f >= 0; f--) { /* fp8e5 first, as before */
        mm_fp8(f, 130, 200, 96, 64, 64, 32, 4, 3, 1);
        mm_fp8(f, 256, 256, 256, 128, 128, 64, 8, 3, 1);
        mm_fp8(f, 100, 72, 80, 64, 32, 32, 4, 2, 0);
        mm_fp8(f, 256, 512, 384, 128, 256, 128, 8, 3, 1);
    }
    /* fp8e4b15 and the FNUZ formats: widened to fp16 by the front end */
    for (int f = 2; f < 5; f++) {
        mm_fp8(f, 130, 200, 96, 64, 64, 32, 4, 3, 1);
        mm_fp8(f, 100, 72, 80, 64, 32, 32, 4, 2, 0);
    }
    mm(GT_I8, "", 100, 100, 64, 64, 64, 32, 4, 3, 0, 1);
    /* 32- and 8-bit B row-major on wgmma (which reads them K-major only): copied as they
     * lie, turned K-major through registers into a ring of two; the benchmark's tf32
     * tiles, and pipelined 8-bit tiles as large as shared memory allows */
    static const int tf32_tiles[][5] = {
        {128, 256, 32, 8, 3}, {256, 128, 32, 8, 3}, {128, 128, 32, 8, 3}, {128, 128, 32, 4, 4},
        {128, 64, 32, 4, 4},  {64, 128, 32, 4, 4},  {128, 128, 16, 8, 4}};
    for (int i = 0; i < GT_COUNT(tf32_tiles); i++) {
        const int *t = tf32_tiles[i];
        mm(GT_F32, "", 384, 512, 320, t[0], t[1], t[2], t[3], t[4], 0, 0);
        mm(GT_F32, "", 301, 263, 197, t[0], t[1], t[2], t[3], t[4], 0, 0);
    }
    mm(GT_F32, "", 384, 512, 320, 128, 128, 32, 8, 3, 1, 0); /* A column-major too: both staged */
    mm_inv_b(GT_F32, 64, 64, 32, 5, 4, 3);
    mm_inv_b(GT_F32, 128, 128, 32, 3, 8, 2);
    mm_inv_b(GT_F16, 64, 128, 64, 4, 4, 3);
    mm_dequant(256, 256, 512, 128, 128, 64, 8, 3);
    mm_dequant(200, 136, 200, 64, 64, 32, 4, 4);
    mm_dequant(128, 128, 256, 64, 128, 64, 4, 2);
    mm(GT_I8, "", 256, 256, 256, 128, 128, 64, 8, 3, 0, 0);
    mm(GT_I8, "", 200, 136, 96, 64, 64, 32, 4, 1, 0, 0);
    mm_fp8(0, 256, 512, 384, 128, 256, 128, 8, 3, 0);
    /* tile sizes from 16 to 256, 1 to 8 warps */
    int tiles[][3] = {{16, 16, 16},   {16, 128, 32},  {128, 16, 32},  {32, 64, 32},  {64, 64, 64},
                      {128, 128, 32}, {128, 256, 64}, {256, 128, 32}, {64, 256, 32}, {256, 64, 64}};
    int warps[] = {1, 2, 4, 8};
    for (int i = 0; i < GT_COUNT(tiles); i++)
        for (int w = 0; w < 4; w++) {
            int bm = tiles[i][0], bn = tiles[i][1], bk = tiles[i][2];
            if ((long)bm * bn / (32 * warps[w]) > 256)
                continue; /* more accumulators than registers */
            mm(GT_F16, "", bm + 37, bn + 21, 2 * bk + 16, bm, bn, bk, warps[w], 3, 0, 0);
        }
    /* num_stages 1 to 5 on pipelined loads, each type */
    for (int s = 1; s <= 5; s++) {
        mm_aligned(GT_F16, "", 256, 256, 192, 128, 128, 64, 8, s);
        mm_aligned(GT_F16, "", 128, 256, 512, 64, 128, 32, 4, s);
    }
    mm_aligned(GT_BF16, "", 256, 256, 256, 128, 256, 64, 8, 3);
    mm_aligned(GT_F16, "", 256, 512, 256, 128, 256, 64, 8, 4);
    mm_aligned(GT_F32, "", 128, 128, 128, 64, 64, 32, 4, 3);
    mm_aligned(GT_F32, "ieee", 128, 128, 64, 64, 64, 32, 4, 2);
    mm_aligned(GT_I8, "", 128, 128, 256, 64, 64, 64, 4, 3);
    mm_aligned(GT_F16, "", 64, 64, 16, 64, 64, 32, 4,
               3); /* K shorter than one tile: one masked step */
    mm_aligned(GT_F16, "", 64, 64, 0, 64, 64, 32, 4, 3); /* K = 0: a zero-trip loop */
    /* a dot feeding a reduction and a second dot */
    chain(GT_F16, 64, 64, 64, 4);
    chain(GT_F16, 128, 64, 128, 8);
    chain(GT_BF16, 64, 128, 64, 4);
    chain(GT_F16, 16, 32, 32, 1);
    chain_drop(GT_F16, 64, 64, 64, 4);
    chain_drop(GT_F16, 128, 128, 64, 8);
    chain_drop(GT_BF16, 64, 128, 128, 4);
    chain_drop(GT_F16, 16, 64, 32, 1);
    return gt_finish();
}
