"""Ladders: competitions open to bots that arrive while they run (docs/ladder.md).

A ladder's file lists its baselines (``builtin:NAME``) and its settings
(``[ladder]``). Participants enter versions of their bots; each version is a
player of its own (``BOT@N``), first plays a validation set against the
validation baseline, and is matched once that set ends without a fault of
its own. Each participant's latest ``active_versions`` versions are active;
older ones retire with their matches kept. The server picks every set
(arena/tournament/matchmaking.py) and writes it to the results store before
it is played, so a server killed at any moment resumes with the sets it had
scheduled and loses none. Closing the ladder plays a final among the best
active versions, from a seed of its own committed to at the close.

Everything here runs on the trio loop, which owns the results store.

Why one module of this size: a ladder's phases (ladder, final, finished)
and its sets are one state machine whose steps must happen under one
lock and in one order (the final-phase race of the trust issue lived between
two of its steps).
"""

from __future__ import annotations

import dataclasses
import datetime
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from arena.errors import ArenaError, ConfigError
from arena.results.layout import competition_layout
from arena.results.ratings import Gaussian, gaussian_update
from arena.results.store import MatchStatus, ScheduledMatch, Store, open_store, reading_store
from arena.rules.seeding import commitment, new_seed
from arena.server.names import checked_name, name_key
from arena.server.storage import (
    Bot,
    Competition,
    CompetitionStatus,
    LadderVersion,
    ServerStorage,
    VersionState,
)
from arena.server.versions import baselines_of
from arena.tournament import matchmaking
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import Runner
from arena.tournament.schedule import make_set
from arena.tournament.standings import compute_standings, match_score, side_players
from arena.tournament.standings_cache import CachedStandings

LADDER_PHASE = "ladder"
FINAL_PHASE = "final"
FINISHED_PHASE = "finished"
VALIDATION = "v:"  # set ids: v:PLAYER#I (validation), l:N:A~B (ladder), f:A~B#R (final)
LADDER_SET = "l:"
FINAL = "f:"
IDLE_POLL = 1.0  # seconds between looks for work while there is none


@dataclass(frozen=True)
class LadderSettings:
    """The ``[ladder]`` table of a ladder's file."""

    active_versions: int = 2  # each participant's latest versions that are matched
    validation_sets: int = 1  # sets a new version plays against the validation baseline
    validation_baseline: str = ""  # a baseline's name; default: the file's first
    first_sets: int = 3  # ladder sets a version is owed as soon as it is active
    submissions_per_day: int = 5  # versions a participant may enter a day (UTC); 0: no limit
    # Who may enter: "anyone" (any participant, and anyone may register one),
    # "registered" (participants registered before the ladder was created),
    # or the names of the participants the organiser invited.
    entrants: str | tuple[str, ...] = "anyone"
    final_top: int = 8  # versions in the final
    final_sets: int = 2  # duplicate sets between each two finalists


_LEAST = {
    "active_versions": 1,
    "validation_sets": 1,
    "first_sets": 0,
    "submissions_per_day": 0,
    "final_top": 2,
    "final_sets": 1,
}


