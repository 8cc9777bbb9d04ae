/* layout_moves.c - register-local layout changes, reduction partials and op scratch
 * (see layout_moves.h). */
#include "layout_moves.h"

#include <string.h>

static int total_bits(const LinearLayout *l) {
    int n = 0;
    for (int d = 0; d < l->rank; d++) n += l->log2shape[d];
    return n;
}

void moves_index_map(const IrFunc *f, const IrOp *op, uint32_t *map) {
    IrType st = f->vals[op->operands[0]].ty, rt = f->vals[op->results[0]].ty;
    LinearLayout s, r; /* only their shapes: index <-> coordinates */
    ll_init(&s, st.rank, st.shape);
    ll_init(&r, rt.rank, rt.shape);
    for (int i = 0; i < total_bits(&r); i++) {
        int32_t rc[LL_MAX_RANK], sc[LL_MAX_RANK] = {0};
        ll_coords(&r, 1u << i, rc);
        switch (op->code) {
        case OP_RESHAPE:
        case OP_EXPAND_DIMS:
        case OP_CONVERT_LAYOUT: map[i] = 1u << i; continue;
        case OP_TRANS:
            for (int d = 0; d < rt.rank; d++) sc[op->attr[d]] = rc[d];
            break;
        default: /* broadcast: a stretched dim has size 1 in the operand */
            for (int d = 0; d < rt.rank; d++) sc[d] = st.shape[d] == 1 ? 0 : rc[d];
        }
        map[i] = ll_flat(&s, sc);
    }
}

uint32_t moves_apply(const uint32_t *map, uint32_t flat) {
    uint32_t x = 0;
    for (int i = 0; flat; i++, flat >>= 1)
        if (flat & 1) x ^= map[i];
    return x;
}

/* Does every thread hold, in s, the elements it holds in r (through map)? */
static bool local(const LinearLayout *s, const LinearLayout *r, const uint32_t *map) {
    for (int in = LL_LANE; in <= LL_WARP; in++) {
        if (s->nbits[in] != r->nbits[in]) return false;
        for (int i = 0; i < r->nbits[in]; i++)
            if (moves_apply(map, r->basis[in][i]) != s->basis[in][i]) return false;
    }
    for (uint32_t reg = 0; reg < (1u << r->nbits[LL_REG]); reg++) {
        uint32_t x;
        if (!ll_solve(s, LL_REG, moves_apply(map, ll_apply_dim(r, LL_REG, reg)), &x)) return false;
    }
    return true;
}

bool moves_is_local(const IrFunc *f, OpId id) {
    const IrOp *op = &f->ops[id];
    IrType st = f->vals[op->operands[0]].ty, rt = f->vals[op->results[0]].ty;
    if (!st.rank) return true; /* a scalar is in every thread */
    LinearLayout s, r;
    ir_layout_linear(f->mod, f->vals[op->operands[0]].layout, st, &s);
    ir_layout_linear(f->mod, f->vals[op->results[0]].layout, rt, &r);
    uint32_t map[LL_MAX_BITS];
    moves_index_map(f, op, map);
    return local(&s, &r, map);
}

bool moves_convert_is_local(const IrModule *m, uint32_t from, uint32_t to, IrType t) {
    if (!t.rank || from == to) return true;
    LinearLayout s, r;
    ir_layout_linear(m, from, t, &s);
    ir_layout_linear(m, to, t, &r);
    uint32_t map[LL_MAX_BITS];
    for (int i = 0; i < LL_MAX_BITS; i++) map[i] = 1u << i;
    return local(&s, &r, map);
}

static uint32_t offset_of(const uint32_t *inv, uint32_t flat) {
    uint32_t o = 0;
    for (int k = 0; flat; k++, flat >>= 1)
        if (flat & 1) o ^= inv[k];
    return o;
}

