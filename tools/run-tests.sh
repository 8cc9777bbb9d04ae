#!/usr/bin/env bash
# run-tests.sh BUILD_DIR... - run the whole suite against each build directory (the plain
# build, then the ASan+UBSan one): the C unit tests, the lit tests (front end, IR, passes,
# diagnostics), the Python package's tests, `make install` and `pip install` (these three
# on the first build) and the examples. Prints one line per failure and ends with the summary
# line "N passed, N failed, N skipped" (lit tests counted one by one, C programs one
# each): a program that exits 0 after printing a line starting with SKIP (a GPU test
# without a GPU) counts as skipped only, never as passed, so "N passed" is what ran.
#
#   run-tests.sh [--programs-only] BUILD_DIR[:unit]...
# --programs-only runs only the C programs of each build (BUILD/tests/*,
# BUILD/gpu-tests/*, BUILD/examples/*): no lit, no GPU kernel dump, no script tests; for
# the script's own test (tests/scripts/test_run_tests.sh). BUILD_DIR:unit runs only that
# build's unit tests (the ThreadSanitizer build, build-tsan, has only the threaded ones).
set -u
cd "$(dirname "$0")/.."
programs_only=0
if [ "${1:-}" = --programs-only ]; then programs_only=1; shift; fi
LLVM_PREFIX=$(/usr/lib/llvm-19/bin/llvm-config --prefix 2>/dev/null || echo /usr/lib/llvm-19)
LIT="python3 $LLVM_PREFIX/build/utils/lit/lit.py"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# ThreadSanitizer: any report fails the program (exit status 66); tests/tsan.supp holds
# the suppressions, each justified there
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$(pwd)/tests/tsan.supp}
# GCC 12's TSan runtime cannot map its shadow memory when the kernel randomises mmap
# with more than 28 bits; without address randomisation it always can
tsan_wrap=()
if setarch "$(uname -m)" -R true 2>/dev/null; then tsan_wrap=(setarch "$(uname -m)" -R); fi
PY=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
pass=0 fail=0 skip=0
failed=()

run_prog() { # label, command...
  local label=$1; shift
  local log; log=$(mktemp)
  if "$@" >"$log" 2>&1; then
    if grep -q '^SKIP' "$log"; then skip=$((skip + 1)); else pass=$((pass + 1)); fi
  else
    fail=$((fail + 1)); failed+=("$label")
    echo "FAIL: $label"; sed 's/^/    /' "$log" | tail -n 40
  fi
  rm -f "$log"
}

