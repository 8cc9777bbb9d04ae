"""nereid.dropin: code written for Triton (`import triton`, `@triton.jit`, `triton.autotune`)
runs through Nereid unchanged, on the CPU interpreter here (Triton is not needed: where
it is missing, `triton` is made of Nereid's pieces): through `python -m nereid.run`, in
the child processes such a program starts (subprocess, multiprocessing's spawn), through
NEREID_TRITON=1, and under pytest with `-p nereid.pytest_plugin`, whose report counts each
test's Nereid and Triton launches."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

# A program in Triton's style (ours): kernels decorated with @triton.jit, a module constant
# written as tl.constexpr, an autotuned kernel, a helper, launches on NumPy arrays.
PROGRAM = '''
import sys
import numpy as np
import triton
import triton.language as tl

SCALE = tl.constexpr(3)


@triton.jit
def twice(x):
    return x * 2


@triton.jit
def axpy(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, twice(x) * SCALE + y, mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64}, num_warps=2)], key=["n"])
@triton.jit
def fill(out_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, value, mask=offs < n)


def main():
    import nereid
    assert triton.jit is nereid.jit and issubclass(triton.JITFunction, nereid.JITFunction), "not installed"
    assert isinstance(axpy, triton.JITFunction)
    n = 100
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    axpy[(triton.cdiv(n, 32),)](x, y, out, n, BLOCK=32)
    np.testing.assert_array_equal(out, x * 6 + 1)
    f = np.zeros(n, dtype=np.int32)
    fill[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](f, n, 7)
    assert (f == 7).all(), f
    print("OK", triton.__name__)


if __name__ == "__main__":
    main()
'''

# Triton's launch-time specialisation of ints equal to 1 through the drop-in (ours too): a
# tuple's item 1 is a constexpr descriptor stride, a bare parameter's 1 a constexpr, a
# do_not_specialize parameter's a run-time value, a bool never one.
ONES = '''
import numpy as np
import triton
import triton.language as tl


@triton.jit
def power_tile(base, shape, strides, m_n, BLOCK: tl.constexpr):
    tl.static_assert(isinstance(strides[1].type, tl.constexpr_type))
    desc = tl.make_tensor_descriptor(base, shape=shape, strides=strides, block_shape=[BLOCK, BLOCK])
    tile = desc.load([0, 0])
    for _ in tl.range(0, m_n[1]):
        tile = m_n[0] * tile
    desc.store([0, 0], tile)


@triton.jit(do_not_specialize=["kept"])
def values(out, n, kept, flag, EXPECT_ONE: tl.constexpr):
    tl.static_assert(isinstance(n.type, tl.constexpr_type) == EXPECT_ONE)
    tl.static_assert(not isinstance(kept.type, tl.constexpr_type))
    tl.static_assert(not isinstance(flag.type, tl.constexpr_type))
    tl.store(out, n * 100 + kept * 10 + flag.to(tl.int32))


def main():
    import nereid
    assert triton.jit is nereid.jit, "not installed"
    x = np.arange(16, dtype=np.int64).reshape(4, 4)
    want = x * 8
    power_tile[(1,)](x, x.shape, (4, 1), (2, 3), 4)
    np.testing.assert_array_equal(x, want)
    out = np.zeros(1, np.int32)
    for n, kept in ((1, 1), (2, 1), (1, 2)):
        values[(1,)](out, n, kept, True, n == 1)
        assert out[0] == n * 100 + kept * 10 + 1, (n, kept, out)
    print("OK ones")


if __name__ == "__main__":
    main()
'''

CHILD = '''
import multiprocessing as mp
import subprocess
import sys


def check(_):
    import triton
    import nereid
    return triton.jit is nereid.jit


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        spawned = pool.map(check, [0])[0]
    out = subprocess.run([sys.executable, "-c", "import triton, nereid; print(triton.jit is nereid.jit)"],
                         capture_output=True, text=True)
    print("spawn", spawned, "subprocess", out.stdout.strip(), out.stderr.strip())
'''

TEST_MODULE = '''
import numpy as np
import triton
import triton.language as tl


@triton.jit
def neg(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, -tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_neg():
    x = np.arange(10, dtype=np.float32)
    out = np.zeros_like(x)
    neg[(1,)](x, out, 10, BLOCK=16)
    np.testing.assert_array_equal(out, -x)


def test_nothing_launched():
    assert triton.cdiv(10, 4) == 3


def test_fails():
    assert False, "on purpose"
'''


# A stand-in for an installed Triton, laid out as Triton 3.6 is where the drop-in touches it:
# `triton.runtime.jit` is both a submodule and (in triton.runtime's namespace) the
# submodule's name, beside the `jit` decorator it defines; Triton's own classes stay usable.
FAKE_TRITON = {
    "triton/__init__.py": "from .runtime import autotune, heuristics, Config, JITFunction\n"
                          "from .runtime.jit import jit\n"
                          "from .compiler.errors import CompilationError\n"
                          "from . import language, testing\n"
                          "def cdiv(a, b):\n    return -(-a // b)\n",
    "triton/runtime/__init__.py": "from .jit import JITFunction, TensorWrapper\n"
                                  "from .autotuner import autotune, heuristics, Config\n",
    "triton/runtime/jit.py": "class JITFunction:\n    def __init__(self, fn):\n        self.fn = fn\n"
                             "    def run(self, *a, **k):\n        raise RuntimeError('Triton ran')\n"
                             "class TensorWrapper:\n    pass\n"
                             "def jit(fn=None, **kw):\n    return JITFunction(fn) if fn else (lambda f: JITFunction(f))\n",
    "triton/runtime/autotuner.py": "def autotune(*a, **k):\n    raise RuntimeError('Triton autotune')\n"
                                   "def heuristics(*a, **k):\n    raise RuntimeError('Triton heuristics')\n"
                                   "class Config:\n    pass\n",
    "triton/compiler/__init__.py": "",
    "triton/compiler/errors.py": "class CompilationError(Exception):\n"
                                 "    def __init__(self, src, node, error_message):\n        super().__init__(error_message)\n"
                                 "class CompileTimeAssertionFailure(CompilationError):\n    pass\n",
    "triton/language/__init__.py": "class constexpr:\n    def __init__(self, value):\n        self.value = value\n"
                                   "float32 = 'fp32'\n",
    "triton/testing.py": "def do_bench(fn, **kw):\n    fn()\n    return 1.0\n",
}


def _env(**extra):
    env = dict(os.environ)
    env.pop("NEREID_TRITON", None)
    env["NEREID_DEVICE"] = "cpu"
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.update(extra)
    return env


# A library's checks of its target, as OpenAI's triton_kernels writes them (ours).
TARGET_INFO = """
import numpy as np
import triton
import triton.language as tl
from triton.language.target_info import cuda_capability_geq, is_cuda
import triton.language.target_info as ti
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def k(out):
    if cuda_capability_geq(9, 0):
        tl.store(out, 1)
    else:
        tl.store(out, 2)


