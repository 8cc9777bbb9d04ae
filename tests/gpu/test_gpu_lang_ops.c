/* test_gpu_lang_ops.c - language operations on the GPU against the CPU interpreter:
 * tl.atomic_cas on fp16, bf16, fp32, fp64 and i16 (bit patterns compared; the 16-bit ones
 * through atom.cas.b16), tl.extra.cuda.smid/globaltimer/num_threads, the code generator's
 * options (maxnreg, enable_fp_fusion, enable_reflect_ftz: within a rounding of the
 * interpreter, which rounds every op and keeps denormals), and batched tl.dot (3-D to
 * 6-D blocks, the leading dims batches), and fp_downcast_rounding='rtz' casts bit for bit.
 * Prints the harness's table; without a CUDA device
 * "SKIP: ...". Options: gpu_test.h. */
#include "gpu_test.h"

/* ---- atomic_cas: one CAS per element, from two programs, values 0 (swapped), -0.0 (not
 * equal bit for bit), 1, NaN ---- */

static const char *K_CAS = "@triton.jit\n"
                           "def cas(x: *@T@, old: *@T@, BLOCK: tl.constexpr):\n"
                           "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                           "    t1 = tl.full((BLOCK,), 0, tl.@T@)\n"
                           "    t2 = tl.full((BLOCK,), 2, tl.@T@)\n"
                           "    tl.store(old + offs, tl.atomic_cas(x + offs, t1, t2, sem=@SEM@))\n";

static void cas_case(GtType t, int block, const char *sem) {
    static const char *const tl_names[] = {"float16", "bfloat16", "float32", "float64",
                                           "",        "",         "int16"};
    int n = 2 * block;
    void *x = calloc((size_t)n, gt_size(t));
    for (int i = 0; i < n; i++) {
        double v = i % 4 == 1 ? 1.0 : i % 8 == 2 ? -0.0 : i % 16 == 7 ? NAN : 0.0;
        if (t == GT_I16 && isnan(v)) v = 3;
        gt_put(t, x, (size_t)i, v);
    }
    GtCase *c = gt_case("atomic_cas", "%s BLOCK=%d sem=%s", gt_type_name(t), block, sem);
    gt_source(c, K_CAS, "cas", "T", tl_names[t], "SEM", sem, NULL);
    gt_define(c, "BLOCK", "%d", block);
    gt_out(c, "x", t, (size_t)n, gt_exact(), x);
    gt_out(c, "old", t, (size_t)n, gt_exact(), NULL);
    gt_arg_all_bufs(c);
    gt_grid(c, 2, 1, 1);
    gt_run(c);
    free(x);
}

/* ---- smid, globaltimer, num_threads: the GPU's own values checked apart ---- */

static const char *K_SREG = "@triton.jit\n"
                            "def sreg(out: *i32, sm: *i32, t: *i64):\n"
                            "    NT: tl.constexpr = tl.extra.cuda.num_threads()\n"
                            "    offs = tl.arange(0, NT)\n"
                            "    start = tl.extra.cuda.globaltimer()\n"
                            "    mine = out + tl.program_id(0) * NT + offs\n"
                            "    for i in range(200):\n"
                            "        tl.store(mine, tl.load(mine) + 1)\n"
                            "    end = tl.extra.cuda.globaltimer()\n"
                            "    tl.store(sm + tl.program_id(0), tl.extra.cuda.smid())\n"
                            "    tl.store(t + tl.program_id(0), (end - start >= 0).to(tl.int64))\n";

static int sreg_check(GtCase *c) {
    const int32_t *sm = gt_result(c, 1, 1);
    int bad = 0;
    for (size_t i = 0; i < c->bufs[1].n; i++) bad += sm[i] < 0 || sm[i] >= 1024;
    if (bad) printf("    %d smid values outside [0, 1024)\n", bad);
    return !bad;
}

static void sreg_case(int warps, int programs) {
    GtCase *c = gt_case("smid, globaltimer, num_threads", "w%d x%d", warps, programs);
    gt_source(c, K_SREG, "sreg", NULL);
    gt_warps(c, warps);
    /* each program its own num_threads elements (programs run at once on a GPU) */
    gt_out(c, "out (num_threads elements a program)", GT_I32, (size_t)32 * warps * programs,
           gt_exact(), NULL);
    /* smid: 0 on the CPU, the multiprocessor on the GPU (sreg_check) */
    gt_out(c, "smid", GT_I32, (size_t)programs, gt_tol(1e9, 0), NULL);
    gt_out(c, "end >= start", GT_I64, (size_t)programs, gt_exact(), NULL);
    gt_arg_all_bufs(c);
    gt_grid(c, (unsigned)programs, 1, 1);
    c->check = sreg_check;
    gt_run(c);
}

