#!/usr/bin/env python3
"""lib_check.py - compile the @triton.jit kernels of a Triton kernel library (its Python
source, extracted from a clone: flash-linear-attention's fla/, unsloth's unsloth/kernels,
...) with Nereid to PTX, without torch or a GPU: each module that defines kernels is
imported under nereid.dropin, with permissive stand-ins for torch and the library's other
missing imports; each kernel (a @triton.jit function that calls tl.program_id, or one under
@triton.autotune / @triton.heuristics) is then compiled with `nereid compile --emit=ptx
--arch=sm_90a` for a plausible signature: pointer parameters (those the kernel loads
through, stores through or makes block pointers of) as *fp32 or *bf16 (as *i64 where the
name says indices or offsets, or where the loaded value is used as an integer: a range
bound, an operand of //, %, shifts or bitwise operators, a pointer offset, a block
pointer's shape or offsets; as *i32 where such values are summed into a variable started
from an int literal, which a loop carries as i32), float-named scalars
as fp32, other scalars as i32, constexprs from the autotune configs' first, the
heuristics, the defaults, or a guess by name (recorded: a failure of a kernel with guessed
constexprs may be the guess's).

    python3 tools/lib_check.py ROOT [--package fla] [--modules GLOB] [-v] [--keep DIR]
                               [--ptr-type bf16] [-j N]

ROOT: the folder holding the library's package (e.g. third_party-local/fla). Prints one
line per kernel that fails (import failures too) and a summary."""
import argparse
import ast
import concurrent.futures
import contextlib
import glob
import importlib
import importlib.abc
import importlib.machinery
import inspect
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Top-level packages served by stand-ins (anything they are asked for is an _Any).
STUBBED = {"torch", "einops", "transformers", "accelerate", "peft", "bitsandbytes", "xformers",
           "flash_attn", "causal_conv1d", "mamba_ssm", "tilelang", "cuda", "safetensors", "trl", "datasets",
           "huggingface_hub", "unsloth_zoo", "psutil", "numpy", "triton_kernels", "deep_gemm", "torchao",
           "vllm", "tqdm", "sentencepiece", "tokenizers", "pydantic", "requests", "frozendict", "hqq", "zmq",
           "rpyc", "fastapi", "uvloop", "aiohttp", "setproctitle", "ujson", "orjson", "sgl_kernel", "easydict",
           "pybase64", "prometheus_client", "psutil", "nvtx", "msgpack", "safetensors", "typing_extensions",
           "tabulate", "librosa", "atomics", "PIL", "mmengine", "httpx", "websockets", "uvicorn",
           "gunicorn", "starlette", "openai", "soundfile", "cv2", "decord", "av", "torchvision", "timm"}


class _AnyMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Any

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and (inspect.isfunction(args[0]) or inspect.isclass(args[0])):
            return args[0]  # a decorator: @torch.compile, @torch.no_grad(), ...
        return _Any

    def __getitem__(cls, item):
        return _Any

    def __iter__(cls):
        return iter(())

    def __bool__(cls):
        return False

    def __int__(cls):
        return 0

    def __index__(cls):
        return 0

    def __float__(cls):
        return 0.0

    def __len__(cls):
        return 0

    def __mro_entries__(cls, bases):
        return (object,)

    def __or__(cls, other):
        return _Any

    __ror__ = __and__ = __add__ = __radd__ = __mul__ = __rmul__ = __sub__ = __truediv__ = __or__

    def __lt__(cls, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __enter__(cls):
        return _Any

    def __exit__(cls, *a):
        return False

    def __hash__(cls):
        return id(cls)

    def __eq__(cls, other):
        return cls is other

    def __repr__(cls):
        return "<stand-in>"

    __str__ = __repr__


class _Any(metaclass=_AnyMeta):
    pass


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name == "__version__":
            return "99.0.0"
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Any


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, names, overrides):
        self.names, self.overrides = names, overrides

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in self.names or fullname in self.overrides:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        m.__dict__.update(self.overrides.get(spec.name, {}))
        return m

    def exec_module(self, module):
        pass


def _identity_deco(*args, **kwargs):
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda f: f


