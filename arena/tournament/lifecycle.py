"""One run of a tournament, from start to end: open its store, schedule its
matches, play them, record them, reveal the seed, close. Tournaments,
gauntlets, SPRTs and the server's competitions all go through it, so they
resume, stop and reveal by the same rules.

    with Run.open(cfg) as run:              # the store, bound to cfg; the seed settled
        complete = trio.run(run.play)       # schedule, play, record (a Runner)
        if complete:
            run.reveal()                    # the seed, in the store for every reader

The seed is revealed only when the run is complete: every match of the
schedule recorded (an SPRT: a bound crossed or its last set played). A run
that stopped early, was paused or was interrupted reveals nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from types import TracebackType

from arena.cluster import WarmSpec, open_cluster
from arena.results.layout import BOT_OUTPUT, Layout
from arena.results.store import Store, open_store
from arena.rules.seeding import commitment, new_seed
from arena.tournament import sprt
from arena.tournament.config import TournamentConfig, TournamentFormat
from arena.tournament.runner import LocalPlayer, Player, Runner
from arena.tournament.schedule import build_schedule, spread_twins, sprt_set
from arena.transport.seats import open_warm_pool


@dataclass
class Run:
    """A tournament's store, opened as its one writer and bound to its
    configuration, and the configuration with its master seed settled."""

    store: Store
    cfg: TournamentConfig
    resuming: bool
    # Why the last play stopped before the end, for its caller to say (an
    # engine that never starts: the organiser's to fix, then run again).
    stopped: str | None = None

    @classmethod
    def open(cls, cfg: TournamentConfig) -> Run:
        """The results store of a tournament, bound to its configuration (a store
        never mixes two configurations). The master seed is the configuration's,
        else the one the store was started with, else a fresh random one; the
        store keeps it and its commitment from the start."""
        layout = cfg.layout
        store = open_store(layout.store, writer=True)
        try:
            seed = cfg.seed or store.meta("seed") or new_seed()
            cfg = dataclasses.replace(cfg, seed=seed)
            resuming = store.bind(
                cfg.fingerprint(), {"seed": seed, "seed_commitment": commitment(seed)}
            )
            # How the run is called and shown (not settings of its results: the
            # latest run's stand).
            if store.meta("name") != cfg.name:
                store.set_meta("name", cfg.name)
            store.keep_json("elo_k", cfg.elo_k)
            if cfg.sprt is not None:
                sprt.keep_settings(store, cfg.sprt)
            store.add_engines((e.name, e.describe()) for e in cfg.engines)
            layout.note_store()
        except BaseException:
            store.close()
            raise
        return cls(store, cfg, resuming)

    @property
    def layout(self) -> Layout:
        return self.cfg.layout

    @property
    def commitment(self) -> str:
        assert self.cfg.seed is not None
        return commitment(self.cfg.seed)

    @property
    def seed(self) -> str:
        assert self.cfg.seed is not None
        return self.cfg.seed

    def schedule(self) -> None:
        """Write the whole schedule (an SPRT's grows set by set as it plays), and
        put matches without a result back in it, to be played again."""
        if self.cfg.format not in (TournamentFormat.SPRT, TournamentFormat.LADDER):
            self.store.schedule(build_schedule(self.cfg))
        again = [m.id for m in self.store.finished() if not m.termination.has_result]
        self.store.reopen(again)

    async def play(
        self,
        runner: Runner | None = None,
        *,
        report: Callable[[sprt.SprtStatus], None] | None = None,
    ) -> bool:
        """Schedule and play every match still to play, with ``runner`` (default:
        a plain one) on this process or the configuration's cluster; True when
        the run is complete. An SPRT goes on set by set until a bound is
        crossed, ``report`` told the status after each batch. A run that cannot
        go on (an engine that never starts) stops, and ``stopped`` says why."""
        runner = runner or Runner(self.cfg, self.store)
        self.schedule()
        if runner.progress is not None:  # the line counts the whole schedule from the start
            runner.progress.done, runner.progress.total = self.store.counts()
        async with open_player(self.cfg, runner.notice) as player:
            runner.player = player
            await runner.run(self.store.pending())
            if self._stopped_by(runner):
                return False
            if self.cfg.sprt is not None:
                return await self._sprt_sets(runner, report or (lambda status: None))
        done, total = self.store.counts()
        return done == total

    def _stopped_by(self, runner: Runner) -> bool:
        self.stopped = runner.stopped
        return runner.stopped is not None

    async def _sprt_sets(self, runner: Runner, report: Callable[[sprt.SprtStatus], None]) -> bool:
        settings = self.cfg.sprt
        assert settings is not None
        status = sprt.store_status(settings, self.store)
        next_set = self.store.counts()[1] // 2
        in_flight = max(1, self.cfg.concurrency // 2)
        while status.verdict is None and next_set < settings.max_sets:
            if runner.should_stop():
                return False
            batch = []
            for _ in range(min(in_flight, settings.max_sets - next_set)):
                batch += sprt_set(self.cfg, next_set)
                next_set += 1
            batch = spread_twins(batch)
            self.store.schedule(batch)
            if runner.progress is not None:
                runner.progress.grow(len(batch))
            await runner.run(batch)
            if self._stopped_by(runner) or self.store.pending():
                # Stopped, or paused before the batch was played whole: its
                # verdict waits for every set of it, and so does the next batch.
                return False
            status = sprt.store_status(settings, self.store)
            report(status)
        return not self.store.pending()

    def sprt_status(self) -> sprt.SprtStatus:
        assert self.cfg.sprt is not None
        return sprt.store_status(self.cfg.sprt, self.store)

    def reveal(self) -> str:
        """The run is complete: reveal its seed, in the store for every reader
        (once: a run started again after its end keeps when it was revealed)."""
        if self.store.revealed_seed() is None:
            self.store.reveal_seed()
        return self.seed

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Run:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


@contextlib.asynccontextmanager
async def open_player(
    cfg: TournamentConfig, notice: Callable[[str], None] | None = None
) -> AsyncIterator[Player]:
    """Who plays the run's matches: the configuration's cluster (each worker
    keeps its own warm bots), else this process, with a warm pool if asked."""
    if cfg.cluster is not None:
        warm = WarmSpec(cfg.startup_timeout, cfg.sandbox) if cfg.keep_warm else None
        async with open_cluster(cfg.cluster, warm=warm, notice=notice) as cluster:
            yield cluster
        return
    if not cfg.keep_warm:
        yield LocalPlayer()
        return
    async with open_warm_pool(
        cfg.layout.bot_output, cfg.startup_timeout, cfg.sandbox, output_shown=BOT_OUTPUT
    ) as pool:
        yield LocalPlayer(pool)
