#!/usr/bin/env python3
"""attention_inspect.py - one forward attention shape, Nereid beside torch SDPA's flash and
cuDNN backends, under Nsight Compute: what each kernel spends its time on.

    PYTHONPATH=build-gpu/python python3 bench/attention_inspect.py [--B 4 --H 32 --T 4096 --D 128]
        [--causal] [--p 0.0] [--tile 128,64,8,2] [--bwd [--bwd-tiles "32,128,8,2;128,64,8,2"]]

Each backend runs in a child process under `ncu --profile-from-start off`: a few warm-up
calls, then one call between cudaProfilerStart and cudaProfilerStop, so the report holds
exactly the kernels of one forward (with --bwd: of one backward, the forward made before). The sections: speed of light, occupancy, launch
statistics, compute workload, warp states. Prints, per kernel, the duration, SM and memory
throughput, registers, achieved occupancy, issue slots busy, cycles per issued instruction
and the three largest warp stall reasons; writes each full report under $OUT (or
./attention_inspect). Needs the GPU machine (torch, ncu).
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTIONS = ["SpeedOfLight", "Occupancy", "LaunchStats", "ComputeWorkloadAnalysis", "WarpStateStats", "SchedulerStats"]
METRICS = [  # (label, regex over ncu's text report)
    ("duration", r"^\s*Duration\s+(\S+)\s+(\S+)"),
    ("SM %", r"^\s*Compute \(SM\) Throughput\s+%\s+(\S+)"),
    ("mem %", r"^\s*Memory Throughput\s+%\s+(\S+)"),
    ("regs", r"^\s*Registers Per Thread\s+register/thread\s+(\S+)"),
    ("occupancy %", r"^\s*Achieved Occupancy\s+%\s+(\S+)"),
    ("issue busy %", r"^\s*Issue Slots Busy\s+%\s+(\S+)"),
    ("cycles/issue", r"^\s*Warp Cycles Per Issued Instruction\s+cycle\s+(\S+)"),
]


def child(args):
    import torch
    import torch.nn.functional as F
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    dt = torch.bfloat16
    torch.manual_seed(0)
    q, k, v = (torch.randn(args.B, args.H, args.T, args.D, device="cuda", dtype=dt) for _ in range(3))
    if args.child == "nereid":
        import attention
        t = [int(x) for x in args.tile.split(",")]
        kv, dq = ([int(x) for x in part.split(",")] for part in args.bwd_tiles.split(";"))
        cfg = attention.Config(attention.Blocks(*t), attention.Blocks(*kv), attention.Blocks(*dq))
        if args.bwd:
            o, lse = attention.forward(q, k, v, causal=args.causal, dropout_p=args.p, seed=1, config=cfg)
            do = torch.randn_like(o)
            run = lambda: attention.backward(q, k, v, o, lse, do, causal=args.causal, dropout_p=args.p,  # noqa: E731
                                             seed=1, config=cfg)
        else:
            run = lambda: attention.forward(q, k, v, causal=args.causal, dropout_p=args.p, seed=1, config=cfg)  # noqa: E731
    else:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backend = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[args.child]
        if args.bwd:
            for t_ in (q, k, v):
                t_.requires_grad_(True)
            with sdpa_kernel(backend):
                o = F.scaled_dot_product_attention(q, k, v, is_causal=args.causal, dropout_p=args.p)
            do = torch.randn_like(o)

            def run():
                with sdpa_kernel(backend):
                    return torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
        else:
            def run():
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=args.causal, dropout_p=args.p)
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


def summarize(text):
    """Per kernel in an ncu text report: (name, {label: value}, [top stalls])."""
    out = []
    for block in re.split(r"\n(?=  \S.*\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\))", text):
        head = block.strip().splitlines()[0] if block.strip() else ""
        if not re.search(r"\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", head):
            continue
        vals = {}
        for label, rx in METRICS:
            m = re.search(rx, block, re.M)
            if m:
                vals[label] = " ".join(m.groups())
        stalls = []
        for line in block.splitlines():  # "--print-details all": the warp-state table
            m = re.match(r"^\s*(Stall [A-Za-z ]+?)\s{2,}(?:\S+\s+)?([\d.]+)\s*$", line)
            if m:
                stalls.append((m.group(1), float(m.group(2))))
        stalls.sort(key=lambda x: -x[1])
        out.append((head.split("(")[0].strip()[:60], vals, ["%s %.2f" % s for s in stalls[:4]]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--B", type=int, default=4)
    ap.add_argument("--H", type=int, default=32)
    ap.add_argument("--T", type=int, default=4096)
    ap.add_argument("--D", type=int, default=128)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--p", type=float, default=0.0)
    ap.add_argument("--tile", default="128,64,8,2", help="Nereid's forward BLOCK_M,BLOCK_N,num_warps,num_stages")
    ap.add_argument("--bwd", action="store_true", help="profile the backward (Nereid: dkdv, dq, delta) instead")
    ap.add_argument("--bwd-tiles", default="32,128,8,2;128,64,8,2", help="Nereid's dkdv;dq tiles, as --tile")
    ap.add_argument("--backends", default="nereid,flash,cudnn")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)
    out_dir = os.environ.get("OUT") or os.path.join(os.getcwd(), "attention_inspect")
    os.makedirs(out_dir, exist_ok=True)
    shape = "B=%d H=%d T=%d D=%d %s p=%g" % (args.B, args.H, args.T, args.D, "causal" if args.causal else "full", args.p)
    print("attention_inspect: %s, bf16 %s, tile %s" % (shape, "backward" if args.bwd else "forward",
                                                         args.bwd_tiles if args.bwd else args.tile))
    for who in args.backends.split(","):
        cmd = ["ncu", "--profile-from-start", "off", "--print-units", "base", "--print-details", "all"]
        for s in SECTIONS:
            cmd += ["--section", s]
        cmd += [sys.executable, os.path.abspath(__file__), "--child", who, "--B", str(args.B), "--H", str(args.H),
                "--T", str(args.T), "--D", str(args.D), "--p", str(args.p), "--tile", args.tile,
                "--bwd-tiles", args.bwd_tiles]
        if args.causal:
            cmd.append("--causal")
        if args.bwd:
            cmd.append("--bwd")
        r = subprocess.run(cmd, capture_output=True, text=True)
        path = os.path.join(out_dir, "ncu_attention_%s%s.txt" % ("bwd_" if args.bwd else "", who))
        with open(path, "w") as f:
            f.write(r.stdout + r.stderr)
        if r.returncode:
            print("%-7s ncu failed (%d): see %s" % (who, r.returncode, path))
            continue
        for name, vals, stalls in summarize(r.stdout):
            print("%-7s %s" % (who, name))
            print("        " + ", ".join("%s %s" % (k, v) for k, v in vals.items()))
            if stalls:
                print("        stalls (cycles per issued instruction): " + ", ".join(stalls))


if __name__ == "__main__":
    main()
