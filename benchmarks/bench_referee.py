"""The referee's cost per decision against a bare gRPC call, and its throughput.

    python -m benchmarks.bench_referee [--matches N] [--quick]

1. Overhead: a trivial bot process (first legal move) is called (a) bare, with
   a plain grpcio stub and a realistic DecisionRequest, and (b) by the referee
   playing whole Scopa matches against it (both seats), with a match log; the
   referee's time per decision includes the rules, the observation, the
   conversion, the connection and the log. Medians over several rounds.
2. Throughput: N matches at once (N = 1, 16, 64) between two bot processes
   (greedy and random) serving every match, 1 s move time: decisions per
   second, matches per minute, and the timeouts seen.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import trio

from arena.errors import FaultKind
from arena.match.engine import Answer, Decision, Hello, Notification, SeatClock
from arena.match.settings import ClockSettings, MatchSettings
from arena.play import run_match
from arena.rules import Game, Match, Variant
from arena.transport.grpc_seat import GrpcConnection
from arena.wire.convert import decision_to_pb
from arena.wire.v1 import engine_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent


def start_bot(script: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    return proc, line[1]


def start_hanging_bot() -> tuple[subprocess.Popen[str], str]:
    """A bot that never answers a decision (tests/bots/misbehave.py), to time
    how late the arena cuts one off; the process and its address."""
    hang = subprocess.Popen(
        [sys.executable, str(ROOT / "tests/bots/misbehave.py"), "--mode", "hang"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert hang.stdout is not None
    return hang, hang.stdout.readline().split()[1]


def stop_bots(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def sample_decision() -> Decision:
    """A decision from the middle of a Scopa deal."""
    match = Match(Variant(Game.SCOPA), seed=3)
    deal = match.start_deal()
    for _ in range(9):
        deal.play(deal.legal_moves()[0])
    assert deal.to_move is not None
    return Decision.of(match, deal.to_move, SeatClock.of(ClockSettings(), None), "bench", 9)


def sample_request() -> bytes:
    """The same decision as a bot receives it."""
    return decision_to_pb(sample_decision()).SerializeToString()


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


def future_ms(address: str, n: int) -> float:
    """The call as a grpcio future, waited for by blocking on it (no trio):
    what grpcio's future machinery costs by itself."""
    from arena.wire.v1 import engine_pb2 as epb

    request = epb.DecisionRequest.FromString(sample_request())
    with grpc.insecure_channel(address, options=[("grpc.enable_http_proxy", 0)]) as channel:
        stub = engine_pb2_grpc.EngineStub(channel)
        for _ in range(50):
            stub.Decide.future(request).result()
        start = time.perf_counter()
        for _ in range(n):
            stub.Decide.future(request).result()
        return (time.perf_counter() - start) / n * 1000


def aio_ms(address: str, n: int) -> float:
    """The call with grpc.aio in a plain asyncio program: a lower bound for
    an asyncio-hosted client."""
    import asyncio

    from arena.wire.v1 import engine_pb2 as epb

    request = epb.DecisionRequest.FromString(sample_request())

    async def run() -> float:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = engine_pb2_grpc.EngineStub(channel)
            for _ in range(50):
                await stub.Decide(request)
            start = time.perf_counter()
            for _ in range(n):
                await stub.Decide(request)
            return (time.perf_counter() - start) / n * 1000

    return asyncio.run(run())


async def bridge_ms(address: str, n: int) -> float:
    """The same call through the arena's connection alone (its grpc.aio
    channel waited for from trio, and the message's conversion both ways; no
    referee work)."""
    decision = sample_decision()
    conn = GrpcConnection(address)
    await conn.wait_ready(5)
    conn.watch_health()
    for _ in range(50):
        await conn.decide(decision, 5)
    start = time.perf_counter()
    for _ in range(n):
        with trio.fail_after(5):
            await conn.decide(decision, 5)
    conn.close()
    return (time.perf_counter() - start) / n * 1000


class TimedConnection(GrpcConnection):
    """A connection that adds up the time spent in its calls: decisions (the
    connection and the bot), notifications and handshakes, so that what is left of
    a match's time is the referee's own work."""

    def __init__(self, address: str) -> None:
        super().__init__(address)
        self.spent = {"decide": 0.0, "notify": 0.0, "handshake": 0.0}
        self._notifying, self._since = 0, 0.0

    async def decide(self, decision: Decision, timeout: float) -> Answer:
        start = time.perf_counter()
        try:
            return await super().decide(decision, timeout)
        finally:
            self.spent["decide"] += time.perf_counter() - start

    async def notify(self, note: Notification, timeout: float) -> None:
        # Both seats are told at once: the wall time while any is under way counts.
        if not self._notifying:
            self._since = time.perf_counter()
        self._notifying += 1
        try:
            await super().notify(note, timeout)
        finally:
            self._notifying -= 1
            if not self._notifying:
                self.spent["notify"] += time.perf_counter() - self._since

    async def handshake(self, timeout: float, variant: Variant | None = None) -> Hello:
        start = time.perf_counter()
        try:
            return await super().handshake(timeout, variant)
        finally:
            self.spent["handshake"] += time.perf_counter() - start


@dataclass
class RefereeTimes:
    """Milliseconds per decision of whole matches, and how they divide."""

    total: float  # the match's wall time per decision
    calls: float  # in the Decide calls (the connection and the bot)
    notify: float  # in notifications (the wall time while any was under way)
    handshake: float
    own: float  # the rest: the referee's work (rules, observation, conversion, log, clock)
    decisions: int


async def open_connection(address: str) -> TimedConnection:
    conn = TimedConnection(address)
    await conn.wait_ready(5)
    conn.watch_health()
    return conn