first=${1%%:*}
for spec in "$@"; do
  build=${spec%%:*}
  tag=$(basename "$build")
  wrap=()
  case "$tag" in *tsan*) wrap=("${tsan_wrap[@]}") ;; esac
  echo "== $tag: unit tests"
  for t in "$build"/tests/*; do
    [ -x "$t" ] || continue
    run_prog "$tag/unit/$(basename "$t")" "${wrap[@]}" "$t"
  done
  [ "$spec" = "$build:unit" ] && continue
  echo "== $tag: GPU tests (they skip without a GPU)"
  for t in "$build"/gpu-tests/*; do
    [ -x "$t" ] || continue
    run_prog "$tag/gpu/$(basename "$t")" "$t"
  done
  # The runtime's side of four GPU tests, against a stand-in driver (tests/mock/cuda_mock.c):
  # kernel faults, many processes sharing the disk cache through the API, the launch
  # path's arguments and variants (read back from the driver), and several devices. The
  # faults test runs twice: against the mock as NVIDIA's drivers behave (after a fault the
  # device is lost to the process: a new context must be refused, saying so) and against
  # it as a driver that recovers (CUDA_MOCK_RECOVER=1: a new context must work). The
  # several-devices test runs with one device (its single-device parts), two with peer
  # access and two without (copies staged through host memory), and three of two kinds
  # (each kind compiles once). Kernels are compiled by the stand-in ptxas beside the mock
  # (tests/mock/ptxas: the mock loads its "cubins" on their architecture only); the disk
  # cache's test runs again with the driver's JIT alone (NEREID_PTXAS=none), with a ptxas
  # that fails and one that writes what no driver loads (both: the driver's JIT instead),
  # and the launch test with a failing ptxas
  if [ "$programs_only" = 0 ] && [ -f "$build/mock/libcuda.so.1" ]; then
    echo "== $tag: GPU tests against a mock CUDA driver (faults, the disk cache, launch arguments, several devices)"
    mock_path="$build/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    for run in "test_gpu_faults -mock-driver CUDA_MOCK_RECOVER=0 NEREID_TEST_AFTER_FAULT=refused" \
               "test_gpu_faults -mock-driver-recovering CUDA_MOCK_RECOVER=1 NEREID_TEST_AFTER_FAULT=works" \
               "test_gpu_cache_procs -mock-driver NEREID_TEST_EXPECT_LOADS=cubin" \
               "test_gpu_cache_procs -mock-driver-jit NEREID_PTXAS=none NEREID_TEST_EXPECT_LOADS=ptx" \
               "test_gpu_cache_procs -mock-ptxas-fails CUDA_MOCK_PTXAS=fail NEREID_TEST_EXPECT_LOADS=ptx" \
               "test_gpu_cache_procs -mock-ptxas-garbage CUDA_MOCK_PTXAS=garbage NEREID_TEST_EXPECT_LOADS=ptx" \
               "test_gpu_launch_args -mock-driver" \
               "test_gpu_launch_args -mock-ptxas-fails CUDA_MOCK_PTXAS=fail" \
               "test_gpu_multi -mock-1-device CUDA_MOCK_DEVICES=1" \
               "test_gpu_multi -mock-2-devices-peer CUDA_MOCK_DEVICES=2 NEREID_TEST_EXPECT_PATH=peer" \
               "test_gpu_multi -mock-2-devices-staged CUDA_MOCK_DEVICES=2 CUDA_MOCK_NO_PEER=1 NEREID_TEST_EXPECT_PATH=staged" \
               "test_gpu_multi -mock-3-devices-2-kinds CUDA_MOCK_DEVICES=3 CUDA_MOCK_CC=90,80,90"; do
      read -r t suffix vars <<<"$run"
      [ -x "$build/gpu-tests/$t" ] || continue
      cdir=$(mktemp -d)
      # shellcheck disable=SC2086 # $vars: NAME=VALUE words for env
      run_prog "$tag/gpu/$t$suffix" env LD_LIBRARY_PATH="$mock_path" NEREID_REQUIRE_GPU=1 NEREID_CACHE_DIR="$cdir" \
        NEREID_PTXAS="$PWD/tests/mock/ptxas" $vars "$build/gpu-tests/$t"
      rm -rf "$cdir"
    done
  fi
  # Without a GPU the GPU tests skip; their kernels still run here CPU against CPU (a
  # self-check of the cases), and the plain build compiles every one of them for the GPU
  # and has ptxas (when installed) assemble it for sm_80 and sm_90a.
  if [ "$programs_only" = 0 ]; then
    for gt in test_gpu_vs_cpu test_gpu_dot; do
      [ -x "$build/gpu-tests/$gt" ] || continue
      echo "== $tag: $gt's kernels: CPU self-check, PTX for sm_80 and sm_90a"
      kdir=$(mktemp -d)
      run_prog "$tag/gpu/$gt-cpu-vs-cpu" "$build/gpu-tests/$gt" --cpu-vs-cpu --dump "$kdir"
      if [ "$build" = "$first" ]; then
        for arch in sm_80 sm_90a; do
          if [ -x /usr/local/cuda/bin/ptxas ]; then emit="--emit=cubin --arch=$arch -o $kdir/k.cubin"; else emit="--emit=ptx --arch=$arch -o /dev/null"; fi
          run_prog "$tag/gpu/$gt-kernels-$arch" env EMIT="$emit" STRICT=--strict-ptxas sh "$kdir/compile.sh" "$build/nereid"
        done
      fi
      rm -rf "$kdir"
    done
  fi
  if [ "$programs_only" = 0 ]; then
    echo "== $tag: lit"
    log=$(mktemp)
    NEREID_BUILD=$(pwd)/$build $LIT -sv tests/lit >"$log" 2>&1
    # lit's summary lines read "  Failed: 1 (0.96%)": the count is the first number after the colon
    count() { sed -nE "s/^ *($1) *: *([0-9]+).*/\\2/p" "$log" | awk '{s+=$1} END {print s+0}'; }
    lp=$(count 'Passed'); lf=$(count 'Failed|Unresolved|Timed Out|Unexpectedly Passed')
    lx=$(count 'Expectedly Failed|Unsupported')
    pass=$((pass + lp)); fail=$((fail + lf)); skip=$((skip + lx))
    if [ "$lf" != 0 ] || [ "$lp" = 0 ]; then
      [ "$lp" = 0 ] && [ "$lf" = 0 ] && { fail=$((fail + 1)); echo "FAIL: $tag/lit ran no test"; }
      grep -E '^(FAIL|UNRESOLVED|TIMEOUT|XPASS):' "$log" | sed "s|^|$tag/lit |"
      grep -B2 -A30 '^\*\*\*\*\*\*\*\*\*\* TEST' "$log" | head -n 200
      failed+=("$tag/lit")
    fi
    echo "   lit: $lp passed, $lf failed"
    rm -f "$log"
  fi
  # the fuzzers' regression corpus, replayed through the harnesses (under ASan+UBSan in
  # build-san): every input that ever found a bug, and the minimised coverage corpus
  if [ -x "$build/fuzz/replay_compile" ] && [ -x "$build/fuzz/replay_ir" ]; then
    echo "== $tag: fuzz corpus replay"
    for h in compile ir; do
      run_prog "$tag/fuzz/corpus-$h" "$build/fuzz/replay_$h" "tests/fuzz/corpus/$h"
    done
  fi
  if [ "$programs_only" = 0 ] && [ "$build" = "$first" ] && [ -f "$build/python/nereid/_nereid.abi3.so" ]; then
    # the Python package, on the CPU device with NumPy (Debian's python3, which has it);
    # tests counted one by one. Not under the sanitizers: the interpreter is not built with
    # them. Then the kernels of tests/gpu/tl_parity.py (Triton's issue-13 builtins) on the
    # interpreter against NumPy (python/tests/test_tl_parity.py), and the CUDA launch path
    # against the stand-in driver (python/tests/test_mock.py), with two stand-in devices.
    echo "== $tag: Python package (CPU device; CUDA on the mock driver)"
    for pyrun in "python test_python" "python-dropin test_dropin" "python-lang-triton test_lang_triton" "python-tl-parity test_tl_parity" "python-mock test_mock"; do
      read -r label module <<<"$pyrun"
      env=()
      if [ "$module" = test_mock ]; then
        [ -f "$build/mock/libcuda.so.1" ] || continue
        cdir=$(mktemp -d)
        # two stand-in devices: the per-device dispatch's tests run too
        env=(LD_LIBRARY_PATH="$build/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" NEREID_CACHE_DIR="$cdir" CUDA_MOCK_DEVICES=2
          NEREID_PTXAS="$PWD/tests/mock/ptxas")
      fi
      log=$(mktemp)
      env "${env[@]}" PYTHONPATH="$build/python" "$PY" python/tests/run.py "$module" >"$log" 2>&1
      read -r pp pf ps < <(sed -n 's/^python: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$log" | tail -n 1)
      pp=${pp:-0} pf=${pf:-0} ps=${ps:-0}
      pass=$((pass + pp)); fail=$((fail + pf)); skip=$((skip + ps))
      if [ "$pf" != 0 ] || [ "$pp" = 0 ]; then
        [ "$pp" = 0 ] && [ "$pf" = 0 ] && fail=$((fail + 1))
        failed+=("$tag/$label"); echo "FAIL: $tag/$label"; tail -n 60 "$log" | sed 's/^/    /'
      fi
      echo "   $label: $pp passed, $pf failed, $ps skipped"
      rm -f "$log"
      [ "$module" = test_mock ] && rm -rf "$cdir"
    done
    run_prog "$tag/python/pip-install" bash tools/test-pip-install.sh "$build"
    # tests/gpu/tl_parity.py's kernels, typed as @nereid.jit types them on the GPU, through
    # the GPU back end: a cubin for sm_90a (the GPU machine's target; ptxas --strict-ptxas
    # where installed) and PTX for sm_80 (its ptxas takes minutes on the one-warp 64x64 sorts)
    echo "== $tag: tl_parity's kernels: sm_90a cubins, sm_80 PTX"
    kdir=$(mktemp -d)
    run_prog "$tag/gpu/tl_parity-dump" env PYTHONPATH="$build/python" "$PY" tests/gpu/tl_parity.py --dump "$kdir"
    if [ -x /usr/local/cuda/bin/ptxas ]; then emit="--emit=cubin --arch=sm_90a -o $kdir/k.cubin"; else emit="--emit=ptx --arch=sm_90a -o /dev/null"; fi
    run_prog "$tag/gpu/tl_parity-kernels-sm_90a" env EMIT="$emit" STRICT=--strict-ptxas sh "$kdir/compile.sh" "$build/nereid"
    run_prog "$tag/gpu/tl_parity-kernels-sm_80" env EMIT="--emit=ptx --arch=sm_80 -o /dev/null" sh "$kdir/compile.sh" "$build/nereid"
    rm -rf "$kdir"
    # data-parallel training through torch.distributed with Nereid's kernels (gloo, the
    # interpreter): two ranks against one process; skipped where there is no torch
    ddp_out=$(mktemp -d)
    run_prog "$tag/python/test_ddp-cpu" "$PY" tests/gpu/test_ddp.py --device cpu --build "$build" --steps 5 --out "$ddp_out"
    rm -rf "$ddp_out"
  fi
  if [ "$programs_only" = 0 ] && [ "$build" = "$first" ]; then
    echo "== $tag: make install into a temporary prefix, pkg-config, make uninstall"
    run_prog "$tag/install" bash tools/test-install.sh "$build"
  fi
  echo "== $tag: examples (CPU interpreter)"
  for e in "$build"/examples/*; do
    [ -x "$e" ] || continue
    run_prog "$tag/examples/$(basename "$e")" env NEREID_DEVICE=cpu "$e" --quiet
  done
done
# tests of the tools and of the library as a whole (tests/scripts/test_*.sh), once, on
# the first build: each is one program that prints its own result and exits non-zero on
# failure
if [ "$programs_only" = 0 ]; then
  echo "== scripts"
  for t in tests/scripts/test_*.sh; do
    [ -f "$t" ] || continue
    run_prog "scripts/$(basename "$t" .sh)" bash "$t" "$first"
  done
fi
echo
if [ ${#failed[@]} -gt 0 ]; then echo "failed: ${failed[*]}"; fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
