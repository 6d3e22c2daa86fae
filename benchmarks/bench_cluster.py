"""One process against a local Ray cluster, or worker processes without Ray:
matches per minute and how late a bot that never answers is cut off, at 1,
16, 64 and 256 matches at once.

    python -m benchmarks.bench_cluster [--quick] [--workers N] [--bots process|builtin]
                                       [--cluster local|processes]

Throughput: a tournament (single matches, 1 s move time) of fast bots through
the tournament runner, as `arena tournament` runs it, without and with
`--cluster local` (one worker per core): matches per minute and the timeouts
seen (every timeout of these bots is spurious). ``--bots process`` (the
default): greedy and random bot processes serving every match at their
addresses, as in bench_referee; ``builtin``: the same strategies in-process
(the arena's own work alone: what more cores can speed up); ``both`` (default).
The arena's CPU per match (this process and the workers, not bot processes)
shows the cost of the cluster apart from the machine's load: on a shared
machine, matches per minute depend on what else runs.
Cut-off: N matches at once between two seats of a bot that never answers
(200 ms move time + 50 ms grace): how far past 250 ms each is cut off.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from arena.cluster import Cluster, open_cluster
from arena.errors import FaultKind
from arena.match.outcome import MatchReport
from arena.match.settings import (
    ClockSettings,
    ClusterSettings,
    EngineSpec,
    MatchSettings,
    engine_spec,
)
from arena.play import run_match
from arena.rules import Game, Variant
from arena.tournament.config import config_from_dict
from arena.tournament.lifecycle import Run
from arena.tournament.runner import Runner
from arena.tournament.schedule import build_schedule
from benchmarks.bench_referee import start_bot, start_hanging_bot, stop_bots

ROOT = Path(__file__).resolve().parent.parent
LEVELS = (1, 16, 64, 256)


def engines(kind: str, addresses: list[str]) -> list[dict[str, str]]:
    specs = ["builtin:greedy", "builtin:random"] if kind == "builtin" else addresses
    return [{"name": "greedy", "spec": specs[0]}, {"name": "random", "spec": specs[1]}]


async def tournament(
    cluster: Cluster | None, bots: list[dict[str, str]], at_once: int, matches: int
) -> tuple[float, int, int, float]:
    """Matches per minute, timeouts, matches and the arena's CPU milliseconds per
    match (this process and the cluster's workers; not the bot processes) of one
    tournament through the runner."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = config_from_dict(
            {
                "engine": bots,
                "duplicate": False,
                "rounds": matches,  # two engines, single matches: one match a round
                "concurrency": at_once,
                "output": tmp,
                "seed": "bench",
            }
        )
        opened = Run.open(cfg)
        store, cfg = opened.store, opened.cfg
        store.schedule(build_schedule(cfg))
        runner = Runner(cfg, store, player=cluster)
        cpu = time.process_time() + (await cluster.cpu_seconds() if cluster else 0.0)
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            await runner.run(store.pending())
        elapsed = time.perf_counter() - start
        cpu = time.process_time() + (await cluster.cpu_seconds() if cluster else 0.0) - cpu
        done = len(store.finished())
        store.close()
        db = sqlite3.connect(Path(tmp) / "results.sqlite")
        # Any timeout of these bots is spurious: they answer in about a millisecond.
        timeouts = db.execute("SELECT COUNT(*) FROM faults WHERE kind = 'timeout'").fetchone()[0]
        db.close()
    return done / elapsed * 60, timeouts, done, cpu / max(done, 1) * 1000


async def cutoff(
    play: Callable[[list[EngineSpec], MatchSettings], Awaitable[MatchReport]],
    address: str,
    at_once: int,
) -> list[float]:
    """How far past deadline + grace (ms) a bot that never answers is cut off."""
    hang = [engine_spec("hang", address), engine_spec("hang2", address)]
    clock = ClockSettings(move_time=0.2, grace=0.05)
    late: list[float] = []

    async def one(i: int) -> None:
        settings = MatchSettings(Variant(Game.SCOPA), seed=i, clock=clock, match_id=f"c{i}")
        report = await play(hang, settings)
        last = report.decisions[-1]
        assert last.fault is not None and last.fault.kind is FaultKind.TIMEOUT
        late.append((last.think_time - 0.25) * 1000)

    async with trio.open_nursery() as nursery:
        for i in range(at_once):
            nursery.start_soon(one, i)
    return sorted(late)


