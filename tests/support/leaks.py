"""No test leaves a process behind, even when it fails or times out: each
test's children still alive once its own fixtures are torn down are killed,
and the test fails saying which. Processes a fixture of a wider scope starts
(a module's server, the session's browser) are that fixture's to stop, and
so are Python's own helpers (multiprocessing's resource tracker)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Generator

import pytest

# Started once by Python for the whole session, wherever first needed.
PYTHONS_OWN = (b"multiprocessing.resource_tracker", b"multiprocessing.forkserver")
GRACE = 5.0  # seconds a child stopped in teardown may take to exit


def children() -> dict[int, bytes]:
    """This process's live (not zombie) children: pid -> command line."""
    found: dict[int, bytes] = {}
    me = os.getpid()
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{me}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{me}/task/{task}/children") as f:
                for pid in f.read().split():
                    found[int(pid)] = b""
    for pid in list(found):
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                found[pid] = f.read().replace(b"\0", b" ").strip()
        except OSError:
            state = "Z"
        if state == "Z":
            del found[pid]
    return {pid: line for pid, line in found.items() if not any(o in line for o in PYTHONS_OWN)}


def pytest_configure(config: pytest.Config) -> None:
    """This module is a pytest plugin (tests/conftest.py names it)."""
    config.pluginmanager.register(LeakCheck(), "leak-check")


class LeakCheck:
    """What the plugin holds between hooks."""

    def __init__(self) -> None:
        self.wider: set[int] = set()  # started by a fixture wider than a test
        self.before: set[int] = set()  # the children there before a test's set-up

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef) -> Generator[object]:
        if fixturedef.scope == "function":
            return (yield)
        before = set(children())
        try:
            return (yield)
        finally:
            self.wider |= set(children()) - before

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None]:
        self.before = set(children())
        return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None]:
        try:
            result = yield  # the test's own fixtures are torn down by now
        except BaseException:
            self._kill_left()  # a teardown that failed says so itself
            raise
        left = self._kill_left()
        if left:
            shown = "; ".join(
                f"{p}: {line.decode(errors='replace')[:120]}" for p, line in left.items()
            )
            pytest.fail(
                f"left processes running after its teardown (now killed): {shown}", pytrace=False
            )
        return result

    def _kill_left(self) -> dict[int, bytes]:
        left = self._left(self.before)
        for pid in left:
            kill(pid)
        return left

    def _left(self, before: set[int]) -> dict[int, bytes]:
        deadline = time.monotonic() + GRACE
        while True:
            self.wider &= set(children())
            left = {
                pid: line
                for pid, line in children().items()
                if pid not in before and pid not in self.wider
            }
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.05)


def kill(pid: int) -> None:
    """The process and, where it leads one, its whole process group."""
    with contextlib.suppress(OSError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)
