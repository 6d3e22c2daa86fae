"""A bot reached over gRPC at an address: its handshake, its decisions on the
Play stream (or on Decide, for a bot that does not serve it), its
notifications, and the fault of every way a call can fail (arena.transport.faults).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import grpc
import trio
from grpc_health.v1 import health_pb2

from arena.errors import BotError, FaultKind
from arena.match.engine import Answer, Decision, Hello, Notification
from arena.rules import Variant
from arena.transport import aio
from arena.transport.aio import PeerGone
from arena.transport.faults import (
    NOT_A_MESSAGE,
    PROBE_TIMEOUT,
    REAP_WAIT,
    classify,
    is_core_error,
    one_line,
    status_fault,
)
from arena.transport.seat import EngineConnection
from arena.wire import convert
from arena.wire.convert.engine_bytes import decision_bytes
from arena.wire.protocol import MAX_ANSWER_BYTES, MAX_REQUEST_BYTES
from arena.wire.v1 import engine_pb2 as epb

ENGINE_SERVICE = "/scopa.v1.Engine/"
PLAY_METHOD = ENGINE_SERVICE + "Play"
DECIDE_METHOD = ENGINE_SERVICE + "Decide"
HANDSHAKE_METHOD = ENGINE_SERVICE + "Handshake"
HEALTH_CHECK = "/grpc.health.v1.Health/Check"
HEALTH_WATCH = "/grpc.health.v1.Health/Watch"


def channel_options() -> list[tuple[str, Any]]:
    return [
        ("grpc.max_receive_message_length", MAX_ANSWER_BYTES),
        ("grpc.max_send_message_length", MAX_REQUEST_BYTES),
        ("grpc.enable_retries", 0),
        ("grpc.enable_http_proxy", 0),  # bots are reached directly, never through a proxy
    ]


class GrpcConnection(EngineConnection):
    """A bot reached over gRPC at an address (host:port or unix:/path).

    One grpc.aio channel carries every call (health, handshake, decisions on
    the Play stream or Decide, notifications). It lives on the asyncio loop
    of arena.transport.aio, opened there on first use; trio waits for each
    call through ``aio.wait``, which cancels the call for the bot when the
    wait is cancelled (the clock ran out) and ends it at once when the bot is
    known to be gone (``mark_dead``). Nothing of grpcio runs in trio's own
    code, so Ctrl-C never lands halfway through grpcio's bookkeeping of a call.
    """

    def __init__(self, address: str, label: str | None = None) -> None:
        self.address = address
        self.label = label or address
        self.confinement = "a bot the arena does not run"
        self._channel: Any = None  # on the loop: opened by the first call
        self._unaries: dict[str, Any] = {}  # its unary methods, by path
        # The Play stream (engine.proto): None until the first decision, False
        # once the bot has said it does not serve it (then Decide serves).
        self.plays: bool | None = None
        self._stream: Any = None
        # Bumped by trio whenever an exchange ends without an answer (a
        # cut-off, a fault): the next exchange then opens a new stream even
        # if the loop has not yet unwound the old one (see _exchange).
        self._epoch = 0
        self._stream_epoch = 0
        self._exchanging = False
        # Pending waits, each ended (.set()) when the bot is known to be gone.
        self.waiters: set[Any] = set()
        self.death: str | None = None
        self._health: Any = None  # the Health/Watch task on the loop
        # Set by the launcher when the bot's process has exited (death says how).
        self.exited: trio.Event | None = None

    def mark_dead(self, reason: str) -> None:
        """Called when the bot is known to be gone: every pending call ends now."""
        if self.death is None:
            self.death = reason
        for event in list(self.waiters):
            event.set()

    # On the loop ----------------------------------------------------------------

    def _open(self) -> Any:
        """The connection's channel, opened on first use (on the loop)."""
        if self._channel is None:
            self._channel = grpc.aio.insecure_channel(self.address, options=channel_options())
        return self._channel

    async def _unary(
        self, method: str, request: Any, timeout: float, wait_for_ready: bool = False
    ) -> Any:
        """One unary call; Decide takes the request's bytes as assembled
        (arena.wire.convert.engine_bytes), the others their message. A
        response that does not parse comes back as None (grpc.aio's way)."""
        call = self._unaries.get(method)
        if call is None:
            serialize, deserialize = UNARIES[method]
            call = self._open().unary_unary(
                method, request_serializer=serialize, response_deserializer=deserialize
            )
            self._unaries[method] = call
        return await call(request, timeout=timeout, wait_for_ready=wait_for_ready)

    async def _watch(self, token: trio.lowlevel.TrioToken) -> None:
        """Hold one Health/Watch stream: it reports a dead bot within
        milliseconds. Bots without the health service answer UNIMPLEMENTED,
        which is fine; a stream cut by the channel's close is CANCELLED."""
        watch = self._open().unary_stream(
            HEALTH_WATCH,
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        call = watch(health_pb2.HealthCheckRequest(service=""))
        try:
            async for _ in call:
                pass
        except grpc.RpcError:
            pass
        if await call.code() == grpc.StatusCode.UNAVAILABLE:
            # Said as a call's own lost connection is (``_settle``): with its status's words.
            details = one_line(await call.details() or "")
            lost = "connection lost" + (f" ({details})" if details else "")
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(self.mark_dead, lost)

    async def _close(self) -> None:
        channel, self._channel, self._stream, self._unaries = self._channel, None, None, {}
        if channel is not None:
            await channel.close()

    # From trio -------------------------------------------------------------------

    async def _check(self, timeout: float, wait_for_ready: bool = False) -> Any:
        """A standard health check's answer (raises what the call raises)."""
        check = self._unary(HEALTH_CHECK, health_pb2.HealthCheckRequest(), timeout, wait_for_ready)
        return await aio.wait(check, self.waiters)

    async def wait_ready(self, timeout: float) -> None:
        """Wait until the channel connects (a health check sent as soon as it
        is ready: any answer will do, the service is optional); STALL if it
        does not within ``timeout``. Not grpcio's channel_ready_future: its
        polling thread prints a traceback when the channel is closed under it
        (a stop while a bot is launched; grpc/grpc#18995)."""
        stalled = BotError(FaultKind.STALL, f"no connection to {self.address} within {timeout:g}s")
        try:
            with trio.fail_after(timeout):
                await self._check(timeout, wait_for_ready=True)
        except trio.TooSlowError:
            raise stalled from None
        except grpc.RpcError as e:
            if e.code() is grpc.StatusCode.DEADLINE_EXCEEDED:
                raise stalled from None
        except PeerGone:
            raise BotError(FaultKind.CRASH, self.death or "connection lost") from None

    def watch_health(self) -> None:
        """Keep one Health/Watch stream open (``_watch``), for as long as the
        connection is."""
        self._health = aio.submit(self._watch(trio.lowlevel.current_trio_token()))

    async def health_status(self, timeout: float) -> str | None:
        """The bot's answer to a standard health check ("SERVING", ...), or None
        when it does not serve the health service (it is optional)."""
        try:
            with trio.fail_after(timeout):
                answer = await self._check(timeout)
        except (grpc.RpcError, trio.TooSlowError, PeerGone):
            return None
        if answer is None:
            return None
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status))

    async def _crashed(self, fallback: str) -> BotError:
        """The CRASH fault, with the process's exit status and last words when
        it is a launched bot (given a moment to be reaped)."""
        if self.exited is not None:
            with trio.move_on_after(REAP_WAIT):
                await self.exited.wait()
        return BotError(FaultKind.CRASH, self.death or fallback)

    async def _reachable(self) -> bool:
        """Whether the bot still answers a call on this channel: any answer
        counts, an error status included (the health service is optional)."""
        try:
            with trio.fail_after(PROBE_TIMEOUT):
                await self._check(PROBE_TIMEOUT)
        except grpc.RpcError as e:
            return e.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
        except (PeerGone, trio.TooSlowError):
            return False
        return self.death is None

    async def _failed(
        self, error: grpc.RpcError | None, elapsed: float, timeout: float
    ) -> BotError:
        """The fault of a call that ended without an answer (``error`` None: the
        bot was known to be gone first). A lost connection or an exited process
        is CRASH; an error status from a bot that still answers is MALFORMED.
        Telling them apart may take a probe call and a moment for the process to
        be reaped: that is done shielded from the caller's clock (and bounded by
        PROBE_TIMEOUT + REAP_WAIT), so that the kind never depends on how much
        of the move time was left."""
        with trio.CancelScope(shield=True):
            fault = await self._settle(error, elapsed, timeout)
        return fault

    async def _settle(
        self, error: grpc.RpcError | None, elapsed: float, timeout: float
    ) -> BotError:
        if error is None or self.death is not None:
            return await self._crashed("connection lost")
        known = classify(error, elapsed, timeout)
        if known is not None:
            return known
        details = one_line(error.details() or "")
        if await self._reachable():
            return status_fault(error.code(), details)
        return await self._crashed("connection lost" + (f" ({details})" if details else ""))

    async def _call(self, method: str, request: Any, timeout: float) -> Any:
        """The answer of one unary call, or the fault of one that ended
        without it (``_failed``); an answer that does not parse is MALFORMED."""
        if self.death is not None:
            raise await self._failed(None, 0.0, timeout)
        started = trio.current_time()
        try:
            answer = await aio.wait(self._unary(method, request, timeout), self.waiters)
        except PeerGone:
            raise await self._failed(None, 0.0, timeout) from None
        except grpc.RpcError as e:
            raise await self._failed(e, trio.current_time() - started, timeout) from None
        if answer is None:
            raise BotError(FaultKind.MALFORMED, NOT_A_MESSAGE)
        return answer

    async def handshake(self, timeout: float, variant: Variant | None = None) -> Hello:
        answer = await self._call(HANDSHAKE_METHOD, convert.handshake_request(variant), timeout)
        return convert.hello_from_pb(answer)

    async def decide(self, decision: Decision, timeout: float) -> Answer:
        return (await self.decide_timed(decision, timeout))[0]

    async def decide_timed(self, decision: Decision, timeout: float) -> tuple[Answer, float | None]:
        request = decision_bytes(decision)
        # One exchange at a time on the stream; a decision that finds it taken
        # (a connection shared by concurrent callers) is a Decide call.
        if self.plays is not False and not self._exchanging:
            exchanged = await self._play(request, timeout)
            if exchanged is not None:
                return exchanged  # type: ignore[no-any-return]
        return await self._call(DECIDE_METHOD, request, timeout), None

    async def _play(self, request: bytes, timeout: float) -> Any:
        """The answer to ``request`` on the Play stream and the seconds the
        asyncio thread saw between writing the request and reading the answer
        (the bot's time, without the referee's own queueing under load), or
        None when Decide must serve this decision.

        Until the bot has answered once on Play, any way the stream fails
        (UNIMPLEMENTED, but also whatever status a server library gives a
        stream method it was not given, or an end without an answer) means
        the bot does not serve Play: this decision and every later one go to
        Decide, within the same clock, and Decide's own answer or fault is the
        one recorded. Only the clock running out and a bot known to be gone
        are final. Once it has answered on Play, a failure of the stream is
        the bot's fault, as the same status on Decide would be; a stream it
        closed between decisions (the request never left) sends that one
        decision to Decide, and the next opens a new stream."""
        if self.death is not None:
            raise await self._failed(None, 0.0, timeout)
        started = trio.current_time()
        self._exchanging = True
        answered = False
        try:
            # The clock is the referee's; this is the backstop Decide's gRPC
            # deadline is, for callers without a scope of their own. The
            # referee's scope always ends first, so it opens none: a cancel
            # scope a decision is a measurable cost under load.
            backstop = started + timeout
            with (
                contextlib.nullcontext()
                if trio.current_effective_deadline() <= backstop
                else trio.CancelScope(deadline=backstop)
            ):
                answer = await aio.wait(self._exchange(request, self._epoch), self.waiters)
                answered = True
                self.plays = True
                return answer
            raise BotError(FaultKind.TIMEOUT, f"no answer within {timeout:g}s")
        except PeerGone:
            raise await self._failed(None, 0.0, timeout) from None
        except (NotSent, PlayEnded, NotAMessage, grpc.RpcError) as e:
            if self.plays is None or isinstance(e, NotSent):
                self.plays = self.plays or False
                return None
            if isinstance(e, PlayEnded):
                raise BotError(
                    FaultKind.MALFORMED, "ended its Play stream without an answer"
                ) from None
            if isinstance(e, NotAMessage):  # as the same bytes on Decide are
                raise BotError(FaultKind.MALFORMED, NOT_A_MESSAGE) from None
            raise await self._failed(e, trio.current_time() - started, timeout) from None
        finally:
            if not answered:
                self._epoch += 1
            self._exchanging = False

    async def _exchange(self, request: bytes, epoch: int) -> Any:
        """On the asyncio loop (arena.transport.aio): write one request on the
        connection's Play stream, opened if need be, and read its answer. A
        stream that fails or is cancelled (the clock) is cancelled for the bot
        and forgotten: the next decision opens a new one.

        ``epoch`` is the trio side's count of exchanges that ended without an
        answer. A cut-off is unwound here some loop iterations after trio has
        moved on, so the next exchange can arrive while the cut stream is
        still set: the epoch tells it that stream is spent."""
        if self._stream is not None and self._stream_epoch != epoch:
            self._stream.cancel()
            self._stream = None
        if self._stream is None:
            self._stream = self._open().stream_stream(
                PLAY_METHOD,
                request_serializer=None,
                response_deserializer=convert.answer_from_bytes,
            )()
            self._stream_epoch = epoch
        stream = self._stream
        sent = time.perf_counter()
        try:
            # A stream that had ended before the request went out: its status,
            # when it is the bot's (UNIMPLEMENTED...), says why; if it ended
            # OK, or the write lost the race with its end (grpc.aio's _write
            # then says only "Internal error from Core"), the request was not
            # sent, which is no one's fault.
            try:
                await stream.write(request)
            except asyncio.InvalidStateError:
                if await stream.code() != grpc.StatusCode.OK:
                    await stream.read()  # raises the call's own status
                raise NotSent() from None
            except grpc.RpcError as e:
                if is_core_error(e):
                    raise NotSent() from None
                raise
            answer = await stream.read()
            elapsed = time.perf_counter() - sent
        except BaseException:
            if self._stream is stream:
                self._stream = None
            stream.cancel()
            raise
        if answer is grpc.aio.EOF or answer is None:
            # None: grpc.aio's read gives it for an answer that does not parse
            # (logging "Exception deserializing message!"); the stream is spent.
            if self._stream is stream:
                self._stream = None
            stream.cancel()
            raise PlayEnded() if answer is grpc.aio.EOF else NotAMessage()
        return answer, elapsed

    async def notify(self, note: Notification, timeout: float) -> None:
        if self.death is not None:
            return
        method, request = convert.notification_to_pb(note)
        with trio.move_on_after(timeout), contextlib.suppress(grpc.RpcError, PeerGone):
            await aio.wait(self._unary(ENGINE_SERVICE + method, request, timeout), self.waiters)

    def close(self) -> None:
        if self._health is not None:
            self._health.cancel()
        aio.fire(self._close())


class PlayEnded(Exception):
    """The bot ended its Play stream (status OK) while a request waited."""


class NotAMessage(Exception):
    """An answer on the Play stream that does not parse as a DecisionResponse."""


class NotSent(Exception):
    """The Play stream had ended before a request could be written on it."""


def _serialize(message: Any) -> bytes:
    return message.SerializeToString()  # type: ignore[no-any-return]


# Each unary method: how its request is serialized and its answer read. Decide
# sends bytes already assembled; a notification's Ack is not read.
UNARIES: dict[str, tuple[Any, Any]] = {
    DECIDE_METHOD: (None, convert.answer_from_bytes),
    HANDSHAKE_METHOD: (_serialize, epb.HandshakeResponse.FromString),
    HEALTH_CHECK: (_serialize, health_pb2.HealthCheckResponse.FromString),
    **{
        ENGINE_SERVICE + name: (_serialize, None)
        for name in ("MatchStarted", "DealEnded", "MatchEnded")
    },
}
