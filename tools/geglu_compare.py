"""geglu_compare.py - Liger-Kernel's GEGLU kernels (forward and backward) through Triton and
through Nereid on the same bf16 tensors: how many outputs differ, by how many bf16 ulps, and which is closer to torch's
own gelu(tanh) computed in fp64. On the GPU machine, after `python3 tools/triton_suite.py
fetch-lib liger` here: `PYTHONPATH=build-gpu/python python3 tools/geglu_compare.py
[--dump DIR]` (DIR: each compiler's PTX of the backward kernel)
(bench/RESULTS.md, session 24: why Liger's test_geglu bf16 case fails under Nereid)."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "third_party/libsuite/liger/ead96b618e5c/src"))
import nereid
from liger_kernel.ops import geglu as G
from liger_kernel.ops.utils import calculate_settings

DUMP = sys.argv[sys.argv.index("--dump") + 1] if "--dump" in sys.argv else None  # --dump DIR
torch.manual_seed(0)
R, C = 4096, 4096
for scale in (1.0, 45.0):
    a0 = (torch.randn(R, C, device="cuda") * scale).bfloat16()
    b0 = (torch.randn(R, C, device="cuda") * scale).bfloat16()
    dc0 = (torch.randn(R, C, device="cuda") * scale).bfloat16()
    BS, nw = calculate_settings(C)
    out = {}
    for name, fwd, bwd in (("triton", G._geglu_tanh_forward_kernel, G._geglu_tanh_backward_kernel),
                           ("nereid", nereid.jit(G._geglu_tanh_forward_kernel.fn), nereid.jit(G._geglu_tanh_backward_kernel.fn))):
        a, b, dc = a0.clone(), b0.clone(), dc0.clone()
        c = torch.empty_like(a)
        fwd[(R,)](a, b, c, c.stride(-2), n_cols=C, BLOCK_SIZE=BS, num_warps=nw)
        kb = bwd[(R,)](dc, a, b, dc.stride(-2), n_cols=C, BLOCK_SIZE=BS, num_warps=nw)
        torch.cuda.synchronize()
        if DUMP and scale == 1.0:  # the backward's PTX from each compiler, to compare by hand
            with open(os.path.join(DUMP, f"geglu_bwd.{name}.ptx"), "w") as f:
                f.write(kb.asm["ptx"])
        out[name] = (c, a, b)
    # fp64 reference
    A, B, DC = a0.double(), b0.double(), dc0.double()
    k = 0.7978845608028654
    t = torch.tanh(k * (A + 0.044715 * A ** 3))
    ga = 0.5 * A * (1 + t)
    ref = {"c": ga * B, "da": DC * B * (0.5 * (1 + t) + 0.5 * A * (1 - t * t) * k * (1 + 3 * 0.044715 * A * A)), "db": DC * ga}
    for i, nm in enumerate(("c", "da", "db")):
        x, y = out["triton"][i], out["nereid"][i]
        diff = (x.view(torch.int16).int() - y.view(torch.int16).int()).abs()
        ex = (x.double() - ref[nm]).abs().mean().item()
        ey = (y.double() - ref[nm]).abs().mean().item()
        print(f"scale {scale:5} {nm:3}: {int((diff > 0).sum())} of {diff.numel()} differ, max {int(diff.max())} ulp; "
              f"mean |err| vs fp64: triton {ex:.4g}, nereid {ey:.4g}", flush=True)
