"""A person at the table: a seat whose decisions come from a browser page.

``HumanSeat`` is a connection like a bot's (arena.transport.seat): the
referee asks it for decisions, tells it what it tells every seat, and holds it
to its clock. What it is told it keeps as the seat's stream, one message after
another, every one of them a message a bot of that seat is sent (the
handshake's reply aside): the match's start, the seat's own view after every
play (the Observation of a DecisionRequest), each decision request as it is,
each deal's end and the match's. A page that opens the stream, at any time
and as often as it likes (a reload, a lost connection), is sent the whole
stream from its start and then each new message, so it is always where the
seat is. A seat holds a few streams at once (tabs, a reload before the old
connection is found dead); one more closes the oldest, so the seat's newest
page is never refused and the streams it holds stay bounded.

A move comes back through ``answer``: checked against the legal moves first,
so that a request the page made wrong is refused with the rules' reason and
never reaches the referee as a fault; the referee then checks it again, as it
checks every bot's answer. Only the seat's secret opens its stream or answers
for it (``People.by_secret``). Everything here runs on the match's trio loop.
"""

from __future__ import annotations

import hmac
import json
import secrets
import unicodedata
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import trio
from google.protobuf import json_format

from arena.errors import ArenaError, ConfigError, IllegalMoveError, WireError
from arena.match.engine import Answer, Decision, Hello, MatchEnded, Notification
from arena.match.settings import EngineSpec, HumanEngine
from arena.rules import Declaring, Game, Observation, OfferedMove, Variant
from arena.rules.declarations import undeclarable_reason
from arena.rules.moves import check_move
from arena.transport.seat import EngineConnection, SeatTraits
from arena.wire import convert
from arena.wire.protocol import PROTOCOL_VERSION
from arena.wire.v1 import scopa_pb2 as pb

MAX_PERSON_CHARS = 40
MAX_MOVE_BYTES = 4096  # a move as the page sends it: two dozen cards at most
MAX_SEAT_STREAMS = 4  # a seat's streams open at once; one more closes the oldest


def _json(message: Any) -> str:
    """A message as the page reads it: protobuf's JSON form, every field
    present, in one deterministic line (the same bytes for the same message)."""
    return json.dumps(
        json_format.MessageToDict(message, always_print_fields_with_no_presence=True),
        separators=(",", ":"),
        sort_keys=True,
    )


