#!/usr/bin/env bash
# test_pass_docs.sh BUILD - the pass registry (driver/pass_registry.c) is the one list of
# passes: `nereid opt --list-passes` prints it, and
#  1. docs/architecture.md and the manual page (docs/nereid.1) name every pass in it;
#  2. no pass-like name in the docs (a `gpu-...` word in docs/*.md or the manual page) is
#     missing from it, and architecture.md section 5's table has a row for each IR pass
#     (the GPU passes, named gpu-..., are section 12's);
#  3. the CLI's help and `nereid opt`'s usage list exactly the registry's passes;
#  4. `nereid opt --passes=` takes each of them and refuses a name outside it.
set -u
cd "$(dirname "$0")/../.."
B=${1:-build}
N=$B/nereid
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
reg=$("$N" opt --list-passes | awk '{print $1}' | sort -u)
[ "$(echo "$reg" | wc -l)" -ge 10 ] || bad "the registry lists only: $reg"

# the manual page writes a hyphen as \-
man=$(sed 's/\\-/-/g' docs/nereid.1)
for p in $reg; do
  grep -q "\`$p\`" docs/architecture.md || bad "docs/architecture.md does not name the pass '$p'"
  grep -qw -- "$p" <<<"$man" || bad "docs/nereid.1 does not name the pass '$p'"
done
# gpu-... words in the docs: passes of the registry, but for the options and tools that
# share the prefix
docwords=$( (grep -ohE '`gpu-[a-z-]+`' docs/*.md | tr -d '`'; grep -ohE '\bgpu-[a-z]+(-[a-z]+)*\b' <<<"$man") | sort -u)
for w in $docwords; do
  case "$w" in gpu-ir|gpu-run|gpu-build|gpu-multi|gpu-tests) continue ;; esac
  grep -qx -- "$w" <<<"$reg" || bad "the docs name '$w', which is no pass of the registry"
done
# architecture.md section 5's table: each row's first column
rows=$(awk '/^## 5\. The passes/{on=1; next} /^## /{on=0} on' docs/architecture.md |
       sed -nE 's/^\| `([a-z-]+)`.*/\1/p' | sort -u)
[ -n "$rows" ] || bad "no table of passes found in docs/architecture.md section 5"
irpasses=$(grep -v '^gpu-' <<<"$reg")
[ "$rows" = "$irpasses" ] || bad "architecture.md section 5's table has rows for: $(echo $rows); the IR passes are: $(echo $irpasses)"
# the help texts
help=$("$N" --help 2>&1 | tr '\n' ' ' | sed -n 's/.*The passes: \([^.]*\)\..*/\1/p' | tr ',' '\n' | tr -d ' ' | sort -u)
[ "$help" = "$reg" ] || bad "nereid --help lists other passes: $(echo $help)"
usage=$("$N" opt --bogus 2>&1 | sed -n '/^passes:/,$p' | sed 's/^passes://' | tr ',' '\n' | tr -d ' ' | grep . | sort -u)
[ "$usage" = "$reg" ] || bad "nereid opt's usage lists other passes: $(echo $usage)"
# nereid opt takes each, refuses others
printf 'func @f() {\n  return\n}\n' >/tmp/pass_docs_$$.nrir
for p in $reg; do
  out=$("$N" opt /tmp/pass_docs_$$.nrir --passes="$p" 2>&1)
  case $? in 0|1) ;; *) bad "nereid opt --passes=$p: usage error: $out" ;; esac
done
"$N" opt /tmp/pass_docs_$$.nrir --passes=no-such-pass >/dev/null 2>&1; [ $? = 2 ] || bad "an unknown pass is not a usage error"
rm -f /tmp/pass_docs_$$.nrir
echo "test_pass_docs: $(echo "$reg" | wc -l) passes, $fail failed"
[ "$fail" = 0 ]
