/* compile_time.c - source-to-PTX compile time of every example kernel inside one
 * process, as a program that embeds the JIT sees it.
 *
 *   build/bench/compile_time [RUNS [FILTER]]   (default 11; run from the repository root;
 *                                               FILTER: only the rows whose name (as
 *                                               printed: file, kernel, defines) contains it)
 *
 * Each kernel is compiled RUNS times from its source text: the front end (parse, sema and
 * lowering, the IR passes; the standard library parsed once for the process, as the C API
 * parses it once per context), then the GPU back end (the GPU
 * passes, LLVM IR, LLVM's pipeline, NVPTX's PTX emission) for sm_90a with the
 * specialisation the CLI uses by default (pointers 16-byte aligned, no integer facts).
 * Printed per kernel: the first compile of the process ("first": it pays LLVM's one-time
 * costs, its code and tables touched for the first time; only the first kernel of the
 * list pays all of them), the median of the other runs, stage by stage, and the fastest of
 * them in all ("min": on a shared machine the least disturbed), and the median CPU time of
 * the compiling thread ("cpu": what the compile costs when other processes share the CPUs
 * and stretch the wall-clock columns; on an idle machine it is within a few percent of
 * "total"). Rows marked [no assume]
 * compile the file without its tl.assume lines (Triton's tutorial matmul as written). bench/
 * compile_time.sh measures the `nereid compile` command instead (a fresh process each
 * time). Timings decide nothing: the exit status is 1 only if a kernel fails to compile. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "driver/gpu_compile.h"
#include "nereid.h"

typedef struct Spec {
    const char *file, *kernel;
    int warps;
    const char *defines; /* space-separated NAME=VALUE */
    const char *facts;   /* one letter per parameter as the runtime keys variants (d: 16-byte
                            aligned or divisible by 16, o: equal to 1, n: neither); NULL: the
                            CLI's default (pointers d, integers n) */
    int stages;          /* num_stages (0: 3, the default) */
    bool no_assume;      /* the source without its tl.assume lines: the kernel as Triton's
                            tutorial wrote it before tl.assume (issue 23) */
} Spec;

static const Spec specs[] = {
    {"examples/vector_add.nr", "add_kernel", 4, "BLOCK_SIZE=1024", NULL, 0, false},
    {"examples/dropout.nr", "_dropout", 4, "BLOCK_SIZE=1024", NULL, 0, false},
    {"examples/dropout.nr", "_seeded_dropout", 4, "BLOCK_SIZE=1024", NULL, 0, false},
    {"bench/dropout4x.nr", "_seeded_dropout4x", 4, "BLOCK=1024", NULL, 0, false},
    {"examples/matrix_dropout.nr", "_matrix_seeded_dropout", 4, "BLOCK_SIZE=256", NULL, 0, false},
    {"examples/softmax.nr", "softmax_kernel", 4, "BLOCK_SIZE=1024 num_stages=1", NULL, 0, false},
    {"examples/softmax.nr", "softmax_kernel", 16, "BLOCK_SIZE=16384 num_stages=1", NULL, 0, false},
    {"examples/layer_norm.nr", "_layer_norm_fwd_fused", 4, "BLOCK_SIZE=256", NULL, 0, false},
    {"examples/matmul.nr", "matmul_kernel", 4,
     "BLOCK_SIZE_M=64 BLOCK_SIZE_N=64 BLOCK_SIZE_K=32 GROUP_SIZE_M=8 ACTIVATION=leaky_relu", NULL,
     0, false},
    /* the variant bench.py's 4096^3 launch compiles: sizes and row strides divisible by 16,
     * unit column strides folded */
    {"examples/matmul.nr", "matmul_kernel", 4,
     "BLOCK_SIZE_M=64 BLOCK_SIZE_N=64 BLOCK_SIZE_K=32 GROUP_SIZE_M=8 ACTIVATION=leaky_relu",
     "dddddddododo", 0, false},
    /* the benchmark's best tile on the H200: wgmma m64n256k16 on two warpgroups, 3 stages */
    {"examples/matmul.nr", "matmul_kernel", 8,
     "BLOCK_SIZE_M=128 BLOCK_SIZE_N=256 BLOCK_SIZE_K=64 GROUP_SIZE_M=8 ACTIVATION=", "dddddddododo",
     0, false},
    /* Triton's tutorial matmul as written (no tl.assume), its two H200 configurations */
    {"examples/matmul.nr", "matmul_kernel", 8,
     "BLOCK_SIZE_M=128 BLOCK_SIZE_N=256 BLOCK_SIZE_K=64 GROUP_SIZE_M=8 ACTIVATION=", "dddddddododo",
     3, true},
    {"examples/matmul.nr", "matmul_kernel", 4,
     "BLOCK_SIZE_M=128 BLOCK_SIZE_N=128 BLOCK_SIZE_K=32 GROUP_SIZE_M=8 ACTIVATION=", "dddddddododo",
     4, true},
    /* the attention forward at Triton's tutorial tile (BLOCK_M 128, BLOCK_N 64, 8 warps):
     * pointers and row strides divisible by 16, unit last strides */
    {"examples/attention.nr", "_attn_fwd", 8, "HEAD_DIM=128 BLOCK_M=128 BLOCK_N=64 CAUSAL=False",
     "ddddddddodddodddodddoddnnn", 3, false},
    {"examples/attention.nr", "_attn_fwd", 8, "HEAD_DIM=64 BLOCK_M=128 BLOCK_N=64 CAUSAL=True",
     "ddddddddodddodddodddoddnnn", 3, false},
};

