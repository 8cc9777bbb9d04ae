/* launch_cuda.c - launches on the CUDA device. A kernel is compiled for the GPU at its
 * first launch with each new specialisation of its arguments (as Triton does: pointers
 * 16-byte aligned or not, integers divisible by 16, integers equal to 1) and warp
 * count; the variant stays in the module, and its cubin in the disk cache under the key
 * runtime/cache_key.c makes (the source, the constexprs and options, the specialisation,
 * the compiler's build, the target and device). The key is known before any compiling,
 * so a variant another process compiled earlier is loaded with no compile. The key names
 * no device, only its compute capability: every GPU of one kind shares the entries. Of
 * several contexts (threads, processes, GPUs) that miss one entry at once, one compiles
 * it while the others wait for it (cache_lock) and load it: one compile serves them all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch_cuda.h"

#include "args.h"
#include "cache_key.h"
#include "compiler/codegen/llvm_gen.h"
#include "compiler/support/float16.h"
#include "compiler/support/options.h"
#include "compiler/support/parallel.h"
#include "compiler/target/tma.h"
#include "driver/gpu_compile.h"
#include "fault.h"
#include "interp.h"
#include "status.h"

/* CUtensorMapDataType of an element type (integers and fp8 by their width). */
static int tensor_map_dtype(int dt) {
    switch (dt) {
    case DT_FP16: return 6;
    case DT_BF16: return 9;
    case DT_FP32: return 7;
    case DT_FP64: return 8;
    case DT_I32: return 3;
    case DT_U32: return 2;
    case DT_I64: return 5;
    case DT_U64: return 4;
    default: return dt_bytes(dt) == 2 ? 1 : 0; /* UINT16, UINT8 */
    }
}

enum { DESC_BLOB = 256, MAX_DESC_PARAMS = 8 };

/* The tensor map of a TMA descriptor of type t (its plan's box and swizzle) over the array
 * at base with these sizes and strides (elements, outermost first), into map: a user's
 * descriptor (pack_desc) or one built from the arguments (tma_maps_fill). */
static int encode_map(nr_context *ctx, IrType t, uint64_t base, const int64_t *shape,
                      const int64_t *strides, bool nan_fill, void *map, StrBuf *err) {
    TmaPlan plan;
    gpu_tma_plan(t, &plan);
    CudaTensorMap m = {t.rank,
                       tensor_map_dtype(t.pointee),
                       plan.swizzle == 128  ? 3
                       : plan.swizzle == 64 ? 2
                                            : 1,
                       nan_fill,
                       base,
                       {0},
                       {0},
                       {0}};
    uint64_t esize = (uint64_t)dt_bytes(t.pointee);
    for (int r = 0; r < t.rank; r++) { /* innermost first */
        m.dims[r] = (uint64_t)shape[t.rank - 1 - r];
        m.box[r] = (unsigned)plan.box[t.rank - 1 - r];
        if (r) m.strides[r - 1] = (uint64_t)strides[t.rank - 1 - r] * esize;
    }
    return cuda_tensor_map_encode(ctx->cuda, map, &m, err);
}

/* The tensor maps of a variant whose kernel takes its pointer loads through TMA
 * (compiler/gpu/tma_pointers.c): the plan, and each map's parameter bytes with the values
 * they were encoded from (encoded again only when those change). */
typedef struct TmaMaps {
    _Alignas(64) unsigned char blob[TMA_PTR_MAX_MAPS][DESC_BLOB];
    TmaPtrPlan plan;
    int64_t last[TMA_PTR_MAX_MAPS][1 + 2 * NR_MAX_DESC_RANK];
    bool encoded[TMA_PTR_MAX_MAPS];
} TmaMaps;

/* Integer argument p as the kernel reads it (its packed slot, sign-extended where signed). */
static int64_t int_arg(const nr_kernel *k, void **params, int p) {
    uint64_t u = *(const uint64_t *)params[p];
    int bits = k->params[p].bits, dt = k->params[p].dt;
    if (bits < 64) {
        u &= (UINT64_C(1) << bits) - 1;
        if (dt_is_signed(dt) && (u >> (bits - 1)) & 1) u |= ~((UINT64_C(1) << bits) - 1);
    }
    return (int64_t)u;
}

static bool arg_value(const nr_kernel *k, void **params, TmaArgValue v, int64_t *out) {
    if (v.param < 0) return *out = v.add, true;
    int64_t a = int_arg(k, params, v.param), prod;
    return !__builtin_mul_overflow(a, v.mul, &prod) && !__builtin_add_overflow(prod, v.add, out);
}

/* The tensor maps of this launch, from its packed arguments, into params after the user's;
 * false where the arguments do not fit them (a checked parameter negative, a stride not a
 * positive multiple of 16 bytes below 2^40 bytes, a size outside 1 .. 2^32): the launch
 * then runs the kernel without them. */
static bool tma_maps_fill(nr_kernel *k, TmaMaps *tm, void **params) {
    const TmaPtrPlan *p = &tm->plan;
    for (int i = 0; i < p->nnonneg; i++)
        if (int_arg(k, params, p->nonneg[i]) < 0) return false;
    for (int j = 0; j < p->nmaps; j++) {
        const TmaPtrMap *m = &p->maps[j];
        IrType t = m->type;
        int r = t.rank, esize = dt_bytes(t.pointee);
        int64_t v[1 + 2 * NR_MAX_DESC_RANK];
        v[0] = (int64_t) * (const uint64_t *)params[m->base];
        if (!v[0] || v[0] % 16) return false;
        for (int d = 0; d < r; d++) {
            int64_t size, stride;
            if (!arg_value(k, params, m->size[d], &size) ||
                !arg_value(k, params, m->stride[d], &stride))
                return false;
            if (size < 1 || size > (INT64_C(1) << 32)) return false;
            if (d < r - 1 &&
                (stride <= 0 || stride >= (INT64_C(1) << 40) / esize || stride * esize % 16))
                return false;
            v[1 + d] = size, v[1 + r + d] = stride;
        }
        if (!tm->encoded[j] || memcmp(tm->last[j], v, sizeof(int64_t) * (size_t)(1 + 2 * r))) {
            StrBuf err;
            sb_init(&err);
            int rc = encode_map(k->mod->ctx, t, (uint64_t)v[0], v + 1, v + 1 + r, false,
                                tm->blob[j], &err);
            sb_free(&err);
            tm->encoded[j] = rc == 0;
            if (rc) return false;
            memcpy(tm->last[j], v, sizeof(int64_t) * (size_t)(1 + 2 * r));
            int64_t parts[2 + 2 * NR_MAX_DESC_RANK] = {0}; /* base, sizes, strides, padding */
            memcpy(parts, v, sizeof(int64_t) * (size_t)(1 + 2 * r));
            memcpy(tm->blob[j] + gpu_tdesc_part_offset(true, 0), parts,
                   sizeof(int64_t) * (size_t)(2 + 2 * r));
        }
        params[m->param] = tm->blob[j];
    }
    return true;
}

