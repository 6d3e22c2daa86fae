"""Ctrl-C and kill -9 of `arena match`: no bot process survives, the log stays readable."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from arena.record import read_log

from .conftest import bot, live_pids

ARENA = str(Path(sys.executable).parent / "arena")


def has_decision(log: Path) -> bool:
    """The match is under way: its log holds at least one decision."""
    from arena.errors import RecordError

    try:
        return any(r.WhichOneof("record") == "decision" for r in read_log(log).records)
    except RecordError:  # not written yet
        return False


def start_slow_match(tag: str, log: Path) -> subprocess.Popen:
    """A match whose first bot thinks for 3 s per move (within a 30 s move time)."""
    cmd = [
        ARENA,
        "match",
        "--engine",
        f"slow={bot('misbehave', '--mode', 'sleep', '--at', '2', tag)}",
        "--engine",
        f"fast={bot('random', tag)}",
        "--move-time",
        "30s",
        "--log",
        str(log),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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


def test_ctrl_c_ends_the_match_cleanly_and_kills_every_bot(tag, tmp_path):
    log = tmp_path / "m.log"
    proc = start_slow_match(tag, log)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 130, (out, err)
    assert "interrupted" in err and "Traceback" not in err
    assert wait_gone(tag) == []
    contents = read_log(log)
    assert contents.complete  # the ABORTED record was written
    assert contents.records[-1].match_ended.result.termination == 4  # ABORTED


def test_kill_9_of_the_arena_still_kills_the_bots_and_leaves_a_readable_log(tag, tmp_path):
    log = tmp_path / "m.log"
    proc = start_slow_match(tag, log)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert wait_gone(tag) == []  # PR_SET_PDEATHSIG
    contents = read_log(log)
    assert not contents.complete and contents.records[0].header.match_id == "match-1"
    assert any(r.WhichOneof("record") == "decision" for r in contents.records)


def test_a_launched_bot_outlives_the_thread_that_started_it(tag):
    """The parent-death signal is tied to the starting thread: bots must be
    started from a thread that lives as long as the arena, not from one of
    trio's worker threads, which retire after 10 s idle."""
    import trio

    from arena.transport.process import launch
    from arena.wire.v1 import engine_pb2 as epb

    async def main() -> None:
        cmd = [sys.executable, bot("random").split()[1], tag]
        async with launch(cmd, label="random") as conn:
            await trio.sleep(11.5)
            assert conn.death is None, conn.death
            info = await conn.handshake(epb.HandshakeRequest(), 5)
            assert info.name == "random"

    trio.run(main)
    assert wait_gone(tag) == []