@triton.constexpr_function
def backend():
    t = tl.target_info.current_target()
    return "none" if t is None else t.backend


@triton.jit
def k2(out):
    if backend() == "none":
        tl.store(out, 7)
    else:
        tl.store(out, 8)


@triton.jit
def k3(out):  # spelled as triton_kernels spells it
    if tl.target_info.is_cuda() or tl.target_info.cuda_capability_geq(8, 0):
        tl.store(out, 5)
    else:
        tl.store(out, 6)


o = np.zeros(1, np.int32)
k[(1,)](o)
o2 = np.zeros(1, np.int32)
k2[(1,)](o2)
o3 = np.zeros(1, np.int32)
k3[(1,)](o3)
x = np.arange(64, dtype=np.float32).reshape(8, 8)
desc = TensorDescriptor.from_tensor(x, [4, 4])
print("target_info", o[0], o2[0], o3[0], is_cuda(), ti.current_target(), desc.block_shape)
"""


# A library's host code sizing its work from the driver, as persistent kernels and
# tuning-config filters write it (ours): triton.runtime.driver.active; names imported
# from triton.language.standard; triton.testing's perf_report sweep.
DRIVER = """
import numpy as np
import triton
import triton.language as tl
from triton.runtime import driver
from triton.language.standard import _log2, sum, zeros_like


