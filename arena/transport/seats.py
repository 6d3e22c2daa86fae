"""Seating a match: one connection per seat, opened at once, then greeted.

Each seat gets its own bot instance (its own process for launched engines),
so partners cannot pool their hands. A remote address serving two partner
seats would see both hands: that needs the organiser's explicit permission.
Launched engines are started for the match, or come from a warm pool that
keeps them running between matches (partner seats use different slots).

The handshake is part of seating: a bot that fails to start by its own doing,
does not answer the handshake, or speaks another protocol gets a start-up
fault, and the match is no contest: it never began, so nobody wins it. What
stops a seat through no bot's doing (a program that does not exist, a file
the arena cannot write) is a ConfigError, and no match is played.
"""

from __future__ import annotations

import contextlib
import ipaddress
import itertools
import os
import random
import socket
import warnings
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import trio

from arena.errors import BotError, ConfigError, FaultKind
from arena.match.engine import Hello
from arena.match.outcome import EngineInfo, Fault
from arena.match.settings import (
    AddressEngine,
    BuiltinEngine,
    CommandEngine,
    EngineSpec,
    HumanEngine,
    MatchSettings,
    SandboxSettings,
)
from arena.players.strategies import BUILT_IN
from arena.rules import Variant
from arena.rules.variants import partnered
from arena.transport.grpc_seat import GrpcConnection
from arena.transport.human import People
from arena.transport.in_process import InProcessConnection
from arena.transport.process import launch
from arena.transport.seat import Seat
from arena.wire.protocol import PROTOCOL_VERSION, address_spelling, unix_path


class CollusionWarning(UserWarning):
    """A remote bot serves two partner seats: the arena cannot keep their hands apart."""


