"""A competition never takes the server down: what cannot work is refused at
create, what fails later is FAILED with its reason and stays so across
restarts; competitions keep the bot addresses they were made with; the
listing and every count agree. A competition has one run at a time, and how
a run ended is decided from what holds then: a start that came while it
paused means go on."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time

import grpc
import pytest
import trio

from arena.broker import Broker
from arena.results.layout import competition_layout
from arena.results.store import open_store
from arena.server.competitions import CompetitionManager
from arena.server.storage import CompetitionStatus
from arena.wire.v1 import server_pb2 as spb
from tests.support.manager import create as create_here
from tests.support.manager import status, storage_with_bots, until
from tests.support.paths import ROOT
from tests.support.processes import ended
from tests.support.server import ORGANISER, auth, register, wait_for

pytestmark = pytest.mark.process

TWO = """
name = "{name}"
bots = ["alice-greedy", "bob-random"]
rounds = {rounds}
concurrency = 2
{extra}
[clock]
move_time = "1s"
"""


def two(name: str, rounds: int = 1, extra: str = "", tables: str = "") -> str:
    """A competition of alice-greedy and bob-random; ``extra`` top-level keys, then ``tables``."""
    return TWO.format(name=name, rounds=rounds, extra=extra) + tables


SCOPONE = 'variant = "scopone"'


def expect(code, call, *args, **kwargs) -> str:
    with pytest.raises(grpc.RpcError) as e:
        call(*args, timeout=30, **kwargs)
    assert e.value.code() == code, e.value.details()
    return e.value.details()


def create(stub, config: str) -> spb.CompetitionInfo:
    request = spb.CreateCompetitionRequest(config=config)
    return stub.CreateCompetition(request, metadata=auth(ORGANISER), timeout=30)


def control(stub, method: str, comp_id: str) -> spb.CompetitionInfo:
    call = getattr(stub, method)
    return call(spb.CompetitionRef(id=comp_id), metadata=auth(ORGANISER), timeout=10)


def alive(server) -> bool:
    return server.proc is not None and server.proc.poll() is None


def test_a_scopone_competition_of_two_bots_is_refused_unless_allowed(server, bots):
    stub = server.stub()
    register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    detail = expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.CreateCompetition,
        spb.CreateCompetitionRequest(config=two("s", extra=SCOPONE)),
        metadata=auth(ORGANISER),
    )
    assert "partners served by the same remote bot" in detail
    assert "allow_shared_partners = true" in detail and "\n" not in detail
    assert stub.ListCompetitions(spb.ListCompetitionsRequest(), timeout=10).competitions == []
    # With the organiser's explicit allowance it is played to the end.
    allowed = two("s", extra=SCOPONE + "\nallow_shared_partners = true")
    comp = create(stub, allowed)
    control(stub, "StartCompetition", comp.id)
    info = wait_for(stub, comp.id, "finished")
    assert info.matches_done == info.matches_total == comp.matches_total > 0
    assert alive(server)


def test_addresses_are_normalized_and_undialable_ones_refused(server, bots):
    stub = server.stub()
    port = bots["greedy"].rsplit(":", 1)[1]
    alice = register(stub, "alice", "alice-greedy", f"ipv4:127.0.0.1:{port}")
    bob_port = bots["random"].rsplit(":", 1)[1]
    register(stub, "bob", "bob-random", f"localhost:{bob_port}")
    listed = {b.name: b.address for b in stub.ListBots(spb.ListBotsRequest(), timeout=10).bots}
    assert listed == {"alice-greedy": f"127.0.0.1:{port}", "bob-random": f"127.0.0.1:{bob_port}"}
    for address, words in [
        ("python bot.py", "spaces"),
        ("unix:relative.sock", "absolute path"),
        ("127.0.0.1", "HOST:PORT"),
        ("127.0.0.1:70000", "port from 1 to 65535"),
    ]:
        detail = expect(
            grpc.StatusCode.INVALID_ARGUMENT,
            stub.RegisterBot,
            spb.RegisterBotRequest(name="other", address=address),
            metadata=auth(alice),
        )
        assert words in detail
    # The bot registered as ipv4:127.0.0.1:PORT plays its competition to the end.
    comp = create(stub, two("v4", 1))
    control(stub, "StartCompetition", comp.id)
    info = wait_for(stub, comp.id, "finished")
    assert (info.matches_done, info.matches_total) == (1, 1) and alive(server)
    matches = stub.ListMatches(spb.CompetitionRef(id=comp.id), timeout=10).matches
    assert all(m.termination == "completed" for m in matches), matches


def test_a_competition_that_cannot_run_fails_and_the_server_serves_on(server, bots):
    """The death loop of old: a stored running competition that can never be
    played (here: one remote bot in partner seats, left by an older server)."""
    stub = server.stub()
    register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    good = create(stub, two("good", 1))
    server.stop()
    db = sqlite3.connect(server.data / "server.sqlite")
    engines = {"alice-greedy": bots["greedy"], "bob-random": bots["random"]}
    with db:
        db.execute(
            "INSERT INTO competitions(id, name, config, bots, status, created_at, engines) "
            "VALUES ('cdead', 's', ?, ?, 'running', '2026-01-01T00:00:00+00:00', ?)",
            (two("s", extra=SCOPONE), json.dumps(list(engines)), json.dumps(engines)),
        )
    db.close()
    for _ in range(2):  # and again after a restart: the failure is not re-entered
        server.start()
        stub = server.stub()
        info = wait_for(stub, "cdead", "failed", seconds=60)
        assert "partners served by the same remote bot" in info.reason
        assert alive(server)
        listed = {
            c.id: c
            for c in stub.ListCompetitions(spb.ListCompetitionsRequest(), timeout=10).competitions
        }
        assert listed["cdead"].status == "failed" and listed["cdead"].reason == info.reason
        detail = expect(
            grpc.StatusCode.FAILED_PRECONDITION,
            stub.ResumeCompetition,
            spb.CompetitionRef(id="cdead"),
            metadata=auth(ORGANISER),
        )
        assert "is failed" in detail and "partners" in detail
        server.stop()
    server.start()
    stub = server.stub()
    control(stub, "StartCompetition", good.id)  # everything else is served as before
    assert wait_for(stub, good.id, "finished").matches_done == 1


def test_a_competition_whose_store_is_damaged_fails_and_is_still_listed(server, bots):
    stub = server.stub()
    register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    comp = create(stub, two("broken", 1))
    (server.data / comp.id / "results.sqlite").write_bytes(b"not a database at all " * 100)
    control(stub, "StartCompetition", comp.id)
    info = wait_for(stub, comp.id, "failed", seconds=60)
    assert info.reason and "\n" not in info.reason and alive(server)
    listed = stub.ListCompetitions(spb.ListCompetitionsRequest(), timeout=10).competitions
    assert [(c.id, c.status, c.reason) for c in listed] == [(comp.id, "failed", info.reason)]


@pytest.mark.slow
def test_a_bot_updated_mid_competition_does_not_stop_it_across_a_restart(server, bots, tag):
    stub = server.stub()
    alice = register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    comp = create(stub, two("long", 40)).id
    control(stub, "StartCompetition", comp)
    deadline = time.monotonic() + 60
    while stub.GetCompetition(spb.CompetitionRef(id=comp), timeout=10).matches_done < 5:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    other = subprocess.Popen(
        [sys.executable, str(ROOT / "engines/greedy/bot.py"), tag],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        new_address = other.stdout.readline().split()[1]
        stub.UpdateBot(
            spb.UpdateBotRequest(name="alice-greedy", address=new_address),
            metadata=auth(alice),
            timeout=60,
        )
        server.stop(signal.SIGKILL)
        server.start()
        stub = server.stub()
        control(stub, "PauseCompetition", comp)
        paused = wait_for(stub, comp, "paused")
        assert paused.reason == "" and paused.matches_done < 40
        control(stub, "ResumeCompetition", comp)
        info = wait_for(stub, comp, "finished", seconds=240)
        assert (info.matches_done, info.matches_total) == (40, 40)
        # The competition kept its snapshot; the registry moved on for later ones.
        bots_now = {
            b.name: b.address for b in stub.ListBots(spb.ListBotsRequest(), timeout=10).bots
        }
        assert bots_now["alice-greedy"] == new_address
        later = create(stub, two("later", 1))
        control(stub, "StartCompetition", later.id)
        assert wait_for(stub, later.id, "finished").matches_done == 1
    finally:
        other.terminate()
        ended(other, 10)


def test_the_listing_and_every_count_agree_and_bad_values_name_their_key(server, bots):
    stub = server.stub()
    register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    first = create(stub, two("first", 3))
    second = create(stub, two("second", 1))
    assert (first.matches_done, first.matches_total) == (0, 3)
    started = control(stub, "StartCompetition", second.id)
    assert started.matches_total == 1
    listed = stub.ListCompetitions(spb.ListCompetitionsRequest(), timeout=10).competitions
    assert [c.id for c in listed] == [first.id, second.id]
    assert listed[0].status == "created" and listed[0].matches_total == 3
    assert listed[0].seed_commitment == first.seed_commitment and len(first.seed_commitment) == 64
    assert listed[0].created_at.startswith("20") and listed[0].created_at == first.created_at
    wait_for(stub, second.id, "finished")
    again = {
        c.id: c
        for c in stub.ListCompetitions(spb.ListCompetitionsRequest(), timeout=10).competitions
    }
    status = stub.GetCompetition(spb.CompetitionRef(id=second.id), timeout=10)
    assert again[second.id] == status and status.matches_done == status.matches_total == 1
    sprt = two("t", 1, extra='format = "sprt"')
    for extra, words in [
        (
            '[sprt]\ntest = "alice-greedy"\nbase = "bob-random"\nelo0 = "x"\n',
            "[sprt]: elo0 must be",
        ),
        (
            '[sprt]\ntest = "alice-greedy"\nbase = "bob-random"\nalpha = true\n',
            "[sprt]: alpha must be",
        ),
    ]:
        detail = expect(
            grpc.StatusCode.INVALID_ARGUMENT,
            stub.CreateCompetition,
            spb.CreateCompetitionRequest(config=sprt + extra),
            metadata=auth(ORGANISER),
        )
        assert words in detail and "\n" not in detail
    detail = expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.CreateCompetition,
        spb.CreateCompetitionRequest(config=two("p", 1, tables='[policy]\nstrikes = "x"\n')),
        metadata=auth(ORGANISER),
    )
    assert "[policy]: strikes must be an integer, not 'x'" in detail


def test_a_failed_competition_s_unplayed_matches_are_refused_to_watchers_at_once(server, bots):
    """A watcher of a match that will never be played is told so, instead of
    waiting for plays that will not come (as when a cluster does not start)."""
    stub = server.stub()
    register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    comp = create(stub, two("halted", rounds=3))
    control(stub, "StartCompetition", comp.id)
    control(stub, "PauseCompetition", comp.id)
    wait_for(stub, comp.id, "paused")
    ref = spb.CompetitionRef(id=comp.id)
    pending = [m.id for m in stub.ListMatches(ref, timeout=10).matches if m.status == "pending"]
    assert pending, "the pause came too late to leave a match pending"
    server.stop()
    # Stored as running with a configuration it can no longer play (one remote
    # bot in partner seats): the restarted server fails it when it resumes it.
    db = sqlite3.connect(server.data / "server.sqlite")
    with db:
        db.execute(
            "UPDATE competitions SET config = ?, status = 'running' WHERE id = ?",
            (two("halted", rounds=3, extra=SCOPONE), comp.id),
        )
    db.close()
    server.start()
    stub = server.stub()
    info = wait_for(stub, comp.id, "failed", seconds=60)
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as e:
        list(stub.WatchMatch(spb.WatchRequest(id=pending[0]), timeout=20))
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION, e.value.details()
    assert f"competition {comp.id!r} failed ({info.reason})" in e.value.details()
    assert "will not be played" in e.value.details() and time.monotonic() - started < 5


# In the test's own trio loop (tests.support.manager), where a test can time
# a step of a run exactly.

SPRT = """
[sprt]
test = "alice-greedy"
base = "bob-random"
max_sets = 3
"""


def local_storage(tmp_path, bots):
    return storage_with_bots(
        tmp_path / "data",
        {"alice-greedy": ("alice", bots["greedy"]), "bob-random": ("bob", bots["random"])},
    )


def played(tmp_path, comp_id: str) -> tuple[list[str], int]:
    """The matches of a competition's store in the order their results were
    recorded, and how many it has in all."""
    store = open_store(competition_layout(tmp_path / "data", comp_id).store)
    try:
        return [m.id for m in store.finished()], store.counts()[1]
    finally:
        store.close()


class StartWhenWorkersLeave(trio.abc.Instrument):
    """Once armed (a pause asked for), start the competition again at the
    moment the last of its runner's workers has left: after the run's last
    look at the pause, before it decides how it ended."""

    WORKER = "Runner.run.<locals>.worker"

    def __init__(self, manager: CompetitionManager, comp_id: str) -> None:
        self.manager, self.comp_id = manager, comp_id
        self.armed = self.fired = False
        self.live = 0

    def task_spawned(self, task: trio.lowlevel.Task) -> None:
        if task.name.endswith(self.WORKER):
            self.live += 1

    def task_exited(self, task: trio.lowlevel.Task) -> None:
        if task.name.endswith(self.WORKER):
            self.live -= 1
            if self.live == 0 and self.armed and not self.fired:
                self.fired = True
                self.manager.start(self.comp_id)


@pytest.mark.parametrize("kind", ["round-robin", "sprt"])
def test_a_start_while_the_run_pauses_goes_on_to_the_end(tmp_path, bots, kind):
    storage = local_storage(tmp_path, bots)
    config = two("on", 3).replace("concurrency = 2", "concurrency = 1")
    if kind == "sprt":  # sets of two, one after the other: the pause leaves half a set
        config = two("on", extra='format = "sprt"', tables=SPRT)
    comp_id = create_here(storage, tmp_path / "data", "con", config)
    leave = None

    async def main() -> None:
        nonlocal leave
        async with trio.open_nursery() as nursery:
            manager = CompetitionManager(nursery, storage, tmp_path / "data", Broker())
            leave = StartWhenWorkersLeave(manager, comp_id)
            trio.lowlevel.add_instrument(leave)
            manager.start(comp_id)
            await until(manager.running_matches, "a match in flight")
            manager.pause(comp_id)
            leave.armed = True
            await until(lambda: status(storage, comp_id) is not CompetitionStatus.RUNNING, "end")
            trio.lowlevel.remove_instrument(leave)
            nursery.cancel_scope.cancel()

    try:
        trio.run(main)
        assert leave is not None and leave.fired  # the start came between the two
        assert status(storage, comp_id) is CompetitionStatus.FINISHED
    finally:
        storage.close()
    order, total = played(tmp_path, comp_id)
    assert len(order) == total == (6 if kind == "sprt" else 3)
    if kind == "sprt":
        # No verdict taken and no set started before the set it paused in is whole.
        sets = [int(match_id.split("#")[1].split("/")[0]) for match_id in order]
        assert sets == sorted(sets), order


def test_two_starts_at_once_make_one_run(tmp_path, bots):
    storage = local_storage(tmp_path, bots)
    comp_id = create_here(storage, tmp_path / "data", "ctwice", two("twice", 2))

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            manager = CompetitionManager(nursery, storage, tmp_path / "data", Broker())
            manager.start(comp_id)  # say, the organiser's resume and a retry's
            manager.start(comp_id)
            await until(lambda: status(storage, comp_id) is not CompetitionStatus.RUNNING, "end")
            nursery.cancel_scope.cancel()

    try:
        trio.run(main)
        competition = storage.competition(comp_id)
    finally:
        storage.close()
    assert competition is not None
    assert competition.status is CompetitionStatus.FINISHED, competition.reason
    order, total = played(tmp_path, comp_id)
    assert len(order) == total == 2


def test_a_finished_competition_started_again_keeps_when_its_seed_was_revealed(tmp_path, bots):
    storage = local_storage(tmp_path, bots)
    comp_id = create_here(storage, tmp_path / "data", "cagain", two("again", 1))
    path = competition_layout(tmp_path / "data", comp_id).store

    async def play_to_the_end() -> None:
        async with trio.open_nursery() as nursery:
            manager = CompetitionManager(nursery, storage, tmp_path / "data", Broker())
            manager.start(comp_id)
            await until(lambda: status(storage, comp_id) is not CompetitionStatus.RUNNING, "end")
            nursery.cancel_scope.cancel()

    try:
        trio.run(play_to_the_end)
        store = open_store(path, writer=True)
        try:
            assert store.revealed_seed() is not None
            with store.transaction():  # as if revealed long ago
                store.set_meta("seed_revealed_at", "2001-01-01T00:00:00Z")
        finally:
            store.close()
        trio.run(play_to_the_end)  # StartCompetition takes a finished one
        assert status(storage, comp_id) is CompetitionStatus.FINISHED
    finally:
        storage.close()
    store = open_store(path)
    try:
        assert store.meta("seed_revealed_at") == "2001-01-01T00:00:00Z"
    finally:
        store.close()
