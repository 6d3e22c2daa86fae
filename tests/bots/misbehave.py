#!/usr/bin/env python3
"""A bot that misbehaves on purpose, for the referee's tests.

    python misbehave.py --mode MODE [--at N] [--tag TEXT]

It plays the first legal move until its N-th decision (0-based, counted over
the whole process), then does what MODE says:
  sleep      answer 3 s late           hang       never answer
  crash      exit at once (code 3)     illegal    a legal-form move that is not legal
  notheld    a card it does not hold   badsum     a capture that does not add up
  garbage    bytes that are no message oversized  an answer of 100 KiB
  error      raise an exception (the call fails with UNKNOWN)
  unavailable   answer the status UNAVAILABLE, and stay up
  deadline      answer the status DEADLINE_EXCEEDED at once, and stay up
  cancelled     answer the status CANCELLED, and stay up
  quit          stop serving (calls in flight cancelled), then exit with code 0
  unserve       stop serving (calls in flight cancelled), and stay alive
and, before any decision:
  never-ready   never print LISTENING    die-at-start  exit with a message
  no-handshake  serve, but never answer the handshake
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from typing import Any

import grpc

from arena.rules import Move
from arena.rules.cards import BIT, cards_of
from arena.sdk import Decision, EngineServicer, serve_async
from arena.wire.v1 import engine_pb2 as epb

args_parser = argparse.ArgumentParser()
args_parser.add_argument("--mode", required=True)
args_parser.add_argument("--at", type=int, default=0)
args_parser.add_argument("--tag", default="")
args_parser.add_argument("--listen", default=os.environ.get("SCOPA_BOT_LISTEN", "127.0.0.1:0"))
args_parser.add_argument(
    "--no-play", action="store_true", help="answer Play with UNIMPLEMENTED: every decision a Decide"
)
ARGS = args_parser.parse_args()
counter = {"n": 0}
# Statuses a live bot answers with, by mode.
STATUSES = {
    "unavailable": grpc.StatusCode.UNAVAILABLE,
    "deadline": grpc.StatusCode.DEADLINE_EXCEEDED,
    "cancelled": grpc.StatusCode.CANCELLED,
}
SERVERS: list[Any] = []  # the bot's gRPC server, for the modes that stop it


def _keep_servers() -> None:
    """Remember the server the SDK makes, so that a mode can stop it."""
    original = grpc.aio.server

    def server(*args: Any, **kwargs: Any) -> Any:
        made = original(*args, **kwargs)
        SERVERS.append(made)
        return made

    grpc.aio.server = server


async def stop_serving(then_exit: bool) -> None:
    await SERVERS[0].stop(None)
    if then_exit:
        print("misbehave: quitting on purpose", file=sys.stderr, flush=True)
        os._exit(0)


def wrong_move(d: Decision, mode: str) -> Move | None:
    hand, table = d.observation.hand, d.observation.table
    legal = set(d.legal_moves)
    if mode == "notheld":
        missing = [c for c in range(40) if not (hand | table) & BIT[c]]
        return Move(missing[0], 0)
    for c in cards_of(hand):
        options = [0] + [BIT[t] for t in cards_of(table)]
        for taken in options:
            m = Move(c, taken)
            if m in legal:
                continue
            if mode == "illegal" and taken == 0:
                return m  # lays a card that must capture
            if mode == "badsum" and taken:
                return m  # takes one card of another rank
    return None


def choose(d: Decision) -> Move:
    n = counter["n"]
    counter["n"] += 1
    mode = ARGS.mode
    if n >= ARGS.at:
        if mode == "sleep":
            time.sleep(3)
        elif mode == "hang":
            time.sleep(3600)
        elif mode == "crash":
            print("misbehave: crashing on purpose", file=sys.stderr, flush=True)
            os._exit(3)
        elif mode == "error":
            raise RuntimeError("misbehave: failing on purpose")
        elif mode in ("illegal", "notheld", "badsum"):
            wrong = wrong_move(d, mode)
            if wrong is not None:
                return wrong
            counter["n"] -= 1  # no such move here: try again at the next decision
    return d.legal_moves[0]


class Servicer(EngineServicer):
    async def Play(self, requests: Any, context: Any) -> Any:
        if ARGS.no_play:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Play is not served")
        async for answer in super().Play(requests, context):
            yield answer

    async def Handshake(self, request: Any, context: Any) -> epb.HandshakeResponse:
        if ARGS.mode == "no-handshake":
            await asyncio.sleep(3600)
        return self.info

    async def Decide(self, request: Any, context: Any) -> Any:
        if ARGS.mode in STATUSES and counter["n"] >= ARGS.at:
            await context.abort(STATUSES[ARGS.mode], f"misbehave: {ARGS.mode} on purpose")
        if ARGS.mode in ("quit", "unserve") and counter["n"] >= ARGS.at:
            asyncio.get_running_loop().create_task(stop_serving(ARGS.mode == "quit"))
            await asyncio.sleep(3600)
        if ARGS.mode == "oversized" and counter["n"] >= ARGS.at:
            response = epb.DecisionResponse(comment="x" * 100_000)
            response.move.CopyFrom(request.legal_moves[0])
            return response
        try:
            return await super().Decide(request, context)
        except asyncio.CancelledError:
            print("misbehave: decision cancelled by the arena", file=sys.stderr, flush=True)
            raise


async def main() -> None:
    if ARGS.mode == "never-ready":
        await asyncio.sleep(3600)
    if ARGS.mode == "die-at-start":
        print("misbehave: cannot load my weights", file=sys.stderr, flush=True)
        sys.exit(4)
    servicer = Servicer(choose, name=f"misbehave-{ARGS.mode}", version="0")
    if ARGS.mode == "garbage":
        # Serve Decide with a raw handler that answers bytes no parser accepts.
        original = servicer

        class Garbage(Servicer):
            async def Decide(self, request: Any, context: Any) -> Any:
                if counter["n"] >= ARGS.at:
                    return b"\xff\xff\xff\xff garbage"
                counter["n"] += 1
                return (await original.Decide(request, context)).SerializeToString()

        servicer = Garbage(choose, name="misbehave-garbage", version="0")
        _patch_raw_serializer()
    _keep_servers()
    await serve_async(servicer, ARGS.listen)
    servicer.executor.shutdown(wait=False, cancel_futures=True)


def _patch_raw_serializer() -> None:
    """Make the generated Decide and Play handlers send whatever bytes the method returns."""
    from arena.wire.v1 import engine_pb2_grpc

    def raw(original: Any) -> Any:
        def handler(
            behavior: Any, request_deserializer: Any = None, response_serializer: Any = None
        ) -> Any:
            if request_deserializer == epb.DecisionRequest.FromString:
                response_serializer = bytes
            return original(
                behavior,
                request_deserializer=request_deserializer,
                response_serializer=response_serializer,
            )

        return handler

    module = engine_pb2_grpc.grpc  # type: ignore[attr-defined]
    module.unary_unary_rpc_method_handler = raw(grpc.unary_unary_rpc_method_handler)
    module.stream_stream_rpc_method_handler = raw(grpc.stream_stream_rpc_method_handler)


if __name__ == "__main__":
    asyncio.run(main())
    os._exit(0)  # decision threads may be asleep on purpose: do not join them
