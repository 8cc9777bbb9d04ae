#!/usr/bin/env python3
"""gpt2_train.py - GPT-2 small training steps with its attention through Nereid's fused
kernels (examples/attention.nr via examples/attention.py's autograd Function) and through
torch SDPA's default choice, its FlashAttention-2 backend and its cuDNN backend, in one
run on one GPU; and once more with Nereid's attention and its fused cross-entropy
(examples/cross_entropy.py: the loss and its gradient from the bf16 logits in two kernels,
where the others take torch's float32 copy, softmax and softmax backward). Issue 24's
training benchmark; shared/design/targets.md has the figures to beat.

    PYTHONPATH=build-gpu/python python3 bench/gpt2_train.py [--steps 60] [--dropout 0,0.1]
        [--backends nereid,nereid+ce,sdpa,flash,cudnn] [--batch 8] [--profile N]
    PYTHONPATH=build/python python3 bench/gpt2_train.py --selftest-cpu   (no GPU: a tiny
        model on the interpreter for two steps, to exercise the script's paths; its numbers
        mean nothing)

The model: GPT-2 small (12 layers, 12 heads, width 768, context 1024, GELU MLP of width
3072, pre-norm, tied embedding and output; the vocabulary padded from 50257 to 50304 as
nanoGPT does), dropout p after the embeddings, in the attention weights and after each
residual branch; batch 8, bf16 autocast, AdamW (lr 6e-4, fused), gradient clipping at 1.0.
Every backend's model starts from the same weights and sees the same batches. The
attention (and for nereid+ce the loss) is the only difference: everything else is eager
PyTorch.

Data: a synthetic token stream with structure a model can learn (each token drawn from 16
successors of the previous one under a fixed random table, with a Zipf-like preference),
so the loss curves fall and their agreement means something. Generated on the GPU from a
fixed seed.

The backends' steps are interleaved (step s of every backend, then step s + 1), so a
clock or thermal drift reaches all of them alike. Each step is timed with CUDA events
around forward, backward and the optimizer step; the first --warmup steps (Nereid's
kernels compile and load in the first) are left out of the medians.

Prints, per dropout: each backend's median ms per step, its time against the fastest of
torch's backends (the issue's target: Nereid at most 0.9x), the GPU time of one step after
the timed ones (the kernels' own time from torch.profiler, without the gaps where the GPU
waits for Python: an eager step of this size is partly bound by the host) and its ratio, its loss at the first and
last step, and its largest loss difference from torch's default over the steps (at
dropout 0 the curves should agree to bf16 rounding; at 0.1 every backend draws its own
masks, so the mean loss of the last ten steps is what agrees). Writes the curves and times
to $OUT/gpt2_train.json and, with matplotlib, $OUT/gpt2_train.png.
"""
import argparse
import datetime
import json
import math
import os
import statistics
import sys

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:  # the CPU machine without torch
    torch = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "examples"))

BACKENDS = ("nereid", "nereid+ce", "sdpa", "flash", "cudnn")


def sdpa_context(backend):
    """The context manager selecting torch's SDPA backend (None: torch's own choice)."""
    if backend == "sdpa":
        return None
    from torch.nn.attention import SDPBackend, sdpa_kernel
    return sdpa_kernel({"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                        "math": SDPBackend.MATH}[backend])


def attend(backend, q, k, v, p):
    """Causal attention of (B, H, T, D) q, k, v with dropout p through one backend:
    Nereid's (examples/attention.py) or torch SDPA's (its own choice, flash or cuDNN)."""
    if backend.startswith("nereid"):
        import attention  # examples/attention.py
        return attention.attention(q, k, v, causal=True, dropout_p=p)
    ctx = sdpa_context(backend)
    if ctx is None:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)
    with ctx:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)


