"""nereid.inductor: the Triton kernels torch.compile's Inductor generates, compiled and
launched by Nereid instead of Triton.

    import nereid.inductor
    nereid.inductor.enable()           # before the first torch.compile'd call runs
    ...
    nereid.inductor.stats()            # {"kernels": N, "compile_seconds": S, "fallbacks": [...]}

or NEREID_INDUCTOR=1 (NEREID_INDUCTOR=fallback: enable(fallback=True)) in the environment
of a program that imports nereid.inductor. Inductor still writes the kernels (its
pointwise kernels, reductions, persistent reductions, scans, templates) in Triton's
language, with its heuristics and its autotuning over configurations; each configuration
is compiled by Nereid (the kernel's source, the helpers it calls from torch's
triton_helpers and libdevice, its signature and constexpr values, as Inductor hands them
to Triton) and launched through Nereid on torch's current stream, which is the stream
Inductor passes.

The one place this touches Inductor's internals is CachingAutotuner._precompile_config
(torch/_inductor/runtime/triton_heuristics.py), replaced by enable(); check_hook() fails
loudly when a torch release moves what it relies on. Inductor's compile workers are not
used (compile_threads = 1): Nereid compiles in the calling process in milliseconds.

A kernel Nereid cannot compile raises its CompileError, unless enable(fallback=True):
then that configuration is compiled by Triton and stats()["fallbacks"] lists it (kernel
name and reason), and a warning says so; nothing falls back silently.
"""
import os
import threading
import time
import warnings

from . import _jit, _runtime, _nereid

_state = {"enabled": False, "fallback": False, "kernels": 0, "compile_seconds": 0.0, "first_launch_seconds": 0.0,
          "fallbacks": [], "original": None}
_lock = threading.Lock()

# what enable() relies on in torch._inductor.runtime.triton_heuristics
_NEEDED = {"CachingAutotuner": ("_precompile_config", "_create_compile_meta", "fn", "device_props"),
           "CompileResult": ("_gen_launcher_code", "_get_arg_lists")}


def check_hook():
    """Raise RuntimeError naming what is missing if this torch's Inductor no longer has the
    classes and methods enable() replaces and calls."""
    try:
        import torch._inductor.runtime.triton_heuristics as th
    except ImportError as e:
        raise RuntimeError(f"nereid.inductor: torch's Inductor cannot be imported: {e}") from None
    missing = []
    for cls, attrs in _NEEDED.items():
        c = getattr(th, cls, None)
        if c is None:
            missing.append(cls)
            continue
        for a in attrs:
            if a in ("fn", "device_props"):  # instance attributes, set in __init__
                import inspect
                if f"self.{a}" not in inspect.getsource(c.__init__):
                    missing.append(f"{cls}.{a}")
            elif not hasattr(c, a):
                missing.append(f"{cls}.{a}")
    if not hasattr(th, "get_constexprs") and not hasattr(getattr(th, "triton_helpers", None), "get_constexprs"):
        missing.append("get_constexprs")
    if missing:
        raise RuntimeError("nereid.inductor: this torch's Inductor lacks " + ", ".join(missing) +
                           " (torch._inductor.runtime.triton_heuristics); nereid.inductor needs updating for it")
    return th


def stats():
    """What Nereid did since enable(): kernels (configurations compiled), compile_seconds
    (their front-end compiles plus their first launches, which make the GPU code),
    fallbacks (kernel name, reason) when enable(fallback=True)."""
    with _lock:
        return {"kernels": _state["kernels"], "compile_seconds": _state["compile_seconds"] +
                _state["first_launch_seconds"], "fallbacks": list(_state["fallbacks"])}


def enable(fallback=False):
    """Make Inductor's Triton kernels compile and launch through Nereid from now on (in this
    process). fallback=True lets a configuration Nereid cannot compile go to Triton,
    reported in stats() and by a warning."""
    th = check_hook()
    import torch._inductor.config as icfg
    icfg.compile_threads = 1
    with _lock:
        _state["fallback"] = bool(fallback)
        if _state["enabled"]:
            return
        _state["original"] = th.CachingAutotuner._precompile_config
        th.CachingAutotuner._precompile_config = _precompile_config
        _state["enabled"] = True


def disable():
    """Give the kernels compiled from now on back to Triton."""
    import torch._inductor.runtime.triton_heuristics as th
    with _lock:
        if _state["enabled"]:
            th.CachingAutotuner._precompile_config = _state["original"]
            _state["enabled"] = False


def _precompile_config(self, cfg):
    """CachingAutotuner._precompile_config, through Nereid."""
    if getattr(self.device_props, "type", "cuda") != "cuda":
        return _state["original"](self, cfg)
    t = time.perf_counter()
    try:
        result = _compile(self, cfg)
    except Exception as e:  # noqa: BLE001 - reported, then raised or given to Triton
        if not _state["fallback"]:
            raise
        name = self.inductor_meta.get("kernel_name", getattr(self.fn, "__name__", "?"))
        reason = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        with _lock:
            _state["fallbacks"].append((name, reason))
        warnings.warn(f"nereid.inductor: {name} compiled by Triton: {reason}", stacklevel=2)
        return _state["original"](self, cfg)
    with _lock:
        _state["kernels"] += 1
        _state["compile_seconds"] += time.perf_counter() - t
    return result


