/* sema_blockptr.c - block pointers (tl.make_block_ptr, tl.advance) and tensor
 * descriptors (tl.make_tensor_descriptor, desc.load/store), lowered by the front end to
 * the pointer blocks and masks a kernel would write by hand, so that every back end and
 * every GPU pass (coalescing, vector widths, cp.async pipelining) sees ordinary loads and
 * stores.
 *
 * A block pointer is a tagged tuple (sema_internal.h): its run-time parts are items (the
 * base pointer, the shape, strides and offsets as i64), so loops carry them and helpers
 * take them as any tuple; the block shape and order are in the Val. Offsets are given as
 * i32 (make_block_ptr's and advance's, as Triton requires; a wider one is an error) and
 * kept as i64, as Triton's rewrite of block pointers keeps them: advancing in a loop never
 * wraps at 2^31. Loading or storing through it addresses
 *   base + sum over d of (offsets[d] + arange(0, block_shape[d])) * strides[d]
 * (in i64, each term expanded along its dim; computed as a scalar base plus a block that
 * does not change as the offsets advance, sema_block_ptr_address), and boundary_check's dims d add
 *   0 <= offsets[d] + arange(0, block_shape[d]) < shape[d]
 * (in i64) to the mask. A tensor descriptor has no offsets of its own: each load or store gives
 * them, and every dim is checked (what TMA does in hardware: out of bounds, loads read the
 * padding and stores write nothing). `order` is checked and otherwise unused: layout
 * assignment finds the contiguous dim from the addresses. */
#include <stdlib.h>
#include <string.h>

#include "sema_internal.h"

static Val one(Val v, int i) { return v.k == V_TUPLE ? v.items[i] : v; }
static int count(Val v) { return v.k == V_TUPLE ? v.n : 1; }

/* Each item of a tuple (or a lone value for rank 1) as an IR scalar of dtype dt. */
static void scalars(Sema *S, Val v, int rank, int dt, const char *what, const char *fn, Loc loc,
                    Val *out) {
    if (v.k == V_TUPLE && v.tag)
        sema_error(S, loc, "%s: %s must be a tuple of integers, got %s", fn, what,
                   sema_val_kind_name(S, v));
    if (count(v) != rank)
        sema_error(S, loc, "%s: %s has %d entr%s for a block of rank %d", fn, what, count(v),
                   count(v) == 1 ? "y" : "ies", rank);
    for (int i = 0; i < rank; i++) {
        Val x = one(v, i);
        bool ok = (x.k == V_INT || x.k == V_BOOL) ||
                  (x.k == V_IR && x.ty.rank == 0 && dt_is_int(x.ty.dt) && x.ty.dt != DT_I1);
        if (!ok)
            sema_error(S, loc, "%s: %s must hold integers (compile-time or scalars), got %s", fn,
                       what, sema_val_kind_name(S, x));
        out[i] = sema_val_ir(S, sema_to_ir_dt(S, x, dt, loc));
    }
}

/* Each offset of a tuple as i32: compile-time ints, or run-time scalars that are i32, as
 * Triton requires of block pointers' and descriptors' offsets (a wider one would be
 * truncated: Triton refuses it, and so does this). */
static void offsets_i32(Sema *S, Val v, int rank, const char *fn, Loc loc, Val *out) {
    for (int i = 0; !(v.k == V_TUPLE && v.tag) && i < count(v); i++) { /* scalars() refuses tags */
        Val x = one(v, i);
        if (x.k == V_IR && x.ty.rank == 0 && dt_is_int(x.ty.dt) && x.ty.dt != DT_I1 &&
            x.ty.dt != DT_I32)
            sema_error(S, loc,
                       "%s: offsets must be 32-bit integers (as in Triton), got %s: add "
                       ".to(tl.int32), or index with pointers for 64-bit offsets",
                       fn, dt_name(x.ty.dt));
    }
    scalars(S, v, rank, DT_I32, "offsets", fn, loc, out);
}

