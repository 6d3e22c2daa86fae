"""The one observer: every view the arena shows comes from ``view`` (rules)."""

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.errors import RulesError
from arena.rules import Game, Match, Sight, Variant, observe, view
from arena.rules.cards import BIT, cards_of
from tests.support.positions import random_position, shuffle_hidden


def cards_in(v) -> int:
    """Every card a view mentions: table, hands it shows, plays and captures."""
    mask = v.table
    for hand in v.hands:
        mask |= hand or 0
    for p in v.plays:
        mask |= BIT[p.card] | p.captures
    return mask


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(list(Game)), st.integers(0, 2**32), st.integers(0, 40))
def test_the_public_view_holds_no_card_of_any_hand_or_of_the_stock(game, seed, steps):
    match = random_position(game, seed, steps)
    assume(match is not None)
    deal = match.deal
    hidden = sum(BIT[c] for c in deal.deck[deal.stock_pos :])
    for hand in deal.hands:
        hidden |= hand
    public = view(match, Sight.PUBLIC)
    assert public.hands == (None,) * game.seats
    assert not cards_in(public) & hidden, cards_of(cards_in(public) & hidden)
    # ... and it is the same whatever the hidden cards are.
    assert view(shuffle_hidden(match, 0, random.Random(seed)), Sight.PUBLIC) == public
    # The check can fail: the full view does hold the hands.
    assert cards_in(view(match, Sight.ALL)) & hidden == sum(deal.hands)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(list(Game)), st.integers(0, 2**32), st.integers(0, 40), st.data())
def test_every_viewer_is_the_full_view_narrowed(game, seed, steps, data):
    match = random_position(game, seed, steps)
    assume(match is not None)
    seat = data.draw(st.integers(0, game.seats - 1))
    full = view(match, Sight.ALL)
    assert full.seen_by(seat) == view(match, seat)
    assert full.seen_by(Sight.PUBLIC) == view(match, Sight.PUBLIC)
    assert view(match, seat).observation() == observe(match, seat)
    shown = [s for s, h in enumerate(view(match, seat).hands) if h is not None]
    assert shown == [seat]


def test_a_view_only_hides_more():
    match = Match(Variant(Game.SCOPONE), seed=3)
    match.start_deal()
    with pytest.raises(RulesError, match="cannot show seat 1"):
        view(match, 2).seen_by(1)
    with pytest.raises(RulesError, match="not one seat's observation"):
        view(match, Sight.PUBLIC).observation()
    with pytest.raises(RulesError, match="no seat 4"):
        view(match, 4)
