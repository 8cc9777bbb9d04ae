/* test_axis_info.c - the alignment analysis (compiler/gpu/axis_info.c): the facts of
 * hand-written kernels (vector add, a 2-D pointer block, hints, idiv/rem/shifts, casts,
 * shape ops, loops and ifs), the printed form, the vector width helper, and a property
 * test: random integer/pointer programs are built, evaluated on random inputs that
 * satisfy the parameter facts, and every fact the analysis claims is checked against
 * the actual values (values that overflowed their dtype, which the analysis assumes
 * away, are skipped). Prints one line per failed check and a summary line. */
#include "compiler/analysis/axis_info.h"

#include <stdlib.h>

#include "check.h"

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

/* ---- parsing and looking up values by their printed number ---- */

typedef struct Parsed {
    Arena *arena;
    IrModule *m;
    IrFunc *f;
    Source src;
} Parsed;

static bool parse(Parsed *p, const char *text) {
    p->arena = arena_new();
    p->src.name = "test.nrir";
    p->src.text = text;
    p->src.len = strlen(text);
    Diag diag;
    diag_init(&diag);
    p->m = ir_parse_module(p->arena, &diag, &p->src);
    bool ok = p->m != NULL;
    CHECK(ok, "parse failed:\n%s", sb_cstr(&diag.out));
    diag_free(&diag);
    if (!ok) return false;
    StrBuf err;
    sb_init(&err);
    ok = ir_verify_module(p->m, &err);
    CHECK(ok, "verify failed:\n%s", sb_cstr(&err));
    sb_free(&err);
    if (!ok) return false;
    p->f = p->m->funcs[0];
    /* the texts below are written as ir_print_func writes them, so %N in them is the
     * printed number N that axis_info_print uses */
    StrBuf out;
    sb_init(&out);
    ir_print_module(&out, p->m);
    ok = !strcmp(sb_cstr(&out), text);
    CHECK(ok, "text is not in printed form; printed:\n%s", sb_cstr(&out));
    sb_free(&out);
    return ok;
}

static void parsed_free(Parsed *p) { arena_free(p->arena); }

typedef struct Numbering {
    ValId by_num[4096];
    uint32_t n;
} Numbering;

static void number_region(const IrFunc *f, RegionId r, Numbering *nb) {
    const IrRegion *reg = &f->regions[r];
    for (uint32_t i = 0; i < reg->nargs; i++) nb->by_num[nb->n++] = reg->args[i];
    for (uint32_t i = 0; i < reg->nops; i++) {
        const IrOp *op = &f->ops[reg->ops[i]];
        for (uint32_t j = 0; j < op->nres; j++) nb->by_num[nb->n++] = op->results[j];
        for (uint32_t j = 0; j < op->nregions; j++) number_region(f, op->region[j], nb);
    }
}

static ValId val_num(const IrFunc *f, uint32_t num) {
    static Numbering nb;
    nb.n = 0;
    number_region(f, f->body, &nb);
    return num < nb.n ? nb.by_num[num] : 0;
}

/* The facts of %num as axis_info_print prints them, checked against want (the text
 * after "%N: "). */
static void expect_at(int line, const IrFunc *f, const AxisInfo *info, uint32_t num,
                      const char *want) {
    StrBuf out;
    sb_init(&out);
    axis_info_print(&out, f, info);
    char key[32];
    snprintf(key, sizeof key, "%%%u: ", num);
    const char *s = sb_cstr(&out), *hit = NULL;
    for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, key, strlen(key))) {
            hit = p + strlen(key);
            break;
        }
    char got[256] = "(not printed)";
    if (hit) {
        size_t n = strcspn(hit, "\n");
        if (n >= sizeof got) n = sizeof got - 1;
        memcpy(got, hit, n);
        got[n] = 0;
    }
    CHECK_AT(&st, !strcmp(got, want), "line %d: %%%u: got \"%s\", want \"%s\"", line, num, got,
             want);
    sb_free(&out);
}
#define EXPECT(num, want) expect_at(__LINE__, p.f, info, num, want)

static const AxisInfo *info_num(const IrFunc *f, const AxisInfo *info, uint32_t num) {
    ValId v = val_num(f, num);
    return v ? &info[v] : NULL;
}

/* ---- hand-written kernels ---- */

static const char *vector_add =
    "func kernel @add_kernel(%0: ptr<fp32> \"x_ptr\", %1: ptr<fp32> \"y_ptr\", %2: i32 \"n\") {\n"
    "  %3 = program_id {axis = 0} : i32\n"
    "  %4 = const {value = 1024} : i32\n"
    "  %5 = mul %3, %4 : i32\n"
    "  %6 = arange {start = 0, end = 1024} : <1024xi32>\n"
    "  %7 = splat %5 : <1024xi32>\n"
    "  %8 = add %7, %6 : <1024xi32>\n"
    "  %9 = splat %2 : <1024xi32>\n"
    "  %10 = cmp %8, %9 {pred = lt} : <1024xi1>\n"
    "  %11 = splat %0 : <1024xptr<fp32>>\n"
    "  %12 = addptr %11, %8 : <1024xptr<fp32>>\n"
    "  %13 = load %12, %10 : <1024xfp32>\n"
    "  %14 = splat %1 : <1024xptr<fp32>>\n"
    "  %15 = addptr %14, %8 : <1024xptr<fp32>>\n"
    "  %16 = load %15, %10 : <1024xfp32>\n"
    "  %17 = add %13, %16 : <1024xfp32>\n"
    "  store %12, %17, %10\n"
    "  return\n"
    "}\n";

static void test_vector_add(void) {
    Parsed p;
    if (!parse(&p, vector_add)) return;
    ParamFact facts[3] = {{16, false}, {16, false}, {16, false}};
    AxisInfo *info = axis_info_analyze(p.f, facts, p.arena);
    EXPECT(0, "contiguity = [1], divisibility = [16], constancy = [1]");
    EXPECT(2, "contiguity = [1], divisibility = [16], constancy = [1]");
    EXPECT(3, "contiguity = [1], divisibility = [1], constancy = [1]");
    EXPECT(4, "contiguity = [1], divisibility = [1024], constancy = [1]");
    EXPECT(5, "contiguity = [1], divisibility = [1024], constancy = [1]");
    EXPECT(6, "contiguity = [1024], divisibility = [1073741824], constancy = [1]");
    EXPECT(7, "contiguity = [1], divisibility = [1024], constancy = [1024]");
    EXPECT(8, "contiguity = [1024], divisibility = [1024], constancy = [1]");
    EXPECT(9, "contiguity = [1], divisibility = [16], constancy = [1024]");
    EXPECT(10, "contiguity = [1], divisibility = [1], constancy = [16]"); /* offsets < n */
    EXPECT(11, "contiguity = [1], divisibility = [16], constancy = [1024]");
    EXPECT(12, "contiguity = [1024], divisibility = [16], constancy = [1]");
    EXPECT(13, "(not printed)"); /* floats are not printed */
    /* floats are neutral in the table */
    const AxisInfo *fl = info_num(p.f, info, 13);
    CHECK(fl && fl->rank == 1 && fl->contiguity[0] == 1 && fl->divisibility[0] == 1 &&
              fl->constancy[0] == 1,
          "float");
    const AxisInfo *ptr = info_num(p.f, info, 12), *mask = info_num(p.f, info, 10);
    CHECK(axis_info_vector_width(ptr, NULL, 4, 0) == 4, "fp32, 16-byte aligned: 4");
    CHECK(axis_info_vector_width(ptr, mask, 4, 0) == 4, "fp32 masked (constancy 16): 4");
    CHECK(axis_info_vector_width(ptr, NULL, 2, 0) == 8, "fp16: 8");
    CHECK(axis_info_vector_width(ptr, mask, 1, 0) == 16, "i8: 16");

    /* n not known to be divisible: the mask changes anywhere */
    ParamFact ptrs_only[3] = {{16, false}, {16, false}, {1, false}};
    info = axis_info_analyze(p.f, ptrs_only, p.arena);
    EXPECT(10, "contiguity = [1], divisibility = [1], constancy = [1]");
    EXPECT(12, "contiguity = [1024], divisibility = [16], constancy = [1]");
    ptr = info_num(p.f, info, 12), mask = info_num(p.f, info, 10);
    CHECK(axis_info_vector_width(ptr, mask, 4, 0) == 1, "masked with constancy 1: 1");
    CHECK(axis_info_vector_width(ptr, NULL, 4, 0) == 4, "unmasked: 4");
    /* offsets < n: true on a prefix of any aligned run, n anything */
    CHECK(axis_info_prefix_width(p.f, info, val_num(p.f, 10), 0) == 1024, "offsets < n: a prefix");

    /* nothing known */
    info = axis_info_analyze(p.f, NULL, p.arena);
    EXPECT(0, "contiguity = [1], divisibility = [1], constancy = [1]");
    EXPECT(12, "contiguity = [1024], divisibility = [1], constancy = [1]");
    CHECK(axis_info_vector_width(info_num(p.f, info, 12), NULL, 4, 0) == 1, "unaligned base: 1");

    /* axis_info_param_facts: pointers and ints get the divisibility */
    ParamFact *pf = axis_info_param_facts(p.f, 16, p.arena);
    CHECK(pf[0].divisibility == 16 && pf[1].divisibility == 16 && pf[2].divisibility == 16,
          "param facts");
    info = axis_info_analyze(p.f, pf, p.arena);
    EXPECT(10, "contiguity = [1], divisibility = [1], constancy = [16]");
    parsed_free(&p);
}