static void guard_free(SpecGuard *g) {
    if (!g) return;
    arena_free(g->ir->arena);
    free(g);
}

/* The guard of a variant about to be made (gpu_speculation_guard): its kind, and in *out
 * (malloc'd) the guard the host runs when the kind is GPU_GUARD_HOST, with the parameters
 * it reads. A guard reading more than GUARD_MAX_PARAMS of them counts as opaque. *plan:
 * the tensor maps the kernel takes (with spec->tma_pointers). */
static int variant_guard(const nr_kernel *k, const GpuSpec *spec, const GpuTarget *t,
                         SpecGuard **out, TmaPtrPlan *plan) {
    *out = NULL;
    GpuGuard gg;
    Diag diag;
    diag_init(&diag);
    int kind = gpu_speculation_guard(k->f, spec, t, &gg, &diag);
    diag_free(&diag); /* a failure shows again in the kernel's own compile */
    *plan = gg.tma;
    if (kind != GPU_GUARD_HOST) return kind < 0 ? GPU_GUARD_OPAQUE : kind;
    SpecGuard *g = calloc(1, sizeof *g);
    const IrRegion *body = &gg.f->regions[gg.f->body];
    bool fits = g != NULL;
    for (uint32_t i = 0; fits && i < body->nops; i++) {
        const IrOp *op = &gg.f->ops[body->ops[i]];
        for (uint32_t j = 0; fits && j < op->nopnds; j++) {
            ValId v = op->operands[j];
            if (!gg.f->vals[v].is_arg) continue;
            uint32_t a = 0;
            while (a < body->nargs && body->args[a] != v) a++;
            bool seen = false;
            for (int r = 0; r < g->nread; r++) seen |= g->read[r] == a;
            if (!seen && (fits = g->nread < GUARD_MAX_PARAMS)) g->read[g->nread++] = (uint16_t)a;
        }
    }
    if (!fits) {
        free(g);
        arena_free(gg.ir->arena);
        return GPU_GUARD_OPAQUE;
    }
    g->ir = gg.ir, g->f = gg.f;
    *out = g;
    return GPU_GUARD_HOST;
}

/* Programs past which the host does not run a guard (one grid), and past which it runs no
 * more of a variant's (all its grids): such launches run the kernel that checks its
 * indices itself. About a microsecond a program: a grid of 2^17 costs ~0.1 s once, and a
 * variant launched over ever new grids (a growing sequence length) pays ~1 s in all, not
 * a check per launch. */
enum { GUARD_MAX_PROGRAMS = 1 << 17, GUARD_BUDGET_PROGRAMS = 1 << 20 };

static unsigned guard_slot(const unsigned grid[3], const uint64_t *vals, int n) {
    uint64_t h = ((uint64_t)grid[0] << 32 | grid[1]) * 0x9E3779B97F4A7C15u ^ grid[2];
    for (int i = 0; i < n; i++) h = (h ^ vals[i]) * 0x100000001B3u + (h >> 29);
    h ^= h >> 31;
    return (unsigned)(h % GUARD_VERDICTS);
}

/* Does the guard let this launch run the assuming kernel? Its verdict for the grid and
 * the values it reads, from the table or from the interpreter running the guard over the
 * grid (it stops at the first program with a negative root). params: the packed
 * arguments (the guard reads integers and pointers only, each a uint64_t slot). */
static bool guard_allows(nr_kernel *k, SpecGuard *g, const unsigned grid[3], const nr_arg *args,
                         void **params) {
    uint64_t vals[GUARD_MAX_PARAMS];
    for (int r = 0; r < g->nread; r++) vals[r] = *(const uint64_t *)params[g->read[r]];
    GuardVerdict *e = &g->verdicts[guard_slot(grid, vals, g->nread)];
    if (e->valid && !memcmp(e->grid, grid, sizeof e->grid) &&
        !memcmp(e->vals, vals, sizeof(uint64_t) * (size_t)g->nread))
        return e->ok;
    uint64_t n = (uint64_t)grid[0] * grid[1] * grid[2];
    bool ok = n <= GUARD_MAX_PROGRAMS && g->programs + n <= GUARD_BUDGET_PROGRAMS;
    int np = (int)g->f->regions[g->f->body].nargs; /* the user's, then any tensor maps' */
    InterpScalar *iv = ok ? calloc((size_t)(np ? np : 1), sizeof *iv) : NULL;
    static const int64_t no_desc[2 + 2 * NR_MAX_DESC_RANK];
    ok = ok && iv;
    for (int i = 0; ok && i < np; i++) iv[i].desc = no_desc; /* the parameters it does not read */
    for (int r = 0; ok && r < g->nread; r++)
        ok = !args_convert(k, g->read[r], &args[g->read[r]], &iv[g->read[r]]);
    if (ok) {
        InterpOptions io = {NULL, 0, false, NULL, 0};
        StrBuf err;
        sb_init(&err);
        ok = interp_run(g->f, iv, grid, &io, &err) == 0;
        sb_free(&err);
        g->programs += n;
        k->mod->ctx->stats.guard_checks++;
    }
    free(iv);
    *e = (GuardVerdict){true, ok, {grid[0], grid[1], grid[2]}, {0}};
    memcpy(e->vals, vals, sizeof(uint64_t) * (size_t)g->nread);
    return ok;
}

