#!/usr/bin/env python3
"""bench/matmul_rowmajor_b.py - 8-bit matmuls whose B is row-major (N contiguous).

Hopper's wgmma reads 8-bit operands only K-major. bench.py's fp8 and int8 rows therefore
give B column-major, as torch._scaled_mm and torch._int_mm require. A user's B is often
row-major, though, and then the compiler must turn each tile K-major in shared memory
(Nereid: copied as it lies by 16-byte cp.async, moved K-major through registers into a
ring of two, lower_dot_operands.c and pipeline.c).

This times examples/matmul.nr (Nereid) and Triton's tutorial kernel on the same row-major
B, and, as the ceiling, the same product with B column-major: Nereid's kernel and cuBLAS
(torch._scaled_mm for fp8 e4m3, torch._int_mm for int8). Each side takes the best of
bench.py's 8-bit configuration list; the winners are then timed interleaved, five
rounds, medians. TFLOP/s (TOP/s for int8) = 2 n^3 / time.

usage: PYTHONPATH=build-gpu/python python3 bench/matmul_rowmajor_b.py [--n 4096]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (bench.py: the ctypes binding, the Triton kernels, the lists)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=bench.default_lib())
    ap.add_argument("--n", type=int, default=4096)
    args = ap.parse_args()
    import torch
    import triton
    nr = bench.Nereid(args.lib)
    tk = bench.define_triton_kernels()
    n = args.n
    stream = torch.cuda.current_stream().cuda_stream
    do_bench = lambda fn: triton.testing.do_bench(fn, return_mode="median")
    print("%-10s %-28s %10s %s" % ("dtype", "kernel", "TFLOP/s", "config"))
    for label in ("fp8e4nv", "int8"):
        torch.manual_seed(n)
        if label == "fp8e4nv":
            a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
            b_row = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
            c = torch.empty(n, n, device="cuda", dtype=torch.float16)
            one = torch.ones((), device="cuda", dtype=torch.float32)
            s = bench.Bench.matmul_source("fp8e4nv", "fp16")
            tacc = triton.language.float32
        else:
            a = torch.randint(-128, 128, (n, n), device="cuda", dtype=torch.int8)
            b_row = torch.randint(-128, 128, (n, n), device="cuda", dtype=torch.int8)
            c = torch.empty(n, n, device="cuda", dtype=torch.int32)
            s = bench.Bench.matmul_source("i8", "i32")
            tacc = triton.language.int32
        b_col = b_row.t().contiguous().t()  # the same values, K contiguous
        tc = torch.empty_like(c)

        def nereid(b, cfg):
            bm, bn, bk, w, st = cfg
            k = nr.kernel("examples/matmul.nr", "matmul_kernel",
                          {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8,
                           "ACTIVATION": ""}, w, st, source=s)
            strides = [a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)]
            grid = bench.triton_cdiv(n, bm) * bench.triton_cdiv(n, bn)
            return nr.launcher(k, (grid,), [bench.ptr(a.data_ptr()), bench.ptr(b.data_ptr()), bench.ptr(c.data_ptr()),
                                            bench.i32(n), bench.i32(n), bench.i32(n)] + [bench.i32(x) for x in strides],
                               stream=stream)

        def triton_fn(b, cfg):
            bm, bn, bk, w, st = cfg
            strides = [a.stride(0), a.stride(1), b.stride(0), b.stride(1), tc.stride(0), tc.stride(1)]
            grid = (bench.triton_cdiv(n, bm) * bench.triton_cdiv(n, bn),)
            return lambda: tk["matmul"][grid](a, b, tc, n, n, n, *strides, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                                              BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, ACC=tacc, num_warps=w, num_stages=st)

        def best(make, b):
            found = None
            for cfg in bench.Bench.MM_TILES8:
                try:
                    fn = make(b, cfg)
                    fn()
                    torch.cuda.synchronize()
                    t = do_bench(fn)
                except Exception as e:  # a configuration that does not compile or fit
                    print("  %s %s: %s" % (make.__name__, cfg, str(e).splitlines()[0][:120]))
                    continue
                if found is None or t < found[0]:
                    found = (t, cfg, fn)
            return found

        if label == "fp8e4nv":
            ceiling = lambda: torch._scaled_mm(a, b_col, scale_a=one, scale_b=one, out_dtype=torch.float16)
        else:
            ceiling = lambda: torch._int_mm(a, b_col)
        ref = ceiling().float()
        rows = [("nereid, B row-major", best(nereid, b_row)), ("triton, B row-major", best(triton_fn, b_row)),
                ("nereid, B column-major", best(nereid, b_col))]
        for name, f in rows[:2]:  # the row-major results against the ceiling's
            if f is None:
                continue
            f[2]()
            torch.cuda.synchronize()
            out = c if name.startswith("nereid") else tc
            err = ((out.float() - ref).norm() / ref.norm()).item()
            if err > 1e-2:
                print("  %s: MISMATCH against the ceiling (%.1e)" % (name, err))
        fns = [f[2] if f else None for _, f in rows] + [ceiling]
        times = [[] for _ in fns]
        for _ in range(5):
            for i, fn in enumerate(fns):
                if fn is not None:
                    times[i].append(do_bench(fn))
        names = [r[0] for r in rows] + ["cuBLAS, B column-major"]
        cfgs = [r[1][1] if r[1] else None for r in rows] + [None]
        for name, t, cfg in zip(names, times, cfgs):
            if not t:
                print("%-10s %-28s %10s" % (label, name, "n/a"))
                continue
            ms = sorted(t)[len(t) // 2]
            print("%-10s %-28s %10.1f %s" % (label, name, 2.0 * n ** 3 / (ms * 1e-3) / 1e12, cfg or ""))
        del a, b_row, b_col, c, tc
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