@triton.jit
def count(out, n, NUM_SMS: tl.constexpr):
    pid = tl.program_id(0)
    for i in range(pid, n, NUM_SMS):
        tl.atomic_add(out, 1)


@triton.jit
def total(x_ptr, out_ptr, N: tl.constexpr):  # triton.language.standard's names, as lightllm imports them
    x = tl.load(x_ptr + tl.arange(0, N))
    L: tl.constexpr = _log2(N)
    tl.store(out_ptr + tl.arange(0, N), zeros_like(x) + sum(x, 0) + L)


dev = driver.active.get_current_device()
props = driver.active.utils.get_device_properties(dev)
sms = props["multiprocessor_count"]
configs = [s for s in (65536, 131072, 262144) if s <= props["max_shared_mem"]]
o = np.zeros(1, np.int32)
count[(sms,)](o, 100, NUM_SMS=sms)
target = triton.runtime.driver.active.get_current_target()
x = np.arange(16, dtype=np.float32)
t = np.zeros_like(x)
total[(1,)](x, t, N=16)


@triton.testing.perf_report(triton.testing.Benchmark(
    x_names=["n"], x_vals=[2, 3], line_arg="provider", line_vals=["a", "b"], line_names=["A", "B"],
    plot_name="sweep", args={"k": 10}))
def sweep(n, provider, k):  # the tutorials' benchmark sweep, with values instead of timings
    return (n * k, n, n * k * 2) if provider == "a" else n + k


sweep.run(print_data=True, show_plots=True)
# what libraries probe and their matmul performance models divide by (xformers' tiled
# matmul): per multiprocessor, the peaks of the sm_90 GPU the interpreter answers as
import importlib.util
from triton.testing import get_dram_gbps, get_max_tensorcore_tflops, get_max_simd_tflops
clock = props["sm_clock_rate"]
peaks = [get_max_tensorcore_tflops(d, clock) / sms for d in (tl.float16, tl.float32, tl.int8)]
try:
    get_max_tensorcore_tflops(tl.float64, clock)
except RuntimeError as e:
    refused = str(e)
spec = importlib.util.find_spec("triton.language.extra.libdevice")
again = importlib.util.module_from_spec(spec)  # loaded again from its spec, as xformers imports it
spec.loader.exec_module(again)


@triton.jit
def rsqrt_kernel(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, again.rsqrt(tl.load(x_ptr + offs)))


r = np.zeros(4, np.float32)
rsqrt_kernel[(1,)](np.array([1, 4, 16, 64], np.float32), r, N=4)
print("peaks", list(r), round(get_dram_gbps(), 2),
      [round(p, 5) for p in peaks], round(get_max_simd_tflops(tl.float32, clock) / sms, 5), refused)
# triton.knobs: Triton's namespaces, backed by the environment as there
import os
triton.knobs.autotuning.cache = False
assert os.environ.get("TRITON_PRINT_AUTOTUNING") is None and triton.knobs.autotuning.print is False
with triton.knobs.autotuning.scope():
    triton.knobs.autotuning.print = True
    inside = os.environ["TRITON_PRINT_AUTOTUNING"]
seen = []
triton.knobs.runtime.launch_enter_hook.add(seen.append)
triton.knobs.runtime.launch_enter_hook("x")
import tempfile
fake = os.path.join(tempfile.mkdtemp(), "ptxas")  # a CUDA tool by TRITON_PTXAS_PATH, its version read
with open(fake, "w") as f:
    f.write("#!/bin/sh\\necho 'Cuda compilation tools, release 9.9, V9.9.1'\\n")
os.chmod(fake, 0o755)
os.environ["TRITON_PTXAS_PATH"] = fake
try:  # triton.testing.assert_close: Triton's check, on NumPy arrays here
    triton.testing.assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.005]))
    triton.testing.assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.5]), atol=lambda dt: 0.1)
    closeness = "no error"
except AssertionError:
    closeness = "second refused"
