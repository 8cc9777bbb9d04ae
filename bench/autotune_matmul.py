#!/usr/bin/env python3
"""autotune_matmul.py - examples/matmul.nr's kernel tuned by the autotuner over the
matmul tutorial's list of CUDA configs, against cuBLAS (torch.matmul) and a fixed config.

    NEREID_PRINT_AUTOTUNING=1 PYTHONPATH=build-gpu/python python3 bench/autotune_matmul.py [--quick]

The kernel file is read as it is and a @triton.autotune decorator (key M, N, K) is put
in front of its @triton.jit before nereid.compile: the runtime reads the decorator from
the source, times every config at the first launch of each shape, and keeps the choice
in the cache directory (a second run of this script takes it from there; the JSON's
tune_s says how long the first launch took). For each shape (fp16 inputs, fp32
accumulation, fp16 output) the table gives TFLOP/s (2*M*N*K / time, median of CUDA-event
timings) of the tuned kernel, of the fixed config bench.py uses, and of cuBLAS, the
config chosen and the time tuning took. JSON goes to $OUT/autotune_matmul.json.
Without a GPU it prints SKIP and exits 0.
"""
import argparse
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the matmul tutorial's configs for CUDA GPUs (BLOCK_SIZE_M, N, K, GROUP_SIZE_M, stages, warps)
CONFIGS = [(128, 256, 64, 8, 3, 8), (64, 256, 32, 8, 4, 4), (128, 128, 32, 8, 4, 4), (128, 64, 32, 8, 4, 4),
           (64, 128, 32, 8, 4, 4), (128, 32, 32, 8, 4, 4), (64, 32, 32, 8, 5, 2), (32, 64, 32, 8, 5, 2)]
FIXED = {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}


def tuned_source():
    with open(os.path.join(ROOT, "examples", "matmul.nr")) as f:
        src = f.read()
    configs = ",\n".join(
        f"    triton.Config({{'BLOCK_SIZE_M': {m}, 'BLOCK_SIZE_N': {n}, 'BLOCK_SIZE_K': {k}, 'GROUP_SIZE_M': {g}}}, "
        f"num_stages={s}, num_warps={w})" for m, n, k, g, s, w in CONFIGS)
    deco = f"@triton.autotune(configs=[\n{configs}\n], key=['M', 'N', 'K'])\n"
    marker = "@triton.jit\ndef matmul_kernel("
    assert marker in src, "examples/matmul.nr changed shape: no '@triton.jit' before matmul_kernel"
    return src.replace(marker, deco + marker, 1)


def timed(torch, fn, reps=20):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
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

    tuned = nereid.compile(tuned_source(), device="cuda", ACTIVATION="")
    fixed = nereid.compile(os.path.join(ROOT, "examples", "matmul.nr"), device="cuda", ACTIVATION="", **FIXED)
    shapes = [(4096, 4096, 4096), (2048, 2048, 2048), (8192, 1024, 4096), (1024, 8192, 512)]
    if args.quick:
        shapes = shapes[1:2]
    rows = []
    for M, N, K in shapes:
        a = torch.randn((M, K), device="cuda", dtype=torch.float16)
        b = torch.randn((K, N), device="cuda", dtype=torch.float16)
        c = torch.empty((M, N), device="cuda", dtype=torch.float16)
        strides = (a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))

        def grid(meta):
            return (nereid.cdiv(M, meta["BLOCK_SIZE_M"]) * nereid.cdiv(N, meta["BLOCK_SIZE_N"]),)

        t0 = time.time()
        tuned.matmul_kernel[grid](a, b, c, M, N, K, *strides)  # the first launch of this shape tunes
        torch.cuda.synchronize()
        tune_s = time.time() - t0
        ref = a @ b
        err = (c.float() - ref.float()).abs().max().item()
        if err > 1e-2 * (1 + ref.float().abs().max().item()):
            print(f"autotune_matmul: MISMATCH at {M}x{N}x{K}: max |err| {err}")
            return 1
        seen = {}
        tuned.matmul_kernel[lambda m: seen.update(m) or grid(m)](a, b, c, M, N, K, *strides)
        chosen = {k: seen[k] for k in ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M") if k in seen}
        flops = 2.0 * M * N * K
        ms_tuned = timed(torch, lambda: tuned.matmul_kernel[grid](a, b, c, M, N, K, *strides))
        fgrid = (nereid.cdiv(M, FIXED["BLOCK_SIZE_M"]) * nereid.cdiv(N, FIXED["BLOCK_SIZE_N"]),)
        ms_fixed = timed(torch, lambda: fixed.matmul_kernel[fgrid](a, b, c, M, N, K, *strides))
        ms_cublas = timed(torch, lambda: torch.matmul(a, b, out=c))
        rows.append({"M": M, "N": N, "K": K, "tuned_tflops": flops / ms_tuned / 1e9, "fixed_tflops": flops / ms_fixed / 1e9,
                     "cublas_tflops": flops / ms_cublas / 1e9, "config": chosen, "tune_s": tune_s})
    info = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows}
    with open(os.path.join(os.environ.get("OUT", "."), "autotune_matmul.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(f"matmul fp16 (fp32 accumulation), TFLOP/s; {info['gpu']}; {len(CONFIGS)} configs tuned per shape")
    print(f"{'M x N x K':>20} {'tuned':>8} {'fixed':>8} {'cuBLAS':>8} {'tuned/cuBLAS':>13} {'tuning s':>9}  chosen")
    for r in rows:
        cfg = "x".join(str(r["config"].get(k, "?")) for k in ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K"))
        print(f"{r['M']:>6} x {r['N']:>5} x {r['K']:>5} {r['tuned_tflops']:8.1f} {r['fixed_tflops']:8.1f} "
              f"{r['cublas_tflops']:8.1f} {r['tuned_tflops'] / r['cublas_tflops']:13.3f} {r['tune_s']:9.1f}  {cfg}")
    print(f"autotune_matmul: OK ({len(rows)} shapes, results match torch.matmul)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
