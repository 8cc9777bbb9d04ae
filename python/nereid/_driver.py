"""triton.runtime.driver where Triton is not installed (nereid.dropin's stand-in): the
`driver.active` object libraries query on the host, sized for where Nereid runs their
kernels. Libraries read it to pick a back end (`get_current_target().backend == "hip"`),
to size persistent grids (`utils.get_device_properties(dev)["multiprocessor_count"]`) and
to prune tuning configurations (`["max_shared_mem"]`).

On a CUDA device the answers are the device's, read through torch where it is loaded
(torch.cuda's properties; the target as _target_info gives it). On the CPU interpreter,
which has no GPU behind it, `get_current_target()` is ("cpu", 0, 32), as Triton's CPU back
end names itself, and the properties describe the interpreter: one multiprocessor per CPU
thread it can run programs on, no shared-memory or register limit below an sm_90 GPU's
(227 KB a block, 64K registers), so configurations written for Hopper run there too."""
import os
import sys

from . import _target_info

# What the CPU interpreter reports: Hopper's per-block limits (it has none of its own), and
# an H100 SXM's clocks (kHz) and memory bus (bits), so that a library's performance model
# (triton.testing.get_dram_gbps, get_max_tensorcore_tflops) ranks configurations as there.
_CPU_PROPERTIES = {"max_shared_mem": 232448, "max_num_regs": 65536, "warpSize": 32, "sm_clock_rate": 1980000,
                   "mem_clock_rate": 2619000, "mem_bus_width": 5120}
# ... and the compute capability it answers to (an sm_90 GPU's, as the limits above)
CPU_CAPABILITY = (9, 0)


def _on_cuda():
    from . import _nereid, _runtime
    return _runtime._default_device()[0] == _nereid.DEVICE_CUDA


def _cuda_torch():
    """torch, where Nereid runs kernels on a CUDA device and torch has a working CUDA;
    else None (the CPU interpreter's answers)."""
    torch = sys.modules.get("torch")
    try:
        if torch is not None and _on_cuda() and torch.cuda.is_available():
            return torch
    except Exception:  # a torch stand-in, or one without a working CUDA
        pass
    return None


class _Utils:
    """driver.active.utils: the device's properties as Triton's CUDA utils give them."""

    def get_device_properties(self, device=0):
        torch = _cuda_torch()
        if torch is None:
            return dict(_CPU_PROPERTIES, multiprocessor_count=os.cpu_count() or 1)
        p = torch.cuda.get_device_properties(device)
        return {"max_shared_mem": getattr(p, "shared_memory_per_block_optin", 0),
                "multiprocessor_count": p.multi_processor_count,
                "max_num_regs": getattr(p, "regs_per_multiprocessor", 65536),
                "warpSize": getattr(p, "warp_size", 32),
                "sm_clock_rate": getattr(p, "clock_rate", 0),
                "mem_clock_rate": getattr(p, "memory_clock_rate", 0),
                "mem_bus_width": getattr(p, "memory_bus_width", 0)}


class _ActiveDriver:
    """driver.active: the target, the current device and stream, the properties."""

    def __init__(self):
        self.utils = _Utils()
        self._device = 0

    def get_current_target(self):
        target = _target_info.current_target()
        return target if target is not None else _target_info.GPUTarget("cpu", 0, 32)

    def get_active_torch_device(self):
        torch = sys.modules.get("torch")
        if torch is None:
            return None
        return torch.device("cuda", self.get_current_device()) if _on_cuda() else torch.device("cpu")

    def get_current_device(self):
        torch = _cuda_torch()
        return torch.cuda.current_device() if torch is not None else self._device

    def set_current_device(self, device):
        torch = _cuda_torch()
        if torch is not None:
            torch.cuda.set_device(device)
        self._device = device

    def get_current_stream(self, device=None):
        torch = _cuda_torch()
        if torch is None:
            return 0
        return torch.cuda.current_stream(device).cuda_stream

    def get_device_interface(self):
        torch = sys.modules.get("torch")
        return getattr(torch, "cuda", None) if torch is not None else None

    def is_active(self):
        return True


class _Driver:
    """triton.runtime.driver: `active` is the one driver (Triton's DriverConfig)."""

    def __init__(self):
        self.active = _ActiveDriver()
        self.default = self.active

    def set_active(self, driver):
        self.active = driver

    def reset_active(self):
        self.active = self.default


driver = _Driver()
