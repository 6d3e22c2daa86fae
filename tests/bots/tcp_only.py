#!/usr/bin/env python3
"""A bot that can listen on TCP only, as grpc-java on Debian can: in the
sandbox, where $SCOPA_BOT_LISTEN is a Unix socket, it listens on
$SCOPA_BOT_LISTEN_TCP instead and prints the port it got. It plays the
best move by builtin:greedy's one-ply value.

    python tcp_only.py [--lie] [--tag=TEXT]

--lie: print a loopback port where nothing listens, and never serve.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

from arena.players.strategies import move_value
from arena.rules import Move
from arena.sdk import Decision, EngineServicer, serve_async
from arena.wire.protocol import LISTEN_ENV, LISTEN_TCP_ENV


def choose(decision: Decision) -> Move:
    return max(decision.legal_moves, key=lambda m: move_value(decision.observation, m))


def main() -> None:
    if "--lie" in sys.argv:
        print("LISTENING 127.0.0.1:9", flush=True)
        time.sleep(60)
        return
    listen = os.environ.get(LISTEN_ENV, "127.0.0.1:0")
    if listen.startswith("unix:"):
        listen = os.environ.get(LISTEN_TCP_ENV, "127.0.0.1:0")
    servicer = EngineServicer(choose, name="tcp-only", version="1")
    asyncio.run(serve_async(servicer, listen))


if __name__ == "__main__":
    main()
