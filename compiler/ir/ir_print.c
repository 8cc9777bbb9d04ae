/* ir_print.c - the IR's textual form, written out (ir_parse.c reads it back), and the
 * attribute formats of ir_ops.def that the printer, parser and verifier share.
 *
 *   func kernel @k(%0: ptr<fp32> "x", %1: i32 "n") {
 *     %2 = const {value = 1024} : i32
 *     %3, %4 = for %a, %b, %c, %i0, %i1 : i32, fp32 {
 *     ^(%5: i32, %6: i32, %7: fp32):
 *       yield %6, %7
 *     }
 *     return
 *   }
 *
 * An op is `[results =] name [operands] [{attr = value, ...}] [: result types] [regions]`;
 * an if's else region follows `} else {`, a while's body `} do {`. Values are renumbered
 * per function in definition order (params, then a pre-order walk where an op's results
 * come before its regions' args), so print -> parse -> print is the identity on text.
 * The printer never trusts the IR: it is used for dumps of IR that may fail to verify,
 * so bad ids print as `%?` or `<bad ...>` instead of crashing. */
#include "ir.h"
#include "ir_layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- attribute formats ---- */

static const char *const cmp_names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
static const char *const red_names[] = {"sum", "max", "min", "argmax", "argmin"};
static const char *const rmw_names[] = {"add", "max", "min", "xchg", "and", "or", "xor"};
static const char *const prec_names[] = {"ieee", "tf32"};
static const char *const sem_names[] = {"acq_rel", "acquire", "release", "relaxed"};
static const char *const scope_names[] = {"gpu", "cta", "sys"};
static const char *const ldcache_names[] = {"none", "ca", "cg", "cv"};
static const char *const stcache_names[] = {"none", "wb", "cg", "cs", "wt"};
static const char *const evict_names[] = {"evict_normal", "evict_first", "evict_last"};
static const char *const mathfn_names[] = {
#define MATHFN(e, name, nargs, exact) name,
#include "ir_mathfn.def"
#undef MATHFN
};
/* ", erf, erfc, ..." (read from its third character) */
static const char mathfn_list[] = ""
#define MATHFN(e, name, nargs, exact) ", " name
#include "ir_mathfn.def"
#undef MATHFN
    ;

const MathFnInfo ir_mathfn_info[MATH_COUNT] = {
#define MATHFN(e, name, nargs, exact) {name, nargs, exact},
#include "ir_mathfn.def"
#undef MATHFN
};

typedef struct EnumNames {
    const char *const *names;
    int n;
    const char *list;
} EnumNames;

static EnumNames enum_names(int kind) {
    EnumNames e = {NULL, 0, ""};
    switch (kind) {
    case IR_ATTR_CMP: e = (EnumNames){cmp_names, 6, "eq, ne, lt, le, gt, ge"}; break;
    case IR_ATTR_RED: e = (EnumNames){red_names, 5, "sum, max, min, argmax, argmin"}; break;
    case IR_ATTR_RMW: e = (EnumNames){rmw_names, 7, "add, max, min, xchg, and, or, xor"}; break;
    case IR_ATTR_PREC: e = (EnumNames){prec_names, 2, "ieee, tf32"}; break;
    case IR_ATTR_MATHFN: e = (EnumNames){mathfn_names, MATH_COUNT, mathfn_list + 2}; break;
    case IR_ATTR_SEM: e = (EnumNames){sem_names, 4, "acq_rel, acquire, release, relaxed"}; break;
    case IR_ATTR_SCOPE: e = (EnumNames){scope_names, 3, "gpu, cta, sys"}; break;
    case IR_ATTR_LDCACHE: e = (EnumNames){ldcache_names, 4, "none, ca, cg, cv"}; break;
    case IR_ATTR_STCACHE: e = (EnumNames){stcache_names, 5, "none, wb, cg, cs, wt"}; break;
    case IR_ATTR_EVICT:
        e = (EnumNames){evict_names, 3, "evict_normal, evict_first, evict_last"};
        break;
    default: break;
    }
    return e;
}

