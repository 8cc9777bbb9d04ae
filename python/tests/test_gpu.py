"""The Python package on a GPU with torch tensors (skipped where there is no GPU or no
torch): nereid.compile and @nereid.jit kernels on CUDA tensors against torch's results,
launches on torch's current stream (a CUDA graph captures them), objects with
__cuda_array_interface__, argument errors (host tensors, wrong dtypes), autotuning
through the runtime (a kernel file) and through @nereid.autotune, and Triton's own
@triton.autotune driving a @nereid.jit kernel when Triton is installed; host tensor
descriptors (nereid.TensorDescriptor, and Triton's own where Triton is installed) over
torch tensors: desc_kernels.py's kernels against NumPy, on tiles TMA can move (sm_90: a
16-byte aligned base and strides) and on tiles it cannot. With two GPUs or more:
@nereid.jit kernels on each GPU's tensors (torch's current device left as it was, each
device's current stream, kernels per device, one compile for both; a kernel taking only
descriptors runs on their bases' device), a module for cuda:1, and a thread per GPU
launching at once.

    PYTHONPATH=build-gpu/python python3 python/tests/run.py test_gpu
"""
import os
import sys
import tempfile
import unittest

try:
    import torch
    HAVE_GPU = torch.cuda.is_available()
except ImportError:  # no torch: nothing here can run
    torch = None
    HAVE_GPU = False

os.environ.setdefault("NEREID_CACHE_DIR", tempfile.mkdtemp(prefix="nereid-gpu-test-cache-"))
import nereid  # noqa: E402
import nereid.language as tl  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desc_kernels as dk  # noqa: E402
import numpy as np  # noqa: E402
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")


