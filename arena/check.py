"""The conformance check of a bot at an address: what `arena check` prints and
what the server runs before it accepts a registration.

Each point passes or fails with a plain-words detail: the connection, the
handshake (within 5 s, protocol version 1, a name), the games it plays, the
optional health service, and legal answers within 1 s to sample positions of
each game it claims: the games its manifest lists (an upload's), else those
its handshake offers. A manifest that claims a game the handshake does not
offer fails: such a bot would be entered in matches it then refuses to play.
A launched bot's output goes to a file the report names, and a failed check
carries the file's last lines.
"""

from __future__ import annotations

import random
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from arena.errors import BotError, FaultKind
from arena.match.engine import Decision, SeatClock
from arena.match.settings import ClockSettings, SandboxSettings
from arena.rules import OPTIONS, Declaring, Game, Match, Variant
from arena.rules.declarations import undeclarable_reason
from arena.rules.variants import CIRULLA_OPTIONS, ORIGINAL_GAMES
from arena.transport.grpc_seat import GrpcConnection
from arena.transport.process import launch
from arena.transport.seats import handshake, protocol_mismatch, unwrap
from arena.wire.protocol import PROTOCOL_VERSION

TAIL_LINES = 20  # of a launched bot's output, in the report of a failed check


@dataclass(frozen=True)
class CheckItem:
    name: str
    passed: bool
    detail: str


@dataclass
class CheckReport:
    address: str
    items: list[CheckItem] = field(default_factory=list)
    engine_name: str = ""
    engine_version: str = ""
    games: list[str] = field(default_factory=list)  # the games it was asked to play in
    options: list[str] = field(default_factory=list)  # the Variant options it plays
    output: str = ""  # the file holding a launched bot's stdout and stderr
    tail: list[str] = field(default_factory=list)  # its last lines, when the check failed

    @property
    def passed(self) -> bool:
        return all(i.passed for i in self.items)

    def as_dict(self) -> dict[str, object]:
        """The report for machines (`arena check --json`): a bot author's CI reads it."""
        return {
            "address": self.address,
            "passed": self.passed,
            "engine_name": self.engine_name,
            "engine_version": self.engine_version,
            "games": self.games,
            "options": self.options,
            "checks": [
                {"name": i.name, "passed": i.passed, "detail": i.detail} for i in self.items
            ],
            "output": self.output or None,
            "tail": self.tail,
        }

    def text(self) -> str:
        lines = [f"checking the bot at {self.address}"]
        lines += [f"  {'PASS' if i.passed else 'FAIL'}  {i.name}: {i.detail}" for i in self.items]
        if self.output:
            lines.append(f"the bot's output (stdout and stderr) is in {self.output}")
        if self.tail and not any(self.tail[-1] in i.detail for i in self.items):
            count = "line" if len(self.tail) == 1 else f"{len(self.tail)} lines"
            lines.append(f"its last {count}:")
            lines += [f"  | {line}" for line in self.tail]
        lines.append(
            "all checks passed" if self.passed else "the bot does not conform (see FAIL above)"
        )
        return "\n".join(lines)


def sample_positions() -> list[tuple[str, Match, int]]:
    """Positions a bot is asked about, at least one of each game: the start
    of a deal, and a few decisions into one."""
    out = []
    for game, steps in (
        (Game.SCOPA, 0),
        (Game.SCOPA, 9),
        (Game.SCOPA_A_QUATTRO, 3),
        (Game.SCOPONE, 5),
        (Game.SCOPONE_SCIENTIFICO, 0),
        (Game.SCOPA_A_SEI, 7),
        (Game.SCOPA_A_TRE, 4),
    ):
        match = Match(Variant(game), seed=17)
        deal = match.start_deal()
        rng = random.Random(3)
        for _ in range(steps):
            deal.play(rng.choice(deal.legal_moves()))
        out.append((f"{game.value}, decision {steps + 1}", match, deal.to_move or 0))
    # Cirulla, where the seat's packet declares: its legal moves come twice,
    # once declaring (asked only of a bot that plays the options).
    match = Match(Variant(Game.SCOPA, **CIRULLA_OPTIONS), seed=9)
    deal = match.start_deal()
    assert deal.declarable() is not None
    out.append(("cirulla, a declaration open", match, deal.to_move or 0))
    return out


def games_to_play(claimed: Sequence[Game], offered: Sequence[Game]) -> tuple[list[Game], CheckItem]:
    """The games a bot is checked in, and the check item that says which.
    ``claimed``: the games its manifest lists (none: take the handshake's
    word); ``offered``: the games its handshake lists (none: the first four)."""
    every = list(offered) or list(ORIGINAL_GAMES)
    if not claimed:
        return every, CheckItem("games", True, "plays " + _names(every))
    refused = [g for g in claimed if g not in every]
    if refused:
        detail = (
            f"the manifest claims {_names(refused)} but the bot's handshake offers "
            f"{_names(every)} only"
        )
        return [g for g in claimed if g in every], CheckItem("games", False, detail)
    return list(claimed), CheckItem("games", True, f"plays {_names(claimed)}, as its manifest says")


