"""Ctrl-C never lands halfway through grpcio's bookkeeping of a call.

trio raises KeyboardInterrupt wherever the main thread is, unless the code is
KI-protected. Raised between grpcio registering a call and starting the thread
that watches it, it leaves a call nobody completes, and closing the channel
then waits for it forever: `arena match` hung after Ctrl-C (grpc/grpc#19973).
Every grpcio step the arena takes must run protected; here a real bot is
called the ways the referee calls it, and each of those steps says whether it
was."""

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
import trio

from arena.engine import MatchEnded
from arena.outcome import MatchResult, Termination
from arena.transport.process import launch

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]


def test_grpcio_call_bookkeeping_and_closing_run_protected_from_ctrl_c(tag, monkeypatch):
    from grpc import _channel

    seen: list[tuple[str, bool]] = []

    def spy(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            seen.append((name, trio.lowlevel.currently_ki_protected()))
            return original(*args, **kwargs)

        return wrapper

    # Where a registered call gets its watcher, and where a channel is closed.
    monkeypatch.setattr(
        _channel,
        "_run_channel_spin_thread",
        spy("a call's watcher", _channel._run_channel_spin_thread),
    )
    monkeypatch.setattr(grpc._channel.Channel, "_close", spy("close", grpc._channel.Channel._close))

    async def main() -> None:
        command = [sys.executable, str(ROOT / "engines/random/bot.py"), tag]
        async with launch(command, label="random") as conn:
            await conn.handshake(5)
            ended = MatchResult((0, 0), None, Termination.VOID, "a test's end")
            await conn.notify(MatchEnded("ctrl-c", 0, ended), 5)
            assert await conn.health_status(5) == "SERVING"

    trio.run(main)
    assert ("close", True) in seen and ("a call's watcher", True) in seen
    assert all(protected for _, protected in seen), seen