void cuda_module_free(nr_module *m) {
    bool loaded = false;
    for (int i = 0; i < m->nkernels; i++) loaded |= m->kernels[i].nvariants > 0;
    if (loaded && m->ctx && m->ctx->cuda) { /* kernels still running on any stream use the module */
        StrBuf err;
        sb_init(&err);
        cuda_synchronize(m->ctx->cuda,
                         &err); /* a failure is the kernel's, reported by the next call */
        sb_free(&err);
        /* a fault found here is described now, while its kernels still exist */
        if (cuda_fault(m->ctx->cuda, NULL) && !m->ctx->fault.len) {
            bool reported = m->ctx->fault_reported;
            fault_check(m->ctx);
            m->ctx->fault_reported = reported;
        }
    }
    if (m->ctx) { /* the module's kernels leave the recent list */
        nr_context *ctx = m->ctx;
        /* read only when none is the module's: a module never launched (a failed build)
         * may be freed on a compiling thread while others read the context */
        int n = 0;
        while (n < ctx->nrecent && ctx->recent[n]->mod != m) n++;
        for (int i = n; i < ctx->nrecent; i++)
            if (ctx->recent[i]->mod != m) ctx->recent[n++] = ctx->recent[i];
        if (n != ctx->nrecent) ctx->nrecent = n;
    }
    for (int i = 0; i < m->nkernels; i++) {
        nr_kernel *k = &m->kernels[i];
        for (int j = 0; j < k->nvariants; j++) {
            GpuVariant *v = &k->variants[j];
            if (m->ctx && m->ctx->cuda) cuda_unload(m->ctx->cuda, &v->k);
            if (m->ctx && m->ctx->cuda && v->has_full) cuda_unload(m->ctx->cuda, &v->full);
            guard_free(v->guard);
            free(v->tma);
        }
        free(k->variants);
        k->variants = NULL;
        k->nvariants = 0;
    }
}

/* The disk cache's key of a variant (runtime/cache_key.c decides what it covers). */
static void variant_cache_key(const nr_kernel *k, const char *arch, const char *libdevice,
                              const char *variant, GpuCodeOptions code, StrBuf *build,
                              StrBuf *text) {
    const nr_module *m = k->mod;
    StrBuf ld;
    sb_init(&ld);
    gpu_libdevice_id(libdevice, &ld);
    CacheKeyInput in = {
        .arch = arch,
        .libdevice = sb_cstr(&ld),
        .compute_capability = cuda_compute_capability(m->ctx->cuda),
        .driver_version = cuda_driver_version(m->ctx->cuda),
        .kernel = k->f->name,
        .variant = variant,
        .code = code,
        .num_warps = m->num_warps,
        .num_stages = m->num_stages,
        .only_kernel = m->only_kernel,
        .debug = m->debug,
        .defines = m->defines,
        .ndefines = m->ndefines,
        .file = m->src->name,
        .source = m->text,
        .source_len = m->src->len,
    };
    llvm_gen_version(&in.llvm_version[0], &in.llvm_version[1], &in.llvm_version[2]);
    cache_key_make(&in, build, text);
    sb_free(&ld);
}

/* How long a context that missed an entry waits for another that is building it before it
 * builds the entry itself (a compile takes well under this; a builder that died lets go at
 * once). */
enum { COMPILE_WAIT_MS = 300 * 1000 };

static nr_status compile_variant(nr_kernel *k, const GpuSpec *spec, int warps, int stages,
                                 GpuCodeOptions code, const char *key, GpuVariant *out) {
    nr_context *ctx = k->mod->ctx;
    const char *arch = cuda_arch_name(ctx->cuda);
    StrBuf build, text, err;
    sb_init(&build);
    sb_init(&text);
    sb_init(&err);
    char ldbuf[4096];
    const char *libdevice = gpu_libdevice_find(ldbuf, sizeof ldbuf);
    variant_cache_key(k, arch, libdevice, key, code, &build, &text);
    CacheKey ck = {sb_cstr(&build), sb_cstr(&text)};
    nr_status s = NR_OK;
    int hit = cuda_load_cached(ctx->cuda, k->f->name, &ck, &out->k, &err), lock = -1;
    if (hit == 0 && (lock = cache_lock(&ck, COMPILE_WAIT_MS)) >=
                        0) /* another may have built it while we waited */
        hit = cuda_load_cached(ctx->cuda, k->f->name, &ck, &out->k, &err);
    if (hit < 0) s = api_fail(ctx, NR_ERR_DEVICE, "kernel '%s': %s", k->f->name, sb_cstr(&err));
    if (hit == 0) {
        GpuTarget t = {arch, warps, stages, NULL, libdevice, NULL, 0, code};
        GpuResult r;
        Diag diag;
        diag_init(&diag);
        if (gpu_compile_kernel(k->f, spec, &t, GPU_DUMP_NONE, NULL, NULL, &r, &diag)) {
            ctx->stats.gpu_compiles++;
            if (cuda_load(ctx->cuda, r.ptx.data, k->f->name, &ck, r.shared_bytes, r.threads,
                          &out->k, &err))
                s = api_fail(ctx, NR_ERR_DEVICE, "kernel '%s': %s", k->f->name, sb_cstr(&err));
            else if (!out->k.from_cache) ctx->stats.jit_compiles++;
            sb_free(&r.ptx);
        } else {
            s = api_fail(ctx, NR_ERR_COMPILE, "%s", sb_cstr(&diag.out));
        }
        diag_free(&diag);
    }
    cache_unlock(&ck, lock);
    if (hit > 0) ctx->stats.disk_cache_hits++;
    sb_free(&build);
    sb_free(&text);
    sb_free(&err);
    if (!s) {
        snprintf(out->key, sizeof out->key, "%s", key);
        out->num_warps = warps;
        out->num_stages = stages;
        out->code = code;
    }
    return s;
}

/* The code generator's options of a launch: the launch's where it gives them, else the
 * module's (nr_compile_options), else the defaults (options.h); and as the variant key's
 * integer: maxnreg in the low 8 bits, fp fusion and ftz above. */
static GpuCodeOptions code_options(const nr_kernel *k, const nr_launch_options *o) {
    const nr_module *m = k->mod;
    int reg = o && o->maxnreg ? o->maxnreg : m->maxnreg;
    int fus = o && o->enable_fp_fusion ? o->enable_fp_fusion : m->fp_fusion;
    int ftz = o && o->enable_reflect_ftz ? o->enable_reflect_ftz : m->reflect_ftz;
    return (GpuCodeOptions){reg > 0 ? reg : 0, fus ? fus > 0 : NR_DEFAULT_FP_FUSION,
                            ftz ? ftz > 0 : NR_DEFAULT_REFLECT_FTZ};
}

static int code_key(GpuCodeOptions c) {
    return c.maxnreg | (int)c.fp_fusion << 8 | (int)c.reflect_ftz << 9;
}

