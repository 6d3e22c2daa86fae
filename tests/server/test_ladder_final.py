"""A ladder's final is played whole, whatever the order its workers run in,
and its seeds are revealed only then; a ladder an older server finished early
is paused at the next start and finished by `arena remote resume`.

The ladder runs here in the test's own trio loop (the competition manager
the server runs, without its gRPC front), with real bots over loopback: so
the test can hold the final's scheduling at its start while the other
workers come to the final's lock, the interleaving that finished a ladder
after its final's first set."""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from arena.broker import Broker
from arena.results.layout import competition_layout
from arena.results.store import MatchStatus, Store, open_store
from arena.rules.seeding import commitment
from arena.server.competitions import CompetitionManager
from arena.server.ladder import Ladder
from arena.server.storage import CompetitionStatus, LadderVersion, ServerStorage, VersionState
from arena.wire.v1 import server_pb2 as spb
from tests.support.manager import create, enter, status, storage_with_bots, until
from tests.support.paths import ARENA
from tests.support.server import ORGANISER, Server, wait_for

pytestmark = pytest.mark.process

WORKERS = 4
LADDER = f"""
name = "final-ladder"
format = "ladder"
bots = ["builtin:random", "builtin:greedy"]
acknowledge_remote_twins = true
concurrency = {WORKERS}
target = 1
[clock]
move_time = "2s"
[ladder]
first_sets = 0
final_top = 2
final_sets = 3
"""
FINAL_MATCHES = 6  # two finalists, three duplicate sets


class HeldFinal:
    """The final's scheduling held at its start until the test lets it go on:
    the ladder whose final it is, once a worker has begun to schedule it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ladder: Ladder | None = None
        self.go_on = trio.Event()
        schedule = Ladder._start_final

        async def held(ladder: Ladder) -> None:
            self.ladder = ladder
            await self.go_on.wait()
            await schedule(ladder)

        monkeypatch.setattr(Ladder, "_start_final", held)

    async def others_waiting(self, count: int) -> None:
        """Until ``count`` other workers wait for the final's lock: each has
        seen a closed ladder with nothing left to play."""

        def waiting() -> bool:
            lock = None if self.ladder is None else self.ladder._final_lock
            return lock is not None and lock.statistics().tasks_waiting >= count

        await until(waiting, f"{count} workers waiting for the final's lock")


@pytest.fixture
def reveals(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many matches were still pending at each reveal of a seed."""
    pending: list[int] = []
    reveal = Store.reveal_seed

    def counted(store: Store) -> None:
        pending.append(len(store.pending()))
        reveal(store)

    monkeypatch.setattr(Store, "reveal_seed", counted)
    yield pending


def setup(data: Path, bots: dict[str, str]) -> tuple[ServerStorage, str]:
    """The server's storage with three participants' bots, and the ladder."""
    storage = storage_with_bots(
        data,
        {
            "alice-bot": ("alice", bots["greedy"]),
            "bob-bot": ("bob", bots["random"]),
            "carol-bot": ("carol", bots["random"]),
        },
    )
    return storage, create(storage, data, "cladder", LADDER)


def version(storage: ServerStorage, comp_id: str, player: str) -> LadderVersion:
    found = storage.version(comp_id, player)
    assert found is not None
    return found


async def close_once_active(
    manager: CompetitionManager, storage: ServerStorage, data: Path, comp_id: str
) -> None:
    """Start the ladder, enter alice's and bob's bots, close it once both are active."""
    manager.start(comp_id)
    enter(storage, data, comp_id, "alice-bot")
    enter(storage, data, comp_id, "bob-bot")
    manager.wake(comp_id)

    def both_active() -> bool:
        return all(
            version(storage, comp_id, p).state is VersionState.ACTIVE
            for p in ("alice-bot@1", "bob-bot@1")
        )

    await until(both_active, "both versions active")
    manager.close(comp_id)


