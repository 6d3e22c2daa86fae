"""What the web site shows, and the one interface it reads it through: the
page values, the `Source` protocol and what every source reads from a
results store. The sources are a local tournament's output directory
(arena/web/local.py) and the competition server (arena/web/remote.py, handed
its data by the server); both read only. Values are the gRPC service's
messages (arena.wire.service) wherever the service has one, so a page's JSON
twin carries the same fields.

Every method is synchronous and may read SQLite: the site calls them on a
worker thread, never on the trio loop.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from google.protobuf.json_format import MessageToDict

from arena.audit.analysis import analysis_path, load_analysis
from arena.errors import ArenaError
from arena.logs.replay import replay_log
from arena.logs.viewer import VIEWER_ASSETS, viewer_data
from arena.match.outcome import Termination, result_text
from arena.results.layout import Layout
from arena.results.store import MatchEntry, MatchStatus, Store, StoredMatch, reading_store
from arena.rules import Game, Variant
from arena.tournament import sides as bot_sides
from arena.tournament import sprt as sprt_test
from arena.tournament.standings import elo_k_of
from arena.web.aggregates import (
    MatchFilter,
    Pace,
    crosstable,
    pace,
    passes_filter,
    rating_series,
    side_label,
)
from arena.web.live import LiveFrames
from arena.wire import service as wire
from arena.wire.v1 import server_pb2 as spb

__all__ = [
    "VIEWER_ASSETS",
    "EnginePage",
    "LadderPart",
    "LiveFrames",
    "MatchFilter",
    "MatchPage",
    "Overview",
    "Pace",
    "Source",
    "SprtView",
    "StandingsCache",
    "StoreSource",
    "match_dict",
    "message_dict",
    "public_texts",
    "rating_scale",
    "result_of",
    "viewer_data",
]

PAGE_SIZE = 50
LATEST = 10  # results listed on a competition's page
# One step of a live match: the spectator event's message as JSON (when the
# source has events) and the viewer frames it makes.
LiveItem = tuple[dict[str, Any] | None, list[dict[str, Any]]]


def message_dict(message: Any) -> dict[str, Any]:
    """A gRPC message as its JSON twin: proto field names, zero values shown."""
    out: dict[str, Any] = MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return out


def result_of(m: spb.MatchSummary) -> str:
    """The match's result as the site writes it everywhere: the winner by name
    (arena.match.outcome.result_text), or where the match is if it has none yet."""
    if m.status == "running":
        return "being played"
    if m.status != "done" or not m.termination:
        return "not played yet"
    sides = [side_label(m.seats, s) for s in (0, 1)]
    winner = m.winner_side if m.HasField("winner_side") else None
    return result_text(sides, m.final_scores, winner, Termination(m.termination), m.reason)


def match_dict(m: spb.MatchSummary) -> dict[str, Any]:
    """A match's JSON twin: the MatchSummary's fields (``winner_side`` a side's
    index from 0), with the result as the page writes it and the winner's name."""
    winner = None
    if m.status == "done" and m.HasField("winner_side"):
        winner = side_label(m.seats, m.winner_side)
    return {**message_dict(m), "result": result_of(m), "winner": winner}


def public_texts(value: Any, public: Callable[[str], str]) -> Any:
    """``value`` (JSON-like: dicts, lists, strings, numbers) with every string
    through ``public``: a viewer's frames, a live event."""
    if isinstance(value, str):
        return public(value)
    if isinstance(value, dict):
        return {k: public_texts(v, public) for k, v in value.items()}
    if isinstance(value, list):
        return [public_texts(v, public) for v in value]
    return value


@dataclass
class MatchPage:
    matches: list[spb.MatchSummary]
    faulty: set[str]  # ids (COMPETITION/MATCH) with a fault
    page: int
    pages: int
    total: int  # matching the filter


