#!/usr/bin/env python3
"""corpus.py: other people's Triton kernels, unchanged, through Triton and through Nereid
(issue 23, items 2 and 3). bench/README.md says how to run it and what each number means.

  fetch [--only KEYS] [--mirrors DIR] [--repo OWNER/NAME=DIR]
        the sources (SOURCES below) into third_party/corpus/ (git-ignored), at their commits
  run [--only PATTERNS] [--rounds N] [--out DIR] [--write-specs FILE]
        the GPU machine (torch, Triton 3.6, a GPU): each case's launcher once under Triton and
        once under Nereid in one process (two module objects per source file), outputs
        compared, do_bench medians interleaved, registers and spills, compile times, launch
        counts; the markdown table with the geometric mean last, JSON under --out
  compile-only [--only PATTERNS] [--runs N] [--specs FILE] [--out DIR] [--ptxas] [--save-ptx DIR]
        any machine with build/ (no GPU, no torch, no Triton): each corpus kernel compiled by
        Nereid, source to PTX for sm_90a with the case's specialisation, through the same
        entry point a launch uses (JITFunction.warmup on the stand-in driver
        tests/mock/cuda_mock.c), RUNS times in one process on a fresh disk cache; the table;
        --ptxas adds what ptxas -v makes of each PTX (registers, spill bytes) and the PTX's
        global loads by form (cp.async copies, vector and scalar ld.global), to see code
        quality without a GPU
  list  the cases and their kernels

Nothing here is copied from the corpus: cases name the authors' launchers and build inputs
at the shapes the authors' own benchmarks use (each case says where its shape comes from).
"""
import argparse
import ast
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import types

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CORPUS = os.environ.get("NEREID_CORPUS_DIR") or os.path.join(ROOT, "third_party", "corpus")
SPECS = os.path.join(ROOT, "bench", "corpus-specs.json")  # launches recorded on the GPU (run --write-specs)


# ---------------------------------------------------------------- the sources

class Source:
    def __init__(self, repo, commit, paths, why):
        self.repo, self.commit, self.paths, self.why = repo, commit, paths, why


# Triton's release points are version-bump commits of the mirror's main history, found with
#   git log -G '(version|__version__) *= *"[0-9]' -- python/setup.py python/triton/__init__.py
# the commit that set main's version to the release's number (the convention
# shared/design/conformance.md uses for 3.6.0). All three predate tl.assume in the tutorials.
SOURCES = {
    "triton-3.6": Source("torch-spyre/triton", "004d7f5f58c2299a714e20c214893d4907dc8509", ["python/tutorials", "LICENSE"],
                         "Advance version 3.5.0->3.6.0 (2025-11-25): the GPU machine's Triton 3.6.0"),
    "triton-3.0": Source("torch-spyre/triton", "764d4432cf422ea24f5e2942fa480270568be9bc", ["python/tutorials", "LICENSE"],
                         "update triton version to 3.0.0 (2024-01-17)"),
    "triton-2.1": Source("torch-spyre/triton", "c7581c9a91a85b1a917f2c7a93d5ca5e5e1a81dd", ["python/tutorials", "LICENSE"],
                         "bump dev version to 2.1.0 (2023-03-02)"),
    "liger": Source("linkedin/Liger-Kernel", "ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c",
                    ["src/liger_kernel", "benchmark/scripts", "LICENSE"],
                    "LLM-training kernels (RMSNorm, LayerNorm, SwiGLU, GeGLU, RoPE, cross entropy); its "
                    "benchmark/scripts give the shapes"),
    "mamba": Source("state-spaces/mamba", "e9594ce1c732d97440f0332fdc43170a2294dbfa",
                    ["mamba_ssm/ops/triton", "mamba_ssm/utils", "LICENSE"],
                    "Mamba's Triton kernels (the selective-state update of decoding, LayerNorm/RMSNorm)"),
}
# packages imported from the corpus: top-level name -> (source key, folder holding it)
PACKAGES = {"liger_kernel": ("liger", "src"), "mamba_ssm": ("mamba", "")}


def _git(gitdir):
    return ["git", "-C", gitdir] if os.path.isdir(os.path.join(gitdir, ".git")) else ["git", "--git-dir", gitdir]


def fetch(args):
    mirrors = args.mirrors or os.environ.get("CORPUS_MIRRORS") or "/work/.mirror"
    override = dict(r.split("=", 1) for r in args.repo)
    keys = args.only.split(",") if args.only else list(SOURCES)
    manifest_path = os.path.join(CORPUS, "MANIFEST.json")
    manifest = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    for key in keys:
        s = SOURCES[key]
        gitdir = override.get(s.repo) or os.path.join(mirrors, s.repo.replace("/", "+"), "repo")
        if not os.path.isdir(gitdir):
            sys.exit(f"fetch-corpus: no git repository for {s.repo} at {gitdir}: clone it "
                     f"(`git clone --bare https://github.com/{s.repo} DIR`) and give --repo {s.repo}=DIR")
        git = _git(gitdir)
        info = subprocess.run(git + ["show", "-s", "--format=%H%n%ad%n%s", "--date=short", s.commit],
                              capture_output=True, text=True, check=True).stdout.splitlines()
        dest = os.path.join(CORPUS, key)
        subprocess.run(["rm", "-rf", dest], check=True)
        os.makedirs(dest)
        archive = subprocess.run(git + ["archive", s.commit] + s.paths, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
        manifest[key] = {"repo": f"github.com/{s.repo}", "commit": info[0], "date": info[1], "subject": info[2],
                         "paths": s.paths, "why": s.why, "from": gitdir}
        n = sum(len(files) for _, _, files in os.walk(dest))
        print(f"{key:11} {s.repo} @ {info[0][:12]} ({info[1]}, {info[2][:60]}): {n} files in {dest}")
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    print(f"recorded in {manifest_path}")


def manifest():
    try:
        with open(os.path.join(CORPUS, "MANIFEST.json")) as f:
            return json.load(f)
    except OSError:
        return {}


# ---------------------------------------------------------------- loading the authors' modules
#
# A library module (liger_kernel.ops.rms_norm) is imported as Python imports it, but its
# packages' __init__ files are not run (packages are bare: `liger_kernel.ops`' __init__
# imports every operator of the library, which a case does not need and which would make
# every case fail with any one module). A tutorial is a script: loading it as a library
# runs its imports, definitions and plain assignments, and leaves out what a script does
# (calls of its functions that launch kernels, bare calls and prints, loops, `if __name__ ==
# "__main__"`).
# In static mode (compile-only, no torch and no Triton) every statement runs on its own and
# one that fails is skipped; a kernel whose other decorators fail keeps its @triton.jit.

_FUTURE = {"annotations": 0x1000000}  # __future__.annotations.compiler_flag


def _launchers(tree):
    """The script's functions that launch kernels: their bodies index-call something
    (`kernel[grid](...)`), warm a kernel up, or call another such function."""
    defs = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
    calls = {}
    out = set()
    for name, d in defs.items():
        calls[name] = set()
        for n in ast.walk(d):
            if isinstance(n, ast.Call):
                if isinstance(n.func, ast.Subscript) or (isinstance(n.func, ast.Attribute) and n.func.attr in
                                                         ("warmup", "run", "apply")):
                    out.add(name)
                elif isinstance(n.func, ast.Name) and n.func.id in defs:
                    calls[name].add(n.func.id)
    grew = True
    while grew:
        grew = False
        for name, cs in calls.items():
            if name not in out and cs & out:
                out.add(name)
                grew = True
    return out


def _calls_own(node, own):
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            while isinstance(f, ast.Attribute):
                f = f.value
            if isinstance(f, ast.Name) and f.id in own:
                return True
    return False


def _definitional(stmts):
    ok = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.ClassDef, ast.Pass)
    for s in stmts:
        if isinstance(s, ast.If) and _definitional(s.body) and _definitional(s.orelse):
            continue
        if isinstance(s, ast.Try) and _definitional(s.body) and all(_definitional(h.body) for h in s.handlers):
            continue
        if not isinstance(s, ok):
            return False
    return True


def _is_main_guard(s):
    return isinstance(s, ast.If) and "__main__" in ast.unparse(s.test)


def _jit_only(fdef):
    return [d for d in fdef.decorator_list if re.search(r"(^|\.)jit\b", ast.unparse(d))]


