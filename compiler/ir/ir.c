/* ir.c - IR types, the op table, and construction: modules, functions, regions, ops,
 * the builder and deep cloning (used by inlining). */
#include "ir.h"

#include <stdio.h>
#include <string.h>

#include "compiler/support/fp8.h"

const OpInfo ir_op_info[OP_COUNT] = {
#define OP(e, name, nop, nres, nreg, flags, attrs) {name, nop, nres, nreg, flags, attrs},
#include "ir_ops.def"
#undef OP
};

int ir_op_from_name(const char *name) {
    for (int i = 0; i < OP_COUNT; i++)
        if (!strcmp(ir_op_info[i].name, name)) return i;
    return -1;
}

static const char *const dt_names[DT_COUNT] = {
    "void",     "i1",      "i8",       "i16",  "i32",  "i64",   "u8",      "u16",
    "u32",      "u64",     "fp16",     "bf16", "fp32", "fp64",  "fp8e4nv", "fp8e5",
    "fp8e4b15", "fp8e4b8", "fp8e5b16", "ptr",  "smem", "tdesc",
};

const char *dt_name(int dt) { return dt >= 0 && dt < DT_COUNT ? dt_names[dt] : "?"; }

int dt_from_name(const char *name) {
    for (int i = DT_I1; i < DT_PTR; i++)
        if (!strcmp(dt_names[i], name)) return i;
    return DT_VOID;
}

int dt_bits(int dt) {
    switch (dt) {
    case DT_I1: return 1;
    case DT_I8:
    case DT_U8:
    case DT_FP8E4NV:
    case DT_FP8E5:
    case DT_FP8E4B15:
    case DT_FP8E4B8:
    case DT_FP8E5B16: return 8;
    case DT_I16:
    case DT_U16:
    case DT_FP16:
    case DT_BF16: return 16;
    case DT_I32:
    case DT_U32:
    case DT_FP32: return 32;
    case DT_I64:
    case DT_U64:
    case DT_FP64:
    case DT_PTR: return 64;
    default: return 0;
    }
}

int dt_bytes(int dt) { return dt == DT_I1 ? 1 : dt_bits(dt) / 8; }
bool dt_is_float(int dt) { return dt >= DT_FP16 && dt <= DT_FP8E5B16; }
bool dt_is_fp8(int dt) { return dt >= DT_FP8E4NV && dt <= DT_FP8E5B16; }
bool dt_is_fp8_ocp(int dt) { return dt == DT_FP8E4NV || dt == DT_FP8E5; }
int dt_fp8_format(int dt) { return dt - DT_FP8E4NV; }
_Static_assert(DT_FP8E5 - DT_FP8E4NV == NR_FP8_E5M2 && DT_FP8E4B15 - DT_FP8E4NV == NR_FP8_E4M3B15 &&
                   DT_FP8E4B8 - DT_FP8E4NV == NR_FP8_E4M3FNUZ &&
                   DT_FP8E5B16 - DT_FP8E4NV == NR_FP8_E5M2FNUZ,
               "the fp8 dtypes are in NrFp8Format's order");
bool dt_is_scalar(int dt) { return dt >= DT_I1 && dt < DT_PTR; }
bool dt_is_int(int dt) { return dt >= DT_I1 && dt <= DT_U64; }
bool dt_is_signed(int dt) { return dt >= DT_I8 && dt <= DT_I64; }

IrType ty_scalar(int dt) {
    IrType t;
    memset(&t, 0, sizeof t);
    t.dt = (uint8_t)dt;
    return t;
}

IrType ty_ptr(int pointee) {
    IrType t = ty_scalar(DT_PTR);
    t.pointee = (uint8_t)pointee;
    return t;
}

IrType ty_smem(int elem, int rank, const int32_t *shape, int stages) {
    IrType t = ty_scalar(DT_SMEM);
    t.pointee = (uint8_t)elem;
    t.rank = (uint8_t)rank;
    t.stages = (uint8_t)stages;
    for (int i = 0; i < rank; i++) t.shape[i] = shape[i];
    return t;
}

IrType ty_tdesc(int elem, int rank, const int32_t *shape) {
    IrType t = ty_smem(elem, rank, shape, 0);
    t.dt = DT_TDESC;
    return t;
}

