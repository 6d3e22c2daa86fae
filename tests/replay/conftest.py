"""Match logs for replay tests, written by the real referee (in-process bots: fast)."""

from __future__ import annotations

from pathlib import Path

import trio

from arena.record import LogWriter
from arena.referee import ClockSettings, FaultPolicy, MatchReport, MatchSettings, OnFault, Referee
from arena.rules import Game, Variant
from arena.transport.spec import EngineSpec, open_seats


def write_log(
    path: Path,
    game: Game = Game.SCOPA,
    seed: int = 1,
    engines: tuple[str, ...] = ("builtin:greedy", "builtin:random"),
    policy: FaultPolicy | None = None,
) -> MatchReport:
    specs = [EngineSpec.parse(f"e{i}={spec}") for i, spec in enumerate(engines)]
    if game.seats == 4 and len(specs) == 2:
        specs = specs * 2

    async def run() -> MatchReport:
        settings = MatchSettings(
            Variant(game),
            seed=seed,
            match_id=f"log-{seed}",
            clock=ClockSettings(move_time=5),
            policy=policy or FaultPolicy(),
        )
        async with open_seats(specs, match_id=settings.match_id) as seats:
            return await Referee(settings, seats, [s.name for s in specs], LogWriter(path)).run()

    return trio.run(run)


__all__ = ["FaultPolicy", "OnFault", "write_log"]
