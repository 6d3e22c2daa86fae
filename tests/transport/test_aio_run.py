"""arena.transport.aio.run: trio.run with trio a guest of the grpc.aio loop in
the calling thread. It must behave as trio.run does (the value, the error,
Ctrl-C) and leave nothing behind: the next run, guest or not, starts clean."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import warnings

import pytest
import trio

from arena.transport import aio
from tests.support.paths import ROOT
from tests.support.stops import foreground


def test_the_value_and_the_error_of_the_run_are_trios():
    async def answer(x: int) -> int:
        await trio.sleep(0.01)
        return x * 2

    async def fails() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.sleep, 1)
            raise KeyError("lost")

    assert aio.run(answer, 21) == 42
    with pytest.raises(ExceptionGroup) as caught:  # strict groups, as trio.run's default
        aio.run(fails)
    assert caught.group_contains(KeyError)


def test_the_run_is_on_the_loop_in_this_thread_and_the_loop_is_closed_after():
    seen = {}

    async def main() -> None:
        seen["loop"] = aio.loop()
        seen["thread"] = threading.get_ident()
        seen["guest"] = aio.in_guest_run()

    aio.run(main)
    assert seen["thread"] == threading.get_ident() and seen["guest"]
    assert seen["loop"].is_closed()

    async def plain() -> None:  # trio.run afterwards: the loop in a thread of its own
        seen["after"] = aio.loop()
        seen["guest_after"] = aio.in_guest_run()

    trio.run(plain)
    assert not seen["guest_after"] and not seen["after"].is_closed()


def test_runs_do_not_nest():
    async def inner() -> None:
        aio.run(trio.sleep, 0)

    with pytest.raises(RuntimeError, match="already running"):
        aio.run(inner)


def test_an_exchange_on_the_loop_is_waited_for_and_cut_off():
    async def on_loop(value: int) -> int:
        import asyncio

        await asyncio.sleep(0.01)
        return value

    async def never() -> None:
        import asyncio

        await asyncio.sleep(60)

    async def main() -> tuple[int, bool, float]:
        got = await aio.wait(on_loop(7))
        started = trio.current_time()
        with trio.move_on_after(0.05) as scope:
            await aio.wait(never())
        return got, scope.cancelled_caught, trio.current_time() - started

    got, cut, took = aio.run(main)
    assert got == 7 and cut and took < 1.0


@pytest.mark.process
def test_ctrl_c_interrupts_a_guest_run_as_it_does_trio_run(tmp_path):
    """A real SIGINT to a process sleeping in a guest run: KeyboardInterrupt
    out of aio.run, with the run's own cleanup done (the finally block)."""
    script = tmp_path / "sleeper.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys, trio
            from arena.transport import aio

            async def main():
                try:
                    print("ready", flush=True)
                    await trio.sleep(60)
                finally:
                    print("cleaned up", flush=True)

            try:
                aio.run(main)
            except KeyboardInterrupt:
                print("interrupted", flush=True)
                sys.exit(130)
            """
        )
    )
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=foreground,  # were the tests run as a background job
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 130
    assert out.split() == ["cleaned", "up", "interrupted"]


def test_an_interrupt_raised_in_the_loop_ends_the_guest_run_before_the_loop_stops():
    """A KeyboardInterrupt raised in a callback of the loop's own, outside
    trio (a signal handler that raises wherever it lands): trio is cancelled
    and finishes its cleanup, awaits included, before the loop stops; the
    interrupt comes out of aio.run after, and no guest run is abandoned."""
    cleaned: list[str] = []

    def interrupt() -> None:
        raise KeyboardInterrupt

    async def main() -> None:
        aio.loop().call_soon(interrupt)  # runs on the loop, between trio's ticks
        try:
            await trio.sleep(60)
        finally:
            with trio.CancelScope(shield=True):
                await trio.sleep(0.01)  # trio still runs: the loop was not stopped
                cleaned.append("cleaned up")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(KeyboardInterrupt):
            aio.run(main)
        gc.collect()  # an abandoned run warns when its generator is collected
    assert cleaned == ["cleaned up"]
    assert not [w for w in caught if "abandoned" in str(w.message)], caught

    async def after() -> int:  # the next run starts clean
        await trio.sleep(0)
        return 1

    assert aio.run(after) == 1
