#!/usr/bin/env python3
"""attention_bench.py - Nereid's fused attention (examples/attention.nr, dropout drawn in
the kernels) against torch SDPA's FlashAttention-2 and cuDNN backends, in one run.

    PYTHONPATH=build-gpu/python python3 bench/attention_bench.py [--quick] [--only SUBSTRING]
    PYTHONPATH=build/python python3 bench/attention_bench.py --selftest-cpu   (no GPU: one
        small group on the interpreter with torch CPU tensors and SDPA replaced by plain
        torch ops, to exercise this script's paths; its numbers mean nothing)

bf16, (B, H, T, D) = (16, 12, 1024, 64) (nanoGPT's), (8, 16, 4096, 64), (4, 32, 4096, 128),
(2, 16, 8192, 128), each causal and not, with dropout 0 and 0.1, forward alone and
forward + backward. TFLOP/s = 4 B H T^2 D per forward (half when causal), 3.5 times that
for forward + backward (shared/design/attention.md's convention), over the median time
of triton.testing.do_bench (CUDA events where Triton is missing).

- Nereid: examples/attention.py (the nereid package) through its torch.autograd.Function,
  as a training step calls it; each row times a few tilings (BLOCK_M, BLOCK_N, num_warps,
  num_stages) of the forward kernel, then of the backward's dK/dV and dQ kernels with the
  best forward, and reports the best (every time is in the JSON). A tiling that fails to
  compile or run is reported there and skipped.
- flash, cudnn: torch.nn.functional.scaled_dot_product_attention under
  torch.nn.attention.sdpa_kernel(SDPBackend.FLASH_ATTENTION / CUDNN_ATTENTION), with
  SDPA's own dropout (dropout_p=0.1, drawn by torch's Philox).
- forward + backward: o = attention(q, k, v); o.backward(do), q, k, v requiring grad,
  their grads reset between runs (do_bench's grad_to_none).
- a check: at dropout 0, Nereid's o against flash's (max |difference|, in the JSON and
  flagged in the table when over 2e-2).

Prints a table (rows: shape, causal, dropout, fwd or fwd+bwd; columns: Nereid, flash and
cuDNN TFLOP/s, Nereid/flash, Nereid/cuDNN) and writes $OUT/attention_bench.json and, with
matplotlib, $OUT/attention_bench.png ($OUT unset: the current folder). Expected to take
3 to 5 minutes on an H100 or H200 (not yet measured), most of it compiling each tiling
once; --quick times one tiling per kernel. Without a GPU and torch it prints a SKIP line
and exits 0.
"""
import argparse
import datetime
import json
import os
import platform
import sys
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SHAPES = [(16, 12, 1024, 64), (8, 16, 4096, 64), (4, 32, 4096, 128), (2, 16, 8192, 128)]
DROPOUTS = (0.0, 0.1)
DEVICE = "cuda"  # "cpu" for --selftest-cpu


def tilings(D, quick, dropout=False):
    """(forward tilings, backward (dkdv, dq, fused) tilings) to try, the backward's first
    examples/attention.py's default for this head_dim and dropout; every block_n a multiple
    of 64 so that the same tilings serve dropout. fused: the one-kernel backward at the
    dkdv tile (dq unused)."""
    from attention import Blocks
    if DEVICE == "cpu":
        b = Blocks(16, 64, 4, 1)
        return [b], [(b, b, False)]
    # three or four forward tilings and three or four backward ones: each is compiled once
    # per (head_dim, causal, dropout), which is most of the run's time (the backward's
    # alternatives: bench/RESULTS.md, sessions 45 and 46)
    # (two warpgroups of 128-row tiles: no register spills in ptxas's report on sm_90a)
    # (the first forward is examples/attention.py's default for this head_dim and dropout: the
    # fastest of these on the H200, bench/RESULTS.md, sessions 33 and 48)
    import attention
    if D <= 64:
        fwd = [Blocks(128, 64, 4, 3), Blocks(128, 64, 8, 3), Blocks(128, 128, 8, 3), Blocks(64, 64, 4, 3)]
        bwd = [(Blocks(64, 128, 8, 3), Blocks(64, 64, 4, 3), False),
               (Blocks(64, 128, 8, 3), Blocks(128, 64, 8, 3), False),
               (Blocks(64, 128, 8, 3), Blocks(128, 128, 8, 2), False),
               (Blocks(64, 64, 4, 2), Blocks(128, 64, 8, 3), True)]
    else:
        fwd = [Blocks(128, 128, 8, 2), Blocks(128, 64, 8, 2), Blocks(64, 64, 4, 2)]
        bwd = [(Blocks(64, 64, 4, 2), Blocks(128, 64, 8, 2), False),
               (Blocks(64, 128, 8, 2), Blocks(128, 64, 8, 2), False),
               (Blocks(32, 128, 8, 2), Blocks(128, 64, 8, 2), False)]
    base = attention.default_config(D, "cuda", dropout)
    fwd = [base.fwd] + [b for b in fwd if b != base.fwd]
    first = (base.dkdv, base.dq, base.fused)
    bwd = [first] + [b for b in bwd if b != first]
    return (fwd[:1], bwd[:1]) if quick else (fwd, bwd)


