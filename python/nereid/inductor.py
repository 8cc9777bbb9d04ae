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

The places this touches Inductor's internals are CachingAutotuner._precompile_config
(torch/_inductor/runtime/triton_heuristics.py), and AsyncCompile.triton and .wait
(torch/_inductor/async_compile.py), replaced by enable(); check_hook() fails loudly when a
torch release moves what it relies on. Inductor's compile workers are not used
(compile_threads = 1): Nereid compiles in the calling process, and compiles a graph's
kernels together: AsyncCompile.triton only loads each kernel and returns a future; when
the graph's module waits for its kernels (or one of them is first used), the front ends of
every configuration of every pending kernel run at once (Context.compile_many), then
their GPU code (LLVM, PTX, the driver's JIT: prepare_many, for stand-in arguments of the
kernels' signatures: 16-byte aligned tensors and integers divisible by 16 where Inductor
says so), on NEREID_COMPILE_THREADS threads (default: every CPU) with the GIL released.
enable(batch=False) compiles each kernel when Inductor loads it instead.

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
          "fallbacks": [], "original": None, "batch": True, "async_original": None, "batches": 0,
          "batched_configs": 0}
_pending = []  # _Pending futures of the kernels loaded and not compiled yet
_ready = {}  # (source, defines, warps, stages) -> CompiledModule, compiled by a batch
_lock = threading.Lock()

# what enable() relies on in torch._inductor.runtime.triton_heuristics
_NEEDED = {"CachingAutotuner": ("_precompile_config", "_create_compile_meta", "fn", "device_props"),
           "CompileResult": ("_gen_launcher_code", "_get_arg_lists")}
# and in torch._inductor.async_compile (the batches)
_NEEDED_ASYNC = ("AsyncCompile.triton", "AsyncCompile.wait", "_load_triton_kernel_from_source")


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
    try:
        import torch._inductor.async_compile as ac
    except ImportError:
        ac = None
    for name in _NEEDED_ASYNC:
        obj = ac
        for part in name.split("."):
            obj = getattr(obj, part, None)
        if obj is None:
            missing.append(name)
    if missing:
        raise RuntimeError("nereid.inductor: this torch's Inductor lacks " + ", ".join(missing) +
                           " (torch._inductor.runtime.triton_heuristics, torch._inductor.async_compile);"
                           " nereid.inductor needs updating for it")
    return th


def stats():
    """What Nereid did since enable(): kernels (configurations compiled), compile_seconds
    (their compiles plus their first launches, which make the GPU code of what a batch did
    not prepare), fallbacks (kernel name, reason) when enable(fallback=True), batches and
    batched_configs (the graphs' kernels compiled together), first_launch_seconds (the
    first launches' part of compile_seconds)."""
    with _lock:
        return {"kernels": _state["kernels"], "compile_seconds": _state["compile_seconds"] +
                _state["first_launch_seconds"], "fallbacks": list(_state["fallbacks"]),
                "batches": _state["batches"], "batched_configs": _state["batched_configs"],
                "first_launch_seconds": _state["first_launch_seconds"]}


def enable(fallback=False, batch=True):
    """Make Inductor's Triton kernels compile and launch through Nereid from now on (in this
    process). fallback=True lets a configuration Nereid cannot compile go to Triton,
    reported in stats() and by a warning. batch=False compiles each kernel alone when
    Inductor loads it, instead of a graph's kernels together on several threads."""
    th = check_hook()
    import torch._inductor.async_compile as ac
    import torch._inductor.config as icfg
    icfg.compile_threads = 1
    with _lock:
        _state["fallback"] = bool(fallback)
        _state["batch"] = bool(batch)
        if _state["enabled"]:
            return
        _state["original"] = th.CachingAutotuner._precompile_config
        th.CachingAutotuner._precompile_config = _precompile_config
        _state["async_original"] = (ac.AsyncCompile.triton, ac.AsyncCompile.wait)
        ac.AsyncCompile.triton, ac.AsyncCompile.wait = _async_triton, _async_wait
        _state["enabled"] = True


def disable():
    """Give the kernels compiled from now on back to Triton."""
    import torch._inductor.async_compile as ac
    import torch._inductor.runtime.triton_heuristics as th
    _flush()
    with _lock:
        if _state["enabled"]:
            th.CachingAutotuner._precompile_config = _state["original"]
            ac.AsyncCompile.triton, ac.AsyncCompile.wait = _state["async_original"]
            _state["enabled"] = False


def _codecache_future():
    from torch._inductor.codecache import CodeCacheFuture
    return CodeCacheFuture


