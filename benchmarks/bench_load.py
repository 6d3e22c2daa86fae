"""CPU per decision at many matches at once: the arena against a bare grpc.aio
load on the same bot (issue: half the CPU per decision).

    python -m benchmarks.bench_load [--concurrency 64] [--calls 20000] [--rounds 96]
        [--launched-rounds 32] [--profile OUT] [--no-processes]

One trivial bot (benchmarks/trivial_bot.py, first legal move) listens on
loopback. Then, in turn:

1. **bare**: a client process keeps ``--concurrency`` grpc.aio Decide calls in
   flight with a mid-deal request until ``--calls`` have returned: calls per
   second, and the CPU each process spent per call (the client's from its own
   rusage, the bot's from /proc); once before the arena's runs and once
   after, and the ratios are taken to the mean of the two.
2. **arena**: ``arena tournament`` of Scopa matches between two address
   engines on that bot, ``--concurrency`` at once, ``--rounds`` duplicate
   sets, and once more with a single set. The difference of the two runs is
   the cost per decision with the start-up taken out; the start-up (what the
   single set cost beyond its decisions) is reported apart. Then the same
   two runs with ``--cluster processes`` (a worker process per core, this
   process the head): the arena's CPU is the head's and the workers'.
3. **launched**: the same tournament with launched trivial bots (sandboxed
   when the machine can), a process per seat and match, then warm
   (``keep_warm``, single matches): decisions per second, the arena's CPU and
   the bots' (with their sandboxes) per decision, and the CPU a match costs
   in all, start-up in, since that is what a host pays per match.
4. with ``--profile OUT``: the measured arena run again under py-spy (``pip
   install py-spy``), sampling the thread that holds the GIL (Python's own
   CPU; grpcio's core threads outside it are not seen); OUT gets the
   collapsed stacks, and the functions that hold the most samples (own time
   and with what they call) are printed; with launched rounds, OUT-launched
   gets the same of the run with a process per seat and match.

Figures are one run's; compare the ratios (arena over bare) within a run.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")


class CpuGroup:
    """A cgroup that counts the CPU of every process put in it and of all
    their descendants, exited ones included (cgroup v1's cpuacct, or v2's
    cpu.stat): a launched bot reaped by its sandbox, not by the arena, is in
    no rusage the benchmark can read. None of it where cgroups are not ours."""

    def __init__(self) -> None:
        self.path: Path | None = None
        for root, counter in (
            (Path("/sys/fs/cgroup/cpuacct"), "cpuacct.usage"),
            (Path("/sys/fs/cgroup"), "cpu.stat"),
        ):
            if (root / counter).exists() or (root / "cgroup.procs").exists():
                group = root / f"bench-load-{os.getpid()}"
                with contextlib.suppress(OSError):
                    group.mkdir()
                    if (group / counter).exists():
                        self.path, self.counter = group, counter
                        return
                    group.rmdir()

    def add(self, pid: int) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                (self.path / "cgroup.procs").write_text(str(pid))

    def seconds(self) -> float | None:
        if self.path is None:
            return None
        text = (self.path / self.counter).read_text()
        if self.counter == "cpuacct.usage":
            return int(text) / 1e9
        fields = dict(line.split() for line in text.splitlines())
        return int(fields["usage_usec"]) / 1e6

    def close(self) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.rmdir()


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a live process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


TRANSPORTS = {"play": [], "decide": ["--no-play"]}  # the trivial bot's options for each


def bot_command(transport: str) -> str:
    """The trivial bot's command line for ``transport``."""
    return " ".join(
        [sys.executable, str(ROOT / "benchmarks/trivial_bot.py"), *TRANSPORTS[transport]]
    )


def start_bot(transport: str = "play") -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "benchmarks/trivial_bot.py"), *TRANSPORTS[transport]],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().split()[1]


# 1. The bare load ---------------------------------------------------------------


def bare_client(address: str, concurrency: int, calls: int) -> None:
    """Run in a child process: the load, then one line "CALLS SECONDS CPU"."""
    import grpc

    from arena.wire.v1 import engine_pb2 as epb
    from arena.wire.v1 import engine_pb2_grpc
    from benchmarks.bench_referee import sample_request

    request = epb.DecisionRequest.FromString(sample_request())

    async def load() -> tuple[float, float]:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = engine_pb2_grpc.EngineStub(channel)
            for _ in range(200):
                await stub.Decide(request)
            left = calls
            cpu = resource.getrusage(resource.RUSAGE_SELF)
            start = time.perf_counter()

            async def worker() -> None:
                nonlocal left
                while left > 0:
                    left -= 1
                    await stub.Decide(request)

            await asyncio.gather(*(worker() for _ in range(concurrency)))
            wall = time.perf_counter() - start
            end = resource.getrusage(resource.RUSAGE_SELF)
            used = end.ru_utime - cpu.ru_utime + end.ru_stime - cpu.ru_stime
            return wall, used

    wall, used = asyncio.run(load())
    print(calls, wall, used, flush=True)


