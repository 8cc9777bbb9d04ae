/* interp.h - the CPU interpreter of the IR: the reference semantics of Nereid.
 *
 * It runs a kernel over a grid of program instances, one after another, evaluating each
 * op on whole blocks (like NumPy). Memory is host memory; accesses are checked against
 * the extents the caller registers. */
#ifndef NEREID_INTERP_H
#define NEREID_INTERP_H

#include "../compiler/ir.h"

#include <stdio.h>

/* An extent of host memory the kernel may touch, for bounds checking. */
typedef struct InterpBuffer {
    uint64_t base;
    uint64_t size;
} InterpBuffer;

/* A scalar argument value: ints (sign- or zero-extended per dtype), floats, addresses. */
typedef union InterpScalar {
    int64_t i;
    uint64_t u;
    double f;
} InterpScalar;

typedef struct InterpOptions {
    const InterpBuffer *buffers; /* registered extents, may be NULL */
    int nbuffers;
    /* true: every pointer access must fall inside one registered buffer, or the launch
     * fails naming the op and address. false: accesses are not checked (the host passed
     * memory it did not register). */
    bool strict;
    FILE *print_out;             /* device_print output; NULL: stdout */
} InterpOptions;

/* Run kernel f (which must be inlined: no call ops) on grid[0] x grid[1] x grid[2]
 * programs. args holds one value per kernel parameter. Returns 0, or -1 with a message
 * in err (out-of-bounds access naming the kernel, op location and address; a failed
 * device_assert with its message; ...). */
int interp_run(const IrFunc *f, const InterpScalar *args, const unsigned grid[3],
               const InterpOptions *opts, StrBuf *err);

#endif
