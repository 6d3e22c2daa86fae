"""A passing fault of the host is not the end of a competition: on the
competition server, a Ray cluster that refuses its address, or whose head is
killed mid-competition, pauses the competition with the reason; it is tried
again with a growing wait, the organiser sees why and may resume it at once,
and once the cluster is there it is played to the end, each match recorded
once and no bot charged. The server itself stays up throughout: a Ray driver
ends its whole process 60 s after its head is gone, unless told otherwise."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from arena.broker import Broker
from arena.cluster.session import unreachable
from arena.server.competitions import CompetitionManager, waiting_for_cluster
from arena.server.storage import CompetitionStatus
from arena.wire.v1 import server_pb2 as spb
from tests.support.clusters import free_port, ray_env
from tests.support.manager import create as create_here
from tests.support.manager import status, storage_with_bots
from tests.support.manager import until as until_here
from tests.support.paths import ARENA, RAY
from tests.support.processes import Sessions
from tests.support.server import ORGANISER, Server, auth, wait_for
from tests.support.stores import faults, matches_done, results
from tests.support.waiting import until

# Ray starts in seconds, but slower on a loaded machine than the suite's default limit allows.
pytestmark = [pytest.mark.process, pytest.mark.timeout(400)]

# Ray replaces 127.0.0.1 by the machine's network address, not the rest of 127.0.0.0/8.
HEAD_IP, NODE_IP = "127.0.0.2", "127.0.0.3"
COMPETITION = """
name = "{name}"
seed = "a cluster that comes and goes"
bots = {bots}
rounds = {rounds}
concurrency = 2
[clock]
move_time = "2s"
[cluster]
address = "{address}"
workers = 1
{node}"""
QUICK = '["builtin:random", "builtin:greedy"]'
# A match of two seconds at least (the search thinks 50 ms a decision, one match
# at a time on the one worker): 60 of them outlast Ray's 60 s after the head is lost.
THINKING = '["builtin:random", "builtin:search --think 0.05"]'
MATCHES = 60


def start_head(sessions: Sessions, env: dict[str, str], port: int, temp: Path, cpus: int) -> None:
    """A Ray head node on loopback, listening once this returns."""
    sessions.start(
        [RAY, "start", "--head", f"--port={port}", f"--node-ip-address={HEAD_IP}",
         "--include-dashboard=false", f"--temp-dir={temp}", f"--num-cpus={cpus}",
         "--disable-usage-stats", "--block"],
        env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    until(lambda: unreachable(f"{HEAD_IP}:{port}") is None, 120, "the Ray head to listen")


def start_node(
    sessions: Sessions, env: dict[str, str], address: str, said: Path
) -> subprocess.Popen[str]:
    """A second Ray node on loopback (NODE_IP), joining the head at ``address``,
    once it has joined (it says so in ``said``); told to outwait a lost head,
    as the arena tells its own driver."""
    with said.open("w") as out:
        node = sessions.start(
            [RAY, "start", f"--address={address}", f"--node-ip-address={NODE_IP}", "--num-cpus=1",
             "--disable-usage-stats", "--block"],
            {**env, "RAY_gcs_rpc_server_reconnect_timeout_s": "3600"},
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    until(lambda: "Ray runtime started" in said.read_text(), 120, "the second node to join")
    return node


def create(server: Server, config: str) -> str:
    stub = server.stub()
    request = spb.CreateCompetitionRequest(config=config)
    comp_id = stub.CreateCompetition(request, metadata=auth(ORGANISER), timeout=30).id
    stub.StartCompetition(spb.CompetitionRef(id=comp_id), metadata=auth(ORGANISER), timeout=30)
    return comp_id


def reason_says(server: Server, comp_id: str, words: str, seconds: float) -> spb.CompetitionInfo:
    """The competition once it is paused with ``words`` in its reason."""

    def paused() -> spb.CompetitionInfo | None:
        info = server.stub().GetCompetition(spb.CompetitionRef(id=comp_id), timeout=10)
        return info if info.status == "paused" and words in info.reason else None

    return until(paused, seconds, f"paused: {words}")


def remote(server: Server, *words: str) -> subprocess.CompletedProcess[str]:
    command = [ARENA, "remote", "--server", server.address, "--token", ORGANISER, *words]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.fixture
def ray_environment(ray_temp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's Ray in the test's own temp directory (tests.support.clusters)."""
    for key, value in ray_env(ray_temp).items():
        monkeypatch.setenv(key, value)


