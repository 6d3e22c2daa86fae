"""Clocks: the referee's own measurement, the cut-off, the bank and increment."""

import itertools

import pytest

from arena.outcome import FaultKind
from arena.rules import Game, Variant
from arena.settings import ClockSettings, MatchSettings
from arena.wire.v1 import engine_pb2

from .conftest import UNCONFINED, bot, play, recorded

pytestmark = pytest.mark.process


def test_a_bot_that_never_answers_is_cut_off_at_the_deadline_and_told(tag, tmp_path):
    clock = ClockSettings(move_time=0.3, grace=0.05)
    report = play(
        MatchSettings(Variant(Game.SCOPA), seed=2, clock=clock, match_id="cut"),
        [f"hang={bot('misbehave', '--mode', 'hang', '--at', '0', tag)}", "r=builtin:random"],
        output=tmp_path,
    )
    cut = report.decisions[-1]
    assert cut.fault is not None and cut.fault.kind is FaultKind.TIMEOUT
    # Cut off at deadline + grace (0.35 s), never before; the upper bound is far
    # from its usual few ms past (a `make bench` figure) yet below the default 1 s.
    assert 0.35 <= cut.think_time < 0.85, cut.think_time
    output = (tmp_path / "cut.seat0.hang.log").read_text()
    assert "decision cancelled by the arena" in output


def test_think_time_is_measured_by_the_referee(tag):
    report = play(
        MatchSettings(Variant(Game.SCOPA), seed=3, match_id="t"),
        [f"g={bot('greedy', tag)}", "r=builtin:random"],
    )
    times = [d.think_time for d in report.decisions if d.seat == 0]
    assert all(0 < t < 0.5 for t in times)


def test_bank_and_increment_are_sent_and_charged(tag, tmp_path):

    record = tmp_path / "requests.bin"
    clock = ClockSettings(move_time=1.0, bank=2.0, increment=0.5, grace=0.05)
    play(
        MatchSettings(
            Variant(Game.SCOPA, deal_limit=1, target=None),
            seed=4,
            clock=clock,
            match_id="bank",
            sandbox=UNCONFINED,
        ),
        [f"spy={bot('spy', '--record', str(record), tag)}", "r=builtin:random"],
    )
    clocks = [engine_pb2.DecisionRequest.FromString(raw).clock for raw in recorded(str(record))]
    assert len(clocks) == 18
    assert clocks[0].bank_ms == 2000 and clocks[0].deadline_ms == 1000
    assert all(c.move_time_ms == 1000 and c.increment_ms == 500 for c in clocks)
    for before, after in itertools.pairwise(clocks):
        # Each decision costs its measured time (a few ms here) and earns 500 ms.
        assert before.bank_ms < after.bank_ms <= before.bank_ms + 500


def test_an_empty_bank_is_a_timeout(tag):
    clock = ClockSettings(move_time=None, bank=0.5, grace=0.05)
    report = play(
        MatchSettings(Variant(Game.SCOPA), seed=2, clock=clock, match_id="broke"),
        [f"slow={bot('misbehave', '--mode', 'sleep', '--at', '0', tag)}", "r=builtin:random"],
    )
    (fault,) = report.result.faults
    assert fault.kind is FaultKind.TIMEOUT and "0.5s" in fault.message


def test_what_a_bot_writes_until_it_is_stopped_is_kept(tag, tmp_path):
    """A bot that prints without flushing (Python buffers a pipe) writes its
    lines when it exits, once its match is over: the arena reads its pipes to
    their end after stopping it, so none is lost."""
    report = play(
        MatchSettings(
            Variant(Game.SCOPA, deal_limit=1, target=None),
            seed=5,
            match_id="chat",
            sandbox=UNCONFINED,  # a sandboxed bot is killed at once: it has no exit to flush at
        ),
        [f"chatty={bot('chatty', tag)}", "r=builtin:random"],
        output=tmp_path,
    )
    said = (tmp_path / "chat.seat0.chatty.log").read_text().splitlines()
    decisions = [d for d in report.decisions if d.seat == 0]
    assert len(decisions) == 18
    assert said == [f"chatty: decision {d.decision}: {d.move}" for d in decisions]
