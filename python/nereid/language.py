"""nereid.language: what a kernel file imports, for machines without Triton.

    import nereid.language as tl

Kernel bodies are never run by Python: the compiler reads their source. Python does
evaluate a kernel's annotations and default values when the `def` runs, and module-level
constants, so this module provides those names: `constexpr`, the dtypes (`tl.float32`,
...) and `pointer_type`. The builtins (`tl.program_id`, `tl.load`, ...) exist so that
tools can resolve them; calling one from Python raises an error.
"""
import sys as _sys
import types as _types


class constexpr:
    """Marks a parameter as a compile-time constant (`BLOCK: tl.constexpr`); as a value,
    `tl.constexpr(8)` wraps a module-level constant."""

    def __init__(self, value=None):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __eq__(self, other):
        return self.value == (other.value if isinstance(other, constexpr) else other)

    def __hash__(self):
        return hash(self.value)

    def __index__(self):
        return self.value.__index__()

    def __bool__(self):
        return bool(self.value)


class const:
    """Triton's annotation of a pointer parameter the kernel only reads (`in_ptr:
    tl.const`): a store through it is a compile error."""


class tensor:
    """A block or scalar inside a kernel: Python only meets the name, in annotations
    (`def combine(a: tl.tensor, b: tl.tensor)`) and isinstance tests the compiler reads."""


