/* status.c - statuses and the context's last error (status.h). */
#include "status.h"

#include <stdarg.h>

nr_status api_fail(nr_context *ctx, nr_status s, const char *fmt, ...) {
    if (!ctx) return s;
    sb_free(&ctx->err);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&ctx->err, fmt, ap);
    va_end(ap);
    return s;
}

void api_clear_error(nr_context *ctx) {
    if (ctx->err.data) sb_free(&ctx->err);
}

const char *nr_status_string(nr_status s) {
    switch (s) {
    case NR_OK: return "success";
    case NR_ERR_COMPILE: return "compile error";
    case NR_ERR_INVALID_ARG: return "invalid argument";
    case NR_ERR_NOT_FOUND: return "not found";
    case NR_ERR_LAUNCH: return "kernel failed";
    case NR_ERR_DEVICE: return "device error";
    case NR_ERR_OUT_OF_MEMORY: return "out of memory";
    case NR_ERR_UNSUPPORTED: return "unsupported";
    }
    return "unknown status";
}

const char *nr_last_error(const nr_context *ctx) {
    if (!ctx) return "no context";
    return ctx->err.data ? ctx->err.data : "";
}