def exec_source(ns, src, path, script, static):
    """Runs a module's text in ns; returns the statements left out or failed [(line, why)]."""
    if not script and not static:
        exec(compile(src, path, "exec", dont_inherit=True), ns)
        return []
    tree = ast.parse(src, path)
    flags = 0
    for s in tree.body:
        if isinstance(s, ast.ImportFrom) and s.module == "__future__":
            for a in s.names:
                flags |= _FUTURE.get(a.name, 0)
    launchers, skipped = _launchers(tree) | {s.name for s in tree.body if isinstance(s, ast.ClassDef)}, []
    for s in tree.body:
        if script:
            why = None
            if _is_main_guard(s):
                why = "the script's main"
            elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and _calls_own(s.value, launchers):
                why = "a call of the script's own launcher"
            elif isinstance(s, (ast.If, ast.Try)) and not _definitional([s]):
                why = "script work"
            elif not isinstance(s, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign,
                                    ast.AnnAssign, ast.AugAssign, ast.If, ast.Try)):
                why = "script work"
            if why:
                skipped.append((s.lineno, why))
                continue
        try:
            exec(compile(ast.Module([s], []), path, "exec", flags=flags, dont_inherit=True), ns)
        except Exception as e:
            if not static:
                skipped.append((s.lineno, f"{type(e).__name__}: {e}"))
                continue
            if isinstance(s, ast.FunctionDef) and _jit_only(s) and _jit_only(s) != s.decorator_list:
                s.decorator_list = _jit_only(s)
                try:
                    exec(compile(ast.Module([s], []), path, "exec", flags=flags, dont_inherit=True), ns)
                    continue
                except Exception as e2:
                    e = e2
            skipped.append((s.lineno, f"{type(e).__name__}: {str(e)[:120]}"))
    return skipped