const char *ir_attr_enum_name(int kind, int64_t v) {
    EnumNames e = enum_names(kind);
    return v >= 0 && v < e.n ? e.names[v] : NULL;
}

int ir_attr_enum_value(int kind, const char *name, size_t len) {
    EnumNames e = enum_names(kind);
    for (int i = 0; i < e.n; i++)
        if (strlen(e.names[i]) == len && !memcmp(e.names[i], name, len)) return i;
    return -1;
}

const char *ir_attr_enum_list(int kind) { return enum_names(kind).list; }

static int attr_kind(const char *s, size_t n) {
    static const char *const kinds[] = {"int", "float", "str",     "cmp",     "red",
                                        "rmw", "prec",  "ints",    "num",     "mathfn",
                                        "sem", "scope", "ldcache", "stcache", "evict"};
    for (int i = 0; i < (int)(sizeof kinds / sizeof *kinds); i++)
        if (strlen(kinds[i]) == n && !memcmp(kinds[i], s, n)) return i;
    NR_DIE("ir_ops.def: unknown attribute kind '%.*s'", (int)n, s);
}

int ir_attr_specs(int code, IrAttrSpec out[IR_MAX_ATTRS]) {
    if (code < 0 || code >= OP_COUNT) return 0;
    const char *p = ir_op_info[code].attrs;
    int n = 0, slot = 0;
    while (*p) {
        const char *colon = strchr(p, ':'), *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        NR_ASSERT(colon && colon < end && n < IR_MAX_ATTRS &&
                  (size_t)(colon - p) < sizeof out[n].name);
        memcpy(out[n].name, p, (size_t)(colon - p));
        out[n].name[colon - p] = 0;
        out[n].optional = end[-1] == '?';
        out[n].kind = attr_kind(colon + 1, (size_t)(end - colon - 1 - out[n].optional));
        /* float and str have their own fields; every other kind takes attr[] slots */
        out[n].slot = (out[n].kind == IR_ATTR_FLOAT || out[n].kind == IR_ATTR_STR) ? 0 : slot++;
        n++;
        p = *end ? end + 1 : end;
    }
    return n;
}

/* ---- printing ---- */

enum { MAX_PRINT_DEPTH = 256 }; /* only corrupt IR nests this deep */

typedef struct Printer {
    StrBuf *out;
    const IrFunc *f;
    uint32_t *num; /* ValId -> number + 1; 0: not numbered */
    uint32_t next;
    uint32_t layout_base; /* printed layout ids are the module's plus this (ir_print_modules) */
} Printer;

static bool valid_region(const IrFunc *f, RegionId r) { return r > 0 && r < f->nregions; }
static bool valid_op(const IrFunc *f, OpId o) { return o > 0 && o < f->nops; }

static void number_value(Printer *P, ValId v) {
    if (v > 0 && v < P->f->nvals && !P->num[v]) P->num[v] = ++P->next;
}

static void number_region(Printer *P, RegionId rid, int depth) {
    if (!valid_region(P->f, rid) || depth > MAX_PRINT_DEPTH) return;
    const IrRegion *r = &P->f->regions[rid];
    for (uint32_t i = 0; i < r->nargs; i++) number_value(P, r->args[i]);
    for (uint32_t i = 0; i < r->nops; i++) {
        if (!valid_op(P->f, r->ops[i])) continue;
        const IrOp *op = &P->f->ops[r->ops[i]];
        for (uint32_t j = 0; j < op->nres; j++) number_value(P, op->results[j]);
        for (uint32_t j = 0; j < op->nregions && j < 2; j++)
            number_region(P, op->region[j], depth + 1);
    }
}

static void indent(Printer *P, int n) {
    for (int i = 0; i < n; i++) sb_putc(P->out, ' ');
}

