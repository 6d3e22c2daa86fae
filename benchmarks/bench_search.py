"""How long the search engines (engines/search/bot.py, engines/ismcts/bot.py)
think when the arena tells them their move time: they aim at half, so the
rest is their margin against the machine's latency. The tests check the
budget they set by their own clock (tests/search/test_players.py); this
prints what the referee measured.

    python -m benchmarks.bench_search [--matches N] [--move-time SECONDS]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from arena.errors import FaultKind
from arena.match.settings import ClockSettings, MatchSettings
from arena.play import run_match_sync
from arena.rules import Game, Variant

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=3, help="one-deal matches, one seed each")
    ap.add_argument("--move-time", type=float, default=0.4)
    args = ap.parse_args()
    clock = ClockSettings(move_time=args.move_time, grace=args.move_time / 2)
    for engine in ("search", "ismcts"):
        measure(engine, args.matches, args.move_time, clock)


def measure(engine: str, matches: int, move_time: float, clock: ClockSettings) -> None:
    search = f"{sys.executable} {ROOT / 'engines' / engine / 'bot.py'} --think 10"
    thinking: list[float] = []
    timeouts = 0
    for seed in range(matches):
        settings = MatchSettings(
            Variant(Game.SCOPA, deal_limit=1, target=None),
            seed=seed,
            clock=clock,
            match_id=f"search-{seed}",
        )
        report = run_match_sync([f"search={search}", "greedy=builtin:greedy"], settings)
        thinking += [d.think_time for d in report.decisions if d.seat == 0]
        timeouts += sum(f.kind is FaultKind.TIMEOUT for f in report.result.faults)
    budget = move_time / 2
    print(f"{engine} engine told {move_time * 1000:.0f} ms a move ({len(thinking)} decisions)")
    print(
        f"  think time: median {statistics.median(thinking) * 1000:.0f} ms, "
        f"max {max(thinking) * 1000:.0f} ms (aims at {budget * 1000:.0f} ms)"
    )
    print(
        f"  over {budget * 600:.0f} ms (60% of its aim): "
        f"{sum(t > budget * 0.6 for t in thinking) / len(thinking):.0%}; "
        f"over what it was told: {sum(t > move_time for t in thinking)}; timeouts {timeouts}"
    )


if __name__ == "__main__":
    main()
