"""The pytest plugin of tools/triton_suite.py (loaded with -p triton_suite_plugin, before
nereid.pytest_plugin when Nereid runs): at most --suite-max-params parametrisations of each
test function (the first ones, in collection order: the same selection in both runs);
--suite-shard=I/N, of each test function's parametrisations in collection order those whose
index is I modulo N (a sample spread over all its parameters; shards 0..N-1 together are every
parametrisation, so a whole suite can be run in parts that fit a session; I-J/N takes shards I
to J together, in one session), --suite-split=K/P, of the tests so chosen every P-th from the
K-th (P pytest processes side by side, where a suite's conftest cannot run under xdist), and
--suite-report=FILE, each test's outcome, failure text and kernel launches through Nereid
and through Triton (a file per pytest-xdist worker, FILE.gwN, merged by the harness). Each
test's entry is also appended to FILE.WORKER.jsonl as it finishes, so a run stopped at its
deadline (a worker stuck in a long autotuning) still reports the tests it finished."""
import json
import os

import pytest

from nereid._launches import count_triton, launches

count_triton()  # before the drop-in, if any, rebinds Triton's names: Triton's class is wrapped
_report = {}


def pytest_addoption(parser):
    parser.addoption("--suite-report", default=None)
    parser.addoption("--suite-max-params", type=int, default=0)
    parser.addoption("--suite-shard", default="0/1")
    parser.addoption("--suite-split", default="0/1")


def pytest_collection_modifyitems(config, items):
    n = config.getoption("--suite-max-params")
    which, shards = config.getoption("--suite-shard").split("/")
    first, _, last = which.partition("-")
    first, last, shards = int(first), int(last or first), int(shards)
    part, parts = map(int, config.getoption("--suite-split").split("/"))
    if n <= 0 and shards == 1 and parts == 1:
        return
    seen, keep, drop, nchosen = {}, [], [], 0
    for item in items:
        fn = item.nodeid.split("[")[0]
        index = seen.get(fn, 0)
        seen[fn] = index + 1
        chosen = first <= index % shards <= last and (n <= 0 or index // shards < n)
        # --suite-split=K/P: of the tests chosen, every P-th from the K-th (one of P pytest
        # processes run side by side, for suites whose conftest cannot run under xdist)
        if chosen and parts > 1:
            chosen, nchosen = nchosen % parts == part, nchosen + 1
        (keep if chosen else drop).append(item)
    items[:] = keep
    config.hook.pytest_deselected(items=drop)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    before = launches()
    yield
    after = launches()
    entry = _report.setdefault(item.nodeid, {})
    entry["nereid_launches"] = after[0] - before[0]
    entry["triton_launches"] = after[1] - before[1]
    path = item.config.getoption("--suite-report")
    if path:
        with open(f"{path}.{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.jsonl", "a") as f:
            f.write(json.dumps({item.nodeid: entry}) + "\n")


def pytest_runtest_logreport(report):
    entry = _report.setdefault(report.nodeid, {})
    if report.when == "call" or report.outcome != "passed":
        if entry.get("outcome") in (None, "passed"):
            entry["outcome"] = report.outcome if report.when == "call" or report.outcome != "passed" else "passed"
            if report.when != "call" and report.outcome == "failed":
                entry["outcome"] = "error"
        if report.outcome == "failed" and report.longrepr is not None:
            entry["error"] = str(report.longrepr)[-3000:]


def pytest_sessionfinish(session):
    path = session.config.getoption("--suite-report")
    if not path:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    with open(f"{path}.{worker}" if worker else path, "w") as f:
        json.dump(_report, f, indent=0, sort_keys=True)
