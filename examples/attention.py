"""attention.py - the kernels of examples/attention.nr on PyTorch tensors, through the
nereid package: forward, backward, the debug mask, and a torch.autograd.Function.

    import sys; sys.path.insert(0, "examples")
    import attention
    o = attention.attention(q, k, v, causal=True, dropout_p=0.1)    # differentiable
    o.float().sum().backward()                                       # q.grad, k.grad, v.grad
    o, lse = attention.forward(q, k, v, causal=True, dropout_p=0.1, seed=1234)
    dq, dk, dv = attention.backward(q, k, v, o, lse, do, causal=True, dropout_p=0.1, seed=1234)
    keep = attention.dropout_mask(B, H, T, 0.1, 1234, q.device)     # int8 (B, H, T, T)

q, k, v are (batch, heads, seq, head_dim) tensors of one dtype, float16 or bfloat16, on
the GPU (or on the CPU, where the interpreter runs them: slowly, for tests), with any
strides: x.transpose(1, 2) of a (batch, seq, heads, head_dim) tensor goes in as it is. The
outputs and gradients take their input's strides (torch.empty_like). head_dim is a power
of two from 16 to 256. The dropout mask is attention.nr's, drawn from (seed, batch, head,
row, column): the same seed gives the same mask in the forward and the backward, and
dropout_mask gives it too. seed is any integer; it is used modulo 2^64, as the kernels'
64-bit Philox key.

Needs the nereid package (PYTHONPATH=build-gpu/python on the GPU machine, build/python
here) and torch.
"""
import math
import os
from collections import namedtuple

import torch

import nereid

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "attention.nr")

# One kernel's launch: its tile (rows x columns of the attention matrix it takes at a
# time) and the launch options.
Blocks = namedtuple("Blocks", "block_m block_n num_warps num_stages")
# The three main kernels' tiles. _attn_bwd_preprocess takes fwd.block_m rows per program.
# With dropout every block_n must be a multiple of 64 (the mask's layout). fused: the
# backward in one kernel (_attn_bwd_fused at the dkdv tile: dq summed by fp32 atomics into
# an accumulator, then rounded; dq's summation order is then not fixed), dq unused.
Config = namedtuple("Config", "fwd dkdv dq fused", defaults=(False,))

_DT = {torch.float16: "fp16", torch.bfloat16: "bf16"}


def default_config(head_dim, device="cuda", dropout=False, deterministic=False):
    """Moderate tiles for every head_dim: they compile quickly and fit the registers;
    bench/attention_bench.py searches larger ones for speed. On the CPU interpreter, small
    tiles (fewer padded elements to compute). With dropout at head_dim <= 64 the backward
    is one kernel (Config.fused) unless deterministic (forward and backward pass
    torch.are_deterministic_algorithms_enabled()): its second kernel would draw every mask
    again, and (8, 12, 1024, 64) causal took 0.247 ms that way against 0.281 in two
    (bench/RESULTS.md, session 36; without dropout two kernels were faster, 0.208 against
    0.230). The backward's tiles without dropout: each timed alone against cuDNN's on the
    H200 (bench/RESULTS.md, session 45): at head_dim 64 a 64x64 dQ tile (2.34 ms against
    2.69 with 128x64 at (8, 16, 4096, 64) causal), at 128 a 64x64 dK/dV tile with four
    warps (3.98 ms against 5.41 with 32x128 at (4, 32, 4096, 128) causal; 5.81 against
    9.98 with dropout). The forward at head_dim 64 without dropout: 128x64 with 8 warps
    (two warpgroups of 64 rows), 1.03-1.09x the 4-warp tile's speed on the H200 with its
    loads through tensor maps (bench/RESULTS.md, session 48: 402 against 388 TFLOP/s at
    (8, 16, 4096, 64), 361 against 332 at (16, 12, 1024, 64)); with dropout the 4-warp tile
    stays (1.04-1.09x the 8-warp one)."""
    if str(device).startswith("cpu"):
        b = Blocks(16, 64, 4, 1)
        return Config(b, b, b)
    if head_dim <= 64 and dropout and not deterministic:
        return Config(Blocks(128, 64, 4, 3), Blocks(64, 64, 4, 2), Blocks(128, 64, 8, 3), True)
    if head_dim <= 64:
        fwd = Blocks(128, 64, 4, 3) if dropout else Blocks(128, 64, 8, 3)
        return Config(fwd, Blocks(64, 128, 8, 3), Blocks(64, 64, 4, 3))
    if head_dim <= 128:
        return Config(Blocks(128, 128, 8, 2), Blocks(64, 64, 4, 2), Blocks(128, 64, 8, 2))
    return Config(Blocks(32, 64, 4, 1), Blocks(16, 64, 4, 1), Blocks(32, 64, 4, 1))