/* a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] */
static const char *ptr_2d = "func kernel @mm(%0: ptr<fp16> \"a_ptr\", %1: i32 \"stride_am\") {\n"
                            "  %2 = program_id {axis = 0} : i32\n"
                            "  %3 = const {value = 64} : i32\n"
                            "  %4 = mul %2, %3 : i32\n"
                            "  %5 = splat %4 : <64xi32>\n"
                            "  %6 = arange {start = 0, end = 64} : <64xi32>\n"
                            "  %7 = add %5, %6 : <64xi32>\n"
                            "  %8 = arange {start = 0, end = 32} : <32xi32>\n"
                            "  %9 = expand_dims %7 {axis = 1} : <64x1xi32>\n"
                            "  %10 = broadcast %9 : <64x32xi32>\n"
                            "  %11 = splat %1 : <64x32xi32>\n"
                            "  %12 = mul %10, %11 : <64x32xi32>\n"
                            "  %13 = expand_dims %8 {axis = 0} : <1x32xi32>\n"
                            "  %14 = broadcast %13 : <64x32xi32>\n"
                            "  %15 = add %12, %14 : <64x32xi32>\n"
                            "  %16 = splat %0 : <64x32xptr<fp16>>\n"
                            "  %17 = addptr %16, %15 : <64x32xptr<fp16>>\n"
                            "  %18 = load %17 : <64x32xfp16>\n"
                            "  %19 = trans %17 {perm = [1, 0]} : <32x64xptr<fp16>>\n"
                            "  %20 = reshape %7 : <2x32xi32>\n"
                            "  %21 = reshape %11 : <2048xi32>\n"
                            "  %22 = reshape %7 : <64x1xi32>\n"
                            "  %23 = convert_layout %17 : <64x32xptr<fp16>>\n"
                            "  %24 = reshape %17 : <2x32x32xptr<fp16>>\n"
                            "  %25 = reshape %24 : <64x1x32xptr<fp16>>\n"
                            "  %26 = reshape %14 : <8x8x32xi32>\n"
                            "  return\n"
                            "}\n";

static void test_ptr_2d(void) {
    Parsed p;
    if (!parse(&p, ptr_2d)) return;
    ParamFact facts[2] = {{16, false}, {16, false}};
    AxisInfo *info = axis_info_analyze(p.f, facts, p.arena);
    EXPECT(7, "contiguity = [64], divisibility = [64], constancy = [1]");
    EXPECT(9, "contiguity = [64, 1], divisibility = [64, 1], constancy = [1, 1]");
    EXPECT(10, "contiguity = [64, 1], divisibility = [64, 1], constancy = [1, 32]");
    EXPECT(12, "contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 32]");
    EXPECT(13, "contiguity = [1, 32], divisibility = [1, 1073741824], constancy = [1, 1]");
    EXPECT(14, "contiguity = [1, 32], divisibility = [1, 1073741824], constancy = [64, 1]");
    EXPECT(15, "contiguity = [1, 32], divisibility = [1, 16], constancy = [1, 1]");
    /* along dim 0 every address is only known to be a multiple of 2 bytes */
    EXPECT(17, "contiguity = [1, 32], divisibility = [2, 16], constancy = [1, 1]");
    EXPECT(19, "contiguity = [32, 1], divisibility = [16, 2], constancy = [1, 1]");
    /* reshape: the last dim keeps runs cut to its size, starts at multiples of 32 */
    EXPECT(20, "contiguity = [1, 32], divisibility = [1, 32], constancy = [1, 1]");
    EXPECT(21, "contiguity = [1], divisibility = [16], constancy = [2048]");
    EXPECT(
        22,
        "contiguity = [64, 1], divisibility = [64, 1], constancy = [1, 1]"); /* a dim of 1 added */
    EXPECT(24, "contiguity = [1, 1, 32], divisibility = [2, 2, 16], constancy = [1, 1, 1]");
    EXPECT(25, "contiguity = [1, 1, 32], divisibility = [2, 2, 16], constancy = [1, 1, 1]");
    EXPECT(26, "contiguity = [1, 1, 32], divisibility = [1, 1, 1073741824], constancy = [1, 8, 1]");
    EXPECT(23, "contiguity = [1, 32], divisibility = [2, 16], constancy = [1, 1]");
    const AxisInfo *ptr = info_num(p.f, info, 17);
    CHECK(axis_info_vector_width(ptr, NULL, 2, 1) == 8, "2-D fp16 along dim 1: 8");
    CHECK(axis_info_vector_width(ptr, NULL, 2, 0) == 1, "2-D fp16 along dim 0: 1");
    CHECK(axis_info_vector_width(info_num(p.f, info, 19), NULL, 2, 0) == 8, "transposed: dim 0");
    /* stride not divisible: rows start anywhere */
    ParamFact ptr_only[2] = {{16, false}, {1, false}};
    info = axis_info_analyze(p.f, ptr_only, p.arena);
    EXPECT(17, "contiguity = [1, 32], divisibility = [2, 2], constancy = [1, 1]");
    CHECK(axis_info_vector_width(info_num(p.f, info, 17), NULL, 2, 1) == 1, "unaligned rows: 1");
    parsed_free(&p);
}

static const char *hints = "func kernel @hints(%0: ptr<fp32>, %1: i32, %2: ptr<i32>) {\n"
                           "  %3 = arange {start = 0, end = 256} : <256xi32>\n"
                           "  %4 = splat %1 : <256xi32>\n"
                           "  %5 = add %4, %3 : <256xi32>\n"
                           "  %6 = multiple_of %5 {values = [256]} : <256xi32>\n"
                           "  %7 = max_contiguous %6 {values = [256]} : <256xi32>\n"
                           "  %8 = splat %2 : <256xptr<i32>>\n"
                           "  %9 = addptr %8, %3 : <256xptr<i32>>\n"
                           "  %10 = load %9 : <256xi32>\n"
                           "  %11 = max_contiguous %10 {values = [64]} : <256xi32>\n"
                           "  %12 = multiple_of %11 {values = [48]} : <256xi32>\n"
                           "  %13 = splat %0 : <256xptr<fp32>>\n"
                           "  %14 = addptr %13, %12 : <256xptr<fp32>>\n"
                           "  %15 = max_contiguous %10 {values = [100000]} : <256xi32>\n"
                           "  %16 = multiple_of %0 {values = [64]} : ptr<fp32>\n"
                           "  %17 = multiple_of %4 {values = [4]} : <256xi32>\n"
                           "  %18 = expand_dims %12 {axis = 0} : <1x256xi32>\n"
                           "  %19 = multiple_of %18 {values = [8, 32]} : <1x256xi32>\n"
                           "  return\n"
                           "}\n";

/* A [32, 64] tile's masks along its rows (dim 1): k < K and K > k are prefixes of every
 * aligned run (runs as long as the row: 64), k >= K0 a suffix (K0 not known to be a multiple
 * of anything: no run longer than 1), r < M constant along the row, and the `and`, `or` and
 * broadcasts of them; k + 1 < K starts its runs at odd values (divisibility 1: 1). */
static const char *prefix_masks =
    "func kernel @masks(%0: i32 \"K\", %1: i32 \"K0\", %2: i32 \"M\") {\n"
    "  %3 = arange {start = 0, end = 64} : <64xi32>\n"
    "  %4 = expand_dims %3 {axis = 0} : <1x64xi32>\n"
    "  %5 = splat %0 : <1x64xi32>\n"
    "  %6 = cmp %4, %5 {pred = lt} : <1x64xi1>\n"
    "  %7 = cmp %5, %4 {pred = gt} : <1x64xi1>\n"
    "  %8 = splat %1 : <1x64xi32>\n"
    "  %9 = cmp %4, %8 {pred = ge} : <1x64xi1>\n"
    "  %10 = arange {start = 0, end = 32} : <32xi32>\n"
    "  %11 = expand_dims %10 {axis = 1} : <32x1xi32>\n"
    "  %12 = splat %2 : <32x1xi32>\n"
    "  %13 = cmp %11, %12 {pred = lt} : <32x1xi1>\n"
    "  %14 = broadcast %13 : <32x64xi1>\n"
    "  %15 = broadcast %6 : <32x64xi1>\n"
    "  %16 = and %14, %15 : <32x64xi1>\n"
    "  %17 = broadcast %9 : <32x64xi1>\n"
    "  %18 = and %14, %17 : <32x64xi1>\n"
    "  %19 = broadcast %7 : <32x64xi1>\n"
    "  %20 = or %19, %15 : <32x64xi1>\n"
    "  %21 = const {value = 1} : <1x64xi32>\n"
    "  %22 = add %4, %21 : <1x64xi32>\n"
    "  %23 = cmp %22, %5 {pred = lt} : <1x64xi1>\n"
    "  return\n"
    "}\n";

static void test_prefix_width(void) {
    Parsed p;
    if (!parse(&p, prefix_masks)) return;
    ParamFact none[3] = {{1, false}, {1, false}, {1, false}};
    AxisInfo *info = axis_info_analyze(p.f, none, p.arena);
#define PW(num, dim) axis_info_prefix_width(p.f, info, val_num(p.f, num), dim)
    CHECK(PW(6, 1) == 64, "k < K: %d", PW(6, 1));
    CHECK(PW(7, 1) == 64, "K > k: %d", PW(7, 1));
    CHECK(PW(9, 1) == 1, "k >= K0 (a suffix): %d", PW(9, 1));
    CHECK(PW(14, 1) == 64, "r < M, broadcast along the row: %d", PW(14, 1));
    CHECK(PW(16, 1) == 64, "(r < M) & (k < K): %d", PW(16, 1));
    CHECK(PW(18, 1) == 1, "(r < M) & (k >= K0): %d", PW(18, 1));
    CHECK(PW(20, 1) == 64, "(K > k) | (k < K): %d", PW(20, 1));
    CHECK(PW(23, 1) == 1, "k + 1 < K, runs from odd values: %d", PW(23, 1));
    CHECK(PW(16, 0) == 32, "(r < M) & (k < K) down a column (r rising there): %d", PW(16, 0));
#undef PW
    /* K a multiple of 16: k >= K0 stays a suffix, k < K is also constant over runs of 16 */
    ParamFact k16[3] = {{16, true}, {1, false}, {1, false}};
    info = axis_info_analyze(p.f, k16, p.arena);
    CHECK(axis_info_prefix_width(p.f, info, val_num(p.f, 6), 1) == 64, "k < K, K %% 16 == 0");
    CHECK(info[val_num(p.f, 6)].constancy[1] == 16, "its constancy: 16");
    parsed_free(&p);
}

