"""The web site's source for the competition server: the stores of its
competitions, read as every source reads them, and what the server hands
over for the rest (its catalog of competitions and bots, its live events).
The site imports nothing of the server: the server gives it a `Catalog`.

Anyone reads this site: every free text it takes from a store or a log (a
fault's message, a match's reason) goes through the catalog's ``public``,
which writes none of the organiser's paths (arena/server/public.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Protocol

from arena.results.layout import Layout, competition_layout
from arena.results.store import MatchStatus
from arena.rules import Variant
from arena.web.data import (
    EnginePage,
    LiveItem,
    StandingsCache,
    StoreSource,
    message_dict,
    public_texts,
)
from arena.web.live import LiveFrames
from arena.wire.v1 import server_pb2 as spb


class Catalog(Protocol):
    """The server's records, as the site shows them."""

    def competition_ids(self) -> list[str]: ...
    def competition(self, cid: str) -> spb.CompetitionInfo | None:
        """As GetCompetition answers, with the spectator delay that applies."""
        ...

    def ladder_versions(self, cid: str) -> list[spb.LadderVersion]:
        """As ListVersions answers; none for a competition that is not a ladder."""
        ...

    def bot(self, name: str) -> spb.BotInfo | None: ...
    def versions(self, name: str) -> list[dict[str, str]]:
        """The bot's uploads, newest first: spec, engine name, version, when,
        and its check ("passed", or "failed: " and the first failure)."""
        ...

    def played_from(self, cid: str, player: str) -> str | None:
        """What a player of competition ``cid`` played from, as participants
        may read it (an address, ``submission:SHA256``, a baseline), or None."""
        ...

    def public(self, text: str) -> str:
        """``text`` without the organiser's paths."""
        ...

    def bot_of(self, player: str) -> tuple[str, int | None]:
        """The bot a player belongs to, and its version in a ladder (BOT@N)."""
        ...


class Events(Protocol):
    """The server's event broker, as seen from trio."""

    def has_ended(self, key: str) -> bool: ...
    def watch_trio(self, key: str, delay: int) -> AsyncIterator[Any]: ...
    def results_trio(self, competition: str) -> AsyncIterator[int]: ...


class ServerSource(StoreSource):
    """The competition server's competitions, bots and live matches."""

    def __init__(
        self,
        data: Path,
        catalog: Catalog,
        events: Events,
        standings: StandingsCache,
        delay: int = 0,
    ) -> None:
        super().__init__(standings)
        self.data = data
        self.catalog = catalog
        self.events = events
        self.delay = delay
        # Read on the trio loop (the server's own), copied for the worker threads.
        self.running_now: set[str] = set()

    def _layout(self, cid: str) -> Layout:
        return competition_layout(self.data, cid)

    def _running(self, cid: str) -> set[str]:
        return set(self.running_now)

    def _versions(self, cid: str) -> list[spb.LadderVersion] | None:
        return self.catalog.ladder_versions(cid)

    def competitions(self) -> list[spb.CompetitionInfo]:
        out = []
        for cid in self.catalog.competition_ids():
            info = self.competition(cid)
            if info is not None:
                out.append(info)
        return out

    def competition(self, cid: str) -> spb.CompetitionInfo | None:
        return self.catalog.competition(cid)

    def bot_of(self, player: str) -> tuple[str, int | None]:
        return self.catalog.bot_of(player)

    def _public(self, text: str) -> str:
        return self.catalog.public(text)

    def _public_data(self, data: dict[str, Any]) -> dict[str, Any]:
        shown: dict[str, Any] = public_texts(data, self._public)
        return shown

    def _spec(self, cid: str, player: str, spec: str) -> str:
        """What the player played from, not the command the arena launched
        (which names the organiser's files)."""
        return self.catalog.played_from(cid, player) or self._public(spec)

    def _unplayed(self, cid: str, name: str) -> EnginePage | None:
        """A ladder's version (or bot) that has entered and not played yet:
        the versions table links its page."""
        bot, number = self.bot_of(name)
        entered = [v for v in self.catalog.ladder_versions(cid) if v.bot == bot]
        if not any(v.player == name or number is None for v in entered):
            return None
        players: list[tuple[str, int | None]] = [(v.player, v.number) for v in entered]
        return EnginePage(name, [], None, [], None, [], players=players, version=number, of=bot)

    def engine(self, cid: str, name: str, version: int | None = None) -> EnginePage | None:
        page = super().engine(cid, name, version)
        if page is None:
            return None
        bot = self.bot_of(name)[0]
        page.bot = self.catalog.bot(bot)
        page.versions.extend(self.catalog.versions(bot))
        return page

    def watchable(self, cid: str, mid: str) -> tuple[Variant, list[str]] | None:
        """As GetMatchLog/WatchMatch decide: a match that has ended is followed
        only while the broker still holds its events."""
        if self.catalog.competition(cid) is None:
            return None
        with self._open(cid) as store:
            entry = None if store is None else store.match(mid)
        if entry is None:
            return None
        if entry.status is MatchStatus.DONE and not self.events.has_ended(f"{cid}/{mid}"):
            return None
        return self.seats(cid, mid)

    def spectator_delay(self, cid: str) -> int:
        info = self.catalog.competition(cid)
        return self.delay if info is None else info.spectator_delay

    def live(
        self, key: str, seats: tuple[Variant, list[str]], delay: int
    ) -> AsyncIterator[LiveItem]:
        return broker_live(self.events, key, seats, delay, self._public)

    def results(self, cid: str) -> AsyncIterator[int]:
        return self.events.results_trio(cid)


def broker_live(
    events: Events,
    key: str,
    seats: tuple[Variant, list[str]],
    delay: int,
    public: Callable[[str], str] = str,
) -> AsyncIterator[LiveItem]:
    """A broker's public events of match ``key``, with the frames each makes;
    their texts through ``public``."""
    frames = LiveFrames(*seats)

    async def items() -> AsyncIterator[LiveItem]:
        watched = events.watch_trio(key, delay)
        try:
            async for item in watched:
                message = public_texts(message_dict(item.message), public)
                yield message, public_texts(frames.feed(item.event), public)
        finally:  # closed with the stream, not left to the garbage collector
            close = getattr(watched, "aclose", None)
            if close is not None:
                await close()

    return items()
