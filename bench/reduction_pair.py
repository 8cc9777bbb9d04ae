#!/usr/bin/env python3
"""reduction_pair.py - two small memory-bound kernels of the shapes torch.compile's Inductor
writes for a training step (GPT-2's and ResNet-50's), through Triton and through Nereid on
the same tensors: GPU microseconds per launch from CUPTI (torch.profiler, median of 50
back-to-back launches, inputs resident in L2) and from triton.testing.do_bench (L2 flushed
between runs; two interleaved rounds, the faster of each).

    PYTHONPATH=build-gpu/python python3 bench/reduction_pair.py

- widen: a bf16 vector to fp32 (Inductor's `_to_copy`), 1769472 elements, 1024 a
  program, 4 warps. A thread's run of elements is bounded by 16 bytes of the fp32 store
  (layout assignment's cap_vectors); with 8 bf16 a thread each lane stored two 16-byte
  halves 32 bytes apart (twice the L2 sectors).
- colsum: the sum over the middle axis of a [64, 128, 768] bf16 tensor into fp32 (a bias
  gradient; Inductor's OUTER reduction, its sizes constants as Inductor writes them): 64
  columns and 8 rows a tile, a loop over the 128 rows, the 8-row partials of the 4 warps added through shared memory at the end
  (llvm_reduce.c's [warp slot][output] table; a slot-minor table had 16-way bank
  conflicts).
Prints one line per kernel and compiler, and the Nereid/Triton ratios last."""
import statistics

import torch
import triton
import triton.language as tl
from torch.profiler import ProfilerActivity, profile
from triton.testing import do_bench

import nereid


def widen(src, dst, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + i, tl.load(src + i).to(tl.float32))


def colsum(src, dst, ncols, NROWS: tl.constexpr, COLS: tl.constexpr, ROWS: tl.constexpr):
    col = tl.program_id(0) * COLS + tl.arange(0, COLS)[:, None]
    within, batch = col % 768, col // 768
    row0 = tl.arange(0, ROWS)[None, :]
    acc = tl.zeros([COLS, ROWS], tl.float32)
    for r in tl.range(0, NROWS, ROWS):
        row = r + row0
        keep = row < NROWS
        v = tl.load(src + within + 768 * row + 768 * NROWS * batch, keep, eviction_policy="evict_first", other=0.0)
        acc = tl.where(keep, acc + v.to(tl.float32), acc)
    tl.store(dst + col, tl.sum(acc, 1)[:, None])


def cupti_us(fn, name, reps=50):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    times = [e.device_time for e in prof.events() if e.device_type.name == "CUDA" and name in e.name]
    return statistics.median(times)


def main():
    n = 1769472
    x = torch.randn(n, device="cuda").to(torch.bfloat16)
    y = torch.empty(n, device="cuda")
    m = torch.randn(64 * 128 * 768, device="cuda").to(torch.bfloat16)
    s = torch.empty(64 * 768, device="cuda")
    cases = {
        "widen": (widen, lambda k: k[(n // 1024, )](x, y, n, BLOCK=1024, num_warps=4), y,
                  lambda: x.float()),
        "colsum": (colsum, lambda k: k[(64 * 768 // 64, )](m, s, 64 * 768, NROWS=128, COLS=64, ROWS=8, num_warps=4), s,
                   lambda: m.view(64, 128, 768).float().sum(1).flatten()),
    }
    ratios = {}
    for name, (fn, launch, out, ref) in cases.items():
        kernels = {"triton": triton.jit(fn), "nereid": nereid.jit(fn)}
        got = {}
        for c, k in kernels.items():
            out.zero_()
            launch(k)
            torch.cuda.synchronize()
            got[c] = (out - ref()).abs().max().item()
        us = {c: (cupti_us(lambda: launch(k), fn.__name__), float("inf")) for c, k in kernels.items()}
        for _ in range(2):  # interleaved rounds, the faster of each
            for c, k in kernels.items():
                us[c] = (us[c][0], min(us[c][1], do_bench(lambda: launch(k), warmup=50, rep=200) * 1e3))
        for c in kernels:
            print("%-7s %-7s cupti %6.2f us  do_bench %6.2f us  max |err| %.2g" % (name, c, us[c][0], us[c][1], got[c]))
        ratios[name] = (us["nereid"][0] / us["triton"][0], us["nereid"][1] / us["triton"][1])
    print("Nereid/Triton time: " + ", ".join("%s %.3f (cupti) %.3f (do_bench)" % (k, *v) for k, v in ratios.items()))


if __name__ == "__main__":
    main()
