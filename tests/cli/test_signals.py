"""SIGTERM, a service manager's stop, stops each long-running command as Ctrl-C
does: matches in flight end ABORTED in their logs, the store keeps only what
finished (a run resumes), every process the arena started is gone by the time
it exits; the status is 143 where Ctrl-C gives its own. Real arena processes,
real bots, real signals. (`arena match` has its own in tests/referee/test_interrupt.py.)"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.errors import RecordError
from arena.record import read_log
from arena.wire.v1 import scopa_pb2
from tests.support.bots import bot
from tests.support.processes import ended, live_pids

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")

# Each stop and the status it gives a batch command.
STOPS = [(signal.SIGINT, 130), (signal.SIGTERM, 143)]
IDS = ["SIGINT", "SIGTERM"]


@pytest.fixture
def tag() -> str:
    """A marker on the command lines of the bots a test launches."""
    return f"--tag=t{uuid.uuid4().hex[:12]}"


def hanging(flag: Path, tag: str) -> str:
    """A bot that plays four moves, then does not answer while ``flag`` exists
    (within a 30 s move time): the same engine for the stopped run and the
    resumed one, which removes the flag. Unsandboxed, to see the flag."""
    return f"{sys.executable} {ROOT / 'tests/bots/hang_while.py'} {flag} {tag}"


def descendants(root: int) -> set[int]:
    """Every live process below ``root``: bots, their sandboxes, workers."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if stat[0] != "Z":
                parents[int(entry.name)] = int(stat[1])
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def still_alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def decisions(log: Path) -> int:
    try:
        return sum(r.WhichOneof("record") == "decision" for r in read_log(log).records)
    except RecordError:  # not written yet
        return 0


