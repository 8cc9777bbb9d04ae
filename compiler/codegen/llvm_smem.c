/* llvm_smem.c - shared-memory buffers: making them (local_alloc), stages of a ring
 * (local_view), moving blocks in and out (local_store, local_load, ldmatrix), cp.async
 * copies from global memory (async_copy, async_commit, async_wait) and the proxy fence.
 *
 * A buffer is the address of its first tile. Where a register's element goes in a tile
 * is the composition of two linear maps: the block's layout (register, lane, warp ->
 * row-major index) and the inverse of the buffer's shared layout (row-major index ->
 * element offset). So an element's offset is the XOR of a thread part (from the lane
 * and warp bits, computed once) and a constant per register; when their bits are
 * disjoint the XOR is a sum and the constant folds into the address. Registers at
 * consecutive offsets move as one vector of up to 16 bytes, whichever register bits
 * they differ in (moves_smem_vector); cp.async copies take runs of consecutive
 * registers, which the global side needs too, each copy's source size 0 or the run where
 * the mask is constant over it, else (a mask true on a prefix of the run,
 * axis_info_prefix_width) the bytes of its true elements, the rest zero-filled.
 *
 * A block loaded into an mma.sync operand layout from 16-bit tiles (and 8- and 32-bit
 * tiles with K contiguous) uses ldmatrix when the composed map has its shape: within a
 * 32-bit register and across lanes 0-1 consecutive elements of one 16-byte row, lanes
 * 2-4 the eight rows of an 8x8 matrix, the next register bits up to four matrices (or,
 * with .trans, the rows and columns the other way round). Lane l then gives the address
 * of row l % 8 of matrix l / 8. Anything else moves element runs with ld/st.shared.
 *
 * A conversion of 16-bit elements between register layouts (llvm_shape.c) whose layouts
 * allow it goes through a scratch laid out for both sides (scratch_plan): 16-byte stores
 * of the source's registers, then ldmatrix into the result's, as a tile map whose inverse
 * is that layout rather than a buffer's. */
#include "gen_internal.h"

#include <string.h>

void gen_shared_inverse(Gen *g, uint32_t shared, IrType t, uint32_t *inv) {
    LinearLayout s;
    IrType tile = ty_block(ty_scalar(DT_I32), t.rank, t.shape);
    ir_layout_linear(g->m, shared, tile, &s);
    if (!ll_invert_offset(&s, inv)) NR_DIE("shared layout #L%u is not invertible", shared);
}

static uint32_t offset_of(const uint32_t *inv, uint32_t flat) {
    uint32_t o = 0;
    for (int k = 0; flat; k++, flat >>= 1)
        if (flat & 1) o ^= inv[k];
    return o;
}

/* A block's registers against a buffer's layout. */
typedef struct TileMap {
    const GenLayout *gl;
    uint32_t inv[LL_MAX_BITS];
    uint32_t thread_bits;  /* every bit the lane and warp part of the offset may set, in elements */
    LLVMValueRef thread_b; /* that part in bytes (made once, in the prologue): element sizes
                              are powers of two, so (t ^ c) * eb = t * eb ^ c * eb and a
                              register's address is one XOR (or add) away from it */
    int vbits, vbit[LL_MAX_BITS]; /* local_alloc/load/store: a vector's register bits
                                     (moves_smem_vector) */
    int eb;
    bool here; /* thread parts made where the op is, not in the prologue (a conversion's: a
                  value live across the kernel's loops for one epilogue costs registers) */
} TileMap;

static uint32_t or_offsets(const uint32_t *inv, const LinearLayout *l, int in) {
    uint32_t u = 0;
    for (int i = 0; i < l->nbits[in]; i++) u |= offset_of(inv, l->basis[in][i]);
    return u;
}

/* The offset part of x's bits through bases (each mapped by inv), in the prologue. */
static LLVMValueRef thread_offset(Gen *g, LLVMValueRef x, const uint32_t *bases, int n,
                                  bool *xor_out, bool here) {
    LLVMBasicBlockRef saved = here ? NULL : gen_enter_prologue(g);
    LLVMValueRef v = gen_thread_bits(g, x, bases, n, 0, LL_MAX_BITS, xor_out);
    if (!here) gen_leave_prologue(g, saved);
    return v;
}