ms = triton.testing.do_bench_cudagraph(lambda: None, rep=1)
print("close", closeness, ms >= 0)
print("knobs", inside, os.environ.get("TRITON_PRINT_AUTOTUNING"), triton.knobs.autotuning.print,
      triton.knobs.compilation.always_compile, triton.knobs.language.default_fp_fusion, seen,
      triton.knobs.nvidia.ptxas.version, triton.knobs.nvidia.ptxas.path == fake)
print("driver", target.backend, target.warp_size, dev, driver.active.get_current_stream(dev), sms >= 1, configs,
      props["warpSize"], o[0], t[0])
"""


# The stand-ins for Triton's modules exist only where Triton is not installed.
def _triton_installed():
    try:
        return importlib.util.find_spec("triton") is not None and \
            not getattr(sys.modules.get("triton"), "__nereid__", False)
    except ValueError:  # a triton in sys.modules without a spec: the drop-in's stand-in
        return False


_TRITON_INSTALLED = _triton_installed()


# triton.language's submodules math and random, imported by name (Liger-Kernel's kernels take
# rsqrt and tanh from triton.language.math where its version check says so)
SUBMODULES = """
import numpy as np
import triton
import triton.language as tl
from triton.language.math import rsqrt
from triton.language.random import rand, randint
import triton.language.math as tlm


