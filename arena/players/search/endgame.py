"""The end of a deal solved exactly, once nothing is hidden.

When the stock is empty and at most one other seat still holds cards, a
seat knows every hand: the cards it has not seen are that seat's. In Scopa
that is the whole last packet. The rest of the deal is then a game of
perfect information, small enough (six cards in Scopa's last packet) to
search to the end: minimax with alpha-beta pruning over the deal's point
difference, the quantity the Monte Carlo searches estimate by playouts.
Sampling has nothing left to average over there, and the playouts' plain
policy would misjudge replies a real opponent finds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from arena.rules import Move, Observation
from arena.rules.deal import Deal
from arena.rules.scoring import margin

# Cards left in all hands together up to which the end is searched exactly:
# Scopa's last packet (3 + 3); in Scopone 9+4, the last two rounds.
MAX_CARDS = 8


def is_known(obs: Observation) -> bool:
    """Whether ``obs`` pins down every hand (and the end is small enough to
    solve): the stock is empty and no two other seats share the unseen cards."""
    if obs.stock_count or sum(obs.hand_sizes) > MAX_CARDS:
        return False
    others = [n for seat, n in enumerate(obs.hand_sizes) if seat != obs.seat and n]
    return len(others) <= 1


def solve(deal: Deal, moves: Sequence[Move]) -> list[int]:
    """Each of ``moves``' exact value for the side to move: the deal's point
    difference (its side minus the other) when both sides then play the rest
    of the deal perfectly. ``deal`` must have no hidden cards left to draw."""
    seat = deal.to_move
    if seat is None:
        raise ValueError("the deal is over")
    side = deal.variant.side_of(seat)
    values = []
    for move in moves:
        child = deal.copy()
        child.play_unchecked(move)
        values.append(int(_value(child, side, -math.inf, math.inf)))
    return values


def value(deal: Deal, side: int) -> int:
    """The deal's point difference for ``side`` (its points minus the
    other's) when both sides play the rest perfectly."""
    return int(_value(deal, side, -math.inf, math.inf))


def _value(deal: Deal, side: int, alpha: float, beta: float) -> float:
    """The deal's point difference for ``side`` under perfect play from here:
    ``side`` takes the most, the other side the least (with three players,
    the other two play against ``side``, its lead over the better of them)."""
    seat = deal.to_move
    if seat is None:
        return margin(deal.points(), side)
    ours = deal.variant.side_of(seat) == side
    best = -math.inf if ours else math.inf
    for move in deal.legal_moves():
        child = deal.copy()
        child.play_unchecked(move)
        value = _value(child, side, alpha, beta)
        if ours:
            best = max(best, value)
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best
