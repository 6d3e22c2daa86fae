"""A seat's observation must not depend on the cards that seat cannot see."""

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.rules import Game, Match, Variant, observe
from tests.support.positions import random_position, shuffle_hidden


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(list(Game)), st.integers(0, 2**32), st.integers(0, 40), st.data())
def test_observation_is_unchanged_when_hidden_cards_move(game, seed, steps, data):
    match = random_position(game, seed, steps)
    assume(match is not None)
    seat = data.draw(st.integers(0, game.seats - 1))
    before = observe(match, seat)
    changed = shuffle_hidden(match, seat, random.Random(seed + 1))
    after = observe(changed, seat)
    assert after == before
    # Named, since a bot relies on them: what the seat remembers of the deal.
    remembered = ("captured_cards", "last_capture_seat", "opening_table")
    assert [getattr(after, f) for f in remembered] == [getattr(before, f) for f in remembered]


CIRULLA_GAMES = [Game.SCOPA, Game.SCOPA_A_QUATTRO]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(CIRULLA_GAMES), st.integers(0, 2**32), st.integers(0, 40), st.data())
def test_with_declarations_the_view_is_unchanged_when_the_unshown_cards_move(
    game, seed, steps, data
):
    # Every declaration open is made: the shown packets are public, the rest stays hidden.
    variant = Variant(game, declarations=True, matta=True)
    match = random_position(game, seed, steps, variant)
    assume(match is not None)
    seat = data.draw(st.integers(0, game.seats - 1))
    before = observe(match, seat)
    after = observe(shuffle_hidden(match, seat, random.Random(seed + 1)), seat)
    assert after == before


def test_the_shuffle_changes_what_other_seats_see():
    # So the test above can fail: seat 1's view changes when seat 0's hidden cards move.
    match = Match(Variant(Game.SCOPONE), seed=3)
    match.start_deal()
    changed = shuffle_hidden(match, 0, random.Random(1))
    assert observe(changed, 0) == observe(match, 0)
    assert observe(changed, 1) != observe(match, 1)
    assert observe(changed, 2) != observe(match, 2)  # the partner's hand is hidden too


def test_observation_holds_only_public_and_own_values():
    match = Match(Variant(Game.SCOPONE), seed=3)
    deal = match.start_deal()
    obs = observe(match, 2)
    assert obs.hand == deal.hands[2]
    assert obs.hand_sizes == (9, 9, 9, 9) and obs.stock_count == 0
    fields = set(obs.__dataclass_fields__)
    assert "seed" not in fields and "deck" not in fields and "hands" not in fields
