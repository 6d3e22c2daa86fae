"""The one place where plain values become protobuf messages and back.

Everything above this module (referee, logs, tournaments, server) passes plain
Python values; everything on the wire or in a log is a message from
arena.wire.v1, built or read here (the competition server's own messages in
the sibling module arena.wire.service). ``*_to_pb`` and the message builders
never fail on valid values; ``*_from_pb`` checks what it reads and raises
WireError (a ValueError) naming the field at fault, because its input may come
from a bot or a file we do not trust.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from arena import __version__
from arena.errors import ConfigError, FaultKind, RulesError, WireError
from arena.match.engine import (
    Answer,
    DealEnded,
    Decision,
    Hello,
    MatchStarted,
    Notification,
    SeatClock,
)
from arena.match.outcome import (
    DealBegan,
    DealScored,
    DealStart,
    DecisionRecord,
    EngineInfo,
    Fault,
    LaunchKind,
    MatchEvent,
    MatchHeader,
    MatchResult,
    ProbeRecord,
    SeatLaunch,
    Termination,
)
from arena.match.settings import (
    ClockSettings,
    FaultPolicy,
    MatchSettings,
    OnFault,
    SandboxMode,
    SandboxSettings,
    Substitute,
)
from arena.rules import (
    OPTIONS,
    DealScore,
    Declaring,
    FinishedDeal,
    Game,
    Move,
    Observation,
    OfferedMove,
    Play,
    Public,
    SideTally,
    Sight,
    Variant,
    View,
    card,
    cards_of,
)
from arena.rules.cards import BIT, RANK, SUIT
from arena.rules.declarations import CIRULLA, DECINO, Declared
from arena.timestamps import utc_now
from arena.wire.protocol import MAX_ANSWER_BYTES, PROTOCOL_VERSION
from arena.wire.v1 import engine_pb2 as epb
from arena.wire.v1 import log_pb2
from arena.wire.v1 import scopa_pb2 as pb
from arena.wire.v1 import server_pb2 as spb

_GAME_TO_PB = {
    Game.SCOPA: pb.SCOPA,
    Game.SCOPA_A_QUATTRO: pb.SCOPA_A_QUATTRO,
    Game.SCOPONE: pb.SCOPONE,
    Game.SCOPONE_SCIENTIFICO: pb.SCOPONE_SCIENTIFICO,
    Game.SCOPA_A_SEI: pb.SCOPA_A_SEI,
    Game.SCOPA_A_TRE: pb.SCOPA_A_TRE,
}
_GAME_FROM_PB = {v: k for k, v in _GAME_TO_PB.items()}
# Variant options by field name (arena.rules.OPTIONS) and their enum values.
_OPTION_TO_PB = {name: pb.VariantOption.Value(f"OPTION_{name.upper()}") for name in OPTIONS}
_OPTION_FROM_PB = {v: k for k, v in _OPTION_TO_PB.items()}
_DECLARATION_TO_PB = {
    CIRULLA: pb.DECLARATION_CIRULLA,
    DECINO: pb.DECLARATION_DECINO,
}
_DECLARATION_FROM_PB = {v: k for k, v in _DECLARATION_TO_PB.items()}
_FAULT_TO_PB = {
    FaultKind.TIMEOUT: pb.TIMEOUT,
    FaultKind.ILLEGAL: pb.ILLEGAL,
    FaultKind.MALFORMED: pb.MALFORMED,
    FaultKind.CRASH: pb.CRASH,
    FaultKind.STALL: pb.STALL,
}
_FAULT_FROM_PB = {v: k for k, v in _FAULT_TO_PB.items()}
_TERMINATION_TO_PB = {
    Termination.COMPLETED: pb.COMPLETED,
    Termination.FORFEIT: pb.FORFEIT,
    Termination.NO_CONTEST: pb.NO_CONTEST,
    Termination.VOID: pb.VOID,
    Termination.ABORTED: pb.ABORTED,
}
_TERMINATION_FROM_PB = {v: k for k, v in _TERMINATION_TO_PB.items()}
_ON_FAULT_TO_PB = {
    OnFault.LOSE: log_pb2.ON_FAULT_LOSE,
    OnFault.SUBSTITUTE: log_pb2.ON_FAULT_SUBSTITUTE,
}
_ON_FAULT_FROM_PB = {v: k for k, v in _ON_FAULT_TO_PB.items()}
_SANDBOX_MODE_TO_PB = {
    SandboxMode.AUTO: log_pb2.SANDBOX_MODE_AUTO,
    SandboxMode.ON: log_pb2.SANDBOX_MODE_ON,
    SandboxMode.OFF: log_pb2.SANDBOX_MODE_OFF,
}
_SANDBOX_MODE_FROM_PB = {v: k for k, v in _SANDBOX_MODE_TO_PB.items()}
_LAUNCH_TO_PB = {
    LaunchKind.COMMAND: log_pb2.LAUNCH_KIND_COMMAND,
    LaunchKind.ADDRESS: log_pb2.LAUNCH_KIND_ADDRESS,
    LaunchKind.BUILTIN: log_pb2.LAUNCH_KIND_BUILTIN,
    LaunchKind.CONNECTION: log_pb2.LAUNCH_KIND_CONNECTION,
    LaunchKind.HUMAN: log_pb2.LAUNCH_KIND_HUMAN,
}
_LAUNCH_FROM_PB = {v: k for k, v in _LAUNCH_TO_PB.items()}

# The protocol version as the enum the messages carry (one source: wire.protocol).
_PROTOCOL_PB = epb.ProtocolVersion.Value(f"PROTOCOL_VERSION_{PROTOCOL_VERSION}")

# Cards are immutable in meaning, so one prebuilt message per card is copied
# into place (CopyFrom) instead of being built field by field each time.
_SUITS_PB = (pb.DENARI, pb.COPPE, pb.SPADE, pb.BASTONI)
_CARD_PB = tuple(pb.Card(suit=_SUITS_PB[SUIT[c]], rank=RANK[c]) for c in range(40))


# Cards -----------------------------------------------------------------------


def card_to_pb(card: int) -> pb.Card:
    msg = pb.Card()
    msg.CopyFrom(_CARD_PB[card])
    return msg


def card_from_pb(msg: pb.Card, what: str = "card") -> int:
    if not 1 <= msg.suit <= 4:
        raise WireError(f"{what}: suit {msg.suit} is not a suit (1..4)")
    if not 1 <= msg.rank <= 10:
        raise WireError(f"{what}: rank {msg.rank} is not a rank (1..10)")
    return card(msg.rank, msg.suit - 1)


def set_cards(field: object, cards: int | Iterable[int]) -> None:
    """Fill a repeated Card field from a mask (sorted) or a sequence (in order)."""
    seq = cards_of(cards) if isinstance(cards, int) else cards
    add = field.add  # type: ignore[attr-defined]
    for c in seq:
        add().CopyFrom(_CARD_PB[c])


def mask_from_pb(msgs: Iterable[pb.Card], what: str = "cards") -> int:
    """A set of cards from a repeated Card field; a card given twice is an error."""
    mask = 0
    for i, m in enumerate(msgs):
        c = card_from_pb(m, f"{what}[{i}]")
        if mask & BIT[c]:
            raise WireError(f"{what}: card {m.rank} of suit {m.suit} appears twice")
        mask |= BIT[c]
    return mask


def cards_from_pb(msgs: Iterable[pb.Card], what: str = "cards") -> list[int]:
    """An ordered list of cards (e.g. a deck)."""
    return [card_from_pb(m, f"{what}[{i}]") for i, m in enumerate(msgs)]


# Variant ---------------------------------------------------------------------


def variant_to_pb_game(game: Game) -> int:
    return _GAME_TO_PB[game]


def variant_to_pb(v: Variant) -> pb.Variant:
    return pb.Variant(
        game=_GAME_TO_PB[v.game],
        target=v.target or 0,
        deal_limit=v.deal_limit or 0,
        fewest_cards=v.fewest_cards,
        leftovers_to_last_player=v.leftovers_to_last_player,
        re_bello=v.re_bello,
        napola=v.napola,
        last_sweep=v.last_sweep,
        ace_takes_all=v.ace_takes_all,
        ace_sweep_scores=v.ace_sweep_scores,
        napoleone=v.napoleone,
        fifteen=v.fifteen,
        fifteen_ordinary=v.fifteen_ordinary,
        opening_fifteen=v.opening_fifteen,
        aces_void=v.aces_void,
        piccola=v.piccola,
        grande=v.grande,
        declarations=v.declarations,
        matta=v.matta,
    )


def variant_from_pb(msg: pb.Variant) -> Variant:
    game = _GAME_FROM_PB.get(msg.game)
    if game is None:
        raise WireError(f"variant: unknown game {msg.game}")
    try:
        return Variant(
            game=game,
            target=msg.target or None,
            deal_limit=msg.deal_limit or None,
            fewest_cards=msg.fewest_cards,
            leftovers_to_last_player=msg.leftovers_to_last_player,
            re_bello=msg.re_bello,
            napola=msg.napola,
            last_sweep=msg.last_sweep,
            ace_takes_all=msg.ace_takes_all,
            ace_sweep_scores=msg.ace_sweep_scores,
            napoleone=msg.napoleone,
            fifteen=msg.fifteen,
            fifteen_ordinary=msg.fifteen_ordinary,
            opening_fifteen=msg.opening_fifteen,
            aces_void=msg.aces_void,
            piccola=msg.piccola,
            grande=msg.grande,
            declarations=msg.declarations,
            matta=msg.matta,
        )
    except RulesError as e:
        raise WireError(f"variant: {e}") from e


# Moves and plays -------------------------------------------------------------


def move_to_pb(move: tuple[int, int] | Declaring, msg: pb.Move | None = None) -> pb.Move:
    msg = msg if msg is not None else pb.Move()
    msg.card.CopyFrom(_CARD_PB[move[0]])
    set_cards(msg.captures, move[1])
    if isinstance(move, Declaring):
        msg.declaration = _DECLARATION_TO_PB[move.declaration]
    return msg


def move_from_pb(msg: pb.Move, what: str = "move") -> OfferedMove:
    """A move, declaring when the message says so (Variant.declarations)."""
    move = plain_move_from_pb(msg, what)
    if msg.declaration == pb.DECLARATION_NONE:
        return move
    kind = _DECLARATION_FROM_PB.get(msg.declaration)
    if kind is None:
        raise WireError(f"{what}: unknown declaration {msg.declaration}")
    return Declaring(move.card, move.captures, kind)


def plain_move_from_pb(msg: pb.Move, what: str = "move") -> Move:
    """A move's card and captures (any declaration left aside)."""
    if not msg.HasField("card"):
        raise WireError(f"{what}: no card")
    card = card_from_pb(msg.card, f"{what}.card")
    captures = mask_from_pb(msg.captures, f"{what}.captures")
    if captures & BIT[card]:
        raise WireError(f"{what}: the played card is also among the captures")
    return Move(card, captures)