/* The thread part of a tile map whose inv is set. */
static void tile_map_thread(Gen *g, TileMap *tm) {
    const LinearLayout *l = &tm->gl->ll;
    int eb = tm->eb;
    uint32_t lo[LL_MAX_BITS], wo[LL_MAX_BITS];
    for (int i = 0; i < l->nbits[LL_LANE]; i++) lo[i] = offset_of(tm->inv, l->basis[LL_LANE][i]);
    for (int i = 0; i < l->nbits[LL_WARP]; i++) wo[i] = offset_of(tm->inv, l->basis[LL_WARP][i]);
    bool x = false;
    LLVMValueRef lp = thread_offset(g, g->lane, lo, l->nbits[LL_LANE], &x, tm->here);
    LLVMValueRef wp = thread_offset(g, g->warp, wo, l->nbits[LL_WARP], &x, tm->here);
    uint32_t ul = or_offsets(tm->inv, l, LL_LANE), uw = or_offsets(tm->inv, l, LL_WARP);
    LLVMBasicBlockRef saved = tm->here ? NULL : gen_enter_prologue(g);
    tm->thread_b = gen_opaque(g, gen_mul_const(g, gen_or_xor(g, lp, wp, (ul & uw) != 0), eb));
    if (!tm->here) gen_leave_prologue(g, saved);
    tm->thread_bits = ul | uw;
}

static void tile_map(Gen *g, TileMap *tm, const GenLayout *gl, uint32_t shared, IrType t, int eb) {
    memset(tm, 0, sizeof *tm);
    tm->gl = gl, tm->eb = eb;
    gen_shared_inverse(g, shared, t, tm->inv);
    tile_map_thread(g, tm);
}

/* The register of element k of the vector that starts at register r. */
static int vec_reg(const TileMap *tm, int r, int k) {
    for (int i = 0; i < tm->vbits; i++)
        if (k >> i & 1) r |= 1 << tm->vbit[i];
    return r;
}

/* Does register r start a vector (none of the vector's bits set)? */
static bool vec_start(const TileMap *tm, int r) {
    for (int i = 0; i < tm->vbits; i++)
        if (r >> tm->vbit[i] & 1) return false;
    return true;
}

/* The address of register r's element in the tile at base. */
static LLVMValueRef tile_ptr(Gen *g, const TileMap *tm, LLVMValueRef base, int r) {
    uint32_t c = offset_of(tm->inv, ll_apply_dim(&tm->gl->ll, LL_REG, (uint32_t)r));
    LLVMValueRef off =
        gen_xor_const(g, tm->thread_b, tm->thread_bits * (uint32_t)tm->eb, c * (uint32_t)tm->eb);
    return LLVMBuildGEP2(g->B, g->i8, base, &off, 1, "");
}

static bool never(LLVMValueRef c) {
    return c && LLVMIsAConstantInt(c) && !LLVMConstIntGetZExtValue(c);
}

static LLVMTypeRef vec_of(Gen *g, int dt, int n) {
    LLVMTypeRef et = gen_mem_type(g, dt);
    return n == 1 ? et : LLVMVectorType(et, (unsigned)n);
}

static int elem_bytes(int dt) { return dt == DT_I1 ? 1 : dt_bytes(dt); }

/* Stores x's registers where tm (its vectors set) puts them in the tile at base. */
static void store_tile(Gen *g, ValId x, const TileMap *tm, LLVMValueRef base) {
    IrType t = ir_type(g->f, x);
    const GenLayout *gl = tm->gl;
    int eb = tm->eb, n = 1 << gl->ll.nbits[LL_REG];
    LLVMValueRef *in = gen_vals(g, x, NULL);
    int v = 1 << tm->vbits;
    for (int r = 0; r < n; r++) {
        if (!vec_start(tm, r)) continue;
        LLVMValueRef once = gen_layout_unique(g, gl, r);
        if (never(once)) continue;
        LLVMValueRef val = LLVMGetUndef(vec_of(g, t.dt, v));
        if (v == 1) val = gen_to_mem(g, in[r], t.dt);
        else
            for (int k = 0; k < v; k++)
                val = LLVMBuildInsertElement(g->B, val, gen_to_mem(g, in[vec_reg(tm, r, k)], t.dt),
                                             gen_i32(g, k), "");
        LLVMValueRef ptr = tile_ptr(g, tm, base, r);
        LLVMBasicBlockRef st = NULL, join = NULL;
        if (once) {
            st = LLVMAppendBasicBlockInContext(g->C, g->fn, "smem.st");
            join = LLVMAppendBasicBlockInContext(g->C, g->fn, "smem.join");
            LLVMBuildCondBr(g->B, once, st, join);
            LLVMPositionBuilderAtEnd(g->B, st);
        }
        LLVMSetAlignment(LLVMBuildStore(g->B, val, ptr), (unsigned)(eb * v));
        if (once) {
            LLVMBuildBr(g->B, join);
            LLVMPositionBuilderAtEnd(g->B, join);
        }
    }
}

