"""nereid.dropin: Triton code runs through Nereid with no edit.

    import nereid.dropin; nereid.dropin.install()   # a call, before the user's modules
    python -m nereid.run script.py [args]           # a script (and its child processes)
    NEREID_TRITON=1 python ...                      # with nereid/_site on PYTHONPATH
    pytest -p nereid.pytest_plugin ...              # a test suite (and its xdist workers)

install() makes `triton.jit`, `triton.autotune`, `triton.heuristics`, `triton.Config` and
`triton.JITFunction` (and their homes in `triton.runtime`) Nereid's, so that a module that
does `import triton` and decorates its kernels with `@triton.jit` after the call compiles
them with Nereid. Where Triton is installed, `triton.runtime.Autotuner` and `Heuristics`
stay Triton's classes (a library's tuner derived from them tunes Nereid's kernels with
Triton's logic), but Nereid's autotuned and heuristic kernels are instances of them. Where Triton is installed, the rest of it stays Triton's: its language
module (whose dtypes, constexpr and helpers kernels name; Nereid's compiler reads the
kernel's source and gives `tl.*` its own meaning), `triton.testing`, its tensor
descriptors; Nereid's compile errors are then also instances of Triton's
CompilationError. Where Triton is not installed, `triton`, `triton.language` (Nereid's
`nereid.language`), `triton.language.math` and `.random`, `triton.language.extra.libdevice`
and `.cuda`,
`triton.language.target_info` (nereid/_target_info.py: the default device's target),
`triton.runtime.driver` (nereid/_driver.py: `driver.active`'s target, device, stream and
device properties, the CPU interpreter's when it runs the kernels),
`triton.tools.tensor_descriptor` (its TensorDescriptor: Nereid's), `triton.testing` (do_bench, Benchmark, perf_report: nereid/_testing.py),
`triton.compiler.errors` and `triton.compiler.CompiledKernel` (the class of what a launch
returns) are made from Nereid's own pieces, so the same code runs on the
CPU interpreter.

What it does not do: kernels decorated before install() stay Triton's (Triton's own
library's helpers among them, which Nereid's kernels may still call: the compiler knows
them by name); code that builds Triton's compiler objects itself (`triton.compile`, an
ASTSource) still runs Triton. install() sets NEREID_TRITON=1 and puts nereid/_site on
PYTHONPATH so that processes it starts install it too."""
import os
import sys
import types

_installed = False
SITE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_site")


def _child_processes():
    """Children install it too: NEREID_TRITON=1 and the sitecustomize that reads it."""
    os.environ["NEREID_TRITON"] = "1"
    path = os.environ.get("PYTHONPATH", "")
    parts = [p for p in path.split(os.pathsep) if p]
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for p in (SITE_DIR, pkg_root):
        if p not in parts:
            parts.insert(0, p)
    os.environ["PYTHONPATH"] = os.pathsep.join(parts)


