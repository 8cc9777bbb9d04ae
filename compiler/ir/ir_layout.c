/* ir_layout.c - the IR's layouts: interning, checks, text form, and each kind's linear
 * map (the meaning of every kind is in ir_layout.h). */
#include "ir_layout.h"

#include <stddef.h>
#include <string.h>

static int log2i(int64_t x) {
    int k = 0;
    while (((int64_t)1 << k) < x) k++;
    return k;
}

static bool pow2(int64_t x) { return x >= 1 && (x & (x - 1)) == 0; }

/* ---- interning ---- */

bool ir_layout_equal(const IrLayout *a, const IrLayout *b) {
    if (a->kind != b->kind || a->rank != b->rank) return false;
    switch (a->kind) {
    case LAYOUT_SLICE: return a->dim == b->dim && a->parent == b->parent;
    case LAYOUT_MMA:
        return a->version == b->version && a->wpc[0] == b->wpc[0] && a->wpc[1] == b->wpc[1] &&
               a->instr_n == b->instr_n;
    case LAYOUT_DOT_OP:
        return a->op_idx == b->op_idx && a->parent == b->parent && a->k_width == b->k_width;
    case LAYOUT_LINEAR:
        return a->lin == b->lin || (a->lin && b->lin && !memcmp(a->lin, b->lin, sizeof *a->lin));
    case LAYOUT_SHARED:
        if (a->vec != b->vec || a->per_phase != b->per_phase || a->max_phase != b->max_phase ||
            a->atom != b->atom)
            return false;
        for (int i = 0; i < a->rank; i++)
            if (a->order[i] != b->order[i]) return false;
        return true;
    default:
        for (int i = 0; i < a->rank; i++)
            if (a->spt[i] != b->spt[i] || a->tpw[i] != b->tpw[i] || a->wpc[i] != b->wpc[i] ||
                a->order[i] != b->order[i])
                return false;
        return true;
    }
}

/* A copy with every field the kind does not use cleared, so equal layouts are equal bytes. */
static IrLayout canonical(const IrLayout *l) {
    IrLayout c;
    memset(&c, 0, sizeof c);
    c.kind = l->kind, c.rank = l->rank;
    switch (l->kind) {
    case LAYOUT_SLICE: c.dim = l->dim, c.parent = l->parent; break;
    case LAYOUT_MMA:
        c.version = l->version, c.wpc[0] = l->wpc[0], c.wpc[1] = l->wpc[1], c.instr_n = l->instr_n;
        break;
    case LAYOUT_DOT_OP: c.op_idx = l->op_idx, c.parent = l->parent, c.k_width = l->k_width; break;
    case LAYOUT_LINEAR: c.lin = l->lin; break;
    case LAYOUT_SHARED:
        c.vec = l->vec, c.per_phase = l->per_phase, c.max_phase = l->max_phase, c.atom = l->atom;
        memcpy(c.order, l->order, sizeof c.order);
        break;
    default:
        memcpy(c.spt, l->spt, sizeof c.spt), memcpy(c.tpw, l->tpw, sizeof c.tpw);
        memcpy(c.wpc, l->wpc, sizeof c.wpc), memcpy(c.order, l->order, sizeof c.order);
    }
    return c;
}

uint32_t ir_layout_intern(IrModule *m, const IrLayout *l) {
    for (uint32_t i = 1; i < m->nlayouts; i++)
        if (ir_layout_equal(&m->layouts[i], l)) return i;
    return ir_layout_add(m, l);
}

uint32_t ir_layout_add(IrModule *m, const IrLayout *l) {
    if (m->nlayouts == 0) {
        IrLayout none;
        memset(&none, 0, sizeof none);
        VEC_PUSH(m->arena, m->layouts, m->nlayouts, m->caplayouts, none);
    }
    IrLayout c = canonical(l);
    if (c.kind == LAYOUT_LINEAR && c.lin) { /* the module keeps its own copy of the map */
        LinearLayout *own = arena_alloc(m->arena, sizeof *own);
        memcpy(own, c.lin, sizeof *own);
        c.lin = own;
    }
    VEC_PUSH(m->arena, m->layouts, m->nlayouts, m->caplayouts, c);
    return m->nlayouts - 1;
}

bool ir_layout_is_distributed(int kind) {
    return (kind >= LAYOUT_BLOCKED && kind <= LAYOUT_DOT_OP) || kind == LAYOUT_LINEAR;
}

