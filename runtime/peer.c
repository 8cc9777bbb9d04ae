/* peer.c - the C API's copies between two contexts (nr_memcpy_peer,
 * nr_memcpy_peer_async, nr_memcpy_peer_path): a host copy when either side is the CPU
 * device (its memory is host memory), cuMemcpyDtoD on one CUDA device, cuMemcpyPeer
 * between two devices with peer access, and a copy staged through a host buffer between
 * two without it. Both ranges are checked against their contexts' allocations first; a
 * failure's message goes to both contexts. */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "memory.h"
#include "status.h"

enum {
    STAGE_BYTES = 8 << 20
}; /* the host buffer of a staged copy: at most this, reused per chunk */

/* Give `to` the same last error as `from` (the status stays the caller's). */
static void share_error(nr_context *to, const nr_context *from) {
    if (to == from) return;
    api_fail(to, NR_OK, "%s", nr_last_error(from));
}

/* A status of a call on one of the two contexts (`on`), its message shared with the other. */
static nr_status shared(nr_context *dst, nr_context *src, nr_context *on, nr_status s) {
    if (s) share_error(on == dst ? src : dst, on);
    return s;
}

/* A kernel fault either device has met (the source's first): reported as the API reports
 * faults, on both contexts. */
static nr_status fault_of(nr_context *dst, nr_context *src) {
    nr_context *on = src->cuda && *src->cuda_fault   ? src
                     : dst->cuda && *dst->cuda_fault ? dst
                                                     : NULL;
    return on ? shared(dst, src, on, fault_check(on)) : NR_OK;
}

/* A failed CUDA call of the copy (rc != 0, err its message): a fault if one of the devices
 * met one, else `on_fail` with the message. Frees err. */
static nr_status result(nr_context *dst, nr_context *src, int rc, StrBuf *err, nr_status on_fail) {
    nr_status s = rc ? fault_of(dst, src) : NR_OK;
    if (rc && !s) s = shared(dst, src, dst, api_fail(dst, on_fail, "%s", sb_cstr(err)));
    sb_free(err);
    return s;
}

static nr_status path_of(nr_context *dst, nr_context *src, nr_copy_path *out) {
    *out = NR_COPY_HOST;
    if (!dst->cuda || !src->cuda) return NR_OK;
    if (cuda_ordinal(dst->cuda) == cuda_ordinal(src->cuda)) return *out = NR_COPY_DEVICE, NR_OK;
    StrBuf err;
    sb_init(&err);
    int rc = cuda_peer_access(dst->cuda, src->cuda, &err);
    *out = rc > 0 ? NR_COPY_PEER : NR_COPY_STAGED;
    return result(dst, src, rc < 0, &err, NR_ERR_DEVICE);
}

/* Through a host buffer, chunk by chunk: device to host on the source, host to device on
 * the destination (each synchronous, on its device's default stream). */
static int staged(nr_context *dst, nr_devptr d, nr_context *src, nr_devptr s, size_t n,
                  StrBuf *err) {
    size_t chunk = n < STAGE_BYTES ? n : STAGE_BYTES;
    unsigned char *buf = malloc(chunk ? chunk : 1);
    if (!buf) {
        sb_printf(err, "out of host memory for a %zu-byte staging buffer", chunk);
        return -1;
    }
    int rc = 0;
    for (size_t off = 0; off < n && !rc; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        rc = cuda_dtoh(src->cuda, buf, s + off, len, err) ||
             cuda_htod(dst->cuda, d + off, buf, len, err);
    }
    free(buf);
    return rc;
}

static nr_status copy(nr_context *dst, nr_devptr d, nr_context *src, nr_devptr s, size_t n,
                      void *stream, bool async) {
    const char *what = async ? "nr_memcpy_peer_async" : "nr_memcpy_peer";
    if (!dst || !src) {
        nr_context *one = dst ? dst : src;
        return one ? api_fail(one, NR_ERR_INVALID_ARG, "%s: a NULL %s context", what,
                              dst ? "source" : "destination")
                   : NR_ERR_INVALID_ARG;
    }
    api_clear_error(dst);
    api_clear_error(src);
    nr_status st = api_check_range(dst, d, n, what);
    if (st) return shared(dst, src, dst, st);
    if ((st = api_check_range(src, s, n, what))) return shared(dst, src, src, st);
    if ((st = fault_of(dst, src))) return st;
    nr_copy_path path;
    if ((st = path_of(dst, src, &path))) return st;
    if (n == 0) return NR_OK;
    StrBuf err;
    sb_init(&err);
    int rc = 0;
    switch (path) {
    case NR_COPY_HOST:
        if (!dst->cuda && !src->cuda) {
            memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
            break;
        }
        /* one CUDA side: a stream given is that context's; its work comes first */
        if (async && stream)
            rc = cuda_stream_synchronize(dst->cuda ? dst->cuda : src->cuda, stream, &err);
        if (!rc)
            rc = dst->cuda ? cuda_htod(dst->cuda, d, (const void *)(uintptr_t)s, n, &err)
                           : cuda_dtoh(src->cuda, (void *)(uintptr_t)d, s, n, &err);
        break;
    case NR_COPY_DEVICE: rc = cuda_dtod(dst->cuda, d, s, n, stream, async, &err); break;
    case NR_COPY_PEER:
        rc = cuda_copy_peer(dst->cuda, d, src->cuda, s, n, stream, async, &err);
        break;
    case NR_COPY_STAGED:
        if (async && stream) rc = cuda_stream_synchronize(dst->cuda, stream, &err);
        if (!rc) rc = staged(dst, d, src, s, n, &err);
        break;
    }
    return result(dst, src, rc, &err, NR_ERR_DEVICE);
}

nr_status nr_memcpy_peer(nr_context *dst_ctx, nr_devptr dst, nr_context *src_ctx, nr_devptr src,
                         size_t bytes) {
    return copy(dst_ctx, dst, src_ctx, src, bytes, NULL, false);
}

nr_status nr_memcpy_peer_async(nr_context *dst_ctx, nr_devptr dst, nr_context *src_ctx,
                               nr_devptr src, size_t bytes, void *stream) {
    return copy(dst_ctx, dst, src_ctx, src, bytes, stream, true);
}

nr_status nr_memcpy_peer_path(nr_context *dst_ctx, nr_context *src_ctx, nr_copy_path *out) {
    if (!dst_ctx || !src_ctx || !out) return NR_ERR_INVALID_ARG;
    api_clear_error(dst_ctx);
    api_clear_error(src_ctx);
    nr_status s = fault_of(dst_ctx, src_ctx);
    return s ? s : path_of(dst_ctx, src_ctx, out);
}
