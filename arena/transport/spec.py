"""Engine specifications and opening one connection per seat.

A SPEC names how a bot is reached:
- an address of a bot someone runs: ``HOST:PORT`` or ``unix:/PATH``;
- ``builtin:random`` or ``builtin:greedy``: the built-in strategies, in-process;
- anything else: a command line the arena launches (e.g. ``python bot.py``).

Each seat gets its own bot instance (its own process for launched engines),
so partners cannot pool their hands. A remote address serving two partner
seats would see both hands: that needs the organiser's explicit permission.
"""

from __future__ import annotations

import contextlib
import random
import re
import shlex
import sys
import warnings
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import trio

from arena.errors import ConfigError
from arena.sdk import EngineServicer
from arena.strategies import BUILT_IN, greedy_strategy, random_strategy
from arena.transport.connection import EngineConnection, GrpcConnection, InProcessConnection
from arena.transport.process import launch

_ADDRESS = re.compile(r"^(unix:.+|[A-Za-z0-9_.\-]+:\d{1,5}|\[[0-9a-fA-F:]+\]:\d{1,5})$")
_NAME = re.compile(r"^[A-Za-z0-9_.+\-]{1,64}$")


class WarmSource(Protocol):
    async def connection(self, spec: EngineSpec, slot: int) -> GrpcConnection: ...


class CollusionWarning(UserWarning):
    """A remote bot serves two partner seats: the arena cannot keep their hands apart."""


def unwrap(error: Exception) -> Exception:
    """The one error inside (nested) exception groups of a single member."""
    while isinstance(error, ExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


@dataclass(frozen=True)
class EngineSpec:
    name: str
    kind: str  # "address", "command" or "builtin"
    address: str = ""
    command: tuple[str, ...] = ()
    builtin: str = ""

    @classmethod
    def parse(cls, text: str) -> EngineSpec:
        """Parse ``NAME=SPEC``."""
        name, sep, spec = text.partition("=")
        name, spec = name.strip(), spec.strip()
        if not sep or not spec:
            raise ConfigError(f"engine {text!r}: expected NAME=SPEC, e.g. greedy=builtin:greedy")
        if not _NAME.match(name):
            raise ConfigError(f"engine name {name!r}: use letters, digits and . _ + - only")
        return cls.of(name, spec)

    @classmethod
    def of(cls, name: str, spec: str) -> EngineSpec:
        if spec.startswith("builtin:"):
            which = spec.split(":", 1)[1]
            if which not in BUILT_IN:
                known = ", ".join(f"builtin:{k}" for k in BUILT_IN)
                raise ConfigError(f"engine {name}: unknown {spec!r}; known: {known}")
            return cls(name, "builtin", builtin=which)
        if _ADDRESS.match(spec):
            return cls(name, "address", address=spec)
        try:
            command = tuple(shlex.split(spec))
        except ValueError as e:
            raise ConfigError(f"engine {name}: cannot read command {spec!r}: {e}") from None
        if command and command[0] in ("python", "python3"):
            command = (sys.executable, *command[1:])  # the arena's own interpreter
        return cls(name, "command", command=command)

    def describe(self) -> str:
        if self.kind == "address":
            return self.address
        if self.kind == "builtin":
            return f"builtin:{self.builtin}"
        return " ".join(self.command)


def builtin_servicer(which: str, seed: str) -> EngineServicer:
    rng = random.Random(seed)
    strategy = random_strategy(rng) if which == "random" else greedy_strategy(rng)
    return EngineServicer(
        lambda d: strategy(d.observation, d.legal_moves),
        name=which,
        version="1.0",
        author="Scopa Arena",
    )


def check_partners(specs: Sequence[EngineSpec], allow_shared: bool) -> None:
    """Refuse (or warn about) one remote address serving two partner seats."""
    if len(specs) != 4:
        return
    for a, b in ((0, 2), (1, 3)):
        if specs[a].kind == "address" and specs[a].address == specs[b].address:
            message = (
                f"seats {a} and {b} are partners served by the same remote bot "
                f"({specs[a].address}): it sees both hands and the arena cannot prevent collusion"
            )
            if not allow_shared:
                raise ConfigError(message + "; allow it explicitly to go on")
            warnings.warn(message, CollusionWarning, stacklevel=2)


@contextlib.asynccontextmanager
async def open_seats(
    specs: Sequence[EngineSpec],
    *,
    match_id: str,
    output_dir: Path | None = None,
    startup_timeout: float = 10.0,
    allow_shared_partners: bool = False,
    warm: WarmSource | None = None,
) -> AsyncIterator[list[EngineConnection | Exception]]:
    """One connection per seat, opened at once, closed (processes killed) on exit.

    ``warm``: where launched engines come from when they are kept running
    between matches (a tournament's pool); partner seats get different slots.

    A seat whose bot cannot be started gets the exception instead of a
    connection (a BotError for a bot that crashed or stalled at start-up), so
    the referee can record the fault against that seat alone.
    """
    check_partners(specs, allow_shared_partners)
    seats: list[EngineConnection | Exception | None] = [None] * len(specs)
    remote: dict[str, GrpcConnection] = {}

    async def hold_process(
        seat: int, spec: EngineSpec, *, task_status: trio.TaskStatus[GrpcConnection]
    ) -> None:
        # Each launched bot lives in a task of its own: its nursery opens and
        # closes in that task, and cancelling it tears the process down.
        output = output_dir / f"{match_id}.seat{seat}.{spec.name}.log" if output_dir else None
        label = f"{spec.name} (seat {seat})"
        async with launch(
            spec.command, label=label, output=output, startup_timeout=startup_timeout
        ) as conn:
            task_status.started(conn)
            await trio.sleep_forever()

    async def open_one(seat: int, spec: EngineSpec, holders: trio.Nursery) -> None:
        try:
            if spec.kind == "builtin":
                seats[seat] = InProcessConnection(
                    builtin_servicer(spec.builtin, f"{match_id}/{seat}"),
                    label=f"{spec.name} (seat {seat}, in-process)",
                )
            elif spec.kind == "address":
                if spec.address not in remote:
                    remote[spec.address] = GrpcConnection(
                        spec.address, label=f"{spec.name} at {spec.address}"
                    )
                    await remote[spec.address].wait_ready(startup_timeout)
                    remote[spec.address].watch_health()
                seats[seat] = remote[spec.address]
            elif warm is not None:
                seats[seat] = await warm.connection(spec, seat // 2 if len(specs) == 4 else 0)
            else:
                seats[seat] = await holders.start(hold_process, seat, spec)
        except Exception as e:  # recorded as this seat's fault by the referee
            seats[seat] = unwrap(e)

    try:
        async with trio.open_nursery() as holders:
            async with trio.open_nursery() as starters:
                for seat, spec in enumerate(specs):
                    starters.start_soon(open_one, seat, spec, holders)
            yield [s if s is not None else RuntimeError("not opened") for s in seats]
            holders.cancel_scope.cancel()
    finally:
        for conn in remote.values():
            conn.close()
