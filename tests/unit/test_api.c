/* test_api.c - the C API: compile, look up, launch and read back on the CPU device;
 * argument checking (count, types, ranges); errors as statuses with messages (compile
 * errors, missing kernels, out-of-bounds accesses); and two contexts used from two
 * threads at once. */
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "nereid.h"

static const char *add_src =
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def add_kernel(x_ptr: *fp32, y_ptr: *fp32, out_ptr: *fp32, n: i32, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, "
    "mask=mask), mask=mask)\n"
    "@triton.jit\n"
    "def scale(x_ptr: *fp32, s: fp32, n: i64, BLOCK: tl.constexpr = 32):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * s, mask=offs < n)\n";

/* vector add of n elements on a fresh context; returns the number of wrong elements */
static int vector_add(int n, int block, float bias) {
    nr_context *ctx;
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx)) return -1;
    char b[16];
    snprintf(b, sizeof b, "%d", block);
    nr_define d = {"BLOCK", b};
    nr_compile_options o = {.defines = &d, .num_defines = 1, .kernel = "add_kernel"};
    nr_module *m;
    int bad = -1;
    if (nr_compile_source(ctx, add_src, strlen(add_src), "add.nr", &o, &m)) goto out;
    nr_kernel *k;
    if (nr_module_get_kernel(m, "add_kernel", &k)) goto out_m;
    float *x = malloc(sizeof(float) * (size_t)n), *y = malloc(sizeof(float) * (size_t)n),
          *z = malloc(sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++) x[i] = (float)i + bias, y[i] = 0.5f * (float)i;
    nr_devptr dx, dy, dz;
    nr_malloc(ctx, sizeof(float) * (size_t)n, &dx);
    nr_malloc(ctx, sizeof(float) * (size_t)n, &dy);
    nr_malloc(ctx, sizeof(float) * (size_t)n, &dz);
    nr_memcpy_htod(ctx, dx, x, sizeof(float) * (size_t)n);
    nr_memcpy_htod(ctx, dy, y, sizeof(float) * (size_t)n);
    nr_arg args[4] = {nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dz), nr_arg_i32(n)};
    unsigned grid[3] = {(unsigned)((n + block - 1) / block), 1, 1};
    if (nr_launch(k, grid, args, 4, NULL) == NR_OK) {
        nr_memcpy_dtoh(ctx, z, dz, sizeof(float) * (size_t)n);
        bad = 0;
        for (int i = 0; i < n; i++) bad += z[i] != x[i] + y[i];
    }
    free(x), free(y), free(z);
out_m:
    nr_module_destroy(m);
out:
    nr_context_destroy(ctx);
    return bad;
}

typedef struct {
    int n, block, result;
    float bias;
} Job;

static void *thread_main(void *p) {
    Job *j = p;
    j->result = 0;
    for (int rep = 0; rep < 5; rep++) {
        int r = vector_add(j->n + rep, j->block, j->bias);
        if (r != 0) j->result = r ? r : -1;
    }
    return NULL;
}

static void test_threads(CheckState *st) {
    Job a = {10007, 128, 1, 1.0f}, b = {4099, 64, 1, -3.0f};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, thread_main, &a);
    pthread_create(&tb, NULL, thread_main, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK_AT(st, a.result == 0 && b.result == 0, "two contexts in two threads: %d and %d wrong",
             a.result, b.result);
}

