/* interp_mem.c - load, store, atomic_rmw and atomic_cas on blocks of host pointers.
 *
 * Masked-off lanes never touch memory. In strict mode every active lane is checked
 * first, so a failing op reports the first bad lane and writes nothing; non-strict mode
 * checks nothing. The check knows where each pointer comes from: before the launch a
 * small dataflow pass (trace_roots) gives every pointer value the kernel parameter it is
 * derived from (through addptr, splat, broadcast, reshapes, select and the values
 * loops and ifs carry), and each parameter's argument is matched with the registered
 * buffer it points into. An access through a pointer derived from parameter P must then
 * land inside P's buffer (a run past the end of x that happens to reach y is reported,
 * as on a GPU it would corrupt y), and one through a parameter that points into no
 * registered buffer (a NULL or foreign pointer) is refused; a pointer of mixed or
 * unknown origin must land inside some registered buffer. Every access must also be
 * aligned to its element size. Programs run one after another and lanes apply in order,
 * so atomics are plain read-modify-writes (lanes hitting one address see each other's
 * updates). */
#include "interp_impl.h"

#include <stdio.h>
#include <stdlib.h>

static int by_base(const void *x, const void *y) {
    const InterpBuffer *a = x, *b = y;
    return a->base < b->base ? -1 : a->base > b->base;
}

/* ---- where pointers come from ---- */

static bool join(Ctx *c, ValId v, int32_t r) {
    if (!v || c->f->vals[v].ty.dt != DT_PTR || !r || c->root[v] == r || c->root[v] == ROOT_MIXED)
        return false;
    c->root[v] = c->root[v] ? ROOT_MIXED : r;
    return true;
}

static ValId yielded(const IrFunc *f, RegionId r, uint32_t i) {
    const IrRegion *reg = &f->regions[r];
    if (!reg->nops) return 0;
    const IrOp *t = &f->ops[reg->ops[reg->nops - 1]];
    return t->code == OP_YIELD && i < t->nopnds ? t->operands[i] : 0;
}

/* One sweep over every op; true if a root changed. */
static bool trace_sweep(Ctx *c) {
    const IrFunc *f = c->f;
    bool changed = false;
    for (OpId id = 1; id < f->nops; id++) {
        const IrOp *op = &f->ops[id];
        const int32_t *rt = c->root;
        switch (op->code) {
        case OP_ADDPTR:
        case OP_SPLAT:
        case OP_BROADCAST:
        case OP_EXPAND_DIMS:
        case OP_RESHAPE:
        case OP_TRANS:
        case OP_MULTIPLE_OF:
        case OP_MAX_CONTIGUOUS:
        case OP_MAX_CONSTANCY:
        case OP_CONVERT_LAYOUT: changed |= join(c, op->results[0], rt[op->operands[0]]); break;
        case OP_DESC_PART: /* the base of a descriptor parameter: that parameter's */
            if (op->attr[0] == 0) changed |= join(c, op->results[0], rt[op->operands[0]]);
            break;
        case OP_SELECT:
            changed |= join(c, op->results[0], rt[op->operands[1]]);
            changed |= join(c, op->results[0], rt[op->operands[2]]);
            break;
        case OP_FOR: /* operands lb, ub, step, inits; region args iv, carried */
            for (uint32_t i = 0; i < op->nres; i++) {
                ValId a = f->regions[op->region[0]].args[i + 1];
                changed |= join(c, a, rt[op->operands[i + 3]]);
                changed |= join(c, a, rt[yielded(f, op->region[0], i)]);
                changed |= join(c, op->results[i], rt[a]);
            }
            break;
        case OP_IF:
            for (uint32_t i = 0; i < op->nres; i++) {
                changed |= join(c, op->results[i], rt[yielded(f, op->region[0], i)]);
                changed |= join(c, op->results[i], rt[yielded(f, op->region[1], i)]);
            }
            break;
        case OP_WHILE: /* region 0 args: inits or region 1's yield; region 1 args: the same */
            for (uint32_t i = 0; i < op->nres; i++) {
                ValId a = f->regions[op->region[0]].args[i], b = f->regions[op->region[1]].args[i];
                changed |= join(c, a, rt[op->operands[i]]);
                changed |= join(c, a, rt[yielded(f, op->region[1], i)]);
                changed |= join(c, b, rt[a]);
                changed |= join(c, op->results[i], rt[a]);
            }
            break;
        default: /* a pointer made any other way (bitcast, cvt, load, const) */
            for (uint32_t i = 0; i < op->nres; i++) changed |= join(c, op->results[i], ROOT_MIXED);
        }
    }
    return changed;
}

