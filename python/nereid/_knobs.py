"""triton.knobs where Triton is not installed (nereid.dropin's stand-in): Triton 3.6's
configuration namespaces (build, redis, cache, compilation, autotuning, runtime, language,
nvidia, amd, proton), which code written for Triton sets at import time (a test module's
`triton.knobs.autotuning.cache = False`) or reads. As in Triton, a knob backed by an
environment variable reads it until the knob is assigned; assigning a bool, str, int or
None also sets (or, None, unsets) the variable, so child processes see it; `del` returns a
knob to the environment's value; `reset()` does that for every knob of a namespace,
`copy()` copies one, and `with ns.scope():` restores the namespace and its variables on
exit. The runtime hooks are Triton's hook chains (`add`, `remove`, calls in order).

What Nereid reads of them: `autotuning.print`, whose variable TRITON_PRINT_AUTOTUNING=1
prints each tuning's timings and choice (as NEREID_PRINT_AUTOTUNING=1). The others change
nothing in Nereid: its kernels compile and run the same with any of them (Triton's cache
folders, compiler paths and IR dumps, the hooks into its compiler and launcher)."""
import collections
import contextlib
import functools
import os
import re
import shutil
import subprocess


def _true_text(text):
    """An environment variable's text as a bool, as Triton reads its switches."""
    return text.strip().lower() in ("1", "true", "on", "yes")


def _to_env(value):
    """The environment's text for an assigned value: (text,) or (None,) to unset; None: not
    reflected (another type)."""
    if value is None:
        return (None,)
    if type(value) is bool:
        return ("1" if value else "0",)
    if type(value) in (str, int):
        return (str(value),)
    return None


class _Knob:
    """A knob backed by an environment variable (key): its value is the variable's, read
    as `kind` ('str', 'bool', 'int', 'opt'), or default, until assigned."""

    def __init__(self, key, default=None, kind="opt"):
        self.key, self.default, self.kind = key, default, kind

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        if self.name in obj.__dict__:
            return self.transform(obj.__dict__[self.name])
        return self.get()

    def transform(self, value):
        return value

    def get(self):
        text = os.environ.get(self.key)
        if text is None:
            return self.default() if callable(self.default) else self.default
        if self.kind == "bool":
            return _true_text(text)
        if self.kind == "int":
            try:
                return int(text)
            except ValueError as e:
                raise RuntimeError(f"Unable to use {self.key}={text}: expected int") from e
        return text

    def __set__(self, obj, value):
        obj.__dict__[self.name] = value
        env = _to_env(value)
        if env is not None:
            if env[0] is None:
                os.environ.pop(self.key, None)
            else:
                os.environ[self.key] = env[0]

    def __delete__(self, obj):
        obj.__dict__.pop(self.name, None)


NvidiaTool = collections.namedtuple("NvidiaTool", "path version")


@functools.lru_cache(maxsize=None)
def _tool_at(path):
    """The tool at path with the version its --version reports ("release X.Y"), or None."""
    try:
        out = subprocess.check_output([path, "--version"], stderr=subprocess.STDOUT, timeout=30).decode()
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"release (\d+\.\d+)", out)
    return NvidiaTool(path, m.group(1)) if m else None


class _ToolKnob(_Knob):
    """One of CUDA's tools (ptxas, cuobjdump, nvdisasm): an NvidiaTool (path, version) from
    TRITON_<TOOL>_PATH, or an assigned path, else the CUDA toolkit's (CUDA_HOME, CUDA_PATH,
    /usr/local/cuda, then PATH); Triton's own bundled copy does not exist here."""

    def __init__(self, binary):
        super().__init__(f"TRITON_{binary.upper()}_PATH")
        self.binary = binary

    def get(self):
        return self.transform(os.environ.get(self.key))

    def transform(self, path):
        roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
        paths = ([path] if path else []) + [os.path.join(r, "bin", self.binary) for r in roots if r]
        paths.append(shutil.which(self.binary))
        for p in paths:
            tool = _tool_at(p) if p else None
            if tool:
                return tool
        raise RuntimeError(f"Cannot find {self.binary}")


