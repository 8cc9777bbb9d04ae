/* target.c - the target description's helpers (target.h). */
#include "target.h"

#include <string.h>

int gpu_arch_of(const char *arch) {
    int a = ir_gpu_arch_from_name(arch, strlen(arch));
    return a ? a : GPU_SM80;
}
