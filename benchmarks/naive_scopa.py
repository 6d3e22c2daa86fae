"""The yardstick: a straightforward Scopa deal with card objects.

Cards are dataclass objects, hands and table are lists, captures are found
with itertools.combinations over the table. It plays the same rules as
arena.rules (legal moves, sweeps, leftovers, scoring) and exists only so
`make bench` can say how much faster the real engine is.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass

PRIMIERA = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}
SUITS = ("denari", "coppe", "spade", "bastoni")


@dataclass(frozen=True)
class Card:
    rank: int
    suit: str


@dataclass(frozen=True)
class Move:
    card: Card
    captures: tuple[Card, ...]


def legal_moves(hand: list[Card], table: list[Card]) -> list[Move]:
    moves = []
    for card in hand:
        same = [t for t in table if t.rank == card.rank]
        if same:
            moves.extend(Move(card, (t,)) for t in same)
            continue
        sums = [
            combo
            for size in range(2, len(table) + 1)
            for combo in itertools.combinations(table, size)
            if sum(c.rank for c in combo) == card.rank
        ]
        if sums:
            moves.extend(Move(card, combo) for combo in sums)
        else:
            moves.append(Move(card, ()))
    return moves


def primiera(pile: list[Card]) -> int | None:
    total = 0
    for suit in SUITS:
        values = [PRIMIERA[c.rank] for c in pile if c.suit == suit]
        if not values:
            return None
        total += max(values)
    return total


def score(piles: list[list[Card]], scope: list[int]) -> list[int]:
    points = list(scope)

    def award(values: list[int | None]) -> None:
        present = [v for v in values if v is not None]
        if present and present.count(max(present)) == 1:
            points[values.index(max(present))] += 1

    award([len(p) for p in piles])
    award([sum(c.suit == "denari" for c in p) for p in piles])
    for side, p in enumerate(piles):
        if Card(7, "denari") in p:
            points[side] += 1
    award([primiera(p) for p in piles])
    return points


DECK = tuple(Card(rank, suit) for suit in SUITS for rank in range(1, 11))


def deal(deck: list[Card], seats: int, scopone: bool) -> tuple[list[list[Card]], list[Card]]:
    """Hands (seat 0 served first) and table from a deck; the rest is the stock."""
    hands: list[list[Card]] = [[] for _ in range(seats)]
    table: list[Card] = []
    packets = (
        [("hands", 3), ("table", 2)] * 2 + [("hands", 3)]
        if scopone
        else [("hands", 3), ("table", 4)]
    )
    pos = 0
    for kind, n in packets:
        if kind == "table":
            table += deck[pos : pos + n]
            pos += n
        else:
            for s in range(seats):
                hands[s] += deck[pos : pos + n]
                pos += n
    del deck[:pos]
    return hands, table


def play_deal(
    deck: list[Card], seats: int, scopone: bool, choose: Callable[[list[Move]], Move]
) -> tuple[list[list[Card]], list[int]]:
    """Play one deal from a deck order (seat 0 plays first); return piles and scope."""
    stock = list(deck)
    hands, table = deal(stock, seats, scopone)
    # Two or three players: each for itself; four or six: two teams, alternate seats.
    sides = seats if seats <= 3 else 2
    piles: list[list[Card]] = [[] for _ in range(sides)]
    scope = [0] * sides
    last_capturer = None
    seat = 0
    while True:
        if not any(hands):
            if not stock:
                break
            for s in range(seats):
                hands[s], stock = stock[:3], stock[3:]
        move = choose(legal_moves(hands[seat], table))
        hands[seat].remove(move.card)
        side = seat % sides
        if move.captures:
            table = [t for t in table if t not in move.captures]
            piles[side].extend(move.captures)
            piles[side].append(move.card)
            last_capturer = side
            if not table and (any(hands) or stock):
                scope[side] += 1
        else:
            table.append(move.card)
        seat = (seat + 1) % seats
    if table and last_capturer is not None:
        piles[last_capturer].extend(table)
    return piles, scope


def random_deal(seats: int, scopone: bool, rng: random.Random) -> list[int]:
    """Deal a shuffled deck and play it out with uniformly random legal moves."""
    deck = list(DECK)
    rng.shuffle(deck)
    piles, scope = play_deal(deck, seats, scopone, rng.choice)
    return score(piles, scope)