static void gen_store_tile(Gen *g, ValId x, LLVMValueRef base, uint32_t shared) {
    IrType t = ir_type(g->f, x);
    const GenLayout *gl = gen_layout(g, x);
    int eb = elem_bytes(t.dt);
    TileMap tm;
    tile_map(g, &tm, gl, shared, t, eb);
    tm.vbits = moves_smem_vector(g->m, gl->id, shared, t, eb, 16, tm.vbit);
    store_tile(g, x, &tm, base);
}

/* ---- ldmatrix ---- */

typedef struct Ldm {
    bool trans;
    int e_bits;             /* log2 of the elements in one 32-bit register */
    int mats;               /* matrices per instruction: 1, 2 or 4 */
    int span;               /* registers (elements) per instruction */
    uint32_t lane_basis[5]; /* the offset of each lane-id bit's row address */
} Ldm;

static bool aligned(uint32_t o, uint32_t a) { return (o & (a - 1)) == 0; }

/* Does the composed map have ldmatrix's shape (see the file's comment)? */
static bool ldmatrix_plan(const TileMap *tm, int eb, Ldm *p) {
    const LinearLayout *l = &tm->gl->ll;
    if (eb != 1 && eb != 2 && eb != 4) return false;
    if (l->nbits[LL_LANE] != 5) return false;
    memset(p, 0, sizeof *p);
    int E = 4 / eb, le = eb == 4 ? 0 : eb == 2 ? 1 : 2, nr = l->nbits[LL_REG];
    uint32_t row = (uint32_t)(4 * E); /* a 16-byte row, in elements */
    uint32_t o_reg[LL_MAX_BITS], o_lane[5], o_warp[LL_MAX_BITS];
    for (int i = 0; i < nr; i++) o_reg[i] = offset_of(tm->inv, l->basis[LL_REG][i]);
    for (int i = 0; i < 5; i++) o_lane[i] = offset_of(tm->inv, l->basis[LL_LANE][i]);
    for (int i = 0; i < l->nbits[LL_WARP]; i++)
        o_warp[i] = offset_of(tm->inv, l->basis[LL_WARP][i]);
    for (int i = 0; i < l->nbits[LL_WARP]; i++)
        if (!aligned(o_warp[i], row)) return false;
    bool plain = nr >= le && o_lane[0] == (uint32_t)E && o_lane[1] == (uint32_t)(2 * E);
    for (int i = 0; plain && i < le; i++) plain = o_reg[i] == 1u << i;
    for (int i = 2; plain && i < 5; i++) plain = aligned(o_lane[i], row) && o_lane[i];
    for (int i = le; plain && i < nr; i++) plain = aligned(o_reg[i], row);
    bool trans = !plain && eb == 2 && nr >= 1 && o_lane[2] == 1 && o_lane[3] == 2 &&
                 o_lane[4] == 4 && aligned(o_reg[0], 8) && aligned(o_lane[0], 8) &&
                 aligned(o_lane[1], 8) && o_reg[0] && o_lane[0] && o_lane[1];
    for (int i = 1; trans && i < nr; i++) trans = aligned(o_reg[i], 8);
    if (!plain && !trans) return false;
    p->trans = trans;
    p->e_bits = trans ? 1 : le;
    int free_bits = nr - p->e_bits, nm = free_bits < 2 ? free_bits : 2;
    p->mats = 1 << nm;
    p->span = (1 << p->e_bits) * p->mats;
    /* lane-id bits 0-2: the row; 3-4: the matrix */
    const uint32_t *rows = trans ? (uint32_t[]){o_reg[0], o_lane[0], o_lane[1]} : o_lane + 2;
    for (int j = 0; j < 3; j++) p->lane_basis[j] = rows[j];
    for (int j = 0; j < 2; j++) p->lane_basis[3 + j] = j < nm ? o_reg[p->e_bits + j] : 0;
    return true;
}

/* ldmatrix as inline PTX with side effects: NVVM's intrinsic is not convergent in LLVM 19,
 * so passes could move a warp's collective load under a branch. */
