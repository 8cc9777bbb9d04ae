/* api_cuda.c - the C API on the CUDA device. A kernel is compiled for the GPU at its
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

#include "compiler/codegen/llvm_gen.h"
#include "driver/gpu_compile.h"
#include "api_internal.h"
#include "cache_key.h"
#include "compiler/support/float16.h"
#include "compiler/support/options.h"

nr_status cuda_api_open(nr_context *ctx, int index, StrBuf *err) {
    if (cuda_open(index, &ctx->cuda, err)) {
        ctx->cuda = NULL;
        return NR_ERR_DEVICE;
    }
    ctx->cuda_fault = cuda_fault_code(ctx->cuda);
    return NR_OK;
}

/* ---- kernel faults ---- */

/* The kernel was launched: it goes to the front of the context's recent kernels. */
static void note_launch(nr_context *ctx, nr_kernel *k) {
    if (ctx->nrecent && ctx->recent[0] == k) return; /* the common case: the same kernel again */
    enum { CAP = sizeof ctx->recent / sizeof ctx->recent[0] };
    int i = 0;
    while (i < ctx->nrecent && ctx->recent[i] != k) i++;
    if (i == ctx->nrecent) { /* not there: the oldest falls off when full */
        if (ctx->nrecent < CAP) ctx->nrecent++;
        else ctx->recent_overflow = true, i = CAP - 1;
    }
    memmove(&ctx->recent[1], &ctx->recent[0], sizeof ctx->recent[0] * (size_t)i);
    ctx->recent[0] = k;
}

void cuda_api_synchronized(nr_context *ctx) {
    ctx->nrecent = 0;
    ctx->recent_overflow = false;
}

/* The device_assert ops of kernel k still in its IR (those of region r and the regions
 * nested in it), appended to `out`, each as "\n    kernel 'k' at FILE:LINE:COL: MESSAGE";
 * returns the new count. */
static int list_asserts(const IrFunc *f, RegionId r, StrBuf *out, int count) {
    const IrRegion *reg = &f->regions[r];
    for (uint32_t i = 0; i < reg->nops; i++) {
        const IrOp *op = &f->ops[reg->ops[i]];
        if (op->code == OP_ASSERT) {
            sb_printf(out, "\n    kernel '%s'", f->name);
            if (op->loc.src) sb_printf(out, " at %s:%d:%d", op->loc.src->name, op->loc.line, op->loc.col);
            sb_printf(out, ": %s", op->sattr && *op->sattr ? op->sattr : "(no message)");
            count++;
        }
        for (int j = 0; j < op->nregions; j++) count = list_asserts(f, op->region[j], out, count);
    }
    return count;
}

/* The description of the fault the device met (its CUresult `code`, the driver's `what`):
 * which kernels may have faulted and, for a failed device_assert, the assertions they
 * hold, with their messages and locations. The driver does not say which kernel failed:
 * it is one of those launched since the last nr_synchronize, and an assertion that
 * failed is one of theirs (named alone when it is the only one). */
static void describe_fault(nr_context *ctx, int code, const char *what) {
    enum { CUDA_ERROR_ASSERT = 710 };
    StrBuf *d = &ctx->fault;
    StrBuf asserts;
    sb_init(&asserts);
    int n = 0;
    if (code == CUDA_ERROR_ASSERT)
        for (int i = 0; i < ctx->nrecent; i++) n = list_asserts(ctx->recent[i]->f, ctx->recent[i]->f->body, &asserts, n);
    if (n == 1 && !ctx->recent_overflow) {
        /* "device_assert failed in kernel 'k' at f.nr:3:5: msg", as on the CPU */
        sb_printf(d, "device_assert failed in %s", sb_cstr(&asserts) + strlen("\n    "));
    } else if (n > 1) {
        sb_printf(d, "device_assert failed in a kernel launched since the last nr_synchronize; their assertions:%s",
                  sb_cstr(&asserts));
    } else {
        const char *failed = code == CUDA_ERROR_ASSERT ? "device_assert failed in" : "faulted on";
        const char *dev = cuda_device_name(ctx->cuda);
        if (ctx->nrecent == 1 && !ctx->recent_overflow) {
            sb_printf(d, "kernel '%s' %s CUDA device '%s'", ctx->recent[0]->f->name,
                      code == CUDA_ERROR_ASSERT ? "failed a device_assert on" : failed, dev);
        } else {
            sb_printf(d, "%s on CUDA device '%s'", code == CUDA_ERROR_ASSERT ? "device_assert failed" : "a kernel faulted",
                      dev);
            if (ctx->nrecent) {
                sb_puts(d, ": one of the kernels launched since the last nr_synchronize,");
                for (int i = 0; i < ctx->nrecent; i++) sb_printf(d, "%s '%s'", i ? "," : "", ctx->recent[i]->f->name);
                if (ctx->recent_overflow) sb_puts(d, " and others");
            }
        }
    }
    sb_free(&asserts);
    sb_printf(d, "\n  the driver: %s", what);
    if (code == CUDA_ERROR_ASSERT) sb_puts(d, " (its message on standard output names the block and thread)");
    sb_puts(d, "\n  the CUDA context is unusable now (the driver poisons it after a kernel fault): every later call "
               "on this nr_context fails; destroy it. A new nr_context on the device works only where the driver "
               "allows it; otherwise (NVIDIA's drivers: CUDA documents that the process must be restarted) only a "
               "new process can use the device");
}

