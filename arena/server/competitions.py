"""Competitions: a tournament file over registered bots, run on the trio loop
by the tournament engine (so it keeps its resume guarantees), paused, and
resumed when the server starts again. Each competition has its own
directory under the server's data, with its results store and logs.

Why one module of this size: a competition's life (created from its file,
started, paused, resumed after a restart, failed with its reason) is one state
machine whose transitions share the manager's lock and nursery; its file
checks (the first 300 lines) could move to a module of their own
(server/competition_files.py) without changing it."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

if TYPE_CHECKING:
    from arena.tournament.standings_cache import CachedStandings, StandingsCache

from arena.broker import Broker
from arena.cluster import ClusterError
from arena.errors import ArenaError, ConfigError, RulesError
from arena.match.outcome import MatchEvent
from arena.match.settings import AddressEngine, BuiltinEngine, ClusterSettings, CommandEngine
from arena.players.strategies import BUILT_IN
from arena.results.layout import competition_layout
from arena.results.ratings import START_SIGMA, Gaussian
from arena.results.store import MatchStatus, Store, open_store, reading_store
from arena.rules import Game
from arena.server.ladder import (
    FINAL_PHASE,
    FINISHED_PHASE,
    LADDER_PHASE,
    Ladder,
    close_ladder,
    is_ladder,
    ladder_settings,
    live_ratings,
    sets_played,
)
from arena.server.liveness import Liveness
from arena.server.storage import Bot, Competition, CompetitionStatus, ServerStorage
from arena.server.submissions import SubmissionFiles, submission_digest
from arena.server.versions import BASELINE_PREFIX, baselines_of
from arena.tournament.config import TournamentConfig, config_from_dict
from arena.tournament.lifecycle import Run, open_player
from arena.tournament.runner import Runner
from arena.tournament.schedule import build_schedule
from arena.transport.seats import check_partners
from arena.wire import service as wire
from arena.wire.v1 import server_pb2 as spb


def competition_config(
    text: str,
    address_of: Callable[[str], str],
    output: Path,
    files: SubmissionFiles | None = None,
    players: Mapping[str, str] | None = None,
) -> tuple[TournamentConfig, dict[str, str]]:
    """A tournament file whose engines are registered bots (``bots = [...]``),
    each reached at ``address_of(name)``, and baselines (``builtin:NAME``, a
    strategy the arena plays itself, named NAME); the bots' names and
    addresses in order. An uploaded bot's address is its submission
    (``submission:SHA256``), which ``files`` turns into the command the arena
    launches, sandboxed, per match. A ladder (``format = "ladder"``) lists
    baselines only; ``players`` are the versions that entered it (player
    name, address), added as engines of those names."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"competition config is not valid TOML: {e}") from None
    bots = raw.pop("bots", None)
    raw.pop("ladder", None)  # the ladder's own settings: ladder_settings
    if "engine" in raw:
        raise ConfigError(
            "a competition names registered bots (bots = [...]), not [[engine]] tables"
        )
    ladder = raw.get("format") == "ladder"
    least = 1 if ladder else 2
    if not isinstance(bots, list) or len(bots) < least or not all(isinstance(b, str) for b in bots):
        if ladder:
            raise ConfigError(
                'a ladder needs bots = ["builtin:NAME", ...]: at least one baseline, which '
                "every new version plays its validation set against"
            )
        raise ConfigError('a competition needs bots = ["name", "name", ...] with at least 2 bots')
    if len(set(bots)) != len(bots):
        raise ConfigError(f"a competition names each bot once ({', '.join(bots)})")
    if ladder and (registered := [b for b in bots if not b.startswith(BASELINE_PREFIX)]):
        raise ConfigError(
            f"a ladder's file lists its baselines only (builtin:NAME), not {registered[0]!r}: "
            "bots enter it themselves, with `arena remote enter LADDER BOT`"
        )
    engines = {
        _baseline_name(b): b if b.startswith(BASELINE_PREFIX) else address_of(b) for b in bots
    }
    if len(engines) != len(bots):
        same = next(n for n in engines if n in bots and f"{BASELINE_PREFIX}{n}" in bots)
        raise ConfigError(
            f"bot {same!r} and baseline {BASELINE_PREFIX}{same} would play under one name; "
            "enter only one of them"
        )
    raw.pop("store", None)
    raw["engine"] = [_engine_table(name, spec, files) for name, spec in engines.items()]
    # A version is named BOT@N, which no engine name may be: it enters under
    # a placeholder and is renamed once the file is read.
    placeholders = {f"version-{i}": player for i, player in enumerate(players or {})}
    raw["engine"] += [
        _engine_table(placeholder, (players or {})[player], files)
        for placeholder, player in placeholders.items()
    ]
    raw["output"] = str(output)
    if ladder:
        # Sets are the unit a ladder rates; a version that cannot start
        # forfeits (and is suspended after three) rather than stopping the ladder.
        raw.setdefault("duplicate", True)
        raw.setdefault("startup_failure_forfeits", True)
        raw.setdefault("suspend_after", 3)
    # Registered bots are remote: they could recognise a duplicate deal's twin, so
    # single deals unless the organiser asks for duplicates (and acknowledges that).
    raw.setdefault("duplicate", False)
    _default_probes(raw)
    try:
        cfg = config_from_dict(raw, "competition")
    except ConfigError as e:
        text = str(e)
        for placeholder, player in placeholders.items():
            text = text.replace(placeholder, player)
        raise ConfigError(text) from None
    if placeholders:
        renamed = tuple(
            dataclasses.replace(e, name=placeholders[e.name]) if e.name in placeholders else e
            for e in cfg.engines
        )
        cfg = dataclasses.replace(cfg, engines=renamed)
    if files is not None:
        every = {**engines, **(players or {})}
        _refuse_unplayable_submissions(cfg, every, files)
    return cfg, engines


