/* interp.c - the CPU interpreter's core: the buffer pool and value store, error
 * messages, region execution with structured control flow (for, if, while and their
 * terminators) and the launch loop over the grid. The op handlers live in
 * interp_math.c, interp_shape.c, interp_dot.c, interp_mem.c and interp_debug.c; the
 * liveness plan and structure checks in interp_plan.c. */
#include "interp_impl.h"

#include <stdarg.h>
#include <stdlib.h>

/* ---- messages ---- */

void interp_msg(Ctx *c, const char *fmt, ...) {
    if (!c->err) return;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(c->err, fmt, ap);
    va_end(ap);
}

void interp_where(Ctx *c, const IrOp *op, bool at) {
    interp_msg(c, " in kernel '%s'", c->f->name);
    if (op && op->loc.src)
        interp_msg(c, at ? " at %s:%d:%d" : " (%s:%d:%d)", op->loc.src->name, op->loc.line,
                   op->loc.col);
    interp_msg(c, ", program (%u, %u, %u)", c->pid[0], c->pid[1], c->pid[2]);
}

int interp_fail(Ctx *c, const IrOp *op, const char *what, const char *fmt, ...) {
    c->failed = true;
    interp_msg(c, "%s", what);
    interp_where(c, op, false);
    if (c->err && fmt && *fmt) {
        sb_puts(c->err, ": ");
        va_list ap;
        va_start(ap, fmt);
        sb_vprintf(c->err, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- the pool: a 16-byte header before each buffer records its class and links
 * free buffers, so a buffer can be put back without knowing its value ---- */

typedef struct BufHdr {
    struct BufHdr *next;
    uint64_t cls;
} BufHdr;

void *interp_pool_get(Ctx *c, int64_t numel) {
    unsigned cls = 0;
    while (cls < POOL_CLASSES - 1 && (INT64_C(1) << cls) < numel) cls++;
    BufHdr *h = c->pool.free[cls];
    if (h) {
        c->pool.free[cls] = h->next;
    } else {
        h = malloc(sizeof(BufHdr) + ((size_t)8 << cls));
        if (!h) {
            c->failed = true;
            interp_msg(c, "interpreter out of memory in kernel '%s'", c->f->name);
            return NULL;
        }
        h->cls = cls;
    }
    return h + 1;
}

void interp_pool_put(Ctx *c, void *buf) {
    if (!buf) return;
    BufHdr *h = (BufHdr *)buf - 1;
    h->next = c->pool.free[h->cls];
    c->pool.free[h->cls] = h;
}

static void pool_destroy(Pool *p) {
    for (int k = 0; k < POOL_CLASSES; k++)
        for (BufHdr *h = p->free[k], *next; h; h = next) {
            next = h->next;
            free(h);
        }
}

/* ---- values ---- */

void *interp_val_in(Ctx *c, const IrOp *op, uint32_t i) {
    void *b = c->slot[op->operands[i]];
    if (!b)
        interp_fail(c, op, "internal error: an operand is not live", "op '%s' operand %u",
                    ir_op_info[op->code].name, i);
    return b;
}

/* A value's buffer: one 8-byte slot per element; a descriptor's holds its parts. */
static int64_t val_slots(IrType t) { return ty_is_tdesc(t) ? 2 + 2 * t.rank : ty_numel(t); }

static void *val_new(Ctx *c, ValId v) {
    void *b = interp_pool_get(c, val_slots(val_ty(c, v)));
    if (!b) return NULL;
    interp_pool_put(c, c->slot[v]);
    c->slot[v] = b;
    return b;
}

void *interp_val_out(Ctx *c, const IrOp *op, uint32_t i) { return val_new(c, op->results[i]); }

static void val_release(Ctx *c, ValId v) {
    interp_pool_put(c, c->slot[v]);
    c->slot[v] = NULL;
}

/* A fresh unbound copy of a live value's buffer. */
static void *val_copy(Ctx *c, const IrOp *op, ValId v) {
    if (!c->slot[v]) {
        interp_fail(c, op, "internal error: a value is not live", "op '%s'",
                    ir_op_info[op->code].name);
        return NULL;
    }
    int64_t n = ty_numel(val_ty(c, v));
    void *b = interp_pool_get(c, n);
    if (b) memcpy(b, c->slot[v], (size_t)n * 8);
    return b;
}

static void release_list(Ctx *c, const ValId *vs, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) val_release(c, vs[i]);
}

/* ---- regions and control flow ---- */

static int exec_region(Ctx *c, RegionId r, void **outs, bool *cond);

/* Hands buffers to the arguments of region r (or results of op, when r is 0). */
static void bind_all(Ctx *c, const ValId *vals, void **bufs, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        interp_pool_put(c, c->slot[vals[i]]);
        c->slot[vals[i]] = bufs[i];
        bufs[i] = NULL;
    }
}

/* Copies the operands [first, first + n) of op into bufs. */
static int copy_operands(Ctx *c, const IrOp *op, uint32_t first, uint32_t n, void **bufs) {
    for (uint32_t i = 0; i < n; i++)
        if (!(bufs[i] = val_copy(c, op, op->operands[first + i]))) return -1;
    return 0;
}

/* A for loop's induction variable: values are kept in 64 bits (int64 for signed
 * dtypes, uint64 otherwise) and the loop stops rather than wrap. */
static bool for_continues(uint64_t iv, uint64_t ub, uint64_t step, bool sgn) {
    if (!sgn) return step != 0 && iv < ub;
    int64_t s = as_i64(step);
    if (s > 0) return as_i64(iv) < as_i64(ub);
    if (s < 0) return as_i64(iv) > as_i64(ub);
    return false;
}

static bool for_step(uint64_t *iv, uint64_t step, bool sgn) {
    if (!sgn) {
        if (*iv > UINT64_MAX - step) return false;
        *iv += step;
        return true;
    }
    int64_t i = as_i64(*iv), s = as_i64(step);
    if ((s > 0 && i > INT64_MAX - s) || (s < 0 && i < INT64_MIN - s)) return false;
    *iv = (uint64_t)(i + s);
    return true;
}

static int exec_for(Ctx *c, OpId id) {
    const IrOp *op = &c->f->ops[id];
    const IrRegion *body = &c->f->regions[op->region[0]];
    void **pend = c->pend + c->pend_start[id];
    uint32_t n = op->nres;
    const uint64_t *lb = interp_val_in(c, op, 0), *ub = interp_val_in(c, op, 1),
                   *st = interp_val_in(c, op, 2);
    if (!lb || !ub || !st) return -1;
    bool sgn = dt_is_signed(opnd_ty(c, op, 0).dt);
    uint64_t iv = lb[0], upper = ub[0], step = st[0];
    if (copy_operands(c, op, 3, n, pend)) return -1;
    while (for_continues(iv, upper, step, sgn)) {
        uint64_t *ivbuf = val_new(c, body->args[0]);
        if (!ivbuf) return -1;
        ivbuf[0] = iv;
        bind_all(c, body->args + 1, pend, n);
        if (exec_region(c, op->region[0], pend, NULL)) return -1;
        if (!for_step(&iv, step, sgn)) break;
    }
    bind_all(c, op->results, pend, n);
    return 0;
}

static int exec_if(Ctx *c, OpId id) {
    const IrOp *op = &c->f->ops[id];
    const uint64_t *cond = interp_val_in(c, op, 0);
    if (!cond) return -1;
    RegionId r = (cond[0] & 1) ? op->region[0] : op->nregions > 1 ? op->region[1] : 0;
    void **pend = c->pend + c->pend_start[id];
    if (r && exec_region(c, r, pend, NULL)) return -1;
    bind_all(c, op->results, pend, op->nres);
    return 0;
}

static int exec_while(Ctx *c, OpId id) {
    const IrOp *op = &c->f->ops[id];
    const IrRegion *before = &c->f->regions[op->region[0]];
    const IrRegion *after = &c->f->regions[op->region[1]];
    void **pend = c->pend + c->pend_start[id];
    uint32_t n = op->nopnds;
    if (copy_operands(c, op, 0, n, pend)) return -1;
    uint64_t limit = c->opts ? c->opts->coop_spin_limit : 0, iters = 0;
    if ((uint64_t)c->grid[0] * c->grid[1] * c->grid[2] < 2) limit = 0;
    for (;;) {
        bool go = false;
        if (limit && ++iters > limit)
            return interp_fail(c, op, "cooperative launch",
                               "a while loop ran %llu iterations: the interpreter runs a "
                               "cooperative grid's programs one after another, so a program "
                               "waiting for another (a grid barrier) cannot finish here; run "
                               "it on a GPU",
                               (unsigned long long)limit);
        bind_all(c, before->args, pend, n);
        if (exec_region(c, op->region[0], pend, &go)) return -1;
        if (!go) break;
        bind_all(c, after->args, pend, n);
        if (exec_region(c, op->region[1], pend, NULL)) return -1;
    }
    bind_all(c, op->results, pend, op->nres);
    return 0;
}

/* yield: hands its operands to the parent op, moving a buffer when this is the value's
 * last use (and its last occurrence here), copying otherwise. */
static int exec_yield(Ctx *c, OpId id, void **outs) {
    const IrOp *op = &c->f->ops[id];
    for (uint32_t i = 0; i < op->nopnds; i++) {
        ValId v = op->operands[i];
        bool last = c->release_at[v] == id && c->slot[v];
        for (uint32_t j = i + 1; j < op->nopnds && last; j++) last = op->operands[j] != v;
        if (last) {
            outs[i] = c->slot[v];
            c->slot[v] = NULL;
        } else if (!(outs[i] = val_copy(c, op, v))) {
            return -1;
        }
    }
    return 0;
}

/* condition (in a while's first region): the region's arguments go on, as the results
 * or the second region's arguments; the plan keeps them live up to here. */
static int exec_condition(Ctx *c, OpId id, void **outs, bool *go) {
    const IrOp *op = &c->f->ops[id];
    const uint64_t *cv = interp_val_in(c, op, 0);
    if (!cv) return -1;
    *go = cv[0] & 1;
    const IrRegion *r = &c->f->regions[c->op_region[id]];
    for (uint32_t i = 0; i < r->nargs; i++) {
        if (!(outs[i] = c->slot[r->args[i]]))
            return interp_fail(c, op, "internal error", "dead while argument");
        c->slot[r->args[i]] = NULL;
    }
    return 0;
}

static int exec_op(Ctx *c, OpId id, void **outs, bool *cond) {
    const IrOp *op = &c->f->ops[id];
    if (op->code >= OP_ADD && op->code <= OP_ADDPTR) return interp_math(c, op);
    switch (op->code) {
    case OP_FOR: return exec_for(c, id);
    case OP_IF: return exec_if(c, id);
    case OP_WHILE: return exec_while(c, id);
    case OP_YIELD: return exec_yield(c, id, outs);
    case OP_CONDITION: return exec_condition(c, id, outs, cond);
    case OP_RETURN: return 0;
    case OP_CONST:
    case OP_ARANGE:
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS:
    case OP_SPLAT:
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
    case OP_RESHAPE:
    case OP_TRANS:
    case OP_REDUCE:
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS:
    case OP_MAX_CONSTANCY:
    case OP_CONVERT_LAYOUT: return interp_shape(c, op);
    case OP_BARRIER: return 0; /* programs run one at a time: nothing to wait for */
    case OP_SMID:              /* one multiprocessor: 0 */
    case OP_GLOBALTIMER: {     /* the host's monotonic clock, in nanoseconds */
        uint64_t *r = interp_val_out(c, &c->f->ops[id], 0);
        if (!r) return -1;
        r[0] = c->f->ops[id].code == OP_SMID ? 0 : (uint64_t)(clock_now_ms() * 1e6);
        return 0;
    }
    case OP_DESC_PART: {
        const uint64_t *d = interp_val_in(c, &c->f->ops[id], 0);
        uint64_t *r = interp_val_out(c, &c->f->ops[id], 0);
        if (!d || !r) return -1;
        r[0] = d[c->f->ops[id].attr[0]];
        return 0;
    }
    case OP_DOT: return interp_dot(c, op);
    case OP_LOAD:
    case OP_STORE:
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: return interp_mem(c, op);
    case OP_ASSERT:
    case OP_PRINT: return interp_debug(c, op);
    case OP_SCAN:
    case OP_REDUCE_FN: return interp_combine(c, op);
    case OP_FLIP:
    case OP_SORT:
    case OP_GATHER:
    case OP_HISTOGRAM: return interp_perm(c, op);
    case OP_ASSUME: return 0; /* a fact for the optimiser; not checked */
    case OP_CALL:             /* the plan rejects calls before anything runs */
    default:
        return interp_fail(c, op, "internal error: unexpected op", "'%s'",
                           op->code < OP_COUNT ? ir_op_info[op->code].name : "?");
    }
}

static int exec_region(Ctx *c, RegionId r, void **outs, bool *cond) {
    release_list(c, c->entry_rel + c->entry_start[r], c->entry_start[r + 1] - c->entry_start[r]);
    const IrRegion *reg = &c->f->regions[r];
    for (uint32_t i = 0; i < reg->nops; i++) {
        OpId id = reg->ops[i];
        if (exec_op(c, id, outs, cond)) return -1;
        release_list(c, c->rel + c->rel_start[id], c->rel_start[id + 1] - c->rel_start[id]);
        if (ir_op_info[c->f->ops[id].code].flags & F_TERM) break;
    }
    return 0;
}

int interp_exec_region(Ctx *c, RegionId r, void **outs) { return exec_region(c, r, outs, NULL); }
void interp_bind(Ctx *c, const ValId *vals, void **bufs, uint32_t n) { bind_all(c, vals, bufs, n); }

/* ---- the launch ---- */

/* Binds the kernel parameters for one program: ints normalised, floats rounded. */
static int bind_params(Ctx *c, const InterpScalar *args) {
    const IrRegion *body = &c->f->regions[c->f->body];
    for (uint32_t i = 0; i < body->nargs; i++) {
        ValId v = body->args[i];
        IrType t = val_ty(c, v);
        void *b = val_new(c, v);
        if (!b) return -1;
        if (ty_is_tdesc(t)) {
            memcpy(b, args[i].desc, sizeof(int64_t) * (size_t)val_slots(t));
            continue;
        }
        for (int64_t k = 0; k < ty_numel(t); k++) {
            if (dt_is_float(t.dt)) ((double *)b)[k] = float_round(t.dt, args[i].f);
            else if (t.dt == DT_I1) ((uint64_t *)b)[k] = args[i].u != 0;
            else ((uint64_t *)b)[k] = int_norm(int_fmt(t.dt), args[i].u);
        }
    }
    return 0;
}

static int run_grid(Ctx *c, const InterpScalar *args) {
    for (unsigned z = 0; z < c->grid[2]; z++)
        for (unsigned y = 0; y < c->grid[1]; y++)
            for (unsigned x = 0; x < c->grid[0]; x++) {
                c->pid[0] = x, c->pid[1] = y, c->pid[2] = z;
                if (bind_params(c, args) || exec_region(c, c->f->body, NULL, NULL)) return -1;
            }
    return 0;
}

static void ctx_free(Ctx *c) {
    if (c->slot)
        for (uint32_t v = 0; v < c->f->nvals; v++) interp_pool_put(c, c->slot[v]);
    if (c->pend)
        for (uint32_t i = 0; i < c->npend; i++) interp_pool_put(c, c->pend[i]);
    free(c->slot);
    interp_plan_free(c);
    interp_mem_free(c);
    pool_destroy(&c->pool);
}

int interp_run(const IrFunc *f, const InterpScalar *args, const unsigned grid[3],
               const InterpOptions *opts, StrBuf *err) {
    static const InterpOptions no_opts;
    Ctx ctx, *c = &ctx;
    memset(c, 0, sizeof *c);
    c->f = f;
    c->opts = opts ? opts : &no_opts;
    c->err = err;
    if (!f || !grid) {
        if (err) sb_puts(err, "interp_run: no kernel or no grid");
        return -1;
    }
    if (!args && f->regions[f->body].nargs) {
        interp_msg(c, "interp_run: kernel '%s' takes %u arguments, none given", f->name,
                   f->regions[f->body].nargs);
        return -1;
    }
    for (int i = 0; i < 3; i++) c->grid[i] = grid[i];
    int rc = -1;
    c->slot = calloc(f->nvals, sizeof *c->slot);
    if (!c->slot) interp_msg(c, "interpreter out of memory in kernel '%s'", f->name);
    else if (interp_plan(c) == 0 && interp_mem_init(c, args) == 0) rc = run_grid(c, args);
    ctx_free(c);
    return rc;
}
