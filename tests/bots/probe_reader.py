#!/usr/bin/env python3
"""A colluder (tests/bots/colluder.py) that tries to tell the arena's probes
from its real decisions and answer them as it answered the real one, which
would hide its cheating from the probes' test (docs/audit.md):

    python probe_reader.py --dir DIR --read shape|repeat --guesses FILE [--listen ADDR]

--read shape: a probe is a request whose match id has another shape than the
first one it was sent (a real decision always comes first): its length,
prefix and alphabet, every hexadecimal digit counted as one kind of
character. The arena gives real matches and probes one shape, so this fails.
--read repeat: a probe is a request it has answered before, byte for byte
but for the match id. That is what a probe is; only the log audit sees
through it.

It writes one line per request to FILE, "ID probe" or "ID real": its guess.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from colluder import Colluder  # the sibling script: run as tests/bots/probe_reader.py

from arena.rules import Move
from arena.sdk import Decision, EngineServicer, run_server


def shape(match_id: str) -> str:
    """The id with every hexadecimal digit one kind: what its length,
    prefix and alphabet show of it."""
    return re.sub("[0-9a-f]", "h", match_id)


class ProbeReader(Colluder):
    def __init__(self, folder: Path, read: str, guesses: Path) -> None:
        super().__init__(folder, stochastic=False, samples=48)
        self.read = read
        self.guesses = guesses
        self.real_shape: str | None = None
        self.answered: dict[tuple[object, ...], Move] = {}

    def __call__(self, d: Decision) -> Move:
        # The request but for its match id.
        request = (d.observation, tuple(d.legal_moves), d.deal_number, d.decision, d.time_limit)
        self.real_shape = self.real_shape or shape(d.match_id)
        if self.read == "shape":
            probe = shape(d.match_id) != self.real_shape
        else:
            probe = request in self.answered
        with self.guesses.open("a") as out:
            out.write(f"{d.match_id} {'probe' if probe else 'real'}\n")
        if probe and request in self.answered:
            return self.answered[request]  # as it answered the real one: no disagreement
        move = super().__call__(d)
        self.answered[request] = move
        return move


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, type=Path, help="the folder partners share")
    parser.add_argument("--read", required=True, choices=["shape", "repeat"])
    parser.add_argument("--guesses", required=True, type=Path, help="where its guesses go")
    parser.add_argument("--listen", default=os.environ.get("SCOPA_BOT_LISTEN", "127.0.0.1:0"))
    args, _ = parser.parse_known_args()
    chooser = ProbeReader(args.dir, args.read, args.guesses)
    run_server(EngineServicer(chooser, name=f"probe-reader-{args.read}", version="1"), args.listen)


if __name__ == "__main__":
    main()
