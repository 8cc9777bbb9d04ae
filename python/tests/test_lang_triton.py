"""Kernels in Triton's style on the CPU interpreter, for language features Triton's own
tests use: getattr/hasattr on compile-time names, raise in branches not taken, constexpr
.type, expand_dims with several axes, interleave of scalars, indexing with None slices,
poison returns, asserts inside combine functions and tl.map_elementwise, list
comprehensions, namedtuples, right shifts of mixed signedness, pointers selected and stored
as integers, tl.add/sub/mul and tl.max_constancy. Our tests, our kernels; results checked against NumPy."""
import collections
import ctypes
import ctypes.util
import math
import os
import tempfile
import types
import typing
import unittest

import numpy as np

import nereid
import nereid.language as tl
from nereid.language import libdevice

CPU = "cpu"


@nereid.jit(device=CPU)
def pick_minmax(a, b, c, FN: tl.constexpr, NAN: tl.constexpr):
    x = tl.load(a + tl.arange(0, 4))
    y = tl.load(b + tl.arange(0, 4))
    tl.store(c + tl.arange(0, 4), getattr(tl, FN)(x, y, propagate_nan=getattr(tl.PropagateNan, NAN)))


@nereid.jit(device=CPU)
def clamp_if_int32_ptr(x):
    if (x is not None) and hasattr(x, "dtype") and isinstance(x.dtype, tl.pointer_type) and \
            (x.dtype.element_ty == tl.int32) and (tl.load(x) > 42):
        tl.store(x, 42)


@nereid.jit(device=CPU)
def transform(x_ptr, out_ptr, MODE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    if MODE == "double":
        y = x * 2
    elif MODE == "negate":
        y = -x
    else:
        raise ValueError("unknown MODE")
    tl.store(out_ptr + tl.arange(0, 8), y)


@nereid.jit(device=CPU)
def interleave_scalars(x, y, z):
    w = tl.interleave(x, y)
    tl.static_assert(w.shape == [2])
    tl.store(z + tl.arange(0, 2), w)


@nereid.jit(device=CPU)
def outer_sum(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    col = tl.expand_dims(x, (-1, 0))  # [1, N, 1]
    tl.static_assert(col.shape == [1, N, 1])
    m = x[:, None] + x[None, None:]
    tl.store(out_ptr + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, ::None], m + col.reshape(N, 1))


@nereid.jit(device=CPU)
def maybe(x, n):
    if n > 0:
        return x * 3


@nereid.jit(device=CPU)
def poison_user(x_ptr, out_ptr, n):
    tl.store(out_ptr, maybe(tl.load(x_ptr), n))


@nereid.jit(device=CPU)
def checked_add(a, b):
    r = a.to(tl.int64) + b.to(tl.int64)
    tl.device_assert((r >= -2**31) & (r <= 2**31 - 1), "overflow in the sum")
    return a + b


@nereid.jit(device=CPU, debug=True)  # Triton compiles device_assert only with debug
def checked_sums(z_ptr, x_ptr, B0: tl.constexpr, B1: tl.constexpr, AXIS: tl.constexpr):
    offs = tl.arange(0, B0)[:, None] * B1 + tl.arange(0, B1)[None, :]
    v = tl.load(x_ptr + offs)
    r = tl.reduce(v, AXIS, checked_add)
    tl.store(z_ptr + tl.arange(0, B1 if AXIS == 0 else B0), r)
    s = tl.associative_scan(v, AXIS, checked_add)
    tl.store(z_ptr + 64 + offs, s)


@nereid.jit(device=CPU)
def three_way(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@nereid.jit(device=CPU)
def quot_rem(a, b):
    return a // b, a % b


@nereid.jit(device=CPU)
def swap_pairs(a0, a1, b0, b1):
    return a1 + b0 * 0, a0 + b1 * 0


@nereid.jit(device=CPU)
def mapped(x_ptr, y_ptr, z_ptr, q_ptr, r_ptr, w_ptr, B: tl.constexpr):
    offs = tl.arange(0, B)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(z_ptr + offs, tl.map_elementwise(three_way, x, y))
    q, r = tl.map_elementwise(quot_rem, x.to(tl.uint32), y.to(tl.uint32) | 1)
    tl.store(q_ptr + offs, q)
    tl.store(r_ptr + offs, r)
    tl.store(w_ptr + offs, tl.map_elementwise(swap_pairs, x, y, pack=2))


@nereid.jit
def bump_all(values):
    return tl.tuple([v + 1 for v in values])


@nereid.jit(device=CPU)
def store_bumped(ptrs, values, N: tl.constexpr):
    bumped = bump_all(values)
    for i in tl.static_range(len(values)):
        tl.store(ptrs[i], bumped[i])
    squares = tuple([i * i for i in range(N) if i % 2 == 1])
    rows = [tl.load(ptrs[0]) * j for j in tl.static_range(1, 3)]
    tl.store(ptrs[0] + 1, rows[0] + rows[1] + len(squares) * 100 + squares[-1] * 1000)


Span = collections.namedtuple("Span", ["start", "count"], defaults=(4,))


class Strided(typing.NamedTuple):
    ptr: typing.Any
    shape: tuple
    stride: tuple


@nereid.jit
def as_strided(ptr, shape, stride):
    return Strided(shape=shape, ptr=ptr, stride=stride)


@nereid.jit
def in_bounds(t, BM: tl.constexpr, BN: tl.constexpr):
    return (tl.arange(0, BM)[:, None] < t.shape[0]) & (tl.arange(0, BN)[None, :] < t.shape[1])


@nereid.jit(device=CPU)
def scale_into(op, src, dst, BM: tl.constexpr, BN: tl.constexpr):
    s = as_strided(src.ptr, src.shape, src.stride)
    rows, cols = tl.arange(0, BM)[:, None], tl.arange(0, BN)[None, :]
    x = tl.load(s.ptr + rows * s.stride[0] + cols * s.stride[1], mask=in_bounds(s, BM, BN), other=0)
    y = op.fn(x, *op.extra)
    tl.store(dst.ptr + rows * dst.stride[0] + cols * dst.stride[1], y, mask=in_bounds(dst, BM, BN))


@nereid.jit
def times_loaded(x, p):
    return x * tl.load(p)


@nereid.jit(device=CPU)
def fill_span(out, span, where):
    offs = span.start + tl.arange(0, 8)
    tl.store(out + offs, where.start * 10 + tl.full((8,), where.count, tl.int32), mask=offs < span.start + span.count)


@nereid.jit
def sign_of(d):
    return (d > 0).to(tl.int32) - (d < 0).to(tl.int32)


@nereid.jit
def compare_by_sign(x, y):  # the kernel names it only as the mapped function
    return sign_of(x - y)


pick_compare = compare_by_sign  # another name for a helper


@nereid.jit
def quot_rem_builtin(a, b):
    return divmod(a, b)


@nereid.jit(device=CPU)
def mapped_through_names(x_ptr, y_ptr, z_ptr, q_ptr, r_ptr, B: tl.constexpr):
    offs = tl.arange(0, B)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(z_ptr + offs, tl.map_elementwise(pick_compare, x, y))
    q, r = tl.map_elementwise(quot_rem_builtin, x, y)
    tl.store(q_ptr + offs, q)
    tl.store(r_ptr + offs, r)
    tl.static_assert(divmod(-7, 2) == (-4, 1))  # compile-time numbers: Python's rounding


@nereid.jit(device=CPU)
def apply_libdevice(in_p, out_p, fn: tl.constexpr, SIZE: tl.constexpr):
    off = tl.arange(0, SIZE)
    tl.store(out_p + off, getattr(libdevice, fn)(tl.load(in_p + off)))


def _bessel_i(order, x):
    """I0 or I1 by its integral over [0, pi] of exp(x cos t) cos(order t) / pi: the
    trapezoid rule on a periodic integrand, exact to double precision here."""
    t = np.linspace(0.0, np.pi, 4097)
    f = np.exp(np.outer(x, np.cos(t))) * np.cos(order * t)
    # at 0 the sum of cos(t) is 0 only up to its rounding, which depends on the order
    # NumPy adds in (5.6e-17 on some CPUs): I0(0) = 1 and I1(0) = 0 exactly
    s = (f[:, 1:-1].sum(axis=1) + 0.5 * (f[:, 0] + f[:, -1])) / 4096
    return np.where(x == 0, 1.0 if order == 0 else 0.0, s)


@nereid.jit
def choose(a, b, pick_b):
    if pick_b:
        return b
    else:
        return a


@nereid.jit(device=CPU)
def copy_through(src: tl.const, dst, alt: tl.const, PICK: tl.constexpr, n: tl.int32, B: tl.constexpr):
    offs = tl.arange(0, B)
    val = tl.load(src + offs, mask=offs < n)
    tl.store(choose(dst, alt, PICK) + offs, val, mask=offs < n)


@nereid.jit(device=CPU)
def store_either(src: tl.const, dst, pick, B: tl.constexpr):
    offs = tl.arange(0, B)
    out = src if pick else dst
    tl.store(out + offs, tl.load(src + offs))


@nereid.jit(device=CPU)
def sum_segments(x_ptr, sizes_ptr, out_ptr, NSEG: tl.constexpr, B: tl.constexpr, FLATTEN: tl.constexpr):
    # Python's range with tl.range's hints as keywords (Triton evaluates and ignores them)
    start = 0
    for s in range(NSEG, flatten=FLATTEN, num_stages=2):
        size = tl.load(sizes_ptr + s)
        offs = start + tl.arange(0, B)
        x = tl.load(x_ptr + offs, mask=tl.arange(0, B) < size, other=0.0)
        tl.store(out_ptr + s, tl.sum(x, axis=0))
        start += size


gather_fn = tl.gather  # language functions bound at module level, as libraries pick their helpers
tanh_fn = libdevice.tanh
exp_fn = tl.math.exp


@nereid.jit(device=CPU)
def gather_by_module_name(x_ptr, i_ptr, o_ptr, B: tl.constexpr):
    offs = tl.arange(0, B)
    g = gather_fn(tl.load(x_ptr + offs), tl.load(i_ptr + offs), 0)
    tl.store(o_ptr + offs, tanh_fn(g) + exp_fn(g))


# String constants at module level, as libraries write them (flash-linear-attention's
# `..._PRECISION = tl.constexpr('tf32')`), and a plain annotated one.
DOT_PRECISION = tl.constexpr("ieee")
ROUNDING: tl.constexpr = "rtz"


@nereid.jit(device=CPU)
def dot_with_module_strings(a_ptr, b_ptr, c_ptr, B: tl.constexpr):
    i = tl.arange(0, B)
    a = tl.load(a_ptr + i[:, None] * B + i[None, :])
    b = tl.load(b_ptr + i[:, None] * B + i[None, :])
    c = tl.dot(a, b, input_precision=DOT_PRECISION)
    tl.store(c_ptr + i[:, None] * B + i[None, :], c.to(tl.float16, fp_downcast_rounding=ROUNDING).to(tl.float32))


# triton.language.core as libraries read it (flash-linear-attention's argsort, from
# Triton's standard library: get_int_dtype for a bitcast, CONSTEXPR_0 as a default).
@nereid.jit(device=CPU)
def flip_bits(x_ptr, o_ptr, B: tl.constexpr, FLIP: tl.constexpr = tl.core.CONSTEXPR_0):
    x = tl.load(x_ptr + tl.arange(0, B))
    idtype = tl.core.get_int_dtype(bitwidth=x.dtype.primitive_bitwidth, signed=True)
    ix = x.to(idtype, bitcast=True)
    if FLIP:  # every bit but the sign
        ix = ix ^ ((1 << (x.dtype.primitive_bitwidth - 1)) - 1)
    tl.store(o_ptr + tl.arange(0, B), ix.to(x.dtype, bitcast=True))


# A Python function of Triton's called on a constexpr, as Triton's code generator allows
# (flash-linear-attention: `BK: tl.constexpr = triton.next_power_of_2(K)`).
@nereid.jit(device=CPU)
def sum_padded(x_ptr, o_ptr, K: tl.constexpr):
    BK: tl.constexpr = triton.next_power_of_2(K)  # noqa: F821 - the compiler's name
    offs = tl.arange(0, BK)
    tl.store(o_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < K, other=0.0), 0))
    tl.store(o_ptr + 1, BK)


# Blocks of 5 to 16 dims (Nereid's NR_MAX_RANK is 16; Triton has no such limit, and its
# tests reshape and permute through 5 and 6 dims): the forms of Triton's
# test_chained_reductions, reshape round trips, expand_dims and broadcasts to rank 5,
# batched dots with several batch dims, scans and sorts along an axis of a 5-D block.
@nereid.jit(device=CPU)
def sums_of_permuted(x, out, D0: tl.constexpr, D1: tl.constexpr, D2: tl.constexpr, D3: tl.constexpr,
                     D4: tl.constexpr, PERM: tl.constexpr, AXES: tl.constexpr):
    v = tl.load(x + tl.arange(0, D0 * D1 * D2 * D3 * D4).reshape(D0, D1, D2, D3, D4))
    v = tl.permute(v, PERM)
    r = tl.sum(tl.sum(tl.sum(v, AXES[0]), AXES[1]), AXES[2])
    tl.store(out + tl.arange(0, r.shape[0] * r.shape[1]).reshape(r.shape), r)


@nereid.jit(device=CPU)
def reshape_through(x, out, N: tl.constexpr, SHAPE: tl.constexpr, PERM: tl.constexpr):
    v = tl.load(x + tl.arange(0, N)).reshape(SHAPE)
    w = tl.permute(v, PERM)
    tl.store(out + tl.arange(0, N), w.reshape(N))
    tl.store(out + N + tl.arange(0, N), tl.reshape(tl.reshape(v, (N,)), SHAPE).reshape(N))