class _BarePackage(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        pass


class _Module(importlib.abc.Loader):
    def __init__(self, path, static):
        self.path, self.static = path, static

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        with open(self.path, encoding="utf-8") as f:
            src = f.read()
        module.__corpus_skipped__ = exec_source(module.__dict__, src, self.path, False, self.static)


class CorpusFinder(importlib.abc.MetaPathFinder):
    """Imports the corpus' packages (PACKAGES) from third_party/corpus, bare (no __init__)."""

    def __init__(self, static):
        self.static = static

    def find_spec(self, name, path=None, target=None):
        parts = name.split(".")
        if parts[0] not in PACKAGES:
            return None
        key, sub = PACKAGES[parts[0]]
        p = os.path.join(CORPUS, key, sub, *parts)
        if os.path.isdir(p):
            spec = importlib.machinery.ModuleSpec(name, _BarePackage(), is_package=True)
            spec.submodule_search_locations = [p]
            return spec
        if os.path.isfile(p + ".py"):
            return importlib.util.spec_from_file_location(name, p + ".py", loader=_Module(p + ".py", self.static))
        return None


_finder = None


def install_finder(static):
    global _finder
    if _finder is None:
        _finder = CorpusFinder(static)
        sys.meta_path.insert(0, _finder)


def purge():
    """Forgets every corpus module, so the next load makes new module objects."""
    for name in list(sys.modules):
        if name.split(".")[0] in PACKAGES or name.startswith("corpus_"):
            del sys.modules[name]


def load(src_key, file, static=False, tag=""):
    """The module of a case: a dotted name (a library module) or a script's path in SOURCES[src_key]."""
    install_finder(static)
    if not file.endswith(".py"):
        return importlib.import_module(file)
    path = os.path.join(CORPUS, src_key, file)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: run `bash tools/fetch-corpus.sh` first")
    name = "corpus_" + re.sub(r"\W", "_", f"{tag}{src_key}_{os.path.basename(file)[:-3]}")
    if name in sys.modules:
        return sys.modules[name]
    mod = types.ModuleType(name)
    mod.__file__ = path
    sys.modules[name] = mod
    with open(path, encoding="utf-8") as f:
        mod.__corpus_skipped__ = exec_source(mod.__dict__, f.read(), path, True, static)
    return mod


# ---------------------------------------------------------------- the cases
#
# A case: one author's launcher, called unchanged, on inputs built here at a shape the
# author's own benchmark uses (`shape_from` says where), through Triton and through Nereid.
# setup(m, torch, shape) builds the inputs (the harness seeds torch first, so both runs get
# the same values) and returns (call, grad_to_none): call() runs the launcher and returns what
# is compared. `specs` are the launches compile-only compiles where no recorded launch
# (bench/corpus-specs.json) is at hand: K(kernel, "runtime arguments in order", **constexprs
# and num_warps/num_stages), an argument `name:dtype` a tensor (16-byte aligned), `name=v`
# an int, float, bool or None as launched, `name=desc(fp16,ROWSxCOLS,BMxBN)` a host tensor
# descriptor of a contiguous tensor with that block shape.

class K:
    def __init__(self, kernel, args, **kw):
        self.kernel, self.args, self.kw = kernel, args, kw


class Case:
    def __init__(self, name, src, file, shapes, setup, shape_from, specs=(), tol=None, needs=None, ref=None):
        self.name, self.src, self.file, self.shapes, self.setup = name, src, file, shapes, setup
        self.shape_from, self.specs, self.tol, self.needs = shape_from, list(specs), tol, needs
        self.ref = ref  # (torch, shape) -> a call of the library doing the same work (cuBLAS), timed alongside


CASES = []


def case(*a, **kw):
    CASES.append(Case(*a, **kw))


CUDA = "cuda"
TUT = "python/tutorials/"


def _grads(*ts):
    return tuple(t.grad for t in ts)


# -- Triton's tutorials: the same launchers across releases where their API is the same --

def _vadd(m, torch, n):
    x, y = torch.rand(n, device=CUDA), torch.rand(n, device=CUDA)
    return (lambda: m.add(x, y)), None


def _pdl_add(m, torch, n):
    x, y = torch.rand(n, device=CUDA), torch.rand(n, device=CUDA)
    return (lambda: m.add(x, y, launch_pdl=True)), None


def _softmax(m, torch, mn):
    x = torch.randn(*mn, device=CUDA)
    return (lambda: m.softmax(x)), None


def _matmul(m, torch, mnk, dtype="float16"):
    M, N, K_ = mnk
    a = torch.randn((M, K_), device=CUDA, dtype=getattr(torch, dtype))
    b = torch.randn((K_, N), device=CUDA, dtype=getattr(torch, dtype))
    return (lambda: m.matmul(a, b)), None


def _matmul_ref(dtype="float16"):  # cuBLAS through torch on the same shapes and input type
    def ref(torch, mnk):
        M, N, K_ = mnk
        a = torch.randn((M, K_), device=CUDA, dtype=getattr(torch, dtype))
        b = torch.randn((K_, N), device=CUDA, dtype=getattr(torch, dtype))
        return lambda: torch.matmul(a, b)
    return ref


def _matmul_fp8(m, torch, mnk):  # 03's benchmark with fp8_inputs: a and b.T in float8_e5m2
    M, N, K_ = mnk
    a = torch.randn((M, K_), device=CUDA, dtype=torch.float16).to(torch.float8_e5m2)
    b = torch.randn((K_, N), device=CUDA, dtype=torch.float16).T.to(torch.float8_e5m2)
    return (lambda: m.matmul(a, b)), None


def _dropout(m, torch, n):
    x = torch.randn(n, device=CUDA)
    keep = (torch.rand(n, device=CUDA) > 0.5).to(torch.int32)
    return (lambda: m.dropout(x, x_keep=keep, p=0.5)), None


def _seeded_dropout(m, torch, n):
    x = torch.randn(n, device=CUDA)
    return (lambda: m.seeded_dropout(x, p=0.5, seed=123)), None


def _ln_inputs(torch, mn):
    M, N = mn
    w = torch.rand((N,), dtype=torch.float16, device=CUDA, requires_grad=True)
    b = torch.rand((N,), dtype=torch.float16, device=CUDA, requires_grad=True)
    x = -2.3 + 0.5 * torch.randn((M, N), dtype=torch.float16, device=CUDA)
    dy = .1 * torch.randn_like(x)
    x.requires_grad_(True)
    return x, w, b, dy


def _ln_fwd(m, torch, mn):
    x, w, b, _ = _ln_inputs(torch, mn)
    return (lambda: m.layer_norm(x, (mn[1],), w, b, 1e-5)), None


def _ln_bwd(m, torch, mn):
    x, w, b, dy = _ln_inputs(torch, mn)
    y = m.layer_norm(x, (mn[1],), w, b, 1e-5)

    def call():
        y.backward(dy, retain_graph=True)
        return _grads(x, w, b)
    return call, [x, w, b]


def _attn_inputs(torch, shape):
    Z, H, N_CTX, D = shape[:4]
    q, k, v = (torch.randn((Z, H, N_CTX, D), dtype=torch.float16, device=CUDA, requires_grad=True) for _ in range(3))
    return q, k, v


def _attn_fwd(args_of):
    def setup(m, torch, shape):
        q, k, v = _attn_inputs(torch, shape)
        return (lambda: m.attention(q, k, v, *args_of(shape))), None
    return setup


def _attn_bwd(args_of):
    def setup(m, torch, shape):
        q, k, v = _attn_inputs(torch, shape)
        o = m.attention(q, k, v, *args_of(shape))
        do = torch.randn_like(o)

        def call():
            o.backward(do, retain_graph=True)
            return _grads(q, k, v)
        return call, [q, k, v]
    return setup


def _asin(m, torch, n):  # 07: the script launches the kernel itself; the same launch
    x = torch.rand(n, device=CUDA)
    out = torch.zeros(n, device=CUDA)

    def call():
        m.asin_kernel[lambda meta: (m.triton.cdiv(n, meta['BLOCK_SIZE']), )](x, out, n, BLOCK_SIZE=1024)
        return out
    return call, None


def _group_gemm(m, torch, n, fn="group_gemm_fn", transposed=False):
    A = [torch.rand((n, n), device=CUDA, dtype=torch.float16) for _ in range(4)]
    B = [torch.rand((n, n), device=CUDA, dtype=torch.float16) for _ in range(4)]
    if transposed:
        B = [b.T.contiguous() for b in B]
    return (lambda: getattr(m, fn)(A, B)), None


def _persistent(fn, *extra, bt=True):  # 09's bench(): a (M, K), b (N, K) contiguous
    def setup(m, torch, mnk):
        M, N, K_ = mnk
        a = torch.randn((M, K_), device=CUDA, dtype=torch.float16)
        b = torch.randn((K_, N), device=CUDA, dtype=torch.float16).T.contiguous()
        return (lambda: getattr(m, fn)(a, b.T if bt else b, *extra)), None
    return setup


ADD = K("add_kernel", "x:fp32 y:fp32 out:fp32 n=134217728", BLOCK_SIZE=1024)
DROP = K("_dropout", "x:fp32 keep:i32 out:fp32 n=16777216 p=0.5", BLOCK_SIZE=1024)
SDROP = K("_seeded_dropout", "x:fp32 out:fp32 n=16777216 p=0.5 seed=123", BLOCK_SIZE=1024)
MM = K("matmul_kernel", "a:fp16 b:fp16 c:fp16 M=4096 N=4096 K=4096 sam=4096 sak=1 sbk=4096 sbn=1 scm=4096 scn=1",
       BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, ACTIVATION="", num_warps=8, num_stages=3)
LN_FWD = K("_layer_norm_fwd_fused", "x:fp16 y:fp16 w:fp16 b:fp16 mean:fp32 rstd:fp32 stride=8192 N=8192 eps=1e-05",
           BLOCK_SIZE=8192, num_warps=8)
LN_DWDB = K("_layer_norm_bwd_dwdb", "dw:fp32 db:fp32 fdw:fp16 fdb:fp16 M=96 N=8192", BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
ASIN = K("asin_kernel", "x:fp32 y:fp32 n=98432", BLOCK_SIZE=1024)
MM_SHAPES = [(4096, 4096, 4096), (512, 512, 512)]
ADD_SHAPES = [2**27, 2**16]
DROP_SHAPES = [2**24]
LN_SHAPES = [(4096, 8192)]


def _old_softmax_spec(n):  # 2.1 and 3.0: one program per row, num_warps from the block size
    return K("softmax_kernel", f"y:fp32 x:fp32 sx={n} sy={n} n={n}", BLOCK_SIZE=n,
             num_warps=4 if n < 2048 else 8 if n < 4096 else 16)


for rel in ("3.6", "3.0", "2.1"):
    src = f"triton-{rel}"
    case(f"{rel}/01 vector add", src, TUT + "01-vector-add.py", ADD_SHAPES, _vadd, "its benchmark: size 2^12..2^27",
         [ADD])
    case(f"{rel}/02 fused softmax", src, TUT + "02-fused-softmax.py", [(4096, 1024), (4096, 8192)], _softmax,
         "its benchmark: M 4096, N 256..12672",
         [K("softmax_kernel", "y:fp32 x:fp32 sx=8192 sy=8192 rows=4096 cols=8192", BLOCK_SIZE=8192, num_stages=4,
            num_warps=8)] if rel == "3.6" else [_old_softmax_spec(8192)])
    case(f"{rel}/03 matmul fp16", src, TUT + "03-matrix-multiplication.py",
         MM_SHAPES + ([(8192, 8192, 8192)] if rel == "3.0" else []), _matmul,
         "its benchmark: M=N=K 256..4096, fp16",
         [MM] if rel != "2.1" else [K(MM.kernel, MM.args, **dict(MM.kw, ACTIVATION=None))], ref=_matmul_ref())
    case(f"{rel}/04 dropout", src, TUT + "04-low-memory-dropout.py", DROP_SHAPES, _dropout,
         "no benchmark in the tutorial: 2^24 elements (ours)", [DROP])
    case(f"{rel}/04 seeded dropout", src, TUT + "04-low-memory-dropout.py", DROP_SHAPES, _seeded_dropout,
         "no benchmark in the tutorial: 2^24 elements (ours)", [SDROP])
    case(f"{rel}/05 layer norm fwd", src, TUT + "05-layer-norm.py", LN_SHAPES, _ln_fwd,
         "its benchmark: M 4096, N 1024..15872, fp16", [LN_FWD])
    dx_args = ("dx:fp16 dy:fp16 dw:fp32 db:fp32 x:fp16 w:fp16 " + ("b:fp16 " if rel != "3.6" else "") +
               "mean:fp32 rstd:fp32 lock:i32 stride=8192 N=8192" + (" eps=1e-05" if rel != "3.6" else ""))
    case(f"{rel}/05 layer norm bwd", src, TUT + "05-layer-norm.py", LN_SHAPES, _ln_bwd,
         "its benchmark (mode backward): M 4096, N 1024..15872, fp16",
         [K("_layer_norm_bwd_dx_fused", dx_args, GROUP_SIZE_M=96, BLOCK_SIZE_N=8192, num_warps=8), LN_DWDB])

# the tutorial as written before tl.assume (3.0), on bf16 inputs (its kernel stores fp16)
case("3.0/03 matmul bf16", "triton-3.0", TUT + "03-matrix-multiplication.py", [(4096, 4096, 4096), (8192, 8192, 8192)],
     lambda m, torch, mnk: _matmul(m, torch, mnk, "bfloat16"), "issue 23's target: bf16 4096^3, 8192^3 (ours)",
     ref=_matmul_ref("bfloat16"))
case("3.6/03 matmul fp8", "triton-3.6", TUT + "03-matrix-multiplication.py", MM_SHAPES[:1], _matmul_fp8,
     "its benchmark with fp8_inputs: M=N=K 256..4096")
_ATTN36 = ("sm_scale=0.5 M:fp32 Z=4 H=32 desc_q=desc(fp16,524288xD,128xD) desc_k=desc(fp16,524288xD,64xD) "
           "desc_v=desc(fp16,524288xD,64xD) desc_o=desc(fp16,524288xD,128xD) N_CTX=4096")
# (host descriptors, as its forward makes them on Hopper)
case("3.6/06 attention fwd", "triton-3.6", TUT + "06-fused-attention.py", [(4, 32, 4096, 64, True), (4, 32, 4096, 128, False)],
     _attn_fwd(lambda s: (s[4], 0.5, False)), "its benchmark: BATCH 4, H 32, N_CTX 1024..16384, HEAD_DIM 64/128, fp16",
     [K("_attn_fwd", _ATTN36.replace("D", str(d)), HEAD_DIM=d, BLOCK_M=128, BLOCK_N=64, FP8_OUTPUT=False,
        STAGE=stage, warp_specialize=False, IS_HOPPER=True, num_warps=w, num_stages=3)
      for d, stage, w in ((64, 3, 4), (128, 1, 8))])
case("3.6/06 attention bwd", "triton-3.6", TUT + "06-fused-attention.py", [(4, 32, 4096, 64, True)],
     _attn_bwd(lambda s: (s[4], 0.5, False)), "its benchmark (mode bwd)")
case("3.6/07 extern asin", "triton-3.6", TUT + "07-extern-functions.py", [98432], _asin, "the script's size", [ASIN])
case("3.6/08 grouped gemm", "triton-3.6", TUT + "08-grouped-gemm.py", [1024], _group_gemm,
     "its benchmark: 4 square fp16 GEMMs, N 128..1024")
case("3.6/08 grouped gemm tma", "triton-3.6", TUT + "08-grouped-gemm.py", [1024],
     lambda m, torch, n: _group_gemm(m, torch, n, "group_gemm_tma_fn", True), "its benchmark (triton-tma)")
for fn, extra, bt in (("matmul", (), True), ("matmul_persistent", (), True), ("matmul_tma", (False,), False),
                      ("matmul_tma_persistent", (False,), False), ("matmul_descriptor_persistent", (False,), False)):
    case(f"3.6/09 {fn}", "triton-3.6", TUT + "09-persistent-matmul.py", [(8192, 8192, 512)],
         _persistent(fn, *extra, bt=bt), "its bench(): M=N=8192, K=512 (the default -K), fp16",
         {"matmul": [K("matmul_kernel", "a:fp16 b:fp16 c:fp16 M=8192 N=8192 K=512 sam=512 sak=1 sbk=1 sbn=512 "
                       "scm=8192 scn=1", BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8,
                       num_warps=8, num_stages=3)],
          # the host-descriptor kernels at 128x256x64, 8 warps, 3 stages (the persistent one with its
          # epilogue subtiled: each compiler's fastest configuration there, bench/RESULTS.md session 49)
          "matmul_tma": [K("matmul_kernel_tma", "a_desc=desc(fp16,8192x512,128x64) b_desc=desc(fp16,8192x512,256x64) "
                           "c_desc=desc(fp16,8192x8192,128x256) M=8192 N=8192 K=512", BLOCK_SIZE_M=128,
                           BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, FP8_OUTPUT=False, WARP_SPECIALIZE=False,
                           num_warps=8, num_stages=3)],
          "matmul_tma_persistent": [K("matmul_kernel_tma_persistent", "a_desc=desc(fp16,8192x512,128x64) "
                                      "b_desc=desc(fp16,8192x512,256x64) c_desc=desc(fp16,8192x8192,128x128) M=8192 "
                                      "N=8192 K=512", BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64,
                                      GROUP_SIZE_M=8, FP8_OUTPUT=False, EPILOGUE_SUBTILE=True, NUM_SMS=132,
                                      WARP_SPECIALIZE=False, num_warps=8, num_stages=3)]}.get(fn, []))
# the kernel the tutorial runs with warp_specialize=True on Hopper (the others it skips there):
# its tile loop tl.range(..., flatten=False, warp_specialize=True)
case("3.6/09 matmul_descriptor_persistent ws", "triton-3.6", TUT + "09-persistent-matmul.py", [(8192, 8192, 512)],
     _persistent("matmul_descriptor_persistent", True, bt=False),
     "its bench() with warp_specialize: M=N=8192, K=512, fp16")
case("3.6/11 pdl add", "triton-3.6", TUT + "11-programmatic-dependent-launch.py", [2**27], _pdl_add,
     "its benchmark: size 2^23..2^27",
     [K("add_kernel", "x:fp32 y:fp32 out:fp32 n=134217728", BLOCK_SIZE=1024, USE_GDC=True)])

_ATTN30 = "q:fp16 k:fp16 v:fp16 sm_scale=0.5 M:fp32 o:fp16 " + " ".join(
    f"s{t}{i}={v}" for t in "qkvo" for i, v in enumerate((12582912, 262144, 64, 1))) + " Z=4 H=48"
case("3.0/06 attention fwd", "triton-3.0", TUT + "06-fused-attention.py", [(4, 48, 4096, 64, True), (4, 48, 4096, 64, False)],
     _attn_fwd(lambda s: (s[4], 0.5)), "its benchmark: BATCH 4, H 48, D_HEAD 64, N_CTX 1024..16384, fp16",
     [K("_attn_fwd", _ATTN30, N_CTX=4096, BLOCK_M=128, BLOCK_N=64, BLOCK_DMODEL=64, STAGE=3, num_warps=8, num_stages=7)])
case("3.0/06 attention bwd", "triton-3.0", TUT + "06-fused-attention.py", [(4, 48, 4096, 64, True)],
     _attn_bwd(lambda s: (s[4], 0.5)), "its benchmark (mode bwd)")
case("3.0/07 math asin", "triton-3.0", TUT + "07-math-functions.py", [98432], _asin, "the script's size", [ASIN])
case("3.0/08 block-pointer matmul", "triton-3.0", TUT + "08-experimental-block-pointer.py", MM_SHAPES[:1], _matmul,
     "no benchmark in the tutorial: 4096^3 fp16 (ours; its test is 512^3)",
     [K("matmul_kernel_with_block_pointers", MM.args, BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64,
        GROUP_SIZE_M=8, num_warps=8, num_stages=3)])
case("3.0/11 grouped gemm", "triton-3.0", TUT + "11-grouped-gemm.py", [1024], _group_gemm,
     "its benchmark: 4 square fp16 GEMMs, N 128..1024")
case("2.1/06 attention fwd", "triton-2.1", TUT + "06-fused-attention.py", [(4, 48, 4096, 64)],
     _attn_fwd(lambda s: (0.5,)), "its benchmark: BATCH 4, H 48, N_CTX 4096, D_HEAD 64, fp16",
     [K("_fwd_kernel", "q:fp16 k:fp16 v:fp16 sm_scale=0.5 L:fp32 m:fp32 o:fp16 " + " ".join(
         f"s{t}{i}={v}" for t in "qkvo" for i, v in enumerate((12582912, 262144, 64, 1))) + " Z=4 H=48 N_CTX=4096",
        BLOCK_M=128, BLOCK_N=128, BLOCK_DMODEL=64, num_warps=4, num_stages=2)])
case("2.1/06 attention bwd", "triton-2.1", TUT + "06-fused-attention.py", [(4, 48, 4096, 64)],
     _attn_bwd(lambda s: (0.5,)), "its benchmark (mode bwd)")


# -- Liger-Kernel: Llama-3-8B's sizes (benchmark_model_configs.py's default model: hidden 4096,
# intermediate 14336, vocab 128256, 32 heads, 8 KV heads, bf16), 4096 tokens (the token-length
# sweeps run 1024 up) --

T_LIGER, HID, INTER, VOCAB = 4096, 4096, 14336, 128256


def _liger_rms(m, torch, s):
    T, H = s
    x = torch.randn(T, H, dtype=torch.bfloat16, device=CUDA)
    w = torch.randn(H, dtype=torch.bfloat16, device=CUDA)
    return (lambda: m.rms_norm_forward(x, w, 1e-6, 0.0, "llama", None)), None


def _liger_ln(m, torch, s):
    T, H = s
    x = torch.randn(T, H, dtype=torch.bfloat16, device=CUDA)
    w, b = torch.randn(H, dtype=torch.bfloat16, device=CUDA), torch.randn(H, dtype=torch.bfloat16, device=CUDA)
    return (lambda: m.layer_norm_forward(x, w, b, 1e-6)), None


def _liger_glu(fn):
    def setup(m, torch, s):
        T, I_ = s
        a, b = (torch.randn(T, I_, dtype=torch.bfloat16, device=CUDA) for _ in range(2))
        return (lambda: getattr(m, fn)(a, b)), None
    return setup


def _liger_rope(m, torch, s):
    T, nq, nkv, hd = s
    q = torch.randn(1, T, nq, hd, dtype=torch.bfloat16, device=CUDA).transpose(1, 2)
    k = torch.randn(1, T, nkv, hd, dtype=torch.bfloat16, device=CUDA).transpose(1, 2)
    inv = 1.0 / (500000.0 ** (torch.arange(0, hd, 2, device=CUDA, dtype=torch.float32) / hd))
    ang = torch.arange(T, device=CUDA, dtype=torch.float32)[:, None] * inv[None]
    emb = torch.cat((ang, ang), dim=-1)[None]
    cos, sin = emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)
    return (lambda: m.rope_forward(q, k, cos, sin)), None


def _liger_ce(m, torch, s):
    BT, V = s
    x = torch.randn(BT, V, device=CUDA)
    t = torch.randint(V, (BT,), device=CUDA, dtype=torch.long)

    def call():  # the gradient is written into the logits (in place), as Liger does
        return m.cross_entropy_forward(x, t, None, -100, 0.0, 0.0, "mean", None, False)
    return call, None


LIG = "liger_kernel.ops."
case("liger rms_norm fwd", "liger", LIG + "rms_norm", [(T_LIGER, HID)], _liger_rms,
     "benchmark_rms_norm.py: Llama-3-8B hidden, bf16, T 1024..",
     [K("_rms_norm_forward_kernel", "y:bf16 sy=4096 x:bf16 sx=4096 w:bf16 sw=1 rstd:fp32 sr=1 n=4096 eps=1e-06 "
        "offset=0.0", casting_mode=0, elementwise_affine=True, BLOCK_SIZE=4096, num_warps=8)])
case("liger layer_norm fwd", "liger", LIG + "layer_norm", [(T_LIGER, HID)], _liger_ln,
     "benchmark_layer_norm.py: Llama-3-8B hidden, bf16",
     [K("_layer_norm_forward_kernel", "y:bf16 sy=4096 x:bf16 sx=4096 w:bf16 sw=1 b:bf16 sb=1 mean:fp32 sm=1 "
        "rstd:fp32 sr=1 n=4096 eps=1e-06", BLOCK_SIZE=4096, num_warps=8)])
case("liger swiglu fwd", "liger", LIG + "swiglu", [(T_LIGER, INTER)], _liger_glu("swiglu_forward"),
     "benchmark_swiglu.py: Llama-3-8B intermediate, bf16",
     [K("_swiglu_forward_kernel", "a:bf16 b:bf16 c:bf16 stride=14336 g=1.0", n_cols=14336, BLOCK_SIZE=16384,
        num_warps=32)])
case("liger geglu fwd", "liger", LIG + "geglu", [(T_LIGER, INTER)], _liger_glu("geglu_forward"),
     "benchmark_geglu.py: Llama-3-8B intermediate, bf16",
     [K("_geglu_tanh_forward_kernel", "a:bf16 b:bf16 c:bf16 stride=14336", n_cols=14336, BLOCK_SIZE=16384,
        num_warps=32)])
case("liger rope fwd", "liger", LIG + "rope", [(T_LIGER, 32, 8, 128)], _liger_rope,
     "benchmark_rope.py: Llama-3-8B heads, bf16")
case("liger cross_entropy fwd", "liger", LIG + "cross_entropy", [(T_LIGER, VOCAB)], _liger_ce,
     "benchmark_cross_entropy.py: Llama-3-8B vocab, fp32 logits (its randn), BT 4096")


# -- Mamba: Mamba2-2.7B's sizes (d_model 2560, expand 2, headdim 64: 80 heads, d_state 128) --

def _mamba_ssu(m, torch, s):  # one decoding step as Mamba2.step calls it (A, dt, D broadcast per head)
    batch, nheads, dim, dstate = s
    state = torch.randn(batch, nheads, dim, dstate, device=CUDA)
    x = torch.randn(batch, nheads, dim, device=CUDA, dtype=torch.bfloat16)
    dt = torch.randn(batch, nheads, device=CUDA, dtype=torch.bfloat16)[:, :, None].expand(batch, nheads, dim)
    dt_bias = torch.rand(nheads, device=CUDA)[:, None].expand(nheads, dim)
    A = -torch.rand(nheads, device=CUDA)[:, None, None].expand(nheads, dim, dstate)
    B = torch.randn(batch, 1, dstate, device=CUDA, dtype=torch.bfloat16)
    C = torch.randn(batch, 1, dstate, device=CUDA, dtype=torch.bfloat16)
    D = torch.randn(nheads, device=CUDA)[:, None].expand(nheads, dim)

    def call():  # updates the state in place, as decoding does
        return m.selective_state_update(state, x, dt, A, B, C, D=D, z=None, dt_bias=dt_bias, dt_softplus=True)
    return call, None


def _mamba_rms(m, torch, s):
    T, H = s
    x = torch.randn(T, H, device=CUDA, dtype=torch.bfloat16)
    w = torch.randn(H, device=CUDA, dtype=torch.bfloat16)
    return (lambda: m.rms_norm_fn(x, w, None, eps=1e-5)), None


case("mamba selective_state_update", "mamba", "mamba_ssm.ops.triton.selective_state_update", [(64, 80, 64, 128)],
     _mamba_ssu, "Mamba2-2.7B decoding step, batch 64 (the tests' shapes are smaller)")
case("mamba rms_norm_fn", "mamba", "mamba_ssm.ops.triton.layer_norm", [(8192, 2560)], _mamba_rms,
     "Mamba2-2.7B width, 8192 tokens, bf16")


def selected(only):
    pats = [p.strip() for p in only.split(",")] if only else None
    return [c for c in CASES if not pats or any(p in c.name for p in pats)]


def shape_text(s):
    return "x".join(map(str, s)) if isinstance(s, (tuple, list)) else (f"2^{int(math.log2(s))}" if s & (s - 1) == 0
                                                                        else str(s))


# ---------------------------------------------------------------- compile-only (no GPU, no torch)

class _DType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


_DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp64": "float64", "i8": "int8", "i16": "int16",
           "i32": "int32", "i64": "int64", "u8": "uint8", "i1": "bool", "fp8e4nv": "float8_e4m3fn",
           "fp8e5": "float8_e5m2"}