static void put_value(Printer *P, ValId v) {
    if (v > 0 && v < P->f->nvals && P->num[v]) sb_printf(P->out, "%%%u", P->num[v] - 1);
    else sb_puts(P->out, "%?");
}

static void put_type(Printer *P, IrType t) {
    char buf[96];
    sb_puts(P->out, ty_str(t, buf, sizeof buf));
}

/* A block with a GPU layout prints it inside the angle brackets: <1024xfp32, #L1>. */
static void put_value_type(Printer *P, ValId v) {
    if (!(v > 0 && v < P->f->nvals)) {
        sb_puts(P->out, "<bad value>");
        return;
    }
    const IrValue *val = &P->f->vals[v];
    if (!val->layout || !val->ty.rank) {
        put_type(P, val->ty);
        return;
    }
    char buf[96];
    ty_str(val->ty, buf, sizeof buf);
    size_t n = strlen(buf);
    if (n && buf[n - 1] == '>') buf[n - 1] = 0;
    sb_printf(P->out, "%s, #L%u>", buf, val->layout + P->layout_base);
}

/* C escapes; \xHH takes exactly two digits in our format. */
static void put_string(StrBuf *out, const char *s) {
    sb_putc(out, '"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': sb_puts(out, "\\\""); break;
        case '\\': sb_puts(out, "\\\\"); break;
        case '\n': sb_puts(out, "\\n"); break;
        case '\t': sb_puts(out, "\\t"); break;
        case '\r': sb_puts(out, "\\r"); break;
        default:
            if (*p < 32 || *p >= 127) sb_printf(out, "\\x%02x", *p);
            else sb_putc(out, (char)*p);
        }
    }
    sb_putc(out, '"');
}

static void put_float(StrBuf *out, double v) {
    if (isnan(v)) sb_puts(out, "nan");
    else if (isinf(v)) sb_puts(out, v < 0 ? "-inf" : "inf");
    else sb_printf(out, "%.17g", v);
}

/* The dtype deciding how a num attribute is written: the first result's. */
static int result_dtype(const IrFunc *f, const IrOp *op) {
    if (op->nres == 0 || op->results[0] == 0 || op->results[0] >= f->nvals) return DT_VOID;
    return f->vals[op->results[0]].ty.dt;
}

static int operand_rank(const IrFunc *f, const IrOp *op) {
    if (op->nopnds == 0 || op->operands[0] == 0 || op->operands[0] >= f->nvals) return 0;
    return f->vals[op->operands[0]].ty.rank;
}

static void put_int_attr(StrBuf *out, int64_t v, int dt) {
    if (dt == DT_U64) sb_printf(out, "%llu", (unsigned long long)v);
    else sb_printf(out, "%lld", (long long)v);
}

static void put_attr(Printer *P, const IrOp *op, const IrAttrSpec *a) {
    sb_printf(P->out, "%s = ", a->name);
    switch (a->kind) {
    case IR_ATTR_INT: put_int_attr(P->out, op->attr[a->slot], DT_I64); break;
    case IR_ATTR_FLOAT: put_float(P->out, op->fattr); break;
    case IR_ATTR_STR: put_string(P->out, op->sattr); break;
    case IR_ATTR_INTS: {
        int n = ir_ints_len(operand_rank(P->f, op));
        sb_putc(P->out, '[');
        for (int i = 0; i < n && a->slot + i < IR_OP_NATTR; i++)
            sb_printf(P->out, "%s%lld", i ? ", " : "", (long long)op->attr[a->slot + i]);
        sb_putc(P->out, ']');
        break;
    }
    case IR_ATTR_NUM: {
        int dt = result_dtype(P->f, op);
        if (dt_is_float(dt)) put_float(P->out, op->fattr);
        else put_int_attr(P->out, op->attr[a->slot], dt);
        break;
    }
    default: { /* enums; an out-of-range value prints as a number for the verifier to flag */
        const char *name = ir_attr_enum_name(a->kind, op->attr[a->slot]);
        if (name) sb_puts(P->out, name);
        else sb_printf(P->out, "%lld", (long long)op->attr[a->slot]);
    }
    }
}

