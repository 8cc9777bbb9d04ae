"""The Python package on the CPU device, with NumPy arrays: nereid.compile of files and
source strings, launches and their argument checking, errors, @nereid.jit running
Triton's tutorial kernels (tutorial_kernels.py) against NumPy references, and host tensor
descriptors (nereid.TensorDescriptor and Triton-style objects: desc_kernels.py).

    PYTHONPATH=build/python python3 python/tests/run.py
"""
import importlib.util
import inspect
import os
import sys
import tempfile
import textwrap
import types
import unittest

import numpy as np

os.environ["NEREID_DEVICE"] = "cpu"  # the tutorial kernels take the default device: here, the CPU
import nereid  # noqa: E402
import nereid.language as tl  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tutorial_kernels as tk  # noqa: E402
import desc_kernels as dk  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
CPU = "cpu"

SCALE_SRC = """
@triton.jit
def scale(x_ptr: *fp32, out_ptr: *fp32, s: fp32, n: i32, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * s, mask=offs < n)
"""


class CompileAndLaunch(unittest.TestCase):
    def test_file(self):
        mod = nereid.compile(os.path.join(EXAMPLES, "vector_add.nr"), device=CPU, BLOCK_SIZE=128)
        self.assertEqual(list(mod.kernels), ["add_kernel"])
        self.assertEqual(mod.device, "cpu")
        self.assertEqual(mod.add_kernel.params(), [("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("output_ptr", "*fp32"),
                                                   ("n_elements", "i32")])
        for n in (1, 127, 128, 1000):
            x, y = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
            out = np.zeros(n, dtype=np.float32)
            mod.add_kernel[(nereid.cdiv(n, 128),)](x, y, out, n)
            np.testing.assert_array_equal(out, x + y)

    def test_source_and_scalars(self):
        mod = nereid.compile(SCALE_SRC, device=CPU, BLOCK=64)
        x = np.arange(100, dtype=np.float32)
        out = np.zeros_like(x)
        mod.scale[(2,)](x, out, 2.5, 100)
        np.testing.assert_array_equal(out, x * 2.5)
        mod.scale[(2,)](x, out, 3, 100)  # an int for a float parameter
        np.testing.assert_array_equal(out, x * 3)
        mod.scale[[2]](x, out, s=0.5, n=100)  # keywords, a list grid
        np.testing.assert_array_equal(out, x * 0.5)
        mod["scale"][(2,)](x, out, np.float32(4.0), np.int64(100))  # NumPy scalars
        np.testing.assert_array_equal(out, x * 4)

    def test_string_constexprs_stay_strings(self):
        # "nan", "1", "None" and "True" would read as a float, an int, None and a bool in -D
        # text: the package passes strings quoted
        src = """
@triton.jit
def pick(o_ptr: *i32, S: tl.constexpr):
    if S == "nan":
        tl.store(o_ptr, 1)
    elif S == "1":
        tl.store(o_ptr, 2)
    elif S == "None":
        tl.store(o_ptr, 3)
    elif S == "True":
        tl.store(o_ptr, 4)
    elif S == "a'b\\"c\\n":
        tl.store(o_ptr, 6)
    else:
        tl.store(o_ptr, 5)
"""
        # a string holding both quote characters goes as a literal with escapes
        for text, want in (("nan", 1), ("1", 2), ("None", 3), ("True", 4), ("x'y", 5), ('x"y', 5),
                           ("a'b\"c\n", 6), ("a'b\"c", 5)):
            out = np.zeros(1, dtype=np.int32)
            nereid.compile(src, device=CPU, S=text).pick[(1,)](out)
            self.assertEqual(out[0], want, text)
        with self.assertRaises(TypeError):
            nereid.compile(src, device=CPU, S="a\0b")

    def test_grid_callable_sees_arguments_and_constexprs(self):
        mod = nereid.compile(SCALE_SRC, device=CPU, BLOCK=64)
        seen = {}

        def grid(meta):
            seen.update(meta)
            return (nereid.cdiv(meta["n"], meta["BLOCK"]),)

        x = np.ones(300, dtype=np.float32)
        out = np.zeros_like(x)
        mod.scale[grid](x, out, 2.0, 300, BLOCK=32)  # a launch-time constexpr: compiled once more
        np.testing.assert_array_equal(out, 2 * x)
        self.assertEqual(seen["BLOCK"], 32)
        self.assertEqual(seen["n"], 300)
        self.assertEqual(len(mod.scale._cache), 2)
        mod.scale[grid](x, out, 3.0, 300, BLOCK=32)
        self.assertEqual(len(mod.scale._cache), 2)  # cached

    def test_empty_grid_launches_nothing(self):
        mod = nereid.compile(SCALE_SRC, device=CPU, BLOCK=64)
        x = np.ones(4, dtype=np.float32)
        out = np.zeros_like(x)
        mod.scale[(0,)](x, out, 2.0, 4)
        np.testing.assert_array_equal(out, 0)

    def test_views_strides_and_readonly(self):
        mod = nereid.compile(SCALE_SRC, device=CPU, BLOCK=64)
        base = np.arange(200, dtype=np.float32)
        out = np.zeros(200, dtype=np.float32)
        mod.scale[(1,)](base[50:], out[10:], 2.0, 64)  # pointers into the middle of arrays
        np.testing.assert_array_equal(out[10:74], base[50:114] * 2)
        ro = np.arange(64, dtype=np.float32)
        ro.setflags(write=False)
        mod.scale[(1,)](ro, out, 2.0, 64)  # a read-only input is lent as a copy
        np.testing.assert_array_equal(out[:64], ro * 2)
        rev = base[::-1]  # a negative stride: the extent reaches below the pointer
        with self.assertRaises(nereid.LaunchError):
            mod.scale[(1,)](rev, out, 1.0, 64)  # reads past the first element's end
        mod.scale[(1,)](rev[63:], out, 1.0, 1)
        self.assertEqual(out[0], rev[63])

    def test_bytearray_and_memoryview(self):
        mod = nereid.compile(SCALE_SRC, device=CPU, BLOCK=16)
        import array
        x = array.array("f", range(16))
        out = array.array("f", [0.0] * 16)
        mod.scale[(1,)](x, memoryview(out), 2.0, 16)
        self.assertEqual(list(out), [2.0 * i for i in range(16)])

    def test_tensor_like_objects(self):
        # what the launch reads from a torch tensor: is_cuda, dtype, data_ptr() and, on the CPU
        # device, its storage's extent; a stand-in over a NumPy array, since torch may be absent
        class Storage:
            def __init__(self, a):
                self.a = a

            def data_ptr(self):
                return self.a.ctypes.data

            def nbytes(self):
                return self.a.nbytes

        class FakeTensor:
            is_cuda = property(lambda self: False)
            dtype = property(lambda self: self.a.dtype)

            def __init__(self, a, offset=0):
                self.a, self.offset = a, offset

            def data_ptr(self):
                return self.a.ctypes.data + self.offset * self.a.itemsize

            def untyped_storage(self):
                return Storage(self.a)

        mod = nereid.compile(SCALE_SRC, device=CPU, BLOCK=64)
        x = np.arange(64, dtype=np.float32)
        out = np.zeros(64, dtype=np.float32)
        for _ in range(3):  # the first sees the type, the others take the cached descriptors
            mod.scale[(1,)](FakeTensor(x), FakeTensor(out), 2.0, 64)
            np.testing.assert_array_equal(out, 2 * x)
        mod.scale[(1,)](FakeTensor(x, 10), FakeTensor(out), 1.0, 54)  # a view: the pointer is inside
        np.testing.assert_array_equal(out[:54], x[10:])
        with self.assertRaisesRegex(nereid.LaunchError, "out-of-bounds"):
            mod.scale[(1,)](FakeTensor(x, 10), FakeTensor(out), 1.0, 64)  # past the storage's end
        with self.assertRaisesRegex(TypeError, r"argument 'out_ptr' is \*fp32, got an array of fp64"):
            mod.scale[(1,)](FakeTensor(x), FakeTensor(np.zeros(64)), 1.0, 64)

    def test_kernel_names_are_attributes(self):
        mod = nereid.compile(os.path.join(EXAMPLES, "dropout.nr"), device=CPU, BLOCK_SIZE=64)
        self.assertEqual(sorted(mod.kernels), ["_dropout", "_seeded_dropout"])
        self.assertIs(mod._dropout, mod.kernels["_dropout"])
        with self.assertRaisesRegex(AttributeError, "no kernel named 'nope'.*_dropout"):
            mod.nope


# a module of helpers and constants that a kernel in another module reaches as
# `ops.NAME` (as libraries and Inductor's kernels do: `triton_helpers.maximum(a, b)`)
HELPER_MODULE = """
import nereid
import nereid.language as tl

SHIFT = tl.constexpr(0.5)
SCALE = 3


@nereid.jit
def clip(x, lo):
    return tl.maximum(x, lo) * SCALE


@nereid.jit
def shifted_clip(x):
    return clip(x - SHIFT, 0.0)
"""

KERNEL_MODULE = """
import math
import nereid
import nereid.language as tl
import nereid.language as tl_alias
import ops_under_test as ops
from nereid.language import math as tl_math


@nereid.jit(device="cpu")
def apply(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m)
    y = ops.shifted_clip(x) + ops.SHIFT * ops.SCALE + tl_math.exp(x * 0.0) * math.pi
    tl.store(out_ptr + i, tl_alias.where(x > 0, y, ops.clip(x, -1.0)), mask=m)
"""


class ModuleMembers(unittest.TestCase):
    def test_helpers_and_constants_reached_through_modules(self):
        d = tempfile.mkdtemp(prefix="nereid-modules-")
        for name, text in (("ops_under_test", HELPER_MODULE), ("kernel_under_test", KERNEL_MODULE)):
            with open(os.path.join(d, name + ".py"), "w") as f:
                f.write(text)
        sys.path.insert(0, d)
        try:
            import kernel_under_test as k
        finally:
            sys.path.remove(d)
        x = np.linspace(-2, 2, 37).astype(np.float32)
        out = np.zeros_like(x)
        k.apply[(1, )](x, out, x.size, BLOCK=64)
        want = np.where(x > 0, np.maximum(x - 0.5, 0) * 3 + 1.5 + np.pi, np.maximum(x, -1.0) * 3)
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
        # a name the module does not have stays an error at its place
        src = k.apply.source()[0]
        self.assertIn("ops_shifted_clip(x)", src)
        self.assertIn("ops_SHIFT", src)

    def test_constants_reached_through_attribute_chains(self):
        """`mod.sub.NAME` read in Python at compile time, as Triton's code generator reads a
        module's members: None, strings, numbers (torchao's float8 kernels branch on
        `tl.constexpr(torch.version.hip is not None)`); a member that is not there stays an
        error at its place."""
        version = types.ModuleType("version_under_test")
        version.hip, version.cuda, version.major = None, "12.4", 12
        fake = types.ModuleType("torch_like_under_test")
        fake.version, fake.MODE = version, "fast"
        d = tempfile.mkdtemp(prefix="nereid-chains-")
        with open(os.path.join(d, "chains_under_test.py"), "w") as f:
            f.write(CHAIN_KERNEL)
        sys.path.insert(0, d)
        sys.modules["torch_like_under_test"] = fake
        try:
            import chains_under_test as k
        finally:
            sys.path.remove(d)
            del sys.modules["torch_like_under_test"]
        x = np.arange(10, dtype=np.float32)
        out = np.zeros_like(x)
        k.chains[(1, )](x, out, x.size, BLOCK=16)
        np.testing.assert_array_equal(out, x * 2 + 1 + 12)
        with self.assertRaisesRegex(nereid.CompileError, "undefined name 'torch'"):
            k.missing[(1, )](out, BLOCK=16)

CHAIN_KERNEL = """
import nereid
import nereid.language as tl
import torch_like_under_test as torch


@nereid.jit(device="cpu")
def chains(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n)
    if tl.constexpr(torch.version.hip is not None):
        y = x * 3
    else:
        y = x * 2
    if torch.MODE == "fast" and torch.version.cuda == "12.4":
        y = y + 1
    tl.store(out_ptr + i, y + torch.version.major, mask=i < n)


@nereid.jit(device="cpu")
def missing(out_ptr, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), torch.version.rocm + 1.0)
"""


FP8_SRC = """
@triton.jit
def widen(x_ptr: *fp8e4nv, y_ptr: *fp8e5, out_ptr: *fp32, n: i32, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m).to(tl.float32) + tl.load(y_ptr + offs, mask=m), mask=m)

@triton.jit
def narrow(x_ptr: *fp32, out_ptr: *fp8e4nv, n: i32, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
"""


class Fp8(unittest.TestCase):
    """fp8 pointers: NumPy has no fp8 type, so on the CPU device uint8 arrays hold the bytes;
    torch's float8_e4m3fn and float8_e5m2 tensors map to fp8e4nv and fp8e5."""

    def test_uint8_arrays_for_fp8_pointers(self):
        mod = nereid.compile(FP8_SRC, device=CPU, BLOCK=16)
        self.assertEqual(mod.widen.params(), [("x_ptr", "*fp8e4nv"), ("y_ptr", "*fp8e5"), ("out_ptr", "*fp32"),
                                              ("n", "i32")])
        x = np.array([0x38, 0x7E, 0xFE, 0x01, 0x7F, 0x00], dtype=np.uint8)  # 1, 448, -448, 2^-9, NaN, 0
        y = np.array([0x3C, 0x7B, 0x7C, 0x01, 0x00, 0x80], dtype=np.uint8)  # 1, 57344, inf, 2^-16, 0, -0
        out = np.zeros(6, dtype=np.float32)
        mod.widen[(1,)](x, y, out, 6)
        want = np.array([2, 448 + 57344, np.inf, 2.0 ** -9 + 2.0 ** -16, np.nan, 0], dtype=np.float32)
        np.testing.assert_array_equal(out, want)
        f = np.array([1.3, 1000, -np.inf, np.nan, 400, 2.0 ** -10], dtype=np.float32)
        b = np.zeros(6, dtype=np.uint8)
        mod.narrow[(1,)](f, b, 6)
        self.assertEqual(list(b), [0x3A, 0x7E, 0xFE, 0x7F, 0x7C, 0x00])
        with self.assertRaisesRegex(TypeError, r"argument 'x_ptr' is \*fp8e4nv, got an array of fp32"):
            mod.widen[(1,)](f, y, out, 6)

    def test_jit_annotations_and_torch_dtype_names(self):
        @nereid.jit(device=CPU)
        def copy(src: "*fp8e5", dst: "*tl.float8e5", n):
            offs = tl.arange(0, 8)
            tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)
        src = np.arange(250, 256, dtype=np.uint8)  # NaN bytes of fp8e5 move unchanged
        dst = np.zeros(6, dtype=np.uint8)
        copy[(1,)](src, dst, 6)
        np.testing.assert_array_equal(dst, src)
        self.assertEqual(repr(tl.float8e4nv), "nereid.language.float8e4nv")

        class Fp8Dtype:  # str() as torch spells it
            def __init__(self, name):
                self.name = name

            def __str__(self):
                return "torch." + self.name

        class FakeTensor:
            is_cuda = property(lambda self: False)
            dtype = property(lambda self: self.dt)

            def __init__(self, a, dt):
                self.a, self.dt = a, dt

            def data_ptr(self):
                return self.a.ctypes.data

            def untyped_storage(self):
                a = self.a

                class Storage:
                    def data_ptr(self):
                        return a.ctypes.data

                    def nbytes(self):
                        return a.nbytes
                return Storage()

        @nereid.jit(device=CPU)
        def up(x, out):
            tl.static_assert(x.dtype.element_ty == tl.float8e4nv)
            tl.store(out + tl.arange(0, 4), tl.load(x + tl.arange(0, 4)).to(tl.float32))
        out = np.zeros(4, dtype=np.float32)
        up[(1,)](FakeTensor(np.array([0x38, 0x40, 0xB8, 0x7E], dtype=np.uint8), Fp8Dtype("float8_e4m3fn")), out)
        np.testing.assert_array_equal(out, [1, 2, -1, 448])
        with self.assertRaisesRegex(TypeError, r"argument 'src' is \*fp8e5, got an array of fp8e4nv"):
            copy[(1,)](FakeTensor(src, Fp8Dtype("float8_e4m3fn")), dst, 6)

        # torch's FNUZ types are Triton's fp8e4b8 and fp8e5b16
        @nereid.jit(device=CPU)
        def up_fnuz(x, y, out):
            tl.static_assert(x.dtype.element_ty == tl.float8e4b8 and y.dtype.element_ty == tl.float8e5b16)
            o = tl.arange(0, 4)
            tl.store(out + o, tl.load(x + o).to(tl.float32) + tl.load(y + o))
        x = FakeTensor(np.array([0x40, 0x7F, 0x01, 0x80], dtype=np.uint8), Fp8Dtype("float8_e4m3fnuz"))  # 1, 240, 2^-10, NaN
        y = FakeTensor(np.array([0x40, 0x7F, 0x00, 0x00], dtype=np.uint8), Fp8Dtype("float8_e5m2fnuz"))  # 1, 57344, 0, 0
        up_fnuz[(1,)](x, y, out)
        np.testing.assert_array_equal(out, [2, 240 + 57344, 2.0 ** -10, np.nan])

    def test_triton_fp8_formats(self):
        """fp8e4b15 (Triton's E4M3 with bias 15), fp8e4b8 and fp8e5b16 (AMD's FNUZ) as uint8 arrays."""
        src = (
            "@triton.jit\n"
            "def rt(x_ptr: *fp32, a: *fp8e4b15, b: *tl.float8e4b8, c: \"*float8e5b16\", w: *fp32, n: i32):\n"
            "    offs = tl.arange(0, 8)\n"
            "    m = offs < n\n"
            "    x = tl.load(x_ptr + offs, mask=m)\n"
            "    tl.store(a + offs, x, mask=m)\n"
            "    tl.store(b + offs, x, mask=m)\n"
            "    tl.store(c + offs, x, mask=m)\n"
            "    tl.store(w + offs, tl.load(a + offs, mask=m).to(tl.float32), mask=m)\n")
        mod = nereid.compile(src, device=CPU)
        self.assertEqual(mod.rt.params(), [("x_ptr", "*fp32"), ("a", "*fp8e4b15"), ("b", "*fp8e4b8"), ("c", "*fp8e5b16"),
                                           ("w", "*fp32"), ("n", "i32")])
        x = np.array([1.0, 1.8, -np.inf, np.nan, 1.5625, 300.0, -2.0 ** -12, 0.0], dtype=np.float32)
        a, b, c = (np.zeros(8, dtype=np.uint8) for _ in range(3))
        w = np.zeros(8, dtype=np.float32)
        mod.rt[(1,)](x, a, b, c, w, 8)
        # e4b15: 1.75 is where it saturates, NaN gives 0x7E, ties go away from zero (1.5625 -> 1.625)
        self.assertEqual(list(a), [0x78, 0x7E, 0xFE, 0x7E, 0x7D, 0x7E, 0x98, 0x00])
        # FNUZ: ties to even (1.5625 -> 1.5), infinities and NaN give 0x80, no -0 (-2^-12
        # rounds to +0 in e4b8)
        self.assertEqual(list(b), [0x40, 0x46, 0x80, 0x80, 0x44, 0x7F, 0x00, 0x00])
        self.assertEqual(list(c), [0x40, 0x43, 0x80, 0x80, 0x42, 0x61, 0x90, 0x00])
        np.testing.assert_array_equal(w, [1.0, 1.75, -1.75, 1.75, 1.625, 1.75, -2.0 ** -12, 0.0])


