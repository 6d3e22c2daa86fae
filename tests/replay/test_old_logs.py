"""A log written before the observation gained its remembered fields
(captured cards, last capture seat, opening table) replays unchanged: logs
hold decks and decisions, never observations, so neither log.proto nor the
replay changed. The file was written by the arena at commit ed2eabf, the
last before those fields (`arena match --variant scopone --engine
g=builtin:greedy --engine r=builtin:random --seed 5`)."""

from pathlib import Path

from arena.logs.replay import replay_log
from arena.rules import side_of
from arena.rules.cards import BIT

OLD_LOG = Path(__file__).parent / "data" / "v2-scopone-before-recall.log"


def test_a_log_from_before_the_remembered_fields_verifies():
    replay = replay_log(OLD_LOG)
    assert replay.complete and replay.chain is not None and len(replay.deals) == 3
    assert replay.scores == [12, 3]


def test_its_replayed_views_carry_the_remembered_fields():
    # The viewer and `arena replay --seat` are built from these views.
    for deal in replay_log(OLD_LOG).deals:
        opening = deal.start.table
        assert opening.bit_count() == 4 and deal.start.opening_table == opening
        piles, last = [0, 0], None
        for step in deal.steps:
            assert step.move is not None
            if step.move.captures:
                piles[side_of(step.seat)] |= step.move.captures | BIT[step.move.card]
                last = step.seat
            after = step.after
            assert after.opening_table == opening and after.last_capture_seat == last
            if after.to_move is not None:  # the last play also gives the leftovers
                assert after.captured_cards == tuple(piles)
        assert sum(m.bit_count() for m in deal.steps[-1].after.captured_cards) == 40
