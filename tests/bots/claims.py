#!/usr/bin/env python3
"""A bot whose handshake offers the games it is told to, for the tests of
what a bot claims to play.

    python claims.py [--games scopa,scopone] [--options napola,...] [--crash-in GAME]
        [--chatter N] [SDK options]

``--games``: the games its handshake lists (none: every game).
``--options``: the Variant options it lists (absent: every option; "none": none).
``--crash-in GAME``: it exits (code 4) when first asked to move in GAME,
printing why on stderr; in every other game it plays the first legal move.
``--chatter N``: it prints N numbered lines on stderr before it serves.
``--echo-variant``: its handshake's author is the variant the arena's handshake
named (Variant.describe), or "no variant".
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from arena.rules import Game, Move
from arena.sdk import LISTEN_ENV, Decision, EngineServicer, run_server, serve
from arena.wire import convert
from arena.wire.v1 import engine_pb2 as epb


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", default="")
    parser.add_argument("--options", default=None)
    parser.add_argument("--crash-in", default=None)
    parser.add_argument("--chatter", type=int, default=0)
    parser.add_argument("--echo-variant", action="store_true")
    args, rest = parser.parse_known_args()
    for n in range(1, args.chatter + 1):
        print(f"chatter line {n}", file=sys.stderr, flush=True)
    games = [Game(g) for g in args.games.split(",") if g]
    options = None
    if args.options is not None:
        options = [o for o in args.options.split(",") if o and o != "none"]

    def choose(decision: Decision) -> Move:
        game = decision.observation.variant.game.value
        if game == args.crash_in:
            print(f"crashing on purpose: asked to move in {game}", file=sys.stderr, flush=True)
            os._exit(4)
        return decision.legal_moves[0]

    if not args.echo_variant:
        serve(choose, name="claims", version="1", games=games, options=options, argv=rest)
        return

    class Echo(EngineServicer):
        async def Handshake(self, request: Any, context: Any) -> epb.HandshakeResponse:
            said = "no variant"
            if request.HasField("variant"):
                said = convert.variant_from_pb(request.variant).describe()
            answer = epb.HandshakeResponse()
            answer.CopyFrom(self.info)
            answer.author = said
            return answer

    where = argparse.ArgumentParser()
    where.add_argument("--listen", default=os.environ.get(LISTEN_ENV, "127.0.0.1:0"))
    listen = where.parse_known_args(rest)[0].listen
    run_server(Echo(choose, name="claims", games=games, options=options), listen)


if __name__ == "__main__":
    main()
