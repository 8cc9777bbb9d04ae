"""Devices, contexts and nereid.compile: kernel files and source strings compiled through
the C API, their kernels launched as `mod.KERNEL[grid](*args)`."""
import collections.abc
import os
import threading
import warnings

from . import _nereid
from . import language
from ._errors import _DIAG, CompileError, CompileWarning, DeviceError

_lock = threading.RLock()
_contexts = {}
_default = []  # the resolved default device, once


def _parse_device(device):
    """'cpu', 'cuda', 'cuda:N', a torch.device, or None (the default) -> (kind, index)."""
    if device is None:
        return _default_device()
    if hasattr(device, "type") and hasattr(device, "index"):  # torch.device
        device = device.type if device.index is None else f"{device.type}:{device.index}"
    if not isinstance(device, str):
        raise TypeError(f"device must be 'cpu', 'cuda', 'cuda:N' or None, got {device!r}")
    if device == "cpu":
        return _nereid.DEVICE_CPU, 0
    if device == "cuda":
        return _nereid.DEVICE_CUDA, _torch_device_index()
    if device.startswith("cuda:") and device[5:].isdigit():
        return _nereid.DEVICE_CUDA, int(device[5:])
    raise ValueError(f"unknown device {device!r} (use 'cpu', 'cuda' or 'cuda:N')")


def _torch_device_index():
    """torch's current CUDA device when torch is loaded and has CUDA, else 0."""
    import sys
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_available():
            return torch.cuda.current_device()
    except Exception:  # a torch without a working CUDA: the first device
        pass
    return 0


def _default_device():
    """$NEREID_DEVICE if set, else the GPU when one can be opened, else the CPU."""
    env = os.environ.get("NEREID_DEVICE")
    if env:
        return _parse_device(env)
    with _lock:
        if not _default:
            try:
                context((_nereid.DEVICE_CUDA, _torch_device_index()))
                _default.append("cuda")
            except DeviceError:
                _default.append("cpu")
    return _parse_device(_default[0])


def _ptxas_from_triton():
    """Where no ptxas is where the library looks (NEREID_PTXAS, TRITON_PTXAS_PATH, the CUDA
    toolkit, PATH: driver/ptxas.h), the one Triton's wheel bundles, named in NEREID_PTXAS
    for the CUDA contexts to compile with (without it the driver's PTX JIT compiles, one
    kernel at a time in a process). Triton is found, not imported."""
    if "NEREID_PTXAS" in os.environ:
        return
    import shutil
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    found = [os.environ.get("TRITON_PTXAS_PATH")] + [r and os.path.join(r, "bin", "ptxas") for r in roots]
    if any(p and os.path.isfile(p) and os.access(p, os.X_OK) for p in found) or shutil.which("ptxas"):
        return
    import importlib.util
    try:
        spec = importlib.util.find_spec("triton")
    except (ImportError, ValueError):
        return
    if spec is None or not spec.submodule_search_locations:
        return
    for root in spec.submodule_search_locations:
        p = os.path.join(root, "backends", "nvidia", "bin", "ptxas")
        if os.path.isfile(p) and os.access(p, os.X_OK):
            os.environ["NEREID_PTXAS"] = p
            return


def context(device=None):
    """The context of a device (one per device, shared by every kernel on it)."""
    kind, index = device if isinstance(device, tuple) else _parse_device(device)
    with _lock:
        ctx = _contexts.get((kind, index))
        if ctx is None:
            if kind == _nereid.DEVICE_CUDA:
                _ptxas_from_triton()
            try:
                ctx = _nereid.Context(kind, index)
            except DeviceError:
                raise
            except RuntimeError as e:
                raise DeviceError(str(e)) from None
            _contexts[(kind, index)] = ctx
        return ctx


def device_of(ctx):
    return "cpu" if ctx.kind == "cpu" else f"cuda:{ctx.index}"


def device_count():
    """The number of CUDA devices (0 when there is no driver or no device)."""
    try:
        return _nereid.device_count(_nereid.DEVICE_CUDA)
    except DeviceError:
        return 0


def synchronize(device=None):
    """Wait for every launch on the device (the default one if None)."""
    context(device).synchronize()


_DTYPE_ATTRS = {"i1": "int1", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u1": "int1",
                "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "fp16": "float16",
                "bf16": "bfloat16", "fp32": "float32", "fp64": "float64", "fp8e4nv": "float8e4nv",
                "fp8e5": "float8e5", "fp8e4b15": "float8e4b15", "fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16",
                "void": "void"}