/* Each offset of a tuple as i32 (offsets_i32), widened to i64. */
static void offsets_i64(Sema *S, Val v, int rank, const char *fn, Loc loc, Val *out) {
    offsets_i32(S, v, rank, fn, loc, out);
    for (int i = 0; i < rank; i++)
        out[i] = sema_val_ir(S, sema_emit_cast(S, out[i].v, ty_scalar(DT_I64), false, loc));
}

/* Compile-time ints of a tuple (or one int). */
static int const_ints(Sema *S, Val v, const char *what, const char *fn, Loc loc, int64_t *out) {
    int n = count(v);
    if (n < 1 || n > NR_MAX_RANK)
        sema_error(S, loc, "%s: %s must have 1 to %d entries, got %d", fn, what, NR_MAX_RANK, n);
    for (int i = 0; i < n; i++) {
        Val x = one(v, i);
        if (x.k != V_INT)
            sema_error(S, loc, "%s: %s must hold compile-time integers, got %s", fn, what,
                       sema_val_kind_name(S, x));
        out[i] = x.i;
    }
    return n;
}

static Val need_base(Sema *S, Val base, const char *fn, Loc loc) {
    if (base.k != V_IR || base.ty.dt != DT_PTR || base.ty.rank)
        sema_error(S, loc, "%s: base must be a pointer (a scalar), got %s", fn,
                   sema_val_kind_name(S, base));
    return base;
}

static Val tagged(Sema *S, int tag, const Val *items, int n, IrType block, int64_t extra) {
    Val t = sema_val_tuple(S, items, n);
    t.tag = tag;
    t.ty = block;
    t.i = extra;
    return t;
}

Val sema_block_ptr_make(Sema *S, const Val *args, const Loc *locs, Loc call) {
    const char *fn = "make_block_ptr";
    Val base = need_base(S, args[0], fn, locs[0]);
    int64_t bs[NR_MAX_RANK], order[NR_MAX_RANK];
    int rank = const_ints(S, args[4], "block_shape", fn, locs[4], bs);
    sema_check_shape(S, locs[4], rank, bs);
    int no = const_ints(S, args[5], "order", fn, locs[5], order);
    bool seen[NR_MAX_RANK] = {0};
    if (no != rank)
        sema_error(S, locs[5], "%s: order has %d entries for a block of rank %d", fn, no, rank);
    for (int i = 0; i < rank; i++) {
        if (order[i] < 0 || order[i] >= rank || seen[order[i]])
            sema_error(S, locs[5], "%s: order must be a permutation of 0 .. %d", fn, rank - 1);
        seen[order[i]] = true;
    }
    Val items[1 + 3 * NR_MAX_RANK];
    items[0] = base;
    scalars(S, args[1], rank, DT_I64, "shape", fn, locs[1], items + 1);
    scalars(S, args[2], rank, DT_I64, "strides", fn, locs[2], items + 1 + rank);
    offsets_i64(S, args[3], rank, fn, locs[3], items + 1 + 2 * rank);
    int32_t s[NR_MAX_RANK];
    for (int i = 0; i < rank; i++) s[i] = (int32_t)bs[i];
    int64_t packed = 0;
    for (int i = 0; i < rank; i++) packed |= order[i] << (4 * i);
    (void)call;
    return tagged(S, TAG_BLOCK_PTR, items, 1 + 3 * rank,
                  ty_block(ty_scalar(base.ty.pointee), rank, s), packed);
}

Val sema_block_ptr_advance(Sema *S, Val bp, Val offsets, Loc bp_loc, Loc off_loc) {
    if (bp.k != V_TUPLE || bp.tag != TAG_BLOCK_PTR)
        sema_error(S, bp_loc, "advance: expected a block pointer (tl.make_block_ptr), got %s",
                   sema_val_kind_name(S, bp));
    int rank = bp.ty.rank;
    Val add[NR_MAX_RANK];
    offsets_i64(S, offsets, rank, "advance", off_loc, add);
    Val *items = arena_alloc(S->arena, sizeof(Val) * (size_t)bp.n);
    memcpy(items, bp.items, sizeof(Val) * (size_t)bp.n);
    for (int i = 0; i < rank; i++) {
        Val x = one(offsets, i);
        if (x.k == V_INT && x.i == 0) continue; /* nothing moves along this dim */
        items[1 + 2 * rank + i] =
            sema_binary_op(S, BIN_ADD, items[1 + 2 * rank + i], add[i], off_loc);
    }
    return tagged(S, TAG_BLOCK_PTR, items, bp.n, bp.ty, bp.i);
}

