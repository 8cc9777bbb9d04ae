/* aot_c.c - ahead-of-time compilation to C (aot_c.h).
 *
 * Every kernel is compiled in up to four specialisations, from the most assuming to none:
 *   0: pointers 16-byte aligned; integers divisible by 16 (those named by --one: equal to 1)
 *   1: pointers aligned; the integers named by --one equal to 1, by --divisible divisible
 *   2: pointers aligned, nothing assumed of integers
 *   3: nothing assumed
 * (equal ones merged), for each architecture. All entries of one architecture are merged
 * into one PTX module (ptx_module.h), assembled by ptxas when it is installed. The
 * generated C embeds the images, tests each launch's arguments against the variants'
 * assumptions in order, loads the module for the calling thread's current context once
 * (choosing the image by the device's compute capability) and calls cuLaunchKernel. */
#include "aot_c.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_compile.h"
#include "nereid.h"
#include "ptx_module.h"
#include "ptxas.h"

enum { MAX_VARIANTS = 4, MAX_PARAMS = 256, MAX_ARCHS = 8 };

typedef struct AotKernel {
    const IrFunc *f;
    int nparams;
    int nvariants;
    uint8_t facts[MAX_VARIANTS][MAX_PARAMS];
    int first_entry; /* index of its variant 0 among all entries */
} AotKernel;

typedef struct AotImage {
    const char *arch;
    int cc;             /* 80, 90 */
    bool arch_specific; /* sm_90a: this exact device only */
    bool cubin;
    unsigned char *data;
    size_t len;
    unsigned *shared;  /* per entry */
    unsigned *threads; /* per entry: 32 * num_warps, plus a warp_specialize's producers */
} AotImage;

typedef struct Aot {
    const AotOptions *o;
    AotKernel *kernels;
    int nkernels, nentries;
    AotImage images[MAX_ARCHS];
    char ident[128]; /* NAME as a C identifier: the prefix of everything file-local */
} Aot;

static bool in_list(const char *list, const char *name) {
    if (!list || !name) return false;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return true;
        p += len + (e ? 1 : 0);
    }
    return false;
}

static IrType param_type(const IrFunc *f, int i) { return ir_type(f, f->regions[f->body].args[i]); }

static bool int_param(IrType t) { return dt_is_int(t.dt) && t.dt != DT_I1; }

static void make_variants(const AotOptions *o, AotKernel *k) {
    uint8_t v[MAX_VARIANTS][MAX_PARAMS];
    for (int i = 0; i < k->nparams; i++) {
        IrType t = param_type(k->f, i);
        const char *name = k->f->param_names[i];
        uint8_t ptr = t.dt == DT_PTR ? SPEC_DIV16 : SPEC_NONE;
        uint8_t one = int_param(t) && in_list(o->one, name) ? SPEC_ONE : SPEC_NONE;
        v[0][i] = t.dt == DT_PTR ? SPEC_DIV16 : int_param(t) ? (one ? one : SPEC_DIV16) : SPEC_NONE;
        v[1][i] = ptr                                           ? ptr
                  : one                                         ? one
                  : int_param(t) && in_list(o->divisible, name) ? SPEC_DIV16
                                                                : SPEC_NONE;
        v[2][i] = ptr;
        v[3][i] = SPEC_NONE;
    }
    k->nvariants = 0;
    for (int a = 0; a < MAX_VARIANTS; a++) {
        bool dup = false;
        for (int b = 0; b < k->nvariants && !dup; b++)
            dup = !memcmp(k->facts[b], v[a], (size_t)k->nparams);
        if (!dup) memcpy(k->facts[k->nvariants++], v[a], (size_t)k->nparams);
    }
}

/* ---- compiling ---- */

/* ptxas: PTX -> cubin bytes; NULL (with ptxas's output on stderr) on failure. */
static unsigned char *assemble(const char *ptxas, const char *arch, const StrBuf *ptx,
                               size_t *len) {
    unsigned char *data = NULL;
    StrBuf log;
    sb_init(&log);
    if (ptxas_run(ptxas, arch, NULL, ptx->data, ptx->len, &data, len, &log)) {
        fputs(sb_cstr(&log), stderr);
        fprintf(stderr, "nereid: ptxas failed for %s\n", arch);
    }
    sb_free(&log);
    return data;
}