def _overrides():
    """What the stand-ins must answer precisely (the libraries branch on these)."""
    return {
        "torch": {"__version__": "2.9.0", "float32": "float32", "bfloat16": "bfloat16", "float16": "float16",
                  # torchao's kernels branch on tl.constexpr(torch.version.hip is not None)
                  "version": types.SimpleNamespace(hip=None, cuda="12.8", __version__="2.9.0")},
        "fla.utils": {"IS_NVIDIA": True, "IS_AMD": False, "IS_INTEL": False, "IS_NPU": False,
                      "IS_NVIDIA_HOPPER": True, "IS_NVIDIA_BLACKWELL": False, "IS_GATHER_SUPPORTED": True,
                      "IS_TMA_SUPPORTED": False, "IS_TF32_SUPPORTED": True, "USE_CUDA_GRAPH": False,
                      "IS_INTEL_ALCHEMIST": False, "IS_ARM": False, "autotune_cache_kwargs": {},
                      "check_shared_mem": lambda *a, **k: True, "device": "cuda", "device_platform": "cuda",
                      "input_guard": _identity_deco, "tensor_cache": _identity_deco, "contiguous": _identity_deco,
                      "autocast_custom_fwd": _identity_deco, "autocast_custom_bwd": _identity_deco,
                      "get_multiprocessor_count": lambda *a, **k: 132, "check_pytorch_version": lambda *a: True,
                      "is_amd": False, "is_nvidia": True},
        "unsloth.kernels.utils": None,  # real
    }


# --- signature ---------------------------------------------------------------------------

_PTR_CALLS = {"load", "store", "make_block_ptr", "make_tensor_descriptor", "atomic_add", "atomic_max",
              "atomic_min", "atomic_cas", "atomic_xchg", "atomic_and", "atomic_or", "atomic_xor", "advance",
              "multiple_of", "max_contiguous", "load_tensor_descriptor", "store_tensor_descriptor"}
_FLOAT_NAMES = {"scale", "eps", "epsilon", "softcap", "logit_scale", "temperature", "label_smoothing",
                "smoothing", "lse_square_scale", "alpha", "logit_softcapping", "softcapping", "ignore_value",
                "attn_logit_softcapping", "logit_scaling", "sm_scale", "qk_scale", "rms_eps", "dropout_p",
                "mrope_section_t", "weight_decay", "lr", "momentum", "clamp_min", "clamp_max"}


def _base_names(node):
    """The names an expression's pointer comes from: x, x + o, x[...], tl.advance(x, ...),
    tl.where(c, x, y)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        left = _base_names(node.left)
        first = node.left
        while isinstance(first, ast.BinOp) and isinstance(first.op, (ast.Add, ast.Sub)):
            first = first.left
        if first is not node.left and isinstance(first, ast.Name):  # p + a + b: p is the base
            return {first.id}
        if left and isinstance(node.left, ast.BinOp):  # (p[...] + a) + b: not b
            return left
        return left | (_base_names(node.right) if isinstance(node.op, ast.Add) else set())
    if isinstance(node, ast.Subscript):
        return _base_names(node.value)
    if isinstance(node, ast.IfExp):
        return _base_names(node.body) | _base_names(node.orelse)
    if isinstance(node, ast.Call) and node.args and _call_name(node) in ("advance", "multiple_of",
                                                                            "max_contiguous", "cast"):
        return _base_names(node.args[0])
    if isinstance(node, ast.Call) and len(node.args) == 3 and _call_name(node) == "where":
        return _base_names(node.args[1]) | _base_names(node.args[2])  # tl.where(is_q, Q_ptr, K_ptr)
    if isinstance(node, ast.Tuple):
        s = set()
        for e in node.elts:
            s |= _base_names(e)
        return s
    return set()


def _call_name(call):
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def pointer_params(fn_node, params, helper_ptrs):
    """The parameters used as pointers: loaded or stored through, made block pointers of,
    dtype read (x.dtype.element_ty), passed as a helper's pointer parameter."""
    seeds, assigns = set(), []

    def base_of(v):  # `p + offs` with p a parameter: p (offs holds offsets)
        if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add) and isinstance(v.left, ast.Name) \
                and v.left.id in params:
            return {v.left.id}
        return _base_names(v)

    for node in ast.walk(fn_node):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            if name in _PTR_CALLS and node.args:
                seeds |= base_of(node.args[0])
            for kw in node.keywords:
                if kw.arg in ("base", "pointer", "ptr") and name in _PTR_CALLS:
                    seeds |= base_of(kw.value)
            if name in helper_ptrs:
                for i in helper_ptrs[name]:
                    if i < len(node.args):
                        seeds |= _base_names(node.args[i])
        elif isinstance(node, ast.Attribute) and node.attr == "dtype" and isinstance(node.value, ast.Name):
            seeds.add(node.value.id)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                assigns.append((t, node.value))
        elif isinstance(node, ast.AugAssign) and not isinstance(node.op, (ast.Add, ast.Sub)):
            assigns.append((node.target, node.value))  # p += offs: offs is no pointer
    # x_ptrs = x + offs ... tl.load(x_ptrs): x is a pointer too (right operands of a + of
    # two names are kept only when the left is not a parameter)
    changed = True
    while changed:
        changed = False
        for t, v in assigns:
            if isinstance(t, ast.Name) and t.id in seeds:
                new = base_of(v) - seeds
                if new:
                    seeds |= new
                    changed = True
    return [p for p in params if p in seeds]


