#!/usr/bin/env python3
"""inductor_check.py - compile the Triton kernels torch.compile's Inductor generated
(saved on the GPU machine by bench/inductor_cold_start.py --dump) with Nereid to PTX here,
without torch or a GPU: each kernel's module is imported under nereid.dropin (Triton made
of Nereid's pieces), with torch's own triton_helpers.py (from a torch installation's
torch/_inductor/runtime, fetched, kept out of the repository) and stand-ins for the rest of
torch that the kernels' modules import (the heuristics decorators record what they are
given). Each kernel is then compiled for its signature, as Inductor would give it to
Triton, at one configuration per kernel kind, with `nereid compile --emit=ptx` (and ptxas
with --ptxas).

    python3 tools/inductor_check.py --runtime DIR --kernels DIR [--ptxas] [-v] [--runs N]
                                    [--emit gpu-ir] [--keep DIR]

--runtime: a copy of torch/_inductor/runtime (triton_helpers.py is read from it).
Prints one line per failing kernel and a summary; exits 1 if any failed. --runs N
instead times each kernel's compile inside one process, as nereid.inductor compiles it
(the stand-in CUDA driver of `make`, build/mock, stands in for the GPU).
"""
import argparse
import enum
import glob
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDED = []


def _stub_torch(runtime_dir):
    """torch, torch._inductor.runtime.{triton_compat, triton_helpers, triton_heuristics,
    hints}: the helpers are torch's own file; the rest stand-ins."""
    import triton
    import triton.language as tl

    def mod(name, **attrs):
        m = types.ModuleType(name)
        m.__path__ = []
        m.__dict__.update(attrs)
        sys.modules[name] = m
        return m

    torch = mod("torch", version=types.SimpleNamespace(hip=None, cuda="13.0"))
    inductor = mod("torch._inductor")
    runtime = mod("torch._inductor.runtime")
    torch._inductor, inductor.runtime = inductor, runtime

    def _log2(x):
        raise NotImplementedError

    compat = mod("torch._inductor.runtime.triton_compat", triton=triton, tl=tl, libdevice=tl.extra.libdevice,
                 math=tl.math, JITFunction=triton.JITFunction, _log2=_log2, builtins_use_semantic_kwarg=False,
                 Config=triton.Config)
    runtime.triton_compat = compat

    class DeviceProperties(types.SimpleNamespace):
        pass

    class ReductionHint(enum.Enum):
        INNER, OUTER, OUTER_TINY, DEFAULT = range(4)

    class TileHint(enum.Enum):
        SQUARE, DEFAULT = range(2)

    class AutotuneHint(enum.Enum):
        ONE_ELEMENT_PER_THREAD = 0

    runtime.hints = mod("torch._inductor.runtime.hints", DeviceProperties=DeviceProperties,
                        ReductionHint=ReductionHint, TileHint=TileHint, AutotuneHint=AutotuneHint)

    def heuristic(kind):
        def deco(*args, **kw):
            def wrap(fn):
                RECORDED.append((kind, fn, kw))
                return fn
            return wrap
        return deco

    runtime.triton_heuristics = mod("torch._inductor.runtime.triton_heuristics", **{
        k: heuristic(k) for k in ("pointwise", "reduction", "persistent_reduction", "template", "split_scan",
                                  "foreach", "user_autotune", "cooperative_reduction", "fixed_config")})
    spec = importlib.util.spec_from_file_location("torch._inductor.runtime.triton_helpers",
                                                  os.path.join(runtime_dir, "triton_helpers.py"))
    helpers = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = helpers
    spec.loader.exec_module(helpers)
    helpers.set_driver_to_gpu = helpers.set_driver_to_cpu = lambda: None  # Triton's driver choice
    runtime.triton_helpers = helpers