class StandIn:
    """What a launch reads of a CUDA tensor (is_cuda, dtype, data_ptr(), get_device()); never
    dereferenced: compile-only launches nothing."""

    def __init__(self, ptr, dtype):
        self._ptr, self._dtype = ptr, dtype

    is_cuda = property(lambda self: True)
    dtype = property(lambda self: self._dtype)

    def data_ptr(self):
        return self._ptr

    def get_device(self):
        return 0


def spec_kwargs(text):
    """A recorded launch's run-time arguments by name (its constexprs come in K.kw): a
    recorded launch names each parameter as the kernel does, so it replays by keyword."""
    names = [tok.replace("=", ":").split(":", 1)[0] for tok in text.split()]
    return dict(zip(names, spec_args(text)))


def spec_args(text):
    out, ptr = [], 1 << 24
    dtypes = {}
    for tok in text.split():
        m = re.fullmatch(r"\w+=desc\((\w+),([\dx]+),([\dx]+)\)", tok)
        if m:  # `name=desc(fp16,8192x512,128x64)`: a host tensor descriptor of a contiguous tensor
            import nereid
            shape, block = ([int(v) for v in g.split("x")] for g in m.group(2, 3))
            strides = [1] * len(shape)
            for i in range(len(shape) - 2, -1, -1):
                strides[i] = strides[i + 1] * shape[i + 1]
            d = dtypes.setdefault(m.group(1), _DType(_DTYPES.get(m.group(1), m.group(1))))
            out.append(nereid.TensorDescriptor(StandIn(ptr, d), shape, strides, block))
            ptr += 1 << 24
        elif ":" in tok:
            _, dt = tok.split(":")
            aligned = not dt.endswith("!")  # `name:fp16!` a pointer off 16-byte alignment
            dt = dt.rstrip("!")
            d = dtypes.setdefault(dt, _DType(_DTYPES.get(dt, dt)))
            out.append(StandIn(ptr + (0 if aligned else 2), d))
            ptr += 1 << 24
        else:
            out.append(ast.literal_eval(tok.split("=", 1)[1]))
    return out