static LLVMValueRef *ldmatrix_load(Gen *g, const TileMap *tm, const Ldm *p, IrType t,
                                   LLVMValueRef base) {
    const LinearLayout *l = &tm->gl->ll;
    int n = 1 << l->nbits[LL_REG], eb = tm->eb, E = 1 << p->e_bits;
    uint32_t wo[LL_MAX_BITS];
    for (int i = 0; i < l->nbits[LL_WARP]; i++) wo[i] = offset_of(tm->inv, l->basis[LL_WARP][i]);
    bool x = false;
    LLVMValueRef lp = thread_offset(g, g->lane, p->lane_basis, 5, &x, tm->here);
    LLVMValueRef wp = thread_offset(g, g->warp, wo, l->nbits[LL_WARP], &x, tm->here);
    LLVMBasicBlockRef saved = tm->here ? NULL : gen_enter_prologue(g);
    LLVMValueRef th = gen_opaque(
        g, gen_mul_const(g, gen_or_xor(g, lp, wp, true), eb)); /* in bytes, as tile_ptr's */
    if (!tm->here) gen_leave_prologue(g, saved);
    uint32_t tbits = 0;
    for (int i = 0; i < 5; i++) tbits |= p->lane_basis[i];
    for (int i = 0; i < l->nbits[LL_WARP]; i++) tbits |= wo[i];
    LLVMValueRef *out = gen_alloc_regs(g, n);
    char text[160], cons[64];
    int pos = snprintf(text, sizeof text, "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 {", p->mats,
                       p->trans ? ".trans" : "");
    for (int m = 0; m < p->mats; m++)
        pos += snprintf(text + pos, sizeof text - (size_t)pos, m ? ", $%d" : "$%d", m);
    snprintf(text + pos, sizeof text - (size_t)pos, "}, [$%d];", p->mats);
    pos = 0;
    for (int m = 0; m < p->mats; m++) pos += snprintf(cons + pos, sizeof cons - (size_t)pos, "=r,");
    snprintf(cons + pos, sizeof cons - (size_t)pos, "r");
    LLVMTypeRef elts[4] = {g->i32, g->i32, g->i32, g->i32};
    LLVMTypeRef rty =
        p->mats == 1 ? g->i32 : LLVMStructTypeInContext(g->C, elts, (unsigned)p->mats, 0);
    LLVMTypeRef et = gen_mem_type(g, t.dt), vt = LLVMVectorType(et, (unsigned)E);
    for (int r0 = 0; r0 < n; r0 += p->span) {
        uint32_t c = offset_of(tm->inv, ll_apply_dim(l, LL_REG, (uint32_t)r0));
        LLVMValueRef off = gen_xor_const(g, th, tbits * (uint32_t)eb, c * (uint32_t)eb);
        LLVMValueRef addr =
            LLVMBuildPtrToInt(g->B, LLVMBuildGEP2(g->B, g->i8, base, &off, 1, ""), g->i32, "");
        LLVMValueRef res = gen_asm(g, text, cons, rty, &addr, 1, true);
        for (int m = 0; m < p->mats; m++) {
            LLVMValueRef w = p->mats == 1 ? res : LLVMBuildExtractValue(g->B, res, (unsigned)m, "");
            if (E == 1) {
                out[r0 + m] = LLVMBuildBitCast(g->B, w, et, "");
                continue;
            }
            LLVMValueRef v = LLVMBuildBitCast(g->B, w, vt, "");
            for (int e = 0; e < E; e++)
                out[r0 + m * E + e] = LLVMBuildExtractElement(g->B, v, gen_i32(g, e), "");
        }
    }
    return out;
}

/* ---- convert_layout through a scratch laid out for 16-byte stores and ldmatrix ---- */

/* The scratch's offset bits as a shared layout (offset -> row-major index), built one
 * basis at a time: appends x as the next offset bit unless it is 0 or already the image
 * of the bits so far (ll_solve's elimination). */
static bool offset_add(LinearLayout *off, uint32_t x) {
    uint32_t c;
    if (ll_solve(off, LL_OFFSET, x, &c) || off->nbits[LL_OFFSET] == LL_MAX_BITS) return false;
    ll_push(off, LL_OFFSET, x);
    return true;
}

/* Adds q to a span of 3-bit bank vectors (bits: which of the bank's basis vectors). */
static bool bank_add(uint8_t *spanned, uint8_t q) {
    if (spanned[q]) return false;
    uint8_t old[8];
    memcpy(old, spanned, sizeof old);
    for (int v = 0; v < 8; v++)
        if (old[v]) spanned[v ^ q] = 1;
    return true;
}

/* The scratch map of a conversion of 16-bit elements (row-major index -> element offset,
 * as a shared layout's inverse; inv[k] is the offset of index bit k), chosen so that the
 * source's threads write 16-byte vectors and the result's threads read them back with
 * ldmatrix, both without bank conflicts (Triton 3.6 converts a tensor-core result so; the
 * linear-layouts paper, arXiv:2505.23819, derives it). Offset bits 0-2 (one 16-byte chunk)
 * are the result's register bit 0 and lane bits 0-1, the elements ldmatrix hands one lane
 * from one row of a matrix; each must be a register bit of the source, so one source
 * thread holds the chunk. Bits 3-5 (which 16 bytes of a 128-byte line, the bank group)
 * are the result's lane bits 2-4, the eight rows one matrix reads. The source's lane bits
 * 0-2, the eight threads of one phase of a 16-byte store, must reach eight bank groups
 * too: each gets an offset basis of its own XORed with a bank vector no other of them
 * has. The rest of the offset follows the result's other bits, then the source's, then
 * any index bit left. src and dst are the two layouts' bases in the operand's index space
 * (dst through the op's index map); vbit gets the source's register bits of the chunk.
 * False where the layouts do not allow it (a copy bit, too few bits, a chunk split). */
