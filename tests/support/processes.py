"""The processes a test starts: found by the tag on their command lines (to
prove that none outlives what should have stopped it), or started in sessions
of their own and killed, every one, at the end."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path


def ended(proc: subprocess.Popen, seconds: float = 10) -> int:
    """Waits for a process the test has stopped, then closes its pipes (left to
    the garbage collector, each would be an unclosed-file warning); its exit code."""
    try:
        return proc.wait(seconds)
    finally:
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def live(tag: str) -> dict[int, str]:
    """Live (not zombie) processes whose command line holds ``tag``."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag.encode() in cmdline and state != "Z":
            found[int(entry)] = cmdline.replace(b"\0", b" ").decode(errors="replace")[:160]
    return found


def live_pids(tag: str) -> list[int]:
    """Processes whose command line holds ``tag`` (to prove none survive)."""
    return list(live(tag))


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
    """Processes started in sessions of their own, all killed at the end (never
    `ray stop`, which stops every Ray of the machine)."""

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
            ended(proc, 5)

    def close(self) -> None:
        for proc in self.started:
            self.kill(proc)