nr_status cuda_api_fault(nr_context *ctx) {
    const char *what;
    int code = ctx->cuda ? cuda_fault(ctx->cuda, &what) : 0;
    if (!code) return NR_OK;
    if (!ctx->fault.len) {
        describe_fault(ctx, code, what);
        /* this context will not use the driver's context again: let it go, so that a
         * driver that allows it can give a new context a fresh one once every other user
         * has let go too (NVIDIA's drivers refuse the device to this process for good) */
        cuda_release_context(ctx->cuda);
    }
    if (!ctx->fault_reported) {
        ctx->fault_reported = true;
        return api_fail(ctx, NR_ERR_LAUNCH, "%s", sb_cstr(&ctx->fault));
    }
    const char *first = sb_cstr(&ctx->fault);
    const char *nl = strchr(first, '\n');
    return api_fail(ctx, NR_ERR_DEVICE,
                    "this CUDA context is unusable after an earlier kernel fault (%.*s): destroy it; a new context "
                    "works only where the driver allows it, otherwise a new process is needed",
                    (int)(nl ? nl - first : (ptrdiff_t)strlen(first)), first);
}

void cuda_api_module_free(nr_module *m) {
    bool loaded = false;
    for (int i = 0; i < m->nkernels; i++) loaded |= m->kernels[i].nvariants > 0;
    if (loaded && m->ctx && m->ctx->cuda) { /* kernels still running on any stream use the module */
        StrBuf err;
        sb_init(&err);
        cuda_synchronize(m->ctx->cuda, &err); /* a failure is the kernel's, reported by the next call */
        sb_free(&err);
        /* a fault found here is described now, while its kernels still exist */
        if (cuda_fault(m->ctx->cuda, NULL) && !m->ctx->fault.len) {
            bool reported = m->ctx->fault_reported;
            cuda_api_fault(m->ctx);
            m->ctx->fault_reported = reported;
        }
    }
    if (m->ctx) { /* the module's kernels leave the recent list */
        nr_context *ctx = m->ctx;
        int n = 0;
        for (int i = 0; i < ctx->nrecent; i++)
            if (ctx->recent[i]->mod != m) ctx->recent[n++] = ctx->recent[i];
        ctx->nrecent = n;
    }
    for (int i = 0; i < m->nkernels; i++) {
        nr_kernel *k = &m->kernels[i];
        for (int j = 0; j < k->nvariants; j++) {
            if (m->ctx && m->ctx->cuda) cuda_unload(m->ctx->cuda, &k->variants[j].k);
        }
        free(k->variants);
        k->variants = NULL;
        k->nvariants = 0;
    }
}

