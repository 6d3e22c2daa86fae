"""Match end, targets, ties, deal limits, dealer rotation and determinism."""

import random

import pytest

from arena.errors import RulesError
from arena.players.strategies import greedy_strategy, random_strategy
from arena.rules import Game, Match, Variant, play_match, seeded_deck, seeded_first_dealer


def finish_deal_with_points(match: Match, points: tuple[int, int]) -> None:
    """Play the current deal to its end with first-legal moves, then force its points."""
    deal = match.start_deal()
    while not deal.is_over:
        deal.play(deal.legal_moves()[0])
    # Replace the scoring with chosen points by rigging the scope counts.
    deal.piles = [0, 0]
    deal.scope = list(points)
    match.end_deal()


def test_match_ends_when_a_side_reaches_the_target_with_more_points():
    m = Match(Variant(Game.SCOPA, target=11), seed=1)
    finish_deal_with_points(m, (6, 4))
    assert not m.is_over
    finish_deal_with_points(m, (5, 3))
    assert m.is_over and m.winner == 0 and m.scores == [11, 7]


def test_tie_at_or_over_target_plays_another_deal():
    m = Match(Variant(Game.SCOPA, target=11), seed=1)
    finish_deal_with_points(m, (11, 11))
    assert not m.is_over
    finish_deal_with_points(m, (0, 1))
    assert m.is_over and m.winner == 1


def test_both_over_target_the_higher_wins():
    m = Match(Variant(Game.SCOPA, target=11), seed=1)
    finish_deal_with_points(m, (10, 9))
    finish_deal_with_points(m, (2, 4))
    assert m.is_over and m.winner == 1 and m.scores == [12, 13]


def test_other_targets():
    m = Match(Variant(Game.SCOPA, target=21), seed=1)
    finish_deal_with_points(m, (16, 0))
    assert not m.is_over


def test_fixed_number_of_deals_equal_scores_draw():
    m = Match(Variant(Game.SCOPA, target=None, deal_limit=2), seed=1)
    finish_deal_with_points(m, (3, 1))
    assert not m.is_over
    finish_deal_with_points(m, (0, 2))
    assert m.is_over and m.winner is None and m.scores == [3, 3]


def test_deal_limit_with_target_ends_at_whichever_comes_first():
    m = Match(Variant(Game.SCOPA, target=11, deal_limit=1), seed=1)
    finish_deal_with_points(m, (4, 2))
    assert m.is_over and m.winner == 0


def test_variant_needs_an_end():
    with pytest.raises(RulesError, match="target score, a deal limit"):
        Variant(Game.SCOPA, target=None)
    with pytest.raises(RulesError):
        Variant(Game.SCOPA, target=0)


def test_dealer_passes_to_next_seat_each_deal():
    m = Match(Variant(Game.SCOPONE), seed=3, first_dealer=2)
    dealers = []
    for _ in range(5):
        dealers.append(m.start_deal().dealer)
        deal = m.deal
        assert deal is not None
        while not deal.is_over:
            deal.play(deal.legal_moves()[0])
        m.end_deal()
        if m.is_over:
            break
    assert dealers == [2, 3, 0, 1, 2][: len(dealers)]


def test_first_dealer_comes_from_the_seed():
    assert {seeded_first_dealer(s, 4) for s in range(40)} == {0, 1, 2, 3}
    assert Match(Variant(Game.SCOPA), seed=7).first_dealer == seeded_first_dealer(7, 2)


def test_same_seed_same_decks_and_decks_are_explicit():
    assert seeded_deck(11, 3) == seeded_deck(11, 3)
    assert seeded_deck(11, 3) != seeded_deck(11, 4) != seeded_deck(12, 3)
    assert sorted(seeded_deck(11, 3)) == list(range(40))
    # The deck orders themselves are pinned by the test vectors of docs/seeds.md
    # (tests/rules/test_seeding.py): they must never change, or old seeds change meaning.


def test_whole_matches_are_reproducible():
    def run(seed: int) -> list:
        rng = random.Random(seed)
        m = play_match(
            Match(Variant(Game.SCOPA), seed=seed), [greedy_strategy(rng), random_strategy(rng)]
        )
        return [(d.deck, d.plays, d.totals) for d in m.finished]

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_start_and_end_in_the_right_order():
    m = Match(Variant(Game.SCOPA), seed=1)
    with pytest.raises(RulesError, match="no finished deal"):
        m.end_deal()
    m.start_deal()
    with pytest.raises(RulesError, match="not finished"):
        m.start_deal()