class _Pending:
    """What AsyncCompile.triton gives back for a kernel that compiles with the next batch:
    result() compiles the batch (if it has not run) and returns Inductor's own
    CachingAutotuner, made as Inductor makes it; its attributes are that object's."""

    def __init__(self, async_compile, args):
        self.async_compile, self.args, self.kernel = async_compile, args, None

    def result(self):
        if self.kernel is None:
            _flush()
            self.kernel = _state["async_original"][0](self.async_compile, *self.args)
        return self.kernel

    def __getattr__(self, name):
        if name in ("async_compile", "args", "kernel"):
            raise AttributeError(name)
        return getattr(self.result(), name)


_pending_classes = {}


def _pending_class():
    base = _codecache_future()
    cls = _pending_classes.get(base)
    if cls is None:
        cls = _pending_classes[base] = type("NereidPendingKernel", (_Pending, base), {})
    return cls


def _async_triton(self, kernel_name, source_code, device_str="cuda"):
    """AsyncCompile.triton: the kernel is loaded (its module run, which makes its
    CachingAutotuner) and compiled with the next batch."""
    original = _state["async_original"][0]
    if not _state["batch"] or device_str != "cuda" or os.environ.get("TRITON_INTERPRET", "0") == "1":
        return original(self, kernel_name, source_code, device_str)
    fut = _pending_class()(self, (kernel_name, source_code, device_str))
    with _lock:
        _pending.append(fut)
    return fut


def _async_wait(self, scope):
    """AsyncCompile.wait: the pending kernels compiled together, each name of the scope
    bound to its kernel, then Inductor's own wait."""
    _flush()
    for key, value in list(scope.items()):
        if isinstance(value, _Pending):
            scope[key] = value.result()
    return _state["async_original"][1](self, scope)


def _stand_in(sig_type, divisible, tensors, device):
    """An argument of Inductor's signature type for a warmup that prepares the GPU code a
    launch with such arguments needs (a pointer: a tensor 16-byte aligned or not; an
    integer divisible by 16 or not, as Inductor's specialisation says)."""
    import torch
    if sig_type.startswith("*"):
        # torch's dtype of that signature name: one of the names _jit reads as it
        dt = next((getattr(torch, n) for n, s in _jit._ALIASES.items()
                   if s == sig_type[1:] and isinstance(getattr(torch, n, None), torch.dtype)), torch.float32)
        t = tensors.get(dt)
        if t is None:
            t = tensors[dt] = torch.empty(64, dtype=dt, device=device)
        return t if divisible else t[1:]
    if sig_type == "i1":
        return True
    if sig_type.startswith("i") or sig_type.startswith("u"):
        return 16 if divisible else 17
    return 1.5


def _flush():
    """Compile every pending kernel's configurations at once: the front ends
    (Context.compile_many), then the GPU code for stand-in arguments (prepare_many)."""
    with _lock:
        todo = list(_pending)
        _pending.clear()
    todo = [p for p in todo if p.kernel is None]
    if not todo:
        return
    t = time.perf_counter()
    from torch._inductor.async_compile import _load_triton_kernel_from_source
    jobs, keys, infos, ctx = [], [], [], None
    for p in todo:
        try:
            autotuner = _load_triton_kernel_from_source(p.args[0], p.args[1])
            if getattr(autotuner.device_props, "type", "cuda") != "cuda":
                continue
            for cfg in autotuner.configs:
                req = _request(autotuner, cfg)
                if req["key"] in _ready or req["key"] in keys:
                    continue
                ctx = ctx or req["ctx"]
                if req["ctx"] is not ctx:
                    continue  # another device: compiled alone when Inductor precompiles it
                jobs.append((req["text"], req["filename"],
                             [(k, _runtime.define_text(k, v)) for k, v in req["defines"].items()], None,
                             req["num_warps"] or 0, req["num_stages"] or 0))
                keys.append(req["key"])
                infos.append(req)
        except Exception:  # noqa: BLE001 - the kernel compiles alone later and reports its error there
            continue
    if not jobs:
        return
    calls, tensors = [], {}
    for key, req, mod in zip(keys, infos, ctx.compile_many(jobs)):
        if mod is None:
            continue  # compiled alone later, which reports its error
        cm = _runtime.CompiledModule(ctx, req["text"], req["filename"], req["defines"], req["num_warps"],
                                     req["num_stages"], _module=mod)
        _ready[key] = cm
        try:
            kernel = cm.kernels[req["name"]]
            device = "cuda:%d" % ctx.index
            args = tuple(_stand_in(req["sig"].get(n, "fp32"), n in req["divisible"], tensors, device)
                         for n in kernel.arg_names)
            kernel._key(*args)  # arguments it would refuse would stop the whole batch's preparing
            calls.append((kernel, args, None))
        except Exception:  # noqa: BLE001 - its first launch makes its GPU code
            continue
    if calls:
        try:
            _nereid.prepare_many(calls)
        except Exception:  # noqa: BLE001 - each kernel's first launch makes its code and reports
            pass
    with _lock:
        _state["batches"] += 1
        _state["batched_configs"] += len(jobs)
        _state["compile_seconds"] += time.perf_counter() - t


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


