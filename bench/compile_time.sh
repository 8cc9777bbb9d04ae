#!/usr/bin/env bash
# compile_time.sh [RUNS] - source-to-PTX compile time of every example kernel, with the CLI.
#
# For each kernel: `nereid compile FILE -k KERNEL -D ... --emit=ptx --time -o /dev/null`,
# RUNS times (default 5); the medians of each stage that --time reports (front end =
# parse+stdlib + sema + passes; the GPU passes; building the LLVM IR; LLVM's O3 pipeline;
# PTX emission), of its total, and of the whole process's wall time (which adds process
# start-up and LLVM's initialisation). The specialisation is the CLI's default: pointers
# 16-byte aligned, no integer facts; the num_warps is the one the benchmarks use. No GPU
# is needed (the driver's PTX JIT, which the runtime adds at the first launch, is not
# counted here). Run from the repository root; NEREID_BIN picks the binary (default
# build/nereid, else build-gpu/nereid).
set -u
cd "$(dirname "$0")/.."
RUNS=${1:-5}
N=${NEREID_BIN:-build/nereid}
[ -x "$N" ] || N=build-gpu/nereid
[ -x "$N" ] || { echo "compile_time.sh: no nereid binary (make all, or set NEREID_BIN)"; exit 1; }

# file | kernel | num_warps | defines
KERNELS=(
  "examples/vector_add.nr|add_kernel|4|BLOCK_SIZE=1024"
  "examples/dropout.nr|_dropout|4|BLOCK_SIZE=1024"
  "examples/dropout.nr|_seeded_dropout|4|BLOCK_SIZE=1024"
  "bench/dropout4x.nr|_seeded_dropout4x|4|BLOCK=1024"
  "examples/matrix_dropout.nr|_matrix_seeded_dropout|4|BLOCK_SIZE=256"
  "examples/softmax.nr|softmax_kernel|4|BLOCK_SIZE=1024 num_stages=1"
  "examples/softmax.nr|softmax_kernel|16|BLOCK_SIZE=16384 num_stages=1"
  "examples/layer_norm.nr|_layer_norm_fwd_fused|4|BLOCK_SIZE=256"
  "examples/matmul.nr|matmul_kernel|4|BLOCK_SIZE_M=64 BLOCK_SIZE_N=64 BLOCK_SIZE_K=32 GROUP_SIZE_M=8 ACTIVATION=leaky_relu"
)

median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "compile time, source to PTX, median of $RUNS runs: $($N --version), $(uname -m), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//'))"
printf "%-64s %5s %9s %9s %9s %9s %9s %9s %10s\n" "kernel (file, defines)" "warps" "front" "gpu pass" "llvm ir" "llvm opt" "ptx" "total" "process"
fail=0
for spec in "${KERNELS[@]}"; do
  IFS='|' read -r file kernel warps defs <<< "$spec"
  args=(compile "$file" -k "$kernel" --num-warps="$warps" --emit=ptx --time -o /dev/null)
  for d in $defs; do args+=(-D "$d"); done
  : > /tmp/nereid-ct.$$
  for ((i = 0; i < RUNS; i++)); do
    t0=$(date +%s%N)
    if ! line=$("$N" "${args[@]}" 2>&1 >/dev/null | grep 'nereid: time (ms)'); then
      echo "FAILED: $N ${args[*]}"; "$N" "${args[@]}" 2>&1 | head -5; fail=1; break
    fi
    t1=$(date +%s%N)
    # "nereid: time (ms): parse+stdlib A, sema B, passes C, gpu passes D, llvm ir E, llvm opt F, ptx G; total H"
    echo "$line" | awk -v wall="$(( (t1 - t0) / 1000 ))" '{
      gsub(/[,;]/, " ");
      for (i = 1; i <= NF; i++) {
        if ($i == "parse+stdlib") a = $(i+1); if ($i == "sema") b = $(i+1);
        if ($i == "passes" && $(i-1) != "gpu") c = $(i+1); if ($i == "passes" && $(i-1) == "gpu") d = $(i+1);
        if ($i == "ir" && $(i-1) == "llvm") e = $(i+1); if ($i == "opt" && $(i-1) == "llvm") f = $(i+1);
        if ($i == "ptx") g = $(i+1); if ($i == "total") h = $(i+1);
      }
      printf "%f %f %f %f %f %f %f\n", a + b + c, d, e, f, g, h, wall / 1000.0 }' >> /tmp/nereid-ct.$$
  done
  cols=()
  for c in 1 2 3 4 5 6 7; do cols+=("$(awk -v c=$c '{print $c}' /tmp/nereid-ct.$$ | median)"); done
  name="$(basename "$file") $kernel $defs"
  printf "%-64.64s %5s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %10.2f\n" "$name" "$warps" "${cols[@]}"
done
rm -f /tmp/nereid-ct.$$
echo "(ms; front = parse+stdlib + sema + passes; process = the whole nereid command's wall time)"
exit $fail
