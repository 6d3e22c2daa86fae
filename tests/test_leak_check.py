"""The suite's own promise: a test that leaves a process behind fails, and
the process is killed, also when the test timed out (tests/support/leaks.py)."""

import os

import pytest

from tests.support.paths import ROOT

pytestmark = pytest.mark.process

LEAKY = """
import subprocess
import time

import pytest


def test_leaves_one(tmp_path):
    subprocess.Popen(["sleep", "301"])


@pytest.mark.timeout(2)
def test_times_out_with_one_running():
    subprocess.Popen(["sleep", "302"])
    time.sleep(30)


def test_stops_its_own():
    proc = subprocess.Popen(["sleep", "303"])
    proc.kill()
    proc.wait()


@pytest.fixture(scope="module")
def server():
    proc = subprocess.Popen(["sleep", "304"])
    yield
    proc.kill()
    proc.wait()


def test_uses_a_wider_fixtures_process(server):
    pass
"""


def sleeping(seconds: str) -> bool:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f.read() == f"sleep\0{seconds}\0".encode():
                    return True
        except OSError:
            continue
    return False


def test_a_test_that_leaves_a_process_fails_and_the_process_is_killed(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_leaky=LEAKY)
    result = pytester.runpytest_subprocess("-p", "tests.support.leaks", "-W", "ignore")
    result.assert_outcomes(passed=3, failed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_leaves_one*",
            "left processes running after its teardown (now killed): *: sleep 301",
            "*ERROR at teardown of test_times_out_with_one_running*",
            "left processes running after its teardown (now killed): *: sleep 302",
        ]
    )
    assert not any(sleeping(s) for s in ("301", "302", "303", "304"))