def probes_on(config: str) -> bool:
    """Whether a competition's file probes its partner seats (docs/audit.md)."""
    try:
        raw = tomllib.loads(config)
    except tomllib.TOMLDecodeError:
        return False
    _default_probes(raw)
    return isinstance(raw.get("probes"), dict)


def _default_probes(raw: dict[str, Any]) -> None:
    """Partners the arena reaches by address could pool their hands outside the
    game: a team competition probes their decisions unless the file says
    ``probes = false`` (docs/audit.md); a [probes] table sets how."""
    if raw.get("probes") is False:
        del raw["probes"]
        return
    try:
        seats = Game.parse(str(raw.get("variant", Game.SCOPA.value))).seats
    except RulesError:
        return  # reading the file says what is wrong with it
    if seats == 4:
        raw.setdefault("probes", {})


def _baseline_name(entry: str) -> str:
    """The name a ``bots`` entry plays under: a baseline ``builtin:NAME`` is NAME."""
    if entry.startswith(BASELINE_PREFIX):
        which = entry[len(BASELINE_PREFIX) :].split(" ", 1)[0]  # then its options, if any
        fair = [k for k, b in BUILT_IN.items() if not b.sees_every_hand]
        if which not in BUILT_IN:
            known = ", ".join(f"{BASELINE_PREFIX}{k}" for k in fair)
            raise ConfigError(f"unknown baseline {entry!r}; known: {known}")
        if BUILT_IN[which].sees_every_hand:
            raise ConfigError(
                f"{BASELINE_PREFIX}{which} sees every hand: a research bound for local "
                "tournaments, never a competitor (competitions refuse it)"
            )
        return which
    return entry


def _engine_table(name: str, spec: str, files: SubmissionFiles | None) -> dict[str, Any]:
    digest = submission_digest(spec)
    if digest is None:
        return {"name": name, "spec": spec}
    if files is None:
        raise ConfigError(f"bot {name!r} is an uploaded bot, which this server cannot run")
    return files.engine_table(name, digest)


def _refuse_unplayable_submissions(
    cfg: TournamentConfig, engines: dict[str, str], files: SubmissionFiles
) -> None:
    """An uploaded bot gets a fresh sandbox for every match, and plays only the
    games its manifest names."""
    uploaded = {name: d for name, spec in engines.items() if (d := submission_digest(spec))}
    if uploaded and cfg.keep_warm:
        raise ConfigError(
            "keep_warm cannot be used with uploaded bots: each of their matches "
            f"starts in a fresh sandbox ({', '.join(uploaded)})"
        )
    for name, digest in uploaded.items():
        _refuse_game(cfg, name, files.stored(digest).manifest.games)


