"""Tournament throughput: matches per minute for a round robin of the example
engines (random, greedy: real processes kept warm) at 1, 4 and 16 matches at once.

    python -m benchmarks.bench_tournament [--rounds N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import trio

from arena.tournament.config import config_from_dict
from arena.tournament.lifecycle import Run

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=8, help="duplicate pairs per pairing")
    args = ap.parse_args()
    print("tournament throughput, Scopa round robin, random + greedy + random2 (warm processes)")
    print(f"  {'at once':>7} {'matches':>8} {'seconds':>8} {'matches/min':>12}")
    for concurrency in (1, 4, 16):
        with tempfile.TemporaryDirectory() as tmp:
            cfg = config_from_dict(
                {
                    "engine": [
                        {"name": "random", "spec": f"python {ROOT / 'engines/random/bot.py'}"},
                        {"name": "greedy", "spec": f"python {ROOT / 'engines/greedy/bot.py'}"},
                        {"name": "random2", "spec": f"python {ROOT / 'engines/random/bot.py'}"},
                    ],
                    "rounds": args.rounds,
                    "concurrency": concurrency,
                    "output": tmp,
                }
            )
            opened = Run.open(cfg)
            store, cfg = opened.store, opened.cfg
            import contextlib
            import io

            start = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                trio.run(opened.play)
            elapsed = time.perf_counter() - start
            done, _ = store.counts()
            store.close()
            print(f"  {concurrency:>7} {done:>8} {elapsed:>8.1f} {done / elapsed * 60:>12.0f}")


if __name__ == "__main__":
    main()