/* ---- maxnreg, enable_fp_fusion, enable_reflect_ftz ---- */

static const char *K_CODEGEN =
    "@triton.jit\n"
    "def codegen(x: *fp32, y: *fp32, e: *fp32, n: i32, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    m = offs < n\n"
    "    v = tl.load(x + offs, mask=m)\n"
    "    tl.store(y + offs, v * 1.5 + 1.0 - v * v, mask=m)\n"
    "    tl.store(e + offs, tl.math.exp2(v * 8.0), mask=m)\n";

static void codegen_case(int maxnreg, int fusion, int ftz) {
    enum { N = 4099 };
    GtRng r = {4242u + (uint64_t)(maxnreg + 3 * fusion + 7 * ftz)};
    float *x = gt_fill(GT_F32, N, &r, -15, 15);
    GtCase *c = gt_case("codegen options", "maxnreg=%d fusion=%d ftz=%d", maxnreg, fusion, ftz);
    gt_source(c, K_CODEGEN, "codegen", NULL);
    gt_define(c, "BLOCK", "256");
    c->maxnreg = maxnreg, c->fp_fusion = fusion, c->reflect_ftz = ftz;
    gt_in(c, "x", GT_F32, N, x);
    /* fused: one rounding fewer per multiply-add (a few ulp of the larger terms) */
    gt_out(c, "x*1.5 + 1 - x*x", GT_F32, N, gt_tol(1e-4, 1e-6), NULL);
    /* ex2.approx: 2 ulp; with ftz the results below 2^-126 (x * 8 < -126) are 0 */
    gt_out(c, "exp2(8x)", GT_F32, N, gt_tol(ftz > 0 ? 1.2e-38 : 0, 1e-6), NULL);
    gt_arg_all_bufs(c);
    gt_arg(c, nr_arg_i32(N));
    gt_grid(c, (unsigned)gt_cdiv(N, 256), 1, 1);
    gt_run(c);
    free(x);
}

/* ---- batched tl.dot: [B, M, K] x [B, K, N] (and [2, 2, M, K] x [2, 2, K, N]) ---- */

static const char *K_DOT3 =
    "@triton.jit\n"
    "def dot3(q: *@T@, k: *@T@, o: *@O@, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,\n"
    "         K: tl.constexpr, PREC: tl.constexpr):\n"
    "    ob = tl.arange(0, B)[:, None, None]\n"
    "    om = tl.arange(0, M)[None, :, None]\n"
    "    on = tl.arange(0, N)[None, None, :]\n"
    "    okr = tl.arange(0, K)[None, None, :]\n"
    "    okc = tl.arange(0, K)[None, :, None]\n"
    "    a = tl.load(q + ob * M * K + om * K + okr)\n"
    "    b = tl.load(k + ob * K * N + okc * N + on)\n"
    "    c = tl.dot(a, b, input_precision=PREC)\n"
    "    tl.store(o + ob * M * N + om * N + on, c.to(tl.@OT@))\n";

