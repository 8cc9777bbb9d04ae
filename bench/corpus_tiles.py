"""The tutorial matmuls of the corpus at each tile configuration of their autotuners, through
Triton and through Nereid on the same tensors: where the autotuners' picks hide a gap.

    python3 bench/corpus_tiles.py bp|mm|mm36 [--n 4096] [--dtype fp16|bf16] [--only 64x256x32w4s4]
    python3 bench/corpus_tiles.py p09 [--kernels persistent,tma,descriptor] [--mnk 8192,8192,512] [--only ...]

bp: Triton 3.0's tutorial 08 (block pointers, `tl.advance`); mm: its tutorial 03 (the
matmul as written before `tl.assume`); mm36: 3.6's tutorial 03 at its fp16 configurations
(the 2-warp tiles its autotuner picks for small matrices included); p09: 3.6's tutorial 09's
persistent kernels (pointers, host tensor descriptors, in-kernel descriptors) at every
configuration of their autotuning lists, on the tutorial's bench() inputs (M = N = 8192, K = 512,
B given as (N, K)), the launch as its host code makes it (132 programs at most, flatten on,
no warp specialisation; `EPILOGUE_SUBTILE` a configuration's key). Each configuration: one launch of each checked
against torch (max |err| of the fp16 outputs), then three interleaved rounds of
`triton.testing.do_bench` per compiler and for cuBLAS (`torch.matmul` on the same
tensors); the medians, the ratios (Nereid's time over Triton's; cuBLAS's time over
Nereid's, the fraction of cuBLAS's speed) and each kernel's registers. The sources are the corpus's (bench/corpus.py; `tools/fetch-corpus.sh` fetches
them), unchanged; the GPU machine only."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages): the tutorials' autotuning lists
# (3.0's 03 and 08 share theirs) and the 8-warp tiles of later releases
CONFIGS = [(128, 256, 64, 4, 4), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
           (64, 128, 32, 4, 4), (128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 128, 64, 8, 3)]
# 3.6's tutorial 03: its autotuning list's tiles for 16-bit inputs
CONFIGS_36 = [(128, 256, 64, 8, 3), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
              (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 2, 5), (32, 64, 32, 2, 5)]


def _time3(fns):
    """Three interleaved rounds of do_bench over {who: fn}; the medians."""
    import triton.testing
    times = {who: [] for who in fns}
    for _ in range(3):
        for who, fn in fns.items():
            times[who].append(triton.testing.do_bench(fn, warmup=25, rep=100))
    return {who: sorted(t)[1] for who, t in times.items()}


def persistent09(args):
    """Tutorial 09's persistent kernels at each configuration of their autotuners."""
    import torch
    import triton
    import corpus
    import nereid
    from triton.tools.tensor_descriptor import TensorDescriptor
    mod = corpus.load("triton-3.6", "python/tutorials/09-persistent-matmul.py", static=True)
    M, N, K = (int(x) for x in args.mnk.split(","))
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16).T.contiguous()  # (N, K), as bench() makes it
    ref = (a.float() @ b.float().T)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    rows = []
    for which in args.kernels.split(","):
        auto = {"persistent": mod.matmul_kernel_persistent, "tma": mod.matmul_kernel_tma_persistent,
                "descriptor": mod.matmul_kernel_descriptor_persistent}[which]
        tj = auto.fn
        nj = nereid.JITFunction(tj.fn)
        for cfg in auto.configs:
            kw = dict(cfg.kwargs)
            bm, bn, bk, w, s = kw["BLOCK_SIZE_M"], kw["BLOCK_SIZE_N"], kw["BLOCK_SIZE_K"], cfg.num_warps, cfg.num_stages
            sub = kw.get("EPILOGUE_SUBTILE")
            name = f"{bm}x{bn}x{bk}w{w}s{s}" + ("" if sub is None else "sub" if sub else "")
            if args.only and name not in args.only.split(","):
                continue
            c = torch.empty((M, N), device="cuda", dtype=torch.float16)
            grid = (min(sms, triton.cdiv(M, bm) * triton.cdiv(N, bn)),)
            kw.update(NUM_SMS=sms, num_warps=w, num_stages=s)
            if which == "persistent":
                bt = b.T  # (K, N) with strides (1, K): the tutorial's matmul_persistent(a, b.T)
                call = (a, bt, c, M, N, K, a.stride(0), a.stride(1), bt.stride(0), bt.stride(1), c.stride(0),
                        c.stride(1))
            elif which == "tma":
                call = (TensorDescriptor.from_tensor(a, [bm, bk]), TensorDescriptor.from_tensor(b, [bn, bk]),
                        TensorDescriptor.from_tensor(c, [bm, bn // 2 if sub else bn]), M, N, K)
                kw.update(FP8_OUTPUT=False, WARP_SPECIALIZE=False)
            else:
                call = (a, b, c, M, N, K)
                kw.update(WARP_SPECIALIZE=False, FLATTEN=True)
            check, fns = {}, {}
            for who, j in (("triton", tj), ("nereid", nj)):
                try:
                    c.zero_()
                    k = j[grid](*call, **kw)
                    torch.cuda.synchronize()
                    regs = k._info()["registers"] if who == "nereid" else getattr(k, "n_regs", "?")
                    check[who] = (f"{(c.float() - ref).abs().max().item():.3g}", regs)
                    fns[who] = (lambda j=j: j[grid](*call, **kw))
                except Exception as e:  # a configuration one compiler cannot run (shared memory): reported
                    check[who] = (f"{type(e).__name__}: {str(e)[:60]}", "-")
            fns["cublas"] = lambda: torch.matmul(a, b.T, out=c)
            med = _time3(fns)
            fmt = lambda x: f"{x:.4f}" if x else "-"
            ratio = f"{med['nereid'] / med['triton']:.3f}" if "nereid" in med and "triton" in med else "-"
            rows.append((which, name, fmt(med.get("triton")), fmt(med.get("nereid")), fmt(med["cublas"]), ratio,
                         f"{check['triton'][1]} / {check['nereid'][1]}", f"{check['triton'][0]} / {check['nereid'][0]}"))
            print(rows[-1], flush=True)
    print(f"\np09 {M}x{N}x{K} fp16: | kernel | config | Triton ms | Nereid ms | cuBLAS ms | Nereid/Triton time | "
          "registers Triton / Nereid | max err Triton / Nereid |\n|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    for which in args.kernels.split(","):
        best = {}
        for who, col in (("triton", 2), ("nereid", 3)):
            got = [(float(r[col]), r[1]) for r in rows if r[0] == which and r[col] != "-"]
            best[who] = min(got) if got else None
        if best["triton"] and best["nereid"]:
            print(f"{which}: best Triton {best['triton'][1]} {best['triton'][0]:.4f} ms, best Nereid "
                  f"{best['nereid'][1]} {best['nereid'][0]:.4f} ms: {best['nereid'][0] / best['triton'][0]:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("which", choices=("bp", "mm", "mm36", "p09"))
    ap.add_argument("--kernels", default="persistent,tma,descriptor", help="p09: which of tutorial 09's kernels")
    ap.add_argument("--mnk", default="8192,8192,512", help="p09: M,N,K (default the tutorial's bench(): 8192,8192,512)")
    ap.add_argument("--n", type=int, default=4096, help="M = N = K (default 4096)")
    ap.add_argument("--only", help="one configuration, as BMxBNxBKwWsS (64x256x32w4s4)")
    ap.add_argument("--dtype", choices=("fp16", "bf16"), default="fp16", help="A, B and C (default fp16)")
    args = ap.parse_args()
    if args.which == "p09":
        return persistent09(args)
    import torch
    import triton
    import triton.testing
    import corpus
    import nereid
    n = args.n
    dt = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    a = torch.randn(n, n, device="cuda", dtype=dt)
    b = torch.randn(n, n, device="cuda", dtype=dt)
    ref = (a @ b).float()
    if args.which == "bp":
        mod = corpus.load("triton-3.0", "python/tutorials/08-experimental-block-pointer.py", static=True)
        tj, extra = mod.matmul_kernel_with_block_pointers.fn, {}
    else:
        rel = "triton-3.6" if args.which == "mm36" else "triton-3.0"
        mod = corpus.load(rel, "python/tutorials/03-matrix-multiplication.py", static=True)
        tj, extra = mod.matmul_kernel.fn, {"ACTIVATION": ""}
    nj = nereid.JITFunction(tj.fn)  # the same Python function, compiled by Nereid
    rows = []
    for bm, bn, bk, w, s in (CONFIGS_36 if args.which == "mm36" else CONFIGS):
        name = f"{bm}x{bn}x{bk}w{w}s{s}"
        if args.only and args.only != name:
            continue
        c = torch.empty(n, n, device="cuda", dtype=dt)
        grid = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
        kw = dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, num_warps=w, num_stages=s,
                  **extra)
        call = (a, b, c, n, n, n, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
        check, times = {}, {"triton": [], "nereid": [], "cublas": []}
        for who, j in (("triton", tj), ("nereid", nj)):
            try:
                k = j[grid](*call, **kw)
                torch.cuda.synchronize()
                regs = k._info()["registers"] if who == "nereid" else getattr(k, "n_regs", "?")  # ptxas's counts
                err = (c.float() - ref).abs().max().item()
                if dt == torch.bfloat16:  # 3.0's tutorial stores fp16 whatever C's type: its bits, read so
                    err = min(err, (c.view(torch.float16).float() - ref).abs().max().item())
                check[who] = (f"{err:.3g}", regs)
            except Exception as e:  # a tile one compiler cannot run: reported, not timed
                check[who] = (f"{type(e).__name__}: {str(e)[:80]}", "-")
        for _ in range(3):
            for who, j in (("triton", tj), ("nereid", nj)):
                if check[who][1] != "-":
                    times[who].append(triton.testing.do_bench(lambda: j[grid](*call, **kw), warmup=50, rep=200))
            times["cublas"].append(triton.testing.do_bench(lambda: torch.matmul(a, b, out=c), warmup=50, rep=200))
        med = {who: sorted(t)[1] if len(t) == 3 else None for who, t in times.items()}
        ratio = f"{med['nereid'] / med['triton']:.3f}" if med["nereid"] and med["triton"] else "-"
        of_cublas = f"{med['cublas'] / med['nereid']:.3f}" if med["nereid"] else "-"
        fmt = lambda x: f"{x:.4f}" if x else "-"
        rows.append((f"{bm}x{bn}x{bk} w{w} s{s}", fmt(med["triton"]), fmt(med["nereid"]), fmt(med["cublas"]), ratio,
                     of_cublas, f"{check['triton'][1]} / {check['nereid'][1]}",
                     f"{check['triton'][0]} / {check['nereid'][0]}"))
        print(rows[-1], flush=True)
    print(f"\n{args.which} {n}^3 {args.dtype}: | config | Triton ms | Nereid ms | cuBLAS ms | Nereid/Triton time | "
          "Nereid/cuBLAS speed | registers Triton / Nereid | max err Triton / Nereid |\n|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
