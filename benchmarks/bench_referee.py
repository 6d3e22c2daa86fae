"""The referee's cost per decision against a bare gRPC call, and its throughput.

    python -m benchmarks.bench_referee [--matches N] [--quick]

1. Overhead: a trivial bot process (first legal move) is called (a) bare, with
   a plain grpcio stub and a realistic DecisionRequest, and (b) by the referee
   playing whole Scopa matches against it (both seats), with a match log; the
   referee's time per decision includes the rules, the observation, the
   conversion, the trio bridge and the log. Medians over several rounds.
2. Throughput: N matches at once (N = 1, 16, 64) between two bot processes
   (greedy and random) serving every match, 1 s move time: decisions per
   second, matches per minute, and the timeouts seen.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import trio

from arena.outcome import FaultKind
from arena.play import run_match
from arena.rules import Game, Match, Variant
from arena.settings import ClockSettings, MatchSettings
from arena.transport.connection import GrpcConnection
from arena.wire.convert import clock_to_pb, decision_request
from arena.wire.v1 import engine_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent


def start_bot(script: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    return proc, line[1]


def stop_bots(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def sample_request() -> bytes:
    """A decision request from the middle of a Scopa deal."""
    match = Match(Variant(Game.SCOPA), seed=3)
    deal = match.start_deal()
    for _ in range(9):
        deal.play(deal.legal_moves()[0])
    clock = clock_to_pb(ClockSettings(), None)
    return decision_request(
        match, deal.to_move, deal.legal_moves(), clock, "bench", 9
    ).SerializeToString()


def bare_call_ms(address: str, n: int) -> float:
    from arena.wire.v1 import engine_pb2 as epb

    request = epb.DecisionRequest.FromString(sample_request())
    with grpc.insecure_channel(address, options=[("grpc.enable_http_proxy", 0)]) as channel:
        stub = engine_pb2_grpc.EngineStub(channel)
        for _ in range(50):
            stub.Decide(request)
        start = time.perf_counter()
        for _ in range(n):
            stub.Decide(request)
        return (time.perf_counter() - start) / n * 1000


async def bridge_ms(address: str, n: int) -> float:
    """The same call through the arena's trio bridge alone (no referee work)."""
    from arena.wire.v1 import engine_pb2 as epb

    request = epb.DecisionRequest.FromString(sample_request())
    conn = GrpcConnection(address)
    await conn.wait_ready(5)
    conn.watch_health()
    for _ in range(50):
        await conn.decide(request, 5)
    start = time.perf_counter()
    for _ in range(n):
        with trio.fail_after(5):
            await conn.decide(request, 5)
    conn.close()
    return (time.perf_counter() - start) / n * 1000


async def open_connection(address: str) -> GrpcConnection:
    conn = GrpcConnection(address)
    await conn.wait_ready(5)
    conn.watch_health()
    return conn


async def referee_ms(address: str, matches: int, log_dir: Path) -> tuple[float, int]:
    """Whole matches through run_match, on one open connection serving both seats
    (so connecting is not counted; the handshake and notifications are)."""
    conn = await open_connection(address)
    decisions, elapsed = 0, 0.0
    for i in range(matches):
        settings = MatchSettings(Variant(Game.SCOPA), seed=i, match_id=f"o{i}")
        start = time.perf_counter()
        report = await run_match([("a", conn), ("b", conn)], settings, log=log_dir / f"{i}.log")
        elapsed += time.perf_counter() - start
        decisions += len(report.decisions)
    conn.close()
    return elapsed / decisions * 1000, decisions


