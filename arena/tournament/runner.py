"""Playing a tournament's matches: N at once under trio, results into the store.
(The run around it, from opening the store to revealing the seed, is
arena/tournament/lifecycle.py.)

Engines given as commands are either launched for every match, or kept warm:
launched once per seat slot and serving every match (a bot serves many
matches at once; partner seats use different slots, so partners never share
a process). A warm bot that dies is launched again for the next match.

With a cluster (``[cluster]`` in the file, ``--cluster`` on the command line)
the matches are played by the cluster's workers (arena/cluster/); this
process still schedules them and is the one writer of the store and the logs.
Live spectators see a match played on a cluster as they see one played here,
its events fetched from its worker a little later (arena/cluster/).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import trio

from arena.match.engine import forfeit_winner
from arena.match.outcome import MatchEvent, MatchReport, MatchResult, Termination
from arena.match.settings import EngineSpec, MatchSettings
from arena.play import run_match
from arena.results.layout import BOT_OUTPUT
from arena.results.store import ForfeitCause, ScheduledMatch, Store, StoredMatch
from arena.tournament.config import TournamentConfig
from arena.tournament.progress import ProgressLine
from arena.tournament.schedule import bot_match_id
from arena.transport.seats import WarmPool

# The runner samples its event loop's lag every LAG_SAMPLE seconds; three samples
# in a row over LAG_LIMIT lower the concurrency by a quarter.
LAG_SAMPLE = 0.5
LAG_LIMIT = 0.25


class Player(Protocol):
    """Plays one match, here or on a cluster's worker: the runner does not care which."""

    async def play(
        self,
        engines: Sequence[EngineSpec],
        settings: MatchSettings,
        *,
        log: Path | None = None,
        bot_output: Path | None = None,
        bot_output_shown: str = "",
        allow_shared_partners: bool = False,
        spectate: Callable[[MatchEvent], None] | None = None,
    ) -> MatchReport: ...


@dataclass
class LocalPlayer:
    """Matches played by this process, with its warm pool if it keeps one."""

    pool: WarmPool | None = None

    async def play(
        self,
        engines: Sequence[EngineSpec],
        settings: MatchSettings,
        *,
        log: Path | None = None,
        bot_output: Path | None = None,
        bot_output_shown: str = "",
        allow_shared_partners: bool = False,
        spectate: Callable[[MatchEvent], None] | None = None,
    ) -> MatchReport:
        return await run_match(
            engines,
            settings,
            log=log,
            spectate=spectate,
            warm=self.pool,
            bot_output=bot_output,
            bot_output_shown=bot_output_shown,
            allow_shared_partners=allow_shared_partners,
        )


def match_settings(cfg: TournamentConfig, match: ScheduledMatch) -> MatchSettings:
    """How the scheduled ``match`` is played under ``cfg``."""
    assert cfg.seed is not None
    return MatchSettings(
        cfg.variant,
        seed=match.seed,
        first_dealer=match.first_dealer,
        clock=cfg.clock,
        policy=cfg.policy,
        match_id=bot_match_id(cfg.seed, match.id),
        schedule_id=match.id,
        startup_timeout=cfg.startup_timeout,
        handshake_timeout=cfg.startup_timeout,
        sandbox=cfg.sandbox,
        probes=cfg.probes,
    )


def consecutive_faults(store: Store) -> dict[str, int]:
    """Each engine's run of faulty matches so far, from the store (so a resumed
    tournament suspends an engine exactly when an uninterrupted one would).
    Matches forfeited by a suspension were not played and do not count."""
    return fault_runs(store.finished(), store.faulty_engines())


def fault_runs(finished: Sequence[StoredMatch], faulty: Mapping[str, set[str]]) -> dict[str, int]:
    runs: dict[str, int] = {}
    for m in finished:
        if m.forfeit_cause is ForfeitCause.SUSPENDED:
            continue
        for name in set(m.seats):
            runs[name] = runs.get(name, 0) + 1 if name in faulty.get(m.id, set()) else 0
    return runs