def _request(autotuner, cfg):
    """What compiling one configuration of an Inductor kernel takes: the source with each
    parameter typed as the signature says (a parameter the signature calls constexpr
    becomes one, its value among the constants), the defines, warps and stages, and the
    key of the compile."""
    meta = autotuner._create_compile_meta(cfg)
    fn = autotuner.fn
    jf = _jit._as_jit(fn)
    if jf is None:
        raise TypeError(f"nereid.inductor: {fn!r} is not a @triton.jit function")
    sig, constants = meta["signature"], dict(meta["constants"])
    text, filename = jf.source({k: v for k, v in sig.items()})
    index = getattr(autotuner.device_props, "index", None) or 0
    ctx = _runtime.context((_nereid.DEVICE_CUDA, index))
    defines = {k: v for k, v in constants.items() if k in sig or k in jf.arg_names}
    divisible = set()  # the parameters Inductor specialised as divisible by 16 (pointers: aligned)
    spec = (meta.get("configs") or [{}])[0]
    for where, facts in (spec.items() if isinstance(spec, dict) else ()):
        i = where[0] if isinstance(where, tuple) else where
        if isinstance(i, int) and i < len(fn.arg_names) and any(f and f[0] == "tt.divisibility" for f in facts):
            divisible.add(fn.arg_names[i])
    key = (text, repr(sorted((k, _runtime.define_text(k, v)) for k, v in defines.items())), meta["num_warps"],
           meta["num_stages"], index)
    return {"meta": meta, "fn": fn, "name": jf.__name__, "sig": sig, "constants": constants, "text": text,
            "filename": filename, "ctx": ctx, "defines": defines, "num_warps": meta["num_warps"],
            "num_stages": meta["num_stages"], "divisible": divisible, "key": key}


def _compile(autotuner, cfg):
    import torch._inductor.runtime.triton_heuristics as th

    req = _request(autotuner, cfg)
    module = _ready.pop(req["key"], None)
    if module is None:
        module = _runtime.CompiledModule(req["ctx"], req["text"], req["filename"], req["defines"],
                                         req["num_warps"], req["num_stages"])
    kernel = module.kernels[req["name"]]
    _prepare_stand_in(kernel, req)
    fn, sig, constants = req["fn"], req["sig"], req["constants"]
    runtime = [i for i, name in enumerate(fn.arg_names)
               if sig.get(name, "constexpr") != "constexpr" and name not in constants]
    return _result_class(th)(kernel, cfg, req["meta"], autotuner.inductor_meta, fn, runtime)


def _prepare_stand_in(kernel, req):
    """The configuration's GPU code for stand-in arguments of its signature (as _flush does
    for a batch's), unless it has some already: so its registers and spills are known when
    Inductor reads them (launcher.n_spills, right after precompiling, to skip benchmarking
    fusions whose kernels spill), as Triton's are after its compile. A failure here is left
    to the first launch, which reports it."""
    try:
        kernel.n_regs
        return
    except Exception:  # noqa: BLE001 - no GPU code yet
        pass
    tensors = {}
    device = "cuda:%d" % req["ctx"].index
    try:
        args = tuple(_stand_in(req["sig"].get(n, "fp32"), n in req["divisible"], tensors, device)
                     for n in kernel.arg_names)
        kernel._key(*args)
        _nereid.prepare_many([(kernel, args, None)])
    except Exception:  # noqa: BLE001 - the first launch makes the code and reports
        pass


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
            info.refresh()  # prepared for stand-in arguments (_prepare_stand_in, _flush)
            launcher.n_regs = info.n_regs if info.n_regs is not None else 0
            launcher.n_spills = info.n_spills if info.n_spills is not None else 0
            launcher.shared = info.shared or 0
            launcher.cache_hash = info.hash
            launcher.store_cubin = False
            launcher.fn = self.fn
            launcher.bin = info
            return launcher

    _classes[th] = NereidCompileResult
    return NereidCompileResult


class _KernelInfo:
    """What Inductor reads of a compiled kernel (CompileResult.kernel): its hash, name,
    warps and, once its GPU code exists (prepared for stand-in arguments, or launched),
    registers and spills."""

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