static void put_attrs(Printer *P, const IrOp *op) {
    IrAttrSpec specs[IR_MAX_ATTRS];
    int n = ir_attr_specs(op->code, specs), shown = 0;
    for (int i = 0; i < n; i++) /* optional attributes at 0 are left out */
        if (specs[i].optional && !op->attr[specs[i].slot]) specs[i--] = specs[--n];
    if (!n && !op->smem_size) return;
    sb_puts(P->out, " {");
    for (int i = 0; i < n; i++) {
        if (shown++) sb_puts(P->out, ", ");
        put_attr(P, op, &specs[i]);
    }
    if (op->smem_size) /* the GPU back end's shared-memory scratch: [offset, bytes] */
        sb_printf(P->out, "%ssmem = [%d, %d]", shown ? ", " : "", op->smem_offset, op->smem_size);
    sb_putc(P->out, '}');
}

static void print_op(Printer *P, OpId id, int ind, int depth);

static void print_region(Printer *P, RegionId rid, int ind, int depth) {
    if (!valid_region(P->f, rid) || depth > MAX_PRINT_DEPTH) {
        indent(P, ind + 2);
        sb_puts(P->out, "<bad region>\n");
        return;
    }
    const IrRegion *r = &P->f->regions[rid];
    if (r->nargs) {
        indent(P, ind);
        sb_puts(P->out, "^(");
        for (uint32_t i = 0; i < r->nargs; i++) {
            if (i) sb_puts(P->out, ", ");
            put_value(P, r->args[i]);
            sb_puts(P->out, ": ");
            put_value_type(P, r->args[i]);
        }
        sb_puts(P->out, "):\n");
    }
    for (uint32_t i = 0; i < r->nops; i++) print_op(P, r->ops[i], ind + 2, depth + 1);
}

static void print_op_head(Printer *P, const IrOp *op) {
    for (uint32_t i = 0; i < op->nres; i++) {
        if (i) sb_puts(P->out, ", ");
        put_value(P, op->results[i]);
    }
    if (op->nres) sb_puts(P->out, " = ");
    if (op->code < OP_COUNT) sb_puts(P->out, ir_op_info[op->code].name);
    else sb_printf(P->out, "<bad op %u>", (unsigned)op->code);
    for (uint32_t i = 0; i < op->nopnds; i++) {
        sb_puts(P->out, i ? ", " : " ");
        put_value(P, op->operands[i]);
    }
    put_attrs(P, op);
    for (uint32_t i = 0; i < op->nres; i++) {
        sb_puts(P->out, i ? ", " : " : ");
        put_value_type(P, op->results[i]);
    }
}

static void print_op(Printer *P, OpId id, int ind, int depth) {
    indent(P, ind);
    if (!valid_op(P->f, id)) {
        sb_puts(P->out, "<bad op>\n");
        return;
    }
    const IrOp *op = &P->f->ops[id];
    print_op_head(P, op);
    for (uint32_t j = 0; j < op->nregions && j < 2; j++) {
        if (j) {
            indent(P, ind);
            sb_puts(P->out, op->code == OP_WHILE ? "} do {\n" : "} else {\n");
        } else {
            sb_puts(P->out, " {\n");
        }
        print_region(P, op->region[j], ind, depth);
    }
    if (op->nregions) {
        indent(P, ind);
        sb_putc(P->out, '}');
    }
    sb_putc(P->out, '\n');
}