def _recorded_specs(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError:
        return {}
    return {name: [K(s["kernel"], s["args"], **s["kw"]) for s in specs] for name, specs in data.get("cases", {}).items()}


def _unwrap(obj):
    while obj is not None and not hasattr(obj, "_compile") and hasattr(obj, "fn"):
        obj = obj.fn
    return obj


def ptx_stats(ptx):
    """ptxas -v's registers and spill bytes of one kernel's PTX for sm_90a, and the PTX's
    global reads by form: cp.async copies, ld.global of vectors and of scalars."""
    ptxas = os.environ.get("PTXAS") or shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    st = {"cp.async": len(re.findall(r"\bcp\.async\.c[ag]\.", ptx)),
          "ld.v": len(re.findall(r"\bld\.global[\w.]*\.v[248]\.", ptx)),
          "ld.s": len(re.findall(r"\bld\.global(?![\w.]*\.v[248]\.)[\w.]*\s", ptx))}
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        try:
            r = subprocess.run([ptxas, "-v", "--gpu-name", "sm_90a", src, "-o", os.path.join(d, "k.cubin")],
                               capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as e:
            st["ptxas"] = f"{type(e).__name__}"
            return st
    m = re.search(r"Used (\d+) registers", r.stderr)
    sp = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr)
    st["regs"] = int(m.group(1)) if m else None
    st["spills"] = int(sp.group(1)) + int(sp.group(2)) if sp else None
    if r.returncode:
        st["ptxas"] = r.stderr.strip().splitlines()[-1][-120:] if r.stderr.strip() else f"exit {r.returncode}"
    return st


def compile_only(args):
    if args.runs < 1:  # the median is of the compiles after the first
        sys.exit(f"compile-only: --runs must be at least 1, got {args.runs}")
    mock = os.path.join(ROOT, "build", "mock", "libcuda.so.1")
    if not os.path.exists(mock):
        sys.exit(f"compile-only: no stand-in driver at {mock}: `make` builds it")
    os.environ.setdefault("CUDA_MOCK_CC", "90")  # a Hopper: sm_90a, the H200's target
    os.environ.setdefault("NEREID_PTXAS", "none")  # source to PTX: no ptxas child (--ptxas runs it apart)
    import ctypes
    ctypes.CDLL(mock, mode=ctypes.RTLD_GLOBAL)  # the driver the runtime dlopens (libcuda.so.1) is this one
    try:
        import nereid
    except ImportError:
        sys.path.insert(0, os.path.join(ROOT, "build", "python"))
        import nereid
    import nereid.dropin
    nereid.dropin.install()  # `triton` is Nereid's where Triton is missing: the kernels' decorators are Nereid's
    ctx = nereid.context("cuda")
    recorded = _recorded_specs(args.specs)
    base = tempfile.mkdtemp(prefix="corpus-ct-")
    rows, results = [], []
    print(f"compile time, source to PTX in one process ({ctx.device_name}, target sm_90a), first compile and the "
          f"median of {args.runs} more, each on a fresh disk cache: nereid {nereid._nereid.version()}, "
          f"{os.cpu_count()} CPUs", flush=True)
    for c in selected(args.only):
        specs = recorded.get(c.name) or c.specs
        origin = "recorded" if c.name in recorded else "written"
        if not specs:
            results.append({"case": c.name, "status": "no spec"})
            rows.append((c.name, "-", "-", "-", "-", "no spec yet (a GPU run with --write-specs records one)"))
            continue
        try:
            mod = load(c.src, c.file, static=True)
        except Exception as e:
            rows.append((c.name, "-", "-", "-", "-", f"module: {type(e).__name__}: {e}"))
            continue
        for s in specs:
            kern = _unwrap(getattr(mod, s.kernel, None))
            if kern is None:
                why = [w for _, w in getattr(mod, "__corpus_skipped__", []) if s.kernel in w][:1]
                rows.append((c.name, s.kernel, "-", "-", "-", f"not loaded {why}"))
                continue
            times, cpus, err, kernel = [], [], None, None
            for i in range(args.runs + 1):
                os.environ["NEREID_CACHE_DIR"] = os.path.join(base, f"{len(results)}-{i}")
                fresh = nereid.JITFunction(kern.fn)
                before = ctx.stats()["gpu_compiles"]
                try:
                    t0, c0 = time.perf_counter(), time.process_time()
                    if origin == "recorded":  # by name: constexprs may sit between run-time parameters
                        kernel = fresh.run(grid=(1,), warmup=True, **spec_kwargs(s.args), **s.kw)
                    else:
                        kernel = fresh.run(*spec_args(s.args), grid=(1,), warmup=True, **s.kw)
                    times.append((time.perf_counter() - t0) * 1e3)
                    cpus.append((time.process_time() - c0) * 1e3)
                except Exception as e:
                    err = f"{type(e).__name__}: {str(e).strip().splitlines()[0][-160:]}"
                    break
                if ctx.stats()["gpu_compiles"] != before + 1:
                    err = "no compile happened (cache?)"
                    break
            if err:
                rows.append((c.name, s.kernel, "-", "-", "-", err))
                results.append({"case": c.name, "kernel": s.kernel, "error": err})
                continue
            med, cpu = statistics.median(times[1:]), statistics.median(cpus[1:])
            note = origin + (" > 10 ms" if med > 10 else "")
            res = {"case": c.name, "kernel": s.kernel, "first_ms": times[0], "median_ms": med,
                   "runs_ms": times[1:], "cpu_ms": cpu, "cpu_runs_ms": cpus[1:],
                   "spec": {"args": s.args, "kw": s.kw}, "origin": origin}
            if args.save_ptx:  # for loading elsewhere (the driver's own PTX compiler on a GPU machine)
                os.makedirs(args.save_ptx, exist_ok=True)
                stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{c.name}__{s.kernel}")
                with open(os.path.join(args.save_ptx, stem + ".ptx"), "w") as f:
                    f.write(kernel.asm["ptx"])
            if args.ptxas:
                st = ptx_stats(kernel.asm["ptx"])
                res["ptx"] = st
                note += (f"; regs {st.get('regs')}, spills {st.get('spills')} B, cp.async {st['cp.async']}, "
                         f"ld.global v {st['ld.v']} / scalar {st['ld.s']}" + (f", ptxas: {st['ptxas']}" if "ptxas" in st else ""))
            rows.append((c.name, s.kernel, f"{times[0]:.1f}", f"{med:.1f}", f"{cpu:.1f}", note))
            results.append(res)
    print("\n| case | kernel | first ms | median ms | cpu ms | note |\n|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    ok = [r["median_ms"] for r in results if "median_ms" in r]
    if ok:
        cpu = [r["cpu_ms"] for r in results if "cpu_ms" in r]
        print(f"\n{len(ok)} kernels compiled: median {statistics.median(ok):.1f} ms, max {max(ok):.1f} ms, "
              f"{sum(t <= 10 for t in ok)} at most 10 ms; CPU time: median {statistics.median(cpu):.1f} ms, "
              f"max {max(cpu):.1f} ms, {sum(t <= 10 for t in cpu)} at most 10 ms")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "compile-only.json"), "w") as f:
            json.dump({"results": results, "manifest": manifest()}, f, indent=1)


