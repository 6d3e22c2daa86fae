"""Running one match: the one way the arena plays a match between bots.

    from arena.play import run_match, run_match_sync

    report = await run_match(["greedy=python engines/greedy/bot.py", "r=builtin:random"])
    report = run_match_sync([...], MatchSettings(seed=3), log="out/m.log")  # scripts, notebooks

Every caller (the command line, tournaments, the competition server,
benchmarks, tests) goes through ``run_match``: it opens the seats (launching
commands, connecting to addresses, or taking connections the caller opened),
greets them, referees the match and closes what it opened, killing launched
bots for sure. Nothing else builds a Referee.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import sniffio
import trio

from arena.errors import ConfigError
from arena.logs.record import LogWriter
from arena.match.outcome import LaunchKind, MatchReport, SeatLaunch
from arena.match.settings import (
    AddressEngine,
    BuiltinEngine,
    CommandEngine,
    EngineSpec,
    HumanEngine,
    MatchSettings,
    ProbeSeats,
    parse_engine,
)
from arena.referee import Referee, Spectator
from arena.rules.variants import partnered
from arena.transport.grpc_seat import GrpcConnection
from arena.transport.human import People
from arena.transport.seat import Seat
from arena.transport.seats import WarmPool, greet, open_seats

# An engine to seat: a spec ("NAME=SPEC" or parsed), or a bot the caller has
# already connected to, with its name (the caller closes it).
Engine = EngineSpec | str | tuple[str, Seat]


def seat_engines(engines: Sequence[Engine], seats: int) -> list[EngineSpec | tuple[str, Seat]]:
    """One engine per seat, parsed. For a team game, two engines each play
    every seat of their side (one instance per seat)."""
    parsed = [parse_engine(e) if isinstance(e, str) else e for e in engines]
    teams = partnered(seats)
    if teams and len(parsed) == 2:
        if any(isinstance(e, HumanEngine) for e in parsed):
            raise ConfigError(
                "a person takes one seat, never all of a side's (they would see "
                f"their partners' hands): give {seats} engines"
            )
        parsed = parsed * (seats // 2)
    if len(parsed) != seats:
        extra = " (or 2: each plays every seat of its side)" if teams else ""
        raise ConfigError(f"this game needs {seats} engines{extra}, not {len(engines)}")
    return parsed


async def run_match(
    engines: Sequence[Engine],
    settings: MatchSettings | None = None,
    *,
    log: Path | str | None = None,
    spectate: Spectator | None = None,
    warm: WarmPool | None = None,
    bot_output: Path | None = None,
    bot_output_shown: str = "",
    allow_shared_partners: bool = False,
    people: People | None = None,
) -> MatchReport:
    """Referee one match and return its report.

    Args:
        engines: one per seat in seat order (two for a 4-seat game: each then
            plays every seat of its side): ``"NAME=SPEC"`` strings, EngineSpecs,
            or ``(name, connection)`` for bots the caller connected to.
        settings: variant, seed, clock, fault policy, timeouts (default: Scopa).
        log: write the match log to this file.
        spectate: called with every public event (never a hand).
        warm: a pool of running bot processes for command engines (tournaments).
        bot_output: where launched bots' stdout and stderr go (size-capped), one file
            per seat named after the log (LOG-STEM.seatN.ENGINE.log), else the match id.
        bot_output_shown: how faults name that directory to those who read them
            (default: its path), e.g. ``bots`` for a run's own directory.
        allow_shared_partners: let one remote address serve two partner seats.
        people: the table where the match's human seats play (arena.web.table
            serves it); each human seat plays on its own clock.

    Raises ConfigError when the match cannot be set up (a bad spec, a command
    or script that does not exist, an unwritable log or bot output): no match
    is played and no log is left. A bot's failure is never raised: it is a
    fault in the report's result (before the first deal: no contest).
    """
    settings = settings or MatchSettings()
    seated = seat_engines(engines, settings.variant.seats)
    if any(isinstance(e, HumanEngine) for e in seated):
        grace = settings.clock.grace
        clocks = tuple(e.clock(grace) if isinstance(e, HumanEngine) else None for e in seated)
        settings = dataclasses.replace(settings, seat_clocks=clocks)
    names = [e.name if isinstance(e, EngineSpec) else e[0] for e in seated]
    launches = [launch_of(e, settings) for e in seated]
    writer = open_log(Path(log), launches) if log is not None else None
    report = None
    try:
        async with open_seats(
            [e if isinstance(e, EngineSpec) else e[1] for e in seated],
            match_id=settings.match_id,
            output_dir=bot_output,
            output_name=Path(log).stem if log is not None else None,
            output_shown=bot_output_shown,
            startup_timeout=settings.startup_timeout,
            allow_shared_partners=allow_shared_partners,
            warm=warm,
            sandbox=settings.sandbox,
            people=people,
        ) as seats:
            greeting = await greet(seats, names, settings)
            probed = probed_seats(settings, launches)
            referee = Referee(settings, seats, greeting, writer, spectate, probed=probed)
            report = await referee.run()
            if writer is not None:
                report.log_chain = writer.chain.hex()
    finally:
        if writer is not None and report is None:
            writer.discard()
    return report


# Seats reached by address: the arena neither launches nor confines them.
REMOTE_KINDS = (LaunchKind.ADDRESS, LaunchKind.CONNECTION)


def probed_seats(settings: MatchSettings, launches: Sequence[SeatLaunch]) -> tuple[int, ...]:
    """The seats whose decisions are probed (docs/audit.md): in a team game,
    those whose partner is remote (or all, as the settings say); never a person."""
    probes, seats = settings.probes, settings.variant.seats
    if probes is None or seats != 4:
        return ()
    return tuple(
        seat
        for seat in range(seats)
        if launches[seat].kind is not LaunchKind.HUMAN
        and (probes.seats is ProbeSeats.ALL or launches[(seat + 2) % seats].kind in REMOTE_KINDS)
    )


def open_log(path: Path, launches: Sequence[SeatLaunch] = ()) -> LogWriter:
    """A log writer, or a ConfigError saying why the file cannot be written."""
    try:
        return LogWriter(path, launches)
    except OSError as e:
        raise ConfigError(f"{path}: cannot write the match log: {e.strerror}") from None


def launch_of(engine: EngineSpec | tuple[str, Seat], settings: MatchSettings) -> SeatLaunch:
    """How a seat's engine is reached, as its log records it: a command by the
    digest of its words (each one's bytes and a NUL) and its program's name,
    with the sandbox it is launched under (its own, or the match's); a person
    with the clock they play on."""
    sandbox = settings.sandbox
    if isinstance(engine, tuple):
        conn = engine[1]
        address = conn.address if isinstance(conn, GrpcConnection) else ""
        return SeatLaunch(LaunchKind.CONNECTION, address=address)
    match engine:
        case CommandEngine():
            words = b"".join(os.fsencode(word) + b"\0" for word in engine.command)
            return SeatLaunch(
                LaunchKind.COMMAND,
                program=Path(engine.command[0]).name,
                command_sha256=hashlib.sha256(words).hexdigest(),
                sandbox=engine.sandbox or sandbox,
            )
        case AddressEngine():
            return SeatLaunch(LaunchKind.ADDRESS, address=engine.address)
        case BuiltinEngine():
            return SeatLaunch(
                LaunchKind.BUILTIN, builtin=engine.describe().removeprefix("builtin:")
            )
        case HumanEngine():
            return SeatLaunch(LaunchKind.HUMAN, clock=engine.clock(settings.clock.grace))


def run_match_sync(
    engines: Sequence[Engine],
    settings: MatchSettings | None = None,
    *,
    log: Path | str | None = None,
    spectate: Spectator | None = None,
    bot_output: Path | None = None,
    allow_shared_partners: bool = False,
) -> MatchReport:
    """``run_match`` for scripts and notebooks: blocks until the match is over.

    Runs trio in the calling thread, so Ctrl-C works as usual; where the
    calling thread already runs an event loop (a Jupyter notebook's asyncio,
    or trio), the match runs in a thread of its own instead.
    """
    call = functools.partial(
        run_match,
        engines,
        settings,
        log=log,
        spectate=spectate,
        bot_output=bot_output,
        allow_shared_partners=allow_shared_partners,
    )
    try:
        sniffio.current_async_library()
    except sniffio.AsyncLibraryNotFoundError:
        return trio.run(call)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="arena-match") as pool:
        return pool.submit(trio.run, call).result()