uint32_t ir_layout_intern_linear(IrModule *m, const LinearLayout *lin) {
    IrLayout l;
    memset(&l, 0, sizeof l);
    l.kind = LAYOUT_LINEAR, l.rank = lin->rank, l.lin = lin;
    return ir_layout_intern(m, &l);
}

static bool valid_id(const IrModule *m, uint32_t id) { return id > 0 && id < m->nlayouts; }

/* ---- checks ---- */

static bool bad(StrBuf *why, const char *msg) {
    if (why) sb_puts(why, msg);
    return false;
}

static bool is_perm(const uint8_t *order, int rank) {
    unsigned seen = 0;
    for (int i = 0; i < rank; i++) {
        if (order[i] >= rank || (seen >> order[i] & 1)) return false;
        seen |= 1u << order[i];
    }
    return true;
}

static bool check_blocked(const IrLayout *l, IrType t, int num_warps, StrBuf *why) {
    if (l->rank < 1) return bad(why, "a blocked layout needs rank >= 1");
    int lanes = 1, warps = 1;
    for (int i = 0; i < l->rank; i++) {
        if (!pow2(l->spt[i]) || !pow2(l->tpw[i]) || !pow2(l->wpc[i]))
            return bad(why, "spt, tpw and wpc must be powers of two");
        lanes *= l->tpw[i], warps *= l->wpc[i];
    }
    if (lanes != 32) return bad(why, "tpw must multiply to 32 (the lanes of a warp)");
    if (num_warps > 0 && warps != num_warps) return bad(why, "wpc must multiply to the warp count");
    if (!is_perm(l->order, l->rank)) return bad(why, "order must be a permutation of the dims");
    (void)t;
    return true;
}

static bool check_mma(const IrLayout *l, int num_warps, StrBuf *why) {
    if (l->rank != 2) return bad(why, "an mma layout is for 2-D blocks");
    if (!pow2(l->wpc[0]) || !pow2(l->wpc[1])) return bad(why, "wpc must be powers of two");
    if (num_warps > 0 && l->wpc[0] * l->wpc[1] != num_warps)
        return bad(why, "wpc must multiply to the warp count");
    if (l->version == 2) {
        if (l->instr_n != 8) return bad(why, "mma version 2 has instr_n = 8 (mma.sync m16n8)");
        return true;
    }
    if (l->version != 3) return bad(why, "mma version must be 2 (mma.sync) or 3 (wgmma)");
    if (l->wpc[0] % 4)
        return bad(why, "mma version 3 needs warps along M in groups of 4 (warpgroups)");
    if (!pow2(l->instr_n) || l->instr_n < 8 || l->instr_n > 256)
        return bad(why, "instr_n must be a power of two from 8 to 256");
    return true;
}

static bool check_shared(const IrLayout *l, IrType t, StrBuf *why) {
    if (l->rank < 1) return bad(why, "a shared layout needs rank >= 1");
    if (!is_perm(l->order, l->rank)) return bad(why, "order must be a permutation of the dims");
    if (!pow2(l->vec) || !pow2(l->per_phase) || !pow2(l->max_phase))
        return bad(why, "vec, per_phase and max_phase must be powers of two");
    if (l->atom && !pow2(l->atom)) return bad(why, "atom must be 0 or a power of two");
    if (t.rank != l->rank) return true; /* the caller reports the rank */
    int row = t.shape[l->order[0]];
    if (l->atom && l->atom > row) return bad(why, "atom is larger than the contiguous dim");
    int panel = l->atom ? l->atom : row;
    if (l->max_phase > 1 && (l->rank < 2 || l->vec * l->max_phase > panel))
        return bad(why, "the swizzle (vec * max_phase) must fit in a row of the contiguous dim");
    return true;
}

/* A linear layout serves blocks of its shape, or smaller in some dims (whose higher
 * bits then hold copies); its 32 lanes and warps must be the CTA's and cover the block. */
static bool check_linear(const IrLayout *l, IrType t, int num_warps, StrBuf *why) {
    const LinearLayout *ll = l->lin;
    if (!ll || ll->rank != t.rank)
        return bad(why, "a linear layout's shape must have the block's rank");
    for (int d = 0; d < t.rank; d++)
        if (!pow2(t.shape[d]) || t.shape[d] > ((int64_t)1 << ll->log2shape[d]))
            return bad(why,
                       "a linear layout serves blocks of its shape or smaller (powers of two)");
    if (ll->nbits[LL_LANE] != 5) return bad(why, "a linear layout needs 5 lane bases (32 lanes)");
    if (num_warps > 0 && (1 << ll->nbits[LL_WARP]) != num_warps)
        return bad(why, "the layout's warps are not the CTA's");
    if (!ll_surjective(ll)) return bad(why, "a linear layout must hold every element of its shape");
    return true;
}

