"""How the referee talks to one seat's bot: over gRPC, or in-process.

Both kinds offer the same three async calls (handshake, decide, notify) and
raise BotError with a classified FaultKind for every way a bot can fail, so
the referee has one code path. Timeouts are the referee's business (it wraps
calls in trio.fail_after); the gRPC deadline passed here is a backstop that
also tells the bot its deadline.
"""

from __future__ import annotations

import contextlib
import math
import time
from typing import Any

import grpc
import trio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.errors import BotError, WireError
from arena.outcome import FaultKind
from arena.rules import Strategy
from arena.transport.bridge import PeerGone, wait_future
from arena.wire import convert
from arena.wire.protocol import MAX_ANSWER_BYTES, MAX_REQUEST_BYTES
from arena.wire.v1 import engine_pb2 as epb
from arena.wire.v1 import engine_pb2_grpc

NOTIFICATIONS = ("MatchStarted", "DealEnded", "MatchEnded")


class EngineConnection:
    """One bot instance serving one seat (or, when allowed, several)."""

    label: str = "bot"
    death: str | None = None  # why the bot is known to be gone
    confinement: str = ""  # how the bot runs: a sandbox and its limits, remote, in-process
    # True when decide_timed measures the bot where it runs (in-process): its
    # time, not the event loop's, decides a timeout.
    times_itself: bool = False

    async def handshake(
        self, request: epb.HandshakeRequest, timeout: float
    ) -> epb.HandshakeResponse:
        raise NotImplementedError

    async def decide(self, request: epb.DecisionRequest, timeout: float) -> epb.DecisionResponse:
        raise NotImplementedError

    async def decide_timed(
        self, request: epb.DecisionRequest, timeout: float
    ) -> tuple[epb.DecisionResponse, float | None]:
        """The answer, and the time the bot took when it can be measured where
        it ran (in-process); None for a bot the referee times from outside."""
        return await self.decide(request, timeout), None

    async def notify(self, method: str, request: Any, timeout: float) -> None:
        """Best effort: a notification that fails is not a fault."""
        raise NotImplementedError

    def close(self) -> None:
        pass


def classify(error: grpc.RpcError, label: str) -> BotError:
    """Map a failed gRPC call to the bot's fault: deadline -> TIMEOUT, unavailable
    or cancelled -> CRASH, too large, unreadable or an error status -> MALFORMED."""
    code = error.code() if hasattr(error, "code") else None
    details = (error.details() if hasattr(error, "details") else None) or ""
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return BotError(FaultKind.TIMEOUT, f"{label}: deadline exceeded")
    if code == grpc.StatusCode.UNAVAILABLE:
        return BotError(FaultKind.CRASH, f"{label}: connection lost ({details})")
    if code == grpc.StatusCode.CANCELLED:
        return BotError(FaultKind.CRASH, f"{label}: the call was cancelled ({details})")
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return BotError(FaultKind.MALFORMED, f"{label}: answer over the size limit ({details})")
    if code == grpc.StatusCode.INTERNAL and "eserializ" in details:
        return BotError(FaultKind.MALFORMED, f"{label}: answer is not a valid message")
    if code == grpc.StatusCode.UNIMPLEMENTED:
        return BotError(FaultKind.MALFORMED, f"{label}: call not implemented ({details})")
    name = code.name if code is not None else "error"
    return BotError(
        FaultKind.MALFORMED, f"{label}: the bot answered with an error: {name}: {details}"
    )


def channel_options() -> list[tuple[str, Any]]:
    return [
        ("grpc.max_receive_message_length", MAX_ANSWER_BYTES),
        ("grpc.max_send_message_length", MAX_REQUEST_BYTES),
        ("grpc.enable_retries", 0),
        ("grpc.enable_http_proxy", 0),  # bots are reached directly, never through a proxy
    ]


