#!/usr/bin/env python3
"""triton_parity.py - Nereid's random numbers against Triton's, on the GPU, bit for bit.

    python3 tests/gpu/triton_parity.py [--lib build-gpu/libnereid.so]

Runs the kernels of tests/gpu/philox_parity.nr on Nereid (through the C API, as
bench/bench.py does) and the same kernels on Triton (the file's text with the parameter
types removed, compiled with @triton.jit) on the same GPU, for 32-bit and 64-bit
offsets and tl.philox on 64-bit counters, several seeds (negative and 64-bit ones
included) and offset ranges, and compares: the four words and tl.rand bit for bit,
tl.randn within a stated tolerance (it goes through log, sqrt and cos, whose GPU
implementations differ). Prints a
table; exits 1 on any mismatch, 0 otherwise (and 0 with a SKIP line without a GPU,
PyTorch or Triton)."""
import argparse
import os
import re
import sys
import tempfile
import importlib.util

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

RANDN_TOL = 2e-5  # |nereid - triton| <= RANDN_TOL * (1 + |triton|)


def triton_kernels(text):
    """The .nr file's kernels for Triton: parameter annotations other than constexpr removed."""
    import triton  # noqa: F401
    def strip(m):
        params = [p.strip() for p in m.group(2).split(",")]
        out = []
        for p in params:
            name, _, ann = p.partition(":")
            out.append(p if "constexpr" in ann else name.strip())
        return "def %s(%s):" % (m.group(1), ", ".join(out))
    py = re.sub(r"def (\w+)\(([^)]*)\):", strip, text)
    path = os.path.join(tempfile.mkdtemp(prefix="nereid-parity-"), "philox_parity_triton.py")
    with open(path, "w") as f:
        f.write(py)
    spec = importlib.util.spec_from_file_location("philox_parity_triton", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=os.environ.get("NEREID_LIB") or os.path.join(ROOT, "build-gpu", "libnereid.so"))
    args = ap.parse_args()
    try:
        import torch
        import triton  # noqa: F401
        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA device")
    except Exception as e:  # noqa: BLE001
        print("SKIP: triton_parity needs a GPU, PyTorch and Triton (%s)" % e)
        return 0
    import bench as B
    nr = B.Nereid(args.lib)
    src_path = os.path.join(ROOT, "tests", "gpu", "philox_parity.nr")
    tk = triton_kernels(open(src_path).read())
    BLOCK, n = 256, 5000
    # (kernel, seed, first offset): rng32/rng64 are tl.randint4x, tl.rand, tl.randn on 32 and
    # 64-bit offsets; philox64 is tl.philox on 64-bit counters (its rand and randn columns
    # hold tl.uint_to_uniform_float of words 0 and 1: both bit-exact)
    cases = [("rng32", 0, 0), ("rng32", 123, 1000), ("rng32", -1, -3000), ("rng32", 0x123456789AB, 1 << 30),
             ("rng64", 0, 0), ("rng64", 123, 1 << 40), ("rng64", -7, -2500),
             ("rng64", 0x7FFFFFFFFFFFFFFF, (1 << 62) + 12345),
             ("philox64", 0, 0), ("philox64", -5, 1 << 50)]
    failures = 0
    print("%-9s %20s %20s %10s %10s %14s" % ("kernel", "seed", "first offset", "words", "rand", "randn max err"))
    for kname, seed, base in cases:
        wdt = torch.int64 if kname == "philox64" else torch.int32
        exact_randn = kname == "philox64"
        outs = {}
        for who in ("nereid", "triton"):
            words = torch.full((4 * n,), -1, dtype=wdt, device="cuda")
            rand = torch.full((n,), float("nan"), dtype=torch.float32, device="cuda")
            randn = torch.full((n,), float("nan"), dtype=torch.float32, device="cuda")
            grid = ((n + BLOCK - 1) // BLOCK,)
            if who == "nereid":
                k = nr.kernel("tests/gpu/philox_parity.nr", kname, {"BLOCK": BLOCK})
                base_arg = (B.NR_TYPE_I32 if kname == "rng32" else B.NR_TYPE_I64, base)
                nr.launcher(k, grid, [B.ptr(words.data_ptr()), B.ptr(rand.data_ptr()), B.ptr(randn.data_ptr()),
                                      B.i32(n), (B.NR_TYPE_I64, seed), base_arg])()
                nr.synchronize()
            else:
                fn = getattr(tk, kname)
                fn[grid](words, rand, randn, n, seed, base, BLOCK=BLOCK)
            torch.cuda.synchronize()
            outs[who] = (words, rand, randn)
        (wn, rn, nn), (wt, rt, nt) = outs["nereid"], outs["triton"]
        words_ok = torch.equal(wn, wt)
        rand_ok = torch.equal(rn.view(torch.int32), rt.view(torch.int32))
        err = ((nn - nt).abs() / (1 + nt.abs())).max().item()
        randn_ok = err == 0 if exact_randn else err <= RANDN_TOL
        bad = not (words_ok and rand_ok and randn_ok)
        failures += bad
        print("%-9s %20d %20d %10s %10s %14.2e%s" % (kname, seed, base, "bit-exact" if words_ok else "DIFFER",
                                                   "bit-exact" if rand_ok else "DIFFER", err, "  FAIL" if bad else ""))
        if bad:
            print("    nereid words %s\n    triton words %s" % ([hex(int(x) & (2**64 - 1)) for x in wn[:4].tolist()],
                                                               [hex(int(x) & (2**64 - 1)) for x in wt[:4].tolist()]))
    print("triton_parity: %d of %d cases match Triton (words and rand bit for bit, randn within %.0e)%s"
          % (len(cases) - failures, len(cases), RANDN_TOL, "" if not failures else ": FAILED"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