def declared_to_pb(d: Declared) -> pb.Declared:
    msg = pb.Declared(seat=d.seat, kind=_DECLARATION_TO_PB[d.kind], play=d.play)
    set_cards(msg.hand, d.hand)
    return msg


def declared_from_pb(msg: pb.Declared, what: str = "declaration") -> Declared:
    kind = _DECLARATION_FROM_PB.get(msg.kind)
    if kind is None:
        raise WireError(f"{what}: unknown declaration {msg.kind}")
    hand = mask_from_pb(msg.hand, f"{what}.hand")
    if hand.bit_count() != 3:
        raise WireError(f"{what}: {hand.bit_count()} cards shown, not 3")
    return Declared(msg.seat, kind, hand, msg.play)


def play_to_pb(play: Play, msg: pb.Play | None = None) -> pb.Play:
    msg = msg if msg is not None else pb.Play()
    msg.seat = play.seat
    move_to_pb((play.card, play.captures), msg.move)
    msg.scopa = play.scopa
    return msg


def play_from_pb(msg: pb.Play, what: str = "play") -> Play:
    move = plain_move_from_pb(msg.move, f"{what}.move")
    return Play(msg.seat, move.card, move.captures, msg.scopa)


# Scores and deals ------------------------------------------------------------


def side_scores_to_pb(score: DealScore) -> list[pb.SideScore]:
    out = []
    for side, t in enumerate(score.tallies):
        b = score.breakdown(side)
        msg = pb.SideScore(
            scope=t.scope,
            cards=t.cards,
            denari=t.denari,
            settebello=t.settebello,
            carte_point=b["carte"],
            denari_point=b["denari"],
            settebello_point=b["settebello"],
            primiera_point=b["primiera"],
            total=sum(b.values()),
            re_bello=t.re_bello,
            re_bello_point=b["re_bello"],
            napola_point=b["napola"],
            grande_point=b["grande"],
            declared_point=b["declared"],
        )
        if t.primiera is not None:
            msg.primiera = t.primiera
        out.append(msg)
    return out