static void dot3_case(GtType t, int B, int M, int N, int K, int warps) {
    static const char *const tl_names[] = {"float16", "bfloat16", "float32", "float64",
                                           "",        "int8",     "",        "int32"};
    GtType ot = t == GT_I8 ? GT_I32 : GT_F32;
    GtRng r = {777u + (uint64_t)(B * 1000 + M + N + K + warps)};
    void *a = t == GT_I8 ? gt_fill_int(t, (size_t)B * M * K, &r, -20, 20)
                         : gt_fill(t, (size_t)B * M * K, &r, -1, 1);
    void *b = t == GT_I8 ? gt_fill_int(t, (size_t)B * K * N, &r, -20, 20)
                         : gt_fill(t, (size_t)B * K * N, &r, -1, 1);
    GtCase *c = gt_case("batched dot", "%s %dx%dx%dx%d w%d", gt_type_name(t), B, M, N, K, warps);
    gt_source(c, K_DOT3, "dot3", "T", gt_type_name(t), "O", gt_type_name(ot), "OT", tl_names[ot],
              NULL);
    gt_define(c, "B", "%d", B), gt_define(c, "M", "%d", M), gt_define(c, "N", "%d", N);
    gt_define(c, "K", "%d", K), gt_define(c, "PREC", "'%s'", "ieee");
    gt_warps(c, warps);
    gt_in(c, "a", t, (size_t)B * M * K, a);
    gt_in(c, "b", t, (size_t)B * K * N, b);
    int out = gt_out(c, "c", ot, (size_t)B * M * N, t == GT_I8 ? gt_exact() : gt_tol(0, 0), NULL);
    if (t != GT_I8) { /* gt_dot_bound's per-element bound, each batch its own product */
        GtBuf *o = &c->bufs[out];
        o->elem_atol = calloc(o->n, sizeof(double));
        if (!o->elem_atol) abort();
        double per = 4.0 * K * ldexp(1.0, -24);
        for (size_t i = 0; i < (size_t)B; i++)
            for (size_t m = 0; m < (size_t)M; m++)
                for (size_t n = 0; n < (size_t)N; n++) {
                    double sum = 0;
                    for (size_t k = 0; k < (size_t)K; k++)
                        sum += fabs(gt_get(t, a, (i * M + m) * K + k) *
                                    gt_get(t, b, (i * K + k) * N + n));
                    o->elem_atol[(i * M + m) * N + n] = per * sum;
                }
    }
    gt_arg_all_bufs(c);
    gt_run(c);
    free(a), free(b);
}

/* Triton's test_dot_multidim: [2] * (RANK - 2) + [32, 32] blocks, RANK from 3 to 6 */
static const char *K_DOTN =
    "@triton.jit\n"
    "def dotn(x: *fp16, y: *fp16, z: *fp32, RANK: tl.constexpr, TA: tl.constexpr, TB: "
    "tl.constexpr):\n"
    "    shape: tl.constexpr = [2] * (RANK - 2) + [32, 32]\n"
    "    a = tl.load(x + tl.arange(0, 256 << RANK)).reshape(shape)\n"
    "    b = tl.load(y + tl.arange(0, 256 << RANK)).reshape(shape)\n"
    "    if TA:\n"
    "        a = tl.trans(a)\n"
    "    if TB:\n"
    "        b = tl.trans(b)\n"
    "    tl.store(z + tl.arange(0, 256 << RANK), tl.dot(a, b).reshape([256 << RANK]))\n";

static void dotn_case(int rank, int ta, int tb, int warps) {
    GtRng r = {99u + (uint64_t)(ta * 2 + tb + 4 * rank)};
    size_t n = (size_t)256 << rank;
    void *a = gt_fill_int(GT_F16, n, &r, -4, 5), *b = gt_fill_int(GT_F16, n, &r, -4, 5);
    GtCase *c =
        gt_case("batched dot, several batch dims", "rank %d ta=%d tb=%d w%d", rank, ta, tb, warps);
    gt_source(c, K_DOTN, "dotn", NULL);
    gt_define(c, "RANK", "%d", rank);
    gt_define(c, "TA", "%s", ta ? "True" : "False"),
        gt_define(c, "TB", "%s", tb ? "True" : "False");
    gt_warps(c, warps);
    gt_in(c, "x", GT_F16, n, a);
    gt_in(c, "y", GT_F16, n, b);
    gt_out(c, "z", GT_F32, n, gt_exact(), NULL); /* small integers: exact sums */
    gt_arg_all_bufs(c);
    gt_run(c);
    free(a), free(b);
}

/* ---- x.to(dtype, fp_downcast_rounding='rtz'): cvt.rz, bit for bit with the interpreter
 * (which tests/unit/test_lang_rtz.c checks against a model of the bits) ---- */

static const char *K_RTZ =
    "@triton.jit\n"
    "def rtz(x: *fp32, d: *fp64, hh: *fp16, h: *fp16, b: *bf16, e: *u8, f: *fp32, eh: *u8):\n"
    "    o = tl.program_id(0) * 1024 + tl.arange(0, 1024)\n"
    "    a = tl.load(x + o)\n"
    "    tl.store(h + o, a.to(tl.float16, fp_downcast_rounding='rtz'))\n"
    "    tl.store(b + o, a.to(tl.bfloat16, fp_downcast_rounding='rtz'))\n"
    "    e8 = a.to(tl.float8e5, fp_downcast_rounding='rtz')\n"
    "    tl.store(e + o, e8.to(tl.uint8, bitcast=True))\n"
    "    tl.store(f + o, tl.load(d + o).to(tl.float32, fp_downcast_rounding='rtz'))\n"
    "    h8 = tl.load(hh + o).to(tl.float8e5, fp_downcast_rounding='rtz')\n"
    "    tl.store(eh + o, h8.to(tl.uint8, bitcast=True))\n";

