#!/usr/bin/env python3
"""launch_overhead_mock.py - Nereid's own host cost per kernel launch from Python, measured
without a GPU: the CUDA device is the stand-in driver (tests/mock/cuda_mock.c, built by
`make build/mock/libcuda.so.1`), whose cuLaunchKernel runs nothing and costs about what a
function call costs, so what is timed is the launch path itself (binding, argument
conversion, the specialisation cache, the stream query, nr_launch, the driver call).

    make python build/mock/libcuda.so.1 build/nereid build/bench/launch_overhead
    python3 bench/launch_overhead_mock.py [--build build] [--launches N] [--repeat R]

(the script puts BUILD/python on sys.path and BUILD/mock first on LD_LIBRARY_PATH by
running itself again). The workload is bench/launch_overhead.py's: examples/vector_add.nr's
add_kernel with BLOCK_SIZE = 128, grid (1,), on stand-ins for torch tensors. A stand-in
has what a launch reads from a torch.Tensor, with C-level accessors as torch's are
(`is_cuda` and `dtype` are slot descriptors, `data_ptr` a C callable), and a stand-in
`torch` module answers the stream query (`torch._C._cuda_getCurrentRawStream`, a C
builtin here), so the Python-side costs match torch's in kind. Rows:

    nereid.compile, grid tuple     mod.add_kernel[(1,)](x, y, out, n)
    nereid.compile, grid lambda    mod.add_kernel[lambda meta: (1,)](x, y, out, n)
    @nereid.jit, grid tuple        the same kernel in Python, types from the arguments
    __cuda_array_interface__       objects with only the interface (CuPy's, Numba's)
    empty Python call              lambda: f(x, y, out, n) with f a C callable that looks at
                                   none of its arguments: the interpreter's own share

and from BUILD/bench/launch_overhead (C, its own process, on the mock): nr_launch and a
bare cuLaunchKernel. Each row: the median over R runs of N launches back to back.

With --instructions it counts instead of timing (repeatable on a busy machine): each row
runs under valgrind's callgrind twice, with N and 2N launches, and the difference of the
instructions executed, divided by N, is the row's instructions per launch, the Python
loop and the interpreter's call included (the "empty Python call" row is that share).
"""
import argparse
import itertools
import json
import operator
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class DType:
    """A stand-in for torch.dtype: hashed by identity, printed as torch prints it."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


float32 = DType("float32")


class Tensor:
    """What a launch reads from a torch.Tensor on the GPU: is_cuda, dtype, data_ptr()."""
    __slots__ = ("is_cuda", "dtype", "_ptr")
    data_ptr = operator.attrgetter("_ptr")  # a C callable of the tensor, as torch's method is

    def __init__(self, ptr, dtype=float32):
        self.is_cuda, self.dtype, self._ptr = True, dtype, ptr


class CudaArray:
    """An object with only __cuda_array_interface__ (as CuPy's and Numba's arrays)."""
    __slots__ = ("__cuda_array_interface__",)

    def __init__(self, ptr, n):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4", "data": (ptr, False), "version": 3}


def install_torch_stand_in():
    torch = types.ModuleType("torch")
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=operator.index)  # device index -> stream 0
    sys.modules["torch"] = torch


def per_launch_us(launch, n, repeat):
    launch()  # compiled and loaded before timing
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            launch()
        runs.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(runs), min(runs)


def c_bench(build, n):
    exe = os.path.join(build, "bench", "launch_overhead")
    if not os.access(exe, os.X_OK):
        return {}, f"{exe} not found (make {exe})"
    env = dict(os.environ, NEREID_BIN=os.path.join(build, "nereid"))
    out = subprocess.run([exe, str(n)], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    rows = {}
    for line in out.stdout.splitlines():
        m = re.match(r"^(nr_launch|cuLaunchKernel \(same PTX\)|cuCtxSetCurrent \+ cuLaunchKernel)\s+([0-9.]+)", line)
        if m:
            rows[m.group(1)] = float(m.group(2))
    last = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr.strip()
    return rows, last


ROWS = ["nereid.compile, grid tuple", "nereid.compile, grid lambda", "@nereid.jit, grid tuple",
        "nereid.compile, __cuda_array_interface__", "empty Python call (interpreter only)"]


def count_instructions(args):
    """Instructions per launch of each row: callgrind's totals for N and 2N launches."""
    def total(row, n):
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, os.path.abspath(__file__),
               "--build", args.build, "--launches", str(n), "--repeat", "1", "--only", row]
        env = dict(os.environ, PYTHONHASHSEED="0")  # the same dict layouts in every run
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=env)
        m = re.search(r"Collected : (\d+)", out.stderr)
        if not m:
            raise SystemExit(f"launch_overhead_mock: valgrind failed: {out.stderr[-2000:]}")
        return int(m.group(1))
    n = args.launches
    print(f"instructions per launch (callgrind, {n} and {2 * n} launches; Python {sys.version.split()[0]})")
    for row in ROWS:
        if args.only in row:
            total(row, 10)  # compiled and in the disk cache: both counts start alike
            per = (total(row, 2 * n) - total(row, n)) / n
            print(f"  {row:<48} {per:10.0f}", flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--launches", type=int, default=200000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", default="", help="run only the rows whose name contains this text")
    ap.add_argument("--instructions", action="store_true", help="count instructions per launch under callgrind")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    mock = os.path.join(build, "mock")
    if not os.path.exists(os.path.join(mock, "libcuda.so.1")):
        print(f"launch_overhead_mock: {mock}/libcuda.so.1 not found (make {args.build}/mock/libcuda.so.1)")
        return 1
    if os.environ.get("NEREID_MOCK_BENCH") != mock:  # the dynamic loader reads LD_LIBRARY_PATH at start only
        env = dict(os.environ, NEREID_MOCK_BENCH=mock, NEREID_CACHE_DIR=tempfile.mkdtemp(prefix="nereid-bench-"),
                   LD_LIBRARY_PATH=mock + (":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else ""))
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    if args.instructions:
        return count_instructions(args)
    sys.path.insert(0, os.path.join(build, "python"))
    install_torch_stand_in()
    import nereid
    import nereid.language as tl

    n_el, base = 128, 0x7f0000000000
    x, y, out = Tensor(base), Tensor(base + 4096), Tensor(base + 8192)
    rows = []

    def row(name, launch):
        if args.only in name:
            med, best = per_launch_us(launch, args.launches, args.repeat)
            rows.append((name, med, best))
            print(f"  {name:<44} {med:8.3f} us (best {best:.3f})", flush=True)

    mod = nereid.compile(os.path.join(ROOT, "examples", "vector_add.nr"), device="cuda", BLOCK_SIZE=128)
    assert "Mock GPU" in nereid.context("cuda").device_name, "not the stand-in driver"
    k = mod.add_kernel
    row("nereid.compile, grid tuple", lambda: k[(1,)](x, y, out, n_el))
    grid = lambda meta: (1,)  # noqa: E731
    row("nereid.compile, grid lambda", lambda: k[grid](x, y, out, n_el))

    @nereid.jit(device="cuda")
    def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        tl.store(output_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
                 mask=mask)
    row("@nereid.jit, grid tuple", lambda: add_kernel[(1,)](x, y, out, n_el, BLOCK_SIZE=128))

    cx, cy, cout = CudaArray(base, n_el), CudaArray(base + 4096, n_el), CudaArray(base + 8192, n_el)
    row("nereid.compile, __cuda_array_interface__", lambda: k[(1,)](cx, cy, cout, n_el))
    f = itertools.chain  # a C callable that takes four objects and looks at none of them
    row("empty Python call (interpreter only)", lambda: f(x, y, out, n_el))

    c_rows, c_note = ({}, "skipped (--only)") if args.only else c_bench(build, max(args.launches // 4, 10000))
    for name in ("nr_launch", "cuLaunchKernel (same PTX)", "cuCtxSetCurrent + cuLaunchKernel"):
        if name in c_rows:
            rows.append((f"C: {name}", c_rows[name], c_rows[name]))

    info = {"device": nereid.context("cuda").device_name, "launches": args.launches, "repeat": args.repeat,
            "python": sys.version.split()[0],
            "rows": [{"path": r[0], "us_per_launch": r[1], "best": r[2]} for r in rows], "c_bench": c_note}
    with open(os.path.join(os.environ.get("OUT", tempfile.gettempdir()), "launch_overhead_mock.json"), "w") as fp:
        json.dump(info, fp, indent=1)
    print(f"\nlaunch overhead on the stand-in driver ({info['device']}): add_kernel, grid (1,), "
          f"{args.launches} launches back to back, median of {args.repeat} runs; Python {info['python']}")
    print(f"{'path':<48} {'us/launch':>10} {'best':>8}")
    for name, us, best in rows:
        print(f"{name:<48} {us:10.3f} {best:8.3f}")
    print(f"C benchmark: {c_note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
