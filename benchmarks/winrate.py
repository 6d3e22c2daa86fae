"""Win rate of one engine against another over many refereed matches.

    python -m benchmarks.winrate [--matches 200] [--variant scopa] [A B]

A and B are engine scripts under engines/ (default greedy and random), each
run as one long-lived bot process serving every match over gRPC; seats
alternate each match (and, in pairs, with the same seed: duplicate deals).
Prints A's wins, the win rate and its 95% interval (Wilson).
"""

from __future__ import annotations

import argparse
import math
import sys

import trio

from arena.match.settings import MatchSettings
from arena.play import run_match
from arena.rules import Game, Variant
from benchmarks.bench_referee import ROOT, start_bot, stop_bots


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", nargs="?", default="greedy")
    ap.add_argument("b", nargs="?", default="random")
    ap.add_argument("--matches", type=int, default=200)
    ap.add_argument("--variant", default="scopa")
    args = ap.parse_args()
    game = Game.parse(args.variant)
    bots = [start_bot(ROOT / "engines" / name / "bot.py") for name in (args.a, args.b)]
    results = {"a": 0, "b": 0, "draw": 0, "faults": 0}

    async def run() -> None:
        limit = trio.CapacityLimiter(16)

        async def one(i: int) -> None:
            async with limit:
                a_seat = i % 2  # the pair (2k, 2k+1) shares a seed with seats swapped
                names = [args.b, args.b]
                names[a_seat] = args.a
                addresses = [bots[1][1], bots[1][1]]
                addresses[a_seat] = bots[0][1]
                engines = [f"{n}={addr}" for n, addr in zip(names, addresses, strict=True)]
                settings = MatchSettings(
                    Variant(game),
                    seed=i // 2,
                    first_dealer=(i // 2 + a_seat) % game.seats,
                    match_id=f"w{i}",
                )
                report = await run_match(engines, settings, allow_shared_partners=True)
                winner = report.result.winner
                results["faults"] += len(report.result.faults)
                if winner is None:
                    results["draw"] += 1
                else:
                    results["a" if winner == a_seat else "b"] += 1

        async with trio.open_nursery() as nursery:
            for i in range(args.matches):
                nursery.start_soon(one, i)

    try:
        import warnings

        warnings.simplefilter("ignore")  # one process serves both partner seats, on purpose
        trio.run(run)
    finally:
        stop_bots([proc for proc, _ in bots])
    n = args.matches
    low, high = wilson(results["a"], n)
    print(
        f"{args.a} vs {args.b}, {game.value}, {n} matches (seats swapped in pairs): "
        f"{args.a} won {results['a']}, lost {results['b']}, drew {results['draw']}; "
        f"win rate {results['a'] / n:.1%} (95% CI {low:.1%} to {high:.1%});"
        f" faults {results['faults']}"
    )
    sys.exit(0)


if __name__ == "__main__":
    main()
