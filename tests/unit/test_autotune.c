/* test_autotune.c - @triton.autotune and @triton.heuristics through the C API, on the CPU
 * device: configs timed at the first launch per key and the choice kept (in memory and in
 * the cache directory), a config that fails to run never chosen, grids computed from the
 * chosen config (nr_launch_grid), heuristics over the arguments and the config,
 * reset_to_zero and restore_value around timed runs (the real launch's result is one
 * launch's), early_config_prune and perf_model/top_k, module constants in configs, and
 * located errors for what cannot be read or evaluated. */
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "nereid.h"

static CheckState st;

static nr_status grid_by_block(const nr_config *c, unsigned grid[3], void *user) {
    int64_t block, n = *(int *)user;
    if (nr_config_int(c, "BLOCK", &block)) return NR_ERR_INVALID_ARG;
    grid[0] = (unsigned)((n + block - 1) / block);
    return NR_OK;
}

static nr_module *compile(nr_context *ctx, const char *src, const nr_define *d, int nd) {
    nr_compile_options o = {.defines = d, .num_defines = nd};
    nr_module *m = NULL;
    nr_status s = nr_compile_source(ctx, src, strlen(src), "tuned.nr", &o, &m);
    if (s) printf("compile: %s\n", nr_last_error(ctx));
    return m;
}

static const char *copy_src =
    "import triton\n"
    "import triton.language as tl\n"
    "BLOCKS = [16, 32]\n"
    "@triton.autotune(configs=[triton.Config({'BLOCK': b, 'BAD': 0}, num_warps=w) for b in BLOCKS "
    "for w in (1, 2)]\n"
    "                 + [triton.Config({'BLOCK': 64, 'BAD': 1})],\n"
    "                 key=['n'])\n"
    "@triton.jit\n"
    "def copy(src: *fp32, dst: *fp32, n: i32, BLOCK: tl.constexpr, BAD: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    x = tl.load(src + offs, mask=offs < n)\n"
    "    if BAD:\n"
    "        x = tl.load(src + offs + 100000)  # far out of bounds, unmasked: this config fails\n"
    "    tl.store(dst + offs, x * 2.0, mask=offs < n)\n";