static void test_errors(CheckState *st) {
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    nr_module *m = NULL;
    const char *bad = "@triton.jit\ndef k(x: *fp32):\n    y = undefined_thing + 1\n";
    nr_status s = nr_compile_source(ctx, bad, strlen(bad), "bad.nr", NULL, &m);
    CHECK_AT(st, s == NR_ERR_COMPILE && !m, "compile error status %d", s);
    CHECK_AT(st,
             strstr(nr_last_error(ctx),
                    "bad.nr:3:9: error: use of undefined name 'undefined_thing'") != NULL,
             "diagnostic: %s", nr_last_error(ctx));
    s = nr_compile_file(ctx, "/nonexistent/k.nr", NULL, &m);
    CHECK_AT(st, s == NR_ERR_NOT_FOUND, "missing file status %d", s);
    nr_define d = {"BLOCK", "64"};
    nr_compile_options o = {.defines = &d, .num_defines = 1};
    s = nr_compile_source(ctx, add_src, strlen(add_src), "add.nr", &o, &m);
    CHECK_AT(st, s == NR_OK, "compile: %s", nr_last_error(ctx));
    if (s) return;
    CHECK_AT(st, nr_module_num_kernels(m) == 2, "kernels: %d", nr_module_num_kernels(m));
    nr_kernel *k = NULL, *ks = NULL;
    CHECK_AT(st, nr_module_get_kernel(m, "nope", &k) == NR_ERR_NOT_FOUND, "missing kernel");
    CHECK_AT(st, strstr(nr_last_error(ctx), "nope") != NULL, "message %s", nr_last_error(ctx));
    nr_module_get_kernel(m, "add_kernel", &k);
    nr_module_get_kernel(m, "scale", &ks);
    CHECK_AT(st, nr_kernel_num_params(k) == 4, "params %d", nr_kernel_num_params(k));
    CHECK_AT(st,
             !strcmp(nr_kernel_param_name(k, 3), "n") && nr_kernel_param_type(k, 3) == NR_TYPE_I32,
             "param 3");
    CHECK_AT(st, nr_kernel_param_type(k, 0) == NR_TYPE_PTR, "param 0 type");
    CHECK_AT(st, nr_kernel_param_type(ks, 2) == NR_TYPE_I64, "scale n is i64");
    CHECK_AT(st,
             nr_kernel_param_type(k, 4) == NR_TYPE_INVALID &&
                 nr_kernel_param_type(k, -1) == NR_TYPE_INVALID && !nr_kernel_param_name(k, 4),
             "no parameter 4");
    CHECK_AT(st,
             nr_context_device(ctx) == NR_DEVICE_CPU && nr_context_device(NULL) == NR_DEVICE_CPU,
             "device kind");
    nr_compile_options o3 = {.defines = &d, .num_defines = 1, .num_warps = 3};
    nr_module *m3 = NULL;
    s = nr_compile_source(ctx, add_src, strlen(add_src), "add.nr", &o3, &m3);
    CHECK_AT(st, s == NR_ERR_INVALID_ARG && !m3 && strstr(nr_last_error(ctx), "num_warps must be"),
             "3 warps: %s", nr_last_error(ctx));
    nr_compile_options o9 = {.defines = &d, .num_defines = 1, .num_stages = 9};
    s = nr_compile_source(ctx, add_src, strlen(add_src), "add.nr", &o9, &m3);
    CHECK_AT(st, s == NR_ERR_INVALID_ARG && !m3 && strstr(nr_last_error(ctx), "num_stages must be"),
             "9 stages: %s", nr_last_error(ctx));
    nr_devptr buf;
    nr_malloc(ctx, 100 * sizeof(float), &buf);
    unsigned grid[3] = {1, 1, 1};
    nr_arg args[4] = {nr_arg_ptr(buf), nr_arg_ptr(buf), nr_arg_ptr(buf), nr_arg_i32(100)};
    s = nr_launch(k, grid, args, 3, NULL);
    CHECK_AT(st, s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "takes 4 arguments, got 3"),
             "count: %s", nr_last_error(ctx));
    args[3] = nr_arg_f32(1.0f);
    s = nr_launch(k, grid, args, 4, NULL);
    CHECK_AT(st,
             s == NR_ERR_INVALID_ARG &&
                 strstr(nr_last_error(ctx), "argument 3 ('n') is i32, got fp32"),
             "type: %s", nr_last_error(ctx));
    args[3] = nr_arg_i64(1LL << 40);
    s = nr_launch(k, grid, args, 4, NULL);
    CHECK_AT(st, s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "does not fit"), "range: %s",
             nr_last_error(ctx));
    args[3] = nr_arg_i8(100); /* any integer tag whose value fits */
    CHECK_AT(st, nr_launch(k, grid, args, 4, NULL) == NR_OK, "i8 argument: %s", nr_last_error(ctx));
    args[3] = nr_arg_u16(40000);
    CHECK_AT(st, nr_launch(k, grid, args, 4, NULL) == NR_OK, "u16 argument: %s",
             nr_last_error(ctx));
    args[3] = nr_arg_f16(1.0f);
    s = nr_launch(k, grid, args, 4, NULL);
    CHECK_AT(st, s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "is i32, got fp16"),
             "fp16 for i32: %s", nr_last_error(ctx));
    args[0] = nr_arg_i32(5);
    args[3] = nr_arg_i32(100);
    s = nr_launch(k, grid, args, 4, NULL);
    CHECK_AT(st, s == NR_ERR_INVALID_ARG && strstr(nr_last_error(ctx), "is a pointer"), "ptr: %s",
             nr_last_error(ctx));
    /* 64 elements of a 100-float buffer are fine; n = 200 with two programs runs off the end */
    args[0] = nr_arg_ptr(buf);
    grid[0] = 2;
    args[3] = nr_arg_i32(200);
    s = nr_launch(k, grid, args, 4, NULL);
    CHECK_AT(st, s == NR_ERR_LAUNCH && strstr(nr_last_error(ctx), "out-of-bounds"), "oob: %s",
             nr_last_error(ctx));
    CHECK_AT(st, strstr(nr_last_error(ctx), "add.nr:") != NULL, "oob message names the source: %s",
             nr_last_error(ctx));
    args[3] = nr_arg_i32(100);
    s = nr_launch(k, grid, args, 4, NULL);
    CHECK_AT(st, s == NR_OK, "in bounds: %s", nr_last_error(ctx));
    nr_launch_options bad_stages = {.num_stages = -1};
    CHECK_AT(st,
             nr_launch(k, grid, args, 4, &bad_stages) == NR_ERR_INVALID_ARG &&
                 strstr(nr_last_error(ctx), "num_stages must be"),
             "launch with -1 stages: %s", nr_last_error(ctx));
    grid[0] = 0;
    CHECK_AT(st, nr_launch(k, grid, args, 4, NULL) == NR_ERR_INVALID_ARG, "zero grid");
    unsigned tall[3] = {1, 65536, 1}, deep[3] = {1, 1, 65536}, edge[3] = {1, 65535, 1};
    CHECK_AT(st, nr_launch(k, tall, args, 4, NULL) == NR_ERR_INVALID_ARG,
             "grid y over CUDA's 65535");
    CHECK_AT(st, strstr(nr_last_error(ctx), "must be 1 to 65535") != NULL, "grid message: %s",
             nr_last_error(ctx));
    CHECK_AT(st, nr_launch(k, deep, args, 4, NULL) == NR_ERR_INVALID_ARG,
             "grid z over CUDA's 65535");
    args[3] = nr_arg_i32(0); /* every program masked off: the launch itself is what is tested */
    CHECK_AT(st, nr_launch(k, edge, args, 4, NULL) == NR_OK, "grid y of 65535: %s",
             nr_last_error(ctx));
    args[3] = nr_arg_i32(100);
    nr_arg sargs[3] = {nr_arg_ptr(buf), nr_arg_f32(2.0f),
                       nr_arg_i32(100)}; /* i32 value for an i64 param */
    grid[0] = 4;
    CHECK_AT(st, nr_launch(ks, grid, sargs, 3, NULL) == NR_OK, "scale: %s", nr_last_error(ctx));
    CHECK_AT(st, nr_free(ctx, buf) == NR_OK, "free");
    CHECK_AT(st, nr_free(ctx, buf) == NR_ERR_INVALID_ARG, "double free is reported");
    CHECK_AT(st, nr_context_create(NR_DEVICE_CPU, 0, NULL) == NR_ERR_INVALID_ARG, "NULL out");
    CHECK_AT(st, nr_launch(NULL, grid, args, 4, NULL) == NR_ERR_INVALID_ARG, "NULL kernel");
    nr_module_destroy(m);
    nr_context_destroy(ctx);
}