static GpuCodeOptions code_of_key(int key) {
    return (GpuCodeOptions){key & 255, (key >> 8) & 1, (key >> 9) & 1};
}

/* The variant key: a fact letter per parameter, the warp count and the stage count
 * ("ddnno:4:3"). Built by hand, not with snprintf: it is on every launch's path. */
static void variant_key(const uint8_t *facts, int np, int warps, int stages, char *key) {
    int n = 0;
    for (int i = 0; i < np; i++)
        key[n++] = facts[i] == SPEC_ONE     ? 'o'
                   : facts[i] == SPEC_DIV16 ? 'd'
                   : facts[i] == SPEC_ZERO  ? 'z'
                                            : 'n';
    key[n++] = ':';
    if (warps >= 10) key[n++] = (char)('0' + warps / 10);
    key[n++] = (char)('0' + warps % 10);
    key[n++] = ':';
    key[n++] = (char)('0' + stages);
    key[n] = 0;
}

/* A loaded variant nv joins k's list (*out: its place); NR_ERR_OUT_OF_MEMORY unloads it. */
static nr_status install_variant(nr_kernel *k, GpuVariant nv, GpuVariant **out) {
    nr_context *ctx = k->mod->ctx;
    if (k->nvariants == k->capvariants) {
        int cap = k->capvariants ? k->capvariants * 2 : 4;
        GpuVariant *nvs = realloc(k->variants, sizeof *nvs * (size_t)cap);
        if (!nvs) {
            cuda_unload(ctx->cuda, &nv.k);
            return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        }
        k->variants = nvs, k->capvariants = cap;
    }
    k->variants[k->nvariants] = nv;
    *out = &k->variants[k->nvariants++];
    return NR_OK;
}

static nr_status add_variant(nr_kernel *k, const GpuSpec *spec, const VariantKey *ikey,
                             const char *key, GpuVariant **out) {
    GpuVariant nv;
    memset(&nv, 0, sizeof nv);
    nr_status s = compile_variant(k, spec, ikey->num_warps, ikey->num_stages,
                                  code_of_key(ikey->code), key, &nv);
    if (s) return s;
    nv.ikey = *ikey;
    return install_variant(k, nv, out);
}

static bool same_key(const VariantKey *a, const VariantKey *b) {
    return !memcmp(a->facts, b->facts, sizeof a->facts) && a->num_warps == b->num_warps &&
           a->num_stages == b->num_stages && a->code == b->code;
}

/* The specialisation facts of the arguments (cuda_launch_kernel finds them while packing
 * them): a
 * pointer 16-byte aligned and not null, an integer a nonzero multiple of 16, an integer
 * equal to 1, and 0 (an integer or a null pointer; Triton's launcher counts it among the
 * multiples of 16, and so does the compiler here, but it is no nonzero divisor: x % n
 * keeps x's runs only for the nonzero ones, and a zero size is worth a variant of its
 * own). The
 * variant is looked up by the facts, warps and stages as integers, the last launch's
 * variant first; a new one is compiled (or loaded from the disk cache) under the same key
 * as text. */
/* The target a variant of warps, stages and code options is compiled for. */
static GpuTarget variant_target(const nr_context *ctx, int warps, int stages, GpuCodeOptions code,
                                const char *libdevice) {
    return (GpuTarget){cuda_arch_name(ctx->cuda), warps, stages, NULL, libdevice, NULL, 0, code};
}

/* The speculative indices' facts of a variant about to be made: *guard and ":a" after
 * its key text when the host checks them (spec->speculate becomes ASSUME); and its
 * tensor maps for pointer loads: *maps (malloc'd) and ":t" when it takes any
 * (spec->tma_pointers stays true). */
static void plan_speculation(const nr_kernel *k, GpuSpec *spec, int warps, int stages,
                             GpuCodeOptions code, char *text, SpecGuard **guard, TmaMaps **maps) {
    nr_context *ctx = k->mod->ctx;
    char ldbuf[4096];
    GpuTarget t = variant_target(ctx, warps, stages, code, gpu_libdevice_find(ldbuf, sizeof ldbuf));
    *maps = NULL;
    spec->tma_pointers =
        option_tma_pointers() && gpu_arch_of(t.arch) == GPU_SM90A && cuda_has_tma(ctx->cuda);
    TmaPtrPlan plan;
    if (variant_guard(k, spec, &t, guard, &plan) == GPU_GUARD_HOST) {
        spec->speculate = GPU_SPECULATE_ASSUME;
        strcat(text, ":a");
    }
    if (spec->tma_pointers && plan.nmaps && k->nparams + plan.nmaps <= NR_MAX_LAUNCH_ARGS &&
        (*maps = aligned_alloc(64, (sizeof(TmaMaps) + 63) / 64 * 64))) {
        memset(*maps, 0, sizeof **maps);
        (*maps)->plan = plan;
        strcat(text, ":t");
    } else if (spec->tma_pointers) {
        spec->tma_pointers = false;
        if (plan.nmaps) { /* the guard was made for the kernel with maps: make it again */
            guard_free(*guard);
            spec->speculate = GPU_SPECULATE_VERSION;
            char *a = strstr(text, ":a");
            if (a) *a = 0;
            if (variant_guard(k, spec, &t, guard, &plan) == GPU_GUARD_HOST) {
                spec->speculate = GPU_SPECULATE_ASSUME;
                strcat(text, ":a");
            }
        }
    }
}

/* A variant's specialisation facts, from its key's letters ("ddno:4:3:a"). */
static void facts_of_key(const GpuVariant *v, int np, uint8_t *facts) {
    for (int i = 0; i < np; i++)
        facts[i] = v->key[i] == 'o'   ? SPEC_ONE
                   : v->key[i] == 'd' ? SPEC_DIV16
                   : v->key[i] == 'z' ? SPEC_ZERO
                                      : SPEC_NONE;
}

/* The kernel of v that checks its indices itself and reads through pointers only, for a
 * launch its guard refuses or whose arguments its tensor maps do not fit: compiled (or
 * loaded from the disk cache) at the first such launch. */
