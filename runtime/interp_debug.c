/* interp_debug.c - device_assert and device_print.
 *
 * assert fails the launch at the first program where any element is false. print
 * writes one line per program for scalars ("pid (x, y, z) prefix v1 v2"), and for
 * blocks one line per element and operand, like Triton's device_print:
 * "pid (x, y, z) idx (i, j) prefix value" ("(operand k) " before the value when there
 * are several). Floats print in the fewest digits that read back to the same value of
 * their dtype; hex (attr[0] = 1) prints bit patterns; pointers always print in hex. */
#include "interp_impl.h"

#include <stdio.h>
#include <stdlib.h>

static int do_assert(Ctx *c, const IrOp *op) {
    const uint64_t *cv = interp_val_in(c, op, 0);
    if (!cv) return -1;
    int64_t n = ty_numel(opnd_ty(c, op, 0));
    for (int64_t i = 0; i < n; i++) {
        if (cv[i] & 1) continue;
        c->failed = true;
        interp_msg(c, "device_assert failed");
        interp_where(c, op, true);
        interp_msg(c, ": %s", op->sattr ? op->sattr : "");
        return -1;
    }
    return 0;
}

/* Shortest %g that reads back to the same dtype value. */
static void format_float(char *out, size_t size, int dt, double v) {
    int maxp = dt == DT_FP64 ? 17 : dt == DT_FP32 ? 9 : dt == DT_FP16 ? 5 : 4;
    for (int prec = 1; prec <= maxp; prec++) {
        snprintf(out, size, "%.*g", prec, v);
        double back = float_round(dt, strtod(out, NULL));
        if (back == v || isnan(v)) return;
    }
}

static void format_value(char *out, size_t size, int dt, const void *buf, int64_t i, bool hex) {
    if (dt == DT_PTR || hex) {
        int digits = dt == DT_I1 ? 1 : 2 * dt_bytes(dt);
        snprintf(out, size, "0x%0*llx", digits, (unsigned long long)elem_bits(dt, buf, i));
    } else if (dt_is_float(dt)) {
        format_float(out, size, dt, ((const double *)buf)[i]);
    } else if (dt_is_signed(dt)) {
        snprintf(out, size, "%lld", (long long)as_i64(((const uint64_t *)buf)[i]));
    } else {
        snprintf(out, size, "%llu", (unsigned long long)((const uint64_t *)buf)[i]);
    }
}

/* Each piece of a line after "pid (x, y, z)" starts with its own space. */
static void print_pid(Ctx *c, FILE *out) {
    fprintf(out, "pid (%u, %u, %u)", c->pid[0], c->pid[1], c->pid[2]);
}

static void print_prefix(FILE *out, const char *prefix) {
    int n = (int)strlen(prefix);
    while (n > 0 && prefix[n - 1] == ' ') n--; /* "x: " and "x:" print alike */
    if (n) fprintf(out, " %.*s", n, prefix);
}

/* " idx (i, j)" for element e of a block of type t */
static void print_index(FILE *out, IrType t, int64_t e) {
    int64_t idx[NR_MAX_RANK];
    for (int d = t.rank - 1; d >= 0; d--) idx[d] = e % t.shape[d], e /= t.shape[d];
    fprintf(out, " idx (");
    for (int d = 0; d < t.rank; d++) fprintf(out, "%s%lld", d ? ", " : "", (long long)idx[d]);
    fprintf(out, ")");
}

static int do_print(Ctx *c, const IrOp *op) {
    FILE *out = c->opts->print_out ? c->opts->print_out : stdout;
    const char *prefix = op->sattr ? op->sattr : "";
    bool hex = op->attr[0] == 1, blocks = false;
    char v[64];
    for (uint32_t k = 0; k < op->nopnds; k++) {
        if (!interp_val_in(c, op, k)) return -1;
        blocks |= opnd_ty(c, op, k).rank > 0;
    }
    if (!blocks) { /* scalars: one line */
        print_pid(c, out);
        print_prefix(out, prefix);
        for (uint32_t k = 0; k < op->nopnds; k++) {
            format_value(v, sizeof v, opnd_ty(c, op, k).dt, c->slot[op->operands[k]], 0, hex);
            fprintf(out, " %s", v);
        }
        fputc('\n', out);
        return 0;
    }
    for (uint32_t k = 0; k < op->nopnds; k++) { /* blocks: a line per element */
        IrType t = opnd_ty(c, op, k);
        for (int64_t e = 0; e < ty_numel(t); e++) {
            print_pid(c, out);
            if (t.rank) print_index(out, t, e);
            print_prefix(out, prefix);
            if (op->nopnds > 1) fprintf(out, " (operand %u)", k);
            format_value(v, sizeof v, t.dt, c->slot[op->operands[k]], e, hex);
            fprintf(out, " %s\n", v);
        }
    }
    return 0;
}

int interp_debug(Ctx *c, const IrOp *op) {
    return op->code == OP_ASSERT ? do_assert(c, op) : do_print(c, op);
}