bool ir_layout_check(const IrModule *m, uint32_t id, IrType t, int num_warps, StrBuf *why) {
    for (int depth = 0; depth < 64; depth++) {
        if (!valid_id(m, id)) return bad(why, "no such layout");
        const IrLayout *l = &m->layouts[id];
        if (l->rank != t.rank) return bad(why, "the layout's rank is not the block's");
        switch (l->kind) {
        case LAYOUT_BLOCKED: return check_blocked(l, t, num_warps, why);
        case LAYOUT_MMA: return check_mma(l, num_warps, why);
        case LAYOUT_SHARED: return check_shared(l, t, why);
        case LAYOUT_LINEAR: return check_linear(l, t, num_warps, why);
        case LAYOUT_DOT_OP: {
            if (l->rank != 2) return bad(why, "a dot_op layout is for 2-D blocks");
            if (!valid_id(m, l->parent) || m->layouts[l->parent].kind != LAYOUT_MMA)
                return bad(why, "a dot_op layout's parent must be an mma layout");
            if (l->op_idx > 1) return bad(why, "dot_op idx must be 0 (A) or 1 (B)");
            if (l->k_width != 1 && l->k_width != 2 && l->k_width != 4)
                return bad(why, "k_width must be 1, 2 or 4");
            if (m->layouts[l->parent].version == 3 && l->op_idx != 0)
                return bad(why, "wgmma takes only A from registers (B from shared memory)");
            return check_mma(&m->layouts[l->parent], num_warps, why);
        }
        case LAYOUT_SLICE: {
            if (!valid_id(m, l->parent) || !ir_layout_is_distributed(m->layouts[l->parent].kind) ||
                m->layouts[l->parent].kind == LAYOUT_DOT_OP)
                return bad(why, "a slice's parent must be a blocked, mma or slice layout");
            if (l->dim > t.rank) return bad(why, "the sliced dim is out of range");
            IrType pt = t;
            pt.rank = (uint8_t)(t.rank + 1);
            for (int i = t.rank; i > l->dim; i--) pt.shape[i] = t.shape[i - 1];
            pt.shape[l->dim] = 1;
            t = pt;
            id = l->parent;
            continue;
        }
        default: return bad(why, "unknown layout kind");
        }
    }
    return bad(why, "layouts nested too deep");
}

/* ---- linear maps ---- */

static void shape_of(IrType t, int32_t *shape) {
    for (int i = 0; i < t.rank; i++) shape[i] = t.shape[i];
}

static void blocked_linear(const IrLayout *l, IrType t, LinearLayout *o) {
    int32_t shape[NR_MAX_RANK];
    shape_of(t, shape);
    ll_init(o, t.rank, shape);
    for (int k = 0; k < l->rank; k++) { /* registers: a dim's chunk, then its wraps */
        int d = l->order[k], ls = log2i(shape[d]), lspt = log2i(l->spt[d]);
        int ltile = lspt + log2i(l->tpw[d]) + log2i(l->wpc[d]);
        for (int i = 0; i < lspt && i < ls; i++) ll_push_dim(o, LL_REG, d, i);
        for (int i = ltile; i < ls; i++) ll_push_dim(o, LL_REG, d, i);
    }
    for (int k = 0; k < l->rank; k++) {
        int d = l->order[k], base = log2i(l->spt[d]);
        for (int i = 0; i < log2i(l->tpw[d]); i++) ll_push_dim(o, LL_LANE, d, base + i);
    }
    for (int k = 0; k < l->rank; k++) {
        int d = l->order[k], base = log2i(l->spt[d]) + log2i(l->tpw[d]);
        for (int i = 0; i < log2i(l->wpc[d]); i++) ll_push_dim(o, LL_WARP, d, base + i);
    }
}

/* Lanes of mma.sync's fragments: lane bits 0-1 along `fast` from bit fbase, lane bits 2-4
 * along `slow` (rows of the 8-row group). */
