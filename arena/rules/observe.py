"""What one seat may know, and nothing else (docs/rules.md, last section).

A seat knows its own hand, the table, every play of the deal (plays are face
up), each side's sweeps and number of captured cards, the match score, the
size of the stock and of every hand, and who deals. It never sees another
hand (a partner's included), the stock's order, or the seed.

The observation is built only from those public values, so it is identical
for every arrangement of the cards the seat cannot see: the information test
in tests/ checks exactly that.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.errors import RulesError
from arena.rules.deal import Deal, Play
from arena.rules.match import Match
from arena.rules.moves import Move
from arena.rules.variants import Variant


@dataclass(frozen=True)
class Observation:
    """A seat's view of a match in progress. Card sets are masks."""

    variant: Variant
    seat: int
    deal_number: int
    dealer: int
    to_move: int | None
    hand: int
    table: int
    hand_sizes: tuple[int, ...]
    stock_count: int
    plays: tuple[Play, ...]
    captured_counts: tuple[int, ...]
    scope: tuple[int, ...]
    scores: tuple[int, ...]  # match scores before this deal


def observe(state: Match | Deal, seat: int) -> Observation:
    """The observation of ``seat`` in a match (its current deal) or a lone deal."""
    if isinstance(state, Match):
        if state.deal is None:
            raise RulesError("no deal in progress to observe")
        deal, scores, number = state.deal, tuple(state.scores), state.deal_number
    else:
        deal, scores, number = state, (0, 0), 0
    if not 0 <= seat < deal.variant.seats:
        raise RulesError(f"no seat {seat} in {deal.variant.game.value}")
    return Observation(
        variant=deal.variant,
        seat=seat,
        deal_number=number,
        dealer=deal.dealer,
        to_move=deal.to_move,
        hand=deal.hands[seat],
        table=deal.table,
        hand_sizes=tuple(h.bit_count() for h in deal.hands),
        stock_count=deal.stock_count,
        plays=tuple(deal.plays),
        captured_counts=tuple(p.bit_count() for p in deal.piles),
        scope=tuple(deal.scope),
        scores=scores,
    )


Strategy = Callable[[Observation, list[Move]], tuple[int, int]]


def play_match(match: Match, strategies: Sequence[Strategy]) -> Match:
    """Play a match to the end in-process, one strategy per seat.

    Each strategy sees only its seat's observation and the legal moves, like
    a bot over the wire, and every answer is checked (IllegalMoveError).
    """
    if len(strategies) != match.variant.seats:
        raise RulesError(f"{match.variant.game.value} needs {match.variant.seats} strategies")
    while not match.is_over:
        deal = match.start_deal()
        while deal.to_move is not None:
            seat = deal.to_move
            deal.play(strategies[seat](observe(match, seat), deal.legal_moves()))
        match.end_deal()
    return match
