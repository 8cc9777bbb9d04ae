/* launch_overhead.c - the host cost of one nr_launch, against a bare cuLaunchKernel of the
 * same PTX in the same process.
 *
 *   build-gpu/bench/launch_overhead [LAUNCHES]      (default 10000; run from the repo root)
 *
 * The kernel is examples/vector_add.nr's add_kernel with BLOCK_SIZE = 128 on 128 elements:
 * one program of 4 warps. Nereid: compiled through the C API, launched LAUNCHES times back
 * to back with nr_launch (no synchronisation in between), then nr_synchronize. Bare: the
 * PTX of the same specialisation (pointers 16-byte aligned, n divisible by 16, 4 warps, the
 * device's target) from `nereid compile ... --emit=ptx` (the CLI next to this program, or
 * $NEREID_BIN), loaded with cuModuleLoadData and launched LAUNCHES times with
 * cuLaunchKernel, then cuCtxSynchronize; the driver is opened with dlopen and the few
 * prototypes are declared here, as runtime/cuda.c does. Both use the device's primary
 * context (the one Nereid uses). Each loop is timed 5 times; the medians are printed:
 * microseconds per launch on the host (the loop alone) and including the final
 * synchronisation, and the ratio Nereid / bare (target: <= 1.3). A third row adds a
 * cuCtxSetCurrent before every bare launch (Nereid makes its context current on every
 * call), to show where the difference goes. Results are checked (z = x + y); timings
 * decide nothing: the exit status is 1 only if something failed. Without a CUDA device
 * it prints "SKIP: ..." and exits 0. On the stand-in driver (tests/mock/cuda_mock.c first
 * on LD_LIBRARY_PATH, as bench/launch_overhead_mock.py runs it), which runs no kernel,
 * the times are Nereid's own overhead over a driver call that costs next to nothing, and
 * the results are not checked. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nereid.h"

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;

static struct {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **);
    CUresult (*GetErrorName)(CUresult, const char **);
} cu;

enum { CC_MAJOR = 75, CC_MINOR = 76, N = 128, REPEAT = 5 };

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static int cu_check(CUresult r, const char *what) {
    if (r == 0) return 0;
    const char *name = "?";
    if (cu.GetErrorName) cu.GetErrorName(r, &name);
    printf("launch_overhead: FAILED (%s: %s)\n", what, name);
    return 1;
}

static void *sym(void *lib, const char *name, int *missing) {
    void *p = dlsym(lib, name);
    if (!p) {
        printf("launch_overhead: libcuda.so.1 lacks %s\n", name);
        (*missing)++;
    }
    return p;
}

#define LOAD(field, name)                    \
    do {                                     \
        void *p_ = sym(lib, name, &missing); \
        memcpy(&cu.field, &p_, sizeof p_);   \
    } while (0)

static int load_driver(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib) return -1;
    int missing = 0;
    LOAD(Init, "cuInit");
    LOAD(DeviceGet, "cuDeviceGet");
    LOAD(DeviceGetAttribute, "cuDeviceGetAttribute");
    LOAD(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    LOAD(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    LOAD(CtxSetCurrent, "cuCtxSetCurrent");
    LOAD(CtxSynchronize, "cuCtxSynchronize");
    LOAD(ModuleLoadData, "cuModuleLoadData");
    LOAD(ModuleGetFunction, "cuModuleGetFunction");
    LOAD(ModuleUnload, "cuModuleUnload");
    LOAD(LaunchKernel, "cuLaunchKernel");
    LOAD(GetErrorName, "cuGetErrorName");
    return missing ? -1 : 0;
}

/* the repository root (where examples/ is) and the nereid CLI */
static void find_paths(const char *argv0, char *root, size_t rsize, char *cli, size_t csize) {
    struct stat st;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", argv0);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    const char *env = getenv("NEREID_ROOT");
    if (env && *env) snprintf(root, rsize, "%s", env);
    else if (stat("examples/vector_add.nr", &st) == 0) snprintf(root, rsize, ".");
    else snprintf(root, rsize, "%s/../..", dir);
    env = getenv("NEREID_BIN");
    if (env && *env) snprintf(cli, csize, "%s", env);
    else snprintf(cli, csize, "%s/../nereid", dir);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

typedef struct Timing {
    double host_us, total_us; /* per launch: the loop alone; with the final synchronisation */
} Timing;

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    long launches = argc > 1 ? atol(argv[1]) : 10000;
    if (launches <= 0) {
        fprintf(stderr, "usage: %s [LAUNCHES]\n", argv[0]);
        return 2;
    }
    char err[1024] = "", root[1200], cli[1200];
    find_paths(argv[0], root, sizeof root, cli, sizeof cli);
    nr_context *ctx = NULL;
    nr_status s = nr_context_create_ex(NR_DEVICE_CUDA, 0, &ctx, err, sizeof err);
    if (s != NR_OK) {
        char *nl = strchr(err, '\n');
        if (nl) *nl = 0;
        printf("SKIP: no CUDA device (%s)\n", *err ? err : nr_status_string(s));
        return 0;
    }
    bool mock = strstr(nr_context_device_name(ctx), "tests/mock") != NULL; /* runs no kernel */
    if (load_driver() || cu_check(cu.Init(0), "cuInit")) {
        printf("launch_overhead: FAILED (cannot use libcuda.so.1 directly)\n");
        return 1;
    }
    CUdevice dev;
    int major = 0, minor = 0;
    if (cu_check(cu.DeviceGet(&dev, 0), "cuDeviceGet") ||
        cu_check(cu.DeviceGetAttribute(&major, CC_MAJOR, dev), "cuDeviceGetAttribute") ||
        cu_check(cu.DeviceGetAttribute(&minor, CC_MINOR, dev), "cuDeviceGetAttribute"))
        return 1;
    int cc = major * 10 + minor;
    const char *arch = cc == 90              ? "sm_90a"
                       : cc >= 80 && cc < 90 ? "sm_80"
                                             : "sm_90"; /* as runtime/cuda.c */

    /* ---- Nereid ---- */
    float x[N], y[N], z[N];
    for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f, y[i] = 1000.0f - (float)i;
    nr_devptr dx, dy, dz;
    char path[1400];
    snprintf(path, sizeof path, "%s/examples/vector_add.nr", root);
    nr_define defs[] = {{"BLOCK_SIZE", "128"}};
    nr_compile_options opts = {
        .defines = defs, .num_defines = 1, .kernel = "add_kernel", .num_warps = 4};
    nr_module *mod = NULL;
    nr_kernel *k = NULL;
    if (nr_malloc(ctx, sizeof x, &dx) || nr_malloc(ctx, sizeof y, &dy) ||
        nr_malloc(ctx, sizeof z, &dz) || nr_memcpy_htod(ctx, dx, x, sizeof x) ||
        nr_memcpy_htod(ctx, dy, y, sizeof y) || nr_compile_file(ctx, path, &opts, &mod) ||
        nr_module_get_kernel(mod, "add_kernel", &k)) {
        printf("launch_overhead: FAILED (setting up: %s)\n", nr_last_error(ctx));
        return 1;
    }
    nr_arg args[] = {nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dz), nr_arg_i32(N)};
    unsigned grid[3] = {1, 1, 1};
    int fails = 0;
    for (int i = 0; i < 100; i++)
        fails += nr_launch(k, grid, args, 4, NULL) != NR_OK; /* compiles, warms */
    fails += nr_synchronize(ctx) != NR_OK;
    if (fails) {
        printf("launch_overhead: FAILED (nr_launch: %s)\n", nr_last_error(ctx));
        return 1;
    }
    double h[REPEAT], t[REPEAT];
    for (int r = 0; r < REPEAT; r++) {
        double t0 = now_us();
        for (long i = 0; i < launches; i++) fails += nr_launch(k, grid, args, 4, NULL) != NR_OK;
        double t1 = now_us();
        fails += nr_synchronize(ctx) != NR_OK;
        double t2 = now_us();
        h[r] = (t1 - t0) / (double)launches, t[r] = (t2 - t0) / (double)launches;
    }
    Timing nereid = {median(h, REPEAT), median(t, REPEAT)};
    memset(z, 0, sizeof z);
    fails += nr_memcpy_dtoh(ctx, z, dz, sizeof z) != NR_OK;
    int wrong = 0;
    for (int i = 0; i < N && !mock; i++) wrong += z[i] != x[i] + y[i];
    if (fails || wrong) {
        printf(
            "launch_overhead: FAILED (Nereid launches: %d failed calls, %d wrong elements: %s)\n",
            fails, wrong, nr_last_error(ctx));
        return 1;
    }

    /* ---- bare cuLaunchKernel of the same PTX: the one make gpu-build put next to this
     * program (the GPU machine has no CLI), else the CLI's ---- */
    char made[1400];
    snprintf(made, sizeof made, "%s", argv[0]);
    char *slash = strrchr(made, '/');
    snprintf(slash ? slash + 1 : made, sizeof made - (size_t)(slash ? slash + 1 - made : 0),
             "add_kernel.%s.ptx", arch);
    char *ptx = read_file(made);
    char ptx_path[64] = "/tmp/nereid-launch-XXXXXX", cmd[4200];
    int fd = mkstemp(ptx_path);
    if (fd < 0) {
        printf("launch_overhead: FAILED (mkstemp)\n");
        return 1;
    }
    close(fd);
    snprintf(cmd, sizeof cmd,
             "'%s' compile '%s' -k add_kernel -D BLOCK_SIZE=128 --num-warps=4 --arch=%s "
             "--divisible=n_elements "
             "--emit=ptx -o '%s'",
             cli, path, arch, ptx_path);
    if (!ptx) ptx = system(cmd) == 0 ? read_file(ptx_path) : NULL;
    unlink(ptx_path);
    if (!ptx) {
        printf("launch_overhead: FAILED (could not get the PTX with: %s)\n", cmd);
        return 1;
    }
    CUcontext pctx;
    CUmodule cmod;
    CUfunction fn;
    if (cu_check(cu.DevicePrimaryCtxRetain(&pctx, dev), "cuDevicePrimaryCtxRetain") ||
        cu_check(cu.CtxSetCurrent(pctx), "cuCtxSetCurrent") ||
        cu_check(cu.ModuleLoadData(&cmod, ptx), "cuModuleLoadData") ||
        cu_check(cu.ModuleGetFunction(&fn, cmod, "add_kernel"), "cuModuleGetFunction"))
        return 1;
    free(ptx);
    uint64_t px = dx, py = dy, pz = dz;
    int32_t n = N;
    void *params[] = {&px, &py, &pz, &n};
    fails += nr_memset(ctx, dz, 0, sizeof z) != NR_OK;
    fails += cu.CtxSetCurrent(pctx) != 0;
    for (int i = 0; i < 100; i++)
        fails += cu.LaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, NULL, params, NULL) != 0;
    fails += cu.CtxSynchronize() != 0;
    Timing bare = {0, 0}, bare_cur = {0, 0};
    for (int pass = 0; pass < 2; pass++) {
        for (int r = 0; r < REPEAT; r++) {
            double t0 = now_us();
            if (pass == 0)
                for (long i = 0; i < launches; i++)
                    fails += cu.LaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, NULL, params, NULL) != 0;
            else
                for (long i = 0; i < launches; i++) {
                    fails += cu.CtxSetCurrent(pctx) != 0;
                    fails += cu.LaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, NULL, params, NULL) != 0;
                }
            double t1 = now_us();
            fails += cu.CtxSynchronize() != 0;
            double t2 = now_us();
            h[r] = (t1 - t0) / (double)launches, t[r] = (t2 - t0) / (double)launches;
        }
        Timing tm = {median(h, REPEAT), median(t, REPEAT)};
        if (pass == 0) bare = tm;
        else bare_cur = tm;
    }
    memset(z, 0, sizeof z);
    fails += nr_memcpy_dtoh(ctx, z, dz, sizeof z) != NR_OK;
    wrong = 0;
    for (int i = 0; i < N && !mock; i++) wrong += z[i] != x[i] + y[i];
    cu.ModuleUnload(cmod);
    cu.DevicePrimaryCtxRelease(dev);
    if (fails || wrong) {
        printf("launch_overhead: FAILED (bare launches: %d failed calls, %d wrong elements)\n",
               fails, wrong);
        return 1;
    }

    printf("launch overhead: add_kernel, 1 program x 4 warps, %ld launches back to back, median of "
           "%d runs; "
           "compute capability %d.%d, PTX target %s%s\n",
           launches, REPEAT, major, minor, arch,
           mock ? "; the stand-in driver (no kernel runs, results unchecked)" : "");
    printf("%-40s %14s %18s\n", "", "host us/launch", "with sync us/launch");
    printf("%-40s %14.3f %18.3f\n", "nr_launch", nereid.host_us, nereid.total_us);
    printf("%-40s %14.3f %18.3f\n", "cuLaunchKernel (same PTX)", bare.host_us, bare.total_us);
    printf("%-40s %14.3f %18.3f\n", "cuCtxSetCurrent + cuLaunchKernel", bare_cur.host_us,
           bare_cur.total_us);
    double ratio = bare.host_us > 0 ? nereid.host_us / bare.host_us : 0;
    printf("ratio nr_launch / cuLaunchKernel (host): %.2fx (target <= 1.3x: %s)\n", ratio,
           ratio <= 1.3 ? "met" : "NOT met");
    printf("launch_overhead: OK (nereid %.2f us, bare %.2f us, ratio %.2f)\n", nereid.host_us,
           bare.host_us, ratio);
    nr_module_destroy(mod);
    nr_free(ctx, dx), nr_free(ctx, dy), nr_free(ctx, dz);
    nr_context_destroy(ctx);
    return 0;
}
