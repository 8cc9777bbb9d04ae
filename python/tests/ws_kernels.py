"""Warp-specialised matmuls (tl.range(..., warp_specialize=True)) for test_gpu.py and
test_mock.py: a host-descriptor matmul as Triton's TMA tutorials write it, the same with
the accumulator scaled each step (its dot synchronous: the consumers release each stage
after reading it), and a pointer matmul in tutorial 03's style (masked edges, pointers advanced in the
loop), whose loads become TMA copies through maps the launcher builds (sm_90a), and a
persistent matmul in tutorial 09's form (its tile loop flattened with the K loop). With
WS=False the loops are the usual pipelined ones, the reference the tests compare against
besides torch."""
import nereid
import nereid.language as tl


@nereid.jit
def desc_matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                WS: tl.constexpr):
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=WS):
        acc = tl.dot(a_desc.load([off_m, k]), b_desc.load([k, off_n]), acc)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@nereid.jit
def desc_decay(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               WS: tl.constexpr):
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=WS):
        acc = acc * 0.5 + tl.dot(a_desc.load([off_m, k]), b_desc.load([k, off_n]))
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@nereid.jit
def record_ws_matmul(a, b, c, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, BN: tl.constexpr,
                     BK: tl.constexpr, WS: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_am = pid_m * BM + tl.arange(0, BM)
    offs_bn = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b + offs_k[:, None] * stride_bk + offs_bn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=WS):
        x = tl.load(a_ptrs, mask=(offs_am[:, None] < M) & (offs_k[None, :] < K - k * BK), other=0.0)
        y = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BK) & (offs_bn[None, :] < N), other=0.0)
        acc = tl.dot(x, y, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    tl.store(c + offs_am[:, None] * stride_cm + offs_bn[None, :], acc,
             mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))


@nereid.jit
def persistent_matmul(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      GROUP_M: tl.constexpr, NPROG: tl.constexpr, FLAT: tl.constexpr, WS: tl.constexpr):
    # tutorial 09's persistent form: one program a stride of tiles in grouped order, B
    # stored N x K (read transposed), the tile loop flattened with its K loop
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_tiles = num_pid_m * num_pid_n
    in_group = GROUP_M * num_pid_n
    for tile_id in tl.range(tl.program_id(0), num_tiles, NPROG, flatten=FLAT, warp_specialize=WS):
        group = tile_id // in_group
        first_m = group * GROUP_M
        size_m = min(num_pid_m - first_m, GROUP_M)
        pid_m = first_m + (tile_id % size_m)
        pid_n = (tile_id % in_group) // size_m
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([pid_m * BM, ki * BK])
            b = b_desc.load([pid_n * BN, ki * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


def specialised(ran):
    """Is the launch's kernel warp-specialised (its producer warps in the code)? The code
    of the variant the launch compiled: where its tensor maps could not take the arguments,
    the launch ran that variant's kernel without maps instead."""
    return "warp_specialize" in ran.asm["gpu-ir"]
