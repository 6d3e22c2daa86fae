"""The `arena` program as its console script runs it, which on SIGUSR1 also
prints the tree of its trio tasks, each with where it waits: for the signal
storm, so that a run that does not stop says where it is stuck.

    python -m tests.support.dumping_arena ARENA-ARGUMENTS...
"""

from __future__ import annotations

import signal
import sys
import types
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from arena.cli import main, signals

_root: list[trio.lowlevel.Task] = []
_listening = signals._listening


async def _noting_the_root(
    stop: signals.Stop, async_fn: Callable[..., Awaitable[Any]], *args: Any
) -> Any:
    _root[:] = [trio.lowlevel.current_root_task()]
    return await _listening(stop, async_fn, *args)


def _awaiting(coro: Any) -> list[str]:
    """Where a coroutine waits, outermost first."""
    lines = []
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None)
        frame = frame or getattr(coro, "gi_frame", None)
        if frame is None:
            lines.append(repr(coro))
            break
        lines.append(f"{frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}")
        coro = (
            getattr(coro, "cr_await", None)
            or getattr(coro, "ag_await", None)
            or getattr(coro, "gi_yieldfrom", None)
        )
    return lines


def _dump(task: trio.lowlevel.Task, depth: int = 0) -> None:
    print(f"{'  ' * depth}task {task.name}", file=sys.stderr)
    for line in _awaiting(task.coro):
        print(f"{'  ' * depth}    {line}", file=sys.stderr)
    for nursery in task.child_nurseries:
        for child in nursery.child_tasks:
            _dump(child, depth + 1)


def _on_usr1(number: int, frame: types.FrameType | None) -> None:
    print("trio tasks:", file=sys.stderr)
    for root in _root:
        _dump(root)
    sys.stderr.flush()


if __name__ == "__main__":
    signals._listening = _noting_the_root  # type: ignore[assignment]
    signal.signal(signal.SIGUSR1, _on_usr1)
    sys.argv = ["arena", *sys.argv[1:]]
    sys.exit(main())