static void test_defines(CheckState *st) {
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    nr_module *m = NULL;
    nr_compile_options o = {.kernel = "add_kernel"};
    nr_status s = nr_compile_source(ctx, add_src, strlen(add_src), "add.nr", &o, &m);
    CHECK_AT(st,
             s == NR_ERR_COMPILE &&
                 strstr(nr_last_error(ctx), "has no value: give it with -D BLOCK=VALUE"),
             "missing constexpr: %s", nr_last_error(ctx));
    nr_define d[] = {{"BLOCK", "100"}};
    o.defines = d, o.num_defines = 1;
    s = nr_compile_source(ctx, add_src, strlen(add_src), "add.nr", &o, &m);
    CHECK_AT(st, s == NR_ERR_COMPILE && strstr(nr_last_error(ctx), "power of two"), "BLOCK=100: %s",
             nr_last_error(ctx));
    nr_context_destroy(ctx);
}

/* A compile that goes on keeps what it reported (tl.static_print's notes, warnings) with the
 * module; a clean one has none. */
static void test_diagnostics(CheckState *st) {
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    static const char *src = "import triton.language as tl\n"
                             "@triton.jit\n"
                             "def k(x: *fp32, N: tl.constexpr):\n"
                             "    tl.static_print('N is', N)\n"
                             "    tl.store(x, 1.0)\n";
    nr_define d = {"N", "8"};
    nr_compile_options o = {.defines = &d, .num_defines = 1};
    nr_module *m = NULL, *clean = NULL;
    nr_status s = nr_compile_source(ctx, src, strlen(src), "p.nr", &o, &m);
    const char *text = nr_module_diagnostics(m);
    CHECK_AT(st, s == NR_OK && strstr(text, "p.nr:4:5: note: static_print: N is 8\n"),
             "static_print kept: %s", text);
    nr_define b = {"BLOCK", "32"};
    nr_compile_options ob = {.defines = &b, .num_defines = 1};
    s = nr_compile_source(ctx, add_src, strlen(add_src), "add.nr", &ob, &clean);
    CHECK_AT(st, s == NR_OK && !strcmp(nr_module_diagnostics(clean), ""), "none: '%s'",
             nr_module_diagnostics(clean));
    CHECK_AT(st, !strcmp(nr_module_diagnostics(NULL), ""), "NULL module: ''");
    nr_module_destroy(m);
    nr_module_destroy(clean);
    nr_context_destroy(ctx);
}

