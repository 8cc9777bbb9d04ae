/* inline.c - inlines every call, then drops the helper functions.
 *
 * requires:  a verified module (every call names a function of the module with the
 *            matching signature).
 * maintains: verification; the order of side effects (a callee's ops land exactly at
 *            the call site, in order).
 * breaks:    removes every non-kernel function from the module; a module with a call
 *            cycle or a missing callee is rejected with a diagnostic (sema rejects
 *            recursion, but this pass must not loop if it slips through).
 *
 * A call in a kernel is replaced by a clone of the callee's body without its return
 * (ir_clone_op, params mapped to the call's operands); the return's values replace the
 * call's results. Calls cloned in from a callee are inlined by the next sweep; the call
 * graph is acyclic, so sweeps end. Only kernels are inlined into (the helpers are
 * dropped), and each kernel's size after inlining is checked first. */
#include "passes.h"
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_OPS = 1 << 20 }; /* ops in a function after inlining: sema's limit for one function */

typedef struct Pair {
    ValId from, to;
} Pair;

typedef struct Inliner {
    IrModule *m;
    IrFunc *f;
    Pair *pairs; /* call results and the values replacing them */
    uint32_t npairs, cappairs;
    uint32_t inlined;
} Inliner;

/* ---- the call graph must be acyclic ---- */

typedef struct Graph {
    IrModule *m;
    const NameMap *idx; /* function name -> its index + 1 */
    Diag *d;
    uint8_t *color; /* per function index: 0 new, 1 on the DFS stack, 2 done */
} Graph;

static int func_index(const NameMap *idx, const char *name) {
    void *p = name ? namemap_get(idx, name) : NULL;
    return p ? (int)((intptr_t)p - 1) : -1;
}

static bool visit_func(Graph *G, int fi);

static bool visit_region(Graph *G, IrFunc *f, RegionId r) {
    for (uint32_t i = 0; i < ir_region(f, r)->nops; i++) {
        IrOp *op = ir_op(f, ir_region(f, r)->ops[i]);
        for (uint32_t j = 0; j < op->nregions; j++)
            if (!visit_region(G, f, op->region[j])) return false;
        if (op->code != OP_CALL) continue;
        int g = func_index(G->idx, op->sattr);
        if (g < 0) {
            diag_error(G->d, op->loc, "call to unknown function '%s'", op->sattr ? op->sattr : "");
            return false;
        }
        if (G->color[g] == 1) {
            diag_error(G->d, op->loc, "recursive call to '%s' cannot be inlined", op->sattr);
            return false;
        }
        if (!visit_func(G, g)) return false;
    }
    return true;
}

static bool visit_func(Graph *G, int fi) {
    if (G->color[fi]) return true;
    G->color[fi] = 1;
    IrFunc *f = G->m->funcs[fi];
    bool ok = visit_region(G, f, f->body);
    G->color[fi] = 2;
    return ok;
}

static bool call_graph_acyclic(IrModule *m, const NameMap *idx, Diag *d) {
    Graph G = {m, idx, d, calloc(m->nfuncs ? m->nfuncs : 1, 1)};
    if (!G.color) NR_DIE("out of memory");
    bool ok = true;
    for (uint32_t i = 0; ok && i < m->nfuncs; i++) ok = visit_func(&G, (int)i);
    free(G.color);
    return ok;
}

/* ---- the size after inlining, known before inlining ---- */

/* Ops of f once every call in it is inlined, saturating: helpers that each call the one
 * before twice double at every level, so the size is checked before any work is done
 * (an exponential call tree is refused at once, not after gigabytes). memo: per function
 * index, 0 for unknown. The call graph is acyclic (checked first). */
static uint64_t inlined_size(IrModule *m, const NameMap *idx, int fi, uint64_t *memo);

static uint64_t region_size(IrModule *m, const NameMap *idx, IrFunc *f, RegionId r,
                            uint64_t *memo) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < ir_region(f, r)->nops && n <= MAX_OPS; i++) {
        IrOp *op = ir_op(f, ir_region(f, r)->ops[i]);
        n += 1;
        for (uint32_t j = 0; j < op->nregions; j++)
            n += region_size(m, idx, f, op->region[j], memo);
        if (op->code == OP_CALL) n += inlined_size(m, idx, func_index(idx, op->sattr), memo);
    }
    return n;
}

