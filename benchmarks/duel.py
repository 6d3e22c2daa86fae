"""Two built-in players, deal against deal: how the ISMCTS settings in
engines/ismcts/README.md were chosen.

Each deck is played twice, the players swapping seats (so each side holds
each hand once: duplicate), one deal each time (no match score), in process
without a referee. Prints the mean deal-point difference of A over B per
deck pair with its standard error, and A's deal wins, ties and losses.

    python benchmarks/duel.py "ismcts --iterations 500" "ismcts --iterations 500 --reward win" \\
        --game scopone --decks 60
"""

from __future__ import annotations

import argparse
import math
import random
import shlex
import time

from arena.players.strategies import BUILT_IN
from arena.rules import Deal, Game, Variant, observe


def player(spec: str, seed: str):  # type: ignore[no-untyped-def]
    words = shlex.split(spec)
    made = BUILT_IN[words[0]]
    return made(random.Random(seed), words[1:]), made


def play_deal(variant: Variant, deck: list[int], specs: list[str], seed: str) -> list[int]:
    deal = Deal(variant, 0, deck)
    seats = [player(specs[s & 1], f"{seed}/{s}") for s in range(variant.seats)]
    while deal.to_move is not None:
        seat = deal.to_move
        strategy, made = seats[seat]
        extra = {"hands": tuple(deal.hands)} if made.sees_every_hand else {}
        deal.play(strategy(observe(deal, seat), deal.legal_moves(), **extra))
    return deal.score().points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--game", default="scopone")
    parser.add_argument("--decks", type=int, default=40)
    parser.add_argument("--seed", default="duel")
    args = parser.parse_args()
    variant = Variant(Game.parse(args.game))
    diffs, wins, ties, losses = [], 0, 0, 0
    start = time.perf_counter()
    for i in range(args.decks):
        deck = random.Random(f"{args.seed}/{i}").sample(range(40), 40)
        total = 0
        for a_side, specs in ((0, [args.a, args.b]), (1, [args.b, args.a])):
            points = play_deal(variant, deck, specs, f"{args.seed}/{i}/{a_side}")
            d = points[a_side] - points[1 - a_side]
            total += d
            wins, ties, losses = wins + (d > 0), ties + (d == 0), losses + (d < 0)
        diffs.append(total / 2)
    n = len(diffs)
    mean = sum(diffs) / n
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n) if n > 1 else 0.0
    print(
        f"{args.game}: A={args.a!r} B={args.b!r}: A - B {mean:+.3f} +- {se:.3f} points a deal "
        f"over {n} deck pairs; A's deals won/tied/lost {wins}/{ties}/{losses}; "
        f"{time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
