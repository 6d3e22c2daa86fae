"""The web site of a running server (`arena serve --http`): the server's
catalog handed to the site's source, and the site started in the server's
nursery. The site reads the competitions' stores itself and imports nothing
of the server."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from arena.broker import Broker
from arena.server.auth import Access
from arena.server.competitions import (
    CompetitionManager,
    LadderView,
    audit_path,
    competition_info,
    finished_logs,
    ladder_versions,
)
from arena.server.ladder import is_ladder
from arena.server.public import PublicText
from arena.server.storage import ServerStorage, SubmissionRecord
from arena.server.submissions import submission_digest
from arena.server.versions import bot_of
from arena.tournament.standings_cache import StandingsCache
from arena.wire import service as wire
from arena.wire.v1 import server_pb2 as spb

if TYPE_CHECKING:
    from arena.server.challenges import Challenges


class SiteCatalog:
    """The server's records as the site's `Catalog` asks for them."""

    def __init__(
        self,
        data: Path,
        storage: ServerStorage,
        delay: int,
        ladder_view: Callable[[str], LadderView | None],
    ) -> None:
        self._data = data
        self._storage = storage
        self._delay = delay
        self._ladder_view = ladder_view  # a running ladder's live view, asked from any thread
        self.public = PublicText(data)

    def competition_ids(self) -> list[str]:
        return [c.id for c in self._storage.competitions()]

    def competition(self, cid: str) -> spb.CompetitionInfo | None:
        competition = self._storage.competition(cid)
        if competition is None:
            return None
        info = competition_info(self._data, competition, self._delay)
        info.reason = self.public(info.reason)
        return info

    def ladder_versions(self, cid: str) -> list[spb.LadderVersion]:
        competition = self._storage.competition(cid)
        if competition is None or not is_ladder(competition):
            return []
        view = self._ladder_view(cid)
        versions = ladder_versions(self._data, self._storage, competition, view)
        for version in versions:
            version.reason = self.public(version.reason)
        return versions

    def bot(self, name: str) -> spb.BotInfo | None:
        """The registered bot a player is: itself, or in a ladder the bot of version BOT@N."""
        bot = self._storage.bot(bot_of(name)[0])
        if bot is None:
            return None
        info = wire.bot_info(bot)
        info.status_detail = self.public(info.status_detail)
        return info

    def bot_of(self, player: str) -> tuple[str, int | None]:
        return bot_of(player)

    def versions(self, name: str) -> list[dict[str, str]]:
        """The bot's uploads by its owner, newest first, each with its check."""
        bot = self._storage.bot(bot_of(name)[0])
        if bot is None:
            return []
        return [
            {
                "competition": "",
                "spec": f"submission:{record.sha256[:16]} ({shlex.join(record.command)})",
                "engine_name": record.bot,
                "version": record.version,
                "submitted_at": record.submitted_at,
                "check": "passed" if record.check_passed else f"failed: {self._failure(record)}",
            }
            for record in self._storage.submissions(bot.name)
            if record.owner == bot.owner
        ]

    def _failure(self, record: SubmissionRecord) -> str:
        """The first point an upload's check failed on, as its owner was told."""
        item = next((i for i in record.check_items if not i[1]), None)
        return "" if item is None else self.public(f"{item[0]}: {item[2]}")

    def played_from(self, cid: str, player: str) -> str | None:
        """A ladder's version as it entered, else the competition's snapshot."""
        competition = self._storage.competition(cid)
        if competition is None:
            return None
        version = self._storage.version(cid, player)
        address = version.address if version is not None else competition.engines.get(player)
        if address is None:
            return None
        digest = submission_digest(address)
        return address if digest is None else f"submission:{digest[:16]}"


class SiteAudits:
    """What the site's audit page (arena.web.audit) asks of the server."""

    def __init__(self, data: Path, storage: ServerStorage, access: Access) -> None:
        self._data = data
        self._storage = storage
        self._access = access

    def is_organiser(self, token: str) -> bool:
        return self._access.is_organiser_token(token)

    def finished_logs(self, cid: str) -> list[Path] | None:
        if self._storage.competition(cid) is None:
            return None
        return finished_logs(self._data, cid)

    def saved_audit(self, cid: str) -> Path:
        return audit_path(self._data, cid)


async def start_site(
    nursery: trio.Nursery,
    http: str,
    delay: int,
    data: Path,
    storage: ServerStorage,
    broker: Broker,
    manager: CompetitionManager,
    standings: StandingsCache,
    challenges: Challenges | None = None,
    access: Access | None = None,
) -> None:
    """Serve the web site in the server's nursery, with ``challenges``' pages
    when given; prints SITE http://HOST:PORT."""
    from arena.web.app import create_app
    from arena.web.challenges import challenge_routes
    from arena.web.remote import ServerSource
    from arena.web.serve import serve_site

    token = trio.lowlevel.current_trio_token()

    def ladder_view(cid: str) -> LadderView | None:  # on a worker thread; the manager's loop
        return trio.from_thread.run_sync(manager.ladder_view, cid, trio_token=token)

    catalog = SiteCatalog(data, storage, delay, ladder_view)
    source = ServerSource(data, catalog, broker, standings, delay)

    def copy_running() -> None:  # on the trio loop, the manager's own
        source.running_now = manager.running_matches()

    extra = challenge_routes(challenges) if challenges is not None else []
    if access is not None:
        from arena.web.audit import audit_routes

        extra += audit_routes(SiteAudits(data, storage, access))
    link = challenges is not None and challenges.enabled
    app = create_app(source, copy_running, extra, challenge_link=link)
    address = await nursery.start(serve_site, app, http)
    print(f"SITE {address}", flush=True)
