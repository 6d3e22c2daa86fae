#!/usr/bin/env python3
"""A bot that writes the exact bytes of every DecisionRequest it receives to a
file (each preceded by its length as 4 bytes, big-endian), then plays the
first legal move. For the hidden-information tests.

    python spy.py --record FILE
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
    parser.add_argument("--listen", default=os.environ.get("SCOPA_BOT_LISTEN", "127.0.0.1:0"))
    args, _ = parser.parse_known_args()
    original = grpc.unary_unary_rpc_method_handler

    def recording_handler(
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

    grpc.unary_unary_rpc_method_handler = recording_handler
    servicer = EngineServicer(lambda d: d.legal_moves[0], name="spy", version="0")
    run_server(servicer, args.listen)


if __name__ == "__main__":
    main()