/* A context destroyed with modules still alive frees them (ASan would see a leak). */
static void test_context_owns_modules(CheckState *st) {
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    nr_define d = {"BLOCK", "32"};
    nr_compile_options o = {.defines = &d, .num_defines = 1};
    nr_module *a = NULL, *b = NULL;
    nr_status s1 = nr_compile_source(ctx, add_src, strlen(add_src), "a.nr", &o, &a);
    nr_status s2 = nr_compile_source(ctx, add_src, strlen(add_src), "b.nr", &o, &b);
    CHECK_AT(st, s1 == NR_OK && s2 == NR_OK, "two modules: %s", nr_last_error(ctx));
    nr_module_destroy(a); /* one by the caller, one by the context */
    nr_devptr p;
    CHECK_AT(st, nr_malloc(ctx, 0, &p) == NR_OK, "a 0-byte allocation: %s", nr_last_error(ctx));
    nr_context_destroy(ctx);
}

/* On the CPU a stream is a handle (launches finish inside nr_launch); the API is the
 * same as on CUDA, and the context releases the streams left to it. */
static void test_streams_and_stats(CheckState *st) {
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    void *a = NULL, *b = NULL;
    CHECK_AT(st,
             nr_stream_create(ctx, &a) == NR_OK && nr_stream_create(ctx, &b) == NR_OK && a && b &&
                 a != b,
             "two streams: %s", nr_last_error(ctx));
    nr_define d = {"BLOCK", "32"};
    nr_compile_options o = {.defines = &d, .num_defines = 1, .kernel = "add_kernel"};
    nr_module *m = NULL;
    nr_kernel *k = NULL;
    CHECK_AT(st,
             nr_compile_source(ctx, add_src, strlen(add_src), "add.nr", &o, &m) == NR_OK &&
                 nr_module_get_kernel(m, "add_kernel", &k) == NR_OK,
             "compile: %s", nr_last_error(ctx));
    nr_devptr x = 0, z = 0;
    float in[40], out[40];
    for (int i = 0; i < 40; i++) in[i] = (float)i;
    nr_malloc(ctx, sizeof in, &x);
    nr_malloc(ctx, sizeof out, &z);
    nr_memcpy_htod(ctx, x, in, sizeof in);
    nr_arg args[4] = {nr_arg_ptr(x), nr_arg_ptr(x), nr_arg_ptr(z), nr_arg_i32(40)};
    unsigned grid[3] = {2, 1, 1};
    nr_launch_options lo = {.stream = b};
    CHECK_AT(st, k && nr_launch(k, grid, args, 4, &lo) == NR_OK, "launch on a stream: %s",
             nr_last_error(ctx));
    CHECK_AT(st,
             nr_stream_synchronize(ctx, b) == NR_OK && nr_stream_synchronize(ctx, NULL) == NR_OK,
             "synchronize");
    nr_memcpy_dtoh(ctx, out, z, sizeof out);
    CHECK_AT(st, out[39] == 78.0f && out[0] == 0.0f, "results: %g %g", out[0], out[39]);
    CHECK_AT(st, nr_stream_destroy(ctx, a) == NR_OK, "destroy: %s", nr_last_error(ctx));
    CHECK_AT(st,
             nr_stream_destroy(ctx, a) == NR_ERR_INVALID_ARG &&
                 strstr(nr_last_error(ctx), "not a stream"),
             "a destroyed stream is refused: %s", nr_last_error(ctx));
    CHECK_AT(st, nr_stream_destroy(ctx, NULL) == NR_ERR_INVALID_ARG, "NULL is no stream of ours");
    CHECK_AT(st, nr_stream_create(ctx, NULL) == NR_ERR_INVALID_ARG, "NULL out");
    nr_stats stats;
    memset(&stats, 0xff, sizeof stats);
    CHECK_AT(st,
             nr_context_stats(ctx, &stats) == NR_OK && stats.gpu_compiles == 0 &&
                 stats.jit_compiles == 0 && stats.disk_cache_hits == 0,
             "the CPU compiles nothing for a GPU");
    CHECK_AT(st,
             nr_context_stats(NULL, &stats) == NR_ERR_INVALID_ARG &&
                 nr_context_stats(ctx, NULL) == NR_ERR_INVALID_ARG,
             "stats: NULL arguments");
    nr_context_destroy(ctx); /* b, the module and the buffers go with it */
}

