#!/usr/bin/env python3
"""sjlt_bench.py - the sparse JL transform (examples/sjlt.nr) against torch with S
materialised, dense (cuBLAS: X @ S^T) and sparse (a CSR S: torch.sparse.mm(S, X^T)).

    PYTHONPATH=build-gpu/python python3 bench/sjlt_bench.py [--quick]

S is built on the host from the same Philox words the kernel draws (a NumPy Philox
below, checked against the kernel's output), so all three compute the same y = S x. For
each shape (batch, d, k, s) Nereid's kernel is timed in a few tile configurations and the
best is reported; its time includes zeroing y (the kernel adds into it). Times are medians
of CUDA-event timings after a warm-up (triton.testing.do_bench when Triton is installed).
The table: ms for Nereid, torch dense and torch sparse, and Nereid's speed-up over each;
the memory S takes when materialised is what Nereid never allocates. JSON goes to
$OUT/sjlt_bench.json (or ./sjlt_bench.json). Without a GPU it prints SKIP and exits 0.
"""
import argparse
import json
import os
import statistics
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 1234
M32 = np.uint64(0xFFFFFFFF)


def philox_first_word(seed, offsets):
    """Philox4x32-10 on counters (offset, 0, 0, 0) with key (seed_lo, seed_hi): the first
    word, as tl.randint(seed, offset) gives it."""
    c0 = offsets.astype(np.uint64)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64((seed >> 32) & 0xFFFFFFFF)
    for _ in range(10):
        pb = np.uint64(0xCD9E8D57) * c2
        pa = np.uint64(0xD2511F53) * c0
        c0, c1, c2, c3 = ((pb >> np.uint64(32)) ^ c1 ^ k0) & M32, pb & M32, ((pa >> np.uint64(32)) ^ c3 ^ k1) & M32, pa & M32
        k0 = (k0 + np.uint64(0x9E3779B9)) & M32
        k1 = (k1 + np.uint64(0xBB67AE85)) & M32
    return c0.astype(np.uint32)


def sketch_entries(d, k, s):
    """(rows, cols, values) of S's d*s non-zeros, as sjlt.nr draws them."""
    j = np.repeat(np.arange(d, dtype=np.int64), s)
    t = np.tile(np.arange(s, dtype=np.int64), d)
    w = philox_first_word(SEED, (j * s + t).astype(np.uint32))
    per_block = k // s
    rows = t * per_block + (w >> 1).astype(np.int64) % per_block
    vals = np.where(w & 1, -1.0, 1.0) / np.sqrt(s)
    return rows, j, vals.astype(np.float32)


def bench_fn(torch, fn):
    try:
        import triton.testing
        return triton.testing.do_bench(fn)
    except ImportError:
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(50):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b))
        return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("SKIP: no torch")
        return 0
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device")
        return 0
    import nereid

    shapes = [(4096, 16384, 256, 4), (1024, 65536, 1024, 8), (16384, 4096, 512, 4), (256, 1 << 20, 256, 4)]
    if args.quick:
        shapes = shapes[:2]
    tiles = [(4, 128, 4), (8, 128, 4), (16, 64, 4), (4, 256, 8), (32, 64, 8)]
    rows_out = []
    for B, d, k, s in shapes:
        x = torch.randn(B, d, device="cuda")
        y = torch.zeros(B, k, device="cuda")
        r, c, v = sketch_entries(d, k, s)
        idx = torch.tensor(np.stack([r, c]), device="cuda")
        S_coo = torch.sparse_coo_tensor(idx, torch.tensor(v, device="cuda"), (k, d)).coalesce()
        S_csr = S_coo.to_sparse_csr()
        S_dense = S_coo.to_dense()
        y_dense = x @ S_dense.T
        best = None
        for bb, bd, w in tiles:
            mod = nereid.compile(os.path.join(ROOT, "examples", "sjlt.nr"), device="cuda", num_warps=w, S=s, BLOCK_B=bb,
                                 BLOCK_D=bd)
            grid = (nereid.cdiv(B, bb), nereid.cdiv(d, bd))

            def run(mod=mod, grid=grid):
                y.zero_()
                mod.sjlt_kernel[grid](x, y, B, d, k, SEED, x.stride(0), y.stride(0), 1.0 / float(np.sqrt(s)))
            run()
            torch.cuda.synchronize()
            err = (y - y_dense).abs().max().item()
            if err > 1e-3 * (1 + y_dense.abs().max().item()):
                print(f"sjlt_bench: MISMATCH at {(B, d, k, s)} tile {(bb, bd, w)}: max |err| {err}")
                return 1
            ms = bench_fn(torch, run)
            if best is None or ms < best[0]:
                best = (ms, (bb, bd, w))
        ms_dense = bench_fn(torch, lambda: x @ S_dense.T)
        xt = x.T.contiguous()
        ms_sparse = bench_fn(torch, lambda: torch.sparse.mm(S_csr, xt))
        y_sparse = torch.sparse.mm(S_csr, xt).T
        torch.testing.assert_close(y_sparse, y_dense, rtol=1e-4, atol=1e-4)
        rows_out.append({"batch": B, "d": d, "k": k, "s": s, "nereid_ms": best[0], "nereid_tile": best[1],
                         "torch_dense_ms": ms_dense, "torch_sparse_ms": ms_sparse,
                         "dense_S_MB": k * d * 4 / 2 ** 20})
    info = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows_out}
    with open(os.path.join(os.environ.get("OUT", "."), "sjlt_bench.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(f"sparse JL transform y = S x, S (k x d) with s non-zeros per column; {info['gpu']}")
    print(f"{'batch':>6} {'d':>8} {'k':>5} {'s':>2} {'Nereid ms':>10} {'dense ms':>9} {'sparse ms':>10} "
          f"{'vs dense':>9} {'vs sparse':>10} {'S dense MB':>11}  tile (B, D, warps)")
    for r in rows_out:
        print(f"{r['batch']:6d} {r['d']:8d} {r['k']:5d} {r['s']:2d} {r['nereid_ms']:10.3f} {r['torch_dense_ms']:9.3f} "
              f"{r['torch_sparse_ms']:10.3f} {r['torch_dense_ms'] / r['nereid_ms']:7.2f}x "
              f"{r['torch_sparse_ms'] / r['nereid_ms']:8.2f}x {r['dense_S_MB']:11.1f}  {r['nereid_tile']}")
    print(f"sjlt_bench: OK ({len(rows_out)} shapes, outputs agree with torch dense and sparse)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