class Runner:
    def __init__(
        self,
        cfg: TournamentConfig,
        store: Store,
        *,
        player: Player | None = None,
        progress: ProgressLine | None = None,
        should_stop: Callable[[], bool] = lambda: False,
        spectate: Callable[[str, MatchEvent], None] | None = None,
        notice: Callable[[str], None] | None = None,
        absent: Mapping[str, str] | None = None,
        recorded: Callable[[str], None] | None = None,
    ) -> None:
        """``should_stop``: checked before each new match (a paused competition
        lets the matches in flight finish). ``spectate(match_id, event)``: the
        public events of every match, for live spectators. ``absent``: engines
        known not to answer, with why; their matches are forfeited at once
        rather than each waiting out the start-up timeout. ``recorded(match_id)``:
        a match's result is stored (with or without play), so its spectators'
        streams can end and standings be refreshed. ``player``: plays each
        match (default: this process, launching engines afresh)."""
        self.cfg = cfg
        self.store = store
        self.player: Player = player or LocalPlayer()
        self._should_stop = should_stop
        self.spectate = spectate
        self.notice = notice or (lambda text: print(f"arena: {text}", file=sys.stderr, flush=True))
        self.recorded = recorded or (lambda match_id: None)
        self.running: set[str] = set()
        self.consecutive_faults = consecutive_faults(store)
        self.startup_runs: dict[str, int] = {}  # matches in a row an engine did not start in
        self.stopped: str | None = None  # why the run stopped early
        self.progress = progress
        self.absent = dict(absent or {})

    def should_stop(self) -> bool:
        return self.stopped is not None or self._should_stop()

    async def play(self, match: ScheduledMatch) -> None:
        """Play ``match`` (or forfeit it unplayed) and record its result."""
        cfg = self.cfg
        suspended = self.store.suspended()
        out = [name for name in match.seats if name in suspended]
        gone = [name for name in match.seats if name in self.absent]
        if out or gone:
            if out:
                result = _forfeit(match, {name: f"suspended ({suspended[name]})" for name in out})
                cause = ForfeitCause.SUSPENDED
            else:
                result = _forfeit(match, {name: f"absent ({self.absent[name]})" for name in gone})
                cause = ForfeitCause.ABSENT
            self.store.record(match, result, None, forfeit_cause=cause)
        else:
            layout = cfg.layout
            log_path = layout.log_of(match.id)
            spectate = None
            if self.spectate is not None:
                hook, key = self.spectate, match.id
                spectate = lambda event: hook(key, event)  # noqa: E731
            self.running.add(match.id)
            try:
                report = await self.player.play(
                    [cfg.engine(name) for name in match.seats],
                    match_settings(cfg, match),
                    log=log_path,
                    bot_output=layout.bot_output,
                    bot_output_shown=BOT_OUTPUT,  # as the run's directory names it
                    allow_shared_partners=cfg.allow_shared_partners,
                    spectate=spectate,
                )
            finally:
                self.running.discard(match.id)
            result = report.result
            if result.termination is Termination.ABORTED:
                return
            result = self._startup_failures(match, result)
            runs, suspend = self._fault_runs(match, result)
            self.store.record(
                match,
                result,
                str(log_path),
                log_chain=report.log_chain or None,
                engines=report.engines,
                suspend=suspend,
            )
            self.consecutive_faults = runs  # only once the store has them
        self.recorded(match.id)
        if self.progress is not None:
            self.progress.update(match, result)

    def _startup_failures(self, match: ScheduledMatch, result: MatchResult) -> MatchResult:
        """A seat that never started: a forfeit if the configuration says so;
        otherwise a no contest, and the engine's run of such matches grows
        (at the limit the run stops: a program that cannot start is the
        organiser's to fix, not a string of results)."""
        failed = {match.seats[f.seat]: f for f in result.faults if f.at_startup}
        for name in set(match.seats) - failed.keys():
            self.startup_runs.pop(name, None)
        if not failed:
            return result
        if self.cfg.startup_failure_forfeits:
            winner = forfeit_winner(f.seat for f in failed.values())
            return dataclasses.replace(result, winner=winner, termination=Termination.FORFEIT)
        limit = self.cfg.stop_after_startup_failures
        for name, fault in failed.items():
            self.startup_runs[name] = self.startup_runs.get(name, 0) + 1
            if limit and self.startup_runs[name] >= limit and self.stopped is None:
                self.stopped = (
                    f"{name} failed to start in {limit} matches in a row "
                    f"(last: {fault.kind.value}: {fault.message}); the run stopped. "
                    "Fix it and run the same command again to resume (matches it did not "
                    "start in are played again), or set startup_failure_forfeits = true "
                    "to count them as forfeits"
                )
        return dataclasses.replace(result, winner=None, termination=Termination.NO_CONTEST)

    def _fault_runs(
        self, match: ScheduledMatch, result: MatchResult
    ) -> tuple[dict[str, int], list[tuple[str, str]]]:
        """Each engine's run of faulty matches after this one, and the suspensions it causes."""
        limit = self.cfg.suspend_after
        # A seat that never started is handled by the start-up rule (stop the run,
        # or a forfeit when the file says so), not by suspension.
        counted = [
            f
            for f in result.faults
            if not (f.at_startup and result.termination is Termination.NO_CONTEST)
        ]
        faulty = {match.seats[f.seat] for f in counted}
        runs = dict(self.consecutive_faults)
        suspend = []
        for name in set(match.seats):
            runs[name] = runs.get(name, 0) + 1 if name in faulty else 0
            if limit and runs[name] >= limit:
                suspend.append((name, f"{limit} matches in a row with a fault"))
        return runs, suspend

    async def run(self, matches: list[ScheduledMatch]) -> None:
        """Play ``matches`` in schedule order, ``concurrency`` at once, never two
        of one duplicate set at the same time (a bot instance, warm or remote,
        must not hold a deal's twin while it plays it). When the machine cannot
        keep up, fewer at once, and say so."""
        waiting = list(matches)
        busy: set[str] = set()  # duplicate sets with a match in flight
        freed = trio.Event()
        slots = trio.CapacityLimiter(self.cfg.concurrency)

        async def worker() -> None:
            nonlocal freed
            while waiting and not self.should_stop():
                async with slots:  # fewer at once when the governor lowers the total
                    if self.should_stop() or not waiting:
                        return
                    match = next((m for m in waiting if m.set_id not in busy), None)
                    if match is None:
                        await freed.wait()
                        continue
                    waiting.remove(match)
                    busy.add(match.set_id)
                    try:
                        await self.play(match)
                    finally:
                        busy.discard(match.set_id)
                        freed.set()
                        freed = trio.Event()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.govern, slots)
            async with trio.open_nursery() as players:
                for _ in range(self.cfg.concurrency):
                    players.start_soon(worker)
            nursery.cancel_scope.cancel()

    async def govern(self, slots: trio.CapacityLimiter) -> None:
        """Lower the concurrency while the event loop runs late: a loop that
        cannot keep its own timers would end up charging its lag to bots."""
        late = 0
        while True:
            before = trio.current_time()
            await trio.sleep(LAG_SAMPLE)
            lag = trio.current_time() - before - LAG_SAMPLE
            late = late + 1 if lag > LAG_LIMIT else 0
            if late >= 3 and slots.total_tokens > 1:
                was = int(slots.total_tokens)
                slots.total_tokens = max(1, was * 3 // 4)
                self.notice(
                    f"this machine cannot keep {was} matches at once (its event loop ran "
                    f"{lag * 1000:.0f} ms late): now {slots.total_tokens} at once"
                )
                late = 0


def _forfeit(match: ScheduledMatch, why: dict[str, str]) -> MatchResult:
    """A forfeit unplayed against the side of the engines in ``why`` (no winner
    when both sides have one), the reason naming each."""
    winner = forfeit_winner(seat for seat, name in enumerate(match.seats) if name in why)
    reason = "; ".join(f"{name} {why[name]}" for name in sorted(why))
    return MatchResult((0, 0), winner, Termination.FORFEIT, reason)