enum { NSTAGES = 7 }; /* front, gpu passes, llvm ir, llvm opt, ptx, total, cpu */

static char *read_text(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    StrBuf b;
    sb_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) sb_putn(&b, chunk, n);
    fclose(f);
    *len = b.len;
    return b.data ? b.data : calloc(1, 1);
}

/* One compile, source to PTX; t gets the stage times. */
static bool compile_once(const Source *src, const NrCompileOptions *o, const Spec *s, double *t) {
    Diag d;
    diag_init(&d);
    double t0 = clock_now_ms(), c0 = clock_thread_cpu_ms();
    NrProgram p;
    bool ok = driver_compile(src, o, &d, NULL, &p);
    double t1 = clock_now_ms();
    if (ok) {
        IrFunc *f = NULL;
        for (uint32_t i = 0; i < p.ir->nfuncs; i++)
            if (p.ir->funcs[i]->is_kernel) f = p.ir->funcs[i];
        uint32_t np = f->regions[f->body].nargs;
        uint8_t *facts = calloc(np + 1, 1);
        for (uint32_t i = 0; i < np; i++) {
            char c = s->facts && i < strlen(s->facts) ? s->facts[i] : 0;
            bool ptr = ty_is_ptr(ir_type(f, f->regions[f->body].args[i]));
            facts[i] = c == 'd'   ? SPEC_DIV16
                       : c == 'o' ? SPEC_ONE
                       : c == 'n' ? SPEC_NONE
                       : ptr      ? SPEC_DIV16
                                  : SPEC_NONE;
        }
        GpuSpec spec = {(int)np, facts, GPU_SPECULATE_VERSION, false};
        GpuTarget target = {"sm_90a", s->warps, s->stages ? s->stages : 3, NULL, NULL, NULL,
                            0,        {0}};
        GpuResult r;
        ok = gpu_compile_kernel(f, &spec, &target, GPU_DUMP_NONE, NULL, NULL, &r, &d);
        double t2 = clock_now_ms(), c2 = clock_thread_cpu_ms();
        if (ok) {
            t[0] = t1 - t0;
            for (int k = 0; k < 4; k++) t[1 + k] = r.times_ms[k];
            t[5] = t2 - t0;
            t[6] = c2 - c0;
            sb_free(&r.ptx);
        }
        free(facts);
        driver_program_free(&p);
    }
    if (!ok)
        fprintf(stderr, "compile_time: %s %s failed:\n%s", s->file, s->kernel, sb_cstr(&d.out));
    diag_free(&d);
    return ok;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The row's name: the file, kernel and defines, and how it is launched. */
static void row_name(const Spec *s, char *name, size_t n) {
    snprintf(name, n, "%s%s%s %s %s", s->facts ? "[as launched] " : "",
             s->no_assume ? "[no assume] " : "", strrchr(s->file, '/') + 1, s->kernel, s->defines);
}

/* Removes the lines that call tl.assume from text (in place); returns the new length. */
static size_t strip_assume(char *text) {
    char *out = text;
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        end = end ? end + 1 : line + strlen(line);
        char *a = strstr(line, "tl.assume(");
        if (!a || a >= end) {
            memmove(out, line, (size_t)(end - line));
            out += end - line;
        }
        line = end;
    }
    *out = 0;
    return (size_t)(out - text);
}