class SelfAttention(nn.Module if torch else object):
    def __init__(self, width, heads, dropout, backend):
        super().__init__()
        self.heads, self.dropout, self.backend = heads, dropout, backend
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        # (B, T, heads, head_dim) seen as (B, heads, T, head_dim): a view, no copy
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        p = self.dropout if self.training else 0.0
        if self.backend.startswith("nereid"):
            dt = torch.bfloat16 if x.is_cuda else torch.float16
            y = attend(self.backend, q.to(dt), k.to(dt), v.to(dt), p).to(q.dtype)
        elif self.backend == "plain":  # the CPU self-test's stand-in for SDPA
            s = (q.float() @ k.float().transpose(-2, -1)) / math.sqrt(q.shape[-1])
            s = s.masked_fill(torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
            y = (F.dropout(torch.softmax(s, dim=-1), p, self.training) @ v.float()).to(q.dtype)
        else:
            y = attend(self.backend, q, k, v, p)
        y = y.transpose(1, 2).reshape(B, T, C)
        return self.drop(self.proj(y))


class Block(nn.Module if torch else object):
    def __init__(self, width, heads, dropout, backend):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attn = SelfAttention(width, heads, dropout, backend)
        self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.drop(self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh")))


class GPT(nn.Module if torch else object):
    def __init__(self, vocab, context, layers, heads, width, dropout, backend):
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Embedding(context, width)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(width, heads, dropout, backend) for _ in range(layers))
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied, as GPT-2
        self.fused_loss = backend == "nereid+ce"
        for name, prm in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(prm)
            elif prm.dim() >= 2:
                std = 0.02 / math.sqrt(2 * layers) if name.endswith(("proj.weight", "out.weight")) else 0.02
                nn.init.normal_(prm, 0.0, std)

    def forward(self, idx, targets):
        T = idx.shape[1]
        x = self.drop(self.tok(idx) + self.pos(torch.arange(T, device=idx.device)))
        for b in self.blocks:
            x = b(x)
        logits = self.head(self.ln(x))
        if self.fused_loss:
            import cross_entropy  # examples/cross_entropy.py: the logits as they are, no float32 copy
            return cross_entropy.cross_entropy(logits.view(-1, logits.shape[-1]), targets.reshape(-1))
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), targets.reshape(-1))


def make_stream(vocab, n_tokens, device, seed=1234):
    """A token stream over the first min(vocab, 4096) tokens from a fixed random successor
    table: token t is followed by one of 16 successors succ[t], the i-th with probability
    proportional to 1 / (i + 1). (The model first learns which tokens occur, then which
    follow which: its loss falls from ln(vocab) within the benchmark's steps.)"""
    g = torch.Generator(device="cpu").manual_seed(seed)
    vocab = min(vocab, 4096)
    succ = torch.randint(0, vocab, (vocab, 16), generator=g)
    w = 1.0 / torch.arange(1, 17, dtype=torch.float64)
    picks = torch.multinomial(w / w.sum(), n_tokens, replacement=True, generator=g)
    out = torch.empty(n_tokens, dtype=torch.long)
    t = int(torch.randint(0, vocab, (1,), generator=g))
    succ_l, picks_l = succ.tolist(), picks.tolist()
    for i in range(n_tokens):
        out[i] = t
        t = succ_l[t][picks_l[i]]
    return out.to(device)


def batches(stream, batch, context, steps, seed=99):
    g = torch.Generator(device="cpu").manual_seed(seed)
    n = stream.numel() - context - 1
    for _ in range(steps):
        starts = torch.randint(0, n, (batch,), generator=g).tolist()
        xy = torch.stack([stream[s:s + context + 1] for s in starts])
        yield xy[:, :-1].contiguous(), xy[:, 1:].contiguous()


