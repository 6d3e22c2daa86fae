"""Running a tournament: N matches at once under trio, results into the store.

Engines given as commands are either launched for every match, or kept warm:
launched once per seat slot and serving every match (a bot serves many
matches at once; partner seats use different slots, so partners never share
a process). A warm bot that dies is launched again for the next match.

With a cluster (``[cluster]`` in the file, ``--cluster`` on the command line)
the matches are played by the cluster's workers (arena/cluster.py); this
process still schedules them and is the one writer of the store and the logs.
Live spectators see a match played on a cluster as they see one played here,
its events fetched from its worker a little later (arena/cluster.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field

import trio

from arena.cluster import Cluster, WarmSpec, open_cluster
from arena.errors import ConfigError
from arena.outcome import MatchEvent, MatchResult, Termination
from arena.play import run_match
from arena.ratings import llr_normalized, sprt, sprt_bounds
from arena.rules.seeding import commitment, new_seed
from arena.settings import MatchSettings
from arena.store import ScheduledMatch, Store, open_store
from arena.tournament.config import TournamentConfig
from arena.tournament.schedule import (
    bot_match_id,
    build_schedule,
    sides_of,
    spread_twins,
    sprt_set,
)
from arena.transport.seats import WarmPool, open_warm_pool


@dataclass
class Opened:
    """A tournament's store, opened as its one writer and bound to its
    configuration, and the configuration with its master seed settled."""

    store: Store
    cfg: TournamentConfig
    resuming: bool

    @property
    def commitment(self) -> str:
        assert self.cfg.seed is not None
        return commitment(self.cfg.seed)


def open_tournament_store(cfg: TournamentConfig) -> Opened:
    """The results store of a tournament, bound to its configuration (a store
    never mixes two configurations). The master seed is the configuration's,
    else the one the store was started with, else a fresh random one; the
    store keeps it and its commitment from the start."""
    store = open_store(cfg.store_path, writer=True)
    try:
        seed = cfg.seed or store.meta("seed") or new_seed()
        cfg = dataclasses.replace(cfg, seed=seed)
        resuming = store.bind(
            cfg.fingerprint(), {"seed": seed, "seed_commitment": commitment(seed)}
        )
        # What the tournament is called (shown by `arena web`); not a setting
        # of its results, so the latest run's name stands.
        if store.meta("name") != cfg.name:
            store.set_meta("name", cfg.name)
        store.add_engines((e.name, e.describe()) for e in cfg.engines)
    except BaseException:
        store.close()
        raise
    return Opened(store, cfg, resuming)


# The runner samples its event loop's lag every LAG_SAMPLE seconds; three samples
# in a row over LAG_LIMIT lower the concurrency by a quarter.
LAG_SAMPLE = 0.5
LAG_LIMIT = 0.25


@dataclass
class Progress:
    """Matches done/total, rate, ETA and the leader: one updating line on a
    terminal, a plain line per match otherwise."""

    total: int
    done: int
    tty: bool = field(default_factory=lambda: sys.stdout.isatty())
    started: float = field(default_factory=time.monotonic)
    played_now: int = 0

    def update(self, match: ScheduledMatch, result: MatchResult, leader: str) -> None:
        self.done += 1
        self.played_now += 1
        elapsed = time.monotonic() - self.started
        rate = self.played_now / elapsed if elapsed > 0 else 0.0
        left = self.total - self.done
        eta = f"{int(left / rate // 60)}:{int(left / rate % 60):02d}" if rate > 0 else "?"
        score = "-".join(str(s) for s in result.final_scores)
        winner = "draw" if result.winner is None else sides_of(match.seats)[result.winner]
        if self.tty:
            line = (
                f"\r[{self.done}/{self.total}] {100 * self.done / max(self.total, 1):.0f}%"
                f"  {rate * 60:.0f} matches/min  ETA {eta}  leader: {leader}"
            )
            print(line.ljust(100)[:110], end="", flush=True)
        else:
            print(
                f"[{self.done}/{self.total}] {match.id}: {' vs '.join(sides_of(match.seats))} "
                f"{score}, {winner} ({result.termination.value}); ETA {eta}",
                flush=True,
            )

    def finish(self) -> None:
        if self.tty:
            print()


def consecutive_faults(store: Store) -> dict[str, int]:
    """Each engine's run of faulty matches so far, from the store (so a resumed
    tournament suspends an engine exactly when an uninterrupted one would).
    Matches forfeited by a suspension were not played and do not count."""
    faulty = store.faulty_engines()
    runs: dict[str, int] = {}
    for m in store.finished():
        if "suspended" in m.reason and m.id not in faulty:
            continue
        for name in set(m.seats):
            runs[name] = runs.get(name, 0) + 1 if name in faulty.get(m.id, set()) else 0
    return runs


class Runner:
    def __init__(
        self,
        cfg: TournamentConfig,
        store: Store,
        on_result: Callable[[], str] | None = None,
        *,
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
        streams can end and standings be refreshed."""
        self.cfg = cfg
        self.store = store
        self.on_result = on_result or (lambda: "")
        self._should_stop = should_stop
        self.spectate = spectate
        self.notice = notice or (lambda text: print(f"arena: {text}", file=sys.stderr, flush=True))
        self.recorded = recorded or (lambda match_id: None)
        self.running: set[str] = set()
        self.consecutive_faults = consecutive_faults(store)
        self.startup_runs: dict[str, int] = {}  # matches in a row an engine did not start in
        self.stopped: str | None = None  # why the run stopped early
        self.progress: Progress | None = None
        self.absent = dict(absent or {})
        self.cluster: Cluster | None = None  # set: matches are played on its workers

    def should_stop(self) -> bool:
        return self.stopped is not None or self._should_stop()

    async def play(self, match: ScheduledMatch, pool: WarmPool | None) -> None:
        cfg = self.cfg
        suspended = self.store.suspended()
        out = [name for name in match.seats if name in suspended]
        gone = [name for name in match.seats if name in self.absent]
        if out or gone:
            if out:
                result = self._forfeit_suspended(match, out, suspended)
            else:
                result = self._forfeit_absent(match, gone)
            self.store.record(match, result, None)
        else:
            log_path = cfg.output / "logs" / f"{match.id.replace('/', '_')}.log"
            assert cfg.seed is not None
            settings = MatchSettings(
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
            )
            spectate = None
            if self.spectate is not None:
                hook, key = self.spectate, match.id
                spectate = lambda event: hook(key, event)  # noqa: E731
            self.running.add(match.id)
            try:
                if self.cluster is not None:
                    report = await self.cluster.play(
                        [cfg.engine(name) for name in match.seats],
                        settings,
                        log=log_path,
                        bot_output=cfg.output / "bots",
                        allow_shared_partners=cfg.allow_shared_partners,
                        spectate=spectate,
                    )
                else:
                    report = await run_match(
                        [cfg.engine(name) for name in match.seats],
                        settings,
                        log=log_path,
                        spectate=spectate,
                        warm=pool,
                        bot_output=cfg.output / "bots",
                        allow_shared_partners=cfg.allow_shared_partners,
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
            self.progress.update(match, result, self.on_result())

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
            sides = {f.seat % 2 for f in failed.values()}
            winner = 1 - sides.pop() if len(sides) == 1 else None
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

    def _forfeit_suspended(
        self, match: ScheduledMatch, out: list[str], why: dict[str, str]
    ) -> MatchResult:
        sides = {s & 1 for s, name in enumerate(match.seats) if name in out}
        winner = None if len(sides) != 1 else 1 - sides.pop()
        reason = "; ".join(f"{name} suspended ({why[name]})" for name in sorted(set(out)))
        return MatchResult((0, 0), winner, Termination.FORFEIT, reason)

    def _forfeit_absent(self, match: ScheduledMatch, out: list[str]) -> MatchResult:
        sides = {s & 1 for s, name in enumerate(match.seats) if name in out}
        winner = None if len(sides) != 1 else 1 - sides.pop()
        reason = "; ".join(f"{name} absent ({self.absent[name]})" for name in sorted(set(out)))
        return MatchResult((0, 0), winner, Termination.FORFEIT, reason)

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

    async def run(self, matches: list[ScheduledMatch], pool: WarmPool | None) -> None:
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
                        await self.play(match, pool)
                    finally:
                        busy.discard(match.set_id)
                        freed.set()
                        freed = trio.Event()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._govern, slots)
            async with trio.open_nursery() as players:
                for _ in range(self.cfg.concurrency):
                    players.start_soon(worker)
            nursery.cancel_scope.cancel()

    async def _govern(self, slots: trio.CapacityLimiter) -> None:
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


