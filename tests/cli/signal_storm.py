"""Stop the arena's long-running commands with SIGINT and SIGTERM at random
moments, hundreds of times, with CPU hogs running, and count the wrong outcomes.

    python -m tests.cli.signal_storm [--count 500] [--shapes match,web] [--sandbox auto]
    make signal-storm COUNT=500

A shape is one command: match, tournament, gauntlet, sprt, serve, web. Each
run starts it (one run in three as a shell script's background job, SIGINT
ignored), waits until it has taken its signals (/proc's SigCgt), then a
random time (from nothing: parsing, set-up, trio starting; to matches in
flight), and stops it: Ctrl-C, SIGTERM, or for a background job a SIGINT
(which must change nothing) and then a SIGTERM; in one run in three a
second signal follows at a random moment of the shutdown. The outcome is
right when the exit status is the documented one (130 after SIGINT, 143
after SIGTERM; 0 after SIGINT for serve and web), stderr has no traceback
and no abandoned trio run, no process the command started outlives it (nor
any bot it launched), every match log is whole (its end record) and
verifies, and every store keeps only finished matches. Each run of a shape
resumes the one before it (the same output, the same server data), so a
store left inconsistent would fail the next start.

The bots that hang (tests/bots/misbehave.py, tests/bots/hang_while.py for
the server's participants) keep matches in flight for as long as a run lasts.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ArenaError
from tests.support.paths import ARENA, PY, ROOT
from tests.support.processes import live
from tests.support.stops import (
    WAYS,
    Way,
    as_started,
    check_logs,
    check_stores,
    descendants,
    handles_signals,
    left_behind,
)

SHAPES = ("match", "tournament", "gauntlet", "sprt", "serve", "web")
MOVE_TIME = "120s"  # a hanging bot is never timed out within a run
# A busy process, which ends when the storm does, however it ends.
HOG = "import os, sys\nwhile os.getppid() == int(sys.argv[1]):\n    sum(range(100_000))"
# The `arena` program, which also prints its trio tasks on SIGUSR1; with
# --debug, so that an error of the arena's shows its traceback.
ARENA_DEBUG = (PY, "-m", "tests.support.dumping_arena", "--debug")
# A command still running long after its stop is sent SIGABRT: its traceback then.
DUMPING = {**os.environ, "PYTHONFAULTHANDLER": "1"}


@dataclass
class Shape:
    """One command: how to start its next run, how long the random moment
    may be after it has taken its signals, where its logs and stores are."""

    name: str
    argv: Callable[[int], list[str]]
    window: float
    output: Callable[[int], Path]
    server: bool = False


@dataclass
class Run:
    """One run's outcome: what was wrong (None: nothing), how many matches
    it ended ABORTED (none: stopped before any was under way), and whether a
    second signal came during the shutdown."""

    wrong: str | None = None
    aborted: int = 0
    twice: bool = False


@dataclass
class Tally:
    runs: int = 0
    wrong: list[str] = field(default_factory=list)
    by_way: Counter[str] = field(default_factory=Counter)
    in_flight: int = 0  # runs stopped with matches under way
    twice: int = 0
    seconds: float = 0.0


def tournament_file(directory: Path, output: Path, tag: str, sandbox: str) -> Path:
    """Three engines, six matches at once: the two without the hanging bot
    finish in the first run, the four with it stay in flight."""
    config = directory / "tournament.toml"
    config.write_text(
        f"""