@unittest.skipUnless(HAVE_GPU, "no CUDA GPU with torch")
class Gpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import tutorial_kernels
        cls.tk = tutorial_kernels
        for k in (tutorial_kernels.add_kernel, tutorial_kernels.softmax_kernel, tutorial_kernels._dropout,
                  tutorial_kernels._seeded_dropout, tutorial_kernels.matmul_kernel, tutorial_kernels._layer_norm_fwd_fused):
            k.device = "cuda"

    def test_compile_on_cuda_tensors(self):
        mod = nereid.compile(os.path.join(EXAMPLES, "vector_add.nr"), device="cuda", BLOCK_SIZE=1024)
        self.assertTrue(mod.device.startswith("cuda"))
        for n in (1, 1000, 1 << 20):
            x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
            out = torch.empty_like(x)
            mod.add_kernel[(nereid.cdiv(n, 1024),)](x, y, out, n)
            torch.testing.assert_close(out, x + y, rtol=0, atol=0)

    def test_compiled_kernel_tuple_parameter(self):
        """A compiled kernel taking a tuple, launched again through its launcher (the
        tuple, or its elements one by one) on torch tensors."""

        @nereid.jit(device="cuda")
        def lin(x_ptr, pair, N: tl.constexpr):
            offs = tl.arange(0, N)
            a, (b, c) = pair
            tl.store(x_ptr + offs, offs * a + b * c)

        x = torch.zeros(64, dtype=torch.int32, device="cuda")
        k = lin.warmup(x, (2, (3, 4)), N=64, grid=(1,))
        ref = torch.arange(64, dtype=torch.int32, device="cuda")
        k[(1,)](x, (5, (1, 2)))
        torch.testing.assert_close(x, ref * 5 + 2, rtol=0, atol=0)
        k[(1,)](x, 3, 2, 2)
        torch.testing.assert_close(x, ref * 3 + 4, rtol=0, atol=0)

    def test_current_stream_and_graph_capture(self):
        mod = nereid.compile(os.path.join(EXAMPLES, "vector_add.nr"), device="cuda", BLOCK_SIZE=256)
        n = 1 << 16
        x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
        out = torch.zeros_like(x)
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            mod.add_kernel[(n // 256,)](x, y, out, n)  # compiles and loads here, outside the capture
        s.synchronize()
        torch.testing.assert_close(out, x + y)
        out.zero_()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):  # only launches on the capturing (current) stream are legal here
            mod.add_kernel[(n // 256,)](x, y, out, n)
        x.copy_(torch.rand(n, device="cuda"))
        g.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out, x + y)

    def test_tutorial_kernels(self):
        tk = self.tk
        x, y = torch.rand(98432, device="cuda"), torch.rand(98432, device="cuda")
        out = torch.empty_like(x)
        n = out.numel()
        tk.add_kernel[lambda meta: (nereid.cdiv(n, meta['BLOCK_SIZE']),)](x, y, out, n, BLOCK_SIZE=1024)
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)

        a = torch.randn(1823, 781, device="cuda")
        b = torch.empty_like(a)
        tk.softmax_kernel[(64, 1, 1)](b, a, a.stride(0), b.stride(0), a.shape[0], a.shape[1], BLOCK_SIZE=1024,
                                      num_stages=2, num_warps=8)
        torch.testing.assert_close(b, torch.softmax(a, dim=1))
        # n_regs is what the SM allocates a thread (ptxas's count rounded up to 8), so the
        # tutorial's occupancy arithmetic (register file // (n_regs * 32 * num_warps))
        # promises no more resident programs than the registers hold
        h = tk.softmax_kernel.warmup(b, a, a.stride(0), b.stride(0), a.shape[0], a.shape[1], BLOCK_SIZE=1024,
                                     num_stages=2, num_warps=8, grid=(1,))
        exact = h._info()["registers"]
        self.assertTrue(0 < exact <= h.n_regs < exact + 8 and h.n_regs % 8 == 0, (exact, h.n_regs))

        p = 0.5
        xd = torch.randn(size=(1000,), device="cuda")
        keep = (torch.rand(size=(1000,), device="cuda") > p).to(torch.int32)
        od = torch.empty_like(xd)
        tk._dropout[(nereid.cdiv(1000, 256),)](xd, keep, od, 1000, p, BLOCK_SIZE=256)
        torch.testing.assert_close(od, torch.where(keep.bool(), xd / (1 - p), torch.zeros_like(xd)))

        a16 = torch.randn((512, 256), device="cuda", dtype=torch.float16)
        b16 = torch.randn((256, 384), device="cuda", dtype=torch.float16)
        c16 = torch.empty((512, 384), device="cuda", dtype=torch.float16)
        M, K = a16.shape
        N = b16.shape[1]
        tk.matmul_kernel[lambda META: (nereid.cdiv(M, META['BLOCK_SIZE_M']) * nereid.cdiv(N, META['BLOCK_SIZE_N']),)](
            a16, b16, c16, M, N, K, a16.stride(0), a16.stride(1), b16.stride(0), b16.stride(1), c16.stride(0),
            c16.stride(1), BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="")
        torch.testing.assert_close(c16, a16 @ b16, atol=1e-1, rtol=1e-2)


    def test_triton_code_generation_defaults(self):
        # Left unset, enable_fp_fusion and enable_reflect_ftz are Triton's defaults (on), the
        # former read from triton.knobs.language.default_fp_fusion when Triton is loaded
        import re
        import types

        def make():
            @nereid.jit
            def mul_add_exp2(data, BLOCK: tl.constexpr):
                p = data + tl.arange(0, BLOCK)
                x = tl.load(p)
                tl.store(p, tl.exp2(x * 1.5 + 1.0))
            return mul_add_exp2

        def found(h):
            text = h.asm["ptx"]
            return bool(re.search(r"fma\.rn\.(ftz\.)?f32", text)), "ex2.approx.ftz.f32" in text

        def ptx(**opts):
            k, h, got = make(), None, []
            for step in range(3):  # a first launch, a repeat (the fast path), kernel[grid]
                x = torch.randn(128, device="cuda")
                want = torch.exp2(x * 1.5 + 1.0)
                if step == 0:
                    h = k[(1,)](x, BLOCK=128, **opts)
                elif step == 1:
                    h = k[(1,)](x, BLOCK=128)
                else:
                    h = h[(1,)](x, BLOCK=128)
                torch.testing.assert_close(x, want)
                got.append(found(h))
            # a repeat without options takes Triton's defaults again; kernel[grid] runs what
            # the launch before it ran
            if not opts:
                self.assertEqual(got[0], got[1])
            self.assertEqual(got[1], got[2])
            return got[0]

        real = sys.modules.get("triton")
        knobs = getattr(getattr(real, "knobs", None), "language", None)
        saved = getattr(knobs, "default_fp_fusion", None)
        try:
            if real is not None and knobs is not None:
                knobs.default_fp_fusion = True
            self.assertEqual(ptx(), (True, True))
            self.assertEqual(ptx(enable_fp_fusion=False, enable_reflect_ftz=False), (False, False))
            if knobs is not None:
                knobs.default_fp_fusion = False
            else:  # no Triton loaded: a stand-in carrying the knob
                sys.modules["triton"] = types.SimpleNamespace(
                    knobs=types.SimpleNamespace(language=types.SimpleNamespace(default_fp_fusion=False)))
            self.assertEqual(ptx(), (False, True))
            self.assertEqual(ptx(enable_fp_fusion=True), (True, True))
        finally:
            if knobs is not None:
                knobs.default_fp_fusion = saved
            elif real is None:
                sys.modules.pop("triton", None)
            else:
                sys.modules["triton"] = real

    def test_cuda_array_interface(self):
        class Wrapped:  # what CuPy and Numba arrays expose
            def __init__(self, t):
                self.t = t
                self.__cuda_array_interface__ = t.__cuda_array_interface__

        mod = nereid.compile(os.path.join(EXAMPLES, "vector_add.nr"), device="cuda", BLOCK_SIZE=128)
        x, y = torch.rand(500, device="cuda"), torch.rand(500, device="cuda")
        out = torch.empty_like(x)
        mod.add_kernel[(4,)](Wrapped(x), Wrapped(y), Wrapped(out), 500)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, x + y)

    def test_argument_errors(self):
        mod = nereid.compile(os.path.join(EXAMPLES, "vector_add.nr"), device="cuda", BLOCK_SIZE=128)
        x = torch.rand(16, device="cuda")
        with self.assertRaisesRegex(ValueError, "argument 'x_ptr' must be on the GPU"):
            mod.add_kernel[(1,)](torch.rand(16), x, x, 16)
        with self.assertRaisesRegex(TypeError, r"argument 'y_ptr' is \*fp32, got an array of fp16"):
            mod.add_kernel[(1,)](x, x.half(), x, 16)
        import numpy as np
        with self.assertRaisesRegex(TypeError, "host array cannot be passed"):
            mod.add_kernel[(1,)](np.zeros(16, dtype=np.float32), x, x, 16)

    def test_autotune_kernel_file(self):
        src = ("import triton\nimport triton.language as tl\n"
               "@triton.autotune(configs=[triton.Config({'BLOCK': 256}, num_warps=2), triton.Config({'BLOCK': 1024}),\n"
               "                          triton.Config({'BLOCK': 4096}, num_warps=8)], key=['n'])\n"
               "@triton.jit\n"
               "def scale(x: *fp32, y: *fp32, n: i32, BLOCK: tl.constexpr):\n"
               "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
               "    tl.store(y + offs, tl.load(x + offs, mask=offs < n) * 3.0, mask=offs < n)\n")
        mod = nereid.compile(src, device="cuda")
        x = torch.rand(1 << 20, device="cuda")
        y = torch.empty_like(x)
        mod.scale[lambda m: (nereid.cdiv(m['n'], m['BLOCK']),)](x, y, x.numel())
        torch.testing.assert_close(y, 3 * x)

    def test_autotune_decorator(self):
        @nereid.autotune(configs=[nereid.Config({'BLOCK': 512}), nereid.Config({'BLOCK': 2048}, num_warps=8)],
                         key=['n'], reset_to_zero=['total'])
        @nereid.jit
        def total_sum(x, total, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.atomic_add(total, tl.sum(tl.load(x + offs, mask=offs < n, other=0.0), axis=0))
        x = torch.ones(1 << 20, device="cuda")
        total = torch.full((1,), 5.0, device="cuda")
        total_sum[lambda m: (nereid.cdiv(m['n'], m['BLOCK']),)](x, total, x.numel())
        torch.cuda.synchronize()
        self.assertEqual(total.item(), float(x.numel()))

    def test_triton_autotune_drives_nereid_jit(self):
        try:
            import triton
        except ImportError:
            self.skipTest("no Triton")

        @triton.autotune(configs=[triton.Config({'BLOCK_SIZE': 256}), triton.Config({'BLOCK_SIZE': 1024}, num_warps=8)],
                         key=['n_elements'])
        @nereid.jit
        def add(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
            offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
            m = offs < n_elements
            tl.store(output_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)
        x, y = torch.rand(100000, device="cuda"), torch.rand(100000, device="cuda")
        out = torch.empty_like(x)
        add[lambda meta: (triton.cdiv(100000, meta['BLOCK_SIZE']),)](x, y, out, 100000)
        torch.testing.assert_close(out, x + y)


@unittest.skipUnless(HAVE_GPU, "no CUDA GPU with torch")
class GpuFlattenedLoops(unittest.TestCase):
    """tl.range(..., flatten=True) loop nests (flatten_kernels.py) on the GPU against torch:
    a persistent matmul pipelined as one loop over (tile, k), its next tile's copies in
    flight during this tile's store, with and without the contiguity hints, at tiles and
    stage counts users pick; sizes off the tiles, K = 0 (the nest without its inner loop),
    more programs than tiles; and a nest with a negative outer step and inner loops that
    start where the outer iteration says."""

    @classmethod
    def setUpClass(cls):
        import flatten_kernels
        cls.fk = flatten_kernels
        for k in (flatten_kernels.persistent_matmul, flatten_kernels.shifted_sums):
            k.device = "cuda"

    def test_persistent_matmul(self):
        torch.manual_seed(0)
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        cases = ((1024, 1024, 512, 128, 128, 64, 8, 3, sms), (1000, 520, 200, 128, 128, 64, 8, 3, sms),
                 (512, 768, 256, 128, 256, 64, 8, 3, sms), (300, 200, 96, 64, 64, 32, 4, 4, 7),
                 (256, 256, 0, 128, 128, 64, 8, 3, sms), (64, 64, 64, 64, 64, 64, 4, 2, 40))
        for M, N, K, BM, BN, BK, warps, stages, progs in cases:
            a = torch.randn(M, K, device="cuda", dtype=torch.float16)
            b = torch.randn(K, N, device="cuda", dtype=torch.float16)
            want = (a.float() @ b.float()).half()
            for hints in (True, False):
                c = torch.full((M, N), -1.0, device="cuda", dtype=torch.float16)
                count = torch.zeros(progs, device="cuda", dtype=torch.int32)
                self.fk.persistent_matmul[(progs,)](
                    a, b, c, count, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                    c.stride(0), c.stride(1), progs, BM=BM, BN=BN, BK=BK, HINTS=hints, FLATTEN=True,
                    num_warps=warps, num_stages=stages)
                msg = f"M={M} N={N} K={K} tile {BM}x{BN}x{BK} hints={hints}"
                torch.testing.assert_close(c, want, rtol=1e-2, atol=1e-1, msg=msg)
                tiles = nereid.cdiv(M, BM) * nereid.cdiv(N, BN)
                want_count = [len(range(p, tiles, progs)) for p in range(progs)]
                self.assertEqual(count.tolist(), want_count, msg)

    def test_negative_step_and_shifted_starts(self):
        torch.manual_seed(1)
        rows, cols, block = 37, 512, 32
        x = torch.randn(rows, cols, device="cuda", dtype=torch.float32)
        out = torch.zeros(rows, block, device="cuda", dtype=torch.float32)
        self.fk.shifted_sums[(1,)](x, out, rows, cols, 1, BLOCK=block, FLATTEN=True)
        want = torch.stack([0.5 * r + sum(x[r, c * block:(c + 1) * block] for c in range(1, cols // block, 2))
                            for r in range(rows)])
        torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-5)


@nereid.jit
def fp8_dot_loop(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                 START: tl.constexpr, IMPRECISE: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.full((BM, BN), START, tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc, max_num_imprecise_acc=IMPRECISE)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@unittest.skipUnless(HAVE_GPU, "no CUDA GPU with torch")
class GpuFp8ImpreciseAcc(unittest.TestCase):
    """tl.dot(..., max_num_imprecise_acc=n) on fp8 operands: on sm_90a at most n products
    are summed in wgmma's accumulator (from zero) before an fp32 add, as Triton's partial
    accumulators; sums that the fp32 add keeps exact must come out exact."""

    def test_partial_sums_added_in_fp32(self):
        if not hasattr(torch, "float8_e4m3fn"):
            self.skipTest("torch without float8_e4m3fn")
        for BM, BN, BK, warps, imprecise in ((64, 64, 64, 4, 32), (128, 256, 128, 8, 64), (64, 128, 128, 4, 128)):
            K = 4 * BK
            a = torch.ones(BM, K, device="cuda").to(torch.float8_e4m3fn)
            b = torch.ones(K, BN, device="cuda").to(torch.float8_e4m3fn)
            c = torch.zeros(BM, BN, device="cuda")
            # 16384 + K ones: each partial sum (at most K) and each fp32 add of it is exact
            fp8_dot_loop[(1,)](a, b, c, K, BM=BM, BN=BN, BK=BK, START=16384.0, IMPRECISE=imprecise,
                               num_warps=warps)
            self.assertTrue(bool((c == 16384.0 + K).all()),
                            f"{BM}x{BN}x{BK} imprecise={imprecise}: {c.unique()[:4].tolist()}")

    def test_random_operands_against_fp32(self):
        if not hasattr(torch, "float8_e4m3fn"):
            self.skipTest("torch without float8_e4m3fn")
        torch.manual_seed(2)
        for BM, BN, BK, warps, imprecise in ((64, 64, 64, 4, 32), (128, 256, 128, 8, 96), (64, 64, 64, 4, None)):
            K = 3 * BK
            a = torch.randn(BM, K, device="cuda").to(torch.float8_e4m3fn)
            b = torch.randn(K, BN, device="cuda").to(torch.float8_e4m3fn)
            c = torch.zeros(BM, BN, device="cuda")
            fp8_dot_loop[(1,)](a, b, c, K, BM=BM, BN=BN, BK=BK, START=0.5, IMPRECISE=imprecise, num_warps=warps)
            want = a.float() @ b.float() + 0.5
            # Triton's own tolerance for fp8 dots (test_dot_max_num_imprecise_acc): wgmma's fp8
            # accumulator keeps fewer bits than fp32 within each partial sum
            torch.testing.assert_close(c, want, rtol=1e-2, atol=1e-2, msg=f"{BM}x{BN}x{BK} imprecise={imprecise}")


@unittest.skipUnless(HAVE_GPU, "no CUDA GPU with torch")
class GpuCrossEntropy(unittest.TestCase):
    """examples/cross_entropy.py against torch.nn.functional.cross_entropy on the logits
    in float32: loss and gradient through autograd, each reduction, float32, float16 and
    bfloat16 logits with strided rows, a language model's vocabulary (50304 columns,
    several blocks a row, the maximum in the last) and a short row, ignored rows (with
    ignore_index -100 and with one inside the classes), int64, int32 and strided targets.
    The gradients within 2 units in the last place of their type (ex2.approx against
    torch's expf)."""

    def test_against_torch(self):
        sys.path.insert(0, EXAMPLES)
        try:
            import cross_entropy
        finally:
            sys.path.remove(EXAMPLES)
        torch.manual_seed(0)
        tol = {torch.float32: (1e-5, 1e-9), torch.float16: (2.0 ** -9, 1e-7), torch.bfloat16: (2.0 ** -6, 1e-30)}
        cases = ((torch.bfloat16, 257, 50304, -100, torch.int64), (torch.float16, 64, 1000, 5, torch.int32),
                 (torch.float32, 33, 5000, -100, "strided"))
        for dt, N, V, ignore, tkind in cases:
            for reduction in ("mean", "sum", "none"):
                base = torch.randn(N, V + 8, device="cuda", dtype=torch.float32) * 3
                base[:, V - 1] += 8.0  # the maximum in the last block
                x = base.to(dt)[:, :V]  # rows strided: V + 8 elements apart
                t = torch.randint(0, V, (N,), device="cuda")
                t[::7] = -100 if ignore == -100 else ignore
                t[3] = ignore if ignore != -100 else t[3]
                if tkind == "strided":
                    targets = torch.stack([t, torch.zeros_like(t)], 1)[:, 0]
                else:
                    targets = t.to(tkind)
                msg = f"{dt} N={N} V={V} ignore_index={ignore} targets {tkind} {reduction}"
                a = x.detach().requires_grad_(True)
                got = cross_entropy.cross_entropy(a, targets, ignore_index=ignore, reduction=reduction)
                b = x.detach().clone().requires_grad_(True)
                want = torch.nn.functional.cross_entropy(b.float(), t, ignore_index=ignore, reduction=reduction)
                torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5, msg=msg)
                w = torch.rand_like(want) if reduction == "none" else torch.tensor(0.7, device="cuda")
                (got * w).sum().backward()
                (want * w).sum().backward()
                self.assertEqual(a.grad.dtype, dt, msg)
                rtol, atol = tol[dt]
                torch.testing.assert_close(a.grad.float(), b.grad.float(), rtol=rtol, atol=atol, msg=msg)
                self.assertTrue(bool((a.grad[t == ignore] == 0).all()), msg)


@unittest.skipUnless(HAVE_GPU, "no CUDA GPU with torch")
class GpuTmaPointerLoads(unittest.TestCase):
    """Pointer loads feeding dots in pipelined loops, through tensor maps built from the
    arguments on sm_90a (tma_pointer_kernels.py), against torch: masked edges zero-filled
    by TMA as the masks would, a batch offset as a dim of the map, carried pointer blocks;
    arguments a map cannot take (a row offset below the base, a stride not a multiple of 16
    bytes) run the kernel without maps, correct too."""

    @classmethod
    def setUpClass(cls):
        import tma_pointer_kernels
        cls.tk = tma_pointer_kernels
        for k in (tma_pointer_kernels.bmm_masked, tma_pointer_kernels.matmul_carried,
                  tma_pointer_kernels.chained, tma_pointer_kernels.persistent_described):
            k.device = "cuda"
        cls.hopper = torch.cuda.get_device_capability() == (9, 0)

    def test_bmm_masked_edges(self):
        torch.manual_seed(0)
        # edges past the tiles on every dim (K not a multiple of BK), exact tiles, and a K whose
        # rows are no multiple of 16 bytes (B's map only)
        for Z, M, N, K, BK, dt in ((3, 200, 144, 208, 32, torch.float16), (2, 64, 64, 64, 64, torch.bfloat16),
                                   (2, 130, 80, 96, 64, torch.float16), (1, 33, 48, 40, 16, torch.float16),
                                   (2, 40, 24, 40, 16, torch.float16)):
            a = torch.randn(Z, M, K, device="cuda", dtype=dt)
            b = torch.randn(Z, K, N, device="cuda", dtype=dt)
            c = torch.empty(Z, M, N, device="cuda", dtype=torch.float32)
            grid = (nereid.cdiv(M, 64), nereid.cdiv(N, 64), Z)
            ran = self.tk.bmm_masked[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                            c.stride(0), c.stride(1), BM=64, BN=64, BK=BK, num_warps=4,
                                            num_stages=3)
            want = torch.bmm(a.float(), b.float())
            torch.testing.assert_close(c, want, rtol=1e-3, atol=1e-2, msg=f"Z={Z} M={M} N={N} K={K}")
            # a map for a tile whose strides the launch specialised as multiples of 16
            a_fits = K % 16 == 0 and M * K % 16 == 0
            b_fits = N % 16 == 0 and K * N % 16 == 0
            self.assertEqual(self.tk.tma(ran), self.hopper and (a_fits or b_fits), f"Z={Z} M={M} N={N} K={K}")

    def test_carried_pointers_and_a_row_offset(self):
        torch.manual_seed(1)
        M, N, K = 256, 128, 256
        full = torch.randn(M + 64, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        for a, row0, want_rows in ((full, 64, full[64:]), (full[64:], -64, full), (full, 0, full)):
            c = torch.empty(M, N, device="cuda", dtype=torch.float32)
            ran = self.tk.matmul_carried[(M // 64, N // 64)](a, b, c, K, a.stride(0), b.stride(0), c.stride(0),
                                                            row0, BM=64, BN=64, BK=32, num_warps=4,
                                                            num_stages=3)
            torch.testing.assert_close(c, want_rows[:M].float() @ b.float(), rtol=1e-3, atol=1e-2)
            # row0 = -64: rows before the map's base, which TMA would read as zeros
            self.assertEqual(self.tk.tma(ran), self.hopper and row0 >= 0, f"row0={row0}")

    def test_loads_after_the_kernels_own_stores(self):
        """A loop whose loads read what the kernel stored just before (chained: each step's
        A rows are the previous step's product) takes its maps after a proxy fence."""
        torch.manual_seed(2)
        BM, BK = 64, 32
        K = 2 * BK
        for steps in (1, 3):
            a = (torch.randn((steps + 1) * BM, K, device="cuda") / 8).half()
            b = (torch.randn(K, K, device="cuda") / 8).half()
            want = a.clone()
            for j in range(steps):
                want[(j + 1) * BM:(j + 2) * BM] = (want[j * BM:(j + 1) * BM].float() @ b.float()).half()
            ran = self.tk.chained[(1,)](a, b, K, a.stride(0), b.stride(0), STEPS=steps, BM=BM, BK=BK,
                                        num_warps=4, num_stages=3)
            torch.testing.assert_close(a.float(), want.float(), rtol=2e-2, atol=2e-3, msg=f"steps={steps}")
            self.assertEqual(self.tk.tma(ran), self.hopper)

    def test_persistent_device_descriptors(self):
        """Tensor descriptors made in the kernel, tiles visited by a stride, each tile's store
        before the next tile's loads; A's rows from ROW0 = -8 (zeros before row 0, through
        the descriptors' own bounds checks) and edges past M, N and K; K = 136 (a stride not
        specialised as a multiple of 16) runs without maps."""
        torch.manual_seed(3)
        for M, N, K, row0 in ((512, 384, 256, 0), (300, 200, 144, -8), (256, 256, 136, 0)):
            a = torch.randn(M, K, device="cuda", dtype=torch.float16)
            b = torch.randn(N, K, device="cuda", dtype=torch.float16)
            c = torch.empty(M, N, device="cuda", dtype=torch.float16)
            ran = self.tk.persistent_described[(5,)](a, b, c, M, N, K, ROW0=row0, BM=128, BN=128, BK=64,
                                                      PROGRAMS=5, num_warps=8, num_stages=3)
            shifted = torch.zeros_like(a)
            shifted[-row0:] = a[:M + row0] if row0 else a
            want = shifted.float() @ b.float().T
            torch.testing.assert_close(c.float(), want, rtol=1e-2, atol=5e-2, msg=f"M={M} N={N} K={K}")
            # maps where the launch specialised K (the rows' stride) as a multiple of 16: A's
            # too (its rows, from ROW0, proved non-negative by nothing but the descriptor's
            # own `>= 0` check)
            self.assertEqual("a_ptr.tma" in ran.asm["gpu-ir"], self.hopper and K % 16 == 0, f"M={M} N={N} K={K}")

    def test_attention_forward(self):
        """examples/attention.nr's forward: K and V tiles through maps with the batch and
        head as dims of their own (test_attention.py checks every case against torch)."""
        if not self.hopper:
            self.skipTest("tensor maps for pointer loads are sm_90a's")
        mod = nereid.compile(os.path.join(EXAMPLES, "attention.nr"), device="cuda", DT="bf16", HEAD_DIM=64,
                             CAUSAL=False, DROPOUT=False)
        Z, H, T, D = 2, 3, 384, 64
        q, k, v = (torch.randn(Z, H, T, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        o = torch.empty_like(q)
        lse = torch.empty(Z, H, T, device="cuda", dtype=torch.float32)
        ran = mod._attn_fwd[(nereid.cdiv(T, 128), Z * H)](q, k, v, o, lse, *q.stride(), *k.stride(), *v.stride(),
                                                          *o.stride(), H, T, 0.125, 0.0, 0, BLOCK_M=128, BLOCK_N=64,
                                                          num_warps=8, num_stages=3)
        want = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), scale=0.125)
        torch.testing.assert_close(o.float(), want, rtol=2e-2, atol=2e-2)
        self.assertTrue(self.tk.tma(ran))


@unittest.skipUnless(HAVE_GPU, "no CUDA GPU with torch")
class GpuWarpSpecialize(unittest.TestCase):
    """tl.range(..., warp_specialize=True) (ws_kernels.py): on sm_90a a producer warpgroup
    issues the TMA copies and the consumer warps compute, meeting through mbarriers; the
    results against the same kernels without it and against torch, at ragged shapes (edges
    past M, N and K), loops shorter than the ring, one and two consumer warpgroups,
    asynchronous and synchronous dots, a persistent matmul whose tile loop is flattened, and
    a pointer matmul whose maps the launcher builds
    (a stride TMA cannot take runs the kernel without maps, and without the producer)."""

    @classmethod
    def setUpClass(cls):
        import ws_kernels
        cls.wk = ws_kernels
        for k in (ws_kernels.desc_matmul, ws_kernels.desc_decay, ws_kernels.record_ws_matmul,
                  ws_kernels.persistent_matmul):
            k.device = "cuda"
        cls.hopper = torch.cuda.get_device_capability() == (9, 0)

    def run_desc(self, kern, M, N, K, BM, BN, BK, warps, stages, dt, ws):
        TD = nereid.TensorDescriptor
        torch.manual_seed(M + N + K)
        a = torch.randn(M, K, device="cuda", dtype=dt)
        b = torch.randn(K, N, device="cuda", dtype=dt)
        c = torch.full((M, N), -1.0, device="cuda", dtype=dt)
        ran = kern[(nereid.cdiv(M, BM), nereid.cdiv(N, BN))](
            TD.from_tensor(a, [BM, BK]), TD.from_tensor(b, [BK, BN]), TD.from_tensor(c, [BM, BN]), K, BM=BM, BN=BN,
            BK=BK, WS=ws, num_warps=warps, num_stages=stages)
        torch.cuda.synchronize()
        return a, b, c, ran

    def test_descriptor_matmul(self):
        for M, N, K, BM, BN, BK, warps, stages, dt in (
                (1024, 768, 1024, 128, 256, 64, 8, 4, torch.float16), (1000, 520, 1000, 128, 128, 64, 8, 3, torch.bfloat16),
                (256, 256, 64, 128, 128, 64, 8, 4, torch.float16),   # one K step: fewer than the ring's stages
                (384, 512, 640, 64, 128, 64, 4, 3, torch.float16),  # one consumer warpgroup
                (130, 200, 72, 64, 64, 32, 4, 2, torch.bfloat16)):
            what = f"{M}x{N}x{K} {BM}x{BN}x{BK} w{warps} s{stages} {dt}"
            a, b, c, ran = self.run_desc(self.wk.desc_matmul, M, N, K, BM, BN, BK, warps, stages, dt, True)
            _, _, c0, _ = self.run_desc(self.wk.desc_matmul, M, N, K, BM, BN, BK, warps, stages, dt, False)
            want = (a.float() @ b.float()).to(dt)
            torch.testing.assert_close(c, want, rtol=2e-2, atol=5e-2, msg=what)
            torch.testing.assert_close(c, c0, rtol=0, atol=0, msg=what)  # the same sums, in the same order
            self.assertEqual(self.wk.specialised(ran), self.hopper, what)
            if self.hopper:
                ptx = ran.asm["ptx"]
                self.assertIn(f".maxntid {32 * warps + 128}", ptx, what)
                self.assertEqual("setmaxnreg" in ptx, warps == 8, what)

    def test_persistent_flattened(self):
        """The flattened tile loop: the producer runs ahead across tiles while the consumers
        store one; more tiles than programs, fewer (idle programs), K = 0 (no K step: the
        fused loop's other side, zeros stored), one K step, one consumer warpgroup; with
        flatten=False the hint on the tile loop fuses the nest all the same on sm_90a (the
        reference, without the hint, is the nest as written)."""
        TD = nereid.TensorDescriptor
        for M, N, K, BM, BN, BK, warps, stages, nprog, dt, flat in (
                (1024, 768, 512, 128, 256, 64, 8, 4, 7, torch.float16, True),
                (1000, 520, 200, 128, 128, 64, 8, 3, 5, torch.bfloat16, True),
                (1000, 520, 200, 128, 128, 64, 8, 3, 5, torch.bfloat16, False),  # fused for the hint alone
                (384, 512, 640, 64, 128, 64, 4, 3, 6, torch.float16, True),
                (130, 200, 72, 64, 64, 32, 4, 2, 40, torch.bfloat16, True),   # more programs than tiles
                (256, 256, 64, 128, 128, 64, 8, 4, 3, torch.float16, True),   # one K step
                (256, 384, 0, 128, 128, 64, 8, 3, 4, torch.float16, False)):  # no K step
            what = f"{M}x{N}x{K} {BM}x{BN}x{BK} w{warps} s{stages} {nprog} programs {dt} flatten={flat}"
            torch.manual_seed(M + N + K)
            kt = max(K, BK)  # K = 0: the tensors keep columns (a map has no empty dim), the kernel reads none
            a = torch.randn(M, kt, device="cuda", dtype=dt)
            b = torch.randn(N, kt, device="cuda", dtype=dt)
            outs = []
            for ws in (True, False):
                c = torch.full((M, N), -1.0, device="cuda", dtype=dt)
                ran = self.wk.persistent_matmul[(nprog,)](
                    TD.from_tensor(a, [BM, BK]), TD.from_tensor(b, [BN, BK]), TD.from_tensor(c, [BM, BN]), M, N, K,
                    BM=BM, BN=BN, BK=BK, GROUP_M=8, NPROG=nprog, FLAT=flat, WS=ws, num_warps=warps,
                    num_stages=stages)
                torch.cuda.synchronize()
                outs.append(c)
                if ws:
                    self.assertEqual(self.wk.specialised(ran), self.hopper, what)
            want = (a[:, :K].float() @ b[:, :K].float().T).to(dt)
            torch.testing.assert_close(outs[0], want, rtol=2e-2, atol=5e-2, msg=what)
            torch.testing.assert_close(outs[0], outs[1], rtol=0, atol=0, msg=what)

    def test_synchronous_dots(self):
        for M, N, K, warps in ((512, 256, 704, 8), (200, 136, 320, 4)):
            what = f"{M}x{N}x{K} w{warps}"
            a, b, c, ran = self.run_desc(self.wk.desc_decay, M, N, K, 128, 128, 64, warps, 3, torch.float16, True)
            _, _, c0, _ = self.run_desc(self.wk.desc_decay, M, N, K, 128, 128, 64, warps, 3, torch.float16, False)
            torch.testing.assert_close(c, c0, rtol=0, atol=0, msg=what)
            self.assertEqual(self.wk.specialised(ran), self.hopper, what)
            self.assertIn("mbarrier_arrive" if self.hopper else "dot", ran.asm["gpu-ir"], what)

    def test_pointer_matmul(self):
        torch.manual_seed(5)
        for M, N, K, pad_a, pad_b, warps in ((1000, 768, 1024, 0, 0, 8), (256, 384, 200, 0, 0, 4),
                                             (512, 256, 256, 4, 0, 8), (512, 256, 256, 4, 4, 8)):
            what = f"{M}x{N}x{K} pads {pad_a} {pad_b} w{warps}"
            a = torch.randn(M, K + pad_a, device="cuda", dtype=torch.float16)[:, :K]
            b = torch.randn(K, N + pad_b, device="cuda", dtype=torch.float16)[:, :N]
            c = torch.empty(M, N, device="cuda", dtype=torch.float32)
            grid = (nereid.cdiv(M, 128), nereid.cdiv(N, 128))
            ran = self.wk.record_ws_matmul[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=128,
                                                 BN=128, BK=64, WS=True, num_warps=warps, num_stages=3)
            torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-3, atol=1e-2, msg=what)
            # (a row stride of 4 more halves is no multiple of 16 bytes: that operand gets no
            # map and the consumers load it; with neither mapped, no copy is the producer's)
            if not pad_a and not pad_b:
                self.assertEqual(self.wk.specialised(ran), self.hopper, what)


class TorchDevice:
    """desc_kernels.py's device: NumPy arrays in and out, torch tensors on the GPU."""
    TD = nereid.TensorDescriptor

    def __init__(self, device="cuda", TD=None):
        self.device = device
        if TD is not None:
            self.TD = TD

    def put(self, a):
        return torch.from_numpy(np.ascontiguousarray(a)).to(self.device)

    def get(self, t):
        torch.cuda.synchronize()
        return t.cpu().numpy()


@unittest.skipUnless(HAVE_GPU, "no CUDA GPU with torch")
class GpuTensorDescriptors(unittest.TestCase):
    """Host tensor descriptors on the GPU: tiles loaded with zero and NaN padding and
    stored past odd shapes, 1-D, 3-D and matmul, each where TMA can move the tiles (a
    16-byte aligned base, strides multiples of 16 bytes: on sm_90) and where it cannot (a
    base one element in, a row of 45 fp32), against NumPy."""

    def check_tile_2d(self, dev, x, BM, BN, padding="zero", cols=None):
        y, tiles = dk.run_tile_2d(dev, x, BM, BN, padding, cols)
        want_y, want_tiles = dk.want_tile_2d(x, BM, BN, padding, cols)
        what = f"{x.shape} cols={cols} {x.dtype} BM={BM} BN={BN} {padding}"
        np.testing.assert_array_equal(y, want_y, err_msg=what)
        np.testing.assert_array_equal(tiles, want_tiles, err_msg=what)

    def test_2d_padding(self):
        rng = np.random.default_rng(1)
        dev = TorchDevice()
        for M, S, cols, BM, BN, padding in ((37, 48, 45, 16, 32, "zero"), (37, 48, 45, 32, 16, "nan"),  # TMA
                                            (37, 45, None, 16, 8, "nan"), (100, 45, None, 64, 64, "zero"),  # 180-byte rows
                                            (64, 64, None, 64, 64, "nan"), (5, 16, 3, 8, 8, "zero")):
            self.check_tile_2d(dev, rng.uniform(-10, 10, (M, S)).astype(np.float32), BM, BN, padding, cols)
        x16 = rng.uniform(-10, 10, (70, 72)).astype(np.float16)
        self.check_tile_2d(dev, x16, 64, 64, "nan", 67)
        self.check_tile_2d(dev, x16, 16, 64, "zero")

    def test_unaligned_base(self):
        # a view one element in: the base is not 16-byte aligned (no TMA, as Triton would refuse)
        x = torch.arange(40 * 65, dtype=torch.float32, device="cuda").reshape(40, 65)
        y = torch.zeros_like(x)
        t = torch.zeros(3 * 2 * 16 * 32, device="cuda")
        TD = nereid.TensorDescriptor
        dk.tile_2d[(3, 2)](TD.from_tensor(x[:, 1:], [16, 32], "nan"), TD.from_tensor(y[:, 1:], [16, 32]), t)
        torch.cuda.synchronize()
        torch.testing.assert_close(y[:, 1:], 2 * x[:, 1:], rtol=0, atol=0)
        self.assertEqual(int(y[:, 0].count_nonzero()), 0)
        self.assertEqual(int(t.isnan().sum()), 3 * 2 * 16 * 32 - 40 * 64)

    def test_helper_returns_descriptor_or_makes_one(self):
        # host descriptors passed through a helper, and descriptors the kernel makes
        dev = TorchDevice()
        x = np.arange(40 * 24, dtype=np.float32).reshape(40, 24)
        for host in (True, False):
            np.testing.assert_array_equal(dk.run_add_one_any(dev, x, 16, 8, host), x + 1, err_msg=str(host))

    def test_1d_and_3d(self):
        dev = TorchDevice()
        for n, B, dtype in ((100, 32, np.int32), (1000, 256, np.float16), (4096, 128, np.float32)):
            x = np.arange(n).astype(dtype)
            y, info = dk.run_vec_1d(dev, x, B)
            np.testing.assert_array_equal(y, x + 1)
            self.assertEqual(list(info), [n, 1, B])
        rng = np.random.default_rng(3)
        for shape, box, dtype in (((3, 10, 40), (2, 4, 16), np.float16), ((4, 16, 64), (2, 8, 32), np.float32)):
            x = rng.integers(-100, 100, shape).astype(dtype)
            np.testing.assert_array_equal(dk.run_box_3d(dev, x, *box), x - dtype(1), err_msg=str(shape))

    def test_matmul(self):
        rng = np.random.default_rng(4)
        dev = TorchDevice()
        for (M, N, K), (BM, BN, BK), out, warps in (((256, 256, 256), (128, 128, 64), np.float16, 8),
                                                    ((200, 136, 72), (64, 64, 32), np.float32, 4),
                                                    ((40, 33, 50), (16, 16, 16), np.float32, 4)):
            a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
            b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
            c = dk.run_matmul(dev, a, b, out, BM, BN, BK, num_warps=warps)
            ref = a.astype(np.float64) @ b.astype(np.float64)
            tol = 2e-2 if out == np.float16 else 1e-3
            np.testing.assert_allclose(c.astype(np.float64), ref, atol=tol, rtol=tol, err_msg=f"{M}x{N}x{K}")

    def test_typed_and_errors(self):
        x = torch.arange(64, dtype=torch.float32, device="cuda").reshape(16, 4)
        y = torch.zeros_like(x)
        TD = nereid.TensorDescriptor
        dk.tile_2d_typed[(2, 1)](TD.from_tensor(x, [8, 4]), TD.from_tensor(y, [8, 4]), BM=8, BN=4)
        torch.cuda.synchronize()
        torch.testing.assert_close(y, x + 1)
        with self.assertRaisesRegex(TypeError, r"is tensordesc<fp32\[8, 4\]>, got tensordesc<fp32\[4, 4\]>"):
            dk.tile_2d_typed[(2, 1)](TD.from_tensor(x, [4, 4]), TD.from_tensor(y, [8, 4]), BM=8, BN=4)
        with self.assertRaisesRegex(ValueError, "argument 'x_desc' must be on the GPU"):
            dk.tile_2d_typed[(2, 1)](TD.from_tensor(x.cpu(), [8, 4]), TD.from_tensor(y, [8, 4]), BM=8, BN=4)

    def test_triton_tensor_descriptor(self):
        try:
            from triton.tools.tensor_descriptor import TensorDescriptor
        except ImportError:
            self.skipTest("no Triton")
        dev = TorchDevice(TD=TensorDescriptor)  # Triton's own class (it wants 16-byte aligned bases and strides)
        rng = np.random.default_rng(5)
        self.check_tile_2d(dev, rng.uniform(-1, 1, (37, 48)).astype(np.float32), 16, 32, "nan", 44)
        a = rng.uniform(-1, 1, (192, 64)).astype(np.float16)
        b = rng.uniform(-1, 1, (64, 128)).astype(np.float16)
        c = dk.run_matmul(dev, a, b, np.float32, 64, 64, 32)
        np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), atol=1e-3, rtol=1e-3)


@nereid.jit
def _axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, a * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def _axpy_on(dev, n=100003, a=3.0):
    x, y = torch.rand(n, device=dev), torch.rand(n, device=dev)
    out = torch.empty_like(x)
    _axpy[(nereid.cdiv(n, 1024),)](x, y, out, a, n, BLOCK=1024)
    return out, a * x + y


@unittest.skipUnless(HAVE_GPU and torch.cuda.device_count() >= 2, "needs two CUDA GPUs")
class MultiGpu(unittest.TestCase):
    def test_jit_follows_the_tensors(self):
        torch.cuda.set_device(0)
        for dev in ("cuda:1", "cuda:0", "cuda:1", "cuda:1", "cuda:0"):
            out, want = _axpy_on(dev)
            self.assertEqual(torch.cuda.current_device(), 0)  # Nereid gave torch its device back
            torch.testing.assert_close(out, want)
        self.assertEqual(sorted(_axpy._devices), [0, 1])
        with torch.cuda.device(1):  # torch's current device 1 and a stream of its own there
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                out, want = _axpy_on("cuda:1")
            s.synchronize()
            torch.testing.assert_close(out, want)
            self.assertEqual(torch.cuda.current_device(), 1)
        self.assertEqual(torch.cuda.current_device(), 0)

    def test_one_compile_for_both(self):
        @nereid.jit
        def triple(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 3.0 + 0.25, mask=m)

        before = [nereid.context(f"cuda:{d}").stats() for d in (0, 1)]
        for d in (0, 1):
            x = torch.rand(4096, device=f"cuda:{d}")
            out = torch.empty_like(x)
            triple[(4,)](x, out, 4096, BLOCK=1024)
            torch.testing.assert_close(out, x * 3.0 + 0.25)
        after = [nereid.context(f"cuda:{d}").stats() for d in (0, 1)]
        if torch.cuda.get_device_name(0) == torch.cuda.get_device_name(1):
            self.assertEqual(after[0]["gpu_compiles"] - before[0]["gpu_compiles"], 1)
            self.assertEqual(after[1]["gpu_compiles"] - before[1]["gpu_compiles"], 0)
            self.assertEqual(after[1]["disk_cache_hits"] - before[1]["disk_cache_hits"], 1)

    def test_descriptors_follow_their_base(self):
        # box_3d takes only descriptors: it runs on their bases' device
        torch.cuda.set_device(0)
        x = torch.rand(2, 8, 32, device="cuda:1")
        y = torch.zeros_like(x)
        TD = nereid.TensorDescriptor
        dk.box_3d[(1, 1, 1)](TD.from_tensor(x, [2, 8, 32]), TD.from_tensor(y, [2, 8, 32]), BB=2, BR=8, BC=32)
        torch.cuda.synchronize(1)
        torch.testing.assert_close(y, x - 1)
        self.assertIn(1, dk.box_3d._devices)
        self.assertEqual(torch.cuda.current_device(), 0)

    def test_a_module_for_cuda_1(self):
        mod = nereid.compile(os.path.join(EXAMPLES, "vector_add.nr"), device="cuda:1", BLOCK_SIZE=1024)
        self.assertEqual(mod.device, "cuda:1")
        x, y = torch.rand(5000, device="cuda:1"), torch.rand(5000, device="cuda:1")
        out = torch.empty_like(x)
        mod.add_kernel[(5,)](x, y, out, 5000)
        torch.testing.assert_close(out, x + y)

    def test_a_thread_per_gpu(self):
        import threading
        errors = []

        def work(dev):
            try:
                torch.cuda.set_device(dev)
                for i in range(50):
                    out, want = _axpy_on(f"cuda:{dev}", n=20000 + i)
                    torch.testing.assert_close(out, want)
            except Exception as e:  # reported below
                errors.append(f"cuda:{dev}: {e!r}")

        threads = [threading.Thread(target=work, args=(d,)) for d in range(torch.cuda.device_count())]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])