# ---------------------------------------------------------------- the GPU run
#
# One process holds both compilers: every case's module is loaded once with Triton's
# decorators (before nereid.dropin.install()) and once more, as new module objects, with
# Nereid's (after it; the corpus' modules are forgotten in between, so each load imports its
# own copies of the helpers it imports). Both launchers are then alive at once, so their
# timings can be interleaved round by round on the same GPU, and their outputs compared in
# memory. Each mode builds its own inputs from the same seed (launchers may write into their
# inputs), so both see the same values.

def _tensors(out, torch):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _tensors(o, torch)]
    return []


_TOL = {"float32": (1e-4, 1e-5), "float16": (1e-2, 1e-3), "bfloat16": (2e-2, 1e-2), "float64": (1e-7, 1e-9)}


def compare(a, b, torch, tol=None):
    """Nereid's outputs a against Triton's b: None when they agree, else the reason. Floats
    within rtol and atol * max|b| (accumulation order differs), integers and bools equal."""
    if len(a) != len(b):
        return f"{len(a)} outputs against Triton's {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        if x.shape != y.shape or x.dtype != y.dtype:
            return f"output {i}: {tuple(x.shape)} {x.dtype} against {tuple(y.shape)} {y.dtype}"
        if not x.is_floating_point():
            if not torch.equal(x, y):
                return f"output {i}: {(x != y).sum().item()} of {x.numel()} elements differ"
            continue
        xf, yf = x.float(), y.float()
        rtol, atol = tol or _TOL.get(str(y.dtype).split(".")[-1], (0.25, 0.1))
        finite = yf[torch.isfinite(yf)]
        scale = max(1.0, finite.abs().max().item() if finite.numel() else 1.0)
        try:
            torch.testing.assert_close(xf, yf, rtol=rtol, atol=atol * scale, equal_nan=True)
        except AssertionError as e:
            lines = [l.strip() for l in str(e).splitlines() if "Mismatched" in l or "Greatest absolute" in l]
            return f"output {i}: " + "; ".join(lines)[:200]
    return None