/* v with the fact that it is a multiple of k (multiple_of), unless it is a constant (its
 * own value is the exact fact; one that breaks the rule is the caller's to report). */
static Val multiple_of(Sema *S, Val v, int64_t k, Loc loc) {
    IrFunc *f = sema_func(S);
    if (v.k != V_IR || k <= 1) return v;
    if (!f->vals[v.v].is_arg && f->ops[ir_def(f, v.v)].code == OP_CONST) return v;
    IrBuilder *b = sema_builder(S);
    Loc saved = b->loc;
    b->loc = loc;
    IrType t = f->vals[v.v].ty;
    OpId op = ir_build(b, OP_MULTIPLE_OF, &v.v, 1, &t, 1);
    sema_func(S)->ops[op].attr[0] = k;
    b->loc = saved;
    return sema_val_ir(S, ir_result(sema_func(S), op, 0));
}

Val sema_tensor_desc_make(Sema *S, const Val *args, const Loc *locs, Loc call) {
    const char *fn = "make_tensor_descriptor";
    Val base = need_base(S, args[0], fn, locs[0]);
    int64_t bs[NR_MAX_RANK];
    int rank = const_ints(S, args[3], "block_shape", fn, locs[3], bs);
    if (rank > NR_MAX_DESC_RANK) /* Triton's limit, in its words (TMA's) */
        sema_error(S, locs[3], "%s: Expected 1 <= ndim <= %d but got %d dimensions", fn,
                   NR_MAX_DESC_RANK, rank);
    sema_check_shape(S, locs[3], rank, bs);
    /* Triton requires the last stride to be 1; its launch makes an integer argument equal to
     * 1 the constant 1, so kernels pass it at run time. Here a run-time last stride is taken
     * as it comes (the addresses multiply by it like by the others: right for any value),
     * a compile-time one must be 1. */
    Val last = one(args[2], count(args[2]) - 1);
    if (count(args[2]) == rank && (last.k == V_INT || last.k == V_BOOL) && last.i != 1)
        sema_error(S, locs[2],
                   "%s: the last stride must be 1 (as in Triton: the last dim is "
                   "contiguous), got %lld",
                   fn, (long long)last.i);
    int64_t last_bytes = bs[rank - 1] * dt_bytes(base.ty.pointee);
    if (last_bytes < 16) /* Triton's check, in its words (a TMA box row is 16 bytes or more) */
        sema_error(S, locs[3],
                   "%s: Descriptor block shape must have at least 16 bytes in the last dimension, "
                   "but got %lld * %d = %lld bytes",
                   fn, (long long)bs[rank - 1], dt_bytes(base.ty.pointee), (long long)last_bytes);
    int pad = 0;
    if (args[4].k == V_STR && !strcmp(args[4].s, "nan")) pad = 1;
    else if (args[4].k != V_NONE &&
             !(args[4].k == V_STR && (!strcmp(args[4].s, "zero") || !*args[4].s)))
        sema_error(S, locs[4], "%s: padding_option must be \"zero\" or \"nan\", got %s%s%s", fn,
                   args[4].k == V_STR ? "\"" : "",
                   args[4].k == V_STR ? args[4].s : sema_val_kind_name(S, args[4]),
                   args[4].k == V_STR ? "\"" : "");
    if (pad && !dt_is_float(base.ty.pointee))
        sema_error(S, locs[4], "%s: padding_option \"nan\" needs a float element type, got %s", fn,
                   dt_name(base.ty.pointee));
    Val items[1 + 2 * NR_MAX_DESC_RANK];
    items[0] = base;
    scalars(S, args[1], rank, DT_I64, "shape", fn, locs[1], items + 1);
    scalars(S, args[2], rank, DT_I64, "strides", fn, locs[2], items + 1 + rank);
    /* Triton's contract for a descriptor (TMA's): the base 16-byte aligned, every stride but
     * the last a multiple of 16 bytes. The addresses may take it as a fact, as Triton's TMA
     * copies do (a kernel that breaks it faults on a misaligned vector access, as it does
     * under Triton: docs/language.md) */
    int eb = dt_bytes(base.ty.pointee);
    items[0] = multiple_of(S, base, 16, locs[0]);
    for (int i = 0; i + 1 < rank && eb <= 16 && 16 % eb == 0; i++)
        items[1 + rank + i] = multiple_of(S, items[1 + rank + i], 16 / eb, locs[2]);
    int32_t s[NR_MAX_DESC_RANK];
    for (int i = 0; i < rank; i++) s[i] = (int32_t)bs[i];
    (void)call;
    return tagged(S, TAG_TENSOR_DESC, items, 1 + 2 * rank,
                  ty_block(ty_scalar(base.ty.pointee), rank, s), pad);
}

