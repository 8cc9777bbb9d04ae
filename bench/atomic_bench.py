"""atomic_bench.py - float atomics as training kernels use them, written in Triton's language
and run through whichever compiler this process uses: an absolute-max reduction of a large
fp32 tensor into one scalar (each program's tl.max, then one tl.atomic_max: FP8 scaling's
amax), the same into 64 slots per element (every lane an atomic_max: heavy contention), and
a scatter-add (tl.atomic_add into 4096 slots). ms (do_bench median) and the result checked
against torch; JSON in OUT. Run once under Triton and once under Nereid's drop-in, on the
GPU machine:

    PYTHONPATH=build-gpu/python python3 bench/atomic_bench.py triton $OUT
    PYTHONPATH=build-gpu/python python3 -m nereid.run bench/atomic_bench.py nereid $OUT
"""
import json
import os
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def amax_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_max(out_ptr, tl.max(tl.abs(x), axis=0))


@triton.jit
def slot_max_kernel(x_ptr, out_ptr, n, SLOTS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.atomic_max(out_ptr + offs % SLOTS, x, mask=m)


@triton.jit
def scatter_add_kernel(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    i = tl.load(idx_ptr + offs, mask=m, other=0)
    tl.atomic_add(out_ptr + i, x, mask=m)


def main():
    tag, out = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    n = 1 << 26
    x = torch.randn(n, device="cuda", dtype=torch.float32)
    idx = torch.randint(0, 4096, (n,), device="cuda", dtype=torch.int32)
    B = 1024
    grid = (triton.cdiv(n, B),)
    res = []

    amax = torch.zeros(1, device="cuda")
    def run_amax():
        amax.zero_()
        amax_kernel[grid](x, amax, n, BLOCK=B)
    run_amax()
    ok = torch.equal(amax, x.abs().max().reshape(1))
    res.append(dict(case="amax into one scalar (one atomic a program)", ms=triton.testing.do_bench(run_amax), ok=ok))

    slots = torch.empty(64, device="cuda")
    def run_slots():
        slots.fill_(-float("inf"))
        slot_max_kernel[grid](x, slots, n, SLOTS=64, BLOCK=B)
    run_slots()
    ok = torch.equal(slots, x.view(-1, 64).max(0).values)
    res.append(dict(case="atomic_max of every element into 64 slots", ms=triton.testing.do_bench(run_slots), ok=ok))

    acc = torch.zeros(4096, device="cuda")
    def run_scatter():
        acc.zero_()
        scatter_add_kernel[grid](x, idx, acc, n, BLOCK=B)
    run_scatter()
    ref = torch.zeros(4096, device="cuda", dtype=torch.float64).index_add_(0, idx.long(), x.double())
    ok = torch.allclose(acc.double(), ref, rtol=1e-4, atol=1e-2)
    res.append(dict(case="scatter-add into 4096 slots", ms=triton.testing.do_bench(run_scatter), ok=ok))

    for r in res:
        print(tag, r, flush=True)
    json.dump(res, open(os.path.join(out, f"atomic_{tag}.json"), "w"))


if __name__ == "__main__":
    main()