static int trace_roots(Ctx *c) {
    const IrRegion *body = &c->f->regions[c->f->body];
    c->root = calloc(c->f->nvals, sizeof *c->root);
    if (!c->root) return -1;
    for (uint32_t i = 0; i < body->nargs; i++) {
        join(c, body->args[i], (int32_t)i + 1);
        if (ty_is_tdesc(c->f->vals[body->args[i]].ty)) c->root[body->args[i]] = (int32_t)i + 1;
    }
    /* monotone over a lattice of height 2 per value: ends after a few sweeps */
    while (trace_sweep(c)) {}
    return 0;
}

/* The buffer a pointer argument points into: one that holds addr, else one that ends
 * at addr (a pointer one past the end, or to an empty buffer); -1 if none. Buffers next
 * to each other in memory make "ends at" ambiguous, hence the preference. */
static int param_buffer(const Ctx *c, uint64_t addr) {
    int at_end = -1;
    for (int i = 0; i < c->nbufs; i++) {
        const InterpBuffer *b = &c->bufs[i];
        if (addr >= b->base && addr - b->base < b->size) return i;
        if (addr >= b->base && addr - b->base == b->size && at_end < 0) at_end = i;
    }
    return at_end;
}

int interp_mem_init(Ctx *c, const InterpScalar *args) {
    c->last_buf = -1;
    int n = c->opts->buffers ? c->opts->nbuffers : 0;
    if (n > 0) {
        c->bufs = malloc((size_t)n * sizeof *c->bufs);
        if (!c->bufs) goto oom;
        memcpy(c->bufs, c->opts->buffers, (size_t)n * sizeof *c->bufs);
        qsort(c->bufs, (size_t)n, sizeof *c->bufs, by_base);
        c->nbufs = n;
    }
    if (!c->opts->strict) return 0;
    const IrRegion *body = &c->f->regions[c->f->body];
    c->param_buf = malloc(sizeof *c->param_buf * (body->nargs + 1));
    if (!c->param_buf || trace_roots(c)) goto oom;
    for (uint32_t i = 0; i < body->nargs; i++)
        c->param_buf[i] = c->f->vals[body->args[i]].ty.dt == DT_PTR ? param_buffer(c, args[i].u)
                          : c->f->vals[body->args[i]].ty.dt == DT_TDESC
                              ? param_buffer(c, (uint64_t)args[i].desc[0])
                              : -1;
    return 0;
oom:
    interp_msg(c, "interpreter out of memory in kernel '%s'", c->f->name);
    return -1;
}

void interp_mem_free(Ctx *c) {
    free(c->bufs);
    free(c->root);
    free(c->param_buf);
}

static bool inside(const InterpBuffer *b, uint64_t addr, uint64_t size) {
    return addr >= b->base && addr - b->base <= b->size && size <= b->size - (addr - b->base);
}

/* The last buffer hit first (accesses cluster), then a binary search by base, then a
 * scan in case registered buffers overlap. */
static bool find_buffer(Ctx *c, uint64_t addr, uint64_t size) {
    if (c->last_buf >= 0 && inside(&c->bufs[c->last_buf], addr, size)) return true;
    int lo = 0, hi = c->nbufs - 1, at = -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (c->bufs[mid].base <= addr) at = mid, lo = mid + 1;
        else hi = mid - 1;
    }
    if (at >= 0 && inside(&c->bufs[at], addr, size)) return c->last_buf = at, true;
    for (int i = 0; i < c->nbufs; i++)
        if (inside(&c->bufs[i], addr, size)) return c->last_buf = i, true;
    return false;
}

static const char *access_name(int code) {
    return code == OP_LOAD ? "load" : code == OP_STORE ? "store" : "atomic";
}

/* How far [addr, addr+size) reaches outside buffer b (0 if inside). */
static uint64_t distance(const InterpBuffer *b, uint64_t addr, uint64_t size, bool *before) {
    *before = addr < b->base;
    if (*before) return b->base - addr;
    uint64_t off = addr - b->base;
    if (off > UINT64_MAX - size) return UINT64_MAX;
    return off + size > b->size ? off + size - b->size : 0;
}