/* The disk cache's key of a variant (runtime/cache_key.c decides what it covers). */
static void variant_cache_key(const nr_kernel *k, const char *arch, const char *libdevice, const char *variant,
                              StrBuf *build, StrBuf *text) {
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
        .num_warps = m->num_warps,
        .num_stages = m->num_stages,
        .only_kernel = m->only_kernel,
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

static nr_status compile_variant(nr_kernel *k, const GpuSpec *spec, int warps, int stages, const char *key,
                                 GpuVariant *out) {
    nr_context *ctx = k->mod->ctx;
    const char *arch = cuda_arch_name(ctx->cuda);
    StrBuf build, text, err;
    sb_init(&build);
    sb_init(&text);
    sb_init(&err);
    char ldbuf[4096];
    const char *libdevice = gpu_libdevice_find(ldbuf, sizeof ldbuf);
    variant_cache_key(k, arch, libdevice, key, &build, &text);
    CacheKey ck = {sb_cstr(&build), sb_cstr(&text)};
    nr_status s = NR_OK;
    int hit = cuda_load_cached(ctx->cuda, k->f->name, &ck, &out->k, &err), lock = -1;
    if (hit == 0 && (lock = cache_lock(&ck, COMPILE_WAIT_MS)) >= 0) /* another may have built it while we waited */
        hit = cuda_load_cached(ctx->cuda, k->f->name, &ck, &out->k, &err);
    if (hit < 0) s = api_fail(ctx, NR_ERR_DEVICE, "kernel '%s': %s", k->f->name, sb_cstr(&err));
    if (hit == 0) {
        GpuTarget t = {arch, warps, stages, NULL, libdevice, NULL, 0};
        GpuResult r;
        Diag diag;
        diag_init(&diag);
        if (gpu_compile_kernel(k->f, spec, &t, GPU_DUMP_NONE, NULL, NULL, &r, &diag)) {
            ctx->stats.gpu_compiles++;
            if (cuda_load(ctx->cuda, r.ptx.data, k->f->name, &ck, r.shared_bytes, &out->k, &err))
                s = api_fail(ctx, NR_ERR_DEVICE, "kernel '%s': %s", k->f->name, sb_cstr(&err));
            else if (!out->k.from_cache)
                ctx->stats.jit_compiles++;
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
    }
    return s;
}

/* The variant key: a fact letter per parameter, the warp count and the stage count
 * ("ddnno:4:3"). Built by hand, not with snprintf: it is on every launch's path. */
static void variant_key(const uint8_t *facts, int np, int warps, int stages, char *key) {
    int n = 0;
    for (int i = 0; i < np; i++) key[n++] = facts[i] == SPEC_ONE ? 'o' : facts[i] == SPEC_DIV16 ? 'd' : 'n';
    key[n++] = ':';
    if (warps >= 10) key[n++] = (char)('0' + warps / 10);
    key[n++] = (char)('0' + warps % 10);
    key[n++] = ':';
    key[n++] = (char)('0' + stages);
    key[n] = 0;
}

static nr_status add_variant(nr_kernel *k, const GpuSpec *spec, const VariantKey *ikey, const char *key,
                             GpuVariant **out) {
    nr_context *ctx = k->mod->ctx;
    GpuVariant nv;
    memset(&nv, 0, sizeof nv);
    nr_status s = compile_variant(k, spec, ikey->num_warps, ikey->num_stages, key, &nv);
    if (s) return s;
    nv.ikey = *ikey;
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

static bool same_key(const VariantKey *a, const VariantKey *b) {
    return a->facts[0] == b->facts[0] && a->facts[1] == b->facts[1] && a->num_warps == b->num_warps &&
           a->num_stages == b->num_stages;
}

/* The specialisation facts of the arguments (api.c finds them while packing them): a
 * pointer 16-byte aligned and not null, an integer a nonzero multiple of 16 (0 is none
 * here: the compiler takes a divisible value to be nonzero too, so x % n keeps x's runs,
 * and a zero pointer or size is worth a variant of its own), an integer equal to 1. The
 * variant is looked up by the facts, warps and stages as integers, the last launch's
 * variant first; a new one is compiled (or loaded from the disk cache) under the same key
 * as text. */
nr_status cuda_api_launch(nr_kernel *k, const unsigned grid[3], const VariantKey *key, const uint8_t *facts,
                          void **params, void *stream) {
    nr_context *ctx = k->mod->ctx;
    int warps = key->num_warps, stages = key->num_stages;
    GpuVariant *v = NULL;
    if (k->last_variant < k->nvariants && same_key(&k->variants[k->last_variant].ikey, key))
        v = &k->variants[k->last_variant];
    for (int i = 0; i < k->nvariants && !v; i++)
        if (same_key(&k->variants[i].ikey, key)) v = &k->variants[i];
    if (!v) { /* a variant's warps and stages were checked when it was made */
        if (!option_valid(OPT_NUM_WARPS, warps))
            return api_fail(ctx, NR_ERR_INVALID_ARG, "num_warps must be %s, got %d", option_info(OPT_NUM_WARPS)->range,
                            warps);
        if (!option_valid(OPT_NUM_STAGES, stages))
            return api_fail(ctx, NR_ERR_INVALID_ARG, "num_stages must be %s, got %d", option_info(OPT_NUM_STAGES)->range,
                            stages);
        int np = k->nparams;
        char text[NR_MAX_LAUNCH_ARGS + 8];
        variant_key(facts, np, warps, stages, text);
        GpuSpec spec = {np, facts};
        nr_status s = add_variant(k, &spec, key, text, &v);
        if (s) {
            nr_status f = cuda_api_fault(ctx); /* an earlier kernel's fault met while loading */
            return f ? f : s;
        }
    }
    k->last_variant = (int)(v - k->variants);
    StrBuf err;
    sb_init(&err);
    nr_status s = NR_OK;
    if (cuda_launch(ctx->cuda, &v->k, grid, warps, params, stream, &err)) {
        /* an earlier kernel's fault shows at the next launch too */
        if (!(s = cuda_api_fault(ctx))) s = api_fail(ctx, NR_ERR_LAUNCH, "kernel '%s': %s", k->f->name, sb_cstr(&err));
    } else {
        note_launch(ctx, k);
    }
    sb_free(&err);
    return s;
}