def integer_loaded(fn_node, ptrs):
    """The pointer parameters whose loaded values the kernel uses as integers: a name
    assigned (or added to: +=) from tl.load(p ...) (p a parameter or a local pointer made
    from one by offsets, or from such a name) that reaches a range bound, an
    integer-only operator (//, %, <<, >>, &, |, ^), a pointer offset (added to an expression
    that names a pointer or a stride) or a comparison with an integer load (lightllm's
    `cur_batch_seq_len = tl.load(B_Seqlen + cur_batch)`, `tl.load(Req_to_tokens + ...)`)."""
    names = {}  # local name -> the pointer parameters its value was loaded through
    alias = {p: {p} for p in ptrs}  # a local pointer -> the parameters it is an offset of

    def pointer_of(v):
        return set().union(*(alias.get(n, set()) for n in _base_names(v)))

    def loaded_from(v):
        out = set()
        for node in ast.walk(v):
            if isinstance(node, ast.Call) and _call_name(node) == "load" and node.args:
                out |= pointer_of(node.args[0])
            if isinstance(node, ast.Name) and node.id in names:
                out |= names[node.id]
        return out

    for _ in range(3):
        for node in ast.walk(fn_node):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                t = node.targets[0].id
                if not (isinstance(node.value, ast.Call) and _call_name(node.value) == "load"):
                    src = pointer_of(node.value)  # `block_table_ptr = block_tables + i * stride`
                    if src and t not in ptrs:
                        alias.setdefault(t, set()).update(src)
                names.setdefault(t, set()).update(loaded_from(node.value))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                # `prev_seq_len_sum += tl.load(context_lengths + i)`
                names.setdefault(node.target.id, set()).update(loaded_from(node.value))
    # a sum of loaded values started from an int literal (`total = 0; total += tl.load(lens +
    # i)`): a loop carries it as i32, so those pointers hold i32 (i64 would change its type)
    literal0 = {n.targets[0].id for n in ast.walk(fn_node) if isinstance(n, ast.Assign) and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Constant)
                and type(n.value.value) is int}
    int32 = set()
    for node in ast.walk(fn_node):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in literal0:
            int32 |= loaded_from(node.value)

    def mentions(tree, pred):
        # a name under `.dtype` (`x * scale.to(c_ptr.dtype.element_ty)`) is no pointer offset
        skip = {id(m) for a in ast.walk(tree) if isinstance(a, ast.Attribute) and a.attr in ("dtype", "element_ty")
                for m in ast.walk(a)}
        return any(isinstance(n, ast.Name) and id(n) not in skip and pred(n.id) for n in ast.walk(tree))

    bit_ops = (ast.BitAnd, ast.BitOr, ast.BitXor)
    bools = set()  # names of comparisons' results and of logic on them

    def boolean(e):
        return isinstance(e, ast.Compare) or (isinstance(e, ast.Name) and e.id in bools) or (
            isinstance(e, ast.BinOp) and isinstance(e.op, bit_ops) and boolean(e.left) and boolean(e.right))

    for _ in range(3):
        for node in ast.walk(fn_node):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and boolean(node.value):
                bools.add(node.targets[0].id)

    out = set()
    int_ops = (ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift) + bit_ops
    for node in ast.walk(fn_node):
        hits = []
        if isinstance(node, ast.Call) and _call_name(node) in ("range", "static_range"):
            hits = [a for a in node.args]
        elif isinstance(node, ast.Call) and _call_name(node) == "make_block_ptr":
            # shape, strides, offsets: integers (a sequence length loaded from a lengths tensor)
            hits = node.args[1:4] + [k.value for k in node.keywords if k.arg in ("shape", "strides", "offsets")]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, int_ops):
            hits = [node.left, node.right]
            if isinstance(node.op, bit_ops):  # `(z > t) & mask`, `low | high`: logic on booleans
                hits = [h for h in hits if not boolean(h)]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                if mentions(b, lambda n: n in ptrs or "stride" in n.lower()):
                    hits.append(a)
        for h in hits:
            for n in ast.walk(h):
                if isinstance(n, ast.Name) and n.id in names:
                    out |= names[n.id]
                elif isinstance(n, ast.Call) and _call_name(n) == "load" and n.args:
                    out |= pointer_of(n.args[0])
    return out & set(ptrs), int32 & set(ptrs)