class dtype:
    """A scalar type; `name` is its signature spelling ("fp32", "i32", ...)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"nereid.language.{_LONG.get(self.name, self.name)}"

    def __eq__(self, other):
        return isinstance(other, dtype) and other.name == self.name

    def __hash__(self):
        return hash(("dtype", self.name))

    # Triton's dtype predicates and sizes, for Python that reads them (a constexpr function
    # run on the host: `if dt.is_fp16(): ...`)
    def is_fp8(self):
        return self.name.startswith("fp8")

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_floating(self):
        return self.name.startswith(("fp", "bf"))

    def is_int_signed(self):
        return self.name in ("i8", "i16", "i32", "i64")

    def is_int_unsigned(self):
        return self.name in ("u8", "u16", "u32", "u64")

    def is_int(self):
        return self.name == "i1" or self.is_int_signed() or self.is_int_unsigned()

    def is_bool(self):
        return self.name == "i1"

    def is_ptr(self):
        return False

    def is_block(self):
        return False

    @property
    def primitive_bitwidth(self):
        n = self.name
        return 1 if n == "i1" else 8 if n.startswith("fp8") else int("".join(c for c in n if c.isdigit()) or 64)

    @property
    def int_bitwidth(self):
        return self.primitive_bitwidth

    @property
    def scalar(self):
        return self


class pointer_type(dtype):
    """A pointer to element_ty: the type of a pointer parameter (`*fp32`)."""

    def __init__(self, element_ty):
        super().__init__("*" + element_ty.name)
        self.element_ty = element_ty

    def is_ptr(self):
        return True

    @property
    def primitive_bitwidth(self):
        return 64

    def is_floating(self):
        return False

    def is_int(self):
        return False

    def __repr__(self):
        return f"pointer_type({self.element_ty!r})"


class block_type(dtype):
    """The type of a block (Triton's tensor.type for a block): element_ty and shape. For
    isinstance in kernels; the compiler gives it its meaning there."""

    def __init__(self, element_ty, shape):
        super().__init__(f"<{list(shape)}, {element_ty.name}>")
        self.element_ty, self.shape = element_ty, list(shape)
        self.scalar = element_ty


_LONG = {"i1": "int1", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
         "u16": "uint16", "u32": "uint32", "u64": "uint64", "fp16": "float16", "bf16": "bfloat16",
         "fp32": "float32", "fp64": "float64", "fp8e4nv": "float8e4nv", "fp8e5": "float8e5",
         "fp8e4b15": "float8e4b15", "fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16"}
int1, int8, int16, int32, int64 = (dtype(n) for n in ("i1", "i8", "i16", "i32", "i64"))
uint8, uint16, uint32, uint64 = (dtype(n) for n in ("u8", "u16", "u32", "u64"))
float16, bfloat16, float32, float64 = (dtype(n) for n in ("fp16", "bf16", "fp32", "fp64"))
float8e4nv, float8e5 = dtype("fp8e4nv"), dtype("fp8e5")  # OCP FP8 E4M3FN and E5M2 (pointees only)
# Triton's E4M3 with bias 15; AMD's E4M3 and E5M2 FNUZ (torch.float8_e4m3fnuz, float8_e5m2fnuz)
float8e4b15, float8e4b8, float8e5b16 = dtype("fp8e4b15"), dtype("fp8e4b8"), dtype("fp8e5b16")
TRITON_MAX_TENSOR_NUMEL = 1048576  # Triton's limit on a block's elements (Nereid's too)
pi32_t = pointer_type(int32)  # Triton's tl.pi32_t

_BUILTINS = (
    "program_id num_programs arange zeros full zeros_like load store where minimum maximum umulhi div_rn "
    "fdiv exp exp2 log log2 sqrt sqrt_rn rsqrt sin cos floor ceil abs fma sum max min argmax argmin dot trans "
    "permute reshape view broadcast_to broadcast expand_dims atomic_add atomic_max atomic_min atomic_xchg "
    "atomic_and atomic_or atomic_xor atomic_cas cast static_assert device_assert static_print device_print "
    "multiple_of max_contiguous assume range static_range cdiv sigmoid softmax ravel swizzle2d rand randn "
    "randint rand4x randn4x randint4x philox uint_to_uniform_float pair_uniform_to_normal "
    # the rest of Triton's tl.* functions the compiler knows: a library may name them outside
    # its kernels (flash-linear-attention's `gather = tl.gather` at module level)
    "advance associative_scan cat clamp cumprod cumsum debug_barrier erf flip gather histogram "
    "inline_asm_elementwise interleave join make_block_ptr make_tensor_descriptor load_tensor_descriptor "
    "store_tensor_descriptor map_elementwise reduce sort split topk xor_sum "
    "max_constancy add sub mul logical_and logical_or").split()


def _builtin(name):
    def f(*args, **kwargs):
        raise RuntimeError(f"nereid.language.{name} can only be used inside a kernel (@nereid.jit); "
                           "Python does not run kernel bodies")
    f.__name__ = f.__qualname__ = name
    return f


for _name in _BUILTINS:
    globals()[_name] = _builtin(_name)
del _name


class _Functions:
    """A namespace of functions kernels call by name (`libdevice.erf`), for `from ...
    import` and attribute lookups in Python; the compiler gives them their meaning."""

    def __init__(self, name):
        self.__name__ = name

    def __getattr__(self, fn):
        if fn.startswith("__"):
            raise AttributeError(fn)
        f = _builtin(f"{self.__name__}.{fn}")
        setattr(self, fn, f)
        return f


libdevice = _Functions("libdevice")  # triton.language.extra.libdevice's functions
math = _Functions("math")            # tl.math.*
cuda = _Functions("cuda")            # triton.language.extra.cuda's (gdc_wait, gdc_launch_dependents)
cuda.libdevice = libdevice           # triton.language.extra.cuda.libdevice: the same functions (Triton's
                                     # extra.libdevice is that module), for `tl.extra.cuda.libdevice.tanh`


def get_int_dtype(bitwidth, signed):
    """Triton's triton.language.core.get_int_dtype: the integer dtype of that width."""
    bits = bitwidth.value if isinstance(bitwidth, constexpr) else bitwidth
    names = {1: "i1", 8: "i8", 16: "i16", 32: "i32", 64: "i64"}
    if bits not in names:
        raise TypeError(f"Unsupported bitwidth {bits} and signedness {signed}")
    return dtype(names[bits] if signed or bits == 1 else "u" + names[bits][1:])


CONSTEXPR_0 = constexpr(0)  # Triton's triton.language.core.CONSTEXPR_0 (a parameter default in its argsort)

# triton.language.core: the language's names again (tl.core.X is tl.X), which libraries read
# when their modules load (flash-linear-attention's argsort: `tl.core.CONSTEXPR_0` as a default)
core = _sys.modules[__name__]


class _StandardModule(_types.ModuleType):
    """triton.language.standard: the language's names again (`from triton.language.standard
    import sum, zeros_like`, as lightllm's grouped top-k imports them), with its private
    constexpr functions the compiler knows (`_log2`, `_is_power_of_two`)."""

    def __getattr__(self, name):
        if name in ("_log2", "_is_power_of_two"):
            f = _builtin("standard." + name)
            setattr(self, name, f)
            return f
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(core, name)


standard = _StandardModule(__name__ + ".standard")
