/* target.c - the target description's helpers (target.h). */
#include "target.h"

#include <string.h>

int gpu_arch_of(const char *arch) {
    int a = ir_gpu_arch_from_name(arch, strlen(arch));
    return a ? a : GPU_SM80;
}

void gpu_spec_key(const GpuSpec *spec, StrBuf *out) {
    for (int i = 0; spec && i < spec->nparams; i++)
        sb_putc(out, spec->facts[i] == SPEC_ONE ? 'o' : spec->facts[i] == SPEC_DIV16 ? 'd' : 'n');
}