_NAPOLA_POINTS = frozenset((0, *range(3, 11)))
_GRANDE_POINTS = frozenset((0, 5, 6, 7))


def napola_points(msg: pb.SideScore) -> int:
    """A side's napola points, which are 0 or 3..10 (a napola is at least ace, 2 and 3)."""
    if msg.napola_point not in _NAPOLA_POINTS:
        raise WireError(f"deal result: napola of {msg.napola_point} points (0 or 3 to 10)")
    return msg.napola_point


def grande_points(msg: pb.SideScore) -> int:
    """A side's grande points: 0, 5, 6 or 7."""
    if msg.grande_point not in _GRANDE_POINTS:
        raise WireError(f"deal result: grande of {msg.grande_point} points (0, 5, 6 or 7)")
    return msg.grande_point


def side_scores_from_pb(msgs: Sequence[pb.SideScore]) -> DealScore:
    if len(msgs) not in (2, 3):
        raise WireError(f"deal result: {len(msgs)} sides, expected 2 (or 3 in scopa3)")

    def awarded(point: str) -> int | None:
        winners = [s for s, m in enumerate(msgs) if getattr(m, point)]
        if len(winners) > 1 or any(getattr(m, point) > 1 for m in msgs):
            raise WireError(f"deal result: {point} awarded more than once")
        return winners[0] if winners else None

    return DealScore(
        tallies=tuple(
            SideTally(
                scope=m.scope,
                cards=m.cards,
                denari=m.denari,
                settebello=m.settebello,
                primiera=m.primiera if m.HasField("primiera") else None,
                re_bello=m.re_bello,
                napola=napola_points(m),
                grande=grande_points(m),
                declared=m.declared_point,
            )
            for m in msgs
        ),
        carte=awarded("carte_point"),
        denari=awarded("denari_point"),
        settebello=awarded("settebello_point"),
        primiera=awarded("primiera_point"),
        re_bello=awarded("re_bello_point"),
    )