/* nr_memcpy_peer between two CPU contexts (a host copy), its checks, the device queries. */
static void test_copies_between_contexts(CheckState *st) {
    nr_context *a, *b;
    nr_context_create(NR_DEVICE_CPU, 0, &a);
    nr_context_create(NR_DEVICE_CPU, 0, &b);
    int n = -1;
    char why[256];
    CHECK_AT(st, nr_device_count(NR_DEVICE_CPU, &n, why, sizeof why) == NR_OK && n == 1,
             "one CPU device: %d", n);
    CHECK_AT(st, nr_device_count(NR_DEVICE_CPU, NULL, NULL, 0) == NR_ERR_INVALID_ARG,
             "count: NULL out");
    CHECK_AT(st, nr_device_count((nr_device_kind)7, &n, NULL, 0) == NR_ERR_INVALID_ARG,
             "count: a bad kind");
    CHECK_AT(st, nr_context_device_index(a) == 0 && nr_context_device_index(NULL) == -1,
             "device index");
    nr_copy_path path = NR_COPY_STAGED;
    CHECK_AT(st, nr_memcpy_peer_path(b, a, &path) == NR_OK && path == NR_COPY_HOST,
             "CPU to CPU: a host copy");
    CHECK_AT(st, nr_memcpy_peer_path(b, a, NULL) == NR_ERR_INVALID_ARG, "path: NULL out");
    unsigned char in[100], out[100];
    for (int i = 0; i < 100; i++) in[i] = (unsigned char)(3 * i + 1);
    nr_devptr x = 0, y = 0;
    nr_malloc(a, sizeof in, &x);
    nr_malloc(b, sizeof out, &y);
    nr_memcpy_htod(a, x, in, sizeof in);
    nr_memset(b, y, 0, sizeof out);
    CHECK_AT(st, nr_memcpy_peer(b, y + 10, a, x + 20, 50) == NR_OK, "copy: %s", nr_last_error(b));
    nr_memcpy_dtoh(b, out, y, sizeof out);
    int bad = 0;
    for (int i = 0; i < 100; i++) bad += out[i] != (i >= 10 && i < 60 ? in[i + 10] : 0);
    CHECK_AT(st, bad == 0, "copied bytes: %d wrong", bad);
    CHECK_AT(st, nr_memcpy_peer_async(b, y, a, x, 100, NULL) == NR_OK, "async copy: %s",
             nr_last_error(b));
    CHECK_AT(st, nr_memcpy_peer(b, y, a, x, 0) == NR_OK, "0 bytes");
    /* the ranges: each inside its own context's memory, the message in both contexts */
    CHECK_AT(st,
             nr_memcpy_peer(b, y, a, x + 1, 100) == NR_ERR_INVALID_ARG &&
                 strstr(nr_last_error(b), "nr_memcpy_peer") &&
                 !strcmp(nr_last_error(a), nr_last_error(b)),
             "a source past its allocation: '%s' / '%s'", nr_last_error(a), nr_last_error(b));
    CHECK_AT(st, nr_memcpy_peer(b, x, a, x, 10) == NR_ERR_INVALID_ARG,
             "a destination of the other context's memory");
    CHECK_AT(st, nr_memcpy_peer(b, y, a, y, 10) == NR_ERR_INVALID_ARG,
             "a source of the other context's memory");
    CHECK_AT(st,
             nr_memcpy_peer(b, y, a, x, 10) == NR_OK && !*nr_last_error(a) && !*nr_last_error(b),
             "a good copy clears both errors");
    CHECK_AT(st,
             nr_memcpy_peer(NULL, y, a, x, 10) == NR_ERR_INVALID_ARG &&
                 strstr(nr_last_error(a), "NULL"),
             "a NULL destination context: '%s'", nr_last_error(a));
    CHECK_AT(st, nr_memcpy_peer(b, y, NULL, x, 10) == NR_ERR_INVALID_ARG, "a NULL source context");
    CHECK_AT(st, nr_memcpy_peer(NULL, y, NULL, x, 10) == NR_ERR_INVALID_ARG, "no context at all");
    nr_context_destroy(a);
    nr_context_destroy(b);
}

