#!/usr/bin/env python3
"""A Cirulla bot for the referee's tests of declarations (Variant.declarations).

    python declarer.py --mode MODE

It plays the first legal move and, by MODE:
  always   declares whenever a declaration is open (decision.declaration)
  never    never declares
  false    claims a decino with the first play of every packet, whatever it holds
  wrong    declares the declaration that is not open (a decino for a cirulla, and back)
"""

from __future__ import annotations

import argparse

from arena.rules import Declaring, Move
from arena.rules.declarations import CIRULLA, DECINO
from arena.sdk import Decision, serve

parser = argparse.ArgumentParser()
parser.add_argument("--mode", choices=["always", "never", "false", "wrong"], required=True)
args, rest = parser.parse_known_args()


def choose(decision: Decision) -> Move | Declaring:
    move = decision.legal_moves[0]
    open_kind = decision.declaration
    if args.mode == "always" and open_kind:
        return decision.declaring(move)
    if args.mode == "false" and decision.observation.hand.bit_count() == 3:
        return Declaring(move[0], move[1], DECINO)
    if args.mode == "wrong" and open_kind:
        return Declaring(move[0], move[1], CIRULLA if open_kind == DECINO else DECINO)
    return move


if __name__ == "__main__":
    serve(choose, name=f"declarer-{args.mode}", version="1.0", argv=rest)
