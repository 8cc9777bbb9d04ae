#!/usr/bin/env python3
"""ptx-snapshot.py BUILD OUTDIR - the PTX of every kernel the project compiles for the GPU,
one file per (command, architecture), so that a refactor can show its PTX byte-identical:

    python3 tools/ptx-snapshot.py build /tmp/before     # on the old tree
    python3 tools/ptx-snapshot.py build /tmp/after      # on the new tree
    diff -r /tmp/before /tmp/after && echo identical

The kernels: every `nereid compile` of the lit tests (tests/lit, %nereid and %examples
substituted), the kernels of the GPU tests (test_gpu_vs_cpu, test_gpu_dot, test_gpu_tdesc,
their --dump scripts: the benchmark's matmul configurations are among them), the kernels of
tests/gpu/tl_parity.py as @nereid.jit types them (when BUILD/python exists), and the .nr
files of bench/ and tests/gpu/ with the sizes their programs use. Each is compiled for
sm_80 and sm_90a with --emit=ptx, whatever architecture and output the original command
named. A file is named by a hash of the command (with the binary's path taken out), so the
same command on two trees writes the same name; OUTDIR/commands.txt maps names to
commands, OUTDIR/failed.txt lists commands that failed (their diagnostics are compared
too, in OUTDIR/NAME.err)."""
import concurrent.futures
import hashlib
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PY = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
ARCHS = ("sm_80", "sm_90a")

# the bench/ and tests/gpu/ kernel files no lit test compiles, as their programs compile them
EXTRA = [
    "bench/matmul_tdesc.nr -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 "
    "--num-warps=8",
    "bench/matmul_persistent.nr -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 "
    "-D ACTIVATION= -D NUM_PROGRAMS=132 --num-warps=8",
    "bench/dropout4x.nr -D BLOCK=1024",
    "tests/gpu/philox_parity.nr -D BLOCK=256",
    "tests/gpu/aot_kernels.nr -D BLOCK=256",
]

# options whose value follows as the next word, and those that take no value
VALUE_OPTS = {"-D", "-k", "-o"}
DROP_FLAGS = ("--emit=", "--arch=", "-o", "--print-after-all", "--strict-ptxas", "--time", "--llvm-passes=")


def split_commands(text):
    """The `nereid compile ...` commands in a shell text (RUN lines joined)."""
    out = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        lex = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
        lex.whitespace_split = True
        try:
            tokens = list(lex)
        except ValueError:
            continue
        cmd = []
        for t in tokens + [";"]:
            if t and set(t) <= set(";&|<>()"):
                if len(cmd) > 2 and (cmd[0] in ("%nereid", "$N") or cmd[0].endswith("/nereid")) and cmd[1] == "compile":
                    out.append(cmd[2:])
                cmd = []
            else:
                cmd.append(t)
    return out


def normalise(args):
    """The compile's own arguments: the file, defines, kernel, warps, stages, facts; output
    and architecture options dropped (the snapshot sets them)."""
    keep, i = [], 0
    while i < len(args):
        a = args[i]
        if a == "-o" or a in ("$STRICT", "$EMIT"):
            i += 2 if a == "-o" else 1
            continue
        if any(a == d or (d.endswith("=") and a.startswith(d)) for d in DROP_FLAGS):
            i += 1
            continue
        if a in VALUE_OPTS and i + 1 < len(args):
            keep += [a, args[i + 1]]
            i += 2
            continue
        keep.append(a)
        i += 1
    return keep


def lit_commands():
    cmds = []
    for dp, _, files in os.walk(os.path.join(ROOT, "tests", "lit")):
        for f in sorted(files):
            path = os.path.join(dp, f)
            try:
                lines = open(path, errors="replace").read().splitlines()
            except OSError:
                continue
            run, joined = [], ""
            for line in lines:
                if "RUN:" not in line:
                    continue
                body = line.split("RUN:", 1)[1].strip()
                if body.endswith("\\"):
                    joined += body[:-1] + " "
                    continue
                run.append(joined + body)
                joined = ""
            for r in run:
                if "%nereid compile" not in r or "not %nereid" in r:
                    continue
                r = r.replace("%examples", os.path.join(ROOT, "examples")).replace("%s", path)
                r = r.replace("%S", dp).replace("%p", dp)
                if "%t" in r or "$arch" in r or "$" in r.replace("$arch", ""):
                    r = r.replace("$arch", "sm_80")
                for c in split_commands(r):
                    if c and not any("%t" in w or "%{" in w for w in c):
                        cmds.append(c)
    return cmds


