"""Ray clusters for the tests, on loopback only, each in a private temp
directory, stopped by killing exactly the processes the test started (never
`ray stop`, which stops every Ray of the machine)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the cluster extra is not installed (pip install '.[cluster]')")

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ARENA = str(BIN / "arena")
RAY = str(BIN / "ray")


def ray_env(temp: Path) -> dict[str, str]:
    """The environment of every Ray process of a test: its own temp directory,
    no token authentication, no usage report, workers at nice 0."""
    return {
        **os.environ,
        "RAY_TMPDIR": str(temp),
        "RAY_AUTH_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_worker_niceness": "0",  # as the README starts nodes
        "PYTHONUNBUFFERED": "1",
    }


@pytest.fixture
def ray_temp() -> Iterator[Path]:
    """A short private directory (Ray's socket paths must stay under 108 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))
    yield path
    subprocess.run(["rm", "-rf", str(path)], check=False)


def session_pids(sid: int) -> list[int]:
    """Every process of the session ``sid`` (what one `setsid` start made)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(entry.name))
    return pids


def kill_session(sid: int) -> None:
    """SIGKILL every process of a session this test started."""
    for _ in range(3):
        pids = session_pids(sid)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)


class Sessions:
    """Processes started in sessions of their own, all killed at the end."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[str]] = []

    def start(
        self, args: list[str], env: dict[str, str], **kwargs: object
    ) -> subprocess.Popen[str]:
        proc = subprocess.Popen(args, env=env, start_new_session=True, text=True, **kwargs)  # type: ignore[call-overload]
        self.started.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen[str]) -> None:
        kill_session(proc.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)

    def close(self) -> None:
        for proc in self.started:
            self.kill(proc)


@pytest.fixture
def sessions() -> Iterator[Sessions]:
    s = Sessions()
    yield s
    s.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def results(store: Path) -> dict[str, tuple]:
    """Each match's result as stored (what can differ between runs left out:
    times, finishing order, the log's chain value)."""
    db = sqlite3.connect(store)
    rows = db.execute(
        "SELECT id, status, winner_side, score0, score1, termination, reason, deals, log_path "
        "FROM matches"
    ).fetchall()
    db.close()
    return {r[0]: (*r[1:-1], Path(r[-1]).name if r[-1] else None) for r in rows}


def faults(store: Path) -> list[tuple]:
    db = sqlite3.connect(store)
    rows = db.execute("SELECT match_id, engine, kind, message FROM faults").fetchall()
    db.close()
    return rows


def log_moves(path: Path) -> list[str]:
    """A match log's records with what depends on the clock left out (start
    and finish times, think times, banks, the chain that covers them)."""
    from google.protobuf import text_format

    from arena.record import read_log

    out = []
    for record in read_log(path).records:
        record.ClearField("chain")
        if record.HasField("header"):
            record.header.ClearField("started_at")
        if record.HasField("decision"):
            record.decision.ClearField("think_time_us")
            record.decision.ClearField("bank_left_ms")
        if record.HasField("match_ended"):
            record.match_ended.ClearField("finished_at")
        out.append(text_format.MessageToString(record, as_one_line=True))
    return out


def logs(output: Path) -> dict[str, list[str]]:
    return {p.name: log_moves(p) for p in sorted((output / "logs").glob("*.log"))}
