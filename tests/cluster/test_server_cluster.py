"""The competition server on a Ray cluster: a competition's own [cluster]
table, and `arena serve --cluster local` for those without one, play uploaded
bots (shipped to the workers as their content-addressed archives, run there
in fresh sandboxes) and a registered bot, and record what the server records
in one process: the same results and the same faults, charged to the same bot.
Spectators follow a match played on a worker as one played by the server."""

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
from tests.support.clusters import ray_env
from tests.support.paths import ROOT
from tests.support.processes import ended
from tests.support.server import ORGANISER, Server, assert_public_play, auth, register, wait_for
from tests.support.stores import faults, results

pytestmark = [
    pytest.mark.process,
    pytest.mark.timeout(400),
    pytest.mark.skipif(
        sandbox.unavailable() is not None, reason=f"no sandbox here: {sandbox.unavailable()}"
    ),
]

COMPETITION = """
name = "{name}"
seed = "a server on a cluster"
bots = ["alice-up", "bob-crash", "carol-greedy"]
rounds = 2
concurrency = 3
{cluster}
[clock]
move_time = "2s"
"""
TABLE = '[cluster]\naddress = "local"\n'


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


def serve(tmp: Path, name: str, *options: str) -> Server:
    token_file = tmp / "organiser.token"
    token_file.write_text(ORGANISER)
    server = Server(tmp / name, token_file, options=options)
    server.start()
    return server


def enter_bots(server: Server, tmp: Path, greedy: str) -> None:
    """Two uploaded bots (one crashes at its 7th decision of every match) and a registered one."""
    stub = server.stub()
    alice, bob = participant(stub, "alice"), participant(stub, "bob")
    submit(stub, alice, pack(bot_dir(tmp / "alice", "alice-up", "1.0")))
    submit(stub, bob, pack(bot_dir(tmp / "bob", "bob-crash", "1", "--crash-after", "6")))
    register(stub, "carol", "carol-greedy", greedy)


def play(server: Server, name: str, cluster: str = "", watch: Path | None = None) -> Path:
    """Create and start a competition, wait for its end: its results store.
    ``watch``: follow its first match as a spectator, and check every event
    against that match's log, written there."""
    stub = server.stub()
    config = COMPETITION.format(name=name, cluster=cluster)
    comp = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=config), metadata=auth(ORGANISER), timeout=30
    )
    first = stub.ListMatches(spb.CompetitionRef(id=comp.id), timeout=10).matches[0].id
    events = stub.WatchMatch(spb.WatchRequest(id=first), timeout=240)
    stub.StartCompetition(spb.CompetitionRef(id=comp.id), metadata=auth(ORGANISER), timeout=30)
    seen = list(events)
    info = wait_for(stub, comp.id, "finished", 240)
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


def output(server: Server) -> str:
    """What the server printed after its LISTENING line, once it has stopped."""
    assert server.proc is not None
    if server.proc.poll() is None:
        server.proc.terminate()
    return server.proc.communicate(timeout=20)[0]


def charged(store: Path) -> list[tuple[str, str, str]]:
    """Each fault's match, bot and kind (its message names a process id)."""
    return sorted((match, engine, kind) for match, engine, kind, _ in faults(store))


def test_competitions_on_a_cluster_record_what_one_process_records(
    tmp_path: Path, ray_temp: Path, greedy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in ray_env(ray_temp).items():
        monkeypatch.setenv(key, value)

    alone = serve(tmp_path, "alone")
    try:
        enter_bots(alone, tmp_path / "a", greedy)
        plain = play(alone, "plain")
        tabled = play(alone, "tabled", TABLE, watch=tmp_path / "watched-tabled.log")
    finally:
        said = output(alone)
    assert said.count("cluster local: 2 workers on 1 node") == 1, said

    served = serve(tmp_path, "served", "--cluster", "local")
    try:
        enter_bots(served, tmp_path / "b", greedy)
        on_cluster = play(served, "on-cluster", watch=tmp_path / "watched.log")
    finally:
        said = output(served)
    assert "cluster local: 2 workers on 1 node" in said, said

    expected = results(plain)
    assert all(r[0] == "done" for r in expected.values())
    assert results(tabled) == results(on_cluster) == expected
    # bob-crash's crashes are its own, wherever it ran; nobody else is charged.
    assert charged(tabled) == charged(on_cluster) == charged(plain)
    assert {engine for _, engine, _ in charged(plain)} == {"bob-crash"}
    assert {kind for _, _, kind in charged(plain)} == {"crash"}