int moves_smem_run(const IrModule *m, uint32_t layout, uint32_t shared, IrType t, int elem_bytes,
                   int max_bytes) {
    IrType tile = ty_block(ty_scalar(DT_I32), t.rank, t.shape);
    LinearLayout l, s;
    ir_layout_linear(m, layout, tile, &l);
    ir_layout_linear(m, shared, tile, &s);
    uint32_t inv[LL_MAX_BITS], thread = 0;
    if (!ll_invert_offset(&s, inv)) return 1;
    for (int in = LL_LANE; in <= LL_WARP; in++)
        for (int i = 0; i < l.nbits[in]; i++) thread |= offset_of(inv, l.basis[in][i]);
    int k = 0;
    while (k < l.nbits[LL_REG] && (elem_bytes << (k + 1)) <= max_bytes &&
           offset_of(inv, l.basis[LL_REG][k]) == 1u << k && !(thread >> k & 1))
        k++;
    for (int i = k; i < l.nbits[LL_REG]; i++) /* the run's first offset aligned to its length */
        while (k && (offset_of(inv, l.basis[LL_REG][i]) & ((1u << k) - 1))) k--;
    return 1 << k;
}

int moves_smem_vector(const IrModule *m, uint32_t layout, uint32_t shared, IrType t, int elem_bytes,
                      int max_bytes, int *reg_bits) {
    IrType tile = ty_block(ty_scalar(DT_I32), t.rank, t.shape);
    LinearLayout l, s;
    ir_layout_linear(m, layout, tile, &l);
    ir_layout_linear(m, shared, tile, &s);
    uint32_t inv[LL_MAX_BITS], thread = 0, off[LL_MAX_BITS];
    if (!ll_invert_offset(&s, inv)) return 0;
    for (int in = LL_LANE; in <= LL_WARP; in++)
        for (int i = 0; i < l.nbits[in]; i++) thread |= offset_of(inv, l.basis[in][i]);
    for (int i = 0; i < l.nbits[LL_REG]; i++) off[i] = offset_of(inv, l.basis[LL_REG][i]);
    int k = 0;
    while ((elem_bytes << (k + 1)) <= max_bytes && !(thread >> k & 1)) {
        int j = 0;
        while (j < l.nbits[LL_REG] && off[j] != 1u << k) j++;
        if (j == l.nbits[LL_REG]) break;
        reg_bits[k++] = j;
    }
    for (;;) { /* the vector's first offset aligned: no other register bit below 2^k */
        uint32_t low = (1u << k) - 1, other = 0;
        for (int i = 0; i < l.nbits[LL_REG]; i++) {
            bool in_vec = false;
            for (int v = 0; v < k; v++) in_vec |= reg_bits[v] == i;
            if (!in_vec) other |= off[i];
        }
        if (!(other & low)) return k;
        k--;
    }
}

int moves_smem_wavefronts(const IrModule *m, uint32_t layout, const IrLayout *shared, IrType t,
                          int elem_bytes) {
    IrType tile = ty_block(ty_scalar(DT_I32), t.rank, t.shape);
    LinearLayout l, s;
    ir_layout_linear(m, layout, tile, &l);
    ir_layout_linear_shared(shared, tile, &s);
    uint32_t inv[LL_MAX_BITS];
    if (!ll_invert_offset(&s, inv) || l.nbits[LL_REG] > 12) return -1;
    int total = 0;
    for (uint32_t r = 0; r < 1u << l.nbits[LL_REG]; r++) {
        uint32_t words[32];
        int nw = 0, per_bank[32] = {0}, most = 0;
        for (uint32_t lane = 0; lane < 1u << l.nbits[LL_LANE] && lane < 32; lane++) {
            uint32_t x[LL_NIN] = {r, lane, 0};
            uint32_t word =
                (uint32_t)((uint64_t)offset_of(inv, ll_apply(&l, x)) * (uint32_t)elem_bytes / 4);
            bool seen = false;
            for (int i = 0; i < nw && !seen; i++) seen = words[i] == word;
            if (seen) continue; /* one word read by several lanes: one broadcast */
            words[nw++] = word;
            if (++per_bank[word % 32] > most) most = per_bank[word % 32];
        }
        total += most;
    }
    return total;
}

