"""What the sandbox costs, and whether it ever costs a bot a timeout.

    python -m benchmarks.bench_sandbox [--quick]

1. Start-up: from launch to a ready connection, the greedy bot sandboxed
   (bubblewrap, Unix socket) and unconfined (TCP); median and p95.
2. Per decision: the same request to a ready bot through the arena's bridge,
   over the sandbox's Unix socket and over TCP, and to a TCP-only bot in the
   sandbox through the arena's relay (arena.transport.relay); median of rounds.
   The memory watchdog (arena.transport.limits): one look at a sandboxed
   greedy bot, and what it costs a core at one look per period.
3. A tournament at 64 matches at once, a fresh sandbox per match, greedy
   against random with a 1 s move time: matches per minute and TIMEOUT faults
   (every one of them would be the arena's lag charged to a bot).
4. What holding a bot's memory costs, the kernel's control groups
   (arena.transport.cgroups) against the watchdog, in turn in one run: a
   sandbox's life (launch to ready, then ended and its group removed), a
   decision, and the tournament of 3 (per match).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator

import trio

from arena.match.settings import SandboxMode, SandboxSettings
from arena.transport import cgroups, limits
from arena.transport.process import launch
from arena.transport.sandbox import WRITABLE, unavailable
from benchmarks.bench_referee import ROOT, sample_decision

GREEDY = [sys.executable, str(ROOT / "engines/greedy/bot.py")]
TCP_ONLY = [sys.executable, str(ROOT / "tests/bots/tcp_only.py")]
ON = SandboxSettings(SandboxMode.ON)
OFF = SandboxSettings(SandboxMode.OFF)


async def startup_ms(sandbox: SandboxSettings, n: int) -> list[float]:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        async with launch(GREEDY, label="greedy", sandbox=sandbox):
            times.append((time.perf_counter() - start) * 1000)
    return times


async def decision_ms(
    sandbox: SandboxSettings, n: int, rounds: int, command: list[str] = GREEDY
) -> float:
    decision = sample_decision()
    medians = []
    async with launch(command, label="bot", sandbox=sandbox) as conn:
        for _ in range(50):
            await conn.decide(decision, 5)
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(n):
                await conn.decide(decision, 5)
            medians.append((time.perf_counter() - start) / n * 1000)
    return statistics.median(medians)


async def watchdog_look_us(n: int) -> tuple[float, int]:
    """(median µs of one look over a sandboxed greedy bot, its processes): the
    look the watchdog takes while a bot is under its limit."""
    async with launch(GREEDY, label="greedy", sandbox=ON) as conn:
        address = conn.address  # unix:/proc/<sandbox's first process>/root/...
        root = int(address.split("/proc/", 1)[1].split("/", 1)[0])
        view = limits.View(root, WRITABLE)
        looks = []
        for _ in range(n):
            start = time.perf_counter()
            view.look(1 << 40)
            looks.append((time.perf_counter() - start) * 1e6)
        processes = len(view.processes())
        view.close()
    return statistics.median(looks), processes


@contextlib.contextmanager
def held_by(kind: str) -> Iterator[None]:
    """Bots' memory held by ``kind``: "kernel" (control groups) or "watchdog"."""
    previous = os.environ.get(cgroups.ENV)
    if kind == "watchdog":
        os.environ[cgroups.ENV] = "off"
    cgroups.hierarchy.cache_clear()
    try:
        yield
    finally:
        os.environ.pop(cgroups.ENV, None)
        if previous is not None:
            os.environ[cgroups.ENV] = previous
        cgroups.hierarchy.cache_clear()