static bool scratch_plan(const LinearLayout *src, const LinearLayout *dst, int nbits, uint32_t *inv,
                         int *vbit) {
    for (int in = 0; in < LL_NIN; in++)
        for (int i = 0; i < src->nbits[in]; i++)
            if (!src->basis[in][i]) return false;
    for (int in = 0; in < LL_NIN; in++)
        for (int i = 0; i < dst->nbits[in]; i++)
            if (!dst->basis[in][i]) return false;
    if (src->nbits[LL_LANE] != 5 || dst->nbits[LL_LANE] != 5 || dst->nbits[LL_REG] < 1 ||
        nbits > LL_MAX_BITS)
        return false;
    const uint32_t chunk[3] = {dst->basis[LL_REG][0], dst->basis[LL_LANE][0],
                               dst->basis[LL_LANE][1]};
    for (int k = 0; k < 3; k++) {
        vbit[k] = -1;
        for (int i = 0; i < src->nbits[LL_REG]; i++)
            if (src->basis[LL_REG][i] == chunk[k]) vbit[k] = i;
        if (vbit[k] < 0) return false;
    }
    LinearLayout off = *src; /* the operand's shape; no offset bits yet */
    memset(off.nbits, 0, sizeof off.nbits);
    for (int k = 0; k < 3; k++)
        if (!offset_add(&off, chunk[k])) return false;
    for (int k = 2; k < 5; k++)
        if (!offset_add(&off, dst->basis[LL_LANE][k])) return false;
    uint8_t banks[8] = {1}; /* the bank vectors the store's lanes reach so far */
    for (int k = 0; k < 3; k++) {
        uint32_t a = src->basis[LL_LANE][k], c;
        if (ll_solve(&off, LL_OFFSET, a, &c)) {
            bank_add(banks, (uint8_t)(c >> 3 & 7)); /* fixed already (a conflict if not new) */
            continue;
        }
        static const uint8_t order[7] = {1, 2, 4, 3, 5, 6, 7};
        uint32_t with = 0;
        for (int j = 0; j < 7; j++)
            if (bank_add(banks, order[j])) {
                for (int b = 0; b < 3; b++)
                    if (order[j] >> b & 1) with ^= dst->basis[LL_LANE][2 + b];
                break;
            }
        offset_add(&off, a ^ with); /* a = that vector ^ its bank vector */
    }
    for (int in = 0; in < LL_NIN; in++)
        for (int i = 0; i < dst->nbits[in]; i++) offset_add(&off, dst->basis[in][i]);
    for (int in = 0; in < LL_NIN; in++)
        for (int i = 0; i < src->nbits[in]; i++) offset_add(&off, src->basis[in][i]);
    for (int k = 0; k < nbits; k++) offset_add(&off, 1u << k);
    if (!ll_invert_offset(&off, inv)) return false;
    /* every source thread's chunk starts at a 16-byte boundary */
    for (int in = 0; in < LL_NIN; in++)
        for (int i = 0; i < src->nbits[in]; i++)
            if (in != LL_REG || (i != vbit[0] && i != vbit[1] && i != vbit[2]))
                if (offset_of(inv, src->basis[in][i]) & 7) return false;
    return true;
}

bool gen_convert_ldmatrix(Gen *g, const IrOp *op, const uint32_t *map) {
    ValId s = op->operands[0], r = op->results[0];
    IrType st = ir_type(g->f, s);
    if (st.dt == DT_I1 || dt_bytes(st.dt) != 2 || !op->smem_size) return false;
    const GenLayout *sl = gen_layout(g, s), *rl = gen_layout(g, r);
    int nbits = 0;
    for (int d = 0; d < st.rank; d++) nbits += sl->ll.log2shape[d];
    LinearLayout dst = rl->ll; /* its bases in the operand's index space */
    for (int in = 0; in < LL_NIN; in++)
        for (int i = 0; i < dst.nbits[in]; i++)
            dst.basis[in][i] = moves_apply(map, dst.basis[in][i]);
    TileMap ts, td;
    memset(&ts, 0, sizeof ts), memset(&td, 0, sizeof td);
    if (!scratch_plan(&sl->ll, &dst, nbits, ts.inv, ts.vbit)) return false;
    int dbits = 0;
    for (int d = 0; d < ir_type(g->f, r).rank; d++) dbits += rl->ll.log2shape[d];
    for (int k = 0; k < dbits; k++) td.inv[k] = offset_of(ts.inv, moves_apply(map, 1u << k));
    td.gl = rl, td.eb = 2, td.here = true;
    Ldm plan;
    if (!ldmatrix_plan(&td, 2, &plan) || plan.trans) return false;
    ts.gl = sl, ts.eb = 2, ts.vbits = 3, ts.here = true;
    LLVMValueRef off = gen_i32(g, (int32_t)op->smem_offset);
    LLVMValueRef base = LLVMBuildGEP2(g->B, g->i8, g->smem, &off, 1, "");
    tile_map_thread(g, &ts);
    store_tile(g, s, &ts, base);
    gen_barrier(g);
    gen_set(g, r, ldmatrix_load(g, &td, &plan, ir_type(g->f, r), base), 1 << rl->ll.nbits[LL_REG]);
    return true;
}

