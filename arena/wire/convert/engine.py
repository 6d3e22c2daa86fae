"""Messages of engine.proto: what the arena sends a bot (handshake, decisions,
notifications) and reads back from it (hello, answers, by their bytes too)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena import __version__
from arena.errors import WireError
from arena.match.engine import (
    Answer,
    DealEnded,
    Decision,
    Hello,
    MatchStarted,
    Notification,
    SeatClock,
)
from arena.rules import (
    OPTIONS,
    FinishedDeal,
    Game,
    Observation,
    OfferedMove,
    Variant,
)
from arena.wire.convert.game import (
    CACHE_LIMIT,
    GAME_TO_PB,
    OPTION_FROM_PB,
    OPTION_TO_PB,
    PLAY_PB,
    deal_result_to_pb,
    match_result_to_pb,
    memoised,
    milliseconds,
    move_from_pb,
    move_to_pb,
    moves_to_pb,
    observation_from_pb,
    observation_to_pb,
    play_to_pb,
    variant_to_pb,
)
from arena.wire.protocol import MAX_ANSWER_BYTES, PROTOCOL_VERSION
from arena.wire.v1 import engine_pb2 as epb
from arena.wire.v1 import scopa_pb2 as pb

# The protocol version as the enum the messages carry (one source: wire.protocol).
_PROTOCOL_PB = epb.ProtocolVersion.Value(f"PROTOCOL_VERSION_{PROTOCOL_VERSION}")


# The engine protocol: what the arena sends a bot --------------------------------


def handshake_request(variant: Variant | None = None) -> epb.HandshakeRequest:
    """The arena's greeting; with the variant of the match a bot is seated for."""
    request = epb.HandshakeRequest(
        protocol_version=_PROTOCOL_PB,
        arena_version=__version__,
        max_message_bytes=MAX_ANSWER_BYTES,
    )
    if variant is not None:
        request.variant.CopyFrom(variant_to_pb(variant))
    return request


def clock_to_pb(clock: SeatClock) -> epb.Clock:
    """The Clock message a seat is sent: its deadline as the referee holds it to."""
    return epb.Clock(
        move_time_ms=milliseconds(clock.move_time),
        bank_ms=milliseconds(clock.bank),
        increment_ms=milliseconds(clock.increment),
        deadline_ms=milliseconds(clock.deadline),
    )


def decision_to_pb(decision: Decision) -> epb.DecisionRequest:
    """Exactly what the seat is sent: built from its observation alone, so it is
    byte for byte the same whatever the cards it cannot see."""
    request = epb.DecisionRequest(match_id=decision.match_id, decision=decision.number)
    observation_to_pb(decision.observation, request.observation)
    moves_to_pb(decision.legal_moves, request.legal_moves)
    request.clock.CopyFrom(clock_to_pb(decision.clock))
    return request


def decision_from_pb(request: epb.DecisionRequest) -> tuple[Observation, list[OfferedMove]]:
    """A decision request as the bot side reads it: the observation and the legal moves."""
    moves = [move_from_pb(m, f"legal_moves[{i}]") for i, m in enumerate(request.legal_moves)]
    return observation_from_pb(request.observation), moves


def decision_response(
    move: OfferedMove | tuple[int, int], comment: str = ""
) -> epb.DecisionResponse:
    response = epb.DecisionResponse(comment=comment)
    move_to_pb(move, response.move)
    return response


def answer_from_pb(response: epb.DecisionResponse) -> Answer:
    """A bot's answer: its move, or why it holds none the arena can read."""
    if not response.HasField("move"):
        return Answer(None, response.comment, "the answer holds no move")
    try:
        return Answer(move_from_pb(response.move), response.comment)
    except WireError as e:
        return Answer(None, response.comment, str(e))


# Answers by the bytes they came in: most bots answer a given position with
# one of a few short messages (a move, no comment), so a decision's answer is
# mostly a dict lookup instead of a message parsed and converted. The function
# is pure in its bytes; only short ones are kept, so the cache stays small.
_ANSWERS: dict[bytes, Answer] = {}
_ANSWER_KEPT_BYTES = 48