static uint64_t inlined_size(IrModule *m, const NameMap *idx, int fi, uint64_t *memo) {
    if (fi < 0) return 0;
    if (!memo[fi]) {
        IrFunc *f = m->funcs[fi];
        uint64_t n = region_size(m, idx, f, f->body, memo);
        memo[fi] = n > MAX_OPS ? MAX_OPS + 1 : n ? n : 1;
    }
    return memo[fi];
}

static bool sizes_fit(IrModule *m, const NameMap *idx, Diag *d) {
    uint64_t *memo = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *memo);
    if (!memo) NR_DIE("out of memory");
    bool ok = true;
    for (uint32_t i = 0; ok && i < m->nfuncs; i++) {
        if (!m->funcs[i]->is_kernel || inlined_size(m, idx, (int)i, memo) <= MAX_OPS) continue;
        diag_error(
            d, m->funcs[i]->loc,
            "'%s' is too large once its helper calls are inlined: more than %d IR operations",
            m->funcs[i]->name, MAX_OPS);
        ok = false;
    }
    free(memo);
    return ok;
}

/* ---- inlining ---- */

static void add_pair(Inliner *I, ValId from, ValId to) {
    if (I->npairs == I->cappairs) {
        I->cappairs = I->cappairs ? 2 * I->cappairs : 16;
        I->pairs = realloc(I->pairs, sizeof(Pair) * I->cappairs);
        if (!I->pairs) NR_DIE("out of memory");
    }
    I->pairs[I->npairs++] = (Pair){from, to};
}

/* Clones g's body, all but its return, onto the end of region r. */
static void inline_call(Inliner *I, RegionId r, OpId call) {
    IrFunc *f = I->f, *g = ir_module_find(I->m, ir_op(f, call)->sattr);
    ValId *map = calloc(g->nvals, sizeof(ValId));
    if (!map) NR_DIE("out of memory");
    IrRegion *params = ir_region(g, g->body);
    for (uint32_t i = 0; i < params->nargs; i++) map[params->args[i]] = ir_op(f, call)->operands[i];
    uint32_t n = ir_region(g, g->body)->nops;
    for (uint32_t i = 0; i + 1 < n; i++) ir_clone_op(f, r, g, ir_region(g, g->body)->ops[i], map);
    IrOp *ret = ir_op(g, ir_region(g, g->body)->ops[n - 1]);
    for (uint32_t i = 0; i < ir_op(f, call)->nres; i++)
        add_pair(I, ir_op(f, call)->results[i], map[ret->operands[i]]);
    free(map);
    I->inlined++;
}

/* Rebuilds region r's list in place: ops are re-appended, calls replaced by bodies. */
static void inline_region(Inliner *I, RegionId r) {
    IrFunc *f = I->f;
    uint32_t n;
    OpId *ops = ir_region_copy_ops(f, r, &n);
    ir_region(f, r)->nops = 0;
    for (uint32_t i = 0; i < n; i++) {
        OpId id = ops[i];
        if (ir_op(f, id)->code == OP_CALL) {
            inline_call(I, r, id);
            continue;
        }
        ir_region_append(f, r, id);
        for (uint32_t j = 0; j < ir_op(f, id)->nregions; j++)
            inline_region(I, ir_op(f, id)->region[j]);
    }
    free(ops);
}

/* One sweep over f; returns how many calls it inlined. */
static uint32_t inline_sweep(IrModule *m, IrFunc *f) {
    Inliner I = {m, f, NULL, 0, 0, 0};
    inline_region(&I, f->body);
    ValId *repl = ir_repl_new(f);
    for (uint32_t i = 0; i < I.npairs; i++) repl[I.pairs[i].from] = I.pairs[i].to;
    ir_replace_all_uses(f, repl);
    free(repl);
    free(I.pairs);
    return I.inlined;
}

bool pass_inline(IrModule *m, Diag *d) {
    NameMap idx;
    namemap_init(&idx, m->arena);
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (!namemap_get(&idx, m->funcs[i]->name))
            namemap_put(&idx, m->funcs[i]->name, (void *)(intptr_t)(i + 1));
    if (!call_graph_acyclic(m, &idx, d) || !sizes_fit(m, &idx, d)) return false;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        IrFunc *f = m->funcs[i];
        if (!f->is_kernel) continue; /* helpers are dropped below: inlining into them is wasted */
        /* each sweep removes one level of the (acyclic) call graph */
        for (uint32_t sweep = 0; inline_sweep(m, f); sweep++)
            if (sweep > m->nfuncs || f->nops > MAX_OPS) {
                diag_error(d, f->loc, "inlining into '%s' does not finish", f->name);
                return false;
            }
    }
    ir_module_drop_helpers(m);
    return true;
}