/* arange(0, n) expanded to rank dims at dim d (i32) */
static Val index_along(Sema *S, int n, int rank, int d, Loc loc) {
    IrBuilder *b = sema_builder(S);
    Loc saved = b->loc;
    b->loc = loc;
    int32_t len = n;
    IrType t = ty_block(ty_scalar(DT_I32), 1, &len);
    OpId op = ir_build(b, OP_ARANGE, NULL, 0, &t, 1);
    sema_func(S)->ops[op].attr[0] = 0, sema_func(S)->ops[op].attr[1] = n;
    ValId v = ir_result(sema_func(S), op, 0);
    for (int k = 0; k < rank; k++) {
        if (k == d) continue;
        IrType r = ir_type(sema_func(S), v);
        int axis = k < d ? k : r.rank;
        memmove(r.shape + axis + 1, r.shape + axis, sizeof(int32_t) * (size_t)(r.rank - axis));
        r.shape[axis] = 1;
        r.rank++;
        op = ir_build(b, OP_EXPAND_DIMS, &v, 1, &r, 1);
        sema_func(S)->ops[op].attr[0] = axis;
        v = ir_result(sema_func(S), op, 0);
    }
    b->loc = saved;
    return sema_val_ir(S, v);
}

void sema_block_ptr_address(Sema *S, const char *fn, Val bp, const Val *offsets, Loc off_loc,
                            Val check, Loc check_loc, Loc call, ValId *ptrs, ValId *mask) {
    int rank = bp.ty.rank;
    bool desc = bp.tag == TAG_TENSOR_DESC;
    bool checked[NR_MAX_RANK] = {0};
    if (desc) {
        for (int d = 0; d < rank; d++) checked[d] = true;
    } else if (check.k != V_NONE) {
        int n = check.k == V_TUPLE ? check.n : 1;
        for (int i = 0; i < n; i++) {
            Val x = check.k == V_TUPLE ? check.items[i] : check;
            if (x.k != V_INT || x.i < 0 || x.i >= rank)
                sema_error(S, check_loc,
                           "%s: boundary_check must list dims of the block (0 to %d), got %s", fn,
                           rank - 1, sema_val_kind_name(S, x));
            if (checked[x.i])
                sema_error(S, check_loc, "%s: boundary_check lists dim %lld twice", fn,
                           (long long)x.i);
            checked[x.i] = true;
        }
    }
    Val off[NR_MAX_RANK];
    if (offsets) offsets_i32(S, *offsets, rank, fn, off_loc, off);
    else
        for (int d = 0; d < rank; d++) off[d] = bp.items[1 + 2 * rank + d];
    /* A block pointer's (offsets[d] + arange) * strides[d] is computed as offsets[d] *
     * strides[d] (a scalar, added to the base) plus arange * strides[d] (a block that does
     * not change as the offsets advance): the same i64 sum, but a loop that advances the
     * block pointer recomputes one scalar product per dim, not one 64-bit product per row
     * (LLVM's loop strength reduction is off, llvm_gen.c). A descriptor's offsets are given
     * at each access (i32, as Triton's): (offsets[d] + arange) in i32, widened, times the
     * stride, which keeps the per-row values out of registers across its loops. */
    Val base = bp.items[0], addr = sema_val_none(), m = sema_val_none();
    for (int d = 0; d < rank; d++) {
        Val along = index_along(S, bp.ty.shape[d], rank, d, call);
        Val stride = bp.items[1 + rank + d], idx, wide, term;
        if (offsets) {
            idx = sema_binary_op(S, BIN_ADD, along, off[d], call);
            wide = sema_val_ir(S, sema_emit_cast(S, idx.v, ty_scalar(DT_I64), false, call));
            term = sema_binary_op(S, BIN_MUL, wide, stride, call);
        } else {
            along = sema_val_ir(S, sema_emit_cast(S, along.v, ty_scalar(DT_I64), false, call));
            idx = wide = sema_binary_op(S, BIN_ADD, along, off[d], call);
            term = sema_binary_op(S, BIN_MUL, along, stride, call);
            base = sema_binary_op(S, BIN_ADD, base,
                                  sema_binary_op(S, BIN_MUL, off[d], stride, call), call);
        }
        addr = d ? sema_binary_op(S, BIN_ADD, addr, term, call) : term;
        if (!checked[d]) continue;
        Val in = sema_binary_op(S, BIN_AND, sema_compare_op(S, CMP_GE, idx, sema_val_int(0), call),
                                sema_compare_op(S, CMP_LT, wide, bp.items[1 + d], call), call);
        m = m.k == V_NONE ? in : sema_binary_op(S, BIN_AND, m, in, call);
    }
    IrType full = ty_with_elem(bp.ty, ty_scalar(DT_I64));
    ValId a = sema_emit_broadcast(S, addr.v, full, call);
    *ptrs = sema_binary_op(S, BIN_ADD, base, sema_val_ir(S, a), call).v;
    *mask = m.k == V_NONE
                ? 0
                : sema_emit_broadcast(S, m.v, ty_with_elem(bp.ty, ty_scalar(DT_I1)), call);
}

