#!/usr/bin/env python3
"""codegen-roundtrip.py BUILD [--limit N] - the code generator tested from GPU IR as text:
for every kernel tools/ptx-snapshot.py knows (the lit tests' compiles, the GPU tests'
kernels, bench/), the PTX of

    nereid compile K.nr ... --emit=ptx
and
    nereid compile K.nr ... --emit=gpu-ir -o K.nrir;  nereid opt K.nrir --emit=ptx

must be the same bytes: the GPU-stage IR the printer writes holds everything code
generation reads (layouts, buffers and their shared-memory places, barriers), the parser
reads it back whole, and `nereid opt --emit` drives the code generator as the GPU
pipeline does. Each kernel runs under two sets of facts that both tools can state: for
sm_80, nothing known (compile --no-align, opt's default divisibility 1); for sm_90a,
everything 16-divisible (compile with every integer parameter --divisible, opt
--param-divisibility=16), where vector accesses, cp.async and TMA are chosen. String
constants are compared by name only (a device_assert's message names the file the IR was
read from), and kernels that call __assertfail are left out (it passes the source line,
which the IR text does not carry). Exit 1 and a list of the kernels whose PTX differs (or that one tool compiles
and the other does not)."""
import concurrent.futures
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("ptx_snapshot", os.path.join(HERE, "ptx-snapshot.py"))
snap = importlib.util.module_from_spec(spec)
spec.loader.exec_module(snap)
ROOT = snap.ROOT

FACT_OPTS = ("--divisible=", "--one=", "--zero=", "--no-align")
# the bytes of string constants (a failed device_assert's message names its source file:
# the .nr file on one side, the .nrir file on the other) are left out of the comparison
STRING = re.compile(r"^(\.global \.align 1 \.b8 __unnamed_\d+)\[\d+\] = \{[0-9, ]*\}", re.M)
INT_PARAM = re.compile(r'%\d+: (?:i|u)(?:8|16|32|64) "([A-Za-z_][A-Za-z_0-9]*)"')


def run(argv):
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def check(nereid, words, tmp, idx):
    """None when both ways give the same PTX for both fact sets (or neither compiles),
    else a description of the difference."""
    words = [w for w in words if not w.startswith(FACT_OPTS)]
    for arch, aligned in (("sm_80", False), ("sm_90a", True)):
        base = [nereid, "compile"] + words + ["--arch=" + arch]
        facts = [] if aligned else ["--no-align"]
        nrir = os.path.join(tmp, f"{idx}-{arch}.nrir")
        rc, _, _ = run(base + facts + ["--emit=gpu-ir", "-o", nrir])
        if rc != 0:
            continue  # an error case of the lit tests: nothing to compare
        if aligned:
            text = open(nrir).read()
            ints = sorted(set(INT_PARAM.findall(text)))
            if ints:
                facts = ["--divisible=" + ",".join(ints)]
                rc, _, _ = run(base + facts + ["--emit=gpu-ir", "-o", nrir])
                if rc != 0:
                    return f"@{arch}: --emit=gpu-ir fails with {facts[0]}"
        rc1, ptx1, err1 = run(base + facts + ["--emit=ptx"])
        if "__assertfail" in ptx1:
            continue  # a failed assert reports its source line, which the IR text does not carry
        lib = [w for w in words if w.startswith(("--libdevice=", "--maxnreg=", "--enable-fp-fusion=",
                                                  "--enable-reflect-ftz="))]
        rc2, ptx2, err2 = run([nereid, "opt", nrir, "--emit=ptx", "--param-divisibility=" + ("16" if aligned else "1")] + lib)
        ptx1, ptx2 = STRING.sub(r"\1{...}", ptx1), STRING.sub(r"\1{...}", ptx2)
        if rc1 != 0 or rc2 != 0:
            return f"@{arch}: compile exit {rc1}, opt exit {rc2}: {(err1 or err2).strip()[:300]}"
        if ptx1 != ptx2:
            lines1, lines2 = ptx1.splitlines(), ptx2.splitlines()
            first = next((i for i, (a, b) in enumerate(zip(lines1, lines2)) if a != b), min(len(lines1), len(lines2)))
            return (f"@{arch}: PTX differs at line {first + 1}: "
                    f"{lines1[first] if first < len(lines1) else '<end>'!r} vs "
                    f"{lines2[first] if first < len(lines2) else '<end>'!r}")
    return None


def main():
    args = [a for a in sys.argv[1:]]
    limit = None
    if "--limit" in args:
        i = args.index("--limit")
        limit = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    build = os.path.abspath(args[0])
    nereid = os.path.join(build, "nereid")
    with tempfile.TemporaryDirectory() as tmp:
        srcdir = os.path.join(tmp, "src")
        os.makedirs(srcdir)
        cmds, seen = [], set()
        for c in snap.lit_commands() + snap.dump_commands(build) + [e.split() for e in snap.EXTRA]:
            words = []
            for w in c:
                if isinstance(w, tuple):
                    p = os.path.join(srcdir, f"{len(cmds)}_{os.path.basename(w[2])}")
                    with open(p, "w") as f:
                        f.write(w[1])
                    words.append(p)
                else:
                    words.append(w)
            words = snap.normalise(words)
            key = " ".join(words if not any(w.startswith(srcdir) for w in words) else
                           [open(w).read() if w.startswith(srcdir) else w for w in words])
            if key in seen:
                continue
            seen.add(key)
            cmds.append(words)
        if limit:
            cmds = cmds[:limit]
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
            results = list(ex.map(lambda iw: (iw[1], check(nereid, iw[1], tmp, iw[0])), enumerate(cmds)))
    bad = [(w, why) for w, why in results if why]
    for w, why in bad:
        print("DIFFERS: " + " ".join(x.replace(ROOT + "/", "") for x in w) + " " + why)
    print(f"codegen-roundtrip: {len(results)} kernels, {len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
