/* context.c - contexts (a device: the CPU interpreter or a CUDA GPU), what they say of
 * their device, their streams and their synchronisation; the defaults and ranges of the
 * options (nr_option_info). */
#include "context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/support/options.h"
#include "fault.h"
#include "status.h"

static nr_status release_stream(nr_context *ctx, int i);

nr_status nr_context_create_ex(nr_device_kind kind, int device_index, nr_context **out,
                               char *errbuf, size_t errsize) {
    if (errbuf && errsize) errbuf[0] = 0;
    if (!out) return NR_ERR_INVALID_ARG;
    *out = NULL;
    if (kind != NR_DEVICE_CPU && kind != NR_DEVICE_CUDA) return NR_ERR_INVALID_ARG;
    if (device_index < 0 || (kind == NR_DEVICE_CPU && device_index != 0)) return NR_ERR_INVALID_ARG;
    nr_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return NR_ERR_OUT_OF_MEMORY;
    ctx->kind = kind;
    sb_init(&ctx->err);
    sb_init(&ctx->fault);
    if (kind == NR_DEVICE_CUDA) {
        StrBuf err;
        sb_init(&err);
        if (cuda_open(device_index, &ctx->cuda, &err)) {
            if (errbuf && errsize) snprintf(errbuf, errsize, "%s", sb_cstr(&err));
            sb_free(&err);
            ctx->cuda = NULL;
            context_free(ctx);
            return NR_ERR_DEVICE;
        }
        ctx->cuda_fault = cuda_fault_code(ctx->cuda);
        sb_free(&err);
    }
    *out = ctx;
    return NR_OK;
}

nr_status nr_context_create(nr_device_kind kind, int device_index, nr_context **out) {
    return nr_context_create_ex(kind, device_index, out, NULL, 0);
}

void context_release_streams(nr_context *ctx) {
    while (ctx->nstreams) release_stream(ctx, ctx->nstreams - 1);
}

void context_free(nr_context *ctx) {
    context_release_streams(ctx);
    free(ctx->streams);
    free(ctx->mods);
    if (ctx->cuda) {
        StrBuf err;
        sb_init(&err);
        for (int i = 0; i < ctx->nallocs; i++)
            cuda_free(ctx->cuda, (uint64_t)(uintptr_t)ctx->allocs[i].ptr, &err);
        sb_free(&err);
        ctx->nallocs = 0;
        cuda_close(ctx->cuda);
    }
    for (int i = 0; i < ctx->nallocs; i++) free(ctx->allocs[i].ptr);
    free(ctx->allocs);
    free(ctx->host);
    sb_free(&ctx->err);
    sb_free(&ctx->fault);
    if (ctx->std_arena) arena_free(ctx->std_arena);
    free(ctx);
}

const Module *context_stdlib(nr_context *ctx) {
    if (ctx->std) return ctx->std;
    if (!ctx->std_arena) ctx->std_arena = arena_new();
    if (ctx->std_arena) ctx->std = driver_parse_stdlib(ctx->std_arena);
    return ctx->std;
}

nr_device_kind nr_context_device(const nr_context *ctx) { return ctx ? ctx->kind : NR_DEVICE_CPU; }

const char *nr_context_device_name(const nr_context *ctx) {
    return ctx && ctx->cuda ? cuda_device_name(ctx->cuda) : "cpu";
}

int nr_context_device_index(const nr_context *ctx) {
    return !ctx ? -1 : ctx->cuda ? cuda_ordinal(ctx->cuda) : 0;
}

nr_status nr_device_count(nr_device_kind kind, int *count, char *errbuf, size_t errsize) {
    if (errbuf && errsize) errbuf[0] = 0;
    if (!count) return NR_ERR_INVALID_ARG;
    *count = 0;
    if (kind == NR_DEVICE_CPU) return *count = 1, NR_OK;
    if (kind != NR_DEVICE_CUDA) return NR_ERR_INVALID_ARG;
    StrBuf err;
    sb_init(&err);
    int rc = cuda_device_count(count, &err);
    if (errbuf && errsize) snprintf(errbuf, errsize, "%s", sb_cstr(&err));
    sb_free(&err);
    return rc ? NR_ERR_DEVICE : NR_OK;
}

