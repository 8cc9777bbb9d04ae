"""nereid.inductor: torch.compile's kernels compiled by Nereid. Without torch (the CPU
machine) every test is skipped, saying so; with torch, the hook's presence is checked
(this fails loudly when a torch release moves what nereid.inductor replaces); with a GPU,
compiled functions (pointwise, reductions, a persistent reduction, a softmax, a layer
norm's backward, Inductor's matmul templates under max-autotune) are compared with eager
PyTorch, with no fallback to Triton."""
import os
import sys
import tempfile
import unittest

try:
    import torch
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

HAVE_GPU = HAVE_TORCH and torch.cuda.is_available()


@unittest.skipUnless(HAVE_TORCH, "SKIP: torch is not installed (nereid.inductor needs torch's Inductor)")
class HookPresence(unittest.TestCase):
    def test_inductor_has_what_the_hook_replaces(self):
        import nereid.inductor
        th = nereid.inductor.check_hook()
        self.assertTrue(hasattr(th.CachingAutotuner, "_precompile_config"))


@unittest.skipUnless(HAVE_GPU, "SKIP: no CUDA GPU")
class CompiledByNereid(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = tempfile.mkdtemp(prefix="nereid-inductor-test-")
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(tmp, "inductor")
        os.environ["TRITON_CACHE_DIR"] = os.path.join(tmp, "triton")
        import nereid.inductor
        nereid.inductor.enable()
        torch._dynamo.reset()

    def check(self, fn, *args, rtol=1e-4, atol=1e-4):
        import nereid.inductor
        before = nereid.inductor.stats()["kernels"]
        want = fn(*args)
        got = torch.compile(fn)(*args)
        for w, g in zip(want if isinstance(want, tuple) else (want, ), got if isinstance(got, tuple) else (got, )):
            torch.testing.assert_close(g, w, rtol=rtol, atol=atol)
        s = nereid.inductor.stats()
        self.assertGreater(s["kernels"], before, "no kernel went through Nereid")
        self.assertEqual(s["fallbacks"], [])

    def test_pointwise(self):
        x = torch.randn(4099, device="cuda")
        self.check(lambda a: torch.sin(a) * 2 + a.exp().clamp(max=3), x)

    def test_pointwise_2d_transposed(self):
        x = torch.randn(257, 129, device="cuda")
        self.check(lambda a: (a.t() * 3).contiguous() + 1, x)

    def test_reductions(self):
        x = torch.randn(37, 5003, device="cuda")
        self.check(lambda a: (a.sum(1), a.amax(0), a.var(1)), x, rtol=1e-3, atol=1e-3)

    def test_softmax_bf16(self):
        x = torch.randn(64, 1000, device="cuda", dtype=torch.bfloat16)
        self.check(lambda a: torch.softmax(a.float() * 0.5, -1).to(torch.bfloat16), x, rtol=2e-2, atol=2e-2)

    def test_argmax_and_indexing(self):
        x = torch.randn(300, 77, device="cuda")
        idx = torch.randint(0, 300, (1000, ), device="cuda")
        self.check(lambda a, i: (a.argmax(1), a[i].sum(0)), x, idx)

    def test_layer_norm_backward(self):
        x = torch.randn(512, 768, device="cuda", requires_grad=True)
        w = torch.randn(768, device="cuda", requires_grad=True)

        def f(a, b):
            y = torch.nn.functional.layer_norm(a, (768, ), b)
            return torch.autograd.grad(y.square().sum(), (a, b))

        self.check(f, x, w, rtol=1e-3, atol=1e-3)

    def test_graph_compiled_in_one_batch(self):
        # a graph of several kernels: their configurations compile together (one batch)
        import nereid.inductor
        before = nereid.inductor.stats()
        x = torch.randn(513, 1031, device="cuda")

        def f(a):
            b = torch.relu(a) + 1
            return b.sum(0), (b * a).amax(1), torch.softmax(a, -1)

        self.check(f, x, rtol=1e-3, atol=1e-3)
        s = nereid.inductor.stats()
        self.assertGreater(s["batches"], before["batches"])
        self.assertGreaterEqual(s["batched_configs"] - before["batched_configs"], 2)

    def test_max_autotune_matmul_templates(self):
        # mode="max-autotune-no-cudagraphs" with Triton's templates alone: Inductor writes
        # its matmul template (triton_tem_..., a tl.dot loop with the epilogue fused) in
        # several configurations, benchmarks them and keeps one: every one through Nereid
        import nereid.inductor
        import torch._inductor.config as icfg
        from torch._inductor.utils import run_and_get_code
        torch._dynamo.reset()
        before = nereid.inductor.stats()["kernels"]
        a = torch.randn(512, 384, device="cuda", dtype=torch.float16)
        b = torch.randn(384, 640, device="cuda", dtype=torch.float16)
        bias = torch.randn(640, device="cuda", dtype=torch.float16)

        def f(x, y, z):
            return torch.relu(x @ y + z)

        with icfg.patch(max_autotune_gemm_backends="TRITON", autotune_in_subproc=False):
            got, code = run_and_get_code(torch.compile(f, mode="max-autotune-no-cudagraphs"), a, b, bias)
        torch.testing.assert_close(got, f(a, b, bias), rtol=2e-2, atol=2e-2)
        self.assertTrue(any("triton_tem_" in c for c in code), "no matmul template in the generated code")
        s = nereid.inductor.stats()
        self.assertGreater(s["kernels"] - before, 1, "the template's configurations did not go through Nereid")
        self.assertEqual(s["fallbacks"], [])


if __name__ == "__main__":
    sys.exit(unittest.main())
