/* memory.c - device memory through the C API (nr_malloc, copies, nr_memset) and the
 * host memory the CPU device runs kernels on (nr_host_register). Every allocation is
 * recorded in its context, so copies are checked against their extents and the CPU
 * device can report an out-of-bounds access. */
#include "memory.h"

#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "status.h"

nr_status nr_malloc(nr_context *ctx, size_t bytes, nr_devptr *out) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    if (!out) return api_fail(ctx, NR_ERR_INVALID_ARG, "out must not be NULL");
    void *p;
    if (ctx->cuda) {
        FAULT_GUARD(ctx);
        StrBuf err;
        sb_init(&err);
        uint64_t d = 0;
        nr_status s = fault_cuda_call(ctx, cuda_malloc(ctx->cuda, bytes ? bytes : 1, &d, &err),
                                      &err, NR_ERR_OUT_OF_MEMORY);
        if (s) return s;
        p = (void *)(uintptr_t)d;
    } else {
        p = calloc(1, bytes ? bytes : 1); /* 16-byte aligned, like device memory */
    }
    if (!p) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes", bytes);
    if (ctx->nallocs == ctx->capallocs) {
        int cap = ctx->capallocs ? ctx->capallocs * 2 : 16;
        Allocation *a = realloc(ctx->allocs, sizeof *a * (size_t)cap);
        if (!a) return free(p), api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        ctx->allocs = a;
        ctx->capallocs = cap;
    }
    ctx->allocs[ctx->nallocs++] = (Allocation){p, bytes};
    *out = (nr_devptr)(uintptr_t)p;
    return NR_OK;
}

static int find_alloc(nr_context *ctx, nr_devptr p) {
    for (int i = 0; i < ctx->nallocs; i++)
        if ((nr_devptr)(uintptr_t)ctx->allocs[i].ptr == p) return i;
    return -1;
}

nr_status nr_free(nr_context *ctx, nr_devptr p) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    if (!p) return NR_OK;
    int i = find_alloc(ctx, p);
    if (i < 0)
        return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_free: 0x%llx was not allocated by nr_malloc",
                        (unsigned long long)p);
    if (ctx->cuda) { /* after a fault the memory went with the context: only the record goes */
        StrBuf err;
        sb_init(&err);
        nr_status s = fault_cuda_call(ctx, cuda_free(ctx->cuda, p, &err), &err, NR_ERR_DEVICE);
        ctx->allocs[i] = ctx->allocs[--ctx->nallocs];
        return s;
    }
    free(ctx->allocs[i].ptr);
    ctx->allocs[i] = ctx->allocs[--ctx->nallocs];
    return NR_OK;
}

nr_status api_check_range(nr_context *ctx, nr_devptr p, size_t n, const char *what) {
    for (int i = 0; i < ctx->nallocs; i++) {
        nr_devptr b = (nr_devptr)(uintptr_t)ctx->allocs[i].ptr;
        if (p >= b && p - b <= ctx->allocs[i].size && n <= ctx->allocs[i].size - (p - b))
            return NR_OK;
    }
    return api_fail(ctx, NR_ERR_INVALID_ARG,
                    "%s: [0x%llx, +%zu) is not inside memory from nr_malloc", what,
                    (unsigned long long)p, n);
}

nr_status nr_memcpy_htod(nr_context *ctx, nr_devptr dst, const void *src, size_t bytes) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    if (!src && bytes) return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_memcpy_htod: NULL source");
    nr_status s = api_check_range(ctx, dst, bytes, "nr_memcpy_htod");
    if (s) return s;
    if (ctx->cuda) {
        FAULT_GUARD(ctx);
        StrBuf err;
        sb_init(&err);
        return fault_cuda_call(ctx, cuda_htod(ctx->cuda, dst, src, bytes, &err), &err,
                               NR_ERR_DEVICE);
    }
    if (bytes) memcpy((void *)(uintptr_t)dst, src, bytes);
    return NR_OK;
}

nr_status nr_memcpy_dtoh(nr_context *ctx, void *dst, nr_devptr src, size_t bytes) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    if (!dst && bytes) return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_memcpy_dtoh: NULL destination");
    nr_status s = api_check_range(ctx, src, bytes, "nr_memcpy_dtoh");
    if (s) return s;
    if (ctx->cuda) {
        FAULT_GUARD(ctx);
        StrBuf err;
        sb_init(&err);
        return fault_cuda_call(ctx, cuda_dtoh(ctx->cuda, dst, src, bytes, &err), &err,
                               NR_ERR_DEVICE);
    }
    if (bytes) memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return NR_OK;
}

nr_status nr_memset(nr_context *ctx, nr_devptr dst, int byte, size_t bytes) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    nr_status s = api_check_range(ctx, dst, bytes, "nr_memset");
    if (s) return s;
    if (ctx->cuda) {
        FAULT_GUARD(ctx);
        StrBuf err;
        sb_init(&err);
        return fault_cuda_call(ctx, cuda_memset(ctx->cuda, dst, byte, bytes, &err), &err,
                               NR_ERR_DEVICE);
    }
    if (bytes) memset((void *)(uintptr_t)dst, byte, bytes);
    return NR_OK;
}

nr_status nr_host_register(nr_context *ctx, void *ptr, size_t bytes) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    if (ctx->kind != NR_DEVICE_CPU)
        return api_fail(ctx, NR_ERR_UNSUPPORTED,
                        "nr_host_register: only the CPU device runs kernels on host memory");
    if (!ptr) return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_host_register: NULL pointer");
    if ((uintptr_t)ptr + bytes < (uintptr_t)ptr)
        return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_host_register: [%p, +%zu) wraps around", ptr,
                        bytes);
    if (ctx->nhost == ctx->caphost) {
        int cap = ctx->caphost ? ctx->caphost * 2 : 8;
        Allocation *h = realloc(ctx->host, sizeof *h * (size_t)cap);
        if (!h) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        ctx->host = h, ctx->caphost = cap;
    }
    ctx->host[ctx->nhost++] = (Allocation){ptr, bytes};
    return NR_OK;
}

nr_status nr_host_unregister(nr_context *ctx, void *ptr) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    for (int i = ctx->nhost - 1; i >= 0; i--) /* the latest registration of ptr */
        if (ctx->host[i].ptr == ptr) {
            memmove(&ctx->host[i], &ctx->host[i + 1],
                    sizeof *ctx->host * (size_t)(ctx->nhost - i - 1));
            ctx->nhost--;
            return NR_OK;
        }
    return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_host_unregister: %p was not registered", ptr);
}

size_t memory_extent(const nr_context *ctx, uint64_t p) {
    for (int i = 0; i < ctx->nallocs; i++) {
        uint64_t b = (uint64_t)(uintptr_t)ctx->allocs[i].ptr;
        if (p >= b && p - b < ctx->allocs[i].size) return ctx->allocs[i].size - (size_t)(p - b);
    }
    for (int i = 0; i < ctx->nhost; i++) {
        uint64_t b = (uint64_t)(uintptr_t)ctx->host[i].ptr;
        if (p >= b && p - b < ctx->host[i].size) return ctx->host[i].size - (size_t)(p - b);
    }
    return 0;
}
