#!/usr/bin/env python3
"""matmul_inspect.py - one matmul configuration of bench.py, Nereid beside Triton, with what
each compiled to: for tuning the tensor-core path on the GPU machine.

    python3 bench/matmul_inspect.py [--dtype fp16|bf16|fp8e4nv|int8|tf32] [--n 4096]
                                    [--tile 128,256,64,8,3] [--ncu]

Both run examples/matmul.nr's kernel (Nereid the file with bench.py's type substitution,
Triton bench.py's generic copy of the tutorial kernel) on the same tensors. Prints the
TFLOP/s of each (median of do_bench), the registers, spills and shared memory of each
kernel, and a count of the SASS instructions that matter (HGMMA/QGMMA/IMMA, LDGSTS,
BAR, DEPBAR, WARPSYNC, LDS/STS, LDG/STG); writes under $OUT (or ./inspect): each
kernel's SASS, Triton's PTX and TTGIR. With --ncu, each kernel is launched once more under
Nsight Compute (speed-of-light, occupancy, warp-state and scheduler sections) and its
report text is written there too.
"""
import argparse
import collections
import glob
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
os.environ.setdefault("NEREID_CACHE_DIR", tempfile.mkdtemp(prefix="nereid-inspect-"))
import bench  # noqa: E402  (the ctypes binding, the Triton kernel, the type substitution)

SASS_OPS = ("HGMMA", "QGMMA", "IGMMA", "HMMA", "IMMA", "LDGSTS", "LDSM", "BAR", "DEPBAR", "WARPSYNC", "LDS", "STS",
            "LDG", "STG", "STSM", "SHFL", "LDL", "STL")


def sass_counts(text):
    c = collections.Counter()
    for line in text.splitlines():
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9]+)", line)
        if m:
            c[m.group(1)] += 1
    return {k: c[k] for k in SASS_OPS if c[k]}