static void rtz_case(void) {
    enum { N = 65536 };
    uint32_t *x = malloc(N * 4);
    uint16_t *hh = malloc(N * 2);
    double *d = malloc(N * 8);
    if (!x || !hh || !d) abort();
    GtRng r = {4242u};
    double *rd = gt_fill(GT_F64, N, &r, -1, 1);
    for (uint32_t i = 0; i < N; i++) {
        /* every fp16 pattern as fp32, 1 to 3 ulps of fp32 above it in magnitude, and every
         * 8th a scattered pattern (subnormals, overflow, NaNs) */
        float hf;
        uint16_t h16b = (uint16_t)i;
        uint32_t e = (h16b >> 10) & 31, m = h16b & 1023;
        hf = e == 31 ? (m ? NAN : INFINITY) : (float)ldexp(e ? m + 1024 : m, (e ? (int)e : 1) - 25);
        if (h16b & 0x8000) hf = -hf;
        memcpy(&x[i], &hf, 4);
        x[i] += i % 4;
        if (i % 8 == 7) x[i] = i * 2654435761u;
        hh[i] = (uint16_t)i;
        d[i] = rd[i] * ldexp(1, (int)(i % 300) - 150);
    }
    d[0] = 1e300, d[1] = -1e300, d[2] = INFINITY, d[3] = NAN, d[4] = 0x1p-149 * 1.75;
    GtCase *c = gt_case("rtz casts", "fp32, fp64, fp16 -> fp16, bf16, fp8e5, fp32");
    gt_source(c, K_RTZ, "rtz", NULL);
    gt_in(c, "x", GT_U32, N, x);
    gt_in(c, "d", GT_F64, N, d);
    gt_in(c, "hh", GT_U16, N, hh);
    gt_out(c, "h", GT_F16, N, gt_exact(), NULL);
    gt_out(c, "b", GT_BF16, N, gt_exact(), NULL);
    gt_out(c, "e", GT_U8, N, gt_exact(), NULL);
    gt_out(c, "f", GT_F32, N, gt_exact(), NULL);
    gt_out(c, "eh", GT_U8, N, gt_exact(), NULL);
    gt_arg_all_bufs(c);
    gt_grid(c, N / 1024, 1, 1);
    gt_run(c);
    free(x), free(hh), free(d), free(rd);
}

int main(int argc, char **argv) {
    gt_init(argc, argv, "test_gpu_lang_ops");
    static const GtType cas_types[] = {GT_F16, GT_BF16, GT_F32, GT_F64, GT_I16};
    for (int i = 0; i < GT_COUNT(cas_types); i++) {
        cas_case(cas_types[i], 128, "None");
        cas_case(cas_types[i], 4, "'relaxed'");
    }
    cas_case(GT_F16, 512, "'acquire'");
    sreg_case(4, 300);
    sreg_case(8, 7);
    codegen_case(0, 0, 0);
    codegen_case(40, 1, 0);
    codegen_case(0, -1, 1);
    codegen_case(128, 1, 1);
    static const GtType dot_types[] = {GT_F16, GT_BF16, GT_F32, GT_I8};
    for (int i = 0; i < GT_COUNT(dot_types); i++) {
        dot3_case(dot_types[i], 2, 32, 32, 32, 4);
        dot3_case(dot_types[i], 4, 16, 32, 64, 1);
    }
    dot3_case(GT_F16, 8, 32, 32, 64, 8);
    dot3_case(GT_F16, 1, 64, 64, 64, 4);
    dot3_case(GT_F32, 4, 64, 64, 32, 2);
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) dotn_case(4, ta, tb, 4);
    dotn_case(5, 0, 0, 4);
    dotn_case(5, 1, 0, 8);
    dotn_case(6, 0, 1, 4);
    rtz_case();
    printf("\n");
    return gt_finish();
}