def deal_result_to_pb(deal: FinishedDeal | DealScored) -> pb.DealResult:
    msg = pb.DealResult(
        deal_number=deal.number,
        dealer=deal.dealer,
        sides=side_scores_to_pb(deal.score),
        match_scores=deal.totals,
    )
    if deal.leftover is not None:
        msg.leftover_side = deal.leftover[0]
        set_cards(msg.leftover, deal.leftover[1])
    return msg


def deal_result_from_pb(msg: pb.DealResult) -> DealScored:
    """A deal's scoring; WireError if a side's total is not the sum of its points."""
    leftover = None
    if msg.HasField("leftover_side"):
        leftover = (msg.leftover_side, mask_from_pb(msg.leftover, "leftover"))
    score = side_scores_from_pb(msg.sides)
    for side, (m, points) in enumerate(zip(msg.sides, score.points, strict=True)):
        if m.total != points:
            raise WireError(
                f"deal result: side {side} totals {m.total}, its points add up to {points}"
            )
    return DealScored(msg.deal_number, msg.dealer, score, tuple(msg.match_scores), leftover)


def finished_deal_to_pb(
    deal: FinishedDeal,
) -> tuple[log_pb2.DealStarted, list[pb.Play], pb.DealResult]:
    """A finished deal as the three things a log stores: the DealStarted record
    (deck and void decks), the plays, and the DealResult."""
    started = deal_started_record(deal.number, deal.dealer, deal.deck, deal.void_decks)
    return started.deal_started, [play_to_pb(p) for p in deal.plays], deal_result_to_pb(deal)


def finished_deal_from_pb(
    started: log_pb2.DealStarted, plays: Sequence[pb.Play], result: pb.DealResult
) -> FinishedDeal:
    leftover = None
    if result.HasField("leftover_side"):
        leftover = (result.leftover_side, mask_from_pb(result.leftover, "leftover"))
    return FinishedDeal(
        number=started.deal_number,
        dealer=started.dealer,
        deck=tuple(cards_from_pb(started.deck, "deck")),
        void_decks=tuple(tuple(cards_from_pb(d.cards, "void deck")) for d in started.void_decks),
        plays=tuple(play_from_pb(p, f"plays[{i}]") for i, p in enumerate(plays)),
        leftover=leftover,
        score=side_scores_from_pb(result.sides),
        totals=tuple(result.match_scores),
    )


# Observation -----------------------------------------------------------------


def observation_to_pb(obs: Observation, msg: pb.Observation | None = None) -> pb.Observation:
    """The Observation message; filled into ``msg`` (e.g. a request's field) when given."""
    msg = msg if msg is not None else pb.Observation()
    msg.seat = obs.seat
    _public_to_pb(obs, msg)
    set_cards(msg.hand, obs.hand)
    return msg


def public_view_to_pb(view: View, msg: pb.PublicView | None = None) -> pb.PublicView:
    """A view's public part (never a hand, whoever the view was for)."""
    msg = msg if msg is not None else pb.PublicView()
    _public_to_pb(view, msg)
    return msg


def _public_to_pb(v: Public, msg: Any) -> None:
    """The fields Observation and PublicView share (same names, same numbers)."""
    msg.deal_number = v.deal_number
    msg.dealer = v.dealer
    msg.hand_sizes.extend(v.hand_sizes)
    msg.stock_count = v.stock_count
    msg.captured_counts.extend(v.captured_counts)
    msg.scope.extend(v.scope)
    msg.match_scores.extend(v.scores)
    msg.variant.CopyFrom(memoised(_VARIANT_PB, v.variant, variant_to_pb))
    if v.to_move is not None:
        msg.to_move = v.to_move
    set_cards(msg.table, v.table)
    if v.plays:
        msg.MergeFrom(_plays_pb(type(msg), v.plays))
    add_set = msg.captured_cards.add
    for pile in v.captured_cards:  # a side's pile changes only when it captures
        add_set().CopyFrom(memoised(_CARD_SET_PB, pile, card_set_to_pb))
    if v.last_capture_seat is not None:
        msg.last_capture_seat = v.last_capture_seat
    set_cards(msg.opening_table, v.opening_table)
    for d in v.declarations:
        msg.declarations.add().CopyFrom(declared_to_pb(d))