const char *nr_compiler_build(void) { return driver_build_id; }

nr_status nr_synchronize(nr_context *ctx) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    if (!ctx->cuda) return NR_OK;
    api_clear_error(ctx);
    FAULT_GUARD(ctx);
    StrBuf err;
    sb_init(&err);
    nr_status s = fault_cuda_call(ctx, cuda_synchronize(ctx->cuda, &err), &err, NR_ERR_LAUNCH);
    if (s == NR_OK) fault_synchronized(ctx);
    return s;
}

/* ---- streams ---- */

static int find_stream(const nr_context *ctx, const void *stream) {
    for (int i = 0; i < ctx->nstreams; i++)
        if (ctx->streams[i] == stream) return i;
    return -1;
}

nr_status nr_stream_create(nr_context *ctx, void **out) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    if (!out) return api_fail(ctx, NR_ERR_INVALID_ARG, "out must not be NULL");
    *out = NULL;
    if (ctx->nstreams == ctx->capstreams) {
        int cap = ctx->capstreams ? ctx->capstreams * 2 : 4;
        void **ss = realloc(ctx->streams, sizeof *ss * (size_t)cap);
        if (!ss) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        ctx->streams = ss, ctx->capstreams = cap;
    }
    void *st = NULL;
    if (ctx->cuda) {
        FAULT_GUARD(ctx);
        StrBuf err;
        sb_init(&err);
        nr_status s =
            fault_cuda_call(ctx, cuda_stream_create(ctx->cuda, &st, &err), &err, NR_ERR_DEVICE);
        if (s) return s;
    } else {
        st = malloc(1); /* a distinct handle; the CPU runs every launch to completion */
        if (!st) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    ctx->streams[ctx->nstreams++] = st;
    *out = st;
    return NR_OK;
}

/* Release stream i of the context (waiting for its work on CUDA). */
static nr_status release_stream(nr_context *ctx, int i) {
    void *st = ctx->streams[i];
    ctx->streams[i] = ctx->streams[--ctx->nstreams];
    if (!ctx->cuda) return free(st), NR_OK;
    StrBuf err;
    sb_init(&err);
    return fault_cuda_call(ctx, cuda_stream_destroy(ctx->cuda, st, &err), &err, NR_ERR_LAUNCH);
}

nr_status nr_stream_destroy(nr_context *ctx, void *stream) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    int i = find_stream(ctx, stream);
    if (i < 0)
        return api_fail(ctx, NR_ERR_INVALID_ARG,
                        "%p is not a stream of this context (nr_stream_create)", stream);
    return release_stream(ctx, i);
}

nr_status nr_stream_synchronize(nr_context *ctx, void *stream) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    if (!ctx->cuda) return NR_OK;
    FAULT_GUARD(ctx);
    StrBuf err;
    sb_init(&err);
    return fault_cuda_call(ctx, cuda_stream_synchronize(ctx->cuda, stream, &err), &err,
                           NR_ERR_LAUNCH);
}

nr_status nr_context_stats(const nr_context *ctx, nr_stats *out) {
    if (!ctx || !out) return NR_ERR_INVALID_ARG;
    *out = ctx->stats;
    return NR_OK;
}

nr_status nr_option_info(const char *name, int *default_value, int *min, int *max,
                         int *power_of_two) {
    const OptionInfo *o = option_find(name);
    if (!o) return NR_ERR_NOT_FOUND;
    if (default_value) *default_value = o->def;
    if (min) *min = o->min;
    if (max) *max = o->max;
    if (power_of_two) *power_of_two = o->pow2;
    return NR_OK;
}
