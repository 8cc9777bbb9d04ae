#!/usr/bin/env bash
# test-pip-install.sh BUILD - `pip install --no-build-isolation ./python` into a temporary
# folder (linking BUILD's library), then import the installed package from elsewhere and run
# a kernel on the CPU device with plain Python buffers (no NumPy needed).
set -eu
cd "$(dirname "$0")/.."
build=$(cd "$1" && pwd)
PY=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
if ! "$PY" -c 'import setuptools, pip' 2>/dev/null; then
  echo "SKIP: no setuptools/pip for $PY"
  exit 0
fi
rm -rf python/build  # setuptools would reuse an extension linked against an older library
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
NEREID_BUILD=$build PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore \
  "$PY" -m pip install -q --no-build-isolation --no-deps --target "$dir/site" ./python
cd "$dir"
PYTHONPATH=$dir/site "$PY" - <<'PYEOF'
import array, os, nereid
assert nereid.__file__.startswith(os.getcwd()), nereid.__file__
src = ("@triton.jit\n"
       "def k(x: *fp32, n: i32):\n"
       "    offs = tl.arange(0, 8)\n"
       "    tl.store(x + offs, offs.to(tl.float32) * n, mask=offs < n)\n")
m = nereid.compile(src, device="cpu")
a = array.array("f", [0.0] * 8)
m.k[(1,)](a, 5)
assert list(a) == [0.0, 5.0, 10.0, 15.0, 20.0, 0.0, 0.0, 0.0], list(a)
print("pip install: OK (nereid", nereid.__version__, "from", os.path.dirname(nereid.__file__) + ")")
PYEOF
