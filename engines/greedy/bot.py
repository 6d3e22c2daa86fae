#!/usr/bin/env python3
"""greedy: the best move by a one-ply reading of the table.

It values what a capture takes (the settebello, denari, primiera cards and
card count), a sweep outright, and subtracts the risk of the table it leaves
behind (a table adding up to 10 or less can be swept by the next player).
The heuristic is arena.players.strategies.move_value; ties are broken by a generator
seeded by the decision, so replays are exact.

Run it as a server: ``python engines/greedy/bot.py [--listen 127.0.0.1:0]``.
"""

from arena.players.strategies import move_value
from arena.rules import Game, Move
from arena.sdk import Decision, serve


def choose(decision: Decision) -> Move:
    scored = [(move_value(decision.observation, m), m) for m in decision.legal_moves]
    best = max(v for v, _ in scored)
    ties = [m for v, m in scored if v >= best - 1e-9]
    return ties[int(decision.rng("greedy").random() * len(ties))]


if __name__ == "__main__":
    serve(choose, name="greedy", version="1.0", author="Scopa Arena", games=tuple(Game))