def refuse_unplayable(cfg: TournamentConfig, storage: ServerStorage) -> None:
    """ConfigError, at create, for a bot that cannot play the competition's
    game, by the games its last check played it in (its manifest's, else its
    handshake's): otherwise every one of its matches would end no contest."""
    for engine in cfg.engines:
        bot = None if isinstance(engine, BuiltinEngine) else storage.bot(engine.name)
        if bot is not None:
            _refuse_game(cfg, engine.name, bot.games)
            _refuse_options(cfg, engine.name, bot.options)


def _refuse_game(cfg: TournamentConfig, name: str, games: Sequence[str]) -> None:
    game = cfg.variant.game.value
    if games and game not in games:
        raise ConfigError(f"bot {name!r} cannot play {game}: it plays {', '.join(games)} only")


def _refuse_options(cfg: TournamentConfig, name: str, options: Sequence[str] | None) -> None:
    """The options its last check's handshake listed (None: not known, let the
    referee hold it to its handshake at each match)."""
    missing = [o for o in cfg.variant.options if options is not None and o not in options]
    if missing:
        plays = ", ".join(options or ()) or "none"
        raise ConfigError(
            f"bot {name!r} cannot play the option(s) {', '.join(missing)}: "
            f"its handshake lists {plays}"
        )


def registered_address(storage: ServerStorage) -> Callable[[str], str]:
    """The address of a bot as registered now, for a competition being created."""

    def address_of(name: str) -> str:
        bot = storage.bot(name)
        if bot is None:
            raise ConfigError(f"no registered bot named {name!r}")
        if bot.withdrawn:
            raise ConfigError(f"bot {name!r} was withdrawn")
        return bot.address

    return address_of


def snapshot_address(competition: Competition, storage: ServerStorage) -> Callable[[str], str]:
    """The address a bot had when the competition was created (older records,
    made before snapshots were kept, fall back to the registered one)."""
    registered = registered_address(storage)

    def address_of(name: str) -> str:
        if name in competition.engines:
            return competition.engines[name]
        return registered(name)

    return address_of


def refuse_unworkable(cfg: TournamentConfig) -> None:
    """ConfigError for a competition that could never be played, found at
    create rather than when its first match starts: a bot the arena cannot
    dial, or one remote bot in two partner seats without the organiser's consent."""
    for engine in cfg.engines:
        if isinstance(engine, BuiltinEngine):
            continue  # a baseline, played by the arena itself
        if isinstance(engine, CommandEngine) and engine.workdir is not None:
            continue  # an uploaded bot, launched by the arena
        if not isinstance(engine, AddressEngine):
            raise ConfigError(
                f"bot {engine.name!r} is registered at {engine.describe()!r}, which is not an "
                "address the arena can dial (HOST:PORT, [IPV6]:PORT or unix:/PATH)"
            )
    if not cfg.variant.game.is_team_game or cfg.allow_shared_partners:
        return
    # Who sits where does not depend on the seed (only the decks do): any will do.
    seated = dataclasses.replace(cfg, seed=cfg.seed or "seatings")
    for seats in {tuple(m.seats) for m in build_schedule(seated)}:
        try:
            check_partners([cfg.engine(name) for name in seats], allow_shared=False)
        except ConfigError as e:
            why = str(e).split("; allow it", 1)[0]
            raise ConfigError(
                f"{why}; give each partner seat its own bot (another address), or set "
                "allow_shared_partners = true to accept it"
            ) from None


def prepare_store(cfg: TournamentConfig, engines: Mapping[str, str]) -> None:
    """Make the results store with its seed commitment and full schedule, so
    that the commitment is public before any match and counts are right at once."""
    with Run.open(cfg) as run:
        run.schedule()
        keep_baselines(run.store, engines)


def keep_baselines(store: Store, engines: Mapping[str, str]) -> None:
    """Which of the competition's players are baselines, in its store: every
    standings table, the site's too, marks them from there."""
    store.keep_json("baselines", baselines_of(engines))


def entry_check(
    competition: Competition, storage: ServerStorage, data: Path, bot: Bot
) -> Callable[[Mapping[str, str]], object]:
    """What enter_version runs on a version before it enters: the ladder's
    file read with it as a player, and the games the bot plays."""

    def check(players: Mapping[str, str]) -> object:
        cfg, _ = competition_config(
            competition.config,
            snapshot_address(competition, storage),
            competition_layout(data, competition.id).directory,
            SubmissionFiles(data),
            players,
        )
        _refuse_game(cfg, bot.name, bot.games)
        _refuse_options(cfg, bot.name, bot.options)
        shared = cfg.variant.game.is_team_game and not cfg.allow_shared_partners
        if shared and submission_digest(bot.address) is None:
            raise ConfigError(
                "a team game's ladder seats each version in every seat of its side, and a "
                "bot you run yourself would then see its partners' hands; enter an uploaded bot "
                "(each seat its own sandbox), or the organiser sets allow_shared_partners = true"
            )
        return cfg

    return check