static int moves_reduce_partials(const IrFunc *f, OpId id) {
    const IrOp *op = &f->ops[id];
    IrType t = f->vals[op->operands[0]].ty;
    LinearLayout l;
    ir_layout_linear(f->mod, f->vals[op->operands[0]].layout, t, &l);
    int shift = ll_dim_shift(&l, (int)op->attr[1]);
    uint32_t axis = ((1u << l.log2shape[op->attr[1]]) - 1) << shift;
    int n = 1;
    for (int i = 0; i < l.nbits[LL_WARP]; i++)
        if (l.basis[LL_WARP][i] & axis) n *= 2;
    return n;
}

static int slot_bytes(IrType t) { return t.dt == DT_I1 ? 1 : dt_bytes(t.dt); }

int moves_scratch_bytes(const IrFunc *f, OpId id) {
    const IrOp *op = &f->ops[id];
    switch (op->code) {
    case OP_REDUCE: {
        int partials = moves_reduce_partials(f, id);
        if (partials <= 1) return 0;
        IrType t = f->vals[op->operands[0]].ty;
        int64_t out = ty_numel(t) / t.shape[op->attr[1]];
        bool arg = op->attr[0] == RED_ARGMAX || op->attr[0] == RED_ARGMIN;
        return (int)(out * partials * 8 * (arg ? 2 : 1));
    }
    case OP_SCAN:
    case OP_REDUCE_FN: { /* the operands' blocks, exchanged between warps */
        IrType t = f->vals[op->operands[0]].ty;
        if (!ir_layout_axis_warps(f->mod, f->vals[op->operands[0]].layout, t, (int)op->attr[0]))
            return 0;
        int64_t bytes = 0;
        for (uint32_t i = 0; i < op->nopnds; i++)
            bytes += (ty_numel(t) * slot_bytes(f->vals[op->operands[i]].ty) + 7) / 8 * 8;
        return (int)bytes;
    }
    case OP_FLIP:
    case OP_SORT: { /* the block, exchanged between warps */
        IrType t = f->vals[op->operands[0]].ty;
        if (!ir_layout_axis_warps(f->mod, f->vals[op->operands[0]].layout, t, (int)op->attr[0]))
            return 0;
        return (int)((ty_numel(t) * slot_bytes(t) + 7) / 8 * 8);
    }
    case OP_GATHER: { /* the source block, looked up */
        IrType t = f->vals[op->operands[0]].ty;
        return (int)((ty_numel(t) * slot_bytes(t) + 7) / 8 * 8);
    }
    case OP_HISTOGRAM: return (int)(ty_numel(f->vals[op->results[0]].ty) * 4); /* the counters */
    case OP_CONVERT_LAYOUT:
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
    case OP_RESHAPE:
    case OP_TRANS: {
        IrType t = f->vals[op->operands[0]].ty;
        if (!t.rank || t.dt == DT_SMEM || moves_is_local(f, id))
            return 0; /* a buffer's trans is a view */
        return (int)(ty_numel(t) * slot_bytes(t));
    }
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: { /* the owner's old value, to its copies */
        IrType t = f->vals[op->operands[0]].ty;
        if (!t.rank) return 8;
        LinearLayout l;
        ir_layout_linear(f->mod, f->vals[op->operands[0]].layout, t, &l);
        bool copies =
            ll_zero_mask(&l, LL_REG) || ll_zero_mask(&l, LL_LANE) || ll_zero_mask(&l, LL_WARP);
        return copies ? (int)(ty_numel(t) * 8) : 0;
    }
    default: return 0;
    }
}

int moves_smem_bytes(const IrFunc *f, OpId id, int *align) {
    const IrOp *op = &f->ops[id];
    *align = 16;
    if (op->code != OP_LOCAL_ALLOC) return moves_scratch_bytes(f, id);
    IrType t = f->vals[op->results[0]].ty;
    uint32_t l = f->vals[op->results[0]].layout;
    *align = ir_smem_align(f->mod, l);
    return (int)(ir_smem_stage_bytes(f->mod, l, t) * t.stages);
}