@nereid.jit(device=CPU)
def spread5(x, out):
    a = tl.load(x + tl.arange(0, 16)).reshape(2, 8)
    b = a[None, :, None, :, None]
    tl.static_assert(b.shape == [1, 2, 1, 8, 1])
    c = tl.expand_dims(a, (0, 2, 4))
    tl.static_assert(c.shape == [1, 2, 1, 8, 1])
    d = tl.broadcast_to(b, (4, 2, 2, 8, 8)) + c * 1000 + tl.arange(0, 8)[None, None, None, None, :]
    e = tl.expand_dims(tl.arange(0, 4), (1, 2, 3, 4))
    tl.store(out + tl.arange(0, 1024).reshape(4, 2, 2, 8, 8), d + e * 100)
    tl.store(out + 1024 + tl.arange(0, 512), tl.max(d, 2).reshape(512))


@nereid.jit(device=CPU)
def dot_nd(x, y, z, RANK: tl.constexpr, TA: tl.constexpr, TB: tl.constexpr):
    shape: tl.constexpr = [2] * (RANK - 2) + [32, 32]
    a = tl.load(x + tl.arange(0, 256 << RANK)).reshape(shape)
    b = tl.load(y + tl.arange(0, 256 << RANK)).reshape(shape)
    if TA:
        a = tl.trans(a)
    if TB:
        b = tl.trans(b)
    tl.store(z + tl.arange(0, 256 << RANK), tl.dot(a, b).reshape([256 << RANK]))


@nereid.jit(device=CPU)
def dot_prec(x, y, z, N: tl.constexpr, P: tl.constexpr, OUT: tl.constexpr):
    i = tl.arange(0, N)
    idx = i[:, None] * N + i[None, :]
    acc = tl.load(z + idx)
    tl.store(z + idx, tl.dot(tl.load(x + idx), tl.load(y + idx), acc, input_precision=P, out_dtype=OUT))


@nereid.jit(device=CPU)
def index_like_triton(x, z):
    # Triton's __getitem__: ':' is never counted against the rank and None past the last
    # dim appends (its test_reduce stores a keep_dims sum through Z[None, None, :])
    v = tl.load(x + tl.arange(0, 8)[:, None] * 4 + tl.arange(0, 4)[None, :])
    tl.store(z[None, None, :], tl.sum(tl.sum(v, 1, keep_dims=True), 0, keep_dims=True))
    r = tl.arange(0, 4)[:, :, None]
    tl.store(z + 1 + r, r.to(tl.float32) + 0.5)


@nereid.jit(device=CPU)
def float_atomic_minmax(mx, mn, v, old_mx, old_mn, N: tl.constexpr):
    i = tl.arange(0, 16)
    m = i < N
    x = tl.load(v + i, mask=m)
    tl.store(old_mx + i, tl.atomic_max(mx + i, x, mask=m), mask=m)
    tl.store(old_mn + i, tl.atomic_min(mn + i, x, mask=m), mask=m)


@nereid.jit(device=CPU)
def store_one_side(x_true, x_false, ret):
    pid = tl.program_id(0)
    tl.store(ret + pid, tl.load(x_true + pid)) if pid % 2 == 0 else tl.store(ret + pid, tl.load(x_false + pid))


@nereid.jit(device=CPU)
def scan_sort5(x, out, AXIS: tl.constexpr):
    v = tl.load(x + tl.arange(0, 1024)).reshape(2, 4, 8, 4, 4)
    tl.store(out + tl.arange(0, 1024), tl.cumsum(v, AXIS).reshape(1024))
    tl.store(out + 1024 + tl.arange(0, 1024), tl.sort(v, AXIS).reshape(1024))
    tl.store(out + 2048 + tl.arange(0, 1024), tl.flip(v, AXIS).reshape(1024))


@nereid.jit(device=CPU)
def sixteen_dims(x, out, SEVENTEEN: tl.constexpr):
    v = tl.load(x + tl.arange(0, 65536)).reshape(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2)
    if SEVENTEEN:
        v = v[None, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :]
    tl.store(out + tl.arange(0, 65536),
             tl.permute(v, (15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)).reshape(65536))


@nereid.jit(device=CPU)
def nine_dims(x, out):  # Triton's test_reshape reshapes through 9 dims
    v = tl.load(x + tl.arange(0, 512)).reshape(2, 1, 2, 2, 4, 1, 2, 2, 4)
    w = tl.permute(v, (8, 0, 7, 1, 6, 2, 5, 3, 4))
    tl.store(out + tl.arange(0, 512), w.reshape(512))
    tl.store(out + 512 + tl.arange(0, 32), tl.sum(tl.sum(v, 8), 4).reshape(32))


@nereid.jit(device=CPU)
def block_ptr6(x, out, S0, S5):
    p = tl.make_block_ptr(x, (S0, 2, 2, 2, 2, S5), (16 * S5, 8 * S5, 4 * S5, 2 * S5, S5, 1),
                          (0, 0, 0, 0, 0, 0), (2, 2, 2, 2, 2, 8), (5, 4, 3, 2, 1, 0))
    v = tl.load(p, boundary_check=(0, 5), padding_option="zero")
    tl.store(out + tl.arange(0, 256), v.reshape(256))


@nereid.jit(device=CPU)
def desc5(x, out, BLOCK: tl.constexpr, RANK: tl.constexpr):
    d = tl.make_tensor_descriptor(x, [2] * (RANK - 1) + [16], [2 ** (RANK - 1 - i) * 8 for i in range(RANK - 1)] + [1],
                                  [2] * (RANK - 1) + [BLOCK])
    o = tl.make_tensor_descriptor(out, [2] * (RANK - 1) + [16], [2 ** (RANK - 1 - i) * 8 for i in range(RANK - 1)] + [1],
                                  [2] * (RANK - 1) + [BLOCK])
    o.store([0] * RANK, d.load([0] * RANK) + 1)
# Triton's launcher makes an int argument equal to 1 a constexpr (a bare parameter's, not in
# do_not_specialize; a tuple's items always; never a bool, nor an annotated parameter's)
@nereid.jit(device=CPU)
def power_tile(base, shape, strides, m_n, BLOCK: tl.constexpr):
    # strides[1] is 1: a constexpr, as a descriptor's last stride must be
    tl.static_assert(isinstance(strides[1].type, tl.constexpr_type))
    desc = tl.make_tensor_descriptor(base, shape=shape, strides=strides, block_shape=[BLOCK, BLOCK])
    tile = desc.load([0, 0])
    for _ in tl.range(0, m_n[1]):
        tile = m_n[0] * tile
    desc.store([0, 0], tile)


@nereid.jit(device=CPU)
def one_or_more(out, n, IS_ONE: tl.constexpr):
    if IS_ONE:
        tl.static_assert(isinstance(n.type, tl.constexpr_type))
        tl.static_assert(n == 1)
        tl.store(out + tl.arange(0, n), tl.full((n,), 7, tl.int32))  # a shape
    else:
        tl.static_assert(not isinstance(n.type, tl.constexpr_type))
        tl.store(out, n * 10)
    if n == 1:  # folded where n is the constexpr
        tl.store(out + 1, 100)
    else:
        tl.store(out + 1, 200)
    acc = 0
    for i in tl.range(0, n):
        acc += i + 1
    tl.store(out + 2, acc)


@nereid.jit(device=CPU, do_not_specialize=["n", 2])
def kept_at_run_time(out, n, m, pair):
    tl.static_assert(not isinstance(n.type, tl.constexpr_type))
    tl.static_assert(not isinstance(m.type, tl.constexpr_type))
    tl.static_assert(isinstance(pair[1].type, tl.constexpr_type))  # a tuple's items: always
    tl.store(out, n * 1000 + m * 100 + pair[0] * 10 + pair[1])


@nereid.jit(device=CPU)
def not_specialised(out, flag, neg, typed: int, dt: tl.int32):
    tl.static_assert(not isinstance(flag.type, tl.constexpr_type) and flag.dtype == tl.int1)
    tl.static_assert(not isinstance(neg.type, tl.constexpr_type))
    tl.static_assert(not isinstance(typed.type, tl.constexpr_type))
    tl.static_assert(not isinstance(dt.type, tl.constexpr_type))
    tl.store(out, flag.to(tl.int32) * 1000 + neg * 100 + typed * 10 + dt)


@nereid.jit(device=CPU)
def typed_by_the_argument(out, n: tl.const, t: tl.tensor, ONE: tl.constexpr):
    tl.static_assert(isinstance(n.type, tl.constexpr_type) == ONE)  # tl.const does not stop it
    tl.store(out, n * 10 + t)


@nereid.jit(device=CPU)
def copy_with_hints(x, y, n, LC: tl.constexpr, SC: tl.constexpr, EV: tl.constexpr, B: tl.constexpr):
    offs = tl.arange(0, B)
    a = tl.load(x + offs, cache_modifier=LC, eviction_policy=EV)
    b = tl.load(x + offs, mask=offs < n, other=-1.0, cache_modifier=LC, eviction_policy=EV)
    tl.store(y + offs, a, cache_modifier=SC, eviction_policy=EV)
    tl.store(y + B + offs, b, mask=offs < n, cache_modifier=SC, eviction_policy=EV)
    p = tl.make_block_ptr(x, (n, ), (1, ), (0, ), (B, ), (0, ))
    q = tl.make_block_ptr(y + 2 * B, (n, ), (1, ), (0, ), (B, ), (0, ))
    tl.store(q, tl.load(p, boundary_check=(0, ), cache_modifier=LC, eviction_policy=EV) + 1,
             boundary_check=(0, ), cache_modifier=SC, eviction_policy=EV)