@contextlib.contextmanager
def capture(RealJIT, nereid, launches_mod):
    """Records every launch (and warmup) of both JITFunction classes: (compiler, kernel object,
    grid, args, kwargs, what it returned). Installed around a case's first call only."""
    record = []
    orig = RealJIT.run
    launches_mod.count_triton()
    counted = RealJIT.run

    def run(self, *args, grid, warmup, **kwargs):
        r = counted(self, *args, grid=grid, warmup=warmup, **kwargs)
        record.append(("triton", self, grid, args, kwargs, r))
        return r

    def getitem(self, grid):
        launch = nereid._nereid.Dispatcher.__getitem__(self, grid)

        def call(*args, **kwargs):
            r = launch(*args, **kwargs)
            record.append(("nereid", self, grid, args, kwargs, r))
            return r
        return call

    RealJIT.run = run
    nereid.JITFunction.__getitem__ = getitem
    try:
        yield record
    finally:
        RealJIT.run = orig  # timing runs without any wrapper
        del nereid.JITFunction.__getitem__


def _kernel_name(jf):
    return getattr(jf, "__name__", None) or getattr(getattr(jf, "fn", None), "__name__", "?")


def _regs(kind, r):
    try:
        if kind == "triton":
            r._init_handles()
            return int(r.n_regs), int(r.n_spills)
        return int(r._info()["registers"]), int(r.n_spills)  # ptxas's count, as Triton's n_regs
    except Exception:
        return None


def _probe(kind, jf, grid, args, kwargs, RealJIT, nereid, torch, triton):
    """ms to compile and load this kernel for these arguments from nothing: a new kernel object
    (no in-memory cache), a new cache directory (no disk cache), no tuning."""
    var = "TRITON_CACHE_DIR" if kind == "triton" else "NEREID_CACHE_DIR"
    old = os.environ.get(var)
    os.environ[var] = tempfile.mkdtemp(prefix=f"corpus-{kind}-")
    compiled = []
    try:
        if kind == "triton":
            fresh = RealJIT(jf.fn, version=jf.version, do_not_specialize=jf.do_not_specialize,
                            do_not_specialize_on_alignment=jf.do_not_specialize_on_alignment, debug=jf.debug,
                            noinline=jf.noinline, repr=jf._repr, launch_metadata=jf.launch_metadata)
            triton.knobs.compilation.listener = \
                lambda *, times, cache_hit, **_: compiled.append(times.total / 1e3) if not cache_hit else None
        else:
            fresh = nereid.JITFunction(jf.fn, device=jf.device, num_warps=jf.num_warps, num_stages=jf.num_stages)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        k = fresh.run(*args, grid=grid, warmup=True, **kwargs)
        if kind == "triton":
            k._init_handles()  # Triton loads the module at the first launch; Nereid's warmup loads it
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 1e3, (sum(compiled) if compiled else None)
    except Exception as e:
        return f"{type(e).__name__}: {str(e)[:100]}", None
    finally:
        if kind == "triton":
            triton.knobs.compilation.listener = None
        if old is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = old


def _spec_of(jf, args, kwargs, torch):
    """A recorded Nereid launch as compile-only replays it (K's fields), or None."""
    names = list(jf.arg_names)
    bound = dict(zip(names, args))
    kw = {n: v for n, v in bound.items() if jf.kinds[names.index(n)] == 2}  # constexprs passed by position
    for k, v in kwargs.items():
        if k in names and jf.kinds[names.index(k)] != 2:
            bound[k] = v
        else:
            kw[k] = v
    rev = {v: k for k, v in _DTYPES.items()}
    parts = []
    for i, n in enumerate(names):
        if jf.kinds[i] == 2:
            continue
        v = bound.get(n, jf.params[i].default if jf.params[i].has_default else None)
        if isinstance(v, torch.Tensor):
            dt = rev.get(str(v.dtype).split(".")[-1])
            if dt is None:
                return None
            parts.append(f"{n}:{dt}{'' if v.data_ptr() % 16 == 0 else '!'}")
        elif v is None or isinstance(v, (bool, int, float)):
            parts.append(f"{n}={v!r}")
        else:
            return None  # a tensor descriptor, a tuple: not expressible (yet)
    for k, v in list(kw.items()):
        if not (v is None or isinstance(v, (bool, int, float, str))):
            return None
    return {"kernel": _kernel_name(jf), "args": " ".join(parts), "kw": kw}


def _profile(fn, n, torch):
    """Where the host's time of n calls of fn goes: wall time per call with and without a
    synchronize after each, then cProfile's top functions by own time."""
    import cProfile
    import io
    import pstats
    torch.cuda.synchronize()
    w0 = time.perf_counter()
    for _ in range(n):
        fn()
    host = (time.perf_counter() - w0) / n * 1e6
    torch.cuda.synchronize()
    w0 = time.perf_counter()
    for _ in range(n):
        fn()
        torch.cuda.synchronize()
    synced = (time.perf_counter() - w0) / n * 1e6
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(n):
        fn()
    pr.disable()
    torch.cuda.synchronize()
    out = io.StringIO()
    pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(14)
    body = "\n".join(l for l in out.getvalue().splitlines() if l.strip())
    return f"us a call: {host:.1f} unsynchronised, {synced:.1f} synchronised each\n{body}"


def _fmt(x, nd=3):
    return "-" if x is None else (f"{x:.{nd}f}" if isinstance(x, float) else str(x))