def ladder_settings(text: str, baselines: Sequence[str]) -> LadderSettings:
    """The settings of a ladder's file; ConfigError naming the key at fault."""
    try:
        raw = tomllib.loads(text).get("ladder", {})
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"competition config is not valid TOML: {e}") from None
    if not isinstance(raw, dict):
        raise ConfigError("[ladder] must be a table")
    known = {f.name for f in dataclasses.fields(LadderSettings)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(
            f"[ladder]: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})"
        )
    values: dict[str, Any] = {}
    for key, least in _LEAST.items():
        if key in raw:
            value = raw[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ConfigError(f"[ladder]: {key} must be an integer of at least {least}")
            values[key] = value
    values["entrants"] = _entrants(raw.get("entrants", "anyone"))
    baseline = raw.get("validation_baseline", baselines[0] if baselines else "")
    if not isinstance(baseline, str) or baseline.removeprefix("builtin:") not in baselines:
        raise ConfigError(
            f"[ladder]: validation_baseline must be one of the baselines ({', '.join(baselines)})"
        )
    values["validation_baseline"] = baseline.removeprefix("builtin:")
    return LadderSettings(**values)


def _entrants(value: object) -> str | tuple[str, ...]:
    """The ``entrants`` setting: "anyone", "registered" or the names invited."""
    if value in ("anyone", "registered"):
        return str(value)
    if isinstance(value, list) and value and all(isinstance(name, str) for name in value):
        return tuple(checked_name(name, "participant name in [ladder] entrants") for name in value)
    raise ConfigError(
        '[ladder]: entrants must be "anyone", "registered" (participants registered before '
        'the ladder is created) or the participants invited, e.g. ["alice", "bob"]'
    )


def next_day(now: datetime.datetime | None = None) -> str:
    """When a participant over the day's limit may enter again: next midnight UTC."""
    now = now or datetime.datetime.now(datetime.UTC)
    tomorrow = (now + datetime.timedelta(days=1)).date()
    return f"{tomorrow.isoformat()}T00:00:00Z"


def validation_ids(player: str, sets: int) -> list[str]:
    return [f"{VALIDATION}{player}#{i}" for i in range(sets)]


def live_ratings(store: Store, anchor: str) -> dict[str, Gaussian]:
    """Each player's live estimate from every result in the store, in the order
    recorded, relative to the anchor baseline (its own estimate is 0)."""
    ratings: dict[str, Gaussian] = {}
    for m in store.finished():
        if m.termination.has_result:
            _fold(ratings, side_players(m, 0), side_players(m, 1), match_score(m, 0))
    return _relative(ratings, anchor)


def live_ratings_at(path: Path, anchor: str) -> dict[str, Gaussian]:
    """live_ratings of the store at ``path``, read through a connection of its own."""
    with reading_store(path) as store:
        return {} if store is None else live_ratings(store, anchor)


def sets_played(store: Store) -> dict[str, int]:
    """Each player's sets played to their end (every match of the set
    recorded), validation and final sets included: a retired version keeps
    the sets it played."""
    unfinished = {m.set_id for m in store.pending()}
    sets: dict[str, set[str]] = {}
    for m in store.finished():
        if m.set_id not in unfinished:
            for name in set(m.seats):
                sets.setdefault(name, set()).add(m.set_id)
    return {name: len(ids) for name, ids in sets.items()}


def sets_played_at(path: Path) -> dict[str, int]:
    """sets_played of the store at ``path``, read through a connection of its own."""
    with reading_store(path) as store:
        return {} if store is None else sets_played(store)


def _fold(
    ratings: dict[str, Gaussian], side_a: Sequence[str], side_b: Sequence[str], score: float
) -> None:
    """One match into the live estimates (a ladder's sides are one player each)."""
    a, b = side_a[0], side_b[0]
    ratings[a], ratings[b] = gaussian_update(
        ratings.get(a, Gaussian()), ratings.get(b, Gaussian()), score
    )


def _relative(ratings: Mapping[str, Gaussian], anchor: str) -> dict[str, Gaussian]:
    base = ratings[anchor].mu if anchor in ratings else 0.0
    return {n: Gaussian(g.mu - base, g.sigma) for n, g in ratings.items()}


class Ladder:
    """One ladder being played: its store (as the one writer), its runner,
    the versions' states and the matchmaker's view. Call on the trio loop."""

    def __init__(
        self,
        comp_id: str,
        storage: ServerStorage,
        data: Path,
        store: Store,
        runner: Runner,
        settings: LadderSettings,
        baselines: Sequence[str],
        config_for: Callable[[Mapping[str, str]], TournamentConfig],
        latest_fit: Callable[[], CachedStandings | None] = lambda: None,
    ) -> None:
        """``config_for(players)``: the competition's configuration with these
        versions (player name -> address) as engines besides the baselines.
        ``latest_fit()``: the last standings the background fit made, at once."""
        self.latest_fit = latest_fit
        self.comp_id = comp_id
        self.storage = storage
        self.data = data
        self.store = store
        self.runner = runner
        self.settings = settings
        self.baselines = list(baselines)
        self.anchor = settings.validation_baseline
        self._config_for = config_for
        self._players: dict[str, str] = {}  # every version with an engine: player -> address
        self._in_flight: set[str] = set()  # duplicate sets being played
        self._final_lock = trio.Lock()  # one worker schedules the final
        self.wake = trio.Event()  # set when there may be new work (an entry, a close)
        self.ratings: dict[str, Gaussian] = {}  # replayed from the store by play()
        self.sets: dict[str, int] = {}  # each player's sets played, counted by play()
        kept = store.kept_json("matchmaking")
        self.standing: dict[str, matchmaking.Standing] = {}
        self._since = 0
        if isinstance(kept, dict):
            for name, values in kept.get("players", {}).items():
                self.standing[name] = matchmaking.Standing(Gaussian(), **values)
            self._since = int(kept.get("since", 0))
        self._set_counter = int(store.kept_json("ladder_sets") or 0)

    # Versions ------------------------------------------------------------------------

    def versions(self) -> list[LadderVersion]:
        return self.storage.versions(self.comp_id)

    def phase(self) -> str:
        competition = self.storage.competition(self.comp_id)
        return (competition.phase if competition is not None else "") or LADDER_PHASE

    def refresh_players(self) -> None:
        """Give every version that may play an engine, and keep the store's
        view of who is active (which the standings read)."""
        # Every version that ever played keeps its engine: a retired one may
        # still have a set scheduled before it retired.
        playing = {
            v.player: v.address for v in self.versions() if v.state is not VersionState.REJECTED
        }
        if playing.keys() - self._players.keys():
            self._players.update(playing)
            self.runner.cfg = self._config_for(self._players)
            self.store.add_engines(
                (e.name, e.describe()) for e in self.runner.cfg.engines if e.name in playing
            )
        active = [*self.baselines, *(v.player for v in self.active_versions())]
        self.store.keep_json("ladder", {"active": active, "anchor": self.anchor})
        for name in active:
            if name not in self.standing:
                self._since += 1
                owed = 0 if name in self.baselines else self.settings.first_sets
                self.standing[name] = matchmaking.Standing(Gaussian(), owed=owed, since=self._since)
        for name in list(self.standing):
            if name not in active:
                del self.standing[name]

    def active_versions(self) -> list[LadderVersion]:
        return [v for v in self.versions() if v.state is VersionState.ACTIVE]

    def _judge(self, player: str) -> None:
        """A version's validation is over: active if none of its validation
        matches holds a fault of its own, else rejected saying which."""
        ids = validation_ids(player, self.settings.validation_sets)
        matches = [m for set_id in ids for m in (f"{set_id}/0", f"{set_id}/1")]
        entries = [self.store.match(m) for m in matches]
        if any(e is None or e.status is not MatchStatus.DONE for e in entries):
            return  # not over yet (paused, or stopped with the server)
        version = self.storage.version(self.comp_id, player)
        if version is None or version.state is not VersionState.VALIDATING:
            return  # judged already, or rejected when the ladder closed
        own = [f for f in self.store.faults_of(player) if f[0] in matches]
        if own:
            match_id, kind, message = own[0]
            reason = f"its validation set had a fault of its own in {match_id}: {kind}: {message}"
            self.storage.set_version_state(self.comp_id, player, VersionState.REJECTED, reason)
        else:
            self.storage.set_version_state(self.comp_id, player, VersionState.ACTIVE)
            self._retire_older(player)
        self.refresh_players()

    def _retire_older(self, player: str) -> None:
        """Keep each participant's latest ``active_versions`` versions active."""
        version = self.storage.version(self.comp_id, player)
        assert version is not None
        own = [v for v in self.active_versions() if v.owner == version.owner]
        own.sort(key=lambda v: (v.entered_at, v.number))
        keep = self.settings.active_versions
        for old in own[: max(0, len(own) - keep)]:
            why = f"{version.owner} has {keep} newer active version{'s' if keep > 1 else ''}"
            self.storage.set_version_state(self.comp_id, old.player, VersionState.RETIRED, why)

    # Scheduling ------------------------------------------------------------------------

    def _pending_sets(self) -> list[list[ScheduledMatch]]:
        """Sets written to the store and not all played, not in flight, in
        the order scheduled: after a restart or a pause, these go first."""
        sets: dict[str, list[ScheduledMatch]] = {}
        for m in self.store.pending():
            if m.set_id not in self._in_flight:
                sets.setdefault(m.set_id, []).append(m)
        return list(sets.values())

    def _new_set(
        self, set_id: str, seats: tuple[str, ...], meta: Mapping[str, Any] | None = None
    ) -> list[ScheduledMatch]:
        """A duplicate set written to the store (with the scheduler's ``meta``)."""
        seq = self.store.counts()[1]
        matches = make_set(self.runner.cfg, set_id, seats, 2, seq)
        self.store.schedule(matches, meta)
        return matches

    def _base(self, a: str, b: str) -> tuple[str, ...]:
        return (a, b) * (self.runner.cfg.variant.seats // 2)

    def next_set(self) -> list[ScheduledMatch] | None:
        """The next set to play, written to the store first; None when there
        is nothing to play now."""
        pending = self._pending_sets()
        if pending:
            return pending[0]
        if self.phase() == LADDER_PHASE:
            return self._validation_set() or self._ladder_set()
        return None  # closed: the final is scheduled whole, in _start_final

    def _validation_set(self) -> list[ScheduledMatch] | None:
        for v in self.versions():
            if v.state is not VersionState.VALIDATING:
                continue
            for set_id in validation_ids(v.player, self.settings.validation_sets):
                if self.store.match(f"{set_id}/0") is None:
                    self.refresh_players()
                    return self._new_set(set_id, self._base(v.player, self.anchor))
        return None

    def _ladder_set(self) -> list[ScheduledMatch] | None:
        suspended = self.store.suspended()
        players = {n: s for n, s in self.standing.items() if n not in suspended}
        for name, s in players.items():
            s.rating = self.ratings.get(name, Gaussian())
        pair = matchmaking.next_pair(players, difference=self._difference())
        if pair is None:
            return None
        matchmaking.scheduled(players, pair)
        self._set_counter += 1
        a, b = pair
        return self._new_set(
            f"{LADDER_SET}{self._set_counter}:{a}~{b}", self._base(a, b), self._matchmaking()
        )

    def _difference(self) -> matchmaking.Difference:
        """Rating differences as the last batch fit knows them (its covariance),
        else from the live Gaussians (a version the fit has not seen yet)."""
        cached = self.latest_fit()
        ratings = cached.ratings if cached is not None else {}
        covariance = cached.covariance if cached is not None else None
        columns: dict[str, list[float]] = {}

        def difference(a: str, b: str) -> tuple[float, float]:
            if covariance is not None and a in ratings and b in ratings:
                va, vb = covariance.variance(a), covariance.variance(b)
                if va is not None and vb is not None:
                    shared = 0.0
                    if covariance.anchor not in (a, b):
                        if a not in columns:
                            columns[a] = covariance.column(a)
                        shared = columns[a][covariance.index[b]]
                    return ratings[a] - ratings[b], max(va + vb - 2 * shared, 1.0)
            ga, gb = self.ratings.get(a, Gaussian()), self.ratings.get(b, Gaussian())
            return ga.mu - gb.mu, ga.sigma**2 + gb.sigma**2

        return difference

    def _matchmaking(self) -> dict[str, Any]:
        """The matchmaker's counts, kept with each set so that a restart goes on from them."""
        players = {
            n: {"sets": s.sets, "due": s.due, "owed": s.owed, "since": s.since}
            for n, s in self.standing.items()
        }
        return {
            "matchmaking": {"players": players, "since": self._since},
            "ladder_sets": self._set_counter,
        }

    # Playing ---------------------------------------------------------------------------

    async def play(self) -> bool:
        """Play until the ladder is paused (False) or its final is over (True)."""
        # Replaying every result takes seconds at 100,000: off the loop.
        self.ratings = await trio.to_thread.run_sync(live_ratings_at, self.store.path, self.anchor)
        self.sets = await trio.to_thread.run_sync(sets_played_at, self.store.path)
        self.refresh_players()
        for v in self.versions():
            if v.state is VersionState.VALIDATING:
                self._judge(v.player)  # its set may have ended just before a stop
        slots = trio.CapacityLimiter(self.runner.cfg.concurrency)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.runner.govern, slots)
            async with trio.open_nursery() as workers:
                for _ in range(self.runner.cfg.concurrency):
                    workers.start_soon(self._worker, slots)
            nursery.cancel_scope.cancel()
        return self.phase() == FINISHED_PHASE

    async def _worker(self, slots: trio.CapacityLimiter) -> None:
        while not self.runner.should_stop():
            phase = self.phase()
            if phase == FINISHED_PHASE:
                return
            if phase == FINAL_PHASE and self._all_played():
                if await self._settle_final():
                    return
                continue
            async with slots:
                matches = None if self.runner.should_stop() else self.next_set()
                if matches is None:
                    with trio.move_on_after(IDLE_POLL):
                        await self.wake.wait()
                    if self.wake.is_set():
                        self.wake = trio.Event()
                    continue
                await self._play_set(matches)

    async def _play_set(self, matches: list[ScheduledMatch]) -> None:
        """The matches of one set, one after the other: never two of a set at once."""
        set_id = matches[0].set_id
        self._in_flight.add(set_id)
        try:
            for match in matches:
                if self.runner.should_stop():
                    return
                await self.runner.play(match)
                self._rate(match.id)
        finally:
            self._in_flight.discard(set_id)
        entries = [self.store.match(m.id) for m in matches]
        if all(e is not None and e.status is MatchStatus.DONE for e in entries):
            for name in set(matches[0].seats):  # the set is over: one more each
                self.sets[name] = self.sets.get(name, 0) + 1
        if set_id.startswith(VALIDATION):
            self._judge(set_id[len(VALIDATION) :].rsplit("#", 1)[0])

    def _rate(self, match_id: str) -> None:
        entry = self.store.match(match_id)
        if entry is None or entry.termination is None or not entry.termination.has_result:
            return
        score = 0.5 if entry.winner_side is None else float(entry.winner_side == 0)
        raw = dict(self.ratings)
        seats = entry.seats
        _fold(raw, (seats[0],), (seats[1],), score)
        self.ratings = _relative(raw, self.anchor)

    # The final -------------------------------------------------------------------------

    def _all_played(self) -> bool:
        """Every set written to the store has its results: none pending, none in flight."""
        return not self._in_flight and not self.store.pending()

    def _final_scheduled(self) -> bool:
        return isinstance(self.store.kept_json("final"), dict)

    async def _settle_final(self) -> bool:
        """The closed ladder has nothing left to play: schedule its final, or
        finish it once the final has been played whole; True when finished.
        One worker at a time, and everything is looked at again under the
        lock: while this worker waited for it, another may have scheduled the
        final (its fit is awaited), and those sets are not played yet."""
        async with self._final_lock:
            if not self._all_played():
                return False
            if not self._final_scheduled():
                await self._start_final()
                return False
            self._finish()  # nothing awaited since the look above
            return True

    async def _start_final(self) -> None:
        """Rank the active versions by the batch fit and schedule the final
        among the best, from the final's seed (committed at the close). A
        version whose entry crossed the close is rejected now, as at the close."""
        seed = self.store.meta("final_seed")
        if seed is None:  # closed while no server ran it: commit now, before use
            seed = commit_final_seed(self.store)
        reject_validating(self.storage, self.comp_id)
        store_path = self.store.path
        standings = await trio.to_thread.run_sync(_standings_of, store_path)
        ranked = [r.engine for r in standings.rows if not r.baseline]
        finalists = ranked[: self.settings.final_top]
        seeded = dataclasses.replace(self.runner.cfg, seed=seed)
        matches: list[ScheduledMatch] = []
        seq = self.store.counts()[1]
        for i, a in enumerate(finalists):
            for b in finalists[i + 1 :]:
                for r in range(self.settings.final_sets):
                    matches += make_set(seeded, f"{FINAL}{a}~{b}#{r}", self._base(a, b), 2, seq)
                    seq += 2
        self.store.schedule(matches, {"final": {"finalists": finalists}})

    def _finish(self) -> None:
        """The final is over (every match of it has a result): both seeds
        revealed, the phase finished. Only _settle_final calls it."""
        assert self._all_played(), "a ladder finishes only once its final is played whole"
        reject_validating(self.storage, self.comp_id)
        self.store.reveal_seed()
        self.store.set_meta("final_seed_revealed", "1")
        self.storage.set_phase(self.comp_id, FINISHED_PHASE)


def _standings_of(path: Path) -> Any:
    """The batch-fit standings of the store at ``path`` (read apart, on a thread)."""
    with reading_store(path) as store:
        assert store is not None
        return compute_standings(store, resamples=0)


def commit_final_seed(store: Store) -> str:
    """A fresh seed for a ladder's final, with its commitment published, once."""
    seed = store.meta("final_seed")
    if seed is None:
        seed = new_seed()
        with store.transaction():
            store.set_meta("final_seed", seed)
            store.set_meta("final_seed_commitment", commitment(seed))
    return seed


def reject_validating(storage: ServerStorage, comp_id: str) -> None:
    """The ladder is closed: a version still in validation will not be judged."""
    for v in storage.versions(comp_id):
        if v.state is VersionState.VALIDATING:
            storage.set_version_state(
                comp_id,
                v.player,
                VersionState.REJECTED,
                "the ladder was closed before its validation set was over",
            )


def close_ladder(storage: ServerStorage, data: Path, comp_id: str, ladder: Ladder | None) -> None:
    """Lock a ladder's entries and commit its final's seed (through the running
    ladder's store when it runs, else the store itself). A version still in
    validation does not play the final."""
    storage.set_phase(comp_id, FINAL_PHASE)
    reject_validating(storage, comp_id)
    if ladder is not None:
        commit_final_seed(ladder.store)
        ladder.wake.set()
        return
    path = competition_layout(data, comp_id).store
    try:
        store = open_store(path, writer=True)
    except ArenaError:
        return  # the next start commits it, before any final match
    try:
        commit_final_seed(store)
    finally:
        store.close()


# Entries ---------------------------------------------------------------------------------


class EntryRefused(ArenaError):
    """A version a ladder does not take now, and why; ``over_limit`` when it is
    its owner's day's limit (the caller may try again from the time given),
    ``not_entrant`` when its owner may not enter this ladder at all."""

    def __init__(self, message: str, over_limit: bool = False, not_entrant: bool = False) -> None:
        super().__init__(message)
        self.over_limit = over_limit
        self.not_entrant = not_entrant


def is_ladder(competition: Competition) -> bool:
    try:
        return tomllib.loads(competition.config).get("format") == "ladder"
    except tomllib.TOMLDecodeError:
        return False


def open_ladders_of(storage: ServerStorage, bot: str) -> list[Competition]:
    """The ladders bot ``bot`` has a version in that still take new ones."""
    out = []
    for comp_id in storage.ladders_of(bot):
        competition = storage.competition(comp_id)
        if competition is not None and _open(competition) is None:
            out.append(competition)
    return out


def _open(competition: Competition) -> str | None:
    """Why the ladder takes no new version now, or None."""
    if not is_ladder(competition):
        return f"competition {competition.id} is not a ladder"
    if competition.status in (CompetitionStatus.FINISHED, CompetitionStatus.FAILED):
        return f"ladder {competition.id} is {competition.status.value}"
    if competition.phase not in ("", LADDER_PHASE):
        return f"ladder {competition.id} is closed: its final is being played"
    return None


def limit_refusal(storage: ServerStorage, competition: Competition, owner: str) -> str | None:
    """Why ``owner`` may enter no more versions in this ladder today, or None
    (checked before an upload's check is run; entering checks it again)."""
    settings = ladder_settings(competition.config, baselines_of(competition.engines))
    if not settings.submissions_per_day:
        return None
    if storage.entered_today(competition.id, owner) < settings.submissions_per_day:
        return None
    return _over_limit(competition, owner, settings.submissions_per_day)


def _over_limit(competition: Competition, owner: str, limit: int) -> str:
    return (
        f"{owner} has entered {limit} version{'s' if limit > 1 else ''} in ladder "
        f"{competition.id} today (UTC), its limit a day; the next is allowed from {next_day()}"
    )


def _not_entrant(
    storage: ServerStorage, competition: Competition, settings: LadderSettings, owner: str
) -> str | None:
    """Why ``owner`` may not enter versions in this ladder, or None. Anyone
    may register a participant, so a day's limit per participant holds per
    person only where the organiser takes the participants it knows: those
    registered before the ladder was created, or those it invited."""
    if settings.entrants == "anyone":
        return None
    if settings.entrants == "registered":
        if storage.registered_before(competition.id, owner):
            return None
        return (
            f"ladder {competition.id} takes the participants registered before it was "
            f"created ({competition.created_at}); {owner} registered at "
            f"{storage.participant_since(owner)}"
        )
    if name_key(owner) in {name_key(name) for name in settings.entrants}:
        return None
    return f"ladder {competition.id} takes only the participants its organiser invited"


def enter_version(
    storage: ServerStorage,
    competition: Competition,
    bot: Bot,
    check: Callable[[Mapping[str, str]], object],
) -> LadderVersion:
    """Enter bot ``bot``'s current version in the ladder; EntryRefused saying
    why not. ``check(players)`` reads the competition's configuration with
    that version as a player, so that a version the ladder could never
    play (a game it does not play, a remote bot in duplicate deals nobody
    accepted) is refused now and not at its first match."""
    why = _open(competition)
    if why is not None:
        raise EntryRefused(why)
    if bot.withdrawn:
        raise EntryRefused(f"bot {bot.name!r} was withdrawn")
    settings = ladder_settings(competition.config, baselines_of(competition.engines))
    why = _not_entrant(storage, competition, settings, bot.owner)
    if why is not None:
        raise EntryRefused(why, not_entrant=True)
    try:
        check({f"{bot.name}@0": bot.address})
    except ConfigError as e:
        raise EntryRefused(f"bot {bot.name!r} cannot play in this ladder: {e}") from None
    limit = settings.submissions_per_day or None
    version = storage.add_version(competition.id, bot.name, bot.owner, bot.address, limit)
    if version is None:
        raise EntryRefused(_over_limit(competition, bot.owner, limit or 0), over_limit=True)
    return version
