#!/usr/bin/env bash
# demo.sh BUILD_DIR - run every example program in BUILD_DIR/examples with its full output
# (tables, then its OK / FAILED line), from the repository root so the programs find their
# kernels in examples/. The device is the examples' choice: NEREID_DEVICE=cpu|cuda, or unset
# for the GPU when there is one and the CPU interpreter otherwise. Ends with a summary table
# (example, device, result, seconds); exits 1 if any example failed or none was found.
set -u
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}
if [ ! -d "$build/examples" ]; then
  echo "demo: no $build/examples: build first (make all)" >&2
  exit 1
fi

# the tutorials' order first, then anything else there
order=(vector_add softmax matmul dropout seeded_dropout matrix_dropout layer_norm sjlt attention)
progs=()
for name in "${order[@]}"; do [ -x "$build/examples/$name" ] && progs+=("$name"); done
for e in "$build"/examples/*; do
  name=$(basename "$e")
  [ -x "$e" ] && [ -f "$e" ] || continue
  [[ " ${order[*]} " == *" $name "* ]] || progs+=("$name")
done
if [ ${#progs[@]} -eq 0 ]; then
  echo "demo: no example programs in $build/examples" >&2
  exit 1
fi

rows=() failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for name in "${progs[@]}"; do
  echo
  echo "==== $name ===================================================================="
  start=$(date +%s.%N)
  "$build/examples/$name" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  device=$(sed -n 's/^device: //p' "$log" | head -n 1)
  if [ "$rc" = 0 ]; then result=OK; else result="FAILED (exit $rc)"; failed=$((failed + 1)); fi
  rows+=("$(printf '%-16s %-7s %8s   %s' "$name" "${device:-?}" "$secs" "$result")")
done

echo
echo "==== summary ===================================================================="
printf '%-16s %-7s %8s   %s\n' example device seconds result
for r in "${rows[@]}"; do echo "$r"; done
echo "${#progs[@]} examples, $failed failed"
[ "$failed" = 0 ]
