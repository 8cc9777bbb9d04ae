/* sema_names.c - name resolution and attribute access.
 *
 * A name is looked up in the function's environment, then in its module (functions and
 * module-level constants, evaluated lazily), then among the builtins: Python's (range,
 * min, float, ...), the language's (program_id, load, ... - the `tl.` prefix is
 * optional), the dtypes, and finally the standard library written in the language. */
#include <string.h>

#include "sema_internal.h"

static const struct {
    const char *name;
    int dt;
} dtype_names[] = {
    {"int1", DT_I1},
    {"int8", DT_I8},
    {"int16", DT_I16},
    {"int32", DT_I32},
    {"int64", DT_I64},
    {"uint8", DT_U8},
    {"uint16", DT_U16},
    {"uint32", DT_U32},
    {"uint64", DT_U64},
    {"float16", DT_FP16},
    {"bfloat16", DT_BF16},
    {"float32", DT_FP32},
    {"float64", DT_FP64},
    {"bool", DT_I1},
    {"half", DT_FP16},
    {"float", DT_FP32},
    {"double", DT_FP64},
    {"float8e4nv", DT_FP8E4NV},
    {"float8e5", DT_FP8E5},
    {"float8e4b15", DT_FP8E4B15},
    {"float8e4b8", DT_FP8E4B8},
    {"float8e5b16", DT_FP8E5B16},
};

/* An error for a dtype name that older Tritons had and Nereid does not: fp8e4b15x4, four
 * fp8e4b15 values interleaved in 32 bits (Triton 2.1's fast fp16 conversion, since removed) */
void sema_check_dtype_name(Sema *S, const char *name, Loc loc) {
    if (!strcmp(name, "float8e4b15x4") || !strcmp(name, "fp8e4b15x4"))
        sema_error(S, loc,
                   "%s%s is not supported: Nereid's fp8 types are tl.float8e4nv, tl.float8e5, "
                   "tl.float8e4b15, "
                   "tl.float8e4b8 and tl.float8e5b16",
                   strncmp(name, "fp8", 3) ? "tl." : "", name);
}

const char *sema_dtype_triton_name(int dt) {
    for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++)
        if (dtype_names[i].dt == dt) return dtype_names[i].name; /* the first: Triton's */
    return NULL;
}

int sema_dtype_from_name(const char *name) {
    for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++)
        if (!strcmp(dtype_names[i].name, name)) return dtype_names[i].dt;
    return dt_from_name(name);
}

