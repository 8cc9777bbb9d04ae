#!/usr/bin/env bash
# test_layers.sh BUILD - the source folders are layers (tools/check-layers.py):
#  1. this tree passes: every include of a library file points down the Makefile's LAYERS,
#     and no two files of runtime/ or driver/ call each other in a circle (BUILD's objects);
#  2. the check fails, naming the include, on made-up trees where a folder includes a
#     header of a layer above it, directly or through a folder between them, where two
#     folders include each other, where a folder of C sources is no layer, and where two
#     files of runtime/ call each other (but the files of one module with an internal
#     header may).
set -u
cd "$(dirname "$0")/../.."
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
PY=$(command -v python3)

B=${1:-build}
out=$("$PY" tools/check-layers.py --calls "$B" 2>&1) || bad "this tree: $out"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# tree NAME LAYERS FILE=TEXT...: a made-up tree under $tmp/NAME
tree() {
  local d=$tmp/$1; shift
  mkdir -p "$d"; echo "$1" >"$d/LAYERS"; shift
  for spec in "$@"; do
    mkdir -p "$d/$(dirname "${spec%%=*}")"
    printf '%b\n' "${spec#*=}" >"$d/${spec%%=*}"
  done
  echo "$d"
}
expect_fail() { # NAME WHAT-THE-OUTPUT-MUST-SAY DIR
  local o
  if o=$("$PY" tools/check-layers.py "$3" 2>&1); then bad "$1: passed, should fail:\n$o"
  elif ! grep -qF -- "$2" <<<"$o"; then bad "$1: output lacks '$2':\n$o"; fi
}
good=$(tree good "low mid high" 'low/a.h=// a' 'mid/b.h=#include "low/a.h"' 'high/c.c=#include "mid/b.h"\n#include "../low/a.h"')
o=$("$PY" tools/check-layers.py "$good" 2>&1) || bad "a layered tree fails: $o"
up=$(tree up "low mid high" 'low/a.h=#include "high/c.h"' 'mid/b.h=// b' 'high/c.h=// c')
expect_fail "an include upwards" 'low/a.h:1: includes "high/c.h": low/ may not include high/' "$up"
rel=$(tree rel "low high" 'low/a.c=#include "../high/c.h"' 'high/c.h=// c')
expect_fail "a relative include upwards" 'low/a.c:1: includes "../high/c.h"' "$rel"
cyc=$(tree cyc "low mid high" 'low/a.h=#include "mid/b.h"' 'mid/b.h=#include "high/c.h"' 'high/c.h=#include "low/a.h"')
expect_fail "a cycle through three folders" 'include cycle between folders: ' "$cyc"
expect_fail "a cycle through three folders" 'mid/b.h:1: includes "high/c.h"' "$cyc"
two=$(tree two "low high" 'low/a.h=#include "high/c.h"' 'high/c.h=#include "low/a.h"')
expect_fail "two folders including each other" 'include cycle between folders: high -> low -> high' "$two"
stray=$(tree stray "low high" 'low/a.h=// a' 'low/extra/x.c=int x;' 'high/c.h=// c')
expect_fail "a folder that is no layer" 'low/extra: holds C sources but is not a layer' "$stray"

# calls: made-up objects, compiled here
calls=$(tree calls "runtime driver" 'runtime/a.c=void b(void); void a(void) { b(); }' \
        'runtime/b.c=void c(void); void b(void) { c(); }' 'runtime/c.c=void a(void); void c(void) { a(); }' \
        'runtime/m.c=void m_x(void); void m(void) { m_x(); }' 'runtime/m_x.c=void m(void); void m_x(void) { m(); }' \
        'runtime/m_impl.h=// m' 'driver/d.c=void d(void) {}')
mkdir -p "$calls/build/obj/runtime" "$calls/build/obj/driver"
for f in "$calls"/runtime/*.c "$calls"/driver/*.c; do
  rel=${f#"$calls"/}
  cc -c "$f" -o "$calls/build/obj/${rel%.c}.o" || bad "cannot compile $rel"
done
o=$("$PY" tools/check-layers.py --calls "$calls/build" "$calls" 2>&1) && bad "a call circle passed: $o"
grep -qF 'runtime/: these files call each other in a circle: a.c, b.c, c.c' <<<"$o" || bad "the circle a, b, c is not named:\n$o"
grep -qF 'm.c, m_x.c' <<<"$o" && bad "the module m (with m_impl.h) was refused:\n$o"

echo "test_layers: $fail failed"
[ "$fail" = 0 ]
