#!/usr/bin/env bash
# test_run_tests.sh - tools/run-tests.sh counts honestly: a program that exits 0 after
# printing a line starting with SKIP is skipped, not passed; one that exits non-zero fails
# whatever it printed; "N passed" counts only what ran. Runs the script on a fake build
# directory of tiny shell programs (--programs-only: no lit, no kernels).
set -u
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/fake/tests" "$dir/fake/gpu-tests" "$dir/fake/examples"
prog() { # path, body
  printf '#!/bin/sh\n%s\n' "$2" >"$1"
  chmod +x "$1"
}
prog "$dir/fake/tests/ok" 'echo "test_ok: 12 passed, 0 failed"; exit 0'
prog "$dir/fake/tests/bad" 'echo "test_bad: 1 failed"; exit 1'
prog "$dir/fake/tests/mentions_skip" 'echo "note: NOSKIP is not a skip; neither is a SKIP later in a line"; exit 0'
prog "$dir/fake/gpu-tests/gskip" 'echo "SKIP: no CUDA device (no driver)"; exit 0'
prog "$dir/fake/gpu-tests/gok" 'echo "gpu: 3 passed"; exit 0'
prog "$dir/fake/gpu-tests/skip_then_fail" 'echo "SKIP: no CUDA device"; exit 1'
prog "$dir/fake/examples/ex" '[ "$NEREID_DEVICE" = cpu ] && [ "$1" = --quiet ]'
out=$(bash tools/run-tests.sh --programs-only "$dir/fake" 2>&1)
status=$?
summary=$(printf '%s\n' "$out" | tail -n 1)
want="4 passed, 2 failed, 1 skipped"
ok=1
if [ "$summary" != "$want" ]; then
  echo "FAIL: summary is '$summary', expected '$want'"; ok=0
fi
if [ "$status" = 0 ]; then
  echo "FAIL: run-tests.sh exited 0 although two programs failed"; ok=0
fi
for f in fake/unit/bad fake/gpu/skip_then_fail; do
  printf '%s\n' "$out" | grep -q "^FAIL: $f\$" || { echo "FAIL: no 'FAIL: $f' line"; ok=0; }
done
if [ "$ok" = 1 ]; then echo "test_run_tests: 1 passed, 0 failed"; exit 0; fi
printf '%s\n' "--- run-tests.sh output:" "$out"
exit 1