class GrpcConnection(EngineConnection):
    """A bot reached over gRPC at an address (host:port or unix:/path)."""

    def __init__(self, address: str, label: str | None = None) -> None:
        self.address = address
        self.label = label or address
        self.confinement = "a bot the arena does not run"
        self.channel = grpc.insecure_channel(address, options=channel_options())
        self.stub = engine_pb2_grpc.EngineStub(self.channel)
        self.waiters: set[trio.Event] = set()
        self.death: str | None = None
        self._health: Any = None
        # Set by the launcher when the bot's process has exited (death says how).
        self.exited: trio.Event | None = None

    def mark_dead(self, reason: str) -> None:
        """Called when the bot is known to be gone: every pending call ends now."""
        if self.death is None:
            self.death = reason
        for event in list(self.waiters):
            event.set()

    async def wait_ready(self, timeout: float) -> None:
        """Wait until the channel connects; STALL if it does not within ``timeout``."""
        future = grpc.channel_ready_future(self.channel)
        try:
            with trio.fail_after(timeout):
                await wait_future(future, self.waiters)
        except trio.TooSlowError:
            raise BotError(
                FaultKind.STALL, f"{self.label}: no connection within {timeout:g}s"
            ) from None
        except PeerGone:
            raise BotError(FaultKind.CRASH, f"{self.label}: {self.death}") from None

    def watch_health(self) -> None:
        """Keep one Health/Watch stream open: it reports a dead bot within
        milliseconds and keeps grpcio from starting a thread per call on an
        otherwise idle channel (measured: p99 of 100-200 ms with 64 idle
        channels without it). Bots without the health service answer
        UNIMPLEMENTED, which is fine."""
        token = trio.lowlevel.current_trio_token()
        stub = health_pb2_grpc.HealthStub(self.channel)
        call = stub.Watch(health_pb2.HealthCheckRequest(service=""))

        def ended(c: Any) -> None:
            if c.code() == grpc.StatusCode.UNAVAILABLE:
                with contextlib.suppress(trio.RunFinishedError):
                    token.run_sync_soon(self.mark_dead, "connection lost")

        call.add_done_callback(ended)
        self._health = call

    async def health_status(self, timeout: float) -> str | None:
        """The bot's answer to a standard health check ("SERVING", ...), or None
        when it does not serve the health service (it is optional)."""
        stub = health_pb2_grpc.HealthStub(self.channel)
        future = stub.Check.future(health_pb2.HealthCheckRequest(), timeout=timeout)
        try:
            with trio.fail_after(timeout):
                answer = await wait_future(future)
        except (grpc.RpcError, trio.TooSlowError, PeerGone):
            return None
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status))

    async def _crashed(self, fallback: str) -> BotError:
        """The CRASH fault, with the process's exit status and last words when
        it is a launched bot (given a moment to be reaped)."""
        if self.exited is not None:
            with trio.move_on_after(0.5):
                await self.exited.wait()
        return BotError(FaultKind.CRASH, f"{self.label}: {self.death or fallback}")

    async def _call(self, method: Any, request: Any, timeout: float) -> Any:
        if self.death is not None:
            raise await self._crashed("gone")
        future = method.future(request, timeout=timeout)
        try:
            return await wait_future(future, self.waiters)
        except PeerGone:
            raise await self._crashed("gone") from None
        except grpc.RpcError as e:
            error = classify(e, self.label)
            if self.death is not None or error.kind is FaultKind.CRASH:
                raise await self._crashed(error.message) from None
            raise error from None

    async def handshake(
        self, request: epb.HandshakeRequest, timeout: float
    ) -> epb.HandshakeResponse:
        return await self._call(self.stub.Handshake, request, timeout)  # type: ignore[no-any-return]

    async def decide(self, request: epb.DecisionRequest, timeout: float) -> epb.DecisionResponse:
        return await self._call(self.stub.Decide, request, timeout)  # type: ignore[no-any-return]

    async def notify(self, method: str, request: Any, timeout: float) -> None:
        if method not in NOTIFICATIONS:
            raise ValueError(method)
        try:
            with trio.move_on_after(timeout):
                await self._call(getattr(self.stub, method), request, timeout)
        except BotError:
            pass

    def close(self) -> None:
        if self._health is not None:
            self._health.cancel()
        self.channel.close()


_IN_PROCESS_THREADS: trio.lowlevel.RunVar[trio.CapacityLimiter] = trio.lowlevel.RunVar(
    "arena_in_process_threads"
)


def _in_process_threads() -> trio.CapacityLimiter:
    """The threads in-process strategies think in: one per waiting decision."""
    try:
        return _IN_PROCESS_THREADS.get()
    except LookupError:
        limiter = trio.CapacityLimiter(math.inf)
        _IN_PROCESS_THREADS.set(limiter)
        return limiter


class InProcessConnection(EngineConnection):
    """A strategy running inside the arena (Observation, legal moves -> move),
    reached through the same protobuf messages as a bot over the wire, and
    called in a worker thread (abandoned, never waited for, when the clock runs
    out). For fast local runs and tests."""

    def __init__(
        self,
        strategy: Strategy,
        *,
        name: str,
        version: str = "1.0",
        author: str = "",
        label: str | None = None,
    ) -> None:
        self.strategy = strategy
        self.info = convert.handshake_response(name, version, author)
        self.label = label or f"{name} (in-process)"
        self.confinement = "in-process strategy"
        self.times_itself = True
        self.death = None

    def _decide(self, request: epb.DecisionRequest) -> tuple[epb.DecisionResponse, float]:
        observation, legal = convert.decision_from_pb(request)
        start = time.perf_counter()
        move = self.strategy(observation, legal)
        return convert.decision_response(move), time.perf_counter() - start

    async def handshake(
        self, request: epb.HandshakeRequest, timeout: float
    ) -> epb.HandshakeResponse:
        return self.info

    async def decide(self, request: epb.DecisionRequest, timeout: float) -> epb.DecisionResponse:
        return (await self.decide_timed(request, timeout))[0]

    async def decide_timed(
        self, request: epb.DecisionRequest, timeout: float
    ) -> tuple[epb.DecisionResponse, float]:
        """Run in a thread of the in-process pool (never queued behind trio's
        default limit of 40 threads) and timed inside it, so that a busy event
        loop is never charged to the strategy."""
        try:
            response, think = await trio.to_thread.run_sync(
                self._decide, request, abandon_on_cancel=True, limiter=_in_process_threads()
            )
        except WireError as e:
            raise BotError(FaultKind.MALFORMED, f"{self.label}: {e}") from None
        except Exception as e:  # the strategy's own code failed: its fault, not the arena's
            raise BotError(
                FaultKind.MALFORMED, f"{self.label}: raised {type(e).__name__}: {e}"
            ) from None
        if response.ByteSize() > MAX_ANSWER_BYTES:
            raise BotError(FaultKind.MALFORMED, f"{self.label}: answer over the size limit")
        return response, think

    async def notify(self, method: str, request: Any, timeout: float) -> None:
        return None
