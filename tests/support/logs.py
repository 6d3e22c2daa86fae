"""Match logs: written by the real referee (in-process bots: fast), and read
back with what depends on the clock left out, to compare two runs."""

from __future__ import annotations

from pathlib import Path

from google.protobuf import text_format

from arena.logs.record import read_log
from arena.match.outcome import MatchReport
from arena.match.settings import ClockSettings, FaultPolicy, MatchSettings, parse_engine
from arena.play import run_match_sync
from arena.rules import Game, Variant


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
    if game.sides == 3 and len(specs) == 2:  # three players: the first engine again
        specs.append(parse_engine(f"e2={engines[0]}"))

    settings = MatchSettings(
        Variant(game),
        seed=seed,
        match_id=f"log-{seed}",
        clock=ClockSettings(move_time=5),
        policy=policy or FaultPolicy(),
    )
    return run_match_sync(specs, settings, log=path)


def log_moves(path: Path) -> list[str]:
    """A match log's records with what depends on the clock left out (start
    and finish times, think times, banks, the chain that covers them)."""
    out = []
    for record in read_log(path).records:
        record.ClearField("chain")
        if record.HasField("header"):
            record.header.ClearField("started_at")
        if record.HasField("decision"):
            record.decision.ClearField("think_time_us")
            record.decision.ClearField("bank_left_ms")
        if record.HasField("match_ended"):
            record.match_ended.ClearField("finished_at")
        out.append(text_format.MessageToString(record, as_one_line=True))
    return out


def logs(output: Path) -> dict[str, list[str]]:
    """Every match log of a tournament's output directory, by file name."""
    return {p.name: log_moves(p) for p in sorted((output / "logs").glob("*.log"))}
