"""Waiting in tests for something another process does: one polling loop."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def until(check: Callable[[], T], seconds: float, what: str = "the condition") -> T:
    """The first truthy value ``check`` returns, polled every 50 ms; an
    AssertionError naming ``what`` once ``seconds`` have passed without one."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out after {seconds:g}s waiting for {what}"
        time.sleep(0.05)