def competition_results(
    data: Path, comp_id: str
) -> contextlib.AbstractContextManager[Store | None]:
    """The results store of a competition, or None before its first start."""
    return reading_store(competition_layout(data, comp_id).store)


def finished_logs(data: Path, comp_id: str) -> list[Path]:
    """The logs of a competition's finished matches, in schedule order."""
    with competition_results(data, comp_id) as store:
        entries = [] if store is None else store.matches()
    return [Path(e.log_path) for e in entries if e.status is MatchStatus.DONE and e.log_path]


def audit_path(data: Path, comp_id: str) -> Path:
    """Where the organiser's last full audit of a competition is kept (docs/audit.md)."""
    return data / comp_id / "audit.json"


def save_audit(data: Path, comp_id: str, document: str) -> None:
    """Keep an audit report whole or not at all: written aside, then renamed."""
    path = audit_path(data, comp_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".json.partial")
    partial.write_text(document, encoding="utf-8")
    os.replace(partial, path)


def settle_finished(data: Path, storage: ServerStorage, comp_id: str) -> None:
    """A finished competition, as the server starts. Every match has a
    result: its seed is marked revealed in its store (an older server showed
    it by its status alone, and every reader asks the store). Some have none:
    an older server finished it early (a ladder's final cut short after its
    first set), so it is paused saying so, its seeds are hidden again until it
    is over, and resuming it plays what is left."""
    path = competition_layout(data, comp_id).store
    if not path.exists():
        return
    try:
        with contextlib.closing(open_store(path, writer=True)) as store:
            left, total = len(store.pending()), store.counts()[1]
            if not left:
                if store.revealed_seed() is None:
                    store.reveal_seed()
                return
            shown = store.withdraw_reveal("final_seed_revealed")
    except ArenaError as e:  # a damaged store: its pages say so
        print(f"competition {comp_id}: cannot read its results: {e}", flush=True)
        return
    competition = storage.competition(comp_id)
    if competition is not None and is_ladder(competition) and competition.phase == FINISHED_PHASE:
        storage.set_phase(comp_id, FINAL_PHASE)
    why = (
        f"finished early by an older server with {left} of its {total} matches unplayed; "
        "resume it to play them"
    )
    if shown is not None:
        why += (
            f" (its seeds were shown from {shown}: participants may know the cards of "
            "the matches left)"
        )
    print(f"competition {comp_id}: paused, {why}", flush=True)
    storage.set_competition_status(comp_id, CompetitionStatus.PAUSED, why)


def spectator_delay(competition: Competition, default: int) -> int:
    """Plays a live match of ``competition`` is shown behind to every watcher:
    its file's ``spectator_delay`` (checked when it was created), else the
    server's ``default``."""
    try:
        value = tomllib.loads(competition.config).get("spectator_delay")
    except tomllib.TOMLDecodeError:
        value = None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return default
    return value


def competition_info(
    data: Path, competition: Competition, default_delay: int = 0
) -> spb.CompetitionInfo:
    """A competition as the service and the web site show it: its record, and
    from its results store the progress and the seed's commitment (the seed
    itself once it has finished). A damaged store shows no progress: its
    competition has failed and says why. ``default_delay``: the server's
    spectator delay, for a competition that sets none."""
    final_commitment = final_seed = ""
    try:
        with competition_results(data, competition.id) as store:
            done, total = (0, 0) if store is None else store.counts()
            commitment = "" if store is None else store.meta("seed_commitment") or ""
            seed = "" if store is None else store.revealed_seed() or ""
            if store is not None:
                final_commitment = store.meta("final_seed_commitment") or ""
                if store.meta("final_seed_revealed"):
                    final_seed = store.meta("final_seed") or ""
    except ArenaError:
        done, total, commitment, seed = 0, 0, "", ""
    try:
        file_format = str(tomllib.loads(competition.config).get("format", "round-robin"))
    except tomllib.TOMLDecodeError:
        file_format = ""
    phase = competition.phase or (LADDER_PHASE if file_format == "ladder" else "")
    return wire.competition_info(
        probed=probes_on(competition.config),
        id=competition.id,
        name=competition.name,
        status=competition.status.value,
        bots=competition.bots,
        matches_done=done,
        matches_total=total,
        seed_commitment=commitment,
        seed=seed,
        reason=competition.reason,
        created_at=competition.created_at,
        spectator_delay=spectator_delay(competition, default_delay),
        format=file_format,
        phase=phase,
        final_seed_commitment=final_commitment,
        final_seed=final_seed,
    )


