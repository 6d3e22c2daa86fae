"""The seat interface: what the referee calls, whoever answers. A seat is
anything with the Seat protocol's calls and a SeatTraits value; the arena's
own derive from EngineConnection for its defaults, but need not."""

from __future__ import annotations

import trio

from arena.match.engine import Answer, Decision, Hello, Notification
from arena.match.outcome import Termination
from arena.match.settings import MatchSettings
from arena.players.strategies import greedy_strategy
from arena.rules import Game, Observation, Variant
from arena.testing import ScriptedSeat, Thinker, mocked
from arena.transport.in_process import InProcessConnection
from arena.transport.seat import Seat, SeatTraits
from arena.wire.protocol import PROTOCOL_VERSION


class Plain:
    """A seat written from the protocol alone: no base class."""

    label = "plain"
    confinement = "a test's own"
    death = None
    traits = SeatTraits()

    def __init__(self) -> None:
        self.closed = False
        self.asked = 0

    async def handshake(self, timeout: float, variant: Variant | None = None) -> Hello:
        return Hello("plain", "1", "", PROTOCOL_VERSION, games=tuple(Game))

    async def decide_timed(self, decision: Decision, timeout: float) -> tuple[Answer, None]:
        self.asked += 1
        await trio.sleep(0)
        return Answer(decision.legal_moves[-1]), None

    async def notify(self, note: Notification, timeout: float) -> None:
        return None

    def show(self, observation: Observation) -> None:
        return None

    def close(self) -> None:
        self.closed = True


def test_the_arenas_seats_and_a_plain_class_all_speak_the_protocol():
    in_process = InProcessConnection(greedy_strategy(), name="greedy")
    for seat in (in_process, ScriptedSeat(), Thinker(lambda d: 0.0), Plain()):
        assert isinstance(seat, Seat), seat
    assert in_process.traits == SeatTraits(times_itself=True)
    assert not isinstance(object(), Seat)


def test_a_seat_with_no_base_class_plays_a_whole_match():
    plain = Plain()
    report = mocked(
        [("plain", plain), ("scripted", ScriptedSeat())],
        MatchSettings(Variant(Game.SCOPA), seed=8),
    )
    assert report.result.termination is Termination.COMPLETED
    assert plain.asked == sum(d.seat == 0 for d in report.decisions) > 18
    assert not plain.closed  # a seat the caller opened is the caller's to close
