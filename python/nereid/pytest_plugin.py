"""A pytest plugin that runs a test suite's Triton kernels through Nereid:

    pytest -p nereid.pytest_plugin tests/...

Loaded with -p, it installs nereid.dropin when pytest loads its plugins, before any
conftest.py or test module is imported; pytest-xdist passes -p on to its workers, and
NEREID_TRITON=1 (with nereid/_site on PYTHONPATH) reaches every other child process.
--nereid-report=FILE writes, per test, its outcome and how many kernels it launched
through Nereid (nereid's launch counter) and through Triton (Triton's own JITFunction.run,
counted where Triton is installed), so that a harness counts a test as passing under
Nereid only when it launched Nereid kernels and no Triton kernel (tools/triton-suite.sh)."""
import json
import os

from . import dropin

dropin.install()

_report = {}


def pytest_addoption(parser):
    parser.addoption("--nereid-report", action="store", default=None,
                     help="write each test's outcome and kernel launches (Nereid's, Triton's) to this JSON file")


def _launches():
    from . import _nereid
    triton_count = 0
    try:
        import triton.runtime.jit as tj
        triton_count = getattr(tj, "_nereid_triton_launches", 0)
    except ImportError:
        pass
    return _nereid.launch_count(), triton_count


def _count_triton_launches():
    """Counts launches of kernels Triton compiles (those decorated before the drop-in, or
    made with Triton's own classes)."""
    try:
        import triton.runtime.jit as tj
    except ImportError:
        return
    real = getattr(tj, "_nereid_real_JITFunction", None) or getattr(tj, "JITFunction", None)
    if real is None or getattr(real, "__module__", "").startswith("nereid"):
        return
    tj._nereid_real_JITFunction = real
    run = real.run
    if getattr(run, "_nereid_counted", False):
        return

    def counted(self, *args, **kwargs):
        if not kwargs.get("warmup", False):
            tj._nereid_triton_launches = getattr(tj, "_nereid_triton_launches", 0) + 1
        return run(self, *args, **kwargs)

    counted._nereid_counted = True
    real.run = counted


def pytest_configure(config):
    _count_triton_launches()


def pytest_runtest_setup(item):
    item._nereid_before = _launches()


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        entry = _report.setdefault(report.nodeid, {})
        entry["outcome"] = report.outcome
        if report.outcome == "failed" and report.longrepr is not None:
            entry["error"] = str(report.longrepr)[-2000:]


def pytest_runtest_teardown(item):
    before = getattr(item, "_nereid_before", None)
    if before is None:
        return
    after = _launches()
    entry = _report.setdefault(item.nodeid, {})
    entry["nereid_launches"] = after[0] - before[0]
    entry["triton_launches"] = after[1] - before[1]


def pytest_sessionfinish(session):
    path = session.config.getoption("--nereid-report")
    if not path:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        path = f"{path}.{worker}"
    with open(path, "w") as f:
        json.dump(_report, f, indent=0, sort_keys=True)