class HookChain:
    """Hooks of one kind, called in order (or in reverse: the exit hooks)."""

    def __init__(self, reversed=False):
        self.calls = []
        self.reversed = reversed

    def add(self, func):
        if func not in self.calls:
            self.calls.append(func)

    def remove(self, func):
        if func in self.calls:
            self.calls.remove(func)

    def __call__(self, *args, **kwargs):
        for call in (reversed(self.calls) if self.reversed else self.calls):
            call(*args, **kwargs)


class base_knobs:
    """A namespace of knobs."""

    @property
    def knob_descriptors(self):
        return {k: v for k, v in type(self).__dict__.items() if isinstance(v, _Knob)}

    @property
    def knobs(self):
        return {k: getattr(self, k) for k in self.knob_descriptors}

    def copy(self):
        other = type(self)()
        other.__dict__.update(self.__dict__)
        return other

    def reset(self):
        for name in self.knob_descriptors:
            delattr(self, name)
        return self

    @contextlib.contextmanager
    def scope(self):
        env = {k.key: os.environ.get(k.key) for k in self.knob_descriptors.values()}
        saved = dict(self.__dict__)
        try:
            yield
        finally:
            self.__dict__.clear()
            self.__dict__.update(saved)
            for key, text in env.items():
                if text is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = text


def _triton_dir(sub):
    return lambda: os.path.join(os.environ.get("TRITON_HOME", os.path.expanduser("~/")), ".triton", sub)


class build_knobs(base_knobs):
    cc = _Knob("CC")
    cudacrt_path = _Knob("TRITON_CUDACRT_PATH")
    cudart_path = _Knob("TRITON_CUDART_PATH")
    impl = None


class redis_knobs(base_knobs):
    key_format = _Knob("TRITON_REDIS_KEY_FORMAT", "triton:{key}:{filename}", "str")
    host = _Knob("TRITON_REDIS_HOST", "localhost", "str")
    port = _Knob("TRITON_REDIS_PORT", 6379, "int")


class cache_knobs(base_knobs):
    home_dir = _Knob("TRITON_HOME", os.path.expanduser("~/"), "str")
    dump_dir = _Knob("TRITON_DUMP_DIR", _triton_dir("dump"), "str")
    override_dir = _Knob("TRITON_OVERRIDE_DIR", _triton_dir("override"), "str")
    dir = _Knob("TRITON_CACHE_DIR", _triton_dir("cache"), "str")
    manager_class = _Knob("TRITON_CACHE_MANAGER")
    remote_manager_class = _Knob("TRITON_REMOTE_CACHE_BACKEND")


class compilation_knobs(base_knobs):
    override = _Knob("TRITON_KERNEL_OVERRIDE", False, "bool")
    dump_ir = _Knob("TRITON_KERNEL_DUMP", False, "bool")
    dump_ir_extract_di_local_variables = _Knob("LLVM_EXTRACT_DI_LOCAL_VARIABLES", False, "bool")
    store_binary_only = _Knob("TRITON_STORE_BINARY_ONLY", False, "bool")
    always_compile = _Knob("TRITON_ALWAYS_COMPILE", False, "bool")
    use_ir_loc = _Knob("USE_IR_LOC")
    enable_asan = _Knob("TRITON_ENABLE_ASAN", False, "bool")
    disable_line_info = _Knob("TRITON_DISABLE_LINE_INFO", False, "bool")
    front_end_debugging = _Knob("TRITON_FRONT_END_DEBUGGING", False, "bool")
    allow_non_constexpr_globals = _Knob("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS", False, "bool")

    def __init__(self):
        self.instrumentation_mode = os.environ.get("TRITON_INSTRUMENTATION_MODE", "")
        self.listener = None


