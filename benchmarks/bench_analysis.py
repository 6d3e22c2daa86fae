"""How fast `arena analyse` goes: decisions analysed per second (wall clock
and CPU) at the default samples and more, over real Scopa and Scopone logs
(greedy against random, in-process), and the seconds per decision at the
start of a deal, where the playouts are longest (docs/analysis.md).

    python -m benchmarks.bench_analysis [--matches N] [--samples K ...]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from arena.audit.analysis import DEFAULT_SAMPLES, analyse_decision, analyse_replay
from arena.logs.replay import replay_log
from arena.match.settings import ClockSettings, MatchSettings
from arena.play import run_match_sync
from arena.rules import Game, Variant


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=2, help="matches per game, one seed each")
    ap.add_argument(
        "--samples", type=int, nargs="+", default=[DEFAULT_SAMPLES, 4 * DEFAULT_SAMPLES]
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for game in (Game.SCOPA, Game.SCOPONE):
            replays = []
            for seed in range(1, args.matches + 1):
                path = Path(tmp) / f"{game.value}-{seed}.log"
                settings = MatchSettings(
                    Variant(game),
                    seed=seed,
                    match_id=f"bench-{seed}",
                    clock=ClockSettings(move_time=5),
                )
                run_match_sync(["g=builtin:greedy", "r=builtin:random"], settings, log=path)
                replays.append(replay_log(path))
            for samples in args.samples:
                n, wall, cpu, first = 0, 0.0, 0.0, []
                for replay in replays:
                    a = analyse_replay(replay, samples=samples)
                    n, wall, cpu = n + len(a.decisions), wall + a.seconds, cpu + a.cpu_seconds
                    for deal in replay.deals[:2]:
                        step = deal.steps[0]
                        assert step.move is not None
                        obs = step.before.seen_by(step.seat).observation()
                        start = time.process_time()
                        analyse_decision(obs, step.move, deal=deal.number, index=0, samples=samples)
                        first.append(time.process_time() - start)
                print(
                    f"{game.value}, {samples} samples: {n} decisions of {len(replays)} match(es) "
                    f"in {wall:.1f} s ({n / wall:.1f} per second), {cpu:.1f} s of CPU "
                    f"({n / cpu:.1f} per CPU second); a deal's first decision "
                    f"{max(first) * 1000:.0f} ms of CPU at most"
                )


if __name__ == "__main__":
    main()
