"""The Python SDK as a bot author uses it: a real server process."""

import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from arena.match.engine import Decision, SeatClock
from arena.match.settings import ClockSettings
from arena.rules import Game, Match, Variant
from arena.wire.convert import decision_to_pb
from arena.wire.v1 import engine_pb2 as epb
from arena.wire.v1 import engine_pb2_grpc
from tests.support.processes import ended

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.process


def start(*args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().split()
    assert line[0] == "LISTENING", line
    return proc, line[1]


def request() -> epb.DecisionRequest:
    match = Match(Variant(Game.SCOPA), seed=1)
    deal = match.start_deal()
    clock = SeatClock.of(ClockSettings(), None)
    return decision_to_pb(Decision.of(match, deal.to_move, clock, "sdk", 0))


def test_served_bot_handshakes_decides_and_serves_health():
    proc, address = start(str(ROOT / "engines/greedy/bot.py"), "--listen", "127.0.0.1:0")
    try:
        with grpc.insecure_channel(address) as channel:
            stub = engine_pb2_grpc.EngineStub(channel)
            info = stub.Handshake(epb.HandshakeRequest(protocol_version=1), timeout=5)
            assert (info.name, info.protocol_version) == ("greedy", epb.PROTOCOL_VERSION_1)
            req = request()
            answer = stub.Decide(req, timeout=5)
            assert answer.move in list(req.legal_moves)
            # Many matches at once: concurrent calls are all answered.
            futures = [stub.Decide.future(req, timeout=5) for _ in range(50)]
            assert all(f.result().move in list(req.legal_moves) for f in futures)
            from grpc_health.v1 import health_pb2, health_pb2_grpc

            health = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=5
            )
            assert health.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        proc.send_signal(signal.SIGTERM)
        assert ended(proc, 5) == 0


def test_a_bot_stuck_in_its_own_code_still_stops_on_sigterm():
    proc, address = start(str(ROOT / "tests/bots/misbehave.py"), "--mode", "hang")
    with grpc.insecure_channel(address) as channel:
        future = engine_pb2_grpc.EngineStub(channel).Decide.future(request(), timeout=0.5)
        assert future.exception() is not None  # it never answered
    proc.send_signal(signal.SIGTERM)
    # Its own code would hold it for an hour; the server's shutdown grace is
    # 0.5 s: a process still running after 30 s fails here.
    ended(proc, 30)


def test_listen_on_a_unix_socket(tmp_path):
    path = tmp_path / "bot.sock"
    proc, address = start(str(ROOT / "engines/random/bot.py"), "--listen", f"unix:{path}")
    try:
        assert address == f"unix:{path}"
        with grpc.insecure_channel(address) as channel:
            info = engine_pb2_grpc.EngineStub(channel).Handshake(epb.HandshakeRequest(), timeout=5)
            assert info.name == "random"
    finally:
        proc.terminate()
        ended(proc, 5)


def test_a_decision_carries_what_the_seat_remembers_of_the_deal():
    # The servicer's own path from request bytes to the Decision a bot sees.
    from arena.rules import observe
    from arena.sdk import EngineServicer

    match = Match(Variant(Game.SCOPONE, target=21), seed=5)
    deal = match.start_deal()
    opening = deal.table
    while not any(p.captures for p in deal.plays):
        deal.play(max(deal.legal_moves(), key=lambda m: m.captures.bit_count()))
    seat = deal.to_move
    clock = SeatClock.of(ClockSettings(), None)
    raw = decision_to_pb(Decision.of(match, seat, clock, "sdk", 1)).SerializeToString()
    servicer = EngineServicer(lambda d: d.legal_moves[0], name="t")
    obs = servicer.decision_of(epb.DecisionRequest.FromString(raw)).observation
    assert obs == observe(match, seat)
    assert obs.captured_cards == tuple(deal.piles) and any(obs.captured_cards)
    assert obs.last_capture_seat == deal.plays[-1].seat
    assert obs.opening_table == opening
    assert obs.variant.target == 21