async def throughput(
    addresses: list[str], concurrent: int, rounds: int
) -> tuple[float, float, int, int]:
    engines = [f"greedy={addresses[0]}", f"random={addresses[1]}"]
    clock = ClockSettings(move_time=1.0)
    decisions = timeouts = done = 0

    async def one(i: int) -> None:
        nonlocal decisions, timeouts, done
        settings = MatchSettings(
            Variant(Game.SCOPA), seed=i, clock=clock, match_id=f"t{concurrent}-{i}"
        )
        report = await run_match(engines, settings)
        decisions += len(report.decisions)
        timeouts += sum(f.kind is FaultKind.TIMEOUT for f in report.result.faults)
        done += 1

    start = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for i in range(concurrent * rounds):
            if i >= concurrent:
                while done + concurrent <= i:
                    await trio.sleep(0.001)
            nursery.start_soon(one, i)
    elapsed = time.perf_counter() - start
    return decisions / elapsed, done / elapsed * 60, timeouts, done


async def cutoff_ms(address: str, concurrent: int) -> list[float]:
    """How far past deadline + grace a bot that never answers is cut off."""
    engines = [f"hang={address}", f"hang2={address}"]
    clock = ClockSettings(move_time=0.2, grace=0.05)
    overshoot: list[float] = []

    async def one(i: int) -> None:
        settings = MatchSettings(Variant(Game.SCOPA), seed=i, clock=clock, match_id=f"c{i}")
        report = await run_match(engines, settings)
        overshoot.append((report.decisions[-1].think_time - 0.25) * 1000)

    async with trio.open_nursery() as nursery:
        for i in range(concurrent):
            nursery.start_soon(one, i)
    return overshoot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds, for a smoke run")
    args = ap.parse_args()
    rounds = 2 if args.quick else 5
    bots = [start_bot(ROOT / "benchmarks/trivial_bot.py")]
    try:
        address = bots[0][1]
        with tempfile.TemporaryDirectory() as tmp:
            bare, bridge, ref = [], [], []
            for _ in range(rounds):
                bare.append(bare_call_ms(address, 400))
                bridge.append(trio.run(bridge_ms, address, 400))
                ms, n = trio.run(referee_ms, address, 4, Path(tmp))
                ref.append(ms)
        b, g, r = (statistics.median(x) for x in (bare, bridge, ref))
        print(f"per-decision time, median of {rounds} rounds (trivial bot, loopback)")
        print(f"  bare grpcio unary call (sync stub)   {b:.3f} ms")
        print(f"  same call via the trio bridge        {g:.3f} ms   ({g / b:.2f}x)")
        print(
            f"  referee, whole matches with log      {r:.3f} ms   ({r / b:.2f}x;"
            f" {n} decisions/round)"
        )
        hang = subprocess.Popen(
            [sys.executable, str(ROOT / "tests/bots/misbehave.py"), "--mode", "hang"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert hang.stdout is not None
        bots.append((hang, hang.stdout.readline().split()[1]))
        print("\ncut-off of a bot that never answers (move time 200 ms + 50 ms grace)")
        for concurrent in (1, 64):
            over = sorted(trio.run(cutoff_ms, bots[-1][1], concurrent))
            print(
                f"  {concurrent:>3} at once: overshoot median {statistics.median(over):.1f} ms,"
                f" max {over[-1]:.1f} ms"
            )
        bots += [
            start_bot(ROOT / "engines/greedy/bot.py"),
            start_bot(ROOT / "engines/random/bot.py"),
        ]
        addresses = [bots[-2][1], bots[-1][1]]
        print("\nthroughput, Scopa to 11, greedy vs random bot processes, 1 s move time")
        print(
            f"  {'at once':>7} {'decisions/s':>12} {'matches/min':>12}"
            f" {'timeouts':>9} {'matches':>8}"
        )
        for concurrent in (1, 16, 64):
            rounds_here = 4 if concurrent == 1 else 2
            dps, mpm, timeouts, done = trio.run(throughput, addresses, concurrent, rounds_here)
            print(f"  {concurrent:>7} {dps:>12,.0f} {mpm:>12,.0f} {timeouts:>9} {done:>8}")
    finally:
        stop_bots([proc for proc, _ in bots])


if __name__ == "__main__":
    main()
