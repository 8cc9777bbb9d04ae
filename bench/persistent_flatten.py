#!/usr/bin/env python3
"""A persistent matmul (python/tests/flatten_kernels.py) three ways on the GPU: one tile per
program, 132 programs (the SM count) visiting tiles by a stride, and the same with the tile
loop tl.range(..., flatten=True). fp16, M = N = 8192 by default, at fixed tiles; medians of
triton.testing.do_bench in ms, each output checked against torch.matmul first.

    PYTHONPATH=build-gpu/python python3 bench/persistent_flatten.py [--k 512,4096] [--mn 8192]
"""
import argparse
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "tests"))
import flatten_kernels as fk  # noqa: E402

TILES = [(128, 256, 64, 8, 3), (128, 128, 64, 8, 3), (128, 128, 64, 8, 4), (128, 128, 64, 4, 4),
         (128, 256, 64, 8, 4)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", default="512,4096")
    ap.add_argument("--mn", type=int, default=8192)
    ap.add_argument("--hints", type=int, default=1, help="tl.multiple_of / max_contiguous on the offsets")
    args = ap.parse_args()
    fk.persistent_matmul.device = "cuda"
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    M = N = args.mn
    print(f"{'K':>6} {'tile':>18} {'one/tile':>9} {'persist':>8} {'flat':>8} {'flat/persist':>12} regs p/f")
    for K in (int(k) for k in args.k.split(",")):
        torch.manual_seed(0)
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        want = (a @ b).float()
        for BM, BN, BK, w, s in TILES:
            tiles = triton.cdiv(M, BM) * triton.cdiv(N, BN)
            cnt = torch.zeros(max(tiles, sms), device="cuda", dtype=torch.int32)
            ms, regs = {}, {}
            for name, progs, flat in (("one", tiles, False), ("persist", sms, False), ("flat", sms, True)):
                def run():
                    return fk.persistent_matmul[(progs,)](
                        a, b, c, cnt, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), progs, BM=BM, BN=BN, BK=BK, HINTS=bool(args.hints),
                        FLATTEN=flat, num_warps=w, num_stages=s)
                k = run()
                torch.cuda.synchronize()
                err = (c.float() - want).abs().max().item()
                if err > 1.0:
                    sys.exit(f"wrong result: {name} {BM}x{BN}x{BK} K={K}: max |err| {err}")
                regs[name] = getattr(k, "n_regs", -1)
                ms[name] = triton.testing.do_bench(run, warmup=50, rep=300)
            tile = f"{BM}x{BN}x{BK} w{w} s{s}"
            print(f"{K:>6} {tile:>18} {ms['one']:9.4f} {ms['persist']:8.4f} {ms['flat']:8.4f} "
                  f"{ms['flat'] / ms['persist']:12.3f} {regs['persist']}/{regs['flat']}")


if __name__ == "__main__":
    main()
