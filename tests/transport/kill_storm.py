"""Kill the arena with SIGKILL while it is starting bots, many times, and count
the bot processes that outlive it (each carries a tag on its command line).

Two roles. ``launch``: an arena-like process that starts bots (through
arena.transport.process.launch, sandboxed or not) in a loop, several at once,
each given a random start-up timeout so that every phase of a launch
(spawning, the sandbox's setup, its teardown) is often in flight. ``storm``:
starts such processes, SIGKILLs each at a random instant, and reports every
tagged process still alive a few seconds later.

    python -m tests.transport.kill_storm storm --rounds 40 --sandbox on
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import subprocess
import sys
import time
import uuid

from tests.support.paths import ROOT
from tests.support.processes import live

# A bot that never says it is listening: each launch ends in a STALL after its
# (short, random) start-up timeout, then the next one starts.
SLEEPER = "import time; time.sleep(60)"


def launcher(tag: str, sandbox: str, parallel: int) -> None:
    import trio

    from arena.errors import BotError
    from arena.match.settings import SandboxMode, SandboxSettings
    from arena.transport.process import launch

    settings = SandboxSettings(SandboxMode(sandbox))
    rng = random.Random()

    async def loop() -> None:
        while True:
            try:
                async with launch(
                    [sys.executable, "-c", SLEEPER, tag],
                    label="sleeper",
                    startup_timeout=rng.uniform(0.01, 0.3),
                    sandbox=settings,
                ):
                    pass
            except* BotError:  # the start-up timeout: the expected end of each launch
                pass

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for _ in range(parallel):
                nursery.start_soon(loop)

    trio.run(main)


def storm(
    rounds: int,
    sandbox: str,
    *,
    at_once: int = 4,
    parallel: int = 4,
    after: tuple[float, float] = (0.3, 1.5),
    grace: float = 3.0,
    tag: str | None = None,
    verbose: bool = False,
) -> dict[int, str]:
    """Run ``rounds`` launchers, ``at_once`` at a time, each SIGKILLed a random
    ``after`` seconds from its start; the tagged processes alive ``grace``
    seconds after the last kill (all of them killed before returning)."""
    tag = tag or f"--tag=storm{uuid.uuid4().hex[:12]}"
    rng = random.Random()
    survivors: dict[int, str] = {}
    command = [sys.executable, "-m", "tests.transport.kill_storm", "launch", f"--tag={tag}"]
    command += ["--sandbox", sandbox, "--parallel", str(parallel)]
    left = rounds
    while left:
        batch = min(at_once, left)
        left -= batch
        procs = [
            (subprocess.Popen(command, cwd=ROOT), time.monotonic() + rng.uniform(*after))
            for _ in range(batch)
        ]
        for proc, when in sorted(procs, key=lambda p: p[1]):
            time.sleep(max(0.0, when - time.monotonic()))
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
    deadline = time.monotonic() + grace
    while (found := live(tag)) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors.update(found)
    for pid in survivors:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if verbose:
        for pid, cmdline in sorted(survivors.items()):
            print(f"survivor {pid}: {cmdline}")
    return survivors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("role", choices=["launch", "storm"])
    parser.add_argument("--tag")
    parser.add_argument("--sandbox", default="on", choices=["on", "off"])
    parser.add_argument("--parallel", type=int, default=4, help="launches in flight per arena")
    parser.add_argument("--rounds", type=int, default=20, help="arenas killed")
    parser.add_argument("--at-once", type=int, default=4, help="arenas alive at a time")
    parser.add_argument(
        "--after", type=float, nargs=2, default=(0.3, 1.5), help="kill between MIN and MAX s"
    )
    args = parser.parse_args()
    if args.role == "launch":
        launcher(args.tag, args.sandbox, args.parallel)
        return
    survivors = storm(
        args.rounds,
        args.sandbox,
        at_once=args.at_once,
        after=tuple(args.after),
        parallel=args.parallel,
        tag=args.tag,
        verbose=True,
    )
    print(f"{args.rounds} arenas killed ({args.sandbox}): {len(survivors)} tagged survivors")


if __name__ == "__main__":
    main()