name = "storm"
rounds = 1
concurrency = 6
seed = 7
output = "{output}"
[clock]
move_time = "{MOVE_TIME}"
[sandbox]
mode = "{sandbox}"
[[engine]]
name = "greedy"
spec = "builtin:greedy"
[[engine]]
name = "random"
spec = "{PY} {ROOT / "engines/random/bot.py"} {tag}"
[[engine]]
name = "hang"
spec = "{hanging(tag)}"
"""
    )
    return config


def hanging(tag: str) -> str:
    """A bot that plays four moves of each match, then never answers."""
    return f"{PY} {ROOT / 'tests/bots/misbehave.py'} --mode hang --at 4 {tag}"


def shapes(work: Path, tag: str, sandbox: str, server: Path, site: Path) -> dict[str, Shape]:
    box = ["--sandbox", sandbox]
    random_bot = f"{PY} {ROOT / 'engines/random/bot.py'} {tag}"
    timing = ["--move-time", MOVE_TIME, "--seed", "3", "--concurrency", "6"]
    config = tournament_file(work, work / "tournament", tag, sandbox)
    token = ["--organiser-token-file", str(server.parent / "organiser.token")]
    return {
        "match": Shape(
            "match",
            lambda i: [
                *(*ARENA_DEBUG, "match", "--engine", f"slow={hanging(tag)}"),
                *("--engine", f"fast={random_bot}", "--move-time", MOVE_TIME),
                *("--seed", str(i), "--log", str(work / "match" / str(i) / "m.log"), *box),
            ],
            3.0,
            lambda i: work / "match" / str(i),
        ),
        "tournament": Shape(
            "tournament",
            lambda i: [*ARENA_DEBUG, "tournament", str(config)],
            4.0,
            lambda i: config.parent,
        ),
        "gauntlet": Shape(
            "gauntlet",
            lambda i: [
                *(*ARENA_DEBUG, "gauntlet", "--engine", f"mine={hanging(tag)}"),
                *("--opponents", "random,greedy", "--sets", "1", *timing),
                *("--output", str(work / "gauntlet"), *box),
            ],
            4.0,
            lambda i: work / "gauntlet",
        ),
        "sprt": Shape(
            "sprt",
            lambda i: [
                *(*ARENA_DEBUG, "sprt", "--engine", f"test={hanging(tag)}"),
                *("--engine", "base=builtin:random", "--max-sets", "2", *timing),
                *("--output", str(work / "sprt"), *box),
            ],
            4.0,
            lambda i: work / "sprt",
        ),
        "serve": Shape(
            "serve",
            lambda i: [
                *(*ARENA_DEBUG, "serve", "--data", str(server), "--listen", "127.0.0.1:0", *token),
                *("--http", "127.0.0.1:0"),
            ],
            4.0,
            lambda i: server,
            server=True,
        ),
        "web": Shape(
            "web",
            lambda i: [*ARENA_DEBUG, "web", str(site), "--http", "127.0.0.1:0"],
            3.0,
            lambda i: site,
            server=True,
        ),
    }


def prepare_server(data: Path, tag: str) -> list[subprocess.Popen[str]]:
    """A server's data with two participants' bots (running for the whole
    storm) and two competitions: one finished (its standings are computed
    in a worker process at every start), one with a match in flight that
    every start resumes. The participants' bots."""
    from arena.wire.v1 import server_pb2 as spb
    from tests.support.server import ORGANISER, Server, auth, register, wait_for

    flag = data.parent / "hang"
    theirs = f"--tag=participant-{tag.removeprefix('--tag=')}"
    hang = [PY, str(ROOT / "tests/bots/hang_while.py"), str(flag), theirs]
    bots = [
        subprocess.Popen([*hang, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True),
        subprocess.Popen(
            [PY, str(ROOT / "engines/random/bot.py"), theirs], stdout=subprocess.PIPE, text=True
        ),
    ]
    addresses = [p.stdout.readline().split()[1] for p in bots if p.stdout]
    token_file = data.parent / "organiser.token"
    token_file.write_text(ORGANISER)
    server = Server(data, token_file)
    server.start()
    try:
        stub = server.stub()
        register(stub, "alice", "alice-hang", addresses[0])
        register(stub, "bob", "bob-random", addresses[1])
        config = f"""
name = "storm"
bots = ["alice-hang", "bob-random"]
rounds = 1
[clock]
move_time = "{MOVE_TIME}"
"""
        for _ in range(2):
            request = spb.CreateCompetitionRequest(config=config)
            comp = stub.CreateCompetition(request, metadata=auth(ORGANISER), timeout=30)
            stub.StartCompetition(
                spb.CompetitionRef(id=comp.id), metadata=auth(ORGANISER), timeout=10
            )
            if not flag.exists():
                wait_for(stub, comp.id, "finished")
                flag.touch()
    finally:
        server.stop()
    return bots


def prepare_site(directory: Path) -> Path:
    """A finished tournament's output, for `arena web`."""
    output = directory / "site"
    config = directory / "site.toml"
    config.write_text(
        f"""
name = "site"
rounds = 2
seed = 1
output = "{output}"
[[engine]]
name = "greedy"
spec = "builtin:greedy"
[[engine]]
name = "random"
spec = "builtin:random"
"""
    )
    done = subprocess.run([ARENA, "tournament", str(config)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return output


def one_run(shape: Shape, i: int, way: Way, tag: str, rng: random.Random) -> Run:
    """Start, stop, check."""
    run = Run()
    began = time.time()  # the logs this run wrote are its to answer for
    proc = subprocess.Popen(
        shape.argv(i),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_started(way),
        env=DUMPING,
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 60
        while not handles_signals(proc.pid):
            if proc.poll() is not None or time.monotonic() > deadline:
                run.wrong = f"never took its signals (exit {proc.poll()}): {_tail(proc)}"
                return run
            time.sleep(0.002)
        time.sleep(rng.uniform(0, shape.window))
        started = descendants(proc.pid)
        sends = list(way.sends)
        for n, number in enumerate(sends):
            if n:
                time.sleep(rng.uniform(0, 0.2))
            proc.send_signal(number)
        if rng.random() < 1 / 3:  # a second stop while it shuts down
            run.twice = True
            time.sleep(rng.uniform(0, 1.0))
            proc.send_signal(rng.choice([signal.SIGINT, signal.SIGTERM]))
        deadline = time.monotonic() + 60
        while proc.poll() is None:
            if time.monotonic() > deadline:
                proc.send_signal(signal.SIGUSR1)  # its trio tasks, where each waits
                time.sleep(2)
                proc.send_signal(signal.SIGABRT)  # faulthandler: every thread's traceback
                proc.wait()
                run.wrong = f"still running 60 s after {way.stopping.name}: {_tail(proc, 20000)}"
                return run
            started.update(descendants(proc.pid))
            time.sleep(0.02)
        err = proc.stderr.read() if proc.stderr else ""
        expected = way.status(shape.server)
        if proc.returncode != expected:
            run.wrong = f"exit {proc.returncode}, not {expected}: {err.strip()[-3000:]}"
            return run
        for bad in ("Traceback", "abandoned", "Exception ignored"):
            if bad in err:
                run.wrong = f"stderr: {err.strip()[-3000:]}"
                return run
        alive = left_behind(started)
        bots = live(tag)
        if alive or bots:
            run.wrong = f"alive after exit: {sorted({**alive, **bots}.values())}"
            return run
        run.aborted = check_logs(shape.output(i), since=began)
        check_stores(shape.output(i))
    except (AssertionError, ArenaError) as e:  # a log or a store that is not whole
        run.wrong = f"{type(e).__name__}: {e}"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stderr:
            proc.stderr.close()
    return run


def _tail(proc: subprocess.Popen[str], length: int = 300) -> str:
    if proc.poll() is None or proc.stderr is None:
        return ""
    return proc.stderr.read().strip()[-length:]


def storm(count: int, names: list[str], sandbox: str, hogs: int, seed: int, keep: bool) -> int:
    rng = random.Random(seed)
    tag = f"--tag=storm{uuid.uuid4().hex[:12]}"
    work = Path(tempfile.mkdtemp(prefix="signal-storm-"))
    hogging = [subprocess.Popen([PY, "-c", HOG, str(os.getpid())]) for _ in range(hogs)]
    participants: list[subprocess.Popen[str]] = []
    tallies: dict[str, Tally] = {}
    try:
        server, site = work / "server" / "data", work / "site"
        if "serve" in names:
            server.parent.mkdir()
            participants = prepare_server(server, tag)
        if "web" in names:
            site = prepare_site(work)
        table = shapes(work, tag, sandbox, server, site)
        for name in names:
            tally = tallies[name] = Tally()
            began = time.monotonic()
            for i in range(count):
                way = rng.choice(WAYS)
                run = one_run(table[name], i, way, tag, rng)
                tally.runs += 1
                tally.by_way[way.name] += 1
                tally.in_flight += run.aborted > 0
                tally.twice += run.twice
                if run.wrong is not None:
                    tally.wrong.append(f"run {i} ({way.name}): {run.wrong}")
                    print(f"{name} run {i} ({way.name}): WRONG: {run.wrong}", flush=True)
            tally.seconds = time.monotonic() - began
            ways = ", ".join(f"{k} {v}" for k, v in sorted(tally.by_way.items()))
            print(
                f"{name}: {tally.runs} runs ({ways}; {tally.twice} signalled again while "
                f"stopping; {tally.in_flight} stopped with matches in flight), "
                f"{len(tally.wrong)} wrong outcomes, "
                f"{tally.seconds / max(tally.runs, 1):.1f} s a run",
                flush=True,
            )
    finally:
        for proc in [*hogging, *participants]:
            proc.kill()
            proc.wait()
            if proc.stdout:
                proc.stdout.close()
        for pid in live(tag):  # survivors, reported above
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    total = sum(len(t.wrong) for t in tallies.values())
    runs = sum(t.runs for t in tallies.values())
    print(f"signal storm: {runs} runs over {len(tallies)} shapes, {total} wrong outcomes")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=500, help="runs (signals) per shape")
    parser.add_argument(
        "--shapes", default=",".join(SHAPES), help=f"comma-separated, of {','.join(SHAPES)}"
    )
    parser.add_argument(
        "--sandbox", default="auto", choices=["auto", "on", "off"], help="for launched bots"
    )
    parser.add_argument("--hogs", type=int, default=2, help="busy processes running throughout")
    parser.add_argument("--seed", type=int, default=None, help="of the random moments")
    parser.add_argument("--keep", action="store_true", help="keep the runs' files")
    args = parser.parse_args()
    names = [n.strip() for n in args.shapes.split(",") if n.strip()]
    unknown = sorted(set(names) - set(SHAPES))
    if unknown:
        parser.error(f"no shape {', '.join(unknown)}; the shapes: {', '.join(SHAPES)}")
    signal.signal(signal.SIGTERM, _stopped)  # its processes are ended on the way out
    seed = random.randrange(2**32) if args.seed is None else args.seed
    print(f"signal storm: {args.count} runs per shape, seed {seed}, sandbox {args.sandbox}")
    sys.exit(1 if storm(args.count, names, args.sandbox, args.hogs, seed, args.keep) else 0)


def _stopped(number: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
