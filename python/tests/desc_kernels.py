"""Kernels taking host tensor descriptors, written as a Triton user writes them against
triton.tools.tensor_descriptor.TensorDescriptor (`desc.load([i, j])`, `desc.store([i, j],
v)`, `desc.block_shape`, `desc.shape`, `desc.strides`), with @nereid.jit for @triton.jit;
and the host code that runs each on a device and returns its results as NumPy arrays, for
the tests to compare with NumPy. Imported by test_python.py (the CPU device, NumPy arrays)
and test_gpu.py (torch tensors on the GPU): `dev` is an object with put(numpy array) ->
the device's array, get(device array) -> numpy array, and TD, the descriptor class."""
import numpy as np

import nereid
import nereid.language as tl


# 2-D: y = 2 x tile by tile, and every tile as loaded (the padding past x's bounds
# visible) into t; the tile's shape comes from the descriptor (its block_shape, which
# types the parameter as "tensordesc<fp32[BM, BN]>").
@nereid.jit
def tile_2d(x_desc, y_desc, t_ptr):
    BM: tl.constexpr = x_desc.block_shape[0]
    BN: tl.constexpr = x_desc.block_shape[1]
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = x_desc.load([pid_m * BM, pid_n * BN])
    y_desc.store([pid_m * BM, pid_n * BN], x * 2)
    tile = (pid_m * tl.num_programs(1) + pid_n) * BM * BN
    tl.store(t_ptr + tile + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], x)


# The same with the descriptors' types written out (the block dims are constexprs): an
# argument whose block shape is not the annotation's is refused.
@nereid.jit
def tile_2d_typed(x_desc: "tensordesc<fp32[BM, BN]>", y_desc: "tensordesc<fp32[BM, BN]>", BM: tl.constexpr,
                  BN: tl.constexpr):
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    y_desc.store([off_m, off_n], x_desc.load([off_m, off_n]) + 1.0)


# 1-D: y = x + 1 in blocks; the first program writes what the kernel sees of the
# descriptor (shape, stride, block shape) into info.
@nereid.jit
def vec_1d(x_desc, y_desc, info_ptr):
    B: tl.constexpr = x_desc.block_shape[0]
    off = tl.program_id(0) * B
    y_desc.store([off], x_desc.load([off]) + 1)
    if tl.program_id(0) == 0:
        tl.store(info_ptr + 0, x_desc.shape[0].to(tl.int64))
        tl.store(info_ptr + 1, x_desc.strides[0])  # the constant 1: the last stride
        tl.store(info_ptr + 2, B)


