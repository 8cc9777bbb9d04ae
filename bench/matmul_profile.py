#!/usr/bin/env python3
"""bench/matmul_profile.py - where a tile's time goes, counted in SM cycles by Nsight Compute.

bench.py times kernels by the wall clock, and under the power cap the clock itself moves
by several percent (matmul_power.py). This script counts cycles instead: it runs ncu
(clock control off: the card's clocks are left as they are) on one process that launches,
for each problem, once each:
- nereid:  examples/matmul.nr, one tile per program;
- persist: bench/matmul_persistent.nr, the same body in a loop over tiles, 132 programs
           (one per SM) each computing every 132nd tile;
- triton:  Triton's tutorial kernel;
- cublas:  torch.matmul.
The first three at 128x256x64, 8 warps, 3 stages (the configuration bench.py's 16-bit rows
pick). For each kernel it reads the name, grid, cluster size, registers, dynamic shared
memory and elapsed SM cycles (gpc__cycles_elapsed.max; ncu flushes the caches before
each kernel), and checks each result against cuBLAS's.

- The table: cycles, and TFLOP/s per GHz of SM clock (flop / cycles).
- The fit: with M = N fixed, cycles(K) = a + b K by least squares over the K values
  given. b is the cost of the K loop, a the fixed cost of the whole grid; a / (64 b) is
  that in K steps of 64, which for a grid of one tile per program in whole waves is each
  program's fixed cost in its own K steps.
- --source (optional): ncu's warp-state sampling of each kernel --source-who names
  (Nereid's and Triton's by default) on the first problem, per SASS instruction, split
  into the code before the K loop, the loop (the backward branch around the most HGMMAs,
  the innermost such) and the code after it. All warps run the same code at about the
  same time, so the shares of samples are about the shares of the program's time. The
  per-instruction tables are kept in --out (src_*.csv).

--metrics adds ncu metrics (full names, comma-separated) as a second table. --nostore adds
a fifth kernel: examples/matmul.nr with its store's mask and-ed with M < 0, false at run
time, so that the epilogue runs but writes nothing (the cost of the stores' traffic).

usage: PYTHONPATH=build-gpu/python python3 bench/matmul_profile.py [--out DIR]
           [--problems bf16:4096x4096x1024,...] [--source] [--metrics NAME,...]
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (bench.py: the ctypes binding, the Triton kernels, the matmul lists)

BM, BN, BK, W, S = bench.Bench.MM_PICK16
DEFAULT_PROBLEMS = ("bf16:4096x4096x1024,bf16:4096x4096x2048,bf16:4096x4096x4096,bf16:4096x4096x8192,"
                    "fp16:4096x4096x4096,fp16:4000x4000x4000,bf16:8192x8192x8192")
WHO = ("nereid", "persist", "triton", "cublas")
WHO_NOSTORE = WHO + ("nostore",)
SMS = 132
TIME_UNIT_US = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
# torch launches these (random data, conversions, the marker fills); anything else is a matmul
HELPER = re.compile(r"elementwise|distribution|fill|copy|Fill|Copy|unrolled|vectorized|philox|normal")


def parse_problems(spec):
    out = []
    for p in spec.split(","):
        dt, dims = p.split(":")
        m, n, k = (int(x) for x in dims.split("x")) if "x" in dims else (int(dims),) * 3
        out.append((dt, m, n, k))
    return out


def launch(args):
    """Runs under ncu: for each problem and each of WHO, a marker fill, then the matmul once."""
    import torch
    import triton
    nr = bench.Nereid(args.lib)
    tk = bench.define_triton_kernels()
    problems = parse_problems(args.problems)
    who = args.who.split(",")
    kerns, work = {}, []
    defs = {"BLOCK_SIZE_M": BM, "BLOCK_SIZE_N": BN, "BLOCK_SIZE_K": BK, "GROUP_SIZE_M": 8, "ACTIVATION": ""}
    with open(os.path.join(HERE, "matmul_persistent.nr")) as f:
        persistent = f.read()
    for dt, m, n, k in problems:
        if dt not in kerns:
            kerns[dt] = nr.kernel("examples/matmul.nr", "matmul_kernel", defs, W, S,
                                  source=bench.Bench.matmul_source(dt, dt))
            src = persistent
            for old, new in (("a_ptr: *fp16, b_ptr: *fp16, c_ptr: *fp16", "a_ptr: *%s, b_ptr: *%s, c_ptr: *%s"
                              % (dt, dt, dt)),
                             ("accumulator.to(tl.float16)", "accumulator.to(tl.%s)"
                              % {"fp16": "float16", "bf16": "bfloat16"}[dt])):
                assert old in src, "bench/matmul_persistent.nr changed shape: %r not found" % old
                src = src.replace(old, new)
            if "nostore" in who:
                old = "tl.store(c_ptrs, c, mask=c_mask)"
                nsrc = bench.Bench.matmul_source(dt, dt)
                assert old in nsrc, "examples/matmul.nr changed shape: %r not found" % old
                nsrc = nsrc.replace(old, "tl.store(c_ptrs, c, mask=c_mask & (M < 0))")
                kerns[dt + " nostore"] = nr.kernel("examples/matmul.nr", "matmul_kernel", defs, W, S, source=nsrc)
            kerns[dt + " persist"] = nr.kernel("bench/matmul_persistent.nr", "matmul_kernel",
                                               dict(defs, NUM_PROGRAMS=SMS), W, S, source=src)
        tdt = torch.float16 if dt == "fp16" else torch.bfloat16
        torch.manual_seed(0)
        a = torch.randn(m, k, device="cuda").to(tdt)
        b = torch.randn(k, n, device="cuda").to(tdt)
        cs = {w: torch.zeros(m, n, device="cuda", dtype=tdt) for w in who}
        work.append((dt, m, n, k, a, b, cs))
    stream = torch.cuda.current_stream().cuda_stream
    runs = []
    for dt, m, n, k, a, b, cs in work:
        strides = [a.stride(0), a.stride(1), b.stride(0), b.stride(1), n, 1]
        grid = bench.triton_cdiv(m, BM) * bench.triton_cdiv(n, BN)
        for w in who:
            c = cs[w]
            if w in ("nereid", "persist", "nostore"):
                kern = kerns[dt] if w == "nereid" else kerns[dt + " " + w]
                fn = nr.launcher(kern, (min(grid, SMS) if w == "persist" else grid,),
                                 [bench.ptr(a.data_ptr()), bench.ptr(b.data_ptr()), bench.ptr(c.data_ptr()),
                                  bench.i32(m), bench.i32(n), bench.i32(k)] + [bench.i32(x) for x in strides],
                                 stream=stream)
            elif w == "triton":
                def fn(a=a, b=b, c=c, m=m, n=n, k=k, strides=strides, grid=grid):
                    tk["matmul"][(grid,)](a, b, c, m, n, k, *strides, BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN,
                                          BLOCK_SIZE_K=BK, GROUP_SIZE_M=8, ACC=triton.language.float32,
                                          num_warps=W, num_stages=S)
            else:
                def fn(a=a, b=b, c=c):
                    torch.matmul(a, b, out=c)
            runs.append(fn)
    for fn in runs:  # compile and warm up before the first marker: ncu's rows before it are ignored
        fn()
    torch.cuda.synchronize()
    marker = torch.empty(1, device="cuda")
    for fn in runs:
        marker.fill_(1.0)
        fn()
        torch.cuda.synchronize()
    marker.fill_(1.0)
    torch.cuda.synchronize()
    bad = 0
    for dt, m, n, k, a, b, cs in work:
        ref = cs["cublas"].float() if "cublas" in who else (a.float() @ b.float())
        for w in who:
            if w == "nostore":  # it writes nothing: C stays zero
                e = cs[w].abs().max().item()
                bad += e != 0
                print("check %s %dx%dx%d %-7s max |c| = %g %s" % (dt, m, n, k, w, e, "ok" if e == 0 else "MISMATCH"))
                continue
            e = ((cs[w].float() - ref).norm() / ref.norm()).item()
            bad += e >= 1e-2
            print("check %s %dx%dx%d %-7s |c - ref| / |ref| = %.1e %s" % (dt, m, n, k, w, e,
                                                                        "ok" if e < 1e-2 else "MISMATCH"))
    if bad:
        sys.exit("%d results differ from the reference" % bad)


def ncu_rows(text):
    """ncu --csv --page details: one dict per profiled kernel, in launch order."""
    start = text.find('"ID"')
    if start < 0:
        raise SystemExit("no ncu table in its output:\n" + text[-3000:])
    kernels = {}
    for r in csv.DictReader(io.StringIO(text[start:])):
        kid = int(r["ID"])
        k = kernels.setdefault(kid, {"name": r["Kernel Name"], "block": r.get("Block Size", ""),
                                     "grid": r.get("Grid Size", ""), "m": {}})
        k["m"][r["Metric Name"]] = r["Metric Value"].replace(",", "")
        k["m"][r["Metric Name"] + " unit"] = r.get("Metric Unit", "")
    return [kernels[i] for i in sorted(kernels)]


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def counters(args, ncu):
    metrics = "gpc__cycles_elapsed.max,gpu__time_duration.sum" + ("," + args.metrics if args.metrics else "")
    cmd = [ncu, "--csv", "--page", "details", "--print-kernel-base", "demangled", "--clock-control", "none",
           "--section", "LaunchStats", "--metrics", metrics,
           "--log-file", os.path.join(args.out, "ncu_counters.csv"),
           sys.executable, os.path.abspath(__file__), "--launch", "--problems", args.problems, "--lib", args.lib,
           "--who", ",".join(WHO_NOSTORE if args.nostore else WHO)]
    subprocess.run(cmd, check=True)
    with open(os.path.join(args.out, "ncu_counters.csv")) as f:
        rows = ncu_rows(f.read())
    # split at the marker fills: the kernels after the i-th marker belong to launch i
    groups, cur = [], None
    for r in rows:
        if "fill" in r["name"].lower() or "Fill" in r["name"]:
            cur = []
            groups.append(cur)
        elif cur is not None and not HELPER.search(r["name"]):
            cur.append(r)
    problems = parse_problems(args.problems)
    who = WHO_NOSTORE if args.nostore else WHO
    expect = len(problems) * len(who)
    if len(groups) < expect + 1:
        raise SystemExit("expected %d marked launches, found %d" % (expect, len(groups) - 1))
    groups = groups[-(expect + 1):-1]  # fills before the first marker start groups too; the last marker ends them
    res = {}
    print("%-22s %-7s %10s %9s %5s %9s %6s %6s %8s  %s" % ("problem", "who", "kcycles", "TF/GHz", "regs", "smem KiB",
                                                         "grid", "clust", "us", "kernel"))
    for pi, (dt, m, n, k) in enumerate(problems):
        for wi, w in enumerate(who):
            ks = groups[pi * len(who) + wi]
            cyc = sum(num(r["m"].get("gpc__cycles_elapsed.max")) for r in ks)
            us = sum(num(r["m"].get("gpu__time_duration.sum")) *
                     TIME_UNIT_US.get(r["m"].get("gpu__time_duration.sum unit"), float("nan")) for r in ks)
            res[(dt, m, n, k, w)] = (cyc, ks)
            label = "%s %dx%dx%d" % (dt, m, n, k)
            for j, r in enumerate(ks):
                mm = r["m"]
                sv = num(mm.get("Dynamic Shared Memory Per Block"))
                su = mm.get("Dynamic Shared Memory Per Block unit", "")
                smem = "%.1fK" % (sv / 1024 if su.startswith("byte") else sv * 1000 / 1024 if su.startswith("Kbyte")
                                  else float("nan"))
                clus = mm.get("Cluster Size", "-")
                print("%-22s %-7s %10.1f %9.1f %5s %9s %6s %6s %8.1f  %s" % (
                    label if j == 0 else "", w if j == 0 else "", cyc / 1e3 if j == 0 else float("nan"),
                    2.0 * m * n * k / cyc / 1e3 if j == 0 else float("nan"), mm.get("Registers Per Thread", "?"),
                    smem, mm.get("Grid Size", r["grid"]), clus, us if j == 0 else float("nan"), r["name"][:90]))
    if args.metrics:  # the extra metrics, one column each, for the first kernel of each launch
        names = args.metrics.split(",")
        print("\n%-22s %-7s %s" % ("problem", "who", " ".join("%22s" % n[:22] for n in names)))
        for pi, (dt, m, n, k) in enumerate(problems):
            for w in who:
                ks = res[(dt, m, n, k, w)][1]
                vals = [ks[0]["m"].get(name, "?") if ks else "?" for name in names]
                print("%-22s %-7s %s" % ("%s %dx%dx%d" % (dt, m, n, k), w, " ".join("%22s" % v for v in vals)))
    # fixed cost: cycles(K) = a + b K for each (dtype, M, N) with at least 3 K values
    fits = {}
    for dt, m, n, k in problems:
        fits.setdefault((dt, m, n), set()).add(k)
    for (dt, m, n), ks in fits.items():
        if len(ks) < 3:
            continue
        ks = sorted(ks)
        print("\nfixed cost, %s %dx%d, K in %s: cycles(K) = a + b K" % (dt, m, n, ks))
        print("%-7s %12s %14s %12s %14s" % ("who", "a (kcycles)", "b (cycles/K)", "a / (64 b)", "cycles at K=64"))
        for w in who:
            ys = [res[(dt, m, n, k, w)][0] for k in ks]
            mx, my = sum(ks) / len(ks), sum(ys) / len(ys)
            b = sum((x - mx) * (y - my) for x, y in zip(ks, ys)) / sum((x - mx) ** 2 for x in ks)
            a = my - b * mx
            print("%-7s %12.1f %14.2f %12.2f %14.0f" % (w, a / 1e3, b, a / (b * 64), a + 64 * b))
        print("(a / (64 b): the fixed cost in K steps of 64; for a grid of one tile per program, in whole waves,\n"
              " that is each program's fixed cost in its own K steps)")


def source(args, ncu):
    """Warp-state samples per SASS instruction, split around the K loop, for Nereid and Triton."""
    dt, m, n, k = parse_problems(args.problems)[0]
    prob = "%s:%dx%dx%d" % (dt, m, n, k)
    print("\nwhere the warps are, %s (ncu warp-state sampling, share of all samples)" % prob)
    print("%-7s %9s %12s %8s %12s %10s" % ("who", "samples", "before loop", "K loop", "after loop", "loop SASS"))
    for w in args.source_who.split(","):
        rep = os.path.join(args.out, "src_%s" % w)
        r = subprocess.run([ncu, "--clock-control", "none", "--section", "SourceCounters", "--section",
                            "WarpStateStats", "-k", "regex:matmul_kernel", "-c", "1", "-f", "-o", rep, sys.executable,
                            os.path.abspath(__file__), "--launch", "--problems", prob, "--who", w, "--lib", args.lib],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("%-7s ncu failed (%d): %s" % (w, r.returncode, (r.stdout + r.stderr)[-1500:]))
            continue
        r = subprocess.run([ncu, "-i", rep + ".ncu-rep", "--page", "source", "--csv", "--print-source", "sass"],
                           capture_output=True, text=True)
        out = r.stdout
        if r.returncode != 0:
            print("%-7s ncu --page source failed (%d): %s" % (w, r.returncode, (r.stdout + r.stderr)[-1500:]))
            continue
        with open(os.path.join(args.out, "src_%s.csv" % w), "w") as f:
            f.write(out)
        split_source(w, out)


def split_source(w, text):
    start = text.find('"Address"')
    if start < 0:
        start = text.find('"#"')
    rows = list(csv.DictReader(io.StringIO(text[start:])))
    if not rows:
        print("%-7s no source rows" % w)
        return
    skey = next((c for c in rows[0] if "Sampling" in c and "All" in c and "Not" not in c), None) or \
        next((c for c in rows[0] if "Sampling" in c), None)
    if skey is None:
        print("%-7s no warp-sampling column in ncu's source page" % w)
        return
    addr = lambda r: int(r["Address"], 16) if r.get("Address", "").startswith("0x") else int(r.get("Address") or 0)
    srcs = [r["Source"] for r in rows]
    # the K loop: the backward branch whose body holds the most HGMMAs
    best = None
    for i, s in enumerate(srcs):
        mt = re.search(r"\bBRA\b.*?(0x[0-9a-f]+|`\(\.L_x_\d+\))", s)
        if not mt:
            continue
        tgt = mt.group(1)
        if tgt.startswith("0x"):
            t = next((j for j, r in enumerate(rows) if addr(r) == int(tgt, 16)), None)
        else:
            lab = re.search(r"\.L_x_\d+", tgt).group(0)
            t = next((j for j, s2 in enumerate(srcs) if s2.strip().startswith(lab + ":")), None)
        if t is None or t > i:
            continue
        n_mma = sum("HGMMA" in srcs[j] for j in range(t, i + 1))
        # the most HGMMAs; among equals the shortest body (a K loop inside a loop over tiles)
        if n_mma and (best is None or (n_mma, t - i) > (best[2], best[0] - best[1])):
            best = (t, i, n_mma)
    samples = [num(r.get(skey)) if r.get(skey) not in (None, "") else 0.0 for r in rows]
    total = sum(samples)
    if best is None or total == 0:
        print("%-7s %9.0f  (no K loop found)" % (w, total))
        return
    t, i, _ = best
    pre, loop, post = sum(samples[:t]), sum(samples[t:i + 1]), sum(samples[i + 1:])
    print("%-7s %9.0f %11.1f%% %7.1f%% %11.1f%% %10d" % (w, total, 100 * pre / total, 100 * loop / total,
                                                          100 * post / total, i + 1 - t))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=bench.default_lib())
    ap.add_argument("--problems", default=DEFAULT_PROBLEMS)
    ap.add_argument("--out", default="/tmp/matmul_profile")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--source", action="store_true")
    ap.add_argument("--nostore", action="store_true",
                    help="also the seed kernel with its store masked off at run time (mask & (M < 0))")
    ap.add_argument("--source-who", default="nereid,triton", help="whose kernels --source samples")
    ap.add_argument("--metrics", default="", help="more ncu metrics (comma-separated full names) to print")
    ap.add_argument("--launch", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--who", default=",".join(WHO), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.launch:
        launch(args)
        return
    os.makedirs(args.out, exist_ok=True)
    counters(args, args.ncu)
    if args.source:
        source(args, args.ncu)


if __name__ == "__main__":
    main()