bool ty_is_tdesc(IrType t) { return t.dt == DT_TDESC; }
bool ty_is_block(IrType t) { return t.rank > 0 && t.dt != DT_SMEM && t.dt != DT_TDESC; }

IrType ty_block(IrType elem, int rank, const int32_t *shape) {
    IrType t = ty_elem(elem);
    t.rank = (uint8_t)rank;
    for (int i = 0; i < rank; i++) t.shape[i] = shape[i];
    return t;
}

IrType ty_elem(IrType t) {
    IrType e = ty_scalar(t.dt);
    e.pointee = t.pointee;
    return e;
}

IrType ty_with_elem(IrType shape_of, IrType elem) {
    return ty_block(elem, shape_of.rank, shape_of.shape);
}

bool ty_same_shape(IrType a, IrType b) {
    if (a.rank != b.rank) return false;
    for (int i = 0; i < a.rank; i++)
        if (a.shape[i] != b.shape[i]) return false;
    return true;
}

bool ty_same_but_unit_dims(IrType a, IrType b) {
    if (!a.rank || !b.rank || a.shape[a.rank - 1] != b.shape[b.rank - 1]) return false;
    int i = 0, j = 0;
    for (;;) {
        while (i < a.rank && a.shape[i] == 1) i++;
        while (j < b.rank && b.shape[j] == 1) j++;
        if (i == a.rank || j == b.rank) return i == a.rank && j == b.rank;
        if (a.shape[i++] != b.shape[j++]) return false;
    }
}

bool ty_equal(IrType a, IrType b) {
    if (a.dt != b.dt || !ty_same_shape(a, b)) return false;
    if (a.dt == DT_PTR) return a.pointee == b.pointee;
    if (a.dt == DT_SMEM || a.dt == DT_TDESC) return a.pointee == b.pointee && a.stages == b.stages;
    return true;
}

int64_t ir_asm_regs(int dt, int64_t pack) {
    int w = dt_bits(dt);
    if (w >= 32 || pack == 1) return pack;
    int64_t per = 32 / w < pack ? 32 / w : pack;
    return pack / per;
}

int ir_asm_operands(const char *c, size_t len) {
    int n = 0;
    for (const char *p = c, *end = c + len; p < end;) {
        const char *e = memchr(p, ',', (size_t)(end - p));
        if (!e) e = end;
        while (p < e && *p == ' ') p++;
        if (p < e && *p != '~') n++;
        p = e < end ? e + 1 : end;
    }
    return n;
}

int64_t ty_numel(IrType t) {
    int64_t n = 1;
    for (int i = 0; i < t.rank; i++) n *= t.shape[i];
    return n;
}

bool ty_is_ptr(IrType t) { return t.dt == DT_PTR; }

