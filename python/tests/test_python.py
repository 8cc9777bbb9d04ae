"""The Python package on the CPU device, with NumPy arrays: nereid.compile of files and
source strings, launches and their argument checking, errors, and @nereid.jit running
Triton's tutorial kernels (tutorial_kernels.py) against NumPy references.

    PYTHONPATH=build/python python3 python/tests/run.py
"""
import os
import sys
import unittest

import numpy as np

os.environ["NEREID_DEVICE"] = "cpu"  # the tutorial kernels take the default device: here, the CPU
import nereid  # noqa: E402
import nereid.language as tl  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tutorial_kernels as tk  # noqa: E402

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
    else:
        tl.store(o_ptr, 5)
"""
        for text, want in (("nan", 1), ("1", 2), ("None", 3), ("True", 4), ("x'y", 5), ('x"y', 5)):
            out = np.zeros(1, dtype=np.int32)
            nereid.compile(src, device=CPU, S=text).pick[(1,)](out)
            self.assertEqual(out[0], want, text)
        with self.assertRaises(TypeError):
            nereid.compile(src, device=CPU, S="a'b\"c")

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
        with self.assertRaisesRegex(ValueError, "num_warps must be a power of two"):
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
        with self.assertRaisesRegex(TypeError, "constexpr 'BLOCK'"):
            nereid.compile(SCALE_SRC, device=CPU, BLOCK=[64])

    def test_unknown_launch_keyword(self):
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'BLOK'"):
            self.mod.scale[(1,)](self.x, self.out, 1.0, 64, BLOK=3)


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
        env = dict(os.environ, NEREID_PRINT_AUTOTUNING="1", PYTHONPATH=os.pathsep.join(sys.path))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("nereid autotune: kernel tuned_sum, key (n=50): timing 3 of 3 configs", out.stdout)
        self.assertIn("chose BLOCK=", out.stdout)

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
        self.assertEqual(len(bump.cache), 1)
        n_files = len(os.listdir(self.cache))
        self.assertEqual(n_files, 1)
        calls.clear()
        bump[grid](x, out, 40)  # the same key: no timing
        self.assertEqual(len(calls), 1)
        bump.cache.clear()  # as a new process would: the choice comes from the disk
        calls.clear()
        bump[grid](x, out, 40)
        self.assertEqual(len(calls), 1)

    def test_autotune_errors(self):
        with self.assertRaisesRegex(TypeError, "autotune key names"):
            nereid.autotune(configs=[nereid.Config({})], key=["nope"])(tk.add_kernel)

        @nereid.autotune(configs=[nereid.Config({'BLOCK_SIZE': 16}), nereid.Config({'BLOCK_SIZE': 32})], key=[])
        @nereid.jit(device=CPU)
        def k(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
            pass
        with self.assertRaisesRegex(ValueError, "conflicting meta-parameters: BLOCK_SIZE"):
            k[(1,)](np.zeros(4, dtype=np.float32), 4, BLOCK_SIZE=16)


BLOCK = tl.constexpr(16)
SCALE = 3.0

if __name__ == "__main__":
    unittest.main()
