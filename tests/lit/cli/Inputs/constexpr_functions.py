# Constexpr functions of a Triton program, which its kernels call: one decorated
# @triton.constexpr_function, one a plain function decorated @tl.constexpr, and one whose
# Python (a dict, an f-string) the kernel grammar does not read and that no kernel calls.
import triton
import triton.language as tl


@triton.constexpr_function
def clamp_block(n, cap=32):
    return min(n, cap)


@tl.constexpr
def doubled(n):
    return 2 * n


@triton.constexpr_function
def format_name(dtype):
    names = {tl.float16: "fp16", tl.bfloat16: "bf16"}
    return f"{names[dtype]}"


@triton.jit
def fill(x_ptr, N: tl.constexpr):
    B: tl.constexpr = clamp_block(N)
    o = tl.arange(0, doubled(B))
    tl.store(x_ptr + o, o)


@triton.jit
def fill_named(x_ptr, DT: tl.constexpr):
    tl.store(x_ptr, format_name(DT))


def host(x):
    fill[(1, )](x, 100)