def profile_step(m, opt, xy, label, top):
    """GPU time of one training step by kernel (torch.profiler), the `top` largest."""
    from torch.profiler import ProfilerActivity, profile
    x, y = xy
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = m(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
    per = {}
    for ev in prof.events():
        if ev.device_type.name == "CUDA":
            t = getattr(ev, "device_time", None) or getattr(ev, "cuda_time", 0.0)
            n, c = per.get(ev.name, (0.0, 0))
            per[ev.name] = (n + t, c + 1)
    total = sum(t for t, _ in per.values())
    print(f"  profile {label}: GPU time {total / 1000:.2f} ms in {sum(c for _, c in per.values())} kernels")
    for name, (t, c) in sorted(per.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"    {t / 1000:7.3f} ms {c:4d}x  {name[:110]}")
    return total / 1000


def run(args, out_dir):
    dev = torch.device(args.device)
    cfg = dict(vocab=args.vocab, context=args.context, layers=args.layers, heads=args.heads, width=args.width)
    print(f"GPT-2: {cfg}, batch {args.batch}, steps {args.steps} (warmup {args.warmup}), "
          f"device {torch.cuda.get_device_name(0) if dev.type == 'cuda' else 'cpu'}, torch {torch.__version__}",
          flush=True)
    # 200k tokens or more: a 60-step run draws each about 2.5 times (the loss still falls on
    # what the model has not learnt yet; the curves are for agreement, not generalisation)
    stream = make_stream(args.vocab, max(200_000, 4 * args.batch * (args.context + 1)), dev)
    results = []
    for p in args.dropout:
        models, opts, losses, times, errors = {}, {}, {}, {}, {}
        for be in args.backends:
            torch.manual_seed(0)  # the same initial weights for every backend
            m = GPT(dropout=p, backend=be, **cfg).to(dev)
            models[be] = m
            opts[be] = torch.optim.AdamW(m.parameters(), lr=args.lr, weight_decay=0.1, betas=(0.9, 0.95),
                                         fused=dev.type == "cuda")
            losses[be], times[be] = [], []
        for step, (x, y) in enumerate(batches(stream, args.batch, args.context, args.steps)):
            for be in args.backends:
                if be in errors:
                    continue
                m, opt = models[be], opts[be]
                # the same seed for each backend at each step: the same torch dropout masks at
                # dropout 0 trivially; at 0.1 SDPA's own dropout moves the CUDA generator, so the
                # later nn.Dropout masks differ between backends (as the attention masks do)
                torch.manual_seed(1000 + step)
                try:
                    if dev.type == "cuda":
                        t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                        t0.record()
                    with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=dev.type == "cuda"):
                        loss = m(x, y)
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
                    opt.step()
                    opt.zero_grad(set_to_none=True)
                    if dev.type == "cuda":
                        t1.record()
                        t1.synchronize()
                        times[be].append(t0.elapsed_time(t1))
                    losses[be].append(float(loss.detach()))
                except Exception as e:  # a backend torch cannot run here (e.g. cuDNN with dropout)
                    errors[be] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
                    print(f"  p={p} {be}: {errors[be]}", flush=True)
                    models[be] = opts[be] = None
                    if dev.type == "cuda":
                        torch.cuda.empty_cache()
            if step % 10 == 0:
                print(f"  p={p} step {step}: " + ", ".join(f"{be} {losses[be][-1]:.3f}" for be in args.backends
                                                         if be not in errors), flush=True)
        gpu_ms = {}
        if dev.type == "cuda":  # GPU time of a step: the kernels' own time, without the host's gaps
            for be in args.backends:
                if be not in errors:
                    gpu_ms[be] = profile_step(models[be], opts[be],
                                              next(batches(stream, args.batch, args.context, 1, seed=7)),
                                              f"p={p} {be}", args.profile)
        row = {"dropout": p, "backends": {}}
        ref = "sdpa" if "sdpa" in losses and "sdpa" not in errors else None
        for be in args.backends:
            r = {"losses": losses[be], "step_ms": times[be], "error": errors.get(be), "gpu_ms": gpu_ms.get(be)}
            if be not in errors and times[be][args.warmup:]:
                r["median_ms"] = statistics.median(times[be][args.warmup:])
            if be not in errors and losses[be]:
                r["first_loss"], r["last_loss"] = losses[be][0], losses[be][-1]
                r["last10_loss"] = statistics.mean(losses[be][-10:])
                if ref and be != ref:
                    r["max_loss_diff"] = max(abs(a - b) for a, b in zip(losses[be], losses[ref]))
            row["backends"][be] = r
        torch_best = [row["backends"][be]["median_ms"] for be in ("sdpa", "flash", "cudnn")
                      if "median_ms" in row["backends"].get(be, {})]
        row["torch_best_ms"] = min(torch_best) if torch_best else None
        torch_gpu = [gpu_ms[be] for be in ("sdpa", "flash", "cudnn") if be in gpu_ms]
        row["torch_best_gpu_ms"] = min(torch_gpu) if torch_gpu else None
        results.append(row)
        del models, opts
        if dev.type == "cuda":
            torch.cuda.empty_cache()

    meta = {"date": datetime.date.today().isoformat(), "torch": torch.__version__, "config": cfg,
            "batch": args.batch, "steps": args.steps, "warmup": args.warmup,
            "device": torch.cuda.get_device_name(0) if dev.type == "cuda" else "cpu"}
    with open(os.path.join(out_dir, "gpt2_train.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    print("\nms per step: median of the steps after the warmup (CUDA events); GPU ms: the kernels' time in "
          "one profiled step after them (torch.profiler)")
    print("| dropout | attention | ms per step | / torch's best | GPU ms per step | / torch's best | loss first "
          "| loss last | mean of last 10 | max loss diff from sdpa |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in results:
        for be, r in row["backends"].items():
            if r["error"]:
                print(f"| {row['dropout']} | {be} | - | - | - | - | - | - | - | {r['error']} |")
                continue
            ms = r.get("median_ms")
            ms_s = f"{ms:.2f}" if ms else "-"
            rel = f"{ms / row['torch_best_ms']:.3f}" if ms and row["torch_best_ms"] else "-"
            diff = f"{r['max_loss_diff']:.4f}" if "max_loss_diff" in r else "-"
            g = r.get("gpu_ms")
            g_s = f"{g:.2f}" if g else "-"
            g_rel = f"{g / row['torch_best_gpu_ms']:.3f}" if g and row["torch_best_gpu_ms"] else "-"
            print(f"| {row['dropout']} | {be} | {ms_s} | {rel} | {g_s} | {g_rel} | {r['first_loss']:.4f} | "
                  f"{r['last_loss']:.4f} | {r['last10_loss']:.4f} | {diff} |")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4), squeeze=False)
        for ax, row in zip(axes[0], results):
            for be, r in row["backends"].items():
                if r["losses"]:
                    ax.plot(r["losses"], label=be)
            ax.set_title(f"GPT-2 small, dropout {row['dropout']}")
            ax.set_xlabel("step")
            ax.set_ylabel("training loss")
            ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "gpt2_train.png"), dpi=110)
    except ImportError:
        pass
    return results