static int compile_image(Aot *A, AotImage *im, Diag *diag) {
    const AotOptions *o = A->o;
    char ldbuf[4096];
    const char *libdevice = gpu_libdevice_find(ldbuf, sizeof ldbuf); /* linked into the PTX */
    PtxPart *parts = calloc((size_t)A->nentries, sizeof *parts);
    GpuResult *res = calloc((size_t)A->nentries, sizeof *res);
    char(*names)[300] = calloc((size_t)A->nentries, sizeof *names);
    im->shared = calloc((size_t)A->nentries, sizeof *im->shared);
    im->threads = calloc((size_t)A->nentries, sizeof *im->threads);
    int rc = !parts || !res || !names || !im->shared || !im->threads, done = 0;
    for (int k = 0; k < A->nkernels && !rc; k++) {
        AotKernel *K = &A->kernels[k];
        for (int v = 0; v < K->nvariants && !rc; v++) {
            int e = K->first_entry + v;
            GpuSpec spec = {K->nparams, K->facts[v], GPU_SPECULATE_VERSION, false};
            GpuTarget t = {im->arch, o->num_warps, o->num_stages, NULL, libdevice, NULL,
                           0,        o->code};
            if (!gpu_compile_kernel(K->f, &spec, &t, GPU_DUMP_NONE, NULL, NULL, &res[e], diag)) {
                rc = 1;
                break;
            }
            done = e + 1;
            snprintf(names[e], sizeof names[e], "%s__nrv%d", K->f->name, v);
            parts[e] = (PtxPart){res[e].ptx.data, res[e].ptx.len, names[e]};
            im->shared[e] = res[e].shared_bytes, im->threads[e] = res[e].threads;
        }
    }
    StrBuf module, err;
    sb_init(&module);
    sb_init(&err);
    if (!rc && !ptx_merge(parts, A->nentries, &module, &err)) {
        fprintf(stderr, "nereid: internal error: cannot merge the kernels' PTX for %s: %s\n",
                im->arch, sb_cstr(&err));
        rc = 1;
    }
    if (!rc) {
        char pbuf[4096];
        const char *ptxas = o->ptx_only ? NULL : ptxas_find(pbuf, sizeof pbuf);
        if (ptxas) {
            im->data = assemble(ptxas, im->arch, &module, &im->len);
            im->cubin = true;
            if (!im->data) rc = 1;
        } else {
            im->len = module.len + 1; /* the driver reads PTX up to its NUL */
            im->data = malloc(im->len);
            if (im->data) memcpy(im->data, module.data, im->len);
            else rc = 1;
        }
    }
    for (int e = 0; e < done; e++) sb_free(&res[e].ptx);
    sb_free(&module);
    sb_free(&err);
    free(parts), free(res), free(names);
    return rc;
}

/* ---- writing ---- */

static bool c_keyword(const char *s) {
    static const char *const kw[] = {
        "auto",     "break",  "case",   "char",     "const",    "continue", "default",  "do",
        "double",   "else",   "enum",   "extern",   "float",    "for",      "goto",     "if",
        "inline",   "int",    "long",   "register", "restrict", "return",   "short",    "signed",
        "sizeof",   "static", "struct", "switch",   "typedef",  "union",    "unsigned", "void",
        "volatile", "while",  "bool",   "true",     "false",    "stream",   "grid",     "args"};
    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
        if (!strcmp(kw[i], s) || !strncmp(s, "nr_", 3)) return true;
    return false;
}

/* A parameter's name in C (a Python name that C reserves gets a '_'). */
static void c_name(char *buf, size_t size, const char *name) {
    snprintf(buf, size, c_keyword(name) ? "%s_" : "%s", name);
}

static const char *c_type(IrType t) {
    switch (t.dt) {
    case DT_PTR: return "uint64_t";
    case DT_I1: return "bool";
    case DT_I8: return "int8_t";
    case DT_I16: return "int16_t";
    case DT_I32: return "int32_t";
    case DT_I64: return "int64_t";
    case DT_U8: return "uint8_t";
    case DT_U16: return "uint16_t";
    case DT_U32: return "uint32_t";
    case DT_U64: return "uint64_t";
    case DT_FP16:
    case DT_BF16:
    case DT_FP32: return "float";
    case DT_FP64: return "double";
    default: return "void";
    }
}