def card_set_to_pb(cards: int) -> pb.CardSet:
    msg = pb.CardSet()
    set_cards(msg.cards, cards)
    return msg


def _plays_pb(kind: type[Any], plays: tuple[Play, ...]) -> Any:
    """A message of type ``kind`` holding only the plays of a deal so far,
    converted once: a deal's plays only grow, so the message of all the plays
    but the last is copied and extended by one (both seats' observations and
    the spectator events of a deal share them). Merged in C, not field by field."""
    key = (kind, plays)
    found = _PLAYS_PB.get(key)
    if found is None:
        found = kind()
        before = _PLAYS_PB.get((kind, plays[:-1])) if len(plays) > 1 else None
        if before is not None:
            found.CopyFrom(before)
            found.plays.add().CopyFrom(memoised(_PLAY_PB, plays[-1], play_to_pb))
        else:
            add = found.plays.add
            for p in plays:
                add().CopyFrom(memoised(_PLAY_PB, p, play_to_pb))
        if len(_PLAYS_PB) >= _CACHE_LIMIT:
            _PLAYS_PB.clear()
        _PLAYS_PB[key] = found
    return found


def moves_to_pb(moves: Iterable[OfferedMove], field: Any) -> None:
    """Fill a repeated Move field (legal moves), through the same memo."""
    add = field.add
    for m in moves:
        add().CopyFrom(memoised(_MOVE_PB, m, move_to_pb))


# An observation repeats every play of the deal so far, and the referee sends
# one per decision: converted plays, moves, variants and captured card sets
# are memoised (values are immutable; the cached messages are only copied from).
_PLAY_PB: dict[Any, Any] = {}
_PLAYS_PB: dict[tuple[type[Any], tuple[Play, ...]], Any] = {}
_MOVE_PB: dict[Any, Any] = {}
_VARIANT_PB: dict[Any, Any] = {}
_CARD_SET_PB: dict[Any, Any] = {}
_CACHE_LIMIT = 1 << 14


def memoised(cache: dict[Any, Any], key: Any, build: Callable[[Any], Any]) -> Any:
    found = cache.get(key)
    if found is None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        found = cache[key] = build(key)
    return found


def observation_from_pb(msg: pb.Observation) -> Observation:
    return Observation(seat=msg.seat, hand=mask_from_pb(msg.hand, "hand"), **_public_from_pb(msg))


def public_view_from_pb(msg: pb.PublicView) -> View:
    """A spectator's view: every hand hidden."""
    public = _public_from_pb(msg)
    hands = (None,) * len(public["hand_sizes"])
    return View(viewer=Sight.PUBLIC, hands=hands, **public)


def _public_from_pb(msg: Any) -> dict[str, Any]:
    return {
        "variant": variant_from_pb(msg.variant),
        "deal_number": msg.deal_number,
        "dealer": msg.dealer,
        "to_move": msg.to_move if msg.HasField("to_move") else None,
        "table": mask_from_pb(msg.table, "table"),
        "hand_sizes": tuple(msg.hand_sizes),
        "stock_count": msg.stock_count,
        "plays": tuple(play_from_pb(p, f"plays[{i}]") for i, p in enumerate(msg.plays)),
        "captured_counts": tuple(msg.captured_counts),
        "scope": tuple(msg.scope),
        "scores": tuple(msg.match_scores),
        "captured_cards": tuple(
            mask_from_pb(side.cards, f"captured_cards[{i}]")
            for i, side in enumerate(msg.captured_cards)
        ),
        "last_capture_seat": msg.last_capture_seat if msg.HasField("last_capture_seat") else None,
        "opening_table": mask_from_pb(msg.opening_table, "opening_table"),
        "declarations": tuple(
            declared_from_pb(d, f"declarations[{i}]") for i, d in enumerate(msg.declarations)
        ),
    }


# Faults and results ----------------------------------------------------------


def fault_to_pb(f: Fault) -> pb.Fault:
    return pb.Fault(
        seat=f.seat,
        kind=_FAULT_TO_PB[f.kind],
        deal_number=f.deal_number,
        decision=f.decision,
        message=f.message,
        at_startup=f.at_startup,
    )


def fault_from_pb(msg: pb.Fault) -> Fault:
    kind = _FAULT_FROM_PB.get(msg.kind)
    if kind is None:
        raise WireError(f"fault: unknown kind {msg.kind}")
    return Fault(msg.seat, kind, msg.deal_number, msg.decision, msg.message, msg.at_startup)