static int count_files(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static void test_configs(const char *cachedir) {
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    nr_module *m = compile(ctx, copy_src, NULL, 0);
    nr_kernel *k;
    if (!m || nr_module_get_kernel(m, "copy", &k)) return;
    CHECK_AT(&st, nr_kernel_num_configs(k) == 5, "5 configs, got %d", nr_kernel_num_configs(k));
    CHECK_AT(&st, nr_kernel_num_params(k) == 3 && !strcmp(nr_kernel_param_name(k, 2), "n"),
             "runtime parameters only");
    const nr_config *c4 = nr_kernel_config(k, 4);
    int64_t v;
    CHECK_AT(&st,
             c4 && nr_config_int(c4, "BLOCK", &v) == NR_OK && v == 64 &&
                 nr_config_num_warps(c4) == 4,
             "config 4 as written");
    CHECK_AT(&st, nr_kernel_last_config(k) == NULL, "no launch yet");
    int n = 200;
    float src[200], dst[200];
    for (int i = 0; i < n; i++) src[i] = (float)i;
    nr_devptr ds, dd;
    nr_malloc(ctx, sizeof src, &ds), nr_malloc(ctx, sizeof dst, &dd);
    nr_memcpy_htod(ctx, ds, src, sizeof src);
    nr_arg args[3] = {nr_arg_ptr(ds), nr_arg_ptr(dd), nr_arg_i32(n)};
    int before = count_files(cachedir);
    nr_status s = nr_launch_grid(k, grid_by_block, &n, args, 3, NULL, NULL);
    CHECK_AT(&st, s == NR_OK, "%s", nr_last_error(ctx));
    nr_memcpy_dtoh(ctx, dst, dd, sizeof dst);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += dst[i] != 2.0f * (float)i;
    CHECK_AT(&st, bad == 0, "%d wrong", bad);
    const nr_config *last = nr_kernel_last_config(k);
    CHECK_AT(&st, last && nr_config_int(last, "BAD", &v) == NR_OK && v == 0,
             "the failing config is never chosen");
    CHECK_AT(&st, count_files(cachedir) == before + 1,
             "the choice is kept on disk (%d -> %d files)", before, count_files(cachedir));
    /* same key: no timing, same config */
    s = nr_launch_grid(k, grid_by_block, &n, args, 3, NULL, NULL);
    CHECK_AT(&st, s == NR_OK && nr_kernel_last_config(k) == last,
             "the same key takes the same config");
    /* a new key: timed again, kept again */
    int n2 = 100;
    nr_arg args2[3] = {nr_arg_ptr(ds), nr_arg_ptr(dd), nr_arg_i32(n2)};
    s = nr_launch_grid(k, grid_by_block, &n2, args2, 3, NULL, NULL);
    CHECK_AT(&st, s == NR_OK && count_files(cachedir) == before + 2,
             "a new key is tuned and kept: %s", nr_last_error(ctx));
    /* a fixed grid through nr_launch works too */
    unsigned grid[3] = {16, 1, 1};
    CHECK_AT(&st, nr_launch(k, grid, args, 3, NULL) == NR_OK, "%s", nr_last_error(ctx));
    /* wrong argument count / types */
    CHECK_AT(&st, nr_launch_grid(k, grid_by_block, &n, args, 2, NULL, NULL) == NR_ERR_INVALID_ARG,
             "count");
    nr_arg wrong[3] = {nr_arg_i32(1), nr_arg_ptr(dd), nr_arg_i32(n)};
    CHECK_AT(&st, nr_launch_grid(k, grid_by_block, &n, wrong, 3, NULL, NULL) == NR_ERR_INVALID_ARG,
             "types");
    nr_context_destroy(ctx);

    /* a new process (here: a new context) finds the choice on disk: no new file */
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    m = compile(ctx, copy_src, NULL, 0);
    if (m && !nr_module_get_kernel(m, "copy", &k)) {
        nr_malloc(ctx, sizeof src, &ds), nr_malloc(ctx, sizeof dst, &dd);
        nr_arg args3[3] = {nr_arg_ptr(ds), nr_arg_ptr(dd), nr_arg_i32(n)};
        int files = count_files(cachedir);
        CHECK_AT(&st, nr_launch_grid(k, grid_by_block, &n, args3, 3, NULL, NULL) == NR_OK, "%s",
                 nr_last_error(ctx));
        CHECK_AT(&st, count_files(cachedir) == files, "the cached choice is used");
    }
    nr_context_destroy(ctx);
}

static const char *heur_src =
    "@triton.heuristics(values={'EVEN': lambda args: args['n'] % args['BLOCK'] == 0,\n"
    "                           'HALF': lambda args: args['BLOCK'] // 2 if args['EVEN'] else "
    "args['BLOCK']})\n"
    "@triton.jit\n"
    "def fill(out: *i32, n: i32, BLOCK: tl.constexpr, EVEN: tl.constexpr, HALF: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    if EVEN:\n"
    "        tl.store(out + offs, offs + HALF)\n"
    "    else:\n"
    "        tl.store(out + offs, offs - HALF, mask=offs < n)\n";

static void test_heuristics(void) {
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    nr_define d = {"BLOCK", "16"};
    nr_module *m = compile(ctx, heur_src, &d, 1);
    nr_kernel *k;
    if (!m || nr_module_get_kernel(m, "fill", &k)) return;
    CHECK_AT(&st, nr_kernel_num_configs(k) == 0, "heuristics alone: no configs to time");
    int32_t out[64];
    nr_devptr dout;
    nr_malloc(ctx, sizeof out, &dout);
    for (int n = 48; n <= 50; n += 2) {
        nr_memset(ctx, dout, 0, sizeof out);
        unsigned grid[3] = {(unsigned)((n + 15) / 16), 1, 1};
        nr_arg args[2] = {nr_arg_ptr(dout), nr_arg_i32(n)};
        nr_status s = nr_launch(k, grid, args, 2, NULL);
        CHECK_AT(&st, s == NR_OK, "n=%d: %s", n, nr_last_error(ctx));
        nr_memcpy_dtoh(ctx, out, dout, sizeof out);
        bool even = n % 16 == 0;
        int bad = 0;
        for (int i = 0; i < n; i++) bad += out[i] != (even ? i + 8 : i - 16);
        CHECK_AT(&st, bad == 0, "n=%d: heuristics EVEN=%d applied (%d wrong)", n, even, bad);
        const nr_config *c = nr_kernel_last_config(k);
        CHECK_AT(&st,
                 c && nr_config_num_values(c) == 2 &&
                     !strcmp(nr_config_value(c, 0), even ? "True" : "False"),
                 "n=%d: the launch's values include the heuristics'", n);
    }
    nr_context_destroy(ctx);
}

static const char *hooks_src =
    "@triton.autotune(configs=[triton.Config({'BLOCK': 8}), triton.Config({'BLOCK': 16}), "
    "triton.Config({'BLOCK': 32})],\n"
    "                 key=['n'], reset_to_zero=['total'], restore_value=['x'], warmup=1, rep=1)\n"
    "@triton.jit\n"
    "def count(x: *i32, total: *i32, n: i32, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    m = offs < n\n"
    "    v = tl.load(x + offs, mask=m, other=0)\n"
    "    tl.store(x + offs, v + 1, mask=m)\n"
    "    tl.atomic_add(total, tl.sum(v, axis=0))\n";

static void test_hooks(void) {
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    nr_module *m = compile(ctx, hooks_src, NULL, 0);
    nr_kernel *k;
    if (!m || nr_module_get_kernel(m, "count", &k)) return;
    int n = 40;
    int32_t x[40], total = 12345;
    for (int i = 0; i < n; i++) x[i] = i;
    nr_devptr dx, dt;
    nr_malloc(ctx, sizeof x, &dx), nr_malloc(ctx, 4, &dt);
    nr_memcpy_htod(ctx, dx, x, sizeof x), nr_memcpy_htod(ctx, dt, &total, 4);
    nr_arg args[3] = {nr_arg_ptr(dx), nr_arg_ptr(dt), nr_arg_i32(n)};
    nr_status s = nr_launch_grid(k, grid_by_block, &n, args, 3, NULL, NULL);
    CHECK_AT(&st, s == NR_OK, "%s", nr_last_error(ctx));
    nr_memcpy_dtoh(ctx, x, dx, sizeof x), nr_memcpy_dtoh(ctx, &total, dt, 4);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += x[i] != i + 1;
    CHECK_AT(&st, bad == 0, "restore_value: x incremented by the real launch alone (%d wrong)",
             bad);
    CHECK_AT(&st, total == 40 * 39 / 2, "reset_to_zero: total is one launch's sum, got %d", total);

    /* arg_bytes: buffers not from nr_malloc (host memory lent with nr_host_register) */
    int32_t hx[40], htot = 99;
    for (int i = 0; i < n; i++) hx[i] = 2 * i;
    nr_host_register(ctx, hx, sizeof hx), nr_host_register(ctx, &htot, 4);
    int n2 = 33;
    nr_arg hargs[3] = {nr_arg_ptr((nr_devptr)(uintptr_t)hx),
                       nr_arg_ptr((nr_devptr)(uintptr_t)&htot), nr_arg_i32(n2)};
    size_t bytes[3] = {sizeof hx, 4, 0};
    s = nr_launch_grid(k, grid_by_block, &n2, hargs, 3, bytes, NULL);
    CHECK_AT(&st, s == NR_OK && htot == 33 * 32 && hx[0] == 1 && hx[32] == 65 && hx[33] == 66,
             "host buffers: %s (total %d)", nr_last_error(ctx), htot);
    nr_context_destroy(ctx);
}

static const char *prune_src =
    "@triton.autotune(configs=[triton.Config({'BLOCK': 64}), triton.Config({'BLOCK': 32}), "
    "triton.Config({'BLOCK': 16}),\n"
    "                          triton.Config({'BLOCK': 8}, num_warps=1)],\n"
    "                 key=['n'], prune_configs_by={'early_config_prune': lambda configs, nargs, "
    "**kw:\n"
    "                     [c for c in configs if c.kwargs['BLOCK'] <= nargs['n']],\n"
    "                     'perf_model': lambda BLOCK, num_warps, **kw: abs(BLOCK - 16) + "
    "num_warps, 'top_k': 1})\n"
    "@triton.jit\n"
    "def add1(x: *fp32, n: i32, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(x + offs, tl.load(x + offs, mask=offs < n) + 1.0, mask=offs < n)\n";

static void test_prune(void) {
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    nr_module *m = compile(ctx, prune_src, NULL, 0);
    nr_kernel *k;
    if (!m || nr_module_get_kernel(m, "add1", &k)) return;
    nr_devptr dx;
    nr_malloc(ctx, 400, &dx);
    for (int n = 12; n <= 100; n += 88) {
        nr_arg args[2] = {nr_arg_ptr(dx), nr_arg_i32(n)};
        nr_status s = nr_launch_grid(k, grid_by_block, &n, args, 2, NULL, NULL);
        int64_t block = 0;
        const nr_config *c = nr_kernel_last_config(k);
        CHECK_AT(&st, s == NR_OK && c && nr_config_int(c, "BLOCK", &block) == NR_OK, "n=%d: %s", n,
                 nr_last_error(ctx));
        /* n=12: only BLOCK=8 survives the early prune; n=100: perf_model's best is BLOCK=16 */
        CHECK_AT(&st, block == (n == 12 ? 8 : 16), "n=%d: chose BLOCK=%lld", n, (long long)block);
    }
    nr_context_destroy(ctx);
}

typedef struct {
    const char *src;
    const char *define;
    const char *want;
    bool at_launch;
} ErrCase;

static void test_errors(void) {
    static const ErrCase cases[] = {
        {"@triton.autotune(configs=get_configs(), key=['n'])\n@triton.jit\ndef k(x: *fp32, n: i32, "
         "B: tl.constexpr):\n    pass\n",
         NULL, "tuned.nr:1:26: error: cannot evaluate 'get_configs' here", false},
        {"@triton.autotune(configs=[triton.Config({'n': 1})], key=['n'])\n@triton.jit\ndef k(x: "
         "*fp32, n: i32):\n    pass\n",
         NULL, "config 0 sets 'n', which is not a constexpr parameter of kernel 'k'", false},
        {"@triton.autotune(configs=[triton.Config({'B': 1})], key=['m'])\n@triton.jit\ndef k(x: "
         "*fp32, n: i32, B: tl.constexpr):\n    pass\n",
         NULL, "key names 'm', which is not a parameter of kernel 'k'", false},
        {"@triton.autotune(configs=[triton.Config({'B': 1})], key=['n'], "
         "reset_to_zero=['n'])\n@triton.jit\n"
         "def k(x: *fp32, n: i32, B: tl.constexpr):\n    pass\n",
         NULL, "reset_to_zero names 'n', which is not a pointer parameter", false},
        {"@triton.autotune(configs=[triton.Config({'B': 1}, num_warps=3)], "
         "key=['n'])\n@triton.jit\n"
         "def k(x: *fp32, n: i32, B: tl.constexpr):\n    pass\n",
         NULL, "num_warps must be a power of two from 1 to 32, got 3", false},
        {"@triton.autotune(configs=[triton.Config({'B': 1}), triton.Config({'B': 2})], "
         "key=['n'])\n@triton.jit\n"
         "def k(x: *fp32, n: i32, B: tl.constexpr):\n    pass\n",
         "B", "conflicting meta-parameters: 'B'", false},
        {"@triton.autotune(configs=[triton.Config({'B': 1})], key=['n'], warmup=0)\n@triton.jit\n"
         "def k(x: *fp32, n: i32, B: tl.constexpr):\n    pass\n",
         NULL, "warmup must be a number of milliseconds", false},
        {"@triton.autotune(configs=[triton.Config({'B': (1 << 62) * 4})], key=['n'])\n@triton.jit\n"
         "def k(x: *fp32, n: i32, B: tl.constexpr):\n    pass\n",
         NULL, "integer overflow", false},
        {"@triton.autotune(configs=[triton.Config({'B': 2}), triton.Config({'B': 4})], "
         "key=['n'])\n@triton.jit\n"
         "def k(x: *fp32, n: i32, B: tl.constexpr):\n    tl.static_assert(B == 2)\n",
         NULL, "in config 1 of kernel 'k': B=4, num_warps=4, num_stages=3", false},
        {"@triton.heuristics({'B': lambda args: args['nope']})\n@triton.jit\ndef k(x: *fp32, n: "
         "i32, B: tl.constexpr):\n    pass\n",
         NULL, "tuned.nr:1:43: error: key 'nope' is not in the dict", true},
        {"@triton.heuristics({'B': lambda args: [1]})\n@triton.jit\ndef k(x: *fp32, n: i32, B: "
         "tl.constexpr):\n    pass\n",
         NULL, "the heuristic for 'B' gave a list", true},
        {"@triton.heuristics({'B': lambda args: args['n'] // 0})\n@triton.jit\ndef k(x: *fp32, n: "
         "i32, B: tl.constexpr):\n    pass\n",
         NULL, "integer division or modulo by zero", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        nr_context *ctx;
        nr_context_create(NR_DEVICE_CPU, 0, &ctx);
        nr_define d = {cases[i].define ? cases[i].define : "", "3"};
        nr_compile_options o = {.defines = &d, .num_defines = cases[i].define ? 1 : 0};
        nr_module *m = NULL;
        nr_status s =
            nr_compile_source(ctx, cases[i].src, strlen(cases[i].src), "tuned.nr", &o, &m);
        if (cases[i].at_launch && s == NR_OK) {
            nr_kernel *k;
            nr_module_get_kernel(m, "k", &k);
            nr_devptr p;
            nr_malloc(ctx, 16, &p);
            nr_arg args[2] = {nr_arg_ptr(p), nr_arg_i32(4)};
            unsigned grid[3] = {1, 1, 1};
            s = nr_launch(k, grid, args, 2, NULL);
        }
        CHECK_AT(&st, s == NR_ERR_COMPILE && strstr(nr_last_error(ctx), cases[i].want),
                 "case %zu: want '%s', got %s: %s", i, cases[i].want, nr_status_string(s),
                 nr_last_error(ctx));
        nr_context_destroy(ctx);
    }
}

int main(void) {
    char dir[] = "/tmp/nereid-autotune-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("NEREID_CACHE_DIR", dir, 1);
    test_configs(dir);
    test_heuristics();
    test_hooks();
    test_prune();
    test_errors();
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') {
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d) closedir(d);
    rmdir(dir);
    return check_done("test_autotune", &st);
}