static void test_hints(void) {
    Parsed p;
    if (!parse(&p, hints)) return;
    ParamFact facts[3] = {{16, false}, {1, false}, {16, false}};
    AxisInfo *info = axis_info_analyze(p.f, facts, p.arena);
    EXPECT(5, "contiguity = [256], divisibility = [1], constancy = [1]");
    EXPECT(6, "contiguity = [256], divisibility = [256], constancy = [1]");
    EXPECT(7, "contiguity = [256], divisibility = [256], constancy = [1]");
    EXPECT(10, "contiguity = [1], divisibility = [1], constancy = [1]"); /* load: neutral */
    EXPECT(11, "contiguity = [64], divisibility = [1], constancy = [1]");
    EXPECT(12, "contiguity = [64], divisibility = [16], constancy = [1]"); /* 48 = 16 * 3 */
    EXPECT(14, "contiguity = [64], divisibility = [16], constancy = [1]");
    EXPECT(15, "contiguity = [32], divisibility = [1], constancy = [1]"); /* 100000 = 32 * 3125 */
    EXPECT(16, "contiguity = [1], divisibility = [64], constancy = [1]");
    EXPECT(
        17,
        "contiguity = [1], divisibility = [4], constancy = [256]"); /* a hint never lowers a fact */
    EXPECT(19, "contiguity = [1, 64], divisibility = [8, 32], constancy = [1, 1]");
    CHECK(axis_info_vector_width(info_num(p.f, info, 14), NULL, 4, 0) == 4, "hinted: 4");
    parsed_free(&p);
}

static const char *arith = "func kernel @arith(%0: i32, %1: u32) {\n"
                           "  %2 = program_id {axis = 0} : i32\n"
                           "  %3 = const {value = 1024} : i32\n"
                           "  %4 = mul %2, %3 : i32\n"
                           "  %5 = splat %4 : <1024xi32>\n"
                           "  %6 = arange {start = 0, end = 1024} : <1024xi32>\n"
                           "  %7 = add %5, %6 : <1024xi32>\n"
                           "  %8 = const {value = 128} : <1024xi32>\n"
                           "  %9 = rem %7, %8 : <1024xi32>\n"
                           "  %10 = idiv %7, %8 : <1024xi32>\n"
                           "  %11 = splat %0 : <1024xi32>\n"
                           "  %12 = add %11, %6 : <1024xi32>\n"
                           "  %13 = rem %12, %8 : <1024xi32>\n"
                           "  %14 = idiv %12, %8 : <1024xi32>\n"
                           "  %15 = const {value = 48} : <1024xi32>\n"
                           "  %16 = rem %7, %15 : <1024xi32>\n"
                           "  %17 = idiv %7, %15 : <1024xi32>\n"
                           "  %18 = rem %7, %11 : <1024xi32>\n"
                           "  %19 = const {value = 2} : <1024xi32>\n"
                           "  %20 = shl %7, %19 : <1024xi32>\n"
                           "  %21 = shr %7, %19 : <1024xi32>\n"
                           "  %22 = shr %12, %19 : <1024xi32>\n"
                           "  %23 = sub %7, %5 : <1024xi32>\n"
                           "  %24 = sub %5, %7 : <1024xi32>\n"
                           "  %25 = const {value = 1} : <1024xi32>\n"
                           "  %26 = mul %7, %25 : <1024xi32>\n"
                           "  %27 = mul %7, %19 : <1024xi32>\n"
                           "  %28 = const {value = 0} : <1024xi32>\n"
                           "  %29 = add %7, %28 : <1024xi32>\n"
                           "  %30 = const {value = 3} : <1024xi32>\n"
                           "  %31 = add %7, %30 : <1024xi32>\n"
                           "  %32 = rem %31, %8 : <1024xi32>\n"
                           "  %33 = cvt %6 : <1024xu32>\n"
                           "  %34 = splat %1 : <1024xu32>\n"
                           "  %35 = add %34, %33 : <1024xu32>\n"
                           "  %36 = const {value = 16} : <1024xu32>\n"
                           "  %37 = rem %35, %36 : <1024xu32>\n"
                           "  %38 = cvt %7 : <1024xi8>\n"
                           "  %39 = cvt %12 : <1024xi8>\n"
                           "  %40 = cvt %12 : <1024xi64>\n"
                           "  %41 = cvt %12 : <1024xu64>\n"
                           "  %42 = cvt %7 : <1024xu64>\n"
                           "  %43 = bitcast %12 : <1024xu32>\n"
                           "  %44 = and %7, %27 : <1024xi32>\n"
                           "  %45 = min %7, %12 : <1024xi32>\n"
                           "  %46 = max %7, %5 : <1024xi32>\n"
                           "  %47 = neg %4 : i32\n"
                           "  %48 = const {value = -128} : <1024xi32>\n"
                           "  %49 = rem %7, %48 : <1024xi32>\n"
                           "  %50 = idiv %7, %48 : <1024xi32>\n"
                           "  %51 = rem %7, %25 : <1024xi32>\n"
                           "  %52 = idiv %7, %28 : <1024xi32>\n"
                           "  %53 = const {value = 40} : <1024xi32>\n"
                           "  %54 = shl %7, %53 : <1024xi32>\n"
                           "  %55 = bitcast %35 : <1024xi32>\n"
                           "  %56 = rem %55, %8 : <1024xi32>\n"
                           "  return\n"
                           "}\n";

static void test_arith(void) {
    Parsed p;
    if (!parse(&p, arith)) return;
    ParamFact facts[2] = {{16, false}, {16, false}};
    AxisInfo *info = axis_info_analyze(p.f, facts, p.arena);
    EXPECT(7, "contiguity = [1024], divisibility = [1024], constancy = [1]");
    EXPECT(9, "contiguity = [128], divisibility = [128], constancy = [1]"); /* x % 128 */
    EXPECT(10,
           "contiguity = [1], divisibility = [1], constancy = [128]"); /* x / 128: pid * 8 + 0..7 */
    EXPECT(12, "contiguity = [1024], divisibility = [16], constancy = [1]");
    /* n + arange may be negative: truncating % and / break the runs there */
    EXPECT(13, "contiguity = [1], divisibility = [1], constancy = [1]");
    EXPECT(14, "contiguity = [1], divisibility = [1], constancy = [1]");
    EXPECT(16, "contiguity = [16], divisibility = [16], constancy = [1]"); /* % 48 */
    EXPECT(17, "contiguity = [1], divisibility = [1], constancy = [16]");  /* / 48 */
    /* a divisor only known to be a multiple of 16 may be 0 at run time (x % 0 = 0) */
    EXPECT(18, "contiguity = [1], divisibility = [1], constancy = [1]");
    /* known nonzero as well (the runtime's specialisation), it keeps runs of 16 */
    ParamFact nonzero[2] = {{16, true}, {16, true}};
    info = axis_info_analyze(p.f, nonzero, p.arena);
    EXPECT(18, "contiguity = [16], divisibility = [16], constancy = [1]");
    info = axis_info_analyze(p.f, facts, p.arena);
    EXPECT(20, "contiguity = [1], divisibility = [4], constancy = [1]"); /* << 2 */
    EXPECT(21, "contiguity = [1], divisibility = [1], constancy = [4]"); /* >> 2 */
    EXPECT(22, "contiguity = [1], divisibility = [1], constancy = [4]"); /* any sign */
    EXPECT(23, "contiguity = [1024], divisibility = [1024], constancy = [1]");
    EXPECT(24, "contiguity = [1], divisibility = [1], constancy = [1]");       /* decreasing */
    EXPECT(26, "contiguity = [1024], divisibility = [1024], constancy = [1]"); /* * 1 */
    EXPECT(27, "contiguity = [1], divisibility = [2], constancy = [1]");       /* * 2 */
    EXPECT(29, "contiguity = [1024], divisibility = [1024], constancy = [1]"); /* + 0 */
    EXPECT(31, "contiguity = [1024], divisibility = [1], constancy = [1]");    /* + 3 */
    EXPECT(32, "contiguity = [1], divisibility = [1], constancy = [1]");       /* runs start at 3 */
    EXPECT(35, "contiguity = [1024], divisibility = [16], constancy = [1]");
    EXPECT(37, "contiguity = [16], divisibility = [16], constancy = [1]");   /* unsigned % 16 */
    EXPECT(38, "contiguity = [128], divisibility = [128], constancy = [1]"); /* i8 wraps at 128 */
    EXPECT(39, "contiguity = [16], divisibility = [16], constancy = [1]");
    EXPECT(40, "contiguity = [1024], divisibility = [16], constancy = [1]");   /* sext keeps */
    EXPECT(41, "contiguity = [16], divisibility = [16], constancy = [1]");     /* -1 -> 2^64-1 */
    EXPECT(42, "contiguity = [1024], divisibility = [1024], constancy = [1]"); /* non-negative */
    EXPECT(43, "contiguity = [16], divisibility = [16], constancy = [1]");
    EXPECT(44, "contiguity = [1], divisibility = [2], constancy = [1]");
    EXPECT(45, "contiguity = [1024], divisibility = [16], constancy = [1]");
    EXPECT(46, "contiguity = [1], divisibility = [1], constancy = [1]");
    EXPECT(47, "contiguity = [1], divisibility = [1024], constancy = [1]");
    EXPECT(49, "contiguity = [128], divisibility = [128], constancy = [1]");         /* % -128 */
    EXPECT(50, "contiguity = [1], divisibility = [1], constancy = [128]");           /* / -128 */
    EXPECT(51, "contiguity = [1], divisibility = [1073741824], constancy = [1024]"); /* % 1 = 0 */
    EXPECT(52, "contiguity = [1], divisibility = [1073741824], constancy = [1024]"); /* / 0 = 0 */
    EXPECT(54, "contiguity = [1], divisibility = [1073741824], constancy = [1024]"); /* << 40 = 0 */
    /* u32 -> i32 may wrap at 2^31 (runs cut) and may be negative (no % runs) */
    EXPECT(55, "contiguity = [16], divisibility = [16], constancy = [1]");
    EXPECT(56, "contiguity = [1], divisibility = [1], constancy = [1]");
    parsed_free(&p);
}