def _dtype_text(value):
    """tl.float16 (Nereid's or Triton's dtype) as the compiler reads it: `tl.float16`; a
    pointer type `tl.pointer_type(tl.int8)`; None if value is no dtype."""
    elem = getattr(value, "element_ty", None)
    if elem is not None and type(value).__name__ == "pointer_type" or (elem is not None and
                                                                       str(getattr(value, "name", "")).startswith("*")):
        inner = _dtype_text(elem)
        return f"tl.pointer_type({inner})" if inner else None
    name = getattr(value, "name", None)
    if type(value).__name__ != "dtype" or not isinstance(name, str):
        return None
    attr = _DTYPE_ATTRS.get(name, name)
    return f"tl.{attr}"


class FunctionRef(str):
    """A function passed as a constexpr, by its name in the compiled source (or tl.NAME)."""


def _string_literal(value):
    """value as a string literal of the language (Python's escapes), single-quoted."""
    out = []
    for c in value:
        if c in "\\'":
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7f:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    return "'" + "".join(out) + "'"


def define_text(name, value, nested=False):
    """A constexpr value as the compiler reads it (-D NAME=TEXT): numbers, True/False/None,
    quoted strings, dtypes (`tl.float16`), and tuples or lists of these (`(1, tl.int8)`).
    A string on its own is taken between its quotes as it is; one inside a tuple, or one
    holding both quote characters, is a literal with Python's escapes."""
    if isinstance(value, language.constexpr) or (type(value).__name__ == "constexpr" and hasattr(value, "value")):
        value = value.value
    if isinstance(value, FunctionRef):  # a bare name would be a string: -D ACTIVATION=leaky_relu
        return f"tl.constexpr({value})"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if value is None:
        return "None"
    if isinstance(value, str):  # quoted, so that "1", "nan" or "None" stay strings
        if "\0" in value:
            raise TypeError(f"constexpr '{name}': a string holding a NUL cannot be a compile-time value")
        if nested:
            return _string_literal(value)
        if "'" not in value:
            return "'" + value + "'"
        if '"' not in value:
            return '"' + value + '"'
        return _string_literal(value)  # read as a literal (it holds its own quote)
    if isinstance(value, (tuple, list)):
        items = [define_text(name, v, True) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    dt = _dtype_text(value)
    if dt is not None:
        return dt
    if hasattr(value, "__index__"):  # numpy integers
        return str(value.__index__())
    raise TypeError(f"constexpr '{name}': a {type(value).__name__} cannot be a compile-time value "
                    "(use an int, float, bool, str, None, a dtype, a @jit function, or a tuple of these)")


def _compile_text(ctx, source, filename, defines, kernel, num_warps, num_stages, constexpr_functions=None, debug=0):
    pairs = [(k, define_text(k, v)) for k, v in defines.items()]
    mod = ctx.compile(source, filename, pairs, kernel, num_warps or 0, num_stages or 0, constexpr_functions or None,
                      debug)
    report_diagnostics(mod)
    return mod


def report_diagnostics(mod):
    """What a compile that went on reported, shown where Triton's compile shows it: each
    tl.static_print's values on standard output (Triton prints them with print() as it
    compiles), each warning, with its source line, as a CompileWarning. None (a job of
    Context.compile_many that failed) reports nothing."""
    lines = mod.diagnostics.splitlines() if mod is not None else []
    i = 0
    while i < len(lines):
        j = i + 1  # the diagnostic's source line and caret follow it
        while j < len(lines) and not (_DIAG.match(lines[j]) or lines[j].startswith("nereid: ")):
            j += 1
        m = _DIAG.match(lines[i])
        if m and m["severity"] == "note" and m["message"].startswith("static_print: "):
            print(m["message"][len("static_print: "):], flush=True)
        elif (m and m["severity"] == "warning") or lines[i].startswith("nereid: warning: "):
            warnings.warn("\n".join(lines[i:j]), CompileWarning, stacklevel=2)
        i = j


class CompiledKernel(_nereid.Dispatcher):
    """A kernel of a compiled module: `kernel[grid](*args)`. Its constexprs were given to
    nereid.compile; giving one again at launch (`BLOCK_SIZE=256`) compiles that variant
    once and keeps it."""

    def __init__(self, module, kernel):
        self.module = module
        self.kernel = kernel
        self.__name__ = kernel.name
        params = kernel.params()
        self.arg_names = [n for n, _ in params]
        self._setup(kernel.name, tuple(self.arg_names), [0] * len(params), [t for _, t in params], {}, True)
        self._context = module.context
        self._cache[()] = kernel
        self._meta = dict(module.constexprs)  # a callable grid sees the compile's constexprs too

    def params(self):
        """[(name, type)] of the runtime parameters, in order."""
        return self.kernel.params()

    def _resolve(self):
        return self.module.context

    def _compile(self, key, context=None):  # the module's context: a compiled module is on one device
        overrides = {key[i]: key[i + 2] for i in range(0, len(key), 3)}
        m = self.module
        try:
            mod = _compile_text(m.context, m.source, m.filename, {**m.constexprs, **overrides}, self.__name__,
                                m.num_warps, m.num_stages)
        except CompileError as e:
            for name in overrides:
                if f"no kernel has a constexpr parameter named '{name}'" in e.diagnostics:
                    raise TypeError(f"{self.__name__}() got an unexpected keyword argument '{name}'") from None
            raise
        return mod.kernel(self.__name__)

    def __repr__(self):
        return f"<nereid kernel {self.__name__} on {device_of(self.module.context)}>"


class CompiledModule:
    """What nereid.compile returns: one attribute per kernel (`mod.add_kernel`)."""

    def __init__(self, ctx, source, filename, constexprs, num_warps, num_stages, _module=None):
        self.context, self.source, self.filename = ctx, source, filename
        self.constexprs, self.num_warps, self.num_stages = dict(constexprs), num_warps, num_stages
        # _module: the module Context.compile_many made of the same (nereid.inductor's batches)
        self._module = _module or _compile_text(ctx, source, filename, self.constexprs, None, num_warps, num_stages)
        self.kernels = {}
        for name in self._module.kernel_names():
            self.kernels[name] = CompiledKernel(self, self._module.kernel(name))
            if not name.startswith("__") and name not in ("context", "source", "filename", "constexprs", "kernels",
                                                           "num_warps", "num_stages", "device"):
                setattr(self, name, self.kernels[name])

    @property
    def device(self):
        return device_of(self.context)

    def __getitem__(self, name):
        return self.kernels[name]

    def __getattr__(self, name):
        raise AttributeError(f"no kernel named '{name}' in {self.filename} (kernels: {', '.join(self.kernels)})")

    def __repr__(self):
        return f"<nereid module {self.filename}: {', '.join(self.kernels)} on {self.device}>"


def compile(path_or_source, device=None, num_warps=None, num_stages=None, **constexprs):
    """Compile a kernel file (a path) or kernel source (a string holding a newline) for a
    device ('cpu', 'cuda', 'cuda:N'; None: the GPU when there is one, else the CPU), with
    constexpr values as keywords. Returns a module whose kernels launch as
    `mod.KERNEL[grid](*args)`. Raises CompileError with the diagnostics."""
    if isinstance(path_or_source, os.PathLike) or (isinstance(path_or_source, str) and "\n" not in path_or_source):
        filename = os.fspath(path_or_source)
        with open(filename, encoding="utf-8") as f:
            source = f.read()
    elif isinstance(path_or_source, str):
        source, filename = path_or_source, "<source>"
    else:
        raise TypeError(f"compile() takes a path or source text, got {type(path_or_source).__name__}")
    return CompiledModule(context(device), source, filename, constexprs, num_warps, num_stages)


class KernelAsm(collections.abc.Mapping):
    """kernel.asm: the code of the kernel's last launch by name, compiled again when read:
    'ptx', 'llvm' (the optimised LLVM IR) and 'gpu-ir' (Nereid's IR after the GPU passes)
    on a GPU, 'ir' (after the front end's passes) on either device. Triton's own stages
    ('ttir', 'ttgir', 'llir', 'cubin') are not Nereid's: they are missing, not faked."""

    def __init__(self, kernel):
        self._kernel = kernel
        self._texts = {}

    def _names(self):
        return ("ptx", "llvm", "gpu-ir", "ir") if self._kernel._info()["target"] != "cpu" else ("ir",)

    def __getitem__(self, what):
        if what not in self._texts:
            if what not in self._names():
                raise KeyError(what)
            self._texts[what] = self._kernel._code(what)
        return self._texts[what]

    def __iter__(self):
        return iter(self._names())

    def __len__(self):
        return len(self._names())


class KernelMetadata:
    """kernel.metadata: what the kernel's last launch ran (num_warps, num_stages, num_ctas,
    shared bytes, name, target), as Triton's compiled kernel's metadata has them."""

    def __init__(self, kernel):
        info = kernel._info()
        self.name, self.target = info["name"], info["target"]
        self.num_warps, self.num_stages = info["num_warps"], info["num_stages"]
        self.num_ctas = info.get("num_ctas", 1)  # as the launch gave it: each program runs as one CTA
        self.shared = info["shared"]

    def __repr__(self):
        return (f"KernelMetadata(name={self.name!r}, target={self.target!r}, num_warps={self.num_warps}, "
                f"num_stages={self.num_stages}, shared={self.shared})")


class KernelLauncher(_nereid.Dispatcher):
    """kernel[grid], on a compiled kernel (what a launch or JITFunction.warmup returns), as
    Triton's CompiledKernel[grid]: launches that kernel, with no new compile, on the grid,
    taking the arguments of the @jit function's every parameter (its constexprs too, as
    Triton's launcher takes them: they are ignored, the kernel keeps the values it was
    compiled with) or of its run-time parameters only (the @jit function's parameters that
    are not constexprs, as Triton's launcher takes them, or the compiled kernel's, which
    lack the integers a launch specialised), positionally or by name; `stream`
    is accepted and unused, as for any launch (the current stream)."""

    def __init__(self, kernel, grid):
        self._kernel, self._grid = kernel, grid
        self.__name__ = kernel.name
        runtime = kernel.params()
        types = dict(runtime)
        sig = kernel._signature
        self._names = list(sig[0]) if sig else [n for n, _ in runtime]
        self._all = len(self._names)
        self._runtime_names = [n for n, _ in runtime]
        self._runtime = set(self._runtime_names)
        # the @jit function's parameters that are not constexprs: Triton's launcher takes
        # those (a library that keeps compiled kernels passes them), an int among them that
        # the launch specialised (equal to 1) included
        self._declared = [n for n, c in zip(sig[0], sig[1]) if not c] if sig else self._runtime_names
        # a tuple parameter is its leaves' run-time parameters (`pair.0`, `pair.1.0`, ...)
        self._tuples = {n for n in self._names if n not in types and any(r.startswith(n + ".") for r in self._runtime_names)}
        # without tuples the launcher binds the @jit function's parameters in their order
        # (positional arguments go straight through); with them, the run-time leaves by name
        names = self._names if not self._tuples else self._runtime_names + [
            n for n in self._names if n not in types and n not in self._tuples]
        kinds = [0 if n in types else 2 for n in names]
        self._setup(kernel.name, tuple(names), kinds, [types.get(n) for n in names],
                    {n: None for n, k in zip(names, kinds) if k}, False)
        self._launch = self[grid]

    def _resolve(self):
        return self._kernel.context

    def _compile(self, key, context=None):
        return self._kernel

    def _leaves(self, name, value, out):
        """A tuple argument's elements under their run-time parameters' names (`name.i`),
        those the compile specialised away (constexpr elements) left out."""
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"{self.__name__}(): parameter '{name}' is a tuple in the compiled kernel, got {type(value).__name__}")
        for i, e in enumerate(value):
            n = f"{name}.{i}"
            if n in self._runtime:
                out[n] = e
            elif any(r.startswith(n + ".") for r in self._runtime_names):
                self._leaves(n, e, out)
        top = {int(r[len(name) + 1:].split(".")[0]) for r in self._runtime_names if r.startswith(name + ".")}
        if top and max(top) >= len(value):
            raise TypeError(f"{self.__name__}(): parameter '{name}' has {len(value)} elements, fewer than the compiled kernel's")

    def __call__(self, *args, stream=None, **kwargs):
        if not self._tuples:  # the common case: positional arguments bound as they come
            if len(args) == len(self._declared) < self._all:  # the non-constexpr parameters (Triton's)
                kwargs.update(zip(self._declared, args))
                args = ()
            elif len(args) == len(self._runtime_names) < self._all:  # the compiled kernel's run-time ones
                kwargs.update(zip(self._runtime_names, args))
                args = ()
            return self._launch(*args, **kwargs)
        # every parameter, the non-constexpr ones (Triton's launcher's), or the compiled
        # kernel's run-time ones (a tuple's elements one by one): the first list as long as
        # the arguments whose tuple parameters they give tuples
        order = self._names
        for o in (self._names, self._declared, self._runtime_names):
            if len(o) == len(args) and all(isinstance(a, (tuple, list)) for n, a in zip(o, args) if n in self._tuples):
                order = o
                break
        if len(args) > len(order):
            raise TypeError(f"{self.__name__}() takes {len(order)} positional arguments but {len(args)} were given")
        given = dict(zip(order, args))
        for n, v in kwargs.items():
            if n in given:
                raise TypeError(f"{self.__name__}() got multiple values for argument '{n}'")
            given[n] = v
        out = {}
        for n, v in given.items():
            if n in self._tuples:
                self._leaves(n, v, out)
            else:
                out[n] = v
        return self._launch(**out)

    def __repr__(self):
        return f"<nereid kernel {self.__name__}[{self._grid}] on {device_of(self._kernel.context)}>"


_nereid._set_views(KernelAsm, KernelMetadata, KernelLauncher)