/* ---- descriptors the host passes (tdesc parameters) ----
 * A parameter annotated "tensordesc<fp16[64, 64]>" (Triton's signature spelling; the
 * dims may name constexprs) is a tdesc value: its loads and stores are desc_load and
 * desc_store ops, left whole for the back ends (the GPU's TMA takes them on sm_90a;
 * elsewhere pass_expand_descriptors makes them the accesses above), and its sizes and
 * strides are read with desc_part. */

Val sema_desc_part(Sema *S, Val d, int part, Loc loc) {
    IrBuilder *b = sema_builder(S);
    Loc saved = b->loc;
    b->loc = loc;
    IrType t = part ? ty_scalar(DT_I64) : ty_ptr(d.ty.pointee);
    OpId op = ir_build(b, OP_DESC_PART, &d.v, 1, &t, 1);
    sema_func(S)->ops[op].attr[0] = part;
    b->loc = saved;
    return sema_val_ir(S, ir_result(sema_func(S), op, 0));
}

Val sema_host_desc_tuple(Sema *S, Val d, Loc loc) {
    int r = d.ty.rank;
    Val items[1 + 2 * NR_MAX_DESC_RANK];
    for (int p = 0; p < 2 * r; p++) items[p] = sema_desc_part(S, d, p, loc);
    items[2 * r] = sema_val_ir(S, sema_emit_const(S, ty_scalar(DT_I64), sema_val_int(1), loc));
    return tagged(S, TAG_TENSOR_DESC, items, 1 + 2 * r,
                  ty_block(ty_scalar(d.ty.pointee), r, d.ty.shape), 0);
}

