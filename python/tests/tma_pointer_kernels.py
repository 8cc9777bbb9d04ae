"""Matmuls written with plain pointer loads, as Triton users write them, whose tiles a
tensor map can describe (compiler/gpu/tma_pointers.c takes them through TMA on sm_90a):
every edge masked with a batch offset of its own, carried pointer blocks, and a row offset
the launcher must check. test_gpu.py runs them against torch; `tma(ran)` says whether a
launch ran the kernel with tensor maps."""
import nereid
import nereid.language as tl


@nereid.jit
def bmm_masked(a, b, c, M, N, K, stride_az, stride_am, stride_bz, stride_bk, stride_cz, stride_cm,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """c[z] = a[z] @ b[z], rows, columns and the K edge masked (zeros past them)."""
    pid_m, pid_n, z = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_base = a + z.to(tl.int64) * stride_az
    b_base = b + z.to(tl.int64) * stride_bz
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a_base + rm[:, None] * stride_am + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        y = tl.load(b_base + (k + rk)[:, None] * stride_bk + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, y, acc)
    c_ptrs = c + z.to(tl.int64) * stride_cz + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@nereid.jit
def matmul_carried(a, b, c, K, stride_am, stride_bk, stride_cm, row0,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """c = a[row0:] @ b with pointer blocks advanced each iteration, unmasked (K a multiple
    of BK); row0 may be negative when a points into a tensor (the launcher then runs the
    kernel without tensor maps: TMA reads nothing before a map's base)."""
    rm = row0 + tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    cm = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(c + cm[:, None] * stride_cm + rn[None, :], acc)


@nereid.jit
def chained(a, b, K, stride_am, stride_bk, STEPS: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    """a[(j + 1) * BM:][:BM] = a[j * BM:][:BM] @ b for j < STEPS, in order: each step's loads
    (tensor maps) read the rows the step before stored (a fence orders the stores before
    them). K == BN: b is K x K."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BK * 2)
    rk = tl.arange(0, BK)
    for j in range(0, STEPS):
        acc = tl.zeros((BM, BK * 2), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + (j * BM + rm)[:, None] * stride_am + (k + rk)[None, :])
            y = tl.load(b + (k + rk)[:, None] * stride_bk + rn[None, :])
            acc = tl.dot(x, y, acc)
        tl.store(a + ((j + 1) * BM + rm)[:, None] * stride_am + rn[None, :], acc.to(tl.float16))


@nereid.jit
def persistent_described(a_ptr, b_ptr, c_ptr, M, N, K, ROW0: tl.constexpr, BM: tl.constexpr,
                         BN: tl.constexpr, BK: tl.constexpr, PROGRAMS: tl.constexpr):
    """c = a @ b.T through tensor descriptors made in the kernel, tiles visited by a stride
    (Triton 3.6's persistent tutorial): the descriptors' bounds checks zero what lies past
    either end, so A's tile rows may start before row 0 (ROW0 < 0: the first rows read as
    zeros, as TMA reads them) and each tile's store precedes the next tile's loads."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, PROGRAMS):
        pm = tile // tiles_n
        pn = tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            x = a_desc.load([pm * BM + ROW0, k * BK])
            y = b_desc.load([pn * BN, k * BK])
            acc = tl.dot(x, y.T, acc)
        c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


def tma(ran):
    """Did this launch run the kernel whose loads go through tensor maps?"""
    return "tdesc" in ran.asm["gpu-ir"]