class autotuning_knobs(base_knobs):
    cache = _Knob("TRITON_CACHE_AUTOTUNING", False, "bool")
    print = _Knob("TRITON_PRINT_AUTOTUNING", False, "bool")


class runtime_knobs(base_knobs):
    interpret = _Knob("TRITON_INTERPRET", False, "bool")
    override_arch = _Knob("TRITON_OVERRIDE_ARCH")

    def __init__(self):
        self.debug = _true_text(os.environ.get("TRITON_DEBUG", ""))
        self.launch_enter_hook, self.launch_exit_hook = HookChain(), HookChain(reversed=True)
        self.kernel_load_start_hook, self.kernel_load_end_hook = HookChain(), HookChain(reversed=True)
        self.jit_cache_hook = self.jit_post_compile_hook = self.add_stages_inspection_hook = None


class language_knobs(base_knobs):
    fp32_default = _Knob("TRITON_F32_DEFAULT")
    default_fp_fusion = _Knob("TRITON_DEFAULT_FP_FUSION", True, "bool")


class nvidia_knobs(base_knobs):
    cuobjdump = _ToolKnob("cuobjdump")
    nvdisasm = _ToolKnob("nvdisasm")
    ptxas = _ToolKnob("ptxas")
    ptxas_blackwell = _ToolKnob("ptxas-blackwell")
    dump_nvptx = _Knob("NVPTX_ENABLE_DUMP", False, "bool")
    disable_ptxas_opt = _Knob("DISABLE_PTXAS_OPT", False, "bool")
    ptxas_options = _Knob("PTXAS_OPTIONS")
    mock_ptx_version = _Knob("TRITON_MOCK_PTX_VERSION")
    dump_ptxas_log = _Knob("TRITON_DUMP_PTXAS_LOG", False, "bool")
    libdevice_path = _Knob("TRITON_LIBDEVICE_PATH")
    libcuda_path = _Knob("TRITON_LIBCUDA_PATH")


class amd_knobs(base_knobs):
    use_buffer_ops = _Knob("AMDGCN_USE_BUFFER_OPS", True, "bool")
    use_buffer_atomics = _Knob("AMDGCN_USE_BUFFER_ATOMICS", True, "bool")
    buffer_ops_analyze_small_tensor_range = _Knob("AMDGCN_ANALYZE_SMALL_TENSOR_RANGE", False, "bool")
    dump_amdgcn = _Knob("AMDGCN_ENABLE_DUMP", False, "bool")
    libhip_path = _Knob("TRITON_LIBHIP_PATH")
    use_block_pingpong = _Knob("TRITON_HIP_USE_BLOCK_PINGPONG")
    use_in_thread_transpose = _Knob("TRITON_HIP_USE_IN_THREAD_TRANSPOSE")
    use_async_copy = _Knob("TRITON_HIP_USE_ASYNC_COPY", False, "bool")
    scalarize_packed_fops = _Knob("AMDGCN_SCALARIZE_PACKED_FOPS", False, "bool")


class proton_knobs(base_knobs):
    disable = _Knob("TRITON_PROTON_DISABLE", False, "bool")
    cupti_lib_dir = _Knob("TRITON_CUPTI_LIB_PATH", "", "str")
    enable_nvtx = _Knob("TRITON_ENABLE_NVTX", True, "bool")


build, redis, cache, compilation = build_knobs(), redis_knobs(), cache_knobs(), compilation_knobs()
autotuning, runtime, language = autotuning_knobs(), runtime_knobs(), language_knobs()
nvidia, amd, proton = nvidia_knobs(), amd_knobs(), proton_knobs()


def refresh_knobs():
    """Triton's: the two knobs read once from the environment are read again."""
    runtime.debug = _true_text(os.environ.get("TRITON_DEBUG", ""))
    compilation.instrumentation_mode = os.environ.get("TRITON_INSTRUMENTATION_MODE", "")
