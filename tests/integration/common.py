"""Shared helpers for gpuq's integration tests: run the real binary against
a real database file in a scratch directory, and count checks the way every
test here reports them ("N passed, M failed")."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COMPAT = os.path.normpath(os.path.join(HERE, "../../../shared/compat"))


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {what}", flush=True)
        return cond

    def done(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def gpuq(binary, db, *args, stdin=None, timeout=120):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run([binary, "--db", db, *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, env=env)


def scratch():
    return tempfile.TemporaryDirectory(prefix="gpuq-it-")


def binary():
    return os.path.abspath(sys.argv[1])
