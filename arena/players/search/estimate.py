"""The expected point difference of a deal cut off between packets.

A playout that stops at the end of a packet (Deal.random_playout's
``packets``) has a known part, the scope made and the piles so far, and an
unknown part, the cards still on the table, in hands and in the stock. The
estimate takes every such card as going to either side with even chances,
independently, and gives each point's expectation under that model: carte
and denari in closed form from the counts, the settebello as it stands, and
the primiera from each suit's expected best card on each side, passed
through a tanh whose scale was fitted against full playouts
(engines/ismcts/README.md). Two sides only (Scopa, and Scopa a quattro's
teams); the variants' extra points (re bello, napola, ...) are not counted.

Cutting a playout short trades a bias (the table left at the cut, the
players' skill in the packets not played) for less noise and more
iterations: the search measures whether the trade pays.
"""

from __future__ import annotations

import math
from functools import cache

from arena.rules.cards import DECK_SIZE, DENARI_MASK, PRIMIERA, SETTEBELLO
from arena.rules.deal import Deal

SUIT_CARDS = 10
PRIMIERA_SCALE = 12.0  # the tanh's scale, in primiera points (fitted: README)


@cache
def _majority(total: int, held: int, other: int) -> float:
    """P(a side holding ``held`` of ``total`` cards ends with more than half)
    minus the same for the other side, the cards left split 50/50."""
    left = total - held - other
    half = total // 2
    weights = [math.comb(left, x) for x in range(left + 1)]
    scale = 2.0**-left
    mine = sum(w for x, w in enumerate(weights) if held + x > half)
    theirs = sum(w for x, w in enumerate(weights) if other + left - x > half)
    return (mine - theirs) * scale


@cache
def _suit_best(
    values_mine: tuple[int, ...], values_theirs: tuple[int, ...], left: tuple[int, ...]
) -> float:
    """E[best primiera value of mine] - E[best of theirs] in one suit, the
    ``left`` cards (values, highest first) going to either side at even odds."""
    best_mine = max(values_mine, default=0)
    best_theirs = max(values_theirs, default=0)
    expected_mine = expected_theirs = 0.0
    chance = 0.5
    for v in left:  # the highest card left that reaches a side is its j-th with 2**-(j+1)
        expected_mine += chance * max(best_mine, v)
        expected_theirs += chance * max(best_theirs, v)
        chance *= 0.5
    chance *= 2.0  # every card left went to the other side
    expected_mine += chance * best_mine
    expected_theirs += chance * best_theirs
    return expected_mine - expected_theirs


@cache
def _suit(mine: int, theirs: int, suit: int) -> float:
    """_suit_best for one suit's 10-bit patterns of the two piles."""
    cards = [suit * SUIT_CARDS + i for i in range(SUIT_CARDS)]
    values_mine = tuple(PRIMIERA[c] for i, c in enumerate(cards) if mine >> i & 1)
    values_theirs = tuple(PRIMIERA[c] for i, c in enumerate(cards) if theirs >> i & 1)
    out = mine | theirs
    left = sorted((PRIMIERA[c] for i, c in enumerate(cards) if not out >> i & 1), reverse=True)
    return _suit_best(values_mine, values_theirs, tuple(left))


def expected_margin(deal: Deal) -> float:
    """Side 0's expected points minus side 1's at the end of the deal."""
    p0, p1 = deal.piles[0], deal.piles[1]
    margin = float(deal.scope[0] - deal.scope[1])
    margin += _majority(DECK_SIZE, p0.bit_count(), p1.bit_count())
    margin += _majority(10, (p0 & DENARI_MASK).bit_count(), (p1 & DENARI_MASK).bit_count())
    if (p0 >> SETTEBELLO) & 1:
        margin += 1.0
    elif (p1 >> SETTEBELLO) & 1:
        margin -= 1.0
    primiera = 0.0
    for suit in range(4):
        shift = suit * SUIT_CARDS
        primiera += _suit(p0 >> shift & 1023, p1 >> shift & 1023, suit)
    return margin + math.tanh(primiera / PRIMIERA_SCALE)
