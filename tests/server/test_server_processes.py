"""The competition server with a competition's `[cluster] address =
"processes"`: its uploaded bots (run in fresh sandboxes by the worker
processes) and a registered bot record what the server records in one
process: the same results and the same faults, charged to the same bot; a
spectator follows a match played on a worker as one played by the server."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.archive import pack
from arena.replay import replay_log
from arena.transport import sandbox
from arena.wire.v1 import server_pb2 as spb
from tests.server.test_submissions import bot_dir, participant, submit
from tests.support.paths import ROOT
from tests.support.processes import ended
from tests.support.server import ORGANISER, Server, assert_public_play, auth, register, wait_for
from tests.support.stores import faults, results

pytestmark = [
    pytest.mark.process,
    pytest.mark.timeout(300),
    pytest.mark.skipif(
        sandbox.unavailable() is not None, reason=f"no sandbox here: {sandbox.unavailable()}"
    ),
]

COMPETITION = """
name = "{name}"
seed = "a server on worker processes"
bots = ["alice-up", "bob-crash", "carol-greedy"]
rounds = 2
concurrency = 3
{cluster}
[clock]
move_time = "2s"
"""
TABLE = '[cluster]\naddress = "processes"\nworkers = 2\n'


@pytest.fixture
def greedy() -> Iterator[str]:
    """A registered bot's process, run by its participant: its address."""
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "engines/greedy/bot.py")], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    yield proc.stdout.readline().split()[1]
    proc.terminate()
    ended(proc, 10)


def play(server: Server, name: str, cluster: str = "", watch: Path | None = None) -> Path:
    """Create and start a competition, wait for its end: its results store.
    ``watch``: follow its first match, and check every event against its log."""
    stub = server.stub()
    config = COMPETITION.format(name=name, cluster=cluster)
    comp = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=config), metadata=auth(ORGANISER), timeout=30
    )
    first = stub.ListMatches(spb.CompetitionRef(id=comp.id), timeout=10).matches[0].id
    events = stub.WatchMatch(spb.WatchRequest(id=first), timeout=200)
    stub.StartCompetition(spb.CompetitionRef(id=comp.id), metadata=auth(ORGANISER), timeout=30)
    seen = list(events)
    info = wait_for(stub, comp.id, "finished", 200)
    assert info.matches_done == info.matches_total == 6
    if watch is not None:
        watch.write_bytes(stub.GetMatchLog(spb.MatchRef(id=first), timeout=10).data)
        deals = replay_log(watch).deals
        steps = [step for deal in deals for step in deal.steps if step.move is not None]
        plays = [event for event in seen if event.HasField("play")]
        assert len(plays) == len(steps) > 0
        for event, step in zip(plays, steps, strict=True):
            assert_public_play(event, step)
        assert seen[-1].HasField("match_end")
    return server.data / comp.id / "results.sqlite"


def charged(store: Path) -> list[tuple[str, str, str]]:
    """Each fault's match, bot and kind (its message names a process id)."""
    return sorted((match, engine, kind) for match, engine, kind, _ in faults(store))


def test_a_competition_on_worker_processes_records_what_one_process_records(
    tmp_path: Path, greedy: str
) -> None:
    token_file = tmp_path / "organiser.token"
    token_file.write_text(ORGANISER)
    server = Server(tmp_path / "server", token_file)
    server.start()
    try:
        stub = server.stub()
        alice, bob = participant(stub, "alice"), participant(stub, "bob")
        submit(stub, alice, pack(bot_dir(tmp_path / "alice", "alice-up", "1.0")))
        submit(stub, bob, pack(bot_dir(tmp_path / "bob", "bob-crash", "1", "--crash-after", "6")))
        register(stub, "carol", "carol-greedy", greedy)
        plain = play(server, "plain")
        pooled = play(server, "pooled", TABLE, watch=tmp_path / "watched.log")
    finally:
        assert server.proc is not None
        if server.proc.poll() is None:
            server.proc.terminate()
        said = server.proc.communicate(timeout=20)[0]
    assert said.count("2 worker processes on this machine") == 1, said

    expected = results(plain)
    assert all(r[0] == "done" for r in expected.values())
    assert results(pooled) == expected
    # bob-crash's crashes are its own, wherever it ran; nobody else is charged.
    assert charged(pooled) == charged(plain)
    assert {engine for _, engine, _ in charged(plain)} == {"bob-crash"}
