"""Nereid for Python: compile and launch Triton-syntax kernels on PyTorch tensors (CUDA)
or NumPy arrays (the CPU interpreter).

    import nereid
    mod = nereid.compile("examples/vector_add.nr", BLOCK_SIZE=1024)
    mod.add_kernel[(nereid.cdiv(n, 1024),)](x, y, out, n)

    @nereid.jit
    def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr): ...
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)

    # host tensor descriptors, as Triton's: in the kernel a_desc.load([i, j]), ...
    matmul_kernel[grid](nereid.TensorDescriptor.from_tensor(a, [BM, BK]), ...)

See docs/python.md.
"""
from . import _nereid
from ._errors import CompileError, CompileWarning, DeviceError, Error, LaunchError, OptionError
from ._runtime import CompiledKernel, CompiledModule, compile, context, device_count, synchronize
from ._jit import ConstexprFunction, JITFunction, constexpr_function, jit
from ._autotune import Autotuner, Config, Heuristics, autotune, heuristics
from ._desc import TensorDescriptor
from . import language
from . import _target_info

language.target_info = _target_info  # triton.language.target_info's (kernels call it as tl.target_info.X())

__version__ = _nereid.version()
_nereid._set_errors(Error, CompileError, LaunchError, DeviceError, OptionError)


def cdiv(a, b):
    """Ceiling division: the number of blocks of b that cover a."""
    return -(-a // b)


def next_power_of_2(n):
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


__all__ = ["compile", "jit", "JITFunction", "CompiledModule", "CompiledKernel", "context", "device_count", "synchronize",
           "autotune", "heuristics", "Config", "Autotuner", "Heuristics", "TensorDescriptor",
           "cdiv", "next_power_of_2", "language", "Error", "CompileError", "LaunchError", "DeviceError",
           "CompileWarning", "OptionError", "constexpr_function", "ConstexprFunction"]
