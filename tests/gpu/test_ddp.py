#!/usr/bin/env python3
"""test_ddp.py - examples/ddp/train_ddp.py run data-parallel with torchrun (N ranks, one
GPU each, NCCL) and as one process on one GPU, with the same global batch, seed and steps;
checks that every rank reports the same loss at every step, that it matches the one
process's loss within the stated tolerance, that the final weights agree likewise, that
each rank's Nereid kernels agree with torch's own ops, that the loss went down, and that
the N ranks, started together on an empty disk cache, compiled each kernel variant once
between them (the others loaded it). Prints a table of the losses last.

    python3 tests/gpu/test_ddp.py [--build build-gpu] [--nproc 2] [--steps 20] [--out DIR]
    python3 tests/gpu/test_ddp.py --device cpu --build build --steps 5     # no GPU: gloo, the interpreter

Tolerance: |loss(N ranks) - loss(1 process)| <= RTOL * |loss(1 process)| + ATOL at every
step, RTOL = 1e-5, ATOL = 1e-6 (the two sum the gradient over the batch in different
orders: N partial sums, then NCCL's all-reduce), and the same for the sum of the final
weights. Ranks must agree exactly (they all print the all-reduced loss).

With fewer than two GPUs (NCCL takes one GPU per rank) the N-rank run is skipped and the
program says so; with no GPU it skips (exit 0) unless --device cpu. Logs under --out
(default $OUT/ddp or /tmp/nereid-ddp).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "examples", "ddp", "train_ddp.py")
RTOL, ATOL = 1e-5, 1e-6


def run(cmd, env, log, timeout):
    """Run cmd with its output into log; (exit status, seconds)."""
    t0 = time.time()
    with open(log, "w") as f:
        try:
            rc = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write(f"\ntest_ddp: timed out after {timeout} s\n")
            rc = 124
    return rc, time.time() - t0


def load(d, world):
    out = []
    for r in range(world):
        path = os.path.join(d, f"rank{r}.json")
        if not os.path.exists(path):
            return None
        with open(path) as f:
            out.append(json.load(f))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default="build-gpu", help="the build folder whose python/ holds the package")
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--global-batch", type=int, default=64)
    p.add_argument("--out", default=os.path.join(os.environ["OUT"], "ddp") if os.environ.get("OUT") else "/tmp/nereid-ddp")
    p.add_argument("--timeout", type=int, default=240, help="seconds per run")
    args = p.parse_args()

    try:
        import torch
    except ImportError:
        print("SKIP: no torch")
        return 0
    ngpu = torch.cuda.device_count() if args.device == "cuda" and torch.cuda.is_available() else 0
    if args.device == "cuda" and ngpu == 0:
        print("SKIP: no CUDA device (torch sees none); --device cpu runs the smoke test")
        return 0
    multi = args.nproc >= 2 and (args.device == "cpu" or ngpu >= args.nproc)

    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    env = dict(os.environ)
    pkg = os.path.join(ROOT, args.build, "python")
    env["PYTHONPATH"] = pkg + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    common = ["--device", args.device, "--steps", str(args.steps), "--global-batch", str(args.global_batch)]
    failures = []

    # one process, no process group: the reference
    cache1 = tempfile.mkdtemp(prefix="nereid-ddp-cache-")
    rc1, t1 = run([sys.executable, SCRIPT] + common + ["--log-dir", os.path.join(args.out, "single")],
                  dict(env, NEREID_CACHE_DIR=cache1), os.path.join(args.out, "single.log"), args.timeout)
    single = load(os.path.join(args.out, "single"), 1) if rc1 == 0 else None
    if single is None:
        failures.append(f"the single process failed (exit {rc1}): see {args.out}/single.log")

    ranks, rcn, tn = None, None, 0.0
    if multi:
        # N ranks under torchrun, started together on an empty disk cache
        cachen = tempfile.mkdtemp(prefix="nereid-ddp-cache-")
        launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={args.nproc}"]
        if int(torch.__version__.split(".")[0]) < 2:  # torch 1.x's torchrun on Python 3.11 needs explicit redirects
            launcher += ["--redirects", "1", "--tee", "1"]
        rcn, tn = run(launcher + [SCRIPT] + common + ["--log-dir", os.path.join(args.out, f"ddp{args.nproc}")],
                      dict(env, NEREID_CACHE_DIR=cachen), os.path.join(args.out, f"ddp{args.nproc}.log"), args.timeout)
        ranks = load(os.path.join(args.out, f"ddp{args.nproc}"), args.nproc) if rcn == 0 else None
        if ranks is None:
            failures.append(f"torchrun with {args.nproc} ranks failed (exit {rcn}): see {args.out}/ddp{args.nproc}.log")
        shutil.rmtree(cachen, ignore_errors=True)
    shutil.rmtree(cache1, ignore_errors=True)

    worst = 0.0
    if single:
        s = single[0]
        if not s["losses"][-1] < s["losses"][0]:
            failures.append(f"the loss did not go down: {s['losses'][0]:.6f} -> {s['losses'][-1]:.6f}")
        if not s["torch_check"] < 1e-3:
            failures.append(f"single process: Nereid's kernels differ from torch's by {s['torch_check']:.2e}")
    if single and ranks:
        ref = single[0]
        for r in ranks:
            if r["losses"] != ranks[0]["losses"]:
                failures.append(f"rank {r['rank']}'s losses differ from rank 0's")
            if not r["torch_check"] < 1e-3:
                failures.append(f"rank {r['rank']}: Nereid's kernels differ from torch's by {r['torch_check']:.2e}")
            if abs(r["weights_sum"] - ref["weights_sum"]) > RTOL * abs(ref["weights_sum"]) + ATOL:
                failures.append(f"rank {r['rank']}: final weights' sum {r['weights_sum']:.9f}, one process "
                                f"{ref['weights_sum']:.9f}")
        for step, (a, b) in enumerate(zip(ref["losses"], ranks[0]["losses"])):
            worst = max(worst, abs(a - b) / abs(a))
            if abs(a - b) > RTOL * abs(a) + ATOL:
                failures.append(f"step {step}: loss {b:.9f} on {args.nproc} ranks, {a:.9f} in one process")
        if args.device == "cuda" and len({r["device_name"] for r in ranks}) == 1:
            compiled = sum(r["nereid"]["gpu_compiles"] for r in ranks)
            variants = ranks[0]["nereid"]["gpu_compiles"] + ranks[0]["nereid"]["disk_cache_hits"]
            loaded = sum(r["nereid"]["disk_cache_hits"] for r in ranks)
            print(f"disk cache: the {args.nproc} ranks compiled {compiled} kernel variants and loaded {loaded} "
                  f"({variants} per rank)")
            if compiled != variants:
                failures.append(f"the ranks compiled {compiled} variants between them, want {variants} (each once)")

    # the table
    print(f"\ntrain_ddp.py, {args.steps} steps, global batch {args.global_batch}, device {args.device}"
          + (f" ({ngpu} GPU{'s' if ngpu != 1 else ''} visible)" if args.device == "cuda" else ""))
    head = f"{'step':>4}  {'1 process':>12}"
    if ranks:
        head += "".join(f"  {'rank ' + str(r['rank']):>12}" for r in ranks) + f"  {'rel. diff':>9}"
    print(head)
    n = len(single[0]["losses"]) if single else 0
    for i in range(n):
        line = f"{i:4d}  {single[0]['losses'][i]:12.7f}"
        if ranks:
            a, b = single[0]["losses"][i], ranks[0]["losses"][i]
            line += "".join(f"  {r['losses'][i]:12.7f}" for r in ranks) + f"  {abs(a - b) / abs(a):9.1e}"
        print(line)
    if single:
        print(f"one process: {single[0]['ms_per_step']:.2f} ms/step on {single[0]['device_name']} "
              f"({t1:.1f} s in all)")
    if ranks:
        print(f"{args.nproc} ranks: " + ", ".join(f"rank {r['rank']} on {r['device']} {r['ms_per_step']:.2f} ms/step"
                                                  for r in ranks) + f" ({tn:.1f} s in all)")
        print(f"ranks agree exactly: {all(r['losses'] == ranks[0]['losses'] for r in ranks)}; largest relative "
              f"difference from one process: {worst:.1e} (tolerance {RTOL:g} relative + {ATOL:g})")
    if not multi:
        why = f"only {ngpu} GPU visible" if args.device == "cuda" else f"--nproc {args.nproc}"
        print(f"MULTI-RANK RUN SKIPPED: {why} (NCCL needs one GPU per rank); only the single process ran")
    for f in failures:
        print("FAILED: " + f)
    ok = not failures
    print(f"test_ddp: {'OK' if ok else 'FAILED'} ({args.nproc if multi else 1} rank{'s' if multi else ''} vs one "
          f"process, {args.device}; logs in {args.out})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