static const char *compares = "func kernel @cmp(%0: i32, %1: ptr<fp32>) {\n"
                              "  %2 = arange {start = 0, end = 256} : <256xi32>\n"
                              "  %3 = splat %0 : <256xi32>\n"
                              "  %4 = cmp %2, %3 {pred = lt} : <256xi1>\n"
                              "  %5 = cmp %2, %3 {pred = ge} : <256xi1>\n"
                              "  %6 = cmp %2, %3 {pred = le} : <256xi1>\n"
                              "  %7 = cmp %3, %2 {pred = le} : <256xi1>\n"
                              "  %8 = cmp %3, %2 {pred = gt} : <256xi1>\n"
                              "  %9 = cmp %2, %3 {pred = eq} : <256xi1>\n"
                              "  %10 = cmp %3, %3 {pred = ne} : <256xi1>\n"
                              "  %11 = and %4, %7 : <256xi1>\n"
                              "  %12 = splat %1 : <256xptr<fp32>>\n"
                              "  %13 = addptr %12, %2 : <256xptr<fp32>>\n"
                              "  %14 = const {value = 64} : <256xi32>\n"
                              "  %15 = addptr %12, %14 : <256xptr<fp32>>\n"
                              "  %16 = select %4, %13, %15 : <256xptr<fp32>>\n"
                              "  %17 = const {value = 1} : <256xi1>\n"
                              "  %18 = select %17, %13, %15 : <256xptr<fp32>>\n"
                              "  %19 = const {value = 8} : <256xi32>\n"
                              "  %20 = cmp %2, %19 {pred = lt} : <256xi1>\n"
                              "  %21 = cvt %4 : <256xi32>\n"
                              "  %22 = cvt %2 : <256xi1>\n"
                              "  return\n"
                              "}\n";

static void test_compares(void) {
    Parsed p;
    if (!parse(&p, compares)) return;
    ParamFact facts[2] = {{16, false}, {16, false}};
    AxisInfo *info = axis_info_analyze(p.f, facts, p.arena);
    EXPECT(4, "contiguity = [1], divisibility = [1], constancy = [16]"); /* x < n */
    EXPECT(5, "contiguity = [1], divisibility = [1], constancy = [16]"); /* x >= n */
    EXPECT(6, "contiguity = [1], divisibility = [1], constancy = [1]");  /* x <= n flips at n */
    EXPECT(7, "contiguity = [1], divisibility = [1], constancy = [16]"); /* n <= x */
    EXPECT(8, "contiguity = [1], divisibility = [1], constancy = [16]"); /* n > x */
    EXPECT(9, "contiguity = [1], divisibility = [1], constancy = [1]");
    EXPECT(10, "contiguity = [1], divisibility = [1], constancy = [256]");
    EXPECT(11, "contiguity = [1], divisibility = [1], constancy = [16]");
    EXPECT(13, "contiguity = [256], divisibility = [16], constancy = [1]");
    EXPECT(15, "contiguity = [1], divisibility = [16], constancy = [256]");
    EXPECT(16,
           "contiguity = [1], divisibility = [4], constancy = [1]"); /* x_ptr + i: 4-byte steps */
    EXPECT(18, "contiguity = [256], divisibility = [16], constancy = [1]");
    EXPECT(20, "contiguity = [1], divisibility = [1], constancy = [8]");
    EXPECT(21, "contiguity = [1], divisibility = [1], constancy = [16]");
    EXPECT(22, "contiguity = [1], divisibility = [1], constancy = [1]");
    parsed_free(&p);
}

static const char *control =
    "func kernel @loop(%0: ptr<fp16>, %1: i32) {\n"
    "  %2 = arange {start = 0, end = 32} : <32xi32>\n"
    "  %3 = splat %0 : <32xptr<fp16>>\n"
    "  %4 = addptr %3, %2 : <32xptr<fp16>>\n"
    "  %5 = const {value = 0} : i32\n"
    "  %6 = const {value = 32} : i32\n"
    "  %7 = const {value = 0} : <32xi32>\n"
    "  %8 = splat %6 : <32xi32>\n"
    "  %9, %10, %11 = for %5, %1, %6, %4, %5, %7 : <32xptr<fp16>>, i32, <32xi32> {\n"
    "  ^(%12: i32, %13: <32xptr<fp16>>, %14: i32, %15: <32xi32>):\n"
    "    %16 = addptr %13, %8 : <32xptr<fp16>>\n"
    "    %17 = add %14, %12 : i32\n"
    "    %18 = add %15, %2 : <32xi32>\n"
    "    yield %16, %17, %18\n"
    "  }\n"
    "  %19 = cmp %1, %5 {pred = gt} : i1\n"
    "  %20 = if %19 : <32xptr<fp16>> {\n"
    "    yield %4\n"
    "  } else {\n"
    "    %21 = addptr %4, %8 : <32xptr<fp16>>\n"
    "    yield %21\n"
    "  }\n"
    "  %22 = while %5 : i32 {\n"
    "  ^(%23: i32):\n"
    "    %24 = cmp %23, %1 {pred = lt} : i1\n"
    "    condition %24\n"
    "  } do {\n"
    "  ^(%25: i32):\n"
    "    %26 = add %25, %6 : i32\n"
    "    yield %26\n"
    "  }\n"
    "  %27 = for %5, %1, %6, %5 : i32 {\n"
    "  ^(%28: i32, %29: i32):\n"
    "    %30 = const {value = 2} : i32\n"
    "    %31 = idiv %29, %30 : i32\n"
    "    %32 = add %31, %6 : i32\n"
    "    yield %32\n"
    "  }\n"
    "  %33 = const {value = 1} : i1\n"
    "  %34 = if %33 : i32 {\n"
    "    yield %6\n"
    "  } else {\n"
    "    yield %1\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_control(void) {
    Parsed p;
    if (!parse(&p, control)) return;
    ParamFact facts[2] = {{16, false}, {1, false}};
    AxisInfo *info = axis_info_analyze(p.f, facts, p.arena);
    EXPECT(12, "contiguity = [1], divisibility = [32], constancy = [1]"); /* iv: gcd(lb, step) */
    EXPECT(13, "contiguity = [32], divisibility = [16], constancy = [1]");
    EXPECT(14, "contiguity = [1], divisibility = [32], constancy = [1]");
    EXPECT(15, "contiguity = [1], divisibility = [1], constancy = [1]");
    EXPECT(16, "contiguity = [32], divisibility = [16], constancy = [1]");
    EXPECT(9, "contiguity = [32], divisibility = [16], constancy = [1]");
    EXPECT(10, "contiguity = [1], divisibility = [32], constancy = [1]");
    EXPECT(11, "contiguity = [1], divisibility = [1], constancy = [1]");
    EXPECT(20, "contiguity = [32], divisibility = [16], constancy = [1]");
    EXPECT(23, "contiguity = [1], divisibility = [32], constancy = [1]");
    EXPECT(25, "contiguity = [1], divisibility = [32], constancy = [1]");
    EXPECT(22, "contiguity = [1], divisibility = [32], constancy = [1]");
    /* x / 2 + 32 from 0: 32, 48, 56, ...: divisibility sinks round by round to 8, then
     * the iteration limit sends it to neutral (any answer <= the truth is fine, but it
     * must not claim more than 8) */
    const AxisInfo *c = info_num(p.f, info, 29);
    CHECK(c && c->divisibility[0] <= 8, "halving loop: %lld",
          c ? (long long)c->divisibility[0] : -1LL);
    c = info_num(p.f, info, 27);
    CHECK(c && c->divisibility[0] <= 8, "halving loop result: %lld",
          c ? (long long)c->divisibility[0] : -1LL);
    EXPECT(34, "contiguity = [1], divisibility = [32], constancy = [1]"); /* constant condition */
    parsed_free(&p);
}

