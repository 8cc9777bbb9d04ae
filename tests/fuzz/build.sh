#!/usr/bin/env bash
# build.sh - build the libFuzzer harnesses (tests/fuzz/README.md).
#
#   tests/fuzz/build.sh [OUTDIR]      (default /tmp/nereid-fuzz-build)
#
# Compiles the compiler's library sources (the Makefile's LIB_SRCS, plus the parser,
# lexer, embedded standard library and build id generated with bison, flex,
# tools/embed.sh and tools/build-id.sh) with
# clang, coverage instrumentation (-fsanitize=fuzzer-no-link) and ASan+UBSan into OUTDIR,
# then links OUTDIR/fuzz_compile and OUTDIR/fuzz_ir with -fsanitize=fuzzer. Nothing is
# written inside the repository. Needs clang with libFuzzer (Debian: libclang-rt-14-dev or
# the clang package's own runtime), flex, bison and LLVM 19 (llvm-config-19).
#
# Environment: CC (default clang), LLVM_CONFIG (default llvm-config-19), JOBS (default
# nproc), EXTRA_CFLAGS, HARNESS_ONLY=1 (relink the harnesses against the library already
# in OUTDIR, after editing only tests/fuzz/).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-/tmp/nereid-fuzz-build}
CC=${CC:-clang}
LLVM_CONFIG=${LLVM_CONFIG:-$(command -v llvm-config-19 || echo /usr/lib/llvm-19/bin/llvm-config)}
JOBS=${JOBS:-$(nproc)}

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
LLVM_CFLAGS=$($LLVM_CONFIG --cflags | tr ' ' '\n' | grep -E '^-(I|D)' | tr '\n' ' ')
CFLAGS="-std=c11 -Wall -Wextra -Werror -g -O1 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $SAN \
  $LLVM_CFLAGS -I$root -I$root/include -I$out/gen ${EXTRA_CFLAGS:-}"
# generated code: its warnings are flex's and bison's (as in the Makefile)
GEN_CFLAGS="-Wno-unused-function -Wno-sign-compare -Wno-unused-parameter -Wno-unused-but-set-variable"
LDLIBS="$($LLVM_CONFIG --ldflags) -lLLVM-19 -lm -lpthread -ldl -lstdc++"

mkdir -p "$out/gen" "$out/obj"
cd "$root"

# compile SRC OBJ [EXTRA-FLAGS...]: one library source, instrumented for coverage
compile() {
    local src=$1 obj=$2
    shift 2
    # shellcheck disable=SC2086
    $CC $CFLAGS -fsanitize=fuzzer-no-link "$@" -c "$src" -o "$obj"
}
export -f compile
export CC CFLAGS out

if [ "${HARNESS_ONLY:-0}" != 1 ] || [ ! -f "$out/libnereid-fuzz.a" ]; then
    # generated sources, as the Makefile makes them
    bison -Wall -Werror --defines="$out/gen/parser.h" -o "$out/gen/parser.c" lang/parser.y
    flex --header-file="$out/gen/lexer.h" -o "$out/gen/lexer.c" lang/lexer.l
    stdlib=()
    while IFS= read -r f; do stdlib+=("$f"); done < <(printf '%s\n' lang/stdlib/*.nr | LC_ALL=C sort)
    bash tools/embed.sh "$out/gen/stdlib_src.c" "${stdlib[@]}"
    # the build id (only its presence matters here: the fuzzers use no disk cache)
    bash tools/build-id.sh "$out/gen/build_id.c" lang/parser.y lang/lexer.l "${stdlib[@]}"

    # the Makefile's LIB_SRCS
    srcs=() objs=()
    for s in $(make -s --no-print-directory print-lib-srcs); do
        srcs+=("$s")
        objs+=("$out/obj/${s//\//_}.o")
    done
    # shellcheck disable=SC2016  # expanded by the inner bash
    printf '%s\n' "${srcs[@]}" | xargs -P "$JOBS" -I{} bash -c 'compile "$1" "$out/obj/${1//\//_}.o"' _ {}
    for g in parser lexer stdlib_src build_id; do
        # shellcheck disable=SC2086
        compile "$out/gen/$g.c" "$out/obj/gen_$g.o" $GEN_CFLAGS
        objs+=("$out/obj/gen_$g.o")
    done
    rm -f "$out/libnereid-fuzz.a"
    ar rcs "$out/libnereid-fuzz.a" "${objs[@]}"
fi

for h in fuzz_compile fuzz_ir; do
    # shellcheck disable=SC2086
    $CC $CFLAGS -fsanitize=fuzzer tests/fuzz/$h.c "$out/libnereid-fuzz.a" $LDLIBS -o "$out/$h"
done
echo "built $out/fuzz_compile and $out/fuzz_ir"
