"""nereid.TensorDescriptor: a host-side tensor descriptor, Triton's
triton.tools.tensor_descriptor.TensorDescriptor for Nereid.

    desc = nereid.TensorDescriptor.from_tensor(x, block_shape=[64, 64])
    kernel[grid](desc, ...)        # in the kernel: desc.load([i, j]), desc.store([i, j], v)

The same fields as Triton's (base, shape, strides, block_shape, padding) and the same
constructor, so code written for Triton's runs with this one, and Triton's own objects are
accepted by Nereid's launches too (read by their attribute names: triton is never
imported). A launch reads the five fields each time (nereid/_launch.c): an untyped kernel
parameter becomes "tensordesc<DTYPE[BLOCK_SHAPE]>" (the base's dtype and the block shape,
as Triton specialises), a typed one is checked against them; the padding is read at each
launch and compiles nothing. Unlike Triton's, the base need not be 16-byte aligned nor the
strides multiples of 16 bytes (Nereid then moves the tiles with ordinary loads and stores
instead of TMA), and NumPy arrays (strides counted in bytes) are taken as well as tensors.
"""
from dataclasses import dataclass
import operator
from typing import Any, List

MAX_RANK = 5          # nr_tensor_desc's dims (NR_TENSOR_DESC_MAX_RANK), Triton's limit
MAX_NUMEL = 1 << 20   # the largest block, as in Triton


@dataclass
class TensorDescriptor:
    """A tensor of `shape` at `base` (a torch tensor, or on the CPU device a NumPy array),
    `strides` in elements (the last one 1), read and written by the kernel in tiles of
    `block_shape` (powers of two); loads past the shape give 0, or NaN with padding="nan"."""
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        rank = len(self.shape)
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise ValueError(f"TensorDescriptor: rank mismatch: shape has {rank} dims, strides {len(self.strides)}, "
                             f"block_shape {len(self.block_shape)}")
        if not 1 <= rank <= MAX_RANK:
            raise ValueError(f"TensorDescriptor: rank {rank}: Nereid's descriptors have 1 to {MAX_RANK} dims")
        numel = 1
        for i, b in enumerate(self.block_shape):
            try:
                b = operator.index(b)
            except TypeError:
                raise TypeError(f"TensorDescriptor: block_shape[{i}] must be an int, got {type(b).__name__}") from None
            if b <= 0 or b & (b - 1):
                raise ValueError(f"TensorDescriptor: block_shape[{i}] is {b}: block dims must be powers of two")
            numel *= b
        if numel > MAX_NUMEL:
            raise ValueError(f"TensorDescriptor: a block of {numel} elements (at most 2^20, as in Triton)")
        if self.strides[-1] != 1:
            raise ValueError(f"TensorDescriptor: the last stride must be 1 (the last dim contiguous), got "
                             f"{self.strides[-1]}")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"TensorDescriptor: padding must be \"zero\" or \"nan\", got {self.padding!r}")

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        """A descriptor of the whole of `tensor` (its shape and strides): a torch tensor
        (tensor.stride()), or a NumPy array (its byte strides over its itemsize)."""
        strides = _element_strides(tensor)
        return TensorDescriptor(tensor, list(tensor.shape), strides, list(block_shape), padding)


def _element_strides(t):
    stride = getattr(t, "stride", None)
    if callable(stride):  # torch: in elements already
        return list(stride())
    itemsize = getattr(t, "itemsize", None) or getattr(getattr(t, "dtype", None), "itemsize", None)
    strides = getattr(t, "strides", None)
    if strides is None or not itemsize:
        raise TypeError(f"TensorDescriptor.from_tensor: a torch tensor or a NumPy array, got {type(t).__name__}")
    if any(s % itemsize for s in strides):
        raise ValueError(f"TensorDescriptor.from_tensor: strides {tuple(strides)} (bytes) are not multiples of the "
                         f"element size {itemsize}")
    return [s // itemsize for s in strides]
