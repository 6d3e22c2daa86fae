#!/usr/bin/env python3
"""A bot whose every string is HTML, for the web site's escaping tests.

    python hostile_bot.py [--think SECONDS] [--fail-at N] [--listen ADDR]

Its handshake name, its comments and (from its N-th decision on, 0-based,
when --fail-at is given) the message it fails with are markup: the site must
show them as text. It plays the first legal move, after --think seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

import grpc

from arena.sdk import EngineServicer, serve_async
from arena.wire import convert

NAME = '<script>alert("name")</script>'
COMMENT = "<img src=x onerror=alert('comment')>"
FAULT = "<b onmouseover=alert('fault')>boom</b>"

parser = argparse.ArgumentParser()
parser.add_argument("--think", type=float, default=0.0)
parser.add_argument("--fail-at", type=int, default=-1)
parser.add_argument("--listen", default=os.environ.get("SCOPA_BOT_LISTEN", "127.0.0.1:0"))
ARGS = parser.parse_args([])  # the defaults, for a test importing the strings
counter = {"n": 0}


class Hostile(EngineServicer):
    async def Decide(self, request: Any, context: Any) -> Any:
        n = counter["n"]
        counter["n"] += 1
        if ARGS.think:
            await asyncio.sleep(ARGS.think)
        if 0 <= ARGS.fail_at <= n:
            await context.abort(grpc.StatusCode.UNAVAILABLE, FAULT)
        _, moves = convert.decision_from_pb(request)
        response = convert.decision_response(moves[0])
        response.comment = COMMENT
        return response


if __name__ == "__main__":
    ARGS = parser.parse_args()
    bot = Hostile(lambda d: d.legal_moves[0], name=NAME, version="<i>1</i>")
    asyncio.run(serve_async(bot, ARGS.listen))