class Errors(unittest.TestCase):
    def setUp(self):
        self.mod = nereid.compile(SCALE_SRC, device=CPU, BLOCK=64)
        self.x = np.ones(64, dtype=np.float32)
        self.out = np.zeros(64, dtype=np.float32)

    def test_compile_error_carries_diagnostics(self):
        src = "@triton.jit\ndef k(x: *fp32, n: i32):\n    tl.store(x, y)\n"
        with self.assertRaises(nereid.CompileError) as cm:
            nereid.compile(src, device=CPU)
        e = cm.exception
        self.assertEqual(e.errors[0][:4], ("<source>", 3, 17, "error"))
        self.assertIn("undefined name 'y'", e.errors[0][4])
        self.assertIn("    tl.store(x, y)\n                ^", e.diagnostics)
        self.assertIsInstance(e, nereid.Error)

    def test_static_print_and_warnings_reach_python(self):
        # a compile that goes on shows what it reported where Triton's shows it: each
        # tl.static_print's values on standard output as it compiles, a warning (Python's
        # range ignoring its step keyword, as Triton's does) as a CompileWarning
        import contextlib
        import io
        import warnings
        src = ("@triton.jit\ndef k(x: *fp32, N: tl.constexpr):\n"
               "    tl.static_print('N is', N, N * 2)\n"
               "    for i in range(0, N, step=2):\n"
               "        tl.store(x + i, 1.0)\n")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mod = nereid.compile(src, device=CPU, N=4)
        self.assertEqual(out.getvalue(), "N is 4 8\n")
        self.assertEqual(len(caught), 1)
        self.assertIs(caught[0].category, nereid.CompileWarning)
        text = str(caught[0].message)
        self.assertIn("<source>:4:31: warning: range() ignores the keyword argument 'step'", text)
        self.assertIn("    for i in range(0, N, step=2):\n" + " " * 30 + "^", text)
        x = np.zeros(4, np.float32)
        mod.k[(1,)](x)
        self.assertEqual(list(x), [1.0, 1.0, 1.0, 1.0])  # the loop steps by 1, as under Triton

    def test_compile_error_in_file_names_file(self):
        with self.assertRaises(nereid.CompileError) as cm:
            nereid.compile(os.path.join(EXAMPLES, "vector_add.nr"), device=CPU)  # no BLOCK_SIZE
        self.assertTrue(cm.exception.errors[0][0].endswith("vector_add.nr"))
        self.assertIn("BLOCK_SIZE", cm.exception.diagnostics)

    def test_missing_file(self):
        with self.assertRaises(FileNotFoundError):
            nereid.compile("/nonexistent/kernel.nr", device=CPU)

    def test_argument_count(self):
        with self.assertRaisesRegex(TypeError, r"scale\(\) missing argument 'n'"):
            self.mod.scale[(1,)](self.x, self.out, 1.0)
        with self.assertRaisesRegex(TypeError, r"scale\(\) takes 4 arguments but 5 were given"):
            self.mod.scale[(1,)](self.x, self.out, 1.0, 64, 5)
        with self.assertRaisesRegex(TypeError, "multiple values for argument 's'"):
            self.mod.scale[(1,)](self.x, self.out, 1.0, 64, s=2.0)

    def test_argument_types(self):
        with self.assertRaisesRegex(TypeError, "argument 'x_ptr'.*must be an array.*got int"):
            self.mod.scale[(1,)](3, self.out, 1.0, 64)
        with self.assertRaisesRegex(TypeError, r"argument 'out_ptr' is \*fp32, got an array of i32"):
            self.mod.scale[(1,)](self.x, np.zeros(64, dtype=np.int32), 1.0, 64)
        with self.assertRaisesRegex(TypeError, "argument 'n' is i32 .*got float"):
            self.mod.scale[(1,)](self.x, self.out, 1.0, 64.0)
        with self.assertRaisesRegex(TypeError, "argument 's' is fp32 .*got str"):
            self.mod.scale[(1,)](self.x, self.out, "1", 64)
        with self.assertRaisesRegex(OverflowError, r"argument 'n' \(i32\) out of range"):
            self.mod.scale[(1,)](self.x, self.out, 1.0, 2 ** 31)
        with self.assertRaisesRegex(TypeError, "arrays of format"):
            self.mod.scale[(1,)](np.zeros(4, dtype=np.complex64), self.out, 1.0, 4)

    def test_grid_errors(self):
        for grid, err in (((1, 2, 3, 4), ValueError), ((-1,), ValueError), ((), ValueError), ("a", TypeError),
                          ((2 ** 31,), ValueError), ((1.5,), ValueError)):
            with self.assertRaises(err, msg=repr(grid)):
                self.mod.scale[grid](self.x, self.out, 1.0, 64)
        with self.assertRaises(ZeroDivisionError):  # the grid's own exception comes through
            self.mod.scale[lambda m: (1 // 0,)](self.x, self.out, 1.0, 64)
        with self.assertRaisesRegex(ValueError, "num_warps must be a power of 2"):
            self.mod.scale[(1,)](self.x, self.out, 1.0, 64, num_warps=3)

    def test_out_of_bounds_is_a_launch_error(self):
        with self.assertRaisesRegex(nereid.LaunchError, "out-of-bounds load.*'x_ptr'"):
            self.mod.scale[(2,)](self.x, self.out, 1.0, 100)
        self.mod.scale[(1,)](self.x, self.out, 1.0, 64)  # the context is still usable
        np.testing.assert_array_equal(self.out, self.x)

    def test_device_assert(self):
        src = "@triton.jit\ndef k(x: *i32):\n    tl.device_assert(tl.load(x) > 0, 'x must be positive')\n"
        mod = nereid.compile(src, device=CPU)
        mod.k[(1,)](np.ones(1, dtype=np.int32))
        with self.assertRaisesRegex(nereid.LaunchError, "x must be positive"):
            mod.k[(1,)](np.zeros(1, dtype=np.int32))

    def test_bad_device(self):
        with self.assertRaises(ValueError):
            nereid.compile(SCALE_SRC, device="tpu", BLOCK=1)
        with self.assertRaises(TypeError):
            nereid.compile(SCALE_SRC, device=3, BLOCK=1)

    def test_bad_constexpr_value(self):
        with self.assertRaisesRegex(TypeError, "constexpr 'BLOCK': a object cannot be a compile-time value"):
            nereid.compile(SCALE_SRC, device=CPU, BLOCK=object())
        with self.assertRaises(nereid.CompileError):  # a tuple is a compile-time value, but no block size
            nereid.compile(SCALE_SRC, device=CPU, BLOCK=[64])

    def test_unknown_launch_keyword(self):
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'BLOK'"):
            self.mod.scale[(1,)](self.x, self.out, 1.0, 64, BLOK=3)


class DebugOption(unittest.TestCase):
    """Triton's debug option through the JIT: jit(debug=), a launch's debug= and
    TRITON_DEBUG (triton.knobs.runtime.debug) decide whether device_assert and assert
    statements are compiled and whether integer +, - and * narrower than 64 bits are checked
    for overflow; without any of them neither is (Triton's default)."""

    def setUp(self):
        from nereid import _knobs
        self.knobs = _knobs
        self.saved = os.environ.get("TRITON_DEBUG")

    def tearDown(self):
        if self.saved is None:
            os.environ.pop("TRITON_DEBUG", None)
        else:
            os.environ["TRITON_DEBUG"] = self.saved
        self.knobs.refresh_knobs()

    def test_device_assert_follows_debug(self):
        for jit_flag in (True, False):
            for env in (True, False):
                os.environ["TRITON_DEBUG"] = str(int(env))
                self.knobs.refresh_knobs()
                for opt in (True, False, None):
                    for mask in (True, False, None):
                        @nereid.jit(device=CPU, debug=jit_flag)
                        def k(COND: tl.constexpr, MASK: tl.constexpr):
                            tl.device_assert(COND, "the test's assert", mask=MASK)
                        kw = {} if opt is None else {"debug": opt}
                        on = env or (opt if opt is not None else jit_flag)
                        what = f"jit {jit_flag}, TRITON_DEBUG {env}, launch {opt}, mask {mask}"
                        k[(1,)](True, mask, **kw)  # a true condition never fails
                        if on and mask is not False:
                            with self.assertRaises(nereid.LaunchError, msg=what) as cm:
                                k[(1,)](False, mask, **kw)
                            self.assertIn("the test's assert", str(cm.exception))
                        else:
                            k[(1,)](False, mask, **kw)

    def test_static_assert_is_checked_in_every_mode(self):
        from nereid._errors import CompileTimeAssertionFailure
        for debug in (None, True, False):
            @nereid.jit(device=CPU, debug=debug)
            def k(COND: tl.constexpr):
                tl.static_assert(COND, "the condition")
            k[(1,)](True)
            with self.assertRaises(CompileTimeAssertionFailure) as cm:  # Triton's class of that name
                k[(1,)](False)
            self.assertIsInstance(cm.exception, nereid.CompileError)
            self.assertIn("the condition", cm.exception.error_message)

    def test_launch_debug_is_its_own_specialisation(self):
        @nereid.jit(device=CPU)
        def k(x):
            a = tl.load(x)
            assert a > 0, "not positive"
        x = np.array([-1], np.int32)
        k[(1,)](x)  # compiled without asserts
        with self.assertRaises(nereid.LaunchError):
            k[(1,)](x, debug=True)
        k[(1,)](x, debug=False)
        k[(1,)](x)

    def test_compile_time_false_assert(self):
        @nereid.jit(device=CPU)
        def k(out, BLOCK: tl.constexpr):
            assert BLOCK <= 4, "BLOCK too large"
            tl.store(out + tl.arange(0, BLOCK), 1)
        out = np.zeros(8, np.int32)
        k[(1,)](out, BLOCK=8)  # Triton drops the assert without debug
        self.assertEqual(out.sum(), 8)
        with self.assertRaisesRegex(nereid.CompileError, "BLOCK too large"):
            k[(1,)](out, BLOCK=8, debug=True)

    def test_integer_overflow_checks(self):
        def kernels():
            @nereid.jit(device=CPU)
            def add(X, Y, Z):
                tl.store(Z, tl.load(X) + tl.load(Y))

            @nereid.jit(device=CPU)
            def sub(X, Y, Z):
                tl.store(Z, tl.load(X) - tl.load(Y))

            @nereid.jit(device=CPU)
            def mul(X, Y, Z):
                tl.store(Z, tl.load(X) * tl.load(Y))
            return {"add": (add, np.add), "sub": (sub, np.subtract), "mul": (mul, np.multiply)}
        # (op, x, y, dtype, overflows): the limits from both sides, in and out of range
        cases = [("add", 2**31 - 1, 1, np.int32, True), ("add", -2**31, -1, np.int32, True),
                 ("add", -2**31, 5, np.int32, False), ("add", 2**15 - 1, 1, np.int16, True),
                 ("add", 2**32 - 1, 1, np.uint32, True), ("add", 2**32 - 2, 1, np.uint32, False),
                 ("sub", -2**31, 1, np.int32, True), ("sub", 2**31 - 1, -1, np.int32, True),
                 ("sub", -2**31, -1, np.int32, False), ("sub", 0, 1, np.uint8, True),
                 ("mul", 2**30, 2, np.int32, True), ("mul", -2**30, 2, np.int32, False),
                 ("mul", -2**30, -4, np.int32, True), ("mul", 300, 300, np.int16, True),
                 ("mul", 2**40, 2**22, np.int64, False)]  # 64 bits: never checked
        for op, xv, yv, dt, overflows in cases:
            for debug in (False, True):
                fn, ref = kernels()[op]
                x, y, z = np.array([xv], dt), np.array([yv], dt), np.zeros(1, dt)
                what = f"{op}({xv}, {yv}) in {np.dtype(dt).name}, debug {debug}"
                if overflows and debug:
                    bits = np.dtype(dt).itemsize * 8
                    with self.assertRaisesRegex(nereid.LaunchError,
                                                f"int{bits} overflow detected for operation {op}", msg=what):
                        fn[(1,)](x, y, z, debug=debug)
                else:
                    fn[(1,)](x, y, z, debug=debug)
                    with np.errstate(over="ignore"):
                        self.assertEqual(z[0], ref(x, y)[0], what)

    def test_launch_sanitize_overflow_false(self):
        @nereid.jit(device=CPU)
        def k(X, Z):
            x = tl.load(X)
            tl.device_assert(x != 0, "zero")
            tl.store(Z, x + 1)
        x, z = np.array([2**31 - 1], np.int32), np.zeros(1, np.int32)
        k[(1,)](x, z, debug=True, sanitize_overflow=False)  # asserts without overflow checks
        self.assertEqual(z[0], -2**31)
        with self.assertRaisesRegex(nereid.LaunchError, "zero"):
            k[(1,)](np.zeros(1, np.int32), z, debug=True, sanitize_overflow=False)
        with self.assertRaisesRegex(nereid.LaunchError, "overflow detected"):
            k[(1,)](x, z, debug=True)
        k[(1,)](x, z, sanitize_overflow=False)  # no debug: nothing checked

    def test_sanitize_overflow_false_and_unary_minus(self):
        @nereid.jit(device=CPU, debug=True)
        def k(X, Z):
            x = tl.load(X)
            tl.store(Z, tl.add(x, 1, sanitize_overflow=False))
            tl.store(Z + 1, tl.mul(x, 2, sanitize_overflow=False))

        @nereid.jit(device=CPU, debug=True)
        def neg(X, Z):
            tl.store(Z, -tl.load(X))
        x, z = np.array([2**31 - 1], np.int32), np.zeros(2, np.int32)
        k[(1,)](x, z)
        self.assertEqual(list(z), [-2**31, -2])
        neg[(1,)](x, z)
        self.assertEqual(z[0], -(2**31 - 1))
        with self.assertRaisesRegex(nereid.LaunchError, "int32 overflow detected for operation sub"):
            neg[(1,)](np.array([-2**31], np.int32), z)

    def test_combine_function_checked_under_debug(self):
        # Triton's side-effectful reductions: a combine's + is checked too
        @nereid.jit
        def add_fn(a, b):
            return a + b

        @nereid.jit(device=CPU, debug=True)
        def total(X, Z, BLOCK: tl.constexpr):
            tl.store(Z, tl.reduce(tl.load(X + tl.arange(0, BLOCK)), 0, add_fn))
        z = np.zeros(1, np.int32)
        total[(1,)](np.full(16, 3, np.int32), z, BLOCK=16)
        self.assertEqual(z[0], 48)
        with self.assertRaisesRegex(nereid.LaunchError, "int32 overflow detected for operation add"):
            total[(1,)](np.full(16, 2**29, np.int32), z, BLOCK=16)


class Jit(unittest.TestCase):
    def add(self, x, y):  # the tutorial's host function, NumPy for torch
        output = np.empty_like(x)
        n_elements = output.size
        grid = lambda meta: (nereid.cdiv(n_elements, meta['BLOCK_SIZE']), )  # noqa: E731
        tk.add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
        return output

    def test_vector_add_types_inferred(self):
        for dtype in (np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.int16):
            x = (np.random.rand(3000) * 100).astype(dtype)
            y = (np.random.rand(3000) * 100).astype(dtype)
            np.testing.assert_array_equal(self.add(x, y), x + y, err_msg=str(dtype))
        keys = [k[:3] for k in tk.add_kernel._cache if k[-1] == 1024]
        self.assertEqual(len(set(keys)), len(keys))  # one specialisation per dtype

    def test_source_lines_as_inspect_reads_them(self):
        # the kernel's lines come from its code objects' positions (inspect tokenizes the
        # block in Python); where those stop short of the def (a bracket alone on the last
        # line) inspect's block is taken: either way the kernel compiles and runs as written
        from nereid import _jit

        @nereid.jit(
            device=CPU,
        )
        def bracket_last(out, n: tl.constexpr):
            tl.store(out + tl.arange(0, n), (
                tl.arange(0, n) * 2
            )
            )

        @nereid.jit(device=CPU)
        def else_pass_last(out, n: tl.constexpr):
            x = tl.arange(0, n)
            if n > 2:
                tl.store(out + x, x + 1)
            else:
                pass
            # a comment after the last statement

        def plain(a):
            return [a,
                    a]


        for fn in (bracket_last.fn, else_pass_last.fn, plain):
            lines, first, filename, guessed = _jit._source_lines(fn)
            want, want_first = inspect.getsourcelines(fn)
            self.assertEqual(first, want_first)
            self.assertEqual(filename, inspect.getsourcefile(fn))
            self.assertEqual(lines, want[:len(lines)])  # a prefix of inspect's block
            own = _jit._Source(fn)
            self.assertIn(own.src.rstrip().splitlines()[-1].strip(), "".join(want))
        self.assertTrue(_jit._source_lines(else_pass_last.fn)[3])  # positions suffice there
        # a bracket at column 0 after the last instruction ends the guess inside the bracket
        # (a bare annotation compiles to nothing): inspect's block then
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bracket_mod.py")
            with open(path, "w") as f:
                f.write("def annotated(a):\n    x = a\n    b: (int\n)\n")
            spec = importlib.util.spec_from_file_location("bracket_mod", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            self.assertEqual(len(_jit._source_lines(mod.annotated)[0]), 3)  # it stops at `b: (int`
            self.assertEqual(_jit._Source(mod.annotated).src, inspect.getsource(mod.annotated))
        src = _jit._Source(bracket_last.fn).src
        self.assertEqual(src.rstrip().splitlines()[-2:], ["    )", "    )"])
        compile(src, "<src>", "exec")  # the whole def, brackets closed
        for k in (bracket_last, else_pass_last):
            out = np.zeros(4, dtype=np.int32)
            k[(1,)](out, n=4)
            np.testing.assert_array_equal(out, np.arange(4) * 2 if k is bracket_last else np.arange(4) + 1)

        # statements without instructions after the last one that has some (code after a
        # return, a global, an annotation, a comment) are the def's too, as inspect reads it
        def after_return(a):
            return a
            helper_after_return(a)  # noqa: F821
            b: int  # noqa: F842
            # the end

        self.assertEqual(_jit._Source(after_return).src, textwrap.dedent(inspect.getsource(after_return)))
        self.assertIn("helper_after_return", _jit._Source(after_return).names)

        # a wrapper (functools.wraps) is unwrapped, as inspect does: the kernel's own lines
        import functools

        def traced(f):
            @functools.wraps(f)
            def plain(*args, **kwargs):  # the wrapped function's name
                return f(*args, **kwargs)
            return plain

        @traced
        def plain(a):
            return a + 1
        self.assertEqual(_jit._Source(plain).src, "def plain(a):\n    return a + 1\n")  # from its def

    def test_assert_compiled_under_python_O(self):
        # python -O drops an assert's instructions: the kernel's text still holds it (the
        # lines run on over everything indented deeper than the def), so it is compiled
        # (with debug=True: Triton compiles no assert without it)
        import subprocess
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "k.py")
            with open(path, "w") as f:
                f.write("import numpy as np\nimport nereid\nimport nereid.language as tl\n\n"
                        "@nereid.jit(device='cpu', debug=True)\n"
                        "def k(out, BLOCK: tl.constexpr):\n"
                        "    tl.store(out + tl.arange(0, BLOCK), tl.arange(0, BLOCK))\n"
                        "    assert BLOCK <= 4, 'BLOCK too large'\n\n"
                        "try:\n"
                        "    k[(1,)](np.zeros(8, np.int32), BLOCK=8)\n"
                        "    print('compiled')\n"
                        "except nereid.CompileError as e:\n"
                        "    print('error:', str(e).splitlines()[0])\n")
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
            r = subprocess.run([sys.executable, "-O", path], capture_output=True, text=True, env=env, timeout=120)
            self.assertIn("BLOCK too large", r.stdout, r.stdout + r.stderr)

    def test_large_int_becomes_i64(self):
        @nereid.jit(device=CPU)
        def store_n(out, n):
            tl.store(out, n)
        out = np.zeros(1, dtype=np.int64)
        store_n[(1,)](out, 5)
        store_n[(1,)](out, 2 ** 40)
        self.assertEqual(out[0], 2 ** 40)
        self.assertEqual(sorted(k[1] for k in store_n._cache), [4, 5])  # i32, then i64
        f = np.zeros(1, dtype=np.float32)
        store_n[(1,)](f, 1.5)  # a float argument: fp32
        self.assertEqual(f[0], 1.5)
        b = np.zeros(1, dtype=np.bool_)
        store_n[(1,)](b, True)  # a bool: i1, into a bool array
        self.assertTrue(b[0])

    def test_softmax(self):
        def softmax(x):
            n_rows, n_cols = x.shape
            BLOCK_SIZE = nereid.next_power_of_2(n_cols)
            y = np.empty_like(x)
            num_programs = min(3, n_rows)
            tk.softmax_kernel[(num_programs, 1, 1)](y, x, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize,
                                                    n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE, num_stages=2, num_warps=8)
            return y
        for shape in ((5, 7), (8, 128), (3, 781)):
            x = np.random.randn(*shape).astype(np.float32)
            e = np.exp(x - x.max(axis=1, keepdims=True))
            np.testing.assert_allclose(softmax(x), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)

    def test_dropout_with_mask(self):
        p = 0.5
        x = np.random.randn(1000).astype(np.float32)
        x_keep = (np.random.rand(1000) > p).astype(np.int32)
        output = np.empty_like(x)
        n_elements = x.size
        grid = lambda meta: (nereid.cdiv(n_elements, meta['BLOCK_SIZE']), )  # noqa: E731
        tk._dropout[grid](x, x_keep, output, n_elements, p, BLOCK_SIZE=256)
        np.testing.assert_allclose(output, np.where(x_keep, x / (1 - p), 0.0), rtol=1e-6)

    def test_seeded_dropout(self):
        def seeded_dropout(x, p, seed):
            output = np.empty_like(x)
            n_elements = x.size
            grid = lambda meta: (nereid.cdiv(n_elements, meta['BLOCK_SIZE']), )  # noqa: E731
            tk._seeded_dropout[grid](x, output, n_elements, p, seed, BLOCK_SIZE=1024)
            return output
        x = np.random.randn(4000).astype(np.float32) + 10  # no zeros of its own
        a, b, c = seeded_dropout(x, 0.5, 123), seeded_dropout(x, 0.5, 123), seeded_dropout(x, 0.5, 512)
        np.testing.assert_array_equal(a, b)  # the seed decides the mask
        self.assertFalse(np.array_equal(a, c))
        kept = a != 0
        self.assertTrue(0.45 < kept.mean() < 0.55, kept.mean())
        np.testing.assert_allclose(a[kept], x[kept] / 0.5, rtol=1e-6)

    def test_layer_norm(self):
        M, N, eps = 7, 300, 1e-5
        x = np.random.randn(M, N).astype(np.float32)
        w, b = np.random.rand(N).astype(np.float32), np.random.rand(N).astype(np.float32)
        y = np.empty_like(x)
        mean, rstd = np.empty(M, dtype=np.float32), np.empty(M, dtype=np.float32)
        tk._layer_norm_fwd_fused[(M, )](x, y, w, b, mean, rstd, x.strides[0] // 4, N, eps, BLOCK_SIZE=128,
                                        num_warps=4)
        ref_mean = x.mean(axis=1)
        ref_rstd = 1 / np.sqrt(x.var(axis=1) + eps)
        np.testing.assert_allclose(mean, ref_mean, atol=1e-5)
        np.testing.assert_allclose(rstd, ref_rstd, rtol=1e-4)
        np.testing.assert_allclose(y, (x - ref_mean[:, None]) * ref_rstd[:, None] * w + b, atol=1e-4)

    def test_matmul_with_helper(self):
        def matmul(a, b, activation=""):
            M, K = a.shape
            K, N = b.shape
            c = np.empty((M, N), dtype=np.float16)
            grid = lambda META: (nereid.cdiv(M, META['BLOCK_SIZE_M']) * nereid.cdiv(N, META['BLOCK_SIZE_N']), )  # noqa
            tk.matmul_kernel[grid](
                a, b, c, M, N, K,
                a.strides[0] // 2, a.strides[1] // 2, b.strides[0] // 2, b.strides[1] // 2,
                c.strides[0] // 2, c.strides[1] // 2,
                BLOCK_SIZE_M=16, BLOCK_SIZE_N=16, BLOCK_SIZE_K=16, GROUP_SIZE_M=2,
                ACTIVATION=activation)
            return c
        a = (np.random.rand(40, 24) - 0.5).astype(np.float16)
        b = (np.random.rand(24, 33) - 0.5).astype(np.float16)
        ref = a.astype(np.float32) @ b.astype(np.float32)
        np.testing.assert_allclose(matmul(a, b).astype(np.float32), ref, atol=2e-2, rtol=1e-2)
        lr = np.where(ref >= 0, ref, 0.01 * ref)
        np.testing.assert_allclose(matmul(a, b, "leaky_relu").astype(np.float32), lr, atol=2e-2, rtol=1e-2)

    def test_flattened_loop_nests(self):
        # tl.range(..., flatten=True) is accepted from Python with every trip count (the
        # inner loop running no iteration included) and outer step, and changes no value:
        # the interpreter runs the nest either way (the fusion is the GPU pipeline's:
        # tests/unit/test_flatten_loops.c runs the interpreter on the fused loop, bit for
        # bit against the nest; test_gpu's GpuFlattenedLoops the GPU's code against torch)
        import flatten_kernels as fk
        rng = np.random.default_rng(3)
        for M, N, K, progs, step in [(40, 24, 40, 3, 3), (32, 32, 0, 2, 2), (17, 45, 9, 4, 5),
                                     (16, 16, 64, 1, 1), (20, 20, 20, 2, 7)]:
            a = (rng.random((M, K)) - 0.5).astype(np.float16)
            b = (rng.random((K, N)) - 0.5).astype(np.float16)
            got = []
            for flat in (False, True):
                c = np.full((M, N), -1, np.float16)
                count = np.zeros(progs, np.int32)
                fk.persistent_matmul[(progs,)](
                    a, b, c, count, M, N, K, max(K, 1), 1, N, 1, N, 1, step,
                    BM=16, BN=16, BK=16, HINTS=True, FLATTEN=flat)
                got.append((c, count))
            np.testing.assert_array_equal(got[0][0], got[1][0], err_msg=f"{M} {N} {K} {step}")
            np.testing.assert_array_equal(got[0][1], got[1][1])
            tiles = ((M + 15) // 16) * ((N + 15) // 16)
            covered = set()
            for p in range(progs):
                covered |= set(range(p, tiles, step))
                self.assertEqual(got[1][1][p], len(range(p, tiles, step)))
            if len(covered) == tiles:
                ref = a.astype(np.float32) @ b.astype(np.float32)
                np.testing.assert_allclose(got[1][0].astype(np.float32), ref, atol=2e-2, rtol=1e-2)
        x = rng.random((5, 64)).astype(np.float32)
        outs = []
        for flat in (False, True):
            out = np.zeros((5, 8), np.float32)
            fk.shifted_sums[(1,)](x, out, 5, 64, 1, BLOCK=8, FLATTEN=flat)
            outs.append(out)
        np.testing.assert_array_equal(outs[0], outs[1])
        ref = np.stack([np.float32(0.5) * r + sum(x[r, c * 8:c * 8 + 8] for c in range(1, 8, 2))
                        for r in range(5)])
        np.testing.assert_allclose(outs[1], ref, rtol=1e-6)
        y = rng.random((4 * 3 * 8,)).astype(np.float32)
        for kern, want_rows in ((fk.advancing_pointers, 4), (fk.nested_nests, 4)):
            got = []
            for flat in (False, True):
                out = np.zeros((want_rows, 8), np.float32)
                kern[(1,)](y, out, 4, 3, BLOCK=8, FLATTEN=flat)
                got.append(out)
            np.testing.assert_array_equal(got[0], got[1], err_msg=kern.__name__)
        np.testing.assert_allclose(got[1][0], (y.reshape(4, 3, 8).sum(1) * 2).sum(0) + y[:24].reshape(3, 8).sum(0),
                                   rtol=1e-5)
        za = np.zeros((16, 16), np.float16)
        zb = np.full((16, 16), -1, np.float16)
        signs = []
        for flat in (False, True):
            out = np.zeros((2, 16, 16), np.float32)
            fk.negative_zero_start[(1,)](za, zb, out, 2, 1, FLATTEN=flat)
            signs.append(np.signbit(out))
        self.assertTrue(signs[0].all())
        np.testing.assert_array_equal(signs[0], signs[1])

    def test_module_constants_and_typed_parameters(self):
        @nereid.jit(device=CPU)
        def fill(out: "*fp32", n: tl.int32, value):
            offs = tl.arange(0, BLOCK)
            tl.store(out + offs, value * SCALE, mask=offs < n)
        out = np.zeros(BLOCK, dtype=np.float32)
        fill[(1,)](out, 10, 2.0)
        np.testing.assert_array_equal(out[:10], 2.0 * SCALE)
        np.testing.assert_array_equal(out[10:], 0)
        with self.assertRaisesRegex(TypeError, "argument 'n' is i32"):
            fill[(1,)](out, 1.5, 2.0)

    def test_none_is_a_constexpr(self):
        @nereid.jit(device=CPU)
        def maybe_bias(out, bias):
            x = tl.full([4], 1.0, tl.float32)
            if bias is not None:
                x += tl.load(bias + tl.arange(0, 4))
            tl.store(out + tl.arange(0, 4), x)
        out = np.zeros(4, dtype=np.float32)
        maybe_bias[(1,)](out, None)
        np.testing.assert_array_equal(out, 1)
        maybe_bias[(1,)](out, np.full(4, 2, dtype=np.float32))
        np.testing.assert_array_equal(out, 3)

    def test_jit_errors(self):
        @nereid.jit(device=CPU)
        def broken(out, n):
            tl.store(out, undefined_name)  # noqa: F821
        with self.assertRaises(nereid.CompileError) as cm:
            broken[(1,)](np.zeros(1, dtype=np.float32), 1)
        f, line, col, _, msg = cm.exception.errors[0]
        self.assertEqual(os.path.abspath(f), os.path.abspath(__file__))  # the diagnostic points into this file
        self.assertEqual(line, broken.fn.__code__.co_firstlineno + 2)
        self.assertIn("undefined_name", msg)
        with self.assertRaisesRegex(RuntimeError, r"launch it with broken\[grid\]"):
            broken(1, 2)
        with self.assertRaisesRegex(TypeError, "missing argument 'n'"):
            broken[(1,)](np.zeros(1, dtype=np.float32))
        with self.assertRaisesRegex(TypeError, "constexpr arguments must be hashable"):
            tk.add_kernel[(1,)](np.zeros(1), np.zeros(1), np.zeros(1), 1, BLOCK_SIZE=[4])

    def test_run_and_warmup(self):  # what Triton's autotuner calls
        x = np.arange(64, dtype=np.float32)
        out = np.zeros_like(x)
        n_before = len(tk.add_kernel._cache)
        tk.add_kernel.warmup(x, x, out, 64, BLOCK_SIZE=64, grid=(1,))
        np.testing.assert_array_equal(out, 0)  # compiled, not run
        self.assertEqual(len(tk.add_kernel._cache), n_before + 1)
        tk.add_kernel.run(x, x, out, 64, BLOCK_SIZE=64, grid=(1,), warmup=False, num_warps=4, num_ctas=1,
                          num_stages=3, maxnreg=None)
        np.testing.assert_array_equal(out, 2 * x)
        self.assertEqual(tk.add_kernel.arg_names, ["x_ptr", "y_ptr", "output_ptr", "n_elements", "BLOCK_SIZE"])

    def test_language_outside_a_kernel(self):
        with self.assertRaisesRegex(RuntimeError, "only be used inside a kernel"):
            tl.program_id(0)
        self.assertEqual(tl.constexpr(4), 4)
        self.assertEqual(nereid.next_power_of_2(1000), 1024)
        self.assertEqual(nereid.cdiv(10, 4), 3)


class TensorDescriptors(unittest.TestCase):
    """Host tensor descriptors as kernel arguments: desc_kernels.py's kernels on NumPy
    arrays against NumPy, the type a descriptor gives an untyped parameter (its dtype and
    block shape; the padding compiles nothing), typed parameters, nereid.compile kernels,
    Triton-style objects read by their attributes, and the errors."""
    dev = dk.NumpyDevice()
    TD = nereid.TensorDescriptor

    def check_tile_2d(self, x, BM, BN, padding="zero", cols=None):
        y, tiles = dk.run_tile_2d(self.dev, x, BM, BN, padding, cols)
        want_y, want_tiles = dk.want_tile_2d(x, BM, BN, padding, cols)
        what = f"{x.shape} cols={cols} {x.dtype} BM={BM} BN={BN} {padding}"
        np.testing.assert_array_equal(y, want_y, err_msg=what)  # nothing written past the shape
        np.testing.assert_array_equal(tiles, want_tiles, err_msg=what)  # NaN compares equal to NaN here

    def test_2d_zero_and_nan_padding(self):
        rng = np.random.default_rng(1)
        for M, S, cols, BM, BN, padding in ((37, 45, None, 16, 8, "zero"), (37, 52, 45, 8, 16, "nan"),
                                            (5, 14, 3, 4, 4, "zero"), (16, 32, None, 16, 32, "nan"),
                                            (1, 1, None, 2, 2, "nan"), (64, 64, None, 32, 64, "zero")):
            self.check_tile_2d(rng.uniform(-10, 10, (M, S)).astype(np.float32), BM, BN, padding, cols)
        x16 = rng.uniform(-10, 10, (19, 40)).astype(np.float16)
        self.check_tile_2d(x16, 8, 16, "nan", 33)
        self.check_tile_2d(x16, 16, 8, "zero")

    def test_1d(self):
        for n, B, dtype in ((100, 32, np.int32), (7, 8, np.float32), (1000, 256, np.float16), (64, 64, np.int64)):
            x = np.arange(n).astype(dtype)
            y, info = dk.run_vec_1d(self.dev, x, B)
            np.testing.assert_array_equal(y, x + 1)
            self.assertEqual(list(info), [n, 1, B])
        x = np.arange(10, dtype=np.float32)[::2]  # a strided view: its stride 2 cannot be the last dim's
        with self.assertRaisesRegex(ValueError, "the last stride must be 1"):
            self.TD.from_tensor(x, [8])

    def test_3d(self):
        rng = np.random.default_rng(3)
        for shape, box, dtype in (((3, 10, 40), (2, 4, 16), np.float16), ((2, 8, 32), (2, 8, 32), np.float32),
                                  ((5, 3, 7), (4, 2, 8), np.int16)):
            x = rng.integers(-100, 100, shape).astype(dtype)
            np.testing.assert_array_equal(dk.run_box_3d(self.dev, x, *box), x - dtype(1), err_msg=str(shape))


    def test_helper_returns_descriptor_or_makes_one(self):
        x = np.arange(40 * 24, dtype=np.float32).reshape(40, 24)
        for host in (True, False):
            np.testing.assert_array_equal(dk.run_add_one_any(self.dev, x, 16, 8, host), x + 1, err_msg=str(host))
    def test_matmul(self):
        rng = np.random.default_rng(4)
        cases = (((40, 33, 50), (16, 16, 16), np.float32), ((64, 64, 64), (32, 32, 32), np.float16),
                 ((17, 70, 9), (16, 32, 16), np.float32))
        for (M, N, K), (BM, BN, BK), out in cases:
            a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
            b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
            c = dk.run_matmul(self.dev, a, b, out, BM, BN, BK)
            ref = a.astype(np.float64) @ b.astype(np.float64)
            tol = 1e-2 if out == np.float16 else 1e-4
            np.testing.assert_allclose(c.astype(np.float64), ref, atol=tol, rtol=tol, err_msg=f"{M}x{N}x{K}")
        f32 = rng.uniform(-1, 1, (30, 20)).astype(np.float32)  # fp32 operands (tl.dot's default is tf32: a loose bound)
        c = dk.run_matmul(self.dev, f32, f32.T.copy(), np.float32, 16, 16, 16)
        np.testing.assert_allclose(c, f32.astype(np.float64) @ f32.T.astype(np.float64), atol=2e-2, rtol=1e-2)

    def test_type_and_cache_key(self):
        # an untyped parameter becomes "tensordesc<DTYPE[BLOCK_SHAPE]>" (Triton's spelling);
        # each dtype and block shape compiles once; the padding is read at each launch
        from nereid import _jit

        @nereid.jit(device=CPU)
        def scale(x_desc, y_desc):
            y_desc.store([0, 0], x_desc.load([0, 0]) * 3)
        x = np.arange(24, dtype=np.float32).reshape(4, 6)
        y = np.zeros_like(x)
        for block, padding in (([4, 8], "zero"), ([4, 8], "nan"), ([2, 4], "zero"), ([4, 8], "zero")):
            scale[(1,)](self.TD.from_tensor(x, block, padding), self.TD.from_tensor(y, block))
            np.testing.assert_array_equal(y, 3 * x)
        self.assertEqual(sorted(_jit._type_text(k[0]) for k in scale._cache),
                         ["tensordesc<fp32[2, 4]>", "tensordesc<fp32[4, 8]>"])
        scale[(1,)](self.TD.from_tensor(x.astype(np.float16), [4, 8]), self.TD.from_tensor(y.astype(np.float16), [4, 8]))
        self.assertIn("tensordesc<fp16[4, 8]>", [_jit._type_text(k[0]) for k in scale._cache])
        self.assertEqual(len(scale._cache), 3)
        # the source compiled: the type as a string annotation, as Triton would write it
        text = scale.source({"x_desc": "tensordesc<fp32[2, 4]>"})[0]
        self.assertIn('def scale(x_desc: "tensordesc<fp32[2, 4]>", y_desc', text)
        # every block of powers of two up to 2^20 elements, of 1 to 5 dims, has its own code
        for block in ([1, 1], [1, 1024], [1024, 1024]):
            d = self.TD(x, [4, 6], [6, 1], block)
            scale.warmup(d, d, grid=(1,))  # compiles, launches nothing
        before = {"tensordesc<fp32[2, 4]>", "tensordesc<fp32[4, 8]>", "tensordesc<fp16[4, 8]>"}
        self.assertEqual({_jit._type_text(k[0]) for k in scale._cache} - before,
                         {"tensordesc<fp32[1, 1]>", "tensordesc<fp32[1, 1024]>", "tensordesc<fp32[1024, 1024]>"})

        @nereid.jit(device=CPU)
        def copy4(x_desc, y_desc):
            y_desc.store([0, 0, 0, 0], x_desc.load([0, 0, 0, 0]))
        x4 = np.arange(2 * 3 * 4 * 5, dtype=np.int32).reshape(2, 3, 4, 5)
        y4 = np.zeros_like(x4)
        copy4[(1,)](self.TD.from_tensor(x4, [2, 4, 4, 8]), self.TD.from_tensor(y4, [2, 4, 4, 8]))
        np.testing.assert_array_equal(y4, x4)
        self.assertEqual([_jit._type_text(k[0]) for k in copy4._cache], ["tensordesc<i32[2, 4, 4, 8]>"])

        # rank 5, Triton's largest: blocks past the array's bounds read 0 and write nothing;
        # a large last dim sets the key's high bits (past bit 31)
        @nereid.jit(device=CPU)
        def copy5(x_desc, y_desc):
            y_desc.store([0, 0, 0, 0, 0], x_desc.load([0, 0, 0, 0, 0]) + 1)
        x5 = np.arange(2 * 3 * 2 * 5 * 6, dtype=np.int32).reshape(2, 3, 2, 5, 6)
        y5 = np.zeros_like(x5)
        copy5[(1,)](self.TD.from_tensor(x5, [2, 4, 2, 8, 8]), self.TD.from_tensor(y5, [2, 4, 2, 8, 8]))
        np.testing.assert_array_equal(y5, x5 + 1)
        wide = self.TD(x5, [2, 3, 2, 5, 6], [180, 60, 30, 6, 1], [1, 1, 1, 1, 1024])
        copy5.warmup(wide, wide, grid=(1,))
        self.assertEqual(sorted(_jit._type_text(k[0]) for k in copy5._cache),
                         ["tensordesc<i32[1, 1, 1, 1, 1024]>", "tensordesc<i32[2, 4, 2, 8, 8]>"])

    def test_typed_parameters(self):
        x = np.arange(32, dtype=np.float32).reshape(8, 4)
        y = np.zeros_like(x)
        dk.tile_2d_typed[(1, 1)](self.TD.from_tensor(x, [8, 4]), self.TD.from_tensor(y, [8, 4]), BM=8, BN=4)
        np.testing.assert_array_equal(y, x + 1)
        dk.tile_2d_typed[(2, 1)](self.TD.from_tensor(x, [4, 4]), self.TD.from_tensor(y, [4, 4]), BM=4, BN=4)
        np.testing.assert_array_equal(y, x + 1)
        with self.assertRaisesRegex(TypeError, r"argument 'x_desc' is tensordesc<fp32\[8, 4\]>, got "
                                               r"tensordesc<fp32\[4, 4\]> \(its block_shape must be the parameter's\)"):
            dk.tile_2d_typed[(1, 1)](self.TD.from_tensor(x, [4, 4]), self.TD.from_tensor(y, [8, 4]), BM=8, BN=4)
        with self.assertRaisesRegex(TypeError, "argument 'y_desc' is a tensor descriptor of fp32, got one of fp16"):
            dk.tile_2d_typed[(1, 1)](self.TD.from_tensor(x, [8, 4]), self.TD.from_tensor(y.astype(np.float16), [8, 4]),
                                     BM=8, BN=4)
        with self.assertRaisesRegex(TypeError, r"argument 'x_desc' is a tensor descriptor \(nereid.TensorDescriptor, "
                                               "or Triton's\), got ndarray"):
            dk.tile_2d_typed[(1, 1)](x, self.TD.from_tensor(y, [8, 4]), BM=8, BN=4)
        with self.assertRaisesRegex(TypeError, "unknown parameter annotation 'tensordesc<foo"):
            @nereid.jit(device=CPU)
            def bad(x: "tensordesc<foo[8]>"):
                pass

    def test_compiled_module(self):
        src = ('@triton.jit\n'
               'def shift(x: "tensordesc<fp32[BM, 4]>", y: "tensordesc<fp32[BM, 4]>", BM: tl.constexpr):\n'
               '    off = tl.program_id(0) * BM\n'
               '    y.store([off, 0], x.load([off, 0]) + 10.0)\n')
        mod = nereid.compile(src, device=CPU, BM=8)
        self.assertEqual(mod.shift.params(), [("x", "tensordesc<fp32[8, 4]>"), ("y", "tensordesc<fp32[8, 4]>")])
        x = np.arange(44, dtype=np.float32).reshape(11, 4)
        y = np.zeros_like(x)
        mod.shift[(2,)](self.TD.from_tensor(x, [8, 4]), self.TD.from_tensor(y, [8, 4], padding="nan"))
        np.testing.assert_array_equal(y, x + 10)
        mod.shift[(3,)](self.TD.from_tensor(x, [4, 4]), self.TD.from_tensor(y, [4, 4]), BM=4)  # another variant
        with self.assertRaisesRegex(TypeError, r"argument 'y' is tensordesc<fp32\[8, 4\]>, got tensordesc<fp32\[4, 4\]>"):
            mod.shift[(2,)](self.TD.from_tensor(x, [8, 4]), self.TD.from_tensor(y, [4, 4]))

    def test_triton_style_objects(self):
        # Triton's triton.tools.tensor_descriptor.TensorDescriptor is read by its attributes:
        # any object with base, shape, strides, block_shape and padding is a descriptor
        import dataclasses

        @dataclasses.dataclass
        class TensorDescriptor:  # Triton's fields; not nereid's class
            base: object
            shape: list
            strides: list
            block_shape: list
            padding: str = "zero"

        x = np.arange(45, dtype=np.float32).reshape(9, 5)
        y, tiles = np.zeros_like(x), np.zeros(2 * 1 * 8 * 8, dtype=np.float32)
        dk.tile_2d[(2, 1)](TensorDescriptor(x, x.shape, (5, 1), (8, 8), "nan"),
                           types.SimpleNamespace(base=y, shape=[9, 5], strides=[5, 1], block_shape=[8, 8], padding="zero"),
                           tiles)
        np.testing.assert_array_equal(y, 2 * x)
        self.assertEqual(int(np.isnan(tiles).sum()), 2 * 64 - 45)
        no_padding = types.SimpleNamespace(base=y, shape=[9, 5], strides=[5, 1], block_shape=[8, 8])  # "zero"
        dk.tile_2d[(2, 1)](TensorDescriptor(x, x.shape, (5, 1), (8, 8)), no_padding, tiles)
        self.assertEqual(int((tiles == 0).sum()), 2 * 64 - 45 + 1)  # the padding, and x[0, 0]

    @unittest.skipUnless(importlib.util.find_spec("torch"), "no torch")
    def test_torch_cpu_tensors(self):
        import torch
        x = torch.arange(40 * 24, dtype=torch.float32).reshape(40, 24)
        y = torch.zeros_like(x)
        t = torch.zeros(3 * 3 * 16 * 8)
        dk.tile_2d[(3, 3)](self.TD.from_tensor(x[:, 2:], [16, 8]), self.TD.from_tensor(y[:, 2:], [16, 8]), t)
        self.assertTrue(torch.equal(y[:, 2:], 2 * x[:, 2:]))
        self.assertTrue(torch.equal(y[:, :2], torch.zeros(40, 2)))

    def test_errors(self):
        x = np.zeros((8, 8), dtype=np.float32)
        t = np.zeros(64, dtype=np.float32)
        good = self.TD.from_tensor(x, [8, 8])
        ns = types.SimpleNamespace

        def desc(**kw):
            return ns(**{**dict(base=x, shape=[8, 8], strides=[8, 1], block_shape=[8, 8], padding="zero"), **kw})
        for d, err, text in ((desc(strides=[8]), ValueError, r"rank mismatch: its shape has 2 dims, its strides 1"),
                             (desc(strides=[1, 8]), ValueError, "the last stride must be 1 .*got 8"),
                             (desc(padding="inf"), ValueError, r"padding must be \"zero\" or \"nan\", got 'inf'"),
                             (desc(block_shape=[8, 6]), ValueError, "powers of two, got 6"),
                             (desc(block_shape=[2048, 1024]), ValueError, "more than 2\\^20 elements"),
                             (desc(shape=[1] * 6, strides=[1] * 6, block_shape=[1] * 6), ValueError, "its rank is 6"),
                             (desc(shape=[8.0, 8]), TypeError, r"shape\[0\] is not an int"),
                             (desc(shape=8), TypeError, "its shape must be a sequence of ints, got int"),
                             (desc(base=x.astype(np.bool_)), TypeError, r"its base's dtype \(bool\)"),
                             (desc(base=[1.0] * 64), TypeError, "argument 'x_desc' must be an array"),
                             (desc(shape=[-1, 8]), ValueError, r"shape\[0\] is -1"),
                             (ns(base=x, block_shape=[8, 8]), TypeError, "argument 'x_desc' .* has no shape"),
                             (ns(shape=[8, 8], strides=[8, 1], block_shape=[8, 8]), TypeError, "has no base"),
                             (ns(base=x, shape=[8, 8]), TypeError, "argument 'x_desc' must be an array")):
            with self.assertRaisesRegex(err, text, msg=text):
                dk.tile_2d[(1, 1)](d, good, t)
        with self.assertRaisesRegex(ValueError, "NaN padding needs a float element type"):
            dk.run_vec_1d(self.dev, np.arange(8, dtype=np.int32), 8, padding="nan")
        # a descriptor larger than its array: the interpreter's bounds checks catch it
        with self.assertRaisesRegex(nereid.LaunchError, "out-of-bounds"):
            dk.tile_2d[(2, 1)](desc(shape=[16, 8]), self.TD(np.zeros((16, 8), np.float32), [16, 8], [8, 1], [8, 8]),
                               np.zeros(128, np.float32))
        dk.tile_2d[(1, 1)](good, good, t)  # still usable

    def test_constructor(self):
        x = np.zeros((6, 10), dtype=np.float16)
        d = self.TD.from_tensor(x[:, 2:], [4, 8])
        self.assertEqual((d.shape, d.strides, d.block_shape, d.padding), ([6, 8], [10, 1], [4, 8], "zero"))
        self.assertIs(d.base.base, x)
        d = self.TD(x, (6, 10), (10, 1), (2, 16), padding="nan")
        self.assertEqual(d.padding, "nan")
        for args, err, text in ((((6, 10), (10, 1), (8,)), ValueError, "rank mismatch"),
                                ((((6, 10), (1, 6), (2, 2))), ValueError, "the last stride must be 1"),
                                (((6, 10), (10, 1), (2, 3)), ValueError, r"block_shape\[1\] is 3"),
                                (((6, 10), (10, 1), (2, 2.0)), TypeError, r"block_shape\[1\] must be an int"),
                                (((), (), ()), ValueError, "1 to 5 dims"),
                                (((1,) * 6, (1,) * 6, (1,) * 6), ValueError, "1 to 5 dims"),
                                (((6, 10), (10, 1), (1024, 2048)), ValueError, "at most 2\\^20")):
            with self.assertRaisesRegex(err, text):
                self.TD(x, *args)
        with self.assertRaisesRegex(ValueError, "padding must be"):
            self.TD(x, (6, 10), (10, 1), (2, 2), padding="zeros")
        with self.assertRaisesRegex(TypeError, "a torch tensor or a NumPy array"):
            self.TD.from_tensor([1, 2], [2])

    def test_autotune_pre_hook_sets_the_block_shape(self):
        # Triton's TMA tutorials: each config's pre_hook gives the descriptors its block shape
        def set_block(nargs):
            for name in ("x_desc", "y_desc"):
                nargs[name].block_shape = [nargs["BM"], nargs["BN"]]

        tuned = nereid.autotune(configs=[nereid.Config({"BM": 8, "BN": 4}, pre_hook=set_block),
                                         nereid.Config({"BM": 4, "BN": 8}, pre_hook=set_block)], key=[])(dk.tile_2d_typed)
        x = np.arange(19 * 13, dtype=np.float32).reshape(19, 13)
        y = np.zeros_like(x)
        xd, yd = self.TD.from_tensor(x, [1, 1]), self.TD.from_tensor(y, [1, 1])
        tuned[lambda m: (nereid.cdiv(19, m["BM"]), nereid.cdiv(13, m["BN"]))](xd, yd)
        np.testing.assert_array_equal(y, x + 1)
        self.assertEqual(xd.block_shape, [tuned.best_config.kwargs["BM"], tuned.best_config.kwargs["BN"]])


TUNED_NR = """
import triton
import triton.language as tl
@triton.autotune(configs=[triton.Config({'BLOCK': 16}, num_warps=1), triton.Config({'BLOCK': 32}),
                          triton.Config({'BLOCK': 64}, num_warps=8)],
                 key=['n'], reset_to_zero=['total'])
@triton.heuristics(values={'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})
@triton.jit
def tuned_sum(x: *fp32, total: *fp32, n: i32, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        v = tl.load(x + offs)
    else:
        v = tl.load(x + offs, mask=offs < n, other=0.0)
    tl.atomic_add(total, tl.sum(v, axis=0))
"""


class Autotuning(unittest.TestCase):
    def setUp(self):
        import tempfile
        self.cache = tempfile.mkdtemp(prefix="nereid-py-autotune-")
        self.old = os.environ.get("NEREID_CACHE_DIR")
        os.environ["NEREID_CACHE_DIR"] = self.cache

    def tearDown(self):
        import shutil
        shutil.rmtree(self.cache, ignore_errors=True)
        if self.old is None:
            del os.environ["NEREID_CACHE_DIR"]
        else:
            os.environ["NEREID_CACHE_DIR"] = self.old

    def test_kernel_file_tuned_by_the_runtime(self):
        mod = nereid.compile(TUNED_NR, device=CPU)
        seen = []

        def grid(meta):
            seen.append((meta["BLOCK"], meta["EVEN"], meta["n"]))
            return (nereid.cdiv(meta["n"], meta["BLOCK"]),)
        for n in (100, 128):
            x = np.arange(n, dtype=np.float32)
            total = np.full(1, 1e6, dtype=np.float32)  # reset_to_zero: zeroed before the timed runs and the launch
            mod.tuned_sum[grid](x, total, n)
            self.assertEqual(total[0], x.sum(), n)
        blocks = {b for b, _, _ in seen}
        self.assertEqual(blocks, {16, 32, 64})  # every config was timed
        for b, even, n in seen:  # the heuristic saw the config's BLOCK and the argument n
            self.assertEqual(even, n % b == 0, (b, even, n))
        entries = [f for f in os.listdir(self.cache) if not f.startswith(".")]  # not the eviction's .lock
        self.assertEqual(len(entries), 2)  # one choice per key, kept on disk

    def test_print_autotuning(self):
        import subprocess
        code = ("import numpy as np, nereid\n"
                f"mod = nereid.compile({TUNED_NR!r}, device='cpu')\n"
                "x = np.ones(50, dtype=np.float32); t = np.zeros(1, dtype=np.float32)\n"
                "mod.tuned_sum[lambda m: (nereid.cdiv(50, m['BLOCK']),)](x, t, 50)\n"
                "assert t[0] == 50, t\n")
        for switch, value in (("NEREID_PRINT_AUTOTUNING", "1"), ("TRITON_PRINT_AUTOTUNING", "1"),
                              ("TRITON_PRINT_AUTOTUNING", "0")):  # Nereid's switch, or Triton's
            env = {k: v for k, v in os.environ.items() if not k.endswith("_PRINT_AUTOTUNING")}
            env.update({switch: value, "PYTHONPATH": os.pathsep.join(sys.path),
                        "NEREID_CACHE_DIR": tempfile.mkdtemp(dir=self.cache)})  # each run tunes
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                 timeout=120)
            self.assertEqual(out.returncode, 0, out.stderr)
            if value == "1":
                self.assertIn("nereid autotune: kernel tuned_sum, key (n=50): timing 3 of 3 configs", out.stdout)
                self.assertIn("chose BLOCK=", out.stdout)
            else:
                self.assertNotIn("nereid autotune", out.stdout)

    def test_autotune_decorator_on_jit(self):
        calls = []

        @nereid.autotune(configs=[nereid.Config({'BLOCK': 8}), nereid.Config({'BLOCK': 32}, num_warps=2),
                                  nereid.Config({'BLOCK': 64}, num_warps=8)],
                         key=['n'], reset_to_zero=['out'], restore_value=['x'],
                         prune_configs_by={'early_config_prune': lambda configs, nargs, **kw:
                                           [c for c in configs if c.kwargs['BLOCK'] <= nargs['n']]})
        @nereid.heuristics({'MASKED': lambda args: args['n'] % args['BLOCK'] != 0})
        @nereid.jit(device=CPU)
        def bump(x, out, n, BLOCK: tl.constexpr, MASKED: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            v = tl.load(x + offs, mask=m, other=0)
            tl.store(x + offs, v + 1, mask=m)
            tl.atomic_add(out, tl.sum(v, axis=0))

        def grid(meta):
            calls.append(meta["BLOCK"])
            return (nereid.cdiv(meta["n"], meta["BLOCK"]),)
        x = np.arange(40, dtype=np.int32)
        out = np.full(1, 777, dtype=np.int32)
        bump[grid](x, out, 40)
        np.testing.assert_array_equal(x, np.arange(40) + 1)  # restored between timed runs: bumped once
        self.assertEqual(out[0], 40 * 39 // 2)  # zeroed before the real launch
        self.assertEqual(set(calls), {8, 32})  # BLOCK=64 > n was pruned
        self.assertIn(bump.best_config.kwargs["BLOCK"], (8, 32))
        # Triton's base_fn: the Python function under the decorators
        self.assertEqual(bump.base_fn.__name__, "bump")
        self.assertTrue(inspect.isfunction(bump.base_fn) and inspect.isfunction(bump.fn.base_fn))
        self.assertEqual(len(bump.cache), 1)
        n_files = len([f for f in os.listdir(self.cache) if not f.startswith(".")])  # not the eviction's .lock
        self.assertEqual(n_files, 1)  # the choice, in the disk cache the C API's tuned kernels use
        calls.clear()
        bump[grid](x, out, 40)  # the same key: no timing
        self.assertEqual(len(calls), 1)
        bump.cache.clear()  # as a new process would: the choice comes from the disk
        calls.clear()
        bump[grid](x, out, 40)
        self.assertEqual(len(calls), 1)

    def _parallel_tuned(self, threads, bad=False):
        """A matmul tuned over 8 configs on the interpreter with NEREID_COMPILE_THREADS set:
        its chosen config's result, the configs compiled, and Context.compile_many's calls."""
        import tempfile
        os.environ["NEREID_COMPILE_THREADS"] = str(threads)
        os.environ["NEREID_CACHE_DIR"] = tempfile.mkdtemp(dir=self.cache)  # no choice from an earlier run
        configs = [nereid.Config({"BM": m, "BN": n, "BK": 16}, num_warps=w) for m in (16, 32) for n in (16, 32)
                   for w in (2, 4)]
        if bad:  # a config that does not compile (a block of 24) is slow forever, not an error
            configs.append(nereid.Config({"BM": 24, "BN": 16, "BK": 16}))

        @nereid.autotune(configs=configs, key=["M", "N", "K"])
        @nereid.jit(device=CPU)
        def mm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
            rm = tl.program_id(0) * BM + tl.arange(0, BM)
            rn = tl.program_id(1) * BN + tl.arange(0, BN)
            rk = tl.arange(0, BK)
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for k in range(0, K, BK):
                x = tl.load(a + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
                            other=0.0)
                y = tl.load(b + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
                            other=0.0)
                acc += tl.dot(x, y)
            tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

        ctx = mm.fn._resolve()
        calls, real = [], type(ctx).compile_many

        class Spy:  # counts compile_many's calls on this context
            def __init__(self, c):
                self.c = c

            def __getattr__(self, name):
                return getattr(self.c, name)

            def compile_many(self, jobs):
                calls.append(len(jobs))
                return real(self.c, jobs)
        spy = Spy(ctx)
        orig = mm.fn._key
        mm.fn._key = lambda *a, **k: (orig(*a, **k)[0], spy)
        rng = np.random.default_rng(0)
        a = rng.integers(-3, 4, (24, 20)).astype(np.float16)
        b = rng.integers(-3, 4, (20, 28)).astype(np.float16)
        c = np.zeros((24, 28), dtype=np.float32)
        mm[lambda m: (nereid.cdiv(24, m["BM"]), nereid.cdiv(28, m["BN"]))](a, b, c, 24, 28, 20)
        np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
        compiled = len(mm.fn._cache)
        return mm, compiled, calls

    def test_autotune_compiles_configs_in_parallel(self):
        old = os.environ.get("NEREID_COMPILE_THREADS")
        try:
            serial, n1, calls1 = self._parallel_tuned(1)
            par, n4, calls4 = self._parallel_tuned(4)
            # 8 configs, 4 specialisations (num_warps does not key the CPU's), each compiled once:
            # all in one compile_many before the timing
            self.assertEqual((n1, n4), (4, 4))
            self.assertEqual(calls1, [4])
            self.assertEqual(calls4, [4])
            self.assertEqual(set(serial.configs_timings), set(par.configs_timings))  # every config timed
            self.assertEqual(len(serial.configs_timings), 8)
            bad, n, _ = self._parallel_tuned(4, bad=True)  # the failing config is left to its launch
            self.assertEqual(len(bad.configs_timings), 8)
            self.assertNotEqual(bad.best_config.kwargs["BM"], 24)
        finally:
            if old is None:
                os.environ.pop("NEREID_COMPILE_THREADS", None)
            else:
                os.environ["NEREID_COMPILE_THREADS"] = old

    def test_context_compile_many(self):
        ctx = nereid.context(CPU)
        src = "@triton.jit\ndef k(x: *fp32, B: tl.constexpr):\n    tl.store(x + tl.arange(0, B), 1.0)\n"
        mods = ctx.compile_many([(src, "k.py", [("B", str(b))], "k", 0, 0) for b in (8, 16, 32)] +
                                [("@triton.jit\ndef k(x: *fp32):\n    y = nope\n", "bad.py", [], None, 0, 0)])
        self.assertEqual([m is None for m in mods], [False, False, False, True])
        self.assertEqual(mods[0].kernel_names(), ["k"])

    def test_autotune_errors(self):
        t = nereid.autotune(configs=[nereid.Config({})], key=["nope"])(tk.add_kernel)
        self.assertEqual(t.keys, ["nope"])  # a key naming no parameter is left out of the key, as in Triton

        @nereid.autotune(configs=[nereid.Config({'BLOCK_SIZE': 16}), nereid.Config({'BLOCK_SIZE': 32})], key=[])
        @nereid.jit(device=CPU)
        def k(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
            pass
        with self.assertRaisesRegex(ValueError, "conflicting meta-parameters: BLOCK_SIZE"):
            k[(1,)](np.zeros(4, dtype=np.float32), 4, BLOCK_SIZE=16)


class _Foreign:
    class constexpr:
        """Stands for triton.language.constexpr (another package's class of that name)."""

        def __init__(self, value):
            self.value = value


LIMIT = _Foreign.constexpr(5)


@nereid.jit(device=CPU)
def _clip_to_limit(x_ptr, n: int, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, tl.minimum(v, LIMIT), mask=offs < n)


class TritonObjectModel(unittest.TestCase):
    """What Triton's own code and tests touch on a kernel and on a launch's result."""

    def kernel(self):
        @nereid.jit(device=CPU)
        def scale(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
        return scale

    def test_src_and_update(self):
        k = self.kernel()
        self.assertTrue(k.src.startswith("def scale(x_ptr, n, BLOCK: tl.constexpr):"), k.src)
        with self.assertRaises(AttributeError):
            k.src = "x"
        x = np.ones(8, dtype=np.float32)
        k[(1,)](x, 8, BLOCK=8)
        np.testing.assert_array_equal(x, 2)
        k._unsafe_update_src(k.src.replace("* 2", "* 3"))  # Triton's tests patch kernels so
        k[(1,)](x, 8, BLOCK=8)
        np.testing.assert_array_equal(x, 6)
        self.assertIn("* 3", k.src)
        plain = nereid.JITFunction(k.fn)  # a JITFunction made from the function, as Triton's tests do
        self.assertIn("* 2", plain.src)
        self.assertEqual([(p.num, p.name, p.is_constexpr) for p in k.params],
                         [(0, "x_ptr", False), (1, "n", False), (2, "BLOCK", True)])

    def test_launch_returns_the_compiled_kernel(self):
        k = self.kernel()
        x = np.ones(8, dtype=np.float32)
        h = k[(1,)](x, 8, BLOCK=8)
        self.assertEqual(h.name, "scale")
        self.assertIn("func kernel @scale", h.asm["ir"])
        self.assertEqual(list(h.asm), ["ir"])  # the CPU device has no GPU code
        with self.assertRaises(KeyError):
            h.asm["ttgir"]  # Triton's stages are Triton's: missing, not faked
        self.assertEqual((h.metadata.num_warps, h.metadata.num_stages, h.metadata.num_ctas), (4, 3, 1))
        self.assertEqual((h.n_regs, h.n_spills), (0, 0))
        h._init_handles()
        self.assertIs(k[(1,)](x, 8, BLOCK=8), h)  # the same compiled kernel, as Triton's cache gives
        w = k.warmup(x, 8, BLOCK=16, grid=(1,))  # compiles, does not run
        np.testing.assert_array_equal(x, 4)
        self.assertEqual(w.metadata.name, "scale")

    def test_num_warps_read_in_the_kernel_is_the_launchs(self):
        # tl.extra.cuda.num_warps() is the count the launch gives (Triton's num_warps is a
        # compile option): triton_kernels' matmul static_asserts it
        @nereid.jit(device=CPU)
        def warps_of(x_ptr, N: tl.constexpr, WANT: tl.constexpr):
            n_warps: tl.constexpr = tl.extra.cuda.num_warps()
            tl.static_assert(n_warps == WANT)
            o = tl.arange(0, N)
            tl.store(x_ptr + o, o * 0 + n_warps)

        x = np.zeros(8, np.int32)
        warps_of[(1,)](x, N=8, WANT=8, num_warps=8)
        np.testing.assert_array_equal(x, 8)
        warps_of[(1,)](x, N=16 // 2, WANT=2, num_warps=2)
        np.testing.assert_array_equal(x, 2)

    def test_triton_launch_options(self):
        k = self.kernel()
        x = np.ones(8, dtype=np.float32)
        k[(1,)](x, 8, BLOCK=8, num_ctas=1, maxnreg=None, enable_fp_fusion=False, launch_pdl=True, debug=False,
                launch_cooperative_grid=False, arch=None)
        np.testing.assert_array_equal(x, 2)
        k[(1,)](x, 8, BLOCK=8, num_ctas=2, launch_cooperative_grid=True, arch="sm90")  # one CTA per program
        np.testing.assert_array_equal(x, 4)
        with self.assertRaisesRegex(ValueError, "num_ctas must be from 1 to 16, got 0"):
            k[(1,)](x, 8, BLOCK=8, num_ctas=0)
        k[(1,)](x, 8, BLOCK=8, maxnreg=128, enable_fp_fusion=True, enable_reflect_ftz=True)  # honoured
        np.testing.assert_array_equal(x, 8)
        with self.assertRaisesRegex(ValueError, "maxnreg must be None or an int from 16 to 255, got 8"):
            k[(1,)](x, 8, BLOCK=8, maxnreg=8)
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'num_ctaz'"):
            k[(1,)](x, 8, BLOCK=8, num_ctaz=1)
        k.run(x, 8, BLOCK=8, grid=(1,), warmup=False, num_ctas=1)
        np.testing.assert_array_equal(x, 16)

    def test_python_annotations_and_foreign_constexprs(self):
        x = np.arange(8, dtype=np.float32)
        _clip_to_limit[(1,)](x, 8, BLOCK=8)  # n: int, and a constexpr of another class
        np.testing.assert_array_equal(x, np.minimum(np.arange(8), 5))

    def test_grid_meta_has_the_compile_constexprs(self):
        mod = nereid.compile(tk.ADD_NR if hasattr(tk, "ADD_NR") else VECTOR_ADD_NR, device=CPU, BLOCK_SIZE=64)
        seen = {}

        def grid(meta):
            seen.update(meta)
            return (nereid.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)
        x, y = np.ones(100, dtype=np.float32), np.full(100, 2, dtype=np.float32)
        out = np.zeros(100, dtype=np.float32)
        mod.add_kernel[grid](x, y, out, 100)
        self.assertEqual(seen["BLOCK_SIZE"], 64)
        np.testing.assert_array_equal(out, 3)


@nereid.jit
def _plus_one(x):
    return x + 1


@nereid.jit
def _halve(x):
    return _plus_one(x) * 0.5 - 0.5  # calls a helper of its own


@nereid.jit(device=CPU)
def _apply(x_ptr, y_ptr, n, fn: tl.constexpr, FNS: tl.constexpr, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = fn(tl.load(x_ptr + offs, mask=offs < n))
    for i in tl.static_range(len(FNS)):
        v = FNS[i](v)
    tl.store(y_ptr + offs, v.to(DT).to(tl.float32), mask=offs < n)


@nereid.jit(device=CPU)
def _apply_bare(x_ptr, y_ptr, n, fn, SCALE, DT, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = fn(tl.load(x_ptr + offs, mask=offs < n)) * SCALE
    tl.store(y_ptr + offs, v.to(DT).to(tl.float32), mask=offs < n)


@nereid.jit(noinline=True)
def _noinline_sum(x, y, Z):
    tl.store(Z, x + y)


class PatchedHelpers(unittest.TestCase):
    """A kernel whose text is replaced (Triton's tests patch kernels with
    _unsafe_update_src) calls the module's helpers its new text names, though the
    function's own code does not; a name defined nowhere is a located compile error."""

    def kernel(self):
        @nereid.jit(device=CPU)
        def kernel(X, Y, Z):
            GENERATE_TEST_HERE(tl.load(X), tl.load(Y), Z)  # noqa: F821
        return kernel

    def test_patched_call(self):
        k = self.kernel()
        k._unsafe_update_src(k.src.replace("GENERATE_TEST_HERE", "_noinline_sum"))
        x, y, z = np.array([1.0], np.float32), np.array([2.0], np.float32), np.zeros(1, np.float32)
        k[(1,)](x, y, z, num_warps=1)
        np.testing.assert_array_equal(z, [3.0])

    def test_undefined_name(self):
        k = self.kernel()
        k._unsafe_update_src(k.src.replace("GENERATE_TEST_HERE", "no_such_helper"))
        with self.assertRaisesRegex(nereid.CompileError, r"test_python.py:\d+:\d+: error: use of undefined name "
                                    "'no_such_helper'"):
            k[(1,)](np.zeros(1, np.float32), np.zeros(1, np.float32), np.zeros(1, np.float32))


class FunctionsAsConstexprs(unittest.TestCase):
    """Triton passes @jit functions as constexpr arguments (`fn: tl.constexpr` called in the
    kernel), alone or in tuples, and the language's own (tl.sigmoid)."""

    def test_functions(self):
        x = np.arange(8, dtype=np.float32)
        y = np.zeros(8, dtype=np.float32)
        _apply[(1,)](x, y, 8, _plus_one, (), tl.float32, BLOCK=8)
        np.testing.assert_array_equal(y, x + 1)
        _apply[(1,)](x, y, 8, _halve, (_plus_one, _plus_one), tl.float32, BLOCK=8)
        np.testing.assert_array_equal(y, x * 0.5 + 2)
        _apply[(1,)](x, y, 8, _plus_one, (tl.sigmoid,), tl.float16, BLOCK=8)
        want = (1 / (1 + np.exp(-(x + 1)))).astype(np.float16).astype(np.float32)
        np.testing.assert_allclose(y, want, atol=1e-3)
        self.assertEqual(len(_apply._cache), 3)  # one compile per function (tuple)

    def test_bare_parameters(self):
        # Triton's launcher makes a @jit function, a tl.constexpr(...) object or a dtype a
        # constexpr whatever the parameter's annotation: bare parameters take them too
        x = np.arange(8, dtype=np.float32)
        y = np.zeros(8, dtype=np.float32)
        _apply_bare[(1,)](x, y, 8, _plus_one, tl.constexpr(3), tl.float32, BLOCK=8)
        np.testing.assert_array_equal(y, (x + 1) * 3)
        _apply_bare[(1,)](x, y, 8, _halve, tl.constexpr(2), tl.float16, BLOCK=8)
        np.testing.assert_array_equal(y, x)
        _apply_bare[(1,)](x, y, 8, fn=tl.sigmoid, SCALE=tl.constexpr(1.0), DT=tl.float32, BLOCK=8)
        np.testing.assert_allclose(y, 1 / (1 + np.exp(-x)), rtol=1e-6)
        self.assertEqual(len(_apply_bare._cache), 3)
        _apply_bare[(1,)](x, y, 8, _plus_one, tl.constexpr(3), tl.float32, BLOCK=8)  # equal values: no compile
        _apply_bare[(1,)](x, y, 8, _plus_one, tl.constexpr(3), tl.float32, BLOCK=8)
        np.testing.assert_array_equal(y, (x + 1) * 3)
        self.assertEqual(len(_apply_bare._cache), 3)
        _apply_bare[(1,)](x, y, 8, _plus_one, 2, tl.float32, BLOCK=8)  # a plain int stays a run-time i32
        np.testing.assert_array_equal(y, (x + 1) * 2)
        self.assertEqual(len(_apply_bare._cache), 4)
        _apply_bare[(1,)](x, y, 8, _halve, 2, tl.float32, BLOCK=8)  # the last launch's key, another function
        np.testing.assert_array_equal(y, x)

    def test_not_a_function(self):
        with self.assertRaisesRegex(TypeError, "constexpr 'fn': a object cannot be a compile-time value"):
            _apply[(1,)](np.zeros(8, np.float32), np.zeros(8, np.float32), 8, object(), (), tl.float32, BLOCK=8)


@nereid.jit(device=CPU)
def _pdl_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, USE_GDC: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if USE_GDC:
        tl.extra.cuda.gdc_wait()
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    if USE_GDC:
        tl.extra.cuda.gdc_launch_dependents()
    tl.store(out_ptr + offs, x + y, mask=mask)


class GridDependencyControl(unittest.TestCase):
    """Triton 3.6's tutorial 11: tl.extra.cuda.gdc_wait()/gdc_launch_dependents() under
    `if USE_GDC:`, launched with launch_pdl. Both are griddepcontrol PTX (inline assembly, as
    in Triton): the interpreter runs the kernel without them and refuses it with them."""

    def test_gdc(self):
        from nereid.language import cuda
        self.assertEqual(cuda.gdc_wait.__name__, "cuda.gdc_wait")  # importable, as Triton's
        x, y = np.arange(100, dtype=np.float32), np.ones(100, dtype=np.float32)
        out = np.zeros(100, dtype=np.float32)
        _pdl_add[(4,)](x, y, out, 100, BLOCK=32, USE_GDC=False, launch_pdl=True)
        np.testing.assert_array_equal(out, x + 1)
        with self.assertRaisesRegex(nereid.Error, r"test_python.py:\d+:\d+\): tl.inline_asm_elementwise runs GPU "
                                    "assembly, which the CPU interpreter cannot run"):
            _pdl_add[(4,)](x, y, out, 100, BLOCK=32, USE_GDC=True, launch_pdl=True)


class SameNamesInModules(unittest.TestCase):
    """Helpers and constants of the same name in different modules (triton_kernels has two
    `clip`s with different parameters): each function calls and reads its own module's, as
    in Python, though the compiled text is one module."""

    MOD_A = """
import nereid
import nereid.language as tl

K = 2
LIMIT = tl.constexpr(100.0)


@nereid.jit
def scale(x):
    return x * K


@nereid.jit
def a_apply(x):
    return tl.minimum(scale(x), LIMIT)
"""
    MOD_B = """
import nereid
import nereid.language as tl

K = 3
LIMIT = 1000.0


@nereid.jit
def scale(x, extra: tl.constexpr = 0):
    return x * K + extra


@nereid.jit
def b_apply(x):
    return tl.minimum(scale(x, extra=1), LIMIT)
"""
    MOD_MAIN = """
import nereid
import nereid.language as tl
from same_a import a_apply, scale
from same_b import b_apply
import same_b

K = 5


@nereid.jit(device="cpu")
def k(out, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = offs.to(tl.float32)
    tl.store(out + offs, a_apply(x) * 100 + b_apply(x) + scale(x) * 10000 + same_b.scale(x) * 1e6 + K * 1e8)
"""

    def test_each_function_its_own_modules_names(self):
        import importlib
        import shutil
        d = tempfile.mkdtemp(prefix="nereid-same-")
        try:
            for name, text in (("same_a", self.MOD_A), ("same_b", self.MOD_B), ("same_main", self.MOD_MAIN)):
                with open(os.path.join(d, name + ".py"), "w") as f:
                    f.write(text)
            sys.path.insert(0, d)
            try:
                main = importlib.import_module("same_main")
            finally:
                sys.path.remove(d)
            out = np.zeros(8, np.float32)
            main.k[(1,)](out, N=8)
            x = np.arange(8, dtype=np.float64)
            want = np.minimum(2 * x, 100) * 100 + np.minimum(3 * x + 1, 1000) + 2 * x * 10000 + 3 * x * 1e6 + 5e8
            np.testing.assert_allclose(out, want.astype(np.float32), rtol=1e-6)
        finally:
            for name in ("same_a", "same_b", "same_main"):
                sys.modules.pop(name, None)
            shutil.rmtree(d, ignore_errors=True)


_SHADOWED = 4


@nereid.jit(device=CPU)
def _reads_then_assigns_a_global(x_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    _SHADOWED = _SHADOWED * 2  # noqa: F823 (Triton reads the global until the assignment)
    tl.store(x_ptr + o, o * _SHADOWED)


class GlobalAssignedInKernel(unittest.TestCase):
    def test_global_read_before_a_local_of_its_name(self):
        x = np.zeros(8, np.int32)
        _reads_then_assigns_a_global[(1,)](x, N=8)
        np.testing.assert_array_equal(x, np.arange(8) * 8)


class WarmKernel(unittest.TestCase):
    """What JITFunction.warmup and a launch return is subscriptable as Triton's compiled
    kernel: `kernel = fn.warmup(..., grid=(1,)); kernel[grid](*args)` (Triton's softmax
    tutorial), with every argument (constexprs ignored) or the run-time ones only."""

    def test_warmup_then_launch(self):
        x = np.arange(8, dtype=np.float32)
        y = np.zeros(8, dtype=np.float32)
        kernel = _apply.warmup(x, y, 8, _plus_one, (), tl.float32, BLOCK=8, grid=(1,))
        np.testing.assert_array_equal(y, 0)  # compiled, not run
        kernel[(1, 1, 1)](x, y, 8, _plus_one, (), tl.float32, 8)
        np.testing.assert_array_equal(y, x + 1)
        y[:] = 0
        kernel[(1,)](x, y, 4)  # the run-time arguments alone
        np.testing.assert_array_equal(y, np.where(np.arange(8) < 4, x + 1, 0))
        y[:] = 0
        kernel[(1,)](x_ptr=x, y_ptr=y, n=8)
        np.testing.assert_array_equal(y, x + 1)
        h = _apply[(1,)](x, y, 8, _halve, (), tl.float32, BLOCK=8)
        y[:] = 0
        h[(1,)](x, y, 8)
        np.testing.assert_array_equal(y, x * 0.5)
        with self.assertRaisesRegex(TypeError, "argument 'y_ptr'"):
            kernel[(1,)](x, 3, 8)


    def test_tuple_parameter(self):
        """A tuple parameter is its elements in the compiled kernel (run-time parameters
        `pair.0`, `pair.1.0`, ...): its launcher takes the tuple, as the @jit function does,
        or the elements where it takes the run-time arguments alone; a constexpr element is
        the compiled value, and a tuple of the wrong shape is an error naming the parameter."""

        @nereid.jit(device=CPU)
        def lin(x_ptr, pair, N: tl.constexpr):
            offs = tl.arange(0, N)
            a, (b, c) = pair
            tl.store(x_ptr + offs, offs * a + b * c)

        x = np.zeros(8, dtype=np.int32)
        k = lin.warmup(x, (2, (3, 4)), N=8, grid=(1,))
        np.testing.assert_array_equal(x, 0)  # compiled, not run
        self.assertEqual([n for n, _ in k.params()], ["x_ptr", "pair.0", "pair.1.0", "pair.1.1"])
        k[(1,)](x, (5, (1, 2)))  # the non-constexpr parameters
        np.testing.assert_array_equal(x, np.arange(8) * 5 + 2)
        k[(1,)](x, (1, (0, 7)), 8)  # every parameter
        np.testing.assert_array_equal(x, np.arange(8) + 0)
        k[(1,)](x, [3, [2, 2]], N=8)  # a list as a tuple, by name
        np.testing.assert_array_equal(x, np.arange(8) * 3 + 4)
        k[(1,)](x, 2, 1, 1)  # the compiled kernel's run-time parameters
        np.testing.assert_array_equal(x, np.arange(8) * 2 + 1)
        with self.assertRaisesRegex(TypeError, "parameter 'pair' is a tuple"):
            k[(1,)](x, 5)
        with self.assertRaisesRegex(TypeError, "parameter 'pair.1' has 1 elements"):
            k[(1,)](x, (1, (2,)))
        with self.assertRaisesRegex(TypeError, "multiple values for argument 'pair'"):
            k[(1,)](x, (1, (2, 3)), pair=(1, (2, 3)))
        # an element given as a constexpr at the compile stays the compiled value
        k1 = lin.warmup(x, (1, (3, 4)), N=8, grid=(1,))
        k1[(1,)](x, (1, (1, 1)))
        np.testing.assert_array_equal(x, np.arange(8) + 1)


class LaunchFuzz(unittest.TestCase):
    """Arguments of every wrong kind, drawn at random, at every position of a launch: each
    launch either runs or raises a Python exception naming the parameter (never a crash, a
    hang or a silently wrong launch)."""

    VALUES = [None, "x", b"y", 1.5, float("nan"), 2 ** 70, -(2 ** 63) - 1, 2 ** 31, -1, 0, True, [1, 2], (3,), {},
              object(), np.zeros(3, dtype=np.float64), np.zeros((2, 2), dtype=np.int8), np.zeros(0, dtype=np.float32),
              np.float32(2.0), np.int64(7), np.zeros(4, dtype=np.float32)[::2], np.zeros(4, dtype=np.complex64)]

    def test_random_arguments(self):
        import random

        @nereid.jit(device=CPU)
        def k(x_ptr, y: tl.int32, z: tl.float32, w, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            m = offs < n
            tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m) + y + z, mask=m)

        names = ["x_ptr", "y", "z", "w", "n"]
        good = [np.zeros(8, dtype=np.float32), 1, 2.0, 3, 8]
        rng = random.Random(1234)
        raised = ran = 0
        for trial in range(300):
            args = list(good)
            bad = rng.sample(range(len(args)), rng.randint(1, 2))
            for i in bad:
                args[i] = rng.choice(self.VALUES)
            block = rng.choice([8, 16, 0, 3, "8", None])
            try:
                k[(1,)](*args, BLOCK=block)
                ran += 1
            except (TypeError, ValueError, OverflowError, nereid.Error) as e:
                raised += 1
                text = str(e)
                self.assertTrue(any(n in text for n in names + ["BLOCK"]) or isinstance(e, nereid.CompileError),
                                f"trial {trial}: {args}, BLOCK={block}: the message names no parameter: {text}")
        self.assertGreater(raised, 100)
        self.assertGreater(ran, 0)

    def test_random_tuples_and_options(self):
        """Tuples of the wrong arity, nesting or leaves, and Triton's launch options with
        wrong values: each launch runs or raises naming the parameter or the option."""
        import random

        @nereid.jit(device=CPU)
        def kt(ptrs, vals, n):
            p0, p1 = ptrs
            v0, v1 = vals
            tl.store(p0, tl.load(p1) + v0 + v1 + n)

        x = np.zeros(4, dtype=np.float32)
        leaves = self.VALUES + [x, (x,), ((x, x),), (), (1, 2, 3)]
        rng = random.Random(4321)
        raised = ran = 0
        for trial in range(300):
            ptrs, vals = (x, x), (1, 2.5)
            if rng.random() < 0.5:  # a tuple of another arity, or a wrong leaf
                ptrs = tuple(rng.choice([x, x] + leaves) for _ in range(rng.choice([2, 1, 3])))
            if rng.random() < 0.5:
                vals = tuple(rng.choice([1, 2.5, True] + leaves) for _ in range(rng.choice([2, 0, 3])))
            if rng.random() < 0.1:
                vals = rng.choice(leaves)
            opts = {}
            for name, choices in (("num_ctas", [1, 2, 4, 0, -1, 17, 1.5, "2", None]),
                                  ("launch_cooperative_grid", [True, False, 0, 1, None]),
                                  ("num_warps", [1, 2, 4, 3, 0, 64, "4"])):
                if rng.random() < 0.3:
                    opts[name] = rng.choice(choices)
            try:
                kt[(rng.choice([1, 2]),)](ptrs, vals, rng.choice([1, 1, 2 ** 40, -1, 2 ** 70, None]), **opts)
                ran += 1
            except (TypeError, ValueError, OverflowError, nereid.Error) as e:
                raised += 1
                text = str(e)
                self.assertTrue(isinstance(e, nereid.CompileError) or
                                any(n in text for n in ["ptrs", "vals", "'n'", "num_ctas", "num_warps"]),
                                f"trial {trial}: {ptrs}, {vals}, {opts}: the message names nothing: {text}")
        self.assertGreater(raised, 100)
        self.assertGreater(ran, 20)


@nereid.jit
def _tuple_store_all(Ptrs, values):
    for i in tl.static_range(len(values)):
        tl.store(Ptrs[i], values[i])


@nereid.jit(device=CPU)
def _tuple_index(_0, Ptrs, _1: tl.constexpr, values, _2, _3: tl.constexpr, _4):
    _tuple_store_all(Ptrs, tl.tuple(values))


@nereid.jit(device=CPU)
def _tuple_unpack(XPtrs, YPtrs, values):
    X0, X1 = XPtrs
    x0, x1, _ = values
    tl.static_assert(_ is None)
    tl.store(X0, x0)
    tl.store(X1, x1)
    Y0, Y1, Y2 = YPtrs
    Y = Y0, Y1, Y2
    y = x0, 10, x1
    for i in tl.static_range(3):
        tl.store(Y[i], y[i])


@nereid.jit
def _tuple_nested_helper(Ptr, cst2: tl.constexpr, tuple1):
    tl.static_assert(tuple1[1] is None)
    tl.store(Ptr + 5, cst2)
    tl.store(Ptr + 6, tuple1[0])
    tl.store(Ptr + 7, tl.load(tuple1[2][0]))
    tl.store(Ptr + 8, tuple1[2][1][0])
    tl.store(Ptr + 9, tl.load(tuple1[2][1][2]))


@nereid.jit(device=CPU)
def _tuple_nested(Ptr, N1, tuple1, cst1: tl.constexpr, val1, tuple2):
    tl.static_assert(N1 is None)
    tl.static_assert(tuple1[1][1] is None)
    tl.static_assert(tuple1[1][3] == 4)
    tl.store(Ptr + 0, tl.load(tuple1[0]))
    tl.store(Ptr + 1, tuple1[1][0])
    tl.store(Ptr + 2, tl.load(tuple1[1][2]))
    tl.store(Ptr + 3, cst1 + val1)
    tl.store(Ptr + 4, tl.load(tuple2[0]))
    _tuple_nested_helper(Ptr, 15, (-1, None, tuple1))


@nereid.jit(device=CPU)
def _tuple_strides(X, shape: tl.constexpr, strides, m_n):
    Xs = X + tl.arange(0, shape[0])[:, None] * strides[0] + tl.arange(0, shape[1])[None, :] * strides[1]
    data = tl.load(Xs)
    for i in tl.range(0, m_n[1]):
        data = m_n[0] * data
    tl.store(Xs, data)


@nereid.jit(device=CPU)
def _tuple_constexpr_only(x, out):
    for _ in range(1):  # a new scope: the tuple is copied into it
        tl.static_assert(x[1][0] == 2)
    tl.store(out, x[0][0] + x[1][0])


@nereid.jit(device=CPU)
def _tuple_language(ret_ptrs):
    tl.store(ret_ptrs + 0, (1, 2) == (1, 2))
    tl.store(ret_ptrs + 1, tl.tuple((1, 2)) == (1, 3))
    t = tl.tuple((4, 5)) + (6, 7)
    for i in tl.static_range(4):
        tl.store(ret_ptrs + 2 + i, t[i])
    tl.store(ret_ptrs + 6, len(tuple()))


@nereid.jit(device=CPU)
def _tuple_assign_item():
    t = tl.tuple([5, 6, 7])
    t[0] = 0


class TritonErrorsAndOptions(unittest.TestCase):
    """Errors raised where Triton raises, of the types its tests expect; num_ctas and
    launch_cooperative_grid on the CPU device."""

    def test_num_warps_power_of_2(self):
        @nereid.jit(device=CPU)
        def k(dst):
            pass

        dst = np.zeros(4, dtype=np.float32)
        with self.assertRaisesRegex(AssertionError, "must be a power of 2") as cm:
            k.warmup(dst=dst, grid=(1,), num_warps=3)
        self.assertIsInstance(cm.exception, ValueError)
        self.assertIsInstance(cm.exception, nereid.OptionError)
        for w in (1, 2, 4):
            k.warmup(dst=dst, grid=(1,), num_warps=w)

    def test_compile_error_cause(self):
        @nereid.jit(device=CPU)
        def k(dst):
            pid = tl.program_id(20)  # noqa: F841

        with self.assertRaises(nereid.CompileError) as cm:
            k[(1,)](np.zeros(4, dtype=np.float32))
        self.assertIn("program_id axis must be 0, 1, or 2 but got 20", str(cm.exception.__cause__))

    def test_descriptor_block_of_fewer_than_16_bytes(self):
        @nereid.jit(device=CPU)
        def load(ptr):
            desc = tl.make_tensor_descriptor(ptr, [128, 128], [128, 1], [1, 2])
            desc.load([0, 0])

        @nereid.jit(device=CPU)
        def store(ptr):
            desc = tl.make_tensor_descriptor(ptr, [128, 128], [128, 1], [8, 4])
            desc.store([0, 0], tl.zeros([8, 4], dtype=tl.int16))

        for k, dt in ((load, np.int32), (store, np.int16)):
            with self.assertRaises(nereid.CompileError) as cm:
                k[(1,)](np.zeros((128, 128), dtype=dt))
            self.assertIn("Descriptor block shape must have at least 16 bytes", str(cm.exception.__cause__))

    def test_repr_names_the_compiled_kernel(self):
        def name(spec):
            cst = "_".join(k for k, v in spec.constants.items() if v == 1)
            return f"kernel_{spec.signature['value1']}_{cst}"

        @nereid.jit(device=CPU, repr=name)
        def k(value1, is_one, X):
            pass

        x = np.zeros(1, dtype=np.float32)
        for value, ty in ((-1, "i32"), (2 ** 31, "i64"), (2 ** 63, "u64")):
            self.assertEqual(k.warmup(value, 1, x, grid=(1,)).name, f"kernel_{ty}_is_one")

    def test_num_ctas_and_cooperative_launches(self):
        @nereid.jit(device=CPU)
        def k(ptrs, BLOCK_SIZE: tl.constexpr):
            mask = tl.program_id(0) * BLOCK_SIZE < 512
            tl.store(ptrs + tl.program_id(0), tl.num_programs(0) + tl.load(ptrs, mask=mask))

        data = np.zeros(4, dtype=np.float32)
        for num_ctas in (1, 2, 4):
            for coop in (True, False):
                data[:] = 0
                ran = k[(2,)](data, BLOCK_SIZE=128, num_ctas=num_ctas, launch_cooperative_grid=coop)
                self.assertEqual(ran.metadata.num_ctas, num_ctas)
                self.assertEqual(data.tolist(), [2, 4, 0, 0])
        with self.assertRaisesRegex(ValueError, r"num_ctas > 1 requires NVIDIA SM90\+ \(Hopper\)"):
            k.warmup(data, BLOCK_SIZE=128, grid=(1,), num_ctas=2, arch="sm80")
        with self.assertRaisesRegex(ValueError, "num_ctas > 1 not supported"):
            k.warmup(data, BLOCK_SIZE=128, grid=(1,), num_ctas=2, arch="gfx942")
        k.warmup(data, BLOCK_SIZE=128, grid=(1,), num_ctas=2, arch="sm90")

    def test_a_grid_barrier_fails_instead_of_hanging(self):
        @nereid.jit(device=CPU)
        def barrier(count, out, N: tl.constexpr):
            tl.atomic_add(count, 1)
            while tl.atomic_add(count, 0) < N:
                pass
            tl.store(out + tl.program_id(0), 1)

        count, out = np.zeros(1, dtype=np.int32), np.zeros(2, dtype=np.int32)
        barrier[(1,)](count, out, N=1, launch_cooperative_grid=True)  # one program: nothing to wait for
        self.assertEqual(out.tolist(), [1, 0])
        count[:] = 0
        with self.assertRaisesRegex(nereid.LaunchError, "cooperative launch.*program \\(0, 0, 0\\).*grid barrier"):
            barrier[(2,)](count, out, N=2, launch_cooperative_grid=True)


class TupleArguments(unittest.TestCase):
    """Tuples (nested, named, torch.Size-like) given bare parameters, as Triton's launcher
    flattens them: the leaves are the kernel's run-time arguments, typed as bare
    parameters' are; None and tl.constexpr(...) leaves are constexprs in place; in the
    kernel the parameter is a tuple (indexed, unpacked, len(), static loops, helpers)."""

    def test_index_and_len(self):
        for size in range(5):
            vals = tuple(range(1, size + 1))
            rets = tuple(np.zeros(1, dtype=np.float32) for _ in vals)
            _tuple_index[(1,)](0, rets, 0, vals, 0, 0, 0)
            self.assertEqual(vals, tuple(int(x[0]) for x in rets))

    def test_unpack_and_assign(self):
        x = tuple(np.zeros(1, dtype=np.float32) for _ in range(2))
        y = tuple(np.zeros(1, dtype=np.float32) for _ in range(3))
        _tuple_unpack[(1,)](x, y, (2.0, 3.0, None))
        self.assertEqual([float(a[0]) for a in x + y], [2, 3, 2, 10, 3])

    def test_nested_with_constexpr_leaves(self):
        x0, x1, y0 = (np.array([v], dtype=np.int32) for v in (8, 12, 10))
        z = np.zeros(10, dtype=np.int32)
        _tuple_nested[(1,)](z, None, (x0, (1, None, x1, tl.constexpr(4))), 20, 1, (y0,))
        self.assertEqual(z.tolist(), [8, 1, 12, 21, 10, 15, -1, 8, 1, 12])
        with self.assertRaisesRegex(nereid.CompileError, "static_assert"):  # the leaf's value is in the key
            _tuple_nested[(1,)](z, None, (x0, (1, None, x1, tl.constexpr(5))), 20, 1, (y0,))

    def test_shape_and_strides(self):
        x = np.arange(64, dtype=np.int64).reshape(8, 8)
        expected = 8 * x
        _tuple_strides[(1,)](x, x.shape, tuple(s // x.itemsize for s in x.strides), (2, 3))
        np.testing.assert_array_equal(x, expected)

    def test_all_constexpr_tuple(self):
        out = np.zeros(1, dtype=np.int32)
        _tuple_constexpr_only[(1,)](((1,), (tl.constexpr(2),)), out)
        self.assertEqual(out[0], 3)

    def test_namedtuple_and_subclasses(self):
        import collections
        Pair = collections.namedtuple("Pair", "ptr n")
        out = np.zeros(1, dtype=np.int32)
        _tuple_constexpr_only[(1,)](Pair((5,), (tl.constexpr(2),)), out)
        self.assertEqual(out[0], 7)

    def test_variants_and_errors(self):
        x = tuple(np.zeros(1, dtype=np.float32) for _ in range(2))
        y = tuple(np.zeros(1, dtype=np.float32) for _ in range(3))
        before = len(_tuple_unpack._cache)
        _tuple_unpack[(1,)](x, y, (2, 3, None))  # int leaves: another variant
        _tuple_unpack[(1,)](x, y, (2, 3, None))
        self.assertEqual(len(_tuple_unpack._cache), before + 1)
        with self.assertRaises(nereid.CompileError):  # two pointers where three are unpacked
            _tuple_unpack[(1,)](x, x, (2.0, 3.0, None))
        with self.assertRaisesRegex(TypeError, "'XPtrs'"):
            _tuple_unpack[(1,)]((x[0], "no"), y, (2.0, 3.0, None))
        with self.assertRaisesRegex(OverflowError, "'values'"):
            _tuple_unpack[(1,)](x, y, (2 ** 70, 3.0, None))
        deep = (1,)
        for _ in range(40):
            deep = (deep,)
        with self.assertRaisesRegex(ValueError, "'values'"):
            _tuple_unpack[(1,)](x, y, deep)
        with self.assertRaisesRegex(ValueError, "'values'"):
            _tuple_unpack[(1,)](x, y, tuple(range(300)))

    def test_tuples_in_the_language(self):
        rets = np.zeros(7, dtype=np.int32)
        _tuple_language[(1,)](rets)
        self.assertEqual(rets.tolist(), [1, 0, 4, 5, 6, 7, 0])
        with self.assertRaises(nereid.CompileError):
            _tuple_assign_item[(1,)]()

    def test_kernel_file_tuple_parameter(self):
        src = """
import triton.language as tl
@triton.jit
def k(a: "(*fp32, (i32, constexpr), constexpr)", out: *fp32):
    tl.static_assert(a[1][1] == 4)
    tl.static_assert(a[2] is None)
    tl.store(out, tl.load(a[0]) + a[1][0] + a[1][1] + len(a))
"""
        mod = nereid.compile(src, device=CPU, a=(None, (None, 4), None))
        self.assertEqual(mod.k.params(), [("a.0", "*fp32"), ("a.1.0", "i32"), ("out", "*fp32")])
        x, o = np.array([1.5], dtype=np.float32), np.zeros(1, dtype=np.float32)
        mod.k[(1,)](x, 10, o)
        self.assertEqual(o[0], 18.5)
        with self.assertRaisesRegex(nereid.CompileError, "item a.1.1 is a constexpr with no value"):
            nereid.compile(src, device=CPU)
        with self.assertRaisesRegex(nereid.CompileError, "malformed tuple type"):
            nereid.compile(src.replace("constexpr)\"", "constexpr\""), device=CPU, a=(None, (None, 4), None))



class CrossEntropyKernels(unittest.TestCase):
    """examples/cross_entropy.py's two kernels on the interpreter against NumPy in float64:
    rows longer and shorter than a block, float32 and float16 logits with a row stride
    above their length, an ignored row, a target outside the row (NaN, no read past it),
    a row of -inf but its next-to-last column (whole blocks of -inf first where the row
    is longer than a block), a row whose maximum is in its last block, NaN past each row's
    end, and the gradient with one factor for every row and a factor per row."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, EXAMPLES)
        try:
            import cross_entropy
        finally:
            sys.path.remove(EXAMPLES)
        cls.ce = cross_entropy
        cls.kernels = (cross_entropy._ce_forward, cross_entropy._ce_backward)
        cls.devices = [k.device for k in cls.kernels]
        for k in cls.kernels:
            k.device = CPU

    @classmethod
    def tearDownClass(cls):  # the module is shared: test_gpu runs the same kernels on CUDA tensors
        for k, d in zip(cls.kernels, cls.devices):
            k.device = d

    def run_case(self, dt, N, V, stride, per_row):
        rng = np.random.default_rng(V)
        buf = (rng.standard_normal((N, stride)) * 4).astype(dt)
        buf[:, V:] = np.nan  # a read past a row's end would show
        x = buf[:, :V]
        x[2, :] = -np.inf
        x[2, V - 2] = 1.0  # past the first block where the row is longer: blocks of -inf before it
        x[0, V - 1] = 30.0  # the maximum in the row's last block: the running sum is rescaled
        t = rng.integers(0, V, N).astype(np.int64)
        t[1], t[3] = -100, V  # ignored; out of the row
        ce = self.ce
        loss, lse = np.zeros(N, np.float32), np.zeros(N, np.float32)
        ce._ce_forward[(N,)](buf, stride, t, loss, lse, V, -100, BLOCK=ce._block(V))
        xf = x.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            mx = xf.max(1)
            want_lse = np.log(np.exp(xf - mx[:, None]).sum(1)) + mx
            tc = np.clip(t, 0, V - 1)
            want = np.where(t == -100, 0.0, want_lse - xf[np.arange(N), tc])
        want[3] = np.nan
        np.testing.assert_allclose(lse, want_lse, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(loss, want, rtol=1e-5, atol=1e-5)  # NaN where want is NaN
        g = (rng.random(N) + 0.5).astype(np.float32) if per_row else np.full(1, 0.25, np.float32)
        grad = np.full((N, V + 3), 7.0, dtype=dt)  # the three columns past V stay untouched
        ce._ce_backward[(N,)](buf, stride, grad, V + 3, t, lse, g, 1 if per_row else 0, V, -100,
                              BLOCK=ce._block(V))
        p = np.exp(xf - want_lse[:, None])
        p[np.arange(N), tc] -= 1.0
        gw = g.astype(np.float64) if per_row else np.full(N, 0.25)
        want_grad = p * gw[:, None]
        want_grad[1] = 0.0
        ok = np.arange(N) != 3  # the out-of-row target's gradient is not defined
        tol = 2e-5 if dt == np.float32 else 1e-3
        np.testing.assert_allclose(grad[ok, :V].astype(np.float64), want_grad[ok], rtol=tol, atol=tol)
        self.assertTrue((grad[:, V:] == 7.0).all())

    def test_rows(self):
        for dt, N, V, stride, per_row in ((np.float32, 6, 1000, 1008, False), (np.float16, 5, 300, 320, True),
                                          (np.float32, 4, 5000, 5000, True), (np.float32, 4, 7, 9, False)):
            with self.subTest(dtype=dt.__name__, V=V):
                self.run_case(dt, N, V, stride, per_row)

    def test_reduction_checked(self):
        with self.assertRaisesRegex(ValueError, "reduction must be"):
            self.ce.cross_entropy(None, None, reduction="avg")


VECTOR_ADD_NR = """
import triton
import triton.language as tl
@triton.jit
def add_kernel(x_ptr: *fp32, y_ptr: *fp32, output_ptr: *fp32, n_elements: i32, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(output_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
             mask=mask)
"""


BLOCK = tl.constexpr(16)
SCALE = 3.0

if __name__ == "__main__":
    unittest.main()
