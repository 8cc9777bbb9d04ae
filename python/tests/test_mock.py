"""The package's CUDA launch path without a GPU: launches on the stand-in driver
(tests/mock/cuda_mock.c, first on LD_LIBRARY_PATH), which records what each launch of a
"record_" kernel passed (cuMockLastLaunch, read here through ctypes). Checks that what
reaches the driver is right (pointers from tensors and __cuda_array_interface__, every
scalar type, the grid, num_warps, torch's current stream) and stays right on the fast
paths of repeated launches: the tensor types and dtypes cached per type, the last
launch's kernel reused while its key holds, the parsed grid; and that every error of the
general path is raised from them too (a tensor of another dtype or on the CPU, an int out
of range). Tensor descriptor arguments on this path: what the package reads of them and
checks, and what reaches nr_launch (its checks of the nr_tensor_desc it is given). With
several stand-in devices (CUDA_MOCK_DEVICES=2): a module compiled for "cuda:1" runs there,
and a @nereid.jit kernel runs each launch on its first tensor's device (or torch's current
one; a descriptor's base counts), with kernels kept per device and compiled once for both.

    LD_LIBRARY_PATH=build/mock PYTHONPATH=build/python python3 python/tests/run.py test_mock

tools/run-tests.sh runs it so. Without the stand-in driver the tests skip.
"""
import ctypes
import importlib.util
import operator
import os
import struct
import sys
import types
import unittest

# a stand-in: what the launch reads of torch (the current device and its current stream)
_torch = types.ModuleType("torch")
_torch.stream = {}  # device index -> the current stream's handle
_torch.current = 0  # the current device
_torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda index: _torch.stream.get(index, 0),
                                  _cuda_getDevice=lambda: _torch.current)
if importlib.util.find_spec("torch") is None:
    sys.modules["torch"] = _torch
    STREAMS = True
else:  # the real torch's streams are its own: not these tests'
    STREAMS = False

import nereid  # noqa: E402
import nereid.language as tl  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ws_kernels  # noqa: E402

try:
    CTX = nereid.context("cuda")
    MOCK = "tests/mock" in CTX.device_name
except nereid.Error:
    CTX, MOCK = None, False


class MockLaunch(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_char * 128), ("function", ctypes.c_ulonglong), ("grid", ctypes.c_uint * 3),
                ("block", ctypes.c_uint * 3), ("shared", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("nparams", ctypes.c_int), ("params", ctypes.c_ulonglong * 32), ("count", ctypes.c_longlong),
                ("device", ctypes.c_int), ("cooperative", ctypes.c_int)]


def last_launch():
    lib = ctypes.CDLL("libcuda.so.1")  # the library the runtime loaded
    rec = MockLaunch()
    lib.cuMockLastLaunch(ctypes.byref(rec))
    return rec


class DType:
    """A stand-in for torch.dtype: hashed by identity, printed as torch prints it."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


float32, float16, int64 = DType("float32"), DType("float16"), DType("int64")


class Tensor:
    """What a launch reads from a torch.Tensor, with C-level accessors as torch's are."""
    __slots__ = ("is_cuda", "dtype", "_ptr")
    data_ptr = operator.attrgetter("_ptr")  # called as Tensor.data_ptr(t), as the launch calls it

    def __init__(self, ptr, dtype=float32, is_cuda=True):
        self.is_cuda, self.dtype, self._ptr = is_cuda, dtype, ptr


class PyTensor:
    """The same with Python properties and a Python method."""
    is_cuda = property(lambda self: self._cuda)
    dtype = property(lambda self: self._dtype)

    def __init__(self, ptr, dtype=float32, is_cuda=True):
        self._ptr, self._dtype, self._cuda = ptr, dtype, is_cuda

    def data_ptr(self):
        return self._ptr


class DevTensor:
    """A tensor on a given device: get_device() as torch's (a C-level accessor here too)."""
    __slots__ = ("is_cuda", "dtype", "_ptr", "_dev")
    data_ptr = operator.attrgetter("_ptr")
    get_device = operator.attrgetter("_dev")

    def __init__(self, ptr, dev, dtype=float32):
        self.is_cuda, self.dtype, self._ptr, self._dev = True, dtype, ptr, dev


class CudaArray:
    def __init__(self, ptr, typestr="<f4"):
        self.__cuda_array_interface__ = {"shape": (4,), "typestr": typestr, "data": (ptr, False), "version": 3}


SRC = """
@triton.jit
def record_all(x: *fp32, y: *fp16, n: i32, u: u64, f: fp32, b: i1, s: i8):
    tl.store(x, n * 1.0)
"""

BASE = 0x7f0000001000


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