@triton.jit
def k(x_ptr, y_ptr, z_ptr, r_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    tl.store(y_ptr + offs, rsqrt(x), mask=m)
    tl.store(z_ptr + offs, tlm.exp2(x) + tl.math.sqrt(x), mask=m)
    same = (rand(seed, offs) == tl.rand(seed, offs)) & (randint(seed, offs) == tl.randint(seed, offs))
    tl.store(r_ptr + offs, same.to(tl.int32), mask=m)


x = np.linspace(0.5, 4.0, 100).astype(np.float32)
y, z, r = np.zeros_like(x), np.zeros_like(x), np.zeros(100, np.int32)
compiled = k[(2,)](x, y, z, r, 7, 100, BLOCK=64)
from triton.compiler import CompiledKernel
assert isinstance(compiled, CompiledKernel) and compiled.n_regs is not None
assert np.abs(y - 1 / np.sqrt(x)).max() < 1e-6 and np.abs(z - (np.exp2(x) + np.sqrt(x))).max() < 1e-5
assert r.min() == 1
print("OK submodules", triton.language.math is tl.math)
"""


class DropIn(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="nereid-dropin-")

    def tearDown(self):
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))
        return path

    def run_program(self, name, text, env=None):
        """`python -m nereid.run` on text written to name: the finished process."""
        script = self.write(name, text)
        return subprocess.run([sys.executable, "-m", "nereid.run", script], env=env or _env(), capture_output=True,
                              text=True, timeout=300, cwd=self.dir)

    def test_run_a_program(self):
        out = self.run_program("prog.py", PROGRAM)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("OK triton", out.stdout)

    @unittest.skipIf(_TRITON_INSTALLED, "Triton is installed: its own language package is used")
    def test_language_submodules(self):
        out = self.run_program("submodules.py", SUBMODULES)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("OK submodules True", out.stdout)

    def test_ints_equal_to_one(self):
        out = self.run_program("ones.py", ONES)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("OK ones", out.stdout)

    def test_environment_variable(self):
        script = self.write("prog.py", PROGRAM)
        from nereid import dropin
        env = _env(NEREID_TRITON="1")
        env["PYTHONPATH"] = os.pathsep.join([dropin.SITE_DIR, env["PYTHONPATH"]])
        out = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True, timeout=300,
                             cwd=self.dir)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("OK triton", out.stdout)

    def test_without_the_switch_nothing_changes(self):
        script = self.write("prog.py", PROGRAM)
        out = subprocess.run([sys.executable, script], env=_env(), capture_output=True, text=True, timeout=300,
                             cwd=self.dir)
        self.assertNotEqual(out.returncode, 0)  # no Triton here, or Triton's own jit: not Nereid's

    def test_child_processes(self):
        out = self.run_program("child.py", CHILD)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("spawn True subprocess True", out.stdout)

    def test_install_in_process(self):
        code = ("import nereid.dropin as d; t = d.install(); import triton, triton.language as tl\n"
                "from triton.language.extra import libdevice\n"
                "from triton.language.extra.libdevice import fast_dividef\n"
                "import nereid\n"
                "assert t is triton and d.installed() and triton.autotune is nereid.autotune\n"
                "assert triton.Config is nereid.Config and triton.heuristics is nereid.heuristics\n"
                "assert issubclass(nereid.CompileError, triton.CompilationError)\n"
                "e = nereid.CompileError('x.py:2:5: error: static_assert failed: small')\n"
                "assert isinstance(e, triton.compiler.errors.CompileTimeAssertionFailure)\n"
                "print('installed')\n")
        out = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("installed", out.stdout)

    def test_cuda_libdevice(self):
        # triton.language.extra.cuda.libdevice is a module of Triton 3.x (extra.libdevice is
        # it): libraries bind its functions at module level (lmdeploy's attention kernels:
        # `tanh = tl.extra.cuda.libdevice.tanh`) and call it in kernels by that path
        code = ("import numpy as np, nereid.dropin as d; d.install()\n"
                "import triton, triton.language as tl\n"
                "from triton.language.extra.cuda import libdevice as cl\n"
                "from triton.language.extra.cuda.libdevice import fast_dividef\n"
                "tanh = tl.extra.cuda.libdevice.tanh\n"
                "assert tanh is tl.extra.libdevice.tanh and cl is tl.extra.libdevice\n"
                "assert callable(tl.extra.cuda.gdc_wait)\n"
                "@triton.jit\n"
                "def k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):\n"
                "    offs = tl.arange(0, BLOCK)\n"
                "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
                "    y = tanh(x) + tl.extra.cuda.libdevice.tanh(x) + fast_dividef(cl.tanh(x), 2.0)\n"
                "    tl.store(o_ptr + offs, y, mask=offs < n)\n"
                "x = np.linspace(-3, 3, 100).astype(np.float32); o = np.zeros_like(x)\n"
                "k[(1,)](x, o, 100, BLOCK=128)\n"
                "assert np.abs(o - 2.5 * np.tanh(x)).max() < 1e-5, np.abs(o - 2.5 * np.tanh(x)).max()\n"
                "print('cuda libdevice')\n")
        script = self.write("cuda_libdevice.py", code)
        out = subprocess.run([sys.executable, script], env=_env(), capture_output=True, text=True, timeout=120,
                             cwd=self.dir)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("cuda libdevice", out.stdout)

    def test_an_installed_triton(self):
        site = os.path.join(self.dir, "site")
        for name, text in FAKE_TRITON.items():
            os.makedirs(os.path.dirname(os.path.join(site, name)), exist_ok=True)
            with open(os.path.join(site, name), "w") as f:
                f.write(text)
        code = ("import triton.runtime.jit as before\n"
                "helper = before.jit(lambda x: x)  # Triton's own helper, decorated before install\n"
                "import nereid.dropin as d; d.install()\n"
                "import triton, triton.runtime.jit as tj, nereid\n"
                "assert isinstance(helper, tj.JITFunction)  # Triton's isinstance checks of its own helpers hold\n"
                "assert isinstance(nereid.jit(lambda x: x), tj.JITFunction) and not isinstance(3, tj.JITFunction)\n"
                "assert triton.jit is nereid.jit and tj.jit is nereid.jit and triton.runtime.jit is tj\n"
                "assert tj.TensorWrapper and triton.runtime.TensorWrapper  # Triton's own pieces stay\n"
                "import typing; T = typing.TypeVar('T')\n"
                "class Sub(tj.JITFunction[T]): pass  # as Triton's lazily imported gluon module does\n"
                "assert issubclass(Sub, nereid.JITFunction)\n"
                "assert triton.autotune is nereid.autotune and triton.runtime.autotuner.Config is nereid.Config\n"
                "e = nereid.CompileError('x.py:1:1: error: no')\n"
                "assert isinstance(e, triton.CompilationError) and 'error: no' in str(e)\n"
                "from triton.compiler.errors import CompileTimeAssertionFailure as F\n"
                "e = nereid.CompileError('x.py:2:5: error: static_assert failed: small')\n"
                "assert isinstance(e, F) and isinstance(e, nereid.CompileError) and not isinstance(nereid.CompileError('x.py:1:1: error: no'), F)\n"
                "print('kept')\n")
        env = _env()
        env["PYTHONPATH"] = os.pathsep.join([site, env["PYTHONPATH"]])
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("kept", out.stdout)
        out = self.run_program("prog.py", PROGRAM, env)  # Triton's language is Triton's here: they still compile
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("OK triton", out.stdout)

    @unittest.skipIf(_TRITON_INSTALLED, "Triton is installed: its target_info and tensor descriptors are used, "
                     "not the stand-ins this tests")
    def test_target_info(self):
        # triton.language.target_info without Triton: the interpreter's target is none (as
        # Triton's without a driver), so a library's capability checks, in a kernel (run in
        # Python by the compiler's call) and in host code, take their portable paths
        out = self.run_program("target.py", TARGET_INFO, _env(NEREID_DEVICE="cpu"))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("target_info 2 7 6 False None [4, 4]", out.stdout)

    @unittest.skipIf(_TRITON_INSTALLED, "Triton is installed: its driver is used, not the stand-in this tests")
    def test_driver(self):
        # triton.runtime.driver without Triton: the CPU interpreter's target ("cpu", as
        # Triton's CPU back end), device 0, stream 0, a multiprocessor per CPU and Hopper's
        # per-block limits (so configurations written for it run on the interpreter)
        out = self.run_program("driver.py", DRIVER, _env(NEREID_DEVICE="cpu"))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("driver cpu 32 0 0 True [65536, 131072] 32 100 124.0", out.stdout)
        # libdevice found by find_spec and loaded again from its spec; the peak figures (an H100 SXM's clocks and bus:
        # 2619 MHz x 5120 bits x 2 / 8 = 3352.32 GB/s; 4 sub-cores x 1980 MHz x 512, 256,
        # 1024 tensor-core and 32 fp32 operations a cycle, per multiprocessor)
        self.assertIn("knobs 1 None False False True ['x'] 9.9 True", out.stdout)
        self.assertIn("close second refused True", out.stdout)
        self.assertIn("peaks [1.0, 0.5, 0.25, 0.125] 3352.32 [4.05504, 2.02752, 8.11008] 0.25344 dtype not supported",
                      out.stdout)
        # triton.testing.perf_report's sweep: every x value against every line value
        self.assertIn("sweep:", out.stdout)
        rows = [line.split() for line in out.stdout.splitlines()]
        self.assertIn(["n", "A", "A-min", "A-max", "B"], rows)
        self.assertIn(["2", "20", "2", "40", "12"], rows)
        self.assertIn(["3", "30", "3", "60", "13"], rows)

    def test_pytest_plugin(self):
        try:
            import pytest  # noqa: F401
        except ImportError:
            self.skipTest("pytest is not installed (make deps installs python3-pytest)")
        mod = self.write("test_mod.py", TEST_MODULE)
        report = os.path.join(self.dir, "report.json")
        out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "nereid.pytest_plugin", mod,
                              f"--nereid-report={report}", "-p", "no:cacheprovider"],
                             env=_env(), capture_output=True, text=True, timeout=300, cwd=self.dir)
        self.assertIn("1 failed, 2 passed", out.stdout, out.stdout + out.stderr)
        with open(report) as f:
            r = json.load(f)
        by_name = {k.split("::")[-1]: v for k, v in r.items()}
        self.assertEqual(by_name["test_neg"]["outcome"], "passed")
        self.assertGreaterEqual(by_name["test_neg"]["nereid_launches"], 1)
        self.assertEqual(by_name["test_neg"]["triton_launches"], 0)
        self.assertEqual(by_name["test_nothing_launched"]["nereid_launches"], 0)
        self.assertEqual(by_name["test_fails"]["outcome"], "failed")
        self.assertIn("on purpose", by_name["test_fails"]["error"])


if __name__ == "__main__":
    unittest.main()
