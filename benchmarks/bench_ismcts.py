"""Iterations per second of the reference engine (arena/players/search/ismcts.py),
and where an iteration's time goes.

Positions: the first decision of a deal and one a third of the way in, for
Scopa and Scopone (9+4), from fixed seeds. Each figure is the median of
``--rounds`` searches of ``--seconds`` each. The breakdown times the three
parts of an iteration on their own, over the same positions: dealing the
unseen cards (determinize, one sample per root move's iteration when the root
is paired), walking and growing the tree (the rest), and the playout from the
new node (Deal.random_playout with the search's policy; timed from the
sampled position, so a little longer than the playout below a new node).

    python -m benchmarks.bench_ismcts [--seconds 1] [--rounds 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from arena.players.search import ismcts
from arena.rules import Game, Match, Observation, Variant, observe
from arena.rules.determinize import determinize


def positions(game: Game) -> list[tuple[str, Observation, list]]:  # type: ignore[type-arg]
    match = Match(Variant(game), seed=11)
    deal = match.start_deal()
    found = []
    rng = random.Random(2)
    plays = 0  # decisions played so far
    while deal.to_move is not None:
        moves = deal.legal_moves()
        if plays in (0, 12) and len(moves) > 1:
            found.append((f"decision {plays + 1}", observe(match, deal.to_move), moves))
        deal.play_unchecked(moves[int(rng.random() * len(moves))])
        plays += 1
    return found


def rate(obs: Observation, moves: list, seconds: float, rounds: int, cheat: bool) -> float:  # type: ignore[type-arg]
    rates = []
    for r in range(rounds):
        hands = None
        if cheat:  # any hands consistent with the view serve for timing
            hands = tuple(determinize(obs, random.Random(r)).hands)
        found = ismcts.search(obs, moves, random.Random(r), seconds=seconds, hands=hands)
        rates.append(found.iterations / found.seconds)
    return statistics.median(rates)


def parts(obs: Observation, n: int = 2000) -> tuple[float, float]:
    """Microseconds to determinize, and to play a determinized deal out with
    the search's playout policy."""
    rng = random.Random(1)
    start = time.perf_counter()
    worlds = [determinize(obs, rng) for _ in range(n)]
    dealt = (time.perf_counter() - start) / n
    start = time.perf_counter()
    for w in worlds:
        w.random_playout(rng.random, ismcts.CAPTURE_BIAS, ismcts.CARE, ismcts.SWEEP)
    played = (time.perf_counter() - start) / n
    return dealt * 1e6, played * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"ismcts iterations per second, median of {args.rounds} x {args.seconds:g}s searches")
    print(
        f"{'game':<9} {'position':<12} {'ismcts':>8} {'cheating':>9} {'us/it':>6} "
        f"{'determinize':>11} {'playout':>8} {'tree':>6}"
    )
    for game in (Game.SCOPA, Game.SCOPONE):
        for label, obs, moves in positions(game):
            it = rate(obs, moves, args.seconds, args.rounds, cheat=False)
            cheat = rate(obs, moves, args.seconds, args.rounds, cheat=True)
            dealt, played = parts(obs)
            per = 1e6 / it
            # Paired, one sampled deal serves every root move: an iteration's share of it.
            dealt /= len(moves) if ismcts.PAIRED else 1
            tree = max(0.0, per - dealt - played)
            print(
                f"{game.value:<9} {label:<12} {it:>8.0f} {cheat:>9.0f} {per:>6.0f} "
                f"{dealt / per:>10.0%} {played / per:>8.0%} {tree / per:>6.0%}"
            )
    print(
        "shares: the parts timed apart over the same positions, against an iteration's time;\n"
        "the playout is timed from the sampled position, longer than one below a new node,\n"
        "so the shares are rough and can add up past 100% (the tree then shows 0%)"
    )


if __name__ == "__main__":
    main()