LadderView = tuple[dict[str, Gaussian], dict[str, int]]  # live estimates, sets played per player


def ladder_versions(
    data: Path, storage: ServerStorage, competition: Competition, view: LadderView | None
) -> list[spb.LadderVersion]:
    """A ladder's versions as the service and the web site show them: each
    with its live estimate and sets, from ``view`` (the running ladder's, see
    CompetitionManager.ladder_view) or, when none plays it now, from its store."""
    ratings, sets = view if view is not None else _stored_view(data, competition)
    out = []
    for version in storage.versions(competition.id):
        rating = ratings.get(version.player)
        out.append(
            wire.ladder_version(
                version,
                rating.mu if rating else 0.0,
                rating.sigma if rating else START_SIGMA,
                sets.get(version.player, 0),
            )
        )
    return out


# A ladder no server plays: its live view by its store's path, with the
# results it covers (a paused or finished ladder's never change; replaying
# 100,000 results takes seconds).
_STORED_VIEWS: dict[Path, tuple[int, LadderView]] = {}


def _stored_view(data: Path, competition: Competition) -> LadderView:
    """A ladder's live estimates from its store, when no server plays it now."""
    anchor = ladder_settings(competition.config, baselines_of(competition.engines))
    path = competition_layout(data, competition.id).store
    with competition_results(data, competition.id) as store:
        if store is None:
            return {}, {}
        done = store.counts()[0]
        kept = _STORED_VIEWS.get(path)
        if kept is not None and kept[0] == done:
            return kept[1]
        view = live_ratings(store, anchor.validation_baseline), sets_played(store)
    _STORED_VIEWS[path] = (done, view)
    return view


# A cluster that cannot be reached, does not start or loses its head is a
# passing fault of the host, not of the competition: the competition pauses,
# saying so, and is tried again after CLUSTER_RETRY_FIRST seconds, then after
# twice as long each time, up to CLUSTER_RETRY_MOST; the organiser may resume
# it sooner. Its reason begins with WAITING_FOR_CLUSTER, which a restarted
# server reads to try it again at once.
CLUSTER_RETRY_FIRST = 5.0
CLUSTER_RETRY_MOST = 600.0
WAITING_FOR_CLUSTER = "waiting for its cluster"


def waiting_for_cluster(competition: Competition) -> bool:
    """Paused by its cluster's fault, to be tried again (not by the organiser)."""
    return competition.status is CompetitionStatus.PAUSED and competition.reason.startswith(
        WAITING_FOR_CLUSTER
    )


def passing_fault(error: BaseException) -> bool:
    """Whether ``error`` is the host's passing fault (its cluster's), every part
    of it: the competition is paused and tried again, not failed."""
    return all(isinstance(e, ClusterError) for e in _leaves(error))