def _fake_triton():
    """`triton` made of Nereid's pieces, for machines without Triton."""
    import nereid
    from nereid import language
    from ._errors import CompileError

    triton = types.ModuleType("triton")
    triton.__path__ = []
    triton.__nereid__ = True
    triton.__version__ = "3.6.0"  # the Triton whose language Nereid follows (libraries test it)
    triton.set_allocator = _set_allocator
    triton.language = language
    triton.cdiv = nereid.cdiv
    triton.next_power_of_2 = nereid.next_power_of_2
    triton.TritonError = nereid.Error
    triton.CompilationError = CompileError
    errors = types.ModuleType("triton.compiler.errors")
    errors.CompilationError = CompileError
    from ._errors import CompileTimeAssertionFailure
    errors.CompileTimeAssertionFailure = CompileTimeAssertionFailure
    compiler = types.ModuleType("triton.compiler")
    compiler.__path__ = []
    compiler.errors = errors
    compiler.CompilationError = CompileError
    compiler.CompiledKernel = nereid._nereid.Kernel  # what a launch returns (asm, metadata, n_regs, ...)
    runtime = types.ModuleType("triton.runtime")
    runtime.__path__ = []
    from . import _driver
    driver_mod = types.ModuleType("triton.runtime.driver")
    driver_mod.driver = _driver.driver
    runtime.driver = _driver.driver  # Triton's runtime/__init__ names the object, not the module
    jit_mod = types.ModuleType("triton.runtime.jit")
    autotuner = types.ModuleType("triton.runtime.autotuner")
    from . import _autotune
    autotuner_attrs = {"Autotuner": _autotune.TritonAutotuner, "Heuristics": _autotune.Heuristics,
                       "Config": nereid.Config, "autotune": nereid.autotune, "heuristics": nereid.heuristics}
    testing = types.ModuleType("triton.testing")
    testing.do_bench = _do_bench
    testing.do_bench_cudagraph = _do_bench_cudagraph
    from . import _testing
    testing.Benchmark, testing.Mark, testing.perf_report = _testing.Benchmark, _testing.Mark, _testing.perf_report
    for name in ("nvsmi", "get_dram_gbps", "get_max_tensorcore_tflops", "get_max_simd_tflops", "assert_close"):
        setattr(testing, name, getattr(_testing, name))
    from . import _target_info
    language.target_info = _target_info
    from . import _knobs
    triton.knobs = _knobs
    tools = types.ModuleType("triton.tools")
    tools.__path__ = []
    tensor_descriptor = types.ModuleType("triton.tools.tensor_descriptor")
    tensor_descriptor.TensorDescriptor = nereid.TensorDescriptor
    tools.tensor_descriptor = tensor_descriptor
    extra = types.ModuleType("triton.language.extra")
    extra.__path__ = []
    extra.libdevice = language.libdevice
    extra.cuda = language.cuda
    language.extra = extra
    autotuner.__dict__.update(autotuner_attrs)
    triton.runtime, triton.compiler, triton.testing, triton.tools = runtime, compiler, testing, tools
    runtime.jit, runtime.autotuner = jit_mod, autotuner
    mods = {"triton": triton, "triton.language": language, "triton.language.extra": extra,
            "triton.language.extra.libdevice": language.libdevice,
            "triton.language.core": language.core, "triton.language.standard": language.standard,
            "triton.language.math": language.math, "triton.language.random": language.core,
            "triton.language.extra.cuda": language.cuda, "triton.language.extra.cuda.libdevice": language.libdevice,
            "triton.language.target_info": _target_info,
            "triton.tools": tools, "triton.tools.tensor_descriptor": tensor_descriptor,
            "triton.runtime": runtime, "triton.runtime.driver": driver_mod,
            "triton.runtime.jit": jit_mod, "triton.runtime.autotuner": autotuner, "triton.compiler": compiler,
            "triton.compiler.errors": errors, "triton.testing": testing, "triton.knobs": _knobs}
    # importlib.util.find_spec on a module in sys.modules reads its __spec__, and libraries
    # load what it finds again (xformers: module_from_spec, then the loader's exec_module,
    # for triton.language.extra.libdevice): every stand-in has a spec whose loader does that
    import importlib.machinery
    for name, mod in mods.items():
        if getattr(mod, "__spec__", None) is None:
            mod.__spec__ = importlib.machinery.ModuleSpec(name, _StandInLoader(mod), is_package=hasattr(mod, "__path__"))
    sys.modules.update(mods)
    return triton


class _StandInLoader:
    """The loader of a stand-in module's spec: a module made from the spec again
    (importlib.util.module_from_spec) reads the stand-in's names, those it computes on
    demand too (libdevice's functions)."""

    def __init__(self, standin):
        self._standin = standin

    def create_module(self, spec):
        return None  # the default: a plain module, filled by exec_module

    def exec_module(self, module):
        standin = self._standin
        module.__dict__.update({k: v for k, v in vars(standin).items()
                                if k not in ("__name__", "__spec__", "__loader__")})
        module.__getattr__ = lambda name: getattr(standin, name)  # PEP 562


def _set_allocator(allocator):
    """triton.set_allocator without Triton: Nereid's kernels ask for no global scratch
    memory (a kernel's tl.make_tensor_descriptor becomes masked loads and stores, not a
    tensor map written at run time), so the allocator is never called."""
    del allocator


def _do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """triton.testing.do_bench_cudagraph without Triton: do_bench's timing (no CUDA graph is
    captured: the stand-in runs where Triton is absent, mostly on the interpreter)."""
    return _do_bench(fn, rep=rep, grad_to_none=grad_to_none, quantiles=quantiles, return_mode=return_mode)


def _do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """triton.testing.do_bench without Triton: milliseconds of fn on the host's clock
    around a synchronisation (the CPU interpreter, or a GPU through torch)."""
    import statistics
    import time
    torch = sys.modules.get("torch")
    sync = torch.cuda.synchronize if torch is not None and torch.cuda.is_available() else (lambda: None)
    fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    est = max((time.perf_counter() - t0) * 1e3, 1e-3)
    for _ in range(max(1, int(warmup / est))):
        fn()
    times = []
    for _ in range(max(1, int(rep / est))):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    if quantiles is not None:
        times.sort()
        out = [times[min(len(times) - 1, int(q * len(times)))] for q in quantiles]
        return out[0] if len(out) == 1 else out
    return {"mean": statistics.fmean, "median": statistics.median, "min": min, "max": max,
            "all": list}[return_mode](times)