def size(at_once: int, quick: bool) -> int:
    """Matches per measurement: enough for the level to be held for a while."""
    if quick:
        return max(8, at_once)
    return max(16, 4 * at_once) if at_once <= 64 else 2 * at_once


async def measure(args: argparse.Namespace, addresses: list[str], hang: str) -> None:
    bots = engines(args.bots, addresses)
    load_before = f"{os.getloadavg()[0]:.2f}"
    label = "local cluster" if args.cluster == "local" else "processes"
    results: dict[str, dict[int, Any]] = {"one process": {}, label: {}}
    levels = (1, 16, 64) if args.quick else LEVELS

    async def local_play(e: list[EngineSpec], s: MatchSettings) -> MatchReport:
        return await run_match(list(e), s)

    for n in levels:
        matches = size(n, args.quick)
        results["one process"][n] = (
            await tournament(None, bots, n, matches),
            await cutoff(local_play, hang, n),
        )
    settings = ClusterSettings(args.cluster, workers=args.workers)
    async with open_cluster(settings, notice=lambda text: None) as cluster:

        async def cluster_play(e: list[EngineSpec], s: MatchSettings) -> MatchReport:
            return await cluster.play(list(e), s)

        workers = len(cluster.workers)
        await tournament(cluster, bots, 4, 8)  # warm up: every worker imports the arena
        for n in levels:
            matches = size(n, args.quick)
            results[label][n] = (
                await tournament(cluster, bots, n, matches),
                await cutoff(cluster_play, hang, n),
            )
    bot_kind = "bot processes at addresses" if args.bots == "process" else "in-process strategies"
    kind = "a local Ray cluster" if args.cluster == "local" else "worker processes"
    print(
        f"one process vs {kind} ({workers} workers on this machine's "
        f"{len(os.sched_getaffinity(0))} cores); greedy vs random, {bot_kind}"
    )
    print(f"  load average before and after: {load_before} / {os.getloadavg()[0]:.2f}")
    print(
        f"  {'at once':>7} {'where':<14} {'matches/min':>11} {'timeouts':>8} {'matches':>7}"
        f" {'CPU/match':>9} {'cut-off late: median':>21} {'max':>7}"
    )
    for n in levels:
        for where, by_level in results.items():
            (mpm, timeouts, done, cpu), late = by_level[n]
            print(
                f"  {n:>7} {where:<14} {mpm:>11,.0f} {timeouts:>8} {done:>7} {cpu:>6.1f} ms"
                f" {statistics.median(late):>18.1f} ms {late[-1]:>5.1f} ms"
            )
        one, many = results["one process"][n][0][0], results[label][n][0][0]
        print(f"  {'':>7} {'more/one':<14} {many / one:>10.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1, 16 and 64 at once, fewer matches")
    ap.add_argument("--workers", type=int, default=None, help="cluster workers (default: cores)")
    ap.add_argument("--bots", choices=("process", "builtin", "both"), default="both")
    ap.add_argument(
        "--cluster",
        choices=("local", "processes"),
        default="local",
        help="a local Ray cluster, or worker processes without Ray (default: local)",
    )
    args = ap.parse_args()
    procs = [start_bot(ROOT / "engines/greedy/bot.py"), start_bot(ROOT / "engines/random/bot.py")]
    procs.append(start_hanging_bot())
    try:
        kinds = ("builtin", "process") if args.bots == "both" else (args.bots,)
        for i, kind in enumerate(kinds):
            if i:
                print()
            trio.run(
                measure,
                argparse.Namespace(**{**vars(args), "bots": kind}),
                [p[1] for p in procs[:2]],
                procs[2][1],
            )
    finally:
        stop_bots([p for p, _ in procs])


if __name__ == "__main__":
    main()