def _blocks(kind, fn, kw):
    """One configuration of the kernel's block constexprs, as Inductor's heuristics pick
    for the sizes it hints."""
    hints = kw.get("size_hints", {}) or {}
    sig = kw["triton_meta"]["signature"]
    out = {}
    for name, ty in sig.items():
        if ty != "constexpr":
            continue
        if name in kw["triton_meta"].get("constants", {}):
            out[name] = kw["triton_meta"]["constants"][name]
            continue
        dim = name[:-len("BLOCK")].lower() if name.endswith("BLOCK") else None
        dim = {"r0_": "r0_", "r1_": "r1_"}.get(dim, dim)
        hint = hints.get(dim, hints.get(dim.rstrip("_") + "_" if dim else "", 1024)) if dim else None
        if hint is None:
            continue
        if kind == "pointwise":
            cap = 1024 if len(hints) == 1 else 32
        elif kind == "persistent_reduction":
            cap = 8 if dim == "x" else hint
        else:
            cap = 8 if dim == "x" else 2048
        v = 1
        while v < min(hint, cap):
            v *= 2
        out[name] = v
    for name in ("RSPLIT_SIZE", "NUM_STAGES"):  # the mix-order reductions' (inductor_meta has the first)
        if sig.get(name) == "constexpr" and name not in out:
            out[name] = kw.get("inductor_meta", {}).get(name, 1)
    return out


_TORCH_NAMES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp64": "float64", "i8": "int8",
                "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "i1": "bool"}


class _DType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


class _StandIn:
    """What a launch reads of a CUDA tensor; never dereferenced (the stand-in driver runs
    nothing)."""

    def __init__(self, ptr, dtype):
        self._ptr, self.dtype, self.is_cuda = ptr, dtype, True

    def data_ptr(self):
        return self._ptr

    def get_device(self):
        return 0


def in_process(args, kernels):
    """Each kernel compiled to PTX inside this process, as nereid.inductor compiles it
    (the front end, then the GPU code at the first launch, on the stand-in driver): the
    first compile and the median of --runs more, each on a fresh disk cache."""
    import ctypes
    import statistics
    from nereid import _nereid, _runtime
    mock = os.path.join(ROOT, args.build, "mock", "libcuda.so.1")
    os.environ.setdefault("CUDA_MOCK_CC", "90")
    ctypes.CDLL(mock, mode=ctypes.RTLD_GLOBAL)
    ctx = _runtime.context((_nereid.DEVICE_CUDA, 0))
    base = tempfile.mkdtemp(prefix="inductor-ct-")
    meds, firsts = [], []
    for j, (kind, name, text, filename, sig, defines, warps) in enumerate(kernels):
        launch_args, ptr = [], 1 << 24
        for pname, ty in sig.items():
            if ty == "constexpr" or pname in defines:
                continue
            if ty.startswith("*"):
                launch_args.append(_StandIn(ptr, _DType(_TORCH_NAMES.get(ty[1:], ty[1:]))))
                ptr += 1 << 24
            else:
                launch_args.append(1024 if ty.startswith("i") or ty.startswith("u") else 1.0)
        times = []
        for i in range(args.runs + 1):
            os.environ["NEREID_CACHE_DIR"] = os.path.join(base, "%d-%d" % (j, i))
            t = time.perf_counter()
            mod = _runtime.CompiledModule(ctx, text, filename, defines, warps, None)
            mod.kernels[name][(1, 1, 1)](*launch_args)
            times.append((time.perf_counter() - t) * 1e3)
        firsts.append(times[0])
        meds.append(statistics.median(times[1:]))
        if args.verbose:
            print("%-8s %6.1f ms first, %6.1f ms median  %s" % (kind, times[0], meds[-1], name[:90]))
    meds.sort()
    print("in one process: %d kernels, compile median %.1f ms, 90th percentile %.1f ms, max %.1f ms, %d at most "
          "10 ms (first of the process %.1f ms)" % (len(meds), statistics.median(meds), meds[int(len(meds) * 0.9)],
                                                    meds[-1], sum(m <= 10 for m in meds), firsts[0]))


