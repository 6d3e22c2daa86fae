#!/usr/bin/env python3
"""A bot for the Play stream's tests: plays the first legal move, and writes a
line to ``--record FILE`` for what it serves (``decide``, ``play``, the time
of a cancellation as ``cancelled <time.monotonic()>``).

    python stream_bot.py --mode MODE [--record FILE]

Modes:
  both          serve Decide and Play (the SDK's default)
  play-only     answer Decide with FAILED_PRECONDITION: only Play plays
  decide-only   answer Play with UNIMPLEMENTED: the arena must use Decide
  end-stream    answer the first request on Play, then end the stream (status
                OK) on the next, unanswered
  broken-play   fail on Play at once with UNKNOWN, as some server libraries do
                for a stream method they were not given (Ruby's grpc)
  hang          never answer on Play; record when the arena cancels the stream
  hang-decide   answer Play with UNIMPLEMENTED, never answer on Decide; record
                when the arena cancels the call
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from typing import Any

import grpc

from arena.sdk import EngineServicer, run_server
from arena.wire.v1 import engine_pb2 as epb

MODES = ("both", "play-only", "decide-only", "end-stream", "broken-play", "hang", "hang-decide")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=MODES, default="both")
    parser.add_argument("--record", default=None)
    parser.add_argument("--listen", default=os.environ.get("SCOPA_BOT_LISTEN", "127.0.0.1:0"))
    args, _ = parser.parse_known_args()

    def note(line: str) -> None:
        if args.record:
            with open(args.record, "a") as f:
                f.write(line + "\n")

    async def hang() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            note(f"cancelled {time.monotonic()}")
            raise

    class Streamer(EngineServicer):
        async def Decide(self, request: Any, context: Any) -> Any:
            note("decide")
            if args.mode == "hang-decide":
                await hang()
            if args.mode == "play-only":
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "Decide is not served")
            return epb.DecisionResponse(move=request.legal_moves[0])

        async def Play(self, requests: Any, context: Any) -> Any:
            if args.mode in ("decide-only", "hang-decide"):
                await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Play is not served")
            if args.mode == "broken-play":
                raise RuntimeError("Illegal arity of reply generator")
            answered = 0
            async for request in requests:
                note("play")
                if args.mode == "end-stream" and answered:
                    return
                answered += 1
                if args.mode == "hang":
                    await hang()
                yield epb.DecisionResponse(move=request.legal_moves[0])

    run_server(Streamer(lambda d: d.legal_moves[0], name=f"stream-{args.mode}"), args.listen)


if __name__ == "__main__":
    main()
