/* test_flatten_loops.c - tl.range(..., flatten=True) (compiler/passes/flatten_loops.c, run
 * by the GPU pipeline) checked on the CPU: each kernel is compiled by the driver, run by the
 * interpreter as written (the nest) and again after pass_flatten_loops (one fused loop); the
 * outputs must be equal bit for bit, whatever the trip counts (an inner loop of no
 * iteration included), the outer step (several programs visiting tiles by a stride, a
 * negative step), a running value that starts from the row, the tutorials' pointer block
 * advanced by the inner loop, a fused nest inside another, and a -0.0 accumulator start
 * (no zero to drop). */
#include "compiler/passes/passes.h"
#include "driver/driver.h"
#include "runtime/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char *SRC =
    "@triton.jit\n"
    "def persistent(a: *fp16, b: *fp16, c: *fp16, count: *i32, M: i32, N: i32, K: i32,\n"
    "               sam: i32, sbk: i32, scm: i32, step: i32):\n"
    "    pid = tl.program_id(0)\n"
    "    tiles_n = tl.cdiv(N, 16)\n"
    "    rk = tl.arange(0, 16)\n"
    "    visited = 0\n"
    "    for tile in tl.range(pid, tl.cdiv(M, 16) * tiles_n, step, flatten=True):\n"
    "        row = (tile // tiles_n) * 16\n"
    "        col = (tile % tiles_n) * 16\n"
    "        rm = row + tl.arange(0, 16)\n"
    "        rn = col + tl.arange(0, 16)\n"
    "        rm = tl.where(rm < M, rm, 0)\n"
    "        rn = tl.where(rn < N, rn, 0)\n"
    "        acc = tl.zeros((16, 16), dtype=tl.float32)\n"
    "        for kt in range(tl.cdiv(K, 16)):\n"
    "            ks = kt * 16 + rk\n"
    "            x = tl.load(a + rm[:, None] * sam + ks[None, :], mask=rk[None, :] < K - kt * 16,\n"
    "                        other=0.0)\n"
    "            y = tl.load(b + ks[:, None] * sbk + rn[None, :], mask=rk[:, None] < K - kt * 16,\n"
    "                        other=0.0)\n"
    "            acc = tl.dot(x, y, acc)\n"
    "        om = row + tl.arange(0, 16)\n"
    "        on = col + tl.arange(0, 16)\n"
    "        tl.store(c + om[:, None] * scm + on[None, :], acc.to(tl.float16),\n"
    "                 mask=(om[:, None] < M) & (on[None, :] < N))\n"
    "        visited += 1\n"
    "    tl.store(count + pid, visited)\n"
    "\n"
    "@triton.jit\n"
    "def shifted(x: *fp32, out: *fp32, rows: i32, cols: i32, start: i32):\n"
    "    offs = tl.arange(0, 8)\n"
    "    for r in tl.range(rows - 1, -1, -1, flatten=True):\n"
    "        base = r * cols\n"
    "        run = tl.full((8,), 0.5, tl.float32) * r\n"
    "        for c in range(start, cols // 8, 2):\n"
    "            run += tl.load(x + base + c * 8 + offs)\n"
    "        tl.store(out + r * 8 + offs, run)\n"
    "\n"
    "@triton.jit\n"
    "def advancing(x: *fp32, out: *fp32, rows: i32, K: i32):\n"
    "    offs = tl.arange(0, 8)\n"
    "    for r in tl.range(0, rows, flatten=True):\n"
    "        ptrs = x + r * K * 8 + offs\n"
    "        s = tl.zeros((8,), tl.float32)\n"
    "        for k in range(K):\n"
    "            s += tl.load(ptrs)\n"
    "            ptrs += 8\n"
    "        tl.store(out + r * 8 + offs, s)\n"
    "\n"
    "@triton.jit\n"
    "def nested(x: *fp32, out: *fp32, rows: i32, K: i32):\n"
    "    offs = tl.arange(0, 8)\n"
    "    for i in tl.range(0, rows, flatten=True):\n"
    "        s = tl.zeros((8,), tl.float32)\n"
    "        for k in range(K):\n"
    "            s += tl.load(x + (i * K + k) * 8 + offs)\n"
    "        t = tl.zeros((8,), tl.float32)\n"
    "        for m in tl.range(0, rows, flatten=True):\n"
    "            u = tl.zeros((8,), tl.float32)\n"
    "            for n in range(K):\n"
    "                u += tl.load(x + (m * K + n) * 8 + offs) * 2.0\n"
    "            t += u\n"
    "        tl.store(out + i * 8 + offs, s + t)\n"
    "\n"
    "@triton.jit\n"
    "def negzero(a: *fp16, b: *fp16, out: *fp32, rows: i32, K: i32):\n"
    "    r16 = tl.arange(0, 16)\n"
    "    for r in tl.range(0, rows, flatten=True):\n"
    "        acc = tl.full((16, 16), -0.0, tl.float32)\n"
    "        for k in range(K):\n"
    "            x = tl.load(a + r16[:, None] * 16 + r16[None, :])\n"
    "            y = tl.load(b + r16[:, None] * 16 + r16[None, :])\n"
    "            acc = tl.dot(x, y, acc)\n"
    "        tl.store(out + r * 256 + r16[:, None] * 16 + r16[None, :], acc)\n";

