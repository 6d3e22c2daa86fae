"""The referee's fault policy, on scripted seats (arena.testing): a wrong move
is the bot's fault, with the rule it broke in words; the match forfeits, or
a substitute plays on until the strikes run out; the log says the same. No
process here: how a process's failure is classified (a crash, garbage bytes,
an error status, a hang) is tests/referee/test_faults.py."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from arena.errors import BotError, FaultKind
from arena.logs.record import read_log
from arena.match.engine import Answer, Decision
from arena.match.outcome import Termination
from arena.match.settings import ClockSettings, FaultPolicy, MatchSettings, OnFault
from arena.rules import Game, Move, Variant
from arena.rules.cards import BIT, cards_of
from arena.testing import FIRST, ScriptedSeat, mocked

FAST = ClockSettings(move_time=0.4, grace=0.05)


def wrong_move(decision: Decision, kind: str) -> Move | None:
    """A move of the given wrong kind in this position, or None when there is none:
    ``notheld`` a card the seat lacks, ``laid`` a card laid where it must take,
    ``badsum`` a take of one card of another rank."""
    legal = set(decision.legal_moves)
    hand, table = decision.observation.hand, decision.observation.table
    if kind == "notheld":
        return Move(next(c for c in range(40) if not (hand | table) & BIT[c]), 0)
    for card in cards_of(hand):
        for taken in [0] + [BIT[t] for t in cards_of(table)]:
            move = Move(card, taken)
            if move in legal:
                continue
            if (kind == "laid" and not taken) or (kind == "badsum" and taken):
                return move
    return None


def wrong(kind: str) -> Callable[[Decision], Move | Answer]:
    """A script entry: the wrong move where there is one, else the first legal one."""
    return lambda decision: wrong_move(decision, kind) or FIRST(decision)


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("laid", "so it cannot be laid"),
        ("notheld", "is not in the hand"),
        ("badsum", "add up to"),
    ],
)
def test_a_wrong_move_loses_the_match_with_the_rule_it_broke(kind, words, tmp_path):
    log = tmp_path / "m.log"
    bad = ScriptedSeat(FIRST, FIRST, *[wrong(kind)] * 40, name="bad")
    settings = MatchSettings(Variant(Game.SCOPA), seed=2, clock=FAST, match_id=kind)
    report = mocked([("bad", bad), ("good", ScriptedSeat())], settings, log=log)
    result = report.result
    assert result.termination is Termination.FORFEIT and result.winner == 1
    (fault,) = result.faults
    assert (fault.seat, fault.kind, fault.at_startup) == (0, FaultKind.ILLEGAL, False)
    assert words in fault.message, fault.message
    assert fault.decision >= 4 or fault.deal_number > 0  # after its two good answers
    # Said once: the seat and the engine are the record's, not the message's.
    assert "seat" not in fault.message and "bad" not in fault.message
    assert result.reason == fault.headline()
    # The log ends properly, the faulted decision without a move.
    contents = read_log(log)
    assert contents.complete
    decisions = [r.decision for r in contents.records if r.WhichOneof("record") == "decision"]
    assert decisions[-1].HasField("fault") and not decisions[-1].HasField("move")
    assert decisions[-1].decision == fault.decision


def test_a_fault_the_transport_classified_is_recorded_as_it_said():
    garbled = BotError(FaultKind.MALFORMED, "answer is not a valid message")
    bad = ScriptedSeat(FIRST, garbled, name="bad")
    report = mocked(
        [("bad", bad), ("good", ScriptedSeat())],
        MatchSettings(Variant(Game.SCOPA), seed=2, clock=FAST),
    )
    bad.assert_done()
    (fault,) = report.result.faults
    assert (fault.seat, fault.kind, fault.message) == (
        0,
        FaultKind.MALFORMED,
        "answer is not a valid message",
    )
    assert fault.decision == 2  # its second decision: the first and third plays are seat 0's
    assert report.result.termination is Termination.FORFEIT and report.result.winner == 1


def test_substitute_policy_plays_on_then_forfeits_after_n_strikes():
    policy = FaultPolicy(OnFault.SUBSTITUTE, strikes=3, substitute="first")
    settings = MatchSettings(Variant(Game.SCOPA), seed=4, clock=FAST, policy=policy)
    bad = ScriptedSeat(FIRST, *[wrong("notheld")] * 10, name="bad")
    report = mocked([("bad", bad), ("r", ScriptedSeat())], settings)
    faults = report.result.faults
    assert [(f.seat, f.kind) for f in faults] == [(0, FaultKind.ILLEGAL)] * 3
    assert report.result.termination is Termination.FORFEIT and report.result.winner == 1
    substituted = [d for d in report.decisions if d.fault is not None and d.move is not None]
    assert len(substituted) == 2  # the third fault forfeits; nothing is played for it
    assert len(bad.seen) == 4


def test_substitute_policy_lets_a_match_finish():
    policy = FaultPolicy(OnFault.SUBSTITUTE, strikes=1000, substitute="random")
    settings = MatchSettings(Variant(Game.SCOPA), seed=5, clock=FAST, policy=policy)
    bad = ScriptedSeat(*[wrong("badsum")] * 400, name="bad")
    report = mocked([("bad", bad), ("r", ScriptedSeat())], settings)
    assert report.result.termination is Termination.COMPLETED
    assert report.result.faults and all(f.seat == 0 for f in report.result.faults)
    played = [d for d in report.decisions if d.seat == 0]
    assert all(d.move is not None for d in played)  # every fault was substituted


def test_a_seat_that_thinks_past_its_clock_is_cut_off_and_the_other_side_wins():
    never = ScriptedSeat(FIRST, float("inf"), name="slow")
    report = mocked(
        [("slow", never), ("fast", ScriptedSeat())],
        MatchSettings(Variant(Game.SCOPA), seed=2, clock=FAST),
    )
    (fault,) = report.result.faults
    assert (fault.seat, fault.kind, fault.message) == (
        0,
        FaultKind.TIMEOUT,
        "no answer within 0.4s",
    )
    assert report.decisions[-1].think_time == pytest.approx(0.45, abs=1e-9)
    assert report.result.termination is Termination.FORFEIT and report.result.winner == 1