def new_server(tmp_path: Path) -> Server:
    token_file = tmp_path / "organiser.token"
    token_file.write_text(ORGANISER)
    return Server(tmp_path / "data", token_file)


@pytest.fixture
def server(tmp_path: Path, ray_environment: None) -> Iterator[Server]:
    served = new_server(tmp_path)
    served.start()
    yield served
    served.stop()


@pytest.mark.slow
def test_a_cluster_that_does_not_start_pauses_the_competition_and_a_restart_tries_it(
    tmp_path: Path, ray_environment: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ray given no time to start its GCS server: every start of a local
    # instance fails, as one did on a machine at load 47.
    monkeypatch.setenv("RAY_gcs_server_port_wait_time_s", "0")
    server = new_server(tmp_path)
    server.start()
    try:
        config = COMPETITION.format(name="s", bots=QUICK, rounds=2, address="local", node="")
        comp_id = create(server, config)
        paused = reason_says(server, comp_id, "try 2 failed", 120)
        assert "the local Ray instance did not start: Timed out waiting for file" in paused.reason
    finally:
        server.stop()
    monkeypatch.delenv("RAY_gcs_server_port_wait_time_s")
    server.start()  # a restarted server tries it again at once
    try:
        done = wait_for(server.stub(), comp_id, "finished", 240)
        assert done.matches_done == done.matches_total == 2 and done.reason == ""
    finally:
        server.stop()


@pytest.mark.slow
def test_a_cluster_that_refuses_pauses_the_competition_until_it_is_there(
    server: Server, ray_temp: Path, sessions: Sessions
) -> None:
    port = free_port()
    address = f"{HEAD_IP}:{port}"
    config = COMPETITION.format(name="c", bots=QUICK, rounds=2, address=address, node="")
    comp_id = create(server, config)
    first = reason_says(server, comp_id, "try 1 failed", 120)
    assert first.reason.startswith("waiting for its cluster (try 1 failed; the next in 5 s")
    assert f"cannot reach the Ray cluster at {address}" in first.reason
    assert "\n" not in first.reason
    # Tried again by itself, after a longer wait; the organiser sees why.
    second = reason_says(server, comp_id, "try 2 failed", 120)
    assert "the next in 10 s" in second.reason
    shown = remote(server, "status", comp_id)
    assert shown.returncode == 0 and "paused" in shown.stdout
    assert "reason: waiting for its cluster" in shown.stdout

    # The cluster comes: a later try finds it, with nobody's help.
    start_head(sessions, ray_env(ray_temp), port, ray_temp, cpus=1)
    done = wait_for(server.stub(), comp_id, "finished", 240)
    assert done.matches_done == done.matches_total == 2 and done.reason == ""
    assert server.proc is not None and server.proc.poll() is None, server.last_said()


@pytest.mark.slow
def test_a_lost_head_pauses_the_competition_and_never_takes_the_server_with_it(
    server: Server, ray_temp: Path, sessions: Sessions, tmp_path: Path
) -> None:
    env = ray_env(ray_temp)
    port = free_port()
    address = f"{HEAD_IP}:{port}"
    # The head has no CPU: the match worker is placed on the second node,
    # whose raylet outlives a lost head (as a machine of a real cluster may).
    # The server joins through that node too: Ray ends a driver whose own
    # node is gone (it joins through the head when one runs on its machine).
    start_head(sessions, env, port, ray_temp, cpus=0)
    node = start_node(sessions, env, address, tmp_path / "node.txt")
    config = COMPETITION.format(
        name="k", bots=THINKING, rounds=MATCHES, address=address, node=f'node = "{NODE_IP}"'
    )
    comp_id = create(server, config)
    store = server.data / comp_id / "results.sqlite"
    until(lambda: matches_done(store) >= 2, 240, "two matches played on the cluster")
    sessions.kill(sessions.started[0])  # the head node, as a crash would

    # Ray ends a driver's process 60 s after its head is gone: the server
    # plays on, on the node that is left.
    lost_at = time.monotonic()
    until(lambda: time.monotonic() - lost_at > 70, 80, "Ray's 60 s")
    assert server.proc is not None and server.proc.poll() is None, server.last_said()
    info = server.stub().GetCompetition(spb.CompetitionRef(id=comp_id), timeout=10)
    assert info.status == "running" and matches_done(store) < MATCHES, "too few matches"

    # And now the match worker dies: with no head, nothing starts another one.
    # (Its node stays: the server joined through it, and Ray would end the
    # server's process with it while the server's Ray session is open.)
    workers = subprocess.run(["pgrep", "-f", "^ray::MatchWorker"], capture_output=True, text=True)
    assert workers.stdout.split(), "no match worker process found"
    for pid in workers.stdout.split():
        os.kill(int(pid), signal.SIGKILL)
    lost = reason_says(server, comp_id, "lost its head", 120)
    assert lost.reason.startswith("waiting for its cluster (try 1 failed")

    # The head comes back, a new cluster: the machine's node joins it afresh.
    sessions.kill(node)
    start_head(sessions, env, port, ray_temp, cpus=1)
    start_node(sessions, env, address, tmp_path / "node-again.txt")
    resumed = remote(server, "resume", comp_id)  # at once, not at the next try
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    done = wait_for(server.stub(), comp_id, "finished", 240)
    assert done.matches_done == done.matches_total == MATCHES
    assert all(r[0] == "done" for r in results(store).values())
    assert faults(store) == []  # the lost head is no bot's fault
    assert server.proc.poll() is None, server.last_said()


def test_a_tournament_on_a_cluster_that_refuses_stops_at_once_in_one_line(
    tmp_path: Path, ray_environment: None
) -> None:
    """Ray itself retries an address where nothing listens for many minutes."""
    address = f"{HEAD_IP}:{free_port()}"
    config = tmp_path / "t.toml"
    config.write_text(
        f'name = "t"\noutput = "{tmp_path / "out"}"\n'
        '[[engine]]\nname = "random"\nspec = "builtin:random"\n'
        '[[engine]]\nname = "greedy"\nspec = "builtin:greedy"\n'
    )
    done = subprocess.run(
        [ARENA, "tournament", str(config), "--cluster", address],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("arena: ")]
    assert said == [f"arena: error: cannot reach the Ray cluster at {address}: Connection refused"]
    assert "Traceback" not in done.stderr
    assert matches_done(tmp_path / "out" / "results.sqlite") == 0


def test_a_competition_the_organiser_paused_is_not_started_again_by_its_cluster(
    tmp_path: Path, ray_environment: None
) -> None:
    """The organiser pauses a competition as it starts, and its cluster then
    fails: it stays paused, saying what happened, and no try is scheduled."""
    data = tmp_path / "data"
    storage = storage_with_bots(data, {})
    address = f"{HEAD_IP}:{free_port()}"
    config = COMPETITION.format(name="p", bots=QUICK, rounds=2, address=address, node="")
    comp_id = create_here(storage, data, "cpaused", config)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            manager = CompetitionManager(nursery, storage, data, Broker())
            manager.start(comp_id)
            manager.pause(comp_id)  # before the run has reached its cluster
            await until_here(lambda: status(storage, comp_id) is CompetitionStatus.PAUSED, "paused")
            nursery.cancel_scope.cancel()

    try:
        trio.run(main)
        competition = storage.competition(comp_id)
    finally:
        storage.close()
    assert competition is not None and competition.status is CompetitionStatus.PAUSED
    assert competition.reason.startswith(f"cannot reach the Ray cluster at {address}")
    assert not waiting_for_cluster(competition)