def attention_alone(args, dev):
    """Each backend's attention alone, forward + backward as one layer of a step calls it:
    (batch, heads, context, width / heads) bf16, causal; do_bench medians in ms."""
    import triton.testing
    B, H, T, D = args.batch, args.heads, args.context, args.width // args.heads
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, T, D, device=dev, dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    do = torch.randn(B, H, T, D, device=dev, dtype=torch.bfloat16)
    rows = []
    for p in args.dropout:
        row = {"dropout": p}
        for be in args.backends:
            if be == "nereid+ce":  # nereid's attention again
                continue

            def fwd_bwd():
                attend(be, q, k, v, p).backward(do)
            try:
                row[be] = triton.testing.do_bench(fwd_bwd, grad_to_none=[q, k, v])
            except Exception as e:
                row[be] = f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"
        rows.append(row)
    print(f"\nattention alone, forward + backward, ({B}, {H}, {T}, {D}) bf16 causal, ms (x {args.layers} layers "
          "a step):")
    names = [be for be in args.backends if be != "nereid+ce"]
    print("| dropout | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for row in rows:
        print(f"| {row['dropout']} | " + " | ".join(f"{row[be]:.3f}" if isinstance(row[be], float) else row[be]
                                                 for be in names) + " |")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--dropout", default="0,0.1")
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--lr", type=float, default=6e-4)
    ap.add_argument("--profile", type=int, default=0, help="print the N kernels taking the most GPU time in "
                    "the profiled step")
    ap.add_argument("--selftest-cpu", action="store_true")
    args = ap.parse_args()
    if torch is None:
        print("SKIP: gpt2_train.py needs torch")
        return 0
    args.dropout = [float(p) for p in args.dropout.split(",")]
    args.backends = [b for b in args.backends.split(",") if b]
    for b in args.backends:
        if b not in BACKENDS + ("plain",):
            ap.error(f"unknown backend {b!r} (choose from {', '.join(BACKENDS)})")
    args.vocab, args.context, args.layers, args.heads, args.width = 50304, 1024, 12, 12, 768
    if args.selftest_cpu:
        args.device = "cpu"
        args.vocab, args.context, args.layers, args.heads, args.width = 64, 32, 1, 2, 32
        args.batch, args.steps, args.warmup, args.dropout = 2, 2, 0, [0.0, 0.1]
        args.backends = ["nereid", "nereid+ce", "plain"]
    elif not torch.cuda.is_available():
        print("SKIP: no GPU (bench/gpt2_train.py --selftest-cpu runs a tiny model on the interpreter)")
        return 0
    else:
        args.device = "cuda"
    out_dir = os.environ.get("OUT") or "."
    os.makedirs(out_dir, exist_ok=True)
    results = run(args, out_dir)
    if args.device == "cuda":
        alone = attention_alone(args, torch.device("cuda"))
        with open(os.path.join(out_dir, "gpt2_train.json")) as f:
            data = json.load(f)
        data["attention_alone_ms"] = alone
        with open(os.path.join(out_dir, "gpt2_train.json"), "w") as f:
            json.dump(data, f, indent=1)
    del results
    return 0


if __name__ == "__main__":
    sys.exit(main())
