"""Write a Scopa bot in Python: one function, one call.

    from arena.sdk import Decision, serve

    def choose(decision: Decision):
        return decision.legal_moves[0]

    if __name__ == "__main__":
        serve(choose, name="first-move", version="1.0", author="me")

``serve`` runs a complete gRPC server (the Engine service of
proto/arena/wire/v1/engine.proto plus the standard health service), prints
``LISTENING host:port`` on stdout once it accepts calls (the arena waits for
that line), serves any number of matches at once, and stops cleanly on
SIGTERM or Ctrl-C. The function sees rules values (arena.rules), never
protobuf: ``decision.observation`` is what the seat may know (card sets are
40-bit masks), ``decision.legal_moves`` every legal move,
``decision.time_limit`` the seconds it has. The observation includes what a
player remembers of the deal, so a bot keeps no state of its own:
``captured_cards`` (a mask per side), ``last_capture_seat`` (None while
nobody has captured) and ``opening_table``; the target and deal limit are in
``observation.variant``. In Cirulla (``variant.declarations``),
``decision.declaration`` is the declaration open with this play, if any
(cirulla or decino: three or ten points), and ``decision.declaring(move)`` is
the move that makes it; a bot that never declares plays legally. It may be
a plain or an ``async`` function; a plain one runs in a worker thread so
that slow thinking never blocks other matches.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import inspect
import os
import random
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena import __version__
from arena.match.engine import SeatClock
from arena.rules import Declaring, Game, Move, Observation
from arena.wire import convert
from arena.wire.protocol import LISTEN_ENV, LISTENING_PREFIX, MAX_REQUEST_BYTES
from arena.wire.v1 import engine_pb2 as epb
from arena.wire.v1 import engine_pb2_grpc


@dataclass(frozen=True)
class Decision:
    """One request for a move, as rules values."""

    match_id: str
    seat: int
    observation: Observation
    legal_moves: list[Move]  # every legal move (declaring or not: see ``declaration``)
    time_limit: float  # seconds for this decision (network grace not included)
    deal_number: int
    decision: int  # index of the decision within the deal
    bank: float | None = None  # seconds left in the seat's bank; None: no bank
    increment: float = 0.0  # seconds added to the bank after each decision
    move_time: float | None = None  # the per-decision limit; None: only the bank counts
    # The declaration this play may make (Variant.declarations): "cirulla" or "decino".
    declaration: str | None = None

    def declaring(self, move: Move | tuple[int, int]) -> Declaring:
        """``move``, declaring the open declaration with it (ValueError when none is)."""
        if self.declaration is None:
            raise ValueError("no declaration is open with this play")
        return Declaring(move[0], move[1], self.declaration)

    @property
    def clock(self) -> SeatClock:
        """The seat's clock as the referee computed it (arena.match.engine.SeatClock)."""
        return SeatClock(self.move_time, self.bank, self.increment, self.time_limit)

    def rng(self, salt: object = "") -> random.Random:
        """A random generator seeded by this decision alone: the same match
        replayed gives the same numbers, however many matches run at once."""
        return random.Random(
            f"{salt}/{self.match_id}/{self.seat}/{self.deal_number}/{self.decision}"
        )


Choice = Move | Declaring | tuple[int, int]
Chooser = Callable[[Decision], Choice | Awaitable[Choice]]


