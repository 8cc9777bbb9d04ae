/* llvm_libdevice.c - CUDA's libdevice (libdevice.10.bc: the toolkit's math library as
 * LLVM bitcode): where the compiler finds it, and linking it into a kernel's module.
 *
 * The math op's functions (erf, tanh, pow, ...: compiler/ir/ir_mathfn.def) lower to calls
 * of libdevice's __nv_NAMEf / __nv_NAME when the GPU target names a libdevice file
 * (GpuTarget.libdevice); without one they lower to Nereid's own routines
 * (llvm_math_soft.c). Only a module that declares an __nv_ function pays for libdevice:
 * its bitcode is read lazily and the functions the kernel calls linked in (LLVMLinkModules2,
 * with what they reach; gen_link_libdevice says how), every function and global it
 * brought is made internal to the module (the kernel stays the only external symbol, so
 * the PTX modules of several kernels can be merged), then nvvm-reflect folds its
 * __nvvm_reflect queries (no flush-to-zero: the module flag nvvm-reflect-ftz is 0, 1 with
 * enable_reflect_ftz),
 * always-inline inlines the functions the kernel calls (libdevice marks them so) and
 * globaldce drops the rest before the ordinary pipeline runs. */
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen_internal.h"

const char *gpu_libdevice_find(char *buf, size_t n) {
    const char *env = getenv("NEREID_LIBDEVICE");
    if (env) { /* a file, or "none" (or empty): Nereid's own routines */
        if (!*env || !strcmp(env, "none") || !file_usable(env, false)) return NULL;
        snprintf(buf, n, "%s", env);
        return buf;
    }
    return file_in_cuda_toolkit("nvvm/libdevice/libdevice.10.bc", false, buf, n);
}

void gpu_libdevice_id(const char *path, StrBuf *out) {
    struct stat st;
    if (!path) {
        sb_puts(out, "none");
        return;
    }
    if (stat(path, &st)) sb_printf(out, "%s:?", path);
    else sb_printf(out, "%s:%lld:%lld", path, (long long)st.st_size, (long long)st.st_mtime);
}

/* Does the module call a libdevice function? */
static bool wants_libdevice(LLVMModuleRef M) {
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
        size_t len;
        const char *name = LLVMGetValueName2(f, &len);
        if (LLVMIsDeclaration(f) && len > 5 && !strncmp(name, "__nv_", 5)) return true;
    }
    return false;
}

LLVMValueRef gen_libdevice_call(Gen *g, const char *name, LLVMTypeRef ty, LLVMValueRef *args,
                                int n) {
    LLVMTypeRef params[2] = {ty, ty};
    LLVMTypeRef fty = LLVMFunctionType(ty, params, (unsigned)n, 0);
    LLVMValueRef f = LLVMGetNamedFunction(g->M, name);
    if (!f) f = LLVMAddFunction(g->M, name, fty);
    return LLVMBuildCall2(g->B, fty, f, args, (unsigned)n, "");
}

bool gen_link_libdevice(Gen *g, LLVMTargetMachineRef tm) {
    if (!wants_libdevice(g->M)) return true;
    const char *path = g->target->libdevice;
    if (!path) gen_error(g, g->f->loc, "internal error: a libdevice call without libdevice");
    LLVMMemoryBufferRef buf;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg)) {
        diag_error(g->diag, g->f->loc,
                   "cannot read CUDA's libdevice '%s': %s (NEREID_LIBDEVICE=none uses Nereid's own "
                   "math routines)",
                   path, msg ? msg : "?");
        LLVMDisposeMessage(msg);
        return false;
    }
    /* read lazily: a function's body is parsed only when the linker moves it. libdevice's
     * functions are external definitions, which LLVMLinkModules2 links all of (hundreds,
     * each parsed, then inlined nowhere and dropped by globaldce: ~45 ms); as linkonce_odr
     * they are linked only where the kernel declares them, with what they reach. */
    LLVMModuleRef lib;
    if (LLVMGetBitcodeModuleInContext2(g->C, buf, &lib)) { /* owns buf only on success */
        LLVMDisposeMemoryBuffer(buf);
        diag_error(g->diag, g->f->loc,
                   "CUDA's libdevice '%s' is not LLVM bitcode this LLVM can read", path);
        return false;
    }
    for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
            LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
    LLVMSetTarget(lib, LLVMGetTarget(g->M));
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(g->M));
    if (LLVMLinkModules2(g->M, lib)) { /* lib is gone either way */
        diag_error(g->diag, g->f->loc, "internal error: linking libdevice '%s' failed", path);
        return false;
    }
    for (LLVMValueRef f = LLVMGetFirstFunction(g->M); f; f = LLVMGetNextFunction(f))
        if (f != g->fn && !LLVMIsDeclaration(f)) LLVMSetLinkage(f, LLVMInternalLinkage);
    for (LLVMValueRef v = LLVMGetFirstGlobal(g->M); v; v = LLVMGetNextGlobal(v))
        if (v != g->smem && !LLVMIsDeclaration(v)) LLVMSetLinkage(v, LLVMInternalLinkage);
    LLVMAddModuleFlag(g->M, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
                      LLVMValueAsMetadata(LLVMConstInt(g->i32, g->target->code.reflect_ftz, 0)));
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(g->M, "function(nvvm-reflect),always-inline,globaldce", tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
        char *m = LLVMGetErrorMessage(e);
        diag_error(g->diag, g->f->loc, "internal error: after linking libdevice: %s", m);
        LLVMDisposeErrorMessage(m);
        return false;
    }
    return true;
}