_modules = {}


def _module(device, dt, head_dim, causal, dropout):
    """attention.nr compiled for these constexprs (block sizes and launch options come at
    each launch, each combination compiled once)."""
    key = (str(device), dt, head_dim, causal, dropout)
    mod = _modules.get(key)
    if mod is None:
        mod = nereid.compile(SOURCE, device=device, DT=dt, HEAD_DIM=head_dim, CAUSAL=bool(causal),
                             DROPOUT=bool(dropout))
        _modules[key] = mod
    return mod


def _seed_arg(seed):
    """The i64 seed argument: the seed modulo 2^64, as a signed 64-bit value."""
    s = int(seed) % (1 << 64)
    return s - (1 << 64) if s >= 1 << 63 else s


def _check(q, k, v):
    if q.dim() != 4 or k.shape != q.shape or v.shape != q.shape:
        raise ValueError(f"q, k, v must be (batch, heads, seq, head_dim) of one shape, got {tuple(q.shape)}, "
                         f"{tuple(k.shape)}, {tuple(v.shape)}")
    if q.dtype not in _DT or k.dtype != q.dtype or v.dtype != q.dtype:
        raise TypeError(f"q, k, v must all be float16 or all bfloat16, got {q.dtype}, {k.dtype}, {v.dtype}")
    D = q.shape[-1]
    if D < 16 or D > 256 or D & (D - 1):
        raise ValueError(f"head_dim must be a power of two from 16 to 256, got {D}")


def _launch(kernel, grid, args, blocks, with_n=True):
    meta = dict(BLOCK_M=blocks.block_m, num_warps=blocks.num_warps, num_stages=blocks.num_stages)
    if with_n:
        meta["BLOCK_N"] = blocks.block_n
    kernel[grid](*args, **meta)


def forward(q, k, v, causal=False, sm_scale=None, dropout_p=0.0, seed=0, config=None):
    """o = softmax(sm_scale q k^T [causal]) [dropout] v, and lse (float32, (B, H, T)), the
    natural log of each row's softmax denominator."""
    _check(q, k, v)
    B, H, T, D = q.shape
    sm_scale = 1.0 / math.sqrt(D) if sm_scale is None else float(sm_scale)
    if not 0.0 <= dropout_p < 1.0:
        raise ValueError(f"dropout_p must be in [0, 1), got {dropout_p}")
    cfg = config or default_config(D, q.device, dropout_p > 0, torch.are_deterministic_algorithms_enabled())
    mod = _module(q.device, _DT[q.dtype], D, causal, dropout_p > 0)
    o = torch.empty_like(q)
    lse = torch.empty((B, H, T), device=q.device, dtype=torch.float32)
    f = cfg.fwd
    _launch(mod._attn_fwd, (nereid.cdiv(T, f.block_m), B * H),
            (q, k, v, o, lse, *q.stride(), *k.stride(), *v.stride(), *o.stride(), H, T, sm_scale, float(dropout_p),
             _seed_arg(seed)), f)
    return o, lse