@unittest.skipUnless(MOCK, "needs the stand-in CUDA driver (LD_LIBRARY_PATH=build/mock)")
class CompiledLaunch(unittest.TestCase):
    def setUp(self):
        self.mod = nereid.compile(SRC, device="cuda")
        self.k = self.mod.record_all

    def launch(self, *args, grid=(2, 3), **kw):
        self.k[grid](*args, **kw)
        return last_launch()

    def test_what_the_driver_receives(self):
        for cls in (Tensor, PyTensor):
            for i in range(3):  # the first launch takes the general path, the others the fast one
                x, y = cls(BASE + 64 * i), cls(BASE + 4096 + 2 * i, float16)
                rec = self.launch(x, y, 100 + i, 2 ** 64 - 1 - i, 0.1, True, -3)
                self.assertEqual(rec.kernel, b"record_all")
                self.assertEqual(rec.nparams, 7)
                self.assertEqual(list(rec.params[:7]), [BASE + 64 * i, BASE + 4096 + 2 * i, 100 + i, 2 ** 64 - 1 - i,
                                                        f32_bits(0.1), 1, 0xfd])
                self.assertEqual((list(rec.grid), rec.block[0]), ([2, 3, 1], 128))

    def test_options_grids_and_streams(self):
        x, y = Tensor(BASE), Tensor(BASE + 64, float16)
        self.assertEqual(self.launch(x, y, 1, 2, 3.0, False, 0, num_warps=8).block[0], 256)
        self.assertEqual(self.launch(x, y, 1, 2, 3.0, False, 0, grid=7).grid[0], 7)
        g = [4, 5]
        self.assertEqual(list(self.launch(x, y, 1, 2, 3.0, False, 0, grid=g).grid), [4, 5, 1])
        g[0] = 6  # a list is read at each launch
        self.assertEqual(list(self.launch(x, y, 1, 2, 3.0, False, 0, grid=g).grid), [6, 5, 1])
        seen = {}
        rec = self.launch(x, y, 1, 2, 3.0, False, 0, grid=lambda meta: seen.update(meta) or (meta["n"] + 2,))
        self.assertEqual((rec.grid[0], seen["x"] is x, seen["s"]), (3, True, 0))
        before = last_launch().count
        self.k[(0, 1)](x, y, 1, 2, 3.0, False, 0)  # nothing runs
        self.assertEqual(last_launch().count, before)
        if STREAMS:
            sys.modules["torch"].stream[CTX.index] = 0x5000
            try:
                self.assertEqual(self.launch(x, y, 1, 2, 3.0, False, 0).stream, 0x5000)
            finally:
                sys.modules["torch"].stream.clear()
            self.assertIsNone(self.launch(x, y, 1, 2, 3.0, False, 0).stream)

    def test_grid_errors_and_the_launch_method(self):
        x, y = Tensor(BASE), Tensor(BASE + 64, float16)
        self.assertEqual(list(self.launch(x, y, 1, 2, 3.0, False, 0, grid=(5, 6, 7)).grid), [5, 6, 7])
        for _ in range(2):  # a grid read when `k[grid]` is made still fails at each launch, with its message
            with self.assertRaisesRegex(ValueError, "the grid has 0 dimensions"):
                self.launch(x, y, 1, 2, 3.0, False, 0, grid=())
            with self.assertRaisesRegex(ValueError, "grid dimension 0 is 2147483648"):
                self.launch(x, y, 1, 2, 3.0, False, 0, grid=(2 ** 31,))
            with self.assertRaisesRegex(ValueError, "grid dimension 1 is -1"):
                self.launch(x, y, 1, 2, 3.0, False, 0, grid=(1, -1))
            with self.assertRaisesRegex(TypeError, "the grid must be a tuple of 1 to 3 ints"):
                self.launch(x, y, 1, 2, 3.0, False, 0, grid="x")
        self.k.launch((4, 2), x, y, 1, 2, 3.0, False, 0)
        self.assertEqual(list(last_launch().grid), [4, 2, 1])
        self.k.launch(lambda meta: (meta["n"],), x, y, 9, 2, 3.0, False, 0)
        self.assertEqual(last_launch().grid[0], 9)
        self.k._context = self.k._context  # the same context again: the kernels are found again
        self.assertEqual(self.launch(x, y, 3, 2, 3.0, False, 0).params[2], 3)

    def test_errors_on_the_fast_path_too(self):
        x, y = Tensor(BASE), Tensor(BASE + 64, float16)
        for _ in range(2):  # before and after the launch path has cached the arguments' types
            self.launch(x, y, 1, 2, 3.0, False, 0)
            with self.assertRaisesRegex(TypeError, r"argument 'y' is \*fp16, got an array of fp32"):
                self.launch(x, Tensor(BASE), 1, 2, 3.0, False, 0)
            with self.assertRaisesRegex(ValueError, r"argument 'x' must be on the GPU"):
                self.launch(Tensor(BASE, is_cuda=False), y, 1, 2, 3.0, False, 0)
            with self.assertRaisesRegex(OverflowError, r"argument 'n' \(i32\) out of range"):
                self.launch(x, y, 2 ** 31, 2, 3.0, False, 0)
            with self.assertRaisesRegex(OverflowError, r"argument 's' \(i8\) out of range"):
                self.launch(x, y, 1, 2, 3.0, False, 128)
            with self.assertRaisesRegex(OverflowError, r"argument 'u' \(u64\) out of range"):
                self.launch(x, y, 1, -1, 3.0, False, 0)
            with self.assertRaisesRegex(TypeError, r"argument 'n' is i32 \(an integer\), got float"):
                self.launch(x, y, 1.0, 2, 3.0, False, 0)
            with self.assertRaisesRegex(TypeError, r"takes 7 arguments but 8 were given"):
                self.launch(x, y, 1, 2, 3.0, False, 0, 0)
            with self.assertRaisesRegex(TypeError, r"missing argument 's'"):
                self.launch(x, y, 1, 2, 3.0, False)
            with self.assertRaisesRegex(TypeError, r"argument 'x' must be a tensor"):
                self.launch(object(), y, 1, 2, 3.0, False, 0)
            with self.assertRaisesRegex(TypeError, r"argument 'x' must be on the GPU: a host array"):
                self.launch(bytearray(8), y, 1, 2, 3.0, False, 0)
        rec = self.launch(x, y, True, 2, 3, False, 0)  # a bool for an int, an int for a float: the general path
        self.assertEqual((rec.params[2], rec.params[4]), (1, f32_bits(3.0)))

    def test_cooperative_launches_and_clusters(self):
        """launch_cooperative_grid=True goes through cuLaunchCooperativeKernel once the grid is
        known to fit the device at once (the stand-in: 4 SMs of 2048 threads, so 64 programs
        of 4 warps); num_ctas runs each program as one CTA, kept in the metadata as given."""
        x, y = Tensor(BASE), Tensor(BASE + 64, float16)
        for grid in ((8,), lambda meta: (meta["n"],)):
            rec = self.launch(x, y, 64, 2, 3.0, False, 0, grid=grid, launch_cooperative_grid=True)
            self.assertEqual((rec.cooperative, rec.grid[0]), (1, 8 if isinstance(grid, tuple) else 64))
        self.assertEqual(self.launch(x, y, 1, 2, 3.0, False, 0, launch_cooperative_grid=False).cooperative, 0)
        with self.assertRaisesRegex(nereid.LaunchError, r"resident at once: the grid has 65 programs .* at most 64"):
            self.launch(x, y, 1, 2, 3.0, False, 0, grid=(65,), launch_cooperative_grid=True)
        rec = self.launch(x, y, 1, 2, 3.0, False, 0, grid=(16,), num_warps=8, launch_cooperative_grid=True)
        self.assertEqual((rec.cooperative, rec.block[0]), (1, 256))
        ran = self.k[(2,)](x, y, 1, 2, 3.0, False, 0, num_ctas=4)
        self.assertEqual((ran.metadata.num_ctas, last_launch().grid[0]), (4, 2))
        self.assertEqual(self.k[(2,)](x, y, 1, 2, 3.0, False, 0).metadata.num_ctas, 1)
        with self.assertRaisesRegex(ValueError, "num_ctas must be from 1 to 16, got 0"):
            self.launch(x, y, 1, 2, 3.0, False, 0, num_ctas=0)

    def test_tuple_arguments(self):
        """A tuple given a bare parameter: its leaves reach the driver in order, depth first
        (None and constexpr leaves are not passed); on repeated launches too."""
        for i in range(3):
            t = (Tensor(BASE + 64 * i), (7 + i, None, Tensor(BASE + 4096, float16)), tl.constexpr(2))
            record_tuple[(1,)](t, 5)
            rec = last_launch()
            self.assertEqual(rec.nparams, 4)
            self.assertEqual(list(rec.params[:4]), [BASE + 64 * i, 7 + i, BASE + 4096, 5])
        with self.assertRaisesRegex(TypeError, "'t'"):
            record_tuple[(1,)]((Tensor(BASE), (1, None, "x"), tl.constexpr(2)), 5)

    def test_cuda_array_interface_and_mixed_types(self):
        y = Tensor(BASE + 64, float16)
        for x in (CudaArray(BASE + 128), Tensor(BASE + 256), CudaArray(BASE + 512), PyTensor(BASE + 1024), Tensor(BASE)):
            want = x.__cuda_array_interface__["data"][0] if isinstance(x, CudaArray) else type(x).data_ptr(x)
            self.assertEqual(self.launch(x, y, 1, 2, 3.0, False, 0).params[0], want)
        with self.assertRaisesRegex(TypeError, r"argument 'x' is \*fp32, got an array of fp16"):
            self.launch(CudaArray(BASE, "<f2"), y, 1, 2, 3.0, False, 0)
        with self.assertRaisesRegex(TypeError, "malformed __cuda_array_interface__"):
            self.launch(CudaArray(BASE, "f"), y, 1, 2, 3.0, False, 0)

    def test_a_read_that_launches_again(self):
        """A tensor's dtype getter that launches the same kernel with arguments of other
        kinds (so that the fast path's state changes under the launch reading it): each
        launch still passes its own arguments."""
        k, y = self.k, Tensor(BASE + 64, float16)

        class Reentrant(PyTensor):
            inner = True

            @property
            def dtype(self):
                if Reentrant.inner:
                    Reentrant.inner = False
                    k[(1,)](CudaArray(BASE + 4096), CudaArray(BASE + 8192, "<f2"), 7, 2, 3.0, False, 0)
                    self.assertion = last_launch().params[0]
                return float32

        for _ in range(2):
            self.launch(Reentrant(BASE + 256), y, 1, 2, 3.0, False, 0)
        Reentrant.inner = True
        x = Reentrant(BASE + 512)
        rec = self.launch(x, y, 5, 2, 3.0, False, 0)  # the outer launch, after the inner one
        self.assertEqual((x.assertion, rec.params[0], rec.params[2]), (BASE + 4096, BASE + 512, 5))
        rec = self.launch(Reentrant(BASE + 768), y, 6, 2, 3.0, False, 0)
        self.assertEqual((rec.params[0], rec.params[2]), (BASE + 768, 6))

    def test_alignment_picks_the_variant(self):
        y = Tensor(BASE + 64, float16)
        fn = {}
        for p in (BASE, BASE + 4, BASE + 16, BASE + 8, BASE):
            fn.setdefault(p % 16 == 0, set()).add(self.launch(Tensor(p), y, 1, 2, 3.0, False, 0).function)
        self.assertEqual([len(fn[True]), len(fn[False])], [1, 1])
        self.assertNotEqual(fn[True], fn[False])