static unsigned seed = 12345u;
static unsigned next(void) { return (seed = seed * 1103515245u + 12345u) >> 16; }

/* fp16 bits of a small value (k / 64, k in [-32, 32)): exact, finite */
static uint16_t half_of(int k) {
    if (!k) return 0;
    uint16_t sign = k < 0 ? 0x8000 : 0;
    unsigned m = (unsigned)(k < 0 ? -k : k); /* value m / 64 */
    int e = 0;
    while ((m >> e) > 1) e++;                /* m = 2^e * 1.f */
    unsigned frac = (m << (10 - e)) & 0x3FF; /* e <= 5 */
    return (uint16_t)(sign | (unsigned)(15 + e - 6) << 10 | frac);
}

typedef struct Case {
    const char *kernel;
    unsigned grid;
    int nargs;
    InterpScalar args[12];
    int nbufs;
    void *buf[4][2]; /* per buffer: the nest's run's, the fused run's */
    size_t bytes[4];
    int out[4]; /* written by the kernel: compared */
} Case;

static IrFunc *find(IrModule *m, const char *name) {
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (!strcmp(m->funcs[i]->name, name)) return m->funcs[i];
    return NULL;
}

static void buffer(Case *c, size_t bytes, int out, int fill) {
    int b = c->nbufs++;
    c->bytes[b] = bytes, c->out[b] = out;
    c->buf[b][0] = malloc(bytes), c->buf[b][1] = malloc(bytes);
    unsigned char *x = c->buf[b][0];
    if (fill == 1) /* fp16 values */
        for (size_t i = 0; i < bytes / 2; i++) {
            uint16_t h = half_of((int)(next() % 64) - 32);
            memcpy(x + 2 * i, &h, 2);
        }
    else if (fill == 2) /* fp32 values */
        for (size_t i = 0; i < bytes / 4; i++) {
            float v = (float)((int)(next() % 200) - 100) / 16.0f;
            memcpy(x + 4 * i, &v, 4);
        }
    else memset(x, fill == 3 ? 0xFF : 0, bytes);
    memcpy(c->buf[b][1], x, bytes);
}

static void release(Case *c) {
    for (int b = 0; b < c->nbufs; b++) free(c->buf[b][0]), free(c->buf[b][1]);
}

static Case scalars(const char *kernel, unsigned grid, int nbufs, int n, const int64_t *v) {
    Case c = {.kernel = kernel, .grid = grid, .nargs = nbufs + n};
    for (int i = 0; i < n; i++) c.args[nbufs + i].i = v[i];
    return c;
}

#define CHECK(...) CHECK_AT(st, __VA_ARGS__)

/* Case c's kernel f run on the interpreter over copy `which` of its buffers (0: the nest
 * as written, 1: fused); `what` names the run in a failure. */
static void run_case(CheckState *st, IrFunc *f, const Case *c, int which, const char *name,
                     const char *what) {
    InterpScalar args[12];
    memcpy(args, c->args, sizeof args);
    for (int b = 0; b < c->nbufs; b++) args[b].u = (uint64_t)(uintptr_t)c->buf[b][which];
    StrBuf err;
    sb_init(&err);
    InterpOptions io = {.buffers = NULL};
    unsigned grid[3] = {c->grid, 1, 1};
    CHECK(f && interp_run(f, args, grid, &io, &err) == 0, "%s (%s): %s", name, what, sb_cstr(&err));
    sb_free(&err);
}

