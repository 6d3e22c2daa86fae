"""Stopping the arena with real signals, and what must hold once it has
stopped: every log whole (played to its end or ended ABORTED, and verified),
every store keeping only finished matches, no process it started alive.
For the signal tests and the stress command (tests/cli/signal_storm.py)."""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import RecordError
from arena.logs.record import read_log
from arena.logs.replay import replay_log
from arena.wire.v1 import scopa_pb2

# A launched bot's output beside its match's log: LOG-STEM.seatN.ENGINE.log
BOT_OUTPUT = re.compile(r"\.seat\d+\.")


@dataclass(frozen=True)
class Way:
    """A way to stop a command: the signals sent, in order, to a command
    started with SIGINT ignored or not (``background``: as a shell starts a
    script's background job, which then keeps ignoring it)."""

    name: str
    sends: tuple[signal.Signals, ...]
    background: bool = False

    @property
    def stopping(self) -> signal.Signals:
        """The signal that stops the command: the first one not ignored."""
        return next(s for s in self.sends if not (self.background and s == signal.SIGINT))

    def status(self, server: bool = False) -> int:
        """The documented exit status: 130 after SIGINT, 143 after SIGTERM;
        a server (`arena serve`, `arena web`) exits 0 after SIGINT."""
        if self.stopping == signal.SIGTERM:
            return 143
        return 0 if server else 130


# Ctrl-C; a service manager's stop; and the stop of a background job, whose
# SIGINT must change nothing (were it taken, the status would be 130).
WAYS = (
    Way("SIGINT", (signal.SIGINT,)),
    Way("SIGTERM", (signal.SIGTERM,)),
    Way("background", (signal.SIGINT, signal.SIGTERM), background=True),
)


def background() -> None:
    """In a child before exec: SIGINT ignored, as a shell starts a background job."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def foreground() -> None:
    """In a child before exec: SIGINT as by default, whatever the parent's state."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def as_started(way: Way) -> Callable[[], None]:
    """What to run in the child before the command: SIGINT ignored for a
    background job, else its default, whatever the caller's state (tests
    run from a background job themselves would pass theirs on)."""
    return background if way.background else foreground


def start(argv: Sequence[str], way: Way) -> subprocess.Popen[str]:
    """Start a command as ``way`` says, its output read by the caller."""
    return subprocess.Popen(
        list(argv),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_started(way),
    )


def send(proc: subprocess.Popen[str], way: Way) -> None:
    for number in way.sends:
        proc.send_signal(number)


def handles_signals(pid: int) -> bool:
    """Whether the process has taken SIGTERM (its handler is installed:
    /proc's SigCgt), i.e. the arena's command has started."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1)


def descendants(root: int) -> dict[int, str]:
    """Every live process below ``root`` (bots, their sandboxes, workers),
    with its command line."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if stat[0] != "Z":
                parents[int(entry.name)] = int(stat[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return {pid: _command_line(pid) for pid in found}


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in "ZX"  # a zombie is dead, only not reaped yet


# multiprocessing's resource tracker, started with the standings worker
# (spawn), ends when its pipe from the arena closes: once the arena has
# exited, never before. It is given this long to.
TRACKER = "multiprocessing.resource_tracker"
TRACKER_GRACE = 20.0


def left_behind(started: dict[int, str]) -> dict[int, str]:
    """Those of ``started`` (descendants, sampled before the stop) still
    running once the arena has exited: none may be, but the resource
    tracker, which must end on its own."""
    alive = {pid: line for pid, line in started.items() if _running(pid)}
    deadline = time.monotonic() + TRACKER_GRACE
    while any(TRACKER in line for line in alive.values()) and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = {pid: line for pid, line in alive.items() if TRACKER not in line or _running(pid)}
    return alive


def decisions(log: Path) -> int:
    """How many decisions the log holds so far (0 before it is written)."""
    try:
        return sum(r.WhichOneof("record") == "decision" for r in read_log(log).records)
    except RecordError:
        return 0


def aborted(log: Path) -> bool:
    """The log is whole (it has its end record) and says the match was
    interrupted. Raises AssertionError when it is cut short."""
    return _ending(log).termination == scopa_pb2.ABORTED


def _ending(log: Path) -> scopa_pb2.MatchResult:
    contents = read_log(log)
    assert contents.complete, f"{log}: no end record"
    return contents.records[-1].match_ended.result


def check_logs(directory: Path, faultless: bool = True, since: float | None = None) -> int:
    """Every log below ``directory`` (written from ``since`` on, a time.time()
    value) is whole, played to its end or ended ABORTED, and verifies
    against the rules; how many were aborted. ``faultless``: its bots never
    fault (they hang, or play well), so a fault or a forfeit can only be a
    stop recorded as the bot's doing."""
    count = 0
    for log in sorted(directory.glob("**/*.log")):
        if BOT_OUTPUT.search(log.name):
            continue
        if since is not None and log.stat().st_mtime < since:
            continue
        result = _ending(log)
        if faultless:
            ended = scopa_pb2.Termination.Name(result.termination)
            assert result.termination in (scopa_pb2.COMPLETED, scopa_pb2.ABORTED), (
                f"{log}: a stop ended it {ended}: {result.reason}"
            )
            assert not result.faults, f"{log}: a stop became a fault: {result.faults[0]}"
        count += result.termination == scopa_pb2.ABORTED
        replay = replay_log(log)
        assert replay.complete, f"{log}: {replay.status()}"
    return count


def rows(store: Path) -> dict[str, tuple[object, ...]]:
    """Each match of a results store: its status, winner, scores and log."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        found = db.execute("SELECT id, status, winner_side, score0, score1, log_path FROM matches")
        return {r[0]: r[1:] for r in found.fetchall()}
    finally:
        db.close()


def done(store: Path) -> dict[str, tuple[object, ...]]:
    """The finished matches of a store ({} before it exists)."""
    try:
        return {k: v for k, v in rows(store).items() if v[0] == "done"}
    except sqlite3.Error:  # not created yet
        return {}


def check_stores(directory: Path) -> int:
    """Every results store below ``directory`` keeps only finished matches:
    each done match's log is whole and not aborted. How many are done."""
    count = 0
    for store in sorted(directory.glob("**/results.sqlite")):
        for match_id, (_, _, _, _, log_path) in done(store).items():
            if log_path:  # a match forfeited unplayed has none
                assert not aborted(Path(str(log_path))), f"{match_id}: done, but its log aborted"
            count += 1
    return count
