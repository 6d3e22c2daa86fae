"""The belief over the other seats' hands: what a play says about the hand
that made it, computed from the seat's own view alone."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.players.search import belief, ismcts
from arena.players.search.belief import Belief
from arena.rules import Game, Match, Move, Variant, observe, parse_cards
from arena.rules.cards import RANK_MASK
from arena.rules.moves import legal_moves
from arena.rules.variants import CIRULLA_OPTIONS, cirulla_options
from tests.search.test_players import deal_with
from tests.support.positions import random_position, shuffle_hidden


def test_a_seat_that_left_the_settebello_is_believed_to_hold_no_seven():
    # Seat 1 lays the 4 of Spade where any seven would have taken the settebello.
    deal = deal_with({1: "4s 2b Cc"}, "7d 3c 5s Fb")
    deal.play(Move(parse_cards("4s")[0], 0))
    obs = observe(deal, 0)
    sevens = RANK_MASK[7]

    def share_with_a_seven(worlds):
        return sum(1 for w in worlds if w.hands[1] & sevens) / len(worlds)

    rng = random.Random(4)
    weighted = Belief(obs)
    assert weighted.informative
    believed = [w for _ in range(300) for w in weighted.sample(rng)]
    uniform = [w for _ in range(300) for w in Belief(obs, strength=0).sample(rng)]
    assert (
        share_with_a_seven(uniform) > 0.08
    )  # two cards of 32 unseen, two or three sevens among them
    assert share_with_a_seven(believed) < share_with_a_seven(uniform) / 3
    # Every believed deal is still one the seat's view allows.
    assert all(observe(w, 0) == obs for w in believed[:50])


def test_without_plays_since_the_deal_the_belief_is_uniform():
    deal = deal_with({1: "4s 2b Cc"}, "7d 3c 5s Fb")
    assert not Belief(observe(deal, 1)).informative


VARIANTS = [
    Variant(Game.SCOPA),
    Variant(Game.SCOPONE),
    Variant(Game.SCOPONE_SCIENTIFICO, fewest_cards=True),
    Variant(Game.SCOPA, ace_takes_all=True),
    Variant(Game.SCOPA_A_QUATTRO, fifteen=True, fifteen_ordinary=True),
    Variant(Game.SCOPA_A_SEI),
    Variant(Game.SCOPA, **CIRULLA_OPTIONS),  # the opening table may be the dealer's
    Variant(Game.SCOPONE, **cirulla_options(Game.SCOPONE)),
]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32), st.integers(1, 30))
def test_a_hand_s_likelihood_is_its_cards_likelihoods_added_up(variant, seed, steps):
    """The belief adds each card's moves up rather than listing the hand's
    moves: the same likelihood as the model read over legal_moves directly."""
    match = Match(variant, seed=seed)
    deal = match.start_deal()
    rng = random.Random(seed)
    for _ in range(steps):
        if deal.is_over:
            break
        deal.play(rng.choice(deal.legal_moves()))
    assume(not deal.is_over)
    seat = deal.to_move
    assert seat is not None
    obs = observe(match, seat)
    made = Belief(obs)
    v = variant
    rules = (v.fewest_cards, v.ace_takes_all, v.fifteen, v.fifteen_ordinary)
    for world in made.sample(rng, 3):
        for other, plays in made._history:
            direct = 0.0
            for later, table, card, taken in plays:
                moves = legal_moves(world.hands[other] | later, table, *rules)
                assert Move(card, taken) in moves  # the play was legal with that hand
                if len(moves) > 1:
                    mass = [
                        math.exp(belief.SHARPNESS * belief.move_value(c, t, table))
                        for c, t in moves
                    ]
                    chosen = math.exp(belief.SHARPNESS * belief.move_value(card, taken, table))
                    share = belief.UNIFORM_SHARE
                    direct += math.log(share / len(moves) + (1 - share) * chosen / sum(mass))
            assert made._seat_log_likelihood(world.hands[other], plays) == pytest.approx(direct)


@pytest.mark.parametrize("game", [Game.SCOPA, Game.SCOPONE])
def test_an_inferring_search_decides_the_same_whatever_the_hidden_cards(game):
    """Two matches the seat cannot tell apart: the same search, move for move."""
    match = random_position(game, 12, 7)
    assert match is not None and match.deal is not None
    seat = match.deal.to_move
    assert seat is not None
    other = shuffle_hidden(match, seat, random.Random(3))
    assert other.deal is not None and other.deal.hands != match.deal.hands
    results = []
    for m in (match, other):
        obs = observe(m, seat)
        moves = m.deal.legal_moves()
        results.append(ismcts.search(obs, moves, random.Random(8), iterations=300, infer=1.0))
    a, b = results
    assert (a.moves, a.visits, a.values) == (b.moves, b.visits, b.values)


def test_a_deal_drawn_twice_is_two_deals():
    """A search may play each drawn deal to its end: none may be shared."""
    deal = deal_with({1: "4s 2b Cc"}, "7d 3c 5s Fb")
    deal.play(Move(parse_cards("4s")[0], 0))
    obs = observe(deal, 0)
    rng = random.Random(1)
    for _ in range(50):
        drawn = Belief(obs).sample(rng, 8)
        assert len(drawn) == 8 and len({id(w) for w in drawn}) == 8


def test_the_plays_are_read_on_the_table_the_dealer_left():
    """Cirulla: an opening table of 15 is the dealer's before the first play;
    every play is then legal on the table the belief rebuilds."""
    match = Match(Variant(Game.SCOPA, **CIRULLA_OPTIONS), seed=4)
    deal = match.start_deal()
    assert deal.opening_scope == 1 and deal.table == 0
    rng = random.Random(2)
    while len(deal.plays) < 2:
        deal.play(rng.choice(deal.legal_moves()))
    seat = deal.to_move
    assert seat is not None
    made = Belief(observe(match, seat))
    [(other, plays)] = made._history
    first = deal.plays[0]  # it met an empty table, so it was laid there
    assert first.captures == 0 and plays[0][1] == 1 << first.card
    v = match.variant
    rules = (v.fewest_cards, v.ace_takes_all, v.fifteen, v.fifteen_ordinary)
    for later, table, card, taken in plays:
        assert Move(card, taken) in legal_moves(deal.hands[other] | later, table, *rules)