static void test_vector_width(void) {
    AxisInfo a;
    memset(&a, 0, sizeof a);
    a.rank = 1;
    a.contiguity[0] = 1024, a.divisibility[0] = 16, a.constancy[0] = 1;
    CHECK(axis_info_vector_width(&a, NULL, 4, 0) == 4, "fp32");
    CHECK(axis_info_vector_width(&a, NULL, 2, 0) == 8, "fp16");
    CHECK(axis_info_vector_width(&a, NULL, 8, 0) == 2, "fp64");
    CHECK(axis_info_vector_width(&a, NULL, 1, 0) == 16, "i8");
    a.divisibility[0] = 4;
    CHECK(axis_info_vector_width(&a, NULL, 4, 0) == 1, "4-byte aligned fp32");
    CHECK(axis_info_vector_width(&a, NULL, 2, 0) == 2, "4-byte aligned fp16");
    a.divisibility[0] = 1 << 20;
    CHECK(axis_info_vector_width(&a, NULL, 4, 0) == 4, "never past 16 bytes");
    a.contiguity[0] = 2;
    CHECK(axis_info_vector_width(&a, NULL, 4, 0) == 2, "contiguity 2");
    a.contiguity[0] = 1024;
    AxisInfo m;
    memset(&m, 0, sizeof m);
    m.rank = 1;
    m.contiguity[0] = m.divisibility[0] = m.constancy[0] = 1;
    CHECK(axis_info_vector_width(&a, &m, 4, 0) == 1, "mask constancy 1");
    m.constancy[0] = 2;
    CHECK(axis_info_vector_width(&a, &m, 4, 0) == 2, "mask constancy 2");
    m.constancy[0] = 64;
    CHECK(axis_info_vector_width(&a, &m, 4, 0) == 4, "mask constancy 64");
    AxisInfo s;
    memset(&s, 0, sizeof s);
    s.contiguity[0] = s.constancy[0] = 1, s.divisibility[0] = 16;
    CHECK(axis_info_vector_width(&s, NULL, 4, 0) == 1, "scalar");
    AxisInfo b;
    memset(&b, 0, sizeof b);
    b.rank = 2;
    b.contiguity[0] = 1, b.contiguity[1] = 64;
    b.divisibility[0] = 16, b.divisibility[1] = 16;
    b.constancy[0] = b.constancy[1] = 1;
    CHECK(axis_info_vector_width(&b, NULL, 2, 1) == 8, "2-D dim 1");
    CHECK(axis_info_vector_width(&b, NULL, 2, 0) == 1, "2-D dim 0");
    CHECK(axis_info_vector_width(&b, NULL, 2, 3) == 1, "dim out of range");
    CHECK(axis_info_vector_width(&b, NULL, 32, 1) == 1, "elements wider than 16 bytes");
}

/* ---- the property test: random programs, facts checked against values ---- */

enum { MAXV = 160, MAXN = 256 };

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int rn(int n) { return (int)(rnd() % (uint64_t)n); }

typedef struct Gen {
    Arena *arena;
    IrModule *m;
    IrFunc *f;
    IrBuilder b;
    Source src;
    ValId vals[MAXV];
    int nvals;
    int depth;                    /* structured ops open around the builder */
    ValId pint, puns, pf32, pf16; /* params */
} Gen;

static IrType T(Gen *g, ValId v) { return ir_type(g->f, v); }

static bool is_intv(Gen *g, ValId v) { return dt_is_int(T(g, v).dt); }

static ValId pick(Gen *g, bool (*ok)(Gen *, ValId, const void *), const void *arg) {
    ValId c[MAXV];
    int n = 0;
    for (int i = 0; i < g->nvals; i++)
        if (ok(g, g->vals[i], arg)) c[n++] = g->vals[i];
    return n ? c[rn(n)] : 0;
}

static bool ok_int(Gen *g, ValId v, const void *a) {
    (void)a;
    return is_intv(g, v) && T(g, v).dt != DT_I1;
}
static bool ok_same(Gen *g, ValId v, const void *a) {
    return ty_equal(T(g, v), *(const IrType *)a);
}
static bool ok_scalar_int(Gen *g, ValId v, const void *a) {
    return ok_int(g, v, a) && T(g, v).rank == 0;
}
static bool ok_block(Gen *g, ValId v, const void *a) { return ok_int(g, v, a) && T(g, v).rank > 0; }
static bool ok_2d(Gen *g, ValId v, const void *a) {
    (void)a;
    return T(g, v).rank == 2 && (dt_is_int(T(g, v).dt) || T(g, v).dt == DT_PTR);
}
static bool ok_ptr_block(Gen *g, ValId v, const void *a) {
    (void)a;
    return T(g, v).dt == DT_PTR && T(g, v).rank > 0;
}
static bool ok_offset(Gen *g, ValId v, const void *a) {
    return ok_block(g, v, a) &&
           (T(g, v).dt == DT_I32 || T(g, v).dt == DT_I64 || T(g, v).dt == DT_U32);
}

static void add(Gen *g, ValId v) {
    if (v && g->nvals < MAXV) g->vals[g->nvals++] = v;
}

static int64_t interesting(void) {
    static const int64_t pool[] = {0,  1,  2,  3,   4,   8, 16, 32, 48, 64, 128,        1024,
                                   -1, -2, -8, -16, -64, 5, 7,  24, 96, -3, 2147483648, 4294967280};
    return rn(3) ? pool[rn((int)(sizeof pool / sizeof pool[0]))] : (int64_t)rn(81) - 40;
}

static const int int_dts[] = {DT_I32, DT_I32, DT_I64, DT_U32, DT_I16, DT_I8};

static ValId gen_const(Gen *g, IrType t) {
    int64_t v = interesting();
    if (!dt_is_signed(t.dt) && v < 0) v = -v;
    return ir_const_int(&g->b, t, v);
}

static IrType shape_like(IrType s, int dt) { return ty_with_elem(s, ty_scalar(dt)); }

/* reshape targets by element count: rank, then the dims */
static const int32_t reshapes[][4] = {
    {1, 16},      {2, 4, 4},    {2, 2, 8},     {2, 8, 2},     {3, 2, 2, 4},  {3, 4, 1, 4},
    {2, 16, 1},   {1, 64},      {2, 4, 16},    {2, 16, 4},    {2, 8, 8},     {3, 2, 2, 16},
    {3, 4, 4, 4}, {3, 2, 8, 4}, {3, 1, 4, 16}, {3, 4, 16, 1}, {1, 256},      {2, 4, 64},
    {2, 64, 4},   {2, 16, 16},  {3, 4, 4, 16}, {3, 2, 2, 64}, {3, 8, 2, 16},
};

static void gen_op(Gen *g);

static bool ok_carry(Gen *g, ValId v, const void *a) {
    (void)a;
    return (is_intv(g, v) && T(g, v).dt != DT_I1) || T(g, v).dt == DT_PTR;
}
static bool ok_cond(Gen *g, ValId v, const void *a) {
    (void)a;
    return T(g, v).dt == DT_I1 && T(g, v).rank == 0;
}

/* Ops into region r (args already added to the pool), ending in a yield of values of
 * the given types: preferably ones made in the region. */
static void gen_region_body(Gen *g, RegionId r, const IrType *tys, uint32_t n) {
    RegionId saved = g->b.region;
    int saved_n = g->nvals;
    g->b.region = r;
    g->depth++;
    int nops = 2 + rn(8);
    for (int i = 0; i < nops; i++) gen_op(g);
    ValId y[8];
    for (uint32_t i = 0; i < n; i++) {
        ValId c[MAXV];
        int nc = 0, nfresh = 0;
        for (int j = g->nvals - 1; j >= 0; j--)
            if (ty_equal(T(g, g->vals[j]), tys[i])) {
                c[nc++] = g->vals[j];
                if (j >= saved_n) nfresh = nc;
            }
        y[i] = nfresh && rn(4) ? c[rn(nfresh)] : c[rn(nc)];
    }
    ir_build(&g->b, OP_YIELD, y, n, NULL, 0);
    g->depth--;
    g->b.region = saved;
    g->nvals = saved_n;
}

static void gen_for(Gen *g) {
    static const int64_t lbs[] = {0, 0, 1, 3, 16, -8, 32};
    static const int64_t steps[] = {1, 1, 2, 16, 32, 3, -1, -16};
    int64_t lb = lbs[rn(7)], step = steps[rn(8)], ub = lb + step * rn(7);
    IrType i32 = ty_scalar(DT_I32);
    ValId ops[8] = {ir_const_int(&g->b, i32, lb), ir_const_int(&g->b, i32, ub),
                    ir_const_int(&g->b, i32, step)};
    IrType tys[4];
    uint32_t n = 1 + (uint32_t)rn(3);
    for (uint32_t i = 0; i < n; i++) {
        ops[3 + i] = pick(g, ok_carry, NULL);
        if (!ops[3 + i]) return;
        tys[i] = T(g, ops[3 + i]);
    }
    OpId op = ir_build(&g->b, OP_FOR, ops, 3 + n, tys, n);
    RegionId r = ir_op_add_region(g->f, op);
    int saved_n = g->nvals;
    add(g, ir_region_add_arg(g->f, r, i32));
    for (uint32_t i = 0; i < n; i++) add(g, ir_region_add_arg(g->f, r, tys[i]));
    gen_region_body(g, r, tys, n);
    g->nvals = saved_n;
    for (uint32_t i = 0; i < n; i++) add(g, ir_result(g->f, op, i));
}

static void gen_if(Gen *g) {
    ValId c = pick(g, ok_cond, NULL), x = pick(g, ok_carry, NULL);
    if (!c || !x) return;
    IrType t = T(g, x);
    OpId op = ir_build(&g->b, OP_IF, &c, 1, &t, 1);
    RegionId r0 = ir_op_add_region(g->f, op), r1 = ir_op_add_region(g->f, op);
    gen_region_body(g, r0, &t, 1);
    gen_region_body(g, r1, &t, 1);
    add(g, ir_result(g->f, op, 0));
}