def answer_from_bytes(data: bytes) -> Answer:
    """``answer_from_pb`` of the DecisionResponse these bytes hold: the
    connection's response deserializer (a message that does not parse raises
    DecodeError, which grpcio reports as it would for the message's own)."""
    found = _ANSWERS.get(data)
    if found is None:
        found = answer_from_pb(epb.DecisionResponse.FromString(data))
        if len(data) <= _ANSWER_KEPT_BYTES:
            if len(_ANSWERS) >= CACHE_LIMIT:
                _ANSWERS.clear()
            _ANSWERS[data] = found
    return found


def handshake_response(
    name: str,
    version: str,
    author: str,
    games: Sequence[Game] = (),
    options: Sequence[str] | None = None,
) -> epb.HandshakeResponse:
    """What a bot says of itself (the SDK's answer). ``options``: the Variant
    options it plays, by name; None, every option."""
    if options is None:
        listed = []
    else:
        unknown = [o for o in options if o not in OPTION_TO_PB]
        if unknown:
            raise ValueError(f"unknown option(s) {unknown}; expected some of {list(OPTIONS)}")
        listed = [OPTION_TO_PB[o] for o in options] or [pb.VariantOption.OPTION_NONE]
    return epb.HandshakeResponse(
        name=name,
        version=version,
        author=author,
        protocol_version=_PROTOCOL_PB,
        games=[GAME_TO_PB[g] for g in games],
        options=listed,
    )


def hello_from_pb(msg: epb.HandshakeResponse) -> Hello:
    """A bot's handshake; games and options the arena does not know are left out."""
    games = tuple(g for g in Game if GAME_TO_PB[g] in msg.games)
    options = tuple(OPTION_FROM_PB[o] for o in msg.options if o in OPTION_FROM_PB)
    return Hello(
        msg.name,
        msg.version,
        msg.author,
        msg.protocol_version,
        games,
        not msg.games,
        options,
        not msg.options,
    )


def ack() -> epb.Ack:
    """A bot's answer to a notification (its content is ignored)."""
    return epb.Ack()


def notification_to_pb(note: Notification) -> tuple[str, Any]:
    """The Engine service's method for a notification, and its message."""
    if isinstance(note, MatchStarted):
        return "MatchStarted", epb.MatchStart(
            match_id=note.match_id,
            variant=variant_to_pb(note.variant),
            seat=note.seat,
            seats=[
                epb.SeatInfo(
                    seat=e.seat, engine_name=e.engine_name, engine_version=e.engine_version
                )
                for e in note.engines
            ],
            clock=clock_to_pb(note.clock),
            first_dealer=note.first_dealer,
        )
    if isinstance(note, DealEnded):
        message = epb.DealEnd()
        message.CopyFrom(_deal_end_base(note.deal))
        message.match_id, message.seat = note.match_id, note.seat
        return "DealEnded", message
    return "MatchEnded", epb.MatchEnd(
        match_id=note.match_id, seat=note.seat, result=match_result_to_pb(note.result)
    )


# A deal's end is told to every seat: its message, but for the seat and the match
# id, is built once and copied (by the deal object: one deal, every seat).
_DEAL_ENDS: dict[int, tuple[FinishedDeal, epb.DealEnd]] = {}
_DEAL_ENDS_LIMIT = 256


def _deal_end_base(deal: FinishedDeal) -> epb.DealEnd:
    kept = _DEAL_ENDS.get(id(deal))
    if kept is not None and kept[0] is deal:
        return kept[1]
    if len(_DEAL_ENDS) >= _DEAL_ENDS_LIMIT:
        _DEAL_ENDS.clear()
    base = epb.DealEnd(
        result=deal_result_to_pb(deal),
        plays=[memoised(PLAY_PB, p, play_to_pb) for p in deal.plays],
    )
    _DEAL_ENDS[id(deal)] = (deal, base)
    return base
