"""Match logs for replay tests, written by the real referee (in-process bots: fast)."""

from __future__ import annotations

from pathlib import Path

from arena.outcome import MatchReport
from arena.play import run_match_sync
from arena.rules import Game, Variant
from arena.settings import ClockSettings, FaultPolicy, MatchSettings, OnFault, parse_engine


def write_log(
    path: Path,
    game: Game = Game.SCOPA,
    seed: int = 1,
    engines: tuple[str, ...] = ("builtin:greedy", "builtin:random"),
    policy: FaultPolicy | None = None,
) -> MatchReport:
    specs = [parse_engine(f"e{i}={spec}") for i, spec in enumerate(engines)]
    if game.seats == 4 and len(specs) == 2:
        specs = specs * 2

    settings = MatchSettings(
        Variant(game),
        seed=seed,
        match_id=f"log-{seed}",
        clock=ClockSettings(move_time=5),
        policy=policy or FaultPolicy(),
    )
    return run_match_sync(specs, settings, log=path)


__all__ = ["FaultPolicy", "OnFault", "write_log"]
