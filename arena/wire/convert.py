"""The one place where rules values become protobuf messages and back.

Everything above this module (referee, logs, tournaments) passes plain
Python values; everything on the wire is a message from arena.wire.v1.
``*_to_pb`` never fails on a valid rules value; ``*_from_pb`` checks what it
reads and raises WireError (a ValueError) naming the field at fault, because
its input may come from a bot or a file we do not trust.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from arena.errors import RulesError, WireError
from arena.outcome import Fault, FaultKind, MatchResult, Termination
from arena.rules import (
    DealScore,
    FinishedDeal,
    Game,
    Move,
    Observation,
    Play,
    SideTally,
    Variant,
    cards_of,
)
from arena.rules.cards import BIT
from arena.wire.v1 import log_pb2
from arena.wire.v1 import scopa_pb2 as pb

_GAME_TO_PB = {
    Game.SCOPA: pb.SCOPA,
    Game.SCOPA_A_QUATTRO: pb.SCOPA_A_QUATTRO,
    Game.SCOPONE: pb.SCOPONE,
    Game.SCOPONE_SCIENTIFICO: pb.SCOPONE_SCIENTIFICO,
}
_GAME_FROM_PB = {v: k for k, v in _GAME_TO_PB.items()}
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
    Termination.VOID: pb.VOID,
    Termination.ABORTED: pb.ABORTED,
}
_TERMINATION_FROM_PB = {v: k for k, v in _TERMINATION_TO_PB.items()}

# Cards are immutable in meaning, so one prebuilt message per card is copied
# into place (CopyFrom) instead of being built field by field each time.
_SUITS_PB = (pb.DENARI, pb.COPPE, pb.SPADE, pb.BASTONI)
_CARD_PB = tuple(pb.Card(suit=_SUITS_PB[c // 10], rank=c % 10 + 1) for c in range(40))


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
    return (msg.suit - 1) * 10 + msg.rank - 1


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
        )
    except RulesError as e:
        raise WireError(f"variant: {e}") from e


# Moves and plays -------------------------------------------------------------


def move_to_pb(move: tuple[int, int], msg: pb.Move | None = None) -> pb.Move:
    msg = msg if msg is not None else pb.Move()
    msg.card.CopyFrom(_CARD_PB[move[0]])
    set_cards(msg.captures, move[1])
    return msg


def move_from_pb(msg: pb.Move, what: str = "move") -> Move:
    if not msg.HasField("card"):
        raise WireError(f"{what}: no card")
    card = card_from_pb(msg.card, f"{what}.card")
    captures = mask_from_pb(msg.captures, f"{what}.captures")
    if captures & BIT[card]:
        raise WireError(f"{what}: the played card is also among the captures")
    return Move(card, captures)


def play_to_pb(play: Play, msg: pb.Play | None = None) -> pb.Play:
    msg = msg if msg is not None else pb.Play()
    msg.seat = play.seat
    move_to_pb((play.card, play.captures), msg.move)
    msg.scopa = play.scopa
    return msg


def play_from_pb(msg: pb.Play, what: str = "play") -> Play:
    move = move_from_pb(msg.move, f"{what}.move")
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
        )
        if t.primiera is not None:
            msg.primiera = t.primiera
        out.append(msg)
    return out


def side_scores_from_pb(msgs: Sequence[pb.SideScore]) -> DealScore:
    if len(msgs) != 2:
        raise WireError(f"deal result: {len(msgs)} sides, expected 2")

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
            )
            for m in msgs
        ),
        carte=awarded("carte_point"),
        denari=awarded("denari_point"),
        settebello=awarded("settebello_point"),
        primiera=awarded("primiera_point"),
    )


def deal_result_to_pb(deal: FinishedDeal) -> pb.DealResult:
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


def finished_deal_to_pb(
    deal: FinishedDeal,
) -> tuple[log_pb2.DealStarted, list[pb.Play], pb.DealResult]:
    """A finished deal as the three things a log stores: the DealStarted record
    (deck and void decks), the plays, and the DealResult."""
    started = log_pb2.DealStarted(deal_number=deal.number, dealer=deal.dealer)
    set_cards(started.deck, deal.deck)
    for void in deal.void_decks:
        set_cards(started.void_decks.add().cards, void)
    return started, [play_to_pb(p) for p in deal.plays], deal_result_to_pb(deal)


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
    msg.deal_number = obs.deal_number
    msg.dealer = obs.dealer
    msg.hand_sizes.extend(obs.hand_sizes)
    msg.stock_count = obs.stock_count
    msg.captured_counts.extend(obs.captured_counts)
    msg.scope.extend(obs.scope)
    msg.match_scores.extend(obs.scores)
    msg.variant.CopyFrom(_cached(_VARIANT_PB, obs.variant, variant_to_pb))
    if obs.to_move is not None:
        msg.to_move = obs.to_move
    set_cards(msg.hand, obs.hand)
    set_cards(msg.table, obs.table)
    add = msg.plays.add
    for p in obs.plays:
        add().CopyFrom(_cached(_PLAY_PB, p, play_to_pb))
    return msg


def moves_to_pb(moves: Iterable[Move], field: Any) -> None:
    """Fill a repeated Move field (legal moves), through the same memo."""
    add = field.add
    for m in moves:
        add().CopyFrom(_cached(_MOVE_PB, m, move_to_pb))


# An observation repeats every play of the deal so far, and the referee sends
# one per decision: converted plays, moves and variants are memoised (values
# are immutable; the cached messages are only ever copied from).
_PLAY_PB: dict[Any, Any] = {}
_MOVE_PB: dict[Any, Any] = {}
_VARIANT_PB: dict[Any, Any] = {}
_CACHE_LIMIT = 1 << 14


def _cached(cache: dict[Any, Any], key: Any, build: Callable[[Any], Any]) -> Any:
    found = cache.get(key)
    if found is None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        found = cache[key] = build(key)
    return found


def observation_from_pb(msg: pb.Observation) -> Observation:
    return Observation(
        variant=variant_from_pb(msg.variant),
        seat=msg.seat,
        deal_number=msg.deal_number,
        dealer=msg.dealer,
        to_move=msg.to_move if msg.HasField("to_move") else None,
        hand=mask_from_pb(msg.hand, "hand"),
        table=mask_from_pb(msg.table, "table"),
        hand_sizes=tuple(msg.hand_sizes),
        stock_count=msg.stock_count,
        plays=tuple(play_from_pb(p, f"plays[{i}]") for i, p in enumerate(msg.plays)),
        captured_counts=tuple(msg.captured_counts),
        scope=tuple(msg.scope),
        scores=tuple(msg.match_scores),
    )


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