@contextlib.asynccontextmanager
async def maybe_pool(cfg: TournamentConfig) -> AsyncIterator[WarmPool | None]:
    """This process's warm pool (none with a cluster: each worker keeps its own)."""
    if not cfg.keep_warm or cfg.cluster is not None:
        yield None
        return
    async with open_warm_pool(cfg.output / "bots", cfg.startup_timeout, cfg.sandbox) as pool:
        yield pool


@contextlib.asynccontextmanager
async def maybe_cluster(
    cfg: TournamentConfig, runner: Runner | None = None
) -> AsyncIterator[Cluster | None]:
    """The configuration's cluster, open for the block (and given to ``runner``)."""
    if cfg.cluster is None:
        yield None
        return
    warm = WarmSpec(cfg.startup_timeout, cfg.sandbox) if cfg.keep_warm else None
    notice = runner.notice if runner is not None else None
    async with open_cluster(cfg.cluster, warm=warm, notice=notice) as cluster:
        if runner is not None:
            runner.cluster = cluster
        try:
            yield cluster
        finally:
            if runner is not None:
                runner.cluster = None


def reopen_no_contests(store: Store) -> int:
    """Matches with no result (a seat never started, or the referee failed)
    go back to the schedule, to be played again; how many."""
    again = [m.id for m in store.finished() if not m.termination.has_result]
    store.reopen(again)
    return len(again)