static nr_status full_kernel(nr_kernel *k, GpuVariant *v) {
    if (v->has_full) return NR_OK;
    uint8_t facts[NR_MAX_LAUNCH_ARGS];
    facts_of_key(v, k->nparams, facts);
    GpuSpec spec = {k->nparams, facts, GPU_SPECULATE_VERSION, false};
    char text[sizeof v->key];
    snprintf(text, sizeof text, "%s", v->key);
    char *a = strstr(text, ":a"), *tm = strstr(text, ":t");
    if (a) *a = 0;
    if (tm) *tm = 0;
    GpuVariant full;
    memset(&full, 0, sizeof full);
    nr_status s = compile_variant(k, &spec, v->num_warps, v->num_stages, v->code, text, &full);
    if (s) return s;
    v->full = full.k, v->has_full = true;
    return NR_OK;
}

static nr_status launch_variant(nr_kernel *k, const unsigned grid[3], const VariantKey *key,
                                const uint8_t *facts, const nr_arg *args, void **params,
                                void *stream, bool coop) {
    nr_context *ctx = k->mod->ctx;
    int warps = key->num_warps, stages = key->num_stages;
    GpuVariant *v = NULL;
    if (k->last_variant < k->nvariants && same_key(&k->variants[k->last_variant].ikey, key))
        v = &k->variants[k->last_variant];
    for (int i = 0; i < k->nvariants && !v; i++)
        if (same_key(&k->variants[i].ikey, key)) v = &k->variants[i];
    if (!v) { /* a variant's warps and stages were checked when it was made */
        if (!option_valid(OPT_NUM_WARPS, warps))
            return api_fail(ctx, NR_ERR_INVALID_ARG, "num_warps must be %s, got %d",
                            option_info(OPT_NUM_WARPS)->range, warps);
        if (!option_valid(OPT_NUM_STAGES, stages))
            return api_fail(ctx, NR_ERR_INVALID_ARG, "num_stages must be %s, got %d",
                            option_info(OPT_NUM_STAGES)->range, stages);
        int np = k->nparams;
        char text[NR_MAX_LAUNCH_ARGS + 12];
        variant_key(facts, np, warps, stages, text);
        GpuSpec spec = {np, facts, GPU_SPECULATE_VERSION, false};
        SpecGuard *guard;
        TmaMaps *maps;
        plan_speculation(k, &spec, warps, stages, code_of_key(key->code), text, &guard, &maps);
        nr_status s = add_variant(k, &spec, key, text, &v);
        if (s) {
            guard_free(guard);
            free(maps);
            nr_status f = fault_check(ctx); /* an earlier kernel's fault met while loading */
            return f ? f : s;
        }
        v->guard = guard;
        v->tma = maps;
    }
    k->last_variant = (int)(v - k->variants);
    if (!grid) return NR_OK; /* prepared: compiled and loaded, not run */
    const CudaKernel *run = &v->k;
    v->ran_full = (v->guard && !guard_allows(k, v->guard, grid, args, params)) ||
                  (v->tma && !tma_maps_fill(k, v->tma, params));
    if (v->ran_full) {
        nr_status s = full_kernel(k, v);
        if (s) {
            nr_status f = fault_check(ctx);
            return f ? f : s;
        }
        run = &v->full;
    }
    StrBuf err;
    sb_init(&err);
    nr_status s = NR_OK;
    if ((coop ? cuda_launch_cooperative : cuda_launch)(ctx->cuda, run, grid, warps, params, stream,
                                                       &err)) {
        /* an earlier kernel's fault shows at the next launch too */
        if (!(s = fault_check(ctx)))
            s = api_fail(ctx, NR_ERR_LAUNCH, "kernel '%s': %s", k->f->name, sb_cstr(&err));
    } else {
        fault_note_launch(ctx, k);
    }
    sb_free(&err);
    return s;
}

/* A descriptor argument's specialisation fact: SPEC_DIV16 when TMA could take it (base
 * 16-byte aligned and not null, every stride but the last positive, a multiple of 16
 * bytes and below 2^40 bytes, sizes from 1 to 2^32, the last a multiple of 16 bytes (a
 * TMA store clips a box at the tensor's bounds only to 16-byte pieces of a row: it wrote
 * a 45-float row's elements 45 to 47, measured on the H200), NaN padding only for the
 * float types a tensor map fills with NaN) and the device has tensor maps where the
 * target uses them. */
static uint8_t desc_fact(const nr_context *ctx, int arch, IrType t, const nr_tensor_desc *d) {
    int esize = dt_bytes(t.pointee);
    if (!d->base || d->base % 16) return SPEC_NONE;
    if (d->shape[t.rank - 1] * esize % 16) return SPEC_NONE;
    for (int r = 0; r < t.rank; r++) {
        if (d->shape[r] < 1 || d->shape[r] > (INT64_C(1) << 32)) return SPEC_NONE;
        if (r < t.rank - 1 && (d->strides[r] <= 0 || d->strides[r] >= (INT64_C(1) << 40) / esize ||
                               d->strides[r] * esize % 16))
            return SPEC_NONE;
    }
    if (d->padding == NR_PAD_NAN && (dt_is_fp8(t.pointee) || !dt_is_float(t.pointee)))
        return SPEC_NONE;
    if (arch == GPU_SM90A && !cuda_has_tma(ctx->cuda)) return SPEC_NONE;
    return SPEC_DIV16;
}

/* A descriptor argument's parameter bytes into blob (64-byte aligned, DESC_BLOB bytes):
 * its tensor map when the variant takes it by TMA (tma.h), then its parts. */
static nr_status pack_desc(nr_kernel *k, int i, const nr_arg *a, unsigned char *blob,
                           uint8_t *fact) {
    nr_context *ctx = k->mod->ctx;
    IrType t = args_param_type(k, i);
    int64_t parts[2 + 2 * NR_MAX_DESC_RANK];
    nr_status s = args_check_desc(k, i, a, t, parts);
    if (s) return s;
    int arch = gpu_arch_of(cuda_arch_name(ctx->cuda));
    *fact = desc_fact(ctx, arch, t, a->v.desc);
    bool tma = gpu_tdesc_uses_tma(t, arch, *fact);
    if (tma) {
        const nr_tensor_desc *d = a->v.desc;
        StrBuf err;
        sb_init(&err);
        int rc =
            encode_map(ctx, t, d->base, d->shape, d->strides, d->padding == NR_PAD_NAN, blob, &err);
        if (rc)
            s = api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': argument %d ('%s'): %s", k->f->name,
                         i, k->f->param_names[i] ? k->f->param_names[i] : "?", sb_cstr(&err));
        sb_free(&err);
        if (s) return s;
    }
    memcpy(blob + gpu_tdesc_part_offset(tma, 0), parts, sizeof(int64_t) * (size_t)(2 + 2 * t.rank));
    return NR_OK;
}

