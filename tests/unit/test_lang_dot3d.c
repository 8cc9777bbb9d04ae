/* test_lang_dot3d.c - Triton's test_dot3d kernel (tl.dot of [B, M, K] and [B, K, N]
 * blocks with out_dtype) on the CPU interpreter, with out_dtype's rules from Triton's
 * semantic.dot: fp16 operands with out_dtype=tl.float16 give an fp16 block (the fp32 sum
 * rounded once), int8 operands give int32 whatever out_dtype says (test_dot3d passes
 * tl.int8), fp32 operands fp32; an fp16 accumulator goes with out_dtype=tl.float16;
 * out_dtype=tl.bfloat16 and an integer out_dtype for fp16 operands are located errors.
 * Inputs are small integers, so every sum is exact and the expected values are exact. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nereid.h"

#include "lang_harness.h"

static const char *K_DOT3D =
    "@triton.jit\n"
    "def k(q_ptr: *IN, k_ptr: *IN, o_ptr: *OUT, BLOCK_B: tl.constexpr, BLOCK_M: tl.constexpr,\n"
    "      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, out_dtype: tl.constexpr = tl.float32):\n"
    "    offs_b = tl.arange(0, BLOCK_B)\n"
    "    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)\n"
    "    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)\n"
    "    offs_k = tl.arange(0, BLOCK_K)\n"
    "    M = tl.num_programs(0) * BLOCK_M\n"
    "    N = tl.num_programs(1) * BLOCK_N\n"
    "    q = tl.load(q_ptr + offs_b[:, None, None] * M * BLOCK_K + offs_m[None, :, None] * BLOCK_K"
    " + offs_k[None, None, :])\n"
    "    k = tl.load(k_ptr + offs_b[:, None, None] * BLOCK_K * N + offs_k[None, :, None] * N"
    " + offs_n[None, None, :])\n"
    "    qk = tl.dot(q, k, out_dtype=out_dtype)\n"
    "    tl.static_assert(qk.dtype == RES)\n"
    "    tl.store(o_ptr + offs_b[:, None, None] * M * N + offs_m[None, :, None] * N"
    " + offs_n[None, None, :], qk)\n";

/* in: "fp16", "i8" or "fp32"; out_dtype the tl dtype given; res the dtype expected */
static void dot3d_case(const char *in, const char *out_dtype, const char *res, int B, int M, int N,
                       int K, int BM, int BN) {
    char src[2048], defs[128];
    const char *out = !strcmp(res, "tl.float16") ? "fp16"
                      : !strcmp(res, "tl.int32") ? "i32"
                                                 : "fp32";
    snprintf(src, sizeof src, "%s", K_DOT3D);
    /* the pointer types and the expected result dtype, substituted in the text */
    char *text = malloc(4096);
    if (!text) abort();
    size_t w = 0;
    for (const char *p = src; *p;) {
        const char *rep = NULL;
        size_t skip = 0;
        if (!strncmp(p, "*IN", 3)) rep = in, skip = 3, text[w++] = '*';
        else if (!strncmp(p, "*OUT", 4)) rep = out, skip = 4, text[w++] = '*';
        else if (!strncmp(p, "RES", 3)) rep = res, skip = 3;
        if (rep) {
            w += (size_t)sprintf(text + w, "%s", rep);
            p += skip;
        } else {
            text[w++] = *p++;
        }
    }
    text[w] = 0;
    snprintf(defs, sizeof defs, "BLOCK_B=%d BLOCK_M=%d BLOCK_N=%d BLOCK_K=%d out_dtype=%s", B, BM,
             BN, K, out_dtype);
    nr_kernel *k = build_at(__LINE__, text, defs);
    free(text);
    if (!k) return;
    int esz = !strcmp(in, "i8") ? 1 : !strcmp(in, "fp16") ? 2 : 4;
    int osz = !strcmp(out, "fp16") ? 2 : 4;
    size_t na = (size_t)B * M * K, nb = (size_t)B * K * N, nc = (size_t)B * M * N;
    int *ia = malloc(na * sizeof(int)), *ib = malloc(nb * sizeof(int));
    unsigned char *ha = malloc(na * 4), *hb = malloc(nb * 4), *hc = malloc(nc * 4);
    if (!ia || !ib || !ha || !hb || !hc) abort();
    uint32_t s = 17;
    for (size_t i = 0; i < na + nb; i++) {
        s = s * 1664525u + 1013904223u;
        int v = (int)(s >> 24) % 9 - 4;
        int *dst = i < na ? &ia[i] : &ib[i - na];
        *dst = v;
        unsigned char *hp = i < na ? ha + i * (size_t)esz : hb + (i - na) * (size_t)esz;
        if (esz == 1) *(int8_t *)hp = (int8_t)v;
        else if (esz == 2) {
            uint16_t h = h16(v);
            memcpy(hp, &h, 2);
        } else {
            float f = (float)v;
            memcpy(hp, &f, 4);
        }
    }
    nr_devptr da = dev_from(ha, na * (size_t)esz), db = dev_from(hb, nb * (size_t)esz),
              dc = dev_from(NULL, nc * (size_t)osz);
    RUN(k, (unsigned)(M / BM), (unsigned)(N / BN), 1, nr_arg_ptr(da), nr_arg_ptr(db),
        nr_arg_ptr(dc));
    dev_to(hc, dc, nc * (size_t)osz);
    int bad = 0;
    for (int b = 0; b < B; b++)
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                long want = 0;
                for (int kk = 0; kk < K; kk++)
                    want +=
                        (long)ia[((size_t)b * M + m) * K + kk] * ib[((size_t)b * K + kk) * N + n];
                size_t i = ((size_t)b * M + m) * N + n;
                double got;
                if (osz == 2) {
                    uint16_t h;
                    memcpy(&h, hc + i * 2, 2);
                    got = f16(h);
                } else if (!strcmp(out, "i32")) {
                    int32_t v;
                    memcpy(&v, hc + i * 4, 4);
                    got = v;
                } else {
                    float f;
                    memcpy(&f, hc + i * 4, 4);
                    got = f;
                }
                if (got != (double)want && bad++ < 3)
                    printf("  [%d, %d, %d]: %g, want %ld\n", b, m, n, got, want);
            }
    CHECK(!bad, "dot3d %s out_dtype=%s B=%d %dx%dx%d blocks %dx%d: %d wrong", in, out_dtype, B, M,
          N, K, BM, BN, bad);
    nr_free(ctx, da), nr_free(ctx, db), nr_free(ctx, dc);
    free(ia), free(ib), free(ha), free(hb), free(hc);
}