def person_name(raw: object) -> str:
    """The name a person gives at the table: 1-40 printable characters."""
    if not isinstance(raw, str):
        raise ValueError("a name is text")
    name = " ".join(raw.split())
    if not 1 <= len(name) <= MAX_PERSON_CHARS:
        raise ValueError(f"a name is 1 to {MAX_PERSON_CHARS} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ValueError("a name holds no control characters")
    return name


@dataclass
class _Question:
    """The decision the seat is being asked, and where its answer goes."""

    ask: int  # counts the seat's decisions from 1: an answer names the one it answers
    decision: Decision
    asked_at: float  # trio.current_time()
    answer: trio.MemorySendChannel[OfferedMove]


class Refused(ArenaError):
    """A request from the page that cannot be taken, and why (``status``: the
    HTTP status it is answered with). Never a fault of the seat."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class HumanSeat(EngineConnection):
    """One person's seat (see the module's docstring)."""

    def __init__(self, seat: int, spec: HumanEngine, secret: str) -> None:
        self.seat = seat
        self.spec = spec
        self.secret = secret
        self.label = f"{spec.name} (seat {seat}, a person)"
        self.confinement = "a person, playing in a browser"
        self.traits = SeatTraits(follows=True, handshake_timeout=spec.join_timeout)
        self.person: str | None = None
        self.messages: list[str] = []  # the stream so far, as Server-Sent Events
        self.over = False  # the match has ended, or the seat was closed
        self._sat = trio.Event()
        self._changed = trio.Event()
        self._question: _Question | None = None
        self._asks = 0
        self.streams: list[object] = []  # the open streams, oldest first
        self._superseded: set[object] = set()  # streams a newer one has closed

    # The stream ---------------------------------------------------------------

    def _push(self, kind: str, data: str, ident: int | None = None) -> None:
        head = f"event: {kind}\n" + (f"id: {ident}\n" if ident is not None else "")
        self.messages.append(f"{head}data: {data}\n\n")
        self._wake()

    def _wake(self) -> None:
        """Every open stream looks again at what changed."""
        self._changed.set()
        self._changed = trio.Event()

    async def stream(self) -> AsyncIterator[str]:
        """The seat's stream from its start, then each new message, until the
        match is over; and, while a decision waits, how long it has left.
        Opening it when ``MAX_SEAT_STREAMS`` are open ends the oldest, which
        says so (``superseded``) rather than leave the newest page waiting."""
        me = object()
        self.streams.append(me)
        if len(self.streams) > MAX_SEAT_STREAMS:
            self._superseded.add(self.streams.pop(0))
            self._wake()
        try:
            yield (
                "event: seat\ndata: "
                + json.dumps({"seat": self.seat, "name": self.spec.name, "person": self.person})
                + "\n\n"
            )
            sent = 0
            while True:
                changed = self._changed
                if me in self._superseded:
                    yield "event: superseded\ndata: {}\n\n"
                    return
                fresh = self.messages[sent:]
                sent += len(fresh)
                for message in fresh:
                    yield message
                if fresh and self._question is not None:
                    yield self._clock_message(self._question)
                if self.over and sent == len(self.messages):
                    yield "event: end\ndata: {}\n\n"
                    return
                await changed.wait()
        finally:
            if me in self.streams:
                self.streams.remove(me)
            self._superseded.discard(me)

    def _clock_message(self, q: _Question) -> str:
        """What is left of the deadline of the waiting decision, now."""
        left = q.decision.clock.deadline - (trio.current_time() - q.asked_at)
        data = json.dumps({"ask": q.ask, "left_ms": max(0, round(left * 1000))})
        return f"event: clock\ndata: {data}\n\n"

    # The page's requests ---------------------------------------------------------

    def sit(self, raw_name: object) -> str:
        """The person sits down under a name (the first one given stays)."""
        if self.person is None:
            try:
                self.person = person_name(raw_name)
            except ValueError as e:
                raise Refused(400, str(e)) from None
            self._sat.set()
            self._wake()
        return self.person

    def answer(self, ask: object, move_json: object) -> OfferedMove:
        """Take the page's move for decision ``ask``; Refused, saying why, for a
        move that is not the seat's to make or is not legal (no fault)."""
        q = self._question
        if q is None:
            raise Refused(409, "it is not your turn")
        if ask != q.ask:
            raise Refused(409, "that decision is over; the page is behind and reloads")
        try:
            if len(json.dumps(move_json)) > MAX_MOVE_BYTES:
                raise WireError("the move is too long")
            message = json_format.ParseDict(move_json, pb.Move())
            move = convert.move_from_pb(message)
        except (json_format.ParseError, WireError, TypeError, ValueError, AttributeError) as e:
            raise Refused(400, f"not a move: {str(e).splitlines()[0]}") from None
        if move not in q.decision.legal_moves:
            raise Refused(422, illegal_reason(q.decision.observation, move))
        # Answered: a second answer (another tab, a double click) finds no question.
        self._question = None
        q.answer.send_nowait(move)
        return move

    # The connection the referee speaks to -------------------------------------------

    async def handshake(self, timeout: float, variant: Variant | None = None) -> Hello:
        await self._sat.wait()
        assert self.person is not None
        return Hello("human", "", self.person, PROTOCOL_VERSION, games=tuple(Game))

    async def decide(self, decision: Decision, timeout: float) -> Answer:
        self._asks += 1
        send, receive = trio.open_memory_channel[OfferedMove](1)
        question = _Question(self._asks, decision, trio.current_time(), send)
        self._question = question
        self._push("decision", _json(convert.decision_to_pb(decision)), question.ask)
        try:
            move = await receive.receive()
        finally:
            # Answered, or cut off by the referee's clock: the question is closed.
            self._question = None
            self._push("closed", json.dumps({"ask": question.ask}))
        return Answer(move)

    def show(self, observation: Observation) -> None:
        self._push("view", _json(convert.observation_to_pb(observation)))

    async def notify(self, note: Notification, timeout: float) -> None:
        method, message = convert.notification_to_pb(note)
        self._push(method, _json(message))
        if isinstance(note, MatchEnded):
            self.close()

    def close(self) -> None:
        if not self.over:
            self.over = True
            self._wake()


def illegal_reason(observation: Observation, move: OfferedMove) -> str:
    """Why ``move`` is not legal for the seat, in the rules' words."""
    variant = observation.variant
    if isinstance(move, Declaring):
        plain = illegal_reason(observation, move.move)
        if plain.endswith("is not a legal move"):  # the play stands; the declaration does not
            return undeclarable_reason(move, observation.hand, variant)
        return plain
    try:
        check_move(
            observation.hand,
            observation.table,
            move,
            variant.fewest_cards,
            ace_takes_all=variant.ace_takes_all,
            fifteen=variant.fifteen,
            fifteen_ordinary=variant.fifteen_ordinary,
        )
    except IllegalMoveError as e:
        return e.reason
    return f"{move} is not a legal move"


class People:
    """The human seats of one match, each with its secret: the page of a seat
    is opened with its secret alone (``by_secret``), which is long and random
    (256 bits), so it cannot be guessed."""

    def __init__(self, engines: Sequence[EngineSpec | object]) -> None:
        self.seats: dict[int, HumanSeat] = {
            seat: HumanSeat(seat, e, secrets.token_urlsafe(32))
            for seat, e in enumerate(engines)
            if isinstance(e, HumanEngine)
        }

    def connection(self, seat: int, spec: HumanEngine) -> HumanSeat:
        found = self.seats.get(seat)
        if found is None or found.spec != spec:
            raise ConfigError(f"seat {seat} ({spec.name}) is a person's, and has no table")
        return found

    def by_secret(self, secret: str) -> HumanSeat | None:
        found = None
        for seat in self.seats.values():  # every one compared, in constant time
            if hmac.compare_digest(seat.secret.encode(), secret.encode()):
                found = seat
        return found