@nereid.jit(device="cuda")
def record_jit(x, n, bias, BLOCK: tl.constexpr):
    tl.store(x + tl.arange(0, BLOCK), n)


@nereid.jit(device="cuda")
def record_scalars(x, flag, scale):
    tl.store(x, scale)


@nereid.jit(device="cuda", do_not_specialize=["kept"])
def record_ones(x, n, kept, pair):
    tl.store(x, n + kept + pair[0] + pair[1])


@nereid.jit(device="cuda", do_not_specialize=[2])
def record_ones_fast(x, n, kept):  # no tuple: its launches may take the fast path
    tl.store(x, n + kept)


@nereid.jit
def _twice(v):
    return v * 2


@nereid.jit
def _thrice(v):
    return v * 3


@nereid.jit(device="cuda")
def record_fn(x, fn, n, SCALE):
    tl.store(x, fn(n) * SCALE)


@unittest.skipUnless(MOCK, "needs the stand-in CUDA driver (LD_LIBRARY_PATH=build/mock)")
class ParallelAutotune(unittest.TestCase):
    def test_configs_compiled_at_once_before_timing(self):
        """nereid.autotune on CUDA: the configs' front ends (Context.compile_many) and GPU
        code (_prepare_many: the back end and the driver's JIT at once) are compiled before
        the timing, which then compiles nothing more."""
        @nereid.autotune(configs=[nereid.Config({"B": b}, num_warps=w) for b in (64, 128) for w in (2, 4)],
                         key=["n"])
        @nereid.jit(device="cuda")
        def scale(x, n, B: tl.constexpr):
            o = tl.program_id(0) * B + tl.arange(0, B)
            tl.store(x + o, tl.load(x + o, mask=o < n) * 2, mask=o < n)

        ctx = nereid.context("cuda")
        before = ctx.stats()
        seen = []
        real = scale._precompile

        def spy(indices, args, kwargs):
            seen.append(list(indices))
            real(indices, args, kwargs)
            seen.append(ctx.stats()["gpu_compiles"] - before["gpu_compiles"])
        scale._precompile = spy
        scale[lambda m: (nereid.cdiv(1000, m["B"]),)](Tensor(BASE), 1000)
        self.assertEqual(seen, [[0, 1, 2, 3], 4])  # 4 variants compiled by the parallel step
        self.assertEqual(ctx.stats()["gpu_compiles"] - before["gpu_compiles"], 4)  # and none after

    def test_timing_on_the_device(self):
        """On a driver with events the configs are timed on the device, as Triton's do_bench:
        each timed launch after an L2 flush (a 256 MiB memset on the stream), between two
        events. The stand-in's launches cost the host the same whatever the grid, and its
        device clock a microsecond a program: the host's clock could not tell the configs
        apart, the events pick the one with the smallest grid."""
        @nereid.autotune(configs=[nereid.Config({"B": b}) for b in (32, 256, 64)], key=["n"])
        @nereid.jit(device="cuda")
        def scale(x, n, B: tl.constexpr):
            o = tl.program_id(0) * B + tl.arange(0, B)
            tl.store(x + o, tl.load(x + o, mask=o < n) * 2, mask=o < n)

        lib = ctypes.CDLL("libcuda.so.1")
        stats = (ctypes.c_longlong * 19)()  # ... events recorded [17], bytes cleared by cuMemsetD32Async [18]
        lib.cuMockStats(stats, 19, 1)
        scale[lambda m: (nereid.cdiv(8192, m["B"]),)](Tensor(BASE), 8192)
        lib.cuMockStats(stats, 19, 0)
        self.assertEqual(scale.best_config.kwargs, {"B": 256})
        timings = {c.kwargs["B"]: round(t, 6) for c, t in scale.configs_timings.items()}
        self.assertEqual(timings, {32: 0.256, 256: 0.032, 64: 0.128})  # ms: a microsecond a program
        self.assertGreaterEqual(stats[17], 2 * 5 * 3)  # events: two a timed launch, five or more a config
        self.assertGreaterEqual(stats[18], 5 * 3 * (256 << 20))  # a flush before each


