#!/usr/bin/env bash
# gpu-multi.sh [BUILD] [PART] - on a machine with several GPUs (docs/gpu.md section 9):
#   c       test_gpu_multi (peer copies where the GPUs allow them, then with
#           NEREID_PEER_ACCESS=0: staged copies), and the examples on every GPU
#           (NEREID_DEVICE=cuda:N)
#   python  the Python package's GPU tests (its several-GPU class among them), then
#           tests/gpu/test_ddp.py: torchrun with 2 ranks (NCCL) against one process
#   all     both (the default)
# Logs under $OUT (or /tmp/nereid-gpu-multi), a table last. Each part runs in well under
# five minutes on two GPUs; every program has a time limit of its own.
set -u
B=${1:-build-gpu}
PART=${2:-all}
OUT=${OUT:-/tmp/nereid-gpu-multi}
mkdir -p "$OUT"
NEREID_CACHE_DIR=$(mktemp -d /tmp/nereid-gpu-multi-cache-XXXXXX)
export NEREID_CACHE_DIR NEREID_REQUIRE_GPU=1
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader > "$OUT/gpus.txt" 2>&1
nvidia-smi topo -m > "$OUT/topo.txt" 2>&1
ngpu=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
rows=()
run() { # name, seconds, command...
  local name=$1 limit=$2; shift 2
  local t0 t1 r
  t0=$(date +%s.%N)
  if timeout "$limit" "$@" > "$OUT/$name.log" 2>&1; then r=OK; else r="FAIL($?)"; fi
  t1=$(date +%s.%N)
  rows+=("$(printf "%-30s %-8s %7.2fs  %s" "$name" "$r" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" \
    "$(grep -v '^ *$' "$OUT/$name.log" | tail -n 1 | cut -c1-90)")")
}
if [ "$PART" = c ] || [ "$PART" = all ]; then
  run test_gpu_multi 150 "$B/gpu-tests/test_gpu_multi"
  run test_gpu_multi-staged 150 env NEREID_PEER_ACCESS=0 NEREID_TEST_EXPECT_PATH=staged "$B/gpu-tests/test_gpu_multi"
  for ((d = 0; d < ngpu && d < 8; d++)); do
    for e in vector_add softmax matmul layer_norm; do
      [ -x "$B/examples/$e" ] && run "ex-$e-cuda$d" 60 env NEREID_DEVICE="cuda:$d" "$B/examples/$e" --quiet
    done
  done
fi
if [ "$PART" = python ] || [ "$PART" = all ]; then
  run python-test_gpu 150 env PYTHONPATH="$B/python" python3 python/tests/run.py test_gpu
  run test_ddp 230 python3 tests/gpu/test_ddp.py --build "$B" --nproc 2 --timeout 100 --out "$OUT/ddp"
fi
rm -rf "$NEREID_CACHE_DIR"
echo "GPUs:"
sed 's/^/  /' "$OUT/gpus.txt"
[ -f "$OUT/test_gpu_multi.log" ] && sed -n '/^part /,/^test_gpu_multi:/p' "$OUT/test_gpu_multi.log"
[ -f "$OUT/test_ddp.log" ] && grep -E "^(ranks agree|disk cache|one process|2 ranks|MULTI|FAILED)" "$OUT/test_ddp.log"
printf '%s\n' "${rows[@]}"
