"""liger_compare.py - Liger-Kernel's fused neighborhood attention (bf16, the shapes of the three
cases of its test_fused_neighborhood_attention that fail under Nereid) and group norm (fp32,
test_group_norm's (16, 48, 12, 8192) case), forward and backward, through whichever compiler
this process uses, saved beside an fp64 PyTorch reference of the same modules and inputs;
`diff` prints each output's error against fp64 under Triton and under Nereid and their
difference. On the GPU machine, after `python3 tools/triton_suite.py fetch-lib liger` here:

    PYTHONPATH=build-gpu/python python3 tools/liger_compare.py run triton DIR
    PYTHONPATH=build-gpu/python python3 -m nereid.run tools/liger_compare.py run nereid DIR
    python3 tools/liger_compare.py diff DIR/liger_triton.pt DIR/liger_nereid.pt
"""
import os
import sys

import torch


def run(tag, out):
    L = os.path.join(os.path.dirname(__file__), "..", "third_party/libsuite/liger/ead96b618e5c")
    sys.path[:0] = [L, os.path.join(L, "src")]
    from test.transformers.test_fused_neighborhood_attention import TorchNeighborhoodAttention
    from liger_kernel.transformers.fused_neighborhood_attention import LigerFusedNeighborhoodAttention
    from liger_kernel.transformers.group_norm import LigerGroupNorm
    from test.utils import set_seed
    res = {}
    for (B, S, Hd, NH, K, bias) in [(1, 32, 128, 8, 5, False), (2, 32, 128, 4, 7, False), (1, 32, 128, 8, 5, True)]:
        set_seed(42)
        x = torch.randn(B, S, Hd, device="cuda", dtype=torch.bfloat16)
        ref = TorchNeighborhoodAttention(hidden_size=Hd, num_heads=NH, kernel_size=K, dilation=1, bias=bias, dropout=0.0).cuda()
        lig = LigerFusedNeighborhoodAttention(hidden_size=Hd, num_heads=NH, kernel_size=K, dilation=1, bias=bias, dropout=0.0).cuda().bfloat16()
        ref_b = TorchNeighborhoodAttention(hidden_size=Hd, num_heads=NH, kernel_size=K, dilation=1, bias=bias, dropout=0.0).cuda().bfloat16()
        with torch.no_grad():
            for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
                getattr(lig, n).weight.copy_(getattr(ref_b, n).weight)
                getattr(ref, n).weight.copy_(getattr(ref_b, n).weight.float())
                if bias:
                    getattr(lig, n).bias.copy_(getattr(ref_b, n).bias)
                    getattr(ref, n).bias.copy_(getattr(ref_b, n).bias.float())
        ref = ref.double()
        for name, mod, xin in (("lig", lig, x), ("ref64", ref, x.double())):
            xi = xin.detach().clone().requires_grad_(True)
            o = mod(xi)
            o.sum().backward()
            key = f"na{B}-{NH}-{K}-{bias}"
            res[f"{key}/{name}/out"] = o.detach().double().cpu()
            res[f"{key}/{name}/gx"] = xi.grad.double().cpu()
            for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
                res[f"{key}/{name}/g{n}"] = getattr(mod, n).weight.grad.double().cpu()
    # group norm, fp32, the failing shape
    torch.manual_seed(0)
    t = torch.randn(16, 48, 8192, device="cuda")
    ln = LigerGroupNorm(48, 12, eps=1e-6).cuda()
    xi = t.clone().requires_grad_(True)
    y = ln(xi)
    g = torch.randn_like(t)
    y.backward(g)
    res["gn/lig/y"] = y.detach().double().cpu(); res["gn/lig/gx"] = xi.grad.double().cpu(); res["gn/lig/gb"] = ln.bias.grad.double().cpu(); res["gn/lig/gw"] = ln.weight.grad.double().cpu()
    r = torch.nn.GroupNorm(12, 48, eps=1e-6).cuda().double()
    with torch.no_grad():
        r.weight.copy_(ln.weight.double()); r.bias.copy_(ln.bias.double())
    xd = t.double().clone().requires_grad_(True)
    yd = r(xd); yd.backward(g.double())
    res["gn/ref64/y"] = yd.detach().cpu(); res["gn/ref64/gx"] = xd.grad.cpu(); res["gn/ref64/gb"] = r.bias.grad.cpu(); res["gn/ref64/gw"] = r.weight.grad.cpu()
    torch.save(res, os.path.join(out, f"liger_{tag}.pt"))
    print(tag, "saved", len(res))


def diff(fa, fb):
    a, b = torch.load(fa), torch.load(fb)  # triton, nereid
    for k in sorted(a):
        if "/lig/" not in k: continue
        r = a[k.replace("/lig/", "/ref64/")]
        ta, nb = a[k], b[k]
        ea, eb = (ta - r).abs(), (nb - r).abs()
        print(f"{k:28s} |ref| max {r.abs().max():9.4g}  triton err max {ea.max():9.4g} mean {ea.mean():9.3g} | nereid err max {eb.max():9.4g} mean {eb.mean():9.3g} | t-n max {(ta-nb).abs().max():9.4g}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "diff":
        diff(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
