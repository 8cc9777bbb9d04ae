#!/usr/bin/env python3
"""triton_suite.py: Triton's own language tests and tutorials, run unchanged through Triton
and through Nereid on the same GPU, compared honestly (tools/triton-suite.sh is the command;
shared/design/conformance.md says why each rule is there).

  fetch [--repo DIR] [--commit SHA]     Triton's test files and tutorials into
                                        third_party/triton-suite/ (git-ignored)
  tests --mode triton|nereid [--files F,...] [--max-params N] [--shard I[-J]/N] [--workers N] [--deadline S] [--out DIR]
                                        pytest over the language tests; a JSON report per run
                                        (--deadline: the session stopped after S seconds, the
                                        tests finished by then reported, the others not reached)
  tutorials --mode triton|nereid [--points N] [--out DIR]
                                        each tutorial as a program; outcome and do_bench times
  fetch-lib NAME [--repo DIR]           a kernel library's sources and its op-level tests
                                        (LIBRARIES below) into third_party/libsuite/ (git-ignored)
  libtests NAME --mode triton|nereid [--files F,...] [--max-params N] [--workers N] [--out DIR]
                                        pytest over the library's own tests, as for `tests`
  report [--out DIR]                    the table: per suite, passed under Triton, passed under
                                        Nereid, Nereid's failures by class; per tutorial,
                                        correct, and Nereid/Triton time

A test passes under Nereid only when it passed under Triton, launched at least one kernel
through Nereid and none through Triton; a skip, an error, a timeout or a test that never ran
is never a pass. Tests that assert on Triton's own IR or assembly text are counted apart."""
import argparse
import collections
import glob
import json
import os
import re
import runpy
import signal
import subprocess
import threading
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SUITE = os.path.join(ROOT, "third_party", "triton-suite")
COMMIT = "004d7f5f58c2299a714e20c214893d4907dc8509"  # "Advance version 3.5.0->3.6.0": the GPU machine's 3.6.0
MIRROR = "/work/.mirror/torch-spyre+triton/repo"    # GitHub's torch-spyre/triton, a mirror of triton-lang's history
LANGUAGE = ["test_core.py", "test_standard.py", "test_random.py", "test_libdevice.py", "test_block_pointer.py",
            "test_conversions.py", "test_tensor_descriptor.py", "test_matmul.py", "test_tuple.py"]
FETCHED = ["python/test/conftest.py", "python/test/unit/language", "python/tutorials"]
TUTORIALS = ["01-vector-add.py", "02-fused-softmax.py", "03-matrix-multiplication.py", "04-low-memory-dropout.py",
             "05-layer-norm.py", "06-fused-attention.py", "07-extern-functions.py", "08-grouped-gemm.py",
             "09-persistent-matmul.py", "11-programmatic-dependent-launch.py"]

