#!/usr/bin/env python3
"""A bot written to be uploaded to the server, that tests its own confinement.

    python uploaded.py [--version V] [--crash-after N] [--forbid PATH ...] [--say TEXT]

Before it serves, it looks for what a fresh sandbox must not have, and exits
with a message instead of serving when it finds any (so that its check, or
the match it was launched for, fails visibly):

- a mark left in /tmp or $HOME by an earlier process of this bot: a sandbox
  reused across matches (a duplicate deal's twin could be remembered);
- its own directory (the current one, /bot) writable;
- any ``--forbid`` path readable (the server's data, for example).

Then it leaves its marks, prints ``--say``'s text to stderr (a marker its
output can be told by) and plays the first legal move; with
``--crash-after N`` it exits (code 3) at its decision N + 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from arena.rules import Move
from arena.sdk import Decision, serve

MARK = "uploaded-bot-was-here"


def confinement_problems(forbidden: list[str]) -> list[str]:
    problems = []
    for place in (Path("/tmp"), Path.home()):
        if (place / MARK).exists():
            problems.append(f"REMEMBERED: {place / MARK} is left from an earlier process")
    try:
        (Path.cwd() / "scribble").write_text("x")
        problems.append(f"WROTE into its own directory {Path.cwd()}")
    except OSError:
        pass
    for path in forbidden:
        try:
            if os.path.isdir(path):
                os.listdir(path)
            else:
                Path(path).read_bytes()
            problems.append(f"SAW {path}")
        except OSError:
            pass
    return problems


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--version", default="1.0")
    parser.add_argument("--crash-after", type=int, default=None)
    parser.add_argument("--forbid", action="append", default=[])
    parser.add_argument("--say", default="")
    args, rest = parser.parse_known_args()
    problems = confinement_problems(args.forbid)
    if problems:
        print("; ".join(problems), file=sys.stderr, flush=True)
        sys.exit(7)
    for place in (Path("/tmp"), Path.home()):
        (place / MARK).write_text(str(os.getpid()))
    if args.say:
        print(args.say, file=sys.stderr, flush=True)
    decisions = 0

    def choose(decision: Decision) -> Move:
        nonlocal decisions
        decisions += 1
        if args.crash_after is not None and decisions > args.crash_after:
            print(f"crashing on purpose at decision {decisions}", file=sys.stderr, flush=True)
            os._exit(3)
        return decision.legal_moves[0]

    serve(choose, name="uploaded", version=args.version, argv=rest)


if __name__ == "__main__":
    main()
