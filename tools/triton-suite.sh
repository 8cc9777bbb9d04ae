#!/usr/bin/env bash
# triton-suite.sh - Triton's own language tests and tutorials (not ours: fetched into
# third_party/triton-suite/, git-ignored) through Triton and through Nereid on the same GPU,
# compared as shared/design/conformance.md asks (tools/triton_suite.py has the rules).
#
#   bash tools/triton-suite.sh fetch [--repo DIR]     here: extract the files at Triton 3.6.0's
#                                                      commit (from TRITON_REPO, or the mirror),
#                                                      and each library of LIBS (default: liger,
#                                                      Liger-Kernel's sources and op-level tests;
#                                                      also flaggems, attorch) into third_party/libsuite/
#   bash tools/triton-suite.sh run [--max-params N] [--shard I/N] [--files a.py,b.py] [--deadline S] [--points N]
#                                                      on the GPU machine: both runs, then the table
#   bash tools/triton-suite.sh report                 the table again (TRITON_SUITE_OUT, default /tmp/triton-suite)
#
# LIBS='' leaves the libraries out; SKIP_TUTORIALS=1 the tutorials.
# On the GPU machine carry third_party/triton-suite, third_party/libsuite and build-gpu (PYTHONPATH is set to
# build-gpu/python here); the runs need pytest, pytest-xdist and pytest-timeout there.
set -u
cd "$(dirname "$0")/.."
OUT=${TRITON_SUITE_OUT:-/tmp/triton-suite}
PY=${PYTHON:-python3}
export PYTHONPATH="$(pwd)/${NEREID_PY:-build-gpu/python}${PYTHONPATH:+:$PYTHONPATH}"
cmd=${1:-run}; shift || true
case "$cmd" in
  fetch)
    "$PY" tools/triton_suite.py fetch "$@" || exit 1
    for lib in ${LIBS-liger}; do "$PY" tools/triton_suite.py fetch-lib "$lib" || exit 1; done ;;
  report) exec "$PY" tools/triton_suite.py report --out "$OUT" "$@" ;;
  run)
    tests=() tuts=()
    while [ $# -gt 0 ]; do
      case "$1" in
        --max-params|--shard|--files|--workers|--deadline) tests+=("$1" "$2"); shift 2 ;;
        --points|--only) tuts+=("$1" "$2"); shift 2 ;;
        *) echo "triton-suite.sh: unknown option $1" >&2; exit 2 ;;
      esac
    done
    for mode in triton nereid; do
      "$PY" tools/triton_suite.py tests --mode "$mode" --out "$OUT" "${tests[@]}"
    done
    lib_opts=()
    for ((i = 0; i < ${#tests[@]}; i += 2)); do
      [ "${tests[i]}" = --files ] || lib_opts+=("${tests[i]}" "${tests[i+1]}")
    done
    for lib in ${LIBS-liger}; do
      for mode in triton nereid; do
        "$PY" tools/triton_suite.py libtests "$lib" --mode "$mode" --out "$OUT" --timeout 120 "${lib_opts[@]}"
      done
    done
    if [ "${SKIP_TUTORIALS:-0}" != 1 ]; then
      for mode in triton nereid; do
        "$PY" tools/triton_suite.py tutorials --mode "$mode" --out "$OUT" "${tuts[@]}"
      done
    fi
    "$PY" tools/triton_suite.py report --out "$OUT" -v ;;
  *) echo "triton-suite.sh: fetch, run or report" >&2; exit 2 ;;
esac