@nereid.jit(device="cuda")
def record_grouped(x, n, num_pid_m, BLOCK: tl.constexpr):
    """The matmul tutorial's grouped order, cut down: pm is a quotient by
    min(num_pid_m - first, 8), negative for the programs past the tiles."""
    pid = tl.program_id(0)
    first = (pid // 8) * 8
    size = min(num_pid_m - first, 8)
    pm = pid // size
    o = (pm * BLOCK + tl.arange(0, BLOCK)) % n
    tl.store(x + o, tl.load(x + o) + 1)


@nereid.jit(device="cuda")
def record_loaded(x, sizes, n, BLOCK: tl.constexpr):
    """The same with the divisor read from memory, which the host cannot check."""
    pm = tl.program_id(0) // tl.load(sizes)
    o = (pm * BLOCK + tl.arange(0, BLOCK)) % n
    tl.store(x + o, tl.load(x + o) + 1)


@unittest.skipUnless(MOCK, "needs the stand-in CUDA driver (LD_LIBRARY_PATH=build/mock)")
class SpeculationAtLaunch(unittest.TestCase):
    def test_the_guard_picks_the_kernel(self):
        """A kernel whose accesses are wider when some indices are >= 0 (Triton takes them so)
        is compiled with them assumed, and the host checks them for every program of each
        new grid and arguments (the guard, on the interpreter): a grid past the tiles, where
        some are negative, runs the kernel that checks them itself, compiled at its first
        such launch; a grid that covers the tiles runs the first again, compiling nothing."""
        ctx = nereid.context("cuda")
        x = Tensor(BASE)
        fns, compiles, checks = [], [], []
        for grid in (16, 16, 40, 40, 17, 16):  # 16 tiles; at 40, programs 24.. divide by -8
            before = ctx.stats()
            record_grouped[(grid,)](x, 1024, 16, BLOCK=64, num_warps=1)
            compiles.append(ctx.stats()["gpu_compiles"] - before["gpu_compiles"])
            checks.append(ctx.stats()["guard_checks"] - before["guard_checks"])
            fns.append(last_launch().function)
        self.assertEqual(compiles, [1, 0, 1, 0, 0, 0])
        self.assertEqual(checks, [1, 0, 1, 0, 1, 0])  # a grid seen before: its verdict kept
        self.assertEqual([f == fns[0] for f in fns], [True, True, False, False, True, True])
        fast, full = fns[0], fns[2]
        # many grids: each checked once while the table holds it; up to 24 programs every index
        # is >= 0, from 25 not
        def sweep():
            before = ctx.stats()["guard_checks"]
            for grid in range(1, 41):
                record_grouped[(grid,)](x, 1024, 16, BLOCK=64, num_warps=1)
                self.assertEqual(last_launch().function, fast if grid <= 24 else full, grid)
            return ctx.stats()["guard_checks"] - before
        self.assertLessEqual(sweep(), 40)
        self.assertLess(sweep(), 20)  # a table of 64 verdicts: most of the 40 kept
        # a variant's checks cover at most 2^20 programs in all: past that, a new grid runs the
        # kernel that checks its indices itself, unchecked (grids of 2^17 - 1 programs whose
        # indices are all >= 0: each checked in full)
        before = ctx.stats()["guard_checks"]
        for i in range(9):
            record_grouped[((1 << 17) - 1 - i,)](x, 1024, 1 << 20, BLOCK=64, num_warps=1)
        checked = ctx.stats()["guard_checks"] - before
        self.assertIn(checked, (7, 8))  # 8 x (2^17 - 1) is 2^20 - 8: the programs checked above decide
        self.assertEqual(last_launch().function, full)  # the ninth: not checked, every index >= 0
        record_grouped[(16,)](x, 1024, 16, BLOCK=64, num_warps=1)  # a verdict kept from before
        self.assertEqual(last_launch().function, fast)
        ran = record_grouped[(40,)](x, 1024, 16, BLOCK=64, num_warps=1)
        self.assertNotEqual(ran.asm["gpu-ir"].count(" if "), 0)  # the run's code: it checks in the kernel
        ran = record_grouped[(16,)](x, 1024, 16, BLOCK=64, num_warps=1)
        self.assertEqual(ran.asm["gpu-ir"].count(" if "), 0)
        self.assertIn("assume", ran.asm["gpu-ir"])

    def test_what_the_host_cannot_check_stays_in_the_kernel(self):
        ctx = nereid.context("cuda")
        before = ctx.stats()["gpu_compiles"]
        for grid in (16, 40):
            record_loaded[(grid,)](Tensor(BASE), Tensor(BASE + 4096, int64), 1024, BLOCK=64, num_warps=1)
        self.assertEqual(ctx.stats()["gpu_compiles"] - before, 1)
        ran = record_loaded[(16,)](Tensor(BASE), Tensor(BASE + 4096, int64), 1024, BLOCK=64, num_warps=1)
        self.assertNotEqual(ran.asm["gpu-ir"].count(" if "), 0)


@nereid.jit(device="cuda")
def record_tma_matmul(a, b, c, K, stride_am, stride_bk, stride_cm, row0,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A matmul whose A and B tiles, carried pointer blocks advanced each iteration, a
    tensor map can describe: A from row row0 (a parameter the launcher checks >= 0)."""
    rm = row0 + tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    cm = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(c + cm[:, None] * stride_cm + rn[None, :], acc)


@nereid.jit(device="cuda")
def record_tma_masked(a, b, c, M, K, stride_az, stride_am, stride_bk,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A batched matmul whose A rows and K edge are masked: A's map has the batch as a dim
    of its own (stride_az) and the sizes M and K."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_base = a + tl.program_id(1).to(tl.int64) * stride_az
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a_base + rm[:, None] * stride_am + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        y = tl.load(b + (k + rk)[:, None] * stride_bk + rn[None, :], mask=(k + rk)[:, None] < K, other=0.0)
        acc = tl.dot(x, y, acc)
    tl.store(c + rm[:, None] * BN + rn[None, :], acc, mask=rm[:, None] < M)


@unittest.skipUnless(MOCK, "needs the stand-in CUDA driver (LD_LIBRARY_PATH=build/mock)")
class TmaPointerLoads(unittest.TestCase):
    def test_maps_built_from_the_arguments(self):
        """On sm_90a the A and B loads become TMA copies through two tensor maps the launcher
        builds from a, b and the strides: two parameters after the user's eight (the stand-in
        driver's map starts with its base address). Arguments a map cannot take (a negative
        stride, row0 < 0) run the kernel compiled without maps, and the next launch that fits
        runs the first again."""
        a, b, c = Tensor(BASE, float16), Tensor(BASE + (1 << 20), float16), Tensor(BASE + (2 << 20))
        grid = (2, 2)
        runs = []
        for stride_bk, row0 in ((128, 64), (-128, 64), (128, 64), (128, -64), (128, 64)):  # one variant's facts
            ran = record_tma_matmul[grid](a, b, c, 256, 256, stride_bk, 128, row0, BM=64, BN=64, BK=32,
                                         num_warps=4, num_stages=3)
            rec = last_launch()
            runs.append((rec.function, rec.nparams, "tdesc" in ran.asm["gpu-ir"]))
            if rec.nparams == 10:
                self.assertEqual(rec.params[8], BASE)  # the maps' bases: a, then b
                self.assertEqual(rec.params[9], BASE + (1 << 20))
        fast, full = runs[0][0], runs[1][0]
        self.assertNotEqual(fast, full)
        self.assertEqual(runs, [(fast, 10, True), (full, 8, False), (fast, 10, True), (full, 8, False),
                                (fast, 10, True)])

    def test_sizes_and_strides_checked_at_launch(self):
        """The maps' sizes come from the masks' bounds (M, K) and their strides from the
        arguments, checked at each launch: a size below 1 (M = -16: every row masked) or a
        negative stride runs the kernel without maps, though the variant's facts are the
        same (-16 and -4096 are divisible by 16, as the launch's facts go)."""
        a, b, c = Tensor(BASE, float16), Tensor(BASE + (1 << 20), float16), Tensor(BASE + (2 << 20))
        ran = []
        for M, stride_az in ((64, 4096), (-16, 4096), (64, 4096), (64, -4096), (48, 4096)):
            r = record_tma_masked[(2, 3)](a, b, c, M, 256, stride_az, 256, 64, BM=64, BN=64, BK=32, num_warps=4,
                                          num_stages=3)
            ran.append((last_launch().nparams, "tdesc" in r.asm["gpu-ir"]))
        self.assertEqual(ran, [(10, True), (8, False), (10, True), (8, False), (10, True)])

    def test_switch_and_other_targets(self):
        """NEREID_TMA_POINTERS=0 (read when a variant is made) leaves the loads alone."""
        a, b, c = Tensor(BASE, float16), Tensor(BASE + (1 << 20), float16), Tensor(BASE + (2 << 20))
        os.environ["NEREID_TMA_POINTERS"] = "0"
        try:
            ran = record_tma_matmul[(1, 1)](a, b, c, 256, 256, 128, 128, 0, BM=64, BN=64, BK=32,
                                            num_warps=8, num_stages=2)
        finally:
            del os.environ["NEREID_TMA_POINTERS"]
        self.assertEqual(last_launch().nparams, 8)
        self.assertNotIn("tdesc", ran.asm["gpu-ir"])


WS_CHILD = """
import ctypes, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import nereid, test_mock as tm
k = tm.ws_kernels.record_ws_matmul
k.device = "cuda"
a, b, c = tm.Tensor(tm.BASE, tm.float16), tm.Tensor(tm.BASE + (1 << 20), tm.float16), tm.Tensor(tm.BASE + (2 << 20))
k[(2, 2)](a, b, c, 256, 256, 256, 256, 256, 256, BM=128, BN=128, BK=64, WS=True, num_warps=8, num_stages=3)
print(tm.last_launch().block[0], tm.CTX.stats()["disk_cache_hits"])
"""


@unittest.skipUnless(MOCK, "needs the stand-in CUDA driver (LD_LIBRARY_PATH=build/mock)")
class WarpSpecializedLaunch(unittest.TestCase):
    def launch(self, warps, stride_am=256, stride_bk=256):
        a, b, c = Tensor(BASE, float16), Tensor(BASE + (1 << 20), float16), Tensor(BASE + (2 << 20))
        ran = ws_kernels.record_ws_matmul[(2, 2)](a, b, c, 256, 256, 256, stride_am, stride_bk, 256, BM=128,
                                                   BN=128, BK=64, WS=True, num_warps=warps, num_stages=3)
        return last_launch().block[0], "warp_specialize" in ran.asm["gpu-ir"]

    def test_blocks_have_the_producer_warps(self):
        """On sm_90a the kernel runs a producer warpgroup beside its num_warps: blocks of 32 *
        num_warps + 128 threads. An A stride no map can take (not a multiple of 16 bytes)
        leaves A's loads to the consumers and B's copies to the producer; with B's stride
        too, the launch runs the kernel compiled without maps, and without a producer."""
        ws_kernels.record_ws_matmul.device = "cuda"
        self.assertEqual(self.launch(8), (384, True))
        self.assertEqual(self.launch(4), (256, True))
        self.assertEqual(self.launch(8, stride_am=260), (384, True))
        self.assertEqual(self.launch(8, stride_am=260, stride_bk=260)[0], 256)
        self.assertEqual(self.launch(8), (384, True))

    def test_blocks_from_the_disk_cache(self):
        """The threads per block are kept with the kernel in the disk cache: a process that
        loads it from there launches it as the one that compiled it."""
        import subprocess
        import tempfile
        env = dict(os.environ, NEREID_CACHE_DIR=tempfile.mkdtemp(prefix="nereid-ws-cache-"))
        here = os.path.abspath(__file__)
        runs = [subprocess.run([sys.executable, "-c", WS_CHILD, here], env=env, capture_output=True, text=True,
                               timeout=120) for _ in range(2)]
        for r in runs:
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([r.stdout.split() for r in runs], [["384", "0"], ["384", "1"]])


@unittest.skipUnless(MOCK, "needs the stand-in CUDA driver (LD_LIBRARY_PATH=build/mock)")
class JitLaunch(unittest.TestCase):
    def test_constexpr_values_of_bare_parameters(self):
        """A @jit function or a tl.constexpr(...) given to a bare parameter is a constexpr (as
        Triton's launcher makes them): not passed to the driver, part of the key on the
        general and the fast path alike."""
        fn = {}
        for f, n, scale in [(_twice, 5, 2), (_twice, 6, 2), (_thrice, 7, 2), (_thrice, 8, 2), (_twice, 9, 3),
                            (_twice, 10, 3), (_thrice, 11, 2)]:
            record_fn[(1,)](Tensor(BASE), f, n, tl.constexpr(scale))
            rec = last_launch()
            self.assertEqual(fn.setdefault((f.__name__, scale), rec.function), rec.function)
            self.assertEqual((rec.nparams, rec.params[1]), (2, n))
        self.assertEqual(len(set(fn.values())), 3)
        self.assertEqual(len(record_fn._cache), 3)

    def test_ints_equal_to_one(self):
        """An int argument equal to 1 is a constexpr, as Triton's launcher specialises it
        (a tuple's items too; not a do_not_specialize parameter's, not a bool): launches
        alternating 1 and other values each get their own kernel, whether the last launch's
        is reused (the fast path) or looked up, and never pass a constexpr's value."""
        fn, fast = {}, {}
        seq = [(2, 2, (3, 4)), (1, 1, (3, 4)), (1, 1, (3, 4)), (2, 1, (3, 4)), (2, 1, (3, 4)), (1, 2, (1, 4)),
               (1, 2, (1, 4)), (5, 1, (3, 1)), (1, 1, (3, 4)), (True, 1, (3, 4)), (2, 2, (3, 4)), (1, True, (3, 4))]
        for n, kept, pair in seq:
            record_ones[(1,)](Tensor(BASE), n, kept, pair)
            rec = last_launch()
            one = n == 1 and not isinstance(n, bool)
            # kept == 1 stays a run-time value, whose GPU code is a variant of its own (the
            # runtime's specialisation fact, as for the C API's launches)
            spec = (one, type(n).__name__, type(kept).__name__, kept == 1, pair[0] == 1, pair[1] == 1)
            self.assertEqual(fn.setdefault(spec, rec.function), rec.function, spec)
            passed = [int(v) for v, c in ((n, one), (kept, False), (pair[0], pair[0] == 1), (pair[1], pair[1] == 1))
                      if not c]
            self.assertEqual(list(rec.params[1:rec.nparams]), passed, (n, kept, pair))
            record_ones_fast[(1,)](Tensor(BASE), n, kept)
            rec = last_launch()
            self.assertEqual(fast.setdefault(spec[:4], rec.function), rec.function, spec)
            self.assertEqual(list(rec.params[1:rec.nparams]), passed[:2 - one], (n, kept))
        self.assertEqual(len(set(fn.values())), len(fn))
        self.assertEqual(len(record_ones._cache), len({k[:3] + k[4:] for k in fn}))  # front-end compiles
        self.assertEqual(len(set(fast.values())), len(fast))
        for k in (record_ones, record_ones_fast):
            self.assertTrue(k.params[2].do_not_specialize and not k.params[1].do_not_specialize)

    def test_the_key_decides_the_kernel(self):
        """Alternating keys: each launch gets its key's kernel, whether the last launch's
        kernel is reused (the same key) or looked up (another)."""
        fn = {}
        seq = [(float32, 5, None, 64), (float32, 5, None, 64), (float16, 5, None, 64), (float32, 5, None, 128),
               (float32, 2 ** 40, None, 64), (float32, 5, "t", 64), (float32, 5, None, 64), (float16, 5, None, 64),
               (float32, 2 ** 63, None, 64), (int64, 7, None, 64), (float32, 5, None, 128), (float32, 5, "t", 64)]
        for dt, n, bias, block in seq:
            b = Tensor(BASE + 4096, float16) if bias else None
            record_jit[(1,)](Tensor(BASE, dt), n, b, BLOCK=block)
            rec = last_launch()
            width = 0 if n < 2 ** 31 else 1 if n < 2 ** 63 else 2
            key = (dt.name, width, bias, block)
            self.assertEqual(fn.setdefault(key, rec.function), rec.function, key)
            self.assertEqual(rec.params[1], n)
            self.assertEqual(rec.nparams, 3 if bias else 2)
        self.assertEqual(len(set(fn.values())), len(fn))
        self.assertEqual(len(record_jit._cache), len(fn))

    def test_inferred_scalars(self):
        """bools, ints and floats inferred as i1, i32/i64 and fp32, each launch after the first
        on the fast path while the kinds stay; a change of kind changes the kernel. An int
        equal to 1 is a constexpr, as Triton's launcher specialises it (a bool True is not):
        the kernel for it takes no flag; 0 is a variant of its own (divisible by 16, not
        nonzero)."""
        fn = {}
        for flag, scale in [(True, 1.5), (False, 2.5), (True, 0.1), (1, 1.5), (0, 2.5), (False, 3.0), (2 ** 40, 1.0),
                            (1, 0.5), (1, 0.25), (17, 2.0), (1, 4.0)]:
            record_scalars[(1,)](Tensor(BASE), flag, scale)
            rec = last_launch()
            one = flag == 1 and not isinstance(flag, bool)
            kind = "one" if one else type(flag).__name__ + ("64" if flag >= 2 ** 31 else "")
            fact = "" if isinstance(flag, bool) or one else "zero" if flag == 0 else "div16" if flag % 16 == 0 else "none"
            self.assertEqual(fn.setdefault((kind, fact), rec.function), rec.function, (kind, fact))
            if one:
                self.assertEqual((rec.nparams, rec.params[1]), (2, f32_bits(scale)))
            else:
                self.assertEqual((rec.nparams, rec.params[1], rec.params[2]), (3, int(flag), f32_bits(scale)))
        self.assertEqual(len(set(fn.values())), len(fn))
        # i1, i32, i64 and the constexpr 1: the facts are variants of one kernel
        self.assertEqual(len(record_scalars._cache), 4)

    def test_jit_errors(self):
        record_jit[(1,)](Tensor(BASE), 5, None, BLOCK=64)
        with self.assertRaisesRegex(ValueError, r"argument 'x' must be on the GPU"):
            record_jit[(1,)](Tensor(BASE, is_cuda=False), 5, None, BLOCK=64)
        with self.assertRaisesRegex(OverflowError, "does not fit in 64 bits"):
            record_jit[(1,)](Tensor(BASE), 2 ** 64, None, BLOCK=64)
        with self.assertRaisesRegex(TypeError, "constexpr arguments must be hashable"):
            record_jit[(1,)](Tensor(BASE), 5, None, BLOCK=[64])
        record_jit[(1,)](Tensor(BASE), 5, None, BLOCK=64)
        self.assertEqual(last_launch().params[1], 5)

    def test_warmup_then_launch_the_compiled_kernel(self):
        """Triton's softmax tutorial: kernel = fn.warmup(..., grid=(1,)), then
        kernel[(n, 1, 1)](every argument): the warm kernel launches with no compile."""
        compiled = len(record_jit._cache)
        before = last_launch().count
        kernel = record_jit.warmup(Tensor(BASE), 7, None, BLOCK=32, grid=(1,))
        self.assertEqual(last_launch().count, before)  # compiled (and loaded), not run
        kernel[(3, 1, 1)](Tensor(BASE + 256), 9, None, 32)
        rec = last_launch()
        self.assertEqual((rec.count, list(rec.grid), rec.params[1]), (before + 1, [3, 1, 1], 9))
        kernel[(2,)](Tensor(BASE + 512), 11)  # the run-time arguments alone
        rec = last_launch()
        self.assertEqual((list(rec.grid), rec.params[0], rec.params[1]), ([2, 1, 1], BASE + 512, 11))
        self.assertLessEqual(len(record_jit._cache), compiled + 1)
        # a grid's launcher is made once and kept (the tutorial asks for it at every call),
        # a few grids at a time; a list grid (not hashable) gets a new one each time
        self.assertIs(kernel[(3, 1, 1)], kernel[(3, 1, 1)])
        self.assertIsNot(kernel[(3, 1, 1)], kernel[(4, 1, 1)])
        for n in range(1, 12):
            kernel[(n,)](Tensor(BASE), n)
            self.assertEqual((list(last_launch().grid), last_launch().params[1]), ([n, 1, 1], n))
        kernel[(3, 1, 1)](Tensor(BASE + 256), 13, None, 32)
        self.assertEqual((list(last_launch().grid), last_launch().params[1]), ([3, 1, 1], 13))
        kernel[[5, 2]](Tensor(BASE), 4)
        self.assertEqual(list(last_launch().grid), [5, 2, 1])
        # a key only for a tuple of ints: (4.0,) equals (4,) but is refused as a grid
        kernel[(4,)](Tensor(BASE), 4)
        with self.assertRaises(Exception):
            kernel[(4.0,)](Tensor(BASE), 4)
        kernel[(4,)](Tensor(BASE), 5)
        self.assertEqual((list(last_launch().grid), last_launch().params[1]), ([4, 1, 1], 5))
        # kept launchers go with what they were made from: the name, the signature
        kept, name = kernel[(6,)], kernel.name
        kernel.name = "renamed"
        self.assertIsNot(kernel[(6,)], kept)
        self.assertIn("renamed", repr(kernel[(6,)]))
        kept = kernel[(6,)]
        kernel._signature = kernel._signature
        self.assertIsNot(kernel[(6,)], kept)
        kernel.name = name


DESC_SRC = """
@triton.jit
def desc_typed(x: "tensordesc<fp32[8, 4]>", y: "tensordesc<i32[8]>"):
    x.store([0, 0], x.load([0, 0]) + 1)
    y.store([0], y.load([0]))
"""


@nereid.jit
def desc_follow(x_desc, y_desc):
    y_desc.store([0, 0], x_desc.load([0, 0]))


def desc(base, shape=(8, 4), strides=(4, 1), block=(8, 4), padding="zero"):
    return nereid.TensorDescriptor(base, list(shape), list(strides), list(block), padding)


@unittest.skipUnless(MOCK, "needs the stand-in CUDA driver (LD_LIBRARY_PATH=build/mock)")
class Descriptors(unittest.TestCase):
    """Descriptor arguments on the CUDA path. Every launch here fails before any GPU code
    is made (the stand-in runs none of a descriptor kernel's): in the package's checks, or
    in nr_launch's of the nr_tensor_desc the package built, whose messages show what it
    holds (a shape, the padding) and which argument it is."""

    def setUp(self):
        self.k = nereid.compile(DESC_SRC, device="cuda").desc_typed

    def test_what_reaches_nr_launch(self):
        y = desc(Tensor(BASE + 4096, DType("int32")), (8,), (1,), (8,))
        for base in (Tensor(BASE), PyTensor(BASE + 64), CudaArray(BASE + 128), Tensor(BASE)):
            with self.assertRaisesRegex(ValueError, r"kernel 'desc_typed': argument 0 \('x'\): shape\[0\] is -3"):
                self.k[(1,)](desc(base, shape=(-3, 4)), y)
            with self.assertRaisesRegex(ValueError, r"argument 1 \('y'\): NaN padding needs a float element type"):
                self.k[(1,)](desc(base), desc(Tensor(BASE + 4096, DType("int32")), (8,), (1,), (8,), "nan"))
        self.assertEqual(self.k.params(), [("x", "tensordesc<fp32[8, 4]>"), ("y", "tensordesc<i32[8]>")])

    def test_the_package_checks(self):
        y = desc(Tensor(BASE + 4096, DType("int32")), (8,), (1,), (8,))
        for _ in range(2):
            with self.assertRaisesRegex(ValueError, "argument 'x' must be on the GPU"):
                self.k[(1,)](desc(Tensor(BASE, is_cuda=False)), y)
            with self.assertRaisesRegex(TypeError, "argument 'x' is a tensor descriptor of fp32, got one of fp16"):
                self.k[(1,)](desc(Tensor(BASE, float16)), y)
            with self.assertRaisesRegex(TypeError, r"argument 'y' is tensordesc<i32\[8\]>, got tensordesc<i32\[16\]>"):
                self.k[(1,)](desc(Tensor(BASE)), desc(Tensor(BASE + 4096, DType("int32")), (8,), (1,), (16,)))
            with self.assertRaisesRegex(TypeError, r"argument 'x' is a tensor descriptor .*got Tensor"):
                self.k[(1,)](Tensor(BASE), y)
            with self.assertRaisesRegex(ValueError, "the last stride must be 1"):
                self.k[(1,)](types.SimpleNamespace(base=Tensor(BASE), shape=[8, 4], strides=[1, 4], block_shape=[8, 4],
                                                   padding="zero"), y)


@nereid.jit
def record_any(x, n, BLOCK: tl.constexpr):
    tl.store(x + tl.arange(0, BLOCK), n)


@nereid.jit
def record_tuple(t, n):
    tl.static_assert(t[1][1] is None and t[2] == 2)
    tl.store(t[0], tl.load(t[2 - 1][2]).to(tl.float32) + t[1][0] + n)


@nereid.jit(device="cuda:0")
def record_pinned(x, n):
    tl.store(x, n)


@unittest.skipUnless(MOCK and nereid.device_count() >= 2, "needs two stand-in devices (CUDA_MOCK_DEVICES=2)")
class SeveralDevices(unittest.TestCase):
    def test_a_module_for_device_1(self):
        mod = nereid.compile(SRC, device="cuda:1")
        self.assertEqual((mod.device, mod.context.index), ("cuda:1", 1))
        x, y = Tensor(BASE), Tensor(BASE + 64, float16)
        for _ in range(2):  # the general path, then the fast one
            mod.record_all[(1,)](x, y, 1, 2, 3.0, False, 0)
            self.assertEqual(last_launch().device, 1)
        self.assertEqual(nereid.device_count(), int(os.environ.get("CUDA_MOCK_DEVICES", "1")))

    def test_jit_follows_the_tensors(self):
        """Each launch on its first tensor's device, alternating and repeated (the fast path
        must notice a change of device), with a cache of kernels per device."""
        fn = {}
        for dev in [0, 0, 1, 1, 1, 0, 1, 0, 0]:
            record_any[(1,)](DevTensor(BASE + 16 * dev, dev), 5 + dev, BLOCK=64)
            rec = last_launch()
            self.assertEqual((rec.device, rec.params[0], rec.params[1]), (dev, BASE + 16 * dev, 5 + dev))
            self.assertEqual(fn.setdefault(dev, rec.function), rec.function)
        self.assertNotEqual(fn[0], fn[1])  # a kernel loaded per device
        devices = record_any._devices
        self.assertEqual(sorted(devices), [0, 1])
        self.assertEqual([devices[d][0].index for d in (0, 1)], [0, 1])
        self.assertEqual([len(devices[d][1]) for d in (0, 1)], [1, 1])
        record_any[(1,)](DevTensor(BASE, 1), 5, BLOCK=128)  # a new key on device 1 only
        self.assertEqual([len(record_any._devices[d][1]) for d in (0, 1)], [1, 2])

    def test_one_compile_serves_both_devices(self):
        @nereid.jit
        def record_fresh(x, n):
            tl.store(x, n + 12345)

        before = [nereid.context(f"cuda:{d}").stats() for d in (0, 1)]
        record_fresh[(1,)](DevTensor(BASE, 0), 1)
        record_fresh[(1,)](DevTensor(BASE, 1), 1)
        after = [nereid.context(f"cuda:{d}").stats() for d in (0, 1)]
        delta = [{k: a[k] - b[k] for k in a} for a, b in zip(after, before)]
        self.assertEqual((delta[0]["gpu_compiles"], delta[0]["disk_cache_hits"]), (1, 0))
        self.assertEqual((delta[1]["gpu_compiles"], delta[1]["disk_cache_hits"]), (0, 1))

    def test_torch_current_device_and_streams(self):
        """With the stand-in torch (also where a real one is installed: these kernels look
        torch up at their first launch, while the stand-in is in its place)."""
        @nereid.jit
        def record_scalars_only(n, m):
            _ = n + m  # nothing to store: the stand-in records the launch

        @nereid.jit
        def record_follow(x, n, BLOCK: tl.constexpr):
            tl.store(x + tl.arange(0, BLOCK), n)

        torch, real = _torch, sys.modules.get("torch")
        sys.modules["torch"] = torch
        try:
            torch.stream.update({0: 0x5000, 1: 0x6000})
            for cur in (1, 0, 1, 1):  # no tensor argument: torch's current device
                torch.current = cur
                record_scalars_only[(1,)](3, 4)
                rec = last_launch()
                self.assertEqual((rec.device, rec.stream), (cur, 0x5000 + 0x1000 * cur))
            torch.current = 0
            for _ in range(2):
                record_follow[(1,)](DevTensor(BASE, 1), 5, BLOCK=64)  # the tensor's device, and that device's stream
                rec = last_launch()
                self.assertEqual((rec.device, rec.stream), (1, 0x6000))
            torch.current = 1
            record_follow[(1,)](CudaArray(BASE), 5, BLOCK=64)  # no get_device: the current device
            self.assertEqual(last_launch().device, 1)
        finally:
            torch.current = 0
            torch.stream.clear()
            sys.modules["torch"] = real

    def test_descriptors_follow_their_base(self):
        """A kernel taking only descriptors runs on their bases' device (its launches here
        stop in nr_launch's check of the shape, after the device was chosen)."""
        for dev in (1, 0, 1):
            x = desc(DevTensor(BASE, dev), shape=(-1, 4))
            with self.assertRaisesRegex(ValueError, r"shape\[0\] is -1"):
                desc_follow[(1,)](x, desc(DevTensor(BASE + 64, dev)))
            self.assertEqual(desc_follow._context.index, dev)
        self.assertEqual(sorted(desc_follow._devices), [0, 1])

    def test_a_pinned_kernel_stays(self):
        for dev in (1, 0):
            record_pinned[(1,)](DevTensor(BASE, dev), 2)
            self.assertEqual(last_launch().device, 0)
        self.assertFalse(record_pinned._per_device)
        self.assertTrue(record_any._per_device)


if __name__ == "__main__":
    unittest.main()