/* via: "" or "'x' points into no registered buffer; " */
static int report_oob(Ctx *c, const IrOp *op, uint64_t addr, int size, const char *via) {
    char what[96];
    snprintf(what, sizeof what, "out-of-bounds %s of %d byte%s at 0x%llx", access_name(op->code),
             size, size == 1 ? "" : "s", (unsigned long long)addr);
    int best = -1;
    uint64_t bestd = UINT64_MAX;
    bool before = false, b;
    for (int i = 0; i < c->nbufs; i++) {
        uint64_t d = distance(&c->bufs[i], addr, (uint64_t)size, &b);
        if (d < bestd) bestd = d, best = i, before = b;
    }
    if (best >= 0) {
        const InterpBuffer *nb = &c->bufs[best];
        uint64_t near = nb->size > 65536 ? nb->size : 65536;
        if (bestd <= near && before)
            return interp_fail(c, op, what, "%s%llu bytes before the start of a %llu-byte buffer",
                               via, (unsigned long long)bestd, (unsigned long long)nb->size);
        if (bestd <= near)
            return interp_fail(c, op, what,
                               "%s%llu bytes past the end of a %llu-byte buffer (offset %llu)", via,
                               (unsigned long long)bestd, (unsigned long long)nb->size,
                               (unsigned long long)(addr - nb->base));
    }
    if (!c->nbufs) return interp_fail(c, op, what, "%sno buffers are registered", via);
    return interp_fail(c, op, what, "%s%snot inside any registered buffer", via,
                       addr < 4096 ? "a null pointer: " : "");
}

/* "'x_ptr'", or "parameter 2" where the IR names none */
static void param_name(const Ctx *c, int i, char *buf, size_t size) {
    const char *n = c->f->param_names ? c->f->param_names[i] : NULL;
    if (n) snprintf(buf, size, "'%s'", n);
    else snprintf(buf, size, "parameter %d", i);
}

/* An access through parameter i's pointer that leaves the buffer it points into, or
 * through a parameter pointing into none. */
static int report_param_oob(Ctx *c, const IrOp *op, int i, uint64_t addr, int size) {
    char name[80], what[96];
    param_name(c, i, name, sizeof name);
    if (c->param_buf[i] < 0) {
        char via[128];
        snprintf(via, sizeof via, "%s points into no registered buffer; ", name);
        return report_oob(c, op, addr, size, via);
    }
    snprintf(what, sizeof what, "out-of-bounds %s of %d byte%s at 0x%llx", access_name(op->code),
             size, size == 1 ? "" : "s", (unsigned long long)addr);
    const InterpBuffer *b = &c->bufs[c->param_buf[i]];
    bool before;
    uint64_t d = distance(b, addr, (uint64_t)size, &before);
    if (before)
        return interp_fail(c, op, what,
                           "%llu bytes before the start of the %llu-byte buffer %s points into",
                           (unsigned long long)d, (unsigned long long)b->size, name);
    return interp_fail(
        c, op, what, "%llu bytes past the end of the %llu-byte buffer %s points into (offset %llu)",
        (unsigned long long)d, (unsigned long long)b->size, name,
        (unsigned long long)(addr - b->base));
}

/* Strict mode: every active lane in bounds and aligned, checked in lane order. */
static int check_lanes(Ctx *c, const IrOp *op, const uint64_t *p, const uint64_t *mask,
                       int64_t mstride, int64_t n, int size) {
    if (!c->opts->strict) return 0;
    int32_t root = c->root[op->operands[0]];
    const InterpBuffer *own =
        root > 0 && c->param_buf[root - 1] >= 0 ? &c->bufs[c->param_buf[root - 1]] : NULL;
    for (int64_t i = 0; i < n; i++) {
        if (mask && !(mask[i * mstride] & 1)) continue;
        if (root > 0 && !(own && inside(own, p[i], (uint64_t)size)))
            return report_param_oob(c, op, root - 1, p[i], size);
        if (root <= 0 && !find_buffer(c, p[i], (uint64_t)size))
            return report_oob(c, op, p[i], size, "");
        if (p[i] & (uint64_t)(size - 1)) { /* sizes are powers of two */
            char what[96];
            snprintf(what, sizeof what, "misaligned %s of %d bytes at 0x%llx",
                     access_name(op->code), size, (unsigned long long)p[i]);
            return interp_fail(c, op, what, "the address is not a multiple of %d", size);
        }
    }
    return 0;
}

#define ACTIVE(i) (!mask || (mask[(i)*mstride] & 1))
#define MEM(a) ((void *)(uintptr_t)(a))

/* ---- load ---- */

#define LD(CT, SET)                      \
    for (int64_t i = 0; i < n; i++) {    \
        if (!ACTIVE(i)) continue;        \
        CT v;                            \
        memcpy(&v, MEM(p[i]), sizeof v); \
        SET;                             \
    }                                    \
    break

