"""Clocks: the referee's own measurement, the cut-off, the bank and increment.

The clock and the fault policy are checked under trio's MockClock, with
engines that think for exact times of that clock: every duration asserted
here is exact, whatever the machine's load. The tests with real bot
processes check what only a process shows (it is told of a cut-off, the
clock it is sent) and assert no duration.
"""

from __future__ import annotations

import itertools
import math

import pytest

from arena.errors import FaultKind
from arena.match.engine import Decision
from arena.match.outcome import Termination
from arena.match.settings import ClockSettings, FaultPolicy, MatchSettings, OnFault
from arena.rules import Game, Variant
from arena.testing import Thinker, mocked
from arena.wire.v1 import engine_pb2
from tests.support.bots import UNCONFINED, bot, recorded
from tests.support.matches import play

# One deal of Scopa: 36 decisions, 18 a seat.
ONE_DEAL = Variant(Game.SCOPA, deal_limit=1, target=None)


def at_once(decision: Decision) -> float:
    return 0.0


def test_a_bot_that_never_answers_is_cut_off_at_the_deadline_plus_grace():
    hang = Thinker(lambda d: math.inf)
    clock = ClockSettings(move_time=0.3, grace=0.05)
    report = mocked(
        [("hang", hang), ("fast", Thinker(at_once))],
        MatchSettings(Variant(Game.SCOPA), seed=2, clock=clock, match_id="cut"),
    )
    cut = report.decisions[-1]
    assert cut.fault is not None and cut.fault.kind is FaultKind.TIMEOUT
    assert cut.fault.message == "no answer within 0.3s"
    # Cut off at deadline + grace: never before, never after.
    assert cut.think_time == pytest.approx(0.35, abs=1e-9)
    assert [n for n, _ in hang.cancelled] == [cut.decision]
    assert hang.cancelled[0][1] == pytest.approx(0.35, abs=1e-9)


@pytest.mark.process
def test_a_bot_that_never_answers_is_told_it_was_cut_off(tag, tmp_path):
    clock = ClockSettings(move_time=0.3, grace=0.05)
    report = play(
        MatchSettings(Variant(Game.SCOPA), seed=2, clock=clock, match_id="cut"),
        [f"hang={bot('misbehave', '--mode', 'hang', '--at', '0', tag)}", "r=builtin:random"],
        output=tmp_path,
    )
    cut = report.decisions[-1]
    assert cut.fault is not None and cut.fault.kind is FaultKind.TIMEOUT
    output = (tmp_path / "cut.seat0.hang.log").read_text()
    assert "decision cancelled by the arena" in output


