"""The conformance check of a bot at an address: what `arena check` prints and
what the server runs before it accepts a registration.

Each point passes or fails with a plain-words detail: the connection, the
handshake (within 5 s, protocol version 1, a name), the optional health
service, and legal answers within 1 s to sample positions of several games.
"""

from __future__ import annotations

import random
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from arena.errors import BotError
from arena.rules import Game, Match, Variant
from arena.settings import ClockSettings, SandboxSettings
from arena.transport.connection import GrpcConnection
from arena.transport.process import launch
from arena.transport.seats import unwrap
from arena.wire import convert
from arena.wire.protocol import PROTOCOL_VERSION


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
            "checks": [
                {"name": i.name, "passed": i.passed, "detail": i.detail} for i in self.items
            ],
        }

    def text(self) -> str:
        lines = [f"checking the bot at {self.address}"]
        lines += [f"  {'PASS' if i.passed else 'FAIL'}  {i.name}: {i.detail}" for i in self.items]
        lines.append(
            "all checks passed" if self.passed else "the bot does not conform (see FAIL above)"
        )
        return "\n".join(lines)


def sample_positions() -> list[tuple[str, Match, int]]:
    """Positions a bot is asked about: the start of three games, and a mid-deal Scopa."""
    out = []
    for game, steps in (
        (Game.SCOPA, 0),
        (Game.SCOPA, 9),
        (Game.SCOPONE, 5),
        (Game.SCOPONE_SCIENTIFICO, 0),
    ):
        match = Match(Variant(game), seed=17)
        deal = match.start_deal()
        rng = random.Random(3)
        for _ in range(steps):
            deal.play(rng.choice(deal.legal_moves()))
        out.append((f"{game.value}, decision {steps + 1}", match, deal.to_move or 0))
    return out


async def check_bot(address: str, timeout: float = 5.0) -> CheckReport:
    """Check the bot someone runs at ``address``."""
    report = CheckReport(address)
    conn = GrpcConnection(address, label=address)
    try:
        try:
            await conn.wait_ready(timeout)
        except BotError as e:
            report.items.append(CheckItem("connection", False, f"cannot connect: {e.message}"))
            return report
        report.items.append(CheckItem("connection", True, "connected"))
        return await _check_connected(conn, report, timeout)
    finally:
        conn.close()


async def check_launched(
    command: Sequence[str],
    sandbox: SandboxSettings | None = None,
    timeout: float = 5.0,
    *,
    workdir: Path | None = None,
    output: Path | None = None,
) -> CheckReport:
    """Launch ``command`` as the arena launches a bot (in its sandbox, unless
    told otherwise; in ``workdir`` when it has its own files), then check it:
    what a bot author runs before submitting, and the server on each upload."""
    report = CheckReport(shlex.join(command))
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
            return await _check_connected(conn, report, timeout)
    except Exception as e:  # the launcher's nursery wraps the bot's failure in a group
        error = unwrap(e)
        if not isinstance(error, BotError):
            raise error from None
        report.items.append(CheckItem("launch", False, error.message))
        return report


async def _check_connected(
    conn: GrpcConnection, report: CheckReport, timeout: float
) -> CheckReport:
    add = report.items.append
    request = convert.handshake_request()
    try:
        with trio.fail_after(timeout):
            info = await conn.handshake(request, timeout)
    except trio.TooSlowError:
        add(CheckItem("handshake", False, f"no answer within {timeout:g}s"))
        return report
    except BotError as e:
        add(CheckItem("handshake", False, e.message))
        return report
    report.engine_name, report.engine_version = info.name, info.version
    add(CheckItem("handshake", bool(info.name), f"{info.name or '(no name)'} {info.version}"))
    add(
        CheckItem(
            "protocol version",
            info.protocol_version == PROTOCOL_VERSION,
            f"speaks version {info.protocol_version} (the arena speaks {PROTOCOL_VERSION})",
        )
    )
    games = [g.value for g in Game if not info.games or convert.variant_to_pb_game(g) in info.games]
    add(CheckItem("games", bool(games), "plays " + ", ".join(games)))
    add(await _health(conn, timeout))
    clock = convert.clock_to_pb(ClockSettings(move_time=1.0), None)
    for label, match, seat in sample_positions():
        if convert.variant_to_pb_game(match.variant.game) not in info.games and info.games:
            continue
        deal = match.deal
        assert deal is not None
        legal = deal.legal_moves()
        req = convert.decision_request(match, seat, legal, clock, "conformance-check", 0)
        try:
            with trio.fail_after(1.05):
                answer = await conn.decide(req, 1.05)
            move = convert.move_from_pb(answer.move)
            ok = move in legal
            detail = "a legal move" if ok else f"{move} is not legal there"
        except trio.TooSlowError:
            ok, detail = False, "no answer within 1s"
        except BotError as e:
            ok, detail = False, e.message
        except Exception as e:  # an unreadable answer
            ok, detail = False, f"unreadable answer: {e}"
        add(CheckItem(f"decision ({label})", ok, detail))
    return report


async def _health(conn: GrpcConnection, timeout: float) -> CheckItem:
    name = "health service (optional)"
    status = await conn.health_status(timeout)
    if status is None:
        return CheckItem(name, True, "not served; the arena copes without it")
    return CheckItem(name, True, status)
