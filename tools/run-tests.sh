#!/usr/bin/env bash
# run-tests.sh BUILD_DIR... - run the whole suite against each build directory (the plain
# build, then the ASan+UBSan one): the C unit tests, the lit tests (front end, IR, passes,
# diagnostics), the Python package's tests (plain build), `make install` and `pip install`
# (plain build) and the examples. Prints one line per failure and ends with the summary
# line "N passed, N failed" (lit tests counted one by one, C programs one each).
set -u
cd "$(dirname "$0")/.."
LLVM_PREFIX=$(/usr/lib/llvm-19/bin/llvm-config --prefix 2>/dev/null || echo /usr/lib/llvm-19)
LIT="python3 $LLVM_PREFIX/build/utils/lit/lit.py"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
PY=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
pass=0 fail=0 skip=0
failed=()

run_prog() { # label, command...
  local label=$1; shift
  local log; log=$(mktemp)
  if "$@" >"$log" 2>&1; then
    pass=$((pass + 1))
    if grep -q '^SKIP' "$log"; then skip=$((skip + 1)); fi
  else
    fail=$((fail + 1)); failed+=("$label")
    echo "FAIL: $label"; sed 's/^/    /' "$log" | tail -n 40
  fi
  rm -f "$log"
}

for build in "$@"; do
  tag=$(basename "$build")
  echo "== $tag: unit tests"
  for t in "$build"/tests/*; do
    [ -x "$t" ] || continue
    run_prog "$tag/unit/$(basename "$t")" "$t"
  done
  echo "== $tag: GPU tests (they skip without a GPU)"
  for t in "$build"/gpu-tests/*; do
    [ -x "$t" ] || continue
    run_prog "$tag/gpu/$(basename "$t")" "$t"
  done
  # Without a GPU the GPU tests skip; their kernels still run here CPU against CPU (a
  # self-check of the cases), and the plain build compiles every one of them for the GPU
  # and has ptxas (when installed) assemble it for sm_80 and sm_90a.
  if [ -x "$build/gpu-tests/test_gpu_vs_cpu" ]; then
    echo "== $tag: GPU test kernels: CPU self-check, PTX for sm_80 and sm_90a"
    kdir=$(mktemp -d)
    run_prog "$tag/gpu/cpu-vs-cpu" "$build/gpu-tests/test_gpu_vs_cpu" --cpu-vs-cpu --dump "$kdir"
    if [ "$build" = "$1" ]; then
      for arch in sm_80 sm_90a; do
        if [ -x /usr/local/cuda/bin/ptxas ]; then emit="--emit=cubin --arch=$arch -o $kdir/k.cubin"; else emit="--emit=ptx --arch=$arch -o /dev/null"; fi
        run_prog "$tag/gpu/kernels-$arch" env EMIT="$emit" sh "$kdir/compile.sh" "$build/nereid"
      done
    fi
    rm -rf "$kdir"
  fi
  echo "== $tag: lit"
  log=$(mktemp)
  NEREID_BUILD=$(pwd)/$build $LIT -sv tests/lit >"$log" 2>&1
  lp=$(grep -E '^ *Passed *:' "$log" | grep -oE '[0-9]+' | head -1); lp=${lp:-0}
  lf=$(grep -E '^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *:' "$log" | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}'); lf=${lf:-0}
  lx=$(grep -E '^ *(Expectedly Failed|Unsupported) *:' "$log" | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}'); lx=${lx:-0}
  pass=$((pass + lp)); fail=$((fail + lf)); skip=$((skip + lx))
  if [ "$lf" != 0 ] || [ "$lp" = 0 ]; then
    [ "$lp" = 0 ] && [ "$lf" = 0 ] && { fail=$((fail + 1)); echo "FAIL: $tag/lit ran no test"; }
    grep -E '^(FAIL|UNRESOLVED|TIMEOUT|XPASS):' "$log" | sed "s|^|$tag/lit |"
    grep -B2 -A30 '^\*\*\*\*\*\*\*\*\*\* TEST' "$log" | head -n 200
    failed+=("$tag/lit")
  fi
  echo "   lit: $lp passed, $lf failed"
  rm -f "$log"
  if [ "$build" = "$1" ] && [ -f "$build/python/nereid/_nereid.abi3.so" ]; then
    # the Python package, on the CPU device with NumPy (Debian's python3, which has it);
    # tests counted one by one. Not under the sanitizers: the interpreter is not built with them.
    echo "== $tag: Python package (CPU device)"
    log=$(mktemp)
    PYTHONPATH=$build/python "$PY" python/tests/run.py >"$log" 2>&1
    read -r pp pf ps < <(sed -n 's/^python: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$log" | tail -n 1)
    pp=${pp:-0} pf=${pf:-0} ps=${ps:-0}
    pass=$((pass + pp)); fail=$((fail + pf)); skip=$((skip + ps))
    if [ "$pf" != 0 ] || [ "$pp" = 0 ]; then
      [ "$pp" = 0 ] && [ "$pf" = 0 ] && fail=$((fail + 1))
      failed+=("$tag/python"); echo "FAIL: $tag/python"; tail -n 60 "$log" | sed 's/^/    /'
    fi
    echo "   python: $pp passed, $pf failed, $ps skipped"
    rm -f "$log"
    run_prog "$tag/python/pip-install" bash tools/test-pip-install.sh "$build"
  fi
  if [ "$build" = "$1" ]; then
    echo "== $tag: make install into a temporary prefix, pkg-config, make uninstall"
    run_prog "$tag/install" bash tools/test-install.sh "$build"
  fi
  echo "== $tag: examples (CPU interpreter)"
  for e in "$build"/examples/*; do
    [ -x "$e" ] || continue
    run_prog "$tag/examples/$(basename "$e")" env NEREID_DEVICE=cpu "$e" --quiet
  done
done
echo
if [ ${#failed[@]} -gt 0 ]; then echo "failed: ${failed[*]}"; fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