def test_think_time_is_measured_by_the_referee():
    thinks = [0.25, 0.1, 0.4]
    slow = Thinker(lambda d: thinks[d.number // 2 % 3])
    report = mocked(
        [("slow", slow), ("fast", Thinker(at_once))],
        MatchSettings(ONE_DEAL, seed=3, match_id="t"),
    )
    mine = [d for d in report.decisions if d.seat == 0]
    assert len(mine) == 18 and not report.result.faults
    for d in mine:
        assert d.think_time == pytest.approx(thinks[d.decision // 2 % 3], abs=1e-9)
    assert all(d.think_time == 0 for d in report.decisions if d.seat == 1)


def test_bank_and_increment_are_told_and_charged():
    clock = ClockSettings(move_time=1.0, bank=1.2, increment=0.5, grace=0.05)
    thinker = Thinker(lambda d: 0.52)
    report = mocked(
        [("spent", thinker), ("fast", Thinker(at_once))],
        MatchSettings(ONE_DEAL, seed=4, clock=clock, match_id="bank"),
    )
    told = [d.clock for d in thinker.seen]
    assert len(told) == 18 and not report.result.faults
    assert all(c.move_time == 1.0 and c.increment == 0.5 for c in told)
    # Each decision costs 0.52 s and earns 0.5 s: 1.2, 1.18, 1.16, ... left,
    # and once under the move time the bank is the deadline.
    for i, c in enumerate(told):
        assert c.bank == pytest.approx(1.2 - 0.02 * i, abs=1e-9)
        assert c.deadline == pytest.approx(min(1.0, c.bank), abs=1e-9)
    assert told[-1].deadline < 1.0
    # The log keeps what each seat was told and what its bank is after.
    mine = [d for d in report.decisions if d.seat == 0]
    for c, d, after in zip(told, mine, [*told[1:], None], strict=True):
        assert d.deadline == c.deadline
        assert d.bank_left == pytest.approx(c.bank - 0.52 + 0.5, abs=1e-9)
        if after is not None:
            assert after.bank == d.bank_left


@pytest.mark.process
def test_bank_and_increment_are_sent_to_a_bot(tag, tmp_path):
    record = tmp_path / "requests.bin"
    clock = ClockSettings(move_time=1.0, bank=2.0, increment=0.5, grace=0.05)
    report = play(
        MatchSettings(ONE_DEAL, seed=4, clock=clock, match_id="bank", sandbox=UNCONFINED),
        [f"spy={bot('spy', '--record', str(record), tag)}", "r=builtin:random"],
    )
    clocks = [engine_pb2.DecisionRequest.FromString(raw).clock for raw in recorded(str(record))]
    assert len(clocks) == 18
    assert clocks[0].bank_ms == 2000 and clocks[0].deadline_ms == 1000
    assert all(c.move_time_ms == 1000 and c.increment_ms == 500 for c in clocks)
    decisions = [d for d in report.decisions if d.seat == 0]
    for (before, after), decision in zip(itertools.pairwise(clocks), decisions, strict=False):
        # What the bot is sent is what the referee holds it to and keeps.
        assert before.deadline_ms == round(decision.deadline * 1000)
        assert after.bank_ms == round(decision.bank_left * 1000)
        assert after.deadline_ms == min(1000, after.bank_ms)


def test_an_empty_bank_is_a_timeout():
    clock = ClockSettings(move_time=None, bank=0.5, grace=0.05)
    report = mocked(
        [("slow", Thinker(lambda d: 1.0)), ("fast", Thinker(at_once))],
        MatchSettings(Variant(Game.SCOPA), seed=2, clock=clock, match_id="broke"),
    )
    (fault,) = report.result.faults
    assert fault.kind is FaultKind.TIMEOUT and "0.5s" in fault.message
    assert report.decisions[-1].think_time == pytest.approx(0.55, abs=1e-9)
    assert report.decisions[-1].bank_left == 0.0


def test_a_bot_timed_where_it_runs_is_judged_by_its_own_time():
    """An in-process strategy's own time decides: a late event loop (here 5 s
    of trio's clock) is not its timeout, and an answer it measured past the
    deadline is one, however early it came."""
    clock = ClockSettings(move_time=1.0, grace=0.05)
    late_loop = Thinker(lambda d: 5.0, reports=lambda d: 0.2)
    # Its second decision, by its own measure, takes 1.5 s.
    slow_self = Thinker(at_once, reports=lambda d: 1.5 if len(slow_self.seen) == 2 else 0.1)
    report = mocked(
        [("late-loop", late_loop), ("slow-self", slow_self)],
        MatchSettings(ONE_DEAL, seed=6, clock=clock, match_id="self"),
    )
    assert all(d.think_time == 0.2 for d in report.decisions if d.seat == 0)
    (fault,) = report.result.faults
    assert (fault.seat, fault.kind) == (1, FaultKind.TIMEOUT)
    assert fault.decision == slow_self.seen[1].number
    assert fault.message == "answered after 1.500s, limit 1s"
    assert report.result.termination is Termination.FORFEIT and report.result.winner == 0


def test_timeouts_are_substituted_then_forfeit_at_the_nth_strike():
    clock = ClockSettings(move_time=0.5, grace=0.05)
    policy = FaultPolicy(OnFault.SUBSTITUTE, strikes=3, substitute="first")
    # It never answers its own 1st, 3rd and 5th decisions; the others take 0.1 s.
    flaky = Thinker(lambda d: math.inf if len(flaky.seen) % 2 else 0.1)
    report = mocked(
        [("flaky", flaky), ("fast", Thinker(at_once))],
        MatchSettings(Variant(Game.SCOPA), seed=7, clock=clock, policy=policy, match_id="n"),
    )
    faults = report.result.faults
    assert [f.kind for f in faults] == [FaultKind.TIMEOUT] * 3
    assert [f.decision for f in faults] == [flaky.seen[i].number for i in (0, 2, 4)]
    assert len(flaky.seen) == 5
    substituted = [d for d in report.decisions if d.fault is not None and d.move is not None]
    assert [d.think_time for d in substituted] == [pytest.approx(0.55, abs=1e-9)] * 2
    assert report.decisions[-1].fault == faults[-1] and report.decisions[-1].move is None
    assert report.result.termination is Termination.FORFEIT and report.result.winner == 1


@pytest.mark.process
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