/* The CUDA launch path, the hot one: each argument checked against its parameter (as
 * convert_arg checks it: a mismatch gets its message), its specialisation fact found
 * (launch_variant says which) and its bytes packed in the parameter's width, in one
 * pass over a table of the parameters made at the kernel's first launch; then the
 * variant of those facts, warps and stages is launched. No allocation, no formatting. */
static inline nr_status pack_args(nr_kernel *k, const nr_arg *args, int np,
                                  const nr_launch_options *opts, VariantKey *keyp, uint8_t *facts,
                                  uint64_t *slots, void **params,
                                  unsigned char (*descs)[DESC_BLOB]) {
    nr_context *ctx = k->mod->ctx;
    if (np > NR_MAX_LAUNCH_ARGS)
        return api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s' has more than %d parameters",
                        k->f->name, NR_MAX_LAUNCH_ARGS);
    if (!k->planned) {
        for (int i = 0; i < np; i++) {
            int dt = args_param_type(k, i).dt;
            k->params[i] = (LaunchParam){(uint8_t)dt, (uint8_t)dt_bits(dt)};
        }
        k->planned = true;
    }
    VariantKey key = {{0, 0},
                      opts && opts->num_warps > 0 ? opts->num_warps : k->num_warps,
                      opts && opts->num_stages > 0 ? opts->num_stages : k->num_stages,
                      code_key(code_options(k, opts))};
    int ndesc = 0;
    for (int i = 0; i < np; i++) {
        const nr_arg *a = &args[i];
        LaunchParam p = k->params[i];
        uint64_t u = a->v.u;
        uint8_t fact = SPEC_NONE;
        if (p.dt == DT_PTR && a->type == NR_TYPE_PTR) {
            slots[i] = u;
            fact = !u ? SPEC_ZERO : u % 16 == 0 ? SPEC_DIV16 : SPEC_NONE;
        } else if (p.dt >= DT_I1 && p.dt <= DT_U64 && args_is_int_tag(a->type) &&
                   args_int_fits_fast(a, p.dt, p.bits)) {
            uint64_t low =
                p.bits >= 64 ? u : u & ((UINT64_C(1) << p.bits) - 1); /* the parameter's bytes */
            slots[i] = low;
            /* 0 a fact of its own: a multiple of 16 as Triton's launcher counts it (a zero
             * stride keeps the other terms' alignment), but not nonzero as a divisor */
            if (p.dt != DT_I1)
                fact = a->v.i == 1     ? SPEC_ONE
                       : !low          ? SPEC_ZERO
                       : low % 16 == 0 ? SPEC_DIV16
                                       : SPEC_NONE;
        } else if (p.dt >= DT_FP16 && p.dt <= DT_FP64 && args_is_float_tag(a->type)) {
            double f = a->v.f;
            slots[i] = 0;
            if (p.dt == DT_FP32) {
                float x = (float)f;
                memcpy(&slots[i], &x, 4);
            } else if (p.dt == DT_FP64) {
                memcpy(&slots[i], &f, 8);
            } else {
                uint16_t h = p.dt == DT_FP16 ? fp16_from_double(fp16_round(f))
                                             : bf16_from_double(bf16_round(f));
                memcpy(&slots[i], &h, 2);
            }
        } else if (p.dt == DT_TDESC && a->type == NR_TYPE_TENSOR_DESC) {
            if (ndesc == MAX_DESC_PARAMS)
                return api_fail(ctx, NR_ERR_INVALID_ARG,
                                "kernel '%s': more than %d tensor descriptor parameters",
                                k->f->name, MAX_DESC_PARAMS);
            nr_status s = pack_desc(k, i, a, descs[ndesc], &fact);
            if (s) return s;
            facts[i] = fact;
            key.facts[(unsigned)i >> 5] |= (uint64_t)fact << (((unsigned)i & 31) << 1);
            params[i] = descs[ndesc++];
            continue;
        } else {
            InterpScalar unused;
            nr_status s = args_convert(k, i, a, &unused); /* says what is wrong */
            return s ? s
                     : api_fail(ctx, NR_ERR_INVALID_ARG,
                                "kernel '%s': argument %d cannot be passed", k->f->name, i);
        }
        facts[i] = fact;
        key.facts[(unsigned)i >> 5] |= (uint64_t)fact << (((unsigned)i & 31) << 1);
        params[i] = &slots[i];
    }
    *keyp = key;
    return NR_OK;
}

nr_status cuda_launch_kernel(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int np,
                             const nr_launch_options *opts, bool cooperative) {
    VariantKey key;
    uint8_t facts[NR_MAX_LAUNCH_ARGS];
    uint64_t slots[NR_MAX_LAUNCH_ARGS];
    void *params[NR_MAX_LAUNCH_ARGS];
    _Alignas(64) unsigned char descs[MAX_DESC_PARAMS][DESC_BLOB];
    nr_status s = pack_args(k, args, np, opts, &key, facts, slots, params, descs);
    return s ? s
             : launch_variant(k, grid, &key, facts, args, params, opts ? opts->stream : NULL,
                              cooperative);
}

/* ---- several variants compiled at once ---- */

/* One variant to build for cuda_prepare_many: on the calling thread its key and the disk
 * cache (a hit is loaded there and then), on a worker the GPU back end, ptxas (or the
 * driver's JIT) and the load, on the calling thread again the disk cache's entry and the
 * kernel's list. */
typedef struct GpuJob {
    nr_kernel *k;
    VariantKey ikey;
    uint8_t facts[NR_MAX_LAUNCH_ARGS];
    char key[NR_MAX_LAUNCH_ARGS + 12];
    int speculate;      /* GPU_SPECULATE_*: ASSUME with a guard */
    SpecGuard *guard;   /* the installed variant's, once installed */
    TmaMaps *maps;      /* likewise (the kernel takes tensor maps for pointer loads) */
    StrBuf build, text; /* the disk cache's key */
    int lock;           /* cache_lock's, held while the variant is built */
    const char *arch, *libdevice;
    bool queued; /* missed the cache: a worker builds it */
    /* the worker's results */
    bool compiled; /* the back end made PTX (whatever the JIT did with it) */
    unsigned shared_bytes, threads;
    CudaKernel loaded; /* the driver's module, loaded by the worker */
    StrBuf ptx;        /* what it loaded, for the disk cache */
    CudaImage image;   /* and ptxas's cubin of it */
    int fault;
    nr_status s;
    StrBuf err;
} GpuJob;