class CompetitionManager:
    """Runs competitions in the trio loop: start, pause (in-flight matches
    finish), and resume on restart. Call its methods on the trio loop."""

    def __init__(
        self,
        nursery: trio.Nursery,
        storage: ServerStorage,
        data: Path,
        broker: Broker,
        *,
        liveness: Liveness | None = None,
        standings: StandingsCache | None = None,
        cluster: ClusterSettings | None = None,
    ) -> None:
        self._nursery = nursery
        self._liveness = liveness
        self._standings = standings
        self._storage = storage
        self._data = data
        self._broker = broker
        self._stopping: dict[str, bool] = {}
        self._runs: set[str] = set()  # competitions with a run under way (or starting)
        self._paused_while_running: set[str] = set()
        self._runners: dict[str, Runner] = {}
        self._ladders: dict[str, Ladder] = {}
        self._cluster = cluster  # for competitions without a [cluster] table
        self._cluster_tries: dict[str, int] = {}  # tries that failed by the cluster, in a row

    def start(self, comp_id: str) -> None:
        """Start the competition, or go on with it (also while it is pausing).
        One run per competition: a second start while one is under way, even
        before it has opened its store, only cancels a pause."""
        self._stopping[comp_id] = False
        if comp_id in self._runs:
            return
        self._runs.add(comp_id)
        self._storage.set_competition_status(comp_id, CompetitionStatus.RUNNING)
        self._nursery.start_soon(self._run, comp_id)

    def pause(self, comp_id: str) -> None:
        """Start no new match; paused once the matches in flight have finished."""
        self._stopping[comp_id] = True
        if comp_id in self._runs:
            self._paused_while_running.add(comp_id)
        else:
            self._storage.set_competition_status(comp_id, CompetitionStatus.PAUSED)

    def wake(self, comp_id: str) -> None:
        """A version entered the ladder: its set need not wait for the next look."""
        ladder = self._ladders.get(comp_id)
        if ladder is not None:
            ladder.wake.set()

    def close(self, comp_id: str) -> None:
        """Close a ladder: no new version; the final follows the sets in flight."""
        close_ladder(self._storage, self._data, comp_id, self._ladders.get(comp_id))

    def ladder_view(self, comp_id: str) -> LadderView | None:
        """A running ladder's live estimates and each player's sets, or None."""
        ladder = self._ladders.get(comp_id)
        if ladder is None:
            return None
        return dict(ladder.ratings), dict(ladder.sets)

    def running_matches(self) -> set[str]:
        """The matches being played now, as COMPETITION/MATCH."""
        return {f"{c}/{m}" for c, r in list(self._runners.items()) for m in list(r.running)}

    async def _run(self, comp_id: str) -> None:
        """Play the competition; whatever stops it for good makes it FAILED
        with the reason, and the server goes on serving. Its cluster's fault
        pauses it instead, to be tried again."""
        try:
            while await self._play(comp_id):
                print(f"competition {comp_id}: started again while it paused: going on", flush=True)
        except Exception as e:  # one competition never takes the server down
            reason = _reason(e)
            if passing_fault(e):
                self._try_again_later(comp_id, reason)
            else:
                print(f"competition {comp_id} failed: {reason}", flush=True)
                self._storage.set_competition_status(comp_id, CompetitionStatus.FAILED, reason)
                self._broker.end_unfinished(comp_id)  # its spectators stop waiting
        finally:
            self._runs.discard(comp_id)
            self._paused_while_running.discard(comp_id)

    def _try_again_later(self, comp_id: str, reason: str) -> None:
        """Paused by its cluster's fault, saying so; tried again after a wait
        that doubles with each try that fails in a row (not when the organiser
        had paused it: it stays paused, saying what happened)."""
        if self._stopping.get(comp_id, False):
            print(f"competition {comp_id}: paused; its cluster failed: {reason}", flush=True)
            self._storage.set_competition_status(comp_id, CompetitionStatus.PAUSED, reason)
            return
        tries = self._cluster_tries[comp_id] = self._cluster_tries.get(comp_id, 0) + 1
        wait = min(CLUSTER_RETRY_MOST, CLUSTER_RETRY_FIRST * 2 ** (tries - 1))
        why = (
            f"{WAITING_FOR_CLUSTER} (try {tries} failed; the next in {wait:.0f} s, or resume "
            f"it now): {reason}"
        )
        print(f"competition {comp_id}: paused, {why}", flush=True)
        self._storage.set_competition_status(comp_id, CompetitionStatus.PAUSED, why)
        self._nursery.start_soon(self._try_again, comp_id, tries, wait)

    async def _try_again(self, comp_id: str, tries: int, wait: float) -> None:
        """Start it again, unless the organiser paused or resumed it meanwhile."""
        await trio.sleep(wait)
        competition = self._storage.competition(comp_id)
        if self._cluster_tries.get(comp_id) != tries or competition is None:
            return
        if comp_id in self._runs or not waiting_for_cluster(competition):
            return
        print(f"competition {comp_id}: trying its cluster again", flush=True)
        self.start(comp_id)

    async def _play(self, comp_id: str) -> bool:
        """One run of the competition, to its end or a pause; True when it
        paused for a pause the organiser has taken back since (go on)."""
        self._paused_while_running.discard(comp_id)
        competition = self._storage.competition(comp_id)
        if competition is None:
            raise ConfigError(f"competition {comp_id} is not stored")
        ladder = is_ladder(competition)

        def config_for(players: Mapping[str, str] | None) -> TournamentConfig:
            cfg, _ = competition_config(
                competition.config,
                snapshot_address(competition, self._storage),
                competition_layout(self._data, comp_id).directory,
                SubmissionFiles(self._data),
                players,
            )
            if cfg.cluster is None and self._cluster is not None:
                cfg = dataclasses.replace(cfg, cluster=self._cluster)
            return cfg

        run = Run.open(config_for(None))
        store, cfg = run.store, run.cfg
        keep_baselines(store, competition.engines)

        def spectate(match_id: str, event: MatchEvent) -> None:
            self._broker.publish(f"{comp_id}/{match_id}", event)

        def recorded(match_id: str) -> None:
            self._cluster_tries.pop(comp_id, None)  # matches are played: its cluster works
            self._broker.close(f"{comp_id}/{match_id}")
            if self._standings is not None:
                self._standings.refresh(comp_id)

        complete = ended = False
        try:
            runner = Runner(
                cfg,
                store,
                should_stop=lambda: self._stopping.get(comp_id, False),
                spectate=spectate,
                recorded=recorded,
            )
            self._runners[comp_id] = runner
            try:
                if ladder:
                    seed = run.seed
                    complete = await self._play_ladder(
                        comp_id,
                        competition,
                        run,
                        runner,
                        lambda players: dataclasses.replace(config_for(players), seed=seed),
                    )
                else:
                    runner.absent = await self._absent(comp_id, cfg)
                    complete = await run.play(runner)
            finally:
                self._runners.pop(comp_id, None)
                self._ladders.pop(comp_id, None)
            if complete:
                run.reveal()
            ended = True
        finally:
            done, total = store.counts()
            run.close()
        # Stopped with the server (cancelled): stays running, so the next start resumes it.
        if not ended:
            return False
        # Decided from what holds now, with nothing awaited since: a start that
        # came while the run was pausing means go on, not paused.
        again = (
            not complete
            and runner.stopped is None
            and comp_id in self._paused_while_running
            and not self._stopping.get(comp_id, False)
        )
        if again:
            return True
        status = CompetitionStatus.FINISHED if complete else CompetitionStatus.PAUSED
        self._storage.set_competition_status(comp_id, status, runner.stopped or "")
        print(f"competition {comp_id}: {status.value} ({done}/{total} matches)", flush=True)
        return False

    async def _play_ladder(
        self,
        comp_id: str,
        competition: Competition,
        run: Run,
        runner: Runner,
        config_for: Callable[[Mapping[str, str]], TournamentConfig],
    ) -> bool:
        """Play a ladder until it is paused (False) or its final is over (True)."""
        baselines = baselines_of(competition.engines)
        settings = ladder_settings(competition.config, baselines)
        standings = self._standings

        def latest_fit() -> CachedStandings | None:
            return None if standings is None else standings.latest(comp_id)

        ladder = Ladder(
            comp_id,
            self._storage,
            self._data,
            run.store,
            runner,
            settings,
            baselines,
            config_for,
            latest_fit,
        )
        self._ladders[comp_id] = ladder
        async with open_player(run.cfg, runner.notice) as player:
            runner.player = player
            return await ladder.play()

    async def _absent(self, comp_id: str, cfg: TournamentConfig) -> dict[str, str]:
        """The competition's remote bots that do not answer within the grace, with why."""
        if self._liveness is None:
            return {}
        remote = {e.name: e.address for e in cfg.engines if isinstance(e, AddressEngine)}
        absent = await self._liveness.absent(remote)
        for name, why in absent.items():
            print(f"competition {comp_id}: {name} absent, its matches forfeit: {why}", flush=True)
        return absent


def _reason(error: BaseException) -> str:
    """One line for the organiser: an arena error's own words, else its kind
    and text (of several at once, an error of the arena's own comes first)."""
    leaves = _leaves(error)
    error = next((e for e in leaves if not isinstance(e, ArenaError)), leaves[0])
    if isinstance(error, ArenaError):
        return str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"internal error: {type(error).__name__}: {error}".splitlines()[0]


def _leaves(error: BaseException) -> list[BaseException]:
    """The errors an exception group holds, however nested (or the error itself)."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for e in error.exceptions for leaf in _leaves(e)]
    return [error]


def new_competition_id() -> str:
    return f"c{secrets.token_hex(4)}"