/* Compiles one spec runs times; prints its row. */
static bool measure(const Spec *s, int runs, const Module *stdlib) {
    size_t len;
    char *text = read_text(s->file, &len);
    if (!text) {
        fprintf(stderr, "compile_time: cannot read %s (run from the repository root)\n", s->file);
        return false;
    }
    if (s->no_assume) len = strip_assume(text);
    char defs_text[256];
    snprintf(defs_text, sizeof defs_text, "%s", s->defines);
    SemaDefine defs[16];
    int nd = 0;
    for (char *tok = strtok(defs_text, " "); tok && nd < 16; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        *eq = 0;
        defs[nd].name = tok, defs[nd].value = eq + 1, nd++;
    }
    Source src = {s->file, text, len};
    NrCompileOptions o;
    memset(&o, 0, sizeof o);
    o.defines = defs, o.ndefines = nd, o.only_kernel = s->kernel, o.num_warps = s->warps;
    o.num_stages = s->stages;
    o.stop_after = NR_STAGE_IR_OPT;
    o.stdlib = stdlib;
    double *t = calloc((size_t)runs * NSTAGES, sizeof *t), first = 0, col[NSTAGES], least = 0;
    bool ok = true;
    for (int i = 0; i < runs && ok; i++) ok = compile_once(&src, &o, s, t + (size_t)i * NSTAGES);
    if (ok) {
        first = t[5];
        double *v = calloc((size_t)runs, sizeof *v);
        for (int k = 0; k < NSTAGES; k++) {
            for (int i = 1; i < runs; i++) v[i - 1] = t[(size_t)i * NSTAGES + k];
            col[k] = median(v, runs - 1);
            if (k == 5) least = v[0]; /* sorted: the fastest of the other runs, in all */
        }
        free(v);
        char name[160];
        row_name(s, name, sizeof name);
        printf("%-60.60s %5d %8.2f | %7.2f %7.2f %7.2f %7.2f %7.2f %8.2f %8.2f %8.2f\n", name,
               s->warps, first, col[0], col[1], col[2], col[3], col[4], col[5], least, col[6]);
    }
    free(t);
    free(text);
    return ok;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 11;
    if (runs < 2) runs = 2;
    unsigned major, minor, patch;
    llvm_gen_version(&major, &minor, &patch);
    printf("compile time in one process, source to PTX (sm_90a), first compile and median of the "
           "next %d: nereid %s "
           "(LLVM %u.%u.%u)\n",
           runs - 1, NEREID_VERSION, major, minor, patch);
    printf("%-60s %5s %8s | %7s %7s %7s %7s %7s %8s %8s %8s\n", "kernel (file, defines)", "warps",
           "first", "front", "gpu pass", "llvm ir", "llvmopt", "ptx", "total", "min", "cpu");
    int fail = 0;
    Arena *std_arena = arena_new();
    const Module *stdlib = driver_parse_stdlib(std_arena);
    const char *filter = argc > 2 ? argv[2] : NULL;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        char name[160];
        row_name(&specs[i], name, sizeof name);
        if (!filter || strstr(name, filter)) fail |= !measure(&specs[i], runs, stdlib);
    }
    printf("(ms; first = the process's first compile of that kernel, all stages; front = parse + "
           "sema + IR passes; cpu = the median CPU time of the compiling thread, all stages)\n");
    arena_free(std_arena);
    return fail;
}
