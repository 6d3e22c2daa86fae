"""Ctrl-C and kill -9 of `arena match`: no bot process survives, the log stays readable."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arena.logs.record import read_log
from tests.support.bots import bot
from tests.support.processes import ended, live_pids
from tests.support.stops import WAYS, Way, send, start

pytestmark = pytest.mark.process

ARENA = str(Path(sys.executable).parent / "arena")


def has_decision(log: Path) -> bool:
    """The match is under way: its log holds at least one decision."""
    from arena.errors import RecordError

    try:
        return any(r.WhichOneof("record") == "decision" for r in read_log(log).records)
    except RecordError:  # not written yet
        return False


def decisions_by(log: Path, seat: int) -> int:
    """How many decisions of ``seat`` the log holds so far."""
    from arena.errors import RecordError

    try:
        records = read_log(log).records
    except RecordError:
        return 0
    return sum(r.WhichOneof("record") == "decision" and r.decision.seat == seat for r in records)


def start_slow_match(tag: str, log: Path, way: Way = WAYS[0]) -> subprocess.Popen:
    """A match whose first bot thinks for 3 s per move (within a 30 s move time),
    started as ``way`` says (SIGINT ignored, for a background job)."""
    cmd = [
        ARENA,
        "match",
        "--engine",
        f"slow={bot('misbehave', '--mode', 'sleep', '--at', '2', tag)}",
        "--engine",
        f"fast={bot('random', tag)}",
        "--move-time",
        "30s",
        "--seed",
        "1",
        "--log",
        str(log),
    ]
    proc = start(cmd, way)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if len(live_pids(tag)) >= 2 and has_decision(log):
            return proc
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("match did not start")


def wait_gone(tag: str, seconds: float = 5) -> list[int]:
    deadline = time.monotonic() + seconds
    while live_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    return live_pids(tag)


# SIGTERM (a service manager's stop) is taken as Ctrl-C; only the status differs.
# Started with SIGINT ignored (a shell script's background job), the match
# keeps ignoring it, and SIGTERM still stops it cleanly.
@pytest.mark.parametrize("way", WAYS, ids=[way.name for way in WAYS])
def test_ctrl_c_ends_the_match_cleanly_and_kills_every_bot(way, tag, tmp_path):
    log = tmp_path / "m.log"
    proc = start_slow_match(tag, log, way)
    # Interrupt while the slow bot thinks: it has made its two quick moves.
    deadline = time.monotonic() + 20
    while decisions_by(log, 0) < 2:
        assert time.monotonic() < deadline, "the slow bot never got to its slow move"
        time.sleep(0.05)
    send(proc, way)
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == way.status(), (out, err)
    assert "interrupted" in err and "Traceback" not in err and "warning" not in err
    assert live_pids(tag) == []  # gone before the arena exited, not after
    contents = read_log(log)
    assert contents.complete  # the ABORTED record was written
    assert contents.records[-1].match_ended.result.termination == 4  # ABORTED
    replay = subprocess.run([ARENA, "replay", str(log)], capture_output=True, text=True)
    assert replay.returncode == 0 and "interrupted" in replay.stdout, replay.stdout


def test_kill_9_of_the_arena_still_kills_the_bots_and_leaves_a_readable_log(tag, tmp_path):
    log = tmp_path / "m.log"
    proc = start_slow_match(tag, log)
    os.kill(proc.pid, signal.SIGKILL)
    ended(proc, 10)
    assert wait_gone(tag) == []  # PR_SET_PDEATHSIG
    contents = read_log(log)
    assert not contents.complete and contents.records[0].header.seed == 1
    assert any(r.WhichOneof("record") == "decision" for r in contents.records)


def trio_worker_threads() -> set[int]:
    """The OS thread ids of this process's idle trio worker threads (trio names them)."""
    found = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            name = Path(f"/proc/self/task/{tid}/comm").read_text()
        except OSError:  # it has just exited
            continue
        if name.startswith("Trio thread"):
            found.add(int(tid))
    return found


