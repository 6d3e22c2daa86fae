"""Spectating at scale: a real server (its gRPC service, broker and standings
cache, in this process) with 500 open WatchMatch streams, while real matches
are refereed and fanned out to them.

Prints GetCompetition and GetStandings latencies measured by a client process
while the streams are open and the events flow, and how long each event took
from the referee's publishing it to a watcher's receiving it (a second client
process holding all the streams; both clocks are the machine's monotonic one).

    python -m benchmarks.bench_streams [--streams N] [--matches N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import trio

from arena.broker import Broker
from arena.match.outcome import MatchEvent
from arena.match.settings import MatchSettings
from arena.play import run_match
from arena.players.strategies import BUILT_IN
from arena.results.store import ScheduledMatch
from arena.rules import Move, Observation
from arena.server.auth import Access, settle_organiser_token
from arena.server.competitions import CompetitionManager
from arena.server.grpc_service import ArenaServicer, WatchLimits
from arena.server.lifecycle import GrpcServer
from arena.server.storage import ServerStorage
from arena.tournament.standings_cache import StandingsCache
from arena.transport.in_process import InProcessConnection
from arena.wire.v1 import server_pb2 as spb
from arena.wire.v1 import server_pb2_grpc
from benchmarks.bench_standings import filled_results

COMP = "cbench"
CHANNELS = 5  # streams are spread over this many connections


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=500)
    ap.add_argument("--matches", type=int, default=10, help="live matches the streams watch")
    ap.add_argument("--engines", type=int, default=16)
    ap.add_argument("--results", type=int, default=1200, help="results already recorded")
    ap.add_argument("--clients", type=int, default=1, help="processes holding the streams")
    ap.add_argument("--think", type=float, default=0.1, help="seconds each bot takes a move")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trio.run(bench, Path(tmp), args)


async def bench(data: Path, args: argparse.Namespace) -> None:
    keys = [f"live{i}" for i in range(args.matches)]
    store = filled_results(data / COMP / "results.sqlite", args.engines, args.results)
    store.schedule(
        [
            ScheduledMatch(k, 10**6 + i, k, i, 0, ("engine00", "engine01"))
            for i, k in enumerate(keys)
        ]
    )
    store.close()
    storage = ServerStorage(data / "server.sqlite")
    settle_organiser_token(storage, "organiser-token-for-the-benchmark-0123")
    storage.add_competition(COMP, "bench", "", ["engine00", "engine01"])
    broker = Broker()
    standings = StandingsCache(data)
    published: dict[str, list[float]] = {f"{COMP}/{k}": [] for k in keys}
    async with trio.open_nursery() as nursery:
        manager = CompetitionManager(nursery, storage, data, broker, standings)
        servicer = ArenaServicer(
            storage,
            Access(storage),
            manager,
            broker,
            data,
            trio.lowlevel.current_trio_token(),
            standings=standings,
            watch_limits=WatchLimits(per_client=args.streams, total=args.streams),
        )
        server = await trio.to_thread.run_sync(GrpcServer.start, servicer, "127.0.0.1:0")
        address = f"127.0.0.1:{server.port}"
        # Standings computed before the clock starts: what a refresh costs is
        # bench_standings' figure.
        await trio.to_thread.run_sync(standings.get, COMP)
        try:
            # The streams' receiving end is split over processes, so that the
            # figures are the server's and not one Python client's backlog.
            share = -(-args.streams // args.clients)
            watchers = [
                await trio.lowlevel.open_process(
                    [
                        sys.executable,
                        "-m",
                        "benchmarks.bench_streams",
                        "--watch",
                        address,
                        str(min(share, args.streams - i * share)),
                        *published,
                    ],
                    stdout=subprocess.PIPE,
                )
                for i in range(args.clients)
            ]
            while broker.watching() < args.streams:
                await trio.sleep(0.05)
            opened = broker.watching()
            probe_for = str(3 + 0.3 * args.matches + 90 * args.think)
            prober = await trio.lowlevel.open_process(
                [sys.executable, "-m", "benchmarks.bench_streams", "--probe", address, probe_for],
                stdout=subprocess.PIPE,
            )
            await trio.sleep(2)  # the prober measures with the streams open and idle

            async def referee(key: str, seed: int) -> None:
                def spectate(event: MatchEvent) -> None:
                    published[key].append(time.monotonic())
                    broker.publish(key, event)

                await run_match(
                    [thinking("greedy", seed, args.think), thinking("random", seed, args.think)],
                    MatchSettings(seed=seed),
                    spectate=spectate,
                )
                broker.close(key)

            async with trio.open_nursery() as matches:
                for seed, key in enumerate(published):
                    matches.start_soon(referee, key, seed)
                    await trio.sleep(0.3)
            watched: dict[str, list[list[float]]] = {key: [] for key in published}
            for proc in watchers:
                for key, streams in json.loads(await read_all(proc)).items():
                    watched[key].extend(streams)
            probed = json.loads(await read_all(prober))
        finally:
            await trio.to_thread.run_sync(server.stop)
            standings.close()
            storage.close()
            nursery.cancel_scope.cancel()
    report(args, opened, published, watched, probed)


def thinking(strategy: str, seed: int, think: float) -> tuple[str, InProcessConnection]:
    """A built-in strategy that takes ``think`` seconds a move, as a bot would."""
    choose = BUILT_IN[strategy](random.Random(seed))

    def slow(observation: Observation, legal: list[Move]) -> tuple[int, int]:
        time.sleep(think)  # in the connection's worker thread, not on the loop
        return choose(observation, legal)

    return strategy, InProcessConnection(slow, name=strategy)


async def read_all(proc: trio.Process) -> bytes:
    assert proc.stdout is not None
    chunks = []
    while chunk := await proc.stdout.receive_some():
        chunks.append(chunk)
    await proc.wait()
    return b"".join(chunks)


def report(
    args: argparse.Namespace,
    opened: int,
    published: dict[str, list[float]],
    watched: dict[str, list[list[float]]],
    probed: dict[str, list[float]],
) -> None:
    delays: list[float] = []
    complete = 0
    for key, streams in watched.items():
        sent = published[key]
        for received in streams:
            complete += len(received) == len(sent)
            delays.extend(r - s for r, s in zip(received, sent, strict=False))
    events = sum(len(v) for v in published.values())
    ms = 1000
    print(
        f"spectating: {opened} open WatchMatch streams on {len(published)} live matches "
        f"(bots think {args.think:g} s a move; {events} events, {len(delays)} deliveries)"
    )
    print(f"  streams that got every event of their match and ended: {complete}/{opened}")
    print(
        f"  event delivery after the referee's  p50 {pct(delays, 50) * ms:6.1f} ms  "
        f"p99 {pct(delays, 99) * ms:6.1f} ms  max {max(delays) * ms:6.1f} ms"
    )
    for name in ("GetCompetition", "GetStandings"):
        lat = probed[name]
        print(
            f"  {name + f' ({len(lat)} calls)':<28}        p50 {pct(lat, 50) * ms:6.1f} ms  "
            f"p99 {pct(lat, 99) * ms:6.1f} ms  max {max(lat) * ms:6.1f} ms"
        )
    if probed["failed"]:
        print(f"  calls that failed: {int(probed['failed'][0])}")


def pct(values: list[float], p: float) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1]


# The client processes ------------------------------------------------------------


async def watch_all(address: str, n: int, keys: list[str]) -> dict[str, list[list[float]]]:
    """Open ``n`` streams spread over ``keys``; each stream's receive times."""
    channels = [
        grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(CHANNELS)
    ]
    times: dict[str, list[list[float]]] = {k: [] for k in keys}

    async def watch(i: int) -> None:
        key = keys[i % len(keys)]
        stub = server_pb2_grpc.ArenaStub(channels[i % CHANNELS])
        received: list[float] = []
        times[key].append(received)
        async for _ in stub.WatchMatch(spb.WatchRequest(id=key), timeout=300):
            received.append(time.monotonic())

    await asyncio.gather(*(watch(i) for i in range(n)))
    for channel in channels:
        await channel.close()
    return times


def probe(address: str, seconds: float) -> dict[str, list[float]]:
    """GetCompetition every 20 ms (and GetStandings every 10th time) for ``seconds``."""
    stub = server_pb2_grpc.ArenaStub(grpc.insecure_channel(address))
    ref = spb.CompetitionRef(id=COMP)
    out: dict[str, list[float]] = {"GetCompetition": [], "GetStandings": [], "failed": []}
    failed = 0
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        for name, call in (
            ("GetCompetition", stub.GetCompetition),
            ("GetStandings", stub.GetStandings),
        ):
            if name == "GetStandings" and i % 10:
                continue
            start = time.monotonic()
            try:
                call(ref, timeout=10)
            except grpc.RpcError:
                failed += 1
                continue
            out[name].append(time.monotonic() - start)
        i += 1
        time.sleep(0.02)
    out["failed"] = [float(failed)] if failed else []
    return out


if __name__ == "__main__":
    if sys.argv[1:2] == ["--watch"]:
        address, n, *keys = sys.argv[2:]
        print(json.dumps(asyncio.run(watch_all(address, int(n), keys))))
    elif sys.argv[1:2] == ["--probe"]:
        print(json.dumps(probe(sys.argv[2], float(sys.argv[3]))))
    else:
        main()
