#!/usr/bin/env python3
"""Run the Python package's tests and print one summary line, as tools/run-tests.sh
counts them: "python: N passed, M failed, K skipped" (exit status 1 on a failure).

    PYTHONPATH=build/python python3 python/tests/run.py [MODULE...]   (default: test_python)
"""
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
names = sys.argv[1:] or ["test_python"]
suite = unittest.defaultTestLoader.loadTestsFromNames(names)
result = unittest.TextTestRunner(verbosity=1, stream=sys.stdout).run(suite)
failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
skipped = len(result.skipped)
passed = result.testsRun - failed - skipped
print(f"python: {passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or result.testsRun == 0 else 0)
