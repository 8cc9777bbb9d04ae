/* status.h - the runtime's errors: a failing call sets its context's last error (a
 * message, nr_last_error) and returns a status. */
#ifndef NEREID_STATUS_H
#define NEREID_STATUS_H

#include "objects.h"

/* Sets ctx's last error to the message and returns s (ctx may be NULL: s alone). */
nr_status api_fail(nr_context *ctx, nr_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void api_clear_error(nr_context *ctx);

#endif