static void mma_lanes(LinearLayout *o, int fast, int fbase, int slow) {
    ll_push_dim(o, LL_LANE, fast, fbase);
    ll_push_dim(o, LL_LANE, fast, fbase + 1);
    for (int i = 0; i < 3; i++) ll_push_dim(o, LL_LANE, slow, i);
}

/* Warps of an mma layout: wm along M from bit mbase (the first two 16 rows apart for
 * version 3's warpgroups, which mbase = 4 gives), then wn along N from bit nbase. A dot
 * operand lacks one of the dims: its warps there hold copies (basis 0). */
static void mma_warps(LinearLayout *o, const IrLayout *p, int mdim, int ndim, int mbase,
                      int nbase) {
    for (int i = 0; i < log2i(p->wpc[0]); i++) {
        if (mdim >= 0) ll_push_dim(o, LL_WARP, mdim, mbase + i);
        else ll_push(o, LL_WARP, 0);
    }
    for (int i = 0; i < log2i(p->wpc[1]); i++) {
        if (ndim >= 0) ll_push_dim(o, LL_WARP, ndim, nbase + i);
        else ll_push(o, LL_WARP, 0);
    }
}

static void push_range(LinearLayout *o, int in, int dim, int from, int to) {
    for (int i = from; i < to; i++) ll_push_dim(o, in, dim, i);
}

static void mma_linear(const IrLayout *l, IrType t, LinearLayout *o) {
    int32_t shape[2] = {t.shape[0], t.shape[1]};
    ll_init(o, 2, shape);
    int lm = log2i(shape[0]), ln = log2i(shape[1]);
    int li = l->version == 3 ? log2i(l->instr_n) : 3; /* columns of one instruction */
    ll_push_dim(o, LL_REG, 1, 0);
    mma_lanes(o, 1, 1, 0);
    ll_push_dim(o, LL_REG, 0, 3);
    push_range(o, LL_REG, 1, 3, li); /* version 3: the rest of the instruction's columns */
    mma_warps(o, l, 0, 1, 4, li);
    push_range(o, LL_REG, 1, li + log2i(l->wpc[1]), ln); /* repeats along N */
    push_range(o, LL_REG, 0, 4 + log2i(l->wpc[0]), lm);  /* then along M */
}

static void dot_op_linear(const IrLayout *l, const IrLayout *p, IrType t, LinearLayout *o) {
    int32_t shape[2] = {t.shape[0], t.shape[1]};
    ll_init(o, 2, shape);
    int kdim = l->op_idx == 0 ? 1 : 0, odim = 1 - kdim, lkw = log2i(l->k_width);
    int lk = log2i(shape[kdim]), lo = log2i(shape[odim]);
    push_range(o, LL_REG, kdim, 0, lkw); /* k_width elements in one 32-bit register */
    mma_lanes(o, kdim, lkw, odim);
    if (l->op_idx == 0) ll_push_dim(o, LL_REG, odim, 3); /* A: rows 8-15 */
    ll_push_dim(o, LL_REG, kdim, lkw + 2);               /* k + 4 * k_width */
    if (l->op_idx == 0) mma_warps(o, p, 0, -1, 4, 0);
    else mma_warps(o, p, -1, 1, 4, 3);
    push_range(o, LL_REG, kdim, lkw + 3, lk); /* repeats along K */
    int obase = l->op_idx == 0 ? 4 + log2i(p->wpc[0]) : 3 + log2i(p->wpc[1]);
    push_range(o, LL_REG, odim, obase, lo); /* then along M (A) or N (B) */
}

static void shared_linear(const IrLayout *l, IrType t, LinearLayout *o) {
    int32_t shape[NR_MAX_RANK];
    shape_of(t, shape);
    ll_init(o, t.rank, shape);
    int c = l->order[0], lc = log2i(shape[c]);
    int lpanel = l->atom ? log2i(l->atom) : lc;
    if (lpanel > lc) lpanel = lc;
    push_range(o, LL_OFFSET, c, 0, lpanel);
    int lvec = log2i(l->vec), lpp = log2i(l->per_phase), lmp = log2i(l->max_phase);
    int cshift = ll_dim_shift(o, c);
    for (int k = 1; k < l->rank; k++) {
        int d = l->order[k];
        for (int j = 0; j < log2i(shape[d]); j++) {
            uint32_t b = (uint32_t)1 << (ll_dim_shift(o, d) + j);
            if (k == 1 && j >= lpp && j - lpp < lmp) b ^= (uint32_t)1 << (cshift + lvec + j - lpp);
            ll_push(o, LL_OFFSET, b);
        }
    }
    push_range(o, LL_OFFSET, c, lpanel, lc); /* the panels */
}