def dump_commands(build):
    cmds = []
    with tempfile.TemporaryDirectory() as tmp:
        for t in ("test_gpu_vs_cpu", "test_gpu_dot", "test_gpu_tdesc"):
            exe = os.path.join(build, "gpu-tests", t)
            if not os.access(exe, os.X_OK):
                continue
            d = os.path.join(tmp, t)
            os.makedirs(d)
            subprocess.run([exe, "--cpu-vs-cpu", "--dump", d], cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            script = os.path.join(d, "compile.sh")
            if os.path.exists(script):
                cmds += [(c, d) for c in split_commands(open(script).read())]
        if os.path.isdir(os.path.join(build, "python")):
            d = os.path.join(tmp, "tl_parity")
            os.makedirs(d)
            env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
            subprocess.run([PY, "tests/gpu/tl_parity.py", "--dump", d], cwd=ROOT, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            script = os.path.join(d, "compile.sh")
            if os.path.exists(script):
                cmds += [(c, d) for c in split_commands(open(script).read())]
        # the dumped sources live in tmp: read them now, so the commands compile text
        out = []
        for c, d in cmds:
            src = []
            for w in c:
                q = w if os.path.isabs(w) else os.path.join(d, w)
                if w.endswith(".nr") and q.startswith(d + os.sep) and os.path.exists(q):
                    src.append(("@file", open(q).read(), w))
                else:
                    src.append(w)
            out.append(src)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    build, outdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    nereid = os.path.join(build, "nereid")
    os.makedirs(outdir, exist_ok=True)
    srcdir = os.path.join(outdir, "_sources")
    os.makedirs(srcdir, exist_ok=True)
    jobs = {}
    for c in [c for c in lit_commands()] + dump_commands(build) + [shlex.split(e) for e in EXTRA]:
        words = []
        for w in c:
            if isinstance(w, tuple):  # a dumped kernel's source: kept under its content's hash
                h = hashlib.sha256(w[1].encode()).hexdigest()[:16]
                p = os.path.join(srcdir, h + "_" + os.path.basename(w[2]))
                with open(p, "w") as f:
                    f.write(w[1])
                words.append(p)
            else:
                words.append(w)
        words = normalise(words)
        for arch in ARCHS:
            key = " ".join(shlex.quote(w.replace(outdir, "OUT").replace(ROOT, ".")) for w in words) + " @" + arch
            name = hashlib.sha256(key.encode()).hexdigest()[:20]
            jobs[name] = (key, [nereid, "compile"] + words + ["--emit=ptx", "--arch=" + arch])

    def run(item):
        name, (key, argv) = item
        r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
        if r.returncode == 0:
            with open(os.path.join(outdir, name + ".ptx"), "w") as f:
                f.write(r.stdout)
            return name, key, True
        with open(os.path.join(outdir, name + ".err"), "w") as f:
            f.write(r.stderr.replace(ROOT, "."))
        return name, key, False

    failed = []
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        results = list(ex.map(run, sorted(jobs.items())))
    with open(os.path.join(outdir, "commands.txt"), "w") as f:
        for name, key, ok in results:
            f.write(f"{name} {key}\n")
            if not ok:
                failed.append(f"{name} {key}")
    with open(os.path.join(outdir, "failed.txt"), "w") as f:
        f.write("\n".join(failed) + ("\n" if failed else ""))
    print(f"{len(results)} compiles: {len(results) - len(failed)} PTX files, {len(failed)} failed (failed.txt)")


if __name__ == "__main__":
    main()