# 3-D: y = x - 1 over [B, R, C] in tiles of BB x BR x BC.
@nereid.jit
def box_3d(x_desc, y_desc, BB: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    pb = tl.program_id(0)
    pr = tl.program_id(1)
    pc = tl.program_id(2)
    v = x_desc.load([pb * BB, pr * BR, pc * BC])
    y_desc.store([pb * BB, pr * BR, pc * BC], v - 1)


# C = A B with descriptors for the three matrices (Triton's TMA matmul, untransposed):
# the zero padding past K makes the last partial K block add nothing.
@nereid.jit
def matmul(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


def cdiv(a, b):
    return -(-a // b)


# ---- host code: each returns NumPy arrays ----

def run_tile_2d(dev, x, BM, BN, padding="zero", cols=None):
    """x (M x S, float32): a descriptor over x[:, :cols] (a row stride larger than the
    width when cols < S). Returns (y, tiles): y = 2 x over the shape (sentinels past it),
    tiles[pm, pn] the tile loaded at (pm, pn)."""
    M, S = x.shape
    N = S if cols is None else cols
    gm, gn = cdiv(M, BM), cdiv(N, BN)
    xd, yd = dev.put(x), dev.put(np.full((M, S), -7, dtype=x.dtype))
    t = dev.put(np.full(gm * gn * BM * BN, -5, dtype=x.dtype))
    tile_2d[(gm, gn)](dev.TD.from_tensor(xd[:, :N], [BM, BN], padding=padding),
                      dev.TD.from_tensor(yd[:, :N], [BM, BN]), t)
    return dev.get(yd), dev.get(t).reshape(gm, gn, BM, BN)


def want_tile_2d(x, BM, BN, padding="zero", cols=None):
    """What run_tile_2d returns, computed with NumPy."""
    M, S = x.shape
    N = S if cols is None else cols
    gm, gn = cdiv(M, BM), cdiv(N, BN)
    y = np.full((M, S), -7, dtype=x.dtype)
    y[:, :N] = 2 * x[:, :N]
    padded = np.full((gm * BM, gn * BN), np.nan if padding == "nan" else 0, dtype=x.dtype)
    padded[:M, :N] = x[:, :N]
    return y, padded.reshape(gm, BM, gn, BN).transpose(0, 2, 1, 3)


# A helper that returns the descriptor it was given, or makes one from a pointer (Triton's
# tutorial attention takes `desc_or_ptr` so): the same kernel with host descriptors and
# with plain pointers, y = x + 1 in [BM, BN] tiles of an (M, N) row-major matrix.
@nereid.jit
def _desc_or_make(desc_or_ptr, shape, strides, block_shape):
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)


@nereid.jit
def add_one_any(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xd = _desc_or_make(x, [M, N], [N, 1], [BM, BN])
    yd = _desc_or_make(y, [M, N], [N, 1], [BM, BN])
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    yd.store([off_m, off_n], xd.load([off_m, off_n]) + 1)


def run_add_one_any(dev, x, BM, BN, host_desc):
    M, N = x.shape
    xd, yd = dev.put(x), dev.put(np.zeros_like(x))
    if host_desc:
        xa, ya = dev.TD.from_tensor(xd, [BM, BN]), dev.TD.from_tensor(yd, [BM, BN])
    else:
        xa, ya = xd, yd
    add_one_any[(cdiv(M, BM), cdiv(N, BN))](xa, ya, M, N, BM=BM, BN=BN)
    return dev.get(yd)


def run_vec_1d(dev, x, B, padding="zero"):
    n = x.shape[0]
    xd, yd, info = dev.put(x), dev.put(np.zeros_like(x)), dev.put(np.zeros(3, dtype=np.int64))
    vec_1d[(cdiv(n, B),)](dev.TD.from_tensor(xd, [B], padding), dev.TD.from_tensor(yd, [B]), info)
    return dev.get(yd), dev.get(info)


def run_box_3d(dev, x, BB, BR, BC):
    Bn, R, C = x.shape
    xd, yd = dev.put(x), dev.put(np.zeros_like(x))
    box_3d[(cdiv(Bn, BB), cdiv(R, BR), cdiv(C, BC))](dev.TD.from_tensor(xd, [BB, BR, BC]),
                                                    dev.TD.from_tensor(yd, [BB, BR, BC]), BB=BB, BR=BR, BC=BC)
    return dev.get(yd)


def run_matmul(dev, a, b, out_dtype, BM, BN, BK, num_warps=4):
    M, K = a.shape
    N = b.shape[1]
    ad, bd, cd = dev.put(a), dev.put(b), dev.put(np.zeros((M, N), dtype=out_dtype))
    TD = dev.TD
    matmul[(cdiv(M, BM), cdiv(N, BN))](TD.from_tensor(ad, [BM, BK]), TD.from_tensor(bd, [BK, BN]),
                                       TD.from_tensor(cd, [BM, BN]), M, N, K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
                                       num_warps=num_warps)
    return dev.get(cd)


class NumpyDevice:
    """The CPU device: NumPy arrays are the kernels' arguments."""
    TD = nereid.TensorDescriptor

    def put(self, a):
        return np.array(a, copy=True)

    def get(self, a):
        return np.asarray(a)