@nereid.jit
def _mm_k_tail(A, B, C, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr, FORM: tl.constexpr = 5):
    # A's K mask written each way the copy's size may come from: the true elements of a run
    # from one comparison (x <= b, b > x, b >= x, 64-bit x, beside a lower bound, x < b)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        if FORM == 0:
            km = kk <= K - 1
        elif FORM == 1:
            km = K > kk
        elif FORM == 2:
            km = K - 1 >= kk
        elif FORM == 3:
            km = kk.to(tl.int64) < K
        elif FORM == 4:
            km = (kk >= 0) & (kk < K)
        else:
            km = kk < K
        a = tl.load(A + rm[:, None] * stride_am + kk[None, :], mask=(rm[:, None] < M) & km[None, :], other=0.0)
        b = tl.load(B + kk[:, None] * stride_bk + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * stride_cm + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@nereid.jit
def _grouped_desc_mm(a_ptrs, b_ptrs, c_ptrs, sizes, lds, G, NUM_SM: tl.constexpr, BM: tl.constexpr,
                     BN: tl.constexpr, BK: tl.constexpr):
    # Triton's tutorial 08 in its TMA form, written again: every base, size and stride loaded
    tile = tl.program_id(0)
    end = 0
    for g in range(G):
        gm = tl.load(sizes + g * 3)
        gn = tl.load(sizes + g * 3 + 1)
        gk = tl.load(sizes + g * 3 + 2)
        nn = tl.cdiv(gn, BN)
        nt = tl.cdiv(gm, BM) * nn
        if tile >= end and tile < end + nt:
            a = tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))
            b = tl.load(b_ptrs + g).to(tl.pointer_type(tl.float16))
            c = tl.load(c_ptrs + g).to(tl.pointer_type(tl.float16))
            ad = tl.make_tensor_descriptor(a, shape=[gm, gk], strides=[tl.load(lds + g * 3), 1], block_shape=[BM, BK])
            bd = tl.make_tensor_descriptor(b, shape=[gn, gk], strides=[tl.load(lds + g * 3 + 1), 1],
                                           block_shape=[BN, BK])
            cd = tl.make_tensor_descriptor(c, shape=[gm, gn], strides=[tl.load(lds + g * 3 + 2), 1],
                                           block_shape=[BM, BN])
            while tile >= end and tile < end + nt:
                tm = (tile - end) // nn
                tn = (tile - end) % nn
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for kk in range(0, tl.cdiv(gk, BK)):
                    acc += tl.dot(ad.load([tm * BM, kk * BK]), bd.load([tn * BN, kk * BK]).T)
                cd.store([tm * BM, tn * BN], acc.to(tl.float16))
                tile += NUM_SM
        end = end + nt


