#!/usr/bin/env python3
"""tdesc_bench.py - matmul through host tensor descriptors, side by side on one GPU:
Nereid (@nereid.jit, TMA rings on sm_90a), Triton 3.x (the same kernel with Triton's
TensorDescriptor: its TMA lowering) and cuBLAS (torch.matmul), fp16 in, fp32 accumulation,
fp16 out, on the same tensors; Nereid and Triton get the same tile, warps and stages.

    PYTHONPATH=build-gpu/python python3 bench/tdesc_bench.py [SIZE ...]   (default 4096 8192)

Times: the median of triton.testing.do_bench (L2 flushed before each run), TFLOP/s =
2 N^3 / time. The table lists each configuration; outputs are checked against cuBLAS.
"""
import sys

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor as TritonDesc

import nereid


def matmul_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, WS: tl.constexpr = False):
    # WS: tl.range's warp_specialize hint (bench/warp_specialize_bench.py times it)
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_SIZE_K), warp_specialize=WS):
        a = a_desc.load([pid_m * BLOCK_SIZE_M, k * BLOCK_SIZE_K])
        b = b_desc.load([k * BLOCK_SIZE_K, pid_n * BLOCK_SIZE_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], acc.to(c_desc.dtype))


# one kernel, two compilers
triton_kernel = triton.jit(matmul_kernel)
nereid_kernel = nereid.jit(matmul_kernel)


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [4096, 8192]
    configs = [(128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 128, 64, 8, 3)]
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    print("%s, torch %s, triton %s" % (torch.cuda.get_device_name(), torch.__version__, triton.__version__))
    print("%-6s %-18s %10s %10s %10s %9s %9s" % ("size", "tile (w, s)", "nereid", "triton", "cublas", "n/triton", "n/cublas"))
    for n in sizes:
        torch.manual_seed(0)
        a = torch.randn(n, n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, n, device="cuda", dtype=torch.float16)
        ref = torch.matmul(a, b)
        t_cublas = triton.testing.do_bench(lambda: torch.matmul(a, b), return_mode="median")
        flop = 2.0 * n ** 3
        for bm, bn, bk, w, s in configs:
            grid = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
            cn = torch.empty(n, n, device="cuda", dtype=torch.float16)
            ct = torch.empty(n, n, device="cuda", dtype=torch.float16)
            nd = [nereid.TensorDescriptor.from_tensor(x, blk) for x, blk in ((a, [bm, bk]), (b, [bk, bn]), (cn, [bm, bn]))]
            td = [TritonDesc.from_tensor(x, blk) for x, blk in ((a, [bm, bk]), (b, [bk, bn]), (ct, [bm, bn]))]

            def run_n():
                nereid_kernel[grid](*nd, n, n, n, bm, bn, bk, 8, num_warps=w, num_stages=s)

            def run_t():
                triton_kernel[grid](*td, n, n, n, bm, bn, bk, 8, num_warps=w, num_stages=s)

            run_n(), run_t()
            torch.cuda.synchronize()
            err_n = (cn.float() - ref.float()).abs().max().item()
            err_t = (ct.float() - ref.float()).abs().max().item()
            tn = triton.testing.do_bench(run_n, return_mode="median")
            tt = triton.testing.do_bench(run_t, return_mode="median")
            print("%-6d %-18s %7.1f TF %7.1f TF %7.1f TF %9.3f %9.3f   (max |err| vs cuBLAS: nereid %.3g, triton %.3g)" % (
                n, "%dx%dx%d (%d, %d)" % (bm, bn, bk, w, s), flop / tn / 1e9, flop / tt / 1e9, flop / t_cublas / 1e9,
                tt / tn, t_cublas / tn, err_n, err_t))


if __name__ == "__main__":
    main()