def match_result_to_pb(r: MatchResult) -> pb.MatchResult:
    msg = pb.MatchResult(
        final_scores=r.final_scores,
        termination=_TERMINATION_TO_PB[r.termination],
        reason=r.reason,
        faults=[fault_to_pb(f) for f in r.faults],
        deals_played=r.deals_played,
    )
    if r.winner is not None:
        msg.winner_side = r.winner
    return msg


def match_result_from_pb(msg: pb.MatchResult) -> MatchResult:
    termination = _TERMINATION_FROM_PB.get(msg.termination)
    if termination is None:
        raise WireError(f"match result: unknown termination {msg.termination}")
    return MatchResult(
        final_scores=tuple(msg.final_scores),
        winner=msg.winner_side if msg.HasField("winner_side") else None,
        termination=termination,
        reason=msg.reason,
        faults=tuple(fault_from_pb(f) for f in msg.faults),
        deals_played=msg.deals_played,
    )


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
            if len(_ANSWERS) >= _CACHE_LIMIT:
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
        unknown = [o for o in options if o not in _OPTION_TO_PB]
        if unknown:
            raise ValueError(f"unknown option(s) {unknown}; expected some of {list(OPTIONS)}")
        listed = [_OPTION_TO_PB[o] for o in options] or [pb.VariantOption.OPTION_NONE]
    return epb.HandshakeResponse(
        name=name,
        version=version,
        author=author,
        protocol_version=_PROTOCOL_PB,
        games=[_GAME_TO_PB[g] for g in games],
        options=listed,
    )


def hello_from_pb(msg: epb.HandshakeResponse) -> Hello:
    """A bot's handshake; games and options the arena does not know are left out."""
    games = tuple(g for g in Game if _GAME_TO_PB[g] in msg.games)
    options = tuple(_OPTION_FROM_PB[o] for o in msg.options if o in _OPTION_FROM_PB)
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
        plays=[memoised(_PLAY_PB, p, play_to_pb) for p in deal.plays],
    )
    _DEAL_ENDS[id(deal)] = (deal, base)
    return base


# Match logs --------------------------------------------------------------------


def milliseconds(seconds: float | None) -> int:
    return round((seconds or 0) * 1000)


def log_header(
    settings: MatchSettings,
    engines: Sequence[EngineInfo],
    first_dealer: int,
    format_version: int,
    launches: Sequence[SeatLaunch] = (),
    source_revision: str = "",
) -> log_pb2.LogRecord:
    """The header record. ``launches``: how each seat's engine was reached, in
    seat order (none for a log whose writer was not told)."""
    header = log_pb2.LogHeader(
        format_version=format_version,
        match_id=settings.match_id,
        variant=variant_to_pb(settings.variant),
        engines=[
            log_pb2.EngineRecord(
                seat=e.seat,
                name=e.name,
                engine_name=e.engine_name,
                engine_version=e.engine_version,
                author=e.author,
                confinement=e.confinement,
            )
            for e in engines
        ],
        clock=_clock_settings_to_pb(settings.clock),
        seed=settings.seed & (2**64 - 1),
        first_dealer=first_dealer,
        started_at=utc_now(),
        arena_version=__version__,
        schedule_id=settings.schedule_id,
        fault_policy=log_pb2.FaultPolicy(
            on_fault=_ON_FAULT_TO_PB[settings.policy.on_fault],
            strikes=settings.policy.strikes,
            substitute=settings.policy.substitute,
        ),
        startup_timeout_ms=milliseconds(settings.startup_timeout),
        handshake_timeout_ms=milliseconds(settings.handshake_timeout),
        notify_timeout_ms=milliseconds(settings.notify_timeout),
        sandbox=_sandbox_to_pb(settings.sandbox),
        source_revision=source_revision,
    )
    for record, launch in zip(header.engines, launches, strict=False):
        record.launch.CopyFrom(_launch_to_pb(launch))
    return log_pb2.LogRecord(header=header)


def _clock_settings_to_pb(clock: ClockSettings) -> log_pb2.ClockSettings:
    return log_pb2.ClockSettings(
        move_time_ms=milliseconds(clock.move_time),
        bank_ms=milliseconds(clock.bank),
        increment_ms=milliseconds(clock.increment),
        grace_ms=milliseconds(clock.grace),
    )


def _clock_settings_from_pb(msg: log_pb2.ClockSettings) -> ClockSettings:
    try:
        return ClockSettings(
            move_time=msg.move_time_ms / 1000 or None,
            bank=msg.bank_ms / 1000 or None,
            increment=msg.increment_ms / 1000,
            grace=msg.grace_ms / 1000,
        )
    except ConfigError as e:
        raise WireError(f"clock: {e}") from None