def test_a_final_scheduled_while_other_workers_wait_is_played_whole_before_any_seed_is_shown(
    tmp_path: Path, bots: dict[str, str], monkeypatch: pytest.MonkeyPatch, reveals: list[int]
) -> None:
    data = tmp_path / "data"
    storage, comp_id = setup(data, bots)
    held = HeldFinal(monkeypatch)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            manager = CompetitionManager(nursery, storage, data, Broker())
            seen_open = storage.competition(comp_id)
            await close_once_active(manager, storage, data, comp_id)
            # Carol's entry was judged on the ladder as it was before the close.
            late = enter(storage, data, comp_id, "carol-bot", seen=seen_open)
            assert late.state is VersionState.VALIDATING
            # One worker schedules the final (held); every other one has seen
            # nothing left to play and waits for the final's lock.
            await held.others_waiting(WORKERS - 1)
            held.go_on.set()
            await until(lambda: status(storage, comp_id) is not CompetitionStatus.RUNNING, "end")
            nursery.cancel_scope.cancel()

    try:
        trio.run(main)
    finally:
        storage_status = status(storage, comp_id)
        competition = storage.competition(comp_id)
        late = version(storage, comp_id, "carol-bot@1")
        storage.close()
    assert storage_status is CompetitionStatus.FINISHED
    assert competition is not None and competition.phase == "finished"
    store = open_store(competition_layout(data, comp_id).store)
    try:
        entries = store.matches()
        final = [m for m in entries if m.id.startswith("f:")]
        assert store.pending() == [] and all(m.status is MatchStatus.DONE for m in entries)
        assert len(final) == FINAL_MATCHES
        assert {p for m in final for p in m.seats} == {"alice-bot@1", "bob-bot@1"}
        assert store.revealed_seed() is not None and store.meta("final_seed_revealed")
    finally:
        store.close()
    # Both seeds revealed (the ladder's by the ladder and by the run), each
    # time with every scheduled match played.
    assert reveals and set(reveals) == {0}, reveals
    # The version that entered across the close is not left validating for ever.
    assert late.state is VersionState.REJECTED and "closed before" in late.reason


def test_a_ladder_an_older_server_finished_early_is_paused_and_resume_plays_its_final(
    tmp_path: Path, bots: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    storage, comp_id = setup(data, bots)
    held = HeldFinal(monkeypatch)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            manager = CompetitionManager(nursery, storage, data, Broker())
            await close_once_active(manager, storage, data, comp_id)
            await held.others_waiting(WORKERS - 1)
            manager.pause(comp_id)  # the final is scheduled, and none of it played
            held.go_on.set()
            await until(lambda: status(storage, comp_id) is CompetitionStatus.PAUSED, "paused")
            nursery.cancel_scope.cancel()

    try:
        trio.run(main)
    finally:
        storage.close()
    path = competition_layout(data, comp_id).store
    store = open_store(path, writer=True)
    try:
        unplayed = len(store.pending())
        assert unplayed == FINAL_MATCHES
        # What the older server wrote when one of its workers finished the
        # ladder while the final was pending: both seeds shown, finished.
        store.reveal_seed()
        with store.transaction():
            store.set_meta("final_seed_revealed", "1")
        total = store.counts()[1]
    finally:
        store.close()
    db = sqlite3.connect(data / "server.sqlite")
    with db:
        db.execute(
            "UPDATE competitions SET status = 'finished', reason = '', phase = 'finished' "
            "WHERE id = ?",
            (comp_id,),
        )
    db.close()

    token_file = tmp_path / "organiser.token"
    token_file.write_text(ORGANISER)
    server = Server(data, token_file)
    server.start()
    try:
        stub = server.stub()
        repaired = stub.GetCompetition(spb.CompetitionRef(id=comp_id), timeout=10)
        assert (repaired.status, repaired.phase) == ("paused", "final")
        assert f"finished early by an older server with {unplayed} of its {total}" in (
            repaired.reason
        )
        assert "its seeds were shown" in repaired.reason
        # Nothing is shown before the final is over again.
        assert repaired.seed == "" and repaired.final_seed == ""
        remote = [ARENA, "remote", "--server", server.address, "--token", ORGANISER]
        resumed = subprocess.run(
            [*remote, "resume", comp_id], capture_output=True, text=True, timeout=60
        )
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        done = wait_for(stub, comp_id, "finished", 120)
        assert done.phase == "finished" and done.matches_done == done.matches_total == total
        assert commitment(done.seed) == done.seed_commitment
        assert commitment(done.final_seed) == done.final_seed_commitment
        final = [
            m
            for m in stub.ListMatches(spb.CompetitionRef(id=comp_id), timeout=10).matches
            if m.id.split("/", 1)[1].startswith("f:")
        ]
        assert len(final) == FINAL_MATCHES and all(m.status == "done" for m in final)
        log = tmp_path / "final.log"
        log.write_bytes(stub.GetMatchLog(spb.MatchRef(id=final[-1].id), timeout=10).data)
        verified = subprocess.run(
            [ARENA, "verify-seed", done.final_seed, str(log)], capture_output=True, text=True
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr
    finally:
        server.stop()