class StandingsCache(Protocol):
    """Standings computed before anyone asks (arena/tournament/standings_cache.py)."""

    def get(self, comp_id: str) -> Any: ...


@dataclass
class SprtView:
    test: str
    base: str
    sets: int
    llr: float
    lower: float
    upper: float
    verdict: str
    elo0: float
    elo1: float
    # Settings an older store did not keep, shown at their defaults ("" if none).
    missing: str = ""


def rating_scale(anchor: str) -> str:
    """What a competition's ratings are relative to, as its pages label them."""
    return f"relative to the baseline {anchor} (0)" if anchor else "centred on the pool (0)"


@dataclass
class LadderPart:
    """What a ladder's page shows besides any competition's: the baseline its
    ratings are relative to, and its versions (as ListVersions gives them)."""

    anchor: str  # "" until the ladder has started
    versions: list[spb.LadderVersion] | None  # None: this source does not keep them


@dataclass
class Overview:
    """Everything one competition's page shows besides its info."""

    progress: Pace
    standings: spb.StandingsReply
    crosstable: dict[str, dict[str, list[int]]]  # row -> column -> [wins, draws, losses]
    order: list[str]
    rating_series: dict[str, list[tuple[int, float]]]  # engine -> (finish order, live Elo)
    sprt: SprtView | None
    running: list[str] = field(default_factory=list)
    latest: list[spb.MatchSummary] = field(default_factory=list)  # the last ended, newest first
    ladder: LadderPart | None = None


@dataclass
class EnginePage:
    """A bot's page: a player of the competition, or a bot whose versions are
    players of their own (a ladder's ``BOT@N``)."""

    name: str
    versions: list[dict[str, str]]  # per competition: spec, engine name, version
    row: spb.StandingsRow | None
    faults: list[spb.BotFault]
    bot: spb.BotInfo | None  # the server's registration and liveness
    recent: list[spb.MatchSummary]
    # Its matches from its side, newest first (the last PAGE_SIZE of `total`),
    # only version `version`'s when chosen; `players`: what the bot `of`
    # played as in the competition, with each one's version (None: not one).
    matches: list[spb.BotMatch] = field(default_factory=list)
    players: list[tuple[str, int | None]] = field(default_factory=list)
    version: int | None = None
    total: int = 0
    of: str = ""
    anchor: str = ""  # a ladder's baseline rated 0 ("": the pool's mean is 0)


class Source(Protocol):
    title: str

    def competitions(self) -> list[spb.CompetitionInfo]: ...
    def competition(self, cid: str) -> spb.CompetitionInfo | None: ...
    def overview(self, cid: str) -> Overview | None: ...
    def matches(self, cid: str, flt: MatchFilter) -> MatchPage | None: ...
    def match(self, cid: str, mid: str) -> tuple[spb.MatchSummary, dict[str, Any] | None] | None:
        """The match's summary and its viewer data (None while it is played)."""
        ...

    def engine(self, cid: str, name: str, version: int | None = None) -> EnginePage | None:
        """A player's or a bot's page; only version ``version``'s matches when given."""
        ...

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


def _ended(key: str, m: StoredMatch) -> spb.MatchSummary:
    return wire.match_summary(
        id=key,
        seats=m.seats,
        status=MatchStatus.DONE.value,
        termination=m.termination.value,
        reason=m.reason,
        final_scores=m.scores,
        winner_side=m.winner_side,
    )


