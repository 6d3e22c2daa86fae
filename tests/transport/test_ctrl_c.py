"""Ctrl-C never lands halfway through grpcio's bookkeeping of a call.

trio raises KeyboardInterrupt wherever the main thread is, unless the code is
KI-protected. Raised between grpcio registering a call and starting the thread
that watches it, it leaves a call nobody completes, and closing the channel
then waits for it forever: `arena match` hung after Ctrl-C (grpc/grpc#19973).
A connection to a bot therefore runs nothing of grpcio in trio's own code:
its one channel is grpc.aio's, opened and called on the asyncio loop (arena.
transport.aio), which trio only waits for; here a real bot is called the ways
the referee calls it, and every channel made is counted."""

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.match.engine import MatchEnded
from arena.match.outcome import MatchResult, Termination
from arena.transport.process import launch
from tests.support.stops import foreground

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("how", ["trio.run", "aio.run"])
def test_a_connection_has_one_channel_and_runs_no_grpcio_in_trios_code(how, tag, monkeypatch):
    import threading

    import grpc._channel
    from grpc.aio import _channel as aio_channel

    from arena.transport import aio

    made: list[tuple[str, int]] = []

    def spy(kind: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            made.append((kind, threading.get_ident()))
            return original(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(
        grpc._channel.Channel, "__init__", spy("sync", grpc._channel.Channel.__init__)
    )
    monkeypatch.setattr(aio_channel.Channel, "__init__", spy("aio", aio_channel.Channel.__init__))
    trio_thread: list[int] = []

    async def main() -> None:
        trio_thread.append(threading.get_ident())
        command = [sys.executable, str(ROOT / "engines/random/bot.py"), tag]
        async with launch(command, label="random") as conn:
            await conn.handshake(5)
            ended = MatchResult((0, 0), None, Termination.VOID, "a test's end")
            await conn.notify(MatchEnded("ctrl-c", 0, ended), 5)
            assert await conn.health_status(5) == "SERVING"

    (trio.run if how == "trio.run" else aio.run)(main)
    assert [kind for kind, _ in made] == ["aio"], made  # one channel, grpc.aio's
    on_trios_thread = made[0][1] == trio_thread[0]
    # On the loop: in a thread of its own under trio.run; trio's own under aio.run,
    # where trio is the loop's guest and the channel is made in a callback of the loop.
    assert on_trios_thread is (how == "aio.run")


# A trio run as the arena's commands run it (arena.cli.signals): its task
# spends nearly all its time in plain Python between checkpoints, as
# grpcio's bookkeeping does, and records a KeyboardInterrupt landing there.
BUSY = """
import signal, sys
import trio
from arena.cli import signals

landed = []

def bookkeeping():
    try:
        total = 0
        for i in range(200_000):
            total += i
    except KeyboardInterrupt:
        landed.append("inside")
        raise

async def main():
    print("ready", flush=True)
    while True:
        bookkeeping()
        await trio.sleep(0)

with signals.taken() as stop:
    try:
        signals.run(main)
    except KeyboardInterrupt:
        print(signal.Signals(stop.received).name, landed, flush=True)
"""


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_commands_stop_signal_never_lands_inside_a_tasks_code(stop):
    """Under the commands' handling a signal raises nothing inside trio: it
    cancels the run, which stops at the task's next checkpoint, and the
    interrupt is raised once the run is over (under trio's own KI handler it
    would land in the middle of the plain Python nearly every time)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", BUSY],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=foreground,  # were the tests run as a background job
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(stop)
    out, _ = proc.communicate(timeout=30)
    assert out == f"{stop.name} []\n"


def test_waiting_for_a_bot_to_listen_leaves_no_grpcio_thread_to_race_a_stop():
    """grpcio's channel_ready_future polls the channel from a thread of its
    own; a channel closed while that thread goes round (a stop while a bot is
    being launched) makes it print a traceback (grpc/grpc#18995), which the
    signal storm caught. Waiting for a bot to listen must start no such
    thread: here nothing listens, the wait is cancelled, the channel closed."""
    import socket

    from arena.transport.grpc_seat import GrpcConnection

    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{unused.getsockname()[1]}"  # bound, never listening
    polling: list[str] = []

    async def main() -> None:
        conn = GrpcConnection(address)
        with trio.move_on_after(0.5):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(conn.wait_ready, 30)
                for _ in range(20):
                    await trio.sleep(0.02)
                    polling.extend(polling_threads())
        conn.close()

    trio.run(main)
    assert polling == []


def polling_threads() -> list[str]:
    """The threads of this process running grpcio's connectivity polling."""
    found = []
    for thread_id, frame in sys._current_frames().items():
        while frame is not None:
            if frame.f_code.co_name == "_poll_connectivity":
                found.append(str(thread_id))
                break
            frame = frame.f_back
    return found


def test_a_stop_as_a_bot_process_has_just_started_still_ends_it(tag, monkeypatch):
    """The stop lands at the launch's first checkpoint after the bot's process
    exists: the launch must end it itself, before it returns, not leave it to
    the parent-death signal once the arena is gone (the signal storm found a
    bot alive after `arena match` had exited). Unsandboxed: a sandbox's own
    teardown would end it anyway."""
    from arena.match.settings import SandboxMode, SandboxSettings
    from arena.transport import process
    from arena.transport.process import launch
    from tests.support.processes import live_pids

    started: list[int] = []
    original = process._Spawner.run

    async def main() -> None:
        with trio.CancelScope() as stop:

            async def spawned_then_stopped(spawner: Any, job: Callable[[], Any]) -> Any:
                popen = await original(spawner, job)
                started.append(popen.pid)
                stop.cancel()  # as the command's stop does, from inside trio
                return popen

            monkeypatch.setattr(process._Spawner, "run", spawned_then_stopped)
            command = [sys.executable, str(ROOT / "engines/random/bot.py"), tag]
            unconfined = SandboxSettings(SandboxMode.OFF)
            async with launch(command, label="random", sandbox=unconfined):
                raise AssertionError("the launch went on after the stop")

    trio.run(main)
    assert started and live_pids(tag) == []
