/* pcompile.c - the cold start of an autotuned matmul: examples/matmul.nr under the matmul
 * tutorial's 8 CUDA configs (as bench/autotune_matmul.py tunes it), compiled on
 * NEREID_COMPILE_THREADS = 1, 2, ... threads: the module's compile (the configs' front
 * ends) and nr_prepare_many of the tuned kernel (each config's GPU back end to PTX and the
 * driver's JIT), what a tuned kernel's first launch compiles before it times anything.
 *
 *   LD_LIBRARY_PATH=build/mock build/bench/pcompile [THREADS...] [--reps N]
 *
 * On the stand-in driver (build/mock: its "JIT" keeps the PTX) this times Nereid's own
 * compiles on a machine without a GPU; on a GPU the driver's JIT runs on the threads
 * too. Each run uses a fresh cache directory (nothing from the disk cache). Prints one
 * line per thread count: the median wall time of the compile, of the prepare and of both,
 * the speedup over the first count, and the process's CPU time for both (CPU time above
 * the wall time: the threads ran at once). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nereid.h"

static const char *CONFIGS = /* BLOCK_SIZE_M, N, K, GROUP_SIZE_M, num_stages, num_warps */
    "@triton.autotune(configs=[\n"
    "    triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 64, "
    "'GROUP_SIZE_M': 8}, num_stages=3, num_warps=8),\n"
    "    triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 32, "
    "'GROUP_SIZE_M': 8}, num_stages=4, num_warps=4),\n"
    "    triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 32, "
    "'GROUP_SIZE_M': 8}, num_stages=4, num_warps=4),\n"
    "    triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 32, "
    "'GROUP_SIZE_M': 8}, num_stages=4, num_warps=4),\n"
    "    triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 32, "
    "'GROUP_SIZE_M': 8}, num_stages=4, num_warps=4),\n"
    "    triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 32, "
    "'GROUP_SIZE_M': 8}, num_stages=4, num_warps=4),\n"
    "    triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 32, "
    "'GROUP_SIZE_M': 8}, num_stages=5, num_warps=2),\n"
    "    triton.Config({'BLOCK_SIZE_M': 32, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 32, "
    "'GROUP_SIZE_M': 8}, num_stages=5, num_warps=2),\n"
    "], key=['M', 'N', 'K'])\n";

static double clock_ms(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }

/* examples/matmul.nr with the decorator in front of its @triton.jit (malloc'd) */
static char *tuned_source(void) {
    FILE *f = fopen("examples/matmul.nr", "rb");
    if (!f) return NULL;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *marker = "@triton.jit\ndef matmul_kernel(";
    char *at = strstr(text, marker);
    if (!at) return NULL;
    char *out = malloc(n + strlen(CONFIGS) + 1);
    memcpy(out, text, (size_t)(at - text));
    strcpy(out + (at - text), CONFIGS);
    strcat(out, at);
    return out;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One cold start with `threads`: the compile's and the prepare's milliseconds. */
static int cold_start(const char *src, int threads, double *compile_ms, double *prepare_ms,
                      double *cpu_ms) {
    char v[16], dir[] = "/tmp/nereid-bench-pcompile-XXXXXX";
    snprintf(v, sizeof v, "%d", threads);
    setenv("NEREID_COMPILE_THREADS", v, 1);
    if (!mkdtemp(dir)) return -1;
    setenv("NEREID_CACHE_DIR", dir, 1);
    nr_context *ctx;
    char why[256];
    if (nr_context_create_ex(NR_DEVICE_CUDA, 0, &ctx, why, sizeof why)) {
        fprintf(stderr, "pcompile: no CUDA context (%s): run with LD_LIBRARY_PATH=build/mock\n",
                why);
        return -1;
    }
    nr_compile_options o = {.defines = (nr_define[]){{"ACTIVATION", "''"}}, .num_defines = 1};
    double t0 = now_ms(), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    nr_module *mod;
    nr_kernel *k;
    nr_status s = nr_compile_source(ctx, src, strlen(src), "matmul.nr", &o, &mod);
    if (!s) s = nr_module_get_kernel(mod, "matmul_kernel", &k);
    double t1 = now_ms();
    enum { M = 4096 };
    nr_devptr a = 0, b = 0, c = 0;
    if (!s) s = nr_malloc(ctx, 256, &a);
    if (!s) s = nr_malloc(ctx, 256, &b);
    if (!s) s = nr_malloc(ctx, 256, &c);
    nr_arg args[] = {nr_arg_ptr(a), nr_arg_ptr(b), nr_arg_ptr(c), nr_arg_i32(M),
                     nr_arg_i32(M), nr_arg_i32(M), nr_arg_i32(M), nr_arg_i32(1),
                     nr_arg_i32(M), nr_arg_i32(1), nr_arg_i32(M), nr_arg_i32(1)};
    nr_prepare_job job = {k, args, 12, NULL, NR_OK};
    if (!s) s = nr_prepare_many(&job, 1);
    double t2 = now_ms();
    *cpu_ms = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
    nr_stats st;
    nr_context_stats(ctx, &st);
    if (s || st.gpu_compiles != 8) {
        fprintf(stderr, "pcompile: %s (%llu variants compiled)\n", nr_last_error(ctx),
                (unsigned long long)st.gpu_compiles);
        s = s ? s : NR_ERR_COMPILE;
    }
    nr_context_destroy(ctx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "pcompile: could not remove %s\n", dir);
    *compile_ms = t1 - t0, *prepare_ms = t2 - t1;
    return s ? -1 : 0;
}

int main(int argc, char **argv) {
    int counts[16], n = 0, reps = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (n < 16) counts[n++] = atoi(argv[i]);
    }
    if (!n) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        counts[n++] = 1;
        for (int t = 2; t < cpus && t < 8 && n < 15; t *= 2) counts[n++] = t;
        if (cpus > 1) counts[n++] = cpus < 8 ? (int)cpus : 8;
    }
    char *src = tuned_source();
    if (!src) {
        fprintf(stderr, "pcompile: cannot read examples/matmul.nr (run from the repository)\n");
        return 1;
    }
    printf("tuned matmul, 8 configs, cold start (front ends + GPU back end to PTX + JIT), median "
           "of %d; %ld CPUs online\n",
           reps, sysconf(_SC_NPROCESSORS_ONLN));
    printf("%8s %12s %12s %12s %8s %12s\n", "threads", "compile ms", "prepare ms", "total ms",
           "speedup", "CPU ms");
    double base = 0;
    for (int i = 0; i < n; i++) {
        double c[64], p[64], tot[64], cpu[64];
        for (int r = 0; r < reps && r < 64; r++) {
            if (cold_start(src, counts[i], &c[r], &p[r], &cpu[r])) return 1;
            tot[r] = c[r] + p[r];
        }
        int m = reps < 64 ? reps : 64;
        qsort(c, (size_t)m, sizeof *c, cmp), qsort(p, (size_t)m, sizeof *p, cmp);
        qsort(tot, (size_t)m, sizeof *tot, cmp), qsort(cpu, (size_t)m, sizeof *cpu, cmp);
        if (!i) base = tot[m / 2];
        printf("%8d %12.1f %12.1f %12.1f %7.2fx %12.1f\n", counts[i], c[m / 2], p[m / 2],
               tot[m / 2], base / tot[m / 2], cpu[m / 2]);
        fflush(stdout);
    }
    free(src);
    return 0;
}