def _names(games: Sequence[Game]) -> str:
    return ", ".join(g.value for g in games)


async def check_bot(
    address: str, timeout: float = 5.0, *, claimed: Sequence[Game] = ()
) -> CheckReport:
    """Check the bot someone runs at ``address`` (in ``claimed``, or the games it offers)."""
    report = CheckReport(address)
    conn = GrpcConnection(address, label=address)
    try:
        try:
            await conn.wait_ready(timeout)
        except BotError as e:
            report.items.append(CheckItem("connection", False, f"cannot connect: {e.message}"))
            return report
        report.items.append(CheckItem("connection", True, "connected"))
        return await _check_connected(conn, report, timeout, claimed)
    finally:
        conn.close()


async def check_launched(
    command: Sequence[str],
    sandbox: SandboxSettings | None = None,
    timeout: float = 5.0,
    *,
    workdir: Path | None = None,
    output: Path | None = None,
    claimed: Sequence[Game] = (),
) -> CheckReport:
    """Launch ``command`` as the arena launches a bot (in its sandbox, unless
    told otherwise; in ``workdir`` when it has its own files), then check it
    in ``claimed`` (its manifest's games), or the games its handshake offers:
    what a bot author runs before submitting, and the server on each upload.
    Its output goes to ``output``; a failed report carries the file's end."""
    report = CheckReport(shlex.join(command), output=str(output) if output else "")
    await _check_launched(command, sandbox, timeout, workdir, output, claimed, report)
    if output is not None and not report.passed:
        report.tail = last_lines(output, TAIL_LINES)
    return report


async def _check_launched(
    command: Sequence[str],
    sandbox: SandboxSettings | None,
    timeout: float,
    workdir: Path | None,
    output: Path | None,
    claimed: Sequence[Game],
    report: CheckReport,
) -> CheckReport:
    try:
        async with launch(
            command,
            label="the bot",
            sandbox=sandbox,
            startup_timeout=10,
            workdir=workdir,
            output=output,
        ) as conn:
            detail = f"ready on {conn.address}; {conn.confinement}"
            report.items.append(CheckItem("launch", True, detail))
            return await _check_connected(conn, report, timeout, claimed)
    except Exception as e:  # the launcher's nursery wraps the bot's failure in a group
        error = unwrap(e)
        if not isinstance(error, BotError):
            raise error from None
        report.items.append(CheckItem("launch", False, error.message))
        return report


def last_lines(path: Path, count: int) -> list[str]:
    """The last ``count`` lines of a bot's output file (its blank lines left
    out); none when it is not there. The file is capped, so reading it is cheap."""
    try:
        text = path.read_bytes().decode(errors="replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if line.strip()][-count:]


async def _check_connected(
    conn: GrpcConnection, report: CheckReport, timeout: float, claimed: Sequence[Game]
) -> CheckReport:
    add = report.items.append
    try:
        hello = await handshake(conn, timeout)
    except BotError as e:
        add(CheckItem("handshake", False, e.message))
        return report
    report.engine_name, report.engine_version = hello.name, hello.version
    add(CheckItem("handshake", bool(hello.name), f"{hello.name or '(no name)'} {hello.version}"))
    add(
        CheckItem(
            "protocol version",
            protocol_mismatch(hello) is None,
            f"speaks version {hello.protocol_version} (the arena speaks {PROTOCOL_VERSION})",
        )
    )
    games, item = games_to_play(claimed, hello.games)
    add(item)
    report.games = [g.value for g in games]
    report.options = list(OPTIONS if hello.every_option else hello.options)
    listed = ", ".join(report.options) or "none"
    every = " (it lists none: every option)" if hello.every_option else ""
    add(CheckItem("options", True, f"plays the options {listed}{every}"))
    add(await _health(conn, timeout))
    clock = SeatClock.of(ClockSettings(move_time=1.0), None)
    for label, match, seat in sample_positions():
        if match.variant.game not in games or hello.missing_options(match.variant):
            continue
        decision = Decision.of(match, seat, clock, "conformance-check", 0)
        legal = decision.legal_moves
        try:
            with trio.fail_after(1.05):
                answer = await conn.decide(decision, 1.05)
            if answer.move is None:
                ok, detail = False, f"unreadable answer: {answer.unreadable}"
            else:
                ok = answer.move in legal
                detail = "a legal move" if ok else f"{answer.move} is not legal there"
                move = answer.move
                if not ok and isinstance(move, Declaring) and move.move in legal:
                    hand = decision.observation.hand
                    detail = undeclarable_reason(move, hand, match.variant)
        except trio.TooSlowError:
            ok, detail = False, "no answer within 1s"
        except BotError as e:
            add(CheckItem(f"decision ({label})", False, e.message))
            if e.kind is FaultKind.CRASH:
                break  # it is gone: the positions left would all say so again
            continue
        add(CheckItem(f"decision ({label})", ok, detail))
    return report


async def _health(conn: GrpcConnection, timeout: float) -> CheckItem:
    name = "health service (optional)"
    status = await conn.health_status(timeout)
    if status is None:
        return CheckItem(name, True, "not served; the arena copes without it")
    return CheckItem(name, True, status)
