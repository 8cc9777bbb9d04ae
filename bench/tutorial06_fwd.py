"""tutorial06_fwd.py - the forward of Triton 3.6's fused-attention tutorial (06: host tensor
descriptors through TMA on Hopper, autotuned over its own configurations), unchanged, through
whichever compiler this process uses, fp16: TFLOP/s (do_bench median), the largest difference
from torch's SDPA, and the configuration the autotuner picked, per shape; JSON in OUT. Run it
once under Triton and once under Nereid's drop-in, on the GPU machine after
`tools/triton-suite.sh fetch` here:

    PYTHONPATH=build-gpu/python python3 bench/tutorial06_fwd.py triton $OUT
    PYTHONPATH=build-gpu/python python3 -m nereid.run bench/tutorial06_fwd.py nereid $OUT
"""
import importlib.util
import json
import os
import sys

import torch
import triton

tag, out = sys.argv[1], sys.argv[2]
P = os.path.join(os.path.dirname(__file__), "..", "third_party/triton-suite/004d7f5f58c2/python/tutorials/06-fused-attention.py")
spec = importlib.util.spec_from_file_location("tut06", P)
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
res = []
for (Z, H, N, D, causal) in [(4, 32, 4096, 128, False), (4, 32, 4096, 128, True), (16, 12, 1024, 64, True)]:
    torch.manual_seed(0)
    q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
    sm = 0.5 / D ** 0.5
    fn = lambda: m.attention(q, k, v, causal, sm, False)
    o = fn()
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=sm)
    err = (o.float() - ref.float()).abs().max().item()
    ms = triton.testing.do_bench(fn, warmup=50, rep=300)
    fl = 4 * Z * H * N * N * D * (0.5 if causal else 1.0)
    bc = getattr(m._attn_fwd, "best_config", None)
    r = dict(shape=[Z, H, N, D, causal], ms=ms, tflops=fl / ms * 1e-9, err=err, best=str(bc))
    res.append(r)
    print(tag, r, flush=True)
json.dump(res, open(os.path.join(out, f"att06_{tag}.json"), "w"))
