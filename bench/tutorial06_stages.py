"""tutorial06_stages.py - Triton 3.0's fused-attention forward (tutorial 06's `_attn_fwd`,
block pointers, as the corpus holds it; bench/corpus.py) at each pipelining depth, through
Triton and through Nereid on the same tensors: the tutorial's host code fixes num_stages 7
and 8 warps on Hopper, and this says what that depth costs each compiler, causal and not.
Each row: one launch of each (the largest difference between the two outputs), then
three interleaved rounds of `triton.testing.do_bench` per compiler; the medians and their
ratio. The GPU machine only, after `bash tools/fetch-corpus.sh` here:

    PYTHONPATH=build-gpu/python python3 bench/tutorial06_stages.py [--shape 4,48,4096,64] [--stages 7,4,3,2]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="4,48,4096,64", help="Z,H,N_CTX,HEAD_DIM (default 4,48,4096,64)")
    ap.add_argument("--stages", default="7,4,3,2", help="the num_stages values (default 7,4,3,2)")
    args = ap.parse_args()
    import torch
    import triton
    import triton.testing
    import corpus
    import nereid
    mod = corpus.load("triton-3.0", "python/tutorials/06-fused-attention.py", static=True)
    tj = mod._attn_fwd
    nj = nereid.JITFunction(tj.fn)  # the same Python function, compiled by Nereid
    Z, H, N, D = (int(v) for v in args.shape.split(","))
    torch.manual_seed(0)
    q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    m = torch.empty((Z, H, N), device="cuda", dtype=torch.float32)
    grid = (triton.cdiv(N, 128), Z * H, 1)
    call = (q, k, v, 0.5, m, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(), Z, H)
    rows = []
    for stage in (3, 1):  # the tutorial's STAGE: 3 causal, 1 not
        for s in (int(x) for x in args.stages.split(",")):
            kw = dict(N_CTX=N, BLOCK_M=128, BLOCK_N=64, BLOCK_DMODEL=D, STAGE=stage, num_warps=8, num_stages=s)
            outs = {}
            for who, j in (("triton", tj), ("nereid", nj)):
                j[grid](*call, **kw)
                torch.cuda.synchronize()
                outs[who] = o.clone()
            diff = (outs["triton"].float() - outs["nereid"].float()).abs().max().item()
            t = {"triton": [], "nereid": []}
            for _ in range(3):
                for who, j in (("triton", tj), ("nereid", nj)):
                    t[who].append(triton.testing.do_bench(lambda: j[grid](*call, **kw), warmup=25, rep=100))
            med = {w: sorted(x)[1] for w, x in t.items()}
            rows.append(("causal" if stage == 3 else "full", s, med["triton"], med["nereid"],
                         med["nereid"] / med["triton"], diff))
            print(rows[-1], flush=True)
    print(f"\n(Z, H, N_CTX, D) = ({Z}, {H}, {N}, {D}) fp16, BLOCK_M 128, BLOCK_N 64, 8 warps\n"
          "| mask | num_stages | Triton ms | Nereid ms | Nereid/Triton | max diff |\n|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %d | %.4f | %.4f | %.3f | %.2g |" % r)


if __name__ == "__main__":
    main()
