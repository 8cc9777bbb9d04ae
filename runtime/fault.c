/* fault.c - kernel faults on a CUDA context (fault.h): which kernels may have faulted,
 * the assertions they hold, and the context made unusable once the driver poisons it. */
#include "fault.h"

#include <string.h>

#include "status.h"

/* The kernel was launched: it goes to the front of the context's recent kernels. */
void fault_note_launch(nr_context *ctx, nr_kernel *k) {
    if (ctx->nrecent && ctx->recent[0] == k) return; /* the common case: the same kernel again */
    enum { CAP = sizeof ctx->recent / sizeof ctx->recent[0] };
    int i = 0;
    while (i < ctx->nrecent && ctx->recent[i] != k) i++;
    if (i == ctx->nrecent) { /* not there: the oldest falls off when full */
        if (ctx->nrecent < CAP) ctx->nrecent++;
        else ctx->recent_overflow = true, i = CAP - 1;
    }
    memmove(&ctx->recent[1], &ctx->recent[0], sizeof ctx->recent[0] * (size_t)i);
    ctx->recent[0] = k;
}

void fault_synchronized(nr_context *ctx) {
    ctx->nrecent = 0;
    ctx->recent_overflow = false;
}

/* The device_assert ops of kernel k still in its IR (those of region r and the regions
 * nested in it), appended to `out`, each as "\n    kernel 'k' at FILE:LINE:COL: MESSAGE";
 * returns the new count. */
static int list_asserts(const IrFunc *f, RegionId r, StrBuf *out, int count) {
    const IrRegion *reg = &f->regions[r];
    for (uint32_t i = 0; i < reg->nops; i++) {
        const IrOp *op = &f->ops[reg->ops[i]];
        if (op->code == OP_ASSERT) {
            sb_printf(out, "\n    kernel '%s'", f->name);
            if (op->loc.src)
                sb_printf(out, " at %s:%d:%d", op->loc.src->name, op->loc.line, op->loc.col);
            sb_printf(out, ": %s", op->sattr && *op->sattr ? op->sattr : "(no message)");
            count++;
        }
        for (int j = 0; j < op->nregions; j++) count = list_asserts(f, op->region[j], out, count);
    }
    return count;
}

/* The description of the fault the device met (its CUresult `code`, the driver's `what`):
 * which kernels may have faulted and, for a failed device_assert, the assertions they
 * hold, with their messages and locations. The driver does not say which kernel failed:
 * it is one of those launched since the last nr_synchronize, and an assertion that
 * failed is one of theirs (named alone when it is the only one). */
static void describe_fault(nr_context *ctx, int code, const char *what) {
    enum { CUDA_ERROR_ASSERT = 710 };
    StrBuf *d = &ctx->fault;
    StrBuf asserts;
    sb_init(&asserts);
    int n = 0;
    if (code == CUDA_ERROR_ASSERT)
        for (int i = 0; i < ctx->nrecent; i++)
            n = list_asserts(ctx->recent[i]->f, ctx->recent[i]->f->body, &asserts, n);
    if (n == 1 && !ctx->recent_overflow) {
        /* "device_assert failed in kernel 'k' at f.nr:3:5: msg", as on the CPU */
        sb_printf(d, "device_assert failed in %s", sb_cstr(&asserts) + strlen("\n    "));
    } else if (n > 1) {
        sb_printf(d,
                  "device_assert failed in a kernel launched since the last nr_synchronize; their "
                  "assertions:%s",
                  sb_cstr(&asserts));
    } else {
        const char *failed = code == CUDA_ERROR_ASSERT ? "device_assert failed in" : "faulted on";
        const char *dev = cuda_device_name(ctx->cuda);
        if (ctx->nrecent == 1 && !ctx->recent_overflow) {
            sb_printf(d, "kernel '%s' %s CUDA device '%s'", ctx->recent[0]->f->name,
                      code == CUDA_ERROR_ASSERT ? "failed a device_assert on" : failed, dev);
        } else {
            sb_printf(d, "%s on CUDA device '%s'",
                      code == CUDA_ERROR_ASSERT ? "device_assert failed" : "a kernel faulted", dev);
            if (ctx->nrecent) {
                sb_puts(d, ": one of the kernels launched since the last nr_synchronize,");
                for (int i = 0; i < ctx->nrecent; i++)
                    sb_printf(d, "%s '%s'", i ? "," : "", ctx->recent[i]->f->name);
                if (ctx->recent_overflow) sb_puts(d, " and others");
            }
        }
    }
    sb_free(&asserts);
    sb_printf(d, "\n  the driver: %s", what);
    if (code == CUDA_ERROR_ASSERT)
        sb_puts(d, " (its message on standard output names the block and thread)");
    sb_puts(d, "\n  the CUDA context is unusable now (the driver poisons it after a kernel fault): "
               "every later call "
               "on this nr_context fails; destroy it. A new nr_context on the device works only "
               "where the driver "
               "allows it; otherwise (NVIDIA's drivers: CUDA documents that the process must be "
               "restarted) only a "
               "new process can use the device");
}

nr_status fault_check(nr_context *ctx) {
    const char *what;
    int code = ctx->cuda ? cuda_fault(ctx->cuda, &what) : 0;
    if (!code) return NR_OK;
    if (!ctx->fault.len) {
        describe_fault(ctx, code, what);
        /* this context will not use the driver's context again: let it go, so that a
         * driver that allows it can give a new context a fresh one once every other user
         * has let go too (NVIDIA's drivers refuse the device to this process for good) */
        cuda_release_context(ctx->cuda);
    }
    if (!ctx->fault_reported) {
        ctx->fault_reported = true;
        return api_fail(ctx, NR_ERR_LAUNCH, "%s", sb_cstr(&ctx->fault));
    }
    const char *first = sb_cstr(&ctx->fault);
    const char *nl = strchr(first, '\n');
    return api_fail(ctx, NR_ERR_DEVICE,
                    "this CUDA context is unusable after an earlier kernel fault (%.*s): destroy "
                    "it; a new context "
                    "works only where the driver allows it, otherwise a new process is needed",
                    (int)(nl ? nl - first : (ptrdiff_t)strlen(first)), first);
}

nr_status fault_cuda_call(nr_context *ctx, int rc, StrBuf *err, nr_status on_fail) {
    nr_status s = NR_OK;
    if (rc && !(s = fault_check(ctx))) s = api_fail(ctx, on_fail, "%s", sb_cstr(err));
    sb_free(err);
    return s;
}