def _sandbox_to_pb(s: SandboxSettings) -> log_pb2.SandboxSettings:
    return log_pb2.SandboxSettings(
        mode=_SANDBOX_MODE_TO_PB[s.mode],
        memory_mib=s.memory_mib,
        processes=s.processes,
        disk_mib=s.disk_mib,
    )


def _sandbox_from_pb(msg: log_pb2.SandboxSettings) -> SandboxSettings:
    mode = _SANDBOX_MODE_FROM_PB.get(msg.mode)
    if mode is None:
        raise WireError(f"unknown sandbox mode {msg.mode}")
    try:
        return SandboxSettings(mode, msg.memory_mib, msg.processes, msg.disk_mib)
    except ConfigError as e:
        raise WireError(str(e)) from None


def _launch_to_pb(launch: SeatLaunch) -> log_pb2.Launch:
    msg = log_pb2.Launch(
        kind=_LAUNCH_TO_PB[launch.kind],
        program=launch.program,
        command_sha256=bytes.fromhex(launch.command_sha256),
        address=launch.address,
        builtin=launch.builtin,
    )
    if launch.sandbox is not None:
        msg.sandbox.CopyFrom(_sandbox_to_pb(launch.sandbox))
    if launch.clock is not None:
        msg.clock.CopyFrom(_clock_settings_to_pb(launch.clock))
    return msg


def _launch_from_pb(msg: log_pb2.Launch, seat: int) -> SeatLaunch:
    kind = _LAUNCH_FROM_PB.get(msg.kind)
    if kind is None:
        raise WireError(f"engine of seat {seat}: unknown launch kind {msg.kind}")
    if kind is LaunchKind.COMMAND and len(msg.command_sha256) != 32:
        raise WireError(f"engine of seat {seat}: a command digest is 32 bytes")
    try:
        sandbox = _sandbox_from_pb(msg.sandbox) if msg.HasField("sandbox") else None
        clock = _clock_settings_from_pb(msg.clock) if msg.HasField("clock") else None
    except WireError as e:
        raise WireError(f"engine of seat {seat}: {e}") from None
    return SeatLaunch(
        kind, msg.program, msg.command_sha256.hex(), msg.address, msg.builtin, sandbox, clock
    )


def deal_started_record(
    number: int, dealer: int, deck: Sequence[int], void_decks: Sequence[Sequence[int]]
) -> log_pb2.LogRecord:
    started = log_pb2.DealStarted(deal_number=number, dealer=dealer)
    set_cards(started.deck, deck)
    for void in void_decks:
        set_cards(started.void_decks.add().cards, void)
    return log_pb2.LogRecord(deal_started=started)


def decision_record(r: DecisionRecord) -> log_pb2.LogRecord:
    decision = log_pb2.Decision(
        deal_number=r.deal_number,
        decision=r.decision,
        seat=r.seat,
        think_time_us=round(r.think_time * 1e6) if math.isfinite(r.think_time) else 0,
        scopa=r.scopa,
        comment=r.comment,
    )
    if r.deadline is not None:
        decision.deadline_ms = milliseconds(r.deadline)
    if r.bank_left is not None:
        decision.bank_left_ms = milliseconds(r.bank_left)
    if r.move is not None:
        move_to_pb(r.move, decision.move)
    if r.fault is not None:
        decision.fault.CopyFrom(fault_to_pb(r.fault))
    for probe in r.probes:
        msg = decision.probes.add(
            match_id=probe.match_id,
            problem=probe.problem,
            think_time_us=round(probe.think_time * 1e6) if math.isfinite(probe.think_time) else 0,
        )
        msg.hands.extend(card_set_to_pb(hand) for hand in probe.hands)
        if probe.move is not None:
            move_to_pb(probe.move, msg.move)
    return log_pb2.LogRecord(decision=decision)


def probe_from_pb(msg: log_pb2.Probe) -> ProbeRecord:
    move = move_from_pb(msg.move, "a probe's move") if msg.HasField("move") else None
    hands = tuple(mask_from_pb(h.cards, "a probe's hand") for h in msg.hands)
    return ProbeRecord(msg.match_id, hands, move, msg.problem, msg.think_time_us / 1e6)


def deal_ended_record(deal: FinishedDeal) -> log_pb2.LogRecord:
    return log_pb2.LogRecord(deal_ended=log_pb2.DealEnded(result=deal_result_to_pb(deal)))


