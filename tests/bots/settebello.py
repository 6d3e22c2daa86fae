#!/usr/bin/env python3
"""A bot that throws the settebello away: whenever it can lay the 7 of
denari on the table it does, though it may hold other cards; otherwise it
plays greedy's move. The analysis tests look for that decision in its logs.

    python settebello.py [tag]     (over gRPC, as any bot)

``strategy`` is the same player in-process (arena.transport.seat's
InProcessConnection).
"""

from __future__ import annotations

from arena.players.strategies import greedy_strategy
from arena.rules import SETTEBELLO, Move, Observation
from arena.sdk import Decision, serve

THROW = Move(SETTEBELLO, 0)
_greedy = greedy_strategy()


def strategy(obs: Observation, moves: list[Move]) -> Move:
    if THROW in moves:
        return THROW
    return Move(*_greedy(obs, moves))


def choose(decision: Decision) -> Move:
    return strategy(decision.observation, list(decision.legal_moves))


if __name__ == "__main__":
    serve(choose, name="settebello", version="1.0", author="Scopa Arena tests")
