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
from arena.transport import sandbox
from tests.server.test_submissions import bot_dir, participant, submit
from tests.support.paths import ROOT
from tests.support.processes import ended
from tests.support.server import ORGANISER, Server, play_competition, register
from tests.support.stores import charged, results

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
    """The competition of COMPETITION named ``name``, played: its results store."""
    config = COMPETITION.format(name=name, cluster=cluster)
    return play_competition(server, config, 6, watch, seconds=200)


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
        said = server.output_once_ended(20)
    assert said.count("2 worker processes on this machine") == 1, said

    expected = results(plain)
    assert all(r[0] == "done" for r in expected.values())
    assert results(pooled) == expected
    # bob-crash's crashes are its own, wherever it ran; nobody else is charged.
    assert charged(pooled) == charged(plain)
    assert {engine for _, engine, _ in charged(plain)} == {"bob-crash"}
