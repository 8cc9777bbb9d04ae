"""A Triton program as people write one: kernels among host code in all of Python.
Column-0 text inside this docstring: def not_a_kernel(): pass
"""
import math
import torch
import triton
import triton.language as tl

try:
    from triton.language.extra.libdevice import tanh
except ModuleNotFoundError:
    from triton.language.extra.cuda.libdevice import tanh

DEVICE = triton.runtime.driver.active.get_active_torch_device()
LOG2E: tl.constexpr = 1.4426950408889634
SCALE = tl.constexpr(2.0)
CONFIGS = {"small": (64, 4), "large": (1024, 8)}
square = lambda x: x * x
NAMES = [n for n in ("a", "b")]


def host_helper(x):
    return x + 1


@triton.jit
def _scaled(x, S: tl.constexpr):
    return x * S


@triton.autotune(
    configs=[triton.Config({"BLOCK": 128}, num_warps=4),
             triton.Config({"BLOCK": 256}, num_warps=8)],
    key=["n"],
)
@triton.jit(do_not_specialize=["n"])
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
# a comment at column 0 inside the body
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = _scaled(x, SCALE) * LOG2E + \
        1.0
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def broken_kernel(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), undefined_name)


@triton.jit
def uses_tanh(x_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(x_ptr + o, tanh(tl.load(x_ptr + o)))


class Model(torch.nn.Module):
    def forward(self, x):
        return x * 2


def run(x):
    text = """
def fake_kernel(x_ptr):
    pass
"""
    y = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]), )
    scale_kernel[grid](x, y, x.numel())
    return y, {"#": "(["}, text


if __name__ == "__main__":
    print(run(torch.ones(8, device=DEVICE)))