char *ty_str(IrType t, char *buf, size_t size) {
    char elem[32];
    if (t.dt == DT_SMEM) {
        size_t n = (size_t)snprintf(buf, size, "smem<");
        for (int i = 0; i < t.rank && n < size; i++)
            n += (size_t)snprintf(buf + n, size - n, "%dx", t.shape[i]);
        if (n < size) n += (size_t)snprintf(buf + n, size - n, "%s", dt_name(t.pointee));
        if (n < size && t.stages > 1)
            n += (size_t)snprintf(buf + n, size - n, ", stages=%d", t.stages);
        if (n < size) snprintf(buf + n, size - n, ">");
        return buf;
    }
    if (t.dt == DT_TDESC) {
        size_t n = (size_t)snprintf(buf, size, "tdesc<");
        for (int i = 0; i < t.rank && n < size; i++)
            n += (size_t)snprintf(buf + n, size - n, "%dx", t.shape[i]);
        if (n < size) snprintf(buf + n, size - n, "%s>", dt_name(t.pointee));
        return buf;
    }
    if (t.dt == DT_PTR) snprintf(elem, sizeof elem, "ptr<%s>", dt_name(t.pointee));
    else snprintf(elem, sizeof elem, "%s", dt_name(t.dt));
    if (t.rank == 0) {
        snprintf(buf, size, "%s", elem);
        return buf;
    }
    size_t n = 0;
    n += (size_t)snprintf(buf + n, size - n, "<");
    for (int i = 0; i < t.rank && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%dx", t.shape[i]);
    if (n < size) snprintf(buf + n, size - n, "%s>", elem);
    return buf;
}

/* ---- construction ---- */

IrModule *ir_module_new(Arena *arena) {
    IrModule *m = arena_alloc(arena, sizeof *m);
    m->arena = arena;
    namemap_init(&m->byname, arena);
    return m;
}

IrFunc *ir_func_new(IrModule *m, const char *name, bool is_kernel, Loc loc) {
    IrFunc *f = arena_alloc(m->arena, sizeof *f);
    f->mod = m;
    f->name = arena_strdup(m->arena, name);
    f->is_kernel = is_kernel;
    f->loc = loc;
    f->nvals = f->nops = f->nregions = 1; /* id 0 is "none" */
    f->capvals = f->capops = f->capregions = 0;
    f->vals = arena_grow(m->arena, NULL, sizeof *f->vals, 0, 64), f->capvals = 64;
    f->ops = arena_grow(m->arena, NULL, sizeof *f->ops, 0, 64), f->capops = 64;
    f->regions = arena_grow(m->arena, NULL, sizeof *f->regions, 0, 16), f->capregions = 16;
    f->body = ir_region_new(f, 0);
    VEC_PUSH(m->arena, m->funcs, m->nfuncs, m->capfuncs, f);
    if (!namemap_get(&m->byname, f->name)) namemap_put(&m->byname, f->name, f);
    return f;
}

IrFunc *ir_module_find(const IrModule *m, const char *name) {
    return name ? namemap_get(&m->byname, name) : NULL;
}

void ir_module_drop_helpers(IrModule *m) {
    uint32_t j = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        IrFunc *f = m->funcs[i];
        if (f->is_kernel) m->funcs[j++] = f;
        else if (namemap_get(&m->byname, f->name) == f) namemap_del(&m->byname, f->name);
    }
    m->nfuncs = j;
}

void ir_func_set_results(IrFunc *f, const IrType *tys, uint32_t n) {
    f->result_types = arena_alloc(f->mod->arena, sizeof(IrType) * (n ? n : 1));
    if (n) memcpy(f->result_types, tys, sizeof(IrType) * n);
    f->nresults = n;
}

static ValId new_value(IrFunc *f, IrType ty, uint32_t def, uint16_t index, bool is_arg) {
    IrValue v;
    memset(&v, 0, sizeof v);
    v.ty = ty, v.def = def, v.index = index, v.is_arg = is_arg;
    VEC_PUSH(f->mod->arena, f->vals, f->nvals, f->capvals, v);
    return f->nvals - 1;
}

ValId ir_add_param(IrFunc *f, IrType ty, const char *name) {
    IrRegion *r = ir_region(f, f->body);
    ValId v = ir_region_add_arg(f, f->body, ty);
    const char **names =
        arena_grow(f->mod->arena, f->param_names, sizeof *names, r->nargs - 1, r->nargs);
    names[r->nargs - 1] = name ? arena_strdup(f->mod->arena, name) : NULL;
    f->param_names = names;
    return v;
}

RegionId ir_region_new(IrFunc *f, OpId parent_op) {
    IrRegion r;
    memset(&r, 0, sizeof r);
    r.parent_op = parent_op;
    VEC_PUSH(f->mod->arena, f->regions, f->nregions, f->capregions, r);
    return f->nregions - 1;
}

ValId ir_region_add_arg(IrFunc *f, RegionId rid, IrType ty) {
    IrRegion *r = ir_region(f, rid);
    ValId v = new_value(f, ty, rid, (uint16_t)r->nargs, true);
    r = ir_region(f, rid); /* the value table may have moved nothing, but stay safe */
    VEC_PUSH(f->mod->arena, r->args, r->nargs, r->capargs, v);
    return v;
}

void ir_region_append(IrFunc *f, RegionId rid, OpId op) {
    IrRegion *r = ir_region(f, rid);
    VEC_PUSH(f->mod->arena, r->ops, r->nops, r->capops, op);
    f->ops[op].parent = rid;
}

void ir_op_set_operands(IrFunc *f, OpId id, const ValId *opnds, uint32_t n) {
    ValId *copy = arena_alloc(f->mod->arena, sizeof(ValId) * (n ? n : 1));
    if (n) memcpy(copy, opnds, sizeof(ValId) * n);
    f->ops[id].operands = copy;
    f->ops[id].nopnds = n;
}