# --- constexpr guesses ---------------------------------------------------------------------


# pointer parameters whose elements are integers by their names (a loss's targets, a
# gather's indices, varlen offsets)
_INT_PTR = re.compile(r"(?i)(target|label|idx|index|indices|_ids|^ids|offsets|cu_seqlen|seqlens|counts?$)")


def guess_constexpr(name):
    u = name.upper()
    if u.startswith(("USE_", "IS_", "HAS_", "STORE_", "SAVE_", "OUTPUT_", "RETURN_", "REVERSE", "HEAD_FIRST",
                     "INPLACE", "RESIDUAL", "EVEN_", "TRANSPOSE", "CHECK", "NORMALIZE", "DO_", "APPLY",
                     "WITH_", "ENABLE", "FUSE", "PERMUTE", "ACCUMULATE", "ALLOW", "LOAD_", "INCLUDE")):
        return False
    if name in ("BT", "BS", "BK", "BV", "BM", "BN", "BD", "BC", "BH", "BO", "BE", "BLOCK", "BLOCK_SIZE",
                "BLOCK_T", "BLOCK_K", "BLOCK_V", "BLOCK_D", "BLOCK_M", "BLOCK_N", "BLOCK_H", "CHUNK_SIZE"):
        return 32
    if u.startswith("BLOCK") or (len(name) <= 3 and name.startswith("B") and name.isupper()):
        return 32
    if name in ("K", "V", "D", "DK", "DV", "HEAD_DIM", "DIM", "N_COLS"):
        return 64
    if name in ("H", "HQ", "G", "NG", "HV"):
        return 4
    if name in ("T", "N", "M", "L", "S"):
        return 128
    if u.startswith("NUM_") or u.startswith("N") and len(name) <= 3:
        return 2
    if u in ("DTYPE", "OUT_DTYPE"):
        return None
    if u.endswith("_DTYPE") or u in ("ACC_TYPE", "ACCUMULATOR_TYPE"):  # mamba's dot_dtype, lmdeploy's
        # ACCUMULATOR_DTYPE, scattermoe's ACC_TYPE (not LOSS_TYPE and such: enums)
        return types.SimpleNamespace(name="float32" if u.startswith("ACC") else "float16")
    return 16


class Kernel:
    def __init__(self, module, jf, configs, heur):
        self.module, self.jf, self.configs, self.heur = module, jf, configs, heur
        self.name = jf.__name__
        self.guessed = []


def collect(mod):
    """(kernel, autotune configs, heuristics) of each kernel the module defines."""
    from nereid import _jit
    from nereid import _autotune
    out, seen = [], set()
    for attr, v in list(vars(mod).items()):
        configs, heur, inner = [], {}, v
        for _ in range(4):
            if isinstance(inner, _autotune.Autotuner):
                configs = configs or list(inner.configs)
                inner = inner.fn
            elif isinstance(inner, _autotune.Heuristics):
                heur.update(inner.values)
                inner = inner.fn
            else:
                break
        jf = _jit._as_jit(inner)
        if jf is None or id(jf) in seen or getattr(jf.fn, "__module__", None) != mod.__name__:
            continue
        seen.add(id(jf))
        try:
            src = textwrap.dedent(inspect.getsource(jf.fn))
        except (OSError, TypeError):
            continue
        if not configs and not heur and "program_id" not in src:
            continue  # a helper
        out.append(Kernel(mod, jf, configs, heur))
    return out


def helper_pointer_positions(mods):
    """helper name -> positions of its pointer parameters (for kernels that pass pointers on)."""
    from nereid import _jit
    out = {}
    for mod in mods:
        for attr, v in vars(mod).items():
            jf = _jit._as_jit(v)
            if jf is None:
                continue
            try:
                fn_node = ast.parse(textwrap.dedent(inspect.getsource(jf.fn))).body[0]
            except (OSError, TypeError, SyntaxError):
                continue
            params = [a.arg for a in fn_node.args.args]
            ptrs = pointer_params(fn_node, params, {})
            out[attr] = [params.index(p) for p in ptrs]
    return out