static void write_signature(StrBuf *b, const AotKernel *K) {
    sb_printf(b, "int %s(void *stream, const unsigned grid[3]", K->f->name);
    for (int i = 0; i < K->nparams; i++) {
        char n[160];
        c_name(n, sizeof n, K->f->param_names[i]);
        sb_printf(b, ", %s %s", c_type(param_type(K->f, i)), n);
    }
    sb_puts(b, ")");
}

static const char *fact_text(uint8_t f) {
    return f == SPEC_ONE ? "== 1" : f == SPEC_DIV16 ? "% 16 == 0 (not 0)" : NULL;
}

static void write_header(Aot *A, StrBuf *b) {
    const AotOptions *o = A->o;
    sb_printf(b, "/* %s.h - generated by Nereid %s from %s: do not edit.\n *   %s\n *\n", A->ident,
              NEREID_VERSION, o->source_name, o->command);
    sb_puts(
        b,
        " * One launcher per kernel. It launches on `stream` (a CUstream; NULL: the default "
        "stream)\n"
        " * in the calling thread's current CUDA context (the primary context of device 0 is made\n"
        " * current when there is none), with blocks of 32 * num_warps threads (and a\n"
        " * warp-specialised kernel's producer warps besides), and returns the\n"
        " * driver's CUresult: 0 on success; 100 (CUDA_ERROR_NO_DEVICE) when libcuda.so.1 cannot "
        "be\n"
        " * loaded; 209 (CUDA_ERROR_NO_BINARY_FOR_GPU) when no image here runs on the device; 1\n"
        " * (CUDA_ERROR_INVALID_VALUE) for a grid with a zero dimension. Pointer arguments are\n"
        " * device addresses. The module is loaded at the first launch in each context;\n"
        " * <NAME>_unload() unloads it everywhere. Launchers may be called from any thread. */\n");
    sb_printf(b,
              "#ifndef NEREID_AOT_%s_H\n#define NEREID_AOT_%s_H\n\n#include <stdbool.h>\n#include "
              "<stdint.h>\n\n",
              A->ident, A->ident);
    sb_puts(b, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    for (int k = 0; k < A->nkernels; k++) {
        AotKernel *K = &A->kernels[k];
        sb_printf(b, "/* %s: %d warps, %d stages; specialisations, tried in order:\n", K->f->name,
                  o->num_warps, o->num_stages);
        for (int v = 0; v < K->nvariants; v++) {
            sb_printf(b, " *   %d:", v);
            int n = 0;
            for (int i = 0; i < K->nparams; i++) {
                const char *ft = fact_text(K->facts[v][i]);
                if (ft) sb_printf(b, "%s %s %s", n++ ? "," : "", K->f->param_names[i], ft);
            }
            sb_puts(b, n ? "\n" : " none\n");
        }
        sb_puts(b, " */\n");
        write_signature(b, K);
        sb_puts(b, ";\n\n");
    }
    sb_printf(b,
              "/* Unload the modules loaded so far (0, or the first failing CUresult). */\nint "
              "%s_unload(void);\n\n",
              A->ident);
    sb_puts(b, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
}

static void write_bytes(StrBuf *b, const unsigned char *data, size_t len) {
    for (size_t i = 0; i < len; i++) sb_printf(b, "%s%u,", i % 24 == 0 ? "\n    " : "", data[i]);
    sb_puts(b, "\n");
}

/* The driver API and the loader: everything generic, prefixed by the file's name. */
static void write_runtime(Aot *A, StrBuf *b) {
    const char *p = A->ident;
    sb_printf(
        b,
        "typedef int %1$s_CUresult;\n"
        "typedef struct %1$s_CUctx_st *%1$s_CUcontext;\n"
        "typedef struct %1$s_CUmod_st *%1$s_CUmodule;\n"
        "typedef struct %1$s_CUfunc_st *%1$s_CUfunction;\n\n"
        "static struct {\n"
        "    pthread_mutex_t lock;\n"
        "    int opened; /* 0 not yet, 1 ready, -1 no driver */\n"
        "    %1$s_CUresult (*Init)(unsigned);\n"
        "    %1$s_CUresult (*CtxGetCurrent)(%1$s_CUcontext *);\n"
        "    %1$s_CUresult (*CtxSetCurrent)(%1$s_CUcontext);\n"
        "    %1$s_CUresult (*CtxPushCurrent)(%1$s_CUcontext);\n"
        "    %1$s_CUresult (*CtxPopCurrent)(%1$s_CUcontext *);\n"
        "    %1$s_CUresult (*CtxGetDevice)(int *);\n"
        "    %1$s_CUresult (*DeviceGet)(int *, int);\n"
        "    %1$s_CUresult (*DeviceGetAttribute)(int *, int, int);\n"
        "    %1$s_CUresult (*DevicePrimaryCtxRetain)(%1$s_CUcontext *, int);\n"
        "    %1$s_CUresult (*ModuleLoadData)(%1$s_CUmodule *, const void *);\n"
        "    %1$s_CUresult (*ModuleUnload)(%1$s_CUmodule);\n"
        "    %1$s_CUresult (*ModuleGetFunction)(%1$s_CUfunction *, %1$s_CUmodule, const char *);\n"
        "    %1$s_CUresult (*FuncSetAttribute)(%1$s_CUfunction, int, int);\n"
        "    %1$s_CUresult (*LaunchKernel)(%1$s_CUfunction, unsigned, unsigned, unsigned, "
        "unsigned, unsigned, unsigned,\n"
        "                                  unsigned, void *, void **, void **);\n"
        "    struct { %1$s_CUcontext ctx; %1$s_CUmodule mod; int image; %1$s_CUfunction fn[%2$d]; "
        "} loaded[32];\n"
        "    int nloaded;\n"
        "} %1$s_cu = {PTHREAD_MUTEX_INITIALIZER, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
        "NULL, NULL, NULL, NULL, NULL,\n"
        "             NULL, NULL, {{NULL, NULL, 0, {NULL}}}, 0};\n\n",
        p, A->nentries);
    sb_printf(
        b,
        "static int %1$s_sym(void *lib, const char *name, void *fn) {\n"
        "    void *s = dlsym(lib, name);\n"
        "    memcpy(fn, &s, sizeof s); /* a function pointer from dlsym, as POSIX allows */\n"
        "    return s != NULL;\n"
        "}\n\n"
        "static int %1$s_open(void) {\n"
        "    void *lib = dlopen(\"libcuda.so.1\", RTLD_NOW | RTLD_LOCAL);\n"
        "    int ok = lib && %1$s_sym(lib, \"cuInit\", &%1$s_cu.Init) &&\n"
        "        %1$s_sym(lib, \"cuCtxGetCurrent\", &%1$s_cu.CtxGetCurrent) &&\n"
        "        %1$s_sym(lib, \"cuCtxSetCurrent\", &%1$s_cu.CtxSetCurrent) &&\n"
        "        %1$s_sym(lib, \"cuCtxPushCurrent_v2\", &%1$s_cu.CtxPushCurrent) &&\n"
        "        %1$s_sym(lib, \"cuCtxPopCurrent_v2\", &%1$s_cu.CtxPopCurrent) &&\n"
        "        %1$s_sym(lib, \"cuCtxGetDevice\", &%1$s_cu.CtxGetDevice) &&\n"
        "        %1$s_sym(lib, \"cuDeviceGet\", &%1$s_cu.DeviceGet) &&\n"
        "        %1$s_sym(lib, \"cuDeviceGetAttribute\", &%1$s_cu.DeviceGetAttribute) &&\n"
        "        %1$s_sym(lib, \"cuDevicePrimaryCtxRetain\", &%1$s_cu.DevicePrimaryCtxRetain) &&\n"
        "        %1$s_sym(lib, \"cuModuleLoadData\", &%1$s_cu.ModuleLoadData) &&\n"
        "        %1$s_sym(lib, \"cuModuleUnload\", &%1$s_cu.ModuleUnload) &&\n"
        "        %1$s_sym(lib, \"cuModuleGetFunction\", &%1$s_cu.ModuleGetFunction) &&\n"
        "        %1$s_sym(lib, \"cuFuncSetAttribute\", &%1$s_cu.FuncSetAttribute) &&\n"
        "        %1$s_sym(lib, \"cuLaunchKernel\", &%1$s_cu.LaunchKernel);\n"
        "    if (!ok) {\n"
        "        if (lib) dlclose(lib);\n"
        "        return 100; /* CUDA_ERROR_NO_DEVICE: no usable driver */\n"
        "    }\n"
        "    return %1$s_cu.Init(0);\n"
        "}\n\n",
        p);
    sb_printf(
        b,
        "/* The image for a device of compute capability cc: a cubin built for it (sm_90a only on\n"
        " * 9.0; sm_80 on any 8.x), else the newest PTX it can compile. -1 if none. */\n"
        "static int %1$s_pick_image(int cc) {\n"
        "    int best = -1, best_score = -1;\n"
        "    for (int i = 0; i < %1$s_NIMAGES; i++) {\n"
        "        int icc = %1$s_images[i].cc, score = -1;\n"
        "        if (%1$s_images[i].arch_specific) score = cc == icc ? (%1$s_images[i].cubin ? 400 "
        ": 200) + icc : -1;\n"
        "        else if (%1$s_images[i].cubin) score = cc / 10 == icc / 10 && cc >= icc ? 300 + "
        "icc : -1;\n"
        "        else score = cc >= icc ? 100 + icc : -1;\n"
        "        if (score > best_score) best = i, best_score = score;\n"
        "    }\n"
        "    return best;\n"
        "}\n\n",
        p);
    sb_printf(
        b,
        "/* Load the module into ctx (the lock held); its slot through *slot. */\n"
        "static %1$s_CUresult %1$s_load(%1$s_CUcontext ctx, int *slot) {\n"
        "    int dev, major, minor;\n"
        "    %1$s_CUresult r = %1$s_cu.CtxGetDevice(&dev);\n"
        "    if (!r) r = %1$s_cu.DeviceGetAttribute(&major, 75, dev); /* COMPUTE_CAPABILITY_MAJOR "
        "*/\n"
        "    if (!r) r = %1$s_cu.DeviceGetAttribute(&minor, 76, dev);\n"
        "    if (r) return r;\n"
        "    int image = %1$s_pick_image(major * 10 + minor);\n"
        "    if (image < 0) return 209; /* CUDA_ERROR_NO_BINARY_FOR_GPU */\n"
        "    if (%1$s_cu.nloaded == (int)(sizeof %1$s_cu.loaded / sizeof *%1$s_cu.loaded)) return "
        "2; /* OUT_OF_MEMORY */\n"
        "    int s = %1$s_cu.nloaded;\n"
        "    %1$s_CUmodule mod;\n"
        "    r = %1$s_cu.ModuleLoadData(&mod, %1$s_images[image].data);\n"
        "    if (r) return r;\n"
        "    for (int e = 0; e < %2$d && !r; e++) {\n"
        "        r = %1$s_cu.ModuleGetFunction(&%1$s_cu.loaded[s].fn[e], mod, %1$s_entries[e]);\n"
        "        if (!r && %1$s_images[image].shared[e] > 48 * 1024) /* "
        "MAX_DYNAMIC_SHARED_SIZE_BYTES */\n"
        "            r = %1$s_cu.FuncSetAttribute(%1$s_cu.loaded[s].fn[e], 8, "
        "(int)%1$s_images[image].shared[e]);\n"
        "    }\n"
        "    if (r) {\n"
        "        %1$s_cu.ModuleUnload(mod);\n"
        "        return r;\n"
        "    }\n"
        "    %1$s_cu.loaded[s].ctx = ctx;\n"
        "    %1$s_cu.loaded[s].mod = mod;\n"
        "    %1$s_cu.loaded[s].image = image;\n"
        "    %1$s_cu.nloaded++;\n"
        "    *slot = s;\n"
        "    return 0;\n"
        "}\n\n",
        p, A->nentries);
    sb_printf(
        b,
        "static %1$s_CUresult %1$s_launch(int e, void *stream, const unsigned grid[3], void "
        "**args) {\n"
        "    if (!grid || !grid[0] || !grid[1] || !grid[2]) return 1; /* "
        "CUDA_ERROR_INVALID_VALUE */\n"
        "    pthread_mutex_lock(&%1$s_cu.lock);\n"
        "    %1$s_CUresult r = 0;\n"
        "    if (%1$s_cu.opened == 0) {\n"
        "        r = %1$s_open();\n"
        "        %1$s_cu.opened = r ? -1 : 1;\n"
        "    } else if (%1$s_cu.opened < 0) r = 100;\n"
        "    %1$s_CUcontext ctx = NULL;\n"
        "    if (!r) r = %1$s_cu.CtxGetCurrent(&ctx);\n"
        "    if (!r && !ctx) { /* no context yet: device 0's primary one, as the runtime API "
        "does */\n"
        "        int dev;\n"
        "        r = %1$s_cu.DeviceGet(&dev, 0);\n"
        "        if (!r) r = %1$s_cu.DevicePrimaryCtxRetain(&ctx, dev);\n"
        "        if (!r) r = %1$s_cu.CtxSetCurrent(ctx);\n"
        "    }\n"
        "    int s = -1;\n"
        "    for (int i = 0; !r && i < %1$s_cu.nloaded && s < 0; i++)\n"
        "        if (%1$s_cu.loaded[i].ctx == ctx) s = i;\n"
        "    if (!r && s < 0) r = %1$s_load(ctx, &s);\n"
        "    %1$s_CUfunction fn = r ? NULL : %1$s_cu.loaded[s].fn[e];\n"
        "    unsigned shared = r ? 0 : %1$s_images[%1$s_cu.loaded[s].image].shared[e];\n"
        "    unsigned threads = r ? 0 : %1$s_images[%1$s_cu.loaded[s].image].threads[e];\n"
        "    pthread_mutex_unlock(&%1$s_cu.lock);\n"
        "    if (r) return r;\n"
        "    return %1$s_cu.LaunchKernel(fn, grid[0], grid[1], grid[2], threads, 1, 1, shared, "
        "stream, args, NULL);\n"
        "}\n\n"
        "int %1$s_unload(void) {\n"
        "    pthread_mutex_lock(&%1$s_cu.lock);\n"
        "    %1$s_CUresult first = 0;\n"
        "    for (int i = 0; i < %1$s_cu.nloaded; i++) {\n"
        "        %1$s_CUcontext prev;\n"
        "        %1$s_CUresult r = %1$s_cu.CtxPushCurrent(%1$s_cu.loaded[i].ctx);\n"
        "        if (!r) r = %1$s_cu.ModuleUnload(%1$s_cu.loaded[i].mod);\n"
        "        %1$s_cu.CtxPopCurrent(&prev);\n"
        "        if (r && !first) first = r;\n"
        "    }\n"
        "    %1$s_cu.nloaded = 0;\n"
        "    pthread_mutex_unlock(&%1$s_cu.lock);\n"
        "    return first;\n"
        "}\n\n",
        p);
}

static void write_converters(Aot *A, StrBuf *b, bool fp16, bool bf16) {
    sb_puts(b,
            "/* fp16 and bf16 arguments are given as float and rounded to nearest even here. */\n");
    if (fp16)
        sb_printf(b,
                  "static uint16_t %1$s_fp16(float f) {\n"
                  "    uint32_t x;\n"
                  "    memcpy(&x, &f, 4);\n"
                  "    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);\n"
                  "    uint32_t ax = x & 0x7fffffffu;\n"
                  "    if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);\n"
                  "    if (ax >= 0x47800000u) return (uint16_t)(sign | 0x7c00u);\n"
                  "    if (ax < 0x33000000u) return sign;\n"
                  "    uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, base = 0;\n"
                  "    int shift = 126 - (int)e;\n"
                  "    if (e >= 113) shift = 13, base = (e - 112) << 10, m &= 0x7fffffu;\n"
                  "    uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift "
                  "- 1);\n"
                  "    if (rem > half || (rem == half && (q & 1))) q++;\n"
                  "    return (uint16_t)(sign | (base + q));\n"
                  "}\n\n",
                  A->ident);
    if (bf16)
        sb_printf(b,
                  "static uint16_t %1$s_bf16(float f) {\n"
                  "    uint32_t x;\n"
                  "    memcpy(&x, &f, 4);\n"
                  "    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);\n"
                  "    x += 0x7fffu + ((x >> 16) & 1u);\n"
                  "    return (uint16_t)(x >> 16);\n"
                  "}\n\n",
                  A->ident);
}

static bool uses_dt(Aot *A, int dt) {
    for (int k = 0; k < A->nkernels; k++)
        for (int i = 0; i < A->kernels[k].nparams; i++)
            if (param_type(A->kernels[k].f, i).dt == dt) return true;
    return false;
}

static void write_launcher(Aot *A, StrBuf *b, const AotKernel *K) {
    write_signature(b, K);
    sb_puts(b, " {\n");
    for (int i = 0; i < K->nparams; i++) { /* values in the width the kernel takes them */
        IrType t = param_type(K->f, i);
        char n[160];
        c_name(n, sizeof n, K->f->param_names[i]);
        if (t.dt == DT_FP16 || t.dt == DT_BF16)
            sb_printf(b, "    uint16_t nr_a%d = %s_%s(%s);\n", i, A->ident,
                      t.dt == DT_FP16 ? "fp16" : "bf16", n);
        else if (t.dt == DT_I1) sb_printf(b, "    uint8_t nr_a%d = %s ? 1 : 0;\n", i, n);
    }
    sb_printf(b, "    void *nr_args[%d] = {", K->nparams ? K->nparams : 1);
    for (int i = 0; i < K->nparams; i++) {
        IrType t = param_type(K->f, i);
        char n[160];
        c_name(n, sizeof n, K->f->param_names[i]);
        if (t.dt == DT_FP16 || t.dt == DT_BF16 || t.dt == DT_I1)
            sb_printf(b, "%s&nr_a%d", i ? ", " : "", i);
        else sb_printf(b, "%s&%s", i ? ", " : "", n);
    }
    sb_puts(b, K->nparams ? "};\n" : "NULL};\n");
    sb_puts(b, "    int nr_v = ");
    for (int v = 0; v < K->nvariants; v++) {
        int n = 0;
        StrBuf cond;
        sb_init(&cond);
        for (int i = 0; i < K->nparams; i++) {
            char nm[160];
            c_name(nm, sizeof nm, K->f->param_names[i]);
            if (K->facts[v][i] == SPEC_DIV16) /* divisible means nonzero too (a variant's facts) */
                sb_printf(&cond, "%s((uint64_t)%s & 15) == 0 && %s", n++ ? " && " : "", nm, nm);
            else if (K->facts[v][i] == SPEC_ONE)
                sb_printf(&cond, "%s%s == 1", n++ ? " && " : "", nm);
        }
        if (v == K->nvariants - 1 || !n) sb_printf(b, "%d;\n", v);
        else sb_printf(b, "%s ? %d :\n               ", sb_cstr(&cond), v);
        sb_free(&cond);
        if (v == K->nvariants - 1 || !n) break;
    }
    sb_printf(b, "    return %s_launch(%d + nr_v, stream, grid, nr_args);\n}\n\n", A->ident,
              K->first_entry);
}

static void write_source(Aot *A, StrBuf *b, const char *header_name) {
    const AotOptions *o = A->o;
    sb_printf(b, "/* %s.c - generated by Nereid %s from %s: do not edit.\n *   %s\n * Images:",
              A->ident, NEREID_VERSION, o->source_name, o->command);
    for (int i = 0; i < o->narchs; i++)
        sb_printf(b, " %s %s (%zu bytes)%s", A->images[i].arch,
                  A->images[i].cubin ? "cubin" : "PTX", A->images[i].len,
                  i + 1 < o->narchs ? "," : ".");
    sb_puts(b, " */\n#define _POSIX_C_SOURCE 200809L\n");
    sb_printf(b,
              "#include \"%s\"\n\n#include <dlfcn.h>\n#include <pthread.h>\n#include "
              "<stddef.h>\n#include <string.h>\n\n",
              header_name);
    for (int i = 0; i < o->narchs; i++) {
        AotImage *im = &A->images[i];
        sb_printf(b, "static const unsigned char %s_image%d[%zu] = { /* %s %s */", A->ident, i,
                  im->len, im->arch, im->cubin ? "cubin" : "PTX");
        write_bytes(b, im->data, im->len);
        sb_puts(b, "};\n");
        sb_printf(b, "static const unsigned %s_shared%d[%d] = {", A->ident, i, A->nentries);
        for (int e = 0; e < A->nentries; e++) sb_printf(b, "%s%u", e ? ", " : "", im->shared[e]);
        sb_puts(b, "};\n");
        sb_printf(b, "static const unsigned %s_threads%d[%d] = {", A->ident, i, A->nentries);
        for (int e = 0; e < A->nentries; e++) sb_printf(b, "%s%u", e ? ", " : "", im->threads[e]);
        sb_puts(b, "};\n\n");
    }
    sb_printf(b, "enum { %s_NIMAGES = %d };\n", A->ident, o->narchs);
    sb_printf(
        b,
        "static const struct {\n    int cc, arch_specific, cubin;\n    const unsigned char *data;\n"
        "    const unsigned *shared, *threads;\n} %s_images[%d] = {\n",
        A->ident, o->narchs);
    for (int i = 0; i < o->narchs; i++)
        sb_printf(b, "    {%d, %d, %d, %s_image%d, %s_shared%d, %s_threads%d}, /* %s */\n",
                  A->images[i].cc, A->images[i].arch_specific, A->images[i].cubin, A->ident, i,
                  A->ident, i, A->ident, i, A->images[i].arch);
    sb_puts(b, "};\n");
    sb_printf(b, "static const char *const %s_entries[%d] = {", A->ident, A->nentries);
    for (int k = 0; k < A->nkernels; k++)
        for (int v = 0; v < A->kernels[k].nvariants; v++)
            sb_printf(b, "%s\"%s__nrv%d\"", k || v ? ", " : "", A->kernels[k].f->name, v);
    sb_puts(b, "};\n\n");
    write_runtime(A, b);
    if (uses_dt(A, DT_FP16) || uses_dt(A, DT_BF16))
        write_converters(A, b, uses_dt(A, DT_FP16), uses_dt(A, DT_BF16));
    for (int k = 0; k < A->nkernels; k++) write_launcher(A, b, &A->kernels[k]);
}

static int write_file(const char *path, const StrBuf *text) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text->data, 1, text->len, f) != text->len || fclose(f)) {
        if (f) fclose(f);
        fprintf(stderr, "nereid: cannot write '%s': %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

static void set_ident(Aot *A, const char *base) {
    const char *name = strrchr(base, '/');
    name = name ? name + 1 : base;
    size_t n = 0;
    if (isdigit((unsigned char)name[0])) A->ident[n++] = '_';
    for (; *name && n + 1 < sizeof A->ident; name++)
        A->ident[n++] = isalnum((unsigned char)*name) ? *name : '_';
    A->ident[n] = 0;
    if (!n) snprintf(A->ident, sizeof A->ident, "kernels");
}

int aot_emit_c(const IrModule *m, const AotOptions *o, Diag *diag) {
    Aot A;
    memset(&A, 0, sizeof A);
    A.o = o;
    set_ident(&A, o->out_base);
    if (o->narchs < 1 || o->narchs > MAX_ARCHS) {
        fprintf(stderr, "nereid: --emit=c takes 1 to %d architectures\n", MAX_ARCHS);
        return 1;
    }
    A.kernels = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *A.kernels);
    if (!A.kernels) return 1;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const IrFunc *f = m->funcs[i];
        if (!f->is_kernel) continue;
        AotKernel *K = &A.kernels[A.nkernels++];
        K->f = f;
        K->nparams = (int)f->regions[f->body].nargs;
        if (K->nparams > MAX_PARAMS) {
            fprintf(stderr, "nereid: kernel '%s' has more than %d parameters\n", f->name,
                    MAX_PARAMS);
            free(A.kernels);
            return 1;
        }
        for (int p = 0; p < K->nparams; p++)
            if (!strcmp(c_type(param_type(f, p)), "void")) { /* a tensor descriptor */
                fprintf(stderr,
                        "nereid: --emit=c: kernel '%s' takes a tensor descriptor ('%s'), which "
                        "C launchers cannot pass (they take pointers and scalars): make it in "
                        "the kernel with tl.make_tensor_descriptor\n",
                        f->name, f->param_names[p]);
                free(A.kernels);
                return 1;
            }
        make_variants(o, K);
        K->first_entry = A.nentries;
        A.nentries += K->nvariants;
    }
    int rc = 0;
    for (int i = 0; i < o->narchs && !rc; i++) {
        AotImage *im = &A.images[i];
        im->arch = o->archs[i];
        im->cc = atoi(o->archs[i] + 3);
        im->arch_specific = o->archs[i][strlen(o->archs[i]) - 1] == 'a';
        rc = compile_image(&A, im, diag);
    }
    if (!rc) {
        StrBuf h, c;
        sb_init(&h);
        sb_init(&c);
        const char *slash = strrchr(o->out_base, '/');
        char header[512], hpath[4096], cpath[4096];
        snprintf(header, sizeof header, "%s.h", slash ? slash + 1 : o->out_base);
        snprintf(hpath, sizeof hpath, "%s.h", o->out_base);
        snprintf(cpath, sizeof cpath, "%s.c", o->out_base);
        write_header(&A, &h);
        write_source(&A, &c, header);
        rc = write_file(hpath, &h) || write_file(cpath, &c);
        sb_free(&h);
        sb_free(&c);
    }
    for (int i = 0; i < o->narchs; i++)
        free(A.images[i].data), free(A.images[i].shared), free(A.images[i].threads);
    free(A.kernels);
    return rc;
}