def check_stopped(runner: Runner) -> None:
    if runner.stopped is not None:
        raise ConfigError(runner.stopped)


async def run_tournament(cfg: TournamentConfig, store: Store, leader: Callable[[], str]) -> None:
    """Play every pending match of the schedule (all of them on a new store)."""
    store.schedule(build_schedule(cfg))
    reopen_no_contests(store)
    pending = store.pending()
    done, total = store.counts()
    runner = Runner(cfg, store, leader)
    runner.progress = Progress(total=total, done=done)
    async with maybe_cluster(cfg, runner), maybe_pool(cfg) as pool:
        await runner.run(pending, pool)
    runner.progress.finish()
    check_stopped(runner)


@dataclass
class SprtStatus:
    sets: int  # complete duplicate sets the test counts
    llr: float
    lower: float
    upper: float
    verdict: str | None
    faulted: int = 0  # sets left out: a fault or no result in one of their matches

    def line(self) -> str:
        left_out = f"  faulted sets left out {self.faulted}" if self.faulted else ""
        return (
            f"sets {self.sets:>5}  LLR {self.llr:+.3f}"
            f"  bounds [{self.lower:.3f}, {self.upper:.3f}]{left_out}"
        )


def sprt_status(cfg: TournamentConfig, store: Store) -> SprtStatus:
    """The SPRT from the complete duplicate sets in the store (test engine's view).

    A set with a fault in either match (a forfeit, a substituted move, a seat
    that never started) or a match without a result says nothing about
    strength: it is left out and counted, unless ``count_faults`` is set
    (then forfeits count as played; matches without a result never do)."""
    assert cfg.sprt is not None
    faulty = store.faulty_engines()
    by_set: dict[str, list[float]] = {}
    spoiled: set[str] = set()
    for m in store.finished():
        if not m.termination.has_result or (m.id in faulty and not cfg.sprt.count_faults):
            spoiled.add(m.set_id)
            continue
        test_side = 0 if m.seats[0] == cfg.sprt.test else 1
        score = 0.5 if m.winner_side is None else float(m.winner_side == test_side)
        by_set.setdefault(m.set_id, []).append(score)
    histogram = [0.0] * 5  # set scores 0, 1/4, ..., 1 (draws give quarters)
    complete = 0
    for set_id, scores in by_set.items():
        if len(scores) == 2 and set_id not in spoiled:
            complete += 1
            histogram[round(sum(scores) * 2)] += 1
    if complete == 0:
        lower, upper = -math.inf, math.inf
        return SprtStatus(0, 0.0, lower, upper, None, len(spoiled))
    lower, upper = sprt_bounds(cfg.sprt.alpha, cfg.sprt.beta)
    if histogram[1] == histogram[3] == 0:
        state = sprt(
            [histogram[0], histogram[2], histogram[4]],
            2,
            cfg.sprt.elo0,
            cfg.sprt.elo1,
            cfg.sprt.alpha,
            cfg.sprt.beta,
        )
        llr = state.llr
    else:
        llr = llr_normalized(cfg.sprt.elo0, cfg.sprt.elo1, [0, 0.25, 0.5, 0.75, 1], histogram, k=2)
    verdict = "H1" if llr >= upper else "H0" if llr <= lower else None
    return SprtStatus(complete, llr, lower, upper, verdict, len(spoiled))


async def run_sprt(
    cfg: TournamentConfig, store: Store, report: Callable[[SprtStatus], None]
) -> SprtStatus:
    """Duplicate sets of test vs base until the LLR crosses a bound (or max_sets)."""
    assert cfg.sprt is not None
    runner = Runner(cfg, store)
    reopen_no_contests(store)
    async with maybe_cluster(cfg, runner), maybe_pool(cfg) as pool:
        # Finish what a previous run left pending, then go on set by set.
        await runner.run(store.pending(), pool)
        check_stopped(runner)
        status = sprt_status(cfg, store)
        next_set = store.counts()[1] // 2
        in_flight = max(1, cfg.concurrency // 2)
        while status.verdict is None and next_set < cfg.sprt.max_sets:
            batch = []
            for _ in range(min(in_flight, cfg.sprt.max_sets - next_set)):
                batch += sprt_set(cfg, next_set)
                next_set += 1
            batch = spread_twins(batch)
            store.schedule(batch)
            await runner.run(batch, pool)
            check_stopped(runner)
            status = sprt_status(cfg, store)
            report(status)
    return status