def log_entry_from_pb(
    record: log_pb2.LogRecord,
) -> MatchHeader | DealStart | DecisionRecord | DealScored | MatchResult:
    """One record of a match log as a plain value; WireError if it holds
    something that is not a valid value (the log may have been tampered with)."""
    kind = record.WhichOneof("record")
    if kind == "header":
        return _header_from_pb(record.header)
    if kind == "deal_started":
        started = record.deal_started
        return DealStart(
            started.deal_number,
            started.dealer,
            tuple(cards_from_pb(started.deck, "deck")),
            tuple(tuple(cards_from_pb(d.cards, "void deck")) for d in started.void_decks),
        )
    if kind == "decision":
        d = record.decision
        move = move_from_pb(d.move, "the logged move") if d.HasField("move") else None
        fault = fault_from_pb(d.fault) if d.HasField("fault") else None
        think = d.think_time_us / 1e6
        deadline = d.deadline_ms / 1000 if d.HasField("deadline_ms") else None  # version 1
        bank = d.bank_left_ms / 1000 if d.HasField("bank_left_ms") else None
        return DecisionRecord(
            d.deal_number,
            d.decision,
            d.seat,
            move,
            think,
            fault,
            d.scopa,
            d.comment,
            deadline,
            bank,
            tuple(probe_from_pb(p) for p in d.probes),
        )
    if kind == "deal_ended":
        return deal_result_from_pb(record.deal_ended.result)
    if kind == "match_ended":
        return match_result_from_pb(record.match_ended.result)
    raise WireError("a record of no known kind")


def _header_from_pb(h: log_pb2.LogHeader) -> MatchHeader:
    engines = sorted(h.engines, key=lambda e: e.seat)
    clock = _clock_settings_from_pb(h.clock)
    policy = None
    if h.HasField("fault_policy"):
        on_fault = _ON_FAULT_FROM_PB.get(h.fault_policy.on_fault)
        if on_fault is None:
            raise WireError(f"fault policy: unknown kind {h.fault_policy.on_fault}")
        try:
            substitute = Substitute.parse(h.fault_policy.substitute)
            policy = FaultPolicy(on_fault, h.fault_policy.strikes, substitute)
        except ConfigError as e:
            raise WireError(f"fault policy: {e}") from None
    sandbox = _sandbox_from_pb(h.sandbox) if h.HasField("sandbox") else None
    launches = [e for e in engines if e.HasField("launch")]
    if launches and len(launches) != len(engines):
        raise WireError("some engines have a launch record and some do not")
    return MatchHeader(
        format_version=h.format_version,
        match_id=h.match_id,
        variant=variant_from_pb(h.variant),
        engines=tuple(
            EngineInfo(e.seat, e.name, e.engine_name, e.engine_version, e.author, e.confinement)
            for e in engines
        ),
        clock=clock,
        seed=h.seed,
        first_dealer=h.first_dealer,
        started_at=h.started_at,
        arena_version=h.arena_version,
        schedule_id=h.schedule_id,
        policy=policy,
        startup_timeout=h.startup_timeout_ms / 1000,
        handshake_timeout=h.handshake_timeout_ms / 1000,
        notify_timeout=h.notify_timeout_ms / 1000,
        sandbox=sandbox,
        launches=tuple(_launch_from_pb(e.launch, e.seat) for e in launches),
        source_revision=h.source_revision,
    )


def match_ended_record(result: MatchResult) -> log_pb2.LogRecord:
    ended = log_pb2.MatchEnded(result=match_result_to_pb(result), finished_at=utc_now())
    return log_pb2.LogRecord(match_ended=ended)


# Spectators ---------------------------------------------------------------------


def spectator_event_to_pb(event: MatchEvent) -> spb.SpectatorEvent:
    """A public event for spectators: never a hand (the view is public only)."""
    msg = spb.SpectatorEvent(match_scores=event.scores)
    what = event.what
    if isinstance(what, DealBegan):
        msg.deal_start.deal_number = what.deal_number
        msg.deal_start.dealer = what.dealer
    elif isinstance(what, Play):
        play_to_pb(what, msg.play)
    elif isinstance(what, DealScored):
        msg.deal_end.CopyFrom(deal_result_to_pb(what))
    else:
        msg.match_end.CopyFrom(match_result_to_pb(what))
    if event.view is not None:
        public_view_to_pb(event.view, msg.view)
        set_cards(msg.table, event.view.table)
        msg.hand_sizes.extend(event.view.hand_sizes)
        msg.stock_count = event.view.stock_count
    return msg


def spectator_event_from_pb(msg: spb.SpectatorEvent) -> MatchEvent:
    kind = msg.WhichOneof("event")
    what: DealBegan | Play | DealScored | MatchResult
    if kind == "deal_start":
        what = DealBegan(msg.deal_start.deal_number, msg.deal_start.dealer)
    elif kind == "play":
        what = play_from_pb(msg.play)
    elif kind == "deal_end":
        what = deal_result_from_pb(msg.deal_end)
    elif kind == "match_end":
        what = match_result_from_pb(msg.match_end)
    else:
        raise WireError("spectator event: no event")
    view = public_view_from_pb(msg.view) if msg.HasField("view") else None
    return MatchEvent(what, view, tuple(msg.match_scores))
