#!/usr/bin/env python3
"""search: determinized Monte Carlo search over sampled hidden hands.

For each decision it deals the cards it has not seen at random (consistent
with everything public: arena.rules.determinize), and for every legal move
plays the deal out many times with the arena's own rules engine, scoring
each playout by the points its side makes minus the other side's. The same
samples serve every move (common random numbers), and the move with the
best mean wins. Playouts follow a cheap policy (take something when you
can) rather than uniformly random moves, which reads the table better.

Time: it thinks for at most half the time it is given (and at most
--think seconds), so it always answers well within its deadline.

    python engines/search/bot.py [--think 0.2] [--listen ADDRESS]
"""

from __future__ import annotations

import argparse
import sys
import time

from arena.rules import Move, Observation
from arena.rules.determinize import determinize
from arena.sdk import Decision, serve


def playout(deal, rng) -> list[int]:  # type: ignore[no-untyped-def]
    """Play the deal out: a capturing move when there is one (chosen at random
    among them), else a random card. Returns each side's points."""
    while deal.to_move is not None:
        moves = deal.legal_moves()
        captures = [m for m in moves if m.captures]
        pool = captures if captures and rng.random() < 0.8 else moves
        deal.play_unchecked(pool[int(rng.random() * len(pool))])
    from arena.rules.scoring import deal_points

    return deal_points(deal.piles, deal.scope)


def evaluate(
    obs: Observation, moves: list[Move], rng, deadline: float, min_samples: int
) -> list[float]:  # type: ignore[no-untyped-def]
    side = obs.seat & 1
    totals = [0.0] * len(moves)
    samples = 0
    while samples < min_samples or time.perf_counter() < deadline:
        world = determinize(obs, rng)
        for i, move in enumerate(moves):
            deal = world.copy()
            deal.play_unchecked(move)
            points = playout(deal, rng)
            totals[i] += points[side] - points[1 - side]
        samples += 1
        if samples >= 2000:
            break
    return [t / samples for t in totals]


def make_chooser(think: float) -> object:
    def choose(decision: Decision) -> Move:
        moves = decision.legal_moves
        if len(moves) == 1:
            return moves[0]
        budget = min(think, decision.time_limit * 0.5) if decision.time_limit > 0 else think
        rng = decision.rng("search")
        values = evaluate(decision.observation, moves, rng, time.perf_counter() + budget, 4)
        return moves[max(range(len(moves)), key=values.__getitem__)]

    return choose


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="determinized Monte Carlo search bot")
    parser.add_argument("--think", type=float, default=0.2, help="seconds per decision at most")
    args, rest = parser.parse_known_args()
    serve(make_chooser(args.think), name="search", version="1.0", author="Scopa Arena", argv=rest)  # type: ignore[arg-type]
    sys.exit(0)