def wait_until(condition: Callable[[], bool], what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def stop_and_check(
    proc: subprocess.Popen[str], stop: signal.Signals, status: int, tag: str
) -> tuple[str, str]:
    """Send ``stop`` with everything up; the arena exits with ``status``, every
    process below it and every tagged bot already gone."""
    started = descendants(proc.pid)
    assert started, "the arena started no process"
    proc.send_signal(stop)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == status, (out, err)
    assert "Traceback" not in err and "warning" not in err, err
    assert still_alive(started) == set() and live_pids(tag) == [], err
    return out, err


def check_aborted(logs: Path) -> int:
    """Every log under ``logs`` is whole: played to its end or ended ABORTED,
    and `arena replay` verifies it. Returns how many were aborted."""
    aborted = 0
    for log in sorted(logs.glob("**/*.log")):
        contents = read_log(log)
        assert contents.complete, log
        if contents.records[-1].match_ended.result.termination == scopa_pb2.ABORTED:
            aborted += 1
            replay = subprocess.run([ARENA, "replay", str(log)], capture_output=True, text=True)
            assert replay.returncode == 0, replay.stdout + replay.stderr
    return aborted


def rows(store: Path) -> dict[str, tuple[object, ...]]:
    db = sqlite3.connect(store)
    try:
        found = db.execute("SELECT id, status, winner_side, score0, score1 FROM matches")
        return {r[0]: r[1:] for r in found.fetchall()}
    finally:
        db.close()


def done(store: Path) -> dict[str, tuple[object, ...]]:
    try:
        return {k: v for k, v in rows(store).items() if v[0] == "done"}
    except sqlite3.Error:  # not created yet
        return {}


TOURNAMENT = """
name = "signals"
rounds = 1
concurrency = 6
seed = 7
output = "{output}"

[clock]
move_time = "30s"

[sandbox]
mode = "off"

[[engine]]
name = "greedy"
spec = "builtin:greedy"

[[engine]]
name = "random"
spec = "{random}"

[[engine]]
name = "slow"
spec = "{slow}"
"""


@pytest.mark.parametrize(("stop", "status"), STOPS, ids=IDS)
def test_a_stopped_tournament_keeps_its_finished_matches_and_resumes(stop, status, tag, tmp_path):
    """The two matches without the slow engine finish; two with it are in
    flight when the signal comes (the other two wait for their pair's first)."""
    out = tmp_path / "t"
    config = tmp_path / "t.toml"
    flag = tmp_path / "hang"
    flag.touch()
    slow = hanging(flag, tag)
    config.write_text(TOURNAMENT.format(output=out, random=bot("random", tag), slow=slow))
    proc = subprocess.Popen(
        [ARENA, "tournament", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    store = out / "results.sqlite"
    logs = out / "logs"
    wait_until(
        lambda: len(done(store)) == 2 and sum(decisions(p) >= 4 for p in logs.glob("*.log")) == 4,
        "the tournament never had two matches done and two in flight",
    )
    stop_and_check(proc, stop, status, tag)
    finished = done(store)
    assert len(finished) == 2 and len(rows(store)) == 6
    assert check_aborted(logs) == 2

    flag.unlink()
    again = subprocess.run([ARENA, "tournament", str(config)], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert "resuming (2 of 6 matches done)" in again.stdout
    after = done(store)
    assert len(after) == 6 and all(after[k] == v for k, v in finished.items())
    assert check_aborted(logs) == 0  # the aborted matches were played again


def gauntlet(mine: str) -> list[str]:
    """Eight matches; the first halves of its four pairs (random, greedy,
    traditional, ismcts) start at once."""
    return [ARENA, "gauntlet", "--engine", f"mine={mine}", "--sets", "1", "--seed", "3"]


def sprt(test: str) -> list[str]:
    """At most two duplicate pairs against random; their first halves start at once."""
    engines = ["--engine", f"test={test}", "--engine", "base=builtin:random"]
    return [ARENA, "sprt", *engines, "--max-sets", "2", "--seed", "3"]


@pytest.mark.parametrize(("stop", "status"), STOPS, ids=IDS)
@pytest.mark.parametrize(
    ("command", "in_flight"), [(gauntlet, 4), (sprt, 2)], ids=["gauntlet", "sprt"]
)
def test_a_stopped_gauntlet_or_sprt_resumes(command, in_flight, stop, status, tag, tmp_path):
    """Every match has the slow engine: those started are in flight when the signal comes."""
    out, flag = tmp_path / "out", tmp_path / "hang"
    flag.touch()
    options = ["--move-time", "30s", "--concurrency", "6", "--output", str(out), "--sandbox", "off"]
    argv = command(hanging(flag, tag)) + options
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    logs = out / "logs"
    wait_until(
        lambda: sum(decisions(p) >= 4 for p in logs.glob("*.log")) == in_flight,
        f"never {in_flight} matches in flight",
    )
    stop_and_check(proc, stop, status, tag)
    assert done(out / "results.sqlite") == {}
    assert check_aborted(logs) == in_flight

    flag.unlink()
    again = subprocess.run(argv, capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr
    assert done(out / "results.sqlite") and check_aborted(logs) == 0


COMPETITION = """
name = "signals"
bots = ["alice-slow", "bob-random"]
rounds = 1
concurrency = 2
[clock]
move_time = "30s"
"""


@pytest.mark.parametrize(("stop", "status"), [(signal.SIGINT, 0), (signal.SIGTERM, 143)], ids=IDS)
def test_a_stopped_server_ends_its_workers_and_replays_its_matches_on_restart(
    stop, status, tag, tmp_path
):
    """`arena serve` with its site, a competition's matches in flight: the
    signal ends them ABORTED, every process the server started (the
    standings worker) is gone when it exits, and the next start plays them."""
    from arena.wire.v1 import server_pb2 as spb
    from tests.support.server import ORGANISER, Server, auth, register, wait_for

    flag = tmp_path / "hang"  # made once registered: the check's decisions do not count
    bots = [
        subprocess.Popen(
            [*hanging(flag, tag).split(), "--listen", "127.0.0.1:0"],
            stdout=subprocess.PIPE,
            text=True,
        ),
        subprocess.Popen(bot("random", tag).split(), stdout=subprocess.PIPE, text=True),
    ]
    try:
        addresses = [p.stdout.readline().split()[1] for p in bots if p.stdout]
        token_file = tmp_path / "organiser.token"
        token_file.write_text(ORGANISER)
        server = Server(tmp_path / "data", token_file, options=("--http", "127.0.0.1:0"))
        server.start()
        stub = server.stub()
        register(stub, "alice", "alice-slow", addresses[0])
        register(stub, "bob", "bob-random", addresses[1])
        flag.touch()
        request = spb.CreateCompetitionRequest(config=COMPETITION)
        comp = stub.CreateCompetition(request, metadata=auth(ORGANISER), timeout=30)
        ref = spb.CompetitionRef(id=comp.id)
        stub.StartCompetition(ref, metadata=auth(ORGANISER), timeout=10)
        data = tmp_path / "data"
        wait_until(
            lambda: any(decisions(p) >= 4 for p in data.glob("**/*.log")), "no match in flight"
        )
        assert server.proc is not None
        started = descendants(server.proc.pid)
        server.proc.send_signal(stop)
        ended(server.proc, 30)
        assert server.proc.returncode == status
        assert still_alive(started) == set()
        assert check_aborted(data) >= 1

        flag.unlink()
        server.start()
        assert wait_for(server.stub(), comp.id, "finished").matches_done == 1
        server.stop()
    finally:
        for p in bots:
            p.terminate()
            ended(p, 10)
