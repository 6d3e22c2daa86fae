"""Messages of scopa.proto: cards, variants, moves and plays, scores and deals,
observations, faults and results. The other modules of this package build on it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from arena.errors import FaultKind, RulesError, WireError
from arena.match.outcome import (
    DealScored,
    Fault,
    MatchResult,
    Termination,
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
from arena.wire.v1 import scopa_pb2 as pb

GAME_TO_PB = {
    Game.SCOPA: pb.SCOPA,
    Game.SCOPA_A_QUATTRO: pb.SCOPA_A_QUATTRO,
    Game.SCOPONE: pb.SCOPONE,
    Game.SCOPONE_SCIENTIFICO: pb.SCOPONE_SCIENTIFICO,
    Game.SCOPA_A_SEI: pb.SCOPA_A_SEI,
    Game.SCOPA_A_TRE: pb.SCOPA_A_TRE,
}
_GAME_FROM_PB = {v: k for k, v in GAME_TO_PB.items()}
# Variant options by field name (arena.rules.OPTIONS) and their enum values.
OPTION_TO_PB = {name: pb.VariantOption.Value(f"OPTION_{name.upper()}") for name in OPTIONS}
OPTION_FROM_PB = {v: k for k, v in OPTION_TO_PB.items()}
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
    return GAME_TO_PB[game]


def variant_to_pb(v: Variant) -> pb.Variant:
    return pb.Variant(
        game=GAME_TO_PB[v.game],
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
            found.plays.add().CopyFrom(memoised(PLAY_PB, plays[-1], play_to_pb))
        else:
            add = found.plays.add
            for p in plays:
                add().CopyFrom(memoised(PLAY_PB, p, play_to_pb))
        if len(_PLAYS_PB) >= CACHE_LIMIT:
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
PLAY_PB: dict[Any, Any] = {}
_PLAYS_PB: dict[tuple[type[Any], tuple[Play, ...]], Any] = {}
_MOVE_PB: dict[Any, Any] = {}
_VARIANT_PB: dict[Any, Any] = {}
_CARD_SET_PB: dict[Any, Any] = {}
CACHE_LIMIT = 1 << 14


def memoised(cache: dict[Any, Any], key: Any, build: Callable[[Any], Any]) -> Any:
    found = cache.get(key)
    if found is None:
        if len(cache) >= CACHE_LIMIT:
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


def milliseconds(seconds: float | None) -> int:
    return round((seconds or 0) * 1000)