static LLVMValueRef *gen_load_tile(Gen *g, IrType t, uint32_t dst_layout, LLVMValueRef base,
                                   uint32_t shared) {
    const GenLayout *gl = gen_layout_of(g, dst_layout, t);
    int eb = elem_bytes(t.dt), n = 1 << gl->ll.nbits[LL_REG];
    TileMap tm;
    tile_map(g, &tm, gl, shared, t, eb);
    Ldm plan;
    if (g->m->layouts[dst_layout].kind == LAYOUT_DOT_OP && ldmatrix_plan(&tm, eb, &plan))
        return ldmatrix_load(g, &tm, &plan, t, base);
    tm.vbits = moves_smem_vector(g->m, gl->id, shared, t, eb, 16, tm.vbit);
    LLVMValueRef *out = gen_alloc_regs(g, n);
    int v = 1 << tm.vbits;
    for (int r = 0; r < n; r++) {
        if (!vec_start(&tm, r)) continue;
        LLVMValueRef x = LLVMBuildLoad2(g->B, vec_of(g, t.dt, v), tile_ptr(g, &tm, base, r), "");
        LLVMSetAlignment(x, (unsigned)(eb * v));
        for (int k = 0; k < v; k++)
            out[vec_reg(&tm, r, k)] = gen_from_mem(
                g, v == 1 ? x : LLVMBuildExtractElement(g->B, x, gen_i32(g, k), ""), t.dt);
    }
    return out;
}

/* ---- cp.async ---- */

int gen_async_copy_width(const IrFunc *f, const AxisInfo *info, const IrOp *op, int *layout_run,
                         int *fast_dim) {
    ValId buf = op->operands[0], ptr = op->operands[1], mask = op->nopnds > 2 ? op->operands[2] : 0;
    IrType pt = f->vals[ptr].ty;
    int eb = dt_bytes(pt.pointee), fast = 0;
    LinearLayout l;
    ir_layout_linear(f->mod, f->vals[ptr].layout, pt, &l);
    int v = moves_smem_run(f->mod, f->vals[ptr].layout, f->vals[buf].layout, pt, eb, 16);
    for (int d = 0; d < pt.rank; d++)
        if (l.nbits[LL_REG] && l.basis[LL_REG][0] == 1u << ll_dim_shift(&l, d)) fast = d;
    *layout_run = v;
    if (fast_dim) *fast_dim = fast;
    /* a mask whose true elements are a prefix of each run (the tile's edge inside it): the
     * copy's source size counts them (async_copy) */
    int proven = axis_info_copy_width(f, info, ptr, mask, eb, fast);
    while (v > proven) v /= 2;
    return v;
}

/* The source size of a copy whose mask is true on a prefix of its run, from one comparison:
 * where the mask is an `and` of values constant over the run but one, `x < b` (x <= b,
 * b > x, b >= x: axis_info's prefix form, x rising by one over the run, b constant over
 * it), its true elements number min(b - x0, v) when the run's first element is true (x0 its
 * x), else none. PrefixLeaf is that comparison's x and b at the run's first register, found
 * by following the register down the tree (ands keep it, broadcast and expand_dims renumber
 * it as their local moves do). found_leaf: false where the mask is anything else (an `or`, a
 * second varying leaf, a move across threads): the caller sums the mask's bits instead. */
typedef struct PrefixLeaf {
    LLVMValueRef x, b;
    bool le, found;
} PrefixLeaf;