def run(args):
    import torch
    import triton
    import triton.testing
    import triton.runtime.jit as tj
    RealJIT = getattr(tj, "_nereid_real_JITFunction", None) or tj.JITFunction
    session = tempfile.mkdtemp(prefix="corpus-")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(session, "triton-cache")  # cold caches for the first calls
    os.environ["NEREID_CACHE_DIR"] = os.path.join(session, "nereid-cache")
    import nereid
    import nereid.dropin
    import nereid._launches as launches_mod
    orig_run = RealJIT.run  # count_triton() must meet Triton's class before install() replaces its name;
    launches_mod.count_triton()  # capture() wraps it only around first calls
    RealJIT.run = orig_run
    cases = selected(args.only)
    primer = Case("primer", "triton-3.6", TUT + "01-vector-add.py", [1000], _vadd, "")
    mods = {"triton": {}, "nereid": {}}
    for mode in ("triton", "nereid"):
        if mode == "nereid":
            purge()
            nereid.dropin.install()
        for c in [primer] + cases:
            try:
                mods[mode][c.name] = load(c.src, c.file, tag=mode[0] + "_")
            except BaseException as e:
                mods[mode][c.name] = f"does not import: {type(e).__name__}: {str(e)[:200]}"
        # the processes' one-time costs (Triton's driver helpers, LLVM's start) before any case;
        # Triton's first compile imports the rest of Triton (its code generator, gluon) while
        # triton.runtime.jit.JITFunction is still Triton's class, before the drop-in is installed
        m = mods[mode]["primer"]
        if not isinstance(m, str):
            with contextlib.suppress(Exception):
                _vadd(m, torch, 1000)[0]()
    torch.cuda.synchronize()
    env = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
           "nereid": nereid._nereid.version(), "python": sys.version.split()[0], "manifest": manifest()}
    results, specs = [], {}
    for c in cases:
        for shape in c.shapes:
            row = {"case": c.name, "shape": shape_text(shape), "shape_from": c.shape_from, "src": c.src,
                   "file": c.file, "status": "ok", "why": ""}
            calls, outs = {}, {}
            for mode in ("triton", "nereid"):
                r = row[mode] = {}
                m = mods[mode][c.name]
                if isinstance(m, str):
                    r["error"] = m
                    continue
                try:
                    torch.manual_seed(0)
                    call, g2n = c.setup(m, torch, shape)
                    torch.cuda.synchronize()
                    n0, t0 = launches_mod.launches()
                    with capture(RealJIT, nereid, launches_mod) as rec:
                        w0 = time.perf_counter()
                        out = call()
                        torch.cuda.synchronize()
                        first = (time.perf_counter() - w0) * 1e3
                    n1, t1 = launches_mod.launches()
                    outs[mode] = [t.detach().clone() for t in _tensors(out, torch)]
                    steady = []
                    for _ in range(3):
                        w0 = time.perf_counter()
                        call()
                        torch.cuda.synchronize()
                        steady.append((time.perf_counter() - w0) * 1e3)
                except BaseException as e:
                    if isinstance(e, KeyboardInterrupt):
                        raise
                    r["error"] = f"{type(e).__name__}: {str(e).strip()[:300]}"
                    r["traceback"] = traceback.format_exc()[-3000:]  # in corpus.json
                    continue
                r["launches"] = {"nereid": n1 - n0, "triton": t1 - t0}
                r["first_call_ms"], r["steady_ms"] = first, min(steady)
                kernels = {}
                for kind, jf, grid, a, kw, res in rec:
                    k = kernels.setdefault(_kernel_name(jf), {"calls": 0})
                    k["calls"] += 1
                    k["compiler"] = kind
                    if res is not None and _regs(kind, res):
                        k["regs"], k["spills"] = _regs(kind, res)
                    k["_last"] = (kind, jf, grid, a, kw)
                r["kernels"] = kernels
                mixed = (r["launches"]["nereid"] > 0) if mode == "triton" else \
                    (r["launches"]["triton"] > 0 or r["launches"]["nereid"] == 0)
                if mixed or any(k["compiler"] != mode for k in kernels.values()):
                    r["error"] = f"launched through the other compiler (or none): {r['launches']}"
                    continue
                calls[mode] = (call, g2n)
            if "error" in row["triton"]:
                row["status"], row["why"] = "Triton fails", row["triton"]["error"]
            elif "error" in row["nereid"]:
                row["status"], row["why"] = "Nereid fails", row["nereid"]["error"]
            else:
                bad = compare(outs["nereid"], outs["triton"], torch, c.tol)
                if bad:
                    row["status"], row["why"] = "wrong result", bad
            if row["status"] == "ok":  # interleaved medians
                t = {"triton": [], "nereid": []}
                if c.ref:
                    torch.manual_seed(0)
                    calls["ref"], t["ref"] = (c.ref(torch, shape), None), []
                for i in range(args.rounds):
                    order = ("triton", "nereid", "ref") if i % 2 == 0 else ("ref", "nereid", "triton")
                    for mode in (m for m in order if m in t):
                        fn, g2n = calls[mode]
                        t[mode].append(float(triton.testing.do_bench(fn, warmup=25, rep=100, grad_to_none=g2n,
                                                                     return_mode="median")))
                if c.ref:
                    row["ref_ms"] = statistics.median(t["ref"])
                    row["ref_ratio"] = statistics.median(t["nereid"]) / row["ref_ms"]
                row["triton"]["ms_rounds"], row["nereid"]["ms_rounds"] = t["triton"], t["nereid"]
                row["triton"]["ms"], row["nereid"]["ms"] = statistics.median(t["triton"]), statistics.median(t["nereid"])
                row["ratio"] = row["nereid"]["ms"] / row["triton"]["ms"]
                if args.profile:
                    for mode in ("triton", "nereid"):
                        row[mode]["profile"] = _profile(calls[mode][0], args.profile, torch)
                        print(f"--- {c.name} {shape_text(shape)} {mode}: host profile of "
                              f"{args.profile} calls\n{row[mode]['profile']}", flush=True)
            for mode in ("triton", "nereid"):  # compile time of each kernel, from nothing, no tuning
                for name, k in row[mode].get("kernels", {}).items():
                    kind, jf, grid, a, kw = k.pop("_last")
                    k["compile_ms"], k["triton_compile_only_ms"] = _probe(kind, jf, grid, a, kw, RealJIT, nereid,
                                                                          torch, triton)
                    if mode == "nereid" and shape == c.shapes[0]:
                        sp = _spec_of(jf, a, kw, torch)
                        if sp:
                            specs.setdefault(c.name, []).append(sp)
            results.append(row)
            print(_line(row), flush=True)
            del calls, outs
            torch.cuda.empty_cache()
    table = report(results)
    print("\n" + table)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "corpus.json"), "w") as f:
            json.dump({"env": env, "results": results}, f, indent=1, default=str)
        with open(os.path.join(args.out, "corpus.md"), "w") as f:
            f.write(table + "\n")
    if args.write_specs:
        with open(args.write_specs, "w") as f:
            json.dump({"env": env, "cases": specs}, f, indent=1, sort_keys=True)


def _rs(r):
    ks = r.get("kernels", {})
    return ", ".join(f"{k['regs']}/{k['spills']}" for k in ks.values() if "regs" in k) or "-"


def _cms(r):
    ms = [k.get("compile_ms") for k in r.get("kernels", {}).values()]
    if not ms:
        return "-"
    if any(not isinstance(x, float) for x in ms):
        return "failed"
    return f"{sum(ms):.0f}"


def _line(row):
    return (f"{row['case']:34} {row['shape']:20} {row['status']:13} "
            f"{_fmt(row.get('ratio'))} {row['why'][:100]}")


def report(results):
    out = ["| kernel | shape | Nereid/Triton time | Triton ms | Nereid ms | regs/spills Triton | regs/spills Nereid "
           "| compile ms Triton | compile ms Nereid | note |", "|---|---|---|---|---|---|---|---|---|---|"]
    refs = [r for r in results if r.get("ref_ms")]
    for row in results:
        t, n = row["triton"], row["nereid"]
        out.append(f"| {row['case']} | {row['shape']} | {_fmt(row.get('ratio'))} | {_fmt(t.get('ms'), 4)} | "
                   f"{_fmt(n.get('ms'), 4)} | {_rs(t)} | {_rs(n)} | {_cms(t)} | {_cms(n)} | "
                   f"{'' if row['status'] == 'ok' else row['status'] + ': '}{row['why'][:160].replace('|', '/')} |")
    if refs:
        out.append("")
        out.append("| kernel | shape | library ms (cuBLAS) | Nereid/library time | Triton/library time |")
        out.append("|---|---|---|---|---|")
        for r in refs:
            out.append(f"| {r['case']} | {r['shape']} | {_fmt(r['ref_ms'], 4)} | {_fmt(r['ref_ratio'])} | "
                       f"{_fmt(r['triton']['ms'] / r['ref_ms'])} |")
    ratios = [r["ratio"] for r in results if r.get("ratio")]
    fails = collections_count(r["status"] for r in results)
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
    out.append("")
    out.append(f"Geometric mean of Nereid/Triton time over {len(ratios)} rows that ran correctly under both: "
               f"{gm:.3f} (Triton's speed {1 / gm:.3f}x); rows: " + ", ".join(f"{k} {v}" for k, v in fails.items()))
    return "\n".join(out)


def collections_count(it):
    d = {}
    for x in it:
        d[x] = d.get(x, 0) + 1
    return d


def list_cases(args):
    recorded = _recorded_specs(args.specs)
    for c in selected(args.only):
        specs = recorded.get(c.name) or c.specs
        print(f"{c.name:34} {c.src:11} {c.file:52} {', '.join(map(shape_text, c.shapes)):30} "
              f"specs: {len(specs)} ({'recorded' if c.name in recorded else 'written'})  [{c.shape_from}]")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch", help="the sources into third_party/corpus")
    f.add_argument("--only", help="source keys, comma-separated (default: all)")
    f.add_argument("--mirrors", help="folder of mirrors OWNER+NAME/repo (default $CORPUS_MIRRORS or /work/.mirror)")
    f.add_argument("--repo", action="append", default=[], help="OWNER/NAME=GITDIR: where one repository is")
    r = sub.add_parser("run", help="on the GPU machine: both compilers, the table")
    r.add_argument("--only", help="case name substrings, comma-separated")
    r.add_argument("--rounds", type=int, default=5, help="interleaved do_bench rounds per row (default 5)")
    r.add_argument("--out", default=os.environ.get("OUT") or "/tmp/corpus", help="folder for corpus.json, corpus.md")
    r.add_argument("--profile", type=int, default=0, metavar="N",
                   help="after timing, profile N host calls of each compiler's case (cProfile, in the log)")
    r.add_argument("--write-specs", help="write the Nereid launches as compile-only specs (bench/corpus-specs.json)")
    c = sub.add_parser("compile-only", help="here: Nereid's source-to-PTX time per corpus kernel")
    c.add_argument("--only")
    c.add_argument("--runs", type=int, default=5, help="compiles after the first, per kernel (default 5)")
    c.add_argument("--specs", default=SPECS, help="recorded launches (default bench/corpus-specs.json)")
    c.add_argument("--out")
    c.add_argument("--save-ptx", metavar="DIR", help="write each kernel's PTX to DIR/CASE__KERNEL.ptx")
    c.add_argument("--ptxas", action="store_true", help="ptxas -v's registers and spills, the PTX's global loads by form")
    l_ = sub.add_parser("list", help="the cases")
    l_.add_argument("--only")
    l_.add_argument("--specs", default=SPECS)
    args = ap.parse_args()
    {"fetch": fetch, "run": run, "compile-only": compile_only, "list": list_cases}[args.cmd](args)


if __name__ == "__main__":
    main()
