"""Loop nests under tl.range(..., flatten=True), for test_python (the interpreter, where
flattening must not change a value) and test_gpu (against torch): a persistent matmul in
the style users write (tiles visited by a stride of the program count, a K loop per tile,
an epilogue that stores the tile and counts it); a nest with a negative outer step, a
non-zero inner start and a running block that starts from a value of the row; the
tutorials' pointer block advanced by the inner loop; a flattened nest inside another; a
-0.0 accumulator start."""
import nereid
import nereid.language as tl


@nereid.jit
def persistent_matmul(a_ptr, b_ptr, c_ptr, count_ptr, M, N, K,
                      stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn, step,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      HINTS: tl.constexpr, FLATTEN: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * tiles_n
    k_tiles = tl.cdiv(K, BK)
    rk = tl.arange(0, BK)
    visited = 0
    for tile in tl.range(pid, tiles, step, flatten=FLATTEN):
        row = (tile // tiles_n) * BM
        col = (tile % tiles_n) * BN
        rm = row + tl.arange(0, BM)
        rn = col + tl.arange(0, BN)
        rm = tl.where(rm < M, rm, 0)
        rn = tl.where(rn < N, rn, 0)
        if HINTS:
            rm = tl.max_contiguous(tl.multiple_of(rm, BM), BM)
            rn = tl.max_contiguous(tl.multiple_of(rn, BN), BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kt in range(k_tiles):
            ks = kt * BK + rk
            a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=rk[None, :] < K - kt * BK, other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                        mask=rk[:, None] < K - kt * BK, other=0.0)
            acc = tl.dot(a, b, acc)
        om = row + tl.arange(0, BM)
        on = col + tl.arange(0, BN)
        tl.store(c_ptr + om[:, None] * stride_cm + on[None, :] * stride_cn, acc.to(tl.float16),
                 mask=(om[:, None] < M) & (on[None, :] < N))
        visited += 1
    tl.store(count_ptr + pid, visited)


@nereid.jit
def shifted_sums(x_ptr, out_ptr, rows, cols, start, BLOCK: tl.constexpr, FLATTEN: tl.constexpr):
    # rows visited last to first; each row's running block starts from a value of the row
    # (not zeros: a select starts each row) and its inner loop from a column of its own
    # (start, step 2), the same for every row as flattening needs
    offs = tl.arange(0, BLOCK)
    for r in tl.range(rows - 1, -1, -1, flatten=FLATTEN):
        base = r * cols
        run = tl.full((BLOCK,), 0.5, tl.float32) * r
        for c in range(start, cols // BLOCK, 2):
            run += tl.load(x_ptr + base + c * BLOCK + offs)
        tl.store(out_ptr + r * BLOCK + offs, run)


@nereid.jit
def advancing_pointers(x_ptr, out_ptr, rows, K, BLOCK: tl.constexpr, FLATTEN: tl.constexpr):
    # the tutorials' pointer block advanced by the inner loop, made by the outer one
    offs = tl.arange(0, BLOCK)
    for r in tl.range(0, rows, flatten=FLATTEN):
        ptrs = x_ptr + r * K * BLOCK + offs
        s = tl.zeros((BLOCK,), tl.float32)
        for k in range(K):
            s += tl.load(ptrs)
            ptrs += BLOCK
        tl.store(out_ptr + r * BLOCK + offs, s)


@nereid.jit
def nested_nests(x_ptr, out_ptr, rows, K, BLOCK: tl.constexpr, FLATTEN: tl.constexpr):
    # a flattened nest inside a loop that is flattened after it
    offs = tl.arange(0, BLOCK)
    for i in tl.range(0, rows, flatten=FLATTEN):
        s = tl.zeros((BLOCK,), tl.float32)
        for k in range(K):
            s += tl.load(x_ptr + (i * K + k) * BLOCK + offs)
        t = tl.zeros((BLOCK,), tl.float32)
        for m in tl.range(0, rows, flatten=FLATTEN):
            u = tl.zeros((BLOCK,), tl.float32)
            for n in range(K):
                u += tl.load(x_ptr + (m * K + n) * BLOCK + offs) * 2.0
            t += u
        tl.store(out_ptr + i * BLOCK + offs, s + t)


@nereid.jit
def negative_zero_start(a_ptr, b_ptr, out_ptr, rows, K, FLATTEN: tl.constexpr):
    # a -0.0 start is no zero to drop: -0.0 + (-0.0) products stay -0.0
    r16 = tl.arange(0, 16)
    for r in tl.range(0, rows, flatten=FLATTEN):
        acc = tl.full((16, 16), -0.0, tl.float32)
        for k in range(K):
            a = tl.load(a_ptr + r16[:, None] * 16 + r16[None, :])
            b = tl.load(b_ptr + r16[:, None] * 16 + r16[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(out_ptr + r * 256 + r16[:, None] * 16 + r16[None, :], acc)