def sass_of(cubin_path):
    r = subprocess.run(["cuobjdump", "-sass", cubin_path], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else "cuobjdump failed: " + r.stderr


def nereid_cubins():
    """The payloads of the disk cache's entries (see runtime/cache.c's format)."""
    out = []
    for p in glob.glob(os.path.join(os.environ["NEREID_CACHE_DIR"], "*.cubin")):
        with open(p, "rb") as f:
            b = f.read()
        if b[:8] != b"NRCACHE1":
            continue
        klen, plen = struct.unpack_from("<QQ", b, 16)
        payload = b[48 + klen:48 + klen + plen]
        elf = payload.find(b"\x7fELF")  # after runtime/cuda.c's small header
        if elf >= 0:
            out.append((os.path.getmtime(p), payload[elf:]))
    return [x[1] for x in sorted(out)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", default="fp16")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--tile", default="128,256,64,8,3")
    ap.add_argument("--ncu", action="store_true")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    import torch
    import triton
    bm, bn, bk, w, st = (int(x) for x in args.tile.split(","))
    out_dir = os.environ.get("OUT") or "inspect"
    os.makedirs(out_dir, exist_ok=True)
    tag = "%s_%d_%dx%dx%d_w%d_s%d" % (args.dtype, args.n, bm, bn, bk, w, st)
    row = {r[0]: r for r in bench.Bench.MM_ROWS}[args.dtype]
    label, tin, tout, _ = row
    b = bench.Bench(argparse.Namespace(lib=bench.default_lib(), small=False, quick=True, only=None))
    n = args.n
    # the tensors, as bench.matmul makes them
    g = lambda: torch.randn(n, n, device="cuda", dtype=torch.float32)
    if label in ("fp16", "bf16"):
        dt = torch.float16 if label == "fp16" else torch.bfloat16
        a, bb, c = g().to(dt), g().to(dt), torch.empty(n, n, device="cuda", dtype=dt)
    elif label == "tf32":
        a, bb, c = g(), g(), torch.empty(n, n, device="cuda")
    elif label == "int8":
        a = torch.randint(-128, 128, (n, n), device="cuda", dtype=torch.int8)
        bb = torch.randint(-128, 128, (n, n), device="cuda", dtype=torch.int8).t().contiguous().t()
        c = torch.empty(n, n, device="cuda", dtype=torch.int32)
    else:
        a = g().to(torch.float8_e4m3fn)
        bb = g().to(torch.float8_e4m3fn).t().contiguous().t()
        c = torch.empty(n, n, device="cuda", dtype=torch.float16)
    strides = [a.stride(0), a.stride(1), bb.stride(0), bb.stride(1), c.stride(0), c.stride(1)]
    nr = b.nr
    k = nr.kernel("examples/matmul.nr", "matmul_kernel",
                  {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8, "ACTIVATION": ""},
                  w, st, source=b.matmul_source(tin, tout))
    grid = bench.triton_cdiv(n, bm) * bench.triton_cdiv(n, bn)
    run_nr = nr.launcher(k, (grid,), [bench.ptr(a.data_ptr()), bench.ptr(bb.data_ptr()), bench.ptr(c.data_ptr()),
                                      bench.i32(n), bench.i32(n), bench.i32(n)] + [bench.i32(x) for x in strides],
                         stream=torch.cuda.current_stream().cuda_stream)
    tk = bench.define_triton_kernels()["matmul"]
    tc = torch.empty_like(c)
    acc = triton.language.int32 if tin == "i8" else triton.language.float32

    def run_tr():
        return tk[(grid,)](a, bb, tc, n, n, n, *strides, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                           GROUP_SIZE_M=8, ACC=acc, num_warps=w, num_stages=st)
    if args.child:  # under ncu: one launch of the one asked for, after a warm-up
        fn = run_nr if args.child == "nereid" else run_tr
        fn()
        torch.cuda.synchronize()
        fn()
        torch.cuda.synchronize()
        return 0
    run_nr()
    ck = run_tr()
    torch.cuda.synchronize()
    flop = 2.0 * n ** 3
    # interleaved, so clock and temperature drift falls on both alike
    ts_nr, ts_tr = [], []
    for _ in range(3):
        ts_nr.append(triton.testing.do_bench(run_nr, return_mode="median"))
        ts_tr.append(triton.testing.do_bench(run_tr, return_mode="median"))
    t_nr, t_tr = sorted(ts_nr)[1], sorted(ts_tr)[1]
    err = ((c.float() - tc.float()).norm() / tc.float().norm()).item()
    # what each compiled to
    cub = nereid_cubins()
    nr_sass = ""
    if cub:
        p = os.path.join(out_dir, "nereid_%s.cubin" % tag)
        with open(p, "wb") as f:
            f.write(cub[-1])
        nr_sass = sass_of(p)
        os.unlink(p)
    tr_sass = ""
    if "cubin" in ck.asm:
        p = os.path.join(out_dir, "triton_%s.cubin" % tag)
        with open(p, "wb") as f:
            f.write(ck.asm["cubin"])
        tr_sass = sass_of(p)
        os.unlink(p)
    files = {"nereid_%s.sass" % tag: nr_sass, "triton_%s.sass" % tag: tr_sass,
             "triton_%s.ptx" % tag: ck.asm.get("ptx", ""), "triton_%s.ttgir" % tag: ck.asm.get("ttgir", "")}
    for name, text in files.items():
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(text)
    if args.ncu:
        for who in ("nereid", "triton"):
            r = subprocess.run(["ncu", "--launch-skip", "1", "--launch-count", "1", "-k", "regex:matmul",
                                "--set", "full", "--print-details", "all", sys.executable, os.path.abspath(__file__),
                                "--dtype", args.dtype, "--n", str(n), "--tile", args.tile, "--child", who],
                               capture_output=True, text=True)
            with open(os.path.join(out_dir, "ncu_%s_%s.txt" % (who, tag)), "w") as f:
                f.write(r.stdout + r.stderr)
    tf = lambda t: flop / (t * 1e-3) / 1e12
    print("%s: nereid %.1f TFLOP/s, triton %.1f TFLOP/s, ratio %.3f (|nereid - triton| / |triton| = %.1e)"
          % (tag, tf(t_nr), tf(t_tr), t_tr / t_nr, err))
    print("  triton: %s registers, %s spills, %s bytes of shared memory"
          % (getattr(ck, "n_regs", "?"), getattr(ck, "n_spills", "?"), getattr(ck.metadata, "shared", "?")))
    print("  SASS nereid: %s" % sass_counts(nr_sass))
    print("  SASS triton: %s" % sass_counts(tr_sass))
    return 0


if __name__ == "__main__":
    sys.exit(main())