@unittest.skipUnless(HAVE_GPU, "no CUDA GPU with torch")
class GpuPrefixMasks(unittest.TestCase):
    """Masked loads copied by cp.async a whole 16-byte run at a time where the mask is true on
    a prefix of the run (the tile's edge inside it: K not a multiple of 8), the source size
    counting the true elements and the rest zero-filled, against torch: a pointer matmul whose
    rows are 16-byte aligned but whose K is not a multiple of the run, and Triton's grouped
    GEMM with in-kernel tensor descriptors whose bases, sizes and strides come from memory
    (padded rows: the strides multiples of 16 bytes, the sizes anything)."""

    def test_k_tail(self):
        torch.manual_seed(0)
        for M, N, K, pad, BK, warps in ((130, 72, 100, 112, 64, 4), (64, 64, 9, 16, 32, 4),
                                        (200, 136, 250, 256, 64, 8), (33, 48, 24, 24, 16, 4)):
            a = torch.randn(M, pad, device="cuda", dtype=torch.float16)[:, :K]
            b = torch.randn(K, pad, device="cuda", dtype=torch.float16)[:, :N] if N <= pad else None
            if b is None:
                b = torch.randn(K, N + 8, device="cuda", dtype=torch.float16)[:, :N]
            c = torch.empty(M, N, device="cuda", dtype=torch.float32)
            grid = (nereid.cdiv(M, 64), nereid.cdiv(N, 64))
            _mm_k_tail[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=64, BN=64, BK=BK,
                             num_warps=warps, num_stages=3)
            torch.testing.assert_close(c, a.float() @ b.float(), atol=1e-2, rtol=1e-2,
                                       msg=lambda m: f"{M}x{N}x{K} pad {pad}: {m}")

    def test_k_tail_mask_forms(self):
        torch.manual_seed(3)
        M, N, K, pad = 96, 64, 77, 96
        a = torch.randn(M, pad, device="cuda", dtype=torch.float16)[:, :K]
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        ref = a.float() @ b.float()
        for form in range(5):
            c = torch.empty(M, N, device="cuda", dtype=torch.float32)
            _mm_k_tail[(nereid.cdiv(M, 64), nereid.cdiv(N, 64))](
                a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=64, BN=64, BK=32, FORM=form,
                num_warps=4, num_stages=3)
            torch.testing.assert_close(c, ref, atol=1e-2, rtol=1e-2, msg=lambda m: f"form {form}: {m}")

    def test_grouped_descriptors(self):
        torch.manual_seed(1)
        shapes = ((200, 136, 100), (64, 64, 64), (130, 70, 40), (33, 48, 24), (128, 256, 1000))
        A, B, C, sizes, lds = [], [], [], [], []
        for m, n, k in shapes:
            kp = (k + 7) // 8 * 8 + 8  # rows padded: a stride that is a multiple of 16 bytes, K is not
            A.append(torch.randn(m, kp, device="cuda", dtype=torch.float16)[:, :k])
            B.append(torch.randn(n, kp, device="cuda", dtype=torch.float16)[:, :k])
            np_ = (n + 7) // 8 * 8
            C.append(torch.zeros(m, np_, device="cuda", dtype=torch.float16)[:, :n])
            sizes += [m, n, k]
            lds += [A[-1].stride(0), B[-1].stride(0), C[-1].stride(0)]
        ptrs = [torch.tensor([t.data_ptr() for t in X], device="cuda", dtype=torch.int64) for X in (A, B, C)]
        sz = torch.tensor(sizes, device="cuda", dtype=torch.int32)
        ld = torch.tensor(lds, device="cuda", dtype=torch.int32)
        for BM, BN, BK, warps, stages in ((128, 128, 64, 8, 3), (64, 64, 32, 4, 4)):
            for c in C:
                c.zero_()
            _grouped_desc_mm[(132,)](*ptrs, sz, ld, len(shapes), NUM_SM=132, BM=BM, BN=BN, BK=BK,
                                     num_warps=warps, num_stages=stages)
            torch.cuda.synchronize()
            for (m, n, k), a, b, c in zip(shapes, A, B, C):
                torch.testing.assert_close(c.float(), a.float() @ b.float().T, atol=5e-2, rtol=2e-2,
                                           msg=lambda s: f"{m}x{n}x{k} {BM}x{BN}x{BK}: {s}")


