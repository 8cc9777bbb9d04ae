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
# the Python package (python/): Debian's python3 with its headers, NumPy for the tests on
# the CPU device, setuptools and pip for `pip install ./python`
[ -x /usr/bin/python3 ] || need+=(python3)
[ -f "$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h" ] || need+=(python3-dev)
/usr/bin/python3 -c 'import numpy' 2>/dev/null || need+=(python3-numpy)
# pytest: the drop-in's pytest plugin is tested under it (python/tests/test_dropin.py)
/usr/bin/python3 -c 'import pytest' 2>/dev/null || need+=(python3-pytest)
/usr/bin/python3 -c 'import setuptools' 2>/dev/null || need+=(python3-setuptools)
/usr/bin/python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
command -v pkg-config >/dev/null || need+=(pkg-config)
# the formatter the tree is checked against (tools/check-format.sh: Debian 12's, version 14)
command -v clang-format-14 >/dev/null || command -v clang-format >/dev/null || need+=(clang-format)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
