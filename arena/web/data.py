"""What the web site shows, read from a local tournament's output directory
(LocalSource) or from the competition server (ServerSource): one interface,
both read-only. Values are the gRPC service's messages (arena.wire.service)
wherever the service has one, so a page's JSON twin carries the same fields.

Every method is synchronous and may read SQLite: the site calls them on a
worker thread, never on the trio loop.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
import tomllib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import trio
from google.protobuf.json_format import MessageToDict

from arena.errors import ArenaError
from arena.ratings import update_elo
from arena.replay import replay_log
from arena.rules import Game, Variant
from arena.store import MatchEntry, MatchStatus, Store, StoredMatch, reading_store
from arena.tournament.standings import match_score, side_players
from arena.viewer import VIEWER_ASSETS, frames, viewer_data
from arena.web.live import LiveFrames
from arena.wire import service as wire
from arena.wire.v1 import server_pb2 as spb

__all__ = [
    "VIEWER_ASSETS",
    "EnginePage",
    "LiveFrames",
    "LocalSource",
    "MatchFilter",
    "MatchPage",
    "Overview",
    "ServerSource",
    "Source",
    "message_dict",
    "viewer_data",
]

PAGE_SIZE = 50
# A local tournament run by another process is followed through its logs,
# written and flushed record by record: a match not yet recorded whose log
# grew within LIVE_IDLE_SECONDS is being played (an older partial log is a
# stopped run's, played again on resume). Matches start in schedule order, so
# only the first LIVE_LOOKAHEAD matches still pending are looked at.
LIVE_IDLE_SECONDS = 120.0
LIVE_LOOKAHEAD = 256
TAIL_SECONDS = 0.1  # how often a live local match's log, or its store, is looked at again
# Keys of a frame that only a log knows (a spectator event carries none of them):
# a live frame leaves them blank, whichever source it comes from.
LOG_ONLY = {"think_ms": None, "comment": "", "fault": None}
# One step of a live match: the spectator event's message as JSON (when the
# source has events) and the viewer frames it makes.
LiveItem = tuple[dict[str, Any] | None, list[dict[str, Any]]]
# Points per engine on the rating-over-time plot, at most.
PLOT_POINTS = 200


def message_dict(message: Any) -> dict[str, Any]:
    """A gRPC message as its JSON twin: proto field names, zero values shown."""
    out: dict[str, Any] = MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return out


@dataclass
class MatchFilter:
    engine: str = ""
    result: str = ""  # "", pending, running, win, draw, no_result
    fault: str = ""  # "", yes, no
    page: int = 1


@dataclass
class MatchPage:
    matches: list[spb.MatchSummary]
    faulty: set[str]  # ids (COMPETITION/MATCH) with a fault
    page: int
    pages: int
    total: int  # matching the filter


@dataclass
class Progress:
    done: int
    total: int
    eta_seconds: float | None  # None: not enough finished yet, or all done
    per_minute: float | None


@dataclass
class Sprt:
    test: str
    base: str
    sets: int
    llr: float
    lower: float
    upper: float
    verdict: str
    elo0: float
    elo1: float


@dataclass
class Overview:
    """Everything one competition's page shows besides its info."""

    progress: Progress
    standings: spb.StandingsReply
    crosstable: dict[str, dict[str, list[int]]]  # row -> column -> [wins, draws, losses]
    order: list[str]
    rating_series: dict[str, list[tuple[int, float]]]  # engine -> (finish order, live Elo)
    sprt: Sprt | None
    running: list[str] = field(default_factory=list)


@dataclass
class EnginePage:
    name: str
    versions: list[dict[str, str]]  # per competition: spec, engine name, version
    row: spb.StandingsRow | None
    faults: list[spb.BotFault]
    bot: spb.BotInfo | None  # the server's registration and liveness
    recent: list[spb.MatchSummary]