class EngineServicer(engine_pb2_grpc.EngineServicer):
    """The Engine service around one ``choose`` function.

    ``decide_pb`` is the whole decision path (protobuf in, protobuf out); the
    arena's in-process transport calls it directly, so in-process bots and
    served bots run the same code.
    """

    def __init__(
        self,
        choose: Chooser,
        *,
        name: str,
        version: str = "0.1.0",
        author: str = "",
        games: Sequence[Game] = (),
        options: Sequence[str] | None = None,
    ) -> None:
        self.choose = choose
        # Plain functions think in these threads; never joined at shutdown, so
        # a bot stuck in its own code still stops when told to.
        self.executor = concurrent.futures.ThreadPoolExecutor(thread_name_prefix="decide")
        self.info = convert.handshake_response(name, version, author, games, options)

    def decision_of(self, request: epb.DecisionRequest) -> Decision:
        obs, offered = convert.decision_from_pb(request)
        moves = [m for m in offered if not isinstance(m, Declaring)]
        declared = {m.declaration for m in offered if isinstance(m, Declaring)}
        return Decision(
            match_id=request.match_id,
            seat=obs.seat,
            observation=obs,
            legal_moves=moves,
            time_limit=request.clock.deadline_ms / 1000,
            deal_number=obs.deal_number,
            decision=request.decision,
            bank=request.clock.bank_ms / 1000 if request.clock.bank_ms else None,
            increment=request.clock.increment_ms / 1000,
            move_time=request.clock.move_time_ms / 1000 if request.clock.move_time_ms else None,
            declaration=min(declared) if declared else None,
        )

    def decide_pb(self, request: epb.DecisionRequest) -> epb.DecisionResponse:
        """Synchronous decision (for plain functions)."""
        move = self.choose(self.decision_of(request))
        assert not inspect.isawaitable(move)
        return convert.decision_response(move)

    async def Handshake(self, request: Any, context: Any) -> epb.HandshakeResponse:
        return self.info

    async def Decide(self, request: Any, context: Any) -> epb.DecisionResponse:
        if inspect.iscoroutinefunction(self.choose):
            decision = self.decision_of(request)
            return convert.decision_response(await self.choose(decision))
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, self.decide_pb, request)

    async def Play(self, requests: Any, context: Any) -> Any:
        """Every decision of a connection on one stream, each answered as
        Decide answers it (a subclass that overrides Decide is served the same
        on both). A cancelled stream cancels the decision it was waiting for."""
        async for request in requests:
            yield await self.Decide(request, context)

    async def MatchStarted(self, request: Any, context: Any) -> epb.Ack:
        return convert.ack()

    async def DealEnded(self, request: Any, context: Any) -> epb.Ack:
        return convert.ack()

    async def MatchEnded(self, request: Any, context: Any) -> epb.Ack:
        return convert.ack()


def server_options() -> list[tuple[str, int]]:
    return [
        ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
        ("grpc.max_send_message_length", MAX_REQUEST_BYTES),
        ("grpc.so_reuseport", 0),
    ]


async def serve_async(
    servicer: engine_pb2_grpc.EngineServicer,
    listen: str,
    stop_signals: Sequence[signal.Signals] = (signal.SIGTERM, signal.SIGINT),
) -> None:
    """Serve until one of ``stop_signals``; print LISTENING once ready."""
    server = grpc.aio.server(options=server_options())
    engine_pb2_grpc.add_EngineServicer_to_server(servicer, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    port = server.add_insecure_port(listen)
    if port == 0:
        raise SystemExit(f"cannot listen on {listen}")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    address = listen if listen.startswith("unix:") else f"{listen.rsplit(':', 1)[0]}:{port}"
    print(f"{LISTENING_PREFIX}{address}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in stop_signals:
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await health_servicer.enter_graceful_shutdown()
    await server.stop(grace=0.5)
    if isinstance(servicer, EngineServicer):
        servicer.executor.shutdown(wait=False, cancel_futures=True)


def run_server(servicer: engine_pb2_grpc.EngineServicer, listen: str) -> None:
    """Serve until SIGTERM/SIGINT, then exit the process at once: a decision
    thread stuck in the bot's own code must not keep a stopped bot alive."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_async(servicer, listen))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def serve(
    choose: Chooser,
    *,
    name: str,
    version: str = "0.1.0",
    author: str = "",
    games: Sequence[Game] = (),
    options: Sequence[str] | None = None,
    argv: Sequence[str] | None = None,
    parents: Sequence[argparse.ArgumentParser] = (),
) -> None:
    """Run a bot server around ``choose`` until stopped. Command line:
    ``--listen ADDRESS`` (default $SCOPA_BOT_LISTEN or 127.0.0.1:0, a free port);
    ``parents``: the bot's own options, so that ``--help`` lists them too.
    Other words are left alone (a host may tag its bots' command lines)."""
    parser = argparse.ArgumentParser(
        description=f"{name} {version}: a Scopa Arena bot", parents=list(parents)
    )
    parser.add_argument(
        "--listen",
        default=os.environ.get(LISTEN_ENV, "127.0.0.1:0"),
        help="address to listen on: HOST:PORT (port 0 picks a free one) or unix:PATH",
    )
    args, _ = parser.parse_known_args(argv if argv is not None else sys.argv[1:])
    servicer = EngineServicer(
        choose, name=name, version=version, author=author, games=games, options=options
    )
    run_server(servicer, args.listen)


__all__ = ["LISTEN_ENV", "Decision", "EngineServicer", "__version__", "serve"]
