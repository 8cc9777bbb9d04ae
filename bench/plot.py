#!/usr/bin/env python3
"""plot.py - a PNG of bench.py's tables, written next to its JSON.

    python3 bench/plot.py [bench.json ...]      (default: $OUT/bench.json, else ./bench.json)

bench.py calls it at the end of its run. The figure has one panel per table: bandwidth
(GB/s) of each memory-bound work for Nereid, Triton, PyTorch and the device-to-device
copy that bounds them, and, when there are matmul rows, TFLOP/s for Nereid, Triton and
cuBLAS. The PNG takes the JSON's name (bench.json -> bench.png). Without matplotlib it
says so and exits 0: the JSON and the printed tables carry the same numbers.
"""
import json
import os
import sys

# the series of each table: (JSON key, legend label)
BANDWIDTH = [("nereid_gbps", "Nereid"), ("triton_gbps", "Triton"), ("torch_gbps", "PyTorch"), ("copy_gbps", "copy")]
MATMUL = [("nereid_tflops", "Nereid"), ("triton_tflops", "Triton"), ("cublas_tflops", "cuBLAS")]


def _bars(ax, rows, series, ylabel, title):
    import numpy as np
    works = [r.get("work", "?") for r in rows]
    present = [(k, label) for k, label in series if any(r.get(k) for r in rows)]
    x = np.arange(len(works))
    width = 0.8 / max(1, len(present))
    for i, (key, label) in enumerate(present):
        vals = [r.get(key) or 0.0 for r in rows]
        bars = ax.bar(x + (i - (len(present) - 1) / 2) * width, vals, width, label=label)
        for b, v in zip(bars, vals):
            if v:
                ax.annotate(f"{v:.0f}" if v >= 10 else f"{v:.1f}", (b.get_x() + b.get_width() / 2, v),
                            ha="center", va="bottom", fontsize=6, rotation=90)
    ax.set_xticks(x)
    ax.set_xticklabels(works, rotation=20, ha="right", fontsize=7)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(axis="y", alpha=0.3)


def plot_file(path):
    """Write the PNG for one bench.json; returns its path, or None (with the reason
    printed) when there is nothing to draw or no matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"plot.py: matplotlib is not installed: no PNG for {path} (its tables are in the JSON)")
        return None
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print(f"plot.py: cannot read {path}: {e}")
        return None
    panels = [(data.get("rows") or [], BANDWIDTH, "GB/s", "memory-bound work (higher is better)"),
              (data.get("matmul_rows") or [], MATMUL, "TFLOP/s", "matmul (higher is better)")]
    panels = [p for p in panels if p[0]]
    if not panels:
        print(f"plot.py: {path} has no rows to plot")
        return None
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 4.2 * len(panels)), squeeze=False)
    for ax, (rows, series, ylabel, title) in zip(axes[:, 0], panels):
        _bars(ax, rows, series, ylabel, title)
    info = data.get("info", {})
    fig.suptitle(" ".join(str(info.get(k, "")) for k in ("gpu", "date")) +
                 f"  (torch {info.get('torch', '?')}, triton {info.get('triton', '?')})", fontsize=9)
    fig.tight_layout()
    png = os.path.splitext(path)[0] + ".png"
    fig.savefig(png, dpi=120)
    plt.close(fig)
    print(f"wrote {png}")
    return png


def main(argv):
    paths = argv[1:] or [os.path.join(os.environ.get("OUT", "."), "bench.json")]
    for p in paths:
        plot_file(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
