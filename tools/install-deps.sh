#!/usr/bin/env bash
# install-deps.sh [--fuzz] - install the Debian 12 packages Nereid needs, only those
# missing. --fuzz also installs clang and its libFuzzer runtime (`make fuzz-ci`,
# tests/fuzz/build.sh).
set -euo pipefail
need=()
if [ "${1:-}" = --fuzz ]; then
  command -v clang >/dev/null || need+=(clang)
  ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
fi
command -v flex >/dev/null || need+=(flex)
command -v bison >/dev/null || need+=(bison)
[ -x /usr/lib/llvm-19/bin/llvm-config ] || need+=(llvm-19-dev)
[ -x /usr/lib/llvm-19/bin/FileCheck ] && [ -f /usr/lib/llvm-19/build/utils/lit/lit.py ] || need+=(llvm-19-tools)
command -v cc >/dev/null || need+=(gcc)
# g++ brings libstdc++'s development files: the link against LLVM and `make gpu-build`
# (-static-libstdc++) need them
command -v g++ >/dev/null && [ -n "$(g++ -print-file-name=libstdc++.a | grep /)" ] || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