def check(args):
    sys.path.insert(0, os.path.join(ROOT, args.build, "python"))
    import nereid.dropin
    nereid.dropin.install()
    _stub_torch(args.runtime)
    from nereid import _jit
    files = sorted(glob.glob(os.path.join(args.kernels, "**", "*.py"), recursive=True))
    nereid_bin = os.path.join(ROOT, args.build, "nereid")
    fails, n, times, compiled = [], 0, [], []
    tmp = args.keep or tempfile.mkdtemp(prefix="inductor-check-")
    os.makedirs(tmp, exist_ok=True)
    for path in files:
        RECORDED.clear()
        name = "k_" + os.path.basename(path)[:-3]
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            m = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(m)
        except Exception as e:  # noqa: BLE001 - reported per kernel
            fails.append((path, "import: %s: %s" % (type(e).__name__, e)))
            continue
        for kind, fn, kw in RECORDED:
            n += 1
            jf = _jit._as_jit(fn)
            sig = kw["triton_meta"]["signature"]
            annotate = dict(sig)  # a bare parameter the signature calls constexpr becomes one
            divisible = [list(sig)[i[0]] for i in (kw["triton_meta"].get("configs") or [{}])[0]]
            blocks = _blocks(kind, fn, kw)
            text, _ = jf.source(annotate)
            src = os.path.join(tmp, jf.__name__ + ".nr")  # Nereid's language, not a Python program
            with open(src, "w") as f:
                f.write(text)
            cmd = [nereid_bin, "compile", src, "-k", jf.__name__, "--arch=sm_90a", "--emit=" + args.emit, "-o",
                   src[:-3] + "." + args.emit, "--num-warps=%d" % (8 if kind != "pointwise" else 4)]
            for k, v in blocks.items():
                cmd += ["-D", "%s=%s" % (k, v)]
            ones = []
            for k, v in kw["triton_meta"].get("constants", {}).items():
                if k in blocks or k not in sig:
                    continue
                if sig[k] != "constexpr" and v == 1:  # a parameter Triton specialised as equal to 1
                    ones.append(k)
                else:
                    cmd += ["-D", "%s=%r" % (k, v)]
            if ones:
                cmd.append("--one=" + ",".join(ones))
            cmd += args.extra
            if divisible:
                cmd.append("--divisible=" + ",".join(divisible))
            defines = dict(blocks)
            defines.update({k: v for k, v in kw["triton_meta"].get("constants", {}).items() if k in sig})
            compiled.append((kind, jf.__name__, text, src, sig, defines, 8 if kind != "pointwise" else 4))
            if args.runs:
                continue
            t = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True)
            times.append(time.perf_counter() - t)
            if p.returncode == 0 and args.ptxas and args.emit == "ptx":
                p = subprocess.run(["/usr/local/cuda/bin/ptxas", "-arch=sm_90a", src[:-3] + ".ptx", "-o", os.devnull],
                                   capture_output=True, text=True)
            if p.returncode != 0:
                err = [l for l in (p.stderr or p.stdout).splitlines() if "error" in l] or (p.stderr or "?").splitlines()
                fails.append((path, "%s %s: %s" % (kind, jf.__name__, err[0][:300] if err else "?")))
            elif args.verbose:
                print("ok   %s %s %s" % (kind, jf.__name__, blocks))
    if args.runs:
        in_process(args, compiled)
        return 0
    for path, why in fails:
        print("FAIL %s: %s" % (os.path.basename(path), why))
    times.sort()
    print("%d files, %d kernels, %d compiled to PTX%s, %d failed; nereid compile (process) median %.0f ms" %
          (len(files), n, n - len(fails), " (and ptxas)" if args.ptxas else "", len(fails),
           1e3 * times[len(times) // 2] if times else 0))
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runtime", default=os.path.join(ROOT, "third_party/inductor/src/runtime"))
    ap.add_argument("--kernels", default=os.path.join(ROOT, "third_party/inductor/kernels"))
    ap.add_argument("--build", default="build")
    ap.add_argument("--ptxas", action="store_true")
    ap.add_argument("--emit", default="ptx", help="what nereid compile emits (ptx, gpu-ir, ...)")
    ap.add_argument("--keep", help="write each kernel's source and output into this folder")
    ap.add_argument("--extra", action="append", default=[], help="one more argument for nereid compile")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--runs", type=int, default=0,
                    help="instead: time each kernel's compile inside one process (stand-in driver), N runs")
    return check(ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
