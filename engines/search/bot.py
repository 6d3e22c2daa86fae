#!/usr/bin/env python3
"""search: determinized flat Monte Carlo over sampled hidden hands.

For each decision it deals the cards it has not seen at random (consistent
with everything public), and for every legal move plays the deal out many
times with the arena's own rules engine, scoring each playout by the points
its side makes minus the other side's; the move with the best mean wins.
The algorithm is arena/players/search/flat.py (also ``builtin:search``).

Time: it thinks for at most half the decision's deadline, a share of its
bank when the clock has one, and at most --think seconds (default 0.2).

    python engines/search/bot.py [--think 0.2] [--iterations N] [--listen ADDRESS]
"""

from __future__ import annotations

import sys

from arena.players.search.players import FlatPlayer, think_options, think_parser
from arena.rules import Declaring, Game, Move
from arena.sdk import Decision, serve

if __name__ == "__main__":
    options, rest = think_options("search", sys.argv[1:], exploration=False, rest=True)

    def choose(decision: Decision) -> Move | Declaring:
        # A generator seeded by the decision: the same match gives the same moves
        # (when the clock does not cut the search short), however many run at once.
        player = FlatPlayer(decision.rng("search"), options)
        move = player(decision.observation, decision.legal_moves, clock=decision.clock)
        # Cirulla: a packet that declares is always declared (3 or 10 points).
        return decision.declaring(move) if decision.declaration else move

    serve(
        choose,
        name="search",
        version="2.0",
        author="Scopa Arena",
        games=tuple(Game),
        argv=rest,
        parents=[think_parser("search", exploration=False)],
    )
    sys.exit(0)