class Source(Protocol):
    title: str

    def competitions(self) -> list[spb.CompetitionInfo]: ...
    def competition(self, cid: str) -> spb.CompetitionInfo | None: ...
    def overview(self, cid: str) -> Overview | None: ...
    def matches(self, cid: str, flt: MatchFilter) -> MatchPage | None: ...
    def match(self, cid: str, mid: str) -> tuple[spb.MatchSummary, dict[str, Any] | None] | None:
        """The match's summary and its viewer data (None while it is played)."""
        ...

    def engine(self, cid: str, name: str) -> EnginePage | None: ...
    def spectator_delay(self, cid: str) -> int:
        """Plays a live match of competition ``cid`` is shown behind."""
        ...

    def live(
        self, key: str, seats: tuple[Variant, list[str]], delay: int
    ) -> AsyncIterator[LiveItem]:
        """A running match from its start, ``delay`` plays behind, until it ends (trio)."""
        ...

    def results(self, cid: str) -> AsyncIterator[int]:
        """Competition ``cid``'s count of ended matches, each time it grows (trio)."""
        ...

    def seats(self, cid: str, mid: str) -> tuple[Variant, list[str]] | None: ...
    def watchable(self, cid: str, mid: str) -> tuple[Variant, list[str]] | None:
        """The variant and seats of a match whose events can be followed live."""
        ...