def test_a_launched_bot_outlives_the_thread_that_started_it(tag, monkeypatch):
    """The parent-death signal is tied to the starting thread: bots must be
    started from a thread that lives as long as the arena, not from one of
    trio's worker threads, which retire after 10 s idle. Here they retire
    after 50 ms, in a fresh thread cache, and the bot must still answer once
    every worker thread that ran during the test is gone."""
    import trio
    from trio._core import _thread_cache

    from arena.transport.process import launch

    monkeypatch.setattr(_thread_cache, "IDLE_TIMEOUT", 0.05)
    monkeypatch.setattr(_thread_cache, "THREAD_CACHE", _thread_cache.ThreadCache())
    older = trio_worker_threads()  # idle in the old cache: never used below

    async def main() -> None:
        cmd = [sys.executable, bot("random").split()[1], tag]
        async with launch(cmd, label="random") as conn:
            # The last worker thread to run (the launcher's, were it one) runs this.
            used = await trio.to_thread.run_sync(threading.get_native_id)
            deadline = trio.current_time() + 20
            while trio_worker_threads() - older or os.path.exists(f"/proc/self/task/{used}"):
                assert trio.current_time() < deadline, "trio's worker threads did not retire"
                await trio.sleep(0.01)
            assert conn.death is None, conn.death
            info = await conn.handshake(5)
            assert info.name == "random"

    trio.run(main)
    assert wait_gone(tag) == []


@pytest.mark.parametrize("held_by", ["match", "warm pool"])
def test_a_stop_never_closes_a_seat_under_the_referee_still_ending_its_match(held_by, tag):
    """The stop cancels every task at once, the ones holding the launched bots
    too. Were a bot closed while the referee is still ending its match (a
    shielded probe, a notification sent before its next checkpoint), a call
    on a closed channel would make the stop an internal error or the bot's
    fault (the signal storm caught `arena match` exiting 70). Here the
    referee's side, shielded, lets every other task run after the stop: the
    seat must still answer, and the bot must be gone once the seats close."""
    import trio
    import trio.testing

    from arena.match.settings import CommandEngine, SandboxMode, SandboxSettings
    from arena.transport.seats import open_seats, open_warm_pool

    spec = CommandEngine("random", (sys.executable, bot("random").split()[1], tag))
    unconfined = SandboxSettings(SandboxMode.OFF)
    answers: list[str | None] = []
    stop = trio.CancelScope()

    async def use(seats: list) -> None:
        conn = seats[0]
        stop.cancel()  # the command's stop, from inside trio as signals.run gives it
        with trio.CancelScope(shield=True):
            await trio.testing.wait_all_tasks_blocked()  # every holder has had its turn
            answers.append(await conn.health_status(10))

    async def main() -> None:
        with stop:
            if held_by == "match":
                async with open_seats([spec], match_id="m", sandbox=unconfined) as seats:
                    await use(seats)
            else:
                async with open_warm_pool(sandbox=unconfined) as pool:
                    conn = await pool.connection(spec, 0)
                    async with open_seats([conn], match_id="m") as seats:
                        await use(seats)

    trio.run(main)
    assert answers == ["SERVING"]
    assert wait_gone(tag) == []


@pytest.mark.parametrize("held_by", ["match", "warm pool"])
def test_a_bot_whose_launch_ends_after_the_stop_is_not_held(held_by, tag, monkeypatch):
    """The stop lands while a bot is being launched, and the launch completes
    all the same: trio then leaves the bot's task where it was (its starter
    is cancelled), and waits for it to end. Held until the seats' user is
    done, which never comes, it deadlocked the run (the storm's hunt caught
    `arena sprt` idle 60 s after its stop, a bot task held). The bot must end
    with its launch's starter instead, before the run does."""
    import contextlib

    import trio

    from arena.match.settings import CommandEngine, SandboxMode, SandboxSettings
    from arena.transport import seats
    from arena.transport.seats import open_seats, open_warm_pool

    spec = CommandEngine("random", (sys.executable, bot("random").split()[1], tag))
    unconfined = SandboxSettings(SandboxMode.OFF)
    stop = trio.CancelScope()
    real_launch = seats.launch

    @contextlib.asynccontextmanager
    async def launched_then_stopped(*args, **kwargs):
        async with real_launch(*args, **kwargs) as conn:
            stop.cancel()  # the stop, as the launch is done: no checkpoint before started()
            yield conn

    monkeypatch.setattr(seats, "launch", launched_then_stopped)

    async def main() -> None:
        with stop:
            if held_by == "match":
                async with open_seats([spec], match_id="m", sandbox=unconfined):
                    raise AssertionError("the seats opened after the stop")
            else:
                async with open_warm_pool(sandbox=unconfined) as pool:
                    await pool.connection(spec, 0)
                    raise AssertionError("the pool's bot was handed over after the stop")

    trio.run(main)
    assert wait_gone(tag) == []
