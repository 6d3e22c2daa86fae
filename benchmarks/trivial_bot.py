"""A bot that answers the first legal move without reading anything else:
the smallest possible bot cost, so the benchmark sees the arena's cost."""

import os
from typing import Any

from arena.sdk import EngineServicer, run_server
from arena.wire.v1 import engine_pb2 as epb


class FirstMove(EngineServicer):
    async def Decide(self, request: Any, context: Any) -> epb.DecisionResponse:
        return epb.DecisionResponse(move=request.legal_moves[0])


if __name__ == "__main__":
    servicer = FirstMove(lambda d: d.legal_moves[0], name="first-move", version="1")
    run_server(servicer, os.environ.get("SCOPA_BOT_LISTEN", "127.0.0.1:0"))
