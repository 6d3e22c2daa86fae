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
from arena.transport import sandbox
from tests.server.test_submissions import bot_dir, participant, submit
from tests.support.clusters import ray_env
from tests.support.paths import ROOT
from tests.support.processes import ended
from tests.support.server import ORGANISER, Server, play_competition, register
from tests.support.stores import charged, results

# A Ray that does not start in time under load pauses a competition until a
# later try (tests/cluster/test_cluster_faults.py): each competition on the
# cluster is given CLUSTER_WAIT to end, and the test as much as all of them.
CLUSTER_WAIT = 300
pytestmark = [
    pytest.mark.process,
    pytest.mark.timeout(2 * CLUSTER_WAIT + 120),
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
    """The competition of COMPETITION named ``name``, played: its results store."""
    config = COMPETITION.format(name=name, cluster=cluster)
    return play_competition(server, config, 6, watch, seconds=CLUSTER_WAIT)


def output(server: Server) -> str:
    """What the server printed, once it has stopped."""
    assert server.proc is not None
    if server.proc.poll() is None:
        server.proc.terminate()
    return server.output_once_ended(20)


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
