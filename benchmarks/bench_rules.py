"""Random-playout speed of the rules engine against the naive yardstick.

One playout = one full deal from a fresh shuffle to its scoring, every move
chosen uniformly among the legal moves. Both engines run in the same
process, alternately, several rounds; medians are printed.

    python -m benchmarks.bench_rules [--seconds S] [--rounds N]

It also prints what the regional options (re bello, napola and the last sweep,
which touch only the scoring; the ace rule; scopa a quindici, whose moves are
not inlined in the playout) cost the playout API, and the
cost of one seeded deck (docs/seeds.md: SHA-256 blocks and Fisher-Yates),
which every deal of a refereed match pays once.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import timeit
from collections.abc import Callable

from arena.rules import Deal, Game, Variant, seeded_deck
from arena.rules.variants import CIRULLA_OPTIONS
from benchmarks import naive_scopa


def arena_steps(game: Game) -> Callable[[random.Random], object]:
    """The step API, in the same harness as the yardstick (shuffle, rng.choice)."""
    variant = Variant(game)

    def run(rng: random.Random) -> object:
        deck = list(range(40))
        rng.shuffle(deck)
        deal = Deal(variant, 0, deck)
        choice = rng.choice
        while deal.to_move is not None:
            deal.play_unchecked(choice(deal.legal_moves()))
        return deal.score()

    return run


def arena_playout(game: Game, **options: bool) -> Callable[[random.Random], object]:
    """The playout API a search bot calls: Deal.random_playout."""
    variant = Variant(game, **options)

    def run(rng: random.Random) -> object:
        deck = list(range(40))
        rng.shuffle(deck)
        return Deal(variant, 0, deck).random_playout(rng.random)

    return run


def naive_playout(game: Game) -> Callable[[random.Random], object]:
    seats, scopone = game.seats, game is Game.SCOPONE
    return lambda rng: naive_scopa.random_deal(seats, scopone, rng)


def rate(playout: Callable[[random.Random], object], seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    n, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            playout(rng)
        n += 20
        now = time.perf_counter()
        if now >= deadline:
            return n / (now - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    ap.add_argument("--rounds", type=int, default=5, help="measurements per engine")
    args = ap.parse_args()
    seeded_deck(0, 0)  # warm imports
    print(f"random playouts per second (full deals), median of {args.rounds} x {args.seconds}s")
    print(
        f"{'game':<10} {'naive':>9} {'step API':>9} {'speed-up':>9}"
        f" {'playout API':>12} {'speed-up':>9}"
    )
    for game in (Game.SCOPA, Game.SCOPONE, Game.SCOPA_A_SEI, Game.SCOPA_A_TRE):
        runs = {
            "naive": naive_playout(game),
            "steps": arena_steps(game),
            "playout": arena_playout(game),
        }
        rates: dict[str, list[float]] = {name: [] for name in runs}
        for r in range(args.rounds):
            for name, run in runs.items():
                rates[name].append(rate(run, args.seconds, r))
        n, st, pl = (statistics.median(rates[k]) for k in ("naive", "steps", "playout"))
        print(
            f"{game.value:<10} {n:>9,.0f} {st:>9,.0f} {st / n:>8.1f}x {pl:>12,.0f} {pl / n:>8.1f}x"
        )
    print(f"\nplayout API with regional options, median of {args.rounds} x {args.seconds}s")
    optionsets = {
        "re bello, napola, last sweep": {"re_bello": True, "napola": True, "last_sweep": True},
        "scopa d'assi (ace takes all)": {"ace_takes_all": True},
        "scopa a quindici": {"fifteen": True},
        "quindici + ordinary captures": {"fifteen": True, "fifteen_ordinary": True},
        "cirulla (its rules played here)": CIRULLA_OPTIONS,
    }
    for label, options in optionsets.items():
        for game in (Game.SCOPA, Game.SCOPONE):
            plain, regional = arena_playout(game), arena_playout(game, **options)
            pairs = [
                (rate(plain, args.seconds, r), rate(regional, args.seconds, r))
                for r in range(args.rounds)
            ]
            a = statistics.median(p for p, _ in pairs)
            b = statistics.median(q for _, q in pairs)
            print(
                f"{game.value:<10} {label:<31} {b:>9,.0f} per second, "
                f"{b / a:.2f}x the plain game's {a:,.0f}"
            )
    decks = 20_000
    times = timeit.repeat(
        lambda: seeded_deck(2**63 + 12345, 7, 0), number=decks, repeat=args.rounds
    )
    print(
        f"\nseeded deck: {min(times) / decks * 1e6:.1f} us each (best of {args.rounds} x {decks})"
    )


if __name__ == "__main__":
    main()