int main(void) {
    CheckState checks = {0, 0}, *st = &checks;
    Source src = {"flatten.nr", SRC, strlen(SRC)};
    NrCompileOptions o = {.stop_after = NR_STAGE_IR_OPT};
    Diag diag;
    diag_init(&diag);
    NrProgram p;
    bool ok = driver_compile(&src, &o, &diag, NULL, &p);
    CHECK(ok, "compile: %s", sb_cstr(&diag.out));
    diag_free(&diag);
    if (!ok) return 1;

    /* the cases, the nest's buffers filled; then the pass, and each case run again */
    enum { NCASES = 11 };
    Case cs[NCASES];
    char names[NCASES][96];
    int nc = 0;
    static const int mm[5][5] = {{40, 24, 40, 3, 3},
                                 {32, 32, 0, 2, 2},
                                 {17, 45, 9, 4, 5},
                                 {16, 16, 64, 1, 1},
                                 {20, 20, 20, 2, 7}};
    for (int i = 0; i < 5; i++) {
        int M = mm[i][0], N = mm[i][1], K = mm[i][2], progs = mm[i][3], step = mm[i][4];
        int64_t v[7] = {M, N, K, K > 0 ? K : 1, N, N, step};
        Case c = scalars("persistent", (unsigned)progs, 4, 7, v);
        buffer(&c, (size_t)M * (size_t)(K > 0 ? K : 1) * 2, 0, 1);
        buffer(&c, (size_t)(K > 0 ? K : 1) * (size_t)N * 2, 0, 1);
        buffer(&c, (size_t)M * (size_t)N * 2, 1, 3);
        buffer(&c, (size_t)progs * 4, 1, 0);
        snprintf(names[nc], sizeof names[nc], "persistent M=%d N=%d K=%d step=%d", M, N, K, step);
        cs[nc++] = c;
    }
    for (int start = 0; start < 3; start += 2) {
        int64_t v[3] = {5, 64, start};
        Case c = scalars("shifted", 1, 2, 3, v);
        buffer(&c, 5 * 64 * 4, 0, 2);
        buffer(&c, 5 * 8 * 4, 1, 0);
        snprintf(names[nc], sizeof names[nc], "shifted start=%d", start);
        cs[nc++] = c;
    }
    {
        int64_t v[3] = {5, 64, 9}; /* no inner iteration in any row */
        Case c = scalars("shifted", 1, 2, 3, v);
        buffer(&c, 5 * 64 * 4, 0, 2);
        buffer(&c, 5 * 8 * 4, 1, 0);
        snprintf(names[nc], sizeof names[nc], "shifted, no inner iteration");
        cs[nc++] = c;
    }
    const char *rowk[2] = {"advancing", "nested"};
    for (int i = 0; i < 2; i++) {
        int64_t v[2] = {4, 3};
        Case c = scalars(rowk[i], 1, 2, 2, v);
        buffer(&c, 4 * 3 * 8 * 4, 0, 2);
        buffer(&c, 4 * 8 * 4, 1, 0);
        snprintf(names[nc], sizeof names[nc], "%s", rowk[i]);
        cs[nc++] = c;
    }
    {
        /* a = +0.0, b = -1: every product -0.0; from -0.0 the sum stays -0.0 (a +0.0 start
         * would make it +0.0) */
        int64_t v[2] = {2, 3};
        Case c = scalars("negzero", 1, 3, 2, v);
        buffer(&c, 256 * 2, 0, 0);
        buffer(&c, 256 * 2, 0, 0);
        buffer(&c, 2 * 256 * 4, 1, 0);
        for (int e = 0; e < 256; e++)
            ((uint16_t *)c.buf[1][0])[e] = ((uint16_t *)c.buf[1][1])[e] = 0xBC00;
        snprintf(names[nc], sizeof names[nc], "negzero");
        cs[nc++] = c;
    }
    /* the nests as written */
    for (int i = 0; i < nc; i++)
        run_case(st, find(p.ir, cs[i].kernel), &cs[i], 0, names[i], "nest");
    StrBuf before, after, err;
    sb_init(&before), sb_init(&after), sb_init(&err);
    ir_print_module(&before, p.ir);
    pass_flatten_loops(p.ir, false);
    bool valid = ir_verify_module(p.ir, &err);
    CHECK(valid, "invalid IR after flatten-loops: %s", sb_cstr(&err));
    ir_print_module(&after, p.ir);
    CHECK(strcmp(sb_cstr(&before), sb_cstr(&after)) != 0, "flatten-loops changed nothing");
    sb_free(&before), sb_free(&after), sb_free(&err);
    for (int i = 0; valid && i < nc; i++) {
        run_case(st, find(p.ir, cs[i].kernel), &cs[i], 1, names[i], "fused");
        for (int b = 0; b < cs[i].nbufs; b++)
            if (cs[i].out[b])
                CHECK(!memcmp(cs[i].buf[b][0], cs[i].buf[b][1], cs[i].bytes[b]),
                      "%s: buffer %d differs once fused", names[i], b);
    }
    for (int i = 0; i < nc; i++) release(&cs[i]);
    driver_program_free(&p);
    return check_done("test_flatten_loops", st);
}