static void gen_op(Gen *g) {
    IrBuilder *b = &g->b;
    int kind = rn(22);
    if (kind >= 20) {
        if (g->depth < 2) kind == 20 ? gen_for(g) : gen_if(g);
        return;
    }
    switch (kind) {
    case 0: { /* constant, scalar or block */
        IrType t = ty_scalar(int_dts[rn(6)]);
        if (rn(2)) t = ty_block(t, 1, (int32_t[]){16});
        add(g, gen_const(g, t));
        break;
    }
    case 1: { /* arange */
        static const int64_t starts[] = {0, 0, 16, 32, -16, 3, 48, 1024, 8, -5};
        int64_t s = starts[rn(10)];
        OpId o = ir_build(b, OP_ARANGE, NULL, 0,
                          (IrType[]){ty_block(ty_scalar(DT_I32), 1, (int32_t[]){16})}, 1);
        g->f->ops[o].attr[0] = s, g->f->ops[o].attr[1] = s + 16;
        add(g, ir_result(g->f, o, 0));
        break;
    }
    case 2: { /* program_id, or a parameter */
        int w = rn(3);
        if (w == 0) {
            OpId o = ir_build(b, OP_PROGRAM_ID, NULL, 0, (IrType[]){ty_scalar(DT_I32)}, 1);
            add(g, ir_result(g->f, o, 0));
        } else {
            add(g, w == 1 ? g->pint : g->puns);
        }
        break;
    }
    case 3: { /* splat a scalar to [16] or [4, 16] */
        ValId s = pick(g, ok_scalar_int, NULL);
        if (!s) break;
        IrType t = rn(2) ? ty_block(T(g, s), 1, (int32_t[]){16})
                         : ty_block(T(g, s), 2, (int32_t[]){4, 16});
        add(g, ir_build1(b, OP_SPLAT, &s, 1, t));
        break;
    }
    case 4:
    case 5:
    case 6:
    case 7:
    case 8: { /* binary */
        static const int codes[] = {OP_ADD,  OP_ADD, OP_ADD, OP_SUB, OP_MUL,   OP_MUL,
                                    OP_IDIV, OP_REM, OP_REM, OP_AND, OP_OR,    OP_XOR,
                                    OP_SHL,  OP_SHR, OP_MIN, OP_MAX, OP_UMULHI};
        int code = codes[rn((int)(sizeof codes / sizeof codes[0]))];
        ValId x = pick(g, ok_int, NULL);
        if (!x) break;
        IrType t = T(g, x);
        if (code == OP_UMULHI && dt_bits(t.dt) > 32) break;
        ValId y = rn(3) ? pick(g, ok_same, &t) : 0;
        if (!y || rn(3) == 0) {
            if (code == OP_SHL || code == OP_SHR) {
                ValId c = ir_const_int(b, ty_elem(t), rn(6) ? rn(6) : rn(70));
                y = t.rank ? ir_build1(b, OP_SPLAT, &c, 1, t) : c;
            } else {
                y = gen_const(g, t);
            }
        }
        if (rn(2) && code != OP_SHL && code != OP_SHR && code != OP_IDIV && code != OP_REM &&
            code != OP_SUB) {
            ValId tmp = x;
            x = y, y = tmp;
        }
        add(g, ir_build1(b, code, (ValId[]){x, y}, 2, t));
        break;
    }
    case 9: { /* cmp, then maybe a select */
        ValId x = pick(g, ok_int, NULL);
        if (!x) break;
        IrType t = T(g, x);
        ValId y = pick(g, ok_same, &t);
        if (!y || rn(3) == 0) y = gen_const(g, t);
        if (rn(2)) {
            ValId tmp = x;
            x = y, y = tmp;
        }
        OpId o = ir_build(b, OP_CMP, (ValId[]){x, y}, 2, (IrType[]){shape_like(t, DT_I1)}, 1);
        g->f->ops[o].attr[0] = rn(6);
        ValId c = ir_result(g->f, o, 0);
        add(g, c);
        ValId a = pick(g, ok_same, &t), a2 = pick(g, ok_same, &t);
        if (a && a2 && rn(2)) add(g, ir_build1(b, OP_SELECT, (ValId[]){c, a, a2}, 3, t));
        break;
    }
    case 10: { /* cvt / bitcast */
        ValId x = pick(g, ok_int, NULL);
        if (!x) break;
        IrType t = T(g, x);
        static const int to[] = {DT_I8, DT_I16, DT_I32, DT_I64, DT_U32, DT_U8, DT_I1, DT_U16};
        int dt = to[rn(8)];
        if (rn(4) == 0) {
            int same = t.dt == DT_I32   ? DT_U32
                       : t.dt == DT_U32 ? DT_I32
                       : t.dt == DT_I8  ? DT_U8
                                        : 0;
            if (same) add(g, ir_build1(b, OP_BITCAST, &x, 1, shape_like(t, same)));
            break;
        }
        add(g, ir_build1(b, OP_CVT, &x, 1, shape_like(t, dt)));
        break;
    }
    case 11: { /* expand_dims + broadcast of a rank-1 block */
        ValId x = pick(g, ok_block, NULL);
        if (!x || T(g, x).rank != 1 || T(g, x).shape[0] > 64) break;
        IrType t = T(g, x);
        int axis = rn(2);
        int32_t sh[2] = {axis ? t.shape[0] : 1, axis ? 1 : t.shape[0]};
        OpId o = ir_build(b, OP_EXPAND_DIMS, &x, 1, (IrType[]){ty_block(ty_elem(t), 2, sh)}, 1);
        g->f->ops[o].attr[0] = axis;
        ValId e = ir_result(g->f, o, 0);
        add(g, e);
        int32_t bs[2] = {axis ? t.shape[0] : 4, axis ? 4 : t.shape[0]};
        add(g, ir_build1(b, OP_BROADCAST, &e, 1, ty_block(ty_elem(t), 2, bs)));
        break;
    }
    case 12: { /* trans */
        ValId x = pick(g, ok_2d, NULL);
        if (!x) break;
        IrType t = T(g, x);
        int32_t sh[2] = {t.shape[1], t.shape[0]};
        OpId o = ir_build(b, OP_TRANS, &x, 1, (IrType[]){ty_block(ty_elem(t), 2, sh)}, 1);
        g->f->ops[o].attr[0] = 1, g->f->ops[o].attr[1] = 0;
        add(g, ir_result(g->f, o, 0));
        break;
    }
    case 13: { /* reshape */
        ValId x = pick(g, ok_block, NULL);
        if (!x) x = pick(g, ok_ptr_block, NULL);
        if (!x) break;
        IrType t = T(g, x);
        int64_t n = ty_numel(t);
        const int32_t *c[32];
        int nc = 0;
        for (size_t i = 0; i < sizeof reshapes / sizeof reshapes[0]; i++) {
            int64_t m = 1;
            for (int d = 0; d < reshapes[i][0]; d++) m *= reshapes[i][1 + d];
            if (m == n) c[nc++] = reshapes[i];
        }
        if (!nc) break;
        const int32_t *s = c[rn(nc)];
        add(g, ir_build1(b, OP_RESHAPE, &x, 1, ty_block(ty_elem(t), s[0], s + 1)));
        break;
    }
    case 14:
    case 15: { /* addptr: a pointer block plus offsets */
        ValId o = pick(g, ok_offset, NULL);
        if (!o) break;
        IrType ot = T(g, o);
        ValId p = rn(2) ? pick(g, ok_ptr_block, NULL) : 0;
        if (!p || !ty_same_shape(T(g, p), ot)) {
            ValId base = rn(2) ? g->pf32 : g->pf16;
            p = ir_build1(b, OP_SPLAT, &base, 1, ty_with_elem(ot, T(g, base)));
            add(g, p);
        }
        add(g, ir_build1(b, OP_ADDPTR, (ValId[]){p, o}, 2, T(g, p)));
        break;
    }
    case 16: { /* unary */
        static const int codes[] = {OP_NEG, OP_NOT, OP_ABS};
        ValId x = pick(g, ok_int, NULL);
        if (x) add(g, ir_build1(b, codes[rn(3)], &x, 1, T(g, x)));
        break;
    }
    default: { /* the vector-add and 2-D index patterns, to make long runs common */
        ValId pid = pick(g, ok_scalar_int, NULL);
        if (!pid) break;
        IrType st = T(g, pid);
        ValId c = ir_const_int(b, st, 16 << rn(3));
        ValId m = ir_build1(b, OP_MUL, (ValId[]){pid, c}, 2, st);
        add(g, m);
        IrType bt = ty_block(st, 1, (int32_t[]){16});
        ValId s = ir_build1(b, OP_SPLAT, &m, 1, bt);
        OpId o = ir_build(b, OP_ARANGE, NULL, 0,
                          (IrType[]){ty_block(ty_scalar(DT_I32), 1, (int32_t[]){16})}, 1);
        g->f->ops[o].attr[0] = 0, g->f->ops[o].attr[1] = 16;
        ValId r = ir_result(g->f, o, 0);
        if (st.dt != DT_I32) r = ir_build1(b, OP_CVT, &r, 1, bt);
        ValId offs = ir_build1(b, OP_ADD, (ValId[]){s, r}, 2, bt);
        add(g, offs);
        switch (rn(4)) {
        case 0: { /* strided: arange * 2^k, runs of 1 with large divisibility */
            ValId k = ir_const_int(b, bt, 1 << rn(6));
            add(g, ir_build1(b, OP_MUL, (ValId[]){r, k}, 2, bt));
            break;
        }
        case 1: { /* offs against something: the mask rules */
            ValId y = pick(g, ok_same, &bt);
            if (!y) break;
            OpId c = ir_build(b, OP_CMP, rn(2) ? (ValId[]){offs, y} : (ValId[]){y, offs}, 2,
                              (IrType[]){shape_like(bt, DT_I1)}, 1);
            g->f->ops[c].attr[0] = rn(6);
            add(g, ir_result(g->f, c, 0));
            break;
        }
        case 2: { /* by a power of two */
            static const int codes[] = {OP_REM, OP_IDIV, OP_SHR};
            int code = codes[rn(3)];
            ValId k = ir_const_int(
                b, bt, code == OP_SHR ? rn(5) : (1 << rn(6)) * (rn(4) ? 1 : 3) * (rn(4) ? 1 : -1));
            add(g, ir_build1(b, code, (ValId[]){offs, k}, 2, bt));
            break;
        }
        default: break;
        }
        break;
    }
    }
}

/* ---- a reference evaluator for what gen_op builds ---- */

typedef struct EVal {
    int64_t v[MAXN];
    bool taint; /* overflowed somewhere (the analysis assumes no overflow) */
} EVal;

static int64_t norm(int64_t v, int dt) {
    int bits = dt_bits(dt);
    if (bits >= 64) return v;
    uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & m;
    if (dt_is_signed(dt) && (u >> (bits - 1)) & 1) u |= ~m;
    return (int64_t)u;
}

