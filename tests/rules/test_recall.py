"""What a player remembers of a deal is in every observation, and right:
each side's captured cards, the seat that captured last, the opening table.

Checked against values kept aside while real deals are played (the table as
dealt, each play's capture), for every game, every seat and every decision.
"""

import random

import pytest

from arena.rules import Game, Match, Sight, Variant, observe, parse_cards, view
from arena.rules.cards import BIT
from arena.rules.deal import Deal

from .helpers import cards, position


class Witness:
    """What a player at the table remembers, kept play by play."""

    def __init__(self, deal: Deal) -> None:
        self.opening_table = deal.table  # the table as dealt, before any play
        self.variant = deal.variant
        self.captured = [0] * deal.variant.sides
        self.last_capture_seat: int | None = None

    def saw(self, seat: int, card: int, captures: int) -> None:
        if captures:
            self.captured[self.variant.side_of(seat)] |= captures | BIT[card]
            self.last_capture_seat = seat


def check(match: Match, witness: Witness) -> None:
    """Every seat's observation, and the public view, agree with the witness."""
    for seat in range(match.variant.seats):
        obs = observe(match, seat)
        assert obs.opening_table == witness.opening_table
        assert obs.captured_cards == tuple(witness.captured)
        assert obs.captured_counts == tuple(m.bit_count() for m in witness.captured)
        assert obs.last_capture_seat == witness.last_capture_seat
    public = view(match, Sight.PUBLIC)
    assert (public.opening_table, public.captured_cards, public.last_capture_seat) == (
        witness.opening_table,
        tuple(witness.captured),
        witness.last_capture_seat,
    )


@pytest.mark.parametrize("game", list(Game))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_recall_is_right_at_every_decision_of_real_deals(game, seed):
    match = Match(Variant(game, target=None, deal_limit=3), seed=seed)
    rng = random.Random(seed)
    captures_seen = 0
    while not match.is_over:
        deal = match.start_deal()
        witness = Witness(deal)
        dealt_table = witness.opening_table
        assert dealt_table.bit_count() == (0 if game is Game.SCOPONE_SCIENTIFICO else 4)
        while not deal.is_over:
            check(match, witness)
            seat = deal.to_move
            assert seat is not None
            move = rng.choice(deal.legal_moves())
            deal.play(move)
            witness.saw(seat, *move)
            captures_seen += bool(move.captures)
        # Once the deal is over the leftovers are in their taker's pile.
        if deal.leftover is not None:
            side, leftover = deal.leftover
            witness.captured[side] |= leftover
        check(match, witness)
        assert sum(m.bit_count() for m in witness.captured) == 40
        assert witness.last_capture_seat is not None
        assert deal.variant.side_of(witness.last_capture_seat) == deal.last_capturer
        match.end_deal()
    assert captures_seen > 10  # the checks above saw captures by both sides


def test_nobody_has_captured_is_not_seat_0():
    deal = position(Game.SCOPA, ["7d", "5c"], "2b 3s", to_move=0)
    assert observe(deal, 0).last_capture_seat is None
    deal.play((card("7d"), 0))  # seat 0 trails the 7 of Denari
    assert observe(deal, 1).last_capture_seat is None
    deal.play((card("5c"), cards("2b 3s")))  # seat 1 takes 2 + 3 with its 5
    assert observe(deal, 0).last_capture_seat == 1
    assert observe(deal, 0).opening_table == cards("2b 3s")


def card(name: str) -> int:
    (one,) = parse_cards(name)
    return one


def test_a_seat_of_side_0_other_than_0_can_be_the_last_capturer():
    # Scopone: seat 2 (side 0) captures; the seat is sent, not the side.
    deal = position(Game.SCOPONE, ["1d", "2d", "5b", "4c"], "5c", to_move=2)
    deal.play((card("5b"), cards("5c")))
    obs = observe(deal, 3)
    assert obs.last_capture_seat == 2
    assert obs.captured_cards[0] == cards("5b 5c")