static const char *K_ACC16 = "@triton.jit\n"
                             "def k(x: *fp16, o: *fp16):\n"
                             "    a = tl.load(x + tl.arange(0, 1024)).reshape(2, 16, 32)\n"
                             "    b = tl.load(x + tl.arange(0, 1024)).reshape(2, 32, 16)\n"
                             "    acc = tl.full((2, 16, 16), 0.5, tl.float16)\n"
                             "    r = tl.dot(a, b, acc, out_dtype=tl.float16)\n"
                             "    tl.store(o + tl.arange(0, 512), r.reshape(512))\n";

static void bad_case(int line, const char *in, const char *od, const char *want) {
    char text[512];
    snprintf(text, sizeof text,
             "@triton.jit\n"
             "def k(x: *%s, y: *fp32):\n"
             "    a = tl.load(x + tl.arange(0, 256)).reshape(16, 16)\n"
             "    tl.store(y + tl.arange(0, 256), tl.dot(a, a, out_dtype=%s).reshape(256))\n",
             in, od);
    compile_error_at(line, text, NULL, want);
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) {
        printf("no CPU context\n");
        return 1;
    }
    static const int Bs[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) {
        dot3d_case("fp16", "tl.float16", "tl.float16", Bs[i], 64, 64, 64, 32, 32);
        dot3d_case("i8", "tl.int8", "tl.int32", Bs[i], 32, 32, 32, 32, 32);
    }
    dot3d_case("fp16", "tl.float32", "tl.float32", 2, 32, 32, 32, 32, 32);
    dot3d_case("fp32", "tl.float32", "tl.float32", 2, 32, 32, 32, 32, 32);
    dot3d_case("fp32", "tl.float16", "tl.float32", 2, 32, 32, 32, 32, 32); /* ignored */
    dot3d_case("fp16", "tl.float16", "tl.float16", 4, 128, 128, 64, 64, 64);
    /* an fp16 accumulator: widened exactly, the sum rounded once */
    nr_kernel *k = BUILD(K_ACC16, NULL);
    if (k) {
        uint16_t x[1024], o[512];
        for (int i = 0; i < 1024; i++) x[i] = h16((i * 7 % 5) - 2);
        nr_devptr dx = dev_from(x, sizeof x), dox = dev_from(NULL, sizeof o);
        RUN(k, 1, 1, 1, nr_arg_ptr(dx), nr_arg_ptr(dox));
        dev_to(o, dox, sizeof o);
        int bad = 0;
        for (int b = 0; b < 2; b++)
            for (int m = 0; m < 16; m++)
                for (int n = 0; n < 16; n++) {
                    double want = 0.5;
                    for (int kk = 0; kk < 32; kk++)
                        want += f16(x[b * 512 + m * 32 + kk]) * f16(x[b * 512 + kk * 16 + n]);
                    bad += f16(o[(b * 16 + m) * 16 + n]) != want;
                }
        CHECK(!bad, "an fp16 accumulator with out_dtype=tl.float16: %d wrong", bad);
        nr_free(ctx, dx), nr_free(ctx, dox);
    }
    bad_case(__LINE__, "fp16", "tl.bfloat16", "out_dtype=bfloat16 is unsupported");
    bad_case(__LINE__, "fp32", "tl.bfloat16", "out_dtype=bfloat16 is unsupported");
    bad_case(__LINE__, "fp16", "tl.int32",
             "tl.dot: out_dtype must be fp32 or fp16 for fp16 operands");
    compile_error_at(__LINE__,
                     "@triton.jit\n"
                     "def k(x: *fp16):\n"
                     "    a = tl.load(x + tl.arange(0, 256)).reshape(16, 16)\n"
                     "    acc = tl.zeros((16, 16), tl.float32)\n"
                     "    tl.store(x + tl.arange(0, 256), tl.dot(a, a, acc, out_dtype=tl.float16)"
                     ".reshape(256))\n",
                     NULL, "tl.dot: the accumulator must be <16x16xfp16>, got <16x16xfp32>");
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_lang_dot3d", &st);
}
