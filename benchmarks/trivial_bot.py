"""A bot that answers the first legal move without reading anything else:
the smallest possible bot cost, so the benchmark sees the arena's cost.

    python trivial_bot.py [--no-play]

``--no-play`` answers the Play stream with UNIMPLEMENTED, so the arena calls
Decide for every decision: the two transports compared on the same bot."""

import os
import sys
from typing import Any

import grpc

from arena.sdk import EngineServicer, run_server
from arena.wire.v1 import engine_pb2 as epb


class FirstMove(EngineServicer):
    async def Decide(self, request: Any, context: Any) -> epb.DecisionResponse:
        return epb.DecisionResponse(move=request.legal_moves[0])

    async def Play(self, requests: Any, context: Any) -> Any:
        async for request in requests:
            yield epb.DecisionResponse(move=request.legal_moves[0])


class DecideOnly(FirstMove):
    async def Play(self, requests: Any, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Play is not served")
        yield  # an async generator, as the stream handler must be


if __name__ == "__main__":
    kind = DecideOnly if "--no-play" in sys.argv[1:] else FirstMove
    servicer = kind(lambda d: d.legal_moves[0], name="first-move", version="1")
    run_server(servicer, os.environ.get("SCOPA_BOT_LISTEN", "127.0.0.1:0"))