LIBSUITE = os.path.join(ROOT, "third_party", "libsuite")
# Kernel libraries whose own tests run unchanged through both compilers. Each: where its
# history is (GitHub's repository, and the mirror here), the commit, the paths taken, what
# goes on PYTHONPATH (relative to the extracted tree), the folder of its op-level tests, and
# the test files left out with the reason (they test another back end or no kernel of ours).
LIBRARIES = {
    "liger": {
        "repo": "github.com/linkedin/Liger-Kernel",
        "mirror": "/work/.mirror/linkedin+Liger-Kernel/repo",
        "commit": "ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c",  # 2026-08-21, as third_party/corpus
        "paths": ["src/liger_kernel", "test/__init__.py", "test/conftest.py", "test/utils.py",
                  "test/transformers", "LICENSE"],
        "pythonpath": [".", "src"],
        "tests": "test/transformers",
        # CuTe DSL and cuTile back ends; whole-model patching and trainer runs (no op-level kernel test)
        "exclude": r"cutedsl|cutile|cute_|monkey_patch|trainer_integration|auto_model|test_transformers\.py",
    },
    "attorch": {
        "repo": "github.com/BobMcDear/attorch",
        "mirror": "/work/.mirror/BobMcDear+attorch/repo",
        "commit": "67c2772baf33913ef51c2d1064f746ca17b63749",
        "paths": ["attorch", "tests", "LICENSE"],
        "pythonpath": ["."],
        "tests": "tests",
        "pytest_args": ["--subset"],  # its own small set of shapes
        "exclude": r"^$",
    },
    "triton_kernels": {  # Triton's own library of kernels (MoE matmul, routing, top-k, swiglu, ...)
        "repo": "github.com/triton-lang/triton",
        "mirror": "/work/.mirror/torch-spyre+triton/repo",
        "commit": "004d7f5f58c2299a714e20c214893d4907dc8509",  # Triton 3.6.0's, as the language tests
        "paths": ["python/triton_kernels/triton_kernels", "python/triton_kernels/tests", "LICENSE"],
        "pythonpath": ["python/triton_kernels"],
        "tests": "python/triton_kernels/tests",
        # several GPUs; another back end's layouts
        "exclude": r"test_distributed",
    },
    "flaggems": {
        "repo": "github.com/FlagOpen/FlagGems",
        "mirror": "/work/.mirror/FlagOpen+FlagGems/repo",
        "commit": "532ff438c70343d7aec9becdabb76a71225a0553",  # as session 37's front-end run (bench/RESULTS.md)
        "paths": ["src/flag_gems", "tests", "pytest.ini", "LICENSE"],
        "pythonpath": ["src", "."],
        "tests": "tests",
        # its op tests take `--mode quick` (FlagGems' own reduced shapes: run_lib_tests passes it)
        "pytest_args": ["--mode", "quick"],
        "xdist": False,  # its conftest's report hooks assume one process
        "process_env": {"FLAGGEMS_CACHE_DIR": "{out}/flaggems-cache/{mode}-{part}"},
        "exclude": r"^$",
    },
}