void ir_layout_linear_shared(const IrLayout *l, IrType t, LinearLayout *out) {
    NR_ASSERT(l->kind == LAYOUT_SHARED && t.rank);
    shared_linear(l, t, out);
}

/* A linear layout's map for blocks of t (its shape, or smaller): each basis keeps the
 * coordinate bits inside t, so bits beyond a smaller dim become copies. */
static void linear_linear(const LinearLayout *l, IrType t, LinearLayout *o) {
    int32_t shape[NR_MAX_RANK];
    shape_of(t, shape);
    ll_init(o, t.rank, shape);
    for (int in = 0; in < LL_NIN; in++)
        for (int i = 0; i < l->nbits[in]; i++) {
            int32_t c[LL_MAX_RANK];
            ll_coords(l, l->basis[in][i], c);
            for (int d = 0; d < t.rank; d++) c[d] &= shape[d] - 1;
            ll_push(o, in, ll_flat(o, c));
        }
}

/* Drops the register bits whose basis is 0 (a slice's registers along the removed dim). */
static void compact_registers(LinearLayout *o) {
    int n = 0;
    for (int i = 0; i < o->nbits[LL_REG]; i++)
        if (o->basis[LL_REG][i]) o->basis[LL_REG][n++] = o->basis[LL_REG][i];
    o->nbits[LL_REG] = (uint8_t)n;
}

void ir_layout_linear(const IrModule *m, uint32_t id, IrType t, LinearLayout *out) {
    if (!t.rank) {
        ll_init(out, 0, NULL);
        return;
    }
    NR_ASSERT(valid_id(m, id));
    const IrLayout *l = &m->layouts[id];
    switch (l->kind) {
    case LAYOUT_BLOCKED: blocked_linear(l, t, out); return;
    case LAYOUT_MMA: mma_linear(l, t, out); return;
    case LAYOUT_DOT_OP: dot_op_linear(l, &m->layouts[l->parent], t, out); return;
    case LAYOUT_SHARED: shared_linear(l, t, out); return;
    case LAYOUT_LINEAR: linear_linear(l->lin, t, out); return;
    case LAYOUT_SLICE: {
        /* the parent over the shape with a dim of 1 inserted has the same row-major
         * indices as this one: its bases carry over as they are */
        IrType pt = t;
        pt.rank = (uint8_t)(t.rank + 1);
        for (int i = t.rank; i > l->dim; i--) pt.shape[i] = t.shape[i - 1];
        pt.shape[l->dim] = 1;
        LinearLayout p;
        ir_layout_linear(m, l->parent, pt, &p);
        int32_t shape[NR_MAX_RANK];
        shape_of(t, shape);
        ll_init(out, t.rank, shape);
        memcpy(out->nbits, p.nbits, sizeof p.nbits);
        memcpy(out->basis, p.basis, sizeof p.basis);
        compact_registers(out);
        return;
    }
    default: NR_DIE("ir_layout_linear: layout kind %d", l->kind);
    }
}

int ir_smem_align(const IrModule *m, uint32_t layout) {
    return valid_id(m, layout) && m->layouts[layout].max_phase > 1 ? 1024 : 16;
}

int64_t ir_smem_stage_bytes(const IrModule *m, uint32_t layout, IrType buf) {
    int64_t bytes = ty_numel(buf) * dt_bytes(buf.pointee), a = ir_smem_align(m, layout);
    return (bytes + a - 1) / a * a;
}

/* ---- text form ---- */

typedef struct Field {
    const char *name;
    uint8_t type;  /* LayoutFieldType */
    uint8_t bytes; /* 1, 2 or 4: the width of the IrLayout field */
    uint16_t offset;
    int64_t lo, hi; /* the range of each value */
    bool sets_rank; /* LF_INTS: its length is the layout's rank */
} Field;

#define F(n, ty, member, lo, hi, rk)                                                \
    {                                                                               \
        n, ty, sizeof(((IrLayout *)0)->member) / (ty == LF_INTS ? NR_MAX_RANK : 1), \
            offsetof(IrLayout, member), lo, hi, rk                                  \
    }
