"""`--cluster processes`: worker processes of this machine, without Ray. The
same tournament records the same results and logs as in one process, a worker
killed mid-match costs a replay and no bot a fault, and a head killed with
kill -9 leaves no worker or bot behind and resumes; spectators follow matches on workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena.cluster import ClusterError, open_cluster
from arena.match.outcome import DealBegan, MatchEvent, MatchResult, Termination
from arena.match.settings import ClockSettings, ClusterSettings, MatchSettings, engine_spec
from arena.rules import Play, Variant
from tests.support.logs import logs
from tests.support.paths import ARENA, ROOT
from tests.support.processes import Sessions, ended, live
from tests.support.stores import faults, matches_done, results
from tests.support.waiting import until

pytestmark = [pytest.mark.process, pytest.mark.timeout(240)]

CONFIG = """
name = "processes"
seed = "processes test"
rounds = 2
concurrency = 4
output = "{output}"

[[engine]]
name = "greedy"
spec = "python {root}/engines/greedy/bot.py"

[[engine]]
name = "slow"
spec = "python {root}/tests/cluster/slow_greedy.py"

[[engine]]
name = "random"
spec = "builtin:random"
"""

WORKER = "arena.cluster.processes"
SLOW, GREEDY = f"{ROOT}/tests/cluster/slow_greedy.py", f"{ROOT}/engines/greedy/bot.py"


def tournament(tmp: Path, name: str) -> tuple[Path, Path]:
    output = tmp / name
    path = tmp / f"{name}.toml"
    path.write_text(CONFIG.format(output=output, root=ROOT))
    return path, output


def workers_of(head: int) -> list[int]:
    """The live worker processes whose parent is ``head``."""
    found = []
    for pid in live(WORKER):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat[1]) == head:
            found.append(pid)
    return found


@pytest.fixture
def sessions():
    started = Sessions()
    yield started
    started.close()


def test_worker_processes_record_what_one_process_does_and_replay_a_killed_workers_match(
    tmp_path: Path, sessions: Sessions
) -> None:
    plain, plain_out = tournament(tmp_path, "plain")
    subprocess.run([ARENA, "tournament", str(plain)], check=True, capture_output=True)

    config, output = tournament(tmp_path, "pool")
    store = output / "results.sqlite"
    head = sessions.start(
        [ARENA, "tournament", str(config), "--cluster", "processes"],
        dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    workers = until(
        lambda: len(workers_of(head.pid)) == 2 and workers_of(head.pid), 60, "2 workers"
    )
    until(lambda: matches_done(store) >= 2 or head.poll() is not None, 90, "two matches")
    assert head.poll() is None
    os.kill(workers[0], signal.SIGKILL)  # whatever it plays now is lost, and played again
    _, err = head.communicate(timeout=180)
    assert head.returncode == 0, err

    assert "2 worker processes on this machine" in err
    assert "playing it again from the start" in err and "no bot is charged" in err
    assert len(workers_of(head.pid)) == 0
    # The killed worker's bots died with it (each is launched to die with its parent).
    until(lambda: not live(SLOW) and not live(GREEDY), 10, "no bot left")
    ran, expected = results(store), results(plain_out / "results.sqlite")
    assert ran == expected and all(r[0] == "done" for r in ran.values())
    assert faults(store) == faults(plain_out / "results.sqlite") == []
    assert logs(output) == logs(plain_out)
    # The launched bots' output came back from the workers, named as a local run names it.
    assert sorted(p.name for p in (output / "bots").iterdir()) == sorted(
        p.name for p in (plain_out / "bots").iterdir()
    )


def test_a_head_killed_with_kill_9_leaves_no_worker_and_no_bot_and_resumes(
    tmp_path: Path, sessions: Sessions
) -> None:
    config, output = tournament(tmp_path, "killed")
    store = output / "results.sqlite"
    head = sessions.start(
        [ARENA, "tournament", str(config), "--cluster", "processes"],
        dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers = until(
        lambda: len(workers_of(head.pid)) == 2 and workers_of(head.pid), 60, "2 workers"
    )
    until(lambda: matches_done(store) >= 1 or head.poll() is not None, 90, "a match done")
    bots = until(lambda: live(SLOW), 60, "a slow bot playing")
    assert head.poll() is None
    head.send_signal(signal.SIGKILL)
    ended(head)
    # Their stdin ends with the head: each worker cancels its matches and exits.
    until(
        lambda: not any(Path(f"/proc/{pid}").exists() and pid in live(WORKER) for pid in workers),
        20,
        "the workers to exit",
    )
    until(
        lambda: not set(bots) & set(live(SLOW)),
        20,
        "their bots to stop",
    )
    interrupted = matches_done(store)
    assert 1 <= interrupted < len(results(store))

    # The same command again resumes, and ends as a run never interrupted.
    again = subprocess.run(
        [ARENA, "tournament", str(config), "--cluster", "processes"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert f"resuming ({interrupted} of 12 matches done)" in again.stdout
    plain, plain_out = tournament(tmp_path, "plain")
    subprocess.run([ARENA, "tournament", str(plain)], check=True, capture_output=True)
    assert results(store) == results(plain_out / "results.sqlite")
    assert faults(store) == []


def test_spectators_follow_a_match_on_a_worker_process_and_a_replay_is_not_shown_twice() -> None:
    slow = engine_spec("slow", f"python {SLOW}")
    rnd = engine_spec("random", "builtin:random")

    def settings(seed: int) -> MatchSettings:
        clock = ClockSettings(move_time=2.0)
        return MatchSettings(Variant(), seed=seed, clock=clock, match_id=f"m{seed}")

    async def main() -> None:
        pool = ClusterSettings("processes", workers=2, attempts=2)
        async with open_cluster(pool, notice=lambda text: None) as c:
            # A whole match, followed: its events arrive before it ends, then the rest.
            seen: list[MatchEvent] = []

            async def follow() -> None:
                report = await c.play([slow, rnd], settings(1), spectate=seen.append)
                assert report.result.termination is Termination.COMPLETED
                plays = [e for e in seen if isinstance(e.what, Play)]
                moves = [(d.move.card, d.move.captures) for d in report.decisions if d.move]
                assert [(p.what.card, p.what.captures) for p in plays] == moves
                assert isinstance(seen[-1].what, MatchResult)
                assert all(e.view is None or set(e.view.hands) == {None} for e in seen)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(follow)
                while not any(isinstance(e.what, Play) for e in seen):
                    await trio.sleep(0.05)
                before_end = len(seen)
            assert 0 < before_end < len(seen)

            # Its worker killed mid-match: played again on the other, not shown again.
            replayed: list[MatchEvent] = []
            async with trio.open_nursery() as nursery:

                async def play_it() -> None:
                    report = await c.play([slow, rnd], settings(2), spectate=replayed.append)
                    assert report.result.termination is Termination.COMPLETED
                    assert not report.result.faults

                nursery.start_soon(play_it)
                while sum(isinstance(e.what, Play) for e in replayed) < 5:
                    await trio.sleep(0.05)
                (followed,) = c._followed.values()
                followed.worker.actor.kill()
            assert c.replays == 1
            deals = [e.what.deal_number for e in replayed if isinstance(e.what, DealBegan)]
            assert deals and deals == sorted(set(deals))  # no deal begins twice
            assert not any(isinstance(e.what, MatchResult) for e in replayed)
            assert len(c.workers) == 2  # the killed worker was replaced

    trio.run(main)


def test_workers_that_cannot_start_are_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.cluster.processes as processes

    monkeypatch.setattr(processes, "worker_command", lambda: [sys.executable, "-c", "exit(3)"])

    async def main() -> None:
        async with open_cluster(ClusterSettings("processes", workers=2), notice=print):
            raise AssertionError("no worker started, yet the pool opened")

    with pytest.raises(BaseException) as raised:
        trio.run(main)
    error = raised.value
    while isinstance(error, BaseExceptionGroup):  # the pool starts in the cluster's nursery
        (error,) = error.exceptions
    assert isinstance(error, ClusterError), error
    assert "no worker process could be started" in str(error)
    assert "ended before it was ready" in str(error)
