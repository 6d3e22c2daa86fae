#!/usr/bin/env python3
"""The traditional player against greedy or random in duplicate sets, in-process.

    .venv/bin/python engines/traditional/measure.py --game scopone --sets 400
    .venv/bin/python engines/traditional/measure.py --without spariglio

Each set plays one deck sequence twice, the sides swapping seats. ``--without
RULE`` takes one rule out (a name of arena.players.traditional.FIRST or THEN, or
``reply`` for rule 4's reading of the next player's reply, ``guess`` for the
card guessing), to see what it is worth. Prints wins, losses, draws, the score
(wins plus half the draws, over matches) with a 95% interval over sets, and
the mean point difference per match.
"""

from __future__ import annotations

import argparse
import math
import random

from arena.players import traditional as T
from arena.players.strategies import greedy_strategy, random_strategy
from arena.rules import Game, Match, Variant, play_match


def without(name: str) -> None:
    if name == "reply":
        T.expected_reply = lambda obs, table: 0.0
    elif name == "guess":
        T.lacking_ranks = lambda obs, seat: 0
    elif name in {r.__name__ for r in T.FIRST}:
        T.FIRST = tuple(r for r in T.FIRST if r.__name__ != name)
    elif name in {r.__name__ for r in T.THEN}:
        T.THEN = tuple(r for r in T.THEN if r.__name__ != name)
    else:
        raise SystemExit(f"no rule {name!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="scopone", choices=[g.value for g in Game])
    parser.add_argument("--sets", type=int, default=400)
    parser.add_argument("--first-seed", type=int, default=10000)
    parser.add_argument("--opponent", default="greedy", choices=["greedy", "random"])
    parser.add_argument("--without", action="append", default=[])
    args = parser.parse_args()
    for name in args.without:
        without(name)
    opponent = {"greedy": greedy_strategy, "random": random_strategy}[args.opponent]
    variant = Variant(Game(args.game), target=11)
    tally, points, per_set = [0, 0, 0], 0, []
    for i in range(args.sets):
        got = 0.0
        for swap in (0, 1):
            strategies = []
            for s in range(variant.seats):
                ours = (s % 2 == 0) != bool(swap)
                make = T.traditional_strategy if ours else opponent
                strategies.append(make(random.Random(f"{i}/{swap}/{s}")))
            match = play_match(Match(variant, seed=args.first_seed + i), strategies)
            if match.winner is None:
                tally[2] += 1
                got += 0.5
            else:
                tally[0 if match.winner == swap else 1] += 1
                got += float(match.winner == swap)
            points += match.scores[swap] - match.scores[1 - swap]
        per_set.append(got / 2)
    n = len(per_set)
    mean = sum(per_set) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_set) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    label = ",".join(args.without) or "all rules"
    print(
        f"{args.game} vs {args.opponent} ({label}): W/L/D {tally[0]}/{tally[1]}/{tally[2]}, "
        f"score {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}], "
        f"points per match {points / (2 * n):+.2f}"
    )


if __name__ == "__main__":
    main()
