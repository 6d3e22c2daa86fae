#!/usr/bin/env python3
"""A bot that writes the exact bytes of every DecisionRequest it receives to a
file (each preceded by its length as 4 bytes, big-endian), then plays the
first legal move. For the hidden-information tests.

    python spy.py --record FILE [--no-play]

It records what arrives on Decide and on the Play stream alike; ``--no-play``
answers Play with UNIMPLEMENTED, so the arena sends everything to Decide.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import grpc

from arena.sdk import EngineServicer, run_server
from arena.wire.v1 import engine_pb2 as epb


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", required=True)
    parser.add_argument("--no-play", action="store_true", help="serve Decide only")
    parser.add_argument("--listen", default=os.environ.get("SCOPA_BOT_LISTEN", "127.0.0.1:0"))
    args, _ = parser.parse_known_args()

    def recording(original: Any) -> Any:
        def handler(
            behavior: Any, request_deserializer: Any = None, response_serializer: Any = None
        ) -> Any:
            if request_deserializer == epb.DecisionRequest.FromString:

                def deserialize(raw: bytes) -> Any:
                    with open(args.record, "ab") as f:
                        f.write(len(raw).to_bytes(4, "big") + raw)
                    return epb.DecisionRequest.FromString(raw)

                request_deserializer = deserialize
            return original(
                behavior,
                request_deserializer=request_deserializer,
                response_serializer=response_serializer,
            )

        return handler

    grpc.unary_unary_rpc_method_handler = recording(grpc.unary_unary_rpc_method_handler)
    grpc.stream_stream_rpc_method_handler = recording(grpc.stream_stream_rpc_method_handler)

    class Spy(EngineServicer):
        async def Play(self, requests: Any, context: Any) -> Any:
            if args.no_play:
                await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Play is not served")
            async for answer in super().Play(requests, context):
                yield answer

    servicer = Spy(lambda d: d.legal_moves[0], name="spy", version="0")
    run_server(servicer, args.listen)


if __name__ == "__main__":
    main()
