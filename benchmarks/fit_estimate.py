"""How well arena.players.search.estimate values a Scopa deal cut off between packets.

Deals playouts (capturing four times in five) cut after one to five packets,
values each cut-off position with the estimate, then plays it to the end and
prints: the primiera term's squared error against the primiera's outcome for
several tanh scales (the one with the least is estimate.PRIMIERA_SCALE), and
how much of the final point difference's variance the estimate leaves.

    python benchmarks/fit_estimate.py [--positions 4000] [--seed 5]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics

from arena.players.search import estimate
from arena.rules import Deal, Game, Variant
from arena.rules.scoring import primiera

SCALES = (4.0, 6.0, 8.0, 10.0, 12.0, 16.0, 20.0, 28.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    variant = Variant(Game.SCOPA)
    rng = random.Random(args.seed)
    rows: list[tuple[float, int, float, int]] = []
    while len(rows) < args.positions:
        deal = Deal(variant, 0, rng.sample(range(40), 40))
        if deal.random_playout(rng.random, 0.8, packets=rng.randint(1, 5)):
            continue  # the stock ran out before the cut
        p0, p1 = deal.piles
        difference = sum(
            estimate._suit(p0 >> 10 * s & 1023, p1 >> 10 * s & 1023, s) for s in range(4)
        )
        expected = estimate.expected_margin(deal)
        points = deal.random_playout(rng.random, 0.8)
        q0, q1 = primiera(deal.piles[0]) or 0, primiera(deal.piles[1]) or 0
        rows.append((difference, (q0 > q1) - (q0 < q1), expected, points[0] - points[1]))
    print(f"{len(rows)} Scopa positions cut after 1 to 5 packets (seed {args.seed})")
    for scale in SCALES:
        error = sum((math.tanh(d / scale) - won) ** 2 for d, won, _, _ in rows) / len(rows)
        mark = "  <- estimate.PRIMIERA_SCALE" if scale == estimate.PRIMIERA_SCALE else ""
        print(f"  primiera tanh scale {scale:4.0f}: squared error {error:.3f}{mark}")
    expected = [r[2] for r in rows]
    final = [float(r[3]) for r in rows]
    left = statistics.pvariance([f - e for e, f in zip(expected, final, strict=True)])
    print(
        f"final point difference: variance {statistics.pvariance(final):.2f}, "
        f"{left:.2f} left around the estimate, correlation "
        f"{statistics.correlation(expected, final):.2f}"
    )


if __name__ == "__main__":
    main()
