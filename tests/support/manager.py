"""The competition server's manager in a test's own trio loop, without its
gRPC front: competitions made and ladders entered as the service's handlers
make and enter them, played by real bots over loopback. A test can then hold
or time a step of the run exactly (an event it sets, a trio instrument)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import trio

from arena.results.layout import competition_layout
from arena.server.competitions import (
    competition_config,
    entry_check,
    prepare_store,
    registered_address,
)
from arena.server.ladder import enter_version
from arena.server.storage import (
    Competition,
    CompetitionStatus,
    LadderVersion,
    ServerStorage,
)
from arena.server.submissions import SubmissionFiles


def storage_with_bots(data: Path, bots: Mapping[str, tuple[str, str]]) -> ServerStorage:
    """The server's storage with each bot (name -> (owner, address)) registered."""
    storage = ServerStorage(data / "server.sqlite")
    for name, (owner, address) in bots.items():
        if storage.participant_since(owner) is None:
            assert storage.add_participant(owner, f"hash-of-{owner}")
        assert storage.add_bot(name, owner, address, name, "1")
    return storage


def create(storage: ServerStorage, data: Path, comp_id: str, config: str) -> str:
    """A competition made as CreateCompetition makes it: its store with its
    seed's commitment first, then its record with the bots' addresses."""
    layout = competition_layout(data, comp_id)
    files = SubmissionFiles(data)
    cfg, engines = competition_config(config, registered_address(storage), layout.directory, files)
    prepare_store(cfg, engines)
    storage.add_competition(comp_id, cfg.name, config, engines)
    return comp_id


def enter(
    storage: ServerStorage,
    data: Path,
    comp_id: str,
    bot_name: str,
    seen: Competition | None = None,
) -> LadderVersion:
    """Bot ``bot_name`` enters the ladder as EnterLadder enters it, judging the
    ladder by ``seen`` (the competition as it was read earlier) when given."""
    competition = seen or storage.competition(comp_id)
    bot = storage.bot(bot_name)
    assert competition is not None and bot is not None
    return enter_version(storage, competition, bot, entry_check(competition, storage, data, bot))


def status(storage: ServerStorage, comp_id: str) -> CompetitionStatus:
    competition = storage.competition(comp_id)
    assert competition is not None
    return competition.status


async def until(check: Callable[[], object], what: str, seconds: float = 90) -> None:
    """Poll ``check`` from the trio loop until it holds; fail naming ``what``."""
    with trio.move_on_after(seconds):
        while not check():
            await trio.sleep(0.02)
    assert check(), f"timed out after {seconds:g}s waiting for {what}"