def _compile_error_class(triton):
    """Nereid's CompileError, made an instance of Triton's CompilationError too (so that
    `except triton.CompilationError` catches it) where Triton has that class."""
    import nereid
    from . import _errors
    base = getattr(triton, "CompilationError", None)
    ours = _errors.CompileError
    if base is None or issubclass(ours, base):
        return

    class CompilationError(ours, base):
        def __init__(self, diagnostics):
            ours.__init__(self, diagnostics)

        def __str__(self):
            return self.diagnostics

        def __reduce__(self):
            return (type(self), (self.diagnostics,))

    CompilationError.__name__ = "CompileError"
    CompilationError.__qualname__ = "CompileError"
    CompilationError.__module__ = "nereid"
    triton_static = getattr(getattr(getattr(triton, "compiler", None), "errors", None),
                            "CompileTimeAssertionFailure", None)
    static_bases = (CompilationError, ) + ((triton_static, ) if isinstance(triton_static, type) else ())

    class CompileTimeAssertionFailure(*static_bases):  # a failed tl.static_assert, Triton's class too
        pass

    CompileTimeAssertionFailure.__module__ = "nereid"
    _errors._STATIC[CompilationError] = CompileTimeAssertionFailure
    _errors.CompileError = CompilationError
    nereid.CompileError = CompilationError
    nereid._nereid._set_errors(nereid.Error, CompilationError, nereid.LaunchError, nereid.DeviceError)


def _class_admitting(base, admitted, name, module):
    """A subclass of base, named name, of which instances of every class in admitted are
    instances too (and those classes subclasses): what a Triton name comes to mean after
    install() where both Triton's objects and Nereid's must pass isinstance checks.
    Classes derived from it by a library are ordinary classes (they admit nothing)."""

    class _Meta(type(base)):
        def __instancecheck__(cls, obj):
            if cls is made and isinstance(obj, admitted):
                return True
            return type(base).__instancecheck__(cls, obj)

        def __subclasscheck__(cls, sub):
            if cls is made and issubclass(sub, admitted):
                return True
            return type(base).__subclasscheck__(cls, sub)

    made = _Meta(name, (base, ), {"__module__": module, "__doc__": base.__doc__})
    return made


def _jit_class_admitting(original):
    """A subclass of Nereid's JITFunction (what `triton.JITFunction` names after install())
    of which Nereid's JITFunctions and Triton's own are instances (and their classes
    subclasses), so that Triton's isinstance checks of its own helpers still hold."""
    import nereid
    return _class_admitting(nereid.JITFunction, (nereid.JITFunction, original), "JITFunction", "triton.runtime.jit")


def _tuner_classes_admitting():
    """`triton.runtime.Autotuner` and `Heuristics` where Triton is installed: subclasses of
    Triton's (a library's tuner derived from them, FlagGems' LibTuner, runs Triton's
    tuning around Nereid's kernels) of which Nereid's autotuned and heuristic kernels are
    instances too (libraries walk a kernel's wrappers with isinstance)."""
    from . import _autotune
    names = {}
    auto = sys.modules.get("triton.runtime.autotuner")
    for name, ours in (("Autotuner", _autotune.Autotuner), ("Heuristics", _autotune.Heuristics)):
        original = getattr(auto, name, None)
        if isinstance(original, type) and not issubclass(ours, original):
            names[name] = _class_admitting(original, (ours, original), name, "triton.runtime.autotuner")
    return names


def install():
    """Make `triton`'s decorators Nereid's (see the module's text). Idempotent."""
    global _installed
    if _installed:
        return sys.modules["triton"]
    import nereid
    _child_processes()
    try:
        import triton
        real = not getattr(triton, "__nereid__", False)
    except ImportError:
        triton, real = _fake_triton(), False
    jit_class = nereid.JITFunction
    if real:  # Triton's own JITFunctions (its library's helpers, made before this call) stay
        # instances of the name: Triton's modules imported later check them with isinstance
        # (triton.experimental.gluon wraps triton.language.standard's helpers so)
        original = getattr(sys.modules.get("triton.runtime.jit"), "JITFunction", None)
        if isinstance(original, type) and original is not nereid.JITFunction:
            jit_class = _jit_class_admitting(original)
    names = {"jit": nereid.jit, "autotune": nereid.autotune, "heuristics": nereid.heuristics,
             "Config": nereid.Config, "JITFunction": jit_class}
    if not real:  # Triton's own constexpr functions are taken as they are (_jit._as_jit)
        names["constexpr_function"] = nereid.constexpr_function
    homes = [triton]
    if real:
        try:
            __import__("triton.runtime.autotuner")
        except ImportError:
            pass
        names.update(_tuner_classes_admitting())
    for mod in ("triton.runtime", "triton.runtime.jit", "triton.runtime.autotuner"):
        m = sys.modules.get(mod)
        if m is None and real:
            try:
                __import__(mod)
                m = sys.modules[mod]
            except ImportError:
                m = None
        if m is not None:
            homes.append(m)
    for home in homes:
        for name, value in names.items():
            current = getattr(home, name, None)
            if isinstance(current, types.ModuleType):
                continue  # triton.runtime.jit is also a submodule's name: never replace a module
            if (home is triton and name not in ("Autotuner", "Heuristics")) or current is not None:
                setattr(home, name, value)
    if real:
        _compile_error_class(triton)
    triton.__nereid_dropin__ = True
    _installed = True
    return triton


def installed():
    """Whether install() has run in this process."""
    return _installed