static bool fits(int64_t v, int dt) { return norm(v, dt) == v; }

static void strides(IrType t, int64_t *str) {
    int64_t s = 1;
    for (int d = t.rank - 1; d >= 0; d--) str[d] = s, s *= t.shape[d];
}

typedef struct Inputs {
    int64_t pid, pint, puns, pf32, pf16;
} Inputs;

static void eval_op(IrFunc *f, const IrOp *op, EVal *ev, const Inputs *in) {
    ValId r = op->results[0];
    IrType t = ir_type(f, r);
    int n = (int)ty_numel(t), dt = t.dt;
    EVal *o = &ev[r];
    EVal *a = op->nopnds > 0 ? &ev[op->operands[0]] : NULL,
         *b = op->nopnds > 1 ? &ev[op->operands[1]] : NULL;
    o->taint = (a && a->taint) || (b && b->taint) || (op->nopnds > 2 && ev[op->operands[2]].taint);
    IrType at = a ? ir_type(f, op->operands[0]) : t;
    int bits = dt_bits(dt);
    for (int i = 0; i < n; i++) {
        int64_t x = a ? a->v[i] : 0, y = b ? b->v[i] : 0, z = 0;
        bool ovf = false;
        switch (op->code) {
        case OP_CONST: z = norm(op->attr[0], dt); break;
        case OP_ARANGE: z = op->attr[0] + i; break;
        case OP_PROGRAM_ID: z = in->pid; break;
        case OP_ADD: ovf = __builtin_add_overflow(x, y, &z) || !fits(z, dt); break;
        case OP_SUB: ovf = __builtin_sub_overflow(x, y, &z) || !fits(z, dt); break;
        case OP_MUL: ovf = __builtin_mul_overflow(x, y, &z) || !fits(z, dt); break;
        case OP_IDIV:
            if (y == 0) z = 0;
            else if (y == -1) ovf = __builtin_sub_overflow((int64_t)0, x, &z) || !fits(z, dt);
            else z = x / y;
            break;
        case OP_REM: z = (y == 0 || y == -1) ? 0 : x % y; break;
        case OP_AND: z = norm(x & y, dt); break;
        case OP_OR: z = norm(x | y, dt); break;
        case OP_XOR: z = norm(x ^ y, dt); break;
        case OP_SHL: {
            uint64_t s = (uint64_t)y & (bits >= 64 ? ~0ull : ((1ull << bits) - 1));
            if (s >= (uint64_t)bits) z = 0;
            else if (s >= 62) ovf = x != 0, z = 0;
            else ovf = __builtin_mul_overflow(x, (int64_t)1 << s, &z) || !fits(z, dt);
            break;
        }
        case OP_SHR: {
            uint64_t s = (uint64_t)y & (bits >= 64 ? ~0ull : ((1ull << bits) - 1));
            if (s >= (uint64_t)bits) z = x < 0 ? -1 : 0;
            else z = x < 0 ? ~((~x) >> s) : x >> s;
            break;
        }
        case OP_MIN: z = x < y ? x : y; break;
        case OP_MAX: z = x > y ? x : y; break;
        case OP_UMULHI: {
            uint64_t m = (1ull << bits) - 1;
            z = norm((int64_t)((((uint64_t)x & m) * ((uint64_t)y & m)) >> bits), dt);
            break;
        }
        case OP_NEG: ovf = __builtin_sub_overflow((int64_t)0, x, &z) || !fits(z, dt); break;
        case OP_NOT: z = norm(~x, dt); break;
        case OP_ABS:
            ovf = __builtin_sub_overflow((int64_t)0, x, &z) || !fits(z, dt);
            if (x >= 0) z = x, ovf = false;
            break;
        case OP_CMP: {
            IrType ct = ir_type(f, op->operands[0]);
            bool lt = x < y, eq = x == y; /* normalised: u32 and smaller are non-negative */
            (void)ct;
            switch (op->attr[0]) {
            case CMP_PRED_EQ: z = eq; break;
            case CMP_PRED_NE: z = !eq; break;
            case CMP_PRED_LT: z = lt; break;
            case CMP_PRED_LE: z = lt || eq; break;
            case CMP_PRED_GT: z = !lt && !eq; break;
            default: z = !lt; break;
            }
            break;
        }
        case OP_SELECT: z = x ? y : ev[op->operands[2]].v[i]; break;
        case OP_CVT: z = dt == DT_I1 ? x != 0 : norm(x, dt); break;
        case OP_BITCAST: z = norm(x, dt); break;
        case OP_ADDPTR: {
            int64_t off;
            ovf = __builtin_mul_overflow(y, (int64_t)dt_bytes(t.pointee), &off) ||
                  __builtin_add_overflow(x, off, &z);
            break;
        }
        case OP_SPLAT: z = a->v[0]; break;
        case OP_RESHAPE: z = x; break;
        default: break;
        }
        if (ovf) o->taint = true;
        o->v[i] = z;
    }
    if (op->code == OP_BROADCAST || op->code == OP_EXPAND_DIMS || op->code == OP_TRANS) {
        int64_t ostr[4], astr[4];
        strides(t, ostr);
        strides(at, astr);
        for (int i = 0; i < n; i++) {
            int64_t idx[4] = {0}, rem = i;
            for (int d = 0; d < t.rank; d++) idx[d] = rem / ostr[d], rem %= ostr[d];
            int64_t src = 0;
            if (op->code == OP_BROADCAST) {
                for (int d = 0; d < t.rank; d++) src += (at.shape[d] == 1 ? 0 : idx[d]) * astr[d];
            } else if (op->code == OP_EXPAND_DIMS) {
                for (int d = 0, e = 0; d < t.rank; d++)
                    if (d != op->attr[0]) src += idx[d] * astr[e++];
            } else {
                for (int d = 0; d < t.rank; d++) src += idx[d] * astr[op->attr[d]];
            }
            o->v[i] = a->v[src];
        }
    }
}

/* Checks every claimed fact of value v against its elements. */
static bool check_facts(IrFunc *f, ValId v, const AxisInfo *ai, const EVal *e, char *why,
                        size_t wn) {
    IrType t = ir_type(f, v);
    int64_t u = t.dt == DT_PTR ? dt_bytes(t.pointee) : 1;
    int n = (int)ty_numel(t);
    if (ai->rank != t.rank) return snprintf(why, wn, "rank %d vs %d", ai->rank, t.rank), false;
    for (int d = 0; d < (t.rank ? t.rank : 1); d++) {
        int64_t c = ai->contiguity[d], D = ai->divisibility[d], k = ai->constancy[d];
        int64_t size = t.rank ? t.shape[d] : 1;
        if (c < 1 || k < 1 || D < 1 || (c & (c - 1)) || (k & (k - 1)) || (D & (D - 1)) ||
            c > size || k > size)
            return snprintf(why, wn, "bad fact dim %d: %lld %lld %lld", d, (long long)c,
                            (long long)D, (long long)k),
                   false;
        int64_t str[4] = {1, 1, 1, 1};
        if (t.rank) strides(t, str);
        for (int i = 0; i < n; i++) {
            int64_t id = t.rank ? (i / str[d]) % size : 0;
            if (id % c == 0 && ((uint64_t)e->v[i] & (uint64_t)(D - 1)))
                return snprintf(why, wn, "dim %d: element %d = %lld not a multiple of %lld", d, i,
                                (long long)e->v[i], (long long)D),
                       false;
            if (id + 1 < size && (id + 1) % c != 0 && e->v[i + str[d]] != e->v[i] + u)
                return snprintf(why, wn, "dim %d: run of %lld broken at element %d", d,
                                (long long)c, i),
                       false;
            if (id + 1 < size && (id + 1) % k != 0 && e->v[i + str[d]] != e->v[i])
                return snprintf(why, wn, "dim %d: constancy %lld broken at element %d", d,
                                (long long)k, i),
                       false;
        }
    }
    return true;
}

/* An i1 block's prefix width (axis_info_prefix_width) against its elements: in every run of
 * that many along a dim, starting at a multiple of it, no true element follows a false one. */
static bool check_prefix(IrFunc *f, const AxisInfo *info, ValId v, const EVal *e, char *why,
                         size_t wn, int *beyond) {
    IrType t = ir_type(f, v);
    if (t.dt != DT_I1 || !t.rank) return true;
    int64_t str[4] = {1, 1, 1, 1};
    strides(t, str);
    int n = (int)ty_numel(t);
    for (int d = 0; d < t.rank; d++) {
        int64_t w = axis_info_prefix_width(f, info, v, d), size = t.shape[d];
        if (w < 1 || (w & (w - 1)) || w > size)
            return snprintf(why, wn, "bad prefix width %lld, dim %d", (long long)w, d), false;
        *beyond += w > info[v].constancy[d];
        for (int i = 0; i < n; i++) {
            int64_t id = (i / str[d]) % size;
            if (id % w != 0 && e->v[i] && !e->v[i - str[d]])
                return snprintf(why, wn, "dim %d: prefix width %lld, element %d true after a false",
                                d, (long long)w, i),
                       false;
        }
    }
    return true;
}

typedef struct ECtx {
    IrFunc *f;
    EVal *ev;
    const Inputs *in;
    const AxisInfo *info;
    int bad, checked, prefix_beyond;
    bool int16, ptr16;
} ECtx;

/* How often the checked facts were more than trivial, by defining op (OP_COUNT: region
 * arguments): [0] contiguity > 1, [1] constancy > 1, [2] divisibility > 1 (pointers:
 * more than the element size). */
static int coverage[OP_COUNT + 1][3];