/* nr_compile_file on a .py file reads its kernels only: the host code around them (a
 * lambda, a dict, a class, the __main__ block), which the kernel language does not have, is
 * blanked, and a diagnostic's line and column are the file's. */
static void test_python_file(CheckState *st) {
    static const char prog[] = "import torch\n"
                               "import triton\n"
                               "import triton.language as tl\n"
                               "CONFIGS = {'small': 64}\n"
                               "TWO: tl.constexpr = 2\n"
                               "\n"
                               "@triton.jit\n"
                               "def twice(x: \"*fp32\", n: \"i32\", BLOCK: tl.constexpr):\n"
                               "    o = tl.arange(0, BLOCK)\n"
                               "    tl.store(x + o, tl.load(x + o, mask=o < n) * TWO, mask=o < n)\n"
                               "\n"
                               "class Model(torch.nn.Module):\n"
                               "    def forward(self, x):\n"
                               "        return {'y': x}\n"
                               "\n"
                               "def run(x):\n"
                               "    grid = lambda meta: (1, )\n"
                               "    twice[grid](x, x.numel(), BLOCK=64)\n"
                               "\n"
                               "if __name__ == '__main__':\n"
                               "    run(torch.ones(8))\n";
    char path[] = "/tmp/nereid-test-XXXXXX.py";
    int fd = mkstemps(path, 3);
    CHECK_AT(st, fd >= 0, "mkstemps");
    if (fd < 0) return;
    FILE *f = fdopen(fd, "w");
    fputs(prog, f);
    fclose(f);
    nr_context *ctx;
    nr_context_create(NR_DEVICE_CPU, 0, &ctx);
    nr_define d = {"BLOCK", "64"};
    nr_compile_options o = {.defines = &d, .num_defines = 1};
    nr_module *m = NULL;
    nr_status s = nr_compile_file(ctx, path, &o, &m);
    CHECK_AT(st, s == NR_OK && nr_module_num_kernels(m) == 1, "compile: %s", nr_last_error(ctx));
    nr_kernel *k = NULL;
    if (!s && !nr_module_get_kernel(m, "twice", &k)) {
        float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
        nr_devptr dx;
        nr_malloc(ctx, sizeof x, &dx);
        nr_memcpy_htod(ctx, dx, x, sizeof x);
        nr_arg args[2] = {nr_arg_ptr(dx), nr_arg_i32(8)};
        unsigned grid[3] = {1, 1, 1};
        CHECK_AT(st, nr_launch(k, grid, args, 2, NULL) == NR_OK, "launch: %s", nr_last_error(ctx));
        nr_memcpy_dtoh(ctx, y, dx, sizeof y);
        int bad = 0;
        for (int i = 0; i < 8; i++) bad += y[i] != 2 * x[i];
        CHECK_AT(st, bad == 0, "twice: %d wrong", bad);
    }
    /* an error in the kernel: at the file's own line and column */
    f = fopen(path, "w");
    fputs("import triton\nCONFIGS = {'a': 1}\n\n@triton.jit\ndef k(x: \"*fp32\"):\n"
          "    tl.store(x, nothing)\n\ndef host():\n    return lambda v: v\n",
          f);
    fclose(f);
    nr_module *m2 = NULL;
    s = nr_compile_file(ctx, path, NULL, &m2);
    CHECK_AT(st,
             s == NR_ERR_COMPILE &&
                 strstr(nr_last_error(ctx), ".py:6:17: error: use of undefined name 'nothing'"),
             "diagnostic: %s", nr_last_error(ctx));
    remove(path);
    nr_context_destroy(ctx);
}

int main(void) {
    CheckState st = {0, 0};
    test_python_file(&st);
    test_copies_between_contexts(&st);
    test_context_owns_modules(&st);
    test_errors(&st);
    test_defines(&st);
    test_diagnostics(&st);
    CHECK_AT(&st, vector_add(1000, 256, 0.25f) == 0, "vector add");
    test_threads(&st);
    test_streams_and_stats(&st);
    return check_done("test_api", &st);
}