static void load_lanes(int pe, const uint64_t *p, const uint64_t *mask, int64_t mstride, int64_t n,
                       void *r) {
    uint64_t *ur = r;
    double *fr = r;
    switch (pe) {
    case DT_I1: LD(uint8_t, ur[i] = v != 0);
    case DT_I8: LD(int8_t, ur[i] = (uint64_t)(int64_t)v);
    case DT_I16: LD(int16_t, ur[i] = (uint64_t)(int64_t)v);
    case DT_I32: LD(int32_t, ur[i] = (uint64_t)(int64_t)v);
    case DT_U8: LD(uint8_t, ur[i] = v);
    case DT_U16: LD(uint16_t, ur[i] = v);
    case DT_U32: LD(uint32_t, ur[i] = v);
    case DT_FP16: LD(uint16_t, fr[i] = fp16_to_double(v));
    case DT_BF16: LD(uint16_t, fr[i] = bf16_to_double(v));
    case DT_FP8E4NV:
    case DT_FP8E5:
    case DT_FP8E4B15:
    case DT_FP8E4B8:
    case DT_FP8E5B16: LD(uint8_t, fr[i] = fp8_to_double(fp8_format(pe), v));
    case DT_FP32: LD(float, fr[i] = v);
    case DT_FP64: LD(double, fr[i] = v);
    default: LD(uint64_t, ur[i] = v); /* i64, u64, ptr */
    }
}

static int do_load(Ctx *c, const IrOp *op) {
    int pe = res_ty(c, op, 0).dt;
    int64_t n = ty_numel(res_ty(c, op, 0));
    const uint64_t *p = interp_val_in(c, op, 0), *mask = NULL;
    const char *other = NULL;
    if (!p) return -1;
    if (op->nopnds > 1 && !(mask = interp_val_in(c, op, 1))) return -1;
    if (op->nopnds > 2 && !(other = interp_val_in(c, op, 2))) return -1;
    int64_t mstride = mask && ty_numel(opnd_ty(c, op, 1)) > 1;
    int64_t ostride = other && ty_numel(opnd_ty(c, op, 2)) > 1;
    if (check_lanes(c, op, p, mask, mstride, n, dt_bytes(pe))) return -1;
    char *r = interp_val_out(c, op, 0);
    if (!r) return -1;
    if (mask) /* masked lanes give other, or 0 (0.0 for floats: both all-zero bits) */
        for (int64_t i = 0; i < n; i++) {
            if (ACTIVE(i)) continue;
            if (other) memcpy(r + 8 * i, other + 8 * i * ostride, 8);
            else if (dt_is_float(pe)) ((double *)r)[i] = 0.0;
            else ((uint64_t *)r)[i] = 0;
        }
    load_lanes(pe, p, mask, mstride, n, r);
    return 0;
}

/* ---- store ---- */

#define ST(CT, EXPR)                     \
    for (int64_t i = 0; i < n; i++) {    \
        if (!ACTIVE(i)) continue;        \
        CT v = (CT)(EXPR);               \
        memcpy(MEM(p[i]), &v, sizeof v); \
    }                                    \
    break

static void store_lanes(int pe, const uint64_t *p, const uint64_t *mask, int64_t mstride, int64_t n,
                        const void *val, int64_t vs) {
    const uint64_t *u = val;
    const double *f = val;
    switch (pe) {
    case DT_I1:
    case DT_I8:
    case DT_U8: ST(uint8_t, u[i * vs]); /* i1 is already 0 or 1 */
    case DT_I16:
    case DT_U16: ST(uint16_t, u[i * vs]);
    case DT_I32:
    case DT_U32: ST(uint32_t, u[i * vs]);
    case DT_FP16: ST(uint16_t, fp16_from_double(f[i * vs]));
    case DT_BF16: ST(uint16_t, bf16_from_double(f[i * vs]));
    case DT_FP8E4NV:
    case DT_FP8E5:
    case DT_FP8E4B15:
    case DT_FP8E4B8:
    case DT_FP8E5B16: ST(uint8_t, fp8_bits(fp8_format(pe), f[i * vs]));
    case DT_FP32: ST(float, f[i * vs]);
    case DT_FP64: ST(double, f[i * vs]);
    default: ST(uint64_t, u[i * vs]);
    }
}

static int do_store(Ctx *c, const IrOp *op) {
    int pe = opnd_ty(c, op, 0).pointee;
    int64_t n = ty_numel(opnd_ty(c, op, 0));
    const uint64_t *p = interp_val_in(c, op, 0), *mask = NULL;
    const void *val = interp_val_in(c, op, 1);
    if (!p || !val) return -1;
    if (op->nopnds > 2 && !(mask = interp_val_in(c, op, 2))) return -1;
    int64_t mstride = mask && ty_numel(opnd_ty(c, op, 2)) > 1;
    int64_t vs = ty_numel(opnd_ty(c, op, 1)) > 1;
    if (check_lanes(c, op, p, mask, mstride, n, dt_bytes(pe))) return -1;
    store_lanes(pe, p, mask, mstride, n, val, vs);
    return 0;
}

