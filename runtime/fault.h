/* fault.h - kernel faults on a CUDA context. The driver does not say which kernel
 * faulted: it is one of those launched since the last successful synchronisation, which
 * the context keeps (ctx->recent); after a fault the driver's context is poisoned, and
 * every later call on the nr_context fails, the first with the fault's description. */
#ifndef NEREID_FAULT_H
#define NEREID_FAULT_H

#include "objects.h"

/* The kernel was launched: it goes to the front of the context's recent kernels. */
void fault_note_launch(nr_context *ctx, nr_kernel *k);
/* A successful nr_synchronize: no kernel is in flight any more. */
void fault_synchronized(nr_context *ctx);
/* Whether the context's CUDA device has met a kernel fault (NR_OK: not): the first call
 * that asks after a fault gets NR_ERR_LAUNCH with the fault's description (the driver's
 * error, the kernels in flight, a failed device_assert's message and location), every
 * later one NR_ERR_DEVICE saying the context is unusable. */
nr_status fault_check(nr_context *ctx);
/* A failed CUDA call (rc != 0) as the context's error: a kernel fault as fault_check
 * reports it, anything else as on_fail with the driver's message. Frees err. */
nr_status fault_cuda_call(nr_context *ctx, int rc, StrBuf *err, nr_status on_fail);

/* On a CUDA context that a kernel fault made unusable, every call fails at once. */
#define FAULT_GUARD(ctx)                         \
    do {                                         \
        if ((ctx)->cuda && *(ctx)->cuda_fault) { \
            nr_status fault_ = fault_check(ctx); \
            if (fault_) return fault_;           \
        }                                        \
    } while (0)

#endif