static bool prefix_leaf(Gen *g, ValId m, int reg, int dim, int v, PrefixLeaf *leaf, int depth) {
    const IrFunc *f = g->f;
    IrType t = f->vals[m].ty;
    if (!t.rank || dim >= t.rank) return false;
    if (g->info[m].constancy[dim] >= v) return true; /* constant over the run */
    OpId id = f->vals[m].is_arg ? 0 : ir_def(f, m);
    if (!id || depth > 16) return false;
    const IrOp *op = &f->ops[id];
    switch (op->code) {
    case OP_AND:
        return prefix_leaf(g, op->operands[0], reg, dim, v, leaf, depth + 1) &&
               prefix_leaf(g, op->operands[1], reg, dim, v, leaf, depth + 1);
    case OP_BROADCAST:
    case OP_EXPAND_DIMS: {
        IrType st = f->vals[op->operands[0]].ty;
        if (!st.rank || !moves_is_local(f, id)) return false;
        int sdim = dim;
        if (op->code == OP_EXPAND_DIMS) {
            int axis = (int)op->attr[0];
            if (dim == axis) return true; /* the new unit dim: constant */
            sdim = dim < axis ? dim : dim - 1;
        } else if (st.shape[dim] == 1) return true;
        uint32_t map[LL_MAX_BITS], src;
        moves_index_map(f, op, map);
        const GenLayout *sl = gen_layout(g, op->operands[0]), *rl = gen_layout(g, m);
        if (!ll_solve(&sl->ll, LL_REG,
                      moves_apply(map, ll_apply_dim(&rl->ll, LL_REG, (uint32_t)reg)), &src))
            return false;
        return prefix_leaf(g, op->operands[0], (int)src, sdim, v, leaf, depth + 1);
    }
    case OP_CMP: {
        ValId x, b;
        if (leaf->found || axis_info_prefix_cmp(f, g->info, id, dim, &x, &b, &leaf->le) < v)
            return false;
        leaf->x = gen_vals(g, x, NULL)[reg];
        leaf->b = gen_vals(g, b, NULL)[reg];
        leaf->found = true;
        return true;
    }
    default: return false;
    }
}

/* The bytes a partial copy moves at register r: min(b - x0, v) elements (b - x0 + 1 for <=)
 * when the run's first element is true. The difference is taken unsigned: with x0 < b it is
 * the exact positive distance even where the signed one would wrap. NULL: no single leaf. */
static LLVMValueRef prefix_bytes(Gen *g, ValId mask, LLVMValueRef first, int r, int dim, int v,
                                 int eb) {
    PrefixLeaf leaf = {0};
    if (!prefix_leaf(g, mask, r, dim, v, &leaf, 0) || !leaf.found) return NULL;
    LLVMTypeRef it = LLVMTypeOf(leaf.x);
    LLVMValueRef d = LLVMBuildSub(g->B, leaf.b, leaf.x, "");
    LLVMValueRef cap = LLVMConstInt(it, (unsigned long long)(leaf.le ? v - 1 : v), false);
    LLVMValueRef lt = LLVMBuildICmp(g->B, LLVMIntULT, d, cap, "");
    LLVMValueRef n = LLVMBuildSelect(g->B, lt, d, cap, "");
    if (leaf.le) n = LLVMBuildAdd(g->B, n, LLVMConstInt(it, 1, false), "");
    n = LLVMBuildIntCast2(g->B, n, g->i32, false, "");
    return LLVMBuildSelect(g->B, first, gen_mul_const(g, n, eb), gen_i32(g, 0), "");
}

