"""An in-process seat and a seat over gRPC are told the same things: the
in-process one gets the referee's own values, the other their messages."""

from __future__ import annotations

import concurrent.futures
import functools
import inspect
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc

from arena.match.settings import ClockSettings, MatchSettings
from arena.play import run_match_sync
from arena.players.strategies import greedy_strategy
from arena.rules import Game, Move, Observation, Variant
from arena.transport.in_process import InProcessConnection
from arena.wire import convert
from arena.wire.convert import engine_bytes as bytes_
from arena.wire.v1 import engine_pb2_grpc

Seen = list[tuple[Observation, list[Move]]]


class RecordingBot(engine_pb2_grpc.EngineServicer):
    """A gRPC bot that keeps every decision as it decodes it, and plays greedy."""

    def __init__(self) -> None:
        self.seen: Seen = []
        self.choose = greedy_strategy(random.Random(4))

    def Handshake(self, request: Any, context: Any) -> Any:
        return convert.handshake_response("recorder", "1", "")

    def Decide(self, request: Any, context: Any) -> Any:
        observation, legal = convert.decision_from_pb(request)
        self.seen.append((observation, legal))
        return convert.decision_response(self.choose(observation, legal))

    def MatchStarted(self, request: Any, context: Any) -> Any:
        return convert.ack()

    DealEnded = MatchEnded = MatchStarted


@contextmanager
def serving(servicer: RecordingBot) -> Iterator[str]:
    server = grpc.server(concurrent.futures.ThreadPoolExecutor(2))
    engine_pb2_grpc.add_EngineServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(0)


def test_in_process_and_grpc_seats_see_equal_observations():
    settings = MatchSettings(
        Variant(Game.SCOPONE), seed=9, match_id="alike", clock=ClockSettings(move_time=5)
    )
    rest = ["b=builtin:random", "c=builtin:greedy", "d=builtin:random"]
    remote = RecordingBot()
    with serving(remote) as address:
        over_grpc = run_match_sync([f"a={address}", *rest], settings)

    local: Seen = []
    choose = greedy_strategy(random.Random(4))

    def recording(observation: Observation, legal: list[Move]) -> Move:
        local.append((observation, list(legal)))
        return Move(*choose(observation, legal))

    in_process = run_match_sync([("a", InProcessConnection(recording, name="a")), *rest], settings)

    assert [d.move for d in over_grpc.decisions] == [d.move for d in in_process.decisions]
    assert len(local) == len(remote.seen) == sum(d.seat == 0 for d in in_process.decisions)
    assert local == remote.seen
    # Both saw everything a seat may know: their hand, the plays, the captures.
    assert any(observation.plays for observation, _ in local)


def test_an_in_process_match_converts_nothing(monkeypatch):
    """Nothing of an in-process match is encoded or decoded: the referee and
    the in-process connection pass plain values (without a log to write)."""
    called: list[str] = []
    patched = 0
    for module in (convert, convert.game, convert.engine, convert.log, convert.spectate, bytes_):
        for name in dir(module):
            function = getattr(module, name)
            if inspect.isfunction(function) and function.__module__.startswith(convert.__name__):
                fake = functools.partial(lambda *a, _name, **k: called.append(_name), _name=name)
                monkeypatch.setattr(module, name, fake)
                patched += 1
    assert patched > 100  # every conversion, by its package's name and its module's
    settings = MatchSettings(Variant(Game.SCOPONE), seed=3, match_id="plain")
    report = run_match_sync(
        ["a=builtin:greedy", "b=builtin:random", "c=builtin:random", "d=builtin:greedy"], settings
    )
    assert report.result.termination.has_result and len(report.decisions) > 36
    assert called == []