class _Tensor:
    """What a heuristic reads of a tensor argument."""
    dtype = "bfloat16"
    shape = (2, 128, 4, 64)

    def stride(self, i=None):
        return 1

    def numel(self):
        return 65536

    def __getattr__(self, name):
        return _Any


def plan(k, helper_ptrs, ptr_type, lib_src=""):
    fn_node = ast.parse(textwrap.dedent(inspect.getsource(k.jf.fn))).body[0]
    sig = inspect.signature(k.jf.fn)
    from nereid import _jit
    params, consts = [], {}
    for p in sig.parameters.values():
        ann = p.annotation
        if "constexpr" in (ann if isinstance(ann, str) else getattr(ann, "__name__", "")):
            d = p.default
            if d is not inspect.Parameter.empty and type(d).__name__ == "constexpr":
                d = d.value  # `descending: tl.constexpr = core.CONSTEXPR_0`: its value, not its repr
            consts[p.name] = d
        else:
            params.append(p.name)
    ptrs = set(pointer_params(fn_node, params + list(consts), helper_ptrs))
    int_loaded, int32_loaded = integer_loaded(fn_node, ptrs)
    annotate, defines = {}, {}
    for p in params:
        if p in ptrs and (_INT_PTR.search(p) or p in int_loaded):  # labels, indices, offsets: integers loaded
            annotate[p] = "*i32" if p in int32_loaded else "*i64"
        elif p in ptrs:
            annotate[p] = "*" + ptr_type
        elif p.lower() in _FLOAT_NAMES or p.lower().endswith(("_scale", "eps")):
            annotate[p] = "fp32"
        else:
            annotate[p] = "i32"
    cfg = k.configs[0].kwargs if k.configs else {}
    for name in consts:
        annotate[name] = "constexpr"
    for name, val in cfg.items():
        if name in consts or name in sig.parameters:
            defines[name] = val
    # heuristics: args by name (tensors for pointers, 64 for ints) and what is known so far
    args = {p: (_Tensor() if p in ptrs else 64) for p in params}
    for name, d in consts.items():
        if name not in defines and d is not inspect.Parameter.empty:
            defines[name] = d
    pending = dict(k.heur)
    for _ in range(3):
        for name, f in list(pending.items()):
            try:
                defines[name] = f({**args, **defines})
                del pending[name]
            except Exception:  # noqa: BLE001 - guessed below
                pass
    try:  # a constexpr compared with literals: the first literal the library compares it with
        module_src = inspect.getsource(k.module) + lib_src
    except (OSError, TypeError):
        module_src = lib_src
    for name in consts:
        if name not in defines:
            m = re.search(r"\b%s\s*==\s*(['\"])([^'\"]+)\1" % re.escape(name), module_src)
            # integers only where it selects among several (p == 1 / p == 2: a norm's order),
            # not `K % BK == 0`
            ints = sorted({int(v) for before, v in re.findall(r"(\S?)\s*\b%s\s*==\s*(\d+)\b" % re.escape(name),
                                                              module_src) if before != "%"})
            if m:
                defines[name] = m.group(2)
                k.guessed.append(name)
            elif len(ints) >= 2 and guess_constexpr(name) == 16:  # not a block size
                defines[name] = ints[0]
                k.guessed.append(name)
    for name in consts:
        if name not in defines:
            g = guess_constexpr(name)
            if g is not None:
                defines[name] = g
                k.guessed.append(name)
    for name in list(defines):
        if name in ptrs and name in consts:  # a constexpr pointer? keep as is
            pass
    warps = k.configs[0].num_warps if k.configs and k.configs[0].num_warps else 4
    return annotate, defines, warps


def _define_text(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, (int, float)):
        return repr(v)
    if v is None:
        return "None"
    if isinstance(v, str):
        return repr(v)
    name = getattr(v, "name", None)
    if name:  # a dtype
        return "tl." + name
    return repr(v)