static void async_copy(Gen *g, const IrOp *op) {
    ValId buf = op->operands[0], ptr = op->operands[1], mask = op->nopnds > 2 ? op->operands[2] : 0;
    IrType pt = ir_type(g->f, ptr);
    int dt = pt.pointee, eb = dt_bytes(dt), n, run;
    const GenLayout *gl = gen_layout(g, ptr);
    TileMap tm;
    tile_map(g, &tm, gl, g->f->vals[buf].layout, pt, eb);
    int fast, v = gen_async_copy_width(g->f, g->info, op, &run, &fast);
    /* a mask not constant over a copy's run is a prefix of it there: the source size is
     * its true elements' bytes, the rest of the run zero-filled */
    bool partial = mask && pt.rank && g->info[mask].constancy[fast] < v;
    if (v * eb < 4)
        gen_error(g, op->loc,
                  "internal error: async_copy of %d-byte pieces (llvm_check.c lets none by)",
                  v * eb);
    LLVMValueRef *P = gen_vals(g, ptr, &n), *M = mask ? gen_vals(g, mask, NULL) : NULL,
                 base = gen_vals(g, buf, NULL)[0];
    int bytes = v * eb;
    char text[128];
    /* the shared address as one 32-bit base (this tile's slot plus the thread's offset)
     * and a constant per copy, in that order: LLVM keeps the sum so, with the constant
     * folded into the instruction, rather than hoisting a register per copy out of the
     * loop (its other reading of base + (thread + c)) */
    LLVMValueRef tb = LLVMBuildPtrToInt(g->B, tile_ptr(g, &tm, base, 0), g->i32, "");
    uint32_t c0 = offset_of(tm.inv, ll_apply_dim(&gl->ll, LL_REG, 0));
    for (int r = 0; r < n; r += v) {
        LLVMValueRef once = gen_layout_unique(g, gl, r);
        if (never(once)) continue;
        uint32_t c = offset_of(tm.inv, ll_apply_dim(&gl->ll, LL_REG, (uint32_t)r));
        LLVMValueRef dst = !((c ^ c0) & tm.thread_bits) && !(c0 & tm.thread_bits) && c >= c0
                               ? gen_add_const(g, tb, (int64_t)(c - c0) * eb)
                               : LLVMBuildPtrToInt(g->B, tile_ptr(g, &tm, base, r), g->i32, "");
        LLVMValueRef size = partial ? prefix_bytes(g, mask, M[r], r, fast, v, eb) : NULL;
        if (!size && partial) { /* no single comparison: the sum of the run's mask bits */
            size = LLVMBuildZExt(g->B, M[r], g->i32, "");
            for (int i = 1; i < v; i++)
                size = LLVMBuildAdd(g->B, size, LLVMBuildZExt(g->B, M[r + i], g->i32, ""), "");
            size = gen_mul_const(g, size, eb);
        } else if (!size)
            size = M ? LLVMBuildSelect(g->B, M[r], gen_i32(g, bytes), gen_i32(g, 0), "")
                     : gen_i32(g, bytes);
        LLVMValueRef args[4];
        int na = 0;
        if (once) args[na++] = once;
        args[na++] = dst, args[na++] = P[r], args[na++] = size;
        snprintf(text, sizeof text, "%scp.async.%s.shared.global [$%d], [$%d], %d, $%d;",
                 once ? "@$0 " : "", bytes == 16 ? "cg" : "ca", once ? 1 : 0, once ? 2 : 1, bytes,
                 once ? 3 : 2);
        gen_asm(g, text, once ? "b,r,l,r,~{memory}" : "r,l,r,~{memory}", g->vd, args, na, true);
    }
}

/* ---- the ops ---- */

void gen_local(Gen *g, OpId id) {
    IrOp *op = &g->f->ops[id];
    switch (op->code) {
    case OP_LOCAL_ALLOC: {
        LLVMValueRef *r = gen_alloc_regs(g, 1);
        LLVMValueRef off = gen_i32(g, op->smem_offset);
        if (!op->smem_size) gen_error(g, op->loc, "internal error: a buffer without shared memory");
        r[0] = LLVMBuildGEP2(g->B, g->i8, g->smem, &off, 1, "");
        gen_set(g, op->results[0], r, 1);
        if (op->nopnds) gen_store_tile(g, op->operands[0], r[0], g->f->vals[op->results[0]].layout);
        return;
    }
    case OP_LOCAL_VIEW: {
        ValId b = op->operands[0];
        int64_t stage = ir_smem_stage_bytes(g->m, g->f->vals[b].layout, ir_type(g->f, b));
        LLVMValueRef off = gen_mul_const(g, gen_vals(g, op->operands[1], NULL)[0], stage);
        LLVMValueRef *r = gen_alloc_regs(g, 1);
        r[0] = LLVMBuildGEP2(g->B, g->i8, gen_vals(g, b, NULL)[0], &off, 1, "");
        gen_set(g, op->results[0], r, 1);
        return;
    }
    case OP_LOCAL_STORE:
        gen_store_tile(g, op->operands[1], gen_vals(g, op->operands[0], NULL)[0],
                       g->f->vals[op->operands[0]].layout);
        return;
    case OP_LOCAL_LOAD: {
        ValId r = op->results[0];
        IrType t = ir_type(g->f, r);
        LLVMValueRef *out =
            gen_load_tile(g, t, g->f->vals[r].layout, gen_vals(g, op->operands[0], NULL)[0],
                          g->f->vals[op->operands[0]].layout);
        gen_set(g, r, out, gen_nregs(g, r));
        return;
    }
    case OP_ASYNC_COPY: async_copy(g, op); return;
    case OP_ASYNC_COMMIT:
        gen_asm(g, "cp.async.commit_group;", "~{memory}", g->vd, NULL, 0, true);
        return;
    case OP_ASYNC_WAIT: {
        char text[48];
        snprintf(text, sizeof text, "cp.async.wait_group %d;", (int)op->attr[0]);
        gen_asm(g, text, "~{memory}", g->vd, NULL, 0, true);
        return;
    }
    case OP_FENCE_ASYNC: /* {global = 1}: every state space */
        gen_asm(g, op->attr[0] ? "fence.proxy.async;" : "fence.proxy.async.shared::cta;",
                "~{memory}", g->vd, NULL, 0, true);
        return;
    default: NR_DIE("gen_local: %s", ir_op_info[op->code].name);
    }
}