def flops(B, H, T, D, causal, mode):
    f = 4.0 * B * H * T * T * D * (0.5 if causal else 1.0)
    return f * (3.5 if mode == "fwd+bwd" else 1.0)


class Timer:
    def __init__(self, torch):
        self.torch = torch
        try:
            import triton.testing
            self.do_bench = triton.testing.do_bench
            self.method = "triton.testing.do_bench (median)"
        except Exception:  # noqa: BLE001
            self.do_bench = None
            self.method = "CUDA events (median of 20 after 5 warm-ups, L2 flushed)"

    def ms(self, fn, grad_to_none=None):
        """Median milliseconds of fn, or None (with the error printed) if it raised."""
        torch = self.torch
        try:
            fn()
            if DEVICE == "cpu":  # --selftest-cpu: the interpreter, wall clock
                import time
                t0 = time.perf_counter()
                fn()
                return (time.perf_counter() - t0) * 1e3
            torch.cuda.synchronize()
            if self.do_bench is not None:
                return float(self.do_bench(fn, warmup=25, rep=100, grad_to_none=grad_to_none, return_mode="median"))
            flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
            for _ in range(5):
                fn()
            times = []
            for _ in range(20):
                if grad_to_none:
                    for t in grad_to_none:
                        t.grad = None
                flush.zero_()
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                fn()
                b.record()
                b.synchronize()
                times.append(a.elapsed_time(b))
            return sorted(times)[len(times) // 2]
        except Exception as e:  # noqa: BLE001
            print("    failed: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:300] if str(e) else ""))
            return None


def sdpa_fn(torch, backend, q, k, v, causal, p, mode, do):
    F = torch.nn.functional
    if backend is None:  # --selftest-cpu: plain torch ops in place of SDPA
        def run():
            s = (q.float() @ k.float().transpose(-1, -2)) / q.shape[-1] ** 0.5
            if causal:
                T = q.shape[-2]
                s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
            o = F.dropout(torch.softmax(s, -1), p) @ v.float()
            if mode == "fwd+bwd":
                o.backward(do.float())
            return o
        return run
    from torch.nn.attention import sdpa_kernel

    def run():
        with sdpa_kernel(backend):
            o = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=causal)
            if mode == "fwd+bwd":
                o.backward(do)
        return o
    return run


def nereid_fn(A, q, k, v, causal, p, mode, do, cfg):
    def run():
        o = A.attention(q, k, v, causal=causal, dropout_p=p, seed=1234, config=cfg)
        if mode == "fwd+bwd":
            o.backward(do)
        return o
    return run


def bench_group(torch, A, timer, shape, causal, p, quick, rows, log):
    """The forward and forward + backward rows of one (shape, causal, dropout)."""
    if DEVICE == "cpu":
        flash = cudnn = None
    else:
        from torch.nn.attention import SDPBackend
        flash, cudnn = SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION
    B, H, T, D = shape
    gen = torch.Generator(device=DEVICE)
    gen.manual_seed(0)
    q, k, v, do = (torch.randn((B, H, T, D), generator=gen, device=DEVICE).to(torch.bfloat16) for _ in range(4))
    for t in (q, k, v):
        t.requires_grad_(True)
    fwd_tilings, bwd_tilings = tilings(D, quick, p > 0)
    tag = "B=%d H=%d T=%d D=%d %s p=%.1f" % (B, H, T, D, "causal" if causal else "full", p)
    entry = {"B": B, "H": H, "T": T, "D": D, "causal": causal, "dropout": p, "tilings": []}
    # Nereid's forward tilings, then the backward's with the best forward
    best_f, best_f_ms = None, None
    base = A.default_config(D)
    for f in fwd_tilings:
        cfg = A.Config(f, base.dkdv, base.dq)
        with torch.no_grad():
            ms = timer.ms(nereid_fn(A, q, k, v, causal, p, "fwd", do, cfg))
        entry["tilings"].append({"mode": "fwd", "fwd": list(f), "ms": ms})
        log("    nereid fwd %-28s %s" % (tuple(f), "%.3f ms" % ms if ms else "n/a"))
        if ms is not None and (best_f_ms is None or ms < best_f_ms):
            best_f, best_f_ms = f, ms
    best_b, best_b_ms = None, None
    if best_f is not None:
        for kv, dq, fused in bwd_tilings:
            cfg = A.Config(best_f, kv, dq, fused)
            ms = timer.ms(nereid_fn(A, q, k, v, causal, p, "fwd+bwd", do, cfg), grad_to_none=[q, k, v])
            entry["tilings"].append({"mode": "fwd+bwd", "fwd": list(best_f), "dkdv": list(kv), "dq": list(dq),
                                     "fused": fused, "ms": ms})
            log("    nereid fwd+bwd dkdv %s %s %s" % (tuple(kv), "one kernel" if fused else "dq %s" % (tuple(dq),),
                                                    "%.3f ms" % ms if ms else "n/a"))
            if ms is not None and (best_b_ms is None or ms < best_b_ms):
                best_b, best_b_ms = (kv, dq, fused), ms
    # correctness at p = 0: Nereid's o against flash's
    err = None
    if p == 0.0 and best_f is not None:
        with torch.no_grad():
            o_n = nereid_fn(A, q, k, v, causal, 0.0, "fwd", do, A.Config(best_f, base.dkdv, base.dq))()
            o_f = sdpa_fn(torch, flash, q, k, v, causal, 0.0, "fwd", do)()
            err = float((o_n.float() - o_f.float()).abs().max())
    for mode in ("fwd", "fwd+bwd"):
        nms = best_f_ms if mode == "fwd" else best_b_ms
        row = {"work": "%s %s" % (tag, mode), "B": B, "H": H, "T": T, "D": D, "causal": causal, "dropout": p,
               "mode": mode, "nereid_ms": nms, "max_err_vs_flash": err,
               "nereid_config": (list(best_f) if mode == "fwd" else
                                 ({"fwd": list(best_f), "dkdv": list(best_b[0]), "dq": list(best_b[1]),
                                   "fused": best_b[2]}
                                  if best_b else None))}
        for name, backend in (("flash", flash), ("cudnn", cudnn)):
            fn = sdpa_fn(torch, backend, q, k, v, causal, p, mode, do)
            if mode == "fwd":
                with torch.no_grad():
                    ms = timer.ms(fn)
            else:
                ms = timer.ms(fn, grad_to_none=[q, k, v])
            row[name + "_ms"] = ms
        f = flops(B, H, T, D, causal, mode)
        for name in ("nereid", "flash", "cudnn"):
            ms = row[name + "_ms"]
            row[name + "_tflops"] = f / (ms * 1e-3) / 1e12 if ms else None
        rows.append(row)
        log("  %-44s nereid %s  flash %s  cudnn %s" % (row["work"], fmt(row["nereid_tflops"]), fmt(row["flash_tflops"]),
                                                       fmt(row["cudnn_tflops"])))
    entry["best"] = {"fwd": list(best_f) if best_f else None,
                     "bwd": [list(best_b[0]), list(best_b[1])] if best_b else None,
                     "bwd_fused": best_b[2] if best_b else None}
    return entry


def fmt(x, digits=0):
    return ("%.*f" % (digits, x)) if x is not None else "n/a"


def ratio(a, b):
    return a / b if a and b else None


def print_table(rows, timer, info):
    print()
    print("fused attention, bf16, TFLOP/s (4 B H T^2 D per forward, half causal, x3.5 with backward); %s"
          % timer.method)
    print("GPU: %s, torch %s, triton %s" % (info["gpu"], info["torch"], info["triton"]))
    head = "%-44s %8s %8s %8s %13s %13s" % ("work", "nereid", "flash", "cudnn", "nereid/flash", "nereid/cudnn")
    print(head)
    print("-" * len(head))
    for r in rows:
        flag = "  (o differs from flash by %.3g)" % r["max_err_vs_flash"] if (r["max_err_vs_flash"] or 0) > 2e-2 else ""
        print("%-44s %8s %8s %8s %13s %13s%s" % (r["work"], fmt(r["nereid_tflops"]), fmt(r["flash_tflops"]),
                                                 fmt(r["cudnn_tflops"]), fmt(ratio(r["nereid_tflops"], r["flash_tflops"]), 2),
                                                 fmt(ratio(r["nereid_tflops"], r["cudnn_tflops"]), 2), flag))


def plot(rows, info, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
    except ImportError:
        print("no matplotlib: no PNG (the JSON holds the numbers)")
        return
    fig, axes = plt.subplots(2, 1, figsize=(14, 9), squeeze=False)
    for ax, mode in zip(axes[:, 0], ("fwd", "fwd+bwd")):
        sel = [r for r in rows if r["mode"] == mode]
        labels = [r["work"].replace(" " + mode, "").replace("B=", "").replace(" H=", ",").replace(" T=", ",")
                  .replace(" D=", ",") for r in sel]
        x = np.arange(len(sel))
        for i, (key, name) in enumerate((("nereid_tflops", "Nereid"), ("flash_tflops", "SDPA flash (FA2)"),
                                         ("cudnn_tflops", "SDPA cuDNN"))):
            vals = [r[key] or 0.0 for r in sel]
            bars = ax.bar(x + (i - 1) * 0.27, vals, 0.27, label=name)
            for b, val in zip(bars, vals):
                if val:
                    ax.annotate("%.0f" % val, (b.get_x() + b.get_width() / 2, val), ha="center", va="bottom",
                                fontsize=6, rotation=90)
        ax.set_xticks(x)
        ax.set_xticklabels(labels, rotation=25, ha="right", fontsize=7)
        ax.set_ylabel("TFLOP/s")
        ax.set_title("bf16 attention, %s (higher is better)" % ("forward" if mode == "fwd" else "forward + backward"),
                     fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("%s %s (torch %s)" % (info["gpu"], info["date"], info["torch"]), fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)
    print("wrote %s" % png)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="one tiling per kernel")
    ap.add_argument("--selftest-cpu", action="store_true", help="no GPU: one small group on the interpreter")
    ap.add_argument("--only", default="", help="run the groups whose description contains this "
                                               "(e.g. 'T=1024', 'causal p=0.1')")
    args = ap.parse_args()
    global DEVICE, SHAPES, DROPOUTS
    try:
        import torch
        if args.selftest_cpu:
            DEVICE, SHAPES, DROPOUTS = "cpu", [(1, 2, 100, 16)], (0.0, 0.1)
        else:
            if not torch.cuda.is_available():
                raise RuntimeError("no CUDA device")
            import torch.nn.attention  # noqa: F401 - SDPBackend, sdpa_kernel (torch 2.3 and later)
    except Exception as e:  # noqa: BLE001
        print("SKIP: attention_bench needs a GPU and torch with torch.nn.attention (%s)" % e)
        return 0
    os.environ.setdefault("NEREID_DEVICE", DEVICE)
    sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
    from test_attention import _import_nereid
    A = _import_nereid()
    timer = Timer(torch)
    try:
        import triton
        triton_version = triton.__version__
    except Exception:  # noqa: BLE001
        triton_version = None
    info = {"gpu": torch.cuda.get_device_name() if DEVICE == "cuda" else "CPU interpreter (selftest)",
            "torch": torch.__version__, "triton": triton_version,
            "date": datetime.date.today().isoformat(), "host": platform.node(), "timer": timer.method,
            "flops": "4*B*H*T*T*D per forward (half when causal), x3.5 for forward+backward"}
    out_dir = os.environ.get("OUT") or "."
    os.makedirs(out_dir, exist_ok=True)
    if DEVICE == "cpu":
        timer.method = "wall clock, one run (selftest: the interpreter)"
    rows, groups = [], []

    def log(s):
        print(s, flush=True)

    for shape in SHAPES:
        for causal in (True, False):
            for p in DROPOUTS:
                tag = "B=%d H=%d T=%d D=%d %s p=%.1f" % (*shape, "causal" if causal else "full", p)
                if args.only and args.only not in tag:
                    continue
                log(tag)
                try:
                    groups.append(bench_group(torch, A, timer, shape, causal, p, args.quick, rows, log))
                except Exception:  # noqa: BLE001 - report and go on with the next group
                    traceback.print_exc()
                if DEVICE == "cuda":
                    torch.cuda.empty_cache()
    print_table(rows, timer, info)
    path = os.path.join(out_dir, "attention_bench.json")
    with open(path, "w") as f:
        json.dump({"info": info, "rows": rows, "groups": groups}, f, indent=1)
    print("wrote %s" % path)
    plot(rows, info, os.path.join(out_dir, "attention_bench.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
