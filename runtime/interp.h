/* interp.h - the CPU interpreter of the IR: the reference semantics of Nereid.
 *
 * It runs a kernel over a grid of program instances, one after another, evaluating each
 * op on whole blocks (like NumPy). Memory is host memory; accesses are checked against
 * the extents the caller registers. */
#ifndef NEREID_INTERP_H
#define NEREID_INTERP_H

#include "compiler/ir/ir.h"

#include <stdio.h>

/* An extent of host memory the kernel may touch, for bounds checking. */
typedef struct InterpBuffer {
    uint64_t base;
    uint64_t size;
} InterpBuffer;

/* A scalar argument value: ints (sign- or zero-extended per dtype), floats, addresses;
 * for a tensor descriptor (tdesc) parameter, its parts as desc_part numbers them: the
 * base address, the sizes, the strides and the padding (2 + 2 x rank values, the caller's
 * for the launch). */
typedef union InterpScalar {
    int64_t i;
    uint64_t u;
    double f;
    const int64_t *desc;
} InterpScalar;

typedef struct InterpOptions {
    const InterpBuffer *buffers; /* registered extents, may be NULL */
    int nbuffers;
    /* true: every pointer access must fall inside one registered buffer, or the launch
     * fails naming the op and address. false: accesses are not checked (the host passed
     * memory it did not register). */
    bool strict;
    FILE *print_out; /* device_print output; NULL: stdout */
    /* A cooperative launch (nr_launch_options.cooperative): its programs may wait for one
     * another (a grid barrier built from atomics), which a run of one program after another
     * cannot do. Nonzero: with more than one program, a while loop past this many
     * iterations in one run fails the launch (a program waiting for one that has not run),
     * instead of spinning for ever. */
    uint64_t coop_spin_limit;
} InterpOptions;

/* Semantics ir_ops.def leaves open, as the interpreter (the reference) decides them:
 * - float max/min (ops, reduce, atomics): a NaN operand gives the other; max(-0, +0)
 *   is +0 and min(-0, +0) is -0.
 * - argmax/argmin: NaN elements never win (all-NaN gives index 0); first index on ties.
 * - rem by zero gives 0, like idiv; INT_MIN / -1 wraps to INT_MIN, INT_MIN % -1 is 0.
 * - shift amounts are read as unsigned: a negative amount is >= the width.
 * - cvt float -> i1 is (x != 0), so NaN gives 1; float -> unsigned saturates negatives
 *   to 0. int -> fp16/bf16 rounds once (no double rounding through double).
 * - fma: fp32 through fmaf, fp64 fma, fp16/bf16 fma in double then rounded.
 * - dot: fp32 products and sums in k order (each rounded); fp64 inputs or accumulator
 *   compute in double; integer dots wrap at the accumulator's width. reduce sum of
 *   fp16/bf16/fp32 accumulates in float, of fp64 in double.
 * - atomic_cas compares bit patterns; float atomic add rounds to the dtype each lane;
 *   lanes apply in order, programs one after another (z outer, then y, x inner).
 * - load/store/atomic masks and value operands may be scalars (numel 1) standing for
 *   every lane.
 * - assume is not checked. A while loop that never ends hangs the launch, but in a
 *   cooperative launch of several programs (InterpOptions.coop_spin_limit).
 * - Loop induction variables never wrap: a for loop stops when iv + step overflows.
 * Error messages (in err, one line, no trailing newline):
 *   out-of-bounds load of 4 bytes at 0x... in kernel 'k' (f.nr:12:9), program (3, 0, 0):
 *       4 bytes past the end of a 1024-byte buffer (offset 1024)
 *   misaligned store of 4 bytes at 0x... in kernel 'k' (...), program (...): the address
 *       is not a multiple of 4
 *   device_assert failed in kernel 'k' at f.nr:7:3, program (2, 0, 0): <msg>
 *   kernel 'k' (f.nr:3:4): call to '@g' must be inlined before the interpreter can run it
 *   interp: malformed IR in kernel 'k': op 'add' (f.nr:1:1): <what is wrong>
 * Nothing is executed when the IR is malformed or contains a call. */

/* Run kernel f (which must be inlined: no call ops) on grid[0] x grid[1] x grid[2]
 * programs. args holds one value per kernel parameter. Returns 0, or -1 with a message
 * in err (out-of-bounds access naming the kernel, op location and address; a failed
 * device_assert with its message; ...). */
int interp_run(const IrFunc *f, const InterpScalar *args, const unsigned grid[3],
               const InterpOptions *opts, StrBuf *err);

#endif
