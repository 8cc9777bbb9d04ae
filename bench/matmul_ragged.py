#!/usr/bin/env python3
"""bench/matmul_ragged.py - what the ragged fp16 matmul (bench.py's 4000^3 row) loses
against 4096^3, split into its parts.

Times examples/matmul.nr (Nereid) and Triton's tutorial kernel at one configuration
(128x256x64, 8 warps, 3 stages: the best of both lists at 4096^3 and 4000^3 in bench.py),
and cuBLAS (torch.matmul), on fp16 problems that differ in one thing at a time:

  4096^3                          the reference
  4000x4000x4096, rows of 4096    ragged tiles only: 32x16 tiles of 128x256, the last
                                  row and column of tiles partly outside C
  4000^3, rows of 4096            ragged tiles and a K tail (62.5 K steps of 64)
  4000^3, rows of 4000            bench.py's row: the same, with rows of 8000 bytes, so
                                  every other row of A, B and C starts in the middle of a
                                  128-byte line

Each line times the three in turn, ROUNDS times, and prints each one's median (do_bench
median per round); TFLOP/s = 2 M N K / time.

usage: PYTHONPATH=build-gpu/python python3 bench/matmul_ragged.py [--rounds N]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (bench.py: the ctypes binding and the Triton kernels)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=bench.default_lib())
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    import torch
    import triton
    nr = bench.Nereid(args.lib)
    tk = bench.define_triton_kernels()
    BM, BN, BK, W, S = bench.Bench.MM_PICK16
    kern = nr.kernel("examples/matmul.nr", "matmul_kernel",
                     {"BLOCK_SIZE_M": BM, "BLOCK_SIZE_N": BN, "BLOCK_SIZE_K": BK, "GROUP_SIZE_M": 8, "ACTIVATION": ""},
                     W, S)
    cases = (("4096^3", 4096, 4096, 4096, 4096), ("4000x4000x4096, rows of 4096", 4000, 4000, 4096, 4096),
             ("4000^3, rows of 4096", 4000, 4000, 4000, 4096), ("4000^3, rows of 4000", 4000, 4000, 4000, 4000))
    print("%-32s %8s %8s %8s %9s %9s" % ("problem (fp16)", "nereid", "triton", "cublas", "n/cublas", "n/triton"))
    stream = torch.cuda.current_stream().cuda_stream
    for name, M, N, K, ld in cases:
        torch.manual_seed(0)
        pa = torch.randn(max(M, K), ld, device="cuda", dtype=torch.float16)
        pb = torch.randn(max(K, N), ld, device="cuda", dtype=torch.float16)
        pc = torch.zeros(max(M, N), ld, device="cuda", dtype=torch.float16)
        pt = torch.zeros_like(pc)
        a, b, c, tc = pa[:M, :K], pb[:K, :N], pc[:M, :N], pt[:M, :N]
        strides = [a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)]
        grid = bench.triton_cdiv(M, BM) * bench.triton_cdiv(N, BN)
        run_n = nr.launcher(kern, (grid,), [bench.ptr(a.data_ptr()), bench.ptr(b.data_ptr()), bench.ptr(c.data_ptr()),
                                            bench.i32(M), bench.i32(N), bench.i32(K)] + [bench.i32(x) for x in strides],
                            stream=stream)

        def run_t():
            tk["matmul"][(grid,)](a, b, tc, M, N, K, *strides, BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK,
                                  GROUP_SIZE_M=8, ACC=triton.language.float32, num_warps=W, num_stages=S)

        def run_c():
            return torch.matmul(a, b)

        run_n(), run_t()
        ref = run_c().float()
        torch.cuda.synchronize()
        for out, who in ((c, "nereid"), (tc, "triton")):
            err = ((out.float() - ref).norm() / ref.norm()).item()
            if err > 1e-2:
                print("  %s: MISMATCH against torch (%.1e)" % (who, err))
        times = [[], [], []]
        for _ in range(args.rounds):
            for i, fn in enumerate((run_n, run_t, run_c)):
                times[i].append(triton.testing.do_bench(fn, return_mode="median"))
        med = [sorted(t)[len(t) // 2] for t in times]
        tf = [2.0 * M * N * K / (t * 1e-3) / 1e12 for t in med]
        print("%-32s %8.1f %8.1f %8.1f %9.3f %9.3f" % (name, tf[0], tf[1], tf[2], tf[0] / tf[2], tf[0] / tf[1]))
        del pa, pb, pc, pt
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
