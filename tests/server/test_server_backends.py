"""The competition server playing a competition elsewhere than in its own
process: on worker processes of this machine (`[cluster] address =
"processes"`) or on a Ray cluster (a competition's own `[cluster]` table, and
`arena serve --cluster local` for those without one). Uploaded bots (run in
fresh sandboxes by the workers; shipped to Ray's as their content-addressed
archives) and a registered bot record what the server records in one
process: the same results and the same faults, charged to the same bot; a
spectator follows a match played on a worker as one played by the server."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.archive import pack
from arena.transport import sandbox
from tests.server.test_submissions import bot_dir, participant, submit
from tests.support.clusters import ray_env
from tests.support.server import ORGANISER, Server, play_competition, register
from tests.support.stores import charged, results

# A Ray that does not start in time under load pauses a competition until a
# later try (tests/cluster/test_cluster_faults.py): each competition elsewhere
# is given WAIT to end, and the test as much as all of them.
WAIT = 300
pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        sandbox.unavailable() is not None, reason=f"no sandbox here: {sandbox.unavailable()}"
    ),
]

COMPETITION = """
name = "{name}"
seed = "a server on another backend"
bots = ["alice-up", "bob-crash", "carol-greedy"]
rounds = 2
concurrency = 3
{cluster}
[clock]
move_time = "2s"
"""


@dataclass(frozen=True)
class Backend:
    table: str  # the competition's [cluster] table
    announced: str  # what the server prints once it is up
    server_option: tuple[str, ...] = ()  # the same backend for every competition


BACKENDS = {
    "processes": Backend(
        '[cluster]\naddress = "processes"\nworkers = 2\n', "2 worker processes on this machine"
    ),
    "ray": Backend(
        '[cluster]\naddress = "local"\n',
        "cluster local: 2 workers on 1 node",
        ("--cluster", "local"),
    ),
}


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
    return play_competition(server, config, 6, watch, seconds=WAIT)


def output(server: Server) -> str:
    """What the server printed, once it has stopped."""
    assert server.proc is not None
    if server.proc.poll() is None:
        server.proc.terminate()
    return server.output_once_ended(20)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("processes", marks=pytest.mark.timeout(WAIT + 120)),
        pytest.param("ray", marks=pytest.mark.timeout(2 * WAIT + 120)),
    ],
)
def test_a_competition_elsewhere_records_what_one_process_records(
    name: str, tmp_path: Path, bots: dict[str, str], request: pytest.FixtureRequest
) -> None:
    backend = BACKENDS[name]
    greedy = bots["greedy"]  # a registered bot, run by its participant
    if name == "ray":
        pytest.importorskip("ray", reason="the cluster extra is not installed")
        monkeypatch = request.getfixturevalue("monkeypatch")
        for key, value in ray_env(request.getfixturevalue("ray_temp")).items():
            monkeypatch.setenv(key, value)

    alone = serve(tmp_path, "alone")
    try:
        enter_bots(alone, tmp_path / "a", greedy)
        plain = play(alone, "plain")
        runs = [play(alone, "tabled", backend.table, watch=tmp_path / "watched-tabled.log")]
    finally:
        said = output(alone)
    assert said.count(backend.announced) == 1, said

    if backend.server_option:  # the server's own backend, for competitions without a table
        served = serve(tmp_path, "served", *backend.server_option)
        try:
            enter_bots(served, tmp_path / "b", greedy)
            runs.append(play(served, "on-backend", watch=tmp_path / "watched.log"))
        finally:
            said = output(served)
        assert backend.announced in said, said

    expected = results(plain)
    assert all(r[0] == "done" for r in expected.values())
    assert {engine for _, engine, _ in charged(plain)} == {"bob-crash"}
    assert {kind for _, _, kind in charged(plain)} == {"crash"}
    for run in runs:
        assert results(run) == expected
        # bob-crash's crashes are its own, wherever it ran; nobody else is charged.
        assert charged(run) == charged(plain)