def unwrap(error: Exception) -> Exception:
    """The one error inside (nested) exception groups of a single member."""
    while isinstance(error, ExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def endpoint(address: str) -> str:
    """A bot's address reduced to what it reaches, so that two spellings of one
    bot compare equal: its one spelling (wire.protocol.address_spelling), then
    names resolved, every loopback address one host, Unix socket paths with
    their links resolved."""
    try:
        spelled = address_spelling(address)
    except ValueError:  # no address gRPC dials: only the same text is the same bot
        return address
    path = unix_path(spelled)
    if path is not None:
        return "unix:" + os.path.realpath(path)
    host, _, port = spelled.rpartition(":")
    host = host.strip("[]")
    try:
        infos = socket.getaddrinfo(host, None)
    except (socket.gaierror, UnicodeError):
        return f"{host}:{port}"
    addresses = {ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos}
    if all(a.is_loopback for a in addresses):
        return f"loopback:{port}"
    return f"{sorted(str(a) for a in addresses)[0]}:{port}"


def _same_endpoint(a: str, b: str) -> bool:
    if a == b or a.startswith("unix:") or b.startswith("unix:"):
        return endpoint(a) == endpoint(b)
    # Resolve names only when the ports agree: the usual case costs no lookup.
    return a.rsplit(":", 1)[-1] == b.rsplit(":", 1)[-1] and endpoint(a) == endpoint(b)


def check_partners(engines: Sequence[EngineSpec | Seat], allow_shared: bool) -> None:
    """Refuse (or warn about) one remote bot serving two partner seats: the same
    endpoint however it is spelled, or the same connection given twice."""
    if not partnered(len(engines)):
        return
    partners = [(a, b) for a, b in itertools.combinations(range(len(engines)), 2) if a % 2 == b % 2]
    for a, b in partners:
        first, second = engines[a], engines[b]
        if isinstance(first, AddressEngine) and isinstance(second, AddressEngine):
            shared = _same_endpoint(first.address, second.address)
            same_text = first.address == second.address
            where = first.address if same_text else f"{first.address} and {second.address}"
        elif not isinstance(first, EngineSpec):  # a seat the caller opened
            shared, where = first is second, getattr(first, "label", "")
        else:
            shared, where = False, ""  # a spec other than two addresses: never shared
        if shared:
            message = (
                f"seats {a} and {b} are partners served by the same remote bot "
                f"({where}): it sees both hands and the arena cannot prevent collusion"
            )
            if not allow_shared:
                raise ConfigError(
                    message + "; allow it explicitly with --allow-shared-partners "
                    "(allow_shared_partners=True in Python)"
                )
            warnings.warn(message, CollusionWarning, stacklevel=2)


def builtin_connection(spec: BuiltinEngine, seed: str, label: str) -> InProcessConnection:
    """A built-in strategy, seeded per match and seat so that replays are exact."""
    player = BUILT_IN[spec.strategy]
    return InProcessConnection(
        player(random.Random(seed), spec.options),
        name=spec.strategy,
        author="Scopa Arena",
        label=label,
        thinks=player.thinks,
        sees_every_hand=player.sees_every_hand,
    )


class WarmPool:
    """Long-lived bot processes, one per (engine, slot), relaunched when dead."""

    def __init__(
        self,
        nursery: trio.Nursery,
        output: Path | None,
        startup_timeout: float,
        sandbox: SandboxSettings | None = None,
        output_shown: str = "",
    ) -> None:
        self.nursery = nursery
        self.output = output
        self.output_shown = output_shown
        self.startup_timeout = startup_timeout
        self.sandbox = sandbox or SandboxSettings()
        self.connections: dict[tuple[str, int], GrpcConnection] = {}
        self.locks: dict[tuple[str, int], trio.Lock] = {}
        self.launches = 0

        # Set when the pool's block ends: until then its bots stay up, even
        # cancelled (a stop), for the matches still ending (see open_seats).
        self.released = trio.Event()

    async def connection(self, spec: CommandEngine, slot: int) -> GrpcConnection:
        key = (spec.name, slot)
        async with self.locks.setdefault(key, trio.Lock()):
            conn = self.connections.get(key)
            if conn is None or conn.death is not None:
                conn = await self.nursery.start(self._hold, spec, slot)
                self.connections[key] = conn
            return conn

    async def _hold(
        self, spec: CommandEngine, slot: int, *, task_status: trio.TaskStatus[GrpcConnection]
    ) -> None:
        self.launches += 1
        name = f"{spec.name}.slot{slot}.{self.launches}.log"
        output = self.output / name if self.output else None
        label = f"{spec.name} (warm, slot {slot})"
        async with launch(
            spec.command,
            label=label,
            output=output,
            output_shown=shown_in(self.output_shown, name),
            startup_timeout=self.startup_timeout,
            sandbox=spec.sandbox or self.sandbox,
            workdir=spec.workdir,
        ) as conn:
            task_status.started(conn)
            await held_until(self.released, self.nursery)


async def held_until(released: trio.Event, holders: trio.Nursery) -> None:
    """Keep a launched bot, handed over to ``holders`` (task_status.started),
    until its users are done with it, a stop included. The stop cancels every
    task at once: a bot closed meanwhile, under a referee still ending its
    match (a call it makes before its next checkpoint, a shielded probe),
    would turn the stop into a call on a closed channel, an internal error
    or the bot's fault. A bot whose starter was already cancelled when its
    launch ended is never handed over (trio leaves its task with the
    starter, and waits for it to end): nobody will use it, it ends now."""
    if trio.lowlevel.current_task().parent_nursery is not holders:
        return
    with trio.CancelScope(shield=True):
        await released.wait()


def shown_in(directory: str, name: str) -> str:
    """How messages name file ``name`` of a directory shown as ``directory``
    ("": as its path)."""
    return f"{directory.rstrip('/')}/{name}" if directory else ""


@contextlib.asynccontextmanager
async def open_warm_pool(
    output: Path | None = None,
    startup_timeout: float = 10.0,
    sandbox: SandboxSettings | None = None,
    output_shown: str = "",
) -> AsyncIterator[WarmPool]:
    """A warm pool whose processes are all stopped when the block ends; their
    output goes to files in ``output``, which messages name as in
    ``output_shown`` (see ``open_seats``)."""
    async with trio.open_nursery() as nursery:
        pool = WarmPool(nursery, output, startup_timeout, sandbox, output_shown)
        try:
            yield pool
        finally:
            pool.released.set()
        nursery.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def open_seats(
    engines: Sequence[EngineSpec | Seat],
    *,
    match_id: str,
    output_dir: Path | None = None,
    output_name: str | None = None,
    output_shown: str = "",
    startup_timeout: float = 10.0,
    allow_shared_partners: bool = False,
    warm: WarmPool | None = None,
    sandbox: SandboxSettings | None = None,
    people: People | None = None,
) -> AsyncIterator[list[Seat | BotError]]:
    """One connection per seat, opened at once, closed (processes killed) on exit.
    A connection given instead of a spec is used as it is (its owner closes it).
    Launched engines run under their own sandbox settings, else ``sandbox``.
    A person's seat is ``people``'s (the table the page plays at).

    Launched bots' output goes to one file each in ``output_dir``; messages
    name that directory ``output_shown`` (default: its path), as those who
    read them will find it (a run's ``bots/``, not the server's own path).

    A seat whose bot fails to start by its own doing (it exits, never says it
    is listening, cannot be reached at the address given) gets the BotError
    instead of a connection: a start-up fault of that seat alone. Anything
    else that stops a seat from opening is the arena's or the organiser's
    (a program that does not exist, an unwritable output file, the machine
    out of processes): no bot is blamed, and it is raised as a ConfigError
    (a bug in the arena as itself) once every seat is closed again.
    """
    check_partners(engines, allow_shared_partners)
    # Match ids may hold "/" (tournaments): not in file names, nor in the seeds
    # of built-in strategies (kept as they always were, so results do not move).
    safe_id = match_id.replace("/", "_")
    output_name = output_name or safe_id  # bots' output: NAME.seatN.ENGINE.log
    seats: list[Seat | BotError | None] = [None] * len(engines)
    problems: list[Exception] = []
    remote: dict[str, GrpcConnection] = {}

    async def hold_process(
        seat: int,
        spec: CommandEngine,
        holders: trio.Nursery,
        *,
        task_status: trio.TaskStatus[GrpcConnection],
    ) -> None:
        # Each launched bot lives in a task of its own: its nursery opens and
        # closes in that task, and cancelling it tears the process down.
        name = f"{output_name}.seat{seat}.{spec.name}.log"
        output = output_dir / name if output_dir else None
        label = f"{spec.name} (seat {seat})"
        async with launch(
            spec.command,
            label=label,
            output=output,
            output_shown=shown_in(output_shown, name),
            startup_timeout=startup_timeout,
            sandbox=spec.sandbox or sandbox,
            workdir=spec.workdir,
        ) as conn:
            task_status.started(conn)
            await held_until(released, holders)

    async def open_one(seat: int, spec: EngineSpec | Seat, holders: trio.Nursery) -> None:
        try:
            match spec:
                case BuiltinEngine():
                    label = f"{spec.name} (seat {seat}, in-process)"
                    seats[seat] = builtin_connection(spec, f"{safe_id}/{seat}", label)
                case AddressEngine():
                    if spec.address not in remote:
                        remote[spec.address] = GrpcConnection(
                            spec.address, label=f"{spec.name} at {spec.address}"
                        )
                        await remote[spec.address].wait_ready(startup_timeout)
                        remote[spec.address].watch_health()
                    seats[seat] = remote[spec.address]
                case CommandEngine() if warm is not None:
                    slot = seat // 2 if partnered(len(engines)) else 0  # each partner its own
                    seats[seat] = await warm.connection(spec, slot)
                case CommandEngine():
                    seats[seat] = await holders.start(hold_process, seat, spec, holders)
                case HumanEngine():
                    if people is None:
                        raise ConfigError(
                            f"seat {seat} ({spec.name}) is a person's: "
                            "it needs a table in a browser (arena match --http)"
                        )
                    seats[seat] = people.connection(seat, spec)
                case _:  # a seat the caller opened (and closes)
                    seats[seat] = spec
        except Exception as e:  # launchers' nurseries wrap what they raise in groups
            error = unwrap(e)
            if isinstance(error, BotError):
                seats[seat] = error
            elif isinstance(error, OSError):
                name = spec.name if isinstance(spec, EngineSpec) else "a bot"
                why = error.strerror or str(error)
                problems.append(ConfigError(f"cannot open seat {seat} ({name}): {why}"))
            else:
                problems.append(error)

    released = trio.Event()  # the seats' user is done: the launched bots may end
    try:
        async with trio.open_nursery() as holders:
            try:
                async with trio.open_nursery() as starters:
                    for seat, engine in enumerate(engines):
                        starters.start_soon(open_one, seat, engine, holders)
                if not problems:
                    yield [
                        s if s is not None else BotError(FaultKind.CRASH, "not opened")
                        for s in seats
                    ]
            finally:
                released.set()
            holders.cancel_scope.cancel()
    finally:
        for conn in remote.values():
            conn.close()
    if problems:
        # Here, once every seat is closed again: one error, not a nursery's group.
        raise problems[0]


@dataclass
class Greeting:
    """Who sat where, and the seats that failed before the first deal."""

    engines: list[EngineInfo]
    faults: list[Fault]


async def handshake(conn: Seat, timeout: float, variant: Variant | None = None) -> Hello:
    """The one handshake, for seating (told the match's variant), `arena check`
    and liveness probes: what the bot says of itself, or BotError (STALL when it
    said nothing in time)."""
    no_answer = f"no handshake within {timeout:g}s"
    try:
        with trio.fail_after(timeout):
            return await conn.handshake(timeout, variant)
    except trio.TooSlowError:
        raise BotError(FaultKind.STALL, no_answer) from None
    except BotError as e:  # the gRPC deadline, met first, is the same stall
        if e.kind is FaultKind.TIMEOUT:
            raise BotError(FaultKind.STALL, no_answer) from None
        raise


def protocol_mismatch(hello: Hello) -> str | None:
    """Why a bot that answered the handshake cannot be spoken to, or None."""
    if hello.protocol_version != PROTOCOL_VERSION:
        return f"speaks protocol version {hello.protocol_version}, not {PROTOCOL_VERSION}"
    return None


async def greet(
    seats: Sequence[Seat | BotError], names: Sequence[str], settings: MatchSettings
) -> Greeting:
    """Handshake with every seat at once. A seat that could not be opened, or
    fails the handshake, gets a start-up fault."""
    engines = [EngineInfo(seat=i, name=n) for i, n in enumerate(names)]
    faults: list[Fault] = []
    game = settings.variant.game

    def fail(seat: int, kind: FaultKind, message: str) -> None:
        faults.append(Fault(seat, kind, 0, 0, message, at_startup=True))

    async def greet_one(seat: int) -> None:
        conn = seats[seat]
        if not isinstance(conn, BotError):
            engines[seat] = EngineInfo(seat, names[seat], confinement=conn.confinement)
        if isinstance(conn, BotError):
            return fail(seat, conn.kind, conn.message)
        timeout = conn.traits.handshake_timeout or settings.handshake_timeout
        try:
            hello = await handshake(conn, timeout, settings.variant)
        except BotError as e:
            return fail(seat, e.kind, e.message)
        engines[seat] = hello.seated(seat, names[seat], conn.confinement)
        mismatch = protocol_mismatch(hello)
        if mismatch is not None:
            fail(seat, FaultKind.MALFORMED, mismatch)
        if not hello.plays(game):
            fail(seat, FaultKind.MALFORMED, f"does not play {game.value}")
        missing = hello.missing_options(settings.variant)
        if missing:
            named = ", ".join(missing)
            fail(seat, FaultKind.MALFORMED, f"does not play the option(s) {named} (its handshake)")

    async with trio.open_nursery() as nursery:
        for seat in range(len(seats)):
            nursery.start_soon(greet_one, seat)
    return Greeting(engines, sorted(faults, key=lambda f: f.seat))
