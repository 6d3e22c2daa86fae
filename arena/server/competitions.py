"""Competitions: a tournament file over registered bots, run on the trio loop
by the tournament engine (so it keeps its resume guarantees), paused, and
resumed when the server starts again. Each competition has its own
directory under the server's data, with its results store and logs."""

from __future__ import annotations

import contextlib
import secrets
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    from arena.server.standings import StandingsCache

from arena.errors import ArenaError, ConfigError
from arena.outcome import MatchEvent
from arena.server.broker import Broker
from arena.server.storage import CompetitionStatus, ServerStorage
from arena.store import NoStoreYet, Store, open_store
from arena.tournament.config import TournamentConfig, config_from_dict
from arena.tournament.runner import Runner, maybe_pool, open_tournament_store
from arena.tournament.schedule import build_schedule


def competition_config(
    text: str, storage: ServerStorage, output: Path
) -> tuple[TournamentConfig, list[str]]:
    """A tournament file whose engines are registered bots (``bots = [...]``)."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"competition config is not valid TOML: {e}") from None
    bots = raw.pop("bots", None)
    if "engine" in raw:
        raise ConfigError(
            "a competition names registered bots (bots = [...]), not [[engine]] tables"
        )
    if not isinstance(bots, list) or len(bots) < 2 or not all(isinstance(b, str) for b in bots):
        raise ConfigError('a competition needs bots = ["name", "name", ...] with at least 2 bots')
    engines = []
    for name in bots:
        bot = storage.bot(name)
        if bot is None:
            raise ConfigError(f"no registered bot named {name!r}")
        if bot.withdrawn:
            raise ConfigError(f"bot {name!r} was withdrawn")
        engines.append({"name": name, "spec": bot.address})
    raw.pop("store", None)
    raw["engine"] = engines
    raw["output"] = str(output)
    # Registered bots are remote: they could recognise a duplicate deal's twin, so
    # single deals unless the organiser asks for duplicates (and acknowledges that).
    raw.setdefault("duplicate", False)
    return config_from_dict(raw, "competition"), list(bots)


def competition_dir(data: Path, comp_id: str) -> Path:
    """Where a competition's results store, logs and bot output live."""
    return data / comp_id


@contextlib.contextmanager
def competition_results(data: Path, comp_id: str) -> Iterator[Store | None]:
    """The results store of a competition, or None before its first start."""
    try:
        store = open_store(competition_dir(data, comp_id) / "results.sqlite")
    except NoStoreYet:
        yield None
        return
    try:
        yield store
    finally:
        store.close()


class CompetitionManager:
    """Runs competitions in the trio loop: start, pause (in-flight matches
    finish), and resume on restart. Call its methods on the trio loop."""

    def __init__(
        self,
        nursery: trio.Nursery,
        storage: ServerStorage,
        data: Path,
        broker: Broker,
        standings: StandingsCache | None = None,
    ) -> None:
        self._nursery = nursery
        self._standings = standings
        self._storage = storage
        self._data = data
        self._broker = broker
        self._stopping: dict[str, bool] = {}
        self._runners: dict[str, Runner] = {}

    def start(self, comp_id: str) -> None:
        """Start the competition, or go on with it (also while it is pausing)."""
        self._stopping[comp_id] = False
        if comp_id in self._runners:
            return
        self._storage.set_competition_status(comp_id, CompetitionStatus.RUNNING)
        self._nursery.start_soon(self._run, comp_id)

    def pause(self, comp_id: str) -> None:
        """Start no new match; paused once the matches in flight have finished."""
        self._stopping[comp_id] = True
        if comp_id not in self._runners:
            self._storage.set_competition_status(comp_id, CompetitionStatus.PAUSED)

    def running_matches(self) -> set[str]:
        """The matches being played now, as COMPETITION/MATCH."""
        return {f"{c}/{m}" for c, r in list(self._runners.items()) for m in list(r.running)}

    async def _run(self, comp_id: str) -> None:
        competition = self._storage.competition(comp_id)
        assert competition is not None, f"competition {comp_id} is not stored"
        try:
            cfg, _ = competition_config(
                competition.config, self._storage, competition_dir(self._data, comp_id)
            )
            opened = open_tournament_store(cfg)
            store, cfg = opened.store, opened.cfg
            store.schedule(build_schedule(cfg))
        except ArenaError as e:
            print(f"competition {comp_id} cannot run: {e}", flush=True)
            self._storage.set_competition_status(comp_id, CompetitionStatus.PAUSED)
            return

        def spectate(match_id: str, event: MatchEvent) -> None:
            self._broker.publish(f"{comp_id}/{match_id}", event)

        def recorded(match_id: str) -> None:
            self._broker.close(f"{comp_id}/{match_id}")
            if self._standings is not None:
                self._standings.refresh(comp_id)

        runner = Runner(
            cfg,
            store,
            should_stop=lambda: self._stopping.get(comp_id, False),
            spectate=spectate,
            recorded=recorded,
        )
        self._runners[comp_id] = runner
        ended = False
        try:
            async with maybe_pool(cfg) as pool:
                await runner.run(store.pending(), pool)
            ended = True
        finally:
            del self._runners[comp_id]
            done, total = store.counts()
            store.close()
            # Stopped with the server: stays running, so the next start resumes it.
            if ended:
                status = CompetitionStatus.FINISHED if done == total else CompetitionStatus.PAUSED
                self._storage.set_competition_status(comp_id, status)
                print(f"competition {comp_id}: {status.value} ({done}/{total} matches)", flush=True)


def new_competition_id() -> str:
    return f"c{secrets.token_hex(4)}"