/* ---- atomics: one lane at a time through 8-byte element cells ---- */

typedef union Elem {
    uint64_t u;
    double f;
} Elem;

/* One lane through the same conversions as load and store. */
static Elem read_elem(int dt, uint64_t addr) {
    Elem e;
    load_lanes(dt, &addr, NULL, 0, 1, &e);
    return e;
}

static void write_elem(int dt, uint64_t addr, Elem e) { store_lanes(dt, &addr, NULL, 0, 1, &e, 0); }

/* fp32/fp64 atomic max (min), ir_ops.def: -0.0 below +0.0; a NaN value changes nothing; a
 * NaN in memory stays when its sign bit is clear for max (set for min), else gives way. */
static double atomic_minmax(bool max, double old, double v) {
    if (v != v) return old;
    if (old != old) return (signbit(old) != 0) == !max ? old : v;
    bool above = v > old || (v == old && signbit(old) && !signbit(v));
    bool below = v < old || (v == old && !signbit(old) && signbit(v));
    return (max ? above : below) ? v : old;
}

static Elem rmw_float(int kind, int dt, Elem old, Elem v) {
    Elem r = v;
    bool wide = dt == DT_FP32 || dt == DT_FP64; /* 16-bit: the GPU's compare-and-swap loop */
    if (kind == RMW_ADD) r.f = float_round(dt, old.f + v.f);
    else if (kind == RMW_MAX) r.f = wide ? atomic_minmax(true, old.f, v.f) : nr_fmax(old.f, v.f);
    else if (kind == RMW_MIN) r.f = wide ? atomic_minmax(false, old.f, v.f) : nr_fmin(old.f, v.f);
    return r;
}

static Elem rmw_int(int kind, int dt, Elem old, Elem v) {
    IntFmt F = int_fmt(dt);
    uint64_t x = old.u, y = v.u;
    bool lt = F.is_signed ? as_i64(y) < as_i64(x) : y < x;
    switch (kind) {
    case RMW_ADD: x = int_norm(F, x + y); break;
    case RMW_MAX: x = lt ? x : y; break;
    case RMW_MIN: x = lt ? y : x; break;
    case RMW_AND: x &= y; break;
    case RMW_OR: x |= y; break;
    case RMW_XOR: x ^= y; break;
    default: x = y; break; /* xchg */
    }
    old.u = x;
    return old;
}

static int do_atomic(Ctx *c, const IrOp *op) {
    int pe = opnd_ty(c, op, 0).pointee;
    int64_t n = ty_numel(opnd_ty(c, op, 0));
    bool cas = op->code == OP_ATOMIC_CAS;
    const uint64_t *p = interp_val_in(c, op, 0), *mask = NULL;
    const Elem *v1 = interp_val_in(c, op, 1), *v2 = cas ? interp_val_in(c, op, 2) : NULL;
    if (!p || !v1 || (cas && !v2)) return -1;
    if (!cas && op->nopnds > 2 && !(mask = interp_val_in(c, op, 2))) return -1;
    int64_t mstride = mask && ty_numel(opnd_ty(c, op, 2)) > 1;
    int64_t s1 = ty_numel(opnd_ty(c, op, 1)) > 1, s2 = cas && ty_numel(opnd_ty(c, op, 2)) > 1;
    if (check_lanes(c, op, p, mask, mstride, n, dt_bytes(pe))) return -1;
    Elem *r = interp_val_out(c, op, 0);
    if (!r) return -1;
    for (int64_t i = 0; i < n; i++) {
        r[i].u = 0;
        if (!ACTIVE(i)) continue; /* masked lanes read nothing and give 0 */
        Elem old = read_elem(pe, p[i]), nv;
        if (cas) /* compares bit patterns, like the hardware */
            nv = elem_bits(pe, &old, 0) == elem_bits(pe, v1, i * s1) ? v2[i * s2] : old;
        else if (dt_is_float(pe)) nv = rmw_float((int)op->attr[0], pe, old, v1[i * s1]);
        else nv = rmw_int((int)op->attr[0], pe, old, v1[i * s1]);
        write_elem(pe, p[i], nv);
        r[i] = old;
    }
    return 0;
}

int interp_mem(Ctx *c, const IrOp *op) {
    switch (op->code) {
    case OP_LOAD: return do_load(c, op);
    case OP_STORE: return do_store(c, op);
    default: return do_atomic(c, op);
    }
}