def backward(q, k, v, o, lse, do, causal=False, sm_scale=None, dropout_p=0.0, seed=0, config=None):
    """dq, dk, dv for the gradient do of o (the forward's o and lse, the same seed)."""
    _check(q, k, v)
    B, H, T, D = q.shape
    if do.shape != q.shape or do.dtype != q.dtype or o.shape != q.shape:
        raise ValueError("o and do must be shaped and typed as q")
    sm_scale = 1.0 / math.sqrt(D) if sm_scale is None else float(sm_scale)
    cfg = config or default_config(D, q.device, dropout_p > 0, torch.are_deterministic_algorithms_enabled())
    mod = _module(q.device, _DT[q.dtype], D, causal, dropout_p > 0)
    delta = torch.empty((B, H, T), device=q.device, dtype=torch.float32)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    lse = lse.contiguous()
    p, s = float(dropout_p), _seed_arg(seed)
    pre = Blocks(cfg.fwd.block_m, 0, 4, 1)
    _launch(mod._attn_bwd_preprocess, (nereid.cdiv(T, pre.block_m), B * H),
            (o, do, delta, *o.stride(), *do.stride(), H, T), pre, with_n=False)
    kv = cfg.dkdv
    if cfg.fused:
        dq_acc = torch.zeros((B * H, T, D), device=q.device, dtype=torch.float32)
        _launch(mod._attn_bwd_fused, (nereid.cdiv(T, kv.block_n), B * H),
                (q, k, v, do, dk, dv, lse, delta, dq_acc, *q.stride(), *k.stride(), *v.stride(), *do.stride(),
                 *dk.stride(), *dv.stride(), H, T, sm_scale, p, s), kv)
        dq.copy_(dq_acc.view(B, H, T, D))
        return dq, dk, dv
    _launch(mod._attn_bwd_dkdv, (nereid.cdiv(T, kv.block_n), B * H),
            (q, k, v, do, dk, dv, lse, delta, *q.stride(), *k.stride(), *v.stride(), *do.stride(), *dk.stride(),
             *dv.stride(), H, T, sm_scale, p, s), kv)
    bq = cfg.dq
    _launch(mod._attn_bwd_dq, (nereid.cdiv(T, bq.block_m), B * H),
            (q, k, v, do, dq, lse, delta, *q.stride(), *k.stride(), *v.stride(), *do.stride(), *dq.stride(),
             H, T, sm_scale, p, s), bq)
    return dq, dk, dv


def dropout_mask(B, H, T, dropout_p, seed, device):
    """The keep mask the kernels draw: int8 (B, H, T, T), 1 where an attention weight is
    kept, from the debug kernel _attn_mask."""
    mask = torch.empty((B, H, T, T), dtype=torch.int8, device=device)
    mod = _module(device, "fp16", 64, False, True)
    mod._attn_mask[(nereid.cdiv(T, 64), nereid.cdiv(T, 64), B * H)](
        mask, T * T, T, 1, 0, T, float(dropout_p), _seed_arg(seed), BLOCK_M=64, BLOCK_N=64)
    return mask


class AttentionFunction(torch.autograd.Function):
    """forward and backward as an autograd function: apply(q, k, v, causal, sm_scale,
    dropout_p, seed, config)."""

    @staticmethod
    def forward(ctx, q, k, v, causal, sm_scale, dropout_p, seed, config):
        o, lse = forward(q, k, v, causal, sm_scale, dropout_p, seed, config)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.args = (causal, sm_scale, dropout_p, seed, config)
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, lse = ctx.saved_tensors
        dq, dk, dv = backward(q, k, v, o, lse, do.to(q.dtype), *ctx.args)
        return dq, dk, dv, None, None, None, None, None


def attention(q, k, v, causal=False, sm_scale=None, dropout_p=0.0, seed=None, config=None):
    """Differentiable fused attention. seed None draws one from torch's default generator
    (so torch.manual_seed makes a run repeatable); the backward uses the same."""
    if seed is None:
        seed = int(torch.randint(0, 1 << 62, (1,)).item()) if dropout_p > 0 else 0
    return AttentionFunction.apply(q, k, v, causal, sm_scale, dropout_p, seed, config)
