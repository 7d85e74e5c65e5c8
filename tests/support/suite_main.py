"""suite_main.py: the __main__ of the Python suites ctest runs (standard library only).

    if __name__ == "__main__":
        suite_main.run("cluster_balancer_real_kafka_test", skip=skip_reason())

A suite that cannot run here prints "SKIP: <why>" and exits 77 (ctest's SKIP_RETURN_CODE).
Otherwise its tests run in order, verbosely, each followed by what it took, and the suite ends
with one line: its wall time, the tests' share of it and the slowest tests. The exit code is 0
when every test passed, 1 otherwise.
"""
import sys
import time
import unittest


class TimedResult(unittest.TextTestResult):
    """A TextTestResult that notes each test's wall time."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.durations = []
        self._began = None

    def startTest(self, test):
        self._began = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        took = time.monotonic() - self._began
        self.durations.append((test.id().rpartition(".")[2], took))
        self.stream.writeln("    (%.1f s)" % took)
        self.stream.flush()


def run(name, skip=None):
    """Runs the tests of __main__ as the suite `name`, or skips it when `skip` says why."""
    if skip:
        print("SKIP: " + skip, flush=True)
        sys.exit(77)
    began = time.monotonic()
    runner = unittest.TextTestRunner(verbosity=2, resultclass=TimedResult)
    program = unittest.main(module="__main__", testRunner=runner, exit=False)
    result = program.result
    total = time.monotonic() - began
    in_tests = sum(took for _, took in result.durations)
    slowest = sorted(result.durations, key=lambda d: -d[1])[:3]
    sys.stderr.write("%s: %.1f s, %.1f s of it in tests (slowest: %s)\n" % (
        name, total, in_tests, ", ".join("%s %.1f s" % d for d in slowest)))
    sys.exit(0 if result.wasSuccessful() else 1)