static void check_value(ECtx *c, ValId v) {
    IrType t = ir_type(c->f, v);
    if (!(dt_is_int(t.dt) || t.dt == DT_PTR) || c->ev[v].taint || c->bad >= 5) return;
    char why[200];
    c->checked++;
    if (check_facts(c->f, v, &c->info[v], &c->ev[v], why, sizeof why) &&
        check_prefix(c->f, c->info, v, &c->ev[v], why, sizeof why, &c->prefix_beyond)) {
        OpId d = ir_def(c->f, v);
        int code = d ? c->f->ops[d].code : OP_COUNT;
        const AxisInfo *a = &c->info[v];
        int64_t u = t.dt == DT_PTR ? dt_bytes(t.pointee) : 1;
        for (int i = 0; i < (t.rank ? t.rank : 1); i++) {
            coverage[code][0] += a->contiguity[i] > 1;
            coverage[code][1] += a->constancy[i] > 1 && t.rank > 0;
            coverage[code][2] += a->divisibility[i] > u;
        }
        return;
    }
    c->bad++;
    StrBuf pr;
    sb_init(&pr);
    ir_print_func(&pr, c->f);
    sb_puts(&pr, "facts:\n");
    axis_info_print(&pr, c->f, c->info);
    uint32_t num = 0;
    while (num < 4096 && val_num(c->f, num) != v) num++;
    sb_puts(&pr, "values:");
    for (int i = 0; i < (int)ty_numel(t); i++) sb_printf(&pr, " %lld", (long long)c->ev[v].v[i]);
    CHECK(false, "%%%u: %s (pid %lld, n %lld, u %lld, facts %d/%d)\n%s", num, why,
          (long long)c->in->pid, (long long)c->in->pint, (long long)c->in->puns, c->int16, c->ptr16,
          sb_cstr(&pr));
    sb_free(&pr);
}

/* Runs region r; the operands of its terminator go to yv (values, not ids). */
static void eval_region(ECtx *c, RegionId r, const IrOp **term) {
    IrFunc *f = c->f;
    const IrRegion *reg = &f->regions[r];
    *term = NULL;
    for (uint32_t i = 0; i < reg->nops; i++) {
        const IrOp *op = &f->ops[reg->ops[i]];
        if (op->code == OP_YIELD || op->code == OP_RETURN) {
            *term = op;
        } else if (op->code == OP_FOR) {
            int64_t lb = c->ev[op->operands[0]].v[0], ub = c->ev[op->operands[1]].v[0],
                    st = c->ev[op->operands[2]].v[0];
            const IrRegion *body = &f->regions[op->region[0]];
            uint32_t n = op->nopnds - 3;
            for (uint32_t j = 0; j < n; j++) c->ev[body->args[1 + j]] = c->ev[op->operands[3 + j]];
            for (int64_t iv = lb; st > 0 ? iv < ub : st < 0 ? iv > ub : false; iv += st) {
                EVal *e = &c->ev[body->args[0]];
                e->v[0] = iv, e->taint = false;
                for (uint32_t j = 0; j <= n; j++) check_value(c, body->args[j]);
                const IrOp *y;
                eval_region(c, op->region[0], &y);
                EVal tmp[4];
                for (uint32_t j = 0; j < n; j++) tmp[j] = c->ev[y->operands[j]];
                for (uint32_t j = 0; j < n; j++) c->ev[body->args[1 + j]] = tmp[j];
            }
            for (uint32_t j = 0; j < n; j++) {
                c->ev[op->results[j]] = c->ev[body->args[1 + j]];
                check_value(c, op->results[j]);
            }
        } else if (op->code == OP_IF) {
            const IrOp *y;
            eval_region(c, op->region[c->ev[op->operands[0]].v[0] ? 0 : 1], &y);
            for (uint32_t j = 0; j < op->nres; j++) {
                c->ev[op->results[j]] = c->ev[y->operands[j]];
                check_value(c, op->results[j]);
            }
        } else if (op->nres == 1) {
            eval_op(f, op, c->ev, c->in);
            check_value(c, op->results[0]);
        }
    }
}

static int64_t multiple(int64_t of, int64_t lo, int64_t hi) {
    return (lo + rn((int)((hi - lo) / of))) * of;
}

static void test_random(void) {
    int programs = 0, checked = 0, bad = 0, prefix_beyond = 0;
    for (int trial = 0; trial < 3000 && bad < 5; trial++) {
        Gen g;
        memset(&g, 0, sizeof g);
        g.arena = arena_new();
        g.m = ir_module_new(g.arena);
        g.src.name = "random";
        g.src.text = "";
        Loc loc = {&g.src, 1, 1};
        g.f = ir_func_new(g.m, "k", true, loc);
        g.b.f = g.f, g.b.region = g.f->body, g.b.loc = loc;
        g.pint = ir_add_param(g.f, ty_scalar(DT_I32), NULL);
        g.puns = ir_add_param(g.f, ty_scalar(DT_U32), NULL);
        g.pf32 = ir_add_param(g.f, ty_ptr(DT_FP32), NULL);
        g.pf16 = ir_add_param(g.f, ty_ptr(DT_FP16), NULL);
        add(&g, g.pint);
        OpId o = ir_build(&g.b, OP_PROGRAM_ID, NULL, 0, (IrType[]){ty_scalar(DT_I32)}, 1);
        add(&g, ir_result(g.f, o, 0));
        int nops = 10 + rn(40);
        for (int i = 0; i < nops; i++) gen_op(&g);
        ir_build(&g.b, OP_RETURN, NULL, 0, NULL, 0);
        StrBuf err;
        sb_init(&err);
        bool ok = ir_verify_module(g.m, &err);
        if (!ok) {
            StrBuf pr;
            sb_init(&pr);
            ir_print_func(&pr, g.f);
            CHECK(ok, "random program does not verify:\n%s%s", sb_cstr(&err), sb_cstr(&pr));
            sb_free(&pr);
            bad++;
        }
        sb_free(&err);
        if (!ok) {
            arena_free(g.arena);
            continue;
        }
        programs++;
        bool int16 = rn(2), ptr16 = rn(4) != 0;
        /* the runtime's specialisation: a multiple of 16 is nonzero too */
        ParamFact facts[4] = {{int16 ? 16 : 1, int16},
                              {int16 ? 16 : 1, int16},
                              {ptr16 ? 16 : 4, false},
                              {ptr16 ? 16 : 2, false}};
        AxisInfo *info = axis_info_analyze(g.f, facts, g.arena);
        EVal *ev = calloc(g.f->nvals, sizeof(EVal));
        for (int run = 0; run < 4; run++) {
            Inputs in;
            in.pid = rn(4) ? rn(100) : rn(2000000);
            in.pint = int16 ? multiple(16, -128, 128) : rn(4000) - 2000;
            in.puns = int16 ? multiple(16, 0, 256) : rn(4000);
            if (int16 && !in.pint) in.pint = rn(2) ? 16 : -16;
            if (int16 && !in.puns) in.puns = 16;
            in.pf32 = ptr16 ? multiple(16, 4096, 65536) : multiple(4, 4096, 65536);
            in.pf16 = ptr16 ? multiple(16, 4096, 65536) : multiple(2, 4096, 65536);
            ev[g.pint].v[0] = in.pint, ev[g.puns].v[0] = in.puns, ev[g.pf32].v[0] = in.pf32,
            ev[g.pf16].v[0] = in.pf16;
            ECtx c = {g.f, ev, &in, info, 0, 0, 0, int16, ptr16};
            const IrOp *term;
            eval_region(&c, g.f->body, &term);
            bad += c.bad;
            checked += c.checked;
            prefix_beyond += c.prefix_beyond;
            if (bad >= 5) break;
        }
        free(ev);
        arena_free(g.arena);
    }
    CHECK(bad == 0, "random programs: %d failures", bad);
    CHECK(programs > 2500 && checked > 100000, "random programs: %d programs, %d value checks",
          programs, checked);
    printf("random: %d programs, %d value checks, %d masks with a prefix wider than their "
           "constancy\n",
           programs, checked, prefix_beyond);
    CHECK(prefix_beyond > 100, "random masks' prefixes beyond constancy: %d", prefix_beyond);
    /* the interesting rules were exercised (counts of dims with a nontrivial fact) */
    static const struct {
        int code, what;
    } need[] = {
        {OP_REM, 0},     {OP_REM, 2},    {OP_IDIV, 1},      {OP_SHR, 1},         {OP_SHL, 2},
        {OP_MUL, 2},     {OP_CMP, 1},    {OP_CVT, 0},       {OP_BITCAST, 0},     {OP_ADDPTR, 0},
        {OP_ADDPTR, 2},  {OP_SELECT, 0}, {OP_MIN, 0},       {OP_MAX, 0},         {OP_SUB, 0},
        {OP_RESHAPE, 0}, {OP_TRANS, 0},  {OP_BROADCAST, 1}, {OP_EXPAND_DIMS, 0}, {OP_AND, 2},
        {OP_FOR, 0},     {OP_FOR, 2},    {OP_IF, 0},        {OP_COUNT, 0},       {OP_COUNT, 2},
    };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        int code = need[i].code, what = need[i].what;
        CHECK(coverage[code][what] >= 20, "random programs: %s: fact %d nontrivial only %d times",
              code == OP_COUNT ? "region args" : ir_op_info[code].name, what, coverage[code][what]);
    }
    if (getenv("AXIS_COVERAGE"))
        for (int i = 0; i <= OP_COUNT; i++)
            if (coverage[i][0] + coverage[i][1] + coverage[i][2])
                printf("  %-16s c %7d  k %7d  D %7d\n",
                       i == OP_COUNT ? "(args)" : ir_op_info[i].name, coverage[i][0],
                       coverage[i][1], coverage[i][2]);
}

int main(void) {
    test_prefix_width();
    test_vector_add();
    test_ptr_2d();
    test_hints();
    test_arith();
    test_compares();
    test_control();
    test_vector_width();
    test_random();
    return check_done("test_axis_info", &st);
}