@nereid.jit
def _mm_split_epilogue(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                       MODE: tl.constexpr):
    # C = A @ B^T (B given as N x K), the accumulator stored in two halves that split takes
    # apart: MODE 0 column halves through pointers (reshape to (BM, 2, BN/2), permute, split),
    # 1 the same through a tensor descriptor, 2 even and odd columns (reshape to (BM, BN/2, 2))
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    a_d = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_d = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_d.load([pm, k * BK]), b_d.load([pn, k * BK]).T, acc)
    rows = pm + tl.arange(0, BM)[:, None]
    half = tl.arange(0, BN // 2)[None, :]
    if MODE == 2:
        lo, hi = tl.split(tl.reshape(acc, (BM, BN // 2, 2)))
        cols_lo = pn + 2 * half
        cols_hi = cols_lo + 1
    else:
        lo, hi = tl.split(tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1)))
        cols_lo = pn + half
        cols_hi = cols_lo + BN // 2
    if MODE == 1:
        c_d = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN // 2])
        c_d.store([pm, pn], lo.to(tl.float16))
        c_d.store([pm, pn + BN // 2], hi.to(tl.float16))
    else:
        tl.store(c_ptr + rows * N + cols_lo, lo.to(tl.float16), mask=(rows < M) & (cols_lo < N))
        tl.store(c_ptr + rows * N + cols_hi, hi.to(tl.float16), mask=(rows < M) & (cols_hi < N))


@unittest.skipUnless(HAVE_GPU, "no CUDA GPU with torch")
class GpuSplitEpilogue(unittest.TestCase):
    """A dot's accumulator split in two for its stores (Triton's epilogue subtiling: reshape,
    permute, split), whose halves stay in the registers the dot left them in (the reshape and
    the permute rename index bits), against torch: column halves and even/odd columns, stored
    through pointers and through a tensor descriptor, 4 and 8 warps, ragged M and N."""

    def test_halves(self):
        torch.manual_seed(2)
        M, N, K = 300, 520, 136
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(N, K, device="cuda", dtype=torch.float16)
        ref = a.float() @ b.float().T
        for BM, BN, BK, warps in ((128, 256, 64, 8), (128, 128, 64, 4), (64, 64, 32, 4), (128, 128, 32, 8)):
            for mode in (0, 1, 2):
                c = torch.zeros(M, N, device="cuda", dtype=torch.float16)
                grid = (nereid.cdiv(M, BM), nereid.cdiv(N, BN))
                _mm_split_epilogue[grid](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, MODE=mode, num_warps=warps,
                                         num_stages=3)
                torch.testing.assert_close(c.float(), ref, atol=5e-2, rtol=1e-2,
                                           msg=lambda s: f"{BM}x{BN}x{BK} w{warps} mode {mode}: {s}")


@nereid.jit
def _dv_from_stats(k_ptr, q_ptr, m_ptr, idx_ptr, do_ptr, dv_ptr, N, BN: tl.constexpr, BM: tl.constexpr,
                   D: tl.constexpr, GATHER: tl.constexpr):
    # attention backward's dV loop (tutorial 06's form): the row statistic m feeds the next
    # dot's A through exp2; with GATHER it is read at indices loaded in the same iteration
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rd = tl.arange(0, D)
    k = tl.load(k_ptr + rn[:, None] * D + rd[None, :])
    dv = tl.zeros((BN, D), dtype=tl.float32)
    for start in range(0, N, BM):
        offs = start + tl.arange(0, BM)
        ok = offs < N
        qT = tl.load(q_ptr + offs[None, :] * D + rd[:, None], mask=ok[None, :], other=0.0)
        if GATHER:
            j = tl.load(idx_ptr + offs, mask=ok, other=0)
            m = tl.load(m_ptr + j, mask=ok, other=0.0)
        else:
            m = tl.load(m_ptr + offs, mask=ok, other=0.0)
        p = tl.math.exp2(tl.dot(k, qT) - m[None, :])
        do = tl.load(do_ptr + offs[:, None] * D + rd[None, :], mask=ok[:, None], other=0.0)
        dv += tl.dot(p.to(tl.float16), do)
    tl.store(dv_ptr + rn[:, None] * D + rd[None, :], dv)


@unittest.skipUnless(HAVE_GPU, "no CUDA GPU with torch")
class GpuDotSourceLoads(unittest.TestCase):
    """Loads a dot's operand is computed from (attention backward's row statistics),
    pipelined through shared memory like the dot's tiles (gpu-pipeline's stage_loads),
    against torch: ragged lengths (masked copies), 2 to 4 stages, 4 and 8 warps, the
    statistic read at indices loaded in the same iteration (the index staged, the gather
    left a load)."""

    def test_against_torch(self):
        torch.manual_seed(3)
        D, BNK = 64, 128
        for N, BM, stages, warps, gather in ((1000, 32, 3, 4, False), (1024, 32, 5, 4, False),
                                             (77, 16, 2, 4, False), (1000, 64, 4, 8, False),
                                             (1000, 32, 3, 4, True), (333, 16, 4, 8, True)):
            k = (torch.randn(BNK * 2, D, device="cuda") * 0.3).half()
            q = (torch.randn(N, D, device="cuda") * 0.3).half()
            do = torch.randn(N, D, device="cuda").half()
            s = k.float() @ q.float().T  # [2 BNK, N]
            m = s.max(dim=0).values
            idx = torch.randperm(N, device="cuda", dtype=torch.int32)
            m_arg = m.clone()
            if gather:  # m_arg[idx[i]] = m[i]
                m_arg = torch.empty_like(m)
                m_arg[idx.long()] = m
            dv = torch.zeros(BNK * 2, D, device="cuda")
            _dv_from_stats[(2,)](k, q, m_arg, idx, do, dv, N, BN=BNK, BM=BM, D=D, GATHER=gather,
                                 num_warps=warps, num_stages=stages)
            p = torch.exp2(s - m[None, :]).half().float()
            ref = p @ do.float()
            torch.testing.assert_close(dv, ref, atol=2e-2, rtol=2e-2,
                                       msg=lambda t: f"N {N} BM {BM} s{stages} w{warps} gather {gather}: {t}")


if __name__ == "__main__":
    unittest.main()