def fetch(args):
    repo = args.repo or os.environ.get("TRITON_REPO") or MIRROR
    if not os.path.isdir(repo):
        sys.exit(f"no Triton repository at {repo}: `git clone https://github.com/torch-spyre/triton` (a mirror of "
                 f"triton-lang/triton's history) and give it with --repo or TRITON_REPO")
    dest = os.path.join(SUITE, args.commit[:12])
    os.makedirs(dest, exist_ok=True)
    git = ["git", "-C", repo] if os.path.isdir(os.path.join(repo, ".git")) else ["git", "--git-dir", repo]
    archive = subprocess.run(git + ["archive", args.commit] + FETCHED, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    with open(os.path.join(SUITE, "CURRENT"), "w") as f:
        f.write(args.commit[:12] + "\n")
    print(f"Triton's tests and tutorials at {args.commit[:12]} (from {repo}) are in {dest} (git-ignored)")


def suite_dir():
    try:
        with open(os.path.join(SUITE, "CURRENT")) as f:
            return os.path.join(SUITE, f.read().strip())
    except OSError:
        sys.exit(f"no fetched suite in {SUITE}: run `bash tools/triton-suite.sh fetch` first")


# ---- the language tests ----

def run_tests(args):
    base = suite_dir()
    lang = os.path.join(base, "python", "test", "unit", "language")
    files = [f for f in (args.files.split(",") if args.files else LANGUAGE)]
    run_pytest(args, os.path.join(base, "python", "test"), [(f, [os.path.join(lang, f)]) for f in files], [])


def run_pytest(args, rootdir, files, pythonpath, extra=(), xdist=True, process_env=None):
    """pytest over each (name, paths) of files from rootdir, one JSON report per name:
    OUT/MODE-NAME.json (the plugin's outcomes and launch counts) and its log."""
    process_env = process_env or {}
    os.makedirs(args.out, exist_ok=True)
    env = dict(os.environ, PYTHONUNBUFFERED="1", MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "tools")] + pythonpath + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    plugins = ["-p", "triton_suite_plugin"] + (["-p", "nereid.pytest_plugin"] if args.mode == "nereid" else [])
    for f, paths in files:
        report = os.path.join(args.out, f"{args.mode}-{f}.json")
        cmd = [sys.executable, "-m", "pytest", "-q", "-rN", "--no-header", "-p", "no:cacheprovider", *plugins,
               "--rootdir", rootdir, *paths, f"--suite-report={report}",
               f"--suite-max-params={args.max_params}", f"--suite-shard={args.shard}", f"--timeout={args.timeout}",
               *extra]
        # workers: pytest-xdist's, or (xdist=False: a conftest that cannot run under xdist)
        # as many pytest processes, each with its part of the tests (--suite-split)
        split = not xdist and args.workers > 1
        cmds = [cmd + ([f"--suite-split={k}/{args.workers}", f"--suite-report={report}.p{k}"] if split else [])
                for k in range(args.workers if split else 1)]
        if args.workers > 1 and xdist:
            cmds[0] += ["-n", str(args.workers)]
        t0 = time.time()
        for stale in glob.glob(report + "*"):
            os.remove(stale)
        # each process's own environment (process_env: a library's caches, which its
        # processes would otherwise share: FlagGems' sqlite tuning cache locks)
        envs = [dict(env, **{k: v.format(part=i, out=os.path.abspath(args.out), mode=args.mode)
                             for k, v in process_env.items()}) for i in range(len(cmds))]
        procs = [subprocess.Popen(c, cwd=rootdir, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  start_new_session=True) for c, e in zip(cmds, envs)]
        outs = [None] * len(procs)

        def drain(k):
            outs[k] = procs[k].communicate()[0]
        threads = [threading.Thread(target=drain, args=(k,)) for k in range(len(procs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=max(1, args.deadline - (time.time() - t0)) if args.deadline else None)
        out = ""
        if any(t.is_alive() for t in threads):  # the whole session, workers included; what finished still counts
            for p in procs:
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGKILL)
            for t in threads:
                t.join()
            out = f"\nstopped at the deadline ({args.deadline} s): tests not finished by then are not reported\n"
        out = "".join(f"==== pytest process {k}\n{o}" if len(outs) > 1 else o for k, o in enumerate(outs)) + out
        with open(os.path.join(args.out, f"{args.mode}-{f}.log"), "w") as log:
            log.write(out)
        merged = {}
        # each test's line as it finished, then the controller's and each worker's whole report
        parts = sorted(glob.glob(report + ".*.jsonl")) + sorted(
            q for q in glob.glob(report + "*") if not q.endswith(".jsonl"))
        for part in parts:
            with open(part) as fh:
                items = [json.loads(line) for line in fh if line.strip()] if part.endswith(".jsonl") else [
                    json.load(fh)]
            for d in items:
                for k, v in d.items():
                    merged.setdefault(k, {}).update(v)
            if part != report:
                os.remove(part)
        with open(report, "w") as fh:
            json.dump(merged, fh, indent=0, sort_keys=True)
        tail = (out.strip().splitlines() or ["(no output)"])[-1]
        print(f"{args.mode:6} {f:28} {len(merged):5} tests  {time.time() - t0:6.0f} s  {tail[:90]}", flush=True)


# ---- kernel libraries' own tests ----

def lib_dir(name):
    lib = LIBRARIES[name]
    return os.path.join(LIBSUITE, name, lib["commit"][:12])


def fetch_lib(args):
    lib = LIBRARIES[args.name]
    repo = args.repo or lib["mirror"]
    if not os.path.isdir(repo):
        sys.exit(f"no {args.name} repository at {repo}: `git clone --bare https://{lib['repo']}` and give it with "
                 f"--repo")
    dest = lib_dir(args.name)
    os.makedirs(dest, exist_ok=True)
    git = ["git", "-C", repo] if os.path.isdir(os.path.join(repo, ".git")) else ["git", "--git-dir", repo]
    archive = subprocess.run(git + ["archive", lib["commit"]] + lib["paths"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    print(f"{args.name} ({lib['repo']} at {lib['commit'][:12]}, from {repo}): its sources and tests are in {dest} "
          f"(git-ignored)")


def lib_files(name):
    lib = LIBRARIES[name]
    tdir = os.path.join(lib_dir(name), lib["tests"])
    if not os.path.isdir(tdir):
        sys.exit(f"no fetched {name} in {lib_dir(name)}: run `python3 tools/triton_suite.py fetch-lib {name}` first")
    return sorted(f for f in os.listdir(tdir) if re.fullmatch(r"test_.*\.py", f) and not re.search(lib["exclude"], f))


def run_lib_tests(args):
    lib = LIBRARIES[args.name]
    base = lib_dir(args.name)
    files = args.files.split(",") if args.files else lib_files(args.name)
    # one pytest over every file (a library's tests are many small files: a session each would
    # pay pytest-xdist's start, torch's import in every worker, many times over), its report
    # then split per file as the language tests' are
    name = f"{args.name}:all"
    run_pytest(args, base, [(name, [os.path.join(base, lib["tests"], f) for f in files])],
               [os.path.normpath(os.path.join(base, p)) for p in lib["pythonpath"]], lib.get("pytest_args", ()),
               lib.get("xdist", True), lib.get("process_env"))
    whole = os.path.join(args.out, f"{args.mode}-{name}.json")
    with open(whole) as fh:
        merged = json.load(fh)
    for f in files:
        part = {k: v for k, v in merged.items() if k.split("::")[0].endswith("/" + f) or k.split("::")[0] == f}
        with open(os.path.join(args.out, f"{args.mode}-{args.name}:{f}.json"), "w") as fh:
            json.dump(part, fh, indent=0, sort_keys=True)
    os.rename(whole, os.path.join(args.out, f"{args.mode}-{name}.json.all"))


# ---- the tutorials ----

def run_tutorial(args):
    """One tutorial as a program (this process): the drop-in first under --mode nereid, its
    benchmarks cut to their first --points points, each do_bench timing recorded."""
    if args.mode == "nereid":
        import nereid.dropin
        nereid.dropin.install()
    import triton.testing as tt
    current = {}
    records = []
    real_do_bench, real_perf_report = tt.do_bench, tt.perf_report

    def do_bench(fn, *a, **kw):
        r = real_do_bench(fn, *a, **kw)
        ms = r[0] if isinstance(r, (list, tuple)) else r
        records.append({"bench": current.get("name"), "args": {k: repr(v) for k, v in current.get("args", {}).items()},
                        "ms": float(ms)})
        return r

    def perf_report(benchmarks):
        bs = benchmarks if isinstance(benchmarks, list) else [benchmarks]
        for b in bs:
            b.x_vals = list(b.x_vals)[:args.points]

        def deco(fn):
            def wrapped(**kw):
                current["name"], current["args"] = getattr(fn, "__name__", "bench"), kw
                return fn(**kw)
            wrapped.__name__ = getattr(fn, "__name__", "bench")
            return real_perf_report(benchmarks)(wrapped)
        return deco

    tt.do_bench, tt.perf_report = do_bench, perf_report
    status, error = "ok", ""
    sys.argv = [args.tutorial]
    try:
        runpy.run_path(args.tutorial, run_name="__main__")
    except SystemExit as e:
        if e.code not in (0, None):
            status, error = "failed", f"exit {e.code}"
    except BaseException as e:  # the tutorial's own failure is the result
        status, error = "failed", f"{type(e).__name__}: {e}"[-3000:]
    try:
        import nereid
        launches = nereid._nereid.launch_count()
    except ImportError:
        launches = 0
    with open(args.record, "w") as f:
        json.dump({"status": status, "error": error, "records": records, "nereid_launches": launches}, f, indent=0)


def run_tutorials(args):
    base = suite_dir()
    tdir = os.path.join(base, "python", "tutorials")
    os.makedirs(args.out, exist_ok=True)
    env = dict(os.environ, PYTHONUNBUFFERED="1", MPLBACKEND="Agg")
    for t in args.only.split(",") if args.only else TUTORIALS:
        path = os.path.join(tdir, t)
        record = os.path.join(args.out, f"{args.mode}-{t}.json")
        cmd = [sys.executable, os.path.abspath(__file__), "tutorial", "--mode", args.mode, "--points", str(args.points),
               "--record", record, path]
        t0 = time.time()
        try:
            r = subprocess.run(cmd, cwd=tdir, env=env, capture_output=True, text=True, timeout=args.timeout)
            out = r.stdout + r.stderr
        except subprocess.TimeoutExpired as e:
            out = f"TIMEOUT after {args.timeout} s\n{e.stdout or ''}"
            with open(record, "w") as f:
                json.dump({"status": "timeout", "error": f"timeout {args.timeout} s", "records": []}, f)
        with open(os.path.join(args.out, f"{args.mode}-{t}.log"), "w") as log:
            log.write(out)
        wrong = "❌" in out
        if wrong and os.path.exists(record):
            with open(record) as f:
                rec = json.load(f)
            rec["status"], rec["error"] = "wrong", "the tutorial printed ❌ (its own check)"
            with open(record, "w") as f:
                json.dump(rec, f)
        print(f"{args.mode:6} {t:38} {time.time() - t0:6.0f} s", flush=True)


# ---- the report ----

CLASSES = [  # (class, pattern over the failure's text), first match wins
    ("Triton's IR or assembly text", r"\.asm\[|asm\[\"(ttir|ttgir|llir|ptx|cubin|amdgcn)|ttgir|ttir|\.ttgir|llir"),
    ("does not import", r"(ImportError|ModuleNotFoundError)"),
    ("compile error", r"(CompileError|CompilationError|error: )"),
    ("Triton-internal API", r"(AttributeError|has no attribute|object is not subscriptable)"),
    ("wrong exception or none", r"(DID NOT RAISE|Failed: DID NOT|pytest\.raises|Expected exception)"),
    ("launch or argument refused", r"(TypeError|ValueError|LaunchError|unexpected keyword)"),
    ("wrong result", r"(AssertionError|assert_allclose|Mismatched elements|Not equal|assert )"),
    ("timeout", r"(Timeout|timed out)"),
]


def classify(text):
    for name, pat in CLASSES:
        if re.search(pat, text or ""):
            return name
    return "other"


def first_error(text):
    for line in (text or "").splitlines():
        if re.search(r"\berror: |Error: |Error\b.*:", line):
            return line.strip()[:160]
    return (text or "").strip().splitlines()[-1][:160] if text else ""


def report(args):
    out = args.out
    lines = []
    totals = collections.Counter()
    classes_all = collections.Counter()
    libs = sorted(os.path.basename(p)[len("triton-"):-len(".json")] for p in glob.glob(os.path.join(out, "triton-*:*.json")))
    for f in LANGUAGE + libs:
        tri, ner = os.path.join(out, f"triton-{f}.json"), os.path.join(out, f"nereid-{f}.json")
        if not (os.path.exists(tri) and os.path.exists(ner)):
            continue
        with open(tri) as fh:
            t = json.load(fh)
        with open(ner) as fh:
            n = json.load(fh)
        base = {k for k, v in t.items() if v.get("outcome") == "passed" and v.get("triton_launches", 0) > 0}
        asm = {k for k in base if re.search(CLASSES[0][1], json.dumps(n.get(k, {})))}
        passed = {k for k in base if n.get(k, {}).get("outcome") == "passed" and n[k].get("nereid_launches", 0) > 0
                  and n[k].get("triton_launches", 0) == 0}
        cls = collections.Counter()
        examples = {}
        for k in sorted(base - passed):
            e = n.get(k)
            if e is None:
                c = "not reached"
            elif e.get("outcome") == "passed":
                c = "passed without a Nereid launch" if not e.get("nereid_launches") else "launched a Triton kernel"
            elif e.get("outcome") == "skipped":
                c = "skipped under Nereid"
            else:
                c = classify(e.get("error", ""))
            cls[c] += 1
            examples.setdefault(c, (k, first_error(e.get("error", "")) if e else ""))
        counted = len(base) - len(asm - passed)
        totals["triton"] += len(base)
        totals["nereid"] += len(passed)
        totals["counted"] += counted
        classes_all.update(cls)
        lines.append(f"| {f} | {len(t)} | {len(base)} | {len(passed)} | {100 * len(passed) / max(1, counted):.1f}% "
                     f"| " + ", ".join(f"{c}: {m}" for c, m in cls.most_common()) + " |")
        if args.verbose:
            for c, (k, why) in examples.items():
                lines.append(f"|   | e.g. {c} | {k.split('::')[-1][:60]} | {why[:100]} | | |")
    print("| file | tests run | passed under Triton (launching) | passed under Nereid | of those not asserting on "
          "Triton's IR | Nereid's failures by class |")
    print("|---|---|---|---|---|---|")
    print("\n".join(lines))
    if totals["triton"]:
        print(f"| all | | {totals['triton']} | {totals['nereid']} | "
              f"{100 * totals['nereid'] / max(1, totals['counted']):.1f}% | "
              + ", ".join(f"{c}: {m}" for c, m in classes_all.most_common()) + " |")
    tut = []
    for t in TUTORIALS:
        tri, ner = os.path.join(out, f"triton-{t}.json"), os.path.join(out, f"nereid-{t}.json")
        if not (os.path.exists(tri) and os.path.exists(ner)):
            continue
        with open(tri) as fh:
            a = json.load(fh)
        with open(ner) as fh:
            b = json.load(fh)
        ta = {(r["bench"], json.dumps(r["args"], sort_keys=True)): r["ms"] for r in a["records"]}
        ratios = []
        for r in b["records"]:
            key = (r["bench"], json.dumps(r["args"], sort_keys=True))
            prov = json.dumps(r["args"]).lower()
            if key in ta and "triton" in prov and r["ms"] > 0:
                ratios.append(ta[key] / r["ms"])
        speed = (f"{min(ratios):.2f}-{max(ratios):.2f}" if len(ratios) > 1 else f"{ratios[0]:.2f}") if ratios else "-"
        ok = b["status"] == "ok" and b.get("nereid_launches", 0) > 0
        why = "" if ok else (b.get("error") or "no Nereid launch")[:120]
        tut.append(f"| {t} | {a['status']} | {'correct' if ok else b['status']} | {speed} | {why} |")
    if tut:
        print()
        print("| tutorial | under Triton | under Nereid | Triton time / Nereid time (do_bench, its kernel's rows) "
              "| why not |")
        print("|---|---|---|---|---|")
        print("\n".join(tut))


def shard_arg(text):
    m = re.fullmatch(r"(\d+)(?:-(\d+))?/(\d+)", text)
    if not m:
        raise argparse.ArgumentTypeError(f"--shard wants I/N or I-J/N, got {text!r}")
    i, j, n = int(m[1]), int(m[2] or m[1]), int(m[3])
    if not 0 <= i <= j < n:
        raise argparse.ArgumentTypeError(f"--shard {text}: want 0 <= I <= J < N")
    return f"{i}/{n}" if i == j else f"{i}-{j}/{n}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch")
    f.add_argument("--repo")
    f.add_argument("--commit", default=COMMIT)
    def pytest_options(sp):  # what run_pytest reads, the same for both kinds of suite
        sp.add_argument("--mode", choices=["triton", "nereid"], required=True)
        sp.add_argument("--files")
        sp.add_argument("--max-params", type=int, default=0,
                        help="at most this many parametrisations per test (0: all)")
        sp.add_argument("--shard", default="0/1", type=shard_arg,
                        help="I/N: of each test's parametrisations, those whose index is I modulo N")
        sp.add_argument("--workers", type=int, default=os.cpu_count() or 1)
        sp.add_argument("--timeout", type=int, default=300)
        sp.add_argument("--deadline", type=int, default=0, help="stop each pytest session after this many seconds")
        sp.add_argument("--out", default="/tmp/triton-suite")

    pytest_options(sub.add_parser("tests"))
    fl = sub.add_parser("fetch-lib")
    fl.add_argument("name", choices=sorted(LIBRARIES))
    fl.add_argument("--repo")
    lt = sub.add_parser("libtests")
    lt.add_argument("name", choices=sorted(LIBRARIES))
    pytest_options(lt)
    u = sub.add_parser("tutorials")
    u.add_argument("--mode", choices=["triton", "nereid"], required=True)
    u.add_argument("--points", type=int, default=1)
    u.add_argument("--only")
    u.add_argument("--timeout", type=int, default=300)
    u.add_argument("--out", default="/tmp/triton-suite")
    one = sub.add_parser("tutorial")
    one.add_argument("--mode", choices=["triton", "nereid"], required=True)
    one.add_argument("--points", type=int, default=1)
    one.add_argument("--record", required=True)
    one.add_argument("tutorial")
    r = sub.add_parser("report")
    r.add_argument("--out", default="/tmp/triton-suite")
    r.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    {"fetch": fetch, "tests": run_tests, "fetch-lib": fetch_lib, "libtests": run_lib_tests, "tutorials": run_tutorials, "tutorial": run_tutorial, "report": report}[
        args.cmd](args)


if __name__ == "__main__":
    main()
