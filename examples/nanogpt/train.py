#!/usr/bin/env python3
"""train.py - a small character-level GPT trained twice in one run: its attention once
through Nereid's fused kernels (examples/attention.nr, dropout drawn inside the kernels,
through examples/attention.py's autograd Function) and once through torch's
scaled_dot_product_attention; the same initial weights, the same batches. Prints a
progress bar while each trains, then milliseconds per training step and the loss of each
after the same number of steps, and writes a PNG of both loss curves.

    PYTHONPATH=build-gpu/python python3 examples/nanogpt/train.py [--steps 500] [--data FILE]

The model: 6 layers, 6 heads, width 384, context 256, dropout 0.1 (in attention, after it
and in the MLP), bf16 autocast on the GPU. Data: a text file, by default the project's own
docs/*.md concatenated; 90% train, 10% held out. `--tiny` makes a model small enough for
the CPU interpreter (a smoke test: `--device cpu --tiny --steps 2`). The JSON of both runs
and the PNG go to $OUT (or the current folder).
"""
import argparse
import glob
import json
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import attention  # noqa: E402  (examples/attention.py)


class Attention(nn.Module):
    def __init__(self, width, heads, dropout, backend):
        super().__init__()
        self.heads, self.dropout, self.backend = heads, dropout, backend
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        # (B, T, heads, head_dim) seen as (B, heads, T, head_dim): no copy for Nereid
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        p = self.dropout if self.training else 0.0
        if self.backend == "nereid":
            dt = torch.bfloat16 if x.is_cuda else torch.float16
            y = attention.attention(q.to(dt), k.to(dt), v.to(dt), causal=True, dropout_p=p).to(x.dtype)
        elif hasattr(F, "scaled_dot_product_attention"):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)
        else:  # an older torch (the CPU smoke test): the same attention written out
            T = q.shape[2]
            s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
            s = s.masked_fill(torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
            y = F.dropout(torch.softmax(s, dim=-1), p, self.training) @ v
        y = y.transpose(1, 2).reshape(B, T, C)
        return self.drop(self.proj(y))


class Block(nn.Module):
    def __init__(self, width, heads, dropout, backend):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attn = Attention(width, heads, dropout, backend)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width), nn.Dropout(dropout))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab, context, layers, heads, width, dropout, backend):
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Embedding(context, width)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(width, heads, dropout, backend) for _ in range(layers))
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, idx, targets):
        T = idx.shape[1]
        x = self.drop(self.tok(idx) + self.pos(torch.arange(T, device=idx.device)))
        for b in self.blocks:
            x = b(x)
        logits = self.head(self.ln(x))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]).float(), targets.view(-1))


def load_text(path):
    if path:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    parts = []
    for p in sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))):
        with open(p, encoding="utf-8", errors="replace") as f:
            parts.append(f.read())
    return "\n".join(parts)


def batches(data, context, batch, steps, seed, device):
    """The same list of (x, y) batches for both runs."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(steps):
        ix = torch.randint(len(data) - context - 1, (batch,), generator=g)
        x = torch.stack([data[i:i + context] for i in ix])
        y = torch.stack([data[i + 1:i + 1 + context] for i in ix])
        out.append((x.to(device), y.to(device)))
    return out


def progress(label, i, n, loss, t0):
    width = 30
    done = int(width * (i + 1) / n)
    rate = (time.time() - t0) / (i + 1)
    sys.stdout.write("\r%-7s [%s%s] %d/%d loss %.3f  %.0f ms/step" % (label, "#" * done, "." * (width - done), i + 1, n,
                                                                      loss, rate * 1e3))
    sys.stdout.flush()
    if i + 1 == n:
        sys.stdout.write("\n")


def train(backend, cfg, vocab, state, train_batches, val_batches, device, lr):
    torch.manual_seed(cfg["seed"] + 1)  # the same dropout draws in torch's own layers
    model = GPT(vocab, cfg["context"], cfg["layers"], cfg["heads"], cfg["width"], cfg["dropout"], backend).to(device)
    model.load_state_dict(state)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    amp = torch.autocast("cuda", dtype=torch.bfloat16) if device.type == "cuda" else torch.autocast("cpu", enabled=False)
    losses, times = [], []
    t0 = time.time()
    for i, (x, y) in enumerate(train_batches):
        if device.type == "cuda":
            torch.cuda.synchronize()
        ts = time.perf_counter()
        with amp:
            loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append((time.perf_counter() - ts) * 1e3)
        losses.append(loss.item())
        progress(backend, i, len(train_batches), losses[-1], t0)
    model.eval()
    with torch.no_grad(), amp:
        val = sum(model(x, y).item() for x, y in val_batches) / len(val_batches)
    warm = times[len(times) // 5:] or times  # the first steps compile and warm up
    return {"losses": losses, "val_loss": val, "ms_per_step": sorted(warm)[len(warm) // 2]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--data", default=None)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--tiny", action="store_true", help="a model small enough for the CPU interpreter")
    ap.add_argument("--seed", type=int, default=1337)
    args = ap.parse_args()
    device = torch.device(args.device)
    cfg = dict(layers=6, heads=6, width=384, context=256, dropout=0.1, seed=args.seed)
    if args.tiny:
        cfg.update(layers=1, heads=2, width=64, context=32)
        args.batch = min(args.batch, 2)
    text = load_text(args.data)
    chars = sorted(set(text))
    data = torch.tensor([chars.index(c) for c in text], dtype=torch.long)
    split = int(0.9 * len(data))
    tb = batches(data[:split], cfg["context"], args.batch, args.steps, args.seed, device)
    vb = batches(data[split:], cfg["context"], args.batch, max(1, min(10, args.steps // 10)), args.seed + 7, device)
    torch.manual_seed(args.seed)
    init = GPT(len(chars), cfg["context"], cfg["layers"], cfg["heads"], cfg["width"], cfg["dropout"], "torch").state_dict()
    print("nanogpt: %d characters, vocabulary %d, %s, %d steps of batch %d on %s"
          % (len(text), len(chars), {k: cfg[k] for k in ("layers", "heads", "width", "context", "dropout")},
             args.steps, args.batch, device))
    runs = {b: train(b, cfg, len(chars), init, tb, vb, device, 1e-3) for b in ("nereid", "torch")}
    print("\n%-8s %12s %14s %14s" % ("backend", "ms/step", "final loss", "held-out loss"))
    for b, r in runs.items():
        print("%-8s %12.2f %14.4f %14.4f" % (b, r["ms_per_step"], r["losses"][-1], r["val_loss"]))
    out = os.environ.get("OUT") or "."
    with open(os.path.join(out, "nanogpt.json"), "w") as f:
        json.dump({"config": cfg, "steps": args.steps, "batch": args.batch, "device": str(device), "runs": runs}, f)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for b, r in runs.items():
            ax.plot(r["losses"], label="%s (%.1f ms/step)" % (b, r["ms_per_step"]), linewidth=1)
        ax.set_xlabel("step")
        ax.set_ylabel("training loss")
        ax.set_title("nanoGPT, attention through Nereid and through torch SDPA")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "nanogpt.png"), dpi=120)
        print("wrote %s" % os.path.join(out, "nanogpt.png"))
    except ImportError:
        print("(matplotlib not installed: no plot)")
    gap = abs(runs["nereid"]["val_loss"] - runs["torch"]["val_loss"])
    print("nanogpt: held-out loss differs by %.4f between the two attentions" % gap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