static void gpu_job_build(void *user, int i) {
    GpuJob *g = &((GpuJob *)user)[i];
    if (!g->queued) return;
    const nr_kernel *k = g->k;
    GpuSpec spec = {k->nparams, g->facts, g->speculate, g->maps != NULL};
    GpuTarget t = {g->arch, g->ikey.num_warps,        g->ikey.num_stages, NULL, g->libdevice, NULL,
                   0,       code_of_key(g->ikey.code)};
    GpuResult r;
    Diag diag;
    diag_init(&diag);
    if (gpu_compile_kernel(k->f, &spec, &t, GPU_DUMP_NONE, NULL, NULL, &r, &diag)) {
        g->compiled = true;
        g->shared_bytes = r.shared_bytes, g->threads = r.threads;
        StrBuf err;
        sb_init(&err);
        if (cuda_jit(k->mod->ctx->cuda, r.ptx.data, k->f->name, r.shared_bytes, r.threads,
                     &g->loaded, &g->image, &g->fault, &err)) {
            g->s = NR_ERR_DEVICE;
            sb_printf(&g->err, "kernel '%s': %s", k->f->name, sb_cstr(&err));
        }
        sb_free(&err);
        g->ptx = r.ptx; /* the job owns it now */
    } else {
        g->s = NR_ERR_COMPILE;
        sb_puts(&g->err, sb_cstr(&diag.out));
    }
    diag_free(&diag);
}

/* A job's new variant, from the cache or from a worker (loaded either way): in k's list. */
static nr_status gpu_job_install(GpuJob *g, const CudaKernel *ck) {
    GpuVariant nv;
    memset(&nv, 0, sizeof nv);
    nv.ikey = g->ikey;
    snprintf(nv.key, sizeof nv.key, "%s", g->key);
    nv.num_warps = g->ikey.num_warps;
    nv.num_stages = g->ikey.num_stages;
    nv.code = code_of_key(g->ikey.code);
    nv.k = *ck;
    GpuVariant *v;
    nr_status s = install_variant(g->k, nv, &v);
    if (!s) g->k->last_variant = (int)(v - g->k->variants);
    if (!s) v->guard = g->guard, g->guard = NULL, v->tma = g->maps, g->maps = NULL;
    return s;
}

nr_status cuda_prepare_many(PrepareJob *jobs, int n) {
    nr_context *ctx = jobs[0].k->mod->ctx;
    GpuJob *gj = calloc((size_t)n, sizeof *gj);
    int *of = calloc((size_t)n, sizeof *of); /* each job's GpuJob, or -1 */
    StrBuf *msg = calloc((size_t)n, sizeof *msg);
    if (!gj || !of || !msg) {
        free(gj), free(of), free(msg);
        return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    char ldbuf[4096];
    const char *arch = cuda_arch_name(ctx->cuda),
               *libdevice = gpu_libdevice_find(ldbuf, sizeof ldbuf);
    int ng = 0, queued = 0;
    for (int j = 0; j < n; j++) { /* keys, variants already there, the disk cache */
        PrepareJob *p = &jobs[j];
        nr_kernel *k = p->k;
        of[j] = -1;
        p->status = NR_OK;
        sb_init(&msg[j]);
        VariantKey key;
        uint8_t facts[NR_MAX_LAUNCH_ARGS];
        uint64_t slots[NR_MAX_LAUNCH_ARGS];
        void *params[NR_MAX_LAUNCH_ARGS];
        _Alignas(64) unsigned char descs[MAX_DESC_PARAMS][DESC_BLOB];
        nr_status s = NR_OK; /* what launch_prepare checks, then the arguments */
        if (p->opts.num_stages && !option_valid(OPT_NUM_STAGES, p->opts.num_stages))
            s = api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s': num_stages must be 0 or %s, got %d",
                         k->f->name, option_info(OPT_NUM_STAGES)->range, p->opts.num_stages);
        else if (p->nargs != k->nparams || (k->nparams && !p->args))
            s = api_fail(ctx, NR_ERR_INVALID_ARG, "kernel '%s' takes %d argument%s, got %d",
                         k->f->name, k->nparams, k->nparams == 1 ? "" : "s", p->nargs);
        if (!s) s = pack_args(k, p->args, p->nargs, &p->opts, &key, facts, slots, params, descs);
        int found = -1;
        for (int i = 0; !s && i < k->nvariants && found < 0; i++)
            if (same_key(&k->variants[i].ikey, &key)) found = i;
        if (found >= 0) {
            k->last_variant = found;
            continue;
        }
        for (int g = 0; !s && g < ng && of[j] < 0; g++)
            if (gj[g].k == k && same_key(&gj[g].ikey, &key)) of[j] = g; /* the same variant */
        if (!s && of[j] >= 0) continue;
        if (!s && !option_valid(OPT_NUM_WARPS, key.num_warps))
            s = api_fail(ctx, NR_ERR_INVALID_ARG, "num_warps must be %s, got %d",
                         option_info(OPT_NUM_WARPS)->range, key.num_warps);
        if (!s && !option_valid(OPT_NUM_STAGES, key.num_stages))
            s = api_fail(ctx, NR_ERR_INVALID_ARG, "num_stages must be %s, got %d",
                         option_info(OPT_NUM_STAGES)->range, key.num_stages);
        if (s) {
            p->status = s;
            sb_puts(&msg[j], nr_last_error(ctx));
            continue;
        }
        GpuJob *g = &gj[of[j] = ng++];
        g->k = k, g->ikey = key, g->arch = arch, g->libdevice = libdevice, g->lock = -1;
        memcpy(g->facts, facts, (size_t)k->nparams);
        variant_key(facts, k->nparams, key.num_warps, key.num_stages, g->key);
        GpuSpec spec = {k->nparams, facts, GPU_SPECULATE_VERSION, false};
        plan_speculation(k, &spec, key.num_warps, key.num_stages, code_of_key(key.code), g->key,
                         &g->guard, &g->maps);
        g->speculate = spec.speculate;
        sb_init(&g->build), sb_init(&g->text), sb_init(&g->err), sb_init(&g->ptx);
        variant_cache_key(k, arch, libdevice, g->key, code_of_key(key.code), &g->build, &g->text);
        CacheKey ck = {sb_cstr(&g->build), sb_cstr(&g->text)};
        CudaKernel loaded;
        int hit = cuda_load_cached(ctx->cuda, k->f->name, &ck, &loaded, &g->err);
        if (hit == 0 && (g->lock = cache_lock(&ck, COMPILE_WAIT_MS)) >= 0)
            hit = cuda_load_cached(ctx->cuda, k->f->name, &ck, &loaded, &g->err);
        if (hit < 0) {
            StrBuf e;
            sb_init(&e);
            sb_printf(&e, "kernel '%s': %s", k->f->name, sb_cstr(&g->err));
            sb_free(&g->err);
            g->err = e;
            g->s = NR_ERR_DEVICE;
        } else if (hit > 0) {
            ctx->stats.disk_cache_hits++;
            if ((g->s = gpu_job_install(g, &loaded))) sb_puts(&g->err, nr_last_error(ctx));
        } else {
            g->queued = true, queued++;
        }
    }
    /* the GPU back end and ptxas (or the driver's JIT), at once */
    parallel_for(ng, queued > 1 ? option_compile_threads(queued) : 1, gpu_job_build, gj);
    for (int i = 0; i < ng; i++) { /* loaded and installed, in order */
        GpuJob *g = &gj[i];
        CacheKey ck = {sb_cstr(&g->build), sb_cstr(&g->text)};
        if (g->queued) {
            ctx->stats.gpu_compiles += g->compiled;
            cuda_note_fault(ctx->cuda, g->fault, sb_cstr(&g->err));
            if (!g->s) {
                cuda_cache_keep(&ck, sb_cstr(&g->ptx), &g->image, g->shared_bytes, g->threads);
                ctx->stats.jit_compiles++;
                if ((g->s = gpu_job_install(g, &g->loaded))) {
                    sb_puts(&g->err, nr_last_error(ctx));
                    cuda_unload(ctx->cuda, &g->loaded);
                }
            }
        }
        cache_unlock(&ck, g->lock);
        sb_free(&g->ptx);
        cuda_image_free(&g->image);
        sb_free(&g->build), sb_free(&g->text);
    }
    nr_status first = NR_OK;
    int first_job = -1;
    for (int j = 0; j < n; j++) {
        if (of[j] >= 0 && !jobs[j].status) {
            jobs[j].status = gj[of[j]].s;
            if (gj[of[j]].s) sb_puts(&msg[j], sb_cstr(&gj[of[j]].err));
        }
        if (jobs[j].status && !first) first = jobs[j].status, first_job = j;
        if (!jobs[j].status) jobs[j].k->launched = true;
    }
    if (first) {
        nr_status f = fault_check(ctx); /* an earlier kernel's fault met while loading */
        first = f ? f : api_fail(ctx, first, "%s", sb_cstr(&msg[first_job]));
    }
    for (int i = 0; i < ng; i++) sb_free(&gj[i].err), guard_free(gj[i].guard), free(gj[i].maps);
    for (int j = 0; j < n; j++) sb_free(&msg[j]);
    free(gj), free(of), free(msg);
    return first;
}