class _StoreSource:
    """What both sources read from a competition's results store."""

    title = "Scopa Arena"
    # Per competition: the crosstable and rating series, and how many results
    # they cover (results only ever grow: recomputed when there are more).
    _derived: dict[str, tuple[int, dict[str, dict[str, list[int]]], dict[str, Any]]]

    def __init__(self) -> None:
        self._derived = {}

    def _open(self, cid: str) -> contextlib.AbstractContextManager[Store | None]:
        raise NotImplementedError

    def _log_dir(self, cid: str) -> Path:
        raise NotImplementedError

    def _running(self, cid: str) -> set[str]:
        return set()

    def _standings(self, cid: str) -> spb.StandingsReply:
        raise NotImplementedError

    def _sprt_settings(self, cid: str, store: Store) -> dict[str, Any] | None:
        try:
            config = json.loads(store.meta("config") or "{}")
        except ValueError:
            return None
        if not isinstance(config, dict) or "sprt.test" not in config:
            return None
        return {"test": config["sprt.test"], "base": config["sprt.base"]}

    def competition(self, cid: str) -> spb.CompetitionInfo | None:
        raise NotImplementedError

    def overview(self, cid: str) -> Overview | None:
        if self.competition(cid) is None:
            return None
        with self._open(cid) as store:
            if store is None:
                return Overview(
                    Progress(0, 0, None, None),
                    wire.standings_reply("no match played yet"),
                    {},
                    [],
                    {},
                    None,
                )
            done, total = store.counts()
            progress = _progress(store, done, total)
            derived = self._derived.get(cid)
            if derived is None or derived[0] != done:
                finished = store.finished()
                derived = (done, _crosstable(finished), _rating_series(finished))
                self._derived[cid] = derived
            order = [n for n, *_ in store.engines()]
            sprt = self._sprt(cid, store)
        running = sorted(r for r in self._running(cid) if r.startswith(f"{cid}/"))
        return Overview(
            progress,
            self._standings(cid),
            derived[1],
            order,
            derived[2],
            sprt,
            running,
        )

    def _sprt(self, cid: str, store: Store) -> Sprt | None:
        settings = self._sprt_settings(cid, store)
        if settings is None:
            return None
        from arena.tournament.config import SprtSettings
        from arena.tournament.runner import sprt_status

        s = SprtSettings(**settings)

        @dataclass
        class _Cfg:
            sprt: SprtSettings

        status = sprt_status(_Cfg(s), store)  # type: ignore[arg-type]
        verdict = status.verdict or ("no set yet" if status.sets == 0 else "going on")
        return Sprt(
            s.test,
            s.base,
            status.sets,
            status.llr,
            status.lower,
            status.upper,
            verdict,
            s.elo0,
            s.elo1,
        )

    def matches(self, cid: str, flt: MatchFilter) -> MatchPage | None:
        if self.competition(cid) is None:
            return None
        running = self._running(cid)
        with self._open(cid) as store:
            if store is None:
                return MatchPage([], set(), 1, 1, 0)
            entries = store.matches()
            faulty = {f"{cid}/{m}" for m in store.faulty_engines()}
        chosen = [e for e in entries if _matches(e, f"{cid}/{e.id}", flt, running, faulty)]
        pages = max(1, math.ceil(len(chosen) / PAGE_SIZE))
        page = min(max(1, flt.page), pages)
        shown = chosen[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        return MatchPage(
            [wire.listed_match(f"{cid}/{e.id}", e, running) for e in shown],
            faulty,
            page,
            pages,
            len(chosen),
        )

    def match(self, cid: str, mid: str) -> tuple[spb.MatchSummary, dict[str, Any] | None] | None:
        if self.competition(cid) is None:
            return None
        with self._open(cid) as store:
            entry = None if store is None else store.match(mid)
        if entry is None:
            return None
        key = f"{cid}/{mid}"
        info = wire.listed_match(key, entry, self._running(cid))
        if entry.status is not MatchStatus.DONE or not entry.log_path:
            return info, None
        path = self._log_path(cid, entry.log_path)
        try:
            data = viewer_data(replay_log(path))
        except (ArenaError, OSError) as e:
            data = {"error": f"the log cannot be shown: {e}"}
        return info, data

    def seats(self, cid: str, mid: str) -> tuple[Variant, list[str]] | None:
        with self._open(cid) as store:
            entry = None if store is None else store.match(mid)
            config = None if store is None else store.meta("config")
        if entry is None:
            return None
        settings = json.loads(config or "{}")
        variant = Variant(
            Game.parse(settings.get("variant", "scopa")),
            target=settings.get("target", 11),
            deal_limit=settings.get("deal_limit"),
        )
        return variant, list(entry.seats)

    def watchable(self, cid: str, mid: str) -> tuple[Variant, list[str]] | None:
        return None

    def _log_path(self, cid: str, stored: str) -> Path:
        path = Path(stored)
        if path.is_absolute() and path.exists():
            return path
        beside = self._log_dir(cid) / path.name
        return beside if beside.exists() else path

    def engine(self, cid: str, name: str) -> EnginePage | None:
        if self.competition(cid) is None:
            return None
        with self._open(cid) as store:
            if store is None:
                return None
            engines = {n: (spec, en, ver) for n, spec, en, ver in store.engines()}
            if name not in engines:
                return None
            faults = store.faults_of(name)
            entries = [e for e in store.matches() if name in e.seats]
        spec, engine_name, version = engines[name]
        row = next((r for r in self._standings(cid).rows if r.bot == name), None)
        running = self._running(cid)
        recent = [
            wire.listed_match(f"{cid}/{e.id}", e, running)
            for e in entries
            if e.status is MatchStatus.DONE or f"{cid}/{e.id}" in running
        ]
        return EnginePage(
            name,
            [{"competition": cid, "spec": spec, "engine_name": engine_name, "version": version}],
            row,
            [
                spb.BotFault(match=f"{cid}/{m}", kind=k, message=msg, version=version)
                for m, k, msg in faults
            ],
            None,
            recent[-PAGE_SIZE:][::-1],
        )


class LocalSource(_StoreSource):
    """A local tournament's output directory: one competition, whose id is
    the directory's name; it shows the tournament's own name."""

    def __init__(self, directory: Path, delay: int = 0) -> None:
        super().__init__()
        self.directory = directory.resolve()
        self.id = self.directory.name
        self.title = f"Scopa Arena — {self.id}"
        self.delay = delay
        self._store_path = self.directory / "results.sqlite"
        from arena.server.standings import StandingsCache

        # The server's cache, with the directory as its one competition.
        self._cache = StandingsCache(self.directory.parent)

    def warm(self) -> None:
        """Compute the standings (a bootstrap: seconds for a large tournament),
        the crosstable and the rating series now, before anyone asks."""
        self.overview(self.id)

    def close(self) -> None:
        self._cache.close()

    def _open(self, cid: str) -> contextlib.AbstractContextManager[Store | None]:
        if cid != self.id:
            return contextlib.nullcontext()
        return reading_store(self._store_path)

    def _log_dir(self, cid: str) -> Path:
        return self.directory / "logs"

    def _standings(self, cid: str) -> spb.StandingsReply:
        return cached_standings(self._cache, cid)

    def _live_log(self, mid: str) -> Path:
        """Where the tournament writes match ``mid``'s log while it plays it."""
        return self.directory / "logs" / f"{mid.replace('/', '_')}.log"

    def _is_growing(self, mid: str) -> bool:
        try:
            return time.time() - self._live_log(mid).stat().st_mtime < LIVE_IDLE_SECONDS
        except OSError:
            return False

    def _running(self, cid: str) -> set[str]:
        with self._open(cid) as store:
            pending = [] if store is None else store.pending()[:LIVE_LOOKAHEAD]
        return {f"{cid}/{m.id}" for m in pending if self._is_growing(m.id)}

    def spectator_delay(self, cid: str) -> int:
        return self.delay

    def watchable(self, cid: str, mid: str) -> tuple[Variant, list[str]] | None:
        """A match not yet recorded whose log is growing."""
        with self._open(cid) as store:
            entry = None if store is None else store.match(mid)
        if entry is None or entry.status is MatchStatus.DONE or not self._is_growing(mid):
            return None
        return self.seats(cid, mid)

    def live(
        self, key: str, seats: tuple[Variant, list[str]], delay: int
    ) -> AsyncIterator[LiveItem]:
        """The match's log read again as it grows, replayed and shown as a
        spectator sees it; ends with the match, or when the log stops growing
        (the run stopped) or is started again (the match is replayed)."""
        path = self._live_log(key.partition("/")[2])

        async def items() -> AsyncIterator[LiveItem]:
            sent, size, quiet = 0, -1, 0.0
            delayed = _DelayedFrames(delay)
            while quiet < LIVE_IDLE_SECONDS:
                now = await trio.to_thread.run_sync(_file_size, path)
                if now == size:
                    quiet += TAIL_SECONDS
                    await trio.sleep(TAIL_SECONDS)
                    continue
                if now < size:
                    break  # written again from the start: a new attempt at the match
                size, quiet = now, 0.0
                shown = await trio.to_thread.run_sync(_public_frames, path)
                if shown is None:
                    await trio.sleep(TAIL_SECONDS)
                    continue
                frames, ended = shown
                fresh = frames[sent:]
                sent = len(frames)
                released = delayed.feed(fresh)
                if ended:
                    released += delayed.flush()
                if released:
                    yield None, released
                if ended:
                    return

        return items()

    def results(self, cid: str) -> AsyncIterator[int]:
        """The store's count of recorded matches, looked at again whenever its
        files change (the tournament writing them is another process)."""

        async def counts() -> AsyncIterator[int]:
            done, stamp = -1, None
            while True:
                now = await trio.to_thread.run_sync(_stamp, self._store_path)
                if now != stamp:
                    stamp = now
                    info = await trio.to_thread.run_sync(self.competition, cid)
                    count = 0 if info is None else info.matches_done
                    if count != done:
                        if done >= 0:
                            yield count
                        done = count
                await trio.sleep(TAIL_SECONDS * 5)

        return counts()

    def competitions(self) -> list[spb.CompetitionInfo]:
        info = self.competition(self.id)
        return [] if info is None else [info]

    def competition(self, cid: str) -> spb.CompetitionInfo | None:
        if cid != self.id:
            return None
        with self._open(cid) as store:
            if store is None:
                return wire.competition_info(id=cid, name=cid, status="created", bots=[])
            done, total = store.counts()
            bots = [n for n, *_ in store.engines()]
            commitment = store.meta("seed_commitment") or ""
            name = store.meta("name") or cid  # a store of an older arena has none
            revealed = store.meta("seed_revealed_at") is not None
            seed = store.meta("seed") or "" if revealed else ""
            created = store.meta("created_at") or ""
        status = "finished" if total and done == total and revealed else "running"
        return wire.competition_info(
            id=cid,
            name=name,
            status=status,
            bots=bots,
            matches_done=done,
            matches_total=total,
            seed_commitment=commitment,
            seed=seed,
            created_at=created,
        )


class ServerSource(_StoreSource):
    """The competition server's competitions, bots and live matches."""

    def __init__(
        self,
        data: Path,
        storage: Any,
        broker: Any,
        manager: Any,
        standings_cache: Any,
        delay: int = 0,
    ) -> None:
        super().__init__()
        self.data = data
        self.storage = storage
        self.broker = broker
        self.manager = manager
        self.cache = standings_cache
        self.delay = delay
        # Read on the trio loop (the manager's own), copied for the worker threads.
        self.running_now: set[str] = set()

    def _open(self, cid: str) -> contextlib.AbstractContextManager[Store | None]:
        from arena.server.competitions import competition_results

        return competition_results(self.data, cid)

    def _log_dir(self, cid: str) -> Path:
        return self.data / cid / "logs"

    def _running(self, cid: str) -> set[str]:
        return set(self.running_now)

    def _standings(self, cid: str) -> spb.StandingsReply:
        return cached_standings(self.cache, cid)

    def _sprt_settings(self, cid: str, store: Store) -> dict[str, Any] | None:
        found = super()._sprt_settings(cid, store)
        competition = self.storage.competition(cid)
        if found is None or competition is None:
            return found
        with contextlib.suppress(tomllib.TOMLDecodeError, AttributeError, TypeError):
            table = tomllib.loads(competition.config).get("sprt", {})
            for key in ("elo0", "elo1", "alpha", "beta"):
                if isinstance(table.get(key), int | float):
                    found[key] = float(table[key])
        return found

    def competitions(self) -> list[spb.CompetitionInfo]:
        out = []
        for c in self.storage.competitions():
            info = self.competition(c.id)
            if info is not None:
                out.append(info)
        return out

    def competition(self, cid: str) -> spb.CompetitionInfo | None:
        competition = self.storage.competition(cid)
        if competition is None:
            return None
        from arena.server.competitions import competition_info

        return competition_info(self.data, competition, self.delay)

    def engine(self, cid: str, name: str) -> EnginePage | None:
        page = super().engine(cid, name)
        if page is None:
            return None
        bot = self.storage.bot(name)
        if bot is not None:
            page.bot = wire.bot_info(bot)
        versions = []
        for record in self.storage.submissions(name):
            versions.append(
                {
                    "competition": "",
                    "spec": "submission " + record.sha256[:12],
                    "engine_name": record.bot,
                    "version": record.version,
                    "submitted_at": record.submitted_at,
                }
            )
        page.versions.extend(versions)
        return page

    def watchable(self, cid: str, mid: str) -> tuple[Variant, list[str]] | None:
        """As GetMatchLog/WatchMatch decide: a match that has ended is followed
        only while the broker still holds its events."""
        if self.storage.competition(cid) is None:
            return None
        with self._open(cid) as store:
            entry = None if store is None else store.match(mid)
        if entry is None:
            return None
        if entry.status is MatchStatus.DONE and not self.broker.has_ended(f"{cid}/{mid}"):
            return None
        return self.seats(cid, mid)

    def spectator_delay(self, cid: str) -> int:
        from arena.server.competitions import spectator_delay

        competition = self.storage.competition(cid)
        return self.delay if competition is None else spectator_delay(competition, self.delay)

    def live(
        self, key: str, seats: tuple[Variant, list[str]], delay: int
    ) -> AsyncIterator[LiveItem]:
        return broker_live(self.broker, key, seats, delay)

    def results(self, cid: str) -> AsyncIterator[int]:
        results: AsyncIterator[int] = self.broker.results_trio(cid)
        return results


def broker_live(
    broker: Any, key: str, seats: tuple[Variant, list[str]], delay: int
) -> AsyncIterator[LiveItem]:
    """A broker's public events of match ``key``, with the frames each makes."""
    frames = LiveFrames(*seats)

    async def items() -> AsyncIterator[LiveItem]:
        async for item in broker.watch_trio(key, delay):
            yield message_dict(item.message), frames.feed(item.event)

    return items()


class _DelayedFrames:
    """Holds live frames back until ``delay`` more plays have followed them,
    as the broker holds events (a deal's start and end wait for the next play)."""

    def __init__(self, delay: int) -> None:
        self.delay = delay
        self.held: list[dict[str, Any]] = []

    def feed(self, fresh: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.held += fresh
        plays = [i for i, f in enumerate(self.held) if f["kind"] == "play"]
        if len(plays) < self.delay:
            return []
        # Everything before the (delay)-th play from the end goes; that play too when delay is 0.
        cut = len(self.held) if self.delay == 0 else plays[-self.delay]
        out, self.held = self.held[:cut], self.held[cut:]
        return out

    def flush(self) -> list[dict[str, Any]]:
        out, self.held = self.held, []
        return out


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def _stamp(path: Path) -> tuple[float, ...]:
    """When the store or its write-ahead log last changed."""
    out = []
    for name in (path, path.with_name(path.name + "-wal")):
        try:
            st = name.stat()
            out += [st.st_mtime, st.st_size]
        except OSError:
            out += [0.0, 0]
    return tuple(out)


def _public_frames(path: Path) -> tuple[list[dict[str, Any]], bool] | None:
    """The frames a spectator sees of the log so far (no hand, nothing only
    the log knows), and whether the match has ended; None while the log
    cannot be read yet."""
    try:
        replay = replay_log(path)
    except (ArenaError, OSError):
        return None
    shown = [{**f, **LOG_ONLY} for f in frames(replay, public=True) if f["kind"] != "fault"]
    return shown, replay.complete


def cached_standings(cache: Any, cid: str) -> spb.StandingsReply:
    """The standings as GetStandings answers them, from the server's cache
    (which the server fills at its start, and `arena web` before it listens)."""
    cached = cache.get(cid)
    if cached is None:
        return wire.standings_reply("no match played yet")
    return wire.standings_reply(cached.text, cached.rows)


def _matches(
    entry: MatchEntry, key: str, flt: MatchFilter, running: set[str], faulty: set[str]
) -> bool:
    if flt.engine and flt.engine not in entry.seats:
        return False
    if flt.fault == "yes" and key not in faulty:
        return False
    if flt.fault == "no" and key in faulty:
        return False
    if not flt.result:
        return True
    if flt.result == "running":
        return key in running
    if flt.result == "pending":
        return entry.status is MatchStatus.PENDING and key not in running
    if entry.status is not MatchStatus.DONE or entry.termination is None:
        return False
    if flt.result == "no_result":
        return not entry.termination.has_result
    if not entry.termination.has_result:
        return False
    if flt.result == "draw":
        return entry.winner_side is None
    if flt.result == "win":  # decided, or won by the filtered engine
        if entry.winner_side is None:
            return False
        if not flt.engine:
            return True
        return any(
            name == flt.engine and seat % 2 == entry.winner_side
            for seat, name in enumerate(entry.seats)
        )
    if flt.result == "loss":
        if entry.winner_side is None or not flt.engine:
            return False
        return any(
            name == flt.engine and seat % 2 != entry.winner_side
            for seat, name in enumerate(entry.seats)
        )
    return True


def _progress(store: Store, done: int, total: int) -> Progress:
    """Done of total, and an estimate of the time left from the pace of the
    last matches recorded."""
    rows = store.db.execute(
        "SELECT finished_at FROM matches WHERE status = 'done' AND finished_at IS NOT NULL "
        "ORDER BY finish_order DESC LIMIT 100"
    ).fetchall()
    if done >= total or len(rows) < 2:
        return Progress(done, total, None, None)
    try:
        last = datetime.fromisoformat(rows[0][0])
        first = datetime.fromisoformat(rows[-1][0])
    except (TypeError, ValueError):
        return Progress(done, total, None, None)
    seconds = (last - first).total_seconds()
    if seconds <= 0:
        return Progress(done, total, None, None)
    rate = (len(rows) - 1) / seconds
    return Progress(done, total, (total - done) / rate, rate * 60)


def _crosstable(finished: list[StoredMatch]) -> dict[str, dict[str, list[int]]]:
    """Per side (a bot, or partners joined by +) against each other: wins, draws, losses."""
    table: dict[str, dict[str, list[int]]] = {}
    for m in finished:
        if not m.termination.has_result:
            continue
        sides = ["+".join(sorted(set(side_players(m, s)))) for s in (0, 1)]
        for s in (0, 1):
            cell = table.setdefault(sides[s], {}).setdefault(sides[1 - s], [0, 0, 0])
            score = match_score(m, s)
            cell[0 if score == 1 else 1 if score == 0.5 else 2] += 1
    return table


def _rating_series(finished: list[StoredMatch]) -> dict[str, list[tuple[int, float]]]:
    """Each engine's live Elo after every match it played, thinned to PLOT_POINTS."""
    series: dict[str, list[tuple[int, float]]] = {}
    played = [m for m in finished if m.termination.has_result]
    step = max(1, len(played) // PLOT_POINTS)
    live: dict[str, float] = {}
    for i, m in enumerate(played):
        update_elo(live, side_players(m, 0), side_players(m, 1), match_score(m, 0), k=16.0)
        if i % step == 0 or i == len(played) - 1:
            for name, value in live.items():
                series.setdefault(name, []).append((i + 1, value))
    return series
