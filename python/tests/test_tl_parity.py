"""The kernels of tests/gpu/tl_parity.py (small Triton kernels using the builtins of issue
13: scans, custom reductions, sort/topk/flip, gather, histogram, join/split/interleave,
clamp, libdevice math, block pointers, tensor descriptors made in the kernel and by the
host, fp8, debug_barrier) through @nereid.jit on the CPU device, each against its NumPy
reference: one test per case. The same kernels run against Triton on the GPU machine
(tools/gpu-run.sh, row tl-parity).

    PYTHONPATH=build/python python3 python/tests/run.py test_tl_parity
"""
import os
import re
import sys
import unittest

os.environ["NEREID_DEVICE"] = "cpu"
import nereid  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
import tl_parity  # noqa: E402


class TlParityCpu(unittest.TestCase):
    kernels = None

    @classmethod
    def setUpClass(cls):
        cls.kernels = tl_parity.load_kernels_nereid(nereid, "cpu")


def _test(case):
    def test(self):
        status, text = tl_parity.run_case_cpu(nereid, self.kernels, case, case.warps[0])
        if status == "skip":
            self.skipTest(text)
        self.assertEqual(status, "ok", "%s: %s" % (case.name, text))
    test.__doc__ = case.name
    return test


for _i, _case in enumerate(tl_parity.all_cases()):
    setattr(TlParityCpu, "test_%03d_%s" % (_i, re.sub(r"\W+", "_", _case.name).strip("_").lower()), _test(_case))
del _i, _case

if __name__ == "__main__":
    unittest.main()
