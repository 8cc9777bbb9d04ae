#!/usr/bin/env bash
# gpu-run.sh [BUILD] [PART] - on the GPU machine: run the CUDA smoke test, the GPU tests, the
# Python package's GPU tests and every example on the GPU (NEREID_DEVICE=cuda), then
# compute-sanitizer on them; logs under $OUT (or /tmp), a table last. PART: tests (all but
# compute-sanitizer), sanitizer (only compute-sanitizer), or all (the default). All of it
# takes 8-10 minutes on an H100: where one device call allows 10, run the two parts in two.
set -u
B=${1:-build-gpu}
PART=${2:-all}
case "$B" in all|tests|sanitizer) echo "gpu-run.sh: BUILD comes first: gpu-run.sh BUILD $B" >&2; exit 2;; esac
case "$PART" in all|tests|sanitizer) ;; *) echo "gpu-run.sh: PART is all, tests or sanitizer" >&2; exit 2;; esac
OUT=${OUT:-/tmp/nereid-gpu}
mkdir -p "$OUT"
export NEREID_CACHE_DIR=${NEREID_CACHE_DIR:-/tmp/nereid-cache}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1
rows=()
run() { # name, command...
  local name=$1; shift
  local t0=$(date +%s.%N)
  if timeout 300 "$@" > "$OUT/$name.log" 2>&1; then r=OK; else r="FAIL($?)"; fi
  local t1=$(date +%s.%N)
  rows+=("$(printf "%-28s %-8s %6.2fs  %s" "$name" "$r" "$(awk -v a="$t0" -v b="$t1" "BEGIN{print b-a}")" "$(tail -n 1 "$OUT/$name.log" | cut -c1-70)")")
}
if [ "$PART" != sanitizer ]; then
  for t in "$B"/gpu-tests/*; do [ -x "$t" ] && run "gpu-$(basename "$t")" "$t"; done
  # fp8 conversions again as sm_80 code (integer sequences instead of the cvt instructions)
  run gpu-test_gpu_vs_cpu-fp8-sm80 env NEREID_ARCH=sm_80 "$B/gpu-tests/test_gpu_vs_cpu" --filter fp8
  for e in "$B"/examples/*; do [ -x "$e" ] && run "ex-$(basename "$e")" env NEREID_DEVICE=cuda "$e"; done
  # the random functions against Triton's on this GPU, bit for bit
  run triton-parity env PYTHONUNBUFFERED=1 python3 tests/gpu/triton_parity.py --lib "$B/libnereid.so"
  # the builtins of issue 13 (scans, custom reductions, sort/topk/flip, gather, histogram,
  # join/split, clamp, libdevice, inline asm, block pointers, tensor descriptors, fp8) in small
  # Triton kernels through Triton and through @nereid.jit, same tensors, outputs compared
  run tl-parity env PYTHONUNBUFFERED=1 PYTHONPATH="$B/python" python3 tests/gpu/tl_parity.py --lib "$B/libnereid.so"
  # the Python package on torch tensors (its extension in $B/python, linked against $B/libnereid.so)
  run python-gpu env PYTHONPATH="$B/python" python3 python/tests/run.py test_gpu
  # torch.compile with Nereid compiling Inductor's kernels (nereid.inductor), against eager torch
  run python-inductor env PYTHONPATH="$B/python" python3 python/tests/run.py test_inductor
  # fused attention through the Python package against torch (examples/attention.nr); --quick
  # keeps its kernels' compiles inside the 300 s limit (the full list: run it by hand)
  run test-attention env PYTHONUNBUFFERED=1 PYTHONPATH="$B/python" python3 tests/gpu/test_attention.py --quick
fi
# compute-sanitizer: memcheck on every example; racecheck (shared-memory races, i.e. the
# barrier pass) on those that use shared memory
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ "$PART" = tests ]; then
  :
elif [ -x "$CS" ]; then
  for e in "$B"/examples/*; do
    [ -x "$e" ] && run "memcheck-$(basename "$e")" env NEREID_DEVICE=cuda "$CS" --tool memcheck --error-exitcode 1 "$e" --quiet
  done
  for e in softmax matmul layer_norm attention; do
    run "racecheck-$e" env NEREID_DEVICE=cuda "$CS" --tool racecheck --error-exitcode 1 "$B/examples/$e" --quiet
  done
  # every matmul configuration bench.py times, on examples/matmul.nr (test_gpu_dot's group)
  # and on the same kernel made persistent by hand (bench/matmul_persistent.nr: a pipelined
  # K loop inside a loop over tiles), and its tf32 tiles (test_gpu_dot's fp32 cases: B
  # staged K-major through registers), with this GPU's own code (wgmma on a Hopper) and
  # with sm_80's (mma.sync, ldmatrix)
  for arch in "" sm_80; do
    for tool in memcheck racecheck; do
      run "$tool-matmul-configs${arch:+-$arch}" env ${arch:+NEREID_ARCH=$arch} \
        "$CS" --tool $tool --error-exitcode 1 "$B/gpu-tests/test_gpu_dot" \
        --filter "examples/matmul.nr|bench/matmul_persistent.nr"
      run "$tool-tf32-configs${arch:+-$arch}" env ${arch:+NEREID_ARCH=$arch} \
        "$CS" --tool $tool --error-exitcode 1 "$B/gpu-tests/test_gpu_dot" --filter "dot fp32"
    done
  done
else
  rows+=("compute-sanitizer not found: memcheck/racecheck not run")
fi
[ -n "${EXTRA:-}" ] && eval "$EXTRA"
echo "GPU: $(cat "$OUT/gpu.txt")"
printf '%s\n' "${rows[@]}"