static const Field blocked_fields[] = {
    F("spt", LF_INTS, spt, 1, 128, true), F("tpw", LF_INTS, tpw, 1, 32, false),
    F("wpc", LF_INTS, wpc, 1, 32, false), F("order", LF_INTS, order, 0, NR_MAX_RANK - 1, false)};
static const Field slice_fields[] = {F("dim", LF_INT, dim, 0, NR_MAX_RANK - 1, false),
                                     F("parent", LF_REF, parent, 1, UINT32_MAX, false)};
static const Field mma_fields[] = {F("version", LF_INT, version, 2, 3, false),
                                   F("wpc", LF_INTS, wpc, 1, 32, false),
                                   F("instr_n", LF_INT, instr_n, 8, 256, false)};
static const Field dot_op_fields[] = {F("idx", LF_INT, op_idx, 0, 1, false),
                                      F("parent", LF_REF, parent, 1, UINT32_MAX, false),
                                      F("k_width", LF_INT, k_width, 1, 4, false)};
static const Field shared_fields[] = {
    F("vec", LF_INT, vec, 1, 128, false), F("per_phase", LF_INT, per_phase, 1, 128, false),
    F("max_phase", LF_INT, max_phase, 1, 128, false),
    F("order", LF_INTS, order, 0, NR_MAX_RANK - 1, true), F("atom", LF_INT, atom, 0, 4096, false)};
#undef F

typedef struct KindInfo {
    const char *name;
    const Field *fields;
    int nfields;
} KindInfo;

static const KindInfo kinds[] = {
    [LAYOUT_BLOCKED] = {"blocked", blocked_fields, 4},
    [LAYOUT_SLICE] = {"slice", slice_fields, 2},
    [LAYOUT_MMA] = {"mma", mma_fields, 3},
    [LAYOUT_DOT_OP] = {"dot_op", dot_op_fields, 3},
    [LAYOUT_SHARED] = {"shared", shared_fields, 5},
    [LAYOUT_LINEAR] = {"linear", NULL, 0},
};
enum { NKINDS = (int)(sizeof kinds / sizeof kinds[0]) };

static const KindInfo *kind_info(int kind) {
    return kind > 0 && kind < NKINDS ? &kinds[kind] : NULL;
}

int ir_layout_kind_from_name(const char *name, size_t len) {
    for (int k = 1; k < NKINDS; k++)
        if (strlen(kinds[k].name) == len && !memcmp(kinds[k].name, name, len)) return k;
    return LAYOUT_NONE;
}

int ir_layout_field_count(int kind) { return kind_info(kind) ? kind_info(kind)->nfields : 0; }
const char *ir_layout_field_name(int kind, int field) {
    return kind_info(kind)->fields[field].name;
}
int ir_layout_field_type(int kind, int field) { return kind_info(kind)->fields[field].type; }