def bare(address: str, bot_pid: int, concurrency: int, calls: int) -> dict[str, float]:
    before = process_cpu(bot_pid)
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_load", "--bare-client", address],
        env={**os.environ, "LOAD_CONCURRENCY": str(concurrency), "LOAD_CALLS": str(calls)},
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    bot = process_cpu(bot_pid) - before
    n, wall, used = (float(x) for x in out.stdout.split())
    return {"per_s": n / wall, "cpu_us": used / n * 1e6, "bot_us": bot / n * 1e6}


# 2. The arena's tournament --------------------------------------------------------


def tournament_file(
    path: Path, spec: str, concurrency: int, rounds: int, warm: bool = False
) -> Path:
    """A Scopa tournament between two engines of the same ``spec``: an
    address, or a command line the arena launches (``warm``: one process per
    engine serves every match; else a process per seat and match)."""
    path.mkdir(parents=True, exist_ok=True)
    config = path / "load.toml"
    # keep_warm plays the two matches of a duplicate set with one process: off.
    sets = "duplicate = false\n" if warm else "acknowledge_remote_twins = true\n"
    config.write_text(
        f'name = "load"\nrounds = {rounds}\nconcurrency = {concurrency}\n'
        f'seed = "load"\n{sets}output = "{path / "out"}"\n'
        + ("keep_warm = true\n" if warm else "")
        + f'[[engine]]\nname = "a"\nspec = "{spec}"\n'
        f'[[engine]]\nname = "b"\nspec = "{spec}"\n'
        '[clock]\nmove_time = "5s"\n'
    )
    return config


def match_logs(output: Path) -> list[Path]:
    """The match logs of a tournament's output (launched bots' own logs aside)."""
    return [p for p in output.rglob("*.log") if "bots" not in p.relative_to(output).parts]


def decisions_in(output: Path) -> int:
    from arena.logs.record import read_log

    total = 0
    for log in match_logs(output):
        total += sum(r.WhichOneof("record") == "decision" for r in read_log(log).records)
    return total


def arena_run(
    address: str,
    bot_pid: int | None,
    concurrency: int,
    rounds: int,
    wrap: list[str] | None = None,
    warm: bool = False,
    cluster: str = "",
) -> dict[str, float]:
    """One ``arena tournament``: its decisions, wall time and CPU. With a
    launched bot (``bot_pid`` None) the arena's own CPU is read from /proc
    while it runs (every 20 ms; the last reading stands for the end) and
    its children's, the bots and their sandboxes, the rest of what a cgroup
    of the run counted (of wait4's rusage where no cgroup could be made)."""
    with tempfile.TemporaryDirectory() as tmp:
        config = tournament_file(Path(tmp), address, concurrency, rounds, warm)
        command = [str(Path(sys.executable).parent / "arena"), "tournament", str(config)]
        if cluster:  # its workers are the arena's children: in its rusage once reaped
            command += ["--cluster", cluster]
        errors = Path(tmp) / "stderr.txt"
        before = process_cpu(bot_pid) if bot_pid is not None else 0.0
        start = time.perf_counter()
        own = 0.0
        group = CpuGroup() if bot_pid is None else None
        with errors.open("wb") as err:
            child = subprocess.Popen(
                [*(wrap or []), *command], stdout=subprocess.DEVNULL, stderr=err
            )
            if group is not None:
                group.add(child.pid)
            while bot_pid is None:
                done, status, usage = os.wait4(child.pid, os.WNOHANG)
                if done:
                    break
                with contextlib.suppress(OSError, IndexError):
                    own = process_cpu(child.pid)
                time.sleep(0.02)
            else:
                _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        if status != 0:
            raise SystemExit(f"arena tournament failed: {errors.read_text()[-2000:]}")
        total = usage.ru_utime + usage.ru_stime  # with the children it waited for
        if group is not None:
            total = group.seconds() or total
            group.close()
        if bot_pid is not None:
            cpu, bot = total, process_cpu(bot_pid) - before
        else:
            cpu, bot = own, total - own
        return {
            "decisions": decisions_in(Path(tmp) / "out"),
            "matches": len(match_logs(Path(tmp) / "out")),
            "wall": wall,
            "cpu": cpu,
            "bot": bot,
        }


