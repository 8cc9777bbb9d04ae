#!/usr/bin/env python3
"""bench/matmul_power.py - matmul throughput against the clock it ran at.

A Hopper running a large matmul reaches its power limit: the driver lowers the SM clock
(clocks_event_reasons: software power cap) until the board draws no more than the limit.
A kernel's TFLOP/s then depends on the work it does per clock and on the energy it spends
per clock, which sets the clock it gets. This script separates the two for bench.py's
16-bit rows: examples/matmul.nr (Nereid) and Triton's tutorial kernel at the
configuration both pick there (128x256x64, 8 warps, 3 stages), and cuBLAS
(torch.matmul), each run back to back for SECONDS while nvidia-smi samples the SM clock
and the board power every 100 ms. It prints each one's TFLOP/s over the run (the first
second left out), its mean SM clock and power over the same time, and TFLOP/s per GHz of
that clock: the work done per clock, which the power cap does not move. Two rounds, the
second in the opposite order; the figures are their means.

usage: PYTHONPATH=build-gpu/python python3 bench/matmul_power.py [--seconds S]
       [--shapes fp16:4096,bf16:8192,fp16:4096x4096x8192,...]
"""
import argparse
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (bench.py: the ctypes binding and the Triton kernels)


class Sampler:
    """nvidia-smi's SM clock (MHz) and power (W) every 100 ms, stamped with time.time()."""

    def __init__(self):
        self.samples = []
        self.proc = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                                      "-lms", "100"], stdout=subprocess.PIPE, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                mhz, watts = (float(x) for x in line.split(","))
            except ValueError:
                continue
            self.samples.append((time.time(), mhz, watts))

    def mean(self, t0, t1):
        s = [(m, w) for t, m, w in self.samples if t0 <= t <= t1]
        if not s:
            return float("nan"), float("nan")
        return sum(m for m, _ in s) / len(s), sum(w for _, w in s) / len(s)

    def stop(self):
        self.proc.terminate()


def sustained(torch, fn, flop, seconds, sampler):
    """Runs fn back to back for `seconds`; TFLOP/s, MHz and W over all but the first second."""
    fn()
    torch.cuda.synchronize()
    t_start = time.time()
    while time.time() - t_start < 1.0:  # settle: the clock finds its level
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0, n = time.time(), 0
    start.record()
    while time.time() - t0 < seconds - 1.0:
        for _ in range(20):
            fn()
        n += 20
        torch.cuda.synchronize()
    end.record()
    end.synchronize()
    t1 = time.time()
    ms = start.elapsed_time(end) / n
    mhz, watts = sampler.mean(t0, t1)
    return flop / (ms * 1e-3) / 1e12, mhz, watts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=bench.default_lib())
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--shapes", default="fp16:4096,fp16:8192,bf16:4096,bf16:8192,fp16:4000",
                    help="comma-separated DTYPE:N (N^3) or DTYPE:MxNxK problems")
    args = ap.parse_args()
    import torch
    import triton
    nr = bench.Nereid(args.lib)
    tk = bench.define_triton_kernels()
    BM, BN, BK, W, S = bench.Bench.MM_PICK16
    kerns = {}
    for dt in ("fp16", "bf16"):
        kerns[dt] = nr.kernel("examples/matmul.nr", "matmul_kernel",
                              {"BLOCK_SIZE_M": BM, "BLOCK_SIZE_N": BN, "BLOCK_SIZE_K": BK, "GROUP_SIZE_M": 8,
                               "ACTIVATION": ""}, W, S, source=bench.Bench.matmul_source(dt, dt))
    sampler = Sampler()
    time.sleep(0.5)
    stream = torch.cuda.current_stream().cuda_stream
    print("%-22s %-7s %9s %8s %7s %12s" % ("problem", "who", "TFLOP/s", "SM MHz", "W", "TFLOP/s/GHz"))
    for shape in args.shapes.split(","):
        dt, dims = shape.split(":")
        M, N, K = (int(x) for x in dims.split("x")) if "x" in dims else (int(dims),) * 3
        tdt = torch.float16 if dt == "fp16" else torch.bfloat16
        torch.manual_seed(0)
        a = torch.randn(M, K, device="cuda").to(tdt)
        b = torch.randn(K, N, device="cuda").to(tdt)
        c, tc = torch.empty(M, N, device="cuda", dtype=tdt), torch.empty(M, N, device="cuda", dtype=tdt)
        strides = [a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)]
        grid = bench.triton_cdiv(M, BM) * bench.triton_cdiv(N, BN)
        run_n = nr.launcher(kerns[dt], (grid,), [bench.ptr(a.data_ptr()), bench.ptr(b.data_ptr()),
                                                 bench.ptr(c.data_ptr()), bench.i32(M), bench.i32(N), bench.i32(K)]
                            + [bench.i32(x) for x in strides], stream=stream)

        def run_t():
            tk["matmul"][(grid,)](a, b, tc, M, N, K, *strides, BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK,
                                  GROUP_SIZE_M=8, ACC=triton.language.float32, num_warps=W, num_stages=S)

        def run_c():
            torch.matmul(a, b, out=c)

        who = (("nereid", run_n), ("triton", run_t), ("cublas", run_c))
        res = {k: [] for k, _ in who}
        for order in (who, tuple(reversed(who))):
            for name, fn in order:
                res[name].append(sustained(torch, fn, 2.0 * M * N * K, args.seconds, sampler))
        label = "%s %d^3" % (dt, M) if M == N == K else "%s %dx%dx%d" % (dt, M, N, K)
        for name, _ in who:
            tf, mhz, w = (sum(r[i] for r in res[name]) / len(res[name]) for i in range(3))
            print("%-22s %-7s %9.1f %8.0f %7.0f %12.1f" % (label, name, tf, mhz, w, tf / (mhz / 1e3)))
        del a, b, c, tc
        torch.cuda.empty_cache()
    sampler.stop()


if __name__ == "__main__":
    main()
