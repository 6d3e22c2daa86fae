"""Built-in playing strategies: uniformly random, and a greedy heuristic.

A strategy sees what a bot sees, an Observation and the legal moves, and
returns one of the moves. The example engines in engines/ serve these same
strategies over gRPC.
"""

from __future__ import annotations

import random as _random

from arena.rules import Move, Observation, Strategy
from arena.rules.cards import DENARI_MASK, PRIMIERA, RANK, SETTEBELLO, cards_of


def random_strategy(rng: _random.Random) -> Strategy:
    """Each legal move with equal probability."""

    def choose(obs: Observation, moves: list[Move]) -> Move:
        return moves[int(rng.random() * len(moves))]

    return choose


# Weights of the greedy heuristic, in points of a deal: a scopa is a point
# outright; the settebello is a point; denari, cards and primiera cards are
# shares of points the side is racing for.
SCOPA_VALUE = 1.0
SETTEBELLO_VALUE = 0.9
DENARO_VALUE = 0.12
CARD_VALUE = 0.05
SWEEP_RISK = 0.6  # expected loss when the table left behind can be swept


def _card_value(c: int) -> float:
    value = CARD_VALUE + (PRIMIERA[c] - 10) * 0.012
    if DENARI_MASK >> c & 1:
        value += DENARO_VALUE
    if c == SETTEBELLO:
        value += SETTEBELLO_VALUE
    return value


def move_value(obs: Observation, move: Move) -> float:
    """How good a move looks to a one-ply reader of the table."""
    card, taken = move
    last_play = obs.stock_count == 0 and sum(obs.hand_sizes) == 1
    if taken:
        value = sum(_card_value(c) for c in cards_of(taken | 1 << card))
        table_after = obs.table & ~taken
        if not table_after and not last_play:
            return value + SCOPA_VALUE
    else:
        # Laying a card hands it to whoever takes it next.
        value = -0.5 * _card_value(card)
        table_after = obs.table | 1 << card
    if table_after and not last_play:
        total = sum(RANK[c] for c in cards_of(table_after))
        if total <= 10:
            value -= SWEEP_RISK
        # A lone 7 or denaro on the table invites a capture.
        value -= 0.3 * sum(_card_value(c) for c in cards_of(table_after))
    return value


def greedy_strategy(rng: _random.Random | None = None) -> Strategy:
    """The move with the best one-ply value; ties broken at random (or by order)."""

    def choose(obs: Observation, moves: list[Move]) -> Move:
        scored = [(move_value(obs, m), i) for i, m in enumerate(moves)]
        best = max(v for v, _ in scored)
        ties = [moves[i] for v, i in scored if v >= best - 1e-9]
        return ties[int(rng.random() * len(ties))] if rng else ties[0]

    return choose


BUILT_IN = {"random": random_strategy, "greedy": greedy_strategy}