/* Names that are not plain identifiers are quoted, so any name survives a round trip. */
static void put_func_name(StrBuf *out, const char *name) {
    bool plain = name && *name;
    for (const char *p = name; plain && *p; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                *p == '_' || *p == '.' || *p == '$';
    sb_putc(out, '@');
    if (plain) sb_puts(out, name);
    else put_string(out, name);
}

static void print_signature(Printer *P) {
    const IrFunc *f = P->f;
    sb_puts(P->out, f->is_kernel ? "func kernel " : "func ");
    put_func_name(P->out, f->name);
    sb_putc(P->out, '(');
    const IrRegion *body = valid_region(f, f->body) ? &f->regions[f->body] : NULL;
    for (uint32_t i = 0; body && i < body->nargs; i++) {
        if (i) sb_puts(P->out, ", ");
        put_value(P, body->args[i]);
        sb_puts(P->out, ": ");
        put_value_type(P, body->args[i]);
        if (f->param_names && f->param_names[i]) {
            sb_putc(P->out, ' ');
            put_string(P->out, f->param_names[i]);
        }
    }
    sb_putc(P->out, ')');
    if (f->nresults) {
        sb_puts(P->out, " -> (");
        for (uint32_t i = 0; i < f->nresults; i++) {
            if (i) sb_puts(P->out, ", ");
            put_type(P, f->result_types[i]);
        }
        sb_putc(P->out, ')');
    }
}

static void print_func(StrBuf *out, const IrFunc *f, uint32_t layout_base) {
    Printer P = {out, f, calloc(f->nvals ? f->nvals : 1, sizeof(uint32_t)), 0, layout_base};
    if (!P.num) NR_DIE("out of memory");
    number_region(&P, f->body, 0);
    print_signature(&P);
    sb_puts(out, " {\n");
    if (valid_region(f, f->body)) {
        const IrRegion *body = &f->regions[f->body];
        for (uint32_t i = 0; i < body->nops; i++) print_op(&P, body->ops[i], 2, 1);
    }
    sb_puts(out, "}\n");
    free(P.num);
}

void ir_print_func(StrBuf *out, const IrFunc *f) { print_func(out, f, 0); }

static const char *const arch_names[] = {"none", "sm_80", "sm_90", "sm_90a"};

const char *ir_gpu_arch_name(int arch) {
    return arch >= 0 && arch <= GPU_SM90A ? arch_names[arch] : "?";
}

int ir_gpu_arch_from_name(const char *name, size_t len) {
    for (int i = GPU_SM80; i <= GPU_SM90A; i++)
        if (strlen(arch_names[i]) == len && !memcmp(arch_names[i], name, len)) return i;
    return GPU_ARCH_NONE;
}

static uint32_t layout_count(const IrModule *m) { return m->nlayouts ? m->nlayouts - 1 : 0; }

/* A module's layouts, numbered from base + 1 (each names only earlier ones). */
static void print_layouts(StrBuf *out, const IrModule *m, uint32_t base) {
    for (uint32_t i = 1; i < m->nlayouts; i++) {
        IrLayout l = m->layouts[i];
        if (l.kind == LAYOUT_SLICE || l.kind == LAYOUT_DOT_OP) l.parent += base;
        sb_printf(out, "#L%u = ", i + base);
        ir_layout_print(out, &l);
        sb_putc(out, '\n');
    }
}

/* The GPU back end's module facts, then the layouts. */
void ir_print_modules(StrBuf *out, const IrModule *const *ms, int n) {
    for (int k = 0; k < n; k++)
        if (ms[k]->gpu.arch || ms[k]->gpu.num_warps) {
            sb_printf(out, "gpu<arch=%s, num_warps=%d>\n", ir_gpu_arch_name(ms[k]->gpu.arch),
                      ms[k]->gpu.num_warps);
            break;
        }
    uint32_t base = 0;
    for (int k = 0; k < n; k++) print_layouts(out, ms[k], base), base += layout_count(ms[k]);
    base = 0;
    for (int k = 0; k < n; k++) {
        for (uint32_t i = 0; i < ms[k]->nfuncs; i++) print_func(out, ms[k]->funcs[i], base);
        base += layout_count(ms[k]);
    }
}

void ir_print_module(StrBuf *out, const IrModule *m) { ir_print_modules(out, &m, 1); }