def launched(concurrency: int, rounds: int, warm: bool, transport: str) -> dict[str, float]:
    """Launched trivial bots (sandboxed when the machine can), a process per
    seat and match or ``warm``: the figures per decision and per match, the
    start-up in them (it is what a host pays)."""
    command = bot_command(transport)
    # A warm run plays single matches, not duplicate sets of two: twice the rounds.
    r = arena_run(command, None, concurrency, rounds * 2 if warm else rounds, warm=warm)
    n, m = r["decisions"], r["matches"]
    return {
        "per_s": n / r["wall"],
        "cpu_us": r["cpu"] / n * 1e6,
        "bot_us": r["bot"] / n * 1e6,
        "match_ms": (r["cpu"] + r["bot"]) / m * 1e3,
        "matches": m,
    }


# 3. The profile -------------------------------------------------------------------


def summarize_profile(collapsed: Path, top: int = 18) -> list[str]:
    """The functions holding the most samples: on top of the stack (own) and anywhere in it."""
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in collapsed.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        n = int(count)
        frames = stack.split(";")[1:]  # the first is the thread
        total += n
        if frames:
            own[_short(frames[-1])] += n
        for name in {_short(f) for f in frames}:
            inclusive[name] += n
    lines = [f"  {total} samples; own time (the function on top of the stack):"]
    lines += [f"    {n / total:6.1%}  {name}" for name, n in own.most_common(top)]
    lines.append("  with what they call:")
    lines += [f"    {n / total:6.1%}  {name}" for name, n in inclusive.most_common(top)]
    return lines


def _short(frame: str) -> str:
    """``func (path/to/file.py:12)`` as ``func (file.py)``."""
    name, _, where = frame.partition(" (")
    return f"{name} ({Path(where.split(':')[0]).name})" if where else name


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--bare-client":
        concurrency, calls = int(os.environ["LOAD_CONCURRENCY"]), int(os.environ["LOAD_CALLS"])
        return bare_client(sys.argv[2], concurrency, calls)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concurrency", type=int, default=64, help="calls or matches at once")
    ap.add_argument("--calls", type=int, default=20000, help="calls of the bare load")
    ap.add_argument(
        "--rounds",
        type=int,
        default=96,
        help="duplicate sets of the measured run (more than --concurrency, for that many "
        "matches at once: a set plays one match at a time)",
    )
    ap.add_argument("--profile", type=Path, default=None, help="py-spy's collapsed stacks here")
    ap.add_argument(
        "--launched-rounds",
        type=int,
        default=32,
        help="rounds of the runs with launched bots (0: none), at the same concurrency",
    )
    ap.add_argument(
        "--transports",
        default="play,decide",
        help="comma-separated, in turn: play (the bot serves the Play stream), decide "
        "(it answers Play with UNIMPLEMENTED, so every decision is a Decide call)",
    )
    ap.add_argument(
        "--processes",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also the run with --cluster processes (a worker process per core)",
    )
    args = ap.parse_args()
    transports = [t for t in args.transports.split(",") if t]
    unknown = sorted(set(transports) - set(TRANSPORTS))
    if unknown or not transports:
        ap.error(f"unknown transport {', '.join(unknown)}; known: {', '.join(TRANSPORTS)}")
    for transport in transports:
        measure(args, transport)


def start_up_apart(
    args: argparse.Namespace, address: str, bot_pid: int, cluster: str = ""
) -> tuple[float, float, float, float, dict[str, float], dict[str, float]]:
    """Rate, CPU and bot CPU a decision of the measured run with a one-set run's
    taken out (start-up and wind-down, mostly), and that start-up's CPU."""
    small = arena_run(address, bot_pid, args.concurrency, 1, cluster=cluster)
    large = arena_run(address, bot_pid, args.concurrency, args.rounds, cluster=cluster)
    extra = large["decisions"] - small["decisions"]
    cpu_us = (large["cpu"] - small["cpu"]) / extra * 1e6
    bot_us = (large["bot"] - small["bot"]) / extra * 1e6
    per_s = extra / (large["wall"] - small["wall"])
    startup = small["cpu"] - small["decisions"] * cpu_us / 1e6
    return per_s, cpu_us, bot_us, startup, small, large


