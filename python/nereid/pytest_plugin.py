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
from ._launches import count_triton, launches

dropin.install()

_report = {}


def pytest_addoption(parser):
    parser.addoption("--nereid-report", action="store", default=None,
                     help="write each test's outcome and kernel launches (Nereid's, Triton's) to this JSON file")


def pytest_configure(config):
    count_triton()


def pytest_runtest_setup(item):
    item._nereid_before = launches()


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
    after = launches()
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