/* ---- what the last launch ran ---- */

static const GpuVariant *last_variant(const nr_kernel *k) {
    return k->launched && k->last_variant < k->nvariants ? &k->variants[k->last_variant] : NULL;
}

nr_status cuda_variant_info(nr_kernel *k, nr_kernel_info *out) {
    nr_context *ctx = k->mod->ctx;
    const GpuVariant *v = last_variant(k);
    if (!v) return api_fail(ctx, NR_ERR_NOT_FOUND, "kernel '%s' has not been launched", k->f->name);
    const CudaKernel *ran = v->ran_full ? &v->full : &v->k;
    *out = (nr_kernel_info){
        k->f->name, cuda_arch_name(ctx->cuda), v->num_warps, v->num_stages, ran->shared_bytes, 0,
        0};
    CudaResources r;
    StrBuf err;
    sb_init(&err);
    if (!cuda_function_resources(ctx->cuda, ran, &r, &err)) {
        out->registers = r.registers;
        out->spill_bytes = r.local_bytes;
    }
    sb_free(&err); /* a driver without the call: the counts stay 0 */
    return NR_OK;
}

nr_status cuda_variant_code(nr_kernel *k, const char *what, StrBuf *out) {
    nr_context *ctx = k->mod->ctx;
    const GpuVariant *v = last_variant(k);
    if (!v) return api_fail(ctx, NR_ERR_NOT_FOUND, "kernel '%s' has not been launched", k->f->name);
    bool ptx = !strcmp(what, "ptx"), llvm = !strcmp(what, "llvm"), gpu_ir = !strcmp(what, "gpu-ir");
    if (!ptx && !llvm && !gpu_ir)
        return api_fail(ctx, NR_ERR_NOT_FOUND, "no code named '%s' (ptx, llvm, gpu-ir, ir)", what);
    uint8_t facts[NR_MAX_LAUNCH_ARGS];
    facts_of_key(v, k->nparams, facts);
    GpuSpec spec = {k->nparams, facts,
                    v->guard && !v->ran_full ? GPU_SPECULATE_ASSUME : GPU_SPECULATE_VERSION,
                    v->tma && !v->ran_full};
    char ldbuf[4096];
    GpuTarget t = {cuda_arch_name(ctx->cuda),
                   v->num_warps,
                   v->num_stages,
                   NULL,
                   gpu_libdevice_find(ldbuf, sizeof ldbuf),
                   NULL,
                   0,
                   v->code};
    GpuResult r;
    Diag diag;
    diag_init(&diag);
    nr_status s = NR_OK;
    if (!gpu_compile_kernel(k->f, &spec, &t, gpu_ir ? GPU_DUMP_FINAL : GPU_DUMP_NONE, NULL,
                            llvm ? out : NULL, &r, &diag))
        s = api_fail(ctx, NR_ERR_COMPILE, "%s", sb_cstr(&diag.out));
    else if (gpu_ir) {
        ir_print_module(out, r.ir);
        arena_free(r.ir->arena);
    } else if (ptx) {
        sb_putn(out, r.ptx.data, r.ptx.len);
    }
    if (!s) sb_free(&r.ptx);
    diag_free(&diag);
    return s;
}