class StoreSource:
    """What both sources read from a competition's results store: a subclass
    says where each competition's files are, which matches are being played,
    and where its standings come from."""

    title = "Scopa Arena"
    # Per competition: the crosstable, the rating series and the latest results,
    # and how many results they cover (results only ever grow: recomputed when
    # there are more).
    _derived: dict[
        str, tuple[int, dict[str, dict[str, list[int]]], dict[str, Any], list[spb.MatchSummary]]
    ]

    def __init__(self, standings: StandingsCache) -> None:
        self._derived = {}
        self._standings_cache = standings

    def _layout(self, cid: str) -> Layout:
        raise NotImplementedError

    def _open(self, cid: str) -> contextlib.AbstractContextManager[Store | None]:
        return reading_store(self._layout(cid).store)

    def _running(self, cid: str) -> set[str]:
        return set()

    def _versions(self, cid: str) -> list[spb.LadderVersion] | None:
        """A ladder's versions, if this source keeps them (only the server does)."""
        return None

    def _public(self, text: str) -> str:
        """A free text from a store or a log as this site shows it (the
        server's site leaves out the organiser's paths)."""
        return text

    def _public_data(self, data: dict[str, Any]) -> dict[str, Any]:
        """A match's viewer data as this site shows it (see ``_public``)."""
        return data

    def _spec(self, cid: str, player: str, spec: str) -> str:
        """How the page names what a player played from (its engine's spec here)."""
        return spec

    def _unplayed(self, cid: str, name: str) -> EnginePage | None:
        """The page of a player the store does not have yet (a ladder's
        version entered before its first set), if this source knows one."""
        return None

    def _listed(self, key: str, entry: MatchEntry, running: set[str]) -> spb.MatchSummary:
        summary = wire.listed_match(key, entry, running)
        summary.reason = self._public(summary.reason)
        return summary

    def _standings(self, cid: str) -> spb.StandingsReply:
        """The standings as GetStandings answers them, from the cache (which the
        server fills at its start, and `arena web` before it listens)."""
        cached = self._standings_cache.get(cid)
        if cached is None:
            return wire.standings_reply("no match played yet")
        return wire.standings_reply(cached.text, cached.rows)

    def competition(self, cid: str) -> spb.CompetitionInfo | None:
        raise NotImplementedError

    def overview(self, cid: str) -> Overview | None:
        info = self.competition(cid)
        if info is None:
            return None
        ladder = LadderPart("", self._versions(cid)) if info.format == "ladder" else None
        with self._open(cid) as store:
            if store is None:
                return Overview(
                    Pace(0, 0, None, None),
                    wire.standings_reply("no match played yet"),
                    {},
                    [],
                    {},
                    None,
                    ladder=ladder,
                )
            anchor = _anchor(store)
            if ladder is not None:
                ladder.anchor = anchor
            done, total = store.counts()
            progress = pace(store, done, total)
            derived = self._derived.get(cid)
            if derived is None or derived[0] != done:
                finished = store.finished()
                series = rating_series(finished, elo_k_of(store), anchor)
                latest = [_ended(f"{cid}/{m.id}", m) for m in finished[-LATEST:][::-1]]
                for summary in latest:
                    summary.reason = self._public(summary.reason)
                derived = (done, crosstable(finished), series, latest)
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
            derived[3],
            ladder,
        )

    def _sprt(self, cid: str, store: Store) -> SprtView | None:
        """The SPRT as the run's command line states it: the settings the run
        kept in its store, and the same computation."""
        kept = sprt_test.kept_settings(store)
        if kept is None:
            return None
        s = kept.settings
        status = sprt_test.store_status(s, store)
        verdict = status.verdict or ("no set yet" if status.sets == 0 else "going on")
        missing = ""
        if kept.missing:
            missing = (
                f"this store, from an older arena, does not keep {', '.join(kept.missing)}: "
                "shown at their defaults"
            )
        return SprtView(
            s.test,
            s.base,
            status.sets,
            status.llr,
            status.lower,
            status.upper,
            verdict,
            s.elo0,
            s.elo1,
            missing,
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
        chosen = [e for e in entries if passes_filter(e, f"{cid}/{e.id}", flt, running, faulty)]
        pages = max(1, math.ceil(len(chosen) / PAGE_SIZE))
        page = min(max(1, flt.page), pages)
        shown = chosen[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        return MatchPage(
            [self._listed(f"{cid}/{e.id}", e, running) for e in shown],
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
        info = self._listed(key, entry, self._running(cid))
        if entry.status is not MatchStatus.DONE or not entry.log_path:
            return info, None
        path = self._layout(cid).stored_log(entry.log_path)
        try:
            replay = replay_log(path)
        except (ArenaError, OSError) as e:
            return info, {"error": self._public(f"the log cannot be shown: {e}")}
        found = analysis_path(path)
        try:
            analysis = load_analysis(found, replay) if found.exists() else None
            data = viewer_data(replay, analysis=analysis)
        except (ArenaError, OSError) as e:  # the match is still shown, without it
            data = viewer_data(replay)
            data["status"] += f"; the analysis beside its log is not shown: {e}"
        return info, self._public_data(data)

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

    def bot_of(self, player: str) -> tuple[str, int | None]:
        """The bot a player belongs to and its version: here each its own."""
        return bot_sides.same_name(player)

    def engine(self, cid: str, name: str, version: int | None = None) -> EnginePage | None:
        """The page of player ``name``, or of bot ``name`` whose versions are
        players (only version ``version``'s matches when given)."""
        if self.competition(cid) is None:
            return None
        with self._open(cid) as store:
            if store is None:
                return self._unplayed(cid, name)
            engines = {n: (spec, en, ver) for n, spec, en, ver in store.engines()}
            names = list(engines)  # every seat is an engine (a ladder's versions too)
            bot, number = self.bot_of(name) if name in engines else (name, None)
            players = bot_sides.players_of(names, bot, self.bot_of)
            if name not in engines and not players:
                return self._unplayed(cid, name)
            chosen = [name] if name in engines else players
            if version is not None:
                chosen = [p for p in chosen if self.bot_of(p)[1] == version]
            if not chosen:
                return None
            faults = store.seat_faults(chosen)
            entries = store.matches_of(chosen)
            anchor = _anchor(store)
        running = self._running(cid)
        ids = {key.partition("/")[2] for key in running if key.startswith(f"{cid}/")}
        views = [
            v
            for v in bot_sides.bot_matches(entries, faults, bot, self.bot_of, running=ids)
            if v.player in chosen
        ]
        rows = {r.bot: r for r in self._standings(cid).rows}
        recent = [
            self._listed(f"{cid}/{e.id}", e, running)
            for e in entries
            if e.status is MatchStatus.DONE or f"{cid}/{e.id}" in running
        ]
        played = {p: engines.get(p, ("", "", "")) for p in chosen}
        seated = {e.id: e.seats for e in entries}
        matches = [
            wire.bot_match(f"{cid}/{v.entry.id}", v, running) for v in views[-PAGE_SIZE:][::-1]
        ]
        for match in matches:
            match.reason = self._public(match.reason)
            for fault in match.faults:
                fault.message = self._public(fault.message)
        return EnginePage(
            name,
            [
                {
                    "competition": cid,
                    "spec": self._spec(cid, player, spec),
                    "engine_name": engine_name,
                    "version": ver,
                }
                for player, (spec, engine_name, ver) in played.items()
            ],
            rows.get(chosen[0]) if len(chosen) == 1 else None,
            [
                spb.BotFault(
                    match=f"{cid}/{m}",
                    kind=k,
                    message=self._public(msg),
                    version=played[player][2],
                )
                for m, seat, k, msg in faults
                if (player := seated[m][seat]) in played
            ],
            None,
            recent[-PAGE_SIZE:][::-1],
            matches,
            [(p, self.bot_of(p)[1]) for p in players],
            version if version is not None else number,
            len(views),
            bot,
            anchor,
        )


def _anchor(store: Store) -> str:
    """A ladder's baseline rated 0, as its store keeps it; "" for any other competition."""
    kept = store.kept_json("ladder")
    return str(kept.get("anchor") or "") if isinstance(kept, dict) else ""