/* desc_load (value 0) or desc_store of a host descriptor at `offsets`. */
Val sema_host_desc_access(Sema *S, const char *fn, Val d, Val offsets, Loc off_loc, ValId value,
                          Loc call) {
    int rank = d.ty.rank;
    Val off[NR_MAX_DESC_RANK];
    offsets_i32(S, offsets, rank, fn, off_loc, off);
    ValId ops[2 + NR_MAX_DESC_RANK];
    int n = 0;
    ops[n++] = d.v;
    for (int i = 0; i < rank; i++) ops[n++] = off[i].v;
    if (value) ops[n++] = value;
    IrBuilder *b = sema_builder(S);
    Loc saved = b->loc;
    b->loc = call;
    IrType tile = ty_block(ty_scalar(d.ty.pointee), rank, d.ty.shape);
    OpId op =
        ir_build(b, value ? OP_DESC_STORE : OP_DESC_LOAD, ops, (uint32_t)n, &tile, value ? 0 : 1);
    b->loc = saved;
    return value ? sema_val_none() : sema_val_ir(S, ir_result(sema_func(S), op, 0));
}

static bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool sema_desc_param_type(Sema *S, const char *text, const char *param, Loc loc, IrType *out) {
    const char *s = text;
    while (*s == ' ') s++;
    if (strncmp(s, "tensordesc<", 11)) return false;
    s += 11;
    const char *name = s;
    while (is_ident_char(*s) || *s == '.') s++;
    char dtname[32];
    size_t len = (size_t)(s - name);
    if (!len || len >= sizeof dtname || *s != '[')
        sema_error(S, loc, "parameter '%s': expected 'tensordesc<DTYPE[D0, D1, ...]>', got '%s'",
                   param, text);
    memcpy(dtname, name, len);
    dtname[len] = 0;
    IrType elem;
    const Val *named = sema_env_lookup(S->fs->env, dtname); /* an element type constexpr */
    bool ok = sema_signature_type(dtname, &elem);
    if (!ok && named && named->k == V_DTYPE) elem = named->ty, ok = true;
    if (!ok && named && named->k == V_STR) ok = sema_signature_type(named->s, &elem);
    if (!ok || elem.dt == DT_PTR || elem.dt == DT_I1) {
        sema_check_dtype_name(S, strncmp(dtname, "tl.", 3) ? dtname : dtname + 3, loc);
        sema_error(S, loc,
                   "parameter '%s': '%s' is not an element type a tensor descriptor can hold",
                   param, dtname);
    }
    int64_t dims[NR_MAX_DESC_RANK];
    int rank = 0;
    s++; /* '[' */
    for (;;) {
        while (*s == ' ') s++;
        if (rank == NR_MAX_DESC_RANK)
            sema_error(S, loc, "parameter '%s': a tensor descriptor has at most %d dims", param,
                       NR_MAX_DESC_RANK);
        if (*s >= '0' && *s <= '9') {
            char *end;
            dims[rank++] = strtoll(s, &end, 10);
            s = end;
        } else if (is_ident_char(*s)) {
            const char *w = s;
            while (is_ident_char(*s)) s++;
            char word[64];
            size_t wl = (size_t)(s - w) < sizeof word - 1 ? (size_t)(s - w) : sizeof word - 1;
            memcpy(word, w, wl);
            word[wl] = 0;
            const Val *v = sema_env_lookup(S->fs->env, word);
            if (!v || v->k != V_INT)
                sema_error(
                    S, loc,
                    "parameter '%s': the block dim '%s' must be an integer or an int constexpr",
                    param, word);
            dims[rank++] = v->i;
        } else {
            sema_error(S, loc, "parameter '%s': expected a block dim in '%s'", param, text);
        }
        while (*s == ' ') s++;
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == ']') break;
        sema_error(S, loc, "parameter '%s': expected ',' or ']' in '%s'", param, text);
    }
    s++;
    while (*s == ' ') s++;
    if (*s != '>' || s[1])
        sema_error(S, loc, "parameter '%s': expected '>' to end '%s'", param, text);
    sema_check_shape(S, loc, rank, dims);
    int32_t shape[NR_MAX_DESC_RANK];
    for (int i = 0; i < rank; i++) shape[i] = (int32_t)dims[i];
    *out = ty_tdesc(elem.dt, rank, shape);
    return true;
}