def _compile(autotuner, cfg):
    import torch._inductor.runtime.triton_heuristics as th

    meta = autotuner._create_compile_meta(cfg)
    fn = autotuner.fn
    jf = _jit._as_jit(fn)
    if jf is None:
        raise TypeError(f"nereid.inductor: {fn!r} is not a @triton.jit function")
    sig, constants = meta["signature"], dict(meta["constants"])
    # the source with each parameter typed as the signature says (a parameter the signature
    # calls constexpr becomes one, its value among the constants)
    text, filename = jf.source({k: v for k, v in sig.items()})
    index = getattr(autotuner.device_props, "index", None) or 0
    ctx = _runtime.context((_nereid.DEVICE_CUDA, index))
    defines = {k: v for k, v in constants.items() if k in sig or k in jf.arg_names}
    module = _runtime.CompiledModule(ctx, text, filename, defines, meta["num_warps"], meta["num_stages"])
    kernel = module.kernels[jf.__name__]
    runtime = [i for i, name in enumerate(fn.arg_names)
               if sig.get(name, "constexpr") != "constexpr" and name not in constants]
    return _result_class(th)(kernel, cfg, meta, autotuner.inductor_meta, fn, runtime)


_classes = {}


def _result_class(th):
    cls = _classes.get(th)
    if cls is not None:
        return cls

    class NereidCompileResult(th.CompileResult):
        """One configuration compiled by Nereid: make_launcher() gives Inductor the
        launcher(*args, stream) it calls, with the grid Inductor computes."""

        def __init__(self, kernel, config, compile_meta, inductor_meta, fn, runtime):
            super().__init__(_KernelInfo(kernel, compile_meta), config, compile_meta, inductor_meta)
            self.nereid_kernel, self.fn, self.runtime = kernel, fn, runtime

        def make_launcher(self):
            get_constexprs = getattr(th, "get_constexprs", None) or th.triton_helpers.get_constexprs
            call_args, def_args, _ = self._get_arg_lists(self.fn.arg_names, get_constexprs(self.fn))
            kernel, runtime, info = self.nereid_kernel, self.runtime, self.kernel
            names = list(self.fn.arg_names)
            positions = {n: i for i, n in enumerate(names)}
            # call_args name every parameter (a constant as its value's text); keep the runtime ones
            pick = [call_args.index(names[i]) if names[i] in call_args else positions[names[i]] for i in runtime]
            first = [True]
            launches = {}  # grid -> kernel[grid], made once per grid
            prefix = len(pick) if pick == list(range(len(pick))) else -1  # the usual case: no copy

            def runner(grid_0, grid_1, grid_2, stream, *args):
                grid = (grid_0, grid_1, grid_2)
                launch = launches.get(grid)
                if launch is None:
                    launch = launches[grid] = kernel[grid]
                if first[0]:  # the first launch makes the GPU code: counted as compile time
                    t = time.perf_counter()
                    launch(*[args[i] for i in pick])
                    with _lock:
                        _state["first_launch_seconds"] += time.perf_counter() - t
                    first[0] = False
                    info.refresh()
                elif prefix >= 0:
                    launch(*args[:prefix])
                else:
                    launch(*[args[i] for i in pick])

            runner_args = ["grid_0", "grid_1", "grid_2", "stream", *call_args]
            import math

            import torch
            scope = {"runner": runner, "grid_meta": self.config.kwargs, "math": math, "torch": torch}
            launcher = self._gen_launcher_code(scope, def_args, runner_args)
            launcher.config = self.config
            launcher.n_regs = None  # known after the first launch (info.n_regs)
            launcher.n_spills = None
            launcher.shared = 0
            launcher.cache_hash = info.hash
            launcher.store_cubin = False
            launcher.fn = self.fn
            launcher.bin = info
            return launcher

    _classes[th] = NereidCompileResult
    return NereidCompileResult


class _KernelInfo:
    """What Inductor reads of a compiled kernel (CompileResult.kernel): its hash, name,
    warps and, once it ran, registers and spills."""

    def __init__(self, kernel, meta):
        self._kernel = kernel
        self.hash = "nereid-%x" % (hash((kernel.__name__, repr(sorted(meta["constants"].items())),
                                         meta["num_warps"], meta["num_stages"])) & (2**64 - 1))
        self.num_warps, self.num_stages = meta["num_warps"], meta["num_stages"]
        self.n_regs = self.n_spills = None
        self.shared = 0
        self.metadata = self
        self.name = kernel.__name__

    def refresh(self):
        try:
            m = self._kernel.metadata
            self.n_regs, self.n_spills = getattr(m, "n_regs", None), getattr(m, "n_spills", None)
            self.shared = getattr(m, "shared", 0)
        except Exception:  # noqa: BLE001 - only informative
            pass


if os.environ.get("NEREID_INDUCTOR", "") not in ("", "0"):
    enable(fallback=os.environ.get("NEREID_INDUCTOR") == "fallback")