async def referee_ms(address: str, matches: int, log_dir: Path) -> RefereeTimes:
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
    spent = conn.spent
    notify = spent["notify"]
    own = elapsed - spent["decide"] - notify - spent["handshake"]
    per = 1000 / decisions
    return RefereeTimes(
        elapsed * per,
        spent["decide"] * per,
        notify * per,
        spent["handshake"] * per,
        own * per,
        decisions,
    )


# The referee's own work per decision, by part: (label, module, class or "", function).
PARTS = (
    ("the observation", "arena.match.engine", "", "observe"),
    # The name the connection calls (bound there by its import).
    ("the request: its bytes, clock included", "arena.transport.grpc_seat", "", "decision_bytes"),
    ("the log record: built, hashed, flushed", "arena.referee", "Referee", "_record"),
    ("checking the answer", "arena.referee", "Referee", "_check_answer"),
    ("legal moves", "arena.rules.deal", "Deal", "legal_moves"),
    ("applying the move", "arena.rules.deal", "Deal", "play_unchecked"),
    ("reading the answer (by its bytes)", "arena.wire.convert", "", "answer_from_bytes"),
)


@contextlib.contextmanager
def timing_parts() -> Iterator[dict[str, float]]:
    """Seconds spent in each of PARTS while the block runs: their functions
    are wrapped with a timer, and restored after."""
    spent = dict.fromkeys((label for label, *_ in PARTS), 0.0)
    saved = []
    for label, module, cls, name in PARTS:
        owner: Any = importlib.import_module(module)
        if cls:
            owner = getattr(owner, cls)
        original = getattr(owner, name)

        def timed(*args: Any, _f: Any = original, _label: str = label, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return _f(*args, **kwargs)
            finally:
                spent[_label] += time.perf_counter() - start

        saved.append((owner, name, original))
        setattr(owner, name, timed)
    try:
        yield spent
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


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


def guest_run(*args: Any) -> Any:
    from arena.transport import aio

    return aio.run(*args)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds, for a smoke run")
    args = ap.parse_args()
    rounds = 2 if args.quick else 5
    bots = [start_bot(ROOT / "benchmarks/trivial_bot.py")]
    try:
        address = bots[0][1]
        with tempfile.TemporaryDirectory() as tmp:
            bare, bridge, times, futures, aio = [], [], [], [], []
            for _ in range(rounds):
                bare.append(bare_call_ms(address, 400))
                futures.append(future_ms(address, 400))
                aio.append(aio_ms(address, 400))
                bridge.append(trio.run(bridge_ms, address, 400))
                times.append(trio.run(referee_ms, address, 4, Path(tmp)))
        b, g = statistics.median(bare), statistics.median(bridge)
        f, a = statistics.median(futures), statistics.median(aio)

        def med(field: str) -> float:
            return float(statistics.median(getattr(t, field) for t in times))

        r, calls, own = med("total"), med("calls"), med("own")
        notify, hello = med("notify"), med("handshake")
        path = calls + own
        print(f"per-decision time, median of {rounds} rounds (trivial bot, loopback)")
        print(f"  bare grpcio unary call (sync stub)   {b:.3f} ms")
        print(f"  as a grpcio future, blocking on it   {f:.3f} ms   ({f / b:.2f}x)")
        print(f"  grpc.aio in plain asyncio            {a:.3f} ms   ({a / b:.2f}x)")
        print(f"  same call via the arena's connection {g:.3f} ms   ({g / b:.2f}x)")
        print(
            f"  referee, whole matches with log      {r:.3f} ms   ({r / b:.2f}x;"
            f" {times[0].decisions} decisions/round)"
        )
        print(f"    of which the Decide call           {calls:.3f} ms   ({calls / b:.2f}x)")
        print(f"    the referee's own work             {own:.3f} ms   ({own / b:.2f}x)")
        print(f"    notifications (deal and match)     {notify:.3f} ms   ({notify / b:.2f}x)")
        print(f"    handshakes                         {hello:.3f} ms   ({hello / b:.2f}x)")
        print(f"  a decision (call and own work)       {path:.3f} ms   ({path / b:.2f}x)")
        with tempfile.TemporaryDirectory() as tmp, timing_parts() as spent:
            # A round of its own: the timers' cost stays out of the figures above.
            timed = trio.run(referee_ms, address, 4, Path(tmp))
        print(
            "\nthe referee's own work by part, in one more round"
            f" (us per decision; the bare call is {b * 1000:.0f} us)"
        )
        for label, seconds in spent.items():
            if not seconds:  # its function was moved or renamed: PARTS is out of date
                raise SystemExit(f"bench_referee: {label!r} was never timed: update PARTS")
            print(f"  {label:<42} {seconds / timed.decisions * 1e6:6.1f} us")
        rest = timed.own * 1000 - sum(spent.values()) / timed.decisions * 1e6
        print(f"  {'the rest (records, clock, trio, per match)':<42} {rest:6.1f} us")
        bots.append(start_hanging_bot())
        print("\ncut-off of a bot that never answers (move time 200 ms + 50 ms grace)")
        # trio.run: the Play streams on the asyncio loop's own thread (library
        # callers); aio.run: trio its guest in one thread (the arena's commands).
        for concurrent in (1, 64):
            for how, run in (("trio.run", trio.run), ("aio.run", guest_run)):
                over = sorted(run(cutoff_ms, bots[-1][1], concurrent))
                print(
                    f"  {concurrent:>3} at once, {how:<8}: overshoot median"
                    f" {statistics.median(over):.1f} ms, max {over[-1]:.1f} ms"
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
