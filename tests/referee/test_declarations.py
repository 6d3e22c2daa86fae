"""Cirulla's declarations over the wire: real bot processes (tests/bots/declarer.py)
offered the declaring moves, declaring, lying about their hands, and logged."""

import pytest

from arena.errors import FaultKind
from arena.logs.replay import replay_log
from arena.match.outcome import Termination
from arena.match.settings import ClockSettings, MatchSettings
from arena.rules import Declaring, Game, Variant
from arena.rules.declarations import DECLARATION_POINTS, declaration_of
from arena.wire import convert as cv
from arena.wire.v1 import scopa_pb2 as pb
from tests.support.bots import bot
from tests.support.matches import play

pytestmark = pytest.mark.process

CLOCK = ClockSettings(move_time=2.0)
# Seed 11's four deals give each seat packets to declare (found by trying seeds).
VARIANT = Variant(Game.SCOPA, target=None, deal_limit=4, declarations=True, matta=True)


def match(mode: str, tmp_path, seed: int = 11):
    settings = MatchSettings(VARIANT, seed=seed, clock=CLOCK, match_id=f"declare-{mode}")
    log = tmp_path / f"{mode}.log"
    report = play(settings, [f"d={bot('declarer', '--mode', mode)}", "g=builtin:greedy"], log=log)
    return report, log


def test_a_bot_declares_over_the_wire_and_the_log_replays_it(tmp_path):
    report, log = match("always", tmp_path)
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    replay = replay_log(log)
    declared = [s for d in replay.deals for s in d.steps if isinstance(s.move, Declaring)]
    by_bot = [s for s in declared if s.seat == 0]
    assert by_bot and len(declared) > len(by_bot)  # the built-in greedy declares too
    for step in declared:
        shown = step.after.declarations[-1]
        assert declaration_of(shown.hand, matta=True) == step.move.declaration == shown.kind
    # Each declaration's points are its side's, apart from the sweeps.
    for deal in replay.deals:
        worth = [0, 0]
        for d in deal.steps[-1].after.declarations:
            worth[d.seat & 1] += DECLARATION_POINTS[d.kind]
        sweeps = [0, 0]
        for s in deal.steps:
            if s.scopa:
                sweeps[s.seat & 1] += 1
        opening = deal.start.scope
        score = deal.finished.score
        for side in (0, 1):
            assert score.tallies[side].scope == opening[side] + sweeps[side]
            assert score.tallies[side].declared == score.breakdown(side)["declared"]
            assert score.tallies[side].declared == worth[side]


def test_a_bot_that_never_declares_plays_legally_and_scores_none(tmp_path):
    report, log = match("never", tmp_path)
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    replay = replay_log(log)
    assert not [
        s for d in replay.deals for s in d.steps if s.seat == 0 and isinstance(s.move, Declaring)
    ]


@pytest.mark.parametrize(("mode", "said"), [("false", "allows no declaration"), ("wrong", "not")])
def test_a_bot_that_declares_what_its_hand_does_not_hold_faults(tmp_path, mode, said):
    report, _ = match(mode, tmp_path)
    result = report.result
    assert result.termination is Termination.FORFEIT and result.winner == 1
    (fault,) = result.faults
    assert (fault.seat, fault.kind) == (0, FaultKind.ILLEGAL)
    assert "declaring" in fault.message and said in fault.message


def test_the_wire_offers_each_move_twice_where_a_declaration_is_open():
    from arena.rules import Deal, parse_cards

    head = parse_cards("Ad 3b 5s 4d 6b Rs Fd Cb Rc 6d")
    deal = Deal(VARIANT, 0, head + [c for c in range(40) if c not in head])
    offered = deal.offered_moves()
    plain = deal.legal_moves()
    assert offered[: len(plain)] == plain and len(offered) == 2 * len(plain)
    request = pb.Observation()
    for m in offered:
        message = cv.move_to_pb(m)
        assert cv.move_from_pb(message) == m
        request.plays.add().move.CopyFrom(message)
    assert {m.declaration for m in offered[len(plain) :]} == {"cirulla"}
    bad = cv.move_to_pb(plain[0])
    bad.declaration = 7
    with pytest.raises(Exception, match="unknown declaration 7"):
        cv.move_from_pb(bad)
