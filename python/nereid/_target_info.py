"""triton.language.target_info where Triton is not installed (nereid.dropin's stand-in, also
nereid.language.target_info once it is installed): the target kernels compile for, as Triton's constexpr
functions of that module answer it, so that a library's `cuda_capability_geq(9, 0)` (in a
kernel, run by the compiler's call into Python, or in host code) picks the same path as
under Triton. The target is Nereid's default device's: the CPU interpreter has none
(`current_target()` is None, as Triton's without an active driver), a CUDA device is
("cuda", its compute capability as major * 10 + minor, 32), the capability read from torch
where it is loaded (0 without it: every cuda_capability_geq is then False)."""
import dataclasses
import sys

from ._jit import constexpr_function

__all__ = ["current_target", "is_cuda", "cuda_capability_geq", "is_hip", "is_hip_cdna3", "is_hip_cdna4",
           "GPUTarget"]


@dataclasses.dataclass(frozen=True)
class GPUTarget:
    """As Triton's triton.backends.compiler.GPUTarget."""
    backend: str
    arch: object
    warp_size: int


def current_target():
    from . import _nereid, _runtime
    kind, index = _runtime._default_device()
    if kind != _nereid.DEVICE_CUDA:
        return None
    arch = 0
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            major, minor = torch.cuda.get_device_capability(index)
            arch = major * 10 + minor
        except Exception:  # a torch without a working CUDA
            pass
    return GPUTarget("cuda", arch, 32)


current_target.__triton_builtin__ = True


@constexpr_function
def is_cuda():
    target = current_target()
    return target is not None and target.backend == "cuda"


@constexpr_function
def cuda_capability_geq(major, minor=0):
    target = current_target()
    return target is not None and target.backend == "cuda" and target.arch >= major * 10 + minor


@constexpr_function
def is_hip():
    return False


@constexpr_function
def is_hip_cdna3():
    return False


@constexpr_function
def is_hip_cdna4():
    return False
