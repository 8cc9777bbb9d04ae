/* test_gpu_streams.c - streams through the C API on a real GPU (nr_stream_create,
 * nr_launch_options.stream, nr_stream_synchronize, nr_stream_destroy).
 *
 * Four streams each get a chain of launches over their own buffers: z = x + y, then
 * z = z + y repeated, so every launch depends on the one before it on the same stream; a
 * stream that did not order its launches, or a copy that did not wait for them, shows up
 * as a wrong sum. Each stream is synchronised on its own and checked while the others
 * may still run; then the same chains run again with the streams left for the context to
 * destroy (nr_context_destroy must wait for and release them). A bad handle is refused.
 * Without a CUDA device: "SKIP: no CUDA device (...)", exit 0. Ends with
 * "test_gpu_streams: N passed, M failed". */
#include "gpu_test.h"
#include "tests/unit/check.h"

enum { STREAMS = 4, N = 1 << 22, CHAIN = 8 };

static CheckState checks;
#define CHECK(cond, ...) CHECK_AT(&checks, cond, __VA_ARGS__)

typedef struct Lane {
    void *stream;
    nr_devptr x, y, z;
} Lane;

static nr_kernel *compile_add(nr_context *ctx) {
    char path[2400];
    snprintf(path, sizeof path, "%s/examples/vector_add.nr", gt.root);
    nr_define d[] = {{"BLOCK_SIZE", "1024"}};
    nr_compile_options o = {.defines = d, .num_defines = 1};
    nr_module *m = NULL;
    nr_kernel *k = NULL;
    nr_status s = nr_compile_file(ctx, path, &o, &m);
    CHECK(s == NR_OK, "compile vector_add.nr: %s", nr_last_error(ctx));
    if (s == NR_OK) CHECK(nr_module_get_kernel(m, "add_kernel", &k) == NR_OK, "add_kernel");
    return k;
}

/* Lane i: x = i + j/N, y = 1; after the chain z = x + CHAIN * y. */
static void upload(nr_context *ctx, Lane *l, int i, float *host) {
    for (int j = 0; j < N; j++) host[j] = (float)i + (float)j / N;
    CHECK(nr_malloc(ctx, N * sizeof(float), &l->x) == NR_OK &&
              nr_malloc(ctx, N * sizeof(float), &l->y) == NR_OK &&
              nr_malloc(ctx, N * sizeof(float), &l->z) == NR_OK,
          "nr_malloc: %s", nr_last_error(ctx));
    CHECK(nr_memcpy_htod(ctx, l->x, host, N * sizeof(float)) == NR_OK, "upload x: %s",
          nr_last_error(ctx));
    for (int j = 0; j < N; j++) host[j] = 1.0f;
    CHECK(nr_memcpy_htod(ctx, l->y, host, N * sizeof(float)) == NR_OK, "upload y: %s",
          nr_last_error(ctx));
}

static void launch_chain(nr_context *ctx, nr_kernel *k, const Lane *l) {
    unsigned grid[3] = {N / 1024, 1, 1};
    nr_launch_options o = {.stream = l->stream};
    for (int c = 0; c < CHAIN; c++) {
        nr_arg a[] = {nr_arg_ptr(c ? l->z : l->x), nr_arg_ptr(l->y), nr_arg_ptr(l->z),
                      nr_arg_i32(N)};
        nr_status s = nr_launch(k, grid, a, 4, &o);
        CHECK(s == NR_OK, "launch %d: %s", c, nr_last_error(ctx));
    }
}

static long wrong_sums(nr_context *ctx, const Lane *l, int i, float *host) {
    CHECK(nr_memcpy_dtoh(ctx, host, l->z, N * sizeof(float)) == NR_OK, "download: %s",
          nr_last_error(ctx));
    long bad = 0;
    for (int j = 0; j < N; j++) bad += host[j] != ((float)i + (float)j / N) + (float)CHAIN;
    return bad;
}

static void run_lanes(nr_context *ctx, nr_kernel *k, Lane *lanes, float *host,
                      int destroy_streams) {
    for (int i = 0; i < STREAMS; i++) {
        CHECK(nr_stream_create(ctx, &lanes[i].stream) == NR_OK && lanes[i].stream,
              "nr_stream_create: %s", nr_last_error(ctx));
        upload(ctx, &lanes[i], i, host);
    }
    for (int i = 0; i < STREAMS; i++) launch_chain(ctx, k, &lanes[i]);
    for (int i = 0; i < STREAMS; i++) {
        CHECK(nr_stream_synchronize(ctx, lanes[i].stream) == NR_OK, "nr_stream_synchronize: %s",
              nr_last_error(ctx));
        long bad = wrong_sums(ctx, &lanes[i], i, host);
        CHECK(bad == 0, "stream %d: %ld of %d sums wrong (launches or copies out of order)", i, bad,
              N);
        if (destroy_streams)
            CHECK(nr_stream_destroy(ctx, lanes[i].stream) == NR_OK, "nr_stream_destroy: %s",
                  nr_last_error(ctx));
    }
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    gt_find_root(argc > 0 ? argv[0] : "test_gpu_streams");
    nr_context *ctx = gt_open_cuda_or_skip("test_gpu_streams");
    float *host = malloc(N * sizeof(float));
    if (!host) return printf("test_gpu_streams: FAILED (out of memory)\n"), 1;
    nr_kernel *k = compile_add(ctx);
    Lane lanes[STREAMS];
    if (k) {
        run_lanes(ctx, k, lanes, host, 1);
        CHECK(nr_stream_destroy(ctx, lanes[0].stream) == NR_ERR_INVALID_ARG,
              "a destroyed stream is refused");
        CHECK(nr_stream_synchronize(ctx, NULL) == NR_OK, "the default stream: %s",
              nr_last_error(ctx));
        run_lanes(ctx, k, lanes, host, 0); /* left to nr_context_destroy */
    }
    nr_context_destroy(ctx);
    free(host);
    return check_done("test_gpu_streams", &checks);
}