OpId ir_op_new(IrFunc *f, int code, Loc loc, const ValId *opnds, uint32_t nopnds,
               const IrType *restys, uint32_t nres) {
    IrOp op;
    memset(&op, 0, sizeof op);
    op.code = (uint16_t)code;
    op.loc = loc;
    VEC_PUSH(f->mod->arena, f->ops, f->nops, f->capops, op);
    OpId id = f->nops - 1;
    ir_op_set_operands(f, id, opnds, nopnds);
    ValId *res = arena_alloc(f->mod->arena, sizeof(ValId) * (nres ? nres : 1));
    for (uint32_t i = 0; i < nres; i++) res[i] = new_value(f, restys[i], id, (uint16_t)i, false);
    f->ops[id].results = res;
    f->ops[id].nres = nres;
    return id;
}

int ir_func_producer_warps(const IrFunc *f) {
    const IrRegion *b = &f->regions[f->body];
    for (uint32_t i = 0; i < b->nops; i++)
        if (f->ops[b->ops[i]].code == OP_WARP_SPECIALIZE) return (int)f->ops[b->ops[i]].attr[0];
    return 0;
}

RegionId ir_op_add_region(IrFunc *f, OpId op) {
    NR_ASSERT(f->ops[op].nregions < 2);
    RegionId r = ir_region_new(f, op);
    f->ops[op].region[f->ops[op].nregions++] = r;
    return r;
}

OpId ir_build(IrBuilder *b, int code, const ValId *opnds, uint32_t n, const IrType *restys,
              uint32_t nres) {
    OpId op = ir_op_new(b->f, code, b->loc, opnds, n, restys, nres);
    ir_region_append(b->f, b->region, op);
    return op;
}

ValId ir_build1(IrBuilder *b, int code, const ValId *opnds, uint32_t n, IrType resty) {
    OpId op = ir_build(b, code, opnds, n, &resty, 1);
    return ir_result(b->f, op, 0);
}

ValId ir_const_int(IrBuilder *b, IrType ty, int64_t v) {
    OpId op = ir_build(b, OP_CONST, NULL, 0, &ty, 1);
    b->f->ops[op].attr[0] = v;
    return ir_result(b->f, op, 0);
}

ValId ir_const_float(IrBuilder *b, IrType ty, double v) {
    OpId op = ir_build(b, OP_CONST, NULL, 0, &ty, 1);
    b->f->ops[op].fattr = v;
    return ir_result(b->f, op, 0);
}

/* ---- cloning ---- */

static void clone_region(IrFunc *df, RegionId dst, IrFunc *sf, RegionId src, ValId *map) {
    for (uint32_t i = 0; i < ir_region(sf, src)->nargs; i++) {
        ValId a = ir_region(sf, src)->args[i];
        map[a] = ir_region_add_arg(df, dst, sf->vals[a].ty);
    }
    for (uint32_t i = 0; i < ir_region(sf, src)->nops; i++)
        ir_clone_op(df, dst, sf, ir_region(sf, src)->ops[i], map);
}

OpId ir_clone_op(IrFunc *df, RegionId dst, IrFunc *sf, OpId sid, ValId *map) {
    IrOp *s = ir_op(sf, sid);
    ValId opnds[s->nopnds ? s->nopnds : 1];
    IrType tys[s->nres ? s->nres : 1];
    for (uint32_t i = 0; i < s->nopnds; i++) {
        opnds[i] = map[s->operands[i]];
        NR_ASSERT(opnds[i] != 0);
    }
    for (uint32_t i = 0; i < s->nres; i++) tys[i] = sf->vals[s->results[i]].ty;
    OpId d = ir_op_new(df, s->code, s->loc, opnds, s->nopnds, tys, s->nres);
    s = ir_op(sf, sid);
    IrOp *dop = ir_op(df, d);
    memcpy(dop->attr, s->attr, sizeof dop->attr);
    dop->fattr = s->fattr;
    dop->sattr = s->sattr ? arena_strdup(df->mod->arena, s->sattr) : NULL;
    for (uint32_t i = 0; i < s->nres; i++) map[s->results[i]] = dop->results[i];
    ir_region_append(df, dst, d);
    for (uint32_t r = 0; r < s->nregions; r++) {
        RegionId nr = ir_op_add_region(df, d);
        clone_region(df, nr, sf, ir_op(sf, sid)->region[r], map);
    }
    return d;
}
