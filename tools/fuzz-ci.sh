#!/usr/bin/env bash
# fuzz-ci.sh [SECONDS] - CI's fuzzing (`make fuzz-ci`, run by .ci/run after `make test`):
# builds the libFuzzer harnesses (tests/fuzz/build.sh, ASan+UBSan) into build-fuzz/ and
# runs each for SECONDS (default 60, or $FUZZ_SECONDS), starting from the regression
# corpus tests/fuzz/corpus/HARNESS (read only: new inputs go to a scratch folder). A
# finding (crash, sanitizer report, leak, timeout, out of memory, an unlocated or
# internal error) fails the run; the input is kept in build-fuzz/findings/ and the
# message says how to reproduce it and that it joins the corpus with the fix
# (tests/fuzz/README.md).
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-${FUZZ_SECONDS:-60}}
out=build-fuzz
rm -rf "$out/findings"
mkdir -p "$out/findings"
if ! bash tests/fuzz/build.sh "$out" >"$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log"
  echo "fuzz-ci: building the harnesses failed (log: $out/build.log)"
  exit 1
fi
failed=()
for h in compile ir; do
  dict=tests/fuzz/nr.dict
  [ "$h" = ir ] && dict=tests/fuzz/ir.dict
  scratch=$(mktemp -d)
  log="$out/fuzz_$h.log"
  echo "fuzz-ci: fuzz_$h for ${secs}s from tests/fuzz/corpus/$h ($(ls tests/fuzz/corpus/$h | wc -l) inputs)"
  "$out/fuzz_$h" "$scratch" "tests/fuzz/corpus/$h" -max_total_time="$secs" -timeout=25 -rss_limit_mb=4096 \
    -max_len=4096 -dict="$dict" -artifact_prefix="$out/findings/$h-" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::new_units_added)' "$log" | sed 's/^/    /'
  if [ $rc != 0 ]; then
    failed+=("fuzz_$h")
    echo "FAIL: fuzz_$h found a problem (exit status $rc); the end of its log ($log):"
    tail -n 60 "$log" | sed 's/^/    /'
    for f in "$out/findings/$h-"*; do
      [ -f "$f" ] || continue
      echo "  input: $f; reproduce: $out/fuzz_$h $f (or NEREID_FUZZ_VERBOSE=1 build-san/fuzz/replay_$h $f);"
      echo "  fix it, then add it (minimised: $out/fuzz_$h -minimize_crash=1 -runs=20000 $f) to tests/fuzz/corpus/$h/"
    done
  fi
  rm -rf "$scratch"
done
if [ ${#failed[@]} -gt 0 ]; then echo "fuzz-ci: FAILED: ${failed[*]}"; exit 1; fi
echo "fuzz-ci: ${secs}s each of fuzz_compile and fuzz_ir, no finding"