async def sandbox_life_ms(n: int) -> list[float]:
    """Launch to ready, then to the sandbox ended (and its group removed)."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        async with launch(GREEDY, label="greedy", sandbox=ON):
            pass
        times.append((time.perf_counter() - start) * 1000)
    return times


def enforcement_costs(rounds: int, sets: int) -> None:
    if cgroups.available() is None:
        print(f"\nmemory held by the kernel: not measured ({cgroups.hierarchy()})")
        return
    kinds = ("kernel", "watchdog")
    life: dict[str, list[float]] = {k: [] for k in kinds}
    decision: dict[str, list[float]] = {k: [] for k in kinds}
    for _ in range(rounds):  # in turn, so that both see the same machine
        for kind in kinds:
            with held_by(kind):
                life[kind] += trio.run(sandbox_life_ms, 4)
                decision[kind].append(trio.run(decision_ms, ON, 400, 1))
    print(f"\nmemory held by the kernel (control groups) or the watchdog, {rounds} rounds in turn")
    for name, values, unit in (
        ("a sandbox's life", life, "ms"),
        ("a decision", decision, "ms"),
    ):
        kernel, watchdog = (statistics.median(values[k]) for k in kinds)
        print(
            f"  {name:<18} kernel {kernel:8.3f} {unit}   watchdog {watchdog:8.3f} {unit}   "
            f"({kernel / watchdog:.2f}x)"
        )
    per_match = {}
    for kind in kinds:
        with held_by(kind):
            done, per_minute, timeouts, _ = tournament(64, sets)
        per_match[kind] = 60_000 / per_minute
        print(
            f"  64 at once, {done} matches: {kind:<8} {per_minute:5.0f} matches/min, "
            f"{per_match[kind]:6.0f} ms a match, {timeouts} TIMEOUT faults"
        )
    ratio = per_match["kernel"] / per_match["watchdog"]
    print(f"  a match under the kernel's hold takes {ratio:.2f}x the time it takes watched")


def tournament(concurrency: int, rounds: int) -> tuple[int, float, int, int]:
    """(matches, matches per minute, TIMEOUT faults, all faults)."""
    from arena.tournament.config import config_from_dict
    from arena.tournament.lifecycle import Run

    with tempfile.TemporaryDirectory() as tmp:
        cfg = config_from_dict(
            {
                "engine": [
                    {"name": "greedy", "spec": f"python {ROOT / 'engines/greedy/bot.py'}"},
                    {"name": "random", "spec": f"python {ROOT / 'engines/random/bot.py'}"},
                ],
                "rounds": rounds,
                "concurrency": concurrency,
                "output": tmp,
                "clock": {"move_time": "1s"},
                "sandbox": {"mode": "on"},
            }
        )
        opened = Run.open(cfg)
        store, cfg = opened.store, opened.cfg
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            trio.run(opened.play)
        elapsed = time.perf_counter() - start
        done, _ = store.counts()
        kinds = store.db.execute("SELECT kind FROM faults").fetchall()
        store.close()
    timeouts = sum(1 for (kind,) in kinds if kind == "timeout")
    return done, done / elapsed * 60, timeouts, len(kinds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds, for a smoke run")
    args = ap.parse_args()
    why = unavailable()
    if why is not None:
        print(f"sandbox: not measured ({why})")
        return
    n = 5 if args.quick else 20
    print(f"bot start-up, launch to ready connection, greedy bot, {n} starts each")
    for name, sandbox in (("unconfined (TCP)", OFF), ("sandboxed (Unix socket)", ON)):
        times = sorted(trio.run(startup_ms, sandbox, n))
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        print(f"  {name:<24} median {statistics.median(times):6.1f} ms   p95 {p95:6.1f} ms")
    rounds = 3 if args.quick else 5
    print(f"\nper decision through the trio bridge, median of {rounds} rounds of 400")
    tcp = trio.run(decision_ms, OFF, 400, rounds)
    unix = trio.run(decision_ms, ON, 400, rounds)
    print(f"  TCP (unconfined)         {tcp:.3f} ms")
    print(f"  Unix socket (sandboxed)  {unix:.3f} ms   ({unix / tcp:.2f}x)")
    relayed = trio.run(decision_ms, ON, 400, rounds, TCP_ONLY)
    print(f"  TCP-only bot, relayed    {relayed:.3f} ms   ({relayed / unix:.2f}x the Unix socket)")
    look, processes = trio.run(watchdog_look_us, 200)
    share = look / 1e6 / limits.RELAXED_PERIOD
    print(
        f"\nmemory watchdog: one look at a greedy bot ({processes} processes) {look:.0f} us; "
        f"every {limits.RELAXED_PERIOD:g} s (under half its limit) that is {100 * share:.2f}% "
        f"of a core per bot, {100 * 64 * share:.0f}% at 64 bots"
    )
    sets = 32 if args.quick else 64
    print(f"\n64 matches at once, a fresh sandbox per match, 1 s move time, {2 * sets} matches")
    done, per_minute, timeouts, faults = tournament(64, sets)
    print(
        f"  {done} matches, {per_minute:.0f} matches/min, "
        f"{timeouts} TIMEOUT faults, {faults} faults in all"
    )
    enforcement_costs(3 if args.quick else 7, 16 if args.quick else 32)


if __name__ == "__main__":
    main()