def compile_one(k, nereid_bin, tmp, annotate, defines, warps, emit):
    try:
        text, _ = k.jf.source(annotate)
    except Exception as e:  # noqa: BLE001
        return "source: %s: %s" % (type(e).__name__, e)
    # Nereid's language (typed parameters): .nr, not .py, which nereid compile reads as a
    # Python program (its jit-decorated kernels only)
    src = os.path.join(tmp, "%s__%s.nr" % (k.module.__name__.replace(".", "_"), k.name))
    with open(src, "w") as f:
        f.write(text)
    cmd = [nereid_bin, "compile", src, "-k", k.name, "--arch=sm_90a", "--emit=" + emit, "-o",
           src[:-3] + "." + emit, "--num-warps=%d" % warps]
    for n, v in defines.items():
        cmd += ["-D", "%s=%s" % (n, _define_text(v))]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "timeout"
    if p.returncode == 0:
        return None
    out = (p.stderr or p.stdout or "").splitlines()
    err = [l for l in out if "error" in l] or out
    return ("rc=%d " % p.returncode if p.returncode < 0 or p.returncode > 1 else "") + (err[0][:400] if err else "?")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root")
    ap.add_argument("--package", help="the package folder under ROOT (default: each one there)")
    ap.add_argument("--modules", default="**/*.py", help="glob of the modules to import, under the package")
    ap.add_argument("--build", default="build")
    ap.add_argument("--emit", default="ptx")
    ap.add_argument("--ptr-type", default="fp32")
    ap.add_argument("--keep")
    ap.add_argument("--skip-init", default="", help="packages (comma-separated) whose __init__.py is not run")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 4)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(ROOT, args.build, "python"))
    import nereid.dropin
    nereid.dropin.install()
    os.environ.setdefault("UNSLOTH_ALLOW_CPU", "1")
    overrides = {k: v for k, v in _overrides().items() if v is not None}
    root = os.path.abspath(args.root)
    pkgs = [args.package] if args.package else [d for d in os.listdir(root)
                                                 if os.path.isfile(os.path.join(root, d, "__init__.py"))]
    # the packages checked are imported for real, even those another library's check stubs
    sys.meta_path.insert(0, _StubFinder(STUBBED - set(pkgs), overrides))
    sys.path.insert(0, root)
    for name in filter(None, args.skip_init.split(",")):
        m = types.ModuleType(name)
        m.__path__ = [os.path.join(root, *name.split("."))]
        sys.modules[name] = m
        if "." in name:
            setattr(sys.modules[name.rsplit(".", 1)[0]], name.rsplit(".", 1)[1], m)
    files = []
    for pkg in pkgs:
        files += sorted(glob.glob(os.path.join(root, pkg, args.modules), recursive=True))
    files = [f for f in files if "triton.jit" in open(f, encoding="utf-8", errors="replace").read()]
    mods, import_fails = [], []
    for path in files:
        rel = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
        if rel.endswith(".__init__"):
            rel = rel[:-len(".__init__")]
        try:
            mods.append(importlib.import_module(rel))
        except Exception as e:  # noqa: BLE001 - reported
            import_fails.append((rel, "%s: %s" % (type(e).__name__, str(e)[:200])))
    helper_ptrs = helper_pointer_positions(mods)
    lib_src = ""
    for mod in mods:
        with contextlib.suppress(OSError, TypeError):
            lib_src += "\n" + inspect.getsource(mod)
    kernels = []
    for m in mods:
        kernels += collect(m)
    tmp = args.keep or tempfile.mkdtemp(prefix="lib-check-")
    os.makedirs(tmp, exist_ok=True)
    nereid_bin = os.path.join(ROOT, args.build, "nereid")
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(args.j) as ex:
        for k in kernels:
            try:
                annotate, defines, warps = plan(k, helper_ptrs, args.ptr_type, lib_src)
            except Exception as e:  # noqa: BLE001
                jobs.append((k, None, "plan: %s: %s" % (type(e).__name__, e)))
                continue
            jobs.append((k, defines, ex.submit(compile_one, k, nereid_bin, tmp, annotate, defines, warps,
                                               args.emit)))
        results = [(k, d, r.result() if isinstance(r, concurrent.futures.Future) else r) for k, d, r in jobs]
    fails = 0
    for rel, why in import_fails:
        print("IMPORT %s: %s" % (rel, why))
    for k, d, err in results:
        if err:
            fails += 1
            g = (" [guessed %s]" % ",".join(k.guessed)) if k.guessed else ""
            print("FAIL %s.%s%s: %s" % (k.module.__name__, k.name, g, err))
        elif args.verbose:
            print("ok   %s.%s %s" % (k.module.__name__, k.name, d))
    print("%d modules (%d failed to import), %d kernels, %d compiled, %d failed" %
          (len(files), len(import_fails), len(kernels), len(kernels) - fails, fails))
    return 1 if fails or import_fails else 0


if __name__ == "__main__":
    sys.exit(main())