def measure(args: argparse.Namespace, transport: str) -> None:
    """Every figure of the benchmark, the arena's decisions on ``transport``."""
    bot, address = start_bot(transport)
    try:
        # The bare load before and after the arena's runs, averaged: on a shared
        # machine one bare run's CPU a call moves by a fifth.
        first = bare(address, bot.pid, args.concurrency, args.calls)
        per_s, cpu_us, bot_us, startup, small, large = start_up_apart(args, address, bot.pid)
        second = bare(address, bot.pid, args.concurrency, args.calls)
        b = {key: (first[key] + second[key]) / 2 for key in first}
        print(
            f"{args.concurrency} at once, one trivial bot at {address}, {os.cpu_count()} cores; "
            f"the arena's decisions on {transport.upper()}"
        )
        rows = [
            (
                "bare grpc.aio load (Decide), before",
                first["per_s"],
                first["cpu_us"],
                first["bot_us"],
            ),
            (
                "bare grpc.aio load (Decide), after",
                second["per_s"],
                second["cpu_us"],
                second["bot_us"],
            ),
            (f"arena tournament, {transport} (start-up out)", per_s, cpu_us, bot_us),
        ]
        print(f"  {'':40} {'per second':>11} {'CPU us':>8} {'bot us':>8}")
        for label, rate, cpu, used in rows:
            print(f"  {label:40} {rate:>11,.0f} {cpu:>8.0f} {used:>8.0f}")
        print(
            f"  arena / bare (its mean): {per_s / b['per_s']:.2f}x the decisions per second, "
            f"{cpu_us / b['cpu_us']:.2f}x the CPU per decision, "
            f"{bot_us / b['bot_us']:.2f}x the bot's"
        )
        whole = large["decisions"] / large["wall"]
        print(
            f"  arena tournament, start-up in: {whole:,.0f} decisions per second, "
            f"{whole / b['per_s']:.2f}x the bare load's"
        )
        print(
            f"  start-up and wind-down, apart: {startup:.2f} s of CPU "
            f"(one set, {small['decisions']:,} decisions; the measured run {large['decisions']:,})"
        )
        if args.processes:
            p_rate, p_cpu, p_bot, p_startup, _, _ = start_up_apart(
                args, address, bot.pid, "processes"
            )
            print(
                f"  with --cluster processes ({os.cpu_count()} worker processes and the head): "
                f"{p_rate:,.0f}/s, {p_cpu:.0f} us, bot {p_bot:.0f} us: "
                f"{p_rate / b['per_s']:.2f}x the rate, {p_cpu / b['cpu_us']:.2f}x the CPU; "
                f"start-up {p_startup:.2f} s of CPU"
            )
        if args.launched_rounds:
            print(
                f"launched trivial bots on {transport}, {args.concurrency} at once, "
                f"{args.launched_rounds} rounds (start-up in; the arena's CPU from /proc, "
                "the bots' and sandboxes' the rest of the run's cgroup)"
            )
            print(f"  {'':34} {'per second':>11} {'CPU us':>8} {'bot us':>8} {'CPU a match':>12}")
            for label, warm in (("a process per seat and match", False), ("warm", True)):
                r = launched(args.concurrency, args.launched_rounds, warm, transport)
                print(
                    f"  {label:34} {r['per_s']:>11,.0f} {r['cpu_us']:>8.0f} {r['bot_us']:>8.0f}"
                    f" {r['match_ms']:>9,.0f} ms  ({r['matches']:.0f} matches)"
                )
        # OUT for the first transport, OUT-decide and so on for the others.
        profile = args.profile
        if profile is not None and transport != args.transports.split(",")[0]:
            profile = profile.with_name(f"{profile.name}-{transport}")
        if profile is not None:
            spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
            if not Path(spy).exists():
                raise SystemExit("--profile needs py-spy: pip install py-spy")
            # --gil: the samples of the thread holding the GIL, so Python's own
            # CPU; grpcio's core threads outside the GIL are not in them.
            wrap = [spy, "record", "--format", "raw", "--rate", "250", "--gil"]
            arena_run(address, bot.pid, args.concurrency, args.rounds, [*wrap, "-o", str(profile)])
            print(f"profile of the measured run ({transport}): {profile}")
            print("\n".join(summarize_profile(profile)))
            if args.launched_rounds:
                # The arena alone (py-spy follows no child): what launching,
                # watching and reaping a sandbox a seat and match add to it.
                out = profile.with_name(profile.name + "-launched")
                command = " ".join(
                    [
                        sys.executable,
                        str(ROOT / "benchmarks/trivial_bot.py"),
                        *TRANSPORTS[transport],
                    ]
                )
                rounds = args.launched_rounds
                arena_run(command, None, args.concurrency, rounds, [*wrap, "-o", str(out)])
                print(f"profile of the run with a process per seat and match: {out}")
                print("\n".join(summarize_profile(out)))
    finally:
        bot.terminate()
        bot.wait(5)


if __name__ == "__main__":
    main()
