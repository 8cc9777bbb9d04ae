#!/usr/bin/env python3
"""warp_specialize_bench.py - a TMA matmul with and without warp specialisation
(tl.range(..., warp_specialize=WS)), side by side on one GPU: Nereid with WS on and off,
Triton 3.x on the same kernel (WS off; WS on where Triton compiles it: on Hopper, Triton
3.6's own pass does nothing with it or fails, shared/design/warp-specialization.md) and
cuBLAS (torch.matmul), on the same tensors, host tensor descriptors, grouped tile order,
fp32 accumulation.

    PYTHONPATH=build-gpu/python python3 bench/warp_specialize_bench.py [--sizes 4096,8192]
        [--dtypes fp16,bf16] [--rounds 3] [--persistent] [--k K]

--persistent: tutorial 09's persistent form instead (one program per SM, tiles visited by a
stride, the tile loop tl.range(..., flatten=True, warp_specialize=WS) fused with the K
loop, B stored N x K); --k gives K (default: the size), e.g. 512 at 8192 as tutorial 09
benchmarks it.

Times: per round, each runner once with triton.testing.do_bench (warmup 25, rep 100, the
median), runners interleaved; the table gives each runner's median over the rounds in
TFLOP/s (2 M N K / time) and the ratios. Outputs are checked against cuBLAS's.
"""
import argparse
import os
import sys

import torch
import triton
from triton.tools.tensor_descriptor import TensorDescriptor as TritonDesc

import nereid
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# tdesc_bench.py's kernel (tutorial 09's grouped tiles over host descriptors), its WS
# constexpr the loop's warp_specialize hint
from tdesc_bench import nereid_kernel, triton_kernel  # noqa: E402



def persistent_kernel(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr, WS: tl.constexpr):
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_tiles = num_pid_m * num_pid_n
    in_group = GROUP_M * num_pid_n
    for tile_id in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=True, warp_specialize=WS):
        first_m = (tile_id // in_group) * GROUP_M
        size_m = min(num_pid_m - first_m, GROUP_M)
        pid_m = first_m + (tile_id % size_m)
        pid_n = (tile_id % in_group) // size_m
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            acc = tl.dot(a_desc.load([pid_m * BM, ki * BK]), b_desc.load([pid_n * BN, ki * BK]).T, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


persistent_triton = triton.jit(persistent_kernel)
persistent_nereid = nereid.jit(persistent_kernel)

CONFIGS = [(128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (128, 128, 64, 8, 4), (128, 128, 64, 4, 4),
           (128, 256, 64, 4, 3)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--dtypes", default="fp16,bf16")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--persistent", action="store_true")
    ap.add_argument("--k", type=int, default=0)
    args = ap.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    print("%s, torch %s, triton %s" % (torch.cuda.get_device_name(), torch.__version__, triton.__version__))
    rows = []
    for dname in args.dtypes.split(","):
        dt = {"fp16": torch.float16, "bf16": torch.bfloat16}[dname]
        for n in (int(s) for s in args.sizes.split(",")):
            torch.manual_seed(0)
            kd = args.k or n
            a = torch.randn(n, kd, device="cuda", dtype=dt)
            b = torch.randn(kd, n, device="cuda", dtype=dt)
            bt = b.T.contiguous()  # N x K, as tutorial 09's persistent kernels read B
            ref = torch.matmul(a, b)
            for bm, bn, bk, w, s in CONFIGS:
                tiles = triton.cdiv(n, bm) * triton.cdiv(n, bn)
                grid = (min(sms, tiles),) if args.persistent else (tiles,)
                runners, outs = {}, {}
                for name, ws in (("nereid ws", True), ("nereid", False), ("triton", False), ("triton ws", True)):
                    nrd = name.startswith("nereid")
                    if args.persistent:
                        comp = persistent_nereid if nrd else persistent_triton
                    else:
                        comp = nereid_kernel if nrd else triton_kernel
                    D = nereid.TensorDescriptor if nrd else TritonDesc
                    c = torch.empty(n, n, device="cuda", dtype=dt)
                    bb = (bt, [bn, bk]) if args.persistent else (b, [bk, bn])
                    d = [D.from_tensor(x, blk) for x, blk in ((a, [bm, bk]), bb, (c, [bm, bn]))]
                    last = sms if args.persistent else 8  # NUM_SMS, or GROUP_SIZE_M

                    def run(comp=comp, d=d, ws=ws, last=last, kd=kd):
                        if args.persistent:
                            comp[grid](*d, n, n, kd, bm, bn, bk, 8, last, ws, num_warps=w, num_stages=s)
                        else:
                            comp[grid](*d, n, n, kd, bm, bn, bk, last, ws, num_warps=w, num_stages=s)
                    try:
                        run()
                        torch.cuda.synchronize()
                    except Exception as e:  # Triton's WS pass on Hopper, or resources
                        outs[name] = "fails: %s" % str(e).splitlines()[0][:60] if str(e) else type(e).__name__
                        continue
                    err = (c.float() - ref.float()).abs().max().item()
                    outs[name] = "max |err| %.3g" % err
                    runners[name] = run
                runners["cublas"] = lambda: torch.matmul(a, b)
                times = {k: [] for k in runners}
                for _ in range(args.rounds):
                    for k, f in runners.items():
                        times[k].append(triton.testing.do_bench(f, warmup=25, rep=100, return_mode="median"))
                med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
                tf = {name: 2.0 * n * n * kd / t / 1e9 for name, t in med.items()}
                rows.append((dname, "%dx%dx%d" % (n, n, kd), "%dx%dx%d w%d s%d" % (bm, bn, bk, w, s), tf, outs))
                print(dname, n, rows[-1][2], {k: round(v, 1) for k, v in tf.items()}, outs, flush=True)
    print()
    print("persistent, flattened tile loop" if args.persistent else "one tile per program")
    print("| dtype | M x N x K | tile | Nereid WS TF/s | Nereid TF/s | Triton TF/s | cuBLAS TF/s | WS/no WS | WS/Triton "
          "| WS/cuBLAS | Triton WS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for dname, n, tile, tf, outs in rows:
        g = lambda k: tf.get(k, float("nan"))  # noqa: E731
        tws = "%.1f" % tf["triton ws"] if "triton ws" in tf else outs.get("triton ws", "-")
        print("| %s | %s | %s | %.1f | %.1f | %.1f | %.1f | %.3f | %.3f | %.3f | %s |" % (
            dname, n, tile, g("nereid ws"), g("nereid"), g("triton"), g("cublas"), g("nereid ws") / g("nereid"),
            g("nereid ws") / g("triton"), g("nereid ws") / g("cublas"), tws))


if __name__ == "__main__":
    main()