class TritonLanguage(unittest.TestCase):
    def test_tl_functions_bound_at_module_level(self):
        x = np.random.RandomState(2).randn(16).astype(np.float32)
        idx = np.random.RandomState(3).randint(0, 16, 16).astype(np.int32)
        out = np.zeros(16, np.float32)
        gather_by_module_name[(1,)](x, idx, out, B=16)
        np.testing.assert_allclose(out, np.tanh(x[idx]) + np.exp(x[idx]), rtol=1e-5, atol=1e-6)

    def test_string_constants_at_module_level(self):
        rng = np.random.RandomState(7)
        a, b = rng.rand(16, 16).astype(np.float32), rng.rand(16, 16).astype(np.float32)
        c = np.zeros((16, 16), np.float32)
        dot_with_module_strings[(1,)](a, b, c, B=16)
        want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
        # rounded toward zero to fp16: never above the value, within one fp16 step below
        self.assertTrue(np.all(c <= want + 1e-6))
        np.testing.assert_allclose(c, want, rtol=2 ** -9, atol=1e-6)

    def test_language_core(self):
        for dt in (np.float32, np.float16):
            x = np.random.RandomState(4).randn(16).astype(dt)
            out = np.zeros_like(x)
            flip_bits[(1,)](x, out, B=16)
            np.testing.assert_array_equal(out, x)
            flip_bits[(1,)](x, out, B=16, FLIP=1)
            it = {2: np.int16, 4: np.int32}[x.itemsize]
            want = (x.view(it) ^ it(np.iinfo(it).max)).view(dt)
            np.testing.assert_array_equal(out.view(it), want.view(it))
        self.assertEqual(tl.core.get_int_dtype(16, False), tl.uint16)
        self.assertEqual(tl.core.CONSTEXPR_0, 0)

    def test_cache_modifier_and_eviction_policy(self):
        # Triton's strings are performance hints: the values are those of plain accesses,
        # and anything else is Triton's error
        x = np.arange(16, dtype=np.float32)
        for lc, sc, ev in (("", "", ""), (".ca", ".wb", "evict_first"), (".cg", ".cg", "evict_last"),
                           (".cv", ".cs", ""), ("", ".wt", "evict_last"), (None, None, None)):
            y = np.zeros(48, np.float32)
            copy_with_hints[(1,)](x, y, 10, LC=lc, SC=sc, EV=ev, B=16)
            want = np.concatenate([x, x[:10], np.zeros(6), x[:10] + 1, np.zeros(6)]).astype(np.float32)
            np.testing.assert_array_equal(y, want)
        for lc, sc, ev, msg in ((".wb", "", "", "tl.load: Cache modifier .wb not supported"),
                                ("", ".ca", "", "tl.store: Cache modifier .ca not supported"),
                                ("", "", "evict_normal", "tl.load: Eviction policy evict_normal not supported")):
            with self.assertRaises(nereid.CompileError) as cm:
                copy_with_hints[(1,)](x, np.zeros(48, np.float32), 10, LC=lc, SC=sc, EV=ev, B=16)
            self.assertIn(msg, str(cm.exception))

    def test_next_power_of_2_in_a_kernel(self):
        for k, bk in ((10, 16), (16, 16), (1, 1), (33, 64)):
            x = np.arange(k, dtype=np.float32)
            out = np.zeros(2, np.float32)
            sum_padded[(1,)](x, out, K=k)
            np.testing.assert_array_equal(out, [x.sum(), bk])

    def test_python_range_with_hint_keywords(self):
        sizes = np.array([3, 0, 5, 8], np.int32)
        x = np.random.RandomState(5).randn(int(sizes.sum())).astype(np.float32)
        out = np.zeros(4, np.float32)
        sum_segments[(1,)](x, sizes, out, NSEG=4, B=8, FLATTEN=True)
        want = [x[a:a + n].sum() for a, n in zip(np.cumsum(sizes) - sizes, sizes)]
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)

    def test_list_comprehensions(self):
        for size in range(5):
            vals = tuple(float(i + 1) for i in range(size))
            outs = tuple(np.zeros(2, np.float32) for _ in range(max(size, 1)))
            store_bumped[(1,)](outs if size else (outs[0],), vals if size else (0.0,), N=6)
            for i, v in enumerate(vals):
                self.assertEqual(outs[i][0], v + 1)
            first = outs[0][0]
            self.assertEqual(outs[0][1], first * 3 + 3 * 100 + 25 * 1000)

    def test_namedtuple_arguments(self):
        Op = collections.namedtuple("Op", "fn extra")
        x = np.random.RandomState(3).randn(32, 32).astype(np.float32)
        y = np.zeros((16, 16), np.float32)
        a = np.array([5.25], np.float32)
        st = lambda t: tuple(s // t.itemsize for s in t.strides)
        scale_into[(1,)](Op(times_loaded, (a,)), Strided(x, x.shape, st(x)), Strided(y, y.shape, st(y)),
                         BM=64, BN=64)
        np.testing.assert_allclose(y, x[:16, :16] * a[0])

    def test_namedtuple_fields_and_defaults(self):
        out = np.zeros(16, np.int32)
        fill_span[(1,)](out, Span(2, 3), Span(start=7))  # where: a namedtuple of run-time ints
        np.testing.assert_array_equal(out, [0, 0] + [74] * 3 + [0] * 11)
        out[:] = 0
        fill_span[(1,)](out, Span(start=8), Span(1, 2))
        np.testing.assert_array_equal(out, [0] * 8 + [12] * 4 + [0] * 4)

    def test_map_elementwise_helpers_by_other_names(self):
        rs = np.random.RandomState(5)
        x = rs.randint(-50, 50, 64).astype(np.int32)
        y = rs.randint(1, 9, 64).astype(np.int32)
        z, q, r = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
        mapped_through_names[(1,)](x, y, z, q, r, B=64)
        np.testing.assert_array_equal(z, np.sign(x - y))
        np.testing.assert_array_equal(q, np.trunc(x / y).astype(np.int32))  # blocks: C's rounding, as Triton
        np.testing.assert_array_equal(r, np.fmod(x, y))

    def test_helpers_defined_in_a_function(self):
        # as Triton's tests write them: the helper (named like Python's divmod) and the
        # kernel are local to the test; the kernel closes over the helper
        @nereid.jit
        def divmod(a, b):
            return a // b + 100, a % b

        @nereid.jit
        def compare(x, y):
            if x < y:
                return -1
            elif x == y:
                return 0
            else:
                return 1

        SHIFT = 3

        @nereid.jit(device=CPU)
        def kernel(A, B, C, D, E, BLOCK: tl.constexpr):
            a = tl.load(A + tl.arange(0, BLOCK))
            b = tl.load(B + tl.arange(0, BLOCK))
            c, d = tl.map_elementwise(divmod, a, b)
            tl.store(C + tl.arange(0, BLOCK), c)
            tl.store(D + tl.arange(0, BLOCK), d + SHIFT)
            tl.store(E + tl.arange(0, BLOCK), tl.map_elementwise(compare, a, b))

        rs = np.random.RandomState(9)
        a = rs.randint(0, 1000, 128).astype(np.uint32)
        b = rs.randint(1, 50, 128).astype(np.uint32)
        b[:4] = a[:4]
        c, d, e = np.zeros_like(a), np.zeros_like(a), np.zeros(128, np.int32)
        kernel[(1,)](a, b, c, d, e, BLOCK=128)
        np.testing.assert_array_equal(c, a // b + 100)
        np.testing.assert_array_equal(d, a % b + 3)
        np.testing.assert_array_equal(e, np.sign(a.astype(np.int64) - b))

    def test_libdevice_bessel(self):
        libm = ctypes.CDLL(ctypes.util.find_library("m"))
        refs = {}
        for name in ("j0", "j1", "y0", "y1"):
            f = getattr(libm, name)
            f.restype, f.argtypes = ctypes.c_double, [ctypes.c_double]
            refs[name] = np.vectorize(f)
        refs["cyl_bessel_i0"] = lambda x: _bessel_i(0, x)
        refs["cyl_bessel_i1"] = lambda x: _bessel_i(1, x)
        rs = np.random.RandomState(42)
        for dtype in (np.float32, np.float64):
            x = (rs.randn(128) * 4).astype(dtype)
            x[:3] = [0.0, -0.0, 30.5]
            for name, ref in refs.items():
                y = np.zeros_like(x)
                apply_libdevice[(1,)](x, y, fn=name, SIZE=128)
                with np.errstate(all="ignore"):  # y0, y1 of 0 and of negative numbers
                    want = ref(x.astype(np.float64)).astype(dtype)
                np.testing.assert_allclose(y, want, rtol=1e-6 if dtype == np.float32 else 1e-12,
                                           atol=1e-30, equal_nan=True, err_msg=f"{name} {dtype}")

    def test_const_pointers(self):
        x = np.arange(16, dtype=np.float32)
        y = np.zeros(16, np.float32)
        copy_through[(1,)](x, y, y, False, 16, B=16)  # loads through tl.const pointers
        np.testing.assert_array_equal(y, x)
        self.assertTrue(copy_through.params[0].is_const and not copy_through.params[1].is_const)
        with self.assertRaises(nereid.CompileError) as cm:  # the helper returns alt, const
            copy_through[(1,)](x, y, y, True, 16, B=16)
        self.assertIn("Cannot store to a constant pointer", cm.exception.error_message)
        with self.assertRaises(nereid.CompileError) as cm:  # a run-time choice of const or not
            store_either[(1,)](x, y, 2, B=16)  # (1 would be a constexpr, as in Triton: src, stored to)
        self.assertIn("Ternary expression with dynamic condition has inconsistent type", cm.exception.error_message)

    def test_map_elementwise(self):
        rs = np.random.RandomState(17)
        x = rs.randint(-40, 40, 64).astype(np.int32)
        y = rs.randint(-40, 40, 64).astype(np.int32)
        y[:8] = x[:8]
        z, w = np.zeros(64, np.int32), np.zeros(64, np.int32)
        q, r = np.zeros(64, np.uint32), np.zeros(64, np.uint32)
        mapped[(1,)](x, y, z, q, r, w, B=64)
        np.testing.assert_array_equal(z, np.sign(x.astype(np.int64) - y))
        a, b = x.astype(np.uint32), y.astype(np.uint32) | 1
        np.testing.assert_array_equal(q, a // b)
        np.testing.assert_array_equal(r, a % b)
        np.testing.assert_array_equal(w, x.reshape(32, 2)[:, ::-1].reshape(64))

    def test_getattr_picks_function_and_enum(self):
        a = np.array([1.0, np.nan, 3.0, np.nan], np.float32)
        b = np.array([2.0, 0.5, np.nan, np.nan], np.float32)
        c = np.zeros(4, np.float32)
        pick_minmax[(1,)](a, b, c, FN="maximum", NAN="ALL")
        np.testing.assert_array_equal(c, np.maximum(a, b))
        pick_minmax[(1,)](a, b, c, FN="minimum", NAN="NONE")
        self.assertEqual(c[0], 1.0)
        self.assertFalse(np.isnan(c[1]) and np.isnan(c[2]))

    def test_hasattr_short_circuit(self):
        clamp_if_int32_ptr[(1,)](None)
        clamp_if_int32_ptr[(1,)](1)
        for value, dtype, want in [(37.5, np.float32, 37.5), (84.0, np.float32, 84.0),
                                   (100000, np.int32, 42), (7, np.int32, 7), (100000, np.int64, 100000)]:
            x = np.full(1, value, dtype)
            clamp_if_int32_ptr[(1,)](x)
            self.assertEqual(x[0], want)

    def test_raise_only_where_not_reached(self):
        x = np.arange(8, dtype=np.float32)
        out = np.zeros(8, np.float32)
        transform[(1,)](x, out, MODE="double")
        np.testing.assert_array_equal(out, x * 2)
        transform[(1,)](x, out, MODE="negate")
        np.testing.assert_array_equal(out, -x)
        with self.assertRaises(nereid.CompileError) as cm:
            transform[(1,)](x, out, MODE="square")
        self.assertIn("unknown MODE", str(cm.exception))

    def test_interleave_scalars(self):
        z = np.zeros(2, np.float32)
        interleave_scalars[(1,)](10.0, 20.0, z)
        np.testing.assert_array_equal(z, [10.0, 20.0])

    def test_expand_dims_and_none_slices(self):
        x = np.arange(8, dtype=np.int32)
        out = np.zeros(64, np.int32)
        outer_sum[(1,)](x, out, N=8)
        np.testing.assert_array_equal(out.reshape(8, 8), x[:, None] + x[None, :] + x[:, None])

    def test_invalid_index_and_axis_messages(self):
        @nereid.jit(device=CPU)
        def bad_slice(dst):
            dst[10:]

        @nereid.jit(device=CPU)
        def bad_axis(dst):
            tl.expand_dims(tl.arange(0, 4), 2)

        @nereid.jit(device=CPU)
        def bad_pid(dst):
            tl.program_id(7)

        dst = np.zeros(4, np.float32)
        for kernel, text in [(bad_slice, "unsupported tensor index"), (bad_axis, "invalid axis 2"),
                             (bad_pid, "program_id axis must be 0, 1, or 2 but got 7")]:
            with self.assertRaises(nereid.CompileError) as cm:
                kernel[(1,)](dst)
            self.assertIn(text, cm.exception.error_message)
            self.assertIn(text, str(cm.exception.__cause__))

    def test_poison_return(self):
        x = np.array([5], np.int32)
        out = np.zeros(1, np.int32)
        poison_user[(1,)](x, out, 1)
        self.assertEqual(out[0], 15)
        poison_user[(1,)](x, out, 0)  # the value is undefined: any int32 will do

    def test_asserts_in_combine_functions(self):
        for axis in (0, 1):
            x = np.random.RandomState(axis).randint(0, 10, (4, 16)).astype(np.int32)
            z = np.zeros(128, np.int32)
            checked_sums[(1,)](z, x, B0=4, B1=16, AXIS=axis)
            red = x.sum(axis)
            np.testing.assert_array_equal(z[:red.size], red)
            np.testing.assert_array_equal(z[64:128].reshape(4, 16), np.cumsum(x, axis))
        x = np.full((4, 16), 2**30, np.int32)
        with self.assertRaises(nereid.LaunchError) as cm:
            checked_sums[(1,)](np.zeros(128, np.int32), x, B0=4, B1=16, AXIS=1)
        self.assertIn("overflow in the sum", str(cm.exception))


class BlocksOfHighRank(unittest.TestCase):
    def test_chained_reductions(self):
        # Triton's test_chained_reductions parametrisations: shape, permutation, the 3 axes
        for shape, perm, axes in (((4, 32, 32, 4, 2), (2, 1, 0, 3, 4), (3, 1, 0)),
                                  ((8, 2, 32, 4, 16), (4, 0, 1, 3, 2), (0, 2, 0))):
            x = np.random.RandomState(sum(shape)).randint(-100, 100, shape).astype(np.int32)
            want = np.transpose(x, perm)
            for a in axes:
                want = want.sum(a, dtype=np.int32)
            out = np.zeros(want.shape, np.int32)
            sums_of_permuted[(1,)](x, out, *shape, PERM=perm, AXES=axes)
            np.testing.assert_array_equal(out, want)

    def test_reshape_round_trips(self):
        for shape, perm in (((2, 4, 2, 8, 4, 4), (5, 3, 0, 4, 1, 2)), ((8, 4, 2, 2, 4), (4, 2, 0, 3, 1)),
                            ((2,) * 8, (1, 0, 3, 2, 5, 4, 7, 6)), ((4, 1, 2, 1, 8, 2), (0, 2, 4, 5, 1, 3))):
            n = int(np.prod(shape))
            x = np.random.RandomState(n).randint(-1000, 1000, n).astype(np.int32)
            out = np.zeros(2 * n, np.int32)
            reshape_through[(1,)](x, out, N=n, SHAPE=shape, PERM=perm)
            np.testing.assert_array_equal(out[:n], np.transpose(x.reshape(shape), perm).ravel())
            np.testing.assert_array_equal(out[n:], x)

    def test_expand_dims_and_broadcast_to_rank_5(self):
        x = np.arange(16, dtype=np.int32) * 3 - 20
        out = np.zeros(1024 + 512, np.int32)
        spread5[(1,)](x, out)
        a = x.reshape(2, 8)[None, :, None, :, None]
        d = np.broadcast_to(a, (4, 2, 2, 8, 8)) + a * 1000 + np.arange(8)
        want = d + np.arange(4).reshape(4, 1, 1, 1, 1) * 100
        np.testing.assert_array_equal(out[:1024].reshape(4, 2, 2, 8, 8), want)
        np.testing.assert_array_equal(out[1024:], d.max(2).ravel())

    def test_batched_dot_with_several_batch_dims(self):
        # Triton's test_dot_multidim, ranks 5 and 6 (and 3 and 4 as before), small integers
        # in fp32: exact sums
        for rank in (3, 4, 5, 6):
            for ta, tb in ((False, False), (True, False), (False, True)):
                shape = (2,) * (rank - 2) + (32, 32)
                rng = np.random.RandomState(rank * 4 + ta * 2 + tb)
                a = rng.randint(-4, 5, shape).astype(np.float32)
                b = rng.randint(-4, 5, shape).astype(np.float32)
                c = np.zeros(shape, np.float32)
                dot_nd[(1,)](a, b, c, RANK=rank, TA=ta, TB=tb)
                want = np.matmul(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b)
                np.testing.assert_array_equal(c, want)

    def test_scans_and_sorts_along_each_axis_of_a_5d_block(self):
        x = np.random.RandomState(11).randint(-50, 50, 1024).astype(np.int32)
        v = x.reshape(2, 4, 8, 4, 4)
        for axis in range(5):
            out = np.zeros(3072, np.int32)
            scan_sort5[(1,)](x, out, AXIS=axis)
            np.testing.assert_array_equal(out[:1024], np.cumsum(v, axis, dtype=np.int32).ravel())
            np.testing.assert_array_equal(out[1024:2048], np.sort(v, axis).ravel())
            np.testing.assert_array_equal(out[2048:], np.flip(v, axis).ravel())

    def test_sixteen_dims_and_no_more(self):
        x = np.arange(65536, dtype=np.int32)
        out = np.zeros(65536, np.int32)
        sixteen_dims[(1,)](x, out, SEVENTEEN=False)
        np.testing.assert_array_equal(out, np.transpose(x.reshape((2,) * 16)).ravel())
        with self.assertRaises(nereid.CompileError) as cm:
            sixteen_dims[(1,)](x, out, SEVENTEEN=True)
        self.assertIn("blocks have at most 16 dimensions", cm.exception.error_message)

    def test_indices_as_triton_counts_them(self):
        z = np.zeros(5, np.float32)
        index_like_triton[(1,)](np.arange(32, dtype=np.float32), z)
        np.testing.assert_array_equal(z, [496, 0.5, 1.5, 2.5, 3.5])

    def test_nine_dims(self):
        x = np.arange(512, dtype=np.int32)
        out = np.zeros(544, np.int32)
        nine_dims[(1,)](x, out)
        v = x.reshape(2, 1, 2, 2, 4, 1, 2, 2, 4)
        np.testing.assert_array_equal(out[:512], np.transpose(v, (8, 0, 7, 1, 6, 2, 5, 3, 4)).ravel())
        np.testing.assert_array_equal(out[512:], v.sum(8).sum(4).ravel())

    def test_block_pointer_of_6_dims(self):
        for s0, s5 in ((2, 8), (1, 5)):
            x = np.arange(32 * 8, dtype=np.int32) + 1
            out = np.zeros(256, np.int32)
            block_ptr6[(1,)](x, out, s0, s5)
            full = np.zeros((2, 2, 2, 2, 2, 8), np.int32)  # rows of s5 elements, zeros past the bounds
            full[:s0, ..., :s5] = x[:16 * s5 * s0].reshape(s0, 2, 2, 2, 2, s5)
            np.testing.assert_array_equal(out, full.ravel())

    def test_tensor_descriptors_of_5_dims_and_no_more(self):
        x = np.arange(256, dtype=np.int32)
        out = np.zeros(256, np.int32)
        desc5[(1,)](x, out, BLOCK=32, RANK=5)  # the block is wider than the tensor: clipped
        np.testing.assert_array_equal(out, x + 1)
        with self.assertRaises(nereid.CompileError) as cm:
            desc5[(1,)](np.arange(512, dtype=np.int32), np.zeros(512, np.int32), BLOCK=16, RANK=6)
        self.assertIn("Expected 1 <= ndim <= 5 but got 6 dimensions", cm.exception.error_message)


class FloatAtomicMinMax(unittest.TestCase):
    """fp32/fp64 atomic max and min as the GPU's integer atomics on the bits do them (and
    Triton's): -0.0 below +0.0, a NaN value ignored, a NaN in memory kept by max when its
    sign bit is clear (by min when set) and replaced otherwise."""

    def test_signs_zeros_and_nans(self):
        nan, neg_nan = np.float32(np.nan), -np.float32(np.nan)
        mem = np.array([0.0, -0.0, -1.0, 2.0, nan, nan, neg_nan, neg_nan, 3.0, -3.0, 5.0, 0.0], np.float32)
        val = np.array([-0.0, 0.0, -0.0, 1.0, 7.0, -7.0, 7.0, -7.0, nan, neg_nan, -np.inf, np.inf], np.float32)
        for dt in (np.float32, np.float64):
            mx, mn = mem.astype(dt), mem.astype(dt)
            old_mx, old_mn = np.zeros_like(mx), np.zeros_like(mn)
            float_atomic_minmax[(1,)](mx, mn, val.astype(dt), old_mx, old_mn, N=12)
            np.testing.assert_array_equal(old_mx, mem.astype(dt))
            np.testing.assert_array_equal(old_mn, mem.astype(dt))
            want_mx = [0.0, 0.0, -0.0, 2.0, nan, nan, 7.0, -7.0, 3.0, -3.0, 5.0, np.inf]
            want_mn = [-0.0, -0.0, -1.0, 1.0, 7.0, -7.0, neg_nan, neg_nan, 3.0, -3.0, -np.inf, 0.0]
            np.testing.assert_array_equal(mx, np.array(want_mx, dt))
            np.testing.assert_array_equal(mn, np.array(want_mn, dt))
            self.assertEqual(list(np.signbit(mx[:3])), [False, False, True])
            self.assertEqual(list(np.signbit(mn[:3])), [True, True, True])


class ConditionalExpressions(unittest.TestCase):
    def test_sides_called_for_their_effect(self):
        # Triton's test_if (if_exp_dynamic_void): only the side taken stores
        t = np.arange(6, dtype=np.float32) + 10
        f = -np.arange(6, dtype=np.float32)
        r = np.zeros(6, np.float32)
        store_one_side[(6,)](t, f, r)
        np.testing.assert_array_equal(r, [10, -1, 12, -3, 14, -5])


class DotPrecisions(unittest.TestCase):
    """tl.dot's input_precision as Triton 3.6 takes it: tf32x3, bf16x3 and bf16x6 split fp32
    operands into narrower parts and sum 3 or 6 dots (near-fp32 accuracy, each its own);
    fp64 operands give fp64 whatever out_dtype says."""

    def run_dot(self, a, b, c, p, out=tl.float32):
        z = c.copy()
        dot_prec[(1,)](a, b, z, N=a.shape[0], P=p, OUT=out)
        return z

    def test_split_precisions_reach_their_accuracy(self):
        rng = np.random.RandomState(5)
        a, b, c = (rng.standard_normal((32, 32)).astype(np.float32) for _ in range(3))
        exact = a.astype(np.float64) @ b.astype(np.float64) + c
        scale = np.abs(a).astype(np.float64) @ np.abs(b) + np.abs(c)
        err = {p: (np.abs(self.run_dot(a, b, c, p) - exact) / scale).max()
               for p in ("tf32x3", "bf16x3", "bf16x6", "ieee")}
        # bf16x3 drops the mid x mid term (about 2^-16 of a product); tf32x3 the small x
        # small one (2^-22); bf16x6 keeps every term down to 2^-24; all sum 32 terms in fp32
        self.assertLess(err["bf16x3"], 2.0**-14)
        self.assertGreater(err["bf16x3"], 2.0**-20)
        self.assertLess(err["tf32x3"], 2.0**-18)
        self.assertLess(err["bf16x6"], 2.0**-18)
        self.assertLess(err["ieee"], 2.0**-18)

    def test_an_infinite_operand_gives_infinity_not_nan(self):
        # its small parts are NaN (inf - inf): their dots' NaNs are zeroed before the big
        # part's product, as Triton's F32DotTC does
        a = np.ones((16, 16), np.float32)
        b = np.full((16, 16), 0.5, np.float32)
        a[3, 5] = np.inf
        for p in ("tf32x3", "bf16x3", "bf16x6"):
            z = self.run_dot(a, b, np.zeros((16, 16), np.float32), p)
            self.assertTrue(np.isposinf(z[3]).all(), p)
            np.testing.assert_array_equal(np.delete(z, 3, 0), 8.0)

    def test_fp64_operands_give_fp64(self):
        rng = np.random.RandomState(6)
        a, b, c = (rng.standard_normal((16, 16)) for _ in range(3))
        for out in (tl.float32, tl.float64):  # out_dtype does not change it, as in Triton
            np.testing.assert_allclose(self.run_dot(a, b, c, "ieee", out), a @ b + c, rtol=1e-13, atol=1e-13)

    def test_an_unknown_precision_is_named(self):
        z = np.zeros((16, 16), np.float32)
        with self.assertRaises(nereid.CompileError) as cm:
            self.run_dot(z, z, z, "tf64")
        self.assertIn('input_precision must be "ieee", "tf32", "tf32x3", "bf16x3" or "bf16x6", got "tf64"',
                      cm.exception.error_message)


class IntsEqualToOne(unittest.TestCase):
    """Triton's launch-time specialisation: an int argument equal to 1 is tl.constexpr(1)
    in the kernel (its type tl.constexpr_type), its compile apart from other values'."""

    def test_tuple_item_as_a_descriptor_stride(self):
        for m_n in ((2, 3), (3, 1)):
            x = np.arange(16, dtype=np.int64).reshape(4, 4)
            want = x * m_n[0] ** m_n[1]
            power_tile[(1,)](x, x.shape, (x.shape[1], 1), m_n, x.shape[0])
            np.testing.assert_array_equal(x, want)

    def test_static_assert_on_the_type_and_alternating_values(self):
        out = np.zeros(4, np.int32)
        for n in (1, 2, 1, 3, 1):
            out[:] = 0
            one_or_more[(1,)](out, n, n == 1)
            want = [7, 100, 1] if n == 1 else [n * 10, 200, n * (n + 1) // 2]
            self.assertEqual(out[:3].tolist(), want, n)
        self.assertEqual(len(one_or_more._cache), 2)  # 1 compiles once; 2 and 3 share the i32 kernel
        compiled = one_or_more.warmup(out, 1, True, grid=(1,))
        self.assertEqual([n for n, _ in compiled.params()], ["out"])
        out[:] = 0
        compiled[(1,)](out, 5, True)  # the compiled kernel keeps its constexpr 1
        self.assertEqual(out[:3].tolist(), [7, 100, 1])

    def test_do_not_specialize_keeps_a_run_time_value(self):
        out = np.zeros(1, np.int32)
        for n, m in ((1, 1), (2, 3), (1, 1)):
            kept_at_run_time[(1,)](out, n, m, (4, 1))
            self.assertEqual(out[0], n * 1000 + m * 100 + 41)
        self.assertEqual(len(kept_at_run_time._cache), 1)
        compiled = kept_at_run_time.warmup(out, 1, 1, (1, 1), grid=(1,))
        self.assertEqual([n for n, _ in compiled.params()], ["out", "n", "m"])
        self.assertEqual([p.do_not_specialize for p in kept_at_run_time.params], [False, True, True, False])

        @nereid.jit(device=CPU, do_not_specialize=["N"])
        def constexpr_kept(N: tl.constexpr):
            pass

        with self.assertRaises(nereid.CompileError) as cm:  # as Triton refuses it
            constexpr_kept[(1,)](5)
        self.assertIn("N marked as constexpr and listed in do_not_specialize", cm.exception.error_message)

    def test_bools_negatives_and_annotated_parameters_stay_run_time_values(self):
        out = np.zeros(1, np.int32)
        not_specialised[(1,)](out, True, -1, 1, 1)
        self.assertEqual(out[0], 1000 - 100 + 10 + 1)
        compiled = not_specialised.warmup(out, True, -1, 1, 1, grid=(1,))
        self.assertEqual(compiled.params(), [("out", "*i32"), ("flag", "i1"), ("neg", "i32"), ("typed", "i32"),
                                             ("dt", "i32")])

    def test_parameters_typed_by_the_argument(self):
        out = np.zeros(1, np.int32)
        for n, t in ((1, 1), (2, 3), (1, 4)):
            typed_by_the_argument[(1,)](out, n, t, n == 1)
            self.assertEqual(out[0], n * 10 + t)

    def test_repr_sees_the_constexprs(self):
        seen = []

        def name(spec):
            seen.append((dict(spec.signature), dict(spec.constants)))
            return "k"

        @nereid.jit(device=CPU, repr=name, do_not_specialize=["kept"])
        def k(x, one, kept, flag):
            pass

        k.warmup(np.zeros(1, np.float32), 1, 1, True, grid=(1,))
        self.assertEqual(seen[-1], ({"x": "*fp32", "one": "constexpr", "kept": "i32", "flag": "i1"}, {"one": 1}))


def with_annotations(**types):
    """Sets the function's annotations, as a decorator of the user's may (Triton's
    test_annotations.py types its kernels so): the source carries none."""
    def set_them(fn):
        fn.__annotations__ = dict(types)
        return fn
    return set_them


@nereid.jit(device=CPU)
@with_annotations(v="tl.uint8")
def store_u8(X, v):
    tl.static_assert(v.dtype == tl.uint8)
    tl.store(X + tl.arange(0, 2), tl.full((2, ), v, tl.uint8).to(tl.float32))


@nereid.jit(device=CPU)
@with_annotations(val=tl.float16)
def store_f16(ptr, val):
    tl.static_assert(val.dtype == tl.float16)
    tl.store(ptr, val)


HALF = tl.float16  # a dtype global, read by the kernel below as Triton lets kernels read it


@nereid.jit(device=CPU)
def cast_to_global_dtype(x_ptr, y_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(y_ptr + tl.arange(0, N), x.to(HALF).to(tl.float32))


@nereid.jit(device=CPU)
def unknown_annotations(X: np.ndarray, n: typing.Optional[int], Y: "torch.Tensor", BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < n, other=0.0) * 2, mask=offs < n)


@nereid.jit(device=CPU)
def even_blocks(x_ptr, y_ptr, N: tl.constexpr, SCALE: tl.constexpr):
    tl.static_assert(N % 2 == 0, f"N must be even, got {N} (scale {SCALE!r})")
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.device_assert(x == x, f"{N=}: a NaN")
    tl.store(y_ptr + tl.arange(0, N), x * SCALE)


@nereid.constexpr_function
def block_for(n, cap=64):
    return min(cap, 64 if n >= 1024 else 16)


@nereid.constexpr_function
def doubled_block(n):
    return 2 * block_for(n)


@nereid.jit(device=CPU)
def fill_blocks(o_ptr, N: tl.constexpr):
    B: tl.constexpr = block_for(N, cap=32)
    D: tl.constexpr = doubled_block(N)
    tl.static_assert(D == 2 * block_for(N))
    tl.store(o_ptr + tl.arange(0, B), tl.zeros([B], tl.float32) + D)


class ConstexprFunctions(unittest.TestCase):
    """Triton's @triton.constexpr_function: from kernels (constexpr results) and Python."""

    def test_constexpr_function(self):
        o = np.zeros(64, np.float32)
        fill_blocks[(1, )](o, N=4096)
        np.testing.assert_array_equal(o[:32], np.full(32, 128.0))
        np.testing.assert_array_equal(o[32:], 0)
        fill_blocks[(1, )](o, N=8)
        np.testing.assert_array_equal(o[:16], np.full(16, 32.0))
        self.assertEqual(block_for(4096), 64)
        self.assertEqual(doubled_block(tl.constexpr(8)), 32)


@nereid.jit(device=CPU)
def libdevice_bits(x_ptr, n_ptr, y_ptr, o_f, o_i, o_l, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    n = tl.load(n_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(o_f + offs, libdevice.ldexp(x, n))
    tl.store(o_f + N + offs, libdevice.nextafter(x, y))
    tl.store(o_i + offs, libdevice.isinf(x))
    tl.store(o_i + N + offs, libdevice.isnan(x))
    tl.store(o_i + 2 * N + offs, libdevice.signbit(x))
    tl.store(o_i + 3 * N + offs, libdevice.finitef(x))
    tl.store(o_i + 4 * N + offs, libdevice.ilogb(x))
    tl.store(o_l + offs, libdevice.llrint(tl.where(tl.abs(x) < 1e9, x, 0.0)))


@nereid.jit(device=CPU)
def libdevice_c(x_ptr, y_ptr, o, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(o + offs, libdevice.fmod(x, y))
    tl.store(o + N + offs, libdevice.fmax(x, y))
    tl.store(o + 2 * N + offs, libdevice.fmin(x, y))
    tl.store(o + 3 * N + offs, libdevice.fdim(x, y))


class LibdeviceBits(unittest.TestCase):
    """libdevice's classification, exponent and rounding functions (Inductor's kernels call
    them: frexp is ilogb and ldexp): fp32 and fp64, specials and subnormals, against NumPy."""

    def test_against_numpy(self):
        for dt in (np.float32, np.float64):
            rng = np.random.RandomState(0)
            N = 256
            fi = np.finfo(dt)
            specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fi.tiny, -fi.tiny, fi.tiny * fi.eps,
                                 -fi.tiny * fi.eps, fi.max, -fi.max, 1.0, -1.0, 2.5, -2.5, 0.5], dt)
            rest = N - len(specials)
            x = np.concatenate([specials, (rng.randn(rest) * np.exp(rng.uniform(-80, 80, rest))).astype(dt)])
            x[100:140] = (rng.randn(40) * fi.tiny * rng.uniform(0, 1, 40)).astype(dt)  # subnormals
            lim = 300 if dt == np.float32 else 2200
            n = rng.randint(-lim, lim, N).astype(np.int32)
            n[:16] = [0, 5, 3, -3, 1, 100, -100, 30, -30, -1, 1, 127, -150, 200, -200, -1]
            y = np.concatenate([np.array([1.0, -1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, np.inf, 0.0, 1.0, -np.inf,
                                          2.5, 0.0, np.nan], dt), rng.randn(N - 16).astype(dt) * 1e3])
            o_f = np.zeros(2 * N, dt)
            o_i = np.zeros(5 * N, np.int32)
            o_l = np.zeros(N, np.int64)
            libdevice_bits[(1, )](x, n, y, o_f, o_i, o_l, N=N)
            with np.errstate(all="ignore"):
                ldexp, nxt = np.ldexp(x, n), np.nextafter(x, y)
                fin = np.isfinite(x) & (x != 0)
                ilogb = np.where(fin, np.frexp(x)[1] - 1, np.where(np.isinf(x), 2**31 - 1, -2**31))
            for got, want in ((o_f[:N], ldexp), (o_f[N:], nxt)):
                np.testing.assert_array_equal(got, want)
                np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
            np.testing.assert_array_equal(o_i[:N], np.isinf(x))
            np.testing.assert_array_equal(o_i[N:2 * N], np.isnan(x))
            np.testing.assert_array_equal(o_i[2 * N:3 * N], np.signbit(x))
            np.testing.assert_array_equal(o_i[3 * N:4 * N], np.isfinite(x))
            np.testing.assert_array_equal(o_i[4 * N:], ilogb)
            np.testing.assert_array_equal(o_l, np.rint(np.where(np.abs(x) < 1e9, x, 0)).astype(np.int64))

    def test_c_functions(self):
        for dt in (np.float32, np.float64):
            rng = np.random.RandomState(1)
            N = 64
            x, y = (rng.randn(N) * 1e3).astype(dt), (rng.randn(N) * 7).astype(dt)
            x[:8] = [np.nan, 1.0, np.inf, -0.0, 5.5, -5.5, 1e30, 3.0]
            y[:8] = [1.0, np.nan, 2.0, 3.0, np.inf, 2.0, 3.0, 0.0]
            o = np.zeros(4 * N, dt)
            libdevice_c[(1, )](x, y, o, N=N)
            with np.errstate(all="ignore"):
                want = [np.fmod(x, y), np.fmax(x, y), np.fmin(x, y),
                        np.where(np.isnan(x) | np.isnan(y), x + y, np.where(x > y, x - y, 0))]
            for i, w in enumerate(want):
                np.testing.assert_array_equal(o[i * N:(i + 1) * N], w)


class FStrings(unittest.TestCase):
    """f-strings in kernels as Triton takes them: fields known at compile time."""

    def test_fstring_messages(self):
        x = np.arange(4, dtype=np.float32)
        y = np.zeros(4, np.float32)
        even_blocks[(1, )](x, y, N=4, SCALE=0.5)
        np.testing.assert_array_equal(y, x * 0.5)
        with self.assertRaisesRegex(nereid.CompileError, r"N must be even, got 3 \(scale 0\.5\)"):
            even_blocks[(1, )](x, y, N=3, SCALE=0.5)


class Annotations(unittest.TestCase):
    """Annotations as Triton reads them (test_annotations.py): the function's
    __annotations__ type the parameters; ones that name no type Triton knows are ignored."""

    def test_annotations_set_by_a_decorator(self):
        x = np.zeros(2, np.float32)
        store_u8[(1, )](x, 300 % 256)
        np.testing.assert_array_equal(x, [44, 44])
        p = np.zeros(1, np.float32)
        store_f16[(1, )](p, 1.0 + 2.0**-11)  # rounded to fp16 on the way in: to even, 1.0
        self.assertEqual(p[0], 1.0)

    def test_unknown_annotations_are_ignored(self):
        x = np.arange(8, dtype=np.float32)
        y = np.full(8, -1, np.float32)
        unknown_annotations[(1, )](x, 5, y, BLOCK=8)
        np.testing.assert_array_equal(y, [0, 2, 4, 6, 8, -1, -1, -1])

    def test_dtypes_read_from_outside(self):
        x = np.array([1 + 2.0**-12, 65504.0, -3.25, 0.1], np.float32)
        y = np.zeros(4, np.float32)
        cast_to_global_dtype[(1, )](x, y, N=4)
        np.testing.assert_array_equal(y, x.astype(np.float16).astype(np.float32))
        for dtype, np_dtype in ((tl.bfloat16, None), (tl.float16, np.float16), (tl.float32, np.float32)):

            @nereid.jit(device=CPU)
            def cast_to_closed_over_dtype(x_ptr, y_ptr, N: tl.constexpr):
                v = tl.load(x_ptr + tl.arange(0, N)).to(dtype)
                tl.static_assert(v.dtype == dtype)
                tl.store(y_ptr + tl.arange(0, N), v.to(tl.float32))

            cast_to_closed_over_dtype[(1, )](x, y, N=4)
            if np_dtype is not None:
                np.testing.assert_array_equal(y, x.astype(np_dtype).astype(np.float32))
            else:  # bf16: x's top 16 bits, rounded to nearest even
                b = x.view(np.uint32).astype(np.uint64)
                r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)
                np.testing.assert_array_equal(y, r)


@nereid.jit(device=CPU)
def shift_right(x_ptr, y_ptr, z_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(z_ptr + o, tl.load(x_ptr + o) >> tl.load(y_ptr + o))


@nereid.jit(device=CPU)
def shift_constant_by_block(y_ptr, z_ptr, C: tl.constexpr, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(z_ptr + o, C >> tl.load(y_ptr + o))


@nereid.jit(device=CPU)
def select_pointers(cond_ptr, a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.pi32_t)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.pointer_type(tl.int32))
    tl.store(out_ptr + offs, tl.where(tl.load(cond_ptr + offs, mask=mask), a, b), mask=mask)


@nereid.jit(device=CPU)
def named_arithmetic(x_ptr, y_ptr, z_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o)
    y = tl.load(y_ptr + o)
    runs = tl.max_constancy(o // 4, 4)
    r = tl.add(x, y) - tl.mul(x, 3, sanitize_overflow=False) + tl.sub(y, 1) + runs
    tl.store(z_ptr + o, r + (tl.TRITON_MAX_TENSOR_NUMEL >> 10))


@nereid.jit
def xor_flag(x, flip: tl.constexpr = tl.core.CONSTEXPR_0):
    # a helper whose flag defaults to triton.language.core's CONSTEXPR_0, as the bitonic
    # sorts libraries copy from Triton's standard library declare `descending`
    return x ^ flip


@nereid.jit(device=CPU)
def constexpr_zero_default(z_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(z_ptr + o, xor_flag(o) + xor_flag(o, 1) * 1000 + tl.core.CONSTEXPR_0)


def triton_promoted(dx, dy):
    """The common type of two integer dtypes as Triton's integer_promote_impl (C's usual
    arithmetic conversions)."""
    sx, sy = dx.kind == "i", dy.kind == "i"
    if sx == sy:
        return dx if dx.itemsize > dy.itemsize else dy
    if not sx:
        return dx if dx.itemsize >= dy.itemsize else dy
    return dy if dy.itemsize >= dx.itemsize else dx


class SignednessAndPointers(unittest.TestCase):
    """x >> y as Triton's tensor.__rshift__: the operands take the common type, but a signed
    x shifts its sign in even when that type is unsigned (int8 >> uint16 is an arithmetic
    shift of x sign-extended to 16 bits, the result uint16; Triton's test_shift_op)."""

    def test_right_shift_follows_the_left_operands_signedness(self):
        rs = np.random.RandomState(3)
        names = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
        for nx in names:
            for ny in names:
                dx, dy = np.dtype(nx), np.dtype(ny)
                rt = triton_promoted(dx, dy)
                bits = rt.itemsize * 8
                x = (rs.randint(0, 2**62, 32, dtype=np.int64).astype(np.uint64) * np.uint64(5)).astype(dx)
                x[:4] = np.array([-1, -2, 1, 0]).astype(dx)  # sign bits set where x is signed
                y = rs.randint(0, min(bits, np.iinfo(dy).max + 1), 32).astype(dy)
                z = np.zeros(32, rt)
                shift_right[(1, )](x, y, z, N=32)
                calc = np.dtype(("int" if dx.kind == "i" else "uint") + str(bits))
                want = (x.astype(calc) >> y.astype(calc)).astype(rt)
                np.testing.assert_array_equal(z, want, err_msg=f"{nx} >> {ny}")

    def test_a_constant_shifted_by_a_block_takes_the_blocks_signedness(self):
        y = np.arange(8, dtype=np.int32)
        z = np.zeros(8, np.int32)
        shift_constant_by_block[(1, )](y, z, C=-64, N=8)  # arithmetic: the block is signed
        np.testing.assert_array_equal(z, np.int32(-64) >> y)
        y = np.arange(8, dtype=np.uint16)
        z = np.zeros(8, np.uint16)
        shift_constant_by_block[(1, )](y, z, C=0xFFC0, N=8)  # logical: the block is unsigned
        np.testing.assert_array_equal(z, np.uint16(0xFFC0) >> y)

    def test_pointers_selected_and_stored_as_addresses(self):
        rs = np.random.RandomState(4)
        n = 100
        cond = rs.rand(n) < 0.5
        a = rs.randint(-2**62, 2**62, n, dtype=np.int64)
        b = rs.randint(-2**62, 2**62, n, dtype=np.int64)
        out = np.zeros(n, np.int64)
        select_pointers[(2, )](cond, a, b, out, n, BLOCK=64)
        np.testing.assert_array_equal(out, np.where(cond, a, b))

    def test_storing_pointers_into_narrow_integers_is_refused(self):

        @nereid.jit(device=CPU)
        def store_ptr_as_i32(a_ptr, out_ptr):
            tl.store(out_ptr, tl.load(a_ptr).to(tl.pi32_t))

        with self.assertRaisesRegex(nereid.CompileError, "64-bit integer"):
            store_ptr_as_i32[(1, )](np.zeros(1, np.int64), np.zeros(1, np.int32))

    def test_max_num_imprecise_acc_is_checked_as_triton_does(self):

        @nereid.jit(device=CPU)
        def fp8_dot(a_ptr: "*fp8e4nv", b_ptr: "*fp8e4nv", c_ptr, IMPRECISE: tl.constexpr):
            r = tl.arange(0, 32)
            a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
            b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
            tl.store(c_ptr + r[:, None] * 32 + r[None, :], tl.dot(a, b, max_num_imprecise_acc=IMPRECISE))

        a = np.full((32, 32), 0x38, np.uint8)  # 1.0 in fp8e4nv (uint8 arrays hold fp8 bytes)
        c = np.zeros((32, 32), np.float32)
        for imprecise in (None, 0, 32):  # at most K: the same sums on the interpreter
            fp8_dot[(1, )](a, a, c, IMPRECISE=imprecise)
            np.testing.assert_array_equal(c, 32.0)
        with self.assertRaisesRegex(nereid.CompileError, r"max_num_imprecise_acc \(64\) must be <= K \(32\)"):
            fp8_dot[(1, )](a, a, c, IMPRECISE=64)

    def test_named_arithmetic_and_constancy_hint(self):
        rs = np.random.RandomState(5)
        x = rs.randint(-1000, 1000, 64).astype(np.int32)
        y = rs.randint(-1000, 1000, 64).astype(np.int32)
        z = np.zeros(64, np.int32)
        named_arithmetic[(1, )](x, y, z, N=64)
        np.testing.assert_array_equal(z, x + y - 3 * x + y - 1 + np.arange(64) // 4 + 1024)

    def test_core_constexpr_zero(self):
        z = np.zeros(16, np.int32)
        constexpr_zero_default[(1, )](z, N=16)
        np.testing.assert_array_equal(z, np.arange(16) + (np.arange(16) ^ 1) * 1000)


@nereid.jit(device=CPU)
def libdevice_int_bits(x_ptr, y_ptr, o_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o)
    y = tl.load(y_ptr + o)
    tl.store(o_ptr + 0 * N + o, libdevice.popc(x).to(x.dtype))
    tl.store(o_ptr + 1 * N + o, libdevice.clz(x).to(x.dtype))
    tl.store(o_ptr + 2 * N + o, libdevice.brev(x))
    tl.store(o_ptr + 3 * N + o, libdevice.ffs(x).to(x.dtype))
    tl.store(o_ptr + 4 * N + o, libdevice.mulhi(x, y))
    tl.store(o_ptr + 5 * N + o, libdevice.hadd(x, y))
    tl.store(o_ptr + 6 * N + o, libdevice.rhadd(x, y))


@nereid.jit(device=CPU)
def libdevice_i32_misc(x_ptr, y_ptr, s_ptr, o_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o)
    y = tl.load(y_ptr + o)
    s = tl.load(s_ptr + o)
    tl.store(o_ptr + 0 * N + o, libdevice.mul24(x, y))
    tl.store(o_ptr + 1 * N + o, libdevice.sad(x, y, s.to(tl.uint32, bitcast=True)))
    tl.store(o_ptr + 2 * N + o, libdevice.byte_perm(x, y, s))
    tl.store(o_ptr + 3 * N + o, libdevice.float_as_int(libdevice.int_as_float(x)))
    tl.store(o_ptr + 4 * N + o, libdevice.double2hiint(libdevice.hiloint2double(x, y)))
    tl.store(o_ptr + 5 * N + o, libdevice.double2loint(libdevice.hiloint2double(x, y)))


@nereid.jit(device=CPU)
def libdevice_float_misc(x_ptr, y_ptr, o_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o)
    y = tl.load(y_ptr + o)
    tl.store(o_ptr + 0 * N + o, libdevice.saturatef(x))
    tl.store(o_ptr + 1 * N + o, libdevice.sinpi(x))
    tl.store(o_ptr + 2 * N + o, libdevice.cospi(x))
    tl.store(o_ptr + 3 * N + o, libdevice.normcdf(x))
    tl.store(o_ptr + 4 * N + o, libdevice.logb(x))
    tl.store(o_ptr + 5 * N + o, libdevice.norm3d(x, y, x))
    tl.store(o_ptr + 6 * N + o, libdevice.rcbrt(y))
    tl.store(o_ptr + 7 * N + o, libdevice.fast_expf(x * 0.01) + libdevice.fast_dividef(x, y))
    tl.store(o_ptr + 8 * N + o, libdevice.scalbn(x, 3))


class LibdeviceIntegerAndComposed(unittest.TestCase):
    """Triton's libdevice functions written in the language (lang/stdlib/libdevice.nr): the
    integer bit functions on 32- and 64-bit operands, signed and not, against Python's
    integers; 32-bit mul24, sad, byte_perm and the bit reinterpretations; the composed float
    functions (saturatef, sinpi, cospi, normcdf, logb, norm3d, rcbrt, the fast forms,
    scalbn) against NumPy and math."""

    def test_integer_bit_functions(self):
        rs = np.random.RandomState(6)
        N = 64
        for name in ("int32", "uint32", "int64", "uint64"):
            dt = np.dtype(name)
            bits = dt.itemsize * 8
            u = np.dtype(f"uint{bits}")
            x = (rs.randint(0, 2**62, N, dtype=np.int64).astype(np.uint64) * np.uint64(3)).astype(u)
            x[:6] = np.array([0, 1, 2**(bits - 1), 2**bits - 1, 6, 2**(bits - 2)], dtype=object).astype(u)
            y = (rs.randint(0, 2**62, N, dtype=np.int64).astype(np.uint64) * np.uint64(7)).astype(u)
            x, y = x.view(dt), y.view(dt)
            out = np.zeros(7 * N, dt)
            libdevice_int_bits[(1, )](x, y, out, N=N)
            ux, sx, sy = [int(v) for v in x.view(u)], [int(v) for v in x], [int(v) for v in y]
            want = [[bin(v).count("1") for v in ux], [bits - v.bit_length() for v in ux],
                    [int(format(v, f"0{bits}b")[::-1], 2) for v in ux], [(v & -v).bit_length() for v in ux],
                    [(a * b) >> bits for a, b in zip(sx, sy)], [(a + b) >> 1 for a, b in zip(sx, sy)],
                    [(a + b + 1) >> 1 for a, b in zip(sx, sy)]]
            got = out.view(u)
            for k, w in enumerate(want):
                self.assertEqual([int(v) for v in got[k * N:(k + 1) * N]], [v % (1 << bits) for v in w],
                                 f"{name}: function {k}")

    def test_32_bit_misc(self):
        rs = np.random.RandomState(7)
        N = 64
        x = rs.randint(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
        y = rs.randint(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
        s = rs.randint(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
        out = np.zeros(6 * N, np.int32)
        libdevice_i32_misc[(1, )](x, y, s, out, N=N)
        wrap = lambda v: (v + 2**31) % 2**32 - 2**31
        sext24 = lambda v: ((v & 0xFFFFFF) ^ 0x800000) - 0x800000
        for i in range(N):
            a, b, c = int(x[i]), int(y[i]), int(s[i])
            self.assertEqual(out[i], wrap(sext24(a) * sext24(b)))
            self.assertEqual(out[N + i], wrap(abs(a - b) + (c & 0xFFFFFFFF)))
            both = (a & 0xFFFFFFFF) | ((b & 0xFFFFFFFF) << 32)
            perm = sum(((both >> (8 * ((c >> (4 * j)) & 7))) & 0xFF) << (8 * j) for j in range(4))
            self.assertEqual(out[2 * N + i], wrap(perm))
        np.testing.assert_array_equal(out[3 * N:4 * N], x)
        np.testing.assert_array_equal(out[4 * N:5 * N], x)
        np.testing.assert_array_equal(out[5 * N:], y)

    def test_composed_float_functions(self):
        import math
        rs = np.random.RandomState(8)
        N = 64
        x = (rs.randn(N) * 4).astype(np.float32)
        x[:10] = [0.0, -0.0, 1.0, -2.0, 0.5, -1.5, 2.5, np.nan, np.inf, 3.0]
        y = (rs.rand(N) * 8 + 0.5).astype(np.float32)
        out = np.zeros(9 * N, np.float32)
        libdevice_float_misc[(1, )](x, y, out, N=N)
        r = lambda k: out[k * N:(k + 1) * N]
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(r(0), np.where(x > 0, np.minimum(x, 1), 0).astype(np.float32))
            sp, cp = np.sin(np.pi * x.astype(np.float64)), np.cos(np.pi * x.astype(np.float64))
            sp[(x == np.round(x)) & np.isfinite(x)] = 0.0
            cp[np.abs(x - np.round(x)) == 0.5] = 0.0
            np.testing.assert_allclose(r(1), sp, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(r(2), cp, rtol=1e-5, atol=1e-6)
            self.assertTrue(np.signbit(r(1)[1]) and not np.signbit(r(1)[0]))
            self.assertEqual(r(1)[3], 0.0)
            self.assertTrue(np.isnan(r(1)[7]) and np.isnan(r(1)[8]))
            np.testing.assert_allclose(r(3), [0.5 * math.erfc(-float(v) / math.sqrt(2)) if v == v else np.nan for v in x],
                                       rtol=1e-5, atol=1e-7)
            logb = np.where(x == 0, -np.inf, np.where(np.isinf(x), np.inf, np.floor(np.log2(np.abs(x)))))
            np.testing.assert_array_equal(r(4)[~np.isnan(x)], logb[~np.isnan(x)])
            self.assertTrue(np.isnan(r(4)[7]))
            np.testing.assert_allclose(r(5), np.sqrt(2 * x.astype(np.float64)**2 + y.astype(np.float64)**2), rtol=1e-6)
            np.testing.assert_allclose(r(6), 1 / np.cbrt(y.astype(np.float64)), rtol=1e-6)
            np.testing.assert_allclose(r(7), np.exp(x * np.float32(0.01)) + x / y, rtol=1e-5)
            np.testing.assert_array_equal(r(8), x * 8)


@tl.constexpr
def accum_type(dt: tl.dtype) -> tl.dtype:  # a plain function made a constexpr (FlagGems' cumsum)
    if dt.is_fp16() or dt.is_bf16():
        return tl.float32
    return dt


@nereid.jit(device=CPU)
def _div_by_type(x, y):
    if x.type.scalar.is_int() and y.type.scalar.is_int():
        return x // y
    else:
        return tl.math.floor(x / y)


@nereid.jit(device=CPU)
def _lowest(dtype):
    if dtype.value == tl.int32:
        return -2**31
    return float("-inf")


@nereid.jit(device=CPU)
def library_idioms(x_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    acc_t: tl.constexpr = accum_type(x.dtype)
    y = x.to(acc_t)
    if w_ptr:  # a pointer is true when it is not null (Triton casts it to int1)
        y = y * tl.load(w_ptr + offs, mask=mask, other=0)
    half: tl.constexpr = n // 2  # a run-time value under a constexpr annotation, as Triton allows
    tl.static_assert(y.type.is_block() and y.type.shape == [BLOCK] and y.type.scalar == acc_t)
    tl.static_assert(isinstance(y.type, tl.block_type) and isinstance(y.type, tl.dtype))
    tl.static_assert(not isinstance((x_ptr + offs).type, tl.pointer_type) and not isinstance(x.dtype, tl.block_type))
    q = _div_by_type(y, tl.full([BLOCK], 2.0, acc_t)) + _div_by_type(offs, tl.full([BLOCK], 2, tl.int32)).to(acc_t)
    keep = (offs >= 0).logical_and(offs < half).logical_or(offs == BLOCK - 1)
    q = tl.where(keep, q, _lowest(tl.int32))
    blk = tl.make_block_ptr(out_ptr, (n, ), (1, ), (0, ), (BLOCK, ), (0, ))
    q = q * (1.0 if w_ptr else 2.0)  # a pointer as a conditional expression's condition
    tl.store(blk, q * SCALE, boundary_check=(0, ))
    blk = blk.advance([BLOCK])
    tl.store(blk, q, boundary_check=(0, ))


class LibraryIdioms(unittest.TestCase):
    """What a library of kernels (FlagGems) writes and Triton accepts: a plain function
    decorated @tl.constexpr called on dtypes, `if ptr:`, a constexpr-annotated run-time value,
    `x.type.scalar` and block types, `dtype.value`, the logical_and/logical_or methods, and a
    block pointer's advance method."""

    def test_idioms_against_numpy(self):
        n = 40
        x = np.arange(n, dtype=np.float16)
        w = np.full(n, 3.0, np.float32)
        out = np.full(2 * 64, -7.0, np.float32)
        library_idioms[(1, )](x, w, out, n, BLOCK=64, SCALE=2)
        offs = np.arange(64)
        y = np.where(offs < n, offs * 3.0, 0.0)
        q = np.floor(y / 2.0) + offs // 2
        keep = (offs < n // 2) | (offs == 63)
        q = np.where(keep, q, -2.0**31).astype(np.float32)
        np.testing.assert_array_equal(out[:n], (q * 2)[:n])
        np.testing.assert_array_equal(out[n:], -7.0)  # the advanced block pointer starts past n
        out = np.full(2 * 64, -7.0, np.float32)
        library_idioms[(1, )](x, None, out, n, BLOCK=64, SCALE=1)  # `if w_ptr:` on None: not taken
        q1 = np.where(keep, np.floor(np.where(offs < n, offs, 0) / 2.0) + offs // 2, -2.0**31)
        np.testing.assert_array_equal(out[:n], 2 * q1[:n])

    def test_constexpr_function_calling_plain_python(self):
        # FlagGems' sort: a @tl.constexpr function whose body (Python, in Triton) calls a plain
        # Python function; both are compiled with the kernel as constexpr functions
        out = np.zeros(2, np.int32)
        narrowed[(1, )](out)
        np.testing.assert_array_equal(out, [70000 % 65536, 70000 - 65536])

    def test_tritons_own_constexpr_functions_by_name(self):
        # Triton's constexpr functions (triton.language.standard._log2, triton.next_power_of_2)
        # are the compiler's: their Python bodies (assignments, a while loop) are not compiled
        out = np.zeros(8, np.int32)
        log2_by_name[(1, )](out)
        np.testing.assert_array_equal(out, [0, 1, 2, 3, 8 + 4, 1, 0, 0])

    def test_target_info_as_an_attribute_chain(self):
        # triton_kernels and other libraries call triton.language.target_info's constexpr
        # functions as `tl.target_info.is_cuda()` in their kernels; the CPU interpreter has
        # no target (both False, as Triton's without a driver); a user module's submodule's
        # function spelled `mod.sub.fn` likewise (here a stand-in for Triton's capability test
        # answering for sm_90, and a @jit helper)
        out = np.zeros(4, np.int32)
        target_queries[(1, )](out)
        np.testing.assert_array_equal(out, [3, 0, 1, 21])

    def test_kernel_rebuilt_from_its_constructor_and_scope(self):
        # a library that rebuilds a kernel from another's text (triton_kernels' specialize):
        # the constructor's parameters read back by name from the kernel, its capture scope
        # as the new function's globals, a placeholder function given the new text
        import inspect
        params = list(inspect.signature(nereid.JITFunction.__init__).parameters.values())[2:]
        attrs = {p.name: getattr(scaled_copy, p.name, p.default) for p in params}
        self.assertEqual(attrs["repr"](None), "scaled_copy")
        scope = scaled_copy.get_capture_scope()
        self.assertIs(scope["_triple"], _triple)

        def placeholder():
            pass

        f = types.FunctionType(placeholder.__code__, dict(scope))
        P = inspect.Parameter
        f.__signature__ = inspect.Signature([P("out_ptr", P.POSITIONAL_OR_KEYWORD),
                                             P("BLOCK", P.POSITIONAL_OR_KEYWORD, annotation=tl.constexpr)])
        f.__name__ = "tripled"
        k = nereid.JITFunction(f, **attrs)
        k._unsafe_update_src("def tripled(out_ptr, BLOCK: tl.constexpr):\n"
                             "    o = tl.arange(0, BLOCK)\n"
                             "    tl.store(out_ptr + o, _triple(o))\n")
        k.raw_src = list(scaled_copy.raw_src)
        k.starting_line_number = scaled_copy.starting_line_number
        self.assertEqual(k.raw_src[1].strip(), "def scaled_copy(x_ptr, out_ptr, scale, n, BLOCK: tl.constexpr):")
        out = np.zeros(8, np.int32)
        k[(1, )](out, BLOCK=8)
        np.testing.assert_array_equal(out, np.arange(8) * 3)

    def test_kernel_renamed_after_its_def(self):
        # triton_kernels' @cacheable: a function returning a kernel, the kernel then given
        # the function's name (fn.__name__ and __name__); its text's def keeps the old one
        def cacheable(f):
            g = f()
            g.fn.__name__ = f.__name__
            g.__name__ = f.__name__
            return g

        @cacheable
        def doubled_renamed():
            @nereid.jit(device=CPU)
            def inner(x_ptr, N: tl.constexpr):
                o = tl.arange(0, N)
                tl.store(x_ptr + o, o * 2)
            return inner

        x = np.zeros(8, np.int32)
        k = doubled_renamed.run(x, N=8, grid=(1, ))
        np.testing.assert_array_equal(x, np.arange(8) * 2)
        self.assertEqual(k.name, "doubled_renamed")

    def test_triton_jitfunction_attributes(self):
        # what libraries read of Triton's JITFunction: signature, cache_key, __globals__
        self.assertEqual(list(narrowed.signature.parameters), ["out_ptr"])
        self.assertIs(narrowed.__globals__, globals())
        key = narrowed.cache_key
        self.assertEqual(len(key), 64)
        self.assertEqual(key, narrowed.cache_key)
        self.assertNotEqual(key, log2_by_name.cache_key)

    def test_compiled_kernel_takes_the_non_constexpr_parameters(self):
        # FlagGems' LibEntry keeps the kernel a launch returned and launches it again with
        # the @jit function's non-constexpr parameters only, an int the first launch
        # specialised (equal to 1) among them
        x = np.arange(8, dtype=np.float32)
        out = np.zeros(8, np.float32)
        kernel = scaled_copy.run(x, out, 1, 8, grid=(1, ), BLOCK=8)
        np.testing.assert_array_equal(out, x)
        out[:] = 0
        kernel[(1, )](x, out, 1, 8)
        np.testing.assert_array_equal(out, x)

    def test_classes_admitting_nereids(self):
        from nereid import dropin

        class Original:
            pass

        class Ours:
            pass

        Admitting = dropin._class_admitting(Original, (Ours, Original), "Autotuner", "triton.runtime.autotuner")
        self.assertIsInstance(Ours(), Admitting)
        self.assertIsInstance(Original(), Admitting)
        self.assertTrue(issubclass(Ours, Admitting))

        class LibraryTuner(Admitting):  # a library's subclass admits nothing
            pass

        self.assertNotIsInstance(Ours(), LibraryTuner)
        self.assertIsInstance(LibraryTuner(), Admitting)
        self.assertIsInstance(LibraryTuner(), Original)


def unwrap_if_constexpr(o):
    return o.value if isinstance(o, tl.constexpr) else o


@tl.constexpr
def narrow_int(num_bits: tl.constexpr, signed: tl.constexpr) -> tl.dtype:
    num_bits = unwrap_if_constexpr(num_bits)
    return tl.core.get_int_dtype(num_bits, unwrap_if_constexpr(signed))


@nereid.jit(device=CPU)
def narrowed(out_ptr):
    u: tl.constexpr = narrow_int(16, False)
    s: tl.constexpr = narrow_int(16, True)
    v = tl.full((), 70000, tl.int32)
    tl.store(out_ptr, v.to(u).to(tl.int32))
    tl.store(out_ptr + 1, (v - 65536).to(s).to(tl.int32))


class _TritonsConstexprFunction:
    """Stands in for Triton's ConstexprFunction (the class name and module are what the
    drop-in looks at): its Python body is not what the kernel gets."""

    def __init__(self, name, module):
        self.__name__, self.__qualname__, self.__module__ = name, name, module
        self.fn = lambda *a: (_ for _ in ()).throw(AssertionError("Python body called"))

    def __call__(self, *args):
        return self.fn(*args)


_TritonsConstexprFunction.__name__ = "ConstexprFunction"
_log2 = _TritonsConstexprFunction("_log2", "triton.language.standard")


def _capability_geq(major, minor=0):  # stands in for triton.language.target_info's
    return major * 10 + minor <= 90


# another of Triton's constexpr functions, which the compiler does not know: run in Python
cuda_capability_geq = _TritonsConstexprFunction("cuda_capability_geq", "triton.language.target_info")
cuda_capability_geq.fn = _capability_geq


@nereid.jit(device=CPU)
def log2_by_name(out_ptr):
    n: tl.constexpr = _log2(8)
    for i in tl.static_range(0, n + 1):
        tl.store(out_ptr + i, i)
    tl.store(out_ptr + 4, tl.next_power_of_2(5) + _log2(16))
    if cuda_capability_geq(9, 0) and not cuda_capability_geq(10):
        tl.store(out_ptr + 5, 1)


@nereid.jit(device=CPU)
def _triple(x):
    return x * 3


user_helpers = types.ModuleType("user_helpers")
user_helpers.sub = types.ModuleType("user_helpers.sub")
user_helpers.sub.geq = cuda_capability_geq
user_helpers.sub.triple = _triple


@nereid.jit(device=CPU)
def target_queries(out_ptr):
    v = 1
    if not tl.target_info.is_cuda():
        v = 3
    tl.store(out_ptr, v)
    if tl.target_info.cuda_capability_geq(8, 0):
        tl.store(out_ptr + 1, 1)
    if user_helpers.sub.geq(9, 0) and not user_helpers.sub.geq(10):
        tl.store(out_ptr + 2, 1)
    tl.store(out_ptr + 3, user_helpers.sub.triple(7))


@nereid.jit(device=CPU)
def scaled_copy(x_ptr, out_ptr, scale, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * scale, mask=o < n)


@nereid.jit(device=CPU)
def libdevice_rounding_modes(x_ptr, y_ptr, i_ptr, d_ptr, o_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o)
    y = tl.load(y_ptr + o)
    i = tl.load(i_ptr + o)
    d = tl.load(d_ptr + o)
    fns = (libdevice.add_rz, libdevice.add_rd, libdevice.add_ru, libdevice.sub_rz, libdevice.mul_rz,
           libdevice.mul_rd, libdevice.mul_ru, libdevice.div_rz, libdevice.div_rd, libdevice.div_ru)
    for k in tl.static_range(len(fns)):
        tl.store(o_ptr + k * N + o, fns[k](x, y))
    tl.store(o_ptr + 10 * N + o, libdevice.sqrt_rd(tl.abs(x)))
    tl.store(o_ptr + 11 * N + o, libdevice.sqrt_ru(tl.abs(x)))
    tl.store(o_ptr + 12 * N + o, libdevice.rcp_rz(y))
    tl.store(o_ptr + 13 * N + o, libdevice.ll2float_rd(i))
    tl.store(o_ptr + 14 * N + o, libdevice.ll2float_ru(i))
    tl.store(o_ptr + 15 * N + o, libdevice.double2float_rz(d))
    tl.store(o_ptr + 16 * N + o, libdevice.double2float_ru(d))
    tl.store(o_ptr + 17 * N + o, libdevice.float2int_rd(x).to(tl.float32))
    tl.store(o_ptr + 18 * N + o, libdevice.float2int_ru(x).to(tl.float32))
    tl.store(o_ptr + 19 * N + o, libdevice.mul_rn(x, y) + libdevice.add_rn(x, y))


class LibdeviceRoundingModes(unittest.TestCase):
    """libdevice's arithmetic and conversions with a rounding mode (lang/stdlib/libdevice.nr:
    the nearest result stepped by the exact error's sign) against exact rational arithmetic
    rounded in each mode: sums, differences, products and quotients across magnitudes (ties
    and exact cases among them), overflow to the largest finite value toward zero, square
    roots, reciprocals, int64 and fp64 to fp32, fp32 to int32."""

    @staticmethod
    def rounded(q, mode):
        """The fp32 value of the rational q rounded toward zero, down or up."""
        from fractions import Fraction
        inf, big = np.float32(np.inf), np.float32(3.4028235e38)
        if q > Fraction(float(big)):
            lo, hi = big, inf
        elif q < -Fraction(float(big)):
            lo, hi = -inf, -big
        else:
            lo = np.float32(float(q))
            while Fraction(float(lo)) > q:
                lo = np.nextafter(lo, -inf)
            while lo != big and Fraction(float(np.nextafter(lo, inf))) <= q:
                lo = np.nextafter(lo, inf)
            hi = lo if Fraction(float(lo)) == q else np.nextafter(lo, inf)
        return lo if mode == "rd" or (mode == "rz" and q > 0) else hi

    def test_against_exact_arithmetic(self):
        from fractions import Fraction
        rs = np.random.RandomState(9)
        N = 128
        x = (rs.randn(N) * np.exp2(rs.randint(-30, 30, N))).astype(np.float32)
        y = (rs.randn(N) * np.exp2(rs.randint(-30, 30, N))).astype(np.float32)
        x[:8] = [1.0, 3.0e38, -3.0e38, 1.0, 2.0**-20, 7.0, -1.0, 0.1]
        y[:8] = [2.0**-24, 3.0e38, -3.0e38, 3.0, -1.0, 2.0, 3.0, 0.2]
        i = rs.randint(-2**62, 2**62, N, dtype=np.int64)
        i[:3] = [2**63 - 1, -2**63, 2**24 + 1]
        d = rs.randn(N) * np.exp2(rs.randint(-60, 60, N))
        d[:2] = [3.5e38, -1e-50]
        out = np.zeros(20 * N, np.float32)
        libdevice_rounding_modes[(1, )](x, y, i, d, out, N=N)
        F = lambda v: Fraction(float(v))
        ops = [(lambda a, b: F(a) + F(b), m) for m in ("rz", "rd", "ru")] + [(lambda a, b: F(a) - F(b), "rz")] + \
              [(lambda a, b: F(a) * F(b), m) for m in ("rz", "rd", "ru")] + \
              [(lambda a, b: F(a) / F(b), m) for m in ("rz", "rd", "ru")]
        for k, (op, mode) in enumerate(ops):
            want = [self.rounded(op(a, b), mode) for a, b in zip(x, y)]
            np.testing.assert_array_equal(out[k * N:(k + 1) * N], np.array(want, np.float32), f"op {k} {mode}")
        for k, mode in ((10, "rd"), (11, "ru")):
            got = out[k * N:(k + 1) * N]
            for a, g in zip(np.abs(x), got):
                below = F(g) ** 2 <= F(a) if mode == "rd" else F(g) ** 2 >= F(a)
                step = np.nextafter(g, np.float32(np.inf if mode == "rd" else -np.inf))
                beyond = F(step) ** 2 <= F(a) if mode == "rd" else F(step) ** 2 >= F(a)
                self.assertTrue(below and not beyond, f"sqrt_{mode}({a}) = {g}")
        np.testing.assert_array_equal(out[12 * N:13 * N], [self.rounded(1 / F(b), "rz") for b in y])
        np.testing.assert_array_equal(out[13 * N:14 * N], [self.rounded(Fraction(int(v)), "rd") for v in i])
        np.testing.assert_array_equal(out[14 * N:15 * N], [self.rounded(Fraction(int(v)), "ru") for v in i])
        np.testing.assert_array_equal(out[15 * N:16 * N], [self.rounded(F(v), "rz") for v in d])
        np.testing.assert_array_equal(out[16 * N:17 * N], [self.rounded(F(v), "ru") for v in d])
        np.testing.assert_array_equal(out[17 * N:18 * N], np.floor(x).clip(-2**31, 2**31 - 1).astype(np.int32).astype(np.float32))
        np.testing.assert_array_equal(out[18 * N:19 * N], np.ceil(x).clip(-2**31, 2**31 - 1).astype(np.int32).astype(np.float32))
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(out[19 * N:], (x * y) + (x + y))


@nereid.jit(device=CPU)
def assigned_numbers(x_ptr, h_ptr, o_ptr, p_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o)
    h = tl.load(h_ptr + o)
    scale = 2
    eps = 1e-3
    weak: tl.constexpr = 2
    y = x * scale  # a scalar tensor in Triton: i8 * i32 is i32
    z = h + eps  # fp16 + fp32 is fp32
    w = x * weak  # a constexpr stays weak: i8
    tl.static_assert(y.dtype == tl.int32 and z.dtype == tl.float32 and w.dtype == tl.int8)
    c = 300
    tl.static_assert((x + c).dtype == tl.int32)  # no range check: 300 is an int32 tensor
    s = 100
    neg = x * -s  # -s, s + 0: tensor operations on an assigned number, i32 as in Triton
    tl.static_assert(neg.dtype == tl.int32 and (x * (s + 0)).dtype == tl.int32)
    a = -7
    tl.store(o_ptr + o, y + (x + c) + neg + (a // 2))  # a // 2: integer division toward zero, -3
    tl.store(p_ptr + o, z)


class AssignedNumbers(unittest.TestCase):
    """A number bound by a plain assignment types as Triton's scalar tensor (its to_tensor
    dtype), not as a weak constant; an annotated constexpr stays weak."""

    def test_typing_and_values(self):
        x = np.array([100, -128, 127, 5] * 4, np.int8)
        h = np.full(16, 1.0, np.float16)
        o = np.zeros(16, np.int32)
        p = np.zeros(16, np.float32)
        assigned_numbers[(1, )](x, h, o, p, N=16)
        xi = x.astype(np.int32)
        np.testing.assert_array_equal(o, xi * 2 + xi + 300 - 100 * xi - 3)  # no i8 wrap
        np.testing.assert_array_equal(p, np.float32(1.0) + np.float32(1e-3))  # in fp32, not fp16


@nereid.jit(device=CPU)
def assigned_floats(x_ptr, o_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o)
    c = 0.1  # an fp32 scalar tensor in Triton: 0.1f, widened exactly against fp64
    big = 1e300  # fp64 (outside fp32's range)
    small = 1e-300
    tl.store(o_ptr + o, x * c)
    tl.store(o_ptr + N + o, x.to(tl.float32) * big * small)


class AssignedFloats(unittest.TestCase):
    """Assigned floats take Triton's to_tensor type: fp32 values rounded to fp32 (0.1f times an
    fp64 block), fp64 for magnitudes outside fp32's normal range."""

    def test_rounding_and_type(self):
        x = np.array([1.0, 3.0, -2.0, 0.5], np.float64)
        out = np.zeros(8, np.float64)
        assigned_floats[(1, )](x, out, N=4)
        np.testing.assert_array_equal(out[:4], x * np.float64(np.float32(0.1)))
        np.testing.assert_array_equal(out[4:], x * 1e300 * 1e-300)


@nereid.jit(device=CPU)
def libdevice_mode_edges(x_ptr, y_ptr, d_ptr, o_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o)
    y = tl.load(y_ptr + o)
    d = tl.load(d_ptr + o)
    tl.store(o_ptr + o, libdevice.add_rd(x, y))
    tl.store(o_ptr + N + o, libdevice.mul_rd(x, y))
    tl.store(o_ptr + 2 * N + o, libdevice.sqrt_ru(tl.abs(x)))
    tl.store(o_ptr + 3 * N + o, libdevice.double2float_ru(d))
    tl.store(o_ptr + 4 * N + o, libdevice.sinpi(x))


class LibdeviceModeEdges(unittest.TestCase):
    """The rounding-mode functions where an error term underflows or cancels: a zero sum
    rounded down is -0 (unless both are +0), products and square roots near fp32's smallest
    normal, fp64 to fp32 with an error below fp32's range; sinpi near the integers and
    half-integers, to the correctly rounded value."""

    def test_edges(self):
        from fractions import Fraction
        N = 8
        x = np.array([1.0, -0.0, 0.0, 2.0**-63 * 1.5, 3.0e-38, 1.0 - 2.0**-24, 1.001, 0.5 + 2.0**-24], np.float32)
        y = np.array([-1.0, 0.0, 0.0, 2.0**-63 * 1.25, 1.0 / 3.0, 1.0, 1.0, 1.0], np.float32)
        d = np.array([2.0**-120 * (1 + 2.0**-40), -2.0**-120 * (1 + 2.0**-40), 1.0, 1e-46, 3.0, 0.1, -0.1, 2.0],
                     np.float64)
        out = np.zeros(5 * N, np.float32)
        libdevice_mode_edges[(1, )](x, y, d, out, N=N)
        r = lambda k: out[k * N:(k + 1) * N]
        self.assertTrue(np.signbit(r(0)[0]) and np.signbit(r(0)[1]) and not np.signbit(r(0)[2]))
        for a, b, got in zip(x, y, r(1)):  # mul_rd: the largest fp32 not above the product
            p = Fraction(float(a)) * Fraction(float(b))
            self.assertLessEqual(Fraction(float(got)), p)
            self.assertGreater(Fraction(float(np.nextafter(got, np.float32(np.inf)))), p)
        for a, got in zip(np.abs(x), r(2)):  # sqrt_ru: the smallest fp32 whose square is not below
            if a == 0:
                self.assertEqual(got, 0.0)
                continue
            self.assertGreaterEqual(Fraction(float(got))**2, Fraction(float(a)))
            self.assertLess(Fraction(float(np.nextafter(got, np.float32(-np.inf))))**2, Fraction(float(a)))
        for v, got in zip(d, r(3)):  # double2float_ru
            self.assertGreaterEqual(Fraction(float(got)), Fraction(float(v)))
            self.assertLess(Fraction(float(np.nextafter(got, np.float32(-np.inf)))), Fraction(float(v)))
        want = np.sin(np.pi * (x.astype(np.float64) - 2 * np.rint(x.astype(np.float64) / 2)))
        want = np.array([np.float32(w) for w in want])
        want[[1, 2]] = [-0.0, 0.0]
        ulp = np.abs(r(4).astype(np.float64) - want) / np.spacing(np.abs(want)).astype(np.float64)
        self.assertLessEqual(float(ulp[5:].max()), 1.0, f"sinpi: {r(4)} against {want}")


@nereid.jit(device=CPU)
def libdevice_fp64_small(x_ptr, y_ptr, o_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o)
    y = tl.load(y_ptr + o)
    tl.store(o_ptr + o, libdevice.div_ru(x, y))
    tl.store(o_ptr + N + o, libdevice.sqrt_rd(x))


class LibdeviceFp64NearTheSmallestNormal(unittest.TestCase):
    """fp64 quotients and square roots with a directed rounding where the residual would fall
    below fp64's range (dividends and radicands just above 2^-1022)."""

    def test_against_exact(self):
        from fractions import Fraction
        rs = np.random.RandomState(10)
        N = 64
        x = 2.0**-1022 * (1 + rs.rand(N) * 15)
        y = 1 + rs.rand(N)
        out = np.zeros(2 * N, np.float64)
        libdevice_fp64_small[(1, )](x, y, out, N=N)
        for a, b, q, s in zip(x, y, out[:N], out[N:]):
            exact = Fraction(float(a)) / Fraction(float(b))
            self.assertGreaterEqual(Fraction(float(q)), exact)
            self.assertLess(Fraction(float(np.nextafter(q, -np.inf))), exact)
            self.assertLessEqual(Fraction(float(s))**2, Fraction(float(a)))
            self.assertGreater(Fraction(float(np.nextafter(s, np.inf)))**2, Fraction(float(a)))


HOST_CALLS = []


@nereid.constexpr_function
def format_code(dtype, bits=64):
    # Python the kernel grammar does not read (a dict, an f-string, str methods, math):
    # it runs on the host, as Triton runs it
    HOST_CALLS.append(dtype)
    mapping = {tl.float16: "fp16", tl.bfloat16: "bf16", tl.float32: "fp32"}
    s = f"{mapping[dtype]}x{int(math.log2(bits))}"
    return len(s.split("x")[0]) * 10 + int(s[-1])


@nereid.constexpr_function
def halvings(i):
    # a loop over reassigned names: Python's semantics (no scalar tensors), and results of
    # every kind a define carries
    n, k = i, 0
    while n > 1:
        n >>= 1
        k += 1
    return k, float("inf"), "it's", None, tl.int16, (2.5, )


@nereid.constexpr_function
def element_bits(x):
    # given a block, the host cannot run it: the body is compiled (its .dtype is known)
    return x.dtype.primitive_bitwidth


@nereid.constexpr_function
def strict_format(dtype):
    names = {tl.float16: "fp16"}
    return names[dtype]


@nereid.jit(device=CPU)
def host_constexprs(out_ptr, DT: tl.constexpr):
    tl.store(out_ptr, format_code(DT))
    h: tl.constexpr = halvings(1000)
    tl.store(out_ptr + 1, h[0])
    tl.store(out_ptr + 2, tl.full((), 70000, tl.int32).to(h[4]).to(tl.int32))
    tl.static_assert(h[2] == "it's" and h[3] is None and h[1] > 1e308 and h[5][0] == 2.5)
    tl.store(out_ptr + 3, element_bits(tl.load(out_ptr + tl.arange(0, 2))))


@nereid.jit(device=CPU)
def host_constexpr_raises(out_ptr, DT: tl.constexpr):
    tl.store(out_ptr, len(strict_format(DT)))


@nereid.jit(device=CPU)
def host_constexpr_given_a_block(out_ptr):
    tl.store(out_ptr, len(strict_format(tl.load(out_ptr))))


HOST_MODULE = """import nereid
import nereid.language as tl


@nereid.constexpr_function
def f(n):
    {body}


@nereid.jit(device='cpu')
def k(o):
    tl.store(o, f({arg}))
"""

def _host_module(text, folder):
    """The names of a module made of text, written into folder (kernels read their source
    when they compile: the file must outlive the launches)."""
    import importlib.util
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".py", dir=folder, delete=False) as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location(os.path.basename(f.name)[:-3], f.name)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return vars(mod)


TUNED_HOST_SOURCE = """import triton
import triton.language as tl


@triton.constexpr_function
def twice(x):
    return x * 2


@triton.autotune(configs=[CONFIGS], key=['n'])
@triton.jit
def k(out_ptr: '*i32', n: 'i32', B: tl.constexpr):
    o = tl.arange(0, B)
    tl.store(out_ptr + o, tl.full((B, ), twice(B), tl.int32), mask=o < n)
"""

TUNED_HOST_PROGRAM = f"""
import threading
from nereid import _runtime
from nereid._jit import _HostFunction
src = {TUNED_HOST_SOURCE!r}.replace("CONFIGS", ", ".join("triton.Config({{'B': %d}})" % 2**i for i in range(1, 9)))
seen = set()


def twice(x):
    seen.add(threading.current_thread().name)
    return x * 2


ctx = _runtime.context("cpu")
for i in range(10):
    ctx.compile(src + "\\n" * i, "k.py", [], None, 0, 0, {{"twice": _HostFunction(twice, False)}})
print(sorted(seen))
"""


@nereid.constexpr_function
def quoted_strings():
    return ("a'b\"c", "x\ny", 7)


def lookup_code(n):  # Python (a dict) that a constexpr function calls
    return {16: 1, 32: 2}[n]


@nereid.constexpr_function
def code_of(n):
    return lookup_code(n) * 10


@nereid.jit(device=CPU)
def host_calls_python(out_ptr, N: tl.constexpr):
    tl.store(out_ptr, code_of(N))


@nereid.constexpr_function
def too_big():
    return 2**64


@nereid.jit(device=CPU)
def host_strings(out_ptr):
    s: tl.constexpr = quoted_strings()
    tl.static_assert(s[0] == "a'b\"c" and s[1] == "x\ny" and s[2] == 7)
    tl.store(out_ptr, 1)


@nereid.jit(device=CPU)
def host_too_big(out_ptr):
    tl.store(out_ptr, too_big())


@nereid.autotune(configs=[nereid.Config({"B": 2}), nereid.Config({"B": 4})], key=["n"])
@nereid.jit(device=CPU)
def host_constexprs_tuned(out_ptr, n, DT: tl.constexpr, B: tl.constexpr):
    o = tl.arange(0, B)
    tl.store(out_ptr + o, tl.full((B, ), format_code(DT, bits=B * 16), tl.int32), mask=o < n)


class HostConstexprFunctions(unittest.TestCase):
    """Constexpr functions run in Python when a kernel calls them with compile-time values
    (Context.compile's constexpr_functions; the C API's nr_compile_options.constexpr_call),
    as Triton runs them: any Python, results of any constexpr kind."""

    def test_python_runs_them(self):
        HOST_CALLS.clear()
        out = np.zeros(4, np.int32)
        host_constexprs[(1, )](out, tl.bfloat16)
        np.testing.assert_array_equal(out[:3], [46, 9, 70000 % 65536])
        self.assertEqual(out[3], 32)  # element_bits of an int32 block, compiled
        self.assertEqual(HOST_CALLS, [tl.bfloat16])
        out[:] = 0
        host_constexprs[(1, )](out, tl.float32)
        self.assertEqual(out[0], 46)
        self.assertEqual(HOST_CALLS, [tl.bfloat16, tl.float32])

    def test_its_exception_is_the_compile_error(self):
        out = np.zeros(1, np.int32)
        host_constexpr_raises[(1, )](out, tl.float16)
        self.assertEqual(out[0], 4)
        with self.assertRaises(nereid.CompileError) as e:
            host_constexpr_raises[(1, )](out, tl.int8)
        self.assertIn("constexpr function 'strict_format' raised: KeyError", str(e.exception))
        # its body (a dict) is Python the compiler does not read: given a block, which the host
        # cannot be given, the call is an error that says so
        with self.assertRaises(nereid.CompileError) as e:
            host_constexpr_given_a_block[(1, )](out)
        self.assertIn("constexpr function 'strict_format' runs in Python", str(e.exception))

    def test_strings_and_errors_of_results(self):
        out = np.zeros(1, np.int32)
        host_strings[(1, )](out)
        self.assertEqual(out[0], 1)
        with self.assertRaises(nereid.CompileError) as e:
            host_too_big[(1, )](out)
        self.assertIn("does not fit in a signed 64-bit int", str(e.exception))

    def test_the_python_it_calls(self):
        out = np.zeros(1, np.int32)
        host_calls_python[(1, )](out, 32)
        self.assertEqual(out[0], 20)

    def test_a_stubbed_body_changes_the_text(self):
        # the body the compiler does not read is a hash in the compiled text: the caches' key
        # (the text) changes when it does
        keys = []
        with tempfile.TemporaryDirectory() as folder:
            for mapping in ("{1: 2}", "{1: 3}"):
                ns = _host_module(HOST_MODULE.format(body=f"return {mapping}[n]", arg=1), folder)
                out = np.zeros(1, np.int32)
                ns["k"][(1, )](out)
                keys.append((out[0], ns["k"].cache_key))
        self.assertEqual([k[0] for k in keys], [2, 3])
        self.assertNotEqual(keys[0][1], keys[1][1])

    def test_no_cycle_outlives_the_collector(self):
        # the Module keeps the functions, whose globals reach the kernel that keeps the Module
        import gc
        from nereid import _nereid

        def modules():
            gc.collect()
            return sum(1 for o in gc.get_objects() if type(o) is _nereid.Module)

        before = modules()
        with tempfile.TemporaryDirectory() as folder:
            for i in range(3):
                ns = _host_module(HOST_MODULE.format(body="return n + 1", arg=i), folder)
                ns["k"][(1, )](np.zeros(1, np.int32))
                del ns
        self.assertEqual(modules(), before)

    def test_tuned_configs_call_back_on_the_calling_thread(self):
        # Context.compile of a text with @triton.autotune: the configs compile one at a time
        # when there are constexpr functions (a worker thread would wait for the GIL the caller
        # holds); in a child process, so that a hang is a failure, not a stuck suite
        import subprocess
        import sys
        env = dict(os.environ, NEREID_COMPILE_THREADS="8")
        r = subprocess.run([sys.executable, "-c", TUNED_HOST_PROGRAM], capture_output=True, text=True, timeout=120,
                           env=env)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertEqual(r.stdout.strip(), "['MainThread']")

    def test_configs_compiled_at_once(self):
        # the autotuner's configs go through Context.compile_many, each with the functions
        out = np.zeros(8, np.int32)
        host_constexprs_tuned[(1, )](out, 2, tl.float16)
        b = host_constexprs_tuned.best_config.kwargs["B"]
        np.testing.assert_array_equal(out[:2], 40 + (5 if b == 2 else 6))
        np.testing.assert_array_equal(out[2:], 0)


if __name__ == "__main__":
    unittest.main()
