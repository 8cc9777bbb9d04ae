#!/usr/bin/env bash
# test_symbols.sh BUILD - the library embeds cleanly:
#  1. libnereid.so exports exactly the functions include/nereid.h declares with NR_API:
#     nothing of Nereid's internals, LLVM's or libstdc++'s (nm -D --defined-only);
#  2. a program linked against libnereid.so alone compiles and runs a kernel through it;
#  3. every global symbol of libnereid.a (the static library, where nothing is hidden
#     from the program that links it) carries its module's prefix, so that it cannot
#     collide with the embedding program's own names (read_file, B, val_int, ...);
#  4. only the API's functions carry the API's prefix, nr_.
# BUILD/libnereid.so is made by `make test` (LLVM linked in statically, as `make
# gpu-build` does); the prefix check runs on BUILD/libnereid.a.
set -u
cd "$(dirname "$0")/../.."
B=${1:-build}
fail=0 checks=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# the API: every NR_API declaration's function name
api=$(sed -n 's/^NR_API .*[^a-z_0-9]\(nr_[a-z_0-9]*\)(.*/\1/p' include/nereid.h | sort -u)
[ "$(echo "$api" | wc -l)" -ge 20 ] || bad "found only $(echo "$api" | wc -l) NR_API functions in include/nereid.h"

# 1. the shared library's exports
checks=$((checks + 1))
if [ ! -f "$B/libnereid.so" ]; then
  bad "$B/libnereid.so not built (make $B/libnereid.so)"
else
  exported=$(nm -D --defined-only "$B/libnereid.so" | awk 'NF >= 3 {print $3}' | sed 's/@.*//' | sort -u)
  extra=$(comm -13 <(echo "$api") <(echo "$exported"))
  missing=$(comm -23 <(echo "$api") <(echo "$exported"))
  if [ -n "$extra" ]; then
    bad "libnereid.so exports $(echo "$extra" | wc -l) symbols that are not the API, e.g.: $(echo "$extra" | head -n 12 | tr '\n' ' ')"
  fi
  [ -z "$missing" ] || bad "libnereid.so does not export: $(echo "$missing" | tr '\n' ' ')"
fi

# 2. a program against the shared library alone
checks=$((checks + 1))
if [ -f "$B/libnereid.so" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cat >"$tmp/main.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "nereid.h"
static const char *src =
    "@triton.jit\n"
    "def twice(x: *fp32, n: i32, BLOCK: tl.constexpr):\n"
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(x + o, tl.load(x + o, mask=o < n) * 2, mask=o < n)\n";
int main(void) {
    nr_context *ctx;
    nr_module *m;
    nr_kernel *k;
    nr_devptr d;
    float h[100];
    for (int i = 0; i < 100; i++) h[i] = (float)i;
    nr_define def = {"BLOCK", "64"};
    nr_compile_options o = {&def, 1, NULL, 0, 0};
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) || nr_compile_source(ctx, src, strlen(src), "t.nr", &o, &m) ||
        nr_module_get_kernel(m, "twice", &k) || nr_malloc(ctx, sizeof h, &d) || nr_memcpy_htod(ctx, d, h, sizeof h))
        return printf("set-up failed: %s\n", nr_last_error(ctx)), 1;
    nr_arg a[2] = {nr_arg_ptr(d), nr_arg_i32(100)};
    unsigned grid[3] = {2, 1, 1};
    if (nr_launch(k, grid, a, 2, NULL) || nr_memcpy_dtoh(ctx, h, d, sizeof h))
        return printf("launch failed: %s\n", nr_last_error(ctx)), 1;
    for (int i = 0; i < 100; i++)
        if (h[i] != 2.0f * (float)i) return printf("x[%d] = %g\n", i, h[i]), 1;
    nr_context_destroy(ctx);
    puts("ok");
    return 0;
}
C
  if ! cc -std=c11 -Wall -Werror -Iinclude "$tmp/main.c" -o "$tmp/main" -L"$B" -lnereid -Wl,-rpath,"$(cd "$B" && pwd)" 2>"$tmp/log"; then
    bad "linking a program against $B/libnereid.so: $(head -c 600 "$tmp/log")"
  elif ! out=$("$tmp/main" 2>&1) || [ "$out" != ok ]; then
    bad "a program using $B/libnereid.so: $out"
  fi
fi

# 3. module prefixes in the static library. One line per prefix and where it belongs.
checks=$((checks + 1))
prefixes=(
  nr_         # the API (include/nereid.h) alone: check 4 below
  nrl         # flex's prefix (lang/lexer.l: %option prefix="nrl")
  ast_ lex_ parse_ lang_           # lang/ast.c, lang/parse.c (the lexer's helpers, the front end's entry)
  sema_       # lang/sema*.c
  py_ tune_   # lang/pyexpr.c (decorator arguments), lang/tune.c and runtime/autotune.c
  arena_ clock_ diag_ file_ namemap_ option_ parallel_ sb_  # compiler/support
  fp16_ bf16_ fp8_                 # compiler/support/float16.c, fp8.c
  ir_ ty_ dt_                      # compiler/ir/*.c
  ll_                              # compiler/ir/linear_layout.c
  axis_info_ moves_                # compiler/analysis
  pass_ fold_ opvec_               # compiler/passes
  gpu_ layout_ policy_             # compiler/gpu, compiler/target
  gen_ llvm_gen_ wgmma_            # compiler/codegen
  driver_ opt_tool_ ptx_ ptxas_ aot_  # driver/: the pipeline, the standard library and build id
                                   # embedded by tools/, nereid opt, PTX merging, running ptxas,
                                   # the AOT writer
  api_ args_ cache_ context_ cpu_ cuda_ fault_ interp_ launch_ memory_ module_ tuner_  # runtime
)
exact=(nrparse nrlex nrerror) # bison's functions (lang/parser.y: api.prefix {nr})
if [ ! -f "$B/libnereid.a" ]; then
  bad "$B/libnereid.a not built"
else
  re="^($(IFS='|'; echo "${prefixes[*]}"))"
  unprefixed=$(nm --defined-only -g "$B/libnereid.a" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u |
               grep -vE "$re" | grep -vxF -f <(printf '%s\n' "${exact[@]}"))
  if [ -n "$unprefixed" ]; then
    bad "$(echo "$unprefixed" | wc -l) global symbols of libnereid.a have no module prefix: $(echo "$unprefixed" | head -n 20 | tr '\n' ' ')"
  fi
fi

# 4. nr_ is the API's prefix alone: every nr_ symbol of the static library is declared
# NR_API in include/nereid.h (an internal function with it would look public to users)
checks=$((checks + 1))
if [ -f "$B/libnereid.a" ]; then
  internal=$(comm -13 <(echo "$api") <(nm --defined-only -g "$B/libnereid.a" 2>/dev/null | awk 'NF == 3 {print $3}' |
             grep '^nr_' | sort -u))
  [ -z "$internal" ] || bad "$(echo "$internal" | wc -l) internal symbols carry the API's prefix nr_: $(echo "$internal" | head -n 20 | tr '\n' ' ')"
fi

if [ "$fail" = 0 ]; then echo "test_symbols: $checks passed, 0 failed ($(echo "$api" | wc -l) API functions exported, nothing else)"; exit 0; fi
echo "test_symbols: $((checks - fail < 0 ? 0 : checks - fail)) passed, $fail failed"
exit 1