void sema_scope_init(Sema *S, ModScope *sc, const Module *m) {
    memset(sc, 0, sizeof *sc);
    sc->mod = m;
    namemap_init(&sc->funcs, S->arena);
    namemap_init(&sc->globals, S->arena);
    int n = m->nglobals;
    sc->gnames = arena_alloc(S->arena, sizeof(char *) * (size_t)(n + 1));
    sc->gvals = arena_alloc(S->arena, sizeof(Val) * (size_t)(n + 1));
    sc->gdefs = arena_alloc(S->arena, sizeof(Stmt *) * (size_t)(n + 1));
    sc->gstate = arena_alloc(S->arena, (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        const Stmt *st = m->globals[i];
        if ((st->kind == ST_ASSIGN || st->kind == ST_ANNASSIGN) && st->ntargets >= 1 &&
            st->targets[0]->kind == EX_NAME && st->value) {
            sc->gnames[sc->ng] = st->targets[0]->name;
            sc->gdefs[sc->ng++] = st;
            namemap_put(&sc->globals, sc->gnames[sc->ng - 1], (void *)(intptr_t)sc->ng);
        }
    }
    for (int i = 0; i < m->nfuncs; i++) namemap_put(&sc->funcs, m->funcs[i]->name, m->funcs[i]);
}

static Val eval_global(Sema *S, ModScope *sc, int i, Loc use) {
    if (sc->gstate[i] == 2) return sc->gvals[i];
    if (sc->gstate[i] == 1)
        sema_error(S, use, "module-level constant '%s' depends on itself", sc->gnames[i]);
    sc->gstate[i] = 1;
    FnState fs;
    memset(&fs, 0, sizeof fs);
    fs.env = sema_env_new(S);
    fs.scope = sc;
    fs.where = sc->gdefs[i]->value->loc;
    FnState *saved = S->fs;
    S->fs = &fs;
    Val v = sema_lower_expr(S, sc->gdefs[i]->value);
    S->fs = saved;
    if (!sema_val_is_constexpr(v))
        sema_error(S, sc->gdefs[i]->value->loc,
                   "module-level value '%s' must be a compile-time constant", sc->gnames[i]);
    sc->gvals[i] = v;
    sc->gstate[i] = 2;
    return v;
}

bool sema_scope_lookup(Sema *S, ModScope *sc, const char *name, Loc loc, Val *out) {
    const Func *fn = namemap_get(&sc->funcs, name);
    if (fn) {
        memset(out, 0, sizeof *out);
        out->k = V_FUNC;
        out->fn = fn;
        out->fnmod = sc;
        return true;
    }
    intptr_t g = (intptr_t)namemap_get(&sc->globals, name);
    if (g) {
        *out = eval_global(S, sc, (int)g - 1, loc);
        return true;
    }
    return false;
}

static Val module_val(int which) {
    Val v = sema_val_none();
    v.k = V_MODULE;
    v.i = which;
    return v;
}

static Val builtin_val(int id, Val *self) {
    Val v = sema_val_none();
    v.k = V_BUILTIN;
    v.builtin = id;
    v.self = self;
    return v;
}

/* tl.NAME: builtins, dtypes, then the standard library's functions. */
static bool tl_member(Sema *S, const char *name, Loc loc, Val *out) {
    static const char *const submodules[] = {"math",     "extra",  "libdevice", "core",
                                             "standard", "random", "language",  "cuda"};
    for (size_t i = 0; i < sizeof submodules / sizeof *submodules; i++)
        if (!strcmp(name, submodules[i])) return *out = module_val(MOD_TL), true;
    if (!strcmp(name, "PropagateNan")) return *out = module_val(MOD_PROPAGATE_NAN), true;
    int id = sema_builtin_find(name);
    if (id >= 0) return *out = builtin_val(id, NULL), true;
    int dt = sema_dtype_from_name(name);
    if (dt != DT_VOID) return *out = sema_val_dtype(ty_scalar(dt)), true;
    if (!strcmp(name, "pi32_t")) return *out = sema_val_dtype(ty_ptr(DT_I32)), true;
    if (!strcmp(name, "TRITON_MAX_TENSOR_NUMEL")) return *out = sema_val_int(NR_MAX_NUMEL), true;
    /* triton.language.core's constexpr(0), the default of its sorts' `descending` that
     * libraries' own bitonic sorts copy (lmdeploy: `descending: tl.constexpr =
     * core.CONSTEXPR_0`) */
    if (!strcmp(name, "CONSTEXPR_0")) return *out = sema_val_int(0), true;
    sema_check_dtype_name(S, name, loc);
    if (sema_scope_lookup(S, &S->std, name, loc, out) && out->k == V_FUNC) return true;
    return false;
}

Val sema_lookup_name(Sema *S, const char *name, Loc loc) {
    Val *p = sema_env_lookup(S->fs->env, name);
    if (p) {
        if (p->k == V_UNDEF)
            sema_error(S, loc, "'%s' is not defined on every path that reaches here", name);
        return *p;
    }
    Val v;
    if (sema_scope_lookup(S, S->fs->scope, name, loc, &v)) return v;
    if (!strcmp(name, "tl")) return module_val(MOD_TL);
    if (!strcmp(name, "triton")) return module_val(MOD_TRITON);
    int id = sema_builtin_find_py(name);
    if (id >= 0) return builtin_val(id, NULL);
    if (tl_member(S, name, loc, &v)) return v;
    sema_error(S, loc, "use of undefined name '%s'", name);
}

/* A type's shape as a tuple of ints (a block's .shape, a block type's). */
static Val shape_tuple(Sema *S, IrType t) {
    Val items[NR_MAX_RANK];
    for (int i = 0; i < t.rank; i++) items[i] = sema_val_int(t.shape[i]);
    return sema_val_tuple(S, items, t.rank);
}

/* A dtype's attributes. A dtype of rank > 0 is Triton's block_type, the .type of a block:
 * .scalar and .element_ty are its element dtype, .shape and .numel its shape; a dtype's own
 * .scalar is itself, and .value is the dtype (Triton wraps dtype arguments in constexprs). */
static Val dtype_attr(Sema *S, Val d, const char *name, Loc loc) {
    if (!strcmp(name, "value")) return d;
    if (!strcmp(name, "scalar") || (d.ty.rank && !strcmp(name, "element_ty")))
        return sema_val_dtype(ty_elem(d.ty));
    if (d.ty.rank && !strcmp(name, "shape")) return shape_tuple(S, d.ty);
    if (d.ty.rank && !strcmp(name, "numel")) return sema_val_int(ty_numel(d.ty));
    if (!strcmp(name, "element_ty")) {
        if (d.ty.dt != DT_PTR)
            sema_error(S, loc, "'element_ty' is only defined for pointer dtypes");
        return sema_val_dtype(ty_scalar(d.ty.pointee));
    }
    if (!strcmp(name, "primitive_bitwidth") || !strcmp(name, "int_bitwidth"))
        return sema_val_int(dt_bits(d.ty.dt));
    if (!strncmp(name, "is_", 3)) {
        Val *self = arena_alloc(S->arena, sizeof(Val));
        *self = d;
        self->s = name; /* the predicate's name travels with the receiver */
        return builtin_val(sema_builtin_dtype_method(), self);
    }
    sema_error(S, loc, "dtype has no attribute '%s'", name);
}

static Val block_attr(Sema *S, Val x, const char *name, Loc loc) {
    if (!strcmp(name, "dtype")) return sema_val_dtype(ty_elem(x.ty));
    if (!strcmp(name, "type")) /* Triton's tensor.type: a scalar's is its dtype, a block's
                                  its block_type (a dtype of the block's shape here) */
        return sema_val_dtype(ty_with_elem(x.ty, ty_elem(x.ty)));
    if (!strcmp(name, "shape")) return shape_tuple(S, x.ty);
    if (!strcmp(name, "numel")) return sema_val_int(ty_numel(x.ty));
    if (!strcmp(name, "T")) {
        CallArgs a = {.pos = &x, .npos = 1, .loc = loc};
        return sema_call_builtin(S, sema_builtin_find("trans"), NULL, &a);
    }
    Val *self = arena_alloc(S->arena, sizeof(Val));
    *self = x;
    int id = sema_builtin_find(name);
    if (id >= 0 && sema_builtin_is_method(id)) return builtin_val(id, self);
    Val f;
    if (sema_scope_lookup(S, &S->std, name, loc, &f) &&
        f.k == V_FUNC) { /* x.cdiv(4), x.sigmoid() */
        f.self = self;
        return f;
    }
    sema_error(S, loc, "a block has no attribute or method '%s'", name);
}

/* Triton's constexpr_type(value): the .type of a constexpr, equal to another when their
 * values are equal. */
Val sema_val_ctype(Sema *S, Val c) {
    c.assigned = false;
    Val t = sema_val_tuple(S, &c, 1);
    t.k = V_CTYPE;
    return t;
}

/* A compile-time number used as a tensor: Triton makes `acc = 0` a scalar tensor (its
 * assignments call to_tensor), so `acc.to(tl.int64)`, `acc.dtype` and the block methods
 * apply to it; here the number stays a constexpr until a method needs a scalar (the
 * builtins take it as to_tensor types it). */
static Val const_attr(Sema *S, Val c, const char *name, Loc loc) {
    if (!strcmp(name, "dtype")) return sema_val_dtype(ty_scalar(sema_const_dtype(S, c, loc)));
    if (!strcmp(name, "type")) /* a tensor's type is its dtype; a constexpr's, constexpr_type */
        return c.assigned ? sema_val_dtype(ty_scalar(sema_const_dtype(S, c, loc)))
                          : sema_val_ctype(S, c);
    if (!strcmp(name, "shape")) return sema_val_tuple(S, NULL, 0);
    if (!strcmp(name, "numel")) return sema_val_int(1);
    Val *self = arena_alloc(S->arena, sizeof(Val));
    *self = c;
    int id = sema_builtin_find(name);
    if (id >= 0 && sema_builtin_is_method(id)) return builtin_val(id, self);
    Val f;
    if (sema_scope_lookup(S, &S->std, name, loc, &f) && f.k == V_FUNC) {
        f.self = self;
        return f;
    }
    sema_error(S, loc, "%s has no attribute '%s'", sema_val_kind_name(S, c), name);
}

/* A tensor descriptor's methods (load, store: bound builtins) and attributes: one made by
 * tl.make_tensor_descriptor (a tagged tuple) or one the host passed (a tdesc parameter,
 * whose sizes and strides desc_part reads). */
static Val desc_attr(Sema *S, Val d, const char *name, Loc loc) {
    int rank = d.ty.rank;
    bool host = d.k == V_IR;
    if (!strcmp(name, "load") || !strcmp(name, "store")) {
        Val *self = arena_alloc(S->arena, sizeof(Val));
        *self = d;
        return builtin_val(sema_builtin_find(name[0] == 'l' ? "load_tensor_descriptor"
                                                            : "store_tensor_descriptor"),
                           self);
    }
    if (!strcmp(name, "dtype")) return sema_val_dtype(ty_scalar(host ? d.ty.pointee : d.ty.dt));
    if (!strcmp(name, "block_shape") || !strcmp(name, "shape") || !strcmp(name, "strides")) {
        Val items[NR_MAX_RANK];
        for (int i = 0; i < rank; i++)
            items[i] = name[0] == 'b' ? sema_val_int(d.ty.shape[i])
                       : host ? sema_desc_part(S, d, 1 + (name[1] == 't' ? rank : 0) + i, loc)
                              : d.items[1 + (name[1] == 't' ? rank : 0) + i];
        if (name[1] == 't' && host) items[rank - 1] = sema_val_int(1); /* the launch checks it */
        return sema_val_tuple(S, items, rank);
    }
    int atom = sema_builtin_find(arena_printf(S->arena, "desc.%s", name));
    if (!strncmp(name, "atomic_", 7) && atom >= 0) {
        Val *self = arena_alloc(S->arena, sizeof(Val));
        *self = d;
        return builtin_val(atom, self);
    }
    if (!strcmp(name, "gather") || !strcmp(name, "scatter"))
        sema_error(S, loc, "a tensor descriptor's '%s' is not supported (yet): use load and store",
                   name);
    sema_error(S, loc,
               "a tensor descriptor has no attribute '%s' (it has load, store, atomic_add, "
               "atomic_min, atomic_max, atomic_and, atomic_or, atomic_xor, block_shape, dtype, "
               "shape, strides)",
               name);
}

/* a namedtuple's (or its class's) _fields: the field names, a tuple of strings */
static Val fields_tuple(Sema *S, Val nt) {
    Val *names = arena_alloc(S->arena, sizeof(Val) * (size_t)(nt.n + 1));
    for (int i = 0; i < nt.n; i++) names[i] = sema_val_str(S, nt.fields[i], strlen(nt.fields[i]));
    return sema_val_tuple(S, names, nt.n);
}

Val sema_get_attr(Sema *S, Val base, const char *name, Loc loc) {
    Val v;
    switch (base.k) {
    case V_MODULE:
        if (base.i == MOD_TRITON && !strcmp(name, "language")) return module_val(MOD_TL);
        if (base.i == MOD_PROPAGATE_NAN) { /* Triton's enum values */
            if (!strcmp(name, "NONE")) return sema_val_int(0);
            if (!strcmp(name, "ALL")) return sema_val_int(0xFFFF);
            sema_error(S, loc, "'tl.PropagateNan' has no member '%s' (NONE or ALL)", name);
        }
        if (tl_member(S, name, loc, &v)) return v;
        sema_error(S, loc, "'%s' has no attribute '%s'",
                   base.i == MOD_TL ? "triton.language" : "triton", name);
    case V_DTYPE: return dtype_attr(S, base, name, loc);
    case V_IR:
        return ty_is_tdesc(base.ty) ? desc_attr(S, base, name, loc)
                                    : block_attr(S, base, name, loc);
    case V_TUPLE:
        if (base.tag == TAG_TENSOR_DESC) return desc_attr(S, base, name, loc);
        /* a block pointer's dtype and type: Triton's are a pointer to its block type, whose
         * element_ty users cast to (`b.to(p.dtype.element_ty)`); here the pointer to its
         * elements, which casts alike */
        if (base.tag == TAG_BLOCK_PTR && (!strcmp(name, "dtype") || !strcmp(name, "type")))
            return sema_val_dtype(ty_elem(base.items[0].ty));
        if (base.tag == TAG_BLOCK_PTR && !strcmp(name, "advance")) { /* Triton's method */
            Val *self = arena_alloc(S->arena, sizeof(Val));
            *self = base;
            return builtin_val(sema_builtin_find("advance"), self);
        }
        if (base.fields) { /* a namedtuple's field */
            for (int i = 0; i < base.n; i++)
                if (!strcmp(base.fields[i], name)) return base.items[i];
            if (!strcmp(name, "_fields")) return fields_tuple(S, base);
        }
        if (!base.tag && !strcmp(name, "type") && sema_val_is_constexpr(base))
            return sema_val_ctype(S, base);
        break;
    case V_STR:
        if (!strcmp(name, "type")) return sema_val_ctype(S, base);
        if (!strcmp(name, "value")) return base;
        break;
    case V_CTYPE:
        if (!strcmp(name, "value")) return base.items[0];
        break;
    case V_NTCLASS:
        if (!strcmp(name, "_fields")) return fields_tuple(S, base);
        break;
    case V_INT:
    case V_FLOAT:
    case V_BOOL:
        if (!strcmp(name, "value")) return base; /* tl.constexpr(...).value */
        return const_attr(S, base, name, loc);
    default: break;
    }
    sema_error(S, loc, "%s has no attribute '%s'", sema_val_kind_name(S, base), name);
}

/* hasattr(obj, name) in a kernel: whether sema_get_attr finds the attribute. The lookup
 * runs as it would for obj.name; its error, if any, is caught here and withdrawn (the
 * message it wrote is cut from the diagnostics), and the lowering state it may have left
 * mid-way (the current function, the call stack) is put back. */
bool sema_has_attr(Sema *S, Val base, const char *name, Loc loc) {
    jmp_buf saved;
    memcpy(saved, S->fail, sizeof saved);
    FnState *fs = S->fs;
    int depth = S->depth;
    size_t len = S->diag->out.len;
    int nerrors = S->diag->nerrors;
    volatile bool found = false;
    if (!setjmp(S->fail)) {
        (void)sema_get_attr(S, base, name, loc);
        found = true;
    }
    memcpy(S->fail, saved, sizeof saved);
    if (!found) {
        S->fs = fs;
        S->depth = depth;
        S->diag->out.len = len;
        if (S->diag->out.data) S->diag->out.data[len] = '\0';
        S->diag->nerrors = nerrors;
    }
    return found;
}