static int64_t get(const IrLayout *l, const Field *f, int i) {
    const unsigned char *p = (const unsigned char *)l + f->offset + (size_t)i * f->bytes;
    if (f->bytes == 1) return *p;
    if (f->bytes == 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void put(IrLayout *l, const Field *f, int i, int64_t v) {
    unsigned char *p = (unsigned char *)l + f->offset + (size_t)i * f->bytes;
    if (f->bytes == 1) *p = (unsigned char)v;
    else if (f->bytes == 2) {
        uint16_t x = (uint16_t)v;
        memcpy(p, &x, 2);
    } else {
        uint32_t x = (uint32_t)v;
        memcpy(p, &x, 4);
    }
}

/* How many values a list field has: the rank, or 2 for an mma's wpc. */
static int list_len(const IrLayout *l) { return l->kind == LAYOUT_MMA ? 2 : l->rank; }

bool ir_layout_set_field(IrLayout *l, int field, const int64_t *v, int n, StrBuf *why) {
    const Field *f = &kind_info(l->kind)->fields[field];
    if (f->type == LF_INTS) {
        if (n < 1 || n > NR_MAX_RANK) {
            if (why) sb_printf(why, "a list of 1 to %d values", NR_MAX_RANK);
            return false;
        }
        if (f->sets_rank) l->rank = (uint8_t)n;
        else if (l->kind == LAYOUT_MMA && n != 2)
            return bad(why, "two values (warps along M and N)");
        else if (l->kind != LAYOUT_MMA && n != l->rank)
            return bad(why, "one value per dim (as many as the first list)");
    } else if (n != 1) {
        return bad(why, "one value");
    }
    for (int i = 0; i < n; i++) {
        if (v[i] < f->lo || v[i] > f->hi) {
            if (why)
                sb_printf(why, "a value from %lld to %lld", (long long)f->lo, (long long)f->hi);
            return false;
        }
        put(l, f, i, v[i]);
    }
    return true;
}

bool ir_layout_derive_rank(const IrModule *m, IrLayout *l) {
    if (l->kind == LAYOUT_MMA || l->kind == LAYOUT_DOT_OP) l->rank = 2;
    if (l->kind != LAYOUT_SLICE) return true;
    if (!valid_id(m, l->parent) || m->layouts[l->parent].rank < 1) return false;
    l->rank = (uint8_t)(m->layouts[l->parent].rank - 1);
    return true;
}

/* linear<shape=[64, 16], reg=[[0, 1], ...], lane=[...], warp=[...]>: each input bit's
 * basis as coordinates. */
static void print_linear(StrBuf *out, const LinearLayout *ll) {
    sb_puts(out, "linear<shape=[");
    for (int d = 0; d < ll->rank; d++) sb_printf(out, d ? ", %d" : "%d", 1 << ll->log2shape[d]);
    sb_putc(out, ']');
    static const char *const names[LL_NIN] = {"reg", "lane", "warp"};
    for (int in = 0; in < LL_NIN; in++) {
        sb_printf(out, ", %s=", names[in]);
        ll_print_dim(out, ll, in);
    }
    sb_putc(out, '>');
}

void ir_layout_print(StrBuf *out, const IrLayout *l) {
    if (l->kind == LAYOUT_LINEAR && l->lin) return print_linear(out, l->lin);
    const KindInfo *k = kind_info(l->kind);
    if (!k || !k->fields) {
        sb_printf(out, "<bad layout kind %d>", l->kind);
        return;
    }
    sb_printf(out, "%s<", k->name);
    for (int i = 0; i < k->nfields; i++) {
        const Field *f = &k->fields[i];
        sb_printf(out, "%s%s=", i ? ", " : "", f->name);
        if (f->type == LF_REF) sb_printf(out, "#L%lld", (long long)get(l, f, 0));
        else if (f->type == LF_INT) sb_printf(out, "%lld", (long long)get(l, f, 0));
        else {
            sb_putc(out, '[');
            for (int j = 0; j < list_len(l); j++)
                sb_printf(out, j ? ", %lld" : "%lld", (long long)get(l, f, j));
            sb_putc(out, ']');
        }
    }
    sb_putc(out, '>');
}

/* ---- scans: the axis in the layout ---- */

static uint32_t axis_mask(const LinearLayout *l, int axis) {
    return ((1u << l->log2shape[axis]) - 1) << ll_dim_shift(l, axis);
}

bool ir_layout_axis_separable(const IrModule *m, uint32_t layout, IrType t, int axis) {
    /* a layout that fails ir_layout_check has no linear form: its own check reports it */
    if (!ir_layout_check(m, layout, t, 0, NULL)) return true;
    LinearLayout l;
    ir_layout_linear(m, layout, t, &l);
    uint32_t amask = axis_mask(&l, axis), seen = 0;
    for (int in = 0; in < LL_NIN; in++)
        for (int i = 0; i < l.nbits[in]; i++) {
            uint32_t b = l.basis[in][i], a = b & amask;
            if (!a) continue;
            if (b != a || (a & (a - 1)) || (seen & a)) return false;
            seen |= a;
        }
    return seen == amask;
}

bool ir_layout_axis_threads_apart(const IrModule *m, uint32_t layout, IrType t, int axis) {
    /* a layout that fails ir_layout_check has no linear form: its own check reports it */
    if (!ir_layout_check(m, layout, t, 0, NULL)) return true;
    LinearLayout l;
    ir_layout_linear(m, layout, t, &l);
    uint32_t amask = axis_mask(&l, axis);
    for (int in = LL_LANE; in <= LL_WARP; in++)
        for (int i = 0; i < l.nbits[in]; i++)
            if ((l.basis[in][i] & amask) && (l.basis[in][i] & ~amask)) return false;
    return true;
}

bool ir_layout_axis_warps(const IrModule *m, uint32_t layout, IrType t, int axis) {
    LinearLayout l;
    ir_layout_linear(m, layout, t, &l);
    uint32_t amask = axis_mask(&l, axis);
    for (int i = 0; i < l.nbits[LL_WARP]; i++)
        if (l.basis[LL_WARP][i] & amask) return true;
    return false;
}
