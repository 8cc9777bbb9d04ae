#!/usr/bin/env bash
# test-install.sh [BUILD] - `make install` into a temporary prefix, then use only what it
# installed: build a C program with `pkg-config --cflags --libs nereid` alone and run it
# (vector add on the CPU interpreter, checked), run the installed CLI, render the manual
# page; finally `make uninstall` must leave none of the files behind.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
make --no-print-directory -s BUILD="$build" PREFIX="$prefix" install >/dev/null
for f in bin/nereid lib/libnereid.so lib/libnereid.a include/nereid.h lib/pkgconfig/nereid.pc share/man/man1/nereid.1; do
  [ -f "$prefix/$f" ] || { echo "FAIL: make install did not install $f"; exit 1; }
done
cat > "$work/main.c" <<'CEOF'
#include <stdio.h>
#include <string.h>
#include <nereid.h>

static const char *src =
    "@triton.jit\n"
    "def add(x: *fp32, y: *fp32, out: *fp32, n: i32, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    m = offs < n\n"
    "    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)\n";

int main(void) {
    nr_context *ctx;
    nr_module *mod;
    nr_kernel *k;
    nr_define d = {"BLOCK", "64"};
    nr_compile_options o = {.defines = &d, .num_defines = 1};
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) || nr_compile_source(ctx, src, strlen(src), "add.nr", &o, &mod) ||
        nr_module_get_kernel(mod, "add", &k)) {
        printf("setup failed\n");
        return 1;
    }
    enum { N = 200 };
    float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 2.0f * (float)i;
    nr_devptr dx, dy, dout;
    nr_malloc(ctx, sizeof x, &dx), nr_malloc(ctx, sizeof y, &dy), nr_malloc(ctx, sizeof out, &dout);
    nr_memcpy_htod(ctx, dx, x, sizeof x), nr_memcpy_htod(ctx, dy, y, sizeof y);
    nr_arg args[4] = {nr_arg_ptr(dx), nr_arg_ptr(dy), nr_arg_ptr(dout), nr_arg_i32(N)};
    unsigned grid[3] = {(N + 63) / 64, 1, 1};
    if (nr_launch(k, grid, args, 4, NULL)) {
        printf("launch failed: %s\n", nr_last_error(ctx));
        return 1;
    }
    nr_memcpy_dtoh(ctx, out, dout, sizeof out);
    for (int i = 0; i < N; i++)
        if (out[i] != 3.0f * (float)i) return printf("wrong result at %d\n", i), 1;
    nr_context_destroy(ctx);
    printf("installed library: OK (nereid %s)\n", NEREID_VERSION);
    return 0;
}
CEOF
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "$work/main.c" -o "$work/main" $(pkg-config --cflags --libs nereid)
(cd "$work" && env -u LD_LIBRARY_PATH ./main)
[ "$(pkg-config --modversion nereid)" = "$(sed -n 's/^#define NEREID_VERSION "\(.*\)"/\1/p' include/nereid.h)" ]
"$prefix/bin/nereid" --version
printf '@triton.jit\ndef k(x: *fp32):\n    tl.store(x, 1.0)\n' > "$work/k.nr"
"$prefix/bin/nereid" compile "$work/k.nr" --emit=ptx | grep -q '.entry k('
if command -v man >/dev/null; then man -l "$prefix/share/man/man1/nereid.1" 2>/dev/null | grep -q 'AHEAD-OF-TIME'; fi
make --no-print-directory -s BUILD="$build" PREFIX="$prefix" uninstall >/dev/null
left=$(find "$prefix" -type f | wc -l)
[ "$left" = 0 ] || { echo "FAIL: make uninstall left $left files:"; find "$prefix" -type f; exit 1; }
echo "make install / uninstall: OK"
