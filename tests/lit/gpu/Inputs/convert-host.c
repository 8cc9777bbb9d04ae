/* convert-host.c - the host side of convert-host.nrir: a 16-bit block loaded in one layout,
 * converted to another (through shared memory: 16-byte stores and ldmatrix where the
 * layouts allow it, else element runs) and stored; under cta_emu.h every element must
 * arrive where it was (with T, a trans: y is x transposed), no other byte of y written.
 *   convert-host KERNEL ROWS COLS WARPS [T] */
#include "cta_emu.h"

typedef void Kernel(uint16_t *, uint16_t *);
__attribute__((weak)) Kernel wgmma_f16, mma_f16, mma_i16_2x8, blocked_to_mma, mma_col_major,
    mma_warps_n, wgmma_trans, wgmma_f16_w8, wgmma_2x_w8;

static const struct {
    const char *name;
    Kernel *fn;
} kernels[] = {{"wgmma_f16", wgmma_f16},         {"mma_f16", mma_f16},
               {"mma_i16_2x8", mma_i16_2x8},     {"blocked_to_mma", blocked_to_mma},
               {"mma_col_major", mma_col_major}, {"mma_warps_n", mma_warps_n},
               {"wgmma_trans", wgmma_trans},     {"wgmma_f16_w8", wgmma_f16_w8},
               {"wgmma_2x_w8", wgmma_2x_w8}};

static Kernel *kernel;
static uint16_t *x, *y;
static void call(void *p) {
    (void)p;
    kernel(x, y);
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) return 2;
    int trans = argc == 6 && !strcmp(argv[5], "T");
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (!strcmp(argv[1], kernels[i].name)) kernel = kernels[i].fn;
    if (!kernel) {
        fprintf(stderr, "convert-host: no kernel %s in this object\n", argv[1]);
        return 2;
    }
    int rows = atoi(argv[2]), cols = atoi(argv[3]), warps = atoi(argv[4]), n = rows * cols;
    x = malloc((size_t)n * 2), y = malloc((size_t)(n + 64) * 2);
    for (int i = 0; i < n; i++) x[i] = (uint16_t)(i * 40503u + 17); /* distinct for n <= 65536 */
    for (int i = 0; i < n + 64; i++) y[i] = 0xdead;
    emu_launch(1, 1, 1, 32 * warps, call, NULL);
    for (int i = 0; i < n; i++) { /* x's element (r, c): y's (r, c), or with T y's (c, r) */
        int r = i / cols, c = i % cols, to = trans ? c * rows + r : i;
        EXPECT(y[to] == x[i], "%s: x's element (%d, %d) arrived as %#x, not %#x", argv[1], r, c,
               y[to], x[i]);
    }
    for (int i = n; i < n + 64; i++) EXPECT(y[i] == 0xdead, "%s: wrote past the block", argv[1]);
    printf("%s: %d wrong, %d ldmatrix with bank conflicts\n", argv[1], bad, emu_ldmatrix_conflicts);
    return bad != 0;
}
